/* The device half of the child topology (topology.c): one thread per parent face, running the
 * rule shared with the host; a face that finds no face across an edge raises a flag, which the
 * host reads (the one wait). */
#include "core/launch.cuh"
#include "subdiv_internal.h"

namespace {

__global__ void children(const mmx__subdiv_topo tp, mmx_index nv, mmx_index *rows, int *fault)
{
    long long k = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (k < tp.M.ncols && mmx__subdiv_children(&tp, (mmx_index)k, nv, tp.M.ncols, rows))
        atomicMin(fault, (int)k);
}

} // namespace

extern "C" mmx_status mmx__subdiv_topology_cuda(mmx_ctx *ctx, mmx__subdiv_topo tp, mmx_index nv,
                                                mmx_index *rows)
{
    if (tp.M.ncols == 0) return MMX_OK;
    cudaStream_t st = (cudaStream_t)mmx_ctx_cuda_stream(ctx);
    int *fault = NULL, first = INT32_MAX;
    mmx_status s = mmx__dev_alloc(ctx, sizeof *fault, (void **)&fault);
    if (s) return s;
    s = MMX__CUDA(ctx, cudaMemcpyAsync(fault, &first, sizeof first, cudaMemcpyHostToDevice, st));
    if (!s) {
        children<<<mmx__grid(tp.M.ncols), MMX__BLOCK, 0, st>>>(tp, nv, rows, fault);
        s = MMX__CUDA(ctx, cudaGetLastError());
    }
    if (!s) s = MMX__CUDA(ctx, cudaMemcpyAsync(&first, fault, sizeof first, cudaMemcpyDeviceToHost, st));
    if (!s) s = mmx__stream_sync(ctx); /* kept: the host reads the fault */
    mmx__dev_free(ctx, fault);
    if (!s && first != INT32_MAX)
        s = mmx__fail(ctx, MMX_ERR_INTERNAL,
                      "subdivision: face %d has an edge without a face across", first);
    return s;
}
