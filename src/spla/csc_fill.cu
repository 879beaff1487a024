/* Device versions of the derived CSC arrays (see csc_fill.c for the host statement), queued on
 * the context's stream: nothing is read back, so nothing waits. */
#include "core/launch.cuh"
#include "spla_internal.h"

/* One thread per column: its entries get 1, 2, ..., length. */
__global__ static void fill_positions(const mmx_index *colptr, mmx_index *val, mmx_index ncols)
{
    mmx_index j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= ncols) return;
    for (mmx_index k = colptr[j]; k < colptr[j + 1]; k++) val[k] = k - colptr[j] + 1;
}

__global__ static void fill_uniform_colptr(mmx_index *colptr, mmx_index ncols, mmx_index order)
{
    mmx_index j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j <= ncols) colptr[j] = order * j;
}

extern "C" mmx_status mmx__csc_fill_positions_cuda(mmx_ctx *ctx, mmx_csc *A)
{
    if (A->ncols == 0) return MMX_OK;
    cudaStream_t st = (cudaStream_t)ctx->stream;
    fill_positions<<<mmx__grid(A->ncols), MMX__BLOCK, 0, st>>>(A->colptr, A->val, A->ncols);
    return mmx__cuda(ctx, cudaGetLastError(), "fill_positions launch");
}

extern "C" mmx_status mmx__csc_fill_uniform_colptr_cuda(mmx_ctx *ctx, mmx_csc *A, mmx_index order)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    fill_uniform_colptr<<<mmx__grid((long long)A->ncols + 1), MMX__BLOCK, 0, st>>>(A->colptr, A->ncols,
                                                                                 order);
    return mmx__cuda(ctx, cudaGetLastError(), "fill_uniform_colptr launch");
}
