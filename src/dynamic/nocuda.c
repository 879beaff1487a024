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
                                mmx_cavity_seed *per_seed)
{
    (void)v, (void)pos, (void)seeds, (void)n, (void)distinct, (void)round, (void)out;
    (void)counts, (void)per_seed;
    return mmx__no_cuda(ctx, "mmx__flip_round_cuda");
}
