/* The row view of a matrix on the device (spla_internal.h; kept with the matrix by rows.c).
 * The entries, numbered in A's storage order (column after column), are sorted by row with the
 * radix sort of core/cub.cuh. The sort is stable, so the entries of one row keep their storage
 * order, which is ascending column order: the view the host's column-by-column loops imply,
 * entry for entry. The transpose (transpose.cu) is this view with the columns written out. */
#include "core/cub.cuh"
#include "core/launch.cuh"
#include "spla_internal.h"

namespace {

/* The sort's input: A's rows as keys (non-negative, so unsigned changes nothing), their
 * entries' numbers as values. */
__global__ void sort_input(const mmx_index *rowidx, mmx_index n, unsigned *keys, mmx_index *entry)
{
    long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (e >= n) return;
    keys[e] = (unsigned)rowidx[e];
    entry[e] = (mmx_index)e;
}

/* rowptr[r] = the number of entries with row < r: the first position of row r in the sorted
 * rows, found by binary search, r in [0, nrows]. */
__global__ void rowptr_from_rows(const unsigned *rows, mmx_index nnz, mmx_index nrows,
                                 mmx_index *rowptr)
{
    long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (r > nrows) return;
    mmx_index lo = 0, hi = nnz; /* first position whose row is >= r */
    while (lo < hi) {
        mmx_index mid = lo + (hi - lo) / 2;
        if ((long long)rows[mid] < r) lo = mid + 1;
        else hi = mid;
    }
    rowptr[r] = lo;
}

/* col[t] = the column of entry[t] (a general A: a binary search of colptr, once per view). */
__global__ void columns(const mmx_csc A, const mmx_index *entry, mmx_index *col)
{
    long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (t >= A.nnz) return;
    col[t] = mmx__csc_col_of(&A, entry[t]);
}

} // namespace

extern "C" mmx_status mmx__csc_rows_cuda(mmx_ctx *ctx, const mmx_csc *A, int with_col,
                                         mmx__csc_rows *out)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const mmx_index nnz = A->nnz;
    unsigned *rows[2] = {NULL, NULL};
    mmx_index *perm[2] = {NULL, NULL};
    int cur = 0;
    const int bits = mmx__bits_for(A->nrows > 0 ? A->nrows - 1 : 0);
    mmx__csc_rows r = {NULL, NULL, NULL};
    mmx_status s = mmx__dev_alloc(ctx, ((size_t)A->nrows + 1) * sizeof(mmx_index), (void **)&r.rowptr);
    if (!s && nnz == 0)
        s = MMX__CUDA(ctx, cudaMemsetAsync(r.rowptr, 0, ((size_t)A->nrows + 1) * sizeof(mmx_index), st));
    for (int b = 0; b < 2 && !s && nnz > 0; b++) {
        s = mmx__dev_alloc(ctx, (size_t)nnz * sizeof *rows[b], (void **)&rows[b]);
        if (!s) s = mmx__dev_alloc(ctx, (size_t)nnz * sizeof *perm[b], (void **)&perm[b]);
    }
    if (!s && nnz > 0) {
        sort_input<<<mmx__grid(nnz), MMX__BLOCK, 0, st>>>(A->rowidx, nnz, rows[0], perm[0]);
        s = mmx__cuda(ctx, cudaGetLastError(), "sort_input launch");
    }
    if (!s && nnz > 0) s = mmx__sort_pairs(ctx, rows, perm, nnz, bits > 0 ? bits : 1, &cur);
    if (!s && nnz > 0) {
        rowptr_from_rows<<<mmx__grid((long long)A->nrows + 1), MMX__BLOCK, 0, st>>>(rows[cur], nnz,
                                                                                 A->nrows, r.rowptr);
        s = mmx__cuda(ctx, cudaGetLastError(), "rowptr_from_rows launch");
    }
    if (!s && nnz > 0) {
        /* The sorted buffer is the view's entry array; the other goes back to the pool. */
        r.entry = perm[cur];
        perm[cur] = NULL;
    }
    if (!s && with_col && A->order == 0 && nnz > 0) {
        s = mmx__dev_alloc(ctx, (size_t)nnz * sizeof *r.col, (void **)&r.col);
        if (!s) {
            columns<<<mmx__grid(nnz), MMX__BLOCK, 0, st>>>(*A, r.entry, r.col);
            s = mmx__cuda(ctx, cudaGetLastError(), "columns launch");
        }
    }
    /* The scratch goes back in stream order, after the kernels that read it. */
    for (int b = 0; b < 2; b++) {
        mmx__dev_free(ctx, rows[b]);
        mmx__dev_free(ctx, perm[b]);
    }
    if (s) {
        mmx__dev_free(ctx, r.rowptr);
        mmx__dev_free(ctx, r.entry);
        mmx__dev_free(ctx, r.col);
        return s;
    }
    *out = r;
    return MMX_OK;
}
