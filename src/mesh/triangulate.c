/* Triangulation (mesh.h, mmx_mesh_triangulate): every face of order c becomes c - 2 triangles
 * over its own corners, in one pass over the face lists on the host. A quad is cut along its
 * shorter diagonal (the better-shaped pair of triangles; on a tie, corners 0-2); any other
 * polygon is a fan from its first corner. Both are fixed rules of the face's own corners, so
 * the result is the same bytes every run, and linear in the corners whatever the face sizes. */
#include <stdlib.h>
#include <string.h>
#include "mesh_internal.h"

static float dist2(const float *pos, mmx_index a, mmx_index b)
{
    const float *p = pos + 3 * (size_t)a, *q = pos + 3 * (size_t)b;
    const float dx = p[0] - q[0], dy = p[1] - q[1], dz = p[2] - q[2];
    return dx * dx + dy * dy + dz * dz;
}

/* The corners (offsets into the face's own list) of the face's triangles, 3 per triangle:
 * the rule above. */
static void face_triangles(const mmx_index *v, mmx_index c, const float *pos, mmx_index *out)
{
    if (c == 4 && pos && dist2(pos, v[1], v[3]) < dist2(pos, v[0], v[2])) {
        const mmx_index quad[6] = {0, 1, 3, 1, 2, 3};
        memcpy(out, quad, sizeof quad);
        return;
    }
    for (mmx_index i = 1; i + 1 < c; i++, out += 3) out[0] = 0, out[1] = i, out[2] = i + 1;
}

/* The tags of the result: the vertices keep their numbers, so creases and corners stand as
 * they are; a hole face becomes its triangles (they follow each other, from tri_start[f]). */
static mmx_status carry_tags(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_index *tri_start,
                             mmx_mesh *out)
{
    mmx_mesh_tags *T = NULL;
    mmx_status s = mmx_mesh_tags_parse(ctx, mesh, &T);
    if (s) return s;
    if (T->nholes == 0) {
        mmx_mesh_tags_free(T);
        size_t n = strlen(mesh->tags) + 1;
        out->tags = malloc(n);
        if (!out->tags) return mmx__fail(ctx, MMX_ERR_NOMEM, "out of host memory for the tags");
        memcpy(out->tags, mesh->tags, n);
        return MMX_OK;
    }
    size_t count = 0;
    for (mmx_index h = 0; h < T->nholes; h++)
        count += (size_t)(tri_start[T->holes[h] + 1] - tri_start[T->holes[h]]);
    mmx_index *holes = malloc((count ? count : 1) * sizeof *holes);
    if (!holes) s = mmx__fail(ctx, MMX_ERR_NOMEM, "out of host memory for the tags");
    size_t k = 0;
    for (mmx_index h = 0; !s && h < T->nholes; h++)
        for (mmx_index t = tri_start[T->holes[h]]; t < tri_start[T->holes[h] + 1]; t++) holes[k++] = t;
    if (!s) {
        free(T->holes);
        T->holes = holes, T->nholes = (mmx_index)count;
        s = mmx__mesh_set_tags(ctx, out, T, 0);
    }
    mmx_mesh_tags_free(T);
    return s;
}

mmx_status mmx_mesh_triangulate(mmx_ctx *ctx, const mmx_mesh *mesh, mmx_mesh **out)
{
    if (!out) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_mesh_triangulate: out is NULL");
    *out = NULL;
    if (!ctx || !mesh || !mesh->M)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_mesh_triangulate: NULL context or mesh");
    const mmx_index nv = mmx_mesh_nverts(mesh), nf = mmx_mesh_nfaces(mesh);
    mmx_index *start = NULL, *verts = NULL, *tstart = NULL, *tverts = NULL, *tri_start = NULL;
    float *pos = NULL;
    mmx_mesh_uv *uv = NULL;
    mmx_status s = mmx_mesh_faces(ctx, mesh, &start, &verts);
    /* A face of c corners gives c - 2 triangles: fewer than the corners. */
    const size_t ntri = s ? 0 : (size_t)start[nf] - 2 * (size_t)nf;
    if (!s && 3 * ntri > (size_t)MMX_INDEX_MAX)
        s = mmx__fail(ctx, MMX_ERR_OVERFLOW, "mmx_mesh_triangulate: %zu triangles would not fit in "
                      "32-bit indices", ntri);
    if (!s) s = mmx__host_alloc(ctx, ntri + 1, sizeof *tstart, (void **)&tstart);
    if (!s) s = mmx__host_alloc(ctx, 3 * ntri + 1, sizeof *tverts, (void **)&tverts);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nf + 1, sizeof *tri_start, (void **)&tri_start);
    if (!s && mesh->pos) s = mmx__host_alloc(ctx, 3 * (size_t)nv + 1, sizeof *pos, (void **)&pos);
    if (!s && mesh->pos && nv > 0)
        s = mmx_mem_copy(ctx, pos, MMX_SPACE_HOST, mesh->pos, mesh->space, 3 * (size_t)nv * sizeof *pos);
    /* The texture coordinates: each new corner takes its old corner's. */
    if (!s && mesh->uv) s = mmx_mesh_uv_copy(ctx, mesh->uv, start[nf], &uv);
    mmx_index *tuv = NULL;
    if (!s && uv) s = mmx__host_alloc(ctx, 3 * ntri + 1, sizeof *tuv, (void **)&tuv);
    if (s) goto done;
    size_t t = 0;
    for (mmx_index f = 0; f < nf; f++) {
        const mmx_index c = start[f + 1] - start[f];
        tri_start[f] = (mmx_index)t;
        /* At most 2 triangles need a table; a fan's corners are written in place. */
        mmx_index *corner = tverts + 3 * t;
        face_triangles(verts + start[f], c, pos, corner);
        for (mmx_index k = 0; k < 3 * (c - 2); k++) {
            if (tuv) tuv[3 * t + (size_t)k] = uv->index[start[f] + corner[k]];
            corner[k] = verts[start[f] + corner[k]];
        }
        t += (size_t)(c - 2);
    }
    tri_start[nf] = (mmx_index)t;
    for (size_t i = 0; i <= ntri; i++) tstart[i] = (mmx_index)(3 * i);
    /* The triangles of valid faces are valid: no second check. adopt owns (and frees) the
     * arrays from here. */
    s = mmx__mesh_adopt(ctx, nv, (mmx_index)ntri, tstart, tverts, pos, NULL, 1, out);
    tstart = tverts = NULL, pos = NULL;
    if (!s && uv) {
        free(uv->index);
        uv->index = tuv, tuv = NULL;
        (*out)->uv = uv, uv = NULL;
    }
    if (!s && mesh->normals) s = mmx_mesh_set_normals(ctx, *out, mesh->normals, MMX_SPACE_HOST);
    if (!s && mesh->tags) s = carry_tags(ctx, mesh, tri_start, *out);
    if (s) {
        mmx_mesh_free(*out);
        *out = NULL;
    }
done:
    free(start);
    free(verts);
    free(tstart);
    free(tverts);
    free(tri_start);
    free(pos);
    free(tuv);
    mmx_mesh_uv_free(uv);
    return s;
}
