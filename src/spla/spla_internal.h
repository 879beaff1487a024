/* Private declarations of the sparse-matrix module. */
#ifndef MMX_SPLA_INTERNAL_H
#define MMX_SPLA_INTERNAL_H

#include <math.h>
#include "core/core_internal.h"
#include "core/hd.h"
#include "meshmatrix/spla.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The entries [*a, *b) of column j, in either form. */
static inline MMX__HD void mmx__csc_col(const mmx_csc *A, mmx_index j, int64_t *a, int64_t *b)
{
    *a = A->order ? (int64_t)A->order * j : A->colptr[j];
    *b = A->order ? *a + A->order : A->colptr[j + 1];
}

/* The stored value of entry e of a column starting at entry colstart: implied by the position
 * in the reduced form. */
static inline MMX__HD mmx_index mmx__csc_val(const mmx_csc *A, int64_t e, int64_t colstart)
{
    return A->val ? A->val[e] : (mmx_index)(e - colstart + 1);
}

/* The first position in the ascending rows[lo, hi) whose row is >= r: where row r of a
 * column with sorted rows is, or would be. */
static inline MMX__HD mmx_index mmx__lower_bound(const mmx_index *rows, mmx_index lo, mmx_index hi,
                                                 mmx_index r)
{
    while (lo < hi) {
        mmx_index mid = lo + (hi - lo) / 2;
        if (rows[mid] < r) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Allocates an uninitialised matrix in `space`: colptr and val unless order > 0. */
mmx_status mmx__csc_alloc(mmx_ctx *ctx, mmx_space space, mmx_index nrows, mmx_index ncols,
                          mmx_index nnz, mmx_index order, mmx_csc **out);

/* Allocates A->x (nnz floats, uninitialised) in A's space. */
mmx_status mmx__csc_alloc_x(mmx_ctx *ctx, mmx_csc *A);

/* What a structural check found: kind 0 none; 1 colptr[j] > colptr[j+1] or outside [0, nnz];
 * 2 a row index outside [0, nrows); 3 a row twice in one column. `col` is the first such
 * column, `row` the offending row index. */
typedef struct mmx__csc_fault { int kind; mmx_index col, row; } mmx__csc_fault;

/* Turns a fault into MMX_ERR_ARG with a sentence naming it ("column 7: ..."). */
mmx_status mmx__csc_fault_report(mmx_ctx *ctx, const mmx_csc *A, mmx__csc_fault f);

/* Sets val[k] to k's 1-based position in its column, and colptr[j] = order * j for a reduced
 * matrix being expanded; host or device by A->space (queued there). */
mmx_status mmx__csc_fill_positions(mmx_ctx *ctx, mmx_csc *A);
mmx_status mmx__csc_fill_uniform_colptr(mmx_ctx *ctx, mmx_csc *A, mmx_index order);

/* Computes A's maxcol, minval, maxval and positional fields from its arrays, where they live.
 * Every function that creates a matrix calls it (or sets the fields it knows). */
mmx_status mmx__csc_props(mmx_ctx *ctx, mmx_csc *A);

/* The CUDA halves of the module's operations are declared whatever the build: a build without
 * CUDA links the stubs of nocuda.c, which report MMX_ERR_INTERNAL (device.h), so the dispatch
 * needs no #ifdef. Each is queued on the context's stream and waits only where its comment
 * says it reads a device value on the host. */

/* The device halves of the CSC helpers: props (waits, to read the properties), the check
 * (waits, to read the fault). (The fills are elementwise steps, csc_fill_step.h.) */
mmx_status mmx__csc_props_cuda(mmx_ctx *ctx, mmx_csc *A);
mmx_status mmx__csc_check_cuda(mmx_ctx *ctx, const mmx_csc *A, mmx__csc_fault *fault);

/* ---- the row view (rows.c, rows.cu) ---- */

/* A read by rows, without moving its entries: row i's entries are entry[rowptr[i] ..
 * rowptr[i + 1]), each the entry's index in A's storage, in ascending column order (A's
 * storage order, kept by a stable sort); col[t] is entry[t]'s column for a general A (NULL for
 * a reduced one, whose column is entry / order). Device arrays from the context that made it. */
typedef struct mmx__csc_rows {
    mmx_index *rowptr; /* nrows + 1 */
    mmx_index *entry;  /* nnz */
    mmx_index *col;    /* nnz, general A only */
} mmx__csc_rows;

/* What a matrix the library made keeps beside its arrays (mmx_csc.cache, spla.h): made empty
 * with the matrix by mmx__csc_alloc, filled on first use, released with the matrix. `owner`
 * tells the matrix from a copy of its struct (a view, which must not use or fill it). */
struct mmx_csc_cache {
    const mmx_csc *owner;
    int has_rows;
    mmx__csc_rows rows;
};

/* The row view of A (a device matrix) for a product on ctx: A's kept view when A was made by
 * ctx (built and kept on first use), else one made now that *temp tells the caller to release
 * with mmx__csc_rows_free once its kernels are queued. Queued, no wait. Errors: MMX_ERR_NOMEM,
 * MMX_ERR_CUDA. */
mmx_status mmx__csc_rows_get(mmx_ctx *ctx, const mmx_csc *A, mmx__csc_rows *rows, int *temp);
void mmx__csc_rows_free(mmx_ctx *ctx, mmx__csc_rows *rows);

/* Builds A's row view into `rows` (arrays allocated here on ctx, col only for a general A), or
 * with rows->col NULL for any A, the rowptr and entry arrays only (what the transpose needs).
 * Queued: a stable radix sort of the entries by row. Errors: MMX_ERR_NOMEM, MMX_ERR_CUDA. */
mmx_status mmx__csc_rows_cuda(mmx_ctx *ctx, const mmx_csc *A, int with_col, mmx__csc_rows *rows);

/* ---- spmv (spmv.c, spmv.cu): declarations go here ---- */

/* m(i, j, v) of an entry at index e of A's storage, in column j of c entries (spla.h,
 * mmx_map_kind), as one run-time switch that host code and device code share: the host SpMV,
 * and the few kernels that evaluate a map outside the SpMV's templated hot loops (the
 * diagonal, diag_step.h). The map's table lives in the caller's space. */
static inline MMX__HD float mmx__map_value(const mmx_map *m, mmx_index i, int64_t j, mmx_index c,
                                           mmx_index v, int64_t e)
{
    switch (m->kind) {
    case MMX_MAP_VALUE: return (float)v;
    case MMX_MAP_CONST: return m->c;
    case MMX_MAP_BY_VALUE: return m->table[v - 1];
    case MMX_MAP_BY_ROW: return m->table[i];
    case MMX_MAP_BY_COL: return m->table[j];
    case MMX_MAP_BY_ORDER: return m->table[c];
    case MMX_MAP_BY_ENTRY: return m->table[e];
    default: return m->table[(int64_t)c * (c - 1) / 2 + v - 1]; /* MMX_MAP_BY_ORDER_VALUE */
    }
}

/* Whether the map is well formed and its table covers every entry of A (the map checks of
 * mmx_spmv, from A's cached properties, O(1)); `fn` names the public function in the error
 * ("mmx_spmv: map MMX_MAP_BY_ROW needs a table of at least 5 floats ..."). */
mmx_status mmx__map_check(mmx_ctx *ctx, const mmx_csc *A, mmx_map map, const char *fn);

/* Which op = T kernel the CUDA backend runs (the host ignores it): AUTO is what mmx_spmv uses;
 * THREAD_PER_COLUMN gives each column one thread (a reduced quad's four rows in one 16-byte
 * load); SHUFFLE, for reduced quads only, gives each corner of a face one thread and combines
 * the four partial sums with warp shuffles (thesis 5.3). An input a variant does not take (op =
 * N, or SHUFFLE on anything but reduced quads) runs the thread-per-column kernels. */
typedef enum { MMX__SPMV_AUTO = 0, MMX__SPMV_THREAD_PER_COLUMN, MMX__SPMV_SHUFFLE } mmx__spmv_variant;

/* mmx_spmv with a chosen kernel variant: the same checks, semantics and errors (spmv.c). */
mmx_status mmx__spmv_variant_run(mmx_ctx *ctx, mmx__spmv_variant v, mmx_op op, float alpha,
                                 const mmx_csc *A, mmx_map map, const float *x, int k,
                                 float beta, float *y);

/* The same (mmx_spmv only queues its kernels on CUDA, so both entry points do the same since
 * the library stopped waiting there): kept for the benchmarks, which bracket the kernels alone
 * with CUDA events. */
mmx_status mmx__spmv_variant_enqueue(mmx_ctx *ctx, mmx__spmv_variant v, mmx_op op, float alpha,
                                     const mmx_csc *A, mmx_map map, const float *x, int k,
                                     float beta, float *y);

/* The device product on checked arguments (spmv.cu), queued on the context's stream. */
mmx_status mmx__spmv_cuda(mmx_ctx *ctx, mmx__spmv_variant v, mmx_op op, float alpha,
                          const mmx_csc *A, mmx_map map, const float *x, int k, float beta,
                          float *y);

/* ---- transpose and spgemm (transpose.c/.cu, spgemm.c/.cu): declarations go here ---- */

/* x mod n in [0, n) for n > 0: C's % keeps the dividend's sign, the cycle tests need the
 * mathematical residue. */
static inline MMX__HD int64_t mmx__gemm_mod(int64_t x, int64_t n)
{
    int64_t r = x % n;
    return r < 0 ? r + n : r;
}

/* Q's value for a collision that counts: the table entry for MMX_REL_TABLE (a and b checked
 * to lie in [1, dim]), 1 for the other kinds. For callers that found the partner by index
 * arithmetic and skip the relation test. */
static inline MMX__HD mmx_index mmx__gemm_q(const mmx_rel *rel, mmx_index a, mmx_index b)
{
    return rel->kind == MMX_REL_TABLE ? rel->table[((int64_t)a - 1) * rel->dim + (b - 1)] : 1;
}

/* Q(a, b) of a collision whose shared column k of A has n >= 1 entries: 0 when it does not
 * count, else the relation's value (1, or the table entry for MMX_REL_TABLE, whose a and b
 * the caller has checked to lie in [1, dim]). */
static inline MMX__HD mmx_index mmx__gemm_rel(const mmx_rel *rel, mmx_index a, mmx_index b,
                                              mmx_index n)
{
    int64_t d = (int64_t)b - a;
    switch (rel->kind) {
    case MMX_REL_ALL: return 1;
    case MMX_REL_CYCLE: return mmx__gemm_mod(d - rel->p, n) == 0;
    case MMX_REL_CYCLE_BOTH:
        return mmx__gemm_mod(d - rel->p, n) == 0 || mmx__gemm_mod(d + rel->p, n) == 0;
    default: return mmx__gemm_q(rel, a, b);
    }
}

/* What a counted collision (Q value q, shared index k, values a and b) contributes, exactly
 * in 64 bits: a PRODUCT may leave the 32-bit range, which the callers refuse. */
static inline MMX__HD int64_t mmx__gemm_coll(mmx_coll coll, mmx_index q, mmx_index k,
                                             mmx_index a, mmx_index b)
{
    switch (coll) {
    case MMX_COLL_MAP: return q;
    case MMX_COLL_K: return k;
    case MMX_COLL_A: return a;
    case MMX_COLL_B: return b;
    default: return (int64_t)a * b;
    }
}

/* The contribution of a collision known to count, for callers that skipped the relation test:
 * Q's value is looked up only when the collision function uses it (the other functions may
 * be called with a, b = 0 when they do not need them). */
static inline MMX__HD int64_t mmx__gemm_contrib(const mmx_gemm_map *map, mmx_index a,
                                                mmx_index b, mmx_index k)
{
    mmx_index q = map->coll == MMX_COLL_MAP ? mmx__gemm_q(&map->rel, a, b) : 1;
    return mmx__gemm_coll(map->coll, q, k, a, b);
}

/* Folds a contribution into acc when contributions arrive in increasing k, as in the mesh
 * product: ANY keeps the first. Every contribution fits 32 bits (callers refuse one that does
 * not), so a sum stays far inside 64 bits. */
static inline MMX__HD void mmx__gemm_fold_k_order(mmx_monoid monoid, int64_t *acc, int64_t v)
{
    switch (monoid) {
    case MMX_MONOID_SUM: *acc += v; break;
    case MMX_MONOID_MIN: if (v < *acc) *acc = v; break;
    case MMX_MONOID_MAX: if (v > *acc) *acc = v; break;
    default: break; /* ANY: the first, the contribution of the smallest k */
    }
}

static inline MMX__HD int mmx__fits_index(int64_t v)
{
    return v >= INT32_MIN && v <= INT32_MAX;
}

/* The column holding entry e (0 <= e < nnz) of A, either form: a binary search of colptr for
 * the last column starting at or before e, which skips empty columns. */
static inline MMX__HD mmx_index mmx__csc_col_of(const mmx_csc *A, int64_t e)
{
    if (A->order) return (mmx_index)(e / A->order);
    mmx_index lo = 0, hi = A->ncols; /* colptr[lo] <= e < colptr[hi] */
    while (hi - lo > 1) {
        mmx_index mid = lo + (hi - lo) / 2;
        if (A->colptr[mid] <= e) lo = mid;
        else hi = mid;
    }
    return lo;
}

/* ---- valued SpGEMM (spgemm_valued.c, the CUDA halves in spgemm.cu) ---- */

/* The map MMX_MAP_X on A read as MMX_MAP_BY_ENTRY with A's own floats (A->x, or nothing when
 * A has no entry); any other map, or X on a matrix without floats (which mmx__map_check then
 * refuses), unchanged. Every function that takes a map calls it first. */
static inline mmx_map mmx__map_resolve(const mmx_csc *A, mmx_map m)
{
    if (m.kind == MMX_MAP_X && A && (A->x || A->nnz == 0)) {
        m.kind = MMX_MAP_BY_ENTRY;
        m.table = A->x;
        m.len = A->nnz;
    }
    return m;
}

/* A counted collision's contribution (spla.h, mmx_vcoll). The product is rounded once on the
 * device too (no FMA with the sum it goes into), so both backends give the same bits. */
static inline MMX__HD float mmx__vgemm_contrib(const mmx_vgemm_map *m, float ma, float mb,
                                               mmx_index a, mmx_index b, mmx_index n)
{
    switch (m->coll) {
    case MMX_VCOLL_PRODUCT:
#ifdef __CUDA_ARCH__
        return __fmul_rn(ma, mb);
#else
        return ma * mb;
#endif
    case MMX_VCOLL_A: return ma;
    case MMX_VCOLL_B: return mb;
    default: return mmx__gemm_mod((int64_t)b - a - m->rel.p, n) == 0 ? ma : mb; /* TAIL */
    }
}

/* acc folded with the next contribution c (first: c is the first one): SUM from 0 left to
 * right, MIN and MAX keeping the earlier value on ties. */
static inline MMX__HD float mmx__vgemm_fold(mmx_monoid monoid, float acc, float c, int first)
{
    switch (monoid) {
    case MMX_MONOID_SUM: return (first ? 0.0f : acc) + c;
    case MMX_MONOID_MIN: return first || c < acc ? c : acc;
    default: return first || c > acc ? c : acc; /* MAX */
    }
}

/* C(i,j) of a masked valued product (spla.h): B's column j in storage order, each B(k,j)
 * looked up in A's column k for row i (rows are distinct in a column: one match at most),
 * the counted collisions folded in that order; 0 without one. The host loop and the CUDA
 * kernel both call it. amap and bmap are resolved (mmx__map_resolve). */
static inline MMX__HD float mmx__vgemm_masked_entry(const mmx_csc *A, const mmx_csc *B,
                                                    const mmx_vgemm_map *m, mmx_index i,
                                                    mmx_index j)
{
    int64_t b0, b1;
    mmx__csc_col(B, j, &b0, &b1);
    float acc = 0.0f;
    int first = 1;
    for (int64_t eb = b0; eb < b1; eb++) {
        const mmx_index k = B->rowidx[eb], b = mmx__csc_val(B, eb, b0);
        int64_t a0, a1;
        mmx__csc_col(A, k, &a0, &a1);
        for (int64_t ea = a0; ea < a1; ea++) {
            if (A->rowidx[ea] != i) continue;
            const mmx_index a = mmx__csc_val(A, ea, a0), n = (mmx_index)(a1 - a0);
            if (mmx__gemm_rel(&m->rel, a, b, n)) {
                const float ma = mmx__map_value(&m->amap, i, k, n, a, ea);
                const float mb = mmx__map_value(&m->bmap, k, j, (mmx_index)(b1 - b0), b, eb);
                acc = mmx__vgemm_fold(m->monoid, acc, mmx__vgemm_contrib(m, ma, mb, a, b, n), first);
                first = 0;
            }
            break;
        }
    }
    return acc;
}

/* Column i's diagonal entry of a valued A gets alpha * d[i] (no entry (i, i): nothing). */
static inline MMX__HD void mmx__csc_set_diag_col(const mmx_csc *A, mmx_index i, const float *d,
                                                 float alpha)
{
    int64_t a, b;
    mmx__csc_col(A, i, &a, &b);
    for (int64_t e = a; e < b; e++)
        if (A->rowidx[e] == i) {
            A->x[e] = alpha * d[i];
            return;
        }
}

/* A->x(i, i) = alpha * d[i] for i < min(nrows, ncols), where A stores (i, i); d in A's space.
 * A valued matrix's diagonal set from a vector (a Laplacian's, minus its row sums). Queued on
 * CUDA (one thread per column). */
mmx_status mmx__csc_set_diagonal(mmx_ctx *ctx, mmx_csc *A, const float *d, float alpha);

/* The CUDA halves of mmx_spgemm_valued, arguments checked and maps resolved: without a mask
 * (allocates *out, reads sizes back), and with one (C allocated by the caller with the mask's
 * pattern; fills C->x, queued). */
mmx_status mmx__spgemm_valued_cuda(mmx_ctx *ctx, const mmx_csc *A, const mmx_csc *B,
                                   mmx_vgemm_map map, mmx_csc **out);
mmx_status mmx__spgemm_masked_cuda(mmx_ctx *ctx, const mmx_csc *A, const mmx_csc *B,
                                   mmx_vgemm_map map, mmx_csc *C);

/* "C(i,j) overflows ...": the MMX_ERR_OVERFLOW of mmx_spgemm, one sentence for both backends. */
mmx_status mmx__spgemm_overflow(mmx_ctx *ctx, int64_t i, int64_t j);

/* The device bodies of mmx_csc_transpose and mmx_spgemm, arguments checked by the callers;
 * they allocate *out in device space and fill it, cached properties included (read back: the
 * waits of spla.h). */
mmx_status mmx__csc_transpose_cuda(mmx_ctx *ctx, const mmx_csc *A, mmx_csc **out);
mmx_status mmx__spgemm_cuda(mmx_ctx *ctx, const mmx_csc *A, const mmx_csc *B, mmx_gemm_map map,
                            mmx_csc **out);

/* ---- mesh product (mesh_product.c/.cu): declarations go here ---- */

/* What the device product reports besides C, in a read-back slot (core/device.h): every field
 * folds from zero, its neutral value. Keys turn C's minimum and the first bad entry into
 * maxima of unsigned keys (mmx__product_*_key). */
typedef struct mmx__product_report {
    unsigned long long first_bad; /* key of the first C(i,j), column-major, outside 32 bits */
    mmx_index nnz;                /* nnz(C) */
    mmx_index maxcol;             /* C's longest column */
    unsigned min_key, max_key;    /* keys of C's smallest and largest values */
    int not_positional;           /* 1 once a value is not its position in its column */
    int pad;
} mmx__product_report;

/* Order-keeping maps of ints to unsigned keys, whose maximum is the largest value (max_key) or
 * the smallest (min_key) and whose zero is the neutral INT_MIN or INT_MAX; the bad entry's key
 * is largest for the first (j, i) in column-major order, and never 0. */
static inline MMX__HD unsigned mmx__product_max_key(int v) { return (unsigned)v ^ 0x80000000u; }
static inline MMX__HD unsigned mmx__product_min_key(int v) { return ~((unsigned)v ^ 0x80000000u); }
static inline MMX__HD unsigned long long mmx__product_bad_key(mmx_index j, mmx_index i)
{
    return ~(((unsigned long long)(unsigned)j << 32) | (unsigned)i);
}

/* Queues C = M <map> Mᵀ on the context's backend (arguments checked as mmx_mesh_product does).
 * On the host C is complete and *report NULL. On CUDA C's arrays have room for every pair (at
 * most 2 nnz(M) for the cycle relations) and its nnz and cached properties are not yet known:
 * they come back in *report, a slot of rb, which mmx__mesh_product_settle reads after
 * mmx__readback_wait; only kernels that read C's arrays may be queued in between.
 * Synchronises: on CUDA, for relations other than the positional cycles, once (the bucket's
 * size). Errors: those of mmx_mesh_product. */
mmx_status mmx__mesh_product_queue(mmx_ctx *ctx, const mmx_csc *M, mmx_gemm_map map,
                                   mmx__readback *rb, mmx_csc **out,
                                   mmx__product_report **report);

/* Sets C's nnz and cached properties from its report read back (nothing for a NULL report),
 * or returns the overflow naming the first bad entry. */
mmx_status mmx__mesh_product_settle(mmx_ctx *ctx, mmx_csc *C, const mmx__readback *rb,
                                    const mmx__product_report *report);

/* The CUDA half of mmx__mesh_product_queue. */
mmx_status mmx__mesh_product_cuda(mmx_ctx *ctx, const mmx_csc *M, mmx_gemm_map map,
                                  mmx__readback *rb, mmx_csc **out,
                                  mmx__product_report **report);

/* MMX_ERR_OVERFLOW naming C(i,j), the first entry (column-major) with a contribution or a
 * value outside 32 bits; both backends report the same one. */
mmx_status mmx__mesh_product_overflow(mmx_ctx *ctx, mmx_index i, mmx_index j);

/* ---- permute, band, rcm (permute.c/.cu, band.c, rcm.c): declarations go here ---- */

/* Checks that the host array p[0..n) is a permutation of 0..n-1. On failure returns
 * MMX_ERR_ARG naming the first bad entry: "NAME[i] = v is outside [0, n)" or "NAME[i] = v
 * repeats NAME[k]" (k < i, the first occurrence). p = NULL is the identity. Cost: O(n). */
mmx_status mmx__perm_check_host(mmx_ctx *ctx, const mmx_index *p, mmx_index n, const char *name);

/* What a device permutation check found: bad = -1 if none, else the first bad index, with
 * its value and (for a repeat) the index of the value's first occurrence, else -1. */
typedef struct mmx__perm_fault { mmx_index bad, value, first; } mmx__perm_fault;

/* Turns a fault into MMX_ERR_ARG with the same sentence as mmx__perm_check_host. */
mmx_status mmx__perm_fault_report(mmx_ctx *ctx, mmx__perm_fault f, mmx_index n, const char *name);

/* C = P·A·Q without checking pinv and q (the caller has): the body of mmx_csc_permute on the
 * context's backend, pinv and q in the context's space, NULL for the identity. */
mmx_status mmx__csc_permute_unchecked(mmx_ctx *ctx, const mmx_csc *A, const mmx_index *pinv,
                                      const mmx_index *q, mmx_csc **out);

/* The device permutation check: a kernel finds each value's first index, a second the first
 * bad index. p is a device array of n entries. Waits, to read the fault. */
mmx_status mmx__perm_check_cuda(mmx_ctx *ctx, const mmx_index *p, mmx_index n,
                                mmx__perm_fault *fault);
/* The device body of mmx_csc_permute: C allocated in device space and filled, queued. */
mmx_status mmx__csc_permute_cuda(mmx_ctx *ctx, const mmx_csc *A, const mmx_index *pinv,
                                 const mmx_index *q, mmx_csc *C);

/* ---- column selection (select_cols.c, select_cols.cu) ---- */

/* What mmx__csc_select_cols keeps. Arrays in A's space. */
typedef struct mmx__col_select {
    const unsigned char *keep;       /* ncols: column j is kept when keep[j] != 0 */
    const mmx_index *row_map;        /* NULL, or nrows entries in [0, nrows): an entry in row r
                                        counts as one in row row_map[r] (rows merged before the
                                        renumbering, as an edge collapse merges its ends) */
    const unsigned char *row_keep;   /* NULL, or nrows: rows kept even where no kept column
                                        uses them (a mesh's unused vertices) */
    int all_rows;                    /* 1: every row kept that row_map leaves in place (all
                                        of them without row_map, numbers unchanged), used or
                                        not; row_keep ignored. With row_map, row_map[r] must
                                        be such a row (merges do not chain) */
    mmx_index ncols, nrows;          /* the kept columns and rows when the caller knows them,
                                        else -1 (then a device A costs one wait to read them) */
    mmx_index extra_cols, extra_rows; /* room after the kept ones: B has ncols + extra_cols
                                        columns (the extra ones uninitialised; reduced A only)
                                        and nrows + extra_rows rows */
} mmx__col_select;

/* B = the columns of A that sel->keep flags, in their order, each with its entries and values
 * (val, x) in their order, rows renumbered: the rows the kept columns use (after row_map) or
 * row_keep flags (all_rows: those row_map leaves in place), ascending, become 0, 1, ... B is in
 * A's form (reduced when A is) and space. row_new (nrows entries, or NULL) gets each old
 * row's new number, -1 for a dropped row; row_old (room for nrows, or NULL) each new row's old
 * number. Both in A's space. Preconditions: the arrays as described (an internal call: not
 * checked), the counts the caller gives right. Deterministic; O(nnz + nrows + ncols) work.
 * Errors: MMX_ERR_ARG (extra columns of a general A), MMX_ERR_NOMEM, MMX_ERR_CUDA.
 * Synchronises: a device A waits once to read the kept counts unless the caller gives them
 * (a general A always: its kept entries' count, and mmx__csc_props's wait). */
mmx_status mmx__csc_select_cols(mmx_ctx *ctx, const mmx_csc *A, const mmx__col_select *sel,
                                mmx_csc **out, mmx_index *row_new, mmx_index *row_old);

/* The device body: A on the device, the rest as mmx__csc_select_cols. */
mmx_status mmx__csc_select_cols_cuda(mmx_ctx *ctx, const mmx_csc *A, const mmx__col_select *sel,
                                     mmx_csc **out, mmx_index *row_new, mmx_index *row_old);

/* ---- diagonal and conjugate gradients (diag.c/.cu, cg.c/.cu) ---- */

/* Whether v is finite: inf - inf and NaN - NaN are NaN, which compares unequal to 0. (The
 * same test in C and in device code, without relying on isfinite's overloads.) */
static inline MMX__HD int mmx__finite(double v) { return v - v == 0.0; }

/* Why a CG column stopped other than by converging. */
enum { MMX__CG_FAULT_NONE = 0, MMX__CG_FAULT_BREAKDOWN, MMX__CG_FAULT_NONFINITE };

/* One column's CG scalars, kept where the vectors are (device memory on CUDA) and read back
 * whole at each check. */
typedef struct mmx__cg_col {
    double bb;          /* ||b||^2 */
    double tol2;        /* rtol^2 ||b||^2 (rtol^2 ||r_0||^2 with mmx_cg_opts.rel_initial): the
                           column stops when ||r||^2 <= tol2 */
    double rr;          /* ||r||^2 of the current iterate */
    double rz;          /* r·z, z = D⁻¹ r */
    double alpha, beta; /* this iteration's step and direction update (0 when frozen) */
    double fault_value; /* p·Sp at a breakdown; ||b||^2 or ||r||^2 when not finite */
    double true_rr;     /* ||b - S x||^2 at the end */
    int active;         /* 1 while the column iterates */
    int converged;
    int iters;          /* iterations the column ran */
    int fault;          /* MMX__CG_FAULT_* */
    int fault_iter;     /* the iteration of a breakdown */
    int zero_x;         /* b = 0: x is set to 0 */
} mmx__cg_col;

typedef struct mmx__cg_state {
    mmx__cg_col col[MMX_CG_MAX_K];
    mmx_index bad_diag; /* the first i with d[i] not > 0 or not finite; n when none */
    int k;
} mmx__cg_state;

/* Everything a solve works on, in the context's space. */
typedef struct mmx__cg_work {
    mmx_index n;
    int k;
    double rtol;
    int rel0;              /* mmx_cg_opts.rel_initial */
    float *r, *z, *p, *sp; /* n x k each: residual, preconditioned residual, direction, S p */
    float *dinv;           /* n: 1 / d, or ones without a preconditioner */
    double *partial;       /* CUDA: the blocks' partial sums (MMX__CG_GRID_MAX x 3k) */
    mmx__cg_state *state;  /* one, in the context's space */
    double *hist;          /* history_cap x k (column q at q * cap), or NULL */
    int cap;
} mmx__cg_work;

/* Blocks of the CUDA partial sums, at most: fixed, so the summation order depends on n only. */
#define MMX__CG_GRID_MAX 512

/* The scalar steps, one column at a time, run by the host and by one device thread alike so
 * that both backends take the same decisions from the same doubles. */

/* After the set-up: b·b, r·r and r·z of the initial guess. hist: the column's history (NULL
 * or cap entries). */
static inline MMX__HD void mmx__cg_start(mmx__cg_col *c, double rtol, int rel0, double bb,
                                         double rr, double rz, int diag_ok, double *hist, int cap)
{
    c->bb = bb;
    c->tol2 = rtol * rtol * (rel0 ? rr : bb);
    c->rr = rr;
    c->rz = rz;
    c->alpha = c->beta = 0.0;
    c->iters = c->converged = c->active = c->zero_x = 0;
    c->fault = MMX__CG_FAULT_NONE;
    c->fault_iter = 0;
    c->fault_value = 0.0;
    if (!diag_ok) return; /* the preconditioner is refused: nothing moves */
    if (!mmx__finite(bb) || !mmx__finite(rr)) {
        c->fault = MMX__CG_FAULT_NONFINITE;
        c->fault_value = mmx__finite(bb) ? rr : bb;
        return;
    }
    if (bb == 0.0) { /* S x = 0 has the solution 0 (S is definite) */
        c->zero_x = 1;
        c->rr = 0.0;
        c->converged = 1;
        if (hist && cap > 0) hist[0] = 0.0;
        return;
    }
    if (hist && cap > 0) hist[0] = sqrt(rr / bb);
    c->converged = rr <= c->tol2;
    c->active = !c->converged;
}

/* Iteration t's step length from p·Sp; a non-positive (or NaN) p·Sp freezes the column as a
 * breakdown. */
static inline MMX__HD void mmx__cg_alpha(mmx__cg_col *c, double pap, int t)
{
    c->alpha = 0.0;
    if (!c->active) return;
    if (!(pap > 0.0)) {
        c->fault = MMX__CG_FAULT_BREAKDOWN;
        c->fault_iter = t;
        c->fault_value = pap;
        c->active = 0;
        return;
    }
    c->alpha = c->rz / pap;
}

/* After iteration t's update of x and r: the new r·r and r·z; convergence, then beta. */
static inline MMX__HD void mmx__cg_beta(mmx__cg_col *c, double rr, double rz, int t, double *hist,
                                        int cap)
{
    c->beta = 0.0;
    if (!c->active) return;
    c->iters = t;
    c->rr = rr;
    if (hist && t < cap) hist[t] = sqrt(rr / c->bb);
    if (!mmx__finite(rr)) {
        c->fault = MMX__CG_FAULT_NONFINITE;
        c->fault_value = rr;
        c->active = 0;
        return;
    }
    if (rr <= c->tol2) {
        c->converged = 1;
        c->active = 0;
        return;
    }
    c->beta = rz / c->rz;
    c->rz = rz;
}

/* The CUDA phases of a solve (cg.cu), queued on the context's stream; cg.c runs the loop and
 * calls the operator between them. k is w->k.
 *   dinv:  w->dinv = 1 / diag (ones for NULL), the first bad entry into state->bad_diag.
 *   setup: r = b - sp (sp = S x), z = D⁻¹ r, p = z; the sums; mmx__cg_start per column; x_q = 0
 *          for b_q = 0.
 *   step:  (sp = S p) p·sp, mmx__cg_alpha; x += alpha p, r -= alpha sp, z = D⁻¹ r, the sums,
 *          mmx__cg_beta; p = z + beta p (active columns only).
 *   true:  (sp = S x) state->col[q].true_rr = ||b - sp||^2. */
mmx_status mmx__cg_dinv_cuda(mmx_ctx *ctx, mmx__cg_work *w, const float *diag);
mmx_status mmx__cg_setup_cuda(mmx_ctx *ctx, mmx__cg_work *w, const float *b, float *x);
mmx_status mmx__cg_step_cuda(mmx_ctx *ctx, mmx__cg_work *w, float *x, int t);
mmx_status mmx__cg_true_cuda(mmx_ctx *ctx, mmx__cg_work *w, const float *b);

#ifdef __cplusplus
}
#endif
#endif
