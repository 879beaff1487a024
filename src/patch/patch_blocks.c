/* mmx_patch_set_blocks (patch_view.h): the one place that reads the patch set's layout for the
 * user-kernel views (patch_view.h, patch_kernel.cuh), so a change of the set's arrays is met
 * here and in the view's setup; and the refusal a failed patch-kernel launch records. */
#include "patch_internal.h"
#include "meshmatrix/patch_view.h"

mmx_status mmx_patch_set_blocks(mmx_ctx *ctx, const mmx_patch_set *ps, int lists,
                                mmx_patch_blocks *out)
{
    MMX__NEED_CTX(ctx);
    if (!ps || !out) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_patch_set_blocks: NULL argument");
    if (lists != 0 && lists != MMX_PV_EDGE_FACES && lists != MMX_PV_VERTEX_FANS &&
        lists != MMX_PV_VERTEX_STARS && lists != MMX_PV_KEPT_ROWS)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_patch_set_blocks: lists = %d is not 0, "
                         "MMX_PV_EDGE_FACES, MMX_PV_VERTEX_FANS, MMX_PV_VERTEX_STARS or "
                         "MMX_PV_KEPT_ROWS", lists);
    if (ps->space != mmx_ctx_space(ctx))
        return mmx__fail(ctx, MMX_ERR_SPACE, "mmx_patch_set_blocks: the patch set is not in the "
                         "context's space");
    /* Fans and stars walk faces by orientation (mmx_patch_reduce refuses the same sets). */
    if ((lists == MMX_PV_VERTEX_FANS || lists == MMX_PV_VERTEX_STARS || lists == MMX_PV_KEPT_ROWS) &&
        ps->bad_edge >= 0) {
        /* The edge's ends were recorded with it when the set was built. */
        return mmx__fail(ctx, MMX_ERR_MESH,
                         "patch kernel: edge %d {%d, %d} has two faces that run it the same way: "
                         "the faces are not consistently oriented, so vertex fans and stars (VV, "
                         "VE, VF) are not defined", ps->bad_edge, ps->bad_ends[0], ps->bad_ends[1]);
    }
    out->space = ps->space;
    out->npatches = ps->npatches;
    out->nverts = ps->nverts, out->nedges = ps->nedges, out->nfaces = ps->nfaces;
    out->order = ps->order;
    out->max_faces = ps->stats.max_local_faces;
    out->max_edges = ps->stats.max_local_edges;
    out->max_verts = ps->stats.max_local_verts;
    out->max_corners = ps->max_corners;
    out->work_bytes = mmx_pv_work_bytes(out->max_faces, out->max_edges, out->max_verts,
                                        out->max_corners);
    out->face_off = ps->face_off, out->edge_off = ps->edge_off;
    out->vert_off = ps->vert_off, out->corner_off = ps->corner_off;
    out->owned = ps->owned;
    out->l2g_f = ps->l2g_f, out->l2g_e = ps->l2g_e, out->l2g_v = ps->l2g_v;
    out->fstart = ps->fstart;
    out->fe = ps->fe, out->ev = ps->ev;
    out->owned_off = out->vv_ptr = out->vf_ptr = NULL;
    out->vv = out->vf = NULL;
    if (lists != MMX_PV_KEPT_ROWS) return MMX_OK;
    /* The kept rows instead of a work space: made on the set's first such call. */
    out->work_bytes = 0;
    const mmx_status s = mmx__patch_rows(ctx, ps);
    if (s) return s;
    out->owned_off = ps->owned_off;
    out->vv_ptr = ps->rows_ptr, out->vf_ptr = ps->rows_ptr + ps->nverts + 1;
    out->vv = ps->rows_idx[MMX__ROWS_VV], out->vf = ps->rows_idx[MMX__ROWS_VF];
    return MMX_OK;
}

mmx_status mmx_patch_kernel_fail(mmx_ctx *ctx, mmx_status s, const char *what)
{
    MMX__NEED_CTX(ctx);
    return mmx__fail(ctx, s, "patch kernel: %s", what ? what : "failed");
}
