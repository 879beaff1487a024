/* The face split and vertex relocation templates of the cavity operator (dynamic.h states
 * their rules). Their seeds are faces and vertices, not edges, so they have rounds of their
 * own, with the edge templates' selection rule: valid seeds in key order (priority, element,
 * seed position), each kept unless its cavity shares a face with one kept before. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "dynamic_internal.h"
#include "reloc_step.h"

/* ---- face split ------------------------------------------------------------------------------ */

/* A face split's validity, centroid and fill are reloc_step.h's (the code the CUDA round runs
 * too). */
static int face_split_valid(const mmx__flip_topo *t, const float *pos, mmx_index face)
{
    return mmx__fs_valid(&t->view, pos, face);
}

mmx_status mmx__face_split_round_topo(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx__flip_topo *t,
                                      const mmx_index *seeds, mmx_index n, uint32_t round,
                                      mmx_mesh **out, mmx_cavity_counts *counts,
                                      mmx_cavity_seed *per_seed)
{
    for (mmx_index i = 0; i < n; i++)
        if (seeds[i] < 0 || seeds[i] >= t->nfaces)
            return mmx__fail(ctx, MMX_ERR_ARG, "mmx_cavity_face_split_round: seed %d is face %d, "
                             "outside [0, %d)", (int)i, (int)seeds[i], (int)t->nfaces);
    const float *pos = mesh->pos;
    mmx_cavity_seed *sd = per_seed;
    mmx__cavity_key *order = NULL;
    unsigned char *taken = NULL;
    mmx_index *ptr = NULL, *kept = NULL, *start = NULL, *verts = NULL;
    float *p = NULL;
    mmx_status s = MMX_OK;
    if (!sd) s = mmx__host_alloc(ctx, (size_t)n, sizeof *sd, (void **)&sd);
    if (!s) s = mmx__host_alloc(ctx, (size_t)n, sizeof *order, (void **)&order);
    if (!s) s = mmx__host_alloc(ctx, (size_t)n, sizeof *kept, (void **)&kept);
    if (!s) s = mmx__host_alloc(ctx, (size_t)n + 1, sizeof *ptr, (void **)&ptr);
    if (!s) s = mmx__host_alloc(ctx, (size_t)t->nfaces + 1, 1, (void **)&taken);
    mmx_cavity_counts c = {n, 0, 0, 0};
    if (!s) {
        memset(taken, 0, (size_t)t->nfaces);
        mmx_index nvalid = 0;
        ptr[0] = 0;
        for (mmx_index i = 0; i < n; i++) {
            mmx_cavity_seed *x = &sd[i];
            x->faces[0] = seeds[i];
            x->faces[1] = x->new_edge[0] = x->new_edge[1] = x->vertex = -1;
            x->priority = mmx_cavity_priority(seeds[i], round);
            const int ok = face_split_valid(t, pos, seeds[i]);
            if (ok) order[nvalid++] = (mmx__cavity_key){x->priority, seeds[i], i};
            else x->outcome = MMX_CAVITY_INVALID, c.invalid++;
            ptr[i + 1] = ptr[i] + ok; /* the cavity: the seed face, ring = seeds */
        }
        mmx__cavity_key_sort(order, nvalid);
        /* ring[ptr[j]] = seeds[j] for a valid j: ptr counts only valid seeds, so a compact
         * copy of their faces is the ring. */
        mmx_index *ring = NULL;
        s = mmx__host_alloc(ctx, (size_t)nvalid + 1, sizeof *ring, (void **)&ring);
        if (!s) {
            for (mmx_index i = 0; i < n; i++)
                if (ptr[i + 1] > ptr[i]) ring[ptr[i]] = seeds[i];
            c.kept = mmx__cavity_select(order, nvalid, sd, ptr, ring, taken, NULL, 0, 0, kept);
            c.conflicts = nvalid - c.kept;
        }
        free(ring);
    }
    const mmx_index nk = c.kept, nv = t->nverts + nk, nf = t->nfaces + 2 * nk;
    if (!s) s = mmx__host_alloc(ctx, (size_t)nf + 1, sizeof *start, (void **)&start);
    if (!s) s = mmx__host_alloc(ctx, 3 * (size_t)nf + 1, sizeof *verts, (void **)&verts);
    if (!s && pos) s = mmx__host_alloc(ctx, 3 * (size_t)nv + 1, sizeof *p, (void **)&p);
    if (!s) {
        for (mmx_index f = 0; f <= nf; f++) start[f] = 3 * f;
        memcpy(verts, t->verts, 3 * (size_t)t->nfaces * sizeof *verts);
        if (pos) memcpy(p, pos, 3 * (size_t)t->nverts * sizeof *p);
        mmx_index next = t->nfaces;
        for (mmx_index i = 0; i < nk; i++) {
            const mmx_index m = t->nverts + i;
            sd[kept[i]].vertex = m;
            mmx__fs_fill(t->verts, pos, seeds[kept[i]], m, next, verts, p);
            next += 2;
        }
        mmx_mesh *m = NULL;
        s = mmx_mesh_from_faces(ctx, nv, nf, start, verts, p, &m);
        s = mmx__round_result(ctx, s, m, out);
    }
    if (!s && counts) *counts = c;
    if (sd != per_seed) free(sd);
    free(order);
    free(kept);
    free(ptr);
    free(taken);
    free(start);
    free(verts);
    free(p);
    return s;
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
    mmx_index *dseeds = NULL;
    mmx_cavity_seed *dsd = NULL;
    const size_t sb = (size_t)n * sizeof *dseeds, db = (size_t)n * sizeof *dsd;
    if (!s) s = mmx_mem_alloc(ctx, MMX_SPACE_DEVICE, sb, (void **)&dseeds);
    if (!s && n) s = mmx_mem_copy(ctx, dseeds, MMX_SPACE_DEVICE, seeds, MMX_SPACE_HOST, sb);
    if (!s && per_seed) s = mmx_mem_alloc(ctx, MMX_SPACE_DEVICE, db, (void **)&dsd);
    if (!s) s = mmx__face_split_round_cuda(ctx, mesh, &t.view, dseeds, n, round, out, counts, dsd);
    /* The seeds' outcomes are read on the host: the copy waits for the round. */
    if (!s && per_seed && n)
        s = mmx_mem_copy(ctx, per_seed, MMX_SPACE_HOST, dsd, MMX_SPACE_DEVICE, db);
    if (s && *out) {
        mmx_mesh_free(*out);
        *out = NULL;
    }
    mmx_mem_free(ctx, MMX_SPACE_DEVICE, dseeds);
    mmx_mem_free(ctx, MMX_SPACE_DEVICE, dsd);
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

/* The topology's arrays as reloc_step.h's view (a move reads the faces and the faces at each
 * vertex). */
static mmx__sc_view sc_view(const mmx__flip_topo *t)
{
    const mmx__sc_view v = {t->view, t->hf, t->adj->sides, t->adj->boundary, t->adj->E->colptr,
                            t->adj->E->rowidx, t->vf_ptr, t->vf};
    return v;
}

mmx_status mmx__relocate_round_pos(mmx_ctx *ctx, const mmx__flip_topo *t, float *pos,
                                   const mmx_index *seeds, const float *targets, mmx_index n,
                                   uint32_t round, double min_quality, mmx_cavity_counts *counts,
                                   mmx_cavity_seed *per_seed)
{
    for (mmx_index i = 0; i < n; i++)
        if (seeds[i] < 0 || seeds[i] >= t->nverts)
            return mmx__fail(ctx, MMX_ERR_ARG, "mmx_cavity_relocate_round: seed %d is vertex "
                             "%d, outside [0, %d)", (int)i, (int)seeds[i], (int)t->nverts);
    size_t nring = 0;
    for (mmx_index i = 0; i < n; i++)
        nring += (size_t)(t->vf_ptr[seeds[i] + 1] - t->vf_ptr[seeds[i]]);
    mmx_cavity_seed *sd = per_seed;
    mmx__cavity_key *order = NULL;
    unsigned char *taken = NULL;
    mmx_index *ptr = NULL, *kept = NULL, *ring = NULL;
    mmx_status s = MMX_OK;
    if (!sd) s = mmx__host_alloc(ctx, (size_t)n, sizeof *sd, (void **)&sd);
    if (!s) s = mmx__host_alloc(ctx, (size_t)n, sizeof *order, (void **)&order);
    if (!s) s = mmx__host_alloc(ctx, (size_t)n, sizeof *kept, (void **)&kept);
    if (!s) s = mmx__host_alloc(ctx, (size_t)n + 1, sizeof *ptr, (void **)&ptr);
    if (!s) s = mmx__host_alloc(ctx, nring + 1, sizeof *ring, (void **)&ring);
    if (!s) s = mmx__host_alloc(ctx, (size_t)t->nfaces + 1, 1, (void **)&taken);
    mmx_cavity_counts c = {n, 0, 0, 0};
    const mmx__sc_view view = sc_view(t);
    if (!s) {
        memset(taken, 0, (size_t)t->nfaces);
        mmx_index nvalid = 0;
        ptr[0] = 0;
        for (mmx_index i = 0; i < n; i++) {
            const mmx_index v = seeds[i];
            mmx_cavity_seed *x = &sd[i];
            x->faces[0] = x->faces[1] = x->new_edge[0] = x->new_edge[1] = x->vertex = -1;
            x->priority = mmx_cavity_priority(v, round);
            mmx_index len = 0;
            if (mmx__mv_valid(&view, pos, v, targets + 3 * (size_t)i, min_quality)) {
                order[nvalid++] = (mmx__cavity_key){x->priority, v, i};
                for (mmx_index k = t->vf_ptr[v]; k < t->vf_ptr[v + 1]; k++)
                    ring[ptr[i] + len++] = t->vf[k];
            } else {
                x->outcome = MMX_CAVITY_INVALID;
                c.invalid++;
            }
            ptr[i + 1] = ptr[i] + len;
        }
        mmx__cavity_key_sort(order, nvalid);
        c.kept = mmx__cavity_select(order, nvalid, sd, ptr, ring, taken, NULL, 0, 0, kept);
        c.conflicts = nvalid - c.kept;
        /* The kept seeds touch no common face, so their moves are independent. */
        for (mmx_index i = 0; i < c.kept; i++) {
            const mmx_index j = kept[i], v = seeds[j];
            memcpy(pos + 3 * (size_t)v, targets + 3 * (size_t)j, 3 * sizeof *pos);
            sd[j].vertex = v;
        }
    }
    if (!s && counts) *counts = c;
    if (sd != per_seed) free(sd);
    free(order);
    free(kept);
    free(ptr);
    free(ring);
    free(taken);
    return s;
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
    mmx_index *dseeds = NULL;
    float *dtargets = NULL;
    mmx_cavity_seed *dsd = NULL;
    mmx_mesh *m = NULL;
    const size_t sb = (size_t)n * sizeof *dseeds, tb = 3 * (size_t)n * sizeof *dtargets,
                 db = (size_t)n * sizeof *dsd;
    if (!s) s = mmx_mem_alloc(ctx, MMX_SPACE_DEVICE, sb, (void **)&dseeds);
    if (!s) s = mmx_mem_alloc(ctx, MMX_SPACE_DEVICE, tb, (void **)&dtargets);
    if (!s && n) s = mmx_mem_copy(ctx, dseeds, MMX_SPACE_DEVICE, seeds, MMX_SPACE_HOST, sb);
    if (!s && n) s = mmx_mem_copy(ctx, dtargets, MMX_SPACE_DEVICE, targets, MMX_SPACE_HOST, tb);
    if (!s && per_seed) s = mmx_mem_alloc(ctx, MMX_SPACE_DEVICE, db, (void **)&dsd);
    /* The same faces, the positions copied; the round moves the kept seeds' vertices. */
    if (!s) s = mmx__flip_dev_mesh(ctx, mesh, &m);
    if (!s && nf > 0)
        s = mmx_mem_copy(ctx, m->M->rowidx, MMX_SPACE_DEVICE, t.view.f.verts, MMX_SPACE_DEVICE,
                         3 * (size_t)nf * sizeof *m->M->rowidx);
    if (!s) s = mmx__relocate_round_cuda(ctx, &t.view, m->pos, dseeds, dtargets, n, round, 0,
                                         counts, dsd);
    /* The seeds' outcomes are read on the host: the copy waits for the round. */
    if (!s && per_seed && n)
        s = mmx_mem_copy(ctx, per_seed, MMX_SPACE_HOST, dsd, MMX_SPACE_DEVICE, db);
    if (s) mmx_mesh_free(m);
    else *out = m;
    mmx_mem_free(ctx, MMX_SPACE_DEVICE, dseeds);
    mmx_mem_free(ctx, MMX_SPACE_DEVICE, dtargets);
    mmx_mem_free(ctx, MMX_SPACE_DEVICE, dsd);
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
