/* mmx_subdiv_limit: the limit surface at a mesh's vertices (OpenSubdiv's limit masks, rules.h),
 * from the mesh's half-edge view, one vertex at a time by limit_vertex.h's rule: a host loop,
 * or on CUDA a grid-stride kernel (limit.cu) whose threads each own a scratch for the ring and
 * weights of the largest valence. What depends on the topology alone is prepared once
 * (mmx__limit_prepare), so that plans apply the masks to each evaluation with the kernel. */
#include <stdlib.h>
#include <string.h>
#include "limit_vertex.h"

void mmx__limit_state_free(mmx_ctx *ctx, mmx__limit_state *st)
{
    const mmx_space sp = mmx_ctx_space(ctx);
    if (st->idx) mmx_mem_free(ctx, sp, st->idx);
    if (st->w) mmx_mem_free(ctx, sp, st->w);
    mmx__halfedge_free(&st->H);
    mmx_adjacency_free(st->adj);
    mmx__subdiv_sharp_free(&st->sh);
    memset(st, 0, sizeof *st);
}

mmx_status mmx__limit_prepare(mmx_ctx *ctx, mmx_scheme scheme, const mmx_mesh *mesh,
                              const mmx_subdiv_options *opts, mmx__limit_state *st)
{
    const char *who = "mmx_subdiv_limit";
    memset(st, 0, sizeof *st);
    if (scheme == MMX_SCHEME_SQRT3)
        return mmx__fail(ctx, MMX_ERR_UNSUPPORTED, "%s: sqrt3 has no limit masks here "
                         "(OpenSubdiv has no sqrt3)", who);
    mmx_subdiv_options o;
    double ms = 0;
    mmx_status s = mmx__subdiv_prepare(ctx, who, scheme, mesh, 0, opts, 0, 0, &o, &st->adj, &ms, &st->sh);
    if (s) return s;
    const mmx_adjacency *adj = st->adj;
    if (adj->nonmanifold_edges > 0)
        s = mmx__fail(ctx, MMX_ERR_UNSUPPORTED, "%s: the limit masks of an edge of three faces or "
                      "more are not implemented", who);
    const mmx_index order = mesh->M->ncols ? adj->face_order : (mmx__scheme_quads(scheme) ? 4 : 3);
    if (!s && scheme == MMX_SCHEME_CATMULL_CLARK && order != 4)
        s = mmx__fail(ctx, MMX_ERR_MESH, "%s: Catmull-Clark's limit masks need quads (a refined "
                      "mesh), and this mesh has other faces", who);
    const size_t nv = (size_t)adj->nverts;
    const mmx_space sp = mmx_ctx_space(ctx);
    if (!s) s = mmx__halfedge_build(ctx, mesh, adj, &st->H);
    /* An edge run the same way by both its faces breaks the counter-clockwise rings (the view's
     * fault record names its first corner; read back on CUDA: a wait). */
    mmx__fault fault = {MMX__FAULT_NONE, 0};
    if (!s) s = mmx__halfedge_fault(ctx, &st->H, &fault);
    if (!s && fault.kind == MMX__FAULT_HALFEDGE_TWICE)
        s = mmx__fail(ctx, MMX_ERR_UNSUPPORTED, "%s: the limit of an edge that both its faces "
                      "run the same way is not implemented (corner %d)", who, (int)fault.element);
    mmx__limit_in *L = &st->L;
    L->scheme = scheme, L->boundary = st->sh.boundary, L->nv0 = st->sh.nv0;
    L->order = mesh->M->order, L->nf = mesh->M->ncols, L->colptr = mesh->M->colptr;
    L->rowidx = mesh->M->rowidx, L->pos = NULL;
    L->mate = st->H.mate, L->first = st->H.first, L->fe = adj->fe, L->one_fan = st->H.one_fan;
    L->vsharp = st->sh.vsharp, L->esharp = st->sh.esharp;
    /* Scratch per worker (the host loop, or each CUDA thread): ring, diagonals and sharp flags
     * (slot entries each) and four weight arrays, for the largest valence; the threads are as
     * many as vertices, within about 256 MB of scratch. */
    const size_t slot = (size_t)adj->max_valence + 2, per = slot * (3 * sizeof(mmx_index) + 4 * sizeof(double));
    size_t workers = sp == MMX_SPACE_HOST ? 1 : ((size_t)256 << 20) / per;
    if (workers > nv) workers = nv;
    if (workers < 1) workers = 1;
    st->slot = (mmx_index)slot, st->workers = (mmx_index)workers, st->nv = (mmx_index)nv;
    if (!s) s = mmx_mem_alloc(ctx, sp, workers * slot * 3 * sizeof *st->idx, (void **)&st->idx);
    if (!s) s = mmx_mem_alloc(ctx, sp, workers * slot * 4 * sizeof *st->w, (void **)&st->w);
    if (s) mmx__limit_state_free(ctx, st);
    return s;
}

mmx_status mmx__limit_run(mmx_ctx *ctx, const mmx__limit_state *st, const float *pos, float *out,
                          float *normals)
{
    mmx__limit_in L = st->L;
    L.pos = pos;
    if (mmx_ctx_backend(ctx) == MMX_BACKEND_CUDA)
        return mmx__limit_cuda(ctx, L, st->nv, st->adj->valence, st->slot, st->workers, st->idx,
                               st->w, out, normals);
    /* The loop writes both; a NULL output gets a scratch array. */
    const size_t nv = (size_t)st->nv, slot = (size_t)st->slot;
    float *tpos = NULL, *tnrm = NULL;
    mmx_status s = MMX_OK;
    if (!out) s = mmx__host_alloc(ctx, 3 * nv, sizeof *tpos, (void **)&tpos);
    if (!normals && !s) s = mmx__host_alloc(ctx, 3 * nv, sizeof *tnrm, (void **)&tnrm);
    float *P = out ? out : tpos, *N = normals ? normals : tnrm;
    for (size_t v = 0; !s && v < nv; v++)
        mmx__limit_vertex(&L, (mmx_index)v, st->adj->valence[v], st->idx, st->idx + slot,
                          st->idx + 2 * slot, st->w, P + 3 * v, N + 3 * v);
    free(tpos), free(tnrm);
    return s;
}

mmx_status mmx_subdiv_limit(mmx_ctx *ctx, mmx_scheme scheme, const mmx_mesh *mesh,
                            const mmx_subdiv_options *opts, float *pos, float *normals)
{
    MMX__NEED_CTX(ctx);
    if (scheme != MMX_SCHEME_SQRT3 && !pos && !normals)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_subdiv_limit: pos and normals are NULL");
    mmx__limit_state st;
    mmx_status s = mmx__limit_prepare(ctx, scheme, mesh, opts, &st);
    if (!s) s = mmx__limit_run(ctx, &st, mesh->pos, pos, normals);
    mmx__limit_state_free(ctx, &st);
    return s;
}
