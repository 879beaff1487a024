/* The diagonal of a mapped matrix, d[i] = A<map>(i, i): the argument checks and the host
 * statement. What a Jacobi preconditioner needs (cg.c). */
#include "spla_internal.h"

mmx_status mmx_csc_diagonal(mmx_ctx *ctx, const mmx_csc *A, mmx_map map, float *d)
{
    if (!ctx) return MMX_ERR_ARG;
    if (!A) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_csc_diagonal: matrix A is NULL");
    mmx_status s = mmx__check_space(ctx, A->space, "mmx_csc_diagonal: matrix A");
    if (s) return s;
    if (A->space != mmx_ctx_space(ctx))
        return mmx__fail(ctx, MMX_ERR_SPACE,
                         "mmx_csc_diagonal: matrix A is in host memory but the context is on "
                         "the CUDA backend (copy it with mmx_csc_copy)");
    const mmx_index nd = A->nrows < A->ncols ? A->nrows : A->ncols;
    if (nd > 0 && !d) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_csc_diagonal: d is NULL");
    map = mmx__map_resolve(A, map);
    s = mmx__map_check(ctx, A, map, "mmx_csc_diagonal");
    if (s) return s;
    if (nd <= 0) return MMX_OK;
    if (mmx_ctx_backend(ctx) == MMX_BACKEND_CUDA) return mmx__csc_diagonal_cuda(ctx, A, map, d);
    /* Rows are distinct within a column, so column i holds row i at most once. */
    for (mmx_index i = 0; i < nd; i++) {
        int64_t a, b;
        mmx__csc_col(A, i, &a, &b);
        d[i] = 0.0f;
        for (int64_t e = a; e < b; e++)
            if (A->rowidx[e] == i) {
                d[i] = mmx__map_value(&map, i, i, (mmx_index)(b - a), mmx__csc_val(A, e, a), e);
                break;
            }
    }
    return MMX_OK;
}

mmx_status mmx__csc_set_diagonal(mmx_ctx *ctx, mmx_csc *A, const float *d, float alpha)
{
    if (mmx_ctx_backend(ctx) == MMX_BACKEND_CUDA) return mmx__csc_set_diagonal_cuda(ctx, A, d, alpha);
    const mmx_index nd = A->nrows < A->ncols ? A->nrows : A->ncols;
    for (mmx_index i = 0; i < nd; i++) mmx__csc_set_diag_col(A, i, d, alpha);
    return MMX_OK;
}
