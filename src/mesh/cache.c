/* The mesh's cache (mesh.h): what calls make from the topology alone, kept with the mesh for the
 * next call. An entry is valid for the matrix it was made from, which the cache records (the
 * matrix, its arrays and sizes): a struct copy of the mesh that keeps M shares the entries,
 * one that swaps M in finds them not its own and computes. Only the mesh's own context uses
 * the cache, so that one thread at a time touches it (core.h's rule for contexts). */
#include <stdlib.h>
#include "mesh_internal.h"

struct mmx__mesh_cache {
    /* The matrix the entries were made from (set by the first entry kept). */
    const mmx_csc *M;
    const mmx_index *rowidx, *colptr;
    mmx_index nrows, ncols, nnz, order;
    struct {
        void *obj;
        void (*free_fn)(void *);
        size_t bytes;
    } slot[MMX__CACHE_SLOTS];
};

void mmx__mesh_cache_attach(mmx_mesh *mesh)
{
    if (mesh && !mesh->cache) mesh->cache = calloc(1, sizeof *mesh->cache);
}

static int cache_empty(const struct mmx__mesh_cache *c)
{
    for (int i = 0; i < MMX__CACHE_SLOTS; i++)
        if (c->slot[i].obj) return 0;
    return 1;
}

static void cache_clear(struct mmx__mesh_cache *c)
{
    for (int i = MMX__CACHE_SLOTS - 1; i >= 0; i--) {
        if (c->slot[i].obj) c->slot[i].free_fn(c->slot[i].obj);
        c->slot[i].obj = NULL;
        c->slot[i].bytes = 0;
    }
    c->M = NULL;
}

void mmx__mesh_cache_free(mmx_mesh *mesh)
{
    if (!mesh || !mesh->cache) return;
    cache_clear(mesh->cache);
    free(mesh->cache);
    mesh->cache = NULL;
}

void mmx_mesh_release_cache(mmx_mesh *mesh)
{
    if (mesh && mesh->cache) cache_clear(mesh->cache);
}

size_t mmx_mesh_cache_bytes(const mmx_mesh *mesh)
{
    size_t bytes = 0;
    for (int i = 0; mesh && mesh->cache && i < MMX__CACHE_SLOTS; i++) bytes += mesh->cache->slot[i].bytes;
    return bytes;
}

/* Whether the cache serves a call on ctx for this mesh, and (matches) whether its entries are
 * this M's. */
static struct mmx__mesh_cache *serving(mmx_ctx *ctx, const mmx_mesh *mesh, int *matches)
{
    struct mmx__mesh_cache *c = mesh ? mesh->cache : NULL;
    if (!c || !ctx || ctx != mesh->ctx || mesh->space != mmx_ctx_space(ctx) || !mesh->M) return NULL;
    const mmx_csc *M = mesh->M;
    *matches = c->M == M && c->rowidx == M->rowidx && c->colptr == M->colptr &&
               c->nrows == M->nrows && c->ncols == M->ncols && c->nnz == M->nnz && c->order == M->order;
    return c;
}

void mmx__mesh_cache_drop(const mmx_mesh *mesh, int slot)
{
    struct mmx__mesh_cache *c = mesh ? mesh->cache : NULL;
    if (!c || !c->slot[slot].obj) return;
    c->slot[slot].free_fn(c->slot[slot].obj);
    c->slot[slot].obj = NULL;
    c->slot[slot].bytes = 0;
}

void *mmx__mesh_cache_get(mmx_ctx *ctx, const mmx_mesh *mesh, int slot)
{
    int matches = 0;
    struct mmx__mesh_cache *c = serving(ctx, mesh, &matches);
    return c && matches ? c->slot[slot].obj : NULL;
}

int mmx__mesh_cache_put(mmx_ctx *ctx, const mmx_mesh *mesh, int slot, void *obj,
                        void (*free_fn)(void *), size_t bytes)
{
    int matches = 0;
    struct mmx__mesh_cache *c = serving(ctx, mesh, &matches);
    if (!c || !obj) return 0;
    if (!matches) {
        /* Entries of another matrix stay theirs (a view's M is not the mesh's). */
        if (!cache_empty(c)) return 0;
        const mmx_csc *M = mesh->M;
        c->M = M, c->rowidx = M->rowidx, c->colptr = M->colptr;
        c->nrows = M->nrows, c->ncols = M->ncols, c->nnz = M->nnz, c->order = M->order;
    }
    if (c->slot[slot].obj) return 0;
    c->slot[slot].obj = obj;
    c->slot[slot].free_fn = free_fn;
    c->slot[slot].bytes = bytes;
    return 1;
}

size_t mmx__csc_bytes(const mmx_csc *A)
{
    if (!A) return 0;
    const size_t ix = sizeof(mmx_index);
    return (size_t)A->nnz * ix * (A->val ? 2 : 1) + (A->colptr ? ((size_t)A->ncols + 1) * ix : 0);
}

/* E, F, edge_ptr, ev, sides, fe (one per corner), valence, boundary. */
static size_t adjacency_bytes(const mmx_adjacency *a, mmx_index corners)
{
    const size_t ix = sizeof(mmx_index);
    return mmx__csc_bytes(a->E) + mmx__csc_bytes(a->F) + ((size_t)a->nverts + 1) * ix +
           3 * (size_t)a->nedges * ix + (size_t)corners * ix + (size_t)a->nverts * (ix + 1);
}

static void free_adjacency(void *a) { mmx_adjacency_free(a); }

mmx_status mmx__mesh_adjacency(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_adjacency **adj,
                               mmx_adjacency **own)
{
    *own = NULL;
    *adj = mmx__mesh_cache_get(ctx, mesh, MMX__CACHE_ADJ);
    if (*adj) return MMX_OK;
    mmx_adjacency *a = NULL;
    mmx_status s = mmx_adjacency_compute(ctx, mesh, &a);
    if (s) return s;
    if (!mmx__mesh_cache_put(ctx, mesh, MMX__CACHE_ADJ, a, free_adjacency, adjacency_bytes(a, mesh->M->nnz)))
        *own = a;
    *adj = a;
    return MMX_OK;
}

mmx_status mmx__mesh_adjacency_view(mmx_ctx *ctx, const mmx_mesh *mesh, mmx_adjacency **out)
{
    *out = NULL;
    const mmx_adjacency *a = NULL;
    mmx_adjacency *own = NULL;
    mmx_status s = mmx__mesh_adjacency(ctx, mesh, &a, &own);
    if (s || own) {
        *out = own;
        return s;
    }
    mmx_adjacency *v = malloc(sizeof *v);
    if (!v) return mmx__fail(ctx, MMX_ERR_NOMEM, "adjacency: out of host memory");
    *v = *a;
    v->view = 1;
    *out = v;
    return MMX_OK;
}
