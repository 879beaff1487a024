/* The per-vertex steps of smoothing on the device (host statements: smooth.c): one thread per
 * vertex (explicit steps, their factors, MCF's vectors and mask) or per column of L (MCF's
 * assembly), each writing its own values with the formulas of geom_internal.h, so the host
 * and the device evaluate the same code; no atomics. Queued on the context's stream. */
#include "core/launch.cuh"
#include "geom_internal.h"

__global__ static void smooth_scale(mmx_index n, const float *d, int neg,
                                    const unsigned char *fixed, float *scale)
{
    const int64_t v = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n) scale[v] = mmx__smooth_scale_of(d[v], neg, mmx__smooth_fixed(fixed, v));
}

__global__ static void smooth_lap_step(const mmx_csc L, const float *w, const float *x,
                                       const float *scale, float lambda, float *out)
{
    const int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j < L.ncols) mmx__smooth_lap_vertex(&L, w, x, scale, lambda, j, out);
}

__global__ static void smooth_mask(mmx_index n, const mmx_index *valence,
                                   const unsigned char *boundary, unsigned char *mask)
{
    const int64_t v = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n) mask[v] = (boundary && boundary[v]) || valence[v] == 0;
}

__global__ static void mcf_vertex(mmx__mcf_op op, mmx_index n, int k, const float *x,
                                  const float *A, const float *lx, float h,
                                  const unsigned char *fixed, float *y)
{
    const int64_t v = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n) mmx__mcf_vertex(op, k, x, A, lx, h, fixed, v, y);
}

__global__ static void mcf_apply(const mmx_csc L, const float *wL, const float *A, float h,
                                 const unsigned char *fixed, const float *x, int k, float *y)
{
    const int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j < L.ncols) mmx__mcf_apply_vertex(&L, wL, A, h, fixed, x, k, j, y);
}

__global__ static void mcf_assemble(const mmx_csc L, const float *wL, const float *A, float h,
                                    const unsigned char *fixed, float *wS)
{
    const int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j < L.ncols) mmx__mcf_column(&L, wL, A, h, fixed, (mmx_index)j, wS);
}

extern "C" mmx_status mmx__smooth_scale_cuda(mmx_ctx *ctx, mmx_index n, const float *d, int neg,
                                             const unsigned char *fixed, float *scale)
{
    if (n == 0) return MMX_OK;
    smooth_scale<<<mmx__grid(n), MMX__BLOCK, 0, (cudaStream_t)ctx->stream>>>(n, d, neg, fixed,
                                                                            scale);
    return mmx__cuda(ctx, cudaGetLastError(), "smoothing scale launch");
}

extern "C" mmx_status mmx__smooth_lap_step_cuda(mmx_ctx *ctx, const mmx_csc *L, const float *w,
                                                const float *x, const float *scale, float lambda,
                                                float *out)
{
    if (L->ncols == 0) return MMX_OK;
    smooth_lap_step<<<mmx__grid(L->ncols), MMX__BLOCK, 0, (cudaStream_t)ctx->stream>>>(
        *L, w, x, scale, lambda, out);
    return mmx__cuda(ctx, cudaGetLastError(), "smoothing Laplacian step launch");
}

extern "C" mmx_status mmx__smooth_mask_cuda(mmx_ctx *ctx, mmx_index n, const mmx_index *valence,
                                            const unsigned char *boundary, unsigned char *mask)
{
    if (n == 0) return MMX_OK;
    smooth_mask<<<mmx__grid(n), MMX__BLOCK, 0, (cudaStream_t)ctx->stream>>>(n, valence, boundary,
                                                                           mask);
    return mmx__cuda(ctx, cudaGetLastError(), "smoothing mask launch");
}

extern "C" mmx_status mmx__mcf_per_vertex_cuda(mmx_ctx *ctx, mmx__mcf_op op, mmx_index n, int k,
                                               const float *x, const float *A, const float *lx,
                                               float h, const unsigned char *fixed, float *y)
{
    if (n == 0) return MMX_OK;
    mcf_vertex<<<mmx__grid(n), MMX__BLOCK, 0, (cudaStream_t)ctx->stream>>>(op, n, k, x, A, lx, h,
                                                                          fixed, y);
    return mmx__cuda(ctx, cudaGetLastError(), "mean curvature flow per-vertex launch");
}

extern "C" mmx_status mmx__mcf_apply_cuda(mmx_ctx *ctx, const mmx_csc *L, const float *wL,
                                          const float *A, float h, const unsigned char *fixed,
                                          const float *x, int k, float *y)
{
    if (L->ncols == 0) return MMX_OK;
    mcf_apply<<<mmx__grid(L->ncols), MMX__BLOCK, 0, (cudaStream_t)ctx->stream>>>(*L, wL, A, h, fixed,
                                                                                x, k, y);
    return mmx__cuda(ctx, cudaGetLastError(), "mean curvature flow apply launch");
}

extern "C" mmx_status mmx__mcf_assemble_cuda(mmx_ctx *ctx, const mmx_csc *L, const float *wL,
                                             const float *A, float h, const unsigned char *fixed,
                                             float *wS)
{
    if (L->ncols == 0) return MMX_OK;
    mcf_assemble<<<mmx__grid(L->ncols), MMX__BLOCK, 0, (cudaStream_t)ctx->stream>>>(*L, wL, A, h,
                                                                                   fixed, wS);
    return mmx__cuda(ctx, cudaGetLastError(), "mean curvature flow assembly launch");
}
