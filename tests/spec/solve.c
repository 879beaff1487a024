/* Dense symmetric positive definite solves in double: the direct statement that conjugate
 * gradients (mmx_cg) is held to (spec.h). */
#include <math.h>
#include <stdlib.h>
#include <criterion/criterion.h>
#include "spec.h"

double *spec_mapped_dense(const mmx_csc *A, mmx_map map)
{
    spec_dense D = spec_dense_of(A);
    double *S = calloc((size_t)A->nrows * A->ncols + 1, sizeof *S);
    cr_assert(S, "the spec is out of memory (%d x %d)", A->nrows, A->ncols);
    for (mmx_index i = 0; i < A->nrows; i++)
        for (mmx_index j = 0; j < A->ncols; j++) {
            size_t at = spec_at(&D, i, j);
            if (D.has[at]) S[at] = spec_map_entry(map, i, j, D.cnt[j], D.val[at], D.entry[at]);
        }
    spec_dense_free(&D);
    return S;
}

int spec_cholesky(double *S, mmx_index n)
{
    /* S = L Lᵀ, column by column (the textbook's left-looking form); L overwrites the lower
     * triangle. */
    for (mmx_index j = 0; j < n; j++) {
        double d = S[(size_t)j * n + j];
        for (mmx_index p = 0; p < j; p++) d -= S[(size_t)j * n + p] * S[(size_t)j * n + p];
        if (!(d > 0.0)) return 0;
        const double l = sqrt(d);
        S[(size_t)j * n + j] = l;
        for (mmx_index i = j + 1; i < n; i++) {
            double s = S[(size_t)i * n + j];
            for (mmx_index p = 0; p < j; p++) s -= S[(size_t)i * n + p] * S[(size_t)j * n + p];
            S[(size_t)i * n + j] = s / l;
        }
    }
    return 1;
}

void spec_cholesky_solve(const double *L, mmx_index n, double *x)
{
    for (mmx_index i = 0; i < n; i++) { /* L y = b */
        double s = x[i];
        for (mmx_index p = 0; p < i; p++) s -= L[(size_t)i * n + p] * x[p];
        x[i] = s / L[(size_t)i * n + i];
    }
    for (mmx_index i = n - 1; i >= 0; i--) { /* Lᵀ x = y */
        double s = x[i];
        for (mmx_index p = i + 1; p < n; p++) s -= L[(size_t)p * n + i] * x[p];
        x[i] = s / L[(size_t)i * n + i];
    }
}

double spec_spd_condition(const double *S, const double *L, mmx_index n)
{
    /* Power iteration on S for its largest eigenvalue and on S⁻¹ (through L) for the inverse
     * of its smallest; a few hundred steps from a fixed start, enough for the tests' sizes
     * (an estimate from below, which the tests widen). */
    double *v = malloc(((size_t)n + 1) * sizeof *v), *w = malloc(((size_t)n + 1) * sizeof *w);
    cr_assert(v && w);
    double lmax = 0.0, inv_lmin = 0.0;
    for (int pass = 0; pass < 2; pass++) {
        for (mmx_index i = 0; i < n; i++) v[i] = 1.0 + 0.01 * (i % 7);
        double lambda = 0.0;
        for (int it = 0; it < 300; it++) {
            double nv = 0.0;
            for (mmx_index i = 0; i < n; i++) nv += v[i] * v[i];
            nv = sqrt(nv);
            for (mmx_index i = 0; i < n; i++) v[i] /= nv;
            if (pass == 0) {
                for (mmx_index i = 0; i < n; i++) {
                    double s = 0.0;
                    for (mmx_index j = 0; j < n; j++) s += S[(size_t)i * n + j] * v[j];
                    w[i] = s;
                }
            } else {
                for (mmx_index i = 0; i < n; i++) w[i] = v[i];
                spec_cholesky_solve(L, n, w);
            }
            lambda = 0.0;
            for (mmx_index i = 0; i < n; i++) lambda += v[i] * w[i];
            double *t = v;
            v = w;
            w = t;
        }
        if (pass == 0) lmax = lambda;
        else inv_lmin = lambda;
    }
    free(v);
    free(w);
    return lmax * inv_lmin;
}
