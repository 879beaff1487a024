/* The device half of the halo exchange in a build without CUDA: never reached (no CUDA context
 * can be made), so each reports an internal error. */
#include "dist_internal.h"

static mmx_status no_cuda(mmx_ctx *ctx)
{
    return mmx__fail(ctx, MMX_ERR_INTERNAL, "dist: CUDA code reached in a build without CUDA");
}

mmx_status mmx__dist_dev_pack(mmx_ctx *ctx, const float *x, int k, const mmx_index *idx,
                              int64_t n, float *out)
{
    (void)x, (void)k, (void)idx, (void)n, (void)out;
    return no_cuda(ctx);
}
mmx_status mmx__dist_dev_unpack(mmx_ctx *ctx, const float *in, int k, const mmx_index *idx,
                                int64_t n, float *x)
{
    (void)in, (void)k, (void)idx, (void)n, (void)x;
    return no_cuda(ctx);
}
mmx_status mmx__dist_pinned(mmx_ctx *ctx, size_t bytes, void **p)
{
    (void)bytes;
    *p = NULL;
    return no_cuda(ctx);
}
void mmx__dist_pinned_free(void *p)
{
    (void)p;
}
mmx_status mmx__dist_dev_mark(mmx_ctx *ctx, mmx__dist_dev *v)
{
    (void)v;
    return no_cuda(ctx);
}
mmx_status mmx__dist_dev_marks_ms(mmx_ctx *ctx, mmx__dist_dev *v, double *ms)
{
    (void)v;
    *ms = 0.0;
    return no_cuda(ctx);
}
void mmx__dist_dev_marks_free(mmx__dist_dev *v)
{
    (void)v;
}
