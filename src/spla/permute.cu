/* C = P·A·Q on the device, and the device check that an array is a permutation (host
 * statement: permute.c). The check waits for the stream to read its verdict; the permutation
 * is only queued. */
#include "core/launch.cuh"
#include "spla_internal.h"

/* ---- the permutation check -------------------------------------------------------------- */

__global__ static void fill_index(mmx_index *a, mmx_index n, mmx_index value)
{
    mmx_index i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = value;
}

/* first[v] = the smallest i with p[i] = v (n where v does not occur). */
__global__ static void first_occurrence(const mmx_index *p, mmx_index n, mmx_index *first)
{
    mmx_index i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    mmx_index v = p[i];
    if (v >= 0 && v < n) atomicMin(&first[v], i);
}

/* Entry i is bad when its value is out of range or occurred at a smaller index: exactly the
 * entry at which the host's left-to-right scan stops, so both backends name the same one. */
__global__ static void first_bad(const mmx_index *p, mmx_index n, const mmx_index *first,
                                 mmx__perm_fault *f)
{
    mmx_index i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    mmx_index v = p[i];
    if (v < 0 || v >= n || first[v] != i) atomicMin(&f->bad, i);
}

/* One thread: fills in the value and first occurrence of the bad entry, once it is known. */
__global__ static void explain_bad(const mmx_index *p, mmx_index n, const mmx_index *first,
                                   mmx__perm_fault *f)
{
    if (f->bad >= n) {
        f->bad = -1;
        return;
    }
    mmx_index v = p[f->bad];
    f->value = v;
    f->first = v >= 0 && v < n ? first[v] : -1;
}

extern "C" mmx_status mmx__perm_check_cuda(mmx_ctx *ctx, const mmx_index *p, mmx_index n,
                                           mmx__perm_fault *fault)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    *fault = mmx__perm_fault{-1, 0, -1};
    if (n == 0) return MMX_OK;
    mmx_index *first = NULL;
    mmx__perm_fault *d_fault = NULL;
    mmx__perm_fault init = {n, 0, -1};
    mmx_status s = mmx__dev_alloc(ctx, (size_t)n * sizeof *first, (void **)&first);
    if (!s) s = mmx__dev_alloc(ctx, sizeof *d_fault, (void **)&d_fault);
    if (!s) s = MMX__CUDA(ctx, cudaMemcpyAsync(d_fault, &init, sizeof init, cudaMemcpyHostToDevice, st));
    if (!s) {
        fill_index<<<mmx__grid(n), MMX__BLOCK, 0, st>>>(first, n, n);
        first_occurrence<<<mmx__grid(n), MMX__BLOCK, 0, st>>>(p, n, first);
        first_bad<<<mmx__grid(n), MMX__BLOCK, 0, st>>>(p, n, first, d_fault);
        explain_bad<<<1, 1, 0, st>>>(p, n, first, d_fault);
        s = mmx__cuda(ctx, cudaGetLastError(), "permutation check launch");
    }
    if (!s) s = MMX__CUDA(ctx, cudaMemcpyAsync(fault, d_fault, sizeof *fault, cudaMemcpyDeviceToHost, st));
    mmx__dev_free(ctx, first);
    mmx__dev_free(ctx, d_fault);
    mmx_status s2 = mmx__stream_sync(ctx); /* kept: the host reads the fault */
    return s ? s : s2;
}

/* ---- the permutation -------------------------------------------------------------------- */

/* Reduced form: entry k of C is corner k % c of column k / c, which is column q[k / c] of A. */
__global__ static void permute_reduced(const mmx_csc A, const mmx_index *pinv, const mmx_index *q,
                                       mmx_index *rowidx)
{
    int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= A.nnz) return;
    int64_t j = k / A.order, t = k % A.order;
    int64_t src = q ? q[j] : j;
    mmx_index i = A.rowidx[src * A.order + t];
    rowidx[k] = pinv ? pinv[i] : i;
}

/* len[j] = the length of column j of C (that of column q[j] of A); len[ncols] = 0 so that
 * the exclusive scan of ncols + 1 lengths ends with nnz. */
__global__ static void column_lengths(const mmx_csc A, const mmx_index *q, mmx_index *len)
{
    mmx_index j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j > A.ncols) return;
    mmx_index src = q && j < A.ncols ? q[j] : j;
    len[j] = j < A.ncols ? A.colptr[src + 1] - A.colptr[src] : 0;
}

/* General form, one thread per entry of C: a binary search in C's colptr finds its column
 * (so a long column does not serialise on one thread), the offset in the column gives the
 * entry of A it copies. */
__global__ static void permute_general(const mmx_csc A, const mmx_index *pinv, const mmx_index *q,
                                       const mmx_index *colptr, mmx_index *rowidx, mmx_index *val)
{
    mmx_index k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= A.nnz) return;
    /* colptr[lo] <= k < colptr[hi] throughout, since colptr[0] = 0 and colptr[ncols] = nnz. */
    mmx_index lo = 0, hi = A.ncols;
    while (hi - lo > 1) {
        mmx_index mid = lo + (hi - lo) / 2;
        if (colptr[mid] <= k) lo = mid;
        else hi = mid;
    }
    mmx_index src = q ? q[lo] : lo;
    mmx_index a = A.colptr[src] + (k - colptr[lo]);
    mmx_index i = A.rowidx[a];
    rowidx[k] = pinv ? pinv[i] : i;
    val[k] = A.val[a];
}

extern "C" mmx_status mmx__csc_permute_cuda(mmx_ctx *ctx, const mmx_csc *A, const mmx_index *pinv,
                                            const mmx_index *q, mmx_csc *C)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    mmx_status s = MMX_OK;
    if (A->order) {
        if (A->nnz > 0) {
            permute_reduced<<<mmx__grid(A->nnz), MMX__BLOCK, 0, st>>>(*A, pinv, q, C->rowidx);
            s = mmx__cuda(ctx, cudaGetLastError(), "permute_reduced launch");
        }
        return s;
    }
    /* colptr of C: the exclusive scan of the permuted column lengths. */
    mmx_index *len = NULL;
    const int n1 = A->ncols + 1;
    s = mmx__dev_alloc(ctx, (size_t)n1 * sizeof *len, (void **)&len);
    if (!s) {
        column_lengths<<<mmx__grid(n1), MMX__BLOCK, 0, st>>>(*A, q, len);
        s = mmx__cuda(ctx, cudaGetLastError(), "column_lengths launch");
    }
    if (!s) s = mmx__scan_exclusive(ctx, len, n1, C->colptr);
    if (!s && A->nnz > 0) {
        permute_general<<<mmx__grid(A->nnz), MMX__BLOCK, 0, st>>>(*A, pinv, q, C->colptr, C->rowidx,
                                                                 C->val);
        s = mmx__cuda(ctx, cudaGetLastError(), "permute_general launch");
    }
    mmx__dev_free(ctx, len); /* in stream order, after the kernels that read it */
    return s;
}
