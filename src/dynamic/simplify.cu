/* QEM simplification on the device (dynamic.h states it; simplify.c is the host driver): the
 * same rounds, each step one thread per vertex or edge running quadric.h's code (the host's),
 * so the quadrics, costs, places and outcomes are the host's bits.
 *
 * Set-up: the bounding box by integer atomics on the floats' ordered bits (a minimum and a
 * maximum do not depend on the order of the atomics), the first non-finite vertex by an
 * atomicMin of its number, each vertex's quadric summed over its faces in vf's ascending order
 * (mmx__sc_dev_build lists them as the host does), the locks from the feature edges.
 * A round: every edge evaluated into a key (cost as float, edge: mmx__qem_key; ~0 for none)
 * and its place; the keys sorted with the edges (CUB's radix sort: the candidates come first,
 * cheapest first, as the host's qsort of the same distinct keys); the first n gathered into
 * seeds, priorities and places; the cavity operator's collapse round with them
 * (mmx__sc_round_ranked_cuda); then the quadrics and locks carried to the survivors' numbers
 * (an exclusive scan of the survivor flags, the collapse's own numbering). The round waits to
 * read the candidates' count, in the selection's steps and for the counts. */
#include <cstring>
#include <cuda/std/functional>
#include "core/cub.cuh"
#include "core/launch.cuh"
#include "dynamic_internal.h"
#include "quadric.h"

namespace {

/* box[0..3) the minima, box[3..6) the maxima (ordered bits), box[6] the first non-finite
 * vertex. */
__global__ void bbox(const float *pos, mmx_index nv, unsigned int *box)
{
    const long long v = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (v >= nv) return;
    for (int k = 0; k < 3; k++) {
        const float x = pos[3 * (size_t)v + k];
        if (!isfinite(x)) atomicMin(&box[6], (unsigned int)v);
        atomicMin(&box[k], mmx__float_order(x));
        atomicMax(&box[3 + k], mmx__float_order(x));
    }
}

__global__ void quadrics(const mmx__sc_view v, const float *pos, mmx_index nv, double *Q)
{
    const long long i = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (i < nv) mmx__qem_vertex(&v, pos, (mmx_index)i, Q + MMX__QEM_N * (size_t)i);
}

/* Both ends of a feature edge locked (every writer writes 1). */
__global__ void feature_locks(const mmx__sc_view v, const float *pos, mmx_index ne, double cb,
                              unsigned char *lock)
{
    const long long e = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (e >= ne || !mmx__qem_feature(&v, pos, (mmx_index)e, cb)) return;
    lock[v.f.ev[2 * (size_t)e]] = 1;
    lock[v.f.ev[2 * (size_t)e + 1]] = 1;
}

__global__ void lock_list(const mmx_index *list, mmx_index n, unsigned char *lock)
{
    const long long i = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (i < n) lock[list[i]] = 1;
}

__global__ void count_locks(const unsigned char *lock, mmx_index nv, unsigned int *count)
{
    const long long i = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    unsigned int c = i < nv ? lock[i] : 0;
    c = mmx__block_reduce(c, cuda::std::plus<unsigned int>{});
    if (threadIdx.x == 0 && c) atomicAdd(count, c);
}

__global__ void evaluate(const mmx__sc_view v, const float *pos, const double *Q,
                         const unsigned char *lock, mmx_index ne, double bound,
                         unsigned long long *key, mmx_index *edge, double *cost, double *dist,
                         float *place, unsigned int *ncand)
{
    const long long e = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    unsigned int c = 0;
    if (e < ne) {
        const int ok = mmx__qem_edge(&v, pos, Q, lock, (mmx_index)e, &cost[e], &dist[e],
                                     place + 3 * (size_t)e) &&
                       (bound <= 0 || dist[e] <= bound);
        key[e] = ok ? (unsigned long long)mmx__qem_key(cost[e], (mmx_index)e) : ~0ull;
        edge[e] = (mmx_index)e;
        c = ok;
    }
    c = mmx__block_reduce(c, cuda::std::plus<unsigned int>{});
    if (threadIdx.x == 0 && c) atomicAdd(ncand, c);
}

__global__ void gather(const mmx_index *sorted, mmx_index n, const double *cost,
                       const float *place, mmx_index *seeds, float *prio, float *plc)
{
    const long long i = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (i >= n) return;
    const mmx_index e = sorted[i];
    seeds[i] = e;
    prio[i] = (float)cost[e];
    for (int k = 0; k < 3; k++) plc[3 * (size_t)i + k] = place[3 * (size_t)e + k];
}

/* mate[a] = b for a kept collapse, mate[b] = -2 (gone); the largest kept error (a non-negative
 * double's bits order as the double). */
__global__ void mark(const mmx_index *seeds, const mmx_cavity_seed *sd, mmx_index n,
                     const mmx_index *ev, const double *dist, mmx_index *mate,
                     unsigned long long *maxdist)
{
    const long long i = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (i >= n || sd[i].outcome != MMX_CAVITY_KEPT) return;
    const mmx_index e = seeds[i], a = ev[2 * (size_t)e], b = ev[2 * (size_t)e + 1];
    mate[a] = b;
    mate[b] = -2;
    atomicMax(maxdist, (unsigned long long)__double_as_longlong(dist[e]));
}

__global__ void alive(const mmx_index *mate, mmx_index nv, mmx_index *flag)
{
    const long long i = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (i < nv) flag[i] = mate[i] != -2;
}

/* A survivor's quadric at its new number vid[v]: its own plus its mate's (the host's sum). */
__global__ void carry(const double *Q, const unsigned char *lock, const mmx_index *mate,
                      const mmx_index *vid, mmx_index nv, double *Q2, unsigned char *lock2)
{
    const long long i = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (i >= nv || mate[i] == -2) return;
    double *q = Q2 + MMX__QEM_N * (size_t)vid[i];
    const double *p = Q + MMX__QEM_N * (size_t)i;
    for (int k = 0; k < MMX__QEM_N; k++)
        q[k] = mate[i] >= 0 ? __dadd_rn(p[k], Q[MMX__QEM_N * (size_t)mate[i] + k]) : p[k];
    lock2[vid[i]] = lock[i];
}

/* The driver's state: the current mesh (NULL: the input), the quadrics and locks. */
struct State {
    mmx_ctx *ctx;
    const mmx_simplify_options *o;
    const mmx_mesh *in;
    mmx_mesh *cur;
    double *Q;
    unsigned char *lock;
    unsigned long long *maxdist; /* device, across rounds */
};

/* One round on topology t: *next the new mesh (NULL when no candidate is left), *kept. */
mmx_status round_dev(State *S, const mmx__sc_dev *t, double bound, uint32_t round,
                     mmx_mesh **next, mmx_index *kept)
{
    mmx_ctx *ctx = S->ctx;
    cudaStream_t st = (cudaStream_t)ctx->stream;
    *next = nullptr;
    *kept = 0;
    const mmx_mesh *cur = S->cur ? S->cur : S->in;
    const mmx__sc_view &v = t->view;
    const mmx_index nv = v.f.nverts, ne = v.f.nedges, nf = v.f.nfaces;
    char *block = nullptr;
    unsigned long long *key[2] = {nullptr, nullptr};
    mmx_index *edge[2] = {nullptr, nullptr};
    double *cost = nullptr, *dist = nullptr;
    float *place = nullptr;
    unsigned int *ncand = nullptr;
    mmx_status s = MMX_OK;
    const size_t e1 = (size_t)ne + 1;
    for (int pass = 0; pass < 2; pass++) {
        mmx__carve c{block, 0};
        key[0] = c.take<unsigned long long>(e1);
        key[1] = c.take<unsigned long long>(e1);
        edge[0] = c.take<mmx_index>(e1);
        edge[1] = c.take<mmx_index>(e1);
        cost = c.take<double>(e1);
        dist = c.take<double>(e1);
        place = c.take<float>(3 * e1);
        ncand = c.take<unsigned int>(1);
        if (pass == 0) s = mmx__dev_alloc(ctx, c.used, (void **)&block);
        if (s) return s;
    }
    s = MMX__CUDA(ctx, cudaMemsetAsync(ncand, 0, sizeof *ncand, st));
    MMX__LAUNCH(evaluate, ne, v, cur->pos, S->Q, S->lock, ne, bound, key[0], edge[0], cost, dist,
                place, ncand);
    unsigned int hc = 0;
    if (!s) s = mmx__dev_copy(ctx, &hc, MMX_SPACE_HOST, ncand, MMX_SPACE_DEVICE, sizeof hc);
    mmx_index n = (mmx_index)hc;
    if (S->o->target_faces > 0) {
        const mmx_index need = (nf - S->o->target_faces + 1) / 2;
        if (n > need) n = need;
    }
    int cur_buf = 0;
    if (!s && n > 0 && ne > 1) s = mmx__sort_pairs(ctx, key, edge, ne, 64, &cur_buf);
    /* The round's seeds, priorities, places and outcomes. */
    char *rb = nullptr;
    mmx_index *seeds = nullptr, *mate = nullptr, *flag = nullptr, *vid = nullptr;
    float *prio = nullptr, *plc = nullptr;
    mmx_cavity_seed *sd = nullptr;
    double *Q2 = nullptr;
    unsigned char *lock2 = nullptr;
    const size_t n1 = (size_t)n + 1, v1 = (size_t)nv + 1;
    if (!s && n > 0)
        for (int pass = 0; pass < 2; pass++) {
            mmx__carve c{rb, 0};
            seeds = c.take<mmx_index>(n1);
            prio = c.take<float>(n1);
            plc = c.take<float>(3 * n1);
            sd = c.take<mmx_cavity_seed>(n1);
            mate = c.take<mmx_index>(v1);
            flag = c.take<mmx_index>(v1);
            vid = c.take<mmx_index>(v1);
            if (pass == 0) s = mmx__dev_alloc(ctx, c.used, (void **)&rb);
            if (s) break;
        }
    mmx_cavity_counts cnt = {0, 0, 0, 0};
    if (!s && n > 0) {
        MMX__LAUNCH(gather, n, edge[cur_buf], n, cost, place, seeds, prio, plc);
        if (!s)
            /* Every seed passed mmx__qem_edge's check at its place on this mesh: checked. */
            s = mmx__sc_round_ranked_cuda(ctx, cur, t, MMX_CAVITY_EDGE_COLLAPSE, seeds, prio, plc,
                                          1, n, round, next, &cnt, sd);
        /* The quadrics and locks follow the vertices to the collapse's numbering. */
        if (!s) s = MMX__CUDA(ctx, cudaMemsetAsync(mate, 0xff, (size_t)nv * sizeof *mate, st));
        MMX__LAUNCH(mark, n, seeds, sd, n, v.f.ev, dist, mate, S->maxdist);
        MMX__LAUNCH(alive, nv, mate, nv, flag);
        if (!s) s = mmx__scan_exclusive(ctx, flag, nv, vid);
        if (!s) s = mmx__dev_alloc(ctx, MMX__QEM_N * v1 * sizeof *Q2, (void **)&Q2);
        if (!s) s = mmx__dev_alloc(ctx, v1, (void **)&lock2);
        MMX__LAUNCH(carry, nv, S->Q, S->lock, mate, vid, nv, Q2, lock2);
        if (!s) {
            mmx__dev_free(ctx, S->Q);
            mmx__dev_free(ctx, S->lock);
            S->Q = Q2, S->lock = lock2;
            Q2 = nullptr, lock2 = nullptr;
            *kept = cnt.kept;
        }
    }
    mmx__dev_free(ctx, Q2);
    mmx__dev_free(ctx, lock2);
    mmx__dev_free(ctx, rb);
    mmx__dev_free(ctx, block);
    if (s && *next) {
        mmx_mesh_free(*next);
        *next = nullptr;
    }
    return s;
}

} // namespace

extern "C" mmx_status mmx__simplify_cuda(mmx_ctx *ctx, const mmx_mesh *mesh,
                                         const mmx_simplify_options *o,
                                         const mmx_mesh_expect *ex, const mmx_index *tagged,
                                         mmx_index ntagged, mmx_mesh **out,
                                         mmx_simplify_report *r)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    State S{};
    S.ctx = ctx, S.o = o, S.in = mesh;
    const mmx_index nv0 = mesh->M->nrows;
    /* The box and the finiteness check; the scratch also holds the lock count and the
     * largest error. */
    unsigned int *box = nullptr;
    mmx_status s = mmx__dev_alloc(ctx, 8 * sizeof *box + sizeof(unsigned long long),
                                  (void **)&box);
    if (s) return s;
    S.maxdist = reinterpret_cast<unsigned long long *>(box + 8);
    unsigned int init[8] = {~0u, ~0u, ~0u, 0u, 0u, 0u, ~0u, 0u}, hb[8];
    s = mmx__dev_copy(ctx, box, MMX_SPACE_DEVICE, init, MMX_SPACE_HOST, sizeof init);
    if (!s) s = MMX__CUDA(ctx, cudaMemsetAsync(S.maxdist, 0, sizeof *S.maxdist, st));
    MMX__LAUNCH(bbox, nv0, mesh->pos, nv0, box);
    if (!s) s = mmx__dev_copy(ctx, hb, MMX_SPACE_HOST, box, MMX_SPACE_DEVICE, sizeof hb);
    if (!s && hb[6] != ~0u) s = mmx__qem_not_finite(ctx, (mmx_index)hb[6]);
    if (!s && nv0 > 0) {
        const float lo[3] = {mmx__float_unorder(hb[0]), mmx__float_unorder(hb[1]),
                             mmx__float_unorder(hb[2])};
        const float hi[3] = {mmx__float_unorder(hb[3]), mmx__float_unorder(hb[4]),
                             mmx__float_unorder(hb[5])};
        r->diagonal = mmx__qem_diagonal(lo, hi);
    }
    const double bound = o->max_error > 0 ? o->max_error * r->diagonal : 0;
    mmx__sc_dev t;
    memset(&t, 0, sizeof t);
    int have_t = 0;
    if (!s) {
        s = mmx__sc_dev_build(ctx, mesh, "mmx_simplify", &t);
        have_t = !s;
    }
    /* The quadrics and locks of the input. */
    if (!s) {
        const size_t v1 = (size_t)nv0 + 1;
        s = mmx__dev_alloc(ctx, MMX__QEM_N * v1 * sizeof *S.Q, (void **)&S.Q);
        if (!s) s = mmx__dev_alloc(ctx, v1, (void **)&S.lock);
        if (!s) s = MMX__CUDA(ctx, cudaMemsetAsync(S.lock, 0, v1, st));
        if (!s) s = MMX__CUDA(ctx, cudaMemsetAsync(box + 7, 0, sizeof *box, st));
        MMX__LAUNCH(quadrics, nv0, t.view, mesh->pos, nv0, S.Q);
        MMX__LAUNCH(feature_locks, t.view.f.nedges, t.view, mesh->pos, t.view.f.nedges,
                    mmx__qem_cos_bound(o->feature_angle), S.lock);
        /* The tagged vertices (a short host list from the input's tags) locked too. */
        mmx_index *dt = nullptr;
        if (!s && ntagged > 0) s = mmx__dev_alloc(ctx, (size_t)ntagged * sizeof *dt, (void **)&dt);
        if (!s && ntagged > 0)
            s = mmx__dev_copy(ctx, dt, MMX_SPACE_DEVICE, tagged, MMX_SPACE_HOST,
                              (size_t)ntagged * sizeof *dt);
        MMX__LAUNCH(lock_list, ntagged, dt, ntagged, S.lock);
        MMX__LAUNCH(count_locks, nv0, S.lock, nv0, box + 7);
        mmx__dev_free(ctx, dt);
        unsigned int nl = 0;
        if (!s) s = mmx__dev_copy(ctx, &nl, MMX_SPACE_HOST, box + 7, MMX_SPACE_DEVICE, sizeof nl);
        r->locked_verts = (mmx_index)nl;
    }
    uint32_t round = 0;
    while (!s) {
        if (o->target_faces > 0 && t.view.f.nfaces <= o->target_faces) break;
        mmx_mesh *next = nullptr;
        mmx_index kept = 0;
        s = round_dev(&S, &t, bound, round, &next, &kept);
        if (s || !next) break;
        mmx__sc_dev_free(ctx, &t);
        have_t = 0;
        mmx_mesh_free(S.cur);
        S.cur = next;
        round++;
        r->rounds++;
        r->collapses += kept;
        if (o->validate) s = mmx__simplify_check_round(ctx, next, ex, (int)round - 1);
        mmx__progress(ctx, "simplify round", (int)round, 0);
        if (!s) s = mmx__sc_dev_build(ctx, next, "mmx_simplify", &t);
        have_t = !s;
    }
    if (have_t) mmx__sc_dev_free(ctx, &t);
    unsigned long long md = 0;
    if (!s) s = mmx__dev_copy(ctx, &md, MMX_SPACE_HOST, S.maxdist, MMX_SPACE_DEVICE, sizeof md);
    if (!s) memcpy(&r->max_error, &md, sizeof md);
    if (!s && !S.cur) s = mmx__simplify_unchanged(ctx, mesh, &S.cur);
    if (!s) *out = S.cur;
    else mmx_mesh_free(S.cur);
    mmx__dev_free(ctx, S.Q);
    mmx__dev_free(ctx, S.lock);
    mmx__dev_free(ctx, box);
    return s;
}
