/* The Laplacians' pattern and weights on the device (host statement: laplacian.c; the column
 * is mmx__lap_column in geom_internal.h, the same code on both backends): one thread per
 * column of L, which writes that column's entries and weights only; the diagonal gathers
 * the column's weights in row order, so the result is deterministic. Queued. */
#include "core/launch.cuh"
#include "geom_internal.h"

__global__ static void lap_columns(const mmx__lap_in in, mmx_index n, mmx_index nnz,
                                   mmx_index *colptr, mmx_index *rowidx, mmx_index *val, float *w)
{
    const int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j == 0) colptr[n] = nnz;
    if (j >= n) return;
    mmx__lap_column(&in, (mmx_index)j, colptr, rowidx, val, w);
}

extern "C" mmx_status mmx__geom_laplacian_fill_cuda(mmx_ctx *ctx, const mmx__lap_in *in,
                                                    mmx_csc *L, float *w)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    lap_columns<<<mmx__grid(L->ncols), MMX__BLOCK, 0, st>>>(*in, L->ncols, L->nnz, L->colptr,
                                                            L->rowidx, L->val, w);
    return mmx__cuda(ctx, cudaGetLastError(), "geometry lap_columns launch");
}
