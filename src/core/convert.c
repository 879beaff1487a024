/* Conversions for bindings (core.h): float64 to float32 and int64 to 32-bit indices, in the
 * context's space, with the first value that has no faithful image named. */
#include <stdio.h>
#include "convert_step.h"

/* The common frame: the step (f64 or i64) over n items in the context's space, its fault
 * slot read back once; *first is the first bad element (-1: none), whose value (`elem` bytes)
 * is then fetched into *bad for the message. */
static mmx_status run(mmx_ctx *ctx, const char *who, const void *src, size_t n, void *dst,
                      size_t elem, int f64, int64_t *first, void *bad)
{
    *first = -1;
    if (n == 0) return MMX_OK;
    if (!src || !dst) return mmx__fail(ctx, MMX_ERR_ARG, "%s: NULL array for %zu elements", who, n);
    if (n > (size_t)INT64_MAX / 8)
        return mmx__fail(ctx, MMX_ERR_OVERFLOW, "%s: %zu elements are too many", who, n);
    const mmx_space sp = mmx_ctx_space(ctx);
    mmx__readback rb;
    unsigned long long *slot = NULL;
    mmx_status s = mmx__readback_open(ctx, &rb);
    if (!s) s = mmx__readback_slot(&rb, sizeof *slot, (void **)&slot);
    if (!s && f64) s = mmx__convert_f64_each(ctx, sp, (int64_t)n, src, dst, (int64_t)n, slot);
    if (!s && !f64) s = mmx__convert_i64_each(ctx, sp, (int64_t)n, src, dst, (int64_t)n, slot);
    if (!s) s = mmx__readback_wait(&rb); /* the one wait on CUDA */
    if (!s) {
        const unsigned long long got = *(const unsigned long long *)mmx__readback_host(&rb, slot);
        if (got) *first = (int64_t)n - (int64_t)got;
    }
    mmx__readback_close(&rb);
    /* Only a refusal fetches the value, to name it. */
    if (!s && *first >= 0)
        s = mmx_mem_copy(ctx, bad, MMX_SPACE_HOST, (const char *)src + (size_t)*first * elem, sp, elem);
    return s;
}

mmx_status mmx_convert_f64(mmx_ctx *ctx, const double *src, size_t n, float *dst)
{
    MMX__NEED_CTX(ctx);
    int64_t first;
    double x = 0;
    mmx_status s = run(ctx, "mmx_convert_f64", src, n, dst, sizeof x, 1, &first, &x);
    if (s || first < 0) return s;
    if (isnan(x)) return mmx__fail(ctx, MMX_ERR_ARG, "element %lld is NaN", (long long)first);
    if (isinf(x))
        return mmx__fail(ctx, MMX_ERR_ARG, "element %lld is %sinfinite", (long long)first,
                         x < 0 ? "minus " : "");
    return mmx__fail(ctx, MMX_ERR_OVERFLOW, "element %lld is %g, beyond float's range (%g)",
                     (long long)first, x, (double)FLT_MAX);
}

mmx_status mmx_convert_i64(mmx_ctx *ctx, const int64_t *src, size_t n, mmx_index *dst)
{
    MMX__NEED_CTX(ctx);
    int64_t first, v = 0;
    mmx_status s = run(ctx, "mmx_convert_i64", src, n, dst, sizeof v, 0, &first, &v);
    if (s || first < 0) return s;
    return mmx__fail(ctx, v < 0 ? MMX_ERR_ARG : MMX_ERR_OVERFLOW,
                     "element %lld is %lld, outside the index range [0, %d]", (long long)first,
                     (long long)v, MMX_INDEX_MAX);
}
