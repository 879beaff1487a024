/* Explicit transpose on the device (host statement: transpose.c). The entries, numbered in
 * A's storage order (column after column), are sorted by row with the radix sort of core/cub.cuh. The sort
 * is stable, so the entries of one row keep their storage order, which is ascending column
 * order: the result is the host's, entry for entry. */
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

/* colptr[r] = the number of entries with row < r: the first position of row r in the sorted
 * rows, found by binary search, r in [0, nrows]. */
__global__ void colptr_from_rows(const unsigned *rows, mmx_index nnz, mmx_index nrows,
                                 mmx_index *colptr)
{
    long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (r > nrows) return;
    mmx_index lo = 0, hi = nnz; /* first position whose row is >= r */
    while (lo < hi) {
        mmx_index mid = lo + (hi - lo) / 2;
        if ((long long)rows[mid] < r) lo = mid + 1;
        else hi = mid;
    }
    colptr[r] = lo;
}

/* Slot t of Aᵀ holds A's entry perm[t]: its column becomes the row, its value stays. */
__global__ void fill(const mmx_csc A, const mmx_index *perm, mmx_index *rowidx, mmx_index *val,
                     float *x)
{
    long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (t >= A.nnz) return;
    mmx_index e = perm[t];
    mmx_index j = mmx__csc_col_of(&A, e);
    rowidx[t] = j;
    val[t] = A.order ? e - A.order * j + 1 : A.val[e];
    if (x) x[t] = A.x[e];
}

} // namespace

extern "C" mmx_status mmx__csc_transpose_cuda(mmx_ctx *ctx, const mmx_csc *A, mmx_csc **out)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const mmx_index nnz = A->nnz;
    mmx_csc *T = NULL;
    unsigned *rows[2] = {NULL, NULL};
    mmx_index *perm[2] = {NULL, NULL};
    int cur = 0;
    const int bits = mmx__bits_for(A->nrows > 0 ? A->nrows - 1 : 0);
    mmx_status s = mmx__csc_alloc(ctx, MMX_SPACE_DEVICE, A->ncols, A->nrows, nnz, 0, &T);
    if (!s && A->x) s = mmx__csc_alloc_x(ctx, T);
    if (s) {
        mmx_csc_free(T);
        return s;
    }
    if (nnz == 0) {
        s = MMX__CUDA(ctx, cudaMemsetAsync(T->colptr, 0, ((size_t)A->nrows + 1) * sizeof(mmx_index), st));
        goto props;
    }
    for (int b = 0; b < 2 && !s; b++) {
        s = mmx__dev_alloc(ctx, (size_t)nnz * sizeof *rows[b], (void **)&rows[b]);
        if (!s) s = mmx__dev_alloc(ctx, (size_t)nnz * sizeof *perm[b], (void **)&perm[b]);
    }
    if (!s) {
        sort_input<<<mmx__grid(nnz), MMX__BLOCK, 0, st>>>(A->rowidx, nnz, rows[0], perm[0]);
        s = mmx__cuda(ctx, cudaGetLastError(), "sort_input launch");
    }
    if (!s) s = mmx__sort_pairs(ctx, rows, perm, nnz, bits > 0 ? bits : 1, &cur);
    if (!s) {
        colptr_from_rows<<<mmx__grid((long long)A->nrows + 1), MMX__BLOCK, 0, st>>>(rows[cur], nnz,
                                                                                 A->nrows, T->colptr);
        fill<<<mmx__grid(nnz), MMX__BLOCK, 0, st>>>(*A, perm[cur], T->rowidx, T->val, T->x);
        s = mmx__cuda(ctx, cudaGetLastError(), "transpose kernels launch");
    }
props:
    /* The scratch goes back in stream order, after the kernels that read it. */
    for (int b = 0; b < 2; b++) {
        mmx__dev_free(ctx, rows[b]);
        mmx__dev_free(ctx, perm[b]);
    }
    /* The result's properties are host fields: mmx__csc_props reads them back (the one wait). */
    if (!s) s = mmx__csc_props(ctx, T);
    if (s) {
        mmx_csc_free(T); /* in stream order too: no wait for the queued kernels */
        return s;
    }
    *out = T;
    return MMX_OK;
}
