/* Private declarations of the sparse-matrix module. */
#ifndef MMX_SPLA_INTERNAL_H
#define MMX_SPLA_INTERNAL_H

#include "core/core_internal.h"
#include "meshmatrix/spla.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Allocates an uninitialised matrix in `space`: colptr and val unless order > 0. */
mmx_status mmx__csc_alloc(mmx_ctx *ctx, mmx_space space, mmx_index nrows, mmx_index ncols,
                          mmx_index nnz, mmx_index order, mmx_csc **out);

/* What a structural check found: kind 0 none; 1 colptr[j] > colptr[j+1] or outside [0, nnz];
 * 2 a row index outside [0, nrows); 3 a row twice in one column. `col` is the first such
 * column, `row` the offending row index. */
typedef struct mmx__csc_fault { int kind; mmx_index col, row; } mmx__csc_fault;

/* Turns a fault into MMX_ERR_ARG with a sentence naming it ("column 7: ..."). */
mmx_status mmx__csc_fault_report(mmx_ctx *ctx, const mmx_csc *A, mmx__csc_fault f);

/* Sets val[k] to k's 1-based position in its column, and colptr[j] = order * j for a reduced
 * matrix being expanded; host or device by A->space. */
mmx_status mmx__csc_fill_positions(mmx_ctx *ctx, mmx_csc *A);
mmx_status mmx__csc_fill_uniform_colptr(mmx_ctx *ctx, mmx_csc *A, mmx_index order);

#ifdef MMX_HAVE_CUDA
mmx_status mmx__csc_check_cuda(mmx_ctx *ctx, const mmx_csc *A, mmx__csc_fault *fault);
mmx_status mmx__csc_fill_positions_cuda(mmx_ctx *ctx, mmx_csc *A);
mmx_status mmx__csc_fill_uniform_colptr_cuda(mmx_ctx *ctx, mmx_csc *A, mmx_index order);
#endif

#ifdef __cplusplus
}
#endif
#endif
