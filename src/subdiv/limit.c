/* mmx_subdiv_limit: the limit surface at a mesh's vertices (OpenSubdiv's limit masks, rules.h),
 * from the mesh's half-edge view, one vertex at a time by limit_vertex.h's rule: a host loop,
 * or on CUDA a grid-stride kernel (limit.cu) whose threads each own a scratch for the ring and
 * weights of the largest valence. */
#include <stdlib.h>
#include <string.h>
#include "limit_vertex.h"

mmx_status mmx_subdiv_limit(mmx_ctx *ctx, mmx_scheme scheme, const mmx_mesh *mesh,
                            const mmx_subdiv_options *opts, float *pos, float *normals)
{
    MMX__NEED_CTX(ctx);
    const char *who = "mmx_subdiv_limit";
    if (scheme == MMX_SCHEME_SQRT3)
        return mmx__fail(ctx, MMX_ERR_UNSUPPORTED, "%s: sqrt3 has no limit masks here "
                         "(OpenSubdiv has no sqrt3)", who);
    if (!pos && !normals) return mmx__fail(ctx, MMX_ERR_ARG, "%s: pos and normals are NULL", who);
    mmx_subdiv_options o;
    mmx_adjacency *adj = NULL;
    mmx__subdiv_sharp sh;
    double ms = 0;
    mmx_status s = mmx__subdiv_prepare(ctx, who, scheme, mesh, 0, opts, 0, &o, &adj, &ms, &sh);
    if (s) return s;
    if (adj->nonmanifold_edges > 0)
        s = mmx__fail(ctx, MMX_ERR_UNSUPPORTED, "%s: the limit masks of an edge of three faces or "
                      "more are not implemented", who);
    const mmx_index order = mesh->M->ncols ? adj->face_order : (mmx__scheme_quads(scheme) ? 4 : 3);
    if (!s && scheme == MMX_SCHEME_CATMULL_CLARK && order != 4)
        s = mmx__fail(ctx, MMX_ERR_MESH, "%s: Catmull-Clark's limit masks need quads (a refined "
                      "mesh), and this mesh has other faces", who);
    const size_t nv = (size_t)adj->nverts;
    const mmx_space sp = mmx_ctx_space(ctx);
    mmx__halfedge H;
    memset(&H, 0, sizeof H);
    if (!s) s = mmx__halfedge_build(ctx, mesh, adj, &H);
    /* An edge run the same way by both its faces breaks the counter-clockwise rings (the view's
     * fault record names its first corner; read back on CUDA: a wait). */
    mmx__fault fault = {MMX__FAULT_NONE, 0};
    if (!s) s = mmx__halfedge_fault(ctx, &H, &fault);
    if (!s && fault.kind == MMX__FAULT_HALFEDGE_TWICE)
        s = mmx__fail(ctx, MMX_ERR_UNSUPPORTED, "%s: the limit of an edge that both its faces "
                      "run the same way is not implemented (corner %d)", who, (int)fault.element);
    mmx__limit_in L;
    memset(&L, 0, sizeof L);
    L.scheme = scheme, L.boundary = sh.boundary, L.nv0 = sh.nv0;
    L.order = mesh->M->order, L.nf = mesh->M->ncols, L.colptr = mesh->M->colptr;
    L.rowidx = mesh->M->rowidx, L.pos = mesh->pos;
    L.mate = H.mate, L.first = H.first, L.fe = adj->fe, L.one_fan = H.one_fan;
    L.vsharp = sh.vsharp, L.esharp = sh.esharp;
    /* Scratch per worker (the host loop, or each CUDA thread): ring, diagonals and sharp flags
     * (slot entries each) and four weight arrays, for the largest valence; the threads are as
     * many as vertices, within about 256 MB of scratch. */
    const size_t slot = (size_t)adj->max_valence + 2, per = slot * (3 * sizeof(mmx_index) + 4 * sizeof(double));
    size_t workers = sp == MMX_SPACE_HOST ? 1 : ((size_t)256 << 20) / per;
    if (workers > nv) workers = nv;
    if (workers < 1) workers = 1;
    mmx_index *idx = NULL;
    double *w = NULL;
    float *tpos = NULL, *tnrm = NULL;
    if (!s) s = mmx_mem_alloc(ctx, sp, workers * slot * 3 * sizeof *idx, (void **)&idx);
    if (!s) s = mmx_mem_alloc(ctx, sp, workers * slot * 4 * sizeof *w, (void **)&w);
    if (!s && sp != MMX_SPACE_HOST) {
        s = mmx__limit_cuda(ctx, L, (mmx_index)nv, adj->valence, (mmx_index)slot,
                            (mmx_index)workers, idx, w, pos, normals);
    } else if (!s) {
        /* The loop writes both; a NULL output gets a scratch array. */
        if (!pos) s = mmx__host_alloc(ctx, 3 * nv, sizeof *tpos, (void **)&tpos);
        if (!normals && !s) s = mmx__host_alloc(ctx, 3 * nv, sizeof *tnrm, (void **)&tnrm);
        float *P = pos ? pos : tpos, *N = normals ? normals : tnrm;
        for (size_t v = 0; !s && v < nv; v++)
            mmx__limit_vertex(&L, (mmx_index)v, adj->valence[v], idx, idx + slot, idx + 2 * slot, w,
                              P + 3 * v, N + 3 * v);
    }
    free(tpos), free(tnrm);
    if (idx) mmx_mem_free(ctx, sp, idx);
    if (w) mmx_mem_free(ctx, sp, w);
    mmx__halfedge_free(&H);
    mmx_adjacency_free(adj);
    mmx__subdiv_sharp_free(&sh);
    return s;
}
