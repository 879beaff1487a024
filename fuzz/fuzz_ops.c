/* libFuzzer target for what runs on a mesh once it is read: the first-order queries, the patch
 * set, geometry, smoothing, Delaunay flips and remeshing. The input is an OBJ file after one control byte,
 * which picks the patch size S (1 + byte % 64, so that small meshes still make many patches
 * and ribbons). On the host:
 *   - every query by the algebra, on the patches and by a query plan: all succeed or all fail
 *     with the same status, and on success the same rows (query.h: the paths give the same
 *     arrays);
 *   - the patch set is built or refused with a sentence (never MMX_ERR_INTERNAL);
 *   - normals, vertex areas, the Laplacians, a Taubin step and a mean curvature flow step run
 *     or refuse with a sentence;
 *   - every operator of mmx_operator is refused or has the mesh's sizes, the same bits on a
 *     second call (the mesh's cache); triangulation is refused or gives sum(c - 2) triangles
 *     on the input's vertices;
 *   - Delaunay flips on a triangle mesh that mmx_mesh_validate finds valid give a mesh it still
 *     finds valid, with the same vertex count; so does one iteration of isotropic remeshing,
 *     validated after every round.
 * Anything else aborts. Inputs above a few thousand corners are skipped to keep runs fast. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "meshmatrix.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MAX_CORNERS = 4096 };

/* A refusal is a status with a sentence; MMX_ERR_INTERNAL says two checks disagree. */
static void sound(mmx_status s)
{
    if (s == MMX_ERR_INTERNAL) abort();
}

static int same_rows(const mmx_csr *a, const mmx_csr *b)
{
    if (a->nrows != b->nrows || a->ncols != b->ncols || a->nnz != b->nnz || a->order != b->order)
        return 0;
    if (!a->order && memcmp(a->rowptr, b->rowptr, ((size_t)a->nrows + 1) * sizeof *a->rowptr))
        return 0;
    return a->nnz == 0 || !memcmp(a->colidx, b->colidx, (size_t)a->nnz * sizeof *a->colidx);
}

static void queries(mmx_ctx *ctx, const mmx_mesh *m, const mmx_adjacency *adj, const mmx_patch_set *ps)
{
    mmx_query_plan *plan = NULL;
    const mmx_status sp = mmx_query_plan_create(ctx, m, adj, &plan);
    sound(sp);
    for (int k = 0; k < MMX_QUERY_COUNT; k++) {
        mmx_csr *a = NULL, *b = NULL, *c = NULL;
        const mmx_status sa = mmx_query(ctx, m, adj, (mmx_query_kind)k, &a);
        const mmx_status sb = mmx_patch_query(ctx, ps, (mmx_query_kind)k, &b);
        sound(sa), sound(sb);
        if (sa != sb || (!sa && !same_rows(a, b))) abort();
        if (!sa) {
            /* the patch rows again into a's arrays (mmx_patch_query_run): a's rows again */
            mmx_csr *d = NULL;
            if (mmx_patch_query(ctx, ps, (mmx_query_kind)k, &d)) abort();
            if (d->nnz) memset((void *)d->colidx, 0xff, (size_t)d->nnz * sizeof *d->colidx);
            if (mmx_patch_query_run(ctx, ps, (mmx_query_kind)k, d) || !same_rows(a, d)) abort();
            mmx_csr_free(d);
        }
        if (!sp) {
            /* the plan path: the same status and rows as mmx_query */
            mmx_status sc = mmx_query_plan_alloc(ctx, plan, (mmx_query_kind)k, &c);
            if (!sc) sc = mmx_query_plan_run(ctx, plan, (mmx_query_kind)k, c);
            sound(sc);
            if (sc != sa || (!sa && !same_rows(a, c))) abort();
        }
        mmx_csr_free(a);
        mmx_csr_free(b);
        mmx_csr_free(c);
    }
    mmx_query_plan_free(plan);
}

static void geometry(mmx_ctx *ctx, const mmx_mesh *m)
{
    const size_t nv = (size_t)m->M->nrows;
    float *n = malloc(3 * nv * sizeof *n + 1), *area = malloc(nv * sizeof *area + 1);
    if (!n || !area) abort();
    for (int w = 0; w < 3; w++) sound(mmx_vertex_normals(ctx, m, (mmx_normal_weight)w, n));
    sound(mmx_vertex_areas(ctx, m, MMX_MASS_BARYCENTRIC, area));
    sound(mmx_vertex_areas(ctx, m, MMX_MASS_VORONOI, area));
    mmx_weighted *L = NULL;
    sound(mmx_cotan_laplacian(ctx, m, NULL, &L));
    mmx_weighted_free(L);
    L = NULL;
    sound(mmx_uniform_laplacian(ctx, m, NULL, &L));
    mmx_weighted_free(L);
    static const mmx_smooth_method methods[] = {MMX_SMOOTH_TAUBIN, MMX_SMOOTH_MCF};
    for (int i = 0; i < 2; i++) {
        mmx_smooth_options o = mmx_smooth_defaults(methods[i]);
        o.iterations = 1;
        o.cg_max_iter = 50;
        mmx_smooth_report r;
        sound(mmx_smooth(ctx, m, &o, n, &r));
    }
    free(n);
    free(area);
}

/* The operators as matrices (mmx_operator, the valued products): each kind either refused
 * with a status or a matrix of the mesh's sizes; a second call on the same mesh (the cache
 * kept with it) gives the same pattern and bits. */
static void operators(mmx_ctx *ctx, const mmx_mesh *m)
{
    for (int k = MMX_OPERATOR_ADJACENCY; k <= MMX_OPERATOR_FE; k++) {
        mmx_csc *A = NULL, *B = NULL;
        const mmx_status sa = mmx_operator(ctx, m, NULL, (mmx_operator_kind)k, &A);
        const mmx_status sb = mmx_operator(ctx, m, NULL, (mmx_operator_kind)k, &B);
        sound(sa);
        if (sa != sb || (sa && (A || B))) abort();
        if (!sa) {
            if (!A || !B || (A->nnz && !A->x) || A->nnz != B->nnz || A->nrows != B->nrows || A->ncols != B->ncols)
                abort();
            if (A->nnz && (memcmp(A->rowidx, B->rowidx, (size_t)A->nnz * sizeof *A->rowidx) ||
                           memcmp(A->x, B->x, (size_t)A->nnz * sizeof *A->x)))
                abort();
        }
        mmx_csc_free(A);
        mmx_csc_free(B);
    }
}

/* Triangulation: refused with a status, or triangles only, sum(c - 2) of them, every corner
 * an input vertex. */
static void triangulate(mmx_ctx *ctx, const mmx_mesh *m)
{
    mmx_mesh *t = NULL;
    const mmx_status s = mmx_mesh_triangulate(ctx, m, &t);
    sound(s);
    if (s) {
        if (t) abort();
        return;
    }
    const int64_t want = (int64_t)m->M->nnz - 2 * (int64_t)m->M->ncols;
    if (mmx_mesh_nverts(t) != mmx_mesh_nverts(m) || (int64_t)mmx_mesh_nfaces(t) != want ||
        (int64_t)t->M->nnz != 3 * want)
        abort();
    for (mmx_index i = 0; i < t->M->nnz; i++)
        if (t->M->rowidx[i] < 0 || t->M->rowidx[i] >= t->M->nrows) abort();
    mmx_mesh_free(t);
}

static void delaunay(mmx_ctx *ctx, const mmx_mesh *m)
{
    mmx_mesh_validation v;
    if (mmx_mesh_validate(ctx, m, NULL, &v) != MMX_OK || !v.valid) return;
    mmx_mesh *out = NULL;
    mmx_delaunay_report rep;
    const mmx_status s = mmx_delaunay_flip(ctx, m, &out, &rep);
    sound(s);
    if (!s) {
        mmx_mesh_validation w;
        if (mmx_mesh_validate(ctx, out, NULL, &w) != MMX_OK || !w.valid) abort();
        if (out->M->nrows != m->M->nrows || out->M->ncols != m->M->ncols) abort();
    }
    mmx_mesh_free(out);
}

/* One iteration of isotropic remeshing with the validator after every round: a round that
 * breaks a valid mesh is MMX_ERR_INTERNAL (abort); the result must be valid. */
static void remesh(mmx_ctx *ctx, const mmx_mesh *m)
{
    mmx_mesh_validation v;
    if (mmx_mesh_validate(ctx, m, NULL, &v) != MMX_OK || !v.valid) return;
    mmx_remesh_options o = mmx_remesh_defaults();
    o.iterations = 1;
    o.validate = 1;
    mmx_mesh *out = NULL;
    const mmx_status s = mmx_remesh(ctx, m, &o, &out, NULL);
    sound(s);
    if (!s) {
        mmx_mesh_validation w;
        if (mmx_mesh_validate(ctx, out, NULL, &w) != MMX_OK || !w.valid) abort();
    }
    mmx_mesh_free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    mmx_ctx *ctx = NULL;
    if (mmx_ctx_create(&ctx)) return 0;
    mmx_mesh *m = NULL;
    if (mmx_mesh_read_mem(ctx, "fuzz.obj", data + 1, size - 1, MMX_FORMAT_OBJ, &m) != MMX_OK ||
        !m->pos || m->M->nnz > MAX_CORNERS) {
        mmx_mesh_free(m);
        mmx_ctx_free(ctx);
        return 0;
    }
    mmx_adjacency *adj = NULL;
    if (mmx_adjacency_compute(ctx, m, &adj)) abort();
    mmx_patch_options po = {1 + data[0] % 64};
    mmx_patch_set *ps = NULL;
    const mmx_status s = mmx_patch_set_create(ctx, m, adj, &po, &ps);
    sound(s);
    if (!s) queries(ctx, m, adj, ps);
    mmx_patch_set_free(ps);
    mmx_adjacency_free(adj);
    geometry(ctx, m);
    operators(ctx, m);
    triangulate(ctx, m);
    delaunay(ctx, m);
    remesh(ctx, m);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
    return 0;
}
