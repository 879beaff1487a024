/* Sliding feature vertices in mmx_remesh (opts.slide_features; src/dynamic/slide_step.h) and
 * the remeshing collapse's exact link condition: on a folded grid (a sharp crease across a
 * jittered grid, its boundary a square) and an open tube (two circular boundaries), every
 * feature vertex of the result lies on the input's feature lines, the corners stay exactly,
 * the validator passes after every round (opts.validate), the smallest angles at the features
 * (5th percentile) are better than with fixed features, and the CUDA backend gives the host's
 * bytes; a vertex of valence 3 collapses. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#include "dynamic/slide.h" /* the labelled query over feature segments */

#define PI 3.14159265358979323846

static float jitter(uint32_t *seed)
{
    return 0.6f * ((float)(tu_rng(seed) % 1000) / 1000.0f - 0.5f);
}

/* An (n x n)-cell grid of [0, n]^2, folded along x = n / 2 (z = 3 (x - n/2) beyond it: a
 * crease of 71.6 degrees). Every vertex is jittered by up to 0.3 of a cell along what it
 * lies on: inner vertices in x and y, the crease's and the sides' along their lines; the
 * four corners and the crease's two ends stay. corner[6]: those six vertices. */
static mmx_mesh *folded_grid(mmx_ctx *ctx, int n, uint32_t seed, mmx_index corner[6])
{
    const int c = n / 2;
    const mmx_index nv = (n + 1) * (n + 1), nf = 2 * n * n;
    float *pos = malloc(3 * (size_t)nv * sizeof *pos);
    mmx_index *verts = malloc(3 * (size_t)nf * sizeof *verts), *v = verts;
    cr_assert(pos && verts);
    for (int j = 0; j <= n; j++)
        for (int i = 0; i <= n; i++) {
            float *p = pos + 3 * (size_t)(j * (n + 1) + i);
            const int side_x = i == 0 || i == n, side_y = j == 0 || j == n;
            const int move_x = !side_x && i != c, move_y = !side_y;
            p[0] = (float)i + (move_x ? jitter(&seed) : 0);
            p[1] = (float)j + (move_y ? jitter(&seed) : 0);
            p[2] = p[0] > (float)c ? 3.0f * (p[0] - (float)c) : 0;
        }
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            const mmx_index a = j * (n + 1) + i, b = a + 1, d = a + n + 1, e = d + 1;
            if ((i + j) % 2) v[0] = a, v[1] = b, v[2] = e, v[3] = a, v[4] = e, v[5] = d;
            else v[0] = a, v[1] = b, v[2] = d, v[3] = b, v[4] = e, v[5] = d;
            v += 6;
        }
    const mmx_index k[6] = {0, n, n * (n + 1), nv - 1, c, n * (n + 1) + c};
    memcpy(corner, k, sizeof k);
    mmx_mesh *m = tu_triangles(ctx, nv, nf, verts, pos);
    free(pos);
    free(verts);
    return m;
}

/* An open tube of radius 1: rings of m vertices at heights 0, 1, .., k - 1 (angles jittered
 * by up to 0.3 of a step, so the boundary circles' vertices are unevenly spaced), quads cut
 * into two triangles, normals outwards. The circles turn by 360 / m degrees a vertex. */
static mmx_mesh *tube(mmx_ctx *ctx, int m, int k, uint32_t seed)
{
    const mmx_index nv = m * k, nf = 2 * m * (k - 1);
    float *pos = malloc(3 * (size_t)nv * sizeof *pos);
    mmx_index *verts = malloc(3 * (size_t)nf * sizeof *verts), *v = verts;
    cr_assert(pos && verts);
    for (int j = 0; j < k; j++)
        for (int i = 0; i < m; i++) {
            const double t = 2 * PI * (i + jitter(&seed)) / m;
            float *p = pos + 3 * (size_t)(j * m + i);
            p[0] = (float)cos(t), p[1] = (float)sin(t), p[2] = (float)j;
        }
    for (int j = 0; j + 1 < k; j++)
        for (int i = 0; i < m; i++) {
            const mmx_index a = j * m + i, b = j * m + (i + 1) % m, d = a + m, e = b + m;
            v[0] = a, v[1] = b, v[2] = e, v[3] = a, v[4] = e, v[5] = d;
            v += 6;
        }
    mmx_mesh *r = tu_triangles(ctx, nv, nf, verts, pos);
    free(pos);
    free(verts);
    return r;
}

typedef struct edge {
    mmx_index a, b, f; /* a < b; f: a face of it */
} edge;

static int edge_cmp(const void *x, const void *y)
{
    const edge *p = x, *q = y;
    if (p->a != q->a) return p->a < q->a ? -1 : 1;
    if (p->b != q->b) return p->b < q->b ? -1 : 1;
    return (p->f > q->f) - (p->f < q->f);
}

static void normal(const mmx_mesh *m, mmx_index f, double n[3])
{
    const mmx_index *v = m->M->rowidx + 3 * (size_t)f;
    double P[3][3];
    for (int j = 0; j < 3; j++)
        for (int k = 0; k < 3; k++) P[j][k] = m->pos[3 * (size_t)v[j] + k];
    const double u[3] = {P[1][0] - P[0][0], P[1][1] - P[0][1], P[1][2] - P[0][2]};
    const double w[3] = {P[2][0] - P[0][0], P[2][1] - P[0][1], P[2][2] - P[0][2]};
    n[0] = u[1] * w[2] - u[2] * w[1], n[1] = u[2] * w[0] - u[0] * w[2], n[2] = u[0] * w[1] - u[1] * w[0];
    const double l = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    for (int k = 0; k < 3; k++) n[k] /= l;
}

/* The feature edges of a reduced triangle mesh (mmx_remesh's rule: the boundary, and interior
 * edges whose faces' normals differ by more than 60 degrees) as pairs into *out (malloc'd);
 * returns their number. */
static mmx_index features(const mmx_mesh *m, mmx_index **out)
{
    const mmx_index nf = mmx_mesh_nfaces(m);
    edge *e = malloc(3 * (size_t)nf * sizeof *e);
    mmx_index *fe = malloc(6 * (size_t)nf * sizeof *fe), n = 0;
    cr_assert(e && fe);
    for (mmx_index f = 0; f < nf; f++)
        for (int k = 0; k < 3; k++) {
            const mmx_index a = m->M->rowidx[3 * f + k], b = m->M->rowidx[3 * f + (k + 1) % 3];
            e[3 * f + k] = (edge){a < b ? a : b, a < b ? b : a, f};
        }
    qsort(e, 3 * (size_t)nf, sizeof *e, edge_cmp);
    for (mmx_index i = 0; i < 3 * nf;) {
        mmx_index j = i + 1;
        while (j < 3 * nf && e[j].a == e[i].a && e[j].b == e[i].b) j++;
        int feat = j - i == 1;
        if (j - i == 2) {
            double n0[3], n1[3];
            normal(m, e[i].f, n0);
            normal(m, e[i + 1].f, n1);
            feat = n0[0] * n1[0] + n0[1] * n1[1] + n0[2] * n1[2] < cos(60 * PI / 180);
        }
        if (feat) fe[2 * n] = e[i].a, fe[2 * n + 1] = e[i].b, n++;
        i = j;
    }
    free(e);
    *out = fe;
    return n;
}

/* The distance from p to the segments seg[0..n) (pairs of vertices of pos). */
static double to_segments(const double p[3], const float *pos, const mmx_index *seg, mmx_index n)
{
    double best = INFINITY;
    for (mmx_index i = 0; i < n; i++) {
        const float *A = pos + 3 * (size_t)seg[2 * i], *B = pos + 3 * (size_t)seg[2 * i + 1];
        double d[3], ap[3], dd = 0, t = 0, e2 = 0;
        for (int k = 0; k < 3; k++) {
            d[k] = (double)B[k] - A[k], ap[k] = p[k] - A[k];
            dd += d[k] * d[k], t += d[k] * ap[k];
        }
        t = dd > 0 ? fmin(1, fmax(0, t / dd)) : 0;
        for (int k = 0; k < 3; k++) e2 += (ap[k] - t * d[k]) * (ap[k] - t * d[k]);
        best = fmin(best, sqrt(e2));
    }
    return best;
}

static double diagonal(const mmx_mesh *m)
{
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY}, d = 0;
    for (mmx_index v = 0; v < mmx_mesh_nverts(m); v++)
        for (int k = 0; k < 3; k++) lo[k] = fmin(lo[k], m->pos[3 * v + k]), hi[k] = fmax(hi[k], m->pos[3 * v + k]);
    for (int k = 0; k < 3; k++) d += (hi[k] - lo[k]) * (hi[k] - lo[k]);
    return sqrt(d);
}

/* Face f's smallest angle in degrees. */
static double smallest_angle(const mmx_mesh *m, mmx_index f)
{
    const mmx_index *v = m->M->rowidx + 3 * (size_t)f;
    double best = 180;
    for (int j = 0; j < 3; j++) {
        const float *P = m->pos + 3 * (size_t)v[j], *Q = m->pos + 3 * (size_t)v[(j + 1) % 3],
                    *R = m->pos + 3 * (size_t)v[(j + 2) % 3];
        double a[3], b[3], ab = 0, aa = 0, bb = 0;
        for (int k = 0; k < 3; k++) a[k] = (double)Q[k] - P[k], b[k] = (double)R[k] - P[k];
        for (int k = 0; k < 3; k++) ab += a[k] * b[k], aa += a[k] * a[k], bb += b[k] * b[k];
        best = fmin(best, acos(fmax(-1, fmin(1, ab / sqrt(aa * bb)))) * 180 / PI);
    }
    return best;
}

static int dbl_cmp(const void *x, const void *y)
{
    const double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* The smallest angle and its 5th percentile over the faces with a vertex on a feature edge
 * of m. */
static void feature_angles(const mmx_mesh *m, double *min, double *p5)
{
    mmx_index *fe = NULL;
    const mmx_index nfe = features(m, &fe), nv = mmx_mesh_nverts(m), nf = mmx_mesh_nfaces(m);
    unsigned char *on = calloc((size_t)nv, 1);
    double *a = malloc((size_t)nf * sizeof *a);
    cr_assert(on && a);
    for (mmx_index i = 0; i < 2 * nfe; i++) on[fe[i]] = 1;
    mmx_index n = 0;
    for (mmx_index f = 0; f < nf; f++) {
        const mmx_index *v = m->M->rowidx + 3 * f;
        if (on[v[0]] || on[v[1]] || on[v[2]]) a[n++] = smallest_angle(m, f);
    }
    cr_assert(n > 0);
    qsort(a, (size_t)n, sizeof *a, dbl_cmp);
    *min = a[0];
    *p5 = a[n / 20];
    free(on);
    free(a);
    free(fe);
}

/* Remeshes `in` with and without sliding (the validator after every round) and checks the
 * sliding result: every end of a feature edge within 1e-6 of the diagonal of the input's
 * feature edges, the ncorner corners at their positions bit for bit, and the smallest angles
 * of the faces at the features better than with fixed features: their 5th percentile (the
 * very smallest is logged, not asserted: on the folded grid it is a face of a square's corner
 * fan, whose vertices no rule of sliding moves, and it changes either way with the mesh
 * around it). */
static void check_sliding(const mmx_mesh *in, double L, const mmx_index *corner, int ncorner,
                          const char *what)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_remesh_options o = mmx_remesh_defaults();
    cr_assert_eq(o.slide_features, 1, "sliding is the default");
    o.target_length = L;
    o.validate = 1;
    mmx_mesh *slid = NULL, *fixed = NULL;
    mmx_remesh_report rs, rf;
    MMX_OK_OR_FAIL(ctx, mmx_remesh(ctx, in, &o, &slid, &rs));
    o.slide_features = 0;
    MMX_OK_OR_FAIL(ctx, mmx_remesh(ctx, in, &o, &fixed, &rf));
    cr_assert(rs.feature_edges > 0 && rs.feature_edges == rf.feature_edges, "%s", what);
    mmx_index *seg = NULL, *fe = NULL;
    const mmx_index nseg = features(in, &seg), nfe = features(slid, &fe);
    cr_assert(nseg == rs.feature_edges && nfe > 0, "%s: %d feature edges, the report says %d",
              what, (int)nseg, (int)rs.feature_edges);
    const double tol = 1e-6 * diagonal(in);
    for (mmx_index i = 0; i < 2 * nfe; i++) {
        const float *p = slid->pos + 3 * (size_t)fe[i];
        const double P[3] = {p[0], p[1], p[2]};
        const double d = to_segments(P, in->pos, seg, nseg);
        cr_assert(d <= tol, "%s: feature vertex %d is %g off the input's feature lines", what,
                  (int)fe[i], d);
    }
    for (int c = 0; c < ncorner; c++) {
        const float *p = in->pos + 3 * (size_t)corner[c];
        int found = 0;
        for (mmx_index v = 0; v < mmx_mesh_nverts(slid) && !found; v++)
            found = memcmp(slid->pos + 3 * (size_t)v, p, 3 * sizeof *p) == 0;
        cr_assert(found, "%s: corner %d (vertex %d) moved", what, c, (int)corner[c]);
    }
    /* Some feature vertex moved: the result differs from the fixed one. */
    int moved = mmx_mesh_nverts(slid) != mmx_mesh_nverts(fixed);
    if (!moved) moved = memcmp(slid->pos, fixed->pos, 3 * (size_t)mmx_mesh_nverts(slid) * sizeof(float)) != 0;
    cr_assert(moved, "%s: sliding changed nothing", what);
    double smin, sp5, fmin_, fp5;
    feature_angles(slid, &smin, &sp5);
    feature_angles(fixed, &fmin_, &fp5);
    cr_log_info("%s: at the features, smallest angle %.2f (fixed %.2f), 5th percentile %.2f "
                "(fixed %.2f)", what, smin, fmin_, sp5, fp5);
    cr_assert(sp5 > fp5, "%s: sliding gives smallest angles %.2f / %.2f at the features, fixed "
              "%.2f / %.2f", what, smin, sp5, fmin_, fp5);
    free(seg);
    free(fe);
    mmx_mesh_free(slid);
    mmx_mesh_free(fixed);
    mmx_ctx_free(ctx);
}

Test(slide, folded_grid_features_stay_on_their_lines)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_index corner[6];
    mmx_mesh *g = folded_grid(ctx, 12, 5, corner);
    check_sliding(g, 1.0, corner, 6, "folded grid, L 1");
    check_sliding(g, 1.6, corner, 6, "folded grid, L 1.6");
    mmx_mesh_free(g);
    mmx_ctx_free(ctx);
}

Test(slide, tube_boundaries_stay_on_their_circles)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *t = tube(ctx, 24, 6, 11);
    check_sliding(t, 0.3, NULL, 0, "tube, L 0.3");
    mmx_mesh_free(t);
    mmx_ctx_free(ctx);
}

/* Corners stay however coarse the result: the square's corners (its boundary turns by 90
 * degrees there, over the 30-degree bound) and the crease's ends (three feature edges). */
Test(slide, sharp_turns_are_corners)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_index corner[6];
    mmx_mesh *g = folded_grid(ctx, 8, 3, corner);
    mmx_remesh_options o = mmx_remesh_defaults();
    o.target_length = 2.5; /* coarser: the lines' vertices collapse and slide the most */
    o.iterations = 4;
    o.validate = 1;
    mmx_mesh *out = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_remesh(ctx, g, &o, &out, NULL));
    for (int c = 0; c < 6; c++) {
        int found = 0;
        for (mmx_index v = 0; v < mmx_mesh_nverts(out) && !found; v++)
            found = memcmp(out->pos + 3 * (size_t)v, g->pos + 3 * (size_t)corner[c], 3 * sizeof(float)) == 0;
        cr_assert(found, "corner %d moved", c);
    }
    mmx_mesh_free(out);
    mmx_mesh_free(g);
    mmx_ctx_free(ctx);
}

/* A flat patch of equilateral triangles (side 1) with one face split at its centroid: with
 * L = 1 the only short edges are the new vertex's (1/sqrt 3 < 4/5), and it has valence 3,
 * its neighbours joined by edges. The exact link condition lets it go; the template's
 * stricter rule (no edge between the third vertices) kept it. */
Test(slide, a_vertex_of_valence_3_collapses)
{
    mmx_ctx *ctx = tu_host_ctx();
    const int n = 8;
    const mmx_index grid_v = (n + 1) * (n + 1), nv = grid_v + 1, nf = 2 * n * n + 2;
    float *pos = malloc(3 * (size_t)nv * sizeof *pos);
    mmx_index *verts = malloc(3 * (size_t)nf * sizeof *verts), *v = verts;
    cr_assert(pos && verts);
    for (int j = 0; j <= n; j++)
        for (int i = 0; i <= n; i++) {
            float *p = pos + 3 * (size_t)(j * (n + 1) + i);
            p[0] = (float)(i + 0.5 * j), p[1] = (float)(j * sqrt(3) / 2), p[2] = 0;
        }
    mmx_index split = -1;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            const mmx_index a = j * (n + 1) + i, b = a + 1, d = a + n + 1, e = d + 1;
            v[0] = a, v[1] = b, v[2] = d, v[3] = b, v[4] = e, v[5] = d;
            if (i == n / 2 && j == n / 2) split = (mmx_index)(v - verts) / 3;
            v += 6;
        }
    /* Face `split` (a, b, d) becomes (a, b, g), (b, d, g), (d, a, g). */
    mmx_index *f = verts + 3 * (size_t)split;
    const mmx_index a = f[0], b = f[1], d = f[2], g = grid_v;
    for (int k = 0; k < 3; k++)
        pos[3 * (size_t)g + k] = (pos[3 * (size_t)a + k] + pos[3 * (size_t)b + k] + pos[3 * (size_t)d + k]) / 3;
    f[2] = g;
    v[0] = b, v[1] = d, v[2] = g, v[3] = d, v[4] = a, v[5] = g;
    mmx_mesh *m = tu_triangles(ctx, nv, nf, verts, pos);
    free(pos);
    free(verts);
    mmx_remesh_options o = mmx_remesh_defaults();
    o.target_length = 1;
    o.iterations = 1;
    o.validate = 1;
    mmx_mesh *out = NULL;
    mmx_remesh_report rep;
    MMX_OK_OR_FAIL(ctx, mmx_remesh(ctx, m, &o, &out, &rep));
    cr_assert_eq(rep.per_iteration[0].splits, 0);
    cr_assert_eq(rep.per_iteration[0].collapses, 1, "%lld collapses",
                 (long long)rep.per_iteration[0].collapses);
    cr_assert_eq(mmx_mesh_nverts(out), grid_v);
    mmx_mesh_free(out);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* The CUDA backend gives the host's bytes with sliding features (the lines are made from the
 * host's code, the targets by slide_step.h on the device). */
static void host_equals_cuda(mmx_ctx *host, mmx_ctx *cu, const mmx_mesh *in, double L,
                             const char *what)
{
    mmx_remesh_options o = mmx_remesh_defaults();
    o.target_length = L;
    o.validate = 1;
    mmx_mesh *h = NULL, *din = NULL, *d = NULL, *back = NULL;
    mmx_remesh_report rh, rd;
    MMX_OK_OR_FAIL(host, mmx_remesh(host, in, &o, &h, &rh));
    MMX_OK_OR_FAIL(cu, mmx_mesh_copy(cu, in, MMX_SPACE_DEVICE, &din));
    MMX_OK_OR_FAIL(cu, mmx_remesh(cu, din, &o, &d, &rd));
    MMX_OK_OR_FAIL(cu, mmx_mesh_copy(cu, d, MMX_SPACE_HOST, &back));
    cr_assert(rh.feature_edges == rd.feature_edges && rh.feature_verts == rd.feature_verts, "%s", what);
    for (int i = 0; i < rh.iterations; i++)
        cr_assert(rh.per_iteration[i].moves == rd.per_iteration[i].moves &&
                  rh.per_iteration[i].collapses == rd.per_iteration[i].collapses &&
                  rh.per_iteration[i].move_seeds == rd.per_iteration[i].move_seeds,
                  "%s, iteration %d: other edits", what, i);
    const mmx_index nv = mmx_mesh_nverts(h), nf = mmx_mesh_nfaces(h);
    cr_assert(mmx_mesh_nverts(back) == nv && mmx_mesh_nfaces(back) == nf, "%s", what);
    cr_assert_eq(memcmp(back->M->rowidx, h->M->rowidx, 3 * (size_t)nf * sizeof(mmx_index)), 0,
                 "%s: CUDA gives other faces than the host", what);
    cr_assert_eq(memcmp(back->pos, h->pos, 3 * (size_t)nv * sizeof(float)), 0,
                 "%s: CUDA gives other positions than the host", what);
    mmx_mesh_free(back);
    mmx_mesh_free(d);
    mmx_mesh_free(din);
    mmx_mesh_free(h);
}

Test(slide, cuda_matches_host)
{
    mmx_ctx *cu = tu_cuda_ctx_or_skip(), *host = tu_host_ctx();
    mmx_index corner[6];
    mmx_mesh *g = folded_grid(host, 12, 5, corner), *t = tube(host, 24, 6, 11);
    host_equals_cuda(host, cu, g, 1.0, "folded grid, L 1");
    host_equals_cuda(host, cu, g, 1.6, "folded grid, L 1.6");
    host_equals_cuda(host, cu, t, 0.3, "tube, L 0.3");
    mmx_mesh *ico = tu_shape(host, "icosphere:3"); /* no features: nothing slides */
    host_equals_cuda(host, cu, ico, 0.1, "icosphere, L 0.1");
    mmx_mesh_free(ico);
    mmx_mesh_free(t);
    mmx_mesh_free(g);
    mmx_ctx_free(host);
    mmx_ctx_free(cu);
}

/* The labelled query over segments (slide.c's BVH of degenerate triangles (a, b, b)): for
 * random segments in 3 labels and random points, the closest point of each label is the
 * brute-force closest point on that label's segments (the distance equal within rounding),
 * and without labels the closest over all. */
Test(slide, labelled_segment_query_matches_brute_force)
{
    mmx_ctx *ctx = tu_host_ctx();
    uint32_t seed = 17;
    const mmx_index nseg = 300, nv = 2 * nseg;
    float *pos = malloc(3 * (size_t)nv * sizeof *pos);
    mmx_index *tri = malloc(3 * (size_t)nseg * sizeof *tri), *label = malloc((size_t)nseg * sizeof *label);
    cr_assert(pos && tri && label);
    for (mmx_index i = 0; i < 3 * nv; i++) pos[i] = (float)(tu_rng(&seed) % 10000) / 1000.0f;
    for (mmx_index i = 0; i < nseg; i++) {
        tri[3 * i] = 2 * i, tri[3 * i + 1] = tri[3 * i + 2] = 2 * i + 1;
        label[i] = (mmx_index)(tu_rng(&seed) % 3);
    }
    mmx__bvh *b = NULL;
    MMX_OK_OR_FAIL(ctx, mmx__bvh_build(ctx, pos, nv, tri, nseg, &b));
    const mmx__bvh_view v = mmx__bvh_host_view(b);
    mmx_index *pairs = malloc(2 * (size_t)nseg * sizeof *pairs);
    cr_assert(pairs);
    for (int q = 0; q < 200; q++) {
        double p[3], X[3], d2 = 0;
        for (int k = 0; k < 3; k++) p[k] = (double)(tu_rng(&seed) % 12000) / 1000.0 - 1.0;
        for (mmx_index want = -1; want < 3; want++) {
            mmx_index n = 0;
            for (mmx_index i = 0; i < nseg; i++)
                if (want < 0 || label[i] == want) pairs[2 * n] = 2 * i, pairs[2 * n + 1] = 2 * i + 1, n++;
            const double brute = to_segments(p, pos, pairs, n);
            const mmx_index t = mmx__bvh_closest_in(&v, p, X, &d2, 0, want < 0 ? NULL : label, want);
            cr_assert(t >= 0 && (want < 0 || label[t] == want), "query %d, label %d", q, (int)want);
            cr_assert(fabs(sqrt(d2) - brute) <= 1e-9 * (1 + brute), "query %d, label %d: %.17g "
                      "against %.17g", q, (int)want, sqrt(d2), brute);
        }
    }
    free(pairs);
    free(pos);
    free(tri);
    free(label);
    mmx__bvh_free(b);
    mmx_ctx_free(ctx);
}
