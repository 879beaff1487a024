/* Launch helpers for the library's .cu files, so that every kernel is sized the same way: one
 * block size, one grid function, the launch-and-check statement of the launchers, and the
 * block-wide reduction that kernels finish with before their one atomic per block (on
 * integers: counts, minima, maxima, whose result does not depend on the order). */
#ifndef MMX_CORE_LAUNCH_CUH
#define MMX_CORE_LAUNCH_CUH

#include <climits>
#include <cub/block/block_reduce.cuh>

/* Threads per block of every kernel in the library: 8 warps, enough to hide latency on the
 * short, memory-bound kernels here, small enough that a few blocks share an SM. */
constexpr int MMX__BLOCK = 256;

/* Blocks for `items` threads of MMX__BLOCK: one thread per item, rounded up, at least one
 * block (a kernel that checks its index against the count does nothing on an empty input)
 * and at most the grid's limit (kernels that loop over more items stride by the grid). */
inline unsigned mmx__grid(long long items)
{
    const long long blocks = (items + MMX__BLOCK - 1) / MMX__BLOCK;
    return (unsigned)(blocks < 1 ? 1 : blocks > INT_MAX ? INT_MAX : blocks);
}

/* Queues kernel `name` with one thread per item for `items` items (mmx__grid) on stream st,
 * unless s already holds an error, and records a failed launch in s, naming the kernel; the
 * launchers' way of queueing a chain of kernels and checking once at the end. Expands to a
 * statement. MMX__LAUNCH uses the s, ctx and st in scope; MMX__LAUNCH_ON names them. */
#define MMX__LAUNCH_ON(s_, ctx_, st_, name, items, ...)                                     \
    do {                                                                                    \
        if (!(s_)) {                                                                        \
            name<<<mmx__grid(items), MMX__BLOCK, 0, (st_)>>>(__VA_ARGS__);                  \
            (s_) = mmx__cuda((ctx_), cudaGetLastError(), #name " launch");                  \
        }                                                                                   \
    } while (0)
#define MMX__LAUNCH(name, items, ...) MMX__LAUNCH_ON(s, ctx, st, name, items, __VA_ARGS__)

/* Carves one device block into pieces aligned to 256 bytes: a pass with base NULL sums the
 * pieces' sizes into used (the block's size to allocate), a second pass over the block hands
 * them out in the same order. */
struct mmx__carve {
    char *base;
    size_t used;
    template <typename T> T *take(size_t count)
    {
        T *p = reinterpret_cast<T *>(base ? base + used : nullptr);
        used += (count * sizeof(T) + 255) / 256 * 256;
        return p;
    }
};

/* out[i] = i for i < n, one thread each (a template, so that every file may include it without
 * defining the kernel). */
template <typename I>
__global__ void mmx__iota(I n, I *out)
{
    const long long i = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (i < n) out[i] = (I)i;
}

/* The reduction by `op` of v over the threads of a block of MMX__BLOCK threads, valid in
 * thread 0 (cub::BlockReduce). Every thread of the block must call it; it ends with a barrier,
 * so it may be called again right away (its shared storage is reused). */
template <typename T, typename Op>
__device__ __forceinline__ T mmx__block_reduce(T v, Op op)
{
    using Reduce = cub::BlockReduce<T, MMX__BLOCK>;
    __shared__ typename Reduce::TempStorage tmp;
    const T r = Reduce(tmp).Reduce(v, op);
    __syncthreads();
    return r;
}

#endif
