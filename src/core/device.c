/* The scans and reductions of device.h: the host statement of each (a loop over host arrays),
 * and the dispatch to the CUDA half (device.cu) on a CUDA context. */
#include <math.h>
#include "core_internal.h"

static int on_cuda(const mmx_ctx *ctx) { return mmx_ctx_backend(ctx) == MMX_BACKEND_CUDA; }

/* Sums in uint32_t so that a wrap is defined (two's complement, as on the device). */
mmx_status mmx__scan_exclusive(mmx_ctx *ctx, const mmx_index *in, int64_t n, mmx_index *out)
{
    if (n <= 0) return MMX_OK;
    if (on_cuda(ctx)) return mmx__scan_exclusive_cuda(ctx, in, n, out);
    uint32_t sum = 0;
    for (int64_t i = 0; i < n; i++) {
        const uint32_t x = (uint32_t)in[i]; /* read before the write: in may be out */
        out[i] = (mmx_index)sum;
        sum += x;
    }
    return MMX_OK;
}

mmx_status mmx__scan_offsets(mmx_ctx *ctx, const mmx_index *in, int64_t n, mmx_index *out)
{
    if (n < 0) return MMX_OK;
    if (on_cuda(ctx)) return mmx__scan_offsets_cuda(ctx, in, n, out);
    uint32_t sum = 0;
    for (int64_t i = 0; i < n; i++) {
        out[i] = (mmx_index)sum;
        sum += (uint32_t)in[i];
    }
    out[n] = (mmx_index)sum;
    return MMX_OK;
}

mmx_status mmx__scan_exclusive_u64(mmx_ctx *ctx, const unsigned long long *in, int64_t n,
                                   unsigned long long *out)
{
    if (n <= 0) return MMX_OK;
    if (on_cuda(ctx)) return mmx__scan_exclusive_u64_cuda(ctx, in, n, out);
    unsigned long long sum = 0;
    for (int64_t i = 0; i < n; i++) {
        const unsigned long long x = in[i];
        out[i] = sum;
        sum += x;
    }
    return MMX_OK;
}

mmx_status mmx__reduce_sum(mmx_ctx *ctx, const mmx_index *in, int64_t n, int64_t *out)
{
    if (on_cuda(ctx)) return mmx__reduce_sum_cuda(ctx, in, n, out);
    int64_t sum = 0;
    for (int64_t i = 0; i < n; i++) sum += in[i];
    *out = sum;
    return MMX_OK;
}

mmx_status mmx__reduce_max(mmx_ctx *ctx, const mmx_index *in, int64_t n, mmx_index init,
                           mmx_index *out)
{
    if (on_cuda(ctx)) return mmx__reduce_max_cuda(ctx, in, n, init, out);
    mmx_index m = init;
    for (int64_t i = 0; i < n; i++)
        if (in[i] > m) m = in[i];
    *out = m;
    return MMX_OK;
}

mmx_status mmx__flag_beyond(mmx_ctx *ctx, const float *x, int64_t n, float bound,
                            unsigned long long *slot)
{
    if (n <= 0) return MMX_OK;
    if (on_cuda(ctx)) return mmx__flag_beyond_cuda(ctx, x, n, bound, slot);
    for (int64_t i = 0; i < n; i++)
        if (!(fabsf(x[i]) <= bound)) { /* NaN fails every comparison */
            if ((unsigned long long)(n - i) > *slot) *slot = (unsigned long long)(n - i);
            break;
        }
    return MMX_OK;
}

mmx_status mmx__first_beyond(mmx_ctx *ctx, const float *x, int64_t n, float bound, int64_t *first)
{
    *first = -1;
    if (n <= 0) return MMX_OK;
    mmx__readback rb;
    unsigned long long *slot = NULL;
    mmx_status s = mmx__readback_open(ctx, &rb);
    if (!s) s = mmx__readback_slot(&rb, sizeof *slot, (void **)&slot);
    if (!s) s = mmx__flag_beyond(ctx, x, n, bound, slot);
    if (!s) s = mmx__readback_wait(&rb);
    if (!s) {
        const unsigned long long got = *(const unsigned long long *)mmx__readback_host(&rb, slot);
        if (got) *first = n - (int64_t)got;
    }
    mmx__readback_close(&rb);
    return s;
}
