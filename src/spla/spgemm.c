/* Mapped SpGEMM C = A <map> B (thesis 3.2): the entries A(i,k) = a and B(k,j) = b collide
 * through k; the relation decides whether the collision counts, the collision function what
 * it contributes, the monoid how the contributions to one C(i,j) combine. */
#include <stdlib.h>
#include <string.h>
#include "spla_internal.h"

mmx_status mmx__spgemm_overflow(mmx_ctx *ctx, int64_t i, int64_t j)
{
    return mmx__fail(ctx, MMX_ERR_OVERFLOW,
                     "mmx_spgemm: C(%lld,%lld) overflows: a product a*b or the sum of its "
                     "contributions leaves the 32-bit range", (long long)i, (long long)j);
}

static int cmp_index(const void *x, const void *y)
{
    mmx_index a = *(const mmx_index *)x, b = *(const mmx_index *)y;
    return (a > b) - (a < b);
}

/* C's entries as they are found, column after column, in arrays that double when full. */
typedef struct out_buf {
    mmx_index *rowidx, *val;
    int64_t n, cap;
} out_buf;

static mmx_status out_push(mmx_ctx *ctx, out_buf *o, mmx_index i, mmx_index v)
{
    if (o->n == o->cap) {
        if (o->n == MMX_INDEX_MAX)
            return mmx__fail(ctx, MMX_ERR_OVERFLOW,
                             "mmx_spgemm: C has more than %d entries", MMX_INDEX_MAX);
        int64_t cap = o->cap < 1024 ? 1024 : 2 * o->cap;
        if (cap > MMX_INDEX_MAX) cap = MMX_INDEX_MAX;
        mmx_index *r = realloc(o->rowidx, (size_t)cap * sizeof *r);
        if (r) o->rowidx = r;
        mmx_index *w = r ? realloc(o->val, (size_t)cap * sizeof *w) : NULL;
        if (!w) return mmx__fail(ctx, MMX_ERR_NOMEM, "mmx_spgemm: out of host memory for %lld entries of C",
                                 (long long)cap);
        o->val = w;
        o->cap = cap;
    }
    o->rowidx[o->n] = i;
    o->val[o->n] = v;
    o->n++;
    return MMX_OK;
}

/* Gustavson's product, one column of C at a time: C(:,j) = sum over B(k,j) of A(:,k), each
 * collision filtered by the relation and combined by the monoid in a dense accumulator over
 * the rows. mark[i] == j says row i was touched in column j (its acc is live); the touched rows
 * are sorted before they are written. Contributions are exact in 64 bits: a product that does
 * not fit 32 bits marks its row bad and is not added, so a sum stays below 2^62. */
static mmx_status spgemm_host(mmx_ctx *ctx, const mmx_csc *A, const mmx_csc *B,
                              mmx_gemm_map map, mmx_csc **out)
{
    const mmx_index m = A->nrows, p = B->ncols;
    int64_t *acc = NULL;
    mmx_index *mark = NULL, *kbest = NULL, *touched = NULL, *colptr = NULL;
    unsigned char *bad = NULL;
    out_buf o = {NULL, NULL, 0, 0};
    mmx_csc *C = NULL;
    mmx_status s = mmx__host_alloc(ctx, (size_t)m, sizeof *acc, (void **)&acc);
    if (!s) s = mmx__host_alloc(ctx, (size_t)m, sizeof *mark, (void **)&mark);
    if (!s) s = mmx__host_alloc(ctx, (size_t)m, sizeof *kbest, (void **)&kbest);
    if (!s) s = mmx__host_alloc(ctx, (size_t)m, sizeof *touched, (void **)&touched);
    if (!s) s = mmx__host_alloc(ctx, (size_t)m, sizeof *bad, (void **)&bad);
    if (!s) s = mmx__host_alloc(ctx, (size_t)p + 1, sizeof *colptr, (void **)&colptr);
    if (s) goto done;
    for (mmx_index i = 0; i < m; i++) mark[i] = -1;
    colptr[0] = 0;
    for (mmx_index j = 0; j < p && !s; j++) {
        mmx_index nt = 0;
        int64_t bj0, bj1;
        mmx__csc_col(B, j, &bj0, &bj1);
        for (int64_t eb = bj0; eb < bj1; eb++) {
            mmx_index k = B->rowidx[eb], b = mmx__csc_val(B, eb, bj0);
            int64_t ak0, ak1;
            mmx__csc_col(A, k, &ak0, &ak1);
            mmx_index n = (mmx_index)(ak1 - ak0);
            for (int64_t ea = ak0; ea < ak1; ea++) {
                mmx_index i = A->rowidx[ea], a = mmx__csc_val(A, ea, ak0);
                mmx_index q = mmx__gemm_rel(&map.rel, a, b, n);
                if (!q) continue;
                int64_t x = mmx__gemm_coll(map.coll, q, k, a, b);
                int ok = mmx__fits_index(x);
                if (mark[i] != j) { /* the first collision at C(i,j) */
                    mark[i] = j;
                    touched[nt++] = i;
                    bad[i] = !ok;
                    acc[i] = ok ? x : 0;
                    kbest[i] = k;
                    continue;
                }
                if (!ok) {
                    bad[i] = 1;
                    continue;
                }
                switch (map.monoid) {
                case MMX_MONOID_SUM: acc[i] += x; break;
                case MMX_MONOID_MIN: if (x < acc[i]) acc[i] = x; break;
                case MMX_MONOID_MAX: if (x > acc[i]) acc[i] = x; break;
                default: /* ANY: the smallest k's contribution, whatever order B's rows are in */
                    if (k < kbest[i]) acc[i] = x, kbest[i] = k;
                    break;
                }
            }
        }
        qsort(touched, (size_t)nt, sizeof *touched, cmp_index);
        for (mmx_index t = 0; t < nt && !s; t++) {
            mmx_index i = touched[t];
            if (bad[i] || !mmx__fits_index(acc[i])) s = mmx__spgemm_overflow(ctx, i, j);
            else s = out_push(ctx, &o, i, (mmx_index)acc[i]);
        }
        colptr[j + 1] = (mmx_index)o.n;
    }
    if (!s) s = mmx__csc_alloc(ctx, MMX_SPACE_HOST, m, p, (mmx_index)o.n, 0, &C);
    if (s) goto done;
    memcpy(C->colptr, colptr, ((size_t)p + 1) * sizeof *colptr);
    if (o.n) {
        memcpy(C->rowidx, o.rowidx, (size_t)o.n * sizeof *o.rowidx);
        memcpy(C->val, o.val, (size_t)o.n * sizeof *o.val);
    }
    s = mmx__csc_props(ctx, C);
    if (!s) *out = C;
    else mmx_csc_free(C);
done:
    free(acc);
    free(mark);
    free(kbest);
    free(touched);
    free(bad);
    free(colptr);
    free(o.rowidx);
    free(o.val);
    return s;
}

static mmx_status check_operand(mmx_ctx *ctx, const mmx_csc *X, const char *name, const char *fn)
{
    if (!X) return mmx__fail(ctx, MMX_ERR_ARG, "%s: %s is NULL", fn, name);
    if (X->nrows < 0 || X->ncols < 0 || X->nnz < 0 || X->order < 0)
        return mmx__fail(ctx, MMX_ERR_ARG, "%s: %s has a negative size (%d x %d, nnz %d)",
                         fn, name, X->nrows, X->ncols, X->nnz);
    mmx_status s = mmx__check_space(ctx, X->space, name);
    if (!s && X->space != mmx_ctx_space(ctx))
        s = mmx__fail(ctx, MMX_ERR_SPACE, "%s: %s is in host memory, the context on the CUDA backend",
                      fn, name);
    return s;
}

/* A table relation reads table[(a-1)*dim + (b-1)]: every value of both operands must index
 * inside it. Only checked where a collision can happen at all. */
static mmx_status check_table(mmx_ctx *ctx, const mmx_csc *A, const mmx_csc *B, mmx_rel rel)
{
    if (A->nnz == 0 || B->nnz == 0) return MMX_OK;
    if (!rel.table || rel.dim < 1)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_spgemm: MMX_REL_TABLE needs a table and dim >= 1 (dim %d%s)",
                         rel.dim, rel.table ? "" : ", table NULL");
    if (A->minval < 1 || A->maxval > rel.dim)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_spgemm: the relation table (dim %d) does not cover "
                         "A's values %d..%d", rel.dim, A->minval, A->maxval);
    if (B->minval < 1 || B->maxval > rel.dim)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_spgemm: the relation table (dim %d) does not cover "
                         "B's values %d..%d", rel.dim, B->minval, B->maxval);
    return MMX_OK;
}

mmx_status mmx_spgemm(mmx_ctx *ctx, const mmx_csc *A, const mmx_csc *B, mmx_gemm_map map,
                      mmx_csc **out)
{
    MMX__NEED_CTX(ctx);
    if (!ctx || !out) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_spgemm: ctx or out is NULL");
    *out = NULL;
    mmx_status s = check_operand(ctx, A, "A", "mmx_spgemm");
    if (!s) s = check_operand(ctx, B, "B", "mmx_spgemm");
    if (s) return s;
    if (A->ncols != B->nrows)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_spgemm: A is %d x %d and B is %d x %d: A's columns "
                         "must match B's rows", A->nrows, A->ncols, B->nrows, B->ncols);
    if ((unsigned)map.rel.kind > MMX_REL_TABLE || (unsigned)map.coll > MMX_COLL_PRODUCT ||
        (unsigned)map.monoid > MMX_MONOID_ANY)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_spgemm: unknown map (relation %d, collision %d, monoid %d)",
                         (int)map.rel.kind, (int)map.coll, (int)map.monoid);
    if (map.rel.kind == MMX_REL_TABLE) {
        s = check_table(ctx, A, B, map.rel);
        if (s) return s;
    }
    if (mmx_ctx_backend(ctx) == MMX_BACKEND_CUDA) return mmx__spgemm_cuda(ctx, A, B, map, out);
    return spgemm_host(ctx, A, B, map, out);
}

/* ---- valued SpGEMM (spla.h, mmx_spgemm_valued) ---------------------------------------------- */

/* Gustavson's product with a float accumulator: the collisions of column j are met in B's
 * storage order (and, for one B(k,j), at most once per row i), which is the order the CUDA
 * path's stable sort keeps, so both fold the same contributions in the same order. */
static mmx_status valued_host(mmx_ctx *ctx, const mmx_csc *A, const mmx_csc *B,
                              const mmx_vgemm_map *map, mmx_csc **out)
{
    const mmx_index m = A->nrows, p = B->ncols;
    float *acc = NULL, *xs = NULL;
    mmx_index *mark = NULL, *touched = NULL, *colptr = NULL, *rows = NULL;
    int64_t n = 0, cap = 0;
    mmx_csc *C = NULL;
    mmx_status s = mmx__host_alloc(ctx, (size_t)m, sizeof *acc, (void **)&acc);
    if (!s) s = mmx__host_alloc(ctx, (size_t)m, sizeof *mark, (void **)&mark);
    if (!s) s = mmx__host_alloc(ctx, (size_t)m, sizeof *touched, (void **)&touched);
    if (!s) s = mmx__host_alloc(ctx, (size_t)p + 1, sizeof *colptr, (void **)&colptr);
    if (s) goto done;
    for (mmx_index i = 0; i < m; i++) mark[i] = -1;
    colptr[0] = 0;
    for (mmx_index j = 0; j < p && !s; j++) {
        mmx_index nt = 0;
        int64_t b0, b1;
        mmx__csc_col(B, j, &b0, &b1);
        for (int64_t eb = b0; eb < b1; eb++) {
            const mmx_index k = B->rowidx[eb], b = mmx__csc_val(B, eb, b0);
            const float mb = mmx__map_value(&map->bmap, k, j, (mmx_index)(b1 - b0), b, eb);
            int64_t a0, a1;
            mmx__csc_col(A, k, &a0, &a1);
            const mmx_index nk = (mmx_index)(a1 - a0);
            for (int64_t ea = a0; ea < a1; ea++) {
                const mmx_index i = A->rowidx[ea], a = mmx__csc_val(A, ea, a0);
                if (!mmx__gemm_rel(&map->rel, a, b, nk)) continue;
                const float ma = mmx__map_value(&map->amap, i, k, nk, a, ea);
                const float c = mmx__vgemm_contrib(map, ma, mb, a, b, nk);
                const int first = mark[i] != j;
                if (first) mark[i] = j, touched[nt++] = i;
                acc[i] = mmx__vgemm_fold(map->monoid, acc[i], c, first);
            }
        }
        qsort(touched, (size_t)nt, sizeof *touched, cmp_index);
        if (n + nt > MMX_INDEX_MAX) {
            s = mmx__fail(ctx, MMX_ERR_OVERFLOW, "mmx_spgemm_valued: C has more than %d entries",
                          MMX_INDEX_MAX);
            break;
        }
        if (n + nt > cap) {
            int64_t nc = 2 * cap > n + nt + 1024 ? 2 * cap : n + nt + 1024;
            if (nc > MMX_INDEX_MAX) nc = MMX_INDEX_MAX;
            mmx_index *r = realloc(rows, (size_t)nc * sizeof *r);
            if (r) rows = r;
            float *x = r ? realloc(xs, (size_t)nc * sizeof *x) : NULL;
            if (!x) {
                s = mmx__fail(ctx, MMX_ERR_NOMEM, "mmx_spgemm_valued: out of host memory for "
                              "%lld entries of C", (long long)nc);
                break;
            }
            xs = x, cap = nc;
        }
        for (mmx_index t = 0; t < nt; t++) rows[n] = touched[t], xs[n++] = acc[touched[t]];
        colptr[j + 1] = (mmx_index)n;
    }
    if (!s) s = mmx__csc_alloc(ctx, MMX_SPACE_HOST, m, p, (mmx_index)n, 0, &C);
    if (!s) s = mmx__csc_alloc_x(ctx, C);
    if (s) goto done;
    memcpy(C->colptr, colptr, ((size_t)p + 1) * sizeof *colptr);
    if (n) {
        memcpy(C->rowidx, rows, (size_t)n * sizeof *rows);
        memcpy(C->x, xs, (size_t)n * sizeof *xs);
    }
    s = mmx__csc_fill_positions(ctx, C);
    if (!s) s = mmx__csc_props(ctx, C);
done:
    if (s) mmx_csc_free(C);
    else *out = C;
    free(acc);
    free(mark);
    free(touched);
    free(colptr);
    free(rows);
    free(xs);
    return s;
}

/* C with the mask's pattern (general form, positions as values, the properties known), its
 * floats to be filled. */
static mmx_status masked_pattern(mmx_ctx *ctx, const mmx_csc *mask, mmx_csc **out)
{
    const mmx_space sp = mmx_ctx_space(ctx);
    const size_t ix = sizeof(mmx_index);
    mmx_csc *C = NULL;
    mmx_status s = mmx__csc_alloc(ctx, sp, mask->nrows, mask->ncols, mask->nnz, 0, &C);
    if (!s) s = mmx__csc_alloc_x(ctx, C);
    if (!s) s = mmx_mem_copy(ctx, C->rowidx, sp, mask->rowidx, sp, (size_t)mask->nnz * ix);
    if (!s && mask->order) s = mmx__csc_fill_uniform_colptr(ctx, C, mask->order);
    else if (!s) s = mmx_mem_copy(ctx, C->colptr, sp, mask->colptr, sp, ((size_t)mask->ncols + 1) * ix);
    if (!s) s = mmx__csc_fill_positions(ctx, C);
    if (s) {
        mmx_csc_free(C);
        return s;
    }
    C->maxcol = mask->maxcol;
    C->minval = mask->nnz > 0 ? 1 : 0;
    C->maxval = mask->nnz > 0 ? mask->maxcol : 0;
    C->positional = 1;
    *out = C;
    return MMX_OK;
}

mmx_status mmx_spgemm_valued(mmx_ctx *ctx, const mmx_csc *A, const mmx_csc *B,
                             mmx_vgemm_map map, const mmx_csc *mask, mmx_csc **out)
{
    const char *fn = "mmx_spgemm_valued";
    if (!ctx || !out) return mmx__fail(ctx, MMX_ERR_ARG, "%s: ctx or out is NULL", fn);
    *out = NULL;
    mmx_status s = check_operand(ctx, A, "A", fn);
    if (!s) s = check_operand(ctx, B, "B", fn);
    if (!s && mask) s = check_operand(ctx, mask, "the mask", fn);
    if (s) return s;
    if (A->ncols != B->nrows)
        return mmx__fail(ctx, MMX_ERR_ARG, "%s: A is %d x %d and B is %d x %d: A's columns must "
                         "match B's rows", fn, A->nrows, A->ncols, B->nrows, B->ncols);
    if (mask && (mask->nrows != A->nrows || mask->ncols != B->ncols))
        return mmx__fail(ctx, MMX_ERR_ARG, "%s: the mask is %d x %d, C is %d x %d", fn,
                         mask->nrows, mask->ncols, A->nrows, B->ncols);
    if ((unsigned)map.rel.kind > MMX_REL_TABLE || (unsigned)map.coll > MMX_VCOLL_TAIL ||
        (unsigned)map.monoid > MMX_MONOID_MAX)
        return mmx__fail(ctx, MMX_ERR_ARG, "%s: unknown or unsupported map (relation %d, "
                         "collision %d, monoid %d: SUM, MIN or MAX)", fn, (int)map.rel.kind,
                         (int)map.coll, (int)map.monoid);
    if (map.coll == MMX_VCOLL_TAIL && map.rel.kind != MMX_REL_CYCLE &&
        map.rel.kind != MMX_REL_CYCLE_BOTH)
        return mmx__fail(ctx, MMX_ERR_ARG, "%s: MMX_VCOLL_TAIL needs a cycle relation "
                         "(MMX_REL_CYCLE or MMX_REL_CYCLE_BOTH)", fn);
    if (map.rel.kind == MMX_REL_TABLE) s = check_table(ctx, A, B, map.rel);
    map.amap = mmx__map_resolve(A, map.amap);
    map.bmap = mmx__map_resolve(B, map.bmap);
    if (!s) s = mmx__map_check(ctx, A, map.amap, "mmx_spgemm_valued (A's map)");
    if (!s) s = mmx__map_check(ctx, B, map.bmap, "mmx_spgemm_valued (B's map)");
    if (s) return s;
    const int cuda = mmx_ctx_backend(ctx) == MMX_BACKEND_CUDA;
    if (!mask) return cuda ? mmx__spgemm_valued_cuda(ctx, A, B, map, out)
                           : valued_host(ctx, A, B, &map, out);
    mmx_csc *C = NULL;
    s = masked_pattern(ctx, mask, &C);
    if (!s && cuda) s = mmx__spgemm_masked_cuda(ctx, A, B, map, C);
    else if (!s)
        for (mmx_index j = 0; j < C->ncols; j++)
            for (int64_t e = C->colptr[j]; e < C->colptr[j + 1]; e++)
                C->x[e] = mmx__vgemm_masked_entry(A, B, &map, C->rowidx[e], j);
    if (s) {
        mmx_csc_free(C);
        return s;
    }
    *out = C;
    return MMX_OK;
}
