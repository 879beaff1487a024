/* What the "patch_kernel" suite's two halves share (test_patch_kernel.c, the host twin and the
 * checks; test_patch_kernel_dev.cu, the user kernels on CUDA). */
#ifndef TEST_PATCH_KERNEL_H
#define TEST_PATCH_KERNEL_H

#include "meshmatrix.h"
#include "meshmatrix/patch_view.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The rows of the eight relations, in the space of the kernel that fills them: relation k's
 * row r goes to col[k][rowptr[k][r] ..] (only inside the row) and its entry count to
 * count[k][r]. */
typedef struct tpk_rows {
    const mmx_index *rowptr[MMX_QUERY_COUNT];
    mmx_index *col[MMX_QUERY_COUNT];
    mmx_index *count[MMX_QUERY_COUNT];
} tpk_rows;

/* Every owned element's rows through the handle's walks (a CUDA context and device set). */
mmx_status tpk_rows_cuda(mmx_ctx *ctx, const mmx_patch_set *ps, tpk_rows rows);

/* The stars' entries of every owned vertex into the VV, VE and VF rows (kinds 0 .. 2 of rows). */
mmx_status tpk_star_rows_cuda(mmx_ctx *ctx, const mmx_patch_set *ps, tpk_rows rows);

/* out[v] = the sum of v's VV neighbours' global numbers, read from a shared copy. */
mmx_status tpk_vv_sums_cuda(mmx_ctx *ctx, const mmx_patch_set *ps, mmx_index *out);

#ifdef __cplusplus
}
#endif
#endif
