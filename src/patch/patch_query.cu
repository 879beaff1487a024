/* The CUDA half of mmx_patch_query (patch_query.c): one block per patch builds its view out of
 * shared memory (patch_block.cuh) and its threads take the owned elements, one each: first
 * their row lengths (and the check of orientation for the vertex queries), then, after the
 * caller's scan, their rows. The per-element code is the host's (patch_block.h). Queued. */
#include "patch_block.cuh"

namespace {

__global__ void query_lengths(const mmx_patch_set ps, mmx_query_kind kind, mmx_index *len,
                              unsigned int *fault, mmx__patch_launch ln)
{
    extern __shared__ __align__(16) unsigned char smem[];
    void *w = mmx__patch_work(smem, ln);
    const int needs = mmx__pl_needs(kind), vertex = kind <= MMX_QUERY_VF;
    for (mmx_index p = blockIdx.x; p < ps.npatches; p += gridDim.x) {
        mmx__plocal L;
        mmx__patch_local_block(ps, p, w, needs, &L);
        const mmx_index n = mmx__pl_sources(&L, kind);
        for (mmx_index i = threadIdx.x; i < n; i += blockDim.x)
            len[mmx__pl_global(&L, kind, i)] = mmx__pl_row_len(&L, kind, i);
        if (vertex)
            for (mmx_index e = threadIdx.x; e < L.oe; e += blockDim.x)
                if (mmx__pl_inconsistent(&L, e)) atomicMax(fault, MMX__PATCH_FAULT(L.ge[e]));
        __syncthreads(); /* before the next patch reuses the work space */
    }
}

__global__ void query_fill(const mmx_patch_set ps, mmx_query_kind kind, const mmx_index *rowptr,
                           mmx_index order, mmx_index *colidx, mmx__patch_launch ln)
{
    extern __shared__ __align__(16) unsigned char smem[];
    void *w = mmx__patch_work(smem, ln);
    const int needs = mmx__pl_needs(kind);
    for (mmx_index p = blockIdx.x; p < ps.npatches; p += gridDim.x) {
        mmx__plocal L;
        mmx__patch_local_block(ps, p, w, needs, &L);
        const mmx_index n = mmx__pl_sources(&L, kind);
        for (mmx_index i = threadIdx.x; i < n; i += blockDim.x) {
            const mmx_index g = mmx__pl_global(&L, kind, i);
            mmx__psink sink = {colidx + (rowptr ? (long long)rowptr[g] : (long long)order * g), 0,
                               nullptr, 0, {0, 0, 0, 0}};
            mmx__pl_row(&L, kind, i, &sink);
        }
        __syncthreads();
    }
}

} // namespace

extern "C" mmx_status mmx__patch_query_lengths_cuda(mmx_ctx *ctx, const mmx_patch_set *ps,
                                                    mmx_query_kind kind, mmx_index *len,
                                                    unsigned int *fault)
{
    return mmx__patch_run(ctx, ps, query_lengths, *ps, kind, len, fault);
}

extern "C" mmx_status mmx__patch_query_fill_cuda(mmx_ctx *ctx, const mmx_patch_set *ps,
                                                 mmx_query_kind kind, const mmx_index *rowptr,
                                                 mmx_index order, mmx_index *colidx)
{
    return mmx__patch_run(ctx, ps, query_fill, *ps, kind, rowptr, order, colidx);
}
