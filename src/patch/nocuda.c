/* What a build without CUDA links instead of the module's .cu files: the CUDA halves of
 * patch_internal.h as stubs. Only a device patch set leads to them, and such a build cannot
 * make one, so each reports MMX_ERR_INTERNAL naming itself (device.h). */
#include "patch_internal.h"

mmx_status mmx__patch_query_lengths_cuda(mmx_ctx *ctx, const mmx_patch_set *ps,
                                         mmx_query_kind kind, mmx_index *len)
{
    (void)ps, (void)kind, (void)len;
    return mmx__no_cuda(ctx, "mmx__patch_query_lengths_cuda");
}

mmx_status mmx__patch_query_fill_cuda(mmx_ctx *ctx, const mmx_patch_set *ps, mmx_query_kind kind,
                                      const mmx_index *rowptr, mmx_index order, mmx_index *colidx)
{
    (void)ps, (void)kind, (void)rowptr, (void)order, (void)colidx;
    return mmx__no_cuda(ctx, "mmx__patch_query_fill_cuda");
}

mmx_status mmx__patch_reduce_cuda(mmx_ctx *ctx, const mmx_patch_set *ps, mmx_query_kind kind,
                                  const float *x, int k, float *y)
{
    (void)ps, (void)kind, (void)x, (void)k, (void)y;
    return mmx__no_cuda(ctx, "mmx__patch_reduce_cuda");
}

mmx_status mmx__patch_build_cuda(mmx_ctx *ctx, const mmx_csc *M, const float *pos,
                                 const mmx_index *fe, const mmx_index *ev, const mmx_index *label,
                                 mmx_index nlabels, mmx_index max_group, mmx_patch_set *ps)
{
    (void)M, (void)pos, (void)fe, (void)ev, (void)label, (void)nlabels, (void)max_group, (void)ps;
    return mmx__no_cuda(ctx, "mmx__patch_build_cuda");
}

mmx_status mmx__patch_owned_counts_cuda(mmx_ctx *ctx, const mmx_patch_set *ps, mmx_index *cnt)
{
    (void)ps, (void)cnt;
    return mmx__no_cuda(ctx, "mmx__patch_owned_counts_cuda");
}

mmx_status mmx__patch_rows_fill_cuda(mmx_ctx *ctx, const mmx_patch_set *ps, const mmx_index *owned_off,
                                     mmx_index *const ptr[2], mmx_index *const len[2],
                                     uint16_t *const idx[2])
{
    (void)ps, (void)owned_off, (void)ptr, (void)len, (void)idx;
    return mmx__no_cuda(ctx, "mmx__patch_rows_fill_cuda");
}
