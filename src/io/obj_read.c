/* The Wavefront OBJ reader: v and f statements into positions and face lists, OpenSubdiv 't'
 * statements kept verbatim, everything else skipped.
 *
 * One pass over the bytes. Relative (negative) indices are resolved when read; positive ones
 * may name vertices defined later in the file, so faces are checked once at the end, and only
 * when that check fails is the file parsed again up to the bad face to name its line. That
 * keeps line counting out of the fast path. A backslash at the end of a statement line
 * continues the statement on the next line (not in comments). Lines end in LF, CRLF or a lone
 * CR (files from classic Mac OS tools), so a CR is never a blank inside a statement. */
#include <stdio.h>
#include <string.h>
#include "io_internal.h"

typedef struct obj_out {
    float *pos;
    size_t pos_cap;      /* floats */
    mmx_index nv;
    mmx_index *start;
    size_t start_cap;
    mmx_index nf;
    mmx_index *verts;
    size_t verts_cap;
    size_t nnz;
    char *tags;
    size_t tags_cap, tags_len;
    const char **tag_at; /* where each 't' statement starts, for a message naming its line */
    size_t ntags, tag_at_cap;
    float *col;          /* "v x y z r g b" colors, while every vertex so far has them */
    size_t col_cap;      /* floats */
    int col_partial;     /* a vertex without one came: no colors (col freed) */
    int64_t ncolored;    /* vertices with colors, for mmx_read_info when they are not kept */
    float *uv;           /* the 'vt' lines: u, v */
    size_t uv_cap;       /* floats */
    mmx_index nvt;
    mmx_index *vt;       /* per corner: its texture coordinate (0-based), while every corner
                            so far has one */
    size_t vt_cap;
    int vt_partial;      /* a corner without one came: no set (vt freed, no longer kept) */
    int64_t vt_max;      /* the largest texture coordinate index named (0-based), -1 if none */
    mmx_index vt_max_face; /* the face that names it */
} obj_out;

static void obj_free(obj_out *o)
{
    free(o->pos);
    free(o->start);
    free(o->verts);
    free(o->tags);
    free(o->tag_at);
    free(o->uv);
    free(o->vt);
    free(o->col);
    memset(o, 0, sizeof *o);
}

/* A backslash right before a line break: a continuation. */
static inline int is_continuation(const char *p, const char *end)
{
    return p + 1 < end && *p == '\\' && mmx__is_break(p[1]);
}

/* Skips blanks inside a statement, and continuations onto the next line. */
static inline const char *skip_blanks(const char *p, const char *end)
{
    for (;;) {
        while (p < end && mmx__is_blank(*p)) p++;
        if (!is_continuation(p, end)) return p;
        p = mmx__past_break(p + 1, end);
    }
}

/* Whether a token may end at p: a separator, a comment, a continuation or the end. */
static inline int obj_delim(const char *p, const char *end)
{
    return mmx__ends_token(p, end) || *p == '#' || is_continuation(p, end);
}

/* The end of a statement (after skip_blanks): end of file, line break or comment. */
static inline int obj_eos(const char *p, const char *end)
{
    return p == end || mmx__is_break(*p) || *p == '#';
}

/* Moves past the end of the statement at p (where obj_eos holds). */
static inline const char *next_line(const char *p, const char *end)
{
    return mmx__next_line(p, end);
}

/* The line break (or end) that ends the statement containing p, following continuations. */
static const char *statement_end(const char *p, const char *end)
{
    for (;;) {
        const char *q = mmx__find_break(p, end);
        if (q == end) return end;
        if (q > p && q[-1] == '\\') {
            p = mmx__past_break(q, end);
            continue;
        }
        return q;
    }
}

/* Appends the 't' statement [p, e) to the tags, joining continuation lines with a space. */
static mmx_status add_tag(mmx_ctx *ctx, obj_out *o, const char *p, const char *e)
{
    mmx_status s = mmx__grow(ctx, (void **)&o->tags, &o->tags_cap,
                             o->tags_len + (size_t)(e - p) + 2, 1);
    if (s) return s;
    char *t = o->tags + o->tags_len;
    while (p < e) {
        if (is_continuation(p, e)) {
            *t++ = ' ';
            p = mmx__past_break(p + 1, e);
            continue;
        }
        *t++ = *p++;
    }
    /* Every break inside [p, e) followed a backslash, so the tag is one line now. */
    *t++ = '\n';
    *t = '\0';
    o->tags_len = (size_t)(t - o->tags);
    return MMX_OK;
}

static mmx_status obj_vertex(mmx_ctx *ctx, const mmx__src *src, obj_out *o, const char *kw,
                             const char **pp)
{
    const char *p = *pp, *end = src->end;
    char tok[48], why[200];
    double d[3], extra[3];
    for (int k = 0; k < 3; k++) {
        p = skip_blanks(p, end);
        const char *t = p;
        if (mmx__lex_double(&p, end, &d[k]) && obj_delim(p, end)) continue;
        if (obj_eos(t, end))
            return mmx__fail_line(ctx, MMX_ERR_PARSE, src, kw,
                                  "vertex line has %d coordinate%s, 3 needed", k, k == 1 ? "" : "s");
        return mmx__fail_line(ctx, MMX_ERR_PARSE, src, t, "expected a coordinate, found %s",
                              mmx__quote(t, end, tok, sizeof tok));
    }
    /* w, or the colors some exporters append ("v x y z r g b"): read as numbers, not kept. */
    int extra_n = 0;
    for (;; extra_n++) {
        p = skip_blanks(p, end);
        if (obj_eos(p, end)) break;
        const char *t = p;
        if (!mmx__lex_double(&p, end, &extra[extra_n < 3 ? extra_n : 2]) || !obj_delim(p, end))
            return mmx__fail_line(ctx, MMX_ERR_PARSE, src, t, "expected a number, found %s",
                                  mmx__quote(t, end, tok, sizeof tok));
    }
    /* Colors are kept when every vertex has exactly r g b (finite); else counted. */
    float rgb[3];
    char cwhy[8];
    const int colored = extra_n == 3 && !mmx__store_coords(extra, rgb, cwhy, sizeof cwhy);
    if (extra_n >= 3) o->ncolored++;
    if (!o->col_partial && colored && (int64_t)o->nv + 1 == o->ncolored) {
        mmx_status s = mmx__grow(ctx, (void **)&o->col, &o->col_cap, 3 * (size_t)o->nv + 3, sizeof *o->col);
        if (s) return s;
        memcpy(o->col + 3 * (size_t)o->nv, rgb, sizeof rgb);
    } else if (!o->col_partial && (colored || o->ncolored > 0)) {
        o->col_partial = 1;
        free(o->col);
        o->col = NULL, o->col_cap = 0;
    }
    if (o->nv == MMX_INDEX_MAX)
        return mmx__fail_line(ctx, MMX_ERR_OVERFLOW, src, kw,
                              "more than %d vertices do not fit 32-bit indices", MMX_INDEX_MAX);
    if (3 * (size_t)o->nv + 3 > o->pos_cap) {
        mmx_status s = mmx__grow(ctx, (void **)&o->pos, &o->pos_cap, 3 * (size_t)o->nv + 3,
                                 sizeof *o->pos);
        if (s) return s;
    }
    if (mmx__store_coords(d, o->pos + 3 * (size_t)o->nv, why, sizeof why))
        return mmx__fail_line(ctx, MMX_ERR_MESH, src, kw, "vertex %d: %s", o->nv, why);
    o->nv++;
    *pp = next_line(p, end);
    return MMX_OK;
}

/* A texture coordinate line, "vt u [v [w]]": u and v kept (v 0 when absent), w ignored. */
static mmx_status obj_texcoord(mmx_ctx *ctx, const mmx__src *src, obj_out *o, const char *kw,
                               const char **pp)
{
    const char *p = *pp, *end = src->end;
    char tok[48];
    double d[3] = {0.0, 0.0, 0.0};
    int k = 0;
    for (;; k++) {
        p = skip_blanks(p, end);
        if (obj_eos(p, end)) break;
        const char *t = p;
        if (k == 3 || !mmx__lex_double(&p, end, &d[k]) || !obj_delim(p, end))
            return mmx__fail_line(ctx, MMX_ERR_PARSE, src, t,
                                  "expected 1 to 3 texture coordinates, found %s",
                                  mmx__quote(t, end, tok, sizeof tok));
    }
    if (k == 0) return mmx__fail_line(ctx, MMX_ERR_PARSE, src, kw, "vt line without coordinates");
    /* As floats, as they are stored: a value too large for a float is refused, not made inf. */
    float f[3];
    char why[120];
    if (mmx__store_coords(d, f, why, sizeof why))
        return mmx__fail_line(ctx, MMX_ERR_MESH, src, kw, "texture coordinate %d: %s", o->nvt, why);
    if (o->nvt == MMX_INDEX_MAX)
        return mmx__fail_line(ctx, MMX_ERR_OVERFLOW, src, kw,
                              "more than %d texture coordinates do not fit 32-bit indices", MMX_INDEX_MAX);
    mmx_status s = MMX_OK;
    if (2 * (size_t)o->nvt + 2 > o->uv_cap)
        s = mmx__grow(ctx, (void **)&o->uv, &o->uv_cap, 2 * (size_t)o->nvt + 2, sizeof *o->uv);
    if (s) return s;
    o->uv[2 * (size_t)o->nvt] = f[0];
    o->uv[2 * (size_t)o->nvt + 1] = f[1];
    o->nvt++;
    *pp = next_line(p, end);
    return MMX_OK;
}

/* One index item v, v/vt, v//vn or v/vt/vn: *iv the vertex, *it the texture coordinate and
 * *has_t whether there is one; the normal index is checked for syntax only. Returns 0 on
 * malformed input. */
static inline int obj_item(const char **pp, const char *end, int64_t *iv, int64_t *it, int *has_t)
{
    const char *p = *pp;
    int64_t unused;
    *it = 0;
    *has_t = 0;
    if (!mmx__lex_int(&p, end, iv)) return 0;
    if (p < end && *p == '/') {
        p++;
        if (p < end && *p == '/') {
            p++;
            if (!mmx__lex_int(&p, end, &unused)) return 0;
        } else {
            if (!mmx__lex_int(&p, end, it)) return 0;
            *has_t = 1;
            if (p < end && *p == '/') {
                p++;
                if (!mmx__lex_int(&p, end, &unused)) return 0;
            }
        }
    }
    if (!obj_delim(p, end)) return 0;
    *pp = p;
    return 1;
}

static mmx_status obj_face(mmx_ctx *ctx, const mmx__src *src, obj_out *o, const char *kw,
                           const char **pp)
{
    const char *p = *pp, *end = src->end;
    char tok[48];
    mmx_status s;
    if (o->nf >= MMX_INDEX_MAX - 1)
        return mmx__fail_line(ctx, MMX_ERR_OVERFLOW, src, kw,
                              "more than %d faces do not fit 32-bit indices", MMX_INDEX_MAX - 1);
    if ((size_t)o->nf + 2 > o->start_cap &&
        (s = mmx__grow(ctx, (void **)&o->start, &o->start_cap, (size_t)o->nf + 2, sizeof *o->start)))
        return s;
    for (;;) {
        p = skip_blanks(p, end);
        if (obj_eos(p, end)) break;
        const char *t = p;
        int64_t iv, it;
        int has_t;
        if (!obj_item(&p, end, &iv, &it, &has_t))
            return mmx__fail_line(ctx, MMX_ERR_PARSE, src, t,
                                  "expected a vertex index (v, v/vt, v//vn or v/vt/vn), found %s",
                                  mmx__quote(t, end, tok, sizeof tok));
        int64_t idx = iv > 0 ? iv - 1 : (int64_t)o->nv + iv;
        if (iv == 0)
            return mmx__fail_line(ctx, MMX_ERR_MESH, src, t,
                                  "face %d: vertex index 0 is invalid (OBJ indices start at 1)", o->nf);
        /* The index as written: a huge one was saturated by the lexer. */
        if (idx < 0)
            return mmx__fail_line(ctx, MMX_ERR_MESH, src, t,
                                  "face %d: relative vertex index %s reaches before the first "
                                  "vertex (%d vertices so far)", o->nf,
                                  mmx__int_text(t, end, tok, sizeof tok), o->nv);
        if (idx >= MMX_INDEX_MAX)
            return mmx__fail_line(ctx, MMX_ERR_MESH, src, t,
                                  "face %d: vertex index %s is out of range (too large for 32-bit "
                                  "indices)", o->nf, mmx__int_text(t, end, tok, sizeof tok));
        if (o->nnz == (size_t)MMX_INDEX_MAX)
            return mmx__fail_line(ctx, MMX_ERR_OVERFLOW, src, kw,
                                  "more than %d face corners do not fit 32-bit indices", MMX_INDEX_MAX);
        if (o->nnz == o->verts_cap &&
            (s = mmx__grow(ctx, (void **)&o->verts, &o->verts_cap, o->nnz + 1, sizeof *o->verts)))
            return s;
        /* The texture coordinate: relative ones count back from the 'vt' lines so far; the
         * range of the others is checked at the end (they may come later in the file). A bad
         * one is refused like a bad vertex index; a corner without one means no set (counted). */
        if (has_t && it == 0)
            return mmx__fail_line(ctx, MMX_ERR_MESH, src, t, "face %d: texture coordinate index 0 "
                                  "is invalid (OBJ indices start at 1)", o->nf);
        int64_t ti = it > 0 ? it - 1 : it < 0 ? (int64_t)o->nvt + it : -1;
        if (it < 0 && ti < 0)
            return mmx__fail_line(ctx, MMX_ERR_MESH, src, t, "face %d: relative texture coordinate "
                                  "index %lld reaches before the first 'vt' line (%d so far)", o->nf,
                                  (long long)it, o->nvt);
        if (ti >= MMX_INDEX_MAX)
            return mmx__fail_line(ctx, MMX_ERR_MESH, src, t, "face %d: texture coordinate index "
                                  "%lld is out of range (too large for 32-bit indices)", o->nf,
                                  (long long)it);
        if (ti > o->vt_max) o->vt_max = ti, o->vt_max_face = o->nf;
        if (!o->vt_partial && !has_t) { /* a file without 'v/vt' corners stops at its first */
            o->vt_partial = 1;
            free(o->vt);
            o->vt = NULL, o->vt_cap = 0;
        } else if (!o->vt_partial) {
            if (o->nnz >= o->vt_cap &&
                (s = mmx__grow(ctx, (void **)&o->vt, &o->vt_cap, o->nnz + 1, sizeof *o->vt)))
                return s;
            o->vt[o->nnz] = (mmx_index)ti;
        }
        o->verts[o->nnz++] = (mmx_index)idx;
    }
    o->nf++;
    o->start[o->nf] = (mmx_index)o->nnz;
    *pp = next_line(p, end);
    return MMX_OK;
}

/* Parses the whole input into o. With find_face >= 0 it stops at the start of that face's
 * statement and stores it in *found (the error path's way to name a line). */
static mmx_status obj_parse(mmx_ctx *ctx, const mmx__src *src, obj_out *o, mmx_index find_face,
                            const char **found)
{
    const char *p = src->base, *end = src->end;
    char tok[48];
    o->vt_max = -1;
    /* Both arrays exist from the start, so even an empty face list has a base pointer. */
    mmx_status s = mmx__grow(ctx, (void **)&o->start, &o->start_cap, 1024, sizeof *o->start);
    if (!s) s = mmx__grow(ctx, (void **)&o->verts, &o->verts_cap, 3072, sizeof *o->verts);
    if (s) return s;
    o->start[0] = 0;
    if (end - p >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0) p += 3; /* a UTF-8 byte order mark */
    while (p < end) {
        p = skip_blanks(p, end);
        if (p == end) break;
        if (mmx__is_break(*p) || *p == '#') {
            p = next_line(p, end);
            continue;
        }
        const char *kw = p, *q = p + 1;
        while (!obj_delim(q, end)) q++;
        if (q - kw == 1 && *kw == 'v') {
            s = obj_vertex(ctx, src, o, kw, &q);
        } else if (q - kw == 1 && *kw == 'f') {
            if (o->nf == find_face) {
                *found = kw;
                return MMX_OK;
            }
            s = obj_face(ctx, src, o, kw, &q);
        } else if (q - kw == 2 && kw[0] == 'v' && kw[1] == 't') {
            s = obj_texcoord(ctx, src, o, kw, &q);
        } else if (q - kw == 1 && *kw == 't') {
            const char *e = statement_end(kw, end);
            s = add_tag(ctx, o, kw, e);
            if (!s) s = mmx__grow(ctx, (void **)&o->tag_at, &o->tag_at_cap, o->ntags + 1,
                                  sizeof *o->tag_at);
            if (!s) o->tag_at[o->ntags++] = kw;
            q = e < end ? mmx__past_break(e, end) : end;
        } else {
            /* vn, vp, g, o, s, usemtl, mtllib, l, p and anything unknown: skipped, counted for
             * the caller's warning. A keyword of control or non-ASCII bytes is no statement:
             * binary data read as OBJ (standard input falls back to OBJ) is refused here. */
            for (const char *c = kw; c < q; c++)
                if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
                    return mmx__fail_line(ctx, MMX_ERR_PARSE, src, kw, "not an OBJ statement: %s "
                                          "holds a byte 0x%02x (binary data?)",
                                          mmx__quote(kw, end, tok, sizeof tok), (unsigned char)*c);
            mmx_read_info *info = src->info;
            size_t n = (size_t)(q - kw);
            if (n == 2 && memcmp(kw, "vn", 2) == 0) info->normals++;
            else if (n == 1 && (*kw == 'g' || *kw == 'o')) info->groups++;
            else if ((n == 6 && memcmp(kw, "usemtl", 6) == 0) || (n == 6 && memcmp(kw, "mtllib", 6) == 0))
                info->materials++;
            else info->other++;
            const char *e = statement_end(kw, end);
            q = e < end ? mmx__past_break(e, end) : end;
        }
        if (s) return s;
        p = q;
    }
    return MMX_OK;
}

/* Names the line of face f, which failed the final check. */
static mmx_status report_face(mmx_ctx *ctx, const mmx__src *src, const obj_out *o, mmx_index f)
{
    char why[200];
    const mmx_index *v = o->verts + o->start[f];
    mmx_index n = o->start[f + 1] - o->start[f];
    mmx__face_problem(v, n, o->nv, why, sizeof why);
    /* The message's vertex numbers are 0-based; say so, and give the count for a range error. */
    int range = 0;
    for (mmx_index k = 0; k < n; k++) range |= v[k] >= o->nv;
    char total[96] = "";
    if (range)
        snprintf(total, sizeof total, " (0-based; OBJ counts from 1 and the file has %d vertices)", o->nv);
    else if (n >= 3)
        snprintf(total, sizeof total, " (0-based; OBJ counts from 1)");
    obj_out again = {0};
    const char *at = NULL;
    mmx_status s = obj_parse(ctx, src, &again, f, &at);
    obj_free(&again);
    if (s || !at)
        return mmx__fail(ctx, MMX_ERR_MESH, "%s: face %d: %s%s", src->name, f, why, total);
    return mmx__fail_line(ctx, MMX_ERR_MESH, src, at, "face %d: %s%s", f, why, total);
}

/* The corners' texture coordinates as the mesh's uv (every corner has one: checked as read,
 * and their range at the end). */
static mmx_status texcoords(mmx_ctx *ctx, const mmx__src *src, obj_out *o, mmx_mesh_uv **out)
{
    *out = NULL;
    mmx_mesh_uv *uv = calloc(1, sizeof *uv);
    if (!uv) return mmx__fail(ctx, MMX_ERR_NOMEM, "%s: out of host memory", src->name);
    uv->nvalues = o->nvt, uv->values = o->uv, uv->index = o->vt;
    o->uv = NULL, o->vt = NULL;
    *out = uv;
    return MMX_OK;
}

/* The tags are checked where the file is read, so that a bad one is refused with the file's
 * line (the tags' own numbering counts 't' lines only) and never copied on by a writer. On
 * failure the mesh is freed. */
static mmx_status check_tags(mmx_ctx *ctx, const mmx__src *src, const char *const *tag_at,
                             size_t ntags, mmx_mesh **mesh)
{
    mmx_mesh_tags *tags = NULL;
    int line = 0;
    mmx_status s = mmx__mesh_tags_parse(ctx, *mesh, &tags, &line);
    mmx_mesh_tags_free(tags);
    if (!s) return MMX_OK;
    mmx_mesh_free(*mesh);
    *mesh = NULL;
    if (line < 1 || (size_t)line > ntags) return s;
    /* "tags line K: WHY" becomes "NAME:LINE: tag: WHY". */
    char why[MMX__ERRLEN];
    const char *err = mmx_ctx_error(ctx), *colon = strstr(err, ": ");
    snprintf(why, sizeof why, "%s", colon ? colon + 2 : err);
    return mmx__fail_line(ctx, s, src, tag_at[line - 1], "tag: %s", why);
}

/* Names the line of face f, which names texture coordinate o->vt_max beyond the 'vt' lines. */
static mmx_status report_vt(mmx_ctx *ctx, const mmx__src *src, const obj_out *o)
{
    char why[160];
    snprintf(why, sizeof why, "texture coordinate index %lld is out of range (the file has %d "
             "'vt' lines)", (long long)o->vt_max + 1, o->nvt);
    obj_out again = {0};
    const char *at = NULL;
    mmx_status s = obj_parse(ctx, src, &again, o->vt_max_face, &at);
    obj_free(&again);
    if (s || !at) return mmx__fail(ctx, MMX_ERR_MESH, "%s: face %d: %s", src->name, o->vt_max_face, why);
    return mmx__fail_line(ctx, MMX_ERR_MESH, src, at, "face %d: %s", o->vt_max_face, why);
}

mmx_status mmx__read_obj(mmx_ctx *ctx, const mmx__src *src, mmx_mesh **out)
{
    obj_out o = {0};
    mmx_status s = obj_parse(ctx, src, &o, -1, NULL);
    /* A file without 'v' lines is the empty mesh when it has no faces either (io.h); a face
     * then names a missing vertex, which the check below refuses. */
    if (!s) {
        mmx_index bad = mmx__first_bad_face(o.start, o.verts, o.nf, o.nv);
        if (bad >= 0) s = report_face(ctx, src, &o, bad);
    }
    if (!s && o.vt_max >= o.nvt) s = report_vt(ctx, src, &o);
    if (s) {
        obj_free(&o);
        return s;
    }
    /* Give back the slack of geometric growth; a failed shrink keeps the larger block. */
    if (o.verts_cap > o.nnz + o.nnz / 8 + 64) {
        void *q = realloc(o.verts, (o.nnz ? o.nnz : 1) * sizeof *o.verts);
        if (q) o.verts = q;
    }
    if (o.pos_cap > 3 * (size_t)o.nv + (size_t)o.nv / 4 + 192) {
        void *q = realloc(o.pos, 3 * (size_t)(o.nv ? o.nv : 1) * sizeof *o.pos);
        if (q) o.pos = q;
    }
    /* Texture coordinates: kept where every face has them (io.h); else counted as left out. */
    mmx_mesh_uv *uv = NULL;
    if (!o.vt_partial && o.nnz > 0) s = texcoords(ctx, src, &o, &uv);
    else if (o.nvt > 0) src->info->texcoords += o.nvt;
    if (s) {
        obj_free(&o);
        return s;
    }
    free(o.vt), free(o.uv);
    if (!o.pos && (s = mmx__host_alloc(ctx, 3, sizeof *o.pos, (void **)&o.pos))) {
        mmx_mesh_uv_free(uv);
        obj_free(&o);
        return s;
    }
    float *col = NULL;
    if (o.col && !o.col_partial && o.ncolored == o.nv && o.nv > 0) col = o.col, o.col = NULL;
    else src->info->colors += o.ncolored;
    free(o.col);
    s = mmx__mesh_adopt(ctx, o.nv, o.nf, o.start, o.verts, o.pos, o.tags, 1, out);
    if (!s) (*out)->uv = uv, (*out)->colors = col;
    else mmx_mesh_uv_free(uv), free(col);
    if (!s && (*out)->tags) s = check_tags(ctx, src, o.tag_at, o.ntags, out);
    free(o.tag_at);
    return s;
}

mmx_status mmx__read_obj_faces(mmx_ctx *ctx, const mmx__src *src, mmx_faces **out)
{
    obj_out o = {0};
    mmx_status s = obj_parse(ctx, src, &o, -1, NULL);
    /* The checks of mmx__first_bad_face but the repeated vertex: order and range. */
    for (mmx_index f = 0; !s && f < o.nf; f++) {
        const mmx_index n = o.start[f + 1] - o.start[f];
        int bad = n < 3;
        for (mmx_index k = o.start[f]; k < o.start[f + 1]; k++) bad |= o.verts[k] < 0 || o.verts[k] >= o.nv;
        if (bad) s = report_face(ctx, src, &o, f);
    }
    if (!s && o.vt_max >= o.nvt) s = report_vt(ctx, src, &o);
    mmx_faces *r = NULL;
    if (!s && !(r = calloc(1, sizeof *r))) s = mmx__fail(ctx, MMX_ERR_NOMEM, "%s: out of host memory", src->name);
    if (!s) {
        r->nverts = o.nv, r->nfaces = o.nf;
        r->start = o.start, r->verts = o.verts, r->pos = o.pos, r->tags = o.tags;
        o.start = o.verts = NULL, o.pos = NULL, o.tags = NULL;
        if (!r->start && (s = mmx__host_alloc(ctx, 1, sizeof *r->start, (void **)&r->start)) == MMX_OK)
            r->start[0] = 0;
        if (!s && !o.vt_partial && o.nnz > 0 && o.nvt > 0) {
            r->nuv = o.nvt, r->uv = o.uv, r->uv_index = o.vt;
            o.uv = NULL, o.vt = NULL;
        }
    }
    obj_free(&o);
    if (s) mmx_faces_free(r);
    else *out = r;
    return s;
}
