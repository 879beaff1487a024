/* The implicit mesh product on the device (host statement and the rules: mesh_product.c).
 *
 * Same shape as the host: count the pairs landing in each column of C (atomics, one thread per
 * face), scan (CUB), fill each column's bucket through atomic cursors, then per column sort
 * by (i, k), count the distinct rows, scan, and emit C with the monoid applied.
 *
 * A bucket slot holds only the entry x of M whose row i collides (4 bytes); i = rowidx[x], the
 * face k = x / order (a general M stores k beside x, to spare a search of colptr per slot), and
 * a and b are found again in face k when the contribution needs them. When every collision
 * contributes 1 (MAP of a cycle relation, as in the edge matrix E) the slot holds i itself. A
 * column's slots are sorted by the key (i, k), unique within a column, so the result does not
 * depend on the order in which the atomic cursors filled the bucket; short columns are sorted
 * in registers by a sorting network, long ones in place in the bucket. The per-column kernels
 * are bound by instructions, not bytes: the keys are 32 bits when only rows matter, and each
 * warp moves its 32 columns' contiguous slots and results through shared memory.
 *
 * Measured on an H200, torus:2048:2048 reduced (4.19M quads): E 0.55 ms, F 0.51 ms with the
 * memory pool keeping its memory between calls; the fill (one atomic cursor per corner) is
 * bound by the L2's atomic throughput, the per-column kernels by instruction issue.
 *
 * Sizes: with a positional M and a cycle relation every entry has 1 or 2 partners, so the
 * bucket is allocated from nnz(M) without waiting for the count; other relations read the exact
 * total back first (a wait). C is allocated with room for every pair, since nnz(C) <= the
 * pairs, so nothing waits for nnz(C): it comes back with the last kernel's report (the first
 * overflowing entry, C's properties) in the caller's read-back block (core/device.h), which the
 * caller reads once with whatever else it waits for. Scans: core/device.h. */
#include <climits>
#include <cuda/std/functional>
#include "core/launch.cuh"
#include "spla_internal.h"

namespace {

using Report = mmx__product_report; /* keys and their neutral zero: spla_internal.h */

/* What every kernel needs to know about the product. */
struct Prod {
    mmx_csc M;
    mmx_gemm_map map;
    bool fast;   /* positional M and a cycle relation: partners by index arithmetic */
    bool rows;   /* every collision contributes 1 (MAP of a non-table relation): the slots
                    hold the row i itself, which is all the columns need */
};

/* Face k: first entry and order. */
__device__ __forceinline__ void face_range(const mmx_csc &M, mmx_index k, mmx_index &s, mmx_index &n)
{
    if (M.order) {
        s = M.order * k;
        n = M.order;
    } else {
        s = M.colptr[k];
        n = M.colptr[k + 1] - s;
    }
}

/* The positional cycle partners of position b0 (0-based) in a face of order n: b0 - p and,
 * for CYCLE_BOTH, b0 + p, around the cycle; 32-bit arithmetic. Returns how many (1 or 2). */
__device__ __forceinline__ int cycle_partners(const mmx_rel &rel, int b0, int n, int &a1, int &a2)
{
    int pr = rel.p % n; /* in (-n, n) */
    a1 = b0 - pr;
    a1 = a1 < 0 ? a1 + n : (a1 >= n ? a1 - n : a1);
    a2 = a1;
    if (rel.kind != MMX_REL_CYCLE_BOTH) return 1;
    a2 = b0 + pr;
    a2 = a2 < 0 ? a2 + n : (a2 >= n ? a2 - n : a2);
    return a2 == a1 ? 1 : 2;
}

/* Number of partners of entry y of face [s, s+n). */
__device__ __forceinline__ int count_partners(const Prod &P, mmx_index s, mmx_index n, mmx_index y)
{
    if (P.fast) {
        int a1, a2;
        return cycle_partners(P.map.rel, y - s, n, a1, a2);
    }
    mmx_index b = mmx__csc_val(&P.M, y, s), m = 0;
    for (mmx_index x = s; x < s + n; x++) m += mmx__gemm_rel(&P.map.rel, mmx__csc_val(&P.M, x, s), b, n) != 0;
    return m;
}

/* Writes the partners of y to dst[0..m) (and k to dk when dk is not null). */
__device__ __forceinline__ void write_partners(const Prod &P, mmx_index s, mmx_index n, mmx_index y,
                                               mmx_index k, mmx_index *dst, mmx_index *dk)
{
    int m = 0;
    if (P.fast) {
        int a1, a2;
        int c = cycle_partners(P.map.rel, y - s, n, a1, a2);
        dst[0] = P.rows ? P.M.rowidx[s + a1] : s + a1;
        if (c == 2) dst[1] = P.rows ? P.M.rowidx[s + a2] : s + a2;
        m = c;
    } else {
        mmx_index b = mmx__csc_val(&P.M, y, s);
        for (mmx_index x = s; x < s + n; x++)
            if (mmx__gemm_rel(&P.map.rel, mmx__csc_val(&P.M, x, s), b, n)) dst[m++] = P.rows ? P.M.rowidx[x] : x;
    }
    if (dk)
        for (int q = 0; q < m; q++) dk[q] = k;
}

/* Adds v of every thread of the block into *total (64-bit): one atomic per block. */
__device__ __forceinline__ void block_total(unsigned long long v, unsigned long long *total)
{
    const unsigned long long t = mmx__block_reduce(v, cuda::std::plus<unsigned long long>{});
    if (threadIdx.x == 0 && t) atomicAdd(total, t);
}

/* ---- count and fill: one thread per face where C = 4 or 3 is the reduced order known at
 * compile time (one 16-byte load per quad); C = 0, any form: one thread per corner, its face
 * found by a binary search of colptr, so a face's cost is spread whatever its order -------- */

template <int C>
__device__ __forceinline__ void load_face(const mmx_csc &M, mmx_index k, mmx_index (&v)[C > 0 ? C : 1])
{
    if constexpr (C == 4) {
        int4 q = reinterpret_cast<const int4 *>(M.rowidx)[k];
        v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
    } else {
        for (int c = 0; c < C; c++) v[c] = M.rowidx[(long long)C * k + c];
    }
}

template <int C>
__global__ void count_pairs(const Prod P, mmx_index *cnt, unsigned long long *total)
{
    long long k = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    unsigned long long mine = 0;
    if constexpr (C > 0) {
        if (k < P.M.ncols) {
            /* Reduced and fast: every corner has the same number of partners. */
            mmx_index v[C];
            load_face<C>(P.M, (mmx_index)k, v);
            int a1, a2;
            int m = cycle_partners(P.map.rel, 0, C, a1, a2);
            for (int c = 0; c < C; c++) atomicAdd(&cnt[v[c]], m);
            mine = (unsigned long long)m * C;
        }
    } else {
        /* One thread per corner (k is the entry), so that one large face is spread over many
         * threads: its corners' partners are independent of each other. */
        if (k < P.M.nnz) {
            mmx_index s, n;
            face_range(P.M, mmx__csc_col_of(&P.M, k), s, n);
            int m = count_partners(P, s, n, (mmx_index)k);
            if (m) atomicAdd(&cnt[P.M.rowidx[k]], m);
            mine = (unsigned long long)m;
        }
    }
    if (total) block_total(mine, total);
}

template <int C>
__global__ void fill_pairs(const Prod P, mmx_index *cursor, mmx_index *bx, mmx_index *bk)
{
    long long k = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if constexpr (C > 0) {
        if (k >= P.M.ncols) return;
        mmx_index v[C];
        load_face<C>(P.M, (mmx_index)k, v);
        mmx_index s = (mmx_index)k * C;
        for (int c = 0; c < C; c++) {
            int a1, a2;
            int m = cycle_partners(P.map.rel, c, C, a1, a2);
            mmx_index slot = atomicAdd(&cursor[v[c]], m);
            mmx_index x1 = P.rows ? v[a1] : s + a1, x2 = P.rows ? v[a2] : s + a2;
            if (m == 2 && !(slot & 1)) {
                reinterpret_cast<int2 *>(bx)[slot >> 1] = make_int2(x1, x2);
            } else {
                bx[slot] = x1;
                if (m == 2) bx[slot + 1] = x2;
            }
        }
    } else {
        /* One thread per corner, as in count_pairs. */
        if (k >= P.M.nnz) return;
        const mmx_index y = (mmx_index)k, f = mmx__csc_col_of(&P.M, k);
        mmx_index s, n;
        face_range(P.M, f, s, n);
        int m = count_partners(P, s, n, y);
        if (!m) return;
        mmx_index slot = atomicAdd(&cursor[P.M.rowidx[y]], m);
        write_partners(P, s, n, y, f, bx + slot, bk ? bk + slot : nullptr);
    }
}

/* ---- per column: sort, count, emit ------------------------------------------------------ */

/* A slot's sort key is the order in which the monoid folds: (i << 32) | k in 64 bits. When the
 * slots hold rows (every contribution is 1, so the order among equal rows does not matter)
 * the row alone is the key, in 32 bits, which halves the sorting network's work. Rows are
 * below 2^31, so the pad ~0 sorts after every key. */
using Key = unsigned long long;

__device__ __forceinline__ Key key64(const Prod &P, mmx_index x, mmx_index kstored)
{
    if (P.rows) return (Key)(unsigned)x << 32;
    mmx_index k = P.M.order ? x / P.M.order : kstored;
    return ((Key)(unsigned)P.M.rowidx[x] << 32) | (unsigned)k;
}

template <class KT>
__device__ __forceinline__ KT key_of(const Prod &P, mmx_index x, mmx_index kstored)
{
    if constexpr (sizeof(KT) == 4) return (unsigned)x;
    else return key64(P, x, kstored);
}

__device__ __forceinline__ mmx_index key_row(unsigned k) { return (mmx_index)k; }
__device__ __forceinline__ mmx_index key_row(Key k) { return (mmx_index)(k >> 32); }
__device__ __forceinline__ mmx_index key_face(unsigned) { return 0; }
__device__ __forceinline__ mmx_index key_face(Key k) { return (mmx_index)(unsigned)k; }

/* Bitonic sorting network on K keys held in registers (every index is a constant once the
 * loops unroll). */
template <int K, class KT>
__device__ __forceinline__ void sort_keys(KT (&key)[K])
{
#pragma unroll
    for (int size = 2; size <= K; size <<= 1)
#pragma unroll
        for (int stride = size >> 1; stride > 0; stride >>= 1)
#pragma unroll
            for (int q = 0; q < K; q++) {
                int r = q ^ stride;
                if (r > q) {
                    KT lo = min(key[q], key[r]), hi = max(key[q], key[r]);
                    bool up = (q & size) == 0;
                    key[q] = up ? lo : hi;
                    key[r] = up ? hi : lo;
                }
            }
}

/* Visits the n <= K slots from b in key order, sorted in registers; visit(i, k). Slot q is
 * read from src[q - off]: the warp's staged copy in shared memory, or the bucket (off = 0). */
template <int K, class KT, class V>
__device__ __forceinline__ void visit_small(const Prod &P, const mmx_index *src, mmx_index off,
                                            const mmx_index *bk, mmx_index b, int n, V &visit)
{
    KT key[K];
#pragma unroll
    for (int q = 0; q < K; q++) key[q] = q < n ? key_of<KT>(P, src[b + q - off], bk ? bk[b + q] : 0) : KT(~0ull);
    sort_keys<K>(key);
    if constexpr (K <= 8) {
#pragma unroll
        for (int q = 0; q < K; q++)
            if (q < n) visit(key_row(key[q]), key_face(key[q]));
    } else {
        /* One copy of the visitor, not K: key[q] picked out with selects, in registers. */
#pragma unroll 1
        for (int q = 0; q < n; q++) {
            KT t = key[0];
#pragma unroll
            for (int r = 1; r < K; r++) t = r == q ? key[r] : t;
            visit(key_row(t), key_face(t));
        }
    }
}

/* Shell sort of a long column in place in the bucket (slots and their faces), with Knuth's
 * gaps 1, 4, 13, 40, ...: a column is rarely longer than a few hundred slots. */
__device__ void sort_in_place(const Prod &P, mmx_index *bx, mmx_index *bk, long long n)
{
    long long gap = 1;
    while (gap < n / 3) gap = 3 * gap + 1;
    for (; gap > 0; gap /= 3) {
        for (long long q = gap; q < n; q++) {
            mmx_index tx = bx[q], tk = bk ? bk[q] : 0;
            Key t = key64(P, tx, tk);
            long long r = q;
            while (r >= gap && key64(P, bx[r - gap], bk ? bk[r - gap] : 0) > t) {
                bx[r] = bx[r - gap];
                if (bk) bk[r] = bk[r - gap];
                r -= gap;
            }
            bx[r] = tx;
            if (bk) bk[r] = tk;
        }
    }
}

/* Visits the slots [b, e) of a column in key order. Columns of up to 16 slots (a vertex of
 * valence 8 or less in E) are sorted in registers; longer ones are sorted in place in the
 * bucket by count_distinct (sort_long) and read back in order by emit_columns. */
template <class KT, class V>
__device__ __forceinline__ void visit_column(const Prod &P, mmx_index b, mmx_index e,
                                             const mmx_index *src, mmx_index off, mmx_index *bx,
                                             mmx_index *bk, bool sort_long, V &visit)
{
    int n = e - b;
    if (n <= 4) {
        visit_small<4, KT>(P, src, off, bk, b, n, visit);
    } else if (n <= 8) {
        visit_small<8, KT>(P, src, off, bk, b, n, visit);
    } else if (n <= 16) {
        visit_small<16, KT>(P, src, off, bk, b, n, visit);
    } else {
        if (sort_long) sort_in_place(P, bx + b, bk ? bk + b : nullptr, e - b);
        for (mmx_index q = b; q < e; q++) {
            Key key = key64(P, bx[q], bk ? bk[q] : 0);
            visit(key_row(key), key_face(key));
        }
    }
}

/* The rows-only (32-bit key) or the general (64-bit key) instance. */
template <class V>
__device__ __forceinline__ void visit_any(const Prod &P, mmx_index b, mmx_index e,
                                          const mmx_index *src, mmx_index off, mmx_index *bx,
                                          mmx_index *bk, bool sort_long, V &visit)
{
    if (P.rows) visit_column<unsigned>(P, b, e, src, off, bx, bk, sort_long, visit);
    else visit_column<Key>(P, b, e, src, off, bx, bk, sort_long, visit);
}

/* One thread per column, and the 32 columns of a warp read (and write) one contiguous range:
 * the warp moves it through shared memory in coalesced steps when it fits, so that the
 * threads' short, misaligned runs do not each cost a memory transaction. */
constexpr int kWarps = MMX__BLOCK / 32;
constexpr int kStage = 384;

/* The warp's range [lo, hi) of an array whose column ends are `ends` (column j ends at
 * ends[j], starts at ends[j - 1]); the same in every lane. */
__device__ __forceinline__ void warp_range(const mmx_index *ends, mmx_index nrows, mmx_index &lo,
                                           mmx_index &hi)
{
    long long j0 = ((long long)blockIdx.x * MMX__BLOCK + threadIdx.x) & ~31ll;
    long long jl = min(j0 + 31, (long long)nrows - 1);
    lo = j0 ? ends[j0 - 1] : 0;
    hi = ends[jl];
}

/* Copies src[lo, hi) into buf with the whole warp; false (nothing copied) if it does not fit. */
__device__ __forceinline__ bool stage_in(const mmx_index *src, mmx_index lo, mmx_index hi, mmx_index *buf)
{
    if (hi - lo > kStage) return false;
    for (mmx_index q = lo + (threadIdx.x & 31); q < hi; q += 32) buf[q - lo] = src[q];
    __syncwarp();
    return true;
}

/* Distinct rows of each column. */
__global__ void count_distinct(const Prod P, const mmx_index *ends, mmx_index *bx, mmx_index *bk,
                               mmx_index *ndist)
{
    __shared__ mmx_index slots[kWarps][kStage];
    long long jj = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if ((jj & ~31ll) >= P.M.nrows) return; /* the whole warp is past the end */
    mmx_index lo, hi;
    warp_range(ends, P.M.nrows, lo, hi);
    const bool staged = stage_in(bx, lo, hi, slots[threadIdx.x / 32]);
    if (jj >= P.M.nrows) return;
    mmx_index d = 0;
    unsigned prev = ~0u;
    auto count = [&](mmx_index i, mmx_index) {
        d += (unsigned)i != prev;
        prev = (unsigned)i;
    };
    mmx_index b = jj ? ends[jj - 1] : 0, e = ends[jj];
    visit_any(P, b, e, staged ? slots[threadIdx.x / 32] : bx, staged ? lo : 0, bx, bk, true, count);
    ndist[jj] = d;
}

/* The value of row r in face k: a = M(i,k) or b = M(j,k), for contributions that need them. */
__device__ __forceinline__ mmx_index value_of_row(const mmx_csc &M, mmx_index k, mmx_index r)
{
    mmx_index s, n;
    face_range(M, k, s, n);
    for (mmx_index y = s; y < s + n; y++)
        if (M.rowidx[y] == r) return mmx__csc_val(&M, y, s);
    return 0; /* not reached: r is in face k */
}

/* C's columns, and into *rep its properties and its first entry outside 32 bits. */
__global__ void __launch_bounds__(MMX__BLOCK, 4) emit_columns(const Prod P, const mmx_index *ends, mmx_index *bx, mmx_index *bk,
                             const mmx_index *ptr, mmx_csc C, Report *rep)
{
    __shared__ mmx_index slots[kWarps][kStage], rows[kWarps][kStage];
    __shared__ int vals[kWarps][kStage];
    const int w = threadIdx.x / 32;
    long long jj = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    int lo = INT_MAX, hi = INT_MIN, maxcol = 0, positional = 1;
    if ((jj & ~31ll) < P.M.nrows) {
        mmx_index slo, shi, olo, ohi;
        warp_range(ends, P.M.nrows, slo, shi);
        const bool staged = stage_in(bx, slo, shi, slots[w]);
        olo = ptr[jj & ~31ll];
        ohi = ptr[min((jj & ~31ll) + 32, (long long)P.M.nrows)];
        const bool out_staged = ohi - olo <= kStage;
        mmx_index *orow = out_staged ? rows[w] : C.rowidx;
        int *oval = out_staged ? vals[w] : C.val;
        const mmx_index ooff = out_staged ? olo : 0;
        if (jj < P.M.nrows) {
            const mmx_index j = (mmx_index)jj;
            const bool need_b = P.map.coll == MMX_COLL_B || P.map.coll == MMX_COLL_PRODUCT ||
                                (P.map.coll == MMX_COLL_MAP && P.map.rel.kind == MMX_REL_TABLE);
            const bool need_a = need_b || P.map.coll == MMX_COLL_A;
            const mmx_index q0 = ptr[j];
            mmx_index q = q0, cur = -1;
            int64_t acc = 0;
            bool bad = false;
            C.colptr[j] = q0;
            if (j == P.M.nrows - 1) C.colptr[j + 1] = rep->nnz = ptr[j + 1];
            auto flush = [&]() {
                if (bad || !mmx__fits_index(acc))
                    atomicMax(&rep->first_bad, mmx__product_bad_key(j, cur));
                int v = (int)acc;
                orow[q - ooff] = cur;
                oval[q - ooff] = v;
                lo = min(lo, v), hi = max(hi, v);
                positional &= v == q - q0 + 1;
                q++;
            };
            auto fold = [&](mmx_index i, mmx_index k) {
                int64_t v = 1;
                if (!P.rows) {
                    mmx_index a = need_a ? value_of_row(P.M, k, i) : 0;
                    mmx_index bv = need_b ? value_of_row(P.M, k, j) : 0;
                    v = mmx__gemm_contrib(&P.map, a, bv, k);
                }
                if (i == cur) {
                    if (!mmx__fits_index(v)) bad = true;
                    else if (!bad) mmx__gemm_fold_k_order(P.map.monoid, &acc, v);
                    return;
                }
                if (cur >= 0) flush();
                cur = i;
                acc = v;
                bad = !mmx__fits_index(v);
            };
            mmx_index b = j ? ends[j - 1] : 0, e = ends[j];
            visit_any(P, b, e, staged ? slots[w] : bx, staged ? slo : 0, bx, bk, false, fold);
            if (cur >= 0) flush();
            maxcol = q - q0;
        }
        if (out_staged) {
            __syncwarp();
            for (mmx_index t = olo + (threadIdx.x & 31); t < ohi; t += 32) {
                C.rowidx[t] = rows[w][t - olo];
                C.val[t] = vals[w][t - olo];
            }
        }
    }
    /* Reduced per warp (REDUX: one instruction each), then an atomic only where the warp
     * would change the global value as last seen: atomics on one address serialize, and
     * after the first few warps almost none is needed. A stale read only costs an atomic. */
    const unsigned all = 0xffffffffu;
    maxcol = __reduce_max_sync(all, maxcol);
    lo = __reduce_min_sync(all, lo);
    hi = __reduce_max_sync(all, hi);
    positional = __reduce_min_sync(all, positional);
    if ((threadIdx.x & 31) == 0) {
        const unsigned lokey = mmx__product_min_key(lo), hikey = mmx__product_max_key(hi);
        if (maxcol > rep->maxcol) atomicMax(&rep->maxcol, maxcol);
        if (lokey > rep->min_key) atomicMax(&rep->min_key, lokey);
        if (hikey > rep->max_key) atomicMax(&rep->max_key, hikey);
        if (!positional && !rep->not_positional) atomicOr(&rep->not_positional, 1);
    }
}

} // namespace

/* The stages, in stream order; scratch is given back as soon as the last stage that reads it
 * is queued. */
extern "C" mmx_status mmx__mesh_product_cuda(mmx_ctx *ctx, const mmx_csc *M, mmx_gemm_map map,
                                             mmx__readback *rb, mmx_csc **out,
                                             mmx__product_report **report)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const mmx_index nv = M->nrows;
    const bool cyc = map.rel.kind == MMX_REL_CYCLE || map.rel.kind == MMX_REL_CYCLE_BOTH;
    Prod P{*M, map, M->positional && cyc,
           map.coll == MMX_COLL_MAP && map.rel.kind != MMX_REL_TABLE};
    /* The 16-byte loads need an aligned rowidx (any array the library allocates is). */
    const bool aligned = ((uintptr_t)M->rowidx & 15) == 0;
    const int C = P.fast && M->order == 4 && aligned ? 4 : P.fast && M->order == 3 ? 3 : 0;
    mmx_index *cnt = nullptr, *bx = nullptr, *bk = nullptr, *ndist = nullptr;
    unsigned long long *total = nullptr;
    Report *rep = nullptr;
    mmx_csc *R = nullptr;
    mmx_status s = MMX_OK;
    long long npairs = 0;
    *out = nullptr;
    *report = nullptr;

    /* Count the pairs per column of C, into cnt[0..nv), cnt[nv] = 0 for the scan's total;
     * ndist, the distinct rows per column, shares its allocation and its zeroing (a small
     * mesh's product costs its calls more than its bytes). */
    s = mmx__dev_alloc(ctx, 2 * ((size_t)nv + 1) * sizeof *cnt, (void **)&cnt);
    if (!s) s = MMX__CUDA(ctx, cudaMemsetAsync(cnt, 0, 2 * ((size_t)nv + 1) * sizeof *cnt, st));
    if (!s) ndist = cnt + nv + 1;
    if (!s && !P.fast) {
        s = mmx__dev_alloc(ctx, sizeof *total, (void **)&total);
        if (!s) s = MMX__CUDA(ctx, cudaMemsetAsync(total, 0, sizeof *total, st));
    }
    if (s) goto done;
    if (M->ncols > 0 && M->nnz > 0) {
        /* A thread per face for reduced triangles and quads, else per corner. */
        unsigned g = mmx__grid(C ? M->ncols : M->nnz);
        if (C == 4) count_pairs<4><<<g, MMX__BLOCK, 0, st>>>(P, cnt, total);
        else if (C == 3) count_pairs<3><<<g, MMX__BLOCK, 0, st>>>(P, cnt, total);
        else count_pairs<0><<<g, MMX__BLOCK, 0, st>>>(P, cnt, total);
        s = mmx__cuda(ctx, cudaGetLastError(), "count_pairs launch");
    }
    if (!s) s = mmx__scan_exclusive(ctx, cnt, (int64_t)nv + 1, cnt);
    if (s) goto done;
    if (P.fast) {
        /* 1 or 2 partners per entry: room for the upper bound, no wait. */
        npairs = (long long)M->nnz * (map.rel.kind == MMX_REL_CYCLE_BOTH ? 2 : 1);
    } else {
        unsigned long long h = 0;
        s = MMX__CUDA(ctx, cudaMemcpyAsync(&h, total, sizeof h, cudaMemcpyDeviceToHost, st));
        if (!s) s = mmx__stream_sync(ctx); /* kept: the bucket's size */
        if (s) goto done;
        npairs = (long long)h;
    }
    if (npairs > MMX_INDEX_MAX) {
        /* The fast bound can pass 2^31 while the true count does not: ask for the true one. */
        mmx_index last = 0;
        if (P.fast) {
            s = MMX__CUDA(ctx, cudaMemcpyAsync(&last, cnt + nv, sizeof last, cudaMemcpyDeviceToHost, st));
            if (!s) s = mmx__stream_sync(ctx); /* kept: the true size */
            if (s) goto done;
            /* With at most 2 partners per entry the true total is below 2^32: a scan that
             * wrapped shows as a negative int. */
            npairs = last < 0 ? (long long)(unsigned)last : last;
        }
        if (npairs > MMX_INDEX_MAX) {
            s = mmx__fail(ctx, MMX_ERR_OVERFLOW, "mmx_mesh_product: %lld collisions exceed 2^31 - 1",
                          npairs);
            goto done;
        }
    }

    /* Fill: cnt becomes each column's end. bk (the faces, for a general M whose map needs
     * them) follows bx in one allocation. */
    s = mmx__dev_alloc(ctx, (size_t)npairs * sizeof *bx * (!M->order && !P.rows ? 2 : 1), (void **)&bx);
    if (s) goto done;
    if (!M->order && !P.rows && bx) bk = bx + npairs;
    if (M->ncols > 0 && M->nnz > 0) {
        unsigned g = mmx__grid(C ? M->ncols : M->nnz);
        if (C == 4) fill_pairs<4><<<g, MMX__BLOCK, 0, st>>>(P, cnt, bx, bk);
        else if (C == 3) fill_pairs<3><<<g, MMX__BLOCK, 0, st>>>(P, cnt, bx, bk);
        else fill_pairs<0><<<g, MMX__BLOCK, 0, st>>>(P, cnt, bx, bk);
        s = mmx__cuda(ctx, cudaGetLastError(), "fill_pairs launch");
        if (s) goto done;
    }

    /* Distinct rows per column, scanned into C's column pointers. C has room for every pair
     * (nnz(C) <= npairs), so it is allocated without waiting for its true size, which comes
     * back with the report. */
    if (nv > 0) {
        count_distinct<<<mmx__grid(nv), MMX__BLOCK, 0, st>>>(P, cnt, bx, bk, ndist);
        s = mmx__cuda(ctx, cudaGetLastError(), "count_distinct launch");
    }
    if (!s) s = mmx__scan_exclusive(ctx, ndist, (int64_t)nv + 1, ndist);
    if (!s) s = mmx__csc_alloc(ctx, MMX_SPACE_DEVICE, nv, nv, (mmx_index)npairs, 0, &R);
    if (!s) s = mmx__readback_slot(rb, sizeof *rep, (void **)&rep);
    if (!s && nv == 0) s = MMX__CUDA(ctx, cudaMemsetAsync(R->colptr, 0, sizeof *R->colptr, st));
    if (!s && nv > 0) {
        emit_columns<<<mmx__grid(nv), MMX__BLOCK, 0, st>>>(P, cnt, bx, bk, ndist, *R, rep);
        s = mmx__cuda(ctx, cudaGetLastError(), "emit_columns launch");
    }

done:
    mmx__dev_free(ctx, cnt); /* and ndist */
    mmx__dev_free(ctx, bx);  /* and bk */
    mmx__dev_free(ctx, total);
    if (s) {
        /* Scratch and R go back in stream order, after the queued work that reads them. */
        mmx_csc_free(R);
        return s;
    }
    *out = R;
    *report = rep;
    return MMX_OK;
}
