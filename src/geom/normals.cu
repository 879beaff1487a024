/* Vertex normals on the device (host statement: normals.c): after the per-face kernel has
 * written each face's vector into the plan's table, one thread per vertex runs
 * mmx__vertex_normal (geom_internal.h) over its faces in Mᵀ's column, reading the table and
 * writing its own normal: no atomics. Queued on the context's stream. */
#include "core/launch.cuh"
#include "geom_internal.h"

__global__ static void vertex_normals(const mmx_csc M, const mmx_csc Mt, const float *pos,
                                      const float *F, mmx_normal_weight weight, float *normals)
{
    const int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j < Mt.ncols) mmx__vertex_normal(&M, &Mt, pos, F, weight, (mmx_index)j, normals);
}

extern "C" mmx_status mmx__vertex_normals_cuda(mmx_ctx *ctx, const mmx_csc *M, const mmx_csc *Mt,
                                               const float *pos, const float *F,
                                               mmx_normal_weight weight, float *normals)
{
    if (Mt->ncols == 0) return MMX_OK;
    vertex_normals<<<mmx__grid(Mt->ncols), MMX__BLOCK, 0, (cudaStream_t)ctx->stream>>>(
        *M, *Mt, pos, F, weight, normals);
    return mmx__cuda(ctx, cudaGetLastError(), "geometry vertex_normals launch");
}
