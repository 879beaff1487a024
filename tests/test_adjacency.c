/* Criterion suite "adjacency": the implicit mesh product M <map> Mᵀ against the dense statement
 * of it (tests/spec) on random polygon meshes (every relation, collision function and monoid), and the
 * adjacency (E, F, edge numbering, FE, EV, valence, boundary) against closed forms on the
 * built-in shapes, against mmx_mesh_stats_compute, against the face lists it came from, and
 * under renumbering; then the CUDA backend against the host, exactly. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#include "spec/spec.h"

/* ---- helpers: random numbers, face lists, meshes ----------------------------------------- */

static uint64_t rng_next(uint64_t *s)
{
    /* splitmix64 */
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static mmx_index rng_below(uint64_t *s, mmx_index n) { return (mmx_index)(rng_next(s) % (uint64_t)n); }

/* Face lists: face f is verts[start[f] .. start[f+1]). */
typedef struct faces {
    mmx_index nv, nf;
    mmx_index *start, *verts;
} faces;

static faces fl_alloc(mmx_index nv, mmx_index nf, mmx_index nnz)
{
    faces f = {nv, nf, malloc(((size_t)nf + 1) * sizeof(mmx_index)), malloc(((size_t)nnz + 1) * sizeof(mmx_index))};
    cr_assert(f.start && f.verts);
    f.start[0] = 0;
    return f;
}

static void fl_free(faces *f)
{
    free(f->start);
    free(f->verts);
}

/* nf faces of orders omin..omax on nv vertices, each with distinct random vertices. Small nv
 * makes faces share vertex pairs often: duplicates for the monoids, non-manifold edges. */
static faces random_faces(uint64_t seed, mmx_index nv, mmx_index nf, mmx_index omin, mmx_index omax)
{
    uint64_t s = seed;
    faces f = fl_alloc(nv, nf, nf * omax);
    for (mmx_index k = 0; k < nf; k++) {
        mmx_index n = omin + rng_below(&s, omax - omin + 1), at = f.start[k];
        for (mmx_index t = 0; t < n; t++) {
            mmx_index v;
            int again;
            do {
                v = rng_below(&s, nv);
                again = 0;
                for (mmx_index u = 0; u < t; u++) again |= f.verts[at + u] == v;
            } while (again);
            f.verts[at + t] = v;
        }
        f.start[k + 1] = at + n;
    }
    return f;
}

static mmx_mesh *mesh_of(mmx_ctx *ctx, const faces *f)
{
    mmx_mesh *m = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_from_faces(ctx, f->nv, f->nf, f->start, f->verts, NULL, &m));
    return m;
}

static faces faces_of(mmx_ctx *ctx, const mmx_mesh *m)
{
    faces f = {m->M->nrows, m->M->ncols, NULL, NULL};
    MMX_OK_OR_FAIL(ctx, mmx_mesh_faces(ctx, m, &f.start, &f.verts));
    return f;
}

/* The faces renumbered: new vertex v is old vperm[v], new face f is old fperm[f], each face's
 * cycle started at a random corner (same orientation). vperm / fperm are returned. */
static faces shuffled(const faces *f, uint64_t seed, mmx_index **vperm_out)
{
    uint64_t s = seed;
    mmx_index *vperm = malloc(((size_t)f->nv + 1) * sizeof *vperm), *inv = malloc(((size_t)f->nv + 1) * sizeof *inv);
    mmx_index *fperm = malloc(((size_t)f->nf + 1) * sizeof *fperm);
    cr_assert(vperm && inv && fperm);
    for (mmx_index v = 0; v < f->nv; v++) vperm[v] = v;
    for (mmx_index v = f->nv - 1; v > 0; v--) {
        mmx_index r = rng_below(&s, v + 1), t = vperm[v];
        vperm[v] = vperm[r], vperm[r] = t;
    }
    for (mmx_index v = 0; v < f->nv; v++) inv[vperm[v]] = v;
    for (mmx_index k = 0; k < f->nf; k++) fperm[k] = k;
    for (mmx_index k = f->nf - 1; k > 0; k--) {
        mmx_index r = rng_below(&s, k + 1), t = fperm[k];
        fperm[k] = fperm[r], fperm[r] = t;
    }
    faces g = fl_alloc(f->nv, f->nf, f->start[f->nf]);
    for (mmx_index k = 0; k < f->nf; k++) {
        mmx_index o = fperm[k], a = f->start[o], n = f->start[o + 1] - a, rot = rng_below(&s, n);
        for (mmx_index t = 0; t < n; t++) g.verts[g.start[k] + t] = inv[f->verts[a + (t + rot) % n]];
        g.start[k + 1] = g.start[k] + n;
    }
    free(inv);
    free(fperm);
    *vperm_out = vperm;
    return g;
}

/* ---- comparisons ------------------------------------------------------------------------- */

/* The cached properties of a host matrix, against those recomputed from its arrays. */
static void check_props(const mmx_csc *C, const char *what)
{
    spec_props p = spec_props_of(C);
    cr_assert_eq(C->maxcol, p.maxcol, "%s: maxcol %d, expected %d", what, C->maxcol, p.maxcol);
    cr_assert_eq(C->minval, p.minval, "%s: minval %d, expected %d", what, C->minval, p.minval);
    cr_assert_eq(C->maxval, p.maxval, "%s: maxval %d, expected %d", what, C->maxval, p.maxval);
    cr_assert_eq(C->positional, p.positional, "%s: positional %d, expected %d", what, C->positional,
                 p.positional);
}

/* C (host, from mmx_mesh_product) is the dense D: same entries, rows ascending, same values. */
static void check_against_spec(const mmx_csc *C, const spec_dense *D, const char *what)
{
    mmx_index nv = D->nrows;
    cr_assert(C->nrows == nv && C->ncols == nv && C->order == 0 && C->colptr[0] == 0, "%s: shape", what);
    for (mmx_index j = 0; j < nv; j++) {
        mmx_index q = C->colptr[j];
        for (mmx_index i = 0; i < nv; i++) {
            size_t at = spec_at(D, i, j);
            if (!D->has[at]) continue;
            cr_assert(q < C->colptr[j + 1] && C->rowidx[q] == i,
                      "%s: column %d should hold row %d next (has %d at %d of [%d, %d))", what, j,
                      i, q < C->colptr[j + 1] ? C->rowidx[q] : -1, q, C->colptr[j], C->colptr[j + 1]);
            cr_assert_eq(C->val[q], D->val[at], "%s: C(%d,%d) = %d, expected %lld", what, i, j,
                         C->val[q], (long long)D->val[at]);
            q++;
        }
        cr_assert_eq(q, C->colptr[j + 1], "%s: column %d has extra entries", what, j);
    }
    cr_assert_eq(C->nnz, C->colptr[nv], "%s: nnz", what);
    check_props(C, what);
}

static void expect_same_csc(const mmx_csc *A, const mmx_csc *B, const char *what)
{
    cr_assert(A->nrows == B->nrows && A->ncols == B->ncols && A->nnz == B->nnz && A->order == B->order,
              "%s: shapes differ (%d x %d, nnz %d / %d x %d, nnz %d)", what, A->nrows, A->ncols,
              A->nnz, B->nrows, B->ncols, B->nnz);
    if (!A->order) cr_assert_arr_eq(A->colptr, B->colptr, ((size_t)A->ncols + 1) * sizeof(mmx_index), "%s: colptr", what);
    cr_assert_arr_eq(A->rowidx, B->rowidx, (size_t)A->nnz * sizeof(mmx_index), "%s: rowidx", what);
    if (!A->order) cr_assert_arr_eq(A->val, B->val, (size_t)A->nnz * sizeof(mmx_index), "%s: val", what);
    cr_assert(A->maxcol == B->maxcol && A->minval == B->minval && A->maxval == B->maxval &&
              A->positional == B->positional, "%s: cached properties differ", what);
}

/* ---- the maps tried ------------------------------------------------------------------------ */

static const mmx_rel k_rels[] = {
    {MMX_REL_ALL, 0, NULL, 0},
    {MMX_REL_CYCLE, 1, NULL, 0},  {MMX_REL_CYCLE, 0, NULL, 0},  {MMX_REL_CYCLE, 2, NULL, 0},
    {MMX_REL_CYCLE, -1, NULL, 0}, {MMX_REL_CYCLE, -3, NULL, 0}, {MMX_REL_CYCLE, 9, NULL, 0},
    {MMX_REL_CYCLE_BOTH, 1, NULL, 0},  {MMX_REL_CYCLE_BOTH, 0, NULL, 0},
    {MMX_REL_CYCLE_BOTH, 2, NULL, 0},  {MMX_REL_CYCLE_BOTH, -2, NULL, 0},
    {MMX_REL_CYCLE_BOTH, 5, NULL, 0},
    {MMX_REL_TABLE, 0, NULL, 0}, /* the table is made per matrix */
};
#define NRELS ((int)(sizeof k_rels / sizeof k_rels[0]))

/* A dim x dim table with zeros (not related), ones and a few other values. */
static mmx_index *random_table(uint64_t seed, mmx_index dim)
{
    uint64_t s = seed;
    mmx_index *t = malloc((size_t)dim * dim * sizeof *t);
    cr_assert(t);
    for (mmx_index q = 0; q < dim * dim; q++) {
        mmx_index r = rng_below(&s, 10);
        t[q] = r < 5 ? 0 : r < 8 ? 1 : r - 11; /* 0, 1, -3, -2 */
    }
    return t;
}

static void map_name(char *buf, size_t cap, mmx_gemm_map m, const char *matrix)
{
    static const char *rk[] = {"ALL", "CYCLE", "CYCLE_BOTH", "TABLE"};
    static const char *ck[] = {"MAP", "K", "A", "B", "PRODUCT"};
    static const char *mk[] = {"SUM", "MIN", "MAX", "ANY"};
    snprintf(buf, cap, "%s: <%s p=%d, %s, %s>", matrix, rk[m.rel.kind], m.rel.p, ck[m.coll], mk[m.monoid]);
}

/* Runs fn(map) over every relation (TABLE only where M's values allow it) and every pair of
 * collision function and monoid; `all_pairs` = 0 tries five pairs only (big meshes). */
typedef void (*map_fn)(void *env, mmx_gemm_map map, const mmx_index *htable, const char *name);

static void for_each_map(const mmx_csc *hM, uint64_t seed, int all_pairs, map_fn fn, void *env,
                         const char *matrix)
{
    mmx_index dim = hM->nnz > 0 && hM->minval >= 1 ? hM->maxval + (mmx_index)(seed % 2) : 0;
    mmx_index *table = dim > 0 ? random_table(seed, dim) : NULL;
    for (int r = 0; r < NRELS; r++) {
        mmx_rel rel = k_rels[r];
        if (rel.kind == MMX_REL_TABLE) {
            if (!table) continue;
            rel.table = table;
            rel.dim = dim;
        }
        for (int c = 0; c <= MMX_COLL_PRODUCT; c++)
            for (int m = 0; m <= MMX_MONOID_ANY; m++) {
                if (!all_pairs && m != c % 4) continue;
                mmx_gemm_map map = {rel, (mmx_coll)c, (mmx_monoid)m};
                char name[200];
                map_name(name, sizeof name, map, matrix);
                fn(env, map, table, name);
            }
    }
    free(table);
}

/* The host product against the spec. The spec reads a table relation's table from the map,
 * which for_each_map points at htable. */
typedef struct host_env {
    mmx_ctx *ctx;
    const mmx_csc *M;
    int checked;
} host_env;

static void host_vs_spec(void *envp, mmx_gemm_map map, const mmx_index *htable, const char *name)
{
    host_env *env = envp;
    (void)htable;
    spec_product R = spec_mesh_product(env->M, map);
    mmx_csc *C = NULL;
    mmx_status s = mmx_mesh_product(env->ctx, env->M, map, &C);
    if (R.ovf_i >= 0) {
        cr_assert_eq(s, MMX_ERR_OVERFLOW, "%s: expected MMX_ERR_OVERFLOW, got %s", name, mmx_status_str(s));
        cr_assert_null(C, "%s: no result on error", name);
        char where[64];
        snprintf(where, sizeof where, "C(%d,%d)", R.ovf_i, R.ovf_j);
        cr_assert(strstr(mmx_ctx_error(env->ctx), where), "%s: the error names %s: %s", name, where,
                  mmx_ctx_error(env->ctx));
    } else {
        cr_assert_eq(s, MMX_OK, "%s: %s: %s", name, mmx_status_str(s), mmx_ctx_error(env->ctx));
        check_against_spec(C, &R.C, name);
    }
    env->checked++;
    mmx_csc_free(C);
    spec_product_free(&R);
}

/* A matrix with M's pattern and other values: a shuffle of the positions in each column
 * (kind 0: a valid table range), or arbitrary values of either sign (kind 1). */
static mmx_csc *revalued(mmx_ctx *ctx, const mmx_csc *M, uint64_t seed, int kind)
{
    uint64_t s = seed;
    mmx_index *colptr = malloc(((size_t)M->ncols + 1) * sizeof *colptr), *val = malloc(((size_t)M->nnz + 1) * sizeof *val);
    cr_assert(colptr && val && !M->order);
    memcpy(colptr, M->colptr, ((size_t)M->ncols + 1) * sizeof *colptr);
    for (mmx_index k = 0; k < M->ncols; k++) {
        mmx_index a = colptr[k], n = colptr[k + 1] - a;
        for (mmx_index t = 0; t < n; t++) val[a + t] = t + 1;
        for (mmx_index t = n - 1; t > 0; t--) {
            mmx_index r = rng_below(&s, t + 1), x = val[a + t];
            val[a + t] = val[a + r], val[a + r] = x;
        }
        if (kind == 1)
            for (mmx_index t = 0; t < n; t++) val[a + t] = rng_below(&s, 200001) - 100000;
    }
    mmx_csc *R = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_csc_create(ctx, M->nrows, M->ncols, colptr, M->rowidx, val, MMX_SPACE_HOST, &R));
    free(colptr);
    free(val);
    return R;
}

/* ---- the mesh product on the host --------------------------------------------------------- */

Test(adjacency, mesh_product_matches_the_dense_statement_on_random_polygon_meshes)
{
    mmx_ctx *ctx = tu_host_ctx();
    int checked = 0;
    const struct { mmx_index nv, nf, omin, omax; } cfg[] = {{10, 14, 3, 8}, {40, 30, 3, 8}, {25, 20, 3, 4}};
    for (int c = 0; c < 3; c++) {
        faces f = random_faces(100 + (uint64_t)c, cfg[c].nv, cfg[c].nf, cfg[c].omin, cfg[c].omax);
        mmx_mesh *m = mesh_of(ctx, &f);
        host_env env = {ctx, m->M, 0};
        for_each_map(m->M, 7 + (uint64_t)c, 1, host_vs_spec, &env, "random mesh");
        checked += env.checked;
        mmx_mesh_free(m);
        fl_free(&f);
    }
    cr_assert_geq(checked, 3 * 13 * 20);
    mmx_ctx_free(ctx);
}

Test(adjacency, mesh_product_on_reduced_triangles_quads_and_pentagons)
{
    mmx_ctx *ctx = tu_host_ctx();
    for (mmx_index order = 3; order <= 5; order++) {
        faces f = random_faces(200 + (uint64_t)order, 16, 18, order, order);
        mmx_mesh *m = mesh_of(ctx, &f);
        MMX_OK_OR_FAIL(ctx, mmx_mesh_reduce(ctx, m));
        cr_assert_eq(m->M->order, order);
        host_env env = {ctx, m->M, 0};
        for_each_map(m->M, 11, 1, host_vs_spec, &env, "reduced mesh");
        cr_assert_geq(env.checked, 13 * 20);
        mmx_mesh_free(m);
        fl_free(&f);
    }
    mmx_ctx_free(ctx);
}

Test(adjacency, mesh_product_honours_stored_values_that_are_not_positions)
{
    mmx_ctx *ctx = tu_host_ctx();
    faces f = random_faces(300, 14, 16, 3, 7);
    mmx_mesh *m = mesh_of(ctx, &f);
    for (int kind = 0; kind < 2; kind++) {
        mmx_csc *R = revalued(ctx, m->M, 31 + (uint64_t)kind, kind);
        cr_assert_eq(R->positional, 0);
        host_env env = {ctx, R, 0};
        for_each_map(R, 5, 1, host_vs_spec, &env, kind ? "arbitrary values" : "shuffled positions");
        cr_assert_geq(env.checked, 12 * 20);
        mmx_csc_free(R);
    }
    mmx_mesh_free(m);
    fl_free(&f);
    mmx_ctx_free(ctx);
}

Test(adjacency, the_quad_diagonal_relates_opposite_corners_once)
{
    /* Q_d = Q_4^2 on quads: both powers meet, so each diagonal pair counts once per face. */
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = tu_shape(ctx, "cube");
    mmx_gemm_map qd = {{MMX_REL_CYCLE_BOTH, 2, NULL, 0}, MMX_COLL_MAP, MMX_MONOID_SUM};
    mmx_csc *C = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_product(ctx, m->M, qd, &C));
    /* Every face has 2 diagonals, each seen from both ends: 6 * 4 entries, all 1 (a cube's
     * face diagonals each lie in one face). */
    cr_assert_eq(C->nnz, 24);
    for (mmx_index q = 0; q < C->nnz; q++) cr_assert_eq(C->val[q], 1);
    host_env env = {ctx, m->M, 0};
    host_vs_spec(&env, qd, NULL, "cube Q_d");
    mmx_csc_free(C);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(adjacency, mesh_product_overflow_is_refused)
{
    mmx_ctx *ctx = tu_host_ctx();
    /* One triangle with values 50000: the product a*b leaves int32. */
    const mmx_index colptr[] = {0, 3}, rowidx[] = {0, 1, 2}, val[] = {50000, 50000, 50000};
    mmx_csc *M = NULL, *C = (mmx_csc *)1;
    MMX_OK_OR_FAIL(ctx, mmx_csc_create(ctx, 3, 1, colptr, rowidx, val, MMX_SPACE_HOST, &M));
    mmx_gemm_map map = {{MMX_REL_ALL, 0, NULL, 0}, MMX_COLL_PRODUCT, MMX_MONOID_SUM};
    cr_assert_eq(mmx_mesh_product(ctx, M, map, &C), MMX_ERR_OVERFLOW);
    cr_assert_null(C);
    cr_assert_neq(mmx_ctx_error(ctx)[0], '\0');
    cr_assert(strstr(mmx_ctx_error(ctx), "C(0,0)"), "%s", mmx_ctx_error(ctx));
    /* A contribution outside 32 bits is refused whatever the monoid keeps. */
    map.monoid = MMX_MONOID_MIN;
    cr_assert_eq(mmx_mesh_product(ctx, M, map, &C), MMX_ERR_OVERFLOW);
    /* ... while a small enough product of the same matrix is fine. */
    map.monoid = MMX_MONOID_SUM;
    map.coll = MMX_COLL_A;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_product(ctx, M, map, &C));
    cr_assert_eq(C->nnz, 9);
    mmx_csc_free(C);
    mmx_csc_free(M);
    /* Two faces on vertices 0 and 1 with values 2^30: each contribution fits, their sum at
     * C(0,1) does not; MIN of the same is fine. */
    const mmx_index cp2[] = {0, 3, 6}, ri2[] = {0, 1, 2, 1, 0, 3};
    const mmx_index v2[] = {1 << 30, 1 << 30, 1, 1 << 30, 1 << 30, 1};
    MMX_OK_OR_FAIL(ctx, mmx_csc_create(ctx, 4, 2, cp2, ri2, v2, MMX_SPACE_HOST, &M));
    C = (mmx_csc *)1;
    cr_assert_eq(mmx_mesh_product(ctx, M, map, &C), MMX_ERR_OVERFLOW);
    cr_assert_null(C);
    cr_assert(strstr(mmx_ctx_error(ctx), "C(0,0)"), "%s", mmx_ctx_error(ctx));
    map.monoid = MMX_MONOID_MIN;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_product(ctx, M, map, &C));
    mmx_csc_free(C);
    mmx_csc_free(M);
    mmx_ctx_free(ctx);
}

Test(adjacency, mesh_product_refuses_bad_arguments)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = tu_shape(ctx, "mixed");
    mmx_csc *C = (mmx_csc *)1;
    mmx_gemm_map ok = {{MMX_REL_CYCLE, 1, NULL, 0}, MMX_COLL_K, MMX_MONOID_MIN};
    cr_assert_eq(mmx_mesh_product(ctx, NULL, ok, &C), MMX_ERR_ARG);
    cr_assert_null(C);
    cr_assert_eq(mmx_mesh_product(ctx, m->M, ok, NULL), MMX_ERR_ARG);
    mmx_gemm_map bad = ok;
    bad.rel.kind = (mmx_rel_kind)9;
    cr_assert_eq(mmx_mesh_product(ctx, m->M, bad, &C), MMX_ERR_ARG);
    bad = ok;
    bad.coll = (mmx_coll)-1;
    cr_assert_eq(mmx_mesh_product(ctx, m->M, bad, &C), MMX_ERR_ARG);
    bad = ok;
    bad.monoid = (mmx_monoid)7;
    cr_assert_eq(mmx_mesh_product(ctx, m->M, bad, &C), MMX_ERR_ARG);
    /* A table relation needs a table that covers the values: mixed has a hexagon (values 1..6). */
    mmx_index table[36];
    for (int q = 0; q < 36; q++) table[q] = q % 2;
    mmx_gemm_map t = {{MMX_REL_TABLE, 0, table, 5}, MMX_COLL_MAP, MMX_MONOID_SUM};
    cr_assert_eq(mmx_mesh_product(ctx, m->M, t, &C), MMX_ERR_ARG);
    cr_assert(strstr(mmx_ctx_error(ctx), "1..5"), "%s", mmx_ctx_error(ctx));
    t.rel.dim = 0;
    cr_assert_eq(mmx_mesh_product(ctx, m->M, t, &C), MMX_ERR_ARG);
    t.rel.dim = 6;
    t.rel.table = NULL;
    cr_assert_eq(mmx_mesh_product(ctx, m->M, t, &C), MMX_ERR_ARG);
    t.rel.table = table;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_product(ctx, m->M, t, &C));
    mmx_csc_free(C);
    /* Values below 1 are outside any table. */
    const mmx_index colptr[] = {0, 3}, rowidx[] = {0, 1, 2}, val[] = {0, 1, 2};
    mmx_csc *Z = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_csc_create(ctx, 3, 1, colptr, rowidx, val, MMX_SPACE_HOST, &Z));
    cr_assert_eq(mmx_mesh_product(ctx, Z, t, &C), MMX_ERR_ARG);
    mmx_csc_free(Z);
    /* A matrix that claims to live on the device is refused by a host context. */
    mmx_csc fake = *m->M;
    fake.space = MMX_SPACE_DEVICE;
    cr_assert_eq(mmx_mesh_product(ctx, &fake, ok, &C), MMX_ERR_SPACE);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* ---- adjacency: checks ----------------------------------------------------------------------- */

/* The value of column j, row i of a host matrix with ascending rows, or -1. */
static mmx_index csc_at(const mmx_csc *A, mmx_index i, mmx_index j)
{
    for (mmx_index q = A->colptr[j]; q < A->colptr[j + 1]; q++)
        if (A->rowidx[q] == i) return A->val[q];
    return -1;
}

typedef struct half_edge {
    mmx_index v, w, k;
} half_edge;

static int half_edge_cmp(const void *pa, const void *pb)
{
    const half_edge *a = pa, *b = pb;
    if (a->v != b->v) return a->v < b->v ? -1 : 1;
    if (a->w != b->w) return a->w < b->w ? -1 : 1;
    return (a->k > b->k) - (a->k < b->k);
}

/* Everything in a host adjacency follows from the face lists it was computed from. */
static void check_adjacency(const faces *f, const mmx_adjacency *a, const char *what)
{
    mmx_index nv = f->nv, nf = f->nf, ne = a->nedges;
    cr_assert(a->nverts == nv && a->nfaces == nf, "%s: sizes", what);
    cr_assert(a->E->nnz == 2 * ne, "%s: nnz(E) = %d for %d edges", what, a->E->nnz, ne);
    cr_assert_eq(a->edge_ptr[0], 0, "%s", what);
    cr_assert_eq(a->edge_ptr[nv], ne, "%s", what);
    for (mmx_index j = 0; j < nv; j++) cr_assert_leq(a->edge_ptr[j], a->edge_ptr[j + 1], "%s", what);
    /* Edges in column order, lower end first, E symmetric with the sides as values. */
    for (mmx_index e = 0; e < ne; e++) {
        mmx_index i = a->ev[2 * e], j = a->ev[2 * e + 1];
        cr_assert(0 <= i && i < j && j < nv, "%s: edge %d = (%d, %d)", what, e, i, j);
        cr_assert(a->edge_ptr[j] <= e && e < a->edge_ptr[j + 1], "%s: edge %d outside column %d", what, e, j);
        if (e > 0) {
            mmx_index pi = a->ev[2 * e - 2], pj = a->ev[2 * e - 1];
            cr_assert(pj < j || (pj == j && pi < i), "%s: edges %d and %d out of order", what, e - 1, e);
        }
        cr_assert_eq(csc_at(a->E, i, j), a->sides[e], "%s: E(%d,%d)", what, i, j);
        cr_assert_eq(csc_at(a->E, j, i), a->sides[e], "%s: E(%d,%d)", what, j, i);
    }
    /* Corners: FE names the edge and its direction; sides count the corners on an edge. */
    mmx_index *runs = calloc((size_t)ne + 1, sizeof *runs), *val = calloc((size_t)nv + 1, sizeof *val);
    half_edge *he = malloc(((size_t)f->start[nf] + 1) * sizeof *he);
    cr_assert(runs && val && he);
    for (mmx_index k = 0; k < nf; k++) {
        mmx_index s = f->start[k], n = f->start[k + 1] - s;
        for (mmx_index t = 0; t < n; t++) {
            mmx_index v = f->verts[s + t], w = f->verts[s + (t + 1) % n], x = a->fe[s + t];
            mmx_index e = x >> 1;
            cr_assert(x >= 0 && e < ne, "%s: fe of face %d corner %d is %d", what, k, t, x);
            cr_assert(a->ev[2 * e] == (v < w ? v : w) && a->ev[2 * e + 1] == (v < w ? w : v),
                      "%s: face %d runs %d -> %d but fe names edge %d = (%d, %d)", what, k, v, w, e,
                      a->ev[2 * e], a->ev[2 * e + 1]);
            cr_assert_eq(x & 1, v < w ? 0 : 1, "%s: direction of face %d corner %d", what, k, t);
            runs[e]++;
            val[v]++;
            he[s + t] = (half_edge){v, w, k};
        }
    }
    mmx_index nb = 0, nm = 0, nbv = 0, maxv = 0;
    unsigned char *bnd = calloc((size_t)nv + 1, 1);
    cr_assert(bnd);
    for (mmx_index e = 0; e < ne; e++) {
        cr_assert_eq(a->sides[e], runs[e], "%s: edge %d has %d sides, %d corners run it", what, e, a->sides[e], runs[e]);
        cr_assert_geq(runs[e], 1, "%s", what);
        if (runs[e] == 1) nb++, bnd[a->ev[2 * e]] = bnd[a->ev[2 * e + 1]] = 1;
        if (runs[e] >= 3) nm++;
    }
    for (mmx_index v = 0; v < nv; v++) {
        cr_assert_eq(a->valence[v], val[v], "%s: valence of %d", what, v);
        cr_assert_eq(a->boundary[v], bnd[v], "%s: boundary flag of %d", what, v);
        nbv += bnd[v];
        if (val[v] > maxv) maxv = val[v];
    }
    cr_assert_eq(a->boundary_edges, nb, "%s: boundary edges", what);
    cr_assert_eq(a->nonmanifold_edges, nm, "%s: non-manifold edges", what);
    cr_assert_eq(a->boundary_verts, nbv, "%s: boundary vertices", what);
    cr_assert_eq(a->max_valence, maxv, "%s: max valence", what);
    mmx_index order = nf > 0 ? f->start[1] - f->start[0] : 0;
    for (mmx_index k = 1; k < nf; k++)
        if (f->start[k + 1] - f->start[k] != order) order = 0;
    cr_assert_eq(a->face_order, order, "%s: face order %d, expected %d", what, a->face_order, order);
    /* F: each half-edge v -> w maps to the smallest face that runs it. */
    qsort(he, (size_t)f->start[nf], sizeof *he, half_edge_cmp);
    mmx_index distinct = 0;
    for (mmx_index q = 0; q < f->start[nf]; q++) {
        if (q > 0 && he[q].v == he[q - 1].v && he[q].w == he[q - 1].w) continue;
        distinct++;
        cr_assert_eq(csc_at(a->F, he[q].v, he[q].w), he[q].k, "%s: F(%d,%d)", what, he[q].v, he[q].w);
    }
    cr_assert_eq(a->F->nnz, distinct, "%s: nnz(F)", what);
    free(runs);
    free(val);
    free(he);
    free(bnd);
}

static mmx_adjacency *adjacency(mmx_ctx *ctx, const mmx_mesh *m)
{
    mmx_adjacency *a = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_adjacency_compute(ctx, m, &a));
    cr_assert_not_null(a);
    return a;
}

/* The counts the adjacency and mmx_mesh_stats_compute both give agree. */
static void check_against_stats(mmx_ctx *ctx, const mmx_mesh *m, const mmx_adjacency *a, const char *what)
{
    mmx_mesh_stats st;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_stats_compute(ctx, m, &st));
    cr_assert_eq(a->nedges, st.nedges, "%s: edges %d, stats %d", what, a->nedges, st.nedges);
    cr_assert_eq(a->boundary_edges, st.boundary_edges, "%s: boundary edges", what);
    cr_assert_eq(a->nonmanifold_edges, st.nonmanifold_edges, "%s: non-manifold edges", what);
}

/* ---- adjacency on the host ------------------------------------------------------------------ */

static const struct shape_case {
    const char *spec;
    mmx_index nv, nf, ne, bedges, bverts, maxval;
} k_shapes[] = {
    {"tetrahedron", 4, 4, 6, 0, 0, 3},
    {"cube", 8, 6, 12, 0, 0, 3},
    {"icosphere:2", 162, 320, 480, 0, 0, 6},
    {"torus:24:12", 288, 288, 576, 0, 0, 4},
    {"grid:8:8", 79, 56, 136, 48, 48, 4}, /* 9x9 points less the two hole centres, 2 holes */
    {"grid:3:2", 12, 6, 17, 10, 10, 4},
    {"mixed", 18, 13, 30, 12, 12, 4},
};
#define NSHAPES ((int)(sizeof k_shapes / sizeof k_shapes[0]))

Test(adjacency, shapes_have_their_closed_form_counts_in_both_forms)
{
    mmx_ctx *ctx = tu_host_ctx();
    for (int c = 0; c < NSHAPES; c++) {
        const struct shape_case *sc = &k_shapes[c];
        mmx_mesh *m = tu_shape(ctx, sc->spec);
        mmx_adjacency *a = adjacency(ctx, m);
        cr_assert(a->nverts == sc->nv && a->nfaces == sc->nf && a->nedges == sc->ne,
                  "%s: V %d F %d E %d", sc->spec, a->nverts, a->nfaces, a->nedges);
        cr_assert_eq(a->boundary_edges, sc->bedges, "%s: boundary edges %d", sc->spec, a->boundary_edges);
        cr_assert_eq(a->boundary_verts, sc->bverts, "%s: boundary vertices %d", sc->spec, a->boundary_verts);
        cr_assert_eq(a->nonmanifold_edges, 0, "%s", sc->spec);
        cr_assert_eq(a->max_valence, sc->maxval, "%s: max valence %d", sc->spec, a->max_valence);
        cr_assert_eq(a->space, MMX_SPACE_HOST);
        faces f = faces_of(ctx, m);
        check_adjacency(&f, a, sc->spec);
        check_against_stats(ctx, m, a, sc->spec);
        /* The reduced form gives the same arrays. */
        mmx_index order = 0;
        MMX_OK_OR_FAIL(ctx, mmx_mesh_uniform_order(ctx, m, &order));
        if (order) {
            MMX_OK_OR_FAIL(ctx, mmx_mesh_reduce(ctx, m));
            mmx_adjacency *r = adjacency(ctx, m);
            expect_same_csc(a->E, r->E, sc->spec);
            expect_same_csc(a->F, r->F, sc->spec);
            cr_assert_eq(r->nedges, a->nedges);
            cr_assert_arr_eq(r->fe, a->fe, (size_t)m->M->nnz * sizeof(mmx_index));
            cr_assert_arr_eq(r->ev, a->ev, 2 * (size_t)a->nedges * sizeof(mmx_index));
            mmx_adjacency_free(r);
        }
        fl_free(&f);
        mmx_adjacency_free(a);
        mmx_mesh_free(m);
    }
    mmx_ctx_free(ctx);
}

Test(adjacency, icosphere_valences_are_five_and_six)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = tu_shape(ctx, "icosphere:2");
    mmx_adjacency *a = adjacency(ctx, m);
    int five = 0;
    for (mmx_index v = 0; v < a->nverts; v++) {
        cr_assert(a->valence[v] == 5 || a->valence[v] == 6);
        five += a->valence[v] == 5;
    }
    cr_assert_eq(five, 12);
    for (mmx_index e = 0; e < a->nedges; e++) cr_assert_eq(a->sides[e], 2);
    mmx_adjacency_free(a);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(adjacency, random_meshes_are_consistent_with_their_faces_and_with_stats)
{
    mmx_ctx *ctx = tu_host_ctx();
    for (int c = 0; c < 12; c++) {
        /* Few vertices: many shared and non-manifold edges; more: mostly boundary. */
        mmx_index nv = c < 6 ? 12 + 4 * c : 200, nf = c < 6 ? 20 : 150;
        faces f = random_faces(500 + (uint64_t)c, nv, nf, 3, c % 3 == 2 ? 3 : 8);
        mmx_mesh *m = mesh_of(ctx, &f);
        mmx_adjacency *a = adjacency(ctx, m);
        char what[64];
        snprintf(what, sizeof what, "random mesh %d", c);
        check_adjacency(&f, a, what);
        check_against_stats(ctx, m, a, what);
        mmx_adjacency_free(a);
        mmx_mesh_free(m);
        fl_free(&f);
    }
    mmx_ctx_free(ctx);
}

/* Edges as (lower end, upper end, sides) in old vertex numbers, sorted. */
static int64_t *edge_keys(const mmx_adjacency *a, const mmx_index *old)
{
    int64_t *k = malloc(((size_t)a->nedges + 1) * sizeof *k);
    cr_assert(k);
    for (mmx_index e = 0; e < a->nedges; e++) {
        int64_t i = old ? old[a->ev[2 * e]] : a->ev[2 * e], j = old ? old[a->ev[2 * e + 1]] : a->ev[2 * e + 1];
        if (i > j) {
            int64_t t = i;
            i = j, j = t;
        }
        k[e] = (i << 36) | (j << 8) | a->sides[e];
    }
    for (mmx_index q = 1; q < a->nedges; q++) /* insertion sort: a few hundred edges */
        for (mmx_index r = q; r > 0 && k[r - 1] > k[r]; r--) {
            int64_t t = k[r];
            k[r] = k[r - 1], k[r - 1] = t;
        }
    return k;
}

/* a2 is the adjacency of a renumbering of a's mesh (new vertex v = old vperm[v]). */
static void check_isomorphic(const mmx_adjacency *a, const mmx_adjacency *a2, const mmx_index *vperm, const char *what)
{
    cr_assert(a2->nedges == a->nedges && a2->boundary_edges == a->boundary_edges &&
              a2->nonmanifold_edges == a->nonmanifold_edges && a2->boundary_verts == a->boundary_verts &&
              a2->max_valence == a->max_valence, "%s: counts change under renumbering", what);
    int64_t *k1 = edge_keys(a, NULL), *k2 = edge_keys(a2, vperm);
    cr_assert_arr_eq(k1, k2, (size_t)a->nedges * sizeof *k1, "%s: edges differ", what);
    for (mmx_index v = 0; v < a->nverts; v++) {
        cr_assert_eq(a2->valence[v], a->valence[vperm[v]], "%s", what);
        cr_assert_eq(a2->boundary[v], a->boundary[vperm[v]], "%s", what);
    }
    free(k1);
    free(k2);
}

Test(adjacency, shuffled_vertex_and_face_order_gives_the_same_edges)
{
    mmx_ctx *ctx = tu_host_ctx();
    for (int c = 0; c < 5; c++) {
        faces f;
        mmx_mesh *m;
        if (c < 3) {
            m = tu_shape(ctx, c == 0 ? "mixed" : c == 1 ? "grid:9:8" : "icosphere:1");
            f = faces_of(ctx, m);
        } else {
            f = random_faces(700 + (uint64_t)c, 30, 40, 3, 8);
            m = mesh_of(ctx, &f);
        }
        mmx_index *vperm = NULL;
        faces g = shuffled(&f, 900 + (uint64_t)c, &vperm);
        mmx_mesh *m2 = mesh_of(ctx, &g);
        mmx_adjacency *a = adjacency(ctx, m), *a2 = adjacency(ctx, m2);
        check_adjacency(&g, a2, "shuffled");
        check_isomorphic(a, a2, vperm, "shuffled");
        mmx_adjacency_free(a);
        mmx_adjacency_free(a2);
        mmx_mesh_free(m);
        mmx_mesh_free(m2);
        fl_free(&f);
        fl_free(&g);
        free(vperm);
    }
    mmx_ctx_free(ctx);
}

/* A fan of 360 quads (pole, r_i, s_i, r_i+1) around a pole: closed (r_360 = r_0) or open. */
static faces fan360(int closed)
{
    const mmx_index N = 360, nr = closed ? N : N + 1;
    faces f = fl_alloc(1 + nr + N, N, 4 * N);
    for (mmx_index i = 0; i < N; i++) {
        mmx_index r0 = 1 + i, r1 = 1 + (closed ? (i + 1) % N : i + 1), s = 1 + nr + i;
        mmx_index q[4] = {0, r0, s, r1};
        memcpy(f.verts + 4 * i, q, sizeof q);
        f.start[i + 1] = 4 * (i + 1);
    }
    return f;
}

/* A 360-gon capped by a cone of 360 triangles to an apex: closed, apex of valence 360. */
static faces capped_cone360(void)
{
    const mmx_index N = 360;
    faces f = fl_alloc(N + 1, N + 1, N + 3 * N);
    for (mmx_index i = 0; i < N; i++) f.verts[i] = i;
    f.start[1] = N;
    for (mmx_index i = 0; i < N; i++) {
        mmx_index t[3] = {(i + 1) % N, i, N};
        memcpy(f.verts + N + 3 * i, t, sizeof t);
        f.start[i + 2] = N + 3 * (i + 1);
    }
    return f;
}

Test(adjacency, a_360_valent_vertex_and_a_360_gon)
{
    mmx_ctx *ctx = tu_host_ctx();
    for (int c = 0; c < 3; c++) {
        faces f = c < 2 ? fan360(c == 0) : capped_cone360();
        mmx_mesh *m = mesh_of(ctx, &f);
        mmx_adjacency *a = adjacency(ctx, m);
        check_adjacency(&f, a, "360");
        check_against_stats(ctx, m, a, "360");
        cr_assert_eq(a->max_valence, 360);
        if (c == 0) {
            cr_assert(a->nedges == 1080 && a->boundary_edges == 720 && a->boundary_verts == 720);
            cr_assert_eq(a->boundary[0], 0);
        } else if (c == 1) {
            cr_assert(a->nedges == 1081 && a->boundary_edges == 722 && a->boundary_verts == 722);
            cr_assert_eq(a->boundary[0], 1);
        } else {
            cr_assert(a->nedges == 720 && a->boundary_edges == 0 && a->boundary_verts == 0);
        }
        /* The products on these long columns against the spec (five maps per relation). */
        host_env env = {ctx, m->M, 0};
        for_each_map(m->M, 3, 0, host_vs_spec, &env, "360");
        cr_assert_geq(env.checked, 13 * 5);
        if (c < 2) {
            MMX_OK_OR_FAIL(ctx, mmx_mesh_reduce(ctx, m));
            mmx_adjacency *r = adjacency(ctx, m);
            check_adjacency(&f, r, "360 reduced");
            mmx_adjacency_free(r);
        }
        mmx_adjacency_free(a);
        mmx_mesh_free(m);
        fl_free(&f);
    }
    mmx_ctx_free(ctx);
}

Test(adjacency, a_non_manifold_edge_has_three_sides)
{
    mmx_ctx *ctx = tu_host_ctx();
    faces f = fl_alloc(5, 3, 9);
    const mmx_index v[9] = {0, 1, 2, 1, 0, 3, 0, 1, 4};
    memcpy(f.verts, v, sizeof v);
    for (int k = 1; k <= 3; k++) f.start[k] = 3 * k;
    mmx_mesh *m = mesh_of(ctx, &f);
    mmx_adjacency *a = adjacency(ctx, m);
    check_adjacency(&f, a, "fin");
    check_against_stats(ctx, m, a, "fin");
    cr_assert(a->nedges == 7 && a->nonmanifold_edges == 1 && a->boundary_edges == 6);
    cr_assert_eq(a->sides[a->edge_ptr[1]], 3); /* edge {0, 1}: the first of column 1 */
    cr_assert_eq(csc_at(a->F, 0, 1), 0);        /* faces 0 and 2 run 0 -> 1: the smaller */
    cr_assert_eq(csc_at(a->F, 1, 0), 1);
    mmx_adjacency_free(a);
    mmx_mesh_free(m);
    fl_free(&f);
    mmx_ctx_free(ctx);
}

Test(adjacency, an_inconsistent_face_and_an_isolated_vertex)
{
    mmx_ctx *ctx = tu_host_ctx();
    faces f = fl_alloc(5, 2, 6);
    const mmx_index v[6] = {0, 1, 2, 1, 2, 3}; /* both run 1 -> 2; vertex 4 is in no face */
    memcpy(f.verts, v, sizeof v);
    f.start[1] = 3, f.start[2] = 6;
    mmx_mesh *m = mesh_of(ctx, &f);
    mmx_adjacency *a = adjacency(ctx, m);
    check_adjacency(&f, a, "flipped");
    check_against_stats(ctx, m, a, "flipped");
    cr_assert(a->nedges == 5 && a->boundary_edges == 4 && a->nonmanifold_edges == 0);
    cr_assert_eq(csc_at(a->E, 1, 2), 2);
    cr_assert_eq(csc_at(a->F, 1, 2), 0); /* the half-edge twice: MIN keeps face 0 */
    cr_assert_eq(csc_at(a->F, 2, 1), -1);
    cr_assert(a->valence[4] == 0 && a->boundary[4] == 0);
    cr_assert_eq(a->boundary_verts, 4);
    mmx_adjacency_free(a);
    mmx_mesh_free(m);
    fl_free(&f);
    mmx_ctx_free(ctx);
}

Test(adjacency, meshes_without_faces)
{
    mmx_ctx *ctx = tu_host_ctx();
    for (mmx_index nv = 0; nv <= 3; nv += 3) {
        faces f = fl_alloc(nv, 0, 0);
        mmx_mesh *m = mesh_of(ctx, &f);
        mmx_adjacency *a = adjacency(ctx, m);
        cr_assert(a->nverts == nv && a->nfaces == 0 && a->nedges == 0 && a->boundary_edges == 0 &&
                  a->boundary_verts == 0 && a->max_valence == 0 && a->nonmanifold_edges == 0 &&
                  a->face_order == 0);
        cr_assert(a->E->nnz == 0 && a->F->nnz == 0 && a->E->nrows == nv && a->F->ncols == nv);
        cr_assert_eq(a->edge_ptr[nv], 0);
        for (mmx_index v = 0; v < nv; v++) cr_assert(a->valence[v] == 0 && a->boundary[v] == 0);
        mmx_adjacency_free(a);
        mmx_mesh_free(m);
        fl_free(&f);
    }
    mmx_ctx_free(ctx);
}

Test(adjacency, refuses_bad_arguments)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = tu_shape(ctx, "cube");
    mmx_adjacency *a = (mmx_adjacency *)1;
    cr_assert_eq(mmx_adjacency_compute(ctx, NULL, &a), MMX_ERR_ARG);
    cr_assert_null(a);
    cr_assert_eq(mmx_adjacency_compute(ctx, m, NULL), MMX_ERR_ARG);
    mmx_csc fakeM = *m->M;
    fakeM.space = MMX_SPACE_DEVICE;
    mmx_mesh fake = *m;
    fake.M = &fakeM;
    fake.space = MMX_SPACE_DEVICE;
    a = (mmx_adjacency *)1;
    cr_assert_eq(mmx_adjacency_compute(ctx, &fake, &a), MMX_ERR_SPACE);
    cr_assert_null(a);
    mmx_adjacency_free(NULL);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* ---- CUDA against the host ------------------------------------------------------------------ */

/* A device matrix back on the host. */
static mmx_csc *to_host(mmx_ctx *ctx, const mmx_csc *A)
{
    cr_assert_eq(A->space, MMX_SPACE_DEVICE);
    mmx_csc *H = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_csc_copy(ctx, A, MMX_SPACE_HOST, &H));
    return H;
}

typedef struct gpu_env {
    mmx_ctx *hctx, *dctx;
    const mmx_csc *hM, *dM;
    int checked;
} gpu_env;

/* The same product on both backends: the same status, and the same matrix bit for bit. */
static void gpu_vs_host(void *envp, mmx_gemm_map map, const mmx_index *htable, const char *name)
{
    gpu_env *env = envp;
    mmx_index *dtable = NULL;
    if (htable) {
        size_t bytes = (size_t)map.rel.dim * map.rel.dim * sizeof *htable;
        MMX_OK_OR_FAIL(env->dctx, mmx_mem_alloc(env->dctx, MMX_SPACE_DEVICE, bytes, (void **)&dtable));
        MMX_OK_OR_FAIL(env->dctx, mmx_mem_copy(env->dctx, dtable, MMX_SPACE_DEVICE, htable, MMX_SPACE_HOST, bytes));
    }
    mmx_gemm_map dmap = map;
    if (htable) dmap.rel.table = dtable;
    mmx_csc *H = NULL, *D = NULL;
    mmx_status hs = mmx_mesh_product(env->hctx, env->hM, map, &H);
    mmx_status ds = mmx_mesh_product(env->dctx, env->dM, dmap, &D);
    cr_assert_eq(ds, hs, "%s: device %s (%s), host %s", name, mmx_status_str(ds), mmx_ctx_error(env->dctx),
                 mmx_status_str(hs));
    if (hs) cr_assert_str_eq(mmx_ctx_error(env->dctx), mmx_ctx_error(env->hctx), "%s: error details", name);
    if (!hs) {
        cr_assert_eq(D->space, MMX_SPACE_DEVICE);
        mmx_csc *back = to_host(env->dctx, D);
        expect_same_csc(H, back, name);
        mmx_csc_free(back);
    } else {
        cr_assert_null(D);
    }
    env->checked++;
    mmx_csc_free(H);
    mmx_csc_free(D);
    mmx_mem_free(env->dctx, MMX_SPACE_DEVICE, dtable);
}

static void gpu_products(mmx_ctx *dctx, mmx_ctx *hctx, const mmx_csc *hM, int all_pairs, const char *what)
{
    mmx_csc *dM = NULL;
    MMX_OK_OR_FAIL(dctx, mmx_csc_copy(dctx, hM, MMX_SPACE_DEVICE, &dM));
    gpu_env env = {hctx, dctx, hM, dM, 0};
    for_each_map(hM, 13, all_pairs, gpu_vs_host, &env, what);
    cr_assert_geq(env.checked, all_pairs ? 12 * 20 : 12 * 5);
    mmx_csc_free(dM);
}

/* A device adjacency on the host, in a struct mmx_adjacency_free accepts. */
static mmx_adjacency *adj_to_host(mmx_ctx *ctx, const mmx_adjacency *d, const mmx_mesh *dm)
{
    cr_assert_eq(d->space, MMX_SPACE_DEVICE);
    mmx_adjacency *h = calloc(1, sizeof *h);
    cr_assert(h);
    *h = *d;
    h->space = MMX_SPACE_HOST;
    h->E = to_host(ctx, d->E);
    h->F = to_host(ctx, d->F);
    const size_t ix = sizeof(mmx_index);
    struct { void **dst; const void *src; size_t bytes; } arr[] = {
        {(void **)&h->edge_ptr, d->edge_ptr, ((size_t)d->nverts + 1) * ix},
        {(void **)&h->ev, d->ev, 2 * (size_t)d->nedges * ix},
        {(void **)&h->sides, d->sides, (size_t)d->nedges * ix},
        {(void **)&h->fe, d->fe, (size_t)dm->M->nnz * ix},
        {(void **)&h->valence, d->valence, (size_t)d->nverts * ix},
        {(void **)&h->boundary, d->boundary, (size_t)d->nverts},
    };
    for (size_t q = 0; q < sizeof arr / sizeof arr[0]; q++) {
        *arr[q].dst = malloc(arr[q].bytes + 1);
        cr_assert(*arr[q].dst);
        MMX_OK_OR_FAIL(ctx, mmx_mem_copy(ctx, *arr[q].dst, MMX_SPACE_HOST, arr[q].src, MMX_SPACE_DEVICE, arr[q].bytes));
    }
    return h;
}

static void expect_same_adjacency(const mmx_adjacency *h, const mmx_adjacency *d, mmx_index nnz, const char *what)
{
    cr_assert(h->nverts == d->nverts && h->nfaces == d->nfaces && h->nedges == d->nedges,
              "%s: sizes differ (edges %d host, %d device)", what, h->nedges, d->nedges);
    cr_assert(h->boundary_edges == d->boundary_edges && h->nonmanifold_edges == d->nonmanifold_edges &&
              h->boundary_verts == d->boundary_verts && h->max_valence == d->max_valence &&
              h->face_order == d->face_order,
              "%s: counts differ", what);
    expect_same_csc(h->E, d->E, what);
    expect_same_csc(h->F, d->F, what);
    const size_t ix = sizeof(mmx_index);
    cr_assert_arr_eq(h->edge_ptr, d->edge_ptr, ((size_t)h->nverts + 1) * ix, "%s: edge_ptr", what);
    cr_assert_arr_eq(h->ev, d->ev, 2 * (size_t)h->nedges * ix, "%s: ev", what);
    cr_assert_arr_eq(h->sides, d->sides, (size_t)h->nedges * ix, "%s: sides", what);
    cr_assert_arr_eq(h->fe, d->fe, (size_t)nnz * ix, "%s: fe", what);
    cr_assert_arr_eq(h->valence, d->valence, (size_t)h->nverts * ix, "%s: valence", what);
    cr_assert_arr_eq(h->boundary, d->boundary, (size_t)h->nverts, "%s: boundary", what);
}

/* The adjacency of a host mesh computed on both backends, equal; also the reduced form on the
 * device when the mesh has one order. */
static void gpu_adjacency_case(mmx_ctx *dctx, mmx_ctx *hctx, const mmx_mesh *hm, const char *what)
{
    mmx_adjacency *ha = adjacency(hctx, hm);
    mmx_mesh *dm = NULL;
    MMX_OK_OR_FAIL(dctx, mmx_mesh_copy(dctx, hm, MMX_SPACE_DEVICE, &dm));
    for (int form = 0; form < 2; form++) {
        if (form == 1) {
            mmx_index order = 0;
            MMX_OK_OR_FAIL(dctx, mmx_mesh_uniform_order(dctx, dm, &order));
            if (!order || dm->M->order) break;
            MMX_OK_OR_FAIL(dctx, mmx_mesh_reduce(dctx, dm));
        }
        mmx_adjacency *da = adjacency(dctx, dm);
        cr_assert_eq(da->space, MMX_SPACE_DEVICE);
        mmx_adjacency *back = adj_to_host(dctx, da, dm);
        expect_same_adjacency(ha, back, hm->M->nnz, what);
        mmx_adjacency_free(back);
        mmx_adjacency_free(da);
    }
    mmx_mesh_free(dm);
    mmx_adjacency_free(ha);
}

Test(adjacency, gpu_mesh_product_equals_host_on_random_meshes)
{
    mmx_ctx *dctx = tu_cuda_ctx_or_skip();
    mmx_ctx *hctx = tu_host_ctx();
    const struct { mmx_index nv, nf, omin, omax; } cfg[] = {{10, 14, 3, 8}, {40, 30, 3, 8}};
    for (int c = 0; c < 2; c++) {
        faces f = random_faces(100 + (uint64_t)c, cfg[c].nv, cfg[c].nf, cfg[c].omin, cfg[c].omax);
        mmx_mesh *m = mesh_of(hctx, &f);
        gpu_products(dctx, hctx, m->M, 1, "random mesh");
        mmx_mesh_free(m);
        fl_free(&f);
    }
    mmx_ctx_free(hctx);
    mmx_ctx_free(dctx);
}

Test(adjacency, gpu_mesh_product_equals_host_on_reduced_meshes)
{
    mmx_ctx *dctx = tu_cuda_ctx_or_skip();
    mmx_ctx *hctx = tu_host_ctx();
    for (mmx_index order = 3; order <= 5; order++) {
        faces f = random_faces(200 + (uint64_t)order, 16, 18, order, order);
        mmx_mesh *m = mesh_of(hctx, &f);
        MMX_OK_OR_FAIL(hctx, mmx_mesh_reduce(hctx, m));
        gpu_products(dctx, hctx, m->M, 1, "reduced mesh");
        mmx_mesh_free(m);
        fl_free(&f);
    }
    mmx_ctx_free(hctx);
    mmx_ctx_free(dctx);
}

Test(adjacency, gpu_mesh_product_equals_host_on_stored_values)
{
    mmx_ctx *dctx = tu_cuda_ctx_or_skip();
    mmx_ctx *hctx = tu_host_ctx();
    faces f = random_faces(300, 14, 16, 3, 7);
    mmx_mesh *m = mesh_of(hctx, &f);
    for (int kind = 0; kind < 2; kind++) {
        mmx_csc *R = revalued(hctx, m->M, 31 + (uint64_t)kind, kind);
        gpu_products(dctx, hctx, R, 1, kind ? "arbitrary values" : "shuffled positions");
        mmx_csc_free(R);
    }
    mmx_mesh_free(m);
    fl_free(&f);
    mmx_ctx_free(hctx);
    mmx_ctx_free(dctx);
}

Test(adjacency, gpu_mesh_product_on_long_columns_and_big_meshes)
{
    mmx_ctx *dctx = tu_cuda_ctx_or_skip();
    mmx_ctx *hctx = tu_host_ctx();
    for (int c = 0; c < 2; c++) {
        faces f = c == 0 ? fan360(1) : capped_cone360();
        mmx_mesh *m = mesh_of(hctx, &f);
        gpu_products(dctx, hctx, m->M, 0, "360");
        if (c == 0) {
            MMX_OK_OR_FAIL(hctx, mmx_mesh_reduce(hctx, m));
            gpu_products(dctx, hctx, m->M, 0, "360 reduced");
        }
        mmx_mesh_free(m);
        fl_free(&f);
    }
    /* Many blocks: a torus of 40k quads in both forms, and a shuffled mixed mesh. */
    mmx_mesh *t = tu_shape(hctx, "torus:200:200");
    gpu_products(dctx, hctx, t->M, 0, "torus:200:200");
    MMX_OK_OR_FAIL(hctx, mmx_mesh_reduce(hctx, t));
    gpu_products(dctx, hctx, t->M, 0, "torus:200:200 reduced");
    mmx_mesh_free(t);
    faces f = random_faces(77, 30000, 20000, 3, 8);
    mmx_mesh *r = mesh_of(hctx, &f);
    gpu_products(dctx, hctx, r->M, 0, "random 20000 faces");
    mmx_mesh_free(r);
    fl_free(&f);
    mmx_ctx_free(hctx);
    mmx_ctx_free(dctx);
}

Test(adjacency, gpu_mesh_product_errors)
{
    mmx_ctx *dctx = tu_cuda_ctx_or_skip();
    mmx_ctx *hctx = tu_host_ctx();
    mmx_mesh *hm = tu_shape(hctx, "mixed");
    mmx_mesh *dm = NULL;
    MMX_OK_OR_FAIL(dctx, mmx_mesh_copy(dctx, hm, MMX_SPACE_DEVICE, &dm));
    mmx_gemm_map ok = {{MMX_REL_CYCLE, 1, NULL, 0}, MMX_COLL_K, MMX_MONOID_MIN};
    mmx_csc *C = (mmx_csc *)1;
    /* Host matrix on a device context, device matrix on a host context. */
    cr_assert_eq(mmx_mesh_product(dctx, hm->M, ok, &C), MMX_ERR_SPACE);
    cr_assert_null(C);
    cr_assert_eq(mmx_mesh_product(hctx, dm->M, ok, &C), MMX_ERR_SPACE);
    mmx_adjacency *a = (mmx_adjacency *)1;
    cr_assert_eq(mmx_adjacency_compute(dctx, hm, &a), MMX_ERR_SPACE);
    cr_assert_null(a);
    cr_assert_eq(mmx_adjacency_compute(hctx, dm, &a), MMX_ERR_SPACE);
    /* A table that does not cover the hexagon's values. */
    mmx_index *dt = NULL;
    MMX_OK_OR_FAIL(dctx, mmx_mem_alloc(dctx, MMX_SPACE_DEVICE, 25 * sizeof *dt, (void **)&dt));
    mmx_gemm_map t = {{MMX_REL_TABLE, 0, dt, 5}, MMX_COLL_MAP, MMX_MONOID_SUM};
    cr_assert_eq(mmx_mesh_product(dctx, dm->M, t, &C), MMX_ERR_ARG);
    /* Overflow on the device too. */
    const mmx_index colptr[] = {0, 3}, rowidx[] = {0, 1, 2}, val[] = {50000, 50000, 50000};
    mmx_csc *M = NULL;
    MMX_OK_OR_FAIL(dctx, mmx_csc_create(dctx, 3, 1, colptr, rowidx, val, MMX_SPACE_HOST, &M));
    mmx_gemm_map big = {{MMX_REL_ALL, 0, NULL, 0}, MMX_COLL_PRODUCT, MMX_MONOID_SUM};
    C = (mmx_csc *)1;
    cr_assert_eq(mmx_mesh_product(dctx, M, big, &C), MMX_ERR_OVERFLOW);
    cr_assert_null(C);
    /* and the context still works */
    MMX_OK_OR_FAIL(dctx, mmx_mesh_product(dctx, dm->M, ok, &C));
    mmx_csc_free(C);
    mmx_csc_free(M);
    mmx_mem_free(dctx, MMX_SPACE_DEVICE, dt);
    mmx_mesh_free(dm);
    mmx_mesh_free(hm);
    mmx_ctx_free(hctx);
    mmx_ctx_free(dctx);
}

Test(adjacency, gpu_adjacency_equals_host_on_shapes)
{
    mmx_ctx *dctx = tu_cuda_ctx_or_skip();
    mmx_ctx *hctx = tu_host_ctx();
    for (int c = 0; c < NSHAPES; c++) {
        mmx_mesh *m = tu_shape(hctx, k_shapes[c].spec);
        gpu_adjacency_case(dctx, hctx, m, k_shapes[c].spec);
        mmx_mesh_free(m);
    }
    mmx_mesh *t = tu_shape(hctx, "torus:200:200");
    gpu_adjacency_case(dctx, hctx, t, "torus:200:200");
    mmx_mesh_free(t);
    mmx_ctx_free(hctx);
    mmx_ctx_free(dctx);
}

Test(adjacency, gpu_adjacency_equals_host_on_hard_cases)
{
    mmx_ctx *dctx = tu_cuda_ctx_or_skip();
    mmx_ctx *hctx = tu_host_ctx();
    faces cases[6];
    const char *names[6] = {"closed fan", "open fan", "capped cone", "fin", "flipped", "empty"};
    cases[0] = fan360(1);
    cases[1] = fan360(0);
    cases[2] = capped_cone360();
    cases[3] = fl_alloc(5, 3, 9);
    const mmx_index fin[9] = {0, 1, 2, 1, 0, 3, 0, 1, 4};
    memcpy(cases[3].verts, fin, sizeof fin);
    for (int k = 1; k <= 3; k++) cases[3].start[k] = 3 * k;
    cases[4] = fl_alloc(5, 2, 6);
    const mmx_index flip[6] = {0, 1, 2, 1, 2, 3};
    memcpy(cases[4].verts, flip, sizeof flip);
    cases[4].start[1] = 3, cases[4].start[2] = 6;
    cases[5] = fl_alloc(3, 0, 0);
    for (int c = 0; c < 6; c++) {
        mmx_mesh *m = mesh_of(hctx, &cases[c]);
        gpu_adjacency_case(dctx, hctx, m, names[c]);
        mmx_mesh_free(m);
        fl_free(&cases[c]);
    }
    mmx_ctx_free(hctx);
    mmx_ctx_free(dctx);
}

Test(adjacency, gpu_adjacency_equals_host_on_random_and_shuffled_meshes)
{
    mmx_ctx *dctx = tu_cuda_ctx_or_skip();
    mmx_ctx *hctx = tu_host_ctx();
    for (int c = 0; c < 6; c++) {
        mmx_index nv = c < 3 ? 12 + 8 * c : 30000, nf = c < 3 ? 20 : 20000;
        faces f = random_faces(500 + (uint64_t)c, nv, nf, 3, c % 2 ? 4 : 8);
        mmx_mesh *m = mesh_of(hctx, &f);
        gpu_adjacency_case(dctx, hctx, m, "random");
        mmx_mesh_free(m);
        fl_free(&f);
    }
    /* A larger shape in scanned (shuffled) order, both forms. */
    mmx_mesh *ico = tu_shape(hctx, "icosphere:5");
    faces f = faces_of(hctx, ico);
    mmx_index *vperm = NULL;
    faces g = shuffled(&f, 4242, &vperm);
    mmx_mesh *m = mesh_of(hctx, &g);
    gpu_adjacency_case(dctx, hctx, m, "shuffled icosphere:5");
    mmx_adjacency *a = adjacency(hctx, m);
    check_adjacency(&g, a, "shuffled icosphere:5");
    mmx_adjacency_free(a);
    mmx_mesh_free(m);
    mmx_mesh_free(ico);
    fl_free(&f);
    fl_free(&g);
    free(vperm);
    mmx_ctx_free(hctx);
    mmx_ctx_free(dctx);
}
