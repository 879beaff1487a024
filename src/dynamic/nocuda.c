/* What a build without CUDA links instead of the module's .cu files: the CUDA halves of
 * dynamic_internal.h as stubs. Only a CUDA context or a device mesh leads to them, and such a
 * build cannot make either, so each reports MMX_ERR_INTERNAL naming itself (device.h). */
#include "dynamic_internal.h"

mmx_status mmx__flip_ef_cuda(mmx_ctx *ctx, const mmx_adjacency *adj, mmx_index nfaces,
                             mmx_index *ef)
{
    (void)adj, (void)nfaces, (void)ef;
    return mmx__no_cuda(ctx, "mmx__flip_ef_cuda");
}

mmx_status mmx__delaunay_seeds_cuda(mmx_ctx *ctx, const mmx__flip_view *v, const float *pos,
                                    mmx_index *seeds, mmx_index *count)
{
    (void)v, (void)pos, (void)seeds, (void)count;
    return mmx__no_cuda(ctx, "mmx__delaunay_seeds_cuda");
}

mmx_status mmx__flip_round_cuda(mmx_ctx *ctx, const mmx__flip_view *v, const float *pos,
                                const mmx_index *seeds, mmx_index n, int distinct,
                                uint32_t round, mmx_index *out, mmx_cavity_counts *counts,
                                mmx_cavity_seed *per_seed, mmx_index *kept_edges)
{
    (void)v, (void)pos, (void)seeds, (void)n, (void)distinct, (void)round, (void)out;
    (void)counts, (void)per_seed, (void)kept_edges;
    return mmx__no_cuda(ctx, "mmx__flip_round_cuda");
}

mmx_status mmx__flip_update_cuda(mmx_ctx *ctx, const mmx__flip_view *old, const mmx_index *kedge,
                                 mmx_index k, const mmx_index *verts, mmx_index *edge_ptr,
                                 mmx_index *ev, mmx_index *ef, mmx__flip_view *out)
{
    (void)old, (void)kedge, (void)k, (void)verts, (void)edge_ptr, (void)ev, (void)ef, (void)out;
    return mmx__no_cuda(ctx, "mmx__flip_update_cuda");
}

mmx_status mmx__sc_round_cuda(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx__flip_dev *t,
                              mmx_cavity_kind kind, const mmx_index *seeds, mmx_index n,
                              uint32_t round, mmx_mesh **out, mmx_cavity_counts *counts,
                              mmx_cavity_seed *per_seed)
{
    (void)mesh, (void)t, (void)kind, (void)seeds, (void)n, (void)round, (void)out;
    (void)counts, (void)per_seed;
    return mmx__no_cuda(ctx, "mmx__sc_round_cuda");
}

mmx_status mmx__bvh_closest_cuda(mmx_ctx *ctx, const mmx__bvh_view *dev, const double *p,
                                 mmx_index n, double *q, mmx_index *tri)
{
    (void)dev, (void)p, (void)n, (void)q, (void)tri;
    return mmx__no_cuda(ctx, "mmx__bvh_closest_cuda");
}
