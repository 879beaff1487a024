/* Kept stencil rows (patch_internal.h, mmx__patch_rows): each owned vertex's star, walked once
 * and stored as 16-bit local indices (VV and VF from the same walk), so that a stencil step
 * reads short rows where it would rebuild every patch's stars (count, scan, fill and sort in
 * the work space) on every call. The walk is mmx__patch_row_walk (patch_rows.h), run by the
 * host's loop over the patches and by the CUDA patch kernels of patch_rows.cu (through
 * meshmatrix/patch_kernel.cuh). */
#include <stdlib.h>
#include <string.h>
#include "patch_internal.h"
#include "patch_rows.h"

/* The host's build: one view per patch, its owned vertices' rows counted into ptr (as lengths,
 * then their offsets), then walked again into idx. */
static mmx_status rows_host(mmx_ctx *ctx, const mmx_patch_blocks *b, mmx_index *owned_off,
                            mmx_index *const ptr[2], uint16_t *idx[2])
{
    void *w = NULL;
    mmx_status s = mmx__host_alloc(ctx, b->work_bytes ? b->work_bytes : 16, 1, &w);
    if (s) return s;
    owned_off[0] = 0;
    for (int pass = 0; !s && pass < 2; pass++) {
        for (mmx_index p = 0; p < b->npatches; p++) {
            mmx_patch_view V;
            mmx_pv_build_host(b, p, w, MMX_PV_VERTEX_STARS, &V);
            const mmx_index r0 = owned_off[p];
            if (!pass) owned_off[p + 1] = r0 + V.ov;
            for (mmx_index v = 0; v < V.ov; v++) {
                uint16_t *const at[2] = {pass ? idx[0] + ptr[0][r0 + v] : NULL,
                                         pass ? idx[1] + ptr[1][r0 + v] : NULL};
                mmx_index n[2];
                mmx__patch_row_walk(&V, v, at, n);
                if (!pass) ptr[0][r0 + v] = n[0], ptr[1][r0 + v] = n[1];
            }
        }
        if (pass) break;
        /* Lengths to offsets; the rows past the owned vertices (vertices in no face) are
         * empty, so the total repeats to the end. */
        const mmx_index rows = owned_off[b->npatches];
        for (int k = 0; !s && k < 2; k++) {
            int64_t at = 0;
            for (mmx_index r = 0; r < rows; r++) {
                const mmx_index len = ptr[k][r];
                ptr[k][r] = (mmx_index)at;
                at += len;
            }
            if (at > MMX_INDEX_MAX)
                s = mmx__fail(ctx, MMX_ERR_OVERFLOW, "patch rows: %lld entries, past 32-bit "
                              "offsets", (long long)at);
            for (mmx_index r = rows; !s && r <= b->nverts; r++) ptr[k][r] = (mmx_index)at;
            if (!s) s = mmx__host_alloc(ctx, at ? (size_t)at : 1, sizeof *idx[k], (void **)&idx[k]);
        }
    }
    free(w);
    return s;
}

/* The CUDA build: the owned counts' offsets, the lengths and their offsets, one wait for VV's
 * total (every VF entry is a VV entry's, so it bounds VF's room too), then the rows. */
static mmx_status rows_cuda(mmx_ctx *ctx, const mmx_patch_set *ps, mmx_index *owned_off,
                            mmx_index *const ptr[2], uint16_t *idx[2])
{
    const mmx_space sp = MMX_SPACE_DEVICE;
    const size_t nv = (size_t)ps->nverts, np = (size_t)ps->npatches;
    mmx_index *tmp = NULL, total = 0;
    mmx_status s = mmx_mem_alloc(ctx, sp, (2 * nv > np ? 2 * nv : np) * sizeof *tmp + 4, (void **)&tmp);
    mmx_index *const len[2] = {tmp, tmp + nv};
    if (!s) s = mmx__patch_owned_counts_cuda(ctx, ps, tmp);
    if (!s) s = mmx__scan_offsets(ctx, tmp, (int64_t)np, owned_off);
    if (!s) s = mmx__mem_zero(ctx, tmp, 2 * nv * sizeof *tmp);
    if (!s) s = mmx__patch_rows_fill_cuda(ctx, ps, owned_off, NULL, len, NULL);
    for (int k = 0; !s && k < 2; k++) s = mmx__scan_offsets(ctx, len[k], (int64_t)nv, ptr[k]);
    if (!s) s = mmx_mem_copy(ctx, &total, MMX_SPACE_HOST, ptr[MMX__ROWS_VV] + nv, sp, sizeof total);
    for (int k = 0; !s && k < 2; k++) s = mmx_mem_alloc(ctx, sp, (size_t)total * sizeof *idx[k] + 4, (void **)&idx[k]);
    if (!s) s = mmx__patch_rows_fill_cuda(ctx, ps, owned_off, ptr, NULL, idx);
    mmx_mem_free(ctx, sp, tmp);
    return s;
}

mmx_status mmx__patch_rows(mmx_ctx *ctx, const mmx_patch_set *ps)
{
    if (ps->rows_idx[MMX__ROWS_VV]) return MMX_OK;
    mmx_patch_blocks b;
    mmx_status s = mmx_patch_set_blocks(ctx, ps, MMX_PV_VERTEX_STARS, &b);
    if (s) return s;
    const mmx_space sp = ps->space;
    mmx_index *off = NULL, *pt = NULL;
    uint16_t *ix[2] = {NULL, NULL};
    s = mmx_mem_alloc(ctx, sp, ((size_t)ps->npatches + 1) * sizeof *off, (void **)&off);
    if (!s) s = mmx_mem_alloc(ctx, sp, 2 * ((size_t)ps->nverts + 1) * sizeof *pt, (void **)&pt);
    mmx_index *const ptr[2] = {pt, pt ? pt + ps->nverts + 1 : NULL};
    if (!s && sp == MMX_SPACE_HOST) s = rows_host(ctx, &b, off, ptr, ix);
    else if (!s) s = rows_cuda(ctx, ps, off, ptr, ix);
    if (s) {
        mmx_mem_free(ctx, sp, off), mmx_mem_free(ctx, sp, pt);
        mmx_mem_free(ctx, sp, ix[0]), mmx_mem_free(ctx, sp, ix[1]);
        return s;
    }
    /* The set keeps them: a cache of its topology, as a mesh keeps its adjacency. */
    mmx_patch_set *keep = (mmx_patch_set *)ps;
    keep->owned_off = off, keep->rows_ptr = pt, keep->rows_idx[0] = ix[0], keep->rows_idx[1] = ix[1];
    return MMX_OK;
}
