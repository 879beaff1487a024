/* Explicit transpose: Aᵀ as a new general CSC matrix. Column i of Aᵀ is row i of A, its
 * entries in ascending column order, values kept (the implied positions for a reduced A), and
 * the float values x when A has them. */
#include <string.h>
#include "spla_internal.h"

/* Counting sort by row (CSparse's cs_transpose): count each row's entries, turn the counts
 * into column pointers, then visit A column by column and drop every entry into the next free
 * slot of its row. Columns are visited in ascending order, so each row's entries arrive
 * sorted by column: the sort is stable. */
static mmx_status transpose_host(mmx_ctx *ctx, const mmx_csc *A, mmx_csc *T)
{
    mmx_index *next = NULL;
    mmx_status s = mmx__host_alloc(ctx, (size_t)A->nrows + 1, sizeof *next, (void **)&next);
    if (s) return s;
    memset(next, 0, ((size_t)A->nrows + 1) * sizeof *next);
    for (mmx_index e = 0; e < A->nnz; e++) next[A->rowidx[e] + 1]++;
    for (int64_t i = 0; i < A->nrows; i++) next[i + 1] += next[i];
    memcpy(T->colptr, next, ((size_t)A->nrows + 1) * sizeof *next);
    for (mmx_index j = 0; j < A->ncols; j++) {
        int64_t a = A->order ? (int64_t)A->order * j : A->colptr[j];
        int64_t b = A->order ? a + A->order : A->colptr[j + 1];
        for (int64_t e = a; e < b; e++) {
            mmx_index slot = next[A->rowidx[e]]++;
            T->rowidx[slot] = j;
            T->val[slot] = A->order ? (mmx_index)(e - a + 1) : A->val[e];
            if (A->x) T->x[slot] = A->x[e];
        }
    }
    free(next);
    return MMX_OK;
}

mmx_status mmx_csc_transpose(mmx_ctx *ctx, const mmx_csc *A, mmx_csc **out)
{
    MMX__NEED_CTX(ctx);
    if (!ctx || !out) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_csc_transpose: ctx or out is NULL");
    *out = NULL;
    if (!A) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_csc_transpose: A is NULL");
    if (A->nrows < 0 || A->ncols < 0 || A->nnz < 0 || A->order < 0)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_csc_transpose: negative size (%d x %d, nnz %d)",
                         A->nrows, A->ncols, A->nnz);
    mmx_status s = mmx__check_space(ctx, A->space, "mmx_csc_transpose: A");
    if (s) return s;
    if (A->space != mmx_ctx_space(ctx))
        return mmx__fail(ctx, MMX_ERR_SPACE, "mmx_csc_transpose: A is in host memory, the context on the CUDA backend");
    if (mmx_ctx_backend(ctx) == MMX_BACKEND_CUDA) return mmx__csc_transpose_cuda(ctx, A, out);
    mmx_csc *T;
    s = mmx__csc_alloc(ctx, MMX_SPACE_HOST, A->ncols, A->nrows, A->nnz, 0, &T);
    if (s) return s;
    if (A->x) s = mmx__csc_alloc_x(ctx, T);
    if (!s) s = transpose_host(ctx, A, T);
    if (!s) s = mmx__csc_props(ctx, T);
    if (s) {
        mmx_csc_free(T);
        return s;
    }
    *out = T;
    return MMX_OK;
}
