/* The refined mesh's texture coordinates (face-varying data). OpenSubdiv's default face-varying
 * interpolation, linear everywhere (FVAR_LINEAR_ALL): a child corner's coordinate is its parent
 * face's corner coordinate, the mean of the two at an edge's ends in that face, or the mean of
 * the face's, so seams (an edge whose two faces give its ends different coordinates) stay
 * seams. The smooth modes refine the texture mesh (the coordinates as vertices, the faces'
 * corners as faces) by the scheme's rules, seams and boundary sharp; the linear mode refines
 * it bilinearly (Catmull-Clark, bilinear), or (Loop, and a texture mesh that a mesh matrix
 * cannot hold) computes each child corner face by face (uv_face.h) and numbers the
 * coordinates by value, so corners that meet with one coordinate share it. The children's
 * layout is the rules' (rules.h), the same on both paths.
 *
 * Where it runs: on the context's backend. The texture mesh is built on the host from the
 * input (a cage: its faces and coordinates, read back on CUDA) and refined by mmx_subdivide
 * on the context, so on CUDA by the fused kernels, whose topology is the host's exactly; in
 * the linear mode the default path keeps it, checked, in the mesh's cache and refines it from
 * there (below: no wait, nothing read back). The per-corner way runs its levels and its
 * numbering (a stable radix sort of the coordinates' bits) in uv.cu on CUDA. A CUDA result's
 * coordinates stay in device memory (mesh.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fused.h"
#include "uv_face.h"
#include "mesh/mesh_internal.h"

/* One level on the host: the children's per-corner coordinates (child) from the parent's
 * (par), for faces of order `order` (0: through colptr), by the rule shared with uv.cu. */
static void uv_level(mmx_scheme scheme, mmx_index nf, mmx_index order, const mmx_index *colptr,
                     const float *par, float *child)
{
    for (mmx_index f = 0; f < nf; f++) {
        const int64_t a = order ? (int64_t)order * f : colptr[f];
        const mmx_index n = order ? order : (mmx_index)(colptr[f + 1] - a);
        mmx__uv_face(mmx__scheme_quads(scheme), f, a, n, par, child);
    }
}

/* A crease as a sortable key: its lower and higher vertex. */
typedef struct crease_key {
    mmx_index lo, hi;
    float s;
} crease_key;

static int crease_cmp(const void *x, const void *y)
{
    const crease_key *a = x, *b = y;
    if (a->lo != b->lo) return a->lo < b->lo ? -1 : 1;
    return a->hi < b->hi ? -1 : a->hi > b->hi;
}

/* The texture mesh of `h` (a host mesh with uv): its coordinates as vertices (u, v, 0), its
 * faces with each corner's coordinate, and tags that give it the vertex mesh's sharp features
 * (each crease on every texture edge of a face that has the crease's edge, each corner on every
 * coordinate of its vertex, the crease method and the triangle rule) and the mode's boundary:
 * seams and the boundary are the texture mesh's boundary, sharp; CORNERS_ONLY keeps its
 * corners (edge and corner), BOUNDARIES every boundary value (infinitely sharp corners).
 * Without `tagged` (the linear mode, refined bilinearly: no sharp rules) it has no tags. */
static mmx_status texture_mesh(mmx_ctx *hc, const mmx_mesh *h, const mmx__subdiv_sharp *sh,
                               mmx_fvar_mode mode, int tagged, mmx_mesh **out)
{
    const mmx_csc *M = h->M;
    const mmx_mesh_uv *uv = h->uv;
    const int64_t nnz = M->nnz;
    mmx_index *start = NULL;
    float *pos = NULL;
    crease_key *keys = NULL;
    mmx_mesh_tags t = {0, NULL, NULL, 0, NULL, NULL, 0, NULL, -1, -1, -1, -1, -1};
    mmx_adjacency *adj = NULL;
    unsigned char *bnd = NULL;
    mmx_status s = mmx__host_alloc(hc, (size_t)M->ncols + 1, sizeof *start, (void **)&start);
    if (!s) s = mmx__host_alloc(hc, 3 * (size_t)uv->nvalues + 1, sizeof *pos, (void **)&pos);
    if (s) goto done;
    for (mmx_index f = 0; f <= M->ncols; f++)
        start[f] = M->order ? M->order * f : M->colptr[f];
    for (mmx_index k = 0; k < uv->nvalues; k++)
        pos[3 * (size_t)k] = uv->values[2 * (size_t)k], pos[3 * (size_t)k + 1] = uv->values[2 * (size_t)k + 1],
        pos[3 * (size_t)k + 2] = 0.0f;
    s = mmx_mesh_from_faces(hc, uv->nvalues, M->ncols, start, uv->index, pos, out);
    if (s || !tagged) goto done;
    const mmx_mesh_tags *vt = sh->tags;
    if (vt && vt->ncreases) { /* the creases, looked up by each face's edges */
        s = mmx__host_alloc(hc, (size_t)vt->ncreases, sizeof *keys, (void **)&keys);
        for (mmx_index k = 0; !s && k < vt->ncreases; k++) {
            const mmx_index a = vt->crease_verts[2 * (size_t)k], b = vt->crease_verts[2 * (size_t)k + 1];
            keys[k] = (crease_key){a < b ? a : b, a < b ? b : a, vt->crease_sharpness[k]};
        }
        if (!s) qsort(keys, (size_t)vt->ncreases, sizeof *keys, crease_cmp);
        if (!s) s = mmx__host_alloc(hc, 2 * (size_t)nnz + 1, sizeof *t.crease_verts, (void **)&t.crease_verts);
        if (!s) s = mmx__host_alloc(hc, (size_t)nnz + 1, sizeof *t.crease_sharpness, (void **)&t.crease_sharpness);
        for (mmx_index f = 0; !s && f < M->ncols; f++)
            for (mmx_index q = start[f]; q < start[f + 1]; q++) {
                const mmx_index nq = q + 1 == start[f + 1] ? start[f] : q + 1;
                const mmx_index a = M->rowidx[q], b = M->rowidx[nq];
                const crease_key k = {a < b ? a : b, a < b ? b : a, 0.0f};
                const crease_key *hit = bsearch(&k, keys, (size_t)vt->ncreases, sizeof *keys, crease_cmp);
                if (!hit) continue;
                t.crease_verts[2 * (size_t)t.ncreases] = uv->index[q];
                t.crease_verts[2 * (size_t)t.ncreases + 1] = uv->index[nq];
                t.crease_sharpness[t.ncreases++] = hit->s;
            }
    }
    /* Corners: every coordinate of a sharp vertex (vsharp: the corner tags and the vertices of
     * several fans), and in the BOUNDARIES mode every boundary coordinate. */
    float *vs = NULL;
    if (!s && sh->vsharp) {
        s = mmx__host_alloc(hc, (size_t)sh->nv0 + 1, sizeof *vs, (void **)&vs);
        /* vsharp lives in sh->ctx's space (device memory on a CUDA context): that context
         * copies it, and its error is named on hc, which this function reports through. */
        const mmx_status cs = s ? MMX_OK : mmx_mem_copy(sh->ctx, vs, MMX_SPACE_HOST, sh->vsharp,
                                                         mmx_ctx_space(sh->ctx), (size_t)sh->nv0 * sizeof *vs);
        if (cs) s = mmx__fail(hc, cs, "%s", mmx_ctx_error(sh->ctx));
    }
    if (!s && mode == MMX_FVAR_BOUNDARIES) {
        s = mmx_adjacency_compute(hc, *out, &adj);
        if (!s) bnd = adj->boundary;
    }
    if (!s) s = mmx__host_alloc(hc, (size_t)nnz + 1, sizeof *t.corner_verts, (void **)&t.corner_verts);
    if (!s) s = mmx__host_alloc(hc, (size_t)nnz + 1, sizeof *t.corner_sharpness, (void **)&t.corner_sharpness);
    for (int64_t q = 0; !s && q < nnz; q++) {
        const mmx_index v = M->rowidx[q], u = uv->index[q];
        float c = vs && v < sh->nv0 ? vs[v] : 0.0f;
        if (bnd && bnd[u]) c = MMX__SHARP_INF;
        if (c > 0.0f) t.corner_verts[t.ncorners] = u, t.corner_sharpness[t.ncorners++] = c;
    }
    free(vs);
    t.interpolate_boundary = mode == MMX_FVAR_CORNERS_ONLY ? 1 : 2;
    t.crease_method = sh->chaikin;
    t.smooth_triangles = sh->smooth_tris;
    if (!s) s = mmx__mesh_set_tags(hc, *out, &t, 0);
done:
    free(start), free(pos), free(keys);
    free(t.crease_verts), free(t.crease_sharpness), free(t.corner_verts), free(t.corner_sharpness);
    mmx_adjacency_free(adj);
    if (s) mmx_mesh_free(*out), *out = NULL;
    return s;
}

/* The texture mesh refined by `scheme` (texture_mesh: the scheme's own rules in the smooth
 * modes, bilinear in the linear one): its faces are the result's, corner for corner (the same
 * layout), and its vertices the coordinates. The texture mesh is made on the host from h (the
 * input's host view) and refined on ctx's backend: on CUDA it is copied down (a cage), and
 * the result's coordinates are made on the device from the refined texture mesh, whose
 * corners become their index as they are. With `quiet`, a texture mesh that a mesh matrix
 * cannot hold (MMX_ERR_MESH: a face repeating a coordinate, two faces on the same ones) is
 * returned as the status alone, ctx's error left as it was, for the caller to take another
 * way. */
static mmx_status uv_mesh(mmx_ctx *ctx, mmx_scheme scheme, const mmx_mesh *h,
                          const mmx__subdiv_sharp *sh, mmx_fvar_mode mode, int levels, int quiet,
                          int64_t nnz_out, mmx_mesh_uv **out)
{
    mmx_ctx *hc = NULL;
    mmx_mesh *tm = NULL, *dtm = NULL, *fine = NULL;
    mmx_mesh_uv *uv = NULL;
    const int dev = mmx_ctx_space(ctx) != MMX_SPACE_HOST;
    char saved[MMX__ERRLEN];
    snprintf(saved, sizeof saved, "%s", mmx_ctx_error(ctx));
    mmx_status s = mmx_ctx_create(&hc);
    if (s) return mmx__fail(ctx, s, "texture coordinates: no host context");
    mmx_subdiv_options o = {0};
    o.holes = MMX_HOLES_KEEP;
    mmx_ctx *ec = hc; /* the context that holds the error */
    s = texture_mesh(hc, h, sh, mode, scheme != MMX_SCHEME_BILINEAR, &tm);
    if (!s && dev) ec = ctx, s = mmx_mesh_copy(ctx, tm, MMX_SPACE_DEVICE, &dtm);
    if (!s) ec = dev ? ctx : hc, s = mmx_subdivide(ec, scheme, dev ? dtm : tm, levels, &o, &fine);
    if (!s && fine->M->nnz != nnz_out)
        ec = hc, s = mmx__fail(hc, MMX_ERR_INTERNAL, "%d texture corners, the mesh has %lld", fine->M->nnz, (long long)nnz_out);
    if (s && quiet && s == MMX_ERR_MESH) {
        if (ec == ctx) snprintf(ctx->err, sizeof ctx->err, "%s", saved);
        mmx_mesh_free(dtm);
        mmx_mesh_free(tm);
        mmx_ctx_free(hc);
        return s;
    }
    if (s) {
        char why[MMX__ERRLEN];
        snprintf(why, sizeof why, "%s", mmx_ctx_error(ec));
        s = mmx__fail(ctx, s, "texture coordinates: %s", why);
    }
    if (!s && !(uv = calloc(1, sizeof *uv))) s = mmx__fail(ctx, MMX_ERR_NOMEM, "out of host memory");
    if (!s && dev) {
        /* The refined corners are the index as they are (taken from the refined mesh), the
         * coordinates its positions' first two components. */
        uv->space = MMX_SPACE_DEVICE, uv->ctx = ctx, uv->nvalues = fine->M->nrows;
        uv->index = fine->M->rowidx;
        fine->M->rowidx = NULL;
        s = mmx_mem_alloc(ctx, MMX_SPACE_DEVICE, 2 * (size_t)uv->nvalues * sizeof *uv->values, (void **)&uv->values);
        if (!s) s = mmx__uv_from_pos_cuda(ctx, fine->pos, uv->nvalues, uv->values);
    } else if (!s) {
        s = mmx__host_alloc(ctx, (size_t)fine->M->nnz + 1, sizeof *uv->index, (void **)&uv->index);
        if (!s) s = mmx__host_alloc(ctx, 2 * (size_t)fine->M->nrows + 1, sizeof *uv->values, (void **)&uv->values);
        if (!s) {
            uv->nvalues = fine->M->nrows;
            /* A mesh without faces has no corners (and its rowidx may be NULL). */
            if (fine->M->nnz) memcpy(uv->index, fine->M->rowidx, (size_t)fine->M->nnz * sizeof *uv->index);
            for (mmx_index k = 0; k < uv->nvalues; k++)
                uv->values[2 * (size_t)k] = fine->pos[3 * (size_t)k], uv->values[2 * (size_t)k + 1] = fine->pos[3 * (size_t)k + 1];
        }
    }
    if (!s) {
        *out = uv;
        uv = NULL;
    }
    mmx_mesh_uv_free(uv);
    mmx_mesh_free(fine);
    mmx_mesh_free(dtm);
    mmx_mesh_free(tm);
    mmx_ctx_free(hc);
    return s;
}

/* ---- the linear mode's texture mesh kept in the mesh's cache (MMX__CACHE_UV) ----
 *
 * Catmull-Clark's and bilinear's linear mode refine the texture mesh bilinearly, and that mesh
 * depends on the faces and the coordinates' index only, not on the coordinates' values nor on
 * the tags: its adjacency, its checks and its fused input level are made by the first call on
 * a mesh and kept with it, as the tags' entry is (tags_dev.c). A later call copies its
 * coordinates into the texture mesh's positions and queues the levels from the kept input
 * level: on CUDA no wait and no read-back, where making and refining the texture mesh took
 * six (the cage read back, the texture mesh's adjacency and checks). The entry serves the
 * index it was made from only (compared with a host copy of it, as the tags' entry compares
 * the tags' text): a program may rewrite mesh->uv in place. */
typedef struct uv_entry {
    mmx_ctx *ctx;
    int64_t nnz;          /* the corners and coordinates it was made for */
    mmx_index nvalues;
    mmx_index *index;     /* a host copy of the index it was made from */
    int usable;           /* 0: the fused path does not take the texture mesh (a mesh matrix
                             cannot hold it, an edge of three faces or more, an edge run the
                             same way by both faces): every call takes the reference route */
    mmx_mesh *tm;         /* the texture mesh in ctx's space; each call's coordinates go into
                             its positions, which the input level borrows */
    mmx_adjacency *adj;
    mmx__subdiv_sharp sharp; /* as mmx_subdivide resolves it for the texture mesh (no tags;
                                vertices of several fans made corners) */
    mmx__fz_level lv0;    /* its input level, checked (mmx__fz_input) */
    float *vals;          /* CUDA: room for a call's coordinates copied down */
} uv_entry;

static void uv_entry_free(void *p)
{
    uv_entry *E = p;
    if (!E) return;
    mmx__fz_level_free(E->ctx, &E->lv0);
    mmx__subdiv_sharp_free(&E->sharp);
    mmx_adjacency_free(E->adj);
    mmx_mesh_free(E->tm);
    if (E->vals) mmx_mem_free(E->ctx, mmx_ctx_space(E->ctx), E->vals);
    free(E->index);
    free(E);
}

static size_t uv_entry_bytes(const uv_entry *E)
{
    if (!E->usable) return (size_t)E->nnz * sizeof(mmx_index);
    /* The texture mesh (matrix, positions), its adjacency's arrays, the level's five. */
    return (size_t)E->nnz * (4 * sizeof(mmx_index)) + (size_t)E->nnz * 6 * sizeof(mmx_index) +
           (size_t)E->nvalues * 5 * sizeof(float);
}

static int uv_entry_serves(const uv_entry *E, const mmx_mesh *mesh)
{
    const mmx_mesh_uv *uv = mesh->uv;
    return E->nnz == mesh->M->nnz && E->nvalues == uv->nvalues &&
           (E->nnz == 0 || memcmp(E->index, uv->index, (size_t)E->nnz * sizeof *E->index) == 0);
}

/* The entry's texture mesh, checked as mmx_subdivide checks it on the fused path; E->usable
 * left 0 where that path would not take it (the reason is the reference route's to name:
 * ctx's error is left as it was). */
static mmx_status uv_entry_level(mmx_ctx *ctx, const mmx_mesh *mesh, uv_entry *E)
{
    mmx_ctx *hc = NULL;
    mmx_mesh *hm = NULL;
    char saved[MMX__ERRLEN];
    snprintf(saved, sizeof saved, "%s", mmx_ctx_error(ctx));
    /* The untagged texture mesh reads the faces' starts and the coordinates (host) only: a
     * view of the mesh with those on the host, a reduced matrix's starts in closed form and a
     * general one's read back (one wait on CUDA, once a mesh), its vertices not read. */
    mmx_csc hM = *mesh->M;
    mmx_mesh hv;
    memset(&hv, 0, sizeof hv);
    hM.rowidx = NULL, hM.val = NULL, hM.x = NULL, hM.space = MMX_SPACE_HOST;
    hv.M = &hM, hv.uv = mesh->uv, hv.space = MMX_SPACE_HOST;
    mmx_index *starts = NULL;
    mmx_status s = MMX_OK;
    if (!hM.order && mesh->space != MMX_SPACE_HOST) {
        s = mmx__host_alloc(ctx, (size_t)hM.ncols + 1, sizeof *starts, (void **)&starts);
        if (!s) s = mmx_mem_copy(ctx, starts, MMX_SPACE_HOST, mesh->M->colptr, mesh->space,
                                 ((size_t)hM.ncols + 1) * sizeof *starts);
        hM.colptr = starts;
    }
    if (!s) s = mmx_ctx_create(&hc);
    const mmx_status t = s ? s : texture_mesh(hc, &hv, NULL, MMX_FVAR_LINEAR_ALL, 0, &hm);
    /* A face repeating a coordinate: the reference route takes it per corner (usable 0). */
    if (!s && t && t != MMX_ERR_MESH) s = mmx__fail(ctx, t, "texture coordinates: %s", mmx_ctx_error(hc));
    mmx_ctx_free(hc);
    free(starts);
    if (!s && hm) s = mmx_mesh_copy(ctx, hm, mmx_ctx_space(ctx), &E->tm);
    mmx_mesh_free(hm);
    if (s || !E->tm) return s;
    /* mmx_subdivide's preparation of the texture mesh (uv_mesh's call): its adjacency and fast
     * checks; the checks its levels would make follow (mmx__subdiv_fused's). */
    mmx_subdiv_options o, r;
    memset(&o, 0, sizeof o);
    o.holes = MMX_HOLES_KEEP;
    double ms = 0;
    s = mmx__subdiv_prepare(ctx, "texture coordinates", MMX_SCHEME_BILINEAR, E->tm, 1, &o, 1, 0, &r,
                            &E->adj, &ms, &E->sharp);
    /* An edge of three faces or more sends the texture mesh to the algebraic path: not kept. */
    const int fused = !s && r.path != MMX_SUBDIV_PATH_ALGEBRAIC;
    mmx__fault fault = {MMX__FAULT_NONE, 0};
    if (fused) s = mmx__fz_input(ctx, MMX_SCHEME_BILINEAR, E->tm, E->adj, MMX__FZ_BORROW, 0, &E->lv0, &fault);
    if (fused && !s && fault.kind == MMX__FAULT_FANS) {
        s = mmx__subdiv_fan_corners(ctx, E->tm, E->adj, &E->sharp);
        if (!s) s = mmx__fz_input(ctx, MMX_SCHEME_BILINEAR, E->tm, E->adj, MMX__FZ_BORROW, 1, &E->lv0, &fault);
    }
    if (s == MMX_ERR_MESH || s == MMX_ERR_UNSUPPORTED) {
        snprintf(ctx->err, sizeof ctx->err, "%s", saved);
        return MMX_OK;
    }
    if (!s && fused && !fault.kind) E->usable = 1;
    if (!s && E->usable && mmx_ctx_space(ctx) != MMX_SPACE_HOST)
        s = mmx_mem_alloc(ctx, MMX_SPACE_DEVICE, (2 * (size_t)E->nvalues + 1) * sizeof *E->vals,
                          (void **)&E->vals);
    return s;
}

/* The mesh's entry: the kept one where it serves the mesh's index, else made (and kept where
 * the cache serves the call; else *own is the caller's to free). */
static mmx_status uv_entry_get(mmx_ctx *ctx, const mmx_mesh *mesh, uv_entry **entry, uv_entry **own)
{
    *own = NULL;
    uv_entry *kept = mmx__mesh_cache_get(ctx, mesh, MMX__CACHE_UV);
    if (kept && uv_entry_serves(kept, mesh)) {
        *entry = kept;
        return MMX_OK;
    }
    uv_entry *E = calloc(1, sizeof *E);
    if (!E) return mmx__fail(ctx, MMX_ERR_NOMEM, "texture coordinates: out of host memory");
    E->ctx = ctx, E->nnz = mesh->M->nnz, E->nvalues = mesh->uv->nvalues;
    mmx_status s = mmx__host_alloc(ctx, (size_t)E->nnz + 1, sizeof *E->index, (void **)&E->index);
    if (!s && E->nnz) memcpy(E->index, mesh->uv->index, (size_t)E->nnz * sizeof *E->index);
    if (!s) s = uv_entry_level(ctx, mesh, E);
    if (s) {
        uv_entry_free(E);
        return s;
    }
    if (kept) mmx__mesh_cache_drop(mesh, MMX__CACHE_UV);
    if (!mmx__mesh_cache_put(ctx, mesh, MMX__CACHE_UV, E, uv_entry_free, uv_entry_bytes(E))) *own = E;
    *entry = E;
    return MMX_OK;
}

/* The refined coordinates from a usable entry: this call's coordinates (mesh->uv, host) as the
 * texture mesh's positions, `levels` bilinear levels from the kept input level (queued, no
 * wait), the last level's faces the index and its positions the coordinates. The bytes of
 * uv_mesh's refinement: the same passes on the same level. */
static mmx_status uv_entry_refine(mmx_ctx *ctx, uv_entry *E, const mmx_mesh_uv *uv, int levels,
                                  int64_t nnz_out, mmx_mesh_uv **out)
{
    const mmx_scheme bl = MMX_SCHEME_BILINEAR;
    const int dev = mmx_ctx_space(ctx) != MMX_SPACE_HOST;
    /* The texture mesh's levels within 32-bit indices (mmx_subdivide's check_sizes; the
     * corners are the mesh's, checked already). */
    int64_t v = E->lv0.nv, f = E->lv0.nf, e = E->lv0.ne, c = E->lv0.nnz;
    for (int l = 1; l <= levels; l++) {
        if (2 * e + 1 > MMX_INDEX_MAX || 2 * c > MMX_INDEX_MAX)
            return mmx__fail(ctx, MMX_ERR_OVERFLOW, "texture coordinates: level %d's texture mesh "
                             "(%lld edges) is too large for 32-bit indices", l - 1, (long long)e);
        mmx_subdiv_predict(bl, v, f, e, c, 1, &v, &f, &e, &c);
        if (v > MMX_INDEX_MAX)
            return mmx__fail(ctx, MMX_ERR_OVERFLOW, "texture coordinates: level %d would have %lld "
                             "coordinates, beyond 32-bit indices", l, (long long)v);
    }
    const size_t n = (size_t)uv->nvalues;
    float *pos = E->tm->pos;
    mmx_status s = MMX_OK;
    if (dev) {
        if (n) s = mmx_mem_copy(ctx, E->vals, MMX_SPACE_DEVICE, uv->values, MMX_SPACE_HOST, 2 * n * sizeof *E->vals);
        if (!s) s = mmx__uv_to_pos_cuda(ctx, E->vals, (mmx_index)n, pos);
    } else {
        for (size_t k = 0; k < n; k++)
            pos[3 * k] = uv->values[2 * k], pos[3 * k + 1] = uv->values[2 * k + 1], pos[3 * k + 2] = 0.0f;
    }
    mmx__fz_level *lv = s ? NULL : calloc((size_t)levels + 1, sizeof *lv);
    if (!s && !lv) s = mmx__fail(ctx, MMX_ERR_NOMEM, "texture coordinates: out of host memory");
    mmx_mesh *fine = NULL;
    if (!s) {
        lv[0] = E->lv0;
        s = mmx__fz_chain_from(ctx, bl, &E->sharp, levels, lv, &fine);
    }
    free(lv);
    if (!s && fine->M->nnz != nnz_out)
        s = mmx__fail(ctx, MMX_ERR_INTERNAL, "texture coordinates: %d texture corners, the mesh has %lld",
                      fine->M->nnz, (long long)nnz_out);
    mmx_mesh_uv *r = s ? NULL : calloc(1, sizeof *r);
    if (!s && !r) s = mmx__fail(ctx, MMX_ERR_NOMEM, "texture coordinates: out of host memory");
    if (!s && dev) {
        r->space = MMX_SPACE_DEVICE, r->ctx = ctx, r->nvalues = fine->M->nrows;
        r->index = fine->M->rowidx;
        fine->M->rowidx = NULL;
        s = mmx_mem_alloc(ctx, MMX_SPACE_DEVICE, (2 * (size_t)r->nvalues + 1) * sizeof *r->values, (void **)&r->values);
        if (!s) s = mmx__uv_from_pos_cuda(ctx, fine->pos, r->nvalues, r->values);
    } else if (!s) {
        const size_t nv = (size_t)fine->M->nrows, nnz = (size_t)fine->M->nnz;
        s = mmx__host_alloc(ctx, nnz + 1, sizeof *r->index, (void **)&r->index);
        if (!s) s = mmx__host_alloc(ctx, 2 * nv + 1, sizeof *r->values, (void **)&r->values);
        if (!s) {
            r->nvalues = (mmx_index)nv;
            if (nnz) memcpy(r->index, fine->M->rowidx, nnz * sizeof *r->index);
            for (size_t k = 0; k < nv; k++)
                r->values[2 * k] = fine->pos[3 * k], r->values[2 * k + 1] = fine->pos[3 * k + 1];
        }
    }
    if (!s) *out = r, r = NULL;
    mmx_mesh_uv_free(r);
    mmx_mesh_free(fine);
    return s;
}

mmx_status mmx__subdiv_uv_texture(mmx_ctx *ctx, mmx_scheme scheme, const mmx_mesh *mesh,
                                  const mmx__subdiv_sharp *sh, mmx_fvar_mode mode, mmx_mesh **tm,
                                  mmx_scheme *tscheme)
{
    *tm = NULL;
    if (!mesh->uv || scheme == MMX_SCHEME_SQRT3) return MMX_OK;
    const int smooth = mode != MMX_FVAR_LINEAR_ALL && scheme != MMX_SCHEME_BILINEAR;
    if (!smooth && !mmx__scheme_quads(scheme)) return MMX_OK; /* Loop's linear mode: per corner */
    *tscheme = smooth ? scheme : MMX_SCHEME_BILINEAR;
    const mmx_mesh *h = NULL;
    mmx_ctx *hc = NULL;
    mmx_mesh *hm = NULL;
    mmx_status s = mmx__mesh_host_view_uv(ctx, mesh, &h);
    if (s) return s;
    s = mmx_ctx_create(&hc);
    if (s) s = mmx__fail(ctx, s, "texture coordinates: no host context");
    if (!s) s = texture_mesh(hc, h, sh, mode, *tscheme != MMX_SCHEME_BILINEAR, &hm);
    if (s && hc) {
        char why[MMX__ERRLEN];
        snprintf(why, sizeof why, "%s", mmx_ctx_error(hc));
        s = mmx__fail(ctx, s, "texture coordinates: %s", why);
    }
    /* On ctx, whose the texture mesh is (hc goes next). */
    if (!s) s = mmx_mesh_copy(ctx, hm, mmx_ctx_space(ctx), tm);
    mmx_mesh_free(hm);
    mmx_ctx_free(hc);
    mmx__mesh_host_release(mesh, h);
    return s;
}

/* The per-corner way on CUDA: the input's per-corner coordinates (cur0, host, nnz0 x 2) copied
 * down, the levels by the kernel of uv_face.h (queued back to back), the numbering by value
 * in uv.cu (its one wait reads the number of coordinates); out->uv in device memory. */
static mmx_status uv_corners_cuda(mmx_ctx *ctx, mmx_scheme scheme, const mmx_mesh *mesh, int levels,
                                  const float *cur0, int64_t nnz_out, mmx_mesh_uv **out)
{
    const mmx_csc *M = mesh->M;
    int64_t nnz = M->nnz, nf = M->ncols;
    float *cur = NULL, *next = NULL;
    mmx_status s = mmx_mem_alloc(ctx, MMX_SPACE_DEVICE, 2 * (size_t)nnz * sizeof *cur, (void **)&cur);
    if (!s && nnz) s = mmx_mem_copy(ctx, cur, MMX_SPACE_DEVICE, cur0, MMX_SPACE_HOST, 2 * (size_t)nnz * sizeof *cur);
    for (int l = 0; !s && l < levels; l++) {
        s = mmx_mem_alloc(ctx, MMX_SPACE_DEVICE, 8 * (size_t)nnz * sizeof *next, (void **)&next);
        if (!s) s = mmx__uv_level_cuda(ctx, mmx__scheme_quads(scheme), (mmx_index)nf,
                                       l == 0 ? M->order : (mmx__scheme_quads(scheme) ? 4 : 3),
                                       l == 0 ? M->colptr : NULL, cur, next);
        mmx_mem_free(ctx, MMX_SPACE_DEVICE, cur); /* in stream order, after the level */
        cur = next, next = NULL;
        nf = mmx__scheme_quads(scheme) ? nnz : 4 * nf;
        nnz = 4 * nnz;
    }
    if (!s && nnz != nnz_out)
        s = mmx__fail(ctx, MMX_ERR_INTERNAL, "texture coordinates: %lld corners, the mesh has %lld",
                      (long long)nnz, (long long)nnz_out);
    mmx_mesh_uv *uv = s ? NULL : calloc(1, sizeof *uv);
    if (!s && !uv) s = mmx__fail(ctx, MMX_ERR_NOMEM, "out of host memory for texture coordinates");
    if (!s) {
        uv->space = MMX_SPACE_DEVICE, uv->ctx = ctx;
        s = mmx_mem_alloc(ctx, MMX_SPACE_DEVICE, (size_t)nnz * sizeof *uv->index, (void **)&uv->index);
    }
    if (!s) s = mmx_mem_alloc(ctx, MMX_SPACE_DEVICE, 2 * (size_t)nnz * sizeof *uv->values, (void **)&uv->values);
    if (!s) s = mmx__uv_number_cuda(ctx, cur, nnz, uv->index, uv->values, &uv->nvalues);
    if (!s) {
        *out = uv;
        uv = NULL;
    }
    mmx_mesh_uv_free(uv);
    mmx_mem_free(ctx, MMX_SPACE_DEVICE, cur);
    return s;
}

mmx_status mmx__subdiv_uv(mmx_ctx *ctx, mmx_scheme scheme, const mmx_mesh *mesh, int levels,
                          const mmx__subdiv_sharp *sh, mmx_fvar_mode mode, int64_t nnz_out,
                          int fast, mmx_mesh_uv **out)
{
    *out = NULL;
    if (!mesh->uv || levels == 0 || scheme == MMX_SCHEME_SQRT3) return MMX_OK;
    const int smooth = mode != MMX_FVAR_LINEAR_ALL && scheme != MMX_SCHEME_BILINEAR;
    /* The linear mode of Catmull-Clark and bilinear from the kept texture mesh (coordinates on
     * the host, where the entry can compare their index without a wait). */
    if (fast && !smooth && mmx__scheme_quads(scheme) && mesh->uv->space == MMX_SPACE_HOST) {
        uv_entry *E = NULL, *own = NULL;
        mmx_status s = uv_entry_get(ctx, mesh, &E, &own);
        if (!s && E->usable) s = uv_entry_refine(ctx, E, mesh->uv, levels, nnz_out, out);
        const int done = s || E->usable;
        uv_entry_free(own); /* in stream order, after the levels that read it */
        if (done) return s;
    }
    /* Catmull-Clark's and bilinear's linear mode is the texture mesh refined bilinearly: the
     * same points as the per-corner computation below, numbered by the refined texture mesh
     * (as OpenSubdiv numbers them) without sorting every corner's coordinate: Bigguy to level
     * 5 on the host, 218 ms where it took 350 to 820. A texture mesh that cannot be refined
     * takes the per-corner way; so does Loop, whose linear rule is not a scheme here. */
    /* The input's host view: on CUDA its faces and coordinates read back (a cage's: waits).
     * The per-corner way on CUDA reads only the coordinates on the host (the levels read the
     * faces on the device): coordinates there already need no view. */
    const mmx_mesh *h = NULL;
    const int corners_only = !smooth && !mmx__scheme_quads(scheme) && mmx_ctx_space(ctx) != MMX_SPACE_HOST &&
                             mesh->uv->space == MMX_SPACE_HOST;
    mmx_status s = corners_only ? MMX_OK : mmx__mesh_host_view_uv(ctx, mesh, &h);
    if (s) return s;
    if (corners_only) h = mesh; /* its uv and sizes only (host fields) */
    if (smooth || mmx__scheme_quads(scheme)) {
        s = uv_mesh(ctx, smooth ? scheme : MMX_SCHEME_BILINEAR, h, sh, mode, levels, !smooth, nnz_out, out);
        if (smooth || s != MMX_ERR_MESH) {
            mmx__mesh_host_release(mesh, h);
            return s;
        }
        s = MMX_OK;
    }
    float *cur = NULL, *next = NULL;
    mmx_index *order = NULL;
    mmx_mesh_uv *uv = NULL;
    const mmx_csc *M = h->M;
    int64_t nnz = M->nnz, nf = M->ncols;
    s = mmx__host_alloc(ctx, 2 * (size_t)nnz + 2, sizeof *cur, (void **)&cur);
    for (int64_t q = 0; !s && q < nnz; q++)
        memcpy(cur + 2 * q, h->uv->values + 2 * (size_t)h->uv->index[q], 2 * sizeof *cur);
    if (mmx_ctx_space(ctx) != MMX_SPACE_HOST) {
        if (!s) s = uv_corners_cuda(ctx, scheme, mesh, levels, cur, nnz_out, out);
        free(cur);
        mmx__mesh_host_release(mesh, h);
        return s;
    }
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
    if (!s && nnz != nnz_out)
        s = mmx__fail(ctx, MMX_ERR_INTERNAL, "texture coordinates: %lld corners, the mesh has %lld",
                      (long long)nnz, (long long)nnz_out);
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
        *out = uv;
        uv = NULL;
    }
    mmx_mesh_uv_free(uv);
    free(cur), free(order), free(key), free(ktmp), free(vtmp);
    mmx__mesh_host_release(mesh, h);
    return s;
}
