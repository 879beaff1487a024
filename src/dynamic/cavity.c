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
    /* splitmix64's finaliser: consecutive edges and rounds get unrelated priorities, so a
     * round does not favour low edge numbers and successive rounds reshuffle. */
    uint64_t z = ((uint64_t)round << 32 | (uint32_t)edge) + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* 1 when the new triangle (p, q, r) is degenerate or folded against N (mmx__bad_triangle). */
static int bad_triangle(const float *pos, mmx_index p, mmx_index q, mmx_index r, const double N[3])
{
    double P[3], Q[3], R[3];
    mmx__point(pos, p, P);
    mmx__point(pos, q, Q);
    mmx__point(pos, r, R);
    return mmx__bad_triangle(P, Q, R, N);
}

/* Builds seed edge e's flip cavity into *sd; 1 when it is valid. */
static int flip_cavity(const mmx__flip_topo *t, const float *pos, mmx_index e, mmx_cavity_seed *sd)
{
    mmx_index q[4];
    sd->faces[0] = sd->faces[1] = sd->new_edge[0] = sd->new_edge[1] = -1;
    if (!mmx__flip_quad(t, e, q)) return 0;
    sd->faces[0] = t->ef[2 * (size_t)e];
    sd->faces[1] = t->ef[2 * (size_t)e + 1];
    const mmx_index a = q[0], b = q[1], c = q[2], d = q[3];
    /* c == d: the two faces are a pillow's; an existing {c, d}: the flip would double it. */
    if (c == d || mmx__flip_has_edge(t, c, d)) return 0;
    if (pos) {
        double n0[3], n1[3], A[3], B[3], C[3], D[3];
        mmx__point(pos, a, A);
        mmx__point(pos, b, B);
        mmx__point(pos, c, C);
        mmx__point(pos, d, D);
        mmx__tri_normal(A, B, C, n0);
        mmx__tri_normal(B, A, D, n1);
        const double N[3] = {n0[0] + n1[0], n0[1] + n1[1], n0[2] + n1[2]};
        if (bad_triangle(pos, a, d, c, N) || bad_triangle(pos, d, b, c, N)) return 0;
    }
    sd->new_edge[0] = c < d ? c : d;
    sd->new_edge[1] = c < d ? d : c;
    return 1;
}

/* Seed e's cavity of the given kind: sd's fields and its faces ring[0..*nring); 1 if valid. */
static int build_cavity(const mmx__flip_topo *t, const float *pos, mmx_cavity_kind kind,
                        mmx_index e, mmx_cavity_seed *sd, mmx_index *ring, mmx_index *nring)
{
    sd->faces[0] = sd->faces[1] = sd->new_edge[0] = sd->new_edge[1] = sd->vertex = -1;
    if (kind == MMX_CAVITY_EDGE_SPLIT) return mmx__split_cavity(t, pos, e, sd, ring, nring);
    if (kind == MMX_CAVITY_EDGE_COLLAPSE) return mmx__collapse_cavity(t, pos, e, sd, ring, nring);
    const int ok = flip_cavity(t, pos, e, sd);
    ring[0] = sd->faces[0], ring[1] = sd->faces[1];
    *nring = ok ? 2 : 0;
    return ok;
}

/* A valid seed in key order: (priority, edge, position), smallest first. */
typedef struct keyed {
    uint64_t priority;
    mmx_index edge, seed;
} keyed;

static int key_cmp(const void *x, const void *y)
{
    const keyed *a = x, *b = y;
    if (a->priority != b->priority) return a->priority < b->priority ? -1 : 1;
    if (a->edge != b->edge) return a->edge < b->edge ? -1 : 1;
    return (a->seed > b->seed) - (a->seed < b->seed);
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

/* The greedy pass in key order: a cavity is kept unless one of its faces (ring[ptr[i]..
 * ptr[i + 1]) for seed i), or the edge a flip creates, is already taken by a kept cavity.
 * The kept seeds' positions go to kept[], in key order. */
static mmx_index select_cavities(const keyed *order, mmx_index nvalid, mmx_cavity_seed *sd,
                                 const mmx_index *ptr, const mmx_index *ring,
                                 unsigned char *taken, uint64_t *slot, size_t mask, int flip,
                                 mmx_index *kept)
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
    mmx_index q[4];
    mmx__flip_quad(t, e, q);
    const mmx_index f0 = t->ef[2 * (size_t)e], f1 = t->ef[2 * (size_t)e + 1];
    mmx_index *p0 = verts + 3 * (size_t)f0, *p1 = verts + 3 * (size_t)f1;
    p0[0] = q[0], p0[1] = q[3], p0[2] = q[2]; /* (a, d, c) */
    p1[0] = q[3], p1[1] = q[1], p1[2] = q[2]; /* (d, b, c) */
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
    for (mmx_index i = 0; i < n; i++)
        if (seeds[i] < 0 || seeds[i] >= t->nedges)
            return mmx__fail(ctx, MMX_ERR_ARG, "mmx_cavity_round: seed %d is edge %d, outside "
                             "[0, %d)", (int)i, (int)seeds[i], (int)t->nedges);
    size_t cap = 16, nring = 0;
    while (cap < 2 * (size_t)n + 16) cap *= 2;
    for (mmx_index i = 0; i < n; i++) nring += ring_bound(t, kind, seeds[i]);
    mmx_cavity_seed *sd = per_seed;
    keyed *order = NULL;
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
            sd[i].priority = mmx_cavity_priority(seeds[i], round);
            if (build_cavity(t, mesh->pos, kind, seeds[i], &sd[i], ring + ptr[i], &len)) {
                order[nvalid++] = (keyed){sd[i].priority, seeds[i], i};
            } else {
                sd[i].outcome = MMX_CAVITY_INVALID;
                c.invalid++;
                len = 0;
            }
            ptr[i + 1] = ptr[i] + len;
        }
        qsort(order, (size_t)nvalid, sizeof *order, key_cmp);
        const mmx_index nkept = select_cavities(order, nvalid, sd, ptr, ring, taken, slot,
                                                cap - 1, kind == MMX_CAVITY_EDGE_FLIP, kept);
        c.kept = nkept;
        c.conflicts = nvalid - nkept;
        mmx_mesh *m = NULL;
        if (kind == MMX_CAVITY_EDGE_SPLIT) {
            s = mmx__split_fill(ctx, t, mesh->pos, seeds, sd, kept, nkept, &m);
        } else if (kind == MMX_CAVITY_EDGE_COLLAPSE) {
            s = mmx__collapse_fill(ctx, t, mesh->pos, seeds, sd, kept, nkept, &m);
        } else {
            memcpy(verts, t->verts, 3 * (size_t)t->nfaces * sizeof *verts);
            for (mmx_index i = 0; i < nkept; i++) fill_flip(t, seeds[kept[i]], verts);
            s = mmx_mesh_from_faces(ctx, t->nverts, t->nfaces, t->start, verts, mesh->pos, &m);
        }
        /* Triangles in the reduced form; a mesh without faces has no order to reduce to. */
        if (!s && m->M->ncols > 0) s = mmx_mesh_reduce(ctx, m);
        if (s) mmx_mesh_free(m);
        else *out = m;
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

mmx_status mmx_cavity_round(mmx_ctx *ctx, const mmx_mesh *mesh, mmx_cavity_kind kind,
                            const mmx_index *seeds, mmx_index n, uint32_t round, mmx_mesh **out,
                            mmx_cavity_counts *counts, mmx_cavity_seed *per_seed)
{
    if (!mesh || !mesh->M || !out || (n > 0 && !seeds) || n < 0)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_cavity_round: NULL argument or negative count");
    *out = NULL;
    if (kind != MMX_CAVITY_EDGE_FLIP && kind != MMX_CAVITY_EDGE_SPLIT &&
        kind != MMX_CAVITY_EDGE_COLLAPSE)
        return mmx__fail(ctx, MMX_ERR_UNSUPPORTED,
                         "mmx_cavity_round: unknown template %d (MMX_CAVITY_EDGE_FLIP, _SPLIT or "
                         "_COLLAPSE)", (int)kind);
    mmx__flip_topo t;
    mmx_status s = mmx__flip_topo_build(ctx, mesh, "mmx_cavity_round", &t);
    if (s) return s;
    s = mmx__cavity_round_topo(ctx, mesh, &t, kind, seeds, n, round, out, counts, per_seed);
    mmx__flip_topo_free(&t);
    return s;
}
