/* What a build without CUDA links instead of the module's .cu files: the CUDA halves of
 * mesh_internal.h as stubs. Only a CUDA context or a device mesh leads to them, and such a
 * build cannot make either, so each reports MMX_ERR_INTERNAL naming itself (device.h). */
#include "halfedge.h"
#include "query_steps.h"

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

mmx_status mmx__query_fe_cuda(mmx_ctx *ctx, const mmx_index *fe, mmx_index nnz, mmx_index *out)
{
    (void)fe, (void)nnz, (void)out;
    return mmx__no_cuda(ctx, "mmx__query_fe_cuda");
}

mmx_status mmx__query_sort_corners_cuda(mmx_ctx *ctx, const mmx__query_topo *T, int by_edge,
                                        mmx_index nkeys, mmx_index *faces, mmx_index *corners)
{
    (void)T, (void)by_edge, (void)nkeys, (void)faces, (void)corners;
    return mmx__no_cuda(ctx, "mmx__query_sort_corners_cuda");
}

mmx_status mmx__query_check_cuda(mmx_ctx *ctx, const mmx__query_topo *T, const mmx_index *ev,
                                 mmx_index ne, mmx__query_report *report)
{
    (void)T, (void)ev, (void)ne, (void)report;
    return mmx__no_cuda(ctx, "mmx__query_check_cuda");
}

mmx_status mmx__query_counts_cuda(mmx_ctx *ctx, const mmx__query_topo *T, mmx_query_kind kind,
                                  mmx_index *counts, mmx__query_report *report)
{
    (void)T, (void)kind, (void)counts, (void)report;
    return mmx__no_cuda(ctx, "mmx__query_counts_cuda");
}

mmx_status mmx__query_fill_cuda(mmx_ctx *ctx, const mmx__query_topo *T, mmx_query_kind kind,
                                const mmx_index *ef_ptr, const mmx_index *ef,
                                unsigned char *seen, const mmx_index *rowptr, mmx_index *colidx)
{
    (void)T, (void)kind, (void)ef_ptr, (void)ef, (void)seen, (void)rowptr, (void)colidx;
    return mmx__no_cuda(ctx, "mmx__query_fill_cuda");
}

mmx_status mmx__qplan_count_cuda(mmx_ctx *ctx, const mmx__query_topo *T, unsigned char *seen,
                                 mmx_index *vstart, mmx_index *vv_len, mmx_index *fan_len,
                                 mmx_index *ff_len, mmx_index *ecorner, mmx_index ne,
                                 mmx__qplan_report *r)
{
    (void)T, (void)seen, (void)vstart, (void)vv_len, (void)fan_len, (void)ff_len, (void)ecorner,
        (void)ne, (void)r;
    return mmx__no_cuda(ctx, "mmx__qplan_count_cuda");
}

mmx_status mmx__qplan_fans_cuda(mmx_ctx *ctx, const mmx__query_topo *T, unsigned char *seen,
                                const mmx_index *fan_ptr, mmx_index *vstart, mmx_index *fans)
{
    (void)T, (void)seen, (void)fan_ptr, (void)vstart, (void)fans;
    return mmx__no_cuda(ctx, "mmx__qplan_fans_cuda");
}

mmx_status mmx__qplan_sources_cuda(mmx_ctx *ctx, const mmx__qplan *P, mmx_index *fsrc,
                                   mmx_index *vsrc)
{
    (void)P, (void)fsrc, (void)vsrc;
    return mmx__no_cuda(ctx, "mmx__qplan_sources_cuda");
}

mmx_status mmx__qplan_run_cuda(mmx_ctx *ctx, const mmx__qplan *P, mmx_query_kind kind,
                               mmx_index total, mmx_index *rowptr, mmx_index *colidx)
{
    (void)P, (void)kind, (void)total, (void)rowptr, (void)colidx;
    return mmx__no_cuda(ctx, "mmx__qplan_run_cuda");
}

mmx_status mmx__mesh_stats_counts_cuda(mmx_ctx *ctx, const mmx_mesh *mesh,
                                       const mmx_adjacency *adj, const struct mmx__halfedge *H,
                                       mmx_mesh_stats *st, mmx_index *used)
{
    (void)mesh, (void)adj, (void)H, (void)st, (void)used;
    return mmx__no_cuda(ctx, "mmx__mesh_stats_counts_cuda");
}

mmx_status mmx__mesh_degenerate_cuda(mmx_ctx *ctx, const mmx_mesh *mesh, mmx_index *count,
                                     mmx_index *first)
{
    (void)mesh, (void)count, (void)first;
    return mmx__no_cuda(ctx, "mmx__mesh_degenerate_cuda");
}
