/* Allocation in, and copies between, the host and device memory spaces. */
#if defined(__linux__)
#define _DEFAULT_SOURCE /* madvise(MADV_HUGEPAGE) */
#include <sys/mman.h>
#endif
#include <string.h>
#include "core_internal.h"

mmx_status mmx_mem_alloc(mmx_ctx *ctx, mmx_space space, size_t bytes, void **out)
{
    MMX__NEED_CTX(ctx);
    if (!out) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_mem_alloc: out is NULL");
    *out = NULL;
    mmx_status s = mmx__check_space(ctx, space, "mmx_mem_alloc");
    if (s || bytes == 0) return s;
    if (space == MMX_SPACE_HOST) return mmx__host_alloc(ctx, bytes, 1, out);
    /* From the context's stream-ordered pool, like the scratch of the operations, so that the
     * pool's high-water mark measures an operation's peak memory (bench/); in stream order, so
     * no wait: the memory is ready for the next work queued on the stream. */
    return mmx__dev_alloc(ctx, bytes, out);
}

void mmx_mem_free(mmx_ctx *ctx, mmx_space space, void *p)
{
    if (!p) return;
    if (space == MMX_SPACE_HOST) free(p);
    else mmx__dev_free(ctx, p); /* back to ctx's pool after the work queued on its stream */
}

mmx_status mmx_mem_copy(mmx_ctx *ctx, void *dst, mmx_space dst_space, const void *src,
                        mmx_space src_space, size_t bytes)
{
    MMX__NEED_CTX(ctx);
    if (bytes == 0) return MMX_OK;
    if (!dst || !src) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_mem_copy: NULL pointer");
    mmx_status s = mmx__check_space(ctx, dst_space, "copy destination");
    if (!s) s = mmx__check_space(ctx, src_space, "copy source");
    if (s) return s;
    if (dst_space == MMX_SPACE_HOST && src_space == MMX_SPACE_HOST) {
        memmove(dst, src, bytes);
        return MMX_OK;
    }
    /* Queued on the stream; waits only when the data lands in host memory (device.h). */
    return mmx__dev_copy(ctx, dst, dst_space, src, src_space, bytes);
}

mmx_status mmx__host_alloc(mmx_ctx *ctx, size_t n, size_t size, void **out)
{
    size_t bytes;
    if (!mmx__mul_ok(n, size, &bytes))
        return mmx__fail(ctx, MMX_ERR_OVERFLOW, "allocation of %zu x %zu bytes overflows", n, size);
    *out = NULL;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    /* Big arrays (a multi-million-face mesh) are filled once, front to back: on 4 KiB pages
     * the page faults cost as much as the parsing. 2 MiB pages cut them 512-fold where the
     * kernel allows it; the memory is still released with free(). */
    if (bytes >= ((size_t)8 << 20)) {
        const size_t huge = (size_t)2 << 20;
        if (posix_memalign(out, huge, bytes) == 0) (void)madvise(*out, bytes - bytes % huge, MADV_HUGEPAGE);
        else *out = NULL;
    }
#endif
    if (!*out) *out = malloc(bytes ? bytes : 1);
    if (!*out)
        return mmx__fail(ctx, MMX_ERR_NOMEM, "out of host memory allocating %zu bytes", bytes);
    return MMX_OK;
}
