/* Isotropic remeshing and the templates it adds to the cavity operator: the face split and
 * the vertex relocation checked by hand on tiny meshes; mmx_remesh with the validator after
 * every round (opts.validate), determinism (two runs, the same bytes), edge lengths, the
 * boundary and sharp features kept, and bad input refused with a sentence. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <float.h>
#include "testutil.h"
#include "dynamic/dynamic_internal.h" /* the closest-point hierarchy */
#include "dynamic/remesh_step.h"     /* the projection's budget */
#include "core/core_internal.h"      /* mmx__ctx_syncs: the waits */

static void expect_valid(mmx_ctx *ctx, const mmx_mesh *m, int64_t euler, mmx_index loops)
{
    mmx_mesh_validation r;
    const mmx_mesh_expect x = {1, euler, 1, loops};
    MMX_OK_OR_FAIL(ctx, mmx_mesh_validate(ctx, m, &x, &r));
}

/* The cube [-1, 1]^3, each side a 2^levels x 2^levels grid of quads (the built-in cube,
 * bilinear `levels` times, scaled), each quad cut into two triangles. */
static mmx_mesh *cube(mmx_ctx *ctx, int levels)
{
    mmx_mesh *c = tu_shape(ctx, "cube"), *fine = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_subdivide(ctx, MMX_SCHEME_BILINEAR, c, levels, NULL, &fine));
    mmx_index *start = NULL, *quads = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_faces(ctx, fine, &start, &quads));
    const mmx_index nq = mmx_mesh_nfaces(fine), nv = mmx_mesh_nverts(fine);
    float h = 0;
    for (mmx_index i = 0; i < 3 * nv; i++) h = fmaxf(h, fabsf(fine->pos[i]));
    float *pos = malloc(3 * (size_t)nv * sizeof *pos);
    mmx_index *tri = malloc(6 * (size_t)nq * sizeof *tri);
    cr_assert(pos && tri && h > 0);
    for (mmx_index i = 0; i < 3 * nv; i++) pos[i] = fine->pos[i] / h;
    for (mmx_index q = 0; q < nq; q++) {
        const mmx_index *v = quads + 4 * q;
        mmx_index *t = tri + 6 * q;
        t[0] = v[0], t[1] = v[1], t[2] = v[2], t[3] = v[0], t[4] = v[2], t[5] = v[3];
    }
    mmx_mesh *m = tu_triangles(ctx, nv, 2 * nq, tri, pos);
    free(pos);
    free(tri);
    free(start);
    free(quads);
    mmx_mesh_free(fine);
    mmx_mesh_free(c);
    return m;
}

/* ---- the face split template ------------------------------------------------------------ */

Test(templates, face_split_by_hand)
{
    mmx_ctx *ctx = tu_host_ctx();
    const float pos[12] = {0, 0, 0, 3, 0, 0, 0, 3, 0, 3, 3, 0};
    const mmx_index v[6] = {0, 1, 2, 1, 3, 2};
    mmx_mesh *m = tu_triangles(ctx, 4, 2, v, pos), *out = NULL;
    const mmx_index seeds[3] = {1, 0, 1}; /* face 1 twice: the copy conflicts */
    mmx_cavity_seed sd[3];
    mmx_cavity_counts c;
    MMX_OK_OR_FAIL(ctx, mmx_cavity_face_split_round(ctx, m, seeds, 3, 5, &out, &c, sd));
    cr_assert(c.proposed == 3 && c.kept == 2 && c.conflicts == 1 && c.invalid == 0);
    cr_assert_eq(sd[2].outcome, MMX_CAVITY_CONFLICT);
    cr_assert(sd[0].outcome == MMX_CAVITY_KEPT && sd[1].outcome == MMX_CAVITY_KEPT);
    cr_assert(sd[0].faces[0] == 1 && sd[0].faces[1] == -1 && sd[1].faces[0] == 0);
    cr_assert_eq(sd[0].priority, mmx_cavity_priority(1, 5));
    cr_assert_eq(sd[1].priority, mmx_cavity_priority(0, 5));
    /* Key order decides the numbering: the seed of the smaller priority gets vertex 4. */
    const int first = mmx_cavity_priority(0, 5) < mmx_cavity_priority(1, 5) ? 1 : 0;
    const mmx_index m0 = sd[first].vertex == 4 ? 4 : -1;
    cr_assert_eq(m0, 4);
    cr_assert_eq(sd[1 - first].vertex, 5);
    cr_assert_eq(mmx_mesh_nverts(out), 6);
    cr_assert_eq(mmx_mesh_nfaces(out), 6);
    const mmx_index mA = sd[1].vertex, mB = sd[0].vertex; /* face 0's and face 1's */
    const mmx_index *F = out->M->rowidx;
    const mmx_index keep0[3] = {0, 1, mA}, keep1[3] = {1, 3, mB};
    cr_assert_eq(memcmp(F, keep0, sizeof keep0), 0);
    cr_assert_eq(memcmp(F + 3, keep1, sizeof keep1), 0);
    /* The appended faces: (b, c, m), (c, a, m) of the first kept seed in key order, then the
     * second's. */
    const mmx_index fa = first == 1 ? 0 : 1; /* the face split first */
    const mmx_index *fv = v + 3 * fa, mf = fa == 0 ? mA : mB, ms = fa == 0 ? mB : mA;
    const mmx_index *fw = v + 3 * (1 - fa);
    const mmx_index want[12] = {fv[1], fv[2], mf, fv[2], fv[0], mf,
                                fw[1], fw[2], ms, fw[2], fw[0], ms};
    cr_assert_eq(memcmp(F + 6, want, sizeof want), 0);
    /* Centroids, in float: (1, 1, 0) and (2, 2, 0). */
    cr_assert(out->pos[3 * mA] == 1.0f && out->pos[3 * mA + 1] == 1.0f && out->pos[3 * mA + 2] == 0.0f);
    cr_assert(out->pos[3 * mB] == 2.0f && out->pos[3 * mB + 1] == 2.0f);
    cr_assert_eq(memcmp(out->pos, pos, sizeof pos), 0);
    expect_valid(ctx, out, 1, 1);
    mmx_mesh_free(out);
    /* Out of range: refused, named. */
    const mmx_index far = 7;
    cr_assert_eq(mmx_cavity_face_split_round(ctx, m, &far, 1, 0, &out, NULL, NULL), MMX_ERR_ARG);
    cr_assert(strstr(mmx_ctx_error(ctx), "face 7"), "%s", mmx_ctx_error(ctx));
    cr_assert_null(out);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(templates, face_split_refuses_a_degenerate_face)
{
    mmx_ctx *ctx = tu_host_ctx();
    const float pos[12] = {0, 0, 0, 1, 0, 0, 2, 0, 0, 1, 1, 0};
    const mmx_index v[6] = {0, 3, 2, 2, 1, 0}; /* face 1 is collinear */
    mmx_mesh *m = tu_triangles(ctx, 4, 2, v, pos), *out = NULL;
    const mmx_index seeds[2] = {0, 1};
    mmx_cavity_seed sd[2];
    mmx_cavity_counts c;
    MMX_OK_OR_FAIL(ctx, mmx_cavity_face_split_round(ctx, m, seeds, 2, 0, &out, &c, sd));
    cr_assert(c.kept == 1 && c.invalid == 1);
    cr_assert(sd[0].outcome == MMX_CAVITY_KEPT && sd[1].outcome == MMX_CAVITY_INVALID);
    cr_assert(sd[1].vertex == -1 && mmx_mesh_nfaces(out) == 4);
    mmx_mesh_free(out);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* Rounds of face splits with every face a seed on a closed mesh: all kept (no two seeds
 * share a face), the validator after each, the same bytes twice. */
Test(templates, face_split_rounds_icosphere)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *cur = tu_shape(ctx, "icosphere:1");
    for (uint32_t r = 0; r < 3; r++) {
        const mmx_index nf = mmx_mesh_nfaces(cur);
        mmx_index *seeds = malloc((size_t)nf * sizeof *seeds);
        cr_assert(seeds);
        for (mmx_index f = 0; f < nf; f++) seeds[f] = nf - 1 - f;
        mmx_mesh *a = NULL, *b = NULL;
        mmx_cavity_counts c;
        MMX_OK_OR_FAIL(ctx, mmx_cavity_face_split_round(ctx, cur, seeds, nf, r, &a, &c, NULL));
        MMX_OK_OR_FAIL(ctx, mmx_cavity_face_split_round(ctx, cur, seeds, nf, r, &b, NULL, NULL));
        cr_assert(c.kept == nf && c.conflicts == 0 && c.invalid == 0);
        cr_assert_eq(mmx_mesh_nfaces(a), 3 * nf);
        cr_assert_eq(memcmp(a->M->rowidx, b->M->rowidx, 9 * (size_t)nf * sizeof(mmx_index)), 0);
        cr_assert_eq(memcmp(a->pos, b->pos, 3 * (size_t)mmx_mesh_nverts(a) * sizeof(float)), 0);
        expect_valid(ctx, a, 2, 0);
        mmx_mesh_free(b);
        mmx_mesh_free(cur);
        cur = a;
        free(seeds);
    }
    mmx_mesh_free(cur);
    mmx_ctx_free(ctx);
}

/* ---- the vertex relocation template ----------------------------------------------------- */

/* A hexagon fanned around vertex 0 at the origin (rim 1..6 at radius 1). */
static mmx_mesh *fan(mmx_ctx *ctx)
{
    float pos[21] = {0, 0, 0};
    mmx_index v[18];
    for (int i = 0; i < 6; i++) {
        pos[3 * (i + 1)] = cosf((float)i * 3.14159265f / 3.0f);
        pos[3 * (i + 1) + 1] = sinf((float)i * 3.14159265f / 3.0f);
        pos[3 * (i + 1) + 2] = 0;
        v[3 * i] = 0, v[3 * i + 1] = i + 1, v[3 * i + 2] = (i + 1) % 6 + 1;
    }
    return tu_triangles(ctx, 7, 6, v, pos);
}

Test(templates, relocate_by_hand)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = fan(ctx), *out = NULL;
    /* The centre moves within the hexagon: kept, the rest bit for bit. */
    const mmx_index c0 = 0;
    const float to[3] = {0.25f, -0.125f, 0.5f};
    mmx_cavity_seed sd[3];
    mmx_cavity_counts c;
    MMX_OK_OR_FAIL(ctx, mmx_cavity_relocate_round(ctx, m, &c0, to, 1, 0, &out, &c, sd));
    cr_assert(c.kept == 1 && sd[0].outcome == MMX_CAVITY_KEPT && sd[0].vertex == 0);
    cr_assert_eq(memcmp(out->pos, to, sizeof to), 0);
    cr_assert_eq(memcmp(out->pos + 3, m->pos + 3, 18 * sizeof(float)), 0);
    cr_assert_eq(memcmp(out->M->rowidx, m->M->rowidx, 18 * sizeof(mmx_index)), 0);
    expect_valid(ctx, out, 1, 1);
    mmx_mesh_free(out);
    /* Out of the hexagon, a face folds; onto a rim vertex, faces degenerate; NaN: refused. */
    const mmx_index three[3] = {0, 0, 0};
    const float bad[9] = {3, 0, 0, 1, 0, 0, NAN, 0, 0};
    MMX_OK_OR_FAIL(ctx, mmx_cavity_relocate_round(ctx, m, three, bad, 3, 0, &out, &c, sd));
    cr_assert(c.kept == 0 && c.invalid == 3);
    for (int i = 0; i < 3; i++) cr_assert_eq(sd[i].outcome, MMX_CAVITY_INVALID);
    cr_assert_eq(memcmp(out->pos, m->pos, 21 * sizeof(float)), 0);
    mmx_mesh_free(out);
    /* The centre and rim vertex 1 share faces: one kept, by key order; rim vertices 1 and 4
     * share none: both kept. */
    const mmx_index pair[2] = {0, 1};
    const float moves[6] = {0.1f, 0, 0, 1.1f, 0, 0};
    MMX_OK_OR_FAIL(ctx, mmx_cavity_relocate_round(ctx, m, pair, moves, 2, 9, &out, &c, sd));
    cr_assert(c.kept == 1 && c.conflicts == 1);
    const int win = mmx_cavity_priority(0, 9) < mmx_cavity_priority(1, 9) ? 0 : 1;
    cr_assert_eq(sd[win].outcome, MMX_CAVITY_KEPT);
    cr_assert_eq(sd[1 - win].outcome, MMX_CAVITY_CONFLICT);
    cr_assert(out->pos[3 * pair[win]] == moves[3 * win]);
    cr_assert(out->pos[3 * pair[1 - win]] == m->pos[3 * pair[1 - win]]);
    mmx_mesh_free(out);
    const mmx_index apart[2] = {1, 4};
    const float moves2[6] = {1.1f, 0, 0, -1.1f, 0, 0};
    MMX_OK_OR_FAIL(ctx, mmx_cavity_relocate_round(ctx, m, apart, moves2, 2, 9, &out, &c, sd));
    cr_assert(c.kept == 2 && out->pos[3] == 1.1f && out->pos[12] == -1.1f);
    mmx_mesh_free(out);
    /* Refusals: a vertex out of range (named); a mesh without positions. */
    const mmx_index far = 7;
    cr_assert_eq(mmx_cavity_relocate_round(ctx, m, &far, to, 1, 0, &out, NULL, NULL), MMX_ERR_ARG);
    cr_assert(strstr(mmx_ctx_error(ctx), "vertex 7"), "%s", mmx_ctx_error(ctx));
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* ---- remeshing ---------------------------------------------------------------------------- */

/* The share of edges of `m` with length in [lo, hi]; the mean length into *mean. */
static double share_within(const mmx_mesh *m, double lo, double hi, double *mean)
{
    const mmx_index nf = mmx_mesh_nfaces(m), *V = m->M->rowidx;
    long in = 0, all = 0;
    double sum = 0;
    for (mmx_index f = 0; f < nf; f++)
        for (int i = 0; i < 3; i++) {
            const mmx_index a = V[3 * f + i], b = V[3 * f + (i + 1) % 3];
            double d = 0;
            for (int k = 0; k < 3; k++) {
                const double e = (double)m->pos[3 * a + k] - m->pos[3 * b + k];
                d += e * e;
            }
            d = sqrt(d);
            /* each interior edge twice, boundary edges once: a weighting, fine for a share */
            in += d >= lo && d <= hi;
            sum += d;
            all++;
        }
    *mean = sum / (double)all;
    return (double)in / (double)all;
}

/* Remeshes `in` with the validator after every round, twice: the same bytes; returns the
 * first result. */
static mmx_mesh *remesh_twice(mmx_ctx *ctx, const mmx_mesh *in, mmx_remesh_options o,
                              mmx_remesh_report *rep)
{
    o.validate = 1;
    mmx_mesh *a = NULL, *b = NULL;
    mmx_remesh_report ra, rb;
    MMX_OK_OR_FAIL(ctx, mmx_remesh(ctx, in, &o, &a, &ra));
    MMX_OK_OR_FAIL(ctx, mmx_remesh(ctx, in, &o, &b, &rb));
    cr_assert_eq(mmx_mesh_nverts(a), mmx_mesh_nverts(b));
    cr_assert_eq(mmx_mesh_nfaces(a), mmx_mesh_nfaces(b));
    cr_assert_eq(memcmp(a->M->rowidx, b->M->rowidx, 3 * (size_t)mmx_mesh_nfaces(a) * sizeof(mmx_index)), 0,
                 "two runs give other faces");
    cr_assert_eq(memcmp(a->pos, b->pos, 3 * (size_t)mmx_mesh_nverts(a) * sizeof(float)), 0,
                 "two runs give other positions");
    for (int i = 0; i < ra.iterations; i++) {
        cr_assert_eq(ra.per_iteration[i].splits, rb.per_iteration[i].splits);
        cr_assert_eq(ra.per_iteration[i].flips, rb.per_iteration[i].flips);
        cr_assert_eq(ra.per_iteration[i].moves, rb.per_iteration[i].moves);
    }
    cr_assert_eq(ra.iterations, o.iterations);
    /* The counts add up: each split adds a vertex, each collapse removes one. */
    int64_t nv = mmx_mesh_nverts(in);
    for (int i = 0; i < ra.iterations; i++) {
        const mmx_remesh_iteration *it = &ra.per_iteration[i];
        nv += it->splits - it->collapses;
        cr_assert_eq(it->nverts, nv, "iteration %d", i);
        cr_assert(it->ms >= 0 && (it->moves == 0 || it->relax_rounds > 0));
        /* Every kept cavity was proposed; the steps' times add up to at most the iteration's. */
        cr_assert(it->split_seeds >= it->splits && it->collapse_seeds >= it->collapses &&
                  it->flip_seeds >= it->flips && it->move_seeds >= it->moves, "iteration %d", i);
        cr_assert(it->split_ms + it->collapse_ms + it->flip_ms + it->relax_ms <= it->ms + 0.01,
                  "iteration %d", i);
    }
    cr_assert_eq(mmx_mesh_nverts(a), nv);
    cr_assert(a->M->order == 3 && !a->tags);
    *rep = ra;
    mmx_mesh_free(b);
    return a;
}

Test(remesh, icosphere_refines_to_the_target)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = tu_shape(ctx, "icosphere:2");
    mmx_remesh_options o = mmx_remesh_defaults();
    o.target_length = 0.1; /* icosphere:2's edges are about 0.3 */
    o.iterations = 5;
    mmx_remesh_report rep;
    mmx_mesh *out = remesh_twice(ctx, m, o, &rep);
    cr_assert(rep.target_length == 0.1 && rep.feature_edges == 0);
    cr_assert(rep.per_iteration[0].splits > 0 && rep.per_iteration[0].moves > 0);
    double mean;
    const double share = share_within(out, 0.8 * 0.1, 4.0 / 3.0 * 0.1, &mean);
    cr_assert(share >= 0.9, "only %.3f of the edges within [4/5 L, 4/3 L]", share);
    cr_assert(fabs(mean - 0.1) < 0.015, "mean edge length %g", mean);
    expect_valid(ctx, out, 2, 0);
    /* Every vertex on the input surface: within the icosphere's sagitta of radius 1. */
    for (mmx_index v = 0; v < mmx_mesh_nverts(out); v++) {
        const float *p = out->pos + 3 * v;
        const double r = sqrt((double)p[0] * p[0] + (double)p[1] * p[1] + (double)p[2] * p[2]);
        cr_assert(r <= 1.0 + 1e-5 && r >= 0.95, "vertex %d at radius %g", v, r);
    }
    mmx_mesh_free(out);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(remesh, coarsens_with_the_default_length_kept)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = tu_shape(ctx, "icosphere:4");
    mmx_remesh_options o = mmx_remesh_defaults();
    o.target_length = 0.2; /* edges of about 0.075: mostly collapses */
    mmx_remesh_report rep;
    mmx_mesh *out = remesh_twice(ctx, m, o, &rep);
    cr_assert(rep.per_iteration[0].collapses > 0);
    cr_assert(mmx_mesh_nfaces(out) < mmx_mesh_nfaces(m) / 3);
    double mean;
    const double share = share_within(out, 0.8 * 0.2, 4.0 / 3.0 * 0.2, &mean);
    cr_assert(share >= 0.85, "only %.3f of the edges within [4/5 L, 4/3 L]", share);
    mmx_mesh_free(out);
    /* The default L is the input's mean edge length. */
    mmx_remesh_report d;
    MMX_OK_OR_FAIL(ctx, mmx_remesh(ctx, m, NULL, &out, &d));
    double mean_in;
    share_within(m, 0, 1e9, &mean_in);
    cr_assert(fabs(d.target_length - mean_in) < 1e-3 * mean_in, "%g vs %g", d.target_length, mean_in);
    cr_assert_eq(d.iterations, 3);
    mmx_mesh_free(out);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* A disk: the boundary stays the input's (its vertices on the input's boundary segments, the
 * four corners kept), every vertex stays in the plane, the loops and Euler characteristic
 * too (the validator). Refined (L = 0.45: boundary edges split in two) and coarsened (L = 1.5:
 * boundary vertices collapse along the straight sides, the corners stay). */
static void check_boundary(double L, mmx_index want_boundary_edges)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = tu_jittered_grid(ctx, 10, 3);
    mmx_remesh_options o = mmx_remesh_defaults();
    o.target_length = L;
    mmx_remesh_report rep;
    mmx_mesh *out = remesh_twice(ctx, m, o, &rep);
    cr_assert(rep.feature_edges == 40, "%d", (int)rep.feature_edges);
    expect_valid(ctx, out, 1, 1);
    mmx_adjacency *adj = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_adjacency_compute(ctx, out, &adj));
    int corners = 0;
    for (mmx_index v = 0; v < mmx_mesh_nverts(out); v++) {
        const float *p = out->pos + 3 * v;
        cr_assert(p[2] == 0.0f, "vertex %d left the plane", v);
        const int on_side = p[0] == 0.0f || p[0] == 10.0f || p[1] == 0.0f || p[1] == 10.0f;
        cr_assert_eq(adj->boundary[v] != 0, on_side, "vertex %d (%g, %g)", v, p[0], p[1]);
        corners += (p[0] == 0.0f || p[0] == 10.0f) && (p[1] == 0.0f || p[1] == 10.0f);
    }
    cr_assert_eq(corners, 4);
    if (want_boundary_edges > 0) cr_assert_eq(adj->boundary_edges, want_boundary_edges);
    else cr_assert(adj->boundary_edges < 40 && adj->boundary_edges >= 24, "%d", (int)adj->boundary_edges);
    adj->ctx = ctx;
    mmx_adjacency_free(adj);
    mmx_mesh_free(out);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* Boundary edges of 1 > 4/3 L are split into halves of 0.5 (80); of 1 < 4/5 L, some collapse
 * along the sides, never below 4 x 6 (sides of 10 over edges of at most 4/3 L = 2). */
Test(remesh, boundary_is_preserved_refined) { check_boundary(0.45, 80); }
Test(remesh, boundary_is_preserved_coarsened) { check_boundary(1.5, 0); }

/* The cube's twelve edges are features (90 degrees > 60): its corners stay, and no face
 * leaves a side, so every face's three vertices share one coordinate at +-1. From two
 * triangles a side (splits longest edge first, or the corners become fans of needles) and
 * from a 4 x 4 grid a side. */
static void check_cube(int levels, double want_share)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = cube(ctx, levels);
    mmx_remesh_options o = mmx_remesh_defaults();
    o.target_length = 0.3;
    o.iterations = 4;
    mmx_remesh_report rep;
    mmx_mesh *out = remesh_twice(ctx, m, o, &rep);
    const int seg = 1 << levels; /* segments per cube edge */
    cr_assert_eq(rep.feature_edges, 12 * seg);
    cr_assert_eq(rep.feature_verts, 8 + 12 * (seg - 1));
    expect_valid(ctx, out, 2, 0);
    int corners = 0;
    for (mmx_index v = 0; v < mmx_mesh_nverts(out); v++) {
        const float *p = out->pos + 3 * v;
        corners += fabsf(p[0]) == 1.0f && fabsf(p[1]) == 1.0f && fabsf(p[2]) == 1.0f;
        const float mx = fmaxf(fabsf(p[0]), fmaxf(fabsf(p[1]), fabsf(p[2])));
        cr_assert(fabsf(mx - 1.0f) < 1e-6f, "vertex %d is off the cube", v);
    }
    cr_assert_eq(corners, 8);
    const mmx_index *F = out->M->rowidx;
    for (mmx_index f = 0; f < mmx_mesh_nfaces(out); f++) {
        int side = 0;
        for (int k = 0; k < 3 && !side; k++)
            for (int sgn = -1; sgn <= 1; sgn += 2) {
                int all = 1;
                for (int j = 0; j < 3; j++) all &= fabsf(out->pos[3 * F[3 * f + j] + k] - (float)sgn) < 1e-6f;
                side |= all;
            }
        cr_assert(side, "face %d crosses a cube edge", f);
    }
    double mean;
    const double share = share_within(out, 0.8 * 0.3, 4.0 / 3.0 * 0.3, &mean);
    cr_assert(share >= want_share, "only %.3f of the edges within [4/5 L, 4/3 L]", share);
    /* About the area over an equilateral triangle of side L: 24 / (0.433 L^2) = 616 faces. */
    cr_assert(mmx_mesh_nfaces(out) > 400 && mmx_mesh_nfaces(out) < 1000, "%d faces",
              (int)mmx_mesh_nfaces(out));
    /* Off (180 degrees), no feature edges. */
    o.feature_angle = 180;
    mmx_mesh *soft = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_remesh(ctx, m, &o, &soft, &rep));
    cr_assert_eq(rep.feature_edges, 0);
    mmx_mesh_free(soft);
    mmx_mesh_free(out);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(remesh, sharp_features_are_preserved_coarse_cube) { check_cube(0, 0.9); }
Test(remesh, sharp_features_are_preserved_grid_cube) { check_cube(2, 0.9); }

/* A crease tagged on a flat grid line (no dihedral angle) is kept like a sharp edge. */
Test(remesh, tagged_crease_is_a_feature)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = tu_jittered_grid(ctx, 6, 9);
    /* The row y = 0 .. : the vertical line x = 3 is not a grid line after the jitter; the
     * boundary is. Tag an interior chain: vertices (i, 3) are jittered, so tag the edges of
     * the path along row 3 as the mesh has them. */
    mmx_index cv[12];
    for (int i = 0; i < 6; i++) cv[2 * i] = 3 * 7 + i, cv[2 * i + 1] = 3 * 7 + i + 1;
    float sharp[6] = {10, 10, 10, 10, 10, 10};
    mmx_mesh_tags tags;
    memset(&tags, 0, sizeof tags);
    tags.ncreases = 6;
    tags.crease_verts = cv;
    tags.crease_sharpness = sharp;
    tags.interpolate_boundary = tags.fvar_interpolate_boundary = tags.fvar_propagate_corners = -1;
    tags.crease_method = tags.smooth_triangles = -1;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_set_tags(ctx, m, &tags));
    mmx_remesh_options o = mmx_remesh_defaults();
    o.target_length = 0.5;
    o.slide_features = 0; /* (sliding along it: tests/test_slide.c) */
    mmx_remesh_report rep;
    mmx_mesh *out = remesh_twice(ctx, m, o, &rep);
    cr_assert_eq(rep.feature_edges, 24 + 6);
    /* With fixed features, the tagged path's inner vertices keep their positions exactly. */
    for (int i = 1; i < 6; i++) {
        const float *p = m->pos + 3 * (3 * 7 + i);
        int found = 0;
        for (mmx_index v = 0; v < mmx_mesh_nverts(out) && !found; v++)
            found = memcmp(out->pos + 3 * v, p, 3 * sizeof(float)) == 0;
        cr_assert(found, "crease vertex %d moved", 3 * 7 + i);
    }
    mmx_mesh_free(out);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* Tags nine interior vertices of tu_jittered_grid(ctx, 12, .) as corners; their numbers
 * into cv. */
static void tag_corners(mmx_ctx *ctx, mmx_mesh *m, mmx_index cv[9])
{
    float sharp[9];
    for (int i = 0; i < 9; i++) cv[i] = (2 + 4 * (i / 3)) * 13 + 2 + 4 * (i % 3), sharp[i] = 10;
    mmx_mesh_tags tags;
    memset(&tags, 0, sizeof tags);
    tags.ncorners = 9;
    tags.corner_verts = cv;
    tags.corner_sharpness = sharp;
    tags.interpolate_boundary = tags.fvar_interpolate_boundary = tags.fvar_propagate_corners = -1;
    tags.crease_method = tags.smooth_triangles = -1;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_set_tags(ctx, m, &tags));
}

/* Tagged corners never move, however many collapses renumber the vertices around them: a
 * coarsening of a jittered grid with nine interior corners tagged keeps each position. */
Test(remesh, tagged_corners_stay_through_collapses)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = tu_jittered_grid(ctx, 12, 5);
    mmx_index cv[9];
    tag_corners(ctx, m, cv);
    mmx_remesh_options o = mmx_remesh_defaults();
    o.target_length = 2.2;
    o.iterations = 4;
    mmx_remesh_report rep;
    mmx_mesh *out = remesh_twice(ctx, m, o, &rep);
    cr_assert(mmx_mesh_nverts(out) < mmx_mesh_nverts(m) / 2, "%d vertices: not coarsened",
              (int)mmx_mesh_nverts(out));
    for (int i = 0; i < 9; i++) {
        const float *p = m->pos + 3 * cv[i];
        int found = 0;
        for (mmx_index v = 0; v < mmx_mesh_nverts(out) && !found; v++)
            found = memcmp(out->pos + 3 * v, p, 3 * sizeof(float)) == 0;
        cr_assert(found, "tagged corner %d moved or went", (int)cv[i]);
    }
    mmx_mesh_free(out);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* ---- the closest-point hierarchy (closest.c, bvh_step.h) --------------------------------- */

/* A procedural triangle soup: a (40 x 40)-cell height field over [0, 40]^2 (each vertex's
 * height and inner positions jittered), a (12 x 12)-cell grid tilted above it, a triangle
 * repeated (ties between two triangles), and degenerate ones (a repeated corner, three
 * collinear corners, one point three times). */
typedef struct soup {
    float *pos;
    mmx_index *tri, nv, nt, grid_nv;
} soup;

static double unit(uint32_t *seed) /* in [0, 1), 48 random bits */
{
    const double hi = (double)(tu_rng(seed) & 0xffffffu), lo = (double)(tu_rng(seed) & 0xffffffu);
    return (hi + lo / 16777216.0) / 16777216.0;
}

static soup make_soup(uint32_t seed)
{
    const int n = 40, m = 12;
    soup s;
    s.grid_nv = (n + 1) * (n + 1);
    s.nv = s.grid_nv + (m + 1) * (m + 1) + 3;
    const mmx_index cap = 2 * n * n + 2 * m * m + 8;
    s.pos = malloc(3 * (size_t)s.nv * sizeof *s.pos);
    s.tri = malloc(3 * (size_t)cap * sizeof *s.tri);
    cr_assert(s.pos && s.tri);
    float *p = s.pos;
    for (int j = 0; j <= n; j++)
        for (int i = 0; i <= n; i++, p += 3) {
            const int inner = i > 0 && i < n && j > 0 && j < n;
            p[0] = (float)i + (inner ? 0.6f * ((float)unit(&seed) - 0.5f) : 0);
            p[1] = (float)j + (inner ? 0.6f * ((float)unit(&seed) - 0.5f) : 0);
            p[2] = 0.8f * (float)unit(&seed);
        }
    for (int j = 0; j <= m; j++)
        for (int i = 0; i <= m; i++, p += 3) {
            p[0] = 5.0f + 1.5f * (float)i;
            p[1] = 3.0f + 1.25f * (float)j;
            p[2] = 2.0f + 0.1f * (float)i + 0.05f * (float)j;
        }
    p[0] = 20, p[1] = 20, p[2] = -1; /* the collinear corners and the point triangle */
    p[3] = 21, p[4] = 21, p[5] = -1;
    p[6] = 22, p[7] = 22, p[8] = -1;
    mmx_index *t = s.tri;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++, t += 6) {
            const mmx_index a = j * (n + 1) + i, b = a + 1, c = a + n + 2, d = a + n + 1;
            t[0] = a, t[1] = b, t[2] = c, t[3] = a, t[4] = c, t[5] = d;
        }
    for (int j = 0; j < m; j++)
        for (int i = 0; i < m; i++, t += 6) {
            const mmx_index a = s.grid_nv + j * (m + 1) + i, b = a + 1, c = a + m + 2, d = a + m + 1;
            t[0] = a, t[1] = b, t[2] = d, t[3] = b, t[4] = c, t[5] = d;
        }
    const mmx_index x = s.nv - 3;
    const mmx_index extra[15] = {s.tri[0], s.tri[1], s.tri[2], /* face 0 again */
                                 x, x + 1, x + 2,              /* collinear corners */
                                 x, x, x,                      /* a point */
                                 x + 2, x + 1, x + 1,          /* a repeated corner */
                                 5, 6, 5};                     /* along a field edge */
    for (int k = 0; k < 15; k++) t[k] = extra[k];
    t += 15;
    s.nt = (mmx_index)((t - s.tri) / 3);
    return s;
}

/* nq query points: random ones around the soup and far from it, the soup's vertices exactly,
 * points on its edges (midpoints and random), inside its triangles, a box corner, and a NaN
 * point (which no triangle is nearer than). */
static double *make_queries(const soup *s, uint32_t seed, mmx_index *nq)
{
    const mmx_index n = 4000;
    double *p = malloc(3 * (size_t)n * sizeof *p);
    cr_assert(p);
    for (mmx_index i = 0; i < n; i++) {
        double *x = p + 3 * (size_t)i;
        const int kind = (int)(i % 8);
        const mmx_index t = (mmx_index)(tu_rng(&seed) % (uint32_t)s->nt);
        const float *A = s->pos + 3 * (size_t)s->tri[3 * (size_t)t];
        const float *B = s->pos + 3 * (size_t)s->tri[3 * (size_t)t + 1];
        const float *C = s->pos + 3 * (size_t)s->tri[3 * (size_t)t + 2];
        const double u = unit(&seed), v = unit(&seed);
        for (int k = 0; k < 3; k++) {
            const double a = A[k], b = B[k], c = C[k];
            switch (kind) {
            case 0: case 1: x[k] = -2 + 44 * unit(&seed); break;          /* around */
            case 2: x[k] = (unit(&seed) - 0.5) * (i % 16 == 2 ? 2e6 : 2e3); break; /* far */
            case 3: x[k] = a; break;                                       /* a vertex */
            case 4: x[k] = (a + b) / 2; break;                             /* an edge midpoint */
            case 5: x[k] = a + u * (c - a); break;                         /* on an edge */
            case 6: x[k] = (1 - sqrt(u)) * a + sqrt(u) * (1 - v) * b + sqrt(u) * v * c; break;
            default: x[k] = a + (u - 0.5) * 0.01; break;                   /* just off a vertex */
            }
        }
    }
    p[0] = 0, p[1] = 0, p[2] = 0.8;   /* a corner of the field's box */
    p[3] = NAN, p[4] = 1, p[5] = 1;   /* nothing is nearer than DBL_MAX */
    *nq = n;
    return p;
}

static double dist2(const double a[3], const double b[3])
{
    const double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
    return d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
}

Test(closest, bvh_matches_brute_force)
{
    mmx_ctx *ctx = tu_host_ctx();
    soup s = make_soup(3);
    mmx__bvh *b = NULL;
    MMX_OK_OR_FAIL(ctx, mmx__bvh_build(ctx, s.pos, s.nv, s.tri, s.nt, &b));
    mmx_index nq = 0;
    double *p = make_queries(&s, 11, &nq);
    double *T = malloc(9 * (size_t)s.nt * sizeof *T);
    cr_assert(T);
    for (mmx_index t = 0; t < s.nt; t++)
        for (int k = 0; k < 9; k++) T[9 * t + k] = s.pos[3 * (size_t)s.tri[3 * t + k / 3] + k % 3];
    int exact_zero = 0;
    for (mmx_index i = 0; i < nq; i++) {
        const double *x = p + 3 * (size_t)i;
        double q[3] = {-7, -7, -7}, d2 = -1, c[3];
        const mmx_index t = mmx__bvh_closest(b, x, q, &d2, 0);
        if (isnan(x[0])) {
            cr_assert_eq(t, -1);
            cr_assert(q[0] == -7 && d2 == DBL_MAX);
            continue;
        }
        cr_assert(t >= 0 && t < s.nt, "query %d: triangle %d", (int)i, (int)t);
        /* q is triangle t's closest point, d2 its squared distance... */
        mmx__bvh_closest_on_triangle(x, T + 9 * t, T + 9 * t + 3, T + 9 * t + 6, c);
        cr_assert(memcmp(c, q, sizeof c) == 0, "query %d: q is not triangle %d's point", (int)i, (int)t);
        cr_assert_eq(d2, dist2(q, x), "query %d", (int)i);
        /* ... and no triangle is nearer (the brute force over all of them). */
        double best = DBL_MAX;
        for (mmx_index u = 0; u < s.nt; u++) {
            mmx__bvh_closest_on_triangle(x, T + 9 * u, T + 9 * u + 3, T + 9 * u + 6, c);
            const double e = dist2(c, x);
            if (e < best) best = e;
        }
        cr_assert_eq(d2, best, "query %d (%g %g %g): %.17g, brute force %.17g", (int)i, x[0], x[1],
                     x[2], d2, best);
        if (i % 8 == 3) exact_zero += d2 == 0;
    }
    /* The vertex queries are on the surface exactly (a triangle with the vertex as a corner
     * meets it in a corner's region: q is the corner, copied). */
    cr_assert_eq(exact_zero, nq / 8, "%d vertex queries at distance 0", exact_zero);
    /* An empty hierarchy answers -1 and leaves q alone. */
    mmx__bvh *e = NULL;
    MMX_OK_OR_FAIL(ctx, mmx__bvh_build(ctx, s.pos, s.nv, s.tri, 0, &e));
    double q[3] = {-7, -7, -7}, d2 = -1;
    cr_assert_eq(mmx__bvh_closest(e, p, q, &d2, 0), -1);
    cr_assert(q[0] == -7 && d2 == -1);
    mmx__bvh_free(e);
    mmx__bvh_free(b);
    free(T);
    free(p);
    free(s.pos);
    free(s.tri);
    mmx_ctx_free(ctx);
}

/* The remesher's projection budget (issue 26, item 8): on the soup (a height field, a tilted
 * grid, ties, degenerate triangles) no query comes near it, so the bounded search gives the
 * unbounded one's answers bit for bit (but for a NaN point, which every box may be nearer than
 * and the remesher never asks for); on a fan of 50,000 triangles, whose spokes' boxes all
 * hold the points near its centre, the bounded search gives up (-2) where the unbounded one
 * tests most of the fan, and agrees with it wherever it answers. */
Test(closest, the_budget_binds_only_where_boxes_pile_up)
{
    mmx_ctx *ctx = tu_host_ctx();
    soup s = make_soup(3);
    mmx__bvh *b = NULL;
    MMX_OK_OR_FAIL(ctx, mmx__bvh_build(ctx, s.pos, s.nv, s.tri, s.nt, &b));
    mmx_index nq = 0;
    double *p = make_queries(&s, 11, &nq);
    for (mmx_index i = 0; i < nq; i++) {
        double q0[3], q1[3], d0 = -1, d1 = -1;
        const mmx_index t0 = mmx__bvh_closest(b, p + 3 * (size_t)i, q0, &d0, 0);
        const mmx_index t1 = mmx__bvh_closest(b, p + 3 * (size_t)i, q1, &d1, MMX__RM_PROJECT_TESTS);
        if (isnan(p[3 * (size_t)i])) continue; /* every box may be nearer than NaN: -2 */
        cr_assert_eq(t1, t0, "query %d (%g %g %g)", (int)i, p[3 * i], p[3 * i + 1], p[3 * i + 2]);
        if (t0 >= 0) cr_assert(memcmp(q0, q1, sizeof q0) == 0 && d0 == d1, "query %d", (int)i);
    }
    mmx__bvh_free(b);
    free(p), free(s.pos), free(s.tri);
    const mmx_index n = 50000;
    float *pos = malloc(3 * ((size_t)n + 1) * sizeof *pos);
    mmx_index *tri = malloc(3 * (size_t)n * sizeof *tri);
    cr_assert(pos && tri);
    pos[0] = pos[1] = pos[2] = 0;
    for (mmx_index i = 0; i < n; i++) {
        const double a = 6.283185307179586 * (double)i / (double)n;
        pos[3 * (i + 1)] = (float)cos(a), pos[3 * (i + 1) + 1] = (float)sin(a), pos[3 * (i + 1) + 2] = 0;
        tri[3 * i] = 0, tri[3 * i + 1] = i + 1, tri[3 * i + 2] = (i + 1) % n + 1;
    }
    MMX_OK_OR_FAIL(ctx, mmx__bvh_build(ctx, pos, n + 1, tri, n, &b));
    int gave_up = 0;
    for (int i = 0; i < 64; i++) {
        const double a = 6.283185307179586 * (i * 997 % n + 0.5) / n;
        const double x[3] = {0.5 * cos(a), 0.5 * sin(a), 1e-3};
        double q0[3], q1[3], d0 = -1, d1 = -1;
        const mmx_index t0 = mmx__bvh_closest(b, x, q0, &d0, 0);
        const mmx_index t1 = mmx__bvh_closest(b, x, q1, &d1, MMX__RM_PROJECT_TESTS);
        cr_assert(t0 >= 0 && fabs(d0 - 1e-6) < 1e-9, "query %d: %d at %g", i, (int)t0, d0);
        if (t1 == -2) {
            gave_up++;
            continue;
        }
        cr_assert(t1 == t0 && memcmp(q0, q1, sizeof q0) == 0, "query %d", i);
    }
    cr_assert_gt(gave_up, 32, "the budget bound %d of 64 fan queries", gave_up);
    mmx__bvh_free(b);
    free(pos), free(tri);
    mmx_ctx_free(ctx);
}

/* A procedural shape as a soup (host copies of its positions and triangles). */
static soup soup_of_shape(const char *spec)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = tu_shape(ctx, spec);
    mmx_index *start = NULL, *verts = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_faces(ctx, m, &start, &verts));
    soup s;
    s.nv = mmx_mesh_nverts(m), s.nt = mmx_mesh_nfaces(m), s.grid_nv = 0;
    cr_assert_eq(start[s.nt], 3 * s.nt, "%s is not all triangles", spec);
    s.pos = malloc(3 * (size_t)s.nv * sizeof *s.pos);
    cr_assert(s.pos);
    memcpy(s.pos, m->pos, 3 * (size_t)s.nv * sizeof *s.pos);
    s.tri = verts;
    free(start);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
    return s;
}

/* Walks the tree from node `at` (depth: internal nodes above it): every reachable leaf's
 * range is the next stretch of order (*next), each node's box holds its children's and its
 * leaves' corners exactly, a node's range is its children's; returns the deepest internal
 * depth met. */
static int check_subtree(const mmx__bvh_view *v, mmx_index at, int depth, mmx_index *next,
                         mmx_index *first, mmx_index *count)
{
    cr_assert(at >= 0 && at < v->nnodes, "node %d", (int)at);
    const mmx__bvh_node *nd = &v->nodes[at];
    if (nd->left < 0) {
        cr_assert(nd->right < 0 && nd->count >= 1 && nd->count <= MMX__BVH_LEAF, "leaf %d", (int)at);
        cr_assert_eq(nd->first, *next, "leaf %d starts at %d, not %d", (int)at, (int)nd->first, (int)*next);
        *next += nd->count;
        double lo[3] = {DBL_MAX, DBL_MAX, DBL_MAX}, hi[3] = {-DBL_MAX, -DBL_MAX, -DBL_MAX};
        for (mmx_index i = nd->first; i < nd->first + nd->count; i++)
            for (int k = 0; k < 9; k++) {
                const double x = v->tri[9 * (size_t)v->order[i] + k];
                if (x < lo[k % 3]) lo[k % 3] = x;
                if (x > hi[k % 3]) hi[k % 3] = x;
            }
        for (int k = 0; k < 3; k++)
            cr_assert(nd->lo[k] == lo[k] && nd->hi[k] == hi[k], "leaf %d's box, axis %d", (int)at, k);
        *first = nd->first, *count = nd->count;
        return depth - 1;
    }
    cr_assert_eq(nd->count, 0, "inner node %d", (int)at);
    mmx_index f1, c1, f2, c2;
    const int d1 = check_subtree(v, nd->left, depth + 1, next, &f1, &c1);
    const int d2 = check_subtree(v, nd->right, depth + 1, next, &f2, &c2);
    cr_assert(f1 == nd->first && f2 == f1 + c1 && c1 + c2 > MMX__BVH_LEAF, "node %d's range", (int)at);
    const mmx__bvh_node *l = &v->nodes[nd->left], *r = &v->nodes[nd->right];
    for (int k = 0; k < 3; k++)
        cr_assert(nd->lo[k] == fmin(l->lo[k], r->lo[k]) && nd->hi[k] == fmax(l->hi[k], r->hi[k]),
                  "node %d's box, axis %d", (int)at, k);
    *first = f1, *count = c1 + c2;
    return d1 > d2 ? (d1 > depth ? d1 : depth) : (d2 > depth ? d2 : depth);
}

/* The linear BVH's tree (closest.c): order is a permutation, the reachable leaves cover it in
 * order, every box is exact, the internal depth stays within the query's stack bound
 * (MMX__BVH_STACK = 65 allows internal depths up to 63), and the build is deterministic. On
 * the soup, an icosphere, one stack of triangles with one centroid (keys differing only in
 * the triangle) and sizes 1 .. 9 (a single leaf; a root with a leaf child). */
static void check_tree(const soup *s, mmx_index nt)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx__bvh *b = NULL, *b2 = NULL;
    MMX_OK_OR_FAIL(ctx, mmx__bvh_build(ctx, s->pos, s->nv, s->tri, nt, &b));
    MMX_OK_OR_FAIL(ctx, mmx__bvh_build(ctx, s->pos, s->nv, s->tri, nt, &b2));
    const mmx__bvh_view v = mmx__bvh_host_view(b), v2 = mmx__bvh_host_view(b2);
    cr_assert_eq(v.nnodes, nt > 0 ? 2 * nt - 1 : 0);
    cr_assert(memcmp(v.nodes, v2.nodes, (size_t)v.nnodes * sizeof *v.nodes) == 0);
    cr_assert(memcmp(v.order, v2.order, (size_t)nt * sizeof *v.order) == 0);
    if (nt > 0) {
        unsigned char *seen = calloc((size_t)nt, 1);
        cr_assert(seen);
        for (mmx_index i = 0; i < nt; i++) {
            cr_assert(v.order[i] >= 0 && v.order[i] < nt && !seen[v.order[i]], "order[%d]", (int)i);
            seen[v.order[i]] = 1;
        }
        free(seen);
        mmx_index next = 0, f, c;
        const int depth = check_subtree(&v, 0, 0, &next, &f, &c);
        cr_assert(next == nt && f == 0 && c == nt, "the leaves cover %d of %d", (int)next, (int)nt);
        cr_assert(depth <= 63 && depth + 2 <= MMX__BVH_STACK, "internal depth %d", depth);
    }
    mmx__bvh_free(b);
    mmx__bvh_free(b2);
    mmx_ctx_free(ctx);
}

Test(closest, lbvh_tree_is_exact)
{
    soup s = make_soup(5);
    for (mmx_index nt = 0; nt <= 9; nt++) check_tree(&s, nt);
    check_tree(&s, s.nt);
    free(s.pos);
    free(s.tri);
    s = soup_of_shape("icosphere:5");
    check_tree(&s, s.nt);
    /* 3000 copies of one triangle: one Morton code, the tree over the triangle numbers. */
    const mmx_index n = 3000;
    mmx_index *tri = malloc(3 * (size_t)n * sizeof *tri);
    cr_assert(tri);
    for (mmx_index i = 0; i < 3 * n; i++) tri[i] = s.tri[i % 3];
    free(s.tri);
    s.tri = tri, s.nt = n;
    check_tree(&s, n);
    free(s.pos);
    free(s.tri);
}

/* The device build (mmx__bvh_build_cuda) of s's first nt triangles into *dev and *block,
 * checked byte for byte against the host build b: the corners, the nodes, the order. */
static void cuda_build_equals_host(mmx_ctx *cu, const soup *s, mmx_index nt, const mmx__bvh *b,
                                   mmx__bvh_view *dev, void **block)
{
    const size_t posb = 3 * (size_t)s->nv * sizeof *s->pos, trib = 3 * (size_t)nt * sizeof *s->tri;
    void *dpos = NULL, *dtri = NULL;
    MMX_OK_OR_FAIL(cu, mmx_mem_alloc(cu, MMX_SPACE_DEVICE, posb, &dpos));
    MMX_OK_OR_FAIL(cu, mmx_mem_alloc(cu, MMX_SPACE_DEVICE, trib + 1, &dtri));
    MMX_OK_OR_FAIL(cu, mmx_mem_copy(cu, dpos, MMX_SPACE_DEVICE, s->pos, MMX_SPACE_HOST, posb));
    if (nt > 0) MMX_OK_OR_FAIL(cu, mmx_mem_copy(cu, dtri, MMX_SPACE_DEVICE, s->tri, MMX_SPACE_HOST, trib));
    const uint64_t syncs = mmx__ctx_syncs(cu);
    MMX_OK_OR_FAIL(cu, mmx__bvh_build_cuda(cu, dpos, s->nv, dtri, nt, dev, block));
    cr_assert_eq(mmx__ctx_syncs(cu), syncs, "the device build waited");
    const mmx__bvh_view h = mmx__bvh_host_view(b);
    cr_assert(dev->nt == nt && dev->nnodes == h.nnodes, "nt %d, nnodes %d (host %d)", (int)dev->nt,
              (int)dev->nnodes, (int)h.nnodes);
    if (nt > 0) {
        const size_t tb = 9 * (size_t)nt * sizeof(double), nb = (size_t)h.nnodes * sizeof *h.nodes;
        const size_t ob = (size_t)nt * sizeof(mmx_index);
        cr_assert((const unsigned char *)dev->tri == *block);
        unsigned char *back = malloc(tb + nb + ob);
        cr_assert(back);
        MMX_OK_OR_FAIL(cu, mmx_mem_copy(cu, back, MMX_SPACE_HOST, *block, MMX_SPACE_DEVICE, tb + nb + ob));
        cr_assert((const unsigned char *)dev->nodes == (unsigned char *)*block + tb);
        cr_assert((const unsigned char *)dev->order == (unsigned char *)*block + tb + nb);
        cr_assert(memcmp(back, h.tri, tb) == 0, "nt %d: the corners differ", (int)nt);
        cr_assert(memcmp(back + tb + nb, h.order, ob) == 0, "nt %d: the order differs", (int)nt);
        const mmx__bvh_node *dn = (const mmx__bvh_node *)(back + tb);
        for (mmx_index i = 0; i < h.nnodes; i++)
            cr_assert(memcmp(&dn[i], &h.nodes[i], sizeof *dn) == 0,
                      "nt %d: node %d differs: device (%d %d %d %d), host (%d %d %d %d)", (int)nt,
                      (int)i, (int)dn[i].left, (int)dn[i].right, (int)dn[i].first,
                      (int)dn[i].count, (int)h.nodes[i].left, (int)h.nodes[i].right,
                      (int)h.nodes[i].first, (int)h.nodes[i].count);
        free(back);
    } else {
        cr_assert(*block == NULL);
    }
    mmx_mem_free(cu, MMX_SPACE_DEVICE, dpos);
    mmx_mem_free(cu, MMX_SPACE_DEVICE, dtri);
}

/* The device query (mmx__bvh_closest_cuda on mmx__bvh_to_device's copy, or with device_build
 * on mmx__bvh_build_cuda's, checked equal first) against the host's, bit for bit: the points,
 * the triangles, and the q left alone where there is none. */
static void cuda_closest_matches_host(mmx_ctx *cu, mmx_ctx *host, const soup *s, mmx_index nt,
                                      const double *p, mmx_index nq, int with_tri, int device_build)
{
    mmx__bvh *b = NULL;
    MMX_OK_OR_FAIL(host, mmx__bvh_build(host, s->pos, s->nv, s->tri, nt, &b));
    mmx__bvh_view dev;
    void *block = NULL;
    if (device_build)
        cuda_build_equals_host(cu, s, nt, b, &dev, &block);
    else
        MMX_OK_OR_FAIL(cu, mmx__bvh_to_device(cu, b, &dev, &block));
    cr_assert_eq(dev.nt, nt);
    const size_t pb = 3 * (size_t)nq * sizeof(double), tb = (size_t)nq * sizeof(mmx_index);
    double *hq = malloc(pb), *dq_back = malloc(pb);
    mmx_index *ht = malloc(tb), *dt_back = malloc(tb);
    cr_assert(hq && dq_back && ht && dt_back);
    for (mmx_index i = 0; i < 3 * nq; i++) hq[i] = -1.0 - (double)i; /* what stays where -1 */
    void *dp = NULL, *dq = NULL, *dt = NULL;
    MMX_OK_OR_FAIL(cu, mmx_mem_alloc(cu, MMX_SPACE_DEVICE, pb, &dp));
    MMX_OK_OR_FAIL(cu, mmx_mem_alloc(cu, MMX_SPACE_DEVICE, pb, &dq));
    MMX_OK_OR_FAIL(cu, mmx_mem_alloc(cu, MMX_SPACE_DEVICE, tb, &dt));
    MMX_OK_OR_FAIL(cu, mmx_mem_copy(cu, dp, MMX_SPACE_DEVICE, p, MMX_SPACE_HOST, pb));
    MMX_OK_OR_FAIL(cu, mmx_mem_copy(cu, dq, MMX_SPACE_DEVICE, hq, MMX_SPACE_HOST, pb));
    MMX_OK_OR_FAIL(cu, mmx__bvh_closest_cuda(cu, &dev, dp, nq, dq, with_tri ? dt : NULL));
    MMX_OK_OR_FAIL(cu, mmx_mem_copy(cu, dq_back, MMX_SPACE_HOST, dq, MMX_SPACE_DEVICE, pb));
    if (with_tri) MMX_OK_OR_FAIL(cu, mmx_mem_copy(cu, dt_back, MMX_SPACE_HOST, dt, MMX_SPACE_DEVICE, tb));
    int found = 0;
    for (mmx_index i = 0; i < nq; i++) {
        ht[i] = mmx__bvh_closest(b, p + 3 * (size_t)i, hq + 3 * (size_t)i, NULL, 0);
        found += ht[i] >= 0;
    }
    cr_assert_eq(found, nt > 0 ? nq - 1 : 0, "host: %d of %d found", found, (int)nq); /* not NaN */
    for (mmx_index i = 0; i < nq; i++) {
        cr_assert(memcmp(hq + 3 * (size_t)i, dq_back + 3 * (size_t)i, 3 * sizeof(double)) == 0,
                  "query %d (%.17g %.17g %.17g): host q (%.17g %.17g %.17g), device (%.17g %.17g %.17g)",
                  (int)i, p[3 * i], p[3 * i + 1], p[3 * i + 2], hq[3 * i], hq[3 * i + 1],
                  hq[3 * i + 2], dq_back[3 * i], dq_back[3 * i + 1], dq_back[3 * i + 2]);
        if (with_tri) cr_assert_eq(ht[i], dt_back[i], "query %d: host triangle %d, device %d",
                                   (int)i, (int)ht[i], (int)dt_back[i]);
    }
    mmx_mem_free(cu, MMX_SPACE_DEVICE, dp);
    mmx_mem_free(cu, MMX_SPACE_DEVICE, dq);
    mmx_mem_free(cu, MMX_SPACE_DEVICE, dt);
    mmx__dev_free(cu, block);
    MMX_OK_OR_FAIL(cu, mmx_ctx_sync(cu));
    mmx__bvh_free(b);
    free(hq);
    free(dq_back);
    free(ht);
    free(dt_back);
}

Test(closest, cuda_matches_host_bits)
{
    mmx_ctx *cu = tu_cuda_ctx_or_skip(), *host = tu_host_ctx();
    for (uint32_t seed = 1; seed <= 2; seed++) {
        soup s = make_soup(seed);
        mmx_index nq = 0;
        double *p = make_queries(&s, 100 + seed, &nq);
        cuda_closest_matches_host(cu, host, &s, s.nt, p, nq, 1, 0);
        cuda_closest_matches_host(cu, host, &s, s.nt, p, nq, 0, 0); /* tri NULL */
        cuda_closest_matches_host(cu, host, &s, 3, p, nq, 1, 0);    /* one leaf */
        cuda_closest_matches_host(cu, host, &s, 0, p, nq, 1, 0);    /* none: -1, q kept */
        free(p);
        free(s.pos);
        free(s.tri);
    }
    mmx_ctx_free(host);
    mmx_ctx_free(cu);
}

/* mmx__bvh_build_cuda builds the host's arrays byte for byte (no wait), and queries on them
 * give the host's bits: on the soup (all of it and sizes 0 .. 9, 1000), icosphere:6 (81920
 * triangles) and 3000 copies of one triangle (one Morton code). */
Test(closest, cuda_build_matches_host_build)
{
    mmx_ctx *cu = tu_cuda_ctx_or_skip(), *host = tu_host_ctx();
    for (uint32_t seed = 1; seed <= 2; seed++) {
        soup s = make_soup(seed);
        mmx_index nq = 0;
        double *p = make_queries(&s, 200 + seed, &nq);
        cuda_closest_matches_host(cu, host, &s, s.nt, p, nq, 1, 1);
        for (mmx_index nt = 0; nt <= 9; nt++) cuda_closest_matches_host(cu, host, &s, nt, p, nq, 1, 1);
        cuda_closest_matches_host(cu, host, &s, 1000, p, nq, 1, 1);
        free(p);
        free(s.pos);
        free(s.tri);
    }
    soup s = soup_of_shape("icosphere:6");
    mmx_index nq = 0;
    double *p = make_queries(&s, 300, &nq);
    cuda_closest_matches_host(cu, host, &s, s.nt, p, nq, 1, 1);
    const mmx_index n = 3000;
    mmx_index *tri = malloc(3 * (size_t)n * sizeof *tri);
    cr_assert(tri);
    for (mmx_index i = 0; i < 3 * n; i++) tri[i] = s.tri[3 + i % 3];
    free(s.tri);
    s.tri = tri, s.nt = n;
    cuda_closest_matches_host(cu, host, &s, n, p, nq, 1, 1);
    free(p);
    free(s.pos);
    free(s.tri);
    mmx_ctx_free(host);
    mmx_ctx_free(cu);
}

/* ---- refusals --------------------------------------------------------------------------- */

static void expect_refused(mmx_ctx *ctx, const mmx_mesh *m, const mmx_remesh_options *o,
                           mmx_status want, const char *what)
{
    mmx_mesh *out = (mmx_mesh *)1;
    cr_assert_eq(mmx_remesh(ctx, m, o, &out, NULL), want, "%s", mmx_ctx_error(ctx));
    cr_assert(strstr(mmx_ctx_error(ctx), what), "wanted '%s', got '%s'", what, mmx_ctx_error(ctx));
    cr_assert_null(out);
}

Test(remesh, bad_input_is_refused_with_a_sentence)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *quads = tu_shape(ctx, "torus:8:6");
    expect_refused(ctx, quads, NULL, MMX_ERR_MESH, "face 0 has 4 vertices");
    /* Three triangles on one edge. */
    const float pos[15] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 1};
    const mmx_index v[9] = {0, 1, 2, 1, 0, 3, 0, 1, 4};
    mmx_mesh *nm = tu_triangles(ctx, 5, 3, v, pos);
    expect_refused(ctx, nm, NULL, MMX_ERR_MESH, "non-manifold");
    mmx_mesh *ico = tu_shape(ctx, "icosphere:1");
    mmx_remesh_options o = mmx_remesh_defaults();
    o.target_length = -1;
    expect_refused(ctx, ico, &o, MMX_ERR_ARG, "target length");
    o.target_length = NAN;
    expect_refused(ctx, ico, &o, MMX_ERR_ARG, "target length");
    o.target_length = 1e-6; /* a unit sphere in about 1.7e13 triangles */
    expect_refused(ctx, ico, &o, MMX_ERR_OVERFLOW, "more than 2^28");
    o = mmx_remesh_defaults();
    o.iterations = MMX_REMESH_MAX_ITERATIONS + 1;
    expect_refused(ctx, ico, &o, MMX_ERR_ARG, "iterations");
    o = mmx_remesh_defaults();
    o.feature_angle = 200;
    expect_refused(ctx, ico, &o, MMX_ERR_ARG, "feature angle");
    ico->pos[3 * 5 + 1] = NAN;
    expect_refused(ctx, ico, NULL, MMX_ERR_MESH, "vertex 5");
    float *keep = ico->pos;
    ico->pos = NULL;
    expect_refused(ctx, ico, NULL, MMX_ERR_ARG, "no positions");
    ico->pos = keep;
    /* A degenerate face. */
    const float flat[12] = {0, 0, 0, 1, 0, 0, 2, 0, 0, 1, 1, 0};
    const mmx_index d[6] = {0, 3, 2, 2, 1, 0};
    mmx_mesh *deg = tu_triangles(ctx, 4, 2, d, flat);
    expect_refused(ctx, deg, NULL, MMX_ERR_MESH, "degenerate");
    mmx_mesh_free(deg);
    mmx_mesh_free(ico);
    mmx_mesh_free(nm);
    mmx_mesh_free(quads);
    mmx_ctx_free(ctx);
}

/* A pinched vertex (two fans meeting at vertex 0 only) and a mesh with no faces. */
static mmx_mesh *pinched(mmx_ctx *ctx)
{
    const float pos[15] = {0, 0, 0, 1, 0, 0, 0, 1, 0, -1, 0, 0, 0, -1, 0};
    const mmx_index v[6] = {0, 1, 2, 0, 3, 4};
    return tu_triangles(ctx, 5, 2, v, pos);
}

static mmx_mesh *no_faces(mmx_ctx *ctx)
{
    const float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    const mmx_index start[1] = {0};
    mmx_mesh *m = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_from_faces(ctx, 3, 0, start, NULL, pos, &m));
    return m;
}

Test(remesh, pinched_vertex_refused_and_no_faces_kept)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *p = pinched(ctx), *e = no_faces(ctx), *out = NULL;
    expect_refused(ctx, p, NULL, MMX_ERR_MESH, "non-manifold");
    mmx_remesh_report rep;
    MMX_OK_OR_FAIL(ctx, mmx_remesh(ctx, e, NULL, &out, &rep));
    cr_assert(mmx_mesh_nverts(out) == 3 && mmx_mesh_nfaces(out) == 0 && rep.iterations == 0);
    cr_assert_eq(memcmp(out->pos, e->pos, 9 * sizeof(float)), 0);
    mmx_mesh_free(out);
    mmx_mesh_free(e);
    mmx_mesh_free(p);
    mmx_ctx_free(ctx);
}

/* Bad input on CUDA gets the host's status and sentence, before any round; a mesh with no
 * faces comes back as it is on both backends. */
Test(remesh, cuda_refuses_what_the_host_refuses)
{
    mmx_ctx *cu = tu_cuda_ctx_or_skip(), *host = tu_host_ctx();
    const float pos[15] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 1};
    const mmx_index v[9] = {0, 1, 2, 1, 0, 3, 0, 1, 4};
    const float flat[12] = {0, 0, 0, 1, 0, 0, 2, 0, 0, 1, 1, 0};
    const mmx_index dv[6] = {0, 3, 2, 2, 1, 0};
    mmx_mesh *nan_ico = tu_shape(host, "icosphere:1");
    nan_ico->pos[3 * 5 + 1] = NAN;
    mmx_mesh *cases[6] = {tu_shape(host, "torus:8:6"), tu_triangles(host, 5, 3, v, pos),
                          pinched(host), nan_ico, tu_triangles(host, 4, 2, dv, flat),
                          no_faces(host)};
    for (int i = 0; i < 6; i++) {
        mmx_mesh *d = NULL, *ho = NULL, *dout = NULL, *back = NULL;
        MMX_OK_OR_FAIL(cu, mmx_mesh_copy(cu, cases[i], MMX_SPACE_DEVICE, &d));
        const mmx_status sh = mmx_remesh(host, cases[i], NULL, &ho, NULL);
        const mmx_status sd = mmx_remesh(cu, d, NULL, &dout, NULL);
        cr_assert_eq(sd, sh, "case %d: CUDA %d, host %d (%s / %s)", i, sd, sh, mmx_ctx_error(cu),
                     mmx_ctx_error(host));
        if (sh) {
            cr_assert_str_eq(mmx_ctx_error(cu), mmx_ctx_error(host), "case %d", i);
            cr_assert_null(dout);
        } else {
            MMX_OK_OR_FAIL(cu, mmx_mesh_copy(cu, dout, MMX_SPACE_HOST, &back));
            cr_assert(mmx_mesh_nverts(back) == mmx_mesh_nverts(ho) &&
                      mmx_mesh_nfaces(back) == mmx_mesh_nfaces(ho), "case %d", i);
            cr_assert_eq(memcmp(back->pos, ho->pos, 3 * (size_t)mmx_mesh_nverts(ho) * sizeof(float)),
                         0, "case %d", i);
        }
        mmx_mesh_free(back);
        mmx_mesh_free(dout);
        mmx_mesh_free(ho);
        mmx_mesh_free(d);
        mmx_mesh_free(cases[i]);
    }
    mmx_ctx_free(host);
    mmx_ctx_free(cu);
}

/* Remeshes `in` (host) on the host and, copied down, on CUDA with the same options: the same
 * report, faces and positions (bytes); CUDA twice: the same bytes. */
static void host_equals_cuda(mmx_ctx *host, mmx_ctx *cu, const mmx_mesh *in, mmx_remesh_options o,
                             const char *what)
{
    mmx_mesh *h = NULL, *din = NULL, *d[2] = {NULL, NULL}, *back[2] = {NULL, NULL};
    mmx_remesh_report rh, rd[2];
    MMX_OK_OR_FAIL(host, mmx_remesh(host, in, &o, &h, &rh));
    MMX_OK_OR_FAIL(cu, mmx_mesh_copy(cu, in, MMX_SPACE_DEVICE, &din));
    for (int k = 0; k < 2; k++) {
        MMX_OK_OR_FAIL(cu, mmx_remesh(cu, din, &o, &d[k], &rd[k]));
        cr_assert_eq(d[k]->space, MMX_SPACE_DEVICE, "%s", what);
        MMX_OK_OR_FAIL(cu, mmx_mesh_copy(cu, d[k], MMX_SPACE_HOST, &back[k]));
    }
    cr_assert(rh.iterations == o.iterations && rd[0].iterations == rh.iterations, "%s", what);
    cr_assert(rd[0].target_length == rh.target_length && rd[0].feature_edges == rh.feature_edges &&
              rd[0].feature_verts == rh.feature_verts, "%s", what);
    int64_t work = 0;
    for (int i = 0; i < rh.iterations; i++) {
        const mmx_remesh_iteration *a = &rh.per_iteration[i], *b = &rd[0].per_iteration[i];
        cr_assert(a->splits == b->splits && a->collapses == b->collapses && a->flips == b->flips &&
                  a->moves == b->moves, "%s, iteration %d: host %lld/%lld/%lld/%lld edits, CUDA "
                  "%lld/%lld/%lld/%lld", what, i, (long long)a->splits, (long long)a->collapses,
                  (long long)a->flips, (long long)a->moves, (long long)b->splits,
                  (long long)b->collapses, (long long)b->flips, (long long)b->moves);
        cr_assert(a->split_rounds == b->split_rounds && a->collapse_rounds == b->collapse_rounds &&
                  a->flip_rounds == b->flip_rounds && a->relax_rounds == b->relax_rounds &&
                  a->nverts == b->nverts && a->nfaces == b->nfaces, "%s, iteration %d", what, i);
        cr_assert(a->split_seeds == b->split_seeds && a->collapse_seeds == b->collapse_seeds &&
                  a->flip_seeds == b->flip_seeds && a->move_seeds == b->move_seeds,
                  "%s, iteration %d: other seeds", what, i);
        cr_assert(b->split_ms >= 0 && b->relax_ms >= 0 &&
                  b->split_ms + b->collapse_ms + b->flip_ms + b->relax_ms <= b->ms * 1.01 + 0.01,
                  "%s, iteration %d: the steps' times exceed the iteration's", what, i);
        work += a->splits + a->collapses + a->flips + a->moves;
    }
    cr_assert(work > 0, "%s: the case must edit something", what);
    const mmx_index nv = mmx_mesh_nverts(h), nf = mmx_mesh_nfaces(h);
    for (int k = 0; k < 2; k++) {
        cr_assert(mmx_mesh_nverts(back[k]) == nv && mmx_mesh_nfaces(back[k]) == nf, "%s", what);
        cr_assert_eq(memcmp(back[k]->M->rowidx, h->M->rowidx, 3 * (size_t)nf * sizeof(mmx_index)), 0,
                     "%s: CUDA run %d gives other faces than the host", what, k);
        cr_assert_eq(memcmp(back[k]->pos, h->pos, 3 * (size_t)nv * sizeof(float)), 0,
                     "%s: CUDA run %d gives other positions than the host", what, k);
    }
    for (int k = 0; k < 2; k++) mmx_mesh_free(back[k]), mmx_mesh_free(d[k]);
    mmx_mesh_free(din);
    mmx_mesh_free(h);
}

Test(remesh, cuda_matches_host)
{
    mmx_ctx *cu = tu_cuda_ctx_or_skip(), *host = tu_host_ctx();
    mmx_remesh_options o = mmx_remesh_defaults();
    /* A jittered grid with a boundary: finer (splits first) and coarser (collapses first),
     * the validator after every round on CUDA too. */
    mmx_mesh *g = tu_jittered_grid(host, 12, 7);
    o.validate = 1;
    o.target_length = 0.6;
    host_equals_cuda(host, cu, g, o, "grid, L 0.6");
    o.target_length = 1.7;
    host_equals_cuda(host, cu, g, o, "grid, L 1.7");
    /* Tagged corners, which collapses renumber. */
    mmx_index cv[9];
    tag_corners(host, g, cv);
    o.target_length = 2.2;
    host_equals_cuda(host, cu, g, o, "grid with tagged corners, L 2.2");
    o.validate = 0;
    /* A cube: feature lines and corners (90-degree edges). */
    mmx_mesh *c = cube(host, 2);
    o.target_length = 0.3;
    o.iterations = 4;
    host_equals_cuda(host, cu, c, o, "cube, L 0.3");
    /* A sphere with the default length, and finer with the features off. */
    mmx_mesh *ico = tu_shape(host, "icosphere:3");
    o = mmx_remesh_defaults();
    host_equals_cuda(host, cu, ico, o, "icosphere, default length");
    o.target_length = 0.06;
    o.feature_angle = 180;
    host_equals_cuda(host, cu, ico, o, "icosphere, L 0.06, no features");
    mmx_mesh_free(ico);
    mmx_mesh_free(c);
    mmx_mesh_free(g);
    mmx_ctx_free(host);
    mmx_ctx_free(cu);
}

/* The waits of a remeshing call on CUDA (issue 31), counted by the context: the same for two
 * runs of one call, and bounded by the rounds, never by the mesh. A round of the flow waits
 * (remesh.cu's head lists them) for the topology of a changed mesh, its seeds' count, each
 * step of its selections (a flip round two selections), the counts of a split or collapse and,
 * after one that kept some, the features' count; so at most 5 besides the selections' steps,
 * which a round of these meshes takes a few of (bounded here by 24 a round in all); each step
 * ends with a probe that finds no seed (2), the set-up waits a fixed number of times. The
 * numbers are logged for the record: a wait per vertex or edge would exceed the bound. */
static void waits_bounded(mmx_ctx *cu, const mmx_mesh *in, mmx_remesh_options o, const char *what)
{
    mmx_mesh *d = NULL;
    MMX_OK_OR_FAIL(cu, mmx_mesh_copy(cu, in, MMX_SPACE_DEVICE, &d));
    unsigned long long w[2];
    mmx_remesh_report rep;
    for (int k = 0; k < 2; k++) {
        mmx_mesh *out = NULL;
        const unsigned long long w0 = mmx__ctx_syncs(cu);
        MMX_OK_OR_FAIL(cu, mmx_remesh(cu, d, &o, &out, &rep));
        w[k] = mmx__ctx_syncs(cu) - w0;
        mmx_mesh_free(out);
    }
    cr_assert_eq(w[0], w[1], "%s: %llu waits, then %llu", what, w[0], w[1]);
    long long rounds = 0;
    for (int i = 0; i < rep.iterations; i++) {
        const mmx_remesh_iteration *it = &rep.per_iteration[i];
        const long long r = it->split_rounds + it->collapse_rounds + it->flip_rounds + it->relax_rounds;
        cr_log_info("%s, iteration %d: %d split, %d collapse, %d flip, %d relax rounds", what, i,
                    it->split_rounds, it->collapse_rounds, it->flip_rounds, it->relax_rounds);
        rounds += r;
    }
    cr_log_info("%s: %llu waits in %d iterations of %lld rounds (%.2f a round)", what, w[0],
                rep.iterations, rounds, rounds ? (double)w[0] / (double)rounds : 0.0);
    cr_assert(rounds > 0, "%s: the case must run rounds", what);
    cr_assert_leq(w[0], 24 * (unsigned long long)rounds + 8 * (unsigned long long)rep.iterations + 64,
                  "%s: %llu waits for %lld rounds", what, w[0], rounds);
    mmx_mesh_free(d);
}

Test(remesh, cuda_waits_scale_with_the_rounds)
{
    mmx_ctx *cu = tu_cuda_ctx_or_skip(), *host = tu_host_ctx();
    mmx_remesh_options o = mmx_remesh_defaults();
    mmx_mesh *c = cube(host, 2); /* feature lines: the features' upkeep after splits and collapses */
    o.target_length = 0.3;
    waits_bounded(cu, c, o, "cube, L 0.3");
    o.target_length = 1.2;
    waits_bounded(cu, c, o, "cube, L 1.2");
    mmx_mesh *ico = tu_shape(host, "icosphere:4");
    o = mmx_remesh_defaults();
    waits_bounded(cu, ico, o, "icosphere 4, default length");
    mmx_mesh_free(ico);
    mmx_mesh_free(c);
    mmx_ctx_free(host);
    mmx_ctx_free(cu);
}

/* n triangles around vertex 0 in z = 0: a disk whose centre has valence n (its rim is the
 * boundary). */
static mmx_mesh *big_fan(mmx_ctx *ctx, mmx_index n)
{
    float *pos = malloc(3 * ((size_t)n + 1) * sizeof *pos);
    mmx_index *v = malloc(3 * (size_t)n * sizeof *v);
    cr_assert(pos && v);
    pos[0] = pos[1] = pos[2] = 0;
    for (mmx_index i = 0; i < n; i++) {
        const double a = 6.283185307179586 * (double)i / (double)n;
        pos[3 * (i + 1)] = (float)cos(a), pos[3 * (i + 1) + 1] = (float)sin(a), pos[3 * (i + 1) + 2] = 0;
        v[3 * i] = 0, v[3 * i + 1] = i + 1, v[3 * i + 2] = (i + 1) % n + 1;
    }
    mmx_mesh *m = tu_triangles(ctx, n + 1, n, v, pos);
    free(pos), free(v);
    return m;
}

/* A shape test (issue 26, item 8): a fan of 200,000 triangles with a target length far above
 * its radius, so every edge is short. Each of the centre's edges checked (and, as a cavity,
 * claimed) the centre's whole ring, O(n^2): minutes; with collapses refused at an end of more
 * than MMX__RM_COLLAPSE_VALENCE faces, the rim's collapses run in rounds of linear work, a
 * second or two. The boundary line (a circle within L / 10 of its chords) collapses down to a
 * triangle of the centre and three rim vertices. */
Test(remesh, a_200k_fan_remeshes_in_linear_time)
{
    mmx_ctx *ctx = tu_host_ctx();
    const mmx_index n = 200000;
    mmx_mesh *m = big_fan(ctx, n), *out = NULL;
    mmx_remesh_options o = mmx_remesh_defaults();
    o.iterations = 1;
    o.target_length = 10;
    mmx_remesh_report r;
    MMX_OK_OR_FAIL(ctx, mmx_remesh(ctx, m, &o, &out, &r));
    cr_assert_eq(r.per_iteration[0].collapses, n - 3, "%lld collapses",
                 (long long)r.per_iteration[0].collapses);
    cr_assert_eq(mmx_mesh_nfaces(out), 3);
    expect_valid(ctx, out, 1, 1);
    mmx_mesh_free(out);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* A fan of 20,000 triangles with the default length (about half its radius): every spoke is
 * split, and the projection of each relaxed vertex onto the input, whose spokes' boxes all
 * hold it, gives up at its budget instead of testing the whole fan (O(n^2) a step). */
Test(remesh, a_20k_fan_with_the_default_length)
{
    mmx_ctx *ctx = tu_host_ctx();
    const mmx_index n = 20000;
    mmx_mesh *m = big_fan(ctx, n), *out = NULL;
    mmx_remesh_options o = mmx_remesh_defaults();
    o.iterations = 1;
    mmx_remesh_report r;
    MMX_OK_OR_FAIL(ctx, mmx_remesh(ctx, m, &o, &out, &r));
    cr_assert_eq(r.per_iteration[0].splits, n);
    expect_valid(ctx, out, 1, 1);
    mmx_mesh_free(out);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* Fans on CUDA: the valence bound on collapses gives the host's edits and bytes. */
Test(remesh, cuda_a_fan_matches_host)
{
    mmx_ctx *cu = tu_cuda_ctx_or_skip(), *host = tu_host_ctx();
    mmx_remesh_options o = mmx_remesh_defaults();
    o.iterations = 1;
    mmx_mesh *f = big_fan(host, 20000);
    o.target_length = 10;
    host_equals_cuda(host, cu, f, o, "a 20k fan, L 10");
    mmx_mesh_free(f);
    f = big_fan(host, 2000);
    o.target_length = 0;
    host_equals_cuda(host, cu, f, o, "a 2k fan, the default length");
    mmx_mesh_free(f);
    mmx_ctx_free(host);
    mmx_ctx_free(cu);
}

Test(remesh, cuda_refuses_a_host_mesh)
{
    mmx_ctx *cu = tu_cuda_ctx_or_skip();
    mmx_ctx *host = tu_host_ctx();
    mmx_mesh *m = tu_shape(host, "icosphere:1"), *out = NULL;
    cr_assert_eq(mmx_remesh(cu, m, NULL, &out, NULL), MMX_ERR_SPACE);
    cr_assert(strstr(mmx_ctx_error(cu), "device"), "%s", mmx_ctx_error(cu));
    /* A set-up error made on the host copy is passed on with its sentence. */
    mmx_mesh *d = NULL;
    MMX_OK_OR_FAIL(cu, mmx_mesh_copy(cu, m, MMX_SPACE_DEVICE, &d));
    mmx_remesh_options o = mmx_remesh_defaults();
    o.target_length = 1e-9;
    cr_assert_eq(mmx_remesh(cu, d, &o, &out, NULL), MMX_ERR_OVERFLOW);
    cr_assert(strstr(mmx_ctx_error(cu), "2^28"), "%s", mmx_ctx_error(cu));
    mmx_mesh_free(d);
    mmx_mesh_free(m);
    mmx_ctx_free(host);
    mmx_ctx_free(cu);
}

/* The smallest angle of every face of m, in degrees, into a (malloc'd, nfaces). */
static double *smallest_angles(const mmx_mesh *m)
{
    const mmx_index nf = mmx_mesh_nfaces(m), *F = m->M->rowidx;
    double *a = malloc((size_t)nf * sizeof *a);
    cr_assert(a);
    for (mmx_index f = 0; f < nf; f++) {
        double l[3];
        for (int k = 0; k < 3; k++) {
            const float *p = m->pos + 3 * F[3 * f + k], *q = m->pos + 3 * F[3 * f + (k + 1) % 3];
            l[k] = sqrt(pow(p[0] - q[0], 2) + pow(p[1] - q[1], 2) + pow(p[2] - q[2], 2));
        }
        a[f] = 180;
        for (int k = 0; k < 3; k++) { /* the angle opposite l[k] */
            const double x = l[k], y = l[(k + 1) % 3], z = l[(k + 2) % 3];
            const double c = fmax(-1.0, fmin(1.0, (y * y + z * z - x * x) / (2 * y * z)));
            a[f] = fmin(a[f], acos(c) * 180 / 3.14159265358979323846);
        }
    }
    return a;
}

static int cmp_double(const void *x, const void *y)
{
    const double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* The flips' angle rules (remesh_step.h: MMX__RM_FLIP_SIN, MMX__RM_FLIP_GAIN) at sharp
 * features: on the grid cube (its twelve edges features, as above) the smallest angle of the
 * faces with a corner on a cube edge was 20.9 degrees before the rules and the 1st percentile
 * of all faces' smallest angles 29.6; with them 31.1 and 34.3. */
Test(remesh, flips_raise_the_smallest_angles_at_sharp_features)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = cube(ctx, 2), *out = NULL;
    mmx_remesh_options o = mmx_remesh_defaults();
    o.target_length = 0.3;
    o.iterations = 4;
    MMX_OK_OR_FAIL(ctx, mmx_remesh(ctx, m, &o, &out, NULL));
    const mmx_index nf = mmx_mesh_nfaces(out), *F = out->M->rowidx;
    double *a = smallest_angles(out), at_edge = 180;
    for (mmx_index f = 0; f < nf; f++) {
        int edge = 0;
        for (int k = 0; k < 3; k++) {
            const float *p = out->pos + 3 * F[3 * f + k];
            edge |= (fabsf(p[0]) == 1.0f) + (fabsf(p[1]) == 1.0f) + (fabsf(p[2]) == 1.0f) >= 2;
        }
        if (edge) at_edge = fmin(at_edge, a[f]);
    }
    qsort(a, (size_t)nf, sizeof *a, cmp_double);
    const double p1 = a[nf / 100];
    cr_expect(at_edge >= 28, "a face at a cube edge has a smallest angle of %.2f degrees", at_edge);
    cr_expect(p1 >= 32, "the 1st percentile of the smallest angles is %.2f degrees", p1);
    free(a);
    mmx_mesh_free(out);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}
