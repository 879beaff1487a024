/* Mesh inspection (mmx_mesh_stats_compute): closed-form counts on hand-built and procedural
 * meshes (V, E, F, Euler characteristic, genus, boundary loops), the non-manifold, badly
 * oriented and degenerate cases, both matrix forms, device meshes, a large mesh, and random
 * meshes against a naive statement of every count. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"

/* ---- helpers ---------------------------------------------------------------------------- */

/* Face lists under construction: start[0..nf], verts[0..start[nf]). */
typedef struct faces {
    mmx_index nf, cap_f, cap_v;
    mmx_index *start, *verts;
} faces;

static void fl_init(faces *fl, mmx_index cap_f, mmx_index cap_v)
{
    fl->nf = 0;
    fl->cap_f = cap_f;
    fl->cap_v = cap_v;
    fl->start = malloc(((size_t)cap_f + 1) * sizeof *fl->start);
    fl->verts = malloc(((size_t)cap_v + 1) * sizeof *fl->verts);
    cr_assert(fl->start && fl->verts);
    fl->start[0] = 0;
}

static void fl_add(faces *fl, mmx_index n, const mmx_index *v)
{
    cr_assert(fl->nf < fl->cap_f && fl->start[fl->nf] + n <= fl->cap_v);
    memcpy(fl->verts + fl->start[fl->nf], v, (size_t)n * sizeof *v);
    fl->start[fl->nf + 1] = fl->start[fl->nf] + n;
    fl->nf++;
}

static void fl_free(faces *fl)
{
    free(fl->start);
    free(fl->verts);
}

/* The quads of a U x V torus on vertices off + i*V + j, running +u then +v as in the shape. */
static void add_torus(faces *fl, mmx_index off, mmx_index U, mmx_index V)
{
    for (mmx_index i = 0; i < U; i++)
        for (mmx_index j = 0; j < V; j++) {
            mmx_index i1 = (i + 1) % U, j1 = (j + 1) % V;
            mmx_index q[4] = {off + i * V + j, off + i1 * V + j, off + i1 * V + j1, off + i * V + j1};
            fl_add(fl, 4, q);
        }
}

static mmx_mesh *make(mmx_ctx *ctx, mmx_index nv, const faces *fl, const float *pos)
{
    mmx_mesh *m = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_from_faces(ctx, nv, fl->nf, fl->start, fl->verts, pos, &m));
    return m;
}

/* A mesh from a literal list of faces of one order c. */
static mmx_mesh *make_uniform(mmx_ctx *ctx, mmx_index nv, mmx_index nf, mmx_index c,
                              const mmx_index *verts, const float *pos)
{
    faces fl;
    fl_init(&fl, nf, nf * c);
    for (mmx_index f = 0; f < nf; f++) fl_add(&fl, c, verts + c * f);
    mmx_mesh *m = make(ctx, nv, &fl, pos);
    fl_free(&fl);
    return m;
}

static mmx_mesh_stats stats(mmx_ctx *ctx, const mmx_mesh *m)
{
    mmx_mesh_stats st;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_stats_compute(ctx, m, &st));
    return st;
}

/* What a test states about a mesh; fields set to -1 are not checked. */
typedef struct expect {
    long v, e, f, euler, bedges, loops, nm_edges, nm_verts, incons, isolated, comps;
    int manifold, oriented, genus_valid;
    long genus;
} expect;

/* Later designated initializers override the -1s, as C11 6.7.9 says; GCC's -Woverride-init
 * (part of -Wextra) flags exactly that, so it is off in this file. */
#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Woverride-init"
#endif
#define EXPECT(...) ((expect){-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, __VA_ARGS__})

static void check(const mmx_mesh_stats *st, expect x, const char *what)
{
#define CHK(field, value)                                                                    \
    if ((value) != -1)                                                                       \
        cr_expect_eq((long)(field), (long)(value), "%s: %s is %ld, expected %ld", what, #field, \
                     (long)(field), (long)(value))
    CHK(st->nverts - st->isolated_verts, x.v);
    CHK(st->nedges, x.e);
    CHK(st->nfaces, x.f);
    CHK(st->euler, x.euler);
    CHK(st->boundary_edges, x.bedges);
    CHK(st->boundary_loops, x.loops);
    CHK(st->nonmanifold_edges, x.nm_edges);
    CHK(st->nonmanifold_verts, x.nm_verts);
    CHK(st->inconsistent_edges, x.incons);
    CHK(st->isolated_verts, x.isolated);
    CHK(st->components, x.comps);
    CHK(st->manifold, x.manifold);
    CHK(st->oriented, x.oriented);
    CHK(st->genus_valid, x.genus_valid);
    if (st->genus_valid) CHK(st->genus, x.genus);
#undef CHK
    if (!st->genus_valid) cr_expect_eq(st->genus, 0, "%s: genus without genus_valid", what);
    /* Always true: Euler's formula as computed, and the flags' definitions. */
    cr_expect_eq(st->euler, (int64_t)(st->nverts - st->isolated_verts) - st->nedges + st->nfaces, "%s", what);
    cr_expect_eq(st->manifold, st->nonmanifold_edges == 0 && st->nonmanifold_verts == 0, "%s", what);
    cr_expect_eq(st->oriented, st->manifold && st->inconsistent_edges == 0, "%s", what);
}

/* A closed oriented manifold with the given sizes, genus and components. */
static expect closed(long v, long e, long f, long comps, long genus)
{
    return EXPECT(.v = v, .e = e, .f = f, .euler = v - e + f, .bedges = 0, .loops = 0,
                  .nm_edges = 0, .nm_verts = 0, .incons = 0, .isolated = 0, .comps = comps,
                  .manifold = 1, .oriented = 1, .genus_valid = 1, .genus = genus);
}

static void assert_same_stats(const mmx_mesh_stats *a, const mmx_mesh_stats *b, const char *what)
{
#define SAME(f) cr_assert_eq(a->f, b->f, "%s: %s differs", what, #f)
    SAME(nverts); SAME(nfaces); SAME(nedges); SAME(ncorners); SAME(min_order); SAME(max_order);
    SAME(uniform_order); SAME(boundary_edges); SAME(boundary_loops); SAME(nonmanifold_edges);
    SAME(nonmanifold_verts); SAME(inconsistent_edges); SAME(isolated_verts); SAME(components);
    SAME(euler); SAME(manifold); SAME(oriented); SAME(genus_valid); SAME(genus);
    for (int i = 0; i < MMX_STATS_ORDERS; i++) SAME(order_hist[i]);
    SAME(first_nonmanifold_vert); SAME(inconsistent_edge[0]); SAME(inconsistent_edge[1]);
    SAME(repeated_faces); SAME(repeated_face[0]); SAME(repeated_face[1]);
    SAME(repeated_orientation);
    /* the box bit for bit: -0 against 0, and NaN */
    for (int d = 0; d < 3; d++) {
        cr_assert(!memcmp(&a->bbox_min[d], &b->bbox_min[d], sizeof(float)) &&
                      !memcmp(&a->bbox_max[d], &b->bbox_max[d], sizeof(float)),
                  "%s: the box differs on axis %d: [%g, %g] against [%g, %g]", what, d,
                  (double)a->bbox_min[d], (double)a->bbox_max[d], (double)b->bbox_min[d],
                  (double)b->bbox_max[d]);
    }
#undef SAME
}

/* Outward-oriented tetrahedron on vertices 0..3. */
static const mmx_index TET[12] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};

/* ---- small hand-built meshes ------------------------------------------------------------ */

Test(stats, empty_mesh)
{
    mmx_ctx *ctx = tu_host_ctx();
    const mmx_index start[1] = {0};
    mmx_mesh *m = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_from_faces(ctx, 0, 0, start, NULL, NULL, &m));
    mmx_mesh_stats st = stats(ctx, m);
    check(&st, EXPECT(.v = 0, .e = 0, .f = 0, .euler = 0, .bedges = 0, .loops = 0, .nm_edges = 0,
                      .nm_verts = 0, .incons = 0, .isolated = 0, .comps = 0, .manifold = 1,
                      .oriented = 1, .genus_valid = 1, .genus = 0), "empty");
    cr_expect_eq(st.ncorners, 0);
    cr_expect_eq(st.min_order, 0);
    cr_expect_eq(st.max_order, 0);
    cr_expect_eq(st.uniform_order, 0);
    for (int d = 0; d < 3; d++) cr_expect(st.bbox_min[d] == 0 && st.bbox_max[d] == 0);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(stats, vertices_without_faces_are_isolated)
{
    mmx_ctx *ctx = tu_host_ctx();
    const mmx_index start[1] = {0};
    const float pos[15] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
    mmx_mesh *m = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_from_faces(ctx, 5, 0, start, NULL, pos, &m));
    mmx_mesh_stats st = stats(ctx, m);
    cr_expect_eq(st.nverts, 5);
    check(&st, EXPECT(.v = 0, .e = 0, .f = 0, .euler = 0, .isolated = 5, .comps = 0), "5 points");
    /* the box is of vertices in faces: none here */
    for (int d = 0; d < 3; d++) cr_expect(st.bbox_min[d] == 0 && st.bbox_max[d] == 0);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(stats, null_arguments_are_refused)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = make_uniform(ctx, 4, 4, 3, TET, NULL);
    mmx_mesh_stats st;
    cr_expect_eq(mmx_mesh_stats_compute(ctx, NULL, &st), MMX_ERR_ARG);
    cr_expect_eq(mmx_mesh_stats_compute(ctx, m, NULL), MMX_ERR_ARG);
    cr_expect_neq(mmx_ctx_error(ctx)[0], '\0');
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(stats, tetrahedron_by_hand)
{
    mmx_ctx *ctx = tu_host_ctx();
    const float pos[12] = {1, 1, 1, -1, -1, 1, -1, 1, -1, 1, -1, -1};
    mmx_mesh *m = make_uniform(ctx, 4, 4, 3, TET, pos);
    mmx_mesh_stats st = stats(ctx, m);
    check(&st, closed(4, 6, 4, 1, 0), "tetrahedron");
    cr_expect_eq(st.euler, 2);
    cr_expect_eq(st.ncorners, 12);
    cr_expect_eq(st.min_order, 3);
    cr_expect_eq(st.max_order, 3);
    cr_expect_eq(st.uniform_order, 3);
    cr_expect_eq(st.order_hist[3], 4);
    for (int d = 0; d < 3; d++) cr_expect(st.bbox_min[d] == -1 && st.bbox_max[d] == 1);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(stats, flipped_face_makes_three_inconsistent_edges)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_index t[12];
    memcpy(t, TET, sizeof t);
    t[9] = 3;  /* (1, 2, 3) becomes (3, 2, 1): each of its three edges now runs the way */
    t[11] = 1; /* its neighbour runs it */
    mmx_mesh *m = make_uniform(ctx, 4, 4, 3, t, NULL);
    mmx_mesh_stats st = stats(ctx, m);
    check(&st, EXPECT(.v = 4, .e = 6, .f = 4, .euler = 2, .bedges = 0, .loops = 0, .nm_edges = 0,
                      .nm_verts = 0, .incons = 3, .comps = 1, .manifold = 1, .oriented = 0,
                      .genus_valid = 0), "flipped tetrahedron");
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(stats, two_disjoint_tetrahedra)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_index t[24];
    for (int i = 0; i < 12; i++) {
        t[i] = TET[i];
        t[12 + i] = TET[i] + 4;
    }
    mmx_mesh *m = make_uniform(ctx, 8, 8, 3, t, NULL);
    mmx_mesh_stats st = stats(ctx, m);
    /* chi = 2 per sphere; genus 0 each */
    check(&st, closed(8, 12, 8, 2, 0), "two tetrahedra");
    cr_expect_eq(st.euler, 4);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(stats, two_tetrahedra_sharing_a_tip)
{
    mmx_ctx *ctx = tu_host_ctx();
    /* The second tetrahedron uses 3, 4, 5, 6: vertex 3 has two fans (two cones tip to tip). */
    mmx_index t[24];
    for (int i = 0; i < 12; i++) {
        t[i] = TET[i];
        t[12 + i] = TET[i] + 3;
    }
    mmx_mesh *m = make_uniform(ctx, 7, 8, 3, t, NULL);
    mmx_mesh_stats st = stats(ctx, m);
    check(&st, EXPECT(.v = 7, .e = 12, .f = 8, .euler = 3, .bedges = 0, .loops = 0, .nm_edges = 0,
                      .nm_verts = 1, .incons = 0, .comps = 1, .manifold = 0, .oriented = 0,
                      .genus_valid = 0), "tip to tip");
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(stats, three_triangles_on_one_edge)
{
    mmx_ctx *ctx = tu_host_ctx();
    const mmx_index t[9] = {0, 1, 2, 1, 0, 3, 0, 1, 4};
    mmx_mesh *m = make_uniform(ctx, 5, 3, 3, t, NULL);
    mmx_mesh_stats st = stats(ctx, m);
    /* Edge (0,1) has three sides; the six others one each. Its two ends are non-manifold. */
    check(&st, EXPECT(.v = 5, .e = 7, .f = 3, .euler = 1, .bedges = 6, .nm_edges = 1,
                      .nm_verts = 2, .incons = 0, .comps = 1, .manifold = 0, .oriented = 0,
                      .genus_valid = 0), "three on an edge");
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(stats, bowtie)
{
    mmx_ctx *ctx = tu_host_ctx();
    const mmx_index t[6] = {0, 1, 2, 0, 3, 4};
    mmx_mesh *m = make_uniform(ctx, 5, 2, 3, t, NULL);
    mmx_mesh_stats st = stats(ctx, m);
    /* Vertex 0 has two fans. Boundary loops pair edges through fans, so the two triangles'
     * boundaries are two loops (the count of the mesh with vertex 0 split in two). */
    check(&st, EXPECT(.v = 5, .e = 6, .f = 2, .euler = 1, .bedges = 6, .loops = 2, .nm_edges = 0,
                      .nm_verts = 1, .incons = 0, .comps = 1, .manifold = 0, .oriented = 0,
                      .genus_valid = 0), "bowtie");
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* An n x n grid of unit quads (vertex (x, y) = y*(n+1) + x), leaving out the cells for which
 * skip(x, y) holds; vertices of left-out cells stay in the mesh (isolated if no kept cell uses
 * them). */
static void add_grid(faces *fl, mmx_index n, int (*skip)(mmx_index, mmx_index))
{
    for (mmx_index y = 0; y < n; y++)
        for (mmx_index x = 0; x < n; x++) {
            if (skip && skip(x, y)) continue;
            mmx_index p = y * (n + 1) + x;
            mmx_index q[4] = {p, p + 1, p + n + 2, p + n + 1};
            fl_add(fl, 4, q);
        }
}

static int skip_diagonal_pair(mmx_index x, mmx_index y)
{
    return (x == 1 && y == 1) || (x == 2 && y == 2);
}

Test(stats, two_holes_touching_at_a_vertex)
{
    mmx_ctx *ctx = tu_host_ctx();
    faces fl;
    fl_init(&fl, 16, 64);
    add_grid(&fl, 4, skip_diagonal_pair);
    mmx_mesh *m = make(ctx, 25, &fl, NULL);
    mmx_mesh_stats st = stats(ctx, m);
    /* 4x4 grid: V 25, E 40, F 16 less the two cells (their edges all border kept cells).
     * Vertex (2,2) has two fans, cells (2,1) and (1,2), and each fan joins one edge of each hole,
     * so the two holes are one loop of 8 edges through the pinch: split there, the mesh is an
     * annulus (euler 0 with the extra vertex, two loops, genus 0). */
    check(&st, EXPECT(.v = 25, .e = 40, .f = 14, .euler = -1, .bedges = 16 + 8, .loops = 2,
                      .nm_edges = 0, .nm_verts = 1, .incons = 0, .isolated = 0, .comps = 1,
                      .manifold = 0, .oriented = 0, .genus_valid = 0), "pinched holes");
    mmx_mesh_free(m);
    fl_free(&fl);
    mmx_ctx_free(ctx);
}

static int skip_two_apart(mmx_index x, mmx_index y)
{
    return (x == 1 && y == 1) || (x == 3 && y == 3);
}

Test(stats, grid_with_two_separate_holes)
{
    mmx_ctx *ctx = tu_host_ctx();
    faces fl;
    fl_init(&fl, 25, 100);
    add_grid(&fl, 5, skip_two_apart);
    mmx_mesh *m = make(ctx, 36, &fl, NULL);
    mmx_mesh_stats st = stats(ctx, m);
    /* 5x5 grid: V 36, E 60, F 25 - 2; chi = 36 - 60 + 23 = -1 = 2 - 2g - 3 with g = 0. */
    check(&st, EXPECT(.v = 36, .e = 60, .f = 23, .euler = -1, .bedges = 20 + 8, .loops = 3,
                      .nm_edges = 0, .nm_verts = 0, .incons = 0, .isolated = 0, .comps = 1,
                      .manifold = 1, .oriented = 1, .genus_valid = 1, .genus = 0), "two holes");
    mmx_mesh_free(m);
    fl_free(&fl);
    mmx_ctx_free(ctx);
}

Test(stats, isolated_vertices_and_the_box)
{
    mmx_ctx *ctx = tu_host_ctx();
    /* A tetrahedron on vertices 1, 3, 4, 6 of 8; the others are far away and must not count. */
    const mmx_index map[4] = {1, 3, 4, 6};
    mmx_index t[12];
    for (int i = 0; i < 12; i++) t[i] = map[TET[i]];
    float pos[24];
    for (int i = 0; i < 24; i++) pos[i] = 100.0f + (float)i;
    const float corner[4][3] = {{1, 2, 3}, {-1, 0.5f, 2}, {0, -2, 4}, {0.25f, 1, -3}};
    for (int k = 0; k < 4; k++)
        for (int d = 0; d < 3; d++) pos[3 * map[k] + d] = corner[k][d];
    mmx_mesh *m = make_uniform(ctx, 8, 4, 3, t, pos);
    mmx_mesh_stats st = stats(ctx, m);
    cr_expect_eq(st.nverts, 8);
    expect x = closed(4, 6, 4, 1, 0);
    x.isolated = 4;
    check(&st, x, "tetrahedron among isolated vertices");
    const float lo[3] = {-1, -2, -3}, hi[3] = {1, 2, 4};
    for (int d = 0; d < 3; d++) {
        cr_expect(st.bbox_min[d] == lo[d], "bbox_min[%d] = %g", d, (double)st.bbox_min[d]);
        cr_expect(st.bbox_max[d] == hi[d], "bbox_max[%d] = %g", d, (double)st.bbox_max[d]);
    }
    mmx_mesh_free(m);
    /* Without positions the box is zero. */
    m = make_uniform(ctx, 8, 4, 3, t, NULL);
    st = stats(ctx, m);
    for (int d = 0; d < 3; d++) cr_expect(st.bbox_min[d] == 0 && st.bbox_max[d] == 0);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(stats, mobius_strip)
{
    mmx_ctx *ctx = tu_host_ctx();
    /* Bottom b_i = i, top t_i = N + i; quads (b_i, b_i+1, t_i+1, t_i) and a last quad glued
     * with a half twist (b_N = t_0, t_N = b_0). Rung (t_0, b_0) is run the same way by its two
     * quads, and no choice of face directions avoids that. */
    enum { N = 6 };
    faces fl;
    fl_init(&fl, N, 4 * N);
    for (mmx_index i = 0; i + 1 < N; i++) {
        mmx_index q[4] = {i, i + 1, N + i + 1, N + i};
        fl_add(&fl, 4, q);
    }
    mmx_index last[4] = {N - 1, N, 0, 2 * N - 1};
    fl_add(&fl, 4, last);
    mmx_mesh *m = make(ctx, 2 * N, &fl, NULL);
    mmx_mesh_stats st = stats(ctx, m);
    /* V 2N, E 3N (N rungs, 2N along the sides), F N, chi 0; one boundary loop of 2N edges. */
    check(&st, EXPECT(.v = 2 * N, .e = 3 * N, .f = N, .euler = 0, .bedges = 2 * N, .loops = 1,
                      .nm_edges = 0, .nm_verts = 0, .incons = 1, .comps = 1, .manifold = 1,
                      .oriented = 0, .genus_valid = 0), "mobius");
    mmx_mesh_free(m);
    fl_free(&fl);
    mmx_ctx_free(ctx);
}

Test(stats, double_torus)
{
    mmx_ctx *ctx = tu_host_ctx();
    /* Two 6 x 5 tori, each without its face 0 = (a0, a1, a2, a3), joined by a tube of four
     * quads whose sides run a_i -> a_i+1 (the way the removed face ran them) and likewise
     * b_j -> b_j+1 with j = 3 - i, so that neighbouring tube quads run their shared rung
     * opposite ways. chi = 0 + 0 - 2 (two faces gone; the tube adds 4 edges and 4 faces)
     * = -2, genus 2. */
    enum { U = 6, V = 5, NV = U * V };
    faces t1, fl;
    fl_init(&t1, 2 * NV, 8 * NV);
    add_torus(&t1, 0, U, V);
    add_torus(&t1, NV, U, V);
    fl_init(&fl, 2 * NV + 4, 8 * NV + 16);
    for (mmx_index f = 0; f < t1.nf; f++)
        if (f != 0 && f != NV) fl_add(&fl, 4, t1.verts + t1.start[f]);
    const mmx_index *a = t1.verts, *b = t1.verts + t1.start[NV];
    for (mmx_index i = 0; i < 4; i++) {
        mmx_index j = 3 - i;
        mmx_index q[4] = {a[i], a[(i + 1) % 4], b[j], b[(j + 1) % 4]};
        fl_add(&fl, 4, q);
    }
    mmx_mesh *m = make(ctx, 2 * NV, &fl, NULL);
    mmx_mesh_stats st = stats(ctx, m);
    check(&st, closed(2 * NV, 4 * NV + 4, 2 * NV + 2, 1, 2), "double torus");
    cr_expect_eq(st.euler, -2);
    mmx_mesh_free(m);
    fl_free(&fl);
    fl_free(&t1);
    mmx_ctx_free(ctx);
}

Test(stats, mixed_orders_and_the_histogram)
{
    mmx_ctx *ctx = tu_host_ctx();
    /* A square pyramid: base quad (seen from below, counter-clockwise) and four triangles. */
    faces fl;
    fl_init(&fl, 5, 16);
    const mmx_index base[4] = {0, 3, 2, 1};
    fl_add(&fl, 4, base);
    for (mmx_index i = 0; i < 4; i++) {
        mmx_index t[3] = {i, (i + 1) % 4, 4};
        fl_add(&fl, 3, t);
    }
    mmx_mesh *m = make(ctx, 5, &fl, NULL);
    mmx_mesh_stats st = stats(ctx, m);
    check(&st, closed(5, 8, 5, 1, 0), "pyramid");
    cr_expect_eq(st.ncorners, 16);
    cr_expect_eq(st.min_order, 3);
    cr_expect_eq(st.max_order, 4);
    cr_expect_eq(st.uniform_order, 0);
    cr_expect_eq(st.order_hist[3], 4);
    cr_expect_eq(st.order_hist[4], 1);
    mmx_mesh_free(m);
    fl_free(&fl);
    mmx_ctx_free(ctx);
}

Test(stats, long_faces_go_to_the_last_bin)
{
    mmx_ctx *ctx = tu_host_ctx();
    /* A drum: two 20-gons on the same ring, opposite ways: a sphere with V 20, E 20, F 2, and
     * a 15-gon and a 14-gon in a separate drum-less disk pair for the bin edges. */
    faces fl;
    fl_init(&fl, 4, 80);
    mmx_index top[20], bot[20];
    for (mmx_index i = 0; i < 20; i++) {
        top[i] = i;
        bot[i] = 19 - i;
    }
    fl_add(&fl, 20, top);
    fl_add(&fl, 20, bot);
    mmx_index d15[15], d14[14];
    for (mmx_index i = 0; i < 15; i++) d15[i] = 20 + i;
    for (mmx_index i = 0; i < 14; i++) d14[i] = 35 + i;
    fl_add(&fl, 15, d15);
    fl_add(&fl, 14, d14);
    mmx_mesh *m = make(ctx, 49, &fl, NULL);
    mmx_mesh_stats st = stats(ctx, m);
    /* sphere (chi 2) + two disks (chi 1, one loop each) */
    check(&st, EXPECT(.v = 49, .e = 20 + 15 + 14, .f = 4, .euler = 4, .bedges = 29, .loops = 2,
                      .nm_edges = 0, .nm_verts = 0, .incons = 0, .comps = 3, .manifold = 1,
                      .oriented = 1, .genus_valid = 1, .genus = 0), "drum and disks");
    cr_expect_eq(st.order_hist[15], 3);
    cr_expect_eq(st.order_hist[14], 1);
    cr_expect_eq(st.min_order, 14);
    cr_expect_eq(st.max_order, 20);
    cr_expect_eq(st.ncorners, 69);
    mmx_mesh_free(m);
    fl_free(&fl);
    mmx_ctx_free(ctx);
}

/* A pole 0 in n triangles (0, i, i+1) around a ring 1..n: an open disk (cone); closed with a
 * second pole n+1 below. */
static mmx_mesh *fan(mmx_ctx *ctx, mmx_index n, int closed_below)
{
    faces fl;
    fl_init(&fl, 2 * n, 6 * n);
    for (mmx_index i = 0; i < n; i++) {
        mmx_index r0 = 1 + i, r1 = 1 + (i + 1) % n;
        mmx_index t[3] = {0, r0, r1};
        fl_add(&fl, 3, t);
        if (closed_below) {
            mmx_index u[3] = {n + 1, r1, r0};
            fl_add(&fl, 3, u);
        }
    }
    mmx_mesh *m = make(ctx, n + 1 + (closed_below ? 1 : 0), &fl, NULL);
    fl_free(&fl);
    return m;
}

Test(stats, a_360_valent_pole)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = fan(ctx, 360, 0);
    mmx_mesh_stats st = stats(ctx, m);
    /* disk: V 361, E 360 spokes + 360 rim, F 360, chi 1, one loop of 360 edges */
    check(&st, EXPECT(.v = 361, .e = 720, .f = 360, .euler = 1, .bedges = 360, .loops = 1,
                      .nm_edges = 0, .nm_verts = 0, .incons = 0, .comps = 1, .manifold = 1,
                      .oriented = 1, .genus_valid = 1, .genus = 0), "open fan");
    mmx_mesh_free(m);
    m = fan(ctx, 360, 1);
    st = stats(ctx, m);
    /* bicone: V 362, E 3 * 360, F 720, chi 2 */
    check(&st, closed(362, 1080, 720, 1, 0), "closed fan");
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(stats, malformed_faces_do_not_crash)
{
    /* Validation refuses a vertex twice in a face, so these matrices are put together by hand
     * (views, without the properties the library computes): the counts mean little, but the
     * call must return, read nothing out of place, and either count or say what is wrong. */
    mmx_ctx *ctx = tu_host_ctx();
    mmx_index colptr[5] = {0, 4, 7, 11, 14};
    mmx_index rowidx[14] = {0, 1, 0, 2, 1, 1, 2, 3, 3, 3, 3, 4, 5, 4};
    mmx_csc M = {.nrows = 6, .ncols = 4, .nnz = 14, .colptr = colptr, .rowidx = rowidx};
    mmx_mesh m = {&M, NULL, MMX_SPACE_HOST, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    mmx_mesh_stats st;
    /* Face 1 runs 1 -> 1: no edge. */
    cr_expect_eq(mmx_mesh_stats_compute(ctx, &m, &st), MMX_ERR_ARG);
    cr_expect(strstr(mmx_ctx_error(ctx), "face 1 has vertex 1 twice in a row"), "%s",
              mmx_ctx_error(ctx));
    cr_expect_eq(st.nfaces, 0, "no half-filled result");
    /* Vertex 0 twice, apart: counted. */
    mmx_index colptr2[3] = {0, 4, 7};
    mmx_index rowidx2[7] = {0, 1, 0, 2, 2, 1, 3};
    mmx_csc M2 = {.nrows = 4, .ncols = 2, .nnz = 7, .colptr = colptr2, .rowidx = rowidx2};
    m.M = &M2;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_stats_compute(ctx, &m, &st));
    cr_expect_eq(st.nfaces, 2);
    cr_expect_eq(st.ncorners, 7);
    cr_expect_eq(st.isolated_verts, 0);
    cr_expect_eq(st.max_order, 4);
    mmx_index red[12] = {0, 1, 0, 1, 2, 3, 2, 4, 5, 5, 5, 5};
    mmx_csc R = {.nrows = 6, .ncols = 3, .nnz = 12, .rowidx = red, .order = 4};
    m.M = &R;
    cr_expect_eq(mmx_mesh_stats_compute(ctx, &m, &st), MMX_ERR_ARG);
    cr_expect(strstr(mmx_ctx_error(ctx), "face 2 has vertex 5 twice in a row"), "%s",
              mmx_ctx_error(ctx));
    mmx_ctx_free(ctx);
}

/* ---- procedural shapes ------------------------------------------------------------------ */

Test(stats, platonic_shapes)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = tu_shape(ctx, "tetrahedron");
    mmx_mesh_stats st = stats(ctx, m);
    check(&st, closed(4, 6, 4, 1, 0), "tetrahedron");
    cr_expect_eq(st.uniform_order, 3);
    mmx_mesh_free(m);
    m = tu_shape(ctx, "cube");
    st = stats(ctx, m);
    check(&st, closed(8, 12, 6, 1, 0), "cube");
    cr_expect_eq(st.uniform_order, 4);
    cr_expect_eq(st.order_hist[4], 6);
    for (int d = 0; d < 3; d++) cr_expect(st.bbox_min[d] < st.bbox_max[d]);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(stats, icospheres)
{
    mmx_ctx *ctx = tu_host_ctx();
    for (int L = 0; L <= 4; L++) {
        char spec[32];
        snprintf(spec, sizeof spec, "icosphere:%d", L);
        mmx_mesh *m = tu_shape(ctx, spec);
        mmx_mesh_stats st = stats(ctx, m);
        long p = 1L << (2 * L); /* 4^L */
        check(&st, closed(10 * p + 2, 30 * p, 20 * p, 1, 0), spec);
        mmx_mesh_free(m);
    }
    mmx_ctx_free(ctx);
}

Test(stats, tori)
{
    mmx_ctx *ctx = tu_host_ctx();
    const int sizes[][2] = {{3, 3}, {24, 12}, {7, 31}};
    for (int i = 0; i < 3; i++) {
        char spec[32];
        snprintf(spec, sizeof spec, "torus:%d:%d", sizes[i][0], sizes[i][1]);
        mmx_mesh *m = tu_shape(ctx, spec);
        mmx_mesh_stats st = stats(ctx, m);
        long uv = (long)sizes[i][0] * sizes[i][1];
        check(&st, closed(uv, 2 * uv, uv, 1, 1), spec);
        cr_expect_eq(st.euler, 0);
        mmx_mesh_free(m);
    }
    mmx_ctx_free(ctx);
}

Test(stats, grids)
{
    mmx_ctx *ctx = tu_host_ctx();
    /* Without holes (a side below 6): a disk, V (nx+1)(ny+1), E nx(ny+1) + ny(nx+1), F nx ny,
     * chi 1, one loop of 2(nx+ny) edges. */
    const int open[][2] = {{1, 1}, {4, 3}, {5, 20}};
    for (int i = 0; i < 3; i++) {
        long nx = open[i][0], ny = open[i][1];
        char spec[32];
        snprintf(spec, sizeof spec, "grid:%ld:%ld", nx, ny);
        mmx_mesh *m = tu_shape(ctx, spec);
        mmx_mesh_stats st = stats(ctx, m);
        check(&st, EXPECT(.v = (nx + 1) * (ny + 1), .e = nx * (ny + 1) + ny * (nx + 1),
                          .f = nx * ny, .euler = 1, .bedges = 2 * (nx + ny), .loops = 1,
                          .nm_edges = 0, .nm_verts = 0, .incons = 0, .isolated = 0, .comps = 1,
                          .manifold = 1, .oriented = 1, .genus_valid = 1, .genus = 0), spec);
        mmx_mesh_free(m);
    }
    /* With two holes (both sides large): each 2x2 hole takes 4 faces, its centre vertex and
     * the 4 edges at that centre, and leaves a loop of 8 edges: chi 1 - 2 = -1, 3 loops,
     * genus 0. The shape's header says the holes appear from 8 x 8 on. */
    const int holed[][2] = {{8, 8}, {12, 9}};
    for (int i = 0; i < 2; i++) {
        long nx = holed[i][0], ny = holed[i][1];
        char spec[32];
        snprintf(spec, sizeof spec, "grid:%ld:%ld", nx, ny);
        mmx_mesh *m = tu_shape(ctx, spec);
        mmx_mesh_stats st = stats(ctx, m);
        check(&st, EXPECT(.v = (nx + 1) * (ny + 1) - 2, .e = nx * (ny + 1) + ny * (nx + 1) - 8,
                          .f = nx * ny - 8, .euler = -1, .bedges = 2 * (nx + ny) + 16, .loops = 3,
                          .nm_edges = 0, .nm_verts = 0, .incons = 0, .isolated = 0, .comps = 1,
                          .manifold = 1, .oriented = 1, .genus_valid = 1, .genus = 0), spec);
        mmx_mesh_free(m);
    }
    mmx_ctx_free(ctx);
}

Test(stats, mixed_shape)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = tu_shape(ctx, "mixed");
    mmx_mesh_stats st = stats(ctx, m);
    /* hexagon (6 edges), 6 quads to an outer ring (6 spokes, 6 ring edges), 6 triangles on the
     * ring (12 new edges, all on the boundary): V 18, E 30, F 13, chi 1, a disk. */
    check(&st, EXPECT(.v = 18, .e = 30, .f = 13, .euler = 1, .bedges = 12, .loops = 1,
                      .nm_edges = 0, .nm_verts = 0, .incons = 0, .isolated = 0, .comps = 1,
                      .manifold = 1, .oriented = 1, .genus_valid = 1, .genus = 0), "mixed");
    cr_expect_eq(st.order_hist[3], 6);
    cr_expect_eq(st.order_hist[4], 6);
    cr_expect_eq(st.order_hist[6], 1);
    cr_expect_eq(st.ncorners, 18 + 24 + 6);
    cr_expect_eq(st.min_order, 3);
    cr_expect_eq(st.max_order, 6);
    cr_expect_eq(st.uniform_order, 0);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* ---- forms, spaces, scale --------------------------------------------------------------- */

Test(stats, reduced_form_gives_the_same_stats)
{
    mmx_ctx *ctx = tu_host_ctx();
    const char *specs[] = {"tetrahedron", "cube", "icosphere:2", "torus:9:7", "grid:8:8"};
    for (int i = 0; i < 5; i++) {
        mmx_mesh *m = tu_shape(ctx, specs[i]);
        mmx_mesh_stats a = stats(ctx, m);
        MMX_OK_OR_FAIL(ctx, mmx_mesh_reduce(ctx, m));
        cr_assert_gt(m->M->order, 0);
        mmx_mesh_stats b = stats(ctx, m);
        assert_same_stats(&a, &b, specs[i]);
        mmx_mesh_free(m);
    }
    /* and a non-manifold one, the bowtie */
    const mmx_index t[6] = {0, 1, 2, 0, 3, 4};
    mmx_mesh *m = make_uniform(ctx, 6, 2, 3, t, NULL);
    mmx_mesh_stats a = stats(ctx, m);
    MMX_OK_OR_FAIL(ctx, mmx_mesh_reduce(ctx, m));
    mmx_mesh_stats b = stats(ctx, m);
    assert_same_stats(&a, &b, "bowtie");
    cr_expect_eq(b.isolated_verts, 1);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(stats, device_mesh)
{
    mmx_ctx *ctx = tu_cuda_ctx_or_skip();
    mmx_ctx *host = tu_host_ctx();
    const char *specs[] = {"icosphere:3", "grid:10:10", "mixed", "torus:64:32"};
    for (int i = 0; i < 4; i++) {
        mmx_mesh *h = tu_shape(host, specs[i]), *d = NULL;
        mmx_mesh_stats a = stats(host, h);
        MMX_OK_OR_FAIL(ctx, mmx_mesh_copy(ctx, h, MMX_SPACE_DEVICE, &d));
        mmx_mesh_stats b = stats(ctx, d);
        assert_same_stats(&a, &b, specs[i]);
        if (a.uniform_order) {
            MMX_OK_OR_FAIL(ctx, mmx_mesh_reduce(ctx, d));
            b = stats(ctx, d);
            assert_same_stats(&a, &b, specs[i]);
        }
        mmx_mesh_free(d);
        mmx_mesh_free(h);
    }
    mmx_ctx_free(host);
    mmx_ctx_free(ctx);
}

Test(stats, large_torus_closed_form, .timeout = 120)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = tu_shape(ctx, "torus:1000:1000");
    mmx_mesh_stats st = stats(ctx, m);
    check(&st, closed(1000000, 2000000, 1000000, 1, 1), "torus 1000 x 1000");
    cr_expect_eq(st.ncorners, 4000000);
    cr_expect_eq(st.order_hist[4], 1000000);
    MMX_OK_OR_FAIL(ctx, mmx_mesh_reduce(ctx, m));
    mmx_mesh_stats r = stats(ctx, m);
    assert_same_stats(&st, &r, "reduced torus");
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(stats, shuffled_vertex_and_face_order)
{
    mmx_ctx *ctx = tu_host_ctx();
    /* A torus with its vertices renumbered at random and its faces in random order, each
     * face rotated at random: nothing may change. */
    enum { U = 40, V = 30, NV = U * V };
    faces fl;
    fl_init(&fl, NV, 4 * NV);
    add_torus(&fl, 0, U, V);
    uint32_t seed = 7;
    mmx_index *perm = malloc(NV * sizeof *perm), *order = malloc(NV * sizeof *order);
    cr_assert(perm && order);
    for (mmx_index i = 0; i < NV; i++) perm[i] = order[i] = i;
    for (mmx_index i = NV - 1; i > 0; i--) {
        mmx_index j = (mmx_index)(tu_rng(&seed) % (uint32_t)(i + 1)), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
        j = (mmx_index)(tu_rng(&seed) % (uint32_t)(i + 1));
        t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    faces sh;
    fl_init(&sh, NV, 4 * NV);
    for (mmx_index f = 0; f < NV; f++) {
        const mmx_index *q = fl.verts + fl.start[order[f]];
        mmx_index r = (mmx_index)(tu_rng(&seed) % 4), p[4];
        for (int k = 0; k < 4; k++) p[k] = perm[q[(k + r) % 4]];
        fl_add(&sh, 4, p);
    }
    mmx_mesh *m = make(ctx, NV, &sh, NULL);
    mmx_mesh_stats st = stats(ctx, m);
    check(&st, closed(NV, 2 * NV, NV, 1, 1), "shuffled torus");
    mmx_mesh_free(m);
    fl_free(&sh);
    fl_free(&fl);
    free(perm);
    free(order);
    mmx_ctx_free(ctx);
}

/* ---- random meshes against a naive statement -------------------------------------------- */

/* The counts, stated directly: every pair of face sides compared (O(nnz^2)), fans by a search
 * through the faces around each vertex, components by repeated relaxation, and boundary loops,
 * on meshes whose edges have at most two sides and that are consistently oriented, by walking
 * from each boundary side to the next around its end vertex. */
typedef struct naive {
    long e, bedges, nm_edges, incons, nm_verts, isolated, comps, loops; /* loops -1: not stated */
} naive;

static naive naive_stats(mmx_index nv, const faces *fl)
{
    naive r = {0, 0, 0, 0, 0, 0, 0, -1};
    const mmx_index *s = fl->start, *vs = fl->verts;
    mmx_index nf = fl->nf, nnz = s[nf];
    /* side k: from vs[k] to vs[nx[k]] in face fc[k] */
    mmx_index *nx = malloc(((size_t)nnz + 1) * sizeof *nx), *fc = malloc(((size_t)nnz + 1) * sizeof *fc);
    mmx_index *sides = malloc(((size_t)nnz + 1) * sizeof *sides);
    unsigned char *nm = calloc((size_t)nv + 1, 1), *used = calloc((size_t)nv + 1, 1);
    cr_assert(nx && fc && sides && nm && used);
    for (mmx_index f = 0; f < nf; f++)
        for (mmx_index k = s[f]; k < s[f + 1]; k++) {
            nx[k] = k + 1 < s[f + 1] ? k + 1 : s[f];
            fc[k] = f;
            used[vs[k]] = 1;
        }
    for (mmx_index k = 0; k < nnz; k++) {
        mmx_index a = vs[k], b = vs[nx[k]], first = 1, n = 0, same = 0;
        for (mmx_index j = 0; j < nnz; j++) {
            mmx_index c = vs[j], d = vs[nx[j]];
            if ((c == a && d == b) || (c == b && d == a)) {
                if (j < k) first = 0;
                if (j != k && c == a) same = 1;
                n++;
            }
        }
        sides[k] = n;
        if (!first) continue;
        r.e++;
        if (n == 1) r.bedges++;
        if (n == 2 && same) r.incons++;
        if (n >= 3) {
            r.nm_edges++;
            nm[a] = nm[b] = 1;
        }
    }
    /* fans: faces at v linked when they share an edge (v, w) */
    mmx_index *mark = malloc(((size_t)nf + 1) * sizeof *mark);
    mmx_index *stack = malloc(((size_t)nf + 1) * sizeof *stack);
    cr_assert(mark && stack);
    for (mmx_index v = 0; v < nv; v++) {
        if (!used[v]) {
            r.isolated++;
            continue;
        }
        for (mmx_index f = 0; f < nf; f++) mark[f] = 0;
        int nfans = 0;
        for (mmx_index f0 = 0; f0 < nf; f0++) {
            int has = 0;
            for (mmx_index k = s[f0]; k < s[f0 + 1]; k++) has |= vs[k] == v;
            if (!has || mark[f0]) continue;
            nfans++;
            mmx_index top = 0;
            stack[top++] = f0;
            mark[f0] = 1;
            while (top) {
                mmx_index f = stack[--top];
                for (mmx_index k = s[f]; k < s[f + 1]; k++) {
                    /* the edges of f at v: (v, next) and (prev, v) */
                    if (vs[k] != v && vs[nx[k]] != v) continue;
                    mmx_index w = vs[k] == v ? vs[nx[k]] : vs[k];
                    for (mmx_index j = 0; j < nnz; j++) {
                        mmx_index c = vs[j], d = vs[nx[j]];
                        if (((c == v && d == w) || (c == w && d == v)) && !mark[fc[j]]) {
                            mark[fc[j]] = 1;
                            stack[top++] = fc[j];
                        }
                    }
                }
            }
        }
        if (nfans > 1 || nm[v]) r.nm_verts++;
    }
    /* components: label faces, relax over shared vertices until nothing changes */
    for (mmx_index f = 0; f < nf; f++) mark[f] = f;
    for (int changed = 1; changed;) {
        changed = 0;
        for (mmx_index k = 0; k < nnz; k++)
            for (mmx_index j = 0; j < nnz; j++)
                if (vs[k] == vs[j] && mark[fc[j]] < mark[fc[k]]) {
                    mark[fc[k]] = mark[fc[j]];
                    changed = 1;
                }
    }
    for (mmx_index f = 0; f < nf; f++) r.comps += mark[f] == f;
    /* loops, where the walk is defined */
    int walkable = r.nm_edges == 0 && r.incons == 0;
    if (walkable) {
        r.loops = 0;
        unsigned char *seen = calloc((size_t)nnz + 1, 1);
        cr_assert(seen);
        for (mmx_index k0 = 0; k0 < nnz; k0++) {
            if (sides[k0] != 1 || seen[k0]) continue;
            r.loops++;
            for (mmx_index k = k0; !seen[k];) {
                seen[k] = 1;
                /* the next boundary side leaves vs[nx[k]]: turn around it through the faces */
                mmx_index h = nx[k];
                while (sides[h] == 2) {
                    mmx_index tw = -1;
                    for (mmx_index j = 0; j < nnz; j++)
                        if (vs[j] == vs[nx[h]] && vs[nx[j]] == vs[h]) tw = j;
                    cr_assert_geq(tw, 0);
                    h = nx[tw];
                }
                k = h;
            }
        }
        free(seen);
    }
    free(nx);
    free(fc);
    free(sides);
    free(nm);
    free(used);
    free(mark);
    free(stack);
    return r;
}

static naive check_against_naive(mmx_ctx *ctx, mmx_index nv, const faces *fl, const char *what)
{
    mmx_mesh *m = make(ctx, nv, fl, NULL);
    mmx_mesh_stats st = stats(ctx, m);
    naive r = naive_stats(nv, fl);
    check(&st, EXPECT(.e = r.e, .f = fl->nf, .bedges = r.bedges, .loops = r.loops,
                      .nm_edges = r.nm_edges, .nm_verts = r.nm_verts, .incons = r.incons,
                      .isolated = r.isolated, .comps = r.comps), what);
    if (st.genus_valid) {
        cr_expect_eq(2 * (int64_t)st.components - st.euler - st.boundary_loops,
                     2 * (int64_t)st.genus, "%s", what);
    }
    mmx_mesh_free(m);
    return r;
}

/* nf faces of 3 to 5 distinct vertices each (at most nv) drawn at random from nv into fl (made
 * here): repeated faces, pinched vertices, edges of many sides. */
static void random_soup(uint32_t *seed, mmx_index nv, mmx_index nf, faces *fl)
{
    fl_init(fl, nf, 5 * nf);
    for (mmx_index f = 0; f < nf; f++) {
        mmx_index n = 3 + (mmx_index)(tu_rng(seed) % 3), v[5];
        if (n > nv) n = nv;
        for (mmx_index i = 0; i < n; i++) {
            int fresh;
            do {
                v[i] = (mmx_index)(tu_rng(seed) % (uint32_t)nv);
                fresh = 1;
                for (mmx_index j = 0; j < i; j++) fresh &= v[j] != v[i];
            } while (!fresh);
        }
        fl_add(fl, n, v);
    }
}

Test(stats, random_soups_match_the_naive_statement)
{
    mmx_ctx *ctx = tu_host_ctx();
    uint32_t seed = 2024;
    int nm_edges = 0, nm_verts = 0, loops = 0;
    for (int trial = 0; trial < 200; trial++) {
        mmx_index nv = 3 + (mmx_index)(tu_rng(&seed) % 14);
        mmx_index nf = (mmx_index)(tu_rng(&seed) % 12);
        faces fl;
        random_soup(&seed, nv, nf, &fl);
        char what[32];
        snprintf(what, sizeof what, "soup %d", trial);
        naive r = check_against_naive(ctx, nv, &fl, what);
        nm_edges += r.nm_edges > 0;
        nm_verts += r.nm_verts > r.nm_edges;
        loops += r.loops > 0;
        fl_free(&fl);
    }
    /* the trials covered the cases they are for */
    cr_expect(nm_edges >= 20 && nm_verts >= 20 && loops >= 20, "coverage %d %d %d", nm_edges,
              nm_verts, loops);
    mmx_ctx_free(ctx);
}

Test(stats, damaged_tori_match_the_naive_statement)
{
    /* Tori with random faces removed (holes, pinched vertices, loose pieces) and, in half the
     * trials, random faces flipped. */
    mmx_ctx *ctx = tu_host_ctx();
    uint32_t seed = 99;
    int pinched_walked = 0, incons = 0, several = 0;
    for (int trial = 0; trial < 150; trial++) {
        mmx_index U = 3 + (mmx_index)(tu_rng(&seed) % 5), V = 3 + (mmx_index)(tu_rng(&seed) % 5);
        faces t, fl;
        fl_init(&t, U * V, 4 * U * V);
        add_torus(&t, 0, U, V);
        fl_init(&fl, U * V, 4 * U * V);
        uint32_t drop = 1 + tu_rng(&seed) % 8; /* drop a face with chance drop / 10 */
        int flip = trial % 2;
        for (mmx_index f = 0; f < t.nf; f++) {
            if (tu_rng(&seed) % 10 < drop) continue;
            mmx_index q[4];
            memcpy(q, t.verts + t.start[f], sizeof q);
            if (flip && tu_rng(&seed) % 6 == 0) {
                mmx_index x = q[1];
                q[1] = q[3];
                q[3] = x;
            }
            fl_add(&fl, 4, q);
        }
        char what[32];
        snprintf(what, sizeof what, "damaged torus %d", trial);
        naive r = check_against_naive(ctx, U * V, &fl, what);
        pinched_walked += r.nm_verts > 0 && r.loops >= 0;
        incons += r.incons > 0;
        several += r.comps > 1;
        fl_free(&fl);
        fl_free(&t);
    }
    /* pinched vertices with loops stated by the walk, flips, loose pieces all occurred */
    cr_expect(pinched_walked >= 5 && incons >= 5 && several >= 5, "coverage %d %d %d",
              pinched_walked, incons, several);
    mmx_ctx_free(ctx);
}

/* ---- repeated faces ------------------------------------------------------------------------ */

/* The repeated-face figures of a uniform mesh of nf faces of order c. */
static void expect_repeated(mmx_ctx *ctx, mmx_index nv, mmx_index nf, mmx_index c,
                            const mmx_index *f, mmx_index count, mmx_index a, mmx_index b,
                            int orientation, const char *what)
{
    mmx_mesh *m = make_uniform(ctx, nv, nf, c, f, NULL);
    mmx_mesh_stats st = stats(ctx, m);
    cr_expect_eq(st.repeated_faces, count, "%s: %d repeated faces, want %d", what,
                 st.repeated_faces, count);
    cr_expect(st.repeated_face[0] == a && st.repeated_face[1] == b, "%s: pair (%d, %d), want "
              "(%d, %d)", what, st.repeated_face[0], st.repeated_face[1], a, b);
    cr_expect_eq(st.repeated_orientation, orientation, "%s: orientation %d, want %d", what,
                 st.repeated_orientation, orientation);
    mmx_mesh_free(m);
}

Test(stats, repeated_faces)
{
    mmx_ctx *ctx = tu_host_ctx();
    expect_repeated(ctx, 4, 4, 3, TET, 0, -1, -1, 0, "tetrahedron");
    /* A two-sided pillow: manifold and oriented, but the same three vertices twice. */
    const mmx_index pillow[6] = {0, 1, 2, 2, 1, 0};
    expect_repeated(ctx, 3, 2, 3, pillow, 1, 0, 1, -1, "pillow");
    mmx_mesh *m = make_uniform(ctx, 3, 2, 3, pillow, NULL);
    mmx_mesh_stats st = stats(ctx, m);
    cr_expect(st.oriented && st.inconsistent_edges == 0, "a pillow is oriented");
    mmx_mesh_free(m);
    /* The tetrahedron, then face 1 again rotated (same order), then face 2 reversed. */
    const mmx_index extra[18] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3, 3, 0, 1, 2, 3, 0};
    expect_repeated(ctx, 4, 6, 3, extra, 2, 1, 4, 1, "tetrahedron with two faces repeated");
    /* Quads on the same four vertices in another cyclic order. */
    const mmx_index quads[8] = {0, 1, 2, 3, 0, 2, 1, 3};
    expect_repeated(ctx, 4, 2, 4, quads, 1, 0, 1, 0, "quads in another order");
    /* Three copies: two repeats, the pair named is the first. */
    const mmx_index three[9] = {4, 5, 6, 5, 6, 4, 6, 4, 5};
    expect_repeated(ctx, 7, 3, 3, three, 2, 0, 1, 1, "three copies");
    mmx_ctx_free(ctx);
}

/* ---- the device's counts ------------------------------------------------------------------- */

/* Host mesh h's stats and validation computed on the host and, from a device copy, on the
 * device (general form, then reduced where it reduces): they must agree in every field. */
static void same_on_device(mmx_ctx *host, mmx_ctx *dev, const mmx_mesh *h, const char *what)
{
    mmx_mesh_stats a = stats(host, h);
    mmx_mesh *d = NULL;
    MMX_OK_OR_FAIL(dev, mmx_mesh_copy(dev, h, MMX_SPACE_DEVICE, &d));
    for (int form = 0; form < 2; form++) {
        mmx_mesh_stats b = stats(dev, d);
        assert_same_stats(&a, &b, what);
        if (h->pos) {
            mmx_mesh_validation x, y;
            MMX_OK_OR_FAIL(host, mmx_mesh_validate(host, h, NULL, &x));
            MMX_OK_OR_FAIL(dev, mmx_mesh_validate(dev, d, NULL, &y));
            cr_assert(x.valid == y.valid && x.degenerate_faces == y.degenerate_faces &&
                          x.first_degenerate_face == y.first_degenerate_face &&
                          x.positions_checked == y.positions_checked &&
                          !strcmp(x.problem, y.problem),
                      "%s: validation differs: host %d \"%s\" (%d degenerate, first %d), device "
                      "%d \"%s\" (%d, first %d)", what, x.valid, x.problem, x.degenerate_faces,
                      x.first_degenerate_face, y.valid, y.problem, y.degenerate_faces,
                      y.first_degenerate_face);
        }
        if (form == 1 || !a.uniform_order) break;
        MMX_OK_OR_FAIL(dev, mmx_mesh_reduce(dev, d));
    }
    mmx_mesh_free(d);
}

Test(stats, device_counts_equal_the_host)
{
    mmx_ctx *ctx = tu_cuda_ctx_or_skip();
    mmx_ctx *host = tu_host_ctx();
    uint32_t seed = 4242;
    /* Coordinates from a small set, so that extremes tie and 0 meets -0. */
    static const float coord[6] = {-1.0f, -0.0f, 0.0f, 0.5f, 1.0f, 2.0f};
    int nonmanifold = 0, loops = 0, incons = 0, repeated = 0, degenerate = 0;
    for (int trial = 0; trial < 160; trial++) {
        faces fl;
        mmx_index nv;
        if (trial % 2 == 0) { /* a soup: repeated faces, pinches, edges of many sides */
            nv = 3 + (mmx_index)(tu_rng(&seed) % 10);
            const mmx_index nf = 1 + (mmx_index)(tu_rng(&seed) % 14);
            random_soup(&seed, nv, nf, &fl);
        } else { /* a damaged torus: holes, loose pieces, flipped faces */
            const mmx_index U = 3 + (mmx_index)(tu_rng(&seed) % 6), V = 3 + (mmx_index)(tu_rng(&seed) % 6);
            faces t;
            fl_init(&t, U * V, 4 * U * V);
            add_torus(&t, 0, U, V);
            fl_init(&fl, U * V, 4 * U * V);
            for (mmx_index f = 0; f < t.nf; f++) {
                if (tu_rng(&seed) % 10 < 2) continue;
                mmx_index q[4];
                memcpy(q, t.verts + t.start[f], sizeof q);
                if (tu_rng(&seed) % 8 == 0) {
                    const mmx_index x = q[1];
                    q[1] = q[3], q[3] = x;
                }
                fl_add(&fl, 4, q);
            }
            fl_free(&t);
            nv = U * V + (mmx_index)(tu_rng(&seed) % 3); /* isolated vertices past the torus */
        }
        float *pos = malloc(3 * (size_t)nv * sizeof *pos);
        cr_assert(pos);
        for (mmx_index i = 0; i < 3 * nv; i++) pos[i] = coord[tu_rng(&seed) % 6];
        mmx_mesh *h = make(host, nv, &fl, pos);
        /* a NaN in the first vertex's x now and then (the box keeps it), or in another's */
        if (trial % 9 == 4) h->pos[0] = NAN;
        if (trial % 9 == 7) h->pos[3 * (nv - 1) + 1] = NAN;
        char what[48];
        snprintf(what, sizeof what, "trial %d", trial);
        same_on_device(host, ctx, h, what);
        mmx_mesh_stats st = stats(host, h);
        mmx_mesh_validation vr;
        MMX_OK_OR_FAIL(host, mmx_mesh_validate(host, h, NULL, &vr));
        nonmanifold += st.nonmanifold_verts > 0;
        loops += st.boundary_loops > 1;
        incons += st.inconsistent_edges > 0;
        repeated += st.repeated_faces > 0;
        degenerate += vr.degenerate_faces > 0;
        mmx_mesh_free(h);
        free(pos);
        fl_free(&fl);
    }
    cr_expect(nonmanifold >= 10 && loops >= 10 && incons >= 10 && repeated >= 5 && degenerate >= 10,
              "coverage %d %d %d %d %d", nonmanifold, loops, incons, repeated, degenerate);
    /* The hand-made repeated cases and larger shapes. */
    const mmx_index extra[18] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3, 3, 0, 1, 2, 3, 0};
    mmx_mesh *m = make_uniform(host, 4, 6, 3, extra, NULL);
    same_on_device(host, ctx, m, "tetrahedron with two faces repeated");
    mmx_mesh_free(m);
    const char *specs[] = {"torus:300:200", "icosphere:5", "grid:200:150", "mixed"};
    for (int i = 0; i < 4; i++) {
        m = tu_shape(host, specs[i]);
        same_on_device(host, ctx, m, specs[i]);
        mmx_mesh_free(m);
    }
    mmx_ctx_free(host);
    mmx_ctx_free(ctx);
}
