/* Limit evaluation at parametric points (issue 30, item 3): N random (ptex face, u, v) points
 * on a cage, through a limit table (mmx_limit_table_eval) on the CUDA backend, against its
 * floor (the table's arrays read once, the points read, the results written, over the
 * measured copy bandwidth), the host backend, and OpenSubdiv's CPU patch evaluation
 * (Far::PatchTable, Gregory end caps, one thread; where tests/ found OpenSubdiv), with the
 * largest gap between the two surfaces over the points.
 *
 * The table is made with MMX_LIMIT_CAPS_OPENSUBDIV (OpenSubdiv's end caps at semi-sharp creases).
 * Loop's row: a triangle cage with --scheme loop (ArmorGuyT.obj's 33,912 triangles: box-spline
 * patches and OpenSubdiv's GREGORY_TRIANGLE end caps, the gap to its surface printed).
 * Usage: limit_eval MESH [--points N] [--isolation L] [--scheme catmull-clark|loop]
 *   N: 1000000 by default; L: the table's isolation (default 2, as mmx_limit_table's).
 * Rows: the call as an application makes it (the points' check read back: one wait), the
 * kernel alone, each for positions only and for positions with first derivatives; CUDA events,
 * median of 20 after 3 warm-ups. Exits 1 without a GPU or when the mesh cannot be read. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_clock.h"
#include "bench_util.h"
#include "limit_osd.h"
#include "subdiv/limit_eval.h"

typedef struct run_arg {
    mmx_ctx *ctx;
    const mmx_limit_table *t;
    mmx_index n;
    const mmx_index *f;
    const float *u, *v;
    float *P, *du, *dv; /* du, dv NULL: positions only */
    mmx_index *bad;
    int kernel;         /* 1: the kernel alone */
} run_arg;

static int run_eval(void *p)
{
    run_arg *a = p;
    if (a->kernel)
        return mmx__limit_eval_cuda(a->ctx, *mmx__limit_table_patches(a->t, NULL), a->n, a->f,
                                    a->u, a->v, a->P, a->du, a->dv, NULL, NULL, NULL, a->bad) != MMX_OK;
    return mmx_limit_table_eval(a->ctx, a->t, a->n, a->f, a->u, a->v, a->P, a->du, a->dv, NULL,
                                NULL, NULL) != MMX_OK;
}

static uint32_t rng(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

int main(int argc, char **argv)
{
    const char *path = NULL;
    long n = 1000000;
    int iso = 2;
    mmx_scheme scheme = MMX_SCHEME_CATMULL_CLARK;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--points") && i + 1 < argc) n = atol(argv[++i]);
        else if (!strcmp(argv[i], "--isolation") && i + 1 < argc) iso = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--scheme") && i + 1 < argc) {
            if (mmx_scheme_parse(argv[++i], &scheme)) n = -1;
        } else if (!path && argv[i][0] != '-') path = argv[i];
        else n = -1;
    }
    if (!path || n <= 0 || n > INT32_MAX) {
        fprintf(stderr, "usage: limit_eval MESH [--points N] [--isolation L] "
                        "[--scheme catmull-clark|loop]\n");
        return 2;
    }
    mmx_ctx *ctx = NULL, *host = NULL;
    if (mmx_ctx_create(&ctx) || mmx_ctx_use_cuda(ctx, 0) || mmx_ctx_create(&host)) {
        fprintf(stderr, "limit_eval: no CUDA device: %s\n", ctx ? mmx_ctx_error(ctx) : "");
        return 1;
    }
    cudaStream_t st = (cudaStream_t)mmx_ctx_cuda_stream(ctx);
    char gpu[256];
    bu_gpu_name(gpu, sizeof gpu);
    mmx_mesh *m = NULL, *hm = NULL;
    BU_MMX(ctx, mmx_mesh_read(ctx, path, MMX_FORMAT_AUTO, &m));
    BU_MMX(host, mmx_mesh_read(host, path, MMX_FORMAT_AUTO, &hm));
    mmx_limit_options o;
    memset(&o, 0, sizeof o);
    o.isolation = iso, o.caps = MMX_LIMIT_CAPS_OPENSUBDIV; /* OpenSubdiv's end caps */
    mmx_limit_table *t = NULL, *ht = NULL;
    double t0 = bc_now_ms();
    BU_MMX(ctx, mmx_limit_table_create(ctx, scheme, m, &o, &t));
    const double table_ms = bc_now_ms() - t0;
    BU_MMX(host, mmx_limit_table_create(host, scheme, hm, &o, &ht));
    size_t table_bytes = 0;
    const mmx__limit_patches *T = mmx__limit_table_patches(t, &table_bytes);
    const mmx_index np = T->nptex;

    /* The points, on the host and the device. */
    const size_t N = (size_t)n;
    mmx_index *f = malloc(N * sizeof *f);
    float *u = malloc(N * sizeof *u), *v = malloc(N * sizeof *v);
    float *hres = malloc(9 * N * sizeof *hres), *dres = malloc(9 * N * sizeof *dres);
    if (!f || !u || !v || !hres || !dres) return 1;
    uint32_t seed = 1;
    for (size_t i = 0; i < N; i++) {
        f[i] = (mmx_index)(rng(&seed) % (uint32_t)np);
        u[i] = (float)(rng(&seed) & 0xffff) / 65535.0f;
        v[i] = (float)(rng(&seed) & 0xffff) / 65535.0f;
        if (scheme == MMX_SCHEME_LOOP && u[i] + v[i] > 1.0f) u[i] = 1.0f - u[i], v[i] = 1.0f - v[i];
    }
    mmx_index *df, *bad;
    float *du_, *dv_, *out;
    BU_CUDA(cudaMalloc((void **)&df, N * sizeof *df));
    BU_CUDA(cudaMalloc((void **)&du_, N * sizeof *du_));
    BU_CUDA(cudaMalloc((void **)&dv_, N * sizeof *dv_));
    BU_CUDA(cudaMalloc((void **)&out, 9 * N * sizeof *out));
    BU_CUDA(cudaMalloc((void **)&bad, sizeof *bad));
    BU_CUDA(cudaMemcpy(df, f, N * sizeof *f, cudaMemcpyHostToDevice));
    BU_CUDA(cudaMemcpy(du_, u, N * sizeof *u, cudaMemcpyHostToDevice));
    BU_CUDA(cudaMemcpy(dv_, v, N * sizeof *v, cudaMemcpyHostToDevice));
    const mmx_index big = INT32_MAX;
    BU_CUDA(cudaMemcpy(bad, &big, sizeof big, cudaMemcpyHostToDevice));

    const double tbps = bu_copy_tbps(st);
    printf("# limit_eval: %s, %s, isolation %d, %ld points, %s\n\n", path,
           mmx_scheme_name(scheme), iso, n, gpu);
    printf("cage: %d vertices, %d faces, %d ptex faces; table %.1f MB, built in %.1f ms "
           "(refinement and patches on the host, then copied)\n\n",
           (int)m->M->nrows, (int)m->M->ncols, (int)np, table_bytes / 1e6, table_ms);
    printf("floor per point: the table once (%.1f B per point here) + 12 B of point + 12 B per "
           "output (P: 24 B + table, P, du, dv: 48 B + table); a point itself reads one child "
           "index per level and its patch (%s), so the ratio also counts those gathers\n\n",
           (double)table_bytes / (double)n,
           scheme == MMX_SCHEME_LOOP
               ? "box spline: 48 B of indices + 12 x 12 B of points; Gregory triangle: 4 B + 216 B"
               : "B-spline: 64 B of indices + 16 x 12 B of points; Gregory: 4 B + 240 B");
    printf("| what | outputs | ms | floor ms | x floor | Mpoints/s |\n|---|---|---:|---:|---:|---:|\n");
    for (int deriv = 0; deriv < 2; deriv++) {
        /* The floor: the table's arrays read once, the points read, the results written. */
        const double bytes = (double)table_bytes + 12.0 * n + 12.0 * n * (deriv ? 3 : 1);
        const double floor_ms = bytes / (tbps * 1e12) * 1e3;
        for (int kernel = 1; kernel >= 0; kernel--) {
            run_arg a = {ctx, t, (mmx_index)n, df, du_, dv_, out, deriv ? out + 3 * N : NULL,
                         deriv ? out + 6 * N : NULL, bad, kernel};
            const double ms = bu_time(st, 3, 20, run_eval, &a);
            printf("| %s | %s | %.3f | %.3f | %.2f | %.0f |\n",
                   kernel ? "kernel" : "mmx_limit_table_eval (one wait)",
                   deriv ? "P, du, dv" : "P", ms, floor_ms, ms / floor_ms, n / ms / 1e3);
        }
    }
    /* The host backend (one thread), and CUDA = host. */
    t0 = bc_now_ms();
    BU_MMX(host, mmx_limit_table_eval(host, ht, (mmx_index)n, f, u, v, hres, hres + 3 * N,
                                      hres + 6 * N, NULL, NULL, NULL));
    const double host_ms = bc_now_ms() - t0;
    printf("| host backend (1 thread) | P, du, dv | %.3f | | | %.0f |\n", host_ms, n / host_ms / 1e3);
    BU_CUDA(cudaMemcpy(dres, out, 9 * N * sizeof *dres, cudaMemcpyDeviceToHost));
    const double diag = lo_diagonal(hm);
    double gap = 0.0;
    for (size_t i = 0; i < 3 * N; i++) gap = fmax(gap, fabs((double)hres[i] - dres[i]));
    printf("\nCUDA against the host: largest position difference %.3g of the diagonal\n", gap / diag);
    if (lo_compare(host, hm, scheme, iso, N, f, u, v, hres, diag)) return 1;
    cudaFree(df), cudaFree(du_), cudaFree(dv_), cudaFree(out), cudaFree(bad);
    free(f), free(u), free(v), free(hres), free(dres);
    mmx_limit_table_free(t), mmx_limit_table_free(ht);
    mmx_mesh_free(m), mmx_mesh_free(hm);
    mmx_ctx_free(ctx), mmx_ctx_free(host);
    return 0;
}
