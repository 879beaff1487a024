/* The CUDA half of the kept stencil rows (patch_rows.c): the rows' lengths and entries by two
 * patch kernels written through meshmatrix/patch_kernel.cuh (each patch's stars built in
 * shared memory, each owned vertex walked by one thread: mmx__patch_row_walk), and the owned
 * counts the rows are numbered by. Queued. */
#include "meshmatrix/patch_kernel.cuh"
#include "core/launch.cuh"
#include "patch_rows.h"

namespace {

struct rows_op {
    mmx__patch_row_kind k;
    const mmx_index *owned_off, *ptr;
    mmx_index *len; /* the lengths pass (ptr NULL) */
    uint16_t *idx;  /* the entries pass */

    __device__ void operator()(mmx::patch &p) const
    {
        const mmx_patch_view &V = p.view();
        const mmx_index r0 = owned_off[p.index()];
        p.for_each_owned_vertex([&](mmx_index v, mmx_index) {
            if (ptr) mmx__patch_row_walk(&V, v, k, idx + ptr[r0 + v]);
            else len[r0 + v] = mmx__patch_row_walk(&V, v, k, nullptr);
        });
    }
};

__global__ void owned_counts(const mmx_index *owned, mmx_index np, mmx_index *cnt)
{
    const int64_t p = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (p < np) cnt[p] = owned[3 * p + 2];
}

} // namespace

extern "C" mmx_status mmx__patch_owned_counts_cuda(mmx_ctx *ctx, const mmx_patch_set *ps, mmx_index *cnt)
{
    if (ps->npatches == 0) return MMX_OK;
    owned_counts<<<mmx__grid(ps->npatches), MMX__BLOCK, 0, (cudaStream_t)mmx_ctx_cuda_stream(ctx)>>>(
        ps->owned, ps->npatches, cnt);
    return MMX__CUDA(ctx, cudaGetLastError());
}

extern "C" mmx_status mmx__patch_rows_fill_cuda(mmx_ctx *ctx, const mmx_patch_set *ps,
                                                mmx__patch_row_kind k, const mmx_index *owned_off,
                                                const mmx_index *ptr, mmx_index *len, uint16_t *idx)
{
    return mmx::patch_launch(ctx, ps, MMX_PV_VERTEX_STARS, mmx::patch_shared{},
                             rows_op{k, owned_off, ptr, len, idx});
}
