/* What a build without CUDA links instead of the module's .cu files: the CUDA halves of
 * subdiv_internal.h and fused.h as stubs. Only a CUDA context leads to them, and such a build
 * cannot make one, so each reports MMX_ERR_INTERNAL naming itself (device.h). */
#include "fused.h"

mmx_status mmx__subdiv_tables_cuda(mmx_ctx *ctx, mmx__subdiv_ops *ops)
{
    (void)ops;
    return mmx__no_cuda(ctx, "mmx__subdiv_tables_cuda");
}

mmx_status mmx__subdiv_fe_rows_cuda(mmx_ctx *ctx, const mmx_index *fe, mmx_index nnz,
                                    mmx_index *rows)
{
    (void)fe, (void)nnz, (void)rows;
    return mmx__no_cuda(ctx, "mmx__subdiv_fe_rows_cuda");
}

mmx_status mmx__subdiv_iota_cuda(mmx_ctx *ctx, mmx_index n, mmx_index *out)
{
    (void)n, (void)out;
    return mmx__no_cuda(ctx, "mmx__subdiv_iota_cuda");
}

mmx_status mmx__subdiv_topology_cuda(mmx_ctx *ctx, mmx__subdiv_topo tp, mmx_index nv,
                                     mmx_index *rows)
{
    (void)tp, (void)nv, (void)rows;
    return mmx__no_cuda(ctx, "mmx__subdiv_topology_cuda");
}

mmx_status mmx__fz_pass_cuda(mmx_ctx *ctx, mmx__fz_in L, mmx__fz_out O)
{
    (void)L, (void)O;
    return mmx__no_cuda(ctx, "mmx__fz_pass_cuda");
}

mmx_status mmx__fz_pairs_cuda(mmx_ctx *ctx, mmx__fz_in L, unsigned long long *fault)
{
    (void)L, (void)fault;
    return mmx__no_cuda(ctx, "mmx__fz_pairs_cuda");
}

mmx_status mmx__fz_coords_cuda(mmx_ctx *ctx, const float *pos, int64_t n, unsigned long long *fault)
{
    (void)pos, (void)n, (void)fault;
    return mmx__no_cuda(ctx, "mmx__fz_coords_cuda");
}

mmx_status mmx__fz_counts_cuda(mmx_ctx *ctx, mmx__fz_in L, mmx_index *cnt)
{
    (void)L, (void)cnt;
    return mmx__no_cuda(ctx, "mmx__fz_counts_cuda");
}

mmx_status mmx__uv_from_pos_cuda(mmx_ctx *ctx, const float *pos, mmx_index n, float *values)
{
    (void)pos, (void)n, (void)values;
    return mmx__no_cuda(ctx, "mmx__uv_from_pos_cuda");
}

mmx_status mmx__uv_to_pos_cuda(mmx_ctx *ctx, const float *values, mmx_index n, float *pos)
{
    (void)values, (void)n, (void)pos;
    return mmx__no_cuda(ctx, "mmx__uv_to_pos_cuda");
}

mmx_status mmx__uv_level_cuda(mmx_ctx *ctx, int quads, mmx_index nf, mmx_index order,
                              const mmx_index *colptr, const float *par, float *child)
{
    (void)quads, (void)nf, (void)order, (void)colptr, (void)par, (void)child;
    return mmx__no_cuda(ctx, "mmx__uv_level_cuda");
}

mmx_status mmx__uv_number_cuda(mmx_ctx *ctx, const float *cur, int64_t nnz, mmx_index *index,
                               float *values, mmx_index *nvalues)
{
    (void)cur, (void)nnz, (void)index, (void)values, (void)nvalues;
    return mmx__no_cuda(ctx, "mmx__uv_number_cuda");
}

mmx_status mmx__subdiv_holes_mark_cuda(mmx_ctx *ctx, const mmx__holes_in *in, unsigned char *keep,
                                       unsigned char *row_keep, mmx_index *info)
{
    (void)in, (void)keep, (void)row_keep, (void)info;
    return mmx__no_cuda(ctx, "mmx__subdiv_holes_mark_cuda");
}
