/* What a build without CUDA links instead of limit_eval.cu (as nocuda.c for the rest of the
 * module): never reached, no CUDA context can be made. */
#include "limit_eval.h"
#include "core/device.h"

mmx_status mmx__limit_eval_cuda(mmx_ctx *ctx, mmx__limit_patches T, mmx_index n,
                                const mmx_index *face, const float *u, const float *v, float *P,
                                float *du, float *dv, float *duu, float *duv, float *dvv,
                                mmx_index *bad)
{
    (void)T, (void)n, (void)face, (void)u, (void)v, (void)P, (void)du, (void)dv, (void)duu;
    (void)duv, (void)dvv, (void)bad;
    return mmx__no_cuda(ctx, "mmx__limit_eval_cuda");
}
