/* The dynamic module and its invariants: mmx_mesh_validate on good and bad meshes (the
 * violation named), one round of the cavity operator (independence and maximality of the kept
 * cavities, stable face ids, refusals), and Delaunay flips checked round by round by the
 * validator and at the end by a plain host statement of the Delaunay bound. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#include "dynamic/dynamic_internal.h" /* the topology update, checked against a rebuild */
#include "dynamic/sc_step.h"           /* the shared split and collapse steps */
#include "dynamic/vremove_step.h"      /* the vertex removal's choice of u */

#define PI 3.14159265358979323846

/* A triangulated (nx x ny)-cell grid in the plane z = 0, every cell cut by the same diagonal,
 * its inner vertices jittered by up to +-0.35 of a cell: many edges start non-Delaunay. */
static mmx_mesh *jittered_grid(mmx_ctx *ctx, int nx, int ny, uint32_t seed)
{
    return tu_jittered_grid_of(ctx, nx, ny, 0.7f, 0, seed);
}

/* icosphere:3 with every vertex moved along the sphere and radially. */
static mmx_mesh *noisy_icosphere(mmx_ctx *ctx, uint32_t seed)
{
    mmx_mesh *ico = tu_shape(ctx, "icosphere:3");
    const mmx_index nv = mmx_mesh_nverts(ico), nf = mmx_mesh_nfaces(ico);
    float *pos = malloc(3 * (size_t)nv * sizeof *pos);
    cr_assert(pos);
    memcpy(pos, ico->pos, 3 * (size_t)nv * sizeof *pos);
    for (mmx_index i = 0; i < nv; i++) {
        /* A move of up to +-0.05 per coordinate (a third of an edge) along the sphere, then
         * back to a radius of 1 +- 3%. */
        float *p = pos + 3 * (size_t)i, len = 0;
        for (int k = 0; k < 3; k++) {
            p[k] += 0.1f * ((float)(tu_rng(&seed) % 1000) / 1000.0f - 0.5f);
            len += p[k] * p[k];
        }
        const float s = (1.0f + 0.06f * ((float)(tu_rng(&seed) % 1000) / 1000.0f - 0.5f)) / sqrtf(len);
        for (int k = 0; k < 3; k++) p[k] *= s;
    }
    mmx_mesh *m = tu_triangles(ctx, nv, nf, ico->M->rowidx, pos);
    free(pos);
    mmx_mesh_free(ico);
    return m;
}

/* ---- the validator ------------------------------------------------------------------------ */

static void expect_valid(const char *spec, int64_t euler, mmx_index loops)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = tu_shape(ctx, spec);
    mmx_mesh_validation r;
    const mmx_mesh_expect x = {1, euler, 1, loops};
    MMX_OK_OR_FAIL(ctx, mmx_mesh_validate(ctx, m, &x, &r));
    cr_assert(r.valid && r.problem[0] == '\0' && r.positions_checked, "%s: %s", spec, r.problem);
    cr_assert_eq(r.stats.euler, euler);
    cr_assert_eq(r.stats.boundary_loops, loops);
    cr_assert_eq(r.degenerate_faces, 0);
    cr_assert_eq(r.first_degenerate_face, -1);
    /* A wrong expectation is named, and refused only when enforced. */
    const mmx_mesh_expect wrong = {1, euler + 2, 0, 0};
    cr_assert_eq(mmx_mesh_validate(ctx, m, &wrong, &r), MMX_ERR_MESH);
    cr_assert(!r.valid && strstr(r.problem, "Euler characteristic"), "%s", r.problem);
    cr_assert(strstr(mmx_ctx_error(ctx), "Euler characteristic"), "%s", mmx_ctx_error(ctx));
    const mmx_mesh_expect wrong_loops = {0, 0, 1, loops + 1};
    cr_assert_eq(mmx_mesh_validate(ctx, m, &wrong_loops, &r), MMX_ERR_MESH);
    cr_assert(strstr(r.problem, "boundary loops"), "%s", r.problem);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(validate, icosphere) { expect_valid("icosphere:3", 2, 0); }
Test(validate, torus) { expect_valid("torus:8:6", 0, 0); }
Test(validate, grid) { expect_valid("grid:6:5", 1, 1); }

/* Checks that `verts` (nf triangles on nv vertices) is reported invalid, `what` in the
 * problem; and refused with MMX_ERR_MESH naming it when enforced. */
static void expect_invalid(mmx_index nv, mmx_index nf, const mmx_index *verts, const float *pos,
                           const char *what)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = tu_triangles(ctx, nv, nf, verts, pos);
    mmx_mesh_validation r;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_validate(ctx, m, NULL, &r));
    cr_assert(!r.valid && strstr(r.problem, what), "wanted '%s', got '%s'", what, r.problem);
    const mmx_mesh_expect none = {0, 0, 0, 0};
    cr_assert_eq(mmx_mesh_validate(ctx, m, &none, &r), MMX_ERR_MESH);
    cr_assert(strstr(mmx_ctx_error(ctx), what), "%s", mmx_ctx_error(ctx));
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

static const float five[15] = {0, 0, 0, 1, 0, 0, 0, 1, 0, -1, 0, 0, 0, -1, 0};

Test(validate, bowtie_names_the_vertex)
{
    const mmx_index v[6] = {0, 1, 2, 0, 3, 4}; /* two triangles touching at vertex 0 */
    expect_invalid(5, 2, v, five, "vertex 0 is non-manifold");
}

Test(validate, inconsistent_pair_names_the_edge)
{
    const mmx_index v[6] = {0, 1, 2, 0, 1, 4}; /* both run 0 -> 1 */
    expect_invalid(5, 2, v, five, "edge 0-1");
}

Test(validate, repeated_face_names_the_pair)
{
    const mmx_index v[6] = {0, 1, 2, 0, 2, 1}; /* a pillow: consistent, but face 1 repeats 0 */
    expect_invalid(3, 2, v, five, "face 1 repeats face 0");
}

Test(validate, degenerate_face_is_named)
{
    const float pos[12] = {0, 0, 0, 1, 0, 0, 2, 0, 0, 1, 1, 0};
    const mmx_index v[6] = {0, 3, 2, 2, 1, 0}; /* face 1 is collinear */
    expect_invalid(4, 2, v, pos, "face 1 is degenerate");
}

Test(validate, null_arguments)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh_validation r;
    cr_assert_eq(mmx_mesh_validate(ctx, NULL, NULL, &r), MMX_ERR_ARG);
    mmx_ctx_free(ctx);
}

Test(validate, cuda_mesh)
{
    mmx_ctx *cu = tu_cuda_ctx_or_skip();
    mmx_mesh *m = tu_shape(cu, "torus:8:6");
    mmx_mesh_validation r;
    const mmx_mesh_expect x = {1, 0, 1, 0};
    MMX_OK_OR_FAIL(cu, mmx_mesh_validate(cu, m, &x, &r));
    cr_assert(r.valid && r.positions_checked);
    mmx_mesh_free(m);
    mmx_ctx_free(cu);
}

/* ---- one round of the cavity operator ----------------------------------------------------- */

static int shares(const mmx_cavity_seed *x, const mmx_cavity_seed *y)
{
    return x->faces[0] == y->faces[0] || x->faces[0] == y->faces[1] ||
           x->faces[1] == y->faces[0] || x->faces[1] == y->faces[1] ||
           (x->new_edge[0] == y->new_edge[0] && x->new_edge[1] == y->new_edge[1]);
}

Test(cavity, round_is_independent_and_maximal)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = jittered_grid(ctx, 12, 10, 7);
    mmx_adjacency *adj = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_adjacency_compute(ctx, m, &adj));
    /* Every edge, boundary ones included, and one twice. */
    const mmx_index n = adj->nedges + 1;
    mmx_index *seeds = malloc((size_t)n * sizeof *seeds);
    mmx_cavity_seed *sd = malloc((size_t)n * sizeof *sd);
    cr_assert(seeds && sd);
    for (mmx_index e = 0; e < adj->nedges; e++) seeds[e] = adj->nedges - 1 - e;
    seeds[n - 1] = seeds[n / 2];
    mmx_mesh *out = NULL;
    mmx_cavity_counts c;
    MMX_OK_OR_FAIL(ctx, mmx_cavity_round(ctx, m, MMX_CAVITY_EDGE_FLIP, seeds, n, 3, &out, &c, sd));
    cr_assert_eq(c.proposed, n);
    cr_assert_eq(c.kept + c.invalid + c.conflicts, n);
    cr_assert(c.kept > 0 && c.conflicts > 0 && c.invalid >= adj->boundary_edges);
    mmx_index kept = 0;
    for (mmx_index i = 0; i < n; i++) {
        cr_assert_eq(sd[i].priority, mmx_cavity_priority(seeds[i], 3));
        if (adj->sides[seeds[i]] == 1) cr_assert_eq(sd[i].outcome, MMX_CAVITY_INVALID);
        if (sd[i].outcome == MMX_CAVITY_KEPT) {
            kept++;
            for (mmx_index j = i + 1; j < n; j++) /* independence */
                if (sd[j].outcome == MMX_CAVITY_KEPT)
                    cr_assert(!shares(&sd[i], &sd[j]), "seeds %d and %d overlap", i, j);
        } else if (sd[i].outcome == MMX_CAVITY_CONFLICT) {
            int beaten = 0; /* maximality: a kept cavity of a smaller key blocks it */
            for (mmx_index j = 0; j < n && !beaten; j++)
                beaten = sd[j].outcome == MMX_CAVITY_KEPT && shares(&sd[i], &sd[j]) &&
                         (sd[j].priority < sd[i].priority ||
                          (sd[j].priority == sd[i].priority && j < i));
            cr_assert(beaten, "seed %d dropped with no kept cavity of a smaller key beside it", i);
        }
    }
    cr_assert_eq(kept, c.kept);
    cr_assert_eq(sd[n - 1].outcome == MMX_CAVITY_KEPT, 0, "a repeated seed is kept once");
    /* Faces outside the kept cavities keep their ids and vertices; the result is valid. */
    unsigned char *touched = calloc((size_t)mmx_mesh_nfaces(m), 1);
    cr_assert(touched);
    for (mmx_index i = 0; i < n; i++)
        if (sd[i].outcome == MMX_CAVITY_KEPT) touched[sd[i].faces[0]] = touched[sd[i].faces[1]] = 1;
    cr_assert_eq(mmx_mesh_nfaces(out), mmx_mesh_nfaces(m));
    cr_assert(out->M->order == 3);
    for (mmx_index f = 0; f < mmx_mesh_nfaces(m); f++)
        cr_assert_eq(memcmp(out->M->rowidx + 3 * f, m->M->rowidx + 3 * f, 3 * sizeof(mmx_index)) == 0,
                     !touched[f], "face %d", f);
    mmx_mesh_validation r;
    const mmx_mesh_expect x = {1, 1, 1, 1};
    MMX_OK_OR_FAIL(ctx, mmx_mesh_validate(ctx, out, &x, &r));
    free(touched);
    free(seeds);
    free(sd);
    mmx_mesh_free(out);
    mmx_adjacency_free(adj);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(cavity, refusals)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *quads = tu_shape(ctx, "torus:8:6"), *tri = tu_shape(ctx, "icosphere:1"), *out = NULL;
    const mmx_index seed = 0, far = 1000000;
    cr_assert_eq(mmx_cavity_round(ctx, quads, MMX_CAVITY_EDGE_FLIP, &seed, 1, 0, &out, NULL, NULL),
                 MMX_ERR_MESH);
    cr_assert(strstr(mmx_ctx_error(ctx), "face 0 has 4 vertices"), "%s", mmx_ctx_error(ctx));
    cr_assert_eq(mmx_cavity_round(ctx, tri, MMX_CAVITY_EDGE_FLIP, &far, 1, 0, &out, NULL, NULL),
                 MMX_ERR_ARG);
    cr_assert(strstr(mmx_ctx_error(ctx), "edge 1000000"), "%s", mmx_ctx_error(ctx));
    cr_assert_eq(mmx_cavity_round(ctx, tri, (mmx_cavity_kind)7, &seed, 1, 0, &out, NULL, NULL),
                 MMX_ERR_UNSUPPORTED);
    cr_assert_null(out);
    mmx_mesh_free(quads);
    mmx_mesh_free(tri);
    mmx_ctx_free(ctx);
}

/* On CUDA every template takes a device mesh only and names a bad seed or face, as the host
 * does (the GPU tests below check the rounds themselves). */
Test(cavity, cuda_template_refusals)
{
    mmx_ctx *cu = tu_cuda_ctx_or_skip();
    mmx_mesh *m = tu_shape(cu, "icosphere:1"), *quads = tu_shape(cu, "torus:8:6"), *out = NULL;
    const mmx_index seed = 0, far = 1000000;
    const float target[3] = {0, 0, 0};
    cr_assert_eq(mmx_cavity_face_split_round(cu, m, &far, 1, 0, &out, NULL, NULL), MMX_ERR_ARG);
    cr_assert(strstr(mmx_ctx_error(cu), "face 1000000"), "%s", mmx_ctx_error(cu));
    cr_assert_eq(mmx_cavity_relocate_round(cu, m, &far, target, 1, 0, &out, NULL, NULL),
                 MMX_ERR_ARG);
    cr_assert(strstr(mmx_ctx_error(cu), "vertex 1000000"), "%s", mmx_ctx_error(cu));
    cr_assert_eq(mmx_cavity_face_split_round(cu, quads, &seed, 1, 0, &out, NULL, NULL),
                 MMX_ERR_MESH);
    cr_assert(strstr(mmx_ctx_error(cu), "face 0 has 4 vertices"), "%s", mmx_ctx_error(cu));
    cr_assert_eq(mmx_cavity_relocate_round(cu, quads, &seed, target, 1, 0, &out, NULL, NULL),
                 MMX_ERR_MESH);
    cr_assert_null(out);
    mmx_ctx *host = tu_host_ctx();
    mmx_mesh *hm = tu_shape(host, "icosphere:1");
    cr_assert_eq(mmx_cavity_round(cu, hm, MMX_CAVITY_EDGE_SPLIT, &seed, 1, 0, &out, NULL, NULL),
                 MMX_ERR_SPACE);
    cr_assert_eq(mmx_cavity_face_split_round(cu, hm, &seed, 1, 0, &out, NULL, NULL),
                 MMX_ERR_SPACE);
    cr_assert_eq(mmx_cavity_relocate_round(cu, hm, &seed, target, 1, 0, &out, NULL, NULL),
                 MMX_ERR_SPACE);
    cr_assert_eq(mmx_cavity_round(cu, m, MMX_CAVITY_EDGE_COLLAPSE, &far, 1, 0, &out, NULL, NULL),
                 MMX_ERR_ARG);
    cr_assert(strstr(mmx_ctx_error(cu), "edge 1000000"), "%s", mmx_ctx_error(cu));
    cr_assert_null(out);
    mmx_mesh_free(hm);
    mmx_ctx_free(host);
    mmx_mesh_free(quads);
    mmx_mesh_free(m);
    mmx_ctx_free(cu);
}

/* ---- Delaunay ----------------------------------------------------------------------------- */

/* The angle at c in triangle (a, b, c), plainly by acos. */
static double angle(const float *pos, mmx_index a, mmx_index b, mmx_index c)
{
    double u[3], v[3], uu = 0, vv = 0, uv = 0;
    for (int k = 0; k < 3; k++) {
        u[k] = (double)pos[3 * a + k] - pos[3 * c + k];
        v[k] = (double)pos[3 * b + k] - pos[3 * c + k];
        uu += u[k] * u[k], vv += v[k] * v[k], uv += u[k] * v[k];
    }
    double x = uv / sqrt(uu * vv);
    return acos(x > 1 ? 1 : x < -1 ? -1 : x);
}

/* The bound on every interior edge, by a walk over the face lists: for each half-edge u -> v
 * of face f, the face g with v -> u (a plain search), and the angles opposite. Returns the
 * number of edges over pi + tol. */
static int plain_violations(const mmx_mesh *m)
{
    const mmx_index nf = mmx_mesh_nfaces(m), *V = m->M->rowidx;
    int bad = 0;
    for (mmx_index f = 0; f < nf; f++)
        for (int i = 0; i < 3; i++) {
            const mmx_index u = V[3 * f + i], v = V[3 * f + (i + 1) % 3], c = V[3 * f + (i + 2) % 3];
            if (u > v) continue; /* each edge once */
            for (mmx_index g = 0; g < nf; g++)
                for (int j = 0; j < 3; j++)
                    if (V[3 * g + j] == v && V[3 * g + (j + 1) % 3] == u) {
                        const mmx_index d = V[3 * g + (j + 2) % 3];
                        bad += angle(m->pos, u, v, c) + angle(m->pos, u, v, d) >
                               PI + MMX_DELAUNAY_TOL + 1e-9;
                    }
        }
    return bad;
}

/* Delaunay round by round with the validator after each, then mmx_delaunay_flip twice: the
 * same bytes as each other and as the rounds, every interior edge within the bound. */
static void check_delaunay(mmx_mesh *in, int64_t euler, mmx_index loops)
{
    mmx_ctx *ctx = in->ctx;
    mmx_mesh_validation r;
    const mmx_mesh_expect x = {1, euler, 1, loops};
    MMX_OK_OR_FAIL(ctx, mmx_mesh_validate(ctx, in, &x, &r));
    const mmx_index nb = r.stats.boundary_edges;
    const int before = plain_violations(in);
    cr_assert(before > 0, "the input should need flips");
    mmx_mesh *cur = NULL;
    int rounds = 0;
    int64_t flips = 0;
    for (uint32_t k = 0; k < MMX_DELAUNAY_MAX_ROUNDS; k++) {
        mmx_mesh *next = NULL;
        mmx_cavity_counts c;
        MMX_OK_OR_FAIL(ctx, mmx_delaunay_round(ctx, cur ? cur : in, k, &next, &c));
        MMX_OK_OR_FAIL(ctx, mmx_mesh_validate(ctx, next, &x, &r)); /* after every round */
        cr_assert_eq(r.stats.boundary_edges, nb);
        mmx_mesh_free(cur);
        cur = next;
        if (!c.kept) break;
        rounds++;
        flips += c.kept;
    }
    cr_assert_eq(plain_violations(cur), 0);
    cr_assert_eq(memcmp(cur->pos, in->pos, 3 * (size_t)mmx_mesh_nverts(in) * sizeof(float)), 0);
    mmx_mesh *a = NULL, *b = NULL;
    mmx_delaunay_report ra, rb;
    MMX_OK_OR_FAIL(ctx, mmx_delaunay_flip(ctx, in, &a, &ra));
    MMX_OK_OR_FAIL(ctx, mmx_delaunay_flip(ctx, in, &b, &rb));
    cr_assert_eq(ra.rounds, rounds);
    cr_assert(rounds >= 1 && flips > 0);
    cr_assert_eq(ra.flips, flips);
    cr_assert_eq(ra.remaining, 0);
    int64_t sum = 0;
    for (int i = 0; i < ra.rounds; i++) sum += ra.flips_per_round[i];
    cr_assert_eq(sum, ra.flips);
    cr_assert_eq(memcmp(&ra, &rb, sizeof ra), 0);
    const size_t bytes = 3 * (size_t)mmx_mesh_nfaces(in) * sizeof(mmx_index);
    cr_assert_eq(memcmp(a->M->rowidx, b->M->rowidx, bytes), 0, "two runs differ");
    cr_assert_eq(memcmp(a->M->rowidx, cur->M->rowidx, bytes), 0, "rounds and the loop differ");
    cr_assert_eq(memcmp(a->pos, in->pos, 3 * (size_t)mmx_mesh_nverts(in) * sizeof(float)), 0);
    mmx_mesh_free(a);
    mmx_mesh_free(b);
    mmx_mesh_free(cur);
}

Test(delaunay, jittered_grid)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = jittered_grid(ctx, 16, 12, 11);
    check_delaunay(m, 1, 1);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(delaunay, noisy_icosphere)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = noisy_icosphere(ctx, 5);
    check_delaunay(m, 2, 0);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(delaunay, already_delaunay_is_unchanged)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = tu_shape(ctx, "icosphere:2"), *out = NULL;
    mmx_delaunay_report rep;
    MMX_OK_OR_FAIL(ctx, mmx_delaunay_flip(ctx, m, &out, &rep));
    cr_assert_eq(rep.flips, 0);
    cr_assert_eq(rep.rounds, 0);
    cr_assert_eq(memcmp(out->M->rowidx, m->M->rowidx, 3 * (size_t)mmx_mesh_nfaces(m) * sizeof(mmx_index)), 0);
    mmx_mesh_free(out);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* A mesh without faces (two vertices): nothing to flip, the vertices kept, no refusal. */
Test(delaunay, a_mesh_without_faces_is_returned_as_is)
{
    mmx_ctx *ctx = tu_host_ctx();
    static const float pos[] = {0, 0, 0, 1, 0, 0};
    static const mmx_index none[1] = {0};
    mmx_mesh *m = tu_triangles(ctx, 2, 0, none, pos), *out = NULL;
    mmx_delaunay_report rep;
    MMX_OK_OR_FAIL(ctx, mmx_delaunay_flip(ctx, m, &out, &rep));
    cr_assert_eq(rep.flips, 0);
    cr_assert_eq(out->M->nrows, 2);
    cr_assert_eq(out->M->ncols, 0);
    cr_assert(out->pos[3] == 1.0f);
    mmx_mesh_free(out);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* ---- edge splits and collapses ------------------------------------------------------------ */

Test(cavity, split_rhombus_by_hand)
{
    mmx_ctx *ctx = tu_host_ctx();
    const float pos[12] = {0, 0, 0, 2, 0, 0, 1, 1, 0, 1, -1, 0};
    const mmx_index v[6] = {0, 1, 2, 1, 0, 3}; /* edge {0, 1} is edge 0 */
    mmx_mesh *m = tu_triangles(ctx, 4, 2, v, pos), *out = NULL;
    const mmx_index seed = 0;
    mmx_cavity_seed sd;
    mmx_cavity_counts c;
    MMX_OK_OR_FAIL(ctx, mmx_cavity_round(ctx, m, MMX_CAVITY_EDGE_SPLIT, &seed, 1, 0, &out, &c, &sd));
    cr_assert(c.kept == 1 && sd.outcome == MMX_CAVITY_KEPT && sd.vertex == 4);
    cr_assert(sd.faces[0] == 0 && sd.faces[1] == 1);
    const mmx_index want[12] = {0, 4, 2, 1, 4, 3, 4, 1, 2, 4, 0, 3};
    cr_assert_eq(mmx_mesh_nverts(out), 5);
    cr_assert_eq(mmx_mesh_nfaces(out), 4);
    cr_assert_eq(memcmp(out->M->rowidx, want, sizeof want), 0);
    const float wpos[15] = {0, 0, 0, 2, 0, 0, 1, 1, 0, 1, -1, 0, 1, 0, 0};
    cr_assert_eq(memcmp(out->pos, wpos, sizeof wpos), 0);
    mmx_mesh_free(out);
    /* A boundary edge: {0, 2} (edge 1: column 2, row 0), one face. */
    const mmx_index b = 1;
    MMX_OK_OR_FAIL(ctx, mmx_cavity_round(ctx, m, MMX_CAVITY_EDGE_SPLIT, &b, 1, 0, &out, &c, &sd));
    cr_assert(c.kept == 1 && sd.faces[0] == 0 && sd.faces[1] == -1);
    const mmx_index want_b[9] = {2, 4, 1, 1, 0, 3, 4, 0, 1}; /* face 0 runs 2 -> 0 */
    cr_assert_eq(mmx_mesh_nfaces(out), 3);
    cr_assert_eq(memcmp(out->M->rowidx, want_b, sizeof want_b), 0);
    mmx_mesh_free(out);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* Two interior vertices 0 (-0.5, 0) and 1 (0.5, 0) inside a hexagon 2..7: collapsing the edge
 * {0, 1} (edge 0) leaves the hexagon fanned around 0 at the origin. */
Test(cavity, collapse_fan_by_hand)
{
    mmx_ctx *ctx = tu_host_ctx();
    const float pos[24] = {-0.5f, 0, 0, 0.5f, 0, 0, 1.5f, 0, 0, 1, 1, 0,
                           -1, 1, 0, -1.5f, 0, 0, -1, -1, 0, 1, -1, 0};
    const mmx_index v[30] = {1, 2, 3, 1, 3, 4, 0, 1, 4, 0, 4, 5, 0, 5, 6,
                             0, 6, 1, 1, 6, 7, 1, 7, 2};
    mmx_mesh *m = tu_triangles(ctx, 8, 8, v, pos), *out = NULL;
    mmx_mesh_validation r;
    const mmx_mesh_expect x = {1, 1, 1, 1};
    MMX_OK_OR_FAIL(ctx, mmx_mesh_validate(ctx, m, &x, &r));
    const mmx_index seed = 0;
    mmx_cavity_seed sd;
    mmx_cavity_counts c;
    MMX_OK_OR_FAIL(ctx, mmx_cavity_round(ctx, m, MMX_CAVITY_EDGE_COLLAPSE, &seed, 1, 0, &out, &c, &sd));
    cr_assert(c.kept == 1 && sd.outcome == MMX_CAVITY_KEPT && sd.vertex == 0);
    cr_assert(sd.faces[0] == 2 && sd.faces[1] == 5, "%d %d", sd.faces[0], sd.faces[1]);
    const mmx_index want[18] = {0, 1, 2, 0, 2, 3, 0, 3, 4, 0, 4, 5, 0, 5, 6, 0, 6, 1};
    cr_assert_eq(mmx_mesh_nverts(out), 7);
    cr_assert_eq(mmx_mesh_nfaces(out), 6);
    cr_assert_eq(memcmp(out->M->rowidx, want, sizeof want), 0);
    const float wpos[21] = {0, 0, 0, 1.5f, 0, 0, 1, 1, 0, -1, 1, 0, -1.5f, 0, 0, -1, -1, 0, 1, -1, 0};
    cr_assert_eq(memcmp(out->pos, wpos, sizeof wpos), 0);
    MMX_OK_OR_FAIL(ctx, mmx_mesh_validate(ctx, out, &x, &r));
    mmx_mesh_free(out);
    /* An interior edge with a boundary end ({1, 2}) is refused; so is the boundary edge of an
     * ear (a lone triangle's {0, 1}). */
    mmx_adjacency *adj = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_adjacency_compute(ctx, m, &adj));
    const mmx_index e12 = adj->edge_ptr[2]; /* column 2: row 1 (3 and 7 are above) */
    cr_assert(adj->ev[2 * e12] == 1 && adj->ev[2 * e12 + 1] == 2);
    MMX_OK_OR_FAIL(ctx, mmx_cavity_round(ctx, m, MMX_CAVITY_EDGE_COLLAPSE, &e12, 1, 0, &out, &c, &sd));
    cr_assert(c.invalid == 1 && sd.outcome == MMX_CAVITY_INVALID && sd.vertex == -1);
    mmx_mesh_free(out);
    mmx_adjacency_free(adj);
    const mmx_index tri[3] = {0, 1, 2};
    mmx_mesh *one = tu_triangles(ctx, 3, 1, tri, pos);
    MMX_OK_OR_FAIL(ctx, mmx_cavity_round(ctx, one, MMX_CAVITY_EDGE_COLLAPSE, &seed, 1, 0, &out, &c, &sd));
    cr_assert(c.invalid == 1 && mmx_mesh_nfaces(out) == 1);
    mmx_mesh_free(out);
    mmx_mesh_free(one);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* Seed i's cavity by a plain scan of the faces: a split's, the faces with both ends; a
 * collapse's, the faces with either. Returns the count, faces into f. */
static mmx_index plain_cavity(const mmx_mesh *m, mmx_cavity_kind kind, mmx_index a, mmx_index b,
                              mmx_index *f)
{
    const mmx_index nf = mmx_mesh_nfaces(m), *V = m->M->rowidx;
    mmx_index n = 0;
    for (mmx_index g = 0; g < nf; g++) {
        const int ha = V[3 * g] == a || V[3 * g + 1] == a || V[3 * g + 2] == a;
        const int hb = V[3 * g] == b || V[3 * g + 1] == b || V[3 * g + 2] == b;
        if (kind == MMX_CAVITY_EDGE_SPLIT ? ha && hb : ha || hb) f[n++] = g;
    }
    return n;
}

/* Key order of seeds i and j (every edge once, so the edge breaks ties). */
static int before(const mmx_cavity_seed *sd, const mmx_index *seeds, mmx_index i, mmx_index j)
{
    if (sd[i].priority != sd[j].priority) return sd[i].priority < sd[j].priority;
    return seeds[i] < seeds[j];
}

/* `rounds` rounds of `kind` with every edge as a seed: independence and maximality of the kept
 * set by plain cavities, the counts, the validator after each round, and a second run that
 * gives the same bytes. */
static void check_rounds(mmx_mesh *in, mmx_cavity_kind kind, int rounds, int64_t euler,
                         mmx_index loops)
{
    mmx_ctx *ctx = in->ctx;
    const mmx_mesh_expect x = {1, euler, 1, loops};
    mmx_mesh_validation r;
    mmx_mesh *cur = NULL;
    for (int k = 0; k < rounds; k++) {
        const mmx_mesh *m = cur ? cur : in;
        mmx_adjacency *adj = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_adjacency_compute(ctx, m, &adj));
        const mmx_index n = adj->nedges, nf = mmx_mesh_nfaces(m), nv = mmx_mesh_nverts(m);
        mmx_index *seeds = malloc((size_t)n * sizeof *seeds), *owner = malloc((size_t)nf * sizeof *owner);
        mmx_index *f = malloc((size_t)nf * sizeof *f);
        mmx_cavity_seed *sd = malloc((size_t)n * sizeof *sd), *sd2 = malloc((size_t)n * sizeof *sd2);
        cr_assert(seeds && owner && f && sd && sd2);
        for (mmx_index e = 0; e < n; e++) seeds[e] = e;
        mmx_mesh *out = NULL, *again = NULL;
        mmx_cavity_counts c, c2;
        MMX_OK_OR_FAIL(ctx, mmx_cavity_round(ctx, m, kind, seeds, n, (uint32_t)k, &out, &c, sd));
        cr_assert_eq(c.kept + c.invalid + c.conflicts, n);
        cr_assert(c.kept > 0 && c.conflicts > 0);
        if (kind == MMX_CAVITY_EDGE_SPLIT) cr_assert_eq(c.invalid, 0);
        else cr_assert(c.invalid > 0 || loops == 0);
        for (mmx_index g = 0; g < nf; g++) owner[g] = -1;
        mmx_index dfaces = 0;
        for (mmx_index i = 0; i < n; i++) {
            if (sd[i].outcome != MMX_CAVITY_KEPT) continue;
            const mmx_index two = adj->sides[i] == 2 ? 2 : 1;
            cr_assert_eq(sd[i].faces[1] >= 0, two == 2);
            dfaces += two;
            const mmx_index nc = plain_cavity(m, kind, adj->ev[2 * i], adj->ev[2 * i + 1], f);
            for (mmx_index q = 0; q < nc; q++) { /* independence */
                cr_assert_eq(owner[f[q]], -1, "seeds %d and %d share face %d", owner[f[q]], i, f[q]);
                owner[f[q]] = i;
            }
        }
        for (mmx_index i = 0; i < n; i++) { /* maximality */
            if (sd[i].outcome != MMX_CAVITY_CONFLICT) continue;
            const mmx_index nc = plain_cavity(m, kind, adj->ev[2 * i], adj->ev[2 * i + 1], f);
            int beaten = 0;
            for (mmx_index q = 0; q < nc && !beaten; q++)
                beaten = owner[f[q]] >= 0 && before(sd, seeds, owner[f[q]], i);
            cr_assert(beaten, "seed %d dropped with no kept cavity of a smaller key beside it", i);
        }
        const mmx_index sign = kind == MMX_CAVITY_EDGE_SPLIT ? 1 : -1;
        cr_assert_eq(mmx_mesh_nverts(out), nv + sign * c.kept);
        cr_assert_eq(mmx_mesh_nfaces(out), nf + sign * dfaces);
        MMX_OK_OR_FAIL(ctx, mmx_mesh_validate(ctx, out, &x, &r)); /* after every round */
        MMX_OK_OR_FAIL(ctx, mmx_cavity_round(ctx, m, kind, seeds, n, (uint32_t)k, &again, &c2, sd2));
        cr_assert_eq(memcmp(&c, &c2, sizeof c), 0);
        cr_assert_eq(memcmp(sd, sd2, (size_t)n * sizeof *sd), 0);
        cr_assert_eq(mmx_mesh_nfaces(again), mmx_mesh_nfaces(out));
        cr_assert_eq(memcmp(out->M->rowidx, again->M->rowidx,
                            3 * (size_t)mmx_mesh_nfaces(out) * sizeof(mmx_index)), 0);
        cr_assert_eq(memcmp(out->pos, again->pos, 3 * (size_t)mmx_mesh_nverts(out) * sizeof(float)), 0);
        mmx_mesh_free(again);
        mmx_mesh_free(cur);
        cur = out;
        free(seeds);
        free(owner);
        free(f);
        free(sd);
        free(sd2);
        mmx_adjacency_free(adj);
    }
    mmx_mesh_free(cur);
}

Test(cavity, split_rounds_grid)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = jittered_grid(ctx, 12, 10, 7);
    check_rounds(m, MMX_CAVITY_EDGE_SPLIT, 3, 1, 1);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(cavity, split_rounds_icosphere)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = tu_shape(ctx, "icosphere:3");
    check_rounds(m, MMX_CAVITY_EDGE_SPLIT, 3, 2, 0);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(cavity, collapse_rounds_grid)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = jittered_grid(ctx, 12, 10, 7);
    check_rounds(m, MMX_CAVITY_EDGE_COLLAPSE, 3, 1, 1);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(cavity, collapse_rounds_icosphere)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = tu_shape(ctx, "icosphere:3");
    check_rounds(m, MMX_CAVITY_EDGE_COLLAPSE, 3, 2, 0);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* ---- the shared steps and the parallel selection (host) ----------------------------------- */

/* The Delaunay bound is decided without atan2 (flip_step.h); wherever the angle sum is not
 * within 1e-9 of pi + tol it must agree with the angles summed by atan2. */
Test(delaunay, bound_agrees_with_the_angle_sum)
{
    uint32_t seed = 99;
    float pos[12];
    int over = 0, under = 0;
    for (int t = 0; t < 20000; t++) {
        for (int k = 0; k < 12; k++) pos[k] = (float)(tu_rng(&seed) % 2001) / 1000.0f - 1.0f;
        if (t % 7 == 0) pos[11] = pos[5]; /* some planar quads */
        double sum = 0;
        for (int j = 2; j < 4; j++) {
            double u[3], v[3];
            for (int k = 0; k < 3; k++) {
                u[k] = (double)pos[k] - pos[3 * j + k];
                v[k] = (double)pos[3 + k] - pos[3 * j + k];
            }
            const double x[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2],
                                 u[0] * v[1] - u[1] * v[0]};
            sum += atan2(sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]),
                         u[0] * v[0] + u[1] * v[1] + u[2] * v[2]);
        }
        const double margin = sum - (PI + MMX_DELAUNAY_TOL);
        if (fabs(margin) < 1e-9) continue;
        const int v = mmx_delaunay_violates(pos, 0, 1, 2, 3);
        cr_assert_eq(v, margin > 0, "quad %d: sum - pi - tol = %g", t, margin);
        over += v, under += !v;
    }
    cr_assert(over > 1000 && under > 1000, "%d over, %d under", over, under);
    /* The cases atan2 decided at the ends: both angles pi (over), a zero-length side (not). */
    static const float line[12] = {0, 0, 0, 2, 0, 0, 1, 0, 0, 1, 0, 0};
    cr_assert_eq(mmx_delaunay_violates(line, 0, 1, 2, 3), 1);
    static const float same[12] = {0, 0, 0, 1, 0, 0, 0, 0, 0, 0.5f, -1, 0};
    cr_assert_eq(mmx_delaunay_violates(same, 0, 1, 2, 3), 0);
}

/* The CUDA flip round's selection (cavity.cu's elements through select.cu), stated on the
 * host: Luby steps where each undecided cavity bids its priority on its faces and its new
 * edge, the holders of every minimum are kept and their neighbours dropped; copies of a seed edge are conflicts from the start. It
 * must keep exactly the host round's cavities, on every seed list below (every edge, reversed,
 * with repeats). */
static void luby_matches_host(mmx_mesh *m, uint32_t round)
{
    mmx_ctx *ctx = m->ctx;
    mmx_adjacency *adj = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_adjacency_compute(ctx, m, &adj));
    const mmx_index ne = adj->nedges, n = ne + ne / 3, nf = mmx_mesh_nfaces(m);
    mmx_index *seeds = malloc((size_t)n * sizeof *seeds), *first = malloc((size_t)ne * sizeof *first);
    mmx_cavity_seed *sd = malloc((size_t)n * sizeof *sd);
    unsigned char *state = malloc((size_t)n), *taken = calloc((size_t)nf, 1);
    uint64_t *fmin = malloc((size_t)nf * sizeof *fmin);
    cr_assert(seeds && first && sd && state && taken && fmin);
    for (mmx_index i = 0; i < ne; i++) seeds[i] = ne - 1 - i;
    for (mmx_index i = ne; i < n; i++) seeds[i] = (mmx_index)((i * 7) % ne);
    mmx_mesh *out = NULL;
    mmx_cavity_counts c;
    MMX_OK_OR_FAIL(ctx, mmx_cavity_round(ctx, m, MMX_CAVITY_EDGE_FLIP, seeds, n, round, &out, &c, sd));
    for (mmx_index e = 0; e < ne; e++) first[e] = -1;
    for (mmx_index i = 0; i < n; i++)
        if (first[seeds[i]] < 0) first[seeds[i]] = i;
    enum { UND = 3 };
    mmx_index und = 0;
    for (mmx_index i = 0; i < n; i++) {
        state[i] = sd[i].new_edge[0] < 0 ? MMX_CAVITY_INVALID
                   : first[seeds[i]] != i ? MMX_CAVITY_CONFLICT : UND;
        und += state[i] == UND;
    }
    /* New edges as the pair itself: a slot is the set of undecided cavities with one pair. */
    int steps = 0;
    while (und > 0) {
        steps++;
        for (mmx_index f = 0; f < nf; f++) fmin[f] = UINT64_MAX;
        for (mmx_index i = 0; i < n; i++)
            if (state[i] == UND)
                for (int h = 0; h < 2; h++)
                    if (sd[i].priority < fmin[sd[i].faces[h]]) fmin[sd[i].faces[h]] = sd[i].priority;
        for (mmx_index i = 0; i < n; i++) {
            if (state[i] != UND) continue;
            int holds = fmin[sd[i].faces[0]] == sd[i].priority && fmin[sd[i].faces[1]] == sd[i].priority;
            for (mmx_index j = 0; j < n && holds; j++) /* the new edge's slot */
                holds = j == i || state[j] != UND || sd[j].new_edge[0] != sd[i].new_edge[0] ||
                        sd[j].new_edge[1] != sd[i].new_edge[1] || sd[j].priority > sd[i].priority;
            if (holds) state[i] = 4; /* kept this step */
        }
        for (mmx_index i = 0; i < n; i++)
            if (state[i] == 4) {
                state[i] = MMX_CAVITY_KEPT;
                taken[sd[i].faces[0]] = taken[sd[i].faces[1]] = 1;
            }
        und = 0;
        for (mmx_index i = 0; i < n; i++) {
            if (state[i] != UND) continue;
            int hit = taken[sd[i].faces[0]] || taken[sd[i].faces[1]];
            for (mmx_index j = 0; j < n && !hit; j++)
                hit = state[j] == MMX_CAVITY_KEPT && sd[j].new_edge[0] == sd[i].new_edge[0] &&
                      sd[j].new_edge[1] == sd[i].new_edge[1];
            if (hit) state[i] = MMX_CAVITY_CONFLICT;
            else und++;
        }
    }
    cr_assert(steps >= 2, "a single step proves little (%d)", steps);
    for (mmx_index i = 0; i < n; i++)
        cr_assert_eq(state[i], (unsigned char)sd[i].outcome, "seed %d (edge %d)", i, seeds[i]);
    free(seeds);
    free(first);
    free(sd);
    free(state);
    free(taken);
    free(fmin);
    mmx_mesh_free(out);
    mmx_adjacency_free(adj);
}

Test(cavity, luby_selection_is_the_greedy_pass)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *g = jittered_grid(ctx, 20, 14, 3), *s = noisy_icosphere(ctx, 8);
    for (uint32_t k = 0; k < 3; k++) {
        luby_matches_host(g, k);
        luby_matches_host(s, k);
    }
    mmx_mesh_free(g);
    mmx_mesh_free(s);
    mmx_ctx_free(ctx);
}

/* The CUDA split and collapse round (split_collapse.cu), stated on the host: the cavities in
 * CSR form by the shared steps (sc_step.h), the Luby loop where each undecided cavity bids its
 * priority on every face of its ring, copies conflicting from the start; then the split's fill
 * by the kept seeds' ranks in priority order (a sort) and a scan of their face counts, and the
 * collapse's by scans over the survivor flags of vertices and faces. It must give the host
 * round's outcomes, vertices and output bytes. */
static void sc_luby_matches_host(mmx_mesh *m, mmx_cavity_kind kind, uint32_t round)
{
    mmx_ctx *ctx = m->ctx;
    mmx__flip_topo t;
    MMX_OK_OR_FAIL(ctx, mmx__flip_topo_build(ctx, m, "test", &t));
    const mmx_index ne = t.nedges, n = ne + ne / 3, nf = t.nfaces, nv = t.nverts;
    mmx_index *seeds = malloc((size_t)n * sizeof *seeds), *first = malloc((size_t)ne * sizeof *first);
    mmx_index *ptr = malloc(((size_t)n + 1) * sizeof *ptr), *len = malloc((size_t)n * sizeof *len);
    mmx_cavity_seed *sd = malloc((size_t)n * sizeof *sd), *sd2 = malloc((size_t)n * sizeof *sd2);
    unsigned char *state = malloc((size_t)n), *taken = calloc((size_t)nf, 1);
    uint64_t *fmin = malloc((size_t)nf * sizeof *fmin);
    cr_assert(seeds && first && ptr && len && sd && sd2 && state && taken && fmin);
    for (mmx_index i = 0; i < ne; i++) seeds[i] = ne - 1 - i;
    for (mmx_index i = ne; i < n; i++) seeds[i] = (mmx_index)((i * 7) % ne);
    mmx_mesh *out = NULL;
    mmx_cavity_counts c;
    MMX_OK_OR_FAIL(ctx, mmx_cavity_round(ctx, m, kind, seeds, n, round, &out, &c, sd));
    for (mmx_index e = 0; e < ne; e++) first[e] = -1;
    for (mmx_index i = 0; i < n; i++)
        if (first[seeds[i]] < 0) first[seeds[i]] = i;
    /* The rings: room by the bound, then each cavity. */
    ptr[0] = 0;
    for (mmx_index i = 0; i < n; i++) {
        const mmx_index a = t.adj->ev[2 * seeds[i]], b = t.adj->ev[2 * seeds[i] + 1];
        const mmx_index room = kind == MMX_CAVITY_EDGE_SPLIT ? 2 :
            t.vf_ptr[a + 1] - t.vf_ptr[a] + t.vf_ptr[b + 1] - t.vf_ptr[b];
        ptr[i + 1] = ptr[i] + room;
    }
    mmx_index *ring = malloc(((size_t)ptr[n] + 1) * sizeof *ring);
    cr_assert(ring);
    enum { UND = 3 };
    mmx_index und = 0;
    for (mmx_index i = 0; i < n; i++) {
        mmx_cavity_seed *x = &sd2[i];
        x->outcome = MMX_CAVITY_INVALID;
        x->faces[0] = x->faces[1] = x->new_edge[0] = x->new_edge[1] = x->vertex = -1;
        x->priority = mmx_cavity_priority(seeds[i], round);
        const int ok = kind == MMX_CAVITY_EDGE_SPLIT
                           ? mmx__split_cavity(&t, m->pos, seeds[i], x, ring + ptr[i], &len[i])
                           : mmx__collapse_cavity(&t, m->pos, seeds[i], x, ring + ptr[i], &len[i]);
        cr_assert(len[i] <= ptr[i + 1] - ptr[i]);
        state[i] = !ok ? MMX_CAVITY_INVALID : first[seeds[i]] != i ? MMX_CAVITY_CONFLICT : UND;
        if (!ok) len[i] = 0;
        und += state[i] == UND;
    }
    int steps = 0;
    while (und > 0) {
        steps++;
        for (mmx_index f = 0; f < nf; f++) fmin[f] = UINT64_MAX;
        for (mmx_index i = 0; i < n; i++)
            if (state[i] == UND)
                for (mmx_index r = ptr[i]; r < ptr[i] + len[i]; r++)
                    if (sd2[i].priority < fmin[ring[r]]) fmin[ring[r]] = sd2[i].priority;
        for (mmx_index i = 0; i < n; i++) {
            if (state[i] != UND) continue;
            int holds = 1;
            for (mmx_index r = ptr[i]; r < ptr[i] + len[i] && holds; r++)
                holds = fmin[ring[r]] == sd2[i].priority;
            if (holds) state[i] = 4;
        }
        for (mmx_index i = 0; i < n; i++)
            if (state[i] == 4) {
                state[i] = MMX_CAVITY_KEPT;
                for (mmx_index r = ptr[i]; r < ptr[i] + len[i]; r++) taken[ring[r]] = 1;
            }
        und = 0;
        for (mmx_index i = 0; i < n; i++) {
            if (state[i] != UND) continue;
            int hit = 0;
            for (mmx_index r = ptr[i]; r < ptr[i] + len[i]; r++) hit |= taken[ring[r]];
            if (hit) state[i] = MMX_CAVITY_CONFLICT;
            else und++;
        }
    }
    cr_assert(steps >= 2, "a single step proves little (%d)", steps);
    cr_assert(c.kept > 0 && c.conflicts > 0);
    /* The kept seeds in priority order (a selection sort: the test's sizes are small). */
    mmx_index *kept = malloc(((size_t)c.kept + 1) * sizeof *kept), k = 0, kf = 0;
    cr_assert(kept);
    for (mmx_index i = 0; i < n; i++) {
        sd2[i].outcome = (mmx_cavity_outcome)state[i];
        if (state[i] == MMX_CAVITY_KEPT) kept[k++] = i, kf += sd2[i].faces[1] >= 0 ? 2 : 1;
    }
    cr_assert_eq(k, c.kept);
    for (mmx_index j = 0; j < k; j++)
        for (mmx_index q = j + 1; q < k; q++)
            if (sd2[kept[q]].priority < sd2[kept[j]].priority) {
                const mmx_index x = kept[j];
                kept[j] = kept[q], kept[q] = x;
            }
    const int split = kind == MMX_CAVITY_EDGE_SPLIT;
    const mmx_index onv = split ? nv + k : nv - k, onf = split ? nf + kf : nf - kf;
    cr_assert_eq(mmx_mesh_nverts(out), onv);
    cr_assert_eq(mmx_mesh_nfaces(out), onf);
    mmx_index *verts = malloc((3 * (size_t)onf + 1) * sizeof *verts);
    float *pos = malloc((3 * (size_t)onv + 1) * sizeof *pos);
    cr_assert(verts && pos);
    if (split) {
        memcpy(verts, t.verts, 3 * (size_t)nf * sizeof *verts);
        memcpy(pos, m->pos, 3 * (size_t)nv * sizeof *pos);
        for (mmx_index j = 0, off = 0; j < k; j++) { /* off: the exclusive scan */
            const mmx_index i = kept[j], e = seeds[i];
            sd2[i].vertex = nv + j;
            for (int x = 0; x < 3; x++)
                pos[3 * (size_t)(nv + j) + x] = mmx__sc_mid(m->pos, t.adj->ev[2 * e], t.adj->ev[2 * e + 1], x);
            mmx__sc_fill_split(&t.view, e, &sd2[i], nv + j, nf + off, verts);
            off += sd2[i].faces[1] >= 0 ? 2 : 1;
        }
    } else {
        mmx_index *to = malloc((size_t)nv * sizeof *to), *keepf = malloc((size_t)nf * sizeof *keepf);
        mmx_index *vid = malloc((size_t)nv * sizeof *vid), *fid = malloc((size_t)nf * sizeof *fid);
        float *mpos = malloc(3 * (size_t)nv * sizeof *mpos);
        cr_assert(to && keepf && vid && fid && mpos);
        memcpy(mpos, m->pos, 3 * (size_t)nv * sizeof *mpos);
        for (mmx_index v = 0; v < nv; v++) to[v] = v;
        for (mmx_index f = 0; f < nf; f++) keepf[f] = f;
        for (mmx_index j = k - 1; j >= 0; j--) { /* any order: here the reverse */
            const mmx_index i = kept[j], e = seeds[i], a = t.adj->ev[2 * e], b = t.adj->ev[2 * e + 1];
            to[b] = a;
            keepf[sd2[i].faces[0]] = -1;
            if (sd2[i].faces[1] >= 0) keepf[sd2[i].faces[1]] = -1;
            for (int x = 0; x < 3; x++) mpos[3 * (size_t)a + x] = mmx__sc_mid(m->pos, a, b, x);
        }
        for (mmx_index v = 0, sum = 0; v < nv; v++) vid[v] = sum, sum += to[v] == v;
        for (mmx_index f = 0, sum = 0; f < nf; f++) fid[f] = sum, sum += keepf[f] == f;
        for (mmx_index v = 0; v < nv; v++)
            if (to[v] == v) memcpy(pos + 3 * (size_t)vid[v], mpos + 3 * (size_t)v, 3 * sizeof *pos);
        for (mmx_index j = 0; j < k; j++) sd2[kept[j]].vertex = vid[t.adj->ev[2 * seeds[kept[j]]]];
        for (mmx_index f = 0; f < nf; f++)
            if (keepf[f] == f)
                for (int x = 0; x < 3; x++) verts[3 * (size_t)fid[f] + x] = vid[to[t.verts[3 * (size_t)f + x]]];
        free(to);
        free(keepf);
        free(vid);
        free(fid);
        free(mpos);
    }
    for (mmx_index i = 0; i < n; i++)
        cr_assert_eq(memcmp(&sd[i], &sd2[i], sizeof sd[i]), 0, "seed %d (edge %d): outcome %d "
                     "vertex %d, statement %d %d", i, seeds[i], sd[i].outcome, sd[i].vertex,
                     sd2[i].outcome, sd2[i].vertex);
    cr_assert_eq(memcmp(verts, out->M->rowidx, 3 * (size_t)onf * sizeof *verts), 0);
    cr_assert_eq(memcmp(pos, out->pos, 3 * (size_t)onv * sizeof *pos), 0);
    free(verts);
    free(pos);
    free(kept);
    free(ring);
    free(seeds);
    free(first);
    free(ptr);
    free(len);
    free(sd);
    free(sd2);
    free(state);
    free(taken);
    free(fmin);
    mmx_mesh_free(out);
    mmx__flip_topo_free(&t);
}

Test(cavity, luby_rings_selection_and_fill_are_the_host_round)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *g = jittered_grid(ctx, 20, 14, 3), *s = noisy_icosphere(ctx, 8);
    for (uint32_t k = 0; k < 3; k++) {
        sc_luby_matches_host(g, MMX_CAVITY_EDGE_SPLIT, k);
        sc_luby_matches_host(g, MMX_CAVITY_EDGE_COLLAPSE, k);
        sc_luby_matches_host(s, MMX_CAVITY_EDGE_SPLIT, k);
        sc_luby_matches_host(s, MMX_CAVITY_EDGE_COLLAPSE, k);
    }
    mmx_mesh_free(g);
    mmx_mesh_free(s);
    mmx_ctx_free(ctx);
}

/* ---- CUDA against the host ---------------------------------------------------------------- */

/* bigguy's quads cut into triangles along alternating diagonals: a scanned-like surface with
 * many edges over the bound. */
static mmx_mesh *bigguy_triangles(mmx_ctx *ctx)
{
    mmx_mesh *q = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_read(ctx, tu_data("bigguy_quads.obj"), MMX_FORMAT_AUTO, &q));
    mmx_index *start = NULL, *verts = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_faces(ctx, q, &start, &verts));
    const mmx_index nf = mmx_mesh_nfaces(q);
    mmx_index *tri = malloc(6 * (size_t)nf * sizeof *tri), t = 0;
    cr_assert(tri);
    for (mmx_index f = 0; f < nf; f++) {
        const mmx_index *v = verts + start[f], o = f % 2;
        cr_assert_eq(start[f + 1] - start[f], 4);
        const mmx_index a = v[o], b = v[o + 1], c = v[o + 2], d = v[(o + 3) % 4];
        tri[t++] = a, tri[t++] = b, tri[t++] = c, tri[t++] = a, tri[t++] = c, tri[t++] = d;
    }
    mmx_mesh *m = tu_triangles(ctx, mmx_mesh_nverts(q), 2 * nf, tri, q->pos);
    free(tri);
    free(start);
    free(verts);
    mmx_mesh_free(q);
    return m;
}

/* A random planar point set, triangulated as a jittered grid with random diagonals. */
static mmx_mesh *random_grid(mmx_ctx *ctx, int nx, int ny, uint32_t seed)
{
    mmx_mesh *g = jittered_grid(ctx, nx, ny, seed);
    const mmx_index nf = mmx_mesh_nfaces(g);
    mmx_index *v = malloc(3 * (size_t)nf * sizeof *v);
    cr_assert(v);
    memcpy(v, g->M->rowidx, 3 * (size_t)nf * sizeof *v);
    for (mmx_index f = 0; f < nf; f += 2)
        if (tu_rng(&seed) % 2) { /* the cell's other diagonal: (a, b, d), (b, c, d) */
            const mmx_index a = v[3 * f], b = v[3 * f + 1], c = v[3 * f + 2], d = v[3 * f + 5];
            v[3 * f] = a, v[3 * f + 1] = b, v[3 * f + 2] = d;
            v[3 * f + 3] = b, v[3 * f + 4] = c, v[3 * f + 5] = d;
        }
    mmx_mesh *m = tu_triangles(ctx, mmx_mesh_nverts(g), nf, v, g->pos);
    free(v);
    mmx_mesh_free(g);
    return m;
}

/* The host mesh's device copy, and a device mesh's host copy. */
static mmx_mesh *to_space(mmx_ctx *ctx, const mmx_mesh *m, mmx_space space)
{
    mmx_mesh *c = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_copy(ctx, m, space, &c));
    return c;
}

/* Flip rounds with every edge (and some twice) as seeds, then Delaunay to the end, on the
 * host and on CUDA: the same per-seed cavities and outcomes, counts, reports and bytes. */
static void cuda_matches_host(mmx_ctx *cu, mmx_mesh *hm)
{
    mmx_ctx *host = hm->ctx;
    mmx_mesh *dm = to_space(cu, hm, MMX_SPACE_DEVICE);
    const mmx_mesh *hcur = hm, *dcur = dm;
    mmx_mesh *hkeep[3] = {NULL}, *dkeep[3] = {NULL};
    for (int k = 0; k < 3; k++) {
        mmx_adjacency *adj = NULL;
        MMX_OK_OR_FAIL(host, mmx_adjacency_compute(host, hcur, &adj));
        const mmx_index ne = adj->nedges, n = ne + ne / 5;
        mmx_index *seeds = malloc((size_t)n * sizeof *seeds);
        mmx_cavity_seed *hs = malloc((size_t)n * sizeof *hs), *ds = malloc((size_t)n * sizeof *ds);
        cr_assert(seeds && hs && ds);
        for (mmx_index i = 0; i < n; i++) seeds[i] = i < ne ? i : (mmx_index)((i * 13) % ne);
        mmx_cavity_counts hc, dc;
        MMX_OK_OR_FAIL(host, mmx_cavity_round(host, hcur, MMX_CAVITY_EDGE_FLIP, seeds, n,
                                              (uint32_t)k, &hkeep[k], &hc, hs));
        MMX_OK_OR_FAIL(cu, mmx_cavity_round(cu, dcur, MMX_CAVITY_EDGE_FLIP, seeds, n,
                                            (uint32_t)k, &dkeep[k], &dc, ds));
        cr_assert(hc.kept > 0 && hc.conflicts > 0);
        cr_assert_eq(memcmp(&hc, &dc, sizeof hc), 0, "round %d: counts %d/%d/%d host, %d/%d/%d cuda",
                     k, hc.kept, hc.invalid, hc.conflicts, dc.kept, dc.invalid, dc.conflicts);
        for (mmx_index i = 0; i < n; i++)
            cr_assert_eq(memcmp(&hs[i], &ds[i], sizeof hs[i]), 0,
                         "round %d seed %d: outcome %d host, %d cuda", k, i, hs[i].outcome,
                         ds[i].outcome);
        mmx_mesh *back = to_space(cu, dkeep[k], MMX_SPACE_HOST);
        cr_assert_eq(back->M->order, 3);
        cr_assert_eq(memcmp(back->M->rowidx, hkeep[k]->M->rowidx,
                            3 * (size_t)mmx_mesh_nfaces(hm) * sizeof(mmx_index)), 0, "round %d", k);
        cr_assert_eq(memcmp(back->pos, hm->pos, 3 * (size_t)mmx_mesh_nverts(hm) * sizeof(float)), 0);
        mmx_mesh_free(back);
        hcur = hkeep[k], dcur = dkeep[k];
        free(seeds);
        free(hs);
        free(ds);
        mmx_adjacency_free(adj);
    }
    /* Delaunay to the end from the input, twice on CUDA. */
    mmx_mesh *ha = NULL, *da = NULL, *db = NULL;
    mmx_delaunay_report hr, dr, dr2;
    MMX_OK_OR_FAIL(host, mmx_delaunay_flip(host, hm, &ha, &hr));
    MMX_OK_OR_FAIL(cu, mmx_delaunay_flip(cu, dm, &da, &dr));
    MMX_OK_OR_FAIL(cu, mmx_delaunay_flip(cu, dm, &db, &dr2));
    cr_assert(hr.flips > 0);
    cr_assert_eq(memcmp(&hr, &dr, sizeof hr), 0, "reports: %d rounds %lld flips host, %d %lld cuda",
                 hr.rounds, (long long)hr.flips, dr.rounds, (long long)dr.flips);
    cr_assert_eq(memcmp(&dr, &dr2, sizeof dr), 0);
    mmx_mesh *ba = to_space(cu, da, MMX_SPACE_HOST), *bb = to_space(cu, db, MMX_SPACE_HOST);
    const size_t bytes = 3 * (size_t)mmx_mesh_nfaces(hm) * sizeof(mmx_index);
    cr_assert_eq(memcmp(ba->M->rowidx, ha->M->rowidx, bytes), 0, "CUDA and host differ");
    cr_assert_eq(memcmp(ba->M->rowidx, bb->M->rowidx, bytes), 0, "two CUDA runs differ");
    cr_assert_eq(plain_violations(ba) <= hr.remaining, 1);
    /* One round through the public round call as well. */
    mmx_mesh *h1 = NULL, *d1 = NULL;
    mmx_cavity_counts c1, c2;
    MMX_OK_OR_FAIL(host, mmx_delaunay_round(host, hm, 5, &h1, &c1));
    MMX_OK_OR_FAIL(cu, mmx_delaunay_round(cu, dm, 5, &d1, &c2));
    cr_assert_eq(memcmp(&c1, &c2, sizeof c1), 0);
    mmx_mesh *b1 = to_space(cu, d1, MMX_SPACE_HOST);
    cr_assert_eq(memcmp(b1->M->rowidx, h1->M->rowidx, bytes), 0);
    mmx_mesh_free(b1);
    mmx_mesh_free(h1);
    mmx_mesh_free(d1);
    mmx_mesh_free(ba);
    mmx_mesh_free(bb);
    mmx_mesh_free(ha);
    mmx_mesh_free(da);
    mmx_mesh_free(db);
    for (int k = 0; k < 3; k++) {
        mmx_mesh_free(hkeep[k]);
        mmx_mesh_free(dkeep[k]);
    }
    mmx_mesh_free(dm);
}

Test(cavity, cuda_flips_match_host_grid)
{
    mmx_ctx *cu = tu_cuda_ctx_or_skip(), *host = tu_host_ctx();
    mmx_mesh *m = jittered_grid(host, 40, 30, 21);
    cuda_matches_host(cu, m);
    mmx_mesh_free(m);
    mmx_ctx_free(host);
    mmx_ctx_free(cu);
}

Test(cavity, cuda_flips_match_host_spheres)
{
    mmx_ctx *cu = tu_cuda_ctx_or_skip(), *host = tu_host_ctx();
    for (uint32_t seed = 1; seed <= 3; seed++) {
        mmx_mesh *m = noisy_icosphere(host, seed);
        cuda_matches_host(cu, m);
        mmx_mesh_free(m);
    }
    mmx_ctx_free(host);
    mmx_ctx_free(cu);
}

Test(cavity, cuda_flips_match_host_random)
{
    mmx_ctx *cu = tu_cuda_ctx_or_skip(), *host = tu_host_ctx();
    for (uint32_t seed = 5; seed <= 8; seed++) {
        mmx_mesh *m = random_grid(host, 30 + (int)seed, 25, seed);
        cuda_matches_host(cu, m);
        mmx_mesh_free(m);
    }
    mmx_ctx_free(host);
    mmx_ctx_free(cu);
}

Test(cavity, cuda_flips_match_host_bigguy)
{
    mmx_ctx *cu = tu_cuda_ctx_or_skip(), *host = tu_host_ctx();
    mmx_mesh *m = bigguy_triangles(host);
    cuda_matches_host(cu, m);
    mmx_mesh_free(m);
    mmx_ctx_free(host);
    mmx_ctx_free(cu);
}

/* Rounds of edge splits and collapses, alternating (split, collapse, split, collapse), on the
 * host and on CUDA from the same input, each round seeded by every edge of the round's input
 * and a fifth of them again (repeats): the same per-seed cavities, outcomes and vertices, the
 * same counts, and the output meshes the same bytes (sizes, faces, positions). */
static void cuda_sc_matches_host(mmx_ctx *cu, mmx_mesh *hm)
{
    mmx_ctx *host = hm->ctx;
    mmx_mesh *dm = to_space(cu, hm, MMX_SPACE_DEVICE);
    mmx_mesh *hcur = hm, *dcur = dm;
    int conflicts = 0;
    /* No seeds: the mesh comes back as it was. */
    mmx_mesh *none = NULL;
    mmx_cavity_counts c0;
    MMX_OK_OR_FAIL(cu, mmx_cavity_round(cu, dm, MMX_CAVITY_EDGE_COLLAPSE, NULL, 0, 0, &none, &c0, NULL));
    cr_assert(c0.proposed == 0 && c0.kept == 0 && c0.invalid == 0 && c0.conflicts == 0);
    mmx_mesh *none_back = to_space(cu, none, MMX_SPACE_HOST);
    cr_assert_eq(mmx_mesh_nfaces(none_back), mmx_mesh_nfaces(hm));
    cr_assert_eq(memcmp(none_back->M->rowidx, hm->M->rowidx,
                        3 * (size_t)mmx_mesh_nfaces(hm) * sizeof(mmx_index)), 0);
    mmx_mesh_free(none_back);
    mmx_mesh_free(none);
    for (int k = 0; k < 4; k++) {
        const mmx_cavity_kind kind = k % 2 ? MMX_CAVITY_EDGE_COLLAPSE : MMX_CAVITY_EDGE_SPLIT;
        mmx_adjacency *adj = NULL;
        MMX_OK_OR_FAIL(host, mmx_adjacency_compute(host, hcur, &adj));
        const mmx_index ne = adj->nedges, n = ne + ne / 5;
        mmx_index *seeds = malloc((size_t)n * sizeof *seeds);
        mmx_cavity_seed *hs = malloc((size_t)n * sizeof *hs), *ds = malloc((size_t)n * sizeof *ds);
        cr_assert(seeds && hs && ds);
        for (mmx_index i = 0; i < n; i++) seeds[i] = i < ne ? i : (mmx_index)((i * 13) % ne);
        mmx_cavity_counts hc, dc;
        mmx_mesh *hn = NULL, *dn = NULL;
        MMX_OK_OR_FAIL(host, mmx_cavity_round(host, hcur, kind, seeds, n, (uint32_t)k, &hn, &hc, hs));
        MMX_OK_OR_FAIL(cu, mmx_cavity_round(cu, dcur, kind, seeds, n, (uint32_t)k, &dn, &dc, ds));
        cr_assert(hc.kept > 0, "round %d kept nothing", k);
        conflicts += hc.conflicts > 0;
        cr_assert_eq(memcmp(&hc, &dc, sizeof hc), 0,
                     "round %d (kind %d): counts %d/%d/%d host, %d/%d/%d cuda", k, (int)kind,
                     hc.kept, hc.invalid, hc.conflicts, dc.kept, dc.invalid, dc.conflicts);
        for (mmx_index i = 0; i < n; i++)
            cr_assert_eq(memcmp(&hs[i], &ds[i], sizeof hs[i]), 0,
                         "round %d seed %d (edge %d): outcome %d faces %d %d vertex %d host, "
                         "outcome %d faces %d %d vertex %d cuda", k, i, seeds[i], hs[i].outcome,
                         hs[i].faces[0], hs[i].faces[1], hs[i].vertex, ds[i].outcome,
                         ds[i].faces[0], ds[i].faces[1], ds[i].vertex);
        mmx_mesh *back = to_space(cu, dn, MMX_SPACE_HOST);
        const mmx_index nv = mmx_mesh_nverts(hn), nf = mmx_mesh_nfaces(hn);
        cr_assert_eq(mmx_mesh_nverts(back), nv, "round %d", k);
        cr_assert_eq(mmx_mesh_nfaces(back), nf, "round %d", k);
        cr_assert_eq(back->M->order, 3);
        cr_assert_eq(memcmp(back->M->rowidx, hn->M->rowidx, 3 * (size_t)nf * sizeof(mmx_index)),
                     0, "round %d: faces differ", k);
        cr_assert_eq(!back->pos, !hn->pos);
        if (hn->pos)
            cr_assert_eq(memcmp(back->pos, hn->pos, 3 * (size_t)nv * sizeof(float)), 0,
                         "round %d: positions differ", k);
        mmx_mesh_free(back);
        if (hcur != hm) mmx_mesh_free(hcur);
        if (dcur != dm) mmx_mesh_free(dcur);
        hcur = hn, dcur = dn;
        free(seeds);
        free(hs);
        free(ds);
        mmx_adjacency_free(adj);
    }
    cr_assert(conflicts > 0);
    if (hcur != hm) mmx_mesh_free(hcur);
    if (dcur != dm) mmx_mesh_free(dcur);
    mmx_mesh_free(dm);
}

Test(cavity, cuda_splits_collapses_match_host_grid)
{
    mmx_ctx *cu = tu_cuda_ctx_or_skip(), *host = tu_host_ctx();
    mmx_mesh *m = jittered_grid(host, 40, 30, 21);
    cuda_sc_matches_host(cu, m);
    mmx_mesh_free(m);
    mmx_ctx_free(host);
    mmx_ctx_free(cu);
}

Test(cavity, cuda_splits_collapses_match_host_spheres)
{
    mmx_ctx *cu = tu_cuda_ctx_or_skip(), *host = tu_host_ctx();
    for (uint32_t seed = 1; seed <= 3; seed++) {
        mmx_mesh *m = noisy_icosphere(host, seed);
        cuda_sc_matches_host(cu, m);
        mmx_mesh_free(m);
    }
    mmx_ctx_free(host);
    mmx_ctx_free(cu);
}

/* Random diagonals, and one without positions (the topological checks only). */
Test(cavity, cuda_splits_collapses_match_host_random)
{
    mmx_ctx *cu = tu_cuda_ctx_or_skip(), *host = tu_host_ctx();
    for (uint32_t seed = 5; seed <= 7; seed++) {
        mmx_mesh *m = random_grid(host, 30 + (int)seed, 25, seed);
        cuda_sc_matches_host(cu, m);
        if (seed == 7) {
            mmx_mesh *bare = tu_triangles(host, mmx_mesh_nverts(m), mmx_mesh_nfaces(m),
                                        m->M->rowidx, NULL);
            cuda_sc_matches_host(cu, bare);
            mmx_mesh_free(bare);
        }
        mmx_mesh_free(m);
    }
    mmx_ctx_free(host);
    mmx_ctx_free(cu);
}

Test(cavity, cuda_splits_collapses_match_host_bigguy)
{
    mmx_ctx *cu = tu_cuda_ctx_or_skip(), *host = tu_host_ctx();
    mmx_mesh *m = bigguy_triangles(host);
    cuda_sc_matches_host(cu, m);
    mmx_mesh_free(m);
    mmx_ctx_free(host);
    mmx_ctx_free(cu);
}

/* A CUDA round refuses what the host refuses, with the same sentences. */
Test(cavity, cuda_refusals)
{
    mmx_ctx *cu = tu_cuda_ctx_or_skip();
    mmx_mesh *quads = tu_shape(cu, "torus:8:6"), *tri = tu_shape(cu, "icosphere:1"), *out = NULL;
    const mmx_index seed = 0, far = 1000000;
    cr_assert_eq(mmx_cavity_round(cu, quads, MMX_CAVITY_EDGE_FLIP, &seed, 1, 0, &out, NULL, NULL),
                 MMX_ERR_MESH);
    cr_assert(strstr(mmx_ctx_error(cu), "face 0 has 4 vertices"), "%s", mmx_ctx_error(cu));
    cr_assert_eq(mmx_cavity_round(cu, tri, MMX_CAVITY_EDGE_FLIP, &far, 1, 0, &out, NULL, NULL),
                 MMX_ERR_ARG);
    cr_assert(strstr(mmx_ctx_error(cu), "edge 1000000"), "%s", mmx_ctx_error(cu));
    mmx_delaunay_report rep;
    cr_assert_eq(mmx_delaunay_flip(cu, quads, &out, &rep), MMX_ERR_MESH);
    cr_assert_null(out);
    mmx_mesh_free(quads);
    mmx_mesh_free(tri);
    mmx_ctx_free(cu);
}

/* ---- the topology update of the CUDA Delaunay loop, on the host ------------------------------ */

/* Delaunay rounds on the host; after each, the topology updated from the round before
 * (mmx__flip_update: what the CUDA loop keeps instead of recomputing the adjacency) must be
 * the topology rebuilt from the new mesh: edge_ptr, ev and ef, entry for entry. */
static int update_matches_rebuild(mmx_mesh *in)
{
    mmx_ctx *ctx = in->ctx;
    mmx_mesh *cur = NULL;
    int rounds = 0;
    for (uint32_t k = 0; k < MMX_DELAUNAY_MAX_ROUNDS; k++) {
        const mmx_mesh *m = cur ? cur : in;
        mmx__flip_topo t, t2;
        MMX_OK_OR_FAIL(ctx, mmx__flip_topo_build(ctx, m, "test", &t));
        const mmx_index ne = t.nedges, nv = t.nverts;
        mmx_index *seeds = malloc(((size_t)ne + 1) * sizeof *seeds), n = 0, q[4];
        mmx_cavity_seed *sd = malloc(((size_t)ne + 1) * sizeof *sd);
        cr_assert(seeds && sd);
        for (mmx_index e = 0; e < ne; e++)
            if (mmx__flip_quad(&t, e, q) && mmx_delaunay_violates(m->pos, q[0], q[1], q[2], q[3]))
                seeds[n++] = e;
        mmx_mesh *next = NULL;
        mmx_cavity_counts c;
        MMX_OK_OR_FAIL(ctx, mmx_cavity_round(ctx, m, MMX_CAVITY_EDGE_FLIP, seeds, n, k, &next, &c, sd));
        mmx_index kk = 0;
        for (mmx_index i = 0; i < n; i++)
            if (sd[i].outcome == MMX_CAVITY_KEPT) seeds[kk++] = seeds[i]; /* in place: kk <= i */
        cr_assert_eq(kk, c.kept);
        mmx_index *ep = malloc(((size_t)nv + 1) * sizeof *ep), *ev = malloc(2 * (size_t)ne * sizeof *ev + 1),
                  *ef = malloc(2 * (size_t)ne * sizeof *ef + 1);
        cr_assert(ep && ev && ef);
        mmx__flip_view nvw;
        MMX_OK_OR_FAIL(ctx, mmx__flip_update(ctx, &t.view, seeds, kk, next->M->rowidx, ep, ev, ef, &nvw));
        MMX_OK_OR_FAIL(ctx, mmx__flip_topo_build(ctx, next, "test", &t2));
        cr_assert_eq(t2.nedges, ne);
        cr_assert_eq(memcmp(ep, t2.adj->edge_ptr, ((size_t)nv + 1) * sizeof *ep), 0, "round %u: edge_ptr", k);
        cr_assert_eq(memcmp(ev, t2.adj->ev, 2 * (size_t)ne * sizeof *ev), 0, "round %u: ev", k);
        for (mmx_index e = 0; e < 2 * ne; e++)
            cr_assert_eq(ef[e], t2.ef[e], "round %u: ef[%d] = %d, rebuilt %d", k, e, ef[e], t2.ef[e]);
        mmx__flip_topo_free(&t);
        mmx__flip_topo_free(&t2);
        free(ep);
        free(ev);
        free(ef);
        free(seeds);
        free(sd);
        mmx_mesh_free(cur);
        cur = next;
        if (!c.kept) break;
        rounds++;
    }
    cr_assert(rounds >= 1);
    mmx_mesh_free(cur);
    return rounds;
}

Test(delaunay, topology_update_matches_rebuild)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *g = jittered_grid(ctx, 24, 18, 13), *s = noisy_icosphere(ctx, 4);
    mmx_mesh *r = random_grid(ctx, 30, 20, 9), *b = bigguy_triangles(ctx);
    const int rounds = update_matches_rebuild(g) + update_matches_rebuild(s) +
                       update_matches_rebuild(r) + update_matches_rebuild(b);
    cr_assert(rounds >= 6, "%d rounds: too few updates feed a later round", rounds);
    mmx_mesh_free(g);
    mmx_mesh_free(s);
    mmx_mesh_free(r);
    mmx_mesh_free(b);
    mmx_ctx_free(ctx);
}

/* A device mesh without faces: Delaunay returns it, on CUDA as on the host. */
Test(delaunay, cuda_mesh_without_faces)
{
    mmx_ctx *cu = tu_cuda_ctx_or_skip();
    static const float pos[] = {0, 0, 0, 1, 0, 0};
    static const mmx_index none[1] = {0};
    mmx_mesh *m = tu_triangles(cu, 2, 0, none, pos), *out = NULL;
    mmx_delaunay_report rep;
    MMX_OK_OR_FAIL(cu, mmx_delaunay_flip(cu, m, &out, &rep));
    cr_assert_eq(rep.flips, 0);
    cr_assert_eq(rep.rounds, 0);
    cr_assert_eq(out->M->nrows, 2);
    cr_assert_eq(out->M->ncols, 0);
    cr_assert_eq(out->space, MMX_SPACE_DEVICE);
    mmx_mesh_free(out);
    mmx_mesh_free(m);
    mmx_ctx_free(cu);
}

/* ---- the shared device layers: the selection and the split/collapse topology ---------------- */

/* A device copy of bytes of host memory (at least one byte allocated). */
static void *dev_copy_of(mmx_ctx *cu, const void *h, size_t bytes)
{
    void *d = NULL;
    MMX_OK_OR_FAIL(cu, mmx_mem_alloc(cu, MMX_SPACE_DEVICE, bytes + 1, &d));
    if (bytes) MMX_OK_OR_FAIL(cu, mmx_mem_copy(cu, d, MMX_SPACE_DEVICE, h, MMX_SPACE_HOST, bytes));
    return d;
}

/* A host copy of bytes of device memory (malloc). */
static void *host_copy_of(mmx_ctx *cu, const void *d, size_t bytes)
{
    void *h = malloc(bytes + 1);
    cr_assert(h);
    if (bytes) MMX_OK_OR_FAIL(cu, mmx_mem_copy(cu, h, MMX_SPACE_HOST, d, MMX_SPACE_DEVICE, bytes));
    return h;
}

/* mmx__select_cuda on seeds with the given keys, rings (CSR: ptr, ring) and states, against
 * mmx__cavity_select (the host's greedy pass, no new-edge set) on the same input: every
 * outcome and the kept count. The device runs it twice: with the rings in CSR form (ring_len
 * NULL), and with lengths and the rings spread out with gaps between them. */
static void select_matches_host(mmx_ctx *cu, mmx_index n, const uint64_t *key, const mmx_index *ptr,
                                const mmx_index *ring, mmx_index nelem, const unsigned char *state)
{
    mmx__cavity_key *order = malloc(((size_t)n + 1) * sizeof *order);
    mmx_cavity_seed *sd = calloc((size_t)n + 1, sizeof *sd);
    mmx_index *kept = malloc(((size_t)n + 1) * sizeof *kept);
    unsigned char *taken = calloc((size_t)nelem + 1, 1);
    cr_assert(order && sd && kept && taken);
    mmx_index nvalid = 0;
    for (mmx_index i = 0; i < n; i++) {
        sd[i].priority = key[i];
        sd[i].outcome = (mmx_cavity_outcome)state[i];
        /* The host's key breaks ties by edge and position; the device needs distinct keys
         * among the undecided seeds, as the rounds give it. */
        if (state[i] == MMX__UNDECIDED) order[nvalid++] = (mmx__cavity_key){key[i], i, i};
    }
    mmx__cavity_key_sort(order, nvalid);
    for (mmx_index j = 1; j < nvalid; j++) cr_assert_neq(order[j].priority, order[j - 1].priority);
    const mmx_index hk = mmx__cavity_select(order, nvalid, sd, ptr, ring, taken, kept);
    const mmx_index total = ptr[n];
    /* The second layout: seed i's ring at 2 ptr[i] + i, lengths apart. */
    mmx_index *ptr2 = malloc(((size_t)n + 1) * sizeof *ptr2);
    mmx_index *len2 = malloc(((size_t)n + 1) * sizeof *len2);
    mmx_index *ring2 = malloc((2 * (size_t)total + (size_t)n + 1) * sizeof *ring2);
    cr_assert(ptr2 && len2 && ring2);
    for (mmx_index i = 0; i < 2 * total + n; i++) ring2[i] = -7; /* never read */
    for (mmx_index i = 0; i < n; i++) {
        ptr2[i] = 2 * ptr[i] + i;
        len2[i] = ptr[i + 1] - ptr[i];
        for (mmx_index k = 0; k < len2[i]; k++) ring2[ptr2[i] + k] = ring[ptr[i] + k];
    }
    ptr2[n] = 2 * total + n;
    for (int layout = 0; layout < 2; layout++) {
        const mmx_index *hp = layout ? ptr2 : ptr, *hr = layout ? ring2 : ring;
        const size_t rn = layout ? 2 * (size_t)total + (size_t)n : (size_t)total;
        uint64_t *dkey = dev_copy_of(cu, key, (size_t)n * sizeof *key);
        mmx_index *dptr = dev_copy_of(cu, hp, ((size_t)n + 1) * sizeof *hp);
        mmx_index *dlen = dev_copy_of(cu, len2, (size_t)n * sizeof *len2);
        mmx_index *dring = dev_copy_of(cu, hr, rn * sizeof *hr);
        unsigned char *dstate = dev_copy_of(cu, state, (size_t)n);
        mmx_index dk = -1;
        MMX_OK_OR_FAIL(cu, mmx__select_cuda(cu, n, dkey, dptr, layout ? dlen : NULL, dring, nelem,
                                            dstate, &dk));
        unsigned char *got = host_copy_of(cu, dstate, (size_t)n);
        cr_assert_eq(dk, hk, "layout %d: %d kept on the device, %d on the host", layout, dk, hk);
        for (mmx_index i = 0; i < n; i++)
            cr_assert_eq(got[i], (unsigned char)sd[i].outcome,
                         "layout %d seed %d (key %llu, state %d): %d on the device, %d on the host",
                         layout, i, (unsigned long long)key[i], state[i], got[i], sd[i].outcome);
        mmx_mem_free(cu, MMX_SPACE_DEVICE, dkey);
        mmx_mem_free(cu, MMX_SPACE_DEVICE, dptr);
        mmx_mem_free(cu, MMX_SPACE_DEVICE, dlen);
        mmx_mem_free(cu, MMX_SPACE_DEVICE, dring);
        mmx_mem_free(cu, MMX_SPACE_DEVICE, dstate);
        free(got);
    }
    free(order);
    free(sd);
    free(kept);
    free(taken);
    free(ptr2);
    free(len2);
    free(ring2);
}

Test(cavity, cuda_select_is_the_greedy_pass)
{
    mmx_ctx *cu = tu_cuda_ctx_or_skip();
    /* By hand, 7 seeds on 5 elements: seed 2 (key 5) takes elements 2 and 3 and blocks seed 1
     * (key 10, on 1 and 2); seed 6 (key 40, on 4 and 0) blocks seed 0 (key 50, on 0 and 1);
     * seed 5 has no elements and is kept; seeds 3 (INVALID, key 1, on 0) and 4 (CONFLICT, key
     * 20, on 3 and 4) keep their states and block nothing. So: 0 C, 1 C, 2 K, 3 I, 4 C, 5 K,
     * 6 K (the host's pass decides it below). */
    {
        const uint64_t key[] = {50, 10, 5, 1, 20, 30, 40};
        const mmx_index ptr[] = {0, 2, 4, 6, 7, 9, 9, 11};
        const mmx_index ring[] = {0, 1, 1, 2, 2, 3, 0, 3, 4, 4, 0};
        const unsigned char state[] = {MMX__UNDECIDED, MMX__UNDECIDED, MMX__UNDECIDED,
                                       MMX_CAVITY_INVALID, MMX_CAVITY_CONFLICT, MMX__UNDECIDED,
                                       MMX__UNDECIDED};
        select_matches_host(cu, 7, key, ptr, ring, 5, state);
    }
    /* Random instances: rings of 0 to 5 distinct elements over few elements (long chains of
     * conflicts: many steps), keys distinct, some seeds INVALID or CONFLICT beforehand. */
    uint32_t rng = 77;
    for (int t = 0; t < 6; t++) {
        const mmx_index n = 300 + 700 * t, nelem = 40 + 60 * t;
        uint64_t *key = malloc((size_t)n * sizeof *key);
        mmx_index *ptr = malloc(((size_t)n + 1) * sizeof *ptr);
        mmx_index *ring = malloc(5 * (size_t)n * sizeof *ring);
        unsigned char *state = malloc((size_t)n);
        cr_assert(key && ptr && ring && state);
        ptr[0] = 0;
        for (mmx_index i = 0; i < n; i++) {
            /* distinct: i times an odd number (a bijection of 32-bit words) in the high bits,
             * which shuffles the order; random bits below */
            key[i] = (uint64_t)((uint32_t)i * 2654435761u) << 20 | (uint64_t)(tu_rng(&rng) % 1000);
            const uint32_t r = tu_rng(&rng) % 10;
            state[i] = r == 0 ? MMX_CAVITY_INVALID : r == 1 ? MMX_CAVITY_CONFLICT : MMX__UNDECIDED;
            const mmx_index len = (mmx_index)(tu_rng(&rng) % 6);
            mmx_index m = 0;
            while (m < len) {
                const mmx_index e = (mmx_index)(tu_rng(&rng) % (uint32_t)nelem);
                int dup = 0;
                for (mmx_index k = 0; k < m; k++) dup |= ring[ptr[i] + k] == e;
                if (!dup) ring[ptr[i] + m++] = e;
            }
            ptr[i + 1] = ptr[i] + len;
        }
        select_matches_host(cu, n, key, ptr, ring, nelem, state);
        free(key);
        free(ptr);
        free(ring);
        free(state);
    }
    mmx_ctx_free(cu);
}

/* mmx__sc_dev_build on the device copy of m against mmx__flip_topo_build on the host: ef, hf,
 * vf_ptr and vf entry for entry (the faces at each vertex in the host's ascending order).
 * Returns 1 when m has a boundary edge (one face in hf, none in ef). */
static int sc_dev_matches_host(mmx_ctx *cu, const mmx_mesh *hm)
{
    mmx_ctx *host = hm->ctx;
    mmx__flip_topo ht;
    MMX_OK_OR_FAIL(host, mmx__flip_topo_build(host, hm, "test", &ht));
    mmx_mesh *dm = to_space(cu, hm, MMX_SPACE_DEVICE);
    mmx__sc_dev dt;
    MMX_OK_OR_FAIL(cu, mmx__sc_dev_build(cu, dm, "test", &dt));
    const mmx_index nv = ht.nverts, nf = ht.nfaces, ne = ht.nedges;
    cr_assert_eq(dt.f.view.nverts, nv);
    cr_assert_eq(dt.f.view.nfaces, nf);
    cr_assert_eq(dt.f.view.nedges, ne);
    cr_assert(dt.view.hf == dt.hf && dt.view.vf_ptr == dt.vf_ptr && dt.view.vf == dt.vf);
    const size_t eb = 2 * (size_t)ne * sizeof(mmx_index);
    mmx_index *ef = host_copy_of(cu, dt.f.ef, eb), *hf = host_copy_of(cu, dt.hf, eb);
    mmx_index *vp = host_copy_of(cu, dt.vf_ptr, ((size_t)nv + 1) * sizeof(mmx_index));
    mmx_index *vf = host_copy_of(cu, dt.vf, 3 * (size_t)nf * sizeof(mmx_index));
    int boundary = 0;
    for (mmx_index e = 0; e < 2 * ne; e++) {
        cr_assert_eq(ef[e], ht.ef[e], "ef[%d] = %d, host %d", e, ef[e], ht.ef[e]);
        cr_assert_eq(hf[e], ht.hf[e], "hf[%d] = %d, host %d", e, hf[e], ht.hf[e]);
        boundary |= ht.hf[e] >= 0 && ht.ef[e] < 0;
    }
    for (mmx_index v = 0; v <= nv; v++)
        cr_assert_eq(vp[v], ht.vf_ptr[v], "vf_ptr[%d] = %d, host %d", v, vp[v], ht.vf_ptr[v]);
    for (mmx_index k = 0; k < 3 * nf; k++)
        cr_assert_eq(vf[k], ht.vf[k], "vf[%d] = %d, host %d", k, vf[k], ht.vf[k]);
    free(ef);
    free(hf);
    free(vp);
    free(vf);
    mmx__sc_dev_free(cu, &dt);
    cr_assert_null(dt.vf);
    mmx_mesh_free(dm);
    mmx__flip_topo_free(&ht);
    return boundary;
}

Test(cavity, cuda_sc_topology_is_the_hosts)
{
    mmx_ctx *cu = tu_cuda_ctx_or_skip(), *host = tu_host_ctx();
    mmx_mesh *ms[4] = {jittered_grid(host, 17, 11, 4), noisy_icosphere(host, 6),
                       random_grid(host, 23, 19, 8), bigguy_triangles(host)};
    for (int i = 0; i < 4; i++) {
        const int boundary = sc_dev_matches_host(cu, ms[i]);
        if (i == 0) cr_assert(boundary, "the grid has a boundary: hf's own entries untested");
        mmx_mesh_free(ms[i]);
    }
    mmx_ctx_free(host);
    mmx_ctx_free(cu);
}

/* ---- face splits and moves on CUDA against the host ----------------------------------------- */

/* The same outcome, cavity and vertex per seed, the same counts, and output meshes of the same
 * bytes (sizes, faces, positions): a device mesh d against a host mesh h. */
static void expect_same_round(mmx_ctx *cu, const char *what, int k, mmx_index n,
                              const mmx_cavity_counts *hc, const mmx_cavity_counts *dc,
                              const mmx_cavity_seed *hs, const mmx_cavity_seed *ds,
                              const mmx_mesh *h, const mmx_mesh *d)
{
    cr_assert_eq(memcmp(hc, dc, sizeof *hc), 0,
                 "%s round %d: counts %d/%d/%d/%d host, %d/%d/%d/%d cuda", what, k, hc->proposed,
                 hc->kept, hc->invalid, hc->conflicts, dc->proposed, dc->kept, dc->invalid,
                 dc->conflicts);
    for (mmx_index i = 0; i < n; i++)
        cr_assert_eq(memcmp(&hs[i], &ds[i], sizeof hs[i]), 0,
                     "%s round %d seed %d: outcome %d faces %d %d vertex %d host, outcome %d "
                     "faces %d %d vertex %d cuda", what, k, i, hs[i].outcome, hs[i].faces[0],
                     hs[i].faces[1], hs[i].vertex, ds[i].outcome, ds[i].faces[0],
                     ds[i].faces[1], ds[i].vertex);
    mmx_mesh *back = to_space(cu, d, MMX_SPACE_HOST);
    const mmx_index nv = mmx_mesh_nverts(h), nf = mmx_mesh_nfaces(h);
    cr_assert_eq(mmx_mesh_nverts(back), nv, "%s round %d", what, k);
    cr_assert_eq(mmx_mesh_nfaces(back), nf, "%s round %d", what, k);
    cr_assert_eq(back->M->order, 3);
    cr_assert_eq(memcmp(back->M->rowidx, h->M->rowidx, 3 * (size_t)nf * sizeof(mmx_index)), 0,
                 "%s round %d: faces differ", what, k);
    cr_assert_eq(!back->pos, !h->pos);
    if (h->pos)
        cr_assert_eq(memcmp(back->pos, h->pos, 3 * (size_t)nv * sizeof(float)), 0,
                     "%s round %d: positions differ", what, k);
    mmx_mesh_free(back);
}

/* The length of the diagonal of the bounding box of positions pos (nv x 3). */
static float diagonal(const float *pos, mmx_index nv)
{
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (mmx_index v = 0; v < nv; v++)
        for (int k = 0; k < 3; k++) {
            lo[k] = fminf(lo[k], pos[3 * v + k]);
            hi[k] = fmaxf(hi[k], pos[3 * v + k]);
        }
    return sqrtf((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                 (hi[2] - lo[2]) * (hi[2] - lo[2]));
}

/* Random move seeds for positions pos (nv x 3, host): n vertices drawn with repeats, each with
 * a target near its vertex (a step up to 1/200 of the diagonal), far from it (every 7th: up to
 * a third of the diagonal, which folds faces), or not finite (every 41st NaN, every 53rd
 * infinite). */
static void random_moves(const float *pos, mmx_index nv, uint32_t *rng, mmx_index n,
                         mmx_index *seeds, float *targets)
{
    const float d = diagonal(pos, nv);
    for (mmx_index i = 0; i < n; i++) {
        const mmx_index v = (mmx_index)(tu_rng(rng) % (uint32_t)nv);
        const float step = i % 7 == 3 ? d / 3 : d / 200;
        seeds[i] = v;
        for (int k = 0; k < 3; k++)
            targets[3 * i + k] =
                pos[3 * v + k] + step * ((float)(tu_rng(rng) % 2001) / 1000.0f - 1.0f);
        if (i % 41 == 5) targets[3 * i + 1] = NAN;
        if (i % 53 == 7) targets[3 * i + 2] = INFINITY;
    }
}

/* Rounds of face splits then moves, alternating, on the host and on CUDA from the same input:
 * each face split round seeded by random faces with repeats (about 60% of the faces, drawn
 * independently, so many twice), each move round by random vertices with repeats and random
 * targets (random_moves), the rounds' outputs feeding the next: the same per-seed outcomes,
 * counts and output bytes. A mesh without positions runs the face splits only. Returns the
 * number of rounds with conflicts and with invalid seeds (the caller asks for some). */
static void cuda_templates_match_host(mmx_ctx *cu, mmx_mesh *hm, uint32_t seed, int *conflicts,
                                      int *invalid)
{
    mmx_ctx *host = hm->ctx;
    mmx_mesh *dm = to_space(cu, hm, MMX_SPACE_DEVICE);
    mmx_mesh *hcur = hm, *dcur = dm;
    uint32_t rng = seed;
    /* No seeds: the mesh comes back as it was. */
    mmx_cavity_counts hc, dc;
    mmx_mesh *hn = NULL, *dn = NULL;
    MMX_OK_OR_FAIL(host, mmx_cavity_face_split_round(host, hm, NULL, 0, 0, &hn, &hc, NULL));
    MMX_OK_OR_FAIL(cu, mmx_cavity_face_split_round(cu, dm, NULL, 0, 0, &dn, &dc, NULL));
    expect_same_round(cu, "empty face split", 0, 0, &hc, &dc, NULL, NULL, hn, dn);
    mmx_mesh_free(hn);
    mmx_mesh_free(dn);
    if (hm->pos) {
        MMX_OK_OR_FAIL(host, mmx_cavity_relocate_round(host, hm, NULL, NULL, 0, 0, &hn, &hc, NULL));
        MMX_OK_OR_FAIL(cu, mmx_cavity_relocate_round(cu, dm, NULL, NULL, 0, 0, &dn, &dc, NULL));
        expect_same_round(cu, "empty move", 0, 0, &hc, &dc, NULL, NULL, hn, dn);
        mmx_mesh_free(hn);
        mmx_mesh_free(dn);
    }
    for (int k = 0; k < 4; k++) {
        const int move = k % 2 && hm->pos;
        const mmx_index nf = mmx_mesh_nfaces(hcur), nv = mmx_mesh_nverts(hcur);
        const mmx_index n = move ? nv + nv / 3 : nf / 2 + nf / 10;
        mmx_index *seeds = malloc(((size_t)n + 1) * sizeof *seeds);
        float *targets = malloc((3 * (size_t)n + 1) * sizeof *targets);
        mmx_cavity_seed *hs = malloc(((size_t)n + 1) * sizeof *hs);
        mmx_cavity_seed *ds = malloc(((size_t)n + 1) * sizeof *ds);
        cr_assert(seeds && targets && hs && ds);
        memset(ds, 0x5a, ((size_t)n + 1) * sizeof *ds); /* every entry must be written */
        if (move) {
            random_moves(hcur->pos, nv, &rng, n, seeds, targets);
            MMX_OK_OR_FAIL(host, mmx_cavity_relocate_round(host, hcur, seeds, targets, n,
                                                           (uint32_t)k, &hn, &hc, hs));
            MMX_OK_OR_FAIL(cu, mmx_cavity_relocate_round(cu, dcur, seeds, targets, n,
                                                         (uint32_t)k, &dn, &dc, ds));
        } else {
            for (mmx_index i = 0; i < n; i++) seeds[i] = (mmx_index)(tu_rng(&rng) % (uint32_t)nf);
            MMX_OK_OR_FAIL(host, mmx_cavity_face_split_round(host, hcur, seeds, n, (uint32_t)k,
                                                             &hn, &hc, hs));
            MMX_OK_OR_FAIL(cu, mmx_cavity_face_split_round(cu, dcur, seeds, n, (uint32_t)k, &dn,
                                                           &dc, ds));
        }
        cr_assert(hc.kept > 0, "round %d kept nothing", k);
        *conflicts += hc.conflicts > 0;
        *invalid += hc.invalid > 0;
        expect_same_round(cu, move ? "move" : "face split", k, n, &hc, &dc, hs, ds, hn, dn);
        /* Without per_seed and counts the device round makes the same mesh. */
        mmx_mesh *dn2 = NULL;
        if (move)
            MMX_OK_OR_FAIL(cu, mmx_cavity_relocate_round(cu, dcur, seeds, targets, n, (uint32_t)k,
                                                         &dn2, NULL, NULL));
        else
            MMX_OK_OR_FAIL(cu, mmx_cavity_face_split_round(cu, dcur, seeds, n, (uint32_t)k, &dn2,
                                                           NULL, NULL));
        expect_same_round(cu, "again", k, 0, &hc, &hc, NULL, NULL, hn, dn2);
        mmx_mesh_free(dn2);
        if (hcur != hm) mmx_mesh_free(hcur);
        if (dcur != dm) mmx_mesh_free(dcur);
        hcur = hn, dcur = dn;
        free(seeds);
        free(targets);
        free(hs);
        free(ds);
    }
    if (hcur != hm) mmx_mesh_free(hcur);
    if (dcur != dm) mmx_mesh_free(dcur);
    mmx_mesh_free(dm);
}

Test(cavity, cuda_face_splits_moves_match_host_grid)
{
    mmx_ctx *cu = tu_cuda_ctx_or_skip(), *host = tu_host_ctx();
    mmx_mesh *m = jittered_grid(host, 40, 30, 21);
    int conflicts = 0, invalid = 0;
    cuda_templates_match_host(cu, m, 11, &conflicts, &invalid);
    cr_assert(conflicts >= 3 && invalid >= 2, "%d rounds with conflicts, %d with invalid seeds",
              conflicts, invalid);
    mmx_mesh_free(m);
    mmx_ctx_free(host);
    mmx_ctx_free(cu);
}

Test(cavity, cuda_face_splits_moves_match_host_spheres)
{
    mmx_ctx *cu = tu_cuda_ctx_or_skip(), *host = tu_host_ctx();
    int conflicts = 0, invalid = 0;
    for (uint32_t seed = 1; seed <= 3; seed++) {
        mmx_mesh *m = noisy_icosphere(host, seed);
        cuda_templates_match_host(cu, m, seed, &conflicts, &invalid);
        mmx_mesh_free(m);
    }
    cr_assert(conflicts >= 9 && invalid >= 6, "%d rounds with conflicts, %d with invalid seeds",
              conflicts, invalid);
    mmx_ctx_free(host);
    mmx_ctx_free(cu);
}

/* Random diagonals, and one without positions (face splits only, no check to fail). */
Test(cavity, cuda_face_splits_moves_match_host_random)
{
    mmx_ctx *cu = tu_cuda_ctx_or_skip(), *host = tu_host_ctx();
    int conflicts = 0, invalid = 0;
    for (uint32_t seed = 5; seed <= 7; seed++) {
        mmx_mesh *m = random_grid(host, 30 + (int)seed, 25, seed);
        cuda_templates_match_host(cu, m, seed, &conflicts, &invalid);
        if (seed == 7) {
            mmx_mesh *bare = tu_triangles(host, mmx_mesh_nverts(m), mmx_mesh_nfaces(m),
                                        m->M->rowidx, NULL);
            int c2 = 0, i2 = 0;
            cuda_templates_match_host(cu, bare, seed, &c2, &i2);
            cr_assert(c2 == 4 && i2 == 0, "%d rounds with conflicts, %d with invalid seeds", c2, i2);
            mmx_mesh_free(bare);
        }
        mmx_mesh_free(m);
    }
    cr_assert(conflicts >= 9 && invalid >= 6, "%d rounds with conflicts, %d with invalid seeds",
              conflicts, invalid);
    mmx_ctx_free(host);
    mmx_ctx_free(cu);
}

Test(cavity, cuda_face_splits_moves_match_host_bigguy)
{
    mmx_ctx *cu = tu_cuda_ctx_or_skip(), *host = tu_host_ctx();
    mmx_mesh *m = bigguy_triangles(host);
    int conflicts = 0, invalid = 0;
    cuda_templates_match_host(cu, m, 9, &conflicts, &invalid);
    cr_assert(conflicts >= 3 && invalid >= 2, "%d rounds with conflicts, %d with invalid seeds",
              conflicts, invalid);
    mmx_mesh_free(m);
    mmx_ctx_free(host);
    mmx_ctx_free(cu);
}

/* The remesher's relocation (mmx__relocate_round_pos with a quality bound) against the device
 * round on the device topology, several rounds on one topology (positions carried over, as
 * the remesher runs them): the same outcomes, counts and positions, bit for bit. */
Test(cavity, cuda_relocation_with_quality_bound_matches_host)
{
    mmx_ctx *cu = tu_cuda_ctx_or_skip(), *host = tu_host_ctx();
    mmx_mesh *ms[2] = {noisy_icosphere(host, 4), random_grid(host, 33, 27, 3)};
    for (int mi = 0; mi < 2; mi++) {
        mmx_mesh *hm = ms[mi], *dm = to_space(cu, hm, MMX_SPACE_DEVICE);
        mmx__flip_topo ht;
        mmx__sc_dev dt;
        MMX_OK_OR_FAIL(host, mmx__flip_topo_build(host, hm, "test", &ht));
        MMX_OK_OR_FAIL(cu, mmx__sc_dev_build(cu, dm, "test", &dt));
        const mmx_index nv = ht.nverts, n = nv + nv / 4;
        const size_t pb = 3 * (size_t)nv * sizeof(float);
        float *hp = malloc(pb), *dp = dev_copy_of(cu, hm->pos, pb);
        memcpy(hp, hm->pos, pb);
        mmx_index *seeds = malloc((size_t)n * sizeof *seeds);
        float *targets = malloc(3 * (size_t)n * sizeof *targets);
        mmx_cavity_seed *hs = malloc((size_t)n * sizeof *hs);
        cr_assert(hp && seeds && targets && hs);
        uint32_t rng = 77 + (uint32_t)mi;
        int refused_by_quality = 0;
        for (int k = 0; k < 3; k++) {
            /* The targets drawn around the current positions (the host's: the same so far). */
            random_moves(hp, nv, &rng, n, seeds, targets);
            mmx_cavity_counts hc, dc, h0;
            /* Without the bound first, on a scratch copy, to see the bound refuse moves. */
            float *scratch = malloc(pb);
            cr_assert(scratch);
            memcpy(scratch, hp, pb);
            MMX_OK_OR_FAIL(host, mmx__relocate_round_pos(host, &ht, scratch, seeds, targets, n,
                                                         (uint32_t)k, 0, &h0, NULL));
            free(scratch);
            MMX_OK_OR_FAIL(host, mmx__relocate_round_pos(host, &ht, hp, seeds, targets, n,
                                                         (uint32_t)k, 0.3, &hc, hs));
            refused_by_quality += hc.invalid > h0.invalid;
            mmx_index *dseeds = dev_copy_of(cu, seeds, (size_t)n * sizeof *seeds);
            float *dtargets = dev_copy_of(cu, targets, 3 * (size_t)n * sizeof *targets);
            mmx_cavity_seed *dsd = NULL;
            MMX_OK_OR_FAIL(cu, mmx_mem_alloc(cu, MMX_SPACE_DEVICE, (size_t)n * sizeof *hs,
                                             (void **)&dsd));
            MMX_OK_OR_FAIL(cu, mmx__relocate_round_cuda(cu, &dt.view, dp, dseeds, dtargets, n,
                                                        (uint32_t)k, 0.3, &dc, dsd));
            mmx_cavity_seed *ds = host_copy_of(cu, dsd, (size_t)n * sizeof *ds);
            float *got = host_copy_of(cu, dp, pb);
            cr_assert(hc.kept > 0 && hc.conflicts > 0 && hc.invalid > 0);
            cr_assert_eq(memcmp(&hc, &dc, sizeof hc), 0, "mesh %d round %d: counts %d/%d/%d host, "
                         "%d/%d/%d cuda", mi, k, hc.kept, hc.invalid, hc.conflicts, dc.kept,
                         dc.invalid, dc.conflicts);
            for (mmx_index i = 0; i < n; i++)
                cr_assert_eq(memcmp(&hs[i], &ds[i], sizeof hs[i]), 0,
                             "mesh %d round %d seed %d: outcome %d host, %d cuda", mi, k, i,
                             hs[i].outcome, ds[i].outcome);
            cr_assert_eq(memcmp(got, hp, pb), 0, "mesh %d round %d: positions differ", mi, k);
            free(ds);
            free(got);
            mmx_mem_free(cu, MMX_SPACE_DEVICE, dseeds);
            mmx_mem_free(cu, MMX_SPACE_DEVICE, dtargets);
            mmx_mem_free(cu, MMX_SPACE_DEVICE, dsd);
        }
        cr_assert(refused_by_quality > 0, "mesh %d: the bound never refused a move", mi);
        free(hp);
        free(seeds);
        free(targets);
        free(hs);
        mmx_mem_free(cu, MMX_SPACE_DEVICE, dp);
        mmx__sc_dev_free(cu, &dt);
        mmx__flip_topo_free(&ht);
        mmx_mesh_free(dm);
        mmx_mesh_free(hm);
    }
    mmx_ctx_free(host);
    mmx_ctx_free(cu);
}

/* ---- vertex removal and user cavities ------------------------------------------------------ */

/* A regular hexagon fan: centre 0 at the origin, ring 1..6 counter-clockwise, faces
 * (0, i, i + 1). */
static mmx_mesh *hexagon_fan(mmx_ctx *ctx, int with_pos)
{
    float pos[21] = {0};
    mmx_index verts[18];
    for (int i = 0; i < 6; i++) {
        pos[3 * (i + 1)] = (float)cos(PI / 3 * i);
        pos[3 * (i + 1) + 1] = (float)sin(PI / 3 * i);
        verts[3 * i] = 0, verts[3 * i + 1] = i + 1, verts[3 * i + 2] = i < 5 ? i + 2 : 1;
    }
    return tu_triangles(ctx, 7, 6, verts, with_pos ? pos : NULL);
}

static void expect_valid_mesh(mmx_ctx *ctx, const mmx_mesh *m, int64_t euler, mmx_index loops)
{
    mmx_mesh_validation r;
    const mmx_mesh_expect x = {1, euler, 1, loops};
    MMX_OK_OR_FAIL(ctx, mmx_mesh_validate(ctx, m, &x, &r));
    cr_assert(r.valid, "%s", r.problem);
}

Test(vremove, hexagon_centre)
{
    mmx_ctx *ctx = tu_host_ctx();
    for (int with_pos = 0; with_pos < 2; with_pos++) {
        mmx_mesh *m = hexagon_fan(ctx, with_pos), *out = NULL;
        const mmx_index seeds[3] = {1, 0, 0}; /* a boundary vertex, the centre, a copy */
        mmx_cavity_seed sd[3];
        mmx_cavity_counts c;
        MMX_OK_OR_FAIL(ctx, mmx_cavity_vertex_remove_round(ctx, m, seeds, 3, 0, &out, &c, sd));
        cr_assert(c.proposed == 3 && c.kept == 1 && c.invalid == 1 && c.conflicts == 1);
        cr_assert_eq(sd[0].outcome, MMX_CAVITY_INVALID);
        cr_assert(sd[0].faces[0] == -1 && sd[0].faces[1] == -1 && sd[0].vertex == -1);
        cr_assert_eq(sd[1].outcome, MMX_CAVITY_KEPT);
        cr_assert_eq(sd[2].outcome, MMX_CAVITY_CONFLICT);
        /* u = 1, the lowest neighbour: edge {0, 1}'s faces 0 = (0, 1, 2) (running it from 0)
         * and 5 = (0, 6, 1); u's new number 0. */
        cr_assert(sd[1].faces[0] == 0 && sd[1].faces[1] == 5, "%d %d", sd[1].faces[0], sd[1].faces[1]);
        cr_assert_eq(sd[1].vertex, 0);
        cr_assert_eq(sd[1].priority, mmx_cavity_priority(0, 0));
        cr_assert_eq(mmx_mesh_nverts(out), 6);
        cr_assert_eq(mmx_mesh_nfaces(out), 4);
        /* Faces 1..4 (0, i, i + 1), i = 2..5, with 0 -> 1, then every vertex w -> w - 1. */
        for (mmx_index f = 0; f < 4; f++) {
            const mmx_index *g = out->M->rowidx + 3 * f;
            cr_assert(g[0] == 0 && g[1] == f + 1 && g[2] == f + 2, "face %d: %d %d %d", f, g[0],
                      g[1], g[2]);
        }
        if (with_pos) {
            cr_assert_eq(memcmp(out->pos, m->pos + 3, 18 * sizeof(float)), 0);
            expect_valid_mesh(ctx, out, 1, 1);
        } else {
            cr_assert_null(out->pos);
        }
        mmx_mesh_free(out);
        mmx_mesh_free(m);
    }
    mmx_ctx_free(ctx);
}

/* A square pyramid closed by two top faces: e1..e4 = 0..3 around the square, b = 4 below.
 * Removing 2: u = 0 fails the link condition (0 and 2 share 1, 3 and 4), u = 1 is taken. */
Test(vremove, link_condition_picks_the_next_neighbour)
{
    mmx_ctx *ctx = tu_host_ctx();
    const float pos[15] = {1, 0, 0, 0, 1, 0, -1, 0, 0, 0, -1, 0, 0, 0, -1};
    const mmx_index verts[18] = {0, 1, 2, 0, 2, 3, 4, 1, 0, 4, 2, 1, 4, 3, 2, 4, 0, 3};
    for (int with_pos = 0; with_pos < 2; with_pos++) {
        mmx_mesh *m = tu_triangles(ctx, 5, 6, verts, with_pos ? pos : NULL), *out = NULL;
        expect_valid_mesh(ctx, m, 2, 0);
        const mmx_index seed = 2;
        mmx_cavity_seed sd;
        mmx_cavity_counts c;
        MMX_OK_OR_FAIL(ctx, mmx_cavity_vertex_remove_round(ctx, m, &seed, 1, 3, &out, &c, &sd));
        cr_assert_eq(c.kept, 1);
        cr_assert_eq(sd.vertex, 1);
        /* Edge {1, 2}: face 0 = (0, 1, 2) runs it from 1, face 3 = (4, 2, 1) from 2. */
        cr_assert(sd.faces[0] == 0 && sd.faces[1] == 3);
        cr_assert_eq(mmx_mesh_nverts(out), 4);
        cr_assert_eq(mmx_mesh_nfaces(out), 4);
        expect_valid_mesh(ctx, out, 2, 0); /* a tetrahedron */
        /* Now every vertex is a tetrahedron's tip: each one refused. */
        const mmx_index all[4] = {0, 1, 2, 3};
        mmx_cavity_seed s4[4];
        mmx_mesh *again = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_cavity_vertex_remove_round(ctx, out, all, 4, 0, &again, &c, s4));
        cr_assert(c.invalid == 4 && c.kept == 0);
        cr_assert_eq(mmx_mesh_nfaces(again), 4);
        mmx_mesh_free(again);
        mmx_mesh_free(out);
        mmx_mesh_free(m);
    }
    mmx_ctx_free(ctx);
}

Test(vremove, refusals)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = hexagon_fan(ctx, 1), *out = NULL;
    const mmx_index bad = 7;
    cr_assert_eq(mmx_cavity_vertex_remove_round(ctx, m, &bad, 1, 0, &out, NULL, NULL), MMX_ERR_ARG);
    cr_assert(strstr(mmx_ctx_error(ctx), "vertex 7"), "%s", mmx_ctx_error(ctx));
    cr_assert_null(out);
    /* Vertex 2 pulled in to (0.1, 0.3), a reflex corner seen from the centre but not from
     * 1: u = 1 would fold (0, 2, 3) into (1, 2, 3), so u = 2 is taken (its new number 1),
     * edge {0, 2}'s faces 1 = (0, 2, 3) (running it from 0) and 0 = (0, 1, 2). */
    float pos[21];
    memcpy(pos, m->pos, sizeof pos);
    pos[3 * 2] = 0.1f, pos[3 * 2 + 1] = 0.3f;
    mmx_mesh *w = tu_triangles(ctx, 7, 6, m->M->rowidx, pos);
    expect_valid_mesh(ctx, w, 1, 1);
    const mmx_index c0 = 0;
    mmx_cavity_seed sd;
    MMX_OK_OR_FAIL(ctx, mmx_cavity_vertex_remove_round(ctx, w, &c0, 1, 0, &out, NULL, &sd));
    cr_assert_eq(sd.outcome, MMX_CAVITY_KEPT);
    cr_assert(sd.faces[0] == 1 && sd.faces[1] == 0 && sd.vertex == 1, "%d %d %d", sd.faces[0],
              sd.faces[1], sd.vertex);
    expect_valid_mesh(ctx, out, 1, 1);
    mmx_mesh_free(out);
    mmx_mesh_free(w);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* Rounds of vertex removal with every vertex (and a fifth again) as seeds: the kept seeds'
 * cavities disjoint, each output valid with the input's Euler characteristic and loops, one
 * vertex and two faces fewer per kept seed. */
static void vremove_rounds(mmx_mesh *in, int64_t euler, mmx_index loops, int rounds)
{
    mmx_ctx *ctx = in->ctx;
    mmx_mesh *cur = in;
    int kept = 0;
    for (int r = 0; r < rounds; r++) {
        const mmx_index nv = mmx_mesh_nverts(cur), n = nv + nv / 5;
        mmx_index *seeds = malloc((size_t)n * sizeof *seeds);
        mmx_cavity_seed *sd = malloc((size_t)n * sizeof *sd);
        cr_assert(seeds && sd);
        for (mmx_index i = 0; i < n; i++) seeds[i] = i < nv ? i : (mmx_index)((i * 7) % nv);
        mmx_mesh *out = NULL;
        mmx_cavity_counts c;
        MMX_OK_OR_FAIL(ctx, mmx_cavity_vertex_remove_round(ctx, cur, seeds, n, (uint32_t)r, &out,
                                                           &c, sd));
        cr_assert_eq(c.proposed, c.kept + c.invalid + c.conflicts);
        cr_assert_eq(mmx_mesh_nverts(out), nv - c.kept);
        cr_assert_eq(mmx_mesh_nfaces(out), mmx_mesh_nfaces(cur) - 2 * c.kept);
        kept += c.kept;
        /* The kept cavities (faces at v and at its u, by the shared step) are disjoint, and
         * every conflict meets a kept one. */
        mmx__flip_topo t;
        MMX_OK_OR_FAIL(ctx, mmx__flip_topo_build(ctx, cur, "test", &t));
        const mmx__sc_view v = mmx__sc_host_view(&t);
        int *owner = malloc((size_t)mmx_mesh_nfaces(cur) * sizeof *owner);
        mmx_index *ring = malloc(2 * (size_t)mmx_mesh_nfaces(cur) * sizeof *ring);
        cr_assert(owner && ring);
        for (mmx_index f = 0; f < mmx_mesh_nfaces(cur); f++) owner[f] = -1;
        for (int pass = 0; pass < 2; pass++)
            for (mmx_index i = 0; i < n; i++) {
                if (sd[i].outcome != (pass ? MMX_CAVITY_CONFLICT : MMX_CAVITY_KEPT)) continue;
                mmx_cavity_seed x;
                const mmx_index u = mmx__vr_choose(&v, cur->pos, seeds[i], (uint32_t)r, &x);
                cr_assert(u >= 0 && memcmp(x.faces, sd[i].faces, sizeof x.faces) == 0);
                const mmx_index len = mmx__vr_ring(&v, seeds[i], u, ring);
                int meets = 0;
                for (mmx_index q = 0; q < len; q++) {
                    const int o = owner[ring[q]];
                    if (!pass) cr_assert(o == -1 || o == (int)i, "seeds %d and %d share face %d",
                                         o, (int)i, ring[q]);
                    if (!pass) owner[ring[q]] = (int)i;
                    meets |= o >= 0;
                }
                if (pass) cr_assert(meets, "seed %d: a conflict with no kept cavity", (int)i);
            }
        free(owner);
        free(ring);
        mmx__flip_topo_free(&t);
        expect_valid_mesh(ctx, out, euler, loops);
        if (cur != in) mmx_mesh_free(cur);
        cur = out;
        free(seeds);
        free(sd);
    }
    cr_assert(kept > 0);
    if (cur != in) mmx_mesh_free(cur);
}

Test(vremove, random_rounds_stay_valid)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *g = jittered_grid(ctx, 12, 9, 3), *s = noisy_icosphere(ctx, 4);
    vremove_rounds(g, 1, 1, 3);
    vremove_rounds(s, 2, 0, 4);
    mmx_mesh *bare = tu_triangles(ctx, mmx_mesh_nverts(s), mmx_mesh_nfaces(s), s->M->rowidx, NULL);
    mmx_mesh_validation r;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_validate(ctx, bare, NULL, &r));
    vremove_rounds(bare, 2, 0, 3);
    mmx_mesh_free(bare);
    mmx_mesh_free(g);
    mmx_mesh_free(s);
    mmx_ctx_free(ctx);
}

Test(user_cavity, hexagon_fan_refilled)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = hexagon_fan(ctx, 1), *out = NULL;
    /* Its faces in a scrambled order: the numbering does not depend on it. */
    const mmx_index ptr[2] = {0, 6}, faces[6] = {3, 1, 5, 0, 4, 2};
    mmx_cavity_seed sd;
    mmx_cavity_counts c;
    MMX_OK_OR_FAIL(ctx, mmx_cavity_user_round(ctx, m, ptr, faces, 1, NULL, 2, &out, &c, &sd));
    cr_assert(c.proposed == 1 && c.kept == 1 && c.invalid == 0 && c.conflicts == 0);
    cr_assert_eq(sd.outcome, MMX_CAVITY_KEPT);
    cr_assert_eq(sd.vertex, 7);
    cr_assert_eq(sd.priority, mmx_cavity_priority(0, 2));
    cr_assert_eq(mmx_mesh_nverts(out), 8);
    cr_assert_eq(mmx_mesh_nfaces(out), 6);
    /* The fan in loop order from the smallest loop vertex, 1: (i, i + 1, 7). */
    for (mmx_index f = 0; f < 6; f++) {
        const mmx_index *g = out->M->rowidx + 3 * f;
        cr_assert(g[0] == f + 1 && g[1] == (f < 5 ? f + 2 : 1) && g[2] == 7, "face %d: %d %d %d",
                  f, g[0], g[1], g[2]);
    }
    /* The new vertex: the loop's coordinates summed in double in loop order, over 6. */
    for (int k = 0; k < 3; k++) {
        double s = 0;
        for (int i = 1; i <= 6; i++) s += (double)m->pos[3 * i + k];
        cr_assert_eq(out->pos[21 + k], (float)(s / 6.0));
    }
    cr_assert_eq(memcmp(out->pos, m->pos, 21 * sizeof(float)), 0); /* vertex 0 kept, isolated */
    mmx_mesh_validation r;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_validate(ctx, out, NULL, &r));
    cr_assert(r.valid, "%s", r.problem);
    cr_assert_eq(r.stats.euler, 1);
    cr_assert_eq(r.stats.isolated_verts, 1);
    mmx_mesh_free(out);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* Sets that are no disk, or a bad fill, are refused; one face alone is a disk; two cavities
 * sharing a face conflict by the priorities given. */
Test(user_cavity, refusals_and_conflicts)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = hexagon_fan(ctx, 1), *out = NULL;
    /* 0: {0, 2} not connected; 1: {1, 1} repeated; 2: {} empty; 3: {4} a disk; 4: {3, 4} a
     * disk sharing face 4 with cavity 3; 5: {1, 2, 3} a disk (half the hexagon, the centre on
     * its loop) sharing face 3 with cavity 4 */
    const mmx_index ptr[7] = {0, 2, 4, 4, 5, 7, 10};
    const mmx_index faces[10] = {0, 2, 1, 1, 4, 3, 4, 1, 2, 3};
    const uint64_t pri[6] = {0, 1, 2, 9, 3, 4};
    mmx_cavity_seed sd[6];
    mmx_cavity_counts c;
    MMX_OK_OR_FAIL(ctx, mmx_cavity_user_round(ctx, m, ptr, faces, 6, pri, 0, &out, &c, sd));
    cr_assert_eq(sd[0].outcome, MMX_CAVITY_INVALID);
    cr_assert_eq(sd[1].outcome, MMX_CAVITY_INVALID);
    cr_assert_eq(sd[2].outcome, MMX_CAVITY_INVALID);
    cr_assert_eq(sd[4].outcome, MMX_CAVITY_KEPT);  /* priority 3 before 9 */
    cr_assert_eq(sd[3].outcome, MMX_CAVITY_CONFLICT);
    cr_assert_eq(sd[5].outcome, MMX_CAVITY_CONFLICT); /* shares face 3 with cavity 4 */
    cr_assert_eq(sd[3].priority, 9u);
    cr_assert(c.kept == 1 && c.invalid == 3 && c.conflicts == 2);
    /* Faces 0, 1, 2, 5 survive in order, then cavity 4's fan of 4 faces; vertex 7 new. */
    cr_assert_eq(mmx_mesh_nfaces(out), 8);
    cr_assert_eq(mmx_mesh_nverts(out), 8);
    cr_assert_eq(sd[4].vertex, 7);
    cr_assert_eq(memcmp(out->M->rowidx, m->M->rowidx, 9 * sizeof(mmx_index)), 0);
    cr_assert_eq(memcmp(out->M->rowidx + 9, m->M->rowidx + 15, 3 * sizeof(mmx_index)), 0);
    expect_valid_mesh(ctx, out, 1, 1);
    mmx_mesh_free(out);
    /* The whole closed icosphere has no boundary loop; bad arguments. */
    mmx_mesh *ico = tu_shape(ctx, "icosphere:1");
    const mmx_index nf = mmx_mesh_nfaces(ico);
    mmx_index *all = malloc((size_t)nf * sizeof *all);
    for (mmx_index f = 0; f < nf; f++) all[f] = f;
    const mmx_index p1[2] = {0, nf};
    MMX_OK_OR_FAIL(ctx, mmx_cavity_user_round(ctx, ico, p1, all, 1, NULL, 0, &out, &c, sd));
    cr_assert_eq(sd[0].outcome, MMX_CAVITY_INVALID);
    mmx_mesh_free(out);
    const mmx_index badf[1] = {6}, pb[2] = {0, 1}, pd[3] = {0, 1, 0};
    cr_assert_eq(mmx_cavity_user_round(ctx, m, pb, badf, 1, NULL, 0, &out, NULL, NULL), MMX_ERR_ARG);
    cr_assert(strstr(mmx_ctx_error(ctx), "face 6"), "%s", mmx_ctx_error(ctx));
    cr_assert_eq(mmx_cavity_user_round(ctx, m, pd, faces, 2, NULL, 0, &out, NULL, NULL), MMX_ERR_ARG);
    cr_assert_null(out);
    free(all);
    mmx_mesh_free(ico);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* Random cavities on mesh m for round r: the one-rings of random vertices (disks, on the
 * boundary too), pairs of faces, single faces, and some unions of two one-rings (often not
 * disks), cav_ptr/cav_faces malloc'ed. */
static mmx_index random_cavities(const mmx_mesh *m, uint32_t seed, mmx_index **ptr_out,
                                 mmx_index **faces_out)
{
    const mmx_index nv = mmx_mesh_nverts(m), nf = mmx_mesh_nfaces(m);
    const mmx_index *verts = m->M->rowidx;
    const mmx_index n = nv / 3 + 4;
    mmx_index *ptr = malloc(((size_t)n + 1) * sizeof *ptr);
    mmx_index *faces = malloc((size_t)n * 64 * sizeof *faces);
    cr_assert(ptr && faces);
    ptr[0] = 0;
    for (mmx_index i = 0; i < n; i++) {
        mmx_index k = ptr[i];
        const uint32_t kind = tu_rng(&seed) % 8;
        const mmx_index v = (mmx_index)(tu_rng(&seed) % (uint32_t)nv);
        const mmx_index w = (mmx_index)(tu_rng(&seed) % (uint32_t)nv);
        if (kind < 5 || kind == 7) { /* the faces at v (and at w: a union) */
            for (mmx_index f = 0; f < nf && k - ptr[i] < 60; f++)
                for (int c = 0; c < 3; c++)
                    if (verts[3 * f + c] == v || (kind == 7 && verts[3 * f + c] == w)) {
                        faces[k++] = f;
                        break;
                    }
        } else {
            faces[k++] = (mmx_index)(tu_rng(&seed) % (uint32_t)nf);
            if (kind == 6) faces[k++] = (mmx_index)(tu_rng(&seed) % (uint32_t)nf);
        }
        ptr[i + 1] = k;
    }
    *ptr_out = ptr;
    *faces_out = faces;
    return n;
}

static void user_rounds(mmx_mesh *in, int64_t euler, mmx_index loops, int rounds)
{
    mmx_ctx *ctx = in->ctx;
    mmx_mesh *cur = in;
    int kept = 0, invalid = 0;
    for (int r = 0; r < rounds; r++) {
        mmx_index *ptr = NULL, *faces = NULL;
        const mmx_index n = random_cavities(cur, 11u + (uint32_t)r, &ptr, &faces);
        mmx_cavity_seed *sd = malloc((size_t)n * sizeof *sd);
        mmx_mesh *out = NULL;
        mmx_cavity_counts c;
        MMX_OK_OR_FAIL(ctx, mmx_cavity_user_round(ctx, cur, ptr, faces, n, NULL, (uint32_t)r,
                                                  &out, &c, sd));
        cr_assert_eq(c.proposed, c.kept + c.invalid + c.conflicts);
        cr_assert_eq(mmx_mesh_nverts(out), mmx_mesh_nverts(cur) + c.kept);
        kept += c.kept, invalid += c.invalid;
        expect_valid_mesh(ctx, out, euler, loops);
        if (cur != in) mmx_mesh_free(cur);
        cur = out;
        free(ptr);
        free(faces);
        free(sd);
    }
    cr_assert(kept > 0 && invalid > 0, "kept %d invalid %d", kept, invalid);
    if (cur != in) mmx_mesh_free(cur);
}

Test(user_cavity, random_rounds_stay_valid)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *g = jittered_grid(ctx, 10, 8, 5), *s = noisy_icosphere(ctx, 2);
    user_rounds(g, 1, 1, 3);
    user_rounds(s, 2, 0, 3);
    mmx_mesh_free(g);
    mmx_mesh_free(s);
    mmx_ctx_free(ctx);
}

/* On a flat 3 x 3 grid of cut cells: an L of five cells, a disk whose loop's centroid lies
 * outside it, so some fan face folds: refused with positions, kept without; and the ring of
 * the eight outer cells, an annulus (two loops): refused either way. */
Test(user_cavity, folding_fan_refused)
{
    mmx_ctx *ctx = tu_host_ctx();
    float pos[48];
    mmx_index verts[54];
    for (int j = 0; j < 4; j++)
        for (int i = 0; i < 4; i++) {
            float *p = pos + 3 * (j * 4 + i);
            p[0] = (float)i, p[1] = (float)j, p[2] = 0;
        }
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++) {
            const mmx_index a = j * 4 + i, b = a + 1, c = a + 5, d = a + 4;
            mmx_index *v = verts + 6 * (j * 3 + i);
            v[0] = a, v[1] = b, v[2] = c, v[3] = a, v[4] = c, v[5] = d;
        }
    mmx_index ptr[3] = {0, 10, 26}, faces[26] = {0, 1, 2, 3, 4, 5, 6, 7, 12, 13};
    for (mmx_index f = 0, k = 10; f < 18; f++)
        if (f != 8 && f != 9) faces[k++] = f; /* all but the centre cell's two faces */
    for (int with_pos = 0; with_pos < 2; with_pos++) {
        mmx_mesh *m = tu_triangles(ctx, 16, 18, verts, with_pos ? pos : NULL), *out = NULL;
        expect_valid_mesh(ctx, m, 1, 1);
        mmx_cavity_seed sd[2];
        MMX_OK_OR_FAIL(ctx, mmx_cavity_user_round(ctx, m, ptr, faces, 2, NULL, 0, &out, NULL, sd));
        cr_assert_eq(sd[0].outcome, with_pos ? MMX_CAVITY_INVALID : MMX_CAVITY_KEPT);
        cr_assert_eq(sd[1].outcome, MMX_CAVITY_INVALID);
        /* Without positions: 12 loop edges, so 8 survivors and a fan of 12. */
        cr_assert_eq(mmx_mesh_nfaces(out), with_pos ? 18 : 20);
        mmx_mesh_free(out);
        mmx_mesh_free(m);
    }
    mmx_ctx_free(ctx);
}

/* ---- vertex removal and user cavities on CUDA: the host's bytes ----------------------------- */

/* The host's and the device's results of one round: counts, per-seed records and the output
 * meshes byte for byte (sizes, faces, positions). */
/* Rounds of vertex removal, then rounds of user cavities (random ones, with the hash
 * priorities and then with user priorities that tie often), on the host and on CUDA from the
 * same input, each round on the previous round's outputs; seeds random vertices with repeats. */
static void cuda_vr_user_match_host(mmx_ctx *cu, mmx_mesh *hm, uint32_t seed)
{
    mmx_ctx *host = hm->ctx;
    if (!cu) cu = host; /* the host against itself: the same bytes on a second run */
    mmx_mesh *dm = to_space(cu, hm, cu == host ? MMX_SPACE_HOST : MMX_SPACE_DEVICE);
    mmx_mesh *hcur = hm, *dcur = dm;
    int kept = 0, conflicts = 0;
    /* No seeds: the mesh as it was. */
    mmx_mesh *none = NULL;
    mmx_cavity_counts c0;
    MMX_OK_OR_FAIL(cu, mmx_cavity_vertex_remove_round(cu, dm, NULL, 0, 0, &none, &c0, NULL));
    cr_assert(c0.proposed == 0 && c0.kept == 0);
    mmx_mesh_free(none);
    MMX_OK_OR_FAIL(cu, mmx_cavity_user_round(cu, dm, NULL, NULL, 0, NULL, 0, &none, &c0, NULL));
    cr_assert(c0.proposed == 0 && c0.kept == 0);
    mmx_mesh_free(none);
    for (int k = 0; k < 6; k++) {
        const int user = k >= 3;
        mmx_cavity_counts hc, dc;
        mmx_mesh *hn = NULL, *dn = NULL;
        mmx_index n, *seeds = NULL, *ptr = NULL, *faces = NULL;
        uint64_t *pri = NULL;
        if (!user) {
            const mmx_index nv = mmx_mesh_nverts(hcur);
            n = nv + nv / 5;
            seeds = malloc((size_t)n * sizeof *seeds);
            cr_assert(seeds);
            for (mmx_index i = 0; i < n; i++)
                seeds[i] = i % 2 ? (mmx_index)(tu_rng(&seed) % (uint32_t)nv) : i / 2 % nv;
        } else {
            n = random_cavities(hcur, seed + (uint32_t)k, &ptr, &faces);
            if (k == 5) {
                pri = malloc((size_t)n * sizeof *pri);
                cr_assert(pri);
                for (mmx_index i = 0; i < n; i++) pri[i] = tu_rng(&seed) % 4; /* many ties */
            }
        }
        mmx_cavity_seed *hs = malloc((size_t)n * sizeof *hs), *ds = malloc((size_t)n * sizeof *ds);
        cr_assert(hs && ds);
        if (!user) {
            MMX_OK_OR_FAIL(host, mmx_cavity_vertex_remove_round(host, hcur, seeds, n, (uint32_t)k,
                                                                &hn, &hc, hs));
            MMX_OK_OR_FAIL(cu, mmx_cavity_vertex_remove_round(cu, dcur, seeds, n, (uint32_t)k,
                                                              &dn, &dc, ds));
        } else {
            MMX_OK_OR_FAIL(host, mmx_cavity_user_round(host, hcur, ptr, faces, n, pri, (uint32_t)k,
                                                       &hn, &hc, hs));
            MMX_OK_OR_FAIL(cu, mmx_cavity_user_round(cu, dcur, ptr, faces, n, pri, (uint32_t)k,
                                                     &dn, &dc, ds));
        }
        kept += hc.kept > 0;
        conflicts += hc.conflicts > 0;
        expect_same_round(cu, user ? "user" : "vremove", k, n, &hc, &dc, hs, ds, hn, dn);
        if (hcur != hm) mmx_mesh_free(hcur);
        if (dcur != dm) mmx_mesh_free(dcur);
        hcur = hn, dcur = dn;
        free(seeds);
        free(ptr);
        free(faces);
        free(pri);
        free(hs);
        free(ds);
    }
    cr_assert(kept == 6 && conflicts > 0, "kept in %d rounds, conflicts in %d", kept, conflicts);
    if (hcur != hm) mmx_mesh_free(hcur);
    if (dcur != dm) mmx_mesh_free(dcur);
    mmx_mesh_free(dm);
}

/* The comparison's host half against a second host run (cu NULL): deterministic bytes, and
 * rounds that keep and conflict, so the GPU tests below compare something. */
Test(vremove, host_rounds_repeat_their_bytes)
{
    mmx_ctx *host = tu_host_ctx();
    mmx_mesh *m = jittered_grid(host, 20, 15, 21);
    cuda_vr_user_match_host(NULL, m, 1);
    mmx_mesh *bare = tu_triangles(host, mmx_mesh_nverts(m), mmx_mesh_nfaces(m), m->M->rowidx, NULL);
    cuda_vr_user_match_host(NULL, bare, 7);
    mmx_mesh_free(bare);
    mmx_mesh_free(m);
    mmx_ctx_free(host);
}

Test(cavity, cuda_vremove_user_match_host_grid)
{
    mmx_ctx *cu = tu_cuda_ctx_or_skip(), *host = tu_host_ctx();
    mmx_mesh *m = jittered_grid(host, 40, 30, 21);
    cuda_vr_user_match_host(cu, m, 1);
    mmx_mesh_free(m);
    mmx_ctx_free(host);
    mmx_ctx_free(cu);
}

Test(cavity, cuda_vremove_user_match_host_spheres)
{
    mmx_ctx *cu = tu_cuda_ctx_or_skip(), *host = tu_host_ctx();
    for (uint32_t seed = 1; seed <= 3; seed++) {
        mmx_mesh *m = noisy_icosphere(host, seed);
        cuda_vr_user_match_host(cu, m, seed);
        mmx_mesh_free(m);
    }
    mmx_ctx_free(host);
    mmx_ctx_free(cu);
}

/* Random diagonals, and one without positions (the topological checks only). */
Test(cavity, cuda_vremove_user_match_host_random)
{
    mmx_ctx *cu = tu_cuda_ctx_or_skip(), *host = tu_host_ctx();
    for (uint32_t seed = 5; seed <= 7; seed++) {
        mmx_mesh *m = random_grid(host, 30 + (int)seed, 25, seed);
        cuda_vr_user_match_host(cu, m, seed);
        if (seed == 7) {
            mmx_mesh *bare = tu_triangles(host, mmx_mesh_nverts(m), mmx_mesh_nfaces(m),
                                          m->M->rowidx, NULL);
            cuda_vr_user_match_host(cu, bare, seed);
            mmx_mesh_free(bare);
        }
        mmx_mesh_free(m);
    }
    mmx_ctx_free(host);
    mmx_ctx_free(cu);
}

Test(cavity, cuda_vremove_user_match_host_bigguy)
{
    mmx_ctx *cu = tu_cuda_ctx_or_skip(), *host = tu_host_ctx();
    mmx_mesh *m = bigguy_triangles(host);
    cuda_vr_user_match_host(cu, m, 9);
    mmx_mesh_free(m);
    mmx_ctx_free(host);
    mmx_ctx_free(cu);
}

/* The CUDA rounds refuse what the host refuses, with the same sentences. */
Test(cavity, cuda_vremove_user_refusals)
{
    mmx_ctx *cu = tu_cuda_ctx_or_skip(), *host = tu_host_ctx();
    mmx_mesh *hm = hexagon_fan(host, 1), *dm = to_space(cu, hm, MMX_SPACE_DEVICE), *out = NULL;
    const mmx_index bad = 7, ptr[2] = {0, 1}, face = 6;
    cr_assert_eq(mmx_cavity_vertex_remove_round(cu, dm, &bad, 1, 0, &out, NULL, NULL), MMX_ERR_ARG);
    cr_assert(strstr(mmx_ctx_error(cu), "vertex 7"), "%s", mmx_ctx_error(cu));
    cr_assert_eq(mmx_cavity_user_round(cu, dm, ptr, &face, 1, NULL, 0, &out, NULL, NULL), MMX_ERR_ARG);
    cr_assert(strstr(mmx_ctx_error(cu), "face 6"), "%s", mmx_ctx_error(cu));
    /* A host mesh on CUDA, a device mesh on the host. */
    const mmx_index zero = 0;
    cr_assert_eq(mmx_cavity_vertex_remove_round(cu, hm, &zero, 1, 0, &out, NULL, NULL), MMX_ERR_SPACE);
    cr_assert_eq(mmx_cavity_user_round(host, dm, ptr, &zero, 1, NULL, 0, &out, NULL, NULL), MMX_ERR_SPACE);
    cr_assert_null(out);
    mmx_mesh_free(dm);
    mmx_mesh_free(hm);
    mmx_ctx_free(host);
    mmx_ctx_free(cu);
}

/* ---- the compaction (mmx__round_compact) ---------------------------------------------------- */

/* The fan of collapse_fan_by_hand with an unused vertex 8 at (9, 9, 9): a collapse and a
 * vertex removal round keep it, last, with its position (removing rounds drop only the
 * vertices they merge away, used or not), on ctx's backend; the output is copied back. */
static void unused_vertex_survives(mmx_ctx *ctx, mmx_ctx *host)
{
    const float pos[27] = {-0.5f, 0, 0, 0.5f, 0, 0, 1.5f, 0, 0, 1, 1, 0,
                           -1, 1, 0, -1.5f, 0, 0, -1, -1, 0, 1, -1, 0, 9, 9, 9};
    const mmx_index v[24] = {1, 2, 3, 1, 3, 4, 0, 1, 4, 0, 4, 5, 0, 5, 6, 0, 6, 1, 1, 6, 7, 1, 7, 2};
    mmx_mesh *h = tu_triangles(host, 9, 8, v, pos), *m = h;
    if (ctx != host) MMX_OK_OR_FAIL(ctx, mmx_mesh_copy(ctx, h, MMX_SPACE_DEVICE, &m));
    for (int vr = 0; vr < 2; vr++) {
        const mmx_index seed = 0; /* edge {0, 1}; vertex 0 */
        mmx_mesh *out = NULL, *back = NULL;
        mmx_cavity_counts c;
        if (vr) MMX_OK_OR_FAIL(ctx, mmx_cavity_vertex_remove_round(ctx, m, &seed, 1, 0, &out, &c, NULL));
        else MMX_OK_OR_FAIL(ctx, mmx_cavity_round(ctx, m, MMX_CAVITY_EDGE_COLLAPSE, &seed, 1, 0, &out, &c, NULL));
        cr_assert_eq(c.kept, 1, "%s", vr ? "vertex removal" : "collapse");
        /* The copy back by the context the output lives in (a host context cannot read
         * device memory). */
        MMX_OK_OR_FAIL(ctx, mmx_mesh_copy(ctx, out, MMX_SPACE_HOST, &back));
        cr_assert_eq(mmx_mesh_nverts(back), 8);
        cr_assert_eq(mmx_mesh_nfaces(back), 6);
        const float far[3] = {9, 9, 9};
        cr_assert_eq(memcmp(back->pos + 3 * 7, far, sizeof far), 0);
        for (mmx_index k = 0; k < 18; k++) cr_assert_lt(back->M->rowidx[k], 7);
        mmx_mesh_free(back);
        mmx_mesh_free(out);
    }
    if (m != h) mmx_mesh_free(m);
    mmx_mesh_free(h);
}

Test(cavity, removing_rounds_keep_an_unused_vertex)
{
    mmx_ctx *ctx = tu_host_ctx();
    unused_vertex_survives(ctx, ctx);
    mmx_ctx_free(ctx);
}

Test(cavity, cuda_removing_rounds_keep_an_unused_vertex)
{
    mmx_ctx *cu = tu_cuda_ctx_or_skip(), *host = tu_host_ctx();
    unused_vertex_survives(cu, host);
    mmx_ctx_free(host);
    mmx_ctx_free(cu);
}

/* ---- the round driver: every template's bytes, pinned -----------------------------------------
 *
 * One hash per (mesh, template) of what a chain of three rounds makes: the output meshes'
 * faces and positions, the counts and every per_seed record, and the hashes of remeshing,
 * Delaunay flips and simplification. The values were recorded before the templates' rounds
 * moved onto one driver (round.c): any change to a template's orchestration that changes a
 * byte fails here, on the host (the CUDA tests hold CUDA to the host). */

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

static uint64_t hash_mesh(uint64_t h, const mmx_mesh *m)
{
    const mmx_index nv = mmx_mesh_nverts(m), nf = mmx_mesh_nfaces(m);
    h = fnv(h, &nv, sizeof nv);
    h = fnv(h, &nf, sizeof nf);
    h = fnv(h, &m->M->order, sizeof m->M->order);
    h = fnv(h, m->M->rowidx, (size_t)m->M->nnz * sizeof *m->M->rowidx);
    if (m->pos) h = fnv(h, m->pos, 3 * (size_t)nv * sizeof *m->pos);
    return h;
}

static uint64_t hash_round(uint64_t h, const mmx_cavity_counts *c, const mmx_cavity_seed *sd,
                           mmx_index n)
{
    h = fnv(h, c, sizeof *c);
    for (mmx_index i = 0; i < n; i++) {
        const mmx_index f[6] = {(mmx_index)sd[i].outcome, sd[i].faces[0], sd[i].faces[1],
                                sd[i].new_edge[0], sd[i].new_edge[1], sd[i].vertex};
        h = fnv(h, f, sizeof f);
        h = fnv(h, &sd[i].priority, sizeof sd[i].priority);
    }
    return h;
}

enum { G_FLIP, G_SPLIT, G_COLLAPSE, G_RANKED, G_PLACED, G_FACE, G_MOVE, G_VREMOVE, G_USER,
       G_COUNT };

/* Seeds for a template on m: every element, then every 7th again (copies). */
static mmx_index golden_seeds(mmx_index count, mmx_index *seeds)
{
    mmx_index n = 0;
    for (mmx_index i = 0; i < count; i++) seeds[n++] = (i * 37) % count;
    for (mmx_index i = 0; i < count; i += 7) seeds[n++] = i;
    return n;
}

/* An array of `bytes` on cu's device holding host's, or host itself without cu. */
static void *golden_dev(mmx_ctx *cu, const void *host, size_t bytes)
{
    if (!cu) return (void *)host;
    void *d = NULL;
    cr_assert_eq(mmx_mem_alloc(cu, MMX_SPACE_DEVICE, bytes, &d), MMX_OK);
    if (bytes) cr_assert_eq(mmx_mem_copy(cu, d, MMX_SPACE_DEVICE, host, MMX_SPACE_HOST, bytes), MMX_OK);
    return d;
}

/* Three rounds of template `kind` from `in` on the host (cu NULL) or on cu's device: seeds
 * made on the host from a host copy of each round's mesh. */
static uint64_t golden_template(mmx_ctx *ctx, mmx_ctx *cu, const mmx_mesh *in, int kind)
{
    uint64_t h = 14695981039346656037ull;
    mmx_index kept = 0, conflicts = 0;
    mmx_mesh *cur = NULL, *dcur = NULL;
    cr_assert_eq(mmx_mesh_copy(ctx, in, MMX_SPACE_HOST, &cur), MMX_OK);
    if (cu) cr_assert_eq(mmx_mesh_copy(cu, in, MMX_SPACE_DEVICE, &dcur), MMX_OK);
    mmx_ctx *run = cu ? cu : ctx;
    for (uint32_t round = 0; round < 3; round++) {
        const mmx_mesh *use = cu ? dcur : cur;
        mmx__flip_topo t;
        cr_assert_eq(mmx__flip_topo_build(ctx, cur, "golden", &t), MMX_OK);
        const mmx_index ne = t.nedges, nf = t.nfaces, nv = t.nverts;
        const mmx_index cap = 2 * (ne + nf + nv) + 16;
        mmx_index *seeds = malloc((size_t)cap * sizeof *seeds);
        mmx_index *cptr = malloc((size_t)cap * sizeof *cptr);
        float *prio = malloc((size_t)cap * sizeof *prio), *xyz = malloc(3 * (size_t)cap * sizeof *xyz);
        mmx_cavity_seed *sd = malloc((size_t)cap * sizeof *sd);
        cr_assert(seeds && cptr && prio && xyz && sd);
        mmx_cavity_counts c;
        mmx_mesh *next = NULL;
        mmx_index n = 0;
        mmx_status s = MMX_OK;
        if (kind <= G_PLACED) {
            n = golden_seeds(ne, seeds);
            for (mmx_index i = 0; i < n; i++) {
                const mmx_index e = seeds[i], a = t.adj->ev[2 * e], b = t.adj->ev[2 * e + 1];
                prio[i] = (float)((e * 2654435761u + round) % 1000) / 7.0f;
                for (int k = 0; k < 3; k++)
                    xyz[3 * i + k] = 0.7f * cur->pos[3 * a + k] + 0.3f * cur->pos[3 * b + k];
            }
            if (kind == G_RANKED || kind == G_PLACED) {
                /* Priorities as data take arrays in the context's space. */
                mmx_index *ds = golden_dev(cu, seeds, (size_t)n * sizeof *seeds);
                float *dp = golden_dev(cu, prio, (size_t)n * sizeof *prio);
                float *dx = golden_dev(cu, xyz, 3 * (size_t)n * sizeof *xyz);
                mmx_cavity_seed *dsd = golden_dev(cu, sd, (size_t)n * sizeof *sd);
                s = mmx_cavity_round_ranked(run, use, MMX_CAVITY_EDGE_COLLAPSE, ds, dp,
                                            kind == G_PLACED ? dx : NULL, n, round, &next, &c, dsd);
                if (cu) {
                    cr_assert_eq(mmx_mem_copy(cu, sd, MMX_SPACE_HOST, dsd, MMX_SPACE_DEVICE,
                                              (size_t)n * sizeof *sd), MMX_OK);
                    mmx_mem_free(cu, MMX_SPACE_DEVICE, ds), mmx_mem_free(cu, MMX_SPACE_DEVICE, dp);
                    mmx_mem_free(cu, MMX_SPACE_DEVICE, dx), mmx_mem_free(cu, MMX_SPACE_DEVICE, dsd);
                }
            } else {
                s = mmx_cavity_round(run, use, kind == G_FLIP ? MMX_CAVITY_EDGE_FLIP
                                               : kind == G_SPLIT ? MMX_CAVITY_EDGE_SPLIT
                                                                 : MMX_CAVITY_EDGE_COLLAPSE,
                                     seeds, n, round, &next, &c, sd);
            }
        } else if (kind == G_FACE) {
            n = golden_seeds(nf, seeds);
            s = mmx_cavity_face_split_round(run, use, seeds, n, round, &next, &c, sd);
        } else if (kind == G_MOVE) {
            n = golden_seeds(nv, seeds);
            for (mmx_index i = 0; i < n; i++)
                for (int k = 0; k < 3; k++)
                    xyz[3 * i + k] = cur->pos[3 * seeds[i] + k] +
                                     0.05f * (float)((seeds[i] * 7 + k * 3 + (mmx_index)round) % 5 - 2);
            s = mmx_cavity_relocate_round(run, use, seeds, xyz, n, round, &next, &c, sd);
        } else if (kind == G_VREMOVE) {
            n = golden_seeds(nv, seeds);
            s = mmx_cavity_vertex_remove_round(run, use, seeds, n, round, &next, &c, sd);
        } else {
            /* Cavities: each interior edge's two faces, every third edge; a single face
             * every fifth. */
            mmx_index *faces = malloc((size_t)cap * sizeof *faces), k = 0;
            cr_assert(faces);
            cptr[0] = 0;
            for (mmx_index e = 0; e < ne; e += 3) {
                if (t.ef[2 * e] < 0 || t.ef[2 * e + 1] < 0) continue;
                faces[k++] = t.ef[2 * e], faces[k++] = t.ef[2 * e + 1];
                cptr[++n] = k;
                if (e % 5 == 0) faces[k++] = t.ef[2 * e], cptr[++n] = k;
            }
            s = mmx_cavity_user_round(run, use, cptr, faces, n, NULL, round, &next, &c, sd);
            free(faces);
        }
        cr_assert_eq(s, MMX_OK, "%s", mmx_ctx_error(run));
        if (cu) {
            mmx_mesh_free(dcur);
            dcur = next;
            cr_assert_eq(mmx_mesh_copy(cu, dcur, MMX_SPACE_HOST, &next), MMX_OK);
        }
        h = hash_round(h, &c, sd, n);
        h = hash_mesh(h, next);
        kept += c.kept, conflicts += c.conflicts;
        mmx_mesh_free(cur);
        cur = next;
        mmx__flip_topo_free(&t);
        free(seeds), free(cptr), free(prio), free(xyz), free(sd);
    }
    mmx_mesh_free(cur);
    mmx_mesh_free(dcur);
    cr_assert(kept > 0 && conflicts > 0, "template %d: %d kept, %d conflicts", kind, (int)kept,
              (int)conflicts);
    return h;
}

static const uint64_t golden_rounds[3][G_COUNT] = {
    {0x8a4607abba3e7edaull, 0x923e1177e6fe930aull, 0x6c357d242c5ae371ull,
     0xc4287c290d96f5c8ull, 0x06edf1044bbbbdc1ull, 0x0ba3e31a82c771c2ull,
     0x6e876f09f4e0d839ull, 0x2b1f348580403838ull, 0x293b36b79dd8fbfdull},
    {0xe5afaed7b42e35b9ull, 0x935495e2f7e0ab52ull, 0xbc1471148c839ec1ull,
     0x42601bb385f5cf52ull, 0x3e19c923fc7e255eull, 0xdea8e7ab59404361ull,
     0xc5db003577d891bcull, 0x06533125eb998b4full, 0xf3130cc0f1e735f0ull},
    {0x4e3c7c2d045e94d8ull, 0x11ba652c1a70daf2ull, 0xe4b9e2d8b4318896ull,
     0x206c11377c48a4bfull, 0x3001dc19be8c88d9ull, 0xd5dde4ed3cb0ad67ull,
     0xa9697252732099acull, 0x38c0b4a8ac86fec8ull, 0xaff73ee53c00a037ull},
};

static const uint64_t golden_loops[3] = {0x6a61b8eafb277f2cull, 0xde24286d1b1955bbull,
                                         0xa2b24e69d7010332ull};

static uint64_t golden_loop(mmx_ctx *ctx, mmx_ctx *cu, const mmx_mesh *in, int which)
{
    mmx_mesh *out = NULL, *m = NULL;
    if (cu) {
        cr_assert_eq(mmx_mesh_copy(cu, in, MMX_SPACE_DEVICE, &m), MMX_OK);
        ctx = cu;
    }
    const mmx_mesh *use = cu ? m : in;
    if (which == 0) {
        cr_assert_eq(mmx_delaunay_flip(ctx, use, &out, NULL), MMX_OK, "%s", mmx_ctx_error(ctx));
    } else if (which == 1) {
        mmx_remesh_options o = mmx_remesh_defaults();
        cr_assert_eq(mmx_remesh(ctx, use, &o, &out, NULL), MMX_OK, "%s", mmx_ctx_error(ctx));
    } else {
        mmx_simplify_options o = mmx_simplify_defaults();
        o.ratio = 0.3;
        cr_assert_eq(mmx_simplify(ctx, use, &o, &out, NULL), MMX_OK, "%s", mmx_ctx_error(ctx));
    }
    if (cu) {
        mmx_mesh *d = out;
        cr_assert_eq(mmx_mesh_copy(cu, d, MMX_SPACE_HOST, &out), MMX_OK);
        mmx_mesh_free(d);
    }
    const uint64_t h = hash_mesh(14695981039346656037ull, out);
    mmx_mesh_free(out);
    mmx_mesh_free(m);
    return h;
}

/* The recorded hashes from the host (cu NULL) or from cu's device. */
static void golden_check(mmx_ctx *cu)
{
    mmx_ctx *host = tu_host_ctx();
    mmx_mesh *quads = tu_shape(host, "torus:8:6"), *torus = NULL;
    cr_assert_eq(mmx_mesh_triangulate(host, quads, &torus), MMX_OK);
    mmx_mesh_free(quads);
    mmx_mesh *meshes[3] = {tu_jittered_grid(host, 12, 5), tu_shape(host, "icosphere:3"), torus};
    const int print = getenv("MMX_GOLDEN_PRINT") != NULL;
    for (int mi = 0; mi < 3; mi++)
        for (int k = 0; k < G_COUNT; k++) {
            const uint64_t h = golden_template(host, cu, meshes[mi], k);
            if (print) printf("round %d %d 0x%016llxull\n", mi, k, (unsigned long long)h);
            else cr_expect_eq(h, golden_rounds[mi][k], "mesh %d template %d: %016llx", mi, k,
                              (unsigned long long)h);
        }
    mmx_mesh *loops[3] = {meshes[0], meshes[1], NULL};
    loops[2] = tu_shape(host, "icosphere:4");
    for (int w = 0; w < 3; w++) {
        const uint64_t h = golden_loop(host, cu, loops[w], w);
        if (print) printf("loop %d 0x%016llxull\n", w, (unsigned long long)h);
        else cr_expect_eq(h, golden_loops[w], "loop %d: %016llx", w, (unsigned long long)h);
    }
    mmx_mesh_free(loops[2]);
    for (int mi = 0; mi < 3; mi++) mmx_mesh_free(meshes[mi]);
    mmx_ctx_free(host);
}

Test(driver, host_bytes_are_the_recorded_ones) { golden_check(NULL); }

/* CUDA: the same hashes (every template round, Delaunay, remeshing and simplification give
 * the host's bytes). */
Test(driver, cuda_bytes_are_the_recorded_ones)
{
    mmx_ctx *cu = tu_cuda_ctx_or_skip();
    golden_check(cu);
    mmx_ctx_free(cu);
}
