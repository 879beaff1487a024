/* The device half of the flip topology (host statement and the flow: flip_topo.c): per edge
 * its two faces by the direction they run it, from the adjacency's FE. One thread per corner
 * writes the face of each two-sided edge into the slot of its direction; then one thread per
 * edge clears both slots unless both are set (a pair running the edge the same way fills one
 * slot twice, and which of the two writes lands is left to the race, since the slot is cleared
 * either way). Queued on the context's stream. */
#include "core/launch.cuh"
#include "dynamic_internal.h"

namespace {

__global__ void ef_corners(const mmx_index *fe, const mmx_index *sides, long long ncorners,
                           mmx_index *ef)
{
    const long long k = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (k >= ncorners) return;
    const mmx_index h = fe[k];
    if (sides[h / 2] == 2) ef[h] = (mmx_index)(k / 3);
}

__global__ void ef_pairs(mmx_index nedges, mmx_index *ef)
{
    const long long e = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (e >= nedges) return;
    int2 p = reinterpret_cast<int2 *>(ef)[e];
    if (p.x < 0 || p.y < 0) reinterpret_cast<int2 *>(ef)[e] = make_int2(-1, -1);
}

} // namespace

extern "C" mmx_status mmx__flip_ef_cuda(mmx_ctx *ctx, const mmx_adjacency *adj, mmx_index nfaces,
                                        mmx_index *ef)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const mmx_index ne = adj->nedges;
    if (ne == 0) return MMX_OK;
    mmx_status s = MMX__CUDA(ctx, cudaMemsetAsync(ef, 0xff, 2 * (size_t)ne * sizeof *ef, st));
    const long long nc = 3 * (long long)nfaces;
    if (!s && nc > 0) {
        ef_corners<<<mmx__grid(nc), MMX__BLOCK, 0, st>>>(adj->fe, adj->sides, nc, ef);
        s = mmx__cuda(ctx, cudaGetLastError(), "ef_corners launch");
    }
    if (!s) {
        ef_pairs<<<mmx__grid(ne), MMX__BLOCK, 0, st>>>(ne, ef);
        s = mmx__cuda(ctx, cudaGetLastError(), "ef_pairs launch");
    }
    return s;
}
