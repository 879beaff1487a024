/* The device half of the partitioned mesh's halo exchange: the packing of the sent vertices'
 * rows into one buffer, the unpacking of the received rows into the ghosts, and the pinned
 * host buffers of the staged transport (dist_mesh.c drives them; nocuda.c stands in without
 * CUDA). Rows are copied, not combined: no arithmetic, so the device exchange moves the same
 * bits as the host one. */
#include <stdlib.h>
#include <cuda_runtime.h>
#include "core/launch.cuh"
#include "dist_internal.h"

/* out[i k + j] = x[idx[i] k + j], one thread per value. */
__global__ void mmx__dist_pack_kernel(const float *x, int k, const mmx_index *idx, long long n,
                                      float *out)
{
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    for (long long i = t; i < n * k; i += (long long)gridDim.x * blockDim.x)
        out[i] = x[(size_t)idx[i / k] * (size_t)k + (size_t)(i % k)];
}

/* x[idx[i] k + j] = in[i k + j]: each ghost is received once, so the writes do not collide. */
__global__ void mmx__dist_unpack_kernel(const float *in, int k, const mmx_index *idx, long long n,
                                        float *x)
{
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    for (long long i = t; i < n * k; i += (long long)gridDim.x * blockDim.x)
        x[(size_t)idx[i / k] * (size_t)k + (size_t)(i % k)] = in[i];
}

mmx_status mmx__dist_dev_pack(mmx_ctx *ctx, const float *x, int k, const mmx_index *idx,
                              int64_t n, float *out)
{
    mmx_status s = MMX_OK;
    cudaStream_t st = (cudaStream_t)mmx_ctx_cuda_stream(ctx);
    if (n > 0) MMX__LAUNCH(mmx__dist_pack_kernel, n * k, x, k, idx, (long long)n, out);
    return s;
}

mmx_status mmx__dist_dev_unpack(mmx_ctx *ctx, const float *in, int k, const mmx_index *idx,
                                int64_t n, float *x)
{
    mmx_status s = MMX_OK;
    cudaStream_t st = (cudaStream_t)mmx_ctx_cuda_stream(ctx);
    if (n > 0) MMX__LAUNCH(mmx__dist_unpack_kernel, n * k, in, k, idx, (long long)n, x);
    return s;
}

mmx_status mmx__dist_pinned(mmx_ctx *ctx, size_t bytes, void **p)
{
    *p = NULL;
    if (!bytes) return MMX_OK;
    return MMX__CUDA(ctx, cudaMallocHost(p, bytes));
}

void mmx__dist_pinned_free(void *p)
{
    if (p) cudaFreeHost(p);
}

mmx_status mmx__dist_dev_mark(mmx_ctx *ctx, mmx__dist_dev *v)
{
    if (v->nmarks == v->cap_marks) {
        const int cap = v->cap_marks ? 2 * v->cap_marks : 64;
        cudaEvent_t *e = (cudaEvent_t *)realloc(v->marks, (size_t)cap * sizeof *e);
        if (!e) return mmx__fail(ctx, MMX_ERR_NOMEM, "dist: out of host memory for the exchange's events");
        v->marks = e;
        for (int i = v->cap_marks; i < cap; i++) {
            const mmx_status s = MMX__CUDA(ctx, cudaEventCreate(&e[i]));
            if (s) return s;
            v->cap_marks = i + 1;
        }
    }
    cudaEvent_t *e = (cudaEvent_t *)v->marks;
    const mmx_status s = MMX__CUDA(ctx, cudaEventRecord(e[v->nmarks], (cudaStream_t)mmx_ctx_cuda_stream(ctx)));
    if (!s) v->nmarks++;
    return s;
}

mmx_status mmx__dist_dev_marks_ms(mmx_ctx *ctx, mmx__dist_dev *v, double *ms)
{
    *ms = 0.0;
    const int n = v->nmarks;
    v->nmarks = 0;
    if (n < 2) return MMX_OK;
    cudaEvent_t *e = (cudaEvent_t *)v->marks;
    mmx_status s = MMX__CUDA(ctx, cudaEventSynchronize(e[n - 1]));
    for (int i = 0; !s && i + 1 < n; i += 2) {
        float f = 0.0f;
        s = MMX__CUDA(ctx, cudaEventElapsedTime(&f, e[i], e[i + 1]));
        *ms += f;
    }
    return s;
}

void mmx__dist_dev_marks_free(mmx__dist_dev *v)
{
    cudaEvent_t *e = (cudaEvent_t *)v->marks;
    for (int i = 0; i < v->cap_marks; i++) cudaEventDestroy(e[i]);
    free(v->marks);
    v->marks = NULL;
    v->nmarks = v->cap_marks = 0;
}
