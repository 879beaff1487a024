/* The limit benches' comparison with OpenSubdiv (limit_osd.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "limit_osd.h"
#ifdef MMX_BENCH_OSD
#include "oracle_mmx.h"
#endif

double lo_diagonal(const mmx_mesh *m)
{
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (mmx_index i = 0; i < m->M->nrows; i++)
        for (int c = 0; c < 3; c++)
            lo[c] = fminf(lo[c], m->pos[3 * i + c]), hi[c] = fmaxf(hi[c], m->pos[3 * i + c]);
    double d = 0.0;
    for (int c = 0; c < 3; c++) d += (double)(hi[c] - lo[c]) * (hi[c] - lo[c]);
    return sqrt(d);
}

int lo_compare(mmx_ctx *host, const mmx_mesh *m, mmx_scheme scheme, int iso, size_t n,
               const mmx_index *f, const float *u, const float *v, const float *res, double diag)
{
#ifdef MMX_BENCH_OSD
    const size_t N = n;
    oracle_mesh om;
    mmx_mesh_tags *tg = NULL;
    if (oracle_mesh_from_mmx(host, m, &om) != MMX_OK) {
        fprintf(stderr, "OpenSubdiv: %s\n", mmx_ctx_error(host));
        return 1;
    }
    if (mmx_mesh_tags_parse(host, m, &tg) != MMX_OK) {
        fprintf(stderr, "OpenSubdiv: %s\n", mmx_ctx_error(host));
        oracle_mesh_free(&om);
        return 1;
    }
    oracle_sharp sh = {tg->ncreases, tg->crease_verts, tg->crease_sharpness, tg->ncorners,
                       tg->corner_verts, tg->corner_sharpness,
                       tg->interpolate_boundary < 0 ? 2 : tg->interpolate_boundary,
                       tg->crease_method == 1};
    double *du = malloc(N * sizeof *du + 8), *dv = malloc(N * sizeof *dv + 8);
    double *Q = malloc(9 * N * sizeof *Q + 8);
    int *fi = malloc(N * sizeof *fi + 8);
    int rc = !du || !dv || !Q || !fi;
    for (size_t i = 0; !rc && i < N; i++) fi[i] = f[i], du[i] = u[i], dv[i] = v[i];
    oracle_times ot = {0, 0, 0};
    char err[256] = "";
    if (rc)
        fprintf(stderr, "OpenSubdiv: out of host memory\n");
    else if (oracle_osd_patch_eval(scheme == MMX_SCHEME_LOOP ? 0 : 1, &om, &sh, iso, (int)n, fi,
                                   du, dv, Q, Q + 3 * N, Q + 6 * N, &ot, err, sizeof err)) {
        printf("OpenSubdiv: %s\n", err);
    } else {
        double g = 0.0, gd = 0.0;
        size_t worst = 0;
        for (size_t i = 0; i < N; i++) {
            double e = 0.0, d = 0.0;
            for (int c = 0; c < 3; c++) {
                e += pow(res[3 * i + c] - Q[3 * i + c], 2);
                d += pow(res[3 * N + 3 * i + c] - Q[3 * N + 3 * i + c], 2) +
                     pow(res[6 * N + 3 * i + c] - Q[6 * N + 3 * i + c], 2);
            }
            if (sqrt(e) > g) g = sqrt(e), worst = i;
            gd = fmax(gd, sqrt(d));
        }
        printf("OpenSubdiv CPU (Far::PatchTable, Gregory end caps, 1 thread): patch table "
               "%.1f ms, evaluation of P, du, dv %.3f ms (%.1f Mpoints/s)\n",
               ot.refine_ms, ot.eval_ms, (double)n / ot.eval_ms / 1e3);
        printf("largest gap to OpenSubdiv's surface: %.3g of the diagonal (at ptex face %d "
               "(%g, %g)); first derivatives %.3g\n", g / diag, (int)f[worst], (double)u[worst],
               (double)v[worst], gd / diag);
    }
    free(du), free(dv), free(Q), free(fi);
    mmx_mesh_tags_free(tg);
    oracle_mesh_free(&om);
    return rc;
#else
    (void)host, (void)m, (void)scheme, (void)iso, (void)n, (void)f, (void)u, (void)v, (void)res;
    (void)diag;
    printf("OpenSubdiv: not built (tests/ did not find it)\n");
    return 0;
#endif
}
