/* One level of sqrt3 subdivision (thesis 4.1.2, the face-centric form), as mapped SpMVs:
 *
 *   b  = Mᵀ p,  (1,2,3) -> 1/3                                   face centres     (4.8)
 *   p~ = F p,   v -> alpha_v / n_v                               old vertices     (4.9)
 *      + I p,   v -> 1 - alpha_v                                                   (4.2)
 *
 * F(i,j) is the face running the half-edge i -> j; on a closed, consistently oriented mesh its
 * pattern is the vertex graph's, column j holding j's neighbours, so F p is computed as the
 * gather Fᵀ p. The new positions are [p~ | b]; each triangle's three children take the centre
 * across each of its edges from F (Table 4.1), in mmx__subdiv_topology. */
#include "subdiv_internal.h"

mmx_status mmx__sqrt3_level(mmx_ctx *ctx, const mmx_mesh *in, const mmx__subdiv_ops *ops,
                            mmx_mesh **out)
{
    const mmx_csc *M = in->M, *F = ops->adj->F;
    const mmx_index nv = M->nrows, nf = M->ncols;
    const float *p = in->pos;
    mmx_mesh *r = NULL;
    mmx_status s = mmx__subdiv_mesh_alloc(ctx, nv + nf, &r);
    if (s) return s;
    float *vp = r->pos, *b = vp + 3 * (size_t)nv;
    const mmx_map third = mmx_map_table(MMX_MAP_BY_VALUE, ops->face_w, ops->len_face_w);
    const mmx_map self = mmx_map_table(MMX_MAP_BY_COL, ops->w_self, nv);
    const mmx_map ring = mmx_map_table(MMX_MAP_BY_COL, ops->w_ring, nv);

    s = mmx_spmv(ctx, MMX_OP_T, 1.0f, M, third, p, 3, 0.0f, b);
    /* The ring first, the old position last, as in catmull_clark.c. */
    if (!s) s = mmx_spmv(ctx, MMX_OP_T, 1.0f, F, ring, p, 3, 0.0f, vp);
    if (!s) s = mmx_spmv(ctx, MMX_OP_T, 1.0f, ops->I, self, p, 3, 1.0f, vp);
    if (!s) s = mmx__subdiv_topology(ctx, ops, nv + nf, &r->M);
    if (s) {
        mmx_mesh_free(r);
        return s;
    }
    *out = r;
    return MMX_OK;
}
