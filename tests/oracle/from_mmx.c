/* A meshmatrix mesh as the oracle's arrays: see oracle_mmx.h. */
#include <stdlib.h>
#include <string.h>
#include "oracle_internal.h"
#include "oracle_mmx.h"

mmx_status oracle_mesh_from_mmx(mmx_ctx *ctx, const mmx_mesh *m, oracle_mesh *o)
{
    memset(o, 0, sizeof *o);
    mmx_index *start = NULL, *verts = NULL;
    float *pf = NULL;
    mmx_status st = mmx_mesh_faces(ctx, m, &start, &verts);
    if (st != MMX_OK) return st;
    const mmx_index nv = mmx_mesh_nverts(m), nf = mmx_mesh_nfaces(m);
    const size_t ncorners = (size_t)start[nf];
    if (nv > 0 && !m->pos) {
        st = MMX_ERR_ARG;
        goto done;
    }
    pf = malloc(sizeof *pf * 3 * (nv > 0 ? (size_t)nv : 1));
    if (!pf || oracle__alloc_mesh(o, nv, nf, (long long)ncorners)) {
        st = MMX_ERR_NOMEM;
        goto done;
    }
    for (mmx_index f = 0; f <= nf; f++) o->start[f] = start[f];
    for (size_t k = 0; k < ncorners; k++) o->verts[k] = verts[k];
    if (nv > 0) st = mmx_mem_copy(ctx, pf, MMX_SPACE_HOST, m->pos, m->space, sizeof *pf * 3 * (size_t)nv);
    for (size_t i = 0; st == MMX_OK && i < 3 * (size_t)nv; i++) o->pos[i] = pf[i];
done:
    free(pf);
    free(start);
    free(verts);
    if (st != MMX_OK) oracle_mesh_free(o);
    return st;
}

int oracle_mesh_from_faces(const mmx_faces *fl, oracle_mesh *o)
{
    if (oracle__alloc_mesh(o, fl->nverts, fl->nfaces, fl->start[fl->nfaces])) return 1;
    for (mmx_index f = 0; f <= fl->nfaces; f++) o->start[f] = fl->start[f];
    for (mmx_index k = 0; k < fl->start[fl->nfaces]; k++) o->verts[k] = fl->verts[k];
    for (size_t i = 0; i < 3 * (size_t)fl->nverts; i++) o->pos[i] = fl->pos[i];
    return 0;
}
