/* Delaunay edge flips by the cavity operator: each round proposes every interior edge whose
 * opposite angles sum to more than pi (plus MMX_DELAUNAY_TOL) as an EDGE_FLIP seed; the round
 * keeps a maximal independent set of them by priority and flips those. On a plane each flip
 * lowers the triangulation's potential, so the rounds end; on a surface the round cap is the
 * guard. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "dynamic_internal.h"
#include "patch_keep.h"
#include "patch/patch_update.h"

int mmx_delaunay_violates(const float *pos, mmx_index a, mmx_index b, mmx_index c, mmx_index d)
{
    return mmx__violates(pos, a, b, c, d); /* flip_step.h: the test the CUDA kernel runs */
}

/* The interior edges over the bound, in edge order, into a malloc'd array. */
static mmx_status violators(mmx_ctx *ctx, const mmx__flip_topo *t, const float *pos,
                            mmx_index **seeds, mmx_index *n)
{
    mmx_index count = 0;
    for (mmx_index e = 0; e < t->nedges; e++) count += mmx__fv_delaunay_seed(&t->view, pos, e);
    mmx_status s = mmx__host_alloc(ctx, (size_t)count, sizeof **seeds, (void **)seeds);
    if (s) return s;
    *n = 0;
    for (mmx_index e = 0; e < t->nedges; e++)
        if (mmx__fv_delaunay_seed(&t->view, pos, e)) (*seeds)[(*n)++] = e;
    return MMX_OK;
}

/* The device seeds of t into *seeds (device, room for nedges) and their number *n (read on the
 * host: the copy waits, as the round must size its arrays by it). */
static mmx_status violators_dev(mmx_ctx *ctx, const mmx__flip_dev *t, const float *pos,
                                mmx_index **seeds, mmx_index *n)
{
    mmx_index *count = NULL;
    *seeds = NULL, *n = 0;
    if (t->view.nedges == 0) return MMX_OK;
    mmx_status s = mmx_mem_alloc(ctx, MMX_SPACE_DEVICE, ((size_t)t->view.nedges + 1) * sizeof **seeds,
                                 (void **)seeds);
    if (!s) s = mmx_mem_alloc(ctx, MMX_SPACE_DEVICE, sizeof *count, (void **)&count);
    if (!s) s = mmx__delaunay_seeds_cuda(ctx, &t->view, pos, *seeds, count);
    if (!s) s = mmx_mem_copy(ctx, n, MMX_SPACE_HOST, count, MMX_SPACE_DEVICE, sizeof *n);
    mmx_mem_free(ctx, MMX_SPACE_DEVICE, count);
    if (s) {
        mmx_mem_free(ctx, MMX_SPACE_DEVICE, *seeds);
        *seeds = NULL;
    }
    return s;
}

/* mmx_delaunay_round on a CUDA context: the topology, the seeds and the round on the device. */
static mmx_status delaunay_round_cuda(mmx_ctx *ctx, const mmx_mesh *mesh, uint32_t round,
                                      mmx_mesh **out, mmx_cavity_counts *counts)
{
    mmx__flip_dev t;
    mmx_status s = mmx__flip_dev_build(ctx, mesh, "mmx_delaunay_round", &t);
    if (s) return s;
    mmx_index *seeds = NULL, n = 0;
    s = violators_dev(ctx, &t, mesh->pos, &seeds, &n);
    if (!s) s = mmx__flip_round_dev(ctx, mesh, &t, seeds, n, 1, round, out, counts, NULL);
    mmx_mem_free(ctx, MMX_SPACE_DEVICE, seeds);
    mmx__flip_dev_free(ctx, &t);
    return s;
}

/* One topology's arrays on the device (edge_ptr, ev, ef), for the Delaunay loop's ping-pong. */
typedef struct topo_arrays {
    mmx_index *edge_ptr, *ev, *ef;
} topo_arrays;

static mmx_status topo_alloc(mmx_ctx *ctx, mmx_index nv, mmx_index ne, topo_arrays *a)
{
    const size_t ix = sizeof(mmx_index);
    mmx_status s = mmx_mem_alloc(ctx, MMX_SPACE_DEVICE, ((size_t)nv + 1) * ix, (void **)&a->edge_ptr);
    if (!s) s = mmx_mem_alloc(ctx, MMX_SPACE_DEVICE, (2 * (size_t)ne + 1) * ix, (void **)&a->ev);
    if (!s) s = mmx_mem_alloc(ctx, MMX_SPACE_DEVICE, (2 * (size_t)ne + 1) * ix, (void **)&a->ef);
    return s;
}

static void topo_release(mmx_ctx *ctx, topo_arrays *a)
{
    mmx_mem_free(ctx, MMX_SPACE_DEVICE, a->edge_ptr);
    mmx_mem_free(ctx, MMX_SPACE_DEVICE, a->ev);
    mmx_mem_free(ctx, MMX_SPACE_DEVICE, a->ef);
}

/* mmx_delaunay_flip on CUDA, the mesh on the device with faces: the rounds of
 * mmx_delaunay_round, but the topology is built from the adjacency once and then carried from
 * round to round by mmx__flip_update (a flip keeps the face ids and the edge count; the update
 * gives the very arrays a rebuild would, which the host tests check), so a round costs its
 * seeds, its selection and its fill, O(nedges), without the two products of the adjacency and
 * their wait. */
static mmx_status delaunay_flip_cuda(mmx_ctx *ctx, const mmx_mesh *mesh, mmx_patch_set *ps,
                                     mmx_mesh **out, mmx_delaunay_report *r)
{
    mmx__flip_dev t;
    mmx_status s = mmx__flip_dev_build(ctx, mesh, "mmx_delaunay_flip", &t);
    if (s) return s;
    const mmx_index nv = t.view.nverts, ne = t.view.nedges;
    topo_arrays ta[2];
    memset(ta, 0, sizeof ta);
    mmx_index *seeds = NULL, *kedge = NULL, *count = NULL;
    s = topo_alloc(ctx, nv, ne, &ta[0]);
    if (!s) s = topo_alloc(ctx, nv, ne, &ta[1]);
    if (!s) s = mmx_mem_alloc(ctx, MMX_SPACE_DEVICE, ((size_t)ne + 1) * sizeof *seeds, (void **)&seeds);
    if (!s) s = mmx_mem_alloc(ctx, MMX_SPACE_DEVICE, ((size_t)ne + 1) * sizeof *kedge, (void **)&kedge);
    if (!s) s = mmx_mem_alloc(ctx, MMX_SPACE_DEVICE, sizeof *count, (void **)&count);
    mmx__flip_view view = t.view;
    const mmx_mesh *cur = mesh;
    mmx_mesh *owned = NULL; /* cur when it is ours */
    int capped = 1, next_arrays = 0;
    for (int k = 0; k < MMX_DELAUNAY_MAX_ROUNDS && !s; k++) {
        mmx_index n = 0;
        mmx_mesh *next = NULL;
        mmx_cavity_counts c;
        /* The round's seeds: their number is read on the host (a wait), to size the round. */
        s = ne ? mmx__delaunay_seeds_cuda(ctx, &view, cur->pos, seeds, count) : MMX_OK;
        if (!s && ne) s = mmx_mem_copy(ctx, &n, MMX_SPACE_HOST, count, MMX_SPACE_DEVICE, sizeof n);
        if (!s) s = mmx__flip_dev_mesh(ctx, cur, &next);
        if (!s) s = mmx__flip_round_ranked_cuda(ctx, &view, cur->pos, seeds, NULL, n, 1,
                                                (uint32_t)k, next->M->rowidx, &c, 0, NULL, kedge);
        mmx__flip_view nview = view;
        if (!s && c.kept > 0) {
            topo_arrays *a = &ta[next_arrays];
            s = mmx__flip_update(ctx, &view, kedge, c.kept, next->M->rowidx, a->edge_ptr, a->ev,
                                 a->ef, &nview);
            next_arrays ^= 1;
        }
        if (s) {
            mmx_mesh_free(next);
            break;
        }
        mmx_mesh_free(owned); /* in stream order: after the update that read its faces */
        owned = next;
        cur = next;
        view = nview;
        if (c.kept > 0) s = mmx__keep_patches(ctx, ps, MMX_CAVITY_EDGE_FLIP, 0, 0, c.kept, NULL, 0,
                                              MMX_SPACE_DEVICE, cur, NULL);
        if (s) break;
        if (k == 0) { /* the adjacency's arrays are no longer read */
            t.view = view;
            mmx_adjacency_free(t.adj);
            mmx_mem_free(ctx, MMX_SPACE_DEVICE, t.ef);
            t.adj = NULL, t.ef = NULL;
        }
        if (c.kept == 0) { /* nothing flippable is left: what is over the bound stays */
            r->remaining = c.proposed;
            capped = 0;
            break;
        }
        r->flips_per_round[r->rounds] = c.kept;
        r->proposed_per_round[r->rounds] = c.proposed;
        r->rounds++;
        r->flips += c.kept;
        mmx__progress(ctx, "delaunay round", r->rounds, 0);
    }
    if (!s && capped) { /* the cap stopped it: count what is left */
        s = ne ? mmx__delaunay_seeds_cuda(ctx, &view, cur->pos, seeds, count) : MMX_OK;
        if (!s && ne)
            s = mmx_mem_copy(ctx, &r->remaining, MMX_SPACE_HOST, count, MMX_SPACE_DEVICE,
                             sizeof r->remaining);
    }
    mmx_mem_free(ctx, MMX_SPACE_DEVICE, seeds);
    mmx_mem_free(ctx, MMX_SPACE_DEVICE, kedge);
    mmx_mem_free(ctx, MMX_SPACE_DEVICE, count);
    topo_release(ctx, &ta[0]);
    topo_release(ctx, &ta[1]);
    mmx__flip_dev_free(ctx, &t);
    if (s) {
        mmx_mesh_free(owned);
        return s;
    }
    *out = owned;
    return MMX_OK;
}

/* The number of interior edges of `mesh` over the bound, on the context's backend. */
static mmx_status count_violators(mmx_ctx *ctx, const mmx_mesh *mesh, mmx_index *n)
{
    mmx_index *seeds = NULL;
    mmx_status s;
    if (mmx_ctx_backend(ctx) != MMX_BACKEND_HOST) {
        mmx__flip_dev t;
        s = mmx__flip_dev_build(ctx, mesh, "mmx_delaunay_flip", &t);
        if (!s) s = violators_dev(ctx, &t, mesh->pos, &seeds, n);
        mmx_mem_free(ctx, MMX_SPACE_DEVICE, seeds);
        mmx__flip_dev_free(ctx, &t);
        return s;
    }
    mmx__flip_topo t;
    s = mmx__flip_topo_build(ctx, mesh, "mmx_delaunay_flip", &t);
    if (!s) {
        s = violators(ctx, &t, mesh->pos, &seeds, n);
        free(seeds);
        mmx__flip_topo_free(&t);
    }
    return s;
}

mmx_status mmx_delaunay_round(mmx_ctx *ctx, const mmx_mesh *mesh, uint32_t round, mmx_mesh **out,
                              mmx_cavity_counts *counts)
{
    MMX__NEED_CTX(ctx);
    if (!mesh || !mesh->M || !out)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_delaunay_round: NULL argument");
    *out = NULL;
    if (!mesh->pos)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_delaunay_round: the mesh has no positions");
    if (mmx_ctx_backend(ctx) != MMX_BACKEND_HOST)
        return delaunay_round_cuda(ctx, mesh, round, out, counts);
    mmx__flip_topo t;
    mmx_status s = mmx__flip_topo_build(ctx, mesh, "mmx_delaunay_round", &t);
    if (s) return s;
    mmx_index *seeds = NULL, n = 0;
    s = violators(ctx, &t, mesh->pos, &seeds, &n);
    if (!s) s = mmx__cavity_round_ranked(ctx, mesh, &t, MMX_CAVITY_EDGE_FLIP, seeds, NULL, NULL,
                                         0, n, round, out, counts, NULL);
    free(seeds);
    mmx__flip_topo_free(&t);
    return s;
}

mmx_status mmx_delaunay_flip(mmx_ctx *ctx, const mmx_mesh *mesh, mmx_mesh **out,
                             mmx_delaunay_report *report)
{
    return mmx_delaunay_flip_patches(ctx, mesh, NULL, out, report);
}

mmx_status mmx_delaunay_flip_patches(mmx_ctx *ctx, const mmx_mesh *mesh, mmx_patch_set *patches,
                                     mmx_mesh **out, mmx_delaunay_report *report)
{
    MMX__NEED_CTX(ctx);
    if (!mesh || !out) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_delaunay_flip: NULL argument");
    *out = NULL;
    if (patches && mesh->M) {
        mmx_status s = mmx__patch_set_matches(ctx, patches, mesh, "mmx_delaunay_flip_patches");
        if (s) return s;
    }
    mmx_delaunay_report r;
    memset(&r, 0, sizeof r);
    if (mmx_ctx_backend(ctx) != MMX_BACKEND_HOST && mesh->M && mesh->pos && mesh->M->ncols > 0 &&
        mesh->space == MMX_SPACE_DEVICE) {
        mmx_status s = delaunay_flip_cuda(ctx, mesh, patches, out, &r);
        if (!s && report) *report = r;
        return s;
    }
    mmx_mesh *cur = NULL;
    mmx_status s = MMX_OK;
    int capped = 1;
    for (int k = 0; k < MMX_DELAUNAY_MAX_ROUNDS; k++) {
        mmx_mesh *next = NULL;
        mmx_cavity_counts c;
        s = mmx_delaunay_round(ctx, cur ? cur : mesh, (uint32_t)k, &next, &c);
        if (s) break;
        mmx_mesh_free(cur);
        cur = next;
        if (c.kept == 0) { /* nothing flippable is left: what is over the bound stays */
            r.remaining = c.proposed;
            capped = 0;
            break;
        }
        s = mmx__keep_patches(ctx, patches, MMX_CAVITY_EDGE_FLIP, 0, 0, c.kept, NULL, 0,
                              MMX_SPACE_HOST, cur, NULL);
        if (s) break;
        r.flips_per_round[r.rounds] = c.kept;
        r.proposed_per_round[r.rounds] = c.proposed;
        r.rounds++;
        r.flips += c.kept;
        mmx__progress(ctx, "delaunay round", r.rounds, 0);
    }
    if (!s && capped) s = count_violators(ctx, cur, &r.remaining); /* what the cap left */
    if (s) {
        mmx_mesh_free(cur);
        return s;
    }
    *out = cur;
    if (report) *report = r;
    return MMX_OK;
}
