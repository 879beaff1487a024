/* The walk that makes a kept row (patch_internal.h, mmx__patch_rows), shared by the host's
 * build (patch_rows.c) and the CUDA patch kernels (patch_rows.cu). */
#ifndef MMX_PATCH_ROWS_H
#define MMX_PATCH_ROWS_H

#include "patch_internal.h"
#include "meshmatrix/patch_view.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Owned local vertex v's rows in V (built with MMX_PV_VERTEX_STARS), walked once in the
 * star's order: n[k] gets the length of kind k's row, and where idx[k] is not NULL (room for
 * that length) its entries. */
static inline MMX__HD void mmx__patch_row_walk(const mmx_patch_view *V, mmx_index v,
                                               uint16_t *const idx[2], mmx_index n[2])
{
    mmx_pv_star it;
    mmx_pv_nbr nb;
    n[MMX__ROWS_VV] = n[MMX__ROWS_VF] = 0;
    mmx_pv_star_begin(V, v, &it);
    while (mmx_pv_star_next(V, &it, &nb)) {
        if (idx[MMX__ROWS_VV]) idx[MMX__ROWS_VV][n[MMX__ROWS_VV]] = (uint16_t)nb.vert;
        n[MMX__ROWS_VV]++;
        if (nb.face < 0) continue; /* an open fan's closing entry has no face */
        if (idx[MMX__ROWS_VF]) idx[MMX__ROWS_VF][n[MMX__ROWS_VF]] = (uint16_t)nb.face;
        n[MMX__ROWS_VF]++;
    }
}

#ifdef __cplusplus
}
#endif
#endif
