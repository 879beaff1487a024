/* CSC matrices: creation from arrays (validated), copies between spaces, the transpose view. */
#include <string.h>
#include "spla_internal.h"

mmx_status mmx__csc_alloc(mmx_ctx *ctx, mmx_space space, mmx_index nrows, mmx_index ncols,
                          mmx_index nnz, mmx_index order, mmx_csc **out)
{
    mmx_status s = mmx__check_space(ctx, space, "matrix");
    if (s) return s;
    mmx_csc *A = calloc(1, sizeof *A);
    if (!A) return mmx__fail(ctx, MMX_ERR_NOMEM, "out of host memory for a matrix");
    A->nrows = nrows;
    A->ncols = ncols;
    A->nnz = nnz;
    A->order = order;
    A->space = space;
    A->ctx = ctx; /* its arrays come from, and go back to, this context's memory */
    A->cache = calloc(1, sizeof *A->cache); /* empty: filled on first use (rows.c) */
    if (!A->cache) {
        free(A);
        return mmx__fail(ctx, MMX_ERR_NOMEM, "out of host memory for a matrix");
    }
    A->cache->owner = A;
    const size_t ix = sizeof(mmx_index);
    s = mmx_mem_alloc(ctx, space, (size_t)nnz * ix, (void **)&A->rowidx);
    if (!s && order == 0) s = mmx_mem_alloc(ctx, space, ((size_t)ncols + 1) * ix, (void **)&A->colptr);
    if (!s && order == 0) s = mmx_mem_alloc(ctx, space, (size_t)nnz * ix, (void **)&A->val);
    if (s) {
        mmx_csc_free(A);
        return s;
    }
    *out = A;
    return MMX_OK;
}

mmx_status mmx__csc_alloc_x(mmx_ctx *ctx, mmx_csc *A)
{
    return mmx_mem_alloc(ctx, A->space, (size_t)A->nnz * sizeof(float), (void **)&A->x);
}

void mmx_csc_free(mmx_csc *A)
{
    if (!A) return;
    /* Device arrays go back to the maker's pool, after the work queued on its stream. */
    mmx_mem_free(A->ctx, A->space, A->colptr);
    mmx_mem_free(A->ctx, A->space, A->rowidx);
    mmx_mem_free(A->ctx, A->space, A->val);
    mmx_mem_free(A->ctx, A->space, A->x);
    if (A->cache && A->cache->owner == A) {
        mmx_csc_release_cache(A);
        free(A->cache);
    }
    free(A);
}

mmx_status mmx__csc_fault_report(mmx_ctx *ctx, const mmx_csc *A, mmx__csc_fault f)
{
    switch (f.kind) {
    case 0: return MMX_OK;
    case 1:
        return mmx__fail(ctx, MMX_ERR_ARG,
                         "column %d: column pointers decrease or leave [0, %d]", f.col, A->nnz);
    case 2:
        return mmx__fail(ctx, MMX_ERR_ARG, "column %d: row index %d outside [0, %d)", f.col,
                         f.row, A->nrows);
    default:
        return mmx__fail(ctx, MMX_ERR_ARG, "column %d: row %d appears twice", f.col, f.row);
    }
}

/* The host check: one pass over the columns, with a per-row stamp of the last column that
 * used the row, so repeated rows are found in O(nnz + nrows). */
static mmx_status csc_check_host(mmx_ctx *ctx, const mmx_csc *A)
{
    mmx__csc_fault f = {0, 0, 0};
    mmx_index *last = NULL;
    mmx_status s = mmx__host_alloc(ctx, (size_t)A->nrows, sizeof *last, (void **)&last);
    if (s) return s;
    for (mmx_index i = 0; i < A->nrows; i++) last[i] = -1;
    for (mmx_index j = 0; j < A->ncols && !f.kind; j++) {
        int64_t a = A->order ? (int64_t)A->order * j : A->colptr[j];
        int64_t b = A->order ? a + A->order : A->colptr[j + 1];
        if (a < 0 || b < a || b > A->nnz) {
            f = (mmx__csc_fault){1, j, 0};
            break;
        }
        for (int64_t k = a; k < b; k++) {
            mmx_index r = A->rowidx[k];
            if (r < 0 || r >= A->nrows) { f = (mmx__csc_fault){2, j, r}; break; }
            if (last[r] == j) { f = (mmx__csc_fault){3, j, r}; break; }
            last[r] = j;
        }
    }
    free(last);
    return mmx__csc_fault_report(ctx, A, f);
}

mmx_status mmx_csc_check(mmx_ctx *ctx, const mmx_csc *A)
{
    MMX__NEED_CTX(ctx);
    if (!A) return mmx__fail(ctx, MMX_ERR_ARG, "matrix is NULL");
    if (A->nrows < 0 || A->ncols < 0 || A->nnz < 0 || A->order < 0)
        return mmx__fail(ctx, MMX_ERR_ARG, "negative matrix size (%d x %d, nnz %d, order %d)",
                         A->nrows, A->ncols, A->nnz, A->order);
    if (A->order && (int64_t)A->order * A->ncols != A->nnz)
        return mmx__fail(ctx, MMX_ERR_ARG, "reduced matrix: nnz %d is not order %d x %d columns",
                         A->nnz, A->order, A->ncols);
    mmx_status s = mmx__check_space(ctx, A->space, "matrix");
    if (s) return s;
    if (A->space == MMX_SPACE_HOST) {
        if (!A->order && A->colptr[0] != 0)
            return mmx__fail(ctx, MMX_ERR_ARG, "colptr[0] is %d, not 0", A->colptr[0]);
        if (!A->order && A->colptr[A->ncols] != A->nnz)
            return mmx__fail(ctx, MMX_ERR_ARG, "colptr[%d] is %d, not nnz %d", A->ncols,
                             A->colptr[A->ncols], A->nnz);
        return csc_check_host(ctx, A);
    }
    mmx__csc_fault f = {0, 0, 0};
    s = mmx__csc_check_cuda(ctx, A, &f);
    return s ? s : mmx__csc_fault_report(ctx, A, f);
}

/* Shared tail of the two create functions: copy the arrays in, then check them where they
 * now live, so that a device-side input is checked on the device. */
static mmx_status csc_create(mmx_ctx *ctx, mmx_index nrows, mmx_index ncols, mmx_index nnz,
                             mmx_index order, const mmx_index *colptr, const mmx_index *rowidx,
                             const mmx_index *val, mmx_space src_space, mmx_csc **out)
{
    if (!out) return mmx__fail(ctx, MMX_ERR_ARG, "out is NULL");
    *out = NULL;
    mmx_status s = mmx__check_space(ctx, src_space, "input arrays");
    if (s) return s;
    mmx_csc *A;
    s = mmx__csc_alloc(ctx, mmx_ctx_space(ctx), nrows, ncols, nnz, order, &A);
    if (s) return s;
    const size_t ix = sizeof(mmx_index);
    s = mmx_mem_copy(ctx, A->rowidx, A->space, rowidx, src_space, (size_t)nnz * ix);
    if (!s && !order) s = mmx_mem_copy(ctx, A->colptr, A->space, colptr, src_space, ((size_t)ncols + 1) * ix);
    if (!s) s = mmx_csc_check(ctx, A);
    if (!s && !order)
        s = val ? mmx_mem_copy(ctx, A->val, A->space, val, src_space, (size_t)nnz * ix)
                : mmx__csc_fill_positions(ctx, A);
    if (!s) s = mmx__csc_props(ctx, A);
    if (s) {
        mmx_csc_free(A);
        return s;
    }
    *out = A;
    return MMX_OK;
}

mmx_status mmx_csc_create(mmx_ctx *ctx, mmx_index nrows, mmx_index ncols,
                          const mmx_index *colptr, const mmx_index *rowidx,
                          const mmx_index *val, mmx_space src_space, mmx_csc **out)
{
    MMX__NEED_CTX(ctx);
    if (nrows < 0 || ncols < 0 || !colptr)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_csc_create: bad size (%d x %d) or NULL colptr",
                         nrows, ncols);
    if (ncols == MMX_INDEX_MAX)
        return mmx__fail(ctx, MMX_ERR_OVERFLOW, "%d columns do not fit 32-bit column pointers", ncols);
    /* nnz is needed before the copy: read it from wherever colptr lives. */
    mmx_index nnz = 0;
    mmx_status s = mmx__check_space(ctx, src_space, "colptr");
    if (!s) s = mmx_mem_copy(ctx, &nnz, MMX_SPACE_HOST, colptr + ncols, src_space, sizeof nnz);
    if (s) return s;
    if (nnz < 0) return mmx__fail(ctx, MMX_ERR_ARG, "colptr[%d] = %d is negative", ncols, nnz);
    if (nnz > 0 && !rowidx) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_csc_create: rowidx is NULL");
    return csc_create(ctx, nrows, ncols, nnz, 0, colptr, rowidx, val, src_space, out);
}

mmx_status mmx_csc_create_reduced(mmx_ctx *ctx, mmx_index nrows, mmx_index ncols,
                                  mmx_index order, const mmx_index *rowidx,
                                  mmx_space src_space, mmx_csc **out)
{
    MMX__NEED_CTX(ctx);
    if (nrows < 0 || ncols < 0 || order <= 0)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_csc_create_reduced: bad size %d x %d, order %d",
                         nrows, ncols, order);
    if ((int64_t)order * ncols > MMX_INDEX_MAX)
        return mmx__fail(ctx, MMX_ERR_OVERFLOW, "%d columns of order %d exceed 32-bit indices",
                         ncols, order);
    if (ncols > 0 && !rowidx) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_csc_create_reduced: rowidx is NULL");
    return csc_create(ctx, nrows, ncols, order * ncols, order, NULL, rowidx, NULL, src_space, out);
}

mmx_status mmx_csc_copy(mmx_ctx *ctx, const mmx_csc *A, mmx_space dst_space, mmx_csc **out)
{
    MMX__NEED_CTX(ctx);
    if (!A || !out) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_csc_copy: NULL argument");
    *out = NULL;
    mmx_status s = mmx__check_space(ctx, A->space, "source matrix");
    if (s) return s;
    mmx_csc *B;
    s = mmx__csc_alloc(ctx, dst_space, A->nrows, A->ncols, A->nnz, A->order, &B);
    if (s) return s;
    const size_t ix = sizeof(mmx_index);
    s = mmx_mem_copy(ctx, B->rowidx, dst_space, A->rowidx, A->space, (size_t)A->nnz * ix);
    if (!s && !A->order)
        s = mmx_mem_copy(ctx, B->colptr, dst_space, A->colptr, A->space, ((size_t)A->ncols + 1) * ix);
    if (!s && !A->order) s = mmx_mem_copy(ctx, B->val, dst_space, A->val, A->space, (size_t)A->nnz * ix);
    if (!s && A->x) s = mmx__csc_alloc_x(ctx, B);
    if (!s && A->x) s = mmx_mem_copy(ctx, B->x, dst_space, A->x, A->space, (size_t)A->nnz * sizeof(float));
    B->maxcol = A->maxcol;
    B->minval = A->minval;
    B->maxval = A->maxval;
    B->positional = A->positional;
    if (s) {
        mmx_csc_free(B);
        return s;
    }
    *out = B;
    return MMX_OK;
}

mmx_status mmx_csc_set_values(mmx_ctx *ctx, mmx_csc *A, const float *x, mmx_space src_space)
{
    if (!A || (!x && A->nnz > 0))
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_csc_set_values: A or x is NULL");
    if (A->ctx != ctx)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_csc_set_values: A was made by another context "
                         "(its float values must come from the same memory)");
    mmx_status s = mmx__check_space(ctx, src_space, "mmx_csc_set_values: x");
    if (!s && !A->x) s = mmx__csc_alloc_x(ctx, A);
    if (!s) s = mmx_mem_copy(ctx, A->x, A->space, x, src_space, (size_t)A->nnz * sizeof *x);
    return s;
}

mmx_csr mmx_csc_transpose_view(const mmx_csc *A)
{
    /* CSC of A read as CSR is Aᵀ: the roles of rows and columns swap, nothing moves. */
    mmx_csr v = {A->ncols, A->nrows, A->nnz, A->colptr, A->rowidx, A->val, A->order, A->space, NULL};
    return v;
}
