/* What a build without CUDA links instead of device.cu: the device utilities' CUDA halves as
 * stubs (device.h). Only a CUDA context or a device object leads to them, and such a build
 * cannot make either, so each reports MMX_ERR_INTERNAL naming itself. */
#include "core_internal.h"

mmx_status mmx__dev_alloc(mmx_ctx *ctx, size_t bytes, void **out)
{
    (void)bytes;
    *out = NULL;
    return mmx__no_cuda(ctx, "mmx__dev_alloc");
}

void mmx__dev_free(mmx_ctx *ctx, void *p)
{
    (void)ctx;
    (void)p; /* nothing can have been allocated */
}

mmx_status mmx__dev_copy(mmx_ctx *ctx, void *dst, mmx_space dst_space, const void *src,
                         mmx_space src_space, size_t bytes)
{
    (void)dst, (void)dst_space, (void)src, (void)src_space, (void)bytes;
    return mmx__no_cuda(ctx, "mmx__dev_copy");
}

mmx_status mmx__dev_mem_info(mmx_ctx *ctx, size_t *free_bytes, size_t *total_bytes)
{
    *free_bytes = *total_bytes = 0;
    return mmx__no_cuda(ctx, "mmx__dev_mem_info");
}

mmx_status mmx__scan_exclusive_cuda(mmx_ctx *ctx, const mmx_index *in, int64_t n, mmx_index *out)
{
    (void)in, (void)n, (void)out;
    return mmx__no_cuda(ctx, "mmx__scan_exclusive_cuda");
}

mmx_status mmx__scan_offsets_cuda(mmx_ctx *ctx, const mmx_index *in, int64_t n, mmx_index *out)
{
    (void)in, (void)n, (void)out;
    return mmx__no_cuda(ctx, "mmx__scan_offsets_cuda");
}

mmx_status mmx__scan_exclusive_u64_cuda(mmx_ctx *ctx, const unsigned long long *in, int64_t n,
                                        unsigned long long *out)
{
    (void)in, (void)n, (void)out;
    return mmx__no_cuda(ctx, "mmx__scan_exclusive_u64_cuda");
}

mmx_status mmx__reduce_sum_cuda(mmx_ctx *ctx, const mmx_index *in, int64_t n, int64_t *out)
{
    (void)in, (void)n, (void)out;
    return mmx__no_cuda(ctx, "mmx__reduce_sum_cuda");
}

mmx_status mmx__reduce_max_cuda(mmx_ctx *ctx, const mmx_index *in, int64_t n, mmx_index init,
                                mmx_index *out)
{
    (void)in, (void)n, (void)init, (void)out;
    return mmx__no_cuda(ctx, "mmx__reduce_max_cuda");
}

mmx_status mmx__flag_beyond_cuda(mmx_ctx *ctx, const float *x, int64_t n, float bound,
                                 unsigned long long *slot)
{
    (void)x, (void)n, (void)bound, (void)slot;
    return mmx__no_cuda(ctx, "mmx__flag_beyond_cuda");
}

mmx_status mmx__dev_zero(mmx_ctx *ctx, void *p, size_t bytes)
{
    (void)p, (void)bytes;
    return mmx__no_cuda(ctx, "mmx__dev_zero");
}

mmx_status mmx__stream_sync(mmx_ctx *ctx)
{
    return mmx__no_cuda(ctx, "mmx__stream_sync");
}

mmx_status mmx__graph_run(mmx_ctx *ctx, mmx__graph **g, const void *key, size_t keylen,
                          mmx__graph_work work, void *arg)
{
    (void)g, (void)key, (void)keylen, (void)work, (void)arg;
    return mmx__no_cuda(ctx, "mmx__graph_run");
}

void mmx__graph_free(mmx__graph *g)
{
    (void)g;
}
