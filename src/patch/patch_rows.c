/* Kept stencil rows (patch_internal.h, mmx__patch_rows): each owned vertex's star, walked once
 * and stored as 16-bit local indices, so that a stencil step reads a short row where it would
 * rebuild every patch's stars (count, scan, fill and sort in the work space) on every call.
 * The walk is mmx__patch_row_walk below, run by the host's loop over the patches and by the
 * CUDA patch kernels of patch_rows.cu (through meshmatrix/patch_kernel.cuh). */
#include <stdlib.h>
#include <string.h>
#include "patch_internal.h"
#include "patch_rows.h"

/* The host's build: one view per patch, its owned vertices' rows counted into ptr (as
 * lengths, then their offsets), then walked again into idx. */
static mmx_status rows_host(mmx_ctx *ctx, const mmx_patch_blocks *b, mmx__patch_row_kind k,
                            mmx_index *owned_off, mmx_index *ptr, uint16_t **idx)
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
                if (pass) mmx__patch_row_walk(&V, v, k, *idx + ptr[r0 + v]);
                else ptr[r0 + v] = mmx__patch_row_walk(&V, v, k, NULL);
            }
        }
        if (pass) break;
        /* Lengths to offsets; the rows past the owned vertices (vertices in no face) are
         * empty, so the total repeats to the end. */
        const mmx_index rows = owned_off[b->npatches];
        int64_t at = 0;
        for (mmx_index r = 0; r < rows; r++) {
            const mmx_index len = ptr[r];
            ptr[r] = (mmx_index)at;
            at += len;
        }
        if (at > MMX_INDEX_MAX)
            s = mmx__fail(ctx, MMX_ERR_OVERFLOW, "patch rows: %lld entries, past 32-bit offsets",
                          (long long)at);
        for (mmx_index r = rows; !s && r <= b->nverts; r++) ptr[r] = (mmx_index)at;
        if (!s) s = mmx__host_alloc(ctx, at ? (size_t)at : 1, sizeof **idx, (void **)idx);
    }
    free(w);
    return s;
}

/* The CUDA build: the owned counts' offsets, the lengths and their offsets, one wait for the
 * total, then the rows. */
static mmx_status rows_cuda(mmx_ctx *ctx, const mmx_patch_set *ps, mmx__patch_row_kind k,
                            mmx_index *owned_off, mmx_index *ptr, uint16_t **idx)
{
    const mmx_space sp = MMX_SPACE_DEVICE;
    const size_t nv = (size_t)ps->nverts, np = (size_t)ps->npatches;
    mmx_index *tmp = NULL, total = 0;
    mmx_status s = mmx_mem_alloc(ctx, sp, (nv > np ? nv : np) * sizeof *tmp + 4, (void **)&tmp);
    if (!s) s = mmx__patch_owned_counts_cuda(ctx, ps, tmp);
    if (!s) s = mmx__scan_offsets(ctx, tmp, (int64_t)np, owned_off);
    if (!s) s = mmx__mem_zero(ctx, tmp, nv * sizeof *tmp);
    if (!s) s = mmx__patch_rows_fill_cuda(ctx, ps, k, owned_off, NULL, tmp, NULL);
    if (!s) s = mmx__scan_offsets(ctx, tmp, (int64_t)nv, ptr);
    if (!s) s = mmx_mem_copy(ctx, &total, MMX_SPACE_HOST, ptr + nv, sp, sizeof total);
    if (!s) s = mmx_mem_alloc(ctx, sp, (size_t)total * sizeof **idx + 4, (void **)idx);
    if (!s) s = mmx__patch_rows_fill_cuda(ctx, ps, k, owned_off, ptr, NULL, *idx);
    mmx_mem_free(ctx, sp, tmp);
    return s;
}

mmx_status mmx__patch_rows(mmx_ctx *ctx, const mmx_patch_set *ps, mmx__patch_row_kind k,
                           const mmx_index **owned_off, const mmx_index **ptr, const uint16_t **idx)
{
    mmx_patch_blocks b;
    mmx_status s = mmx_patch_set_blocks(ctx, ps, MMX_PV_VERTEX_STARS, &b);
    if (s) return s;
    /* The set keeps them: a cache of its topology, as a mesh keeps its adjacency. */
    mmx_patch_set *keep = (mmx_patch_set *)ps;
    if (!keep->rows_idx[k]) {
        const mmx_space sp = ps->space;
        mmx_index *off = keep->owned_off, *pt = NULL;
        uint16_t *ix = NULL;
        if (!off) s = mmx_mem_alloc(ctx, sp, ((size_t)ps->npatches + 1) * sizeof *off, (void **)&off);
        if (!s) s = mmx_mem_alloc(ctx, sp, ((size_t)ps->nverts + 1) * sizeof *pt, (void **)&pt);
        if (!s && sp == MMX_SPACE_HOST) s = rows_host(ctx, &b, k, off, pt, &ix);
        else if (!s) s = rows_cuda(ctx, ps, k, off, pt, &ix);
        if (s) {
            if (off != keep->owned_off) mmx_mem_free(ctx, sp, off);
            mmx_mem_free(ctx, sp, pt);
            mmx_mem_free(ctx, sp, ix);
            return s;
        }
        keep->owned_off = off, keep->rows_ptr[k] = pt, keep->rows_idx[k] = ix;
    }
    *owned_off = ps->owned_off, *ptr = ps->rows_ptr[k], *idx = ps->rows_idx[k];
    return MMX_OK;
}
