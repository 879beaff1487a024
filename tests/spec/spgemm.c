/* The mapped SpGEMM C = A <map> B, and the mesh product M <map> Mᵀ as its case B = Mᵀ
 * (spec.h). */
#include <stdlib.h>
#include <criterion/criterion.h>
#include "spec.h"

static int outside_32_bits(int64_t x) { return x < INT32_MIN || x > INT32_MAX; }

/* The product of two dense operands; a's column counts are the n_k of the relation. */
static spec_product product(const spec_dense *a, const spec_dense *b, mmx_gemm_map map)
{
    cr_assert_eq(a->ncols, b->nrows, "the spec multiplies %d x %d by %d x %d", a->nrows,
                 a->ncols, b->nrows, b->ncols);
    const mmx_index m = a->nrows, n = a->ncols, p = b->ncols;
    spec_product R = {{m, p, NULL, NULL, NULL, NULL}, -1, -1};
    R.C.has = calloc((size_t)m * p + 1, 1);
    R.C.val = calloc((size_t)m * p + 1, sizeof *R.C.val);
    R.C.cnt = calloc((size_t)p + 1, sizeof *R.C.cnt);
    unsigned char *bad = calloc((size_t)m * p + 1, 1); /* a contribution left 32 bits */
    cr_assert(R.C.has && R.C.val && R.C.cnt && bad, "the spec is out of memory (%d x %d)", m, p);
    /* Every stored A(i,k) = a meets every stored B(k,j) = b through the shared index k. With
     * k outermost, each C(i,j) meets its collisions in ascending k, which is what ANY needs. */
    for (mmx_index k = 0; k < n; k++)
        for (mmx_index i = 0; i < m; i++) {
            if (!a->has[spec_at(a, i, k)]) continue;
            int64_t av = a->val[spec_at(a, i, k)];
            for (mmx_index j = 0; j < p; j++) {
                if (!b->has[spec_at(b, k, j)]) continue;
                int64_t bv = b->val[spec_at(b, k, j)];
                int64_t q = spec_rel(map.rel, av, bv, a->cnt[k]);
                if (!q) continue;
                int64_t x = spec_coll(map.coll, q, k, av, bv);
                size_t at = spec_at(&R.C, i, j);
                if (!R.C.has[at]) {
                    R.C.has[at] = 1;
                    R.C.cnt[j]++;
                    R.C.val[at] = x;
                } else if (!bad[at]) { /* past a bad contribution the value no longer matters */
                    R.C.val[at] = spec_monoid(map.monoid, R.C.val[at], x);
                }
                bad[at] |= outside_32_bits(x);
            }
        }
    /* A partial sum may leave 32 bits and come back; only the contributions and the final
     * value must fit. */
    for (mmx_index j = 0; j < p && R.ovf_i < 0; j++)
        for (mmx_index i = 0; i < m; i++) {
            size_t at = spec_at(&R.C, i, j);
            if (R.C.has[at] && (bad[at] || outside_32_bits(R.C.val[at]))) {
                R.ovf_i = i;
                R.ovf_j = j;
                break;
            }
        }
    free(bad);
    return R;
}

spec_product spec_spgemm(const mmx_csc *A, const mmx_csc *B, mmx_gemm_map map)
{
    spec_dense a = spec_dense_of(A), b = spec_dense_of(B);
    spec_product R = product(&a, &b, map);
    spec_dense_free(&a);
    spec_dense_free(&b);
    return R;
}

spec_product spec_mesh_product(const mmx_csc *M, mmx_gemm_map map)
{
    spec_dense a = spec_dense_of(M), b = spec_dense_transpose(&a);
    spec_product R = product(&a, &b, map);
    spec_dense_free(&a);
    spec_dense_free(&b);
    return R;
}

void spec_product_free(spec_product *R) { spec_dense_free(&R->C); }
