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
 * op = N scatters: y = beta * y (zeros when beta = 0) in a first kernel, then one thread per
 * column adds m * (alpha * x[j]) into y[i] with atomicAdd (sm_90's float2 / float4 atomics
 * where y is aligned for them). The order in which a row's additions
 * land is the hardware's, so its rounding differs from the host's (column order) and from run
 * to run; the sum is the same up to float rounding.
 *
 * Every launch is a grid-stride loop over 64-bit item numbers, so ncols up to 2^31 - 1 (times
 * four corners, or times k components) never overflows an index or the grid size. Nothing is
 * allocated, and nothing is read back: the launcher only queues the kernels on the context's
 * stream and returns (launch errors are reported; a fault inside a kernel shows at the next
 * call that synchronises). Block size and grid: core/launch.cuh. */
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

/* y[i] += v (k floats) with atomics; vector atomics (sm_90) where y is aligned for them. */
template <int K>
__device__ __forceinline__ void scatter_item(float *y, long long i, bool yvec, const float (&v)[K])
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if constexpr (K == 4) {
        if (yvec) {
            atomicAdd(reinterpret_cast<float4 *>(y) + i, make_float4(v[0], v[1], v[2], v[3]));
            return;
        }
    } else if constexpr (K == 2) {
        if (yvec) {
            atomicAdd(reinterpret_cast<float2 *>(y) + i, make_float2(v[0], v[1]));
            return;
        }
    }
#else
    (void)yvec;
#endif
#pragma unroll
    for (int q = 0; q < K; q++) atomicAdd(y + i * K + q, v[q]);
}

template <int MK, int K>
__device__ __forceinline__ void scatter_term(const DevMap &m, float *y, bool yvec, mmx_index i,
                                             long long j, mmx_index c, mmx_index v, long long e,
                                             const float (&ax)[K])
{
    const float mv = map_value<MK>(m, i, j, c, v, e);
    float t[K];
#pragma unroll
    for (int q = 0; q < K; q++) t[q] = mv * ax[q];
    scatter_item<K>(y, i, yvec, t);
}

/* op = N, one thread per column: y[i] += m * (alpha * x[j]) for each entry of column j. */
template <int MK, int K, int ORD>
__global__ void __launch_bounds__(MMX__BLOCK)
spmv_n_column(const mmx_csc A, const DevMap m, const float *__restrict__ x, bool xvec, float alpha,
              float *y, bool yvec)
{
    const long long ncols = A.ncols;
    for (long long j = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x; j < ncols; j += (long long)gridDim.x * MMX__BLOCK) {
        float ax[K];
        load_item<K>(x, j, xvec, ax);
#pragma unroll
        for (int q = 0; q < K; q++) ax[q] *= alpha;
        for_each_entry<MK, ORD>(A, j, [&](mmx_index i, mmx_index c, mmx_index v, long long e) {
            scatter_term<MK, K>(m, y, yvec, i, j, c, v, e, ax);
        });
    }
}

/* Everything a launch needs, decided on the host. */
struct Launch {
    const mmx_csc *A;
    DevMap m;
    const float *x;
    float *y;
    bool xvec, yvec;
    float alpha, beta;
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

struct NColumn {
    template <int MK, int K> void run(const Launch &L) const
    {
        const unsigned g = mmx__grid(L.A->ncols);
        switch (L.ord) {
        case 4: spmv_n_column<MK, K, 4><<<g, MMX__BLOCK, 0, L.st>>>(*L.A, L.m, L.x, L.xvec, L.alpha, L.y, L.yvec); break;
        case 3: spmv_n_column<MK, K, 3><<<g, MMX__BLOCK, 0, L.st>>>(*L.A, L.m, L.x, L.xvec, L.alpha, L.y, L.yvec); break;
        case -1: spmv_n_column<MK, K, -1><<<g, MMX__BLOCK, 0, L.st>>>(*L.A, L.m, L.x, L.xvec, L.alpha, L.y, L.yvec); break;
        default: spmv_n_column<MK, K, 0><<<g, MMX__BLOCK, 0, L.st>>>(*L.A, L.m, L.x, L.xvec, L.alpha, L.y, L.yvec); break;
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
    /* (k = 3 gets no vector atomics: a float2 and a float per item measured slower on an H200
     * than three floats.) */
    L.yvec = (k == 4 && aligned(y, 16)) || (k == 2 && aligned(y, 8));
    L.alpha = alpha;
    L.beta = beta;
    L.st = (cudaStream_t)ctx->stream;
    /* The int4 load needs 16-byte aligned rows: true of any array from cudaMalloc(Async), but
     * a matrix assembled by hand might not be, and then the plain reduced loop runs. */
    L.ord = A->order == 0                                ? 0
            : A->order == 3                              ? 3
            : A->order == 4 && aligned(A->rowidx, 16) ? 4
                                                         : -1;
    if (alpha == 0.0f || op == MMX_OP_N) {
        /* y = beta * y first: all of the result when alpha = 0 (x is not read), the starting
         * point of the scatter otherwise. beta = 1 leaves y as it is. */
        if (beta != 1.0f) {
            spmv_scale<<<mmx__grid(ylen), MMX__BLOCK, 0, L.st>>>(y, ylen, beta);
            mmx_status s = mmx__cuda(ctx, cudaGetLastError(), "spmv_scale launch");
            if (s) return s;
        }
        if (alpha != 0.0f && A->ncols > 0) {
            dispatch(NColumn(), map.kind, k, L);
            mmx_status s = mmx__cuda(ctx, cudaGetLastError(), "spmv_n_column launch");
            if (s) return s;
        }
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
