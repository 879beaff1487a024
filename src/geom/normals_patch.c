/* Area-weighted vertex normals on the patches (geom.h, mmx_vertex_normals_patch): each patch
 * copies its vertices' positions once into its work space, computes its faces' Newell vectors
 * there and sums them around each owned vertex along its kept VF row (geom_patch.h: the
 * star's order, fixed), on the host in a loop over the patches, on CUDA as one patch kernel
 * (normals_patch.cu, MMX_PV_KEPT_ROWS: no per-call set-up of the patches). */
#include "geom_patch.h"
#include "patch/patch_internal.h" /* the set's sizes */

mmx_status mmx_vertex_normals_patch(mmx_ctx *ctx, const mmx_mesh *mesh,
                                    const mmx_patch_set *ps, float *normals)
{
    MMX__NEED_CTX(ctx);
    mmx_status s = mmx__geom_check(ctx, mesh, 1, "mmx_vertex_normals_patch");
    if (s) return s;
    const mmx_csc *M = mesh->M;
    if (!ps || (!normals && M->nrows > 0))
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_vertex_normals_patch: NULL patch set or normals");
    if (ps->nverts != M->nrows || ps->nfaces != M->ncols)
        return mmx__fail(ctx, MMX_ERR_ARG,
                         "mmx_vertex_normals_patch: the patch set has %d vertices and %d faces, "
                         "the mesh %d and %d: not the mesh's set",
                         ps->nverts, ps->nfaces, M->nrows, M->ncols);
    mmx_patch_blocks b;
    s = mmx_patch_set_blocks(ctx, ps, MMX_PV_KEPT_ROWS, &b);
    /* Vertices in no face are in no patch: their normals are 0. */
    if (!s && M->nrows > 0) s = mmx__geom_fill(ctx, normals, 3 * (int64_t)M->nrows, 0.0f);
    if (s || b.npatches == 0) return s;
    if (mmx_ctx_backend(ctx) == MMX_BACKEND_CUDA)
        return mmx__patch_normals_cuda(ctx, ps, mesh->pos, normals);
    /* The local positions and the local faces' vectors. */
    const size_t xs = 3 * (size_t)b.max_verts, fs = 3 * (size_t)b.max_faces;
    float *sx = NULL;
    s = mmx__host_alloc(ctx, xs + fs + 1, sizeof *sx, (void **)&sx);
    if (s) return s;
    float *sn = sx + xs;
    for (mmx_index p = 0; p < b.npatches; p++) {
        mmx_patch_view V;
        mmx_pv_setup_kept(&b, p, &V);
        for (mmx_index l = 0; l < mmx_pv_verts(&V); l++) mmx__gp_load_vertex(&V, mesh->pos, l, sx);
        for (mmx_index l = 0; l < mmx_pv_faces(&V); l++) mmx__gp_face_newell(&V, sx, l, sn + 3 * (int64_t)l);
        for (mmx_index v = 0; v < mmx_pv_owned_verts(&V); v++) {
            mmx_index n;
            const uint16_t *row = mmx_pv_kept_vf(&V, v, &n);
            mmx__gp_normal(sn, row, n, mmx_pv_gv(&V, v), normals);
        }
    }
    free(sx);
    return MMX_OK;
}

#ifndef MMX_HAVE_CUDA
mmx_status mmx__patch_normals_cuda(mmx_ctx *ctx, const mmx_patch_set *ps, const float *pos,
                                   float *normals)
{
    (void)ps, (void)pos, (void)normals;
    return mmx__no_cuda(ctx, "mmx__patch_normals_cuda");
}
#endif
