/* The device half of the texture coordinates (uv.c): coordinates as a texture mesh's positions
 * and a refined texture mesh's positions as coordinates, the per-corner levels (one thread per
 * parent face, the rule of uv_face.h that the host loop runs), and the numbering by value (CUB's stable radix sort of the coordinates'
 * bits, a scan of the first corner of each run, one read-back of the count). */
#include "core/cub.cuh"
#include "core/device.h"
#include "core/launch.cuh"
#include "subdiv_internal.h"
#include "uv_face.h"

namespace {

__global__ void from_pos(const float *pos, mmx_index n, float *values)
{
    const long long k = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (k >= n) return;
    values[2 * k] = pos[3 * k];
    values[2 * k + 1] = pos[3 * k + 1];
}

__global__ void to_pos(const float *values, mmx_index n, float *pos)
{
    const long long k = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (k >= n) return;
    pos[3 * k] = values[2 * k];
    pos[3 * k + 1] = values[2 * k + 1];
    pos[3 * k + 2] = 0.0f;
}

__global__ void level(int quads, mmx_index nf, mmx_index order, const mmx_index *colptr,
                      const float *par, float *child)
{
    const long long f = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (f >= nf) return;
    const int64_t a = order ? (int64_t)order * f : colptr[f];
    const mmx_index n = order ? order : (mmx_index)(colptr[f + 1] - a);
    mmx__uv_face(quads, f, a, n, par, child);
}

__global__ void keys(const float *cur, int64_t n, unsigned long long *key, mmx_index *val)
{
    const long long q = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (q >= n) return;
    key[q] = (unsigned long long)mmx__uv_key(cur + 2 * q);
    val[q] = (mmx_index)q;
}

/* first[j] = 1 where sorted key j starts a run of equal keys. */
__global__ void firsts(const unsigned long long *key, int64_t n, mmx_index *first)
{
    const long long j = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (j >= n) return;
    first[j] = j == 0 || key[j] != key[j - 1];
}

/* Sorted corner j (corner sorted[j]) gets coordinate id[j] + first[j] - 1 (id: the exclusive
 * scan of first), and the first of a run writes the coordinate: the host loop's numbering. */
__global__ void scatter(const float *cur, const mmx_index *sorted, const mmx_index *first,
                        const mmx_index *id, int64_t n, mmx_index *index, float *values,
                        mmx_index *count)
{
    const long long j = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (j >= n) return;
    const mmx_index c = id[j] + first[j] - 1, q = sorted[j];
    index[q] = c;
    if (first[j]) values[2 * (int64_t)c] = cur[2 * (int64_t)q], values[2 * (int64_t)c + 1] = cur[2 * (int64_t)q + 1];
    if (j == n - 1) *count = c + 1;
}

} // namespace

extern "C" mmx_status mmx__uv_from_pos_cuda(mmx_ctx *ctx, const float *pos, mmx_index n, float *values)
{
    if (n == 0) return MMX_OK;
    cudaStream_t st = (cudaStream_t)mmx_ctx_cuda_stream(ctx);
    from_pos<<<mmx__grid(n), MMX__BLOCK, 0, st>>>(pos, n, values);
    return MMX__CUDA(ctx, cudaGetLastError());
}

extern "C" mmx_status mmx__uv_to_pos_cuda(mmx_ctx *ctx, const float *values, mmx_index n, float *pos)
{
    if (n == 0) return MMX_OK;
    cudaStream_t st = (cudaStream_t)mmx_ctx_cuda_stream(ctx);
    to_pos<<<mmx__grid(n), MMX__BLOCK, 0, st>>>(values, n, pos);
    return MMX__CUDA(ctx, cudaGetLastError());
}

extern "C" mmx_status mmx__uv_level_cuda(mmx_ctx *ctx, int quads, mmx_index nf, mmx_index order,
                                         const mmx_index *colptr, const float *par, float *child)
{
    if (nf == 0) return MMX_OK;
    cudaStream_t st = (cudaStream_t)mmx_ctx_cuda_stream(ctx);
    level<<<mmx__grid(nf), MMX__BLOCK, 0, st>>>(quads, nf, order, colptr, par, child);
    return MMX__CUDA(ctx, cudaGetLastError());
}

extern "C" mmx_status mmx__uv_number_cuda(mmx_ctx *ctx, const float *cur, int64_t nnz, mmx_index *index,
                                          float *values, mmx_index *nvalues)
{
    *nvalues = 0;
    if (nnz == 0) return MMX_OK;
    cudaStream_t st = (cudaStream_t)mmx_ctx_cuda_stream(ctx);
    unsigned long long *key[2] = {nullptr, nullptr};
    mmx_index *val[2] = {nullptr, nullptr}, *first = nullptr, *id = nullptr, *count = nullptr;
    const size_t n = (size_t)nnz;
    mmx_status s = mmx__dev_alloc(ctx, n * sizeof **key, (void **)&key[0]);
    if (!s) s = mmx__dev_alloc(ctx, n * sizeof **key, (void **)&key[1]);
    if (!s) s = mmx__dev_alloc(ctx, n * sizeof **val, (void **)&val[0]);
    if (!s) s = mmx__dev_alloc(ctx, n * sizeof **val, (void **)&val[1]);
    if (!s) s = mmx__dev_alloc(ctx, n * sizeof *first, (void **)&first);
    if (!s) s = mmx__dev_alloc(ctx, n * sizeof *id, (void **)&id);
    if (!s) s = mmx__dev_alloc(ctx, sizeof *count, (void **)&count);
    if (!s) {
        keys<<<mmx__grid(nnz), MMX__BLOCK, 0, st>>>(cur, nnz, key[0], val[0]);
        s = MMX__CUDA(ctx, cudaGetLastError());
    }
    int c = 0;
    /* Stable: equal coordinates keep corner order, as the host's radix sort does. */
    if (!s) s = mmx__sort_pairs(ctx, key, val, nnz, 64, &c);
    if (!s) {
        firsts<<<mmx__grid(nnz), MMX__BLOCK, 0, st>>>(key[c], nnz, first);
        s = MMX__CUDA(ctx, cudaGetLastError());
    }
    if (!s) s = mmx__scan_exclusive_cuda(ctx, first, nnz, id);
    if (!s) {
        scatter<<<mmx__grid(nnz), MMX__BLOCK, 0, st>>>(cur, val[c], first, id, nnz, index, values, count);
        s = MMX__CUDA(ctx, cudaGetLastError());
    }
    mmx_index host = 0;
    if (!s) s = MMX__CUDA(ctx, cudaMemcpyAsync(&host, count, sizeof host, cudaMemcpyDeviceToHost, st));
    if (!s) s = mmx__stream_sync(ctx); /* kept: the number of coordinates sizes the result */
    if (!s) *nvalues = host;
    mmx__dev_free(ctx, key[0]), mmx__dev_free(ctx, key[1]);
    mmx__dev_free(ctx, val[0]), mmx__dev_free(ctx, val[1]);
    mmx__dev_free(ctx, first), mmx__dev_free(ctx, id), mmx__dev_free(ctx, count);
    return s;
}
