/* The mass matrix's diagonal pattern on the device (host statement: areas.c): entry v is
 * row v. Queued on the context's stream. */
#include "core/launch.cuh"
#include "geom_internal.h"

__global__ static void iota(mmx_index *out, mmx_index n)
{
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = (mmx_index)i;
}

extern "C" mmx_status mmx__geom_iota_cuda(mmx_ctx *ctx, mmx_index *out, mmx_index n)
{
    if (n == 0) return MMX_OK;
    iota<<<mmx__grid(n), MMX__BLOCK, 0, (cudaStream_t)ctx->stream>>>(out, n);
    return mmx__cuda(ctx, cudaGetLastError(), "geometry iota launch");
}
