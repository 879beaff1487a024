/* The cavity operator, host reference (dynamic mesh processing): a round builds each seed's
 * cavity, keeps the lexicographically first maximal independent set of non-conflicting
 * cavities by priority (dynamic.h states the rule), and fills the kept ones in place, as
 * deleting and appending columns of M would, but keeping face ids so numbering stays stable.
 * The edge flip lives here: the seed edge's two faces (a, b, c) and (b, a, d) become (a, d, c)
 * and (d, b, c), the quad's other diagonal. The split and the collapse are split_collapse.c's. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "dynamic_internal.h"

uint64_t mmx_cavity_priority(mmx_index edge, uint32_t round)
{
    /* splitmix64's finaliser (flip_step.h): consecutive edges and rounds get unrelated
     * priorities, so a round does not favour low edge numbers and successive rounds
     * reshuffle. */
    return mmx__priority(edge, round);
}

/* Builds seed edge e's flip cavity into *sd; 1 when it is valid (flip_step.h: the code the
 * CUDA round runs too). */
static int flip_cavity(const mmx__flip_topo *t, const float *pos, mmx_index e, mmx_cavity_seed *sd)
{
    return mmx__fv_flip_cavity(&t->view, pos, e, sd);
}

/* Seed e's cavity of the given kind: sd's fields and its faces ring[0..*nring); 1 if valid.
 * place: a collapse's merged vertex (NULL: the midpoint). */
static int build_cavity(const mmx__flip_topo *t, const float *pos, mmx_cavity_kind kind,
                        mmx_index e, const float *place, mmx_cavity_seed *sd, mmx_index *ring,
                        mmx_index *nring)
{
    sd->faces[0] = sd->faces[1] = sd->new_edge[0] = sd->new_edge[1] = sd->vertex = -1;
    if (kind == MMX_CAVITY_EDGE_SPLIT) return mmx__split_cavity(t, pos, e, sd, ring, nring);
    if (kind == MMX_CAVITY_EDGE_COLLAPSE)
        return mmx__collapse_cavity_at(t, pos, e, place, sd, ring, nring);
    const int ok = flip_cavity(t, pos, e, sd);
    ring[0] = sd->faces[0], ring[1] = sd->faces[1];
    *nring = ok ? 2 : 0;
    return ok;
}

static int key_cmp(const void *x, const void *y)
{
    const mmx__cavity_key *a = x, *b = y;
    if (a->priority != b->priority) return a->priority < b->priority ? -1 : 1;
    if (a->elem != b->elem) return a->elem < b->elem ? -1 : 1;
    return (a->seed > b->seed) - (a->seed < b->seed);
}

mmx_status mmx__round_result(mmx_ctx *ctx, mmx_status s, mmx_mesh *m, mmx_mesh **out)
{
    if (!s && m->M->ncols > 0) s = mmx_mesh_reduce(ctx, m);
    if (s) mmx_mesh_free(m);
    else *out = m;
    return s;
}

void mmx__cavity_key_sort(mmx__cavity_key *order, mmx_index n)
{
    qsort(order, (size_t)n, sizeof *order, key_cmp);
}

/* An open-addressing set of the edges the kept fills create (key lo << 32 | hi, never 0
 * since lo < hi; 0 marks an empty slot). Returns 1 when `k` was already there. */
static int edge_set_insert(uint64_t *slot, size_t mask, uint64_t k)
{
    size_t h = (size_t)(mmx_cavity_priority((mmx_index)(k >> 32), (uint32_t)k) & mask);
    while (slot[h]) {
        if (slot[h] == k) return 1;
        h = (h + 1) & mask;
    }
    slot[h] = k;
    return 0;
}

static int edge_set_has(const uint64_t *slot, size_t mask, uint64_t k)
{
    size_t h = (size_t)(mmx_cavity_priority((mmx_index)(k >> 32), (uint32_t)k) & mask);
    while (slot[h]) {
        if (slot[h] == k) return 1;
        h = (h + 1) & mask;
    }
    return 0;
}

mmx_index mmx__cavity_select(const mmx__cavity_key *order, mmx_index nvalid, mmx_cavity_seed *sd,
                              const mmx_index *ptr, const mmx_index *ring, unsigned char *taken,
                              uint64_t *slot, size_t mask, int flip, mmx_index *kept)
{
    mmx_index nkept = 0;
    for (mmx_index i = 0; i < nvalid; i++) {
        const mmx_index j = order[i].seed;
        mmx_cavity_seed *s = &sd[j];
        const uint64_t k = (uint64_t)(uint32_t)s->new_edge[0] << 32 | (uint32_t)s->new_edge[1];
        int free_ = !flip || !edge_set_has(slot, mask, k);
        for (mmx_index r = ptr[j]; r < ptr[j + 1] && free_; r++) free_ = !taken[ring[r]];
        if (!free_) {
            s->outcome = MMX_CAVITY_CONFLICT;
            continue;
        }
        s->outcome = MMX_CAVITY_KEPT;
        kept[nkept++] = j;
        for (mmx_index r = ptr[j]; r < ptr[j + 1]; r++) taken[ring[r]] = 1;
        if (flip) edge_set_insert(slot, mask, k);
    }
    return nkept;
}

/* Fills a kept flip in place: the same two face ids, across the other diagonal. */
static void fill_flip(const mmx__flip_topo *t, mmx_index e, mmx_index *verts)
{
    mmx__fv_fill_flip(&t->view, e, verts);
}

/* The cavity of seed i may hold this many faces (its ring's bound). */
static size_t ring_bound(const mmx__flip_topo *t, mmx_cavity_kind kind, mmx_index e)
{
    if (kind != MMX_CAVITY_EDGE_COLLAPSE) return 2;
    const mmx_index a = t->adj->ev[2 * (size_t)e], b = t->adj->ev[2 * (size_t)e + 1];
    return (size_t)(t->vf_ptr[a + 1] - t->vf_ptr[a] + t->vf_ptr[b + 1] - t->vf_ptr[b]);
}

mmx_status mmx__cavity_round_topo(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx__flip_topo *t,
                                  mmx_cavity_kind kind, const mmx_index *seeds, mmx_index n,
                                  uint32_t round, mmx_mesh **out, mmx_cavity_counts *counts,
                                  mmx_cavity_seed *per_seed)
{
    return mmx__cavity_round_ranked(ctx, mesh, t, kind, seeds, NULL, NULL, n, round, out, counts,
                                    per_seed);
}

mmx_status mmx__cavity_round_ranked(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx__flip_topo *t,
                                    mmx_cavity_kind kind, const mmx_index *seeds,
                                    const float *prio, const float *place, mmx_index n,
                                    uint32_t round, mmx_mesh **out, mmx_cavity_counts *counts,
                                    mmx_cavity_seed *per_seed)
{
    for (mmx_index i = 0; i < n; i++)
        if (seeds[i] < 0 || seeds[i] >= t->nedges)
            return mmx__fail(ctx, MMX_ERR_ARG, "mmx_cavity_round: seed %d is edge %d, outside "
                             "[0, %d)", (int)i, (int)seeds[i], (int)t->nedges);
    size_t cap = 16, nring = 0;
    while (cap < 2 * (size_t)n + 16) cap *= 2;
    for (mmx_index i = 0; i < n; i++) nring += ring_bound(t, kind, seeds[i]);
    mmx_cavity_seed *sd = per_seed;
    mmx__cavity_key *order = NULL;
    unsigned char *taken = NULL;
    uint64_t *slot = NULL;
    mmx_index *verts = NULL, *ptr = NULL, *ring = NULL, *kept = NULL;
    mmx_status s = MMX_OK;
    if (!sd) s = mmx__host_alloc(ctx, (size_t)n, sizeof *sd, (void **)&sd);
    if (!s) s = mmx__host_alloc(ctx, (size_t)n, sizeof *order, (void **)&order);
    if (!s) s = mmx__host_alloc(ctx, (size_t)n, sizeof *kept, (void **)&kept);
    if (!s) s = mmx__host_alloc(ctx, (size_t)n + 1, sizeof *ptr, (void **)&ptr);
    if (!s) s = mmx__host_alloc(ctx, nring + 1, sizeof *ring, (void **)&ring);
    if (!s) s = mmx__host_alloc(ctx, (size_t)t->nfaces, 1, (void **)&taken);
    if (!s) s = mmx__host_alloc(ctx, cap, sizeof *slot, (void **)&slot);
    if (!s) s = mmx__host_alloc(ctx, 3 * (size_t)t->nfaces, sizeof *verts, (void **)&verts);
    mmx_cavity_counts c = {n, 0, 0, 0};
    if (!s) {
        memset(taken, 0, (size_t)t->nfaces);
        memset(slot, 0, cap * sizeof *slot);
        mmx_index nvalid = 0;
        ptr[0] = 0;
        for (mmx_index i = 0; i < n; i++) {
            mmx_index len = 0;
            sd[i].priority = prio ? mmx__rank_key(prio[i], i) : mmx_cavity_priority(seeds[i], round);
            const float *at = place && kind == MMX_CAVITY_EDGE_COLLAPSE ? place + 3 * (size_t)i : NULL;
            if (build_cavity(t, mesh->pos, kind, seeds[i], at, &sd[i], ring + ptr[i], &len)) {
                order[nvalid++] = (mmx__cavity_key){sd[i].priority, seeds[i], i};
            } else {
                sd[i].outcome = MMX_CAVITY_INVALID;
                c.invalid++;
                len = 0;
            }
            ptr[i + 1] = ptr[i] + len;
        }
        mmx__cavity_key_sort(order, nvalid);
        const mmx_index nkept = mmx__cavity_select(order, nvalid, sd, ptr, ring, taken, slot,
                                                cap - 1, kind == MMX_CAVITY_EDGE_FLIP, kept);
        c.kept = nkept;
        c.conflicts = nvalid - nkept;
        mmx_mesh *m = NULL;
        if (kind == MMX_CAVITY_EDGE_SPLIT) {
            s = mmx__split_fill(ctx, t, mesh->pos, seeds, sd, kept, nkept, &m);
        } else if (kind == MMX_CAVITY_EDGE_COLLAPSE) {
            s = mmx__collapse_fill(ctx, t, mesh->pos, seeds, place, sd, kept, nkept, &m);
        } else {
            memcpy(verts, t->verts, 3 * (size_t)t->nfaces * sizeof *verts);
            for (mmx_index i = 0; i < nkept; i++) fill_flip(t, seeds[kept[i]], verts);
            s = mmx_mesh_from_faces(ctx, t->nverts, t->nfaces, t->start, verts, mesh->pos, &m);
        }
        s = mmx__round_result(ctx, s, m, out);
    }
    if (!s && counts) *counts = c;
    if (sd != per_seed) free(sd);
    free(order);
    free(kept);
    free(ptr);
    free(ring);
    free(taken);
    free(slot);
    free(verts);
    return s;
}

/* A copy of a device mesh without faces, as a round returns it (no tags, normals, colors or
 * texture coordinates: they describe the mesh before the edit). */
static mmx_status bare_copy(mmx_ctx *ctx, const mmx_mesh *mesh, mmx_mesh **out)
{
    mmx_status s = mmx_mesh_copy(ctx, mesh, MMX_SPACE_DEVICE, out);
    if (s) return s;
    free((*out)->tags);
    free((*out)->normals);
    free((*out)->colors);
    mmx_mesh_uv_free((*out)->uv);
    (*out)->tags = NULL, (*out)->normals = NULL, (*out)->colors = NULL, (*out)->uv = NULL;
    return MMX_OK;
}

mmx_status mmx__flip_round_dev(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx__flip_dev *t,
                               const mmx_index *seeds, mmx_index n, int distinct, uint32_t round,
                               mmx_mesh **out, mmx_cavity_counts *counts, mmx_cavity_seed *per_seed)
{
    if (t->view.nfaces == 0) { /* no faces, no edges: no seed (the caller checked them) */
        if (counts) *counts = (mmx_cavity_counts){n, 0, 0, 0};
        return bare_copy(ctx, mesh, out);
    }
    mmx_mesh *m = NULL;
    mmx_cavity_counts c;
    mmx_status s = mmx__flip_dev_mesh(ctx, mesh, &m);
    if (!s) s = mmx__flip_round_cuda(ctx, &t->view, mesh->pos, seeds, n, distinct, round,
                                     m->M->rowidx, &c, 1, per_seed, NULL);
    if (s) {
        mmx_mesh_free(m);
        return s;
    }
    if (counts) *counts = c;
    *out = m;
    return MMX_OK;
}

/* mmx_cavity_round on a CUDA context (flips here, splits and collapses in split_collapse.cu);
 * seeds and per_seed are host arrays. A flip reads the flip's topology (t.f), a split or a
 * collapse all of t. */
static mmx_status cavity_round_cuda(mmx_ctx *ctx, const mmx_mesh *mesh, mmx_cavity_kind kind,
                                    const mmx_index *seeds, mmx_index n, uint32_t round,
                                    mmx_mesh **out, mmx_cavity_counts *counts,
                                    mmx_cavity_seed *per_seed)
{
    mmx__sc_dev t;
    memset(&t, 0, sizeof t);
    mmx_status s = kind == MMX_CAVITY_EDGE_FLIP
                       ? mmx__flip_dev_build(ctx, mesh, "mmx_cavity_round", &t.f)
                       : mmx__sc_dev_build(ctx, mesh, "mmx_cavity_round", &t);
    if (s) return s;
    const mmx_index ne = t.f.view.nedges;
    for (mmx_index i = 0; i < n && !s; i++)
        if (seeds[i] < 0 || seeds[i] >= ne)
            s = mmx__fail(ctx, MMX_ERR_ARG, "mmx_cavity_round: seed %d is edge %d, outside "
                          "[0, %d)", (int)i, (int)seeds[i], (int)ne);
    mmx_index *dseeds = NULL;
    mmx_cavity_seed *dsd = NULL;
    const size_t sb = (size_t)n * sizeof *dseeds, db = (size_t)n * sizeof *dsd;
    if (!s) s = mmx_mem_alloc(ctx, MMX_SPACE_DEVICE, sb, (void **)&dseeds);
    if (!s && n) s = mmx_mem_copy(ctx, dseeds, MMX_SPACE_DEVICE, seeds, MMX_SPACE_HOST, sb);
    if (!s && per_seed) s = mmx_mem_alloc(ctx, MMX_SPACE_DEVICE, db, (void **)&dsd);
    /* Without faces there is no edge, so no seed: every template returns the mesh. */
    if (!s && (kind == MMX_CAVITY_EDGE_FLIP || t.f.view.nfaces == 0))
        s = mmx__flip_round_dev(ctx, mesh, &t.f, dseeds, n, 0, round, out, counts, dsd);
    else if (!s)
        s = mmx__sc_round_cuda(ctx, mesh, &t, kind, dseeds, n, round, out, counts, dsd);
    /* The seeds' outcomes are read on the host: the copy waits for the round. */
    if (!s && per_seed && n)
        s = mmx_mem_copy(ctx, per_seed, MMX_SPACE_HOST, dsd, MMX_SPACE_DEVICE, db);
    if (s && *out) {
        mmx_mesh_free(*out);
        *out = NULL;
    }
    mmx_mem_free(ctx, MMX_SPACE_DEVICE, dseeds);
    mmx_mem_free(ctx, MMX_SPACE_DEVICE, dsd);
    mmx__sc_dev_free(ctx, &t);
    return s;
}

mmx_status mmx_cavity_round(mmx_ctx *ctx, const mmx_mesh *mesh, mmx_cavity_kind kind,
                            const mmx_index *seeds, mmx_index n, uint32_t round, mmx_mesh **out,
                            mmx_cavity_counts *counts, mmx_cavity_seed *per_seed)
{
    MMX__NEED_CTX(ctx);
    if (!mesh || !mesh->M || !out || (n > 0 && !seeds) || n < 0)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_cavity_round: NULL argument or negative count");
    *out = NULL;
    if (kind != MMX_CAVITY_EDGE_FLIP && kind != MMX_CAVITY_EDGE_SPLIT &&
        kind != MMX_CAVITY_EDGE_COLLAPSE)
        return mmx__fail(ctx, MMX_ERR_UNSUPPORTED,
                         "mmx_cavity_round: unknown template %d (MMX_CAVITY_EDGE_FLIP, _SPLIT or "
                         "_COLLAPSE)", (int)kind);
    if (mmx_ctx_backend(ctx) != MMX_BACKEND_HOST)
        return cavity_round_cuda(ctx, mesh, kind, seeds, n, round, out, counts, per_seed);
    mmx__flip_topo t;
    mmx_status s = mmx__flip_topo_build(ctx, mesh, "mmx_cavity_round", &t);
    if (s) return s;
    s = mmx__cavity_round_topo(ctx, mesh, &t, kind, seeds, n, round, out, counts, per_seed);
    mmx__flip_topo_free(&t);
    return s;
}

/* mmx_cavity_round_ranked on a CUDA context: every array already on the device. */
static mmx_status cavity_round_ranked_cuda(mmx_ctx *ctx, const mmx_mesh *mesh,
                                           mmx_cavity_kind kind, const mmx_index *seeds,
                                           const float *prio, const float *place, mmx_index n,
                                           uint32_t round, mmx_mesh **out,
                                           mmx_cavity_counts *counts, mmx_cavity_seed *per_seed)
{
    mmx__sc_dev t;
    memset(&t, 0, sizeof t);
    mmx_status s = kind == MMX_CAVITY_EDGE_FLIP
                       ? mmx__flip_dev_build(ctx, mesh, "mmx_cavity_round_ranked", &t.f)
                       : mmx__sc_dev_build(ctx, mesh, "mmx_cavity_round_ranked", &t);
    if (s) return s;
    mmx_index bad = -1, nan = -1;
    if (n > 0) s = mmx__rank_check_cuda(ctx, seeds, prio, n, t.f.view.nedges, &bad, &nan);
    if (!s && bad >= 0)
        s = mmx__fail(ctx, MMX_ERR_ARG, "mmx_cavity_round_ranked: seed %d is not an edge of the "
                      "mesh's %d", (int)bad, (int)t.f.view.nedges);
    if (!s && nan >= 0)
        s = mmx__fail(ctx, MMX_ERR_ARG, "mmx_cavity_round_ranked: seed %d's priority is NaN",
                      (int)nan);
    mmx_cavity_counts c = {n, 0, 0, 0};
    if (!s && t.f.view.nfaces == 0) { /* no edges: no seed got here */
        s = bare_copy(ctx, mesh, out);
    } else if (!s && kind == MMX_CAVITY_EDGE_FLIP) {
        mmx_mesh *m = NULL;
        s = mmx__flip_dev_mesh(ctx, mesh, &m);
        if (!s) s = mmx__flip_round_ranked_cuda(ctx, &t.f.view, mesh->pos, seeds, prio, n, 0,
                                                round, m->M->rowidx, &c, 1, per_seed, NULL);
        if (s) mmx_mesh_free(m);
        else *out = m;
    } else if (!s) {
        s = mmx__sc_round_ranked_cuda(ctx, mesh, &t, kind, seeds, prio,
                                      kind == MMX_CAVITY_EDGE_COLLAPSE ? place : NULL, n, round,
                                      out, &c, per_seed);
    }
    if (!s && counts) *counts = c;
    mmx__sc_dev_free(ctx, &t);
    return s;
}

mmx_status mmx_cavity_round_ranked(mmx_ctx *ctx, const mmx_mesh *mesh, mmx_cavity_kind kind,
                                   const mmx_index *seeds, const float *priority,
                                   const float *place, mmx_index n, uint32_t round,
                                   mmx_mesh **out, mmx_cavity_counts *counts,
                                   mmx_cavity_seed *per_seed)
{
    MMX__NEED_CTX(ctx);
    if (!mesh || !mesh->M || !out || (n > 0 && !seeds) || n < 0)
        return mmx__fail(ctx, MMX_ERR_ARG,
                         "mmx_cavity_round_ranked: NULL argument or negative count");
    *out = NULL;
    if (kind != MMX_CAVITY_EDGE_FLIP && kind != MMX_CAVITY_EDGE_SPLIT &&
        kind != MMX_CAVITY_EDGE_COLLAPSE)
        return mmx__fail(ctx, MMX_ERR_UNSUPPORTED,
                         "mmx_cavity_round_ranked: unknown template %d (MMX_CAVITY_EDGE_FLIP, "
                         "_SPLIT or _COLLAPSE)", (int)kind);
    if (mmx_ctx_backend(ctx) != MMX_BACKEND_HOST)
        return cavity_round_ranked_cuda(ctx, mesh, kind, seeds, priority, place, n, round, out,
                                        counts, per_seed);
    for (mmx_index i = 0; priority && i < n; i++)
        if (isnan(priority[i]))
            return mmx__fail(ctx, MMX_ERR_ARG, "mmx_cavity_round_ranked: seed %d's priority is "
                             "NaN", (int)i);
    mmx__flip_topo t;
    mmx_status s = mmx__flip_topo_build(ctx, mesh, "mmx_cavity_round_ranked", &t);
    if (s) return s;
    for (mmx_index i = 0; i < n && !s; i++)
        if (seeds[i] < 0 || seeds[i] >= t.nedges)
            s = mmx__fail(ctx, MMX_ERR_ARG, "mmx_cavity_round_ranked: seed %d is not an edge of "
                          "the mesh's %d", (int)i, (int)t.nedges);
    if (!s)
        s = mmx__cavity_round_ranked(ctx, mesh, &t, kind, seeds, priority,
                                     kind == MMX_CAVITY_EDGE_COLLAPSE ? place : NULL, n, round,
                                     out, counts, per_seed);
    mmx__flip_topo_free(&t);
    return s;
}
