/* Derived CSC arrays: positions as values, and the column pointers of a uniform matrix. Each is
 * an elementwise step (csc_fill_step.h) that runs here on the host or, for a device matrix, as
 * the kernel csc_fill.cu makes of the same step (queued: nothing is read back). */
#include "csc_fill_step.h"

mmx_status mmx__csc_fill_positions(mmx_ctx *ctx, mmx_csc *A)
{
    return mmx__csc_positions_each(ctx, A->space, A->ncols, A->colptr, A->val);
}

mmx_status mmx__csc_fill_uniform_colptr(mmx_ctx *ctx, mmx_csc *A, mmx_index order)
{
    return mmx__csc_uniform_colptr_each(ctx, A->space, (int64_t)A->ncols + 1, A->colptr, order);
}
