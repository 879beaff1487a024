/* Limit evaluation at parametric points (mmx_limit_table_*): the analytic bicubic B-spline on a
 * regular grid, the vertex limits of mmx_subdiv_limit at face corners, the limit of the
 * library's own subdivision at face centres and edge midpoints, derivatives against finite
 * differences, refusals, and CUDA against the host. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "subdiv_meshes.h"
#include "testutil.h"

/* Evaluates n points on the host table t; any output may be NULL. */
static void eval(mmx_ctx *ctx, const mmx_limit_table *t, int n, const mmx_index *f,
                 const float *u, const float *v, float *P, float *du, float *dv, float *duu,
                 float *duv, float *dvv)
{
    MMX_OK_OR_FAIL(ctx, mmx_limit_table_eval(ctx, t, n, f, u, v, P, du, dv, duu, duv, dvv));
}

static mmx_limit_table *table(mmx_ctx *ctx, mmx_scheme scheme, const mmx_mesh *m, int iso)
{
    mmx_limit_options o;
    memset(&o, 0, sizeof o);
    o.isolation = iso;
    mmx_limit_table *t = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_limit_table_create(ctx, scheme, m, &o, &t));
    return t;
}

static double dist3(const float *a, const float *b)
{
    const double x = a[0] - b[0], y = a[1] - b[1], z = a[2] - b[2];
    return sqrt(x * x + y * y + z * z);
}

/* A 7 x 7 grid of vertices (6 x 6 quads) in the plane, heights from a seed: vertex (i, j) is
 * 7 j + i, face (i, j) is 6 j + i with corner 0 at vertex (i, j), u along i, v along j. */
static mmx_mesh *grid(mmx_ctx *ctx, float *pos)
{
    mmx_index start[37], verts[144];
    uint32_t seed = 7;
    for (int j = 0; j < 7; j++)
        for (int i = 0; i < 7; i++) {
            float *p = pos + 3 * (7 * j + i);
            p[0] = (float)i + 0.1f * (float)(tu_rng(&seed) % 100) / 100.0f;
            p[1] = (float)j;
            p[2] = (float)(tu_rng(&seed) % 1000) / 500.0f;
        }
    for (int f = 0; f < 36; f++) {
        const int i = f % 6, j = f / 6, a = 7 * j + i;
        start[f] = 4 * f;
        verts[4 * f] = a, verts[4 * f + 1] = a + 1, verts[4 * f + 2] = a + 8, verts[4 * f + 3] = a + 7;
    }
    start[36] = 144;
    mmx_mesh *m = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_from_faces(ctx, 49, 36, start, verts, pos, &m));
    return m;
}

static void bspline(double t, double *b, double *d, double *dd)
{
    const double s = 1.0 - t;
    b[0] = s * s * s / 6, b[1] = (3 * t * t * t - 6 * t * t + 4) / 6;
    b[2] = (-3 * t * t * t + 3 * t * t + 3 * t + 1) / 6, b[3] = t * t * t / 6;
    d[0] = -s * s / 2, d[1] = (3 * t * t - 4 * t) / 2, d[2] = (-3 * t * t + 2 * t + 1) / 2;
    d[3] = t * t / 2;
    dd[0] = s, dd[1] = 3 * t - 2, dd[2] = 1 - 3 * t, dd[3] = t;
}

Test(limit_eval, regular_grid_is_the_bicubic_bspline)
{
    mmx_ctx *ctx = tu_host_ctx();
    float pos[147];
    mmx_mesh *m = grid(ctx, pos);
    const double diag = mesh_diagonal(m);
    for (int iso = 1; iso <= 3; iso++) {
        mmx_limit_table *t = table(ctx, MMX_SCHEME_CATMULL_CLARK, m, iso);
        cr_assert_eq(mmx_limit_table_nptex(t), 36);
        /* The faces whose 4 x 4 control points are all in the grid (i, j in 1..4). */
        enum { N = 16 * 9 };
        mmx_index f[N];
        float u[N], v[N], P[3 * N], D[6][3 * N];
        uint32_t seed = 11;
        for (int k = 0; k < N; k++) {
            const int i = 1 + k / 9 % 4, j = 1 + k % 4;
            f[k] = 6 * j + i;
            u[k] = k % 9 == 0 ? 0.0f : (float)(tu_rng(&seed) % 1001) / 1000.0f;
            v[k] = k % 9 == 1 ? 1.0f : (float)(tu_rng(&seed) % 1001) / 1000.0f;
        }
        eval(ctx, t, N, f, u, v, P, D[0], D[1], D[2], D[3], D[4]);
        for (int k = 0; k < N; k++) {
            const int i = f[k] % 6, j = f[k] / 6;
            double bu[3][4], bv[3][4], want[6][3] = {{0}};
            bspline(u[k], bu[0], bu[1], bu[2]);
            bspline(v[k], bv[0], bv[1], bv[2]);
            for (int b = 0; b < 4; b++)
                for (int a = 0; a < 4; a++) {
                    const float *x = pos + 3 * (7 * (j - 1 + b) + (i - 1 + a));
                    const double w[6] = {bu[0][a] * bv[0][b], bu[1][a] * bv[0][b],
                                         bu[0][a] * bv[1][b], bu[2][a] * bv[0][b],
                                         bu[1][a] * bv[1][b], bu[0][a] * bv[2][b]};
                    for (int q = 0; q < 6; q++)
                        for (int c = 0; c < 3; c++) want[q][c] += w[q] * x[c];
                }
            for (int c = 0; c < 3; c++) {
                cr_assert(fabs(P[3 * k + c] - want[0][c]) <= 1e-6 * diag,
                          "iso %d point %d (face %d, %g, %g) coord %d: %g, want %g", iso, k,
                          (int)f[k], (double)u[k], (double)v[k], c, (double)P[3 * k + c], want[0][c]);
                for (int q = 0; q < 5; q++)
                    cr_assert(fabs(D[q][3 * k + c] - want[q + 1][c]) <= 1e-4 * (1.0 + fabs(want[q + 1][c])),
                              "iso %d point %d derivative %d coord %d: %g, want %g", iso, k, q, c,
                              (double)D[q][3 * k + c], want[q + 1][c]);
            }
        }
        mmx_limit_table_free(t);
    }
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* A triangle lattice of 8 x 8 cells cut into two triangles each (every inner vertex of valence
 * 6; on the boundary 3 faces, at the corners 1 or 2), heights from a seed: Loop's regular
 * patches. split: the first triangle of cell (4, 4) cut into three at a new vertex (81) a little
 * above its centre, which has valence 3 and that triangle's corners valence 7. */
static mmx_mesh *lattice_of(mmx_ctx *ctx, int split)
{
    enum { N = 9 };
    float pos[3 * N * N + 3];
    mmx_index start[2 * (N - 1) * (N - 1) + 3], verts[6 * (N - 1) * (N - 1) + 6];
    uint32_t seed = 3;
    for (int j = 0; j < N; j++)
        for (int i = 0; i < N; i++) {
            float *p = pos + 3 * (N * j + i);
            p[0] = (float)i + 0.5f * (float)j, p[1] = 0.866f * (float)j;
            p[2] = (float)(tu_rng(&seed) % 1000) / 1000.0f;
        }
    int nf = 0;
    for (int j = 0; j + 1 < N; j++)
        for (int i = 0; i + 1 < N; i++) {
            const int a = N * j + i;
            const int t[6] = {a, a + 1, a + N, a + 1, a + N + 1, a + N};
            for (int q = 0; q < 2; q++) {
                if (split && i == 4 && j == 4 && q == 0) {
                    for (int c = 0; c < 3; c++) {
                        start[nf] = 3 * nf;
                        verts[3 * nf] = t[c], verts[3 * nf + 1] = t[(c + 1) % 3];
                        verts[3 * nf + 2] = N * N;
                        nf++;
                    }
                    for (int d = 0; d < 3; d++)
                        pos[3 * N * N + d] = (pos[3 * t[0] + d] + pos[3 * t[1] + d] + pos[3 * t[2] + d]) / 3.0f;
                    pos[3 * N * N + 2] += 0.4f;
                    continue;
                }
                start[nf] = 3 * nf;
                for (int c = 0; c < 3; c++) verts[3 * nf + c] = t[3 * q + c];
                nf++;
            }
        }
    start[nf] = 3 * nf;
    mmx_mesh *m = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_from_faces(ctx, N * N + (split ? 1 : 0), nf, start, verts, pos, &m));
    return m;
}

static mmx_mesh *lattice(mmx_ctx *ctx)
{
    return lattice_of(ctx, 0);
}

/* The meshes of the corner, centre and derivative checks: extraordinary vertices, n-gons,
 * boundaries, creases and corners. */
static mmx_mesh *case_mesh(mmx_ctx *ctx, int k, mmx_scheme *scheme)
{
    *scheme = MMX_SCHEME_CATMULL_CLARK;
    switch (k) {
    case 0: return shape(ctx, "cube");
    case 1: return shape(ctx, "mixed");                  /* n-gons, boundary */
    case 2: return pyramid(ctx, 5);                       /* a pentagon, valence 5 */
    case 3: return with_creases(shape(ctx, "torus:8"), 3, NULL);
    case 4: {
        float pos[147];
        mmx_mesh *m = grid(ctx, pos);
        m->tags = strdup("t interpolateboundary 1/0/0 1\n"); /* edge and corner */
        return m;
    }
    case 9: {
        float pos[147];
        return grid(ctx, pos); /* edge only */
    }
    case 10: {
        /* Two infinitely sharp loops around the tube (vertex (i, j) = 8 i + j), each crease
         * vertex on a straight crease: infinitely sharp patches beside them. */
        mmx_mesh *m = shape(ctx, "torus:12:8");
        char tags[512];
        int len = snprintf(tags, sizeof tags, "t crease 32/1/0");
        for (int q = 0; q < 2; q++)
            for (int j = 0; j < 8; j++)
                len += snprintf(tags + len, sizeof tags - (size_t)len, " %d %d", 8 * 3 * q + j,
                                8 * 3 * q + (j + 1) % 8);
        snprintf(tags + len, sizeof tags - (size_t)len, " 10\n");
        m->tags = strdup(tags);
        return m;
    }
    case 5: *scheme = MMX_SCHEME_LOOP; return shape(ctx, "icosphere:1");
    case 6: *scheme = MMX_SCHEME_LOOP; return fan(ctx, 7);
    case 7: *scheme = MMX_SCHEME_LOOP; return with_creases(bipyramid(ctx, 5), 2, NULL);
    case 11: {
        /* Edge-and-corner boundaries: the corners of one face sharp (box-spline corner
         * patches), those of two faces Gregory triangles with a sharp corner. */
        *scheme = MMX_SCHEME_LOOP;
        mmx_mesh *m = lattice(ctx);
        m->tags = strdup("t interpolateboundary 1/0/0 1\n");
        return m;
    }
    case 12: *scheme = MMX_SCHEME_LOOP; return lattice_of(ctx, 1); /* valences 3 and 7 */
    default: *scheme = MMX_SCHEME_LOOP; return lattice(ctx); /* case 8 */
    }
}
enum { NCASES = 13, REF_LEVELS = 4 }; /* REF_LEVELS: past with_creases' 3.7 */

/* Loop's regular patches (the quartic box spline) are the limit surface: inside a regular
 * lattice the patches of isolation 1 and of isolation 3 (each sub-triangle's own box spline)
 * give the same surface and derivatives, to float rounding; and so do the boundary and corner
 * patches (their control points beyond the boundary reflected) on the lattice's faces along
 * its boundary with edge-and-corner boundaries, all but those at the two corners of two faces
 * (vertices 8 and 72, irregular). */
Test(limit_eval, loop_regular_patches_are_refinement_invariant)
{
    mmx_ctx *ctx = tu_host_ctx();
    for (int boundary = 0; boundary < 2; boundary++) {
        mmx_mesh *m = lattice(ctx);
        if (boundary) m->tags = strdup("t interpolateboundary 1/0/0 1\n");
        const double diag = mesh_diagonal(m);
        mmx_limit_table *t1 = table(ctx, MMX_SCHEME_LOOP, m, 1), *t3 = table(ctx, MMX_SCHEME_LOOP, m, 3);
        enum { N = 400 };
        mmx_index f[N];
        float u[N], v[N], A[6][3 * N], B[6][3 * N];
        uint32_t seed = 21;
        for (int k = 0; k < N; k++) {
            int i, j, q;
            if (!boundary) {
                i = 2 + (int)(tu_rng(&seed) % 4), j = 2 + (int)(tu_rng(&seed) % 4);
                q = (int)(tu_rng(&seed) % 2);
            } else {
                /* A cell on the boundary (an edge of the lattice, its corner cells included),
                 * away from cells (7, 0) and (0, 7) that hold vertices 8 and 72. */
                do {
                    const int side = (int)(tu_rng(&seed) % 4), r = (int)(tu_rng(&seed) % 8);
                    i = side == 0 ? r : side == 1 ? 7 : side == 2 ? r : 0;
                    j = side == 0 ? 0 : side == 1 ? r : side == 2 ? 7 : r;
                } while ((i == 7 && j == 0) || (i == 0 && j == 7));
                q = (int)(tu_rng(&seed) % 2);
            }
            f[k] = 2 * (8 * j + i) + q;
            u[k] = (float)(tu_rng(&seed) % 1001) / 1000.0f;
            v[k] = (float)(tu_rng(&seed) % 1001) / 1000.0f;
            if (u[k] + v[k] > 1.0f) u[k] = 1.0f - u[k], v[k] = 1.0f - v[k];
        }
        eval(ctx, t1, N, f, u, v, A[0], A[1], A[2], A[3], A[4], A[5]);
        eval(ctx, t3, N, f, u, v, B[0], B[1], B[2], B[3], B[4], B[5]);
        for (int q = 0; q < 6; q++)
            for (int i = 0; i < 3 * N; i++)
                cr_assert(fabs(A[q][i] - B[q][i]) <= (q ? 1e-4 : 1e-6) * diag * (q > 2 ? 10.0 : 1.0),
                          "%s: output %d value %d (ptex %d): isolation 1 %g, isolation 3 %g",
                          boundary ? "boundary" : "inside", q, i, (int)f[i / 3], (double)A[q][i],
                          (double)B[q][i]);
        mmx_limit_table_free(t1), mmx_limit_table_free(t3);
        mmx_mesh_free(m);
    }
    mmx_ctx_free(ctx);
}

/* The cage's face corners, in the ptex faces' (u, v): for each face, its ptex faces' corner
 * (0, 0) is the face's corner s (a quad's corners at (0,0), (1,0), (1,1), (0,1); a triangle's
 * at (0,0), (1,0), (0,1)) and equals mmx_subdiv_limit's limit of that vertex. */
Test(limit_eval, corners_are_the_vertex_limits)
{
    mmx_ctx *ctx = tu_host_ctx();
    for (int k = 0; k < NCASES; k++) {
        mmx_scheme scheme;
        mmx_mesh *m = case_mesh(ctx, k, &scheme);
        const double diag = mesh_diagonal(m);
        /* The limit of the cage's vertices is that of the same vertices (they keep their
         * numbers) REF_LEVELS down, where Catmull-Clark's faces are quads (its masks need
         * them) and every semi-sharp crease has decayed (the masks take a vertex's kind at
         * the level they are applied to). */
        mmx_mesh *r = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_subdivide(ctx, scheme, m, REF_LEVELS, NULL, &r));
        float *lim = malloc(3 * sizeof(float) * (size_t)r->M->nrows);
        MMX_OK_OR_FAIL(ctx, mmx_subdiv_limit(ctx, scheme, r, NULL, lim, NULL));
        mmx_index *start = NULL, *verts = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_mesh_faces(ctx, m, &start, &verts));
        const int nf = m->M->ncols;
        for (int iso = 1; iso <= 2; iso++) {
            mmx_limit_table *t = table(ctx, scheme, m, iso);
            for (int f = 0; f < nf; f++) {
                const int n = start[f + 1] - start[f];
                mmx_index first, count;
                MMX_OK_OR_FAIL(ctx, mmx_limit_table_ptex(t, f, &first, &count));
                const int quad = scheme == MMX_SCHEME_CATMULL_CLARK && n == 4;
                cr_assert_eq(count, scheme == MMX_SCHEME_LOOP || quad ? 1 : n);
                static const float qu[4] = {0, 1, 1, 0}, qv[4] = {0, 0, 1, 1};
                for (int s = 0; s < n; s++) {
                    /* A quad's corner s, a triangle's, or an n-gon's sub-face s at (0, 0). */
                    const int one = quad || scheme == MMX_SCHEME_LOOP;
                    mmx_index p = one ? first : first + s;
                    float u = quad ? qu[s] : one ? (float)(s == 1) : 0.0f;
                    float v = quad ? qv[s] : one ? (float)(s == 2) : 0.0f;
                    float P[3];
                    eval(ctx, t, 1, &p, &u, &v, P, NULL, NULL, NULL, NULL, NULL);
                    const int x = verts[start[f] + s];
                    cr_assert(dist3(P, lim + 3 * x) <= 1e-5 * diag,
                              "case %d iso %d face %d corner %d (vertex %d): off by %g", k, iso,
                              f, s, x, dist3(P, lim + 3 * x) / diag);
                }
            }
            mmx_limit_table_free(t);
        }
        free(start), free(verts), free(lim);
        mmx_mesh_free(r), mmx_mesh_free(m);
    }
    mmx_ctx_free(ctx);
}

/* Catmull-Clark's face centres (1/2, 1/2 of a quad; (1, 1) of an n-gon's sub-faces) and edge
 * midpoints ((1/2, 0): the edge from corner 0) are vertices of level 1: their limit is that of
 * the library's subdivision pushed to the limit (opts.limit) REF_LEVELS down (where they keep
 * their numbers), at the face point nv + f and the edge point nv + nf + e. Loop's edge
 * midpoints likewise (nv + e). */
Test(limit_eval, centres_and_midpoints_are_the_subdivision_limit)
{
    mmx_ctx *ctx = tu_host_ctx();
    for (int k = 0; k < NCASES; k++) {
        mmx_scheme scheme;
        mmx_mesh *m = case_mesh(ctx, k, &scheme);
        const double diag = mesh_diagonal(m);
        mmx_subdiv_options so;
        memset(&so, 0, sizeof so);
        so.limit = 1, so.holes = MMX_HOLES_KEEP;
        mmx_mesh *r = NULL, *h = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_subdivide(ctx, scheme, m, REF_LEVELS, &so, &r));
        MMX_OK_OR_FAIL(ctx, mmx_mesh_copy(ctx, r, MMX_SPACE_HOST, &h));
        mmx_adjacency *adj = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_adjacency_compute(ctx, m, &adj));
        mmx_index *start = NULL, *verts = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_mesh_faces(ctx, m, &start, &verts));
        const int nf = m->M->ncols, nv = m->M->nrows;
        const int cc = scheme == MMX_SCHEME_CATMULL_CLARK;
        mmx_limit_table *t = table(ctx, scheme, m, 2);
        for (int f = 0; f < nf; f++) {
            const int n = start[f + 1] - start[f];
            mmx_index first;
            MMX_OK_OR_FAIL(ctx, mmx_limit_table_ptex(t, f, &first, NULL));
            /* The edge from corner 0 is corner 0's (the corners are in storage order). */
            const int e = adj->fe[start[f]] >> 1;
            mmx_index p[2] = {first, first};
            float u[2], v[2], P[6];
            int want[2];
            if (cc && n == 4) {
                u[0] = 0.5f, v[0] = 0.5f, u[1] = 0.5f, v[1] = 0.0f;
            } else if (cc) {
                u[0] = 1.0f, v[0] = 1.0f, u[1] = 1.0f, v[1] = 0.0f;
            } else {
                u[0] = 0.5f, v[0] = 0.0f, u[1] = 0.5f, v[1] = 0.0f;
            }
            want[0] = cc ? nv + f : nv + e;
            want[1] = cc ? nv + nf + e : nv + e;
            eval(ctx, t, 2, p, u, v, P, NULL, NULL, NULL, NULL, NULL);
            for (int q = 0; q < 2; q++)
                cr_assert(dist3(P + 3 * q, h->pos + 3 * want[q]) <= 1e-5 * diag,
                          "case %d face %d point %d: off by %g of the diagonal", k, f, q,
                          dist3(P + 3 * q, h->pos + 3 * want[q]) / diag);
        }
        mmx_limit_table_free(t);
        free(start), free(verts);
        mmx_adjacency_free(adj);
        mmx_mesh_free(h), mmx_mesh_free(r), mmx_mesh_free(m);
    }
    mmx_ctx_free(ctx);
}

/* Points sorted by x, for nearest(): the sweep from p's x outwards stops where the gap in x
 * alone exceeds the best distance. */
static const float *sort_base;
static int by_x(const void *a, const void *b)
{
    const float x = sort_base[3 * *(const int *)a], y = sort_base[3 * *(const int *)b];
    return (x > y) - (x < y);
}

/* The distance from point p to the nearest of the n points q (order: q's indices sorted by x),
 * over diag. */
static double nearest(const float *p, const float *q, const int *order, int n, double diag)
{
    int lo = 0, hi = n;
    while (lo < hi) {
        const int mid = (lo + hi) / 2;
        if (q[3 * order[mid]] < p[0]) lo = mid + 1;
        else hi = mid;
    }
    double best = INFINITY;
    for (int i = lo; i < n && q[3 * order[i]] - p[0] < best; i++)
        best = fmin(best, dist3(p, q + 3 * order[i]));
    for (int i = lo - 1; i >= 0 && p[0] - q[3 * order[i]] < best; i--)
        best = fmin(best, dist3(p, q + 3 * order[i]));
    return best / diag;
}

/* The end caps (Gregory patches at extraordinary vertices, n-gons' centres and boundary
 * vertices) against the limit surface: ptex points (i/32, j/32), i, j <= 8 (the caps at each
 * ptex face's corner 0 and their neighbours) are vertices of level 6, whose limit positions
 * (opts.limit) are the surface there; each must lie within 5e-3 of the diagonal of one of
 * them at isolations 2 and 4 (measured: cube 2.2e-3 and 3.7e-4, pyramid 3.2e-3 and 1.2e-3,
 * the planar n-gons with boundary 3.5e-3 and 3.3e-3, where only the parametrisation differs,
 * as OpenSubdiv's caps do; the limits at the caps' corners are exact; the interpolant the caps
 * replaced was 6.4e-3 off on the cube at isolation 2). */
Test(limit_eval, end_caps_approach_the_refined_limit)
{
    mmx_ctx *ctx = tu_host_ctx();
    static const int cases[] = {0, 1, 2};
    for (size_t q = 0; q < sizeof cases / sizeof cases[0]; q++) {
        mmx_scheme scheme;
        mmx_mesh *m = case_mesh(ctx, cases[q], &scheme);
        const double diag = mesh_diagonal(m);
        mmx_subdiv_options so;
        memset(&so, 0, sizeof so);
        so.limit = 1, so.holes = MMX_HOLES_KEEP;
        mmx_mesh *r = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_subdivide(ctx, scheme, m, 6, &so, &r));
        const int nr = (int)r->M->nrows;
        int *order = malloc((size_t)nr * sizeof *order);
        for (int i = 0; i < nr; i++) order[i] = i;
        sort_base = r->pos;
        qsort(order, (size_t)nr, sizeof *order, by_x);
        for (int iso = 2; iso <= 4; iso += 2) {
            mmx_limit_table *t = table(ctx, scheme, m, iso);
            const mmx_index np = mmx_limit_table_nptex(t);
            double worst = 0.0;
            for (mmx_index p = 0; p < np; p++)
                for (int j = 0; j <= 8; j++)
                    for (int i = 0; i <= 8; i++) {
                        float u = (float)i / 32.0f, v = (float)j / 32.0f, P[3];
                        eval(ctx, t, 1, &p, &u, &v, P, NULL, NULL, NULL, NULL, NULL);
                        worst = fmax(worst, nearest(P, r->pos, order, nr, diag));
                    }
            printf("limit_eval end caps: case %d isolation %d: %.3g of the diagonal from the "
                   "level-6 limit\n", cases[q], iso, worst);
            cr_assert(worst <= 5e-3, "case %d isolation %d: %g of the diagonal off", cases[q], iso,
                      worst);
            mmx_limit_table_free(t);
        }
        free(order);
        mmx_mesh_free(r), mmx_mesh_free(m);
    }
    mmx_ctx_free(ctx);
}

/* The unit normal du x dv at (p, u, v). */
static void unit_normal(mmx_ctx *ctx, const mmx_limit_table *t, mmx_index p, float u, float v,
                        double *nrm)
{
    float du[3], dv[3];
    eval(ctx, t, 1, &p, &u, &v, NULL, du, dv, NULL, NULL, NULL);
    nrm[0] = (double)du[1] * dv[2] - (double)du[2] * dv[1];
    nrm[1] = (double)du[2] * dv[0] - (double)du[0] * dv[2];
    nrm[2] = (double)du[0] * dv[1] - (double)du[1] * dv[0];
    const double l = sqrt(nrm[0] * nrm[0] + nrm[1] * nrm[1] + nrm[2] * nrm[2]);
    for (int c = 0; c < 3; c++) nrm[c] /= l;
}

/* Tangent planes are continuous across the edges between an end cap at an extraordinary
 * vertex and its B-spline neighbours (the Gregory patch takes their edge and face points
 * there): at isolation 2 the cap at corner 0 of each ptex face of the cube and the pyramid
 * ends at u = 1/4 and v = 1/4; the normals just inside and on the edge agree within 1e-3
 * (the interpolant they replaced turned them by 0.16 on the cube). */
Test(limit_eval, end_caps_meet_their_neighbours_smoothly)
{
    mmx_ctx *ctx = tu_host_ctx();
    static const int cases[] = {0, 2};
    for (size_t q = 0; q < sizeof cases / sizeof cases[0]; q++) {
        mmx_scheme scheme;
        mmx_mesh *m = case_mesh(ctx, cases[q], &scheme);
        mmx_limit_table *t = table(ctx, scheme, m, 2);
        const mmx_index np = mmx_limit_table_nptex(t);
        const float in = 0.25f - 1.0f / 65536.0f;
        for (mmx_index p = 0; p < np; p++)
            for (int k = 1; k < 4; k++) {
                const float s = (float)k / 16.0f;
                double a[3], b[3], c[3], d[3];
                unit_normal(ctx, t, p, in, s, a), unit_normal(ctx, t, p, 0.25f, s, b);
                unit_normal(ctx, t, p, s, in, c), unit_normal(ctx, t, p, s, 0.25f, d);
                const double e1 = sqrt(pow(a[0] - b[0], 2) + pow(a[1] - b[1], 2) + pow(a[2] - b[2], 2));
                const double e2 = sqrt(pow(c[0] - d[0], 2) + pow(c[1] - d[1], 2) + pow(c[2] - d[2], 2));
                cr_assert(e1 <= 1e-3 && e2 <= 1e-3, "case %d ptex %d at %g: normals differ by %g "
                          "across u = 1/4, %g across v = 1/4", cases[q], (int)p, (double)s, e1, e2);
            }
        mmx_limit_table_free(t);
        mmx_mesh_free(m);
    }
    mmx_ctx_free(ctx);
}

/* First derivatives against central differences of the positions, second ones against those
 * of the first, at points inside one patch of the isolation level (away from the lines where
 * the interpolated patches meet), on every case. */
Test(limit_eval, derivatives_match_finite_differences)
{
    mmx_ctx *ctx = tu_host_ctx();
    const float h = 1e-3f;
    static const float pts[4][2] = {{0.3f, 0.6f}, {0.1f, 0.2f}, {0.85f, 0.4f}, {0.6f, 0.1f}};
    for (int k = 0; k < NCASES; k++) {
        mmx_scheme scheme;
        mmx_mesh *m = case_mesh(ctx, k, &scheme);
        const double diag = mesh_diagonal(m);
        mmx_limit_table *t = table(ctx, scheme, m, 2);
        const mmx_index np = mmx_limit_table_nptex(t);
        for (mmx_index p = 0; p < np; p++)
            for (int q = 0; q < 4; q++) {
                float u0 = pts[q][0], v0 = pts[q][1];
                if (scheme == MMX_SCHEME_LOOP && u0 + v0 > 0.9f) u0 *= 0.5f, v0 *= 0.5f;
                mmx_index f[5] = {p, p, p, p, p};
                float u[5] = {u0, u0 + h, u0 - h, u0, u0}, v[5] = {v0, v0, v0, v0 + h, v0 - h};
                float P[15], du[15], dv[15], duu[15], duv[15], dvv[15];
                eval(ctx, t, 5, f, u, v, P, du, dv, duu, duv, dvv);
                for (int c = 0; c < 3; c++) {
                    const double fu = (P[3 + c] - P[6 + c]) / (2.0 * h);
                    const double fv = (P[9 + c] - P[12 + c]) / (2.0 * h);
                    const double fuu = (du[3 + c] - du[6 + c]) / (2.0 * h);
                    const double fuv = (du[9 + c] - du[12 + c]) / (2.0 * h);
                    const double fvv = (dv[9 + c] - dv[12 + c]) / (2.0 * h);
                    const double tol1 = 2e-3 * diag, tol2 = 2e-2 * diag;
                    cr_assert(fabs(du[c] - fu) <= tol1 && fabs(dv[c] - fv) <= tol1,
                              "case %d ptex %d (%g, %g): du %g vs %g, dv %g vs %g", k, (int)p,
                              (double)u0, (double)v0, (double)du[c], fu, (double)dv[c], fv);
                    cr_assert(fabs(duu[c] - fuu) <= tol2 && fabs(duv[c] - fuv) <= tol2 &&
                                  fabs(dvv[c] - fvv) <= tol2,
                              "case %d ptex %d (%g, %g): second derivatives %g %g %g vs %g %g %g",
                              k, (int)p, (double)u0, (double)v0, (double)duu[c], (double)duv[c],
                              (double)dvv[c], fuu, fuv, fvv);
                }
            }
        mmx_limit_table_free(t);
        mmx_mesh_free(m);
    }
    mmx_ctx_free(ctx);
}

/* Points outside the domain and bad arguments are refused, naming the point. */
Test(limit_eval, refusals)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = shape(ctx, "cube");
    mmx_limit_table *t = NULL;
    mmx_limit_options o;
    memset(&o, 0, sizeof o);
    o.isolation = 9;
    cr_assert_eq(mmx_limit_table_create(ctx, MMX_SCHEME_CATMULL_CLARK, m, &o, &t), MMX_ERR_ARG);
    cr_assert_null(t);
    o.isolation = 2, o.caps = (mmx_limit_caps)7;
    cr_assert_eq(mmx_limit_table_create(ctx, MMX_SCHEME_CATMULL_CLARK, m, &o, &t), MMX_ERR_ARG);
    cr_assert(strstr(mmx_ctx_error(ctx), "caps 7"), "%s", mmx_ctx_error(ctx));
    cr_assert_null(t);
    cr_assert_eq(mmx_limit_table_create(ctx, MMX_SCHEME_SQRT3, m, NULL, &t), MMX_ERR_UNSUPPORTED);
    cr_assert_eq(mmx_limit_table_create(ctx, MMX_SCHEME_LOOP, m, NULL, &t), MMX_ERR_MESH);
    t = table(ctx, MMX_SCHEME_CATMULL_CLARK, m, 0);
    float P[6];
    mmx_index f[2] = {0, 6};
    float u[2] = {0.5f, 0.5f}, v[2] = {0.5f, 0.5f};
    cr_assert_eq(mmx_limit_table_eval(ctx, t, 2, f, u, v, P, NULL, NULL, NULL, NULL, NULL), MMX_ERR_ARG);
    cr_assert(strstr(mmx_ctx_error(ctx), "point 1"), "%s", mmx_ctx_error(ctx));
    f[1] = 5, u[0] = 1.5f;
    cr_assert_eq(mmx_limit_table_eval(ctx, t, 2, f, u, v, P, NULL, NULL, NULL, NULL, NULL), MMX_ERR_ARG);
    cr_assert(strstr(mmx_ctx_error(ctx), "point 0"), "%s", mmx_ctx_error(ctx));
    u[0] = NAN;
    cr_assert_eq(mmx_limit_table_eval(ctx, t, 2, f, u, v, P, NULL, NULL, NULL, NULL, NULL), MMX_ERR_ARG);
    u[0] = 0.5f;
    cr_assert_eq(mmx_limit_table_eval(ctx, t, 2, f, u, v, NULL, NULL, NULL, NULL, NULL, NULL), MMX_ERR_ARG);
    cr_assert_eq(mmx_limit_table_eval(ctx, t, -1, f, u, v, P, NULL, NULL, NULL, NULL, NULL), MMX_ERR_ARG);
    cr_assert_eq(mmx_limit_table_ptex(t, 6, NULL, NULL), MMX_ERR_ARG);
    MMX_OK_OR_FAIL(ctx, mmx_limit_table_eval(ctx, t, 0, NULL, NULL, NULL, P, NULL, NULL, NULL, NULL, NULL));
    mmx_limit_table_free(t);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* CUDA against the host: the same points, every output, within float rounding, on every case
 * (Loop's box-spline boundary and corner patches and Gregory triangles among them). */
Test(limit_eval, gpu_matches_host)
{
    mmx_ctx *dev = tu_cuda_ctx_or_skip();
    mmx_ctx *ctx = tu_host_ctx();
    for (int k = 0; k < NCASES; k++) {
        mmx_scheme scheme;
        mmx_mesh *m = case_mesh(ctx, k, &scheme), *dm = NULL;
        const double diag = mesh_diagonal(m);
        MMX_OK_OR_FAIL(dev, mmx_mesh_copy(dev, m, MMX_SPACE_DEVICE, &dm));
        /* The creased torus and bipyramid with OpenSubdiv's caps too (Gregory patches, quads'
         * and triangles', at their creases). */
        mmx_limit_options o;
        memset(&o, 0, sizeof o);
        o.isolation = 2;
        o.caps = k == 3 || k == 7 ? MMX_LIMIT_CAPS_OPENSUBDIV : MMX_LIMIT_CAPS_EXACT;
        mmx_limit_table *t = NULL, *dt = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_limit_table_create(ctx, scheme, m, &o, &t));
        MMX_OK_OR_FAIL(dev, mmx_limit_table_create(dev, scheme, dm, &o, &dt));
        const mmx_index np = mmx_limit_table_nptex(t);
        const int n = 1000;
        mmx_index *f = malloc(n * sizeof *f);
        float *u = malloc(n * sizeof *u), *v = malloc(n * sizeof *v);
        float *out = malloc(2 * 18 * (size_t)n * sizeof *out);
        uint32_t seed = 5;
        for (int i = 0; i < n; i++) {
            f[i] = (mmx_index)(tu_rng(&seed) % (uint32_t)np);
            u[i] = (float)(tu_rng(&seed) % 1001) / 1000.0f;
            v[i] = (float)(tu_rng(&seed) % 1001) / 1000.0f;
            if (scheme == MMX_SCHEME_LOOP && u[i] + v[i] > 1.0f) u[i] = 1.0f - u[i], v[i] = 1.0f - v[i];
        }
        float *D[6];
        mmx_index *df = NULL;
        float *du_ = NULL, *dv_ = NULL;
        MMX_OK_OR_FAIL(dev, mmx_mem_alloc(dev, MMX_SPACE_DEVICE, n * sizeof *f, (void **)&df));
        MMX_OK_OR_FAIL(dev, mmx_mem_alloc(dev, MMX_SPACE_DEVICE, n * sizeof *u, (void **)&du_));
        MMX_OK_OR_FAIL(dev, mmx_mem_alloc(dev, MMX_SPACE_DEVICE, n * sizeof *v, (void **)&dv_));
        MMX_OK_OR_FAIL(dev, mmx_mem_copy(dev, df, MMX_SPACE_DEVICE, f, MMX_SPACE_HOST, n * sizeof *f));
        MMX_OK_OR_FAIL(dev, mmx_mem_copy(dev, du_, MMX_SPACE_DEVICE, u, MMX_SPACE_HOST, n * sizeof *u));
        MMX_OK_OR_FAIL(dev, mmx_mem_copy(dev, dv_, MMX_SPACE_DEVICE, v, MMX_SPACE_HOST, n * sizeof *v));
        for (int q = 0; q < 6; q++)
            MMX_OK_OR_FAIL(dev, mmx_mem_alloc(dev, MMX_SPACE_DEVICE, 3 * (size_t)n * sizeof(float), (void **)&D[q]));
        MMX_OK_OR_FAIL(dev, mmx_limit_table_eval(dev, dt, n, df, du_, dv_, D[0], D[1], D[2], D[3], D[4], D[5]));
        float *H = out, *G = out + 18 * (size_t)n;
        eval(ctx, t, n, f, u, v, H, H + 3 * n, H + 6 * n, H + 9 * n, H + 12 * n, H + 15 * n);
        for (int q = 0; q < 6; q++)
            MMX_OK_OR_FAIL(dev, mmx_mem_copy(dev, G + 3 * (size_t)n * q, MMX_SPACE_HOST, D[q], MMX_SPACE_DEVICE, 3 * (size_t)n * sizeof(float)));
        MMX_OK_OR_FAIL(dev, mmx_ctx_sync(dev));
        for (size_t i = 0; i < 18 * (size_t)n; i++)
            cr_assert(fabs(H[i] - G[i]) <= 1e-5 * diag * (i < 3 * (size_t)n ? 1.0 : 100.0),
                      "case %d value %zu: host %g, CUDA %g", k, i, (double)H[i], (double)G[i]);
        /* A bad point is refused on the device too, naming it. */
        u[7] = 2.0f;
        MMX_OK_OR_FAIL(dev, mmx_mem_copy(dev, du_, MMX_SPACE_DEVICE, u, MMX_SPACE_HOST, n * sizeof *u));
        cr_assert_eq(mmx_limit_table_eval(dev, dt, n, df, du_, dv_, D[0], NULL, NULL, NULL, NULL, NULL), MMX_ERR_ARG);
        cr_assert(strstr(mmx_ctx_error(dev), "point 7"), "%s", mmx_ctx_error(dev));
        for (int q = 0; q < 6; q++) mmx_mem_free(dev, MMX_SPACE_DEVICE, D[q]);
        mmx_mem_free(dev, MMX_SPACE_DEVICE, df), mmx_mem_free(dev, MMX_SPACE_DEVICE, du_);
        mmx_mem_free(dev, MMX_SPACE_DEVICE, dv_);
        mmx_limit_table_free(t), mmx_limit_table_free(dt);
        free(f), free(u), free(v), free(out);
        mmx_mesh_free(dm), mmx_mesh_free(m);
    }
    mmx_ctx_free(ctx);
    mmx_ctx_free(dev);
}

/* The uniform limit (mmx_subdiv_limit, and mmx_subdivide's opts.limit) on CUDA against the
 * host: positions within 1e-5 of the diagonal, normals within 1e-4, on every case (refined
 * once, so that Catmull-Clark's faces are quads), and the refused inputs refused alike. */
Test(limit_eval, uniform_limit_gpu_matches_host)
{
    mmx_ctx *dev = tu_cuda_ctx_or_skip();
    mmx_ctx *ctx = tu_host_ctx();
    for (int k = 0; k < NCASES; k++) {
        mmx_scheme scheme;
        mmx_mesh *m = case_mesh(ctx, k, &scheme), *r = NULL, *dr = NULL;
        const double diag = mesh_diagonal(m);
        MMX_OK_OR_FAIL(ctx, mmx_subdivide(ctx, scheme, m, 1, NULL, &r));
        MMX_OK_OR_FAIL(dev, mmx_mesh_copy(dev, r, MMX_SPACE_DEVICE, &dr));
        const size_t nv = (size_t)r->M->nrows;
        float *hp = malloc(12 * nv * sizeof *hp), *gp = hp + 6 * nv, *dp = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_subdiv_limit(ctx, scheme, r, NULL, hp, hp + 3 * nv));
        MMX_OK_OR_FAIL(dev, mmx_mem_alloc(dev, MMX_SPACE_DEVICE, 6 * nv * sizeof *dp, (void **)&dp));
        MMX_OK_OR_FAIL(dev, mmx_subdiv_limit(dev, scheme, dr, NULL, dp, dp + 3 * nv));
        MMX_OK_OR_FAIL(dev, mmx_mem_copy(dev, gp, MMX_SPACE_HOST, dp, MMX_SPACE_DEVICE, 6 * nv * sizeof *dp));
        MMX_OK_OR_FAIL(dev, mmx_ctx_sync(dev));
        for (size_t i = 0; i < 6 * nv; i++)
            cr_assert(fabs(hp[i] - gp[i]) <= (i < 3 * nv ? 1e-5 * diag : 1e-4),
                      "case %d value %zu: host %g, CUDA %g", k, i, (double)hp[i], (double)gp[i]);
        /* --limit: the refined mesh pushed to the limit, on both backends. */
        mmx_subdiv_options so;
        memset(&so, 0, sizeof so);
        so.limit = 1;
        mmx_mesh *dm = NULL, *hl = NULL, *dl = NULL, *back = NULL;
        MMX_OK_OR_FAIL(dev, mmx_mesh_copy(dev, m, MMX_SPACE_DEVICE, &dm));
        MMX_OK_OR_FAIL(ctx, mmx_subdivide(ctx, scheme, m, 2, &so, &hl));
        MMX_OK_OR_FAIL(dev, mmx_subdivide(dev, scheme, dm, 2, &so, &dl));
        MMX_OK_OR_FAIL(dev, mmx_mesh_copy(dev, dl, MMX_SPACE_HOST, &back));
        cr_assert_eq(back->M->nrows, hl->M->nrows);
        for (size_t i = 0; i < 3 * (size_t)hl->M->nrows; i++)
            cr_assert(fabs(hl->pos[i] - back->pos[i]) <= 1e-5 * diag, "case %d --limit value %zu", k, i);
        mmx_mem_free(dev, MMX_SPACE_DEVICE, dp);
        free(hp);
        mmx_mesh_free(back), mmx_mesh_free(dl), mmx_mesh_free(hl), mmx_mesh_free(dm);
        mmx_mesh_free(dr), mmx_mesh_free(r), mmx_mesh_free(m);
    }
    /* An edge both its faces run the same way is refused on both, naming the same corner. */
    static const int flip[] = {0, 1, 2, -1, 0, 1, 3, -1};
    static const float fp[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0};
    mmx_mesh *bad = from_lists(ctx, 4, fp, flip, 8), *dbad = NULL;
    MMX_OK_OR_FAIL(dev, mmx_mesh_copy(dev, bad, MMX_SPACE_DEVICE, &dbad));
    float out[12], *dout = NULL;
    MMX_OK_OR_FAIL(dev, mmx_mem_alloc(dev, MMX_SPACE_DEVICE, sizeof out, (void **)&dout));
    const mmx_status hs = mmx_subdiv_limit(ctx, MMX_SCHEME_LOOP, bad, NULL, out, NULL);
    const mmx_status ds = mmx_subdiv_limit(dev, MMX_SCHEME_LOOP, dbad, NULL, dout, NULL);
    cr_assert_eq(hs, ds);
    if (hs) cr_assert_str_eq(mmx_ctx_error(ctx), mmx_ctx_error(dev));
    mmx_mem_free(dev, MMX_SPACE_DEVICE, dout);
    mmx_mesh_free(dbad), mmx_mesh_free(bad);
    mmx_ctx_free(ctx);
    mmx_ctx_free(dev);
}

/* The same refusal on the host (the half-edge view's fault record names the first corner). */
Test(limit_eval, uniform_limit_refuses_a_twisted_edge)
{
    mmx_ctx *ctx = tu_host_ctx();
    static const int flip[] = {0, 1, 2, -1, 0, 1, 3, -1};
    static const float fp[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0};
    mmx_mesh *bad = from_lists(ctx, 4, fp, flip, 8);
    float out[12];
    cr_assert_eq(mmx_subdiv_limit(ctx, MMX_SCHEME_LOOP, bad, NULL, out, NULL), MMX_ERR_UNSUPPORTED);
    cr_assert(strstr(mmx_ctx_error(ctx), "run the same way") && strstr(mmx_ctx_error(ctx), "corner 0"),
              "%s", mmx_ctx_error(ctx));
    mmx_mesh_free(bad);
    mmx_ctx_free(ctx);
}

#ifdef MMX_TEST_ORACLE
#include "oracle_mmx.h"

/* The largest distance between our evaluation and OpenSubdiv's patch evaluation (Gregory end
 * caps) at n random points of m, over the diagonal; *dmax the same for the first derivatives
 * (over the diagonal too, the derivatives being per unit of u, v). */
static double against_osd(mmx_ctx *ctx, mmx_scheme scheme, const mmx_mesh *m, int iso, int n,
                          double *dmax)
{
    oracle_mesh om;
    MMX_OK_OR_FAIL(ctx, oracle_mesh_from_mmx(ctx, m, &om));
    mmx_mesh_tags *tg = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_tags_parse(ctx, m, &tg));
    oracle_sharp sh = {tg->ncreases, tg->crease_verts, tg->crease_sharpness, tg->ncorners,
                       tg->corner_verts, tg->corner_sharpness,
                       tg->interpolate_boundary < 0 ? 2 : tg->interpolate_boundary,
                       tg->crease_method == 1};
    mmx_limit_options o;
    memset(&o, 0, sizeof o);
    o.isolation = iso, o.caps = MMX_LIMIT_CAPS_OPENSUBDIV;
    mmx_limit_table *t = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_limit_table_create(ctx, scheme, m, &o, &t));
    const mmx_index np = mmx_limit_table_nptex(t);
    mmx_index *f = malloc((size_t)n * sizeof *f);
    int *fi = malloc((size_t)n * sizeof *fi);
    float *u = malloc((size_t)n * sizeof *u), *v = malloc((size_t)n * sizeof *v);
    double *du = malloc((size_t)n * sizeof *du), *dv = malloc((size_t)n * sizeof *dv);
    float *P = malloc(9 * (size_t)n * sizeof *P);
    double *Q = malloc(9 * (size_t)n * sizeof *Q);
    uint32_t seed = 17;
    for (int i = 0; i < n; i++) {
        fi[i] = f[i] = (mmx_index)(tu_rng(&seed) % (uint32_t)np);
        u[i] = (float)(tu_rng(&seed) % 1001) / 1000.0f;
        v[i] = (float)(tu_rng(&seed) % 1001) / 1000.0f;
        if (scheme == MMX_SCHEME_LOOP && u[i] + v[i] > 1.0f) u[i] = 1.0f - u[i], v[i] = 1.0f - v[i];
        du[i] = u[i], dv[i] = v[i];
    }
    eval(ctx, t, n, f, u, v, P, P + 3 * n, P + 6 * n, NULL, NULL, NULL);
    char err[256] = "";
    const int rc = oracle_osd_patch_eval(scheme == MMX_SCHEME_LOOP ? 0 : 1, &om, &sh, iso, n, fi,
                                         du, dv, Q, Q + 3 * n, Q + 6 * n, NULL, err, sizeof err);
    cr_assert_eq(rc, 0, "OpenSubdiv: %s", err);
    const double diag = mesh_diagonal(m);
    double emax = 0.0;
    *dmax = 0.0;
    for (int i = 0; i < n; i++) {
        double e = 0.0, d = 0.0;
        for (int c = 0; c < 3; c++) {
            e += (P[3 * i + c] - Q[3 * i + c]) * (P[3 * i + c] - Q[3 * i + c]);
            const double a = P[3 * n + 3 * i + c] - Q[3 * n + 3 * i + c];
            const double b = P[6 * n + 3 * i + c] - Q[6 * n + 3 * i + c];
            d += a * a + b * b;
        }
        emax = fmax(emax, sqrt(e) / diag);
        *dmax = fmax(*dmax, sqrt(d) / diag);
    }
    free(f), free(fi), free(u), free(v), free(du), free(dv), free(P), free(Q);
    mmx_limit_table_free(t);
    mmx_mesh_tags_free(tg);
    oracle_mesh_free(&om);
    return emax;
}

/* Against OpenSubdiv's Far::PatchTable (the ptex conventions, the B-spline and box-spline
 * patches, the Gregory end caps): on a regular surface (a torus of valence-4 vertices: every
 * patch a B-spline on both sides) to 1e-5 of the diagonal at any point, derivatives included; on
 * extraordinary vertices (Loop: valences 3, 5 and 7 too), n-gons, boundaries, corners and
 * creases of both schemes (the tables made with caps OPENSUBDIV) the positions to 1e-5 at
 * isolation 2 and 3, the gaps printed (the derivatives differ: OpenSubdiv differentiates its
 * Gregory patches with the inner points' blend frozen). */
Test(limit_eval, against_opensubdiv_patches)
{
    mmx_ctx *ctx = tu_host_ctx();
    double dmax;
    mmx_mesh *torus = shape(ctx, "torus:12:8");
    for (int iso = 1; iso <= 3; iso++) {
        const double e = against_osd(ctx, MMX_SCHEME_CATMULL_CLARK, torus, iso, 400, &dmax);
        cr_assert(e <= 1e-5 && dmax <= 1e-4, "torus iso %d: %g (derivatives %g)", iso, e, dmax);
    }
    mmx_mesh_free(torus);
    /* A vertex of two faces inside: a cube whose edge (0, 1) carries a vertex 8 at its middle,
     * its two faces pentagons (OpenSubdiv's Gregory caps there take no tangent). */
    {
        static const float pos[27] = {-1, -1, -1, 1, -1, -1, 1, 1, -1, -1, 1, -1, -1, -1, 1,
                                      1, -1, 1, 1, 1, 1, -1, 1, 1, 0, -1, -1.2f};
        static const mmx_index start[7] = {0, 5, 9, 14, 18, 22, 26};
        static const mmx_index verts[26] = {0, 3, 2, 1, 8, 4, 5, 6, 7, 0, 8, 1, 5, 4,
                                            1, 2, 6, 5, 2, 3, 7, 6, 3, 0, 4, 7};
        mmx_mesh *m = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_mesh_from_faces(ctx, 9, 6, start, verts, pos, &m));
        for (int iso = 2; iso <= 3; iso++) {
            const double e = against_osd(ctx, MMX_SCHEME_CATMULL_CLARK, m, iso, 400, &dmax);
            printf("limit_eval vs OpenSubdiv: valence 2 isolation %d: max %.3g\n", iso, e);
            cr_assert(e <= 1e-5, "valence 2, isolation %d: %g", iso, e);
        }
        mmx_mesh_free(m);
    }
    /* A vertex of two fans: a box of two cells along x missing two faces that meet only at
     * the vertex (0, 0.5, 0.5), edge-and-corner boundaries (the layout of OpenSubdiv's
     * catmark_gregory_test4): the vertex a sharp corner of each fan. */
    {
        float pos[36];
        for (int i = 0; i < 12; i++) {
            static const float y[4] = {-0.5f, 0.5f, 0.5f, -0.5f}, z[4] = {0.5f, 0.5f, -0.5f, -0.5f};
            pos[3 * i] = -0.5f + 0.5f * (float)(i % 3);
            pos[3 * i + 1] = y[i / 3], pos[3 * i + 2] = z[i / 3];
        }
        static const mmx_index start[9] = {0, 4, 8, 12, 16, 20, 24, 28, 32};
        static const mmx_index verts[32] = {1, 2, 5, 4, 3, 4, 7, 6, 6, 7, 10, 9, 7, 8, 11, 10,
                                            9, 10, 1, 0, 10, 11, 2, 1, 2, 11, 8, 5, 9, 0, 3, 6};
        mmx_mesh *m = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_mesh_from_faces(ctx, 12, 8, start, verts, pos, &m));
        m->tags = strdup("t interpolateboundary 1/0/0 1\n");
        for (int iso = 2; iso <= 3; iso++) {
            const double e = against_osd(ctx, MMX_SCHEME_CATMULL_CLARK, m, iso, 400, &dmax);
            printf("limit_eval vs OpenSubdiv: two fans isolation %d: max %.3g\n", iso, e);
            cr_assert(e <= 1e-5, "two fans, isolation %d: %g", iso, e);
        }
        mmx_mesh_free(m);
    }
    /* Loop, edge-only boundaries with infinitely sharp corner tags on the corners of one face
     * of a triangle of 16 (OpenSubdiv's loop_triangle_edgeonly): box-spline corner patches, as
     * OpenSubdiv takes them (Gregory caps with a sharp corner there were 4.6e-4 off at
     * isolation 2). */
    {
        enum { K = 4 };
        float pos[3 * 15];
        mmx_index start[17], verts[48], id[K + 1][K + 1];
        int nv = 0, nf = 0;
        for (int j = 0; j <= K; j++)
            for (int i = 0; i + j <= K; i++) {
                pos[3 * nv] = (float)i + 0.5f * (float)j, pos[3 * nv + 1] = 0.866f * (float)j;
                pos[3 * nv + 2] = 0.3f * (float)((i * 7 + j * 3) % 5) / 4.0f;
                id[j][i] = nv++;
            }
        for (int j = 0; j < K; j++)
            for (int i = 0; i + j < K; i++) {
                const mmx_index t[6] = {id[j][i], id[j][i + 1], id[j + 1][i],
                                        id[j][i + 1], i + j + 1 < K ? id[j + 1][i + 1] : -1, id[j + 1][i]};
                for (int q = 0; q < 2; q++) {
                    if (t[3 * q + 1] < 0) continue;
                    start[nf] = 3 * nf;
                    for (int c = 0; c < 3; c++) verts[3 * nf + c] = t[3 * q + c];
                    nf++;
                }
            }
        start[nf] = 3 * nf;
        mmx_mesh *m = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_mesh_from_faces(ctx, nv, nf, start, verts, pos, &m));
        char tags[64];
        snprintf(tags, sizeof tags, "t corner 1/1/0 %d 10\nt corner 1/1/0 %d 10\n", (int)id[0][0],
                 (int)id[0][K]);
        m->tags = strdup(tags);
        for (int iso = 2; iso <= 3; iso++) {
            const double e = against_osd(ctx, MMX_SCHEME_LOOP, m, iso, 400, &dmax);
            printf("limit_eval vs OpenSubdiv: Loop sharp corners isolation %d: max %.3g\n", iso, e);
            cr_assert(e <= 1e-5, "Loop sharp corners, isolation %d: %g", iso, e);
        }
        mmx_mesh_free(m);
    }
    /* Loop, two disks of 6 and 5 triangles sharing only their centre (OpenSubdiv's
     * loop_nonman_verts): each closed fan of that vertex a sharp corner of its own (they were
     * interpolated caps, 4.7e-3 off here at isolation 2). */
    {
        float pos[3 * 12];
        mmx_index start[12], verts[33];
        pos[0] = pos[1] = pos[2] = 0.0f;
        for (int d = 0; d < 2; d++) {
            const int n = 6 - d;
            for (int i = 0; i < n; i++) {
                const double a = 2.0 * 3.14159265358979 * i / n;
                float *q = pos + 3 * (1 + 6 * d + i);
                q[0] = (float)cos(a), q[1] = (float)sin(a), q[2] = 0.2f * (float)(i % 2) + 0.3f;
                if (d) q[2] = -q[2], q[0] += 0.3f;
            }
        }
        int nf = 0;
        for (int d = 0; d < 2; d++) {
            const int n = 6 - d;
            for (int i = 0; i < n; i++, nf++) {
                start[nf] = 3 * nf;
                verts[3 * nf] = 0, verts[3 * nf + 1] = 1 + 6 * d + i;
                verts[3 * nf + 2] = 1 + 6 * d + (i + 1) % n;
                if (d) {
                    const mmx_index t = verts[3 * nf + 1];
                    verts[3 * nf + 1] = verts[3 * nf + 2], verts[3 * nf + 2] = t;
                }
            }
        }
        start[nf] = 3 * nf;
        mmx_mesh *m = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_mesh_from_faces(ctx, 12, nf, start, verts, pos, &m));
        for (int iso = 2; iso <= 3; iso++) {
            const double e = against_osd(ctx, MMX_SCHEME_LOOP, m, iso, 400, &dmax);
            printf("limit_eval vs OpenSubdiv: Loop closed fans isolation %d: max %.3g\n", iso, e);
            cr_assert(e <= 1e-5, "Loop closed fans, isolation %d: %g", iso, e);
        }
        mmx_mesh_free(m);
    }
    /* Loop, OpenSubdiv's loop_nonman_edge100 (tests/data): 100 triangles on one edge, each
     * alone in its fan at the edge's ends, a sharp corner patch as OpenSubdiv takes it (Gregory
     * caps there were 1.3e-3 off). */
    {
        mmx_mesh *m = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_mesh_read(ctx, tu_data("loop_nonman_edge100.obj"), MMX_FORMAT_AUTO, &m));
        for (int iso = 2; iso <= 3; iso++) {
            const double e = against_osd(ctx, MMX_SCHEME_LOOP, m, iso, 400, &dmax);
            printf("limit_eval vs OpenSubdiv: Loop edge of 100 faces isolation %d: max %.3g\n", iso, e);
            cr_assert(e <= 1e-5, "Loop edge of 100 faces, isolation %d: %g", iso, e);
        }
        mmx_mesh_free(m);
    }
    /* Every case, both schemes: B-spline and box-spline patches (boundary, corner, infinitely
     * sharp) exact, end caps OpenSubdiv's Gregory patches (quads' GREGORY_BASIS, triangles'
     * GREGORY_TRIANGLE; with caps OPENSUBDIV at the semi-sharp creases). */
    for (int k = 0; k < NCASES; k++) {
        mmx_scheme scheme;
        mmx_mesh *m = case_mesh(ctx, k, &scheme);
        for (int iso = 2; iso <= 3; iso++) {
            const double e = against_osd(ctx, scheme, m, iso, 400, &dmax);
            printf("limit_eval vs OpenSubdiv: case %d (%s) isolation %d: max %.3g of the diagonal, "
                   "first derivatives %.3g\n", k, mmx_scheme_name(scheme), iso, e, dmax);
            cr_assert(e <= 1e-5, "case %d (%s), isolation %d: %g", k, mmx_scheme_name(scheme),
                      iso, e);
        }
        mmx_mesh_free(m);
    }
    mmx_ctx_free(ctx);
}
#else
Test(limit_eval, against_opensubdiv_patches)
{
    cr_skip_test("OpenSubdiv was not found at configure time (libosd-dev)");
}
#endif

/* A mesh with vertices and no face (fuzz_subdiv's first finding of the limit table: its
 * level's points were copied from a NULL array, undefined under UBSan): a table of no ptex
 * face, or a refusal with a sentence, for both schemes. */
Test(limit_eval, a_mesh_without_faces)
{
    mmx_ctx *ctx = tu_host_ctx();
    static const char obj[] = "v 0 0 0\nv 1 0 0\n";
    mmx_mesh *m = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_read_mem(ctx, "none.obj", obj, sizeof obj - 1, MMX_FORMAT_OBJ, &m));
    for (int k = 0; k < 2; k++) {
        mmx_limit_table *t = NULL;
        const mmx_status s = mmx_limit_table_create(ctx, k ? MMX_SCHEME_CATMULL_CLARK : MMX_SCHEME_LOOP,
                                                    m, NULL, &t);
        cr_assert((s == MMX_OK) == (t != NULL) && s != MMX_ERR_INTERNAL, "scheme %d: %d, %s", k, (int)s,
                  mmx_ctx_error(ctx));
        if (t) cr_assert_eq(mmx_limit_table_nptex(t), 0);
        else cr_assert(mmx_ctx_error(ctx)[0], "a refusal without a sentence");
        mmx_limit_table_free(t);
    }
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}
