/* Status names, the error detail kept in a context, and checked host allocation. */
#if defined(__linux__)
#define _DEFAULT_SOURCE /* madvise(MADV_HUGEPAGE) */
#include <sys/mman.h>
#endif
#include <stdio.h>
#include <string.h>
#include "core_internal.h"

const char *mmx_status_str(mmx_status s)
{
    switch (s) {
    case MMX_OK: return "MMX_OK: success";
    case MMX_ERR_ARG: return "MMX_ERR_ARG: invalid argument";
    case MMX_ERR_NOMEM: return "MMX_ERR_NOMEM: out of memory";
    case MMX_ERR_IO: return "MMX_ERR_IO: input/output error";
    case MMX_ERR_PARSE: return "MMX_ERR_PARSE: malformed file";
    case MMX_ERR_MESH: return "MMX_ERR_MESH: invalid mesh";
    case MMX_ERR_OVERFLOW: return "MMX_ERR_OVERFLOW: size too large";
    case MMX_ERR_NO_DEVICE: return "MMX_ERR_NO_DEVICE: no usable CUDA device";
    case MMX_ERR_CUDA: return "MMX_ERR_CUDA: CUDA runtime error";
    case MMX_ERR_SPACE: return "MMX_ERR_SPACE: operand in the wrong memory space";
    case MMX_ERR_UNSUPPORTED: return "MMX_ERR_UNSUPPORTED: not supported";
    case MMX_ERR_INTERNAL: return "MMX_ERR_INTERNAL: internal error";
    }
    return "MMX_ERR_?: unknown status";
}

mmx_status mmx__fail(mmx_ctx *ctx, mmx_status s, const char *fmt, ...)
{
    if (ctx) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(ctx->err, sizeof ctx->err, fmt, ap);
        va_end(ap);
    }
    return s;
}

const char *mmx_ctx_error(const mmx_ctx *ctx)
{
    return ctx ? ctx->err : "";
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
