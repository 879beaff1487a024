/* The diagonal of a mapped matrix as an elementwise step (core/elementwise.h): stated once
 * here with setting a diagonal, run on the host by diag.c, made into the kernels by diag.cu. Run once per solve, so the
 * map is evaluated by the shared run-time switch (mmx__map_value) rather than spmv.cu's
 * specialised templates. Included by diag.c and diag.cu only. */
#ifndef MMX_SPLA_DIAG_STEP_H
#define MMX_SPLA_DIAG_STEP_H

#include "core/elementwise.h"
#include "spla_internal.h"

/* d[i] = m(i, i, v) for A's stored entry (i, i), 0 where column i has none. Rows are distinct
 * within a column, so column i holds row i at most once. */
static inline MMX__HD void mmx__diagonal_step(int64_t i, mmx_csc A, mmx_map map, float *d)
{
    int64_t a, b;
    mmx__csc_col(&A, (mmx_index)i, &a, &b);
    float v = 0.0f;
    for (int64_t e = a; e < b; e++)
        if (A.rowidx[e] == i) {
            v = mmx__map_value(&map, (mmx_index)i, (mmx_index)i, (mmx_index)(b - a), mmx__csc_val(&A, e, a), e);
            break;
        }
    d[i] = v;
}

MMX__ELEMENTWISE(mmx__csc_diagonal_each, mmx__diagonal_step, (mmx_csc A, mmx_map map, float *d),
                 (A, map, d))

/* Column i's diagonal entry of the float values set from d (spla_internal.h's
 * mmx__csc_set_diag_col: A.x[(i, i)] = alpha * d[i]). */
static inline MMX__HD void mmx__set_diagonal_step(int64_t i, mmx_csc A, const float *d, float alpha)
{
    mmx__csc_set_diag_col(&A, (mmx_index)i, d, alpha);
}

MMX__ELEMENTWISE(mmx__csc_set_diagonal_each, mmx__set_diagonal_step,
                 (mmx_csc A, const float *d, float alpha), (A, d, alpha))

#endif
