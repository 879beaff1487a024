/* The CUDA half of mmx_vertex_normals_patch (normals_patch.c): one patch kernel through
 * meshmatrix/patch_kernel.cuh on the kept rows. Each block copies its patch's positions into
 * shared memory, computes every local face's Newell vector there, and each thread sums them
 * around owned vertices along their kept VF rows (geom_patch.h): no set-up of the patch, no
 * atomics, no table of face vectors in global memory. Queued. */
#include "meshmatrix/patch_kernel.cuh"
#include "geom_patch.h"

namespace {

struct normals_op {
    const float *pos;
    float *normals;

    __device__ void operator()(mmx::patch &p) const
    {
        float *sx = reinterpret_cast<float *>(p.shared());
        float *sn = sx + 3 * (size_t)p.verts();
        const mmx_patch_view &V = p.view();
        p.for_each_vertex([&](mmx_index l, mmx_index) { mmx__gp_load_vertex(&V, pos, l, sx); });
        p.sync();
        p.for_each_face([&](mmx_index l, mmx_index) { mmx__gp_face_newell(&V, sx, l, sn + 3 * (size_t)l); });
        p.sync();
        p.for_each_owned_vertex([&](mmx_index v, mmx_index g) {
            mmx_index n;
            const uint16_t *row = mmx_pv_kept_vf(&V, v, &n);
            mmx__gp_normal(sn, row, n, g, normals);
        });
    }
};

} // namespace

extern "C" mmx_status mmx__patch_normals_cuda(mmx_ctx *ctx, const mmx_patch_set *ps,
                                              const float *pos, float *normals)
{
    mmx::patch_shared sh;
    /* The positions, then the face vectors right after the patch's own vertices: sized for
     * the largest counts of each. */
    sh.per_vertex = 3 * sizeof(float);
    sh.per_face = 3 * sizeof(float);
    return mmx::patch_launch(ctx, ps, MMX_PV_KEPT_ROWS, sh, normals_op{pos, normals});
}
