/* User cavity rounds on the device (host statement: user_cavity.c; the per-cavity steps are
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

constexpr const char *WHO = "mmx_cavity_user_round";

struct Counters {
    unsigned int invalid, removed, fan;
};

/* Cavity i's check (the host's code), its per_seed but the outcome, its state, the length of
 * its ring for the selection (0 when invalid), its loop's length; the pairs to sort. */
__global__ void check(const mmx__sc_view v, const float *pos, const mmx_index *ptr,
                      const mmx_index *faces, mmx_index n, const uint64_t *priority,
                      uint32_t round, mmx_index *scr, mmx_index *len, mmx_index *nloop,
                      unsigned char *state, mmx_cavity_seed *sd, unsigned long long *skey,
                      mmx_index *sval, Counters *cnt)
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
                         mmx_index *fan, unsigned char *keepf, Counters *cnt)
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
    atomicAdd(&cnt->removed, (unsigned int)(ptr[i + 1] - ptr[i]));
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

} // namespace

extern "C" mmx_status mmx__user_round_cuda(mmx_ctx *ctx, const mmx_mesh *mesh,
                                           const mmx_index *cav_ptr, const mmx_index *cav_faces,
                                           mmx_index n, const uint64_t *priority,
                                           uint32_t round, mmx_mesh **out,
                                           mmx_cavity_counts *counts, mmx_cavity_seed *per_seed)
{
    *out = nullptr;
    mmx__sc_dev t;
    mmx_status s = mmx__sc_dev_build(ctx, mesh, WHO, &t);
    if (s) return s;
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const mmx__sc_view &v = t.view;
    const mmx_index nv = v.f.nverts, nf = v.f.nfaces;
    const float *pos = mesh->pos;
    const mmx_index base = n > 0 ? cav_ptr[0] : 0, total = n > 0 ? cav_ptr[n] - base : 0;
    const size_t n1 = (size_t)n + 1, f1 = (size_t)nf + 1, t1 = (size_t)total + 1;
    /* Index arrays: ptr, len, nloop, sval (2), kflag, krank, fan, fanoff (n + 1 each); faces
     * (total + 1), scr (4 total + 1); then keepf (nf + 1 bytes). */
    mmx_index *hp = nullptr, *ib = nullptr;
    unsigned long long *skey = nullptr;
    uint64_t *key = nullptr, *dpri = nullptr;
    unsigned char *state = nullptr;
    mmx_cavity_seed *sd = nullptr;
    Counters *cnt = nullptr;
    mmx_mesh *m = nullptr;
    s = mmx__host_alloc(ctx, n1, sizeof *hp, (void **)&hp);
    if (!s) s = mmx__dev_alloc(ctx, (9 * n1 + 5 * t1) * sizeof *ib + f1, (void **)&ib);
    if (!s) s = mmx__dev_alloc(ctx, 2 * n1 * sizeof *skey, (void **)&skey);
    if (!s) s = mmx__dev_alloc(ctx, n1 * sizeof *key, (void **)&key);
    if (!s && priority) s = mmx__dev_alloc(ctx, n1 * sizeof *dpri, (void **)&dpri);
    if (!s) s = mmx__dev_alloc(ctx, n1 * sizeof *state, (void **)&state);
    if (!s) s = mmx__dev_alloc(ctx, n1 * sizeof *sd, (void **)&sd);
    if (!s) s = mmx__dev_alloc(ctx, sizeof *cnt, (void **)&cnt);
    mmx_index *ptr = ib, *len = ptr + n1, *nloop = len + n1;
    mmx_index *sval[2] = {nloop + n1, nloop + 2 * n1};
    mmx_index *kflag = nloop + 3 * n1, *krank = kflag + n1, *fan = krank + n1, *fanoff = fan + n1;
    mmx_index *faces = fanoff + n1, *scr = faces + t1;
    unsigned char *keepf = (unsigned char *)(scr + 4 * t1);
    unsigned long long *skeys[2] = {skey, skey + n1};
    /* The inputs, copied down. */
    if (!s) {
        for (mmx_index i = 0; i <= n; i++) hp[i] = n > 0 ? cav_ptr[i] - base : 0;
        s = mmx__dev_copy(ctx, ptr, MMX_SPACE_DEVICE, hp, MMX_SPACE_HOST, n1 * sizeof *hp);
    }
    if (!s && total > 0)
        s = mmx__dev_copy(ctx, faces, MMX_SPACE_DEVICE, cav_faces + base, MMX_SPACE_HOST,
                          (size_t)total * sizeof *faces);
    if (!s && priority && n > 0)
        s = mmx__dev_copy(ctx, dpri, MMX_SPACE_DEVICE, priority, MMX_SPACE_HOST,
                          (size_t)n * sizeof *dpri);
    if (!s) s = MMX__CUDA(ctx, cudaMemsetAsync(cnt, 0, sizeof *cnt, st));
    MMX__LAUNCH(check, n, v, pos, ptr, faces, n, dpri, round, scr, len, nloop, state, sd, skeys[0],
           sval[0], cnt);
    int cur = 0;
    if (!s && n > 1) s = mmx__sort_pairs(ctx, skeys, sval, n, 64, &cur);
    MMX__LAUNCH(ranks, n, sval[cur], n, key);
    mmx_index k = 0;
    if (!s) s = mmx__select_cuda(ctx, n, key, ptr, len, faces, nf, state, &k);
    if (!s && nf > 0) s = MMX__CUDA(ctx, cudaMemsetAsync(keepf, 1, (size_t)nf, st));
    MMX__LAUNCH(outcomes, n, sval[cur], n, ptr, faces, nloop, state, sd, kflag, fan, keepf, cnt);
    if (!s) s = mmx__scan_exclusive(ctx, kflag, n, krank);
    if (!s) s = mmx__scan_exclusive(ctx, fan, n, fanoff);
    /* The counters' one wait: the output's size. */
    Counters h{};
    if (!s) s = mmx__dev_copy(ctx, &h, MMX_SPACE_HOST, cnt, MMX_SPACE_DEVICE, sizeof h);
    const mmx_index nsurv = nf - (mmx_index)h.removed;
    /* The survivors (every vertex, the faces in their order), then the fans after them. */
    const mmx__compact c = {keepf, nullptr, pos, nv, nsurv, k, (mmx_index)h.fan};
    if (!s) s = mmx__round_compact(ctx, MMX_SPACE_DEVICE, v.f.verts, nv, nf, &c, &m, nullptr);
    if (!s)
        MMX__LAUNCH(fans, n, v.f.verts, pos, nv, nsurv, sval[cur], n, ptr, faces, scr, nloop, kflag,
               krank, fanoff, sd, m->M->rowidx, m->pos);
    if (!s && per_seed && n > 0)
        s = mmx__dev_copy(ctx, per_seed, MMX_SPACE_HOST, sd, MMX_SPACE_DEVICE, n * sizeof *sd);
    if (!s) {
        if (counts)
            *counts = mmx_cavity_counts{n, k, (mmx_index)h.invalid, n - k - (mmx_index)h.invalid};
        *out = m;
    } else {
        mmx_mesh_free(m);
    }
    free(hp);
    mmx__dev_free(ctx, ib);
    mmx__dev_free(ctx, skey);
    mmx__dev_free(ctx, key);
    mmx__dev_free(ctx, dpri);
    mmx__dev_free(ctx, state);
    mmx__dev_free(ctx, sd);
    mmx__dev_free(ctx, cnt);
    mmx__sc_dev_free(ctx, &t);
    return s;
}
