/* The face split and vertex relocation templates of the cavity operator (dynamic.h states
 * their rules): their host stages for the round driver (round.c). Their seeds are faces and
 * vertices, not edges, with the edge templates' selection rule: valid seeds in key order
 * (priority, element, seed position), each kept unless its cavity shares a face with one
 * kept before. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "dynamic_internal.h"
#include "reloc_step.h"

/* ---- face split ------------------------------------------------------------------------------ */

/* The proposal: each seed's check (reloc_step.h, the code the CUDA stage runs too); its
 * cavity is its face. */
static mmx_status face_propose_host(mmx__round *r)
{
    const mmx__flip_topo *t = r->ht;
    const mmx_index n = r->n;
    mmx_status s = mmx__round_take(r, (size_t)n * sizeof *r->key, (void **)&r->key);
    if (!s) s = mmx__round_take(r, (size_t)n * sizeof *r->elem, (void **)&r->elem);
    if (!s) s = mmx__round_take(r, (size_t)n, (void **)&r->state);
    mmx_index *ptr = NULL;
    if (!s) s = mmx__round_take(r, ((size_t)n + 1) * sizeof *ptr, (void **)&ptr);
    if (s) return s;
    for (mmx_index i = 0; i <= n; i++) ptr[i] = i;
    r->ring_ptr = ptr, r->ring = r->seeds, r->nelem = t->nfaces;
    for (mmx_index i = 0; i < n; i++) {
        mmx_cavity_seed *x = &r->sd[i];
        x->faces[0] = r->seeds[i];
        x->faces[1] = x->new_edge[0] = x->new_edge[1] = x->vertex = -1;
        x->priority = mmx_cavity_priority(r->seeds[i], r->round);
        r->key[i] = x->priority, r->elem[i] = r->seeds[i];
        if (mmx__fs_valid(&t->view, r->pos, r->seeds[i])) {
            r->state[i] = MMX__UNDECIDED;
        } else {
            x->outcome = MMX_CAVITY_INVALID, r->state[i] = MMX_CAVITY_INVALID;
            r->c.invalid++;
        }
    }
    return MMX_OK;
}

/* The fill: one vertex and two faces more per kept seed, in key order. */
static mmx_status face_fill_host(mmx__round *r, mmx_mesh **out)
{
    const mmx__flip_topo *t = r->ht;
    const float *pos = r->pos;
    const mmx_index nk = r->c.kept, nv = t->nverts + nk, nf = t->nfaces + 2 * nk;
    mmx_index *start = NULL, *verts = NULL;
    float *p = NULL;
    mmx_status s = mmx__host_alloc(r->ctx, (size_t)nf + 1, sizeof *start, (void **)&start);
    if (!s) s = mmx__host_alloc(r->ctx, 3 * (size_t)nf + 1, sizeof *verts, (void **)&verts);
    if (!s && pos) s = mmx__host_alloc(r->ctx, 3 * (size_t)nv + 1, sizeof *p, (void **)&p);
    if (!s) {
        for (mmx_index f = 0; f <= nf; f++) start[f] = 3 * f;
        memcpy(verts, t->verts, 3 * (size_t)t->nfaces * sizeof *verts);
        if (pos) memcpy(p, pos, 3 * (size_t)t->nverts * sizeof *p);
        mmx_index next = t->nfaces;
        for (mmx_index i = 0; i < nk; i++) {
            const mmx_index m = t->nverts + i;
            r->sd[r->kept[i]].vertex = m;
            mmx__fs_fill(t->verts, pos, r->seeds[r->kept[i]], m, next, verts, p);
            next += 2;
        }
        mmx_mesh *m = NULL;
        s = mmx_mesh_from_faces(r->ctx, nv, nf, start, verts, p, &m);
        s = mmx__round_result(r->ctx, s, m, out);
    }
    free(start);
    free(verts);
    free(p);
    return s;
}

const mmx__round_ops mmx__face_ops = {{face_propose_host, mmx__face_propose_cuda},
                                      {face_fill_host, mmx__face_fill_cuda}};

mmx_status mmx__face_split_round_topo(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx__flip_topo *t,
                                      const mmx_index *seeds, mmx_index n, uint32_t round,
                                      mmx_mesh **out, mmx_cavity_counts *counts,
                                      mmx_cavity_seed *per_seed)
{
    for (mmx_index i = 0; i < n; i++)
        if (seeds[i] < 0 || seeds[i] >= t->nfaces)
            return mmx__fail(ctx, MMX_ERR_ARG, "mmx_cavity_face_split_round: seed %d is face %d, "
                             "outside [0, %d)", (int)i, (int)seeds[i], (int)t->nfaces);
    mmx__round r;
    memset(&r, 0, sizeof r);
    r.ctx = ctx, r.mesh = mesh, r.pos = mesh->pos, r.ht = t, r.kind = MMX_CAVITY_FACE_SPLIT;
    r.seeds = seeds, r.n = n, r.round = round, r.tally = 1, r.sd = per_seed;
    return mmx__round_run(&r, &mmx__face_ops, out, counts);
}

mmx_status mmx__face_split_round_cuda(mmx_ctx *ctx, const mmx_mesh *mesh,
                                      const mmx__flip_view *v, const mmx_index *seeds,
                                      mmx_index n, uint32_t round, mmx_mesh **out,
                                      mmx_cavity_counts *counts, mmx_cavity_seed *per_seed)
{
    mmx__round r;
    memset(&r, 0, sizeof r);
    r.ctx = ctx, r.cuda = 1, r.mesh = mesh, r.pos = mesh->pos, r.fv = v;
    r.kind = MMX_CAVITY_FACE_SPLIT, r.seeds = seeds, r.n = n, r.round = round, r.tally = 1;
    r.sd = per_seed;
    return mmx__round_run(&r, &mmx__face_ops, out, counts);
}

/* mmx_cavity_face_split_round on a CUDA context (face_split.cu); seeds and per_seed are host
 * arrays, as mmx_cavity_round's. */
static mmx_status face_split_round_cuda(mmx_ctx *ctx, const mmx_mesh *mesh,
                                        const mmx_index *seeds, mmx_index n, uint32_t round,
                                        mmx_mesh **out, mmx_cavity_counts *counts,
                                        mmx_cavity_seed *per_seed)
{
    mmx__flip_dev t;
    mmx_status s = mmx__flip_dev_build(ctx, mesh, "mmx_cavity_face_split_round", &t);
    if (s) return s;
    for (mmx_index i = 0; i < n && !s; i++)
        if (seeds[i] < 0 || seeds[i] >= t.view.nfaces)
            s = mmx__fail(ctx, MMX_ERR_ARG, "mmx_cavity_face_split_round: seed %d is face %d, "
                          "outside [0, %d)", (int)i, (int)seeds[i], (int)t.view.nfaces);
    mmx__round r;
    memset(&r, 0, sizeof r);
    r.ctx = ctx, r.cuda = 1, r.mesh = mesh, r.pos = mesh->pos, r.fv = &t.view;
    r.kind = MMX_CAVITY_FACE_SPLIT, r.seeds = seeds, r.n = n, r.round = round, r.tally = 1;
    if (!s) s = mmx__round_run_host_args(&r, &mmx__face_ops, per_seed, out, counts);
    mmx__flip_dev_free(ctx, &t);
    return s;
}

mmx_status mmx_cavity_face_split_round(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_index *seeds,
                                       mmx_index n, uint32_t round, mmx_mesh **out,
                                       mmx_cavity_counts *counts, mmx_cavity_seed *per_seed)
{
    MMX__NEED_CTX(ctx);
    if (!mesh || !mesh->M || !out || (n > 0 && !seeds) || n < 0)
        return mmx__fail(ctx, MMX_ERR_ARG,
                         "mmx_cavity_face_split_round: NULL argument or negative count");
    *out = NULL;
    if (mmx_ctx_backend(ctx) != MMX_BACKEND_HOST)
        return face_split_round_cuda(ctx, mesh, seeds, n, round, out, counts, per_seed);
    mmx__flip_topo t;
    mmx_status s = mmx__flip_topo_build(ctx, mesh, "mmx_cavity_face_split_round", &t);
    if (s) return s;
    s = mmx__face_split_round_topo(ctx, mesh, &t, seeds, n, round, out, counts, per_seed);
    mmx__flip_topo_free(&t);
    return s;
}

/* ---- vertex relocation ----------------------------------------------------------------------- */

double mmx__tri_quality(const double P[3], const double Q[3], const double R[3])
{
    return mmx__hd_tri_quality(P, Q, R);
}

/* The proposal: each move's check; its cavity is the faces at its vertex. */
static mmx_status move_propose_host(mmx__round *r)
{
    const mmx__flip_topo *t = r->ht;
    const mmx_index n = r->n;
    size_t nring = 0;
    for (mmx_index i = 0; i < n; i++)
        nring += (size_t)(t->vf_ptr[r->seeds[i] + 1] - t->vf_ptr[r->seeds[i]]);
    mmx_index *ptr = NULL, *ring = NULL;
    mmx_status s = mmx__round_take(r, (size_t)n * sizeof *r->key, (void **)&r->key);
    if (!s) s = mmx__round_take(r, (size_t)n * sizeof *r->elem, (void **)&r->elem);
    if (!s) s = mmx__round_take(r, (size_t)n, (void **)&r->state);
    if (!s) s = mmx__round_take(r, ((size_t)n + 1) * sizeof *ptr, (void **)&ptr);
    if (!s) s = mmx__round_take(r, nring * sizeof *ring, (void **)&ring);
    if (s) return s;
    r->ring_ptr = ptr, r->ring = ring, r->nelem = t->nfaces;
    const mmx__sc_view view = mmx__sc_host_view(t);
    ptr[0] = 0;
    for (mmx_index i = 0; i < n; i++) {
        const mmx_index v = r->seeds[i];
        mmx_cavity_seed *x = &r->sd[i];
        x->faces[0] = x->faces[1] = x->new_edge[0] = x->new_edge[1] = x->vertex = -1;
        x->priority = mmx_cavity_priority(v, r->round);
        r->key[i] = x->priority, r->elem[i] = v;
        mmx_index len = 0;
        if (mmx__mv_valid(&view, r->pos, v, r->targets + 3 * (size_t)i, r->min_quality)) {
            r->state[i] = MMX__UNDECIDED;
            for (mmx_index k = t->vf_ptr[v]; k < t->vf_ptr[v + 1]; k++)
                ring[ptr[i] + len++] = t->vf[k];
        } else {
            x->outcome = MMX_CAVITY_INVALID, r->state[i] = MMX_CAVITY_INVALID;
            r->c.invalid++;
        }
        ptr[i + 1] = ptr[i] + len;
    }
    return MMX_OK;
}

/* The fill: the kept seeds touch no common face, so their moves are independent. */
static mmx_status move_fill_host(mmx__round *r, mmx_mesh **out)
{
    (void)out;
    for (mmx_index i = 0; i < r->c.kept; i++) {
        const mmx_index j = r->kept[i], v = r->seeds[j];
        memcpy(r->pos_out + 3 * (size_t)v, r->targets + 3 * (size_t)j, 3 * sizeof *r->pos_out);
        r->sd[j].vertex = v;
    }
    return MMX_OK;
}

const mmx__round_ops mmx__move_ops = {{move_propose_host, mmx__move_propose_cuda},
                                      {move_fill_host, mmx__move_fill_cuda}};

mmx_status mmx__relocate_round_pos(mmx_ctx *ctx, const mmx__flip_topo *t, float *pos,
                                   const mmx_index *seeds, const float *targets, mmx_index n,
                                   uint32_t round, double min_quality, mmx_cavity_counts *counts,
                                   mmx_cavity_seed *per_seed)
{
    for (mmx_index i = 0; i < n; i++)
        if (seeds[i] < 0 || seeds[i] >= t->nverts)
            return mmx__fail(ctx, MMX_ERR_ARG, "mmx_cavity_relocate_round: seed %d is vertex "
                             "%d, outside [0, %d)", (int)i, (int)seeds[i], (int)t->nverts);
    mmx__round r;
    memset(&r, 0, sizeof r);
    r.ctx = ctx, r.pos = pos, r.pos_out = pos, r.ht = t, r.kind = MMX_CAVITY_VERTEX_MOVE;
    r.seeds = seeds, r.targets = targets, r.n = n, r.round = round, r.min_quality = min_quality;
    r.tally = 1, r.sd = per_seed;
    return mmx__round_run(&r, &mmx__move_ops, NULL, counts);
}

mmx_status mmx__relocate_round_cuda(mmx_ctx *ctx, const mmx__sc_view *v, float *pos,
                                    const mmx_index *seeds, const float *targets, mmx_index n,
                                    uint32_t round, double min_quality,
                                    mmx_cavity_counts *counts, mmx_cavity_seed *per_seed)
{
    mmx__round r;
    memset(&r, 0, sizeof r);
    r.ctx = ctx, r.cuda = 1, r.pos = pos, r.pos_out = pos, r.sv = v;
    r.kind = MMX_CAVITY_VERTEX_MOVE, r.seeds = seeds, r.targets = targets, r.n = n;
    r.round = round, r.min_quality = min_quality, r.tally = 1, r.sd = per_seed;
    return mmx__round_run(&r, &mmx__move_ops, NULL, counts);
}

/* mmx_cavity_relocate_round on a CUDA context (reloc.cu): the output is a copy of the mesh
 * whose positions the round moves in place. seeds, targets and per_seed are host arrays, as
 * mmx_cavity_round's. */
static mmx_status relocate_round_cuda(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_index *seeds,
                                      const float *targets, mmx_index n, uint32_t round,
                                      mmx_mesh **out, mmx_cavity_counts *counts,
                                      mmx_cavity_seed *per_seed)
{
    mmx__sc_dev t;
    mmx_status s = mmx__sc_dev_build(ctx, mesh, "mmx_cavity_relocate_round", &t);
    if (s) return s;
    const mmx_index nv = t.view.f.nverts, nf = t.view.f.nfaces;
    for (mmx_index i = 0; i < n && !s; i++)
        if (seeds[i] < 0 || seeds[i] >= nv)
            s = mmx__fail(ctx, MMX_ERR_ARG, "mmx_cavity_relocate_round: seed %d is vertex %d, "
                          "outside [0, %d)", (int)i, (int)seeds[i], (int)nv);
    /* The same faces, the positions copied; the round moves the kept seeds' vertices. */
    mmx_mesh *m = NULL;
    if (!s) s = mmx__flip_dev_mesh(ctx, mesh, &m);
    if (!s && nf > 0)
        s = mmx_mem_copy(ctx, m->M->rowidx, MMX_SPACE_DEVICE, t.view.f.verts, MMX_SPACE_DEVICE,
                         3 * (size_t)nf * sizeof *m->M->rowidx);
    mmx__round r;
    memset(&r, 0, sizeof r);
    if (!s) {
        r.ctx = ctx, r.cuda = 1, r.pos = m->pos, r.pos_out = m->pos, r.sv = &t.view;
        r.kind = MMX_CAVITY_VERTEX_MOVE, r.seeds = seeds, r.targets = targets, r.n = n;
        r.round = round, r.tally = 1;
        s = mmx__round_run_host_args(&r, &mmx__move_ops, per_seed, NULL, counts);
    }
    if (s) mmx_mesh_free(m);
    else *out = m;
    mmx__sc_dev_free(ctx, &t);
    return s;
}

mmx_status mmx_cavity_relocate_round(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_index *seeds,
                                     const float *targets, mmx_index n, uint32_t round,
                                     mmx_mesh **out, mmx_cavity_counts *counts,
                                     mmx_cavity_seed *per_seed)
{
    MMX__NEED_CTX(ctx);
    if (!mesh || !mesh->M || !out || (n > 0 && (!seeds || !targets)) || n < 0)
        return mmx__fail(ctx, MMX_ERR_ARG,
                         "mmx_cavity_relocate_round: NULL argument or negative count");
    *out = NULL;
    if (!mesh->pos)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_cavity_relocate_round: the mesh has no positions");
    if (mmx_ctx_backend(ctx) != MMX_BACKEND_HOST)
        return relocate_round_cuda(ctx, mesh, seeds, targets, n, round, out, counts, per_seed);
    mmx__flip_topo t;
    mmx_status s = mmx__flip_topo_build(ctx, mesh, "mmx_cavity_relocate_round", &t);
    if (s) return s;
    float *p = NULL;
    s = mmx__host_alloc(ctx, 3 * (size_t)t.nverts + 1, sizeof *p, (void **)&p);
    if (!s) {
        memcpy(p, mesh->pos, 3 * (size_t)t.nverts * sizeof *p);
        s = mmx__relocate_round_pos(ctx, &t, p, seeds, targets, n, round, 0, counts, per_seed);
    }
    mmx_mesh *m = NULL;
    if (!s) {
        s = mmx_mesh_from_faces(ctx, t.nverts, t.nfaces, t.start, t.verts, p, &m);
        s = mmx__round_result(ctx, s, m, out);
    }
    free(p);
    mmx__flip_topo_free(&t);
    return s;
}
