/* The CUDA half of mmx_subdiv_limit: limit_vertex.h's rule, one vertex per step of a
 * grid-stride loop whose threads each own a scratch sized for the largest valence. */
#include "core/device.h"
#include "core/launch.cuh"
#include "limit_vertex.h"

namespace {

__global__ void limit_vertices(mmx__limit_in L, mmx_index nv, const mmx_index *valence,
                               mmx_index slot, mmx_index workers, mmx_index *idx, double *w,
                               float *pos, float *normals)
{
    const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= workers) return;
    mmx_index *ring = idx + 3 * (int64_t)slot * t;
    double *wt = w + 4 * (int64_t)slot * t;
    for (int64_t v = t; v < nv; v += workers) {
        float p[3], n[3];
        mmx__limit_vertex(&L, (mmx_index)v, valence[v], ring, ring + slot, ring + 2 * slot, wt,
                          p, n);
        for (int c = 0; c < 3; c++) {
            if (pos) pos[3 * v + c] = p[c];
            if (normals) normals[3 * v + c] = n[c];
        }
    }
}

} // namespace

extern "C" mmx_status mmx__limit_cuda(mmx_ctx *ctx, mmx__limit_in L, mmx_index nv,
                                      const mmx_index *valence, mmx_index slot, mmx_index workers,
                                      mmx_index *idx, double *w, float *pos, float *normals)
{
    if (nv == 0) return MMX_OK;
    cudaStream_t st = (cudaStream_t)mmx_ctx_cuda_stream(ctx);
    const unsigned blocks = (unsigned)((workers + MMX__BLOCK - 1) / MMX__BLOCK);
    limit_vertices<<<blocks, MMX__BLOCK, 0, st>>>(L, nv, valence, slot, workers, idx, w, pos,
                                                  normals);
    return MMX__CUDA(ctx, cudaGetLastError());
}
