/* The refined mesh's texture coordinates (face-varying data) with OpenSubdiv's default
 * face-varying interpolation, linear everywhere (FVAR_LINEAR_ALL): a child corner's coordinate
 * is its parent face's corner coordinate, the mean of the two at an edge's ends in that face,
 * or the mean of the face's. Computed per corner, face by face, so seams (an edge whose two
 * faces give its ends different coordinates) stay seams; the children's layout is the rules'
 * (rules.h), the same on both paths. The coordinates are then numbered by value, so corners
 * that meet with one coordinate share it. On the host (they live there). */
#include <stdlib.h>
#include <string.h>
#include "subdiv_internal.h"
#include "mesh/mesh_internal.h"

/* The mean of two coordinates, weights 1/2 (OpenSubdiv's linear edge mask). */
static void mid(const float *a, const float *b, float *out)
{
    out[0] = 0.5f * a[0] + 0.5f * b[0], out[1] = 0.5f * a[1] + 0.5f * b[1];
}

/* One level: the children's per-corner coordinates (child) from the parent's (par), for
 * faces of order `order` (0: through colptr). Catmull-Clark and bilinear: a quad per corner;
 * Loop: four triangles per triangle. */
static void uv_level(mmx_scheme scheme, mmx_index nf, mmx_index order, const mmx_index *colptr,
                     const float *par, float *child)
{
    for (mmx_index f = 0; f < nf; f++) {
        const int64_t a = order ? (int64_t)order * f : colptr[f];
        const mmx_index n = order ? order : (mmx_index)(colptr[f + 1] - a);
        if (mmx__scheme_quads(scheme)) {
            float fp[2] = {0.0f, 0.0f};
            const float w = mmx__rule_face_weight(n);
            for (mmx_index s = 0; s < n; s++)
                fp[0] += w * par[2 * (a + s)], fp[1] += w * par[2 * (a + s) + 1];
            for (mmx_index s = 0; s < n; s++) {
                const mmx_index sn = s + 1 == n ? 0 : s + 1, sp = s == 0 ? n - 1 : s - 1;
                float pts[4][2];
                memcpy(pts[0], par + 2 * (a + s), sizeof pts[0]);
                mid(par + 2 * (a + s), par + 2 * (a + sn), pts[1]);
                memcpy(pts[2], fp, sizeof pts[2]);
                mid(par + 2 * (a + sp), par + 2 * (a + s), pts[3]);
                /* The child quad of corner s, in the rules' corner order: (v, e leaving, f, e
                 * arriving), here the symbolic points 0, 1, 2, 3. */
                mmx_index q[4];
                mmx__rule_cc_child(0, 1, 2, 3, q);
                for (int k = 0; k < 4; k++) memcpy(child + 2 * (4 * (a + s) + k), pts[q[k]], sizeof pts[0]);
            }
        } else { /* Loop */
            float pts[6][2];
            for (int s = 0; s < 3; s++) {
                memcpy(pts[s], par + 2 * (a + s), sizeof pts[0]);
                mid(par + 2 * (a + s), par + 2 * (a + (s + 1) % 3), pts[3 + s]);
            }
            static const mmx_index v[3] = {0, 1, 2}, e[3] = {3, 4, 5};
            mmx_index t[12];
            mmx__rule_loop_children(v, e, t);
            for (int k = 0; k < 12; k++) memcpy(child + 2 * (12 * (int64_t)f + k), pts[t[k]], sizeof pts[0]);
        }
    }
}

mmx_status mmx__subdiv_uv(mmx_ctx *ctx, mmx_scheme scheme, const mmx_mesh *mesh, int levels,
                          mmx_mesh *out)
{
    if (!mesh->uv || levels == 0 || scheme == MMX_SCHEME_SQRT3) return MMX_OK;
    const mmx_mesh *h = NULL;
    float *cur = NULL, *next = NULL;
    mmx_index *order = NULL;
    mmx_mesh_uv *uv = NULL;
    mmx_status s = mmx__mesh_host_view(ctx, mesh, &h);
    if (s) return s;
    const mmx_csc *M = h->M;
    int64_t nnz = M->nnz, nf = M->ncols;
    s = mmx__host_alloc(ctx, 2 * (size_t)nnz + 2, sizeof *cur, (void **)&cur);
    for (int64_t q = 0; !s && q < nnz; q++)
        memcpy(cur + 2 * q, mesh->uv->values + 2 * (size_t)mesh->uv->index[q], 2 * sizeof *cur);
    for (int l = 0; !s && l < levels; l++) {
        /* A child face per corner (quads) or four per triangle: 4 nnz child corners either way. */
        s = mmx__host_alloc(ctx, 8 * (size_t)nnz + 2, sizeof *next, (void **)&next);
        if (!s) uv_level(scheme, (mmx_index)nf, l == 0 ? M->order : (mmx__scheme_quads(scheme) ? 4 : 3),
                         l == 0 ? M->colptr : NULL, cur, next);
        free(cur);
        cur = next, next = NULL;
        nf = mmx__scheme_quads(scheme) ? nnz : 4 * nf;
        nnz = 4 * nnz;
    }
    /* Number the coordinates by value: equal corners share one. */
    if (!s && nnz != out->M->nnz)
        s = mmx__fail(ctx, MMX_ERR_INTERNAL, "texture coordinates: %lld corners, the mesh has %d",
                      (long long)nnz, out->M->nnz);
    uv = s ? NULL : calloc(1, sizeof *uv);
    if (!s && !uv) s = mmx__fail(ctx, MMX_ERR_NOMEM, "out of host memory for texture coordinates");
    if (!s) s = mmx__host_alloc(ctx, (size_t)nnz + 1, sizeof *order, (void **)&order);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nnz + 1, sizeof *uv->index, (void **)&uv->index);
    if (!s) s = mmx__host_alloc(ctx, 2 * (size_t)nnz + 2, sizeof *uv->values, (void **)&uv->values);
    uint64_t *key = NULL, *ktmp = NULL;
    mmx_index *vtmp = NULL;
    if (!s) s = mmx__host_alloc(ctx, (size_t)nnz + 1, sizeof *key, (void **)&key);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nnz + 1, sizeof *ktmp, (void **)&ktmp);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nnz + 1, sizeof *vtmp, (void **)&vtmp);
    if (!s) {
        /* The corners sorted by their coordinates' bits (stably: equal ones in corner order). */
        for (int64_t q = 0; q < nnz; q++) {
            uint32_t u, v;
            memcpy(&u, cur + 2 * q, 4), memcpy(&v, cur + 2 * q + 1, 4);
            key[q] = (uint64_t)u << 32 | v, order[q] = (mmx_index)q;
        }
        mmx_index *sorted = order;
        const uint64_t *k = mmx__radix_sort_u64(key, ktmp, order, vtmp, (size_t)nnz, 0, 64, &sorted);
        for (int64_t j = 0; j < nnz; j++) {
            if (j == 0 || k[j] != k[j - 1])
                memcpy(uv->values + 2 * (size_t)uv->nvalues++, cur + 2 * (size_t)sorted[j], 2 * sizeof *cur);
            uv->index[sorted[j]] = uv->nvalues - 1;
        }
        mmx_mesh_uv_free(out->uv);
        out->uv = uv;
        uv = NULL;
    }
    mmx_mesh_uv_free(uv);
    free(cur), free(order), free(key), free(ktmp), free(vtmp);
    mmx__mesh_host_release(mesh, h);
    return s;
}
