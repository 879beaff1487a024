/* What a build without CUDA links instead of the module's .cu files: the CUDA halves of
 * mesh_internal.h as stubs. Only a CUDA context or a device mesh leads to them, and such a
 * build cannot make either, so each reports MMX_ERR_INTERNAL naming itself (device.h). */
#include "halfedge.h"

mmx_status mmx__adjacency_fill_cuda(mmx_ctx *ctx, const mmx_csc *M, mmx_adjacency *adj,
                                    mmx__adjacency_counts *counts)
{
    (void)M, (void)adj, (void)counts;
    return mmx__no_cuda(ctx, "mmx__adjacency_fill_cuda");
}

mmx_status mmx__gather_rows3_cuda(mmx_ctx *ctx, const float *src, const mmx_index *perm,
                                  mmx_index n, float *dst)
{
    (void)src, (void)perm, (void)n, (void)dst;
    return mmx__no_cuda(ctx, "mmx__gather_rows3_cuda");
}

mmx_status mmx__halfedge_build_cuda(mmx_ctx *ctx, mmx__halfedge *H)
{
    (void)H;
    return mmx__no_cuda(ctx, "mmx__halfedge_build_cuda");
}
