/* The partitioned mesh: the cut along the patch order, the ghost rings, the local mesh, the
 * halo's send and receive lists, and the two vertex-data collectives (exchange, gather). */
#include <stdlib.h>
#include <string.h>
#include "dist_internal.h"
#include "mesh/mesh_internal.h"
#include "patch/patch_internal.h"

static void dev_free(mmx__dist_dev *v, mmx_ctx *ctx)
{
    if (!v) return;
    mmx_mem_free(ctx, MMX_SPACE_DEVICE, v->sidx);
    mmx_mem_free(ctx, MMX_SPACE_DEVICE, v->ridx);
    mmx__dist_pinned_free(v->hs);
    mmx__dist_pinned_free(v->hr);
    mmx__dist_dev_marks_free(v);
    mmx_mesh_free(v->hlocal);
    mmx_ctx_free(v->hctx);
    free(v);
}

void mmx_dist_mesh_free(mmx_dist_mesh *dm)
{
    if (!dm) return;
    /* The device arrays go back to the pool of the context that made the local mesh. */
    mmx_ctx *dctx = dm->dev && dm->local ? dm->local->ctx : NULL;
    mmx_mesh_free(dm->local);
    dev_free(dm->dev, dctx);
    free(dm->gv), free(dm->gf), free(dm->ov), free(dm->of), free(dm->gface_corner);
    free(dm->guv);
    free(dm->scount), free(dm->soff), free(dm->rcount), free(dm->roff);
    free(dm->sidx), free(dm->ridx);
    free(dm->gcount), free(dm->goff), free(dm->gids);
    if (dm->cnt) mmx_adjacency_free(dm->cnt->adj), free(dm->cnt->eg), free(dm->cnt->eown);
    free(dm->cnt);
    free(dm);
}

const mmx_mesh *mmx_dist_mesh_local(const mmx_dist_mesh *dm)
{
    return dm ? dm->local : NULL;
}
const int64_t *mmx_dist_mesh_global_verts(const mmx_dist_mesh *dm)
{
    return dm ? dm->gv : NULL;
}
const int64_t *mmx_dist_mesh_global_faces(const mmx_dist_mesh *dm)
{
    return dm ? dm->gf : NULL;
}
const unsigned char *mmx_dist_mesh_owned_verts(const mmx_dist_mesh *dm)
{
    return dm ? dm->ov : NULL;
}
const unsigned char *mmx_dist_mesh_owned_faces(const mmx_dist_mesh *dm)
{
    return dm ? dm->of : NULL;
}

mmx_status mmx_dist_mesh_info(const mmx_dist_mesh *dm, mmx_dist_info *info)
{
    if (!dm || !info) return MMX_ERR_ARG;
    const int R = dm->d->size;
    *info = (mmx_dist_info){.rank = dm->d->rank, .ranks = R, .rings = dm->rings,
                            .global_verts = dm->gverts, .global_faces = dm->gfaces,
                            .owned_faces = dm->nof,
                            .ghost_faces = mmx_mesh_nfaces(dm->local) - dm->nof,
                            .owned_verts = dm->nov, .local_verts = mmx_mesh_nverts(dm->local),
                            .halo_recv_verts = (mmx_index)dm->roff[R],
                            .halo_send_verts = (mmx_index)dm->soff[R],
                            .exchanged_bytes = dm->cnt->bytes, .exchanges = dm->cnt->exchanges,
                            .exchange_ms = dm->cnt->exchange_ms,
                            .global_edges = dm->cnt->eg ? dm->cnt->gedges : -1,
                            .transport = dm->dev ? dm->dev->transport : MMX_DIST_HOST};
    return MMX_OK;
}

/* The order of the faces along the patch set: by patch, ties by number (a counting sort). */
static mmx_status patch_order(mmx_ctx *ctx, mmx_ctx *uctx, const mmx_mesh *whole,
                              const mmx_patch_set *ps, mmx_index *order, mmx_index *fpatch)
{
    const mmx_index F = mmx_mesh_nfaces(whole);
    mmx_patch_set *own = NULL;
    mmx_status s = MMX_OK;
    mmx_patch_stats st;
    if (!ps) {
        /* Built on the host (ctx), from the whole mesh in host memory. */
        s = mmx_patch_set_create(ctx, whole, NULL, NULL, &own);
        ps = own;
        if (!s) s = mmx_patch_set_stats(ctx, ps, &st);
        if (!s) s = mmx_patch_set_face_patch(ctx, ps, fpatch);
    } else if (ps->space == MMX_SPACE_DEVICE) {
        /* The caller's set, made on its CUDA context: its faces' patches read back. */
        void *dev = NULL;
        s = mmx_patch_set_stats(uctx, ps, &st);
        if (!s) s = mmx_mem_alloc(uctx, MMX_SPACE_DEVICE, (size_t)F * sizeof *fpatch, &dev);
        if (!s) s = mmx_patch_set_face_patch(uctx, ps, dev);
        if (!s) s = mmx_mem_copy(uctx, fpatch, MMX_SPACE_HOST, dev, MMX_SPACE_DEVICE, (size_t)F * sizeof *fpatch);
        mmx_mem_free(uctx, MMX_SPACE_DEVICE, dev);
        if (s) return mmx__fail(ctx, s, "%s", mmx_ctx_error(uctx));
    } else {
        s = mmx_patch_set_stats(ctx, ps, &st);
        if (!s) s = mmx_patch_set_face_patch(ctx, ps, fpatch);
    }
    mmx_index *at = NULL;
    if (!s) s = mmx__host_alloc(ctx, (size_t)st.npatches + 1, sizeof *at, (void **)&at);
    if (!s) {
        memset(at, 0, ((size_t)st.npatches + 1) * sizeof *at);
        for (mmx_index f = 0; f < F; f++) {
            if (fpatch[f] < 0 || fpatch[f] >= st.npatches) {
                s = mmx__fail(ctx, MMX_ERR_ARG, "the patch set's face %d is in patch %d of %d: "
                              "a set of another mesh", f, fpatch[f], st.npatches);
                break;
            }
            at[fpatch[f] + 1]++;
        }
    }
    if (!s) {
        for (mmx_index p = 0; p < st.npatches; p++) at[p + 1] += at[p];
        for (mmx_index f = 0; f < F; f++) order[at[fpatch[f]]++] = f;
    }
    free(at);
    mmx_patch_set_free(own);
    return s;
}

/* Part boundaries: R runs of about F / R faces, each ending where a patch does. */
static void cut_parts(mmx_index F, int R, const mmx_index *order, const mmx_index *fpatch,
                      int64_t *bound)
{
    bound[0] = 0;
    for (int r = 1; r < R; r++) {
        int64_t b = (int64_t)F * r / R;
        if (b < bound[r - 1]) b = bound[r - 1];
        while (b > 0 && b < F && fpatch[order[b]] == fpatch[order[b - 1]]) b++;
        bound[r] = b;
    }
    bound[R] = F;
}

/* The halo: each ghost vertex asked from its owner (one all-to-all of counts, one of global
 * numbers); the owner's answer lists are the send lists. */
static mmx_status halo_lists(mmx_ctx *ctx, mmx_dist_mesh *dm, const int *vowner,
                             const mmx_index *g2l)
{
    mmx_dist *d = dm->d;
    const int R = d->size;
    const mmx_index nl = mmx_mesh_nverts(dm->local);
    int64_t *ask = NULL, *got = NULL, *sb = NULL, *rb = NULL;
    mmx_status s = mmx__host_alloc(ctx, (size_t)R, sizeof *dm->scount, (void **)&dm->scount);
    if (!s) s = mmx__host_alloc(ctx, (size_t)R + 1, sizeof *dm->soff, (void **)&dm->soff);
    if (!s) s = mmx__host_alloc(ctx, (size_t)R, sizeof *dm->rcount, (void **)&dm->rcount);
    if (!s) s = mmx__host_alloc(ctx, (size_t)R + 1, sizeof *dm->roff, (void **)&dm->roff);
    if (!s) s = mmx__host_alloc(ctx, (size_t)R * 2, sizeof *sb, (void **)&sb);
    if (s) goto out;
    memset(dm->rcount, 0, (size_t)R * sizeof *dm->rcount);
    for (mmx_index v = 0; v < nl; v++)
        if (!dm->ov[v]) dm->rcount[vowner[dm->gv[v]]]++;
    dm->roff[0] = 0;
    for (int q = 0; q < R; q++) dm->roff[q + 1] = dm->roff[q] + dm->rcount[q];
    s = mmx__host_alloc(ctx, (size_t)dm->roff[R], sizeof *dm->ridx, (void **)&dm->ridx);
    if (!s) s = mmx__host_alloc(ctx, (size_t)dm->roff[R], sizeof *ask, (void **)&ask);
    if (s) goto out;
    {
        int64_t *fill = sb;
        memcpy(fill, dm->roff, (size_t)R * sizeof *fill);
        for (mmx_index v = 0; v < nl; v++)
            if (!dm->ov[v]) {
                const int q = vowner[dm->gv[v]];
                dm->ridx[fill[q]] = v;
                ask[fill[q]++] = dm->gv[v];
            }
    }
    s = mmx_dist_agree(ctx, d, s);
    if (!s) s = mmx__dist_alltoall_i64(ctx, d, dm->rcount, dm->scount);
    if (s) goto out;
    dm->soff[0] = 0;
    for (int q = 0; q < R; q++) dm->soff[q + 1] = dm->soff[q] + dm->scount[q];
    s = mmx__host_alloc(ctx, (size_t)dm->soff[R], sizeof *got, (void **)&got);
    if (!s) s = mmx__host_alloc(ctx, (size_t)dm->soff[R], sizeof *dm->sidx, (void **)&dm->sidx);
    s = mmx_dist_agree(ctx, d, s);
    if (s) goto out;
    for (int q = 0; q < R; q++) sb[q] = dm->rcount[q] * 8, sb[R + q] = dm->scount[q] * 8;
    s = mmx__dist_alltoallv(ctx, d, ask, sb, got, sb + R);
    if (s) goto out;
    for (int64_t i = 0; i < dm->soff[R]; i++) {
        const mmx_index l = g2l[got[i]];
        if (l < 0 || !dm->ov[l]) {
            s = mmx__fail(ctx, MMX_ERR_INTERNAL, "halo: vertex %lld asked of rank %d, which does "
                          "not own it", (long long)got[i], d->rank);
            break;
        }
        dm->sidx[i] = l;
    }
    s = mmx_dist_agree(ctx, d, s);
out:
    free(ask), free(got), free(sb), free(rb);
    return s;
}

/* Rank 0 learns every rank's owned global vertex numbers once, for the gathers. */
mmx_status mmx__dist_gather_lists(mmx_ctx *ctx, mmx_dist_mesh *dm)
{
    mmx_dist *d = dm->d;
    const int R = d->size;
    const mmx_index nl = mmx_mesh_nverts(dm->local);
    int64_t *mine = NULL, *bytes = NULL;
    mmx_status s = mmx__host_alloc(ctx, (size_t)dm->nov, sizeof *mine, (void **)&mine);
    if (!s && d->rank == 0) {
        s = mmx__host_alloc(ctx, (size_t)R, sizeof *dm->gcount, (void **)&dm->gcount);
        if (!s) s = mmx__host_alloc(ctx, (size_t)R + 1, sizeof *dm->goff, (void **)&dm->goff);
        if (!s) s = mmx__host_alloc(ctx, (size_t)R, sizeof *bytes, (void **)&bytes);
    }
    s = mmx_dist_agree(ctx, d, s);
    if (s) goto out;
    for (mmx_index v = 0, k = 0; v < nl; v++)
        if (dm->ov[v]) mine[k++] = dm->gv[v];
    s = mmx__dist_gather_i64(ctx, d, dm->nov, dm->gcount, 0);
    if (!s && d->rank == 0) {
        dm->goff[0] = 0;
        for (int q = 0; q < R; q++) dm->goff[q + 1] = dm->goff[q] + dm->gcount[q], bytes[q] = 8 * dm->gcount[q];
        if (dm->goff[R] != dm->gverts)
            s = mmx__fail(ctx, MMX_ERR_INTERNAL, "%lld vertices owned over the ranks, %lld in the mesh",
                          (long long)dm->goff[R], (long long)dm->gverts);
        if (!s) s = mmx__host_alloc(ctx, (size_t)dm->gverts, sizeof *dm->gids, (void **)&dm->gids);
    }
    s = mmx_dist_agree(ctx, d, s);
    if (!s) s = mmx__dist_gatherv(ctx, d, mine, 8 * (int64_t)dm->nov, dm->gids, bytes, 0);
out:
    free(mine), free(bytes);
    return s;
}

/* A failure of a host step run on the partitioned mesh's host context, told on ctx. */
mmx_status mmx__dist_host_status(mmx_ctx *ctx, mmx_ctx *hc, mmx_status s)
{
    if (!s || hc == ctx || !mmx_ctx_error(hc)[0]) return s;
    return mmx__fail(ctx, s, "%s", mmx_ctx_error(hc));
}

/* CUDA: the local mesh and the halo's lists copied to the device, and the transport chosen
 * (NCCL where the build has it, MMX_DIST_TRANSPORT is not "staged" on any rank and no two ranks
 * of a node share a device; the same on every rank). Collective. */
mmx_status mmx__dist_to_device(mmx_ctx *ctx, mmx_dist_mesh *dm)
{
    mmx__dist_dev *v = dm->dev;
    const int R = dm->d->size;
    v->hlocal = dm->local;
    dm->local = NULL;
    mmx_status s = mmx_mesh_copy(ctx, v->hlocal, MMX_SPACE_DEVICE, &dm->local);
    const size_t ns = (size_t)dm->soff[R] * sizeof *dm->sidx, nr = (size_t)dm->roff[R] * sizeof *dm->ridx;
    if (!s) s = mmx_mem_alloc(ctx, MMX_SPACE_DEVICE, ns, (void **)&v->sidx);
    if (!s) s = mmx_mem_alloc(ctx, MMX_SPACE_DEVICE, nr, (void **)&v->ridx);
    if (!s) s = mmx_mem_copy(ctx, v->sidx, MMX_SPACE_DEVICE, dm->sidx, MMX_SPACE_HOST, ns);
    if (!s) s = mmx_mem_copy(ctx, v->ridx, MMX_SPACE_DEVICE, dm->ridx, MMX_SPACE_HOST, nr);
    if (!s) s = mmx_ctx_sync(ctx);
    s = mmx_dist_agree(ctx, dm->d, s);
    if (s) return s;
    const char *want = getenv("MMX_DIST_TRANSPORT");
    int64_t nccl = mmx__dist_has_nccl() && !(want && !strcmp(want, "staged"));
    s = mmx__dist_allreduce_i64(ctx, dm->d, &nccl, 1, MMX__DIST_MIN);
    /* Ranks sharing a GPU (a test on one device) stage: NCCL takes one rank per GPU. */
    int distinct = 1;
    if (!s && nccl && !dm->d->nccl) s = mmx__dist_node_distinct(ctx, dm->d, mmx_ctx_device(ctx), &distinct);
    if (!distinct) nccl = 0;
    if (!s && nccl) s = mmx__dist_nccl_init(ctx, dm->d);
    v->transport = nccl ? MMX_DIST_NCCL : MMX_DIST_STAGED;
    return s;
}

/* The local mesh's texture coordinates (dm->local->uv, dm->guv, dm->guvs): the values its
 * faces' corners use (fmark: the local faces of the whole; start: the whole's face starts),
 * and on rank 0 (first) the values no face of the whole uses (kept, as the single process keeps
 * them, by one rank), numbered in ascending global order; each local corner's index. */
static mmx_status local_uv(mmx_ctx *hc, mmx_dist_mesh *dm, const mmx_mesh *whole,
                           const mmx_index *start, const unsigned char *fmark, int first)
{
    const mmx_mesh *h = NULL;
    mmx_status s = mmx__mesh_host_view_uv(hc, whole, &h);
    if (s) return s;
    const mmx_mesh_uv *uv = h->uv;
    const mmx_index U = uv->nvalues, F = mmx_mesh_nfaces(whole);
    mmx_index *g2l = NULL, n = 0;
    mmx_mesh_uv *luv = calloc(1, sizeof *luv);
    if (!luv) s = mmx__fail(hc, MMX_ERR_NOMEM, "mmx_dist_mesh_create: out of host memory");
    if (!s) s = mmx__host_alloc(hc, (size_t)U + 1, sizeof *g2l, (void **)&g2l);
    if (!s) {
        /* 1: a local face's corner uses it; 2: some face of the whole does */
        memset(g2l, 0, ((size_t)U + 1) * sizeof *g2l);
        for (mmx_index f = 0; f < F; f++)
            for (mmx_index c = start[f]; c < start[f + 1]; c++) {
                const mmx_index u = uv->index[c];
                if (u < 0 || u >= U) {
                    s = mmx__fail(hc, MMX_ERR_MESH, "mmx_dist_mesh_create: face %d's corner %d names "
                                  "texture coordinate %d of %d", f, c - start[f], u, U);
                    break;
                }
                g2l[u] |= fmark[f] ? 3 : 2;
            }
    }
    if (!s) {
        for (mmx_index u = 0; u < U; u++) n += (g2l[u] & 1) || (first && !g2l[u]);
        s = mmx__host_alloc(hc, (size_t)n + 1, sizeof *dm->guv, (void **)&dm->guv);
    }
    if (!s) s = mmx__host_alloc(hc, 2 * (size_t)n + 1, sizeof *luv->values, (void **)&luv->values);
    const int64_t nnzl = dm->local->M->nnz;
    if (!s) s = mmx__host_alloc(hc, (size_t)nnzl + 1, sizeof *luv->index, (void **)&luv->index);
    if (!s) {
        luv->nvalues = n, luv->space = MMX_SPACE_HOST;
        for (mmx_index u = 0, l = 0; u < U; u++) {
            const int keep = (g2l[u] & 1) || (first && !g2l[u]);
            g2l[u] = keep ? l : -1;
            if (!keep) continue;
            dm->guv[l] = u;
            memcpy(luv->values + 2 * (size_t)l++, uv->values + 2 * (size_t)u, 2 * sizeof *luv->values);
        }
        /* the local faces are the whole's marked ones in order, their corners as they were */
        int64_t q = 0;
        for (mmx_index f = 0; f < F; f++)
            for (mmx_index c = start[f]; fmark[f] && c < start[f + 1]; c++) luv->index[q++] = g2l[uv->index[c]];
        dm->guvs = U;
        dm->local->uv = luv;
        luv = NULL;
    }
    mmx_mesh_uv_free(luv);
    free(g2l);
    mmx__mesh_host_release(whole, h);
    return s;
}

mmx_status mmx_dist_mesh_create(mmx_ctx *ctx, mmx_dist *d, const mmx_mesh *whole,
                                const mmx_patch_set *ps, int rings, mmx_dist_mesh **out)
{
    MMX__NEED_CTX(ctx);
    if (!d) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_dist_mesh_create: d is NULL");
    mmx_status s = MMX_OK;
    if (!out || !whole || !whole->M)
        s = mmx__fail(ctx, MMX_ERR_ARG, "mmx_dist_mesh_create: NULL %s", !out ? "out" : "mesh");
    else if (rings < 1 || rings > 64)
        s = mmx__fail(ctx, MMX_ERR_ARG, "mmx_dist_mesh_create: rings %d (1 to 64)", rings);
    else if (whole->space != MMX_SPACE_HOST)
        s = mmx__fail(ctx, MMX_ERR_SPACE, "mmx_dist_mesh_create: the whole mesh must be in host memory");
    if (out) *out = NULL;
    s = mmx_dist_agree(ctx, d, s);
    if (s) return s;
    const int R = d->size, me = d->rank;
    const mmx_index V = mmx_mesh_nverts(whole), F = mmx_mesh_nfaces(whole);
    const int cuda = mmx_ctx_backend(ctx) == MMX_BACKEND_CUDA;
    {
        int64_t lo[4] = {V, F, whole->M->nnz, cuda}, hi[4] = {V, F, whole->M->nnz, cuda};
        s = mmx__dist_allreduce_i64(ctx, d, lo, 4, MMX__DIST_MIN);
        if (!s) s = mmx__dist_allreduce_i64(ctx, d, hi, 4, MMX__DIST_MAX);
        if (s) return s;
        if (lo[0] != hi[0] || lo[1] != hi[1] || lo[2] != hi[2])
            return mmx__fail(ctx, MMX_ERR_ARG, "mmx_dist_mesh_create: the ranks were given "
                             "different meshes (%lld to %lld vertices, %lld to %lld faces)",
                             (long long)lo[0], (long long)hi[0], (long long)lo[1], (long long)hi[1]);
        if (lo[3] != hi[3])
            return mmx__fail(ctx, MMX_ERR_ARG, "mmx_dist_mesh_create: some ranks have a CUDA "
                             "context and some a host one (every rank must use the same backend)");
    }
    mmx_dist_mesh *dm = calloc(1, sizeof *dm);
    /* On CUDA the cut and the local mesh are made on the host (through a host context of the
     * partitioned mesh's own, hc), then the local mesh and the halo's lists go to the device. */
    mmx_ctx *hc = ctx;
    if (dm && cuda) {
        dm->dev = calloc(1, sizeof *dm->dev);
        if (dm->dev && mmx_ctx_create(&dm->dev->hctx) == MMX_OK) hc = dm->dev->hctx;
        else s = mmx__fail(ctx, MMX_ERR_NOMEM, "mmx_dist_mesh_create: out of host memory");
    }
    mmx_index *start = NULL, *verts = NULL, *order = NULL, *fpatch = NULL, *g2l = NULL;
    mmx_index *vf_off = NULL, *vf = NULL, *front = NULL, *lstart = NULL, *lverts = NULL;
    int *fpart = NULL, *vowner = NULL;
    int64_t *bound = NULL, *lmap = NULL, *lfmap = NULL;
    unsigned char *fmark = NULL, *vseen = NULL;
    float *lpos = NULL;
    mmx_mesh_tags *T = NULL;
    if (s) {
    } else if (!dm || !(dm->cnt = calloc(1, sizeof *dm->cnt)))
        s = mmx__fail(ctx, MMX_ERR_NOMEM, "mmx_dist_mesh_create: out of host memory");
    else
        dm->d = d, dm->rings = rings, dm->gverts = V, dm->gfaces = F, dm->gnnz = whole->M->nnz;
    if (!s) s = mmx_mesh_faces(hc, whole, &start, &verts);
    if (!s) s = mmx__host_alloc(ctx, (size_t)F, sizeof *order, (void **)&order);
    if (!s) s = mmx__host_alloc(ctx, (size_t)F, sizeof *fpatch, (void **)&fpatch);
    if (!s) s = mmx__host_alloc(ctx, (size_t)F, sizeof *fpart, (void **)&fpart);
    if (!s) s = mmx__host_alloc(ctx, (size_t)V, sizeof *vowner, (void **)&vowner);
    if (!s) s = mmx__host_alloc(ctx, (size_t)V, sizeof *g2l, (void **)&g2l);
    if (!s) s = mmx__host_alloc(ctx, (size_t)V + 1, sizeof *vf_off, (void **)&vf_off);
    if (!s) s = mmx__host_alloc(ctx, (size_t)start[F], sizeof *vf, (void **)&vf);
    if (!s) s = mmx__host_alloc(ctx, (size_t)F, sizeof *front, (void **)&front);
    if (!s) s = mmx__host_alloc(ctx, (size_t)R + 1, sizeof *bound, (void **)&bound);
    if (!s) s = mmx__host_alloc(ctx, (size_t)F, 1, (void **)&fmark);
    if (!s) s = mmx__host_alloc(ctx, (size_t)V, 1, (void **)&vseen);
    if (!s && whole->tags) s = mmx_mesh_tags_parse(hc, whole, &T);
    if (!s) s = patch_order(hc, ctx, whole, ps, order, fpatch);
    s = mmx__dist_host_status(ctx, hc, s);
    s = mmx_dist_agree(ctx, d, s);
    if (s) goto out;

    /* The cut, and the owners: a face's part, a vertex's smallest face's part. */
    cut_parts(F, R, order, fpatch, bound);
    for (int r = 0; r < R; r++)
        for (int64_t i = bound[r]; i < bound[r + 1]; i++) fpart[order[i]] = r;
    for (mmx_index v = 0; v < V; v++) vowner[v] = -1;
    for (mmx_index f = 0; f < F; f++)
        for (mmx_index c = start[f]; c < start[f + 1]; c++)
            if (vowner[verts[c]] < 0) vowner[verts[c]] = fpart[f];
    /* Vertex -> faces, ascending. */
    memset(vf_off, 0, ((size_t)V + 1) * sizeof *vf_off);
    for (mmx_index c = 0; c < start[F]; c++) vf_off[verts[c] + 1]++;
    for (mmx_index v = 0; v < V; v++) vf_off[v + 1] += vf_off[v];
    for (mmx_index f = 0; f < F; f++)
        for (mmx_index c = start[f]; c < start[f + 1]; c++) vf[vf_off[verts[c]]++] = f;
    for (mmx_index v = V; v > 0; v--) vf_off[v] = vf_off[v - 1];
    vf_off[0] = 0;
    /* The rings: each a breadth-first step over the vertices of the previous one. */
    memset(fmark, 0, (size_t)F), memset(vseen, 0, (size_t)V);
    mmx_index nfront = 0, nlf = 0;
    for (int64_t i = bound[me]; i < bound[me + 1]; i++) fmark[order[i]] = 1, front[nfront++] = order[i];
    nlf = nfront;
    for (int k = 0; k < rings; k++) {
        const mmx_index a = nlf - nfront;
        mmx_index b = nlf;
        for (mmx_index i = a; i < b; i++) {
            const mmx_index f = front[i];
            for (mmx_index c = start[f]; c < start[f + 1]; c++) {
                const mmx_index v = verts[c];
                if (vseen[v]) continue;
                vseen[v] = 1;
                for (mmx_index j = vf_off[v]; j < vf_off[v + 1]; j++)
                    if (!fmark[vf[j]]) fmark[vf[j]] = 1, front[nlf++] = vf[j];
            }
        }
        nfront = nlf - b;
    }
    /* The local mesh: faces and vertices in ascending global order. */
    for (mmx_index v = 0; v < V; v++) g2l[v] = -1;
    mmx_index nlv = 0, nnzl = 0;
    for (mmx_index f = 0; f < F; f++)
        if (fmark[f]) {
            nnzl += start[f + 1] - start[f];
            for (mmx_index c = start[f]; c < start[f + 1]; c++) g2l[verts[c]] = 0;
        }
    for (mmx_index v = 0; v < V; v++)
        if (g2l[v] == 0 || (vowner[v] < 0 && me == 0)) g2l[v] = nlv++;
    s = mmx__host_alloc(ctx, (size_t)nlf, sizeof *dm->gf, (void **)&dm->gf);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nlf, sizeof *dm->gface_corner, (void **)&dm->gface_corner);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nlf, 1, (void **)&dm->of);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nlv, sizeof *dm->gv, (void **)&dm->gv);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nlv, 1, (void **)&dm->ov);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nlf + 1, sizeof *lstart, (void **)&lstart);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nnzl, sizeof *lverts, (void **)&lverts);
    if (!s && whole->pos) s = mmx__host_alloc(ctx, 3 * (size_t)nlv, sizeof *lpos, (void **)&lpos);
    if (!s && T) s = mmx__host_alloc(ctx, (size_t)V, sizeof *lmap, (void **)&lmap);
    if (!s && T) s = mmx__host_alloc(ctx, (size_t)F, sizeof *lfmap, (void **)&lfmap);
    if (s) goto agree;
    lstart[0] = 0;
    for (mmx_index f = 0, i = 0; f < F; f++) {
        if (lfmap) lfmap[f] = fmark[f] ? i : -1;
        if (fmark[f]) {
            dm->gf[i] = f, dm->gface_corner[i] = start[f], dm->of[i] = fpart[f] == me;
            dm->nof += dm->of[i];
            lstart[i + 1] = lstart[i];
            for (mmx_index c = start[f]; c < start[f + 1]; c++) lverts[lstart[i + 1]++] = g2l[verts[c]];
            i++;
        }
    }
    for (mmx_index v = 0; v < V; v++) {
        if (lmap) lmap[v] = g2l[v];
        if (g2l[v] < 0) continue;
        const mmx_index l = g2l[v];
        dm->gv[l] = v;
        dm->ov[l] = vowner[v] == me || (vowner[v] < 0 && me == 0);
        dm->nov += dm->ov[l];
        if (lpos) memcpy(lpos + 3 * (size_t)l, whole->pos + 3 * (size_t)v, 3 * sizeof *lpos);
    }
    for (mmx_index v = 0; v < V; v++)
        if (vowner[v] < 0) vowner[v] = 0;
    s = mmx_mesh_from_faces(hc, nlv, nlf, lstart, lverts, lpos, &dm->local);
    if (!s && T) s = mmx__dist_map_tags(hc, T, lmap, lfmap, dm->local);
    if (!s && whole->uv) s = local_uv(hc, dm, whole, start, fmark, me == 0);
    s = mmx__dist_host_status(ctx, hc, s);
agree:
    s = mmx_dist_agree(ctx, d, s);
    if (!s) s = halo_lists(ctx, dm, vowner, g2l);
    if (!s) s = mmx__dist_gather_lists(ctx, dm);
    if (!s && cuda) s = mmx__dist_to_device(ctx, dm);
out:
    free(start), free(verts), free(order), free(fpatch), free(g2l), free(vf_off), free(vf);
    free(front), free(lstart), free(lverts), free(fpart), free(vowner), free(bound), free(lmap);
    free(lfmap);
    free(fmark), free(vseen), free(lpos);
    mmx_mesh_tags_free(T);
    if (s && dm && !dm->cnt) {
        dev_free(dm->dev, NULL);
        free(dm);
    } else if (s) mmx_dist_mesh_free(dm);
    else *out = dm;
    return s;
}

/* The buffers of one exchange of k floats per vertex (the context's space) and its byte
 * counts: made before anything moves, so that once every rank has agreed to exchange, nothing
 * is left to fail before the collective. */
static mmx_status xbuf_make(mmx_ctx *ctx, const mmx_dist_mesh *dm, int k, mmx__dist_xbuf *b)
{
    const int R = dm->d->size;
    const mmx_space sp = dm->dev ? MMX_SPACE_DEVICE : MMX_SPACE_HOST;
    memset(b, 0, sizeof *b);
    b->k = k;
    b->space = sp;
    mmx_status s = mmx__host_alloc(ctx, 2 * (size_t)R, sizeof *b->cnt, (void **)&b->cnt);
    if (!s) s = mmx_mem_alloc(ctx, sp, (size_t)dm->soff[R] * (size_t)k * sizeof(float), (void **)&b->sb);
    if (!s) s = mmx_mem_alloc(ctx, sp, (size_t)dm->roff[R] * (size_t)k * sizeof(float), (void **)&b->rb);
    if (!s)
        for (int q = 0; q < R; q++)
            b->cnt[q] = dm->scount[q] * k * 4, b->cnt[R + q] = dm->rcount[q] * k * 4;
    mmx__dist_dev *v = dm->dev;
    if (!s && v && v->transport == MMX_DIST_STAGED) {
        /* The pinned staging buffers, grown to the largest exchange so far. */
        const size_t nr = (size_t)dm->roff[R] * (size_t)k * 4;
        const size_t nsend = (size_t)dm->soff[R] * (size_t)k * 4;
        if (nsend > v->cap_s) {
            mmx__dist_pinned_free(v->hs);
            v->cap_s = 0;
            s = mmx__dist_pinned(ctx, nsend, &v->hs);
            if (!s) v->cap_s = nsend;
        }
        if (!s && nr > v->cap_r) {
            mmx__dist_pinned_free(v->hr);
            v->cap_r = 0;
            s = mmx__dist_pinned(ctx, nr, &v->hr);
            if (!s) v->cap_r = nr;
        }
    }
    return s;
}

void mmx__dist_xbuf_free(mmx_ctx *ctx, mmx__dist_xbuf *b)
{
    if (!b) return;
    mmx_mem_free(ctx, b->space, b->sb);
    mmx_mem_free(ctx, b->space, b->rb);
    free(b->cnt);
    memset(b, 0, sizeof *b);
}

mmx_status mmx__dist_xbuf_create(mmx_ctx *ctx, const mmx_dist_mesh *dm, int k, mmx__dist_xbuf *b)
{
    const mmx_status s = xbuf_make(ctx, dm, k, b);
    if (s) mmx__dist_xbuf_free(ctx, b);
    return s;
}

/* The move itself, on agreed arguments and made buffers: the sent rows packed, moved
 * (host: MPI; device: NCCL, or staged through the pinned buffers and MPI), unpacked into the
 * ghosts. Every rank reaches the collective (a local failure before it is remembered, not
 * returned early, so that no rank waits alone); returns this rank's first failure. The rows
 * are copied, never combined: the same bits on both backends and every transport. */
static mmx_status move(mmx_ctx *ctx, const mmx_dist_mesh *dm, float *x, const mmx__dist_xbuf *b)
{
    mmx_dist *d = dm->d;
    const int R = d->size, k = b->k;
    const int64_t *cnt = b->cnt;
    mmx__dist_dev *v = dm->dev;
    mmx_status s = MMX_OK, c;
    if (!v) {
        for (int64_t i = 0; i < dm->soff[R]; i++)
            memcpy(b->sb + (size_t)i * (size_t)k, x + (size_t)dm->sidx[i] * (size_t)k, (size_t)k * sizeof *x);
        s = mmx__dist_alltoallv(ctx, d, b->sb, cnt, b->rb, cnt + R);
        for (int64_t i = 0; !s && i < dm->roff[R]; i++)
            memcpy(x + (size_t)dm->ridx[i] * (size_t)k, b->rb + (size_t)i * (size_t)k, (size_t)k * sizeof *x);
        return s;
    }
    const size_t ns = (size_t)dm->soff[R] * (size_t)k * sizeof *x;
    const size_t nr = (size_t)dm->roff[R] * (size_t)k * sizeof *x;
    s = mmx__dist_dev_pack(ctx, x, k, v->sidx, dm->soff[R], b->sb);
    if (v->transport == MMX_DIST_STAGED) {
        /* mmx_mem_copy into host memory waits for the stream: the pack and the previous
         * exchange's copy out of hr are done before MPI touches the buffers. */
        if (ns) c = mmx_mem_copy(ctx, v->hs, MMX_SPACE_HOST, b->sb, MMX_SPACE_DEVICE, ns), s = s ? s : c;
        c = mmx__dist_alltoallv(ctx, d, v->hs, cnt, v->hr, cnt + R), s = s ? s : c;
        if (!s && nr) s = mmx_mem_copy(ctx, b->rb, MMX_SPACE_DEVICE, v->hr, MMX_SPACE_HOST, nr);
    } else {
        c = mmx__dist_nccl_alltoallv(ctx, d, b->sb, cnt, b->rb, cnt + R), s = s ? s : c;
    }
    if (!s) s = mmx__dist_dev_unpack(ctx, b->rb, k, v->ridx, dm->roff[R], x);
    return s;
}

mmx_status mmx__dist_exchange_queued(mmx_ctx *ctx, const mmx_dist_mesh *dm, float *x,
                                     const mmx__dist_xbuf *b)
{
    mmx__dist_dev *v = dm->dev;
    const int R = dm->d->size;
    /* Queued only on the device with NCCL: the staged transport and the host wait anyway. */
    const int queued = v && v->transport == MMX_DIST_NCCL;
    const double t0 = mmx__dist_now_ms();
    mmx_status s = queued ? mmx__dist_dev_mark(ctx, v) : MMX_OK;
    const int started = queued && !s;
    const mmx_status m = move(ctx, dm, x, b);
    if (!s) s = m;
    if (started) {
        /* The marks go in pairs: a start without its end is dropped. */
        const mmx_status e = mmx__dist_dev_mark(ctx, v);
        if (e) v->nmarks--;
        if (!s) s = e;
    }
    if (!s) {
        dm->cnt->bytes += dm->soff[R] * b->k * 4;
        dm->cnt->exchanges++;
        if (!queued) dm->cnt->exchange_ms += mmx__dist_now_ms() - t0;
    }
    return s;
}

mmx_status mmx__dist_exchange_times(mmx_ctx *ctx, const mmx_dist_mesh *dm)
{
    if (!dm->dev) return MMX_OK;
    double ms = 0.0;
    const mmx_status s = mmx__dist_dev_marks_ms(ctx, dm->dev, &ms);
    if (!s) dm->cnt->exchange_ms += ms;
    return s;
}

mmx_status mmx_dist_exchange(mmx_ctx *ctx, const mmx_dist_mesh *dm, float *x, int k)
{
    MMX__NEED_CTX(ctx);
    if (!dm) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_dist_exchange: dm is NULL");
    mmx_dist *d = dm->d;
    const int R = d->size;
    mmx__dist_xbuf b;
    memset(&b, 0, sizeof b);
    mmx_status s = MMX_OK;
    if (!x || k < 1 || k > 16)
        s = mmx__fail(ctx, MMX_ERR_ARG, "mmx_dist_exchange: %s", !x ? "x is NULL" : "k out of 1..16");
    if (!s) s = mmx__dist_xbuf_create(ctx, dm, k, &b);
    /* On the device the stream is waited for before (so that the time counted is the
     * exchange's, not the work queued before it) and after. */
    if (!s && dm->dev) s = mmx_ctx_sync(ctx);
    s = mmx_dist_agree(ctx, d, s);
    if (!s) {
        const double t0 = mmx__dist_now_ms();
        s = move(ctx, dm, x, &b);
        if (!s && dm->dev) s = mmx_ctx_sync(ctx);
        s = mmx_dist_agree(ctx, d, s);
        if (!s) {
            dm->cnt->bytes += dm->soff[R] * k * 4;
            dm->cnt->exchanges++;
            dm->cnt->exchange_ms += mmx__dist_now_ms() - t0;
        }
    }
    mmx__dist_xbuf_free(ctx, &b);
    return s;
}

mmx_status mmx_dist_gather(mmx_ctx *ctx, const mmx_dist_mesh *dm, const float *x, int k,
                           float *whole)
{
    MMX__NEED_CTX(ctx);
    if (!dm) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_dist_gather: dm is NULL");
    mmx_dist *d = dm->d;
    const int R = d->size;
    const mmx_index nl = mmx_mesh_nverts(dm->local);
    float *sb = NULL, *rb = NULL, *hx = NULL;
    int64_t *bytes = NULL;
    mmx_status s = MMX_OK;
    if (!x || k < 1 || k > 16 || (d->rank == 0 && !whole))
        s = mmx__fail(ctx, MMX_ERR_ARG, "mmx_dist_gather: %s",
                      !x ? "x is NULL" : k < 1 || k > 16 ? "k out of 1..16" : "whole is NULL on rank 0");
    if (!s) s = mmx__host_alloc(ctx, (size_t)dm->nov * (size_t)k, sizeof *sb, (void **)&sb);
    if (!s && dm->dev) {
        /* The device rows read back first. */
        s = mmx__host_alloc(ctx, (size_t)nl * (size_t)k, sizeof *hx, (void **)&hx);
        if (!s) s = mmx_mem_copy(ctx, hx, MMX_SPACE_HOST, x, MMX_SPACE_DEVICE, (size_t)nl * (size_t)k * sizeof *x);
        x = hx;
    }
    if (!s && d->rank == 0) {
        s = mmx__host_alloc(ctx, (size_t)dm->gverts * (size_t)k, sizeof *rb, (void **)&rb);
        if (!s) s = mmx__host_alloc(ctx, (size_t)R, sizeof *bytes, (void **)&bytes);
    }
    s = mmx_dist_agree(ctx, d, s);
    if (s) goto out;
    for (mmx_index v = 0, j = 0; v < nl; v++)
        if (dm->ov[v]) memcpy(sb + (size_t)j++ * (size_t)k, x + (size_t)v * (size_t)k, (size_t)k * sizeof *x);
    if (d->rank == 0)
        for (int q = 0; q < R; q++) bytes[q] = dm->gcount[q] * 4 * k;
    s = mmx__dist_gatherv(ctx, d, sb, (int64_t)dm->nov * 4 * k, rb, bytes, 0);
    if (s) goto out;
    dm->cnt->bytes += (int64_t)dm->nov * 4 * k;
    if (d->rank == 0)
        for (int64_t i = 0; i < dm->gverts; i++)
            memcpy(whole + (size_t)dm->gids[i] * (size_t)k, rb + (size_t)i * (size_t)k, (size_t)k * sizeof *x);
out:
    free(sb), free(rb), free(bytes), free(hx);
    return s;
}
