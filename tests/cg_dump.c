/* cg_dump: solves a random SPD system with mmx_cg_csc on the host and writes it as text, for
 * tests/scipy_check.py to check against SciPy's direct solve.
 *
 * Usage: cg_dump OUT NX NY K RTOL
 * The system: the Laplacian of an NX x NY grid with edge weights in [0.5, 1.5] plus 0.1 I,
 * stored as a pattern mmx_csc with MMX_MAP_BY_ENTRY weights; b random in [-1, 1], n x K.
 * OUT holds: a line "n nnz k rtol"; nnz lines "row col weight"; n lines of b (K numbers);
 * n lines of x; one line of K true relative residuals ||b - S x|| / ||b|| as mmx_cg reports
 * them. Exit status 0, or 1 with a message on stderr. */
#include <stdio.h>
#include <stdlib.h>
#include "meshmatrix.h"

static unsigned rng(unsigned *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

static float uniform(unsigned *s, float lo, float hi)
{
    return lo + (hi - lo) * (float)(rng(s) % 65536u) / 65535.0f;
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: cg_dump OUT NX NY K RTOL\n");
        return 1;
    }
    const int nx = atoi(argv[2]), ny = atoi(argv[3]), k = atoi(argv[4]);
    const double rtol = atof(argv[5]);
    if (nx < 1 || ny < 1 || nx > 1000 || ny > 1000 || k < 1 || k > MMX_CG_MAX_K) {
        fprintf(stderr, "cg_dump: bad sizes\n");
        return 1;
    }
    const int n = nx * ny;
    unsigned seed = 8191u;
    float *wh = malloc(sizeof(float) * n), *wv = malloc(sizeof(float) * n);
    float *w = malloc(sizeof(float) * 5 * n), *b = malloc(sizeof(float) * n * k);
    float *x = calloc((size_t)n * k, sizeof(float));
    mmx_index *cp = malloc(sizeof(mmx_index) * (n + 1)), *ri = malloc(sizeof(mmx_index) * 5 * n);
    if (!wh || !wv || !w || !b || !x || !cp || !ri) return 1;
    for (int v = 0; v < n; v++) {
        wh[v] = uniform(&seed, 0.5f, 1.5f);
        wv[v] = uniform(&seed, 0.5f, 1.5f);
    }
    int nnz = 0;
    cp[0] = 0;
    for (int j = 0; j < n; j++) {
        const int cx = j % nx, cy = j / nx;
        float diag = 0.1f;
        const int nb[4] = {cx > 0 ? j - 1 : -1, cx + 1 < nx ? j + 1 : -1, cy > 0 ? j - nx : -1,
                           cy + 1 < ny ? j + nx : -1};
        const float we[4] = {cx > 0 ? wh[j - 1] : 0, wh[j], cy > 0 ? wv[j - nx] : 0, wv[j]};
        for (int t = 0; t < 4; t++)
            if (nb[t] >= 0) {
                ri[nnz] = nb[t];
                w[nnz++] = -we[t];
                diag += we[t];
            }
        ri[nnz] = j;
        w[nnz++] = diag;
        cp[j + 1] = nnz;
    }
    for (int t = 0; t < n * k; t++) b[t] = uniform(&seed, -1.0f, 1.0f);
    mmx_ctx *ctx = NULL;
    mmx_csc *A = NULL;
    mmx_cg_opts o = mmx_cg_defaults();
    o.rtol = rtol;
    mmx_cg_report rep;
    mmx_status s = mmx_ctx_create(&ctx);
    if (!s) s = mmx_csc_create(ctx, n, n, cp, ri, NULL, MMX_SPACE_HOST, &A);
    if (!s) s = mmx_cg_csc(ctx, A, mmx_map_table(MMX_MAP_BY_ENTRY, w, nnz), b, k, x, &o, &rep);
    if (s) {
        fprintf(stderr, "cg_dump: %s: %s\n", mmx_status_str(s), ctx ? mmx_ctx_error(ctx) : "");
        return 1;
    }
    FILE *f = fopen(argv[1], "w");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    fprintf(f, "%d %d %d %.17g\n", n, nnz, k, rtol);
    for (int j = 0; j < n; j++)
        for (int e = cp[j]; e < cp[j + 1]; e++) fprintf(f, "%d %d %.9g\n", ri[e], j, (double)w[e]);
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < n; i++)
            for (int q = 0; q < k; q++)
                fprintf(f, "%.9g%c", (double)(pass ? x : b)[i * k + q], q + 1 < k ? ' ' : '\n');
    for (int q = 0; q < k; q++) fprintf(f, "%.17g%c", rep.true_rel_residual[q], q + 1 < k ? ' ' : '\n');
    if (fclose(f) != 0) return 1;
    mmx_csc_free(A);
    mmx_ctx_free(ctx);
    free(wh);
    free(wv);
    free(w);
    free(b);
    free(x);
    free(cp);
    free(ri);
    return 0;
}
