/* The diagonal of a mapped matrix on the device (checks and host statement: diag.c): one
 * thread per column, which scans its column for its own row. Run once per solve, so the map
 * is evaluated by the shared run-time switch (mmx__map_value) rather than spmv.cu's
 * specialised templates. */
#include "core/launch.cuh"
#include "spla_internal.h"

namespace {

__global__ void __launch_bounds__(MMX__BLOCK)
csc_diagonal(const mmx_csc A, const mmx_map map, mmx_index nd, float *__restrict__ d)
{
    for (long long i = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x; i < nd;
         i += (long long)gridDim.x * MMX__BLOCK) {
        int64_t a, b;
        mmx__csc_col(&A, (mmx_index)i, &a, &b);
        float v = 0.0f;
        for (int64_t e = a; e < b; e++)
            if (A.rowidx[e] == i) {
                v = mmx__map_value(&map, (mmx_index)i, i, (mmx_index)(b - a), mmx__csc_val(&A, e, a), e);
                break;
            }
        d[i] = v;
    }
}

__global__ void set_diagonal(const mmx_csc A, mmx_index nd, const float *d, float alpha)
{
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nd) mmx__csc_set_diag_col(&A, (mmx_index)i, d, alpha);
}

} // namespace

extern "C" mmx_status mmx__csc_diagonal_cuda(mmx_ctx *ctx, const mmx_csc *A, mmx_map map, float *d)
{
    const mmx_index nd = A->nrows < A->ncols ? A->nrows : A->ncols;
    csc_diagonal<<<mmx__grid(nd), MMX__BLOCK, 0, (cudaStream_t)ctx->stream>>>(*A, map, nd, d);
    return mmx__cuda(ctx, cudaGetLastError(), "csc_diagonal launch");
}

extern "C" mmx_status mmx__csc_set_diagonal_cuda(mmx_ctx *ctx, mmx_csc *A, const float *d, float alpha)
{
    const mmx_index nd = A->nrows < A->ncols ? A->nrows : A->ncols;
    if (nd <= 0) return MMX_OK;
    set_diagonal<<<mmx__grid(nd), MMX__BLOCK, 0, (cudaStream_t)ctx->stream>>>(*A, nd, d, alpha);
    return mmx__cuda(ctx, cudaGetLastError(), "set_diagonal launch");
}
