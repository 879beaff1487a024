/* The CUDA half of the kept stencil rows (patch_rows.c): the rows' lengths and entries (VV and
 * VF from one walk of each star) by two patch kernels written through meshmatrix/patch_kernel.cuh (each patch's stars built in
 * shared memory, each owned vertex walked by one thread: mmx__patch_row_walk), and the owned
 * counts the rows are numbered by. Queued. */
#include "meshmatrix/patch_kernel.cuh"
#include "core/launch.cuh"
#include "patch_rows.h"

namespace {

struct rows_op {
    const mmx_index *owned_off;
    const mmx_index *ptr[2]; /* the entries pass */
    mmx_index *len[2];       /* the lengths pass (ptr NULL) */
    uint16_t *idx[2];

    __device__ void operator()(mmx::patch &p) const
    {
        const mmx_patch_view &V = p.view();
        const mmx_index r0 = owned_off[p.index()];
        p.for_each_owned_vertex([&](mmx_index v, mmx_index) {
            uint16_t *const at[2] = {ptr[0] ? idx[0] + ptr[0][r0 + v] : nullptr,
                                     ptr[0] ? idx[1] + ptr[1][r0 + v] : nullptr};
            mmx_index n[2];
            mmx__patch_row_walk(&V, v, at, n);
            if (!ptr[0]) len[0][r0 + v] = n[0], len[1][r0 + v] = n[1];
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
                                                const mmx_index *owned_off, mmx_index *const ptr[2],
                                                mmx_index *const len[2], uint16_t *const idx[2])
{
    rows_op op{owned_off, {nullptr, nullptr}, {nullptr, nullptr}, {nullptr, nullptr}};
    for (int k = 0; k < 2; k++) {
        if (ptr) op.ptr[k] = ptr[k], op.idx[k] = idx[k];
        else op.len[k] = len[k];
    }
    return mmx::patch_launch(ctx, ps, MMX_PV_VERTEX_STARS, mmx::patch_shared{}, op);
}
