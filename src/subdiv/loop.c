/* One level of Loop subdivision (thesis 4.2.2), as mapped SpMVs:
 *
 *   t  = Mᵀ p                                                    triangle sums
 *   e  = EVᵀ p, e -> w_ends  (1/8, boundary 1/2)                 edge points      (4.10, 4.13)
 *      + FE t,  e -> w_faces (1/8, boundary 0)
 *   p~ = E p,   v -> w_ring  (beta, boundary 0)                  old vertices     (4.17)
 *      + I b,   v -> w_crease (boundary 1/8, corner 0)           boundary rule    (4.14)
 *        with b = E p, 1 -> 1, 2 -> 0 (the neighbours across boundary edges; on a level
 *        with creases, E's entries selected one by one: the edges of each vertex's crease
 *        set, creases.c)
 *      + I p,   v -> w_self  (1 - n beta, boundary 3/4)                            (4.11)
 *
 * The edge points fold eq. 4.15's three maps into one product: a triangle's share of the point
 * of its edge kl, 3/16 (p_k + p_l) + 1/8 p_m, is 1/8 t + 1/16 (p_k + p_l), so two triangles
 * give 1/8 (t_1 + t_2) + 1/8 (p_k + p_l) = 3/8 (p_k + p_l) + 1/8 (p_m + p_n). The boundary
 * rules are the maps' boundary entries (the thesis's repair step, eq. 4.18-4.21, done by the
 * maps). The new positions are [p~ | e]. */
#include "subdiv_internal.h"

mmx_status mmx__loop_level(mmx_ctx *ctx, const mmx_mesh *in, const mmx__subdiv_ops *ops,
                           mmx_mesh **out)
{
    const mmx_csc *M = in->M, *E = ops->adj->E;
    const mmx_index nv = M->nrows, nf = M->ncols, ne = ops->adj->nedges;
    const float *p = in->pos;
    const mmx_space sp = mmx_ctx_space(ctx);
    mmx_mesh *r = NULL;
    float *t = NULL, *bp = NULL;
    mmx_status s = mmx__subdiv_mesh_alloc(ctx, nv + ne, &r);
    if (!s) s = mmx_mem_alloc(ctx, sp, 3 * (size_t)nf * sizeof *t, (void **)&t);
    if (!s) s = mmx_mem_alloc(ctx, sp, 3 * (size_t)nv * sizeof *bp, (void **)&bp);
    if (s) goto done;
    float *vp = r->pos, *e = mmx__subdiv_at(vp, 3 * (size_t)nv);
    const mmx_map self = mmx_map_table(MMX_MAP_BY_COL, ops->w_self, nv);
    const mmx_map ring = mmx_map_table(MMX_MAP_BY_COL, ops->w_ring, nv);
    const mmx_map crease = mmx_map_table(MMX_MAP_BY_COL, ops->w_crease, nv);
    const mmx_map ends = mmx_map_table(MMX_MAP_BY_COL, ops->w_ends, ne);
    const mmx_map faces = mmx_map_table(MMX_MAP_BY_ROW, ops->w_faces, ne);

    s = mmx_spmv(ctx, MMX_OP_T, 1.0f, M, mmx_map_const(1.0f), p, 3, 0.0f, t);
    if (!s) s = mmx_spmv(ctx, MMX_OP_T, 1.0f, &ops->EV, ends, p, 3, 0.0f, e);
    if (!s) s = mmx_spmv(ctx, MMX_OP_N, 1.0f, ops->FE, faces, t, 3, 1.0f, e);
    /* The ring first, the old position last, as in catmull_clark.c. */
    if (!s) s = mmx_spmv(ctx, MMX_OP_T, 1.0f, E, ring, p, 3, 0.0f, vp);
    /* The crease rule: each vertex's weight times the sum of its neighbours across its sharp
     * edges (B p: E's boundary edges, or on a creased level the edges of each vertex's crease
     * set), 0 where the rule has no crease term. */
    if (!s) s = mmx__subdiv_crease_sum(ctx, ops, p, bp);
    if (!s) s = mmx_spmv(ctx, MMX_OP_T, 1.0f, ops->I, crease, bp, 3, 1.0f, vp);
    if (!s) s = mmx_spmv(ctx, MMX_OP_T, 1.0f, ops->I, self, p, 3, 1.0f, vp);
    if (!s) s = mmx__subdiv_topology(ctx, ops, nv + ne, &r->M);
done:
    mmx_mem_free(ctx, sp, t); /* after the queued products that read them */
    mmx_mem_free(ctx, sp, bp);
    if (s) {
        mmx_mesh_free(r);
        return s;
    }
    *out = r;
    return MMX_OK;
}
