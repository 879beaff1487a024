/* The topology after a flip round, from the one before (flip_step.h states the rule and the
 * steps; flip_update.cu runs them on the device): the host statement, a loop per step. The
 * Delaunay loop on CUDA keeps its topology this way from round to round instead of recomputing
 * the adjacency; the host tests check the result against a rebuilt topology. */
#include <stdlib.h>
#include <string.h>
#include "dynamic_internal.h"

static int cmp_u64(const void *x, const void *y)
{
    const uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

mmx_status mmx__flip_update(mmx_ctx *ctx, const mmx__flip_view *old, const mmx_index *kedge,
                            mmx_index k, const mmx_index *verts, mmx_index *edge_ptr,
                            mmx_index *ev, mmx_index *ef, mmx__flip_view *out)
{
    if (mmx_ctx_backend(ctx) != MMX_BACKEND_HOST)
        return mmx__flip_update_cuda(ctx, old, kedge, k, verts, edge_ptr, ev, ef, out);
    const mmx_index ne = old->nedges;
    mmx_index *R = NULL;
    uint64_t *added = NULL;
    mmx_status s = mmx__host_alloc(ctx, (size_t)ne + 1, sizeof *R, (void **)&R);
    if (!s) s = mmx__host_alloc(ctx, (size_t)k + 1, sizeof *added, (void **)&added);
    if (s) {
        free(R);
        return s;
    }
    /* R: the removed edges before each edge (flags, then an exclusive scan). */
    memset(R, 0, ((size_t)ne + 1) * sizeof *R);
    for (mmx_index j = 0; j < k; j++) R[kedge[j]] = 1;
    mmx_index run = 0;
    for (mmx_index e = 0; e <= ne; e++) {
        const mmx_index f = R[e];
        R[e] = run;
        run += f;
    }
    for (mmx_index j = 0; j < k; j++) added[j] = mmx__fu_added_key(old, kedge[j]);
    qsort(added, (size_t)k, sizeof *added, cmp_u64);
    for (mmx_index e = 0; e < ne; e++)
        if (R[e + 1] == R[e]) mmx__fu_move_old(old, e, R, added, k, ev, ef);
    for (mmx_index j = 0; j < k; j++) mmx__fu_move_added(old, j, R, added, ev);
    for (mmx_index v = 0; v <= old->nverts; v++) edge_ptr[v] = mmx__fu_edge_ptr(old, v, R, added, k);
    *out = (mmx__flip_view){old->nverts, old->nfaces, ne, verts, edge_ptr, ev, ef};
    for (mmx_index j = 0; j < k; j++) mmx__fu_fix(old, kedge[j], out, ef);
    free(R);
    free(added);
    return MMX_OK;
}
