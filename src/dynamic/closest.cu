/* Closest points on the device (host statement: closest.c's mmx__bvh_closest): one thread per
 * query point runs bvh_step.h's mmx__bvh_closest_view, the host's code, on the device copy of
 * the hierarchy (mmx__bvh_to_device), so q and the triangle are the host's bits. Queued on the
 * context's stream. */
#include "core/launch.cuh"
#include "dynamic_internal.h"

namespace {

__global__ void closest(mmx__bvh_view b, const double *p, mmx_index n, double *q, mmx_index *tri)
{
    const long long i = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (i >= n) return;
    const double P[3] = {p[3 * i], p[3 * i + 1], p[3 * i + 2]};
    double Q[3];
    const mmx_index t = mmx__bvh_closest_view(&b, P, Q, NULL);
    if (t >= 0)
        for (int k = 0; k < 3; k++) q[3 * i + k] = Q[k];
    if (tri) tri[i] = t;
}

} // namespace

extern "C" mmx_status mmx__bvh_closest_cuda(mmx_ctx *ctx, const mmx__bvh_view *dev,
                                            const double *p, mmx_index n, double *q,
                                            mmx_index *tri)
{
    if (n <= 0) return MMX_OK;
    cudaStream_t st = (cudaStream_t)ctx->stream;
    closest<<<mmx__grid(n), MMX__BLOCK, 0, st>>>(*dev, p, n, q, tri);
    return mmx__cuda(ctx, cudaGetLastError(), "closest launch");
}
