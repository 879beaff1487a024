/* CSC matrices: creation and its checks, values as positions, copies, the CSR view of Aᵀ,
 * checked against a dense statement of the same matrix on random inputs. */
#include <string.h>
#include "testutil.h"
#include "spla/spla_internal.h" /* the column selection */

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

/* ---- column selection (mmx__csc_select_cols) ------------------------------------------------ */

enum { SMAX = 13 };

/* One random selection of A's columns and rows: keep, row_map (half the time), row_keep (half
 * the time), all_rows (a quarter of the time). */
typedef struct sel_case {
    unsigned char keep[SMAX], row_keep[SMAX];
    mmx_index row_map[SMAX];
    mmx__col_select sel;
} sel_case;

static void random_selection(uint32_t *seed, int nrows, int ncols, sel_case *c)
{
    memset(c, 0, sizeof *c);
    for (int j = 0; j < ncols; j++) c->keep[j] = tu_rng(seed) % 3 != 0;
    for (int r = 0; r < nrows; r++) {
        c->row_keep[r] = tu_rng(seed) % 4 == 0;
        /* merges into rows that stay (r % 3 == 0), as a collapse merges into kept ends */
        c->row_map[r] = r % 3 && tu_rng(seed) % 2 ? (mmx_index)(3 * (tu_rng(seed) % (uint32_t)((nrows + 2) / 3))) : r;
    }
    c->sel.keep = c->keep;
    c->sel.row_map = tu_rng(seed) % 2 ? c->row_map : NULL;
    c->sel.row_keep = tu_rng(seed) % 2 ? c->row_keep : NULL;
    c->sel.all_rows = tu_rng(seed) % 4 == 0;
    c->sel.ncols = c->sel.nrows = -1;
}

/* B against the statement written out here: the kept rows are the rows of the kept columns'
 * entries (through row_map) and those row_keep flags, numbered in ascending order. */
static void check_selection(const mmx_csc *A, const sel_case *c, const mmx_csc *B,
                            const mmx_index *row_new, const mmx_index *row_old)
{
    const mmx__col_select *sel = &c->sel;
    int used[SMAX] = {0}, num[SMAX], nr = 0;
    for (int j = 0; j < A->ncols; j++)
        if (c->keep[j])
            for (int k = A->colptr[j]; k < A->colptr[j + 1]; k++)
                used[sel->row_map ? sel->row_map[A->rowidx[k]] : A->rowidx[k]] = 1;
    for (int r = 0; r < A->nrows; r++) {
        const int kept = sel->all_rows ? !sel->row_map || sel->row_map[r] == r
                                       : used[r] || (sel->row_keep && sel->row_keep[r]);
        num[r] = kept ? nr++ : -1;
        cr_assert_eq(row_new[r], num[r], "row %d", r);
        if (kept) cr_assert_eq(row_old[num[r]], r);
    }
    cr_assert_eq(B->nrows, nr);
    int nc = 0, nnz = 0, maxcol = 0, lo = 0, hi = 0;
    for (int j = 0; j < A->ncols; j++) {
        if (!c->keep[j]) continue;
        cr_assert_eq(B->colptr[nc], nnz, "column %d", j);
        if (A->colptr[j + 1] - A->colptr[j] > maxcol) maxcol = A->colptr[j + 1] - A->colptr[j];
        for (int k = A->colptr[j]; k < A->colptr[j + 1]; k++, nnz++) {
            const mmx_index r = sel->row_map ? sel->row_map[A->rowidx[k]] : A->rowidx[k];
            cr_assert_eq(B->rowidx[nnz], num[r]);
            cr_assert_eq(B->val[nnz], A->val[k]);
            if (!nnz || A->val[k] < lo) lo = A->val[k];
            if (!nnz || A->val[k] > hi) hi = A->val[k];
        }
        nc++;
    }
    /* the cached properties are those of the kept columns */
    cr_assert_eq(B->maxcol, maxcol);
    cr_assert_eq(B->minval, lo);
    cr_assert_eq(B->maxval, hi);
    cr_assert_eq(B->ncols, nc);
    cr_assert_eq(B->nnz, nnz);
    cr_assert_eq(B->colptr[nc], nnz);
}

Test(csc, select_cols_matches_its_statement)
{
    mmx_ctx *ctx = tu_host_ctx();
    uint32_t seed = 4242;
    for (int trial = 0; trial < 200; trial++) {
        const int nrows = 1 + (int)(tu_rng(&seed) % (SMAX - 1)), ncols = (int)(tu_rng(&seed) % SMAX);
        mmx_index colptr[SMAX + 1], rowidx[SMAX * SMAX], val[SMAX * SMAX];
        tu_random_csc(&seed, nrows, ncols, colptr, rowidx, val);
        mmx_csc *A = NULL, *B = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_csc_create(ctx, nrows, ncols, colptr, rowidx, val, MMX_SPACE_HOST, &A));
        sel_case c;
        random_selection(&seed, nrows, ncols, &c);
        mmx_index row_new[SMAX], row_old[SMAX];
        MMX_OK_OR_FAIL(ctx, mmx__csc_select_cols(ctx, A, &c.sel, &B, row_new, row_old));
        check_selection(A, &c, B, row_new, row_old);
        mmx_csc_free(B);
        mmx_csc_free(A);
    }
    mmx_ctx_free(ctx);
}

Test(csc, select_cols_of_a_reduced_matrix_keeps_its_form_and_makes_room)
{
    mmx_ctx *ctx = tu_host_ctx();
    /* Four triangles on six vertices; drop face 1, merge vertex 4 into 3, keep vertex 5
     * unused, room for two more faces and one more vertex. */
    const mmx_index rows[] = {0, 1, 2, 1, 3, 2, 2, 3, 4, 4, 5, 0};
    mmx_csc *A = NULL, *B = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_csc_create_reduced(ctx, 6, 4, 3, rows, MMX_SPACE_HOST, &A));
    const unsigned char keep[] = {1, 0, 1, 1}, row_keep[] = {0, 0, 0, 0, 0, 1};
    const mmx_index map[] = {0, 1, 2, 3, 3, 5};
    mmx__col_select sel = {keep, map, row_keep, 0, -1, -1, 2, 1};
    mmx_index row_new[6], row_old[6];
    MMX_OK_OR_FAIL(ctx, mmx__csc_select_cols(ctx, A, &sel, &B, row_new, row_old));
    cr_assert_eq(B->order, 3);
    cr_assert_eq(B->ncols, 5);
    cr_assert_eq(B->nrows, 6); /* rows 0, 1, 2, 3, 5 and the extra one */
    cr_assert_eq(B->nnz, 15);
    const mmx_index want[] = {0, 1, 2, 2, 3, 3, 3, 4, 0};
    cr_assert_arr_eq(B->rowidx, want, sizeof want);
    const mmx_index want_new[] = {0, 1, 2, 3, -1, 4}, want_old[] = {0, 1, 2, 3, 5};
    cr_assert_arr_eq(row_new, want_new, sizeof want_new);
    cr_assert_arr_eq(row_old, want_old, sizeof want_old);
    mmx_csc_free(B);
    /* extra columns of a general matrix are refused, named */
    mmx_csc *G = NULL;
    const mmx_index colptr[] = {0, 3, 6, 9, 12};
    MMX_OK_OR_FAIL(ctx, mmx_csc_create(ctx, 6, 4, colptr, rows, NULL, MMX_SPACE_HOST, &G));
    cr_assert_eq(mmx__csc_select_cols(ctx, G, &sel, &B, NULL, NULL), MMX_ERR_ARG);
    cr_assert(strstr(mmx_ctx_error(ctx), "general form"));
    cr_assert_null(B);
    mmx_csc_free(G);
    mmx_csc_free(A);
    mmx_ctx_free(ctx);
}

/* The device selection against the host's, array for array: random general matrices with
 * float values, the counts computed or given, and a reduced matrix with room. */
static void gpu_select_case(mmx_ctx *host, mmx_ctx *gpu, const mmx_csc *A, mmx__col_select sel,
                            int give_counts)
{
    const mmx_index nr = A->nrows, nc = A->ncols;
    mmx_csc *B = NULL, *dA = NULL, *dB = NULL, *hB = NULL;
    mmx_index *row_new = calloc((size_t)nr + 1, sizeof *row_new);
    mmx_index *row_old = calloc((size_t)nr + 1, sizeof *row_old);
    mmx_index *g_new = calloc((size_t)nr + 1, sizeof *g_new);
    mmx_index *g_old = calloc((size_t)nr + 1, sizeof *g_old);
    cr_assert(row_new && row_old && g_new && g_old);
    MMX_OK_OR_FAIL(host, mmx__csc_select_cols(host, A, &sel, &B, row_new, row_old));
    MMX_OK_OR_FAIL(gpu, mmx_csc_copy(gpu, A, MMX_SPACE_DEVICE, &dA));
    /* the selection's arrays on the device */
    mmx__col_select dsel = sel;
    void *keep = NULL, *rk = NULL, *map = NULL, *dnew = NULL, *dold = NULL;
    MMX_OK_OR_FAIL(gpu, mmx_mem_alloc(gpu, MMX_SPACE_DEVICE, (size_t)nc + 1, &keep));
    MMX_OK_OR_FAIL(gpu, mmx_mem_copy(gpu, keep, MMX_SPACE_DEVICE, sel.keep, MMX_SPACE_HOST, (size_t)nc));
    dsel.keep = keep;
    if (sel.row_keep) {
        MMX_OK_OR_FAIL(gpu, mmx_mem_alloc(gpu, MMX_SPACE_DEVICE, (size_t)nr + 1, &rk));
        MMX_OK_OR_FAIL(gpu, mmx_mem_copy(gpu, rk, MMX_SPACE_DEVICE, sel.row_keep, MMX_SPACE_HOST, (size_t)nr));
        dsel.row_keep = rk;
    }
    const size_t ib = ((size_t)nr + 1) * sizeof(mmx_index);
    if (sel.row_map) {
        MMX_OK_OR_FAIL(gpu, mmx_mem_alloc(gpu, MMX_SPACE_DEVICE, ib, &map));
        MMX_OK_OR_FAIL(gpu, mmx_mem_copy(gpu, map, MMX_SPACE_DEVICE, sel.row_map, MMX_SPACE_HOST, (size_t)nr * sizeof(mmx_index)));
        dsel.row_map = map;
    }
    MMX_OK_OR_FAIL(gpu, mmx_mem_alloc(gpu, MMX_SPACE_DEVICE, ib, &dnew));
    MMX_OK_OR_FAIL(gpu, mmx_mem_alloc(gpu, MMX_SPACE_DEVICE, ib, &dold));
    if (give_counts) {
        dsel.nrows = B->nrows - sel.extra_rows;
        dsel.ncols = B->ncols - sel.extra_cols;
    }
    MMX_OK_OR_FAIL(gpu, mmx__csc_select_cols(gpu, dA, &dsel, &dB, dnew, dold));
    MMX_OK_OR_FAIL(gpu, mmx_mem_copy(gpu, g_new, MMX_SPACE_HOST, dnew, MMX_SPACE_DEVICE, (size_t)nr * sizeof(mmx_index)));
    MMX_OK_OR_FAIL(gpu, mmx_mem_copy(gpu, g_old, MMX_SPACE_HOST, dold, MMX_SPACE_DEVICE, (size_t)(B->nrows - sel.extra_rows) * sizeof(mmx_index)));
    MMX_OK_OR_FAIL(gpu, mmx_csc_copy(gpu, dB, MMX_SPACE_HOST, &hB));
    cr_assert_eq(hB->nrows, B->nrows);
    cr_assert_eq(hB->ncols, B->ncols);
    cr_assert_eq(hB->nnz, B->nnz);
    cr_assert_eq(hB->order, B->order);
    cr_assert_eq(hB->maxcol, B->maxcol);
    cr_assert_eq(hB->minval, B->minval);
    cr_assert_eq(hB->maxval, B->maxval);
    cr_assert_eq(hB->positional, B->positional);
    const size_t kept_nnz = (size_t)B->nnz - (size_t)sel.extra_cols * (size_t)B->order;
    if (kept_nnz) cr_assert_arr_eq(hB->rowidx, B->rowidx, kept_nnz * sizeof(mmx_index));
    if (!B->order) {
        cr_assert_arr_eq(hB->colptr, B->colptr, ((size_t)B->ncols + 1) * sizeof(mmx_index));
        if (kept_nnz) cr_assert_arr_eq(hB->val, B->val, kept_nnz * sizeof(mmx_index));
    }
    cr_assert_eq(!hB->x, !B->x);
    if (B->x && kept_nnz) cr_assert_arr_eq(hB->x, B->x, kept_nnz * sizeof(float));
    cr_assert_arr_eq(g_new, row_new, (size_t)nr * sizeof(mmx_index));
    cr_assert_arr_eq(g_old, row_old, (size_t)(B->nrows - sel.extra_rows) * sizeof(mmx_index));
    mmx_mem_free(gpu, MMX_SPACE_DEVICE, keep);
    mmx_mem_free(gpu, MMX_SPACE_DEVICE, rk);
    mmx_mem_free(gpu, MMX_SPACE_DEVICE, map);
    mmx_mem_free(gpu, MMX_SPACE_DEVICE, dnew);
    mmx_mem_free(gpu, MMX_SPACE_DEVICE, dold);
    mmx_csc_free(hB);
    mmx_csc_free(dB);
    mmx_csc_free(dA);
    mmx_csc_free(B);
    free(row_new);
    free(row_old);
    free(g_new);
    free(g_old);
}

Test(csc, gpu_select_cols_matches_the_host)
{
    mmx_ctx *gpu = tu_cuda_ctx_or_skip();
    mmx_ctx *host = tu_host_ctx();
    uint32_t seed = 777;
    for (int trial = 0; trial < 60; trial++) {
        const int nrows = 1 + (int)(tu_rng(&seed) % (SMAX - 1)), ncols = (int)(tu_rng(&seed) % SMAX);
        mmx_index colptr[SMAX + 1], rowidx[SMAX * SMAX], val[SMAX * SMAX];
        tu_random_csc(&seed, nrows, ncols, colptr, rowidx, val);
        mmx_csc *A = NULL;
        MMX_OK_OR_FAIL(host, mmx_csc_create(host, nrows, ncols, colptr, rowidx, val, MMX_SPACE_HOST, &A));
        if (trial % 3 == 0) { /* float values travel with their entries */
            float x[SMAX * SMAX];
            for (int k = 0; k < A->nnz; k++) x[k] = 0.5f * (float)k - 3.0f;
            MMX_OK_OR_FAIL(host, mmx_csc_set_values(host, A, x, MMX_SPACE_HOST));
        }
        sel_case c;
        random_selection(&seed, nrows, ncols, &c);
        gpu_select_case(host, gpu, A, c.sel, trial % 2);
        mmx_csc_free(A);
    }
    /* a reduced triangle matrix, 4000 faces on 3000 rows: half the faces kept, rows merged in
     * pairs, room for 10 faces and 5 rows; with the counts computed, then given */
    enum { NF = 4000, NV = 3000 };
    mmx_index *rows = malloc(3 * NF * sizeof *rows), *map = malloc(NV * sizeof *map);
    unsigned char *keep = malloc(NF), *rk = malloc(NV);
    cr_assert(rows && map && keep && rk);
    for (int f = 0; f < NF; f++) {
        const mmx_index a = (mmx_index)(tu_rng(&seed) % (NV - 2));
        rows[3 * f] = a, rows[3 * f + 1] = a + 2, rows[3 * f + 2] = a + 1;
        keep[f] = tu_rng(&seed) % 2;
    }
    for (int v = 0; v < NV; v++) map[v] = v % 7 == 3 ? v - 1 : v, rk[v] = v % 11 == 0;
    mmx_csc *A = NULL;
    MMX_OK_OR_FAIL(host, mmx_csc_create_reduced(host, NV, NF, 3, rows, MMX_SPACE_HOST, &A));
    mmx__col_select sel = {keep, map, rk, 0, -1, -1, 10, 5};
    gpu_select_case(host, gpu, A, sel, 0);
    gpu_select_case(host, gpu, A, sel, 1);
    sel.all_rows = 1;
    gpu_select_case(host, gpu, A, sel, 1);
    mmx_csc_free(A);
    free(rows);
    free(map);
    free(keep);
    free(rk);
    mmx_ctx_free(host);
    mmx_ctx_free(gpu);
}
