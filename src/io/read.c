/* Reading a mesh file: the format from the extension, the whole file into memory (mapped when
 * it is a regular file, read otherwise), and dispatch to the reader of the format. The readers
 * only ever see a byte range. */
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

/* Records why `name` gives no format: its extension, or its lack of one, and the known ones.
 * There is nothing to suggest beyond renaming: the mmx tool has no format option. */
static mmx_status unknown_format(mmx_ctx *ctx, const char *name)
{
    const char *slash = strrchr(name, '/');
    const char *dot = strrchr(slash ? slash + 1 : name, '.');
    if (!dot || dot[1] == '\0')
        return mmx__fail(ctx, MMX_ERR_ARG, "%s: cannot tell the format: the name has no "
                         "extension (known: .obj, .off, .ply)", name);
    return mmx__fail(ctx, MMX_ERR_ARG, "%s: cannot tell the format: unknown extension '%.16s%s' "
                     "(known: .obj, .off, .ply)", name, dot, strlen(dot) > 16 ? "..." : "");
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
    return MMX_FORMAT_AUTO;
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
    if (fmt == MMX_FORMAT_AUTO) return unknown_format(ctx, name);
    const char *base = data ? (const char *)data : "";
    mmx__src src = {name, base, base + len};
    if (len == 0) return mmx__fail(ctx, MMX_ERR_PARSE, "%s:1: the file is empty", name);
    switch (fmt) {
    case MMX_FORMAT_OBJ: return mmx__read_obj(ctx, &src, out);
    case MMX_FORMAT_OFF: return mmx__read_off(ctx, &src, out);
    case MMX_FORMAT_PLY: return mmx__read_ply(ctx, &src, out);
    default: break;
    }
    return mmx__fail(ctx, MMX_ERR_ARG, "%s: unknown format %d", name, (int)fmt);
}

/* Reads all of f into memory. A regular file is mapped: on the machines measured, copying a
 * large file with fread (and faulting in the fresh buffer) cost as much as parsing it. Anything
 * else (a pipe), or a file that cannot be mapped, is read in growing chunks into a malloc'd
 * buffer. *mapped says which, for release(). */
static mmx_status slurp(mmx_ctx *ctx, const char *path, FILE *f, char **data, size_t *len,
                        int *mapped)
{
    struct stat st;
    size_t cap = 1 << 16, n = 0;
    *mapped = 0;
    if (fstat(fileno(f), &st) != 0)
        return mmx__fail(ctx, MMX_ERR_IO, "%s: cannot read: %s", path, strerror(errno));
    if (S_ISDIR(st.st_mode))
        return mmx__fail(ctx, MMX_ERR_IO, "%s: is a directory, not a mesh file", path);
    if (S_ISREG(st.st_mode)) {
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
        cap = (size_t)st.st_size + 1; /* +1 so a complete read ends with a short fread */
    }
    char *buf = malloc(cap);
    if (!buf)
        return mmx__fail(ctx, MMX_ERR_NOMEM, "%s: out of host memory reading %zu bytes", path, cap);
    for (;;) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap) break;
        mmx_status s = mmx__grow(ctx, (void **)&buf, &cap, cap + 1, 1);
        if (s) {
            free(buf);
            return s;
        }
    }
    if (ferror(f)) {
        int e = errno;
        free(buf);
        return mmx__fail(ctx, MMX_ERR_IO, "%s: cannot read: %s", path, strerror(e ? e : EIO));
    }
    *data = buf;
    *len = n;
    return MMX_OK;
}

mmx_status mmx_mesh_read(mmx_ctx *ctx, const char *path, mmx_format fmt, mmx_mesh **out)
{
    if (!out) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_mesh_read: out is NULL");
    *out = NULL;
    if (!ctx || !path) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_mesh_read: NULL context or path");
    /* "-" is the command-line convention for standard input, whose format nothing would
     * name (the tool has no format option); say so rather than "unknown format". */
    if (strcmp(path, "-") == 0)
        return mmx__fail(ctx, MMX_ERR_UNSUPPORTED, "-: reading standard input is not supported; "
                         "give a file name (./- for a file named '-')");
    /* A directory is named as such before its name is judged as a format. */
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return mmx__fail(ctx, MMX_ERR_IO, "%s: is a directory, not a mesh file", path);
    if (fmt == MMX_FORMAT_AUTO) fmt = mmx_format_from_path(path);
    if (fmt == MMX_FORMAT_AUTO) return unknown_format(ctx, path);
    FILE *f = fopen(path, "rb");
    if (!f) return mmx__fail(ctx, MMX_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    char *data = NULL;
    size_t len = 0;
    int mapped = 0;
    mmx_status s = slurp(ctx, path, f, &data, &len, &mapped);
    fclose(f); /* a mapping stays valid after its file is closed */
    if (s) return s;
    s = mmx_mesh_read_mem(ctx, path, data, len, fmt, out);
    if (mapped)
        munmap(data, len);
    else
        free(data);
    return s;
}
