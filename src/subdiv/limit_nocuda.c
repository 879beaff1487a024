/* What a build without CUDA links instead of limit.cu and limit_eval.cu (as nocuda.c does for
 * the rest of the module): never reached, no CUDA context can be made. */
#include "limit_eval.h"
#include "limit_vertex.h"
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

mmx_status mmx__limit_cuda(mmx_ctx *ctx, mmx__limit_in L, mmx_index nv, const mmx_index *valence,
                           mmx_index slot, mmx_index workers, mmx_index *idx, double *w,
                           float *pos, float *normals)
{
    (void)L, (void)nv, (void)valence, (void)slot, (void)workers, (void)idx, (void)w, (void)pos;
    (void)normals;
    return mmx__no_cuda(ctx, "mmx__limit_cuda");
}
