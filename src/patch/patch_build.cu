/* The patch set's build on the device (patch_internal.h, mmx__patch_build_cuda): the steps of
 * the host build (patch_build.c, the reference) as kernels over the device arrays of the mesh
 * and its adjacency, giving the same arrays bit for bit.
 *
 *   cut      face centroids in double, summed in corner order with round-to-nearest
 *            intrinsics (nothing for nvcc to fuse), their box by a reduction, Morton keys, a
 *            stable radix sort of (key, face) from faces in ascending order (ties by face);
 *            with labels, a stable sort of that order by label, each position's group found
 *            by binary search and its run heads decided by mmx__patch_run_head (a scan
 *            numbers the runs: one more wait, for their count and the labels' check);
 *            grouped (the caller's hint: labels in [0, nlabels), each group within the
 *            bound, as an update's are), no curve and no sort: each label's faces are its
 *            run, placed by counts and a scan (a run's patches do not depend on the order of
 *            its faces); a wait checks the labels' range and the largest group first (the
 *            cut sorts where they fail), unless the caller vouches for the groups' size
 *            (an update that only shrinks or keeps patches), and a vouched-for cut that
 *            fails is found at the first wait, the build then run again sorted;
 *            one block per run of S faces (or per run of a label) splits it into components in
 *            shared memory (union-find: larger root under smaller) and sorts its faces by
 *            (smallest face of the component, face), which numbers its patches as the host
 *            does; a scan of the runs' patch counts gives the global numbers.
 *   owners   the face lists of every vertex and edge by a stable sort of the corners (so
 *            each list ascends): an element's owner is the patch of its first face.
 *   locals   per vertex the patches of its faces; per face the patches it is local to (those
 *            of its vertices), emitted in face order and sorted stably by (patch, ribbon):
 *            every patch's owned faces then its ribbon, each ascending. Per corner of a
 *            local face, in one pass, whether it brings its patch a new edge and a new vertex
 *            (each element flagged once per patch: at the smallest local face that has it,
 *            found in the ascending lists); the flags' scans place the elements, which are
 *            then sorted by (patch, not owned, number), and give each patch's sizes.
 *   blocks   FE, EV and the face starts by binary search of the sorted local lists.
 *
 * Waits (one read-back each): the patch count with the local faces and corners; the local
 * edges and vertices with the statistics (each patch's sizes are differences of the scans of
 * its corners' flags, known before the edges and vertices are sorted), the orientation and
 * the refusal of a patch beyond 16-bit indices, decided where the host decides it (the first
 * such patch, the same sentence; naming its vertex takes one more wait, only then). The
 * sorted cut with labels adds the run count's wait before them, the checked grouped cut its
 * check.
 *
 * Cost: five radix sorts (faces, and by label with labels; corners by vertex and by edge;
 * local faces; local edges and vertices; the grouped cut sorts no faces), the rest linear in
 * the local elements, except around vertices of very high valence, where the per-vertex patch
 * lists and the "first local face" scans grow with the valence times the patches there (a
 * fan of 40,000 faces stays well under a second). */
#include <climits>
#include <cstring>
#include <utility>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_scan.cuh>
#include "core/cub.cuh"
#include "core/launch.cuh"
#include "patch_block.h"

namespace {

using u32 = unsigned int;
using u64 = unsigned long long;

constexpr int RUN_ITEMS = 3; /* faces per thread of a run's block */
static_assert(MMX__BLOCK * RUN_ITEMS >= MMX_PATCH_MAX_FACES, "a run must fit one block");

__device__ __forceinline__ long long tid() { return (long long)blockIdx.x * MMX__BLOCK + threadIdx.x; }

/* What the second read-back gathers besides the sizes (every field folds from zero). */
struct build_stats {
    u32 min_faces_key;   /* 0xffffffff - the smallest owned face count */
    u32 max_faces, max_lf, max_le, max_lv, max_nc;
    u32 bad_patch;       /* 0xffffffff - the first patch beyond 16-bit indices, 0: none */
    u32 bad_edge;        /* MMX__PATCH_FAULT of the smallest inconsistent edge, 0: none */
    u64 max_scratch;
    u64 owned_v;         /* owned vertices over all patches (the vertices in faces) */
};

/* ---- the cut --------------------------------------------------------------------------- */

/* A double's bits in an order that unsigned comparison keeps (NaN excluded by the caller). */
__device__ __forceinline__ u64 ordered(double x)
{
    const u64 b = (u64)__double_as_longlong(x);
    return b >> 63 ? ~b : b | 0x8000000000000000ull;
}

__device__ __forceinline__ double unordered(u64 k)
{
    return __longlong_as_double((long long)(k >> 63 ? k & 0x7fffffffffffffffull : ~k));
}

struct min_op {
    __device__ u64 operator()(u64 a, u64 b) const { return a < b ? a : b; }
};
struct max_op {
    __device__ u64 operator()(u64 a, u64 b) const { return a > b ? a : b; }
};

/* cen[3f + d] = the centroid of face f as the host computes it (double sum in corner order,
 * divided by the order); box[d] / box[3 + d] fold the smallest / largest non-NaN centroid
 * coordinate (ordered bits; box[0..2] start at all ones, box[3..5] at zero). */
__global__ void centroids(const mmx_csc M, const float *pos, double *cen, u64 *box)
{
    const long long f = tid();
    u64 lo[3] = {~0ull, ~0ull, ~0ull}, hi[3] = {0, 0, 0};
    if (f < M.ncols) {
        int64_t a, b;
        mmx__csc_col(&M, (mmx_index)f, &a, &b);
        for (int d = 0; d < 3; d++) {
            double sum = 0;
            for (int64_t c = a; c < b; c++)
                sum = __dadd_rn(sum, (double)pos[3 * (size_t)M.rowidx[c] + (size_t)d]);
            const double x = __ddiv_rn(sum, (double)(b - a));
            cen[3 * f + d] = x;
            if (!isnan(x)) lo[d] = hi[d] = ordered(x);
        }
    }
    for (int d = 0; d < 3; d++) {
        const u64 l = mmx__block_reduce(lo[d], min_op{});
        const u64 h = mmx__block_reduce(hi[d], max_op{});
        if (threadIdx.x == 0) {
            if (l != ~0ull) atomicMin(&box[d], l);
            if (h) atomicMax(&box[3 + d], h);
        }
    }
}

__device__ __forceinline__ u32 spread3(u32 x)
{
    x &= 0x3ff;
    x = (x | (x << 16)) & 0x030000ff;
    x = (x | (x << 8)) & 0x0300f00f;
    x = (x | (x << 4)) & 0x030c30c3;
    x = (x | (x << 2)) & 0x09249249;
    return x;
}

/* The host's cell (patch_build.c), each step rounded to nearest. */
__device__ __forceinline__ u32 cell(double c, double lo, double hi)
{
    if (!(hi > lo)) return 0;
    const double t = __dmul_rn(__ddiv_rn(__dsub_rn(c, lo), __dsub_rn(hi, lo)), 1024.0);
    return !(t > 0) ? 0 : t >= 1023 ? 1023 : (u32)t;
}

/* key[f] = face f's Morton code, val[f] = f. The host's box starts at face 0's centroid: a
 * NaN there stays its box (every cell 0 on that axis); else the box is that of the non-NaN
 * centroids, which the reduction gave. */
__global__ void morton(mmx_index F, const double *cen, const u64 *box, u32 *key, mmx_index *val)
{
    const long long f = tid();
    if (f >= F) return;
    u32 k = 0;
    for (int d = 0; d < 3; d++) {
        const double lo = unordered(box[d]), hi = unordered(box[3 + d]);
        const u32 x = isnan(cen[d]) ? 0u : cell(cen[3 * f + d], lo, hi);
        k |= spread3(x) << d;
    }
    key[f] = k;
    val[f] = (mmx_index)f;
}

__global__ void iota(long long n, mmx_index *out)
{
    const long long i = tid();
    if (i < n) out[i] = (mmx_index)i;
}

/* at[srt[i]] = i: each face's position in cut order. */
__global__ void positions(mmx_index F, const mmx_index *srt, mmx_index *at)
{
    const long long i = tid();
    if (i < F) at[srt[i]] = (mmx_index)i;
}

/* The corners as (vertex, face) and (edge, face) pairs, in storage order (faces ascending). */
__global__ void corner_pairs(const mmx_csc M, const mmx_index *fe, u32 *kv, u32 *ke, mmx_index *fv,
                             mmx_index *fev)
{
    const long long f = tid();
    if (f >= M.ncols) return;
    int64_t a, b;
    mmx__csc_col(&M, (mmx_index)f, &a, &b);
    for (int64_t c = a; c < b; c++) {
        kv[c] = (u32)M.rowidx[c], ke[c] = (u32)(fe[c] >> 1);
        fv[c] = fev[c] = (mmx_index)f;
    }
}

/* start[g] = the first i in [0, n] whose group (key >> SHIFT) is >= g, for g in [0, ng]:
 * the offsets of the groups of keys sorted by group (empty groups included). */
template <typename K, int SHIFT>
__global__ void group_starts(const K *key, long long n, long long ng, mmx_index *start)
{
    const long long i = tid();
    if (i > n) return;
    const long long gi = i < n ? (long long)(key[i] >> SHIFT) : ng;
    const long long gp = i > 0 ? (long long)(key[i - 1] >> SHIFT) : -1;
    for (long long g = gp + 1; g <= gi && g <= ng; g++) start[g] = (mmx_index)i;
}

__device__ int uf_root(volatile int *par, int x)
{
    while (par[x] != x) x = par[x];
    return x;
}

/* Joins the sets of a and b: the larger root goes under the smaller, by compare-and-swap, so
 * concurrent joins never make a cycle; the partition comes out the same whatever the order. */
__device__ void uf_unite(int *par, int a, int b)
{
    for (;;) {
        a = uf_root(par, a), b = uf_root(par, b);
        if (a == b) return;
        if (a < b) {
            const int t = a;
            a = b, b = t;
        }
        if (atomicCAS(&par[a], a, b) == a) return;
    }
}

/* One block per run: positions [run S, run S + n) of srt without labels (run_start NULL),
 * [run_start[run], run_start[run + 1]) with them. Its components (faces joined across an
 * edge, both in the run), then its faces sorted by (smallest face of their component, face):
 * pface[q] the face at position q of the patch order, lpatch[q] its patch's number within the
 * run, nroots[run] the run's patch count. None of it depends on the order of the run's faces
 * in srt. fault (the grouped cut, runs of whole label groups): a run of more than `bound`
 * faces sets bit 2 there and counts as one patch of its faces as they stand (a stand-in that
 * keeps the next steps in bounds; the caller builds again). */
__global__ void run_components(const mmx_csc M, const mmx_index *fe, mmx_index F, mmx_index S,
                               const mmx_index *run_start, const mmx_index *srt, const mmx_index *at,
                               const mmx_index *ef_off, const mmx_index *ef, mmx_index *pface,
                               mmx_index *lpatch, mmx_index *nroots, mmx_index bound, u32 *fault)
{
    using Sort = cub::BlockRadixSort<u64, MMX__BLOCK, RUN_ITEMS>;
    using Scan = cub::BlockScan<int, MMX__BLOCK>;
    __shared__ union {
        typename Sort::TempStorage sort;
        typename Scan::TempStorage scan;
    } tmp;
    __shared__ int par[MMX__BLOCK * RUN_ITEMS], minf[MMX__BLOCK * RUN_ITEMS];
    __shared__ u64 sk[MMX__BLOCK * RUN_ITEMS];
    const long long base = run_start ? (long long)run_start[blockIdx.x] : (long long)blockIdx.x * S;
    const int n = run_start ? (int)(run_start[blockIdx.x + 1] - base)
                            : (int)((long long)F - base < S ? (long long)F - base : S);
    if (fault && n > bound) { /* every thread of the block leaves here */
        for (int l = threadIdx.x; l < n; l += MMX__BLOCK) pface[base + l] = srt[base + l], lpatch[base + l] = 0;
        if (threadIdx.x == 0) nroots[blockIdx.x] = 1, atomicOr(fault, 2u);
        return;
    }
    for (int l = threadIdx.x; l < n; l += MMX__BLOCK) par[l] = l, minf[l] = INT_MAX;
    __syncthreads();
    for (int l = threadIdx.x; l < n; l += MMX__BLOCK) {
        int64_t a, b;
        mmx__csc_col(&M, srt[base + l], &a, &b);
        for (int64_t c = a; c < b; c++) {
            const mmx_index e = fe[c] >> 1;
            for (mmx_index q = ef_off[e]; q < ef_off[e + 1]; q++) {
                const long long j = (long long)at[ef[q]] - base;
                if (j >= 0 && j < n && j != l) uf_unite(par, l, (int)j);
            }
        }
    }
    __syncthreads();
    for (int l = threadIdx.x; l < n; l += MMX__BLOCK) atomicMin(&minf[uf_root(par, l)], srt[base + l]);
    __syncthreads();
    u64 k[RUN_ITEMS];
    for (int t = 0; t < RUN_ITEMS; t++) {
        const int l = threadIdx.x * RUN_ITEMS + t;
        k[t] = l < n ? (u64)(u32)minf[uf_root(par, l)] << 32 | (u32)srt[base + l] : ~0ull;
    }
    Sort(tmp.sort).Sort(k);
    for (int t = 0; t < RUN_ITEMS; t++) sk[threadIdx.x * RUN_ITEMS + t] = k[t];
    __syncthreads();
    int flag[RUN_ITEMS], incl[RUN_ITEMS], total = 0;
    for (int t = 0; t < RUN_ITEMS; t++) {
        const int l = threadIdx.x * RUN_ITEMS + t;
        flag[t] = l < n && (l == 0 || (sk[l] >> 32) != (sk[l - 1] >> 32));
    }
    Scan(tmp.scan).InclusiveSum(flag, incl, total);
    for (int t = 0; t < RUN_ITEMS; t++) {
        const int l = threadIdx.x * RUN_ITEMS + t;
        if (l < n) {
            pface[base + l] = (mmx_index)(u32)sk[l];
            lpatch[base + l] = incl[t] - 1;
        }
    }
    if (threadIdx.x == 0) nroots[blockIdx.x] = total;
}

/* face_patch of the face at position q of the patch order: its run's first patch plus its
 * number in the run (the run of q: q / S, or qrun[q] with labels). */
__global__ void set_face_patch(mmx_index F, mmx_index S, const mmx_index *qrun, const mmx_index *pface,
                               const mmx_index *lpatch, const mmx_index *run_base, mmx_index *face_patch)
{
    const long long q = tid();
    if (q < F) face_patch[pface[q]] = run_base[qrun ? qrun[q] : q / S] + lpatch[q];
}

/* ---- the cut with labels (patch_internal.h) --------------------------------------------------- */

/* The grouped cut (labels in [0, nl), every group within the bound): each group is one run,
 * numbered by its label (an empty group is a run of no faces and no patches), so neither the
 * curve order nor a sort is needed: run_components gives the same patches whatever the order
 * of a run's faces. cnt[l] = the faces of label l; a label outside [0, nl) sets bit 1 of
 * *fault and counts as 0 (the caller builds again with the sorts). */
__global__ void group_count(mmx_index F, const mmx_index *label, mmx_index nl, mmx_index *cnt, u32 *fault)
{
    const long long f = tid();
    if (f >= F) return;
    mmx_index l = label[f];
    if (l < 0 || l >= nl) atomicOr(fault, 1u), l = 0;
    atomicAdd(&cnt[l], 1);
}

/* srt[run_start[l] + k] = the faces of label l (in no particular order), qrun there = l, and
 * at[f] = f's position; fill (nl counters) starts at zero. */
__global__ void group_place(mmx_index F, const mmx_index *label, mmx_index nl, const mmx_index *run_start,
                            mmx_index *fill, mmx_index *srt, mmx_index *qrun, mmx_index *at)
{
    const long long f = tid();
    if (f >= F) return;
    mmx_index l = label[f];
    if (l < 0 || l >= nl) l = 0;
    const mmx_index i = run_start[l] + atomicAdd(&fill[l], 1);
    srt[i] = (mmx_index)f;
    qrun[i] = l;
    at[f] = i;
}

/* key[i] = the label of the face at position i of the curve order (val[i] = that face), and
 * the smallest face with a negative label folded into *bad (0xffffffff - f; 0: none). */
__global__ void face_labels(mmx_index F, const mmx_index *srt, const mmx_index *label, u32 *key,
                            mmx_index *val, u32 *bad)
{
    const long long i = tid();
    if (i >= F) return;
    const mmx_index f = srt[i], l = label[f];
    key[i] = (u32)l;
    val[i] = f;
    if (l < 0) atomicMax(bad, 0xffffffffu - (u32)f);
}

/* head[i] = whether position i of the labels sorted ascending (lk) starts a run
 * (mmx__patch_run_head, its group found by binary search). */
__global__ void run_heads(mmx_index F, mmx_index S, const u32 *lk, mmx_index *head)
{
    const long long i = tid();
    if (i >= F) return;
    const u32 x = lk[i];
    mmx_index lo = 0, hi = (mmx_index)i; /* the first position of x's group */
    while (lo < hi) {
        const mmx_index mid = lo + (hi - lo) / 2;
        if (lk[mid] < x) lo = mid + 1;
        else hi = mid;
    }
    const mmx_index g0 = lo;
    lo = (mmx_index)i + 1, hi = F; /* the first position after it */
    while (lo < hi) {
        const mmx_index mid = lo + (hi - lo) / 2;
        if (lk[mid] <= x) lo = mid + 1;
        else hi = mid;
    }
    head[i] = mmx__patch_run_head((mmx_index)i, g0, lo, S);
}

/* qrun[i] = the run of position i (hpos: the exclusive scan of head), run_start[r] = the
 * first position of run r, run_start[nruns] = F. */
__global__ void run_index(mmx_index F, mmx_index nruns, const mmx_index *head, const mmx_index *hpos,
                          mmx_index *qrun, mmx_index *run_start)
{
    const long long i = tid();
    if (i >= F) return;
    qrun[i] = hpos[i] + head[i] - 1;
    if (head[i]) run_start[hpos[i]] = (mmx_index)i;
    if (i == F - 1) run_start[nruns] = F;
}

/* ---- owners ------------------------------------------------------------------------------ */

/* owner[i] = the patch of element i's first (smallest) face, -1 without faces (and then
 * local[i] = 0xffff, where local is given). */
__global__ void first_owner(mmx_index n, const mmx_index *off, const mmx_index *list,
                            const mmx_index *face_patch, mmx_index *owner, uint16_t *local)
{
    const long long i = tid();
    if (i >= n) return;
    const bool none = off[i] == off[i + 1];
    owner[i] = none ? -1 : face_patch[list[off[i]]];
    if (none && local) local[i] = 0xffff;
}

/* ---- local faces ------------------------------------------------------------------------- */

/* The distinct patches of vertex v's faces, in list order, at pv[vf_off[v] ..), their number
 * in pv_n[v]. */
__global__ void vertex_patches(mmx_index V, const mmx_index *vf_off, const mmx_index *vf,
                               const mmx_index *face_patch, mmx_index *pv, mmx_index *pv_n)
{
    const long long v = tid();
    if (v >= V) return;
    const mmx_index a = vf_off[v], b = vf_off[v + 1];
    mmx_index n = 0;
    for (mmx_index q = a; q < b; q++) {
        const mmx_index p = face_patch[vf[q]];
        bool seen = false;
        for (mmx_index k = 0; k < n && !seen; k++) seen = pv[a + k] == p;
        if (!seen) pv[a + n++] = p;
    }
    pv_n[v] = n;
}

/* The patches face g is local to: those of its vertices (a face at a vertex of an owned face
 * is in the ribbon), each once. Counts into cnt[g], and the local corners it brings (the
 * count times its order) into ccnt[g] (off NULL), or writes the pairs at off[g]: key p << 1 |
 * ribbon, value g. */
__global__ void face_locals(const mmx_csc M, const mmx_index *vf_off, const mmx_index *pv,
                            const mmx_index *pv_n, const mmx_index *face_patch, const mmx_index *off,
                            mmx_index *cnt, mmx_index *ccnt, u32 *key, mmx_index *val)
{
    const long long g = tid();
    if (g >= M.ncols) return;
    int64_t a, b;
    mmx__csc_col(&M, (mmx_index)g, &a, &b);
    const mmx_index own = face_patch[g];
    /* A patch is new at a corner unless an earlier corner has it, that is, unless it was
     * emitted already (a vertex's list holds each patch once): checked against the patches
     * emitted so far while they fit `seen`, so a face costs its corners times its patches,
     * not its corners squared (a face of 30,000 corners took about a minute a pass, by
     * estimate); past that (a face local to more than 64 patches), against the earlier
     * corners, quadratic in the face's size again. */
    constexpr int SEEN = 64;
    mmx_index seen[SEEN];
    mmx_index n = 0;
    for (int64_t c = a; c < b; c++) {
        const mmx_index v = M.rowidx[c];
        for (mmx_index k = 0; k < pv_n[v]; k++) {
            const mmx_index p = pv[vf_off[v] + k];
            bool dup = false;
            if (n <= SEEN) {
                for (mmx_index j = 0; j < n && !dup; j++) dup = seen[j] == p;
            } else {
                for (int64_t c2 = a; c2 < c && !dup; c2++) {
                    const mmx_index w = M.rowidx[c2];
                    for (mmx_index k2 = 0; k2 < pv_n[w] && !dup; k2++) dup = pv[vf_off[w] + k2] == p;
                }
            }
            if (dup) continue;
            if (n < SEEN) seen[n] = p;
            if (off) {
                key[off[g] + n] = (u32)p << 1 | (u32)(p != own);
                val[off[g] + n] = (mmx_index)g;
            }
            n++;
        }
    }
    if (!off) cnt[g] = n, ccnt[g] = n * (mmx_index)(b - a);
}

/* off[p] = start2[2p] (p <= np) and owned[3p + kind] = the size of group 2p (owned). */
__global__ void patch_offsets(mmx_index np, const mmx_index *start2, mmx_index *off, mmx_index *owned,
                              int kind)
{
    const long long p = tid();
    if (p > np) return;
    off[p] = start2[2 * p];
    if (p < np) owned[3 * p + kind] = start2[2 * p + 1] - start2[2 * p];
}

/* local[x] = x's index in its owner, for the owned entries of sorted keys (group p << 1 |
 * not owned above SHIFT; the element in val, or in the key's low 32 bits without val). */
template <typename K, int SHIFT>
__global__ void owned_locals(long long n, const K *key, const mmx_index *val, const mmx_index *off,
                             uint16_t *local)
{
    const long long i = tid();
    if (i >= n) return;
    const u64 grp = (u64)(key[i] >> SHIFT);
    if (grp & 1) return;
    const mmx_index x = val ? val[i] : (mmx_index)(u32)key[i];
    local[x] = (uint16_t)(i - off[grp >> 1]);
}

__global__ void low_words(long long n, const u64 *key, mmx_index *out)
{
    const long long i = tid();
    if (i < n) out[i] = (mmx_index)(u32)key[i];
}

/* The corners of local face i (its order). */
__global__ void local_orders(long long nlf, const mmx_csc M, const mmx_index *l2g_f, mmx_index *cnt)
{
    const long long i = tid();
    if (i >= nlf) return;
    int64_t a, b;
    mmx__csc_col(&M, l2g_f[i], &a, &b);
    cnt[i] = (mmx_index)(b - a);
}

/* corner_off[p] = cpos[face_off[p]], p <= np. */
__global__ void corner_offsets(mmx_index np, const mmx_index *face_off, const mmx_index *cpos,
                               mmx_index *corner_off)
{
    const long long p = tid();
    if (p <= np) corner_off[p] = cpos[face_off[p]];
}

/* ---- local edges and vertices -------------------------------------------------------------- */

/* The patch's local faces as sorted lists (patch_offsets, the sorted l2g_f). */
struct local_faces {
    const mmx_index *l2g_f, *face_off, *owned, *face_patch;
};

/* Whether face g is local to patch p: owned by it, or in its ribbon (ascending). */
__device__ __forceinline__ bool is_local(const local_faces &L, mmx_index p, mmx_index g)
{
    if (L.face_patch[g] == p) return true;
    const mmx_index lo = L.face_off[p] + L.owned[3 * p], hi = L.face_off[p + 1];
    const mmx_index q = mmx__lower_bound(L.l2g_f, lo, hi, g);
    return q < hi && L.l2g_f[q] == g;
}

/* Whether no local face of p smaller than g has element x (inc/inc_off: the ascending face
 * lists of the elements), so that g's corner brings x into p's local lists. No earlier
 * corner of g names x: a face names each vertex once (the mesh matrix holds one entry per
 * vertex and face; the constructors and readers refuse repeats), so its k >= 3 edges are
 * distinct too. (Scanning the earlier corners made the build quadratic in the face's size:
 * a face of 30,000 corners ran for minutes on one thread; the host build, which marks
 * elements, is linear.) */
__device__ __forceinline__ bool first_local(const local_faces &L, mmx_index p, mmx_index g,
                                            const mmx_index *inc_off, const mmx_index *inc, mmx_index x)
{
    for (mmx_index q = inc_off[x]; q < inc_off[x + 1]; q++) {
        const mmx_index h = inc[q];
        if (h >= g) break;
        if (is_local(L, p, h)) return false;
    }
    return true;
}

/* Per local face i (face g of patch p) and corner k of g, at cpos[i] + k: whether the corner
 * brings p a new edge (eflag) and a new vertex (vflag), so each local element of p is flagged
 * at exactly one corner of p's local faces. One pass for both kinds; the flags' scans place
 * the elements and count them per patch. */
__global__ void corner_firsts(long long nlf, const mmx_csc M, const mmx_index *fe, const u32 *lkey,
                              const local_faces L, const mmx_index *ef_off, const mmx_index *ef,
                              const mmx_index *vf_off, const mmx_index *vf, const mmx_index *cpos,
                              mmx_index *eflag, mmx_index *vflag)
{
    const long long i = tid();
    if (i >= nlf) return;
    const mmx_index p = (mmx_index)(lkey[i] >> 1), g = L.l2g_f[i];
    int64_t a, b;
    mmx__csc_col(&M, g, &a, &b);
    const mmx_index at = cpos[i];
    for (int64_t c = a; c < b; c++) {
        eflag[at + (c - a)] = first_local(L, p, g, ef_off, ef, fe[c] >> 1);
        vflag[at + (c - a)] = first_local(L, p, g, vf_off, vf, M.rowidx[c]);
    }
}

/* The flagged corners' elements as keys (p << 1 | not owned) << 32 | element, at their places
 * in the flags' scans (epos, vpos). */
__global__ void corner_keys(long long nlf, const mmx_csc M, const mmx_index *fe, const u32 *lkey,
                            const mmx_index *l2g_f, const mmx_index *cpos, const mmx_index *eflag,
                            const mmx_index *epos, const mmx_index *vflag, const mmx_index *vpos,
                            const mmx_index *edge_patch, const mmx_index *vert_patch, u64 *ek, u64 *vk)
{
    const long long i = tid();
    if (i >= nlf) return;
    const mmx_index p = (mmx_index)(lkey[i] >> 1);
    int64_t a, b;
    mmx__csc_col(&M, l2g_f[i], &a, &b);
    const mmx_index at = cpos[i];
    for (int64_t c = a; c < b; c++) {
        const mmx_index j = at + (mmx_index)(c - a);
        if (eflag[j]) {
            const mmx_index e = fe[c] >> 1;
            ek[epos[j]] = (u64)((u32)p << 1 | (u32)(edge_patch[e] != p)) << 32 | (u32)e;
        }
        if (vflag[j]) {
            const mmx_index v = M.rowidx[c];
            vk[vpos[j]] = (u64)((u32)p << 1 | (u32)(vert_patch[v] != p)) << 32 | (u32)v;
        }
    }
}

/* x's local index in patch p: among the owned (ascending) when p owns it, else among the rest. */
__device__ __forceinline__ mmx_index local_of(const mmx_index *l2g, const mmx_index *off,
                                              const mmx_index *owned_n, mmx_index p, bool mine,
                                              mmx_index x)
{
    const mmx_index lo = off[p], mid = lo + owned_n[3 * p];
    return mine ? mmx__lower_bound(l2g, lo, mid, x) - lo : mmx__lower_bound(l2g, mid, off[p + 1], x) - lo;
}

/* The FE block of local face i at cpos[i] (and its start in the patch's block, for mixed
 * orders). */
__global__ void fe_block(long long nlf, const mmx_csc M, const mmx_index *fe, const u32 *lkey,
                         const mmx_index *l2g_f, const mmx_index *cpos, const mmx_index *corner_off,
                         const mmx_index *edge_off, const mmx_index *owned, const mmx_index *edge_patch,
                         const mmx_index *l2g_e, uint16_t *fe16, mmx_index *fstart)
{
    const long long i = tid();
    if (i >= nlf) return;
    const mmx_index p = (mmx_index)(lkey[i] >> 1);
    int64_t a, b;
    mmx__csc_col(&M, l2g_f[i], &a, &b);
    const mmx_index at = cpos[i];
    if (fstart) fstart[i] = at - corner_off[p];
    for (int64_t c = a; c < b; c++) {
        const mmx_index e = fe[c] >> 1;
        const mmx_index l = local_of(l2g_e, edge_off, owned + 1, p, edge_patch[e] == p, e);
        fe16[at + (c - a)] = (uint16_t)(l << 1 | (fe[c] & 1));
    }
}

/* The EV block: per local edge its ends' local indices. */
__global__ void ev_block(long long nle, const u64 *ekey, const mmx_index *ev, const mmx_index *vert_off,
                         const mmx_index *owned, const mmx_index *vert_patch, const mmx_index *l2g_v,
                         uint16_t *ev16)
{
    const long long i = tid();
    if (i >= nle) return;
    const mmx_index p = (mmx_index)(ekey[i] >> 33), e = (mmx_index)(u32)ekey[i];
    for (int t = 0; t < 2; t++) {
        const mmx_index v = ev[2 * (size_t)e + t];
        ev16[2 * i + t] = (uint16_t)local_of(l2g_v, vert_off, owned + 2, p, vert_patch[v] == p, v);
    }
}

/* ---- statistics, refusal, orientation ---------------------------------------------------- */

/* Patch p's statistics from its local faces and corners (in patch order): its faces
 * (face_off), corners (corner_off), edges and vertices (the differences of epos and vpos,
 * the scans of its corners' flags), so they are known before the local edges and vertices
 * are sorted. */
__global__ void patch_stats(mmx_index np, const mmx_index *face_off, const mmx_index *corner_off,
                            const mmx_index *epos, const mmx_index *vpos, const mmx_index *owned,
                            build_stats *st)
{
    const long long p = tid();
    if (p >= np) return;
    const mmx_index c0 = corner_off[p], c1 = corner_off[p + 1];
    const mmx_index nf = face_off[p + 1] - face_off[p], nc = c1 - c0;
    const mmx_index ne = epos[c1] - epos[c0], nv = vpos[c1] - vpos[c0];
    const u32 of = (u32)owned[3 * p];
    atomicMax(&st->max_faces, of);
    atomicMax(&st->min_faces_key, 0xffffffffu - of);
    atomicMax(&st->max_lf, (u32)nf);
    atomicMax(&st->max_le, (u32)ne);
    atomicMax(&st->max_lv, (u32)nv);
    atomicMax(&st->max_nc, (u32)nc);
    atomicMax(&st->max_scratch, (u64)mmx__patch_scratch_bytes(nf, ne, nv, nc));
    if (nf > MMX__PATCH_MAX_LOCAL || nv > MMX__PATCH_MAX_LOCAL || ne > MMX__PATCH_MAX_LOCAL_EDGES)
        atomicMax(&st->bad_patch, 0xffffffffu - (u32)p);
}

struct sum_op {
    __device__ u64 operator()(u64 a, u64 b) const { return a + b; }
};

/* The owned vertices over all patches: every vertex in a face is owned once (by its first
 * face's patch), so they are the vertices with a face. */
__global__ void faced_vertices(mmx_index V, const mmx_index *vf_off, build_stats *st)
{
    const long long v = tid();
    const u64 x = v < V && vf_off[v + 1] > vf_off[v] ? 1u : 0u;
    const u64 sum = mmx__block_reduce(x, sum_op{});
    if (threadIdx.x == 0 && sum) atomicAdd(&st->owned_v, sum);
}

/* What the refusal of a patch says: its sizes and its vertex of largest valence. */
struct refusal {
    u64 best_vertex; /* valence << 32 | (0xffffffff - v), ties: the smaller vertex */
    mmx_index nf, ne, nv;
};

__global__ void refused_sizes(mmx_index p, const mmx_index *face_off, const mmx_index *corner_off,
                              const mmx_index *epos, const mmx_index *vpos, refusal *r)
{
    if (tid() != 0) return;
    const mmx_index c0 = corner_off[p], c1 = corner_off[p + 1];
    r->nf = face_off[p + 1] - face_off[p], r->ne = epos[c1] - epos[c0], r->nv = vpos[c1] - vpos[c0];
}

/* The refused patch p's vertex of largest valence, as the host's refusal names it: over the
 * corners of p's local faces (lkey: the sorted keys p << 1 | ribbon), whose vertices are p's. */
__global__ void refused_vertex(long long nlf, const u32 *lkey, const mmx_index *l2g_f, const mmx_csc M,
                               const mmx_index *vf_off, mmx_index p, refusal *r)
{
    const long long i = tid();
    if (i >= nlf || (mmx_index)(lkey[i] >> 1) != p) return;
    int64_t a, b;
    mmx__csc_col(&M, l2g_f[i], &a, &b);
    for (int64_t c = a; c < b; c++) {
        const u32 v = (u32)M.rowidx[c];
        const u32 val = (u32)(vf_off[v + 1] - vf_off[v]);
        atomicMax(&r->best_vertex, (u64)val << 32 | (0xffffffffu - v));
    }
}

/* The host's first_inconsistent (patch_build.c) as a fold: an edge of exactly two face entries
 * whose faces run it the same way. */
__global__ void inconsistent_edges(mmx_index E, const mmx_csc M, const mmx_index *fe, const mmx_index *ef_off,
                                   const mmx_index *ef, build_stats *st)
{
    const long long e = tid();
    if (e >= E || ef_off[e + 1] - ef_off[e] != 2) return;
    int dir[2] = {0, 0};
    for (int t = 0; t < 2; t++) {
        int64_t a, b;
        mmx__csc_col(&M, ef[ef_off[e] + t], &a, &b);
        for (int64_t c = a; c < b; c++)
            if ((fe[c] >> 1) == e) dir[t] = fe[c] & 1;
    }
    if (dir[0] == dir[1]) atomicMax(&st->bad_edge, MMX__PATCH_FAULT(e));
}

/* ---- host side --------------------------------------------------------------------------- */

/* Queues kernel k over n threads (nothing for n <= 0). */
template <typename... A, typename... P>
mmx_status launch(mmx_ctx *ctx, long long n, void (*k)(A...), P &&...args)
{
    if (n <= 0) return MMX_OK;
    k<<<mmx__grid(n), MMX__BLOCK, 0, (cudaStream_t)ctx->stream>>>(std::forward<P>(args)...);
    return MMX__CUDA(ctx, cudaGetLastError());
}

/* The build's scratch: every array taken here goes back at the end (stream order), unless
 * kept (it became one of the set's arrays). */
struct scratch {
    mmx_ctx *ctx;
    void *p[64];
    int n;
    template <typename T>
    mmx_status take(size_t count, T **out)
    {
        *out = nullptr;
        if (n == 64) return mmx__fail(ctx, MMX_ERR_INTERNAL, "patch build: scratch list full");
        mmx_status s = mmx__dev_alloc(ctx, count * sizeof(T), (void **)out);
        if (!s && *out) p[n++] = *out;
        return s;
    }
    /* Gives q back now (queued after the work that reads it). */
    void drop(void *q)
    {
        for (int i = 0; i < n; i++)
            if (p[i] == q) {
                mmx__dev_free(ctx, q);
                p[i] = nullptr;
            }
    }
    void keep(void *q)
    {
        for (int i = 0; i < n; i++)
            if (p[i] == q) p[i] = nullptr;
    }
    ~scratch()
    {
        for (int i = 0; i < n; i++) mmx__dev_free(ctx, p[i]);
    }
};

template <typename K>
mmx_status sort_keys(mmx_ctx *ctx, K *keys[2], long long n, int end_bit, int *cur)
{
    cudaStream_t st = (cudaStream_t)ctx->stream;
    cub::DoubleBuffer<K> k(keys[0], keys[1]);
    mmx_status s = mmx__cub_run(ctx, "cub::DeviceRadixSort::SortKeys", [&](void *tmp, size_t &bytes) {
        return cub::DeviceRadixSort::SortKeys(tmp, bytes, k, n, 0, end_bit, st);
    });
    *cur = k.selector;
    return s;
}

/* A read-back block (device.h), given back when it goes out of scope. */
struct readback {
    mmx__readback rb;
    readback() { memset(&rb, 0, sizeof rb); }
    ~readback() { mmx__readback_close(&rb); }
    readback(const readback &) = delete;
    readback &operator=(const readback &) = delete;
    template <typename T>
    mmx_status slot(T **out)
    {
        return mmx__readback_slot(&rb, sizeof(T), (void **)out);
    }
    /* A slot that becomes the sum of in[0 .. n) (queued). */
    mmx_status sum(const mmx_index *in, long long n, int64_t **out)
    {
        mmx_status s = slot(out);
        if (!s && n > 0) s = mmx__reduce_sum(rb.ctx, in, n, *out);
        return s;
    }
    template <typename T>
    T get(const T *slot) const
    {
        return *(const T *)mmx__readback_host(&rb, slot);
    }
};

mmx_status too_many(mmx_ctx *ctx, const char *what, int64_t n)
{
    return mmx__fail(ctx, MMX_ERR_OVERFLOW, "patch set: %lld local %s do not fit 32-bit indices",
                     (long long)n, what);
}

/* The face lists of the vertices (by = nullptr) or edges: a stable sort of the corner pairs
 * (element, face) by element, so each list ascends; off has n + 1 entries. */
mmx_status incidence(scratch &sc, long long nnz, mmx_index n, u32 *keys[2], mmx_index *vals[2],
                     mmx_index **off, mmx_index **list)
{
    mmx_ctx *ctx = sc.ctx;
    int cur = 0;
    mmx_status s = MMX_OK;
    if (nnz > 0) s = mmx__sort_pairs(ctx, keys, vals, nnz, n > 1 ? mmx__bits_for(n - 1) : 1, &cur);
    if (!s) s = sc.take((size_t)n + 1, off);
    if (!s) s = launch(ctx, nnz + 1, group_starts<u32, 0>, keys[cur], nnz, (long long)n, *off);
    *list = vals[cur];
    sc.drop(keys[0]), sc.drop(keys[1]), sc.drop(vals[1 - cur]);
    return s;
}

/* The sorted cut's runs (patch.h's order): the faces in curve order (Morton keys of the
 * centroids sorted stably from face order; number order without positions) in *srt, runs of
 * S (*qrun, *run_start NULL); with labels that order sorted stably by label, the runs of each
 * group (mmx__patch_run_head) numbered by a scan, *qrun the run of each position and
 * *run_start the first position of each run: one wait, for the run count with the check of
 * the labels. */
mmx_status sorted_cut(scratch &sc, const mmx_csc &M, const float *pos, const mmx_index *label,
                      mmx_index S, mmx_index **srt_out, mmx_index **qrun_out,
                      mmx_index **run_start_out, long long *nruns_out)
{
    mmx_ctx *ctx = sc.ctx;
    cudaStream_t st = (cudaStream_t)ctx->stream;
    const mmx_index F = M.ncols;
    /* The cut's order: Morton keys of the centroids, sorted stably from face order. */
    mmx_index *srt = nullptr;
    mmx_status s = MMX_OK;
    if (pos) {
        double *cen = nullptr;
        u64 *box = nullptr;
        u32 *key[2] = {nullptr, nullptr};
        mmx_index *val[2] = {nullptr, nullptr};
        int cur = 0;
        s = sc.take(3 * (size_t)F, &cen);
        if (!s) s = sc.take(6, &box);
        if (!s) s = sc.take((size_t)F, &key[0]);
        if (!s) s = sc.take((size_t)F, &key[1]);
        if (!s) s = sc.take((size_t)F, &val[0]);
        if (!s) s = sc.take((size_t)F, &val[1]);
        if (!s) s = MMX__CUDA(ctx, cudaMemsetAsync(box, 0xff, 3 * sizeof *box, st));
        if (!s) s = mmx__dev_zero(ctx, box + 3, 3 * sizeof *box);
        if (!s) s = launch(ctx, F, centroids, M, pos, cen, box);
        if (!s) s = launch(ctx, F, morton, F, (const double *)cen, (const u64 *)box, key[0], val[0]);
        if (!s) s = mmx__sort_pairs(ctx, key, val, F, 30, &cur);
        if (s) return s;
        srt = val[cur];
        sc.drop(cen), sc.drop(box), sc.drop(key[0]), sc.drop(key[1]), sc.drop(val[1 - cur]);
    } else {
        /* No geometry: number order, as on the host. */
        s = sc.take((size_t)F, &srt);
        if (!s) s = launch(ctx, F, iota, (long long)F, srt);
    }
    /* With labels: the curve order sorted stably by label, the runs of each group (the first
     * wait: the run count, with the check of the labels). */
    long long nruns = ((long long)F + S - 1) / S;
    mmx_index *qrun = nullptr, *run_start = nullptr;
    if (!s && label) {
        u32 *key[2] = {nullptr, nullptr};
        mmx_index *val[2] = {nullptr, nullptr}, *head = nullptr, *hpos = nullptr;
        int cur = 0;
        s = sc.take((size_t)F, &key[0]);
        if (!s) s = sc.take((size_t)F, &key[1]);
        if (!s) s = sc.take((size_t)F, &val[0]);
        if (!s) s = sc.take((size_t)F, &val[1]);
        if (!s) s = sc.take((size_t)F, &head);
        if (!s) s = sc.take((size_t)F, &hpos);
        mmx__readback rb;
        memset(&rb, 0, sizeof rb);
        u32 *bad = nullptr;
        int64_t *nrun = nullptr;
        if (!s) s = mmx__readback_open(ctx, &rb);
        if (!s) s = mmx__readback_slot(&rb, sizeof *bad, (void **)&bad);
        if (!s) s = mmx__readback_slot(&rb, sizeof *nrun, (void **)&nrun);
        if (!s) s = launch(ctx, F, face_labels, F, (const mmx_index *)srt, label, key[0], val[0], bad);
        if (!s) s = mmx__sort_pairs(ctx, key, val, F, 32, &cur);
        if (!s) s = launch(ctx, F, run_heads, F, S, (const u32 *)key[cur], head);
        if (!s) s = mmx__reduce_sum(ctx, head, F, nrun);
        if (!s) s = mmx__scan_exclusive(ctx, head, F, hpos);
        if (!s) s = mmx__readback_wait(&rb);
        u32 hbad = 0;
        if (!s) {
            hbad = *(const u32 *)mmx__readback_host(&rb, bad);
            nruns = *(const int64_t *)mmx__readback_host(&rb, nrun);
        }
        mmx__readback_close(&rb);
        if (!s && hbad) {
            const mmx_index f = (mmx_index)(0xffffffffu - hbad);
            mmx_index l = 0;
            s = mmx_mem_copy(ctx, &l, MMX_SPACE_HOST, label + f, MMX_SPACE_DEVICE, sizeof l);
            if (!s) s = mmx__patch_bad_label(ctx, f, l);
        }
        if (!s) s = sc.take((size_t)F, &qrun);
        if (!s) s = sc.take((size_t)nruns + 1, &run_start);
        if (!s) s = launch(ctx, F, run_index, F, (mmx_index)nruns, (const mmx_index *)head,
                           (const mmx_index *)hpos, qrun, run_start);
        if (s) return s;
        sc.drop(srt), sc.drop(key[0]), sc.drop(key[1]), sc.drop(val[1 - cur]);
        sc.drop(head), sc.drop(hpos);
        srt = val[cur];
    }
    *srt_out = srt, *qrun_out = qrun, *run_start_out = run_start, *nruns_out = nruns;
    return s;
}

/* The grouped cut (labels in [0, nl) taken to make groups within the bound): run l is label
 * l's group, its faces at [run_start[l], run_start[l + 1]) of *srt in no particular order,
 * *qrun the run of each position, *at each face's position; no sort and no wait. A label
 * outside [0, nl) sets bit 1 of *fault (run_components sets bit 2 for a group beyond the
 * bound): the caller builds again with the sorted cut. maxg (or NULL) becomes the largest
 * group's size. */
mmx_status grouped_cut(scratch &sc, mmx_index F, const mmx_index *label, mmx_index nl, u32 *fault,
                       mmx_index *maxg, mmx_index **srt, mmx_index **qrun, mmx_index **run_start,
                       mmx_index **at)
{
    mmx_ctx *ctx = sc.ctx;
    mmx_index *cnt = nullptr, *fill = nullptr;
    mmx_status s = sc.take((size_t)nl, &cnt);
    if (!s) s = sc.take((size_t)nl, &fill);
    if (!s) s = sc.take((size_t)nl + 1, run_start);
    if (!s) s = sc.take((size_t)F, srt);
    if (!s) s = sc.take((size_t)F, qrun);
    if (!s) s = sc.take((size_t)F, at);
    if (!s) s = mmx__dev_zero(ctx, cnt, (size_t)nl * sizeof *cnt);
    if (!s) s = mmx__dev_zero(ctx, fill, (size_t)nl * sizeof *fill);
    if (!s) s = launch(ctx, F, group_count, F, label, nl, cnt, fault);
    if (!s && maxg) s = mmx__reduce_max(ctx, cnt, nl, 0, maxg);
    if (!s) s = mmx__scan_offsets(ctx, cnt, nl, *run_start);
    if (!s) s = launch(ctx, F, group_place, F, label, nl, (const mmx_index *)*run_start, fill, *srt, *qrun,
                       *at);
    sc.drop(cnt), sc.drop(fill);
    return s;
}

} // namespace

/* One build (mmx__patch_build_cuda). nlabels > 0: the grouped cut, checked first by a wait
 * unless max_group vouches for the groups; *regroup set where the unchecked guess failed
 * (the set's arrays then are not the cut's; the caller frees them and builds again with
 * nlabels 0). */
static mmx_status build(mmx_ctx *ctx, const mmx_csc *Mp, const float *pos, const mmx_index *fe,
                        const mmx_index *ev, const mmx_index *label, mmx_index nlabels,
                        mmx_index max_group, mmx_patch_set *ps, bool *regroup)
{
    const mmx_csc M = *Mp;
    const mmx_index F = M.ncols, V = M.nrows, E = ps->nedges, S = ps->max_faces;
    const long long nnz = M.nnz;
    const size_t I = sizeof(mmx_index);
    cudaStream_t st = (cudaStream_t)ctx->stream;
    scratch sc;
    sc.ctx = ctx, sc.n = 0;
    ps->space = MMX_SPACE_DEVICE;
    mmx_status s = mmx__dev_alloc(ctx, (size_t)F * I, (void **)&ps->face_patch);
    if (!s) s = mmx__dev_alloc(ctx, (size_t)E * I, (void **)&ps->edge_patch);
    if (!s) s = mmx__dev_alloc(ctx, (size_t)V * I, (void **)&ps->vert_patch);
    if (!s) s = mmx__dev_alloc(ctx, (size_t)F * 2, (void **)&ps->face_local);
    if (!s) s = mmx__dev_alloc(ctx, (size_t)E * 2, (void **)&ps->edge_local);
    if (!s) s = mmx__dev_alloc(ctx, (size_t)V * 2, (void **)&ps->vert_local);
    if (!s) s = mmx__dev_alloc(ctx, I, (void **)&ps->face_off);
    if (s) return s;
    if (F == 0) {
        /* No faces, no patches: every vertex unowned (-1, 0xffff: all ones). */
        s = mmx__dev_alloc(ctx, I, (void **)&ps->edge_off);
        if (!s) s = mmx__dev_alloc(ctx, I, (void **)&ps->vert_off);
        if (!s) s = mmx__dev_alloc(ctx, I, (void **)&ps->corner_off);
        if (!s) s = mmx__dev_zero(ctx, ps->face_off, I);
        if (!s) s = mmx__dev_zero(ctx, ps->edge_off, I);
        if (!s) s = mmx__dev_zero(ctx, ps->vert_off, I);
        if (!s) s = mmx__dev_zero(ctx, ps->corner_off, I);
        if (!s && V) s = MMX__CUDA(ctx, cudaMemsetAsync(ps->vert_patch, 0xff, (size_t)V * I, st));
        if (!s && V) s = MMX__CUDA(ctx, cudaMemsetAsync(ps->vert_local, 0xff, (size_t)V * 2, st));
        if (!s) ps->npatches = 0, mmx__patch_stats_finish(ps, 0, 0, 0, 0, 0);
        return s;
    }
    mmx__dev_free(ctx, ps->face_off), ps->face_off = nullptr;

    /* The cut's runs: grouped (no sort) where the caller says the labels allow it, else
     * sorted. The grouped cut is checked by a wait of its own (its labels in range, its
     * largest group within the bound; else the sorted cut runs instead) unless max_group
     * vouches for it. The first wait's block (after the components): the patch count, the
     * local faces and corners, and whether an unchecked grouped cut held. */
    readback first;
    int64_t *np_slot = nullptr, *nlf_slot = nullptr, *nc_slot = nullptr;
    u32 *fault = nullptr;
    s = mmx__readback_open(ctx, &first.rb);
    if (!s) s = first.slot(&fault);
    const mmx_index bound = mmx__patch_follow_bound(S);
    bool grouped = label && nlabels > 0;
    mmx_index *srt = nullptr, *at = nullptr, *qrun = nullptr, *run_start = nullptr;
    long long nruns = grouped ? nlabels : 0;
    if (!s && grouped && max_group > 0 && max_group <= bound) {
        s = grouped_cut(sc, F, label, nlabels, fault, nullptr, &srt, &qrun, &run_start, &at);
    } else if (!s && grouped) {
        readback check;
        u32 *cfault = nullptr;
        mmx_index *maxg = nullptr;
        s = mmx__readback_open(ctx, &check.rb);
        if (!s) s = check.slot(&cfault);
        if (!s) s = check.slot(&maxg);
        if (!s) s = grouped_cut(sc, F, label, nlabels, cfault, maxg, &srt, &qrun, &run_start, &at);
        if (!s) s = mmx__readback_wait(&check.rb);
        if (!s && (check.get(cfault) || check.get(maxg) > bound)) {
            sc.drop(srt), sc.drop(qrun), sc.drop(run_start), sc.drop(at);
            srt = qrun = run_start = at = nullptr;
            grouped = false;
        }
    }
    if (!s && !grouped) {
        s = sorted_cut(sc, M, pos, label, S, &srt, &qrun, &run_start, &nruns);
        if (!s) s = sc.take((size_t)F, &at);
        if (!s) s = launch(ctx, F, positions, F, (const mmx_index *)srt, at);
    }

    /* The face lists of the vertices and of the edges, each ascending. */
    u32 *kv[2] = {nullptr, nullptr}, *ke[2] = {nullptr, nullptr};
    mmx_index *fv[2] = {nullptr, nullptr}, *fev[2] = {nullptr, nullptr};
    mmx_index *vf_off = nullptr, *vf = nullptr, *ef_off = nullptr, *ef = nullptr;
    for (int b = 0; b < 2 && !s; b++) {
        s = sc.take((size_t)nnz, &kv[b]);
        if (!s) s = sc.take((size_t)nnz, &ke[b]);
        if (!s) s = sc.take((size_t)nnz, &fv[b]);
        if (!s) s = sc.take((size_t)nnz, &fev[b]);
    }
    if (!s) s = launch(ctx, F, corner_pairs, M, fe, kv[0], ke[0], fv[0], fev[0]);
    if (!s) s = incidence(sc, nnz, V, kv, fv, &vf_off, &vf);
    if (!s) s = incidence(sc, nnz, E, ke, fev, &ef_off, &ef);
    if (s) return s;

    /* Components of the runs, one block each (the grouped cut's check of its groups). */
    mmx_index *pface = nullptr, *lpatch = nullptr, *nroots = nullptr, *run_base = nullptr;
    s = sc.take((size_t)F, &pface);
    if (!s) s = sc.take((size_t)F, &lpatch);
    if (!s) s = sc.take((size_t)nruns, &nroots);
    if (!s) s = sc.take((size_t)nruns, &run_base);
    if (!s) {
        run_components<<<(unsigned)nruns, MMX__BLOCK, 0, st>>>(M, fe, F, S, run_start, srt, at, ef_off, ef,
                                                                pface, lpatch, nroots, bound,
                                                                grouped ? fault : nullptr);
        s = MMX__CUDA(ctx, cudaGetLastError());
    }
    if (!s) s = mmx__scan_exclusive(ctx, nroots, nruns, run_base);
    if (!s) s = first.sum(nroots, nruns, &np_slot);
    if (!s) s = launch(ctx, F, set_face_patch, F, S, (const mmx_index *)qrun, (const mmx_index *)pface,
               (const mmx_index *)lpatch, (const mmx_index *)run_base, ps->face_patch);
    sc.drop(pface), sc.drop(lpatch), sc.drop(nroots), sc.drop(run_base), sc.drop(srt), sc.drop(at);
    if (s) return s;
    if (qrun) sc.drop(qrun), sc.drop(run_start);

    /* Owners: the patch of the smallest incident face. */
    if (!s) s = launch(ctx, E, first_owner, E, (const mmx_index *)ef_off, (const mmx_index *)ef,
                       (const mmx_index *)ps->face_patch, ps->edge_patch, (uint16_t *)nullptr);
    if (!s) s = launch(ctx, V, first_owner, V, (const mmx_index *)vf_off, (const mmx_index *)vf,
                       (const mmx_index *)ps->face_patch, ps->vert_patch, ps->vert_local);

    /* Local faces: per face the patches of its vertices. The first wait reads their total,
     * and their corners', with the patch count. */
    mmx_index *pv = nullptr, *pv_n = nullptr, *fcnt = nullptr, *foff = nullptr, *fcc = nullptr;
    if (!s) s = sc.take((size_t)nnz, &pv);
    if (!s) s = sc.take((size_t)V, &pv_n);
    if (!s) s = sc.take((size_t)F, &fcnt);
    if (!s) s = sc.take((size_t)F + 1, &foff);
    if (!s) s = sc.take((size_t)F, &fcc);
    if (!s) s = launch(ctx, V, vertex_patches, V, (const mmx_index *)vf_off, (const mmx_index *)vf,
                       (const mmx_index *)ps->face_patch, pv, pv_n);
    if (!s) s = launch(ctx, F, face_locals, M, (const mmx_index *)vf_off, (const mmx_index *)pv,
                       (const mmx_index *)pv_n, (const mmx_index *)ps->face_patch,
                       (const mmx_index *)nullptr, fcnt, fcc, (u32 *)nullptr, (mmx_index *)nullptr);
    if (!s) s = mmx__scan_offsets(ctx, fcnt, F, foff);
    if (!s) s = first.sum(fcnt, F, &nlf_slot);
    if (!s) s = first.sum(fcc, F, &nc_slot);
    if (!s) s = mmx__readback_wait(&first.rb);
    if (s) return s;
    if (first.get(fault)) {
        *regroup = true;
        return MMX_OK;
    }
    const mmx_index np = (mmx_index)first.get(np_slot);
    const int64_t nlf = first.get(nlf_slot), nc = first.get(nc_slot);
    ps->npatches = np;
    sc.drop(fcc);
    if (nlf > MMX_INDEX_MAX) return too_many(ctx, "faces", nlf);
    if (nc > MMX_INDEX_MAX) return too_many(ctx, "corners", nc);
    u32 *lkey[2] = {nullptr, nullptr};
    mmx_index *lval[2] = {nullptr, nullptr}, *start2 = nullptr;
    int lcur = 0;
    const int gbits = mmx__bits_for(2 * (long long)np - 1);
    s = sc.take((size_t)nlf, &lkey[0]);
    if (!s) s = sc.take((size_t)nlf, &lkey[1]);
    if (!s) s = sc.take((size_t)nlf, &lval[0]);
    if (!s) s = sc.take((size_t)nlf, &lval[1]);
    if (!s) s = sc.take(2 * (size_t)np + 1, &start2);
    if (!s) s = launch(ctx, F, face_locals, M, (const mmx_index *)vf_off, (const mmx_index *)pv,
                       (const mmx_index *)pv_n, (const mmx_index *)ps->face_patch,
                       (const mmx_index *)foff, fcnt, (mmx_index *)nullptr, lkey[0], lval[0]);
    if (!s) s = mmx__sort_pairs(ctx, lkey, lval, nlf, gbits, &lcur);
    if (s) return s;
    sc.drop(pv), sc.drop(pv_n), sc.drop(fcnt), sc.drop(foff);
    const u32 *fkey = lkey[lcur];
    ps->l2g_f = lval[lcur];
    sc.keep(ps->l2g_f);
    sc.drop(lval[1 - lcur]), sc.drop(lkey[1 - lcur]);
    s = mmx__dev_alloc(ctx, ((size_t)np + 1) * I, (void **)&ps->face_off);
    if (!s) s = mmx__dev_alloc(ctx, ((size_t)np + 1) * I, (void **)&ps->edge_off);
    if (!s) s = mmx__dev_alloc(ctx, ((size_t)np + 1) * I, (void **)&ps->vert_off);
    if (!s) s = mmx__dev_alloc(ctx, ((size_t)np + 1) * I, (void **)&ps->corner_off);
    if (!s) s = mmx__dev_alloc(ctx, 3 * (size_t)np * I, (void **)&ps->owned);
    if (!s) s = launch(ctx, nlf + 1, group_starts<u32, 0>, fkey, (long long)nlf, 2 * (long long)np, start2);
    if (!s) s = launch(ctx, (long long)np + 1, patch_offsets, np, (const mmx_index *)start2, ps->face_off,
                       ps->owned, 0);
    if (!s) s = launch(ctx, nlf, owned_locals<u32, 0>, (long long)nlf, fkey, (const mmx_index *)ps->l2g_f,
                       (const mmx_index *)ps->face_off, ps->face_local);

    /* Corners of the local faces; per corner whether it brings its patch a new edge or
     * vertex (one search pass), the flags scanned; from the scans the statistics, with the
     * refusal and the orientation: the second (and last) wait. */
    mmx_index *ccnt = nullptr, *cpos = nullptr, *eflag = nullptr, *epos = nullptr, *vflag = nullptr,
              *vpos = nullptr;
    if (!s) s = sc.take((size_t)nlf, &ccnt);
    if (!s) s = sc.take((size_t)nlf + 1, &cpos);
    if (!s) s = sc.take((size_t)nc, &eflag);
    if (!s) s = sc.take((size_t)nc + 1, &epos);
    if (!s) s = sc.take((size_t)nc, &vflag);
    if (!s) s = sc.take((size_t)nc + 1, &vpos);
    if (s) return s;
    const local_faces LF = {ps->l2g_f, ps->face_off, ps->owned, ps->face_patch};
    s = launch(ctx, nlf, local_orders, (long long)nlf, M, (const mmx_index *)ps->l2g_f, ccnt);
    if (!s) s = mmx__scan_offsets(ctx, ccnt, nlf, cpos);
    if (!s) s = launch(ctx, (long long)np + 1, corner_offsets, np, (const mmx_index *)ps->face_off,
                       (const mmx_index *)cpos, ps->corner_off);
    if (!s) s = launch(ctx, nlf, corner_firsts, (long long)nlf, M, fe, fkey, LF, (const mmx_index *)ef_off,
                       (const mmx_index *)ef, (const mmx_index *)vf_off, (const mmx_index *)vf,
                       (const mmx_index *)cpos, eflag, vflag);
    if (!s) s = mmx__scan_offsets(ctx, eflag, nc, epos);
    if (!s) s = mmx__scan_offsets(ctx, vflag, nc, vpos);
    readback second;
    int64_t *tot[2] = {nullptr, nullptr};
    build_stats *bs = nullptr;
    if (!s) s = mmx__readback_open(ctx, &second.rb);
    if (!s) s = second.sum(eflag, nc, &tot[0]);
    if (!s) s = second.sum(vflag, nc, &tot[1]);
    if (!s) s = second.slot(&bs);
    if (!s) s = launch(ctx, np, patch_stats, np, (const mmx_index *)ps->face_off, (const mmx_index *)ps->corner_off,
                       (const mmx_index *)epos, (const mmx_index *)vpos, (const mmx_index *)ps->owned, bs);
    if (!s) s = launch(ctx, V, faced_vertices, V, (const mmx_index *)vf_off, bs);
    if (!s) s = launch(ctx, E, inconsistent_edges, E, M, fe, (const mmx_index *)ef_off, (const mmx_index *)ef, bs);
    if (!s) s = mmx__readback_wait(&second.rb);
    if (s) return s;
    const int64_t nle = second.get(tot[0]), nlv = second.get(tot[1]);
    const build_stats h = second.get(bs);
    if (nle > MMX_INDEX_MAX / 2) return too_many(ctx, "edges", nle);
    if (nlv > MMX_INDEX_MAX) return too_many(ctx, "vertices", nlv);
    if (h.bad_patch) {
        /* The refusal's sentence: the patch's sizes and its vertex of largest valence (one
         * more wait, only on this path). */
        const mmx_index p = (mmx_index)(0xffffffffu - h.bad_patch);
        readback third;
        refusal *r = nullptr;
        s = mmx__readback_open(ctx, &third.rb);
        if (!s) s = third.slot(&r);
        if (!s) s = launch(ctx, 1, refused_sizes, p, (const mmx_index *)ps->face_off,
                           (const mmx_index *)ps->corner_off, (const mmx_index *)epos, (const mmx_index *)vpos, r);
        if (!s) s = launch(ctx, nlf, refused_vertex, (long long)nlf, fkey, (const mmx_index *)ps->l2g_f, M,
                           (const mmx_index *)vf_off, p, r);
        if (!s) s = mmx__readback_wait(&third.rb);
        if (s) return s;
        const refusal hr = third.get(r);
        return mmx__patch_refuse(ctx, p, hr.nf, hr.ne, hr.nv, (mmx_index)(0xffffffffu - (u32)hr.best_vertex),
                                 (mmx_index)(hr.best_vertex >> 32));
    }

    /* The local edges and vertices, sorted by (patch, not owned, number). */
    u64 *ek[2] = {nullptr, nullptr}, *vk[2] = {nullptr, nullptr};
    int ecur = 0, vcur = 0;
    s = sc.take((size_t)nle, &ek[0]);
    if (!s) s = sc.take((size_t)nle, &ek[1]);
    if (!s) s = sc.take((size_t)nlv, &vk[0]);
    if (!s) s = sc.take((size_t)nlv, &vk[1]);
    if (!s) s = launch(ctx, nlf, corner_keys, (long long)nlf, M, fe, fkey, (const mmx_index *)ps->l2g_f,
                       (const mmx_index *)cpos, (const mmx_index *)eflag, (const mmx_index *)epos,
                       (const mmx_index *)vflag, (const mmx_index *)vpos, (const mmx_index *)ps->edge_patch,
                       (const mmx_index *)ps->vert_patch, ek[0], vk[0]);
    if (!s && nle) s = sort_keys(ctx, ek, nle, 32 + gbits, &ecur);
    if (!s && nlv) s = sort_keys(ctx, vk, nlv, 32 + gbits, &vcur);
    if (!s) s = mmx__dev_alloc(ctx, (size_t)nle * I, (void **)&ps->l2g_e);
    if (!s) s = mmx__dev_alloc(ctx, (size_t)nlv * I, (void **)&ps->l2g_v);
    if (!s) s = mmx__dev_alloc(ctx, (size_t)nc * 2, (void **)&ps->fe);
    if (!s) s = mmx__dev_alloc(ctx, 2 * (size_t)nle * 2, (void **)&ps->ev);
    if (!s && !ps->order) s = mmx__dev_alloc(ctx, (size_t)nlf * I, (void **)&ps->fstart);
    if (s) return s;
    const u64 *ekey = ek[ecur], *vkey = vk[vcur];
    s = launch(ctx, nle + 1, group_starts<u64, 32>, ekey, (long long)nle, 2 * (long long)np, start2);
    if (!s) s = launch(ctx, (long long)np + 1, patch_offsets, np, (const mmx_index *)start2, ps->edge_off,
                       ps->owned, 1);
    if (!s) s = launch(ctx, nlv + 1, group_starts<u64, 32>, vkey, (long long)nlv, 2 * (long long)np, start2);
    if (!s) s = launch(ctx, (long long)np + 1, patch_offsets, np, (const mmx_index *)start2, ps->vert_off,
                       ps->owned, 2);
    if (!s) s = launch(ctx, nle, low_words, (long long)nle, ekey, ps->l2g_e);
    if (!s) s = launch(ctx, nlv, low_words, (long long)nlv, vkey, ps->l2g_v);
    if (!s) s = launch(ctx, nle, owned_locals<u64, 32>, (long long)nle, ekey, (const mmx_index *)nullptr,
                       (const mmx_index *)ps->edge_off, ps->edge_local);
    if (!s) s = launch(ctx, nlv, owned_locals<u64, 32>, (long long)nlv, vkey, (const mmx_index *)nullptr,
                       (const mmx_index *)ps->vert_off, ps->vert_local);

    /* The blocks. */
    if (!s) s = launch(ctx, nlf, fe_block, (long long)nlf, M, fe, fkey, (const mmx_index *)ps->l2g_f,
                       (const mmx_index *)cpos, (const mmx_index *)ps->corner_off,
                       (const mmx_index *)ps->edge_off, (const mmx_index *)ps->owned,
                       (const mmx_index *)ps->edge_patch, (const mmx_index *)ps->l2g_e, ps->fe, ps->fstart);
    if (!s) s = launch(ctx, nle, ev_block, (long long)nle, ekey, ev, (const mmx_index *)ps->vert_off,
                       (const mmx_index *)ps->owned, (const mmx_index *)ps->vert_patch,
                       (const mmx_index *)ps->l2g_v, ps->ev);

    if (s) return s;
    mmx_patch_stats *ss = &ps->stats;
    ss->min_faces = (mmx_index)(0xffffffffu - h.min_faces_key);
    ss->max_faces = (mmx_index)h.max_faces;
    ss->max_local_faces = (mmx_index)h.max_lf;
    ss->max_local_edges = (mmx_index)h.max_le;
    ss->max_local_verts = (mmx_index)h.max_lv;
    ps->max_corners = (mmx_index)h.max_nc;
    ps->max_scratch = (size_t)h.max_scratch;
    ps->bad_edge = h.bad_edge ? MMX__PATCH_FAULT_EDGE(h.bad_edge) : -1;
    mmx__patch_stats_finish(ps, nlf, nle, nlv, nc, (int64_t)h.owned_v);
    return MMX_OK;
}

extern "C" mmx_status mmx__patch_build_cuda(mmx_ctx *ctx, const mmx_csc *M, const float *pos,
                                            const mmx_index *fe, const mmx_index *ev,
                                            const mmx_index *label, mmx_index nlabels,
                                            mmx_index max_group, mmx_patch_set *ps)
{
    bool regroup = false;
    mmx_status s = build(ctx, M, pos, fe, ev, label, label ? nlabels : 0, max_group, ps, &regroup);
    if (!s && regroup) {
        /* The vouched-for grouped cut failed (a label outside [0, nlabels), or a group beyond
         * the bound): its arrays go, and the sorted cut runs. */
        mmx__patch_set_free_arrays(ps);
        s = build(ctx, M, pos, fe, ev, label, 0, 0, ps, &regroup);
    }
    return s;
}
