/* Writing a mesh file: the public entry point (argument checks, format from the extension,
 * the host view of a device mesh, opening and closing the file, error reporting), the output
 * buffer the writers share, and the number formatting they use. */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include "io_internal.h"
#include "mesh/mesh_internal.h"
#include "meshmatrix/io.h"

/* Large enough that fwrite runs once per megabyte, small enough not to matter. */
#define MMX__WBUF_BYTES ((size_t)1 << 20)

/* ---- the output buffer ------------------------------------------------------------------ */

int mmx__wbuf_flush(mmx__wbuf *w)
{
    if (w->err) return -1;
    if (w->len) {
        errno = 0;
        if (fwrite(w->buf, 1, w->len, w->fp) != w->len) {
            w->err = errno ? errno : EIO;
            return -1;
        }
    }
    w->len = 0;
    return 0;
}

void mmx__wbuf_put(mmx__wbuf *w, const void *p, size_t n)
{
    if (w->err) return;
    if (n > w->cap - w->len && mmx__wbuf_flush(w) != 0) return;
    if (n <= w->cap - w->len) {
        memcpy(w->buf + w->len, p, n);
        w->len += n;
        return;
    }
    /* Bigger than the whole buffer (long tag text): straight to the file. */
    errno = 0;
    if (fwrite(p, 1, n, w->fp) != n) w->err = errno ? errno : EIO;
}

void mmx__wbuf_printf(mmx__wbuf *w, const char *fmt, ...)
{
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0) n = 0;
    if ((size_t)n >= sizeof line) n = (int)sizeof line - 1;
    mmx__wbuf_put(w, line, (size_t)n);
}

/* ---- numbers ------------------------------------------------------------------------------ */

/* "00" "01" ... "99": two digits per division, half the dependent divisions of one per digit. */
static const char mmx__digits2[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

size_t mmx__fmt_u32(char *out, uint32_t v)
{
    char tmp[10];
    int i = 10;
    while (v >= 100) {
        uint32_t q = v / 100, r = v - 100 * q;
        i -= 2;
        memcpy(tmp + i, mmx__digits2 + 2 * r, 2);
        v = q;
    }
    if (v >= 10) {
        i -= 2;
        memcpy(tmp + i, mmx__digits2 + 2 * v, 2);
    } else {
        tmp[--i] = (char)('0' + v);
    }
    memcpy(out, tmp + i, (size_t)(10 - i));
    return (size_t)(10 - i);
}

static size_t fmt_float_slow(char *out, float f)
{
    char tmp[32];
    int n = snprintf(tmp, sizeof tmp, "%.9g", (double)f);
    if (n < 0) n = 0;
    if (n > 16) n = 16; /* cannot happen: "-1.23456789e-38" is the longest */
    memcpy(out, tmp, (size_t)n);
    return (size_t)n;
}

/* Powers of ten that a double holds exactly. */
static const double mmx__p10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                    1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                    1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* printf's %.9g costs ~300 ns a number (it converts through multi-precision arithmetic), which
 * would make writing a million-vertex OBJ take a second. Here the nine digits come from one
 * exact scaling instead: x * 10^s with s in [0, 22] is hi + lo exactly (fma gives the product's
 * rounding error lo), so rounding hi + lo to an integer, half to even as printf does, gives the
 * same digits printf would. Values outside [1e-14, 1e9), where 10^s is not exact, subnormals
 * and non-finite ones take printf's path; mesh coordinates almost never do. The test suite
 * compares the two on a few hundred thousand floats. */
size_t mmx__fmt_float(char *out, float f)
{
#if FLT_EVAL_METHOD != 0
    /* With excess precision (x87) hi would not be a rounded double: stay with printf. */
    return fmt_float_slow(out, f);
#else
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    int be = (int)((bits >> 23) & 0xffu);
    if (be == 0xff || (be == 0 && (bits & 0x7fffffu))) return fmt_float_slow(out, f);
    char *o = out;
    if (bits >> 31) *o++ = '-'; /* also for -0, which must read back as -0 */
    if (be == 0) {
        *o++ = '0';
        return (size_t)(o - out);
    }
    double x = fabs((double)f);
    /* 2^(be-127) <= x < 2^(be-126): the decimal exponent k is floor((be-127) log10 2) or one
     * more (78913 / 2^18 is log10 2 to 6 digits, exact enough for float exponents; the offset
     * keeps the shifted value non-negative). */
    int k = (int)((unsigned)((be - 127) * 78913 + (64 << 18)) >> 18) - 64;
    double n;
    for (;;) {
        int s = 8 - k;
        if (s < 0 || s > 22) return fmt_float_slow(out, f);
        double p = mmx__p10[s], hi = x * p, lo = fma(x, p, -hi);
        if (hi < 1e8 || (hi == 1e8 && lo < 0)) {
            k--;
            continue;
        }
        if (hi > 1e9 || (hi == 1e9 && lo >= 0)) {
            k++;
            continue;
        }
        /* 1e8 <= hi + lo < 1e9. Adding and removing 2^52 rounds hi to an integer, to even on
         * a tie (the default rounding mode), and hi - n is exact (Sterbenz); only a hi exactly
         * halfway between two integers can be pushed either way by lo, and an exact tie stays
         * on the even n. */
        n = (hi + 0x1p52) - 0x1p52;
        double r = hi - n;
        if (r == 0.5 && lo > 0) n += 1;
        else if (r == -0.5 && lo < 0) n -= 1;
        break;
    }
    uint32_t N = (uint32_t)n;
    if (N == 1000000000u) { /* 9.999999996 -> 10.0000000 */
        N = 100000000u;
        k++;
    }
    char d[9];
    uint32_t lead = N / 100000000u, rest = N - 100000000u * lead;
    d[0] = (char)('0' + lead);
    for (int i = 7; i >= 1; i -= 2) {
        uint32_t q = rest / 100, r = rest - 100 * q;
        memcpy(d + i, mmx__digits2 + 2 * r, 2);
        rest = q;
    }
    int last = 8; /* %g drops trailing zeros; d[0] is never '0' */
    while (last > 0 && d[last] == '0') last--;
    if (k < -4 || k >= 9) { /* %e style: d.dddde+XX */
        *o++ = d[0];
        if (last > 0) {
            *o++ = '.';
            memcpy(o, d + 1, (size_t)last);
            o += last;
        }
        *o++ = 'e';
        *o++ = k < 0 ? '-' : '+';
        int ak = k < 0 ? -k : k; /* at most 14 on this path */
        memcpy(o, mmx__digits2 + 2 * ak, 2);
        o += 2;
    } else if (k >= 0) { /* ddd.ddd */
        memcpy(o, d, (size_t)k + 1);
        o += k + 1;
        if (last > k) {
            *o++ = '.';
            memcpy(o, d + k + 1, (size_t)(last - k));
            o += last - k;
        }
    } else { /* 0.000ddd */
        *o++ = '0';
        *o++ = '.';
        for (int i = 0; i < -k - 1; i++) *o++ = '0';
        memcpy(o, d, (size_t)last + 1);
        o += last + 1;
    }
    return (size_t)(o - out);
#endif
}

/* ---- the entry point ---------------------------------------------------------------------- */

static mmx_status write_host(mmx_ctx *ctx, const mmx_mesh *h, const char *path, mmx_format fmt);

mmx_status mmx_mesh_write(mmx_ctx *ctx, const mmx_mesh *mesh, const char *path, mmx_format fmt)
{
    if (!mesh || !mesh->M || !path)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_mesh_write: NULL argument");
    if (fmt == MMX_FORMAT_AUTO) {
        fmt = mmx_format_from_path(path);
        if (fmt == MMX_FORMAT_AUTO)
            return mmx__fail(ctx, MMX_ERR_ARG,
                             "%s: unknown file extension (expected .obj, .off, .ply or .stl)", path);
    }
    if (fmt != MMX_FORMAT_OBJ && fmt != MMX_FORMAT_OFF && fmt != MMX_FORMAT_PLY &&
        fmt != MMX_FORMAT_STL && fmt != MMX_FORMAT_STL_ASCII)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_mesh_write: unknown format %d", (int)fmt);

    const mmx_mesh *h = NULL;
    mmx_status s = fmt == MMX_FORMAT_OBJ ? mmx__mesh_host_view_uv(ctx, mesh, &h)
                                          : mmx__mesh_host_view(ctx, mesh, &h);
    if (s) return s;
    /* STL holds triangles only: refused before the file is opened, so nothing is left behind. */
    const int stl = fmt == MMX_FORMAT_STL || fmt == MMX_FORMAT_STL_ASCII;
    for (mmx_index f = 0; stl && h->M->order != 3 && f < h->M->ncols; f++) {
        mmx_index n = mmx__face_begin(h->M, f + 1) - mmx__face_begin(h->M, f);
        if (n != 3) {
            mmx__mesh_host_release(mesh, h);
            return mmx__fail(ctx, MMX_ERR_MESH, "%s: STL holds triangles only, and face %d has "
                             "%d vertices (triangulate the mesh first)", path, f, n);
        }
    }
    s = write_host(ctx, h, path, fmt);
    mmx__mesh_host_release(mesh, h);
    return s;
}

/* Writes a host mesh (or a view of one) to path in format fmt. */
static mmx_status write_host(mmx_ctx *ctx, const mmx_mesh *h, const char *path, mmx_format fmt)
{
    mmx__wbuf w = {NULL, NULL, 0, MMX__WBUF_BYTES, 0};
    mmx_status s = mmx__host_alloc(ctx, MMX__WBUF_BYTES, 1, (void **)&w.buf);
    if (s) return s;
    errno = 0;
    w.fp = fopen(path, "wb");
    if (!w.fp) {
        int e = errno ? errno : EIO;
        free(w.buf);
        return mmx__fail(ctx, MMX_ERR_IO, "%s: cannot open for writing: %s", path, strerror(e));
    }
    struct stat sb;
    int regular = fstat(fileno(w.fp), &sb) == 0 && S_ISREG(sb.st_mode);

    switch (fmt) {
    case MMX_FORMAT_OBJ: mmx__write_obj(&w, h); break;
    case MMX_FORMAT_OFF: mmx__write_off(&w, h); break;
    case MMX_FORMAT_PLY: mmx__write_ply(&w, h); break;
    default: mmx__write_stl(&w, h, fmt == MMX_FORMAT_STL_ASCII); break;
    }
    (void)mmx__wbuf_flush(&w);
    /* fclose reports what the kernel refused at the last flush (a full disk, a quota). */
    errno = 0;
    if (fclose(w.fp) != 0 && !w.err) w.err = errno ? errno : EIO;
    free(w.buf);
    if (w.err) {
        /* A file cut short could read back as a smaller, valid-looking mesh: remove it. Only a
         * regular file, never a device such as /dev/full or a pipe someone handed us. */
        if (regular) (void)remove(path);
        return mmx__fail(ctx, MMX_ERR_IO, "%s: cannot write: %s", path, strerror(w.err));
    }
    return MMX_OK;
}

mmx_status mmx_faces_write(mmx_ctx *ctx, const mmx_faces *faces, const char *path)
{
    if (!faces || !path || (faces->nfaces > 0 && (!faces->start || !faces->verts)))
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_faces_write: NULL argument");
    /* The OBJ writer reads the face lists through a general-form matrix view (a column may
     * name a row twice here: the writer only walks the columns). */
    mmx_index zero = 0;
    mmx_csc M = {0};
    M.nrows = faces->nverts, M.ncols = faces->nfaces;
    M.colptr = faces->nfaces > 0 ? faces->start : &zero, M.rowidx = faces->verts;
    M.nnz = M.colptr[faces->nfaces];
    M.space = MMX_SPACE_HOST;
    mmx_mesh_uv uv = {faces->nuv, faces->uv, faces->uv_index, MMX_SPACE_HOST, NULL};
    mmx_mesh h = {0};
    h.M = &M, h.pos = faces->pos, h.space = MMX_SPACE_HOST, h.tags = faces->tags;
    h.uv = faces->nuv > 0 ? &uv : NULL;
    return write_host(ctx, &h, path, MMX_FORMAT_OBJ);
}
