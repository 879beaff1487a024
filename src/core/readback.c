/* One read-back per call (device.h): a zeroed block of slots in the context's space, copied
 * into the host with one wait. */
#include <string.h>
#include "core_internal.h"

mmx_status mmx__mem_zero(mmx_ctx *ctx, void *p, size_t bytes)
{
    if (!bytes) return MMX_OK;
    if (mmx_ctx_backend(ctx) == MMX_BACKEND_CUDA) return mmx__dev_zero(ctx, p, bytes);
    memset(p, 0, bytes);
    return MMX_OK;
}

mmx_status mmx__readback_open(mmx_ctx *ctx, mmx__readback *rb)
{
    memset(rb, 0, sizeof *rb);
    rb->ctx = ctx;
    rb->space = mmx_ctx_space(ctx);
    mmx_status s = mmx_mem_alloc(ctx, rb->space, MMX__READBACK_BYTES, (void **)&rb->block);
    if (!s) s = mmx__mem_zero(ctx, rb->block, MMX__READBACK_BYTES);
    if (s) mmx__readback_close(rb);
    return s;
}

mmx_status mmx__readback_slot(mmx__readback *rb, size_t bytes, void **slot)
{
    const size_t at = rb->used, size = (bytes + 7) & ~(size_t)7;
    *slot = NULL;
    if (size > MMX__READBACK_BYTES - at)
        return mmx__fail(rb->ctx, MMX_ERR_INTERNAL,
                         "read-back block full (%zu of %d bytes used, %zu more asked)", at,
                         MMX__READBACK_BYTES, bytes);
    rb->used = at + size;
    *slot = rb->block + at;
    return MMX_OK;
}

mmx_status mmx__readback_wait(mmx__readback *rb)
{
    if (!rb->used) return MMX_OK;
    return mmx_mem_copy(rb->ctx, rb->host.bytes, MMX_SPACE_HOST, rb->block, rb->space, rb->used);
}

const void *mmx__readback_host(const mmx__readback *rb, const void *slot)
{
    return rb->host.bytes + ((const unsigned char *)slot - rb->block);
}

void mmx__readback_close(mmx__readback *rb)
{
    if (rb->block) mmx_mem_free(rb->ctx, rb->space, rb->block);
    rb->block = NULL;
    rb->used = 0;
}
