/* Elementwise steps stated once. A step is a function of one item,
 *     static inline MMX__HD void step(int64_t i, <params>)
 * that computes item i of an operation (it may read anything, and writes only item i's
 * outputs, so items run in any order and in parallel with the same result). The line
 *     MMX__ELEMENTWISE(name, step, (<params>), (<args>))
 * placed in a header that the operation's .c and .cu files both include makes, from that one
 * step:
 *   in the .c file:  static mmx_status name(mmx_ctx *ctx, mmx_space space, int64_t n, <params>),
 *                    which runs step(i, <args>) for i in [0, n): a loop on the host, or, for
 *                    space = MMX_SPACE_DEVICE, the kernel below (MMX_ERR_INTERNAL naming it in
 *                    a build without CUDA, where no device data can exist: the no-CUDA stub);
 *   in the .cu file: the kernel (a grid-stride loop, one thread per item, core/launch.cuh's
 *                    block and grid) and its launcher name##_cuda, queued on ctx's stream,
 *                    nothing read back.
 * <params> are the step's parameters after i, <args> their names, each list in parentheses.
 * The #if on CUDA stays here, in core, as every other one does. */
#ifndef MMX_CORE_ELEMENTWISE_H
#define MMX_CORE_ELEMENTWISE_H

#include <stdint.h>
#include "core_internal.h"
#include "hd.h"

#define MMX__UNPAREN(...) __VA_ARGS__

/* *slot = max(*slot, v): the one write a step may make beyond its own item, for the faults and
 * bounds it reports through a read-back slot (device.h). A maximum does not depend on the
 * order the items run in, so the verdict is the same on both backends and every run (an
 * integer atomic on the device, no float). */
static inline MMX__HD void mmx__fold_max(unsigned long long *slot, unsigned long long v)
{
#ifdef __CUDA_ARCH__
    if (v > *slot) atomicMax(slot, v); /* the plain read only skips atomics that cannot win */
#else
    if (v > *slot) *slot = v;
#endif
}

/* Notes that item i of n is at fault: *slot keeps the largest n - i, so that n - *slot is the
 * first such item (0: none), whatever order the items run in. */
static inline MMX__HD void mmx__note_first(unsigned long long *slot, int64_t n, int64_t i)
{
    mmx__fold_max(slot, (unsigned long long)(n - i));
}

#ifdef __CUDACC__
#include "launch.cuh"
#define MMX__ELEMENTWISE(name, step, params, args)                                                  \
    static __global__ void __launch_bounds__(MMX__BLOCK) name##_kernel(int64_t n_, MMX__UNPAREN params) \
    {                                                                                               \
        for (int64_t i_ = (int64_t)blockIdx.x * MMX__BLOCK + threadIdx.x; i_ < n_;                  \
             i_ += (int64_t)gridDim.x * MMX__BLOCK)                                                 \
            step(i_, MMX__UNPAREN args);                                                            \
    }                                                                                               \
    extern "C" mmx_status name##_cuda(mmx_ctx *ctx, int64_t n_, MMX__UNPAREN params)                \
    {                                                                                               \
        if (n_ <= 0) return MMX_OK;                                                                 \
        name##_kernel<<<mmx__grid(n_), MMX__BLOCK, 0, (cudaStream_t)ctx->stream>>>(n_, MMX__UNPAREN args); \
        return mmx__cuda(ctx, cudaGetLastError(), #name " launch");                                 \
    }
#else
#ifdef MMX_HAVE_CUDA
#define MMX__ELEMENTWISE_PROTO_(name, params) \
    mmx_status name##_cuda(mmx_ctx *ctx, int64_t n_, MMX__UNPAREN params);
#define MMX__ELEMENTWISE_DEVICE_(name, args) name##_cuda(ctx, n_, MMX__UNPAREN args)
#else
#define MMX__ELEMENTWISE_PROTO_(name, params)
#define MMX__ELEMENTWISE_DEVICE_(name, args) mmx__no_cuda(ctx, #name "_cuda")
#endif
#define MMX__ELEMENTWISE(name, step, params, args)                                                  \
    MMX__ELEMENTWISE_PROTO_(name, params)                                                           \
    static inline mmx_status name(mmx_ctx *ctx, mmx_space space_, int64_t n_, MMX__UNPAREN params)  \
    {                                                                                               \
        if (space_ == MMX_SPACE_DEVICE) return MMX__ELEMENTWISE_DEVICE_(name, args);                \
        for (int64_t i_ = 0; i_ < n_; i_++) step(i_, MMX__UNPAREN args);                            \
        return MMX_OK;                                                                              \
    }
#endif

#endif
