/* The walk that makes a kept row (patch_internal.h, mmx__patch_rows), shared by the host's
 * build (patch_rows.c) and the CUDA patch kernels (patch_rows.cu). */
#ifndef MMX_PATCH_ROWS_H
#define MMX_PATCH_ROWS_H

#include "patch_internal.h"
#include "meshmatrix/patch_view.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Owned local vertex v's row of kind k in V (built with MMX_PV_VERTEX_STARS): its length, and
 * with idx (room for that length) its entries, in the star's order. */
static inline MMX__HD mmx_index mmx__patch_row_walk(const mmx_patch_view *V, mmx_index v,
                                                   mmx__patch_row_kind k, uint16_t *idx)
{
    mmx_pv_star it;
    mmx_pv_nbr nb;
    mmx_index n = 0;
    mmx_pv_star_begin(V, v, &it);
    while (mmx_pv_star_next(V, &it, &nb)) {
        const mmx_index x = k == MMX__ROWS_VV ? nb.vert : nb.face;
        if (x < 0) continue; /* VF: an open fan's closing entry has no face */
        if (idx) idx[n] = (uint16_t)x;
        n++;
    }
    return n;
}

#ifdef __cplusplus
}
#endif
#endif
