/* Action maps: what a stored entry contributes to a mapped SpMV, and the relation, collision
 * function and monoid of a mapped SpGEMM, each case as spla.h words it (spec.h). */
#include <criterion/criterion.h>
#include "spec.h"

double spec_map_entry(mmx_map map, int64_t i, int64_t j, int64_t c, int64_t v, int64_t q)
{
    int64_t t; /* where a table kind looks */
    switch (map.kind) {
    case MMX_MAP_VALUE: return (double)v;
    case MMX_MAP_CONST: return map.c;
    case MMX_MAP_BY_VALUE: t = v - 1; break;                  /* by position in the face */
    case MMX_MAP_BY_ROW: t = i; break;                        /* per vertex */
    case MMX_MAP_BY_COL: t = j; break;                        /* per face */
    case MMX_MAP_BY_ORDER: t = c; break;                      /* by face order */
    case MMX_MAP_BY_ORDER_VALUE: t = c * (c - 1) / 2 + v - 1; break; /* order c's table */
    case MMX_MAP_BY_ENTRY: t = q; break;                      /* per stored entry: weights */
    default: cr_assert_fail("the spec has no map kind %d", (int)map.kind); return 0;
    }
    /* A table the library accepted must cover every entry; the spec checks that it does. */
    cr_assert(t >= 0 && t < map.len, "the spec reads table[%lld] of a %d-entry table", (long long)t,
              map.len);
    return map.table[t];
}

int64_t spec_map_len(const spec_dense *A, int positional, mmx_map_kind kind)
{
    int64_t maxcol = 0, maxval = 0, minval = 1, nnz = 0;
    int any = 0;
    for (mmx_index j = 0; j < A->ncols; j++) maxcol = A->cnt[j] > maxcol ? A->cnt[j] : maxcol;
    for (mmx_index i = 0; i < A->nrows; i++)
        for (mmx_index j = 0; j < A->ncols; j++) {
            size_t at = spec_at(A, i, j);
            if (!A->has[at]) continue;
            /* without entries nothing is below 1: an empty A takes any BY_VALUE table */
            maxval = !any || A->val[at] > maxval ? A->val[at] : maxval;
            minval = !any || A->val[at] < minval ? A->val[at] : minval;
            any = 1;
            nnz++;
        }
    switch (kind) {
    case MMX_MAP_BY_VALUE: return minval < 1 ? -1 : maxval;
    case MMX_MAP_BY_ROW: return A->nrows;
    case MMX_MAP_BY_COL: return A->ncols;
    case MMX_MAP_BY_ORDER: return maxcol + 1;
    case MMX_MAP_BY_ORDER_VALUE: return positional ? maxcol * (maxcol + 1) / 2 : -1;
    case MMX_MAP_BY_ENTRY: return nnz;
    default: return 0;
    }
}

/* x mod n in [0, n): C's % keeps the sign of x, and p may be any integer. */
static int64_t mod(int64_t x, int64_t n) { return ((x % n) + n) % n; }

int64_t spec_rel(mmx_rel rel, int64_t a, int64_t b, int64_t n)
{
    switch (rel.kind) {
    case MMX_REL_ALL: return 1;
    case MMX_REL_CYCLE: return mod(b - a - rel.p, n) == 0;                 /* Q_n^p */
    case MMX_REL_CYCLE_BOTH:                                               /* Q_n^p + Q_n^-p, */
        return mod(b - a - rel.p, n) == 0 || mod(b - a + rel.p, n) == 0;   /* counted once */
    case MMX_REL_TABLE: return rel.table[(a - 1) * rel.dim + (b - 1)];
    default: cr_assert_fail("the spec has no relation kind %d", (int)rel.kind); return 0;
    }
}

int64_t spec_coll(mmx_coll coll, int64_t q, int64_t k, int64_t a, int64_t b)
{
    switch (coll) {
    case MMX_COLL_MAP: return q;
    case MMX_COLL_K: return k;
    case MMX_COLL_A: return a;
    case MMX_COLL_B: return b;
    case MMX_COLL_PRODUCT: return a * b;
    default: cr_assert_fail("the spec has no collision function %d", (int)coll); return 0;
    }
}

int64_t spec_monoid(mmx_monoid monoid, int64_t acc, int64_t x)
{
    switch (monoid) {
    case MMX_MONOID_SUM: return acc + x;
    case MMX_MONOID_MIN: return x < acc ? x : acc;
    case MMX_MONOID_MAX: return x > acc ? x : acc;
    case MMX_MONOID_ANY: return acc;
    default: cr_assert_fail("the spec has no monoid %d", (int)monoid); return 0;
    }
}
