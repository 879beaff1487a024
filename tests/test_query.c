/* Criterion suite "query": the eight first-order queries by algebra (mmx_query) against the
 * plain statement over face lists (tests/spec/query.c) on the built-in shapes, the data files,
 * random meshes (parts of grids with boundaries, several components and isolated vertices;
 * random polygon soups with non-manifold and inconsistent edges) and adversarial ones; a few
 * rows by hand, so that the order itself is asserted; then CUDA against the host, exactly. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#include "spec/spec.h"

/* ---- helpers ----------------------------------------------------------------------------- */

static uint64_t rng_next(uint64_t *s)
{
    /* splitmix64 */
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static mmx_index rng_below(uint64_t *s, mmx_index n) { return (mmx_index)(rng_next(s) % (uint64_t)n); }

static mmx_mesh *mesh_from(mmx_ctx *ctx, mmx_index nv, mmx_index nf, const mmx_index *start,
                           const mmx_index *verts)
{
    mmx_mesh *m = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_from_faces(ctx, nv, nf, start, verts, NULL, &m));
    return m;
}

/* A mesh of triangles only (nf of them, verts 3 per face). */
static mmx_mesh *tris(mmx_ctx *ctx, mmx_index nv, mmx_index nf, const mmx_index *verts)
{
    mmx_index *start = malloc(((size_t)nf + 1) * sizeof *start);
    cr_assert(start);
    for (mmx_index f = 0; f <= nf; f++) start[f] = 3 * f;
    mmx_mesh *m = mesh_from(ctx, nv, nf, start, verts);
    free(start);
    return m;
}

static mmx_mesh *data_mesh(mmx_ctx *ctx, const char *name)
{
    mmx_mesh *m = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_read(ctx, tu_data(name), MMX_FORMAT_AUTO, &m));
    return m;
}

/* Row i of a host result: [*a, *b) of colidx, in either form. */
static void row(const mmx_csr *R, mmx_index i, mmx_index *a, mmx_index *b)
{
    *a = R->order ? R->order * i : R->rowptr[i];
    *b = R->order ? *a + R->order : R->rowptr[i + 1];
}

/* The number of edges, from the spec's EV. */
static mmx_index spec_nedges(const mmx_mesh *m)
{
    mmx_index *p, *c, n;
    cr_assert_eq(spec_query(m, MMX_QUERY_EV, &p, &c, &n), 0);
    free(p);
    free(c);
    return n;
}

/* mmx_query(kind) of host mesh m (adjacency computed, or given) against the spec: the same
 * rows, or the same refusal naming the same edge. */
static void check_kind(mmx_ctx *ctx, const mmx_mesh *m, const mmx_adjacency *adj,
                       mmx_query_kind kind, const char *what)
{
    const char *kn = mmx_query_name(kind);
    mmx_index *sp = NULL, *sc = NULL, sn = 0;
    const int refused = spec_query(m, kind, &sp, &sc, &sn);
    mmx_csr *R = NULL;
    mmx_status s = mmx_query(ctx, m, adj, kind, &R);
    if (refused) {
        cr_assert_eq(s, MMX_ERR_MESH, "%s %s: expected a refusal, got %s", what, kn, mmx_status_str(s));
        cr_assert_null(R);
        mmx_index a, b;
        cr_assert(spec_query_inconsistent_edge(m, &a, &b));
        char edge[64];
        snprintf(edge, sizeof edge, "{%d, %d}", a, b);
        cr_assert(strstr(mmx_ctx_error(ctx), edge), "%s %s: the error '%s' does not name edge %s",
                  what, kn, mmx_ctx_error(ctx), edge);
        return;
    }
    cr_assert_eq(s, MMX_OK, "%s %s: %s: %s", what, kn, mmx_status_str(s), mmx_ctx_error(ctx));
    const mmx_index nv = mmx_mesh_nverts(m), nf = mmx_mesh_nfaces(m), ne = spec_nedges(m);
    const mmx_index src[] = {nv, nv, nv, ne, ne, nf, nf, nf};
    const mmx_index dst[] = {nv, ne, nf, nv, nf, nv, ne, nf};
    cr_assert_eq(R->nrows, sn, "%s %s: %d rows, spec %d", what, kn, R->nrows, sn);
    cr_assert_eq(R->nrows, src[kind], "%s %s: nrows", what, kn);
    cr_assert_eq(R->ncols, dst[kind], "%s %s: ncols %d, expected %d", what, kn, R->ncols, dst[kind]);
    cr_assert_eq(R->nnz, sp[sn], "%s %s: nnz %d, spec %d", what, kn, R->nnz, sp[sn]);
    cr_assert_eq(R->space, MMX_SPACE_HOST);
    cr_assert_null(R->val);
    if (kind == MMX_QUERY_EV) cr_assert_eq(R->order, 2, "%s EV: not reduced", what);
    if (R->order) cr_assert_null(R->rowptr);
    else cr_assert_eq(R->rowptr[0], 0);
    for (mmx_index i = 0; i < sn; i++) {
        mmx_index a, b;
        row(R, i, &a, &b);
        cr_assert_eq(b - a, sp[i + 1] - sp[i], "%s %s: row %d has %d entries, spec %d", what, kn,
                     i, b - a, sp[i + 1] - sp[i]);
        for (mmx_index k = 0; k < b - a; k++)
            cr_assert_eq(R->colidx[a + k], sc[sp[i] + k],
                         "%s %s: row %d entry %d is %d, spec %d", what, kn, i, k, R->colidx[a + k],
                         sc[sp[i] + k]);
    }
    mmx_csr_free(R);
    free(sp);
    free(sc);
}

/* A plan's result for kind (allocated by the plan, written by a run) equals mmx_query's,
 * array for array, or both refuse with the same status and sentence. */
static void check_plan_kind(mmx_ctx *ctx, const mmx_mesh *m, const mmx_query_plan *P,
                            mmx_query_kind kind, const char *what)
{
    const char *kn = mmx_query_name(kind);
    mmx_csr *Q = NULL, *R = NULL;
    const mmx_status qs = mmx_query(ctx, m, NULL, kind, &Q);
    char qerr[512];
    snprintf(qerr, sizeof qerr, "%s", mmx_ctx_error(ctx));
    mmx_status ps = mmx_query_plan_alloc(ctx, P, kind, &R);
    if (!ps) ps = mmx_query_plan_run(ctx, P, kind, R);
    cr_assert_eq(ps, qs, "%s plan %s: %s (%s), mmx_query %s", what, kn, mmx_status_str(ps),
                 mmx_ctx_error(ctx), mmx_status_str(qs));
    if (qs) {
        cr_assert_str_eq(mmx_ctx_error(ctx), qerr, "%s plan %s: the refusal's sentence", what, kn);
        if (R) {
            /* refused at the run: then the allocation must have refused too */
            cr_assert_fail("%s plan %s: allocated a result for a refused query", what, kn);
        }
        return;
    }
    cr_assert_eq(R->nrows, Q->nrows, "%s plan %s: nrows", what, kn);
    cr_assert_eq(R->ncols, Q->ncols, "%s plan %s: ncols", what, kn);
    cr_assert_eq(R->nnz, Q->nnz, "%s plan %s: nnz %d, mmx_query %d", what, kn, R->nnz, Q->nnz);
    cr_assert_eq(R->order, Q->order, "%s plan %s: order", what, kn);
    cr_assert_null(R->val);
    if (!Q->order)
        cr_assert_arr_eq(R->rowptr, Q->rowptr, ((size_t)Q->nrows + 1) * sizeof *Q->rowptr,
                         "%s plan %s: rowptr", what, kn);
    for (mmx_index i = 0; i < Q->nnz; i++)
        cr_assert_eq(R->colidx[i], Q->colidx[i], "%s plan %s: entry %d is %d, mmx_query %d", what,
                     kn, i, R->colidx[i], Q->colidx[i]);
    /* A second run into the same result gives the same arrays (nothing is consumed). */
    MMX_OK_OR_FAIL(ctx, mmx_query_plan_run(ctx, P, kind, R));
    for (mmx_index i = 0; i < Q->nnz; i++) cr_assert_eq(R->colidx[i], Q->colidx[i]);
    mmx_csr_free(R);
    mmx_csr_free(Q);
}

/* Every kind, with the adjacency computed inside and given; and by a plan of each. */
static void check_all(mmx_ctx *ctx, const mmx_mesh *m, const char *what)
{
    mmx_adjacency *adj = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_adjacency_compute(ctx, m, &adj));
    for (int k = 0; k < MMX_QUERY_COUNT; k++) {
        check_kind(ctx, m, NULL, (mmx_query_kind)k, what);
        check_kind(ctx, m, adj, (mmx_query_kind)k, what);
    }
    mmx_query_plan *P = NULL, *Pa = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_query_plan_create(ctx, m, NULL, &P));
    MMX_OK_OR_FAIL(ctx, mmx_query_plan_create(ctx, m, adj, &Pa));
    for (int k = 0; k < MMX_QUERY_COUNT; k++) {
        check_plan_kind(ctx, m, P, (mmx_query_kind)k, what);
        check_plan_kind(ctx, m, Pa, (mmx_query_kind)k, what);
    }
    mmx_query_plan_free(P);
    mmx_query_plan_free(Pa);
    mmx_adjacency_free(adj);
}

/* Asserts row i of query kind of m equals want[0 .. n). */
static void expect_row(mmx_ctx *ctx, const mmx_mesh *m, mmx_query_kind kind, mmx_index i,
                       const mmx_index *want, mmx_index n)
{
    mmx_csr *R = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_query(ctx, m, NULL, kind, &R));
    mmx_index a, b;
    row(R, i, &a, &b);
    cr_assert_eq(b - a, n, "%s row %d: %d entries, expected %d", mmx_query_name(kind), i, b - a, n);
    for (mmx_index k = 0; k < n; k++)
        cr_assert_eq(R->colidx[a + k], want[k], "%s row %d entry %d: %d, expected %d",
                     mmx_query_name(kind), i, k, R->colidx[a + k], want[k]);
    mmx_csr_free(R);
}

#define EXPECT_ROW(ctx, m, kind, i, ...)                                                   \
    do {                                                                                   \
        const mmx_index want_[] = {__VA_ARGS__};                                           \
        expect_row(ctx, m, kind, i, want_, (mmx_index)(sizeof want_ / sizeof want_[0]));   \
    } while (0)

/* An NX x NY grid of quads on (NX+1)(NY+1) vertices (vertex r(NX+1) + c), counter-clockwise,
 * face r NX + c; each face kept with probability keep/100 (and, when `tri`, split in two
 * triangles along an alternating diagonal). */
static mmx_mesh *grid_part(mmx_ctx *ctx, uint64_t seed, mmx_index nx, mmx_index ny, int keep, int tri)
{
    uint64_t s = seed;
    const mmx_index W = nx + 1;
    mmx_index *start = malloc((2 * (size_t)nx * ny + 1) * sizeof *start);
    mmx_index *verts = malloc((8 * (size_t)nx * ny + 1) * sizeof *verts);
    cr_assert(start && verts);
    mmx_index nf = 0, nnz = 0;
    start[0] = 0;
    for (mmx_index r = 0; r < ny; r++)
        for (mmx_index c = 0; c < nx; c++) {
            if (rng_below(&s, 100) >= keep) continue;
            const mmx_index q[4] = {r * W + c, r * W + c + 1, (r + 1) * W + c + 1, (r + 1) * W + c};
            if (!tri) {
                for (int k = 0; k < 4; k++) verts[nnz++] = q[k];
                start[++nf] = nnz;
            } else {
                const int d = (r + c) & 1; /* which diagonal */
                const int t[2][3] = {{0, 1, 2 + d}, {d ? 1 : 0, 2, 3}};
                const int u[2][3] = {{0, 1, 3}, {1, 2, 3}};
                for (int h = 0; h < 2; h++) {
                    for (int k = 0; k < 3; k++) verts[nnz++] = q[d ? u[h][k] : t[h][k]];
                    start[++nf] = nnz;
                }
            }
        }
    mmx_mesh *m = mesh_from(ctx, W * (ny + 1), nf, start, verts);
    free(start);
    free(verts);
    return m;
}

/* nf faces of orders omin..omax with distinct random vertices among nv: non-manifold and
 * inconsistent edges, repeated faces, isolated vertices. */
static mmx_mesh *soup(mmx_ctx *ctx, uint64_t seed, mmx_index nv, mmx_index nf, mmx_index omin,
                      mmx_index omax)
{
    uint64_t s = seed;
    mmx_index *start = malloc(((size_t)nf + 1) * sizeof *start);
    mmx_index *verts = malloc(((size_t)nf * omax + 1) * sizeof *verts);
    cr_assert(start && verts);
    start[0] = 0;
    for (mmx_index f = 0; f < nf; f++) {
        const mmx_index n = omin + rng_below(&s, omax - omin + 1), at = start[f];
        for (mmx_index t = 0; t < n; t++) {
            mmx_index v;
            int again;
            do {
                v = rng_below(&s, nv);
                again = 0;
                for (mmx_index u = 0; u < t; u++) again |= verts[at + u] == v;
            } while (again);
            verts[at + t] = v;
        }
        start[f + 1] = at + n;
    }
    mmx_mesh *m = mesh_from(ctx, nv, nf, start, verts);
    free(start);
    free(verts);
    return m;
}

/* A fan of n triangles around vertex 0 (rim 1..n), closed when `closed`. */
static mmx_mesh *fan(mmx_ctx *ctx, mmx_index n, int closed)
{
    mmx_index *v = malloc(3 * (size_t)n * sizeof *v);
    cr_assert(v);
    const mmx_index nf = closed ? n : n - 1;
    for (mmx_index f = 0; f < nf; f++) {
        v[3 * f] = 0;
        v[3 * f + 1] = 1 + f;
        v[3 * f + 2] = 1 + (f + 1) % n;
    }
    mmx_mesh *m = tris(ctx, n + 1, nf, v);
    free(v);
    return m;
}

/* ---- names --------------------------------------------------------------------------------- */

Test(query, names_and_parse)
{
    mmx_ctx *ctx = tu_host_ctx();
    const char *n[] = {"VV", "VE", "VF", "EV", "EF", "FV", "FE", "FF"};
    for (int k = 0; k < MMX_QUERY_COUNT; k++) {
        cr_assert_str_eq(mmx_query_name((mmx_query_kind)k), n[k]);
        mmx_query_kind kind = MMX_QUERY_COUNT;
        MMX_OK_OR_FAIL(ctx, mmx_query_parse(ctx, n[k], &kind));
        cr_assert_eq(kind, (mmx_query_kind)k);
        char lower[3] = {(char)(n[k][0] - 'A' + 'a'), (char)(n[k][1] - 'A' + 'a'), 0};
        MMX_OK_OR_FAIL(ctx, mmx_query_parse(ctx, lower, &kind));
        cr_assert_eq(kind, (mmx_query_kind)k);
    }
    cr_assert_str_eq(mmx_query_name(MMX_QUERY_COUNT), "?");
    cr_assert_str_eq(mmx_query_name((mmx_query_kind)-1), "?");
    mmx_query_kind kind;
    const char *bad[] = {"", "V", "VVV", "XY", "vx", "EE"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        cr_assert_eq(mmx_query_parse(ctx, bad[i], &kind), MMX_ERR_ARG, "'%s' accepted", bad[i]);
        cr_assert(strstr(mmx_ctx_error(ctx), "unknown query"), "%s", mmx_ctx_error(ctx));
    }
    cr_assert_eq(mmx_query_parse(ctx, NULL, &kind), MMX_ERR_ARG);
    mmx_ctx_free(ctx);
}

Test(query, bad_arguments)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = tu_shape(ctx, "cube"), *t = tu_shape(ctx, "tetrahedron");
    mmx_csr *R = (mmx_csr *)1;
    cr_assert_eq(mmx_query(ctx, NULL, NULL, MMX_QUERY_VV, &R), MMX_ERR_ARG);
    cr_assert_null(R);
    cr_assert_eq(mmx_query(ctx, m, NULL, MMX_QUERY_COUNT, &R), MMX_ERR_ARG);
    cr_assert_eq(mmx_query(ctx, m, NULL, MMX_QUERY_VV, NULL), MMX_ERR_ARG);
    mmx_adjacency *adj = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_adjacency_compute(ctx, t, &adj));
    cr_assert_eq(mmx_query(ctx, m, adj, MMX_QUERY_VV, &R), MMX_ERR_ARG, "another mesh's adjacency");
    /* plans */
    mmx_query_plan *P = (mmx_query_plan *)1;
    cr_assert_eq(mmx_query_plan_create(ctx, NULL, NULL, &P), MMX_ERR_ARG);
    cr_assert_null(P);
    cr_assert_eq(mmx_query_plan_create(ctx, m, NULL, NULL), MMX_ERR_ARG);
    cr_assert_eq(mmx_query_plan_create(ctx, m, adj, &P), MMX_ERR_ARG, "another mesh's adjacency");
    cr_assert_null(P);
    MMX_OK_OR_FAIL(ctx, mmx_query_plan_create(ctx, m, NULL, &P));
    cr_assert_eq(mmx_query_plan_alloc(ctx, P, MMX_QUERY_COUNT, &R), MMX_ERR_ARG);
    cr_assert_null(R);
    cr_assert_eq(mmx_query_plan_alloc(ctx, NULL, MMX_QUERY_VV, &R), MMX_ERR_ARG);
    cr_assert_eq(mmx_query_plan_alloc(ctx, P, MMX_QUERY_VV, NULL), MMX_ERR_ARG);
    mmx_csr *vv = NULL, *vf = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_query_plan_alloc(ctx, P, MMX_QUERY_VV, &vv));
    MMX_OK_OR_FAIL(ctx, mmx_query_plan_alloc(ctx, P, MMX_QUERY_VF, &vf));
    /* a result made for another kind (cube: VV has 24 entries, VF 24 too, other columns) */
    cr_assert_eq(mmx_query_plan_run(ctx, P, MMX_QUERY_VF, vv), MMX_ERR_ARG);
    cr_assert(strstr(mmx_ctx_error(ctx), "is not what mmx_query_plan_alloc makes"), "%s", mmx_ctx_error(ctx));
    cr_assert_eq(mmx_query_plan_run(ctx, P, MMX_QUERY_EF, vv), MMX_ERR_ARG);
    cr_assert_eq(mmx_query_plan_run(ctx, P, MMX_QUERY_VV, NULL), MMX_ERR_ARG);
    cr_assert_eq(mmx_query_plan_run(ctx, NULL, MMX_QUERY_VV, vv), MMX_ERR_ARG);
    MMX_OK_OR_FAIL(ctx, mmx_query_plan_run(ctx, P, MMX_QUERY_VV, vv));
    /* another plan's result of the same shape is accepted: the shape is the contract */
    mmx_query_plan *P2 = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_query_plan_create(ctx, m, NULL, &P2));
    MMX_OK_OR_FAIL(ctx, mmx_query_plan_run(ctx, P2, MMX_QUERY_VF, vf));
    mmx_query_plan_free(P2);
    mmx_csr_free(vv);
    mmx_csr_free(vf);
    mmx_query_plan_free(P);
    mmx_query_plan_free(NULL);
    mmx_adjacency_free(adj);
    mmx_csr_free(NULL);
    mmx_mesh_free(m);
    mmx_mesh_free(t);
    mmx_ctx_free(ctx);
}

/* ---- rows by hand ---------------------------------------------------------------------- */

Test(query, single_quad_by_hand)
{
    mmx_ctx *ctx = tu_host_ctx();
    const mmx_index start[] = {0, 4}, verts[] = {0, 1, 2, 3};
    mmx_mesh *m = mesh_from(ctx, 4, 1, start, verts);
    /* Edges by (higher end, lower end): {0,1} 0, {1,2} 1, {0,3} 2, {2,3} 3. */
    EXPECT_ROW(ctx, m, MMX_QUERY_FV, 0, 0, 1, 2, 3);
    EXPECT_ROW(ctx, m, MMX_QUERY_FE, 0, 0, 1, 3, 2);
    EXPECT_ROW(ctx, m, MMX_QUERY_EV, 2, 0, 3);
    EXPECT_ROW(ctx, m, MMX_QUERY_EV, 3, 2, 3);
    EXPECT_ROW(ctx, m, MMX_QUERY_EF, 2, 0);
    EXPECT_ROW(ctx, m, MMX_QUERY_VV, 0, 1, 3);
    EXPECT_ROW(ctx, m, MMX_QUERY_VV, 2, 3, 1);
    EXPECT_ROW(ctx, m, MMX_QUERY_VE, 0, 0, 2);
    EXPECT_ROW(ctx, m, MMX_QUERY_VE, 2, 3, 1);
    EXPECT_ROW(ctx, m, MMX_QUERY_VF, 1, 0);
    mmx_csr *R = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_query(ctx, m, NULL, MMX_QUERY_FF, &R));
    cr_assert_eq(R->nnz, 0);
    cr_assert_eq(R->rowptr[1], 0);
    mmx_csr_free(R);
    MMX_OK_OR_FAIL(ctx, mmx_query(ctx, m, NULL, MMX_QUERY_FV, &R));
    cr_assert_eq(R->order, 4, "FV of a quad is reduced");
    mmx_csr_free(R);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(query, grid_2x2_by_hand)
{
    mmx_ctx *ctx = tu_host_ctx();
    /* 6 7 8 / 3 4 5 / 0 1 2; faces 0 (lower left), 1 (lower right), 2, 3 (upper). */
    const mmx_index start[] = {0, 4, 8, 12, 16};
    const mmx_index verts[] = {0, 1, 4, 3, 1, 2, 5, 4, 3, 4, 7, 6, 4, 5, 8, 7};
    mmx_mesh *m = mesh_from(ctx, 9, 4, start, verts);
    /* The centre: a closed fan from face 0, counter-clockwise: left, down, right, up. */
    EXPECT_ROW(ctx, m, MMX_QUERY_VV, 4, 3, 1, 5, 7);
    EXPECT_ROW(ctx, m, MMX_QUERY_VF, 4, 0, 1, 3, 2);
    /* Edges at 4 by (higher, lower): {1,4} 3, {3,4} 4, {4,5} 6, {4,7} 8. */
    EXPECT_ROW(ctx, m, MMX_QUERY_VE, 4, 4, 3, 6, 8);
    /* A corner, and the middle of the bottom side: open fans, after the boundary. */
    EXPECT_ROW(ctx, m, MMX_QUERY_VV, 0, 1, 3);
    EXPECT_ROW(ctx, m, MMX_QUERY_VV, 1, 2, 4, 0);
    EXPECT_ROW(ctx, m, MMX_QUERY_VF, 1, 1, 0);
    EXPECT_ROW(ctx, m, MMX_QUERY_VV, 5, 8, 4, 2);
    /* Face 0's edges {0,1} 0, {1,4} 3, {3,4} 4, {0,3} 2; its neighbours across them. */
    EXPECT_ROW(ctx, m, MMX_QUERY_FE, 0, 0, 3, 4, 2);
    EXPECT_ROW(ctx, m, MMX_QUERY_FF, 0, 1, 2);
    EXPECT_ROW(ctx, m, MMX_QUERY_FF, 3, 1, 2);
    EXPECT_ROW(ctx, m, MMX_QUERY_EF, 3, 0, 1);
    check_all(ctx, m, "2x2 grid");
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(query, bowtie_and_nonmanifold_by_hand)
{
    mmx_ctx *ctx = tu_host_ctx();
    const mmx_index bow[] = {0, 1, 2, 0, 3, 4};
    mmx_mesh *m = tris(ctx, 5, 2, bow);
    EXPECT_ROW(ctx, m, MMX_QUERY_VV, 0, 1, 2, 3, 4); /* two open fans by start face */
    EXPECT_ROW(ctx, m, MMX_QUERY_VF, 0, 0, 1);
    check_all(ctx, m, "bowtie");
    mmx_mesh_free(m);
    /* Three triangles on the edge {0, 1}: each its own fan at 0 and 1. */
    const mmx_index three[] = {0, 1, 2, 1, 0, 3, 0, 1, 4};
    m = tris(ctx, 5, 3, three);
    EXPECT_ROW(ctx, m, MMX_QUERY_VV, 0, 1, 2, 3, 1, 1, 4);
    EXPECT_ROW(ctx, m, MMX_QUERY_EF, 0, 0, 1, 2);
    EXPECT_ROW(ctx, m, MMX_QUERY_FF, 0, 1, 2);
    check_all(ctx, m, "three on an edge");
    mmx_mesh_free(m);
    /* Two closed cones touching at their apex 0: two closed fans, by smallest face. */
    const mmx_index cones[] = {0, 4, 5, 0, 1, 2, 0, 5, 6, 0, 2, 3, 0, 6, 4, 0, 3, 1};
    m = tris(ctx, 7, 6, cones);
    EXPECT_ROW(ctx, m, MMX_QUERY_VF, 0, 0, 2, 4, 1, 3, 5);
    EXPECT_ROW(ctx, m, MMX_QUERY_VV, 0, 4, 5, 6, 1, 2, 3);
    check_all(ctx, m, "two cones");
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(query, inconsistent_orientation_refused_for_vertex_queries)
{
    mmx_ctx *ctx = tu_host_ctx();
    /* Both faces run 1 -> 2. */
    const mmx_index v[] = {0, 1, 2, 1, 2, 3, 3, 2, 4};
    mmx_mesh *m = tris(ctx, 5, 3, v);
    for (int k = 0; k < 3; k++) {
        mmx_csr *R = NULL;
        cr_assert_eq(mmx_query(ctx, m, NULL, (mmx_query_kind)k, &R), MMX_ERR_MESH);
        cr_assert_null(R);
        cr_assert(strstr(mmx_ctx_error(ctx), "{1, 2}"), "%s", mmx_ctx_error(ctx));
    }
    mmx_query_plan *P = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_query_plan_create(ctx, m, NULL, &P));
    for (int k = 0; k < 3; k++) {
        mmx_csr *R = (mmx_csr *)1;
        cr_assert_eq(mmx_query_plan_alloc(ctx, P, (mmx_query_kind)k, &R), MMX_ERR_MESH);
        cr_assert_null(R);
        cr_assert(strstr(mmx_ctx_error(ctx), "{1, 2}"), "%s", mmx_ctx_error(ctx));
    }
    mmx_query_plan_free(P);
    /* edges {0,1} 0, {0,2} 1, {1,2} 2, ... */
    EXPECT_ROW(ctx, m, MMX_QUERY_EF, 2, 0, 1);
    EXPECT_ROW(ctx, m, MMX_QUERY_FF, 1, 0, 2);
    check_all(ctx, m, "inconsistent");
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* ---- against the spec ------------------------------------------------------------------- */

Test(query, shapes_match_spec)
{
    mmx_ctx *ctx = tu_host_ctx();
    const char *shapes[] = {"tetrahedron", "cube", "icosphere:0", "icosphere:2", "torus:8:6",
                            "torus:3", "grid:5:4", "grid:9:8", "mixed"};
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        mmx_mesh *m = tu_shape(ctx, shapes[i]);
        check_all(ctx, m, shapes[i]);
        /* the reduced form where it applies */
        mmx_index order = 0;
        MMX_OK_OR_FAIL(ctx, mmx_mesh_uniform_order(ctx, m, &order));
        if (order) {
            MMX_OK_OR_FAIL(ctx, mmx_mesh_reduce(ctx, m));
            check_all(ctx, m, shapes[i]);
        }
        mmx_mesh_free(m);
    }
    mmx_ctx_free(ctx);
}

Test(query, data_files_match_spec)
{
    mmx_ctx *ctx = tu_host_ctx();
    const char *files[] = {"cube.obj", "house.obj", "strip.obj", "cube.off", "tetra_ascii.ply",
                           "textured.obj", "bigguy_quads.obj"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        mmx_mesh *m = data_mesh(ctx, files[i]);
        check_all(ctx, m, files[i]);
        mmx_mesh_free(m);
    }
    mmx_ctx_free(ctx);
}

Test(query, random_grid_parts_match_spec)
{
    mmx_ctx *ctx = tu_host_ctx();
    for (uint64_t seed = 1; seed <= 12; seed++) {
        const int keep = 30 + (int)(seed * 5) % 65, tri = (int)(seed & 1);
        mmx_mesh *m = grid_part(ctx, seed, 4 + (mmx_index)(seed % 5), 3 + (mmx_index)(seed % 4), keep, tri);
        char what[64];
        snprintf(what, sizeof what, "grid part seed %d keep %d%s", (int)seed, keep, tri ? " tri" : "");
        check_all(ctx, m, what);
        /* shuffled: other numbers, the same statement */
        mmx_mesh *s = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_mesh_shuffle(ctx, m, seed, NULL, NULL, &s));
        check_all(ctx, s, what);
        mmx_mesh_free(s);
        mmx_mesh_free(m);
    }
    mmx_ctx_free(ctx);
}

Test(query, random_soups_match_spec)
{
    mmx_ctx *ctx = tu_host_ctx();
    const struct { mmx_index nv, nf, omin, omax; } cfg[] = {
        {6, 5, 3, 3}, {10, 14, 3, 6}, {30, 20, 3, 5}, {40, 12, 4, 4}, {8, 30, 3, 4}};
    for (size_t c = 0; c < sizeof cfg / sizeof *cfg; c++)
        for (uint64_t seed = 0; seed < 4; seed++) {
            mmx_mesh *m = soup(ctx, 1000 * c + seed, cfg[c].nv, cfg[c].nf, cfg[c].omin, cfg[c].omax);
            char what[64];
            snprintf(what, sizeof what, "soup %d/%d", (int)c, (int)seed);
            check_all(ctx, m, what);
            mmx_mesh_free(m);
        }
    mmx_ctx_free(ctx);
}

Test(query, adversarial_meshes_match_spec)
{
    mmx_ctx *ctx = tu_host_ctx();
    /* no faces at all, with and without vertices */
    mmx_index zero = 0;
    mmx_mesh *m = mesh_from(ctx, 3, 0, &zero, NULL);
    check_all(ctx, m, "no faces");
    mmx_csr *R = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_query(ctx, m, NULL, MMX_QUERY_VV, &R));
    cr_assert_eq(R->nrows, 3);
    cr_assert_eq(R->nnz, 0);
    mmx_csr_free(R);
    mmx_mesh_free(m);
    m = mesh_from(ctx, 0, 0, &zero, NULL);
    check_all(ctx, m, "empty");
    mmx_mesh_free(m);
    /* one triangle, with an isolated vertex */
    const mmx_index one[] = {3, 1, 0};
    m = tris(ctx, 4, 1, one);
    EXPECT_ROW(ctx, m, MMX_QUERY_VV, 1, 0, 3);
    expect_row(ctx, m, MMX_QUERY_VV, 2, NULL, 0); /* isolated: an empty row */
    check_all(ctx, m, "one triangle");
    mmx_mesh_free(m);
    /* fans of many triangles, open and closed */
    for (int closed = 0; closed < 2; closed++) {
        m = fan(ctx, 300, closed);
        check_all(ctx, m, closed ? "closed fan" : "open fan");
        mmx_mesh_free(m);
    }
    /* a hundred triangles on one edge */
    mmx_index *v = malloc(300 * sizeof *v);
    cr_assert(v);
    for (mmx_index f = 0; f < 100; f++) {
        v[3 * f] = f & 1 ? 1 : 0;
        v[3 * f + 1] = f & 1 ? 0 : 1;
        v[3 * f + 2] = 2 + f;
    }
    m = tris(ctx, 102, 100, v);
    free(v);
    check_all(ctx, m, "book of 100 pages");
    mmx_mesh_free(m);
    /* pentagons and a hexagon: a polygon disk */
    const mmx_index pstart[] = {0, 5, 10, 16};
    const mmx_index pverts[] = {0, 1, 2, 3, 4, 1, 5, 6, 7, 2, 4, 3, 8, 9, 10, 11};
    m = mesh_from(ctx, 12, 3, pstart, pverts);
    EXPECT_ROW(ctx, m, MMX_QUERY_FV, 2, 4, 3, 8, 9, 10, 11);
    check_all(ctx, m, "pentagons");
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* ---- CUDA against the host ------------------------------------------------------------- */

/* A device result's arrays on the host. */
static void csr_to_host(mmx_ctx *dctx, const mmx_csr *R, mmx_index **rowptr, mmx_index **colidx)
{
    *rowptr = NULL;
    *colidx = malloc(((size_t)R->nnz + 1) * sizeof **colidx);
    cr_assert(*colidx);
    if (R->nnz)
        MMX_OK_OR_FAIL(dctx, mmx_mem_copy(dctx, *colidx, MMX_SPACE_HOST, R->colidx, MMX_SPACE_DEVICE,
                                          (size_t)R->nnz * sizeof **colidx));
    if (!R->order) {
        *rowptr = malloc(((size_t)R->nrows + 1) * sizeof **rowptr);
        cr_assert(*rowptr);
        MMX_OK_OR_FAIL(dctx, mmx_mem_copy(dctx, *rowptr, MMX_SPACE_HOST, R->rowptr, MMX_SPACE_DEVICE,
                                          ((size_t)R->nrows + 1) * sizeof **rowptr));
    }
}

static void gpu_check(mmx_ctx *dctx, mmx_ctx *hctx, const mmx_mesh *hm, const char *what)
{
    mmx_mesh *dm = NULL;
    MMX_OK_OR_FAIL(dctx, mmx_mesh_copy(dctx, hm, MMX_SPACE_DEVICE, &dm));
    mmx_adjacency *dadj = NULL;
    MMX_OK_OR_FAIL(dctx, mmx_adjacency_compute(dctx, dm, &dadj));
    for (int k = 0; k < MMX_QUERY_COUNT; k++) {
        const mmx_query_kind kind = (mmx_query_kind)k;
        const char *kn = mmx_query_name(kind);
        mmx_csr *H = NULL, *D = NULL;
        const mmx_status hs = mmx_query(hctx, hm, NULL, kind, &H);
        const mmx_status ds = mmx_query(dctx, dm, k & 1 ? dadj : NULL, kind, &D);
        cr_assert_eq(ds, hs, "%s %s: device %s (%s), host %s", what, kn, mmx_status_str(ds),
                     mmx_ctx_error(dctx), mmx_status_str(hs));
        if (hs) {
            cr_assert_str_eq(mmx_ctx_error(dctx), mmx_ctx_error(hctx), "%s %s: messages", what, kn);
            continue;
        }
        cr_assert_eq(D->space, MMX_SPACE_DEVICE);
        cr_assert_eq(D->nrows, H->nrows, "%s %s: nrows", what, kn);
        cr_assert_eq(D->ncols, H->ncols, "%s %s: ncols", what, kn);
        cr_assert_eq(D->nnz, H->nnz, "%s %s: nnz", what, kn);
        cr_assert_eq(D->order, H->order, "%s %s: order", what, kn);
        mmx_index *rp, *ci;
        csr_to_host(dctx, D, &rp, &ci);
        if (H->nnz) cr_assert_arr_eq(ci, H->colidx, (size_t)H->nnz * sizeof *ci, "%s %s: colidx", what, kn);
        if (!H->order)
            cr_assert_arr_eq(rp, H->rowptr, ((size_t)H->nrows + 1) * sizeof *rp, "%s %s: rowptr", what, kn);
        free(rp);
        free(ci);
        mmx_csr_free(H);
        mmx_csr_free(D);
    }
    /* The device plan's results against the host's mmx_query. */
    mmx_query_plan *DP = NULL;
    MMX_OK_OR_FAIL(dctx, mmx_query_plan_create(dctx, dm, dadj, &DP));
    for (int k = 0; k < MMX_QUERY_COUNT; k++) {
        const mmx_query_kind kind = (mmx_query_kind)k;
        const char *kn = mmx_query_name(kind);
        mmx_csr *H = NULL, *D = NULL;
        const mmx_status hs = mmx_query(hctx, hm, NULL, kind, &H);
        mmx_status ds = mmx_query_plan_alloc(dctx, DP, kind, &D);
        if (!ds) ds = mmx_query_plan_run(dctx, DP, kind, D);
        cr_assert_eq(ds, hs, "%s plan %s: device %s (%s), host %s", what, kn, mmx_status_str(ds),
                     mmx_ctx_error(dctx), mmx_status_str(hs));
        if (hs) {
            cr_assert_str_eq(mmx_ctx_error(dctx), mmx_ctx_error(hctx), "%s plan %s: messages", what, kn);
            continue;
        }
        cr_assert_eq(D->space, MMX_SPACE_DEVICE);
        cr_assert_eq(D->nrows, H->nrows, "%s plan %s: nrows", what, kn);
        cr_assert_eq(D->nnz, H->nnz, "%s plan %s: nnz", what, kn);
        cr_assert_eq(D->order, H->order, "%s plan %s: order", what, kn);
        mmx_index *rp, *ci;
        csr_to_host(dctx, D, &rp, &ci);
        if (H->nnz)
            cr_assert_arr_eq(ci, H->colidx, (size_t)H->nnz * sizeof *ci, "%s plan %s: colidx", what, kn);
        if (!H->order)
            cr_assert_arr_eq(rp, H->rowptr, ((size_t)H->nrows + 1) * sizeof *rp, "%s plan %s: rowptr",
                             what, kn);
        free(rp);
        free(ci);
        mmx_csr_free(H);
        mmx_csr_free(D);
    }
    mmx_query_plan_free(DP);
    mmx_adjacency_free(dadj);
    mmx_mesh_free(dm);
}

Test(query, gpu_matches_host)
{
    mmx_ctx *dctx = tu_cuda_ctx_or_skip();
    mmx_ctx *hctx = tu_host_ctx();
    const char *shapes[] = {"tetrahedron", "cube", "icosphere:3", "torus:24:12", "grid:12:9", "mixed"};
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        mmx_mesh *m = tu_shape(hctx, shapes[i]);
        gpu_check(dctx, hctx, m, shapes[i]);
        mmx_index order = 0;
        MMX_OK_OR_FAIL(hctx, mmx_mesh_uniform_order(hctx, m, &order));
        if (order) {
            MMX_OK_OR_FAIL(hctx, mmx_mesh_reduce(hctx, m));
            gpu_check(dctx, hctx, m, shapes[i]);
        }
        mmx_mesh_free(m);
    }
    mmx_mesh *m = data_mesh(hctx, "bigguy_quads.obj");
    gpu_check(dctx, hctx, m, "bigguy");
    mmx_mesh_free(m);
    for (uint64_t seed = 1; seed <= 4; seed++) {
        m = grid_part(hctx, seed, 30, 20, 60, (int)(seed & 1));
        gpu_check(dctx, hctx, m, "grid part");
        mmx_mesh_free(m);
        m = soup(hctx, seed, 20, 40, 3, 6);
        gpu_check(dctx, hctx, m, "soup");
        mmx_mesh_free(m);
    }
    m = fan(hctx, 1000, 1);
    gpu_check(dctx, hctx, m, "closed fan");
    mmx_mesh_free(m);
    mmx_index zero = 0;
    m = mesh_from(hctx, 5, 0, &zero, NULL);
    gpu_check(dctx, hctx, m, "no faces");
    mmx_mesh_free(m);
    const mmx_index v[] = {0, 1, 2, 1, 2, 3};
    m = tris(hctx, 4, 2, v);
    gpu_check(dctx, hctx, m, "inconsistent");
    mmx_mesh_free(m);
    mmx_ctx_free(hctx);
    mmx_ctx_free(dctx);
}

/* Plans on meshes of many CUDA blocks (EF's and FF's runs stage each warp's rows in shared
 * memory; the vertex runs gather one entry a thread from sources listed by a walk per vertex):
 * larger shapes, shuffled and with boundaries, on both paths against the host. */
Test(query, gpu_plans_of_larger_meshes_match_host)
{
    mmx_ctx *dctx = tu_cuda_ctx_or_skip();
    mmx_ctx *hctx = tu_host_ctx();
    const char *shapes[] = {"icosphere:5", "torus:160:90", "grid:150:120"};
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        mmx_mesh *m = tu_shape(hctx, shapes[i]), *s = NULL;
        MMX_OK_OR_FAIL(hctx, mmx_mesh_reduce(hctx, m));
        gpu_check(dctx, hctx, m, shapes[i]);
        MMX_OK_OR_FAIL(hctx, mmx_mesh_shuffle(hctx, m, 7, NULL, NULL, &s));
        gpu_check(dctx, hctx, s, shapes[i]);
        mmx_mesh_free(s);
        mmx_mesh_free(m);
    }
    mmx_mesh *g = grid_part(hctx, 99, 200, 150, 70, 1);
    gpu_check(dctx, hctx, g, "large grid part");
    mmx_mesh_free(g);
    mmx_ctx_free(hctx);
    mmx_ctx_free(dctx);
}
