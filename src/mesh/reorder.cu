/* Positions following a vertex permutation, on the device (host statement: reorder.c),
 * queued on the context's stream. */
#include "core/launch.cuh"
#include "mesh_internal.h"

/* One thread per float: consecutive threads read and write consecutive coordinates of a row,
 * so the writes are coalesced and only the gathered rows are scattered reads. */
__global__ static void gather_rows3(const float *src, const mmx_index *perm, int64_t n3, float *dst)
{
    int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n3) return;
    int64_t v = t / 3, d = t % 3;
    dst[t] = src[(int64_t)perm[v] * 3 + d];
}

extern "C" mmx_status mmx__gather_rows3_cuda(mmx_ctx *ctx, const float *src, const mmx_index *perm,
                                             mmx_index n, float *dst)
{
    if (n == 0) return MMX_OK;
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const int64_t n3 = (int64_t)n * 3;
    gather_rows3<<<mmx__grid(n3), MMX__BLOCK, 0, st>>>(src, perm, n3, dst);
    return mmx__cuda(ctx, cudaGetLastError(), "gather_rows3 launch");
}
