/* Shared pieces of the mmx tool's commands: see tool.h. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "tool.h"

int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("mmx: ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n%s\nTry 'mmx --help' for more.\n", tool_usage_line);
    return EXIT_USAGE;
}

/* Reports a failed call: the context's detail, prefixed with what was being worked on when
 * the detail does not already name it, so that every message says which file is at fault. */
int fail(mmx_ctx *ctx, mmx_status s, const char *what)
{
    const char *detail = ctx ? mmx_ctx_error(ctx) : "";
    if (!detail[0]) detail = mmx_status_str(s);
    if (what && !strstr(detail, what)) fprintf(stderr, "mmx: %s: %s\n", what, detail);
    else fprintf(stderr, "mmx: %s\n", detail);
    return EXIT_FAIL;
}

double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* A mesh file or a builtin:SPEC shape, timed. */
mmx_status load(mmx_ctx *ctx, const char *src, mmx_mesh **mesh, double *ms)
{
    double t0 = now_ms();
    mmx_status s;
    if (strncmp(src, BUILTIN_PREFIX, strlen(BUILTIN_PREFIX)) == 0)
        s = mmx_mesh_shape(ctx, src + strlen(BUILTIN_PREFIX), mesh);
    else
        s = mmx_mesh_read(ctx, src, MMX_FORMAT_AUTO, mesh);
    *ms = now_ms() - t0;
    return s;
}

#define LABEL_W 21

void row(const char *label, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("%-*s ", LABEL_W, label);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
}

const char *format_name(mmx_format f)
{
    switch (f) {
    case MMX_FORMAT_OBJ: return "OBJ text";
    case MMX_FORMAT_OFF: return "OFF text";
    case MMX_FORMAT_PLY: return "PLY binary little endian";
    default: return "?";
    }
}


long long file_bytes(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? (long long)sb.st_size : -1;
}

const char *backend_name(const mmx_ctx *ctx)
{
    return mmx_ctx_backend(ctx) == MMX_BACKEND_CUDA ? "cuda" : "host";
}
