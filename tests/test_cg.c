/* Conjugate gradients (mmx_cg, mmx_cg_csc) and the mapped diagonal (mmx_csc_diagonal):
 * solves of random SPD sparse systems, a weighted grid Laplacian plus a multiple of the
 * identity stored as a pattern mmx_csc with MMX_MAP_BY_ENTRY weights (entries shuffled within
 * their columns, so that the table follows the storage), against a dense Cholesky solve in
 * double (tests/spec), for k = 1..4 and tolerances 1e-4..1e-7; the residual history; the
 * iteration cap; the matrix-free path against the csc path; b = 0 columns, initial guesses,
 * repeatability; systems that are not SPD; every refusal. The GPU tests solve the same
 * systems on a CUDA context and compare with the host. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#include "spec/spec.h"

static float rng_float(uint32_t *s, float lo, float hi)
{
    return lo + (hi - lo) * (float)(tu_rng(s) % 65536u) / 65535.0f;
}

/* ---- the systems --------------------------------------------------------------------------- */

typedef struct problem {
    mmx_index n;
    mmx_csc *A;   /* host pattern (values: positions) */
    float *w;     /* A->nnz weights, by entry */
    double *L;    /* Cholesky factor of S = A<w>, dense */
    double cond;  /* estimate of cond_2(S) */
} problem;

/* S = the Laplacian of an nx x ny grid with edge weights in [0.5, 1.5], plus shift * I. Each
 * column holds its diagonal and its neighbours in a random order. The dense factor and the
 * condition estimate are left out (NULL, 0) when `dense` is 0, for grids too big for them. */
static problem grid_problem_dense(mmx_ctx *h, uint32_t *seed, int nx, int ny, float shift, int dense)
{
    problem P = {nx * ny, NULL, NULL, NULL, 0.0};
    const int n = P.n;
    float *wh = malloc(((size_t)n + 1) * sizeof *wh), *wv = malloc(((size_t)n + 1) * sizeof *wv);
    mmx_index *cp = malloc(((size_t)n + 1) * sizeof *cp), *ri = malloc(((size_t)5 * n + 1) * sizeof *ri);
    P.w = malloc(((size_t)5 * n + 1) * sizeof *P.w);
    cr_assert(wh && wv && cp && ri && P.w);
    for (int v = 0; v < n; v++) {
        wh[v] = rng_float(seed, 0.5f, 1.5f); /* edge v -- v + 1 */
        wv[v] = rng_float(seed, 0.5f, 1.5f); /* edge v -- v + nx */
    }
    int nnz = 0;
    cp[0] = 0;
    for (int y = 0; y < ny; y++)
        for (int x = 0; x < nx; x++) {
            const int j = x + nx * y, start = nnz;
            float diag = shift;
            const int nb[4] = {x > 0 ? j - 1 : -1, x + 1 < nx ? j + 1 : -1, y > 0 ? j - nx : -1,
                               y + 1 < ny ? j + nx : -1};
            const float we[4] = {x > 0 ? wh[j - 1] : 0, wh[j], y > 0 ? wv[j - nx] : 0, wv[j]};
            for (int t = 0; t < 4; t++)
                if (nb[t] >= 0) {
                    ri[nnz] = nb[t];
                    P.w[nnz++] = -we[t];
                    diag += we[t];
                }
            ri[nnz] = j;
            P.w[nnz++] = diag;
            for (int p = start + 1; p < nnz; p++) { /* shuffle the column, weights along */
                int r = start + (int)(tu_rng(seed) % (uint32_t)(p - start + 1));
                mmx_index ti = ri[p];
                ri[p] = ri[r];
                ri[r] = ti;
                float tw = P.w[p];
                P.w[p] = P.w[r];
                P.w[r] = tw;
            }
            cp[j + 1] = nnz;
        }
    MMX_OK_OR_FAIL(h, mmx_csc_create(h, n, n, cp, ri, NULL, MMX_SPACE_HOST, &P.A));
    free(wh);
    free(wv);
    free(cp);
    free(ri);
    if (!dense) return P;
    double *S = spec_mapped_dense(P.A, mmx_map_table(MMX_MAP_BY_ENTRY, P.w, P.A->nnz));
    P.L = spec_mapped_dense(P.A, mmx_map_table(MMX_MAP_BY_ENTRY, P.w, P.A->nnz));
    cr_assert(spec_cholesky(P.L, n), "the test's matrix is not SPD");
    P.cond = spec_spd_condition(S, P.L, n);
    free(S);
    return P;
}

static problem grid_problem(mmx_ctx *h, uint32_t *seed, int nx, int ny, float shift)
{
    return grid_problem_dense(h, seed, nx, ny, shift, 1);
}

static void problem_free(problem *P)
{
    mmx_csc_free(P->A);
    free(P->w);
    free(P->L);
}

static mmx_map weights(const problem *P) { return mmx_map_table(MMX_MAP_BY_ENTRY, P->w, P->A->nnz); }

/* Random b (n x k); column `zero` (if >= 0) all zeros. */
static float *random_b(uint32_t *seed, int n, int k, int zero)
{
    float *b = malloc(((size_t)n * k + 1) * sizeof *b);
    cr_assert(b);
    for (int t = 0; t < n * k; t++) b[t] = t % k == zero ? 0.0f : rng_float(seed, -1, 1);
    return b;
}

/* ||x_q - S⁻¹ b_q|| / ||S⁻¹ b_q|| in double, S⁻¹ b_q by the dense Cholesky solve. */
static double rel_error(const problem *P, const float *b, const float *x, int k, int q)
{
    const int n = P->n;
    double *xs = malloc(((size_t)n + 1) * sizeof *xs);
    cr_assert(xs);
    for (int i = 0; i < n; i++) xs[i] = b[i * k + q];
    spec_cholesky_solve(P->L, n, xs);
    double e2 = 0.0, s2 = 0.0;
    for (int i = 0; i < n; i++) {
        e2 += (x[i * k + q] - xs[i]) * (x[i * k + q] - xs[i]);
        s2 += xs[i] * xs[i];
    }
    free(xs);
    return s2 > 0.0 ? sqrt(e2 / s2) : sqrt(e2);
}

static float *zeros(int n, int k)
{
    float *x = calloc((size_t)n * k + 1, sizeof *x);
    cr_assert(x);
    return x;
}

/* ---- against the dense solve -------------------------------------------------------------- */

/* For each grid, k and tolerance: the solve converges, its recurrence residual is within
 * rtol, the true residual it reports is what the test recomputes, and the error against the
 * Cholesky solve is within what the residual allows: ||e|| / ||x|| <= cond(S) ||r|| / ||b||
 * (exact arithmetic), widened for the estimate and float rounding. */
Test(cg, matches_a_dense_cholesky_solve)
{
    mmx_ctx *h = tu_host_ctx();
    uint32_t seed = 1234u;
    static const int dims[][2] = {{1, 1}, {6, 5}, {13, 9}, {24, 17}};
    static const float shifts[] = {1.0f, 0.5f, 0.2f, 0.1f};
    static const double rtols[] = {1e-4, 1e-5, 1e-6, 1e-7};
    int solves = 0;
    for (int g = 0; g < 4; g++) {
        problem P = grid_problem(h, &seed, dims[g][0], dims[g][1], shifts[g]);
        for (int k = 1; k <= 4; k++)
            for (int t = 0; t < 4; t++) {
                float *b = random_b(&seed, P.n, k, -1), *x = zeros(P.n, k);
                mmx_cg_opts o = mmx_cg_defaults();
                o.rtol = rtols[t];
                mmx_cg_report rep;
                MMX_OK_OR_FAIL(h, mmx_cg_csc(h, P.A, weights(&P), b, k, x, &o, &rep));
                for (int q = 0; q < k; q++) {
                    cr_assert(rep.converged[q], "grid %d, k %d, rtol %g, column %d: not converged (%g)",
                              g, k, rtols[t], q, rep.rel_residual[q]);
                    cr_assert_leq(rep.rel_residual[q], rtols[t]);
                    cr_assert_leq(rep.col_iterations[q], rep.iterations);
                    /* the true residual is about the recurrence's, down to float's floor */
                    cr_assert_leq(rep.true_rel_residual[q], 2.0 * rtols[t] + 2e-6,
                                  "grid %d, k %d, rtol %g, column %d: true residual %g", g, k,
                                  rtols[t], q, rep.true_rel_residual[q]);
                    const double err = rel_error(&P, b, x, k, q);
                    const double bound = 2.0 * P.cond * (rep.true_rel_residual[q] + 1e-6);
                    cr_assert_leq(err, bound, "grid %d (cond %.1f), k %d, rtol %g, column %d: error %g > %g",
                                  g, P.cond, k, rtols[t], q, err, bound);
                }
                cr_assert_leq(rep.iterations, P.n + 10); /* CG's n steps, give or take rounding */
                for (int q = k; q < MMX_CG_MAX_K; q++) cr_assert_eq(rep.col_iterations[q], 0);
                solves++;
                free(b);
                free(x);
            }
        problem_free(&P);
    }
    cr_assert_eq(solves, 64);
    mmx_ctx_free(h);
}

/* Each column runs its own recurrence: solving the k columns together gives, column for
 * column, the bits of solving each alone. */
Test(cg, columns_are_independent)
{
    mmx_ctx *h = tu_host_ctx();
    uint32_t seed = 77u;
    problem P = grid_problem(h, &seed, 10, 8, 0.3f);
    const int k = 4, n = P.n;
    float *b = random_b(&seed, n, k, -1), *x = zeros(n, k);
    mmx_cg_report rep, one;
    MMX_OK_OR_FAIL(h, mmx_cg_csc(h, P.A, weights(&P), b, k, x, NULL, &rep));
    for (int q = 0; q < k; q++) {
        float *bq = zeros(n, 1), *xq = zeros(n, 1);
        for (int i = 0; i < n; i++) bq[i] = b[i * k + q];
        MMX_OK_OR_FAIL(h, mmx_cg_csc(h, P.A, weights(&P), bq, 1, xq, NULL, &one));
        cr_assert_eq(one.col_iterations[0], rep.col_iterations[q], "column %d", q);
        for (int i = 0; i < n; i++) cr_assert_eq(xq[i], x[i * k + q], "column %d, row %d", q, i);
        free(bq);
        free(xq);
    }
    free(b);
    free(x);
    problem_free(&P);
    mmx_ctx_free(h);
}

Test(cg, residual_history_decreases_overall)
{
    mmx_ctx *h = tu_host_ctx();
    uint32_t seed = 99u;
    problem P = grid_problem(h, &seed, 20, 20, 0.05f);
    const int k = 3, cap = 1000;
    float *b = random_b(&seed, P.n, k, -1), *x = zeros(P.n, k);
    double *hist = malloc((size_t)cap * k * sizeof *hist);
    cr_assert(hist);
    for (int t = 0; t < cap * k; t++) hist[t] = -1.0;
    mmx_cg_opts o = mmx_cg_defaults();
    o.rtol = 1e-6;
    o.history = hist;
    o.history_cap = cap;
    mmx_cg_report rep;
    MMX_OK_OR_FAIL(h, mmx_cg_csc(h, P.A, weights(&P), b, k, x, &o, &rep));
    for (int q = 0; q < k; q++) {
        const double *hq = hist + (size_t)q * cap;
        const int len = rep.history_len[q];
        cr_assert_eq(len, rep.col_iterations[q] + 1);
        cr_assert_gt(len, 10, "a system this size takes more than 10 iterations");
        cr_assert_float_eq(hq[0], 1.0, 1e-6, "x0 = 0: the first residual is ||b|| / ||b||");
        cr_assert_eq(hq[len - 1], rep.rel_residual[q]);
        cr_assert_leq(hq[len - 1], o.rtol);
        cr_assert_eq(hq[len], -1.0, "written past the column's iterations");
        /* Overall: every 10 iterations the best residual so far improves. (CG's residual
         * is not monotone; its energy norm error is.) */
        double best = hq[0];
        for (int t = 10; t < len; t += 10) {
            double m = hq[t];
            for (int u = t - 9; u < t; u++) m = fmin(m, hq[u]);
            cr_assert_lt(m, best, "column %d: no progress from iteration %d to %d", q, t - 10, t);
            best = m;
        }
    }
    /* a short history keeps its first entries */
    double shorth[3 * 5];
    for (int t = 0; t < 15; t++) shorth[t] = -1.0;
    memset(x, 0, (size_t)P.n * k * sizeof *x);
    o.history = shorth;
    o.history_cap = 5;
    MMX_OK_OR_FAIL(h, mmx_cg_csc(h, P.A, weights(&P), b, k, x, &o, &rep));
    for (int q = 0; q < k; q++) {
        cr_assert_eq(rep.history_len[q], 5);
        for (int t = 0; t < 5; t++) cr_assert_eq(shorth[q * 5 + t], hist[(size_t)q * cap + t]);
    }
    free(hist);
    free(b);
    free(x);
    problem_free(&P);
    mmx_ctx_free(h);
}

/* rel_initial: the tolerance is relative to the initial residual. From a guess near the
 * solution (||r_0|| << ||b||) the column runs until ||r|| <= rtol ||r_0||, read from the history
 * (which stays relative to ||b||): the stop is the first iteration where hist[t] <= rtol
 * hist[0], and it asks for more iterations than the ||b|| test from the same guess. */
Test(cg, tolerance_relative_to_the_initial_residual)
{
    mmx_ctx *h = tu_host_ctx();
    uint32_t seed = 7u;
    problem P = grid_problem(h, &seed, 24, 24, 0.05f);
    const int k = 2, cap = 2000;
    float *b = random_b(&seed, P.n, k, -1), *x = zeros(P.n, k), *guess = zeros(P.n, k);
    double *hist = malloc((size_t)cap * k * sizeof *hist);
    cr_assert(hist);
    /* The guess: a solve to 1e-3, so that ||r_0|| is about 1e-3 ||b||. */
    mmx_cg_opts o = mmx_cg_defaults();
    o.rtol = 1e-3;
    MMX_OK_OR_FAIL(h, mmx_cg_csc(h, P.A, weights(&P), b, k, guess, &o, NULL));
    mmx_cg_report plain, rel;
    memcpy(x, guess, (size_t)P.n * k * sizeof *x);
    o.rtol = 1e-4;
    MMX_OK_OR_FAIL(h, mmx_cg_csc(h, P.A, weights(&P), b, k, x, &o, &plain));
    memcpy(x, guess, (size_t)P.n * k * sizeof *x);
    o.rel_initial = 1;
    o.history = hist;
    o.history_cap = cap;
    MMX_OK_OR_FAIL(h, mmx_cg_csc(h, P.A, weights(&P), b, k, x, &o, &rel));
    for (int q = 0; q < k; q++) {
        const double *hq = hist + (size_t)q * cap;
        const int len = rel.history_len[q];
        cr_assert(rel.converged[q] && len == rel.col_iterations[q] + 1);
        cr_assert(hq[0] > 1e-5 && hq[0] < 1e-2, "the guess's residual %g", hq[0]);
        /* ||r||^2 <= rtol^2 ||r_0||^2, tested in the solver on the squares */
        cr_assert_leq(hq[len - 1], 1e-4 * hq[0] * (1 + 1e-12));
        for (int t = 0; t + 1 < len; t++)
            cr_assert_gt(hq[t], 1e-4 * hq[0], "column %d could have stopped at %d", q, t);
        cr_assert_gt(rel.col_iterations[q], plain.col_iterations[q],
                     "column %d: %d iterations relative to r_0, %d relative to b", q,
                     rel.col_iterations[q], plain.col_iterations[q]);
    }
    free(hist), free(b), free(x), free(guess);
    problem_free(&P);
    mmx_ctx_free(h);
}

/* Not converging is not an error: converged = 0, the cap's iterations exactly. */
Test(cg, iteration_cap_is_respected)
{
    mmx_ctx *h = tu_host_ctx();
    uint32_t seed = 5u;
    problem P = grid_problem(h, &seed, 15, 15, 0.01f);
    const int k = 2;
    float *b = random_b(&seed, P.n, k, -1), *x = zeros(P.n, k);
    for (int cap = 0; cap <= 7; cap += 7) {
        memset(x, 0, (size_t)P.n * k * sizeof *x);
        mmx_cg_opts o = mmx_cg_defaults();
        o.rtol = 1e-7;
        o.max_iter = cap;
        mmx_cg_report rep;
        MMX_OK_OR_FAIL(h, mmx_cg_csc(h, P.A, weights(&P), b, k, x, &o, &rep));
        cr_assert_eq(rep.iterations, cap);
        for (int q = 0; q < k; q++) {
            cr_assert_eq(rep.col_iterations[q], cap);
            cr_assert_eq(rep.converged[q], 0);
            cr_assert_gt(rep.rel_residual[q], o.rtol);
            cr_assert_float_eq(rep.true_rel_residual[q], rep.rel_residual[q], 1e-3);
        }
        if (cap == 0)
            for (int t = 0; t < P.n * k; t++) cr_assert_eq(x[t], 0.0f, "max_iter 0 moved x");
    }
    free(b);
    free(x);
    problem_free(&P);
    mmx_ctx_free(h);
}

/* ---- the matrix-free operator ------------------------------------------------------------- */

typedef struct hand_op {
    const problem *P;
    int calls, fail_at;
} hand_op;

/* y = S x gathered column by column in entry order, in float: the host mmx_spmv's own
 * order, written out by hand. */
static mmx_status hand_apply(mmx_ctx *ctx, void *data, const float *x, int k, float *y)
{
    hand_op *op = data;
    if (++op->calls == op->fail_at) return MMX_ERR_IO;
    (void)ctx;
    const mmx_csc *A = op->P->A;
    for (mmx_index j = 0; j < A->ncols; j++)
        for (int q = 0; q < k; q++) {
            float acc = 0.0f;
            for (mmx_index e = A->colptr[j]; e < A->colptr[j + 1]; e++)
                acc += op->P->w[e] * x[(size_t)A->rowidx[e] * k + q];
            y[(size_t)j * k + q] = acc;
        }
    return MMX_OK;
}

Test(cg, matrix_free_operator_equals_the_csc_path)
{
    mmx_ctx *h = tu_host_ctx();
    uint32_t seed = 4321u;
    problem P = grid_problem(h, &seed, 12, 11, 0.2f);
    float *diag = malloc((size_t)P.n * sizeof *diag);
    cr_assert(diag);
    MMX_OK_OR_FAIL(h, mmx_csc_diagonal(h, P.A, weights(&P), diag));
    for (int k = 1; k <= 4; k++) {
        float *b = random_b(&seed, P.n, k, -1), *x1 = zeros(P.n, k), *x2 = zeros(P.n, k);
        mmx_cg_report r1, r2;
        MMX_OK_OR_FAIL(h, mmx_cg_csc(h, P.A, weights(&P), b, k, x1, NULL, &r1));
        hand_op op = {&P, 0, -1};
        mmx_linop S = {P.n, hand_apply, &op, diag};
        MMX_OK_OR_FAIL(h, mmx_cg(h, &S, b, k, x2, NULL, &r2));
        cr_assert_arr_eq(x1, x2, (size_t)P.n * k * sizeof *x1, "k = %d", k);
        cr_assert_eq(r1.iterations, r2.iterations);
        cr_assert_eq(op.calls, r2.iterations + 2, "one application per iteration, plus two");
        free(b);
        free(x1);
        free(x2);
    }
    /* no preconditioner: still converges, to the same solution */
    float *b = random_b(&seed, P.n, 2, -1), *x = zeros(P.n, 2);
    hand_op op = {&P, 0, -1};
    mmx_linop S = {P.n, hand_apply, &op, NULL};
    mmx_cg_report rep;
    MMX_OK_OR_FAIL(h, mmx_cg(h, &S, b, 2, x, NULL, &rep));
    for (int q = 0; q < 2; q++) {
        cr_assert(rep.converged[q]);
        cr_assert_leq(rel_error(&P, b, x, 2, q), 2.0 * P.cond * (rep.true_rel_residual[q] + 1e-6));
    }
    /* an operator's error stops the solve and comes back as it is */
    memset(x, 0, (size_t)P.n * 2 * sizeof *x);
    op.calls = 0;
    op.fail_at = 4;
    cr_assert_eq(mmx_cg(h, &S, b, 2, x, NULL, &rep), MMX_ERR_IO);
    free(b);
    free(x);
    free(diag);
    problem_free(&P);
    mmx_ctx_free(h);
}

/* An empty operator solves at once. */
Test(cg, empty_system)
{
    mmx_ctx *h = tu_host_ctx();
    hand_op op = {NULL, 0, -1};
    mmx_linop S = {0, hand_apply, &op, NULL};
    mmx_cg_report rep;
    MMX_OK_OR_FAIL(h, mmx_cg(h, &S, NULL, 3, NULL, NULL, &rep));
    cr_assert_eq(op.calls, 0);
    cr_assert_eq(rep.iterations, 0);
    for (int q = 0; q < 3; q++) cr_assert(rep.converged[q] && rep.rel_residual[q] == 0.0);
    mmx_ctx_free(h);
}

/* ---- b = 0, initial guesses, repeatability ------------------------------------------------ */

Test(cg, zero_columns_guesses_and_repeats)
{
    mmx_ctx *h = tu_host_ctx();
    uint32_t seed = 2024u;
    problem P = grid_problem(h, &seed, 9, 9, 0.3f);
    const int k = 3, n = P.n;
    float *b = random_b(&seed, n, k, 1), *x = zeros(n, k), *x2 = zeros(n, k);
    for (int t = 0; t < n * k; t++) x[t] = x2[t] = 5.0f; /* a poor guess, also in column 1 */
    mmx_cg_report rep, rep2;
    MMX_OK_OR_FAIL(h, mmx_cg_csc(h, P.A, weights(&P), b, k, x, NULL, &rep));
    cr_assert_eq(rep.col_iterations[1], 0);
    cr_assert(rep.converged[1]);
    cr_assert_eq(rep.rel_residual[1], 0.0);
    cr_assert_eq(rep.true_rel_residual[1], 0.0);
    for (int i = 0; i < n; i++) cr_assert_eq(x[i * k + 1], 0.0f, "b = 0 gives x = 0");
    cr_assert(rep.converged[0] && rep.converged[2]);
    /* the same solve again: the same bits */
    MMX_OK_OR_FAIL(h, mmx_cg_csc(h, P.A, weights(&P), b, k, x2, NULL, &rep2));
    cr_assert_arr_eq(x, x2, (size_t)n * k * sizeof *x);
    cr_assert_eq(rep.iterations, rep2.iterations);
    /* from the solution, nothing to do */
    memcpy(x2, x, (size_t)n * k * sizeof *x);
    mmx_cg_opts o = mmx_cg_defaults();
    o.rtol = 1e-4;
    MMX_OK_OR_FAIL(h, mmx_cg_csc(h, P.A, weights(&P), b, k, x2, &o, &rep2));
    cr_assert_eq(rep2.iterations, 0);
    cr_assert_arr_eq(x, x2, (size_t)n * k * sizeof *x);
    free(b);
    free(x);
    free(x2);
    problem_free(&P);
    mmx_ctx_free(h);
}

/* ---- the diagonal -------------------------------------------------------------------------- */

Test(cg, diagonal_of_mapped_matrices)
{
    mmx_ctx *h = tu_host_ctx();
    /* 3 x 4: column 0 rows {2, 0}, column 1 rows {0} (no diagonal), column 2 rows {1, 2} */
    const mmx_index cp[] = {0, 2, 3, 5, 5}, ri[] = {2, 0, 0, 1, 2}, va[] = {3, 7, 1, 2, 9};
    mmx_csc *A = NULL;
    MMX_OK_OR_FAIL(h, mmx_csc_create(h, 3, 4, cp, ri, va, MMX_SPACE_HOST, &A));
    float d[3];
    MMX_OK_OR_FAIL(h, mmx_csc_diagonal(h, A, mmx_map_value(), d));
    cr_assert(d[0] == 7.0f && d[1] == 0.0f && d[2] == 9.0f);
    const float w[] = {10, 20, 30, 40, 50};
    MMX_OK_OR_FAIL(h, mmx_csc_diagonal(h, A, mmx_map_table(MMX_MAP_BY_ENTRY, w, 5), d));
    cr_assert(d[0] == 20.0f && d[1] == 0.0f && d[2] == 50.0f);
    const float r[] = {0.5f, 1.5f, 2.5f};
    MMX_OK_OR_FAIL(h, mmx_csc_diagonal(h, A, mmx_map_table(MMX_MAP_BY_ROW, r, 3), d));
    cr_assert(d[0] == 0.5f && d[1] == 0.0f && d[2] == 2.5f);
    cr_assert_eq(mmx_csc_diagonal(h, A, mmx_map_table(MMX_MAP_BY_ENTRY, w, 4), d), MMX_ERR_ARG);
    cr_assert(strstr(mmx_ctx_error(h), "mmx_csc_diagonal") && strstr(mmx_ctx_error(h), "at least 5"));
    cr_assert_eq(mmx_csc_diagonal(h, A, mmx_map_value(), NULL), MMX_ERR_ARG);
    cr_assert_eq(mmx_csc_diagonal(h, NULL, mmx_map_value(), d), MMX_ERR_ARG);
    mmx_csc_free(A);
    mmx_ctx_free(h);
}

/* ---- systems that are not SPD -------------------------------------------------------------- */

/* The refusal's status and the words its detail must hold. */
static void expect_error(mmx_ctx *ctx, mmx_status got, mmx_status want, const char *const *words,
                         const char *what)
{
    cr_assert_eq(got, want, "%s: got %s (%s)", what, mmx_status_str(got), mmx_ctx_error(ctx));
    for (int w = 0; words[w]; w++)
        cr_assert(strstr(mmx_ctx_error(ctx), words[w]), "%s: the detail \"%s\" does not mention \"%s\"",
                  what, mmx_ctx_error(ctx), words[w]);
}

#define EXPECT(ctx, call, want, ...)                                                          \
    do {                                                                                      \
        const char *const w_[] = {__VA_ARGS__, NULL};                                         \
        expect_error((ctx), (call), (want), w_, #call);                                       \
    } while (0)

/* [[1, 2], [2, 1]] has the eigenvalues 3 and -1, with a positive diagonal. Column 0 of b,
 * (1, 1), is an eigenvector of 3 (solved in one step); column 1, (1, -1), one of -1, where
 * p·Sp = -2 at the first iteration. ctx is either backend; its arrays are made there. */
static void not_spd(mmx_ctx *ctx)
{
    cr_assert(ctx);
    mmx_ctx *h = tu_host_ctx();
    const mmx_space sp = mmx_ctx_space(ctx);
    const mmx_index cp[] = {0, 2, 4}, ri[] = {0, 1, 0, 1};
    const float w[] = {1, 2, 2, 1}, hb[] = {1, 1, 1, -1};
    float hx[4] = {0, 0, 0, 0};
    mmx_csc *hA = NULL, *A = NULL;
    MMX_OK_OR_FAIL(h, mmx_csc_create(h, 2, 2, cp, ri, NULL, MMX_SPACE_HOST, &hA));
    MMX_OK_OR_FAIL(ctx, mmx_csc_copy(ctx, hA, sp, &A));
    float *dw = NULL, *b = NULL, *x = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mem_alloc(ctx, sp, 12 * sizeof(float), (void **)&dw));
    b = dw + 4;
    x = dw + 8;
    MMX_OK_OR_FAIL(ctx, mmx_mem_copy(ctx, dw, sp, w, MMX_SPACE_HOST, sizeof w));
    MMX_OK_OR_FAIL(ctx, mmx_mem_copy(ctx, b, sp, hb, MMX_SPACE_HOST, sizeof hb));
    MMX_OK_OR_FAIL(ctx, mmx_mem_copy(ctx, x, sp, hx, MMX_SPACE_HOST, sizeof hx));
    mmx_cg_report rep;
    EXPECT(ctx, mmx_cg_csc(ctx, A, mmx_map_table(MMX_MAP_BY_ENTRY, dw, 4), b, 2, x, NULL, &rep),
           MMX_ERR_ARG, "breakdown", "p·Sp = -2", "iteration 1, column 1", "not symmetric positive definite");
    cr_assert(rep.converged[0] && !rep.converged[1]);
    cr_assert(isnan(rep.true_rel_residual[0]));
    MMX_OK_OR_FAIL(ctx, mmx_mem_copy(ctx, hx, MMX_SPACE_HOST, x, sp, sizeof hx));
    cr_assert_float_eq(hx[0], 1.0f / 3.0f, 1e-6);
    cr_assert_float_eq(hx[2], 1.0f / 3.0f, 1e-6);
    cr_assert(hx[1] == 0.0f && hx[3] == 0.0f, "the broken column kept its iterate");
    /* A diagonal that is not positive: refused before anything moves, naming the entry. */
    const float wneg[] = {1, 0.5f, 0.5f, -3};
    MMX_OK_OR_FAIL(ctx, mmx_mem_copy(ctx, dw, sp, wneg, MMX_SPACE_HOST, sizeof wneg));
    MMX_OK_OR_FAIL(ctx, mmx_mem_copy(ctx, x, sp, hb, MMX_SPACE_HOST, sizeof hb));
    EXPECT(ctx, mmx_cg_csc(ctx, A, mmx_map_table(MMX_MAP_BY_ENTRY, dw, 4), b, 2, x, NULL, &rep),
           MMX_ERR_ARG, "d[1] = -3", "not > 0");
    MMX_OK_OR_FAIL(ctx, mmx_mem_copy(ctx, hx, MMX_SPACE_HOST, x, sp, sizeof hx));
    cr_assert_arr_eq(hx, hb, sizeof hx, "x moved although the diagonal was refused");
    cr_assert_eq(rep.iterations, 0);
    /* A missing diagonal entry counts as 0. */
    const mmx_index cp2[] = {0, 2, 3}, ri2[] = {0, 1, 0};
    mmx_csc *hB = NULL, *B = NULL;
    MMX_OK_OR_FAIL(h, mmx_csc_create(h, 2, 2, cp2, ri2, NULL, MMX_SPACE_HOST, &hB));
    MMX_OK_OR_FAIL(ctx, mmx_csc_copy(ctx, hB, sp, &B));
    EXPECT(ctx, mmx_cg_csc(ctx, B, mmx_map_const(1), b, 2, x, NULL, NULL), MMX_ERR_ARG, "d[1] = 0");
    /* b not finite */
    const float bnan[] = {1, NAN, 1, 1};
    MMX_OK_OR_FAIL(ctx, mmx_mem_copy(ctx, dw, sp, w, MMX_SPACE_HOST, sizeof w));
    MMX_OK_OR_FAIL(ctx, mmx_mem_copy(ctx, b, sp, bnan, MMX_SPACE_HOST, sizeof bnan));
    EXPECT(ctx, mmx_cg_csc(ctx, A, mmx_map_table(MMX_MAP_BY_ENTRY, dw, 4), b, 2, x, NULL, NULL),
           MMX_ERR_ARG, "column 1", "not finite");
    mmx_mem_free(ctx, sp, dw);
    mmx_csc_free(A);
    mmx_csc_free(B);
    mmx_csc_free(hA);
    mmx_csc_free(hB);
    mmx_ctx_free(h);
    mmx_ctx_free(ctx);
}

Test(cg, not_positive_definite_is_reported) { not_spd(tu_host_ctx()); }

/* ---- refusals ------------------------------------------------------------------------------ */

static mmx_status noop_apply(mmx_ctx *ctx, void *data, const float *x, int k, float *y)
{
    (void)ctx, (void)data, (void)x, (void)k, (void)y;
    return MMX_OK;
}

static void refusals(mmx_ctx *ctx)
{
    mmx_ctx *h = tu_host_ctx();
    const mmx_space sp = mmx_ctx_space(ctx);
    const mmx_index cp[] = {0, 1, 2}, ri[] = {0, 1};
    mmx_csc *hA = NULL, *A = NULL, *R = NULL;
    MMX_OK_OR_FAIL(h, mmx_csc_create(h, 2, 2, cp, ri, NULL, MMX_SPACE_HOST, &hA));
    MMX_OK_OR_FAIL(ctx, mmx_csc_copy(ctx, hA, sp, &A));
    const mmx_index cpr[] = {0, 1, 2, 3};
    const mmx_index rir[] = {0, 1, 0};
    mmx_csc *hR = NULL;
    MMX_OK_OR_FAIL(h, mmx_csc_create(h, 2, 3, cpr, rir, NULL, MMX_SPACE_HOST, &hR));
    MMX_OK_OR_FAIL(ctx, mmx_csc_copy(ctx, hR, sp, &R));
    float *v = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mem_alloc(ctx, sp, 32 * sizeof(float), (void **)&v));
    float *b = v, *x = v + 16;
    const mmx_map one = mmx_map_const(1);
    mmx_cg_opts o = mmx_cg_defaults();

    cr_assert_eq(mmx_cg_csc(NULL, A, one, b, 1, x, NULL, NULL), MMX_ERR_ARG);
    cr_assert_eq(mmx_cg(NULL, NULL, b, 1, x, NULL, NULL), MMX_ERR_ARG);
    EXPECT(ctx, mmx_cg_csc(ctx, NULL, one, b, 1, x, NULL, NULL), MMX_ERR_ARG, "A is NULL");
    EXPECT(ctx, mmx_cg_csc(ctx, R, one, b, 1, x, NULL, NULL), MMX_ERR_ARG, "2 x 3", "square");
    EXPECT(ctx, mmx_cg_csc(ctx, A, one, b, 0, x, NULL, NULL), MMX_ERR_ARG, "k = 0");
    EXPECT(ctx, mmx_cg_csc(ctx, A, one, b, 5, x, NULL, NULL), MMX_ERR_ARG, "k = 5");
    EXPECT(ctx, mmx_cg_csc(ctx, A, one, NULL, 1, x, NULL, NULL), MMX_ERR_ARG, "b is NULL");
    EXPECT(ctx, mmx_cg_csc(ctx, A, one, b, 1, NULL, NULL, NULL), MMX_ERR_ARG, "x is NULL");
    EXPECT(ctx, mmx_cg_csc(ctx, A, one, b, 4, b + 4, NULL, NULL), MMX_ERR_ARG, "overlap");
    EXPECT(ctx, mmx_cg_csc(ctx, A, mmx_map_table(MMX_MAP_BY_ENTRY, v, 1), b, 1, x, NULL, NULL),
           MMX_ERR_ARG, "mmx_cg_csc", "MMX_MAP_BY_ENTRY", "at least 2");
    o.rtol = -1.0;
    EXPECT(ctx, mmx_cg_csc(ctx, A, one, b, 1, x, &o, NULL), MMX_ERR_ARG, "rtol");
    o.rtol = NAN;
    EXPECT(ctx, mmx_cg_csc(ctx, A, one, b, 1, x, &o, NULL), MMX_ERR_ARG, "rtol");
    o = mmx_cg_defaults();
    o.max_iter = -1;
    EXPECT(ctx, mmx_cg_csc(ctx, A, one, b, 1, x, &o, NULL), MMX_ERR_ARG, "max_iter = -1");
    o = mmx_cg_defaults();
    o.check_every = 0;
    EXPECT(ctx, mmx_cg_csc(ctx, A, one, b, 1, x, &o, NULL), MMX_ERR_ARG, "check_every = 0");
    o = mmx_cg_defaults();
    o.history_cap = 4;
    EXPECT(ctx, mmx_cg_csc(ctx, A, one, b, 1, x, &o, NULL), MMX_ERR_ARG, "history_cap = 4", "NULL");
    double hist[4];
    o.history = hist;
    o.history_cap = -1;
    EXPECT(ctx, mmx_cg_csc(ctx, A, one, b, 1, x, &o, NULL), MMX_ERR_ARG, "history_cap = -1");
    mmx_linop S = {2, NULL, NULL, NULL};
    EXPECT(ctx, mmx_cg(ctx, &S, b, 1, x, NULL, NULL), MMX_ERR_ARG, "apply is NULL");
    S.apply = noop_apply;
    S.n = -3;
    EXPECT(ctx, mmx_cg(ctx, &S, b, 1, x, NULL, NULL), MMX_ERR_ARG, "n = -3");
    EXPECT(ctx, mmx_cg(ctx, NULL, b, 1, x, NULL, NULL), MMX_ERR_ARG, "S is NULL");
    /* a matrix in the other space */
    mmx_csc other = *A;
    other.space = sp == MMX_SPACE_HOST ? MMX_SPACE_DEVICE : MMX_SPACE_HOST;
    EXPECT(ctx, mmx_cg_csc(ctx, &other, one, b, 1, x, NULL, NULL), MMX_ERR_SPACE, "mmx_cg_csc");
    /* ... and the identity, with b = 0 and x = 0 in all 16 floats, solves at once */
    float z[32] = {0};
    MMX_OK_OR_FAIL(ctx, mmx_mem_copy(ctx, v, sp, z, MMX_SPACE_HOST, sizeof z));
    mmx_cg_report rep;
    MMX_OK_OR_FAIL(ctx, mmx_cg_csc(ctx, A, one, b, 4, x, NULL, &rep));
    cr_assert_eq(rep.iterations, 0);
    mmx_mem_free(ctx, sp, v);
    mmx_csc_free(A);
    mmx_csc_free(R);
    mmx_csc_free(hA);
    mmx_csc_free(hR);
    mmx_ctx_free(h);
}

Test(cg, bad_arguments_are_refused)
{
    mmx_ctx *h = tu_host_ctx();
    refusals(h);
    mmx_ctx_free(h);
}

/* ---- GPU: CUDA against the host ------------------------------------------------------------ */

/* y = A<w>ᵀ x on the device through mmx_spmv: the matrix-free path on CUDA. */
typedef struct dev_op {
    const mmx_csc *A;
    const float *w;
} dev_op;

static mmx_status dev_apply(mmx_ctx *ctx, void *data, const float *x, int k, float *y)
{
    const dev_op *op = data;
    return mmx_spmv(ctx, MMX_OP_T, 1.0f, op->A, mmx_map_table(MMX_MAP_BY_ENTRY, op->w, op->A->nnz),
                    x, k, 0.0f, y);
}

Test(cg, gpu_matches_the_host)
{
    mmx_ctx *g = tu_cuda_ctx_or_skip();
    mmx_ctx *h = tu_host_ctx();
    uint32_t seed = 31337u;
    /* The last grid (more rows than MMX__CG_GRID_MAX blocks of threads, so the sums' grid
     * strides) is too big for the dense spec: the host's solution is its reference. */
    static const int dims[][2] = {{1, 1}, {7, 6}, {30, 25}, {400, 350}};
    for (int gi = 0; gi < 4; gi++) {
        const int dense = gi < 3;
        problem P = grid_problem_dense(h, &seed, dims[gi][0], dims[gi][1], 0.2f, dense);
        const int n = P.n;
        mmx_csc *dA = NULL;
        float *dw = NULL, *db = NULL, *dx = NULL, *ddiag = NULL;
        MMX_OK_OR_FAIL(g, mmx_csc_copy(g, P.A, MMX_SPACE_DEVICE, &dA));
        MMX_OK_OR_FAIL(g, mmx_mem_alloc(g, MMX_SPACE_DEVICE, (size_t)P.A->nnz * sizeof(float), (void **)&dw));
        MMX_OK_OR_FAIL(g, mmx_mem_copy(g, dw, MMX_SPACE_DEVICE, P.w, MMX_SPACE_HOST, (size_t)P.A->nnz * sizeof(float)));
        MMX_OK_OR_FAIL(g, mmx_mem_alloc(g, MMX_SPACE_DEVICE, (size_t)n * 4 * sizeof(float), (void **)&db));
        MMX_OK_OR_FAIL(g, mmx_mem_alloc(g, MMX_SPACE_DEVICE, (size_t)n * 4 * sizeof(float), (void **)&dx));
        MMX_OK_OR_FAIL(g, mmx_mem_alloc(g, MMX_SPACE_DEVICE, (size_t)n * sizeof(float), (void **)&ddiag));
        const mmx_map dmap = mmx_map_table(MMX_MAP_BY_ENTRY, dw, P.A->nnz);
        /* the diagonal: the same floats */
        float *hd = malloc((size_t)n * sizeof *hd), *gd = malloc((size_t)n * sizeof *gd);
        cr_assert(hd && gd);
        MMX_OK_OR_FAIL(h, mmx_csc_diagonal(h, P.A, weights(&P), hd));
        MMX_OK_OR_FAIL(g, mmx_csc_diagonal(g, dA, dmap, ddiag));
        MMX_OK_OR_FAIL(g, mmx_mem_copy(g, gd, MMX_SPACE_HOST, ddiag, MMX_SPACE_DEVICE, (size_t)n * sizeof *gd));
        cr_assert_arr_eq(hd, gd, (size_t)n * sizeof *hd);
        for (int k = 1; k <= 4; k++) {
            float *b = random_b(&seed, n, k, k == 3 ? 2 : -1), *xh = zeros(n, k), *xg = zeros(n, k),
                  *xg2 = zeros(n, k);
            const size_t bytes = (size_t)n * k * sizeof(float);
            enum { CAP = 400 };
            double hh[4 * CAP], hg[4 * CAP];
            mmx_cg_opts o = mmx_cg_defaults();
            o.rtol = 1e-6;
            o.history = hh;
            o.history_cap = CAP;
            mmx_cg_report rh, rg, rg2;
            MMX_OK_OR_FAIL(h, mmx_cg_csc(h, P.A, weights(&P), b, k, xh, &o, &rh));
            MMX_OK_OR_FAIL(g, mmx_mem_copy(g, db, MMX_SPACE_DEVICE, b, MMX_SPACE_HOST, bytes));
            MMX_OK_OR_FAIL(g, mmx_mem_copy(g, dx, MMX_SPACE_DEVICE, xg, MMX_SPACE_HOST, bytes));
            o.history = hg;
            MMX_OK_OR_FAIL(g, mmx_cg_csc(g, dA, dmap, db, k, dx, &o, &rg));
            MMX_OK_OR_FAIL(g, mmx_mem_copy(g, xg, MMX_SPACE_HOST, dx, MMX_SPACE_DEVICE, bytes));
            for (int q = 0; q < k; q++) {
                cr_assert(rg.converged[q], "grid %d, k %d, column %d", gi, k, q);
                int di = rg.col_iterations[q] - rh.col_iterations[q];
                cr_assert(di >= -1 && di <= 1, "grid %d, k %d, column %d: %d iterations on CUDA, %d on the host",
                          gi, k, q, rg.col_iterations[q], rh.col_iterations[q]);
                if (dense)
                    cr_assert_leq(rel_error(&P, b, xg, k, q), 2.0 * P.cond * (rg.true_rel_residual[q] + 1e-6));
                double d2 = 0.0, s2 = 0.0;
                for (int i = 0; i < n; i++) {
                    const double d = (double)xg[i * k + q] - xh[i * k + q];
                    d2 += d * d;
                    s2 += (double)xh[i * k + q] * xh[i * k + q];
                }
                cr_assert_leq(sqrt(d2), 1e-4 * sqrt(s2) + 1e-30, "grid %d, k %d, column %d: CUDA and host differ by %g",
                              gi, k, q, sqrt(d2 / (s2 > 0 ? s2 : 1)));
                cr_assert_float_eq(hg[(size_t)q * CAP], hh[(size_t)q * CAP], 1e-6 * hh[(size_t)q * CAP] + 1e-12);
            }
            /* repeatable to the bit; check_every does not change the result; the
             * matrix-free path with the same operator gives the same bits */
            for (int variant = 0; variant < 3; variant++) {
                MMX_OK_OR_FAIL(g, mmx_mem_copy(g, dx, MMX_SPACE_DEVICE, xg2, MMX_SPACE_HOST, bytes));
                mmx_cg_opts o2 = o;
                o2.history = NULL;
                o2.history_cap = 0;
                if (variant == 1) o2.check_every = 5;
                if (variant == 2) {
                    dev_op op = {dA, dw};
                    mmx_linop S = {n, dev_apply, &op, ddiag};
                    MMX_OK_OR_FAIL(g, mmx_cg(g, &S, db, k, dx, &o2, &rg2));
                } else {
                    MMX_OK_OR_FAIL(g, mmx_cg_csc(g, dA, dmap, db, k, dx, &o2, &rg2));
                }
                float *xr = zeros(n, k);
                MMX_OK_OR_FAIL(g, mmx_mem_copy(g, xr, MMX_SPACE_HOST, dx, MMX_SPACE_DEVICE, bytes));
                cr_assert_arr_eq(xr, xg, bytes, "grid %d, k %d, variant %d", gi, k, variant);
                cr_assert_eq(rg2.iterations, rg.iterations);
                for (int q = 0; q < k; q++) cr_assert_eq(rg2.rel_residual[q], rg.rel_residual[q]);
                free(xr);
            }
            free(b);
            free(xh);
            free(xg);
            free(xg2);
        }
        free(hd);
        free(gd);
        mmx_mem_free(g, MMX_SPACE_DEVICE, dw);
        mmx_mem_free(g, MMX_SPACE_DEVICE, db);
        mmx_mem_free(g, MMX_SPACE_DEVICE, dx);
        mmx_mem_free(g, MMX_SPACE_DEVICE, ddiag);
        mmx_csc_free(dA);
        problem_free(&P);
    }
    mmx_ctx_free(h);
    mmx_ctx_free(g);
}

Test(cg, gpu_not_positive_definite_is_reported) { not_spd(tu_cuda_ctx_or_skip()); }

Test(cg, gpu_bad_arguments_are_refused)
{
    mmx_ctx *g = tu_cuda_ctx_or_skip();
    refusals(g);
    mmx_ctx_free(g);
}
