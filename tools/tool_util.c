/* Shared pieces of the mmx tool's commands: see tool.h. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "tool.h"

const tool_cmd *tool_current;

int launched_rank(void)
{
    static const char *vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
        const char *v = getenv(vars[i]);
        if (v && atoi(v) > 0) return atoi(v);
    }
    return 0;
}

int usage_error(const char *fmt, ...)
{
    /* Under mpirun every rank parses the same arguments and meets the same error: rank 0
     * alone says it, every rank returns the same status. */
    if (launched_rank() > 0) return EXIT_USAGE;
    va_list ap;
    va_start(ap, fmt);
    fputs("mmx: ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    if (tool_current) {
        fprintf(stderr, "usage: mmx %s\nTry 'mmx help %s' for more.\n", tool_current->synopsis,
                tool_current->name);
    } else {
        print_usage_line(stderr);
        fprintf(stderr, "Try 'mmx --help' for more.\n");
    }
    return EXIT_USAGE;
}

/* Reports a failed call: the context's detail, prefixed with what was being worked on when
 * the detail does not already name it, so that every message says which file is at fault. */
int fail(mmx_ctx *ctx, mmx_status s, const char *what)
{
    const char *detail = ctx ? mmx_ctx_error(ctx) : "";
    if (!detail[0]) detail = mmx_status_str(s);
    /* The library names its C function first ("mmx_remesh: face 0 ..."), for C programs; the
     * tool's user ran a command, not a function: the sentence starts after it. */
    if (strncmp(detail, "mmx_", 4) == 0) {
        size_t n = strspn(detail, "abcdefghijklmnopqrstuvwxyz_0123456789");
        if (strncmp(detail + n, ": ", 2) == 0 && detail[n + 2]) detail += n + 2;
    }
    /* Where the library points a C program at mmx_mesh_triangulate, point at the command. */
    char text[1024];
    const char *fn = "mmx_mesh_triangulate", *at = strstr(detail, fn);
    if (at) {
        snprintf(text, sizeof text, "%.*s'mmx triangulate IN OUT'%s", (int)(at - detail), detail,
                 at + strlen(fn));
        detail = text;
    }
    if (what && !strstr(detail, what)) fprintf(stderr, "mmx: %s: %s\n", what, detail);
    else fprintf(stderr, "mmx: %s\n", detail);
    return EXIT_FAIL;
}

int out_of_memory(const char *what)
{
    fprintf(stderr, "mmx: out of memory (%s)\n", what);
    return EXIT_FAIL;
}

const char *counts_text(char *buf, long long nverts, long long nfaces)
{
    snprintf(buf, COUNTS_LEN, "%lld vert%s, %lld face%s", nverts, nverts == 1 ? "ex" : "ices",
             nfaces, nfaces == 1 ? "" : "s");
    return buf;
}

double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

const char *format_name(mmx_format f)
{
    switch (f) {
    case MMX_FORMAT_OBJ: return "OBJ text";
    case MMX_FORMAT_OFF: return "OFF text";
    case MMX_FORMAT_PLY: return "PLY binary little endian";
    case MMX_FORMAT_STL: return "STL binary";
    case MMX_FORMAT_STL_ASCII: return "STL text";
    default: return "?";
    }
}


const char *format_key(mmx_format f)
{
    switch (f) {
    case MMX_FORMAT_OBJ: return "obj";
    case MMX_FORMAT_OFF: return "off";
    case MMX_FORMAT_PLY: return "ply";
    case MMX_FORMAT_STL: return "stl";
    case MMX_FORMAT_STL_ASCII: return "stl-ascii";
    default: return "?";
    }
}
void js_input(const char *name, long long nverts, long long nfaces, double load_ms)
{
    js_object("input");
    js_str("mesh", name);
    js_int("vertices", nverts);
    js_int("faces", nfaces);
    if (load_ms >= 0) js_ms("load_ms", load_ms);
    else js_null("load_ms");
    js_end();
}

long long file_bytes(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode) ? (long long)sb.st_size : -1;
}

const char *backend_name(const mmx_ctx *ctx)
{
    return mmx_ctx_backend(ctx) == MMX_BACKEND_CUDA ? "cuda" : "host";
}

/* ---- output paths --------------------------------------------------------------------------- */

/* Whether `dir` is an existing, writable folder; if not, the reason in why[0..n). */
static int dir_ok(const char *dir, char *why, size_t n)
{
    struct stat sb;
    if (stat(dir, &sb) != 0) {
        if (errno == ENOENT) snprintf(why, n, "the folder '%s' does not exist", dir);
        else snprintf(why, n, "the folder '%s' cannot be read (%s)", dir, strerror(errno));
        return 0;
    }
    if (!S_ISDIR(sb.st_mode)) {
        snprintf(why, n, "'%s' is not a folder", dir);
        return 0;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        snprintf(why, n, "the folder '%s' is not writable (%s)", dir, strerror(errno));
        return 0;
    }
    return 1;
}

int check_output_file(const char *path)
{
    char why[4200], dir[4096];
    size_t len = strlen(path);
    struct stat sb;
    /* The folder part: everything before the last '/', "/" for a file at the root, "." for a
     * bare name. */
    const char *slash = strrchr(path, '/');
    size_t dlen = slash ? (slash == path ? 1 : (size_t)(slash - path)) : 0;
    if (len == 0) {
        snprintf(why, sizeof why, "the name is empty");
    } else if (path[len - 1] == '/' || (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))) {
        snprintf(why, sizeof why, "it is a folder, not a file");
    } else if (access(path, F_OK) == 0) {
        /* An existing file is overwritten in place: its own permission is what counts (the
         * folder's lets one delete it, not write it), so /dev/null or a named pipe in a folder
         * one cannot write is fine. */
        if (access(path, W_OK) == 0) return EXIT_OK;
        snprintf(why, sizeof why, "the file exists and is not writable (%s)", strerror(errno));
    } else if (dlen >= sizeof dir) {
        snprintf(why, sizeof why, "the folder name is too long");
    } else {
        if (slash) memcpy(dir, path, dlen);
        else dir[dlen++] = '.';
        dir[dlen] = '\0';
        if (dir_ok(dir, why, sizeof why)) return EXIT_OK;
    }
    if (launched_rank() == 0) fprintf(stderr, "mmx: %s: cannot write there: %s\n", path, why);
    return EXIT_FAIL;
}

int check_output_dir(const char *dir)
{
    char why[4200];
    if (dir_ok(dir, why, sizeof why)) return EXIT_OK;
    fprintf(stderr, "mmx: %s: cannot write there: %s\n", dir, why);
    return EXIT_FAIL;
}

int parse_int(const char *arg, long lo, long hi, int *out)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(arg, &end, 10);
    if (errno || end == arg || *end || v < lo || v > hi) return 0;
    *out = (int)v;
    return 1;
}

int parse_real(const char *arg, double lo, double hi, double *out)
{
    char *end = NULL;
    const double v = arg && *arg ? strtod(arg, &end) : NAN;
    if (!end || *end || !isfinite(v) || v < lo || v > hi) return 0;
    *out = v;
    return 1;
}

int parse_levels(const char *arg, int dflt, int *levels)
{
    if (!arg) {
        *levels = dflt;
        return 1;
    }
    return parse_int(arg, 0, MAX_LEVELS, levels);
}

int parse_scheme(const char *arg, int dflt, mmx_scheme *scheme)
{
    if (!arg && dflt < 0)
        return usage_error("%s needs --scheme loop|sqrt3|catmull-clark|bilinear",
                           tool_current ? tool_current->name : "the command");
    if (!arg) {
        *scheme = (mmx_scheme)dflt;
        return EXIT_OK;
    }
    if (mmx_scheme_parse(arg, scheme))
        return usage_error("unknown scheme '%s' (use loop, sqrt3, catmull-clark or bilinear)", arg);
    return EXIT_OK;
}

/* ---- the backend ------------------------------------------------------------------------- */

/* The GPU's model name from the NVIDIA driver's /proc files ("NVIDIA H200"), when exactly one
 * GPU is listed there (with several, their order need not be CUDA's). The public API counts
 * devices but does not name them. Returns 1 when found. */
static int gpu_model(char *name, size_t n)
{
    const char *root = "/proc/driver/nvidia/gpus";
    DIR *d = opendir(root);
    if (!d) return 0;
    char file[512] = "";
    int count = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        if (++count == 1) snprintf(file, sizeof file, "%s/%s/information", root, e->d_name);
    }
    closedir(d);
    if (count != 1) return 0;
    FILE *fp = fopen(file, "r");
    if (!fp) return 0;
    char line[256];
    int found = 0;
    while (!found && fgets(line, sizeof line, fp)) {
        if (strncmp(line, "Model:", 6) != 0) continue;
        const char *v = line + 6;
        while (*v == ' ' || *v == '\t') v++;
        size_t l = strcspn(v, "\r\n");
        if (l > 0) {
            snprintf(name, n, "%.*s", (int)l, v);
            found = 1;
        }
    }
    fclose(fp);
    return found;
}

/* Puts ctx on its backend: see open_context. */
static int choose_backend(mmx_ctx *ctx, const char *asked, int gpu_by_default, char *why,
                          size_t n)
{
    int want_cuda = asked && strcmp(asked, "cuda") == 0;
    if (asked && !want_cuda) {
        snprintf(why, n, "host: asked for with --backend host");
        return EXIT_OK;
    }
    if (!want_cuda && !gpu_by_default) {
        snprintf(why, n, "host: the default for this command (--backend cuda for the GPU)");
        return EXIT_OK;
    }
    int count = 0;
    if (!want_cuda) {
        if (!mmx_has_cuda()) {
            snprintf(why, n, "host: built without the CUDA backend");
            return EXIT_OK;
        }
        if (mmx_cuda_device_count(ctx, &count) != MMX_OK || count < 1) {
            /* The library's sentence already says "no usable GPU or driver was found (why)". */
            const char *r = mmx_ctx_error(ctx);
            if (r[0]) snprintf(why, n, "host: %s", r);
            else snprintf(why, n, "host: no usable GPU or driver was found (%d devices)", count);
            return EXIT_OK;
        }
    }
    mmx_status s = mmx_ctx_use_cuda(ctx, 0);
    if (s != MMX_OK) {
        const char *r = mmx_ctx_error(ctx)[0] ? mmx_ctx_error(ctx) : mmx_status_str(s);
        if (want_cuda) {
            fprintf(stderr, "mmx: cannot use the CUDA backend: %s\n", r);
            return EXIT_FAIL;
        }
        snprintf(why, n, "host: the GPU could not be used (%s)", r);
        return EXIT_OK;
    }
    char model[128];
    if (gpu_model(model, sizeof model)) snprintf(why, n, "cuda: %s found", model);
    else if (count > 0)
        snprintf(why, n, "cuda: device 0 of %d CUDA device%s", count, count == 1 ? "" : "s");
    else snprintf(why, n, "cuda: device 0");
    if (want_cuda) {
        size_t l = strlen(why);
        snprintf(why + l, n > l ? n - l : 0, " (asked for with --backend cuda)");
    }
    return EXIT_OK;
}

int open_context(const char *asked, int gpu_by_default, mmx_ctx **ctx, char *why, size_t n)
{
    *ctx = NULL;
    mmx_status s = mmx_ctx_create(ctx);
    if (s) return fail(NULL, s, NULL);
    if (choose_backend(*ctx, asked, gpu_by_default, why, n)) {
        mmx_ctx_free(*ctx);
        *ctx = NULL;
        return EXIT_FAIL;
    }
    progress_attach(*ctx);
    return EXIT_OK;
}
