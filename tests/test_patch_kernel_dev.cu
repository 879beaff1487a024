/* The device half of the "patch_kernel" suite (test_patch_kernel.c): a user kernel written
 * through meshmatrix/patch_kernel.cuh, as a user would, that writes every relation of every
 * owned element through the handle's walks (vv, ve, vf, ev, ef, fv, fe, ff) into the rows of
 * mmx_query's layout, and counts each row's entries. */
#include <meshmatrix/patch_kernel.cuh>
#include "test_patch_kernel.h"

namespace {

struct rows_op {
    tpk_rows r; /* device arrays */

    /* Entry i of row `row` of relation k (written only inside the row), and its count. */
    __device__ void put(int k, mmx_index row, mmx_index i, mmx_index g) const
    {
        if (i < r.rowptr[k][row + 1] - r.rowptr[k][row]) r.col[k][r.rowptr[k][row] + i] = g;
    }

    __device__ void operator()(mmx::patch &p) const
    {
        p.for_each_owned_vertex([&](mmx_index v, mmx_index gv) {
            mmx_index n = 0;
            p.vv(v, [&](mmx_index, mmx_index g) { put(MMX_QUERY_VV, gv, n++, g); });
            r.count[MMX_QUERY_VV][gv] = n, n = 0;
            p.ve(v, [&](mmx_index, mmx_index g) { put(MMX_QUERY_VE, gv, n++, g); });
            r.count[MMX_QUERY_VE][gv] = n, n = 0;
            p.vf(v, [&](mmx_index, mmx_index g) { put(MMX_QUERY_VF, gv, n++, g); });
            r.count[MMX_QUERY_VF][gv] = n;
        });
        p.for_each_owned_edge([&](mmx_index e, mmx_index ge) {
            mmx_index n = 0;
            p.ev(e, [&](mmx_index, mmx_index g) { put(MMX_QUERY_EV, ge, n++, g); });
            r.count[MMX_QUERY_EV][ge] = n, n = 0;
            p.ef(e, [&](mmx_index, mmx_index g) { put(MMX_QUERY_EF, ge, n++, g); });
            r.count[MMX_QUERY_EF][ge] = n;
        });
        p.for_each_owned_face([&](mmx_index l, mmx_index gf) {
            mmx_index n = 0;
            p.fv(l, [&](mmx_index, mmx_index g) { put(MMX_QUERY_FV, gf, n++, g); });
            r.count[MMX_QUERY_FV][gf] = n, n = 0;
            p.fe(l, [&](mmx_index, mmx_index g) { put(MMX_QUERY_FE, gf, n++, g); });
            r.count[MMX_QUERY_FE][gf] = n, n = 0;
            p.ff(l, [&](mmx_index, mmx_index g) { put(MMX_QUERY_FF, gf, n++, g); });
            r.count[MMX_QUERY_FF][gf] = n;
        });
    }
};

/* The stars (MMX_PV_VERTEX_STARS) of every owned vertex into the VV, VE and VF rows. */
struct star_op {
    tpk_rows r;

    __device__ void put(int k, mmx_index row, mmx_index i, mmx_index g) const
    {
        if (i < r.rowptr[k][row + 1] - r.rowptr[k][row]) r.col[k][r.rowptr[k][row] + i] = g;
    }

    __device__ void operator()(mmx::patch &p) const
    {
        p.for_each_owned_vertex([&](mmx_index v, mmx_index gv) {
            mmx_index n[3] = {0, 0, 0};
            p.star(v, [&](const mmx_pv_nbr &nb) {
                put(MMX_QUERY_VV, gv, n[0]++, p.gv(nb.vert));
                put(MMX_QUERY_VE, gv, n[1]++, p.ge(nb.edge));
                if (nb.face >= 0) put(MMX_QUERY_VF, gv, n[2]++, p.gf(nb.face));
            });
            for (int k = 0; k < 3; k++) r.count[k][gv] = n[k];
        });
    }
};

/* Only the owned-vertex loop and a block barrier between two uses of the user's shared
 * bytes: each owned vertex's valence through the shared copy of its patch's vertex numbers. */
struct shared_op {
    mmx_index *out;

    __device__ void operator()(mmx::patch &p) const
    {
        mmx_index *g = reinterpret_cast<mmx_index *>(p.shared());
        p.for_each_vertex([&](mmx_index l, mmx_index gv) { g[l] = gv; });
        p.sync();
        p.for_each_owned_vertex([&](mmx_index v, mmx_index gv) {
            mmx_index sum = 0;
            p.vv(v, [&](mmx_index u, mmx_index) { sum += g[u]; });
            out[gv] = sum;
        });
    }
};

} // namespace

extern "C" mmx_status tpk_rows_cuda(mmx_ctx *ctx, const mmx_patch_set *ps, tpk_rows rows)
{
    return mmx::patch_launch(ctx, ps, MMX_PV_VERTEX_FANS, mmx::patch_shared{}, rows_op{rows});
}

extern "C" mmx_status tpk_star_rows_cuda(mmx_ctx *ctx, const mmx_patch_set *ps, tpk_rows rows)
{
    return mmx::patch_launch(ctx, ps, MMX_PV_VERTEX_STARS, mmx::patch_shared{}, star_op{rows});
}

extern "C" mmx_status tpk_vv_sums_cuda(mmx_ctx *ctx, const mmx_patch_set *ps, mmx_index *out)
{
    mmx::patch_shared sh;
    sh.per_vertex = sizeof(mmx_index);
    return mmx::patch_launch(ctx, ps, MMX_PV_VERTEX_FANS, sh, shared_op{out});
}
