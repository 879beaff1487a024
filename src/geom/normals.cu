/* Vertex normals on the device (host statement: normals.c): one thread per vertex runs
 * mmx__vertex_normal (geom_internal.h) over its faces in Mᵀ's column, computing each face's
 * vector itself and writing its own normal: no per-face scratch, no atomics; or, with a
 * plan's corner table, mmx__vertex_normal_tab over its row of the table (the same faces,
 * order and arithmetic). The table itself: one thread per vertex writes its row. Queued on
 * the context's stream. */
#include "core/launch.cuh"
#include "geom_internal.h"

__global__ static void vertex_normals(const mmx_csc M, const mmx_csc Mt, const float *pos,
                                      mmx_normal_weight weight, float *normals)
{
    const int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j < Mt.ncols) mmx__vertex_normal(&M, &Mt, pos, weight, (mmx_index)j, normals);
}

extern "C" mmx_status mmx__vertex_normals_cuda(mmx_ctx *ctx, const mmx_csc *M, const mmx_csc *Mt,
                                               const float *pos, mmx_normal_weight weight,
                                               float *normals)
{
    if (Mt->ncols == 0) return MMX_OK;
    vertex_normals<<<mmx__grid(Mt->ncols), MMX__BLOCK, 0, (cudaStream_t)ctx->stream>>>(
        *M, *Mt, pos, weight, normals);
    return mmx__cuda(ctx, cudaGetLastError(), "geometry vertex_normals launch");
}

__global__ static void corner_tab(const mmx_csc M, const mmx_csc Mt, uint64_t *tab)
{
    const int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j < Mt.ncols) mmx__corner_tab_vertex(&M, &Mt, (mmx_index)j, tab);
}

/* The weighting is a template parameter, so each instance keeps only its own arithmetic:
 * the area-weighted one (the common case) fits 32 registers, a full SM of threads for a
 * gather that waits on memory. */
template <int W, int PADDED>
__global__ static void __launch_bounds__(MMX__BLOCK, W == MMX_NORMAL_AREA ? 8 : 1)
vertex_normals_tab(const mmx_csc Mt, const uint64_t *__restrict__ tab, const float *__restrict__ pos,
                   float *__restrict__ normals)
{
    const int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j < Mt.ncols)
        mmx__vertex_normal_tab(&Mt, tab, pos, PADDED, (mmx_normal_weight)W, (mmx_index)j, normals);
}

__global__ static void pos_pack4(mmx_index n, const float *pos, float4 *pos4)
{
    const int64_t v = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n) pos4[v] = make_float4(pos[3 * v], pos[3 * v + 1], pos[3 * v + 2], 0.0f);
}

extern "C" mmx_status mmx__corner_tab_cuda(mmx_ctx *ctx, const mmx_csc *M, const mmx_csc *Mt,
                                           uint64_t *tab)
{
    if (Mt->ncols == 0) return MMX_OK;
    corner_tab<<<mmx__grid(Mt->ncols), MMX__BLOCK, 0, (cudaStream_t)ctx->stream>>>(*M, *Mt, tab);
    return mmx__cuda(ctx, cudaGetLastError(), "geometry corner_tab launch");
}

extern "C" mmx_status mmx__vertex_normals_tab_cuda(mmx_ctx *ctx, const mmx_csc *Mt,
                                                   const uint64_t *tab, const float *pos,
                                                   mmx_normal_weight weight, float *normals)
{
    if (Mt->ncols == 0) return MMX_OK;
    const unsigned grid = mmx__grid(Mt->ncols);
    cudaStream_t st = (cudaStream_t)ctx->stream;
    if (weight == MMX_NORMAL_AREA)
        vertex_normals_tab<MMX_NORMAL_AREA, 0><<<grid, MMX__BLOCK, 0, st>>>(*Mt, tab, pos, normals);
    else if (weight == MMX_NORMAL_ANGLE)
        vertex_normals_tab<MMX_NORMAL_ANGLE, 0><<<grid, MMX__BLOCK, 0, st>>>(*Mt, tab, pos, normals);
    else
        vertex_normals_tab<MMX_NORMAL_UNIFORM, 0><<<grid, MMX__BLOCK, 0, st>>>(*Mt, tab, pos, normals);
    return mmx__cuda(ctx, cudaGetLastError(), "geometry vertex_normals_tab launch");
}

extern "C" mmx_status mmx__vertex_normals_tab4_cuda(mmx_ctx *ctx, const mmx_csc *Mt,
                                                    const uint64_t *tab, const float *pos,
                                                    float *pos4, float *normals)
{
    if (Mt->ncols == 0) return MMX_OK;
    const unsigned grid = mmx__grid(Mt->ncols);
    cudaStream_t st = (cudaStream_t)ctx->stream;
    pos_pack4<<<grid, MMX__BLOCK, 0, st>>>(Mt->ncols, pos, (float4 *)pos4);
    mmx_status s = mmx__cuda(ctx, cudaGetLastError(), "geometry pos_pack4 launch");
    if (s) return s;
    vertex_normals_tab<MMX_NORMAL_AREA, 1><<<grid, MMX__BLOCK, 0, st>>>(*Mt, tab, pos4, normals);
    return mmx__cuda(ctx, cudaGetLastError(), "geometry vertex_normals_tab (padded) launch");
}
