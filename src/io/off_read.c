/* The OFF reader: an [ST][C][N]OFF header, the counts "nv nf [ne]" (on the header line or the
 * next), one vertex per line (x y z, then normals, colors or texture coordinates, skipped) and
 * one face per line (n, n 0-based indices, then an optional color, skipped). '#' starts a
 * comment anywhere; lines end in LF, CRLF or a lone CR. The counts are checked against the
 * bytes that follow before anything is allocated from them. Faces are checked once at the
 * end; the line of a bad face is found by parsing again up to it. */
#include <string.h>
#include "io_internal.h"

typedef struct off_out {
    float *pos;
    mmx_index nv, nf;
    mmx_index *start;
    mmx_index *verts;
    size_t verts_cap, nnz;
} off_out;

static void off_free(off_out *o)
{
    free(o->pos);
    free(o->start);
    free(o->verts);
    memset(o, 0, sizeof *o);
}

/* Skips blanks inside a line (a CR is a line break, not a blank). */
static inline const char *skip_blanks(const char *p, const char *end)
{
    while (p < end && mmx__is_blank(*p)) p++;
    return p;
}

static inline int off_delim(const char *p, const char *end)
{
    return mmx__ends_token(p, end) || *p == '#';
}

static inline int off_eol(const char *p, const char *end)
{
    return p == end || mmx__is_break(*p) || *p == '#';
}

/* Past the end of the line at p. */
static inline const char *next_line(const char *p, const char *end)
{
    return mmx__next_line(p, end);
}

/* The first byte of the next line with content (skipping blank and comment lines), or end. */
static const char *next_content(const char *p, const char *end)
{
    for (;;) {
        p = skip_blanks(p, end);
        if (p < end && (mmx__is_break(*p) || *p == '#')) {
            p = next_line(p, end);
            continue;
        }
        return p;
    }
}

/* Skips the numbers that may follow on a line (normals, colors); refuses anything else.
 * *counted is set when there was one. */
static mmx_status skip_numbers(mmx_ctx *ctx, const mmx__src *src, const char **pp, int *counted)
{
    const char *p = *pp, *end = src->end;
    char tok[48];
    double unused;
    for (;;) {
        p = skip_blanks(p, end);
        if (off_eol(p, end)) break;
        const char *t = p;
        if (!mmx__lex_double(&p, end, &unused) || !off_delim(p, end))
            return mmx__fail_line(ctx, MMX_ERR_PARSE, src, t, "expected a number, found %s",
                                  mmx__quote(t, end, tok, sizeof tok));
        *counted = 1;
    }
    *pp = next_line(p, end);
    return MMX_OK;
}

/* The header and the counts; leaves *pp at the first vertex line. */
static mmx_status off_header(mmx_ctx *ctx, const mmx__src *src, const char **pp, int64_t *nv,
                             int64_t *nf)
{
    const char *p = *pp, *end = src->end;
    char tok[48];
    if (end - p >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0) p += 3;
    p = next_content(p, end);
    const char *kw = p;
    while (!off_delim(p, end)) p++;
    size_t klen = (size_t)(p - kw);
    if (klen < 3 || memcmp(p - 3, "OFF", 3) != 0)
        return mmx__fail_line(ctx, MMX_ERR_PARSE, src, kw,
                              "not an OFF file: expected the header OFF (or COFF, NOFF, CNOFF, "
                              "STOFF...), found %s", mmx__quote(kw, end, tok, sizeof tok));
    /* The prefix letters say which extra values follow x y z on vertex lines; those are skipped
     * whatever they are. 4OFF and nOFF change the vertex dimension, which is not supported. */
    for (const char *c = kw; c < p - 3; c++) {
        if (*c == '4' || *c == 'n')
            return mmx__fail_line(ctx, MMX_ERR_UNSUPPORTED, src, kw,
                                  "%s: 4D and n-dimensional OFF vertices are not supported",
                                  mmx__quote(kw, end, tok, sizeof tok));
        if (!strchr("STCN", *c))
            return mmx__fail_line(ctx, MMX_ERR_PARSE, src, kw, "unknown OFF header %s",
                                  mmx__quote(kw, end, tok, sizeof tok));
    }
    /* What the prefixes announce is read past, not kept: counted for the caller's warning
     * once the vertex count is known. */
    int has_st = 0, has_c = 0, has_n = 0;
    for (const char *c = kw; c < p - 3; c++) {
        has_st |= *c == 'S' || *c == 'T';
        has_c |= *c == 'C';
        has_n |= *c == 'N';
    }
    p = skip_blanks(p, end);
    if (end - p >= 6 && memcmp(p, "BINARY", 6) == 0 && off_delim(p + 6, end))
        return mmx__fail_line(ctx, MMX_ERR_UNSUPPORTED, src, p, "binary OFF is not supported");
    if (off_eol(p, end)) p = next_content(next_line(p, end), end);
    /* nv nf [ne] on one line; ne is not used. */
    int64_t c[3] = {0, 0, 0};
    int n = 0;
    const char *line = p;
    for (;;) {
        p = skip_blanks(p, end);
        if (off_eol(p, end)) break;
        const char *t = p;
        if (n == 3 || !mmx__lex_int(&p, end, &c[n]) || !off_delim(p, end))
            return mmx__fail_line(ctx, MMX_ERR_PARSE, src, t,
                                  "expected the counts 'vertices faces [edges]', found %s",
                                  mmx__quote(t, end, tok, sizeof tok));
        if (c[n] < 0)
            return mmx__fail_line(ctx, MMX_ERR_PARSE, src, t, "negative count %s",
                                  mmx__int_text(t, end, tok, sizeof tok));
        n++;
    }
    if (n < 2)
        return mmx__fail_line(ctx, MMX_ERR_PARSE, src, line,
                              "expected the counts 'vertices faces [edges]', found %s",
                              mmx__quote(p, end, tok, sizeof tok));
    if (c[0] >= MMX__LEX_INT_SAT || c[1] >= MMX__LEX_INT_SAT)
        return mmx__fail_line(ctx, MMX_ERR_OVERFLOW, src, line, "counts too large: %s",
                              mmx__quote(line, end, tok, sizeof tok));
    p = next_line(p, end);
    /* Before allocating: a vertex line takes at least 6 bytes ("0 0 0\n"), a face line 8
     * ("3 0 1 2\n"), the last line one less without its newline. */
    uint64_t left = (uint64_t)(end - p);
    if ((uint64_t)c[0] > left || (uint64_t)c[0] * 6 > left + 1)
        return mmx__fail_line(ctx, MMX_ERR_PARSE, src, line,
                              "header announces %lld vertices but only %llu bytes follow",
                              (long long)c[0], (unsigned long long)left);
    if ((uint64_t)c[1] > left || (uint64_t)c[0] * 6 + (uint64_t)c[1] * 8 > left + 1)
        return mmx__fail_line(ctx, MMX_ERR_PARSE, src, line,
                              "header announces %lld vertices and %lld faces but only %llu bytes follow",
                              (long long)c[0], (long long)c[1], (unsigned long long)left);
    if (c[0] > MMX_INDEX_MAX || c[1] >= MMX_INDEX_MAX)
        return mmx__fail_line(ctx, MMX_ERR_OVERFLOW, src, line,
                              "%lld vertices and %lld faces do not fit 32-bit indices",
                              (long long)c[0], (long long)c[1]);
    *nv = c[0];
    *nf = c[1];
    src->info->texcoords = has_st ? c[0] : 0;
    src->info->colors = has_c ? c[0] : 0;
    src->info->normals = has_n ? c[0] : 0;
    *pp = p;
    return MMX_OK;
}

static mmx_status off_vertices(mmx_ctx *ctx, const mmx__src *src, off_out *o, const char **pp)
{
    const char *p = *pp, *end = src->end;
    char tok[48], why[200];
    for (mmx_index v = 0; v < o->nv; v++) {
        p = next_content(p, end);
        if (p == end)
            return mmx__fail_line(ctx, MMX_ERR_PARSE, src, p,
                                  "the file ends after %d of %d vertices", v, o->nv);
        const char *line = p;
        double d[3];
        for (int k = 0; k < 3; k++) {
            p = skip_blanks(p, end);
            const char *t = p;
            if (mmx__lex_double(&p, end, &d[k]) && off_delim(p, end)) continue;
            if (off_eol(t, end))
                return mmx__fail_line(ctx, MMX_ERR_PARSE, src, line,
                                      "vertex %d has %d coordinate%s, 3 needed", v, k, k == 1 ? "" : "s");
            return mmx__fail_line(ctx, MMX_ERR_PARSE, src, t, "vertex %d: expected a coordinate, found %s",
                                  v, mmx__quote(t, end, tok, sizeof tok));
        }
        if (mmx__store_coords(d, o->pos + 3 * (size_t)v, why, sizeof why))
            return mmx__fail_line(ctx, MMX_ERR_MESH, src, line, "vertex %d: %s", v, why);
        int extra = 0;
        mmx_status s = skip_numbers(ctx, src, &p, &extra);
        if (s) return s;
    }
    *pp = p;
    return MMX_OK;
}

static mmx_status off_faces(mmx_ctx *ctx, const mmx__src *src, off_out *o, const char **pp,
                            mmx_index find_face, const char **found)
{
    const char *p = *pp, *end = src->end;
    char tok[48];
    mmx_status s;
    o->start[0] = 0;
    for (mmx_index f = 0; f < o->nf; f++) {
        p = next_content(p, end);
        if (p == end)
            return mmx__fail_line(ctx, MMX_ERR_PARSE, src, p, "the file ends after %d of %d faces",
                                  f, o->nf);
        if (f == find_face) {
            *found = p;
            return MMX_OK;
        }
        const char *line = p;
        int64_t n;
        if (!mmx__lex_int(&p, end, &n) || !off_delim(p, end))
            return mmx__fail_line(ctx, MMX_ERR_PARSE, src, line,
                                  "face %d: expected the number of vertices, found %s", f,
                                  mmx__quote(line, end, tok, sizeof tok));
        if (n < 0)
            return mmx__fail_line(ctx, MMX_ERR_PARSE, src, line,
                                  "face %d: the vertex count %s is negative", f,
                                  mmx__int_text(line, end, tok, sizeof tok));
        /* Each index takes at least two bytes, which bounds n by what is left. */
        if ((uint64_t)n > (uint64_t)(end - p) / 2)
            return mmx__fail_line(ctx, MMX_ERR_PARSE, src, line,
                                  "face %d announces %s vertices but the file ends before "
                                  "that many", f, mmx__int_text(line, end, tok, sizeof tok));
        if ((uint64_t)o->nnz + (uint64_t)n > (uint64_t)MMX_INDEX_MAX)
            return mmx__fail_line(ctx, MMX_ERR_OVERFLOW, src, line,
                                  "more than %d face corners do not fit 32-bit indices", MMX_INDEX_MAX);
        if (o->nnz + (size_t)n > o->verts_cap &&
            (s = mmx__grow(ctx, (void **)&o->verts, &o->verts_cap, o->nnz + (size_t)n, sizeof *o->verts)))
            return s;
        for (int64_t k = 0; k < n; k++) {
            p = skip_blanks(p, end);
            const char *t = p;
            int64_t iv;
            if (!mmx__lex_int(&p, end, &iv) || !off_delim(p, end)) {
                if (off_eol(t, end))
                    return mmx__fail_line(ctx, MMX_ERR_PARSE, src, line,
                                          "face %d announces %lld vertices but the line has %lld",
                                          f, (long long)n, (long long)k);
                return mmx__fail_line(ctx, MMX_ERR_PARSE, src, t,
                                      "face %d: expected a vertex index, found %s", f,
                                      mmx__quote(t, end, tok, sizeof tok));
            }
            if (iv < 0 || iv >= o->nv)
                return mmx__fail_line(ctx, MMX_ERR_MESH, src, t,
                                      "face %d: vertex index %s outside [0, %d)", f,
                                      mmx__int_text(t, end, tok, sizeof tok), o->nv);
            o->verts[o->nnz++] = (mmx_index)iv;
        }
        int color = 0;
        if ((s = skip_numbers(ctx, src, &p, &color))) return s; /* a face color */
        src->info->colors += color;
        o->start[f + 1] = (mmx_index)o->nnz;
    }
    *pp = p;
    return MMX_OK;
}

/* Parses the input into o; with find_face >= 0 stops at that face's line (see obj_read.c). */
static mmx_status off_parse(mmx_ctx *ctx, const mmx__src *src, off_out *o, mmx_index find_face,
                            const char **found)
{
    const char *p = src->base;
    int64_t nv = 0, nf = 0;
    mmx_status s = off_header(ctx, src, &p, &nv, &nf);
    if (s) return s;
    o->nv = (mmx_index)nv;
    o->nf = (mmx_index)nf;
    /* Triangles are the common case; more room is made as needed. */
    size_t guess = 3 * (size_t)nf;
    if (guess > (size_t)(src->end - p) / 2) guess = (size_t)(src->end - p) / 2;
    o->verts_cap = guess;
    if ((s = mmx__host_alloc(ctx, 3 * (size_t)nv, sizeof *o->pos, (void **)&o->pos)) ||
        (s = mmx__host_alloc(ctx, (size_t)nf + 1, sizeof *o->start, (void **)&o->start)) ||
        (s = mmx__host_alloc(ctx, guess, sizeof *o->verts, (void **)&o->verts)))
        return s;
    if ((s = off_vertices(ctx, src, o, &p))) return s;
    return off_faces(ctx, src, o, &p, find_face, found);
}

mmx_status mmx__read_off(mmx_ctx *ctx, const mmx__src *src, mmx_mesh **out)
{
    off_out o = {0};
    mmx_status s = off_parse(ctx, src, &o, -1, NULL);
    if (!s) {
        /* Indices were range-checked while reading; order and repeats are checked here. */
        mmx_index bad = mmx__first_bad_face(o.start, o.verts, o.nf, o.nv);
        if (bad >= 0) {
            char why[200];
            mmx__face_problem(o.verts + o.start[bad], o.start[bad + 1] - o.start[bad], o.nv,
                              why, sizeof why);
            off_out again = {0};
            const char *at = NULL;
            s = off_parse(ctx, src, &again, bad, &at);
            off_free(&again);
            s = (s || !at) ? mmx__fail(ctx, MMX_ERR_MESH, "%s: face %d: %s", src->name, bad, why)
                           : mmx__fail_line(ctx, MMX_ERR_MESH, src, at, "face %d: %s", bad, why);
        }
    }
    if (s) {
        off_free(&o);
        return s;
    }
    return mmx__mesh_adopt(ctx, o.nv, o.nf, o.start, o.verts, o.pos, NULL, 1, out);
}
