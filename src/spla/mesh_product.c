/* The implicit mesh product C = M <map> Mᵀ (thesis 5.2).
 *
 * Entries M(i,k) = a and M(j,k) = b collide only inside one column k of M (one face), so the
 * product never needs Mᵀ: every face k is visited once, and for each of its entries y (vertex
 * j, value b) the entries x (vertex i, value a) with Q(a, b) are the pairs that land in column
 * j of C. With a positional M and a cycle relation these partners are found by index
 * arithmetic (x = y - p, and y + p, around the face); otherwise every entry of the face is
 * tested.
 *
 * Host: one pass counts the pairs that land in each column of C, a prefix sum places the
 * columns, a second pass fills (i, k, contribution) into each column's bucket, and each bucket
 * is sorted by (i, k) and merged by the monoid, in k order, then compacted into C. The CUDA
 * version (mesh_product.cu) has the same shape. */
#include <string.h>
#include "spla_internal.h"

/* The rules (relation, contribution, monoid) are the ones of mmx_spgemm, shared by both
 * backends in spla_internal.h. */

mmx_status mmx__mesh_product_overflow(mmx_ctx *ctx, mmx_index i, mmx_index j)
{
    return mmx__fail(ctx, MMX_ERR_OVERFLOW,
                     "mmx_mesh_product: C(%d,%d) overflows: a product a*b or the sum of its "
                     "contributions leaves the 32-bit range", i, j);
}

static mmx_status mesh_product_check(mmx_ctx *ctx, const mmx_csc *M, mmx_gemm_map map, mmx_csc **out)
{
    if (!out) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_mesh_product: out is NULL");
    *out = NULL;
    if (!M) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_mesh_product: M is NULL");
    if (M->nrows < 0 || M->ncols < 0 || M->nnz < 0)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_mesh_product: negative size %d x %d, nnz %d",
                         M->nrows, M->ncols, M->nnz);
    if (M->nrows == MMX_INDEX_MAX)
        return mmx__fail(ctx, MMX_ERR_OVERFLOW,
                         "mmx_mesh_product: %d rows do not fit the result's 32-bit column pointers",
                         M->nrows);
    if ((unsigned)map.rel.kind > MMX_REL_TABLE)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_mesh_product: unknown relation kind %d", (int)map.rel.kind);
    if ((unsigned)map.coll > MMX_COLL_PRODUCT)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_mesh_product: unknown collision function %d", (int)map.coll);
    if ((unsigned)map.monoid > MMX_MONOID_ANY)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_mesh_product: unknown monoid %d", (int)map.monoid);
    if (map.rel.kind == MMX_REL_TABLE) {
        if (!map.rel.table || map.rel.dim < 1)
            return mmx__fail(ctx, MMX_ERR_ARG,
                             "mmx_mesh_product: a table relation needs a table and dim >= 1 (dim %d)",
                             map.rel.dim);
        if (M->nnz > 0 && (M->minval < 1 || M->maxval > map.rel.dim))
            return mmx__fail(ctx, MMX_ERR_ARG,
                             "mmx_mesh_product: the relation table covers values 1..%d but M holds "
                             "values %d..%d", map.rel.dim, M->minval, M->maxval);
    }
    mmx_status s = mmx__check_space(ctx, M->space, "mmx_mesh_product: M");
    if (!s && M->space != mmx_ctx_space(ctx))
        s = mmx__fail(ctx, MMX_ERR_SPACE,
                      "mmx_mesh_product: M is in host memory but the context is on the CUDA backend");
    return s;
}

/* ---- host ----------------------------------------------------------------------------- */

/* Column k of M: its first entry and its length. */
static void face_range(const mmx_csc *M, mmx_index k, mmx_index *s, mmx_index *n)
{
    *s = M->order ? M->order * k : M->colptr[k];
    *n = M->order ? M->order : M->colptr[k + 1] - *s;
}

/* The entries x of the face [s, s+n) related to its entry y: Q(value(x), value(y)). They are
 * written to xs (room for n); their number is returned. */
static mmx_index partners(const mmx_csc *M, const mmx_rel *rel, mmx_index s, mmx_index n,
                          mmx_index y, mmx_index *xs)
{
    mmx_index m = 0;
    if (M->positional && (rel->kind == MMX_REL_CYCLE || rel->kind == MMX_REL_CYCLE_BOTH)) {
        /* Values are positions: a = b - p (and b + p) around the cycle. */
        int64_t b0 = y - s;
        mmx_index x1 = s + (mmx_index)mmx__gemm_mod(b0 - rel->p, n);
        xs[m++] = x1;
        if (rel->kind == MMX_REL_CYCLE_BOTH) {
            mmx_index x2 = s + (mmx_index)mmx__gemm_mod(b0 + rel->p, n);
            if (x2 != x1) xs[m++] = x2; /* counted once when both powers meet */
        }
        return m;
    }
    mmx_index b = mmx__csc_val(M, y, s);
    for (mmx_index x = s; x < s + n; x++)
        if (mmx__gemm_rel(rel, mmx__csc_val(M, x, s), b, n)) xs[m++] = x;
    return m;
}

/* One collision in a column's bucket. */
typedef struct pair_rec {
    mmx_index i, k;
    int64_t v;
} pair_rec;

static int pair_cmp(const void *pa, const void *pb)
{
    const pair_rec *a = pa, *b = pb;
    if (a->i != b->i) return a->i < b->i ? -1 : 1;
    return (a->k > b->k) - (a->k < b->k);
}

/* Sorts a bucket by (i, k): insertion sort for the few entries of a typical column, qsort for
 * a long one (a vertex of high valence, or a big face under MMX_REL_ALL). */
static void sort_bucket(pair_rec *p, size_t n)
{
    if (n > 32) {
        qsort(p, n, sizeof *p, pair_cmp);
        return;
    }
    for (size_t q = 1; q < n; q++) {
        pair_rec t = p[q];
        size_t r = q;
        while (r > 0 && pair_cmp(&p[r - 1], &t) > 0) {
            p[r] = p[r - 1];
            r--;
        }
        p[r] = t;
    }
}

static mmx_status mesh_product_host(mmx_ctx *ctx, const mmx_csc *M, mmx_gemm_map map, mmx_csc **out)
{
    const mmx_index nv = M->nrows;
    int64_t *ptr = NULL;       /* nv + 1 bucket starts, then cursors */
    mmx_index *xs = NULL;      /* one face's partners */
    mmx_index *dist = NULL;    /* distinct rows per column of C */
    pair_rec *bucket = NULL;
    mmx_csc *C = NULL;
    /* The longest face, measured rather than read from maxcol: a matrix assembled by hand
     * (a view) carries no properties, and the partners' room must hold any face. */
    mmx_index longest = M->order;
    for (mmx_index k = 0; !M->order && k < M->ncols; k++)
        if (M->colptr[k + 1] - M->colptr[k] > longest) longest = M->colptr[k + 1] - M->colptr[k];
    mmx_status s = mmx__host_alloc(ctx, (size_t)nv + 1, sizeof *ptr, (void **)&ptr);
    if (!s) s = mmx__host_alloc(ctx, (size_t)longest, sizeof *xs, (void **)&xs);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nv + 1, sizeof *dist, (void **)&dist);
    if (s) goto done;

    /* Count the pairs that land in each column j of C. */
    memset(ptr, 0, ((size_t)nv + 1) * sizeof *ptr);
    for (mmx_index k = 0; k < M->ncols; k++) {
        mmx_index fs, n;
        face_range(M, k, &fs, &n);
        for (mmx_index y = fs; y < fs + n; y++) ptr[M->rowidx[y] + 1] += partners(M, &map.rel, fs, n, y, xs);
    }
    for (mmx_index j = 0; j < nv; j++) ptr[j + 1] += ptr[j];
    if (ptr[nv] > MMX_INDEX_MAX) {
        s = mmx__fail(ctx, MMX_ERR_OVERFLOW,
                      "mmx_mesh_product: %lld collisions exceed 2^31 - 1", (long long)ptr[nv]);
        goto done;
    }
    s = mmx__host_alloc(ctx, (size_t)ptr[nv], sizeof *bucket, (void **)&bucket);
    if (s) goto done;

    /* Fill the buckets, face after face, so each bucket is already in k order. ptr[j] ends as
     * the start of column j + 1. */
    for (mmx_index k = 0; k < M->ncols; k++) {
        mmx_index fs, n;
        face_range(M, k, &fs, &n);
        for (mmx_index y = fs; y < fs + n; y++) {
            mmx_index j = M->rowidx[y], b = mmx__csc_val(M, y, fs);
            mmx_index m = partners(M, &map.rel, fs, n, y, xs);
            for (mmx_index q = 0; q < m; q++) {
                mmx_index a = mmx__csc_val(M, xs[q], fs);
                pair_rec r = {M->rowidx[xs[q]], k, mmx__gemm_contrib(&map, a, b, k)};
                bucket[ptr[j]++] = r;
            }
        }
    }

    /* Per column: sort by (i, k), merge equal rows with the monoid (in k order), and move the
     * merged entries down to their place in C (never past where they came from). A
     * contribution or a result outside 32 bits is refused, naming the first such C(i,j) in
     * column-major order. */
    int64_t begin = 0;
    dist[0] = 0;
    for (mmx_index j = 0; j < nv; j++) {
        int64_t end = ptr[j], w = dist[j];
        int bad = 0; /* the current C(i,j) had a contribution outside 32 bits */
        sort_bucket(bucket + begin, (size_t)(end - begin));
        for (int64_t q = begin; q <= end; q++) {
            if (q < end && w > dist[j] && bucket[w - 1].i == bucket[q].i) {
                if (!mmx__fits_index(bucket[q].v)) bad = 1;
                else if (!bad) mmx__gemm_fold_k_order(map.monoid, &bucket[w - 1].v, bucket[q].v);
                continue;
            }
            /* C(bucket[w-1].i, j) is complete. */
            if (w > dist[j] && (bad || !mmx__fits_index(bucket[w - 1].v))) {
                s = mmx__mesh_product_overflow(ctx, bucket[w - 1].i, j);
                goto done;
            }
            if (q == end) break;
            bucket[w++] = bucket[q];
            bad = !mmx__fits_index(bucket[q].v);
        }
        dist[j + 1] = (mmx_index)w;
        begin = end;
    }
    s = mmx__csc_alloc(ctx, MMX_SPACE_HOST, nv, nv, dist[nv], 0, &C);
    if (s) goto done;
    memcpy(C->colptr, dist, ((size_t)nv + 1) * sizeof *dist);
    for (mmx_index q = 0; q < dist[nv]; q++) {
        C->rowidx[q] = bucket[q].i;
        C->val[q] = (mmx_index)bucket[q].v;
    }
    s = mmx__csc_props(ctx, C);
done:
    free(ptr);
    free(xs);
    free(dist);
    free(bucket);
    if (s) mmx_csc_free(C);
    else *out = C;
    return s;
}

mmx_status mmx__mesh_product_queue(mmx_ctx *ctx, const mmx_csc *M, mmx_gemm_map map,
                                   mmx__readback *rb, mmx_csc **out,
                                   mmx__product_report **report)
{
    *report = NULL;
    mmx_status s = mesh_product_check(ctx, M, map, out);
    if (s) return s;
    if (mmx_ctx_backend(ctx) == MMX_BACKEND_CUDA)
        return mmx__mesh_product_cuda(ctx, M, map, rb, out, report);
    return mesh_product_host(ctx, M, map, out);
}

mmx_status mmx__mesh_product_settle(mmx_ctx *ctx, mmx_csc *C, const mmx__readback *rb,
                                    const mmx__product_report *report)
{
    if (!report) return MMX_OK;
    const mmx__product_report *r = mmx__readback_host(rb, report);
    if (r->first_bad) {
        const unsigned long long ji = ~r->first_bad;
        return mmx__mesh_product_overflow(ctx, (mmx_index)(uint32_t)ji, (mmx_index)(ji >> 32));
    }
    C->nnz = r->nnz;
    C->maxcol = r->maxcol;
    C->minval = r->nnz ? (mmx_index)(~r->min_key ^ 0x80000000u) : 0;
    C->maxval = r->nnz ? (mmx_index)(r->max_key ^ 0x80000000u) : 0;
    C->positional = !r->not_positional;
    return MMX_OK;
}

mmx_status mmx_mesh_product(mmx_ctx *ctx, const mmx_csc *M, mmx_gemm_map map, mmx_csc **out)
{
    MMX__NEED_CTX(ctx);
    mmx__readback rb;
    mmx__product_report *report = NULL;
    mmx_status s = mesh_product_check(ctx, M, map, out);
    if (!s) s = mmx__readback_open(ctx, &rb);
    if (s) return s;
    s = mmx__mesh_product_queue(ctx, M, map, &rb, out, &report);
    if (!s) s = mmx__readback_wait(&rb);
    if (!s) s = mmx__mesh_product_settle(ctx, *out, &rb, report);
    mmx__readback_close(&rb);
    if (s) {
        mmx_csc_free(*out);
        *out = NULL;
    }
    return s;
}
