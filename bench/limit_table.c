/* The limit table's build on the host and its agreement with OpenSubdiv (issue 30, item 3), no
 * GPU needed: mmx_limit_table_create's time on a cage (median of --repeat runs), its patches
 * by kind, and N random (ptex face, u, v) points evaluated on the host against OpenSubdiv's
 * Far::PatchTable (Gregory end caps at the same isolation, the table made with
 * MMX_LIMIT_CAPS_OPENSUBDIV; where tests/ found OpenSubdiv):
 * the largest gap in position and in first derivatives over the bounding-box diagonal.
 *
 * Usage: limit_table MESH [--points N] [--isolation L] [--scheme catmull-clark|loop]
 *                    [--repeat R]
 *   N: 100000 by default; L: 2 by default; R: 3 by default. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench_clock.h"
#include "limit_osd.h"
#include "subdiv/limit_eval.h"

static uint32_t rng(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

#define CHECK(ctx, call)                                                                        \
    do {                                                                                        \
        if ((call) != MMX_OK) {                                                                 \
            fprintf(stderr, "limit_table: %s\n", mmx_ctx_error(ctx));                          \
            return 1;                                                                           \
        }                                                                                       \
    } while (0)

int main(int argc, char **argv)
{
    const char *path = NULL;
    long n = 100000;
    int iso = 2, repeat = 3;
    mmx_scheme scheme = MMX_SCHEME_CATMULL_CLARK;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--points") && i + 1 < argc) n = atol(argv[++i]);
        else if (!strcmp(argv[i], "--isolation") && i + 1 < argc) iso = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--repeat") && i + 1 < argc) repeat = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--scheme") && i + 1 < argc) {
            if (mmx_scheme_parse(argv[++i], &scheme)) n = -1;
        } else if (!path && argv[i][0] != '-') path = argv[i];
        else n = -1;
    }
    if (!path || n <= 0 || n > INT32_MAX || repeat < 1 || repeat > 100) {
        fprintf(stderr, "usage: limit_table MESH [--points N] [--isolation L] "
                        "[--scheme catmull-clark|loop] [--repeat R]\n");
        return 2;
    }
    mmx_ctx *ctx = NULL;
    if (mmx_ctx_create(&ctx)) return 1;
    mmx_mesh *m = NULL;
    CHECK(ctx, mmx_mesh_read(ctx, path, MMX_FORMAT_AUTO, &m));
    mmx_limit_options o;
    memset(&o, 0, sizeof o);
    o.isolation = iso, o.caps = MMX_LIMIT_CAPS_OPENSUBDIV; /* OpenSubdiv's end caps */
    mmx_limit_table *t = NULL;
    double ms[100];
    for (int r = 0; r < repeat; r++) {
        mmx_limit_table_free(t);
        t = NULL;
        const double t0 = bc_now_ms();
        CHECK(ctx, mmx_limit_table_create(ctx, scheme, m, &o, &t));
        ms[r] = bc_now_ms() - t0;
    }
    size_t bytes = 0;
    const mmx__limit_patches *T = mmx__limit_table_patches(t, &bytes);
    const mmx_index np = T->nptex;
    mmx__limit_table_stats st;
    mmx__limit_table_count(t, &st);
    printf("# limit_table: %s, %s, isolation %d, host\n\n", path, mmx_scheme_name(scheme), iso);
    printf("cage: %d vertices, %d faces, %d ptex faces\n", (int)m->M->nrows, (int)m->M->ncols,
           (int)np);
    printf("table: built in %.1f ms (median of %d), %.2f MB; patches: %ld B-spline, %ld Gregory, "
           "%ld interpolated; %ld refined faces\n", bc_median(ms, repeat), repeat, bytes / 1e6,
           (long)st.bspline, (long)st.gregory, (long)st.interpolated, (long)st.refined);

    const size_t N = (size_t)n;
    mmx_index *f = malloc(N * sizeof *f);
    float *u = malloc(N * sizeof *u), *v = malloc(N * sizeof *v);
    float *res = malloc(9 * N * sizeof *res);
    if (!f || !u || !v || !res) return 1;
    uint32_t seed = 1;
    for (size_t i = 0; i < N; i++) {
        f[i] = (mmx_index)(rng(&seed) % (uint32_t)np);
        u[i] = (float)(rng(&seed) & 0xffff) / 65535.0f;
        v[i] = (float)(rng(&seed) & 0xffff) / 65535.0f;
        if (scheme == MMX_SCHEME_LOOP && u[i] + v[i] > 1.0f) u[i] = 1.0f - u[i], v[i] = 1.0f - v[i];
    }
    double t0 = bc_now_ms();
    CHECK(ctx, mmx_limit_table_eval(ctx, t, (mmx_index)n, f, u, v, res, res + 3 * N, res + 6 * N,
                                    NULL, NULL, NULL));
    const double eval_ms = bc_now_ms() - t0;
    printf("host evaluation of %ld points (P, du, dv, 1 thread): %.1f ms\n", n, eval_ms);
    if (lo_compare(ctx, m, scheme, iso, N, f, u, v, res, lo_diagonal(m))) return 1;
    free(f), free(u), free(v), free(res);
    mmx_limit_table_free(t);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
    return 0;
}
