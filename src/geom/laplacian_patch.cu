/* The CUDA half of mmx__patch_laplacian_step (laplacian_patch.c): one patch kernel through
 * meshmatrix/patch_kernel.cuh on the kept rows. Each block copies its patch's vertex positions
 * (owned and ribbon) into shared memory once, then each thread moves owned vertices, reading
 * every neighbour from there in its kept VV row's order (mmx__gp_laplacian): one kernel per
 * step, no set-up of the patch, no atomics, no wait. */
#include "meshmatrix/patch_kernel.cuh"
#include "geom_patch.h"

namespace {

struct laplacian_step {
    const float *x;
    const unsigned char *fixed;
    float lambda;
    float *out;

    __device__ void operator()(mmx::patch &p) const
    {
        float *sx = reinterpret_cast<float *>(p.shared());
        const mmx_patch_view &V = p.view();
        p.for_each_vertex([&](mmx_index l, mmx_index) { mmx__gp_load_vertex(&V, x, l, sx); });
        p.sync();
        p.for_each_owned_vertex([&](mmx_index v, mmx_index g) {
            mmx_index n;
            const uint16_t *row = mmx_pv_kept_vv(&V, v, &n);
            mmx__gp_laplacian(sx, row, n, v, g, fixed, lambda, out);
        });
    }
};

} // namespace

extern "C" mmx_status mmx__patch_laplacian_cuda(mmx_ctx *ctx, const mmx_patch_set *ps,
                                                const float *x, const unsigned char *fixed,
                                                float lambda, float *out)
{
    mmx::patch_shared sh;
    sh.per_vertex = 3 * sizeof(float);
    return mmx::patch_launch(ctx, ps, MMX_PV_KEPT_ROWS, sh, laplacian_step{x, fixed, lambda, out});
}
