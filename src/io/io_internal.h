/* Private declarations of the io module: the input being parsed, the number scanner shared by
 * the text readers, error helpers that prefix the location, growable arrays, the face check
 * run once after parsing, one entry point per format, and the writers' output buffer. */
#ifndef MMX_IO_INTERNAL_H
#define MMX_IO_INTERNAL_H

#include <stdio.h>
#include <stdint.h>
#include "core/core_internal.h"
#include "mesh/mesh_internal.h"
#include "meshmatrix/io.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An input being parsed: its name for messages and its bytes [base, end). The bytes need not
 * be NUL-terminated; no scanner reads at or past end. */
typedef struct mmx__src {
    const char *name;
    const char *base, *end;
    mmx_read_info *info; /* never NULL: what the reader leaves out is counted here */
} mmx__src;

/* The readers, one per format. Each builds the mesh with mmx__mesh_adopt (validated here, so
 * checked = 1) and leaves "NAME:LINE: ..." or "NAME: byte OFFSET: ..." in ctx on failure. */
mmx_status mmx__read_obj(mmx_ctx *ctx, const mmx__src *src, mmx_mesh **out);
/* An OBJ file as face lists that may repeat a vertex in a face (mmx_faces_read). */
mmx_status mmx__read_obj_faces(mmx_ctx *ctx, const mmx__src *src, mmx_faces **out);
mmx_status mmx__read_off(mmx_ctx *ctx, const mmx__src *src, mmx_mesh **out);
mmx_status mmx__read_ply(mmx_ctx *ctx, const mmx__src *src, mmx_mesh **out);
mmx_status mmx__read_stl(mmx_ctx *ctx, const mmx__src *src, mmx_mesh **out);

/* The format of the bytes [p, p + n) by content (see mmx_mesh_read_ex): PLY, OFF, STL, or OBJ
 * when nothing else fits. `total` is the input's whole size when known, else 0 (a stream
 * still being read: a binary STL is then not told by its size). */
mmx_format mmx__sniff(const char *p, size_t n, uint64_t total);

/* Whether [p, p + n) is a complete binary STL by its size: 84 + 50 * (the count at byte 80). */
int mmx__stl_binary_size(const char *p, size_t n);

/* ---- scanning ------------------------------------------------------------------------------ */

/* Space and tab: the separators inside a line. */
static inline int mmx__is_blank(int c) { return c == ' ' || c == '\t'; }

/* Line breaks in the text formats: LF (Unix), CRLF (Windows) and a lone CR (classic Mac OS)
 * all end a line, and CRLF counts as one break. */
static inline int mmx__is_break(int c) { return c == '\n' || c == '\r'; }

/* Past the line break at p (which must be one): two bytes for CRLF, else one. */
static inline const char *mmx__past_break(const char *p, const char *end)
{
    return *p == '\r' && p + 1 < end && p[1] == '\n' ? p + 2 : p + 1;
}

/* The first line break at or after p, or end. A plain loop, not memchr: lines are short, and
 * a search for LF alone would run to the end of a CR-only file at every line. */
static inline const char *mmx__find_break(const char *p, const char *end)
{
    while (p < end && !mmx__is_break(*p)) p++;
    return p;
}

/* The start of the line after the one containing p, or end. */
static inline const char *mmx__next_line(const char *p, const char *end)
{
    p = mmx__find_break(p, end);
    return p == end ? end : mmx__past_break(p, end);
}

/* Any byte that ends a token in the text formats: blank, CR, LF, or the end of the input. */
static inline int mmx__ends_token(const char *p, const char *end)
{
    return p == end || *p == ' ' || *p == '\t' || *p == '\r' || *p == '\n';
}

/* Magnitude at which mmx__lex_int stops accumulating: far above any count or index the readers
 * accept, so a saturated value is always refused by the caller's range check. */
#define MMX__LEX_INT_SAT ((int64_t)1 << 62)

/* Scans [+-]digits at *pp. On success stores the value (magnitude saturated at
 * MMX__LEX_INT_SAT), moves *pp past it and returns 1; returns 0 and leaves *pp alone when no
 * integer starts there. What follows the digits is the caller's business. */
static inline int mmx__lex_int(const char **pp, const char *end, int64_t *out)
{
    const char *p = *pp;
    int neg = 0;
    if (p < end && (*p == '-' || *p == '+')) neg = *p++ == '-';
    const char *d0 = p;
    int64_t v = 0;
    while (p < end && (unsigned)(*p - '0') < 10u) {
        v = v < MMX__LEX_INT_SAT / 10 ? v * 10 + (*p - '0') : MMX__LEX_INT_SAT;
        p++;
    }
    if (p == d0) return 0;
    *out = neg ? -v : v;
    *pp = p;
    return 1;
}

/* Scans a decimal number at *pp: [+-] digits [. digits] [e [+-] digits] (digits on at least
 * one side of the point), or nan, inf, infinity in any case. The value is correctly rounded
 * when at most 19 significant digits and a decimal exponent within +-22 are involved (the
 * usual case, done with integer arithmetic and one exact power of ten), and within one ulp
 * otherwise. Never depends on the locale. Returns 1 and moves *pp past the number, or 0 and
 * leaves *pp alone. */
int mmx__lex_double(const char **pp, const char *end, double *out);

/* 1-based line number of `at` in src, counting LF, CRLF and lone CR breaks alike (for error
 * messages only). */
size_t mmx__line_of(const mmx__src *src, const char *at);

/* The integer token at t as it is written ([+-]digits, at most 24 bytes then "..."), for
 * messages about a value mmx__lex_int may have saturated: a huge index is shown as the file
 * has it, not as 2^62. Returns buf. */
const char *mmx__int_text(const char *t, const char *end, char *buf, size_t cap);

/* The token at p for a message: "'abc'" (at most 24 bytes, non-printable bytes as '?'), or
 * "the end of the line" / "the end of the file". Returns buf. */
const char *mmx__quote(const char *p, const char *end, char *buf, size_t cap);

/* Record "NAME:LINE: <fmt>" (text formats) or "NAME: byte OFFSET: <fmt>" (binary data) in
 * ctx and return s. `at` points into src. */
mmx_status mmx__fail_line(mmx_ctx *ctx, mmx_status s, const mmx__src *src, const char *at,
                          const char *fmt, ...) MMX__PRINTF(5, 6);
mmx_status mmx__fail_byte(mmx_ctx *ctx, mmx_status s, const mmx__src *src, const char *at,
                          const char *fmt, ...) MMX__PRINTF(5, 6);

/* ---- building ------------------------------------------------------------------------------ */

/* Makes room for `need` items of `elem` bytes in *p (capacity *cap items), growing by half
 * again at least, so appending n items costs O(n). Errors: MMX_ERR_OVERFLOW, MMX_ERR_NOMEM. */
mmx_status mmx__grow(mmx_ctx *ctx, void **p, size_t *cap, size_t need, size_t elem);

/* The sentence for a coordinate triple whose float conversion f of d is not finite: that of
 * mmx__coord_problem, or "coordinate x = 1e+39 does not fit a float". Returns 1. */
int mmx__coord_why(const double d[3], const float f[3], char *why, size_t cap);

/* Converts a parsed coordinate triple to float. Returns 0 if all three are finite as floats,
 * else 1 with a sentence in why (NaN, infinite, or a finite value too large for a float). */
static inline int mmx__store_coords(const double d[3], float *f, char *why, size_t cap)
{
    f[0] = (float)d[0];
    f[1] = (float)d[1];
    f[2] = (float)d[2];
    /* x - x is 0 exactly when x is finite (NaN and inf give NaN): one test per coordinate. */
    if (f[0] - f[0] == 0.0f && f[1] - f[1] == 0.0f && f[2] - f[2] == 0.0f) return 0;
    return mmx__coord_why(d, f, why, cap);
}

/* ---- writers ---------------------------------------------------------------------------- */

/* An output buffer in front of a FILE. Writers format straight into it and it goes out in
 * large fwrite calls, so the hot loops make no stdio call per number. The first write error is
 * kept (as an errno value) and every later write is skipped, so a writer can run to its end
 * and the caller checks once. */
typedef struct mmx__wbuf {
    FILE *fp;
    char *buf;
    size_t len, cap;
    int err; /* errno of the first failed write; 0 while all is well */
} mmx__wbuf;

/* The most bytes one formatted item (a number, a short header line) may take: callers ask for
 * this much room before writing an item in place. */
#define MMX__WITEM 64

/* Sends the buffered bytes to the file. Returns 0, or -1 with w->err set. */
int mmx__wbuf_flush(mmx__wbuf *w);

/* A place for at least n (<= w->cap) more bytes at the end of the buffer, flushing first if
 * needed; NULL once a write has failed. The caller advances w->len by what it wrote. */
static inline char *mmx__wbuf_room(mmx__wbuf *w, size_t n)
{
    if (w->len + n > w->cap && mmx__wbuf_flush(w) != 0) return NULL;
    return w->err ? NULL : w->buf + w->len;
}

/* Appends n bytes (any length: large blocks go straight to the file). */
void mmx__wbuf_put(mmx__wbuf *w, const void *p, size_t n);

/* Appends a short printf-formatted text (header lines; at most 255 bytes are kept). */
void mmx__wbuf_printf(mmx__wbuf *w, const char *fmt, ...) MMX__PRINTF(2, 3);

/* Formats f exactly as printf("%.9g", (double)f) does (9 significant digits: enough for
 * every float to read back bit for bit), at about a tenth of printf's cost. Writes at most
 * 16 bytes, no terminating NUL; returns the length. */
size_t mmx__fmt_float(char *out, float f);

/* Formats v in decimal, no NUL; at most 10 bytes; returns the length. */
size_t mmx__fmt_u32(char *out, uint32_t v);

/* The first entry of face f in M's row-index array, in either form. */
static inline mmx_index mmx__face_begin(const mmx_csc *M, mmx_index f)
{
    return M->order ? M->order * f : M->colptr[f];
}

/* One writer per format. The mesh is in host memory; they only format into w (errors are
 * left in w->err for mmx_mesh_write to report). */
void mmx__write_obj(mmx__wbuf *w, const mmx_mesh *mesh);
void mmx__write_off(mmx__wbuf *w, const mmx_mesh *mesh);
void mmx__write_ply(mmx__wbuf *w, const mmx_mesh *mesh);
void mmx__write_stl(mmx__wbuf *w, const mmx_mesh *mesh, int ascii);

#ifdef __cplusplus
}
#endif
#endif
