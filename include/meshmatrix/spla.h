/*
 * meshmatrix/spla.h: sparse matrices in compressed sparse column (CSC) form.
 *
 * A CSC matrix stores, for column j, the entries k in [colptr[j], colptr[j+1]): row rowidx[k]
 * with stored value val[k]. Row indices inside a column are NOT assumed sorted: in a mesh
 * matrix they follow the face's cyclic order, and every operation here keeps that order.
 *
 * The reduced form (order > 0) is the mesh matrix of a mesh whose faces all have `order`
 * vertices: colptr and val are NULL, column j is rowidx[order*j .. order*(j+1)) and its stored
 * values are implied as 1, 2, ..., order.
 *
 * The struct is transparent, as in CSparse, so that kernels and users can read its fields; it
 * is created and freed only through the functions below.
 */
#ifndef MESHMATRIX_SPLA_H
#define MESHMATRIX_SPLA_H

#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mmx_csc {
    mmx_index nrows, ncols, nnz;
    mmx_index *colptr;  /* ncols + 1 entries, colptr[0] = 0, colptr[ncols] = nnz; NULL if reduced */
    mmx_index *rowidx;  /* nnz row indices in [0, nrows), distinct within a column */
    mmx_index *val;     /* nnz stored values; NULL if reduced */
    mmx_index order;    /* > 0: reduced form, every column has `order` entries; 0: general */
    mmx_space space;    /* where colptr, rowidx and val live */
} mmx_csc;

/* The CSR view of a matrix: the same three arrays read by rows. */
typedef struct mmx_csr {
    mmx_index nrows, ncols, nnz;
    const mmx_index *rowptr; /* nrows + 1 entries; NULL if reduced */
    const mmx_index *colidx;
    const mmx_index *val;    /* NULL if reduced */
    mmx_index order;         /* > 0: every row has `order` entries, row i is colidx[order*i ...] */
    mmx_space space;
} mmx_csr;

/* Creates A (nrows x ncols) from arrays in `src_space`, validated, and copied into the
 * context's memory space. colptr has ncols + 1 entries, rowidx and val have colptr[ncols];
 * val may be NULL, in which case each entry's value is its 1-based position in its column.
 * Checks: sizes non-negative, colptr[0] = 0 and non-decreasing, rows in [0, nrows), no row
 * twice in one column. Errors: MMX_ERR_ARG (the detail names the first offending column or
 * entry), MMX_ERR_OVERFLOW, MMX_ERR_NOMEM, MMX_ERR_SPACE, MMX_ERR_CUDA.
 * Cost: O(nnz) on the host; on the CUDA backend the check runs on the device. */
mmx_status mmx_csc_create(mmx_ctx *ctx, mmx_index nrows, mmx_index ncols,
                          const mmx_index *colptr, const mmx_index *rowidx,
                          const mmx_index *val, mmx_space src_space, mmx_csc **out);

/* Creates the reduced form directly: ncols columns of `order` entries each, rowidx having
 * order * ncols entries in `src_space`. Same checks and errors as mmx_csc_create. */
mmx_status mmx_csc_create_reduced(mmx_ctx *ctx, mmx_index nrows, mmx_index ncols,
                                  mmx_index order, const mmx_index *rowidx,
                                  mmx_space src_space, mmx_csc **out);

/* Frees A and its arrays; NULL is accepted. */
void mmx_csc_free(mmx_csc *A);

/* A deep copy of A in `dst_space`. Errors: MMX_ERR_SPACE (a device side on a host context),
 * MMX_ERR_NOMEM, MMX_ERR_CUDA. */
mmx_status mmx_csc_copy(mmx_ctx *ctx, const mmx_csc *A, mmx_space dst_space, mmx_csc **out);

/* The CSR view of Aᵀ: no copy, the view aliases A's arrays and is valid while A is. */
mmx_csr mmx_csc_transpose_view(const mmx_csc *A);

/* Checks the structure of A (the checks of mmx_csc_create) where it lives: on the host, or
 * with a kernel on the device. Errors: MMX_ERR_ARG with the first offending column. */
mmx_status mmx_csc_check(mmx_ctx *ctx, const mmx_csc *A);

#ifdef __cplusplus
}
#endif
#endif
