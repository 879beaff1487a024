/* QEM simplification (mmx_simplify) and the cavity operator's priorities as data
 * (mmx_cavity_round_ranked): validity after every round (opts.validate) and no fold-over,
 * determinism, the target reached, the boundary kept, the error bound honoured, a plane's
 * quadrics exact, a cube's corners kept, host = CUDA bytes, and refusals named. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"

/* The cube [-1, 1]^3, each side a 2^levels x 2^levels grid of quads, each cut in two. */
static mmx_mesh *cube(mmx_ctx *ctx, int levels)
{
    mmx_mesh *c = tu_shape(ctx, "cube"), *fine = NULL, *tri = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_subdivide(ctx, MMX_SCHEME_BILINEAR, c, levels, NULL, &fine));
    const mmx_index nv = mmx_mesh_nverts(fine);
    float h = 0;
    for (mmx_index i = 0; i < 3 * nv; i++) h = fmaxf(h, fabsf(fine->pos[i]));
    for (mmx_index i = 0; i < 3 * nv; i++) fine->pos[i] /= h;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_triangulate(ctx, fine, &tri));
    mmx_mesh_free(fine);
    mmx_mesh_free(c);
    return tri;
}

/* The faces as a host triangle list (3 per face). */
static mmx_index *tris(mmx_ctx *ctx, const mmx_mesh *m)
{
    mmx_index *start = NULL, *verts = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_faces(ctx, m, &start, &verts));
    for (mmx_index f = 0; f < mmx_mesh_nfaces(m); f++) cr_assert_eq(start[f + 1] - start[f], 3);
    free(start);
    return verts;
}

static void same_bytes(mmx_ctx *ctx, const mmx_mesh *a, const mmx_mesh *b, const char *what)
{
    cr_assert_eq(mmx_mesh_nverts(a), mmx_mesh_nverts(b), "%s", what);
    cr_assert_eq(mmx_mesh_nfaces(a), mmx_mesh_nfaces(b), "%s", what);
    mmx_index *fa = tris(ctx, a), *fb = tris(ctx, b);
    cr_assert_eq(memcmp(fa, fb, 3 * (size_t)mmx_mesh_nfaces(a) * sizeof *fa), 0, "%s", what);
    cr_assert_eq(memcmp(a->pos, b->pos, 3 * (size_t)mmx_mesh_nverts(a) * sizeof(float)), 0,
                 "%s", what);
    free(fa);
    free(fb);
}

/* Every face of a mesh of a convex body around the origin faces outwards (no fold-over). */
static void outward(mmx_ctx *ctx, const mmx_mesh *m)
{
    mmx_index *f = tris(ctx, m);
    for (mmx_index i = 0; i < mmx_mesh_nfaces(m); i++) {
        const float *p = m->pos + 3 * (size_t)f[3 * i], *q = m->pos + 3 * (size_t)f[3 * i + 1],
                    *r = m->pos + 3 * (size_t)f[3 * i + 2];
        const double u[3] = {q[0] - p[0], q[1] - p[1], q[2] - p[2]};
        const double w[3] = {r[0] - p[0], r[1] - p[1], r[2] - p[2]};
        const double n[3] = {u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2],
                             u[0] * w[1] - u[1] * w[0]};
        const double c = n[0] * (p[0] + q[0] + r[0]) + n[1] * (p[1] + q[1] + r[1]) +
                         n[2] * (p[2] + q[2] + r[2]);
        cr_assert_gt(c, 0, "face %d folds inwards", (int)i);
    }
    free(f);
}

Test(simplify, sphere_to_ratio_valid_every_round)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = tu_shape(ctx, "icosphere:4"), *out = NULL, *again = NULL;
    mmx_simplify_options o = mmx_simplify_defaults();
    o.ratio = 0.1;
    o.validate = 1;
    mmx_simplify_report r;
    MMX_OK_OR_FAIL(ctx, mmx_simplify(ctx, m, &o, &out, &r));
    const mmx_index target = (mmx_index)ceil(0.1 * mmx_mesh_nfaces(m));
    cr_assert_eq(r.target_faces, target);
    cr_assert(mmx_mesh_nfaces(out) <= target && mmx_mesh_nfaces(out) >= target - 1,
              "%d faces for a target of %d", (int)mmx_mesh_nfaces(out), (int)target);
    cr_assert_eq(r.faces_out, mmx_mesh_nfaces(out));
    cr_assert_eq(r.faces_in - r.faces_out, 2 * r.collapses);
    cr_assert_gt(r.rounds, 1);
    mmx_mesh_validation v;
    const mmx_mesh_expect x = {1, 2, 1, 0};
    MMX_OK_OR_FAIL(ctx, mmx_mesh_validate(ctx, out, &x, &v));
    outward(ctx, out);
    /* The vertices stay near the unit sphere. */
    for (mmx_index i = 0; i < mmx_mesh_nverts(out); i++) {
        const float *p = out->pos + 3 * (size_t)i;
        const double l = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
        cr_assert(l > 0.9 && l < 1.1, "vertex %d at radius %g", (int)i, l);
    }
    /* Deterministic: the same bytes again. */
    MMX_OK_OR_FAIL(ctx, mmx_simplify(ctx, m, &o, &again, NULL));
    same_bytes(ctx, out, again, "second run");
    mmx_mesh_free(again);
    mmx_mesh_free(out);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

static int progress_rounds;
static void count_progress(void *user, const char *what, int done, int total)
{
    (void)user, (void)total;
    cr_assert_str_eq(what, "simplify round");
    cr_assert_eq(done, ++progress_rounds);
}

Test(simplify, target_faces_and_progress)
{
    mmx_ctx *ctx = tu_host_ctx();
    MMX_OK_OR_FAIL(ctx, mmx_ctx_set_progress(ctx, count_progress, NULL));
    mmx_mesh *m = tu_shape(ctx, "icosphere:3"), *out = NULL;
    mmx_simplify_options o = mmx_simplify_defaults();
    o.target_faces = 100;
    mmx_simplify_report r;
    MMX_OK_OR_FAIL(ctx, mmx_simplify(ctx, m, &o, &out, &r));
    cr_assert_eq(mmx_mesh_nfaces(out), 100);
    cr_assert_eq(progress_rounds, r.rounds);
    mmx_mesh_free(out);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* A plane's quadrics vanish in the plane: zero error, every vertex still in z = 0, and the
 * boundary (locked) kept vertex for vertex. */
Test(simplify, plane_exact_and_boundary_kept)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = tu_jittered_grid(ctx, 16, 7), *out = NULL;
    mmx_simplify_options o = mmx_simplify_defaults();
    o.ratio = 0.2;
    o.validate = 1;
    mmx_simplify_report r;
    MMX_OK_OR_FAIL(ctx, mmx_simplify(ctx, m, &o, &out, &r));
    cr_assert_eq(r.max_error, 0);
    cr_assert_eq(r.locked_verts, 4 * 16);
    cr_assert_lt(mmx_mesh_nfaces(out), mmx_mesh_nfaces(m));
    for (mmx_index i = 0; i < mmx_mesh_nverts(out); i++) cr_assert_eq(out->pos[3 * i + 2], 0.0f);
    /* Every boundary vertex of the input is still there, where it was. */
    int found = 0;
    for (mmx_index i = 0; i < mmx_mesh_nverts(m); i++) {
        const float *p = m->pos + 3 * (size_t)i;
        if (p[0] != 0 && p[0] != 16 && p[1] != 0 && p[1] != 16) continue;
        for (mmx_index j = 0; j < mmx_mesh_nverts(out); j++)
            if (memcmp(out->pos + 3 * (size_t)j, p, 3 * sizeof *p) == 0) {
                found++;
                break;
            }
    }
    cr_assert_eq(found, 4 * 16);
    mmx_mesh_validation v;
    const mmx_mesh_expect x = {1, 1, 1, 1};
    MMX_OK_OR_FAIL(ctx, mmx_mesh_validate(ctx, out, &x, &v));
    cr_assert_eq(v.stats.boundary_edges, 4 * 16);
    mmx_mesh_free(out);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* A finely cut cube comes down to 12 triangles keeping its 8 corners exactly, by the
 * quadrics alone (no feature locks; the flat sides' zero-cost collapses leave vertices of
 * valence 3, which the ranked collapse's exact link condition lets go), and with the feature
 * angle its edges' vertices stay as well. */
Test(simplify, cube_corners_kept)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = cube(ctx, 3);
    for (int feat = 0; feat < 2; feat++) {
        mmx_mesh *out = NULL;
        mmx_simplify_options o = mmx_simplify_defaults();
        o.target_faces = 12;
        o.validate = 1;
        if (feat) o.feature_angle = 60;
        mmx_simplify_report r;
        MMX_OK_OR_FAIL(ctx, mmx_simplify(ctx, m, &o, &out, &r));
        int corners = 0;
        for (mmx_index j = 0; j < mmx_mesh_nverts(out); j++) {
            const float *p = out->pos + 3 * (size_t)j;
            corners += fabsf(p[0]) == 1 && fabsf(p[1]) == 1 && fabsf(p[2]) == 1;
        }
        cr_assert_eq(corners, 8, "feature angle %d: %d corners", feat, corners);
        if (!feat) {
            cr_assert_eq(mmx_mesh_nfaces(out), 12, "%d faces", (int)mmx_mesh_nfaces(out));
            cr_assert_lt(r.max_error, 1e-6);
        } else {
            cr_assert_eq(r.locked_verts, 12 * 7 + 8); /* the edges' inner vertices, corners */
        }
        outward(ctx, out);
        mmx_mesh_free(out);
    }
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* icosphere:3 with four creases (edges 0, 40, 80, 120: their ends into cv[0..8)) and one
 * corner (vertex 100) tagged. */
static mmx_mesh *tagged_sphere(mmx_ctx *ctx, mmx_index cv[8])
{
    mmx_mesh *m = tu_shape(ctx, "icosphere:3");
    mmx_adjacency *adj = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_adjacency_compute(ctx, m, &adj));
    mmx_index corner[1] = {100};
    for (int i = 0; i < 4; i++) cv[2 * i] = adj->ev[2 * (40 * i)], cv[2 * i + 1] = adj->ev[2 * (40 * i) + 1];
    float sharp[4] = {10, 10, 10, 10}, csharp[1] = {5};
    mmx_mesh_tags tags;
    memset(&tags, 0, sizeof tags);
    tags.ncreases = 4;
    tags.crease_verts = cv;
    tags.crease_sharpness = sharp;
    tags.ncorners = 1;
    tags.corner_verts = corner;
    tags.corner_sharpness = csharp;
    tags.interpolate_boundary = tags.fvar_interpolate_boundary = tags.fvar_propagate_corners = -1;
    tags.crease_method = tags.smooth_triangles = -1;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_set_tags(ctx, m, &tags));
    mmx_adjacency_free(adj);
    return m;
}

/* The ends of tagged creases (sharpness > 0) and tagged corners are locked: they stay where
 * they were. */
Test(simplify, tagged_vertices_kept)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_index cv[8];
    mmx_mesh *m = tagged_sphere(ctx, cv), *out = NULL;
    mmx_simplify_options o = mmx_simplify_defaults();
    o.ratio = 0.1;
    mmx_simplify_report r;
    MMX_OK_OR_FAIL(ctx, mmx_simplify(ctx, m, &o, &out, &r));
    cr_assert_geq(r.locked_verts, 5);
    cr_assert_leq(r.locked_verts, 9);
    for (int i = 0; i < 9; i++) {
        const mmx_index v = i < 8 ? cv[i] : 100;
        int found = 0;
        for (mmx_index j = 0; j < mmx_mesh_nverts(out) && !found; j++)
            found = memcmp(out->pos + 3 * (size_t)j, m->pos + 3 * (size_t)v, 3 * sizeof(float)) == 0;
        cr_assert(found, "tagged vertex %d moved or went", (int)v);
    }
    cr_assert_null(out->tags);
    mmx_mesh_free(out);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(simplify, error_bound_honoured)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = tu_shape(ctx, "icosphere:4"), *loose = NULL, *tight = NULL;
    mmx_simplify_options o = mmx_simplify_defaults();
    o.max_error = 2e-3;
    mmx_simplify_report rl, rt;
    MMX_OK_OR_FAIL(ctx, mmx_simplify(ctx, m, &o, &loose, &rl));
    o.max_error = 5e-4;
    MMX_OK_OR_FAIL(ctx, mmx_simplify(ctx, m, &o, &tight, &rt));
    cr_assert_leq(rl.max_error, 2e-3);
    cr_assert_leq(rt.max_error, 5e-4);
    cr_assert_gt(rl.max_error, 0);
    cr_assert_lt(mmx_mesh_nfaces(loose), mmx_mesh_nfaces(tight));
    cr_assert_lt(mmx_mesh_nfaces(tight), mmx_mesh_nfaces(m));
    /* Every vertex left is within a few bounds of the sphere (radius 1, diagonal 2 sqrt 3). */
    const double d = 2 * sqrt(3.0);
    for (mmx_index i = 0; i < mmx_mesh_nverts(loose); i++) {
        const float *p = loose->pos + 3 * (size_t)i;
        const double l = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
        cr_assert_lt(fabs(l - 1), 4 * 2e-3 * d, "vertex %d at radius %g", (int)i, l);
    }
    mmx_mesh_free(loose);
    mmx_mesh_free(tight);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

static void refused(mmx_ctx *ctx, const mmx_mesh *m, mmx_simplify_options o, mmx_status want,
                    const char *words)
{
    mmx_mesh *out = (mmx_mesh *)1;
    const mmx_status s = mmx_simplify(ctx, m, &o, &out, NULL);
    cr_assert_eq(s, want, "%s: %s", words, mmx_ctx_error(ctx));
    cr_assert_null(out);
    cr_assert(strstr(mmx_ctx_error(ctx), words), "'%s' lacks '%s'", mmx_ctx_error(ctx), words);
}

Test(simplify, refusals)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = tu_shape(ctx, "icosphere:1"), *quads = tu_shape(ctx, "torus:8:6");
    mmx_simplify_options o = mmx_simplify_defaults();
    refused(ctx, m, o, MMX_ERR_ARG, "no target");
    o.ratio = 1.5;
    refused(ctx, m, o, MMX_ERR_ARG, "ratio");
    o.ratio = 0.5, o.target_faces = 10;
    refused(ctx, m, o, MMX_ERR_ARG, "both");
    o = mmx_simplify_defaults(), o.target_faces = -1;
    refused(ctx, m, o, MMX_ERR_ARG, "negative");
    o = mmx_simplify_defaults(), o.max_error = NAN;
    refused(ctx, m, o, MMX_ERR_ARG, "max_error");
    o = mmx_simplify_defaults(), o.ratio = 0.5, o.feature_angle = 0;
    refused(ctx, m, o, MMX_ERR_ARG, "feature_angle");
    o = mmx_simplify_defaults(), o.ratio = 0.5;
    refused(ctx, quads, o, MMX_ERR_MESH, "mmx_mesh_triangulate");
    m->pos[4] = INFINITY;
    refused(ctx, m, o, MMX_ERR_MESH, "finite");
    mmx_mesh_free(quads);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* ---- priorities as data ------------------------------------------------------------------ */

/* Without priorities the ranked round is mmx_cavity_round, byte for byte. */
Test(simplify, ranked_without_priorities_is_hashed)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = tu_shape(ctx, "icosphere:2");
    mmx_adjacency *adj = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_adjacency_compute(ctx, m, &adj));
    const mmx_index ne = adj->nedges;
    mmx_index *seeds = malloc((size_t)ne * sizeof *seeds);
    mmx_cavity_seed *a = malloc((size_t)ne * sizeof *a), *b = malloc((size_t)ne * sizeof *b);
    cr_assert(seeds && a && b);
    for (mmx_index i = 0; i < ne; i++) seeds[i] = (i * 7) % ne;
    for (int kind = 0; kind < 3; kind++) {
        mmx_mesh *x = NULL, *y = NULL;
        mmx_cavity_counts cx, cy;
        MMX_OK_OR_FAIL(ctx, mmx_cavity_round(ctx, m, (mmx_cavity_kind)kind, seeds, ne, 3, &x, &cx, a));
        MMX_OK_OR_FAIL(ctx, mmx_cavity_round_ranked(ctx, m, (mmx_cavity_kind)kind, seeds, NULL,
                                                    NULL, ne, 3, &y, &cy, b));
        cr_assert_eq(memcmp(&cx, &cy, sizeof cx), 0);
        cr_assert_eq(memcmp(a, b, (size_t)ne * sizeof *a), 0);
        same_bytes(ctx, x, y, "ranked, no priorities");
        mmx_mesh_free(x);
        mmx_mesh_free(y);
    }
    free(seeds);
    free(a);
    free(b);
    mmx_adjacency_free(adj);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* Lower priority wins, ties go to the lower seed position: the kept set is the greedy pass
 * in that order, checked against a direct greedy pass over the cavities' faces. */
Test(simplify, ranked_lower_priority_wins)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = tu_shape(ctx, "icosphere:2");
    mmx_adjacency *adj = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_adjacency_compute(ctx, m, &adj));
    const mmx_index ne = adj->nedges, nf = mmx_mesh_nfaces(m);
    mmx_index *seeds = malloc((size_t)ne * sizeof *seeds);
    float *prio = malloc((size_t)ne * sizeof *prio);
    mmx_cavity_seed *sd = malloc((size_t)ne * sizeof *sd);
    unsigned char *taken = calloc((size_t)nf, 1);
    cr_assert(seeds && prio && sd && taken);
    for (int tie = 0; tie < 2; tie++) {
        for (mmx_index i = 0; i < ne; i++) {
            seeds[i] = i;
            prio[i] = tie ? 1.0f : (float)(ne - i); /* reversed edge order, or all equal */
        }
        mmx_mesh *x = NULL;
        mmx_cavity_counts c;
        MMX_OK_OR_FAIL(ctx, mmx_cavity_round_ranked(ctx, m, MMX_CAVITY_EDGE_FLIP, seeds, prio,
                                                    NULL, ne, 0, &x, &c, sd));
        /* A flip's cavity is its two faces: the greedy pass in key order, by hand. */
        memset(taken, 0, (size_t)nf);
        mmx_index kept = 0;
        for (mmx_index k = 0; k < ne; k++) {
            const mmx_index i = tie ? k : ne - 1 - k;
            if (sd[i].outcome == MMX_CAVITY_INVALID) continue;
            const int free_ = !taken[sd[i].faces[0]] && !taken[sd[i].faces[1]];
            cr_assert_eq(sd[i].outcome, free_ ? MMX_CAVITY_KEPT : MMX_CAVITY_CONFLICT,
                         "tie %d seed %d", tie, (int)i);
            if (free_) taken[sd[i].faces[0]] = taken[sd[i].faces[1]] = 1, kept++;
        }
        cr_assert_eq(kept, c.kept);
        cr_assert_gt(kept, 0);
        mmx_mesh_free(x);
    }
    /* NaN is refused, naming the seed. */
    prio[5] = NAN;
    mmx_mesh *x = NULL;
    cr_assert_eq(mmx_cavity_round_ranked(ctx, m, MMX_CAVITY_EDGE_FLIP, seeds, prio, NULL, ne, 0,
                                         &x, NULL, NULL), MMX_ERR_ARG);
    cr_assert(strstr(mmx_ctx_error(ctx), "seed 5"), "%s", mmx_ctx_error(ctx));
    cr_assert_null(x);
    free(seeds);
    free(prio);
    free(sd);
    free(taken);
    mmx_adjacency_free(adj);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* A collapse's place: the merged vertex goes where the caller says. */
Test(simplify, ranked_collapse_place)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = tu_shape(ctx, "icosphere:2"), *x = NULL;
    mmx_adjacency *adj = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_adjacency_compute(ctx, m, &adj));
    const mmx_index e = 10, a = adj->ev[2 * e], b = adj->ev[2 * e + 1];
    float place[3];
    for (int k = 0; k < 3; k++) place[k] = 0.75f * m->pos[3 * a + k] + 0.25f * m->pos[3 * b + k];
    const float prio = 0.5f;
    mmx_cavity_seed sd;
    MMX_OK_OR_FAIL(ctx, mmx_cavity_round_ranked(ctx, m, MMX_CAVITY_EDGE_COLLAPSE, &e, &prio,
                                                place, 1, 0, &x, NULL, &sd));
    cr_assert_eq(sd.outcome, MMX_CAVITY_KEPT);
    cr_assert_eq(memcmp(x->pos + 3 * (size_t)sd.vertex, place, sizeof place), 0);
    cr_assert_eq(mmx_mesh_nfaces(x), mmx_mesh_nfaces(m) - 2);
    mmx_mesh_free(x);
    mmx_adjacency_free(adj);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* ---- CUDA ----------------------------------------------------------------------------------- */

/* mmx_simplify on CUDA gives the host's bytes and report (every shape and option set below),
 * and a refusal's sentence. */
Test(simplify, cuda_matches_host)
{
    mmx_ctx *cu = tu_cuda_ctx_or_skip(), *host = tu_host_ctx();
    mmx_index cv[8];
    mmx_mesh *shapes[4] = {tu_shape(host, "icosphere:4"), tu_jittered_grid(host, 16, 3),
                           cube(host, 3), tagged_sphere(host, cv)};
    for (int i = 0; i < 4; i++)
        for (int opt = 0; opt < 3; opt++) {
            mmx_simplify_options o = mmx_simplify_defaults();
            if (opt == 0) o.ratio = 0.1;
            if (opt == 1) o.max_error = 1e-3, o.feature_angle = 60;
            if (opt == 2) o.target_faces = 50, o.max_error = 1e-2;
            mmx_mesh *h = NULL, *din = NULL, *d = NULL, *back = NULL;
            mmx_simplify_report rh, rd;
            MMX_OK_OR_FAIL(host, mmx_simplify(host, shapes[i], &o, &h, &rh));
            MMX_OK_OR_FAIL(cu, mmx_mesh_copy(cu, shapes[i], MMX_SPACE_DEVICE, &din));
            MMX_OK_OR_FAIL(cu, mmx_simplify(cu, din, &o, &d, &rd));
            cr_assert_eq(d->space, MMX_SPACE_DEVICE);
            MMX_OK_OR_FAIL(cu, mmx_mesh_copy(cu, d, MMX_SPACE_HOST, &back));
            same_bytes(host, h, back, "host = CUDA");
            cr_assert(rh.faces_out == rd.faces_out && rh.verts_out == rd.verts_out &&
                      rh.target_faces == rd.target_faces && rh.locked_verts == rd.locked_verts &&
                      rh.rounds == rd.rounds && rh.collapses == rd.collapses &&
                      rh.diagonal == rd.diagonal && rh.max_error == rd.max_error,
                      "shape %d options %d: the reports differ", i, opt);
            mmx_mesh_free(back);
            mmx_mesh_free(d);
            mmx_mesh_free(din);
            mmx_mesh_free(h);
        }
    mmx_mesh *quads = tu_shape(cu, "torus:8:6"), *out = NULL;
    mmx_simplify_options o = mmx_simplify_defaults();
    o.ratio = 0.5;
    cr_assert_eq(mmx_simplify(cu, quads, &o, &out, NULL), MMX_ERR_MESH);
    cr_assert(strstr(mmx_ctx_error(cu), "mmx_mesh_triangulate"), "%s", mmx_ctx_error(cu));
    mmx_mesh_free(quads);
    for (int i = 0; i < 4; i++) mmx_mesh_free(shapes[i]);
    mmx_ctx_free(host);
    mmx_ctx_free(cu);
}

/* The ranked round on CUDA (device seeds, priorities, places and per_seed): the host's
 * outcomes and bytes for every edge template. */
Test(simplify, cuda_ranked_round_matches_host)
{
    mmx_ctx *cu = tu_cuda_ctx_or_skip(), *host = tu_host_ctx();
    mmx_mesh *m = tu_shape(host, "icosphere:3"), *dm = NULL;
    MMX_OK_OR_FAIL(cu, mmx_mesh_copy(cu, m, MMX_SPACE_DEVICE, &dm));
    mmx_adjacency *adj = NULL;
    MMX_OK_OR_FAIL(host, mmx_adjacency_compute(host, m, &adj));
    const mmx_index ne = adj->nedges;
    mmx_index *seeds = malloc((size_t)ne * sizeof *seeds);
    float *prio = malloc((size_t)ne * sizeof *prio), *place = malloc(3 * (size_t)ne * sizeof *place);
    mmx_cavity_seed *a = malloc((size_t)ne * sizeof *a), *b = malloc((size_t)ne * sizeof *b);
    cr_assert(seeds && prio && place && a && b);
    uint32_t rng = 5;
    for (mmx_index i = 0; i < ne; i++) {
        seeds[i] = (mmx_index)(tu_rng(&rng) % (uint32_t)ne); /* with copies */
        prio[i] = (float)(tu_rng(&rng) % 50);                /* with ties */
        const mmx_index u = adj->ev[2 * seeds[i]], v = adj->ev[2 * seeds[i] + 1];
        for (int k = 0; k < 3; k++) place[3 * i + k] = 0.3f * m->pos[3 * u + k] + 0.7f * m->pos[3 * v + k];
    }
    void *ds = NULL, *dp = NULL, *dl = NULL, *dsd = NULL;
    MMX_OK_OR_FAIL(cu, mmx_mem_alloc(cu, MMX_SPACE_DEVICE, (size_t)ne * sizeof *seeds, &ds));
    MMX_OK_OR_FAIL(cu, mmx_mem_alloc(cu, MMX_SPACE_DEVICE, (size_t)ne * sizeof *prio, &dp));
    MMX_OK_OR_FAIL(cu, mmx_mem_alloc(cu, MMX_SPACE_DEVICE, 3 * (size_t)ne * sizeof *place, &dl));
    MMX_OK_OR_FAIL(cu, mmx_mem_alloc(cu, MMX_SPACE_DEVICE, (size_t)ne * sizeof *a, &dsd));
    MMX_OK_OR_FAIL(cu, mmx_mem_copy(cu, ds, MMX_SPACE_DEVICE, seeds, MMX_SPACE_HOST, (size_t)ne * sizeof *seeds));
    MMX_OK_OR_FAIL(cu, mmx_mem_copy(cu, dp, MMX_SPACE_DEVICE, prio, MMX_SPACE_HOST, (size_t)ne * sizeof *prio));
    MMX_OK_OR_FAIL(cu, mmx_mem_copy(cu, dl, MMX_SPACE_DEVICE, place, MMX_SPACE_HOST, 3 * (size_t)ne * sizeof *place));
    for (int kind = 0; kind < 3; kind++) {
        mmx_mesh *x = NULL, *y = NULL, *back = NULL;
        mmx_cavity_counts cx, cy;
        MMX_OK_OR_FAIL(host, mmx_cavity_round_ranked(host, m, (mmx_cavity_kind)kind, seeds, prio,
                                                     place, ne, 1, &x, &cx, a));
        MMX_OK_OR_FAIL(cu, mmx_cavity_round_ranked(cu, dm, (mmx_cavity_kind)kind, ds, dp, dl, ne,
                                                   1, &y, &cy, dsd));
        MMX_OK_OR_FAIL(cu, mmx_mem_copy(cu, b, MMX_SPACE_HOST, dsd, MMX_SPACE_DEVICE, (size_t)ne * sizeof *b));
        cr_assert_eq(memcmp(&cx, &cy, sizeof cx), 0, "kind %d counts", kind);
        for (mmx_index i = 0; i < ne; i++) {
            cr_assert_eq(a[i].outcome, b[i].outcome, "kind %d seed %d", kind, (int)i);
            cr_assert_eq(a[i].priority, b[i].priority, "kind %d seed %d", kind, (int)i);
            cr_assert_eq(a[i].vertex, b[i].vertex, "kind %d seed %d", kind, (int)i);
        }
        MMX_OK_OR_FAIL(cu, mmx_mesh_copy(cu, y, MMX_SPACE_HOST, &back));
        same_bytes(host, x, back, "ranked round host = CUDA");
        mmx_mesh_free(back);
        mmx_mesh_free(x);
        mmx_mesh_free(y);
    }
    mmx_mem_free(cu, MMX_SPACE_DEVICE, ds);
    mmx_mem_free(cu, MMX_SPACE_DEVICE, dp);
    mmx_mem_free(cu, MMX_SPACE_DEVICE, dl);
    mmx_mem_free(cu, MMX_SPACE_DEVICE, dsd);
    free(seeds);
    free(prio);
    free(place);
    free(a);
    free(b);
    mmx_adjacency_free(adj);
    mmx_mesh_free(dm);
    mmx_mesh_free(m);
    mmx_ctx_free(host);
    mmx_ctx_free(cu);
}
