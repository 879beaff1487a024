/* Criterion suite "geom": the geometry module (geom.h) against values worked out by hand (a
 * unit right triangle's cotangents and areas, a regular tetrahedron, a cube's quads, a flat
 * grid whose Laplacian of x vanishes inside), its invariants (L symmetric with zero row sums,
 * negative semi-definite on an acute mesh, the areas adding up to the surface, a sphere's
 * curvature), the algebraic path of the vertex normals against the patch path, the refusals
 * (faces that are not triangles, named), and the CUDA backend against the host (skipped
 * without a GPU). libigl is the outside oracle: tests/igl_check.py. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#include "geom/geom_internal.h"

/* ---- helpers ------------------------------------------------------------------------------- */

static mmx_mesh *tri_mesh(mmx_ctx *ctx, mmx_index nv, mmx_index nf, const mmx_index *verts,
                          const float *pos)
{
    mmx_index *start = malloc(((size_t)nf + 1) * sizeof *start);
    cr_assert_not_null(start);
    for (mmx_index f = 0; f <= nf; f++) start[f] = 3 * f;
    mmx_mesh *m = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_from_faces(ctx, nv, nf, start, verts, pos, &m));
    free(start);
    return m;
}

/* A flat n x n grid of vertices in the plane z = 0, spacing h, each square split into two
 * triangles along alternating diagonals (so the cotangent weights differ from edge to edge). */
static mmx_mesh *flat_grid(mmx_ctx *ctx, int n, float h)
{
    const mmx_index nv = n * n, nf = 2 * (n - 1) * (n - 1);
    float *pos = malloc(3 * (size_t)nv * sizeof *pos);
    mmx_index *verts = malloc(3 * (size_t)nf * sizeof *verts);
    cr_assert(pos && verts);
    for (int y = 0; y < n; y++)
        for (int x = 0; x < n; x++) {
            float *p = pos + 3 * (y * n + x);
            /* A little shear, so the grid is not symmetric. */
            p[0] = h * (float)x + 0.3f * h * (float)y, p[1] = h * (float)y, p[2] = 0.0f;
        }
    mmx_index *t = verts;
    for (int y = 0; y + 1 < n; y++)
        for (int x = 0; x + 1 < n; x++) {
            const mmx_index a = y * n + x, b = a + 1, c = a + n, d = c + 1;
            if ((x + y) % 2) {
                *t++ = a, *t++ = b, *t++ = d;
                *t++ = a, *t++ = d, *t++ = c;
            } else {
                *t++ = a, *t++ = b, *t++ = c;
                *t++ = b, *t++ = d, *t++ = c;
            }
        }
    mmx_mesh *m = tri_mesh(ctx, nv, nf, verts, pos);
    free(pos);
    free(verts);
    return m;
}

/* The weight of L(i, j), or NAN when the pattern has no such entry (host matrices). */
static float entry(const mmx_weighted *W, mmx_index i, mmx_index j)
{
    const mmx_csc *A = W->A;
    int64_t a = A->order ? (int64_t)A->order * j : A->colptr[j];
    int64_t b = A->order ? a + A->order : A->colptr[j + 1];
    for (int64_t q = a; q < b; q++)
        if (A->rowidx[q] == i) return W->w[q];
    return NAN;
}

/* y = W x for 3-component x, by a plain loop over the entries (the definition). */
static void apply3(const mmx_weighted *W, const float *x, double *y)
{
    const mmx_csc *A = W->A;
    memset(y, 0, 3 * (size_t)A->nrows * sizeof *y);
    for (mmx_index j = 0; j < A->ncols; j++) {
        int64_t a = A->order ? (int64_t)A->order * j : A->colptr[j];
        int64_t b = A->order ? a + A->order : A->colptr[j + 1];
        for (int64_t q = a; q < b; q++)
            for (int d = 0; d < 3; d++) y[3 * A->rowidx[q] + d] += (double)W->w[q] * x[3 * j + d];
    }
}

static float *host_floats(size_t n)
{
    float *p = calloc(n ? n : 1, sizeof *p);
    cr_assert_not_null(p);
    return p;
}

static void assert_close(double got, double want, double tol, const char *what)
{
    cr_assert(fabs(got - want) <= tol, "%s: %.9g, expected %.9g (tolerance %g)", what, got, want, tol);
}

/* ---- faces ------------------------------------------------------------------------------- */

Test(geom, a_unit_right_triangle)
{
    mmx_ctx *ctx = tu_host_ctx();
    const float pos[] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    const mmx_index verts[] = {0, 1, 2};
    mmx_mesh *m = tri_mesh(ctx, 3, 1, verts, pos);
    float n[3], area;
    MMX_OK_OR_FAIL(ctx, mmx_face_normals(ctx, m, n, &area));
    cr_assert(n[0] == 0.0f && n[1] == 0.0f && n[2] == 1.0f);
    cr_assert_eq(area, 0.5f);
    /* Angles 90 (at 0), 45, 45: cot 0, 1, 1. Edge {0,1} faces corner 2, {0,2} corner 1, {1,2}
     * corner 0; each a boundary edge, so one half cotangent. */
    mmx_weighted *L = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_cotan_laplacian(ctx, m, NULL, &L));
    cr_assert_eq(L->A->nnz, 9);
    assert_close(entry(L, 0, 1), 0.5, 1e-7, "L01");
    assert_close(entry(L, 0, 2), 0.5, 1e-7, "L02");
    assert_close(entry(L, 1, 2), 0.0, 1e-7, "L12");
    assert_close(entry(L, 0, 0), -1.0, 1e-7, "L00");
    assert_close(entry(L, 1, 1), -0.5, 1e-7, "L11");
    assert_close(entry(L, 2, 2), -0.5, 1e-7, "L22");
    float A[3];
    MMX_OK_OR_FAIL(ctx, mmx_vertex_areas(ctx, m, MMX_MASS_BARYCENTRIC, A));
    for (int i = 0; i < 3; i++) assert_close(A[i], 1.0 / 6.0, 1e-7, "barycentric");
    /* The right angle's vertex gets half the triangle (the circumcentre is the hypotenuse's
     * midpoint), the others a quarter. */
    MMX_OK_OR_FAIL(ctx, mmx_vertex_areas(ctx, m, MMX_MASS_VORONOI, A));
    assert_close(A[0], 0.25, 1e-7, "voronoi 0");
    assert_close(A[1], 0.125, 1e-7, "voronoi 1");
    assert_close(A[2], 0.125, 1e-7, "voronoi 2");
    mmx_weighted_free(L);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(geom, an_obtuse_triangle_takes_meyers_fallback)
{
    mmx_ctx *ctx = tu_host_ctx();
    /* Obtuse at vertex 2: (0,0), (4,0), (2,0.5). Area 1. */
    const float pos[] = {0, 0, 0, 4, 0, 0, 2, 0.5f, 0};
    const mmx_index verts[] = {0, 1, 2};
    mmx_mesh *m = tri_mesh(ctx, 3, 1, verts, pos);
    float A[3];
    MMX_OK_OR_FAIL(ctx, mmx_vertex_areas(ctx, m, MMX_MASS_VORONOI, A));
    assert_close(A[0], 0.25, 1e-6, "voronoi 0");
    assert_close(A[1], 0.25, 1e-6, "voronoi 1");
    assert_close(A[2], 0.5, 1e-6, "voronoi 2 (obtuse)");
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(geom, the_cubes_quads_have_axis_normals)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = tu_shape(ctx, "cube");
    float n[18], area[6];
    MMX_OK_OR_FAIL(ctx, mmx_face_normals(ctx, m, n, area));
    for (int f = 0; f < 6; f++) {
        assert_close(area[f], 4.0, 1e-6, "cube face area");
        int axes = 0;
        for (int d = 0; d < 3; d++) {
            cr_assert(n[3 * f + d] == 0.0f || fabsf(n[3 * f + d]) == 1.0f, "face %d", f);
            axes += n[3 * f + d] != 0.0f;
        }
        cr_assert_eq(axes, 1);
    }
    /* Outward: the normal agrees with the face's centre (the cube is centred at 0). */
    mmx_index *start, *verts;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_faces(ctx, m, &start, &verts));
    for (int f = 0; f < 6; f++) {
        float c[3] = {0, 0, 0};
        for (int k = start[f]; k < start[f + 1]; k++)
            for (int d = 0; d < 3; d++) c[d] += m->pos[3 * verts[k] + d];
        cr_assert_gt(c[0] * n[3 * f] + c[1] * n[3 * f + 1] + c[2] * n[3 * f + 2], 0.0f);
    }
    free(start);
    free(verts);
    /* Every weighting puts a corner's normal on its diagonal. */
    for (int w = 0; w < 3; w++) {
        float vn[24];
        MMX_OK_OR_FAIL(ctx, mmx_vertex_normals(ctx, m, (mmx_normal_weight)w, vn));
        for (int v = 0; v < 8; v++)
            for (int d = 0; d < 3; d++)
                assert_close(vn[3 * v + d], m->pos[3 * v + d] / sqrtf(3.0f), 1e-6, "cube vertex normal");
    }
    /* Barycentric areas: three quarters of 4 each. */
    float A[8];
    MMX_OK_OR_FAIL(ctx, mmx_vertex_areas(ctx, m, MMX_MASS_BARYCENTRIC, A));
    for (int v = 0; v < 8; v++) assert_close(A[v], 3.0, 1e-6, "cube vertex area");
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(geom, a_degenerate_face_has_a_zero_normal_and_adds_nothing)
{
    mmx_ctx *ctx = tu_host_ctx();
    /* Triangle 1 has three collinear vertices. */
    const float pos[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 2, 0, 0};
    const mmx_index verts[] = {0, 1, 2, 0, 3, 1};
    mmx_mesh *m = tri_mesh(ctx, 4, 2, verts, pos);
    float n[6], area[2];
    MMX_OK_OR_FAIL(ctx, mmx_face_normals(ctx, m, n, area));
    cr_assert(n[3] == 0.0f && n[4] == 0.0f && n[5] == 0.0f && area[1] == 0.0f);
    float vn[12];
    for (int w = 0; w < 3; w++) {
        MMX_OK_OR_FAIL(ctx, mmx_vertex_normals(ctx, m, (mmx_normal_weight)w, vn));
        cr_assert(vn[9] == 0.0f && vn[10] == 0.0f && vn[11] == 0.0f, "vertex 3 is only in the degenerate face");
        cr_assert(vn[2] == 1.0f);
    }
    mmx_weighted *L = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_cotan_laplacian(ctx, m, NULL, &L));
    for (int64_t q = 0; q < L->A->nnz; q++) cr_assert(isfinite(L->w[q]));
    assert_close(entry(L, 3, 3), 0.0, 0.0, "L33");
    mmx_weighted_free(L);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* ---- a regular tetrahedron --------------------------------------------------------------- */

Test(geom, a_regular_tetrahedron)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = tu_shape(ctx, "tetrahedron"); /* edge 2 sqrt(2), centred at 0 */
    const double s3 = sqrt(3.0);
    mmx_weighted *L = NULL, *Mb = NULL, *Mv = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_cotan_laplacian(ctx, m, NULL, &L));
    cr_assert_eq(L->A->nnz, 16);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            assert_close(entry(L, i, j), i == j ? -s3 : 1.0 / s3, 2e-6, "tetra L"); /* cot 60 = 1/sqrt(3) */
    MMX_OK_OR_FAIL(ctx, mmx_mass_matrix(ctx, m, MMX_MASS_BARYCENTRIC, &Mb));
    MMX_OK_OR_FAIL(ctx, mmx_mass_matrix(ctx, m, MMX_MASS_VORONOI, &Mv));
    cr_assert_eq(Mb->A->order, 1);
    for (int v = 0; v < 4; v++) {
        assert_close(Mb->w[v], 2.0 * s3, 2e-6, "barycentric mass"); /* three thirds of 2 sqrt(3) */
        assert_close(Mv->w[v], 2.0 * s3, 2e-6, "voronoi mass");
        assert_close(entry(Mb, v, v), Mb->w[v], 0.0, "diagonal pattern");
    }
    /* Hn = -(1/2) M^-1 L x = x / 3 here (L x at v is -4 x_v / sqrt(3)). */
    float hn[12], vn[12];
    MMX_OK_OR_FAIL(ctx, mmx_mean_curvature_normal(ctx, m, NULL, MMX_MASS_VORONOI, hn));
    for (int i = 0; i < 12; i++) assert_close(hn[i], m->pos[i] / 3.0, 2e-6, "tetra Hn");
    for (int w = 0; w < 3; w++) {
        MMX_OK_OR_FAIL(ctx, mmx_vertex_normals(ctx, m, (mmx_normal_weight)w, vn));
        for (int i = 0; i < 12; i++) assert_close(vn[i], m->pos[i] / s3, 1e-6, "tetra normal");
    }
    mmx_weighted_free(L);
    mmx_weighted_free(Mb);
    mmx_weighted_free(Mv);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* ---- Laplacian invariants -------------------------------------------------------------- */

Test(geom, a_flat_grids_laplacian_of_x_vanishes_inside)
{
    mmx_ctx *ctx = tu_host_ctx();
    const int n = 9;
    mmx_mesh *m = flat_grid(ctx, n, 0.25f);
    mmx_weighted *L = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_cotan_laplacian(ctx, m, NULL, &L));
    double *y = malloc(3 * (size_t)n * n * sizeof *y);
    cr_assert_not_null(y);
    apply3(L, m->pos, y);
    int boundary_nonzero = 0;
    for (int r = 0; r < n; r++)
        for (int c = 0; c < n; c++) {
            const int v = r * n + c, inside = r > 0 && c > 0 && r < n - 1 && c < n - 1;
            const double len = sqrt(y[3 * v] * y[3 * v] + y[3 * v + 1] * y[3 * v + 1] + y[3 * v + 2] * y[3 * v + 2]);
            if (inside) cr_assert_lt(len, 1e-5, "vertex %d: |L x| = %g", v, len);
            else boundary_nonzero += len > 1e-3;
        }
    cr_assert_gt(boundary_nonzero, 0, "the boundary's L x is not zero");
    /* The mean curvature normal vanishes inside too. */
    float *hn = host_floats(3 * (size_t)n * n);
    MMX_OK_OR_FAIL(ctx, mmx_mean_curvature_normal(ctx, m, NULL, MMX_MASS_VORONOI, hn));
    for (int r = 1; r < n - 1; r++)
        for (int c = 1; c < n - 1; c++)
            for (int d = 0; d < 3; d++) cr_assert_lt(fabsf(hn[3 * (r * n + c) + d]), 1e-4);
    free(hn);
    free(y);
    mmx_weighted_free(L);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* L symmetric bit for bit, rows summing to 0, rows ascending with the diagonal in place,
 * negative semi-definite where every angle is acute (the icosphere). */
static void check_laplacian(mmx_ctx *ctx, const mmx_mesh *m, const mmx_weighted *L, int nsd)
{
    const mmx_csc *A = L->A;
    const mmx_index n = mmx_mesh_nverts(m);
    cr_assert_eq(A->nrows, n);
    cr_assert_eq(A->ncols, n);
    cr_assert_eq(A->order, 0);
    cr_assert(A->positional);
    mmx_adjacency *adj = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_adjacency_compute(ctx, m, &adj));
    cr_assert_eq(A->nnz, adj->E->nnz + n);
    for (mmx_index j = 0; j < n; j++) {
        double sum = 0, scale = 0;
        int diag = 0;
        for (mmx_index q = A->colptr[j]; q < A->colptr[j + 1]; q++) {
            if (q > A->colptr[j]) cr_assert_lt(A->rowidx[q - 1], A->rowidx[q]);
            cr_assert_eq(A->val[q], q - A->colptr[j] + 1);
            const mmx_index i = A->rowidx[q];
            diag += i == j;
            if (i != j) cr_assert_eq(entry(L, j, i), L->w[q], "L(%d,%d) != L(%d,%d)", i, j, j, i);
            sum += L->w[q];
            scale += fabs(L->w[q]);
        }
        cr_assert_eq(diag, 1);
        cr_assert_leq(fabs(sum), 1e-6 * (scale + 1), "column %d sums to %g", j, sum);
    }
    if (nsd) {
        uint32_t seed = 11;
        double *x = malloc((size_t)n * sizeof *x);
        cr_assert_not_null(x);
        for (int trial = 0; trial < 8; trial++) {
            for (mmx_index v = 0; v < n; v++) x[v] = (double)(tu_rng(&seed) % 2001) / 1000.0 - 1.0;
            double q = 0;
            for (mmx_index j = 0; j < n; j++)
                for (mmx_index e = A->colptr[j]; e < A->colptr[j + 1]; e++)
                    q += x[A->rowidx[e]] * L->w[e] * x[j];
            cr_assert_leq(q, 1e-6, "x' L x = %g > 0", q);
        }
        free(x);
    }
    mmx_adjacency_free(adj);
}

Test(geom, laplacians_are_symmetric_with_zero_row_sums)
{
    mmx_ctx *ctx = tu_host_ctx();
    const char *const tris[] = {"tetrahedron", "icosphere:2"};
    for (int s = 0; s < 2; s++) {
        mmx_mesh *m = tu_shape(ctx, tris[s]);
        mmx_weighted *L = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_cotan_laplacian(ctx, m, NULL, &L));
        check_laplacian(ctx, m, L, 1);
        mmx_weighted_free(L);
        mmx_mesh_free(m);
    }
    mmx_mesh *g = flat_grid(ctx, 6, 1.0f);
    mmx_weighted *L = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_cotan_laplacian(ctx, g, NULL, &L));
    check_laplacian(ctx, g, L, 0);
    mmx_weighted_free(L);
    mmx_mesh_free(g);
    /* The uniform Laplacian takes any face: the cube's vertices have three edges each. */
    const char *const any[] = {"cube", "mixed", "grid:8:8", "torus:6:4"};
    for (int s = 0; s < 4; s++) {
        mmx_mesh *m = tu_shape(ctx, any[s]);
        MMX_OK_OR_FAIL(ctx, mmx_uniform_laplacian(ctx, m, NULL, &L));
        check_laplacian(ctx, m, L, 1);
        for (int64_t q = 0; q < L->A->nnz; q++) cr_assert(L->w[q] == 1.0f || L->w[q] < 0.0f || L->w[q] == 0.0f);
        if (s == 0)
            for (int v = 0; v < 8; v++) cr_assert_eq(entry(L, v, v), -3.0f);
        mmx_weighted_free(L);
        mmx_mesh_free(m);
    }
    mmx_ctx_free(ctx);
}

Test(geom, the_mapped_spmv_multiplies_by_the_weights)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = tu_shape(ctx, "icosphere:2");
    const mmx_index n = mmx_mesh_nverts(m);
    mmx_weighted *L = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_cotan_laplacian(ctx, m, NULL, &L));
    float *y = host_floats(3 * (size_t)n);
    double *z = malloc(3 * (size_t)n * sizeof *z);
    cr_assert_not_null(z);
    /* L is symmetric: op = T (a gather per column) gives L x. */
    MMX_OK_OR_FAIL(ctx, mmx_spmv(ctx, MMX_OP_T, 1.0f, L->A, mmx_weighted_map(L), m->pos, 3, 0.0f, y));
    apply3(L, m->pos, z);
    for (int64_t i = 0; i < 3 * (int64_t)n; i++) assert_close(y[i], z[i], 1e-5, "L x");
    free(z);
    free(y);
    mmx_weighted_free(L);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* ---- areas and curvature on a sphere --------------------------------------------------------- */

Test(geom, a_spheres_areas_and_curvature)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = tu_shape(ctx, "icosphere:3");
    const mmx_index nv = mmx_mesh_nverts(m), nf = mmx_mesh_nfaces(m);
    float *fa = host_floats((size_t)nf), *A = host_floats((size_t)nv), *hn = host_floats(3 * (size_t)nv);
    MMX_OK_OR_FAIL(ctx, mmx_face_normals(ctx, m, NULL, fa));
    double total = 0, R = 0;
    for (mmx_index f = 0; f < nf; f++) total += fa[f];
    for (mmx_index v = 0; v < nv; v++) R += sqrt(pow(m->pos[3 * v], 2) + pow(m->pos[3 * v + 1], 2) + pow(m->pos[3 * v + 2], 2));
    R /= nv;
    for (int k = 0; k < 2; k++) {
        MMX_OK_OR_FAIL(ctx, mmx_vertex_areas(ctx, m, (mmx_mass_kind)k, A));
        double sum = 0;
        for (mmx_index v = 0; v < nv; v++) sum += A[v];
        assert_close(sum, total, 1e-5 * total, "the areas add up to the surface");
    }
    /* Hn = n / R: outward, length 1/R within the discretisation's error. */
    MMX_OK_OR_FAIL(ctx, mmx_mean_curvature_normal(ctx, m, NULL, MMX_MASS_VORONOI, hn));
    for (mmx_index v = 0; v < nv; v++) {
        const float *p = m->pos + 3 * v, *h = hn + 3 * v;
        const double len = sqrt(h[0] * h[0] + h[1] * h[1] + h[2] * h[2]);
        cr_assert_gt(p[0] * h[0] + p[1] * h[1] + p[2] * h[2], 0.0f, "vertex %d: Hn points inwards", v);
        assert_close(len, 1.0 / R, 0.05 / R, "|Hn| = 1/R");
    }
    free(fa), free(A), free(hn);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* ---- the two paths of the vertex normals ------------------------------------------------------ */

Test(geom, the_patch_path_agrees_with_the_algebra)
{
    mmx_ctx *ctx = tu_host_ctx();
    const char *const specs[] = {"icosphere:3", "torus:24:12", "mixed", "grid:12:9", "cube"};
    for (int s = 0; s < 6; s++) {
        mmx_mesh *m = NULL;
        if (s < 5) m = tu_shape(ctx, specs[s]);
        else MMX_OK_OR_FAIL(ctx, mmx_mesh_read(ctx, tu_data("bigguy_quads.obj"), MMX_FORMAT_AUTO, &m));
        const mmx_index nv = mmx_mesh_nverts(m);
        mmx_patch_options o = {64};
        mmx_patch_set *ps = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_patch_set_create(ctx, m, NULL, &o, &ps));
        float *a = host_floats(3 * (size_t)nv), *b = host_floats(3 * (size_t)nv);
        MMX_OK_OR_FAIL(ctx, mmx_vertex_normals(ctx, m, MMX_NORMAL_AREA, a));
        MMX_OK_OR_FAIL(ctx, mmx_vertex_normals_patch(ctx, m, ps, b));
        double worst = 0;
        for (int64_t i = 0; i < 3 * (int64_t)nv; i++) worst = fmax(worst, fabs((double)a[i] - b[i]));
        cr_assert_leq(worst, 4e-6, "mesh %d: the paths differ by %g", s, worst);
        free(a), free(b);
        mmx_patch_set_free(ps);
        mmx_mesh_free(m);
    }
    mmx_ctx_free(ctx);
}

/* ---- refusals ------------------------------------------------------------------------------------- */

Test(geom, cotangent_operators_refuse_other_faces_naming_one)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *cube = tu_shape(ctx, "cube"), *mixed = tu_shape(ctx, "mixed");
    mmx_weighted *W = NULL;
    cr_assert_eq(mmx_cotan_laplacian(ctx, cube, NULL, &W), MMX_ERR_MESH);
    cr_assert_null(W);
    cr_assert(strstr(mmx_ctx_error(ctx), "face 0 has order 4"), "%s", mmx_ctx_error(ctx));
    cr_assert_eq(mmx_mass_matrix(ctx, cube, MMX_MASS_VORONOI, &W), MMX_ERR_MESH);
    float hn[3 * 64];
    cr_assert_eq(mmx_mean_curvature_normal(ctx, cube, NULL, MMX_MASS_VORONOI, hn), MMX_ERR_MESH);
    /* mixed: a hexagon, quads and triangles; the message names the first face that is not a
     * triangle, with its order. */
    mmx_index *start, *verts;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_faces(ctx, mixed, &start, &verts));
    mmx_index f = 0;
    while (start[f + 1] - start[f] == 3) f++;
    char want[64];
    snprintf(want, sizeof want, "face %d has order %d", f, start[f + 1] - start[f]);
    free(start), free(verts);
    cr_assert_eq(mmx_vertex_areas(ctx, mixed, MMX_MASS_VORONOI, hn), MMX_ERR_MESH);
    cr_assert(strstr(mmx_ctx_error(ctx), want), "%s (wanted %s)", mmx_ctx_error(ctx), want);
    /* The others take any face. */
    MMX_OK_OR_FAIL(ctx, mmx_vertex_areas(ctx, mixed, MMX_MASS_BARYCENTRIC, hn));
    MMX_OK_OR_FAIL(ctx, mmx_uniform_laplacian(ctx, mixed, NULL, &W));
    mmx_weighted_free(W);
    /* Bad arguments. */
    mmx_normal_weight w;
    cr_assert_eq(mmx_normal_weight_parse(ctx, "bogus", &w), MMX_ERR_ARG);
    MMX_OK_OR_FAIL(ctx, mmx_normal_weight_parse(ctx, "angle", &w));
    cr_assert_eq(w, MMX_NORMAL_ANGLE);
    cr_assert_eq(mmx_vertex_normals(ctx, cube, (mmx_normal_weight)7, hn), MMX_ERR_ARG);
    cr_assert_eq(mmx_vertex_normals(ctx, NULL, MMX_NORMAL_AREA, hn), MMX_ERR_ARG);
    mmx_mesh_free(cube);
    mmx_mesh_free(mixed);
    mmx_ctx_free(ctx);
}

Test(geom, meshes_without_faces_and_with_isolated_vertices)
{
    mmx_ctx *ctx = tu_host_ctx();
    const float pos[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 5, 5, 5};
    const mmx_index verts[] = {0, 1, 2};
    mmx_mesh *m = tri_mesh(ctx, 4, 1, verts, pos); /* vertex 3 in no face */
    float vn[12], A[4], hn[12];
    MMX_OK_OR_FAIL(ctx, mmx_vertex_normals(ctx, m, MMX_NORMAL_ANGLE, vn));
    cr_assert(vn[9] == 0.0f && vn[10] == 0.0f && vn[11] == 0.0f);
    MMX_OK_OR_FAIL(ctx, mmx_vertex_areas(ctx, m, MMX_MASS_VORONOI, A));
    cr_assert_eq(A[3], 0.0f);
    MMX_OK_OR_FAIL(ctx, mmx_mean_curvature_normal(ctx, m, NULL, MMX_MASS_VORONOI, hn));
    cr_assert(hn[9] == 0.0f && hn[10] == 0.0f && hn[11] == 0.0f);
    mmx_weighted *L = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_cotan_laplacian(ctx, m, NULL, &L));
    cr_assert_eq(entry(L, 3, 3), 0.0f);
    mmx_weighted_free(L);
    mmx_mesh_free(m);
    mmx_index start0 = 0;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_from_faces(ctx, 4, 0, &start0, NULL, pos, &m));
    MMX_OK_OR_FAIL(ctx, mmx_vertex_normals(ctx, m, MMX_NORMAL_AREA, vn));
    MMX_OK_OR_FAIL(ctx, mmx_cotan_laplacian(ctx, m, NULL, &L));
    cr_assert_eq(L->A->nnz, 4);
    mmx_weighted_free(L);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(geom, normals_travel_with_the_mesh)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = tu_shape(ctx, "icosphere:1"), *c = NULL, *p = NULL;
    const mmx_index nv = mmx_mesh_nverts(m);
    float *vn = host_floats(3 * (size_t)nv);
    MMX_OK_OR_FAIL(ctx, mmx_vertex_normals(ctx, m, MMX_NORMAL_AREA, vn));
    MMX_OK_OR_FAIL(ctx, mmx_mesh_set_normals(ctx, m, vn, MMX_SPACE_HOST));
    MMX_OK_OR_FAIL(ctx, mmx_mesh_copy(ctx, m, MMX_SPACE_HOST, &c));
    cr_assert_not_null(c->normals);
    cr_assert_eq(memcmp(c->normals, vn, 3 * (size_t)nv * sizeof *vn), 0);
    mmx_index *vperm = malloc((size_t)nv * sizeof *vperm);
    cr_assert_not_null(vperm);
    MMX_OK_OR_FAIL(ctx, mmx_mesh_shuffle(ctx, m, 5, vperm, NULL, &p));
    for (mmx_index v = 0; v < nv; v++)
        cr_assert_eq(memcmp(p->normals + 3 * v, vn + 3 * vperm[v], 3 * sizeof *vn), 0);
    MMX_OK_OR_FAIL(ctx, mmx_mesh_set_normals(ctx, c, NULL, MMX_SPACE_HOST));
    cr_assert_null(c->normals);
    free(vperm);
    free(vn);
    mmx_mesh_free(p);
    mmx_mesh_free(c);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* ---- CUDA against the host -------------------------------------------------------------------- */

/* Copies n floats from the context's space to a new host array. */
/* A plan made once follows the positions: after moving every vertex, the planned normals are
 * mmx_vertex_normals' of the moved mesh bit for bit (the host evaluates the same code), and
 * the area-weighted ones are the normalised sums of the faces' cross products computed here
 * in double; the refusals name what is wrong. */
Test(geom, a_normals_plan_follows_moving_positions)
{
    mmx_ctx *ctx = tu_host_ctx();
    const char *const specs[] = {"icosphere:2", "torus:12:6", "mixed"};
    for (int sp = 0; sp < 3; sp++) {
        mmx_mesh *m = tu_shape(ctx, specs[sp]);
        const mmx_index nv = mmx_mesh_nverts(m), nf = mmx_mesh_nfaces(m);
        mmx_normals_plan *plan = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_normals_plan_create(ctx, m, &plan));
        float *pos = host_floats(3 * (size_t)nv), *a = host_floats(3 * (size_t)nv),
              *b = host_floats(3 * (size_t)nv);
        uint32_t seed = 5u + (uint32_t)sp;
        for (int round = 0; round < 3; round++) {
            for (mmx_index i = 0; i < 3 * nv; i++)
                pos[i] = m->pos[i] * (1.0f + 0.1f * (float)round) +
                         0.02f * ((float)(tu_rng(&seed) % 1001) / 500.0f - 1.0f);
            mmx_mesh moved = *m;
            moved.pos = pos;
            for (int w = 0; w < 3; w++) {
                MMX_OK_OR_FAIL(ctx, mmx_vertex_normals_planned(ctx, plan, pos, (mmx_normal_weight)w, a));
                MMX_OK_OR_FAIL(ctx, mmx_vertex_normals(ctx, &moved, (mmx_normal_weight)w, b));
                cr_assert_eq(memcmp(a, b, 3 * (size_t)nv * sizeof *a), 0, "%s, weighting %d", specs[sp], w);
            }
            /* area weighting by hand */
            MMX_OK_OR_FAIL(ctx, mmx_vertex_normals_planned(ctx, plan, pos, MMX_NORMAL_AREA, a));
            mmx_index *start = NULL, *verts = NULL;
            MMX_OK_OR_FAIL(ctx, mmx_mesh_faces(ctx, m, &start, &verts));
            double *acc = calloc(3 * (size_t)nv, sizeof *acc);
            cr_assert_not_null(acc);
            for (mmx_index f = 0; f < nf; f++) {
                const mmx_index c = start[f + 1] - start[f], *v = verts + start[f];
                double N[3] = {0, 0, 0};
                for (mmx_index i = 1; i + 1 < c; i++) {
                    double e1[3], e2[3];
                    for (int d = 0; d < 3; d++) {
                        e1[d] = (double)pos[3 * v[i] + d] - pos[3 * v[0] + d];
                        e2[d] = (double)pos[3 * v[i + 1] + d] - pos[3 * v[0] + d];
                    }
                    N[0] += e1[1] * e2[2] - e1[2] * e2[1];
                    N[1] += e1[2] * e2[0] - e1[0] * e2[2];
                    N[2] += e1[0] * e2[1] - e1[1] * e2[0];
                }
                for (mmx_index i = 0; i < c; i++)
                    for (int d = 0; d < 3; d++) acc[3 * v[i] + d] += N[d];
            }
            for (mmx_index v = 0; v < nv; v++) {
                const double len = sqrt(acc[3 * v] * acc[3 * v] + acc[3 * v + 1] * acc[3 * v + 1] +
                                        acc[3 * v + 2] * acc[3 * v + 2]);
                for (int d = 0; d < 3; d++)
                    cr_assert(fabs(a[3 * v + d] - acc[3 * v + d] / len) <= 1e-5, "%s: vertex %d: %g vs %g",
                              specs[sp], v, (double)a[3 * v + d], acc[3 * v + d] / len);
            }
            free(acc), free(start), free(verts);
        }
        cr_assert_eq(mmx_vertex_normals_planned(ctx, NULL, pos, MMX_NORMAL_AREA, a), MMX_ERR_ARG);
        cr_assert_eq(mmx_vertex_normals_planned(ctx, plan, pos, (mmx_normal_weight)7, a), MMX_ERR_ARG);
        cr_assert_eq(mmx_vertex_normals_planned(ctx, plan, pos, MMX_NORMAL_AREA, pos + 3), MMX_ERR_ARG);
        cr_assert(strstr(mmx_ctx_error(ctx), "overlap"), "%s", mmx_ctx_error(ctx));
        cr_assert_eq(mmx_vertex_normals_planned(ctx, plan, NULL, MMX_NORMAL_AREA, a), MMX_ERR_ARG);
        mmx_ctx *other = tu_host_ctx();
        cr_assert_eq(mmx_vertex_normals_planned(other, plan, pos, MMX_NORMAL_AREA, a), MMX_ERR_ARG);
        cr_assert(strstr(mmx_ctx_error(other), "another context"), "%s", mmx_ctx_error(other));
        mmx_ctx_free(other);
        free(pos), free(a), free(b);
        mmx_normals_plan_free(plan);
        mmx_mesh_free(m);
    }
    mmx_normals_plan_free(NULL);
    mmx_ctx_free(ctx);
}

/* One face of n corners on the unit circle in the tilted plane z = 0.5 x (issue 26, item 7:
 * the normals and areas recomputed a face's Newell vector at each of its corners, O(n^2)). */
static mmx_mesh *tilted_ngon(mmx_ctx *ctx, mmx_index n)
{
    float *pos = host_floats(3 * (size_t)n);
    mmx_index *verts = malloc((size_t)n * sizeof *verts), start[2] = {0, n};
    cr_assert_not_null(verts);
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

/* A shape test: a face of 300,000 corners. Linear, its normals and areas take milliseconds;
 * recomputing the face's vector at each corner took about 8 minutes per call, past the
 * suite's time-out. Every vertex gets the plane's normal and 1/n of the face's area. */
Test(geom, a_300k_gons_normals_and_areas_are_linear_in_its_corners)
{
    mmx_ctx *ctx = tu_host_ctx();
    const mmx_index n = 300000;
    mmx_mesh *m = tilted_ngon(ctx, n);
    float *nrm = host_floats(3 * (size_t)n), *area = host_floats((size_t)n);
    const double len = sqrt(1.25), want[3] = {-0.5 / len, 0.0, 1.0 / len};
    for (int w = 0; w < 3; w++) {
        MMX_OK_OR_FAIL(ctx, mmx_vertex_normals(ctx, m, (mmx_normal_weight)w, nrm));
        for (mmx_index v = 0; v < n; v += 997)
            for (int d = 0; d < 3; d++)
                assert_close(nrm[3 * v + d], want[d], 1e-4, "an n-gon's vertex normal");
    }
    MMX_OK_OR_FAIL(ctx, mmx_vertex_areas(ctx, m, MMX_MASS_BARYCENTRIC, area));
    /* The polygon's area is about pi sqrt(1.25) (the circle's, tilted). */
    const double share = 3.14159265358979 * len / (double)n;
    for (mmx_index v = 0; v < n; v += 997) assert_close(area[v], share, 1e-3 * share, "a share");
    free(nrm), free(area);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

static float *to_host(mmx_ctx *ctx, const float *d, size_t n)
{
    float *h = host_floats(n);
    if (n) MMX_OK_OR_FAIL(ctx, mmx_mem_copy(ctx, h, MMX_SPACE_HOST, d, mmx_ctx_space(ctx), n * sizeof *h));
    return h;
}

static void assert_rel(const float *a, const float *b, size_t n, double tol, const char *what)
{
    double scale = 0;
    for (size_t i = 0; i < n; i++) scale = fmax(scale, fabs(b[i]));
    for (size_t i = 0; i < n; i++)
        cr_assert_leq(fabs((double)a[i] - b[i]), tol * (scale > 0 ? scale : 1), "%s[%zu]: %.9g vs %.9g", what, i,
                      a[i], b[i]);
}

static void check_weighted_equal(mmx_ctx *cu, const mmx_weighted *d, const mmx_weighted *h)
{
    mmx_csc *c = NULL;
    MMX_OK_OR_FAIL(cu, mmx_csc_copy(cu, d->A, MMX_SPACE_HOST, &c));
    cr_assert_eq(c->nnz, h->A->nnz);
    cr_assert_eq(c->order, h->A->order);
    if (!c->order) {
        cr_assert_eq(memcmp(c->colptr, h->A->colptr, ((size_t)c->ncols + 1) * sizeof *c->colptr), 0);
        cr_assert_eq(memcmp(c->val, h->A->val, (size_t)c->nnz * sizeof *c->val), 0);
    }
    cr_assert_eq(memcmp(c->rowidx, h->A->rowidx, (size_t)c->nnz * sizeof *c->rowidx), 0);
    cr_assert_eq(c->maxcol, h->A->maxcol);
    float *w = to_host(cu, d->w, (size_t)c->nnz);
    assert_rel(w, h->w, (size_t)c->nnz, 1e-5, "weights");
    free(w);
    mmx_csc_free(c);
}

Test(geom, cuda_matches_the_host)
{
    mmx_ctx *cu = tu_cuda_ctx_or_skip();
    if (!cu) return;
    mmx_ctx *ho = tu_host_ctx();
    const char *const specs[] = {"icosphere:3", "tetrahedron", "torus:16:8", "mixed"};
    for (int s = 0; s < 4; s++) {
        mmx_mesh *h = tu_shape(ho, specs[s]), *d = NULL;
        MMX_OK_OR_FAIL(cu, mmx_mesh_copy(cu, h, MMX_SPACE_DEVICE, &d));
        const mmx_index nv = mmx_mesh_nverts(h), nf = mmx_mesh_nfaces(h);
        const int tri = s < 2;
        float *dv = NULL, *dfa = NULL;
        MMX_OK_OR_FAIL(cu, mmx_mem_alloc(cu, MMX_SPACE_DEVICE, 3 * (size_t)(nv > nf ? nv : nf) * sizeof(float), (void **)&dv));
        MMX_OK_OR_FAIL(cu, mmx_mem_alloc(cu, MMX_SPACE_DEVICE, (size_t)nf * sizeof(float), (void **)&dfa));
        float *hv = host_floats(3 * (size_t)(nv > nf ? nv : nf)), *hfa = host_floats((size_t)nf);
        MMX_OK_OR_FAIL(cu, mmx_face_normals(cu, d, dv, dfa));
        MMX_OK_OR_FAIL(ho, mmx_face_normals(ho, h, hv, hfa));
        float *g = to_host(cu, dv, 3 * (size_t)nf), *ga = to_host(cu, dfa, (size_t)nf);
        assert_rel(g, hv, 3 * (size_t)nf, 1e-6, "face normals");
        assert_rel(ga, hfa, (size_t)nf, 1e-6, "face areas");
        free(g), free(ga);
        for (int w = 0; w < 3; w++) {
            MMX_OK_OR_FAIL(cu, mmx_vertex_normals(cu, d, (mmx_normal_weight)w, dv));
            MMX_OK_OR_FAIL(ho, mmx_vertex_normals(ho, h, (mmx_normal_weight)w, hv));
            g = to_host(cu, dv, 3 * (size_t)nv);
            assert_rel(g, hv, 3 * (size_t)nv, 1e-5, "vertex normals");
            /* Deterministic: a second run gives the same bits. */
            MMX_OK_OR_FAIL(cu, mmx_vertex_normals(cu, d, (mmx_normal_weight)w, dv));
            float *g2 = to_host(cu, dv, 3 * (size_t)nv);
            cr_assert_eq(memcmp(g, g2, 3 * (size_t)nv * sizeof *g), 0);
            free(g), free(g2);
        }
        /* The plan: built once, the normals of the device positions per weighting. */
        mmx_normals_plan *plan = NULL;
        MMX_OK_OR_FAIL(cu, mmx_normals_plan_create(cu, d, &plan));
        for (int w = 0; w < 3; w++) {
            MMX_OK_OR_FAIL(cu, mmx_vertex_normals_planned(cu, plan, d->pos, (mmx_normal_weight)w, dv));
            MMX_OK_OR_FAIL(ho, mmx_vertex_normals(ho, h, (mmx_normal_weight)w, hv));
            g = to_host(cu, dv, 3 * (size_t)nv);
            assert_rel(g, hv, 3 * (size_t)nv, 1e-5, "planned vertex normals");
            free(g);
        }
        mmx_normals_plan_free(plan);
        mmx_patch_set *ps = NULL;
        MMX_OK_OR_FAIL(cu, mmx_patch_set_create(cu, d, NULL, NULL, &ps));
        MMX_OK_OR_FAIL(cu, mmx_vertex_normals_patch(cu, d, ps, dv));
        MMX_OK_OR_FAIL(ho, mmx_vertex_normals(ho, h, MMX_NORMAL_AREA, hv));
        g = to_host(cu, dv, 3 * (size_t)nv);
        assert_rel(g, hv, 3 * (size_t)nv, 1e-5, "patch vertex normals");
        free(g);
        mmx_patch_set_free(ps);
        for (int k = 0; k < 2; k++) {
            if (k == MMX_MASS_VORONOI && !tri) continue;
            mmx_weighted *Wd = NULL, *Wh = NULL;
            MMX_OK_OR_FAIL(cu, mmx_mass_matrix(cu, d, (mmx_mass_kind)k, &Wd));
            MMX_OK_OR_FAIL(ho, mmx_mass_matrix(ho, h, (mmx_mass_kind)k, &Wh));
            check_weighted_equal(cu, Wd, Wh);
            mmx_weighted_free(Wd), mmx_weighted_free(Wh);
        }
        for (int c = 0; c < 2; c++) {
            if (c == 1 && !tri) continue;
            mmx_weighted *Wd = NULL, *Wh = NULL;
            MMX_OK_OR_FAIL(cu, c ? mmx_cotan_laplacian(cu, d, NULL, &Wd) : mmx_uniform_laplacian(cu, d, NULL, &Wd));
            MMX_OK_OR_FAIL(ho, c ? mmx_cotan_laplacian(ho, h, NULL, &Wh) : mmx_uniform_laplacian(ho, h, NULL, &Wh));
            check_weighted_equal(cu, Wd, Wh);
            mmx_weighted_free(Wd), mmx_weighted_free(Wh);
        }
        if (tri) {
            MMX_OK_OR_FAIL(cu, mmx_mean_curvature_normal(cu, d, NULL, MMX_MASS_VORONOI, dv));
            MMX_OK_OR_FAIL(ho, mmx_mean_curvature_normal(ho, h, NULL, MMX_MASS_VORONOI, hv));
            g = to_host(cu, dv, 3 * (size_t)nv);
            assert_rel(g, hv, 3 * (size_t)nv, 1e-4, "mean curvature normal");
            free(g);
        } else {
            mmx_weighted *W = NULL;
            cr_assert_eq(mmx_cotan_laplacian(cu, d, NULL, &W), MMX_ERR_MESH);
            cr_assert(strstr(mmx_ctx_error(cu), "has order"), "%s", mmx_ctx_error(cu));
        }
        free(hv), free(hfa);
        mmx_mem_free(cu, MMX_SPACE_DEVICE, dv);
        mmx_mem_free(cu, MMX_SPACE_DEVICE, dfa);
        mmx_mesh_free(d);
        mmx_mesh_free(h);
    }
    mmx_ctx_free(ho);
    mmx_ctx_free(cu);
}

/* The 300k-gon on CUDA: the per-face table and the gather give the host's normals and areas
 * within rounding (issue 26, item 7). */
Test(geom, cuda_a_300k_gon_matches_the_host)
{
    mmx_ctx *cu = tu_cuda_ctx_or_skip();
    if (!cu) return;
    mmx_ctx *ho = tu_host_ctx();
    const mmx_index n = 300000;
    mmx_mesh *h = tilted_ngon(ho, n), *d = NULL;
    MMX_OK_OR_FAIL(cu, mmx_mesh_copy(cu, h, MMX_SPACE_DEVICE, &d));
    float *dv = NULL, *hv = host_floats(3 * (size_t)n);
    MMX_OK_OR_FAIL(cu, mmx_mem_alloc(cu, MMX_SPACE_DEVICE, 3 * (size_t)n * sizeof(float), (void **)&dv));
    for (int w = 0; w < 3; w++) {
        MMX_OK_OR_FAIL(cu, mmx_vertex_normals(cu, d, (mmx_normal_weight)w, dv));
        MMX_OK_OR_FAIL(ho, mmx_vertex_normals(ho, h, (mmx_normal_weight)w, hv));
        float *g = to_host(cu, dv, 3 * (size_t)n);
        assert_rel(g, hv, 3 * (size_t)n, 1e-5, "a 300k-gon's vertex normals");
        free(g);
    }
    MMX_OK_OR_FAIL(cu, mmx_vertex_areas(cu, d, MMX_MASS_BARYCENTRIC, dv));
    MMX_OK_OR_FAIL(ho, mmx_vertex_areas(ho, h, MMX_MASS_BARYCENTRIC, hv));
    float *g = to_host(cu, dv, (size_t)n);
    assert_rel(g, hv, (size_t)n, 1e-5, "a 300k-gon's vertex areas");
    free(g), free(hv);
    mmx_mem_free(cu, MMX_SPACE_DEVICE, dv);
    mmx_mesh_free(d), mmx_mesh_free(h);
    mmx_ctx_free(ho), mmx_ctx_free(cu);
}

/* ---- the algebra (mmx_operator, the product references) against the fast paths ------------- */

/* A valued matrix (host) and a weighted one: the same pattern, positions and bits. */
static void expect_same_bits(const mmx_csc *X, const mmx_weighted *W, const char *what)
{
    const mmx_csc *A = W->A;
    cr_assert(X->nrows == A->nrows && X->ncols == A->ncols && X->nnz == A->nnz && X->order == A->order,
              "%s: shapes differ", what);
    cr_assert_not_null(X->x, "%s", what);
    if (!X->order) {
        cr_assert_eq(memcmp(X->colptr, A->colptr, ((size_t)X->ncols + 1) * sizeof(mmx_index)), 0, "%s: colptr", what);
        cr_assert_eq(memcmp(X->val, A->val, (size_t)X->nnz * sizeof(mmx_index)), 0, "%s: val", what);
    }
    cr_assert_eq(memcmp(X->rowidx, A->rowidx, (size_t)X->nnz * sizeof(mmx_index)), 0, "%s: rowidx", what);
    for (mmx_index q = 0; q < X->nnz; q++)
        cr_assert(memcmp(&X->x[q], &W->w[q], sizeof(float)) == 0, "%s: entry %d: product %.9g, fast path %.9g",
                  what, q, X->x[q], W->w[q]);
}

Test(geom, the_products_equal_the_fast_paths_bit_for_bit)
{
    mmx_ctx *ctx = tu_host_ctx();
    const char *const specs[] = {"icosphere:3", "tetrahedron", "torus:16:8", "mixed", "cube", "FLAT"};
    for (int s = 0; s < 6; s++) {
        mmx_mesh *m = s == 5 ? flat_grid(ctx, 9, 0.5f) : tu_shape(ctx, specs[s]);
        const int tri = s < 2 || s == 5;
        const mmx_index nv = mmx_mesh_nverts(m);
        mmx_csc *X = NULL;
        mmx_weighted *W = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_operator(ctx, m, NULL, MMX_OPERATOR_UNIFORM, &X));
        MMX_OK_OR_FAIL(ctx, mmx_uniform_laplacian(ctx, m, NULL, &W));
        expect_same_bits(X, W, "uniform Laplacian");
        mmx_csc_free(X), mmx_weighted_free(W);
        for (int k = 0; k < 2; k++) {
            if (k == MMX_MASS_VORONOI && !tri) continue;
            MMX_OK_OR_FAIL(ctx, mmx_operator(ctx, m, NULL, k ? MMX_OPERATOR_MASS_VORONOI : MMX_OPERATOR_MASS, &X));
            MMX_OK_OR_FAIL(ctx, mmx_mass_matrix(ctx, m, (mmx_mass_kind)k, &W));
            expect_same_bits(X, W, k ? "Voronoi mass" : "barycentric mass");
            mmx_csc_free(X), mmx_weighted_free(W);
        }
        float *a = host_floats(3 * (size_t)nv), *b = host_floats(3 * (size_t)nv);
        for (int w = 0; w < 3; w++) {
            MMX_OK_OR_FAIL(ctx, mmx__vertex_normals_product(ctx, m, (mmx_normal_weight)w, a));
            MMX_OK_OR_FAIL(ctx, mmx_vertex_normals(ctx, m, (mmx_normal_weight)w, b));
            cr_assert_eq(memcmp(a, b, 3 * (size_t)nv * sizeof *a), 0, "%s: normals (weight %d)", specs[s], w);
        }
        if (tri) {
            MMX_OK_OR_FAIL(ctx, mmx_operator(ctx, m, NULL, MMX_OPERATOR_COTAN, &X));
            MMX_OK_OR_FAIL(ctx, mmx_cotan_laplacian(ctx, m, NULL, &W));
            expect_same_bits(X, W, "cotangent Laplacian");
            /* The mean curvature normal as the algebra states it: -(1/2) M^-1 (L x). */
            mmx_csc *Mv = NULL;
            MMX_OK_OR_FAIL(ctx, mmx_operator(ctx, m, NULL, MMX_OPERATOR_MASS_VORONOI, &Mv));
            float *lx = host_floats(3 * (size_t)nv);
            MMX_OK_OR_FAIL(ctx, mmx_spmv(ctx, MMX_OP_T, 1.0f, X, mmx_map_table(MMX_MAP_X, NULL, 0), m->pos, 3, 0.0f, lx));
            for (mmx_index v = 0; v < nv; v++)
                for (int d = 0; d < 3; d++)
                    a[3 * v + d] = Mv->x[v] != 0.0f ? -0.5f * lx[3 * v + d] / Mv->x[v] : 0.0f;
            MMX_OK_OR_FAIL(ctx, mmx_mean_curvature_normal(ctx, m, NULL, MMX_MASS_VORONOI, b));
            cr_assert_eq(memcmp(a, b, 3 * (size_t)nv * sizeof *a), 0, "%s: mean curvature normal", specs[s]);
            free(lx);
            mmx_csc_free(Mv), mmx_csc_free(X), mmx_weighted_free(W);
        }
        free(a), free(b);
        mmx_mesh_free(m);
    }
    mmx_ctx_free(ctx);
}

/* The operators against a plain dense assembly in double, from the triangle list: the
 * cotangent formula per corner, a third of each area per vertex, 1 per edge, d0's signs. */
Test(geom, operators_against_a_dense_assembly)
{
    mmx_ctx *ctx = tu_host_ctx();
    const char *const specs[] = {"tetrahedron", "icosphere:1", "FLAT"};
    for (int s = 0; s < 3; s++) {
        mmx_mesh *m = s == 2 ? flat_grid(ctx, 5, 1.0f) : tu_shape(ctx, specs[s]);
        const mmx_index n = mmx_mesh_nverts(m), nf = mmx_mesh_nfaces(m);
        mmx_index *start = NULL, *verts = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_mesh_faces(ctx, m, &start, &verts));
        double *Lc = calloc((size_t)n * n, sizeof *Lc), *Lu = calloc((size_t)n * n, sizeof *Lu);
        double *mass = calloc((size_t)n, sizeof *mass);
        cr_assert(Lc && Lu && mass);
        for (mmx_index f = 0; f < nf; f++) {
            const mmx_index *t = verts + start[f];
            const float *P[3] = {m->pos + 3 * t[0], m->pos + 3 * t[1], m->pos + 3 * t[2]};
            double e1[3], e2[3], cr[3];
            for (int d = 0; d < 3; d++) e1[d] = P[1][d] - P[0][d], e2[d] = P[2][d] - P[0][d];
            cr[0] = e1[1] * e2[2] - e1[2] * e2[1], cr[1] = e1[2] * e2[0] - e1[0] * e2[2], cr[2] = e1[0] * e2[1] - e1[1] * e2[0];
            const double area2 = sqrt(cr[0] * cr[0] + cr[1] * cr[1] + cr[2] * cr[2]);
            for (int c = 0; c < 3; c++) {
                const mmx_index i = t[c], j = t[(c + 1) % 3], o = t[(c + 2) % 3];
                double u[3], w[3];
                for (int d = 0; d < 3; d++) u[d] = m->pos[3 * i + d] - m->pos[3 * o + d], w[d] = m->pos[3 * j + d] - m->pos[3 * o + d];
                const double cot = (u[0] * w[0] + u[1] * w[1] + u[2] * w[2]) / area2;
                Lc[(size_t)i * n + j] += cot / 2, Lc[(size_t)j * n + i] += cot / 2;
                Lc[(size_t)i * n + i] -= cot / 2, Lc[(size_t)j * n + j] -= cot / 2;
                Lu[(size_t)i * n + j] = Lu[(size_t)j * n + i] = 1;
                mass[i] += area2 / 6;
            }
        }
        for (mmx_index i = 0; i < n; i++) {
            double deg = 0;
            for (mmx_index j = 0; j < n; j++) deg += j != i ? Lu[(size_t)i * n + j] : 0;
            Lu[(size_t)i * n + i] = -deg;
        }
        const mmx_operator_kind kinds[] = {MMX_OPERATOR_COTAN, MMX_OPERATOR_UNIFORM, MMX_OPERATOR_ADJACENCY, MMX_OPERATOR_MASS};
        for (int k = 0; k < 4; k++) {
            mmx_csc *X = NULL;
            MMX_OK_OR_FAIL(ctx, mmx_operator(ctx, m, NULL, kinds[k], &X));
            cr_assert(X->nrows == n && X->ncols == n);
            double *D = calloc((size_t)n * n, sizeof *D), scale = 0;
            for (mmx_index j = 0; j < n; j++) {
                const int64_t a = X->order ? (int64_t)X->order * j : X->colptr[j];
                const int64_t b = X->order ? a + X->order : X->colptr[j + 1];
                for (int64_t q = a; q < b; q++) D[(size_t)X->rowidx[q] * n + j] = X->x[q];
            }
            for (size_t t = 0; t < (size_t)n * n; t++) {
                const mmx_index i = (mmx_index)(t / n), j = (mmx_index)(t % n);
                double want = kinds[k] == MMX_OPERATOR_COTAN ? Lc[t] : kinds[k] == MMX_OPERATOR_UNIFORM ? Lu[t]
                            : kinds[k] == MMX_OPERATOR_ADJACENCY ? (i != j ? Lu[t] : 0) : (i == j ? mass[i] : 0);
                scale = fmax(scale, fabs(want));
                D[t] -= want;
            }
            for (size_t t = 0; t < (size_t)n * n; t++)
                cr_assert_leq(fabs(D[t]), 1e-5 * scale, "%s %s: entry (%zu, %zu) off by %g", specs[s],
                              mmx_operator_name(kinds[k]), t / n, t % n, D[t]);
            free(D);
            mmx_csc_free(X);
        }
        /* d0: one row per edge, -1 at its lower vertex, +1 at its higher one. */
        mmx_csc *E = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_operator(ctx, m, NULL, MMX_OPERATOR_EV, &E));
        for (mmx_index v = 0; v < n; v++)
            for (mmx_index q = E->colptr[v]; q < E->colptr[v + 1]; q++) {
                const mmx_index e = E->rowidx[q];
                int other = -1; /* the edge's other end */
                for (mmx_index u = 0; u < n; u++)
                    for (mmx_index r = E->colptr[u]; r < E->colptr[u + 1]; r++)
                        if (u != v && E->rowidx[r] == e) other = u;
                cr_assert(other >= 0 && Lu[(size_t)v * n + other] == 1, "%s: edge %d", specs[s], e);
                cr_assert_eq(E->x[q], v < other ? -1.0f : 1.0f);
            }
        mmx_csc_free(E);
        free(Lc), free(Lu), free(mass), free(start), free(verts);
        mmx_mesh_free(m);
    }
    mmx_index k;
    cr_assert_eq(mmx_operator_parse(ctx, "laplace", (mmx_operator_kind *)&k), MMX_ERR_ARG);
    cr_assert(strstr(mmx_ctx_error(ctx), "cotan"), "%s", mmx_ctx_error(ctx));
    mmx_ctx_free(ctx);
}

Test(geom, cuda_operators_match_the_host)
{
    mmx_ctx *cu = tu_cuda_ctx_or_skip();
    if (!cu) return;
    mmx_ctx *ho = tu_host_ctx();
    const char *const specs[] = {"icosphere:3", "tetrahedron", "torus:16:8", "mixed"};
    for (int s = 0; s < 4; s++) {
        mmx_mesh *h = tu_shape(ho, specs[s]), *d = NULL;
        MMX_OK_OR_FAIL(cu, mmx_mesh_copy(cu, h, MMX_SPACE_DEVICE, &d));
        const int tri = s < 2;
        for (int k = MMX_OPERATOR_ADJACENCY; k <= MMX_OPERATOR_FE; k++) {
            if ((k == MMX_OPERATOR_COTAN || k == MMX_OPERATOR_MASS_VORONOI) && !tri) continue;
            mmx_csc *Xd = NULL, *Xh = NULL, *Xc = NULL, *Xd2 = NULL, *Xc2 = NULL;
            MMX_OK_OR_FAIL(cu, mmx_operator(cu, d, NULL, (mmx_operator_kind)k, &Xd));
            MMX_OK_OR_FAIL(ho, mmx_operator(ho, h, NULL, (mmx_operator_kind)k, &Xh));
            MMX_OK_OR_FAIL(cu, mmx_csc_copy(cu, Xd, MMX_SPACE_HOST, &Xc));
            cr_assert(Xc->nnz == Xh->nnz && Xc->order == Xh->order, "%s %s", specs[s], mmx_operator_name((mmx_operator_kind)k));
            if (!Xc->order)
                cr_assert_eq(memcmp(Xc->colptr, Xh->colptr, ((size_t)Xc->ncols + 1) * sizeof(mmx_index)), 0);
            cr_assert_eq(memcmp(Xc->rowidx, Xh->rowidx, (size_t)Xc->nnz * sizeof(mmx_index)), 0);
            assert_rel(Xc->x, Xh->x, (size_t)Xc->nnz, 1e-5, mmx_operator_name((mmx_operator_kind)k));
            /* Deterministic: a second run gives the same bits. */
            MMX_OK_OR_FAIL(cu, mmx_operator(cu, d, NULL, (mmx_operator_kind)k, &Xd2));
            MMX_OK_OR_FAIL(cu, mmx_csc_copy(cu, Xd2, MMX_SPACE_HOST, &Xc2));
            cr_assert_eq(memcmp(Xc->x, Xc2->x, (size_t)Xc->nnz * sizeof(float)), 0);
            /* On the device too, the product equals the fast path within rounding. */
            if (k == MMX_OPERATOR_COTAN || k == MMX_OPERATOR_UNIFORM) {
                mmx_weighted *W = NULL;
                MMX_OK_OR_FAIL(cu, k == MMX_OPERATOR_COTAN ? mmx_cotan_laplacian(cu, d, NULL, &W)
                                                           : mmx_uniform_laplacian(cu, d, NULL, &W));
                float *w = to_host(cu, W->w, (size_t)Xc->nnz);
                assert_rel(Xc->x, w, (size_t)Xc->nnz, 1e-6, "device product vs device fast path");
                free(w);
                mmx_weighted_free(W);
            }
            mmx_csc_free(Xd), mmx_csc_free(Xh), mmx_csc_free(Xc), mmx_csc_free(Xd2), mmx_csc_free(Xc2);
        }
        float *dv = NULL, *hv = host_floats(3 * (size_t)mmx_mesh_nverts(h));
        MMX_OK_OR_FAIL(cu, mmx_mem_alloc(cu, MMX_SPACE_DEVICE, 3 * (size_t)mmx_mesh_nverts(h) * sizeof(float), (void **)&dv));
        for (int w = 0; w < 3; w++) {
            MMX_OK_OR_FAIL(cu, mmx__vertex_normals_product(cu, d, (mmx_normal_weight)w, dv));
            MMX_OK_OR_FAIL(ho, mmx_vertex_normals(ho, h, (mmx_normal_weight)w, hv));
            float *g = to_host(cu, dv, 3 * (size_t)mmx_mesh_nverts(h));
            assert_rel(g, hv, 3 * (size_t)mmx_mesh_nverts(h), 1e-5, "device normals product");
            free(g);
        }
        mmx_mem_free(cu, MMX_SPACE_DEVICE, dv);
        free(hv);
        mmx_mesh_free(d), mmx_mesh_free(h);
    }
    mmx_ctx_free(ho), mmx_ctx_free(cu);
}
