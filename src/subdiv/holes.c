/* Holes (OBJ 't hole'): faces that subdivision refines like any other, since their vertices and
 * edges shape their neighbours as in OpenSubdiv, but whose descendants are not part of the
 * surface. Children of a face are stored together (subdiv.h), so the descendants of input face
 * g after L levels are one range of faces: Catmull-Clark and bilinear make one child per corner
 * at level 1 (child c of corner c) and four per face after; Loop makes four per face, sqrt3
 * three. The result either leaves them out, with the vertices only they use (the default, as
 * OpenSubdiv's refined surface), or keeps them, tagged as holes, for a later call. */
#include <stdlib.h>
#include <string.h>
#include "subdiv_internal.h"
#include "mesh/mesh_internal.h"

/* The input face (of M0, on the host) that face F of the result after `levels` levels
 * descends from. */
static mmx_index ancestor(mmx_scheme scheme, const mmx_csc *M0, int levels, mmx_index F)
{
    if (scheme == MMX_SCHEME_SQRT3) {
        int64_t f = F;
        for (int l = 0; l < levels; l++) f /= 3;
        return (mmx_index)f;
    }
    if (scheme == MMX_SCHEME_LOOP) return (mmx_index)((int64_t)F >> (2 * levels));
    const int64_t c = (int64_t)F >> (2 * (levels - 1)); /* the input's corner */
    if (M0->order) return (mmx_index)(c / M0->order);
    mmx_index lo = 0, hi = M0->ncols; /* the last face starting at or before corner c */
    while (hi - lo > 1) {
        const mmx_index mid = lo + (hi - lo) / 2;
        if (M0->colptr[mid] <= c) lo = mid;
        else hi = mid;
    }
    return lo;
}

mmx_status mmx__subdiv_holes(mmx_ctx *ctx, mmx_scheme scheme, const mmx_mesh *mesh, int levels,
                             mmx_hole_mode mode, mmx_mesh **out, mmx_mesh_tags *carry,
                             mmx_index **kept)
{
    if (kept) *kept = NULL;
    const mmx_mesh *in = NULL, *r = NULL;
    unsigned char *hole0 = NULL, *hole = NULL, *use = NULL;
    mmx_index *vmap = NULL, *start = NULL, *verts = NULL;
    float *pos = NULL;
    mmx_mesh *fresh = NULL;
    mmx_status s = mmx__mesh_host_view(ctx, mesh, &in);
    if (!s) s = mmx__mesh_host_view_uv(ctx, *out, &r);
    if (s) goto done;
    const mmx_index nf0 = in->M->ncols, nf = r->M->ncols, nv = r->M->nrows, c = r->M->order;
    s = mmx__host_alloc(ctx, nf0 ? (size_t)nf0 : 1, 1, (void **)&hole0);
    if (!s) s = mmx__host_alloc(ctx, nf ? (size_t)nf : 1, 1, (void **)&hole);
    if (s) goto done;
    memset(hole0, 0, (size_t)nf0);
    for (mmx_index k = 0; k < carry->nholes; k++) hole0[carry->holes[k]] = 1;
    mmx_index nholes = 0;
    for (mmx_index f = 0; f < nf; f++) nholes += hole[f] = hole0[ancestor(scheme, in->M, levels, f)];
    free(carry->holes);
    carry->holes = NULL, carry->nholes = 0;
    if (mode == MMX_HOLES_KEEP) { /* the descendants, tagged */
        if (nholes) s = mmx__host_alloc(ctx, (size_t)nholes, sizeof *carry->holes, (void **)&carry->holes);
        for (mmx_index f = 0; !s && f < nf; f++)
            if (hole[f]) carry->holes[carry->nholes++] = f;
        goto done;
    }
    /* Left out: the descendants, and the vertices only they use (use 1; 2: a kept face uses
     * it; 0: no face, an isolated vertex, kept as every other path keeps it). */
    s = mmx__host_alloc(ctx, nv ? (size_t)nv : 1, 1, (void **)&use);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nv + 1, sizeof *vmap, (void **)&vmap);
    if (s) goto done;
    memset(use, 0, (size_t)nv);
    for (mmx_index f = 0; f < nf; f++)
        for (mmx_index j = 0; j < c; j++) {
            unsigned char *u = &use[r->M->rowidx[(int64_t)c * f + j]];
            if (*u < 2) *u = hole[f] ? 1 : 2;
        }
    mmx_index kept_v = 0;
    for (mmx_index v = 0; v < nv; v++) vmap[v] = use[v] == 1 ? -1 : kept_v++;
    const mmx_index kept_f = nf - nholes;
    s = mmx__host_alloc(ctx, (size_t)kept_f + 1, sizeof *start, (void **)&start);
    if (!s) s = mmx__host_alloc(ctx, (size_t)kept_f * c + 1, sizeof *verts, (void **)&verts);
    if (!s) s = mmx__host_alloc(ctx, (size_t)kept_v * 3 + 1, sizeof *pos, (void **)&pos);
    if (s) goto done;
    mmx_index k = 0;
    for (mmx_index f = 0; f < nf; f++) {
        if (hole[f]) continue;
        start[k] = k * c;
        for (mmx_index j = 0; j < c; j++) verts[k * c + j] = vmap[r->M->rowidx[(int64_t)c * f + j]];
        k++;
    }
    start[kept_f] = kept_f * c;
    for (mmx_index v = 0; v < nv; v++)
        if (vmap[v] >= 0) memcpy(pos + 3 * (int64_t)vmap[v], r->pos + 3 * (int64_t)v, 3 * sizeof *pos);
    /* The carried corners and creases, renumbered; those on a vertex left out go. */
    mmx_index m = 0;
    for (mmx_index q = 0; q < carry->ncorners; q++)
        if (vmap[carry->corner_verts[q]] >= 0)
            carry->corner_verts[m] = vmap[carry->corner_verts[q]],
            carry->corner_sharpness[m++] = carry->corner_sharpness[q];
    carry->ncorners = m;
    m = 0;
    for (mmx_index q = 0; q < carry->ncreases; q++) {
        const mmx_index a = vmap[carry->crease_verts[2 * q]], b = vmap[carry->crease_verts[2 * q + 1]];
        if (a < 0 || b < 0) continue;
        carry->crease_verts[2 * m] = a, carry->crease_verts[2 * m + 1] = b;
        carry->crease_sharpness[m++] = carry->crease_sharpness[q];
    }
    carry->ncreases = m;
    /* The kept vertices' old numbers, for a plan's gather (plan.c). */
    if (kept) s = mmx__host_alloc(ctx, (size_t)kept_v + 1, sizeof **kept, (void **)kept);
    for (mmx_index v = 0; !s && kept && v < nv; v++)
        if (vmap[v] >= 0) (*kept)[vmap[v]] = v;
    if (!s) s = mmx_mesh_from_faces(ctx, kept_v, kept_f, start, verts, pos, &fresh);
    if (!s && kept_f) s = mmx_mesh_reduce(ctx, fresh);
    /* The texture coordinates of the corners kept (every value stays, some unused). */
    if (!s && r->uv) s = mmx_mesh_uv_copy(ctx, r->uv, r->M->nnz, &fresh->uv);
    if (!s && r->uv) {
        mmx_index q = 0;
        for (mmx_index f = 0; f < nf; f++)
            for (mmx_index j = 0; !hole[f] && j < c; j++) fresh->uv->index[q++] = r->uv->index[(int64_t)c * f + j];
    }
    if (!s && r->uv && (*out)->uv->space != MMX_SPACE_HOST) { /* back where they were (CUDA) */
        mmx_mesh_uv *d = NULL;
        s = mmx__mesh_uv_copy_to(ctx, fresh->uv, fresh->M->nnz, (*out)->uv->space, &d);
        if (!s) mmx_mesh_uv_free(fresh->uv), fresh->uv = d;
    }
    if (!s) {
        mmx__mesh_host_release(*out, r);
        r = NULL;
        mmx_mesh_free(*out);
        *out = fresh;
        fresh = NULL;
    }
done:
    if (in) mmx__mesh_host_release(mesh, in);
    if (r) mmx__mesh_host_release(*out, r);
    mmx_mesh_free(fresh);
    free(hole0), free(hole), free(use), free(vmap), free(start), free(verts), free(pos);
    if (s && kept) free(*kept), *kept = NULL;
    return s;
}
