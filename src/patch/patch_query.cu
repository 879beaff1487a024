/* The CUDA half of mmx_patch_query (patch_query.c): a block sets up each patch's view in turn
 * (its chunk's, patch_block.cuh) out of shared memory and its threads take the owned elements, one each: first
 * their row lengths (counted, no lists), then, after the caller's scan, their rows (the lists
 * built). The per-element code is the host's (patch_block.h). Queued. */
#include "patch_block.cuh"

namespace {

__global__ void query_lengths(const mmx_patch_set ps, mmx_query_kind kind, mmx_index *len,
                              mmx__patch_launch ln)
{
    extern __shared__ __align__(16) unsigned char smem[];
    void *w = mmx__patch_work(smem, ln);
    mmx__patch_each(ps, ln, [&](mmx_index p) {
        mmx__plocal L;
        mmx__patch_count_block(ps, p, w, kind, &L);
        const mmx_index n = mmx__pl_sources(&L, kind);
        for (mmx_index i = threadIdx.x; i < n; i += blockDim.x)
            len[mmx__pl_global(&L, kind, i)] = mmx__pl_counted_len(&L, kind, i);
        __syncthreads(); /* before the next patch reuses the work space */
    });
}

__global__ void __launch_bounds__(MMX__BLOCK, MMX__PATCH_FILL_BLOCKS) query_fill(const mmx_patch_set ps, mmx_query_kind kind, const mmx_index *rowptr,
                           mmx_index order, mmx_index *colidx, mmx__patch_launch ln)
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
                const mmx_index g = mmx__pl_global(&L, kind, i);
                mmx__psink sink = mmx__pl_row_sink(colidx, rowptr, order, g);
                redo |= !mmx__pl_row(&L, kind, i, &sink);
            }
            /* A vertex of several fans: the vertex lists, and the rows again (L.starts is the
             * same in every thread, so is the barrier's answer). */
            if (pass || !L.starts || !__syncthreads_or(redo)) break;
            mmx__pl_block_lists(&L, 1);
        }
        __syncthreads();
    });
}

/* Threads per block of query_direct: a patch has about 150 owned faces (nef3), so 128 threads
 * leave fewer idle than 256 (H200, nef3: EV, FV, FE 8-10% faster than with 256). */
constexpr int direct_threads = 128;

/* The rows (or, with len, the row lengths) of EV, FV and FE, read in place from the blocks:
 * no work space, no barrier, so no shared memory and full occupancy. One block per patch. */
__global__ void __launch_bounds__(direct_threads) query_direct(const mmx_patch_set ps, mmx_query_kind kind, mmx_index *len,
                             const mmx_index *rowptr, mmx_index order, mmx_index *colidx)
{
    for (mmx_index p = blockIdx.x; p < ps.npatches; p += gridDim.x) {
        mmx__plocal L;
        mmx__pl_setup_direct(&ps, p, &L);
        const mmx_index n = mmx__pl_sources(&L, kind);
        for (mmx_index i = threadIdx.x; i < n; i += blockDim.x) {
            const mmx_index g = mmx__pl_global(&L, kind, i);
            if (len) {
                len[g] = mmx__pl_counted_len(&L, kind, i);
                continue;
            }
            mmx__psink sink = mmx__pl_row_sink(colidx, rowptr, order, g);
            mmx__pl_row(&L, kind, i, &sink);
        }
    }
}

mmx_status launch_direct(mmx_ctx *ctx, const mmx_patch_set *ps, mmx_query_kind kind, mmx_index *len,
                         const mmx_index *rowptr, mmx_index order, mmx_index *colidx)
{
    if (ps->npatches == 0) return MMX_OK;
    query_direct<<<(unsigned)ps->npatches, direct_threads, 0, (cudaStream_t)mmx_ctx_cuda_stream(ctx)>>>(
        *ps, kind, len, rowptr, order, colidx);
    return MMX__CUDA(ctx, cudaGetLastError());
}

} // namespace

extern "C" mmx_status mmx__patch_query_lengths_cuda(mmx_ctx *ctx, const mmx_patch_set *ps,
                                                    mmx_query_kind kind, mmx_index *len)
{
    if (mmx__pl_direct(kind)) return launch_direct(ctx, ps, kind, len, nullptr, 0, nullptr);
    return mmx__patch_run_split(ctx, ps, query_lengths, *ps, kind, len);
}

extern "C" mmx_status mmx__patch_query_fill_cuda(mmx_ctx *ctx, const mmx_patch_set *ps,
                                                 mmx_query_kind kind, const mmx_index *rowptr,
                                                 mmx_index order, mmx_index *colidx)
{
    if (mmx__pl_direct(kind)) return launch_direct(ctx, ps, kind, nullptr, rowptr, order, colidx);
    return mmx__patch_run_split(ctx, ps, query_fill, *ps, kind, rowptr, order, colidx);
}
