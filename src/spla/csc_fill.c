/* Derived CSC arrays: positions as values, and the column pointers of a uniform matrix. */
#include "spla_internal.h"

mmx_status mmx__csc_fill_positions(mmx_ctx *ctx, mmx_csc *A)
{
    if (A->space == MMX_SPACE_DEVICE) return mmx__csc_fill_positions_cuda(ctx, A);
    for (mmx_index j = 0; j < A->ncols; j++)
        for (mmx_index k = A->colptr[j]; k < A->colptr[j + 1]; k++) A->val[k] = k - A->colptr[j] + 1;
    return MMX_OK;
}

mmx_status mmx__csc_fill_uniform_colptr(mmx_ctx *ctx, mmx_csc *A, mmx_index order)
{
    if (A->space == MMX_SPACE_DEVICE) return mmx__csc_fill_uniform_colptr_cuda(ctx, A, order);
    for (mmx_index j = 0; j <= A->ncols; j++) A->colptr[j] = order * j;
    return MMX_OK;
}
