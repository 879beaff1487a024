/* The mapped SpMV, y = alpha * A<map> x + beta * y or its transposed form (spec.h). */
#include <math.h>
#include "spec.h"

void spec_spmv(const spec_dense *A, mmx_map map, mmx_op op, int k, float alpha, const float *x,
               float beta, const float *y, double *out, double *scale, int *nterms)
{
    /* op = N sums along row o of A over its columns t; op = T along column o over its rows. */
    const mmx_index nout = op == MMX_OP_T ? A->ncols : A->nrows;
    const mmx_index nin = op == MMX_OP_T ? A->nrows : A->ncols;
    for (mmx_index o = 0; o < nout; o++)
        for (int q = 0; q < k; q++) {
            double sum = 0, abs_sum = 0;
            int n = 0;
            for (mmx_index t = 0; t < nin && alpha != 0.0f; t++) {
                mmx_index i = op == MMX_OP_T ? t : o, j = op == MMX_OP_T ? o : t;
                size_t at = spec_at(A, i, j);
                if (!A->has[at]) continue;
                double term = spec_map_entry(map, i, j, A->cnt[j], A->val[at], A->entry[at]) * x[(size_t)t * k + q];
                sum += term;
                abs_sum += fabs(term);
                n++;
            }
            size_t e = (size_t)o * k + q;
            double by = beta != 0.0f ? (double)beta * y[e] : 0.0;
            out[e] = (double)alpha * sum + by;
            scale[e] = fabs((double)alpha) * abs_sum + fabs(by);
            nterms[e] = n;
        }
}
