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
    const int ok = mmx__fv_flip_cavity(&t->view, pos, e, sd); /* flip_step.h, CUDA's code too */
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

/* The slot of edge key k (lo << 32 | hi, never 0 since lo < hi; 0 marks an empty slot) in an
 * open-addressing table, inserted when new: every flip creating that edge gets the same slot,
 * which is all the selection needs (the CUDA round's table, cavity.cu, is the same idea). */
static size_t edge_slot(uint64_t *slot, size_t mask, uint64_t k)
{
    size_t h = (size_t)(mmx_cavity_priority((mmx_index)(k >> 32), (uint32_t)k) & mask);
    while (slot[h] && slot[h] != k) h = (h + 1) & mask;
    slot[h] = k;
    return h;
}

mmx_index mmx__cavity_select(const mmx__cavity_key *order, mmx_index nvalid, mmx_cavity_seed *sd,
                             const mmx_index *ptr, const mmx_index *ring, unsigned char *taken,
                             mmx_index *kept)
{
    mmx_index nkept = 0;
    for (mmx_index i = 0; i < nvalid; i++) {
        const mmx_index j = order[i].seed;
        int free_ = 1;
        for (mmx_index r = ptr[j]; r < ptr[j + 1] && free_; r++) free_ = !taken[ring[r]];
        if (!free_) {
            sd[j].outcome = MMX_CAVITY_CONFLICT;
            continue;
        }
        sd[j].outcome = MMX_CAVITY_KEPT;
        kept[nkept++] = j;
        for (mmx_index r = ptr[j]; r < ptr[j + 1]; r++) taken[ring[r]] = 1;
    }
    return nkept;
}

/* The cavity of seed i may hold this many elements (its ring's bound; a flip's third is the
 * slot of its new edge). */
static size_t ring_bound(const mmx__flip_topo *t, mmx_cavity_kind kind, mmx_index e)
{
    if (kind == MMX_CAVITY_EDGE_FLIP) return 3;
    if (kind != MMX_CAVITY_EDGE_COLLAPSE) return 2;
    const mmx_index a = t->adj->ev[2 * (size_t)e], b = t->adj->ev[2 * (size_t)e + 1];
    return (size_t)(t->vf_ptr[a + 1] - t->vf_ptr[a] + t->vf_ptr[b + 1] - t->vf_ptr[b]);
}

/* The edge templates' proposal on the host: each seed's cavity (build_cavity), its key
 * (priority, edge) and elements (its faces; a flip's new edge as element nfaces + its slot). */
static mmx_status edge_propose_host(mmx__round *r)
{
    const mmx__flip_topo *t = r->ht;
    const mmx_index n = r->n;
    const int flip = r->kind == MMX_CAVITY_EDGE_FLIP;
    size_t cap = 16, nring = 0;
    while (flip && cap < 2 * (size_t)n + 16) cap *= 2;
    for (mmx_index i = 0; i < n; i++) nring += ring_bound(t, r->kind, r->seeds[i]);
    mmx_index *ptr = NULL, *ring = NULL;
    uint64_t *slot = NULL;
    mmx_status s = mmx__round_take(r, (size_t)n * sizeof *r->key, (void **)&r->key);
    if (!s) s = mmx__round_take(r, (size_t)n * sizeof *r->elem, (void **)&r->elem);
    if (!s) s = mmx__round_take(r, (size_t)n, (void **)&r->state);
    if (!s) s = mmx__round_take(r, ((size_t)n + 1) * sizeof *ptr, (void **)&ptr);
    if (!s) s = mmx__round_take(r, nring * sizeof *ring, (void **)&ring);
    if (!s && flip) s = mmx__round_take(r, cap * sizeof *slot, (void **)&slot);
    if (s) return s;
    if (flip) memset(slot, 0, cap * sizeof *slot);
    r->ring_ptr = ptr, r->ring = ring;
    r->nelem = t->nfaces + (flip ? (mmx_index)cap : 0);
    ptr[0] = 0;
    for (mmx_index i = 0; i < n; i++) {
        mmx_cavity_seed *x = &r->sd[i];
        mmx_index len = 0;
        x->priority = r->prio ? mmx__rank_key(r->prio[i], i)
                              : mmx_cavity_priority(r->seeds[i], r->round);
        const float *at = r->place ? r->place + 3 * (size_t)i : NULL;
        if (build_cavity(t, r->checked ? NULL : r->pos, r->kind, r->seeds[i], at, x, ring + ptr[i],
                         &len)) {
            r->state[i] = MMX__UNDECIDED;
            r->key[i] = x->priority, r->elem[i] = r->seeds[i];
            if (flip) {
                const uint64_t k =
                    (uint64_t)(uint32_t)x->new_edge[0] << 32 | (uint32_t)x->new_edge[1];
                ring[ptr[i] + len++] = t->nfaces + (mmx_index)edge_slot(slot, cap - 1, k);
            }
        } else {
            x->outcome = MMX_CAVITY_INVALID;
            r->state[i] = MMX_CAVITY_INVALID;
            r->c.invalid++;
            len = 0;
        }
        ptr[i + 1] = ptr[i] + len;
    }
    return MMX_OK;
}

/* The kept cavities filled into a new mesh: flips in place, splits and collapses by their
 * fills (split_collapse.c). */
static mmx_status edge_fill_host(mmx__round *r, mmx_mesh **out)
{
    const mmx__flip_topo *t = r->ht;
    mmx_ctx *ctx = r->ctx;
    mmx_mesh *m = NULL;
    mmx_status s;
    if (r->kind == MMX_CAVITY_EDGE_SPLIT) {
        s = mmx__split_fill(ctx, t, r->pos, r->seeds, r->sd, r->kept, r->c.kept, &m);
    } else if (r->kind == MMX_CAVITY_EDGE_COLLAPSE) {
        s = mmx__collapse_fill(ctx, t, r->pos, r->seeds, r->place, r->sd, r->kept,
                               r->c.kept, &m);
    } else {
        mmx_index *verts = NULL;
        s = mmx__host_alloc(ctx, 3 * (size_t)t->nfaces + 1, sizeof *verts, (void **)&verts);
        if (s) return s;
        memcpy(verts, t->verts, 3 * (size_t)t->nfaces * sizeof *verts);
        /* In place: the same two face ids, across the other diagonal. */
        for (mmx_index i = 0; i < r->c.kept; i++)
            mmx__fv_fill_flip(&t->view, r->seeds[r->kept[i]], verts);
        s = mmx_mesh_from_faces(ctx, t->nverts, t->nfaces, t->start, verts, r->pos, &m);
        free(verts);
    }
    return mmx__round_result(ctx, s, m, out);
}

static mmx_status edge_propose_cuda(mmx__round *r)
{
    return r->kind == MMX_CAVITY_EDGE_FLIP ? mmx__flip_propose_cuda(r) : mmx__sc_propose_cuda(r);
}

static mmx_status edge_fill_cuda(mmx__round *r, mmx_mesh **out)
{
    return r->kind == MMX_CAVITY_EDGE_FLIP ? mmx__flip_fill_cuda(r, out)
                                           : mmx__sc_fill_cuda(r, out);
}

const mmx__round_ops mmx__edge_ops = {{edge_propose_host, edge_propose_cuda},
                                      {edge_fill_host, edge_fill_cuda}};

/* A host round of an edge template on topology t. */
static mmx_status edge_round_host(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx__flip_topo *t,
                                  mmx_cavity_kind kind, const mmx_index *seeds, const float *prio,
                                  const float *place, int checked, mmx_index n, uint32_t round,
                                  mmx_mesh **out, mmx_cavity_counts *counts,
                                  mmx_cavity_seed *per_seed)
{
    mmx__round r;
    memset(&r, 0, sizeof r);
    r.ctx = ctx, r.mesh = mesh, r.pos = mesh->pos, r.ht = t, r.kind = kind;
    r.seeds = seeds, r.n = n;
    r.round = round, r.prio = prio, r.tally = 1, r.sd = per_seed;
    r.place = kind == MMX_CAVITY_EDGE_COLLAPSE ? place : NULL;
    r.checked = r.place && checked;
    return mmx__round_run(&r, &mmx__edge_ops, out, counts);
}

mmx_status mmx__cavity_round_ranked(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx__flip_topo *t,
                                    mmx_cavity_kind kind, const mmx_index *seeds,
                                    const float *prio, const float *place, int checked,
                                    mmx_index n, uint32_t round, mmx_mesh **out,
                                    mmx_cavity_counts *counts, mmx_cavity_seed *per_seed)
{
    for (mmx_index i = 0; i < n; i++)
        if (seeds[i] < 0 || seeds[i] >= t->nedges)
            return mmx__fail(ctx, MMX_ERR_ARG, "mmx_cavity_round: seed %d is edge %d, outside "
                             "[0, %d)", (int)i, (int)seeds[i], (int)t->nedges);
    return edge_round_host(ctx, mesh, t, kind, seeds, prio, place, checked, n, round, out,
                           counts, per_seed);
}

/* ---- CUDA: the same driver, the stages of cavity.cu and split_collapse.cu ------------------ */

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

/* A CUDA round of an edge template: t the flip's topology (fv) or the split's (sv) of mesh;
 * seeds, prio, place and per_seed as mmx__round's (device arrays, unless host_args: then the
 * public call's host seeds and per_seed). A mesh without faces has no edge, so no seed: every
 * template returns it. */
static mmx_status edge_round_cuda(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx__flip_view *fv,
                                  const mmx__sc_view *sv, mmx_cavity_kind kind,
                                  const mmx_index *seeds, const float *prio, const float *place,
                                  int checked, mmx_index n, uint32_t round, int distinct,
                                  int host_args, mmx_mesh **out, mmx_cavity_counts *counts,
                                  mmx_cavity_seed *per_seed)
{
    if ((fv ? fv : &sv->f)->nfaces == 0) {
        if (counts) *counts = (mmx_cavity_counts){n, 0, 0, 0};
        return bare_copy(ctx, mesh, out);
    }
    mmx__round r;
    memset(&r, 0, sizeof r);
    r.ctx = ctx, r.cuda = 1, r.mesh = mesh, r.pos = mesh->pos, r.fv = fv, r.sv = sv;
    r.kind = kind, r.seeds = seeds, r.n = n, r.round = round, r.prio = prio, r.tally = 1;
    r.distinct = distinct, r.sd = per_seed;
    r.place = kind == MMX_CAVITY_EDGE_COLLAPSE ? place : NULL;
    r.checked = r.place && checked;
    return host_args ? mmx__round_run_host_args(&r, &mmx__edge_ops, per_seed, out, counts)
                     : mmx__round_run(&r, &mmx__edge_ops, out, counts);
}

mmx_status mmx__flip_round_dev(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx__flip_dev *t,
                               const mmx_index *seeds, mmx_index n, int distinct, uint32_t round,
                               mmx_mesh **out, mmx_cavity_counts *counts, mmx_cavity_seed *per_seed)
{
    return edge_round_cuda(ctx, mesh, &t->view, NULL, MMX_CAVITY_EDGE_FLIP, seeds, NULL, NULL, 0,
                           n, round, distinct, 0, out, counts, per_seed);
}

mmx_status mmx__flip_round_ranked_cuda(mmx_ctx *ctx, const mmx__flip_view *v, const float *pos,
                                       const mmx_index *seeds, const float *prio, mmx_index n,
                                       int distinct, uint32_t round, mmx_index *out,
                                       mmx_cavity_counts *counts, int tally,
                                       mmx_cavity_seed *per_seed, mmx_index *kept_edges)
{
    mmx__round r;
    memset(&r, 0, sizeof r);
    r.ctx = ctx, r.cuda = 1, r.pos = pos, r.fv = v, r.kind = MMX_CAVITY_EDGE_FLIP;
    r.seeds = seeds, r.n = n, r.round = round, r.prio = prio, r.distinct = distinct;
    r.tally = tally, r.out_verts = out, r.kept_edges = kept_edges, r.sd = per_seed;
    return mmx__round_run(&r, &mmx__edge_ops, NULL, counts);
}

mmx_status mmx__sc_round_ranked_cuda(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx__sc_dev *t,
                                     mmx_cavity_kind kind, const mmx_index *seeds,
                                     const float *prio, const float *place, int checked,
                                     mmx_index n, uint32_t round, mmx_mesh **out,
                                     mmx_cavity_counts *counts, mmx_cavity_seed *per_seed)
{
    return edge_round_cuda(ctx, mesh, NULL, &t->view, kind, seeds, prio, place, checked, n, round,
                           0, 0, out, counts, per_seed);
}

/* The checks of a seed not an edge of the ne edges, in each call's words. */
static mmx_status bad_seed(mmx_ctx *ctx, int ranked, mmx_index i, mmx_index e, mmx_index ne)
{
    if (ranked)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_cavity_round_ranked: seed %d is not an edge of "
                         "the mesh's %d", (int)i, (int)ne);
    return mmx__fail(ctx, MMX_ERR_ARG, "mmx_cavity_round: seed %d is edge %d, outside [0, %d)",
                     (int)i, (int)e, (int)ne);
}

/* mmx_cavity_round (ranked 0: host arrays on either backend, the hashed priorities) and
 * mmx_cavity_round_ranked (ranked 1: arrays in the context's space). */
static mmx_status edge_entry(mmx_ctx *ctx, const mmx_mesh *mesh, mmx_cavity_kind kind,
                             const mmx_index *seeds, const float *prio, const float *place,
                             mmx_index n, uint32_t round, mmx_mesh **out,
                             mmx_cavity_counts *counts, mmx_cavity_seed *per_seed, int ranked)
{
    const char *who = ranked ? "mmx_cavity_round_ranked" : "mmx_cavity_round";
    if (!mesh || !mesh->M || !out || (n > 0 && !seeds) || n < 0)
        return mmx__fail(ctx, MMX_ERR_ARG, "%s: NULL argument or negative count", who);
    *out = NULL;
    if (kind != MMX_CAVITY_EDGE_FLIP && kind != MMX_CAVITY_EDGE_SPLIT &&
        kind != MMX_CAVITY_EDGE_COLLAPSE)
        return mmx__fail(ctx, MMX_ERR_UNSUPPORTED, "%s: unknown template %d "
                         "(MMX_CAVITY_EDGE_FLIP, _SPLIT or _COLLAPSE)", who, (int)kind);
    place = kind == MMX_CAVITY_EDGE_COLLAPSE ? place : NULL;
    mmx_status s = MMX_OK;
    if (mmx_ctx_backend(ctx) == MMX_BACKEND_HOST) {
        for (mmx_index i = 0; prio && i < n; i++)
            if (isnan(prio[i]))
                return mmx__fail(ctx, MMX_ERR_ARG, "%s: seed %d's priority is NaN", who, (int)i);
        mmx__flip_topo t;
        s = mmx__flip_topo_build(ctx, mesh, who, &t);
        if (s) return s;
        for (mmx_index i = 0; i < n && !s; i++)
            if (seeds[i] < 0 || seeds[i] >= t.nedges)
                s = bad_seed(ctx, ranked, i, seeds[i], t.nedges);
        if (!s)
            s = edge_round_host(ctx, mesh, &t, kind, seeds, prio, place, 0, n, round, out,
                                counts, per_seed);
        mmx__flip_topo_free(&t);
        return s;
    }
    /* CUDA: a flip reads the flip's topology (t.f), a split or a collapse all of t. */
    const int flip = kind == MMX_CAVITY_EDGE_FLIP;
    mmx__sc_dev t;
    memset(&t, 0, sizeof t);
    s = flip ? mmx__flip_dev_build(ctx, mesh, who, &t.f) : mmx__sc_dev_build(ctx, mesh, who, &t);
    if (s) return s;
    const mmx_index ne = t.f.view.nedges;
    mmx_index bad = -1, nan = -1;
    if (!ranked) {
        for (mmx_index i = 0; i < n && bad < 0; i++)
            if (seeds[i] < 0 || seeds[i] >= ne) bad = i;
    } else if (n > 0) {
        s = mmx__rank_check_cuda(ctx, seeds, prio, n, ne, &bad, &nan);
    }
    /* (A ranked call's seeds are device memory: its message names no edge.) */
    if (!s && bad >= 0) s = bad_seed(ctx, ranked, bad, ranked ? -1 : seeds[bad], ne);
    if (!s && nan >= 0)
        s = mmx__fail(ctx, MMX_ERR_ARG, "%s: seed %d's priority is NaN", who, (int)nan);
    if (!s)
        s = edge_round_cuda(ctx, mesh, flip ? &t.f.view : NULL, flip ? NULL : &t.view, kind,
                            seeds, prio, place, 0, n, round, 0, !ranked, out, counts, per_seed);
    mmx__sc_dev_free(ctx, &t);
    return s;
}

mmx_status mmx_cavity_round(mmx_ctx *ctx, const mmx_mesh *mesh, mmx_cavity_kind kind,
                            const mmx_index *seeds, mmx_index n, uint32_t round, mmx_mesh **out,
                            mmx_cavity_counts *counts, mmx_cavity_seed *per_seed)
{
    MMX__NEED_CTX(ctx);
    return edge_entry(ctx, mesh, kind, seeds, NULL, NULL, n, round, out, counts, per_seed, 0);
}

mmx_status mmx_cavity_round_ranked(mmx_ctx *ctx, const mmx_mesh *mesh, mmx_cavity_kind kind,
                                   const mmx_index *seeds, const float *priority,
                                   const float *place, mmx_index n, uint32_t round,
                                   mmx_mesh **out, mmx_cavity_counts *counts,
                                   mmx_cavity_seed *per_seed)
{
    MMX__NEED_CTX(ctx);
    return edge_entry(ctx, mesh, kind, seeds, priority, place, n, round, out, counts, per_seed,
                      1);
}
