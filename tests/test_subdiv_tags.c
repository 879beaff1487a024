/* Subdivision's tags kept in the mesh's cache (src/subdiv/tags_dev.c) and the closed-form crease
 * list of the fused Catmull-Clark path: the same results as the algebraic reference, whose
 * crease tables are computed level by level from each level's adjacency; the entry follows the
 * mesh's tags (rewritten in place or through mmx_mesh_set_tags); plans outlive their mesh; and
 * on CUDA a creased cage refines with at most two waits once its tags are known. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#include "subdiv_meshes.h"
#include "core/core_internal.h" /* mmx__ctx_syncs: the waits */

#define CC MMX_SCHEME_CATMULL_CLARK

static mmx_mesh *refine(mmx_ctx *ctx, mmx_scheme scheme, const mmx_mesh *m, int levels,
                        mmx_subdiv_path path)
{
    mmx_subdiv_options o = {0};
    o.path = path;
    mmx_mesh *r = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_subdivide(ctx, scheme, m, levels, &o, &r));
    return r;
}

static mmx_mesh *to_host(mmx_ctx *ctx, const mmx_mesh *m)
{
    mmx_mesh *h = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_copy(ctx, m, MMX_SPACE_HOST, &h));
    return h;
}

static mmx_mesh *retag(mmx_mesh *m, const char *tags)
{
    free(m->tags);
    m->tags = tags ? strdup(tags) : NULL;
    return m;
}

/* Same topology entry for entry, positions within tol of the diagonal, tags to the byte. */
static void same(const mmx_mesh *got, const mmx_mesh *ref, double tol, const char *what)
{
    cr_assert_eq(got->M->nrows, ref->M->nrows, "%s: vertices", what);
    cr_assert_eq(got->M->nnz, ref->M->nnz, "%s: corners", what);
    cr_assert_eq(memcmp(got->M->rowidx, ref->M->rowidx, sizeof(mmx_index) * (size_t)ref->M->nnz), 0,
                 "%s: faces", what);
    const double diag = mesh_diagonal(ref);
    for (size_t i = 0; i < 3 * (size_t)ref->M->nrows; i++)
        cr_assert(fabs((double)got->pos[i] - ref->pos[i]) <= tol * diag,
                  "%s: vertex %zu is off by %g", what, i / 3, fabs((double)got->pos[i] - ref->pos[i]));
    cr_assert_str_eq(got->tags ? got->tags : "", ref->tags ? ref->tags : "", "%s: tags", what);
}

/* Creased Catmull-Clark cages with the uniform method: closed boxes, tori, polygons with a
 * boundary (creases on boundary edges too), corners and the edge-and-corner boundary, large
 * faces; made on the host context. */
static mmx_mesh *cage(mmx_ctx *host, int k, const char **name)
{
    switch (k) {
    case 0: *name = "cube, every 2nd edge"; return with_creases(shape(host, "cube"), 2, NULL);
    case 1: *name = "torus, every 3rd edge"; return with_creases(shape(host, "torus:12:8"), 3, NULL);
    case 2:
        *name = "mixed polygons, boundary, corner";
        return with_creases(shape(host, "mixed"), 2, "t interpolateboundary 1/0/0 1\nt corner 1/1/0 3 2.5\n");
    case 3: *name = "grid with holes, every edge"; return with_creases(shape(host, "grid:12:10"), 1, NULL);
    case 4: *name = "two 600-gons"; return with_creases(ngon(host, 600, 1), 7, NULL);
    case 5: *name = "shuffled house"; return with_creases(shuffled(host, read_data(host, "house.obj"), 5), 2, NULL);
    default: return NULL;
    }
}
enum { NCAGES = 6 };

/* The fused path on ctx (closed-form creases) against the algebraic path on the host, levels
 * 1..4, each call twice (the second from the mesh's cached entry). */
static void closed_creases(mmx_ctx *ctx, mmx_ctx *host, double tol)
{
    for (int k = 0; k < NCAGES; k++) {
        const char *name = NULL;
        mmx_mesh *m = cage(host, k, &name), *in = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_mesh_copy(ctx, m, mmx_ctx_space(ctx), &in));
        for (int l = 1; l <= (k == 4 ? 2 : 4); l++) {
            char label[160];
            snprintf(label, sizeof label, "%s, level %d", name, l);
            mmx_mesh *ref = refine(host, CC, m, l, MMX_SUBDIV_PATH_ALGEBRAIC);
            cr_assert(ref->tags && strstr(ref->tags, "t crease"), "%s: no creases left", label);
            for (int rep = 0; rep < 2; rep++) {
                mmx_mesh *got = refine(ctx, CC, in, l, MMX_SUBDIV_PATH_FUSED), *h = to_host(ctx, got);
                same(h, ref, tol, label);
                mmx_mesh_free(h);
                mmx_mesh_free(got);
            }
            mmx_mesh_free(ref);
        }
        mmx_mesh_free(in);
        mmx_mesh_free(m);
    }
}

Test(subdiv_tags, closed_creases_match_algebraic,
     .description = "fused Catmull-Clark's closed-form crease list = the algebraic path's (host)")
{
    mmx_ctx *host = tu_host_ctx();
    closed_creases(host, host, 1e-6);
    mmx_ctx_free(host);
}

/* The entry follows the tags: kept after a call, dropped by mmx_mesh_set_tags, not served to
 * tags rewritten in place (a refusal too), and a fresh mesh with the new tags agrees. */
Test(subdiv_tags, entry_follows_the_tags, .description = "the mesh's tag entry is the tags' own")
{
    mmx_ctx *host = tu_host_ctx();
    mmx_mesh *m = with_creases(shape(host, "torus:8:6"), 2, NULL);
    cr_assert_eq(mmx_mesh_cache_bytes(m), 0);
    mmx_mesh *a = refine(host, CC, m, 2, MMX_SUBDIV_PATH_AUTO);
    cr_assert_gt(mmx_mesh_cache_bytes(m), 0, "the tag entry is not kept");
    /* Other sharpness, written in place: the entry made from the old text must not serve. */
    mmx_mesh *fresh = with_creases(shape(host, "torus:8:6"), 5, "t corner 1/1/0 4 3\n");
    retag(m, fresh->tags);
    mmx_mesh *b = refine(host, CC, m, 2, MMX_SUBDIV_PATH_AUTO), *c = refine(host, CC, fresh, 2, MMX_SUBDIV_PATH_AUTO);
    same(b, c, 0, "tags rewritten in place");
    cr_assert(strcmp(a->tags, b->tags) != 0, "the old tags' result");
    /* A bad tag written in place is refused, whatever was cached. */
    retag(m, "t crease 2/1/0 0 40 1\n");
    mmx_mesh *r = (mmx_mesh *)&r;
    cr_assert_eq(mmx_subdivide(host, CC, m, 1, NULL, &r), MMX_ERR_MESH);
    cr_assert(strstr(mmx_ctx_error(host), "tags line 1"), "%s", mmx_ctx_error(host));
    cr_assert_null(r);
    /* mmx_mesh_set_tags drops the entry; what the faces alone decide (the adjacency, which
     * subdivision keeps too) stays. */
    retag(m, fresh->tags);
    mmx_mesh *d = refine(host, CC, m, 2, MMX_SUBDIV_PATH_AUTO);
    same(d, c, 0, "tags rewritten again");
    const size_t with_entry = mmx_mesh_cache_bytes(m);
    cr_assert_gt(with_entry, 0);
    MMX_OK_OR_FAIL(host, mmx_mesh_set_tags(host, m, NULL));
    const size_t without = mmx_mesh_cache_bytes(m);
    cr_assert_lt(without, with_entry, "mmx_mesh_set_tags left the tag entry");
    cr_assert_gt(without, 0, "the adjacency went with the tags");
    mmx_mesh *e = refine(host, CC, m, 2, MMX_SUBDIV_PATH_AUTO);
    cr_assert_null(e->tags, "no tags, none carried");
    mmx_mesh_free(a), mmx_mesh_free(b), mmx_mesh_free(c), mmx_mesh_free(d), mmx_mesh_free(e);
    mmx_mesh_free(fresh);
    mmx_mesh_free(m);
    mmx_ctx_free(host);
}

/* A plan of a creased cage with corners outlives the mesh (its tags' arrays are its own): its
 * evaluation after the mesh is freed = the direct call (ASan would see a freed cache's array). */
static void plan_outlives(mmx_ctx *ctx, mmx_ctx *host)
{
    mmx_mesh *h = with_creases(shape(host, "cube"), 2, "t corner 1/1/0 0 2\n"), *m = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_copy(ctx, h, mmx_ctx_space(ctx), &m));
    mmx_mesh *ref = refine(ctx, CC, m, 3, MMX_SUBDIV_PATH_FUSED), *ref_h = to_host(ctx, ref);
    mmx_subdiv_plan *plan = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_subdiv_plan_create(ctx, CC, m, 3, NULL, &plan));
    const mmx_space sp = mmx_ctx_space(ctx);
    float *ctl = NULL, *out = NULL;
    const size_t nv = (size_t)h->M->nrows, nout = (size_t)ref_h->M->nrows;
    MMX_OK_OR_FAIL(ctx, mmx_mem_alloc(ctx, sp, 3 * nv * sizeof *ctl, (void **)&ctl));
    MMX_OK_OR_FAIL(ctx, mmx_mem_alloc(ctx, sp, 3 * nout * sizeof *out, (void **)&out));
    MMX_OK_OR_FAIL(ctx, mmx_mem_copy(ctx, ctl, sp, m->pos, sp, 3 * nv * sizeof *ctl));
    mmx_mesh_free(m); /* its cache, with the tag entry, goes with it */
    MMX_OK_OR_FAIL(ctx, mmx_subdiv_plan_eval(plan, ctl, out));
    float *got = malloc(3 * nout * sizeof *got);
    cr_assert_not_null(got);
    MMX_OK_OR_FAIL(ctx, mmx_mem_copy(ctx, got, MMX_SPACE_HOST, out, sp, 3 * nout * sizeof *got));
    const double diag = mesh_diagonal(ref_h);
    for (size_t i = 0; i < 3 * nout; i++)
        cr_assert(fabs((double)got[i] - ref_h->pos[i]) <= 1e-6 * diag, "plan: coordinate %zu", i);
    free(got);
    mmx_mem_free(ctx, sp, ctl);
    mmx_mem_free(ctx, sp, out);
    mmx_subdiv_plan_free(plan);
    mmx_mesh_free(ref_h);
    mmx_mesh_free(ref);
    mmx_mesh_free(h);
}

Test(subdiv_tags, plan_outlives_mesh, .description = "a creased plan evaluates after its mesh is freed (host)")
{
    mmx_ctx *host = tu_host_ctx();
    plan_outlives(host, host);
    mmx_ctx_free(host);
}

/* ---- CUDA ------------------------------------------------------------------------------------ */

Test(subdiv_tags, gpu_closed_creases_match_algebraic,
     .description = "CUDA fused Catmull-Clark with creases = the host's algebraic path, tags included")
{
    mmx_ctx *gpu = tu_cuda_ctx_or_skip();
    mmx_ctx *host = tu_host_ctx();
    closed_creases(gpu, host, 1e-6);
    mmx_ctx_free(host);
    mmx_ctx_free(gpu);
}

Test(subdiv_tags, gpu_plan_outlives_mesh, .description = "a creased CUDA plan evaluates after its mesh is freed")
{
    mmx_ctx *gpu = tu_cuda_ctx_or_skip();
    mmx_ctx *host = tu_host_ctx();
    plan_outlives(gpu, host);
    mmx_ctx_free(host);
    mmx_ctx_free(gpu);
}

/* The waits of a creased cage's call on CUDA: the first call makes the tag entry (it parses the
 * tags and reads the adjacency's edges: waits), every later call on the same mesh waits at most
 * twice, as the untagged cage does (the adjacency's count, the input level's checks), whatever
 * the levels: the creases of the result are listed without reading the last level back. */
static void waits(mmx_ctx *gpu, mmx_scheme scheme, mmx_mesh *m, const char *name)
{
    mmx_mesh *in = NULL, *in0 = NULL;
    MMX_OK_OR_FAIL(gpu, mmx_mesh_copy(gpu, m, MMX_SPACE_DEVICE, &in));
    MMX_OK_OR_FAIL(gpu, mmx_mesh_copy(gpu, m, MMX_SPACE_DEVICE, &in0));
    retag(in0, NULL);
    mmx_mesh *first = refine(gpu, scheme, in, 3, MMX_SUBDIV_PATH_AUTO);
    for (int levels = 1; levels <= 3; levels++) {
        unsigned long long w0 = mmx__ctx_syncs(gpu);
        mmx_mesh *r = refine(gpu, scheme, in, levels, MMX_SUBDIV_PATH_AUTO);
        const unsigned long long tagged = mmx__ctx_syncs(gpu) - w0;
        w0 = mmx__ctx_syncs(gpu);
        mmx_mesh *r0 = refine(gpu, scheme, in0, levels, MMX_SUBDIV_PATH_AUTO);
        const unsigned long long plain = mmx__ctx_syncs(gpu) - w0;
        cr_assert_leq(tagged, 2, "%s, %d levels: %llu waits (untagged: %llu)", name, levels, tagged, plain);
        cr_assert_leq(tagged, plain, "%s, %d levels: %llu waits, untagged %llu", name, levels, tagged, plain);
        if (levels == 3) {
            mmx_mesh *a = to_host(gpu, r), *b = to_host(gpu, first);
            same(a, b, 0, name); /* the cached entry's call = the first call, bit for bit */
            mmx_mesh_free(a), mmx_mesh_free(b);
        }
        mmx_mesh_free(r), mmx_mesh_free(r0);
    }
    mmx_mesh_free(first);
    mmx_mesh_free(in), mmx_mesh_free(in0);
    mmx_mesh_free(m);
}

Test(subdiv_tags, gpu_creased_cage_waits_twice, .description = "a creased cage on CUDA: at most 2 waits a call")
{
    mmx_ctx *gpu = tu_cuda_ctx_or_skip();
    mmx_ctx *host = tu_host_ctx();
    for (int k = 0; k < NCAGES; k++) {
        const char *name = NULL;
        mmx_mesh *m = cage(host, k, &name);
        waits(gpu, CC, m, name);
    }
    waits(gpu, MMX_SCHEME_LOOP, with_creases(shape(host, "icosphere:2"), 3, NULL), "Loop icosphere");
    waits(gpu, MMX_SCHEME_LOOP, with_creases(tri_grid(host, 10, 8), 2, "t corner 1/1/0 5 2\n"), "Loop grid, corner");
    mmx_ctx_free(host);
    mmx_ctx_free(gpu);
}

/* Every scheme and tag kind, the fused path on ctx against the algebraic path on the host:
 * creases (uniform, Chaikin), corners, holes left out and kept, the boundary options (none,
 * edge and corner), on open and closed meshes; topology exactly, positions within 1e-6 of
 * the diagonal, the carried tags to the byte. */
static void every_tag_kind(mmx_ctx *ctx, mmx_ctx *host)
{
    static const struct { const char *tags; int creases, every; mmx_hole_mode holes; } kinds[] = {
        {"", 1, 2, MMX_HOLES_REMOVE},
        {"t creasemethod 0/0/1 chaikin\n", 1, 3, MMX_HOLES_REMOVE},
        {"t corner 2/2/0 0 3 10 1.5\n", 0, 0, MMX_HOLES_REMOVE},
        {"t hole 2/0/0 1 2\n", 1, 4, MMX_HOLES_REMOVE},
        {"t hole 2/0/0 1 2\n", 1, 4, MMX_HOLES_KEEP},
        {"t interpolateboundary 1/0/0 0\n", 0, 0, MMX_HOLES_REMOVE},
        {"t interpolateboundary 1/0/0 1\nt corner 1/1/0 1 2.5\n", 1, 5, MMX_HOLES_REMOVE},
    };
    static const struct { mmx_scheme scheme; const char *shape; int levels; } meshes[] = {
        {CC, "mixed", 3}, {CC, "torus:8:6", 3}, {MMX_SCHEME_BILINEAR, "mixed", 2},
        {MMX_SCHEME_LOOP, "tri", 3}, {MMX_SCHEME_LOOP, "icosphere:1", 3}, {MMX_SCHEME_SQRT3, "icosphere:1", 3},
    };
    for (size_t i = 0; i < sizeof meshes / sizeof meshes[0]; i++)
        for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
            mmx_mesh *m = strcmp(meshes[i].shape, "tri") ? shape(host, meshes[i].shape) : tri_grid(host, 6, 5);
            m = kinds[k].creases ? with_creases(m, kinds[k].every, kinds[k].tags) : retag(m, kinds[k].tags);
            mmx_mesh *in = NULL;
            MMX_OK_OR_FAIL(ctx, mmx_mesh_copy(ctx, m, mmx_ctx_space(ctx), &in));
            char label[160];
            snprintf(label, sizeof label, "%s on %s, tags %zu (%s)", mmx_scheme_name(meshes[i].scheme),
                     meshes[i].shape, k, mmx_ctx_space(ctx) == MMX_SPACE_HOST ? "host" : "CUDA");
            mmx_subdiv_options o = {0};
            o.holes = kinds[k].holes;
            o.path = MMX_SUBDIV_PATH_ALGEBRAIC;
            mmx_mesh *ref = NULL, *got = NULL;
            MMX_OK_OR_FAIL(host, mmx_subdivide(host, meshes[i].scheme, m, meshes[i].levels, &o, &ref));
            /* The default path: the fused one, but for sqrt3 on an open mesh. */
            o.path = MMX_SUBDIV_PATH_AUTO;
            for (int rep = 0; rep < 2; rep++) { /* the second from the mesh's tag entry */
                MMX_OK_OR_FAIL(ctx, mmx_subdivide(ctx, meshes[i].scheme, in, meshes[i].levels, &o, &got));
                mmx_mesh *h = to_host(ctx, got);
                same(h, ref, 1e-6, label);
                mmx_mesh_free(h);
                mmx_mesh_free(got);
            }
            mmx_mesh_free(ref);
            mmx_mesh_free(in);
            mmx_mesh_free(m);
        }
}

Test(subdiv_tags, every_tag_kind_matches_algebraic, .description = "every scheme and tag kind: default path = algebraic (host)")
{
    mmx_ctx *host = tu_host_ctx();
    every_tag_kind(host, host);
    mmx_ctx_free(host);
}

Test(subdiv_tags, gpu_every_tag_kind_matches_host, .description = "every scheme and tag kind: CUDA = the host's algebraic path")
{
    mmx_ctx *gpu = tu_cuda_ctx_or_skip();
    mmx_ctx *host = tu_host_ctx();
    every_tag_kind(gpu, host);
    mmx_ctx_free(host);
    mmx_ctx_free(gpu);
}

/* opts->limit in a plan: its evaluation = mmx_subdivide with opts->limit on the moved control
 * mesh (creases, corners, the edge-and-corner boundary), Loop and Catmull-Clark; sqrt3 refused. */
static void plan_limit(mmx_ctx *ctx, mmx_ctx *host)
{
    static const struct { mmx_scheme scheme; const char *shape, *tags; } cases[] = {
        {CC, "cube", "t corner 1/1/0 0 2\n"},
        {CC, "mixed", "t interpolateboundary 1/0/0 1\n"},
        {MMX_SCHEME_LOOP, "icosphere:1", "t corner 1/1/0 3 10\n"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        mmx_mesh *h = with_creases(shape(host, cases[k].shape), 3, cases[k].tags), *m = NULL;
        /* Moved control positions: each coordinate scaled and shifted. */
        for (size_t i = 0; i < 3 * (size_t)h->M->nrows; i++) h->pos[i] = 1.5f * h->pos[i] + 0.25f * (float)(i % 3);
        MMX_OK_OR_FAIL(ctx, mmx_mesh_copy(ctx, h, mmx_ctx_space(ctx), &m));
        mmx_subdiv_options o = {0};
        o.limit = 1;
        mmx_mesh *ref = NULL;
        MMX_OK_OR_FAIL(host, mmx_subdivide(host, cases[k].scheme, h, 2, &o, &ref));
        mmx_subdiv_plan *plan = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_subdiv_plan_create(ctx, cases[k].scheme, m, 2, &o, &plan));
        const mmx_space sp = mmx_ctx_space(ctx);
        const size_t nout = (size_t)ref->M->nrows;
        float *out = NULL, *got = malloc(3 * nout * sizeof *got);
        cr_assert_not_null(got);
        MMX_OK_OR_FAIL(ctx, mmx_mem_alloc(ctx, sp, 3 * nout * sizeof *out, (void **)&out));
        for (int rep = 0; rep < 2; rep++) {
            MMX_OK_OR_FAIL(ctx, mmx_subdiv_plan_eval(plan, m->pos, out));
            MMX_OK_OR_FAIL(ctx, mmx_mem_copy(ctx, got, MMX_SPACE_HOST, out, sp, 3 * nout * sizeof *got));
            const double diag = mesh_diagonal(ref);
            for (size_t i = 0; i < 3 * nout; i++)
                cr_assert(fabs((double)got[i] - ref->pos[i]) <= 1e-6 * diag,
                          "case %zu: limit coordinate %zu is %g, the direct call's %g", k, i,
                          (double)got[i], (double)ref->pos[i]);
        }
        free(got);
        mmx_mem_free(ctx, sp, out);
        mmx_subdiv_plan_free(plan);
        mmx_mesh_free(ref);
        mmx_mesh_free(m);
        mmx_mesh_free(h);
    }
    mmx_mesh *tet = shape(host, "tetrahedron"), *t = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_copy(ctx, tet, mmx_ctx_space(ctx), &t));
    mmx_subdiv_options o = {0};
    o.limit = 1;
    mmx_subdiv_plan *plan = (mmx_subdiv_plan *)&plan;
    cr_assert_eq(mmx_subdiv_plan_create(ctx, MMX_SCHEME_SQRT3, t, 1, &o, &plan), MMX_ERR_UNSUPPORTED);
    cr_assert_null(plan);
    mmx_mesh_free(t);
    mmx_mesh_free(tet);
}

Test(subdiv_tags, plan_limit_matches_direct, .description = "a plan with opts->limit = mmx_subdivide with it (host)")
{
    mmx_ctx *host = tu_host_ctx();
    plan_limit(host, host);
    mmx_ctx_free(host);
}

Test(subdiv_tags, gpu_plan_limit_matches_direct, .description = "a CUDA plan with opts->limit = the host's mmx_subdivide with it")
{
    mmx_ctx *gpu = tu_cuda_ctx_or_skip();
    mmx_ctx *host = tu_host_ctx();
    plan_limit(gpu, host);
    mmx_ctx_free(host);
    mmx_ctx_free(gpu);
}

/* Holes in a plan (the input's, and no boundary interpolation's), left out as mmx_subdivide
 * leaves them: mmx_subdiv_plan_mesh's topology is the direct call's, and every evaluation's
 * positions are the direct call's on the moved control mesh (with opts->limit too). */
static void plan_holes(mmx_ctx *ctx, mmx_ctx *host)
{
    static const struct { mmx_scheme scheme; const char *shape, *tags; int creases, limit; } cases[] = {
        {CC, "torus:8:6", "t hole 2/0/0 5 20\n", 1, 0},
        {CC, "torus:8:6", "t hole 2/0/0 5 20\nt corner 1/1/0 0 3\n", 1, 1},
        {CC, "mixed", "t interpolateboundary 1/0/0 0\n", 0, 0},
        {MMX_SCHEME_LOOP, "icosphere:1", "t hole 1/0/0 3\n", 1, 0},
        {MMX_SCHEME_SQRT3, "icosphere:1", "t hole 2/0/0 3 7\n", 0, 0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        mmx_mesh *h = shape(host, cases[k].shape), *m = NULL;
        h = cases[k].creases ? with_creases(h, 3, cases[k].tags) : retag(h, cases[k].tags);
        MMX_OK_OR_FAIL(ctx, mmx_mesh_copy(ctx, h, mmx_ctx_space(ctx), &m));
        mmx_subdiv_options o = {0};
        o.limit = cases[k].limit;
        mmx_subdiv_plan *plan = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_subdiv_plan_create(ctx, cases[k].scheme, m, 2, &o, &plan));
        for (size_t i = 0; i < 3 * (size_t)h->M->nrows; i++) h->pos[i] = 0.75f * h->pos[i] - 0.5f * (float)(i % 3);
        MMX_OK_OR_FAIL(ctx, mmx_mem_copy(ctx, m->pos, mmx_ctx_space(ctx), h->pos, MMX_SPACE_HOST,
                                         3 * (size_t)h->M->nrows * sizeof *h->pos));
        mmx_mesh *ref = NULL, *pm = NULL;
        MMX_OK_OR_FAIL(host, mmx_subdivide(host, cases[k].scheme, h, 2, &o, &ref));
        mmx_index nv = 0, nf = 0;
        mmx_subdiv_plan_sizes(plan, NULL, &nv, &nf);
        cr_assert_eq(nv, ref->M->nrows, "case %zu: %d vertices, the direct call %d", k, nv, ref->M->nrows);
        cr_assert_eq(nf, ref->M->ncols, "case %zu: %d faces, the direct call %d", k, nf, ref->M->ncols);
        const mmx_space sp = mmx_ctx_space(ctx);
        float *out = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_mem_alloc(ctx, sp, 3 * (size_t)nv * sizeof *out, (void **)&out));
        MMX_OK_OR_FAIL(ctx, mmx_subdiv_plan_eval(plan, m->pos, out));
        MMX_OK_OR_FAIL(ctx, mmx_subdiv_plan_mesh(plan, out, &pm));
        mmx_mesh *ph = to_host(ctx, pm);
        retag(ph, ref->tags); /* plans carry no tags */
        char label[64];
        snprintf(label, sizeof label, "plan with holes, case %zu", k);
        same(ph, ref, 1e-6, label);
        mmx_mesh_free(ph);
        mmx_mesh_free(pm);
        mmx_mem_free(ctx, sp, out);
        mmx_subdiv_plan_free(plan);
        mmx_mesh_free(ref);
        mmx_mesh_free(m);
        mmx_mesh_free(h);
    }
}

Test(subdiv_tags, plan_holes_match_direct, .description = "a plan leaves holes out as mmx_subdivide does (host)")
{
    mmx_ctx *host = tu_host_ctx();
    plan_holes(host, host);
    mmx_ctx_free(host);
}

Test(subdiv_tags, gpu_plan_holes_match_direct, .description = "a CUDA plan leaves holes out as the host's mmx_subdivide does")
{
    mmx_ctx *gpu = tu_cuda_ctx_or_skip();
    mmx_ctx *host = tu_host_ctx();
    plan_holes(gpu, host);
    mmx_ctx_free(host);
    mmx_ctx_free(gpu);
}

/* Texture coordinates in a plan: mmx_subdiv_plan_mesh's coordinates and index are
 * mmx_subdivide's, and mmx_subdiv_plan_eval_uv on moved control coordinates gives the direct
 * call's on them: Catmull-Clark linear (the default) and smooth, bilinear, with a hole and a
 * crease, and a crease with opts->limit; Loop's linear mode has no plan of its coordinates
 * (refused by eval_uv). */
static void plan_uv(mmx_ctx *ctx, mmx_ctx *host)
{
    static const struct { mmx_scheme scheme; const char *file, *tags; mmx_fvar_mode fvar; int limit; } cases[] = {
        {CC, "textured.obj", NULL, MMX_FVAR_FROM_MESH, 0},
        {CC, "textured.obj", "t crease 2/1/0 1 2 2\n", MMX_FVAR_SMOOTH, 0},
        {CC, "bigguy_quads.obj", "t hole 1/0/0 2\n", MMX_FVAR_BOUNDARIES, 0},
        {CC, "bigguy_quads.obj", NULL, MMX_FVAR_CORNERS_ONLY, 0},
        {MMX_SCHEME_BILINEAR, "textured.obj", "t hole 1/0/0 1\n", MMX_FVAR_FROM_MESH, 0},
        /* With the limit (issue 30's case: a crease, the positions pushed to the limit). */
        {CC, "textured.obj", "t crease 2/1/0 1 2 2\n", MMX_FVAR_FROM_MESH, 1},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        mmx_mesh *h = retag(read_data(host, cases[k].file), cases[k].tags), *m = NULL;
        cr_assert_not_null(h->uv, "%s has texture coordinates", cases[k].file);
        MMX_OK_OR_FAIL(ctx, mmx_mesh_copy(ctx, h, mmx_ctx_space(ctx), &m));
        mmx_subdiv_options o = {0};
        o.fvar = cases[k].fvar;
        o.limit = cases[k].limit;
        mmx_subdiv_plan *plan = NULL;
        MMX_OK_OR_FAIL(ctx, mmx_subdiv_plan_create(ctx, cases[k].scheme, m, 2, &o, &plan));
        /* At creation: the direct call's coordinates. */
        mmx_mesh *ref = NULL, *pm = NULL;
        MMX_OK_OR_FAIL(host, mmx_subdivide(host, cases[k].scheme, h, 2, &o, &ref));
        MMX_OK_OR_FAIL(ctx, mmx_subdiv_plan_mesh(plan, NULL, &pm));
        mmx_mesh *ph = to_host(ctx, pm);
        cr_assert_not_null(ph->uv, "case %zu: the plan's mesh has no coordinates", k);
        cr_assert_eq(ph->uv->nvalues, ref->uv->nvalues, "case %zu: coordinates", k);
        cr_assert_eq(mmx_subdiv_plan_uv_count(plan), ref->uv->nvalues, "case %zu", k);
        cr_assert_eq(memcmp(ph->uv->index, ref->uv->index, sizeof(mmx_index) * (size_t)ref->M->nnz), 0,
                     "case %zu: the coordinates' index", k);
        for (mmx_index i = 0; i < 2 * ref->uv->nvalues; i++)
            cr_assert(fabsf(ph->uv->values[i] - ref->uv->values[i]) <= 1e-6f, "case %zu: value %d", k, i);
        /* Moved control coordinates. */
        const mmx_index n = h->uv->nvalues, nout = ref->uv->nvalues;
        for (mmx_index i = 0; i < 2 * n; i++) h->uv->values[i] = 0.5f * h->uv->values[i] + 0.125f * (float)(i % 2);
        mmx_mesh *ref2 = NULL;
        MMX_OK_OR_FAIL(host, mmx_subdivide(host, cases[k].scheme, h, 2, &o, &ref2));
        const mmx_space sp = mmx_ctx_space(ctx);
        float *in = NULL, *out = NULL, *got = malloc(2 * (size_t)nout * sizeof *got);
        cr_assert_not_null(got);
        MMX_OK_OR_FAIL(ctx, mmx_mem_alloc(ctx, sp, 2 * (size_t)n * sizeof *in, (void **)&in));
        MMX_OK_OR_FAIL(ctx, mmx_mem_alloc(ctx, sp, 2 * (size_t)nout * sizeof *out, (void **)&out));
        MMX_OK_OR_FAIL(ctx, mmx_mem_copy(ctx, in, sp, h->uv->values, MMX_SPACE_HOST, 2 * (size_t)n * sizeof *in));
        for (int rep = 0; rep < 2; rep++) {
            MMX_OK_OR_FAIL(ctx, mmx_subdiv_plan_eval_uv(plan, in, out));
            MMX_OK_OR_FAIL(ctx, mmx_mem_copy(ctx, got, MMX_SPACE_HOST, out, sp, 2 * (size_t)nout * sizeof *got));
            for (mmx_index i = 0; i < 2 * nout; i++)
                cr_assert(fabsf(got[i] - ref2->uv->values[i]) <= 1e-6f, "case %zu: moved value %d is %g, the direct call's %g",
                          k, i, (double)got[i], (double)ref2->uv->values[i]);
        }
        /* One frame of both channels: the coordinates' bytes of eval_uv, the positions' of eval. */
        {
            mmx_index pnv = 0;
            mmx_subdiv_plan_sizes(plan, NULL, &pnv, NULL);
            const size_t pb = 3 * (size_t)pnv * sizeof(float), ub = 2 * (size_t)nout * sizeof(float);
            float *p1 = NULL, *p2 = NULL, *u2 = NULL, *h1 = malloc(pb + ub + 4), *h2 = malloc(pb + ub + 4);
            cr_assert(h1 && h2);
            MMX_OK_OR_FAIL(ctx, mmx_mem_alloc(ctx, sp, pb + 4, (void **)&p1));
            MMX_OK_OR_FAIL(ctx, mmx_mem_alloc(ctx, sp, pb + 4, (void **)&p2));
            MMX_OK_OR_FAIL(ctx, mmx_mem_alloc(ctx, sp, ub + 4, (void **)&u2));
            MMX_OK_OR_FAIL(ctx, mmx_subdiv_plan_eval(plan, m->pos, p1));
            MMX_OK_OR_FAIL(ctx, mmx_subdiv_plan_eval_frame(plan, m->pos, p2, in, u2));
            MMX_OK_OR_FAIL(ctx, mmx_mem_copy(ctx, h1, MMX_SPACE_HOST, p1, sp, pb));
            MMX_OK_OR_FAIL(ctx, mmx_mem_copy(ctx, h2, MMX_SPACE_HOST, p2, sp, pb));
            cr_assert_eq(memcmp(h1, h2, pb), 0, "case %zu: one frame's positions", k);
            MMX_OK_OR_FAIL(ctx, mmx_mem_copy(ctx, h2, MMX_SPACE_HOST, u2, sp, ub));
            cr_assert_eq(memcmp(got, h2, ub), 0, "case %zu: one frame's texture coordinates", k);
            mmx_mem_free(ctx, sp, p1), mmx_mem_free(ctx, sp, p2), mmx_mem_free(ctx, sp, u2);
            free(h1), free(h2);
        }
        free(got);
        mmx_mem_free(ctx, sp, in), mmx_mem_free(ctx, sp, out);
        mmx_mesh_free(ref2), mmx_mesh_free(ph), mmx_mesh_free(pm), mmx_mesh_free(ref);
        mmx_subdiv_plan_free(plan);
        mmx_mesh_free(m), mmx_mesh_free(h);
    }
    /* cube.obj's faces share one chart's four corners: a texture mesh with edges of six faces,
     * which mmx_subdivide refines on the algebraic path; the plan has no coordinates. */
    mmx_mesh *cube = read_data(host, "cube.obj"), *c = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_copy(ctx, cube, mmx_ctx_space(ctx), &c));
    mmx_subdiv_plan *cplan = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_subdiv_plan_create(ctx, CC, c, 2, NULL, &cplan));
    cr_assert_eq(mmx_subdiv_plan_uv_count(cplan), 0);
    mmx_subdiv_plan_free(cplan);
    mmx_mesh_free(c), mmx_mesh_free(cube);
    /* Loop's linear mode: numbered by value per corner, no plan of the coordinates. */
    mmx_mesh *quads = read_data(host, "textured.obj"), *tri = NULL, *t = NULL;
    MMX_OK_OR_FAIL(host, mmx_mesh_triangulate(host, quads, &tri));
    mmx_mesh_free(quads);
    cr_assert_not_null(tri->uv);
    MMX_OK_OR_FAIL(ctx, mmx_mesh_copy(ctx, tri, mmx_ctx_space(ctx), &t));
    mmx_subdiv_plan *plan = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_subdiv_plan_create(ctx, MMX_SCHEME_LOOP, t, 1, NULL, &plan));
    cr_assert_eq(mmx_subdiv_plan_uv_count(plan), 0);
    float dummy[2] = {0, 0};
    cr_assert_eq(mmx_subdiv_plan_eval_uv(plan, dummy, dummy), MMX_ERR_UNSUPPORTED);
    mmx_subdiv_plan_free(plan);
    mmx_mesh_free(t), mmx_mesh_free(tri);
}

Test(subdiv_tags, plan_uv_matches_direct, .description = "a plan's texture coordinates = mmx_subdivide's (host)")
{
    mmx_ctx *host = tu_host_ctx();
    plan_uv(host, host);
    mmx_ctx_free(host);
}

Test(subdiv_tags, gpu_plan_uv_matches_direct, .description = "a CUDA plan's texture coordinates = the host's mmx_subdivide's")
{
    mmx_ctx *gpu = tu_cuda_ctx_or_skip();
    mmx_ctx *host = tu_host_ctx();
    plan_uv(gpu, host);
    mmx_ctx_free(host);
    mmx_ctx_free(gpu);
}

/* ---- the linear mode's texture mesh kept in the mesh's cache (src/subdiv/uv.c) ---- */

/* textured.obj's six vertices with a quad and two triangles (a mesh of mixed orders, general
 * form) and texture coordinates with a seam between the quad and the triangles (host). */
static mmx_mesh *mixed_uv(mmx_ctx *host)
{
    const float pos[] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 2, 0, 0, 2, 1, 0};
    const mmx_index start[] = {0, 4, 7, 10}, verts[] = {0, 1, 2, 3, 1, 4, 5, 1, 5, 2};
    const mmx_index uvi[] = {0, 1, 2, 3, 4, 5, 6, 4, 6, 7};
    const float uvv[] = {0, 0, 0.5f, 0, 0.5f, 1, 0, 1, 0.6f, 0, 1, 0, 1, 1, 0.6f, 1};
    mmx_mesh *m = NULL;
    MMX_OK_OR_FAIL(host, mmx_mesh_from_faces(host, 6, 3, start, verts, pos, &m));
    m->uv = calloc(1, sizeof *m->uv);
    cr_assert_not_null(m->uv);
    m->uv->nvalues = 8;
    m->uv->values = malloc(sizeof uvv);
    m->uv->index = malloc(sizeof uvi);
    cr_assert(m->uv->values && m->uv->index);
    memcpy(m->uv->values, uvv, sizeof uvv);
    memcpy(m->uv->index, uvi, sizeof uvi);
    return m;
}

/* The uv cases: Catmull-Clark's linear mode (the default) on cages with seams, boundaries,
 * creases and holes, mixed faces, bilinear, and a texture mesh the fused path does not take
 * (cube.obj: one chart's corners shared by every face, the reference route throughout). */
static mmx_mesh *uv_case(mmx_ctx *host, int k, mmx_scheme *scheme, const char **name)
{
    *scheme = CC;
    switch (k) {
    case 0: *name = "textured.obj"; return read_data(host, "textured.obj");
    case 1: *name = "bigguy_quads.obj, creases"; return with_creases(read_data(host, "bigguy_quads.obj"), 3, NULL);
    case 2:
        *name = "bigguy_quads.obj, a hole, boundary edge and corner";
        return retag(read_data(host, "bigguy_quads.obj"), "t hole 1/0/0 2\nt interpolateboundary 1/0/0 1\n");
    case 3: *name = "mixed faces, a crease"; return retag(mixed_uv(host), "t crease 2/1/0 1 2 2\n");
    case 4: *name = "textured.obj, bilinear"; *scheme = MMX_SCHEME_BILINEAR; return read_data(host, "textured.obj");
    case 5: *name = "cube.obj (one chart's corners shared)"; return read_data(host, "cube.obj");
    default: return NULL;
    }
}
enum { NUV = 6 };

/* got's texture coordinates against ref's: the index exactly, the values within tol (0: to the
 * byte). */
static void same_uv(const mmx_mesh *got, const mmx_mesh *ref, float tol, const char *what)
{
    cr_assert_not_null(got->uv, "%s: no texture coordinates", what);
    cr_assert_not_null(ref->uv, "%s: the reference has no texture coordinates", what);
    cr_assert_eq(got->M->nnz, ref->M->nnz, "%s: corners", what);
    cr_assert_eq(got->uv->nvalues, ref->uv->nvalues, "%s: coordinates", what);
    cr_assert_eq(memcmp(got->uv->index, ref->uv->index, sizeof(mmx_index) * (size_t)ref->M->nnz), 0,
                 "%s: the coordinates' index", what);
    const size_t n = 2 * (size_t)ref->uv->nvalues;
    if (tol == 0.0f)
        cr_assert_eq(memcmp(got->uv->values, ref->uv->values, n * sizeof(float)), 0, "%s: the values' bytes", what);
    for (size_t i = 0; i < n; i++)
        cr_assert(fabsf(got->uv->values[i] - ref->uv->values[i]) <= tol, "%s: value %zu is %g, the reference's %g",
                  what, i, (double)got->uv->values[i], (double)ref->uv->values[i]);
}

/* The default path on ctx (the kept texture mesh: the first call makes it, the second reads
 * it) against the reference on the host (the algebraic path: the texture mesh made and refined
 * by mmx_subdivide at every call), levels 1 to 3; then the index rewritten in place (one face's
 * corners rotated: the same number of coordinates), which the kept entry must not serve. */
static void kept_texture_mesh(mmx_ctx *ctx, mmx_ctx *host, float tol)
{
    for (int k = 0; k < NUV; k++) {
        mmx_scheme scheme;
        const char *name = NULL;
        mmx_mesh *m = uv_case(host, k, &scheme, &name), *in = NULL;
        cr_assert_not_null(m->uv, "%s has texture coordinates", name);
        MMX_OK_OR_FAIL(ctx, mmx_mesh_copy(ctx, m, mmx_ctx_space(ctx), &in));
        for (int rewrite = 0; rewrite < 2; rewrite++) {
            if (rewrite) { /* face 0's coordinates rotated by one corner, in place */
                mmx_index *ix = in->uv->index, first = ix[0];
                const mmx_index n = m->M->order ? m->M->order : m->M->colptr[1];
                for (mmx_index q = 0; q + 1 < n; q++) ix[q] = ix[q + 1];
                ix[n - 1] = first;
                memcpy(m->uv->index, ix, (size_t)n * sizeof *ix);
            }
            for (int l = 1; l <= 3; l++) {
                char label[200];
                snprintf(label, sizeof label, "%s%s, level %d (%s)", name, rewrite ? ", index rewritten" : "",
                         l, mmx_ctx_space(ctx) == MMX_SPACE_HOST ? "host" : "CUDA");
                mmx_mesh *ref = refine(host, scheme, m, l, MMX_SUBDIV_PATH_ALGEBRAIC);
                for (int rep = 0; rep < 2; rep++) {
                    mmx_mesh *got = refine(ctx, scheme, in, l, MMX_SUBDIV_PATH_AUTO), *h = to_host(ctx, got);
                    same_uv(h, ref, tol, label);
                    mmx_mesh_free(h), mmx_mesh_free(got);
                }
                /* textured.obj has no tags: what its mesh's cache holds is the texture mesh. */
                if (k == 0) cr_assert_gt(mmx_mesh_cache_bytes(in), 0, "%s: the texture mesh is not kept", label);
                mmx_mesh_free(ref);
            }
        }
        mmx_mesh_free(in), mmx_mesh_free(m);
    }
}

Test(subdiv_tags, uv_kept_texture_mesh_matches_reference,
     .description = "texture coordinates from the kept texture mesh = the reference route's, to the byte (host)")
{
    mmx_ctx *host = tu_host_ctx();
    kept_texture_mesh(host, host, 0.0f);
    mmx_ctx_free(host);
}

Test(subdiv_tags, gpu_uv_kept_texture_mesh_matches_host,
     .description = "texture coordinates on CUDA from the kept texture mesh = the host's reference route")
{
    mmx_ctx *gpu = tu_cuda_ctx_or_skip();
    mmx_ctx *host = tu_host_ctx();
    kept_texture_mesh(gpu, host, 1e-6f);
    mmx_ctx_free(host);
    mmx_ctx_free(gpu);
}

/* The waits of a textured cage's call on CUDA (issue 30): the first call keeps the texture
 * mesh (and the tags' entry), every later one waits as often as the same cage without texture
 * coordinates, at most twice (with holes: after a first call of the same levels), and gives
 * the first call's bytes. */
Test(subdiv_tags, gpu_uv_cage_waits_twice, .description = "a textured cage on CUDA: at most 2 waits a call")
{
    mmx_ctx *gpu = tu_cuda_ctx_or_skip();
    mmx_ctx *host = tu_host_ctx();
    for (int k = 0; k < NUV - 1; k++) { /* cube.obj's texture mesh takes the reference route */
        mmx_scheme scheme;
        const char *name = NULL;
        mmx_mesh *m = uv_case(host, k, &scheme, &name), *in = NULL, *in0 = NULL;
        MMX_OK_OR_FAIL(gpu, mmx_mesh_copy(gpu, m, MMX_SPACE_DEVICE, &in));
        MMX_OK_OR_FAIL(gpu, mmx_mesh_copy(gpu, m, MMX_SPACE_DEVICE, &in0));
        mmx_mesh_uv_free(in0->uv);
        in0->uv = NULL;
        const int holes = m->tags && strstr(m->tags, "t hole");
        mmx_mesh *first = refine(gpu, scheme, in, 3, MMX_SUBDIV_PATH_AUTO), *fh = to_host(gpu, first);
        mmx_mesh_free(refine(gpu, scheme, in0, 3, MMX_SUBDIV_PATH_AUTO)); /* its tags' entry */
        for (int levels = 1; levels <= 3; levels++) {
            /* Holes' removal remembers its read-back per levels (holes.c): a call of these
             * levels first. */
            if (holes) mmx_mesh_free(refine(gpu, scheme, in, levels, MMX_SUBDIV_PATH_AUTO));
            if (holes) mmx_mesh_free(refine(gpu, scheme, in0, levels, MMX_SUBDIV_PATH_AUTO));
            unsigned long long w0 = mmx__ctx_syncs(gpu);
            mmx_mesh *r = refine(gpu, scheme, in, levels, MMX_SUBDIV_PATH_AUTO);
            const unsigned long long w = mmx__ctx_syncs(gpu) - w0;
            w0 = mmx__ctx_syncs(gpu);
            mmx_mesh_free(refine(gpu, scheme, in0, levels, MMX_SUBDIV_PATH_AUTO));
            const unsigned long long plain = mmx__ctx_syncs(gpu) - w0;
            cr_assert_leq(w, plain, "%s, %d levels: %llu waits, without coordinates %llu", name, levels, w, plain);
            cr_assert_leq(w, 2, "%s, %d levels: %llu waits", name, levels, w);
            if (levels == 3) {
                mmx_mesh *h = to_host(gpu, r);
                same_uv(h, fh, 0.0f, name); /* the kept texture mesh's call = the first call */
                mmx_mesh_free(h);
            }
            mmx_mesh_free(r);
        }
        mmx_mesh_free(fh), mmx_mesh_free(first);
        mmx_mesh_free(in), mmx_mesh_free(in0), mmx_mesh_free(m);
    }
    mmx_ctx_free(host);
    mmx_ctx_free(gpu);
}

/* Loop's linear mode on CUDA numbers the coordinates by value (a sort on the device): one wait
 * for their number beyond the cage without coordinates, the cage's faces not read back (its
 * coordinates are on the host already); the host's coordinates exactly. */
Test(subdiv_tags, gpu_uv_loop_waits_once_more, .description = "Loop's linear texture coordinates on CUDA: one wait more than none")
{
    mmx_ctx *gpu = tu_cuda_ctx_or_skip();
    mmx_ctx *host = tu_host_ctx();
    mmx_mesh *quads = read_data(host, "bigguy_quads.obj"), *tri = NULL, *in = NULL, *in0 = NULL;
    MMX_OK_OR_FAIL(host, mmx_mesh_triangulate(host, quads, &tri));
    cr_assert_not_null(tri->uv);
    MMX_OK_OR_FAIL(gpu, mmx_mesh_copy(gpu, tri, MMX_SPACE_DEVICE, &in));
    MMX_OK_OR_FAIL(gpu, mmx_mesh_copy(gpu, tri, MMX_SPACE_DEVICE, &in0));
    mmx_mesh_uv_free(in0->uv);
    in0->uv = NULL;
    for (int levels = 1; levels <= 2; levels++) {
        unsigned long long w0 = mmx__ctx_syncs(gpu);
        mmx_mesh *r = refine(gpu, MMX_SCHEME_LOOP, in, levels, MMX_SUBDIV_PATH_AUTO);
        const unsigned long long w = mmx__ctx_syncs(gpu) - w0;
        w0 = mmx__ctx_syncs(gpu);
        mmx_mesh_free(refine(gpu, MMX_SCHEME_LOOP, in0, levels, MMX_SUBDIV_PATH_AUTO));
        const unsigned long long plain = mmx__ctx_syncs(gpu) - w0;
        cr_assert_leq(w, plain + 1, "Loop, %d levels: %llu waits, without coordinates %llu", levels, w, plain);
        mmx_mesh *ref = refine(host, MMX_SCHEME_LOOP, tri, levels, MMX_SUBDIV_PATH_AUTO), *h = to_host(gpu, r);
        same_uv(h, ref, 0.0f, "Loop's linear mode"); /* the per-corner rule rounds alike (uv_face.h) */
        mmx_mesh_free(h), mmx_mesh_free(ref), mmx_mesh_free(r);
    }
    mmx_mesh_free(in), mmx_mesh_free(in0), mmx_mesh_free(tri), mmx_mesh_free(quads);
    mmx_ctx_free(host);
    mmx_ctx_free(gpu);
}

/* ---- holes left out: the bytes of the host rebuild they replaced ---- */

/* Holes' cases: OpenSubdiv's hole shapes (tests/data/catmark_hole_test1-4.obj, with their
 * texture coordinates, creases and boundary tags) and procedural cages of every scheme, with
 * creases, corners, texture coordinates, a general-form input, every face a hole and an
 * isolated vertex; *levels: the most levels refined (host). */
static mmx_mesh *hole_case(mmx_ctx *host, int k, mmx_scheme *scheme, int *levels, const char **name)
{
    static const char *files[] = {"catmark_hole_test1.obj", "catmark_hole_test2.obj",
                                  "catmark_hole_test3.obj", "catmark_hole_test4.obj"};
    *scheme = CC, *levels = 3;
    if (k < 4) return *name = files[k], read_data(host, files[k]);
    switch (k) {
    case 4:
        *name = "grid, holes, creases, a corner";
        return with_creases(shape(host, "grid:9:7"), 3, "t hole 3/0/0 0 10 30\nt corner 1/1/0 5 3\n");
    case 5: *name = "torus, holes, creases"; return with_creases(shape(host, "torus:8:6"), 2, "t hole 2/0/0 5 20\n");
    case 6: *name = "mixed faces with coordinates, a hole"; return retag(mixed_uv(host), "t hole 1/0/0 1\nt crease 2/1/0 1 2 2\n");
    case 7:
        *name = "mixed faces with coordinates, bilinear, a hole", *scheme = MMX_SCHEME_BILINEAR;
        return retag(mixed_uv(host), "t hole 1/0/0 0\n");
    case 8:
        *name = "Loop triangle grid, holes, creases", *scheme = MMX_SCHEME_LOOP;
        return with_creases(tri_grid(host, 6, 5), 4, "t hole 3/0/0 0 4 17\n");
    case 9:
        *name = "Loop icosphere, holes, a corner", *scheme = MMX_SCHEME_LOOP;
        return retag(shape(host, "icosphere:1"), "t hole 2/0/0 3 7\nt corner 1/1/0 2 4\n");
    case 10: *name = "sqrt3 icosphere, holes", *scheme = MMX_SCHEME_SQRT3; return retag(shape(host, "icosphere:1"), "t hole 2/0/0 3 7\n");
    case 11: *name = "textured.obj, a hole"; return retag(read_data(host, "textured.obj"), "t hole 1/0/0 0\n");
    case 12: *name = "cube, every face a hole"; return retag(shape(host, "cube"), "t hole 6/0/0 0 1 2 3 4 5\n");
    case 13: {
        *name = "two quads and an isolated vertex, a hole";
        const float pos[] = {0, 0, 0, 1, 0, 0, 2, 0, 0, 0, 1, 0, 1, 1, 0, 2, 1, 0, 5, 5, 5};
        const int lists[] = {0, 1, 4, 3, -1, 1, 2, 5, 4, -1};
        return retag(from_lists(host, 7, pos, lists, 10), "t hole 1/0/0 1\n");
    }
    case 14:
        *name = "bigguy_quads.obj, a hole, coordinates", *levels = 2;
        return retag(read_data(host, "bigguy_quads.obj"), "t hole 2/0/0 2 700\nt interpolateboundary 1/0/0 1\n");
    default: return NULL;
    }
}
enum { NHOLES = 15 };

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

/* The bytes of a host mesh that the holes' removal makes: the matrix (sizes, form,
 * properties, entries), the positions, the texture coordinates (values, the corners' index)
 * and the tags' text. */
static uint64_t mesh_digest(const mmx_mesh *m)
{
    const mmx_csc *M = m->M;
    uint64_t h = 14695981039346656037ull;
    const mmx_index head[] = {M->nrows, M->ncols, M->nnz, M->order, M->maxcol, M->minval, M->maxval,
                              (mmx_index)M->positional};
    h = fnv(h, head, sizeof head);
    h = fnv(h, M->rowidx, (size_t)M->nnz * sizeof *M->rowidx);
    if (!M->order) h = fnv(h, M->colptr, ((size_t)M->ncols + 1) * sizeof *M->colptr);
    if (!M->order) h = fnv(h, M->val, (size_t)M->nnz * sizeof *M->val);
    h = fnv(h, m->pos, 3 * (size_t)M->nrows * sizeof *m->pos);
    if (m->uv) {
        h = fnv(h, &m->uv->nvalues, sizeof m->uv->nvalues);
        h = fnv(h, m->uv->values, 2 * (size_t)m->uv->nvalues * sizeof *m->uv->values);
        h = fnv(h, m->uv->index, (size_t)M->nnz * sizeof *m->uv->index);
    }
    if (m->tags) h = fnv(h, m->tags, strlen(m->tags));
    return h;
}

/* The digests of the host rebuild (src/subdiv/holes.c before the holes were left out by the
 * algebra's column selection), case by case, levels 1 to the case's most, holes left out then
 * kept. */
static const uint64_t hole_digests[] = {
    0xf8a1ea521b4558daull, /* catmark_hole_test1.obj, 1 levels, left out */
    0xbd37381bc2e9a73bull, /* catmark_hole_test1.obj, 1 levels, kept */
    0xbb2dfc5ce3d92515ull, /* catmark_hole_test1.obj, 2 levels, left out */
    0x0529fa15565cc849ull, /* catmark_hole_test1.obj, 2 levels, kept */
    0xe5d8f3da650cd659ull, /* catmark_hole_test1.obj, 3 levels, left out */
    0xb057906f6adb0371ull, /* catmark_hole_test1.obj, 3 levels, kept */
    0x394bfb7ec983cb28ull, /* catmark_hole_test2.obj, 1 levels, left out */
    0xbce8eb5980ebc366ull, /* catmark_hole_test2.obj, 1 levels, kept */
    0x2c5ca8740dc6e1b4ull, /* catmark_hole_test2.obj, 2 levels, left out */
    0x280b91a6da94c40full, /* catmark_hole_test2.obj, 2 levels, kept */
    0xae46c8c22e81afd5ull, /* catmark_hole_test2.obj, 3 levels, left out */
    0xb6a865ffd4e5e2f1ull, /* catmark_hole_test2.obj, 3 levels, kept */
    0x50e3f87e76e271c4ull, /* catmark_hole_test3.obj, 1 levels, left out */
    0x641f3dfaf7d5ab5eull, /* catmark_hole_test3.obj, 1 levels, kept */
    0xe7ca867aa38188a9ull, /* catmark_hole_test3.obj, 2 levels, left out */
    0x3ec8a5d8594ae40bull, /* catmark_hole_test3.obj, 2 levels, kept */
    0xa959d25da8abc54dull, /* catmark_hole_test3.obj, 3 levels, left out */
    0xb936ce4aee2d873eull, /* catmark_hole_test3.obj, 3 levels, kept */
    0x45fa0d67f4679c97ull, /* catmark_hole_test4.obj, 1 levels, left out */
    0x3955a32533ac1287ull, /* catmark_hole_test4.obj, 1 levels, kept */
    0x514dc88f0d4b71b4ull, /* catmark_hole_test4.obj, 2 levels, left out */
    0x1c146a5613676290ull, /* catmark_hole_test4.obj, 2 levels, kept */
    0x4e92261975989f4dull, /* catmark_hole_test4.obj, 3 levels, left out */
    0xe6d4e2edc5ff6760ull, /* catmark_hole_test4.obj, 3 levels, kept */
    0xde4a5cd2f33785adull, /* grid, holes, creases, a corner, 1 levels, left out */
    0xe638863723db75d0ull, /* grid, holes, creases, a corner, 1 levels, kept */
    0x1e8f13f5c0d99e3aull, /* grid, holes, creases, a corner, 2 levels, left out */
    0x5adaddc05be4c094ull, /* grid, holes, creases, a corner, 2 levels, kept */
    0x581706fa0ba998e5ull, /* grid, holes, creases, a corner, 3 levels, left out */
    0xcbc22bdcfc652b7eull, /* grid, holes, creases, a corner, 3 levels, kept */
    0xfb07e52229a3dfdaull, /* torus, holes, creases, 1 levels, left out */
    0x7de6ec9cf9be40a7ull, /* torus, holes, creases, 1 levels, kept */
    0x900b1ec78c455f3dull, /* torus, holes, creases, 2 levels, left out */
    0xc7ef1aef954e437eull, /* torus, holes, creases, 2 levels, kept */
    0x1cba9417cae61d42ull, /* torus, holes, creases, 3 levels, left out */
    0xa7f80e4ac6a296ddull, /* torus, holes, creases, 3 levels, kept */
    0x47cffb97b1eb838cull, /* mixed faces with coordinates, a hole, 1 levels, left out */
    0x48419944f48efd92ull, /* mixed faces with coordinates, a hole, 1 levels, kept */
    0xe8f3cb2360ea2c7cull, /* mixed faces with coordinates, a hole, 2 levels, left out */
    0x9ad9b60cb8b88bf8ull, /* mixed faces with coordinates, a hole, 2 levels, kept */
    0xbe07b1d724b95bd7ull, /* mixed faces with coordinates, a hole, 3 levels, left out */
    0x7afc02166b6e786bull, /* mixed faces with coordinates, a hole, 3 levels, kept */
    0xe08dcc92be2d5c15ull, /* mixed faces with coordinates, bilinear, a hole, 1 levels, left out */
    0x2703786a5d65807full, /* mixed faces with coordinates, bilinear, a hole, 1 levels, kept */
    0xc5325e06b9487d24ull, /* mixed faces with coordinates, bilinear, a hole, 2 levels, left out */
    0xdb8392a5ae918ba6ull, /* mixed faces with coordinates, bilinear, a hole, 2 levels, kept */
    0xdf22491aa52cd35dull, /* mixed faces with coordinates, bilinear, a hole, 3 levels, left out */
    0x55a911f2b7af6629ull, /* mixed faces with coordinates, bilinear, a hole, 3 levels, kept */
    0xde0a09541b31579eull, /* Loop triangle grid, holes, creases, 1 levels, left out */
    0x92f78c00fdf9a860ull, /* Loop triangle grid, holes, creases, 1 levels, kept */
    0x7b0ddd7ddb067d42ull, /* Loop triangle grid, holes, creases, 2 levels, left out */
    0x17996d8e4725daf3ull, /* Loop triangle grid, holes, creases, 2 levels, kept */
    0x9d950e0523739f3full, /* Loop triangle grid, holes, creases, 3 levels, left out */
    0x41a0756c8eb5b2dfull, /* Loop triangle grid, holes, creases, 3 levels, kept */
    0xa5626f7fcc5c2ae3ull, /* Loop icosphere, holes, a corner, 1 levels, left out */
    0x7b574eb673f15888ull, /* Loop icosphere, holes, a corner, 1 levels, kept */
    0x636e2085a68d2f40ull, /* Loop icosphere, holes, a corner, 2 levels, left out */
    0xd6c0ea34aa55d67dull, /* Loop icosphere, holes, a corner, 2 levels, kept */
    0xb975abec62cae7baull, /* Loop icosphere, holes, a corner, 3 levels, left out */
    0x5216526614a7809dull, /* Loop icosphere, holes, a corner, 3 levels, kept */
    0x23915b8b2d360b4cull, /* sqrt3 icosphere, holes, 1 levels, left out */
    0x62e83e6402ccd7b8ull, /* sqrt3 icosphere, holes, 1 levels, kept */
    0x23f762399f5a768bull, /* sqrt3 icosphere, holes, 2 levels, left out */
    0xa1e12257919484f4ull, /* sqrt3 icosphere, holes, 2 levels, kept */
    0x64d6b69de6f3db2aull, /* sqrt3 icosphere, holes, 3 levels, left out */
    0x91b782f9c9b0799full, /* sqrt3 icosphere, holes, 3 levels, kept */
    0x53fe81cdbf88078eull, /* textured.obj, a hole, 1 levels, left out */
    0x0128145a9feb560bull, /* textured.obj, a hole, 1 levels, kept */
    0xbaba3c52f66d1444ull, /* textured.obj, a hole, 2 levels, left out */
    0xf778c21b5102b26aull, /* textured.obj, a hole, 2 levels, kept */
    0xaf72ccd4e6b52dc1ull, /* textured.obj, a hole, 3 levels, left out */
    0xd8ed8feebe4ac0acull, /* textured.obj, a hole, 3 levels, kept */
    0x75422b7f36540454ull, /* cube, every face a hole, 1 levels, left out */
    0x3c066eabc445a69full, /* cube, every face a hole, 1 levels, kept */
    0x75422b7f36540454ull, /* cube, every face a hole, 2 levels, left out */
    0xcaff3bef43621bd7ull, /* cube, every face a hole, 2 levels, kept */
    0x75422b7f36540454ull, /* cube, every face a hole, 3 levels, left out */
    0xa66823ffbf0a0722ull, /* cube, every face a hole, 3 levels, kept */
    0x55d612de7621cfa1ull, /* two quads and an isolated vertex, a hole, 1 levels, left out */
    0xc217493fae3bad00ull, /* two quads and an isolated vertex, a hole, 1 levels, kept */
    0xab5887725903f38eull, /* two quads and an isolated vertex, a hole, 2 levels, left out */
    0x4b05a486cd9f3103ull, /* two quads and an isolated vertex, a hole, 2 levels, kept */
    0x98d008713736021cull, /* two quads and an isolated vertex, a hole, 3 levels, left out */
    0x9cba29dbe0150828ull, /* two quads and an isolated vertex, a hole, 3 levels, kept */
    0x625d5b55ad69524cull, /* bigguy_quads.obj, a hole, coordinates, 1 levels, left out */
    0x9c3fd003961a1fc4ull, /* bigguy_quads.obj, a hole, coordinates, 1 levels, kept */
    0x77355ad3e78eb774ull, /* bigguy_quads.obj, a hole, coordinates, 2 levels, left out */
    0x7f43dab3021813ebull, /* bigguy_quads.obj, a hole, coordinates, 2 levels, kept */
};

Test(subdiv_tags, holes_removed_as_the_host_rebuild_did,
     .description = "holes left out (and kept): the bytes of the host rebuild they replaced (host)")
{
    mmx_ctx *host = tu_host_ctx();
    size_t q = 0;
    const int record = getenv("MMX_RECORD_HOLES") != NULL;
    for (int k = 0; k < NHOLES; k++) {
        mmx_scheme scheme;
        int levels = 0;
        const char *name = NULL;
        mmx_mesh *m = hole_case(host, k, &scheme, &levels, &name);
        for (int l = 1; l <= levels; l++)
            for (int mode = 0; mode < 2; mode++, q++) {
                mmx_subdiv_options o = {0};
                o.holes = mode ? MMX_HOLES_KEEP : MMX_HOLES_REMOVE;
                mmx_mesh *r = NULL;
                MMX_OK_OR_FAIL(host, mmx_subdivide(host, scheme, m, l, &o, &r));
                const uint64_t d = mesh_digest(r);
                if (record) printf("    0x%016llxull, /* %s, %d levels, %s */\n", (unsigned long long)d, name, l, mode ? "kept" : "left out");
                else cr_assert(q < sizeof hole_digests / sizeof *hole_digests && d == hole_digests[q],
                               "%s, %d levels, holes %s: the bytes differ from the host rebuild's", name, l, mode ? "kept" : "left out");
                mmx_mesh_free(r);
            }
        mmx_mesh_free(m);
    }
    cr_assert(record || q == sizeof hole_digests / sizeof *hole_digests, "%zu results, %zu digests", q, sizeof hole_digests / sizeof *hole_digests);
    mmx_ctx_free(host);
}

/* The holes' cases on CUDA against the host: the same faces, vertices, texture coordinates'
 * index and tags to the byte, positions and coordinate values within 1e-6 (the levels' floats);
 * each call twice, the second (whose counts and numbers come from the mesh's tag entry, not
 * read back) the first's bytes. */
Test(subdiv_tags, gpu_holes_removed_as_on_the_host,
     .description = "holes left out (and kept) on CUDA: the host's result, the second call the first's bytes")
{
    mmx_ctx *gpu = tu_cuda_ctx_or_skip();
    mmx_ctx *host = tu_host_ctx();
    for (int k = 0; k < NHOLES; k++) {
        mmx_scheme scheme;
        int levels = 0;
        const char *name = NULL;
        mmx_mesh *m = hole_case(host, k, &scheme, &levels, &name), *in = NULL;
        MMX_OK_OR_FAIL(gpu, mmx_mesh_copy(gpu, m, MMX_SPACE_DEVICE, &in));
        for (int l = 1; l <= levels; l++)
            for (int mode = 0; mode < 2; mode++) {
                char label[200];
                snprintf(label, sizeof label, "%s, %d levels, holes %s", name, l, mode ? "kept" : "left out");
                mmx_subdiv_options o = {0};
                o.holes = mode ? MMX_HOLES_KEEP : MMX_HOLES_REMOVE;
                mmx_mesh *ref = NULL, *a = NULL, *b = NULL;
                MMX_OK_OR_FAIL(host, mmx_subdivide(host, scheme, m, l, &o, &ref));
                MMX_OK_OR_FAIL(gpu, mmx_subdivide(gpu, scheme, in, l, &o, &a));
                MMX_OK_OR_FAIL(gpu, mmx_subdivide(gpu, scheme, in, l, &o, &b));
                mmx_mesh *ha = to_host(gpu, a), *hb = to_host(gpu, b);
                cr_assert_eq(ha->M->ncols, ref->M->ncols, "%s: faces", label);
                cr_assert_eq(ha->M->order, ref->M->order, "%s: form", label);
                same(ha, ref, 1e-6, label);
                if (ref->uv) same_uv(ha, ref, 1e-6f, label);
                cr_assert_eq(mesh_digest(hb), mesh_digest(ha), "%s: the second call's bytes differ", label);
                mmx_mesh_free(ha), mmx_mesh_free(hb), mmx_mesh_free(a), mmx_mesh_free(b), mmx_mesh_free(ref);
            }
        mmx_mesh_free(in), mmx_mesh_free(m);
    }
    mmx_ctx_free(host);
    mmx_ctx_free(gpu);
}

/* The waits of a cage with holes on CUDA (issue 30): once a call of the same levels has left
 * the holes' counts and new numbers in the mesh's tag entry, a call waits no more than the
 * same cage untagged, and at most twice where that one does, with creases, corners and
 * texture coordinates or without. */
Test(subdiv_tags, gpu_holes_cage_waits_twice, .description = "a cage with holes on CUDA: at most 2 waits a call")
{
    mmx_ctx *gpu = tu_cuda_ctx_or_skip();
    mmx_ctx *host = tu_host_ctx();
    for (int k = 0; k < NHOLES; k++) {
        mmx_scheme scheme;
        int levels = 0;
        const char *name = NULL;
        mmx_mesh *m = hole_case(host, k, &scheme, &levels, &name), *in = NULL, *in0 = NULL;
        MMX_OK_OR_FAIL(gpu, mmx_mesh_copy(gpu, m, MMX_SPACE_DEVICE, &in));
        MMX_OK_OR_FAIL(gpu, mmx_mesh_copy(gpu, m, MMX_SPACE_DEVICE, &in0));
        retag(in0, NULL);
        for (int l = 1; l <= levels; l++) {
            mmx_mesh_free(refine(gpu, scheme, in, l, MMX_SUBDIV_PATH_AUTO)); /* the entry, the memo */
            mmx_mesh_free(refine(gpu, scheme, in0, l, MMX_SUBDIV_PATH_AUTO));
            unsigned long long w0 = mmx__ctx_syncs(gpu);
            mmx_mesh_free(refine(gpu, scheme, in, l, MMX_SUBDIV_PATH_AUTO));
            const unsigned long long w = mmx__ctx_syncs(gpu) - w0;
            w0 = mmx__ctx_syncs(gpu);
            mmx_mesh_free(refine(gpu, scheme, in0, l, MMX_SUBDIV_PATH_AUTO));
            const unsigned long long plain = mmx__ctx_syncs(gpu) - w0;
            cr_log_info("%s, %d levels: %llu waits, untagged %llu", name, l, w, plain);
            /* The holes add none; the bound is the untagged cage's where something else waits
             * (catmark_hole_test4's texture coordinates, one value on every corner: faces
             * repeating a coordinate, which the reference route reads back every call). */
            cr_assert_leq(w, plain, "%s, %d levels: %llu waits, untagged %llu", name, l, w, plain);
            cr_assert_leq(w, plain > 2 ? plain : 2, "%s, %d levels: %llu waits (untagged: %llu)", name, l, w, plain);
        }
        mmx_mesh_free(in), mmx_mesh_free(in0), mmx_mesh_free(m);
    }
    mmx_ctx_free(host);
    mmx_ctx_free(gpu);
}
