/* The diagonal of a mapped matrix, d[i] = A<map>(i, i): the argument checks and the
 * dispatch of the elementwise step in diag_step.h (host loop or kernel). What a Jacobi
 * preconditioner needs (cg.c). */
#include "diag_step.h"

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
    /* The step of diag_step.h, on the host or as its kernel (queued) for a device A. */
    return mmx__csc_diagonal_each(ctx, A->space, nd, *A, map, d);
}

mmx_status mmx__csc_set_diagonal(mmx_ctx *ctx, mmx_csc *A, const float *d, float alpha)
{
    const mmx_index nd = A->nrows < A->ncols ? A->nrows : A->ncols;
    return mmx__csc_set_diagonal_each(ctx, A->space, nd, *A, d, alpha);
}
