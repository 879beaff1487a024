/* The CUDA half of mmx_limit_table_eval: one thread per point, the rule of limit_eval.h. A bad
 * point records its index by an atomic minimum (the smallest, whatever the order of threads).
 * The outputs asked for (NQ: 1, 3 or 6 rows) are a template parameter, so that the rule's
 * loops over them unroll and its accumulators stay in registers. */
#include "core/device.h"
#include "core/launch.cuh"
#include "limit_eval.h"

namespace {

template <int NQ>
__global__ void eval_points(mmx__limit_patches T, mmx_index n, const mmx_index *face,
                            const float *u, const float *v, float *P, float *du, float *dv,
                            float *duu, float *duv, float *dvv, mmx_index *bad)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        float o[18];
        if (mmx__limit_eval_point(&T, face[i], u[i], v[i], NQ, o)) {
            atomicMin(bad, (mmx_index)i);
            continue;
        }
        float *outs[6] = {P, du, dv, duu, duv, dvv};
#pragma unroll
        for (int q = 0; q < NQ; q++)
            if (outs[q])
                for (int c = 0; c < 3; c++) outs[q][3 * i + c] = o[3 * q + c];
    }
}

} // namespace

extern "C" mmx_status mmx__limit_eval_cuda(mmx_ctx *ctx, mmx__limit_patches T, mmx_index n,
                                           const mmx_index *face, const float *u, const float *v,
                                           float *P, float *du, float *dv, float *duu, float *duv,
                                           float *dvv, mmx_index *bad)
{
    if (n == 0) return MMX_OK;
    cudaStream_t st = (cudaStream_t)mmx_ctx_cuda_stream(ctx);
    const int nq = mmx__limit_nq(du, dv, duu, duv, dvv);
    if (nq == 1)
        eval_points<1><<<mmx__grid(n), MMX__BLOCK, 0, st>>>(T, n, face, u, v, P, du, dv, duu,
                                                             duv, dvv, bad);
    else if (nq == 3)
        eval_points<3><<<mmx__grid(n), MMX__BLOCK, 0, st>>>(T, n, face, u, v, P, du, dv, duu,
                                                             duv, dvv, bad);
    else
        eval_points<6><<<mmx__grid(n), MMX__BLOCK, 0, st>>>(T, n, face, u, v, P, du, dv, duu,
                                                             duv, dvv, bad);
    return MMX__CUDA(ctx, cudaGetLastError());
}
