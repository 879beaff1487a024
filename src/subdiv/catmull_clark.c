/* One level of Catmull-Clark subdivision (thesis 4.3.2), as mapped SpMVs:
 *
 *   f  = Mᵀ p,  val_k -> 1/c_k                                   face points      (4.27)
 *   p~ = E p,   v -> w_ring  (1/n², boundary 0)                  old vertices     (4.31)
 *      + I b,   v -> w_crease (boundary 1/8, corner 0)           boundary rule    (4.25)
 *        with b = E p, 1 -> 1, 2 -> 0 (the neighbours across boundary edges; on a level
 *        with creases, E's entries selected one by one: the edges of each vertex's crease
 *        set, creases.c)
 *      + M f,   v -> w_ring  (1/n², boundary 0)                                    (4.32)
 *      + I p,   v -> w_self  (1 - 2/n, boundary 3/4)                               (4.30)
 *   e  = EVᵀ p, e -> w_ends  (1/4, boundary 1/2)                 edge points      (4.23)
 *      + FE f,  e -> w_faces (1/4, boundary 0)                                     (4.26)
 *
 * E is symmetric, so E p is computed as the gather Eᵀ p (deterministic on every backend). The
 * new positions are [p~ | f | e]; the child quads are written by mmx__subdiv_topology. */
#include "subdiv_internal.h"

mmx_status mmx__catmull_clark_level(mmx_ctx *ctx, const mmx_mesh *in, const mmx__subdiv_ops *ops,
                                    mmx_mesh **out)
{
    const mmx_csc *M = in->M, *E = ops->adj->E;
    const mmx_index nv = M->nrows, nf = M->ncols, ne = ops->adj->nedges;
    const float *p = in->pos;
    const mmx_space sp = mmx_ctx_space(ctx);
    mmx_mesh *r = NULL;
    float *bp = NULL;
    mmx_status s = mmx__subdiv_mesh_alloc(ctx, nv + nf + ne, &r);
    if (!s) s = mmx_mem_alloc(ctx, sp, 3 * (size_t)nv * sizeof *bp, (void **)&bp);
    if (s) {
        mmx_mesh_free(r);
        return s;
    }
    float *vp = r->pos, *f = mmx__subdiv_at(vp, 3 * (size_t)nv), *e = mmx__subdiv_at(f, 3 * (size_t)nf);
    const mmx_map by_order = mmx_map_table(MMX_MAP_BY_ORDER, ops->face_w, ops->len_face_w);
    const mmx_map self = mmx_map_table(MMX_MAP_BY_COL, ops->w_self, nv);
    const mmx_map ring_col = mmx_map_table(MMX_MAP_BY_COL, ops->w_ring, nv);
    const mmx_map ring_row = mmx_map_table(MMX_MAP_BY_ROW, ops->w_ring, nv);
    const mmx_map crease = mmx_map_table(MMX_MAP_BY_COL, ops->w_crease, nv);
    const mmx_map ends = mmx_map_table(MMX_MAP_BY_COL, ops->w_ends, ne);
    const mmx_map faces = mmx_map_table(MMX_MAP_BY_ROW, ops->w_faces, ne);

    s = mmx_spmv(ctx, MMX_OP_T, 1.0f, M, by_order, p, 3, 0.0f, f);
    /* The small terms first and the old position last: the scatter M f adds n terms of
     * 1/n² each, which added one by one to a sum near p would each be rounded to p's ulp
     * (at valence 360 that drifts by 1e-5 of p); summed from zero they keep their precision,
     * and I p then joins them in one rounding. */
    if (!s) s = mmx_spmv(ctx, MMX_OP_T, 1.0f, E, ring_col, p, 3, 0.0f, vp);
    /* The crease rule: each vertex's weight times the sum of its neighbours across its sharp
     * edges (B p: E's boundary edges, or on a creased level the edges of each vertex's crease
     * set), 0 where the rule has no crease term. */
    if (!s) s = mmx__subdiv_crease_sum(ctx, ops, p, bp);
    if (!s) s = mmx_spmv(ctx, MMX_OP_T, 1.0f, ops->I, crease, bp, 3, 1.0f, vp);
    if (!s) s = mmx_spmv(ctx, MMX_OP_N, 1.0f, M, ring_row, f, 3, 1.0f, vp);
    if (!s) s = mmx_spmv(ctx, MMX_OP_T, 1.0f, ops->I, self, p, 3, 1.0f, vp);
    if (!s) s = mmx_spmv(ctx, MMX_OP_T, 1.0f, &ops->EV, ends, p, 3, 0.0f, e);
    if (!s) s = mmx_spmv(ctx, MMX_OP_N, 1.0f, ops->FE, faces, f, 3, 1.0f, e);
    if (!s) s = mmx__subdiv_topology(ctx, ops, nv + nf + ne, &r->M);
    mmx_mem_free(ctx, sp, bp); /* after the queued products that read it */
    if (s) {
        mmx_mesh_free(r);
        return s;
    }
    *out = r;
    return MMX_OK;
}
