/* Criterion suite "smooth": mmx_smooth (geom.h) against what can be worked out by hand (a flat
 * grid stays flat under every method; one Laplacian or cotangent step against its formula
 * computed here in double; Taubin removes a sphere's noise without shrinking it as Laplacian
 * steps do; an MCF solution satisfies (A - hL) x' = A x to CG's tolerance, residual computed
 * here in double), the fixed boundary (bit for bit), determinism (two runs, same bytes), the
 * patch path against the assembled one, the matrix-free MCF against the assembled one,
 * OpenMesh's Jacobi Laplace smoother (when the oracle was built), the refusals, and the CUDA
 * backend against the host (skipped without a GPU). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#ifdef MMX_TEST_ORACLE
#include "oracle.h"
#include "oracle_mmx.h"
#endif

/* ---- helpers ------------------------------------------------------------------------------- */

static mmx_mesh *from_faces(mmx_ctx *ctx, mmx_index nv, mmx_index nf, int order,
                            const mmx_index *verts, const float *pos)
{
    mmx_index *start = malloc(((size_t)nf + 1) * sizeof *start);
    cr_assert_not_null(start);
    for (mmx_index f = 0; f <= nf; f++) start[f] = order * f;
    mmx_mesh *m = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_from_faces(ctx, nv, nf, start, verts, pos, &m));
    free(start);
    return m;
}

/* An n x n grid of triangles in the plane z = 0 (sheared, alternating diagonals); with bump,
 * z takes a deterministic pseudo-random height in [-bump, bump] (a noisy open surface). */
static mmx_mesh *grid(mmx_ctx *ctx, int n, float bump)
{
    const mmx_index nv = n * n, nf = 2 * (n - 1) * (n - 1);
    float *pos = malloc(3 * (size_t)nv * sizeof *pos);
    mmx_index *verts = malloc(3 * (size_t)nf * sizeof *verts);
    cr_assert(pos && verts);
    uint32_t seed = 7;
    for (int y = 0; y < n; y++)
        for (int x = 0; x < n; x++) {
            float *p = pos + 3 * (y * n + x);
            p[0] = (float)x + 0.3f * (float)y, p[1] = (float)y;
            p[2] = bump > 0.0f ? bump * ((float)(tu_rng(&seed) % 2001) / 1000.0f - 1.0f) : 0.0f;
        }
    mmx_index *t = verts;
    for (int y = 0; y + 1 < n; y++)
        for (int x = 0; x + 1 < n; x++) {
            const mmx_index a = y * n + x, b = a + 1, c = a + n, d = c + 1;
            if ((x + y) % 2) *t++ = a, *t++ = b, *t++ = d, *t++ = a, *t++ = d, *t++ = c;
            else *t++ = a, *t++ = b, *t++ = c, *t++ = b, *t++ = d, *t++ = c;
        }
    mmx_mesh *m = from_faces(ctx, nv, nf, 3, verts, pos);
    free(pos);
    free(verts);
    return m;
}

/* Moves every vertex (host mesh) radially by a pseudo-random factor in [1 - a, 1 + a]: noise
 * on a sphere centred at the origin. */
static void radial_noise(mmx_mesh *m, float a)
{
    uint32_t seed = 12345;
    for (mmx_index v = 0; v < mmx_mesh_nverts(m); v++) {
        const float u = (float)(tu_rng(&seed) % 2001) / 1000.0f - 1.0f;
        for (int d = 0; d < 3; d++) m->pos[3 * v + d] *= 1.0f + a * u;
    }
}

static float *smooth_copy(mmx_ctx *ctx, const mmx_mesh *m, const mmx_smooth_options *o,
                          mmx_smooth_report *rep)
{
    float *x = malloc(3 * (size_t)mmx_mesh_nverts(m) * sizeof *x + 1);
    cr_assert_not_null(x);
    MMX_OK_OR_FAIL(ctx, mmx_smooth(ctx, m, o, x, rep));
    return x;
}

static double bbox_diag(const float *p, mmx_index n)
{
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (mmx_index v = 0; v < n; v++)
        for (int d = 0; d < 3; d++) {
            lo[d] = fmin(lo[d], p[3 * v + d]);
            hi[d] = fmax(hi[d], p[3 * v + d]);
        }
    double s = 0.0;
    for (int d = 0; d < 3; d++) s += (hi[d] - lo[d]) * (hi[d] - lo[d]);
    return sqrt(s);
}

static double max_diff(const float *a, const float *b, mmx_index n)
{
    double m = 0.0;
    for (int64_t i = 0; i < 3 * (int64_t)n; i++) m = fmax(m, fabs((double)a[i] - (double)b[i]));
    return m;
}

/* The RMS distance to the origin-centred sphere of radius r, and the enclosed volume (the
 * divergence theorem over the triangles). */
static double sphere_rms(const float *p, mmx_index n, double r)
{
    double s = 0.0;
    for (mmx_index v = 0; v < n; v++) {
        const double d = sqrt((double)p[3 * v] * p[3 * v] + (double)p[3 * v + 1] * p[3 * v + 1] +
                              (double)p[3 * v + 2] * p[3 * v + 2]) - r;
        s += d * d;
    }
    return sqrt(s / n);
}

static double volume(mmx_ctx *ctx, const mmx_mesh *m, const float *p)
{
    mmx_index *start = NULL, *verts = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_faces(ctx, m, &start, &verts));
    double vol = 0.0;
    for (mmx_index f = 0; f < mmx_mesh_nfaces(m); f++) {
        const float *a = p + 3 * verts[start[f]], *b = p + 3 * verts[start[f] + 1],
                    *c = p + 3 * verts[start[f] + 2];
        vol += ((double)a[0] * ((double)b[1] * c[2] - (double)b[2] * c[1]) -
                (double)a[1] * ((double)b[0] * c[2] - (double)b[2] * c[0]) +
                (double)a[2] * ((double)b[0] * c[1] - (double)b[1] * c[0])) / 6.0;
    }
    free(start);
    free(verts);
    return vol;
}

static const mmx_smooth_method all_methods[] = {MMX_SMOOTH_LAPLACIAN, MMX_SMOOTH_COTAN,
                                                MMX_SMOOTH_TAUBIN, MMX_SMOOTH_BILATERAL,
                                                MMX_SMOOTH_MCF};

/* ---- hand-checked cases ---------------------------------------------------------------------- */

Test(smooth, a_flat_grid_stays_flat_under_every_method)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = grid(ctx, 9, 0.0f);
    for (int i = 0; i < 5; i++)
        for (int fix = 0; fix < 2; fix++) {
            mmx_smooth_options o = mmx_smooth_defaults(all_methods[i]);
            o.fix_boundary = fix;
            o.iterations = 3;
            mmx_smooth_report rep;
            float *x = smooth_copy(ctx, m, &o, &rep);
            cr_assert_eq(rep.iterations, 3);
            for (mmx_index v = 0; v < mmx_mesh_nverts(m); v++)
                cr_assert(x[3 * v + 2] == 0.0f, "%s: vertex %d left the plane: z = %g",
                          mmx_smooth_method_name(all_methods[i]), v, (double)x[3 * v + 2]);
            free(x);
        }
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* Bilateral filtering of a vertex lifted by c above the plane of its ring (a fan of k
 * triangles, the ring fixed): every offset h_j along the centre's normal is -c, so the
 * filtered offset is -c and the vertex lands on the plane, whatever the weights. The offsets'
 * spread is 0 up to rounding; a one-pass variance made sigma_s from that rounding noise, the
 * weights exp(-c^2 / (2 sigma_s^2)) all underflowed to 0 and the vertex did not move, or
 * moved, depending on the last bit (the CUDA and host backends disagreed on an open grid). */
Test(smooth, bilateral_puts_a_lifted_vertex_on_its_rings_plane)
{
    mmx_ctx *ctx = tu_host_ctx();
    const float lifts[] = {0.01f, 0.1f, 0.37f, 1.0f, 3.0f, 12.5f};
    for (int k = 5; k <= 8; k++)
        for (int li = 0; li < (int)(sizeof lifts / sizeof *lifts); li++) {
            const float c = lifts[li];
            float pos[3 * 9];
            mmx_index f[3 * 8];
            pos[0] = 0.0f, pos[1] = 0.0f, pos[2] = c;
            for (int i = 0; i < k; i++) {
                const double a = 0.3 + 6.283185307179586 * i / k;
                pos[3 * (i + 1)] = (float)(2.0 * cos(a)), pos[3 * (i + 1) + 1] = (float)(2.0 * sin(a));
                pos[3 * (i + 1) + 2] = 0.0f;
                f[3 * i] = 0, f[3 * i + 1] = i + 1, f[3 * i + 2] = (i + 1) % k + 1;
            }
            mmx_mesh *m = from_faces(ctx, k + 1, k, 3, f, pos);
            mmx_smooth_options o = mmx_smooth_defaults(MMX_SMOOTH_BILATERAL);
            o.iterations = 1;
            o.fix_boundary = 1;
            float *x = smooth_copy(ctx, m, &o, NULL);
            cr_assert(fabs(x[2]) <= 1e-5 * c && fabs(x[0]) <= 1e-5 * c && fabs(x[1]) <= 1e-5 * c,
                      "k = %d, lift %g: the centre went to (%g, %g, %g), not onto the plane", k,
                      (double)c, (double)x[0], (double)x[1], (double)x[2]);
            cr_assert(memcmp(x + 3, pos + 3, 3 * (size_t)k * sizeof *x) == 0, "the ring moved");
            free(x);
            mmx_mesh_free(m);
        }
    mmx_ctx_free(ctx);
}

/* A shape test (issue 26, item 7): bilateral smoothing of one face of 200,000 corners on a
 * circle in the plane z = 0.5 x. The normals it recomputes at each iteration took the face's
 * Newell vector at every corner (O(n^2): over 5 minutes here); linear, a second. Every
 * neighbour's offset along the plane's normal is 0, so nothing moves (within rounding). */
/* One face of n corners on the unit circle in the plane z = 0.5 x. */
static mmx_mesh *tilted_ngon(mmx_ctx *ctx, mmx_index n)
{
    float *pos = malloc(3 * (size_t)n * sizeof *pos);
    mmx_index *verts = malloc((size_t)n * sizeof *verts), start[2] = {0, n};
    cr_assert(pos && verts);
    for (mmx_index i = 0; i < n; i++) {
        const double a = 6.283185307179586 * (double)i / (double)n;
        pos[3 * i] = (float)cos(a), pos[3 * i + 1] = (float)sin(a), pos[3 * i + 2] = 0.5f * pos[3 * i];
        verts[i] = i;
    }
    mmx_mesh *m = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_from_faces(ctx, n, 1, start, verts, pos, &m));
    free(pos), free(verts);
    return m;
}

Test(smooth, bilateral_on_a_200k_gon_is_linear_in_its_corners)
{
    mmx_ctx *ctx = tu_host_ctx();
    const mmx_index n = 200000;
    mmx_mesh *m = tilted_ngon(ctx, n);
    mmx_smooth_options o = mmx_smooth_defaults(MMX_SMOOTH_BILATERAL);
    o.iterations = 2;
    mmx_smooth_report rep;
    float *x = smooth_copy(ctx, m, &o, &rep);
    cr_assert_eq(rep.iterations, 2);
    cr_assert_leq(max_diff(x, m->pos, n), 1e-5, "a vertex of the flat polygon moved by %g",
                  max_diff(x, m->pos, n));
    free(x);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* The 200k-gon's bilateral steps on CUDA: the host's positions within rounding. */
Test(smooth, cuda_bilateral_on_a_200k_gon)
{
    mmx_ctx *cu = tu_cuda_ctx_or_skip();
    if (!cu) return;
    mmx_ctx *ctx = tu_host_ctx();
    const mmx_index n = 200000;
    mmx_mesh *m = tilted_ngon(ctx, n), *dm = NULL;
    MMX_OK_OR_FAIL(cu, mmx_mesh_copy(cu, m, MMX_SPACE_DEVICE, &dm));
    mmx_smooth_options o = mmx_smooth_defaults(MMX_SMOOTH_BILATERAL);
    o.iterations = 2;
    float *h = smooth_copy(ctx, m, &o, NULL), *d = NULL, *back = malloc(3 * (size_t)n * sizeof *back);
    cr_assert_not_null(back);
    MMX_OK_OR_FAIL(cu, mmx_mem_alloc(cu, MMX_SPACE_DEVICE, 3 * (size_t)n * sizeof *d, (void **)&d));
    MMX_OK_OR_FAIL(cu, mmx_smooth(cu, dm, &o, d, NULL));
    MMX_OK_OR_FAIL(cu, mmx_mem_copy(cu, back, MMX_SPACE_HOST, d, MMX_SPACE_DEVICE, 3 * (size_t)n * sizeof *d));
    cr_assert_leq(max_diff(h, back, n), 1e-5, "CUDA and host differ by %g", max_diff(h, back, n));
    mmx_mem_free(cu, MMX_SPACE_DEVICE, d);
    free(h), free(back);
    mmx_mesh_free(dm), mmx_mesh_free(m);
    mmx_ctx_free(ctx), mmx_ctx_free(cu);
}

/* One step of the uniform and of the cotangent Laplacian against x + lambda (L x) / (-L_ii),
 * L written out here: the uniform one from the face lists, the cotangent one read from
 * mmx_cotan_laplacian's weights (checked against libigl elsewhere). */
Test(smooth, one_laplacian_step_is_its_formula)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = tu_shape(ctx, "icosphere:1");
    radial_noise(m, 0.2f);
    const mmx_index n = mmx_mesh_nverts(m);
    mmx_index *start = NULL, *verts = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_faces(ctx, m, &start, &verts));
    /* Uniform: neighbours from the faces' consecutive pairs, each edge once. */
    double *sum = calloc(3 * (size_t)n, sizeof *sum);
    int *cnt = calloc((size_t)n, sizeof *cnt);
    char *seen = calloc((size_t)n * n, 1);
    cr_assert(sum && cnt && seen);
    for (mmx_index f = 0; f < mmx_mesh_nfaces(m); f++)
        for (mmx_index c = start[f]; c < start[f + 1]; c++) {
            const mmx_index a = verts[c], b = verts[c + 1 < start[f + 1] ? c + 1 : start[f]];
            if (seen[(size_t)a * n + b]) continue;
            seen[(size_t)a * n + b] = seen[(size_t)b * n + a] = 1;
            cnt[a]++, cnt[b]++;
            for (int d = 0; d < 3; d++) sum[3 * a + d] += m->pos[3 * b + d], sum[3 * b + d] += m->pos[3 * a + d];
        }
    mmx_smooth_options o = mmx_smooth_defaults(MMX_SMOOTH_LAPLACIAN);
    o.iterations = 1;
    o.step = 0.3f;
    float *x = smooth_copy(ctx, m, &o, NULL);
    for (mmx_index v = 0; v < n; v++)
        for (int d = 0; d < 3; d++) {
            const double p = m->pos[3 * v + d], want = p + 0.3 * (sum[3 * v + d] / cnt[v] - p);
            cr_assert(fabs(x[3 * v + d] - want) <= 1e-6, "uniform: vertex %d: %.9g, want %.9g", v,
                      (double)x[3 * v + d], want);
        }
    free(x);
    /* Cotangent. */
    mmx_weighted *L = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_cotan_laplacian(ctx, m, NULL, &L));
    o = mmx_smooth_defaults(MMX_SMOOTH_COTAN);
    o.iterations = 1;
    x = smooth_copy(ctx, m, &o, NULL);
    for (mmx_index j = 0; j < n; j++) {
        double lx[3] = {0, 0, 0}, dj = 0;
        for (mmx_index q = L->A->colptr[j]; q < L->A->colptr[j + 1]; q++) {
            const mmx_index i = L->A->rowidx[q];
            if (i == j) dj = -L->w[q];
            for (int d = 0; d < 3; d++) lx[d] += (double)L->w[q] * m->pos[3 * i + d];
        }
        cr_assert(dj > 0.0);
        for (int d = 0; d < 3; d++) {
            const double want = m->pos[3 * j + d] + 0.5 * lx[d] / dj;
            cr_assert(fabs(x[3 * j + d] - want) <= 2e-6, "cotan: vertex %d: %.9g, want %.9g", j,
                      (double)x[3 * j + d], want);
        }
    }
    free(x);
    mmx_weighted_free(L);
    free(seen), free(cnt), free(sum), free(start), free(verts);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(smooth, taubin_removes_noise_without_the_laplacians_shrinking)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = tu_shape(ctx, "icosphere:3");
    const mmx_index n = mmx_mesh_nverts(m);
    const double r = sqrt((double)m->pos[0] * m->pos[0] + (double)m->pos[1] * m->pos[1] +
                          (double)m->pos[2] * m->pos[2]);
    const double v0 = volume(ctx, m, m->pos);
    radial_noise(m, 0.03f);
    const double noisy = sphere_rms(m->pos, n, r);
    mmx_smooth_options o = mmx_smooth_defaults(MMX_SMOOTH_TAUBIN);
    float *xt = smooth_copy(ctx, m, &o, NULL);
    o.method = MMX_SMOOTH_LAPLACIAN;
    float *xl = smooth_copy(ctx, m, &o, NULL);
    /* Distance to the best sphere (the mean radius), so that shrinking alone is not counted
     * as noise; the volume change against the clean sphere's. */
    double mt = 0, ml = 0;
    for (mmx_index v = 0; v < n; v++) {
        mt += sqrt((double)xt[3 * v] * xt[3 * v] + (double)xt[3 * v + 1] * xt[3 * v + 1] + (double)xt[3 * v + 2] * xt[3 * v + 2]);
        ml += sqrt((double)xl[3 * v] * xl[3 * v] + (double)xl[3 * v + 1] * xl[3 * v + 1] + (double)xl[3 * v + 2] * xl[3 * v + 2]);
    }
    mt /= n, ml /= n;
    const double nt = sphere_rms(xt, n, mt), nl = sphere_rms(xl, n, ml);
    const double st = fabs(volume(ctx, m, xt) / v0 - 1.0), sl = fabs(volume(ctx, m, xl) / v0 - 1.0);
    cr_log_info("noise rms %.3g -> taubin %.3g, laplacian %.3g; volume change taubin %.3g, laplacian %.3g",
                noisy, nt, nl, st, sl);
    cr_assert(nt < 0.5 * noisy, "taubin left noise %g of %g", nt, noisy);
    cr_assert(sl > 0.05, "10 Laplacian steps should shrink the sphere (volume change %g)", sl);
    cr_assert(st < 0.2 * sl, "taubin shrank by %g, Laplacian by %g", st, sl);
    free(xt), free(xl);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* (A - hL) x' = A x in double with the returned x', L and A of the input positions; fixed
 * vertices (when given) must be where they were, and the free rows' equations hold with them. */
static void check_mcf_system(mmx_ctx *ctx, const mmx_mesh *m, const float *x, float h,
                             const unsigned char *fixed, double tol, int uniform)
{
    const mmx_index n = mmx_mesh_nverts(m);
    mmx_weighted *L = NULL, *A = NULL;
    if (uniform) {
        /* (V - h L_u) x' = V x, V the valences: -diag(L_u), written into a mass's weights */
        MMX_OK_OR_FAIL(ctx, mmx_uniform_laplacian(ctx, m, NULL, &L));
        MMX_OK_OR_FAIL(ctx, mmx_mass_matrix(ctx, m, MMX_MASS_BARYCENTRIC, &A));
        for (mmx_index j = 0; j < n; j++)
            for (mmx_index q = L->A->colptr[j]; q < L->A->colptr[j + 1]; q++)
                if (L->A->rowidx[q] == j) A->w[j] = -L->w[q];
    } else {
        MMX_OK_OR_FAIL(ctx, mmx_cotan_laplacian(ctx, m, NULL, &L));
        MMX_OK_OR_FAIL(ctx, mmx_mass_matrix(ctx, m, MMX_MASS_BARYCENTRIC, &A));
    }
    double rr = 0.0, bb = 0.0;
    for (mmx_index j = 0; j < n; j++) {
        if (fixed && fixed[j]) {
            cr_assert(memcmp(x + 3 * j, m->pos + 3 * j, 3 * sizeof *x) == 0, "fixed vertex %d moved", j);
            continue;
        }
        double r[3], b[3];
        for (int d = 0; d < 3; d++) b[d] = (double)A->w[j] * m->pos[3 * j + d], r[d] = (double)A->w[j] * x[3 * j + d] - b[d];
        for (mmx_index q = L->A->colptr[j]; q < L->A->colptr[j + 1]; q++)
            for (int d = 0; d < 3; d++) r[d] -= (double)h * L->w[q] * x[3 * L->A->rowidx[q] + d];
        for (int d = 0; d < 3; d++) rr += r[d] * r[d], bb += b[d] * b[d];
    }
    cr_log_info("MCF residual ||(A - hL)x' - Ax|| / ||Ax|| = %.3g", sqrt(rr / bb));
    cr_assert(sqrt(rr / bb) <= tol, "MCF residual %g > %g", sqrt(rr / bb), tol);
    mmx_weighted_free(L);
    mmx_weighted_free(A);
}

static void check_mcf_solution(mmx_ctx *ctx, const mmx_mesh *m, const float *x, float h,
                               const unsigned char *fixed, double tol)
{
    check_mcf_system(ctx, m, x, h, fixed, tol, 0);
}

Test(smooth, mcf_solves_its_system)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = tu_shape(ctx, "icosphere:3");
    radial_noise(m, 0.05f);
    for (int p = 0; p < 2; p++) {
        mmx_smooth_options o = mmx_smooth_defaults(MMX_SMOOTH_MCF);
        o.path = p ? MMX_SMOOTH_MATRIX_FREE : MMX_SMOOTH_ASSEMBLED;
        o.cg_rtol = 1e-6;
        mmx_smooth_report rep;
        float *x = smooth_copy(ctx, m, &o, &rep);
        cr_assert(rep.cg_converged && rep.cg_iterations > 0);
        cr_assert_float_eq(rep.step, 1e-3 * pow(bbox_diag(m->pos, mmx_mesh_nverts(m)), 2), 1e-6);
        /* Each coordinate's residual is at most about rtol (plus float's floor) of its b. */
        check_mcf_solution(ctx, m, x, (float)rep.step, NULL, 1e-5);
        free(x);
    }
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* The uniform problem of RXMesh's MCF app, (V - h L_u) x' = V x with h = 10, to 1e-6 of the
 * initial residual: both paths solve it (checked here in double), with a fixed boundary too,
 * and agree; the cotangent problem of the same h gives another surface. */
Test(smooth, mcf_uniform_solves_rxmeshs_system)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *sphere = tu_shape(ctx, "icosphere:3"), *g = grid(ctx, 12, 0.3f);
    radial_noise(sphere, 0.05f);
    mmx_adjacency *adj = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_adjacency_compute(ctx, g, &adj));
    for (int mi = 0; mi < 2; mi++) {
        const mmx_mesh *m = mi ? g : sphere;
        float *xs[2];
        for (int p = 0; p < 2; p++) {
            mmx_smooth_options o = mmx_smooth_defaults(MMX_SMOOTH_MCF);
            o.path = p ? MMX_SMOOTH_MATRIX_FREE : MMX_SMOOTH_ASSEMBLED;
            o.mcf_uniform = 1;
            o.step = 10.0f;
            o.cg_rtol = 1e-6;
            o.fix_boundary = mi;
            o.cg_rel_initial = 1;
            mmx_smooth_report r0;
            xs[p] = smooth_copy(ctx, m, &o, &r0);
            cr_assert(r0.cg_converged && r0.cg_iterations > 0);
            cr_assert_float_eq(r0.step, 10.0, 1e-12);
            check_mcf_system(ctx, m, xs[p], 10.0f, mi ? adj->boundary : NULL, 1e-5, 1);
        }
        const double d = max_diff(xs[0], xs[1], mmx_mesh_nverts(m)) / bbox_diag(m->pos, mmx_mesh_nverts(m));
        cr_assert(d <= 1e-5, "uniform MCF: matrix-free and assembled differ by %g of the diagonal", d);
        /* and it is not the cotangent problem */
        mmx_smooth_options o = mmx_smooth_defaults(MMX_SMOOTH_MCF);
        o.step = 10.0f;
        o.fix_boundary = mi;
        float *xc = smooth_copy(ctx, m, &o, NULL);
        cr_assert_gt(max_diff(xc, xs[0], mmx_mesh_nverts(m)), 1e-3 * bbox_diag(m->pos, mmx_mesh_nverts(m)));
        free(xc), free(xs[0]), free(xs[1]);
    }
    mmx_adjacency_free(adj);
    mmx_mesh_free(g);
    mmx_mesh_free(sphere);
    mmx_ctx_free(ctx);
}

Test(smooth, mcf_with_a_fixed_boundary)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = grid(ctx, 12, 0.3f);
    mmx_adjacency *adj = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_adjacency_compute(ctx, m, &adj));
    float *xs[2];
    for (int p = 0; p < 2; p++) {
        mmx_smooth_options o = mmx_smooth_defaults(MMX_SMOOTH_MCF);
        o.path = p ? MMX_SMOOTH_MATRIX_FREE : MMX_SMOOTH_ASSEMBLED;
        o.fix_boundary = 1;
        o.step = 0.5f;
        o.cg_rtol = 1e-6;
        mmx_smooth_report rep;
        xs[p] = smooth_copy(ctx, m, &o, &rep);
        cr_assert_eq(rep.fixed, adj->boundary_verts);
        check_mcf_solution(ctx, m, xs[p], 0.5f, adj->boundary, 1e-5);
    }
    const double d = max_diff(xs[0], xs[1], mmx_mesh_nverts(m)) / bbox_diag(m->pos, mmx_mesh_nverts(m));
    cr_log_info("MCF with a fixed boundary: matrix-free against assembled %.3g of the diagonal", d);
    cr_assert(d <= 1e-5, "matrix-free and assembled differ by %g of the diagonal", d);
    free(xs[0]), free(xs[1]);
    mmx_adjacency_free(adj);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(smooth, matrix_free_mcf_equals_the_assembled)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = tu_shape(ctx, "icosphere:4");
    radial_noise(m, 0.05f);
    mmx_smooth_options o = mmx_smooth_defaults(MMX_SMOOTH_MCF);
    o.iterations = 2;
    o.cg_rtol = 1e-6;
    mmx_smooth_report ra, rf;
    float *xa = smooth_copy(ctx, m, &o, &ra);
    o.path = MMX_SMOOTH_MATRIX_FREE;
    float *xf = smooth_copy(ctx, m, &o, &rf);
    const double d = max_diff(xa, xf, mmx_mesh_nverts(m)) / bbox_diag(m->pos, mmx_mesh_nverts(m));
    cr_log_info("MCF, 2 steps: CG iterations %d / %d, matrix-free against assembled %.3g of the diagonal",
                ra.cg_iterations, rf.cg_iterations, d);
    cr_assert(d <= 1e-5, "matrix-free and assembled differ by %g of the diagonal", d);
    free(xa), free(xf);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(smooth, a_fixed_boundary_stays_bit_for_bit)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = grid(ctx, 10, 0.2f);
    mmx_adjacency *adj = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_adjacency_compute(ctx, m, &adj));
    for (int i = 0; i < 5; i++) {
        mmx_smooth_options o = mmx_smooth_defaults(all_methods[i]);
        o.fix_boundary = 1;
        o.iterations = 4;
        float *x = smooth_copy(ctx, m, &o, NULL);
        int moved = 0;
        for (mmx_index v = 0; v < mmx_mesh_nverts(m); v++) {
            const int same = memcmp(x + 3 * v, m->pos + 3 * v, 3 * sizeof *x) == 0;
            if (adj->boundary[v])
                cr_assert(same, "%s moved boundary vertex %d", mmx_smooth_method_name(all_methods[i]), v);
            else
                moved += !same;
        }
        cr_assert(moved > 0, "%s moved nothing inside", mmx_smooth_method_name(all_methods[i]));
        free(x);
    }
    mmx_adjacency_free(adj);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(smooth, two_runs_give_the_same_bytes)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = tu_shape(ctx, "icosphere:3");
    radial_noise(m, 0.05f);
    for (int i = 0; i < 5; i++) {
        mmx_smooth_options o = mmx_smooth_defaults(all_methods[i]);
        o.iterations = 3;
        float *a = smooth_copy(ctx, m, &o, NULL), *b = smooth_copy(ctx, m, &o, NULL);
        cr_assert(memcmp(a, b, 3 * (size_t)mmx_mesh_nverts(m) * sizeof *a) == 0, "%s",
                  mmx_smooth_method_name(all_methods[i]));
        free(a), free(b);
    }
    /* In place gives what a separate output gets. */
    mmx_smooth_options o = mmx_smooth_defaults(MMX_SMOOTH_TAUBIN);
    float *a = smooth_copy(ctx, m, &o, NULL);
    MMX_OK_OR_FAIL(ctx, mmx_smooth(ctx, m, &o, m->pos, NULL));
    cr_assert(memcmp(a, m->pos, 3 * (size_t)mmx_mesh_nverts(m) * sizeof *a) == 0);
    free(a);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* ---- the patch path against the assembled one ------------------------------------------------- */

static void compare_paths(mmx_ctx *ctx, const mmx_mesh *m, const char *name, int fix)
{
    const double diag = bbox_diag(m->pos, mmx_mesh_nverts(m));
    for (int t = 0; t < 2; t++) {
        mmx_smooth_options o = mmx_smooth_defaults(t ? MMX_SMOOTH_TAUBIN : MMX_SMOOTH_LAPLACIAN);
        o.fix_boundary = fix;
        float *xa = smooth_copy(ctx, m, &o, NULL);
        o.path = MMX_SMOOTH_PATCH;
        float *xp = smooth_copy(ctx, m, &o, NULL);
        const double d = max_diff(xa, xp, mmx_mesh_nverts(m)) / diag;
        cr_log_info("%s, %s, 10 iterations: patch against assembled %.3g of the diagonal", name,
                    t ? "taubin" : "laplacian", d);
        cr_assert(d <= 2e-6, "%s %s: the paths differ by %g of the diagonal", name,
                  t ? "taubin" : "laplacian", d);
        free(xa), free(xp);
    }
}

Test(smooth, the_patch_path_agrees_with_the_assembled)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = tu_shape(ctx, "icosphere:4");
    radial_noise(m, 0.05f);
    compare_paths(ctx, m, "icosphere:4", 0);
    mmx_mesh_free(m);
    m = tu_shape(ctx, "grid:16:16"); /* quads, holes: boundaries */
    compare_paths(ctx, m, "grid:16:16", 0);
    compare_paths(ctx, m, "grid:16:16 fixed", 1);
    mmx_mesh_free(m);
    mmx_mesh *big = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_read(ctx, tu_data("bigguy_quads.obj"), MMX_FORMAT_AUTO, &big));
    compare_paths(ctx, big, "bigguy", 0);
    mmx_mesh_free(big);
    /* A bowtie: two fans at vertex 0, every neighbour once in its VV row. */
    const mmx_index bow[] = {0, 1, 2, 0, 3, 4};
    const float bp[] = {0, 0, 0.1f, 1, 0, 0, 1, 1, 0, -1, 0, 0, -1, -1, 0.3f};
    m = from_faces(ctx, 5, 2, 3, bow, bp);
    compare_paths(ctx, m, "bowtie", 0);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* ---- refusals ---------------------------------------------------------------------------------- */

Test(smooth, refusals_name_the_problem)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *cube = tu_shape(ctx, "cube");
    float x[3 * 8];
    mmx_smooth_options o = mmx_smooth_defaults(MMX_SMOOTH_COTAN);
    cr_assert_eq(mmx_smooth(ctx, cube, &o, x, NULL), MMX_ERR_MESH);
    cr_assert(strstr(mmx_ctx_error(ctx), "face 0 has order 4"), "%s", mmx_ctx_error(ctx));
    o.method = MMX_SMOOTH_MCF;
    cr_assert_eq(mmx_smooth(ctx, cube, &o, x, NULL), MMX_ERR_MESH);
    /* The uniform Laplacian, Taubin and bilateral take quads. */
    o = mmx_smooth_defaults(MMX_SMOOTH_BILATERAL);
    MMX_OK_OR_FAIL(ctx, mmx_smooth(ctx, cube, &o, x, NULL));
    o = mmx_smooth_defaults(MMX_SMOOTH_COTAN);
    o.path = MMX_SMOOTH_PATCH;
    cr_assert_eq(mmx_smooth(ctx, cube, &o, x, NULL), MMX_ERR_ARG);
    o = mmx_smooth_defaults(MMX_SMOOTH_TAUBIN);
    o.mu = 0.5f;
    cr_assert_eq(mmx_smooth(ctx, cube, &o, x, NULL), MMX_ERR_ARG);
    o = mmx_smooth_defaults(MMX_SMOOTH_LAPLACIAN);
    o.iterations = -1;
    cr_assert_eq(mmx_smooth(ctx, cube, &o, x, NULL), MMX_ERR_ARG);
    o.iterations = 1;
    o.step = NAN;
    cr_assert_eq(mmx_smooth(ctx, cube, &o, x, NULL), MMX_ERR_ARG);
    o.step = 0.5f;
    o.method = (mmx_smooth_method)9;
    cr_assert_eq(mmx_smooth(ctx, cube, &o, x, NULL), MMX_ERR_ARG);
    o = mmx_smooth_defaults(MMX_SMOOTH_LAPLACIAN);
    cr_assert_eq(mmx_smooth(ctx, cube, &o, cube->pos + 3, NULL), MMX_ERR_ARG);
    cr_assert_eq(mmx_smooth(ctx, cube, &o, NULL, NULL), MMX_ERR_ARG);
    mmx_smooth_method mm;
    cr_assert_eq(mmx_smooth_method_parse(ctx, "gauss", &mm), MMX_ERR_ARG);
    cr_assert_eq(mmx_smooth_method_parse(ctx, "mcf", &mm), MMX_OK);
    cr_assert_eq(mm, MMX_SMOOTH_MCF);
    /* Badly oriented faces: the VV rows (bilateral, the patch path) refuse naming the edge;
     * the assembled Laplacian takes them. */
    const mmx_index bad[] = {0, 1, 2, 0, 1, 3};
    const float bp[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, -1, 0.2f};
    mmx_mesh *m = from_faces(ctx, 4, 2, 3, bad, bp);
    float y[12];
    o = mmx_smooth_defaults(MMX_SMOOTH_BILATERAL);
    cr_assert_eq(mmx_smooth(ctx, m, &o, y, NULL), MMX_ERR_MESH);
    cr_assert(strstr(mmx_ctx_error(ctx), "edge"), "%s", mmx_ctx_error(ctx));
    o = mmx_smooth_defaults(MMX_SMOOTH_LAPLACIAN);
    o.path = MMX_SMOOTH_PATCH;
    cr_assert_eq(mmx_smooth(ctx, m, &o, y, NULL), MMX_ERR_MESH);
    o.path = MMX_SMOOTH_ASSEMBLED;
    MMX_OK_OR_FAIL(ctx, mmx_smooth(ctx, m, &o, y, NULL));
    mmx_mesh_free(m);
    mmx_mesh_free(cube);
    mmx_ctx_free(ctx);
}

/* Every method on `m` (host or device, as ctx): success only with finite positions; where
 * `must_refuse`, the explicit methods must refuse (MMX_ERR_MESH: naming the vertex, or cotan's
 * refusal of quads); cotan used to leave every vertex where it was, its weights overflowed. */
static void never_nan(mmx_ctx *ctx, const mmx_mesh *m, const char *what, int must_refuse)
{
    const mmx_index n = mmx_mesh_nverts(m);
    const size_t bytes = 3 * (size_t)n * sizeof(float);
    float *d = NULL, *back = malloc(bytes);
    cr_assert(back);
    MMX_OK_OR_FAIL(ctx, mmx_mem_alloc(ctx, m->space, bytes, (void **)&d));
    for (int i = 0; i < 5; i++) {
        const mmx_smooth_options o = mmx_smooth_defaults(all_methods[i]);
        const mmx_status s = mmx_smooth(ctx, m, &o, d, NULL);
        const char *name = mmx_smooth_method_name(all_methods[i]);
        if (s == MMX_OK) {
            MMX_OK_OR_FAIL(ctx, mmx_mem_copy(ctx, back, MMX_SPACE_HOST, d, m->space, bytes));
            for (size_t k = 0; k < 3 * (size_t)n; k++)
                cr_assert(isfinite(back[k]), "%s, %s: success with %g at %zu", what, name,
                          (double)back[k], k);
        }
        cr_assert(!(must_refuse && all_methods[i] != MMX_SMOOTH_BILATERAL &&
                    all_methods[i] != MMX_SMOOTH_MCF && s != MMX_ERR_MESH),
                  "%s, %s: status %d (%s)", what, name, (int)s, mmx_ctx_error(ctx));
        if (s == MMX_ERR_MESH && strstr(mmx_ctx_error(ctx), "not finite"))
            cr_assert(strstr(mmx_ctx_error(ctx), "vertex") && strstr(mmx_ctx_error(ctx), "too large"),
                      "%s", mmx_ctx_error(ctx));
    }
    mmx_mem_free(ctx, m->space, d);
    free(back);
}

/* Coordinates near FLT_MAX: the neighbour sums overflow. Every method on both backends either
 * refuses or returns finite positions; Laplacian and Taubin (which gave NaN with MMX_OK) and
 * cotan refuse, naming the vertex. */
static void huge_coordinates(mmx_ctx *ctx, mmx_ctx *cu)
{
    const char *shapes[] = {"icosphere:1", "cube"};
    for (int si = 0; si < 2; si++) {
        mmx_mesh *m = tu_shape(ctx, shapes[si]);
        float big = 0;
        for (size_t k = 0; k < 3 * (size_t)mmx_mesh_nverts(m); k++)
            if (fabsf(m->pos[k]) > big) big = fabsf(m->pos[k]);
        for (size_t k = 0; k < 3 * (size_t)mmx_mesh_nverts(m); k++) m->pos[k] *= 3e38f / big;
        if (!cu) {
            never_nan(ctx, m, shapes[si], 1);
        } else {
            mmx_mesh *dm = NULL;
            MMX_OK_OR_FAIL(cu, mmx_mesh_copy(cu, m, MMX_SPACE_DEVICE, &dm));
            never_nan(cu, dm, shapes[si], 1);
            mmx_mesh_free(dm);
        }
        mmx_mesh_free(m);
    }
}

Test(smooth, huge_coordinates_never_give_nan)
{
    mmx_ctx *ctx = tu_host_ctx();
    huge_coordinates(ctx, NULL);
    mmx_ctx_free(ctx);
}

Test(smooth, huge_coordinates_never_give_nan_on_cuda)
{
    mmx_ctx *cu = tu_cuda_ctx_or_skip();
    if (!cu) return;
    mmx_ctx *ctx = tu_host_ctx();
    huge_coordinates(ctx, cu);
    mmx_ctx_free(ctx);
    mmx_ctx_free(cu);
}

Test(smooth, diverging_steps_are_refused)
{
    /* --step 1e30, --step 5, taubin --mu -1e30 returned MMX_OK with NaN (or huge values). */
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *ico = tu_shape(ctx, "icosphere:1");
    float *x = malloc(3 * (size_t)mmx_mesh_nverts(ico) * sizeof *x);
    cr_assert(x);
    const mmx_smooth_method explicit_methods[] = {MMX_SMOOTH_LAPLACIAN, MMX_SMOOTH_COTAN,
                                                  MMX_SMOOTH_TAUBIN};
    for (int i = 0; i < 3; i++) {
        mmx_smooth_options o = mmx_smooth_defaults(explicit_methods[i]);
        o.step = 1e30f;
        cr_assert_eq(mmx_smooth(ctx, ico, &o, x, NULL), MMX_ERR_ARG);
        cr_assert(strstr(mmx_ctx_error(ctx), "step = 1e+30") && strstr(mmx_ctx_error(ctx), "diverge"),
                  "%s", mmx_ctx_error(ctx));
        o.step = 5.0f;
        cr_assert_eq(mmx_smooth(ctx, ico, &o, x, NULL), MMX_ERR_ARG);
        o.step = 1.0f; /* the bound itself is taken */
        MMX_OK_OR_FAIL(ctx, mmx_smooth(ctx, ico, &o, x, NULL));
    }
    mmx_smooth_options o = mmx_smooth_defaults(MMX_SMOOTH_TAUBIN);
    o.mu = -1e30f;
    cr_assert_eq(mmx_smooth(ctx, ico, &o, x, NULL), MMX_ERR_ARG);
    cr_assert(strstr(mmx_ctx_error(ctx), "mu = -1e+30"), "%s", mmx_ctx_error(ctx));
    o.mu = -1.0f;
    MMX_OK_OR_FAIL(ctx, mmx_smooth(ctx, ico, &o, x, NULL));
    /* MCF's step is implicit (stable): a large h is taken, and the result is finite. */
    o = mmx_smooth_defaults(MMX_SMOOTH_MCF);
    o.step = 1e6f;
    const mmx_status s = mmx_smooth(ctx, ico, &o, x, NULL);
    for (size_t k = 0; s == MMX_OK && k < 3 * (size_t)mmx_mesh_nverts(ico); k++) cr_assert(isfinite(x[k]));
    free(x);
    mmx_mesh_free(ico);
    mmx_ctx_free(ctx);
}

Test(smooth, isolated_vertices_and_no_iterations)
{
    mmx_ctx *ctx = tu_host_ctx();
    /* Two triangles and an isolated vertex 4. */
    const mmx_index f[] = {0, 1, 2, 0, 2, 3};
    const float p[] = {0, 0, 0, 1, 0, 0.2f, 1, 1, 0, 0, 1, 0.1f, 5, 5, 5};
    mmx_mesh *m = from_faces(ctx, 5, 2, 3, f, p);
    for (int i = 0; i < 5; i++) {
        mmx_smooth_options o = mmx_smooth_defaults(all_methods[i]);
        float *x = smooth_copy(ctx, m, &o, NULL);
        cr_assert(memcmp(x + 12, p + 12, 3 * sizeof *x) == 0, "%s moved the isolated vertex",
                  mmx_smooth_method_name(all_methods[i]));
        free(x);
        o.iterations = 0;
        mmx_smooth_report rep;
        x = smooth_copy(ctx, m, &o, &rep);
        cr_assert(memcmp(x, p, sizeof p) == 0 && rep.iterations == 0);
        free(x);
    }
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* ---- OpenMesh's JacobiLaplaceSmootherT --------------------------------------------------------- */

#ifdef MMX_TEST_ORACLE
/* OpenMesh's smoother (uniform weights, C0, boundary vertices fixed, damping 0.5) against
 * LAPLACIAN with lambda 0.5 and a fixed boundary, vertex by vertex (OpenMesh keeps the input's
 * order). OpenMesh works in double, we in float: the difference is float rounding. */
static void against_openmesh(mmx_ctx *ctx, const mmx_mesh *m, const char *name, int iterations)
{
    oracle_mesh in, ref;
    char err[256];
    MMX_OK_OR_FAIL(ctx, oracle_mesh_from_mmx(ctx, m, &in));
    cr_assert_eq(oracle_om_laplace_smooth(&in, iterations, &ref, err, sizeof err), 0, "%s", err);
    cr_assert_eq(ref.nverts, mmx_mesh_nverts(m));
    const double diag = bbox_diag(m->pos, mmx_mesh_nverts(m));
    for (int p = 0; p < 2; p++) {
        mmx_smooth_options o = mmx_smooth_defaults(MMX_SMOOTH_LAPLACIAN);
        o.iterations = iterations;
        o.step = 0.5f;
        o.fix_boundary = 1;
        o.path = p ? MMX_SMOOTH_PATCH : MMX_SMOOTH_ASSEMBLED;
        float *x = smooth_copy(ctx, m, &o, NULL);
        double worst = 0.0;
        for (int i = 0; i < 3 * ref.nverts; i++) worst = fmax(worst, fabs(x[i] - ref.pos[i]));
        cr_log_info("OpenMesh JacobiLaplaceSmoother, %s, %d iterations, %s path: max difference "
                    "%.3g of the bounding-box diagonal", name, iterations, p ? "patch" : "assembled",
                    worst / diag);
        cr_assert(worst <= 1e-5 * diag, "%s: %g of the diagonal from OpenMesh", name, worst / diag);
        free(x);
    }
    oracle_mesh_free(&in);
    oracle_mesh_free(&ref);
}
#endif

Test(smooth, openmeshs_jacobi_laplace_smoother)
{
#ifdef MMX_TEST_ORACLE
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = tu_shape(ctx, "icosphere:3");
    radial_noise(m, 0.05f);
    against_openmesh(ctx, m, "noisy icosphere:3", 10);
    mmx_mesh_free(m);
    m = grid(ctx, 16, 0.3f);
    against_openmesh(ctx, m, "noisy 16x16 triangle grid (boundary)", 10);
    mmx_mesh_free(m);
    m = tu_shape(ctx, "grid:16:16");
    against_openmesh(ctx, m, "grid:16:16 (quads, holes)", 20);
    mmx_mesh_free(m);
    MMX_OK_OR_FAIL(ctx, mmx_mesh_read(ctx, tu_data("bigguy_quads.obj"), MMX_FORMAT_AUTO, &m));
    against_openmesh(ctx, m, "bigguy", 10);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
#else
    cr_skip_test("the OpenMesh oracle was not built (see the meson log)");
#endif
}

/* ---- CUDA against the host --------------------------------------------------------------------- */

Test(smooth, cuda_matches_the_host)
{
    mmx_ctx *cu = tu_cuda_ctx_or_skip();
    if (!cu) return;
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = tu_shape(ctx, "icosphere:4");
    radial_noise(m, 0.05f);
    mmx_mesh *g = grid(ctx, 20, 0.3f);
    const mmx_mesh *meshes[2] = {m, g};
    for (int mi = 0; mi < 2; mi++) {
        const mmx_mesh *hm = meshes[mi];
        const mmx_index n = mmx_mesh_nverts(hm);
        const double diag = bbox_diag(hm->pos, n);
        mmx_mesh *dm = NULL;
        MMX_OK_OR_FAIL(cu, mmx_mesh_copy(cu, hm, MMX_SPACE_DEVICE, &dm));
        float *d = NULL, *back = malloc(3 * (size_t)n * sizeof *back), *back2 = malloc(3 * (size_t)n * sizeof *back2);
        cr_assert(back && back2);
        MMX_OK_OR_FAIL(cu, mmx_mem_alloc(cu, MMX_SPACE_DEVICE, 3 * (size_t)n * sizeof *d, (void **)&d));
        for (int i = 0; i < 5; i++)
            for (int p = 0; p < 2; p++) {
                mmx_smooth_options o = mmx_smooth_defaults(all_methods[i]);
                o.fix_boundary = mi;
                if (p && (i == 0 || i == 2)) o.path = MMX_SMOOTH_PATCH;
                else if (p && i == 4) o.path = MMX_SMOOTH_MATRIX_FREE;
                else if (p) continue;
                mmx_smooth_report hr, dr;
                float *h = smooth_copy(ctx, hm, &o, &hr);
                MMX_OK_OR_FAIL(cu, mmx_smooth(cu, dm, &o, d, &dr));
                MMX_OK_OR_FAIL(cu, mmx_mem_copy(cu, back, MMX_SPACE_HOST, d, MMX_SPACE_DEVICE, 3 * (size_t)n * sizeof *d));
                MMX_OK_OR_FAIL(cu, mmx_smooth(cu, dm, &o, d, NULL));
                MMX_OK_OR_FAIL(cu, mmx_mem_copy(cu, back2, MMX_SPACE_HOST, d, MMX_SPACE_DEVICE, 3 * (size_t)n * sizeof *d));
                cr_assert(memcmp(back, back2, 3 * (size_t)n * sizeof *back) == 0,
                          "%s on CUDA: two runs differ", mmx_smooth_method_name(all_methods[i]));
                const double diff = max_diff(h, back, n) / diag;
                cr_log_info("%s (path %d, mesh %d): CUDA against host %.3g of the diagonal",
                            mmx_smooth_method_name(all_methods[i]), (int)o.path, mi, diff);
                cr_assert(diff <= (i == 4 ? 1e-4 : 1e-5), "%s: CUDA and host differ by %g of the diagonal",
                          mmx_smooth_method_name(all_methods[i]), diff);
                cr_assert_eq(hr.iterations, dr.iterations);
                free(h);
            }
        /* MCF's uniform problem (RXMesh's: h = 10, to 1e-6 of r_0), both paths. */
        for (int p = 0; p < 2; p++) {
            mmx_smooth_options o = mmx_smooth_defaults(MMX_SMOOTH_MCF);
            o.fix_boundary = mi;
            o.path = p ? MMX_SMOOTH_MATRIX_FREE : MMX_SMOOTH_ASSEMBLED;
            o.mcf_uniform = 1;
            o.step = 10.0f;
            o.cg_rtol = 1e-6;
            o.cg_rel_initial = 1;
            float *h = smooth_copy(ctx, hm, &o, NULL);
            MMX_OK_OR_FAIL(cu, mmx_smooth(cu, dm, &o, d, NULL));
            MMX_OK_OR_FAIL(cu, mmx_mem_copy(cu, back, MMX_SPACE_HOST, d, MMX_SPACE_DEVICE, 3 * (size_t)n * sizeof *d));
            const double diff = max_diff(h, back, n) / diag;
            cr_log_info("mcf uniform (path %d, mesh %d): CUDA against host %.3g of the diagonal", (int)o.path, mi, diff);
            cr_assert(diff <= 1e-4, "uniform MCF: CUDA and host differ by %g of the diagonal", diff);
            free(h);
        }
        mmx_mem_free(cu, MMX_SPACE_DEVICE, d);
        free(back), free(back2);
        mmx_mesh_free(dm);
    }
    mmx_mesh_free(g);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
    mmx_ctx_free(cu);
}
