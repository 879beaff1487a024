/* CUDA's stages of isotropic remeshing (remesh_flow.h; the flow and the host's stages:
 * remesh.c). Each stage is the host's, kernel for loop: the seeds are found by remesh_step.h's
 * rules (the host's code) one thread per edge or vertex and listed in ascending order by a
 * scan of their flags; the rounds are the templates' rounds through the round driver
 * (round.c: mmx__round_run with their CUDA stages), which give the host's bytes; the features
 * are kept as the host keeps them (sorted keys, a split feature edge replaced by its halves, a
 * collapse's edges renamed, sorted and made unique); the valence flips' vertex-disjoint set is
 * the greedy pass over the quads' vertices (mmx__select_cuda); and a relaxation's targets are
 * the host's (the same BVH, queried by bvh_step.h). So the device makes the host's edits round
 * for round, and the result is the same bytes.
 *
 * Waits, all there are in an iteration: the topology's build after each round that changed
 * the mesh (the adjacency's one; a round that kept nothing changed nothing: remesh.c keeps the
 * topology); per round, its seeds' count (list; a collapse round reads its rings' total with
 * it); the driver's (the selection's, a split's or collapse's counts, which size
 * its output; a flip or move round reads none: the kept count is the selection's); a flip
 * round's vertex-disjoint set (one per step of its selection); after a split or collapse round
 * that kept some, the features' one (set_features' count: the new and renamed keys are written
 * with NO_KEY where none, so their number is not read); per move round, the count of its
 * conflicts; and the relaxation's count of its moving vertices. */
#include <cub/device/device_radix_sort.cuh>
#include <cstdlib>
#include <cstring>
#include <cuda/std/functional>
#include <utility>
#include "bvh_step.h"
#include "core/cub.cuh"
#include "core/launch.cuh"
#include "dynamic_internal.h"
#include "remesh_step.h"
#include "slide.h"
#include "remesh_flow.h"

namespace {

#define LAUNCH(name, items, ...)                                                        \
    do {                                                                                \
        if ((items) > 0) MMX__LAUNCH_ON(s, d->ctx, d->st, name, items, __VA_ARGS__);    \
    } while (0)

#define INDEX() ((long long)blockIdx.x * MMX__BLOCK + threadIdx.x)

/* ---- kernels ------------------------------------------------------------------------------- */

__global__ void k_longest(mmx__rm_view r, mmx_index nf, double *longest)
{
    const long long f = INDEX();
    if (f < nf) longest[f] = mmx__rm_longest(&r, (mmx_index)f);
}

__global__ void k_split_flag(mmx__rm_view r, const double *longest, mmx_index ne, mmx_index *flag)
{
    const long long e = INDEX();
    if (e < ne) flag[e] = mmx__rm_split_seed(&r, longest, (mmx_index)e);
}

/* out[off[i]] = i for every flagged i: the flagged items in ascending order. */
__global__ void k_list(const mmx_index *flag, const mmx_index *off, mmx_index n, mmx_index *out)
{
    const long long i = INDEX();
    if (i < n && flag[i]) out[off[i]] = (mmx_index)i;
}

/* fv: boundary or pinned (remesh.c's feature_verts); the ends of the feature edges are added
 * by k_feature_ends. */
__global__ void k_fv(const unsigned char *boundary, const unsigned char *pin, mmx_index nv,
                     unsigned char *fv)
{
    const long long v = INDEX();
    if (v < nv) fv[v] = boundary[v] || pin[v];
}

/* Marks both ends of every feature edge in fv and counts them in fdeg (may be NULL): integer
 * counts, the same whatever the order of the atomics. */
__global__ void k_feature_ends(const uint64_t *feat, mmx_index nfeat, unsigned char *fv,
                               mmx_index *fdeg)
{
    const long long i = INDEX();
    if (i >= nfeat) return;
    const mmx_index a = (mmx_index)(feat[i] >> 32), b = (mmx_index)(uint32_t)feat[i];
    fv[a] = 1;
    fv[b] = 1;
    if (fdeg) {
        atomicAdd(&fdeg[a], 1);
        atomicAdd(&fdeg[b], 1);
    }
}

__global__ void k_collapse_flag(mmx__rm_view r, mmx_index ne, mmx_index *flag, mmx_index *keep)
{
    const long long e = INDEX();
    if (e >= ne) return;
    mmx_index k = -1;
    flag[e] = mmx__rm_collapse_seed(&r, (mmx_index)e, &k);
    keep[e] = k;
}

/* A collapse seed's ring room (sc_step.h's bound, the round's own), 0 for another edge. */
__global__ void k_collapse_room(mmx__sc_view v, const mmx_index *flag, mmx_index ne,
                                mmx_index *room)
{
    const long long e = INDEX();
    if (e < ne)
        room[e] = flag[e] ? mmx__sc_ring_bound(&v, MMX_CAVITY_EDGE_COLLAPSE, (mmx_index)e) : 0;
}

__global__ void k_gather(const mmx_index *idx, mmx_index n, const mmx_index *src, mmx_index *dst)
{
    const long long i = INDEX();
    if (i < n) dst[i] = src[idx[i]];
}

__global__ void k_degree(const mmx_index *ev, long long nends, mmx_index *deg)
{
    const long long k = INDEX();
    if (k < nends) atomicAdd(&deg[ev[k]], 1);
}

__global__ void k_flip_flag(mmx__rm_view r, const mmx_index *deg, mmx_index ne, mmx_index *flag)
{
    const long long e = INDEX();
    if (e < ne) flag[e] = mmx__rm_flip_seed(&r, deg, (mmx_index)e);
}

/* Each flip seed's key (the round's priority of its edge) and its quad's four vertices, the
 * elements the vertex-disjoint selection shares out. */
__global__ void k_quads(mmx__flip_view f, const mmx_index *seeds, mmx_index n, uint32_t round,
                        uint64_t *key, mmx_index *ring_ptr, mmx_index *ring, unsigned char *state)
{
    const long long i = INDEX();
    if (i >= n) return;
    ring_ptr[i] = 4 * (mmx_index)i;
    if (i == n - 1) ring_ptr[n] = 4 * n;
    mmx_index q[4];
    mmx__fv_quad(&f, seeds[i], q); /* a seed has its quad (mmx__rm_flip_seed) */
    for (int j = 0; j < 4; j++) ring[4 * i + j] = q[j];
    key[i] = mmx__priority(seeds[i], round);
    state[i] = MMX__UNDECIDED;
}

__global__ void k_state_flag(const unsigned char *state, mmx_index n, mmx_index *flag)
{
    const long long i = INDEX();
    if (i < n) flag[i] = state[i] == MMX_CAVITY_KEPT;
}

/* No feature edge: a key set_features drops (no edge has it: its lower end would be 2^32 - 1). */
#define NO_KEY (~0ull)

/* The split of seed i, when kept on a feature edge (a, b) with new vertex m: (a, m) in the
 * edge's place, (m, b) at nfeat + i; NO_KEY there for every other seed. */
__global__ void k_split_features(const mmx_index *ev, const mmx_index *seeds,
                                 const mmx_cavity_seed *sd, mmx_index n, mmx__rm_view r,
                                 uint64_t *feat)
{
    const long long i = INDEX();
    if (i >= n) return;
    const mmx_index e = seeds[i], a = ev[2 * (size_t)e], b = ev[2 * (size_t)e + 1];
    const int grown = sd[i].outcome == MMX_CAVITY_KEPT && mmx__rm_is_feature(&r, a, b);
    feat[r.nfeat + i] = grown ? mmx__rm_key(sd[i].vertex, b) : NO_KEY;
    if (grown) feat[mmx__rm_find(r.feat, r.nfeat, mmx__rm_key(a, b))] = mmx__rm_key(a, sd[i].vertex);
}

/* The higher end of every kept collapse is removed. */
__global__ void k_removed(const mmx_index *ev, const mmx_index *seeds, const mmx_cavity_seed *sd,
                          mmx_index n, mmx_index *removed)
{
    const long long i = INDEX();
    if (i < n && sd[i].outcome == MMX_CAVITY_KEPT) removed[ev[2 * (size_t)seeds[i] + 1]] = 1;
}

/* to[v]: v's number after the collapses (v minus the removed vertices below it), -1 for a
 * removed one until k_collapse_ends; the survivors' corner flags move with them. */
__global__ void k_renumber(const mmx_index *removed, const mmx_index *below, mmx_index nv,
                           const unsigned char *pin, mmx_index *to, unsigned char *npin)
{
    const long long v = INDEX();
    if (v >= nv) return;
    if (removed[v]) {
        to[v] = -1;
        return;
    }
    to[v] = (mmx_index)v - below[v];
    npin[to[v]] = pin[v];
}

/* A removed end takes its survivor's number; a feature end the merged vertex stayed at gives
 * it its position and its corner flag. */
__global__ void k_collapse_ends(const mmx_index *ev, const mmx_index *seeds,
                                const mmx_cavity_seed *sd, const mmx_index *keep, mmx_index n,
                                mmx_index *to, const float *pos, float *npos,
                                const unsigned char *pin, unsigned char *npin)
{
    const long long i = INDEX();
    if (i >= n || sd[i].outcome != MMX_CAVITY_KEPT) return;
    const mmx_index a = ev[2 * (size_t)seeds[i]], b = ev[2 * (size_t)seeds[i] + 1];
    to[b] = to[a]; /* a survives: kept cavities share no face, so no kept seed removes it */
    const mmx_index k = keep[i];
    if (k < 0) return;
    for (int j = 0; j < 3; j++) npos[3 * (size_t)to[a] + j] = pos[3 * (size_t)k + j];
    npin[to[a]] = pin[k];
}

/* Feature edge (a, b) renamed (to[a], to[b]); NO_KEY for one collapsed to a point. */
__global__ void k_rename_features(const uint64_t *feat, mmx_index nfeat, const mmx_index *to,
                                  uint64_t *out)
{
    const long long i = INDEX();
    if (i >= nfeat) return;
    const mmx_index a = to[(mmx_index)(feat[i] >> 32)], b = to[(mmx_index)(uint32_t)feat[i]];
    out[i] = a != b ? mmx__rm_key(a, b) : NO_KEY;
}

/* 1 for the first of each run of equal keys (sorted), but NO_KEY. */
__global__ void k_first_of_run(const uint64_t *k, mmx_index n, mmx_index *flag)
{
    const long long i = INDEX();
    if (i < n) flag[i] = (i == 0 || k[i] != k[i - 1]) && k[i] != NO_KEY;
}

__global__ void k_pack_u64(const uint64_t *src, const mmx_index *flag, const mmx_index *off,
                           mmx_index n, uint64_t *dst)
{
    const long long i = INDEX();
    if (i < n && flag[i]) dst[off[i]] = src[i];
}

__global__ void k_normal_area(mmx__rm_view r, mmx_index nv, double *vn, double *va)
{
    const long long v = INDEX();
    if (v < nv) mmx__rm_normal_area(&r, (mmx_index)v, vn + 3 * v, &va[v]);
}

/* Vertex v's target: its relaxation point projected onto the input (the BVH); flag 1 when it
 * has one that differs from where v is (bit for bit, as the host's memcmp). */
__global__ void k_targets(mmx__rm_view r, const double *vn, const double *va, mmx__bvh_view b,
                          mmx__slide_view sl, mmx_index nv, mmx_index *flag, float *target)
{
    const long long v = INDEX();
    if (v >= nv) return;
    flag[v] = 0;
    double X[3];
    if (!mmx__rm_target(&r, vn, va, &b, &sl, (mmx_index)v, X)) return;
    int same = 1;
    for (int k = 0; k < 3; k++) {
        const float t = (float)X[k];
        target[3 * v + k] = t;
        same &= __float_as_uint(t) == __float_as_uint(r.pos[3 * v + k]);
    }
    flag[v] = !same;
}

/* The seeds listed by off (a scan of flag) with their targets: from the vertices (src_by_vertex:
 * target of vertex v at 3v) or from the previous list (3i). */
__global__ void k_pack_moves(const mmx_index *seeds, const mmx_index *flag, const mmx_index *off,
                             mmx_index n, const float *tsrc, int by_vertex, mmx_index *out,
                             float *tout)
{
    const long long i = INDEX();
    if (i >= n || !flag[i]) return;
    const mmx_index v = seeds ? seeds[i] : (mmx_index)i, j = off[i];
    const size_t from = 3 * (size_t)(by_vertex ? v : (mmx_index)i);
    out[j] = v;
    for (int k = 0; k < 3; k++) tout[3 * (size_t)j + k] = tsrc[from + k];
}

__global__ void k_conflicts(const mmx_cavity_seed *sd, mmx_index n, mmx_index *flag)
{
    const long long i = INDEX();
    if (i < n) flag[i] = sd[i].outcome == MMX_CAVITY_CONFLICT;
}

/* ---- the set-up ---------------------------------------------------------------------------- */

__global__ void k_feature_flag(mmx__sc_view t, const float *pos, int by_angle, double cos_bound,
                               mmx_index *flag)
{
    const long long e = INDEX();
    if (e < t.f.nedges) flag[e] = mmx__rm_feature_edge(&t, pos, (mmx_index)e, by_angle, cos_bound);
}

/* The listed feature edges' keys, then the creases' after them. */
__global__ void k_feature_keys(const mmx_index *ev, const mmx_index *edges, mmx_index n,
                               uint64_t *keys)
{
    const long long i = INDEX();
    if (i < n) keys[i] = mmx__rm_key(ev[2 * (size_t)edges[i]], ev[2 * (size_t)edges[i] + 1]);
}

__global__ void k_pin_corners(const mmx_index *corners, mmx_index n, unsigned char *pin)
{
    const long long i = INDEX();
    if (i < n) pin[corners[i]] = 1;
}

__global__ void k_block_sums(mmx__flip_view f, const float *pos, int what, mmx_index nblocks,
                             double *sums)
{
    const long long b = INDEX();
    if (b < nblocks) sums[b] = mmx__rm_block_sum(&f, pos, what, (mmx_index)b);
}

__global__ void k_count(const unsigned char *flag, mmx_index n, unsigned int *count)
{
    const long long i = INDEX();
    unsigned int c = i < n && flag[i];
    c = mmx__block_reduce(c, cuda::std::plus<unsigned int>{});
    if (threadIdx.x == 0 && c) atomicAdd(count, c);
}

/* ---- CUDA's stages (remesh_flow.h) ----------------------------------------------------------- */

/* CUDA's own state besides the flow's (st->be). */
struct Dev {
    mmx__rm *rm;          /* the flow's state: the working copy, features, corners, lengths */
    mmx_ctx *ctx;
    cudaStream_t st;
    mmx__bvh_view bvh;    /* device: the input's triangles */
    void *bvh_block;
    mmx__sc_dev topo;     /* of rm->cur, while rm->have_topo */
    mmx__slide_dev slide; /* the input's feature lines (slide.h; empty: nothing slides) */
};

Dev *dev(const mmx__rm *st)
{
    return static_cast<Dev *>(st->be);
}

/* count + 1 elements of T of the round's scratch (mmx__rm_take). */
template <typename T>
mmx_status take(Dev *d, size_t count, T **out)
{
    return mmx__rm_take(d->rm, count, sizeof(T), reinterpret_cast<void **>(out));
}

mmx_status topo(Dev *d)
{
    if (d->rm->have_topo) return MMX_OK;
    mmx_status s = mmx__sc_dev_build(d->ctx, d->rm->cur, "mmx_remesh", &d->topo);
    if (s) return s;
    d->rm->have_topo = 1;
    d->rm->adj = d->topo.f.adj;
    return MMX_OK;
}

mmx__rm_view view(const Dev *d, const unsigned char *fv, const mmx_index *fdeg)
{
    const mmx__rm *r = d->rm;
    return mmx__rm_view{d->topo.view, r->cur->pos, r->feat, r->nfeat, r->pin, fv, fdeg,
                        r->lo2, r->hi2};
}

/* The flagged items of [0, n) in ascending order into out; their number into *count (the
 * one wait). off: n + 1 entries. */
mmx_status list(Dev *d, const mmx_index *flag, mmx_index n, mmx_index *off, mmx_index *out,
                mmx_index *count)
{
    *count = 0;
    if (n == 0) return MMX_OK;
    mmx_status s = mmx__scan_offsets(d->ctx, flag, n, off);
    if (!s) s = mmx__dev_copy(d->ctx, count, MMX_SPACE_HOST, off + n, MMX_SPACE_DEVICE, sizeof *count);
    if (out) LAUNCH(k_list, n, flag, off, n, out);
    return s;
}

/* Sorts feat[0..n) (device) ascending and drops repeats and NO_KEY; the result into rm->feat / rm->nfeat
 * (feat is taken over or freed). */
mmx_status set_features(Dev *d, uint64_t *feat, mmx_index n)
{
    mmx_status s = MMX_OK;
    uint64_t *alt = nullptr, *out = nullptr;
    mmx_index *flag = nullptr, *off = nullptr, u = 0;
    if (n > 1) {
        s = mmx__dev_alloc(d->ctx, (size_t)n * sizeof *alt, (void **)&alt);
        cub::DoubleBuffer<uint64_t> k(feat, alt);
        if (!s)
            s = mmx__cub_run(d->ctx, "cub::DeviceRadixSort::SortKeys", [&](void *tmp, size_t &bytes) {
                return cub::DeviceRadixSort::SortKeys(tmp, bytes, k, n, 0, 64, d->st);
            });
        if (!s && k.selector == 1) std::swap(feat, alt);
    }
    if (!s) s = mmx__dev_alloc(d->ctx, ((size_t)n + 1) * sizeof *flag, (void **)&flag);
    if (!s) s = mmx__dev_alloc(d->ctx, ((size_t)n + 1) * sizeof *off, (void **)&off);
    LAUNCH(k_first_of_run, n, feat, n, flag);
    if (!s && n > 0) {
        s = mmx__scan_offsets(d->ctx, flag, n, off);
        if (!s) s = mmx__dev_copy(d->ctx, &u, MMX_SPACE_HOST, off + n, MMX_SPACE_DEVICE, sizeof u);
    }
    if (!s) s = mmx__dev_alloc(d->ctx, ((size_t)u + 1) * sizeof *out, (void **)&out);
    LAUNCH(k_pack_u64, n, feat, flag, off, n, out);
    mmx__dev_free(d->ctx, alt);
    mmx__dev_free(d->ctx, feat);
    mmx__dev_free(d->ctx, flag);
    mmx__dev_free(d->ctx, off);
    if (s) {
        mmx__dev_free(d->ctx, out);
        return s;
    }
    mmx__dev_free(d->ctx, d->rm->feat);
    d->rm->feat = out;
    d->rm->nfeat = u;
    return MMX_OK;
}

/* The feature vertices (and, with fdeg, each vertex's feature edges) of the current mesh. */
mmx_status feature_verts(Dev *d, unsigned char *fv, mmx_index *fdeg)
{
    mmx_status s = MMX_OK;
    const mmx_index nv = d->topo.view.f.nverts;
    LAUNCH(k_fv, nv, d->topo.view.boundary, d->rm->pin, nv, fv);
    if (!s && fdeg) s = mmx__cuda(d->ctx, cudaMemsetAsync(fdeg, 0, (size_t)nv * sizeof *fdeg, d->st), "memset");
    LAUNCH(k_feature_ends, d->rm->nfeat, d->rm->feat, d->rm->nfeat, fv, fdeg);
    return s;
}

mmx_status c_topo(mmx__rm *st)
{
    return topo(dev(st));
}

void c_drop_topo(mmx__rm *st)
{
    mmx__sc_dev_free(st->ctx, &dev(st)->topo);
}

mmx_status c_split_seeds(mmx__rm *st, mmx__rm_round *r)
{
    Dev *d = dev(st);
    const mmx_index nf = d->topo.view.f.nfaces, ne = d->topo.view.f.nedges;
    const mmx__rm_view rv = view(d, nullptr, nullptr);
    double *longest = nullptr;
    mmx_status s = take(d, nf, &longest);
    if (!s) s = take(d, ne, &r->flag);
    if (!s) s = take(d, ne + 1, &r->off);
    if (!s) s = take(d, ne, &r->seeds);
    LAUNCH(k_longest, nf, rv, nf, longest);
    LAUNCH(k_split_flag, ne, rv, longest, ne, r->flag);
    if (!s) s = list(d, r->flag, ne, r->off, r->seeds, &r->n);
    r->found = r->n;
    return s;
}

mmx_status c_collapse_seeds(mmx__rm *st, mmx__rm_round *r)
{
    Dev *d = dev(st);
    const mmx_index nv = d->topo.view.f.nverts, ne = d->topo.view.f.nedges;
    unsigned char *fv = nullptr;
    mmx_index *fdeg = nullptr, *keep_e = nullptr;
    mmx_status s = take(d, nv, &fv);
    if (!s) s = take(d, nv, &fdeg);
    if (!s) s = take(d, ne, &r->flag);
    if (!s) s = take(d, ne + 1 > nv + 1 ? ne + 1 : nv + 1, &r->off); /* the renumbering's too */
    if (!s) s = take(d, ne, &r->seeds);
    if (!s) s = take(d, ne, &keep_e);
    if (!s) s = feature_verts(d, fv, fdeg);
    const mmx__rm_view rv = view(d, fv, fdeg);
    LAUNCH(k_collapse_flag, ne, rv, ne, r->flag, keep_e);
    /* The seeds listed, and their rings' total (the round's proposal would read it) read back
     * with their count: one wait for both. */
    mmx_index *room = nullptr, *roff = nullptr, *both = nullptr;
    if (!s) s = take(d, ne + 1, &room);
    if (!s) s = take(d, ne + 1, &roff);
    if (!s) s = take(d, 2, &both);
    LAUNCH(k_collapse_room, ne, d->topo.view, r->flag, ne, room);
    if (!s && ne > 0) s = mmx__scan_offsets(d->ctx, r->flag, ne, r->off);
    if (!s && ne > 0) s = mmx__scan_offsets(d->ctx, room, ne, roff);
    if (!s && ne > 0)
        s = mmx__cuda(d->ctx, cudaMemcpyAsync(both, r->off + ne, sizeof *both,
                                              cudaMemcpyDeviceToDevice, d->st), "copy");
    if (!s && ne > 0)
        s = mmx__cuda(d->ctx, cudaMemcpyAsync(both + 1, roff + ne, sizeof *both,
                                              cudaMemcpyDeviceToDevice, d->st), "copy");
    mmx_index hb[2] = {0, 0};
    if (!s && ne > 0) s = mmx__dev_copy(d->ctx, hb, MMX_SPACE_HOST, both, MMX_SPACE_DEVICE, sizeof hb);
    r->n = r->found = hb[0], r->ring_total = hb[1];
    LAUNCH(k_list, ne, r->flag, r->off, ne, r->seeds);
    if (s || r->n == 0) return s;
    s = take(d, r->n, &r->keep);
    LAUNCH(k_gather, r->n, r->seeds, r->n, keep_e, r->keep);
    return s;
}

/* The valence rule's seeds, then of those the greedy set in the round's key order whose quads
 * share no vertex (remesh.c's vertex_disjoint, by the device selection), ascending. */
mmx_status c_flip_seeds(mmx__rm *st, mmx__rm_round *r)
{
    Dev *d = dev(st);
    const mmx_index nv = d->topo.view.f.nverts, ne = d->topo.view.f.nedges;
    mmx_index *deg = nullptr, *flag = nullptr, *off = nullptr, *seeds = nullptr, n = 0;
    mmx_status s = take(d, nv, &deg);
    if (!s) s = take(d, ne, &flag);
    if (!s) s = take(d, ne + 1, &off);
    if (!s) s = take(d, ne, &seeds);
    if (!s) s = mmx__cuda(d->ctx, cudaMemsetAsync(deg, 0, (size_t)nv * sizeof *deg, d->st), "memset");
    LAUNCH(k_degree, 2 * (long long)ne, d->topo.view.f.ev, 2 * (long long)ne, deg);
    const mmx__rm_view rv = view(d, nullptr, nullptr);
    LAUNCH(k_flip_flag, ne, rv, deg, ne, flag);
    if (!s) s = list(d, flag, ne, off, seeds, &n);
    r->found = n;
    if (s || n == 0) return s;
    uint64_t *key = nullptr;
    mmx_index *ring = nullptr, *ring_ptr = nullptr, *kept = nullptr, nk = 0;
    unsigned char *state = nullptr;
    s = take(d, n, &key);
    if (!s) s = take(d, n + 1, &ring_ptr);
    if (!s) s = take(d, 4 * (size_t)n, &ring);
    if (!s) s = take(d, n, &state);
    if (!s) s = take(d, n, &kept);
    LAUNCH(k_quads, n, d->topo.view.f, seeds, n, st->round, key, ring_ptr, ring, state);
    if (!s) s = mmx__select_cuda(d->ctx, n, key, ring_ptr, nullptr, ring, nv, state, &nk);
    /* The kept ones' positions in seeds, ascending; their number is the selection's, so the
     * list reads nothing back. */
    LAUNCH(k_state_flag, n, state, n, flag);
    if (!s) s = mmx__scan_offsets(d->ctx, flag, n, off);
    LAUNCH(k_list, n, flag, off, n, kept);
    LAUNCH(k_gather, nk, kept, nk, seeds, ring); /* ring: free now; the kept edges */
    r->seeds = ring;
    r->n = s ? 0 : nk;
    return s;
}

mmx_status c_edge_round(mmx__rm *st, mmx__rm_round *r)
{
    Dev *d = dev(st);
    mmx_status s = MMX_OK;
    if (r->kind == MMX_CAVITY_EDGE_SPLIT) {
        s = take(d, r->n, &r->sd);
        if (!s)
            s = mmx__sc_round_ranked_cuda(d->ctx, st->cur, &d->topo, MMX_CAVITY_EDGE_SPLIT,
                                          r->seeds, nullptr, nullptr, 0, r->n, st->round,
                                          &r->next, &r->c, r->sd);
        return s;
    }
    mmx__round rd{};
    rd.ctx = d->ctx, rd.cuda = 1, rd.mesh = st->cur, rd.pos = st->cur->pos, rd.kind = r->kind;
    rd.seeds = r->seeds, rd.n = r->n, rd.round = st->round;
    if (r->kind == MMX_CAVITY_EDGE_COLLAPSE) {
        float *place = nullptr; /* the merged vertices where the rules checked them */
        s = take(d, r->n, &r->sd);
        if (!s) s = take(d, 3 * (size_t)r->n, &place);
        if (!s)
            s = mmx__rm_collapse_places_cuda(d->ctx, st->cur->pos, d->topo.view.f.ev, r->seeds,
                                             r->keep, r->n, place);
        rd.sv = &d->topo.view, rd.place = place, rd.tally = 1, rd.sd = r->sd;
        rd.ring_total = r->ring_total;
    } else {
        /* A flip: the round driver without the counts' read (the kept count is the
         * selection's). */
        rd.fv = &d->topo.f.view, rd.distinct = 1;
    }
    if (!s) s = mmx__round_run(&rd, &mmx__edge_ops, &r->next, &r->c);
    return s;
}

/* A split feature edge (a, b) becomes (a, m) and (m, b); the new vertices are no corners. The
 * halves go into room for every seed (NO_KEY where none), so their number is not read: the
 * features' one wait is set_features'. */
mmx_status c_split_features(mmx__rm *st, mmx__rm_round *r)
{
    Dev *d = dev(st);
    const mmx_index nv = d->topo.view.f.nverts, n = r->n;
    const mmx_index *ev = d->topo.view.f.ev;
    const mmx__rm_view rv = view(d, nullptr, nullptr);
    uint64_t *feat = nullptr;
    unsigned char *pin = nullptr;
    mmx_status s = mmx__dev_alloc(d->ctx, ((size_t)st->nfeat + n + 1) * sizeof *feat, (void **)&feat);
    if (!s && st->nfeat > 0)
        s = mmx__cuda(d->ctx, cudaMemcpyAsync(feat, st->feat, (size_t)st->nfeat * sizeof *feat,
                                              cudaMemcpyDeviceToDevice, d->st), "copy");
    LAUNCH(k_split_features, n, ev, r->seeds, r->sd, n, rv, feat);
    const mmx_index nv2 = mmx_mesh_nverts(r->next);
    if (!s) s = mmx__dev_alloc(d->ctx, (size_t)nv2 + 1, (void **)&pin);
    if (!s) s = mmx__cuda(d->ctx, cudaMemsetAsync(pin, 0, (size_t)nv2, d->st), "memset");
    if (!s && nv > 0)
        s = mmx__cuda(d->ctx, cudaMemcpyAsync(pin, st->pin, (size_t)nv, cudaMemcpyDeviceToDevice, d->st), "copy");
    if (!s) {
        mmx__dev_free(d->ctx, st->pin);
        st->pin = pin;
        pin = nullptr;
        s = set_features(d, feat, st->nfeat + n);
        feat = nullptr;
    }
    mmx__dev_free(d->ctx, feat);
    mmx__dev_free(d->ctx, pin);
    return s;
}

/* The survivors keep their order: old vertex v becomes v minus the removed ones below it (each
 * kept seed removes its higher end b). */
mmx_status c_collapse_renumber(mmx__rm *st, mmx__rm_round *r)
{
    Dev *d = dev(st);
    const mmx_index nv = d->topo.view.f.nverts, n = r->n;
    const mmx_index *ev = d->topo.view.f.ev;
    mmx_index *removed = nullptr, *to = nullptr, *off = r->off;
    unsigned char *pin = nullptr;
    uint64_t *feat = nullptr;
    mmx_status s = take(d, nv, &removed);
    if (!s) s = take(d, nv, &to);
    if (!s) s = mmx__cuda(d->ctx, cudaMemsetAsync(removed, 0, (size_t)nv * sizeof *removed, d->st), "memset");
    LAUNCH(k_removed, n, ev, r->seeds, r->sd, n, removed);
    if (!s) s = mmx__scan_exclusive(d->ctx, removed, nv, off);
    if (!s) s = mmx__dev_alloc(d->ctx, (size_t)nv + 1, (void **)&pin);
    LAUNCH(k_renumber, nv, removed, off, nv, st->pin, to, pin);
    LAUNCH(k_collapse_ends, n, ev, r->seeds, r->sd, r->keep, n, to, st->cur->pos, r->next->pos,
           st->pin, pin);
    /* A collapsed feature edge becomes a point (NO_KEY, dropped); the edges of a removed end
     * now run from the kept one. Sorted, each once: set_features' one wait. */
    if (!s) s = mmx__dev_alloc(d->ctx, ((size_t)st->nfeat + 1) * sizeof *feat, (void **)&feat);
    LAUNCH(k_rename_features, st->nfeat, st->feat, st->nfeat, to, feat);
    if (!s) {
        mmx__dev_free(d->ctx, st->pin);
        st->pin = pin;
        pin = nullptr;
        s = set_features(d, feat, st->nfeat);
        feat = nullptr;
    }
    mmx__dev_free(d->ctx, pin);
    mmx__dev_free(d->ctx, feat);
    return s;
}

mmx_status c_relax_targets(mmx__rm *st, mmx__rm_round *r)
{
    Dev *d = dev(st);
    const mmx_index nv = d->topo.view.f.nverts;
    unsigned char *fv = nullptr;
    double *vn = nullptr, *va = nullptr;
    mmx_index *fdeg = nullptr;
    float *all = nullptr;
    mmx_status s = take(d, nv, &fv);
    if (!s) s = take(d, nv, &fdeg);
    if (!s) s = take(d, 3 * (size_t)nv, &vn);
    if (!s) s = take(d, nv, &va);
    if (!s) s = take(d, nv, &r->flag);
    if (!s) s = take(d, nv + 1, &r->off);
    if (!s) s = take(d, nv, &r->seeds);
    if (!s) s = take(d, 3 * (size_t)nv, &r->targets);
    if (!s) s = take(d, nv, &r->seeds2);
    if (!s) s = take(d, 3 * (size_t)nv, &r->targets2);
    if (!s) s = take(d, 3 * (size_t)nv, &all);
    if (!s) s = take(d, nv, &r->sd);
    if (!s) s = feature_verts(d, fv, fdeg);
    const mmx__rm_view rv = view(d, fv, fdeg);
    LAUNCH(k_normal_area, nv, rv, nv, vn, va);
    /* Every target from the positions at the start of the step (Jacobi): computed before the
     * first move. */
    LAUNCH(k_targets, nv, rv, vn, va, d->bvh, d->slide.view, nv, r->flag, all);
    if (!s) s = list(d, r->flag, nv, r->off, nullptr, &r->n);
    LAUNCH(k_pack_moves, nv, nullptr, r->flag, r->off, nv, all, 1, r->seeds, r->targets);
    return s;
}

mmx_status c_move_round(mmx__rm *st, mmx__rm_round *r)
{
    Dev *d = dev(st);
    /* The round driver without the counts' read (the kept count is the selection's). */
    mmx__round rd{};
    rd.ctx = d->ctx, rd.cuda = 1, rd.pos = st->cur->pos, rd.pos_out = st->cur->pos;
    rd.sv = &d->topo.view, rd.kind = MMX_CAVITY_VERTEX_MOVE, rd.seeds = r->seeds;
    rd.targets = r->targets, rd.n = r->n, rd.round = st->round, rd.min_quality = MMX__RM_SLIVER;
    rd.sd = r->sd;
    return mmx__round_run(&rd, &mmx__move_ops, nullptr, &r->c);
}

/* The conflicting seeds with their targets into the other buffer, which becomes the seeds. */
mmx_status c_conflicts(mmx__rm *st, mmx__rm_round *r)
{
    Dev *d = dev(st);
    const mmx_index n = r->n;
    mmx_index m = 0;
    mmx_status s = MMX_OK;
    LAUNCH(k_conflicts, n, r->sd, n, r->flag);
    if (!s) s = list(d, r->flag, n, r->off, nullptr, &m);
    LAUNCH(k_pack_moves, n, r->seeds, r->flag, r->off, n, r->targets, 0, r->seeds2, r->targets2);
    std::swap(r->seeds, r->seeds2);
    std::swap(r->targets, r->targets2);
    r->n = m;
    return s;
}

} // namespace

extern "C" const mmx__rm_stages mmx__rm_cuda_stages = {
    c_topo, c_drop_topo, c_split_seeds, c_collapse_seeds, c_flip_seeds, c_edge_round,
    c_split_features, c_collapse_renumber, c_relax_targets, c_move_round, c_conflicts,
};

/* The set-up's device work (remesh_flow.h); the working copy and its topology are made. */
static mmx_status open_setup(Dev *d, const mmx__remesh_dev_in *in, mmx__remesh_dev_measure *m)
{
    mmx_ctx *ctx = d->ctx;
    mmx__rm *st = d->rm;
    /* The working copy: the faces and positions alone, in the reduced form. */
    mmx_status s = mmx_mesh_copy(ctx, in->mesh, MMX_SPACE_DEVICE, &st->cur);
    if (!s) {
        free(st->cur->tags);
        free(st->cur->normals);
        free(st->cur->colors);
        mmx_mesh_uv_free(st->cur->uv);
        st->cur->tags = nullptr, st->cur->normals = nullptr, st->cur->colors = nullptr, st->cur->uv = nullptr;
        if (mmx_mesh_nfaces(st->cur) > 0) s = mmx_mesh_reduce(ctx, st->cur);
    }
    if (!s) s = topo(d);
    if (s) return s;
    const mmx__flip_view f = d->topo.view.f;
    const mmx_index nv = f.nverts, ne = f.nedges;
    mmx_index *flag = nullptr, *off = nullptr, *edges = nullptr, *corners = nullptr, nfe = 0;
    uint64_t *keys = nullptr;
    unsigned char *fv = nullptr;
    double *sums = nullptr;
    unsigned int *count = nullptr;
    const mmx_index nb[2] = {mmx__rm_blocks(ne), mmx__rm_blocks(f.nfaces)};
    s = take(d, ne, &flag);
    if (!s) s = take(d, ne + 1, &off);
    if (!s) s = take(d, ne, &edges);
    if (!s) s = take(d, in->ncorners, &corners);
    if (!s) s = take(d, nv, &fv);
    if (!s) s = take(d, (size_t)nb[0] + nb[1], &sums);
    if (!s) s = take(d, 1, &count);
    LAUNCH(k_feature_flag, ne, d->topo.view, st->cur->pos, in->by_angle, in->cos_bound, flag);
    if (!s) s = list(d, flag, ne, off, edges, &nfe);
    if (!s) s = mmx__dev_alloc(ctx, ((size_t)nfe + in->ncreases + 1) * sizeof *keys, (void **)&keys);
    LAUNCH(k_feature_keys, nfe, f.ev, edges, nfe, keys);
    if (!s && in->ncreases > 0)
        s = mmx__dev_copy(ctx, keys + nfe, MMX_SPACE_DEVICE, in->creases, MMX_SPACE_HOST,
                          (size_t)in->ncreases * sizeof *keys);
    if (!s) {
        s = set_features(d, keys, nfe + in->ncreases);
        keys = nullptr;
    }
    mmx__dev_free(ctx, keys);
    /* The corner flags. */
    if (!s) s = mmx__dev_alloc(ctx, (size_t)nv + 1, (void **)&st->pin);
    if (!s) s = mmx__cuda(ctx, cudaMemsetAsync(st->pin, 0, (size_t)nv + 1, d->st), "memset");
    if (!s && in->ncorners > 0)
        s = mmx__dev_copy(ctx, corners, MMX_SPACE_DEVICE, in->corners, MMX_SPACE_HOST,
                          (size_t)in->ncorners * sizeof *corners);
    LAUNCH(k_pin_corners, in->ncorners, corners, in->ncorners, st->pin);
    if (!s && in->slide)
        s = mmx__slide_open_cuda(ctx, st->cur->pos, nv, st->feat, st->nfeat, st->pin, &d->slide);
    /* The feature vertices' count and the blocks' sums, read back together. */
    if (!s) s = feature_verts(d, fv, nullptr);
    if (!s) s = mmx__cuda(ctx, cudaMemsetAsync(count, 0, sizeof *count, d->st), "memset");
    LAUNCH(k_count, nv, fv, nv, count);
    LAUNCH(k_block_sums, nb[0], f, st->cur->pos, 0, nb[0], sums);
    LAUNCH(k_block_sums, nb[1], f, st->cur->pos, 1, nb[1], sums + nb[0]);
    double *h = nullptr;
    unsigned int nfv = 0;
    if (!s && !(h = static_cast<double *>(malloc(((size_t)nb[0] + nb[1] + 1) * sizeof *h))))
        s = mmx__fail(ctx, MMX_ERR_NOMEM, "mmx_remesh: out of host memory");
    if (!s) s = mmx__dev_copy(ctx, &nfv, MMX_SPACE_HOST, count, MMX_SPACE_DEVICE, sizeof nfv);
    if (!s && nb[0] + nb[1] > 0)
        s = mmx__dev_copy(ctx, h, MMX_SPACE_HOST, sums, MMX_SPACE_DEVICE,
                          ((size_t)nb[0] + nb[1]) * sizeof *h);
    if (!s) {
        *m = mmx__remesh_dev_measure{0, 0, ne, st->nfeat, (mmx_index)nfv};
        for (mmx_index b = 0; b < nb[0]; b++) m->length += h[b];
        for (mmx_index b = 0; b < nb[1]; b++) m->area += h[nb[0] + b];
    }
    free(h);
    mmx__rm_release(st);
    /* The BVH over the input's triangles (the working copy's, the same faces). */
    if (!s && f.nfaces > 0)
        s = mmx__bvh_build_cuda(ctx, st->cur->pos, nv, st->cur->M->rowidx, f.nfaces, &d->bvh,
                                &d->bvh_block);
    return s;
}

extern "C" mmx_status mmx__remesh_dev_open(mmx__rm *st, const mmx__remesh_dev_in *in,
                                           mmx__remesh_dev_measure *m)
{
    Dev *d = static_cast<Dev *>(calloc(1, sizeof(Dev)));
    st->be = d;
    if (!d) return mmx__fail(st->ctx, MMX_ERR_NOMEM, "mmx_remesh: out of host memory");
    d->rm = st;
    d->ctx = st->ctx;
    d->st = (cudaStream_t)st->ctx->stream;
    return open_setup(d, in, m);
}

extern "C" void mmx__remesh_dev_close(mmx__rm *st)
{
    Dev *d = dev(st);
    if (!d) return;
    if (st->have_topo) mmx__sc_dev_free(d->ctx, &d->topo);
    st->have_topo = 0, st->adj = nullptr;
    mmx__dev_free(d->ctx, d->bvh_block);
    mmx__slide_dev_free(d->ctx, &d->slide);
    free(d);
    st->be = nullptr;
}
