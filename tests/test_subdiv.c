/* Subdivision: the host backend against OpenSubdiv (Loop, Catmull-Clark) and OpenMesh (sqrt3)
 * on procedural meshes and small files, up to vertex and face order, positions within 1e-5 of
 * the bounding-box diagonal; the refused inputs and their messages; the output layout; and
 * the CUDA backend against the host (topology identical, positions within float rounding). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#include "subdiv_meshes.h"
#ifdef MMX_TEST_ORACLE
#include "oracle_mmx.h"
#endif

#define ORACLE_TOL 1e-5

/* ---- against the oracles ------------------------------------------------------------------ */

#ifdef MMX_TEST_ORACLE
/* A mesh as the oracle's arrays. */
static oracle_mesh to_oracle(mmx_ctx *ctx, const mmx_mesh *m)
{
    oracle_mesh o;
    MMX_OK_OR_FAIL(ctx, oracle_mesh_from_mmx(ctx, m, &o));
    return o;
}

/* Refines `m` (host) by `scheme` with boundary mode `boundary` to each level 1..levels with
 * meshmatrix and with the oracle (OpenSubdiv told the mode by the tag an OBJ file would carry,
 * or given the mesh's own tags for MMX_BOUNDARY_FROM_MESH), and asserts they agree. Takes
 * ownership of m. */
static void check_oracle_mode(mmx_scheme scheme, mmx_boundary boundary, mmx_mesh *m, int levels,
                              const char *what)
{
    mmx_ctx *ctx = tu_host_ctx();
    oracle_mesh in = to_oracle(ctx, m);
    mmx_subdiv_options o = {0};
    o.boundary = boundary;
    /* MMX_BOUNDARY_FROM_MESH: OpenSubdiv reads the mesh's own tags, as meshmatrix does. */
    const char *tags = boundary == MMX_BOUNDARY_EDGE_AND_CORNER ? "t interpolateboundary 1/0/0 1\n"
                       : boundary == MMX_BOUNDARY_FROM_MESH   ? m->tags
                                                              : NULL;
    for (int l = 1; l <= levels; l++) {
        mmx_mesh *fine = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_subdivide(ctx, scheme, m, l, &o, &fine));
        oracle_mesh ours = to_oracle(ctx, fine), ref;
        memset(&ref, 0, sizeof ref);
        char err[512] = "", report[512] = "";
        int rc = scheme == MMX_SCHEME_SQRT3
                     ? oracle_om_sqrt3(&in, l, &ref, NULL, err, sizeof err)
                     : oracle_osd_refine_tagged(scheme == MMX_SCHEME_LOOP       ? 0
                                                : scheme == MMX_SCHEME_BILINEAR ? 2
                                                                                : 1,
                                                &in, tags, l, &ref, NULL, err, sizeof err);
        cr_assert_eq(rc, 0, "%s, %s level %d: the oracle refused: %s", what,
                     mmx_scheme_name(scheme), l, err);
        double max_err = -1;
        rc = oracle_compare(&ours, &ref, ORACLE_TOL, &max_err, report, sizeof report);
        cr_assert_eq(rc, 0, "%s, %s level %d: %s", what, mmx_scheme_name(scheme), l, report);
        cr_assert(max_err >= 0 && max_err <= ORACLE_TOL);
        oracle_mesh_free(&ours);
        oracle_mesh_free(&ref);
        mmx_mesh_free(fine);
    }
    oracle_mesh_free(&in);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

static void check_oracle(mmx_scheme scheme, mmx_mesh *m, int levels, const char *what)
{
    check_oracle_mode(scheme, MMX_BOUNDARY_EDGE_ONLY, m, levels, what);
}

/* The limit after `levels` levels (the refined mesh, with the tags it carries, through
 * mmx_subdiv_limit) against OpenSubdiv's Far::PrimvarRefiner::Limit: positions as meshes up to
 * order within 1e-5 of the diagonal, and each vertex's normal against the normal of the
 * oracle's vertex at the nearest limit position, within 1e-4 (the two unit vectors' distance).
 * The mesh's own tags give the sharp features to both. Not compared: the normals of vertices
 * that the refined mesh's tags name (crease ends, corners): inside the surface such a vertex
 * has a normal on each side of its crease, and which side OpenSubdiv gives depends on its own
 * face numbering (subdiv.h). Takes ownership of m. */
static void check_limit(mmx_scheme scheme, mmx_mesh *m, int levels, const char *what)
{
    mmx_ctx *ctx = tu_host_ctx();
    oracle_mesh in = to_oracle(ctx, m), ref;
    mmx_mesh *fine = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_subdivide(ctx, scheme, m, levels, NULL, &fine));
    const size_t nv = (size_t)fine->M->nrows;
    float *lp = malloc(3 * nv * sizeof *lp + 1), *ln = malloc(3 * nv * sizeof *ln + 1);
    cr_assert(lp && ln);
    MMX_OK_OR_FAIL(ctx, mmx_subdiv_limit(ctx, scheme, fine, NULL, lp, ln));
    memcpy(fine->pos, lp, 3 * nv * sizeof *lp);
    oracle_mesh ours = to_oracle(ctx, fine);
    double *rn = NULL;
    char err[512] = "", report[512] = "";
    const int sch = scheme == MMX_SCHEME_LOOP ? 0 : scheme == MMX_SCHEME_BILINEAR ? 2 : 1;
    int rc = oracle_osd_limit(sch, &in, m->tags, levels, &ref, &rn, err, sizeof err);
    cr_assert_eq(rc, 0, "%s: the oracle refused: %s", what, err);
    double max_err = -1;
    rc = oracle_compare(&ours, &ref, ORACLE_TOL, &max_err, report, sizeof report);
    cr_assert_eq(rc, 0, "%s, %s limit at level %d: %s", what, mmx_scheme_name(scheme), levels, report);
    unsigned char *tagged = calloc(nv + 1, 1);
    mmx_mesh_tags *t = NULL;
    cr_assert(tagged);
    MMX_OK_OR_FAIL(ctx, mmx_mesh_tags_parse(ctx, fine, &t));
    for (mmx_index k = 0; k < 2 * t->ncreases; k++) tagged[t->crease_verts[k]] = 1;
    for (mmx_index k = 0; k < t->ncorners; k++) tagged[t->corner_verts[k]] = 1;
    mmx_mesh_tags_free(t);
    for (size_t v = 0; v < nv; v++) {
        if (tagged[v]) continue;
        size_t best = 0;
        double bd = INFINITY;
        for (size_t u = 0; u < (size_t)ref.nverts; u++) {
            double d = 0;
            for (int i = 0; i < 3; i++) d += (ours.pos[3 * v + i] - ref.pos[3 * u + i]) * (ours.pos[3 * v + i] - ref.pos[3 * u + i]);
            if (d < bd) bd = d, best = u;
        }
        double d = 0;
        for (int i = 0; i < 3; i++) d += (ln[3 * v + i] - rn[3 * best + i]) * (ln[3 * v + i] - rn[3 * best + i]);
        cr_assert(sqrt(d) <= 1e-4, "%s, %s limit normal of vertex %zu: (%g %g %g), OpenSubdiv's "
                  "(%g %g %g)", what, mmx_scheme_name(scheme), v, ln[3 * v], ln[3 * v + 1],
                  ln[3 * v + 2], rn[3 * best], rn[3 * best + 1], rn[3 * best + 2]);
    }
    free(rn), free(lp), free(ln), free(tagged);
    oracle_mesh_free(&ours);
    oracle_mesh_free(&ref);
    oracle_mesh_free(&in);
    mmx_mesh_free(fine);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}
/* Our texture coordinates after `levels` levels against OpenSubdiv's face-varying refinement
 * (FVAR_LINEAR_ALL): the meshes as in check_oracle_mode, then each corner's (u, v) against
 * the oracle's (oracle_compare_uv) within 1e-5 of the diagonal of the input's (u, v) box, the
 * positions' criterion. The mesh's own tags are given to both. Takes ownership of m. */
static void check_uv(mmx_scheme scheme, mmx_mesh *m, int levels, const char *what)
{
    mmx_ctx *ctx = tu_host_ctx();
    cr_assert_not_null(m->uv);
    oracle_mesh in = to_oracle(ctx, m), ref;
    const mmx_index nnz0 = m->M->nnz;
    double *vals = malloc(2 * sizeof *vals * (size_t)m->uv->nvalues + 1);
    int *idx = malloc(sizeof *idx * (size_t)nnz0 + 1);
    cr_assert(vals && idx);
    double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
    for (mmx_index k = 0; k < 2 * m->uv->nvalues; k++) {
        vals[k] = m->uv->values[k];
        lo[k % 2] = fmin(lo[k % 2], vals[k]), hi[k % 2] = fmax(hi[k % 2], vals[k]);
    }
    const double diag = hypot(hi[0] - lo[0], hi[1] - lo[1]), tol = ORACLE_TOL * (diag > 0 ? diag : 1);
    for (mmx_index q = 0; q < nnz0; q++) idx[q] = m->uv->index[q];
    double *ruv = NULL;
    char err[512] = "", report[512] = "";
    const int sch = scheme == MMX_SCHEME_LOOP ? 0 : scheme == MMX_SCHEME_BILINEAR ? 2 : 1;
    int rc = oracle_osd_refine_uv(sch, &in, m->tags, m->uv->nvalues, vals, idx, levels, &ref, &ruv,
                                  err, sizeof err);
    cr_assert_eq(rc, 0, "%s: the oracle refused: %s", what, err);
    mmx_mesh *fine = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_subdivide(ctx, scheme, m, levels, NULL, &fine));
    cr_assert_not_null(fine->uv, "%s: the result has no texture coordinates", what);
    oracle_mesh ours = to_oracle(ctx, fine);
    double max_err = -1;
    rc = oracle_compare(&ours, &ref, ORACLE_TOL, &max_err, report, sizeof report);
    cr_assert_eq(rc, 0, "%s: %s", what, report);
    double *ouv = malloc(2 * sizeof *ouv * (size_t)fine->M->nnz + 1);
    cr_assert_not_null(ouv);
    for (mmx_index q = 0; q < fine->M->nnz; q++)
        for (int c = 0; c < 2; c++) ouv[2 * q + c] = fine->uv->values[2 * (size_t)fine->uv->index[q] + c];
    rc = oracle_compare_uv(&ours, ouv, &ref, ruv, tol, NULL, report, sizeof report);
    cr_assert_eq(rc, 0, "%s, %s level %d: texture coordinates: %s", what, mmx_scheme_name(scheme),
                 levels, report);
    free(ouv);
    free(vals), free(idx), free(ruv);
    oracle_mesh_free(&ours);
    oracle_mesh_free(&ref);
    oracle_mesh_free(&in);
    mmx_mesh_free(fine);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}
#define ORACLE_OR_SKIP() ((void)0)
#else
static void check_oracle_mode(mmx_scheme scheme, mmx_boundary boundary, mmx_mesh *m, int levels,
                              const char *what)
{
    (void)scheme, (void)boundary, (void)levels, (void)what;
    mmx_mesh_free(m);
}

static void check_oracle(mmx_scheme scheme, mmx_mesh *m, int levels, const char *what)
{
    check_oracle_mode(scheme, MMX_BOUNDARY_EDGE_ONLY, m, levels, what);
}

static void check_limit(mmx_scheme scheme, mmx_mesh *m, int levels, const char *what)
{
    (void)scheme, (void)levels, (void)what;
    mmx_mesh_free(m);
}

static void check_uv(mmx_scheme scheme, mmx_mesh *m, int levels, const char *what)
{
    (void)scheme, (void)levels, (void)what;
    mmx_mesh_free(m);
}
#define ORACLE_OR_SKIP()                                                                       \
    cr_skip_test("OpenSubdiv / OpenMesh were not found at configure time (libosd-dev, "         \
                 "libopenmesh-dev): the oracle tests are not built")
#endif

#define CC MMX_SCHEME_CATMULL_CLARK
#define LOOP MMX_SCHEME_LOOP
#define SQRT3 MMX_SCHEME_SQRT3
#define BILINEAR MMX_SCHEME_BILINEAR

Test(subdiv, cc_closed_oracle, .description = "Catmull-Clark on closed meshes matches OpenSubdiv")
{
    ORACLE_OR_SKIP();
    mmx_ctx *ctx = tu_host_ctx();
    check_oracle(CC, shape(ctx, "cube"), 3, "cube");
    check_oracle(CC, shape(ctx, "torus:8:6"), 3, "torus 8x6");
    check_oracle(CC, shape(ctx, "tetrahedron"), 3, "tetrahedron");
    check_oracle(CC, read_data(ctx, "house.obj"), 3, "house.obj");
    mmx_ctx_free(ctx);
}

Test(subdiv, cc_open_mixed_oracle, .description = "Catmull-Clark with boundaries and mixed orders matches OpenSubdiv")
{
    ORACLE_OR_SKIP();
    mmx_ctx *ctx = tu_host_ctx();
    check_oracle(CC, shape(ctx, "mixed"), 3, "mixed");
    check_oracle(CC, shape(ctx, "grid:10:9"), 2, "grid 10x9 with holes");
    check_oracle(CC, fan(ctx, 7), 3, "fan of 7");
    check_oracle(CC, tri_grid(ctx, 5, 4), 2, "triangulated grid");
    check_oracle(CC, read_data(ctx, "strip.obj"), 3, "strip.obj");
    mmx_ctx_free(ctx);
}

Test(subdiv, bilinear_oracle, .description = "bilinear matches OpenSubdiv (closed, open, mixed orders, shuffled)")
{
    ORACLE_OR_SKIP();
    mmx_ctx *ctx = tu_host_ctx();
    check_oracle(BILINEAR, shape(ctx, "cube"), 3, "cube");
    check_oracle(BILINEAR, shape(ctx, "mixed"), 3, "mixed");
    check_oracle(BILINEAR, shape(ctx, "grid:10:9"), 2, "grid 10x9 with holes");
    check_oracle(BILINEAR, pyramid(ctx, 40), 2, "pyramid 40");
    check_oracle(BILINEAR, shuffled(ctx, read_data(ctx, "house.obj"), 5), 3, "shuffled house");
    mmx_ctx_free(ctx);
}

/* Bilinear's positions in closed form, from the layout (subdiv.h): the old vertices stay, face
 * point k is face k's centroid, edge point e the midpoint of mmx_adjacency's edge e; and its
 * faces are Catmull-Clark's, entry for entry. */
Test(subdiv, bilinear_closed_form, .description = "bilinear: vertices stay, centroids, midpoints; Catmull-Clark's children")
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *meshes[] = {shape(ctx, "mixed"), shuffled(ctx, read_data(ctx, "house.obj"), 3),
                          pyramid(ctx, 12)};
    for (size_t q = 0; q < sizeof meshes / sizeof meshes[0]; q++) {
        const mmx_mesh *m = meshes[q];
        mmx_mesh *b = NULL, *cc = NULL;
        mmx_adjacency *adj = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_subdivide(ctx, BILINEAR, m, 1, NULL, &b));
        MMX_OK_OR_FAIL(ctx, mmx_subdivide(ctx, CC, m, 1, NULL, &cc));
        MMX_OK_OR_FAIL(ctx, mmx_adjacency_compute(ctx, m, &adj));
        const mmx_index nv = m->M->nrows, nf = m->M->ncols;
        cr_assert_eq(b->M->nrows, nv + nf + adj->nedges);
        cr_assert_eq(b->M->nnz, cc->M->nnz);
        cr_assert_arr_eq(b->M->rowidx, cc->M->rowidx, (size_t)cc->M->nnz * sizeof(mmx_index),
                         "mesh %zu: bilinear's faces are not Catmull-Clark's", q);
        for (mmx_index v = 0; v < nv; v++)
            for (int i = 0; i < 3; i++)
                cr_assert_eq(b->pos[3 * v + i], m->pos[3 * v + i], "mesh %zu: vertex %d moved", q, v);
        for (mmx_index k = 0; k < nf; k++) {
            const mmx_index a = m->M->colptr[k], n = m->M->colptr[k + 1] - a;
            for (int i = 0; i < 3; i++) {
                double c = 0;
                for (mmx_index s = 0; s < n; s++) c += m->pos[3 * m->M->rowidx[a + s] + i];
                c /= n;
                cr_assert(fabs(b->pos[3 * (nv + k) + i] - c) <= 1e-6 * (1 + fabs(c)),
                          "mesh %zu: face point %d is %g, the centroid %g", q, k,
                          b->pos[3 * (nv + k) + i], c);
            }
        }
        for (mmx_index e = 0; e < adj->nedges; e++)
            for (int i = 0; i < 3; i++) {
                const double mid = 0.5 * m->pos[3 * adj->ev[2 * e] + i] +
                                   0.5 * m->pos[3 * adj->ev[2 * e + 1] + i];
                cr_assert(fabs(b->pos[3 * (nv + nf + e) + i] - mid) <= 1e-6 * (1 + fabs(mid)),
                          "mesh %zu: edge point %d is not its midpoint", q, e);
            }
        mmx_adjacency_free(adj);
        mmx_mesh_free(cc);
        mmx_mesh_free(b);
        mmx_mesh_free(meshes[q]);
    }
    mmx_ctx_free(ctx);
}

Test(subdiv, edge_and_corner_oracle, .description = "the edge-and-corner boundary matches OpenSubdiv's VTX_BOUNDARY_EDGE_AND_CORNER")
{
    ORACLE_OR_SKIP();
    mmx_ctx *ctx = tu_host_ctx();
    const mmx_boundary ec = MMX_BOUNDARY_EDGE_AND_CORNER;
    check_oracle_mode(CC, ec, shape(ctx, "grid:10:9"), 3, "grid 10x9 with holes");
    check_oracle_mode(CC, ec, shape(ctx, "mixed"), 3, "mixed");
    check_oracle_mode(CC, ec, fan(ctx, 7), 3, "fan of 7");
    check_oracle_mode(CC, ec, read_data(ctx, "strip.obj"), 3, "strip.obj");
    check_oracle_mode(LOOP, ec, tri_grid(ctx, 5, 4), 3, "triangulated grid");
    check_oracle_mode(LOOP, ec, fan(ctx, 7), 3, "fan of 7");
    check_oracle_mode(LOOP, ec, read_data(ctx, "strip.obj"), 3, "strip.obj");
    check_oracle_mode(CC, ec, shape(ctx, "cube"), 2, "cube (closed: no corner)");
    mmx_ctx_free(ctx);
}

/* m with its tags set to `tags`. */
static mmx_mesh *with_tags(mmx_mesh *m, const char *tags)
{
    free(m->tags);
    m->tags = strdup(tags);
    cr_assert_not_null(m->tags);
    return m;
}

/* Corner tags: infinitely sharp (10), semi-sharp (2.5: two levels as a corner, then the blend
 * by 0.5), and below 1 (0.5: the blend at once), on closed and open meshes; with the boundary
 * mode from the tags too. OpenSubdiv reads the same tags. */
Test(subdiv, corner_tags_oracle, .description = "corner tags (sharp vertices) match OpenSubdiv")
{
    ORACLE_OR_SKIP();
    mmx_ctx *ctx = tu_host_ctx();
    const mmx_boundary tagged = MMX_BOUNDARY_FROM_MESH;
    check_oracle_mode(CC, tagged, with_tags(shape(ctx, "cube"), "t corner 3/3/0 0 3 5 10 2.5 0.5\n"), 3,
                      "cube with corners");
    check_oracle_mode(CC, tagged, with_tags(shape(ctx, "grid:10:9"),
                                            "t corner 2/1/0 12 30 1.5\nt interpolateboundary 1/0/0 1\n"),
                      3, "grid with corners, edge-and-corner");
    check_oracle_mode(CC, tagged, with_tags(shape(ctx, "mixed"), "t corner 1/1/0 0 10\n"), 3,
                      "mixed with a corner");
    check_oracle_mode(LOOP, tagged, with_tags(shape(ctx, "icosphere:1"), "t corner 2/2/0 0 7 10 1.25\n"),
                      3, "icosphere with corners");
    check_oracle_mode(LOOP, tagged, with_tags(tri_grid(ctx, 5, 4), "t corner 1/1/0 8 0.75\n"), 3,
                      "triangulated grid with a corner");
    mmx_ctx_free(ctx);
}

/* Crease tags: every third edge creased, infinitely (10), semi-sharply (2.5, 3.7: the crease
 * rule for some levels, then the blend) and below or at 1 (0.5, 1: the blend at once), so that
 * vertices meet darts, creases, corners of three sharp edges and every transition; closed and
 * open meshes, polygons, with corner tags and the edge-and-corner boundary too, uniform and
 * Chaikin's crease method. OpenSubdiv reads the same tags. */
Test(subdiv, crease_tags_oracle, .description = "crease tags (semi-sharp and infinitely sharp edges, Chaikin) match OpenSubdiv")
{
    ORACLE_OR_SKIP();
    mmx_ctx *ctx = tu_host_ctx();
    const mmx_boundary tagged = MMX_BOUNDARY_FROM_MESH;
    const char *chaikin = "t creasemethod 0/0/1 chaikin\n";
    check_oracle_mode(CC, tagged, with_creases(shape(ctx, "cube"), 2, NULL), 4, "cube with creases");
    check_oracle_mode(CC, tagged, with_creases(shape(ctx, "torus:8:6"), 3, NULL), 3, "torus with creases");
    check_oracle_mode(CC, tagged, with_creases(shape(ctx, "torus:8:6"), 2, chaikin), 3,
                      "torus with creases, Chaikin");
    check_oracle_mode(CC, tagged, with_creases(shape(ctx, "grid:10:9"), 3, "t interpolateboundary 1/0/0 1\nt corner 1/1/0 40 1.5\n"),
                      3, "grid with creases, a corner, edge-and-corner");
    check_oracle_mode(CC, tagged, with_creases(shape(ctx, "mixed"), 2, chaikin), 3,
                      "mixed polygons with creases, Chaikin");
    check_oracle_mode(LOOP, tagged, with_creases(shape(ctx, "icosphere:1"), 3, NULL), 3,
                      "icosphere with creases");
    check_oracle_mode(LOOP, tagged, with_creases(shape(ctx, "icosphere:1"), 2, chaikin), 3,
                      "icosphere with creases, Chaikin");
    check_oracle_mode(LOOP, tagged, with_creases(tri_grid(ctx, 6, 5), 3, NULL), 3,
                      "triangulated grid with creases");
    /* Bilinear has no sharp rules: creases change nothing. */
    check_oracle_mode(BILINEAR, tagged, with_creases(shape(ctx, "mixed"), 2, NULL), 2,
                      "bilinear mixed with creases");
    mmx_ctx_free(ctx);
}

/* Hole tags: the hole faces' descendants and the vertices only they use are left out, their
 * neighbours refined as OpenSubdiv refines them (with a crease and a corner beside them too). */
Test(subdiv, hole_tags_oracle, .description = "hole tags match OpenSubdiv's refined surface")
{
    ORACLE_OR_SKIP();
    mmx_ctx *ctx = tu_host_ctx();
    const mmx_boundary tagged = MMX_BOUNDARY_FROM_MESH;
    check_oracle_mode(CC, tagged, with_tags(shape(ctx, "cube"), "t hole 1/0/0 2\n"), 3, "cube with a hole");
    check_oracle_mode(CC, tagged, with_tags(shape(ctx, "grid:10:9"), "t hole 3/0/0 0 11 40\nt corner 1/1/0 12 10\n"),
                      3, "grid with holes and a corner");
    check_oracle_mode(CC, tagged, with_creases(with_tags(shape(ctx, "mixed"), "t hole 1/0/0 1\n"), 3, NULL), 2,
                      "mixed polygons with a hole and creases");
    check_oracle_mode(LOOP, tagged, with_tags(shape(ctx, "icosphere:1"), "t hole 2/0/0 0 7\n"), 3,
                      "icosphere with holes");
    mmx_ctx_free(ctx);
}

/* MMX_HOLES_KEEP: every face kept, the holes' descendants tagged, so that a second call
 * continues as one call (then removing them gives what removing them at once gives). */
Test(subdiv, holes_kept_carry, .description = "kept holes are tagged and a second call continues")
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = with_tags(shape(ctx, "grid:6:5"), "t hole 2/0/0 3 7\n");
    mmx_subdiv_options keep = {0};
    keep.holes = MMX_HOLES_KEEP;
    mmx_mesh *one = NULL, *again = NULL, *two = NULL, *full = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_subdivide(ctx, CC, m, 1, &keep, &one));
    cr_assert_eq(one->M->ncols, m->M->nnz, "kept: every child face is there");
    mmx_mesh_tags *t = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_tags_parse(ctx, one, &t));
    cr_assert_eq(t->nholes, 8, "two quads' four children each: %d", t->nholes);
    for (mmx_index k = 0; k < t->nholes; k++)
        cr_assert(t->holes[k] / 4 == 3 || t->holes[k] / 4 == 7, "hole %d is not a child of 3 or 7", t->holes[k]);
    mmx_mesh_tags_free(t);
    MMX_OK_OR_FAIL(ctx, mmx_subdivide(ctx, CC, one, 1, NULL, &again));
    MMX_OK_OR_FAIL(ctx, mmx_subdivide(ctx, CC, m, 2, NULL, &two));
    cr_assert_eq(again->M->nrows, two->M->nrows);
    cr_assert_eq(again->M->ncols, two->M->ncols);
    cr_assert_arr_eq(again->M->rowidx, two->M->rowidx, (size_t)two->M->nnz * sizeof(mmx_index));
    const double diag = mesh_diagonal(two);
    for (size_t i = 0; i < 3 * (size_t)two->M->nrows; i++)
        cr_assert(fabs(again->pos[i] - two->pos[i]) <= 1e-6 * diag, "vertex %zu differs", i / 3);
    MMX_OK_OR_FAIL(ctx, mmx_subdivide(ctx, CC, m, 2, &keep, &full));
    cr_assert(two->M->ncols < full->M->ncols && two->M->nrows < full->M->nrows,
              "removing leaves faces and vertices out");
    keep.holes = (mmx_hole_mode)5;
    mmx_mesh *bad = NULL;
    cr_assert_eq(mmx_subdivide(ctx, CC, m, 1, &keep, &bad), MMX_ERR_ARG);
    cr_assert(strstr(mmx_ctx_error(ctx), "unknown hole mode 5"), "%s", mmx_ctx_error(ctx));
    mmx_mesh_free(full);
    mmx_mesh_free(two);
    mmx_mesh_free(again);
    mmx_mesh_free(one);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* Catmull-Clark's smooth-triangle rule (OpenSubdiv's TRI_SUB_SMOOTH) from the tag, on meshes
 * with triangles beside quads and polygons, with creases too; the option overrides the tag. */
Test(subdiv, smooth_triangles_oracle, .description = "the smooth-triangle rule matches OpenSubdiv's TRI_SUB_SMOOTH")
{
    ORACLE_OR_SKIP();
    mmx_ctx *ctx = tu_host_ctx();
    const mmx_boundary tagged = MMX_BOUNDARY_FROM_MESH;
    const char *smooth = "t smoothtriangles 0/0/1 smooth\n";
    check_oracle_mode(CC, tagged, with_tags(shape(ctx, "mixed"), smooth), 3, "mixed, smooth triangles");
    check_oracle_mode(CC, tagged, with_tags(tri_grid(ctx, 5, 4), smooth), 3, "triangulated grid, smooth triangles");
    check_oracle_mode(CC, tagged, with_creases(tri_grid(ctx, 5, 4), 3, smooth), 2,
                      "triangulated grid, smooth triangles and creases");
    check_oracle_mode(CC, tagged, with_tags(shape(ctx, "icosphere:1"), smooth), 2, "icosphere, smooth triangles");
    /* The option wins over the tag: Catmull-Clark's rule, as OpenSubdiv without the tag. */
    mmx_mesh *m = with_tags(tri_grid(ctx, 5, 4), smooth), *a = NULL, *b = NULL;
    mmx_subdiv_options o = {0};
    o.triangles = MMX_TRIANGLES_CATMARK;
    MMX_OK_OR_FAIL(ctx, mmx_subdivide(ctx, CC, m, 1, &o, &a));
    free(m->tags);
    m->tags = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_subdivide(ctx, CC, m, 1, NULL, &b));
    cr_assert_arr_eq(a->pos, b->pos, 3 * sizeof(float) * (size_t)a->M->nrows);
    o.triangles = MMX_TRIANGLES_SMOOTH; /* and without a tag, the option alone */
    mmx_mesh *c = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_subdivide(ctx, CC, m, 1, &o, &c));
    cr_assert(memcmp(c->pos, b->pos, 3 * sizeof(float) * (size_t)b->M->nrows) != 0,
              "the smooth-triangle option changed nothing");
    mmx_mesh_free(c);
    mmx_mesh_free(a);
    mmx_mesh_free(b);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* No boundary interpolation (OpenSubdiv's VTX_BOUNDARY_NONE): the faces at a boundary vertex
 * whose boundary edges are not all tagged infinitely sharp are holes. */
Test(subdiv, boundary_none_oracle, .description = "interpolateboundary 0 matches OpenSubdiv's VTX_BOUNDARY_NONE")
{
    ORACLE_OR_SKIP();
    mmx_ctx *ctx = tu_host_ctx();
    const mmx_boundary tagged = MMX_BOUNDARY_FROM_MESH;
    const char *none = "t interpolateboundary 1/0/0 0\n";
    check_oracle_mode(CC, tagged, with_tags(shape(ctx, "grid:10:9"), none), 3, "grid, no boundary interpolation");
    check_oracle_mode(CC, tagged, with_creases(shape(ctx, "mixed"), 1, none), 2,
                      "mixed, every edge creased, no boundary interpolation");
    check_oracle_mode(LOOP, tagged, with_tags(tri_grid(ctx, 6, 5), none), 3, "triangulated grid, none");
    mmx_ctx_free(ctx);
}

/* Vertices whose faces form several fans (non-manifold vertices: a bowtie's middle, the tip
 * of two cones, OpenSubdiv's nonman_verts shapes) are infinitely sharp corners, as in
 * OpenSubdiv, at every level; with a crease beside one, the default path is the algebraic one
 * (the fused walks follow one fan), which the fused path refuses when named. */
Test(subdiv, fans_oracle, .description = "vertices of several fans are corners, as OpenSubdiv's non-manifold vertices")
{
    ORACLE_OR_SKIP();
    mmx_ctx *ctx = tu_host_ctx();
    static const float p5[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, -1, 0, -1, 0, 0.5f};
    static const int bowtie[] = {0, 1, 2, -1, 0, 3, 4, -1};
    check_oracle(CC, from_lists(ctx, 5, p5, bowtie, 8), 3, "bowtie");
    check_oracle(LOOP, from_lists(ctx, 5, p5, bowtie, 8), 3, "bowtie");
    /* Two square pyramids (open at the bottom) touching at their tips, vertex 0. */
    static const float p9[] = {0, 0, 0, 1, 1, 1, -1, 1, 1, -1, -1, 1, 1, -1, 1,
                               1, 1, -1, 1, -1, -1, -1, -1, -1, -1, 1, -1};
    static const int cones[] = {0, 1, 2, -1, 0, 2, 3, -1, 0, 3, 4, -1, 0, 4, 1, -1,
                                0, 5, 6, -1, 0, 6, 7, -1, 0, 7, 8, -1, 0, 8, 5, -1};
    check_oracle(CC, from_lists(ctx, 9, p9, cones, 32), 3, "two cones on one tip");
    check_oracle(LOOP, from_lists(ctx, 9, p9, cones, 32), 3, "two cones on one tip");
    check_oracle_mode(CC, MMX_BOUNDARY_FROM_MESH,
                      with_tags(from_lists(ctx, 9, p9, cones, 32), "t crease 2/1/0 0 1 2.5\nt corner 1/1/0 5 1.5\n"),
                      2, "two cones with a crease at the tip and a corner");
    mmx_mesh *m = with_tags(from_lists(ctx, 9, p9, cones, 32), "t crease 2/1/0 0 1 2.5\n"), *out = NULL;
    mmx_subdiv_options o = {0};
    o.path = MMX_SUBDIV_PATH_FUSED;
    cr_assert_eq(mmx_subdivide(ctx, CC, m, 1, &o, &out), MMX_ERR_UNSUPPORTED);
    cr_assert(strstr(mmx_ctx_error(ctx), "creases around a vertex of several fans"), "%s", mmx_ctx_error(ctx));
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* Edges that both their faces run the same way (a flipped face) are non-manifold edges to
 * OpenSubdiv: infinitely sharp, with corners at their ends; the default path is then the
 * algebraic one, and the fused path refuses such a mesh when named. */
Test(subdiv, flipped_oracle, .description = "edges run the same way by both faces match OpenSubdiv")
{
    ORACLE_OR_SKIP();
    mmx_ctx *ctx = tu_host_ctx();
    static const int flipped[] = {0, 2, 1, -1, 0, 1, 3, -1, 1, 2, 3, -1, 0, 2, 3, -1};
    static const float p4[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    check_oracle(CC, from_lists(ctx, 4, p4, flipped, 16), 3, "tetrahedron with a face flipped");
    check_oracle(LOOP, from_lists(ctx, 4, p4, flipped, 16), 3, "tetrahedron with a face flipped");
    /* A grid with one quad flipped, and a crease. */
    mmx_mesh *g = shape(ctx, "grid:6:5");
    mmx_index *q = g->M->rowidx + 4 * 7; /* quad 7 reversed */
    mmx_index t = q[1];
    q[1] = q[3], q[3] = t;
    check_oracle_mode(CC, MMX_BOUNDARY_FROM_MESH, with_creases(g, 5, NULL), 2, "grid with a quad flipped, creases");
    mmx_mesh *m = from_lists(ctx, 4, p4, flipped, 16), *out = NULL;
    mmx_subdiv_options o = {0};
    o.path = MMX_SUBDIV_PATH_FUSED;
    cr_assert_eq(mmx_subdivide(ctx, CC, m, 1, &o, &out), MMX_ERR_UNSUPPORTED);
    cr_assert(strstr(mmx_ctx_error(ctx), "runs the same way") || strstr(mmx_ctx_error(ctx), "run the same way"),
              "%s", mmx_ctx_error(ctx));
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* The limit surface: smooth vertices of every valence, boundaries (crease and corner masks),
 * creases and corners from the tags, with the edge-and-corner mode; Loop and Catmull-Clark. */
Test(subdiv, limit_oracle, .description = "limit positions and normals match OpenSubdiv's limit masks")
{
    ORACLE_OR_SKIP();
    mmx_ctx *ctx = tu_host_ctx();
    check_limit(CC, shape(ctx, "cube"), 1, "cube");
    check_limit(CC, shape(ctx, "cube"), 2, "cube");
    check_limit(CC, shape(ctx, "mixed"), 2, "mixed polygons, boundary");
    check_limit(CC, with_creases(shape(ctx, "torus:8:6"), 3, NULL), 2, "torus with creases");
    check_limit(CC, with_tags(shape(ctx, "grid:10:9"), "t interpolateboundary 1/0/0 1\nt corner 1/1/0 40 10\n"), 1,
                "grid, edge-and-corner, a corner");
    check_limit(CC, pyramid(ctx, 7), 2, "pyramid of 7");
    check_limit(LOOP, shape(ctx, "icosphere:1"), 1, "icosphere");
    check_limit(LOOP, with_creases(shape(ctx, "icosphere:1"), 3, NULL), 2, "icosphere with creases");
    check_limit(LOOP, tri_grid(ctx, 5, 4), 2, "triangulated grid");
    check_limit(LOOP, fan(ctx, 7), 2, "fan of 7");
    mmx_ctx_free(ctx);
}

/* opts.limit gives the result's limit positions: mmx_subdiv_limit's on the result; sqrt3 has
 * no limit masks. */
Test(subdiv, limit_option, .description = "opts.limit pushes the result to the limit surface")
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = with_creases(shape(ctx, "mixed"), 3, "t corner 1/1/0 2 10\n"), *a = NULL, *b = NULL;
    mmx_subdiv_options o = {0};
    MMX_OK_OR_FAIL(ctx, mmx_subdivide(ctx, CC, m, 2, &o, &a));
    o.limit = 1;
    MMX_OK_OR_FAIL(ctx, mmx_subdivide(ctx, CC, m, 2, &o, &b));
    const size_t nv = (size_t)a->M->nrows;
    float *lp = malloc(3 * nv * sizeof *lp);
    cr_assert_not_null(lp);
    MMX_OK_OR_FAIL(ctx, mmx_subdiv_limit(ctx, CC, a, NULL, lp, NULL));
    cr_assert_arr_eq(b->pos, lp, 3 * nv * sizeof *lp, "opts.limit differs from mmx_subdiv_limit");
    cr_assert(memcmp(a->pos, lp, 3 * nv * sizeof *lp) != 0, "the limit moved nothing");
    mmx_mesh *tet = shape(ctx, "tetrahedron");
    cr_assert_eq(mmx_subdiv_limit(ctx, SQRT3, tet, NULL, lp, NULL), MMX_ERR_UNSUPPORTED);
    cr_assert_eq(mmx_subdiv_limit(ctx, CC, m, NULL, NULL, NULL), MMX_ERR_ARG);
    cr_assert_eq(mmx_subdiv_limit(ctx, CC, m, NULL, lp, NULL), MMX_ERR_MESH, "polygons: %s", mmx_ctx_error(ctx));
    free(lp);
    mmx_mesh_free(tet);
    mmx_mesh_free(a);
    mmx_mesh_free(b);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* Two quads (vertices 1-3, 5-7) or four triangles over them; vertices 0, 4 and 8 in no face. */
static const float iso_pos[] = {9, 9, 9, 0, 0, 0, 1, 0, 0, 1, 1, 0, -5, 2, 1,
                                0, 1, 0.5f, 2, 0, 0.2f, 2, 1, 0, 7, -7, 7};
static const int iso_quads[] = {1, 2, 3, 5, -1, 2, 6, 7, 3, -1};
static const int iso_tris[] = {1, 2, 3, -1, 1, 3, 5, -1, 2, 6, 7, -1, 2, 7, 3, -1};

/* Isolated vertices (in no face: first, between and after the faces' vertices) stay where
 * they are at every level, as in OpenSubdiv; both paths give the same mesh. */
Test(subdiv, isolated_vertices_oracle, .description = "vertices in no face match OpenSubdiv (both paths)")
{
    ORACLE_OR_SKIP();
    mmx_ctx *ctx = tu_host_ctx();
    check_oracle(CC, from_lists(ctx, 9, iso_pos, iso_quads, 10), 3, "two quads, three isolated vertices");
    check_oracle(BILINEAR, from_lists(ctx, 9, iso_pos, iso_quads, 10), 2, "two quads, three isolated vertices");
    check_oracle(LOOP, from_lists(ctx, 9, iso_pos, iso_tris, 16), 3, "four triangles, three isolated vertices");
    const struct {
        mmx_scheme scheme;
        const int *lists;
        int len;
    } cases[] = {{CC, iso_quads, 10}, {LOOP, iso_tris, 16}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        mmx_mesh *m = from_lists(ctx, 9, iso_pos, cases[k].lists, cases[k].len), *a = NULL, *b = NULL;
        mmx_subdiv_options o = {0};
        o.path = MMX_SUBDIV_PATH_FUSED;
        MMX_OK_OR_FAIL(ctx, mmx_subdivide(ctx, cases[k].scheme, m, 2, &o, &a));
        o.path = MMX_SUBDIV_PATH_ALGEBRAIC;
        MMX_OK_OR_FAIL(ctx, mmx_subdivide(ctx, cases[k].scheme, m, 2, &o, &b));
        cr_assert_eq(a->M->nnz, b->M->nnz);
        cr_assert_arr_eq(a->M->rowidx, b->M->rowidx, sizeof(mmx_index) * (size_t)a->M->nnz,
                         "%s: the paths' topology differs", mmx_scheme_name(cases[k].scheme));
        /* The isolated vertices keep their numbers (old vertices first) and their places. */
        for (int v = 0; v < 9; v += 4)
            for (int i = 0; i < 3; i++)
                cr_assert(a->pos[3 * v + i] == iso_pos[3 * v + i] && b->pos[3 * v + i] == iso_pos[3 * v + i],
                          "%s: isolated vertex %d moved", mmx_scheme_name(cases[k].scheme), v);
        mmx_mesh_free(a);
        mmx_mesh_free(b);
        mmx_mesh_free(m);
    }
    mmx_ctx_free(ctx);
}

/* Edges of three faces or more (OpenSubdiv's non-manifold edges) are infinitely sharp, their
 * vertices corners but inside a non-manifold crease; the default path is then the algebraic
 * one, and the fused path and plans refuse them when named. */
Test(subdiv, nonmanifold_edges_oracle, .description = "edges of three faces or more match OpenSubdiv's non-manifold edges")
{
    ORACLE_OR_SKIP();
    mmx_ctx *ctx = tu_host_ctx();
    static const float p5[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, -1, 0.2f, 0.3f, 0.2f, 1};
    static const int nm_edge[] = {0, 1, 2, -1, 1, 0, 3, -1, 0, 1, 4, -1};
    check_oracle(CC, from_lists(ctx, 5, p5, nm_edge, 12), 3, "three triangles on one edge");
    check_oracle(LOOP, from_lists(ctx, 5, p5, nm_edge, 12), 3, "three triangles on one edge");
    /* Four quads on one edge, a book: the edge's inner vertices form a non-manifold crease. */
    static const float p10[] = {0, 0, 0, 0, 0, 1, 1, 0, 0, 1, 0, 1, -1, 0, 0, -1, 0, 1,
                                0, 1, 0, 0, 1, 1, 0, -1, 0, 0, -1, 1};
    static const int book[] = {0, 1, 3, 2, -1, 1, 0, 4, 5, -1, 0, 1, 7, 6, -1, 1, 0, 8, 9, -1};
    check_oracle(CC, from_lists(ctx, 10, p10, book, 20), 3, "four quads on one edge");
    check_oracle_mode(CC, MMX_BOUNDARY_FROM_MESH,
                      with_tags(from_lists(ctx, 10, p10, book, 20), "t crease 2/1/0 0 2 1.5\nt interpolateboundary 1/0/0 1\n"),
                      2, "four quads on one edge, a crease, edge-and-corner");
    mmx_mesh *m = from_lists(ctx, 10, p10, book, 20), *out = NULL;
    mmx_subdiv_options o = {0};
    o.path = MMX_SUBDIV_PATH_FUSED;
    cr_assert_eq(mmx_subdivide(ctx, CC, m, 1, &o, &out), MMX_ERR_UNSUPPORTED);
    cr_assert(strstr(mmx_ctx_error(ctx), "edge (0, 1) (0-based vertex numbers) has 4"), "%s", mmx_ctx_error(ctx));
    mmx_subdiv_plan *plan = NULL;
    cr_assert_eq(mmx_subdiv_plan_create(ctx, CC, m, 1, NULL, &plan), MMX_ERR_UNSUPPORTED);
    float lp[30];
    cr_assert_eq(mmx_subdiv_limit(ctx, BILINEAR, m, NULL, lp, NULL), MMX_ERR_UNSUPPORTED);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* m with texture coordinates from its positions' x and y; with seams = 1, odd faces take their
 * own copies shifted by 10 in u, so every edge between an odd and an even face is a seam; with
 * seams = 2, the first half of the faces do, one seam between two charts. */
static mmx_mesh *with_uv(mmx_mesh *m, int seams)
{
    const mmx_csc *M = m->M;
    const mmx_index nv = M->nrows;
    mmx_mesh_uv *uv = calloc(1, sizeof *uv);
    cr_assert_not_null(uv);
    uv->nvalues = seams ? 2 * nv : nv;
    uv->values = malloc(2 * sizeof(float) * (size_t)uv->nvalues);
    uv->index = malloc(sizeof(mmx_index) * (size_t)M->nnz + 1);
    cr_assert(uv->values && uv->index);
    for (mmx_index k = 0; k < uv->nvalues; k++) {
        const mmx_index v = k % nv;
        uv->values[2 * k] = m->pos[3 * v] + (k >= nv ? 10.0f : 0.0f);
        uv->values[2 * k + 1] = m->pos[3 * v + 1];
    }
    for (mmx_index f = 0; f < M->ncols; f++) {
        const mmx_index a = M->order ? M->order * f : M->colptr[f];
        const mmx_index n = M->order ? M->order : M->colptr[f + 1] - a;
        const int copy = (seams == 1 && f % 2) || (seams == 2 && f < M->ncols / 2);
        for (mmx_index j = 0; j < n; j++) uv->index[a + j] = M->rowidx[a + j] + (copy ? nv : 0);
    }
    mmx_mesh_uv_free(m->uv);
    m->uv = uv;
    return m;
}

/* Texture coordinates, linear everywhere (OpenSubdiv's default FVAR_LINEAR_ALL): continuous
 * and with seams, polygons, Loop, with creases and with holes (whose faces leave with their
 * coordinates). */
Test(subdiv, uv_oracle, .description = "texture coordinates match OpenSubdiv's face-varying refinement")
{
    ORACLE_OR_SKIP();
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *tex = read_data(ctx, "textured.obj");
    cr_assert(tex->uv && tex->uv->nvalues == 8, "textured.obj's coordinates");
    check_uv(CC, tex, 3, "textured.obj (two quads, a seam)");
    check_uv(CC, with_uv(shape(ctx, "grid:10:9"), 0), 2, "grid");
    check_uv(CC, with_uv(shape(ctx, "grid:10:9"), 1), 3, "grid with seams");
    check_uv(CC, with_uv(shape(ctx, "mixed"), 1), 2, "mixed polygons with seams");
    check_uv(BILINEAR, with_uv(shape(ctx, "mixed"), 0), 2, "bilinear mixed");
    check_uv(LOOP, with_uv(tri_grid(ctx, 6, 5), 1), 3, "triangulated grid with seams");
    /* A face whose second corner repeats its first's coordinate: a texture mesh no mesh
     * matrix holds, which the linear mode refines corner by corner instead (uv.c). */
    mmx_mesh *deg = with_uv(shape(ctx, "grid:10:9"), 1);
    deg->uv->index[deg->M->order * 7 + 1] = deg->uv->index[deg->M->order * 7];
    check_uv(CC, deg, 2, "grid with seams, a face repeating a coordinate");
    check_uv(CC, with_creases(with_uv(shape(ctx, "torus:8:6"), 1), 3, "t hole 1/0/0 4\n"), 2,
             "torus with seams, creases and a hole");
    mmx_ctx_free(ctx);
}

/* The smooth face-varying modes from the tag (0: smooth, 1: corners only, 4: boundaries):
 * the texture mesh refined by the scheme's rules, seams and boundaries sharp, with the mesh's
 * creases and corners. */
Test(subdiv, uv_modes_oracle, .description = "smooth face-varying modes match OpenSubdiv's")
{
    ORACLE_OR_SKIP();
    mmx_ctx *ctx = tu_host_ctx();
    static const char *const mode[3] = {"t facevaryinginterpolateboundary 1/0/0 0\n",
                                        "t facevaryinginterpolateboundary 1/0/0 1\n",
                                        "t facevaryinginterpolateboundary 1/0/0 4\n"};
    for (int k = 0; k < 3; k++) {
        char what[96];
        snprintf(what, sizeof what, "grid, one seam, %s", mode[k]);
        check_uv(CC, with_tags(with_uv(shape(ctx, "grid:10:9"), 2), mode[k]), 3, what);
        snprintf(what, sizeof what, "grid, checkered seams, %s", mode[k]);
        check_uv(CC, with_tags(with_uv(shape(ctx, "grid:10:9"), 1), mode[k]), 2, what);
        snprintf(what, sizeof what, "mixed polygons, one seam, %s", mode[k]);
        check_uv(CC, with_tags(with_uv(shape(ctx, "mixed"), 2), mode[k]), 3, what);
        snprintf(what, sizeof what, "icosphere, one seam, %s", mode[k]);
        check_uv(LOOP, with_tags(with_uv(shape(ctx, "icosphere:1"), 2), mode[k]), 3, what);
        snprintf(what, sizeof what, "torus with creases, one seam, %s", mode[k]);
        check_uv(CC, with_creases(with_uv(shape(ctx, "torus:8:6"), 2), 3, mode[k]), 2, what);
    }
    mmx_ctx_free(ctx);
}

/* The coordinates are the same on both paths, and sqrt3 makes none. */
Test(subdiv, uv_paths, .description = "texture coordinates: both paths alike; sqrt3 makes none")
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = with_uv(shape(ctx, "mixed"), 1), *a = NULL, *b = NULL;
    mmx_subdiv_options o = {0};
    o.path = MMX_SUBDIV_PATH_ALGEBRAIC;
    MMX_OK_OR_FAIL(ctx, mmx_subdivide(ctx, CC, m, 2, &o, &a));
    MMX_OK_OR_FAIL(ctx, mmx_subdivide(ctx, CC, m, 2, NULL, &b));
    cr_assert(a->uv && b->uv && a->uv->nvalues == b->uv->nvalues);
    cr_assert_arr_eq(a->uv->index, b->uv->index, sizeof(mmx_index) * (size_t)a->M->nnz);
    cr_assert_arr_eq(a->uv->values, b->uv->values, 2 * sizeof(float) * (size_t)a->uv->nvalues);
    /* A shuffled mesh's faces keep their corners' coordinates (mmx_mesh_permute). */
    mmx_index *vperm = malloc(sizeof *vperm * (size_t)m->M->nrows), *fperm = malloc(sizeof *fperm * (size_t)m->M->ncols);
    mmx_mesh *sh = NULL;
    cr_assert(vperm && fperm);
    MMX_OK_OR_FAIL(ctx, mmx_mesh_shuffle(ctx, m, 3, vperm, fperm, &sh));
    cr_assert_not_null(sh->uv);
    for (mmx_index f = 0, q = 0; f < sh->M->ncols; f++) {
        const mmx_index g = fperm[f], a = m->M->colptr[g], n = m->M->colptr[g + 1] - a;
        for (mmx_index j = 0; j < n; j++, q++)
            cr_assert_eq(sh->uv->index[q], m->uv->index[a + j], "face %d corner %d", f, j);
    }
    free(vperm), free(fperm);
    mmx_mesh_free(sh);
    mmx_mesh *t = with_uv(shape(ctx, "tetrahedron"), 0), *c = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_subdivide(ctx, SQRT3, t, 1, NULL, &c));
    cr_assert_null(c->uv);
    mmx_mesh_free(c), mmx_mesh_free(t), mmx_mesh_free(a), mmx_mesh_free(b), mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* sqrt3 has no sharp rules (OpenMesh's Sqrt3T): creases and corners do not apply to it, on
 * either path. */
Test(subdiv, sqrt3_without_sharp_rules, .description = "sqrt3 takes creased meshes as if they had no creases")
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *tet = with_creases(shape(ctx, "tetrahedron"), 1, "t corner 1/1/0 0 10\n"), *a = NULL, *b = NULL;
    mmx_mesh *plain = shape(ctx, "tetrahedron");
    for (int p = MMX_SUBDIV_PATH_AUTO; p <= MMX_SUBDIV_PATH_ALGEBRAIC; p++) {
        mmx_subdiv_options o = {0};
        o.path = (mmx_subdiv_path)p;
        MMX_OK_OR_FAIL(ctx, mmx_subdivide(ctx, SQRT3, tet, 2, &o, &a));
        MMX_OK_OR_FAIL(ctx, mmx_subdivide(ctx, SQRT3, plain, 2, &o, &b));
        cr_assert_arr_eq(a->pos, b->pos, 3 * sizeof(float) * (size_t)a->M->nrows, "path %d", p);
        mmx_mesh_free(a), mmx_mesh_free(b);
    }
    mmx_mesh_free(plain);
    mmx_mesh_free(tet);
    mmx_ctx_free(ctx);
}

Test(subdiv, cc_high_valence_oracle, .description = "Catmull-Clark around valence 3 to 96 matches OpenSubdiv")
{
    ORACLE_OR_SKIP();
    mmx_ctx *ctx = tu_host_ctx();
    check_oracle(CC, pyramid(ctx, 3), 3, "pyramid 3");
    check_oracle(CC, pyramid(ctx, 96), 2, "pyramid 96");
    check_oracle(CC, bipyramid(ctx, 40), 2, "bipyramid 40");
    check_oracle(CC, fan(ctx, 64), 2, "fan of 64");
    mmx_ctx_free(ctx);
}

Test(subdiv, cc_pillows_and_large_faces_oracle, .description = "Catmull-Clark on pillows (valence 2) and large faces matches OpenSubdiv")
{
    ORACLE_OR_SKIP();
    mmx_ctx *ctx = tu_host_ctx();
    check_oracle(CC, pillow(ctx, 0), 3, "two triangles glued along all edges");
    /* (Two n-gons glued are left to test_fused: their face points coincide, and the
     * comparison up to vertex order cannot tell coincident vertices apart.) */
    check_oracle(CC, ngon(ctx, 2000, 0), 2, "one 2000-gon");
    check_oracle(CC, pyramid(ctx, 1000), 2, "a 1000-gon closed by a cone");
    mmx_ctx_free(ctx);
}

Test(subdiv, cc_shuffled_oracle, .description = "Catmull-Clark on shuffled vertex and face order matches OpenSubdiv")
{
    ORACLE_OR_SKIP();
    mmx_ctx *ctx = tu_host_ctx();
    check_oracle(CC, shuffled(ctx, shape(ctx, "mixed"), 11), 3, "shuffled mixed");
    check_oracle(CC, shuffled(ctx, shape(ctx, "torus:12:7"), 12), 2, "shuffled torus");
    check_oracle(CC, shuffled(ctx, pyramid(ctx, 17), 13), 2, "shuffled pyramid 17");
    check_oracle(CC, shuffled(ctx, read_data(ctx, "house.obj"), 14), 2, "shuffled house.obj");
    mmx_ctx_free(ctx);
}

Test(subdiv, loop_closed_oracle, .description = "Loop on closed meshes matches OpenSubdiv")
{
    ORACLE_OR_SKIP();
    mmx_ctx *ctx = tu_host_ctx();
    check_oracle(LOOP, shape(ctx, "tetrahedron"), 3, "tetrahedron");
    check_oracle(LOOP, shape(ctx, "icosphere:1"), 3, "icosphere 1");
    check_oracle(LOOP, bipyramid(ctx, 3), 3, "bipyramid 3");
    check_oracle(LOOP, bipyramid(ctx, 64), 2, "bipyramid 64");
    mmx_ctx_free(ctx);
}

Test(subdiv, loop_open_oracle, .description = "Loop with boundaries matches OpenSubdiv (edge-only rule)")
{
    ORACLE_OR_SKIP();
    mmx_ctx *ctx = tu_host_ctx();
    check_oracle(LOOP, fan(ctx, 5), 3, "fan of 5");
    check_oracle(LOOP, fan(ctx, 48), 2, "fan of 48");
    check_oracle(LOOP, tri_grid(ctx, 6, 5), 3, "triangulated grid");
    check_oracle(LOOP, read_data(ctx, "strip.obj"), 3, "strip.obj");
    mmx_ctx_free(ctx);
}

Test(subdiv, loop_shuffled_oracle, .description = "Loop on shuffled vertex and face order matches OpenSubdiv")
{
    ORACLE_OR_SKIP();
    mmx_ctx *ctx = tu_host_ctx();
    check_oracle(LOOP, shuffled(ctx, shape(ctx, "icosphere:2"), 21), 2, "shuffled icosphere");
    check_oracle(LOOP, shuffled(ctx, tri_grid(ctx, 7, 3), 22), 2, "shuffled triangulated grid");
    check_oracle(LOOP, shuffled(ctx, fan(ctx, 9), 23), 3, "shuffled fan");
    mmx_ctx_free(ctx);
}

Test(subdiv, sqrt3_oracle, .description = "sqrt3 on closed meshes matches OpenMesh")
{
    ORACLE_OR_SKIP();
    mmx_ctx *ctx = tu_host_ctx();
    check_oracle(SQRT3, shape(ctx, "tetrahedron"), 4, "tetrahedron");
    check_oracle(SQRT3, shape(ctx, "icosphere:2"), 3, "icosphere 2");
    check_oracle(SQRT3, bipyramid(ctx, 5), 4, "bipyramid 5");
    check_oracle(SQRT3, bipyramid(ctx, 80), 3, "bipyramid 80");
    check_oracle(SQRT3, shuffled(ctx, shape(ctx, "icosphere:1"), 31), 3, "shuffled icosphere");
    check_oracle(SQRT3, shuffled(ctx, bipyramid(ctx, 12), 32), 3, "shuffled bipyramid 12");
    mmx_ctx_free(ctx);
}

/* m (host) with each face fanned into triangles from its first corner, leaving out the faces
 * whose number is in `cut` (ncut of them: a hole); frees m. */
static mmx_mesh *triangulated(mmx_ctx *ctx, mmx_mesh *m, const int *cut, int ncut)
{
    const mmx_csc *M = m->M;
    int *lists = malloc(sizeof *lists * 4 * (size_t)M->nnz);
    cr_assert(lists);
    int len = 0;
    for (mmx_index k = 0; k < M->ncols; k++) {
        int skip = 0;
        for (int i = 0; i < ncut; i++) skip |= cut[i] == k;
        const mmx_index a = M->order ? M->order * k : M->colptr[k];
        const mmx_index b = M->order ? a + M->order : M->colptr[k + 1];
        for (mmx_index q = a + 1; !skip && q + 1 < b; q++) {
            lists[len++] = M->rowidx[a], lists[len++] = M->rowidx[q];
            lists[len++] = M->rowidx[q + 1], lists[len++] = -1;
        }
    }
    mmx_mesh *t = from_lists(ctx, M->nrows, m->pos, lists, len);
    free(lists);
    mmx_mesh_free(m);
    return t;
}

/* Kobbelt's boundary rule (rules.h) against OpenMesh's Sqrt3T, one call per level count: grids
 * (corners of valence 1 and 2), a strip with a fan, disks, single triangles, a torus with a
 * hole (genus 1, one boundary loop) and a grid with two holes (three loops), shuffled too. */
Test(subdiv, sqrt3_open_oracle, .description = "sqrt3 with boundaries matches OpenMesh (Kobbelt's rule)")
{
    ORACLE_OR_SKIP();
    mmx_ctx *ctx = tu_host_ctx();
    static const float p4[] = {0, 0, 0, 1, 0, 0.2f, 1, 1, 0.3f, 0, 1, 0};
    static const int one[] = {0, 1, 2, -1}, two[] = {0, 1, 2, -1, 0, 2, 3, -1};
    static const int hole[] = {9, 10};
    check_oracle(SQRT3, from_lists(ctx, 3, p4, one, 4), 4, "one triangle");
    check_oracle(SQRT3, from_lists(ctx, 4, p4, two, 8), 4, "two triangles");
    check_oracle(SQRT3, tri_grid(ctx, 6, 5), 3, "triangulated grid 6 x 5");
    check_oracle(SQRT3, read_data(ctx, "strip.obj"), 4, "strip");
    check_oracle(SQRT3, fan(ctx, 3), 4, "fan of 3 (a disk)");
    check_oracle(SQRT3, fan(ctx, 11), 3, "fan of 11 (a disk)");
    check_oracle(SQRT3, triangulated(ctx, shape(ctx, "torus:8:6"), hole, 2), 3, "torus with a hole");
    check_oracle(SQRT3, triangulated(ctx, shape(ctx, "grid:10:9"), NULL, 0), 3, "grid with two holes");
    check_oracle(SQRT3, shuffled(ctx, tri_grid(ctx, 7, 4), 41), 3, "shuffled triangulated grid");
    check_oracle(SQRT3, shuffled(ctx, read_data(ctx, "strip.obj"), 42), 3, "shuffled strip");
    mmx_ctx_free(ctx);
}

/* Asserts that `got` (host, triangles) is exactly the mesh of nv vertices `pos` and nf faces
 * `tris` in subdiv.h's layout (same numbers, same order), positions within 1e-6. */
static void same_layout(const mmx_mesh *got, int nv, const double *pos, int nf, const int *tris,
                        const char *what)
{
    cr_assert_eq(got->M->nrows, nv, "%s: %d vertices, want %d", what, got->M->nrows, nv);
    cr_assert_eq(got->M->ncols, nf, "%s: %d faces, want %d", what, got->M->ncols, nf);
    cr_assert_eq(got->M->order, 3, "%s: not reduced triangles", what);
    for (int q = 0; q < 3 * nf; q++)
        cr_assert_eq(got->M->rowidx[q], tris[q], "%s: face %d corner %d is vertex %d, want %d",
                     what, q / 3, q % 3, got->M->rowidx[q], tris[q]);
    for (int i = 0; i < 3 * nv; i++)
        cr_assert(fabs(got->pos[i] - pos[i]) <= 1e-6, "%s: vertex %d coordinate %d is %.9g, want %.9g",
                  what, i / 3, i % 3, got->pos[i], pos[i]);
}

/* A dense statement of Kobbelt's rule on the smallest inputs, written out by hand (the weights
 * in 27ths) in the output layout: one triangle (a, b, c) and a square of two, refined once
 * (centres, boundary kept) and, the triangle, twice (each boundary edge cut in three). */
Test(subdiv, sqrt3_boundary_by_hand, .description = "sqrt3's boundary rule, written out by hand on one and two triangles")
{
    mmx_ctx *ctx = tu_host_ctx();
    static const float p[] = {0, 0, 0, 3, 0, 0.5f, 1, 2, 1.5f, -1, 1.5f, 0};
    static const int one[] = {0, 1, 2, -1}, two[] = {0, 1, 2, -1, 0, 2, 3, -1};
    double P[4][3];
    for (int i = 0; i < 4; i++)
        for (int d = 0; d < 3; d++) P[i][d] = p[3 * i + d];
    const double *a = P[0], *b = P[1], *c = P[2], *d4 = P[3];
    mmx_mesh *tri = from_lists(ctx, 3, p, one, 4), *sq = from_lists(ctx, 4, p, two, 8), *out = NULL;

    /* One level of the triangle (generation 0): its vertices stay (boundary), the centre m
     * (vertex 3), and the child (v_s, v_s+1, m) of each boundary edge s. */
    double pos1[4 * 3];
    static const int tris1[9] = {0, 1, 3, 1, 2, 3, 2, 0, 3};
    for (int k = 0; k < 3; k++) {
        pos1[k] = a[k], pos1[3 + k] = b[k], pos1[6 + k] = c[k];
        pos1[9 + k] = (a[k] + b[k] + c[k]) / 3;
    }
    MMX_OK_OR_FAIL(ctx, mmx_subdivide(ctx, SQRT3, tri, 1, NULL, &out));
    same_layout(out, 4, pos1, 3, tris1, "one triangle, 1 level");
    mmx_mesh_free(out);

    /* Two levels: generation 1 refines faces f_i = (u, v, m), i = 0..2, (u, v) = (a, b),
     * (b, c), (c, a), w the third corner. Odd: u moves to 19/27 u + 4/27 (v + w) (its two
     * boundary neighbours); m (inner, valence 3, alpha = (4 - 2 cos(2 pi / 3)) / 9 = 5/9) to
     * 4/9 m + 5/27 (a + b + c); edge u -> v is cut at l_i = (16 u + 10 v + w) / 27, in f_i's
     * face slot 4 + i, and r_i = (10 u + 16 v + w) / 27, vertex 7 + i after the face slots;
     * f_i's children in corner order: (l_i, r_i, m) (the middle of the cut edge), then the
     * flips of its edges v -> m and m -> u with f_i+1's l and f_i-1's r:
     * (v, l_i+1, r_i) and (m, r_i-1, l_i). */
    double pos2[10 * 3];
    const double *V[3] = {a, b, c};
    for (int k = 0; k < 3; k++) {
        const double m = (a[k] + b[k] + c[k]) / 3;
        for (int i = 0; i < 3; i++) {
            const double u = V[i][k], v = V[(i + 1) % 3][k], w = V[(i + 2) % 3][k];
            pos2[3 * i + k] = (19 * u + 4 * (v + w)) / 27;
            pos2[3 * (4 + i) + k] = (16 * u + 10 * v + w) / 27;
            pos2[3 * (7 + i) + k] = (10 * u + 16 * v + w) / 27;
        }
        pos2[9 + k] = 4.0 / 9.0 * m + 5.0 / 27.0 * (a[k] + b[k] + c[k]);
    }
    int tris2[27];
    for (int i = 0; i < 3; i++) {
        const int l = 4 + i, r = 7 + i, v = (i + 1) % 3, lnext = 4 + (i + 1) % 3,
                  rprev = 7 + (i + 2) % 3;
        const int t[9] = {l, r, 3, v, lnext, r, 3, rprev, l};
        for (int q = 0; q < 9; q++) tris2[9 * i + q] = t[q];
    }
    MMX_OK_OR_FAIL(ctx, mmx_subdivide(ctx, SQRT3, tri, 2, NULL, &out));
    same_layout(out, 10, pos2, 9, tris2, "one triangle, 2 levels");
    mmx_mesh_free(out);

    /* The square (a, b, c), (a, c, d4), one level: the corners stay, two centres m0 = 4 and
     * m1 = 5, the inner edge a-c flips to m0-m1, the four boundary edges keep their children. */
    double pos3[6 * 3];
    for (int k = 0; k < 3; k++) {
        pos3[k] = a[k], pos3[3 + k] = b[k], pos3[6 + k] = c[k], pos3[9 + k] = d4[k];
        pos3[12 + k] = (a[k] + b[k] + c[k]) / 3, pos3[15 + k] = (a[k] + c[k] + d4[k]) / 3;
    }
    static const int tris3[18] = {0, 1, 4, 1, 2, 4, 2, 5, 4, 0, 4, 5, 2, 3, 5, 3, 0, 5};
    MMX_OK_OR_FAIL(ctx, mmx_subdivide(ctx, SQRT3, sq, 1, NULL, &out));
    same_layout(out, 6, pos3, 6, tris3, "two triangles, 1 level");
    mmx_mesh_free(out);
    mmx_mesh_free(tri);
    mmx_mesh_free(sq);
    mmx_ctx_free(ctx);
}

/* The default path takes sqrt3 with boundary on the algebraic path (the same bytes); the fused
 * path and plans take it too (the algebraic path's topology, the fused passes' positions: the
 * same topology, positions within rounding; before, both refused it); each call starts at
 * generation 0, as each call of OpenMesh's subdivider does: two calls of one level are
 * OpenMesh's one level twice, and differ from one call of two. */
Test(subdiv, sqrt3_boundary_paths_and_calls, .description = "sqrt3 with boundary: default = algebraic = fused = plans, a second call starts at generation 0")
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = read_data(ctx, "strip.obj"), *a = NULL, *d = NULL;
    mmx_subdiv_options o = {0};
    o.path = MMX_SUBDIV_PATH_ALGEBRAIC;
    MMX_OK_OR_FAIL(ctx, mmx_subdivide(ctx, SQRT3, m, 3, &o, &a));
    MMX_OK_OR_FAIL(ctx, mmx_subdivide(ctx, SQRT3, m, 3, NULL, &d));
    cr_assert_eq(a->M->nrows, d->M->nrows);
    cr_assert_eq(a->M->ncols, d->M->ncols);
    cr_assert(memcmp(a->M->rowidx, d->M->rowidx, (size_t)a->M->nnz * sizeof *a->M->rowidx) == 0);
    cr_assert(memcmp(a->pos, d->pos, 3 * (size_t)a->M->nrows * sizeof *a->pos) == 0);
    mmx_mesh_free(d);
    d = NULL;
    o.path = MMX_SUBDIV_PATH_FUSED;
    MMX_OK_OR_FAIL(ctx, mmx_subdivide(ctx, SQRT3, m, 3, &o, &d));
    mmx_subdiv_plan *plan = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_subdiv_plan_create(ctx, SQRT3, m, 3, NULL, &plan));
    mmx_index pnv = 0, pnf = 0;
    mmx_subdiv_plan_sizes(plan, NULL, &pnv, &pnf);
    float *pp = malloc(3 * (size_t)pnv * sizeof *pp);
    cr_assert_not_null(pp);
    MMX_OK_OR_FAIL(ctx, mmx_subdiv_plan_eval(plan, m->pos, pp));
    cr_assert_eq(d->M->nrows, a->M->nrows);
    cr_assert_eq(pnv, a->M->nrows);
    cr_assert_eq(pnf, a->M->ncols);
    cr_assert(memcmp(a->M->rowidx, d->M->rowidx, (size_t)a->M->nnz * sizeof *a->M->rowidx) == 0);
    const double diag = mesh_diagonal(a);
    for (size_t i = 0; i < 3 * (size_t)a->M->nrows; i++) {
        cr_assert(fabs((double)d->pos[i] - a->pos[i]) <= 1e-6 * diag, "fused coordinate %zu", i);
        cr_assert(fabs((double)pp[i] - a->pos[i]) <= 1e-6 * diag, "plan coordinate %zu", i);
    }
    free(pp);
    mmx_subdiv_plan_free(plan);
    mmx_mesh_free(d);
    /* The counts of one call of 2 levels: 17 + 20 centres, then 37 + 60 - 28 centres (inner
     * faces) + 2 x 28 cut points (28 boundary edges after level 1, as before it). */
    mmx_mesh *two = NULL, *once = NULL, *twice = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_subdivide(ctx, SQRT3, m, 2, NULL, &two));
    MMX_OK_OR_FAIL(ctx, mmx_subdivide(ctx, SQRT3, m, 1, NULL, &once));
    MMX_OK_OR_FAIL(ctx, mmx_subdivide(ctx, SQRT3, once, 1, NULL, &twice));
    cr_assert_neq(two->M->nrows, twice->M->nrows, "two calls of one level are two even generations");
    cr_assert_eq(twice->M->nrows, once->M->nrows + once->M->ncols);
#ifdef MMX_TEST_ORACLE
    oracle_mesh in = to_oracle(ctx, m), ref1, ref2, ours = to_oracle(ctx, twice);
    char err[512] = "", report[512] = "";
    double max_err = -1;
    cr_assert_eq(oracle_om_sqrt3(&in, 1, &ref1, NULL, err, sizeof err), 0, "%s", err);
    cr_assert_eq(oracle_om_sqrt3(&ref1, 1, &ref2, NULL, err, sizeof err), 0, "%s", err);
    cr_assert_eq(oracle_compare(&ours, &ref2, ORACLE_TOL, &max_err, report, sizeof report), 0,
                 "two calls of one level: %s", report);
    oracle_mesh_free(&in), oracle_mesh_free(&ref1), oracle_mesh_free(&ref2), oracle_mesh_free(&ours);
#endif
    mmx_mesh_free(two), mmx_mesh_free(once), mmx_mesh_free(twice);
    mmx_mesh_free(a);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* ---- layout, sizes, levels 0 ---------------------------------------------------------------- */

Test(subdiv, layout, .description = "old vertices keep their numbers, children follow their parent, sizes match the prediction")
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = shape(ctx, "mixed");
    mmx_adjacency *adj = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_adjacency_compute(ctx, m, &adj));
    const mmx_scheme schemes[] = {CC, LOOP};
    for (int i = 0; i < 2; i++) {
        mmx_mesh *in = schemes[i] == LOOP ? fan(ctx, 6) : m, *fine = NULL;
        mmx_adjacency *a = adj;
        if (in != m) MMX_OK_OR_FAIL(ctx, mmx_adjacency_compute(ctx, in, &a));
        mmx_subdiv_level trace[1];
        mmx_subdiv_options o = {0};
        o.trace = trace;
        MMX_OK_OR_FAIL(ctx, mmx_subdivide(ctx, schemes[i], in, 1, &o, &fine));
        int64_t nv, nf, ne, nnz;
        cr_assert_eq(mmx_subdiv_predict(schemes[i], in->M->nrows, in->M->ncols, a->nedges,
                                        in->M->nnz, 1, &nv, &nf, &ne, &nnz), MMX_OK);
        cr_assert_eq(fine->M->nrows, nv);
        cr_assert_eq(fine->M->ncols, nf);
        cr_assert_eq(fine->M->nnz, nnz);
        cr_assert_eq(fine->M->order, schemes[i] == CC ? 4 : 3, "the result is reduced");
        cr_assert_eq(trace[0].nverts, nv);
        cr_assert_eq(trace[0].nfaces, nf);
        cr_assert_eq(trace[0].nedges, ne);
        mmx_mesh_stats st;
        MMX_OK_OR_FAIL(ctx, mmx_mesh_stats_compute(ctx, fine, &st));
        cr_assert_eq(st.nedges, ne, "the edge count in closed form");
        cr_assert(st.oriented, "children keep their parent's orientation");
        /* Child s of face k starts with the parent's corner s (Loop: children 1..3). */
        mmx_index *start = NULL, *verts = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_mesh_faces(ctx, in, &start, &verts));
        for (mmx_index k = 0; k < in->M->ncols; k++)
            for (mmx_index s = 0; s < start[k + 1] - start[k]; s++) {
                mmx_index child = schemes[i] == CC ? start[k] + s : 4 * k + 1 + s;
                cr_assert_eq(fine->M->rowidx[(int64_t)fine->M->order * child], verts[start[k] + s],
                             "face %d corner %d", k, s);
            }
        free(start);
        free(verts);
        if (in != m) {
            mmx_adjacency_free(a);
            mmx_mesh_free(in);
        }
        mmx_mesh_free(fine);
    }
    mmx_adjacency_free(adj);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(subdiv, levels_zero_copies, .description = "0 levels returns an equal copy")
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = shape(ctx, "mixed"), *c = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_subdivide(ctx, CC, m, 0, NULL, &c));
    cr_assert_neq(c, m);
    cr_assert_eq(c->M->nnz, m->M->nnz);
    cr_assert_eq(memcmp(c->M->rowidx, m->M->rowidx, sizeof(mmx_index) * (size_t)m->M->nnz), 0);
    cr_assert_eq(memcmp(c->pos, m->pos, sizeof(float) * 3 * (size_t)m->M->nrows), 0);
    mmx_mesh_free(c);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(subdiv, predict, .description = "the closed-form sizes")
{
    int64_t v, f, e, c;
    /* A cube: 8 vertices, 6 quads, 12 edges; Catmull-Clark twice: 98, 96, 192. */
    cr_assert_eq(mmx_subdiv_predict(CC, 8, 6, 12, 24, 2, &v, &f, &e, &c), MMX_OK);
    cr_assert(v == 98 && f == 96 && e == 192 && c == 384);
    /* A tetrahedron: Loop once 10, 16, 24; sqrt3 once 8, 12, 18. */
    cr_assert_eq(mmx_subdiv_predict(LOOP, 4, 4, 6, 12, 1, &v, &f, &e, &c), MMX_OK);
    cr_assert(v == 10 && f == 16 && e == 24 && c == 48);
    cr_assert_eq(mmx_subdiv_predict(SQRT3, 4, 4, 6, 12, 1, &v, &f, &e, &c), MMX_OK);
    cr_assert(v == 8 && f == 12 && e == 18 && c == 36);
    cr_assert_eq(mmx_subdiv_predict(CC, -1, 6, 12, 24, 2, &v, &f, &e, &c), MMX_ERR_ARG);
    cr_assert_eq(mmx_subdiv_predict((mmx_scheme)7, 8, 6, 12, 24, 2, &v, &f, &e, &c), MMX_ERR_ARG);
    /* Past 2^40 the counts were clamped and wrong; they are exact up to 2^58 before a level
     * (a cube, Catmull-Clark: 6 * 4^L faces; L = 25 gives 6 * 2^50) and refused beyond. */
    cr_assert_eq(mmx_subdiv_predict(CC, 8, 6, 12, 24, 25, &v, &f, &e, &c), MMX_OK);
    cr_assert_eq(f, (int64_t)6 << 50);
    cr_assert_eq(c, (int64_t)24 << 50);
    cr_assert_eq(mmx_subdiv_predict(LOOP, 4, 4, 6, 12, 24, &v, &f, &e, &c), MMX_OK);
    cr_assert_eq(f, (int64_t)4 << 48);
    cr_assert_eq(mmx_subdiv_predict(CC, 8, 6, 12, 24, 40, &v, &f, &e, &c), MMX_ERR_OVERFLOW);
    cr_assert_eq(mmx_subdiv_predict(LOOP, 4, 4, 6, 12, 1000, &v, &f, &e, &c), MMX_ERR_OVERFLOW);
    cr_assert_eq(mmx_subdiv_predict(SQRT3, 4, 4, 6, (int64_t)1 << 60, 1, &v, &f, &e, &c),
                 MMX_ERR_OVERFLOW);
}

Test(subdiv, scheme_names, .description = "scheme names parse and print")
{
    mmx_scheme s;
    cr_assert_eq(mmx_scheme_parse("loop", &s), MMX_OK);
    cr_assert_eq(s, LOOP);
    cr_assert_eq(mmx_scheme_parse("catmark", &s), MMX_OK);
    cr_assert_eq(s, CC);
    cr_assert_str_eq(mmx_scheme_name(SQRT3), "sqrt3");
    cr_assert_eq(mmx_scheme_parse("bilinear", &s), MMX_OK);
    cr_assert_eq(s, BILINEAR);
    cr_assert_str_eq(mmx_scheme_name(BILINEAR), "bilinear");
    cr_assert_eq(mmx_scheme_parse("butterfly", &s), MMX_ERR_ARG);
    cr_assert_null(mmx_scheme_name((mmx_scheme)9));
}

/* ---- refused inputs --------------------------------------------------------------------------- */

/* Asserts mmx_subdivide refuses with `want` and a detail containing `needle`. */
static void refused(mmx_ctx *ctx, mmx_scheme scheme, const mmx_mesh *m, int levels,
                    mmx_status want, const char *needle)
{
    mmx_mesh *out = (mmx_mesh *)1;
    mmx_status s = mmx_subdivide(ctx, scheme, m, levels, NULL, &out);
    cr_assert_eq(s, want, "%s: got %s (%s), want %s", needle, mmx_status_str(s),
                 mmx_ctx_error(ctx), mmx_status_str(want));
    cr_assert_null(out);
    cr_assert(strstr(mmx_ctx_error(ctx), needle), "detail '%s' lacks '%s'", mmx_ctx_error(ctx),
              needle);
}

static void check_refusals(mmx_ctx *ctx)
{
    mmx_mesh *cube = shape(ctx, "cube"), *ico = shape(ctx, "icosphere:1"), *grid = tri_grid(ctx, 3, 3);
    refused(ctx, LOOP, cube, 1, MMX_ERR_MESH, "face 0 has 4 vertices");
    refused(ctx, SQRT3, cube, 1, MMX_ERR_MESH, "triangle meshes only");
    /* sqrt3 takes a boundary (Kobbelt's rule) on every path. */
    {
        mmx_subdiv_options fz = {0};
        fz.path = MMX_SUBDIV_PATH_FUSED;
        mmx_mesh *out = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_subdivide(ctx, SQRT3, grid, 1, &fz, &out));
        mmx_mesh_free(out);
        out = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_subdivide(ctx, SQRT3, grid, 2, NULL, &out));
        mmx_mesh_free(out);
    }
    refused(ctx, CC, cube, -1, MMX_ERR_ARG, "below 0");
    refused(ctx, (mmx_scheme)5, cube, 1, MMX_ERR_ARG, "unknown scheme");
    /* 24 corners quadruple each level: beyond 2^31 from level 15 on. */
    refused(ctx, CC, cube, 16, MMX_ERR_OVERFLOW, "32-bit");
    refused(ctx, LOOP, ico, 20, MMX_ERR_OVERFLOW, "32-bit");
    /* Three triangles on one edge (0, 1). */
    static const float p5[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 1};
    static const int nm_edge[] = {0, 1, 2, -1, 1, 0, 3, -1, 0, 1, 4, -1};
    mmx_mesh *m = from_lists(ctx, 5, p5, nm_edge, 12);
    refused(ctx, SQRT3, m, 1, MMX_ERR_MESH, "edge (0, 1) (0-based vertex numbers) has 3 faces");
    mmx_mesh_free(m);
    /* A bowtie: two triangles sharing only vertex 0. Loop and Catmull-Clark take vertex 0 as a
     * corner (fans_oracle); sqrt3, which has no corner rule, refuses it. */
    static const int bowtie[] = {0, 1, 2, -1, 0, 3, 4, -1};
    m = from_lists(ctx, 5, p5, bowtie, 8);
    refused(ctx, SQRT3, m, 1, MMX_ERR_MESH, "vertex 0 (0-based)");
    mmx_mesh_free(m);
    /* A closed tetrahedron with one face flipped: sqrt3 refuses it (Loop and Catmull-Clark
     * make its edges sharp: flipped_oracle). */
    static const int flipped[] = {0, 2, 1, -1, 0, 1, 3, -1, 1, 2, 3, -1, 0, 2, 3, -1};
    static const float p4[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    m = from_lists(ctx, 4, p4, flipped, 16);
    refused(ctx, SQRT3, m, 1, MMX_ERR_MESH, "consistently oriented");
    mmx_mesh_free(m);
    /* No positions. */
    mmx_mesh nopos = *cube;
    nopos.pos = NULL;
    refused(ctx, CC, &nopos, 1, MMX_ERR_ARG, "no positions");
    mmx_mesh *out = NULL;
    cr_assert_eq(mmx_subdivide(ctx, CC, NULL, 1, NULL, &out), MMX_ERR_ARG);
    cr_assert_eq(mmx_subdivide(ctx, CC, cube, 1, NULL, NULL), MMX_ERR_ARG);
    mmx_subdiv_options bad = {0};
    bad.boundary = (mmx_boundary)4;
    cr_assert_eq(mmx_subdivide(ctx, CC, cube, 1, &bad, &out), MMX_ERR_ARG);
    cr_assert_null(out);
    mmx_mesh_free(grid);
    mmx_mesh_free(cube);
    mmx_mesh_free(ico);
}

Test(subdiv, refusals, .description = "bad input is refused before any work, naming the problem")
{
    mmx_ctx *ctx = tu_host_ctx();
    check_refusals(ctx);
    mmx_ctx_free(ctx);
}

/* ---- faces that repeat a vertex, and pillows (mmx_subdivide_faces) ------------------------- */

/* A face list over static arrays (mmx_subdivide_faces only reads its input). */
static mmx_faces faces_of(mmx_index nv, const float *pos, mmx_index nf, const mmx_index *start,
                          const mmx_index *verts)
{
    mmx_faces f = {0};
    f.nverts = nv, f.pos = (float *)pos, f.nfaces = nf;
    f.start = (mmx_index *)start, f.verts = (mmx_index *)verts;
    return f;
}

/* Whether corner positions of face fa of a equal those of face fb of b from rotation r on,
 * within tol. */
static int same_face_at(const mmx_faces *a, mmx_index fa, const mmx_mesh *b, const mmx_index *bs,
                        const mmx_index *bv, mmx_index fb, mmx_index r, double tol)
{
    const mmx_index n = a->start[fa + 1] - a->start[fa];
    for (mmx_index k = 0; k < n; k++) {
        const float *x = a->pos + 3 * (size_t)a->verts[a->start[fa] + k];
        const float *y = b->pos + 3 * (size_t)bv[bs[fb] + (r + k) % n];
        for (int d = 0; d < 3; d++)
            if (fabs((double)x[d] - y[d]) > tol) return 0;
    }
    return 1;
}

/* Asserts that a's faces, as cycles of corner positions, are b's (host), one to one. */
static void same_faces_geometrically(mmx_ctx *ctx, const mmx_faces *a, const mmx_mesh *b,
                                     const char *what)
{
    mmx_index *bs = NULL, *bv = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_faces(ctx, b, &bs, &bv));
    cr_assert_eq(a->nfaces, b->M->ncols, "%s: %d faces, the split mesh's refinement %d", what,
                 a->nfaces, b->M->ncols);
    unsigned char *used = calloc((size_t)b->M->ncols + 1, 1);
    cr_assert_not_null(used);
    const double tol = 1e-6 * mesh_diagonal(b);
    for (mmx_index f = 0; f < a->nfaces; f++) {
        const mmx_index n = a->start[f + 1] - a->start[f];
        int found = 0;
        for (mmx_index g = 0; g < b->M->ncols && !found; g++) {
            if (used[g] || bs[g + 1] - bs[g] != n) continue;
            for (mmx_index r = 0; r < n && !found; r++)
                if (same_face_at(a, f, b, bs, bv, g, r, tol)) found = 1, used[g] = 1;
        }
        cr_assert(found, "%s: face %d of the face-list result has no face of the split mesh's "
                  "refinement with its corners", what, f);
    }
    free(used), free(bs), free(bv);
}

/* A face that names a vertex twice, refined as OpenSubdiv does (the vertex non-manifold, so a
 * corner; the degenerate edge's point its midpoint, the vertex itself; the edges around it
 * sharp), equals the refinement of the same mesh with the vertex split into two coincident
 * ones, where the edge-and-corner boundary makes both split copies corners and every edge at
 * them a boundary: the same surface, face for face, at every level. Catmull-Clark: a quad
 * (1 2 2 4) beside a plain one, sharing an edge; Loop: a triangle (0 0 1). */
Test(subdiv, faces_repeat_equals_split, .description = "a face repeating a vertex = the vertex split into coincident corners")
{
    mmx_ctx *ctx = tu_host_ctx();
    static const float qpos[] = {0, 0, 0, 1, 0, 0, 2, 0.5f, 0.3f, 0, 1, 0, 1, 1, 0.2f, 2, 0.5f, 0.3f};
    static const mmx_index qs[] = {0, 4, 8}, qv[] = {0, 1, 4, 3, 1, 2, 2, 4};
    static const int qsplit[] = {0, 1, 4, 3, -1, 1, 2, 5, 4, -1};
    static const float tpos[] = {0, 0, 0, 1, 0.2f, 0, 0, 0, 0};
    static const mmx_index ts[] = {0, 3}, tv[] = {0, 0, 1};
    static const int tsplit[] = {0, 2, 1, -1};
    const struct {
        mmx_scheme scheme;
        mmx_faces in;
        mmx_mesh *split;
        const char *what;
    } cases[] = {
        {CC, faces_of(5, qpos, 2, qs, qv), from_lists(ctx, 6, qpos, qsplit, 10), "quad 1 2 2 4"},
        {BILINEAR, faces_of(5, qpos, 2, qs, qv), from_lists(ctx, 6, qpos, qsplit, 10), "bilinear quad 1 2 2 4"},
        {LOOP, faces_of(2, tpos, 1, ts, tv), from_lists(ctx, 3, tpos, tsplit, 4), "triangle 0 0 1"},
    };
    mmx_subdiv_options o = {0};
    o.boundary = MMX_BOUNDARY_EDGE_AND_CORNER;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        for (int l = 1; l <= 3; l++) {
            mmx_faces *got = NULL;
            mmx_mesh *want = NULL;
            MMX_OK_OR_FAIL(ctx, mmx_subdivide_faces(ctx, cases[c].scheme, &cases[c].in, l, &o, &got));
            MMX_OK_OR_FAIL(ctx, mmx_subdivide(ctx, cases[c].scheme, cases[c].split, l, &o, &want));
            /* One vertex fewer at level 0; the refinement adds the same children. */
            cr_assert_eq(got->nverts + 1, want->M->nrows, "%s level %d", cases[c].what, l);
            same_faces_geometrically(ctx, got, want, cases[c].what);
            cr_assert_str_eq(got->tags, "t interpolateboundary 1/0/0 1\n");
            mmx_faces_free(got);
            mmx_mesh_free(want);
        }
        mmx_mesh_free(cases[c].split);
    }
    mmx_ctx_free(ctx);
}

/* Loop on the closed pillow (0 1 2), (1 0 2): every vertex interior of valence 2 (beta =
 * 39/128: it keeps 50/128 of itself and takes 39/128 of each other vertex), every edge smooth
 * (3/8 of its ends, 1/8 of the opposite vertex of each face: the same vertex twice). Refined on
 * the default path (the face lists, where the fused path refuses), with texture coordinates
 * linear in each face, one per corner. */
/* Two quads glued to each other's reverse (a quad "pillow") with kept holes: Loop refuses
 * them for their quads on the default path as on the algebraic one (fuzz_subdiv found the
 * default path routing them to the face lists, which refused them for another cause). */
Test(subdiv, loop_quad_pillow_refused_for_its_quads, .description = "Loop refuses a pillow of quads for its quads on every path")
{
    mmx_ctx *ctx = tu_host_ctx();
    static const float pos[] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};
    static const int quads[] = {0, 3, 2, 1, -1, 0, 1, 2, 3, -1};
    mmx_mesh *m = from_lists(ctx, 4, pos, quads, 10), *fine = NULL;
    for (int p = 0; p < 2; p++) {
        mmx_subdiv_options o = {0};
        o.path = p ? MMX_SUBDIV_PATH_ALGEBRAIC : MMX_SUBDIV_PATH_AUTO;
        o.holes = MMX_HOLES_KEEP;
        cr_assert_eq(mmx_subdivide(ctx, LOOP, m, 2, &o, &fine), MMX_ERR_MESH, "path %d", p);
        cr_assert_null(fine);
        cr_assert(strstr(mmx_ctx_error(ctx), "triangle meshes only") != NULL, "path %d: %s", p,
                  mmx_ctx_error(ctx));
    }
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* A pillow with a coordinate past MMX_SUBDIV_COORD_MAX and kept holes: the coordinate's
 * refusal on every path (fuzz_subdiv found the default path handing it to the face lists,
 * which refused it for the kept holes while the algebraic path refused the coordinate). */
Test(subdiv, loop_pillow_past_the_coordinate_bound_refused_alike, .description = "a pillow with a huge coordinate: the same refusal on every path")
{
    mmx_ctx *ctx = tu_host_ctx();
    static const float pos[] = {0, 0, 0, 1, 0, 0, 0, 1, 1.1e29f};
    static const int tris[] = {0, 1, 2, -1, 2, 1, 0, -1};
    mmx_mesh *m = from_lists(ctx, 3, pos, tris, 8), *fine = NULL;
    for (int holes = 0; holes < 2; holes++)
        for (int p = 0; p < 2; p++) {
            mmx_subdiv_options o = {0};
            o.path = p ? MMX_SUBDIV_PATH_ALGEBRAIC : MMX_SUBDIV_PATH_AUTO;
            o.holes = holes ? MMX_HOLES_KEEP : MMX_HOLES_REMOVE;
            cr_assert_eq(mmx_subdivide(ctx, LOOP, m, 1, &o, &fine), MMX_ERR_MESH, "path %d, holes %d", p, holes);
            cr_assert_null(fine);
            cr_assert(strstr(mmx_ctx_error(ctx), "MMX_SUBDIV_COORD_MAX") != NULL, "path %d, holes %d: %s", p,
                      holes, mmx_ctx_error(ctx));
        }
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(subdiv, loop_pillow_by_hand, .description = "Loop on a two-sided pillow: OpenSubdiv's valence-2 rules, written out")
{
    mmx_ctx *ctx = tu_host_ctx();
    static const float pos[] = {0, 0, 0, 1, 0, 0, 0.2f, 1, 0.5f};
    static const int tris[] = {0, 1, 2, -1, 1, 0, 2, -1};
    mmx_mesh *m = from_lists(ctx, 3, pos, tris, 8), *fine = NULL;
    /* Texture coordinates: face 0 takes (x, y), face 1 its own copies shifted by 2 in u. */
    mmx_mesh_uv *uv = calloc(1, sizeof *uv);
    cr_assert_not_null(uv);
    uv->nvalues = 6;
    uv->values = malloc(12 * sizeof *uv->values), uv->index = malloc(6 * sizeof *uv->index);
    cr_assert(uv->values && uv->index);
    for (int k = 0; k < 6; k++)
        uv->values[2 * k] = pos[3 * (k % 3)] + (k >= 3 ? 2.0f : 0.0f), uv->values[2 * k + 1] = pos[3 * (k % 3) + 1];
    for (int q = 0; q < 6; q++) uv->index[q] = m->M->rowidx[q] + (q >= 3 ? 3 : 0);
    m->uv = uv;
    MMX_OK_OR_FAIL(ctx, mmx_subdivide(ctx, LOOP, m, 1, NULL, &fine));
    mmx_mesh *h = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_copy(ctx, fine, MMX_SPACE_HOST, &h));
    cr_assert_eq(h->M->nrows, 6);
    cr_assert_eq(h->M->ncols, 8);
    /* The expected points: three vertex points and three edge points. */
    double want[6][3];
    for (int v = 0; v < 3; v++)
        for (int d = 0; d < 3; d++)
            want[v][d] = 50.0 / 128 * pos[3 * v + d] +
                         39.0 / 128 * (pos[3 * ((v + 1) % 3) + d] + pos[3 * ((v + 2) % 3) + d]);
    for (int e = 0; e < 3; e++)
        for (int d = 0; d < 3; d++)
            want[3 + e][d] = 0.375 * (pos[3 * e + d] + pos[3 * ((e + 1) % 3) + d]) +
                             0.25 * pos[3 * ((e + 2) % 3) + d];
    int hit[6] = {0}, of[6];
    for (int v = 0; v < 6; v++) {
        int found = -1;
        for (int w = 0; w < 6 && found < 0; w++) {
            double d2 = 0;
            for (int d = 0; d < 3; d++) d2 += pow(h->pos[3 * v + d] - want[w][d], 2);
            if (d2 < 1e-12 && !hit[w]) found = w;
        }
        cr_assert(found >= 0, "vertex %d (%g %g %g) is no point of the rules", v, h->pos[3 * v],
                  h->pos[3 * v + 1], h->pos[3 * v + 2]);
        hit[found] = 1, of[v] = found;
    }
    /* Each corner's coordinate is linear in its parent face: a vertex corner keeps its parent
     * corner's, an edge corner takes the mean of the edge's two in that face. Face 0's chart
     * has u in [0, 1], face 1's in [2, 3]: a child's three corners lie in one chart. */
    cr_assert_not_null(h->uv);
    int in_chart[2] = {0, 0};
    for (mmx_index f = 0; f < 8; f++) {
        const int chart = h->uv->values[2 * h->uv->index[3 * f]] >= 1.5f;
        in_chart[chart]++;
        for (int k = 0; k < 3; k++) {
            const mmx_index q = 3 * f + k, w = of[h->M->rowidx[q]];
            const int a = w < 3 ? w : w - 3, b = w < 3 ? w : (w - 2) % 3;
            const double eu = 0.5 * (pos[3 * a] + pos[3 * b]) + 2.0 * chart;
            const double ev = 0.5 * (pos[3 * a + 1] + pos[3 * b + 1]);
            const float *u = h->uv->values + 2 * h->uv->index[q];
            cr_assert(fabs(u[0] - eu) < 1e-6 && fabs(u[1] - ev) < 1e-6,
                      "face %d corner %d: (%g, %g), the linear value is (%g, %g)", f, k, u[0], u[1], eu, ev);
        }
    }
    cr_assert(in_chart[0] == 4 && in_chart[1] == 4, "children per chart: %d and %d", in_chart[0], in_chart[1]);
    mmx_mesh_free(h);
    mmx_mesh_free(fine);
    /* The fused path cannot hold the pillow's children and says so, pointing to the default. */
    mmx_subdiv_options o = {0};
    o.path = MMX_SUBDIV_PATH_FUSED;
    fine = (mmx_mesh *)&fine;
    cr_assert_eq(mmx_subdivide(ctx, LOOP, m, 1, &o, &fine), MMX_ERR_MESH);
    cr_assert_null(fine);
    cr_assert(strstr(mmx_ctx_error(ctx), "the default path refines it"), "%s", mmx_ctx_error(ctx));
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* Texture coordinates on a face that repeats a vertex: the repeated vertex has a coordinate
 * per corner, and each child corner takes the linear value in its parent face (OpenSubdiv's
 * FVAR_LINEAR_ALL): the vertex corner its parent corner's, the edge corner the mean of the
 * edge's two corners' (the degenerate edge's: of the vertex's two coordinates), the face
 * corner the mean of the face's. */
Test(subdiv, faces_repeat_uv_by_hand, .description = "texture coordinates of a face repeating a vertex, linear per corner")
{
    mmx_ctx *ctx = tu_host_ctx();
    static const float pos[] = {0, 0, 0, 1, 0, 0, 1, 1, 0};
    static const float uvs[] = {0, 0, 1, 0, 1, 1, 0, 1};
    static const mmx_index st[] = {0, 4}, vs[] = {0, 1, 2, 2}, ui[] = {0, 1, 2, 3};
    mmx_faces in = faces_of(3, pos, 1, st, vs);
    in.nuv = 4, in.uv = (float *)uvs, in.uv_index = (mmx_index *)ui;
    mmx_faces *out = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_subdivide_faces(ctx, CC, &in, 1, NULL, &out));
    cr_assert_eq(out->nfaces, 4);
    cr_assert_eq(out->nverts, 3 + 1 + 4); /* old, face point, four edge points (one degenerate) */
    /* Child face of corner i: (i, mid(i, i+1), centre, mid(i-1, i)) in (u, v), in some face
     * and rotation of the result. */
    for (int i = 0; i < 4; i++) {
        double w[4][2];
        for (int d = 0; d < 2; d++) {
            w[0][d] = uvs[2 * i + d];
            w[1][d] = 0.5 * (uvs[2 * i + d] + uvs[2 * ((i + 1) % 4) + d]);
            w[2][d] = 0.5;
            w[3][d] = 0.5 * (uvs[2 * ((i + 3) % 4) + d] + uvs[2 * i + d]);
        }
        int found = 0;
        for (mmx_index f = 0; f < 4 && !found; f++)
            for (int r = 0; r < 4 && !found; r++) {
                int ok = 1;
                for (int k = 0; k < 4; k++) {
                    const float *u = out->uv + 2 * (size_t)out->uv_index[out->start[f] + (r + k) % 4];
                    ok &= fabs(u[0] - w[k][0]) < 1e-6 && fabs(u[1] - w[k][1]) < 1e-6;
                }
                found = ok;
            }
        cr_assert(found, "no child face of corner %d with its linear coordinates", i);
    }
    mmx_faces_free(out);
    mmx_ctx_free(ctx);
}

/* What the face-list path refuses, naming the cause; and the reader of such faces. */
Test(subdiv, faces_refusals, .description = "mmx_subdivide_faces and mmx_faces_read refuse bad input, naming it")
{
    mmx_ctx *ctx = tu_host_ctx();
    static const float pos[] = {0, 0, 0, 1, 0, 0, 1, 1, 0};
    static const mmx_index st[] = {0, 4}, vs[] = {0, 1, 2, 2}, bad[] = {0, 1, 3, 2};
    mmx_faces in = faces_of(3, pos, 1, st, vs), *out = (mmx_faces *)&out;
    cr_assert_eq(mmx_subdivide_faces(ctx, SQRT3, &in, 1, NULL, &out), MMX_ERR_UNSUPPORTED);
    cr_assert_null(out);
    cr_assert(strstr(mmx_ctx_error(ctx), "sqrt3"), "%s", mmx_ctx_error(ctx));
    cr_assert_eq(mmx_subdivide_faces(ctx, LOOP, &in, 1, NULL, &out), MMX_ERR_MESH);
    cr_assert(strstr(mmx_ctx_error(ctx), "face 0 has 4 corners"), "%s", mmx_ctx_error(ctx));
    mmx_faces b = faces_of(3, pos, 1, st, bad);
    cr_assert_eq(mmx_subdivide_faces(ctx, CC, &b, 1, NULL, &out), MMX_ERR_MESH);
    cr_assert(strstr(mmx_ctx_error(ctx), "face 0 names vertex 3"), "%s", mmx_ctx_error(ctx));
    char tags[] = "t interpolateboundary 1/0/0 1\nt crease 2/1/0 0 1 2.5\n";
    in.tags = tags;
    cr_assert_eq(mmx_subdivide_faces(ctx, CC, &in, 1, NULL, &out), MMX_ERR_UNSUPPORTED);
    cr_assert(strstr(mmx_ctx_error(ctx), "tag line 2"), "%s", mmx_ctx_error(ctx));
    in.tags = NULL;
    mmx_subdiv_options o = {0};
    o.boundary = MMX_BOUNDARY_NONE;
    cr_assert_eq(mmx_subdivide_faces(ctx, CC, &in, 1, &o, &out), MMX_ERR_UNSUPPORTED);
    cr_assert_eq(mmx_subdivide_faces(ctx, CC, &in, -1, NULL, &out), MMX_ERR_ARG);
    cr_assert_eq(mmx_subdivide_faces(ctx, CC, NULL, 1, NULL, &out), MMX_ERR_ARG);
    /* The reader: faces that repeat a vertex, with their coordinates and tags; OBJ only. */
    const char *path = tu_tmp("faces_repeat.obj");
    FILE *fp = fopen(path, "w");
    cr_assert_not_null(fp);
    fputs("v 0 0 0\nv 1 0 0\nv 1 1 0\nvt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nf 1/1 2/2 3/3 3/4\n"
          "t interpolateboundary 1/0/0 1\n", fp);
    fclose(fp);
    mmx_mesh *m = (mmx_mesh *)&m;
    cr_assert_eq(mmx_mesh_read(ctx, path, MMX_FORMAT_OBJ, &m), MMX_ERR_MESH);
    cr_assert(strstr(mmx_ctx_error(ctx), "appears twice"), "%s", mmx_ctx_error(ctx));
    mmx_faces *rd = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_faces_read(ctx, path, &rd));
    cr_assert(rd->nverts == 3 && rd->nfaces == 1 && rd->start[1] == 4 && rd->verts[3] == 2);
    cr_assert(rd->nuv == 4 && rd->uv_index[3] == 3 && rd->uv[7] == 1.0f);
    cr_assert_str_eq(rd->tags, "t interpolateboundary 1/0/0 1\n");
    MMX_OK_OR_FAIL(ctx, mmx_subdivide_faces(ctx, CC, rd, 2, NULL, &out));
    cr_assert_eq(out->nfaces, 16);
    mmx_faces_free(out);
    mmx_faces_free(rd);
    remove(path);
    mmx_ctx_free(ctx);
}

#ifdef MMX_TEST_ORACLE
/* `in` refined by mmx_subdivide_faces and by OpenSubdiv (its tags, texture coordinates through
 * the face-varying channel, FVAR_LINEAR_ALL) to each level 1..levels: the same faces up to
 * numbering, positions within 1e-5 of the diagonal, each corner's coordinates within 1e-5 of
 * the (u, v) box's. */
static void check_faces_oracle(mmx_scheme scheme, const mmx_faces *in, int levels, const char *what)
{
    mmx_ctx *ctx = tu_host_ctx();
    oracle_mesh oin, ref, ours;
    cr_assert_eq(oracle_mesh_from_faces(in, &oin), 0);
    const size_t nc = (size_t)in->start[in->nfaces];
    double *uvin = malloc(2 * sizeof(double) * (size_t)in->nuv + 1), lo[2] = {INFINITY, INFINITY},
           hi[2] = {-INFINITY, -INFINITY};
    int *idx = malloc(sizeof(int) * nc + 1);
    cr_assert(uvin && idx);
    for (size_t k = 0; k < 2 * (size_t)in->nuv; k++) {
        uvin[k] = in->uv[k];
        lo[k % 2] = fmin(lo[k % 2], uvin[k]), hi[k % 2] = fmax(hi[k % 2], uvin[k]);
    }
    for (size_t q = 0; q < nc; q++) idx[q] = in->uv_index[q];
    const double uvdiag = hypot(hi[0] - lo[0], hi[1] - lo[1]);
    for (int l = 1; l <= levels; l++) {
        mmx_faces *out = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_subdivide_faces(ctx, scheme, in, l, NULL, &out));
        cr_assert_eq(oracle_mesh_from_faces(out, &ours), 0);
        double *uvref = NULL, max_err = -1;
        char err[512] = "";
        int rc = oracle_osd_refine_uv(scheme == LOOP ? 0 : scheme == BILINEAR ? 2 : 1, &oin, in->tags,
                                      (int)in->nuv, uvin, idx, l, &ref, &uvref, err, sizeof err);
        cr_assert_eq(rc, 0, "%s level %d: OpenSubdiv refused: %s", what, l, err);
        rc = oracle_compare(&ours, &ref, ORACLE_TOL, &max_err, err, sizeof err);
        cr_assert_eq(rc, 0, "%s, %s level %d: %s", what, mmx_scheme_name(scheme), l, err);
        const size_t onc = (size_t)out->start[out->nfaces];
        double *uvo = malloc(2 * sizeof(double) * onc + 1);
        cr_assert_not_null(uvo);
        for (size_t q = 0; q < onc; q++)
            for (int c = 0; c < 2; c++) uvo[2 * q + c] = out->uv[2 * (size_t)out->uv_index[q] + c];
        rc = oracle_compare_uv(&ours, uvo, &ref, uvref, ORACLE_TOL * uvdiag, &max_err, err, sizeof err);
        cr_assert_eq(rc, 0, "%s, %s level %d, texture coordinates: %s", what, mmx_scheme_name(scheme), l, err);
        free(uvo), free(uvref);
        oracle_mesh_free(&ours), oracle_mesh_free(&ref);
        mmx_faces_free(out);
    }
    free(uvin), free(idx);
    oracle_mesh_free(&oin);
    mmx_ctx_free(ctx);
}
#else
static void check_faces_oracle(mmx_scheme scheme, const mmx_faces *in, int levels, const char *what)
{
    (void)scheme, (void)in, (void)levels, (void)what;
}
#endif

/* OpenSubdiv's non-manifold shapes built here (its regression suite's catmark_nonman_quadpole*
 * and loop_nonman_edges are of this kind): a pole of n quads (r_i, r_i+1, c, c) inside a ring
 * of quads; triangles with a vertex twice (4 4 5), three times (5 5 5), a pillow and a fold
 * (a quad a b a c), each corner with a texture coordinate of its own. */
Test(subdiv, faces_repeat_oracle, .description = "faces repeating a vertex, and pillows, match OpenSubdiv (texture coordinates too)")
{
    ORACLE_OR_SKIP();
    for (int n = 3; n <= 9; n += 6) {
        float pos[3 * 19];
        mmx_index st[2 * 9 + 1], vs[8 * 9], ui[8 * 9];
        for (int i = 0; i < n; i++) {
            const double t = 2 * 3.14159265358979 * i / n;
            pos[3 * i] = (float)(2 * cos(t)), pos[3 * i + 1] = (float)(2 * sin(t)), pos[3 * i + 2] = 0;
            pos[3 * (n + i)] = (float)cos(t), pos[3 * (n + i) + 1] = (float)sin(t), pos[3 * (n + i) + 2] = 0.3f * (i % 2);
        }
        pos[6 * n] = 0, pos[6 * n + 1] = 0.1f, pos[6 * n + 2] = 1;
        st[0] = 0;
        for (int i = 0, k = 0; i < n; i++) {
            const mmx_index ring[4] = {i, (i + 1) % n, n + (i + 1) % n, n + i};
            const mmx_index pole[4] = {n + i, n + (i + 1) % n, 2 * n, 2 * n};
            for (int j = 0; j < 4; j++) vs[k + j] = ring[j], vs[k + 4 + j] = pole[j];
            k += 8;
            st[2 * i + 1] = k - 4, st[2 * i + 2] = k;
        }
        float uv[2 * 8 * 9];
        for (int q = 0; q < 8 * n; q++) {
            ui[q] = q;
            uv[2 * q] = pos[3 * vs[q]] + 0.01f * (float)(q % 4), uv[2 * q + 1] = pos[3 * vs[q] + 1];
        }
        mmx_faces in = faces_of(2 * n + 1, pos, 2 * n, st, vs);
        in.nuv = 8 * n, in.uv = uv, in.uv_index = ui;
        char what[32];
        snprintf(what, sizeof what, "pole of %d", n);
        check_faces_oracle(CC, &in, 3, what);
        check_faces_oracle(BILINEAR, &in, 2, what);
    }
    /* Loop: a strip of four triangles, then (4 4 5), (5 5 5), a pillow on 6 7 8. */
    static const float tpos[] = {0, 0, 0, 1, 0, 0.2f, 2, 0, 0, 0, 1, 0.1f, 1, 1, 0, 2, 1, 0.3f,
                                 4, 0, 0, 5, 0, 0, 4.5f, 1, 0.5f};
    static const mmx_index ts[] = {0, 3, 6, 9, 12, 15, 18, 21, 24};
    static const mmx_index tv[] = {0, 1, 3, 1, 4, 3, 1, 2, 4, 2, 5, 4, 4, 4, 5, 5, 5, 5, 6, 7, 8, 7, 6, 8};
    float tuv[48];
    mmx_index tui[24];
    for (int q = 0; q < 24; q++) {
        tui[q] = q;
        tuv[2 * q] = tpos[3 * tv[q]] + 0.02f * (float)(q % 3), tuv[2 * q + 1] = tpos[3 * tv[q] + 1];
    }
    mmx_faces t = faces_of(9, tpos, 8, ts, tv);
    t.nuv = 24, t.uv = tuv, t.uv_index = tui;
    check_faces_oracle(LOOP, &t, 3, "strip, degenerate triangles, pillow");
    char tags[] = "t interpolateboundary 1/0/0 1\n";
    t.tags = tags;
    check_faces_oracle(LOOP, &t, 2, "the same, edge-and-corner boundary");
    /* Catmull-Clark: a fold, the quad (0 1 0 2), beside a plain quad on 1 3 4 0. */
    static const float fpos[] = {0, 0, 0, 1, 0, 0, 0, 1, 0.2f, 1, 1, 0.4f, 0.5f, 1.5f, 0};
    static const mmx_index fs[] = {0, 4, 8}, fv[] = {0, 1, 0, 2, 1, 3, 4, 0};
    float fuv[16];
    mmx_index fui[8];
    for (int q = 0; q < 8; q++) fui[q] = q, fuv[2 * q] = fpos[3 * fv[q]] + 0.1f * (float)q, fuv[2 * q + 1] = fpos[3 * fv[q] + 1];
    mmx_faces f = faces_of(5, fpos, 2, fs, fv);
    f.nuv = 8, f.uv = fuv, f.uv_index = fui;
    check_faces_oracle(CC, &f, 3, "fold");
}

/* ---- CUDA against the host --------------------------------------------------------------------- */

/* Refines m on both backends to `levels` with the options `o` (NULL: the defaults) and asserts
 * identical topology and positions within 1e-6 of the bounding-box diagonal (the scatters add in
 * a different order on the device); the texture coordinates, when m has them, equal per corner;
 * and, when o->limit is set, what mmx_subdiv_limit gives for each result: positions within 1e-6
 * of the diagonal, unit normals within 1e-4 (they turn with the positions' rounding over short
 * edges). Takes ownership of m. */
static void cuda_vs_host_opts(mmx_ctx *gpu, mmx_ctx *host, mmx_scheme scheme, mmx_mesh *m, int levels,
                              const mmx_subdiv_options *o, const char *what)
{
    mmx_mesh *dm = NULL, *dfine = NULL, *hfine = NULL, *back = NULL;
    MMX_OK_OR_FAIL(gpu, mmx_mesh_copy(gpu, m, MMX_SPACE_DEVICE, &dm));
    mmx_subdiv_level trace[8], htrace[8];
    mmx_subdiv_options go = o ? *o : (mmx_subdiv_options){0}, ho = go;
    go.trace = trace, ho.trace = htrace;
    MMX_OK_OR_FAIL(gpu, mmx_subdivide(gpu, scheme, dm, levels, &go, &dfine));
    MMX_OK_OR_FAIL(host, mmx_subdivide(host, scheme, m, levels, &ho, &hfine));
    cr_assert_eq(dfine->space, MMX_SPACE_DEVICE);
    MMX_OK_OR_FAIL(gpu, mmx_mesh_copy(gpu, dfine, MMX_SPACE_HOST, &back));
    cr_assert_eq(back->M->nrows, hfine->M->nrows, "%s", what);
    cr_assert_eq(back->M->ncols, hfine->M->ncols, "%s", what);
    cr_assert_eq(back->M->order, hfine->M->order, "%s", what);
    for (int l = 0; l < levels; l++) /* the levels as refined (holes' children included) */
        cr_assert(trace[l].nverts == htrace[l].nverts && trace[l].nfaces == htrace[l].nfaces &&
                      trace[l].nedges == htrace[l].nedges,
                  "%s: level %d's sizes differ from the host's", what, l + 1);
    cr_assert_eq(memcmp(back->M->rowidx, hfine->M->rowidx, sizeof(mmx_index) * (size_t)hfine->M->nnz),
                 0, "%s: %s topology differs from the host's", what, mmx_scheme_name(scheme));
    const double diag = mesh_diagonal(hfine);
    double worst = 0;
    for (size_t i = 0; i < 3 * (size_t)hfine->M->nrows; i++) {
        double d = fabs((double)back->pos[i] - hfine->pos[i]);
        worst = d > worst ? d : worst;
    }
    cr_assert(worst <= 1e-6 * diag, "%s, %s: CUDA positions differ from the host's by %g of the diagonal",
              what, mmx_scheme_name(scheme), worst / diag);
    cr_assert_eq(!back->tags, !hfine->tags, "%s: carried tags on one backend only", what);
    if (hfine->tags)
        cr_assert_str_eq(back->tags, hfine->tags, "%s: the carried tags differ", what);
    cr_assert_eq(!back->uv, !hfine->uv, "%s: texture coordinates on one backend only", what);
    if (hfine->uv) { /* refined on the device (uv.c, uv.cu): the host's numbering exactly */
        cr_assert_eq(dfine->uv->space, MMX_SPACE_DEVICE, "%s: the texture coordinates left the device", what);
        cr_assert_eq(back->uv->space, MMX_SPACE_HOST, "%s", what);
        cr_assert_eq(back->uv->nvalues, hfine->uv->nvalues, "%s: %d texture coordinates, the host has %d", what,
                     back->uv->nvalues, hfine->uv->nvalues);
        cr_assert_eq(memcmp(back->uv->index, hfine->uv->index, sizeof(mmx_index) * (size_t)hfine->M->nnz), 0,
                     "%s: the texture coordinates' numbering differs from the host's", what);
        double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY}, ext = 0, wuv = 0;
        for (mmx_index k = 0; k < hfine->uv->nvalues; k++)
            for (int c = 0; c < 2; c++) {
                const double x = hfine->uv->values[2 * k + c];
                lo[c] = x < lo[c] ? x : lo[c], hi[c] = x > hi[c] ? x : hi[c];
            }
        for (int c = 0; c < 2; c++) ext = hi[c] - lo[c] > ext ? hi[c] - lo[c] : ext;
        for (size_t i = 0; i < 2 * (size_t)hfine->uv->nvalues; i++) {
            const double d = fabs((double)back->uv->values[i] - hfine->uv->values[i]);
            wuv = d > wuv ? d : wuv;
        }
        cr_assert(wuv <= 1e-6 * (ext > 1 ? ext : 1), "%s: CUDA texture coordinates differ from the host's by %g "
                  "(the (u, v) box: %g)", what, wuv, ext);
    }
    if (o && o->limit) {
        const size_t nv = (size_t)hfine->M->nrows;
        float *dn = NULL, *hp = malloc(3 * nv * sizeof *hp), *hn = malloc(3 * nv * sizeof *hn);
        float *gp = NULL;
        cr_assert(hp && hn);
        MMX_OK_OR_FAIL(gpu, mmx_mem_alloc(gpu, MMX_SPACE_DEVICE, 3 * nv * sizeof *gp, (void **)&gp));
        MMX_OK_OR_FAIL(gpu, mmx_mem_alloc(gpu, MMX_SPACE_DEVICE, 3 * nv * sizeof *dn, (void **)&dn));
        MMX_OK_OR_FAIL(gpu, mmx_subdiv_limit(gpu, scheme, dfine, NULL, gp, dn));
        MMX_OK_OR_FAIL(host, mmx_subdiv_limit(host, scheme, hfine, NULL, hp, hn));
        float *gn = malloc(3 * nv * sizeof *gn), *gh = malloc(3 * nv * sizeof *gh);
        cr_assert(gn && gh);
        MMX_OK_OR_FAIL(gpu, mmx_mem_copy(gpu, gn, MMX_SPACE_HOST, dn, MMX_SPACE_DEVICE, 3 * nv * sizeof *gn));
        MMX_OK_OR_FAIL(gpu, mmx_mem_copy(gpu, gh, MMX_SPACE_HOST, gp, MMX_SPACE_DEVICE, 3 * nv * sizeof *gh));
        for (size_t i = 0; i < 3 * nv; i++) {
            cr_assert(fabs((double)gh[i] - hp[i]) <= 1e-6 * diag, "%s: limit position %zu: CUDA %g, host %g",
                      what, i / 3, gh[i], hp[i]);
            cr_assert(fabs((double)gn[i] - hn[i]) <= 1e-4, "%s: limit normal %zu: CUDA %g, host %g", what,
                      i / 3, gn[i], hn[i]);
        }
        mmx_mem_free(gpu, MMX_SPACE_DEVICE, gp);
        mmx_mem_free(gpu, MMX_SPACE_DEVICE, dn);
        free(gn), free(gh), free(hp), free(hn);
    }
    mmx_mesh_free(back);
    mmx_mesh_free(hfine);
    mmx_mesh_free(dfine);
    mmx_mesh_free(dm);
    mmx_mesh_free(m);
}

static void cuda_vs_host(mmx_ctx *gpu, mmx_ctx *host, mmx_scheme scheme, mmx_mesh *m, int levels,
                         const char *what)
{
    cuda_vs_host_opts(gpu, host, scheme, m, levels, NULL, what);
}

Test(subdiv, gpu_matches_host, .description = "CUDA gives the host's topology and positions, every scheme")
{
    mmx_ctx *gpu = tu_cuda_ctx_or_skip();
    mmx_ctx *host = tu_host_ctx();
    cuda_vs_host(gpu, host, CC, shape(host, "mixed"), 4, "mixed");
    cuda_vs_host(gpu, host, CC, shape(host, "torus:40:30"), 3, "torus");
    cuda_vs_host(gpu, host, CC, shape(host, "grid:20:16"), 3, "grid with holes");
    cuda_vs_host(gpu, host, CC, pyramid(host, 200), 3, "pyramid 200");
    cuda_vs_host(gpu, host, CC, shuffled(host, read_data(host, "house.obj"), 5), 4, "shuffled house");
    cuda_vs_host(gpu, host, BILINEAR, shape(host, "mixed"), 4, "mixed");
    cuda_vs_host(gpu, host, BILINEAR, shuffled(host, read_data(host, "house.obj"), 5), 3, "shuffled house");
    cuda_vs_host(gpu, host, LOOP, shape(host, "icosphere:3"), 3, "icosphere");
    cuda_vs_host(gpu, host, LOOP, tri_grid(host, 30, 20), 3, "triangulated grid");
    cuda_vs_host(gpu, host, LOOP, shuffled(host, bipyramid(host, 300), 6), 3, "shuffled bipyramid");
    cuda_vs_host(gpu, host, LOOP, read_data(host, "strip.obj"), 4, "strip");
    cuda_vs_host(gpu, host, SQRT3, shape(host, "icosphere:3"), 4, "icosphere");
    cuda_vs_host(gpu, host, SQRT3, shuffled(host, bipyramid(host, 100), 7), 4, "shuffled bipyramid");
    /* sqrt3 with boundary (Kobbelt's rule: the default path is the algebraic one), odd and
     * even generations. */
    cuda_vs_host(gpu, host, SQRT3, tri_grid(host, 30, 20), 4, "sqrt3, triangulated grid");
    cuda_vs_host(gpu, host, SQRT3, shuffled(host, read_data(host, "strip.obj"), 8), 5, "sqrt3, shuffled strip");
    cuda_vs_host(gpu, host, SQRT3, fan(host, 9), 3, "sqrt3, fan of 9");
    mmx_ctx_free(host);
    mmx_ctx_free(gpu);
}

/* Loop on a pillow (the face-list path, on the host whatever the backend): the CUDA result is
 * a device mesh with the host's topology, positions and texture coordinates (kept in device
 * memory, as refined coordinates are on CUDA), and the same sizes per level. */
Test(subdiv, gpu_pillow_matches_host, .description = "CUDA: Loop on pillows gives the host's result, coordinates on the device")
{
    mmx_ctx *gpu = tu_cuda_ctx_or_skip();
    mmx_ctx *host = tu_host_ctx();
    cuda_vs_host(gpu, host, LOOP, pillow(host, 0), 3, "pillow");
    cuda_vs_host(gpu, host, LOOP, with_uv(pillow(host, 1), 1), 3, "tetrahedron and pillow, seams");
    mmx_ctx_free(host);
    mmx_ctx_free(gpu);
}

/* The algebraic path on CUDA, `runs` times on the same device mesh: every run must give the
 * bytes of the first (positions and topology; no float atomics anywhere in the products), and
 * the host's topology exactly and its positions within rounding. Frees m. */
static void algebraic_same_bytes(mmx_ctx *gpu, mmx_ctx *host, mmx_scheme scheme, mmx_mesh *m,
                                 int levels, int runs, const char *what)
{
    mmx_subdiv_options o = {0};
    o.path = MMX_SUBDIV_PATH_ALGEBRAIC;
    mmx_mesh *dm = NULL, *hfine = NULL, *first = NULL;
    MMX_OK_OR_FAIL(gpu, mmx_mesh_copy(gpu, m, MMX_SPACE_DEVICE, &dm));
    MMX_OK_OR_FAIL(host, mmx_subdivide(host, scheme, m, levels, &o, &hfine));
    for (int r = 0; r < runs; r++) {
        mmx_mesh *dfine = NULL, *back = NULL;
        MMX_OK_OR_FAIL(gpu, mmx_subdivide(gpu, scheme, dm, levels, &o, &dfine));
        MMX_OK_OR_FAIL(gpu, mmx_mesh_copy(gpu, dfine, MMX_SPACE_HOST, &back));
        mmx_mesh_free(dfine);
        cr_assert_eq(back->M->nnz, hfine->M->nnz, "%s: run %d's size differs from the host's", what, r);
        cr_assert_eq(memcmp(back->M->rowidx, hfine->M->rowidx, sizeof(mmx_index) * (size_t)hfine->M->nnz),
                     0, "%s: run %d's topology differs from the host's", what, r);
        if (!first) {
            const double diag = mesh_diagonal(hfine);
            double worst = 0;
            for (size_t i = 0; i < 3 * (size_t)hfine->M->nrows; i++) {
                const double d = fabs((double)back->pos[i] - hfine->pos[i]);
                worst = d > worst ? d : worst;
            }
            cr_assert(worst <= 1e-6 * diag, "%s: CUDA positions differ from the host's by %g of the diagonal",
                      what, worst / diag);
            first = back;
            continue;
        }
        for (size_t i = 0; i < 3 * (size_t)hfine->M->nrows; i++)
            if (memcmp(&back->pos[i], &first->pos[i], sizeof(float)))
                cr_assert_fail("%s: run %d gives vertex %zu coordinate %zu = %a, run 0 gave %a", what, r,
                               i / 3, i % 3, (double)back->pos[i], (double)first->pos[i]);
        mmx_mesh_free(back);
    }
    mmx_mesh_free(first);
    mmx_mesh_free(hfine);
    mmx_mesh_free(dm);
    mmx_mesh_free(m);
}

/* Issue 27: the algebraic subdivision on CUDA is bit-reproducible run to run. An icosphere of
 * 81,920 triangles (valences 5 and 6) in shuffled order, two levels of Catmull-Clark (whose
 * vertex points scatter the face points, M f, and edge points FE f) and of Loop (FE t), ten
 * runs each. */
Test(subdiv, gpu_algebraic_same_bytes_every_run, .description = "the algebraic path on CUDA gives the same bytes on 10 runs, and the host's result within rounding", .timeout = 240)
{
    mmx_ctx *gpu = tu_cuda_ctx_or_skip();
    mmx_ctx *host = tu_host_ctx();
    algebraic_same_bytes(gpu, host, CC, shuffled(host, shape(host, "icosphere:6"), 27), 2, 10,
                         "Catmull-Clark, icosphere:6");
    algebraic_same_bytes(gpu, host, LOOP, shuffled(host, shape(host, "icosphere:6"), 28), 2, 10,
                         "Loop, icosphere:6");
    mmx_ctx_free(host);
    mmx_ctx_free(gpu);
}

/* The tags, non-manifold input, texture coordinates and the limit on CUDA (default path: the
 * fused one, the algebraic one for edges of three faces) against the host. */
Test(subdiv, gpu_tags_and_textures_match_host, .description = "CUDA = host with creases, holes, boundary modes, non-manifold input, texture coordinates and the limit")
{
    mmx_ctx *gpu = tu_cuda_ctx_or_skip();
    mmx_ctx *host = tu_host_ctx();
    const char *chaikin = "t creasemethod 0/0/1 chaikin\n";
    cuda_vs_host(gpu, host, CC, with_creases(shape(host, "torus:40:30"), 3, NULL), 3, "creased torus");
    cuda_vs_host(gpu, host, CC, with_creases(shape(host, "mixed"), 2, chaikin), 4, "mixed, Chaikin creases");
    cuda_vs_host(gpu, host, LOOP, with_creases(shape(host, "icosphere:3"), 3, chaikin), 3, "icosphere, Chaikin creases");
    cuda_vs_host(gpu, host, LOOP, with_creases(tri_grid(host, 30, 20), 4, "t interpolateboundary 1/0/0 1\n"), 3,
                 "triangulated grid, creases, edge-and-corner");
    cuda_vs_host(gpu, host, CC, with_tags(shape(host, "grid:20:16"), "t hole 3/0/0 5 40 41\nt corner 1/1/0 3 2.5\n"), 3,
                 "grid, holes and a corner");
    cuda_vs_host(gpu, host, CC, with_tags(shape(host, "grid:20:16"), "t interpolateboundary 1/0/0 0\n"), 3,
                 "grid, no boundary interpolation");
    cuda_vs_host(gpu, host, CC, with_tags(shape(host, "mixed"), "t smoothtriangles 0/0/1 smooth\n"), 3,
                 "mixed, smooth triangles");
    static const float p5[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, -1, 0.2f, 0.3f, 0.2f, 1};
    static const int bowtie[] = {0, 1, 2, -1, 0, 3, 4, -1};
    static const int nm_edge[] = {0, 1, 2, -1, 1, 0, 3, -1, 0, 1, 4, -1};
    cuda_vs_host(gpu, host, CC, from_lists(host, 5, p5, bowtie, 8), 3, "bowtie");
    cuda_vs_host(gpu, host, LOOP, from_lists(host, 5, p5, bowtie, 8), 3, "bowtie");
    cuda_vs_host(gpu, host, CC, from_lists(host, 5, p5, nm_edge, 12), 3, "three triangles on one edge");
    cuda_vs_host(gpu, host, LOOP, from_lists(host, 5, p5, nm_edge, 12), 3, "three triangles on one edge");
    cuda_vs_host(gpu, host, CC, from_lists(host, 9, iso_pos, iso_quads, 10), 3, "isolated vertices");
    cuda_vs_host(gpu, host, LOOP, from_lists(host, 9, iso_pos, iso_tris, 16), 3, "isolated vertices");
    mmx_subdiv_options o = {0};
    cuda_vs_host_opts(gpu, host, CC, read_data(host, "textured.obj"), 3, &o, "textured.obj, linear");
    o.fvar = MMX_FVAR_CORNERS_ONLY;
    cuda_vs_host_opts(gpu, host, CC, read_data(host, "textured.obj"), 3, &o, "textured.obj, corners only");
    /* A corner tag in a smooth mode: the texture mesh reads the vertex sharpness, which a CUDA
     * context holds in device memory. */
    o.fvar = MMX_FVAR_SMOOTH;
    cuda_vs_host_opts(gpu, host, CC, with_tags(read_data(host, "textured.obj"), "t corner 1/1/0 4 3\n"), 3, &o,
                      "textured.obj, smooth, a corner");
    o.fvar = MMX_FVAR_LINEAR_ALL;
    o.limit = 1;
    cuda_vs_host_opts(gpu, host, CC, with_creases(shape(host, "torus:8:6"), 3, NULL), 2, &o, "creased torus, limit");
    cuda_vs_host_opts(gpu, host, LOOP, shape(host, "icosphere:2"), 2, &o, "icosphere, limit");
    mmx_ctx_free(host);
    mmx_ctx_free(gpu);
}

/* Both coordinate sets (host copies) alike: the same numbering, values within rounding. */
static void same_uv(const mmx_mesh *a, const mmx_mesh *b, const char *what)
{
    cr_assert(a->uv && b->uv, "%s: no texture coordinates", what);
    cr_assert_eq(a->M->nnz, b->M->nnz, "%s", what);
    cr_assert_eq(a->uv->nvalues, b->uv->nvalues, "%s: %d and %d coordinates", what, a->uv->nvalues, b->uv->nvalues);
    cr_assert_eq(memcmp(a->uv->index, b->uv->index, sizeof(mmx_index) * (size_t)a->M->nnz), 0,
                 "%s: the numbering differs", what);
    for (size_t i = 0; i < 2 * (size_t)a->uv->nvalues; i++)
        cr_assert(fabs((double)a->uv->values[i] - b->uv->values[i]) <= 1e-5, "%s: value %zu: %g and %g", what,
                  i, a->uv->values[i], b->uv->values[i]);
}

/* Texture coordinates refined on the device (uv.c through the fused path on the texture mesh,
 * uv.cu's per-corner kernels and numbering) against the host's, in every mode: the bilinear
 * texture mesh (Catmull-Clark's and bilinear's linear mode), the scheme's own (the smooth
 * modes), the per-corner way (Loop's linear mode, and a face repeating a coordinate); a second
 * call on a refined device mesh (its coordinates in device memory) and a shuffle of it. */
Test(subdiv, gpu_textures_on_device, .description = "texture coordinates refined on CUDA = the host's, every mode, numbering exactly")
{
    mmx_ctx *gpu = tu_cuda_ctx_or_skip();
    mmx_ctx *host = tu_host_ctx();
    static const mmx_fvar_mode modes[4] = {MMX_FVAR_LINEAR_ALL, MMX_FVAR_SMOOTH, MMX_FVAR_CORNERS_ONLY,
                                           MMX_FVAR_BOUNDARIES};
    static const char *const names[4] = {"linear", "smooth", "corners only", "boundaries"};
    mmx_subdiv_options o = {0};
    char what[128];
    for (int k = 0; k < 4; k++) {
        o.fvar = modes[k];
        snprintf(what, sizeof what, "grid, checkered seams, %s", names[k]);
        cuda_vs_host_opts(gpu, host, CC, with_uv(shape(host, "grid:10:9"), 1), 3, &o, what);
        snprintf(what, sizeof what, "mixed polygons, one seam, %s", names[k]);
        cuda_vs_host_opts(gpu, host, CC, with_uv(shape(host, "mixed"), 2), 3, &o, what);
        snprintf(what, sizeof what, "torus, one seam, creases and a hole, %s", names[k]);
        cuda_vs_host_opts(gpu, host, CC, with_creases(with_uv(shape(host, "torus:8:6"), 2), 3, "t hole 1/0/0 4\n"), 2,
                          &o, what);
        snprintf(what, sizeof what, "Loop, triangulated grid, checkered seams, %s", names[k]);
        cuda_vs_host_opts(gpu, host, LOOP, with_uv(tri_grid(host, 6, 5), 1), 3, &o, what);
        snprintf(what, sizeof what, "Loop, icosphere, one seam, %s", names[k]);
        cuda_vs_host_opts(gpu, host, LOOP, with_uv(shape(host, "icosphere:1"), 2), 3, &o, what);
        snprintf(what, sizeof what, "bilinear, mixed polygons, checkered seams, %s", names[k]);
        cuda_vs_host_opts(gpu, host, BILINEAR, with_uv(shape(host, "mixed"), 1), 3, &o, what);
    }
    o.fvar = MMX_FVAR_LINEAR_ALL;
    cuda_vs_host_opts(gpu, host, CC, with_uv(shuffled(host, shape(host, "torus:40:30"), 4), 1), 4, &o,
                      "shuffled torus, checkered seams, linear");
    cuda_vs_host_opts(gpu, host, LOOP, with_uv(shuffled(host, shape(host, "icosphere:3"), 5), 1), 3, &o,
                      "Loop, shuffled icosphere, checkered seams, linear");
    cuda_vs_host_opts(gpu, host, CC, read_data(host, "bigguy_quads.obj"), 3, &o, "bigguy_quads.obj, its vt, linear");
    /* A face repeating a coordinate: the per-corner way (uv.cu) for Catmull-Clark too. */
    mmx_mesh *deg = with_uv(shape(host, "grid:10:9"), 1);
    deg->uv->index[deg->M->order * 7 + 1] = deg->uv->index[deg->M->order * 7];
    cuda_vs_host_opts(gpu, host, CC, deg, 3, &o, "grid, a face repeating a coordinate, linear");
    /* A second call on the refined device mesh (coordinates in device memory), and a shuffle of
     * it, against the same on the host. */
    mmx_mesh *m = with_uv(shape(host, "mixed"), 1), *dm = NULL, *d1 = NULL, *d2 = NULL, *h1 = NULL, *h2 = NULL;
    mmx_mesh *back = NULL, *ds = NULL, *hs = NULL, *sback = NULL;
    MMX_OK_OR_FAIL(gpu, mmx_mesh_copy(gpu, m, MMX_SPACE_DEVICE, &dm));
    MMX_OK_OR_FAIL(gpu, mmx_subdivide(gpu, CC, dm, 1, NULL, &d1));
    MMX_OK_OR_FAIL(host, mmx_subdivide(host, CC, m, 1, NULL, &h1));
    cr_assert(d1->uv && d1->uv->space == MMX_SPACE_DEVICE);
    MMX_OK_OR_FAIL(gpu, mmx_subdivide(gpu, CC, d1, 2, NULL, &d2));
    MMX_OK_OR_FAIL(host, mmx_subdivide(host, CC, h1, 2, NULL, &h2));
    MMX_OK_OR_FAIL(gpu, mmx_mesh_copy(gpu, d2, MMX_SPACE_HOST, &back));
    same_uv(back, h2, "two calls on the device");
    MMX_OK_OR_FAIL(gpu, mmx_mesh_shuffle(gpu, d1, 7, NULL, NULL, &ds));
    MMX_OK_OR_FAIL(host, mmx_mesh_shuffle(host, h1, 7, NULL, NULL, &hs));
    MMX_OK_OR_FAIL(gpu, mmx_mesh_copy(gpu, ds, MMX_SPACE_HOST, &sback));
    same_uv(sback, hs, "a shuffled refined device mesh");
    mmx_mesh_free(m), mmx_mesh_free(dm), mmx_mesh_free(d1), mmx_mesh_free(d2), mmx_mesh_free(h1);
    mmx_mesh_free(h2), mmx_mesh_free(back), mmx_mesh_free(ds), mmx_mesh_free(hs), mmx_mesh_free(sback);
    mmx_ctx_free(host);
    mmx_ctx_free(gpu);
}

Test(subdiv, gpu_refusals, .description = "CUDA refuses the same inputs with the same messages")
{
    mmx_ctx *gpu = tu_cuda_ctx_or_skip();
    check_refusals(gpu);
    /* A host mesh on a CUDA context is refused, not read through a wrong pointer. */
    mmx_ctx *host = tu_host_ctx();
    mmx_mesh *m = shape(host, "cube"), *out = NULL;
    cr_assert_eq(mmx_subdivide(gpu, CC, m, 1, NULL, &out), MMX_ERR_SPACE);
    mmx_mesh_free(m);
    mmx_ctx_free(host);
    mmx_ctx_free(gpu);
}

/* The refined mesh carries the honoured tags, decayed: a second call continues where the first
 * stopped (one call of two levels and two calls of one give the same topology, and positions
 * within float rounding: a fresh call's walks may start at other corners), and the corners and
 * creases that are no longer sharp are gone; a crease still sharp is carried as its two halves. */
Test(subdiv, tags_carry_to_the_refined_mesh, .description = "corners, creases and the boundary mode carry, decayed, to the refined mesh")
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = with_tags(shape(ctx, "grid:10:9"),
                            "t corner 3/3/0 12 30 40 10 1.5 0.5\nt interpolateboundary 1/0/0 1\n"
                            "t crease 2/1/0 12 13 1.5\nt crease 2/1/0 30 31 10\n"
                            "t crease 2/1/0 40 41 0.75\n");
    mmx_mesh *two = NULL, *one = NULL, *again = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_subdivide(ctx, CC, m, 2, NULL, &two));
    MMX_OK_OR_FAIL(ctx, mmx_subdivide(ctx, CC, m, 1, NULL, &one));
    mmx_mesh_tags *t = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_tags_parse(ctx, one, &t));
    cr_assert_eq(t->interpolate_boundary, 1);
    cr_assert_eq(t->ncorners, 2, "the corner of sharpness 0.5 is spent after one level");
    cr_assert(t->corner_verts[0] == 12 && t->corner_sharpness[0] == 10.0f);
    cr_assert(t->corner_verts[1] == 30 && t->corner_sharpness[1] == 0.5f);
    /* (12, 13) at 1.5 and (30, 31) at 10 leave two halves each, 0.5 and 10; (40, 41) is spent. */
    cr_assert_eq(t->ncreases, 4, "creases carried: %d", t->ncreases);
    int half_05 = 0, half_10 = 0;
    for (mmx_index k = 0; k < t->ncreases; k++) {
        const mmx_index a = t->crease_verts[2 * k], b = t->crease_verts[2 * k + 1];
        cr_assert(b >= m->M->nrows, "crease %d (%d, %d) is not a half: no edge point", k, a, b);
        if (t->crease_sharpness[k] == 0.5f) half_05 += a == 12 || a == 13;
        if (t->crease_sharpness[k] == 10.0f) half_10 += a == 30 || a == 31;
    }
    cr_assert(half_05 == 2 && half_10 == 2, "the halves of (12, 13) and (30, 31)");
    /* The algebraic path carries the same tags, read off the refined mesh's own adjacency. */
    mmx_subdiv_options o = {0};
    o.path = MMX_SUBDIV_PATH_ALGEBRAIC;
    mmx_mesh *alg = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_subdivide(ctx, CC, m, 1, &o, &alg));
    cr_assert_str_eq(alg->tags, one->tags, "the algebraic path's tags differ from the fused path's");
    mmx_mesh_free(alg);
    mmx_mesh_tags_free(t);
    MMX_OK_OR_FAIL(ctx, mmx_subdivide(ctx, CC, one, 1, NULL, &again));
    cr_assert_eq(again->M->nnz, two->M->nnz);
    cr_assert_arr_eq(again->M->rowidx, two->M->rowidx, (size_t)two->M->nnz * sizeof(mmx_index));
    const double diag = mesh_diagonal(two);
    for (size_t i = 0; i < 3 * (size_t)two->M->nrows; i++)
        cr_assert(fabs(again->pos[i] - two->pos[i]) <= 1e-6 * diag,
                  "two calls of one level differ from one call of two at vertex %zu", i / 3);
    MMX_OK_OR_FAIL(ctx, mmx_mesh_tags_parse(ctx, two, &t));
    cr_assert(t->ncorners == 1 && t->corner_verts[0] == 12 && t->interpolate_boundary == 1);
    cr_assert_eq(t->ncreases, 4, "the infinitely sharp crease's four quarters: %d", t->ncreases);
    mmx_mesh_tags_free(t);
    mmx_mesh_free(again);
    mmx_mesh_free(one);
    mmx_mesh_free(two);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* ---- coordinates near FLT_MAX (MMX_SUBDIV_COORD_MAX) ---------------------------------------- */

/* An octahedron scaled to `r`, on ctx (copied to the device when dev). */
static mmx_mesh *octahedron(mmx_ctx *host, mmx_ctx *ctx, float r)
{
    const mmx_index tri[] = {0, 2, 4, 2, 1, 4, 1, 3, 4, 3, 0, 4, 2, 0, 5, 1, 2, 5, 3, 1, 5, 0, 3, 5};
    const float p[] = {1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1};
    mmx_mesh *m = tu_triangles(host, 6, 8, tri, p);
    /* Scaled after making it (mmx_mesh_from_faces refuses NaN and infinity itself). */
    for (int k = 0; k < 18; k++) m->pos[k] = p[k] == 0 ? 0.0f : p[k] * r;
    if (ctx == host) return m;
    mmx_mesh *d = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_copy(ctx, m, MMX_SPACE_DEVICE, &d));
    mmx_mesh_free(m);
    return d;
}

/* Every scheme, both paths, the plan and the limit: 3e38 (and NaN, and just past the bound)
 * refused by all alike, naming the vertex; at the bound all finite and the paths agree. Before,
 * Catmull-Clark's fused path wrote inf where the algebraic one was finite (bilinear: nan). */
static void coordinate_bound(mmx_ctx *host, mmx_ctx *ctx)
{
    const mmx_scheme schemes[] = {LOOP, SQRT3, CC, MMX_SCHEME_BILINEAR};
    const float bad_r[] = {3e38f, 1.01e18f, NAN, INFINITY};
    for (int si = 0; si < 4; si++) {
        for (int b = 0; b < 4; b++) {
            mmx_mesh *m = octahedron(host, ctx, bad_r[b]);
            for (int p = 0; p < 2; p++) {
                mmx_subdiv_options o = {0};
                o.path = p ? MMX_SUBDIV_PATH_ALGEBRAIC : MMX_SUBDIV_PATH_FUSED;
                mmx_mesh *out = (mmx_mesh *)1;
                cr_assert_eq(mmx_subdivide(ctx, schemes[si], m, 1, &o, &out), MMX_ERR_MESH,
                             "%s r %g path %d: %s", mmx_scheme_name(schemes[si]), (double)bad_r[b], p,
                             mmx_ctx_error(ctx));
                cr_assert_null(out);
                cr_assert(strstr(mmx_ctx_error(ctx), "vertex 0 has the coordinate") &&
                              strstr(mmx_ctx_error(ctx), "MMX_SUBDIV_COORD_MAX"),
                          "%s", mmx_ctx_error(ctx));
            }
            mmx_subdiv_plan *plan = (mmx_subdiv_plan *)1;
            cr_assert_eq(mmx_subdiv_plan_create(ctx, schemes[si], m, 1, NULL, &plan), MMX_ERR_MESH);
            if (schemes[si] == LOOP) {
                float lim[18];
                float *dlim = lim;
                if (ctx != host)
                    MMX_OK_OR_FAIL(ctx, mmx_mem_alloc(ctx, MMX_SPACE_DEVICE, sizeof lim, (void **)&dlim));
                cr_assert_eq(mmx_subdiv_limit(ctx, LOOP, m, NULL, dlim, NULL), MMX_ERR_MESH);
                if (ctx != host) mmx_mem_free(ctx, MMX_SPACE_DEVICE, dlim);
            }
            mmx_mesh_free(m);
        }
        /* At the bound: finite, and the two paths agree (relative to the size). */
        mmx_mesh *m = octahedron(host, ctx, MMX_SUBDIV_COORD_MAX);
        mmx_mesh *r[2] = {NULL, NULL}, *hr[2] = {NULL, NULL};
        for (int p = 0; p < 2; p++) {
            mmx_subdiv_options o = {0};
            o.path = p ? MMX_SUBDIV_PATH_ALGEBRAIC : MMX_SUBDIV_PATH_FUSED;
            MMX_OK_OR_FAIL(ctx, mmx_subdivide(ctx, schemes[si], m, 2, &o, &r[p]));
            MMX_OK_OR_FAIL(ctx, mmx_mesh_copy(ctx, r[p], MMX_SPACE_HOST, &hr[p]));
        }
        const mmx_index n = mmx_mesh_nverts(hr[0]);
        cr_assert_eq(n, mmx_mesh_nverts(hr[1]));
        for (size_t k = 0; k < 3 * (size_t)n; k++) {
            cr_assert(isfinite(hr[0]->pos[k]) && isfinite(hr[1]->pos[k]), "%s: not finite at %zu",
                      mmx_scheme_name(schemes[si]), k);
            cr_assert(fabs((double)hr[0]->pos[k] - (double)hr[1]->pos[k]) <= 1e-5 * 1e18,
                      "%s: the paths differ at %zu: %g and %g", mmx_scheme_name(schemes[si]), k,
                      (double)hr[0]->pos[k], (double)hr[1]->pos[k]);
        }
        /* The plan: made at the bound; on the host an evaluation past it is refused. */
        mmx_subdiv_plan *plan = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_subdiv_plan_create(ctx, schemes[si], m, 1, NULL, &plan));
        if (ctx == host) {
            mmx_index cn = 0, fn = 0;
            mmx_subdiv_plan_sizes(plan, &cn, &fn, NULL);
            float *cp = malloc(3 * (size_t)cn * sizeof *cp), *fp = malloc(3 * (size_t)fn * sizeof *fp);
            cr_assert(cp && fp);
            memcpy(cp, m->pos, 3 * (size_t)cn * sizeof *cp);
            MMX_OK_OR_FAIL(ctx, mmx_subdiv_plan_eval(plan, cp, fp));
            cp[4] = 3e38f;
            cr_assert_eq(mmx_subdiv_plan_eval(plan, cp, fp), MMX_ERR_MESH);
            cr_assert(strstr(mmx_ctx_error(ctx), "control vertex 1"), "%s", mmx_ctx_error(ctx));
            free(cp), free(fp);
        }
        mmx_subdiv_plan_free(plan);
        for (int p = 0; p < 2; p++) mmx_mesh_free(r[p]), mmx_mesh_free(hr[p]);
        mmx_mesh_free(m);
    }
}

Test(subdiv, coordinates_past_the_bound_are_refused_by_every_path)
{
    mmx_ctx *ctx = tu_host_ctx();
    coordinate_bound(ctx, ctx);
    /* Texture coordinates follow the same rule, on both paths. */
    mmx_mesh *m = with_uv(octahedron(ctx, ctx, 1.0f), 1);
    m->uv->values[7] = -3e38f;
    for (int p = 0; p < 2; p++) {
        mmx_subdiv_options o = {0};
        o.path = p ? MMX_SUBDIV_PATH_ALGEBRAIC : MMX_SUBDIV_PATH_FUSED;
        mmx_mesh *out = (mmx_mesh *)1;
        cr_assert_eq(mmx_subdivide(ctx, CC, m, 1, &o, &out), MMX_ERR_MESH);
        cr_assert(strstr(mmx_ctx_error(ctx), "texture coordinate 3 has the coordinate -3e+38"), "%s",
                  mmx_ctx_error(ctx));
    }
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(subdiv, coordinates_past_the_bound_are_refused_on_cuda)
{
    mmx_ctx *cu = tu_cuda_ctx_or_skip();
    if (!cu) return;
    mmx_ctx *host = tu_host_ctx();
    coordinate_bound(host, cu);
    mmx_ctx_free(host);
    mmx_ctx_free(cu);
}

/* A mesh without faces but with a texture set (through the C API: the OBJ reader gives no
 * coordinates to a faceless mesh) comes back as it is, its coordinates with it: the refined
 * corners' copy read a NULL index for 0 bytes (UBSan; found by fuzz/fuzz_opts.c). */
Test(subdiv, faceless_mesh_with_texture_coordinates)
{
    mmx_ctx *ctx = NULL;
    cr_assert_eq(mmx_ctx_create(&ctx), MMX_OK);
    const float pos[6] = {0, 0, 0, 1, 0, 0};
    const mmx_index start[1] = {0};
    mmx_mesh *m = NULL, *fine = NULL;
    cr_assert_eq(mmx_mesh_from_faces(ctx, 2, 0, start, NULL, pos, &m), MMX_OK, "%s", mmx_ctx_error(ctx));
    m->uv = calloc(1, sizeof *m->uv);
    cr_assert(m->uv);
    m->uv->nvalues = 1;
    m->uv->values = calloc(2, sizeof(float));
    m->uv->space = MMX_SPACE_HOST;
    cr_assert(m->uv->values);
    const mmx_scheme schemes[3] = {MMX_SCHEME_CATMULL_CLARK, MMX_SCHEME_LOOP, MMX_SCHEME_BILINEAR};
    for (int i = 0; i < 3; i++) {
        mmx_subdiv_options o = {0};
        cr_assert_eq(mmx_subdivide(ctx, schemes[i], m, 2, &o, &fine), MMX_OK, "%s", mmx_ctx_error(ctx));
        cr_assert_eq(mmx_mesh_nverts(fine), 2);
        cr_assert_eq(mmx_mesh_nfaces(fine), 0);
        mmx_mesh_free(fine);
        fine = NULL;
    }
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* The empty mesh (no vertices, no faces: what `OFF 0 0 0` reads as) refines to itself on every
 * scheme and path. (The inputs on which UBSan found `NULL + 0` in the algebraic levels are
 * fuzz/seeds/subdiv/ubsan_empty_level_cc and fuzz/seeds/opts/ubsan_empty_level_loop, which
 * the fuzz step replays.) */
Test(subdiv, the_empty_mesh_on_every_scheme_and_path)
{
    mmx_ctx *ctx = NULL;
    cr_assert_eq(mmx_ctx_create(&ctx), MMX_OK);
    const mmx_index start[1] = {0};
    mmx_mesh *m = NULL;
    const float nopos[3] = {0, 0, 0};
    cr_assert_eq(mmx_mesh_from_faces(ctx, 0, 0, start, NULL, nopos, &m), MMX_OK, "%s", mmx_ctx_error(ctx));
    const mmx_scheme schemes[4] = {MMX_SCHEME_CATMULL_CLARK, MMX_SCHEME_LOOP, MMX_SCHEME_SQRT3,
                                   MMX_SCHEME_BILINEAR};
    for (int i = 0; i < 4; i++)
        for (int path = MMX_SUBDIV_PATH_AUTO; path <= MMX_SUBDIV_PATH_ALGEBRAIC; path++) {
            mmx_subdiv_options o = {0};
            o.path = (mmx_subdiv_path)path;
            mmx_mesh *fine = NULL;
            mmx_status s = mmx_subdivide(ctx, schemes[i], m, 2, &o, &fine);
            cr_assert_eq(s, MMX_OK, "scheme %d path %d: %s", i, path, mmx_ctx_error(ctx));
            cr_assert_eq(mmx_mesh_nverts(fine), 0);
            cr_assert_eq(mmx_mesh_nfaces(fine), 0);
            mmx_mesh_free(fine);
        }
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}
