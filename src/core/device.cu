/* The CUDA halves of device.h: device memory from the context's stream-ordered pool, copies,
 * and the scans and reductions with CUB (host statements: device.c). Nothing here waits for
 * the stream except a copy into host memory, which the host is about to read. */
#include <cub/device/device_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda/functional>
#include <cuda/std/functional>
#include <cstdlib>
#include <cstring>
#include "cub.cuh"
#include "launch.cuh"

extern "C" mmx_status mmx__dev_alloc(mmx_ctx *ctx, size_t bytes, void **out)
{
    *out = NULL;
    if (bytes == 0) return MMX_OK;
    cudaError_t e = cudaMallocFromPoolAsync(out, bytes, (cudaMemPool_t)ctx->pool,
                                            (cudaStream_t)ctx->stream);
    if (e == cudaSuccess) return MMX_OK;
    *out = NULL;
    (void)cudaGetLastError();
    return mmx__fail(ctx, e == cudaErrorMemoryAllocation ? MMX_ERR_NOMEM : MMX_ERR_CUDA,
                     "device allocation of %zu bytes failed: %s", bytes, cudaGetErrorString(e));
}

extern "C" void mmx__dev_free(mmx_ctx *ctx, void *p)
{
    if (!p) return;
    /* A free cannot report: a failure leaves the block to the pool's destruction. */
    if (ctx) (void)cudaFreeAsync(p, (cudaStream_t)ctx->stream);
    else (void)cudaFree(p); /* no stream to order it on: the runtime waits for the device */
}

extern "C" mmx_status mmx__dev_copy(mmx_ctx *ctx, void *dst, mmx_space dst_space, const void *src,
                                    mmx_space src_space, size_t bytes)
{
    const cudaMemcpyKind kind = dst_space == MMX_SPACE_HOST   ? cudaMemcpyDeviceToHost
                                : src_space == MMX_SPACE_HOST ? cudaMemcpyHostToDevice
                                                              : cudaMemcpyDeviceToDevice;
    cudaStream_t st = (cudaStream_t)ctx->stream;
    mmx_status s = MMX__CUDA(ctx, cudaMemcpyAsync(dst, src, bytes, kind, st));
    /* Into host memory the caller reads the data next: into pageable memory the copy above has
     * already returned complete, into pinned memory only this wait makes it so. It is also
     * where an earlier kernel's fault shows. */
    if (!s && kind == cudaMemcpyDeviceToHost) s = mmx__stream_sync(ctx);
    return s;
}

extern "C" mmx_status mmx__dev_zero(mmx_ctx *ctx, void *p, size_t bytes)
{
    return MMX__CUDA(ctx, cudaMemsetAsync(p, 0, bytes, (cudaStream_t)ctx->stream));
}

extern "C" mmx_status mmx__stream_sync(mmx_ctx *ctx)
{
    ctx->syncs++;
    return MMX__CUDA(ctx, cudaStreamSynchronize((cudaStream_t)ctx->stream));
}

struct mmx__graph {
    cudaGraphExec_t exec;
    size_t keylen;
    unsigned char key[MMX__GRAPH_KEY_MAX];
};

extern "C" mmx_status mmx__graph_run(mmx_ctx *ctx, mmx__graph **g, const void *key, size_t keylen,
                                     mmx__graph_work work, void *arg)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    if (keylen > MMX__GRAPH_KEY_MAX)
        return mmx__fail(ctx, MMX_ERR_INTERNAL, "graph key of %zu bytes, above %d", keylen,
                         MMX__GRAPH_KEY_MAX);
    mmx__graph *G = *g;
    if (!G || G->keylen != keylen || memcmp(G->key, key, keylen) != 0) {
        cudaGraph_t graph = NULL;
        mmx_status s = MMX__CUDA(ctx, cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal));
        if (s) return s;
        mmx_status w = work(arg);
        /* The capture ends whatever work said, so that the stream is usable again. */
        const cudaError_t e = cudaStreamEndCapture(st, &graph);
        s = w ? w : MMX__CUDA(ctx, e);
        if (!s && G) { /* the same chain with new arguments: update in place where it can */
            cudaGraphExecUpdateResultInfo info;
            if (cudaGraphExecUpdate(G->exec, graph, &info) != cudaSuccess) {
                (void)cudaGetLastError();
                (void)cudaGraphExecDestroy(G->exec);
                G->exec = NULL;
            }
        }
        if (!s && !G) {
            G = (mmx__graph *)calloc(1, sizeof *G);
            if (!G) s = mmx__fail(ctx, MMX_ERR_NOMEM, "graph: out of host memory");
            else *g = G;
        }
        if (!s && !G->exec) s = MMX__CUDA(ctx, cudaGraphInstantiate(&G->exec, graph, 0));
        if (graph) (void)cudaGraphDestroy(graph);
        if (s) return s;
        G->keylen = keylen;
        memcpy(G->key, key, keylen);
    }
    return MMX__CUDA(ctx, cudaGraphLaunch(G->exec, st));
}

extern "C" void mmx__graph_free(mmx__graph *g)
{
    if (!g) return;
    if (g->exec) (void)cudaGraphExecDestroy(g->exec);
    free(g);
}

extern "C" mmx_status mmx__dev_mem_info(mmx_ctx *ctx, size_t *free_bytes, size_t *total_bytes)
{
    *free_bytes = *total_bytes = 0;
    return MMX__CUDA(ctx, cudaMemGetInfo(free_bytes, total_bytes));
}

/* ---- scans and reductions: CUB through mmx__cub_run (cub.cuh) -------------------------------- */

namespace {

/* Scans of up to kSmallScan 32-bit items run in one block: one launch and no scratch, where
 * CUB's device-wide scan takes two launches and a scratch allocation. A small cage's level is
 * a chain of such scans, whose cost is the calls, not the bytes. 16 items per thread fit the
 * registers at 1024 threads (64-bit items would spill: they stay with CUB). */
constexpr int kScanThreads = 1024, kScanItems = 16;
constexpr long long kSmallScan = (long long)kScanThreads * kScanItems;

/* out[i] = the sum of in[0 .. i) (exclusive) or, with `offsets`, out[0] = 0 and out[i + 1] =
 * the sum of in[0 ..= i); each thread holds kScanItems consecutive items. Sums in uint32_t:
 * modulo 2^32, as device.c's loops. In place is safe for the exclusive scan:
 * every item is read before the block's scan, and each thread writes only its own items. */
template <bool offsets>
__global__ void __launch_bounds__(kScanThreads) small_scan(const mmx_index *in, long long n,
                                                           mmx_index *out)
{
    using U = uint32_t;
    using Scan = cub::BlockScan<U, kScanThreads>;
    constexpr int kItems = kScanItems;
    __shared__ typename Scan::TempStorage tmp;
    const long long a = (long long)threadIdx.x * kItems;
    U x[kItems], sum = 0;
#pragma unroll
    for (int q = 0; q < kItems; q++) {
        x[q] = a + q < n ? (U)in[a + q] : 0;
        sum += x[q];
    }
    U before;
    Scan(tmp).ExclusiveSum(sum, before);
    if (offsets && threadIdx.x == 0) out[0] = 0;
#pragma unroll
    for (int q = 0; q < kItems; q++) {
        if (a + q < n) {
            if (offsets) out[a + q + 1] = (mmx_index)(before + x[q]);
            else out[a + q] = (mmx_index)before;
        }
        before += x[q];
    }
}

/* Integer sums wrap modulo 2^32 on the device as in device.c's loops (the hardware's two's
 * complement addition; CUB adds in the input type). */
template <typename T>
mmx_status exclusive_sum(mmx_ctx *ctx, const T *in, int64_t n, T *out)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    if constexpr (sizeof(T) == sizeof(mmx_index))
        if (n <= kSmallScan) {
            small_scan<false><<<1, kScanThreads, 0, st>>>(in, n, out);
            return mmx__cuda(ctx, cudaGetLastError(), "small_scan launch");
        }
    return mmx__cub_run(ctx, "cub::DeviceScan::ExclusiveSum", [&](void *tmp, size_t &bytes) {
        return cub::DeviceScan::ExclusiveSum(tmp, bytes, in, out, (long long)n, st);
    });
}

} // namespace

extern "C" mmx_status mmx__scan_exclusive_cuda(mmx_ctx *ctx, const mmx_index *in, int64_t n,
                                               mmx_index *out)
{
    return exclusive_sum(ctx, in, n, out);
}

extern "C" mmx_status mmx__scan_exclusive_u64_cuda(mmx_ctx *ctx, const unsigned long long *in,
                                                   int64_t n, unsigned long long *out)
{
    return exclusive_sum(ctx, in, n, out);
}

extern "C" mmx_status mmx__scan_offsets_cuda(mmx_ctx *ctx, const mmx_index *in, int64_t n,
                                             mmx_index *out)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    if (n <= kSmallScan) { /* out[0] = 0 too */
        small_scan<true><<<1, kScanThreads, 0, st>>>(in, n, out);
        return mmx__cuda(ctx, cudaGetLastError(), "small_scan launch");
    }
    /* out[0] = 0, then out[1 ..= n] the inclusive sums. */
    mmx_status s = MMX__CUDA(ctx, cudaMemsetAsync(out, 0, sizeof *out, st));
    if (s) return s;
    return mmx__cub_run(ctx, "cub::DeviceScan::InclusiveSum", [&](void *tmp, size_t &bytes) {
        return cub::DeviceScan::InclusiveSum(tmp, bytes, in, out + 1, (long long)n, st);
    });
}

extern "C" mmx_status mmx__reduce_sum_cuda(mmx_ctx *ctx, const mmx_index *in, int64_t n,
                                           int64_t *out)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    if (n <= 0) return MMX__CUDA(ctx, cudaMemsetAsync(out, 0, sizeof *out, st));
    /* The 64-bit init makes CUB accumulate in 64 bits. */
    return mmx__cub_run(ctx, "cub::DeviceReduce::Reduce (sum)", [&](void *tmp, size_t &bytes) {
        return cub::DeviceReduce::Reduce(tmp, bytes, in, out, (long long)n,
                                         cuda::std::plus<int64_t>{}, (int64_t)0, st);
    });
}

extern "C" mmx_status mmx__reduce_max_cuda(mmx_ctx *ctx, const mmx_index *in, int64_t n,
                                           mmx_index init, mmx_index *out)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    if (n <= 0) /* from pageable memory: staged before the call returns */
        return MMX__CUDA(ctx, cudaMemcpyAsync(out, &init, sizeof init, cudaMemcpyHostToDevice, st));
    return mmx__cub_run(ctx, "cub::DeviceReduce::Reduce (max)", [&](void *tmp, size_t &bytes) {
        return cub::DeviceReduce::Reduce(tmp, bytes, in, out, (long long)n, cuda::maximum<>{},
                                         init, st);
    });
}

/* mmx__flag_beyond: each thread the largest n - i of its bad entries (its first one), the
 * block's largest by a block reduction, one atomicMax per block: integers, so the verdict is
 * the same whatever order the blocks run in. */
__global__ void k_flag_beyond(const float *x, long long n, float bound, unsigned long long *slot)
{
    unsigned long long worst = 0;
    for (long long i = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x; i < n;
         i += (long long)gridDim.x * MMX__BLOCK)
        if (!(fabsf(x[i]) <= bound) && (unsigned long long)(n - i) > worst)
            worst = (unsigned long long)(n - i);
    worst = mmx__block_reduce(worst, cuda::maximum<>{});
    if (threadIdx.x == 0 && worst) atomicMax(slot, worst);
}

extern "C" mmx_status mmx__flag_beyond_cuda(mmx_ctx *ctx, const float *x, int64_t n, float bound,
                                            unsigned long long *slot)
{
    if (n <= 0) return MMX_OK;
    /* A few blocks per SM's worth of work is enough for a memory-bound pass: the grid strides. */
    const long long items = n < (1LL << 22) ? (long long)n : (1LL << 22);
    k_flag_beyond<<<mmx__grid(items), MMX__BLOCK, 0, (cudaStream_t)ctx->stream>>>(x, (long long)n, bound, slot);
    return mmx__cuda(ctx, cudaGetLastError(), "k_flag_beyond launch");
}
