/* Edge split and edge collapse rounds' CUDA stages for the round driver (round.c; host
 * statement: cavity.c and
 * split_collapse.c; the per-seed steps are sc_step.h's, the host's code), and the device
 * topology they read. The flow:
 *
 * Topology (mmx__sc_dev_build). The flip's device topology (mmx__flip_dev: the adjacency and
 * ef), plus hf (ef with each boundary edge's one face in the slot of its direction, as
 * flip_topo.c) and the faces at each vertex: the mesh matrix's row view (mmx__csc_rows_cuda,
 * a stable radix sort of its entries by row), each entry turned into its face. Entries in
 * storage order run through the faces in ascending order, and the sort keeps that order within
 * a row, so each vertex lists its faces ascending: mmx__flip_topo_build's vf (the host's
 * transpose), entry for entry (sums over them run in the host's order).
 *
 * Cavities in CSR form. Each seed's ring room (2 for a split, the two ends' valences for a
 * collapse, sc_step.h's bound) is scanned into offsets; the build kernel writes each seed's
 * cavity there (the host's code) and its length.
 *
 * Selection. The device selection (select.cu: mmx__select_cuda, and the proof that it is the
 * host's greedy pass) with each cavity's ring as its elements: splits and collapses conflict
 * only by sharing a face. Copies of one seed edge have the same ring and are CONFLICTs on the
 * host, so they are marked at once and left out (select.cu says why). Then one pass lists the
 * kept seeds, writes every outcome and counts the faces the kept cavities fill or remove (an
 * integer sum, in any order).
 *
 * Fill. A split numbers the kept seeds by their rank in key order: their (priority, seed)
 * pairs are sorted by CUB's radix sort (kept priorities are distinct: copies are never kept
 * and the priority is a bijection of the edge), the new faces' offsets are a scan of 1 or 2
 * per rank; one thread per kept seed then writes its vertex, its midpoint and its faces (kept
 * cavities share no face). A collapse needs no order: one thread per kept seed merges b into
 * a (to[b] = a, its faces gone, a at the midpoint), and the compaction every removing round
 * shares (mmx__round_compact: the column selection of the faces' matrix) keeps the surviving
 * faces and vertices in their order. Queued on the context's stream; it waits to read the
 * ring total, in the selection (mmx__select_cuda), once for the counts, and never after. */
#include <climits>
#include <cstdlib>
#include <cstring>
#include <cuda/std/functional>
#include "core/cub.cuh"
#include "core/launch.cuh"
#include "dynamic_internal.h"
#include "spla/spla_internal.h" /* the row view */
#include "sc_step.h"

namespace {

struct Round {
    const mmx_index *seeds;
    const float *prio;              /* n, or NULL: the hashed priorities */
    const float *place;             /* 3n, or NULL: collapses to the midpoints */
    mmx_index n;
    const mmx_index *ring_ptr;      /* n + 1 */
    mmx_index *ring;                /* ring_ptr[n] */
    mmx_index *ring_len;            /* n: the cavity's length (0 for an invalid one) */
    uint64_t *pri;                  /* n */
    unsigned char *state;           /* n */
    const unsigned int *first;      /* nedges: the smallest seed position per edge */
    mmx__round_counters *cnt;       /* the driver's: invalid, listed, faces (kept cavities') */
};

/* What the fill needs from the proposal: the round, the scratch for the kept seeds' ranks. */
struct Sc {
    Round r;
    mmx_index *room, *ring_ptr;
    unsigned long long *kkey[2];
    mmx_index *kpos[2];
};

__global__ void hf_boundary(const mmx_index *fe, const mmx_index *sides, long long ncorners,
                            mmx_index *hf)
{
    const long long k = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (k >= ncorners) return;
    const mmx_index h = fe[k];
    if (sides[h / 2] == 1) hf[h] = (mmx_index)(k / 3);
}

/* The faces at each vertex from the row view's entries: entry k is corner k % 3 of face
 * k / 3 (triangles, in either form). In place. */
__global__ void entry_faces(mmx_index *vf, long long ncorners)
{
    const long long k = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (k < ncorners) vf[k] /= 3;
}

__global__ void ring_room(const mmx__sc_view v, mmx_cavity_kind kind, const mmx_index *seeds,
                          mmx_index n, mmx_index *room)
{
    const long long i = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (i < n) room[i] = mmx__sc_ring_bound(&v, kind, seeds[i]);
}

/* Each seed's cavity (cavity.c's build_cavity: the host's code), its state; per_seed but for
 * the outcome and the vertex. */
__global__ void build(const mmx__sc_view v, const float *pos, mmx_cavity_kind kind,
                      uint32_t round, Round r, mmx_cavity_seed *per_seed)
{
    const long long i = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    unsigned int invalid = 0;
    if (i < r.n) {
        const mmx_index e = r.seeds[i];
        mmx_cavity_seed sd;
        sd.outcome = MMX_CAVITY_INVALID;
        sd.faces[0] = sd.faces[1] = sd.new_edge[0] = sd.new_edge[1] = sd.vertex = -1;
        sd.priority = r.prio ? mmx__rank_key(r.prio[i], (mmx_index)i) : mmx__priority(e, round);
        mmx_index len = 0;
        mmx_index *ring = r.ring + r.ring_ptr[i];
        const float *at = r.place ? r.place + 3 * (size_t)i : nullptr;
        const int ok = kind == MMX_CAVITY_EDGE_SPLIT
                           ? mmx__sc_split_cavity(&v, pos, e, &sd, ring, &len)
                           : mmx__sc_collapse_cavity(&v, pos, e, at, &sd, ring, &len);
        unsigned char st = MMX__UNDECIDED;
        if (!ok) st = MMX_CAVITY_INVALID, invalid = 1, len = 0;
        else if (!r.prio && r.first[e] != (unsigned int)i) st = MMX_CAVITY_CONFLICT;
        r.pri[i] = sd.priority;
        r.state[i] = st;
        r.ring_len[i] = len;
        if (per_seed) per_seed[i] = sd;
    }
    invalid = mmx__block_reduce(invalid, cuda::std::plus<unsigned int>{});
    if (threadIdx.x == 0 && invalid) atomicAdd(&r.cnt->invalid, invalid);
}

/* Each seed's outcome; the kept seeds' (priority, position) listed (in the atomics' order:
 * the split sorts them, the collapse does not depend on it) and their faces counted. */
__global__ void outcomes(Round r, mmx_cavity_seed *per_seed, unsigned long long *kkey,
                         mmx_index *kpos)
{
    const long long i = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    unsigned int kf = 0;
    if (i < r.n) {
        const unsigned char st = r.state[i];
        if (st == MMX_CAVITY_KEPT) {
            const unsigned int j = atomicAdd(&r.cnt->listed, 1u);
            kkey[j] = r.pri[i];
            kpos[j] = (mmx_index)i;
            kf = per_seed[i].faces[1] >= 0 ? 2 : 1;
        }
        per_seed[i].outcome = (mmx_cavity_outcome)st;
    }
    kf = mmx__block_reduce(kf, cuda::std::plus<unsigned int>{});
    if (threadIdx.x == 0 && kf) atomicAdd(&r.cnt->faces, kf);
}

__global__ void split_room(const mmx_cavity_seed *sd, const mmx_index *kpos, mmx_index k,
                           mmx_index *room)
{
    const long long j = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (j < k) room[j] = sd[kpos[j]].faces[1] >= 0 ? 2 : 1;
}

/* Kept seed of rank j: vertex nverts + j, its faces from nfaces + off[j]. */
__global__ void split_fill(const mmx__flip_view v, const float *pos, const mmx_index *seeds,
                           mmx_cavity_seed *sd, const mmx_index *kpos, const mmx_index *off,
                           mmx_index k, mmx_index *verts, float *opos)
{
    const long long j = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (j >= k) return;
    const mmx_index i = kpos[j], e = seeds[i], m = v.nverts + (mmx_index)j;
    const mmx_index a = v.ev[2 * (size_t)e], b = v.ev[2 * (size_t)e + 1];
    sd[i].vertex = m;
    if (pos)
        for (int c = 0; c < 3; c++) opos[3 * (size_t)m + c] = mmx__sc_mid(pos, a, b, c);
    mmx__sc_fill_split(&v, e, &sd[i], m, v.nfaces + off[j], verts);
}

/* Kept seed j merges b into a: to[b] = a, its faces gone, a at the midpoint or its place
 * (mpos). */
__global__ void collapse_merge(const mmx__flip_view v, const float *pos, const mmx_index *seeds,
                               const float *place, const mmx_cavity_seed *sd,
                               const mmx_index *kpos, mmx_index k, mmx_index *to,
                               unsigned char *keepf, float *mpos)
{
    const long long j = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (j >= k) return;
    const mmx_index i = kpos[j], e = seeds[i];
    const mmx_index a = v.ev[2 * (size_t)e], b = v.ev[2 * (size_t)e + 1];
    to[b] = a;
    keepf[sd[i].faces[0]] = 0;
    if (sd[i].faces[1] >= 0) keepf[sd[i].faces[1]] = 0;
    if (pos)
        for (int c = 0; c < 3; c++)
            mpos[3 * (size_t)a + c] = place ? place[3 * (size_t)i + c] : mmx__sc_mid(pos, a, b, c);
}

__global__ void collapse_vertex(const mmx__flip_view v, const mmx_index *seeds,
                                mmx_cavity_seed *sd, const mmx_index *kpos, mmx_index k,
                                const mmx_index *vid)
{
    const long long j = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (j >= k) return;
    const mmx_index i = kpos[j];
    sd[i].vertex = vid[v.ev[2 * (size_t)seeds[i]]];
}

} // namespace

extern "C" mmx_status mmx__sc_dev_build(mmx_ctx *ctx, const mmx_mesh *mesh, const char *who,
                                        mmx__sc_dev *t)
{
    memset(t, 0, sizeof *t);
    mmx_status s = mmx__flip_dev_build(ctx, mesh, who, &t->f);
    if (s) return s;
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const mmx_adjacency *adj = t->f.adj;
    const mmx_index nf = t->f.view.nfaces, ne = t->f.view.nedges;
    const long long nc = 3 * (long long)nf;
    s = mmx_mem_alloc(ctx, MMX_SPACE_DEVICE, (2 * (size_t)ne + 1) * sizeof *t->hf, (void **)&t->hf);
    /* hf: ef, and each boundary edge's face in the slot of its direction. */
    if (!s && ne > 0)
        s = MMX__CUDA(ctx, cudaMemcpyAsync(t->hf, t->f.ef, 2 * (size_t)ne * sizeof *t->hf,
                                           cudaMemcpyDeviceToDevice, st));
    MMX__LAUNCH(hf_boundary, nc, adj->fe, adj->sides, nc, t->hf);
    /* The faces at each vertex: the mesh matrix's row view (a stable sort of its entries by
     * row, so each vertex's faces stay ascending), its entries turned into faces. */
    mmx__csc_rows r = {nullptr, nullptr, nullptr};
    if (!s) s = mmx__csc_rows_cuda(ctx, mesh->M, 0, &r);
    t->vf_ptr = r.rowptr;
    t->vf = r.entry;
    MMX__LAUNCH(entry_faces, nc, t->vf, nc);
    if (s) {
        mmx__sc_dev_free(ctx, t);
        return s;
    }
    t->view = mmx__sc_view{t->f.view, t->hf, adj->sides, adj->boundary, adj->E->colptr,
                           adj->E->rowidx, t->vf_ptr, t->vf};
    return MMX_OK;
}

/* The proposal: the rings' room and offsets (a collapse's total read back to size them, a
 * wait, unless the caller read it: rd->ring_total), each seed's cavity (build). With
 * priorities every key is distinct (mmx__rank_key), copies included: the selection decides
 * copies itself (they share their faces), so none is marked beforehand. */
extern "C" mmx_status mmx__sc_propose_cuda(mmx__round *rd)
{
    mmx_ctx *ctx = rd->ctx;
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const mmx__sc_view &v = *rd->sv;
    const mmx_index n = rd->n, ne = v.f.nedges;
    const mmx_cavity_kind kind = rd->kind;
    const mmx_index *seeds = rd->seeds;
    Sc *sc = (Sc *)calloc(1, sizeof *sc);
    if (!sc) return mmx__fail(ctx, MMX_ERR_NOMEM, "mmx_cavity_round: out of host memory");
    rd->priv = sc;
    Round &r = sc->r;
    /* Sizes first (a null base), then the pieces of one allocation. */
    char *block = nullptr;
    unsigned int *first = nullptr;
    mmx_status s = MMX_OK;
    const size_t nn = (size_t)n + 1;
    for (int pass = 0; pass < 2; pass++) {
        mmx__carve c{block, 0};
        sc->room = c.take<mmx_index>(nn);
        sc->ring_ptr = c.take<mmx_index>(nn);
        first = c.take<unsigned int>((size_t)ne + 1);
        r.ring_len = c.take<mmx_index>(nn);
        r.pri = c.take<uint64_t>(nn);
        r.state = c.take<unsigned char>(nn);
        sc->kkey[0] = c.take<unsigned long long>(nn);
        sc->kkey[1] = c.take<unsigned long long>(nn);
        sc->kpos[0] = c.take<mmx_index>(nn);
        sc->kpos[1] = c.take<mmx_index>(nn);
        if (pass == 0) s = mmx__round_take(rd, c.used, (void **)&block);
        if (s) return s;
    }
    r.seeds = seeds;
    r.prio = rd->prio;
    r.place = kind == MMX_CAVITY_EDGE_COLLAPSE ? rd->place : nullptr;
    r.n = n;
    r.first = first;
    r.ring_ptr = sc->ring_ptr;
    r.cnt = rd->dtally;
    /* The rings' room and offsets; a collapse's total (both ends' valences), unless given, is
     * read back to size the rings (a wait), a split's is 2 per seed. */
    MMX__LAUNCH(ring_room, n, v, kind, seeds, n, sc->room);
    if (!s) s = mmx__scan_offsets(ctx, sc->room, n, sc->ring_ptr);
    const int known = kind != MMX_CAVITY_EDGE_COLLAPSE || rd->ring_total > 0;
    mmx_index total = kind == MMX_CAVITY_EDGE_COLLAPSE ? rd->ring_total : 2 * n;
    if (!s && !known)
        s = mmx__dev_copy(ctx, &total, MMX_SPACE_HOST, sc->ring_ptr + n, MMX_SPACE_DEVICE,
                          sizeof total);
    if (!s) s = mmx__round_take(rd, ((size_t)total + 1) * sizeof *r.ring, (void **)&r.ring);
    if (!s) s = mmx__first_copies_cuda(ctx, seeds, n, ne, first);
    MMX__LAUNCH(build, n, v, rd->checked ? nullptr : rd->pos, kind, rd->round, r, rd->sd);
    rd->key = r.pri;
    rd->state = r.state;
    rd->ring_ptr = sc->ring_ptr;
    rd->ring_len = r.ring_len;
    rd->ring = r.ring;
    rd->nelem = v.f.nfaces;
    return s;
}

/* The fill: the outcomes and the kept seeds listed, the counts (the round's one read of them:
 * the kept cavities' faces size a split's output), then the split's or the collapse's fill. */
extern "C" mmx_status mmx__sc_fill_cuda(mmx__round *rd, mmx_mesh **out)
{
    mmx_ctx *ctx = rd->ctx;
    cudaStream_t st = (cudaStream_t)ctx->stream;
    Sc *sc = (Sc *)rd->priv;
    Round &r = sc->r;
    const mmx__flip_view &fv = rd->sv->f;
    const mmx_index nv = fv.nverts, nf = fv.nfaces, n = rd->n, k = rd->c.kept;
    const mmx_index *seeds = rd->seeds;
    const float *pos = rd->pos;
    mmx_cavity_seed *sd = rd->sd;
    mmx_index *room = sc->room, *ring_ptr = sc->ring_ptr;
    mmx_status s = MMX_OK;
    MMX__LAUNCH(outcomes, n, r, sd, sc->kkey[0], sc->kpos[0]);
    if (!s) s = mmx__round_tally(rd);
    const mmx_index kf = (mmx_index)rd->htally.faces;
    int cur = 0;
    mmx_mesh *m = nullptr;
    const size_t vb = 3 * (size_t)nv * sizeof(float), fb = 3 * (size_t)nf * sizeof(mmx_index);
    if (rd->kind == MMX_CAVITY_EDGE_SPLIT) {
        /* Ranks in key order, then the new faces' offsets. */
        if (!s && k > 1) s = mmx__sort_pairs(ctx, sc->kkey, sc->kpos, k, 64, &cur);
        MMX__LAUNCH(split_room, k, sd, sc->kpos[cur], k, room);
        if (!s) s = mmx__scan_exclusive(ctx, room, k, ring_ptr); /* ring_ptr: free by now */
        if (!s) s = mmx__dev_tri_mesh(ctx, nv + k, nf + kf, pos != nullptr, &m);
        if (!s && nf > 0)
            s = MMX__CUDA(ctx, cudaMemcpyAsync(m->M->rowidx, fv.verts, fb,
                                               cudaMemcpyDeviceToDevice, st));
        if (!s && pos && nv > 0)
            s = MMX__CUDA(ctx, cudaMemcpyAsync(m->pos, pos, vb, cudaMemcpyDeviceToDevice, st));
        if (!s) MMX__LAUNCH(split_fill, k, fv, pos, seeds, sd, sc->kpos[cur], ring_ptr, k,
                       m->M->rowidx, m->pos);
    } else {
        /* to, the face flags, the merged positions, then the compaction (the counts known:
         * no wait) and the kept seeds' vertices at their new numbers. */
        mmx_index *cb = nullptr;
        unsigned char *keepf = nullptr;
        float *mpos = nullptr;
        const size_t v1 = (size_t)nv + 1;
        if (!s) s = mmx__dev_alloc(ctx, 2 * v1 * sizeof *cb + (size_t)nf + 1, (void **)&cb);
        mmx_index *to = cb, *vid = cb + v1;
        if (!s) keepf = (unsigned char *)(cb + 2 * v1);
        if (!s && pos) s = mmx__dev_alloc(ctx, vb + 4, (void **)&mpos);
        if (!s && pos && nv > 0)
            s = MMX__CUDA(ctx, cudaMemcpyAsync(mpos, pos, vb, cudaMemcpyDeviceToDevice, st));
        if (!s && nf > 0) s = MMX__CUDA(ctx, cudaMemsetAsync(keepf, 1, (size_t)nf, st));
        MMX__LAUNCH(mmx__iota<mmx_index>, nv, nv, to);
        MMX__LAUNCH(collapse_merge, k, fv, pos, seeds, r.place, sd, sc->kpos[0], k, to, keepf,
                    mpos);
        const mmx__compact c = {keepf, to, mpos, nv - k, nf - kf, 0, 0};
        if (!s) s = mmx__round_compact(ctx, MMX_SPACE_DEVICE, fv.verts, nv, nf, &c, &m, vid);
        MMX__LAUNCH(collapse_vertex, k, fv, seeds, sd, sc->kpos[0], k, vid);
        mmx__dev_free(ctx, cb);
        mmx__dev_free(ctx, mpos);
    }
    if (!s) *out = m;
    else mmx_mesh_free(m);
    return s;
}
