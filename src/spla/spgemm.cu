/* Mapped SpGEMM on the device (host statement: spgemm.c), in two phases.
 *
 * Symbolic: one thread per entry B(k,j) counts the collisions with column k of A that the
 * relation admits; an exclusive scan of the counts gives every entry of B its slot range in
 * one array holding all counted collisions. Each collision is written there as a key
 * (j, i), packed in the fewest bits that hold the column and row numbers, and a payload (its
 * contribution; for ANY the pair (k, contribution)). A stable radix sort by key brings the
 * collisions of each C(i,j) together, in column-major order of C.
 *
 * Numeric: a reduce-by-key combines each run of equal keys with the monoid; the number of
 * runs is nnz(C), the run keys give the rows, and a binary search of them per column gives
 * colptr.
 *
 * Everything is integer, so the result does not depend on the order of the work: it is the
 * host's, entry for entry. Memory: 16 bytes per counted collision (key and payload) and as
 * much again for the sort's second buffers, which then receive the reduced runs; plus 16
 * bytes per entry of B for the counts and their scan. */
#include <climits>
#include <cub/device/device_reduce.cuh>
#include "core/cub.cuh"
#include "core/launch.cuh"
#include "spla_internal.h"

namespace {

const unsigned long long NO_OVERFLOW = ~0ull;

/* Records C(i,j) as overflowing; the smallest (j, i) wins, the one the host reports. */
__device__ void flag_overflow(unsigned long long *flag, mmx_index i, mmx_index j)
{
    atomicMin(flag, (unsigned long long)j << 32 | (unsigned)i);
}

/* Symbolic, pass 1: cnt[e] = the counted collisions of entry e of B. */
__global__ void count_collisions(const mmx_csc A, const mmx_csc B, mmx_rel rel,
                                 unsigned long long *cnt)
{
    long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (e >= B.nnz) return;
    int64_t bj0, bj1, ak0, ak1;
    mmx__csc_col(&B, mmx__csc_col_of(&B, e), &bj0, &bj1);
    mmx_index k = B.rowidx[e], b = mmx__csc_val(&B, e, bj0);
    mmx__csc_col(&A, k, &ak0, &ak1);
    mmx_index n = (mmx_index)(ak1 - ak0);
    unsigned long long c = 0;
    for (long long ea = ak0; ea < ak1; ea++)
        c += mmx__gemm_rel(&rel, mmx__csc_val(&A, ea, ak0), b, n) != 0;
    cnt[e] = c;
}

/* Symbolic, pass 2: the same walk writes the collisions of entry e from slot off[e] on.
 * Key: j << ibits | i. Payload: the contribution, or (k << 32 | contribution) for ANY, so that
 * the smaller payload of one key is the smaller k's. A contribution beyond 32 bits (a product)
 * is flagged and replaced by 0. */
__global__ void expand_collisions(const mmx_csc A, const mmx_csc B, mmx_gemm_map map,
                                  const unsigned long long *off, int ibits,
                                  unsigned long long *keys, long long *pay,
                                  unsigned long long *overflow)
{
    long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (e >= B.nnz) return;
    int64_t bj0, bj1, ak0, ak1;
    mmx_index j = mmx__csc_col_of(&B, e);
    mmx__csc_col(&B, j, &bj0, &bj1);
    mmx_index k = B.rowidx[e], b = mmx__csc_val(&B, e, bj0);
    mmx__csc_col(&A, k, &ak0, &ak1);
    mmx_index n = (mmx_index)(ak1 - ak0);
    unsigned long long t = off[e];
    for (long long ea = ak0; ea < ak1; ea++) {
        mmx_index i = A.rowidx[ea], a = mmx__csc_val(&A, ea, ak0);
        mmx_index q = mmx__gemm_rel(&map.rel, a, b, n);
        if (!q) continue;
        long long x = mmx__gemm_coll(map.coll, q, k, a, b);
        if (!mmx__fits_index(x)) {
            flag_overflow(overflow, i, j);
            x = 0;
        }
        keys[t] = (unsigned long long)j << ibits | (unsigned)i;
        pay[t] = map.monoid == MMX_MONOID_ANY ? (long long)k << 32 | (unsigned)(mmx_index)x : x;
        t++;
    }
}

/* The monoid on payloads. ANY is MIN on the (k, contribution) pairs. */
struct monoid_op {
    mmx_monoid m;
    __host__ __device__ long long operator()(const long long &x, const long long &y) const
    {
        if (m == MMX_MONOID_SUM) return x + y;
        if (m == MMX_MONOID_MAX) return x > y ? x : y;
        return x < y ? x : y;
    }
};

/* Numeric: run r of the sorted collisions becomes entry r of C. */
__global__ void write_entries(const unsigned long long *ukeys, const long long *agg,
                              mmx_index nnz, int ibits, mmx_monoid monoid, mmx_index *rowidx,
                              mmx_index *val, unsigned long long *overflow)
{
    long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (r >= nnz) return;
    unsigned long long key = ukeys[r];
    mmx_index i = (mmx_index)(key & ((1ull << ibits) - 1));
    mmx_index j = (mmx_index)(key >> ibits);
    long long v = agg[r];
    if (monoid == MMX_MONOID_ANY) v = (mmx_index)(unsigned)(v & 0xffffffffll);
    if (!mmx__fits_index(v)) {
        flag_overflow(overflow, i, j);
        v = 0;
    }
    rowidx[r] = i;
    val[r] = (mmx_index)v;
}

/* colptr[j] = the number of runs in columns before j: a binary search of the run keys for the
 * first key >= (j, 0), j in [0, p]. */
__global__ void write_colptr(const unsigned long long *ukeys, mmx_index nnz, mmx_index p,
                             int ibits, mmx_index *colptr)
{
    long long j = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (j > p) return;
    unsigned long long first = (unsigned long long)j << ibits;
    mmx_index lo = 0, hi = nnz;
    while (lo < hi) {
        mmx_index mid = lo + (hi - lo) / 2;
        if (ukeys[mid] < first) lo = mid + 1;
        else hi = mid;
    }
    colptr[j] = lo;
}

/* The device arrays of one product, freed together whatever happened. */
struct scratch {
    unsigned long long *cnt = NULL, *off = NULL, *keys[2] = {NULL, NULL}, *flag = NULL;
    long long *pay[2] = {NULL, NULL}, *nruns = NULL;
    void release(mmx_ctx *ctx)
    {
        mmx__dev_free(ctx, cnt);
        mmx__dev_free(ctx, off);
        mmx__dev_free(ctx, keys[0]);
        mmx__dev_free(ctx, keys[1]);
        mmx__dev_free(ctx, flag);
        mmx__dev_free(ctx, pay[0]);
        mmx__dev_free(ctx, pay[1]);
        mmx__dev_free(ctx, nruns);
        cnt = off = keys[0] = keys[1] = flag = NULL;
        pay[0] = pay[1] = nruns = NULL;
    }
};

/* Symbolic pass 1: counts and their exclusive scan; *total = all counted collisions, read
 * back (a size to allocate: the one wait of this pass). */
mmx_status count_and_scan(mmx_ctx *ctx, const mmx_csc *A, const mmx_csc *B, mmx_rel rel,
                          scratch &w, long long *total)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const long long nb = B->nnz;
    unsigned long long last[2] = {0, 0};
    mmx_status s = mmx__dev_alloc(ctx, (size_t)nb * sizeof *w.cnt, (void **)&w.cnt);
    if (!s) s = mmx__dev_alloc(ctx, (size_t)nb * sizeof *w.off, (void **)&w.off);
    if (!s) {
        count_collisions<<<mmx__grid(nb), MMX__BLOCK, 0, st>>>(*A, *B, rel, w.cnt);
        s = mmx__cuda(ctx, cudaGetLastError(), "count_collisions launch");
    }
    if (!s) s = mmx__scan_exclusive_u64(ctx, w.cnt, nb, w.off);
    if (!s) s = MMX__CUDA(ctx, cudaMemcpyAsync(&last[0], w.off + nb - 1, sizeof last[0], cudaMemcpyDeviceToHost, st));
    if (!s) s = MMX__CUDA(ctx, cudaMemcpyAsync(&last[1], w.cnt + nb - 1, sizeof last[1], cudaMemcpyDeviceToHost, st));
    if (!s) s = mmx__stream_sync(ctx);
    mmx__dev_free(ctx, w.cnt);
    w.cnt = NULL;
    if (!s && last[0] + last[1] > (unsigned long long)LLONG_MAX / 64)
        s = mmx__fail(ctx, MMX_ERR_OVERFLOW, "mmx_spgemm: %llu collisions", last[0] + last[1]);
    *total = (long long)(last[0] + last[1]);
    return s;
}

/* Refuses scratch that no device could hold before trying to allocate it. */
mmx_status check_scratch(mmx_ctx *ctx, long long total, unsigned per_collision)
{
    size_t free_b = 0, total_b = 0;
    mmx_status s = mmx__dev_mem_info(ctx, &free_b, &total_b);
    if (s) return s;
    unsigned long long need = (unsigned long long)total * per_collision;
    if (need > total_b)
        return mmx__fail(ctx, MMX_ERR_OVERFLOW,
                         "mmx_spgemm: %lld counted collisions need %llu bytes of device scratch, "
                         "more than the device's %zu", total, need, total_b);
    return MMX_OK;
}

/* Symbolic pass 2 and numeric: expand, sort, reduce, write C. */
mmx_status expand_sort_reduce(mmx_ctx *ctx, const mmx_csc *A, const mmx_csc *B,
                              mmx_gemm_map map, long long total, scratch &w, mmx_csc **out)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const int ibits = mmx__bits_for(A->nrows > 0 ? A->nrows - 1 : 0);
    const int jbits = mmx__bits_for(B->ncols > 0 ? B->ncols - 1 : 0);
    const int end_bit = ibits + jbits > 0 ? ibits + jbits : 1;
    const size_t n = (size_t)total;
    long long nruns = 0;
    unsigned long long flag = NO_OVERFLOW;
    mmx_csc *C = NULL;
    monoid_op op = {map.monoid};
    mmx_status s = mmx__dev_alloc(ctx, n * sizeof(unsigned long long), (void **)&w.keys[0]);
    if (!s) s = mmx__dev_alloc(ctx, n * sizeof(unsigned long long), (void **)&w.keys[1]);
    if (!s) s = mmx__dev_alloc(ctx, n * sizeof(long long), (void **)&w.pay[0]);
    if (!s) s = mmx__dev_alloc(ctx, n * sizeof(long long), (void **)&w.pay[1]);
    if (!s) s = mmx__dev_alloc(ctx, sizeof *w.flag, (void **)&w.flag);
    if (!s) s = mmx__dev_alloc(ctx, sizeof *w.nruns, (void **)&w.nruns);
    if (!s) s = MMX__CUDA(ctx, cudaMemcpyAsync(w.flag, &flag, sizeof flag, cudaMemcpyHostToDevice, st));
    if (!s) {
        expand_collisions<<<mmx__grid(B->nnz), MMX__BLOCK, 0, st>>>(*A, *B, map, w.off, ibits,
                                                                   w.keys[0], w.pay[0], w.flag);
        s = mmx__cuda(ctx, cudaGetLastError(), "expand_collisions launch");
    }
    int cur = 0;
    if (!s) s = mmx__sort_pairs(ctx, w.keys, w.pay, total, end_bit, &cur);
    /* The sort's idle buffers receive the runs. */
    const unsigned long long *sorted_keys = w.keys[cur];
    const long long *sorted_pay = w.pay[cur];
    unsigned long long *ukeys = w.keys[1 - cur];
    long long *agg = w.pay[1 - cur];
    if (!s) s = mmx__cub_run(ctx, "cub::DeviceReduce::ReduceByKey", [&](void *tmp, size_t &bytes) {
        return cub::DeviceReduce::ReduceByKey(tmp, bytes, sorted_keys, ukeys, sorted_pay, agg,
                                              w.nruns, op, total, st);
    });
    if (!s) s = MMX__CUDA(ctx, cudaMemcpyAsync(&nruns, w.nruns, sizeof nruns, cudaMemcpyDeviceToHost, st));
    if (!s) s = mmx__stream_sync(ctx); /* kept: nnz(C), a size to allocate */
    if (!s && nruns > MMX_INDEX_MAX)
        s = mmx__fail(ctx, MMX_ERR_OVERFLOW, "mmx_spgemm: C would have %lld entries, more than %d",
                      nruns, MMX_INDEX_MAX);
    if (!s) s = mmx__csc_alloc(ctx, MMX_SPACE_DEVICE, A->nrows, B->ncols, (mmx_index)nruns, 0, &C);
    if (!s) {
        write_entries<<<mmx__grid(nruns), MMX__BLOCK, 0, st>>>(ukeys, agg, (mmx_index)nruns, ibits,
                                                              map.monoid, C->rowidx, C->val, w.flag);
        write_colptr<<<mmx__grid((long long)B->ncols + 1), MMX__BLOCK, 0, st>>>(
            ukeys, (mmx_index)nruns, B->ncols, ibits, C->colptr);
        s = mmx__cuda(ctx, cudaGetLastError(), "write_entries launch");
    }
    if (!s) s = MMX__CUDA(ctx, cudaMemcpyAsync(&flag, w.flag, sizeof flag, cudaMemcpyDeviceToHost, st));
    if (!s) s = mmx__stream_sync(ctx); /* kept: the overflow, a fault */
    if (!s && flag != NO_OVERFLOW) s = mmx__spgemm_overflow(ctx, (mmx_index)(flag & 0xffffffffu), (mmx_index)(flag >> 32));
    if (s) {
        mmx_csc_free(C);
        return s;
    }
    *out = C;
    return MMX_OK;
}


/* ---- valued SpGEMM (spla.h, mmx_spgemm_valued) ---------------------------------------------- */

/* Symbolic pass 2 of a valued product: count_collisions' walk again, each counted collision
 * written as its key (j, i) and its float contribution (the payload's low 32 bits), in B's
 * storage order, then A's: the order the stable sort keeps within one key. */
__global__ void expand_valued(const mmx_csc A, const mmx_csc B, mmx_vgemm_map map,
                              const unsigned long long *off, int ibits,
                              unsigned long long *keys, long long *pay)
{
    long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (e >= B.nnz) return;
    int64_t bj0, bj1, ak0, ak1;
    mmx_index j = mmx__csc_col_of(&B, e);
    mmx__csc_col(&B, j, &bj0, &bj1);
    mmx_index k = B.rowidx[e], b = mmx__csc_val(&B, e, bj0);
    const float mb = mmx__map_value(&map.bmap, k, j, (mmx_index)(bj1 - bj0), b, e);
    mmx__csc_col(&A, k, &ak0, &ak1);
    mmx_index n = (mmx_index)(ak1 - ak0);
    unsigned long long t = off[e];
    for (long long ea = ak0; ea < ak1; ea++) {
        mmx_index i = A.rowidx[ea], a = mmx__csc_val(&A, ea, ak0);
        if (!mmx__gemm_rel(&map.rel, a, b, n)) continue;
        const float ma = mmx__map_value(&map.amap, i, k, n, a, ea);
        keys[t] = (unsigned long long)j << ibits | (unsigned)i;
        pay[t] = (long long)__float_as_uint(mmx__vgemm_contrib(&map, ma, mb, a, b, n));
        t++;
    }
}

/* head[t] = 1 where a run of equal keys starts. */
__global__ void run_heads(const unsigned long long *keys, long long n, unsigned long long *head)
{
    long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (t >= n) return;
    head[t] = t == 0 || keys[t] != keys[t - 1];
}

/* The thread at a run's head folds the run in its (sorted, stable) order into entry r of C:
 * the host's order, contribution for contribution. */
__global__ void fold_runs(const unsigned long long *keys, const long long *pay,
                          const unsigned long long *head, const unsigned long long *run,
                          long long n, int ibits, mmx_monoid monoid, unsigned long long *ukeys,
                          mmx_index *rowidx, float *x)
{
    long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (t >= n || !head[t]) return;
    const unsigned long long key = keys[t];
    float acc = 0.0f;
    for (long long u = t; u < n && keys[u] == key; u++)
        acc = mmx__vgemm_fold(monoid, acc, __uint_as_float((unsigned)pay[u]), u == t);
    const long long r = (long long)run[t];
    ukeys[r] = key;
    rowidx[r] = (mmx_index)(key & ((1ull << ibits) - 1));
    x[r] = acc;
}

/* The masked product: one thread per entry of C (the mask's pattern). */
__global__ void masked_entries(const mmx_csc A, const mmx_csc B, mmx_vgemm_map map,
                               const mmx_csc C)
{
    long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (e >= C.nnz) return;
    C.x[e] = mmx__vgemm_masked_entry(&A, &B, &map, C.rowidx[e], mmx__csc_col_of(&C, e));
}

/* Expand, sort, find the runs, fold each: C's rows, floats and colptr. */
mmx_status valued_sort_fold(mmx_ctx *ctx, const mmx_csc *A, const mmx_csc *B,
                            const mmx_vgemm_map &map, long long total, scratch &w, mmx_csc **out)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const int ibits = mmx__bits_for(A->nrows > 0 ? A->nrows - 1 : 0);
    const int jbits = mmx__bits_for(B->ncols > 0 ? B->ncols - 1 : 0);
    const int end_bit = ibits + jbits > 0 ? ibits + jbits : 1;
    const size_t n = (size_t)total;
    unsigned long long last[2] = {0, 0};
    mmx_csc *C = NULL;
    mmx_status s = mmx__dev_alloc(ctx, n * sizeof(unsigned long long), (void **)&w.keys[0]);
    if (!s) s = mmx__dev_alloc(ctx, n * sizeof(unsigned long long), (void **)&w.keys[1]);
    if (!s) s = mmx__dev_alloc(ctx, n * sizeof(long long), (void **)&w.pay[0]);
    if (!s) s = mmx__dev_alloc(ctx, n * sizeof(long long), (void **)&w.pay[1]);
    if (!s) s = mmx__dev_alloc(ctx, n * sizeof(unsigned long long), (void **)&w.cnt);
    if (!s) {
        expand_valued<<<mmx__grid(B->nnz), MMX__BLOCK, 0, st>>>(*A, *B, map, w.off, ibits,
                                                               w.keys[0], w.pay[0]);
        s = mmx__cuda(ctx, cudaGetLastError(), "expand_valued launch");
    }
    int cur = 0;
    if (!s) s = mmx__sort_pairs(ctx, w.keys, w.pay, total, end_bit, &cur);
    const unsigned long long *sorted_keys = w.keys[cur];
    const long long *sorted_pay = w.pay[cur];
    /* The entry offsets' array (w.off, one per entry of B) is done with: the run numbers go
     * to the sort's idle payload buffer, reinterpreted, which has one slot per collision. */
    unsigned long long *run = (unsigned long long *)w.pay[1 - cur];
    if (!s) {
        run_heads<<<mmx__grid(total), MMX__BLOCK, 0, st>>>(sorted_keys, total, w.cnt);
        s = mmx__cuda(ctx, cudaGetLastError(), "run_heads launch");
    }
    if (!s) s = mmx__scan_exclusive_u64(ctx, w.cnt, total, run);
    if (!s) s = MMX__CUDA(ctx, cudaMemcpyAsync(&last[0], run + total - 1, sizeof last[0], cudaMemcpyDeviceToHost, st));
    if (!s) s = MMX__CUDA(ctx, cudaMemcpyAsync(&last[1], w.cnt + total - 1, sizeof last[1], cudaMemcpyDeviceToHost, st));
    if (!s) s = mmx__stream_sync(ctx); /* kept: nnz(C), a size to allocate */
    const long long nruns = (long long)(last[0] + last[1]);
    if (!s && nruns > MMX_INDEX_MAX)
        s = mmx__fail(ctx, MMX_ERR_OVERFLOW, "mmx_spgemm_valued: C would have %lld entries, more "
                      "than %d", nruns, MMX_INDEX_MAX);
    if (!s) s = mmx__csc_alloc(ctx, MMX_SPACE_DEVICE, A->nrows, B->ncols, (mmx_index)nruns, 0, &C);
    if (!s) s = mmx__csc_alloc_x(ctx, C);
    unsigned long long *ukeys = w.keys[1 - cur];
    if (!s) {
        fold_runs<<<mmx__grid(total), MMX__BLOCK, 0, st>>>(sorted_keys, sorted_pay, w.cnt, run,
                                                          total, ibits, map.monoid, ukeys,
                                                          C->rowidx, C->x);
        write_colptr<<<mmx__grid((long long)B->ncols + 1), MMX__BLOCK, 0, st>>>(
            ukeys, (mmx_index)nruns, B->ncols, ibits, C->colptr);
        s = mmx__cuda(ctx, cudaGetLastError(), "fold_runs launch");
    }
    if (!s) s = mmx__csc_fill_positions(ctx, C);
    if (s) {
        mmx_csc_free(C);
        return s;
    }
    *out = C;
    return MMX_OK;
}

} // namespace

extern "C" mmx_status mmx__spgemm_valued_cuda(mmx_ctx *ctx, const mmx_csc *A, const mmx_csc *B,
                                              mmx_vgemm_map map, mmx_csc **out)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    scratch w;
    long long total = 0;
    mmx_csc *C = NULL;
    mmx_status s = MMX_OK;
    if (A->nnz > 0 && B->nnz > 0) s = count_and_scan(ctx, A, B, map.rel, w, &total);
    if (!s && total > 0) s = check_scratch(ctx, total, 40u); /* keys, payloads, run flags */
    if (!s && total > 0) s = valued_sort_fold(ctx, A, B, map, total, w, &C);
    if (!s && total == 0) {
        s = mmx__csc_alloc(ctx, MMX_SPACE_DEVICE, A->nrows, B->ncols, 0, 0, &C);
        if (!s) s = MMX__CUDA(ctx, cudaMemsetAsync(C->colptr, 0, ((size_t)B->ncols + 1) * sizeof(mmx_index), st));
    }
    w.release(ctx);
    if (!s) s = mmx__csc_props(ctx, C);
    if (s) {
        mmx_csc_free(C);
        return s;
    }
    *out = C;
    return MMX_OK;
}

extern "C" mmx_status mmx__spgemm_masked_cuda(mmx_ctx *ctx, const mmx_csc *A, const mmx_csc *B,
                                              mmx_vgemm_map map, mmx_csc *C)
{
    if (C->nnz == 0) return MMX_OK;
    masked_entries<<<mmx__grid(C->nnz), MMX__BLOCK, 0, (cudaStream_t)ctx->stream>>>(*A, *B, map, *C);
    return mmx__cuda(ctx, cudaGetLastError(), "masked_entries launch");
}

extern "C" mmx_status mmx__spgemm_cuda(mmx_ctx *ctx, const mmx_csc *A, const mmx_csc *B,
                                       mmx_gemm_map map, mmx_csc **out)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    scratch w;
    long long total = 0;
    mmx_csc *C = NULL;
    mmx_status s = MMX_OK;
    if (A->nnz > 0 && B->nnz > 0) s = count_and_scan(ctx, A, B, map.rel, w, &total);
    if (!s && total > 0) s = check_scratch(ctx, total, 32u); /* keys and payloads, doubled */
    if (!s && total > 0) s = expand_sort_reduce(ctx, A, B, map, total, w, &C);
    if (!s && total == 0) {
        /* No counted collision: C is all zero, of the right size. */
        s = mmx__csc_alloc(ctx, MMX_SPACE_DEVICE, A->nrows, B->ncols, 0, 0, &C);
        if (!s) s = MMX__CUDA(ctx, cudaMemsetAsync(C->colptr, 0, ((size_t)B->ncols + 1) * sizeof(mmx_index), st));
    }
    /* Scratch and, on error, C go back in stream order: no wait for queued kernels. C's
     * properties are host fields, read back by mmx__csc_props. */
    w.release(ctx);
    if (!s) s = mmx__csc_props(ctx, C);
    if (s) {
        mmx_csc_free(C);
        return s;
    }
    *out = C;
    return MMX_OK;
}
