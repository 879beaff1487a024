/* Mapped SpMV (thesis 3.2, Algorithms 3 and 4): the argument checks shared by every backend,
 * and the host statement of the product.
 *
 * Host rounding: sums are accumulated in float, in entry order (the order of A's arrays), as
 * the CUDA kernels do, so that the two backends differ only by the order of a few roundings.
 *   op = T: acc_j = sum over column j's entries of m * x[i]; y[j] = alpha * acc_j + beta * y[j].
 *   op = N: y = beta * y first, then each entry adds m * (alpha * x[j]) into y[i], columns in
 *           order (the scatter of Algorithm 3). Each y[i] thus receives its row's terms in
 *           ascending column order, one rounding per product and per sum (the build has
 *           -ffp-contract=off): the CUDA backend adds the same terms in the same order per row
 *           (spmv.cu), so op = N is the host's bit for bit there. */
#include "spla_internal.h"

static const char *map_kind_name(mmx_map_kind k)
{
    switch (k) {
    case MMX_MAP_VALUE: return "MMX_MAP_VALUE";
    case MMX_MAP_CONST: return "MMX_MAP_CONST";
    case MMX_MAP_BY_VALUE: return "MMX_MAP_BY_VALUE";
    case MMX_MAP_BY_ROW: return "MMX_MAP_BY_ROW";
    case MMX_MAP_BY_COL: return "MMX_MAP_BY_COL";
    case MMX_MAP_BY_ORDER: return "MMX_MAP_BY_ORDER";
    case MMX_MAP_BY_ORDER_VALUE: return "MMX_MAP_BY_ORDER_VALUE";
    case MMX_MAP_BY_ENTRY: return "MMX_MAP_BY_ENTRY";
    case MMX_MAP_X: return "MMX_MAP_X";
    }
    return "an unknown map kind";
}

/* Whether [a, a + na) and [b, b + nb) (in floats) share memory. */
static int overlaps(const float *a, int64_t na, const float *b, int64_t nb)
{
    if (!a || !b || na == 0 || nb == 0) return 0;
    uintptr_t a0 = (uintptr_t)a, b0 = (uintptr_t)b;
    return a0 < b0 + (uintptr_t)nb * sizeof(float) && b0 < a0 + (uintptr_t)na * sizeof(float);
}

/* Whether the map is well formed and its table covers every entry of A, judged from A's cached
 * properties (maxcol, minval, maxval, positional) in O(1); fn names the caller. */
mmx_status mmx__map_check(mmx_ctx *ctx, const mmx_csc *A, mmx_map map, const char *fn)
{
    const char *name = map_kind_name(map.kind);
    if (map.kind == MMX_MAP_VALUE || map.kind == MMX_MAP_CONST) return MMX_OK;
    if ((int)map.kind < (int)MMX_MAP_VALUE || (int)map.kind > (int)MMX_MAP_X)
        return mmx__fail(ctx, MMX_ERR_ARG, "%s: unknown map kind %d", fn, (int)map.kind);
    if (map.kind == MMX_MAP_X) /* left unresolved by mmx__map_resolve: A has no floats */
        return mmx__fail(ctx, MMX_ERR_ARG, "%s: map MMX_MAP_X reads A's float values, and A has "
                         "none (A->x is NULL)", fn);
    if (map.len < 0)
        return mmx__fail(ctx, MMX_ERR_ARG, "%s: map %s has a negative table length %d", fn, name,
                         map.len);
    /* An empty table may be NULL (mmx_mem_alloc gives NULL for 0 bytes); it then passes only
     * where A needs no entry of it. */
    if (!map.table && map.len > 0)
        return mmx__fail(ctx, MMX_ERR_ARG, "%s: map %s has a NULL table of length %d", fn, name,
                         map.len);
    int64_t need = 0;
    const char *why = "";
    switch (map.kind) {
    case MMX_MAP_BY_VALUE:
        if (A->nnz > 0 && A->minval < 1)
            return mmx__fail(ctx, MMX_ERR_ARG,
                             "%s: map %s looks up table[v - 1], but A has a stored value %d < 1 "
                             "(needs values >= 1 and a table of at least the largest value, %d; "
                             "given len %d)",
                             fn, name, A->minval, A->maxval, map.len);
        need = A->nnz > 0 ? A->maxval : 0;
        why = "the largest stored value";
        break;
    case MMX_MAP_BY_ROW: need = A->nrows; why = "one per row"; break;
    case MMX_MAP_BY_COL: need = A->ncols; why = "one per column"; break;
    case MMX_MAP_BY_ORDER: need = (int64_t)A->maxcol + 1; why = "indices 0 .. the longest column"; break;
    case MMX_MAP_BY_ENTRY: need = A->nnz; why = "one per stored entry"; break;
    default: /* MMX_MAP_BY_ORDER_VALUE */
        if (!A->positional)
            return mmx__fail(ctx, MMX_ERR_ARG,
                             "%s: map %s needs a positional matrix (each value its position in "
                             "its column), and A is not (table needed: %lld floats, given len %d)",
                             fn, name, (long long)A->maxcol * (A->maxcol + 1) / 2, map.len);
        need = (int64_t)A->maxcol * (A->maxcol + 1) / 2;
        why = "C(C+1)/2 for the longest column C";
        break;
    }
    if (map.len < need)
        return mmx__fail(ctx, MMX_ERR_ARG,
                         "%s: map %s needs a table of at least %lld floats (%s), given len %d",
                         fn, name, (long long)need, why, map.len);
    return MMX_OK;
}

/* The checks of mmx_spmv (spla.h), shared by the variant entry point. */
static mmx_status spmv_check(mmx_ctx *ctx, mmx_op op, const mmx_csc *A, mmx_map map,
                             const float *x, int k, const float *y)
{
    if (!ctx) return MMX_ERR_ARG;
    if (!A) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_spmv: matrix A is NULL");
    if (op != MMX_OP_N && op != MMX_OP_T)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_spmv: unknown op %d (MMX_OP_N or MMX_OP_T)", (int)op);
    if (k < 1 || k > 4)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_spmv: k = %d components; 1 <= k <= 4", k);
    mmx_status s = mmx__check_space(ctx, A->space, "mmx_spmv: matrix A");
    if (s) return s;
    /* x, y and the table are bare pointers: they are taken to live where A does. */
    if (A->space != mmx_ctx_space(ctx))
        return mmx__fail(ctx, MMX_ERR_SPACE,
                         "mmx_spmv: matrix A is in host memory but the context is on the CUDA "
                         "backend (copy it with mmx_csc_copy)");
    if (A->nrows < 0 || A->ncols < 0 || A->nnz < 0 || A->order < 0 ||
        (A->order && (int64_t)A->order * A->ncols != A->nnz))
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_spmv: matrix A has a bad size (%d x %d, nnz %d, order %d)",
                         A->nrows, A->ncols, A->nnz, A->order);
    if ((A->nnz > 0 && !A->rowidx) || (!A->order && (!A->colptr || (A->nnz > 0 && !A->val))))
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_spmv: matrix A is missing an array");
    int64_t xlen = (int64_t)(op == MMX_OP_T ? A->nrows : A->ncols) * k;
    int64_t ylen = (int64_t)(op == MMX_OP_T ? A->ncols : A->nrows) * k;
    const char *opname = op == MMX_OP_T ? "MMX_OP_T" : "MMX_OP_N";
    if (!x && xlen > 0)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_spmv: x is NULL but %s on a %d x %d matrix reads %lld floats",
                         opname, A->nrows, A->ncols, (long long)xlen);
    if (!y && ylen > 0)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_spmv: y is NULL but %s on a %d x %d matrix writes %lld floats",
                         opname, A->nrows, A->ncols, (long long)ylen);
    if (overlaps(x, xlen, y, ylen))
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_spmv: x and y overlap (they must be distinct arrays)");
    s = mmx__map_check(ctx, A, map, "mmx_spmv");
    if (s) return s;
    if (map.kind != MMX_MAP_VALUE && map.kind != MMX_MAP_CONST && overlaps(map.table, map.len, y, ylen))
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_spmv: the map's table overlaps y");
    return MMX_OK;
}

static void spmv_host(mmx_op op, float alpha, const mmx_csc *A, mmx_map map, const float *x,
                      int k, float beta, float *y)
{
    int64_t ylen = (int64_t)(op == MMX_OP_T ? A->ncols : A->nrows) * k;
    /* y = beta * y where the product is added afterwards (op = N) or absent (alpha = 0);
     * beta = 0 writes zeros, so NaN in y does not survive. */
    if (op == MMX_OP_N || alpha == 0.0f)
        for (int64_t t = 0; t < ylen; t++) y[t] = beta == 0.0f ? 0.0f : beta * y[t];
    if (alpha == 0.0f) return; /* x is not read */
    for (mmx_index j = 0; j < A->ncols; j++) {
        /* Column j is [a, b): from colptr, or order * j in the reduced form. */
        int64_t a = A->order ? (int64_t)A->order * j : A->colptr[j];
        int64_t b = A->order ? a + A->order : A->colptr[j + 1];
        mmx_index c = (mmx_index)(b - a);
        if (op == MMX_OP_T) {
            float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
            for (int64_t p = a; p < b; p++) {
                mmx_index i = A->rowidx[p];
                mmx_index v = A->order ? (mmx_index)(p - a + 1) : A->val[p];
                float m = mmx__map_value(&map, i, j, c, v, p);
                for (int q = 0; q < k; q++) acc[q] += m * x[(int64_t)i * k + q];
            }
            for (int q = 0; q < k; q++) {
                float *yj = &y[(int64_t)j * k + q];
                *yj = beta == 0.0f ? alpha * acc[q] : alpha * acc[q] + beta * *yj;
            }
        } else {
            /* The device rounds alpha * x[j], then m times it, then the sum: keep that order. */
            float ax[4];
            for (int q = 0; q < k; q++) ax[q] = alpha * x[(int64_t)j * k + q];
            for (int64_t p = a; p < b; p++) {
                mmx_index i = A->rowidx[p];
                mmx_index v = A->order ? (mmx_index)(p - a + 1) : A->val[p];
                float m = mmx__map_value(&map, i, j, c, v, p);
                for (int q = 0; q < k; q++) y[(int64_t)i * k + q] += m * ax[q];
            }
        }
    }
}

mmx_status mmx__spmv_variant_run(mmx_ctx *ctx, mmx__spmv_variant v, mmx_op op, float alpha,
                                 const mmx_csc *A, mmx_map map, const float *x, int k,
                                 float beta, float *y)
{
    map = mmx__map_resolve(A, map);
    mmx_status s = spmv_check(ctx, op, A, map, x, k, y);
    if (s) return s;
    if (v != MMX__SPMV_AUTO && v != MMX__SPMV_THREAD_PER_COLUMN && v != MMX__SPMV_SHUFFLE)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_spmv: unknown kernel variant %d", (int)v);
    /* On CUDA the kernels are queued: nothing is read back, so nothing waits. */
    if (mmx_ctx_backend(ctx) == MMX_BACKEND_CUDA)
        return mmx__spmv_cuda(ctx, v, op, alpha, A, map, x, k, beta, y);
    spmv_host(op, alpha, A, map, x, k, beta, y);
    return MMX_OK;
}

mmx_status mmx__spmv_variant_enqueue(mmx_ctx *ctx, mmx__spmv_variant v, mmx_op op, float alpha,
                                     const mmx_csc *A, mmx_map map, const float *x, int k,
                                     float beta, float *y)
{
    return mmx__spmv_variant_run(ctx, v, op, alpha, A, map, x, k, beta, y);
}

mmx_status mmx_spmv(mmx_ctx *ctx, mmx_op op, float alpha, const mmx_csc *A, mmx_map map,
                    const float *x, int k, float beta, float *y)
{
    MMX__NEED_CTX(ctx);
    return mmx__spmv_variant_run(ctx, MMX__SPMV_AUTO, op, alpha, A, map, x, k, beta, y);
}
