/* The user cavity template of the cavity operator (mmx_cavity_user_round; dynamic.h states
 * its rules), its host stages for the round driver (round.c) and its entry point: each cavity
 * (a set of faces the caller names) is checked to be a disk (user_step.h, the code the CUDA
 * stages run too), the kept set is the shared greedy pass over the cavities' faces in key
 * order (priority, cavity), and each kept cavity is replaced by a fan from a new vertex at its
 * boundary loop's centroid. The CUDA stages are user_cavity.cu's. */
#include <stdlib.h>
#include <string.h>
#include "dynamic_internal.h"
#include "user_step.h"

static const char *const WHO = "mmx_cavity_user_round";

/* What the fill needs from the proposal: each cavity's boundary loop (in its scratch, from
 * 4 (cav_ptr[i] - base) + k) and its length. */
typedef struct uc_host {
    mmx_index *scr, *nloop;
} uc_host;

/* The proposal: each cavity's check (user_step.h); its elements are its faces. */
static mmx_status user_propose_host(mmx__round *r)
{
    const mmx__sc_view v = mmx__sc_host_view(r->ht);
    const mmx_index n = r->n, *cav_ptr = r->cav_ptr, *cav_faces = r->cav_faces;
    const mmx_index base = n > 0 ? cav_ptr[0] : 0;
    uc_host *u = NULL;
    mmx_status s = mmx__round_take(r, (size_t)n * sizeof *r->key, (void **)&r->key);
    if (!s) s = mmx__round_take(r, (size_t)n * sizeof *r->elem, (void **)&r->elem);
    if (!s) s = mmx__round_take(r, (size_t)n, (void **)&r->state);
    if (!s) s = mmx__round_take(r, sizeof *u, (void **)&u);
    if (!s) s = mmx__round_take(r, ((size_t)n + 1) * sizeof *u->nloop, (void **)&u->nloop);
    if (!s) s = mmx__round_take(r, 4 * (size_t)r->cav_total * sizeof *u->scr, (void **)&u->scr);
    if (s) return s;
    r->priv = u;
    r->ring_ptr = cav_ptr, r->ring = cav_faces, r->nelem = r->ht->nfaces;
    for (mmx_index i = 0; i < n; i++) {
        const mmx_index k = cav_ptr[i + 1] - cav_ptr[i];
        mmx_index *uf = u->scr + 4 * (size_t)(cav_ptr[i] - base);
        mmx_cavity_seed *x = &r->sd[i];
        x->faces[0] = x->faces[1] = x->new_edge[0] = x->new_edge[1] = x->vertex = -1;
        x->priority = r->upri ? r->upri[i] : mmx_cavity_priority(i, r->round);
        r->key[i] = x->priority, r->elem[i] = i;
        if (mmx__uc_cavity(&v, r->pos, cav_faces + cav_ptr[i], k, uf, uf + k, &u->nloop[i])) {
            r->state[i] = MMX__UNDECIDED;
        } else {
            x->outcome = MMX_CAVITY_INVALID, r->state[i] = MMX_CAVITY_INVALID;
            r->c.invalid++;
        }
    }
    return MMX_OK;
}

/* The fill: the survivors (faces in no kept cavity) in their order, then each kept cavity's
 * fan around its new vertex, in key order. */
static mmx_status user_fill_host(mmx__round *r, mmx_mesh **out)
{
    const mmx__flip_topo *t = r->ht;
    const uc_host *u = r->priv;
    const mmx_index n = r->n, *cav_ptr = r->cav_ptr, *cav_faces = r->cav_faces;
    const mmx_index base = n > 0 ? cav_ptr[0] : 0;
    unsigned char *keepf = NULL;
    mmx_status s = mmx__host_alloc(r->ctx, (size_t)t->nfaces + 1, 1, (void **)&keepf);
    if (s) return s;
    memset(keepf, 1, (size_t)t->nfaces);
    mmx_index nsurv = t->nfaces, nfan = 0;
    for (mmx_index j = 0; j < r->c.kept; j++) {
        const mmx_index i = r->kept[j];
        for (mmx_index q = cav_ptr[i]; q < cav_ptr[i + 1]; q++) keepf[cav_faces[q]] = 0;
        nsurv -= cav_ptr[i + 1] - cav_ptr[i];
        nfan += u->nloop[i];
    }
    const mmx__compact cp = {keepf, NULL, r->pos, t->nverts, nsurv, r->c.kept, nfan};
    mmx_mesh *m = NULL;
    s = mmx__round_compact(r->ctx, MMX_SPACE_HOST, t->verts, t->nverts, t->nfaces, &cp, &m, NULL);
    free(keepf);
    if (s) return s;
    mmx_index g = nsurv;
    for (mmx_index j = 0; j < r->c.kept; j++) {
        const mmx_index i = r->kept[j], nv = t->nverts + j;
        const mmx_index *F = cav_faces + cav_ptr[i];
        const mmx_index k = cav_ptr[i + 1] - cav_ptr[i];
        const mmx_index *loop = u->scr + 4 * (size_t)(cav_ptr[i] - base) + k;
        r->sd[i].vertex = nv;
        if (r->pos)
            mmx__uc_centroid(t->verts, r->pos, F, loop, u->nloop[i], m->pos + 3 * (size_t)nv);
        mmx__uc_fill(t->verts, F, loop, u->nloop[i], nv, m->M->rowidx, g);
        g += u->nloop[i];
    }
    return mmx__round_result(r->ctx, s, m, out);
}

const mmx__round_ops mmx__user_ops = {{user_propose_host, mmx__user_propose_cuda},
                                      {user_fill_host, mmx__user_fill_cuda}};

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
    const mmx_index base = n > 0 ? cav_ptr[0] : 0, total = n > 0 ? cav_ptr[n] - base : 0;
    mmx__round r;
    memset(&r, 0, sizeof r);
    r.ctx = ctx, r.cuda = mmx_ctx_backend(ctx) != MMX_BACKEND_HOST, r.mesh = mesh;
    r.pos = mesh->pos, r.n = n, r.round = round, r.tally = 1, r.cav_total = total;
    r.cav_ptr = cav_ptr, r.cav_faces = cav_faces, r.upri = priority, r.sd = per_seed;
    if (!r.cuda) {
        mmx__flip_topo t;
        s = mmx__flip_topo_build(ctx, mesh, WHO, &t);
        if (s) return s;
        r.ht = &t;
        s = mmx__round_run(&r, &mmx__user_ops, out, counts);
        mmx__flip_topo_free(&t);
        return s;
    }
    /* CUDA: the host arrays copied down (cav_ptr rebased to 0 on the host first), per_seed
     * copied back. */
    mmx__sc_dev t;
    s = mmx__sc_dev_build(ctx, mesh, WHO, &t);
    if (s) return s;
    mmx_index *hp = NULL, *dptr = NULL, *dfaces = NULL;
    uint64_t *dpri = NULL;
    mmx_cavity_seed *dsd = NULL;
    const size_t db = (size_t)n * sizeof *dsd;
    s = mmx__host_alloc(ctx, (size_t)n + 1, sizeof *hp, (void **)&hp);
    for (mmx_index i = 0; !s && i <= n; i++) hp[i] = n > 0 ? cav_ptr[i] - base : 0;
    if (!s) s = mmx__round_upload(ctx, hp, ((size_t)n + 1) * sizeof *hp, (void **)&dptr);
    if (!s) s = mmx__round_upload(ctx, cav_faces + base, (size_t)total * sizeof *cav_faces,
                                  (void **)&dfaces);
    if (!s && priority)
        s = mmx__round_upload(ctx, priority, (size_t)n * sizeof *priority, (void **)&dpri);
    if (!s && per_seed) s = mmx_mem_alloc(ctx, MMX_SPACE_DEVICE, db, (void **)&dsd);
    r.sv = &t.view, r.cav_ptr = dptr, r.cav_faces = dfaces, r.upri = dpri, r.sd = dsd;
    if (!s) s = mmx__round_run(&r, &mmx__user_ops, out, counts);
    if (!s && per_seed && n)
        s = mmx_mem_copy(ctx, per_seed, MMX_SPACE_HOST, dsd, MMX_SPACE_DEVICE, db);
    if (s && *out) {
        mmx_mesh_free(*out);
        *out = NULL;
    }
    free(hp);
    mmx_mem_free(ctx, MMX_SPACE_DEVICE, dptr);
    mmx_mem_free(ctx, MMX_SPACE_DEVICE, dfaces);
    mmx_mem_free(ctx, MMX_SPACE_DEVICE, dpri);
    mmx_mem_free(ctx, MMX_SPACE_DEVICE, dsd);
    mmx__sc_dev_free(ctx, &t);
    return s;
}
