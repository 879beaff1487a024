/* Built-in procedural meshes: the test shapes, the tool's default input, benchmark inputs.
 * Every shape is consistently oriented (counter-clockwise seen from outside). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "mesh_internal.h"

#define PI 3.14159265358979323846

/* Face lists under construction: fixed capacity, known up front for every shape. */
typedef struct shape {
    mmx_index nv, nf, nnz;
    mmx_index *start, *verts;
    float *pos;
} shape;

static mmx_status shape_alloc(mmx_ctx *ctx, shape *s, size_t nv, size_t nf, size_t nnz)
{
    memset(s, 0, sizeof *s);
    if (nv > MMX_INDEX_MAX || nf >= MMX_INDEX_MAX || nnz > MMX_INDEX_MAX)
        return mmx__fail(ctx, MMX_ERR_OVERFLOW, "shape too large for 32-bit indices (%zu vertices, %zu faces)", nv, nf);
    mmx_status st = mmx__host_alloc(ctx, nf + 1, sizeof *s->start, (void **)&s->start);
    if (!st) st = mmx__host_alloc(ctx, nnz, sizeof *s->verts, (void **)&s->verts);
    if (!st) st = mmx__host_alloc(ctx, nv * 3, sizeof *s->pos, (void **)&s->pos);
    if (st) {
        free(s->start);
        free(s->verts);
        return st;
    }
    s->start[0] = 0;
    return MMX_OK;
}

static void shape_free(shape *s)
{
    free(s->start);
    free(s->verts);
    free(s->pos);
}

static void add_vertex(shape *s, double x, double y, double z)
{
    float *p = s->pos + 3 * (size_t)s->nv++;
    p[0] = (float)x;
    p[1] = (float)y;
    p[2] = (float)z;
}

static void add_face(shape *s, int n, const mmx_index *f)
{
    for (int i = 0; i < n; i++) s->verts[s->nnz++] = f[i];
    s->start[++s->nf] = s->nnz;
}

/* Hands the lists to the validated constructor (which copies them), then frees them. */
static mmx_status shape_finish(mmx_ctx *ctx, shape *s, mmx_mesh **out)
{
    mmx_status st = mmx_mesh_from_faces(ctx, s->nv, s->nf, s->start, s->verts, s->pos, out);
    shape_free(s);
    return st;
}

static mmx_status tetrahedron(mmx_ctx *ctx, mmx_mesh **out)
{
    static const mmx_index f[4][3] = {{0, 1, 2}, {0, 3, 1}, {0, 2, 3}, {1, 3, 2}};
    shape s;
    mmx_status st = shape_alloc(ctx, &s, 4, 4, 12);
    if (st) return st;
    add_vertex(&s, 1, 1, 1);
    add_vertex(&s, 1, -1, -1);
    add_vertex(&s, -1, 1, -1);
    add_vertex(&s, -1, -1, 1);
    for (int i = 0; i < 4; i++) add_face(&s, 3, f[i]);
    return shape_finish(ctx, &s, out);
}

static mmx_status cube(mmx_ctx *ctx, mmx_mesh **out)
{
    /* Vertex x + 2y + 4z sits at (2x-1, 2y-1, 2z-1). */
    static const mmx_index f[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4},
                                      {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
    shape s;
    mmx_status st = shape_alloc(ctx, &s, 8, 6, 24);
    if (st) return st;
    for (int i = 0; i < 8; i++) add_vertex(&s, 2 * (i & 1) - 1, 2 * (i >> 1 & 1) - 1, 2 * (i >> 2) - 1);
    for (int i = 0; i < 6; i++) add_face(&s, 4, f[i]);
    return shape_finish(ctx, &s, out);
}

/* Midpoint of edge (a, b), created once: an open-addressing table keyed by the vertex pair. */
typedef struct midpoints {
    uint64_t *key;
    mmx_index *val;
    size_t cap;
} midpoints;

static mmx_index midpoint(midpoints *m, shape *s, mmx_index a, mmx_index b)
{
    uint64_t k = a < b ? ((uint64_t)a << 32 | (uint32_t)b) : ((uint64_t)b << 32 | (uint32_t)a);
    size_t h = (size_t)((k * 0x9E3779B97F4A7C15ull) >> 20) & (m->cap - 1);
    while (m->key[h] != UINT64_MAX && m->key[h] != k) h = (h + 1) & (m->cap - 1);
    if (m->key[h] == k) return m->val[h];
    const float *p = s->pos + 3 * (size_t)a, *q = s->pos + 3 * (size_t)b;
    double x = p[0] + q[0], y = p[1] + q[1], z = p[2] + q[2], r = sqrt(x * x + y * y + z * z);
    m->key[h] = k;
    m->val[h] = s->nv;
    add_vertex(s, x / r, y / r, z / r);
    return m->val[h];
}

static mmx_status icosphere(mmx_ctx *ctx, int levels, mmx_mesh **out)
{
    static const mmx_index f0[20][3] = {
        {0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4},
        {11, 10, 2}, {10, 7, 6}, {7, 1, 8},  {3, 9, 4},  {3, 4, 2},   {3, 2, 6}, {3, 6, 8},
        {3, 8, 9},  {4, 9, 5},  {2, 4, 11}, {6, 2, 10}, {8, 6, 7},   {9, 8, 1}};
    if (levels < 0 || levels > 10)
        return mmx__fail(ctx, MMX_ERR_ARG, "icosphere: level %d outside [0, 10]", levels);
    size_t nf = (size_t)20 << (2 * levels), ne = (size_t)30 << (2 * levels), nv = nf / 2 + 2;
    shape s;
    mmx_status st = shape_alloc(ctx, &s, nv, nf, 3 * nf);
    if (st) return st;
    const double g = (1 + sqrt(5.0)) / 2, r = sqrt(1 + g * g);
    const double c[12][3] = {{-1, g, 0}, {1, g, 0}, {-1, -g, 0}, {1, -g, 0}, {0, -1, g}, {0, 1, g},
                             {0, -1, -g}, {0, 1, -g}, {g, 0, -1}, {g, 0, 1}, {-g, 0, -1}, {-g, 0, 1}};
    for (int i = 0; i < 12; i++) add_vertex(&s, c[i][0] / r, c[i][1] / r, c[i][2] / r);
    for (int i = 0; i < 20; i++) add_face(&s, 3, f0[i]);
    /* Each level splits every triangle into four at its edge midpoints; the new faces are
     * built in a second array and swapped in. */
    midpoints m = {NULL, NULL, 1};
    while (m.cap < 2 * ne) m.cap <<= 1;
    mmx_index *next = NULL;
    if (levels > 0) {
        st = mmx__host_alloc(ctx, m.cap, sizeof *m.key, (void **)&m.key);
        if (!st) st = mmx__host_alloc(ctx, m.cap, sizeof *m.val, (void **)&m.val);
        if (!st) st = mmx__host_alloc(ctx, 3 * nf, sizeof *next, (void **)&next);
    }
    for (int l = 0; !st && l < levels; l++) {
        memset(m.key, 0xff, m.cap * sizeof *m.key);
        mmx_index nf_old = s.nf, k = 0;
        for (mmx_index t = 0; t < nf_old; t++) {
            const mmx_index *v = s.verts + 3 * (size_t)t;
            mmx_index a = midpoint(&m, &s, v[0], v[1]), b = midpoint(&m, &s, v[1], v[2]),
                      d = midpoint(&m, &s, v[2], v[0]);
            const mmx_index kids[12] = {v[0], a, d, a, v[1], b, d, b, v[2], a, b, d};
            memcpy(next + k, kids, sizeof kids);
            k += 12;
        }
        mmx_index *tmp = s.verts;
        s.verts = next;
        next = tmp;
        s.nf = 4 * nf_old;
        s.nnz = k;
        for (mmx_index t = 0; t <= s.nf; t++) s.start[t] = 3 * t;
    }
    free(m.key);
    free(m.val);
    free(next);
    if (st) {
        shape_free(&s);
        return st;
    }
    return shape_finish(ctx, &s, out);
}

static mmx_status torus(mmx_ctx *ctx, long U, long V, mmx_mesh **out)
{
    if (U < 3 || V < 3 || U > 46340 || V > 46340)
        return mmx__fail(ctx, MMX_ERR_ARG, "torus: sizes %ld x %ld outside [3, 46340]", U, V);
    shape s;
    mmx_status st = shape_alloc(ctx, &s, (size_t)(U * V), (size_t)(U * V), 4 * (size_t)(U * V));
    if (st) return st;
    /* Vertex (i, j) = i*V + j at major angle 2πi/U and minor angle 2πj/V; a quad runs +u then
     * +v, which is counter-clockwise seen from outside. */
    for (long i = 0; i < U; i++)
        for (long j = 0; j < V; j++) {
            double u = 2 * PI * (double)i / (double)U, v = 2 * PI * (double)j / (double)V;
            double w = 1 + 0.4 * cos(v);
            add_vertex(&s, w * cos(u), w * sin(u), 0.4 * sin(v));
        }
    for (long i = 0; i < U; i++)
        for (long j = 0; j < V; j++) {
            long i1 = (i + 1) % U, j1 = (j + 1) % V;
            const mmx_index q[4] = {(mmx_index)(i * V + j), (mmx_index)(i1 * V + j),
                                    (mmx_index)(i1 * V + j1), (mmx_index)(i * V + j1)};
            add_face(&s, 4, q);
        }
    return shape_finish(ctx, &s, out);
}

/* Cell (x, y) of an nx x ny grid is cut out when it lies in one of the two 2x2 holes, placed
 * one cell in from opposite corners so they touch neither each other nor the border. */
static int in_hole(long x, long y, long nx, long ny)
{
    if (nx < 8 || ny < 8) return 0;
    return (x >= 1 && x <= 2 && y >= 1 && y <= 2) ||
           (x >= nx - 3 && x <= nx - 2 && y >= ny - 3 && y <= ny - 2);
}

static mmx_status grid(mmx_ctx *ctx, long nx, long ny, mmx_mesh **out)
{
    if (nx < 1 || ny < 1 || nx > 46000 || ny > 46000)
        return mmx__fail(ctx, MMX_ERR_ARG, "grid: sizes %ld x %ld outside [1, 46000]", nx, ny);
    size_t nvg = (size_t)(nx + 1) * (size_t)(ny + 1);
    shape s;
    mmx_status st = shape_alloc(ctx, &s, nvg, (size_t)(nx * ny), 4 * (size_t)(nx * ny));
    mmx_index *id = NULL;
    if (!st) st = mmx__host_alloc(ctx, nvg, sizeof *id, (void **)&id);
    if (st) {
        if (s.start) shape_free(&s);
        return st;
    }
    /* Number only the grid points some kept cell uses: a hole's centre point would otherwise
     * be an isolated vertex. */
    for (size_t i = 0; i < nvg; i++) id[i] = -1;
    for (long y = 0; y < ny; y++)
        for (long x = 0; x < nx; x++)
            if (!in_hole(x, y, nx, ny))
                for (int c = 0; c < 4; c++) id[(y + c / 2) * (nx + 1) + x + (c & 1)] = 0;
    for (long y = 0; y <= ny; y++)
        for (long x = 0; x <= nx; x++)
            if (id[y * (nx + 1) + x] == 0) {
                id[y * (nx + 1) + x] = s.nv;
                add_vertex(&s, (double)x, (double)y, 0);
            }
    for (long y = 0; y < ny; y++)
        for (long x = 0; x < nx; x++) {
            if (in_hole(x, y, nx, ny)) continue;
            long p = y * (nx + 1) + x;
            const mmx_index q[4] = {id[p], id[p + 1], id[p + nx + 2], id[p + nx + 1]};
            add_face(&s, 4, q);
        }
    free(id);
    return shape_finish(ctx, &s, out);
}

static mmx_status mixed(mmx_ctx *ctx, mmx_mesh **out)
{
    /* A hexagon h0..h5 (radius 1), a ring of quads out to o0..o5 (radius 2), and a triangle on
     * each outer edge with its apex p_i at radius 3. */
    shape s;
    mmx_status st = shape_alloc(ctx, &s, 18, 13, 6 + 24 + 18);
    if (st) return st;
    for (int i = 0; i < 6; i++) add_vertex(&s, cos(PI / 3 * i), sin(PI / 3 * i), 0);
    for (int i = 0; i < 6; i++) add_vertex(&s, 2 * cos(PI / 3 * i), 2 * sin(PI / 3 * i), 0);
    for (int i = 0; i < 6; i++) add_vertex(&s, 3 * cos(PI / 3 * (i + 0.5)), 3 * sin(PI / 3 * (i + 0.5)), 0);
    const mmx_index hex[6] = {0, 1, 2, 3, 4, 5};
    add_face(&s, 6, hex);
    for (mmx_index i = 0; i < 6; i++) {
        mmx_index j = (i + 1) % 6;
        const mmx_index q[4] = {j, i, 6 + i, 6 + j};
        add_face(&s, 4, q);
    }
    for (mmx_index i = 0; i < 6; i++) {
        mmx_index j = (i + 1) % 6;
        const mmx_index t[3] = {6 + j, 6 + i, 12 + i};
        add_face(&s, 3, t);
    }
    return shape_finish(ctx, &s, out);
}

/* The sizes after a shape's name (":N", ":N:M", ...; up to 3, so that one too many is named as
 * such), each a whole number written in digits only (no sign, no blank, at most 9 digits: far
 * above every shape's limit), into sz[0 .. *count). 0 if fine, else 1 with the bad field in
 * `bad`. */
static int shape_sizes(const char *tail, long sz[3], int *count, char *bad, size_t cap)
{
    *count = 0;
    while (*tail) {
        const char *field = tail + 1;
        size_t len = strcspn(field, ":");
        int digits = *tail == ':' && len > 0 && len <= 9 && *count < 3;
        for (size_t i = 0; digits && i < len; i++) digits = field[i] >= '0' && field[i] <= '9';
        if (!digits) {
            snprintf(bad, cap, "%.*s", (int)(len < 40 ? len : 40), field);
            return 1;
        }
        sz[(*count)++] = strtol(field, NULL, 10);
        tail = field + len;
    }
    return 0;
}

mmx_status mmx_mesh_shape(mmx_ctx *ctx, const char *spec, mmx_mesh **out)
{
    MMX__NEED_CTX(ctx);
    if (!spec || !out) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_mesh_shape: NULL argument");
    *out = NULL;
    static const char known[] =
        "known: tetrahedron, cube, icosphere[:L], torus[:U:V], grid[:NX:NY], mixed";
    char name[32], bad[48];
    long sz[3] = {-1, -1, -1};
    int count = 0;
    size_t n = strcspn(spec, ":");
    if (n >= sizeof name) return mmx__fail(ctx, MMX_ERR_ARG, "unknown shape '%s' (%s)", spec, known);
    memcpy(name, spec, n);
    name[n] = '\0';
    if (shape_sizes(spec + n, sz, &count, bad, sizeof bad))
        return mmx__fail(ctx, MMX_ERR_ARG,
                         "shape '%s': the size '%s' is not a whole number >= 0 written in digits "
                         "(sizes are ':N' or ':N:M')", spec, bad);
    /* How many sizes each shape takes. */
    const int most = !strcmp(name, "icosphere") ? 1
                     : !strcmp(name, "torus") || !strcmp(name, "grid") ? 2
                     : 0;
    const int shape = most > 0 || !strcmp(name, "tetrahedron") || !strcmp(name, "cube") ||
                      !strcmp(name, "mixed");
    if (!shape) return mmx__fail(ctx, MMX_ERR_ARG, "unknown shape '%s' (%s)", spec, known);
    if (count > most)
        return mmx__fail(ctx, MMX_ERR_ARG, "shape '%s': %s takes %s (%s)", spec, name,
                         most == 0 ? "no size" : most == 1 ? "one size at most" : "two sizes at most",
                         known);
    const long a = sz[0], b = sz[1];
    if (!strcmp(name, "tetrahedron")) return tetrahedron(ctx, out);
    if (!strcmp(name, "cube")) return cube(ctx, out);
    if (!strcmp(name, "mixed")) return mixed(ctx, out);
    if (!strcmp(name, "icosphere")) return icosphere(ctx, a < 0 ? 2 : (int)(a > 99 ? 99 : a), out);
    if (!strcmp(name, "torus")) return torus(ctx, a < 0 ? 24 : a, b < 0 ? (a < 0 ? 12 : a) : b, out);
    return grid(ctx, a < 0 ? 8 : a, b < 0 ? (a < 0 ? 8 : a) : b, out);
}
