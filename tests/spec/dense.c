/* Dense matrices from CSC ones, and the properties an mmx_csc caches (spec.h). */
#include <stdlib.h>
#include <criterion/criterion.h>
#include "spec.h"

/* An R x C matrix with nothing stored. One spare element keeps calloc's size non-zero, so
 * that an empty shape is not mistaken for a failed allocation. */
static spec_dense dense_empty(mmx_index nrows, mmx_index ncols)
{
    size_t n = (size_t)nrows * (size_t)ncols;
    spec_dense D = {nrows, ncols, calloc(n + 1, 1), calloc(n + 1, sizeof(int64_t)),
                    calloc((size_t)ncols + 1, sizeof(mmx_index)), malloc((n + 1) * sizeof(int64_t))};
    cr_assert(D.has && D.val && D.cnt && D.entry, "the spec is out of memory (%d x %d)", nrows, ncols);
    for (size_t t = 0; t < n; t++) D.entry[t] = -1;
    return D;
}

/* Column j of A is entries [*a, *b); the reduced form has no colptr. */
static void column(const mmx_csc *A, mmx_index j, int64_t *a, int64_t *b)
{
    *a = A->order ? (int64_t)A->order * j : A->colptr[j];
    *b = A->order ? *a + A->order : A->colptr[j + 1];
}

/* The stored value of entry e of column j (which starts at a): the reduced form stores none,
 * its values are the positions. */
static int64_t value(const mmx_csc *A, int64_t e, int64_t a)
{
    return A->order ? e - a + 1 : A->val[e];
}

spec_dense spec_dense_of(const mmx_csc *A)
{
    spec_dense D = dense_empty(A->nrows, A->ncols);
    for (mmx_index j = 0; j < A->ncols; j++) {
        int64_t a, b;
        column(A, j, &a, &b);
        for (int64_t e = a; e < b; e++) {
            size_t at = spec_at(&D, A->rowidx[e], j);
            D.has[at] = 1;
            D.val[at] = value(A, e, a);
            D.entry[at] = e;
        }
    }
    /* counted from the dense matrix, not from colptr: the statement of a column's order */
    for (mmx_index i = 0; i < D.nrows; i++)
        for (mmx_index j = 0; j < D.ncols; j++) D.cnt[j] += D.has[spec_at(&D, i, j)];
    return D;
}

spec_dense spec_dense_transpose(const spec_dense *A)
{
    spec_dense T = dense_empty(A->ncols, A->nrows);
    for (mmx_index i = 0; i < A->nrows; i++)
        for (mmx_index j = 0; j < A->ncols; j++) {
            T.has[spec_at(&T, j, i)] = A->has[spec_at(A, i, j)];
            T.val[spec_at(&T, j, i)] = A->val[spec_at(A, i, j)];
            T.entry[spec_at(&T, j, i)] = A->entry[spec_at(A, i, j)];
            T.cnt[i] += A->has[spec_at(A, i, j)];
        }
    return T;
}

void spec_dense_free(spec_dense *D)
{
    free(D->has);
    free(D->val);
    free(D->cnt);
    free(D->entry);
    D->entry = NULL;
    D->has = NULL;
    D->val = NULL;
    D->cnt = NULL;
}

spec_props spec_props_of(const mmx_csc *A)
{
    spec_props p = {0, 0, 0, 1};
    int first = 1;
    for (mmx_index j = 0; j < A->ncols; j++) {
        int64_t a, b;
        column(A, j, &a, &b);
        if (b - a > p.maxcol) p.maxcol = (mmx_index)(b - a);
        for (int64_t e = a; e < b; e++) {
            mmx_index v = (mmx_index)value(A, e, a);
            if (first || v < p.minval) p.minval = v;
            if (first || v > p.maxval) p.maxval = v;
            first = 0;
            p.positional &= v == e - a + 1;
        }
    }
    return p;
}
