/* Device version of mmx__csc_props (host statement: csc_props.c). The properties are host
 * fields of the matrix, so this waits for the stream to read them back. */
#include <climits>
#include "core/launch.cuh"
#include "spla_internal.h"

/* r[0] = maxcol, r[1] = minval, r[2] = maxval, r[3] = 1 while every value is its position. */
__global__ static void props(const mmx_csc A, int *r)
{
    mmx_index j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= A.ncols) return;
    mmx_index a = A.colptr[j], b = A.colptr[j + 1];
    int lo = INT_MAX, hi = INT_MIN, pos = 1;
    for (mmx_index k = a; k < b; k++) {
        mmx_index v = A.val[k];
        lo = min(lo, v);
        hi = max(hi, v);
        pos &= v == k - a + 1;
    }
    atomicMax(&r[0], b - a);
    if (b > a) {
        atomicMin(&r[1], lo);
        atomicMax(&r[2], hi);
    }
    if (!pos) atomicAnd(&r[3], 0);
}

extern "C" mmx_status mmx__csc_props_cuda(mmx_ctx *ctx, mmx_csc *A)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    int h[4] = {0, INT_MAX, INT_MIN, 1};
    int *d = NULL;
    mmx_status s = mmx__dev_alloc(ctx, sizeof h, (void **)&d);
    if (s) return s;
    s = MMX__CUDA(ctx, cudaMemcpyAsync(d, h, sizeof h, cudaMemcpyHostToDevice, st));
    if (!s && A->ncols > 0) {
        props<<<mmx__grid(A->ncols), MMX__BLOCK, 0, st>>>(*A, d);
        s = mmx__cuda(ctx, cudaGetLastError(), "props launch");
    }
    if (!s) s = MMX__CUDA(ctx, cudaMemcpyAsync(h, d, sizeof h, cudaMemcpyDeviceToHost, st));
    mmx__dev_free(ctx, d);
    if (!s) s = mmx__stream_sync(ctx); /* kept: the host reads h */
    if (s) return s;
    A->maxcol = h[0];
    A->minval = A->nnz ? h[1] : 0;
    A->maxval = A->nnz ? h[2] : 0;
    A->positional = h[3];
    return MMX_OK;
}
