/* Meshes for the subdivision tests (subdiv_meshes.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testutil.h"
#include "subdiv_meshes.h"

/* ---- procedural meshes -------------------------------------------------------------------- */

/* Builds a mesh from face lists given as a flat array with -1 ending each face. */
mmx_mesh *from_lists(mmx_ctx *ctx, int nv, const float *pos, const int *lists, int len)
{
    mmx_index *start = malloc(sizeof *start * (size_t)(len + 1));
    mmx_index *verts = malloc(sizeof *verts * (size_t)(len + 1)); /* + 1: len may be 0 */
    cr_assert(start && verts);
    int nf = 0, nnz = 0;
    start[0] = 0;
    for (int i = 0; i < len; i++) {
        if (lists[i] < 0) start[++nf] = nnz;
        else verts[nnz++] = lists[i];
    }
    mmx_mesh *m = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_from_faces(ctx, nv, nf, start, verts, pos, &m));
    free(start);
    free(verts);
    return m;
}

/* A double cone over an n-gon: two apexes of valence n, closed triangles. */
mmx_mesh *bipyramid(mmx_ctx *ctx, int n)
{
    float *pos = malloc(sizeof *pos * 3 * (size_t)(n + 2));
    int *f = malloc(sizeof *f * 8 * (size_t)n);
    cr_assert(pos && f);
    for (int i = 0; i < n; i++) {
        double a = 2 * 3.14159265358979 * i / n;
        pos[3 * i] = (float)cos(a), pos[3 * i + 1] = (float)sin(a);
        pos[3 * i + 2] = 0.1f * (float)(i % 3); /* a ragged equator, not a flat one */
    }
    pos[3 * n] = 0, pos[3 * n + 1] = 0, pos[3 * n + 2] = 1.3f;
    pos[3 * n + 3] = 0.1f, pos[3 * n + 4] = 0, pos[3 * n + 5] = -0.9f;
    int k = 0;
    for (int i = 0; i < n; i++) {
        int j = (i + 1) % n;
        f[k++] = i, f[k++] = j, f[k++] = n, f[k++] = -1;
        f[k++] = j, f[k++] = i, f[k++] = n + 1, f[k++] = -1;
    }
    mmx_mesh *m = from_lists(ctx, n + 2, pos, f, k);
    free(pos);
    free(f);
    return m;
}

/* A cone over an n-gon closed by the n-gon itself: one face of order n and n triangles, an
 * apex of valence n (Catmull-Clark only). */
mmx_mesh *pyramid(mmx_ctx *ctx, int n)
{
    float *pos = malloc(sizeof *pos * 3 * (size_t)(n + 1));
    int *f = malloc(sizeof *f * (5 * (size_t)n + 1));
    cr_assert(pos && f);
    for (int i = 0; i < n; i++) {
        double a = 2 * 3.14159265358979 * i / n;
        pos[3 * i] = (float)cos(a), pos[3 * i + 1] = (float)sin(a), pos[3 * i + 2] = 0;
    }
    pos[3 * n] = 0.2f, pos[3 * n + 1] = 0, pos[3 * n + 2] = 1;
    int k = 0;
    for (int i = 0; i < n; i++) f[k++] = i, f[k++] = (i + 1) % n, f[k++] = n, f[k++] = -1;
    for (int i = n - 1; i >= 0; i--) f[k++] = i; /* the base, seen from below */
    f[k++] = -1;
    mmx_mesh *m = from_lists(ctx, n + 1, pos, f, k);
    free(pos);
    free(f);
    return m;
}

/* An open fan of n triangles around a centre of valence n, lifted into a saddle. */
mmx_mesh *fan(mmx_ctx *ctx, int n)
{
    float *pos = malloc(sizeof *pos * 3 * (size_t)(n + 2));
    int *f = malloc(sizeof *f * 4 * (size_t)n);
    cr_assert(pos && f);
    pos[0] = pos[1] = 0, pos[2] = 0.3f;
    for (int i = 0; i <= n; i++) {
        double a = 1.9 * 3.14159265358979 * i / n; /* an open wedge: the first and last spokes */
        pos[3 * (i + 1)] = (float)cos(a), pos[3 * (i + 1) + 1] = (float)sin(a);
        pos[3 * (i + 1) + 2] = 0.2f * (float)cos(2 * a);
    }
    int k = 0;
    for (int i = 1; i <= n; i++) f[k++] = 0, f[k++] = i, f[k++] = i + 1, f[k++] = -1;
    mmx_mesh *m = from_lists(ctx, n + 2, pos, f, k);
    free(pos);
    free(f);
    return m;
}

/* An open nx x ny grid of quads, each split into two triangles along alternating diagonals,
 * on a bumpy surface: boundary vertices of valence 2 (corners), 3 and 4. */
mmx_mesh *tri_grid(mmx_ctx *ctx, int nx, int ny)
{
    int nv = (nx + 1) * (ny + 1);
    float *pos = malloc(sizeof *pos * 3 * (size_t)nv);
    int *f = malloc(sizeof *f * 8 * (size_t)(nx * ny));
    cr_assert(pos && f);
    for (int y = 0; y <= ny; y++)
        for (int x = 0; x <= nx; x++) {
            float *p = pos + 3 * (y * (nx + 1) + x);
            p[0] = (float)x, p[1] = (float)y, p[2] = 0.3f * (float)sin(x * 0.9 + y * 0.4);
        }
    int k = 0;
    for (int y = 0; y < ny; y++)
        for (int x = 0; x < nx; x++) {
            int a = y * (nx + 1) + x, b = a + 1, c = a + nx + 2, d = a + nx + 1;
            if ((x + y) % 2) {
                f[k++] = a, f[k++] = b, f[k++] = c, f[k++] = -1;
                f[k++] = a, f[k++] = c, f[k++] = d, f[k++] = -1;
            } else {
                f[k++] = a, f[k++] = b, f[k++] = d, f[k++] = -1;
                f[k++] = b, f[k++] = c, f[k++] = d, f[k++] = -1;
            }
        }
    mmx_mesh *m = from_lists(ctx, nv, pos, f, k);
    free(pos);
    free(f);
    return m;
}

mmx_mesh *shape(mmx_ctx *ctx, const char *spec)
{
    mmx_mesh *m = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_shape(ctx, spec, &m));
    return m;
}

mmx_mesh *read_data(mmx_ctx *ctx, const char *name)
{
    mmx_mesh *m = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_read(ctx, tu_data(name), MMX_FORMAT_AUTO, &m));
    return m;
}

mmx_mesh *shuffled(mmx_ctx *ctx, mmx_mesh *m, uint64_t seed)
{
    mmx_mesh *s = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_shuffle(ctx, m, seed, NULL, NULL, &s));
    mmx_mesh_free(m);
    return s;
}


double mesh_diagonal(const mmx_mesh *m)
{
    float lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    for (int d = 0; d < 3 && m->M->nrows > 0; d++) lo[d] = hi[d] = m->pos[d];
    for (mmx_index v = 0; v < m->M->nrows; v++)
        for (int d = 0; d < 3; d++) {
            float x = m->pos[3 * (size_t)v + d];
            lo[d] = x < lo[d] ? x : lo[d], hi[d] = x > hi[d] ? x : hi[d];
        }
    double s = 0;
    for (int d = 0; d < 3; d++) s += (double)(hi[d] - lo[d]) * (hi[d] - lo[d]);
    return sqrt(s);
}

/* A disk: one n-gon on the unit circle, or with `pillow` also the n-gon run backwards, which
 * closes it into a two-sided pillow (every edge inner, every vertex of valence 2). */
mmx_mesh *ngon(mmx_ctx *ctx, int n, int pillow)
{
    const int nf = pillow ? 2 : 1;
    float *pos = malloc(sizeof *pos * 3 * (size_t)n);
    int *f = malloc(sizeof *f * (size_t)nf * (size_t)(n + 1));
    cr_assert(pos && f);
    for (int i = 0; i < n; i++) {
        double a = 2 * 3.14159265358979 * i / n;
        pos[3 * i] = (float)cos(a), pos[3 * i + 1] = (float)sin(a);
        pos[3 * i + 2] = (float)(0.1 * sin(3 * a)); /* not flat, so the rules are exercised */
        f[i] = i;
        if (pillow) f[n + 1 + i] = n - 1 - i;
    }
    f[n] = -1;
    if (pillow) f[2 * n + 1] = -1;
    mmx_mesh *m = from_lists(ctx, n, pos, f, nf * (n + 1));
    free(pos);
    free(f);
    return m;
}

/* n vertices on a line and no face. */
mmx_mesh *no_faces(mmx_ctx *ctx, int n)
{
    float *pos = calloc(3 * (size_t)n, sizeof *pos);
    cr_assert(pos);
    for (int i = 0; i < n; i++) pos[3 * i] = (float)i, pos[3 * i + 1] = 0.5f * (float)i;
    mmx_mesh *m = from_lists(ctx, n, pos, NULL, 0);
    free(pos);
    return m;
}

mmx_mesh *pillow(mmx_ctx *ctx, int after_tetrahedron)
{
    static const float pos[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1,
                                2, 0, 0, 3, 0, 0, 2, 1, 0.5f};
    static const int tet_pillow[] = {0, 2, 1, -1, 0, 1, 3, -1, 1, 2, 3, -1, 2, 0, 3, -1,
                                     4, 5, 6, -1, 6, 5, 4, -1};
    /* Alone, about the origin: the tests' tolerance is a fraction of the diagonal, and float
     * rounding a fraction of the coordinates. */
    static const float lone_pos[] = {-0.5f, -0.5f, 0, 0.5f, -0.5f, 0, -0.5f, 0.5f, 0.5f};
    static const int lone[] = {0, 1, 2, -1, 2, 1, 0, -1};
    if (after_tetrahedron) return from_lists(ctx, 7, pos, tet_pillow, 24);
    return from_lists(ctx, 3, lone_pos, lone, 8);
}

mmx_mesh *with_creases(mmx_mesh *m, int step, const char *extra)
{
    static const float sharpness[] = {10.0f, 2.5f, 0.5f, 1.0f, 3.7f};
    const mmx_csc *M = m->M;
    size_t cap = 64 + (extra ? strlen(extra) : 0), len = 0;
    char *t = malloc(cap);
    cr_assert_not_null(t);
    t[0] = '\0';
    int seen = 0, made = 0;
    for (mmx_index k = 0; k < M->ncols; k++) {
        const mmx_index a = M->order ? M->order * k : M->colptr[k];
        const mmx_index n = M->order ? M->order : M->colptr[k + 1] - a;
        for (mmx_index s = 0; s < n; s++) {
            const mmx_index u = M->rowidx[a + s], w = M->rowidx[a + (s + 1) % n];
            if (u > w || seen++ % step) continue;
            char line[96];
            const int w_len = snprintf(line, sizeof line, "t crease 2/1/0 %d %d %g\n", u, w,
                                       (double)sharpness[made++ % 5]);
            if (len + (size_t)w_len + 1 > cap) {
                cap = 2 * cap + (size_t)w_len;
                t = realloc(t, cap);
                cr_assert_not_null(t);
            }
            memcpy(t + len, line, (size_t)w_len + 1);
            len += (size_t)w_len;
        }
    }
    if (extra) {
        t = realloc(t, len + strlen(extra) + 1);
        cr_assert_not_null(t);
        memcpy(t + len, extra, strlen(extra) + 1);
    }
    free(m->tags);
    m->tags = t;
    return m;
}
