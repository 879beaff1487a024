/* The vertex removal template of the cavity operator (MMX_CAVITY_VERTEX_REMOVE; dynamic.h
 * states its rules), its host stages for the round driver (round.c) and its entry point: each
 * seed vertex v is removed by a half-edge collapse onto its lowest-numbered valid neighbour u
 * (vremove_step.h, the code the CUDA stages run too), the kept set by the shared greedy pass
 * over the one-rings of v and u, and the fill compacts vertices and faces, survivors in their
 * order (as the edge collapse's renumbering). The CUDA stages are vremove.cu's. */
#include <stdlib.h>
#include <string.h>
#include "dynamic_internal.h"
#include "vremove_step.h"

static const char *const WHO = "mmx_cavity_vertex_remove_round";

/* The proposal: each seed's u (vremove_step.h) and its cavity, the faces at v and at u. */
static mmx_status vremove_propose_host(mmx__round *r)
{
    const mmx__sc_view v = mmx__sc_host_view(r->ht);
    const mmx_index n = r->n;
    mmx_index *uu = NULL, *ptr = NULL, *ring = NULL;
    mmx_status s = mmx__round_take(r, (size_t)n * sizeof *r->key, (void **)&r->key);
    if (!s) s = mmx__round_take(r, (size_t)n * sizeof *r->elem, (void **)&r->elem);
    if (!s) s = mmx__round_take(r, (size_t)n, (void **)&r->state);
    if (!s) s = mmx__round_take(r, ((size_t)n + 1) * sizeof *ptr, (void **)&ptr);
    if (!s) s = mmx__round_take(r, ((size_t)n + 1) * sizeof *uu, (void **)&uu);
    if (s) return s;
    r->priv = uu;
    ptr[0] = 0;
    for (mmx_index i = 0; i < n; i++) {
        const mmx_index w = r->seeds[i];
        uu[i] = mmx__vr_choose(&v, r->pos, w, r->round, &r->sd[i]);
        r->key[i] = r->sd[i].priority, r->elem[i] = w;
        mmx_index len = 0;
        if (uu[i] >= 0) {
            r->state[i] = MMX__UNDECIDED;
            len = v.vf_ptr[w + 1] - v.vf_ptr[w] + v.vf_ptr[uu[i] + 1] - v.vf_ptr[uu[i]];
        } else {
            r->sd[i].outcome = MMX_CAVITY_INVALID, r->state[i] = MMX_CAVITY_INVALID;
            r->c.invalid++;
        }
        ptr[i + 1] = ptr[i] + len;
    }
    s = mmx__round_take(r, (size_t)ptr[n] * sizeof *ring, (void **)&ring);
    if (s) return s;
    for (mmx_index i = 0; i < n; i++)
        if (uu[i] >= 0) mmx__vr_ring(&v, r->seeds[i], uu[i], ring + ptr[i]);
    r->ring_ptr = ptr, r->ring = ring, r->nelem = r->ht->nfaces;
    return MMX_OK;
}

/* The fill: kept seed j removes seeds[j] (merged into u: to[v] = u, u survives: a seed at u
 * would share u's faces with this one), its edge's two faces go; the compaction renumbers. */
static mmx_status vremove_fill_host(mmx__round *r, mmx_mesh **out)
{
    const mmx__flip_topo *t = r->ht;
    const mmx_index *uu = r->priv, nkept = r->c.kept;
    mmx_ctx *ctx = r->ctx;
    mmx_index *to = NULL, *vid = NULL;
    unsigned char *keepf = NULL;
    mmx_mesh *m = NULL;
    mmx_status s = mmx__host_alloc(ctx, (size_t)t->nverts + 1, sizeof *to, (void **)&to);
    if (!s) s = mmx__host_alloc(ctx, (size_t)t->nverts + 1, sizeof *vid, (void **)&vid);
    if (!s) s = mmx__host_alloc(ctx, (size_t)t->nfaces + 1, 1, (void **)&keepf);
    if (!s) {
        for (mmx_index v = 0; v < t->nverts; v++) to[v] = v;
        memset(keepf, 1, (size_t)t->nfaces);
        for (mmx_index i = 0; i < nkept; i++) {
            const mmx_index j = r->kept[i];
            to[r->seeds[j]] = uu[j];
            keepf[r->sd[j].faces[0]] = keepf[r->sd[j].faces[1]] = 0;
        }
        const mmx__compact c = {keepf, to, r->pos, t->nverts - nkept, t->nfaces - 2 * nkept, 0, 0};
        s = mmx__round_compact(ctx, MMX_SPACE_HOST, t->verts, t->nverts, t->nfaces, &c, &m, vid);
        for (mmx_index i = 0; !s && i < nkept; i++) r->sd[r->kept[i]].vertex = vid[uu[r->kept[i]]];
        s = mmx__round_result(ctx, s, m, out);
    }
    free(to);
    free(vid);
    free(keepf);
    return s;
}

const mmx__round_ops mmx__vremove_ops = {{vremove_propose_host, mmx__vremove_propose_cuda},
                                         {vremove_fill_host, mmx__vremove_fill_cuda}};

mmx_status mmx_cavity_vertex_remove_round(mmx_ctx *ctx, const mmx_mesh *mesh,
                                          const mmx_index *seeds, mmx_index n, uint32_t round,
                                          mmx_mesh **out, mmx_cavity_counts *counts,
                                          mmx_cavity_seed *per_seed)
{
    MMX__NEED_CTX(ctx);
    if (!mesh || !mesh->M || !out || (n > 0 && !seeds) || n < 0)
        return mmx__fail(ctx, MMX_ERR_ARG, "%s: NULL argument or negative count", WHO);
    *out = NULL;
    const mmx_index nv = mmx_mesh_nverts(mesh);
    for (mmx_index i = 0; i < n; i++)
        if (seeds[i] < 0 || seeds[i] >= nv)
            return mmx__fail(ctx, MMX_ERR_ARG, "%s: seed %d is vertex %d, outside [0, %d)", WHO,
                             (int)i, (int)seeds[i], (int)nv);
    mmx__round r;
    memset(&r, 0, sizeof r);
    r.ctx = ctx, r.cuda = mmx_ctx_backend(ctx) != MMX_BACKEND_HOST, r.mesh = mesh;
    r.pos = mesh->pos, r.kind = MMX_CAVITY_VERTEX_REMOVE, r.n = n, r.round = round, r.tally = 1;
    r.seeds = seeds, r.sd = per_seed;
    if (!r.cuda) {
        mmx__flip_topo t;
        mmx_status s = mmx__flip_topo_build(ctx, mesh, WHO, &t);
        if (s) return s;
        r.ht = &t;
        s = mmx__round_run(&r, &mmx__vremove_ops, out, counts);
        mmx__flip_topo_free(&t);
        return s;
    }
    mmx__sc_dev t;
    mmx_status s = mmx__sc_dev_build(ctx, mesh, WHO, &t);
    if (s) return s;
    r.sv = &t.view;
    s = mmx__round_run_host_args(&r, &mmx__vremove_ops, per_seed, out, counts);
    mmx__sc_dev_free(ctx, &t);
    return s;
}
