/* Vertex areas and the mass matrix's diagonal pattern on the device (host statement:
 * areas.c): one thread per vertex runs mmx__vertex_area (geom_internal.h) over its faces,
 * writing its own area; entry v of the pattern is row v. Queued on the context's stream. */
#include "core/launch.cuh"
#include "geom_internal.h"

__global__ static void iota(mmx_index *out, mmx_index n)
{
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = (mmx_index)i;
}

__global__ static void vertex_areas(const mmx_csc M, const mmx_csc Mt, const float *pos,
                                    const float *share, mmx_mass_kind kind, float *areas)
{
    const int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j < Mt.ncols) areas[j] = mmx__vertex_area(&M, &Mt, pos, share, kind, (mmx_index)j);
}

extern "C" mmx_status mmx__geom_iota_cuda(mmx_ctx *ctx, mmx_index *out, mmx_index n)
{
    if (n == 0) return MMX_OK;
    iota<<<mmx__grid(n), MMX__BLOCK, 0, (cudaStream_t)ctx->stream>>>(out, n);
    return mmx__cuda(ctx, cudaGetLastError(), "geometry iota launch");
}

extern "C" mmx_status mmx__vertex_areas_cuda(mmx_ctx *ctx, const mmx_csc *M, const mmx_csc *Mt,
                                             const float *pos, const float *share,
                                             mmx_mass_kind kind, float *areas)
{
    if (Mt->ncols == 0) return MMX_OK;
    vertex_areas<<<mmx__grid(Mt->ncols), MMX__BLOCK, 0, (cudaStream_t)ctx->stream>>>(
        *M, *Mt, pos, share, kind, areas);
    return mmx__cuda(ctx, cudaGetLastError(), "geometry vertex_areas launch");
}
