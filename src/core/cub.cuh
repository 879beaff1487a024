/* CUB's device-wide algorithms behind one door, for the library's .cu files: the two calls
 * every one of them takes (size the scratch, run), the scratch from the context's pool in
 * stream order, errors as mmx_status; and the one radix sort the modules use. The scans and
 * reductions that C files call are in device.h (device.cu runs them through this). */
#ifndef MMX_CORE_CUB_CUH
#define MMX_CORE_CUB_CUH

#include <cub/device/device_radix_sort.cuh>
#include "core_internal.h"

/* Runs a CUB device algorithm `run(tmp, bytes)` twice: first to size its scratch, then with
 * it; the scratch goes back to the pool after the queued run. `what` names it in an error. */
template <typename Run>
mmx_status mmx__cub_run(mmx_ctx *ctx, const char *what, Run run)
{
    size_t bytes = 0;
    void *tmp = nullptr;
    mmx_status s = mmx__cuda(ctx, run(nullptr, bytes), what);
    if (!s) s = mmx__dev_alloc(ctx, bytes, &tmp);
    if (!s) s = mmx__cuda(ctx, run(tmp, bytes), what);
    mmx__dev_free(ctx, tmp);
    return s;
}

/* The bits needed to write x >= 0 (0 for 0): the digits a radix sort of keys <= x needs. */
inline int mmx__bits_for(long long x)
{
    int b = 0;
    while (b < 63 && (x >> b) != 0) b++;
    return b;
}

/* Sorts n (key, value) pairs of device arrays by the key's bits [0, end_bit), stably,
 * between two buffers of each (CUB's radix sort): the pairs start in keys[0] and vals[0] and
 * end in keys[*cur] and vals[*cur], the other two being left as scratch. end_bit >= 1.
 * Queued. Errors: MMX_ERR_NOMEM, MMX_ERR_CUDA. */
template <typename K, typename V>
mmx_status mmx__sort_pairs(mmx_ctx *ctx, K *keys[2], V *vals[2], long long n, int end_bit, int *cur)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    cub::DoubleBuffer<K> k(keys[0], keys[1]);
    cub::DoubleBuffer<V> v(vals[0], vals[1]);
    mmx_status s = mmx__cub_run(ctx, "cub::DeviceRadixSort::SortPairs", [&](void *tmp, size_t &bytes) {
        return cub::DeviceRadixSort::SortPairs(tmp, bytes, k, v, n, 0, end_bit, st);
    });
    *cur = k.selector;
    return s;
}

#endif
