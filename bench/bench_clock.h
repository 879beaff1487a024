/* Small helpers every benchmark program shares, host-only (no CUDA): a monotonic clock and
 * the median of repeated runs. */
#ifndef BENCH_CLOCK_H
#define BENCH_CLOCK_H

#include <stdlib.h>
#include <time.h>

/* Milliseconds on the monotonic clock. */
static inline double bc_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static inline int bc_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of v[0..n) (n >= 1), sorting v: the middle one, or the mean of the two middle
 * ones for an even n. */
static inline double bc_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, bc_cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

#endif
