/* Status names and the error detail kept in a context. */
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
        ctx->cause = MMX__CAUSE_NONE;
    }
    return s;
}

mmx_status mmx__fail_cause(mmx_ctx *ctx, mmx_status s, mmx__cause cause, const char *fmt, ...)
{
    if (ctx) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(ctx->err, sizeof ctx->err, fmt, ap);
        va_end(ap);
        ctx->cause = (int)cause;
    }
    return s;
}

mmx_status mmx__no_cuda(mmx_ctx *ctx, const char *what)
{
    return mmx__fail(ctx, MMX_ERR_INTERNAL,
                     "%s: CUDA backend code reached in a build without CUDA", what);
}

const char *mmx_ctx_error(const mmx_ctx *ctx)
{
    return ctx ? ctx->err : "";
}
