/* Bilateral normal filtering on the device (host statement: bilateral.c): one thread per
 * vertex runs mmx__bilateral_vertex (geom_internal.h) over its VV row, reading the previous
 * positions and writing its own row of out. Queued on the context's stream. */
#include "core/launch.cuh"
#include "geom_internal.h"

__global__ static void bilateral(mmx_index n, const mmx_index *rowptr, mmx_index order,
                                 const mmx_index *nb, const float *x, const float *nrm, float sc,
                                 float ss, const unsigned char *fixed, float *out)
{
    const int64_t v = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n) return;
    const int64_t r0 = order ? (int64_t)order * v : rowptr[v];
    const int64_t r1 = order ? r0 + order : rowptr[v + 1];
    mmx__bilateral_vertex(x, nrm, nb, r0, r1, sc, ss, fixed, v, out);
}

extern "C" mmx_status mmx__bilateral_step_cuda(mmx_ctx *ctx, const mmx_csr *vv, const float *x,
                                               const float *nrm, float sc, float ss,
                                               const unsigned char *fixed, float *out)
{
    if (vv->nrows == 0) return MMX_OK;
    bilateral<<<mmx__grid(vv->nrows), MMX__BLOCK, 0, (cudaStream_t)ctx->stream>>>(
        vv->nrows, vv->rowptr, vv->order, vv->colidx, x, nrm, sc, ss, fixed, out);
    return mmx__cuda(ctx, cudaGetLastError(), "smoothing bilateral launch");
}
