/* The conversions of core.h (mmx_convert_f64, mmx_convert_i64) as elementwise steps
 * (elementwise.h): stated once here, the host loops made of them in convert.c, the kernels in
 * convert.cu. Each converts its item and notes it in a fault slot when the value has no
 * faithful image; the first such item is read back and worded on the host. */
#ifndef MMX_CORE_CONVERT_STEP_H
#define MMX_CORE_CONVERT_STEP_H

#include <float.h>
#include <math.h>
#include "elementwise.h"

/* dst[i] = src[i] rounded to the nearest float (one correctly rounded conversion, on the host
 * and on the device: the same bits); a NaN, an infinity or a value beyond float's range (its
 * float is infinite) is a fault. */
static inline MMX__HD void mmx__convert_f64_step(int64_t i, const double *src, float *dst,
                                                 int64_t n, unsigned long long *fault)
{
    const float f = (float)src[i];
    dst[i] = f;
    if (!(fabsf(f) <= FLT_MAX)) mmx__note_first(fault, n, i); /* NaN fails the test too */
}

/* dst[i] = src[i] when it is an index, in [0, MMX_INDEX_MAX]; otherwise a fault (and 0). */
static inline MMX__HD void mmx__convert_i64_step(int64_t i, const int64_t *src, mmx_index *dst,
                                                 int64_t n, unsigned long long *fault)
{
    const int64_t v = src[i];
    const int ok = v >= 0 && v <= MMX_INDEX_MAX;
    dst[i] = ok ? (mmx_index)v : 0;
    if (!ok) mmx__note_first(fault, n, i);
}

MMX__ELEMENTWISE(mmx__convert_f64_each, mmx__convert_f64_step,
                 (const double *src, float *dst, int64_t n, unsigned long long *fault),
                 (src, dst, n, fault))
MMX__ELEMENTWISE(mmx__convert_i64_each, mmx__convert_i64_step,
                 (const int64_t *src, mmx_index *dst, int64_t n, unsigned long long *fault),
                 (src, dst, n, fault))

#endif
