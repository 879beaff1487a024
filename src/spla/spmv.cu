/* Mapped SpMV on the device (host statement and argument checks: spmv.c).
 *
 * op = T gathers: y[j] = alpha * sum over column j of m * x[i] + beta * y[j]. Each output item
 * is computed by one thread (or one group of lanes), so there are no atomics and the result is
 * deterministic. The kernels are templates over the map kind MK (constant maps touch no table,
 * the stored values are read only by the kinds that use them), the component count K and the
 * matrix form ORD:
 *   ORD = 0   general CSC, a loop over colptr[j] .. colptr[j+1];
 *   ORD = 3   reduced triangles, three row indices per column;
 *   ORD = 4   reduced quads, the column's four row indices in one 16-byte int4 load (thesis 5.3);
 *   ORD = -1  reduced, any other order (a loop of A.order).
 * MMX_MAP_BY_ENTRY reads table[e] for the entry's storage index e, which every form knows
 * without a load (colptr's p, or order * j + p); the other kinds never compute e.
 * A second op = T kernel for reduced quads follows thesis 5.3 more literally: one thread per
 * corner (4 lanes per face), the partial products combined with __shfl_xor_sync (no atomics)
 * and component q of the face written by the lane of corner q, so a warp's stores cover one
 * contiguous stretch of y. On an H200 it is slower than one thread per column on tidy meshes
 * (the int4 load already gives one request per face, and it runs four times the threads) and
 * level with it on shuffled ones, so AUTO is the thread-per-column kernel.
 *
 * op = N is computed as a gather too, one thread per row, over A's row view (rows.cu: the
 * entries of each row in ascending column order, built by a sort on the first op = N call on
 * A and kept with it, rows.c): each row's sum starts from beta * y[i] and adds its terms in
 * the order, and with the roundings, of the host's column-by-column scatter, so y is the
 * host's bit for bit and the same on every run. No atomics (the scatter with float atomics it
 * replaces rounded each row's sum in whatever order the additions landed).
 *
 * Every launch is a grid-stride loop over 64-bit item numbers, so ncols up to 2^31 - 1 (times
 * four corners, or times k components) never overflows an index or the grid size. Nothing is
 * read back: the launcher only queues the kernels on the context's stream and returns (launch
 * errors are reported; a fault inside a kernel shows at the next call that synchronises).
 * Nothing is allocated but the row view, on the first op = N call on a matrix (on every call
 * for a matrix that cannot keep it: a hand-made view, or one made by another context).
 * Block size and grid: core/launch.cuh. */
#include <climits>
#include <cstdint>
#include "core/launch.cuh"
#include "spla_internal.h"

namespace {

constexpr unsigned FULL = 0xffffffffu;

/* The map as the kernels see it: its constant and its table (device memory). */
struct DevMap {
    float c;
    const float *table;
};

/* Whether a map kind reads the stored value v (the others never touch A.val). */
template <int MK> struct uses_value {
    static constexpr bool value =
        MK == MMX_MAP_VALUE || MK == MMX_MAP_BY_VALUE || MK == MMX_MAP_BY_ORDER_VALUE;
};

/* m(i, j, v) for entry e (its index in A's storage) of column j with c entries (spla.h). The
 * kinds that do not use e, i, j, c or v leave them dead, so the compiler drops whatever
 * computed them: BY_ENTRY costs the other kinds nothing. */
template <int MK>
__device__ __forceinline__ float map_value(const DevMap &m, mmx_index i, long long j, mmx_index c,
                                           mmx_index v, long long e)
{
    if constexpr (MK == MMX_MAP_VALUE) return (float)v;
    else if constexpr (MK == MMX_MAP_CONST) return m.c;
    else if constexpr (MK == MMX_MAP_BY_VALUE) return __ldg(m.table + (v - 1));
    else if constexpr (MK == MMX_MAP_BY_ROW) return __ldg(m.table + i);
    else if constexpr (MK == MMX_MAP_BY_COL) return __ldg(m.table + j);
    else if constexpr (MK == MMX_MAP_BY_ORDER) return __ldg(m.table + c);
    else if constexpr (MK == MMX_MAP_BY_ENTRY) return __ldg(m.table + e);
    else return __ldg(m.table + ((long long)c * (c - 1) / 2 + v - 1));
}

/* The K floats of item i of a row-major array; vec says the array is aligned for one float2 /
 * float4 load per item (k = 2 / 4). k = 3 items are 12 bytes apart: three scalar loads, which
 * fall in one or two 32-byte sectors. */
template <int K>
__device__ __forceinline__ void load_item(const float *__restrict__ x, long long i, bool vec, float (&v)[K])
{
    if constexpr (K == 4) {
        if (vec) {
            float4 t = __ldg(reinterpret_cast<const float4 *>(x) + i);
            v[0] = t.x, v[1] = t.y, v[2] = t.z, v[3] = t.w;
            return;
        }
    } else if constexpr (K == 2) {
        if (vec) {
            float2 t = __ldg(reinterpret_cast<const float2 *>(x) + i);
            v[0] = t.x, v[1] = t.y;
            return;
        }
    }
#pragma unroll
    for (int q = 0; q < K; q++) v[q] = __ldg(x + i * K + q);
}

/* acc += m(i, j, v) * x[i] for entry e */
template <int MK, int K>
__device__ __forceinline__ void gather_term(const DevMap &m, const float *__restrict__ x, bool xvec,
                                            mmx_index i, long long j, mmx_index c, mmx_index v,
                                            long long e, float (&acc)[K])
{
    float mv = map_value<MK>(m, i, j, c, v, e);
    float xv[K];
    load_item<K>(x, i, xvec, xv);
#pragma unroll
    for (int q = 0; q < K; q++) acc[q] = fmaf(mv, xv[q], acc[q]);
}

/* Calls f(i, c, v, e) for each entry of column j in entry order (row i, column length c, stored
 * value v, the entry's index e in A's storage; v is only read from memory when the map kind
 * uses it, and e only computed into something when it does). The reduced forms need no
 * column pointer; a reduced quad's rows come in one 16-byte load (the launchers check that
 * rowidx is 16-byte aligned). */
template <int MK, int ORD, class F>
__device__ __forceinline__ void for_each_entry(const mmx_csc &A, long long j, F f)
{
    if constexpr (ORD == 4) {
        int4 r = __ldg(reinterpret_cast<const int4 *>(A.rowidx) + j);
        const long long e = 4 * j;
        f(r.x, 4, 1, e);
        f(r.y, 4, 2, e + 1);
        f(r.z, 4, 3, e + 2);
        f(r.w, 4, 4, e + 3);
    } else if constexpr (ORD == 3) {
        const long long e = 3 * j;
        const mmx_index *r = A.rowidx + e;
        mmx_index r0 = __ldg(r), r1 = __ldg(r + 1), r2 = __ldg(r + 2);
        f(r0, 3, 1, e);
        f(r1, 3, 2, e + 1);
        f(r2, 3, 3, e + 2);
    } else if constexpr (ORD == -1) {
        const mmx_index c = A.order;
        const long long e = (long long)c * j;
        const mmx_index *r = A.rowidx + e;
        for (mmx_index p = 0; p < c; p++) f(__ldg(r + p), c, p + 1, e + p);
    } else {
        const mmx_index a = __ldg(A.colptr + j), b = __ldg(A.colptr + j + 1);
        for (mmx_index p = a; p < b; p++)
            f(__ldg(A.rowidx + p), b - a, uses_value<MK>::value ? __ldg(A.val + p) : 0, (long long)p);
    }
}

/* acc = sum over column j's entries, in entry order, of m * x[i]. */
template <int MK, int K, int ORD>
__device__ __forceinline__ void gather_column(const mmx_csc &A, const DevMap &m,
                                              const float *__restrict__ x, bool xvec, long long j,
                                              float (&acc)[K])
{
    for_each_entry<MK, ORD>(A, j, [&](mmx_index i, mmx_index c, mmx_index v, long long e) {
        gather_term<MK, K>(m, x, xvec, i, j, c, v, e, acc);
    });
}

/* alpha * s + beta * y, where beta = 0 never reads y (NaN there must not survive). */
__device__ __forceinline__ float finish(float alpha, float s, float beta, const float *yp)
{
    return beta == 0.0f ? alpha * s : fmaf(beta, *yp, alpha * s);
}

/* op = T, one thread per column. A block works on tiles of MMX__BLOCK consecutive columns; for k > 1
 * its results go through shared memory so that the stores of y (and the reads of the old y
 * when beta != 0) are contiguous per warp instead of k-strided. */
template <int MK, int K, int ORD>
__global__ void __launch_bounds__(MMX__BLOCK)
spmv_t_column(const mmx_csc A, const DevMap m, const float *__restrict__ x, bool xvec, float alpha,
              float beta, float *__restrict__ y)
{
    __shared__ float stage[MMX__BLOCK * K];
    const long long ncols = A.ncols;
    const long long ntiles = (ncols + MMX__BLOCK - 1) / MMX__BLOCK;
    for (long long tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {
        const long long j = tile * MMX__BLOCK + threadIdx.x;
        float acc[K];
#pragma unroll
        for (int q = 0; q < K; q++) acc[q] = 0.0f;
        if (j < ncols) gather_column<MK, K, ORD>(A, m, x, xvec, j, acc);
        if constexpr (K == 1) {
            if (j < ncols) y[j] = finish(alpha, acc[0], beta, y + j);
        } else {
            __syncthreads(); /* the previous tile's readers are done with stage */
#pragma unroll
            for (int q = 0; q < K; q++) stage[threadIdx.x * K + q] = acc[q];
            __syncthreads();
            const long long base = tile * MMX__BLOCK * K;
            const long long n = min((long long)MMX__BLOCK * K, ncols * K - base);
            for (int t = threadIdx.x; t < n; t += MMX__BLOCK) y[base + t] = finish(alpha, stage[t], beta, y + base + t);
        }
    }
}

/* The face's total of component `corner`, from the four lanes' partial products (lanes 4f ..
 * 4f + 3 of a warp hold face f's corners). k <= 2: a butterfly sum of each component (2k
 * shuffles). k >= 3: a reduce-scatter in 3 shuffles: over lane bit 1 the pairs swap halves
 * (lanes 0, 1 keep components 0, 1; lanes 2, 3 keep 2, 3), then over lane bit 0 the single
 * components, so lane c ends with component c. Either way each component is summed as
 * (c0 + c1) + (c2 + c3) or (c0 + c2) + (c1 + c3): deterministic, though not the host's order. */
template <int K>
__device__ __forceinline__ float combine_corners(const float (&acc)[K], int corner)
{
    if constexpr (K <= 2) {
        float v[K];
#pragma unroll
        for (int q = 0; q < K; q++) {
            v[q] = acc[q] + __shfl_xor_sync(FULL, acc[q], 1);
            v[q] += __shfl_xor_sync(FULL, v[q], 2);
        }
        return K == 1 || corner == 0 ? v[0] : v[K - 1];
    } else {
        const float a3 = K == 4 ? acc[K - 1] : 0.0f;
        const bool hi = corner & 2, odd = corner & 1;
        float keep0 = hi ? acc[2] : acc[0], keep1 = hi ? a3 : acc[1];
        const float send0 = hi ? acc[0] : acc[2], send1 = hi ? acc[1] : a3;
        keep0 += __shfl_xor_sync(FULL, send0, 2);
        keep1 += __shfl_xor_sync(FULL, send1, 2);
        const float mine = odd ? keep1 : keep0, send = odd ? keep0 : keep1;
        return mine + __shfl_xor_sync(FULL, send, 1);
    }
}

/* op = T on reduced quads, one thread per corner (thesis 5.3). The loop bound is uniform over
 * the block, so every lane reaches the shuffles; lanes past the end contribute zeros. */
template <int MK, int K>
__global__ void __launch_bounds__(MMX__BLOCK)
spmv_t_quad_shuffle(const mmx_csc A, const DevMap m, const float *__restrict__ x, bool xvec,
                    float alpha, float beta, float *__restrict__ y)
{
    const long long total = 4LL * A.ncols;
    const long long ntiles = (total + MMX__BLOCK - 1) / MMX__BLOCK;
    for (long long tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {
        const long long t = tile * MMX__BLOCK + threadIdx.x;
        const bool live = t < total;
        const long long j = t >> 2;
        const int corner = (int)(t & 3);
        float acc[K];
#pragma unroll
        for (int q = 0; q < K; q++) acc[q] = 0.0f;
        if (live) {
            /* Consecutive lanes read consecutive row indices: one 128-byte line per warp. */
            const mmx_index i = __ldg(A.rowidx + t);
            const float mv = map_value<MK>(m, i, j, 4, corner + 1, t);
            float xv[K];
            load_item<K>(x, i, xvec, xv);
#pragma unroll
            for (int q = 0; q < K; q++) acc[q] = mv * xv[q];
        }
        const float s = combine_corners<K>(acc, corner);
        if (live && corner < K) {
            const long long o = j * K + corner;
            y[o] = finish(alpha, s, beta, y + o);
        }
    }
}

/* y = beta * y, or zeros when beta = 0. */
__global__ void __launch_bounds__(MMX__BLOCK) spmv_scale(float *__restrict__ y, long long n, float beta)
{
    for (long long t = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x; t < n; t += (long long)gridDim.x * MMX__BLOCK)
        y[t] = beta == 0.0f ? 0.0f : beta * y[t];
}

/* The column of view entry t, whose storage index is e: implied by e in the reduced forms
 * (a shift or a multiplication for orders 4 and 3), read from the view's col otherwise. */
template <int ORD>
__device__ __forceinline__ long long row_entry_col(const mmx_csc &A, const mmx_index *__restrict__ col,
                                                   mmx_index t, mmx_index e)
{
    if constexpr (ORD == 4) return e >> 2;
    else if constexpr (ORD == 3) return e / 3;
    else if constexpr (ORD == -1) return e / A.order;
    else return __ldg(col + t);
}

/* op = N, one thread per row i (the row view of A, rows.cu): acc = beta * y[i] (0 when beta
 * = 0), then acc += m * (alpha * x[j]) for the row's entries in ascending column order, each
 * product and sum rounded on its own (__fmul_rn / __fadd_rn, which the compiler never fuses
 * into an fma): the host's scatter (spmv.c) adds the same terms to y[i] in the same order with
 * the same roundings, so the two agree bit for bit. As in spmv_t_column, a block works on a
 * tile of MMX__BLOCK rows and, for k > 1, reads and writes the tile's y through shared memory
 * so that a warp's loads and stores are contiguous. */
template <int MK, int K, int ORD>
__global__ void __launch_bounds__(MMX__BLOCK)
spmv_n_row(const mmx_csc A, const DevMap m, const mmx_index *__restrict__ rowptr,
           const mmx_index *__restrict__ entry, const mmx_index *__restrict__ col,
           const float *__restrict__ x, bool xvec, float alpha, float beta, float *__restrict__ y)
{
    __shared__ float stage[MMX__BLOCK * K];
    const long long nrows = A.nrows;
    const long long ntiles = (nrows + MMX__BLOCK - 1) / MMX__BLOCK;
    for (long long tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {
        const long long i = tile * MMX__BLOCK + threadIdx.x;
        const long long base = tile * MMX__BLOCK * K;
        const long long n = min((long long)MMX__BLOCK * K, nrows * K - base);
        float acc[K];
        if constexpr (K == 1) {
            acc[0] = beta == 0.0f || i >= nrows ? 0.0f : __fmul_rn(beta, y[i]);
        } else {
            __syncthreads(); /* the previous tile's writers are done with stage */
            for (int t = threadIdx.x; t < n; t += MMX__BLOCK)
                stage[t] = beta == 0.0f ? 0.0f : __fmul_rn(beta, y[base + t]);
            __syncthreads();
#pragma unroll
            for (int q = 0; q < K; q++) acc[q] = stage[threadIdx.x * K + q];
        }
        if (i < nrows) {
            const mmx_index a = __ldg(rowptr + i), b = __ldg(rowptr + i + 1);
            for (mmx_index t = a; t < b; t++) {
                const mmx_index e = __ldg(entry + t);
                const long long j = row_entry_col<ORD>(A, col, t, e);
                mmx_index c, v;
                if constexpr (ORD != 0) {
                    c = ORD > 0 ? ORD : A.order;
                    v = (mmx_index)(e - c * j + 1);
                } else {
                    /* Read only by the kinds that use them (dead code for the others). */
                    c = __ldg(A.colptr + j + 1) - __ldg(A.colptr + j);
                    v = uses_value<MK>::value ? __ldg(A.val + e) : 0;
                }
                const float mv = map_value<MK>(m, (mmx_index)i, j, c, v, e);
                float xv[K];
                load_item<K>(x, j, xvec, xv);
#pragma unroll
                for (int q = 0; q < K; q++) acc[q] = __fadd_rn(acc[q], __fmul_rn(mv, __fmul_rn(alpha, xv[q])));
            }
        }
        if constexpr (K == 1) {
            if (i < nrows) y[i] = acc[0];
        } else {
#pragma unroll
            for (int q = 0; q < K; q++) stage[threadIdx.x * K + q] = acc[q];
            __syncthreads();
            for (int t = threadIdx.x; t < n; t += MMX__BLOCK) y[base + t] = stage[t];
        }
    }
}

/* Everything a launch needs, decided on the host. */
struct Launch {
    const mmx_csc *A;
    DevMap m;
    const float *x;
    float *y;
    bool xvec;
    float alpha, beta;
    mmx__csc_rows rows;    /* A's row view (op = N) */
    int ord;               /* the kernel form: 0, 3, 4 or -1 */
    cudaStream_t st;
};

/* The three kernel families as launch functors, so that one dispatcher turns the run-time
 * (map kind, k) into template arguments for each. */
struct TColumn {
    template <int MK, int K> void run(const Launch &L) const
    {
        const unsigned g = mmx__grid(L.A->ncols);
        switch (L.ord) {
        case 4: spmv_t_column<MK, K, 4><<<g, MMX__BLOCK, 0, L.st>>>(*L.A, L.m, L.x, L.xvec, L.alpha, L.beta, L.y); break;
        case 3: spmv_t_column<MK, K, 3><<<g, MMX__BLOCK, 0, L.st>>>(*L.A, L.m, L.x, L.xvec, L.alpha, L.beta, L.y); break;
        case -1: spmv_t_column<MK, K, -1><<<g, MMX__BLOCK, 0, L.st>>>(*L.A, L.m, L.x, L.xvec, L.alpha, L.beta, L.y); break;
        default: spmv_t_column<MK, K, 0><<<g, MMX__BLOCK, 0, L.st>>>(*L.A, L.m, L.x, L.xvec, L.alpha, L.beta, L.y); break;
        }
    }
};

struct TShuffle {
    template <int MK, int K> void run(const Launch &L) const
    {
        spmv_t_quad_shuffle<MK, K><<<mmx__grid(4LL * L.A->ncols), MMX__BLOCK, 0, L.st>>>(
            *L.A, L.m, L.x, L.xvec, L.alpha, L.beta, L.y);
    }
};

struct NRow {
    template <int MK, int K> void run(const Launch &L) const
    {
        const unsigned g = mmx__grid(L.A->nrows);
        const mmx__csc_rows &r = L.rows;
        switch (L.ord) {
        case 4: spmv_n_row<MK, K, 4><<<g, MMX__BLOCK, 0, L.st>>>(*L.A, L.m, r.rowptr, r.entry, r.col, L.x, L.xvec, L.alpha, L.beta, L.y); break;
        case 3: spmv_n_row<MK, K, 3><<<g, MMX__BLOCK, 0, L.st>>>(*L.A, L.m, r.rowptr, r.entry, r.col, L.x, L.xvec, L.alpha, L.beta, L.y); break;
        case -1: spmv_n_row<MK, K, -1><<<g, MMX__BLOCK, 0, L.st>>>(*L.A, L.m, r.rowptr, r.entry, r.col, L.x, L.xvec, L.alpha, L.beta, L.y); break;
        default: spmv_n_row<MK, K, 0><<<g, MMX__BLOCK, 0, L.st>>>(*L.A, L.m, r.rowptr, r.entry, r.col, L.x, L.xvec, L.alpha, L.beta, L.y); break;
        }
    }
};

template <int MK, class F> void dispatch_k(const F &f, int k, const Launch &L)
{
    switch (k) {
    case 1: f.template run<MK, 1>(L); break;
    case 2: f.template run<MK, 2>(L); break;
    case 3: f.template run<MK, 3>(L); break;
    default: f.template run<MK, 4>(L); break;
    }
}

template <class F> void dispatch(const F &f, mmx_map_kind kind, int k, const Launch &L)
{
    switch (kind) {
    case MMX_MAP_VALUE: dispatch_k<MMX_MAP_VALUE>(f, k, L); break;
    case MMX_MAP_CONST: dispatch_k<MMX_MAP_CONST>(f, k, L); break;
    case MMX_MAP_BY_VALUE: dispatch_k<MMX_MAP_BY_VALUE>(f, k, L); break;
    case MMX_MAP_BY_ROW: dispatch_k<MMX_MAP_BY_ROW>(f, k, L); break;
    case MMX_MAP_BY_COL: dispatch_k<MMX_MAP_BY_COL>(f, k, L); break;
    case MMX_MAP_BY_ORDER: dispatch_k<MMX_MAP_BY_ORDER>(f, k, L); break;
    case MMX_MAP_BY_ENTRY: dispatch_k<MMX_MAP_BY_ENTRY>(f, k, L); break;
    default: dispatch_k<MMX_MAP_BY_ORDER_VALUE>(f, k, L); break;
    }
}

bool aligned(const void *p, uintptr_t a) { return ((uintptr_t)p & (a - 1)) == 0; }

} // namespace

extern "C" mmx_status mmx__spmv_cuda(mmx_ctx *ctx, mmx__spmv_variant v, mmx_op op, float alpha,
                                     const mmx_csc *A, mmx_map map, const float *x, int k,
                                     float beta, float *y)
{
    const long long ylen = (long long)(op == MMX_OP_T ? A->ncols : A->nrows) * k;
    if (ylen == 0) return MMX_OK;
    Launch L;
    L.A = A;
    L.m.c = map.c;
    L.m.table = map.table;
    L.x = x;
    L.y = y;
    L.xvec = (k == 4 && aligned(x, 16)) || (k == 2 && aligned(x, 8));
    L.alpha = alpha;
    L.beta = beta;
    L.st = (cudaStream_t)ctx->stream;
    /* The int4 load needs 16-byte aligned rows: true of any array from cudaMalloc(Async), but
     * a matrix assembled by hand might not be, and then the plain reduced loop runs. */
    L.ord = A->order == 0                                ? 0
            : A->order == 3                              ? 3
            : A->order == 4 && aligned(A->rowidx, 16) ? 4
                                                         : -1;
    L.rows = mmx__csc_rows{NULL, NULL, NULL};
    if (alpha == 0.0f) {
        /* y = beta * y is all of the result (x is not read); beta = 1 leaves y as it is. */
        if (beta != 1.0f) {
            spmv_scale<<<mmx__grid(ylen), MMX__BLOCK, 0, L.st>>>(y, ylen, beta);
            mmx_status s = mmx__cuda(ctx, cudaGetLastError(), "spmv_scale launch");
            if (s) return s;
        }
    } else if (op == MMX_OP_N) {
        /* The reduced forms read the column from the entry's index, so the int4 form is not
         * needed: order 4 takes the shift whatever rowidx's alignment. */
        L.ord = A->order == 0 ? 0 : A->order == 3 ? 3 : A->order == 4 ? 4 : -1;
        int temp = 0;
        mmx_status s = mmx__csc_rows_get(ctx, A, &L.rows, &temp);
        if (s) return s;
        dispatch(NRow(), map.kind, k, L);
        s = mmx__cuda(ctx, cudaGetLastError(), "spmv_n_row launch");
        if (temp) mmx__csc_rows_free(ctx, &L.rows); /* after the queued kernel that reads it */
        if (s) return s;
    } else if (v == MMX__SPMV_SHUFFLE && A->order == 4) {
        dispatch(TShuffle(), map.kind, k, L);
        mmx_status s = mmx__cuda(ctx, cudaGetLastError(), "spmv_t_quad_shuffle launch");
        if (s) return s;
    } else {
        dispatch(TColumn(), map.kind, k, L);
        mmx_status s = mmx__cuda(ctx, cudaGetLastError(), "spmv_t_column launch");
        if (s) return s;
    }
    return MMX_OK;
}
