/* What a build without CUDA links instead of the module's .cu files: the CUDA halves of
 * geom_internal.h as stubs. Only a CUDA context or a device mesh leads to them, and such a
 * build cannot make either, so each reports MMX_ERR_INTERNAL naming itself (device.h). */
#include "geom_internal.h"

mmx_status mmx__geom_faces_cuda(mmx_ctx *ctx, const mmx_csc *M, const float *pos,
                                mmx__face_what what, float *out, float *out2)
{
    (void)M, (void)pos, (void)what, (void)out, (void)out2;
    return mmx__no_cuda(ctx, "mmx__geom_faces_cuda");
}

mmx_status mmx__geom_corners_to_mt_cuda(mmx_ctx *ctx, const mmx_csc *M, const mmx_csc *Mt,
                                        const float *corner, float *out)
{
    (void)M, (void)Mt, (void)corner, (void)out;
    return mmx__no_cuda(ctx, "mmx__geom_corners_to_mt_cuda");
}

mmx_status mmx__geom_fill_cuda(mmx_ctx *ctx, float *x, int64_t n, float value)
{
    (void)x, (void)n, (void)value;
    return mmx__no_cuda(ctx, "mmx__geom_fill_cuda");
}

mmx_status mmx__geom_normalize_cuda(mmx_ctx *ctx, float *x, mmx_index n)
{
    (void)x, (void)n;
    return mmx__no_cuda(ctx, "mmx__geom_normalize_cuda");
}

mmx_status mmx__geom_scale_rows_cuda(mmx_ctx *ctx, const float *x, const float *m, float scale,
                                     mmx_index n, float *y)
{
    (void)x, (void)m, (void)scale, (void)n, (void)y;
    return mmx__no_cuda(ctx, "mmx__geom_scale_rows_cuda");
}

mmx_status mmx__geom_laplacian_fill_cuda(mmx_ctx *ctx, const mmx__lap_in *in, mmx_csc *L,
                                         float *w)
{
    (void)in, (void)L, (void)w;
    return mmx__no_cuda(ctx, "mmx__geom_laplacian_fill_cuda");
}

mmx_status mmx__geom_iota_cuda(mmx_ctx *ctx, mmx_index *out, mmx_index n)
{
    (void)out, (void)n;
    return mmx__no_cuda(ctx, "mmx__geom_iota_cuda");
}
