/* The fused subdivision path against the algebraic one: identical topology (same numbering of
 * vertices and faces, at every level) and positions within 1e-6 of the bounding-box diagonal,
 * on the host (CI) and on CUDA; the plans' re-evaluation against a fresh subdivision of the
 * moved control mesh; and the plans' refusals. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#include "subdiv_meshes.h"
#include "subdiv/fused.h" /* the input level and its fault record */

#define CC MMX_SCHEME_CATMULL_CLARK
#define LOOP MMX_SCHEME_LOOP
#define SQRT3 MMX_SCHEME_SQRT3
#define BILINEAR MMX_SCHEME_BILINEAR
#define TOL 1e-6

static mmx_mesh *refine_mode(mmx_ctx *ctx, mmx_scheme scheme, mmx_boundary boundary,
                             const mmx_mesh *m, int levels, mmx_subdiv_path path)
{
    mmx_subdiv_options o = {0};
    o.path = path;
    o.boundary = boundary;
    mmx_mesh *r = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_subdivide(ctx, scheme, m, levels, &o, &r));
    return r;
}

static mmx_mesh *refine(mmx_ctx *ctx, mmx_scheme scheme, const mmx_mesh *m, int levels,
                        mmx_subdiv_path path)
{
    return refine_mode(ctx, scheme, MMX_BOUNDARY_EDGE_ONLY, m, levels, path);
}

static mmx_mesh *to_host(mmx_ctx *ctx, const mmx_mesh *m)
{
    mmx_mesh *h = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_copy(ctx, m, MMX_SPACE_HOST, &h));
    return h;
}

/* Asserts that two host meshes have the same topology, entry for entry, and positions within
 * TOL of the reference's diagonal. */
static void same(const mmx_mesh *got, const mmx_mesh *ref, const char *what)
{
    cr_assert_eq(got->M->nrows, ref->M->nrows, "%s: vertices", what);
    cr_assert_eq(got->M->ncols, ref->M->ncols, "%s: faces", what);
    cr_assert_eq(got->M->order, ref->M->order, "%s: order", what);
    cr_assert_eq(got->M->nnz, ref->M->nnz, "%s: corners", what);
    for (mmx_index q = 0; q < ref->M->nnz; q++)
        cr_assert_eq(got->M->rowidx[q], ref->M->rowidx[q],
                     "%s: corner %d of face %d is vertex %d, the reference has %d", what,
                     q % ref->M->order, q / ref->M->order, got->M->rowidx[q], ref->M->rowidx[q]);
    const double diag = mesh_diagonal(ref);
    double worst = 0;
    mmx_index at = 0;
    for (size_t i = 0; i < 3 * (size_t)ref->M->nrows; i++) {
        double d = fabs((double)got->pos[i] - ref->pos[i]);
        if (d > worst) worst = d, at = (mmx_index)(i / 3);
    }
    cr_assert(worst <= TOL * diag, "%s: vertex %d is off by %g of the diagonal", what, at,
              worst / diag);
}

/* Whether m (host) has a boundary edge. */
static int has_boundary(mmx_ctx *host, const mmx_mesh *m)
{
    mmx_adjacency *adj = NULL;
    MMX_OK_OR_FAIL(host, mmx_adjacency_compute(host, m, &adj));
    const int b = adj->boundary_edges > 0;
    mmx_adjacency_free(adj);
    return b;
}

/* Each level 1..levels: the fused path (on ctx) against the algebraic path on the host, with
 * boundary mode `boundary`. The default path is the fused one, but for sqrt3 with boundary,
 * where it is the algebraic one (subdiv.h). */
static void check_mode(mmx_ctx *ctx, mmx_ctx *host, mmx_scheme scheme, mmx_boundary boundary,
                       mmx_mesh *m, int levels, const char *what)
{
    mmx_mesh *in = m;
    if (mmx_ctx_space(ctx) != MMX_SPACE_HOST)
        MMX_OK_OR_FAIL(ctx, mmx_mesh_copy(ctx, m, mmx_ctx_space(ctx), &in));
    const mmx_subdiv_path dpath = scheme == SQRT3 && has_boundary(host, m) ? MMX_SUBDIV_PATH_ALGEBRAIC
                                                                           : MMX_SUBDIV_PATH_FUSED;
    for (int l = 1; l <= levels; l++) {
        char label[160];
        snprintf(label, sizeof label, "%s, %s level %d (%s)", what, mmx_scheme_name(scheme), l,
                 mmx_ctx_space(ctx) == MMX_SPACE_HOST ? "host" : "CUDA");
        mmx_mesh *ref = refine_mode(host, scheme, boundary, m, l, MMX_SUBDIV_PATH_ALGEBRAIC);
        mmx_mesh *got = refine_mode(ctx, scheme, boundary, in, l, MMX_SUBDIV_PATH_FUSED);
        mmx_mesh *h = to_host(ctx, got);
        same(h, ref, label);
        /* The carried tags (the creases' halves still sharp, corners, holes) to the byte: the
         * fused Catmull-Clark lists its uniform creases in closed form (tags_dev.c). */
        cr_assert_str_eq(h->tags ? h->tags : "", ref->tags ? ref->tags : "", "%s: tags", label);
        if (l == levels) {
            mmx_mesh *dflt = refine_mode(ctx, scheme, boundary, in, l, MMX_SUBDIV_PATH_AUTO),
                     *hd = to_host(ctx, dflt);
            mmx_mesh *exp = dpath == MMX_SUBDIV_PATH_FUSED ? NULL : refine_mode(ctx, scheme, boundary, in, l, dpath);
            mmx_mesh *he = exp ? to_host(ctx, exp) : NULL;
            cr_assert_eq(memcmp(hd->pos, (he ? he : h)->pos, sizeof(float) * 3 * (size_t)h->M->nrows), 0,
                         "%s: the default path is not the %s one", label,
                         dpath == MMX_SUBDIV_PATH_FUSED ? "fused" : "algebraic");
            mmx_mesh_free(he);
            mmx_mesh_free(exp);
            mmx_mesh_free(hd);
            mmx_mesh_free(dflt);
        }
        mmx_mesh_free(h);
        mmx_mesh_free(got);
        mmx_mesh_free(ref);
    }
    if (in != m) mmx_mesh_free(in);
    mmx_mesh_free(m);
}

static void check(mmx_ctx *ctx, mmx_ctx *host, mmx_scheme scheme, mmx_mesh *m, int levels,
                  const char *what)
{
    check_mode(ctx, host, scheme, MMX_BOUNDARY_EDGE_ONLY, m, levels, what);
}

/* m with its tags set to `tags` (corners: sharp vertices, read by mmx_subdivide). */
static mmx_mesh *with_tags(mmx_mesh *m, const char *tags)
{
    free(m->tags);
    m->tags = strdup(tags);
    cr_assert_not_null(m->tags);
    return m;
}

/* The edge-and-corner boundary (boundary vertices on one face), and corner tags: infinitely
 * sharp, semi-sharp (a corner for some levels, then the blend), below 1. */
static void corner_meshes(mmx_ctx *ctx, mmx_ctx *host)
{
    const mmx_boundary tagged = MMX_BOUNDARY_FROM_MESH;
    check_mode(ctx, host, CC, tagged, with_tags(shape(host, "cube"), "t corner 3/3/0 0 3 5 10 2.5 0.5\n"),
               4, "cube with corners");
    check_mode(ctx, host, CC, tagged,
               with_tags(shape(host, "grid:12:10"), "t corner 2/1/0 12 30 1.5\nt interpolateboundary 1/0/0 1\n"),
               3, "grid with corners");
    check_mode(ctx, host, LOOP, tagged,
               with_tags(shape(host, "icosphere:1"), "t corner 2/2/0 0 7 10 1.25\n"), 4,
               "icosphere with corners");
    const mmx_boundary ec = MMX_BOUNDARY_EDGE_AND_CORNER;
    check_mode(ctx, host, CC, ec, shape(host, "grid:12:10"), 3, "grid with holes");
    check_mode(ctx, host, CC, ec, shape(host, "mixed"), 3, "mixed (polygons, boundary)");
    check_mode(ctx, host, CC, ec, fan(host, 7), 3, "fan of 7");
    check_mode(ctx, host, LOOP, ec, tri_grid(host, 10, 8), 3, "triangulated grid");
    check_mode(ctx, host, LOOP, ec, fan(host, 7), 3, "fan of 7");
    check_mode(ctx, host, BILINEAR, ec, shape(host, "mixed"), 2, "mixed");
}

/* Creases (every few edges: infinitely sharp, semi-sharp, below 1), uniform and Chaikin, with
 * corners and the edge-and-corner boundary, polygons and large faces; the boundary mode and the
 * creases from the tags. */
static void crease_meshes(mmx_ctx *ctx, mmx_ctx *host)
{
    const mmx_boundary tagged = MMX_BOUNDARY_FROM_MESH;
    const char *chaikin = "t creasemethod 0/0/1 chaikin\n";
    check_mode(ctx, host, CC, tagged, with_creases(shape(host, "cube"), 2, NULL), 4, "cube with creases");
    check_mode(ctx, host, CC, tagged, with_creases(shape(host, "torus:12:8"), 3, chaikin), 3,
               "torus with creases, Chaikin");
    check_mode(ctx, host, CC, tagged,
               with_creases(shape(host, "mixed"), 2, "t interpolateboundary 1/0/0 1\nt corner 1/1/0 3 2.5\n"), 3,
               "mixed polygons with creases and a corner, edge-and-corner");
    check_mode(ctx, host, CC, tagged, with_creases(ngon(host, 600, 1), 7, NULL), 2,
               "two 600-gons with creases (wide face points)");
    check_mode(ctx, host, LOOP, tagged, with_creases(shape(host, "icosphere:2"), 3, NULL), 3,
               "icosphere with creases");
    check_mode(ctx, host, LOOP, tagged, with_creases(tri_grid(host, 10, 8), 2, chaikin), 3,
               "triangulated grid with creases, Chaikin");
    check_mode(ctx, host, BILINEAR, tagged, with_creases(shape(host, "mixed"), 2, NULL), 2,
               "bilinear with creases (ignored)");
    check_mode(ctx, host, CC, tagged, with_creases(with_tags(shape(host, "torus:8:6"), "t hole 2/0/0 5 20\n"), 3, NULL),
               3, "torus with holes and creases");
    check_mode(ctx, host, CC, tagged, with_tags(shape(host, "mixed"), "t smoothtriangles 0/0/1 smooth\n"), 3,
               "mixed, smooth triangles");
    check_mode(ctx, host, CC, tagged, with_creases(tri_grid(host, 6, 5), 3, "t smoothtriangles 0/0/1 smooth\n"), 3,
               "triangulated grid, smooth triangles and creases");
}

/* Vertices of several fans (corners on both paths): a bowtie, two cones on one tip. */
static void fan_meshes(mmx_ctx *ctx, mmx_ctx *host)
{
    static const float p9[] = {0, 0, 0, 1, 1, 1, -1, 1, 1, -1, -1, 1, 1, -1, 1,
                               1, 1, -1, 1, -1, -1, -1, -1, -1, -1, 1, -1};
    static const int cones[] = {0, 1, 2, -1, 0, 2, 3, -1, 0, 3, 4, -1, 0, 4, 1, -1,
                                0, 5, 6, -1, 0, 6, 7, -1, 0, 7, 8, -1, 0, 8, 5, -1};
    static const int bowtie[] = {0, 1, 2, -1, 0, 3, 4, -1};
    check(ctx, host, CC, from_lists(host, 9, p9, cones, 32), 3, "two cones on one tip");
    check(ctx, host, LOOP, from_lists(host, 9, p9, cones, 32), 3, "two cones on one tip");
    check(ctx, host, CC, from_lists(host, 9, p9, bowtie, 8), 3, "bowtie");
    check(ctx, host, LOOP, shuffled(host, from_lists(host, 9, p9, bowtie, 8), 2), 3, "shuffled bowtie");
    check(ctx, host, BILINEAR, from_lists(host, 9, p9, cones, 32), 2, "two cones on one tip");
}

static void cc_meshes(mmx_ctx *ctx, mmx_ctx *host)
{
    check(ctx, host, CC, shape(host, "cube"), 4, "cube");
    check(ctx, host, CC, shape(host, "mixed"), 4, "mixed (polygons, boundary)");
    check(ctx, host, CC, shape(host, "torus:12:8"), 3, "torus");
    check(ctx, host, CC, shape(host, "grid:12:10"), 3, "grid with holes");
    check(ctx, host, CC, pyramid(host, 40), 3, "pyramid 40");
    check(ctx, host, CC, pyramid(host, 360), 2, "pyramid 360");
    check(ctx, host, CC, tri_grid(host, 6, 5), 3, "triangles");
    check(ctx, host, CC, shuffled(host, read_data(host, "house.obj"), 5), 3, "shuffled house");
    check(ctx, host, CC, pillow(host, 0), 3, "two triangles glued along all edges");
    check(ctx, host, CC, ngon(host, 9, 1), 3, "two 9-gons glued along all edges");
    /* Large faces cost linear time (a face's point is computed once per level, not once per
     * edge and vertex of the face): the fused path took 7.1 s on a 64,000-gon before, and
     * would take minutes here, past the suite's time limit. */
    check(ctx, host, CC, ngon(host, 200000, 0), 1, "one 200,000-gon");
    check(ctx, host, CC, ngon(host, 50000, 1), 2, "two 50,000-gons glued along all edges");
    check(ctx, host, CC, no_faces(host, 5), 2, "vertices without faces");
    /* Level 2 here needs 21 MB: its arrays are allocated one by one, the levels before from
     * one block each (fused.c, mmx__fz_child_alloc). */
    check(ctx, host, CC, shape(host, "torus:128"), 3, "torus 128 x 128");
}

/* Bilinear: Catmull-Clark's children, linear weights (boundaries, polygons, large faces). */
static void bilinear_meshes(mmx_ctx *ctx, mmx_ctx *host)
{
    check(ctx, host, BILINEAR, shape(host, "cube"), 3, "cube");
    check(ctx, host, BILINEAR, shape(host, "mixed"), 3, "mixed (polygons, boundary)");
    check(ctx, host, BILINEAR, shape(host, "grid:12:10"), 3, "grid with holes");
    check(ctx, host, BILINEAR, pyramid(host, 40), 2, "pyramid 40");
    check(ctx, host, BILINEAR, shuffled(host, read_data(host, "house.obj"), 5), 3, "shuffled house");
    check(ctx, host, BILINEAR, ngon(host, 5000, 0), 2, "one 5,000-gon");
}

static void loop_meshes(mmx_ctx *ctx, mmx_ctx *host)
{
    check(ctx, host, LOOP, shape(host, "tetrahedron"), 4, "tetrahedron");
    check(ctx, host, LOOP, shape(host, "icosphere:2"), 3, "icosphere");
    check(ctx, host, LOOP, tri_grid(host, 10, 8), 3, "triangulated grid");
    check(ctx, host, LOOP, fan(host, 7), 3, "open fan");
    check(ctx, host, LOOP, bipyramid(host, 360), 2, "bipyramid 360");
    check(ctx, host, LOOP, shuffled(host, bipyramid(host, 60), 6), 3, "shuffled bipyramid");
    check(ctx, host, LOOP, read_data(host, "strip.obj"), 3, "strip");
    check(ctx, host, LOOP, no_faces(host, 5), 2, "vertices without faces");
}

static void sqrt3_meshes(mmx_ctx *ctx, mmx_ctx *host)
{
    check(ctx, host, SQRT3, shape(host, "tetrahedron"), 4, "tetrahedron");
    check(ctx, host, SQRT3, shape(host, "icosphere:2"), 3, "icosphere");
    check(ctx, host, SQRT3, bipyramid(host, 200), 2, "bipyramid 200");
    check(ctx, host, SQRT3, shuffled(host, bipyramid(host, 60), 7), 3, "shuffled bipyramid");
    check(ctx, host, SQRT3, no_faces(host, 5), 2, "vertices without faces");
    /* With boundary (Kobbelt's rule): the levels' topology is the algebraic path's, the
     * positions the fused passes' (an odd generation's cut points, the boundary vertices). */
    check(ctx, host, SQRT3, tri_grid(host, 6, 5), 4, "open triangulated grid");
    check(ctx, host, SQRT3, read_data(host, "strip.obj"), 3, "strip");
    check(ctx, host, SQRT3, fan(host, 5), 3, "fan of 5");
    check(ctx, host, SQRT3, shuffled(host, tri_grid(host, 5, 4), 3), 3, "shuffled open grid");
}

/* Loop and sqrt3 refuse two triangles on the same three vertices in opposite orders (a pillow,
 * whose children would share edges four ways: before, the fused Loop wrote out of bounds and
 * left vertices unset), and every scheme a face repeated in the same order, on both paths,
 * before any work, naming the two faces. `extra` puts a tetrahedron first, so that the faces
 * named are 4 and 5. */
static void refusals(mmx_ctx *ctx, mmx_ctx *host, int extra)
{
    mmx_mesh *meshes[2] = {pillow(host, extra), pillow(host, extra)};
    /* The second: the last face repeated in the same order instead of reversed. */
    mmx_index *rows = meshes[1]->M->rowidx + 3 * (meshes[1]->M->ncols - 1);
    const mmx_index r0 = rows[0];
    rows[0] = rows[2], rows[2] = r0;
    char want[2][64];
    snprintf(want[0], sizeof want[0], "faces %d and %d (0-based)", 4 * extra, 4 * extra + 1);
    snprintf(want[1], sizeof want[1], "face %d repeats face %d", 4 * extra + 1, 4 * extra);
    for (int k = 0; k < 2; k++) {
        mmx_mesh *in = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_mesh_copy(ctx, meshes[k], mmx_ctx_space(ctx), &in));
        for (int sc = 0; sc < 3; sc++) {
            if (k == 0 && sc == CC) continue; /* Catmull-Clark refines pillows (above) */
            for (int p = MMX_SUBDIV_PATH_FUSED; p <= MMX_SUBDIV_PATH_ALGEBRAIC; p++) {
                mmx_subdiv_options o = {0};
                o.path = (mmx_subdiv_path)p;
                mmx_mesh *out = (mmx_mesh *)&out;
                cr_assert_eq(mmx_subdivide(ctx, (mmx_scheme)sc, in, 3, &o, &out), MMX_ERR_MESH,
                             "%s, path %d: %s", mmx_scheme_name((mmx_scheme)sc), p,
                             mmx_ctx_error(ctx));
                cr_assert_null(out);
                cr_assert(strstr(mmx_ctx_error(ctx), want[k]), "%s", mmx_ctx_error(ctx));
                if (k == 0) cr_assert(strstr(mmx_ctx_error(ctx), "pillow"), "%s", mmx_ctx_error(ctx));
            }
        }
        mmx_mesh_free(in);
        mmx_mesh_free(meshes[k]);
    }
}

Test(fused, cc_matches_algebraic, .description = "fused Catmull-Clark = algebraic (host)")
{
    mmx_ctx *host = tu_host_ctx();
    cc_meshes(host, host);
    mmx_ctx_free(host);
}

Test(fused, bilinear_matches_algebraic, .description = "fused bilinear = algebraic (host)")
{
    mmx_ctx *host = tu_host_ctx();
    bilinear_meshes(host, host);
    mmx_ctx_free(host);
}

Test(fused, corners_match_algebraic, .description = "fused = algebraic with the edge-and-corner boundary (host)")
{
    mmx_ctx *host = tu_host_ctx();
    corner_meshes(host, host);
    mmx_ctx_free(host);
}

Test(fused, creases_match_algebraic, .description = "fused = algebraic with creases, uniform and Chaikin (host)")
{
    mmx_ctx *host = tu_host_ctx();
    crease_meshes(host, host);
    mmx_ctx_free(host);
}

Test(fused, fans_match_algebraic, .description = "fused = algebraic with vertices of several fans (host)")
{
    mmx_ctx *host = tu_host_ctx();
    fan_meshes(host, host);
    mmx_ctx_free(host);
}

Test(fused, loop_matches_algebraic, .description = "fused Loop = algebraic (host)")
{
    mmx_ctx *host = tu_host_ctx();
    loop_meshes(host, host);
    mmx_ctx_free(host);
}

Test(fused, sqrt3_matches_algebraic, .description = "fused sqrt3 = algebraic (host)")
{
    mmx_ctx *host = tu_host_ctx();
    sqrt3_meshes(host, host);
    mmx_ctx_free(host);
}

Test(fused, pillows_and_repeated_faces_refused, .description = "Loop and sqrt3 refuse pillows, every scheme repeated faces (host)")
{
    mmx_ctx *host = tu_host_ctx();
    refusals(host, host, 0);
    refusals(host, host, 1);
    mmx_ctx_free(host);
}

/* ---- plans ---------------------------------------------------------------------------------- */

/* The control positions moved by a smooth deformation, and a copy of m carrying them. */
static void deform(const float *p, mmx_index nv, float t, float *out)
{
    for (mmx_index v = 0; v < nv; v++) {
        const float *x = p + 3 * (size_t)v;
        float *y = out + 3 * (size_t)v;
        y[0] = x[0] + t * sinf(x[1] * 1.7f);
        y[1] = x[1] * (1 + 0.3f * t);
        y[2] = x[2] + t * cosf(x[0] * 2.3f + x[1]);
    }
}

/* A plan on ctx for m; evaluates two deformations (the second into other buffers, so a CUDA
 * plan makes a second graph) and compares each with mmx_subdivide of the moved mesh on the
 * host's algebraic path. */
static void check_plan(mmx_ctx *ctx, mmx_ctx *host, mmx_scheme scheme, mmx_mesh *m, int levels,
                       const char *what)
{
    const mmx_space sp = mmx_ctx_space(ctx);
    mmx_mesh *in = m;
    if (sp != MMX_SPACE_HOST) MMX_OK_OR_FAIL(ctx, mmx_mesh_copy(ctx, m, sp, &in));
    mmx_subdiv_plan *plan = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_subdiv_plan_create(ctx, scheme, in, levels, NULL, &plan));
    mmx_index cnv = 0, nv = 0, nf = 0;
    mmx_subdiv_plan_sizes(plan, &cnv, &nv, &nf);
    cr_assert_eq(cnv, m->M->nrows);
    /* The plan's own result is the subdivision of the control mesh. */
    mmx_mesh *ref0 = refine(host, scheme, m, levels, MMX_SUBDIV_PATH_ALGEBRAIC);
    mmx_mesh *pm = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_subdiv_plan_mesh(plan, NULL, &pm));
    mmx_mesh *hpm = to_host(ctx, pm);
    char label[160];
    snprintf(label, sizeof label, "%s, %s plan (%s)", what, mmx_scheme_name(scheme),
             sp == MMX_SPACE_HOST ? "host" : "CUDA");
    same(hpm, ref0, label);
    cr_assert_eq(nv, ref0->M->nrows);
    cr_assert_eq(nf, ref0->M->ncols);
    const size_t cbytes = sizeof(float) * 3 * (size_t)cnv, bytes = sizeof(float) * 3 * (size_t)nv;
    float *hc = malloc(cbytes), *hout = malloc(bytes);
    cr_assert(hc && hout);
    for (int round = 1; round <= 2; round++) {
        deform(m->pos, cnv, 0.2f * (float)round, hc);
        float *dc = NULL, *dout = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_mem_alloc(ctx, sp, cbytes, (void **)&dc));
        MMX_OK_OR_FAIL(ctx, mmx_mem_alloc(ctx, sp, bytes, (void **)&dout));
        MMX_OK_OR_FAIL(ctx, mmx_mem_copy(ctx, dc, sp, hc, MMX_SPACE_HOST, cbytes));
        for (int rep = 0; rep < 2; rep++) /* the replayed graph gives the same again */
            MMX_OK_OR_FAIL(ctx, mmx_subdiv_plan_eval(plan, dc, dout));
        MMX_OK_OR_FAIL(ctx, mmx_ctx_sync(ctx));
        MMX_OK_OR_FAIL(ctx, mmx_mem_copy(ctx, hout, MMX_SPACE_HOST, dout, sp, bytes));
        /* The reference: the moved control mesh subdivided from scratch. */
        mmx_mesh *moved = NULL;
        MMX_OK_OR_FAIL(host, mmx_mesh_copy(host, m, MMX_SPACE_HOST, &moved));
        memcpy(moved->pos, hc, cbytes);
        mmx_mesh *ref = refine(host, scheme, moved, levels, MMX_SUBDIV_PATH_ALGEBRAIC);
        mmx_mesh *got = NULL;
        MMX_OK_OR_FAIL(host, mmx_mesh_copy(host, ref, MMX_SPACE_HOST, &got));
        memcpy(got->pos, hout, bytes);
        snprintf(label, sizeof label, "%s, %s plan, deformation %d (%s)", what,
                 mmx_scheme_name(scheme), round, sp == MMX_SPACE_HOST ? "host" : "CUDA");
        same(got, ref, label);
        mmx_mesh_free(got);
        mmx_mesh_free(ref);
        mmx_mesh_free(moved);
        mmx_mem_free(ctx, sp, dc);
        mmx_mem_free(ctx, sp, dout);
    }
    free(hc);
    free(hout);
    mmx_mesh_free(hpm);
    mmx_mesh_free(pm);
    mmx_mesh_free(ref0);
    mmx_subdiv_plan_free(plan);
    if (in != m) mmx_mesh_free(in);
    mmx_mesh_free(m);
}

static void plans(mmx_ctx *ctx, mmx_ctx *host)
{
    check_plan(ctx, host, CC, shape(host, "mixed"), 3, "mixed");
    check_plan(ctx, host, CC, shape(host, "torus:10:6"), 3, "torus");
    check_plan(ctx, host, LOOP, tri_grid(host, 6, 5), 3, "triangulated grid");
    check_plan(ctx, host, LOOP, shape(host, "icosphere:1"), 3, "icosphere");
    check_plan(ctx, host, SQRT3, shuffled(host, bipyramid(host, 20), 3), 3, "shuffled bipyramid");
    /* sqrt3 with boundary: odd generations cut the boundary edges (Kobbelt's rule). */
    check_plan(ctx, host, SQRT3, tri_grid(host, 6, 5), 4, "open triangulated grid");
    check_plan(ctx, host, SQRT3, shuffled(host, fan(host, 6), 5), 3, "shuffled fan");
    /* Corner tags: infinitely sharp, semi-sharp (decaying over the levels), below 1. */
    check_plan(ctx, host, CC, with_tags(shape(host, "cube"), "t corner 3/3/0 0 3 5 10 2.5 0.5\n"), 3,
               "cube with corners");
    /* Creased levels: the re-evaluation reads each level's edge sharpness. */
    check_plan(ctx, host, CC, with_creases(shape(host, "mixed"), 2, NULL), 4, "mixed with creases");
    check_plan(ctx, host, LOOP, with_creases(shape(host, "icosphere:1"), 2, "t creasemethod 0/0/1 chaikin\n"),
               3, "icosphere with creases, Chaikin");
    static const float p5[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, -1, 0, -1, 0, 0.5f};
    static const int bowtie[] = {0, 1, 2, -1, 0, 3, 4, -1};
    check_plan(ctx, host, CC, from_lists(host, 5, p5, bowtie, 8), 3, "bowtie");
}

Test(fused, plan_eval, .description = "a plan's re-evaluation = subdividing the moved mesh (host)")
{
    mmx_ctx *host = tu_host_ctx();
    plans(host, host);
    mmx_ctx_free(host);
}

Test(fused, plan_refusals, .description = "plans refuse what mmx_subdivide refuses, and bad arguments")
{
    mmx_ctx *host = tu_host_ctx();
    mmx_subdiv_plan *plan = (mmx_subdiv_plan *)&plan;
    mmx_mesh *cube = shape(host, "cube"), *tet = shape(host, "tetrahedron");
    cr_assert_eq(mmx_subdiv_plan_create(host, CC, cube, 0, NULL, &plan), MMX_ERR_ARG);
    cr_assert_null(plan);
    cr_assert(strstr(mmx_ctx_error(host), "levels is 0"), "%s", mmx_ctx_error(host));
    cr_assert_eq(mmx_subdiv_plan_create(host, LOOP, cube, 1, NULL, &plan), MMX_ERR_MESH);
    cr_assert(strstr(mmx_ctx_error(host), "face 0 has 4 vertices"), "%s", mmx_ctx_error(host));
    cr_assert_eq(mmx_subdiv_plan_create(host, CC, NULL, 1, NULL, &plan), MMX_ERR_ARG);
    cr_assert_eq(mmx_subdiv_plan_create(host, CC, cube, 1, NULL, NULL), MMX_ERR_ARG);
    mmx_subdiv_options o = {0};
    o.path = (mmx_subdiv_path)7;
    cr_assert_eq(mmx_subdiv_plan_create(host, CC, cube, 1, &o, &plan), MMX_ERR_ARG);
    cr_assert(strstr(mmx_ctx_error(host), "unknown path 7"), "%s", mmx_ctx_error(host));
    /* A plan asked for the algebraic path still runs the fused one (subdiv.h). */
    o.path = MMX_SUBDIV_PATH_ALGEBRAIC;
    MMX_OK_OR_FAIL(host, mmx_subdiv_plan_create(host, CC, cube, 1, &o, &plan));
    mmx_subdiv_plan_free(plan);
    plan = NULL;
    MMX_OK_OR_FAIL(host, mmx_subdiv_plan_create(host, SQRT3, tet, 2, NULL, &plan));
    float out[3];
    cr_assert_eq(mmx_subdiv_plan_eval(plan, NULL, out), MMX_ERR_ARG);
    cr_assert_eq(mmx_subdiv_plan_eval(plan, tet->pos, NULL), MMX_ERR_ARG);
    cr_assert_eq(mmx_subdiv_plan_mesh(plan, NULL, NULL), MMX_ERR_ARG);
    /* One frame: a pair half given, nothing given, coordinates the plan has not. */
    cr_assert_eq(mmx_subdiv_plan_eval_frame(plan, tet->pos, NULL, NULL, NULL), MMX_ERR_ARG);
    cr_assert(strstr(mmx_ctx_error(host), "pos is NULL and control_pos is not"), "%s", mmx_ctx_error(host));
    cr_assert_eq(mmx_subdiv_plan_eval_frame(plan, NULL, NULL, NULL, NULL), MMX_ERR_ARG);
    cr_assert_eq(mmx_subdiv_plan_eval_frame(plan, NULL, NULL, out, out), MMX_ERR_UNSUPPORTED);
    mmx_subdiv_plan_free(plan);
    mmx_subdiv_plan_free(NULL);
    mmx_mesh_free(cube);
    mmx_mesh_free(tet);
    mmx_ctx_free(host);
}

/* ---- CUDA ------------------------------------------------------------------------------------ */

Test(fused, gpu_matches_algebraic, .description = "fused on CUDA = algebraic on the host, every scheme")
{
    mmx_ctx *gpu = tu_cuda_ctx_or_skip();
    mmx_ctx *host = tu_host_ctx();
    cc_meshes(gpu, host);
    bilinear_meshes(gpu, host);
    corner_meshes(gpu, host);
    crease_meshes(gpu, host);
    fan_meshes(gpu, host);
    loop_meshes(gpu, host);
    sqrt3_meshes(gpu, host);
    refusals(gpu, host, 0);
    refusals(gpu, host, 1);
    mmx_ctx_free(host);
    mmx_ctx_free(gpu);
}

Test(fused, gpu_plan_eval, .description = "a CUDA plan's re-evaluation (graph replays) = subdividing the moved mesh")
{
    mmx_ctx *gpu = tu_cuda_ctx_or_skip();
    mmx_ctx *host = tu_host_ctx();
    plans(gpu, host);
    mmx_ctx_free(host);
    mmx_ctx_free(gpu);
}

/* A CUDA plan's evaluation is one graph launch (the passes, the limit, the holes' gather; the
 * texture coordinates' likewise, and both in one frame), made on the first call and updated
 * when the arrays change: its bytes are those of the same work queued without a graph (a plan
 * made with MMX_SUBDIV_PLAN_NO_GRAPH), whichever buffers it is given, and no evaluation waits;
 * and it gives mmx_subdivide's result on CUDA (positions within 1e-6 of the diagonal). */
static void graph_case(mmx_ctx *gpu, mmx_scheme scheme, mmx_mesh *m, int levels, int limit,
                       const char *what)
{
    mmx_mesh *d = NULL;
    MMX_OK_OR_FAIL(gpu, mmx_mesh_copy(gpu, m, MMX_SPACE_DEVICE, &d));
    mmx_subdiv_options o = {0};
    o.limit = limit;
    mmx_subdiv_plan *g = NULL, *n = NULL;
    cr_assert_eq(unsetenv("MMX_SUBDIV_PLAN_NO_GRAPH"), 0);
    MMX_OK_OR_FAIL(gpu, mmx_subdiv_plan_create(gpu, scheme, d, levels, &o, &g));
    cr_assert_eq(setenv("MMX_SUBDIV_PLAN_NO_GRAPH", "1", 1), 0);
    MMX_OK_OR_FAIL(gpu, mmx_subdiv_plan_create(gpu, scheme, d, levels, &o, &n));
    cr_assert_eq(unsetenv("MMX_SUBDIV_PLAN_NO_GRAPH"), 0);
    mmx_index cnv = 0, nv = 0;
    mmx_subdiv_plan_sizes(g, &cnv, &nv, NULL);
    const mmx_index nuv = m->uv ? m->uv->nvalues : 0, nuv_out = mmx_subdiv_plan_uv_count(g);
    /* Two deformations (A, B), each in its own buffers: position then coordinate arrays. */
    const size_t cb = 3 * (size_t)cnv * sizeof(float), ob = 3 * (size_t)nv * sizeof(float);
    const size_t ucb = 2 * (size_t)nuv * sizeof(float), uob = 2 * (size_t)nuv_out * sizeof(float);
    float *hc = malloc(cb + ucb + 8), *hA = malloc(ob + uob + 8), *hB = malloc(ob + uob + 8);
    cr_assert(hc && hA && hB);
    float *ctl[2], *out[4], *uctl[2] = {NULL, NULL}, *uout[4] = {NULL, NULL, NULL, NULL};
    for (int k = 0; k < 2; k++) {
        deform(m->pos, cnv, 0.15f * (float)(k + 1), hc);
        for (mmx_index i = 0; i < 2 * nuv; i++) hc[3 * (size_t)cnv + i] = m->uv->values[i] * (1.0f + 0.1f * (float)k);
        MMX_OK_OR_FAIL(gpu, mmx_mem_alloc(gpu, MMX_SPACE_DEVICE, cb, (void **)&ctl[k]));
        MMX_OK_OR_FAIL(gpu, mmx_mem_copy(gpu, ctl[k], MMX_SPACE_DEVICE, hc, MMX_SPACE_HOST, cb));
        if (nuv_out) {
            MMX_OK_OR_FAIL(gpu, mmx_mem_alloc(gpu, MMX_SPACE_DEVICE, ucb, (void **)&uctl[k]));
            MMX_OK_OR_FAIL(gpu, mmx_mem_copy(gpu, uctl[k], MMX_SPACE_DEVICE, hc + 3 * (size_t)cnv,
                                             MMX_SPACE_HOST, ucb));
        }
    }
    for (int k = 0; k < 4; k++) {
        MMX_OK_OR_FAIL(gpu, mmx_mem_alloc(gpu, MMX_SPACE_DEVICE, ob, (void **)&out[k]));
        if (nuv_out) MMX_OK_OR_FAIL(gpu, mmx_mem_alloc(gpu, MMX_SPACE_DEVICE, uob, (void **)&uout[k]));
    }
    MMX_OK_OR_FAIL(gpu, mmx_ctx_sync(gpu));
    const unsigned long long w0 = mmx__ctx_syncs(gpu);
    /* The graph plan: A, B (new arrays: the graph updated), A again into A's buffers (updated
     * back), replayed once more; the plain one: A and B. */
    for (int rep = 0; rep < 2; rep++) {
        MMX_OK_OR_FAIL(gpu, mmx_subdiv_plan_eval(g, ctl[0], out[0]));
        MMX_OK_OR_FAIL(gpu, mmx_subdiv_plan_eval(g, ctl[1], out[1]));
        if (nuv_out) {
            MMX_OK_OR_FAIL(gpu, mmx_subdiv_plan_eval_uv(g, uctl[0], uout[0]));
            MMX_OK_OR_FAIL(gpu, mmx_subdiv_plan_eval_uv(g, uctl[1], uout[1]));
        }
    }
    MMX_OK_OR_FAIL(gpu, mmx_subdiv_plan_eval(n, ctl[0], out[2]));
    MMX_OK_OR_FAIL(gpu, mmx_subdiv_plan_eval(n, ctl[1], out[3]));
    if (nuv_out) {
        MMX_OK_OR_FAIL(gpu, mmx_subdiv_plan_eval_uv(n, uctl[0], uout[2]));
        MMX_OK_OR_FAIL(gpu, mmx_subdiv_plan_eval_uv(n, uctl[1], uout[3]));
    }
    cr_assert_eq(mmx__ctx_syncs(gpu), w0, "%s: an evaluation waited (%llu waits)", what,
                 mmx__ctx_syncs(gpu) - w0);
    for (int k = 0; k < 2; k++) {
        MMX_OK_OR_FAIL(gpu, mmx_mem_copy(gpu, hA, MMX_SPACE_HOST, out[k], MMX_SPACE_DEVICE, ob));
        MMX_OK_OR_FAIL(gpu, mmx_mem_copy(gpu, hB, MMX_SPACE_HOST, out[k + 2], MMX_SPACE_DEVICE, ob));
        cr_assert_eq(memcmp(hA, hB, ob), 0, "%s: deformation %d, the graph's positions differ "
                     "from the plain queue's", what, k);
        if (nuv_out) {
            MMX_OK_OR_FAIL(gpu, mmx_mem_copy(gpu, hA, MMX_SPACE_HOST, uout[k], MMX_SPACE_DEVICE, uob));
            MMX_OK_OR_FAIL(gpu, mmx_mem_copy(gpu, hB, MMX_SPACE_HOST, uout[k + 2], MMX_SPACE_DEVICE, uob));
            cr_assert_eq(memcmp(hA, hB, uob), 0, "%s: deformation %d, texture coordinates", what, k);
        }
    }
    /* The two deformations give two results (the update took the new arrays). */
    MMX_OK_OR_FAIL(gpu, mmx_mem_copy(gpu, hA, MMX_SPACE_HOST, out[0], MMX_SPACE_DEVICE, ob));
    MMX_OK_OR_FAIL(gpu, mmx_mem_copy(gpu, hB, MMX_SPACE_HOST, out[1], MMX_SPACE_DEVICE, ob));
    cr_assert_neq(memcmp(hA, hB, ob), 0, "%s: both deformations gave the same positions", what);
    /* One frame of both channels (one graph launch): the bytes of the two calls. */
    if (nuv_out) {
        MMX_OK_OR_FAIL(gpu, mmx_subdiv_plan_eval_frame(g, ctl[1], out[2], uctl[1], uout[2]));
        MMX_OK_OR_FAIL(gpu, mmx_subdiv_plan_eval_frame(g, ctl[1], out[2], uctl[1], uout[2]));
        MMX_OK_OR_FAIL(gpu, mmx_mem_copy(gpu, hA, MMX_SPACE_HOST, out[2], MMX_SPACE_DEVICE, ob));
        MMX_OK_OR_FAIL(gpu, mmx_mem_copy(gpu, hB, MMX_SPACE_HOST, out[1], MMX_SPACE_DEVICE, ob));
        cr_assert_eq(memcmp(hA, hB, ob), 0, "%s: one frame's positions", what);
        MMX_OK_OR_FAIL(gpu, mmx_mem_copy(gpu, hA, MMX_SPACE_HOST, uout[2], MMX_SPACE_DEVICE, uob));
        MMX_OK_OR_FAIL(gpu, mmx_mem_copy(gpu, hB, MMX_SPACE_HOST, uout[1], MMX_SPACE_DEVICE, uob));
        cr_assert_eq(memcmp(hA, hB, uob), 0, "%s: one frame's texture coordinates", what);
    }
    /* The plan's evaluation of the control mesh = mmx_subdivide on CUDA with the options. */
    mmx_mesh *direct = NULL, *hd = NULL;
    MMX_OK_OR_FAIL(gpu, mmx_subdivide(gpu, scheme, d, levels, &o, &direct));
    MMX_OK_OR_FAIL(gpu, mmx_mesh_copy(gpu, direct, MMX_SPACE_HOST, &hd));
    cr_assert_eq(hd->M->nrows, nv, "%s: %d vertices, the direct call %d", what, nv, hd->M->nrows);
    MMX_OK_OR_FAIL(gpu, mmx_subdiv_plan_eval(g, d->pos, out[2]));
    MMX_OK_OR_FAIL(gpu, mmx_mem_copy(gpu, hA, MMX_SPACE_HOST, out[2], MMX_SPACE_DEVICE, ob));
    const double diag = mesh_diagonal(hd);
    for (size_t i = 0; i < 3 * (size_t)nv; i++)
        cr_assert(fabs((double)hA[i] - hd->pos[i]) <= 1e-6 * diag, "%s: coordinate %zu is %g, the "
                  "direct call's on CUDA %g", what, i, (double)hA[i], (double)hd->pos[i]);
    if (nuv_out) {
        cr_assert_not_null(hd->uv);
        cr_assert_eq(hd->uv->nvalues, nuv_out, "%s: texture coordinates", what);
        /* The control coordinates in device memory, as eval_uv takes them on CUDA: uctl[0]
         * (deformation 0 scales them by 1.0f, exactly). Not d->uv->values: a device copy of
         * a host mesh keeps its coordinates in host memory (mesh.h), which the widening
         * product's kernel read out of bounds (issue 30, compute-sanitizer on the H200). */
        MMX_OK_OR_FAIL(gpu, mmx_subdiv_plan_eval_uv(g, uctl[0], uout[2]));
        MMX_OK_OR_FAIL(gpu, mmx_mem_copy(gpu, hA, MMX_SPACE_HOST, uout[2], MMX_SPACE_DEVICE, uob));
        for (mmx_index i = 0; i < 2 * nuv_out; i++)
            cr_assert(fabsf(hA[i] - hd->uv->values[i]) <= 1e-6f, "%s: texture coordinate %d", what, i);
    }
    mmx_mesh_free(hd);
    mmx_mesh_free(direct);
    for (int k = 0; k < 4; k++) {
        mmx_mem_free(gpu, MMX_SPACE_DEVICE, out[k]);
        if (uout[k]) mmx_mem_free(gpu, MMX_SPACE_DEVICE, uout[k]);
    }
    for (int k = 0; k < 2; k++) {
        mmx_mem_free(gpu, MMX_SPACE_DEVICE, ctl[k]);
        if (uctl[k]) mmx_mem_free(gpu, MMX_SPACE_DEVICE, uctl[k]);
    }
    free(hc), free(hA), free(hB);
    mmx_subdiv_plan_free(g);
    mmx_subdiv_plan_free(n);
    mmx_mesh_free(d);
    mmx_mesh_free(m);
}

Test(fused, gpu_plan_graph, .description = "a CUDA plan's graph gives the bytes of its work queued without one, whatever the buffers, and never waits")
{
    mmx_ctx *gpu = tu_cuda_ctx_or_skip();
    mmx_ctx *host = tu_host_ctx();
    graph_case(gpu, CC, shape(host, "torus:10:6"), 3, 0, "torus");
    graph_case(gpu, CC, with_creases(shape(host, "mixed"), 2, NULL), 3, 1, "mixed, creases, limit");
    graph_case(gpu, CC, with_creases(with_tags(shape(host, "torus:8:6"), "t hole 2/0/0 5 20\n"), 3, NULL),
               2, 1, "torus, holes, creases, limit");
    graph_case(gpu, LOOP, with_creases(shape(host, "icosphere:1"), 2, NULL), 3, 1, "icosphere, creases, limit");
    graph_case(gpu, CC, with_tags(shape(host, "cube"), "t corner 3/3/0 0 3 5 10 2.5 0.5\n"), 3, 1,
               "cube, corners, limit");
    graph_case(gpu, SQRT3, tri_grid(host, 6, 5), 4, 0, "sqrt3, open grid");
    graph_case(gpu, CC, with_tags(read_data(host, "textured.obj"), "t crease 2/1/0 1 2 2\n"), 2, 0,
               "textured, crease");
    mmx_ctx_free(host);
    mmx_ctx_free(gpu);
}

/* ---- faults as data ---------------------------------------------------------------------------- */

/* The fused input level's checks give a fault record (kind and element), not an error code, and
 * the same record on both backends: an edge run the same way by its two faces, a vertex whose
 * faces form two fans, and a Loop pillow. */
static void input_faults(mmx_ctx *ctx, mmx_ctx *host)
{
    static const float pos[5 * 3] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1};
    static const int same_way[] = {0, 1, 2, -1, 0, 1, 3, -1};  /* (0,1,2), (0,1,3) */
    static const int bowtie[] = {0, 1, 2, -1, 0, 3, 4, -1};    /* two triangles on vertex 0 */
    static const int two_sided[] = {0, 1, 2, -1, 2, 1, 0, -1}; /* a pillow */
    const struct {
        const int *lists;
        mmx_scheme scheme;
        mmx__fault want;
    } cases[] = {
        {same_way, MMX_SCHEME_CATMULL_CLARK, {MMX__FAULT_HALFEDGE_TWICE, 0}},
        {bowtie, MMX_SCHEME_LOOP, {MMX__FAULT_FANS, 0}},
        {two_sided, MMX_SCHEME_LOOP, {MMX__FAULT_TRIANGLE_PAIR, 0}},
        {two_sided, MMX_SCHEME_CATMULL_CLARK, {MMX__FAULT_NONE, 0}}, /* CC refines pillows */
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        mmx_mesh *h = from_lists(host, 5, pos, cases[k].lists, 8), *m = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_mesh_copy(ctx, h, mmx_ctx_space(ctx), &m));
        mmx_adjacency *adj = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_adjacency_compute(ctx, m, &adj));
        mmx__fz_level L;
        mmx__fault got = {(mmx__fault_kind)99, -1};
        MMX_OK_OR_FAIL(ctx, mmx__fz_input(ctx, cases[k].scheme, m, adj, MMX__FZ_BORROW, 0, &L, &got));
        cr_assert_eq(got.kind, cases[k].want.kind, "case %zu: fault kind %d", k, (int)got.kind);
        cr_assert_eq(got.element, cases[k].want.element, "case %zu: element %d", k, got.element);
        if (!got.kind) mmx__fz_level_free(ctx, &L);
        mmx_adjacency_free(adj);
        mmx_mesh_free(m);
        mmx_mesh_free(h);
    }
}

Test(fused, input_faults_are_data, .description = "the input level's checks give a fault record (host)")
{
    mmx_ctx *host = tu_host_ctx();
    input_faults(host, host);
    mmx_ctx_free(host);
}

Test(fused, gpu_input_faults_are_data, .description = "the same fault records on CUDA")
{
    mmx_ctx *gpu = tu_cuda_ctx_or_skip();
    mmx_ctx *host = tu_host_ctx();
    input_faults(gpu, host);
    mmx_ctx_free(host);
    mmx_ctx_free(gpu);
}
