/* Renumbering a mesh: a given permutation of vertices and faces, a random one (a scanned
 * mesh's order), and the thesis's reordering (4.3.4): reverse Cuthill-McKee on the vertex
 * adjacency, then faces sorted by their smallest new vertex. */
#include <string.h>
#include "mesh_internal.h"
#include "spla/spla_internal.h"

/* ---- mmx_mesh_permute --------------------------------------------------------------------- */

/* A host array copied to the device (NULL stays NULL). */
static mmx_status to_device(mmx_ctx *ctx, const mmx_index *h, mmx_index n, mmx_index **d)
{
    *d = NULL;
    if (!h) return MMX_OK;
    size_t bytes = (size_t)n * sizeof *h;
    mmx_status s = mmx_mem_alloc(ctx, MMX_SPACE_DEVICE, bytes, (void **)d);
    if (!s) s = mmx_mem_copy(ctx, *d, MMX_SPACE_DEVICE, h, MMX_SPACE_HOST, bytes);
    return s;
}

/* The new positions: new vertex v sits where old vertex vperm[v] did. */
static mmx_status permute_positions(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_index *vperm,
                                    float *dst)
{
    const mmx_index n = mmx_mesh_nverts(mesh);
    if (!vperm)
        return mmx_mem_copy(ctx, dst, mesh->space, mesh->pos, mesh->space, (size_t)n * 3 * sizeof(float));
    if (mesh->space == MMX_SPACE_HOST) {
        for (mmx_index v = 0; v < n; v++)
            memcpy(dst + 3 * (size_t)v, mesh->pos + 3 * (size_t)vperm[v], 3 * sizeof(float));
        return MMX_OK;
    }
    return mmx__gather_rows3_cuda(ctx, mesh->pos, vperm, n, dst);
}

/* m->uv: mesh's texture coordinates with the faces in fperm's order (NULL: the same order):
 * new face f's corners take old face fperm[f]'s indices; the values are shared as they were.
 * The result is in host memory; of a general-form mesh on the device only the face offsets
 * are read (a wait), and coordinates in device memory are copied to the host (a wait). */
static mmx_status permute_uv(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_index *fperm,
                             mmx_mesh *m)
{
    const mmx_csc *M = mesh->M;
    mmx_status s = mmx_mesh_uv_copy(ctx, mesh->uv, M->nnz, &m->uv);
    if (s || !fperm) return s;
    const mmx_index *colptr = M->colptr, *old = mesh->uv->index;
    mmx_index *hc = NULL, *hold = NULL;
    if (mesh->uv->space != MMX_SPACE_HOST) { /* the copy holds the old indices, on the host */
        s = mmx__host_alloc(ctx, (size_t)M->nnz + 1, sizeof *hold, (void **)&hold);
        if (s) return s;
        memcpy(hold, m->uv->index, (size_t)M->nnz * sizeof *hold);
        old = hold;
    }
    if (!M->order && mesh->space != MMX_SPACE_HOST) {
        s = mmx__host_alloc(ctx, (size_t)M->ncols + 1, sizeof *hc, (void **)&hc);
        if (!s) s = mmx_mem_copy(ctx, hc, MMX_SPACE_HOST, M->colptr, mesh->space,
                                 ((size_t)M->ncols + 1) * sizeof *hc);
        if (s) {
            free(hc), free(hold);
            return s;
        }
        colptr = hc;
    }
    int64_t q = 0;
    for (mmx_index f = 0; f < M->ncols; f++) {
        const mmx_index g = fperm[f];
        const int64_t a = M->order ? (int64_t)M->order * g : colptr[g];
        const int64_t n = M->order ? M->order : colptr[g + 1] - a;
        for (int64_t j = 0; j < n; j++) m->uv->index[q++] = old[a + j];
    }
    free(hc), free(hold);
    return MMX_OK;
}

mmx_status mmx_mesh_permute(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_index *vperm,
                            const mmx_index *fperm, mmx_mesh **out)
{
    MMX__NEED_CTX(ctx);
    if (!mesh || !mesh->M || !out) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_mesh_permute: NULL argument");
    *out = NULL;
    const mmx_index nv = mmx_mesh_nverts(mesh), nf = mmx_mesh_nfaces(mesh);
    mmx_status s = mmx__check_space(ctx, mesh->space, "mesh");
    if (!s) s = mmx__perm_check_host(ctx, vperm, nv, "vperm");
    if (!s) s = mmx__perm_check_host(ctx, fperm, nf, "fperm");
    if (s) return s;

    /* M's rows are renamed by the inverse: old vertex vperm[v] becomes v. */
    mmx_index *pinv = NULL;
    if (vperm) {
        s = mmx__host_alloc(ctx, (size_t)nv, sizeof *pinv, (void **)&pinv);
        if (s) return s;
        for (mmx_index v = 0; v < nv; v++) pinv[vperm[v]] = v;
    }
    /* mmx_csc_permute and the position gather read their permutations where the mesh is. */
    const mmx_index *sp_pinv = pinv, *sp_fperm = fperm, *sp_vperm = vperm;
    mmx_index *d_pinv = NULL, *d_fperm = NULL, *d_vperm = NULL;
    if (mesh->space == MMX_SPACE_DEVICE) {
        s = to_device(ctx, pinv, nv, &d_pinv);
        if (!s) s = to_device(ctx, fperm, nf, &d_fperm);
        if (!s && mesh->pos) s = to_device(ctx, vperm, nv, &d_vperm);
        sp_pinv = d_pinv, sp_fperm = d_fperm, sp_vperm = d_vperm;
    }

    mmx_mesh *m = NULL;
    if (!s && !(m = calloc(1, sizeof *m))) s = mmx__fail(ctx, MMX_ERR_NOMEM, "out of host memory for a mesh");
    if (!s) {
        m->space = mesh->space;
        m->ctx = ctx;
        mmx__mesh_cache_attach(m);
        s = mmx__csc_permute_unchecked(ctx, mesh->M, sp_pinv, sp_fperm, &m->M);
    }
    if (!s && mesh->pos)
        s = mmx_mem_alloc(ctx, mesh->space, (size_t)nv * 3 * sizeof(float), (void **)&m->pos);
    if (!s && mesh->pos) s = permute_positions(ctx, mesh, sp_vperm, m->pos);
    /* Texture coordinates move with their faces (a face keeps its corners' order). */
    if (!s && mesh->uv) s = permute_uv(ctx, mesh, fperm, m);
    /* Normals (host memory) move with their vertices, as positions do. */
    if (!s && mesh->normals) s = mmx__host_alloc(ctx, 3 * (size_t)nv, sizeof(float), (void **)&m->normals);
    for (mmx_index v = 0; !s && mesh->normals && v < nv; v++)
        memcpy(m->normals + 3 * (size_t)v, mesh->normals + 3 * (size_t)(vperm ? vperm[v] : v),
               3 * sizeof(float));
    /* Colors too (host memory). */
    if (!s && mesh->colors) s = mmx__host_alloc(ctx, 3 * (size_t)nv + 1, sizeof(float), (void **)&m->colors);
    for (mmx_index v = 0; !s && mesh->colors && v < nv; v++)
        memcpy(m->colors + 3 * (size_t)v, mesh->colors + 3 * (size_t)(vperm ? vperm[v] : v),
               3 * sizeof(float));
    /* tags stay NULL: they name vertices by their old numbers. The host pinv may go at once
     * (its copy to the device was staged), the device copies after the queued kernels. */
    free(pinv);
    mmx_mem_free(ctx, MMX_SPACE_DEVICE, d_pinv);
    mmx_mem_free(ctx, MMX_SPACE_DEVICE, d_fperm);
    mmx_mem_free(ctx, MMX_SPACE_DEVICE, d_vperm);
    if (s) {
        mmx_mesh_free(m);
        return s;
    }
    *out = m;
    return MMX_OK;
}

/* ---- mmx_mesh_shuffle --------------------------------------------------------------------- */

/* splitmix64 (Steele, Lea and Flood): a 64-bit state stepped by a constant and mixed, the same
 * sequence on every platform. */
static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Fisher-Yates: p becomes a uniformly random permutation of 0..n-1 (the modulo's bias is below
 * 2^-32 for n < 2^31). */
static void fisher_yates(mmx_index *p, mmx_index n, uint64_t *state)
{
    for (mmx_index i = 0; i < n; i++) p[i] = i;
    for (mmx_index i = n - 1; i > 0; i--) {
        mmx_index j = (mmx_index)(splitmix64(state) % ((uint64_t)i + 1));
        mmx_index t = p[i];
        p[i] = p[j];
        p[j] = t;
    }
}

mmx_status mmx_mesh_shuffle(mmx_ctx *ctx, const mmx_mesh *mesh, uint64_t seed,
                            mmx_index *vperm, mmx_index *fperm, mmx_mesh **out)
{
    MMX__NEED_CTX(ctx);
    if (!mesh || !mesh->M || !out) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_mesh_shuffle: NULL argument");
    *out = NULL;
    const mmx_index nv = mmx_mesh_nverts(mesh), nf = mmx_mesh_nfaces(mesh);
    mmx_index *vp = vperm, *fp = fperm;
    mmx_status s = MMX_OK;
    if (!vp) s = mmx__host_alloc(ctx, (size_t)nv, sizeof *vp, (void **)&vp);
    if (!s && !fp) s = mmx__host_alloc(ctx, (size_t)nf, sizeof *fp, (void **)&fp);
    if (!s) {
        /* vertices first, then faces, from one stream: the pair is a function of the seed */
        uint64_t state = seed;
        fisher_yates(vp, nv, &state);
        fisher_yates(fp, nf, &state);
        s = mmx_mesh_permute(ctx, mesh, vp, fp, out);
    }
    if (vp != vperm) free(vp);
    if (fp != fperm) free(fp);
    return s;
}

/* ---- mmx_mesh_reorder --------------------------------------------------------------------- */

/* Face f's key: the smallest new number of its vertices (pinv: old -> new), or nverts for a
 * face without vertices so that it sorts last. */
static mmx_index face_key(const mmx_csc *M, const mmx_index *pinv, mmx_index f)
{
    int64_t a, b;
    mmx__csc_col(M, f, &a, &b);
    mmx_index key = M->nrows;
    for (int64_t k = a; k < b; k++)
        if (pinv[M->rowidx[k]] < key) key = pinv[M->rowidx[k]];
    return key;
}

/* fperm: faces sorted by their key, ties by old face number, by a counting sort on the key
 * (stable, O(nverts + nfaces)). M is on the host. */
static mmx_status sort_faces(mmx_ctx *ctx, const mmx_csc *M, const mmx_index *vperm,
                             mmx_index *fperm)
{
    const mmx_index nv = M->nrows, nf = M->ncols;
    mmx_index *pinv = NULL, *start = NULL;
    mmx_status s = mmx__host_alloc(ctx, (size_t)nv, sizeof *pinv, (void **)&pinv);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nv + 2, sizeof *start, (void **)&start);
    if (!s) {
        for (mmx_index v = 0; v < nv; v++) pinv[vperm[v]] = v;
        /* start[key + 1] counts the faces of each key; its prefix sum is where they go */
        memset(start, 0, ((size_t)nv + 2) * sizeof *start);
        for (mmx_index f = 0; f < nf; f++) start[face_key(M, pinv, f) + 1]++;
        for (mmx_index k = 0; k <= nv; k++) start[k + 1] += start[k];
        for (mmx_index f = 0; f < nf; f++) fperm[start[face_key(M, pinv, f)]++] = f;
    }
    free(pinv);
    free(start);
    return s;
}

mmx_status mmx_mesh_reorder(mmx_ctx *ctx, const mmx_mesh *mesh, mmx_index *vperm,
                            mmx_index *fperm, mmx_mesh **out)
{
    MMX__NEED_CTX(ctx);
    if (!mesh || !mesh->M || !out) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_mesh_reorder: NULL argument");
    *out = NULL;
    mmx_status s = mmx__check_space(ctx, mesh->space, "mesh");
    if (s) return s;
    const mmx_index nv = mmx_mesh_nverts(mesh), nf = mmx_mesh_nfaces(mesh);
    mmx_index *vp = vperm, *fp = fperm;
    const mmx_adjacency *adj = NULL;
    mmx_adjacency *own = NULL;
    mmx_csc *hostM = NULL;
    if (!vp) s = mmx__host_alloc(ctx, (size_t)nv, sizeof *vp, (void **)&vp);
    if (!s && !fp) s = mmx__host_alloc(ctx, (size_t)nf, sizeof *fp, (void **)&fp);
    /* vertices: RCM on the vertex adjacency, the pattern of E */
    if (!s) s = mmx__mesh_adjacency(ctx, mesh, &adj, &own); /* the mesh's cached one (mesh.h) */
    if (!s) s = mmx_rcm(ctx, adj->E, vp);
    mmx_adjacency_free(own);
    /* faces: by their smallest new vertex, read from a host M */
    if (!s && mesh->space != MMX_SPACE_HOST) s = mmx_csc_copy(ctx, mesh->M, MMX_SPACE_HOST, &hostM);
    if (!s) s = sort_faces(ctx, hostM ? hostM : mesh->M, vp, fp);
    mmx_csc_free(hostM);
    if (!s) s = mmx_mesh_permute(ctx, mesh, vp, fp, out);
    if (vp != vperm) free(vp);
    if (fp != fperm) free(fp);
    return s;
}
