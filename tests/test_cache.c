/* Criterion suite "cache": what mmx_query, mmx_vertex_normals and mmx_smooth keep with the mesh
 * (mesh.h). Each cached call against the same call on a fresh copy of the mesh (whose cache is
 * empty, so it computes everything) or with the caller's own adjacency (which bypasses the
 * cache): the same arrays bit for bit on the first call, the second, after the positions
 * change, after the calls that change M in place (mmx_mesh_reduce, mmx_mesh_expand) and on new
 * meshes from edits (mmx_mesh_permute); the memory reported, and none after the release; calls
 * on another context or through a view with another M leave the cache alone. Then CUDA, cached
 * on the device, against the host. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"

/* The host arrays of a query result (the copies are the caller's). */
typedef struct qres {
    mmx_index nrows, ncols, nnz, order;
    mmx_index *rowptr, *colidx;
} qres;

static qres to_host(mmx_ctx *ctx, const mmx_csr *R)
{
    qres q = {R->nrows, R->ncols, R->nnz, R->order, NULL, NULL};
    const size_t ix = sizeof(mmx_index);
    q.colidx = malloc((size_t)R->nnz * ix + ix);
    cr_assert(q.colidx);
    if (R->nnz)
        MMX_OK_OR_FAIL(ctx, mmx_mem_copy(ctx, q.colidx, MMX_SPACE_HOST, R->colidx, R->space, (size_t)R->nnz * ix));
    if (!R->order) {
        q.rowptr = malloc(((size_t)R->nrows + 1) * ix);
        cr_assert(q.rowptr);
        MMX_OK_OR_FAIL(ctx, mmx_mem_copy(ctx, q.rowptr, MMX_SPACE_HOST, R->rowptr, R->space,
                                         ((size_t)R->nrows + 1) * ix));
    }
    return q;
}

static void qres_free(qres *q)
{
    free(q->rowptr);
    free(q->colidx);
}

/* Query `kind` of mesh on ctx with adj (NULL: the cache), as host arrays. */
static qres query(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_adjacency *adj, mmx_query_kind kind)
{
    mmx_csr *R = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_query(ctx, mesh, adj, kind, &R));
    qres q = to_host(ctx, R);
    mmx_csr_free(R);
    return q;
}

static void expect_same(const qres *a, const qres *b, const char *what, const char *kind)
{
    cr_assert_eq(a->nrows, b->nrows, "%s %s: nrows", what, kind);
    cr_assert_eq(a->ncols, b->ncols, "%s %s: ncols", what, kind);
    cr_assert_eq(a->nnz, b->nnz, "%s %s: nnz", what, kind);
    cr_assert_eq(a->order, b->order, "%s %s: order", what, kind);
    if (a->nnz) cr_assert_arr_eq(a->colidx, b->colidx, (size_t)a->nnz * sizeof(mmx_index), "%s %s: colidx", what, kind);
    if (!a->order)
        cr_assert_arr_eq(a->rowptr, b->rowptr, ((size_t)a->nrows + 1) * sizeof(mmx_index), "%s %s: rowptr",
                         what, kind);
}

/* Every query of mesh by the cache (twice) against the same query with an adjacency of the
 * caller's (the uncached path), on ctx. */
static void queries_match(mmx_ctx *ctx, const mmx_mesh *mesh, const char *what)
{
    mmx_adjacency *adj = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_adjacency_compute(ctx, mesh, &adj));
    for (int round = 0; round < 2; round++)
        for (int k = 0; k < MMX_QUERY_COUNT; k++) {
            const mmx_query_kind kind = (mmx_query_kind)k;
            qres want = query(ctx, mesh, adj, kind), got = query(ctx, mesh, NULL, kind);
            expect_same(&got, &want, what, mmx_query_name(kind));
            qres_free(&want);
            qres_free(&got);
        }
    mmx_adjacency_free(adj);
}

Test(cache, queries_first_and_second_call_match_the_uncached_path)
{
    mmx_ctx *ctx = tu_host_ctx();
    const char *shapes[] = {"icosphere:2", "torus:7:5", "grid:9:8", "mixed", "tetrahedron"};
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        mmx_mesh *m = tu_shape(ctx, shapes[i]);
        cr_assert_eq(mmx_mesh_cache_bytes(m), 0, "%s: a new mesh keeps nothing", shapes[i]);
        queries_match(ctx, m, shapes[i]);
        cr_assert_gt(mmx_mesh_cache_bytes(m), 0, "%s: the adjacency and the results are kept", shapes[i]);
        mmx_mesh_release_cache(m);
        cr_assert_eq(mmx_mesh_cache_bytes(m), 0, "%s: released", shapes[i]);
        queries_match(ctx, m, shapes[i]); /* built again */
        mmx_mesh_free(m);
    }
    mmx_ctx_free(ctx);
}

Test(cache, a_result_is_the_callers_to_change_and_free)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = tu_shape(ctx, "torus:6:5");
    qres want = query(ctx, m, NULL, MMX_QUERY_VV);
    mmx_csr *R = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_query(ctx, m, NULL, MMX_QUERY_VV, &R));
    /* Scribbled over (a host result) and freed: the next call is still right. */
    memset((void *)R->colidx, 0xff, (size_t)R->nnz * sizeof *R->colidx);
    memset((void *)R->rowptr, 0, ((size_t)R->nrows + 1) * sizeof *R->rowptr);
    mmx_csr_free(R);
    qres got = query(ctx, m, NULL, MMX_QUERY_VV);
    expect_same(&got, &want, "after a scribble", "VV");
    qres_free(&got);
    qres_free(&want);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(cache, the_query_cache_holds_the_adjacency_then_the_results)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = tu_shape(ctx, "icosphere:2");
    mmx_csr *R = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_query(ctx, m, NULL, MMX_QUERY_FV, &R));
    mmx_csr_free(R);
    const size_t adj_only = mmx_mesh_cache_bytes(m);
    cr_assert_gt(adj_only, 0, "FV keeps the adjacency");
    MMX_OK_OR_FAIL(ctx, mmx_query(ctx, m, NULL, MMX_QUERY_VV, &R));
    mmx_csr_free(R);
    cr_assert_gt(mmx_mesh_cache_bytes(m), adj_only, "VV keeps its result beside it");
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(cache, an_inconsistent_mesh_is_refused_with_the_cache_as_without)
{
    mmx_ctx *ctx = tu_host_ctx();
    /* Two triangles that run their shared edge {1, 2} the same way. */
    const mmx_index verts[] = {0, 1, 2, 1, 2, 3};
    mmx_mesh *m = tu_triangles(ctx, 4, 2, verts, NULL);
    mmx_adjacency *adj = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_adjacency_compute(ctx, m, &adj));
    for (int round = 0; round < 2; round++) {
        mmx_csr *R = NULL;
        cr_assert_eq(mmx_query(ctx, m, adj, MMX_QUERY_VV, &R), MMX_ERR_MESH);
        char want[512];
        snprintf(want, sizeof want, "%s", mmx_ctx_error(ctx));
        cr_assert_eq(mmx_query(ctx, m, NULL, MMX_QUERY_VV, &R), MMX_ERR_MESH);
        cr_assert_null(R);
        cr_assert_str_eq(mmx_ctx_error(ctx), want, "round %d: the same sentence", round);
        /* The other kinds still come from the cache. */
        qres a = query(ctx, m, adj, MMX_QUERY_FF), b = query(ctx, m, NULL, MMX_QUERY_FF);
        expect_same(&b, &a, "inconsistent", "FF");
        qres_free(&a);
        qres_free(&b);
    }
    mmx_adjacency_free(adj);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* Moves every position by a deterministic amount (a positions-only change). */
static void perturb(float *pos, mmx_index n, float amount)
{
    uint32_t seed = 7;
    for (size_t i = 0; i < 3 * (size_t)n; i++) pos[i] += amount * ((float)(tu_rng(&seed) % 1000) / 1000.0f - 0.5f);
}

/* The normals (host array) of a fresh copy of mesh: its cache empty, so the transpose is made. */
static float *fresh_normals(mmx_ctx *ctx, const mmx_mesh *mesh, mmx_normal_weight w)
{
    mmx_mesh *c = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_copy(ctx, mesh, MMX_SPACE_HOST, &c));
    float *n = malloc(3 * (size_t)mmx_mesh_nverts(c) * sizeof *n + 4);
    cr_assert(n);
    MMX_OK_OR_FAIL(ctx, mmx_vertex_normals(ctx, c, w, n));
    mmx_mesh_free(c);
    return n;
}

Test(cache, normals_follow_the_positions_with_the_cached_transpose)
{
    mmx_ctx *ctx = tu_host_ctx();
    const char *shapes[] = {"icosphere:2", "grid:9:8", "mixed"};
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        mmx_mesh *m = tu_shape(ctx, shapes[i]);
        const mmx_index n = mmx_mesh_nverts(m);
        const size_t bytes = 3 * (size_t)n * sizeof(float);
        float *a = malloc(bytes), *b = malloc(bytes);
        cr_assert(a && b);
        for (int w = 0; w < 3; w++) {
            MMX_OK_OR_FAIL(ctx, mmx_vertex_normals(ctx, m, (mmx_normal_weight)w, a));
            cr_assert_gt(mmx_mesh_cache_bytes(m), 0, "%s: the transpose is kept", shapes[i]);
            MMX_OK_OR_FAIL(ctx, mmx_vertex_normals(ctx, m, (mmx_normal_weight)w, b));
            cr_assert_arr_eq(a, b, bytes, "%s weight %d: first and second call", shapes[i], w);
            float *want = fresh_normals(ctx, m, (mmx_normal_weight)w);
            cr_assert_arr_eq(b, want, bytes, "%s weight %d: against a fresh mesh", shapes[i], w);
            free(want);
        }
        const size_t kept = mmx_mesh_cache_bytes(m);
        perturb(m->pos, n, 0.2f);
        cr_assert_eq(mmx_mesh_cache_bytes(m), kept, "%s: positions keep the cache", shapes[i]);
        MMX_OK_OR_FAIL(ctx, mmx_vertex_normals(ctx, m, MMX_NORMAL_AREA, b));
        float *want = fresh_normals(ctx, m, MMX_NORMAL_AREA);
        cr_assert_arr_eq(b, want, bytes, "%s: the new positions' normals", shapes[i]);
        int moved = 0;
        for (size_t q = 0; q < 3 * (size_t)n; q++) moved |= a[q] != b[q];
        cr_assert(moved, "%s: the normals changed with the positions", shapes[i]);
        free(want);
        free(a);
        free(b);
        mmx_mesh_free(m);
    }
    mmx_ctx_free(ctx);
}

/* One smoothing of mesh (host) by o into a new array. */
static float *smoothed(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_smooth_options *o)
{
    float *x = malloc(3 * (size_t)mmx_mesh_nverts(mesh) * sizeof *x + 4);
    cr_assert(x);
    MMX_OK_OR_FAIL(ctx, mmx_smooth(ctx, mesh, o, x, NULL));
    return x;
}

static float *fresh_smoothed(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_smooth_options *o)
{
    mmx_mesh *c = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_copy(ctx, mesh, MMX_SPACE_HOST, &c));
    float *x = smoothed(ctx, c, o);
    mmx_mesh_free(c);
    return x;
}

Test(cache, smoothing_with_the_cached_laplacian_equals_a_fresh_one)
{
    mmx_ctx *ctx = tu_host_ctx();
    const char *shapes[] = {"icosphere:2", "grid:9:8", "mixed"};
    const mmx_smooth_method methods[] = {MMX_SMOOTH_LAPLACIAN, MMX_SMOOTH_TAUBIN, MMX_SMOOTH_COTAN,
                                         MMX_SMOOTH_BILATERAL};
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        mmx_mesh *m = tu_shape(ctx, shapes[i]);
        const mmx_index n = mmx_mesh_nverts(m);
        const size_t bytes = 3 * (size_t)n * sizeof(float);
        const int tris = strcmp(shapes[i], "icosphere:2") == 0;
        for (size_t k = 0; k < sizeof methods / sizeof *methods; k++) {
            if (methods[k] == MMX_SMOOTH_COTAN && !tris) continue;
            for (int fix = 0; fix < 2; fix++) {
                mmx_smooth_options o = mmx_smooth_defaults(methods[k]);
                o.iterations = 1 + (int)k % 2;
                o.fix_boundary = fix;
                float *a = smoothed(ctx, m, &o), *b = smoothed(ctx, m, &o);
                cr_assert_arr_eq(a, b, bytes, "%s %s fix %d: first and second call", shapes[i],
                                 mmx_smooth_method_name(methods[k]), fix);
                float *want = fresh_smoothed(ctx, m, &o);
                cr_assert_arr_eq(b, want, bytes, "%s %s fix %d: against a fresh mesh", shapes[i],
                                 mmx_smooth_method_name(methods[k]), fix);
                free(want);
                free(a);
                free(b);
            }
        }
        cr_assert_gt(mmx_mesh_cache_bytes(m), 0, "%s: kept", shapes[i]);
        /* Smoothing in place changes the positions only: the next call reads them. */
        mmx_smooth_options o = mmx_smooth_defaults(MMX_SMOOTH_LAPLACIAN);
        o.iterations = 1;
        float *before = malloc(bytes);
        cr_assert(before);
        memcpy(before, m->pos, bytes);
        MMX_OK_OR_FAIL(ctx, mmx_smooth(ctx, m, &o, m->pos, NULL));
        int moved = 0;
        for (size_t q = 0; q < 3 * (size_t)n; q++) moved |= before[q] != m->pos[q];
        cr_assert(moved, "%s: in place, the positions moved", shapes[i]);
        float *got = smoothed(ctx, m, &o), *want = fresh_smoothed(ctx, m, &o);
        cr_assert_arr_eq(got, want, bytes, "%s: a step from the smoothed positions", shapes[i]);
        free(got);
        free(want);
        free(before);
        mmx_mesh_release_cache(m);
        cr_assert_eq(mmx_mesh_cache_bytes(m), 0);
        mmx_mesh_free(m);
    }
    mmx_ctx_free(ctx);
}

/* The explicit steps read the input where it is and land in out without a copy (whatever the
 * parity of the steps): out of place, in place and 0 steps give the same positions, and the
 * mesh's positions are left alone out of place. */
Test(cache, explicit_steps_in_place_and_out_of_place_agree)
{
    mmx_ctx *ctx = tu_host_ctx();
    const mmx_smooth_method methods[] = {MMX_SMOOTH_LAPLACIAN, MMX_SMOOTH_TAUBIN, MMX_SMOOTH_COTAN};
    for (size_t k = 0; k < 3; k++)
        for (int iters = 0; iters < 4; iters++) {
            mmx_mesh *m = tu_shape(ctx, "icosphere:2"), *c = NULL;
            MMX_OK_OR_FAIL(ctx, mmx_mesh_copy(ctx, m, MMX_SPACE_HOST, &c));
            const size_t bytes = 3 * (size_t)mmx_mesh_nverts(m) * sizeof(float);
            mmx_smooth_options o = mmx_smooth_defaults(methods[k]);
            o.iterations = iters;
            float *x = malloc(bytes);
            cr_assert(x);
            memset(x, 0x7f, bytes);
            mmx_smooth_report r;
            MMX_OK_OR_FAIL(ctx, mmx_smooth(ctx, m, &o, x, &r));
            cr_assert_eq(r.iterations, iters);
            cr_assert_arr_eq(m->pos, c->pos, bytes, "%s %d: the input is left alone",
                             mmx_smooth_method_name(methods[k]), iters);
            MMX_OK_OR_FAIL(ctx, mmx_smooth(ctx, c, &o, c->pos, NULL));
            cr_assert_arr_eq(x, c->pos, bytes, "%s %d: in place and out of place",
                             mmx_smooth_method_name(methods[k]), iters);
            if (iters == 0) cr_assert_arr_eq(x, m->pos, bytes, "0 steps: the input");
            free(x);
            mmx_mesh_free(c);
            mmx_mesh_free(m);
        }
    mmx_ctx_free(ctx);
}

Test(cache, the_patch_path_keeps_its_default_set)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = tu_shape(ctx, "torus:12:9");
    const size_t bytes = 3 * (size_t)mmx_mesh_nverts(m) * sizeof(float);
    mmx_smooth_options o = mmx_smooth_defaults(MMX_SMOOTH_TAUBIN);
    o.path = MMX_SMOOTH_PATCH;
    o.iterations = 2;
    float *a = smoothed(ctx, m, &o);
    const size_t kept = mmx_mesh_cache_bytes(m);
    cr_assert_gt(kept, 0);
    float *b = smoothed(ctx, m, &o), *want = fresh_smoothed(ctx, m, &o);
    cr_assert_eq(mmx_mesh_cache_bytes(m), kept, "the second call adds nothing");
    cr_assert_arr_eq(a, b, bytes, "first and second call");
    cr_assert_arr_eq(b, want, bytes, "against a fresh mesh");
    free(a);
    free(b);
    free(want);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* The Laplacians, the mean curvature normal and the reordering take the cached adjacency:
 * the same arrays as with the caller's. */
Test(cache, laplacians_curvature_and_reorder_use_the_cached_adjacency)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = tu_shape(ctx, "icosphere:2");
    mmx_adjacency *adj = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_adjacency_compute(ctx, m, &adj));
    for (int round = 0; round < 2; round++) {
        for (int cot = 0; cot < 2; cot++) {
            mmx_weighted *a = NULL, *b = NULL;
            MMX_OK_OR_FAIL(ctx, cot ? mmx_cotan_laplacian(ctx, m, adj, &a) : mmx_uniform_laplacian(ctx, m, adj, &a));
            MMX_OK_OR_FAIL(ctx, cot ? mmx_cotan_laplacian(ctx, m, NULL, &b) : mmx_uniform_laplacian(ctx, m, NULL, &b));
            cr_assert_eq(a->A->nnz, b->A->nnz);
            cr_assert_arr_eq(a->A->rowidx, b->A->rowidx, (size_t)a->A->nnz * sizeof(mmx_index));
            cr_assert_arr_eq(a->A->colptr, b->A->colptr, ((size_t)a->A->ncols + 1) * sizeof(mmx_index));
            cr_assert_arr_eq(a->w, b->w, (size_t)a->A->nnz * sizeof(float), "round %d cot %d", round, cot);
            mmx_weighted_free(a);
            mmx_weighted_free(b);
        }
        cr_assert_gt(mmx_mesh_cache_bytes(m), 0);
        const size_t bytes = 3 * (size_t)mmx_mesh_nverts(m) * sizeof(float);
        float *x = malloc(bytes), *y = malloc(bytes);
        cr_assert(x && y);
        MMX_OK_OR_FAIL(ctx, mmx_mean_curvature_normal(ctx, m, adj, MMX_MASS_VORONOI, x));
        MMX_OK_OR_FAIL(ctx, mmx_mean_curvature_normal(ctx, m, NULL, MMX_MASS_VORONOI, y));
        cr_assert_arr_eq(x, y, bytes, "round %d: mean curvature normal", round);
        free(x);
        free(y);
        mmx_mesh_release_cache(m);
        mmx_mesh *r1 = NULL, *r2 = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_mesh_reorder(ctx, m, NULL, NULL, &r1));
        cr_assert_gt(mmx_mesh_cache_bytes(m), 0, "the reordering keeps the source's adjacency");
        MMX_OK_OR_FAIL(ctx, mmx_mesh_reorder(ctx, m, NULL, NULL, &r2));
        cr_assert_arr_eq(r1->M->rowidx, r2->M->rowidx, (size_t)r1->M->nnz * sizeof(mmx_index));
        mmx_mesh_free(r1);
        mmx_mesh_free(r2);
    }
    mmx_adjacency_free(adj);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(cache, reduce_and_expand_drop_the_cache_and_results_stay_right)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = tu_shape(ctx, "icosphere:2");
    const mmx_index n = mmx_mesh_nverts(m);
    const size_t bytes = 3 * (size_t)n * sizeof(float);
    float *x = malloc(bytes);
    cr_assert(x);
    for (int step = 0; step < 3; step++) {
        queries_match(ctx, m, step == 1 ? "reduced" : "general");
        MMX_OK_OR_FAIL(ctx, mmx_vertex_normals(ctx, m, MMX_NORMAL_ANGLE, x));
        float *want = fresh_normals(ctx, m, MMX_NORMAL_ANGLE);
        cr_assert_arr_eq(x, want, bytes, "step %d: normals", step);
        free(want);
        mmx_smooth_options o = mmx_smooth_defaults(MMX_SMOOTH_LAPLACIAN);
        o.iterations = 1;
        float *a = smoothed(ctx, m, &o), *b = fresh_smoothed(ctx, m, &o);
        cr_assert_arr_eq(a, b, bytes, "step %d: a Laplacian step", step);
        free(a);
        free(b);
        cr_assert_gt(mmx_mesh_cache_bytes(m), 0);
        if (step == 0) MMX_OK_OR_FAIL(ctx, mmx_mesh_reduce(ctx, m));
        if (step == 1) MMX_OK_OR_FAIL(ctx, mmx_mesh_expand(ctx, m));
        if (step < 2) {
            cr_assert_eq(mmx_mesh_cache_bytes(m), 0, "step %d: M changed in place: dropped", step);
            cr_assert_eq(m->M->order, step == 0 ? 3 : 0);
        }
    }
    free(x);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(cache, a_permuted_mesh_starts_empty_and_gets_its_own_results)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = tu_shape(ctx, "torus:7:5");
    queries_match(ctx, m, "torus");
    cr_assert_gt(mmx_mesh_cache_bytes(m), 0);
    mmx_mesh *p = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_shuffle(ctx, m, 12, NULL, NULL, &p));
    cr_assert_eq(mmx_mesh_cache_bytes(p), 0, "a new mesh from an edit keeps nothing");
    queries_match(ctx, p, "shuffled torus");
    /* The copy's results are its own, not the source's (its order differs). */
    qres a = query(ctx, m, NULL, MMX_QUERY_VV), b = query(ctx, p, NULL, MMX_QUERY_VV);
    cr_assert_eq(a.nnz, b.nnz);
    cr_assert_neq(memcmp(a.colidx, b.colidx, (size_t)a.nnz * sizeof *a.colidx), 0);
    qres_free(&a);
    qres_free(&b);
    mmx_mesh *c = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_copy(ctx, m, MMX_SPACE_HOST, &c));
    cr_assert_eq(mmx_mesh_cache_bytes(c), 0, "a copy starts empty");
    mmx_mesh_free(c);
    mmx_mesh_free(p);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

Test(cache, another_context_or_a_view_of_another_matrix_leaves_the_cache_alone)
{
    mmx_ctx *ctx = tu_host_ctx(), *other = tu_host_ctx();
    mmx_mesh *m = tu_shape(ctx, "icosphere:2"), *g = tu_shape(ctx, "grid:9:8");
    /* Another context computes, and keeps nothing with the mesh. */
    queries_match(other, m, "other context");
    cr_assert_eq(mmx_mesh_cache_bytes(m), 0, "another context keeps nothing");
    queries_match(ctx, m, "own context");
    const size_t kept = mmx_mesh_cache_bytes(m);
    cr_assert_gt(kept, 0);
    queries_match(other, m, "other context, cache full");
    /* A view of m with g's matrix: g's results, and m's cache untouched. */
    mmx_mesh view = *m;
    view.M = g->M;
    view.pos = g->pos;
    qres a = query(ctx, &view, NULL, MMX_QUERY_VV), b = query(ctx, g, NULL, MMX_QUERY_VV);
    expect_same(&a, &b, "view", "VV");
    qres_free(&a);
    qres_free(&b);
    cr_assert_eq(mmx_mesh_cache_bytes(m), kept, "the view left m's cache as it was");
    /* A view of m with other positions shares its cache (same M). */
    mmx_mesh moved = *m;
    const size_t bytes = 3 * (size_t)mmx_mesh_nverts(m) * sizeof(float);
    moved.pos = malloc(bytes);
    float *x = malloc(bytes), *y = malloc(bytes);
    cr_assert(moved.pos && x && y);
    memcpy(moved.pos, m->pos, bytes);
    perturb(moved.pos, mmx_mesh_nverts(m), 0.1f);
    MMX_OK_OR_FAIL(ctx, mmx_vertex_normals(ctx, &moved, MMX_NORMAL_AREA, x));
    MMX_OK_OR_FAIL(other, mmx_vertex_normals(other, &moved, MMX_NORMAL_AREA, y));
    cr_assert_arr_eq(x, y, bytes, "a view's normals, cached and not");
    free(moved.pos);
    free(x);
    free(y);
    /* A mesh assembled by hand has no cache: calls work and keep nothing. */
    mmx_mesh hand = {m->M, m->pos, MMX_SPACE_HOST, NULL, ctx, NULL, NULL, NULL, NULL, NULL};
    queries_match(ctx, &hand, "assembled by hand");
    cr_assert_eq(mmx_mesh_cache_bytes(&hand), 0);
    mmx_mesh_free(g);
    mmx_mesh_free(m);
    mmx_ctx_free(other);
    mmx_ctx_free(ctx);
}

/* ---- CUDA, cached on the device, against the host ------------------------------------------ */

static float *device_to_host(mmx_ctx *d, const float *x, size_t n)
{
    float *h = malloc(n * sizeof *h + 4);
    cr_assert(h);
    if (n) MMX_OK_OR_FAIL(d, mmx_mem_copy(d, h, MMX_SPACE_HOST, x, MMX_SPACE_DEVICE, n * sizeof *h));
    return h;
}

static void expect_close(const float *a, const float *b, size_t n, float tol, const char *what)
{
    for (size_t i = 0; i < n; i++)
        cr_assert(a[i] - b[i] <= tol && b[i] - a[i] <= tol, "%s: entry %zu: %.9g vs %.9g", what, i,
                  (double)a[i], (double)b[i]);
}

Test(cache, gpu_cached_calls_match_the_host)
{
    mmx_ctx *d = tu_cuda_ctx_or_skip();
    mmx_ctx *h = tu_host_ctx();
    const char *shapes[] = {"icosphere:3", "grid:16:12", "mixed", "torus:9:7"};
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        mmx_mesh *hm = tu_shape(h, shapes[i]), *dm = NULL;
        MMX_OK_OR_FAIL(d, mmx_mesh_copy(d, hm, MMX_SPACE_DEVICE, &dm));
        const mmx_index n = mmx_mesh_nverts(hm);
        const size_t bytes = 3 * (size_t)n * sizeof(float);
        for (int round = 0; round < 2; round++) {
            for (int k = 0; k < MMX_QUERY_COUNT; k++) {
                qres a = query(h, hm, NULL, (mmx_query_kind)k), b = query(d, dm, NULL, (mmx_query_kind)k);
                expect_same(&b, &a, shapes[i], mmx_query_name((mmx_query_kind)k));
                qres_free(&a);
                qres_free(&b);
            }
            float *dn = NULL, *dx = NULL;
            MMX_OK_OR_FAIL(d, mmx_mem_alloc(d, MMX_SPACE_DEVICE, bytes + 4, (void **)&dn));
            MMX_OK_OR_FAIL(d, mmx_mem_alloc(d, MMX_SPACE_DEVICE, bytes + 4, (void **)&dx));
            float *hn = malloc(bytes + 4), *hx = malloc(bytes + 4);
            cr_assert(hn && hx);
            MMX_OK_OR_FAIL(h, mmx_vertex_normals(h, hm, MMX_NORMAL_AREA, hn));
            MMX_OK_OR_FAIL(d, mmx_vertex_normals(d, dm, MMX_NORMAL_AREA, dn));
            float *got = device_to_host(d, dn, 3 * (size_t)n);
            expect_close(got, hn, 3 * (size_t)n, 1e-5f, "normals");
            free(got);
            mmx_smooth_options o = mmx_smooth_defaults(MMX_SMOOTH_LAPLACIAN);
            o.iterations = 1;
            o.fix_boundary = round;
            MMX_OK_OR_FAIL(h, mmx_smooth(h, hm, &o, hx, NULL));
            MMX_OK_OR_FAIL(d, mmx_smooth(d, dm, &o, dx, NULL));
            got = device_to_host(d, dx, 3 * (size_t)n);
            expect_close(got, hx, 3 * (size_t)n, 1e-5f, "a Laplacian step");
            free(got);
            cr_assert_gt(mmx_mesh_cache_bytes(dm), 0);
            /* The positions change on both sides (a smoothing in place): the next round's
             * normals and step read them through the kept caches. */
            MMX_OK_OR_FAIL(h, mmx_smooth(h, hm, &o, hm->pos, NULL));
            MMX_OK_OR_FAIL(d, mmx_smooth(d, dm, &o, dm->pos, NULL));
            free(hn);
            free(hx);
            mmx_mem_free(d, MMX_SPACE_DEVICE, dn);
            mmx_mem_free(d, MMX_SPACE_DEVICE, dx);
        }
        mmx_mesh_release_cache(dm);
        cr_assert_eq(mmx_mesh_cache_bytes(dm), 0);
        /* M changed in place on the device (reduced when it can be): still the host's VV. */
        mmx_index c = 0;
        MMX_OK_OR_FAIL(d, mmx_mesh_uniform_order(d, dm, &c));
        if (c) MMX_OK_OR_FAIL(d, mmx_mesh_reduce(d, dm));
        for (int k = 0; k < MMX_QUERY_COUNT; k++) {
            qres a = query(h, hm, NULL, (mmx_query_kind)k), b = query(d, dm, NULL, (mmx_query_kind)k);
            cr_assert_eq(b.nnz, a.nnz, "%s %s after reduce: nnz", shapes[i], mmx_query_name((mmx_query_kind)k));
            if (a.nnz) cr_assert_arr_eq(b.colidx, a.colidx, (size_t)a.nnz * sizeof(mmx_index));
            qres_free(&a);
            qres_free(&b);
        }
        mmx_mesh_free(dm);
        mmx_mesh_free(hm);
    }
    mmx_ctx_free(h);
    mmx_ctx_free(d);
}
