/* mmx_patch_set_create, _follow, _face_patch, _free, _stats (patch.h): the argument checks, the adjacency, and the
 * build on the context's backend: patch_build.c on the host, patch_build.cu on CUDA (kernels
 * on the device arrays of the mesh and its adjacency; nothing goes through the host but the
 * sizes and the statistics). The two give the same arrays bit for bit (tests/test_patch.c). */
#include <stdio.h>
#include <string.h>
#include "patch_internal.h"
#include "mesh/mesh_internal.h"

/* The set's array pointers, in one list, for the loops that free or clear them all. */
#define NARRAYS 21

static void arrays(mmx_patch_set *ps, void ***arr)
{
    void **a[NARRAYS] = {
        (void **)&ps->face_off,   (void **)&ps->edge_off,   (void **)&ps->vert_off,
        (void **)&ps->corner_off, (void **)&ps->owned,      (void **)&ps->l2g_f,
        (void **)&ps->l2g_e,      (void **)&ps->l2g_v,      (void **)&ps->fstart,
        (void **)&ps->fe,         (void **)&ps->ev,         (void **)&ps->face_patch,
        (void **)&ps->edge_patch, (void **)&ps->vert_patch, (void **)&ps->face_local,
        (void **)&ps->edge_local, (void **)&ps->vert_local, (void **)&ps->owned_off,
        (void **)&ps->rows_ptr, (void **)&ps->rows_idx[0], (void **)&ps->rows_idx[1],
    };
    memcpy(arr, a, sizeof a);
}

void mmx__patch_set_free_arrays(mmx_patch_set *ps)
{
    void **arr[NARRAYS];
    arrays(ps, arr);
    for (size_t i = 0; i < NARRAYS; i++) {
        mmx_mem_free(ps->ctx, ps->space, *arr[i]);
        *arr[i] = NULL;
    }
}

void mmx_patch_set_free(mmx_patch_set *ps)
{
    if (!ps) return;
    mmx__patch_set_free_arrays(ps);
    free(ps);
}

/* The common face order of a host mesh matrix (0 for mixed orders or no faces). */
static mmx_index common_order(const mmx_csc *M)
{
    if (M->order || M->ncols == 0) return M->order;
    const mmx_index c = M->colptr[1] - M->colptr[0];
    for (mmx_index f = 1; f < M->ncols; f++)
        if (M->colptr[f + 1] - M->colptr[f] != c) return 0;
    return c;
}

/* After either build: the ends of the inconsistent edge, read from the adjacency (one small
 * copy, only for a mesh that has one), and the build-time arrays given back (patch_internal.h:
 * no query reads them; the statistics count the set without them). */
static mmx_status finish(mmx_ctx *ctx, mmx_patch_set *ps, const mmx_adjacency *adj)
{
    ps->bad_ends[0] = ps->bad_ends[1] = -1;
    mmx_status s = MMX_OK;
    if (ps->bad_edge >= 0)
        s = mmx_mem_copy(ctx, ps->bad_ends, MMX_SPACE_HOST, adj->ev + 2 * (size_t)ps->bad_edge,
                         adj->space, sizeof ps->bad_ends);
    void **temp[5] = {(void **)&ps->edge_patch, (void **)&ps->vert_patch, (void **)&ps->face_local,
                      (void **)&ps->edge_local, (void **)&ps->vert_local};
    for (int i = 0; i < 5; i++) {
        mmx_mem_free(ctx, ps->space, *temp[i]);
        *temp[i] = NULL;
    }
    return s;
}

/* Both entry points: the plain cut (label NULL) or the cut with labels (nlabels, max_group:
 * the CUDA build's hints, 0 for none); `fn` names the caller in the sentences. */
static mmx_status create(mmx_ctx *ctx, const char *fn, const mmx_mesh *mesh, const mmx_index *label,
                         mmx_index nlabels, mmx_index max_group, const mmx_adjacency *adj,
                         const mmx_patch_options *opts, mmx_patch_set **out)
{
    if (!ctx || !mesh || !mesh->M || !out)
        return mmx__fail(ctx, MMX_ERR_ARG, "%s: NULL argument", fn);
    *out = NULL;
    const int S = opts && opts->max_faces ? opts->max_faces : MMX_PATCH_DEFAULT_FACES;
    if (S < 1 || S > MMX_PATCH_MAX_FACES)
        return mmx__fail(ctx, MMX_ERR_ARG,
                         "%s: max_faces %d outside 1 .. %d (0: the default %d)", fn, S,
                         MMX_PATCH_MAX_FACES, MMX_PATCH_DEFAULT_FACES);
    char what[64];
    snprintf(what, sizeof what, "%s: the mesh", fn);
    mmx_status s = mmx__check_space(ctx, mesh->space, what);
    if (s) return s;
    if (mesh->space != mmx_ctx_space(ctx))
        return mmx__fail(ctx, MMX_ERR_SPACE, "%s: the mesh is not in the context's space", fn);
    if (adj && (adj->space != mesh->space || adj->nverts != mesh->M->nrows || adj->nfaces != mesh->M->ncols))
        return mmx__fail(ctx, MMX_ERR_ARG, "%s: the adjacency is not the mesh's", fn);

    mmx_adjacency *own_adj = NULL;
    if (!adj) {
        s = mmx_adjacency_compute(ctx, mesh, &own_adj);
        if (s) return s;
        adj = own_adj;
    }
    const mmx_mesh *hm = NULL;
    mmx_patch_set *ps = NULL;
    s = mmx__host_alloc(ctx, 1, sizeof *ps, (void **)&ps);
    if (!s) {
        memset(ps, 0, sizeof *ps);
        ps->ctx = ctx;
        ps->space = mesh->space;
        ps->nverts = mesh->M->nrows, ps->nfaces = mesh->M->ncols, ps->nedges = adj->nedges;
        ps->max_faces = S;
        ps->bad_edge = -1;
        if (mesh->space == MMX_SPACE_DEVICE) {
            /* The adjacency knows the common order; M's colptr is on the device. */
            ps->order = mesh->M->order ? mesh->M->order : adj->face_order;
            s = mmx__patch_build_cuda(ctx, mesh->M, mesh->pos, adj->fe, adj->ev, label, nlabels,
                                      max_group, ps);
        } else {
            s = mmx__mesh_host_view(ctx, mesh, &hm);
            if (!s) {
                ps->order = common_order(hm->M);
                s = mmx__patch_build_host(ctx, hm->M, hm->pos, adj->fe, adj->ev, label, ps);
            }
        }
        if (!s) s = finish(ctx, ps, adj);
        if (s) {
            mmx_patch_set_free(ps);
            ps = NULL;
        }
    }
    if (hm) mmx__mesh_host_release(mesh, hm);
    mmx_adjacency_free(own_adj);
    if (!s) *out = ps;
    return s;
}

mmx_status mmx_patch_set_create(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_adjacency *adj,
                                const mmx_patch_options *opts, mmx_patch_set **out)
{
    MMX__NEED_CTX(ctx);
    return create(ctx, "mmx_patch_set_create", mesh, NULL, 0, 0, adj, opts, out);
}

mmx_status mmx_patch_set_follow(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_index *face_label,
                                const mmx_adjacency *adj, const mmx_patch_options *opts,
                                mmx_patch_set **out)
{
    return mmx__patch_set_follow_hint(ctx, mesh, face_label, 0, 0, adj, opts, out);
}

mmx_status mmx__patch_set_follow_hint(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_index *face_label,
                                      mmx_index nlabels, mmx_index max_group,
                                      const mmx_adjacency *adj, const mmx_patch_options *opts,
                                      mmx_patch_set **out)
{
    MMX__NEED_CTX(ctx);
    if (!face_label && mesh && mesh->M && mesh->M->ncols > 0) {
        if (out) *out = NULL;
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_patch_set_follow: NULL face_label");
    }
    static const mmx_index none = 0; /* a mesh without faces reads no label */
    return create(ctx, "mmx_patch_set_follow", mesh, face_label ? face_label : &none,
                  face_label ? nlabels : 0, max_group, adj, opts, out);
}

mmx_status mmx_patch_set_face_patch(mmx_ctx *ctx, const mmx_patch_set *ps, mmx_index *out)
{
    MMX__NEED_CTX(ctx);
    if (!ctx || !ps || !out)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_patch_set_face_patch: NULL argument");
    if (ps->space != mmx_ctx_space(ctx))
        return mmx__fail(ctx, MMX_ERR_SPACE,
                         "mmx_patch_set_face_patch: the set is not in the context's space");
    if (ps->nfaces == 0) return MMX_OK;
    return mmx_mem_copy(ctx, out, ps->space, ps->face_patch, ps->space,
                        (size_t)ps->nfaces * sizeof *out);
}

mmx_status mmx_patch_set_stats(mmx_ctx *ctx, const mmx_patch_set *ps, mmx_patch_stats *st)
{
    MMX__NEED_CTX(ctx);
    if (!ps || !st) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_patch_set_stats: NULL argument");
    *st = ps->stats;
    return MMX_OK;
}

void mmx__patch_floor_bytes(const mmx_patch_set *ps, double bytes[MMX_QUERY_COUNT])
{
    /* Per kind: its source and target (0 vertex, 1 edge, 2 face), whether it reads the FE
     * block and whether it reads the EV block (see patch_internal.h). */
    static const int src[MMX_QUERY_COUNT] = {0, 0, 0, 1, 1, 2, 2, 2};
    static const int tgt[MMX_QUERY_COUNT] = {0, 1, 2, 0, 2, 0, 1, 2};
    static const int reads_fe[MMX_QUERY_COUNT] = {1, 1, 1, 0, 1, 1, 1, 1};
    static const int reads_ev[MMX_QUERY_COUNT] = {1, 1, 1, 1, 0, 1, 0, 0};
    const double local[3] = {(double)ps->nlv, (double)ps->nle, (double)ps->nlf};
    /* Every element in a face is owned once, so the owned ones of a kind are its global
     * count; vertices in no face, which no patch owns, are counted too (a mesh has few). */
    const double owned[3] = {(double)ps->nverts, (double)ps->nedges, (double)ps->nfaces};
    for (int k = 0; k < MMX_QUERY_COUNT; k++) {
        double b = 28.0 * (double)ps->npatches;
        if (reads_fe[k]) b += 2.0 * (double)ps->nlc + (ps->order ? 0.0 : 4.0 * (double)ps->nlf);
        if (reads_ev[k]) b += 4.0 * (double)ps->nle;
        b += 4.0 * local[tgt[k]];
        if (src[k] != tgt[k]) b += 4.0 * owned[src[k]];
        bytes[k] = b;
    }
}
