/* The partitioned mesh over MPI ranks against the single process (dist.h), run by meson under
 * `mpirun --oversubscribe -n R` for R = 2, 3, 4 (and directly, as one rank). Not a Criterion
 * suite: Criterion forks a process per test, and a forked child cannot be an MPI rank. Each
 * check runs on every rank; rank 0 compares the gathered results with its own single-process
 * run; the failures are summed over the ranks and rank 0 prints them. Exit 77 (skipped) when
 * the build has no MPI.
 * Meshes: built-in shapes (grid: boundaries and holes; torus; mixed orders; icosphere),
 * crease tags on every third edge, two cubes sharing a vertex (non-manifold) and triangle
 * grids with boundary (sqrt3's alternating boundary rule) and a triangulated torus; hole tags
 * ("holed:": the first face, at the boundary of the open shapes, and every seventh, which
 * puts holes inside and beside the cuts; check_subdiv counts those beside a cut). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "meshmatrix.h"
#include "meshmatrix/dist.h"
#ifdef MMX_HAVE_MPI
#include <mpi.h>
#endif

static int rank, failures;

/* MMX_DIST_TRACE set: each check says on stderr where every rank is (a hang shows which
 * collective a rank did not reach). */
static void trace(const char *what, const char *name, int k)
{
    if (!getenv("MMX_DIST_TRACE")) return;
    fprintf(stderr, "rank %d: %s %s %d\n", rank, what, name ? name : "", k);
    fflush(stderr);
}

/* Small patches (8 faces), so that the small test meshes are cut into many parts. */
/* The context the partitioned mesh computes on: ctx itself (the host), or, in the CUDA checks,
 * a CUDA context; the meshes are made, and the results compared, on the host (ctx). */
static mmx_ctx *gpu;
#define DEV(ctx) (gpu ? gpu : (ctx))
/* The transport the partitioned meshes should report (mmx_dist_info.transport). */
static int transport = MMX_DIST_HOST;
int mmx__dist_has_nccl(void); /* src/dist/dist_internal.h */

/* The part files' prefix (a directory of rank 0's, made in main) and whether partition()
 * goes through them: created, written, freed, read back (mmx_dist_mesh_write_parts,
 * mmx_dist_mesh_read_parts), and the read mesh checked against the created one. */
static char parts[512];
static int via_parts;
static void same_part(const mmx_dist_mesh *a, const mmx_dist_mesh *b);

#define CHECK(cond, ...)                                                                      \
    do {                                                                                      \
        if (!(cond)) {                                                                        \
            failures++;                                                                       \
            fprintf(stderr, "rank %d: %s:%d: ", rank, __FILE__, __LINE__);                    \
            fprintf(stderr, __VA_ARGS__);                                                     \
            fputc('\n', stderr);                                                              \
        }                                                                                     \
    } while (0)
#define OK(ctx, call) CHECK((call) == MMX_OK, "%s: %s", #call, mmx_ctx_error(ctx))

static mmx_dist_mesh *partition(mmx_ctx *ctx, mmx_dist *d, const mmx_mesh *m, int rings)
{
    mmx_patch_options po = {.max_faces = 8};
    mmx_patch_set *ps = NULL;
    mmx_dist_mesh *dm = NULL;
    mmx_status s = mmx_patch_set_create(ctx, m, NULL, &po, &ps);
    if (!s) s = mmx_dist_mesh_create(DEV(ctx), d, m, ps, rings, &dm);
    if (!s && via_parts && m->uv) {
        /* the part files hold no texture coordinates: refused on every rank, not dropped */
        s = mmx_dist_mesh_write_parts(DEV(ctx), dm, parts);
        CHECK(s == MMX_ERR_UNSUPPORTED && strstr(mmx_ctx_error(DEV(ctx)), "texture"),
              "part files of a textured mesh: %d, %s", (int)s, mmx_ctx_error(DEV(ctx)));
        s = MMX_OK;
    } else if (!s && via_parts) {
        mmx_dist_mesh *rd = NULL;
        s = mmx_dist_mesh_write_parts(DEV(ctx), dm, parts);
        if (!s) s = mmx_dist_mesh_read_parts(DEV(ctx), d, parts, &rd);
        if (!s) same_part(dm, rd);
        mmx_dist_mesh_free(dm);
        dm = rd;
    }
    if (s && gpu) fprintf(stderr, "rank %d: partition on CUDA: %s\n", rank, mmx_ctx_error(gpu));
    if (s) {
        failures++;
        fprintf(stderr, "rank %d: partition: %s\n", rank, mmx_ctx_error(ctx));
    }
    mmx_patch_set_free(ps);
    return dm;
}


/* The read partitioned mesh is the created one: its description, maps and flags (the local
 * mesh's faces and positions are held to the single process by the checks that use it). */
static void same_part(const mmx_dist_mesh *a, const mmx_dist_mesh *b)
{
    mmx_dist_info x, y;
    mmx_dist_mesh_info(a, &x), mmx_dist_mesh_info(b, &y);
    CHECK(x.rank == y.rank && x.ranks == y.ranks && x.rings == y.rings &&
              x.global_verts == y.global_verts && x.global_faces == y.global_faces &&
              x.owned_faces == y.owned_faces && x.ghost_faces == y.ghost_faces &&
              x.owned_verts == y.owned_verts && x.local_verts == y.local_verts &&
              x.halo_recv_verts == y.halo_recv_verts && x.halo_send_verts == y.halo_send_verts &&
              x.transport == y.transport && y.exchanges == 0,
          "parts: the read mesh's description is not the created one's");
    const size_t nv = (size_t)x.local_verts, nf = (size_t)x.owned_faces + (size_t)x.ghost_faces;
    CHECK(!memcmp(mmx_dist_mesh_global_verts(a), mmx_dist_mesh_global_verts(b), nv * 8) &&
              !memcmp(mmx_dist_mesh_global_faces(a), mmx_dist_mesh_global_faces(b), nf * 8) &&
              !memcmp(mmx_dist_mesh_owned_verts(a), mmx_dist_mesh_owned_verts(b), nv) &&
              !memcmp(mmx_dist_mesh_owned_faces(a), mmx_dist_mesh_owned_faces(b), nf),
          "parts: the read mesh's maps or flags are not the created one's");
}

/* Arrays in the computing context's space (device memory in the CUDA checks). */
static float *dev_floats(mmx_ctx *ctx, size_t n)
{
    void *p = NULL;
    if (mmx_mem_alloc(DEV(ctx), mmx_ctx_space(DEV(ctx)), n * sizeof(float) + 4, &p)) return NULL;
    return p;
}
static void dev_free(mmx_ctx *ctx, void *p)
{
    mmx_mem_free(DEV(ctx), mmx_ctx_space(DEV(ctx)), p);
}
/* Copies between host memory and the computing context's space. */
static void to_host(mmx_ctx *ctx, void *dst, const void *src, size_t bytes)
{
    OK(DEV(ctx), mmx_mem_copy(DEV(ctx), dst, MMX_SPACE_HOST, src, mmx_ctx_space(DEV(ctx)), bytes));
}
static void from_host(mmx_ctx *ctx, void *dst, const void *src, size_t bytes)
{
    OK(DEV(ctx), mmx_mem_copy(DEV(ctx), dst, mmx_ctx_space(DEV(ctx)), src, MMX_SPACE_HOST, bytes));
}
/* The single process's mesh on the computing context: a device copy in the CUDA checks
 * (free it with single_free), else m itself. */
static const mmx_mesh *single(const mmx_mesh *m)
{
    mmx_mesh *c = NULL;
    if (!gpu) return m;
    OK(gpu, mmx_mesh_copy(gpu, m, MMX_SPACE_DEVICE, &c));
    return c;
}
static void single_free(const mmx_mesh *m, const mmx_mesh *s)
{
    if (s != m) mmx_mesh_free((mmx_mesh *)s);
}

/* Two cubes sharing vertex 0 (a non-manifold vertex: two fans), with the second lifted. */
static mmx_mesh *two_cubes(mmx_ctx *ctx)
{
    static const int q[6][4] = {{0, 3, 2, 1}, {4, 5, 6, 7}, {0, 1, 5, 4},
                                {1, 2, 6, 5}, {2, 3, 7, 6}, {3, 0, 4, 7}};
    float pos[15 * 3];
    mmx_index start[13], verts[48];
    for (int v = 0; v < 8; v++) {
        pos[3 * v] = (float)((v == 1 || v == 2 || v == 5 || v == 6) ? 1 : 0);
        pos[3 * v + 1] = (float)((v == 2 || v == 3 || v == 6 || v == 7) ? 1 : 0);
        pos[3 * v + 2] = (float)(v >= 4 ? 1 : 0);
    }
    /* The second cube: vertex 0 shared, its others 8..14, mirrored through the origin. */
    int map[8] = {0, 8, 9, 10, 11, 12, 13, 14};
    for (int v = 1; v < 8; v++)
        for (int k = 0; k < 3; k++) pos[3 * map[v] + k] = -pos[3 * v + k] * 1.1f;
    for (int f = 0; f < 12; f++) {
        start[f] = 4 * f;
        for (int k = 0; k < 4; k++) {
            const int v = q[f % 6][k];
            verts[4 * f + k] = f < 6 ? v : map[v];
        }
        if (f >= 6) { /* mirrored: reverse to keep the outside out */
            mmx_index t = verts[4 * f + 1];
            verts[4 * f + 1] = verts[4 * f + 3], verts[4 * f + 3] = t;
        }
    }
    start[12] = 48;
    mmx_mesh *m = NULL;
    if (mmx_mesh_from_faces(ctx, 15, 12, start, verts, pos, &m)) return NULL;
    return m;
}

/* A grid with a fin: one more quad standing on an inner edge, which makes it non-manifold
 * (three faces) in the middle of an open grid of n x n quads. */
static mmx_mesh *fin_grid(mmx_ctx *ctx, int n)
{
    const int nv = (n + 1) * (n + 1) + 2, nf = n * n + 1;
    float *pos = malloc(3 * (size_t)nv * sizeof *pos);
    mmx_index *start = malloc(((size_t)nf + 1) * sizeof *start), *verts = malloc(4 * (size_t)nf * sizeof *verts);
    for (int y = 0; y <= n; y++)
        for (int x = 0; x <= n; x++) {
            const int v = y * (n + 1) + x;
            pos[3 * v] = (float)x, pos[3 * v + 1] = (float)y, pos[3 * v + 2] = 0.1f * (float)((x * y) % 3);
        }
    for (int y = 0; y < n; y++)
        for (int x = 0; x < n; x++) {
            const int f = y * n + x, a = y * (n + 1) + x;
            start[f] = 4 * f;
            verts[4 * f] = a, verts[4 * f + 1] = a + 1, verts[4 * f + 2] = a + n + 2, verts[4 * f + 3] = a + n + 1;
        }
    /* the fin on the edge between vertices a and a + 1 in the middle */
    const int a = (n / 2) * (n + 1) + n / 2, top = (n + 1) * (n + 1);
    pos[3 * top] = (float)(n / 2), pos[3 * top + 1] = (float)(n / 2), pos[3 * top + 2] = 1.0f;
    pos[3 * top + 3] = (float)(n / 2 + 1), pos[3 * top + 4] = (float)(n / 2), pos[3 * top + 5] = 1.0f;
    start[n * n] = 4 * n * n;
    verts[4 * n * n] = a, verts[4 * n * n + 1] = a + 1, verts[4 * n * n + 2] = top + 1, verts[4 * n * n + 3] = top;
    start[nf] = 4 * nf;
    mmx_mesh *m = NULL;
    if (mmx_mesh_from_faces(ctx, nv, nf, start, verts, pos, &m)) m = NULL;
    free(pos), free(start), free(verts);
    return m;
}

/* Creases on every third edge met in face order (from the face running it upward). */
static void add_creases(mmx_ctx *ctx, mmx_mesh *m)
{
    mmx_index *start = NULL, *verts = NULL;
    if (mmx_mesh_faces(ctx, m, &start, &verts)) return;
    const mmx_index F = mmx_mesh_nfaces(m);
    mmx_index *cv = malloc(2 * (size_t)start[F] * sizeof *cv);
    float *sh = malloc((size_t)start[F] * sizeof *sh);
    static const float sharp[] = {10.0f, 2.5f, 0.5f, 1.0f};
    mmx_index n = 0, seen = 0;
    for (mmx_index f = 0; f < F; f++)
        for (mmx_index c = start[f]; c < start[f + 1]; c++) {
            const mmx_index a = verts[c], b = verts[c + 1 < start[f + 1] ? c + 1 : start[f]];
            if (a > b || seen++ % 3) continue;
            cv[2 * n] = a, cv[2 * n + 1] = b, sh[n] = sharp[n % 4], n++;
        }
    mmx_mesh_tags T;
    memset(&T, 0, sizeof T);
    T.ncreases = n, T.crease_verts = cv, T.crease_sharpness = sh;
    mmx_index corner = verts[0];
    float csharp = 3.0f;
    T.ncorners = 1, T.corner_verts = &corner, T.corner_sharpness = &csharp;
    T.interpolate_boundary = T.fvar_interpolate_boundary = T.fvar_propagate_corners = -1;
    T.crease_method = T.smooth_triangles = -1;
    OK(ctx, mmx_mesh_set_tags(ctx, m, &T));
    free(cv), free(sh), free(start), free(verts);
}

/* Hole tags on face 0 and every seventh face from face 3. */
static void add_holes(mmx_ctx *ctx, mmx_mesh *m)
{
    const mmx_index F = mmx_mesh_nfaces(m);
    mmx_mesh_tags *T = NULL;
    OK(ctx, mmx_mesh_tags_parse(ctx, m, &T));
    if (!T) return;
    mmx_index *h = malloc(((size_t)F / 7 + 2) * sizeof *h);
    T->nholes = 0;
    for (mmx_index f = 0; f < F; f++)
        if (f == 0 || f % 7 == 3) h[T->nholes++] = f;
    free(T->holes);
    T->holes = h;
    OK(ctx, mmx_mesh_set_tags(ctx, m, T));
    mmx_mesh_tags_free(T);
}

/* Texture coordinates with seams and a boundary ("textured:"): each face's chart by its
 * centroid (x past the middle: 1; else y past the middle: 2; else 0), a value for each vertex
 * of each chart at (x / 10 + chart, y / 10 - chart / 2), so that a vertex between charts has
 * one value a chart (a value shared by some but not all of its faces); numbered by first use,
 * and one value no face uses last (the single process keeps it). */
static void add_uv(mmx_ctx *ctx, mmx_mesh *m)
{
    mmx_index *st = NULL, *vt = NULL;
    if (mmx_mesh_faces(ctx, m, &st, &vt)) return;
    const mmx_index V = mmx_mesh_nverts(m), F = mmx_mesh_nfaces(m);
    float lo[2] = {1e30f, 1e30f}, hi[2] = {-1e30f, -1e30f};
    for (mmx_index v = 0; v < V; v++)
        for (int k = 0; k < 2; k++) {
            const float x = m->pos[3 * v + k];
            lo[k] = x < lo[k] ? x : lo[k], hi[k] = x > hi[k] ? x : hi[k];
        }
    mmx_mesh_uv *uv = calloc(1, sizeof *uv);
    mmx_index *id = malloc(3 * (size_t)V * sizeof *id);
    if (uv) uv->index = malloc((size_t)st[F] * sizeof *uv->index + 1);
    if (uv) uv->values = malloc((6 * (size_t)V + 2) * sizeof *uv->values);
    if (!uv || !id || !uv->index || !uv->values) {
        if (uv) free(uv->index), free(uv->values);
        free(uv), free(id), free(st), free(vt);
        return;
    }
    for (size_t i = 0; i < 3 * (size_t)V; i++) id[i] = -1;
    mmx_index n = 0;
    for (mmx_index f = 0; f < F; f++) {
        float c[2] = {0, 0};
        for (mmx_index q = st[f]; q < st[f + 1]; q++)
            for (int k = 0; k < 2; k++) c[k] += m->pos[3 * vt[q] + k] / (float)(st[f + 1] - st[f]);
        const int chart = c[0] > 0.5f * (lo[0] + hi[0]) ? 1 : c[1] > 0.5f * (lo[1] + hi[1]) ? 2 : 0;
        for (mmx_index q = st[f]; q < st[f + 1]; q++) {
            mmx_index *x = id + 3 * (size_t)vt[q] + chart;
            if (*x < 0) {
                uv->values[2 * n] = m->pos[3 * vt[q]] / 10 + (float)chart;
                uv->values[2 * n + 1] = m->pos[3 * vt[q] + 1] / 10 - 0.5f * (float)chart;
                *x = n++;
            }
            uv->index[q] = *x;
        }
    }
    uv->values[2 * n] = 0.25f, uv->values[2 * n + 1] = 0.75f;
    uv->nvalues = n + 1;
    uv->space = MMX_SPACE_HOST;
    m->uv = uv;
    free(id), free(st), free(vt);
}

static mmx_mesh *make(mmx_ctx *ctx, const char *name)
{
    mmx_mesh *m = NULL, *t = NULL;
    if (!strncmp(name, "textured:", 9)) {
        m = make(ctx, name + 9);
        if (m) add_uv(ctx, m);
        return m;
    }
    if (!strncmp(name, "repeated:", 9)) {
        /* a few faces repeating a texture coordinate (their second corner takes the first's
         * value): no mesh matrix holds the texture mesh, and the single process numbers the
         * refined coordinates by value (subdiv/uv.c) */
        m = make(ctx, name + 9);
        mmx_index *st = NULL, *vt = NULL;
        if (m && m->uv && !mmx_mesh_faces(ctx, m, &st, &vt))
            for (mmx_index f = 3; f < mmx_mesh_nfaces(m); f += 37) m->uv->index[st[f] + 1] = m->uv->index[st[f]];
        free(st), free(vt);
        return m;
    }
    if (!strncmp(name, "holed:", 6)) {
        m = make(ctx, name + 6);
        if (m) add_holes(ctx, m);
        return m;
    }
    if (!strcmp(name, "two_cubes")) return two_cubes(ctx);
    if (!strcmp(name, "fin")) return fin_grid(ctx, 10);
    if (!strncmp(name, "creased:", 8)) {
        if (mmx_mesh_shape(ctx, name + 8, &m)) return NULL;
        add_creases(ctx, m);
        return m;
    }
    if (!strncmp(name, "tri:", 4)) {
        if (mmx_mesh_shape(ctx, name + 4, &m)) return NULL;
        mmx_status s = mmx_mesh_triangulate(ctx, m, &t);
        mmx_mesh_free(m);
        return s ? NULL : t;
    }
    if (mmx_mesh_shape(ctx, name, &m)) return NULL;
    return m;
}

/* S = I + h (D - A), the graph Laplacian of the mesh's edges shifted: symmetric positive
 * definite, one-ring. Applied from the VV query's rows. */
typedef struct shifted {
    mmx_csr *vv;
    float h;
} shifted;

static mmx_status shifted_apply(mmx_ctx *ctx, void *data, const float *x, int k, float *y)
{
    (void)ctx;
    const shifted *S = data;
    for (mmx_index i = 0; i < S->vv->nrows; i++)
        for (int q = 0; q < k; q++) {
            double sum = 0;
            const mmx_index a = S->vv->rowptr[i], b = S->vv->rowptr[i + 1];
            for (mmx_index e = a; e < b; e++) sum += x[i * k + q] - x[S->vv->colidx[e] * k + q];
            y[i * k + q] = x[i * k + q] + S->h * (float)sum;
        }
    return MMX_OK;
}

/* shifted_apply on device arrays, through host copies (the CUDA checks). */
static mmx_status shifted_apply_dev(mmx_ctx *ctx, void *data, const float *x, int k, float *y)
{
    const shifted *S = data;
    const size_t n = (size_t)S->vv->nrows * (size_t)k;
    float *hx = malloc(n * sizeof *hx + 4), *hy = malloc(n * sizeof *hy + 4);
    mmx_status s = hx && hy ? MMX_OK : MMX_ERR_NOMEM;
    if (!s) s = mmx_mem_copy(ctx, hx, MMX_SPACE_HOST, x, MMX_SPACE_DEVICE, n * sizeof *hx);
    if (!s) s = shifted_apply(ctx, data, hx, k, hy);
    if (!s) s = mmx_mem_copy(ctx, y, MMX_SPACE_DEVICE, hy, MMX_SPACE_HOST, n * sizeof *hy);
    free(hx), free(hy);
    return s;
}

static void check_cg(mmx_ctx *ctx, mmx_dist *d, const char *name)
{
    trace("cg", name, 0);
    mmx_mesh *m = make(ctx, name);
    if (!m) return;
    mmx_dist_mesh *dm = partition(ctx, d, m, 1);
    if (!dm) {
        mmx_mesh_free(m);
        return;
    }
    const mmx_mesh *L = mmx_dist_mesh_local(dm);
    const mmx_index nl = mmx_mesh_nverts(L), V = mmx_mesh_nverts(m);
    shifted sl = {NULL, 2.0f}, sw = {NULL, 2.0f};
    /* The operator reads the VV rows on the host; on CUDA it is applied through host copies
     * (shifted_apply_dev): what is tested is the partitioned solve's device side. */
    mmx_mesh *hL = NULL;
    if (gpu) OK(gpu, mmx_mesh_copy(gpu, L, MMX_SPACE_HOST, &hL));
    OK(ctx, mmx_query(ctx, hL ? hL : L, NULL, MMX_QUERY_VV, &sl.vv));
    mmx_linop S = {nl, gpu ? shifted_apply_dev : shifted_apply, &sl, NULL};
    /* b: the positions (3 columns); x from 0 */
    float *x = dev_floats(ctx, 3 * (size_t)nl), *got = malloc(3 * (size_t)V * sizeof *got + 4);
    float *want = calloc(3 * (size_t)V + 1, sizeof *want), *zero = calloc(3 * (size_t)V + 1, sizeof *zero);
    from_host(ctx, x, zero, 3 * (size_t)nl * sizeof *x);
    mmx_cg_opts o = mmx_cg_defaults();
    o.rtol = 1e-5;
    mmx_cg_report rd, rs;
    memset(&rs, 0, sizeof rs);
    if (sl.vv) OK(DEV(ctx), mmx_dist_cg(DEV(ctx), dm, &S, L->pos, 3, x, &o, &rd));
    OK(DEV(ctx), mmx_dist_gather(DEV(ctx), dm, x, 3, got));
    if (rank == 0) {
        OK(ctx, mmx_query(ctx, m, NULL, MMX_QUERY_VV, &sw.vv));
        mmx_linop W = {V, gpu ? shifted_apply_dev : shifted_apply, &sw, NULL};
        const mmx_mesh *sm = single(m);
        float *sx = dev_floats(ctx, 3 * (size_t)V);
        from_host(ctx, sx, zero, 3 * (size_t)V * sizeof *sx);
        if (sw.vv && sm) OK(DEV(ctx), mmx_cg(DEV(ctx), &W, sm->pos, 3, sx, &o, &rs));
        to_host(ctx, want, sx, 3 * (size_t)V * sizeof *want);
        dev_free(ctx, sx);
        if (sm) single_free(m, sm);
        double worst = 0, big = 0;
        for (size_t i = 0; i < 3 * (size_t)V; i++) {
            const double e = fabs((double)got[i] - (double)want[i]);
            worst = e > worst ? e : worst;
            big = fabs((double)want[i]) > big ? fabs((double)want[i]) : big;
        }
        CHECK(worst <= 1e-4 * big, "cg on %s: the gathered solution differs by %g (largest %g)", name, worst, big);
        for (int q = 0; q < 3; q++)
            CHECK(rd.converged[q] && abs(rd.col_iterations[q] - rs.col_iterations[q]) <= 1,
                  "cg on %s, column %d: %d iterations (converged %d), the single process %d", name,
                  q, rd.col_iterations[q], rd.converged[q], rs.col_iterations[q]);
        mmx_csr_free(sw.vv);
    }
    mmx_csr_free(sl.vv);
    mmx_mesh_free(hL);
    dev_free(ctx, x);
    free(got), free(want), free(zero);
    mmx_dist_mesh_free(dm);
    mmx_mesh_free(m);
}

/* Does the gathered array equal the single process's bit for bit? */
static void same_floats(const char *what, const char *mesh, const float *a, const float *b, size_t n)
{
    size_t bad = 0;
    double worst = 0;
    for (size_t i = 0; i < n; i++)
        if (memcmp(a + i, b + i, sizeof *a)) {
            bad++;
            const double e = fabs((double)a[i] - (double)b[i]);
            if (e > worst) worst = e;
        }
    CHECK(bad == 0, "%s on %s: %zu of %zu values differ from the single process (worst %g)", what,
          mesh, bad, n, worst);
}

/* The eight queries of a partitioned mesh gathered on rank 0, the edge ones in the single
 * process's edge numbering (the ranks' own numbering made by an exchange): the single process's
 * arrays, row for row. */
static void check_queries(mmx_ctx *ctx, mmx_dist *d, const mmx_mesh *m, const mmx_dist_mesh *dm,
                          const char *name)
{
    mmx_ctx *c = DEV(ctx);
    mmx_dist_info info;
    mmx_dist_mesh_info(dm, &info);
    CHECK(info.global_edges == -1, "%s: global_edges %lld before any edge query", name, (long long)info.global_edges);
    int64_t sent[2][MMX_QUERY_COUNT];
    for (int i = 0; i < MMX_QUERY_COUNT; i++) {
        const mmx_query_kind kind = (mmx_query_kind)i;
        int64_t n = 0, n2 = 0;
        mmx_index *rp = NULL, *ci = NULL, *rp2 = NULL, *ci2 = NULL;
        mmx_dist_mesh_info(dm, &info);
        int64_t before = info.exchanged_bytes;
        OK(c, mmx_dist_query(c, dm, kind, &n, &rp, &ci));
        mmx_dist_mesh_info(dm, &info);
        sent[0][i] = info.exchanged_bytes - before, before = info.exchanged_bytes;
        /* asked again: the same arrays, the edges' numbering kept from the first edge query */
        OK(c, mmx_dist_query(c, dm, kind, &n2, &rp2, &ci2));
        mmx_dist_mesh_info(dm, &info);
        sent[1][i] = info.exchanged_bytes - before;
        CHECK(n2 == n && (!rp || (rp2 && !memcmp(rp, rp2, ((size_t)n + 1) * sizeof *rp) &&
                                  !memcmp(ci, ci2, (size_t)rp[n] * sizeof *ci))),
              "query %s on %s asked twice: different arrays", mmx_query_name(kind), name);
        CHECK(sent[1][i] <= sent[0][i], "query %s on %s: the second sent more (%lld, %lld bytes)",
              mmx_query_name(kind), name, (long long)sent[0][i], (long long)sent[1][i]);
        free(rp2), free(ci2);
        if (rank == 0) {
            /* the host's arrays, which the library's CUDA queries equal (query.h) */
            mmx_csr *Q = NULL;
            OK(ctx, mmx_query(ctx, m, NULL, kind, &Q));
            int same = Q && rp && n == Q->nrows && rp[n] == Q->nnz &&
                       (Q->nnz == 0 || !memcmp(ci, Q->colidx, (size_t)Q->nnz * sizeof *ci));
            for (int64_t r = 0; same && r <= n; r++)
                same = rp[r] == (Q->order ? Q->order * (mmx_index)r : Q->rowptr[r]);
            CHECK(same, "query %s on %s with %d ranks: not the single process's", mmx_query_name(kind), name, mmx_dist_size(d));
            mmx_csr_free(Q);
        }
        CHECK(rank == 0 || (!rp && !ci && n == 0), "query %s: a result on rank %d", mmx_query_name(kind), rank);
        free(rp), free(ci);
    }
    /* VE, the first edge query, numbered the edges (rank 0 gathers and scatters 8 bytes a
     * vertex for it, on top of the rows); its second call and every later edge query did not:
     * each sends what the same query sends the next time. */
    CHECK(rank != 0 || sent[1][MMX_QUERY_VE] < sent[0][MMX_QUERY_VE],
          "%s: the first edge query sent %lld bytes, the second %lld: the numbering was made again",
          name, (long long)sent[0][MMX_QUERY_VE], (long long)sent[1][MMX_QUERY_VE]);
    for (int i = MMX_QUERY_EV; i < MMX_QUERY_COUNT; i++)
        CHECK(sent[0][i] == sent[1][i], "%s: query %s sent %lld bytes, then %lld", name,
              mmx_query_name((mmx_query_kind)i), (long long)sent[0][i], (long long)sent[1][i]);
    mmx_dist_mesh_info(dm, &info);
    CHECK(info.global_edges >= 0, "%s: global_edges not set after the edge queries", name);
}

/* The queries alone on meshes the smoothing checks do not take (a non-manifold edge: the fin),
 * with one ghost ring, the least the queries need. */
static void check_queries_mesh(mmx_ctx *ctx, mmx_dist *d, const char *name, int rings)
{
    trace("queries", name, rings);
    mmx_mesh *m = make(ctx, name);
    CHECK(m != NULL, "mesh %s: %s", name, mmx_ctx_error(ctx));
    if (!m) return;
    mmx_dist_mesh *dm = partition(ctx, d, m, rings);
    if (dm) check_queries(ctx, d, m, dm, name);
    mmx_dist_mesh_free(dm);
    mmx_mesh_free(m);
}

/* mmx_dist_mesh_gather gives rank 0 the mesh that was cut: the same faces, corners in the
 * same cyclic order and from the same corner, the same positions, bit for bit; a host mesh on
 * either backend, nothing on the other ranks. */
static void check_gather(mmx_ctx *ctx, mmx_dist *d, const char *name)
{
    trace("gather", name, 0);
    mmx_mesh *m = make(ctx, name);
    CHECK(m != NULL, "mesh %s: %s", name, mmx_ctx_error(ctx));
    if (!m) return;
    mmx_dist_mesh *dm = partition(ctx, d, m, 1);
    mmx_mesh *w = NULL;
    if (dm) OK(DEV(ctx), mmx_dist_mesh_gather(DEV(ctx), dm, &w));
    if (dm && rank == 0) {
        mmx_index *sa = NULL, *va = NULL, *sb = NULL, *vb = NULL;
        const mmx_index V = mmx_mesh_nverts(m), F = mmx_mesh_nfaces(m);
        CHECK(w && w->space == MMX_SPACE_HOST && mmx_mesh_nverts(w) == V && mmx_mesh_nfaces(w) == F,
              "gather of %s%s: not the whole's counts, or not on the host", name, via_parts ? " (parts)" : "");
        if (w && mmx_mesh_nfaces(w) == F) {
            OK(ctx, mmx_mesh_faces(ctx, m, &sa, &va));
            OK(ctx, mmx_mesh_faces(ctx, w, &sb, &vb));
            CHECK(sa && sb && !memcmp(sa, sb, ((size_t)F + 1) * sizeof *sa) &&
                  !memcmp(va, vb, (size_t)sa[F] * sizeof *va),
                  "gather of %s%s: faces differ from the whole's", name, via_parts ? " (parts)" : "");
            CHECK(w->pos && !memcmp(w->pos, m->pos, 3 * (size_t)V * sizeof *m->pos),
                  "gather of %s%s: positions differ from the whole's", name, via_parts ? " (parts)" : "");
        }
        free(sa), free(va), free(sb), free(vb);
    }
    CHECK(rank == 0 || w == NULL, "gather: a mesh on rank %d", rank);
    mmx_mesh_free(w);
    mmx_dist_mesh_free(dm);
    mmx_mesh_free(m);
}

/* Whether two files hold the same bytes. */
static int same_file(const char *a, const char *b)
{
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    int same = fa && fb;
    while (same) {
        const int x = fgetc(fa), y = fgetc(fb);
        same = x == y;
        if (x == EOF) break;
    }
    if (fa) fclose(fa);
    if (fb) fclose(fb);
    return same;
}

/* mmx_dist_write_obj and mmx_dist_write_ply: the file all ranks write is rank 0's
 * mmx_mesh_write of the whole with the same positions and normals, byte for byte (over a
 * longer file that was there: it is truncated); a file that cannot be created is refused on
 * every rank, named; one rank's bad arguments make every rank refuse, none waiting. */
static void check_write(mmx_ctx *ctx, mmx_dist *d, const char *name, mmx_format fmt)
{
    const int ply = fmt == MMX_FORMAT_PLY;
    const char *ext = ply ? "ply" : "obj", *fn = ply ? "write_ply" : "write_obj";
    mmx_status (*write)(mmx_ctx *, const mmx_dist_mesh *, const float *, const float *,
                        const char *, int64_t *) = ply ? mmx_dist_write_ply : mmx_dist_write_obj;
    trace(fn, name, 0);
    mmx_mesh *m = make(ctx, name);
    CHECK(m != NULL, "mesh %s: %s", name, mmx_ctx_error(ctx));
    if (!m || !parts[0]) {
        mmx_mesh_free(m);
        return;
    }
    mmx_ctx *c = DEV(ctx);
    mmx_dist_mesh *dm = partition(ctx, d, m, 1);
    char one[600], many[600], none[600];
    snprintf(one, sizeof one, "%s.one.%s", parts, ext);
    snprintf(many, sizeof many, "%s.many.%s", parts, ext);
    snprintf(none, sizeof none, "%s.none/x.%s", parts, ext);
    const mmx_index nl = dm ? mmx_mesh_nverts(mmx_dist_mesh_local(dm)) : 0;
    float *nrm = dm ? dev_floats(ctx, 3 * (size_t)nl + 1) : NULL;
    /* normals: on the host only (the CUDA ones equal the single CUDA process's, not the host's) */
    for (int with = 0; dm && with < (gpu ? 1 : 2); with++) {
        if (rank == 0) {
            FILE *f = fopen(many, "w");
            for (int i = 0; f && i < 20000; i++) fputs("# a longer file that was here\n", f);
            if (f) fclose(f);
            mmx_mesh *w = NULL;
            float *n = malloc(3 * (size_t)mmx_mesh_nverts(m) * sizeof *n + 4);
            OK(ctx, mmx_mesh_copy(ctx, m, MMX_SPACE_HOST, &w));
            if (w && n && with) {
                OK(ctx, mmx_vertex_normals(ctx, w, MMX_NORMAL_AREA, n));
                OK(ctx, mmx_mesh_set_normals(ctx, w, n, MMX_SPACE_HOST));
            }
            if (w) {
                free(w->tags), w->tags = NULL; /* not part of the partitioned file */
                OK(ctx, mmx_mesh_write(ctx, w, one, fmt));
            }
            mmx_mesh_free(w);
            free(n);
        }
        if (with) OK(c, mmx_dist_vertex_normals(c, dm, MMX_NORMAL_AREA, nrm));
        int64_t bytes = -1;
        OK(c, write(c, dm, mmx_dist_mesh_local(dm)->pos, with ? nrm : NULL, many, &bytes));
        if (rank == 0) {
            CHECK(same_file(one, many), "%s of %s%s with %d ranks: not the single process's file",
                  fn, name, with ? " with normals" : "", mmx_dist_size(d));
            FILE *f = fopen(one, "rb");
            long size = -1;
            if (f) fseek(f, 0, SEEK_END), size = ftell(f), fclose(f);
            CHECK(bytes == size, "%s of %s: %lld bytes said, %ld written", fn, name, (long long)bytes, size);
        }
    }
    if (dm) {
        const mmx_status s = write(c, dm, mmx_dist_mesh_local(dm)->pos, NULL, none, NULL);
        CHECK(s == MMX_ERR_IO && strstr(mmx_ctx_error(c), none), "%s into a missing folder: %d, %s",
              fn, (int)s, mmx_ctx_error(c));
        /* One rank's bad arguments (the last rank, no path): every rank refuses, none hangs in
         * the collectives the others entered. */
        const int last = rank == mmx_dist_size(d) - 1;
        const mmx_status t = write(c, dm, mmx_dist_mesh_local(dm)->pos, NULL,
                                                last ? NULL : many, NULL);
        CHECK(t == MMX_ERR_ARG && strstr(mmx_ctx_error(c), "path is NULL"),
              "%s with one rank's path NULL: %d, %s", fn, (int)t, mmx_ctx_error(c));
        /* rank 0 alone without positions (its part has vertices): the same refusal everywhere */
        const mmx_status u = write(c, dm, rank == 0 ? NULL : mmx_dist_mesh_local(dm)->pos, NULL,
                                   many, NULL);
        CHECK(u == MMX_ERR_ARG && strstr(mmx_ctx_error(c), "rank 0: ") && strstr(mmx_ctx_error(c), "pos is NULL"),
              "%s with rank 0's pos NULL: %d, %s", fn, (int)u, mmx_ctx_error(c));
    }
#ifdef MMX_HAVE_MPI
    MPI_Barrier(MPI_COMM_WORLD);
#endif
    if (rank == 0) remove(one), remove(many);
    dev_free(ctx, nrm);
    mmx_dist_mesh_free(dm);
    mmx_mesh_free(m);
}

static void check_normals_smooth(mmx_ctx *ctx, mmx_dist *d, const char *name)
{
    trace("normals_smooth", name, 0);
    mmx_mesh *m = make(ctx, name);
    CHECK(m != NULL, "mesh %s: %s", name, mmx_ctx_error(ctx));
    if (!m) return;
    const mmx_index V = mmx_mesh_nverts(m);
    mmx_dist_mesh *dm = partition(ctx, d, m, 2);
    if (!dm) {
        mmx_mesh_free(m);
        return;
    }
    const mmx_index nl = mmx_mesh_nverts(mmx_dist_mesh_local(dm));
    /* the cut: every face owned once, every vertex in a face owned once, parts not empty */
    {
        mmx_dist_info in;
        OK(ctx, mmx_dist_mesh_info(dm, &in));
        int64_t sums[2] = {in.owned_faces, in.owned_verts}, mins[1] = {in.owned_faces};
#ifdef MMX_HAVE_MPI
        MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allreduce(MPI_IN_PLACE, mins, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
#endif
        CHECK(sums[0] == in.global_faces && sums[1] == in.global_verts,
              "%s: %lld faces and %lld vertices owned over the ranks, of %lld and %lld", name,
              (long long)sums[0], (long long)sums[1], (long long)in.global_faces,
              (long long)in.global_verts);
        CHECK(mins[0] > 0 || in.global_faces < 8 * in.ranks, "%s: a rank owns no face", name);
        CHECK(in.transport == transport, "%s: transport %d, expected %d", name, in.transport, transport);
        CHECK(in.owned_faces == 0 || in.owned_faces == in.global_faces || in.ghost_faces > 0, "%s: no ghost faces with %d ranks", name, in.ranks);
    }
    /* loc: local values in the computing context's space; hl its host copy; sm and sw the
     * single process's mesh and values there */
    float *loc = dev_floats(ctx, 3 * (size_t)nl), *hl = malloc(3 * (size_t)nl * sizeof *hl + 4);
    float *got = malloc(3 * (size_t)V * sizeof *got + 4), *want = malloc(3 * (size_t)V * sizeof *want + 4);
    const mmx_mesh *sm = rank == 0 ? single(m) : NULL;
    float *sw = rank == 0 ? dev_floats(ctx, 3 * (size_t)V) : NULL;
    mmx_ctx *c = DEV(ctx);
    /* normals, every weighting */
    for (int w = 0; w < 3; w++) {
        OK(c, mmx_dist_vertex_normals(c, dm, (mmx_normal_weight)w, loc));
        OK(c, mmx_dist_gather(c, dm, loc, 3, got));
        if (rank == 0 && sm) {
            OK(c, mmx_vertex_normals(c, sm, (mmx_normal_weight)w, sw));
            to_host(ctx, want, sw, 3 * (size_t)V * sizeof *want);
            same_floats("normals", name, got, want, 3 * (size_t)V);
        }
    }
    /* the halo after the exchange: every ghost row is its owner's (the global value) */
    {
        const int64_t *gv = mmx_dist_mesh_global_verts(dm);
        for (mmx_index v = 0; v < nl; v++)
            for (int k = 0; k < 3; k++) hl[3 * v + k] = mmx_dist_mesh_owned_verts(dm)[v] ? (float)gv[v] + 0.25f * (float)k : -1.f;
        from_host(ctx, loc, hl, 3 * (size_t)nl * sizeof *hl);
        OK(c, mmx_dist_exchange(c, dm, loc, 3));
        to_host(ctx, hl, loc, 3 * (size_t)nl * sizeof *hl);
        mmx_index bad = 0;
        for (mmx_index v = 0; v < nl; v++)
            for (int k = 0; k < 3; k++) bad += hl[3 * v + k] != (float)gv[v] + 0.25f * (float)k;
        CHECK(bad == 0, "exchange on %s: %d wrong values", name, bad);
    }
    trace("queries of", name, 0);
    check_queries(ctx, d, m, dm, name);
    /* smoothing: Laplacian, Taubin (bit for bit), with and without a fixed boundary */
    const mmx_smooth_method methods[] = {MMX_SMOOTH_LAPLACIAN, MMX_SMOOTH_TAUBIN};
    for (int i = 0; i < 2; i++)
        for (int fix = 0; fix < 2; fix++) {
            mmx_smooth_options o = mmx_smooth_defaults(methods[i]);
            o.iterations = 7, o.fix_boundary = fix;
            trace("smooth", name, 10 * i + fix);
            OK(c, mmx_dist_smooth(c, dm, &o, loc, NULL));
            OK(c, mmx_dist_gather(c, dm, loc, 3, got));
            if (rank == 0 && sm) {
                OK(c, mmx_smooth(c, sm, &o, sw, NULL));
                to_host(ctx, want, sw, 3 * (size_t)V * sizeof *want);
                char what[64];
                snprintf(what, sizeof what, "%s%s", mmx_smooth_method_name(methods[i]), fix ? " fixed" : "");
                same_floats(what, name, got, want, 3 * (size_t)V);
            }
        }
    /* cotangent steps (triangles) and bilateral filtering: each vertex's step reads its own
     * faces and one-ring only, so these are exact too */
    const mmx_smooth_method more[] = {MMX_SMOOTH_COTAN, MMX_SMOOTH_BILATERAL};
    for (int i = 0; i < 2; i++) {
        if (more[i] == MMX_SMOOTH_COTAN && strncmp(name, "icosphere", 9) && strncmp(name, "tri:", 4)) continue;
        if (!strcmp(name, "two_cubes")) continue;
        mmx_smooth_options o = mmx_smooth_defaults(more[i]);
        o.iterations = 3;
        trace("smooth", name, 20 + i);
        OK(c, mmx_dist_smooth(c, dm, &o, loc, NULL));
        OK(c, mmx_dist_gather(c, dm, loc, 3, got));
        if (rank == 0 && sm) {
            OK(c, mmx_smooth(c, sm, &o, sw, NULL));
            to_host(ctx, want, sw, 3 * (size_t)V * sizeof *want);
            same_floats(mmx_smooth_method_name(more[i]), name, got, want, 3 * (size_t)V);
        }
    }
    dev_free(ctx, loc), dev_free(ctx, sw);
    if (sm) single_free(m, sm);
    free(hl), free(got), free(want);
    mmx_dist_mesh_free(dm);
    mmx_mesh_free(m);
}

static int cmp3(const void *x, const void *y)
{
    const float *a = x, *b = y;
    for (int k = 0; k < 3; k++)
        if (a[k] != b[k]) return a[k] < b[k] ? -1 : 1;
    return 0;
}

/* The crease and corner tags as a sorted list of (a, b, sharpness) (a corner: b = -1). */
static float *tag_list(mmx_ctx *ctx, const mmx_mesh *m, int *n)
{
    mmx_mesh_tags *T = NULL;
    *n = 0;
    if (mmx_mesh_tags_parse(ctx, m, &T)) return NULL;
    float *l = malloc(3 * ((size_t)T->ncreases + (size_t)T->ncorners) * sizeof *l + 4);
    for (mmx_index i = 0; i < T->ncreases; i++, (*n)++) {
        const mmx_index a = T->crease_verts[2 * i], b = T->crease_verts[2 * i + 1];
        l[3 * *n] = (float)(a < b ? a : b), l[3 * *n + 1] = (float)(a < b ? b : a);
        l[3 * *n + 2] = T->crease_sharpness[i];
    }
    for (mmx_index i = 0; i < T->ncorners; i++, (*n)++)
        l[3 * *n] = (float)T->corner_verts[i], l[3 * *n + 1] = -1, l[3 * *n + 2] = T->corner_sharpness[i];
    qsort(l, (size_t)*n, 3 * sizeof *l, cmp3);
    mmx_mesh_tags_free(T);
    return l;
}

/* The hole tags' faces as a list (n of them; NULL for none). */
static mmx_index *hole_list(mmx_ctx *ctx, const mmx_mesh *m, int *n)
{
    mmx_mesh_tags *T = NULL;
    mmx_index *l = NULL;
    *n = 0;
    if (mmx_mesh_tags_parse(ctx, m, &T)) return NULL;
    if (T->nholes > 0) {
        l = malloc((size_t)T->nholes * sizeof *l);
        memcpy(l, T->holes, (size_t)T->nholes * sizeof *l);
        *n = T->nholes;
    }
    mmx_mesh_tags_free(T);
    return l;
}

/* The options of check_subdiv's two runs (the crease method, the boundary mode, holes). */
static mmx_subdiv_options sopts;

static void check_subdiv(mmx_ctx *ctx, mmx_dist *d, const char *name, mmx_scheme scheme, int levels)
{
    trace("subdiv", name, (int)scheme * 100 + levels);
    mmx_mesh *m = make(ctx, name);
    CHECK(m != NULL, "mesh %s: %s", name, mmx_ctx_error(ctx));
    if (!m) return;
    char op[32];
    snprintf(op, sizeof op, "subdiv:%s%d", scheme == MMX_SCHEME_SQRT3 ? "sqrt3:" : "", levels);
    mmx_dist_mesh *dm = partition(ctx, d, m, mmx_dist_rings(op));
    if (dm && !strncmp(name, "holed:", 6)) {
        /* The holes carried to the local meshes: as many as the whole has among the local
         * faces; those on ghost faces (beside a cut) counted over the ranks. */
        int nl = 0, nw = 0, ghost = 0, want_local = 0;
        mmx_index *hl = hole_list(DEV(ctx), mmx_dist_mesh_local(dm), &nl);
        mmx_index *hw = hole_list(ctx, m, &nw);
        const int64_t *gf = mmx_dist_mesh_global_faces(dm);
        const unsigned char *of = mmx_dist_mesh_owned_faces(dm);
        const mmx_index nlf = mmx_mesh_nfaces(mmx_dist_mesh_local(dm));
        for (mmx_index f = 0, k = 0; f < nlf; f++) {
            while (k < nw && hw[k] < gf[f]) k++;
            want_local += k < nw && hw[k] == gf[f];
        }
        for (int i = 0; i < nl; i++) ghost += !of[hl[i]];
        CHECK(nl == want_local, "%s: %d holes on rank %d's local mesh, %d of its faces are holes",
              name, nl, rank, want_local);
#ifdef MMX_HAVE_MPI
        MPI_Allreduce(MPI_IN_PLACE, &ghost, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
#endif
        CHECK(mmx_dist_size(d) == 1 || ghost > 0, "%s: no hole beside a cut", name);
        free(hl), free(hw);
    }
    mmx_mesh *got = NULL, *one = NULL, *want = NULL;
    mmx_dist_subdiv_report rep;
    if (dm) OK(DEV(ctx), mmx_dist_subdivide(DEV(ctx), dm, scheme, levels, &sopts, &got, &rep));
    CHECK(rank == 0 || got == NULL, "a result on rank %d", rank);
    /* Without the gather (out NULL): the same local and owned faces, counted not gathered. */
    if (dm) {
        mmx_dist_subdiv_report nr;
        memset(&nr, 0, sizeof nr);
        OK(DEV(ctx), mmx_dist_subdivide(DEV(ctx), dm, scheme, levels, &sopts, NULL, &nr));
        CHECK(nr.owned_faces == rep.owned_faces && nr.local_faces == rep.local_faces &&
                  nr.gathered_bytes == 0,
              "%s level %d on %s without the gather: %lld owned, %lld local faces, %lld bytes; "
              "gathered %lld, %lld", mmx_scheme_name(scheme), levels, name,
              (long long)nr.owned_faces, (long long)nr.local_faces, (long long)nr.gathered_bytes,
              (long long)rep.owned_faces, (long long)rep.local_faces);
    }
    if (gpu && got) {
        /* on CUDA the result is on the device: compared on the host */
        mmx_mesh *h = NULL;
        CHECK(got->space == MMX_SPACE_DEVICE, "a CUDA result in host memory");
        OK(gpu, mmx_mesh_copy(gpu, got, MMX_SPACE_HOST, &h));
        mmx_mesh_free(got);
        got = h;
    }
    if (rank == 0 && got) {
        /* the single process on the same backend (on CUDA its result read back) */
        const mmx_mesh *sm = single(m);
        mmx_mesh *dev_one = NULL;
        if (sm) OK(DEV(ctx), mmx_subdivide(DEV(ctx), scheme, sm, levels, &sopts, gpu ? &dev_one : &one));
        if (dev_one) OK(gpu, mmx_mesh_copy(gpu, dev_one, MMX_SPACE_HOST, &one));
        mmx_mesh_free(dev_one);
        if (sm) single_free(m, sm);
        if (one) OK(ctx, mmx_dist_canonical(ctx, one, &want));
    }
    if (want) {
        mmx_index *sa = NULL, *va = NULL, *sb = NULL, *vb = NULL;
        OK(ctx, mmx_mesh_faces(ctx, got, &sa, &va));
        OK(ctx, mmx_mesh_faces(ctx, want, &sb, &vb));
        const mmx_index F = mmx_mesh_nfaces(want), V = mmx_mesh_nverts(want);
        CHECK(mmx_mesh_nfaces(got) == F && mmx_mesh_nverts(got) == V,
              "%s level %d on %s: %d faces, %d vertices; the single process %d, %d",
              mmx_scheme_name(scheme), levels, name, mmx_mesh_nfaces(got), mmx_mesh_nverts(got), F, V);
        if (mmx_mesh_nfaces(got) == F && mmx_mesh_nverts(got) == V) {
            CHECK(!memcmp(sa, sb, ((size_t)F + 1) * sizeof *sa) &&
                      !memcmp(va, vb, (size_t)sb[F] * sizeof *va),
                  "%s level %d on %s: topology differs", mmx_scheme_name(scheme), levels, name);
            double diag = 0, worst = 0;
            float lo[3], hi[3];
            for (int k = 0; k < 3; k++) lo[k] = hi[k] = want->pos[k];
            for (mmx_index v = 0; v < V; v++)
                for (int k = 0; k < 3; k++) {
                    const float x = want->pos[3 * v + k];
                    lo[k] = x < lo[k] ? x : lo[k], hi[k] = x > hi[k] ? x : hi[k];
                    const double e = fabs((double)x - (double)got->pos[3 * v + k]);
                    worst = e > worst ? e : worst;
                }
            for (int k = 0; k < 3; k++) diag += ((double)hi[k] - lo[k]) * ((double)hi[k] - lo[k]);
            diag = sqrt(diag);
            /* The same stencils in the same order except where a sum runs over local
             * numbers: float rounding, a few ulps of the size. */
            CHECK(worst <= 1e-6 * diag, "%s level %d on %s: positions differ by %g (diagonal %g)",
                  mmx_scheme_name(scheme), levels, name, worst, diag);
        }
        int na = 0, nb = 0;
        float *ta = tag_list(ctx, got, &na), *tb = tag_list(ctx, want, &nb);
        CHECK(na == nb && (!na || !memcmp(ta, tb, 3 * (size_t)na * sizeof *ta)),
              "%s level %d on %s: %d tags gathered, %d in the single process's result",
              mmx_scheme_name(scheme), levels, name, na, nb);
        int ha = 0, hb = 0;
        mmx_index *la = hole_list(ctx, got, &ha), *lb = hole_list(ctx, want, &hb);
        CHECK(ha == hb && (!ha || !memcmp(la, lb, (size_t)ha * sizeof *la)),
              "%s level %d on %s: %d holes gathered, %d in the single process's result",
              mmx_scheme_name(scheme), levels, name, ha, hb);
        free(la), free(lb);
        /* texture coordinates: the same values at the same corners (both numbered by first
         * use), within float rounding of their range */
        const mmx_mesh_uv *ua = got->uv, *ub = want->uv;
        CHECK(!ua == !ub && (!ua || ua->nvalues == ub->nvalues),
              "%s level %d on %s: %d texture coordinates gathered, the single process has %d",
              mmx_scheme_name(scheme), levels, name, ua ? ua->nvalues : -1, ub ? ub->nvalues : -1);
        if (ua && ub && ua->nvalues == ub->nvalues && mmx_mesh_nfaces(got) == F) {
            CHECK(!memcmp(ua->index, ub->index, (size_t)sb[F] * sizeof *ua->index),
                  "%s level %d on %s: texture corners differ", mmx_scheme_name(scheme), levels, name);
            double worst = 0, range = 0;
            for (mmx_index k = 0; k < 2 * ub->nvalues; k++) {
                const double e = fabs((double)ua->values[k] - (double)ub->values[k]);
                worst = e > worst ? e : worst;
                range = fabs((double)ub->values[k]) > range ? fabs((double)ub->values[k]) : range;
            }
            CHECK(worst <= 1e-6 * (range + 1), "%s level %d on %s: texture coordinates differ by %g",
                  mmx_scheme_name(scheme), levels, name, worst);
        }
        free(ta), free(tb), free(sa), free(va), free(sb), free(vb);
    }
    mmx_mesh_free(got), mmx_mesh_free(one), mmx_mesh_free(want);
    mmx_dist_mesh_free(dm);
    mmx_mesh_free(m);
}

/* A rank whose part holds bad input: every rank stops with the same status and sentence. */
/* mmx_dist_subdivide_write: the file every rank writes is rank 0's mmx_mesh_write of
 * mmx_subdivide's result on the whole (sopts), with the single process's numbers: the same
 * bytes on the host; on CUDA (against the single CUDA process) the same faces and counts, the
 * positions within float rounding of the bounding box's diagonal (read back). Holes (tags,
 * boundary mode none) left out and the rest renumbered as one process does. A tagged mesh to
 * OBJ, and kept holes to OBJ, are refused on every rank (MMX_ERR_UNSUPPORTED); one rank's bad
 * path makes every rank refuse, none waiting. */
static void check_subdiv_write(mmx_ctx *ctx, mmx_dist *d, const char *name, mmx_scheme scheme,
                               int levels, mmx_format fmt)
{
    trace("subdiv_write", name, (int)scheme * 100 + levels);
    mmx_mesh *m = make(ctx, name);
    CHECK(m != NULL, "mesh %s: %s", name, mmx_ctx_error(ctx));
    if (!m || !parts[0]) {
        mmx_mesh_free(m);
        return;
    }
    mmx_ctx *c = DEV(ctx);
    mmx_dist_mesh *dm = partition(ctx, d, m, 1);
    const char *ext = fmt == MMX_FORMAT_PLY ? "ply" : "obj";
    char one[600], many[600];
    snprintf(one, sizeof one, "%s.sw_one.%s", parts, ext);
    snprintf(many, sizeof many, "%s.sw_many.%s", parts, ext);
    const int refused = fmt == MMX_FORMAT_OBJ && (m->tags || (sopts.boundary == MMX_BOUNDARY_NONE &&
                                                             (sopts.holes == MMX_HOLES_KEEP || m->uv)));
    mmx_mesh *r = NULL;
    if (rank == 0 && !refused) {
        const mmx_mesh *sm = single(m);
        OK(c, mmx_subdivide(c, scheme, sm, levels, &sopts, &r));
        if (r) OK(c, mmx_mesh_write(c, r, one, fmt));
        single_free(m, sm);
    }
    int64_t bytes = -1;
    mmx_dist_subdiv_report rep;
    memset(&rep, 0, sizeof rep);
    const mmx_status s = dm ? mmx_dist_subdivide_write(c, dm, scheme, levels, &sopts, many, fmt,
                                                       &bytes, &rep) : MMX_ERR_ARG;
    if (refused) {
        CHECK(s == MMX_ERR_UNSUPPORTED, "subdivide_write of %s (%s%s): %d, %s: not refused", name,
              ext, m->tags ? ", tagged" : "", (int)s, mmx_ctx_error(c));
    } else {
        CHECK(s == MMX_OK, "subdivide_write of %s (%s, scheme %d, %d levels): %s", name, ext,
              (int)scheme, levels, mmx_ctx_error(c));
    }
    if (!s && rank == 0 && r) {
        CHECK(rep.written_verts == mmx_mesh_nverts(r) && rep.written_faces == mmx_mesh_nfaces(r),
              "subdivide_write of %s: %lld vertices, %lld faces said, the single process has %d, %d",
              name, (long long)rep.written_verts, (long long)rep.written_faces, mmx_mesh_nverts(r),
              mmx_mesh_nfaces(r));
        if (!gpu) {
            CHECK(same_file(one, many), "subdivide_write of %s (%s, scheme %d, %d level%s%s) on %d "
                  "ranks: not the single process's file", name, ext, (int)scheme, levels,
                  levels == 1 ? "" : "s", sopts.limit ? ", limit" : "", mmx_dist_size(d));
        } else {
            mmx_mesh *a = NULL, *b = NULL;
            mmx_index *as = NULL, *av = NULL, *bs = NULL, *bv = NULL;
            OK(ctx, mmx_mesh_read(ctx, one, fmt, &a));
            OK(ctx, mmx_mesh_read(ctx, many, fmt, &b));
            if (a && b) {
                OK(ctx, mmx_mesh_faces(ctx, a, &as, &av));
                OK(ctx, mmx_mesh_faces(ctx, b, &bs, &bv));
            }
            const mmx_index nf = a ? mmx_mesh_nfaces(a) : 0, nv = a ? mmx_mesh_nverts(a) : 0;
            int same = a && b && as && bs && nf == mmx_mesh_nfaces(b) && nv == mmx_mesh_nverts(b) &&
                       !memcmp(as, bs, ((size_t)nf + 1) * sizeof *as) &&
                       !memcmp(av, bv, (size_t)as[nf] * sizeof *av);
            float lo[3] = {1e30f, 1e30f, 1e30f}, hi[3] = {-1e30f, -1e30f, -1e30f}, worst = 0;
            for (size_t i = 0; same && i < 3 * (size_t)nv; i++) {
                const float x = a->pos[i], y = b->pos[i];
                if (x < lo[i % 3]) lo[i % 3] = x;
                if (x > hi[i % 3]) hi[i % 3] = x;
                if (fabsf(x - y) > worst) worst = fabsf(x - y);
            }
            const float diag = sqrtf((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                                     (hi[2] - lo[2]) * (hi[2] - lo[2]));
            CHECK(same && worst <= 1e-5f * diag, "subdivide_write of %s on CUDA: faces %s, positions "
                  "off by %g (diagonal %g)", name, same ? "the same" : "differ", (double)worst, (double)diag);
            /* texture coordinates: the single CUDA process's numbers, values within rounding */
            const mmx_mesh_uv *ua = a ? a->uv : NULL, *ub = b ? b->uv : NULL;
            int tsame = !ua == !ub && (!ua || (ua->nvalues == ub->nvalues &&
                                               !memcmp(ua->index, ub->index, (size_t)as[nf] * sizeof *ua->index)));
            float tworst = 0;
            for (mmx_index k = 0; tsame && ua && k < 2 * ua->nvalues; k++)
                if (fabsf(ua->values[k] - ub->values[k]) > tworst) tworst = fabsf(ua->values[k] - ub->values[k]);
            CHECK(!same || (tsame && tworst <= 1e-5f), "subdivide_write of %s on CUDA: texture "
                  "coordinates %s, off by %g", name, tsame ? "numbered alike" : "differ", (double)tworst);
            free(as), free(av), free(bs), free(bv);
            mmx_mesh_free(a), mmx_mesh_free(b);
        }
    }
    if (dm && !refused) {
        const int last = rank == mmx_dist_size(d) - 1;
        const mmx_status t = mmx_dist_subdivide_write(c, dm, scheme, levels, &sopts,
                                                      last ? NULL : many, fmt, NULL, NULL);
        CHECK(t == MMX_ERR_ARG && strstr(mmx_ctx_error(c), "path is NULL"),
              "subdivide_write with one rank's path NULL: %d, %s", (int)t, mmx_ctx_error(c));
        /* sqrt3 refused on every rank (mmx_dist_subdivide gathers it), an unknown scheme too */
        const mmx_status u = mmx_dist_subdivide_write(c, dm, MMX_SCHEME_SQRT3, 1, &sopts, many, fmt,
                                                      NULL, NULL);
        const mmx_status v = mmx_dist_subdivide_write(c, dm, (mmx_scheme)77, 1, &sopts, many, fmt,
                                                      NULL, NULL);
        CHECK(u == MMX_ERR_UNSUPPORTED && v == MMX_ERR_ARG, "subdivide_write of sqrt3: %d, of "
              "scheme 77: %d (%s)", (int)u, (int)v, mmx_ctx_error(c));
    }
#ifdef MMX_HAVE_MPI
    MPI_Barrier(MPI_COMM_WORLD);
#endif
    if (rank == 0) remove(one), remove(many);
    mmx_mesh_free(r);
    mmx_dist_mesh_free(dm);
    mmx_mesh_free(m);
}

static void check_failure(mmx_ctx *ctx, mmx_dist *d, int R)
{
    trace("failure", NULL, R);
    mmx_mesh *m = make(ctx, "grid:12:12");
    if (!m) return;
    const mmx_index V = mmx_mesh_nverts(m);
    /* The last vertex (in the last rank's part, by the curve, or anyway in someone's) too large
     * for subdivision's coordinate bound, and its smoothing overflows float. */
    m->pos[3 * (V - 1)] = 3e38f;
    mmx_dist_mesh *dm = partition(ctx, d, m, 2);
    mmx_mesh *out = NULL;
    for (int op = 0; dm && op < 2; op++) {
        mmx_status s;
        if (op == 0) {
            s = mmx_dist_subdivide(ctx, dm, MMX_SCHEME_CATMULL_CLARK, 2, NULL, &out, NULL);
        } else {
            float *loc = malloc(3 * (size_t)mmx_mesh_nverts(mmx_dist_mesh_local(dm)) * sizeof *loc + 4);
            mmx_smooth_options o = mmx_smooth_defaults(MMX_SMOOTH_LAPLACIAN);
            o.iterations = 3;
            s = mmx_dist_smooth(ctx, dm, &o, loc, NULL);
            free(loc);
        }
        CHECK(s == MMX_ERR_MESH, "bad input, op %d: status %d (%s)", op, (int)s, mmx_ctx_error(ctx));
        CHECK(out == NULL, "bad input: a result");
        CHECK(!strncmp(mmx_ctx_error(ctx), "rank ", 5), "bad input: the sentence does not name the rank: %s",
              mmx_ctx_error(ctx));
#ifdef MMX_HAVE_MPI
        char msg[512], first[512];
        snprintf(msg, sizeof msg, "%s", mmx_ctx_error(ctx));
        memcpy(first, msg, sizeof first);
        MPI_Bcast(first, (int)sizeof first, MPI_CHAR, 0, MPI_COMM_WORLD);
        CHECK(!strcmp(first, msg), "bad input: rank 0 says \"%s\", this rank \"%s\"", first, msg);
#endif
    }
    /* too few ghost rings for Taubin's pairs: refused on every rank, before any work */
    {
        mmx_dist_mesh *one = partition(ctx, d, m, 1);
        float *loc = one ? malloc(3 * (size_t)mmx_mesh_nverts(mmx_dist_mesh_local(one)) * sizeof *loc + 4) : NULL;
        mmx_smooth_options o = mmx_smooth_defaults(MMX_SMOOTH_TAUBIN);
        const mmx_status s = one ? mmx_dist_smooth(ctx, one, &o, loc, NULL) : MMX_OK;
        CHECK(s == MMX_ERR_ARG && strstr(mmx_ctx_error(ctx), "2 ghost rings"),
              "taubin on one ring: status %d (%s)", (int)s, mmx_ctx_error(ctx));
        free(loc);
        /* sqrt3 over two levels on one ring: refused naming the rings it needs, no result */
        mmx_mesh *t = make(ctx, "tri:grid:10:8"), *got = NULL;
        mmx_dist_mesh *tm = t ? partition(ctx, d, t, 1) : NULL;
        const mmx_status q = tm ? mmx_dist_subdivide(ctx, tm, MMX_SCHEME_SQRT3, 2, NULL, &got, NULL) : MMX_OK;
        CHECK(q == MMX_ERR_ARG && !got && strstr(mmx_ctx_error(ctx), "sqrt3 over 2 levels needs 2 ghost rings") &&
                  strstr(mmx_ctx_error(ctx), "has 1") && mmx_dist_rings("subdiv:sqrt3:2") == 2 &&
                  mmx_dist_rings("subdiv:sqrt3:4") == 2 && mmx_dist_rings("subdiv:sqrt3:5") == 3 &&
                  mmx_dist_rings("subdiv:sqrt3:1") == 1 && mmx_dist_rings("subdiv:sqrt3:") == -1,
              "sqrt3 on one ring: status %d (%s)", (int)q, mmx_ctx_error(ctx));
        mmx_mesh_free(got);
        mmx_dist_mesh_free(tm);
        mmx_mesh_free(t);
        mmx_dist_mesh_free(one);
    }
    /* different meshes on the ranks: refused on every rank */
    if (R > 1) {
        mmx_mesh *other = make(ctx, rank == R - 1 ? "grid:12:11" : "grid:12:12");
        mmx_dist_mesh *bad = NULL;
        const mmx_status s = mmx_dist_mesh_create(ctx, d, other, NULL, 1, &bad);
        CHECK(s == MMX_ERR_ARG && !bad, "different meshes: status %d", (int)s);
        mmx_mesh_free(other);
    }
    mmx_dist_mesh_free(dm);
    mmx_mesh_free(m);
}

/* Removes the set the last partition() wrote (each rank its part, rank 0 the index), so that
 * the directory can go at the end. */
static void remove_parts(void)
{
    char part[600], index[600];
    snprintf(part, sizeof part, "%s.%d.part", parts, rank);
    snprintf(index, sizeof index, "%s.index", parts);
    CHECK(remove(part) == 0, "cannot remove %s", part);
    if (rank == 0) CHECK(remove(index) == 0, "cannot remove %s", index);
}

/* Reading part files that are wrong: every rank gets the same status and sentence, naming
 * the rank, the file and the problem; a good set reads again afterwards. Each rank corrupts
 * only the last rank's part (that rank's own file) or rank 0 the index. */
static void check_parts_failure(mmx_ctx *ctx, mmx_dist *d, int R)
{
    trace("parts_failure", NULL, R);
    mmx_mesh *m = make(ctx, "grid:12:12");
    if (!m) return;
    mmx_dist_mesh *dm = partition(ctx, d, m, 1), *rd = NULL;
    char part[600], index[600];
    snprintf(part, sizeof part, "%s.%d.part", parts, R - 1);
    snprintf(index, sizeof index, "%s.index", parts);
    const long nlf = dm ? (long)mmx_mesh_nfaces(mmx_dist_mesh_local(dm)) : 0;
    /* 0 bad magic, 1 truncated, 2 a corner out of range, 3 the index of another rank count,
     * 4 a face naming its first vertex twice (the local mesh's refusal, after the file's name:
     * it once came out as "m.0.part: m.0.part: ex 0 appears twice", the sentence formatted
     * over itself) */
    char want5[80] = "";
    /* 5: the index and every part's header promising 4 more corners than the parts' faces
     * have (each part alone is consistent; mmx_dist_mesh_gather met it as an internal error) */
    /* 6: face starts running backwards by more than an int holds (fuzz_parts: the count in
     * the sentence overflowed) */
    const char *want[7] = {"(bad magic)", "truncated", "corner 0 names local vertex", "read by",
                           ".part: face 0: vertex", want5, "local face 1 has -3489333248 corners"};
    const mmx_status wants[7] = {MMX_ERR_PARSE, MMX_ERR_PARSE, MMX_ERR_PARSE, MMX_ERR_ARG,
                                 MMX_ERR_MESH, MMX_ERR_PARSE, MMX_ERR_PARSE};
    for (int t = 0; dm && t < 7; t++) {
        OK(ctx, mmx_dist_mesh_write_parts(ctx, dm, parts));
        if ((t < 3 || t == 4 || t == 6) && rank == R - 1) {
            FILE *f = fopen(part, "r+b");
            CHECK(f != NULL, "cannot open %s", part);
            if (f && t == 0) fputc('X', f);
            if (f && t == 2) {
                const int32_t big = 1 << 30;
                fseek(f, 88 + 4 * (nlf + 1), SEEK_SET);
                fwrite(&big, sizeof big, 1, f);
            }
            if (f && t == 4) {
                int32_t first = 0;
                fseek(f, 88 + 4 * (nlf + 1), SEEK_SET);
                if (fread(&first, sizeof first, 1, f) == 1 && !fseek(f, 0, SEEK_CUR))
                    fwrite(&first, sizeof first, 1, f);
            }
            if (f && t == 6) {
                const int32_t starts[2] = {1885339648, -1603993600};
                fseek(f, 88 + 4, SEEK_SET);
                fwrite(starts, sizeof *starts, 2, f);
            }
            if (f) fclose(f);
            if (t == 1) CHECK(truncate(part, 100) == 0, "cannot truncate %s", part);
        }
        if (t == 3 && rank == 0) {
            FILE *f = fopen(index, "w");
            if (f) fprintf(f, "mmx-dist-index 1\nranks %d\nrings 1\nverts 169\nfaces 144\ncorners 576\n", R + 1), fclose(f);
        }
        if (t == 5) {
            char mine[600];
            snprintf(mine, sizeof mine, "%s.%d.part", parts, rank);
            mmx_dist_info in;
            mmx_dist_mesh_info(dm, &in);
            mmx_index *st = NULL, *vs = NULL;
            OK(ctx, mmx_mesh_faces(ctx, m, &st, &vs));
            const int64_t more = (st ? st[mmx_mesh_nfaces(m)] : 0) + 4;
            free(st), free(vs);
            FILE *f = fopen(mine, "r+b");
            if (f) fseek(f, 48, SEEK_SET), fwrite(&more, sizeof more, 1, f), fclose(f);
            f = rank == 0 ? fopen(index, "w") : NULL;
            if (f) fprintf(f, "mmx-dist-index 1\nranks %d\nrings 1\nverts %lld\nfaces %lld\ncorners %lld\n",
                           R, (long long)in.global_verts, (long long)in.global_faces, (long long)more), fclose(f);
            snprintf(want5, sizeof want5, "and %lld (parts of different sets)", (long long)more);
        }
#ifdef MMX_HAVE_MPI
        MPI_Barrier(MPI_COMM_WORLD);
#endif
        const mmx_status s = mmx_dist_mesh_read_parts(ctx, d, parts, &rd);
        char msg[512];
        snprintf(msg, sizeof msg, "%s", mmx_ctx_error(ctx));
        CHECK(s == wants[t] && !rd && strstr(msg, want[t]) &&
                  (t == 3 || t == 5 ? strstr(msg, index) != NULL : strstr(msg, part) != NULL) &&
                  !strncmp(msg, t == 3 || t == 5 ? "rank 0: " : "rank ", 5),
              "part files, case %d: status %d, \"%s\"", t, (int)s, msg);
#ifdef MMX_HAVE_MPI
        char first[512];
        memcpy(first, msg, sizeof first);
        MPI_Bcast(first, (int)sizeof first, MPI_CHAR, 0, MPI_COMM_WORLD);
        CHECK(!strcmp(first, msg), "part files, case %d: rank 0 says \"%s\", this rank \"%s\"", t, first, msg);
#endif
        mmx_dist_mesh_free(rd);
        rd = NULL;
    }
    /* a missing set: named */
    {
        char none[600];
        snprintf(none, sizeof none, "%s.none", parts);
        const mmx_status s = mmx_dist_mesh_read_parts(ctx, d, none, &rd);
        CHECK(s == MMX_ERR_IO && !rd && strstr(mmx_ctx_error(ctx), none), "a missing set: %d, %s",
              (int)s, mmx_ctx_error(ctx));
    }
    if (dm) remove_parts();
    mmx_dist_mesh_free(dm);
    mmx_mesh_free(m);
}

/* The checks again on CUDA contexts, one GPU per rank (the device of the rank's number on its
 * node, modulo the devices: ranks may share one), against the single process on CUDA (rank
 * 0's): the same promises as the host's (normals and the explicit smoothers bit for bit, the
 * queries' arrays, subdivision's topology exactly and positions within 1e-6 of the diagonal,
 * sqrt3 and the limit included, CG within 1e-4). With NCCL built in, once through NCCL and once staged through host memory
 * (MMX_DIST_TRANSPORT=staged). Skipped, saying why, when a rank has no GPU. */
static void check_cuda(mmx_ctx *ctx, mmx_dist *d)
{
    trace("cuda", NULL, 0);
    mmx_ctx *g = NULL;
    int count = 0, local = 0, have = 0, all = 0;
    char why[512] = "built without the CUDA backend";
    if (mmx_ctx_create(&g)) {
        failures++;
        return;
    }
    if (mmx_has_cuda()) {
        mmx_cuda_device_count(g, &count);
        if (!count) snprintf(why, sizeof why, "%s", mmx_ctx_error(g));
    }
#ifdef MMX_HAVE_MPI
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local);
    MPI_Comm_free(&node);
    have = count > 0 && mmx_ctx_use_cuda(g, local % count) == MMX_OK;
    if (count > 0 && !have) snprintf(why, sizeof why, "%s", mmx_ctx_error(g));
    MPI_Allreduce(&have, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
#endif
    if (!all) {
        if (!have) printf("SKIP: rank %d: the CUDA checks: no GPU (%s)\n", rank, why);
        mmx_ctx_free(g);
        return;
    }
    gpu = g;
    /* NCCL takes one rank per GPU: ranks sharing one stage through the host. */
    int shared = 0;
#ifdef MMX_HAVE_MPI
    {
        int n = 0, dev = local % count;
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
        MPI_Comm_size(node, &n);
        int *all = malloc((size_t)n * sizeof *all);
        MPI_Allgather(&dev, 1, MPI_INT, all, 1, MPI_INT, node);
        for (int i = 0; i < n; i++)
            for (int k = 0; k < i; k++) shared |= all[i] == all[k];
        free(all);
        MPI_Comm_free(&node);
        MPI_Allreduce(MPI_IN_PLACE, &shared, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    }
#endif
    const int nccl = mmx__dist_has_nccl() && !shared;
    if (rank == 0)
        printf("the CUDA checks: %d device%s per node, exchanges by %s\n", count, count == 1 ? "" : "s",
               nccl ? "NCCL, then staged" : "staging through host memory");
    const char *transports[2] = {NULL, "staged"};
    for (int t = 0; t < 2; t++) {
        if (t == 1 && !nccl) break;
        if (transports[t]) setenv("MMX_DIST_TRANSPORT", transports[t], 1);
        transport = t == 0 && nccl ? MMX_DIST_NCCL : MMX_DIST_STAGED;
        const char *meshes[] = {"grid:12:10", "torus:16:8", "mixed", "two_cubes", "icosphere:2",
                                "tri:grid:10:8"};
        for (size_t i = 0; i < sizeof meshes / sizeof *meshes; i++) check_normals_smooth(ctx, d, meshes[i]);
        check_queries_mesh(ctx, d, "fin", 1);
        for (int L = 1; L <= 2; L++) {
            check_subdiv(ctx, d, "grid:12:10", MMX_SCHEME_CATMULL_CLARK, L);
            check_subdiv(ctx, d, "two_cubes", MMX_SCHEME_CATMULL_CLARK, L);
            check_subdiv(ctx, d, "mixed", MMX_SCHEME_CATMULL_CLARK, L);
            check_subdiv(ctx, d, "creased:grid:10:9", MMX_SCHEME_CATMULL_CLARK, L);
            check_subdiv(ctx, d, "creased:torus:12:6", MMX_SCHEME_BILINEAR, L);
            check_subdiv(ctx, d, "icosphere:2", MMX_SCHEME_LOOP, L);
            check_subdiv(ctx, d, "creased:icosphere:1", MMX_SCHEME_LOOP, L);
        }
        /* sqrt3 (its cut's fans split on the host, refined on the device) and the limit */
        for (int L = 1; L <= 3; L++) {
            check_subdiv(ctx, d, "icosphere:2", MMX_SCHEME_SQRT3, L);
            check_subdiv(ctx, d, "tri:torus:12:8", MMX_SCHEME_SQRT3, L);
            check_subdiv(ctx, d, "tri:grid:10:8", MMX_SCHEME_SQRT3, L);
        }
        sopts.limit = 1;
        for (int L = 0; L <= 2; L++) {
            check_subdiv(ctx, d, "creased:grid:10:9", MMX_SCHEME_CATMULL_CLARK, L);
            check_subdiv(ctx, d, "icosphere:2", MMX_SCHEME_LOOP, L);
            check_subdiv(ctx, d, "tri:grid:10:8", MMX_SCHEME_LOOP, L);
        }
        sopts.limit = 0;
        check_cg(ctx, d, "grid:30:20");
        check_cg(ctx, d, "icosphere:3");
        /* a CUDA partitioned mesh written (its host copy) and read back onto the device */
        via_parts = parts[0] != 0;
        check_normals_smooth(ctx, d, "grid:12:10");
        check_subdiv(ctx, d, "creased:grid:10:9", MMX_SCHEME_CATMULL_CLARK, 2);
        check_gather(ctx, d, "mixed");
        via_parts = 0;
        /* hole tags (the local refinement keeps them on the device; rank 0 leaves them out) */
        sopts.holes = MMX_HOLES_KEEP;
        check_subdiv(ctx, d, "holed:creased:grid:10:9", MMX_SCHEME_CATMULL_CLARK, 2);
        sopts.holes = MMX_HOLES_REMOVE;
        check_subdiv(ctx, d, "holed:creased:grid:10:9", MMX_SCHEME_CATMULL_CLARK, 2);
        check_subdiv(ctx, d, "holed:icosphere:2", MMX_SCHEME_LOOP, 2);
        via_parts = parts[0] != 0;
        check_write(ctx, d, "mixed", MMX_FORMAT_OBJ);
        check_write(ctx, d, "mixed", MMX_FORMAT_PLY);
        if (via_parts) remove_parts();
        via_parts = 0;
        check_subdiv_write(ctx, d, "mixed", MMX_SCHEME_CATMULL_CLARK, 2, MMX_FORMAT_OBJ);
        check_subdiv_write(ctx, d, "icosphere:2", MMX_SCHEME_LOOP, 2, MMX_FORMAT_PLY);
        sopts.limit = 1; /* the limit has no masks for the fin's edge of three faces: "mixed" */
        check_subdiv_write(ctx, d, "mixed", MMX_SCHEME_CATMULL_CLARK, 2, MMX_FORMAT_OBJ);
        sopts.limit = 0; /* the set is left by the last partition() */
        via_parts = 0;
        /* texture coordinates refined on the devices (the local meshes', read back for the
         * naming): gathered, and written by every rank */
        for (int L = 1; L <= 2; L++) {
            check_subdiv(ctx, d, "textured:creased:grid:10:9", MMX_SCHEME_CATMULL_CLARK, L);
            check_subdiv(ctx, d, "textured:tri:grid:10:8", MMX_SCHEME_LOOP, L);
            check_subdiv(ctx, d, "textured:torus:12:6", MMX_SCHEME_BILINEAR, L);
            check_subdiv_write(ctx, d, "textured:grid:12:10", MMX_SCHEME_CATMULL_CLARK, L, MMX_FORMAT_OBJ);
            check_subdiv_write(ctx, d, "textured:tri:grid:10:8", MMX_SCHEME_LOOP, L, MMX_FORMAT_OBJ);
        }
        sopts.fvar = MMX_FVAR_SMOOTH;
        check_subdiv(ctx, d, "textured:tri:grid:10:8", MMX_SCHEME_LOOP, 2);
        check_subdiv_write(ctx, d, "textured:grid:12:10", MMX_SCHEME_CATMULL_CLARK, 2, MMX_FORMAT_OBJ);
        sopts.fvar = MMX_FVAR_FROM_MESH;
        unsetenv("MMX_DIST_TRANSPORT");
    }
    gpu = NULL;
    transport = MMX_DIST_HOST;
    mmx_ctx_free(g);
}

int main(int argc, char **argv)
{
    if (!mmx_dist_available()) {
        printf("SKIP: this build has no MPI (meson -Dmpi=enabled; Debian: libopenmpi-dev)\n");
        return 77;
    }
#ifdef MMX_HAVE_MPI
    MPI_Init(&argc, &argv);
#else
    (void)argc, (void)argv;
#endif
    mmx_ctx *ctx = NULL;
    mmx_dist *d = NULL;
    if (mmx_ctx_create(&ctx) || mmx_dist_create(ctx, NULL, &d)) {
        fprintf(stderr, "set-up: %s\n", mmx_ctx_error(ctx));
        return 1;
    }
    rank = mmx_dist_rank(d);
    const int R = mmx_dist_size(d);
    const char *smooth_meshes[] = {"grid:12:10", "torus:16:8", "mixed", "two_cubes", "icosphere:2",
                                   "tri:grid:10:8"};
    for (size_t i = 0; i < sizeof smooth_meshes / sizeof *smooth_meshes; i++)
        check_normals_smooth(ctx, d, smooth_meshes[i]);
    /* the rings the queries state (dist.h): 1 */
    CHECK(mmx_dist_rings("query") == 1, "mmx_dist_rings(\"query\") is %d", mmx_dist_rings("query"));
    const char *query_meshes[] = {"fin", "mixed", "grid:12:10", "tri:grid:10:8", "two_cubes"};
    for (size_t i = 0; i < sizeof query_meshes / sizeof *query_meshes; i++)
        check_queries_mesh(ctx, d, query_meshes[i], mmx_dist_rings("query"));
    const char *gather_meshes[] = {"fin", "mixed", "two_cubes", "grid:12:10"};
    for (size_t i = 0; i < sizeof gather_meshes / sizeof *gather_meshes; i++)
        check_gather(ctx, d, gather_meshes[i]);
    /* One ghost ring is enough for any number of levels (the surface over a face depends on
     * its one-ring alone): levels 1 to 3 on it, with creases, both crease methods and both
     * boundary modes, the non-manifold vertex and mixed orders. */
    for (int L = 1; L <= 3; L++) {
        check_subdiv(ctx, d, "grid:12:10", MMX_SCHEME_CATMULL_CLARK, L);
        check_subdiv(ctx, d, "torus:16:8", MMX_SCHEME_CATMULL_CLARK, L);
        check_subdiv(ctx, d, "two_cubes", MMX_SCHEME_CATMULL_CLARK, L);
        check_subdiv(ctx, d, "fin", MMX_SCHEME_CATMULL_CLARK, L);
        check_subdiv(ctx, d, "mixed", MMX_SCHEME_CATMULL_CLARK, L);
        check_subdiv(ctx, d, "creased:grid:10:9", MMX_SCHEME_CATMULL_CLARK, L);
        check_subdiv(ctx, d, "creased:torus:12:6", MMX_SCHEME_BILINEAR, L);
        check_subdiv(ctx, d, "icosphere:2", MMX_SCHEME_LOOP, L);
        check_subdiv(ctx, d, "tri:grid:10:8", MMX_SCHEME_LOOP, L);
        check_subdiv(ctx, d, "creased:icosphere:1", MMX_SCHEME_LOOP, L);
        sopts.crease = MMX_CREASE_CHAIKIN;
        check_subdiv(ctx, d, "creased:torus:12:6", MMX_SCHEME_CATMULL_CLARK, L);
        check_subdiv(ctx, d, "creased:icosphere:1", MMX_SCHEME_LOOP, L);
        sopts.crease = MMX_CREASE_FROM_MESH;
        sopts.boundary = MMX_BOUNDARY_EDGE_AND_CORNER;
        check_subdiv(ctx, d, "creased:grid:10:9", MMX_SCHEME_CATMULL_CLARK, L);
        sopts.boundary = MMX_BOUNDARY_FROM_MESH;
    }
    /* sqrt3: one ring for a level, two up to four, three for more (mmx_dist_rings), closed
     * and open meshes (Kobbelt's boundary rule alternating by level), irregular valences, a
     * part's cut vertices in several fans (split_fans); levels 1 to 5. */
    for (int L = 1; L <= 5; L++) {
        check_subdiv(ctx, d, "icosphere:2", MMX_SCHEME_SQRT3, L);
        check_subdiv(ctx, d, "tri:torus:12:8", MMX_SCHEME_SQRT3, L);
        check_subdiv(ctx, d, "tri:grid:10:8", MMX_SCHEME_SQRT3, L);
        check_subdiv(ctx, d, "tri:grid:16:14", MMX_SCHEME_SQRT3, L);
    }
    /* The limit projection (opts->limit) on one ring: levels 0 to 3, creases and boundaries. */
    sopts.limit = 1;
    for (int L = 0; L <= 3; L++) {
        check_subdiv(ctx, d, "torus:16:8", MMX_SCHEME_CATMULL_CLARK, L);
        check_subdiv(ctx, d, "creased:grid:10:9", MMX_SCHEME_CATMULL_CLARK, L);
        check_subdiv(ctx, d, "creased:torus:12:6", MMX_SCHEME_BILINEAR, L);
        check_subdiv(ctx, d, "icosphere:2", MMX_SCHEME_LOOP, L);
        check_subdiv(ctx, d, "tri:grid:10:8", MMX_SCHEME_LOOP, L);
        check_subdiv(ctx, d, "creased:icosphere:1", MMX_SCHEME_LOOP, L);
        sopts.boundary = MMX_BOUNDARY_EDGE_AND_CORNER;
        check_subdiv(ctx, d, "creased:grid:10:9", MMX_SCHEME_CATMULL_CLARK, L);
        sopts.boundary = MMX_BOUNDARY_FROM_MESH;
    }
    for (int L = 1; L <= 3; L++) check_subdiv(ctx, d, "mixed", MMX_SCHEME_CATMULL_CLARK, L);
    sopts.limit = 0;
    /* texture coordinates gathered (keys as the vertices', by value for Loop's linear mode):
     * seams, boundaries, creases, holes left out or kept, every face-varying mode; sqrt3
     * refines none (neither result has them) */
    for (int L = 0; L <= 3; L++) {
        check_subdiv(ctx, d, "textured:grid:12:10", MMX_SCHEME_CATMULL_CLARK, L);
        check_subdiv(ctx, d, "textured:creased:grid:10:9", MMX_SCHEME_CATMULL_CLARK, L);
        check_subdiv(ctx, d, "textured:mixed", MMX_SCHEME_CATMULL_CLARK, L);
        check_subdiv(ctx, d, "textured:tri:grid:10:8", MMX_SCHEME_LOOP, L);
        check_subdiv(ctx, d, "textured:creased:icosphere:1", MMX_SCHEME_LOOP, L);
        check_subdiv(ctx, d, "textured:torus:12:6", MMX_SCHEME_BILINEAR, L);
        check_subdiv(ctx, d, "textured:two_cubes", MMX_SCHEME_CATMULL_CLARK, L);
    }
    check_subdiv(ctx, d, "textured:tri:grid:10:8", MMX_SCHEME_SQRT3, 2);
    check_subdiv(ctx, d, "repeated:textured:grid:12:10", MMX_SCHEME_CATMULL_CLARK, 2);
    check_subdiv(ctx, d, "repeated:textured:mixed", MMX_SCHEME_BILINEAR, 3);
    for (int mode = MMX_FVAR_SMOOTH; mode <= MMX_FVAR_BOUNDARIES; mode++) {
        sopts.fvar = (mmx_fvar_mode)mode;
        check_subdiv(ctx, d, "textured:creased:grid:10:9", MMX_SCHEME_CATMULL_CLARK, 2);
        check_subdiv(ctx, d, "textured:tri:grid:10:8", MMX_SCHEME_LOOP, 3);
    }
    sopts.fvar = MMX_FVAR_FROM_MESH;
    for (int mode = 0; mode < 2; mode++) {
        sopts.holes = mode ? MMX_HOLES_KEEP : MMX_HOLES_REMOVE;
        check_subdiv(ctx, d, "textured:holed:grid:12:10", MMX_SCHEME_CATMULL_CLARK, 2);
        check_subdiv(ctx, d, "textured:holed:tri:grid:10:8", MMX_SCHEME_LOOP, 2);
    }
    sopts.holes = MMX_HOLES_REMOVE;
    sopts.limit = 1;
    check_subdiv(ctx, d, "textured:grid:12:10", MMX_SCHEME_CATMULL_CLARK, 2);
    sopts.limit = 0;
    /* Hole tags, left out (the default) and kept: inside, at the boundary, beside the cuts;
     * with creases, mixed orders and the limit. */
    for (int mode = 0; mode < 2; mode++) {
        sopts.holes = mode ? MMX_HOLES_KEEP : MMX_HOLES_REMOVE;
        for (int L = 1; L <= 3; L++) {
            check_subdiv(ctx, d, "holed:grid:12:10", MMX_SCHEME_CATMULL_CLARK, L);
            check_subdiv(ctx, d, "holed:creased:grid:10:9", MMX_SCHEME_CATMULL_CLARK, L);
            check_subdiv(ctx, d, "holed:mixed", MMX_SCHEME_CATMULL_CLARK, L);
            check_subdiv(ctx, d, "holed:torus:16:8", MMX_SCHEME_CATMULL_CLARK, L);
            check_subdiv(ctx, d, "holed:icosphere:2", MMX_SCHEME_LOOP, L);
            check_subdiv(ctx, d, "holed:tri:grid:10:8", MMX_SCHEME_LOOP, L);
            check_subdiv(ctx, d, "holed:creased:icosphere:1", MMX_SCHEME_LOOP, L);
            check_subdiv(ctx, d, "holed:torus:12:6", MMX_SCHEME_BILINEAR, L);
            check_subdiv(ctx, d, "holed:tri:grid:10:8", MMX_SCHEME_SQRT3, L);
            /* no boundary interpolation: the faces at boundary vertices become holes too
             * (at the local meshes' cuts as well, ghosts only) */
            sopts.boundary = MMX_BOUNDARY_NONE;
            check_subdiv(ctx, d, "creased:grid:10:9", MMX_SCHEME_CATMULL_CLARK, L);
            check_subdiv(ctx, d, "holed:tri:grid:10:8", MMX_SCHEME_LOOP, L);
            sopts.boundary = MMX_BOUNDARY_FROM_MESH;
            sopts.limit = 1;
            check_subdiv(ctx, d, "holed:creased:grid:10:9", MMX_SCHEME_CATMULL_CLARK, L);
            check_subdiv(ctx, d, "holed:tri:grid:10:8", MMX_SCHEME_LOOP, L);
            sopts.limit = 0;
        }
    }
    sopts.holes = MMX_HOLES_REMOVE;
    check_cg(ctx, d, "grid:30:20");
    check_cg(ctx, d, "icosphere:3");
    check_failure(ctx, d, R);
    /* The part files (a directory of rank 0's): every partition written and read back, the
     * read mesh held to the single process as the created one is; then bad files. */
    if (rank == 0) {
        const char *tmp = getenv("TMPDIR");
        char dir[400];
        snprintf(dir, sizeof dir, "%s/mmx_parts_XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (mkdtemp(dir)) snprintf(parts, sizeof parts, "%s/m", dir);
    }
#ifdef MMX_HAVE_MPI
    MPI_Bcast(parts, (int)sizeof parts, MPI_CHAR, 0, MPI_COMM_WORLD);
#endif
    CHECK(parts[0], "no directory for the part files");
    if (parts[0]) {
        via_parts = 1;
        check_normals_smooth(ctx, d, "grid:12:10");
        check_normals_smooth(ctx, d, "two_cubes");
        check_normals_smooth(ctx, d, "tri:grid:10:8");
        check_subdiv(ctx, d, "creased:grid:10:9", MMX_SCHEME_CATMULL_CLARK, 2);
        check_subdiv(ctx, d, "creased:icosphere:1", MMX_SCHEME_LOOP, 2);
        check_subdiv(ctx, d, "tri:grid:10:8", MMX_SCHEME_SQRT3, 3); /* two rings in the files */
        check_subdiv(ctx, d, "holed:creased:grid:10:9", MMX_SCHEME_CATMULL_CLARK, 2);
        check_cg(ctx, d, "grid:30:20");
        check_gather(ctx, d, "two_cubes");
        check_gather(ctx, d, "mixed");
        check_write(ctx, d, "mixed", MMX_FORMAT_OBJ);
        check_write(ctx, d, "mixed", MMX_FORMAT_PLY);
        via_parts = 0;
        check_write(ctx, d, "grid:12:10", MMX_FORMAT_OBJ);
        check_write(ctx, d, "fin", MMX_FORMAT_OBJ);
        check_write(ctx, d, "fin", MMX_FORMAT_PLY);
        check_write(ctx, d, "two_cubes", MMX_FORMAT_PLY);
        for (int L = 0; L <= 3; L++) {
            check_subdiv_write(ctx, d, "mixed", MMX_SCHEME_CATMULL_CLARK, L, MMX_FORMAT_OBJ);
            check_subdiv_write(ctx, d, "fin", MMX_SCHEME_CATMULL_CLARK, L, MMX_FORMAT_PLY);
            check_subdiv_write(ctx, d, "two_cubes", MMX_SCHEME_BILINEAR, L, MMX_FORMAT_OBJ);
            check_subdiv_write(ctx, d, "tri:grid:10:8", MMX_SCHEME_LOOP, L, MMX_FORMAT_OBJ);
            check_subdiv_write(ctx, d, "creased:grid:10:9", MMX_SCHEME_CATMULL_CLARK, L, MMX_FORMAT_PLY);
        }
        check_subdiv_write(ctx, d, "creased:grid:10:9", MMX_SCHEME_CATMULL_CLARK, 2, MMX_FORMAT_OBJ);
        /* MPI's int counts: the all-to-alls and the file's chunks past a round's bytes go in
         * rounds and pieces (512 MiB; here 3000 bytes, so that the small meshes take many) */
        setenv("MMX_DIST_ROUND_BYTES", "3000", 1);
        check_write(ctx, d, "mixed", MMX_FORMAT_OBJ);
        check_write(ctx, d, "fin", MMX_FORMAT_PLY);
        check_subdiv_write(ctx, d, "mixed", MMX_SCHEME_CATMULL_CLARK, 2, MMX_FORMAT_OBJ);
        sopts.boundary = MMX_BOUNDARY_NONE;
        check_subdiv_write(ctx, d, "tri:grid:10:8", MMX_SCHEME_LOOP, 2, MMX_FORMAT_PLY);
        sopts.boundary = MMX_BOUNDARY_FROM_MESH;
        check_gather(ctx, d, "mixed");
        unsetenv("MMX_DIST_ROUND_BYTES");
        sopts.limit = 1;
        check_subdiv_write(ctx, d, "icosphere:2", MMX_SCHEME_LOOP, 2, MMX_FORMAT_OBJ);
        check_subdiv_write(ctx, d, "torus:16:8", MMX_SCHEME_CATMULL_CLARK, 1, MMX_FORMAT_PLY);
        sopts.limit = 0;
        sopts.boundary = MMX_BOUNDARY_EDGE_AND_CORNER;
        check_subdiv_write(ctx, d, "grid:12:10", MMX_SCHEME_CATMULL_CLARK, 2, MMX_FORMAT_OBJ);
        sopts.boundary = MMX_BOUNDARY_NONE;
        check_subdiv_write(ctx, d, "grid:12:10", MMX_SCHEME_CATMULL_CLARK, 2, MMX_FORMAT_OBJ);
        check_subdiv_write(ctx, d, "mixed", MMX_SCHEME_CATMULL_CLARK, 3, MMX_FORMAT_PLY);
        check_subdiv_write(ctx, d, "tri:grid:10:8", MMX_SCHEME_LOOP, 2, MMX_FORMAT_OBJ);
        sopts.holes = MMX_HOLES_KEEP;
        check_subdiv_write(ctx, d, "grid:12:10", MMX_SCHEME_CATMULL_CLARK, 2, MMX_FORMAT_OBJ);
        check_subdiv_write(ctx, d, "grid:12:10", MMX_SCHEME_CATMULL_CLARK, 2, MMX_FORMAT_PLY);
        sopts.holes = MMX_HOLES_REMOVE;
        sopts.boundary = MMX_BOUNDARY_FROM_MESH;
        /* hole tags (PLY: OBJ would carry the tags), left out or kept */
        for (int L = 1; L <= 2; L++) {
            check_subdiv_write(ctx, d, "holed:grid:12:10", MMX_SCHEME_CATMULL_CLARK, L, MMX_FORMAT_PLY);
            check_subdiv_write(ctx, d, "holed:mixed", MMX_SCHEME_CATMULL_CLARK, L, MMX_FORMAT_PLY);
            check_subdiv_write(ctx, d, "holed:tri:grid:10:8", MMX_SCHEME_LOOP, L, MMX_FORMAT_PLY);
        }
        sopts.holes = MMX_HOLES_KEEP;
        check_subdiv_write(ctx, d, "holed:torus:16:8", MMX_SCHEME_CATMULL_CLARK, 2, MMX_FORMAT_PLY);
        sopts.holes = MMX_HOLES_REMOVE;
        /* texture coordinates with seams and boundaries: the single process's "vt" lines and
         * "f v/vt" corners (numbered by the texture mesh's layout, or by value: Loop's linear
         * mode), every face-varying mode; PLY carries none; the part files refuse them
         * (partition()); boundary mode none (holes renumbering them) refused to OBJ */
        via_parts = 1;
        for (int L = 0; L <= 3; L++) {
            check_subdiv_write(ctx, d, "textured:grid:12:10", MMX_SCHEME_CATMULL_CLARK, L, MMX_FORMAT_OBJ);
            check_subdiv_write(ctx, d, "textured:tri:grid:10:8", MMX_SCHEME_LOOP, L, MMX_FORMAT_OBJ);
            check_subdiv_write(ctx, d, "textured:icosphere:2", MMX_SCHEME_LOOP, L, MMX_FORMAT_OBJ);
            check_subdiv_write(ctx, d, "textured:torus:12:6", MMX_SCHEME_BILINEAR, L, MMX_FORMAT_OBJ);
            check_subdiv_write(ctx, d, "textured:tri:grid:10:8", MMX_SCHEME_CATMULL_CLARK, L, MMX_FORMAT_OBJ);
            check_subdiv_write(ctx, d, "textured:two_cubes", MMX_SCHEME_CATMULL_CLARK, L, MMX_FORMAT_OBJ);
            check_subdiv_write(ctx, d, "textured:mixed", MMX_SCHEME_CATMULL_CLARK, L, MMX_FORMAT_OBJ);
        }
        via_parts = 0;
        check_subdiv_write(ctx, d, "repeated:textured:grid:12:10", MMX_SCHEME_CATMULL_CLARK, 2, MMX_FORMAT_OBJ);
        check_subdiv_write(ctx, d, "repeated:textured:mixed", MMX_SCHEME_BILINEAR, 3, MMX_FORMAT_OBJ);
        for (int mode = MMX_FVAR_SMOOTH; mode <= MMX_FVAR_BOUNDARIES; mode++) {
            sopts.fvar = (mmx_fvar_mode)mode;
            check_subdiv_write(ctx, d, "textured:grid:12:10", MMX_SCHEME_CATMULL_CLARK, 2, MMX_FORMAT_OBJ);
            check_subdiv_write(ctx, d, "textured:tri:grid:10:8", MMX_SCHEME_LOOP, 2, MMX_FORMAT_OBJ);
            check_subdiv_write(ctx, d, "textured:torus:12:6", MMX_SCHEME_CATMULL_CLARK, 3, MMX_FORMAT_OBJ);
        }
        sopts.fvar = MMX_FVAR_FROM_MESH;
        sopts.limit = 1;
        check_subdiv_write(ctx, d, "textured:grid:12:10", MMX_SCHEME_CATMULL_CLARK, 2, MMX_FORMAT_OBJ);
        check_subdiv_write(ctx, d, "textured:icosphere:2", MMX_SCHEME_LOOP, 2, MMX_FORMAT_OBJ);
        sopts.limit = 0;
        check_subdiv_write(ctx, d, "textured:grid:12:10", MMX_SCHEME_CATMULL_CLARK, 2, MMX_FORMAT_PLY);
        sopts.boundary = MMX_BOUNDARY_NONE;
        check_subdiv_write(ctx, d, "textured:grid:12:10", MMX_SCHEME_CATMULL_CLARK, 1, MMX_FORMAT_OBJ);
        sopts.boundary = MMX_BOUNDARY_FROM_MESH;
        check_parts_failure(ctx, d, R);
    }
    check_cuda(ctx, d);
#ifdef MMX_HAVE_MPI
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0 && parts[0]) {
        char *slash = strrchr(parts, '/');
        *slash = 0;
        CHECK(rmdir(parts) == 0, "cannot remove %s", parts);
    }
    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("%s: %d ranks, %d failed checks\n", total ? "FAIL" : "PASS", R, total);
    mmx_dist_free(d);
    mmx_ctx_free(ctx);
    MPI_Finalize();
    return total ? 1 : 0;
#else
    return 1;
#endif
}
