/* The PLY 1.0 reader (ascii, binary little and big endian): the header into element and
 * property descriptions, then the body element by element. Vertex x y z (any scalar type) go
 * to float positions, the face element's vertex_indices (or vertex_index) list to face lists;
 * every other property and element is skipped. Element counts are checked against the bytes
 * that follow before anything is allocated from them. The usual binary layouts (float x y z at
 * a fixed stride, faces as a uchar count plus int indices) run in tight loops. Faces are
 * checked once at the end; a bad face's place is found by walking the face element again. */
#include <stdio.h>
#include <string.h>
#include "io_internal.h"

enum { T_NONE, T_I8, T_U8, T_I16, T_U16, T_I32, T_U32, T_F32, T_F64 };
static const unsigned char type_size[] = {0, 1, 1, 2, 2, 4, 4, 4, 8};
static const char *const type_name[][2] = {
    {"", ""},          {"char", "int8"},   {"uchar", "uint8"},     {"short", "int16"},
    {"ushort", "uint16"}, {"int", "int32"}, {"uint", "uint32"},     {"float", "float32"},
    {"double", "float64"},
};

/* What a property is read for: a coordinate, a color channel (vertex values 0..5), the face
 * lists. */
enum { R_NONE, R_X, R_Y, R_Z, R_RED, R_GREEN, R_BLUE, R_VIDX, R_COUNT };
#define NVAL 6 /* x y z red green blue */
enum { E_OTHER, E_VERTEX, E_FACE, E_STRIPS };
enum { F_ASCII = 1, F_LE, F_BE };

typedef struct ply_prop {
    unsigned char type;  /* scalar type, or the item type of a list */
    unsigned char ctype; /* the count type of a list, T_NONE for a scalar */
    unsigned char role;
    unsigned char left;  /* for a property not read: what it holds (L_*), for mmx_read_info */
} ply_prop;

enum { L_NONE, L_NORMAL, L_COLOR, L_TEXCOORD, L_OTHER };

/* What an unread property of element `kind` holds, by its usual names. */
static unsigned char left_kind(int kind, const char *name, size_t n)
{
    static const char *const normal[] = {"nx", "ny", "nz", "normal_x", "normal_y", "normal_z"};
    static const char *const color[] = {"red", "green", "blue", "alpha", "r", "g", "b", "a",
                                        "diffuse_red", "diffuse_green", "diffuse_blue"};
    static const char *const tex[] = {"u", "v", "s", "t", "texture_u", "texture_v", "texture_s",
                                      "texture_t", "texcoord"};
    if (kind == E_VERTEX || kind == E_FACE) {
        for (size_t i = 0; i < sizeof normal / sizeof *normal; i++)
            if (strlen(normal[i]) == n && memcmp(normal[i], name, n) == 0) return L_NORMAL;
        for (size_t i = 0; i < sizeof color / sizeof *color; i++)
            if (strlen(color[i]) == n && memcmp(color[i], name, n) == 0) return L_COLOR;
        for (size_t i = 0; i < sizeof tex / sizeof *tex; i++)
            if (strlen(tex[i]) == n && memcmp(tex[i], name, n) == 0) return L_TEXCOORD;
    }
    return L_OTHER;
}

typedef struct ply_elem {
    char name[32];
    int kind;
    uint64_t count;
    ply_prop *props;
    size_t nprops, cap;
    size_t fixed;        /* binary bytes of the scalar properties */
    size_t minsize;      /* least bytes one element can take in the body */
    int has_list;
    size_t off[NVAL];    /* byte offsets of x, y, z, red, green, blue in a binary vertex
                            without lists */
    int color;           /* a vertex element with all of red, green, blue */
    const char *line;    /* its header line */
    const char *data;    /* where its data starts in the body */
} ply_elem;

/* A growable array of indices. */
typedef struct idxbuf {
    mmx_index *a;
    size_t n, cap;
} idxbuf;

typedef struct ply_file {
    const mmx__src *src;
    int fmt;
    ply_elem *elems;
    size_t nelems, cap;
    ply_elem *vertex, *face; /* set once the header is complete (elems no longer moves) */
    const char *body;
    /* what is built */
    mmx_index nv, nf;        /* nf: faces stored so far */
    float *pos;
    float *colors;           /* nv x 3 when the vertex element has red green blue, else NULL */
    mmx_index *start;        /* nf + 1 entries used */
    size_t start_cap;
    idxbuf fv;               /* the face lists' vertices */
    idxbuf strip;            /* one triangle strip, before it is cut into triangles */
    mmx_index face_first;    /* the face element's first face (strips may come before it) */
} ply_file;

static void ply_free(ply_file *f)
{
    for (size_t i = 0; i < f->nelems; i++) free(f->elems[i].props);
    free(f->elems);
    free(f->pos);
    free(f->colors);
    free(f->start);
    free(f->fv.a);
    free(f->strip.a);
}

static int is_int_type(int t) { return t >= T_I8 && t <= T_U32; }

/* ---- binary loads: byte assembly, which compilers turn into plain or byte-swapped loads ---- */

static inline uint16_t ld16(const unsigned char *p, int be)
{
    return be ? (uint16_t)(p[0] << 8 | p[1]) : (uint16_t)(p[1] << 8 | p[0]);
}

static inline uint32_t ld32(const unsigned char *p, int be)
{
    return be ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
              : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static inline uint64_t ld64(const unsigned char *p, int be)
{
    uint64_t a = ld32(p, be), b = ld32(p + 4, be);
    return be ? a << 32 | b : b << 32 | a;
}

static inline float ldf32(const unsigned char *p, int be)
{
    uint32_t u = ld32(p, be);
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

static int64_t bin_int(const unsigned char *p, int type, int be)
{
    switch (type) {
    case T_I8: return (int8_t)p[0];
    case T_U8: return p[0];
    case T_I16: return (int16_t)ld16(p, be);
    case T_U16: return ld16(p, be);
    case T_I32: return (int32_t)ld32(p, be);
    case T_U32: return ld32(p, be);
    default: return 0;
    }
}

static double bin_real(const unsigned char *p, int type, int be)
{
    if (type == T_F32) return ldf32(p, be);
    if (type == T_F64) {
        uint64_t u = ld64(p, be);
        double x;
        memcpy(&x, &u, sizeof x);
        return x;
    }
    return (double)bin_int(p, type, be);
}

/* ---- the header ------------------------------------------------------------------------- */

/* The next blank-separated word in [*pp, e): its start and length (0 at the end). */
static size_t next_word(const char **pp, const char *e, const char **w)
{
    const char *p = *pp;
    while (p < e && mmx__is_blank(*p)) p++;
    *w = p;
    while (p < e && !mmx__is_blank(*p)) p++;
    *pp = p;
    return (size_t)(p - *w);
}

static int word_is(const char *w, size_t n, const char *s)
{
    return strlen(s) == n && memcmp(w, s, n) == 0;
}

static int type_of(const char *w, size_t n)
{
    for (int t = T_I8; t <= T_F64; t++)
        if (word_is(w, n, type_name[t][0]) || word_is(w, n, type_name[t][1])) return t;
    return T_NONE;
}

/* A word for a message: at most 24 bytes, quoted, non-printable bytes as '?'. */
static const char *q(const char *w, size_t n, char *buf)
{
    size_t k = 0;
    buf[k++] = '\'';
    for (size_t i = 0; i < n && i < 24; i++) {
        unsigned char c = (unsigned char)w[i];
        buf[k++] = (c < 0x20 || c >= 0x7f) ? '?' : (char)c;
    }
    if (n > 24) buf[k++] = '.', buf[k++] = '.', buf[k++] = '.';
    buf[k++] = '\'';
    buf[k] = '\0';
    return buf;
}

static mmx_status add_property(mmx_ctx *ctx, ply_file *f, const char *line, const char *p,
                               const char *e)
{
    const mmx__src *src = f->src;
    char b1[40], b2[40];
    if (f->nelems == 0)
        return mmx__fail_line(ctx, MMX_ERR_PARSE, src, line, "property before any element");
    ply_elem *el = &f->elems[f->nelems - 1];
    const char *w;
    size_t n = next_word(&p, e, &w);
    ply_prop pr = {T_NONE, T_NONE, R_NONE, L_NONE};
    if (word_is(w, n, "list")) {
        n = next_word(&p, e, &w);
        if (!(pr.ctype = (unsigned char)type_of(w, n)))
            return mmx__fail_line(ctx, MMX_ERR_PARSE, src, line, "unknown property type %s", q(w, n, b1));
        n = next_word(&p, e, &w);
    }
    if (!(pr.type = (unsigned char)type_of(w, n)))
        return mmx__fail_line(ctx, MMX_ERR_PARSE, src, line, "unknown property type %s", q(w, n, b1));
    const char *name;
    size_t nlen = next_word(&p, e, &name);
    if (nlen == 0)
        return mmx__fail_line(ctx, MMX_ERR_PARSE, src, line, "property without a name");
    if (next_word(&p, e, &w))
        return mmx__fail_line(ctx, MMX_ERR_PARSE, src, line, "unexpected %s after property %s",
                              q(w, (size_t)(e - w), b1), q(name, nlen, b2));
    if (el->kind == E_VERTEX && nlen == 1 && name[0] >= 'x' && name[0] <= 'z')
        pr.role = (unsigned char)(R_X + (name[0] - 'x'));
    if (el->kind == E_VERTEX && !pr.ctype) {
        if (word_is(name, nlen, "red") || word_is(name, nlen, "diffuse_red")) pr.role = R_RED;
        if (word_is(name, nlen, "green") || word_is(name, nlen, "diffuse_green")) pr.role = R_GREEN;
        if (word_is(name, nlen, "blue") || word_is(name, nlen, "diffuse_blue")) pr.role = R_BLUE;
    }
    if ((el->kind == E_FACE || el->kind == E_STRIPS) &&
        (word_is(name, nlen, "vertex_indices") || word_is(name, nlen, "vertex_index")))
        pr.role = R_VIDX;
    if (pr.role != R_NONE) {
        for (size_t i = 0; i < el->nprops; i++)
            if (el->props[i].role == pr.role)
                return mmx__fail_line(ctx, MMX_ERR_PARSE, src, line, "second %s property in element %s",
                                      q(name, nlen, b1), el->name);
        if (pr.role != R_VIDX && pr.ctype)
            return mmx__fail_line(ctx, MMX_ERR_PARSE, src, line, "vertex property %s is a list",
                                  q(name, nlen, b1));
        if (pr.role == R_VIDX && !pr.ctype)
            return mmx__fail_line(ctx, MMX_ERR_PARSE, src, line, "face property %s is not a list",
                                  q(name, nlen, b1));
        if (pr.role == R_VIDX && (!is_int_type(pr.ctype) || !is_int_type(pr.type)))
            return mmx__fail_line(ctx, MMX_ERR_PARSE, src, line,
                                  "face property %s needs integer count and index types",
                                  q(name, nlen, b1));
    }
    if (pr.role == R_NONE) pr.left = left_kind(el->kind, name, nlen);
    if (pr.ctype && !is_int_type(pr.ctype))
        return mmx__fail_line(ctx, MMX_ERR_PARSE, src, line, "list %s has a non-integer count type",
                              q(name, nlen, b1));
    mmx_status s = mmx__grow(ctx, (void **)&el->props, &el->cap, el->nprops + 1, sizeof *el->props);
    if (s) return s;
    el->props[el->nprops++] = pr;
    return MMX_OK;
}

static mmx_status add_element(mmx_ctx *ctx, ply_file *f, const char *line, const char *p,
                              const char *e)
{
    const mmx__src *src = f->src;
    char b1[40];
    const char *w, *c;
    size_t n = next_word(&p, e, &w);
    size_t cn = next_word(&p, e, &c);
    int64_t count = 0;
    const char *ce = c;
    if (n == 0 || cn == 0 || !mmx__lex_int(&ce, c + cn, &count) || ce != c + cn)
        return mmx__fail_line(ctx, MMX_ERR_PARSE, src, line, "expected 'element NAME COUNT'");
    if (count < 0)
        return mmx__fail_line(ctx, MMX_ERR_PARSE, src, line, "negative element count %s",
                              mmx__int_text(c, c + cn, b1, sizeof b1));
    if (count >= MMX__LEX_INT_SAT)
        return mmx__fail_line(ctx, MMX_ERR_OVERFLOW, src, line, "element count %s is too large",
                              q(c, cn, b1));
    if (next_word(&p, e, &c))
        return mmx__fail_line(ctx, MMX_ERR_PARSE, src, line, "unexpected %s after the element count",
                              q(c, (size_t)(e - c), b1));
    int kind = word_is(w, n, "vertex") ? E_VERTEX : word_is(w, n, "face") ? E_FACE
             : word_is(w, n, "tristrips") ? E_STRIPS : E_OTHER;
    for (size_t i = 0; kind != E_OTHER && i < f->nelems; i++)
        if (f->elems[i].kind == kind)
            return mmx__fail_line(ctx, MMX_ERR_PARSE, src, line, "second %s element", q(w, n, b1));
    mmx_status s = mmx__grow(ctx, (void **)&f->elems, &f->cap, f->nelems + 1, sizeof *f->elems);
    if (s) return s;
    ply_elem *el = &f->elems[f->nelems++];
    memset(el, 0, sizeof *el);
    snprintf(el->name, sizeof el->name, "%.*s", (int)(n < 30 ? n : 30), w);
    el->kind = kind;
    el->count = (uint64_t)count;
    el->line = line;
    return MMX_OK;
}

/* Sizes and layout of each element once its properties are known; the vertex and face
 * elements must have what this reader needs. */
static mmx_status finish_header(mmx_ctx *ctx, ply_file *f)
{
    const mmx__src *src = f->src;
    static const char axis[] = "xyz";
    for (size_t i = 0; i < f->nelems; i++) {
        ply_elem *el = &f->elems[i];
        int have[R_COUNT] = {0};
        for (size_t k = 0; k < el->nprops; k++) {
            const ply_prop *pr = &el->props[k];
            have[pr->role] = 1;
            if (pr->role >= R_X && pr->role <= R_BLUE && !el->has_list)
                el->off[pr->role - R_X] = el->fixed;
            if (pr->ctype) {
                el->has_list = 1;
                el->minsize += type_size[pr->ctype];
            } else {
                el->fixed += type_size[pr->type];
                el->minsize += type_size[pr->type];
            }
        }
        if (f->fmt == F_ASCII) el->minsize = 2 * el->nprops; /* a digit and a separator each */
        if (el->kind == E_VERTEX) {
            f->vertex = el;
            /* Colors are kept with all three channels; one or two alone are counted as left
             * out (as alpha and other color names are, below). */
            el->color = have[R_RED] && have[R_GREEN] && have[R_BLUE];
            if (!el->color && (have[R_RED] || have[R_GREEN] || have[R_BLUE]))
                src->info->colors += (int64_t)el->count;
            for (int d = 0; d < 3; d++)
                if (!have[R_X + d])
                    return mmx__fail_line(ctx, MMX_ERR_PARSE, src, el->line,
                                          "the vertex element has no property %c", axis[d]);
        }
        if (el->kind == E_FACE) f->face = el;
        /* What is left out: per element with such a property, its count (other: once). */
        int left[5] = {0};
        for (size_t k = 0; k < el->nprops; k++) left[el->props[k].left] = 1;
        if (el->kind == E_OTHER) src->info->other++;
        else {
            src->info->normals += left[L_NORMAL] ? (int64_t)el->count : 0;
            src->info->colors += left[L_COLOR] ? (int64_t)el->count : 0;
            src->info->texcoords += left[L_TEXCOORD] ? (int64_t)el->count : 0;
            src->info->other += left[L_OTHER];
        }
        if ((el->kind == E_FACE || el->kind == E_STRIPS) && !have[R_VIDX])
            return mmx__fail_line(ctx, MMX_ERR_PARSE, src, el->line,
                                  "the %s element has no vertex_indices list", el->name);
    }
    if (!f->vertex)
        return mmx__fail_line(ctx, MMX_ERR_PARSE, src, f->body, "the header has no vertex element");
    /* Never trust a count: each element takes at least minsize bytes. An ascii body may end
     * without a final separator, hence the one byte of slack. */
    uint64_t left = (uint64_t)(src->end - f->body), slack = f->fmt == F_ASCII, total = 0;
    for (size_t i = 0; i < f->nelems; i++) {
        const ply_elem *el = &f->elems[i];
        if (el->minsize == 0) continue;
        const char *what = el->kind == E_VERTEX ? "vertices" : el->kind == E_FACE ? "faces" : NULL;
        if (el->count > (left + slack) / el->minsize) {
            if (what)
                return mmx__fail_line(ctx, MMX_ERR_PARSE, src, el->line,
                                      "header announces %llu %s but only %llu bytes follow",
                                      (unsigned long long)el->count, what, (unsigned long long)left);
            return mmx__fail_line(ctx, MMX_ERR_PARSE, src, el->line,
                                  "header announces %llu '%s' elements but only %llu bytes follow",
                                  (unsigned long long)el->count, el->name, (unsigned long long)left);
        }
        total += el->count * el->minsize;
        if (total > left + slack)
            return mmx__fail_line(ctx, MMX_ERR_PARSE, src, el->line,
                                  "header announces elements of at least %llu bytes in all but only "
                                  "%llu bytes follow", (unsigned long long)total, (unsigned long long)left);
    }
    if (f->vertex->count > (uint64_t)MMX_INDEX_MAX)
        return mmx__fail_line(ctx, MMX_ERR_OVERFLOW, src, f->vertex->line,
                              "%llu vertices do not fit 32-bit indices", (unsigned long long)f->vertex->count);
    if (f->face && f->face->count >= (uint64_t)MMX_INDEX_MAX)
        return mmx__fail_line(ctx, MMX_ERR_OVERFLOW, src, f->face->line,
                              "%llu faces do not fit 32-bit indices", (unsigned long long)f->face->count);
    return MMX_OK;
}

static mmx_status parse_header(mmx_ctx *ctx, ply_file *f)
{
    const mmx__src *src = f->src;
    const char *p = src->base, *end = src->end;
    char b1[40];
    int first = 1;
    /* Header lines end as the first line does: in LF or CRLF, or in a lone CR (classic Mac OS).
     * Only that one byte is looked for, so a binary body that happens to start with an LF
     * byte after a CR-only header is not taken for part of the end_header line. */
    const char *first_break = mmx__find_break(p, end);
    const char brk = first_break < end && *first_break == '\r' &&
                     (first_break + 1 == end || first_break[1] != '\n') ? '\r' : '\n';
    while (p < end) {
        const char *line = p, *nl = memchr(p, brk, (size_t)(end - p));
        const char *e = nl ? nl : end;
        p = nl ? nl + 1 : end;
        if (e > line && e[-1] == '\r') e--;
        const char *r = line, *w;
        size_t n = next_word(&r, e, &w);
        if (first) {
            const char *w2;
            if (!word_is(w, n, "ply") || next_word(&r, e, &w2))
                return mmx__fail_line(ctx, MMX_ERR_PARSE, src, line,
                                      "not a PLY file: the first line is not 'ply'");
            first = 0;
            continue;
        }
        if (n == 0 || word_is(w, n, "comment") || word_is(w, n, "obj_info")) continue;
        mmx_status s = MMX_OK;
        if (word_is(w, n, "format")) {
            const char *v;
            n = next_word(&r, e, &w);
            size_t vn = next_word(&r, e, &v);
            int fmt = word_is(w, n, "ascii") ? F_ASCII
                    : word_is(w, n, "binary_little_endian") ? F_LE
                    : word_is(w, n, "binary_big_endian") ? F_BE : 0;
            if (f->fmt)
                s = mmx__fail_line(ctx, MMX_ERR_PARSE, src, line, "second format line");
            else if (!fmt)
                s = mmx__fail_line(ctx, MMX_ERR_PARSE, src, line, "unknown PLY format %s", q(w, n, b1));
            else if (!word_is(v, vn, "1.0"))
                s = mmx__fail_line(ctx, MMX_ERR_UNSUPPORTED, src, line,
                                   "PLY version %s is not supported (only 1.0)", q(v, vn, b1));
            f->fmt = fmt;
        } else if (word_is(w, n, "element")) {
            s = add_element(ctx, f, line, r, e);
        } else if (word_is(w, n, "property")) {
            s = add_property(ctx, f, line, r, e);
        } else if (word_is(w, n, "end_header")) {
            if (!f->fmt)
                return mmx__fail_line(ctx, MMX_ERR_PARSE, src, line, "no format line before end_header");
            f->body = p;
            return finish_header(ctx, f);
        } else {
            s = mmx__fail_line(ctx, MMX_ERR_PARSE, src, line, "unknown header keyword %s", q(w, n, b1));
        }
        if (s) return s;
    }
    if (first)
        return mmx__fail_line(ctx, MMX_ERR_PARSE, src, end, "not a PLY file: the first line is not 'ply'");
    return mmx__fail_line(ctx, MMX_ERR_PARSE, src, end, "the header has no end_header line");
}

/* ---- the body: ascii -------------------------------------------------------------------- */

static inline const char *skip_space(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')) p++;
    return p;
}

/* The next ascii value as a double, or a parse error naming what was found and where. */
static mmx_status ascii_real(mmx_ctx *ctx, ply_file *f, const char **pp, double *v)
{
    const char *end = f->src->end, *p = skip_space(*pp, end), *t = p;
    char tok[48];
    if (p == end)
        return mmx__fail_line(ctx, MMX_ERR_PARSE, f->src, p, "the file ends inside the data");
    if (!mmx__lex_double(&p, end, v) || !mmx__ends_token(p, end))
        return mmx__fail_line(ctx, MMX_ERR_PARSE, f->src, t, "expected a number, found %s",
                              mmx__quote(t, end, tok, sizeof tok));
    *pp = p;
    return MMX_OK;
}

static mmx_status ascii_int(mmx_ctx *ctx, ply_file *f, const char **pp, int64_t *v, const char **at)
{
    const char *end = f->src->end, *p = skip_space(*pp, end);
    char tok[48];
    *at = p;
    if (p == end)
        return mmx__fail_line(ctx, MMX_ERR_PARSE, f->src, p, "the file ends inside the data");
    if (!mmx__lex_int(&p, end, v) || !mmx__ends_token(p, end))
        return mmx__fail_line(ctx, MMX_ERR_PARSE, f->src, *at, "expected an integer, found %s",
                              mmx__quote(*at, end, tok, sizeof tok));
    *pp = p;
    return MMX_OK;
}

/* Reads one ascii element instance: coordinates into xyz and, when dst is not NULL, the
 * vertex_indices list appended to dst; everything is checked for syntax. */
static mmx_status ascii_one(mmx_ctx *ctx, ply_file *f, const ply_elem *el, const char **pp,
                            double xyz[NVAL], idxbuf *dst)
{
    const char *p = *pp, *at;
    char tok[48];
    mmx_status s;
    for (size_t k = 0; k < el->nprops; k++) {
        const ply_prop *pr = &el->props[k];
        double v;
        if (!pr->ctype) {
            if ((s = ascii_real(ctx, f, &p, &v))) return s;
            if (pr->role >= R_X && pr->role <= R_BLUE) xyz[pr->role - R_X] = v;
            continue;
        }
        int64_t n, iv;
        if ((s = ascii_int(ctx, f, &p, &n, &at))) return s;
        if (n < 0)
            return mmx__fail_line(ctx, MMX_ERR_PARSE, f->src, at, "negative list count %s",
                                  mmx__int_text(at, f->src->end, tok, sizeof tok));
        if ((uint64_t)n > (uint64_t)(f->src->end - p) / 2) /* each item takes two bytes */
            return mmx__fail_line(ctx, MMX_ERR_PARSE, f->src, at,
                                  "a list of %s items runs past the end of the file",
                                  mmx__int_text(at, f->src->end, tok, sizeof tok));
        if (pr->role != R_VIDX || !dst) {
            for (int64_t i = 0; i < n; i++)
                if ((s = ascii_real(ctx, f, &p, &v))) return s;
            continue;
        }
        if ((uint64_t)dst->n + (uint64_t)n > (uint64_t)MMX_INDEX_MAX)
            return mmx__fail_line(ctx, MMX_ERR_OVERFLOW, f->src, at,
                                  "more than %d face corners do not fit 32-bit indices", MMX_INDEX_MAX);
        if ((s = mmx__grow(ctx, (void **)&dst->a, &dst->cap, dst->n + (size_t)n, sizeof *dst->a)))
            return s;
        for (int64_t i = 0; i < n; i++) {
            if ((s = ascii_int(ctx, f, &p, &iv, &at))) return s;
            if (iv < -MMX_INDEX_MAX || iv > MMX_INDEX_MAX)
                return mmx__fail_line(ctx, MMX_ERR_MESH, f->src, at,
                                      "vertex index %s is out of range",
                                      mmx__int_text(at, f->src->end, tok, sizeof tok));
            dst->a[dst->n++] = (mmx_index)iv;
        }
    }
    *pp = p;
    return MMX_OK;
}

/* ---- the body: binary ------------------------------------------------------------------- */

/* Walks one binary element instance; reads like ascii_one. */
static mmx_status bin_one(mmx_ctx *ctx, ply_file *f, const ply_elem *el, const char **pp,
                          double xyz[NVAL], idxbuf *dst)
{
    const unsigned char *p = (const unsigned char *)*pp;
    const unsigned char *end = (const unsigned char *)f->src->end;
    const int be = f->fmt == F_BE;
    mmx_status s;
    for (size_t k = 0; k < el->nprops; k++) {
        const ply_prop *pr = &el->props[k];
        if (!pr->ctype) {
            if ((size_t)(end - p) < type_size[pr->type]) goto truncated;
            if (pr->role >= R_X && pr->role <= R_BLUE) xyz[pr->role - R_X] = bin_real(p, pr->type, be);
            p += type_size[pr->type];
            continue;
        }
        const unsigned char *at = p;
        if ((size_t)(end - p) < type_size[pr->ctype]) goto truncated;
        int64_t n = bin_int(p, pr->ctype, be);
        p += type_size[pr->ctype];
        if (n < 0)
            return mmx__fail_byte(ctx, MMX_ERR_PARSE, f->src, (const char *)at,
                                  "negative list count %lld", (long long)n);
        size_t isz = type_size[pr->type];
        if ((uint64_t)n > (uint64_t)(end - p) / isz) goto truncated;
        if (pr->role != R_VIDX || !dst) {
            p += (size_t)n * isz;
            continue;
        }
        if ((uint64_t)dst->n + (uint64_t)n > (uint64_t)MMX_INDEX_MAX)
            return mmx__fail_byte(ctx, MMX_ERR_OVERFLOW, f->src, (const char *)at,
                                  "more than %d face corners do not fit 32-bit indices", MMX_INDEX_MAX);
        if ((s = mmx__grow(ctx, (void **)&dst->a, &dst->cap, dst->n + (size_t)n, sizeof *dst->a)))
            return s;
        for (int64_t i = 0; i < n; i++, p += isz) {
            int64_t iv = bin_int(p, pr->type, be);
            if (iv > MMX_INDEX_MAX)
                return mmx__fail_byte(ctx, MMX_ERR_MESH, f->src, (const char *)p,
                                      "vertex index %lld is out of range", (long long)iv);
            dst->a[dst->n++] = (mmx_index)iv;
        }
    }
    *pp = (const char *)p;
    return MMX_OK;
truncated:
    return mmx__fail_byte(ctx, MMX_ERR_PARSE, f->src, *pp, "the file ends inside a '%s' element",
                          el->name);
}

/* One element instance in either encoding. */
static mmx_status read_one(mmx_ctx *ctx, ply_file *f, const ply_elem *el, const char **pp,
                           double xyz[NVAL], idxbuf *dst)
{
    return f->fmt == F_ASCII ? ascii_one(ctx, f, el, pp, xyz, dst)
                             : bin_one(ctx, f, el, pp, xyz, dst);
}

/* ---- the elements ----------------------------------------------------------------------- */

/* float x y z at fixed offsets of a fixed-size binary vertex: the common layout. Returns the
 * first vertex with a non-finite coordinate, or -1. */
static inline mmx_index bin_vertices_f32(const unsigned char *p, size_t stride, const size_t off[3],
                                         mmx_index nv, float *pos, int be)
{
    for (mmx_index v = 0; v < nv; v++, p += stride) {
        float x = ldf32(p + off[0], be), y = ldf32(p + off[1], be), z = ldf32(p + off[2], be);
        pos[3 * (size_t)v] = x;
        pos[3 * (size_t)v + 1] = y;
        pos[3 * (size_t)v + 2] = z;
        if (!(x - x == 0.0f && y - y == 0.0f && z - z == 0.0f)) return v;
    }
    return -1;
}

/* A color channel in [0, 1]: an integer scaled by its type's maximum, a float as it is
 * (clamped; NaN as 0). */
static void store_color(const double c[3], const int type[3], float *out)
{
    for (int d = 0; d < 3; d++) {
        double v = c[d];
        switch (type[d]) {
        case T_U8: case T_I8: v /= 255.0; break;
        case T_U16: case T_I16: v /= 65535.0; break;
        case T_U32: case T_I32: v /= 4294967295.0; break;
        default: break;
        }
        out[d] = v > 0 ? (v < 1 ? (float)v : 1.0f) : 0.0f;
    }
}

static mmx_status read_vertices(mmx_ctx *ctx, ply_file *f, const ply_elem *el, const char **pp)
{
    const char *p = *pp;
    char why[200];
    int ctype[3] = {T_F32, T_F32, T_F32};
    for (size_t k = 0; k < el->nprops; k++)
        if (el->props[k].role >= R_RED && el->props[k].role <= R_BLUE)
            ctype[el->props[k].role - R_RED] = el->props[k].type;
    double xyz[NVAL] = {0, 0, 0, 0, 0, 0};
    mmx_status s;
    if (f->fmt != F_ASCII && !el->has_list) {
        /* Fixed-size vertices: x y z at fixed offsets, so no walk over the other properties. */
        size_t stride = el->fixed, left = (size_t)(f->src->end - p);
        if ((uint64_t)f->nv * stride > left)
            return mmx__fail_byte(ctx, MMX_ERR_PARSE, f->src, p + left / stride * stride,
                                  "the file ends inside vertex %zu of %d", left / stride, f->nv);
        const unsigned char *u = (const unsigned char *)p;
        const int be = f->fmt == F_BE;
        int t[3] = {T_F32, T_F32, T_F32};
        for (size_t k = 0; k < el->nprops; k++)
            if (el->props[k].role >= R_X && el->props[k].role <= R_Z)
                t[el->props[k].role - R_X] = el->props[k].type;
        mmx_index bad = -1;
        if (t[0] == T_F32 && t[1] == T_F32 && t[2] == T_F32) {
            bad = be ? bin_vertices_f32(u, stride, el->off, f->nv, f->pos, 1)
                     : bin_vertices_f32(u, stride, el->off, f->nv, f->pos, 0);
        } else {
            for (mmx_index v = 0; v < f->nv && bad < 0; v++) {
                const unsigned char *r = u + (size_t)v * stride;
                for (int d = 0; d < 3; d++) xyz[d] = bin_real(r + el->off[d], t[d], be);
                if (mmx__store_coords(xyz, f->pos + 3 * (size_t)v, why, sizeof why)) bad = v;
            }
        }
        if (bad >= 0) {
            const unsigned char *r = u + (size_t)bad * stride;
            float tmp[3];
            for (int d = 0; d < 3; d++) xyz[d] = bin_real(r + el->off[d], t[d], be);
            mmx__store_coords(xyz, tmp, why, sizeof why);
            return mmx__fail_byte(ctx, MMX_ERR_MESH, f->src, (const char *)r, "vertex %d: %s", bad, why);
        }
        for (mmx_index v = 0; f->colors && v < f->nv; v++) {
            const unsigned char *r = u + (size_t)v * stride;
            for (int d = 3; d < NVAL; d++) xyz[d] = bin_real(r + el->off[d], ctype[d - 3], be);
            store_color(xyz + 3, ctype, f->colors + 3 * (size_t)v);
        }
        *pp = p + (size_t)f->nv * stride;
        return MMX_OK;
    }
    for (mmx_index v = 0; v < f->nv; v++) {
        const char *at = f->fmt == F_ASCII ? skip_space(p, f->src->end) : p;
        if ((s = read_one(ctx, f, el, &p, xyz, NULL))) return s;
        if (f->colors) store_color(xyz + 3, ctype, f->colors + 3 * (size_t)v);
        if (mmx__store_coords(xyz, f->pos + 3 * (size_t)v, why, sizeof why))
            return f->fmt == F_ASCII
                       ? mmx__fail_line(ctx, MMX_ERR_MESH, f->src, at, "vertex %d: %s", v, why)
                       : mmx__fail_byte(ctx, MMX_ERR_MESH, f->src, at, "vertex %d: %s", v, why);
    }
    *pp = p;
    return MMX_OK;
}

/* Faces fc .. fend-1 stored as a uchar count and 4-byte indices, nothing else: the common
 * layout. Returns the face it stopped at: fend, or a face it does not take (past the end of
 * the file, a uint index beyond 32-bit signed, or no room left in fv), for the caller to grow
 * fv or to leave to the general path, which reports the others. */
static inline mmx_index bin_faces_u8_i32(ply_file *f, mmx_index fc, mmx_index fend,
                                         const unsigned char **pp, int be, int uns)
{
    const unsigned char *p = *pp, *end = (const unsigned char *)f->src->end;
    mmx_index *verts = f->fv.a, *start = f->start;
    size_t nnz = f->fv.n, cap = f->fv.cap;
    if (cap > (size_t)MMX_INDEX_MAX) cap = (size_t)MMX_INDEX_MAX; /* keeps nnz in 32 bits */
    for (; fc < fend; fc++) {
        if (p >= end) break;
        size_t n = p[0];
        if ((size_t)(end - p - 1) < 4 * n || nnz + n > cap) break;
        const unsigned char *r = p + 1;
        uint32_t hi = 0;
        for (size_t k = 0; k < n; k++) {
            uint32_t u = ld32(r + 4 * k, be);
            hi |= u;
            verts[nnz + k] = (mmx_index)u;
        }
        if (uns && (hi & 0x80000000u)) break;
        nnz += n;
        start[fc + 1] = (mmx_index)nnz;
        p = r + 4 * n;
    }
    f->fv.n = nnz;
    *pp = p;
    return fc;
}

static mmx_status read_faces(mmx_ctx *ctx, ply_file *f, const ply_elem *el, const char **pp)
{
    const char *p = *pp, *end = f->src->end;
    double unused[NVAL];
    mmx_status s;
    if ((uint64_t)f->nf + el->count >= (uint64_t)MMX_INDEX_MAX)
        return mmx__fail_byte(ctx, MMX_ERR_OVERFLOW, f->src, p, "%llu faces do not fit 32-bit indices",
                              (unsigned long long)((uint64_t)f->nf + el->count));
    mmx_index fc = f->nf, fend = (mmx_index)(f->nf + el->count);
    if ((s = mmx__grow(ctx, (void **)&f->start, &f->start_cap, (size_t)fend + 1, sizeof *f->start)))
        return s;
    f->face_first = fc;
    const ply_prop *pr = &el->props[0];
    if (f->fmt != F_ASCII && el->nprops == 1 && pr->ctype == T_U8 &&
        (pr->type == T_I32 || pr->type == T_U32)) {
        const int be = f->fmt == F_BE, uns = pr->type == T_U32;
        for (;;) {
            const unsigned char *u = (const unsigned char *)p;
            fc = be ? bin_faces_u8_i32(f, fc, fend, &u, 1, uns) : bin_faces_u8_i32(f, fc, fend, &u, 0, uns);
            p = (const char *)u;
            if (fc == fend || p >= end) break;
            size_t n = (unsigned char)p[0];
            /* Out of room only: grow and go on. Anything else is left to bin_one. */
            if ((size_t)(end - p - 1) < 4 * n || f->fv.n + n <= f->fv.cap ||
                f->fv.n + n > (size_t)MMX_INDEX_MAX)
                break;
            if ((s = mmx__grow(ctx, (void **)&f->fv.a, &f->fv.cap, f->fv.n + n, sizeof *f->fv.a)))
                return s;
        }
    }
    for (; fc < fend; fc++) {
        if ((s = read_one(ctx, f, el, &p, unused, &f->fv))) return s;
        f->start[fc + 1] = (mmx_index)f->fv.n;
    }
    f->nf = fend;
    *pp = p;
    return MMX_OK;
}

/* Triangle strips: each list is cut into triangles of alternating orientation (so all face the
 * same way), -1 restarts a strip, and degenerate triangles (the usual way to stitch strips
 * together) are dropped rather than refused. */
static mmx_status read_strips(mmx_ctx *ctx, ply_file *f, const ply_elem *el, const char **pp)
{
    const char *p = *pp;
    double unused[NVAL];
    mmx_status s;
    for (uint64_t i = 0; i < el->count; i++) {
        const char *at = f->fmt == F_ASCII ? skip_space(p, f->src->end) : p;
        f->strip.n = 0;
        if ((s = read_one(ctx, f, el, &p, unused, &f->strip))) return s;
        const mmx_index *v = f->strip.a;
        size_t run = 0;
        for (size_t j = 0; j < f->strip.n; j++) {
            if (v[j] == -1) {
                run = 0;
                continue;
            }
            if (v[j] < 0 || v[j] >= f->nv)
                return f->fmt == F_ASCII
                           ? mmx__fail_line(ctx, MMX_ERR_MESH, f->src, at, "strip %llu: vertex index %d outside [0, %d)",
                                            (unsigned long long)i, v[j], f->nv)
                           : mmx__fail_byte(ctx, MMX_ERR_MESH, f->src, at, "strip %llu: vertex index %d outside [0, %d)",
                                            (unsigned long long)i, v[j], f->nv);
            if (++run < 3) continue;
            mmx_index a = v[j - 2], b = v[j - 1], c = v[j];
            if (a == b || b == c || a == c) continue;
            if (f->nf >= MMX_INDEX_MAX - 1 || f->fv.n + 3 > (size_t)MMX_INDEX_MAX)
                return mmx__fail_byte(ctx, MMX_ERR_OVERFLOW, f->src, at,
                                      "the strips make more triangles than 32-bit indices can count");
            if ((s = mmx__grow(ctx, (void **)&f->start, &f->start_cap, (size_t)f->nf + 2, sizeof *f->start)) ||
                (s = mmx__grow(ctx, (void **)&f->fv.a, &f->fv.cap, f->fv.n + 3, sizeof *f->fv.a)))
                return s;
            mmx_index *t = f->fv.a + f->fv.n;
            /* The 2nd, 4th... triangle of a run has its first two vertices swapped. */
            t[0] = run & 1 ? a : b;
            t[1] = run & 1 ? b : a;
            t[2] = c;
            f->fv.n += 3;
            f->start[++f->nf] = (mmx_index)f->fv.n;
        }
    }
    *pp = p;
    return MMX_OK;
}

static mmx_status skip_element(mmx_ctx *ctx, ply_file *f, const ply_elem *el, const char **pp)
{
    double unused[NVAL];
    mmx_status s;
    if (f->fmt != F_ASCII && !el->has_list) {
        /* The header check bounded count * fixed (= minsize here) by the file's size. */
        size_t bytes = (size_t)el->count * el->fixed;
        if (bytes > (size_t)(f->src->end - *pp))
            return mmx__fail_byte(ctx, MMX_ERR_PARSE, f->src, *pp,
                                  "the file ends inside the '%s' elements", el->name);
        *pp += bytes;
        return MMX_OK;
    }
    if (el->nprops == 0) return MMX_OK;
    for (uint64_t i = 0; i < el->count; i++)
        if ((s = read_one(ctx, f, el, pp, unused, NULL))) return s;
    return MMX_OK;
}

/* Where face `target` (of the face element) starts, walking the element again: the error path. */
static const char *face_at(mmx_ctx *ctx, ply_file *f, mmx_index target)
{
    const char *p = f->face->data;
    double unused[NVAL];
    for (mmx_index i = f->face_first; i < target; i++)
        if (read_one(ctx, f, f->face, &p, unused, NULL)) return NULL;
    return f->fmt == F_ASCII ? skip_space(p, f->src->end) : p;
}

mmx_status mmx__read_ply(mmx_ctx *ctx, const mmx__src *src, mmx_mesh **out)
{
    ply_file f;
    memset(&f, 0, sizeof f);
    f.src = src;
    mmx_status s = parse_header(ctx, &f);
    if (!s) {
        f.nv = (mmx_index)f.vertex->count;
        size_t nf = f.face ? (size_t)f.face->count : 0;
        /* Triangles are the common case; bounded by what the file can hold. */
        size_t guess = 3 * nf, left = (size_t)(src->end - f.body);
        if (guess > left) guess = left;
        f.fv.cap = guess;
        f.start_cap = nf + 1;
        s = mmx__host_alloc(ctx, 3 * (size_t)f.nv, sizeof *f.pos, (void **)&f.pos);
        if (!s && f.vertex->color)
            s = mmx__host_alloc(ctx, 3 * (size_t)f.nv + 1, sizeof *f.colors, (void **)&f.colors);
        if (!s) s = mmx__host_alloc(ctx, f.start_cap, sizeof *f.start, (void **)&f.start);
        if (!s) s = mmx__host_alloc(ctx, guess, sizeof *f.fv.a, (void **)&f.fv.a);
        if (!s) f.start[0] = 0;
    }
    const char *p = f.body;
    for (size_t i = 0; !s && i < f.nelems; i++) {
        ply_elem *el = &f.elems[i];
        el->data = p;
        s = el->kind == E_VERTEX ? read_vertices(ctx, &f, el, &p)
          : el->kind == E_FACE ? read_faces(ctx, &f, el, &p)
          : el->kind == E_STRIPS ? read_strips(ctx, &f, el, &p)
          : skip_element(ctx, &f, el, &p);
    }
    if (!s) {
        mmx_index bad = mmx__first_bad_face(f.start, f.fv.a, f.nf, f.nv);
        if (bad >= 0) {
            /* Strip triangles are checked as they are made, so a bad face is the face element's. */
            char why[200];
            mmx__face_problem(f.fv.a + f.start[bad], f.start[bad + 1] - f.start[bad], f.nv,
                              why, sizeof why);
            const char *at = face_at(ctx, &f, bad);
            s = !at ? mmx__fail(ctx, MMX_ERR_MESH, "%s: face %d: %s", src->name, bad, why)
              : f.fmt == F_ASCII ? mmx__fail_line(ctx, MMX_ERR_MESH, src, at, "face %d: %s", bad, why)
                                 : mmx__fail_byte(ctx, MMX_ERR_MESH, src, at, "face %d: %s", bad, why);
        }
    }
    if (s) {
        ply_free(&f);
        return s;
    }
    if (f.fv.cap > f.fv.n + f.fv.n / 8 + 64) {
        void *q = realloc(f.fv.a, (f.fv.n ? f.fv.n : 1) * sizeof *f.fv.a);
        if (q) f.fv.a = q;
    }
    mmx_index *start = f.start, *verts = f.fv.a;
    float *pos = f.pos;
    f.start = NULL;
    f.fv.a = NULL;
    float *colors = f.colors;
    f.pos = NULL;
    f.colors = NULL;
    ply_free(&f);
    s = mmx__mesh_adopt(ctx, f.nv, f.nf, start, verts, pos, NULL, 1, out);
    if (!s) (*out)->colors = colors;
    else free(colors);
    return s;
}
