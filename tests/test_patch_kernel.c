/* Criterion suite "patch_kernel": the user-kernel model (meshmatrix/patch_view.h, its host
 * twin, and meshmatrix/patch_kernel.cuh on CUDA, test_patch_kernel_dev.cu) against mmx_query:
 * every relation of every owned element (VV, VE, VF, EV, EF, FV, FE, FF), entry for entry and
 * in order, on meshes with boundaries, polygons, non-manifold edges and vertices, isolated
 * vertices and many components, for several patch sizes; the stars (the same vertex rows as
 * multisets); the refusals of mmx_patch_set_blocks; the Laplacian step on the patches against
 * the VV reduction's formula; and on a GPU the same rows and stars from a user kernel, the
 * normals and the steps against the host, the same bits twice. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#include "test_patch_kernel.h"
#include "geom/geom_patch.h"

/* ---- helpers ------------------------------------------------------------------------------- */

static mmx_mesh *from_faces(mmx_ctx *ctx, mmx_index nv, mmx_index nf, const mmx_index *start,
                            const mmx_index *verts)
{
    float *pos = malloc(3 * (size_t)(nv ? nv : 1) * sizeof *pos);
    cr_assert(pos);
    uint32_t seed = 7;
    for (mmx_index i = 0; i < 3 * nv; i++) pos[i] = (float)(tu_rng(&seed) % 1000) / 100.0f;
    mmx_mesh *m = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_from_faces(ctx, nv, nf, start, verts, pos, &m));
    free(pos);
    return m;
}

static mmx_patch_set *make_set(mmx_ctx *ctx, const mmx_mesh *m, int S)
{
    mmx_patch_options o = {S};
    mmx_patch_set *ps = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_patch_set_create(ctx, m, NULL, &o, &ps));
    return ps;
}

/* mmx_query's eight relations of m on the host, each with a full row pointer. */
typedef struct ref_rows {
    mmx_index nrows[MMX_QUERY_COUNT], nnz[MMX_QUERY_COUNT];
    mmx_index *rowptr[MMX_QUERY_COUNT], *col[MMX_QUERY_COUNT];
} ref_rows;

static void ref_make(mmx_ctx *ctx, const mmx_mesh *m, ref_rows *R)
{
    for (int k = 0; k < MMX_QUERY_COUNT; k++) {
        mmx_csr *Q = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_query(ctx, m, NULL, (mmx_query_kind)k, &Q));
        R->nrows[k] = Q->nrows, R->nnz[k] = Q->nnz;
        R->rowptr[k] = malloc(((size_t)Q->nrows + 1) * sizeof(mmx_index));
        R->col[k] = malloc(((size_t)Q->nnz + 1) * sizeof(mmx_index));
        cr_assert(R->rowptr[k] && R->col[k]);
        for (mmx_index r = 0; r <= Q->nrows; r++) R->rowptr[k][r] = Q->order ? Q->order * r : Q->rowptr[r];
        memcpy(R->col[k], Q->colidx, (size_t)Q->nnz * sizeof(mmx_index));
        mmx_csr_free(Q);
    }
}

static void ref_free(ref_rows *R)
{
    for (int k = 0; k < MMX_QUERY_COUNT; k++) free(R->rowptr[k]), free(R->col[k]);
}

/* Host arrays shaped like R, the counts set to -1 (a row no patch wrote shows as -1). */
static tpk_rows rows_alloc(const ref_rows *R)
{
    tpk_rows t;
    for (int k = 0; k < MMX_QUERY_COUNT; k++) {
        t.rowptr[k] = R->rowptr[k];
        t.col[k] = malloc(((size_t)R->nnz[k] + 1) * sizeof(mmx_index));
        t.count[k] = malloc(((size_t)R->nrows[k] + 1) * sizeof(mmx_index));
        cr_assert(t.col[k] && t.count[k]);
        memset(t.col[k], 0xff, ((size_t)R->nnz[k] + 1) * sizeof(mmx_index));
        memset(t.count[k], 0xff, ((size_t)R->nrows[k] + 1) * sizeof(mmx_index));
    }
    return t;
}

static void rows_free(tpk_rows *t)
{
    for (int k = 0; k < MMX_QUERY_COUNT; k++) free(t->col[k]), free(t->count[k]);
}

/* Every row written once, of the query's length, entry for entry the query's. Vertices in no
 * face have empty rows and no patch: their count stays -1. */
static void rows_expect(const ref_rows *R, const tpk_rows *t, const char *name)
{
    for (int k = 0; k < MMX_QUERY_COUNT; k++) {
        const char *q = mmx_query_name((mmx_query_kind)k);
        for (mmx_index r = 0; r < R->nrows[k]; r++) {
            const mmx_index a = R->rowptr[k][r], len = R->rowptr[k][r + 1] - a;
            const mmx_index got = t->count[k][r] < 0 && len == 0 ? 0 : t->count[k][r];
            cr_assert_eq(got, len, "%s %s row %d: %d entries, the query %d", name, q, r, got, len);
            for (mmx_index i = 0; i < len; i++)
                cr_assert_eq(t->col[k][a + i], R->col[k][a + i], "%s %s row %d entry %d: %d, the query %d",
                             name, q, r, i, t->col[k][a + i], R->col[k][a + i]);
        }
    }
}

static void put(const tpk_rows *t, int k, mmx_index row, mmx_index i, mmx_index g)
{
    if (i < t->rowptr[k][row + 1] - t->rowptr[k][row]) t->col[k][t->rowptr[k][row] + i] = g;
}

/* The host twin: patch_view.h's per-patch code in a loop over the patches, every relation of
 * every owned element through the accessors (the walks the CUDA handle wraps). */
static void rows_host(mmx_ctx *ctx, const mmx_patch_set *ps, const tpk_rows *t)
{
    mmx_patch_blocks b;
    MMX_OK_OR_FAIL(ctx, mmx_patch_set_blocks(ctx, ps, MMX_PV_VERTEX_FANS, &b));
    void *w = malloc(b.work_bytes + 16);
    cr_assert(w);
    for (mmx_index p = 0; p < b.npatches; p++) {
        mmx_patch_view V;
        mmx_pv_build_host(&b, p, w, MMX_PV_VERTEX_FANS, &V);
        cr_assert_eq(mmx_pv_patch(&V), p);
        for (mmx_index v = 0; v < mmx_pv_owned_verts(&V); v++) {
            const mmx_index gv = mmx_pv_gv(&V, v);
            mmx_index n[3] = {0, 0, 0};
            mmx_pv_fan it;
            mmx_pv_nbr nb;
            mmx_pv_fan_begin(&V, v, &it);
            while (mmx_pv_fan_next(&V, &it, &nb)) {
                put(t, MMX_QUERY_VV, gv, n[0]++, mmx_pv_gv(&V, nb.vert));
                put(t, MMX_QUERY_VE, gv, n[1]++, mmx_pv_ge(&V, nb.edge));
                if (nb.face >= 0) put(t, MMX_QUERY_VF, gv, n[2]++, mmx_pv_gf(&V, nb.face));
            }
            for (int k = 0; k < 3; k++) t->count[k][gv] = n[k];
        }
        for (mmx_index e = 0; e < mmx_pv_owned_edges(&V); e++) {
            const mmx_index ge = mmx_pv_ge(&V, e);
            for (int k = 0; k < 2; k++) put(t, MMX_QUERY_EV, ge, k, mmx_pv_gv(&V, mmx_pv_edge_vert(&V, e, k)));
            t->count[MMX_QUERY_EV][ge] = 2;
            mmx_index nf;
            const uint16_t *F = mmx_pv_edge_faces(&V, e, &nf);
            for (mmx_index i = 0; i < nf; i++) put(t, MMX_QUERY_EF, ge, i, mmx_pv_gf(&V, F[i]));
            t->count[MMX_QUERY_EF][ge] = nf;
        }
        for (mmx_index l = 0; l < mmx_pv_owned_faces(&V); l++) {
            const mmx_index gf = mmx_pv_gf(&V, l);
            mmx_index a, n, nff = 0;
            mmx_pv_face(&V, l, &a, &n);
            for (mmx_index c = a; c < a + n; c++) {
                put(t, MMX_QUERY_FV, gf, c - a, mmx_pv_gv(&V, mmx_pv_corner_vert(&V, c)));
                const mmx_index e = mmx_pv_corner_edge(&V, c);
                put(t, MMX_QUERY_FE, gf, c - a, mmx_pv_ge(&V, e));
                mmx_index k;
                const uint16_t *F = mmx_pv_edge_faces(&V, e, &k);
                for (mmx_index i = 0; i < k; i++)
                    if (F[i] != l) put(t, MMX_QUERY_FF, gf, nff++, mmx_pv_gf(&V, F[i]));
            }
            t->count[MMX_QUERY_FV][gf] = t->count[MMX_QUERY_FE][gf] = n;
            t->count[MMX_QUERY_FF][gf] = nff;
        }
    }
    free(w);
}

/* The stars (MMX_PV_VERTEX_STARS) of every owned vertex into the VV, VE and VF rows of t. */
static void stars_host(mmx_ctx *ctx, const mmx_patch_set *ps, const tpk_rows *t)
{
    mmx_patch_blocks b;
    MMX_OK_OR_FAIL(ctx, mmx_patch_set_blocks(ctx, ps, MMX_PV_VERTEX_STARS, &b));
    void *w = malloc(b.work_bytes + 16);
    cr_assert(w);
    for (mmx_index p = 0; p < b.npatches; p++) {
        mmx_patch_view V;
        mmx_pv_build_host(&b, p, w, MMX_PV_VERTEX_STARS, &V);
        for (mmx_index v = 0; v < mmx_pv_owned_verts(&V); v++) {
            const mmx_index gv = mmx_pv_gv(&V, v);
            mmx_index n[3] = {0, 0, 0};
            mmx_pv_star it;
            mmx_pv_nbr nb;
            mmx_pv_star_begin(&V, v, &it);
            while (mmx_pv_star_next(&V, &it, &nb)) {
                put(t, MMX_QUERY_VV, gv, n[0]++, mmx_pv_gv(&V, nb.vert));
                put(t, MMX_QUERY_VE, gv, n[1]++, mmx_pv_ge(&V, nb.edge));
                if (nb.face >= 0) put(t, MMX_QUERY_VF, gv, n[2]++, mmx_pv_gf(&V, nb.face));
            }
            for (int k = 0; k < 3; k++) t->count[k][gv] = n[k];
        }
    }
    free(w);
}

static int cmp_index(const void *a, const void *b)
{
    const mmx_index x = *(const mmx_index *)a, y = *(const mmx_index *)b;
    return (x > y) - (x < y);
}

/* The vertex rows (VV, VE, VF) of t hold the query's entries, each as often, in any order. */
static void stars_expect(const ref_rows *R, tpk_rows *t, const char *name)
{
    for (int k = 0; k <= MMX_QUERY_VF; k++) {
        for (mmx_index r = 0; r < R->nrows[k]; r++) {
            const mmx_index a = R->rowptr[k][r], len = R->rowptr[k][r + 1] - a;
            const mmx_index got = t->count[k][r] < 0 && len == 0 ? 0 : t->count[k][r];
            cr_assert_eq(got, len, "%s star %s row %d: %d entries, the query %d", name,
                         mmx_query_name((mmx_query_kind)k), r, got, len);
            mmx_index *want = malloc(((size_t)len + 1) * sizeof *want);
            cr_assert(want);
            memcpy(want, R->col[k] + a, (size_t)len * sizeof *want);
            qsort(want, (size_t)len, sizeof *want, cmp_index);
            qsort(t->col[k] + a, (size_t)len, sizeof *want, cmp_index);
            for (mmx_index i = 0; i < len; i++)
                cr_assert_eq(t->col[k][a + i], want[i], "%s star %s row %d: not the query's entries",
                             name, mmx_query_name((mmx_query_kind)k), r);
            free(want);
        }
    }
}

/* The meshes: shapes with boundaries and polygons, a file of quads, and hand-made non-manifold
 * ones. Returns NULL past the last; *name says which. */
static mmx_mesh *mesh_case(mmx_ctx *ctx, int i, const char **name)
{
    static const char *const shapes[] = {"torus:20:16", "grid:12:9", "mixed", "icosphere:2", "cube"};
    const int nshapes = (int)(sizeof shapes / sizeof *shapes);
    if (i < nshapes) {
        *name = shapes[i];
        return tu_shape(ctx, shapes[i]);
    }
    mmx_mesh *m = NULL;
    switch (i - nshapes) {
    case 0:
        *name = "bigguy_quads.obj";
        MMX_OK_OR_FAIL(ctx, mmx_mesh_read(ctx, tu_data("bigguy_quads.obj"), MMX_FORMAT_AUTO, &m));
        return m;
    case 1: {
        /* Two fans meeting at vertex 0: an open one and a closed cone (a non-manifold vertex). */
        const mmx_index start[] = {0, 3, 6, 9, 12, 15};
        const mmx_index verts[] = {0, 1, 2, 0, 2, 3, 0, 4, 5, 0, 5, 6, 0, 6, 4};
        *name = "bowtie";
        return from_faces(ctx, 7, 5, start, verts);
    }
    case 2: {
        /* Three triangles on edge {0, 1}, a fourth across another edge. */
        const mmx_index start[] = {0, 3, 6, 9, 12}, verts[] = {0, 1, 2, 1, 0, 3, 0, 1, 4, 2, 1, 5};
        *name = "non-manifold edge";
        return from_faces(ctx, 6, 4, start, verts);
    }
    case 3: {
        /* A quad and a pentagon sharing an edge, a triangle on the pentagon; vertices 0 and 9
         * in no face. */
        const mmx_index start[] = {0, 4, 9, 12};
        const mmx_index verts[] = {1, 2, 3, 4, 2, 5, 6, 7, 3, 6, 5, 8};
        *name = "polygons and isolated vertices";
        return from_faces(ctx, 10, 3, start, verts);
    }
    default:
        return NULL;
    }
}

/* ---- the host twin against mmx_query ----------------------------------------------------- */

Test(patch_kernel, host_rows_are_the_query_rows)
{
    mmx_ctx *ctx = tu_host_ctx();
    const char *name = NULL;
    mmx_mesh *m;
    for (int i = 0; (m = mesh_case(ctx, i, &name)) != NULL; i++) {
        ref_rows R;
        ref_make(ctx, m, &R);
        const int Ss[] = {1, 7, 64, 0};
        for (int j = 0; j < 4; j++) {
            char what[128];
            snprintf(what, sizeof what, "%s S=%d", name, Ss[j]);
            mmx_patch_set *ps = make_set(ctx, m, Ss[j]);
            tpk_rows t = rows_alloc(&R);
            rows_host(ctx, ps, &t);
            rows_expect(&R, &t, what);
            rows_free(&t);
            t = rows_alloc(&R);
            stars_host(ctx, ps, &t);
            stars_expect(&R, &t, what);
            rows_free(&t);
            mmx_patch_set_free(ps);
        }
        ref_free(&R);
        mmx_mesh_free(m);
    }
    mmx_ctx_free(ctx);
}

/* The kept rows (MMX_PV_KEPT_ROWS) of each owned vertex against a walk of its star: VV every
 * entry's vertex, VF every entry's face, in the walk's order; refused where the stars are;
 * made once and kept (the same arrays on a second call), and made again after an update (a
 * new set: ASan would see rows freed twice or read after an update freed them). */
static void kept_expect(mmx_ctx *ctx, mmx_patch_set *ps, const char *what)
{
    mmx_patch_blocks b, k, k2;
    const mmx_status s = mmx_patch_set_blocks(ctx, ps, MMX_PV_KEPT_ROWS, &k);
    if (mmx_patch_set_blocks(ctx, ps, MMX_PV_VERTEX_STARS, &b) == MMX_ERR_MESH) {
        cr_assert_eq(s, MMX_ERR_MESH, "%s: kept rows made where the stars are refused", what);
        return;
    }
    MMX_OK_OR_FAIL(ctx, s);
    cr_assert_eq(k.work_bytes, 0, "%s: kept rows need no work space", what);
    MMX_OK_OR_FAIL(ctx, mmx_patch_set_blocks(ctx, ps, MMX_PV_KEPT_ROWS, &k2));
    cr_assert(k2.vv == k.vv && k2.vf == k.vf && k2.vv_ptr == k.vv_ptr, "%s: rows made twice", what);
    void *w = malloc(b.work_bytes + 16);
    cr_assert(w);
    for (mmx_index p = 0; p < b.npatches; p++) {
        mmx_patch_view V, K;
        mmx_pv_build_host(&b, p, w, MMX_PV_VERTEX_STARS, &V);
        mmx_pv_setup_kept(&k, p, &K);
        cr_assert(K.nf == V.nf && K.ne == V.ne && K.nv == V.nv && K.ov == V.ov, "%s: patch %d sizes", what, (int)p);
        for (mmx_index c = 0; c < V.nc; c++)
            cr_assert_eq(mmx_pv_corner_vert(&K, c), mmx_pv_corner_vert(&V, c), "%s: patch %d corner %d", what, (int)p, (int)c);
        for (mmx_index v = 0; v < V.ov; v++) {
            mmx_index nvv, nvf, ivv = 0, ivf = 0;
            const uint16_t *rvv = mmx_pv_kept_vv(&K, v, &nvv), *rvf = mmx_pv_kept_vf(&K, v, &nvf);
            mmx_pv_star it;
            mmx_pv_nbr nb;
            mmx_pv_star_begin(&V, v, &it);
            while (mmx_pv_star_next(&V, &it, &nb)) {
                cr_assert(ivv < nvv && rvv[ivv] == nb.vert, "%s: patch %d vertex %d: VV entry %d", what, (int)p, (int)v, (int)ivv);
                ivv++;
                if (nb.face < 0) continue;
                cr_assert(ivf < nvf && rvf[ivf] == nb.face, "%s: patch %d vertex %d: VF entry %d", what, (int)p, (int)v, (int)ivf);
                ivf++;
            }
            cr_assert(ivv == nvv && ivf == nvf, "%s: patch %d vertex %d: rows of %d and %d entries, the star %d and %d",
                      what, (int)p, (int)v, (int)nvv, (int)nvf, (int)ivv, (int)ivf);
        }
    }
    free(w);
}

Test(patch_kernel, host_kept_rows_are_the_stars)
{
    mmx_ctx *ctx = tu_host_ctx();
    const char *name = NULL;
    mmx_mesh *m;
    for (int i = 0; (m = mesh_case(ctx, i, &name)) != NULL; i++) {
        const int Ss[] = {1, 7, 64, 0};
        for (int j = 0; j < 4; j++) {
            char what[128];
            snprintf(what, sizeof what, "%s S=%d", name, Ss[j]);
            mmx_patch_set *ps = make_set(ctx, m, Ss[j]);
            kept_expect(ctx, ps, what);
            /* An update without edits (the same faces) makes a new set: its rows anew. */
            MMX_OK_OR_FAIL(ctx, mmx_patch_set_update(ctx, ps, m, NULL, NULL));
            kept_expect(ctx, ps, what);
            mmx_patch_set_free(ps);
        }
        mmx_mesh_free(m);
    }
    mmx_ctx_free(ctx);
}

Test(patch_kernel, blocks_refusals)
{
    mmx_ctx *ctx = tu_host_ctx();
    /* Two triangles running edge {0, 1} the same way. */
    const mmx_index start[] = {0, 3, 6}, bad[] = {0, 1, 2, 0, 1, 3};
    mmx_mesh *m = from_faces(ctx, 4, 2, start, bad);
    mmx_patch_set *ps = make_set(ctx, m, 0);
    mmx_patch_blocks b;
    cr_assert_eq(mmx_patch_set_blocks(ctx, ps, MMX_PV_VERTEX_FANS, &b), MMX_ERR_MESH);
    cr_assert(strstr(mmx_ctx_error(ctx), "edge") && strstr(mmx_ctx_error(ctx), "{0, 1}"), "%s",
              mmx_ctx_error(ctx));
    /* Faces and edges do not walk fans: taken. */
    MMX_OK_OR_FAIL(ctx, mmx_patch_set_blocks(ctx, ps, MMX_PV_EDGE_FACES, &b));
    MMX_OK_OR_FAIL(ctx, mmx_patch_set_blocks(ctx, ps, 0, &b));
    cr_assert_eq(b.npatches, 1);
    cr_assert_eq(mmx_patch_set_blocks(ctx, ps, MMX_PV_VERTEX_STARS, &b), MMX_ERR_MESH);
    cr_assert_eq(mmx_patch_set_blocks(ctx, ps, 5, &b), MMX_ERR_ARG);
    cr_assert_eq(mmx_patch_set_blocks(ctx, ps, 2, &b), MMX_ERR_ARG);
    cr_assert_eq(mmx_patch_set_blocks(ctx, NULL, 0, &b), MMX_ERR_ARG);
    cr_assert_eq(mmx_patch_set_blocks(ctx, ps, 0, NULL), MMX_ERR_ARG);
    /* The smoothing's and the normals' patch paths refuse the same mesh. */
    float y[12];
    mmx_smooth_options o = mmx_smooth_defaults(MMX_SMOOTH_LAPLACIAN);
    o.path = MMX_SMOOTH_PATCH;
    cr_assert_eq(mmx_smooth(ctx, m, &o, y, NULL), MMX_ERR_MESH);
    cr_assert_eq(mmx_vertex_normals_patch(ctx, m, ps, y), MMX_ERR_MESH);
    mmx_patch_set_free(ps);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* The step by the VV reduction (the patch path before the patch kernels): sums and counts by
 * mmx_patch_reduce, then x + lambda (s / n - x). */
static void step_by_reduce(mmx_ctx *ctx, const mmx_patch_set *ps, mmx_index n, const float *x,
                           const unsigned char *fixed, float lambda, float *out)
{
    float *s = calloc(3 * (size_t)n + 1, sizeof *s), *ones = malloc(((size_t)n + 1) * sizeof *ones);
    float *cnt = calloc((size_t)n + 1, sizeof *cnt);
    cr_assert(s && ones && cnt);
    for (mmx_index v = 0; v < n; v++) ones[v] = 1.0f;
    MMX_OK_OR_FAIL(ctx, mmx_patch_reduce(ctx, ps, MMX_QUERY_VV, ones, 1, cnt));
    MMX_OK_OR_FAIL(ctx, mmx_patch_reduce(ctx, ps, MMX_QUERY_VV, x, 3, s));
    for (mmx_index v = 0; v < n; v++) {
        const float c = (fixed && fixed[v]) || !(cnt[v] > 0.0f) ? 0.0f : 1.0f / cnt[v];
        for (int d = 0; d < 3; d++) {
            const float xv = x[3 * v + d];
            out[3 * v + d] = c == 0.0f ? xv : xv + lambda * (c * s[3 * v + d] - xv);
        }
    }
    free(s), free(ones), free(cnt);
}

Test(patch_kernel, laplacian_step_agrees_with_the_reduction_formula)
{
    mmx_ctx *ctx = tu_host_ctx();
    const char *name = NULL;
    mmx_mesh *m;
    for (int i = 0; (m = mesh_case(ctx, i, &name)) != NULL; i++) {
        const mmx_index n = mmx_mesh_nverts(m);
        mmx_patch_set *ps = make_set(ctx, m, 16);
        unsigned char *fixed = calloc((size_t)n + 1, 1);
        float *a = malloc((3 * (size_t)n + 1) * sizeof *a), *b = malloc((3 * (size_t)n + 1) * sizeof *b);
        cr_assert(fixed && a && b);
        for (mmx_index v = 0; v < n; v += 3) fixed[v] = 1;
        for (int f = 0; f < 2; f++) {
            /* Vertices in no face are not written: both start from the input. */
            memcpy(a, m->pos, 3 * (size_t)n * sizeof *a);
            memcpy(b, m->pos, 3 * (size_t)n * sizeof *b);
            MMX_OK_OR_FAIL(ctx, mmx__patch_laplacian_step(ctx, ps, m->pos, f ? fixed : NULL, 0.37f, a));
            step_by_reduce(ctx, ps, n, m->pos, f ? fixed : NULL, 0.37f, b);
            /* The same sums in another order: equal up to the additions' rounding. */
            for (size_t q = 0; q < 3 * (size_t)n; q++)
                cr_assert(fabsf(a[q] - b[q]) <= 1e-5f * (1.0f + fabsf(b[q])), "%s fixed=%d: component %zu: %g, "
                          "the reduction's %g", name, f, q, (double)a[q], (double)b[q]);
            for (mmx_index v = 0; f && v < n; v += 3)
                cr_assert(memcmp(a + 3 * v, m->pos + 3 * v, 3 * sizeof *a) == 0, "%s: fixed vertex %d moved", name, v);
        }
        free(fixed), free(a), free(b);
        mmx_patch_set_free(ps);
        mmx_mesh_free(m);
    }
    mmx_ctx_free(ctx);
}

/* One face of 30000 corners: the stars find each vertex's corner without searching its face
 * (linear work), the normals are the face's, the step moves each vertex towards the midpoint
 * of its two neighbours. */
static mmx_mesh *big_polygon(mmx_ctx *ctx, mmx_index n)
{
    mmx_index start[2] = {0, n}, *verts = malloc((size_t)n * sizeof *verts);
    float *pos = malloc(3 * (size_t)n * sizeof *pos);
    cr_assert(verts && pos);
    for (mmx_index i = 0; i < n; i++) {
        const double t = 6.283185307179586 * i / n;
        verts[i] = i;
        pos[3 * i] = (float)cos(t), pos[3 * i + 1] = (float)sin(t), pos[3 * i + 2] = 0.01f * (float)(i % 7);
    }
    mmx_mesh *m = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_from_faces(ctx, n, 1, start, verts, pos, &m));
    free(verts), free(pos);
    return m;
}

Test(patch_kernel, a_face_of_30000_corners)
{
    mmx_ctx *ctx = tu_host_ctx();
    const mmx_index n = 30000;
    mmx_mesh *m = big_polygon(ctx, n);
    mmx_patch_set *ps = make_set(ctx, m, 0);
    float *a = malloc(3 * (size_t)n * sizeof *a), *b = malloc(3 * (size_t)n * sizeof *b);
    cr_assert(a && b);
    MMX_OK_OR_FAIL(ctx, mmx_vertex_normals_patch(ctx, m, ps, a));
    MMX_OK_OR_FAIL(ctx, mmx_vertex_normals(ctx, m, MMX_NORMAL_AREA, b));
    for (size_t q = 0; q < 3 * (size_t)n; q++)
        cr_assert(fabsf(a[q] - b[q]) <= 1e-6f, "normal component %zu: %g, the algebraic %g", q, (double)a[q],
                  (double)b[q]);
    MMX_OK_OR_FAIL(ctx, mmx__patch_laplacian_step(ctx, ps, m->pos, NULL, 0.5f, a));
    for (mmx_index v = 0; v < n; v++) {
        const float *x = m->pos, *p = x + 3 * ((v + n - 1) % n), *q = x + 3 * ((v + 1) % n);
        for (int d = 0; d < 3; d++) {
            const float want = x[3 * v + d] + 0.5f * (0.5f * (q[d] + p[d]) - x[3 * v + d]);
            cr_assert(fabsf(a[3 * v + d] - want) <= 1e-6f, "vertex %d: %g, want %g", v, (double)a[3 * v + d],
                      (double)want);
        }
    }
    free(a), free(b);
    mmx_patch_set_free(ps);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* ---- CUDA: a user kernel through patch_kernel.cuh ------------------------------------------ */

#ifdef MMX_HAVE_CUDA
static void *dev_copy(mmx_ctx *d, const void *h, size_t bytes)
{
    void *p = NULL;
    MMX_OK_OR_FAIL(d, mmx_mem_alloc(d, MMX_SPACE_DEVICE, bytes ? bytes : 4, &p));
    if (bytes) MMX_OK_OR_FAIL(d, mmx_mem_copy(d, p, MMX_SPACE_DEVICE, h, MMX_SPACE_HOST, bytes));
    return p;
}

static void to_host(mmx_ctx *d, void *h, const void *p, size_t bytes)
{
    if (bytes) MMX_OK_OR_FAIL(d, mmx_mem_copy(d, h, MMX_SPACE_HOST, p, MMX_SPACE_DEVICE, bytes));
    MMX_OK_OR_FAIL(d, mmx_ctx_sync(d));
}
#endif

Test(patch_kernel, gpu_user_kernel_rows_are_the_query_rows)
{
    mmx_ctx *dctx = tu_cuda_ctx_or_skip();
#ifndef MMX_HAVE_CUDA
    (void)dctx;
#else
    mmx_ctx *hctx = tu_host_ctx();
    const char *name = NULL;
    mmx_mesh *hm;
    for (int i = 0; (hm = mesh_case(hctx, i, &name)) != NULL; i++) {
        ref_rows R;
        ref_make(hctx, hm, &R);
        mmx_mesh *dm = NULL;
        MMX_OK_OR_FAIL(dctx, mmx_mesh_copy(dctx, hm, MMX_SPACE_DEVICE, &dm));
        const int Ss[] = {7, 0};
        for (int j = 0; j < 2; j++) {
            char what[128];
            snprintf(what, sizeof what, "%s S=%d (CUDA)", name, Ss[j]);
            mmx_patch_set *ds = make_set(dctx, dm, Ss[j]);
            tpk_rows h = rows_alloc(&R), d;
            for (int k = 0; k < MMX_QUERY_COUNT; k++) {
                d.rowptr[k] = dev_copy(dctx, R.rowptr[k], ((size_t)R.nrows[k] + 1) * sizeof(mmx_index));
                d.col[k] = dev_copy(dctx, h.col[k], (size_t)R.nnz[k] * sizeof(mmx_index));
                d.count[k] = dev_copy(dctx, h.count[k], (size_t)R.nrows[k] * sizeof(mmx_index));
            }
            MMX_OK_OR_FAIL(dctx, tpk_rows_cuda(dctx, ds, d));
            for (int k = 0; k < MMX_QUERY_COUNT; k++) {
                to_host(dctx, h.col[k], d.col[k], (size_t)R.nnz[k] * sizeof(mmx_index));
                to_host(dctx, h.count[k], d.count[k], (size_t)R.nrows[k] * sizeof(mmx_index));
                mmx_mem_free(dctx, MMX_SPACE_DEVICE, (void *)d.rowptr[k]);
                mmx_mem_free(dctx, MMX_SPACE_DEVICE, d.col[k]);
                mmx_mem_free(dctx, MMX_SPACE_DEVICE, d.count[k]);
            }
            rows_expect(&R, &h, what);
            /* The stars, as multisets. */
            for (int k = 0; k <= MMX_QUERY_VF; k++) {
                d.rowptr[k] = dev_copy(dctx, R.rowptr[k], ((size_t)R.nrows[k] + 1) * sizeof(mmx_index));
                d.col[k] = dev_copy(dctx, h.col[k], (size_t)R.nnz[k] * sizeof(mmx_index));
                d.count[k] = dev_copy(dctx, h.count[k], (size_t)R.nrows[k] * sizeof(mmx_index));
            }
            MMX_OK_OR_FAIL(dctx, tpk_star_rows_cuda(dctx, ds, d));
            for (int k = 0; k <= MMX_QUERY_VF; k++) {
                to_host(dctx, h.col[k], d.col[k], (size_t)R.nnz[k] * sizeof(mmx_index));
                to_host(dctx, h.count[k], d.count[k], (size_t)R.nrows[k] * sizeof(mmx_index));
                mmx_mem_free(dctx, MMX_SPACE_DEVICE, (void *)d.rowptr[k]);
                mmx_mem_free(dctx, MMX_SPACE_DEVICE, d.col[k]);
                mmx_mem_free(dctx, MMX_SPACE_DEVICE, d.count[k]);
            }
            stars_expect(&R, &h, what);
            /* The user's shared bytes: the VV sums of global numbers through a shared copy. */
            const mmx_index nv = mmx_mesh_nverts(hm);
            mmx_index *sums = malloc(((size_t)nv + 1) * sizeof *sums);
            cr_assert(sums);
            memset(sums, 0, ((size_t)nv + 1) * sizeof *sums);
            mmx_index *dsums = dev_copy(dctx, sums, (size_t)nv * sizeof *sums);
            MMX_OK_OR_FAIL(dctx, tpk_vv_sums_cuda(dctx, ds, dsums));
            to_host(dctx, sums, dsums, (size_t)nv * sizeof *sums);
            for (mmx_index v = 0; v < nv; v++) {
                mmx_index want = 0;
                for (mmx_index q = R.rowptr[MMX_QUERY_VV][v]; q < R.rowptr[MMX_QUERY_VV][v + 1]; q++)
                    want += R.col[MMX_QUERY_VV][q];
                cr_assert_eq(sums[v], want, "%s: vertex %d's shared sum %d, want %d", what, v, sums[v], want);
            }
            mmx_mem_free(dctx, MMX_SPACE_DEVICE, dsums);
            free(sums);
            rows_free(&h);
            mmx_patch_set_free(ds);
        }
        mmx_mesh_free(dm);
        ref_free(&R);
        mmx_mesh_free(hm);
    }
    mmx_ctx_free(hctx);
    mmx_ctx_free(dctx);
#endif
}

Test(patch_kernel, gpu_normals_and_laplacian_match_the_host)
{
    mmx_ctx *dctx = tu_cuda_ctx_or_skip();
#ifndef MMX_HAVE_CUDA
    (void)dctx;
#else
    mmx_ctx *hctx = tu_host_ctx();
    const char *name = NULL;
    mmx_mesh *hm;
    for (int i = 0; (hm = mesh_case(hctx, i, &name)) != NULL; i++) {
        const mmx_index n = mmx_mesh_nverts(hm);
        const size_t bytes = 3 * (size_t)n * sizeof(float);
        mmx_mesh *dm = NULL;
        MMX_OK_OR_FAIL(dctx, mmx_mesh_copy(dctx, hm, MMX_SPACE_DEVICE, &dm));
        mmx_patch_set *hs = make_set(hctx, hm, 16), *ds = make_set(dctx, dm, 16);
        float *h = malloc(bytes + 4), *g = malloc(bytes + 4), *g2 = malloc(bytes + 4);
        cr_assert(h && g && g2);
        float *dn = dev_copy(dctx, hm->pos, bytes);
        /* Normals. */
        MMX_OK_OR_FAIL(hctx, mmx_vertex_normals_patch(hctx, hm, hs, h));
        MMX_OK_OR_FAIL(dctx, mmx_vertex_normals_patch(dctx, dm, ds, dn));
        to_host(dctx, g, dn, bytes);
        for (size_t q = 0; q < 3 * (size_t)n; q++)
            cr_assert(fabsf(g[q] - h[q]) <= 2e-6f, "%s: normal component %zu: %g on CUDA, %g on the host",
                      name, q, (double)g[q], (double)h[q]);
        /* Laplacian steps, twice on CUDA: the same bits every run. */
        memcpy(h, hm->pos, bytes);
        MMX_OK_OR_FAIL(hctx, mmx__patch_laplacian_step(hctx, hs, hm->pos, NULL, 0.5f, h));
        for (int run = 0; run < 2; run++) {
            MMX_OK_OR_FAIL(dctx, mmx_mem_copy(dctx, dn, MMX_SPACE_DEVICE, dm->pos, MMX_SPACE_DEVICE, bytes));
            MMX_OK_OR_FAIL(dctx, mmx__patch_laplacian_step(dctx, ds, dm->pos, NULL, 0.5f, dn));
            to_host(dctx, run ? g2 : g, dn, bytes);
        }
        cr_assert(memcmp(g, g2, bytes) == 0, "%s: two CUDA runs differ", name);
        for (size_t q = 0; q < 3 * (size_t)n; q++)
            cr_assert(fabsf(g[q] - h[q]) <= 1e-5f * (1.0f + fabsf(h[q])),
                      "%s: step component %zu: %g on CUDA, %g on the host", name, q, (double)g[q], (double)h[q]);
        mmx_mem_free(dctx, MMX_SPACE_DEVICE, dn);
        free(h), free(g), free(g2);
        mmx_patch_set_free(hs), mmx_patch_set_free(ds);
        mmx_mesh_free(dm), mmx_mesh_free(hm);
    }
    mmx_ctx_free(hctx);
    mmx_ctx_free(dctx);
#endif
}

Test(patch_kernel, gpu_taubin_patch_path_matches_the_host)
{
    mmx_ctx *dctx = tu_cuda_ctx_or_skip();
#ifndef MMX_HAVE_CUDA
    (void)dctx;
#else
    mmx_ctx *hctx = tu_host_ctx();
    mmx_mesh *hm = tu_shape(hctx, "torus:40:30"), *dm = NULL;
    MMX_OK_OR_FAIL(dctx, mmx_mesh_copy(dctx, hm, MMX_SPACE_DEVICE, &dm));
    const mmx_index n = mmx_mesh_nverts(hm);
    const size_t bytes = 3 * (size_t)n * sizeof(float);
    float *h = malloc(bytes), *g = malloc(bytes), *dx = NULL;
    cr_assert(h && g);
    MMX_OK_OR_FAIL(dctx, mmx_mem_alloc(dctx, MMX_SPACE_DEVICE, bytes, (void **)&dx));
    mmx_smooth_options o = mmx_smooth_defaults(MMX_SMOOTH_TAUBIN);
    o.path = MMX_SMOOTH_PATCH;
    o.iterations = 25;
    MMX_OK_OR_FAIL(hctx, mmx_smooth(hctx, hm, &o, h, NULL));
    MMX_OK_OR_FAIL(dctx, mmx_smooth(dctx, dm, &o, dx, NULL));
    to_host(dctx, g, dx, bytes);
    for (size_t q = 0; q < 3 * (size_t)n; q++)
        cr_assert(fabsf(g[q] - h[q]) <= 1e-4f * (1.0f + fabsf(h[q])), "component %zu: %g on CUDA, %g on the host",
                  q, (double)g[q], (double)h[q]);
    mmx_mem_free(dctx, MMX_SPACE_DEVICE, dx);
    free(h), free(g);
    mmx_mesh_free(dm), mmx_mesh_free(hm);
    mmx_ctx_free(hctx);
    mmx_ctx_free(dctx);
#endif
}

Test(patch_kernel, gpu_a_patch_beyond_shared_memory_runs_in_global_scratch)
{
    mmx_ctx *dctx = tu_cuda_ctx_or_skip();
#ifndef MMX_HAVE_CUDA
    (void)dctx;
#else
    mmx_ctx *hctx = tu_host_ctx();
    /* One face of 30000 corners: its work space (about 0.7 MB) exceeds any block's shared
     * memory, so the launch falls back to slices of global scratch. */
    const mmx_index n = 30000;
    mmx_mesh *hm = big_polygon(hctx, n), *dm = NULL;
    const float *pos = hm->pos;
    MMX_OK_OR_FAIL(dctx, mmx_mesh_copy(dctx, hm, MMX_SPACE_DEVICE, &dm));
    mmx_patch_set *hs = make_set(hctx, hm, 0), *ds = make_set(dctx, dm, 0);
    const size_t bytes = 3 * (size_t)n * sizeof(float);
    float *h = malloc(bytes), *g = malloc(bytes), *dn = dev_copy(dctx, pos, bytes);
    cr_assert(h && g);
    MMX_OK_OR_FAIL(hctx, mmx_vertex_normals_patch(hctx, hm, hs, h));
    MMX_OK_OR_FAIL(dctx, mmx_vertex_normals_patch(dctx, dm, ds, dn));
    to_host(dctx, g, dn, bytes);
    for (size_t q = 0; q < 3 * (size_t)n; q++)
        cr_assert(fabsf(g[q] - h[q]) <= 1e-5f, "normal component %zu: %g on CUDA, %g on the host", q,
                  (double)g[q], (double)h[q]);
    MMX_OK_OR_FAIL(hctx, mmx__patch_laplacian_step(hctx, hs, pos, NULL, 0.5f, h));
    MMX_OK_OR_FAIL(dctx, mmx__patch_laplacian_step(dctx, ds, dm->pos, NULL, 0.5f, dn));
    to_host(dctx, g, dn, bytes);
    for (size_t q = 0; q < 3 * (size_t)n; q++)
        cr_assert(fabsf(g[q] - h[q]) <= 1e-5f, "step component %zu: %g on CUDA, %g on the host", q,
                  (double)g[q], (double)h[q]);
    mmx_mem_free(dctx, MMX_SPACE_DEVICE, dn);
    free(h), free(g);
    mmx_patch_set_free(hs), mmx_patch_set_free(ds);
    mmx_mesh_free(dm), mmx_mesh_free(hm);
    mmx_ctx_free(hctx);
    mmx_ctx_free(dctx);
#endif
}

/* The kept rows made on CUDA are the host's, byte for byte (the sets are: test_patch), for
 * every mesh and two patch sizes. */
Test(patch_kernel, gpu_kept_rows_are_the_hosts)
{
    mmx_ctx *dctx = tu_cuda_ctx_or_skip();
#ifndef MMX_HAVE_CUDA
    (void)dctx;
#else
    mmx_ctx *hctx = tu_host_ctx();
    const char *name = NULL;
    mmx_mesh *hm;
    for (int i = 0; (hm = mesh_case(hctx, i, &name)) != NULL; i++) {
        mmx_mesh *dm = NULL;
        MMX_OK_OR_FAIL(dctx, mmx_mesh_copy(dctx, hm, MMX_SPACE_DEVICE, &dm));
        const int Ss[] = {7, 0};
        for (int j = 0; j < 2; j++) {
            mmx_patch_set *hs = make_set(hctx, hm, Ss[j]), *ds = make_set(dctx, dm, Ss[j]);
            mmx_patch_blocks h, d;
            const mmx_status sh = mmx_patch_set_blocks(hctx, hs, MMX_PV_KEPT_ROWS, &h);
            const mmx_status sd = mmx_patch_set_blocks(dctx, ds, MMX_PV_KEPT_ROWS, &d);
            cr_assert_eq(sd, sh, "%s S=%d: CUDA %d, host %d", name, Ss[j], (int)sd, (int)sh);
            if (sh == MMX_OK) {
                const size_t np = (size_t)h.npatches + 1, nv = (size_t)h.nverts + 1;
                const size_t nvv = (size_t)h.vv_ptr[nv - 1], nvf = (size_t)h.vf_ptr[nv - 1];
                mmx_index *off = malloc(np * 4), *pvv = malloc(nv * 4), *pvf = malloc(nv * 4);
                uint16_t *vv = malloc(nvv * 2 + 2), *vf = malloc(nvf * 2 + 2);
                cr_assert(off && pvv && pvf && vv && vf);
                to_host(dctx, off, d.owned_off, np * 4);
                to_host(dctx, pvv, d.vv_ptr, nv * 4);
                to_host(dctx, pvf, d.vf_ptr, nv * 4);
                to_host(dctx, vv, d.vv, nvv * 2);
                to_host(dctx, vf, d.vf, nvf * 2);
                cr_assert(!memcmp(off, h.owned_off, np * 4), "%s S=%d: owned offsets", name, Ss[j]);
                cr_assert(!memcmp(pvv, h.vv_ptr, nv * 4) && !memcmp(pvf, h.vf_ptr, nv * 4),
                          "%s S=%d: row offsets", name, Ss[j]);
                cr_assert(!memcmp(vv, h.vv, nvv * 2) && !memcmp(vf, h.vf, nvf * 2), "%s S=%d: rows", name, Ss[j]);
                free(off), free(pvv), free(pvf), free(vv), free(vf);
            }
            mmx_patch_set_free(hs), mmx_patch_set_free(ds);
        }
        mmx_mesh_free(dm), mmx_mesh_free(hm);
    }
    mmx_ctx_free(hctx);
    mmx_ctx_free(dctx);
#endif
}
