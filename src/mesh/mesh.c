/* The mesh: a mesh matrix plus positions. Creation from face lists, copies, free. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "mesh_internal.h"
#include "spla/spla_internal.h"

static int cmp_index(const void *a, const void *b)
{
    mmx_index x = *(const mmx_index *)a, y = *(const mmx_index *)b;
    return (x > y) - (x < y);
}

int mmx__face_problem(const mmx_index *f, mmx_index n, mmx_index nverts, char *why, size_t cap)
{
    mmx_index value = 0;
    switch (mmx__face_fault(f, n, nverts, &value)) {
    case MMX__FACE_OK: return 0;
    case MMX__FACE_ORDER:
        snprintf(why, cap, "face of order %d: a face needs at least 3 vertices", value);
        return 1;
    case MMX__FACE_INDEX:
        snprintf(why, cap, "vertex index %d outside [0, %d)", value, nverts);
        return 1;
    case MMX__FACE_TWICE:
        snprintf(why, cap, "vertex %d appears twice in the face", value);
        return 1;
    default: break; /* MMX__FACE_LONG: a repeat is found by sorting a copy, O(n log n) */
    }
    mmx_index *c = malloc((size_t)n * sizeof *c);
    if (!c) {
        snprintf(why, cap, "out of memory checking a face of order %d", n);
        return 1;
    }
    memcpy(c, f, (size_t)n * sizeof *c);
    qsort(c, (size_t)n, sizeof *c, cmp_index);
    int bad = 0;
    for (mmx_index i = 1; i < n && !bad; i++)
        if (c[i] == c[i - 1]) {
            snprintf(why, cap, "vertex %d appears twice in the face", c[i]);
            bad = 1;
        }
    free(c);
    return bad;
}

mmx_index mmx__first_bad_face(const mmx_index *start, const mmx_index *verts, mmx_index nfaces,
                              mmx_index nverts)
{
    char why[160];
    for (mmx_index f = 0; f < nfaces; f++) {
        const mmx_index *v = verts + start[f];
        const mmx_index n = start[f + 1] - start[f];
        mmx_index value;
        const int fault = mmx__face_fault(v, n, nverts, &value);
        if (fault == MMX__FACE_LONG ? mmx__face_problem(v, n, nverts, why, sizeof why) : fault)
            return f;
    }
    return -1;
}

int mmx__coord_problem(const float *p, char *why, size_t cap)
{
    static const char axis[] = "xyz";
    for (int d = 0; d < 3; d++)
        if (!mmx__coord_ok(p[d])) {
            snprintf(why, cap, "coordinate %c is %s", axis[d], isnan(p[d]) ? "NaN" : "infinite");
            return 1;
        }
    return 0;
}

void mmx_mesh_uv_free(mmx_mesh_uv *uv)
{
    if (!uv) return;
    if (uv->space == MMX_SPACE_HOST) {
        free(uv->values);
        free(uv->index);
    } else { /* in stream order, after the work that reads them */
        mmx_mem_free(uv->ctx, uv->space, uv->values);
        mmx_mem_free(uv->ctx, uv->space, uv->index);
    }
    free(uv);
}

mmx_status mmx__mesh_uv_copy_to(mmx_ctx *ctx, const mmx_mesh_uv *uv, int64_t nnz, mmx_space space,
                                mmx_mesh_uv **out)
{
    *out = NULL;
    if (!uv) return MMX_OK;
    mmx_mesh_uv *c = calloc(1, sizeof *c);
    mmx_status s = c ? MMX_OK : mmx__fail(ctx, MMX_ERR_NOMEM, "out of host memory copying texture coordinates");
    const size_t vbytes = 2 * (size_t)uv->nvalues * sizeof *c->values, ibytes = (size_t)nnz * sizeof *c->index;
    if (!s) {
        c->space = space, c->ctx = space == MMX_SPACE_HOST ? NULL : ctx;
        if (space == MMX_SPACE_HOST) {
            s = mmx__host_alloc(ctx, 2 * (size_t)uv->nvalues + 1, sizeof *c->values, (void **)&c->values);
            if (!s) s = mmx__host_alloc(ctx, (size_t)nnz + 1, sizeof *c->index, (void **)&c->index);
        } else {
            s = mmx_mem_alloc(ctx, space, vbytes, (void **)&c->values);
            if (!s) s = mmx_mem_alloc(ctx, space, ibytes, (void **)&c->index);
        }
    }
    if (!s) {
        c->nvalues = uv->nvalues;
        if (uv->space == MMX_SPACE_HOST && space == MMX_SPACE_HOST) {
            memcpy(c->values, uv->values, vbytes);
            memcpy(c->index, uv->index, ibytes);
        } else {
            /* A device set is read through the context that holds it (ctx may be a host one). */
            mmx_ctx *via = uv->space == MMX_SPACE_HOST ? ctx : uv->ctx;
            if (vbytes) s = mmx_mem_copy(via, c->values, space, uv->values, uv->space, vbytes);
            if (!s && ibytes) s = mmx_mem_copy(via, c->index, space, uv->index, uv->space, ibytes);
            if (s && via != ctx) s = mmx__fail(ctx, s, "texture coordinates: %s", mmx_ctx_error(via));
        }
    }
    if (!s) {
        *out = c;
    } else {
        mmx_mesh_uv_free(c);
    }
    return s;
}

mmx_status mmx_mesh_uv_copy(mmx_ctx *ctx, const mmx_mesh_uv *uv, int64_t nnz, mmx_mesh_uv **out)
{
    MMX__NEED_CTX(ctx);
    return mmx__mesh_uv_copy_to(ctx, uv, nnz, MMX_SPACE_HOST, out);
}

void mmx_mesh_free(mmx_mesh *mesh)
{
    if (!mesh) return;
    struct mmx__mesh_borrow *b = mesh->borrow;
    if (b) { /* the caller's arrays (mmx_mesh_wrap_arrays) are not ours to free */
        if (mesh->M && mesh->M->rowidx == b->rowidx) mesh->M->rowidx = NULL;
        if (mesh->pos == b->pos) mesh->pos = NULL;
    }
    mmx_ctx *ctx = mesh->ctx;
    const mmx_space space = mesh->space;
    mmx__mesh_cache_free(mesh); /* its entries read M: first */
    mmx_csc_free(mesh->M);
    mmx_mem_free(mesh->ctx, mesh->space, mesh->pos); /* device: after the queued work */
    free(mesh->tags);
    mmx_mesh_uv_free(mesh->uv);
    free(mesh->normals);
    free(mesh->colors);
    free(mesh);
    if (b) mmx__mesh_borrow_end(ctx, space, b);
}

mmx_status mmx_mesh_set_normals(mmx_ctx *ctx, mmx_mesh *mesh, const float *normals,
                                mmx_space space)
{
    MMX__NEED_CTX(ctx);
    if (!mesh || !mesh->M) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_mesh_set_normals: the mesh is NULL");
    float *n = NULL;
    if (normals) {
        const size_t bytes = 3 * (size_t)mesh->M->nrows * sizeof *n;
        mmx_status s = mmx__host_alloc(ctx, 3 * (size_t)mesh->M->nrows, sizeof *n, (void **)&n);
        if (!s && bytes) s = mmx_mem_copy(ctx, n, MMX_SPACE_HOST, normals, space, bytes);
        if (s) {
            free(n);
            return s;
        }
    }
    free(mesh->normals);
    mesh->normals = n;
    return MMX_OK;
}

mmx_status mmx__mesh_adopt(mmx_ctx *ctx, mmx_index nverts, mmx_index nfaces, mmx_index *start,
                           mmx_index *verts, float *pos, char *tags, int checked,
                           mmx_mesh **out)
{
    char why[160];
    mmx_status s = MMX_OK;
    mmx_mesh *host = calloc(1, sizeof *host);
    mmx_csc *M = calloc(1, sizeof *M);
    if (!host || !M) s = mmx__fail(ctx, MMX_ERR_NOMEM, "out of host memory for a mesh");
    mmx_index bad = s || checked ? -1 : mmx__first_bad_face(start, verts, nfaces, nverts);
    if (bad >= 0) {
        mmx__face_problem(verts + start[bad], start[bad + 1] - start[bad], nverts, why, sizeof why);
        s = mmx__fail(ctx, MMX_ERR_MESH, "face %d: %s", bad, why);
    }
    for (mmx_index v = 0; !s && !checked && pos && v < nverts; v++)
        if (mmx__coord_problem(pos + 3 * (size_t)v, why, sizeof why))
            s = mmx__fail(ctx, MMX_ERR_MESH, "vertex %d: %s", v, why);
    if (!s) s = mmx__host_alloc(ctx, (size_t)start[nfaces], sizeof *M->val, (void **)&M->val);
    if (s) {
        free(host);
        free(M);
        free(start);
        free(verts);
        free(pos);
        free(tags);
        return s;
    }
    mmx_index *val = M->val;
    *M = (mmx_csc){.nrows = nverts, .ncols = nfaces, .nnz = start[nfaces], .colptr = start,
                   .rowidx = verts, .val = val, .space = MMX_SPACE_HOST, .ctx = ctx};
    mmx__csc_fill_positions(ctx, M);
    mmx__csc_props(ctx, M); /* host: cannot fail */
    *host = (mmx_mesh){.M = M, .pos = pos, .space = MMX_SPACE_HOST, .tags = tags, .ctx = ctx};
    mmx__mesh_cache_attach(host);
    if (mmx_ctx_space(ctx) == MMX_SPACE_HOST) {
        *out = host;
        return MMX_OK;
    }
    s = mmx_mesh_copy(ctx, host, mmx_ctx_space(ctx), out);
    mmx_mesh_free(host);
    return s;
}

mmx_status mmx_mesh_from_faces(mmx_ctx *ctx, mmx_index nverts, mmx_index nfaces,
                               const mmx_index *start, const mmx_index *verts,
                               const float *pos, mmx_mesh **out)
{
    MMX__NEED_CTX(ctx);
    if (!out) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_mesh_from_faces: out is NULL");
    *out = NULL;
    if (nverts < 0 || nfaces < 0 || !start || (nfaces > 0 && !verts))
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_mesh_from_faces: bad sizes (%d vertices, %d faces) or NULL arrays", nverts, nfaces);
    /* Host face lists are the general case of arrays in either space (arrays.c). */
    const mmx_mesh_arrays a = {.nverts = nverts, .nfaces = nfaces, .order = 0, .start = start,
                               .verts = verts, .pos = pos, .space = MMX_SPACE_HOST};
    return mmx_mesh_from_arrays(ctx, &a, out);
}

/* mmx_mesh_copy, with the texture coordinates (in host memory, or in device memory for a
 * device copy of a set there), the normals and the colors (host memory) copied when
 * `with_uv`, else left NULL for the caller. */
static mmx_status mesh_copy(mmx_ctx *ctx, const mmx_mesh *src, mmx_space dst_space, int with_uv,
                            mmx_mesh **out)
{
    *out = NULL;
    mmx_mesh *m = calloc(1, sizeof *m);
    if (!m) return mmx__fail(ctx, MMX_ERR_NOMEM, "out of host memory for a mesh");
    m->space = dst_space;
    m->ctx = ctx;
    mmx__mesh_cache_attach(m);
    mmx_status s = mmx_csc_copy(ctx, src->M, dst_space, &m->M);
    size_t pbytes = (size_t)src->M->nrows * 3 * sizeof(float);
    if (!s && src->pos) s = mmx_mem_alloc(ctx, dst_space, pbytes, (void **)&m->pos);
    if (!s && src->pos) s = mmx_mem_copy(ctx, m->pos, dst_space, src->pos, src->space, pbytes);
    if (!s && src->tags && !(m->tags = strdup(src->tags)))
        s = mmx__fail(ctx, MMX_ERR_NOMEM, "out of host memory copying tags");
    if (!s && with_uv)
        s = mmx__mesh_uv_copy_to(ctx, src->uv, src->M->nnz,
                                 src->uv && src->uv->space != MMX_SPACE_HOST ? dst_space : MMX_SPACE_HOST, &m->uv);
    if (!s && with_uv && src->normals) s = mmx_mesh_set_normals(ctx, m, src->normals, MMX_SPACE_HOST);
    if (!s && with_uv && src->colors) {
        s = mmx__host_alloc(ctx, 3 * (size_t)src->M->nrows + 1, sizeof(float), (void **)&m->colors);
        if (!s) memcpy(m->colors, src->colors, 3 * (size_t)src->M->nrows * sizeof(float));
    }
    if (s) {
        mmx_mesh_free(m);
        return s;
    }
    *out = m;
    return MMX_OK;
}

mmx_status mmx_mesh_copy(mmx_ctx *ctx, const mmx_mesh *src, mmx_space dst_space, mmx_mesh **out)
{
    MMX__NEED_CTX(ctx);
    if (!src || !out) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_mesh_copy: NULL argument");
    return mesh_copy(ctx, src, dst_space, 1, out);
}

static mmx_status host_view(mmx_ctx *ctx, const mmx_mesh *mesh, int with_uv, const mmx_mesh **view)
{
    if (mesh->space == MMX_SPACE_HOST) {
        *view = mesh;
        return MMX_OK;
    }
    /* Texture coordinates on the host already are borrowed; those on the device copied when
     * asked for, else left out (NULL). */
    mmx_mesh *h = NULL;
    mmx_status s = mesh_copy(ctx, mesh, MMX_SPACE_HOST, 0, &h);
    if (!s) h->normals = mesh->normals, h->colors = mesh->colors;
    if (!s && mesh->uv && mesh->uv->space == MMX_SPACE_HOST) h->uv = mesh->uv;
    else if (!s && mesh->uv && with_uv) s = mmx_mesh_uv_copy(ctx, mesh->uv, mesh->M->nnz, &h->uv);
    if (s && h) h->normals = NULL, h->colors = NULL, mmx_mesh_free(h);
    *view = s ? NULL : h;
    return s;
}

mmx_status mmx__mesh_host_view(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_mesh **view)
{
    return host_view(ctx, mesh, 0, view);
}

mmx_status mmx__mesh_host_view_uv(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_mesh **view)
{
    return host_view(ctx, mesh, 1, view);
}

void mmx__mesh_host_release(const mmx_mesh *mesh, const mmx_mesh *view)
{
    if (view == mesh) return;
    if (view->uv == mesh->uv) ((mmx_mesh *)view)->uv = NULL; /* borrowed */
    ((mmx_mesh *)view)->normals = NULL;
    ((mmx_mesh *)view)->colors = NULL;
    mmx_mesh_free((mmx_mesh *)view);
}
