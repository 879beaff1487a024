/* The device half of the partitioned mesh's halo exchange: the packing of the sent vertices'
 * rows into one buffer, the unpacking of the received rows into the ghosts, and the pinned
 * host buffers of the staged transport (dist_mesh.c drives them; nocuda.c stands in without
 * CUDA). Rows are copied, not combined: no arithmetic, so the device exchange moves the same
 * bits as the host one. */
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
