/* The CUDA half of mmx_patch_reduce (patch_reduce.c): a block builds each patch's view in turn
 * (its chunk's, patch_block.cuh); each thread sums the row of one owned element as the query's walk meets
 * its neighbours (patch_block.h), in float, left to right, and writes its y row. Queued. */
#include "patch_block.cuh"

namespace {

__global__ void __launch_bounds__(MMX__BLOCK, MMX__PATCH_FILL_BLOCKS) reduce_rows(const mmx_patch_set ps, mmx_query_kind kind, const float *x, int k,
                            float *y, mmx__patch_launch ln)
{
    extern __shared__ __align__(16) unsigned char smem[];
    void *w = mmx__patch_work(smem, ln);
    const int needs = mmx__pl_needs(kind);
    mmx__patch_each(ps, ln, [&](mmx_index p) {
        mmx__plocal L;
        mmx__patch_local_block(ps, p, w, needs, &L);
        const mmx_index n = mmx__pl_sources(&L, kind);
        for (int pass = 0; pass < 2; pass++) {
            int redo = 0;
            for (mmx_index i = threadIdx.x; i < n; i += blockDim.x) {
                mmx__psink sink = mmx__pl_sum_sink(x, k);
                redo |= !mmx__pl_row(&L, kind, i, &sink);
                const size_t g = (size_t)mmx__pl_global(&L, kind, i);
#pragma unroll
                for (int c = 0; c < 4; c++) /* a fixed trip count: acc stays in registers */
                    if (c < k) y[g * (size_t)k + (size_t)c] = sink.acc[c];
            }
            /* A vertex of several fans: the vertex lists, and the rows again (patch_query.cu). */
            if (pass || !L.starts || !__syncthreads_or(redo)) break;
            mmx__pl_block_lists(&L, 1);
        }
        __syncthreads();
    });
}

} // namespace

extern "C" mmx_status mmx__patch_reduce_cuda(mmx_ctx *ctx, const mmx_patch_set *ps,
                                             mmx_query_kind kind, const float *x, int k, float *y)
{
    return mmx__patch_run_split(ctx, ps, reduce_rows, *ps, kind, x, k, y);
}
