/* The vertex removal template of the cavity operator (MMX_CAVITY_VERTEX_REMOVE; dynamic.h
 * states its rules), host reference and entry point: each seed vertex v is removed by a
 * half-edge collapse onto its lowest-numbered valid neighbour u (vremove_step.h, the code the
 * CUDA round runs too), the kept set by the shared greedy pass over the one-rings of v and u,
 * and the fill compacts vertices and faces, survivors in their order (as the edge collapse's
 * renumbering). The CUDA round is vremove.cu's. */
#include <stdlib.h>
#include <string.h>
#include "dynamic_internal.h"
#include "vremove_step.h"

static const char *const WHO = "mmx_cavity_vertex_remove_round";

/* The fill: kept seed j removes seeds[j] (merged into u: to[v] = u, u survives: a seed at u
 * would share u's faces with this one), its edge's two faces go. */
static mmx_status vremove_fill(mmx_ctx *ctx, const mmx__flip_topo *t, const float *pos,
                               const mmx_index *seeds, const mmx_index *uu, mmx_cavity_seed *sd,
                               const mmx_index *kept, mmx_index nkept, mmx_mesh **out)
{
    mmx_index *to = NULL, *vid = NULL;
    unsigned char *keepf = NULL;
    mmx_status s = mmx__host_alloc(ctx, (size_t)t->nverts + 1, sizeof *to, (void **)&to);
    if (!s) s = mmx__host_alloc(ctx, (size_t)t->nverts + 1, sizeof *vid, (void **)&vid);
    if (!s) s = mmx__host_alloc(ctx, (size_t)t->nfaces + 1, 1, (void **)&keepf);
    if (!s) {
        for (mmx_index v = 0; v < t->nverts; v++) to[v] = v;
        memset(keepf, 1, (size_t)t->nfaces);
        for (mmx_index i = 0; i < nkept; i++) {
            const mmx_index j = kept[i];
            to[seeds[j]] = uu[j];
            keepf[sd[j].faces[0]] = keepf[sd[j].faces[1]] = 0;
        }
        const mmx__compact c = {keepf, to, pos, t->nverts - nkept, t->nfaces - 2 * nkept, 0, 0};
        s = mmx__round_compact(ctx, MMX_SPACE_HOST, t->verts, t->nverts, t->nfaces, &c, out,
                               vid);
        for (mmx_index i = 0; !s && i < nkept; i++) sd[kept[i]].vertex = vid[uu[kept[i]]];
    }
    free(to);
    free(vid);
    free(keepf);
    return s;
}

static mmx_status vremove_host(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx__flip_topo *t,
                               const mmx_index *seeds, mmx_index n, uint32_t round,
                               mmx_mesh **out, mmx_cavity_counts *counts,
                               mmx_cavity_seed *per_seed)
{
    const mmx__sc_view v = mmx__sc_host_view(t);
    mmx_cavity_seed *sd = per_seed;
    mmx__cavity_key *order = NULL;
    unsigned char *taken = NULL;
    mmx_index *uu = NULL, *ptr = NULL, *ring = NULL, *kept = NULL;
    mmx_status s = MMX_OK;
    if (!sd) s = mmx__host_alloc(ctx, (size_t)n + 1, sizeof *sd, (void **)&sd);
    if (!s) s = mmx__host_alloc(ctx, (size_t)n + 1, sizeof *order, (void **)&order);
    if (!s) s = mmx__host_alloc(ctx, (size_t)n + 1, sizeof *kept, (void **)&kept);
    if (!s) s = mmx__host_alloc(ctx, (size_t)n + 1, sizeof *uu, (void **)&uu);
    if (!s) s = mmx__host_alloc(ctx, (size_t)n + 1, sizeof *ptr, (void **)&ptr);
    if (!s) s = mmx__host_alloc(ctx, (size_t)t->nfaces + 1, 1, (void **)&taken);
    mmx_cavity_counts c = {n, 0, 0, 0};
    mmx_index nvalid = 0;
    if (!s) {
        ptr[0] = 0;
        for (mmx_index i = 0; i < n; i++) {
            uu[i] = mmx__vr_choose(&v, mesh->pos, seeds[i], round, &sd[i]);
            mmx_index len = 0;
            if (uu[i] >= 0) {
                order[nvalid++] = (mmx__cavity_key){sd[i].priority, seeds[i], i};
                len = v.vf_ptr[seeds[i] + 1] - v.vf_ptr[seeds[i]] + v.vf_ptr[uu[i] + 1] -
                      v.vf_ptr[uu[i]];
            } else {
                sd[i].outcome = MMX_CAVITY_INVALID;
                c.invalid++;
            }
            ptr[i + 1] = ptr[i] + len;
        }
        s = mmx__host_alloc(ctx, (size_t)ptr[n] + 1, sizeof *ring, (void **)&ring);
    }
    if (!s) {
        for (mmx_index i = 0; i < n; i++)
            if (uu[i] >= 0) mmx__vr_ring(&v, seeds[i], uu[i], ring + ptr[i]);
        memset(taken, 0, (size_t)t->nfaces);
        mmx__cavity_key_sort(order, nvalid);
        c.kept = mmx__cavity_select(order, nvalid, sd, ptr, ring, taken, NULL, 0, 0, kept);
        c.conflicts = nvalid - c.kept;
        mmx_mesh *m = NULL;
        s = vremove_fill(ctx, t, mesh->pos, seeds, uu, sd, kept, c.kept, &m);
        s = mmx__round_result(ctx, s, m, out);
    }
    if (!s && counts) *counts = c;
    if (sd != per_seed) free(sd);
    free(order);
    free(kept);
    free(uu);
    free(ptr);
    free(ring);
    free(taken);
    return s;
}

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
    if (mmx_ctx_backend(ctx) != MMX_BACKEND_HOST)
        return mmx__vremove_round_cuda(ctx, mesh, seeds, n, round, out, counts, per_seed);
    mmx__flip_topo t;
    mmx_status s = mmx__flip_topo_build(ctx, mesh, WHO, &t);
    if (s) return s;
    s = vremove_host(ctx, mesh, &t, seeds, n, round, out, counts, per_seed);
    mmx__flip_topo_free(&t);
    return s;
}
