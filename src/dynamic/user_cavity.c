/* The user cavity template of the cavity operator (mmx_cavity_user_round; dynamic.h states
 * its rules), host reference and entry point: each cavity (a set of faces the caller names) is
 * checked to be a disk (user_step.h, the code the CUDA round runs too), the kept set is the
 * shared greedy pass over the cavities' faces in key order (priority, cavity), and each kept
 * cavity is replaced by a fan from a new vertex at its boundary loop's centroid. The CUDA
 * round is user_cavity.cu's. */
#include <stdlib.h>
#include <string.h>
#include "dynamic_internal.h"
#include "user_step.h"

static const char *const WHO = "mmx_cavity_user_round";

static mmx_status user_host(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx__flip_topo *t,
                            const mmx_index *cav_ptr, const mmx_index *cav_faces, mmx_index n,
                            const uint64_t *priority, uint32_t round, mmx_mesh **out,
                            mmx_cavity_counts *counts, mmx_cavity_seed *per_seed)
{
    const mmx__sc_view v = mmx__sc_host_view(t);
    const float *pos = mesh->pos;
    const mmx_index base = n > 0 ? cav_ptr[0] : 0, total = n > 0 ? cav_ptr[n] - base : 0;
    mmx_cavity_seed *sd = per_seed;
    mmx__cavity_key *order = NULL;
    unsigned char *taken = NULL;
    mmx_index *scr = NULL, *nloop = NULL, *kept = NULL;
    mmx_status s = MMX_OK;
    if (!sd) s = mmx__host_alloc(ctx, (size_t)n + 1, sizeof *sd, (void **)&sd);
    if (!s) s = mmx__host_alloc(ctx, (size_t)n + 1, sizeof *order, (void **)&order);
    if (!s) s = mmx__host_alloc(ctx, (size_t)n + 1, sizeof *kept, (void **)&kept);
    if (!s) s = mmx__host_alloc(ctx, (size_t)n + 1, sizeof *nloop, (void **)&nloop);
    if (!s) s = mmx__host_alloc(ctx, 4 * (size_t)total + 1, sizeof *scr, (void **)&scr);
    if (!s) s = mmx__host_alloc(ctx, (size_t)t->nfaces + 1, 1, (void **)&taken);
    mmx_cavity_counts c = {n, 0, 0, 0};
    if (s) goto done;
    /* Each cavity's check; its loop stays in its scratch (from 4 (cav_ptr[i] - base) + k). */
    mmx_index nvalid = 0;
    for (mmx_index i = 0; i < n; i++) {
        const mmx_index k = cav_ptr[i + 1] - cav_ptr[i];
        mmx_index *uf = scr + 4 * (size_t)(cav_ptr[i] - base);
        mmx_cavity_seed *x = &sd[i];
        x->faces[0] = x->faces[1] = x->new_edge[0] = x->new_edge[1] = x->vertex = -1;
        x->priority = priority ? priority[i] : mmx_cavity_priority(i, round);
        if (mmx__uc_cavity(&v, pos, cav_faces + cav_ptr[i], k, uf, uf + k, &nloop[i])) {
            order[nvalid++] = (mmx__cavity_key){x->priority, i, i};
        } else {
            x->outcome = MMX_CAVITY_INVALID;
            c.invalid++;
        }
    }
    mmx__cavity_key_sort(order, nvalid);
    memset(taken, 0, (size_t)t->nfaces);
    c.kept = mmx__cavity_select(order, nvalid, sd, cav_ptr, cav_faces, taken, NULL, 0, 0, kept);
    c.conflicts = nvalid - c.kept;
    /* taken[] now flags exactly the kept cavities' faces: the survivors are the others, in
     * their order, then each kept cavity's fan around its new vertex. */
    mmx_index nsurv = 0, nfan = 0;
    for (mmx_index f = 0; f < t->nfaces; f++) {
        taken[f] = !taken[f];
        nsurv += taken[f];
    }
    for (mmx_index i = 0; i < c.kept; i++) nfan += nloop[kept[i]];
    const mmx__compact cp = {taken, NULL, pos, t->nverts, nsurv, c.kept, nfan};
    mmx_mesh *m = NULL;
    s = mmx__round_compact(ctx, MMX_SPACE_HOST, t->verts, t->nverts, t->nfaces, &cp, &m, NULL);
    if (s) goto done;
    mmx_index g = nsurv;
    for (mmx_index r = 0; r < c.kept; r++) {
        const mmx_index i = kept[r], nv = t->nverts + r;
        const mmx_index *F = cav_faces + cav_ptr[i];
        const mmx_index k = cav_ptr[i + 1] - cav_ptr[i];
        const mmx_index *loop = scr + 4 * (size_t)(cav_ptr[i] - base) + k;
        sd[i].vertex = nv;
        if (pos) mmx__uc_centroid(t->verts, pos, F, loop, nloop[i], m->pos + 3 * (size_t)nv);
        mmx__uc_fill(t->verts, F, loop, nloop[i], nv, m->M->rowidx, g);
        g += nloop[i];
    }
    s = mmx__round_result(ctx, s, m, out);
done:
    if (!s && counts) *counts = c;
    if (sd != per_seed) free(sd);
    free(order);
    free(kept);
    free(nloop);
    free(scr);
    free(taken);
    return s;
}

static mmx_status user_check(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_index *cav_ptr,
                             const mmx_index *cav_faces, mmx_index n)
{
    if (!mesh || !mesh->M || n < 0 || (n > 0 && (!cav_ptr || !cav_faces)))
        return mmx__fail(ctx, MMX_ERR_ARG, "%s: NULL argument or negative count", WHO);
    if (n > 0 && cav_ptr[0] < 0)
        return mmx__fail(ctx, MMX_ERR_ARG, "%s: cav_ptr[0] is %d, negative", WHO, (int)cav_ptr[0]);
    const mmx_index nf = mmx_mesh_nfaces(mesh);
    for (mmx_index i = 0; i < n; i++) {
        if (cav_ptr[i + 1] < cav_ptr[i])
            return mmx__fail(ctx, MMX_ERR_ARG, "%s: cavity %d ends (%d) before it starts (%d)",
                             WHO, (int)i, (int)cav_ptr[i + 1], (int)cav_ptr[i]);
        for (mmx_index r = cav_ptr[i]; r < cav_ptr[i + 1]; r++)
            if (cav_faces[r] < 0 || cav_faces[r] >= nf)
                return mmx__fail(ctx, MMX_ERR_ARG, "%s: cavity %d names face %d, outside [0, %d)",
                                 WHO, (int)i, (int)cav_faces[r], (int)nf);
    }
    return MMX_OK;
}

mmx_status mmx_cavity_user_round(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_index *cav_ptr,
                                 const mmx_index *cav_faces, mmx_index n, const uint64_t *priority,
                                 uint32_t round, mmx_mesh **out, mmx_cavity_counts *counts,
                                 mmx_cavity_seed *per_seed)
{
    MMX__NEED_CTX(ctx);
    if (!out) return mmx__fail(ctx, MMX_ERR_ARG, "%s: NULL argument or negative count", WHO);
    *out = NULL;
    mmx_status s = user_check(ctx, mesh, cav_ptr, cav_faces, n);
    if (s) return s;
    if (mmx_ctx_backend(ctx) != MMX_BACKEND_HOST)
        return mmx__user_round_cuda(ctx, mesh, cav_ptr, cav_faces, n, priority, round, out,
                                    counts, per_seed);
    mmx__flip_topo t;
    s = mmx__flip_topo_build(ctx, mesh, WHO, &t);
    if (s) return s;
    s = user_host(ctx, mesh, &t, cav_ptr, cav_faces, n, priority, round, out, counts, per_seed);
    mmx__flip_topo_free(&t);
    return s;
}
