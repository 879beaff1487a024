/* Where a command's mesh comes from and where its result goes: files, builtin:SPEC shapes,
 * standard input and output (-), and nowhere (--discard). See tool.h.
 *
 * The library reads from a path (standard input as "-", sniffed when no format is given,
 * within the size limit) and writes to a path. Standard output is written through /dev/stdout
 * when it is a pipe or a device, which streams a result of any size; when it is a regular
 * file (or a socket, which /dev/stdout cannot reopen) the result goes to a temporary file
 * that is then copied, because reopening a regular file through /dev/stdout would truncate
 * it, and an `>>` append would lose what was there. */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tool.h"

#define STDIN_NAME "<stdin>"
#define STDOUT_NAME "<stdout>"

/* ---- inputs ------------------------------------------------------------------------------------ */

int parse_format(const char *option, const char *arg, mmx_format *fmt)
{
    if (strcasecmp(arg, "obj") == 0) *fmt = MMX_FORMAT_OBJ;
    else if (strcasecmp(arg, "off") == 0) *fmt = MMX_FORMAT_OFF;
    else if (strcasecmp(arg, "ply") == 0) *fmt = MMX_FORMAT_PLY;
    else if (strcasecmp(arg, "stl") == 0) *fmt = MMX_FORMAT_STL;
    else if (strcasecmp(arg, "stl-ascii") == 0) *fmt = MMX_FORMAT_STL_ASCII;
    else return usage_error("unknown format '%s' for --%s (use obj, off, ply, stl or stl-ascii)", arg, option);
    return EXIT_OK;
}

int input_resolve(const char *arg, const char *from, const char *format, tool_input *in)
{
    in->arg = arg;
    in->fmt = MMX_FORMAT_AUTO;
    const int is_stdin = strcmp(arg, "-") == 0;
    in->name = is_stdin ? STDIN_NAME : arg;
    if (from) return parse_format("from", from, &in->fmt);
    if (is_stdin && format) return parse_format("format", format, &in->fmt);
    return EXIT_OK; /* a file by its extension, standard input by its content */
}

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

/* What the last input_load left out of the mesh, for output_write_mesh's warnings. */
static mmx_read_info last_read;
static const char *last_read_name;

/* The size limit from MMX_MAX_INPUT_BYTES: 0 (the library's default) when unset; -1 after
 * printing why when it is not a size. */
static long long input_limit(void)
{
    const char *e = getenv("MMX_MAX_INPUT_BYTES");
    if (!e || !*e) return 0;
    char *rest;
    errno = 0;
    unsigned long long v = strtoull(e, &rest, 10);
    int shift = *rest == 'K' || *rest == 'k' ? 10 : *rest == 'M' || *rest == 'm' ? 20
              : *rest == 'G' || *rest == 'g' ? 30 : 0;
    if (shift) rest++;
    if (errno || rest == e || *rest || e[0] == '-' || v == 0 || v > (ULLONG_MAX >> 1 >> shift)) {
        fprintf(stderr, "mmx: MMX_MAX_INPUT_BYTES='%s' is not a size in bytes (such as "
                        "8000000000 or 8G)\n", e);
        return -1;
    }
    return (long long)(v << shift);
}

/* Whether the last input_read failed on MMX_MAX_INPUT_BYTES, which input_limit explained. */
static int limit_said;

int input_load(mmx_ctx *ctx, const tool_input *in, mmx_mesh **mesh, double *ms)
{
    mmx_status s = input_read(ctx, in, mesh, ms);
    return s ? input_failed(ctx, s, in) : EXIT_OK;
}

int input_failed(mmx_ctx *ctx, mmx_status s, const tool_input *in)
{
    if (limit_said) return EXIT_FAIL; /* input_limit said why */
    fail(ctx, s, in->name);
    if (s == MMX_ERR_OVERFLOW && strstr(mmx_ctx_error(ctx), "max_bytes"))
        fprintf(stderr, "mmx: set MMX_MAX_INPUT_BYTES (such as 8G) to read a larger input\n");
    return EXIT_FAIL;
}

mmx_status input_read(mmx_ctx *ctx, const tool_input *in, mmx_mesh **mesh, double *ms)
{
    *mesh = NULL;
    limit_said = 0;
    memset(&last_read, 0, sizeof last_read);
    last_read_name = in->name;
    if (strncmp(in->arg, BUILTIN_PREFIX, strlen(BUILTIN_PREFIX)) == 0 && in->fmt == MMX_FORMAT_AUTO) {
        return load(ctx, in->arg, mesh, ms);
    }
    long long limit = input_limit();
    limit_said = limit < 0;
    if (limit < 0) return MMX_ERR_ARG;
    mmx_read_opts opts = {(uint64_t)limit, 0};
    double t0 = now_ms();
    mmx_status s = mmx_mesh_read_ex(ctx, in->arg, in->fmt, &opts, &last_read, mesh);
    *ms = now_ms() - t0;
    return s;
}

/* One warning line per kind of data lost between IN and OUT, with its count. */
static void warn_lost(const mmx_mesh *mesh, const tool_output *out)
{
    if (report_get_mode() == REPORT_QUIET) return;
    const mmx_read_info *r = &last_read;
    const char *in = last_read_name ? last_read_name : "input";
    static const struct { size_t off; const char *what; } kinds[] = {
        {offsetof(mmx_read_info, normals), "vertex normals not read (they are recomputed where needed: mmx normals)"},
        {offsetof(mmx_read_info, colors), "colors not kept (only some vertices or channels have them, or the format's are not read)"},
        {offsetof(mmx_read_info, texcoords), "texture coordinates not kept (OBJ: some corners have none; other formats: not read)"},
        {offsetof(mmx_read_info, groups), "group and object names ('g', 'o') not kept"},
        {offsetof(mmx_read_info, materials), "material statements ('usemtl', 'mtllib') not kept"},
        {offsetof(mmx_read_info, degenerate), "STL facets dropped: their corners weld to a repeated vertex"},
        {offsetof(mmx_read_info, other), "other statements, properties or elements skipped"},
    };
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
        int64_t n;
        memcpy(&n, (const char *)r + kinds[k].off, sizeof n);
        if (n > 0) fprintf(stderr, "mmx: warning: %s: %lld %s\n", in, (long long)n, kinds[k].what);
    }
    const int obj = out->fmt == MMX_FORMAT_OBJ;
    const int nonormals = out->fmt == MMX_FORMAT_OFF || out->fmt == MMX_FORMAT_STL ||
                          out->fmt == MMX_FORMAT_STL_ASCII;
    if (mesh->uv && !obj)
        fprintf(stderr, "mmx: warning: %s: %lld texture coordinates not written (%s has none; "
                        "OBJ keeps them)\n", out->name, (long long)mesh->uv->nvalues,
                format_name(out->fmt));
    if (mesh->colors && !obj && out->fmt != MMX_FORMAT_PLY)
        fprintf(stderr, "mmx: warning: %s: %lld vertex colors not written (%s has none; PLY and "
                        "OBJ keep them)\n", out->name, (long long)mmx_mesh_nverts(mesh),
                format_name(out->fmt));
    if (mesh->normals && nonormals)
        fprintf(stderr, "mmx: warning: %s: %lld vertex normals not written (%s has none)\n",
                out->name, (long long)mmx_mesh_nverts(mesh), format_name(out->fmt));
    if (mesh->tags && mesh->tags[0] && !obj) {
        long long lines = 0;
        for (const char *c = mesh->tags; *c; c++) lines += *c == '\n';
        fprintf(stderr, "mmx: warning: %s: %lld tag lines (creases, holes) not written (%s has "
                        "none; OBJ keeps them)\n", out->name, lines ? lines : 1, format_name(out->fmt));
    }
}

/* fail() for a write, with the way out when STL was refused for a face that is not a
 * triangle. */
static int write_failed(mmx_ctx *ctx, mmx_status s, const char *name, const tool_output *out)
{
    int rc = fail(ctx, s, name);
    if (s == MMX_ERR_MESH && (out->fmt == MMX_FORMAT_STL || out->fmt == MMX_FORMAT_STL_ASCII))
        fprintf(stderr, "mmx: run mmx triangulate first (mmx triangulate IN OUT), then write the "
                        "triangles as STL\n");
    return rc;
}

/* ---- outputs ---------------------------------------------------------------------------------- */

int take_in_out(const tool_args *a, int discard, const char **in, const char **out)
{
    const char *cmd = tool_current ? tool_current->name : "the command";
    *in = a->npos > 0 ? a->pos[0] : NULL;
    *out = NULL;
    if (discard) {
        if (a->npos == 0) return usage_error("%s needs IN", cmd);
        if (a->npos > 1)
            return usage_error("%s --discard writes nothing: give IN alone, not '%s' as well", cmd,
                               a->pos[1]);
        return EXIT_OK;
    }
    if (a->npos < 2) return usage_error("%s needs IN and OUT (or --discard)", cmd);
    if (a->npos > 2) return usage_error("%s takes IN and OUT, got %d arguments", cmd, a->npos);
    *out = a->pos[1];
    return EXIT_OK;
}

/* Checks that standard output can take the result: it is open, and a binary result does not
 * go to a terminal (it would only garble it). */
static int check_stdout(const char *what, int binary)
{
    struct stat sb;
    if (fstat(STDOUT_FILENO, &sb) != 0) {
        fprintf(stderr, "mmx: -: cannot write to standard output: %s\n", strerror(errno));
        return EXIT_FAIL;
    }
    if (binary && isatty(STDOUT_FILENO)) {
        fprintf(stderr, "mmx: -: standard output is a terminal; %s is not written there "
                        "(redirect it to a file or a pipe)\n", what);
        return EXIT_FAIL;
    }
    return EXIT_OK;
}

int output_resolve_mesh(const char *arg, const char *to, const char *format, tool_output *out)
{
    memset(out, 0, sizeof *out);
    if (!arg) {
        out->kind = OUT_DISCARD;
        out->name = "(discarded)";
        out->fmt = MMX_FORMAT_AUTO;
        if (to) return parse_format("to", to, &out->fmt);
        return EXIT_OK;
    }
    const int is_stdout = strcmp(arg, "-") == 0;
    out->kind = is_stdout ? OUT_STDOUT : OUT_FILE;
    out->path = arg;
    out->name = is_stdout ? STDOUT_NAME : arg;
    if (to) {
        if (parse_format("to", to, &out->fmt)) return EXIT_USAGE;
    } else if (is_stdout) {
        if (!format)
            return usage_error("writing standard output (-) needs its format: "
                               "--format obj|off|ply|stl|stl-ascii (or --to)");
        if (parse_format("format", format, &out->fmt)) return EXIT_USAGE;
    } else {
        out->fmt = mmx_format_from_path(arg);
        if (out->fmt == MMX_FORMAT_AUTO)
            return usage_error("%s: unknown output format (use a .obj, .off, .ply or .stl name, "
                               "or --to obj|off|ply|stl|stl-ascii)", arg);
    }
    if (!is_stdout) return check_output_file(arg);
    if (check_stdout(format_name(out->fmt), out->fmt == MMX_FORMAT_PLY || out->fmt == MMX_FORMAT_STL))
        return EXIT_FAIL;
    report_to_stderr();
    return EXIT_OK;
}

/* Whether a path ends in ".png", in any case. */
static int is_png_name(const char *path)
{
    size_t n = strlen(path);
    return n > 4 && strcasecmp(path + n - 4, ".png") == 0;
}

int output_resolve_png(const char *arg, tool_output *out)
{
    memset(out, 0, sizeof *out);
    if (!arg) {
        out->kind = OUT_DISCARD;
        out->name = "(discarded)";
        return EXIT_OK;
    }
    const int is_stdout = strcmp(arg, "-") == 0;
    out->kind = is_stdout ? OUT_STDOUT : OUT_FILE;
    out->path = arg;
    out->name = is_stdout ? STDOUT_NAME : arg;
    if (!is_stdout) {
        if (!is_png_name(arg))
            return usage_error("%s: render writes PNG pictures (use a .png name, or - for "
                               "standard output)", arg);
        return check_output_file(arg);
    }
    if (check_stdout("a PNG picture", 1)) return EXIT_FAIL;
    report_to_stderr();
    return EXIT_OK;
}

/* ---- writing standard output ---------------------------------------------------------------- */

/* Writes all of p[0..n) to a file descriptor, through short writes and interruptions. */
static int write_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n > 0) {
        ssize_t w = write(fd, c, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        c += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Copies the file at `path` to standard output; *bytes is its size. */
static int copy_to_stdout(const char *path, long long *bytes)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "mmx: %s: cannot read back the temporary file: %s\n", path,
                strerror(errno));
        return EXIT_FAIL;
    }
    static char buf[1 << 16];
    long long total = 0;
    int rc = EXIT_OK;
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, f)) > 0) {
        if (write_all(STDOUT_FILENO, buf, got)) {
            fprintf(stderr, "mmx: -: cannot write to standard output: %s\n", strerror(errno));
            rc = EXIT_FAIL;
            break;
        }
        total += (long long)got;
    }
    if (!rc && ferror(f)) {
        fprintf(stderr, "mmx: %s: cannot read back the temporary file: %s\n", path,
                strerror(errno ? errno : EIO));
        rc = EXIT_FAIL;
    }
    fclose(f);
    *bytes = total;
    return rc;
}

/* Whether standard output can be reopened through /dev/stdout and written in a stream: a pipe
 * or a character device (a terminal, /dev/null). */
static int stdout_streams(void)
{
    struct stat sb;
    return fstat(STDOUT_FILENO, &sb) == 0 && (S_ISFIFO(sb.st_mode) || S_ISCHR(sb.st_mode));
}

/* Makes an empty temporary file for a result bound for standard output; its name goes to
 * path[0..n). */
static int make_temp(char *path, size_t n)
{
    const char *dir = getenv("TMPDIR");
    if (!dir || !dir[0]) dir = "/tmp";
    int k = snprintf(path, n, "%s/mmx-stdout.XXXXXX", dir);
    if (k < 0 || (size_t)k >= n) {
        fprintf(stderr, "mmx: the temporary folder name is too long: %s\n", dir);
        return EXIT_FAIL;
    }
    int fd = mkstemp(path);
    if (fd < 0) {
        fprintf(stderr, "mmx: %s: cannot make a temporary file for standard output: %s\n", path,
                strerror(errno));
        return EXIT_FAIL;
    }
    close(fd);
    return EXIT_OK;
}

int output_write_mesh(mmx_ctx *ctx, const mmx_mesh *mesh, const tool_output *out,
                      long long *bytes, double *ms)
{
    *bytes = -1;
    *ms = 0;
    if (out->kind == OUT_DISCARD) return EXIT_OK;
    warn_lost(mesh, out);
    double t0 = now_ms();
    if (out->kind == OUT_FILE) {
        mmx_status s = mmx_mesh_write(ctx, mesh, out->path, out->fmt);
        *ms = now_ms() - t0;
        if (s) return write_failed(ctx, s, out->path, out);
        *bytes = file_bytes(out->path);
        return EXIT_OK;
    }
    /* Standard output: whatever the report printed there is out of the way first. */
    if (fflush(stdout) != 0) {
        fprintf(stderr, "mmx: -: cannot write to standard output: %s\n", strerror(errno));
        return EXIT_FAIL;
    }
    if (stdout_streams()) {
        mmx_status s = mmx_mesh_write(ctx, mesh, "/dev/stdout", out->fmt);
        *ms = now_ms() - t0;
        return s ? write_failed(ctx, s, STDOUT_NAME, out) : EXIT_OK;
    }
    char tmp[4200];
    if (make_temp(tmp, sizeof tmp)) return EXIT_FAIL;
    mmx_status s = mmx_mesh_write(ctx, mesh, tmp, out->fmt);
    int rc = s ? write_failed(ctx, s, tmp, out) : copy_to_stdout(tmp, bytes);
    *ms = now_ms() - t0;
    if (remove(tmp) != 0 && errno != ENOENT)
        fprintf(stderr, "mmx: %s: cannot remove the temporary file: %s\n", tmp, strerror(errno));
    return rc;
}

void text_put(text *t, const char *s, size_t n)
{
    if (t->failed) return;
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 4096;
        while (cap < t->len + n + 1) cap *= 2;
        char *d = realloc(t->data, cap);
        if (!d) {
            t->failed = 1;
            return;
        }
        t->data = d;
        t->cap = cap;
    }
    memcpy(t->data + t->len, s, n);
    t->len += n;
}

int output_write_bytes(const tool_output *out, const void *data, size_t len)
{
    if (out->kind == OUT_DISCARD) return EXIT_OK;
    if (out->kind == OUT_STDOUT) {
        if (fflush(stdout) != 0 || write_all(STDOUT_FILENO, data, len)) {
            fprintf(stderr, "mmx: -: cannot write to standard output: %s\n", strerror(errno));
            return EXIT_FAIL;
        }
        return EXIT_OK;
    }
    FILE *f = fopen(out->path, "wb");
    if (!f) {
        fprintf(stderr, "mmx: %s: cannot open for writing: %s\n", out->path, strerror(errno));
        return EXIT_FAIL;
    }
    struct stat sb;
    const int regular = fstat(fileno(f), &sb) == 0 && S_ISREG(sb.st_mode);
    errno = 0;
    int err = fwrite(data, 1, len, f) == len ? 0 : (errno ? errno : EIO);
    errno = 0;
    if (fclose(f) != 0 && !err) err = errno ? errno : EIO;
    if (!err) return EXIT_OK;
    /* A picture cut short is worse than none; a device or a pipe is left alone. */
    if (regular) (void)remove(out->path);
    fprintf(stderr, "mmx: %s: cannot write: %s\n", out->path, strerror(err));
    return EXIT_FAIL;
}

int mesh_in_out(const tool_args *a, const char *discard, const char *from, const char *to,
                const char *format, tool_input *in, tool_output *out)
{
    const char *in_arg, *out_arg;
    int rc = take_in_out(a, discard != NULL, &in_arg, &out_arg);
    if (!rc) rc = input_resolve(in_arg, from, format, in);
    if (!rc) rc = output_resolve_mesh(out_arg, to, format, out);
    return rc;
}

int run_mesh_command(const tool_args *a, const char *discard, const char *from, const char *to,
                     const char *format, mesh_work_fn work)
{
    tool_input in;
    tool_output out;
    int rc = mesh_in_out(a, discard, from, to, format, &in, &out);
    if (rc) return rc;
    mmx_ctx *ctx = NULL;
    char why[512];
    if (open_context(a->global[G_BACKEND], 0, &ctx, why, sizeof why)) return EXIT_FAIL;
    rc = work(ctx, &in, &out);
    mmx_ctx_free(ctx);
    return rc;
}

int run_text_command(const tool_args *a, const char *in_arg, const char *out_arg,
                     const char *from, const char *format, text_work_fn work, const void *what)
{
    tool_input in;
    if (input_resolve(in_arg, from, format, &in)) return EXIT_USAGE;
    tool_output out = {OUT_STDOUT, "-", "<stdout>", MMX_FORMAT_AUTO};
    if (out_arg && strcmp(out_arg, "-") != 0) {
        out = (tool_output){OUT_FILE, out_arg, out_arg, MMX_FORMAT_AUTO};
        if (check_output_file(out.path)) return EXIT_FAIL;
    } else {
        report_to_stderr(); /* the text goes to standard output alone */
    }
    mmx_ctx *ctx = NULL;
    char why[512];
    if (open_context(a->global[G_BACKEND], 0, &ctx, why, sizeof why)) return EXIT_FAIL;
    int rc = work(ctx, what, &in, &out);
    mmx_ctx_free(ctx);
    return rc;
}

void row_output(const tool_output *out, long long bytes, double write_ms)
{
    if (out->kind == OUT_DISCARD)
        row("discarded", "the result (--discard: nothing written)");
    else if (bytes >= 0)
        row("wrote", "%s: %s, %lld bytes (%.3f ms)", out->name, format_name(out->fmt), bytes, write_ms);
    else
        row("wrote", "%s: %s (%.3f ms)", out->name, format_name(out->fmt), write_ms);
}

void js_output(const tool_output *out, long long nverts, long long nfaces, long long bytes,
               double write_ms)
{
    js_object("output");
    js_str("path", out->kind == OUT_DISCARD ? NULL : out->name);
    js_str("format", out->kind == OUT_DISCARD ? NULL : format_key(out->fmt));
    js_int("vertices", nverts);
    js_int("faces", nfaces);
    js_int_or_null("bytes", bytes);
    js_ms("write_ms", write_ms);
    js_end();
}
