/* OpenSubdiv's tags as mesh data (mesh.h): the 't' lines of an OBJ file (kept verbatim in
 * mesh->tags) parsed into creases, corners, holes and the scheme options, checked against the
 * mesh; and the way back, a tag set written as 't' lines into mesh->tags, which the OBJ writer
 * keeps. A line is "t NAME I/F/S ints... floats... strings..." (OpenSubdiv's shape format). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "mesh_internal.h"

void mmx_mesh_tags_free(mmx_mesh_tags *t)
{
    if (!t) return;
    free(t->crease_verts);
    free(t->crease_sharpness);
    free(t->corner_verts);
    free(t->corner_sharpness);
    free(t->holes);
    free(t);
}

/* A growing array of n items of `size` bytes (host memory). */
static mmx_status push(mmx_ctx *ctx, void **arr, mmx_index n, size_t size, const void *item)
{
    /* Room doubles at each power of two (n items fit in the next one), so pushing n items
     * copies O(n) bytes. */
    if ((n & (n - 1)) == 0) {
        void *p = realloc(*arr, (n ? 2 * (size_t)n : 1) * size);
        if (!p) return mmx__fail(ctx, MMX_ERR_NOMEM, "out of host memory for the tags");
        *arr = p;
    }
    memcpy((char *)*arr + (size_t)n * size, item, size);
    return MMX_OK;
}

/* One line's arguments, in the order the line gives them. */
enum { kMaxArgs = 1 << 20 };
typedef struct tag_line {
    char name[32];
    long ni, nf, ns;
    long *ints;
    double *floats;
    char str[32]; /* the one string the tags that take one have */
} tag_line;

static void skip_space(const char **p, const char *e)
{
    while (*p < e && (**p == ' ' || **p == '\t' || **p == '\r')) (*p)++;
}

/* A whitespace-delimited token [*s, *t) of the line, or 0 at its end. */
static int token(const char **p, const char *e, const char **s, const char **t)
{
    skip_space(p, e);
    *s = *p;
    while (*p < e && !isspace((unsigned char)**p)) (*p)++;
    *t = *p;
    return *t > *s;
}

/* Parses the line [p, e) (without its newline) into L. Returns a sentence naming what is wrong
 * in why, or "" when the line is well formed. */
static void parse_line(const char *p, const char *e, tag_line *L, char *why, size_t cap)
{
    const char *s, *t;
    why[0] = 0;
    if (!token(&p, e, &s, &t) || t - s != 1 || *s != 't') {
        snprintf(why, cap, "not a 't NAME I/F/S ...' line");
        return;
    }
    if (!token(&p, e, &s, &t) || t - s >= (long)sizeof L->name) {
        snprintf(why, cap, "no tag name (or one longer than %zu characters)", sizeof L->name - 1);
        return;
    }
    memcpy(L->name, s, (size_t)(t - s));
    L->name[t - s] = 0;
    /* A hierarchical edit is refused by its name (apply), whatever its arguments. */
    if (!strcmp(L->name, "vertexedit") || !strcmp(L->name, "edgeedit") || !strcmp(L->name, "faceedit"))
        return;
    char counts[64] = "";
    if (token(&p, e, &s, &t) && t - s < (long)sizeof counts) memcpy(counts, s, (size_t)(t - s));
    char tail;
    if (sscanf(counts, "%ld/%ld/%ld%c", &L->ni, &L->nf, &L->ns, &tail) != 3 || L->ni < 0 ||
        L->nf < 0 || L->ns < 0 || L->ni > kMaxArgs || L->nf > kMaxArgs || L->ns > 1) {
        snprintf(why, cap, "%s: bad argument counts '%s' (want I/F/S: integers, floats, at most "
                 "one string)", L->name, counts);
        return;
    }
    L->ints = L->ni ? malloc((size_t)L->ni * sizeof *L->ints) : NULL;
    L->floats = L->nf ? malloc((size_t)L->nf * sizeof *L->floats) : NULL;
    if ((L->ni && !L->ints) || (L->nf && !L->floats)) {
        snprintf(why, cap, "%s: out of host memory", L->name);
        return;
    }
    for (long k = 0; k < L->ni; k++) {
        char buf[32] = "", *end = NULL;
        if (token(&p, e, &s, &t) && t - s < (long)sizeof buf) memcpy(buf, s, (size_t)(t - s));
        errno = 0;
        L->ints[k] = strtol(buf, &end, 10);
        if (!buf[0] || *end || errno) {
            snprintf(why, cap, "%s: integer %ld of %ld is '%s'", L->name, k + 1, L->ni, buf);
            return;
        }
    }
    for (long k = 0; k < L->nf; k++) {
        char buf[64] = "", *end = NULL;
        if (token(&p, e, &s, &t) && t - s < (long)sizeof buf) memcpy(buf, s, (size_t)(t - s));
        L->floats[k] = strtod(buf, &end);
        if (!buf[0] || *end || !isfinite(L->floats[k])) {
            snprintf(why, cap, "%s: float %ld of %ld is '%s'", L->name, k + 1, L->nf, buf);
            return;
        }
    }
    if (L->ns && (!token(&p, e, &s, &t) || t - s >= (long)sizeof L->str)) {
        snprintf(why, cap, "%s: a string is missing (or longer than %zu characters)", L->name,
                 sizeof L->str - 1);
        return;
    }
    if (L->ns) memcpy(L->str, s, (size_t)(t - s)), L->str[t - s] = 0;
    if (token(&p, e, &s, &t))
        snprintf(why, cap, "%s: more arguments than its counts say", L->name);
}

/* An edge {a, b} as a sortable key: the lower end above the higher. */
static uint64_t edge_key(mmx_index a, mmx_index b)
{
    const uint32_t lo = (uint32_t)(a < b ? a : b), hi = (uint32_t)(a < b ? b : a);
    return (uint64_t)lo << 32 | hi;
}

/* The mesh's edges the crease check reads, sorted, made (the faces fetched, from the device
 * too) at the first crease only: a mesh without creases pays nothing. Each crease is then a
 * binary search: O(nnz + creases log nnz). */
typedef struct faces_once {
    const mmx_mesh *mesh;
    mmx_index *start, *verts;
    uint64_t *keys; /* every face side's edge_key, sorted */
    size_t nkeys;
} faces_once;

static mmx_status edges_once(mmx_ctx *ctx, faces_once *fc, mmx_index nf)
{
    if (fc->keys) return MMX_OK;
    mmx_status s = mmx_mesh_faces(ctx, fc->mesh, &fc->start, &fc->verts);
    if (s) return s;
    const size_t n = (size_t)fc->start[nf];
    uint64_t *tmp = NULL;
    s = mmx__host_alloc(ctx, n + 1, sizeof *fc->keys, (void **)&fc->keys);
    if (!s) s = mmx__host_alloc(ctx, n + 1, sizeof *tmp, (void **)&tmp);
    if (s) {
        free(tmp);
        return s;
    }
    for (mmx_index f = 0; f < nf; f++)
        for (mmx_index q = fc->start[f]; q < fc->start[f + 1]; q++)
            fc->keys[q] = edge_key(fc->verts[q], fc->verts[q + 1 == fc->start[f + 1] ? fc->start[f] : q + 1]);
    uint64_t *sorted = mmx__radix_sort_u64(fc->keys, tmp, NULL, NULL, n, 0, 64, NULL);
    if (sorted != fc->keys) memcpy(fc->keys, sorted, n * sizeof *sorted);
    free(tmp);
    fc->nkeys = n;
    return MMX_OK;
}

/* Whether {a, b} is an edge of the mesh: some face has a and b one after the other. */
static int is_edge(const faces_once *fc, mmx_index a, mmx_index b)
{
    const uint64_t k = edge_key(a, b);
    size_t lo = 0, hi = fc->nkeys;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (fc->keys[mid] < k) lo = mid + 1;
        else hi = mid;
    }
    return lo < fc->nkeys && fc->keys[lo] == k;
}

/* One parsed line into the tag set; `line` numbers it for the messages. */
static mmx_status apply(mmx_ctx *ctx, const tag_line *L, int line, mmx_index nv, mmx_index nf,
                        faces_once *fc, mmx_mesh_tags *T)
{
    const char *n = L->name;
    const int crease = !strcmp(n, "crease"), corner = !strcmp(n, "corner");
    if (crease || corner) {
        const long per = crease ? 2 : 1, count = L->ni / per;
        if (L->ni == 0 || L->ni % per || L->ns || !(L->nf == 1 || L->nf == count))
            return mmx__fail(ctx, MMX_ERR_MESH,
                             "tags line %d: %s wants %s and one sharpness for all or one per %s "
                             "(got %ld/%ld/%ld)", line, n, crease ? "vertex pairs" : "vertices",
                             crease ? "pair" : "vertex", L->ni, L->nf, L->ns);
        for (long k = 0; k < L->ni; k++)
            if (L->ints[k] < 0 || L->ints[k] >= nv)
                return mmx__fail(ctx, MMX_ERR_MESH, "tags line %d: %s names vertex %ld, outside "
                                 "[0, %d)", line, n, L->ints[k], nv);
        for (long k = 0; k < count; k++) {
            /* Negative sharpness means none, as in OpenSubdiv. */
            const float w = (float)fmax(0.0, L->floats[L->nf == 1 ? 0 : k]);
            mmx_status s;
            if (crease) {
                const mmx_index ab[2] = {(mmx_index)L->ints[2 * k], (mmx_index)L->ints[2 * k + 1]};
                if ((s = edges_once(ctx, fc, nf))) return s;
                if (!is_edge(fc, ab[0], ab[1]))
                    return mmx__fail(ctx, MMX_ERR_MESH, "tags line %d: crease (%d, %d) is not an "
                                     "edge of the mesh", line, ab[0], ab[1]);
                s = push(ctx, (void **)&T->crease_verts, T->ncreases, sizeof ab, ab);
                if (!s) s = push(ctx, (void **)&T->crease_sharpness, T->ncreases, sizeof w, &w);
                if (!s) T->ncreases++;
            } else {
                const mmx_index v = (mmx_index)L->ints[k];
                s = push(ctx, (void **)&T->corner_verts, T->ncorners, sizeof v, &v);
                if (!s) s = push(ctx, (void **)&T->corner_sharpness, T->ncorners, sizeof w, &w);
                if (!s) T->ncorners++;
            }
            if (s) return s;
        }
        return MMX_OK;
    }
    if (!strcmp(n, "hole")) {
        if (L->ni == 0 || L->nf || L->ns)
            return mmx__fail(ctx, MMX_ERR_MESH, "tags line %d: hole wants face numbers only "
                             "(got %ld/%ld/%ld)", line, L->ni, L->nf, L->ns);
        for (long k = 0; k < L->ni; k++) {
            if (L->ints[k] < 0 || L->ints[k] >= nf)
                return mmx__fail(ctx, MMX_ERR_MESH, "tags line %d: hole names face %ld, outside "
                                 "[0, %d)", line, L->ints[k], nf);
            const mmx_index f = (mmx_index)L->ints[k];
            mmx_status s = push(ctx, (void **)&T->holes, T->nholes, sizeof f, &f);
            if (s) return s;
            T->nholes++;
        }
        return MMX_OK;
    }
    /* The options: one integer each, or one string. */
    static const struct { const char *name; int max; size_t at; } ints[] = {
        {"interpolateboundary", 2, offsetof(mmx_mesh_tags, interpolate_boundary)},
        {"facevaryinginterpolateboundary", 5, offsetof(mmx_mesh_tags, fvar_interpolate_boundary)},
        {"facevaryingpropagatecorners", 1, offsetof(mmx_mesh_tags, fvar_propagate_corners)},
    };
    for (size_t q = 0; q < sizeof ints / sizeof ints[0]; q++) {
        if (strcmp(n, ints[q].name)) continue;
        if (L->ni != 1 || L->nf || L->ns || L->ints[0] < 0 || L->ints[0] > ints[q].max)
            return mmx__fail(ctx, MMX_ERR_MESH, "tags line %d: %s wants one integer in 0..%d",
                             line, n, ints[q].max);
        *(int *)((char *)T + ints[q].at) = (int)L->ints[0];
        return MMX_OK;
    }
    if (!strcmp(n, "creasemethod") || !strcmp(n, "smoothtriangles")) {
        const int method = n[0] == 'c';
        const char *a = method ? "normal" : "catmark", *b = method ? "chaikin" : "smooth";
        if (L->ni || L->nf || L->ns != 1 || (strcmp(L->str, a) && strcmp(L->str, b)))
            return mmx__fail(ctx, MMX_ERR_MESH, "tags line %d: %s wants one string, %s or %s",
                             line, n, a, b);
        *(method ? &T->crease_method : &T->smooth_triangles) = strcmp(L->str, b) == 0;
        return MMX_OK;
    }
    if (!strcmp(n, "vertexedit") || !strcmp(n, "edgeedit") || !strcmp(n, "faceedit"))
        return mmx__fail(ctx, MMX_ERR_UNSUPPORTED, "tags line %d: %s is a hierarchical edit, "
                         "which OpenSubdiv 3 does not have either", line, n);
    return mmx__fail(ctx, MMX_ERR_MESH, "tags line %d: unknown tag '%s'", line, n);
}

mmx_status mmx_mesh_tags_parse(mmx_ctx *ctx, const mmx_mesh *mesh, mmx_mesh_tags **out)
{
    MMX__NEED_CTX(ctx);
    if (!mesh || !mesh->M || !out) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_mesh_tags_parse: NULL argument");
    int line;
    return mmx__mesh_tags_parse(ctx, mesh, out, &line);
}

mmx_status mmx__mesh_tags_parse(mmx_ctx *ctx, const mmx_mesh *mesh, mmx_mesh_tags **out,
                                int *bad_line)
{
    *out = NULL;
    *bad_line = 0;
    mmx_mesh_tags *T = calloc(1, sizeof *T);
    if (!T) return mmx__fail(ctx, MMX_ERR_NOMEM, "out of host memory for the tags");
    T->interpolate_boundary = T->fvar_interpolate_boundary = T->fvar_propagate_corners = -1;
    T->crease_method = T->smooth_triangles = -1;
    faces_once fc = {mesh, NULL, NULL, NULL, 0};
    mmx_status s = MMX_OK;
    const char *p = mesh->tags ? mesh->tags : "";
    for (int line = 1; !s && *p; line++) {
        const char *e = strchr(p, '\n');
        if (!e) e = p + strlen(p);
        const char *q = p;
        skip_space(&q, e);
        if (q < e) {
            tag_line L;
            char why[160];
            memset(&L, 0, sizeof L);
            /* A comment ends the line, as everywhere in OBJ. */
            const char *hash = memchr(p, '#', (size_t)(e - p));
            parse_line(p, hash ? hash : e, &L, why, sizeof why);
            s = why[0] ? mmx__fail(ctx, MMX_ERR_MESH, "tags line %d: %s", line, why)
                       : apply(ctx, &L, line, mesh->M->nrows, mesh->M->ncols, &fc, T);
            free(L.ints);
            free(L.floats);
            if (s) *bad_line = line;
        }
        p = *e ? e + 1 : e;
    }
    free(fc.start);
    free(fc.verts);
    free(fc.keys);
    if (s) {
        mmx_mesh_tags_free(T);
        return s;
    }
    *out = T;
    return MMX_OK;
}

/* Appends printf output to the growing text *buf (length *len, capacity *cap). */
static int append(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        const int n = vsnprintf(*buf ? *buf + *len : NULL, *buf ? *cap - *len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) return -1;
        if (*buf && *len + (size_t)n < *cap) {
            *len += (size_t)n;
            return 0;
        }
        const size_t want = (*cap ? 2 * *cap : 256) + (size_t)n + 1;
        char *q = realloc(*buf, want);
        if (!q) return -1;
        *buf = q;
        *cap = want;
    }
}

/* v in decimal at p; returns the end. */
static char *put_int(char *p, long long v)
{
    char tmp[24];
    int n = 0;
    unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
    do tmp[n++] = (char)('0' + u % 10); while (u /= 10);
    if (v < 0) *p++ = '-';
    while (n) *p++ = tmp[--n];
    return p;
}

/* The crease and corner lines, one per item so that each keeps its own sharpness (%.9g: a float
 * read back exactly), appended to buf (room for them made here). A refined cage carries tens of
 * thousands (each crease's halves): the integers are written by hand and each run of equal
 * sharpness formatted once (snprintf per line took milliseconds). Returns -1 out of memory. */
static int put_sharp_lines(char **buf, size_t *len, size_t *cap, const char *head, int per,
                           const mmx_index *verts, const float *sharp, mmx_index n)
{
    const size_t head_len = strlen(head), line_max = head_len + (size_t)per * 12 + 32;
    if (n <= 0) return 0;
    if ((size_t)n > (SIZE_MAX - *len - 1) / line_max) return -1;
    const size_t need = *len + (size_t)n * line_max + 1;
    if (need > *cap) {
        char *q = realloc(*buf, need);
        if (!q) return -1;
        *buf = q, *cap = need;
    }
    char *p = *buf + *len, num[32] = "";
    size_t num_len = 0;
    float last = 0.0f;
    for (mmx_index k = 0; k < n; k++) {
        memcpy(p, head, head_len), p += head_len;
        for (int j = 0; j < per; j++) p = put_int(p, verts[(size_t)per * k + j]), *p++ = ' ';
        if (k == 0 || memcmp(&sharp[k], &last, sizeof last) != 0) {
            last = sharp[k];
            num_len = (size_t)snprintf(num, sizeof num, "%.9g", (double)last);
        }
        memcpy(p, num, num_len), p += num_len;
        *p++ = '\n';
    }
    *p = '\0';
    *len = (size_t)(p - *buf);
    return 0;
}

mmx_status mmx_mesh_set_tags(mmx_ctx *ctx, mmx_mesh *mesh, const mmx_mesh_tags *tags)
{
    MMX__NEED_CTX(ctx);
    return mmx__mesh_set_tags(ctx, mesh, tags, 1);
}

mmx_status mmx__mesh_set_tags(mmx_ctx *ctx, mmx_mesh *mesh, const mmx_mesh_tags *tags, int check)
{
    if (!mesh || !mesh->M) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_mesh_set_tags: mesh is NULL");
    char *buf = NULL;
    size_t len = 0, cap = 0;
    int bad = 0;
    const mmx_mesh_tags none = {0, NULL, NULL, 0, NULL, NULL, 0, NULL, -1, -1, -1, -1, -1};
    const mmx_mesh_tags *T = tags ? tags : &none;
    /* Each count needs its arrays (the loops below read them). */
    const char *missing = T->ncreases < 0 || T->ncorners < 0 || T->nholes < 0 ? "a negative count"
                          : T->ncreases > 0 && !T->crease_verts          ? "crease_verts"
                          : T->ncreases > 0 && !T->crease_sharpness      ? "crease_sharpness"
                          : T->ncorners > 0 && !T->corner_verts          ? "corner_verts"
                          : T->ncorners > 0 && !T->corner_sharpness      ? "corner_sharpness"
                          : T->nholes > 0 && !T->holes                   ? "holes"
                                                                         : NULL;
    if (missing)
        return mmx__fail(ctx, MMX_ERR_ARG,
                         "mmx_mesh_set_tags: %d creases, %d corners and %d holes, but %s%s", T->ncreases,
                         T->ncorners, T->nholes, missing,
                         missing[0] == 'a' ? "" : " is NULL (every count needs its arrays)");
    bad = put_sharp_lines(&buf, &len, &cap, "t crease 2/1/0 ", 2, T->crease_verts,
                          T->crease_sharpness, T->ncreases);
    if (!bad)
        bad = put_sharp_lines(&buf, &len, &cap, "t corner 1/1/0 ", 1, T->corner_verts,
                              T->corner_sharpness, T->ncorners);
    if (!bad && T->nholes) {
        bad = append(&buf, &len, &cap, "t hole %d/0/0", T->nholes);
        if (!bad && (size_t)T->nholes > (SIZE_MAX - len - 2) / 12) bad = -1;
        const size_t need = len + 12 * (size_t)T->nholes + 2;
        char *q = bad || need <= cap ? buf : realloc(buf, need);
        if (!q) bad = -1;
        else if (!bad) buf = q, cap = need > cap ? need : cap;
        char *p = buf + len;
        for (mmx_index k = 0; !bad && k < T->nholes; k++) *p++ = ' ', p = put_int(p, T->holes[k]);
        if (!bad) *p++ = '\n', *p = '\0', len = (size_t)(p - buf);
    }
    if (!bad && T->interpolate_boundary >= 0)
        bad = append(&buf, &len, &cap, "t interpolateboundary 1/0/0 %d\n", T->interpolate_boundary);
    if (!bad && T->fvar_interpolate_boundary >= 0)
        bad = append(&buf, &len, &cap, "t facevaryinginterpolateboundary 1/0/0 %d\n",
                     T->fvar_interpolate_boundary);
    if (!bad && T->fvar_propagate_corners >= 0)
        bad = append(&buf, &len, &cap, "t facevaryingpropagatecorners 1/0/0 %d\n",
                     T->fvar_propagate_corners);
    if (!bad && T->crease_method >= 0)
        bad = append(&buf, &len, &cap, "t creasemethod 0/0/1 %s\n",
                     T->crease_method ? "chaikin" : "normal");
    if (!bad && T->smooth_triangles >= 0)
        bad = append(&buf, &len, &cap, "t smoothtriangles 0/0/1 %s\n",
                     T->smooth_triangles ? "smooth" : "catmark");
    if (bad) {
        free(buf);
        return mmx__fail(ctx, MMX_ERR_NOMEM, "out of host memory writing the tags");
    }
    /* Checked as a file's tags are, before the mesh's own are replaced. */
    char *old = mesh->tags;
    mmx_mesh_tags *parsed = NULL;
    mesh->tags = buf;
    mmx_status s = check ? mmx_mesh_tags_parse(ctx, mesh, &parsed) : MMX_OK;
    mmx_mesh_tags_free(parsed);
    if (s) {
        mesh->tags = old;
        free(buf);
        return s;
    }
    free(old);
    /* What subdivision made of the old tags is not theirs any more. */
    mmx__mesh_cache_drop(mesh, MMX__CACHE_TAGS);
    return MMX_OK;
}
