/* Reading a mesh file: the format from the extension (or, for standard input and nameless
 * bytes, from the content), the whole file into memory (mapped when it is a regular file, read
 * as a stream within the limits otherwise), and dispatch to the reader of the format. The
 * readers only ever see a byte range. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include "io_internal.h"

/* Case-insensitive comparison of a short ASCII extension. */
static int ext_is(const char *ext, const char *want)
{
    for (; *ext && *want; ext++, want++)
        if ((*ext | 0x20) != *want) return 0;
    return *ext == '\0' && *want == '\0';
}

#define KNOWN_EXTENSIONS "(known: .obj, .off, .ply, .stl)"

/* Records why `name` gives no format: its extension, or its lack of one, and the known ones. */
static mmx_status unknown_format(mmx_ctx *ctx, const char *name)
{
    const char *slash = strrchr(name, '/');
    const char *dot = strrchr(slash ? slash + 1 : name, '.');
    if (!dot || dot[1] == '\0')
        return mmx__fail(ctx, MMX_ERR_ARG, "%s: cannot tell the format: the name has no "
                         "extension " KNOWN_EXTENSIONS, name);
    return mmx__fail(ctx, MMX_ERR_ARG, "%s: cannot tell the format: unknown extension '%.16s%s' "
                     KNOWN_EXTENSIONS, name, dot, strlen(dot) > 16 ? "..." : "");
}

mmx_format mmx_format_from_path(const char *path)
{
    if (!path) return MMX_FORMAT_AUTO;
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(slash ? slash : path, '.');
    if (!dot) return MMX_FORMAT_AUTO;
    if (ext_is(dot + 1, "obj")) return MMX_FORMAT_OBJ;
    if (ext_is(dot + 1, "off")) return MMX_FORMAT_OFF;
    if (ext_is(dot + 1, "ply")) return MMX_FORMAT_PLY;
    if (ext_is(dot + 1, "stl")) return MMX_FORMAT_STL;
    return MMX_FORMAT_AUTO;
}

/* ---- telling formats by content ------------------------------------------------------------ */

int mmx__stl_binary_size(const char *p, size_t n)
{
    if (n < 84) return 0;
    const unsigned char *c = (const unsigned char *)p + 80;
    uint64_t count = (uint64_t)c[0] | (uint64_t)c[1] << 8 | (uint64_t)c[2] << 16 | (uint64_t)c[3] << 24;
    return (uint64_t)n == 84 + 50 * count;
}

/* Whether the case-insensitive word w (lower case) is at p, followed by a blank, a break or
 * the end. */
static int word_at(const char *p, const char *end, const char *w)
{
    size_t k = strlen(w);
    if ((size_t)(end - p) < k) return 0;
    for (size_t i = 0; i < k; i++)
        if ((p[i] | 0x20) != w[i]) return 0;
    return mmx__ends_token(p + k, end);
}

mmx_format mmx__sniff(const char *p, size_t n, uint64_t total)
{
    const char *end = p + n;
    if (total && mmx__stl_binary_size(p, n)) return MMX_FORMAT_STL;
    const char *q = p;
    if (end - q >= 3 && memcmp(q, "\xEF\xBB\xBF", 3) == 0) q += 3;
    /* Blank and comment lines may come first (OFF allows them; OBJ's first word then decides). */
    for (;;) {
        while (q < end && (mmx__is_blank(*q) || mmx__is_break(*q))) q++;
        if (q == end || *q != '#') break;
        q = mmx__next_line(q, end);
    }
    if (end - q >= 3 && memcmp(q, "ply", 3) == 0 && mmx__ends_token(q + 3, end)) return MMX_FORMAT_PLY;
    /* [ST][C][N][4][n]OFF: the first word ends in OFF and holds only those letters before. */
    const char *w = q;
    while (w < end && !mmx__ends_token(w, end) && *w != '#') w++;
    if (w - q >= 3 && memcmp(w - 3, "OFF", 3) == 0) {
        const char *c = q;
        while (c < w - 3 && strchr("STCN4n", *c)) c++;
        if (c == w - 3) return MMX_FORMAT_OFF;
    }
    /* "solid" alone starts some binary headers too: an ascii STL also has a facet (or ends). */
    if (word_at(q, end, "solid")) {
        size_t look = (size_t)(end - q) < 4096 ? (size_t)(end - q) : 4096;
        for (const char *c = q; c + 5 <= q + look; c++)
            if (((c[0] | 0x20) == 'f' && word_at(c, end, "facet")) ||
                ((c[0] | 0x20) == 'e' && word_at(c, end, "endsolid")))
                return MMX_FORMAT_STL;
    }
    return MMX_FORMAT_OBJ;
}

/* ---- from bytes ---------------------------------------------------------------------------- */

static uint64_t max_bytes_of(const mmx_read_opts *opts)
{
    return opts && opts->max_bytes ? opts->max_bytes : MMX_READ_MAX_BYTES_DEFAULT;
}

static mmx_status too_large(mmx_ctx *ctx, const char *name, uint64_t max)
{
    return mmx__fail(ctx, MMX_ERR_OVERFLOW, "%s: byte %llu: the input is larger than the limit "
                     "of %llu bytes (raise mmx_read_opts.max_bytes to read it)", name,
                     (unsigned long long)max, (unsigned long long)max);
}

static mmx_status read_bytes(mmx_ctx *ctx, const char *name, const char *data, size_t len,
                             mmx_format fmt, const mmx_read_opts *opts, mmx_read_info *info,
                             mmx_mesh **out)
{
    mmx_read_info scratch;
    if (!info) info = &scratch;
    memset(info, 0, sizeof *info);
    if ((uint64_t)len > max_bytes_of(opts)) return too_large(ctx, name, max_bytes_of(opts));
    const char *base = data ? data : "";
    if (len == 0) return mmx__fail(ctx, MMX_ERR_PARSE, "%s:1: the file is empty", name);
    if (fmt == MMX_FORMAT_AUTO) fmt = mmx__sniff(base, len, len);
    info->format = fmt;
    mmx__src src = {name, base, base + len, info};
    switch (fmt) {
    case MMX_FORMAT_OBJ: return mmx__read_obj(ctx, &src, out);
    case MMX_FORMAT_OFF: return mmx__read_off(ctx, &src, out);
    case MMX_FORMAT_PLY: return mmx__read_ply(ctx, &src, out);
    case MMX_FORMAT_STL: case MMX_FORMAT_STL_ASCII: return mmx__read_stl(ctx, &src, out);
    default: break;
    }
    return mmx__fail(ctx, MMX_ERR_ARG, "%s: unknown format %d", name, (int)fmt);
}

mmx_status mmx_mesh_read_mem(mmx_ctx *ctx, const char *name, const void *data, size_t len,
                             mmx_format fmt, mmx_mesh **out)
{
    if (!out) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_mesh_read_mem: out is NULL");
    *out = NULL;
    if (!ctx || (!data && len > 0))
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_mesh_read_mem: NULL context or data");
    if (!name) name = "<memory>";
    if (fmt == MMX_FORMAT_AUTO) fmt = mmx_format_from_path(name);
    return read_bytes(ctx, name, data, len, fmt, NULL, NULL, out);
}

/* ---- from streams -------------------------------------------------------------------------- */

/* What a stream's bytes are checked for as they come: text (no NUL, no overlong line), or a
 * binary STL that must end at its announced size, or nothing (binary PLY). */
typedef struct stream_check {
    int decided, text;
    uint64_t stl_size;  /* a binary STL's whole size, 0 when not one */
    uint64_t line, run; /* the line being read (1-based) and its length so far */
    int prev_cr;
} stream_check;

/* Decides the checks from the first block (or the whole input when shorter). */
static void decide(stream_check *c, mmx_format fmt, const char *p, size_t n)
{
    c->decided = 1;
    int has_nul = memchr(p, '\0', n) != NULL;
    if (fmt == MMX_FORMAT_AUTO) fmt = has_nul ? MMX_FORMAT_STL : mmx__sniff(p, n, 0);
    if (fmt == MMX_FORMAT_OBJ || fmt == MMX_FORMAT_OFF) {
        c->text = 1;
    } else if (fmt == MMX_FORMAT_PLY) {
        /* The header is text and short: it must end in the first block without a NUL, and it
         * says whether the body is text too. Failing that, the whole is checked as text,
         * which refuses binary junk at its first NUL. */
        const char *hit = NULL, *hdr_end = NULL;
        for (const char *q = p; !hdr_end && q + 10 <= p + n; q++) {
            if (*q == 'f' && q + 12 <= p + n && memcmp(q, "format ascii", 12) == 0) hit = q;
            if (*q == 'e' && memcmp(q, "end_header", 10) == 0) hdr_end = q;
        }
        c->text = !hdr_end || memchr(p, '\0', (size_t)(hdr_end - p)) != NULL || hit != NULL;
    } else if (has_nul) {
        if (n >= 84) {
            const unsigned char *b = (const unsigned char *)p + 80;
            c->stl_size = 84 + 50 * ((uint64_t)b[0] | (uint64_t)b[1] << 8 | (uint64_t)b[2] << 16 |
                                     (uint64_t)b[3] << 24);
        }
    } else {
        c->text = 1; /* an ascii STL: no NUL in its first block */
    }
}

/* Checks the new bytes [p, p + n) of a text stream, the first at offset `at`. */
static mmx_status check_text(mmx_ctx *ctx, const char *name, stream_check *c, const char *p,
                             size_t n, uint64_t at, uint64_t max_line)
{
    for (size_t i = 0; i < n; i++) {
        char ch = p[i];
        if (ch == '\n' || ch == '\r') {
            if (!(ch == '\n' && c->prev_cr)) c->line++;
            c->prev_cr = ch == '\r';
            c->run = 0;
            continue;
        }
        c->prev_cr = 0;
        if (ch == '\0')
            return mmx__fail(ctx, MMX_ERR_PARSE, "%s:%llu: byte %llu: a NUL byte, which no text "
                             "mesh format holds (binary data?)", name, (unsigned long long)c->line,
                             (unsigned long long)(at + i));
        if (++c->run > max_line)
            return mmx__fail(ctx, MMX_ERR_PARSE, "%s:%llu: byte %llu: the line is longer than "
                             "%llu bytes (raise mmx_read_opts.max_line to read it)", name,
                             (unsigned long long)c->line, (unsigned long long)(at + i),
                             (unsigned long long)max_line);
    }
    return MMX_OK;
}

/* Reads a stream (a pipe, standard input, a device) to its end into a malloc'd buffer,
 * within the limits: the size, and for text the NUL bytes and line lengths as they come, so
 * that an endless stream is refused early and in bounded memory. */
static mmx_status read_stream(mmx_ctx *ctx, const char *name, FILE *f, mmx_format fmt,
                              const mmx_read_opts *opts, char **data, size_t *len)
{
    const uint64_t max = max_bytes_of(opts);
    const uint64_t max_line = opts && opts->max_line ? opts->max_line : MMX_READ_MAX_LINE_DEFAULT;
    stream_check c = {0, 0, 0, 1, 0, 0};
    size_t cap = 1 << 16, n = 0, checked = 0;
    char *buf = malloc(cap);
    if (!buf) return mmx__fail(ctx, MMX_ERR_NOMEM, "%s: out of host memory", name);
    mmx_status s = MMX_OK;
    for (;;) {
        if (n == cap) {
            /* Room for one byte past the limit, so that crossing it is seen. */
            size_t want = cap * 2;
            if ((uint64_t)want > max + 1) want = (size_t)(max + 1);
            if (want <= cap) {
                s = too_large(ctx, name, max);
                break;
            }
            if ((s = mmx__grow(ctx, (void **)&buf, &cap, want, 1))) break;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if ((uint64_t)n > max) {
            s = too_large(ctx, name, max);
            break;
        }
        if (!c.decided && (n >= 4096 || got == 0)) decide(&c, fmt, buf, n);
        if (c.decided) {
            if (c.text && (s = check_text(ctx, name, &c, buf + checked, n - checked, checked, max_line)))
                break;
            checked = n;
            if (c.stl_size && (uint64_t)n > c.stl_size) {
                s = mmx__fail(ctx, MMX_ERR_PARSE, "%s: byte %llu: binary data that is not a "
                              "binary STL: its header announces %llu bytes in all but more "
                              "follow", name, (unsigned long long)c.stl_size,
                              (unsigned long long)c.stl_size);
                break;
            }
        }
        if (got == 0) break;
    }
    if (!s && ferror(f)) {
        int e = errno;
        s = mmx__fail(ctx, MMX_ERR_IO, "%s: cannot read: %s", name, strerror(e ? e : EIO));
    }
    if (s) {
        free(buf);
        return s;
    }
    *data = buf;
    *len = n;
    return MMX_OK;
}

/* Reads all of f into memory. A regular file is mapped: on the machines measured, copying a
 * large file with fread (and faulting in the fresh buffer) cost as much as parsing it.
 * Anything else (a pipe, a device), or a file that cannot be mapped, is read as a stream.
 * *mapped says which, for the release. */
static mmx_status slurp(mmx_ctx *ctx, const char *path, FILE *f, mmx_format fmt,
                        const mmx_read_opts *opts, char **data, size_t *len, int *mapped)
{
    struct stat st;
    *mapped = 0;
    if (fstat(fileno(f), &st) != 0)
        return mmx__fail(ctx, MMX_ERR_IO, "%s: cannot read: %s", path, strerror(errno));
    if (S_ISDIR(st.st_mode))
        return mmx__fail(ctx, MMX_ERR_IO, "%s: is a directory, not a mesh file", path);
    if (S_ISREG(st.st_mode)) {
        if ((uint64_t)st.st_size > max_bytes_of(opts)) return too_large(ctx, path, max_bytes_of(opts));
        if ((uintmax_t)st.st_size >= SIZE_MAX)
            return mmx__fail(ctx, MMX_ERR_OVERFLOW, "%s: the file is too large for memory", path);
        if (st.st_size > 0) {
            void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fileno(f), 0);
            if (m != MAP_FAILED) {
                (void)posix_madvise(m, (size_t)st.st_size, POSIX_MADV_SEQUENTIAL);
                *data = m;
                *len = (size_t)st.st_size;
                *mapped = 1;
                return MMX_OK;
            }
        }
    }
    return read_stream(ctx, path, f, fmt, opts, data, len);
}

#define STDIN_NAME "<stdin>"

/* A file's bytes as a mesh (out) or, for mmx_faces_read, as face lists (faces: OBJ only). */
static mmx_status read_path(mmx_ctx *ctx, const char *path, mmx_format fmt,
                            const mmx_read_opts *opts, mmx_read_info *info, mmx_mesh **out,
                            mmx_faces **faces)
{
    if (info) memset(info, 0, sizeof *info);
    if (!ctx || !path) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_mesh_read: NULL context or path");
    const int is_stdin = strcmp(path, "-") == 0;
    const char *name = is_stdin ? STDIN_NAME : path;
    FILE *f = stdin;
    if (!is_stdin) {
        /* A directory is named as such before its name is judged as a format. */
        struct stat st;
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
            return mmx__fail(ctx, MMX_ERR_IO, "%s: is a directory, not a mesh file", path);
        if (fmt == MMX_FORMAT_AUTO) fmt = mmx_format_from_path(path);
        if (fmt == MMX_FORMAT_AUTO) return unknown_format(ctx, path);
        f = fopen(path, "rb");
        if (!f) return mmx__fail(ctx, MMX_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    }
    char *data = NULL;
    size_t len = 0;
    int mapped = 0;
    mmx_status s = slurp(ctx, name, f, fmt, opts, &data, &len, &mapped);
    if (!is_stdin) fclose(f); /* a mapping stays valid after its file is closed */
    if (s) return s;
    if (!faces) {
        s = read_bytes(ctx, name, data, len, fmt, opts, info, out);
    } else {
        mmx_read_info scratch;
        if (!info) info = &scratch;
        memset(info, 0, sizeof *info);
        if (fmt == MMX_FORMAT_AUTO) fmt = mmx__sniff(data ? data : "", len, len);
        info->format = fmt;
        mmx__src src = {name, data ? data : "", (data ? data : "") + len, info};
        s = fmt != MMX_FORMAT_OBJ ? mmx__fail(ctx, MMX_ERR_UNSUPPORTED, "%s: mmx_faces_read reads "
                                              "OBJ files only", name)
            : len == 0 ? mmx__fail(ctx, MMX_ERR_PARSE, "%s:1: the file is empty", name)
                       : mmx__read_obj_faces(ctx, &src, faces);
    }
    if (mapped)
        munmap(data, len);
    else
        free(data);
    return s;
}

mmx_status mmx_mesh_read_ex(mmx_ctx *ctx, const char *path, mmx_format fmt,
                            const mmx_read_opts *opts, mmx_read_info *info, mmx_mesh **out)
{
    if (!out) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_mesh_read: out is NULL");
    *out = NULL;
    return read_path(ctx, path, fmt, opts, info, out, NULL);
}

mmx_status mmx_faces_read(mmx_ctx *ctx, const char *path, mmx_faces **out)
{
    if (!out) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_faces_read: out is NULL");
    *out = NULL;
    return read_path(ctx, path, MMX_FORMAT_AUTO, NULL, NULL, NULL, out);
}

mmx_status mmx_mesh_read(mmx_ctx *ctx, const char *path, mmx_format fmt, mmx_mesh **out)
{
    return mmx_mesh_read_ex(ctx, path, fmt, NULL, NULL, out);
}
