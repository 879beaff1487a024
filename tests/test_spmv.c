/* Mapped SpMV: the host backend against the dense statement of the product (tests/spec)
 * on random matrices, random maps of every kind, k = 1..4, both ops and several alpha / beta
 * (beta = 0 over a NaN-filled y, alpha = 0 over a NaN-filled x); reduced forms against their
 * general forms; edge cases (empty shapes, empty rows and columns, one entry, a 360-valent
 * vertex, a 360-gon, a mesh in shuffled order, the built-in shapes); every refusal. The GPU
 * tests run the same cases on a CUDA context (both op = T kernel variants, and op = N) and
 * compare them with the host: op = T within rounding, op = N bit for bit. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#include "spla/spla_internal.h"
#include "spec/spec.h"

/* Uniform in [lo, hi], on a grid of 2^16 steps. */
static float rng_float(uint32_t *s, float lo, float hi)
{
    return lo + (hi - lo) * (float)(tu_rng(s) % 65536u) / 65535.0f;
}

static const char *kind_name(mmx_map_kind k)
{
    static const char *n[] = {"VALUE", "CONST", "BY_VALUE", "BY_ROW", "BY_COL", "BY_ORDER",
                              "BY_ORDER_VALUE", "BY_ENTRY"};
    return (int)k >= 0 && (int)k < 8 ? n[k] : "?";
}

/* ---- against the spec --------------------------------------------------------------------- */

/* Float sums of n terms in any order lie within about n * 2^-24 of the sum of |terms| from
 * the exact value; a few more roundings come from the products, alpha and beta. */
static double tolerance(int n, double scale) { return 1.2e-7 * (n + 4) * scale; }

static void expect_close(const char *what, const char *desc, const float *got, const double *want,
                         const double *scale, const int *n, size_t len, double factor)
{
    for (size_t t = 0; t < len; t++) {
        double d = fabs((double)got[t] - want[t]);
        if (!(d <= factor * tolerance(n[t], scale[t])))
            cr_assert_fail("%s, %s: y[%zu] = %.9g, expected %.9g (diff %.3g, %d terms, scale %.3g)",
                           what, desc, t, (double)got[t], want[t], d, n[t], scale[t]);
    }
}

/* ---- the test environment ----------------------------------------------------------------- */

enum { ARENA = 1 << 20 }; /* device scratch, in floats */

typedef struct env {
    mmx_ctx *h;     /* host context */
    mmx_ctx *g;     /* CUDA context, or NULL for the host tests */
    uint32_t seed;
    float *arena;   /* x, y and the table on the device, carved at chosen alignments */
    long cases;     /* cases run */
} env;

static env env_open(mmx_ctx *g, uint32_t seed)
{
    env e = {tu_host_ctx(), g, seed, NULL, 0};
    if (g) MMX_OK_OR_FAIL(g, mmx_mem_alloc(g, MMX_SPACE_DEVICE, ARENA * sizeof(float), (void **)&e.arena));
    return e;
}

static void env_close(env *e)
{
    cr_assert_gt(e->cases, 0);
    if (e->g) {
        mmx_mem_free(e->g, MMX_SPACE_DEVICE, e->arena);
        mmx_ctx_free(e->g);
    }
    mmx_ctx_free(e->h);
}

/* A's device copy for a GPU run, NULL on the host. */
static mmx_csc *to_dev(env *e, const mmx_csc *A)
{
    mmx_csc *d = NULL;
    if (e->g) MMX_OK_OR_FAIL(e->g, mmx_csc_copy(e->g, A, MMX_SPACE_DEVICE, &d));
    return d;
}

static int is_table(mmx_map_kind k) { return k != MMX_MAP_VALUE && k != MMX_MAP_CONST; }

/* One product: the spec, the host backend against it, and on a CUDA context every kernel
 * variant against the host. x is random unless xin is given; alpha = 0 fills x with NaN and
 * beta = 0 fills y with NaN, which must not reach the result. On the device, x and y start
 * either 16-byte aligned or one float off, so both the vector and the scalar loads run. */
static void run_case(env *e, const mmx_csc *hA, const mmx_csc *dA, const spec_dense *D, mmx_map map,
                     mmx_op op, int k, float alpha, float beta, const float *xin)
{
    size_t nx = (size_t)(op == MMX_OP_T ? hA->nrows : hA->ncols) * k;
    size_t ny = (size_t)(op == MMX_OP_T ? hA->ncols : hA->nrows) * k;
    float *x = malloc((nx + 1) * sizeof *x), *y0 = malloc((ny + 1) * sizeof *y0);
    float *yh = malloc((ny + 1) * sizeof *yh), *yd = malloc((ny + 1) * sizeof *yd);
    double *want = malloc((ny + 1) * sizeof *want), *scale = malloc((ny + 1) * sizeof *scale);
    int *n = malloc((ny + 1) * sizeof *n);
    cr_assert(x && y0 && yh && yd && want && scale && n);
    for (size_t t = 0; t < nx; t++) x[t] = alpha == 0.0f ? NAN : xin ? xin[t] : rng_float(&e->seed, -1, 1);
    for (size_t t = 0; t < ny; t++) y0[t] = beta == 0.0f ? NAN : rng_float(&e->seed, -1, 1);
    char desc[200];
    snprintf(desc, sizeof desc, "map %s, op %c, k %d, alpha %g, beta %g, A %d x %d nnz %d order %d",
             kind_name(map.kind), op == MMX_OP_T ? 'T' : 'N', k, (double)alpha, (double)beta,
             hA->nrows, hA->ncols, hA->nnz, hA->order);
    spec_spmv(D, map, op, k, alpha, x, beta, y0, want, scale, n);
    memcpy(yh, y0, ny * sizeof *yh);
    MMX_OK_OR_FAIL(e->h, mmx_spmv(e->h, op, alpha, hA, map, x, k, beta, yh));
    expect_close("host against the spec", desc, yh, want, scale, n, ny, 1.0);
    if (e->g) {
        /* The host result is the reference now: both lie within one tolerance of the spec. */
        for (size_t t = 0; t < ny; t++) want[t] = yh[t];
        size_t tl = is_table(map.kind) ? (size_t)map.len : 0;
        size_t ox = ((tl + 63) & ~(size_t)63) + (tu_rng(&e->seed) & 1);
        size_t oy = ((ox + nx + 63) & ~(size_t)63) + (tu_rng(&e->seed) & 1);
        cr_assert_leq(oy + ny, (size_t)ARENA, "test case too large for the device arena");
        float *dt = e->arena, *dx = e->arena + ox, *dy = e->arena + oy;
        mmx_map dm = map;
        if (tl) {
            MMX_OK_OR_FAIL(e->g, mmx_mem_copy(e->g, dt, MMX_SPACE_DEVICE, map.table, MMX_SPACE_HOST, tl * sizeof(float)));
            dm.table = dt;
        }
        MMX_OK_OR_FAIL(e->g, mmx_mem_copy(e->g, dx, MMX_SPACE_DEVICE, x, MMX_SPACE_HOST, nx * sizeof *x));
        static const char *vname[] = {"CUDA auto", "CUDA thread per column", "CUDA shuffle"};
        for (int v = MMX__SPMV_AUTO; v <= MMX__SPMV_SHUFFLE; v++) {
            MMX_OK_OR_FAIL(e->g, mmx_mem_copy(e->g, dy, MMX_SPACE_DEVICE, y0, MMX_SPACE_HOST, ny * sizeof *y0));
            MMX_OK_OR_FAIL(e->g, mmx__spmv_variant_run(e->g, (mmx__spmv_variant)v, op, alpha, dA, dm,
                                                       dx, k, beta, dy));
            MMX_OK_OR_FAIL(e->g, mmx_mem_copy(e->g, yd, MMX_SPACE_HOST, dy, MMX_SPACE_DEVICE, ny * sizeof *yd));
            expect_close(vname[v], desc, yd, want, scale, n, ny, 2.0);
            /* op = N adds each row's terms in the host's order with the host's roundings. */
            if (op == MMX_OP_N)
                for (size_t t = 0; t < ny; t++)
                    if (memcmp(&yd[t], &yh[t], sizeof *yd))
                        cr_assert_fail("%s, %s: y[%zu] = %a on CUDA, %a on the host (op N must "
                                       "agree bit for bit)", vname[v], desc, t, (double)yd[t], (double)yh[t]);
        }
    }
    e->cases++;
    free(x);
    free(y0);
    free(yh);
    free(yd);
    free(want);
    free(scale);
    free(n);
}

/* ---- maps --------------------------------------------------------------------------------- */

/* A random map of `kind` covering A: a table just long enough, then up to three NaN entries
 * that no product may read. *tab gets the table to free (NULL for VALUE / CONST). Returns 0
 * when the kind does not apply to A. */
static int random_map(uint32_t *seed, const spec_dense *D, int positional, mmx_map_kind kind,
                      mmx_map *map, float **tab)
{
    *tab = NULL;
    if (kind == MMX_MAP_VALUE) {
        *map = mmx_map_value();
        return 1;
    }
    if (kind == MMX_MAP_CONST) {
        *map = mmx_map_const(rng_float(seed, -2, 2));
        return 1;
    }
    int64_t need = spec_map_len(D, positional, kind);
    if (need < 0) return 0;
    int64_t len = need + (int64_t)(tu_rng(seed) % 4);
    *tab = malloc((size_t)(len + 1) * sizeof **tab);
    cr_assert(*tab);
    for (int64_t t = 0; t < len; t++) (*tab)[t] = t < need ? rng_float(seed, -2, 2) : NAN;
    *map = mmx_map_table(kind, *tab, (mmx_index)len);
    return 1;
}

/* Every applicable map kind, k = 1..4, both ops; all alpha / beta pairs when `full`, else one
 * pair per (kind, k, op), in turn. xin (A->nrows x 3) replaces x for op = T, k = 3. */
static void all_cases(env *e, const mmx_csc *hA, int full, const float *xin)
{
    static const float ab[][2] = {{1, 0}, {0.75f, -1.5f}, {0, 2}, {0, 0}, {-2, 1}};
    const int nab = (int)(sizeof ab / sizeof ab[0]);
    spec_dense D = spec_dense_of(hA);
    const int pos = spec_props_of(hA).positional;
    mmx_csc *dA = to_dev(e, hA);
    int turn = 0;
    for (int kind = MMX_MAP_VALUE; kind <= MMX_MAP_BY_ENTRY; kind++)
        for (int k = 1; k <= 4; k++)
            for (int op = MMX_OP_N; op <= MMX_OP_T; op++)
                for (int c = 0; c < (full ? nab : 1); c++) {
                    int pick = full ? c : turn++ % nab;
                    mmx_map map;
                    float *tab;
                    if (!random_map(&e->seed, &D, pos, (mmx_map_kind)kind, &map, &tab)) continue;
                    const float *xi = xin && op == MMX_OP_T && k == 3 ? xin : NULL;
                    run_case(e, hA, dA, &D, map, (mmx_op)op, k, ab[pick][0], ab[pick][1], xi);
                    free(tab);
                }
    mmx_csc_free(dA);
    spec_dense_free(&D);
}

/* ---- matrices ----------------------------------------------------------------------------- */

/* A random nrows x ncols matrix: each entry present with probability dens / 100, rows in
 * random order within each column. Values: mode 0 positions, 1 random in [1, 6], 2 random in
 * [-3, 6]. */
static mmx_csc *random_matrix(mmx_ctx *ctx, uint32_t *seed, int nrows, int ncols, int dens, int mode)
{
    mmx_index *colptr = malloc(((size_t)ncols + 1) * sizeof *colptr);
    mmx_index *rowidx = malloc(((size_t)nrows * ncols + 1) * sizeof *rowidx);
    mmx_index *val = malloc(((size_t)nrows * ncols + 1) * sizeof *val);
    cr_assert(colptr && rowidx && val);
    int nnz = 0;
    colptr[0] = 0;
    for (int j = 0; j < ncols; j++) {
        for (int i = 0; i < nrows; i++)
            if ((int)(tu_rng(seed) % 100) < dens) {
                rowidx[nnz] = i;
                val[nnz] = mode == 1 ? 1 + (int)(tu_rng(seed) % 6) : (int)(tu_rng(seed) % 10) - 3;
                nnz++;
            }
        for (int p = colptr[j] + 1; p < nnz; p++) {
            int r = colptr[j] + (int)(tu_rng(seed) % (uint32_t)(p - colptr[j] + 1));
            mmx_index t = rowidx[p];
            rowidx[p] = rowidx[r];
            rowidx[r] = t;
            t = val[p];
            val[p] = val[r];
            val[r] = t;
        }
        colptr[j + 1] = nnz;
    }
    mmx_csc *A = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_csc_create(ctx, nrows, ncols, colptr, rowidx, mode ? val : NULL,
                                       MMX_SPACE_HOST, &A));
    free(colptr);
    free(rowidx);
    free(val);
    return A;
}

/* A random reduced matrix (ncols columns of `order` distinct rows) and the same matrix in the
 * general form (values = positions). */
static void random_reduced(mmx_ctx *ctx, uint32_t *seed, int nrows, int ncols, int order,
                           mmx_csc **red, mmx_csc **gen)
{
    mmx_index *rowidx = malloc(((size_t)order * ncols + 1) * sizeof *rowidx);
    mmx_index *colptr = malloc(((size_t)ncols + 1) * sizeof *colptr);
    mmx_index *perm = malloc(((size_t)nrows + 1) * sizeof *perm);
    cr_assert(rowidx && colptr && perm);
    for (int j = 0; j < ncols; j++) {
        for (int i = 0; i < nrows; i++) perm[i] = i;
        for (int p = 0; p < order; p++) { /* a partial Fisher-Yates shuffle */
            int r = p + (int)(tu_rng(seed) % (uint32_t)(nrows - p));
            mmx_index t = perm[p];
            perm[p] = perm[r];
            perm[r] = t;
            rowidx[(size_t)order * j + p] = perm[p];
        }
    }
    for (int j = 0; j <= ncols; j++) colptr[j] = order * j;
    MMX_OK_OR_FAIL(ctx, mmx_csc_create_reduced(ctx, nrows, ncols, order, rowidx, MMX_SPACE_HOST, red));
    MMX_OK_OR_FAIL(ctx, mmx_csc_create(ctx, nrows, ncols, colptr, rowidx, NULL, MMX_SPACE_HOST, gen));
    free(rowidx);
    free(colptr);
    free(perm);
}

/* ---- the bodies, run on the host (g = NULL) and on a CUDA context ------------------------- */

static void body_random(mmx_ctx *g)
{
    env e = env_open(g, 20240611u);
    static const int dens[] = {5, 20, 50, 90};
    for (int trial = 0; trial < 36; trial++) {
        int nrows = 1 + (int)(tu_rng(&e.seed) % 24), ncols = 1 + (int)(tu_rng(&e.seed) % 24);
        mmx_csc *A = random_matrix(e.h, &e.seed, nrows, ncols, dens[trial % 4], trial % 3);
        all_cases(&e, A, trial % 4 == 0, NULL);
        mmx_csc_free(A);
    }
    env_close(&e);
}

static void body_reduced(mmx_ctx *g)
{
    env e = env_open(g, 777u);
    static const int orders[] = {1, 2, 3, 4, 5, 7, 4, 3};
    for (int trial = 0; trial < 8; trial++) {
        int order = orders[trial];
        int nrows = order + (int)(tu_rng(&e.seed) % 20), ncols = (int)(tu_rng(&e.seed) % 30);
        mmx_csc *R, *G;
        random_reduced(e.h, &e.seed, nrows, ncols, order, &R, &G);
        cr_assert_eq(R->order, order);
        cr_assert_eq(G->order, 0);
        all_cases(&e, R, trial < 2, NULL);
        all_cases(&e, G, 0, NULL);
        /* The host reads both forms in the same entry order: the same bits. */
        spec_dense D = spec_dense_of(G);
        for (int kind = MMX_MAP_VALUE; kind <= MMX_MAP_BY_ENTRY; kind++)
            for (int op = MMX_OP_N; op <= MMX_OP_T; op++) {
                mmx_map map;
                float *tab;
                cr_assert(random_map(&e.seed, &D, 1, (mmx_map_kind)kind, &map, &tab));
                int k = 1 + (kind + op) % 4;
                size_t nx = (size_t)(op == MMX_OP_T ? nrows : ncols) * k;
                size_t ny = (size_t)(op == MMX_OP_T ? ncols : nrows) * k;
                float *x = malloc((nx + 1) * sizeof *x), *yr = malloc((ny + 1) * sizeof *yr),
                      *yg = malloc((ny + 1) * sizeof *yg);
                cr_assert(x && yr && yg);
                for (size_t t = 0; t < nx; t++) x[t] = rng_float(&e.seed, -1, 1);
                for (size_t t = 0; t < ny; t++) yr[t] = yg[t] = rng_float(&e.seed, -1, 1);
                MMX_OK_OR_FAIL(e.h, mmx_spmv(e.h, (mmx_op)op, 1.5f, R, map, x, k, 0.5f, yr));
                MMX_OK_OR_FAIL(e.h, mmx_spmv(e.h, (mmx_op)op, 1.5f, G, map, x, k, 0.5f, yg));
                cr_assert_arr_eq(yr, yg, ny * sizeof *yr, "reduced and general differ: map %s op %d order %d",
                                 kind_name(map.kind), op, order);
                free(x);
                free(yr);
                free(yg);
                free(tab);
            }
        spec_dense_free(&D);
        mmx_csc_free(R);
        mmx_csc_free(G);
    }
    env_close(&e);
}

/* 0 x 0, 0 x n, n x 0: y is beta * y or zeros, and x / y may be NULL where they are empty. */
static void body_empty(mmx_ctx *g)
{
    env e = env_open(g, 31u);
    static const int shapes[][2] = {{0, 0}, {0, 5}, {5, 0}};
    for (int s = 0; s < 3; s++) {
        mmx_csc *A = random_matrix(e.h, &e.seed, shapes[s][0], shapes[s][1], 50, 0);
        cr_assert_eq(A->nnz, 0);
        all_cases(&e, A, 1, NULL);
        /* NULL for the empty side */
        float y[40]; /* y, then x for op = N */
        for (int t = 0; t < 40; t++) y[t] = 1.0f;
        mmx_ctx *ctx = e.h;
        MMX_OK_OR_FAIL(ctx, mmx_spmv(ctx, MMX_OP_T, 1.0f, A, mmx_map_const(1), A->nrows ? y + 20 : NULL, 4,
                                     2.0f, A->ncols ? y : NULL));
        MMX_OK_OR_FAIL(ctx, mmx_spmv(ctx, MMX_OP_N, 1.0f, A, mmx_map_const(1), A->ncols ? y + 20 : NULL, 4,
                                     2.0f, A->nrows ? y : NULL));
        /* op = T: no entries, y = 2 * 1; op = N then doubles the rows again */
        for (int t = 0; t < 4 * A->ncols; t++) cr_assert_eq(y[t], 2.0f);
        if (A->nrows && !A->ncols)
            for (int t = 0; t < 4 * A->nrows; t++) cr_assert_eq(y[t], 2.0f);
        /* a NULL empty table passes where A needs none of it */
        if (!A->nrows) MMX_OK_OR_FAIL(ctx, mmx_spmv(ctx, MMX_OP_T, 1.0f, A, mmx_map_table(MMX_MAP_BY_ROW, NULL, 0),
                                                    NULL, 1, 0.0f, A->ncols ? y : NULL));
        mmx_csc_free(A);
    }
    env_close(&e);
}

/* Empty rows and columns among full ones, one entry alone, one full column. */
static void body_sparse_corners(mmx_ctx *g)
{
    env e = env_open(g, 4242u);
    /* 6 x 5: columns 1 and 3 empty, rows 0 and 4 empty */
    const mmx_index cp[] = {0, 2, 2, 5, 5, 6}, ri[] = {3, 1, 2, 5, 1, 3}, va[] = {2, 1, 3, 1, 2, 1};
    mmx_csc *A = NULL;
    MMX_OK_OR_FAIL(e.h, mmx_csc_create(e.h, 6, 5, cp, ri, va, MMX_SPACE_HOST, &A));
    all_cases(&e, A, 1, NULL);
    mmx_csc_free(A);
    /* a single entry, value 4 (not positional), in a 3 x 4 matrix */
    const mmx_index cp1[] = {0, 0, 0, 1, 1}, ri1[] = {2}, va1[] = {4};
    MMX_OK_OR_FAIL(e.h, mmx_csc_create(e.h, 3, 4, cp1, ri1, va1, MMX_SPACE_HOST, &A));
    all_cases(&e, A, 1, NULL);
    /* by hand: y = 2 * A<value>ᵀ x: only y[2] = 2 * 4 * x[2] */
    float x[3] = {5, 6, 7}, y[4] = {NAN, NAN, NAN, NAN};
    MMX_OK_OR_FAIL(e.h, mmx_spmv(e.h, MMX_OP_T, 2.0f, A, mmx_map_value(), x, 1, 0.0f, y));
    cr_assert_eq(y[0], 0.0f);
    cr_assert_eq(y[1], 0.0f);
    cr_assert_eq(y[2], 56.0f);
    cr_assert_eq(y[3], 0.0f);
    mmx_csc_free(A);
    /* one column holding every row */
    A = random_matrix(e.h, &e.seed, 30, 1, 100, 0);
    cr_assert_eq(A->nnz, 30);
    all_cases(&e, A, 1, NULL);
    mmx_csc_free(A);
    env_close(&e);
}

/* A cone: 360 triangles around an apex, which is in every face. */
static mmx_mesh *cone(mmx_ctx *ctx)
{
    enum { N = 360 };
    mmx_index start[N + 1], verts[3 * N];
    float pos[3 * (N + 1)] = {0, 0, 1};
    for (int f = 0; f < N; f++) {
        start[f] = 3 * f;
        verts[3 * f] = 0;
        verts[3 * f + 1] = 1 + f;
        verts[3 * f + 2] = 1 + (f + 1) % N;
        pos[3 * (f + 1)] = (float)cos(f * 2 * 3.14159265358979 / N);
        pos[3 * (f + 1) + 1] = (float)sin(f * 2 * 3.14159265358979 / N);
    }
    start[N] = 3 * N;
    mmx_mesh *m = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_from_faces(ctx, N + 1, N, start, verts, pos, &m));
    return m;
}

static void body_cone(mmx_ctx *g)
{
    env e = env_open(g, 360u);
    mmx_mesh *m = cone(e.h);
    all_cases(&e, m->M, 0, m->pos);
    /* M·1 is the valence: 360 at the apex, 2 around it (exact in float). */
    float ones[360], val[361];
    for (int f = 0; f < 360; f++) ones[f] = 1.0f;
    MMX_OK_OR_FAIL(e.h, mmx_spmv(e.h, MMX_OP_N, 1.0f, m->M, mmx_map_const(1), ones, 1, 0.0f, val));
    cr_assert_eq(val[0], 360.0f);
    for (int v = 1; v <= 360; v++) cr_assert_eq(val[v], 2.0f);
    MMX_OK_OR_FAIL(e.h, mmx_mesh_reduce(e.h, m));
    cr_assert_eq(m->M->order, 3);
    all_cases(&e, m->M, 0, m->pos);
    mmx_mesh_free(m);
    env_close(&e);
}

/* One face of 360 vertices on the unit circle. */
static void body_big_face(mmx_ctx *g)
{
    env e = env_open(g, 3600u);
    enum { N = 360 };
    mmx_index start[2] = {0, N}, verts[N];
    float pos[3 * N];
    for (int v = 0; v < N; v++) {
        verts[v] = (v * 7) % N; /* not in row order */
        pos[3 * v] = (float)cos(v * 2 * 3.14159265358979 / N);
        pos[3 * v + 1] = (float)sin(v * 2 * 3.14159265358979 / N);
        pos[3 * v + 2] = 0.5f;
    }
    mmx_mesh *m = NULL;
    MMX_OK_OR_FAIL(e.h, mmx_mesh_from_faces(e.h, N, 1, start, verts, pos, &m));
    cr_assert_eq(m->M->maxcol, N);
    all_cases(&e, m->M, 1, m->pos);
    /* The face point (centroid) through a per-order table: (0, 0, 0.5). */
    float w[N + 1], c[3];
    for (int t = 0; t <= N; t++) w[t] = t ? 1.0f / (float)t : NAN;
    MMX_OK_OR_FAIL(e.h, mmx_spmv(e.h, MMX_OP_T, 1.0f, m->M, mmx_map_table(MMX_MAP_BY_ORDER, w, N + 1),
                                 m->pos, 3, 0.0f, c));
    cr_assert_float_eq(c[0], 0.0f, 1e-5);
    cr_assert_float_eq(c[1], 0.0f, 1e-5);
    cr_assert_float_eq(c[2], 0.5f, 1e-5);
    MMX_OK_OR_FAIL(e.h, mmx_mesh_reduce(e.h, m));
    cr_assert_eq(m->M->order, N);
    all_cases(&e, m->M, 1, m->pos);
    mmx_mesh_free(m);
    env_close(&e);
}

/* A mesh in shuffled vertex and face order computes the same products, permuted: the face
 * points of new face f are those of old face fperm[f], bit for bit (same terms, same order). */
static void body_shuffled(mmx_ctx *g)
{
    env e = env_open(g, 99u);
    mmx_mesh *m = NULL, *s = NULL;
    MMX_OK_OR_FAIL(e.h, mmx_mesh_shape(e.h, "torus:12:10", &m));
    mmx_index *start, *verts;
    MMX_OK_OR_FAIL(e.h, mmx_mesh_faces(e.h, m, &start, &verts));
    int nv = m->M->nrows, nf = m->M->ncols;
    mmx_index *vperm = malloc(nv * sizeof *vperm), *vinv = malloc(nv * sizeof *vinv);
    mmx_index *fperm = malloc(nf * sizeof *fperm), *nstart = malloc((nf + 1) * sizeof *nstart);
    mmx_index *nverts = malloc(start[nf] * sizeof *nverts);
    float *npos = malloc(3 * nv * sizeof *npos);
    cr_assert(vperm && vinv && fperm && nstart && nverts && npos);
    for (int v = 0; v < nv; v++) vperm[v] = v;
    for (int f = 0; f < nf; f++) fperm[f] = f;
    for (int t = nv - 1; t > 0; t--) {
        int r = (int)(tu_rng(&e.seed) % (uint32_t)(t + 1));
        mmx_index q = vperm[t];
        vperm[t] = vperm[r];
        vperm[r] = q;
    }
    for (int t = nf - 1; t > 0; t--) {
        int r = (int)(tu_rng(&e.seed) % (uint32_t)(t + 1));
        mmx_index q = fperm[t];
        fperm[t] = fperm[r];
        fperm[r] = q;
    }
    for (int v = 0; v < nv; v++) {
        vinv[vperm[v]] = v;
        memcpy(npos + 3 * v, m->pos + 3 * vperm[v], 3 * sizeof *npos);
    }
    nstart[0] = 0;
    for (int f = 0; f < nf; f++) { /* new face f is old face fperm[f], same cyclic order */
        int a = start[fperm[f]], b = start[fperm[f] + 1];
        nstart[f + 1] = nstart[f] + (b - a);
        for (int p = a; p < b; p++) nverts[nstart[f] + p - a] = vinv[verts[p]];
    }
    MMX_OK_OR_FAIL(e.h, mmx_mesh_from_faces(e.h, nv, nf, nstart, nverts, npos, &s));
    float *fo = malloc(3 * nf * sizeof *fo), *fs = malloc(3 * nf * sizeof *fs);
    float *vo = malloc(3 * nv * sizeof *vo), *vs = malloc(3 * nv * sizeof *vs);
    cr_assert(fo && fs && vo && vs);
    MMX_OK_OR_FAIL(e.h, mmx_spmv(e.h, MMX_OP_T, 1.0f, m->M, mmx_map_const(0.25f), m->pos, 3, 0.0f, fo));
    MMX_OK_OR_FAIL(e.h, mmx_spmv(e.h, MMX_OP_T, 1.0f, s->M, mmx_map_const(0.25f), s->pos, 3, 0.0f, fs));
    for (int f = 0; f < nf; f++)
        for (int q = 0; q < 3; q++) cr_assert_eq(fs[3 * f + q], fo[3 * fperm[f] + q], "face %d", f);
    /* The faces' points summed into the vertices: same sums, in another order. */
    float *fsn = malloc(3 * nf * sizeof *fsn);
    cr_assert(fsn);
    for (int f = 0; f < nf; f++) memcpy(fsn + 3 * f, fo + 3 * fperm[f], 3 * sizeof *fsn);
    MMX_OK_OR_FAIL(e.h, mmx_spmv(e.h, MMX_OP_N, 1.0f, m->M, mmx_map_const(1), fo, 3, 0.0f, vo));
    MMX_OK_OR_FAIL(e.h, mmx_spmv(e.h, MMX_OP_N, 1.0f, s->M, mmx_map_const(1), fsn, 3, 0.0f, vs));
    for (int v = 0; v < nv; v++)
        for (int q = 0; q < 3; q++)
            cr_assert_float_eq(vs[3 * v + q], vo[3 * vperm[v] + q], 1e-5, "vertex %d", v);
    all_cases(&e, s->M, 0, s->pos);
    MMX_OK_OR_FAIL(e.h, mmx_mesh_reduce(e.h, s));
    all_cases(&e, s->M, 0, s->pos);
    free(start);
    free(verts);
    free(vperm);
    free(vinv);
    free(fperm);
    free(nstart);
    free(nverts);
    free(npos);
    free(fo);
    free(fs);
    free(vo);
    free(vs);
    free(fsn);
    mmx_mesh_free(m);
    mmx_mesh_free(s);
    env_close(&e);
}

/* The built-in shapes, general and (where uniform) reduced, with positions as x. */
static void body_shapes(mmx_ctx *g)
{
    env e = env_open(g, 5150u);
    static const char *specs[] = {"torus:40:30", "icosphere:3", "mixed", "grid:12:10", "cube"};
    for (int s = 0; s < 5; s++) {
        mmx_mesh *m = NULL;
        MMX_OK_OR_FAIL(e.h, mmx_mesh_shape(e.h, specs[s], &m));
        all_cases(&e, m->M, 0, m->pos);
        mmx_index c = 0;
        MMX_OK_OR_FAIL(e.h, mmx_mesh_uniform_order(e.h, m, &c));
        cr_assert_eq(c != 0, strcmp(specs[s], "mixed") != 0, "%s: uniform order %d", specs[s], c);
        if (c) {
            MMX_OK_OR_FAIL(e.h, mmx_mesh_reduce(e.h, m));
            all_cases(&e, m->M, 0, m->pos);
        }
        mmx_mesh_free(m);
    }
    env_close(&e);
}

/* ---- host tests --------------------------------------------------------------------------- */

Test(spmv, random_matrices_and_maps_match_the_spec) { body_random(NULL); }
Test(spmv, reduced_form_equals_its_general_form) { body_reduced(NULL); }
Test(spmv, empty_shapes) { body_empty(NULL); }
Test(spmv, empty_rows_and_columns_and_a_single_entry) { body_sparse_corners(NULL); }
Test(spmv, a_360_valent_vertex) { body_cone(NULL); }
Test(spmv, a_360_order_face) { body_big_face(NULL); }
Test(spmv, shuffled_mesh_gives_permuted_results) { body_shuffled(NULL); }
Test(spmv, builtin_shapes) { body_shapes(NULL); }

Test(spmv, face_points_of_a_cube_by_hand)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_shape(ctx, "cube", &m));
    MMX_OK_OR_FAIL(ctx, mmx_mesh_reduce(ctx, m));
    float fp[18], w[] = {0.25f, 0.25f, 0.25f, 0.25f};
    MMX_OK_OR_FAIL(ctx, mmx_spmv(ctx, MMX_OP_T, 1.0f, m->M, mmx_map_table(MMX_MAP_BY_VALUE, w, 4),
                                 m->pos, 3, 0.0f, fp));
    /* each face point is the centre of a face: two coordinates at the cube's centre, one on a
     * side, and the six are distinct */
    float lo[3], hi[3];
    for (int q = 0; q < 3; q++) lo[q] = hi[q] = m->pos[q];
    for (int v = 0; v < 8; v++)
        for (int q = 0; q < 3; q++) {
            lo[q] = fminf(lo[q], m->pos[3 * v + q]);
            hi[q] = fmaxf(hi[q], m->pos[3 * v + q]);
        }
    for (int f = 0; f < 6; f++) {
        int on_side = 0, centred = 0;
        for (int q = 0; q < 3; q++) {
            float c = 0.5f * (lo[q] + hi[q]);
            if (fabsf(fp[3 * f + q] - c) < 1e-6f) centred++;
            else if (fabsf(fp[3 * f + q] - lo[q]) < 1e-6f || fabsf(fp[3 * f + q] - hi[q]) < 1e-6f) on_side++;
        }
        cr_assert(centred == 2 && on_side == 1, "face %d: (%g, %g, %g)", f, fp[3 * f], fp[3 * f + 1], fp[3 * f + 2]);
    }
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* A float matrix as a pattern plus a weights table looked up by entry: the 3 x 3 symmetric
 * [[4, -1, 0], [-1, 4, -2], [0, -2, 5]], columns stored with rows out of order, so that the
 * table follows the storage and not the rows. A·x and Aᵀ·x are exact here (small integers). */
Test(spmv, weights_by_entry_make_a_float_matrix)
{
    mmx_ctx *ctx = tu_host_ctx();
    const mmx_index cp[] = {0, 2, 5, 7}, ri[] = {1, 0, 2, 0, 1, 1, 2};
    const float w[] = {-1, 4, -2, -1, 4, -2, 5};
    mmx_csc *A = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_csc_create(ctx, 3, 3, cp, ri, NULL, MMX_SPACE_HOST, &A));
    const mmx_map m = mmx_map_table(MMX_MAP_BY_ENTRY, w, 7);
    const float x[] = {1, 2, 3}, want[] = {2, 1, 11};
    for (int op = MMX_OP_N; op <= MMX_OP_T; op++) {
        float y[3] = {NAN, NAN, NAN};
        MMX_OK_OR_FAIL(ctx, mmx_spmv(ctx, (mmx_op)op, 1.0f, A, m, x, 1, 0.0f, y));
        for (int i = 0; i < 3; i++) cr_assert_eq(y[i], want[i], "op %d, y[%d] = %g", op, i, y[i]);
    }
    mmx_csc_free(A);
    mmx_ctx_free(ctx);
}

/* A refusal: the status, the detail naming the problem, and y left as it was. */
static void expect_refusal(mmx_ctx *ctx, mmx_status got, mmx_status want, const char *const *words,
                           const float *y, int ny, const char *what)
{
    cr_assert_eq(got, want, "%s: got %s (%s)", what, mmx_status_str(got), mmx_ctx_error(ctx));
    for (int w = 0; words[w]; w++)
        cr_assert(strstr(mmx_ctx_error(ctx), words[w]), "%s: the detail \"%s\" does not mention \"%s\"",
                  what, mmx_ctx_error(ctx), words[w]);
    for (int t = 0; t < ny; t++) cr_assert_eq(y[t], -7.0f, "%s: y[%d] was written", what, t);
}

#define REFUSE(ctx, call, want, y, ny, ...)                                                   \
    do {                                                                                      \
        const char *const w_[] = {__VA_ARGS__, NULL};                                         \
        expect_refusal((ctx), (call), (want), w_, (y), (ny), #call);                          \
    } while (0)

/* The refusals of mmx_spmv, on a context of either backend; A is there too. The matrix:
 * 4 x 3, values {2, 0, 5} (min 0, max 5), longest column 2, not positional; P is the same
 * pattern with positions. */
static void refusals(mmx_ctx *ctx)
{
    const mmx_index cp[] = {0, 2, 3, 4}, ri[] = {0, 3, 1, 2}, va[] = {2, 1, 0, 5};
    mmx_csc *hA = NULL, *hP = NULL, *A = NULL, *P = NULL;
    mmx_ctx *h = tu_host_ctx();
    MMX_OK_OR_FAIL(h, mmx_csc_create(h, 4, 3, cp, ri, va, MMX_SPACE_HOST, &hA));
    MMX_OK_OR_FAIL(h, mmx_csc_create(h, 4, 3, cp, ri, NULL, MMX_SPACE_HOST, &hP));
    MMX_OK_OR_FAIL(ctx, mmx_csc_copy(ctx, hA, mmx_ctx_space(ctx), &A));
    MMX_OK_OR_FAIL(ctx, mmx_csc_copy(ctx, hP, mmx_ctx_space(ctx), &P));
    mmx_space sp = mmx_ctx_space(ctx);
    /* x (4 x 4 floats for op = T), y (3 x 4) and a table of 16, where the context works */
    float hx[16], hy[16], ht[16];
    for (int t = 0; t < 16; t++) hx[t] = 1.0f, hy[t] = -7.0f, ht[t] = 0.5f;
    float *x = hx, *y = hy, *t = ht;
    if (sp == MMX_SPACE_DEVICE) {
        MMX_OK_OR_FAIL(ctx, mmx_mem_alloc(ctx, sp, 48 * sizeof(float), (void **)&x));
        y = x + 16;
        t = x + 32;
        MMX_OK_OR_FAIL(ctx, mmx_mem_copy(ctx, x, sp, hx, MMX_SPACE_HOST, sizeof hx));
        MMX_OK_OR_FAIL(ctx, mmx_mem_copy(ctx, y, sp, hy, MMX_SPACE_HOST, sizeof hy));
        MMX_OK_OR_FAIL(ctx, mmx_mem_copy(ctx, t, sp, ht, MMX_SPACE_HOST, sizeof ht));
    }
    /* y is checked on the host side after each refusal */
    float yc[16];
#define YBACK() (mmx_mem_copy(ctx, yc, MMX_SPACE_HOST, y, sp, sizeof yc), yc)
    const mmx_map one = mmx_map_const(1);

    cr_assert_eq(mmx_spmv(NULL, MMX_OP_T, 1, A, one, x, 4, 0, y), MMX_ERR_ARG);
    REFUSE(ctx, mmx_spmv(ctx, MMX_OP_T, 1, NULL, one, x, 4, 0, y), MMX_ERR_ARG, YBACK(), 12, "A is NULL");
    REFUSE(ctx, mmx_spmv(ctx, (mmx_op)7, 1, A, one, x, 4, 0, y), MMX_ERR_ARG, YBACK(), 12, "op 7");
    REFUSE(ctx, mmx_spmv(ctx, MMX_OP_T, 1, A, one, x, 0, 0, y), MMX_ERR_ARG, YBACK(), 12, "k = 0");
    REFUSE(ctx, mmx_spmv(ctx, MMX_OP_T, 1, A, one, x, 5, 0, y), MMX_ERR_ARG, YBACK(), 12, "k = 5");
    REFUSE(ctx, mmx_spmv(ctx, MMX_OP_T, 1, A, one, NULL, 4, 0, y), MMX_ERR_ARG, YBACK(), 12, "x is NULL", "16");
    REFUSE(ctx, mmx_spmv(ctx, MMX_OP_N, 1, A, one, x, 4, 0, NULL), MMX_ERR_ARG, YBACK(), 12, "y is NULL", "16");
    REFUSE(ctx, mmx_spmv(ctx, MMX_OP_T, 1, A, one, y + 4, 4, 0, y), MMX_ERR_ARG, YBACK(), 0, "overlap");
    mmx_map bad = one;
    bad.kind = (mmx_map_kind)9;
    REFUSE(ctx, mmx_spmv(ctx, MMX_OP_T, 1, A, bad, x, 4, 0, y), MMX_ERR_ARG, YBACK(), 12, "unknown map kind 9");
    REFUSE(ctx, mmx_spmv(ctx, MMX_OP_T, 1, A, mmx_map_table(MMX_MAP_BY_ROW, NULL, 4), x, 4, 0, y),
           MMX_ERR_ARG, YBACK(), 12, "MMX_MAP_BY_ROW", "NULL table");
    REFUSE(ctx, mmx_spmv(ctx, MMX_OP_T, 1, A, mmx_map_table(MMX_MAP_BY_COL, t, -1), x, 4, 0, y),
           MMX_ERR_ARG, YBACK(), 12, "MMX_MAP_BY_COL", "negative");
    REFUSE(ctx, mmx_spmv(ctx, MMX_OP_T, 1, A, mmx_map_table(MMX_MAP_BY_VALUE, t, 16), x, 4, 0, y),
           MMX_ERR_ARG, YBACK(), 12, "MMX_MAP_BY_VALUE", "value 0 < 1", "given len 16");
    /* P's values are 1..2: BY_VALUE needs 2 */
    REFUSE(ctx, mmx_spmv(ctx, MMX_OP_T, 1, P, mmx_map_table(MMX_MAP_BY_VALUE, t, 1), x, 4, 0, y),
           MMX_ERR_ARG, YBACK(), 12, "MMX_MAP_BY_VALUE", "at least 2", "given len 1");
    REFUSE(ctx, mmx_spmv(ctx, MMX_OP_T, 1, A, mmx_map_table(MMX_MAP_BY_ROW, t, 3), x, 4, 0, y),
           MMX_ERR_ARG, YBACK(), 12, "MMX_MAP_BY_ROW", "at least 4", "given len 3");
    REFUSE(ctx, mmx_spmv(ctx, MMX_OP_T, 1, A, mmx_map_table(MMX_MAP_BY_COL, t, 2), x, 4, 0, y),
           MMX_ERR_ARG, YBACK(), 12, "MMX_MAP_BY_COL", "at least 3", "given len 2");
    REFUSE(ctx, mmx_spmv(ctx, MMX_OP_T, 1, A, mmx_map_table(MMX_MAP_BY_ORDER, t, 2), x, 4, 0, y),
           MMX_ERR_ARG, YBACK(), 12, "MMX_MAP_BY_ORDER", "at least 3", "given len 2");
    REFUSE(ctx, mmx_spmv(ctx, MMX_OP_T, 1, A, mmx_map_table(MMX_MAP_BY_ORDER_VALUE, t, 16), x, 4, 0, y),
           MMX_ERR_ARG, YBACK(), 12, "MMX_MAP_BY_ORDER_VALUE", "positional", "given len 16");
    REFUSE(ctx, mmx_spmv(ctx, MMX_OP_T, 1, P, mmx_map_table(MMX_MAP_BY_ORDER_VALUE, t, 2), x, 4, 0, y),
           MMX_ERR_ARG, YBACK(), 12, "MMX_MAP_BY_ORDER_VALUE", "at least 3", "given len 2");
    REFUSE(ctx, mmx_spmv(ctx, MMX_OP_N, 1, A, mmx_map_table(MMX_MAP_BY_ENTRY, t, 3), x, 4, 0, y),
           MMX_ERR_ARG, YBACK(), 16, "MMX_MAP_BY_ENTRY", "at least 4", "per stored entry", "given len 3");
    REFUSE(ctx, mmx_spmv(ctx, MMX_OP_T, 1, A, mmx_map_table(MMX_MAP_BY_ENTRY, NULL, 4), x, 4, 0, y),
           MMX_ERR_ARG, YBACK(), 12, "MMX_MAP_BY_ENTRY", "NULL table");
    REFUSE(ctx, mmx__spmv_variant_run(ctx, (mmx__spmv_variant)9, MMX_OP_T, 1, A, one, x, 4, 0, y),
           MMX_ERR_ARG, YBACK(), 12, "variant 9");
    REFUSE(ctx, mmx_spmv(ctx, MMX_OP_T, 1, A, mmx_map_table(MMX_MAP_BY_ROW, y + 8, 4), x, 4, 0, y),
           MMX_ERR_ARG, YBACK(), 12, "table overlaps y");
    /* hand-made structs that cannot be a matrix */
    mmx_csc broken = *A;
    broken.nnz = -1;
    REFUSE(ctx, mmx_spmv(ctx, MMX_OP_T, 1, &broken, one, x, 4, 0, y), MMX_ERR_ARG, YBACK(), 12, "bad size");
    broken = *A;
    broken.colptr = NULL;
    REFUSE(ctx, mmx_spmv(ctx, MMX_OP_T, 1, &broken, one, x, 4, 0, y), MMX_ERR_ARG, YBACK(), 12, "missing an array");
    /* a matrix in the other space */
    mmx_csc other = *A;
    other.space = sp == MMX_SPACE_HOST ? MMX_SPACE_DEVICE : MMX_SPACE_HOST;
    REFUSE(ctx, mmx_spmv(ctx, MMX_OP_T, 1, &other, one, x, 4, 0, y), MMX_ERR_SPACE, YBACK(), 12,
           sp == MMX_SPACE_HOST ? "device memory" : "host memory");
    /* ... and the tables of exactly the needed length pass */
    MMX_OK_OR_FAIL(ctx, mmx_spmv(ctx, MMX_OP_T, 1, P, mmx_map_table(MMX_MAP_BY_VALUE, t, 2), x, 4, 0, y));
    MMX_OK_OR_FAIL(ctx, mmx_spmv(ctx, MMX_OP_T, 1, A, mmx_map_table(MMX_MAP_BY_ROW, t, 4), x, 4, 0, y));
    MMX_OK_OR_FAIL(ctx, mmx_spmv(ctx, MMX_OP_T, 1, A, mmx_map_table(MMX_MAP_BY_COL, t, 3), x, 4, 0, y));
    MMX_OK_OR_FAIL(ctx, mmx_spmv(ctx, MMX_OP_T, 1, A, mmx_map_table(MMX_MAP_BY_ORDER, t, 3), x, 4, 0, y));
    MMX_OK_OR_FAIL(ctx, mmx_spmv(ctx, MMX_OP_T, 1, P, mmx_map_table(MMX_MAP_BY_ORDER_VALUE, t, 3), x, 4, 0, y));
    MMX_OK_OR_FAIL(ctx, mmx_spmv(ctx, MMX_OP_T, 1, A, mmx_map_table(MMX_MAP_BY_ENTRY, t, 4), x, 4, 0, y));
    /* all tables 0.5, x all 1, beta 0: y[j] = 0.5 * (entries of column j) */
    YBACK();
    for (int q = 0; q < 4; q++) {
        cr_assert_eq(yc[q], 1.0f);
        cr_assert_eq(yc[4 + q], 0.5f);
        cr_assert_eq(yc[8 + q], 0.5f);
    }
#undef YBACK
    if (sp == MMX_SPACE_DEVICE) mmx_mem_free(ctx, sp, x);
    mmx_csc_free(A);
    mmx_csc_free(P);
    mmx_csc_free(hA);
    mmx_csc_free(hP);
    mmx_ctx_free(h);
}

Test(spmv, refusals_name_the_problem)
{
    mmx_ctx *ctx = tu_host_ctx();
    refusals(ctx);
    mmx_ctx_free(ctx);
}

/* ---- GPU tests: the same cases on a CUDA context, against the host ------------------------- */

Test(spmv, gpu_random_matrices_and_maps) { body_random(tu_cuda_ctx_or_skip()); }
Test(spmv, gpu_reduced_and_general_forms) { body_reduced(tu_cuda_ctx_or_skip()); }
Test(spmv, gpu_empty_shapes) { body_empty(tu_cuda_ctx_or_skip()); }
Test(spmv, gpu_empty_rows_and_columns_and_a_single_entry) { body_sparse_corners(tu_cuda_ctx_or_skip()); }
Test(spmv, gpu_a_360_valent_vertex) { body_cone(tu_cuda_ctx_or_skip()); }
Test(spmv, gpu_a_360_order_face) { body_big_face(tu_cuda_ctx_or_skip()); }
Test(spmv, gpu_shuffled_mesh) { body_shuffled(tu_cuda_ctx_or_skip()); }
Test(spmv, gpu_builtin_shapes) { body_shapes(tu_cuda_ctx_or_skip()); }

Test(spmv, gpu_refusals_name_the_problem)
{
    mmx_ctx *g = tu_cuda_ctx_or_skip();
    refusals(g);
    mmx_ctx_free(g);
}

/* Reduced quads whose row indices are not 16-byte aligned (a hand-made view one column in)
 * take the plain reduced loop instead of the int4 load, with the same result. */
Test(spmv, gpu_unaligned_reduced_quads)
{
    mmx_ctx *g = tu_cuda_ctx_or_skip();
    env e = env_open(g, 1616u);
    mmx_mesh *m = NULL;
    MMX_OK_OR_FAIL(e.h, mmx_mesh_shape(e.h, "torus:20:16", &m));
    MMX_OK_OR_FAIL(e.h, mmx_mesh_reduce(e.h, m));
    const mmx_csc *M = m->M;
    /* host view of columns 1.. (aligned or not does not matter there) */
    mmx_csc hv = *M;
    hv.ncols = M->ncols - 1;
    hv.nnz = 4 * hv.ncols;
    hv.rowidx = M->rowidx + 4;
    /* the device view: the same rows copied one index past a 16-byte boundary */
    mmx_index *d = NULL;
    MMX_OK_OR_FAIL(g, mmx_mem_alloc(g, MMX_SPACE_DEVICE, (size_t)(hv.nnz + 1) * sizeof *d, (void **)&d));
    MMX_OK_OR_FAIL(g, mmx_mem_copy(g, d + 1, MMX_SPACE_DEVICE, hv.rowidx, MMX_SPACE_HOST, (size_t)hv.nnz * sizeof *d));
    mmx_csc dv = hv;
    dv.rowidx = d + 1;
    dv.space = MMX_SPACE_DEVICE;
    spec_dense D = spec_dense_of(&hv);
    for (int k = 1; k <= 4; k++)
        for (int op = MMX_OP_N; op <= MMX_OP_T; op++)
            run_case(&e, &hv, &dv, &D, mmx_map_const(0.25f), (mmx_op)op, k, 1.0f, 0.5f, NULL);
    spec_dense_free(&D);
    mmx_mem_free(g, MMX_SPACE_DEVICE, d);
    mmx_mesh_free(m);
    env_close(&e);
}

/* op = N on CUDA reads A through a row view kept with A: the first call builds it, later calls
 * reuse it, mmx_csc_release_cache drops it and the next call builds it again, and a context
 * other than A's makes its own within the call. Every one of these gives the host's bytes, on
 * a mesh of valences 5 and 6 (an icosphere), in general form and reduced. */
Test(spmv, gpu_op_n_row_view_kept_released_and_borrowed)
{
    mmx_ctx *g = tu_cuda_ctx_or_skip();
    mmx_ctx *h = tu_host_ctx(), *g2 = tu_cuda_ctx_or_skip();
    mmx_mesh *m = NULL;
    MMX_OK_OR_FAIL(h, mmx_mesh_shape(h, "icosphere:4", &m));
    for (int reduced = 0; reduced < 2; reduced++) {
        if (reduced) MMX_OK_OR_FAIL(h, mmx_mesh_reduce(h, m));
        const mmx_csc *M = m->M;
        mmx_csc *dM = NULL;
        MMX_OK_OR_FAIL(g, mmx_csc_copy(g, M, MMX_SPACE_DEVICE, &dM));
        const size_t nx = 3 * (size_t)M->ncols, ny = 3 * (size_t)M->nrows;
        float *x = malloc(nx * sizeof *x), *yh = malloc(ny * sizeof *yh), *yd = malloc(ny * sizeof *yd);
        cr_assert(x && yh && yd);
        uint32_t seed = 77u;
        for (size_t t = 0; t < nx; t++) x[t] = rng_float(&seed, -1, 1);
        MMX_OK_OR_FAIL(h, mmx_spmv(h, MMX_OP_N, 0.7f, M, mmx_map_value(), x, 3, 0.0f, yh));
        float *dx = NULL, *dy = NULL;
        MMX_OK_OR_FAIL(g, mmx_mem_alloc(g, MMX_SPACE_DEVICE, nx * sizeof *dx, (void **)&dx));
        MMX_OK_OR_FAIL(g, mmx_mem_alloc(g, MMX_SPACE_DEVICE, ny * sizeof *dy, (void **)&dy));
        MMX_OK_OR_FAIL(g, mmx_mem_copy(g, dx, MMX_SPACE_DEVICE, x, MMX_SPACE_HOST, nx * sizeof *x));
        for (int run = 0; run < 5; run++) {
            mmx_ctx *c = run == 4 ? g2 : g;
            if (run == 2) mmx_csc_release_cache(dM);
            if (run == 4) MMX_OK_OR_FAIL(g, mmx_ctx_sync(g)); /* g2 reads what g wrote */
            MMX_OK_OR_FAIL(c, mmx_spmv(c, MMX_OP_N, 0.7f, dM, mmx_map_value(), dx, 3, 0.0f, dy));
            cr_assert(run == 4 || dM->cache->has_rows, "run %d: the row view is kept with A", run);
            MMX_OK_OR_FAIL(c, mmx_mem_copy(c, yd, MMX_SPACE_HOST, dy, MMX_SPACE_DEVICE, ny * sizeof *yd));
            cr_assert(memcmp(yd, yh, ny * sizeof *yd) == 0,
                      "run %d (%s form): CUDA op N differs from the host's bytes", run,
                      reduced ? "reduced" : "general");
        }
        mmx_csc_release_cache(dM);
        cr_assert(!dM->cache->has_rows);
        mmx_csc_release_cache(dM); /* twice is harmless */
        mmx_mem_free(g, MMX_SPACE_DEVICE, dx);
        mmx_mem_free(g, MMX_SPACE_DEVICE, dy);
        mmx_csc_free(dM);
        free(x);
        free(yh);
        free(yd);
    }
    mmx_csc_release_cache(NULL);
    mmx_mesh_free(m);
    mmx_ctx_free(g2);
    mmx_ctx_free(g);
    mmx_ctx_free(h);
}

/* A device mesh's matrix gives the host's bytes in op N in its general form, reduced in place
 * (with a view made of the reduced form), then expanded in place after that product: the
 * general form's kernel reads the view's columns, which a view of the reduced form lacks, so
 * the view is made again. */
Test(spmv, gpu_op_n_after_reduce_and_expand_in_place)
{
    mmx_ctx *g = tu_cuda_ctx_or_skip();
    mmx_ctx *h = tu_host_ctx();
    mmx_mesh *m = NULL, *dm = NULL;
    MMX_OK_OR_FAIL(h, mmx_mesh_shape(h, "torus:30:20", &m));
    MMX_OK_OR_FAIL(g, mmx_mesh_copy(g, m, MMX_SPACE_DEVICE, &dm));
    const mmx_csc *M = m->M;
    const size_t nx = (size_t)M->ncols, ny = (size_t)M->nrows;
    float *x = malloc(nx * sizeof *x), *yh = malloc(ny * sizeof *yh), *yd = malloc(ny * sizeof *yd);
    cr_assert(x && yh && yd);
    uint32_t seed = 5u;
    for (size_t t = 0; t < nx; t++) x[t] = rng_float(&seed, -1, 1);
    MMX_OK_OR_FAIL(h, mmx_spmv(h, MMX_OP_N, 1.0f, M, mmx_map_value(), x, 1, 0.0f, yh));
    float *dx = NULL, *dy = NULL;
    MMX_OK_OR_FAIL(g, mmx_mem_alloc(g, MMX_SPACE_DEVICE, nx * sizeof *dx, (void **)&dx));
    MMX_OK_OR_FAIL(g, mmx_mem_alloc(g, MMX_SPACE_DEVICE, ny * sizeof *dy, (void **)&dy));
    MMX_OK_OR_FAIL(g, mmx_mem_copy(g, dx, MMX_SPACE_DEVICE, x, MMX_SPACE_HOST, nx * sizeof *x));
    static const char *step[] = {"general", "reduced in place", "expanded in place"};
    for (int k = 0; k < 3; k++) {
        if (k == 1) {
            MMX_OK_OR_FAIL(g, mmx_mesh_reduce(g, dm));
            mmx_csc_release_cache(dm->M); /* the next view is made of the reduced form */
        }
        if (k == 2) MMX_OK_OR_FAIL(g, mmx_mesh_expand(g, dm));
        cr_assert_eq(dm->M->order, k == 1 ? 4 : 0);
        MMX_OK_OR_FAIL(g, mmx_spmv(g, MMX_OP_N, 1.0f, dm->M, mmx_map_value(), dx, 1, 0.0f, dy));
        MMX_OK_OR_FAIL(g, mmx_mem_copy(g, yd, MMX_SPACE_HOST, dy, MMX_SPACE_DEVICE, ny * sizeof *yd));
        cr_assert(memcmp(yd, yh, ny * sizeof *yd) == 0, "%s: CUDA op N differs from the host's bytes", step[k]);
    }
    mmx_mem_free(g, MMX_SPACE_DEVICE, dx);
    mmx_mem_free(g, MMX_SPACE_DEVICE, dy);
    mmx_mesh_free(dm);
    mmx_mesh_free(m);
    free(x);
    free(yh);
    free(yd);
    mmx_ctx_free(g);
    mmx_ctx_free(h);
}
