/*
 * tests/oracle/compare.c: two meshes compared up to vertex and face order, and the small
 * helpers the oracle shims share.
 *
 * The vertex match (nearest neighbour in a uniform hash grid) is only a hypothesis; the face
 * check, every face of a renamed through the match equal to a face of b as a multiset of
 * canonical cycles, is what proves the topology equal.
 */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oracle_internal.h"

int oracle__say(char *buf, size_t cap, const char *fmt, ...)
{
    if (buf && cap > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(buf, cap, fmt, ap);
        va_end(ap);
    }
    return 1;
}

void oracle_mesh_free(oracle_mesh *m)
{
    if (!m)
        return;
    free(m->start);
    free(m->verts);
    free(m->pos);
    memset(m, 0, sizeof *m);
}

int oracle__alloc_mesh(oracle_mesh *out, int nverts, int nfaces, long long ncorners)
{
    memset(out, 0, sizeof *out);
    if (nverts < 0 || nfaces < 0 || ncorners < 0 || ncorners > INT_MAX)
        return 1;
    out->nverts = nverts;
    out->nfaces = nfaces;
    /* At least one element each, so that malloc(0) returning NULL is no failure. */
    out->start = malloc(sizeof(int) * ((size_t)nfaces + 1));
    out->verts = malloc(sizeof(int) * (ncorners > 0 ? (size_t)ncorners : 1));
    out->pos = malloc(sizeof(double) * 3 * (nverts > 0 ? (size_t)nverts : 1));
    if (!out->start || !out->verts || !out->pos) {
        oracle_mesh_free(out);
        return 1;
    }
    out->start[0] = 0;
    return 0;
}

int oracle__check_mesh(const oracle_mesh *m, char *err, size_t cap)
{
    return oracle__check_faces(m, 0, err, cap);
}

int oracle__check_faces(const oracle_mesh *m, int repeats, char *err, size_t cap)
{
    if (!m)
        return oracle__say(err, cap, "mesh is NULL");
    if (m->nverts < 0 || m->nfaces < 0)
        return oracle__say(err, cap, "negative counts (%d vertices, %d faces)", m->nverts, m->nfaces);
    if (m->nverts > 0 && !m->pos)
        return oracle__say(err, cap, "%d vertices but no positions", m->nverts);
    if (m->nfaces > 0 && (!m->start || !m->verts))
        return oracle__say(err, cap, "%d faces but no face arrays", m->nfaces);
    if (m->nfaces == 0)
        return 0;
    if (m->start[0] != 0)
        return oracle__say(err, cap, "start[0] is %d, not 0", m->start[0]);
    for (int f = 0; f < m->nfaces; ++f) {
        int b = m->start[f], e = m->start[f + 1];
        if (e - b < 3)
            return oracle__say(err, cap, "face %d has %d vertices (at least 3 needed)", f, e - b);
        for (int k = b; k < e; ++k) {
            int v = m->verts[k];
            if (v < 0 || v >= m->nverts)
                return oracle__say(err, cap, "face %d names vertex %d, out of range [0, %d)", f, v,
                           m->nverts);
            for (int l = b; !repeats && l < k; ++l)
                if (m->verts[l] == v)
                    return oracle__say(err, cap, "face %d has vertex %d twice", f, v);
        }
    }
    return 0;
}

/* ---- sorting with a context (qsort has none in C11) ------------------------------------- */

typedef int (*cmp_fn)(int x, int y, const void *ctx);

static void merge_sort(int *a, int *tmp, int n, cmp_fn cmp, const void *ctx)
{
    if (n < 2)
        return;
    int h = n / 2;
    merge_sort(a, tmp, h, cmp, ctx);
    merge_sort(a + h, tmp, n - h, cmp, ctx);
    int i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = cmp(a[j], a[i], ctx) < 0 ? a[j++] : a[i++];
    while (i < h)
        tmp[k++] = a[i++];
    while (j < n)
        tmp[k++] = a[j++];
    memcpy(a, tmp, sizeof(int) * (size_t)n);
}

/* Faces in canonical form: the same start as the mesh, each cycle rotated so its smallest
 * vertex comes first. */
typedef struct faces {
    int nfaces;
    const int *start;
    int *cyc;
} faces;

static int face_cmp(int x, int y, const void *ctx)
{
    const faces *F = ctx;
    int nx = F->start[x + 1] - F->start[x], ny = F->start[y + 1] - F->start[y];
    if (nx != ny)
        return nx < ny ? -1 : 1;
    const int *p = F->cyc + F->start[x], *q = F->cyc + F->start[y];
    for (int k = 0; k < nx; ++k)
        if (p[k] != q[k])
            return p[k] < q[k] ? -1 : 1;
    return 0;
}

/* Compares face x of A with face y of B (both canonical). */
static int face_cmp2(const faces *A, int x, const faces *B, int y)
{
    int nx = A->start[x + 1] - A->start[x], ny = B->start[y + 1] - B->start[y];
    if (nx != ny)
        return nx < ny ? -1 : 1;
    const int *p = A->cyc + A->start[x], *q = B->cyc + B->start[y];
    for (int k = 0; k < nx; ++k)
        if (p[k] != q[k])
            return p[k] < q[k] ? -1 : 1;
    return 0;
}

/* Writes the cycle vs[0..n) rotated to start at its smallest entry into out. */
/* The face's rotation that is smallest in lexicographic order: one start for a face without
 * repeated vertices, the least of those at its smallest vertex otherwise (OpenSubdiv's faces
 * may name a vertex twice). */
static void canon(const int *vs, int n, int *out)
{
    int m = 0;
    for (int k = 1; k < n; ++k)
        if (vs[k] < vs[m])
            m = k;
    for (int k = m + 1; k < n; ++k) {
        if (vs[k] != vs[m])
            continue;
        int d = 0;
        for (int i = 1; i < n && !d; ++i)
            d = (vs[(k + i) % n] > vs[(m + i) % n]) - (vs[(k + i) % n] < vs[(m + i) % n]);
        if (d < 0)
            m = k;
    }
    for (int k = 0; k < n; ++k)
        out[k] = vs[(m + k) % n];
}

/* "v0 v1 v2 ..." of at most 8 entries, into buf. */
static void list_str(const int *vs, int n, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int k = 0; k < n && k < 8 && len < cap; ++k) {
        int w = snprintf(buf + len, cap - len, "%s%d", k ? " " : "", vs[k]);
        if (w < 0)
            break;
        len += (size_t)w;
    }
    if (n > 8 && len < cap)
        snprintf(buf + len, cap - len, " ...(%d)", n);
}

/* ---- the vertex match --------------------------------------------------------------------- */

static uint64_t mix64(uint64_t k)
{
    k ^= k >> 30;
    k *= 0xBF58476D1CE4E5B9ull;
    k ^= k >> 27;
    k *= 0x94D049BB133111EBull;
    k ^= k >> 31;
    return k;
}

static double dist(const double *p, const double *q)
{
    double dx = p[0] - q[0], dy = p[1] - q[1], dz = p[2] - q[2];
    return sqrt(dx * dx + dy * dy + dz * dz);
}

/* A uniform hash grid over b's vertices: cell edge h >= tol, so every vertex within tol of a
 * point lies in the 27 cells around the point's cell. */
typedef struct grid {
    const oracle_mesh *b;
    double lo[3], h;
    uint64_t mask;
    int *head; /* mask + 2 entries: bucket k holds item[head[k] .. head[k+1]) */
    int *item;
} grid;

#define CELL_CLAMP 1099511627776.0 /* 2^40 cells: far beyond any cell holding a vertex of b */

static int64_t cell_of(const grid *g, const double *p, int c)
{
    double q = floor((p[c] - g->lo[c]) / g->h);
    if (!(q > -CELL_CLAMP))
        q = -CELL_CLAMP;
    if (q > CELL_CLAMP)
        q = CELL_CLAMP;
    return (int64_t)q;
}

static uint64_t bucket_of(const grid *g, int64_t x, int64_t y, int64_t z)
{
    return mix64((uint64_t)x * 0x9E3779B97F4A7C15ull ^ (uint64_t)y * 0xC2B2AE3D27D4EB4Full ^
                 (uint64_t)z * 0x165667B19E3779F9ull) &
           g->mask;
}

static uint64_t bucket_of_point(const grid *g, const double *p)
{
    return bucket_of(g, cell_of(g, p, 0), cell_of(g, p, 1), cell_of(g, p, 2));
}

static int grid_build(grid *g, const oracle_mesh *b, const double lo[3], double h)
{
    int n = b->nverts;
    uint64_t nb = 1;
    while (nb < 2 * (uint64_t)(n > 0 ? n : 1))
        nb <<= 1;
    g->b = b;
    memcpy(g->lo, lo, sizeof g->lo);
    g->h = h;
    g->mask = nb - 1;
    g->head = calloc((size_t)nb + 2, sizeof(int));
    g->item = malloc(sizeof(int) * (n > 0 ? (size_t)n : 1));
    if (!g->head || !g->item)
        return 1;
    /* Counting sort of b's vertices by bucket. */
    for (int j = 0; j < n; ++j)
        g->head[bucket_of_point(g, b->pos + 3 * (size_t)j) + 2]++;
    for (uint64_t k = 0; k < nb; ++k)
        g->head[k + 2] += g->head[k + 1];
    for (int j = 0; j < n; ++j)
        g->item[g->head[bucket_of_point(g, b->pos + 3 * (size_t)j) + 1]++] = j;
    return 0;
}

static void grid_free(grid *g)
{
    free(g->head);
    free(g->item);
}

/* Calls fn(j, d, arg) for every vertex j of b in the 27 cells around p (a bucket shared by two
 * of those cells is visited once per cell: callers must not mind). */
typedef void (*visit_fn)(int j, double d, void *arg);

static void grid_visit(const grid *g, const double *p, visit_fn fn, void *arg)
{
    int64_t c[3] = {cell_of(g, p, 0), cell_of(g, p, 1), cell_of(g, p, 2)};
    for (int dx = -1; dx <= 1; ++dx)
        for (int dy = -1; dy <= 1; ++dy)
            for (int dz = -1; dz <= 1; ++dz) {
                uint64_t bk = bucket_of(g, c[0] + dx, c[1] + dy, c[2] + dz);
                for (int k = g->head[bk]; k < g->head[bk + 1]; ++k) {
                    int j = g->item[k];
                    fn(j, dist(p, g->b->pos + 3 * (size_t)j), arg);
                }
            }
}

typedef struct nearest_acc {
    int best;
    double d;
} nearest_acc;

static void nearest_fn(int j, double d, void *arg)
{
    nearest_acc *acc = arg;
    if (d < acc->d || (d == acc->d && j < acc->best)) {
        acc->d = d;
        acc->best = j;
    }
}

static void visit_bucket(const grid *g, uint64_t bk, const double *p, nearest_acc *acc)
{
    for (int k = g->head[bk]; k < g->head[bk + 1]; ++k) {
        int j = g->item[k];
        nearest_fn(j, dist(p, g->b->pos + 3 * (size_t)j), acc);
    }
}

/* The nearest vertex of b to p if one lies within tol (acc->best = -1 or acc->d > tol if
 * not). p's own cell first; then only the neighbour cells that meet the ball of radius
 * min(best so far, tol) around p, usually none (cells are 4 tol wide). */
static void grid_nearest(const grid *g, const double *p, double tol, nearest_acc *acc)
{
    int64_t c[3];
    int need_lo[3], need_hi[3];
    acc->best = -1;
    acc->d = INFINITY;
    for (int a = 0; a < 3; ++a)
        c[a] = cell_of(g, p, a);
    visit_bucket(g, bucket_of(g, c[0], c[1], c[2]), p, acc);
    double r = (acc->d < tol ? acc->d : tol) + g->h * 1e-9; /* slack for the rounding of x0 */
    for (int a = 0; a < 3; ++a) {
        double x0 = g->lo[a] + (double)c[a] * g->h; /* the cell's lower face on axis a */
        need_lo[a] = p[a] - x0 <= r;
        need_hi[a] = x0 + g->h - p[a] <= r;
    }
    for (int dx = -1; dx <= 1; ++dx)
        for (int dy = -1; dy <= 1; ++dy)
            for (int dz = -1; dz <= 1; ++dz) {
                int o[3] = {dx, dy, dz}, use = dx || dy || dz;
                for (int a = 0; a < 3 && use; ++a)
                    use = o[a] == 0 || (o[a] < 0 ? need_lo[a] : need_hi[a]);
                if (use)
                    visit_bucket(g, bucket_of(g, c[0] + dx, c[1] + dy, c[2] + dz), p, acc);
            }
}

/* ---- coincident vertices: told apart by the topology ---------------------------------------- */

static int uf_find(int *parent, int x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

typedef struct union_acc {
    int *parent;
    int j;
    double tol;
} union_acc;

static void union_fn(int k, double d, void *arg)
{
    union_acc *u = arg;
    if (d <= u->tol) {
        int x = uf_find(u->parent, u->j), y = uf_find(u->parent, k);
        if (x != y)
            u->parent[x < y ? y : x] = x < y ? x : y;
    }
}

/* One round of colour refinement: a vertex's new colour hashes its colour with the multiset of
 * (colour before it, colour after it) over its corners, so the faces' cyclic direction counts. */
static void refine_colors(const oracle_mesh *m, const uint64_t *col, uint64_t *acc,
                          uint64_t *out)
{
    memset(acc, 0, sizeof(uint64_t) * (size_t)m->nverts);
    for (int f = 0; f < m->nfaces; ++f) {
        int s = m->start[f], c = m->start[f + 1] - s;
        for (int k = 0; k < c; ++k) {
            int v = m->verts[s + k], p = m->verts[s + (k + c - 1) % c],
                q = m->verts[s + (k + 1) % c];
            acc[v] += mix64(mix64(col[p]) ^ (col[q] * 0x9E3779B97F4A7C15ull));
        }
    }
    for (int v = 0; v < m->nverts; ++v)
        out[v] = mix64(col[v] ^ mix64(acc[v] + 0x632BE59BD9B4E019ull));
}

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

static int count_distinct(const uint64_t *col, uint64_t *tmp, int n)
{
    memcpy(tmp, col, sizeof(uint64_t) * (size_t)n);
    qsort(tmp, (size_t)n, sizeof(uint64_t), cmp_u64);
    int d = n > 0;
    for (int i = 1; i < n; ++i)
        d += tmp[i] != tmp[i - 1];
    return d;
}

/* Sorting b's vertex numbers by colour (merge_sort's context). */
static int col_cmp(int x, int y, const void *ctx)
{
    const uint64_t *col = ctx;
    return col[x] < col[y] ? -1 : col[x] > col[y];
}

/* Redoes the match where vertices coincide: vertices of b closer than tol are one position
 * class; a vertex of a starts in the class of its nearest vertex of b; colours are then refined
 * on both meshes alike until the number of classes stops growing, and each vertex of a takes an
 * unused vertex of b of its final colour. Vertices the topology cannot tell apart either are
 * paired in order (the face check decides). conflict_j / conflict_i: the first vertex of b
 * claimed twice and its second claimant, for the report. */
static int match_by_topology(const oracle_mesh *a, const oracle_mesh *b, const grid *g,
                             double tol, double diag, int *match, double *md, int conflict_j,
                             int conflict_i, char *report, size_t cap)
{
    int n = a->nverts, rc = 1;
    size_t sz = n > 0 ? (size_t)n : 1;
    int *parent = malloc(sizeof(int) * sz), *order = malloc(sizeof(int) * sz),
        *tmp = malloc(sizeof(int) * sz), *cursor = malloc(sizeof(int) * sz);
    /* Zeroed, so that no compiler sees an unset colour (n = 0 copies nothing). */
    uint64_t *ca = calloc(sz, sizeof(uint64_t)), *cb = calloc(sz, sizeof(uint64_t)),
             *na = calloc(sz, sizeof(uint64_t)), *nb = calloc(sz, sizeof(uint64_t)),
             *acc = calloc(sz, sizeof(uint64_t));
    if (!parent || !order || !tmp || !cursor || !ca || !cb || !na || !nb || !acc) {
        oracle__say(report, cap, "out of memory matching %d vertices", n);
        goto done;
    }
    for (int j = 0; j < n; ++j)
        parent[j] = j;
    for (int j = 0; j < n; ++j) {
        union_acc u = {parent, j, tol};
        grid_visit(g, b->pos + 3 * (size_t)j, union_fn, &u);
    }
    for (int j = 0; j < n; ++j)
        cb[j] = mix64((uint64_t)uf_find(parent, j) + 1);
    for (int i = 0; i < n; ++i)
        ca[i] = cb[uf_find(parent, match[i])];
    /* Refined until the classes stop growing; then, while a class of b holds several
     * vertices (a symmetry colours cannot break, as among the children of a face on one
     * vertex), one vertex of a and one of b of that colour get a colour of their own and the
     * refinement goes on (individualisation; the face check proves the result). */
    for (int pick = 0; pick <= n; ++pick) {
        int classes = count_distinct(cb, acc, n);
        for (int round = 0; round < 64; ++round) {
            refine_colors(a, ca, acc, na);
            refine_colors(b, cb, acc, nb);
            int c2 = count_distinct(nb, acc, n);
            memcpy(ca, na, sizeof(uint64_t) * (size_t)n);
            memcpy(cb, nb, sizeof(uint64_t) * (size_t)n);
            if (c2 <= classes)
                break;
            classes = c2;
        }
        for (int j = 0; j < n; ++j)
            order[j] = j;
        merge_sort(order, tmp, n, col_cmp, cb);
        int run = -1;
        for (int k = 1; k < n && run < 0; ++k)
            if (cb[order[k]] == cb[order[k - 1]])
                run = k - 1;
        if (run < 0)
            break;
        const uint64_t c = cb[order[run]], fresh = mix64(c ^ mix64((uint64_t)pick + 0x51ED27ull));
        int i = 0;
        while (i < n && ca[i] != c)
            ++i;
        if (i == n)
            break; /* no partner in a: reported below */
        ca[i] = cb[order[run]] = fresh;
    }
    for (int j = 0; j < n; ++j)
        order[j] = j;
    merge_sort(order, tmp, n, col_cmp, cb);
    for (int k = 0; k < n; ++k)
        cursor[k] = k; /* at a run's first position: the next unused position of the run */
    for (int i = 0; i < n; ++i) {
        /* The run of colour ca[i] in order[], by binary search. */
        int lo = 0, hi = n;
        while (lo < hi) {
            int mid = lo + (hi - lo) / 2;
            if (cb[order[mid]] < ca[i])
                lo = mid + 1;
            else
                hi = mid;
        }
        int k = lo < n ? cursor[lo] : n;
        if (lo >= n || cb[order[lo]] != ca[i] || k >= n || cb[order[k]] != ca[i]) {
            oracle__say(report, cap,
                "vertex %d of b matched twice (the nearest to vertices %d and %d of a); "
                "matching coincident vertices by topology left vertex %d of a without a "
                "partner",
                conflict_j, match[conflict_i], conflict_i, i);
            goto done;
        }
        cursor[lo] = k + 1;
        int j = order[k];
        double d = dist(a->pos + 3 * (size_t)i, b->pos + 3 * (size_t)j);
        if (d > tol) {
            oracle__say(report, cap,
                "vertex %d of a: its partner by topology among coincident vertices, vertex %d "
                "of b, lies at %.3g of the diagonal",
                i, j, d / diag);
            goto done;
        }
        match[i] = j;
        md[i] = d;
    }
    rc = 0;
done:
    free(parent);
    free(order);
    free(tmp);
    free(cursor);
    free(ca);
    free(cb);
    free(na);
    free(nb);
    free(acc);
    return rc;
}

/* Matches every vertex of a to one of b within tol (a bijection); md[i] gets the distances. */
static int match_vertices(const oracle_mesh *a, const oracle_mesh *b, const double lo[3],
                          double tol, double diag, double rel_tol, int *match, double *md,
                          char *report, size_t cap)
{
    int n = a->nverts, rc = 1;
    grid g;
    double h = 4.0 * tol;
    if (h < diag * 1e-9)
        h = diag * 1e-9;
    int *owner = malloc(sizeof(int) * (n > 0 ? (size_t)n : 1));
    if (grid_build(&g, b, lo, h) || !owner) {
        oracle__say(report, cap, "out of memory matching %d vertices", n);
        goto done;
    }
    for (int j = 0; j < n; ++j)
        owner[j] = -1;
    int conflict_j = -1, conflict_i = -1;
    for (int i = 0; i < n; ++i) {
        const double *p = a->pos + 3 * (size_t)i;
        nearest_acc acc;
        grid_nearest(&g, p, tol, &acc);
        if (acc.best < 0 || acc.d > tol) {
            /* The nearest of all, for the report. */
            nearest_acc all = {-1, INFINITY};
            for (int k = 0; k < n; ++k)
                nearest_fn(k, dist(p, b->pos + 3 * (size_t)k), &all);
            oracle__say(report, cap,
                "vertex %d of a (%.9g %.9g %.9g) has no vertex of b within tol %.3g: the nearest "
                "is vertex %d at distance %.3g of the diagonal",
                i, p[0], p[1], p[2], rel_tol, all.best, all.d / diag);
            goto done;
        }
        match[i] = acc.best;
        md[i] = acc.d;
        if (owner[acc.best] >= 0 && conflict_j < 0) {
            conflict_j = acc.best;
            conflict_i = i;
        }
        owner[acc.best] = i;
    }
    /* Injective between two sets of n vertices: a bijection. */
    if (conflict_j < 0)
        rc = 0;
    else
        rc = match_by_topology(a, b, &g, tol, diag, match, md, conflict_j, conflict_i, report,
                               cap);
done:
    grid_free(&g);
    free(owner);
    return rc;
}

/* ---- faces ---------------------------------------------------------------------------------- */

/* Every face of a, renamed through match, must be a face of b (as multisets of canonical
 * cycles). */
static int compare_faces(const oracle_mesh *a, const oracle_mesh *b, const int *match,
                         char *report, size_t cap)
{
    int nf = a->nfaces, rc = 1;
    size_t nc = nf ? (size_t)a->start[nf] : 0;
    faces A = {nf, a->start, malloc(sizeof(int) * (nc > 0 ? nc : 1))};
    faces B = {nf, b->start, malloc(sizeof(int) * (nc > 0 ? nc : 1))};
    int *ren = malloc(sizeof(int) * (nc > 0 ? nc : 1));
    size_t fsz = nf > 0 ? (size_t)nf : 1;
    int *oa = malloc(sizeof(int) * fsz), *ob = malloc(sizeof(int) * fsz),
        *tmp = malloc(sizeof(int) * fsz);
    if (!A.cyc || !B.cyc || !ren || !oa || !ob || !tmp) {
        oracle__say(report, cap, "out of memory comparing %d faces", nf);
        goto done;
    }
    for (size_t k = 0; k < nc; ++k)
        ren[k] = match[a->verts[k]];
    for (int f = 0; f < nf; ++f) {
        int s = a->start[f];
        canon(ren + s, a->start[f + 1] - s, A.cyc + s);
        s = b->start[f];
        canon(b->verts + s, b->start[f + 1] - s, B.cyc + s);
        oa[f] = ob[f] = f;
    }
    merge_sort(oa, tmp, nf, face_cmp, &A);
    merge_sort(ob, tmp, nf, face_cmp, &B);
    int lone_a = -1, lone_b = -1;
    for (int i = 0, j = 0; i < nf || j < nf;) {
        int c = i >= nf ? 1 : j >= nf ? -1 : face_cmp2(&A, oa[i], &B, ob[j]);
        if (c == 0) {
            ++i;
            ++j;
        } else if (c < 0) {
            if (lone_a < 0)
                lone_a = oa[i];
            ++i;
        } else {
            if (lone_b < 0)
                lone_b = ob[j];
            ++j;
        }
    }
    if (lone_a >= 0) {
        char l1[128], l2[128];
        int s = a->start[lone_a], c = a->start[lone_a + 1] - s, reversed = 0;
        list_str(a->verts + s, c, l1, sizeof l1);
        list_str(A.cyc + s, c, l2, sizeof l2);
        /* Is it in b with the opposite direction? */
        int *rev = malloc(sizeof(int) * 2 * (size_t)c);
        if (rev) {
            for (int k = 0; k < c; ++k)
                rev[k] = A.cyc[s + c - 1 - k];
            canon(rev, c, rev + c);
            for (int g2 = 0; g2 < nf && !reversed; ++g2) {
                int t = b->start[g2];
                reversed = b->start[g2 + 1] - t == c &&
                           !memcmp(B.cyc + t, rev + c, sizeof(int) * (size_t)c);
            }
            free(rev);
        }
        oracle__say(report, cap, "face %d of a (%s; as vertices of b: %s) has no partner in b%s", lone_a,
            l1, l2, reversed ? " (b has it with the opposite orientation)" : "");
        goto done;
    }
    if (lone_b >= 0) {
        char l1[128];
        int s = b->start[lone_b];
        list_str(b->verts + s, b->start[lone_b + 1] - s, l1, sizeof l1);
        oracle__say(report, cap, "face %d of b (%s) has no partner in a", lone_b, l1);
        goto done;
    }
    rc = 0;
done:
    free(A.cyc);
    free(B.cyc);
    free(ren);
    free(oa);
    free(ob);
    free(tmp);
    return rc;
}

/* ---- the comparison ------------------------------------------------------------------------ */

static int all_finite(const oracle_mesh *m, const char *name, char *report, size_t cap)
{
    for (size_t i = 0; i < 3 * (size_t)m->nverts; ++i)
        if (!isfinite(m->pos[i]))
            return oracle__say(report, cap, "vertex %zu of %s has a non-finite coordinate", i / 3,
                       name);
    return 0;
}

int oracle_compare(const oracle_mesh *a, const oracle_mesh *b, double rel_tol, double *max_err,
                   char *report, size_t cap)
{
    char why[200];
    if (max_err)
        *max_err = -1.0;
    if (report && cap > 0)
        report[0] = '\0';
    if (oracle__check_faces(a, 1, why, sizeof why))
        return oracle__say(report, cap, "mesh a is invalid: %s", why);
    if (oracle__check_faces(b, 1, why, sizeof why))
        return oracle__say(report, cap, "mesh b is invalid: %s", why);
    if (!(rel_tol >= 0.0) || !isfinite(rel_tol))
        return oracle__say(report, cap, "relative tolerance %g is not a finite number >= 0", rel_tol);
    if (a->nverts != b->nverts)
        return oracle__say(report, cap, "vertex counts differ: a has %d, b has %d", a->nverts,
                   b->nverts);
    if (a->nfaces != b->nfaces)
        return oracle__say(report, cap, "face counts differ: a has %d, b has %d", a->nfaces,
                   b->nfaces);
    int ca = a->nfaces ? a->start[a->nfaces] : 0, cb = b->nfaces ? b->start[b->nfaces] : 0;
    if (ca != cb)
        return oracle__say(report, cap, "corner counts (sums of face orders) differ: a has %d, b has %d",
                   ca, cb);
    if (all_finite(a, "a", report, cap) || all_finite(b, "b", report, cap))
        return 1;

    int n = a->nverts;
    double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    for (int j = 0; j < n; ++j)
        for (int c = 0; c < 3; ++c) {
            double x = b->pos[3 * (size_t)j + (size_t)c];
            if (j == 0 || x < lo[c])
                lo[c] = x;
            if (j == 0 || x > hi[c])
                hi[c] = x;
        }
    double diag = sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                       (hi[2] - lo[2]) * (hi[2] - lo[2]));
    if (!(diag > 0.0))
        diag = 1.0;
    double tol = rel_tol * diag;

    size_t sz = n > 0 ? (size_t)n : 1;
    int *match = malloc(sizeof(int) * sz);
    double *md = malloc(sizeof(double) * sz);
    int rc = 1;
    if (!match || !md)
        oracle__say(report, cap, "out of memory comparing meshes of %d vertices", n);
    else if (!match_vertices(a, b, lo, tol, diag, rel_tol, match, md, report, cap)) {
        double worst = 0.0;
        for (int i = 0; i < n; ++i)
            if (md[i] > worst)
                worst = md[i];
        if (max_err)
            *max_err = worst / diag;
        rc = compare_faces(a, b, match, report, cap);
    }
    free(match);
    free(md);
    return rc;
}

/* Whether face g of b, rotated by rot, has face f of a's corners in the same cyclic order,
 * each within ptol. */
static int same_corners(const oracle_mesh *a, int f, const oracle_mesh *b, int g, int rot, double ptol)
{
    const int s0 = a->start[f], t0 = b->start[g], n = a->start[f + 1] - s0;
    for (int k = 0; k < n; k++) {
        double d = 0;
        for (int i = 0; i < 3; i++) {
            const double x = a->pos[3 * a->verts[s0 + k] + i] - b->pos[3 * b->verts[t0 + (rot + k) % n] + i];
            d += x * x;
        }
        if (d > ptol * ptol) return 0;
    }
    return 1;
}

int oracle_compare_uv(const oracle_mesh *a, const double *auv, const oracle_mesh *b,
                      const double *buv, double tol, double *max_err, char *report, size_t cap)
{
    if (report && cap) report[0] = '\0';
    if (max_err) *max_err = 0.0;
    if (a->nfaces != b->nfaces) {
        snprintf(report, cap, "face counts differ: %d and %d", a->nfaces, b->nfaces);
        return 1;
    }
    /* Positions match within 1e-5 of b's box diagonal (oracle_compare's default). */
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int v = 0; v < b->nverts; v++)
        for (int i = 0; i < 3; i++) lo[i] = fmin(lo[i], b->pos[3 * v + i]), hi[i] = fmax(hi[i], b->pos[3 * v + i]);
    double diag = b->nverts ? sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                                   (hi[2] - lo[2]) * (hi[2] - lo[2])) : 1.0;
    const double ptol = 1e-5 * (diag > 0 ? diag : 1.0);
    unsigned char *used = calloc((size_t)b->nfaces + 1, 1);
    if (!used) {
        snprintf(report, cap, "out of memory");
        return 1;
    }
    int rc = 0;
    for (int f = 0; f < a->nfaces && !rc; f++) {
        const int s0 = a->start[f], n = a->start[f + 1] - s0;
        /* A face of b with a's corners in the same cyclic order (coincident faces, such as
         * back-to-back ones, differ in that order or are told apart by use), one with a's
         * coordinates too where there is one (faces whose corners all coincide, as the
         * children of a face on one vertex, are told apart by them alone). */
        int best = -1, rot = 0, exact = 0;
        for (int g = 0; g < b->nfaces && !exact; g++) {
            if (used[g] || b->start[g + 1] - b->start[g] != n) continue;
            for (int r = 0; r < n && !exact; r++) {
                if (!same_corners(a, f, b, g, r, ptol)) continue;
                double e = 0;
                for (int k = 0; k < n; k++) {
                    const double *u = auv + 2 * (size_t)(s0 + k);
                    const double *w = buv + 2 * (size_t)(b->start[g] + (r + k) % n);
                    e = fmax(e, fmax(fabs(u[0] - w[0]), fabs(u[1] - w[1])));
                }
                exact = e <= tol;
                if (best < 0 || exact) best = g, rot = r;
            }
        }
        if (best < 0) {
            snprintf(report, cap, "face %d of a has no face of b with its corners", f);
            rc = 1;
            break;
        }
        used[best] = 1;
        const int t0 = b->start[best];
        for (int k = 0; k < n; k++) {
            const double *u = auv + 2 * (size_t)(s0 + k), *r = buv + 2 * (size_t)(t0 + (rot + k) % n);
            const double e = fmax(fabs(u[0] - r[0]), fabs(u[1] - r[1]));
            if (max_err && e > *max_err) *max_err = e;
            if (e > tol) {
                snprintf(report, cap, "face %d corner %d: (%.9g, %.9g), b has (%.9g, %.9g)", f, k,
                         u[0], u[1], r[0], r[1]);
                rc = 1;
                break;
            }
        }
    }
    free(used);
    return rc;
}
