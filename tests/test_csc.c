/* CSC matrices: creation and its checks, values as positions, copies, the CSR view of Aᵀ,
 * checked against a dense statement of the same matrix on random inputs. */
#include <string.h>
#include "testutil.h"

Test(csc, random_matrices_match_their_dense_statement)
{
    mmx_ctx *ctx = tu_host_ctx();
    uint32_t seed = 12345;
    for (int trial = 0; trial < 50; trial++) {
        int nrows = (int)(tu_rng(&seed) % 13), ncols = (int)(tu_rng(&seed) % 13);
        mmx_index colptr[14], rowidx[169], val[169];
        tu_random_csc(&seed, nrows, ncols, colptr, rowidx, val);
        /* the spec: a dense array with 100 marking "no entry" */
        int dense[13][13];
        for (int i = 0; i < 13; i++) for (int j = 0; j < 13; j++) dense[i][j] = 100;
        for (int j = 0; j < ncols; j++)
            for (int k = colptr[j]; k < colptr[j + 1]; k++) dense[rowidx[k]][j] = val[k];
        mmx_csc *A = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_csc_create(ctx, nrows, ncols, colptr, rowidx, val, MMX_SPACE_HOST, &A));
        cr_assert_eq(A->nnz, colptr[ncols]);
        cr_assert_eq(A->order, 0);
        int seen = 0;
        for (int j = 0; j < ncols; j++)
            for (int k = A->colptr[j]; k < A->colptr[j + 1]; k++, seen++)
                cr_assert_eq(A->val[k], dense[A->rowidx[k]][j]);
        cr_assert_eq(seen, A->nnz);
        /* Aᵀ by rows through the view equals the dense transpose */
        mmx_csr T = mmx_csc_transpose_view(A);
        cr_assert_eq(T.nrows, ncols);
        cr_assert_eq(T.ncols, nrows);
        for (int i = 0; i < T.nrows; i++)
            for (int k = T.rowptr[i]; k < T.rowptr[i + 1]; k++)
                cr_assert_eq(T.val[k], dense[T.colidx[k]][i]);
        mmx_csc *B = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_csc_copy(ctx, A, MMX_SPACE_HOST, &B));
        cr_assert_arr_eq(B->colptr, A->colptr, ((size_t)ncols + 1) * sizeof(mmx_index));
        if (A->nnz) { /* an empty matrix has no entry arrays */
            cr_assert_arr_eq(B->rowidx, A->rowidx, (size_t)A->nnz * sizeof(mmx_index));
            cr_assert_arr_eq(B->val, A->val, (size_t)A->nnz * sizeof(mmx_index));
        }
        mmx_csc_free(A);
        mmx_csc_free(B);
    }
    mmx_ctx_free(ctx);
}

Test(csc, missing_values_are_positions_in_the_column)
{
    mmx_ctx *ctx = tu_host_ctx();
    const mmx_index colptr[] = {0, 3, 7}, rowidx[] = {4, 0, 2, 1, 3, 0, 4};
    mmx_csc *A = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_csc_create(ctx, 5, 2, colptr, rowidx, NULL, MMX_SPACE_HOST, &A));
    const mmx_index want[] = {1, 2, 3, 1, 2, 3, 4};
    cr_assert_arr_eq(A->val, want, sizeof want);
    cr_assert_arr_eq(A->rowidx, rowidx, sizeof rowidx, "cyclic order kept, not sorted");
    mmx_csc_free(A);
    mmx_csc_free(NULL);
    mmx_ctx_free(ctx);
}

Test(csc, reduced_form)
{
    mmx_ctx *ctx = tu_host_ctx();
    const mmx_index rowidx[] = {0, 1, 2, 2, 1, 3};
    mmx_csc *A = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_csc_create_reduced(ctx, 4, 2, 3, rowidx, MMX_SPACE_HOST, &A));
    cr_assert_eq(A->order, 3);
    cr_assert_null(A->colptr);
    cr_assert_null(A->val);
    cr_assert_eq(A->nnz, 6);
    mmx_csr T = mmx_csc_transpose_view(A);
    cr_assert_eq(T.order, 3);
    cr_assert_null(T.rowptr);
    mmx_csc_free(A);
    const mmx_index dup[] = {0, 1, 1};
    cr_assert_eq(mmx_csc_create_reduced(ctx, 4, 1, 3, dup, MMX_SPACE_HOST, &A), MMX_ERR_ARG);
    cr_assert(strstr(mmx_ctx_error(ctx), "column 0: row 1 appears twice"), "%s", mmx_ctx_error(ctx));
    cr_assert_eq(mmx_csc_create_reduced(ctx, 4, 1, 0, dup, MMX_SPACE_HOST, &A), MMX_ERR_ARG);
    cr_assert_eq(mmx_csc_create_reduced(ctx, 4, 1 << 30, 3, dup, MMX_SPACE_HOST, &A), MMX_ERR_OVERFLOW);
    mmx_ctx_free(ctx);
}

/* Each structural fault is refused and named with its column. */
Test(csc, faults_are_named)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_csc *A = (mmx_csc *)1;
    const mmx_index rows[] = {0, 1, 2, 0, 3};
    struct { mmx_index colptr[3]; const char *want; } bad[] = {
        {{1, 3, 5}, "colptr[0] is 1"},
        {{0, 4, 3}, "column 0: column pointers decrease or leave [0, 3]"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cr_assert_eq(mmx_csc_create(ctx, 4, 2, bad[i].colptr, rows, NULL, MMX_SPACE_HOST, &A), MMX_ERR_ARG);
        cr_assert_null(A);
        cr_assert(strstr(mmx_ctx_error(ctx), bad[i].want), "'%s' lacks '%s'", mmx_ctx_error(ctx), bad[i].want);
    }
    const mmx_index colptr[] = {0, 3, 5}, out_of_range[] = {0, 1, 2, 0, 4}, twice[] = {0, 1, 2, 3, 3},
                    negative[] = {0, -1, 2, 0, 1};
    cr_assert_eq(mmx_csc_create(ctx, 4, 2, colptr, out_of_range, NULL, MMX_SPACE_HOST, &A), MMX_ERR_ARG);
    cr_assert(strstr(mmx_ctx_error(ctx), "column 1: row index 4 outside [0, 4)"), "%s", mmx_ctx_error(ctx));
    cr_assert_eq(mmx_csc_create(ctx, 4, 2, colptr, negative, NULL, MMX_SPACE_HOST, &A), MMX_ERR_ARG);
    cr_assert(strstr(mmx_ctx_error(ctx), "column 0: row index -1"), "%s", mmx_ctx_error(ctx));
    cr_assert_eq(mmx_csc_create(ctx, 4, 2, colptr, twice, NULL, MMX_SPACE_HOST, &A), MMX_ERR_ARG);
    cr_assert(strstr(mmx_ctx_error(ctx), "column 1: row 3 appears twice"), "%s", mmx_ctx_error(ctx));
    cr_assert_eq(mmx_csc_create(ctx, -1, 2, colptr, rows, NULL, MMX_SPACE_HOST, &A), MMX_ERR_ARG);
    cr_assert_eq(mmx_csc_create(ctx, 4, 2, NULL, rows, NULL, MMX_SPACE_HOST, &A), MMX_ERR_ARG);
    cr_assert_eq(mmx_csc_create(ctx, 4, 2, colptr, rows, NULL, MMX_SPACE_DEVICE, &A), MMX_ERR_SPACE);
    mmx_ctx_free(ctx);
}

Test(csc, empty_matrices)
{
    mmx_ctx *ctx = tu_host_ctx();
    const mmx_index colptr[] = {0, 0, 0};
    mmx_csc *A = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_csc_create(ctx, 0, 0, colptr, NULL, NULL, MMX_SPACE_HOST, &A));
    cr_assert_eq(A->nnz, 0);
    mmx_csc_free(A);
    MMX_OK_OR_FAIL(ctx, mmx_csc_create(ctx, 5, 2, colptr, NULL, NULL, MMX_SPACE_HOST, &A));
    cr_assert_eq(A->ncols, 2);
    MMX_OK_OR_FAIL(ctx, mmx_csc_check(ctx, A));
    mmx_csc_free(A);
    mmx_ctx_free(ctx);
}

/* The cached properties against a direct reading of the arrays, on random matrices. */
Test(csc, cached_properties_match_the_arrays)
{
    mmx_ctx *ctx = tu_host_ctx();
    uint32_t seed = 777;
    for (int trial = 0; trial < 40; trial++) {
        int nrows = (int)(tu_rng(&seed) % 13), ncols = (int)(tu_rng(&seed) % 13);
        mmx_index colptr[14], rowidx[169], val[169];
        tu_random_csc(&seed, nrows, ncols, colptr, rowidx, val);
        int positions = trial % 2; /* half the trials: values left implied (positions) */
        mmx_csc *A = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_csc_create(ctx, nrows, ncols, colptr, rowidx,
                                           positions ? NULL : val, MMX_SPACE_HOST, &A));
        mmx_index maxcol = 0, lo = 0, hi = 0;
        int pos = 1, first = 1;
        for (int j = 0; j < ncols; j++) {
            if (A->colptr[j + 1] - A->colptr[j] > maxcol) maxcol = A->colptr[j + 1] - A->colptr[j];
            for (int k = A->colptr[j]; k < A->colptr[j + 1]; k++) {
                mmx_index v = A->val[k];
                if (first || v < lo) lo = v;
                if (first || v > hi) hi = v;
                first = 0;
                pos &= v == k - A->colptr[j] + 1;
            }
        }
        cr_assert_eq(A->maxcol, maxcol);
        cr_assert_eq(A->minval, lo);
        cr_assert_eq(A->maxval, hi);
        cr_assert_eq(A->positional, pos);
        if (positions) cr_assert_eq(A->positional, 1);
        mmx_csc *B = NULL; /* a copy keeps them */
        MMX_OK_OR_FAIL(ctx, mmx_csc_copy(ctx, A, MMX_SPACE_HOST, &B));
        cr_assert(B->maxcol == A->maxcol && B->minval == A->minval && B->maxval == A->maxval &&
                  B->positional == A->positional);
        mmx_csc_free(A);
        mmx_csc_free(B);
    }
    /* The reduced form implies them; an empty matrix has zeros. */
    mmx_index red[6] = {0, 1, 2, 2, 1, 3};
    mmx_csc *R = NULL, *Z = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_csc_create_reduced(ctx, 4, 2, 3, red, MMX_SPACE_HOST, &R));
    cr_assert(R->maxcol == 3 && R->minval == 1 && R->maxval == 3 && R->positional == 1);
    mmx_index cp0[3] = {0, 0, 0};
    MMX_OK_OR_FAIL(ctx, mmx_csc_create(ctx, 5, 2, cp0, NULL, NULL, MMX_SPACE_HOST, &Z));
    cr_assert(Z->maxcol == 0 && Z->minval == 0 && Z->maxval == 0);
    mmx_csc_free(R);
    mmx_csc_free(Z);
    mmx_ctx_free(ctx);
}
