/* The STL reader, binary and ascii (told apart by content: a file of exactly 84 + 50 n bytes
 * with n at byte 80 is binary, else one starting with "solid" is ascii). STL lists each facet
 * with its own corner positions; corners are welded into shared vertices by exact position
 * with one hash table, vertices numbered in order of first appearance, so the mesh is the same
 * on every run and the work is linear. Facet normals are skipped (the writer recomputes
 * them). A facet whose corners weld to a repeated vertex is dropped and counted. */
#include <string.h>
#include "io_internal.h"

typedef struct stl_out {
    float *corner;      /* 3 floats per corner, as read */
    size_t corner_cap;  /* floats */
    size_t ncorners;
    mmx_index *start;   /* per facet: its first corner; nf + 1 entries */
    size_t start_cap;
    mmx_index nf;
} stl_out;

static void stl_free(stl_out *o)
{
    free(o->corner);
    free(o->start);
    memset(o, 0, sizeof *o);
}

/* ---- welding ------------------------------------------------------------------------------- */

/* The bits of a coordinate triple, -0 as +0 so the two weld. */
static void key_of(const float *p, uint32_t k[3])
{
    for (int d = 0; d < 3; d++) {
        float x = p[d] == 0.0f ? 0.0f : p[d];
        memcpy(&k[d], &x, sizeof k[d]);
    }
}

static uint32_t hash3(const uint32_t k[3])
{
    uint64_t h = (uint64_t)k[0] * 0x9E3779B97F4A7C15ull;
    h ^= (uint64_t)k[1] * 0xC2B2AE3D27D4EB4Full + (h >> 29);
    h ^= (uint64_t)k[2] * 0x165667B19E3779F9ull + (h >> 32);
    h ^= h >> 31;
    return (uint32_t)(h ^ (h >> 17));
}

/* Welds o's corners: positions of the distinct corners (in order of first appearance) and the
 * faces over them, dropping those with a repeated vertex; the mesh is built from them. */
static mmx_status weld(mmx_ctx *ctx, const mmx__src *src, stl_out *o, mmx_mesh **out)
{
    size_t nc = o->ncorners, tsize = 64;
    while (tsize < 2 * nc) tsize *= 2;
    mmx_index *table = NULL, *vert = NULL, *start = NULL, *stamp = NULL;
    float *pos = NULL;
    mmx_status s;
    if ((s = mmx__host_alloc(ctx, tsize, sizeof *table, (void **)&table)) ||
        (s = mmx__host_alloc(ctx, nc ? nc : 1, sizeof *vert, (void **)&vert)) ||
        (s = mmx__host_alloc(ctx, 3 * (nc ? nc : 1), sizeof *pos, (void **)&pos)) ||
        (s = mmx__host_alloc(ctx, (size_t)o->nf + 1, sizeof *start, (void **)&start)))
        goto fail;
    memset(table, 0xff, tsize * sizeof *table); /* -1: empty */
    mmx_index nv = 0;
    for (size_t c = 0; c < nc; c++) {
        uint32_t k[3];
        key_of(o->corner + 3 * c, k);
        size_t h = hash3(k) & (tsize - 1);
        for (;; h = (h + 1) & (tsize - 1)) {
            mmx_index v = table[h];
            if (v < 0) {
                table[h] = v = nv++;
                memcpy(pos + 3 * (size_t)v, o->corner + 3 * c, 3 * sizeof *pos);
                for (int d = 0; d < 3; d++)
                    if (pos[3 * (size_t)v + d] == 0.0f) pos[3 * (size_t)v + d] = 0.0f;
            } else {
                uint32_t kv[3];
                key_of(pos + 3 * (size_t)v, kv);
                if (memcmp(k, kv, sizeof k) != 0) continue;
            }
            vert[c] = v;
            break;
        }
    }
    free(table);
    table = NULL;
    /* Drop facets with a repeated vertex, in place: stamp[v] is the last facet holding v. */
    if ((s = mmx__host_alloc(ctx, nv ? (size_t)nv : 1, sizeof *stamp, (void **)&stamp))) goto fail;
    memset(stamp, 0xff, (nv ? (size_t)nv : 1) * sizeof *stamp);
    mmx_index nf = 0;
    size_t w = 0;
    start[0] = 0;
    for (mmx_index f = 0; f < o->nf; f++) {
        size_t b = (size_t)o->start[f], e = (size_t)o->start[f + 1], w0 = w;
        int repeated = 0;
        for (size_t c = b; c < e; c++) {
            if (stamp[vert[c]] == f) repeated = 1;
            stamp[vert[c]] = f;
            vert[w++] = vert[c];
        }
        if (repeated) {
            w = w0;
            src->info->degenerate++;
            continue;
        }
        start[++nf] = (mmx_index)w;
    }
    free(stamp);
    stl_free(o);
    /* Shrinking reallocs; a failure keeps the larger block. */
    void *q = realloc(pos, 3 * (size_t)(nv ? nv : 1) * sizeof *pos);
    if (q) pos = q;
    return mmx__mesh_adopt(ctx, nv, nf, start, vert, pos, NULL, 1, out);
fail:
    free(table), free(vert), free(pos), free(start), free(stamp);
    return s;
}

/* ---- binary -------------------------------------------------------------------------------- */

static float ldf(const unsigned char *p)
{
    uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

static mmx_status read_binary(mmx_ctx *ctx, const mmx__src *src, stl_out *o)
{
    const unsigned char *b = (const unsigned char *)src->base;
    size_t len = (size_t)(src->end - src->base);
    uint64_t n = (uint64_t)b[80] | (uint64_t)b[81] << 8 | (uint64_t)b[82] << 16 | (uint64_t)b[83] << 24;
    if (84 + 50 * n != (uint64_t)len)
        return mmx__fail_byte(ctx, MMX_ERR_PARSE, src, src->base + 80,
                              "binary STL announces %llu triangles (%llu bytes in all) but the file "
                              "has %llu bytes", (unsigned long long)n,
                              (unsigned long long)(84 + 50 * n), (unsigned long long)len);
    if (3 * n > (uint64_t)MMX_INDEX_MAX)
        return mmx__fail_byte(ctx, MMX_ERR_OVERFLOW, src, src->base + 80,
                              "%llu triangles do not fit 32-bit indices", (unsigned long long)n);
    mmx_status s;
    if ((s = mmx__host_alloc(ctx, 9 * (size_t)n + 1, sizeof *o->corner, (void **)&o->corner)) ||
        (s = mmx__host_alloc(ctx, (size_t)n + 1, sizeof *o->start, (void **)&o->start)))
        return s;
    char why[200];
    o->start[0] = 0;
    for (size_t f = 0; f < (size_t)n; f++) {
        const unsigned char *r = b + 84 + 50 * f;
        for (int c = 0; c < 3; c++) {
            float *p = o->corner + 9 * f + 3 * (size_t)c;
            double d[3];
            for (int k = 0; k < 3; k++) d[k] = ldf(r + 12 + 12 * c + 4 * k);
            if (mmx__store_coords(d, p, why, sizeof why))
                return mmx__fail_byte(ctx, MMX_ERR_MESH, src, (const char *)r + 12 + 12 * c,
                                      "triangle %zu, corner %d: %s", f, c, why);
        }
        if (r[48] | r[49]) src->info->other++; /* attribute bytes (a color in some tools) */
        o->start[f + 1] = (mmx_index)(3 * (f + 1));
    }
    o->nf = (mmx_index)n;
    o->ncorners = 3 * (size_t)n;
    return MMX_OK;
}

/* ---- ascii --------------------------------------------------------------------------------- */

/* Skips blanks and line breaks. */
static const char *skip_space(const char *p, const char *end)
{
    while (p < end && (mmx__is_blank(*p) || mmx__is_break(*p))) p++;
    return p;
}

/* Whether the keyword w (lower case) is the token at p, in any case. */
static int kw_is(const char *p, const char *end, const char *w)
{
    size_t n = strlen(w);
    if ((size_t)(end - p) < n) return 0;
    for (size_t i = 0; i < n; i++)
        if ((p[i] | 0x20) != w[i]) return 0;
    return mmx__ends_token(p + n, end);
}

/* Expects the keyword w at the next token; moves past it. */
static mmx_status expect(mmx_ctx *ctx, const mmx__src *src, const char **pp, const char *w)
{
    const char *p = skip_space(*pp, src->end);
    char tok[48];
    if (!kw_is(p, src->end, w))
        return mmx__fail_line(ctx, MMX_ERR_PARSE, src, p, "expected '%s', found %s", w,
                              mmx__quote(p, src->end, tok, sizeof tok));
    *pp = p + strlen(w);
    return MMX_OK;
}

/* Three numbers at *pp. */
static mmx_status three(mmx_ctx *ctx, const mmx__src *src, const char **pp, double d[3],
                        const char *what)
{
    const char *p = *pp;
    char tok[48];
    for (int k = 0; k < 3; k++) {
        p = skip_space(p, src->end);
        const char *t = p;
        if (!mmx__lex_double(&p, src->end, &d[k]) || !mmx__ends_token(p, src->end))
            return mmx__fail_line(ctx, MMX_ERR_PARSE, src, t, "expected %s, found %s", what,
                                  mmx__quote(t, src->end, tok, sizeof tok));
    }
    *pp = p;
    return MMX_OK;
}

static mmx_status ascii_facet(mmx_ctx *ctx, const mmx__src *src, stl_out *o, const char *kw,
                              const char **pp)
{
    const char *p = *pp, *end = src->end;
    double d[3];
    char tok[48], why[200];
    mmx_status s;
    if ((s = expect(ctx, src, &p, "normal")) || (s = three(ctx, src, &p, d, "a normal component")) ||
        (s = expect(ctx, src, &p, "outer")) || (s = expect(ctx, src, &p, "loop")))
        return s;
    if (o->nf >= MMX_INDEX_MAX - 1)
        return mmx__fail_line(ctx, MMX_ERR_OVERFLOW, src, kw, "more than %d facets do not fit "
                              "32-bit indices", MMX_INDEX_MAX - 1);
    int k = 0;
    for (;; k++) {
        p = skip_space(p, end);
        if (kw_is(p, end, "endloop")) break;
        const char *at = p;
        if (!kw_is(p, end, "vertex"))
            return mmx__fail_line(ctx, MMX_ERR_PARSE, src, p, "facet %d: expected 'vertex' or "
                                  "'endloop', found %s", o->nf, mmx__quote(p, end, tok, sizeof tok));
        p += 6;
        if ((s = three(ctx, src, &p, d, "a coordinate"))) return s;
        if (o->ncorners >= (size_t)MMX_INDEX_MAX)
            return mmx__fail_line(ctx, MMX_ERR_OVERFLOW, src, at, "more than %d facet corners do "
                                  "not fit 32-bit indices", MMX_INDEX_MAX);
        if ((s = mmx__grow(ctx, (void **)&o->corner, &o->corner_cap, 3 * o->ncorners + 3,
                           sizeof *o->corner)))
            return s;
        if (mmx__store_coords(d, o->corner + 3 * o->ncorners, why, sizeof why))
            return mmx__fail_line(ctx, MMX_ERR_MESH, src, at, "facet %d: %s", o->nf, why);
        o->ncorners++;
    }
    if (k < 3)
        return mmx__fail_line(ctx, MMX_ERR_MESH, src, kw, "facet %d has %d vertices, 3 needed",
                              o->nf, k);
    p += 7;
    if ((s = expect(ctx, src, &p, "endfacet"))) return s;
    if ((s = mmx__grow(ctx, (void **)&o->start, &o->start_cap, (size_t)o->nf + 2, sizeof *o->start)))
        return s;
    o->start[++o->nf] = (mmx_index)o->ncorners;
    *pp = p;
    return MMX_OK;
}

static mmx_status read_ascii(mmx_ctx *ctx, const mmx__src *src, stl_out *o)
{
    const char *p = src->base, *end = src->end;
    char tok[48];
    mmx_status s = mmx__grow(ctx, (void **)&o->start, &o->start_cap, 1024, sizeof *o->start);
    if (s) return s;
    o->start[0] = 0;
    if (end - p >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0) p += 3;
    p = skip_space(p, end);
    if (!kw_is(p, end, "solid"))
        return mmx__fail_line(ctx, MMX_ERR_PARSE, src, p, "not an STL file: expected 'solid' (ascii) "
                              "or %s bytes (binary, for the triangle count at byte 80), found %s",
                              (size_t)(end - src->base) >= 84 ? "84 + 50 n" : "at least 84",
                              mmx__quote(p, end, tok, sizeof tok));
    for (;;) {
        p = mmx__next_line(p, end); /* past "solid [name]" */
        for (;;) {
            p = skip_space(p, end);
            const char *kw = p;
            if (kw_is(p, end, "facet")) {
                p += 5;
                if ((s = ascii_facet(ctx, src, o, kw, &p))) return s;
                continue;
            }
            if (kw_is(p, end, "endsolid")) break;
            if (p == end)
                return mmx__fail_line(ctx, MMX_ERR_PARSE, src, p, "the file ends inside a solid "
                                      "(no 'endsolid': cut short?)");
            return mmx__fail_line(ctx, MMX_ERR_PARSE, src, p, "expected 'facet' or 'endsolid', "
                                  "found %s", mmx__quote(p, end, tok, sizeof tok));
        }
        p = skip_space(mmx__next_line(p, end), end); /* past "endsolid [name]" */
        if (p == end) return MMX_OK;
        if (!kw_is(p, end, "solid"))
            return mmx__fail_line(ctx, MMX_ERR_PARSE, src, p, "expected 'solid' or the end of the "
                                  "file after 'endsolid', found %s", mmx__quote(p, end, tok, sizeof tok));
    }
}

mmx_status mmx__read_stl(mmx_ctx *ctx, const mmx__src *src, mmx_mesh **out)
{
    stl_out o = {0};
    size_t len = (size_t)(src->end - src->base);
    const char *p = src->base;
    while (p < src->end && (mmx__is_blank(*p) || mmx__is_break(*p))) p++;
    /* The size decides first: binary headers may begin with "solid" too. */
    int binary = mmx__stl_binary_size(src->base, len) || (len >= 84 && !kw_is(p, src->end, "solid"));
    mmx_status s = binary ? read_binary(ctx, src, &o) : read_ascii(ctx, src, &o);
    if (!s) s = weld(ctx, src, &o, out);
    stl_free(&o);
    return s;
}
