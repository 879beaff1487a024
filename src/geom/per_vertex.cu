/* The per-vertex steps on the device (host statements: per_vertex.c): one thread per entry
 * of Mᵀ (the corner tables) or per row (fill, normalise, scale), each writing its own value.
 * Queued on the context's stream. */
#include "core/launch.cuh"
#include "geom_internal.h"

__global__ static void corners_to_mt(const mmx_csc M, const mmx_index *mt_face,
                                     const mmx_index *mt_val, int64_t nnz, const float *corner,
                                     float *out)
{
    const int64_t q = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= nnz) return;
    int64_t a, b;
    mmx__csc_col(&M, mt_face[q], &a, &b);
    out[q] = corner[a + mt_val[q] - 1];
}

__global__ static void fill(float *x, int64_t n, float value)
{
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = value;
}

__global__ static void normalize(float *x, mmx_index n)
{
    const int64_t v = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n) return;
    float *r = x + 3 * v;
    const float len = sqrtf(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
    for (int d = 0; d < 3; d++) r[d] = len > 0.0f ? r[d] / len : 0.0f;
}

__global__ static void scale_rows(const float *x, const float *m, float scale, mmx_index n, float *y)
{
    const int64_t v = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n) return;
    const float mv = m[v];
    for (int d = 0; d < 3; d++) y[3 * v + d] = mv != 0.0f ? scale * x[3 * v + d] / mv : 0.0f;
}

extern "C" mmx_status mmx__geom_corners_to_mt_cuda(mmx_ctx *ctx, const mmx_csc *M,
                                                   const mmx_csc *Mt, const float *corner,
                                                   float *out)
{
    if (Mt->nnz == 0) return MMX_OK;
    cudaStream_t st = (cudaStream_t)ctx->stream;
    corners_to_mt<<<mmx__grid(Mt->nnz), MMX__BLOCK, 0, st>>>(*M, Mt->rowidx, Mt->val, Mt->nnz,
                                                            corner, out);
    return mmx__cuda(ctx, cudaGetLastError(), "geometry corners_to_mt launch");
}

extern "C" mmx_status mmx__geom_fill_cuda(mmx_ctx *ctx, float *x, int64_t n, float value)
{
    if (n == 0) return MMX_OK;
    fill<<<mmx__grid(n), MMX__BLOCK, 0, (cudaStream_t)ctx->stream>>>(x, n, value);
    return mmx__cuda(ctx, cudaGetLastError(), "geometry fill launch");
}

extern "C" mmx_status mmx__geom_normalize_cuda(mmx_ctx *ctx, float *x, mmx_index n)
{
    if (n == 0) return MMX_OK;
    normalize<<<mmx__grid(n), MMX__BLOCK, 0, (cudaStream_t)ctx->stream>>>(x, n);
    return mmx__cuda(ctx, cudaGetLastError(), "geometry normalize launch");
}

extern "C" mmx_status mmx__geom_scale_rows_cuda(mmx_ctx *ctx, const float *x, const float *m,
                                                float scale, mmx_index n, float *y)
{
    if (n == 0) return MMX_OK;
    scale_rows<<<mmx__grid(n), MMX__BLOCK, 0, (cudaStream_t)ctx->stream>>>(x, m, scale, n, y);
    return mmx__cuda(ctx, cudaGetLastError(), "geometry scale_rows launch");
}
