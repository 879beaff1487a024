/* The properties a CSC matrix carries (maxcol, value range, positional): computed once when
 * the library creates a matrix, so that operations check a map's table against it in O(1). */
#include "spla_internal.h"

mmx_status mmx__csc_props(mmx_ctx *ctx, mmx_csc *A)
{
    A->maxcol = 0;
    A->minval = A->maxval = 0;
    A->positional = 1;
    if (A->order) {
        /* The reduced form implies values 1..order in every column. */
        A->maxcol = A->ncols ? A->order : 0;
        if (A->nnz) A->minval = 1, A->maxval = A->order;
        return MMX_OK;
    }
    if (A->space != MMX_SPACE_HOST) return mmx__csc_props_cuda(ctx, A);
    int first = 1;
    for (mmx_index j = 0; j < A->ncols; j++) {
        mmx_index a = A->colptr[j], b = A->colptr[j + 1];
        if (b - a > A->maxcol) A->maxcol = b - a;
        for (mmx_index k = a; k < b; k++) {
            mmx_index v = A->val[k];
            if (first || v < A->minval) A->minval = v;
            if (first || v > A->maxval) A->maxval = v;
            first = 0;
            if (v != k - a + 1) A->positional = 0;
        }
    }
    return MMX_OK;
}
