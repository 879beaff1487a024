/* Column selection: B = the flagged columns of A, the rows they use renumbered in ascending
 * order (spla_internal.h states it). The dynamic module's rounds compact their meshes with it:
 * a removed face is a dropped column, a removed vertex a dropped row, a collapse a merge of
 * rows (row_map) before the renumbering. The device body is select_cols.cu's. */
#include <stdlib.h>
#include <string.h>
#include "spla_internal.h"

/* The host statement. flag: room for nrows + 1. */
static void select_host(const mmx_csc *A, const mmx__col_select *sel, mmx_index *flag,
                        mmx_csc *B, mmx_index *row_new, mmx_index *row_old)
{
    const mmx_index *map = sel->row_map;
    /* Row flags, then their running count: a kept row's new number. */
    for (mmx_index r = 0; r < A->nrows; r++)
        flag[r] = sel->all_rows ? !map || map[r] == r : sel->row_keep && sel->row_keep[r];
    if (!sel->all_rows)
        for (mmx_index j = 0; j < A->ncols; j++) {
            if (!sel->keep[j]) continue;
            int64_t a, b;
            mmx__csc_col(A, j, &a, &b);
            for (int64_t e = a; e < b; e++) flag[map ? map[A->rowidx[e]] : A->rowidx[e]] = 1;
        }
    mmx_index next = 0;
    for (mmx_index r = 0; r < A->nrows; r++) {
        const mmx_index kept = flag[r];
        if (row_new) row_new[r] = kept ? next : -1;
        if (kept && row_old) row_old[next] = r;
        flag[r] = kept ? next++ : -1;
    }
    int64_t k = 0;
    mmx_index c = 0;
    if (!A->order) B->colptr[0] = 0;
    for (mmx_index j = 0; j < A->ncols; j++) {
        if (!sel->keep[j]) continue;
        int64_t a, b;
        mmx__csc_col(A, j, &a, &b);
        for (int64_t e = a; e < b; e++, k++) {
            B->rowidx[k] = flag[map ? map[A->rowidx[e]] : A->rowidx[e]];
            if (B->val) B->val[k] = A->val[e];
            if (B->x) B->x[k] = A->x[e];
        }
        if (!A->order) B->colptr[++c] = (mmx_index)k;
    }
}

mmx_status mmx__csc_select_cols(mmx_ctx *ctx, const mmx_csc *A, const mmx__col_select *sel,
                                mmx_csc **out, mmx_index *row_new, mmx_index *row_old)
{
    *out = NULL;
    if (sel->extra_cols && !A->order)
        return mmx__fail(ctx, MMX_ERR_ARG, "column selection: room for %d more columns in a "
                         "matrix of the general form (reduced form only)", (int)sel->extra_cols);
    if (A->space == MMX_SPACE_DEVICE)
        return mmx__csc_select_cols_cuda(ctx, A, sel, out, row_new, row_old);
    /* The sizes: kept columns and entries by one pass over the flags, kept rows by the
     * statement's own count (its flags are the row numbers' source). */
    mmx_index nc = 0;
    int64_t nnz = 0;
    for (mmx_index j = 0; j < A->ncols; j++)
        if (sel->keep[j]) {
            int64_t a, b;
            mmx__csc_col(A, j, &a, &b);
            nc++;
            nnz += b - a;
        }
    mmx_index *flag = NULL;
    mmx_csc *B = NULL;
    mmx_status s = mmx__host_alloc(ctx, (size_t)A->nrows + 1, sizeof *flag, (void **)&flag);
    const int64_t room = nnz + (int64_t)sel->extra_cols * A->order;
    if (!s) s = mmx__csc_alloc(ctx, MMX_SPACE_HOST, 0, nc + sel->extra_cols, (mmx_index)room,
                               A->order, &B);
    if (!s && A->x) s = mmx__csc_alloc_x(ctx, B);
    if (!s) {
        select_host(A, sel, flag, B, row_new, row_old);
        mmx_index nr = 0;
        for (mmx_index r = 0; r < A->nrows; r++) nr += flag[r] >= 0;
        B->nrows = nr + sel->extra_rows;
        s = mmx__csc_props(ctx, B);
    }
    free(flag);
    if (s) {
        mmx_csc_free(B);
        return s;
    }
    *out = B;
    return MMX_OK;
}
