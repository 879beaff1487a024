/* The derived CSC arrays as elementwise steps (core/elementwise.h): each stated once here, the
 * host loop made of it in csc_fill.c, the kernel in csc_fill.cu. Included by those two only. */
#ifndef MMX_SPLA_CSC_FILL_STEP_H
#define MMX_SPLA_CSC_FILL_STEP_H

#include "core/elementwise.h"
#include "spla_internal.h"

/* Column j's entries get their positions 1, 2, ..., length as values. */
static inline MMX__HD void mmx__fill_positions_step(int64_t j, const mmx_index *colptr, mmx_index *val)
{
    for (mmx_index k = colptr[j]; k < colptr[j + 1]; k++) val[k] = k - colptr[j] + 1;
}

/* colptr[j] = order * j, for j in [0, ncols]: the column pointers of a uniform matrix. */
static inline MMX__HD void mmx__fill_uniform_colptr_step(int64_t j, mmx_index *colptr, mmx_index order)
{
    colptr[j] = order * (mmx_index)j;
}

MMX__ELEMENTWISE(mmx__csc_positions_each, mmx__fill_positions_step,
                 (const mmx_index *colptr, mmx_index *val), (colptr, val))
MMX__ELEMENTWISE(mmx__csc_uniform_colptr_each, mmx__fill_uniform_colptr_step,
                 (mmx_index *colptr, mmx_index order), (colptr, order))

#endif
