/* User cavity rounds' CUDA stages for the round driver (round.c; host statement:
 * user_cavity.c; the per-cavity steps are
 * user_step.h's, the host's code). The flow:
 *
 * Inputs. The cavities (cav_ptr rebased to 0, cav_faces) and the priorities are host arrays,
 * copied down (cav_ptr rebased on the host first).
 *
 * Check. One thread per cavity runs the host's check in its own scratch (4 indices per face:
 * its union-find and its boundary loop, which stays there, ordered, for the fill).
 *
 * Keys. The host orders valid cavities by (priority, cavity). User priorities may tie, and
 * the device selection wants distinct keys, so the pairs (priority, i), listed in i order,
 * are sorted by priority with CUB's radix sort, which is stable: the sorted order is the
 * host's key order, and each cavity's rank in it is its key for mmx__select_cuda (select.cu
 * proves the selection the host's greedy pass for any distinct keys in the host's order).
 *
 * Fill. In the sorted order, each cavity's kept flag and fan size are scanned: a kept
 * cavity's rank among the kept (its new vertex nverts + rank) and its fan's offset after the
 * survivors; the kept cavities' faces are flagged gone (they share no face). One read-back of
 * the counters sizes the output; the compaction every removing round shares
 * (mmx__round_compact, the host's too) copies the survivors in their order with room after
 * them, and one thread per kept cavity writes its vertex and fan. */
#include <cstdlib>
#include <cstring>
#include <cuda/std/functional>
#include "core/cub.cuh"
#include "core/launch.cuh"
#include "dynamic_internal.h"
#include "user_step.h"

namespace {

/* Cavity i's check (the host's code), its per_seed but the outcome, its state, the length of
 * its ring for the selection (0 when invalid), its loop's length; the pairs to sort. */
__global__ void check(const mmx__sc_view v, const float *pos, const mmx_index *ptr,
                      const mmx_index *faces, mmx_index n, const uint64_t *priority,
                      uint32_t round, mmx_index *scr, mmx_index *len, mmx_index *nloop,
                      unsigned char *state, mmx_cavity_seed *sd, unsigned long long *skey,
                      mmx_index *sval, mmx__round_counters *cnt)
{
    const long long i = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    unsigned int bad = 0;
    if (i < n) {
        const mmx_index k = ptr[i + 1] - ptr[i];
        mmx_index *uf = scr + 4 * (size_t)ptr[i], nl = 0;
        mmx_cavity_seed x;
        x.outcome = MMX_CAVITY_INVALID;
        x.faces[0] = x.faces[1] = x.new_edge[0] = x.new_edge[1] = x.vertex = -1;
        x.priority = priority ? priority[i] : mmx__priority((mmx_index)i, round);
        const int ok = mmx__uc_cavity(&v, pos, faces + ptr[i], k, uf, uf + k, &nl);
        bad = !ok;
        len[i] = ok ? k : 0;
        nloop[i] = ok ? nl : 0;
        state[i] = ok ? MMX__UNDECIDED : MMX_CAVITY_INVALID;
        sd[i] = x;
        skey[i] = x.priority;
        sval[i] = (mmx_index)i;
    }
    bad = mmx__block_reduce(bad, cuda::std::plus<unsigned int>{});
    if (threadIdx.x == 0 && bad) atomicAdd(&cnt->invalid, bad);
}

/* The rank of each cavity in key order: its selection key. */
__global__ void ranks(const mmx_index *sorted, mmx_index n, uint64_t *key)
{
    const long long j = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (j < n) key[sorted[j]] = (uint64_t)j;
}

/* In key order (j): the outcome, the kept flag and fan size; a kept cavity's faces gone. */
__global__ void outcomes(const mmx_index *sorted, mmx_index n, const mmx_index *ptr,
                         const mmx_index *faces, const mmx_index *nloop,
                         const unsigned char *state, mmx_cavity_seed *sd, mmx_index *kflag,
                         mmx_index *fan, unsigned char *keepf, mmx__round_counters *cnt)
{
    const long long j = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (j >= n) return;
    const mmx_index i = sorted[j];
    const int kept = state[i] == MMX_CAVITY_KEPT;
    sd[i].outcome = (mmx_cavity_outcome)state[i];
    kflag[j] = kept;
    fan[j] = kept ? nloop[i] : 0;
    if (!kept) return;
    for (mmx_index r = ptr[i]; r < ptr[i + 1]; r++) keepf[faces[r]] = 0;
    atomicAdd(&cnt->faces, (unsigned int)(ptr[i + 1] - ptr[i]));
    atomicAdd(&cnt->fan, (unsigned int)nloop[i]);
}

/* Kept cavity of key rank j: vertex nverts + krank[j], its fan from nsurv + fanoff[j]. */
__global__ void fans(const mmx_index *verts, const float *pos, mmx_index nv, mmx_index nsurv,
                     const mmx_index *sorted, mmx_index n, const mmx_index *ptr,
                     const mmx_index *faces, const mmx_index *scr, const mmx_index *nloop,
                     const mmx_index *kflag, const mmx_index *krank, const mmx_index *fanoff,
                     mmx_cavity_seed *sd, mmx_index *out, float *opos)
{
    const long long j = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (j >= n || !kflag[j]) return;
    const mmx_index i = sorted[j], m = nv + krank[j], k = ptr[i + 1] - ptr[i];
    const mmx_index *F = faces + ptr[i], *loop = scr + 4 * (size_t)ptr[i] + k;
    sd[i].vertex = m;
    if (pos) mmx__uc_centroid(verts, pos, F, loop, nloop[i], opos + 3 * (size_t)m);
    mmx__uc_fill(verts, F, loop, nloop[i], m, out, nsurv + fanoff[j]);
}

/* What the fill needs from the proposal. */
struct Uc {
    mmx_index *nloop, *sval[2], *kflag, *krank, *fan, *fanoff, *scr;
    int cur; /* which of sval holds the key order */
};

} // namespace

/* The proposal: each cavity's check (its loop kept in its scratch), the key order by a stable
 * radix sort of the priorities, each cavity's rank in it as its key. */
extern "C" mmx_status mmx__user_propose_cuda(mmx__round *rd)
{
    mmx_ctx *ctx = rd->ctx;
    const mmx__sc_view &v = *rd->sv;
    const mmx_index n = rd->n;
    const size_t n1 = (size_t)n + 1, t1 = (size_t)rd->cav_total + 1;
    Uc *uc = (Uc *)calloc(1, sizeof *uc);
    if (!uc) return mmx__fail(ctx, MMX_ERR_NOMEM, "mmx_cavity_user_round: out of host memory");
    rd->priv = uc;
    char *block = nullptr;
    mmx_index *len = nullptr;
    unsigned long long *skeys[2] = {nullptr, nullptr};
    uint64_t *key = nullptr;
    unsigned char *state = nullptr;
    mmx_status s = MMX_OK;
    for (int pass = 0; pass < 2; pass++) {
        mmx__carve c{block, 0};
        len = c.take<mmx_index>(n1);
        uc->nloop = c.take<mmx_index>(n1);
        uc->sval[0] = c.take<mmx_index>(n1);
        uc->sval[1] = c.take<mmx_index>(n1);
        uc->kflag = c.take<mmx_index>(n1);
        uc->krank = c.take<mmx_index>(n1);
        uc->fan = c.take<mmx_index>(n1);
        uc->fanoff = c.take<mmx_index>(n1);
        uc->scr = c.take<mmx_index>(4 * t1);
        skeys[0] = c.take<unsigned long long>(n1);
        skeys[1] = c.take<unsigned long long>(n1);
        key = c.take<uint64_t>(n1);
        state = c.take<unsigned char>(n1);
        if (pass == 0) s = mmx__round_take(rd, c.used, (void **)&block);
        if (s) return s;
    }
    cudaStream_t st = (cudaStream_t)ctx->stream;
    MMX__LAUNCH(check, n, v, rd->pos, rd->cav_ptr, rd->cav_faces, n, rd->upri, rd->round, uc->scr,
                len, uc->nloop, state, rd->sd, skeys[0], uc->sval[0], rd->dtally);
    if (!s && n > 1) s = mmx__sort_pairs(ctx, skeys, uc->sval, n, 64, &uc->cur);
    MMX__LAUNCH(ranks, n, uc->sval[uc->cur], n, key);
    rd->key = key;
    rd->state = state;
    rd->ring_ptr = rd->cav_ptr;
    rd->ring_len = len;
    rd->ring = rd->cav_faces;
    rd->nelem = v.f.nfaces;
    return s;
}

/* The fill: the kept cavities' faces flagged gone and their fans sized and ranked, the counts
 * (the round's one read of them: they size the output), the survivors compacted with room
 * after them, each kept cavity's vertex and fan. */
extern "C" mmx_status mmx__user_fill_cuda(mmx__round *rd, mmx_mesh **out)
{
    mmx_ctx *ctx = rd->ctx;
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const mmx__sc_view &v = *rd->sv;
    const mmx_index nv = v.f.nverts, nf = v.f.nfaces, n = rd->n, k = rd->c.kept;
    const Uc *uc = (const Uc *)rd->priv;
    const mmx_index *sorted = uc->sval[uc->cur];
    unsigned char *keepf = nullptr;
    mmx_mesh *m = nullptr;
    mmx_status s = mmx__dev_alloc(ctx, (size_t)nf + 1, (void **)&keepf);
    if (!s && nf > 0) s = MMX__CUDA(ctx, cudaMemsetAsync(keepf, 1, (size_t)nf, st));
    MMX__LAUNCH(outcomes, n, sorted, n, rd->cav_ptr, rd->cav_faces, uc->nloop, rd->state, rd->sd,
                uc->kflag, uc->fan, keepf, rd->dtally);
    if (!s) s = mmx__scan_exclusive(ctx, uc->kflag, n, uc->krank);
    if (!s) s = mmx__scan_exclusive(ctx, uc->fan, n, uc->fanoff);
    if (!s) s = mmx__round_tally(rd);
    const mmx_index nsurv = nf - (mmx_index)rd->htally.faces;
    /* The survivors (every vertex, the faces in their order), then the fans after them. */
    const mmx__compact c = {keepf, nullptr, rd->pos, nv, nsurv, k, (mmx_index)rd->htally.fan};
    if (!s) s = mmx__round_compact(ctx, MMX_SPACE_DEVICE, v.f.verts, nv, nf, &c, &m, nullptr);
    if (!s)
        MMX__LAUNCH(fans, n, v.f.verts, rd->pos, nv, nsurv, sorted, n, rd->cav_ptr, rd->cav_faces,
                    uc->scr, uc->nloop, uc->kflag, uc->krank, uc->fanoff, rd->sd, m->M->rowidx,
                    m->pos);
    mmx__dev_free(ctx, keepf);
    if (!s) *out = m;
    else mmx_mesh_free(m);
    return s;
}
