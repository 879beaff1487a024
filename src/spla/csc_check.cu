/* The structural check of a device CSC matrix, on the device (host statement: csc.c). The
 * verdict is read on the host, so this waits for the stream (only for it): once, and a second
 * time only for a matrix with long columns (below). */
#include "core/cub.cuh"
#include "core/launch.cuh"
#include "spla_internal.h"

/* Columns of up to this many entries are searched for a repeated row pairwise, by one thread
 * (a mesh matrix's columns are faces: a few entries, where that is cheapest); longer ones by
 * a sort of their entries (long_repeats), so that a face of a million corners costs
 * O(n log n), not n^2. */
constexpr long long kPairwise = 64;

/* Finds column j's fault: 0 none, else the kind of mmx__csc_fault, with the row in *bad.
 * Repeated rows are looked for only in columns of at most kPairwise entries. */
__device__ static int column_fault(const mmx_csc &A, mmx_index j, mmx_index *bad)
{
    long long a = A.order ? (long long)A.order * j : A.colptr[j];
    long long b = A.order ? a + A.order : A.colptr[j + 1];
    if (a < 0 || b < a || b > A.nnz) return 1;
    const bool pairwise = b - a <= kPairwise;
    for (long long k = a; k < b; k++) {
        mmx_index r = A.rowidx[k];
        *bad = r;
        if (r < 0 || r >= A.nrows) return 2;
        if (pairwise)
            for (long long q = a; q < k; q++)
                if (A.rowidx[q] == r) return 3;
    }
    return 0;
}

/* Whether column j is searched by the sort (and has sane bounds). */
__device__ static bool column_long(const mmx_csc &A, mmx_index j)
{
    long long a = A.order ? (long long)A.order * j : A.colptr[j];
    long long b = A.order ? a + A.order : A.colptr[j + 1];
    return a >= 0 && b <= A.nnz && b - a > kPairwise;
}

/* A fault is packed as (column << 2 | kind) so that atomicMin keeps the first faulty column. */
__global__ static void check_columns(const mmx_csc A, unsigned long long *first, int *any_long)
{
    mmx_index j = blockIdx.x * blockDim.x + threadIdx.x;
    mmx_index bad;
    if (j >= A.ncols) return;
    int kind = column_fault(A, j, &bad);
    if (kind) atomicMin(first, ((unsigned long long)j << 2) | (unsigned long long)kind);
    if (column_long(A, j)) *any_long = 1; /* every writer writes 1 */
}

/* The sort's keys: (column << 32) | row for an entry of a long column, ~0 (last, never
 * compared) for the others; and the entry's position. */
__global__ static void long_keys(const mmx_csc A, unsigned long long *key, mmx_index *pos)
{
    long long x = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (x >= A.nnz) return;
    const mmx_index j = mmx__csc_col_of(&A, x);
    key[x] = column_long(A, j) ? ((unsigned long long)j << 32) | (unsigned)A.rowidx[x] : ~0ull;
    pos[x] = (mmx_index)x;
}

/* Sorted keys, equal ones in storage order (the sort is stable): every entry equal to the one
 * before it repeats a row. The first column with one is a fault of kind 3; *dup keeps, for the
 * smallest such column, the earliest repeat in storage order ((column << 32) | position), the
 * entry the host's check stops at. */
__global__ static void long_repeats(const unsigned long long *key, const mmx_index *pos,
                                    mmx_index nnz, unsigned long long *first,
                                    unsigned long long *dup)
{
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i == 0 || i >= nnz || key[i] == ~0ull || key[i] != key[i - 1]) return;
    const unsigned long long j = key[i] >> 32;
    atomicMin(first, (j << 2) | 3ull);
    atomicMin(dup, (j << 32) | (unsigned)pos[i]);
}

/* The row of the repeat found by the sort, when it is the first fault. */
__global__ static void explain_repeat(const mmx_csc A, const unsigned long long *first,
                                      const unsigned long long *dup, mmx_index *row)
{
    if (*first != ~0ull && (*first & 3u) == 3u && (*first >> 2) == (*dup >> 32))
        *row = A.rowidx[*dup & 0xffffffffu];
}

/* Names the offending row of the first faulty column, once the first is known (one thread:
 * writing it from check_columns would race between faulty columns). */
__global__ static void explain_first(const mmx_csc A, const unsigned long long *first, mmx_index *row)
{
    mmx_index j = (mmx_index)(*first >> 2);
    if (*first != ~0ull && j < A.ncols) column_fault(A, j, row);
}

__global__ static void check_ends(const mmx_csc A, unsigned long long *first)
{
    /* colptr[0] must be 0 and colptr[ncols] must be nnz: a fault of "column 0" / "ncols". */
    if (A.colptr[0] != 0) atomicMin(first, 1ull);
    else if (A.colptr[A.ncols] != A.nnz) atomicMin(first, ((unsigned long long)A.ncols << 2) | 1ull);
}

/* The repeated rows of the long columns, by a radix sort of their entries (queued). */
static mmx_status check_long(mmx_ctx *ctx, const mmx_csc *A, unsigned long long *d_first,
                             unsigned long long *d_dup, mmx_index *d_row)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const long long n = A->nnz;
    unsigned long long *key = NULL;
    mmx_index *pos = NULL;
    mmx_status s = mmx__dev_alloc(ctx, (size_t)n * 2 * sizeof *key, (void **)&key);
    if (!s) s = mmx__dev_alloc(ctx, (size_t)n * 2 * sizeof *pos, (void **)&pos);
    if (!s) {
        long_keys<<<mmx__grid(n), MMX__BLOCK, 0, st>>>(*A, key, pos);
        s = mmx__cuda(ctx, cudaGetLastError(), "long_keys launch");
    }
    unsigned long long *keys[2] = {key, key + n};
    mmx_index *vals[2] = {pos, pos + n};
    int cur = 0;
    if (!s) s = mmx__sort_pairs(ctx, keys, vals, n, 64, &cur);
    if (!s) {
        long_repeats<<<mmx__grid(n), MMX__BLOCK, 0, st>>>(keys[cur], vals[cur], (mmx_index)n,
                                                           d_first, d_dup);
        explain_repeat<<<1, 1, 0, st>>>(*A, d_first, d_dup, d_row);
        s = mmx__cuda(ctx, cudaGetLastError(), "long_repeats launch");
    }
    /* Given back in stream order, after the kernels that read them. */
    mmx__dev_free(ctx, pos);
    mmx__dev_free(ctx, key);
    return s;
}

extern "C" mmx_status mmx__csc_check_cuda(mmx_ctx *ctx, const mmx_csc *A, mmx__csc_fault *fault)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    /* One block of device words: the first fault, the sort's first repeat, the fault's row
     * and whether any column is long; read back together. */
    struct Verdict {
        unsigned long long first, dup;
        mmx_index row;
        int any_long;
    } h = {~0ull, ~0ull, 0, 0}, *d = NULL;
    /* From the pool in stream order: cudaMalloc and cudaFree would wait for the whole device. */
    mmx_status s = mmx__dev_alloc(ctx, sizeof *d, (void **)&d);
    if (s) return s;
    s = MMX__CUDA(ctx, cudaMemcpyAsync(d, &h, sizeof h, cudaMemcpyHostToDevice, st));
    if (!s && !A->order) {
        check_ends<<<1, 1, 0, st>>>(*A, &d->first);
        s = mmx__cuda(ctx, cudaGetLastError(), "check_ends launch");
    }
    if (!s && A->ncols > 0) {
        check_columns<<<mmx__grid(A->ncols), MMX__BLOCK, 0, st>>>(*A, &d->first, &d->any_long);
        explain_first<<<1, 1, 0, st>>>(*A, &d->first, &d->row);
        s = mmx__cuda(ctx, cudaGetLastError(), "check_columns launch");
    }
    if (!s) s = mmx__dev_copy(ctx, &h, MMX_SPACE_HOST, d, MMX_SPACE_DEVICE, sizeof h);
    /* A second pass, and a second wait, only for a matrix with long columns whose bounds
     * held (the sort reads every entry of theirs). */
    if (!s && h.any_long && (h.first == ~0ull || (h.first & 3u) != 1u)) {
        s = check_long(ctx, A, &d->first, &d->dup, &d->row);
        if (!s) s = mmx__dev_copy(ctx, &h, MMX_SPACE_HOST, d, MMX_SPACE_DEVICE, sizeof h);
    }
    mmx__dev_free(ctx, d);
    if (s) return s;
    const unsigned long long h_first = h.first;
    const mmx_index h_row = h.row;
    fault->kind = h_first == ~0ull ? 0 : (int)(h_first & 3u);
    fault->col = fault->kind ? (mmx_index)(h_first >> 2) : 0;
    fault->row = h_row;
    return MMX_OK;
}
