/* The Delaunay seeds on the device (host statement: delaunay.c's violators): every edge whose
 * quad exists and is over the bound (mmx__fv_delaunay_seed, flip_step.h, the host's code), in
 * edge order, by one pass of CUB's DeviceSelect::If over the edge numbers (order kept: the
 * i-th selected edge is the i-th of the host's loop). Queued on the context's stream. */
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>
#include "core/cub.cuh"
#include "dynamic_internal.h"

namespace {

struct IsSeed {
    mmx__flip_view v;
    const float *pos;
    __device__ bool operator()(mmx_index e) const { return mmx__fv_delaunay_seed(&v, pos, e) != 0; }
};

} // namespace

extern "C" mmx_status mmx__delaunay_seeds_cuda(mmx_ctx *ctx, const mmx__flip_view *v,
                                               const float *pos, mmx_index *seeds,
                                               mmx_index *count)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const IsSeed pred{*v, pos};
    thrust::counting_iterator<mmx_index> edges(0);
    const long long ne = v->nedges;
    return mmx__cub_run(ctx, "cub::DeviceSelect::If", [&](void *tmp, size_t &bytes) {
        return cub::DeviceSelect::If(tmp, bytes, edges, seeds, count, ne, pred, st);
    });
}
