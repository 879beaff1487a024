/* The structural check of a device CSC matrix, on the device (host statement: csc.c). The
 * verdict is read on the host, so this waits for the stream (only for it). */
#include "core/launch.cuh"
#include "spla_internal.h"

/* Finds column j's fault: 0 none, else the kind of mmx__csc_fault, with the row in *bad. */
__device__ static int column_fault(const mmx_csc &A, mmx_index j, mmx_index *bad)
{
    long long a = A.order ? (long long)A.order * j : A.colptr[j];
    long long b = A.order ? a + A.order : A.colptr[j + 1];
    if (a < 0 || b < a || b > A.nnz) return 1;
    /* Columns of a mesh matrix are short (the face order): a pairwise scan is cheaper than any
     * scratch structure. Cost is the sum of squared column lengths. */
    for (long long k = a; k < b; k++) {
        mmx_index r = A.rowidx[k];
        *bad = r;
        if (r < 0 || r >= A.nrows) return 2;
        for (long long q = a; q < k; q++)
            if (A.rowidx[q] == r) return 3;
    }
    return 0;
}

/* A fault is packed as (column << 2 | kind) so that atomicMin keeps the first faulty column. */
__global__ static void check_columns(const mmx_csc A, unsigned long long *first)
{
    mmx_index j = blockIdx.x * blockDim.x + threadIdx.x;
    mmx_index bad;
    if (j >= A.ncols) return;
    int kind = column_fault(A, j, &bad);
    if (kind) atomicMin(first, ((unsigned long long)j << 2) | (unsigned long long)kind);
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

extern "C" mmx_status mmx__csc_check_cuda(mmx_ctx *ctx, const mmx_csc *A, mmx__csc_fault *fault)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    unsigned long long *d_first = NULL;
    mmx_index *d_row = NULL;
    unsigned long long h_first = ~0ull;
    mmx_index h_row = 0;
    /* From the pool in stream order: cudaMalloc and cudaFree would wait for the whole device. */
    mmx_status s = mmx__dev_alloc(ctx, sizeof *d_first + sizeof *d_row, (void **)&d_first);
    if (s) return s;
    d_row = (mmx_index *)(d_first + 1);
    s = MMX__CUDA(ctx, cudaMemcpyAsync(d_first, &h_first, sizeof h_first, cudaMemcpyHostToDevice, st));
    if (!s && !A->order) {
        check_ends<<<1, 1, 0, st>>>(*A, d_first);
        s = mmx__cuda(ctx, cudaGetLastError(), "check_ends launch");
    }
    if (!s && A->ncols > 0) {
        check_columns<<<mmx__grid(A->ncols), MMX__BLOCK, 0, st>>>(*A, d_first);
        explain_first<<<1, 1, 0, st>>>(*A, d_first, d_row);
        s = mmx__cuda(ctx, cudaGetLastError(), "check_columns launch");
    }
    if (!s) s = MMX__CUDA(ctx, cudaMemcpyAsync(&h_first, d_first, sizeof h_first, cudaMemcpyDeviceToHost, st));
    if (!s) s = MMX__CUDA(ctx, cudaMemcpyAsync(&h_row, d_row, sizeof h_row, cudaMemcpyDeviceToHost, st));
    mmx__dev_free(ctx, d_first);
    if (!s) s = mmx__stream_sync(ctx); /* kept: the host reads the fault */
    if (s) return s;
    fault->kind = h_first == ~0ull ? 0 : (int)(h_first & 3u);
    fault->col = fault->kind ? (mmx_index)(h_first >> 2) : 0;
    fault->row = h_row;
    return MMX_OK;
}
