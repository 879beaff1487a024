/* The per-patch steps of the patch queries and reductions, written once for the host loops
 * (patch_query.c, patch_reduce.c: a loop over patches, each step a loop over its items) and
 * the CUDA blocks (patch_query.cu, patch_reduce.cu: one block per patch, each step a strided
 * loop of the block's threads over its items, a barrier between steps).
 *
 * A patch's work space (shared memory on the device, a host buffer on the host) holds copies
 * of its FE and EV blocks and what the steps build from them: per local face its rank in
 * global order (the merge of the owned and the ribbon faces, each ascending), per local edge
 * its local faces (EF) and per local vertex its local faces (VF), each list sorted by rank
 * (so by global face number) in the work space, without reading the global map, so every row
 * comes out in the same order whichever thread filled the lists first. Every face at an owned
 * vertex or on an owned edge shares a vertex with an owned face, so it is local: local counts
 * are the true counts there (an edge's sides, a vertex's valence).
 *
 * The lists take a count, a block scan, a fill and a sort; the queries avoid them where less
 * does. A query's row lengths are counts over the corners (mmx__pl_count_*), so its first pass
 * only counts. The rows need of an edge only its sides and its faces when it has at most two
 * (MMX__PL_EDGE_PAIRS: one step), and of a vertex of one fan only its valence, its open starts
 * and the face its walk starts from (MMX__PL_VERT_STARTS: one step); a patch with an edge of
 * more than two faces (EF, FF) or a vertex of several fans (VV, VE, VF) builds the lists
 * after all. Every mode writes the same rows.
 *
 * The rows are written by one walk per owned element whose every neighbour goes through
 * pl_emit: into a row (queries) or into a sum in float, left to right (reductions), so the
 * reduction adds exactly the row the query writes, in its order. */
#ifndef MMX_PATCH_BLOCK_H
#define MMX_PATCH_BLOCK_H

#include "patch_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One increment of a counter shared by the block's threads; the old value. */
#ifdef __CUDA_ARCH__
#define MMX__PL_INC(p) atomicAdd((p), 1)
#define MMX__PL_ADDU(p, x) atomicAdd((p), (x))
#define MMX__PL_MINU(p, x) atomicMin((p), (x))
#else
#define MMX__PL_INC(p) ((*(p))++)
#define MMX__PL_ADDU(p, x) (*(p) += (x))
#define MMX__PL_MINU(p, x) (*(p) = *(p) < (x) ? *(p) : (x))
#endif

/* One patch's local view: sizes, the blocks, and the incidence built from them. */
typedef struct mmx__plocal {
    mmx_index nf, ne, nv, nc;  /* local faces, edges, vertices, corners */
    mmx_index of, oe, ov;      /* owned faces, edges, vertices (the first of each) */
    mmx_index order;           /* the set's common face order, 0: through fs */
    mmx_index *fs;             /* order 0: nf face starts in the block (work-space copy) */
    uint16_t *fe, *ev;         /* work-space copies of the FE and EV blocks */
    const mmx_index *gf, *ge, *gv; /* the patch's local-to-global maps (work-space copies; the
                                      set's own arrays in the direct view) */
    mmx_index *cnt;            /* max(ne, nv) counters */
    mmx_index *ef_off, *vf_off;/* ne + 1, nv + 1 list offsets */
    uint16_t *ef, *vf;         /* nc entries each: local faces per edge, per vertex */
    uint16_t *rank;            /* nf: each local face's place in global face order */
    int pairs;                 /* edge pairs (MMX__PL_EDGE_PAIRS) instead of edge lists: ef_off[e]
                                  is edge e's sides, ef[2e], ef[2e + 1] its first two faces */
    int starts;                /* vertex starts (MMX__PL_VERT_STARTS) instead of vertex lists:
                                  vf_off[v] (as unsigned) is v's valence | open starts << 16,
                                  cnt[v] (as unsigned) its start key (mmx__pl_start_corners) */
    uint16_t *byrank;          /* nf: the local face of each rank */
} mmx__plocal;

/* What a patch's setup builds (the `needs` of mmx__patch_local_block and its host twin): the
 * edge lists, the vertex lists (each with the ranks they are sorted by), and what it may skip
 * loading: the FE block (with the face starts) or the EV block, for a step that does not read
 * it. 0 loads both blocks and builds no list. */
#define MMX__PL_EDGE_LISTS 1
#define MMX__PL_VERT_LISTS 2
#define MMX__PL_NO_FE 4
#define MMX__PL_NO_EV 8
/* Instead of the edge lists, per local edge its sides and two of its faces (in no particular
 * order): all a fan walk needs (the face across an edge of exactly two sides), built in one
 * step with no scan and no sort. */
#define MMX__PL_EDGE_PAIRS 16
/* With MMX__PL_EDGE_PAIRS: the edge lists instead, for a patch where some local edge has more
 * than two sides (a non-manifold edge, whose faces a pair cannot hold). */
#define MMX__PL_LISTS_IF_MANY 32
/* Instead of the vertex lists (with MMX__PL_EDGE_PAIRS), per local vertex its valence, its open
 * fan starts and the face a walk starts from: enough for a vertex of one fan, in one step with
 * no scan and no sort. A vertex of several fans needs the lists: mmx__pl_row says so, and the
 * caller builds them and writes the patch's rows again. */
#define MMX__PL_VERT_STARTS 64

/* The work space of a patch of nf faces, ne edges, nv vertices and nc corners, in bytes
 * (the int arrays first, then the 16-bit ones; a multiple of 16). It holds copies of the
 * patch's local-to-global maps too: the rows' entries, the ranks and the walks read them many
 * times each, and from global memory each read was a dependent trip to L1 or L2 (Nsight
 * Compute on nef3: the fill kernels latency-bound at 2-8% of DRAM bandwidth; VV 18% faster
 * with the copies, H200). */
static inline MMX__HD size_t mmx__patch_scratch_bytes(mmx_index nf, mmx_index ne, mmx_index nv,
                                                      mmx_index nc)
{
    const size_t ints = (size_t)(ne > nv ? ne : nv) + (size_t)ne + 1 + (size_t)nv + 1 + (size_t)nf +
                        (size_t)nf + (size_t)ne + (size_t)nv;
    const size_t efs = (size_t)(nc > 2 * ne ? nc : 2 * ne); /* the edge lists or pairs */
    const size_t shorts = 2 * (size_t)nc + efs + 2 * (size_t)ne + 2 * (size_t)nf;
    return (4 * ints + 2 * shorts + 31) / 16 * 16;
}

/* Sets up L for patch p of ps with the work space `w` (mmx__patch_scratch_bytes of its sizes,
 * 4-byte aligned). Copies nothing yet (the load step: mmx__pl_load_item_of on the host,
 * mmx__pl_block_load on CUDA); L's maps point at their copies in the work space, which the
 * load fills. */
static inline MMX__HD void mmx__pl_setup(const mmx_patch_set *ps, mmx_index p, void *w,
                                         mmx__plocal *L)
{
    const mmx_index f0 = ps->face_off[p], e0 = ps->edge_off[p], v0 = ps->vert_off[p];
    L->nf = ps->face_off[p + 1] - f0;
    L->ne = ps->edge_off[p + 1] - e0;
    L->nv = ps->vert_off[p + 1] - v0;
    L->nc = ps->corner_off[p + 1] - ps->corner_off[p];
    L->of = ps->owned[3 * p], L->oe = ps->owned[3 * p + 1], L->ov = ps->owned[3 * p + 2];
    L->order = ps->order;
    mmx_index *ip = (mmx_index *)w;
    L->cnt = ip, ip += L->ne > L->nv ? L->ne : L->nv;
    L->ef_off = ip, ip += L->ne + 1;
    L->vf_off = ip, ip += L->nv + 1;
    L->fs = ip, ip += L->nf;
    L->gf = ip, ip += L->nf;
    L->ge = ip, ip += L->ne;
    L->gv = ip, ip += L->nv;
    uint16_t *sp = (uint16_t *)ip;
    L->fe = sp, sp += L->nc;
    L->ev = sp, sp += 2 * L->ne;
    L->ef = sp, sp += L->nc > 2 * L->ne ? L->nc : 2 * L->ne;
    L->vf = sp, sp += L->nc;
    L->rank = sp, sp += L->nf;
    L->byrank = sp;
    L->pairs = L->starts = 0;
}

/* The view of patch p read in place, without a work space: the blocks and the face starts are
 * the set's own arrays (read, never written), and there are no counters and no lists. For
 * the steps that read only the blocks: the rows of EV, FV and FE, and the lengths of FV and FE
 * of mixed orders. */
static inline MMX__HD void mmx__pl_setup_direct(const mmx_patch_set *ps, mmx_index p, mmx__plocal *L)
{
    const mmx_index f0 = ps->face_off[p], e0 = ps->edge_off[p], v0 = ps->vert_off[p];
    L->nf = ps->face_off[p + 1] - f0;
    L->ne = ps->edge_off[p + 1] - e0;
    L->nv = ps->vert_off[p + 1] - v0;
    L->nc = ps->corner_off[p + 1] - ps->corner_off[p];
    L->of = ps->owned[3 * p], L->oe = ps->owned[3 * p + 1], L->ov = ps->owned[3 * p + 2];
    L->order = ps->order;
    L->gf = ps->l2g_f + f0, L->ge = ps->l2g_e + e0, L->gv = ps->l2g_v + v0;
    L->fe = ps->fe + ps->corner_off[p];
    L->ev = ps->ev + 2 * (size_t)e0;
    L->fs = ps->order ? NULL : ps->fstart + f0;
    L->cnt = L->ef_off = L->vf_off = NULL;
    L->ef = L->vf = L->rank = L->byrank = NULL;
    L->pairs = L->starts = 0;
}

/* Whether the rows of `kind` read only the blocks (mmx__pl_setup_direct serves them). */
static inline MMX__HD int mmx__pl_direct(mmx_query_kind kind)
{
    return kind == MMX_QUERY_EV || kind == MMX_QUERY_FV || kind == MMX_QUERY_FE;
}

/* The number of items of the load step: copy item i of the blocks, the face starts and the
 * maps. */
static inline MMX__HD mmx_index mmx__pl_load_items(const mmx__plocal *L)
{
    mmx_index n = L->nc > 2 * L->ne ? L->nc : 2 * L->ne;
    return n > L->nf ? n : L->nf;
}

/* Copies item i of the blocks `needs` does not skip (MMX__PL_NO_FE, MMX__PL_NO_EV), and of the
 * maps. */
static inline MMX__HD void mmx__pl_load_item_of(const mmx_patch_set *ps, mmx_index p,
                                                mmx__plocal *L, mmx_index i, int needs)
{
    const int fe = !(needs & MMX__PL_NO_FE), ev = !(needs & MMX__PL_NO_EV);
    if (fe && i < L->nc) L->fe[i] = ps->fe[ps->corner_off[p] + i];
    if (ev && i < 2 * L->ne) L->ev[i] = ps->ev[2 * (size_t)ps->edge_off[p] + i];
    if (fe && i < L->nf && !L->order) L->fs[i] = ps->fstart[ps->face_off[p] + i];
    if (i < L->nf) ((mmx_index *)L->gf)[i] = ps->l2g_f[ps->face_off[p] + i];
    if (i < L->ne) ((mmx_index *)L->ge)[i] = ps->l2g_e[ps->edge_off[p] + i];
    if (i < L->nv) ((mmx_index *)L->gv)[i] = ps->l2g_v[ps->vert_off[p] + i];
}

/* The rank of local face l in global order: its place in its own run (owned faces first,
 * then the ribbon, each ascending) plus the faces of the other run with a smaller global
 * number, by a binary search of that run. One item per local face. */
static inline MMX__HD void mmx__pl_rank_face(mmx__plocal *L, mmx_index l)
{
    const int owned = l < L->of;
    mmx_index lo = owned ? L->of : 0, hi = owned ? L->nf : L->of;
    const mmx_index base = lo, g = L->gf[l];
    while (lo < hi) { /* the first face of the other run above g (numbers are distinct) */
        const mmx_index mid = lo + (hi - lo) / 2;
        if (L->gf[mid] < g) lo = mid + 1;
        else hi = mid;
    }
    const mmx_index r = (owned ? l : l - L->of) + (lo - base);
    L->rank[l] = (uint16_t)r;
    L->byrank[r] = (uint16_t)l;
}

/* Local face l's corners: [*a, *a + *n) of the block. */
static inline MMX__HD void mmx__pl_face(const mmx__plocal *L, mmx_index l, mmx_index *a,
                                        mmx_index *n)
{
    if (L->order) {
        *a = L->order * l;
        *n = L->order;
    } else {
        *a = L->fs[l];
        *n = (l + 1 < L->nf ? L->fs[l + 1] : L->nc) - *a;
    }
}

/* The local vertex a corner leaves from: its edge's end the direction bit names. */
static inline MMX__HD mmx_index mmx__pl_cv(const mmx__plocal *L, mmx_index c)
{
    const uint16_t x = L->fe[c];
    return L->ev[2 * (x >> 1) + (x & 1)];
}

/* Counting and filling the lists, one local face per item. `vf` picks the vertex lists
 * (else the edge lists). Counters are zeroed before counting and before filling. */
static inline MMX__HD void mmx__pl_count_face(mmx__plocal *L, mmx_index l, int vf)
{
    mmx_index a, n;
    mmx__pl_face(L, l, &a, &n);
    for (mmx_index c = a; c < a + n; c++)
        MMX__PL_INC(&L->cnt[vf ? mmx__pl_cv(L, c) : (mmx_index)(L->fe[c] >> 1)]);
}

static inline MMX__HD void mmx__pl_fill_face(mmx__plocal *L, mmx_index l, int vf)
{
    mmx_index a, n;
    mmx__pl_face(L, l, &a, &n);
    for (mmx_index c = a; c < a + n; c++) {
        const mmx_index i = vf ? mmx__pl_cv(L, c) : (mmx_index)(L->fe[c] >> 1);
        const mmx_index at = (vf ? L->vf_off : L->ef_off)[i] + MMX__PL_INC(&L->cnt[i]);
        (vf ? L->vf : L->ef)[at] = (uint16_t)l;
    }
}

/* Sorts the local faces a[0 .. n) by their ranks (gf: the rank of each local face, a key in
 * the work space): insertion for short lists, heapsort (no recursion, no extra memory) for
 * long ones. */
static inline MMX__HD void mmx__pl_sort(uint16_t *a, mmx_index n, const uint16_t *gf)
{
    if (n <= 16) {
        for (mmx_index i = 1; i < n; i++) {
            const uint16_t x = a[i];
            mmx_index j = i;
            for (; j > 0 && gf[a[j - 1]] > gf[x]; j--) a[j] = a[j - 1];
            a[j] = x;
        }
        return;
    }
    /* Build a max-heap, then pop its top to the end n - 1 times. */
    for (mmx_index s = n / 2 - 1; s >= 0; s--) {
        mmx_index r = s;
        for (;;) {
            mmx_index ch = 2 * r + 1;
            if (ch >= n) break;
            if (ch + 1 < n && gf[a[ch + 1]] > gf[a[ch]]) ch++;
            if (gf[a[r]] >= gf[a[ch]]) break;
            const uint16_t t = a[r];
            a[r] = a[ch], a[ch] = t, r = ch;
        }
    }
    for (mmx_index end = n - 1; end > 0; end--) {
        const uint16_t t = a[0];
        a[0] = a[end], a[end] = t;
        mmx_index r = 0;
        for (;;) {
            mmx_index ch = 2 * r + 1;
            if (ch >= end) break;
            if (ch + 1 < end && gf[a[ch + 1]] > gf[a[ch]]) ch++;
            if (gf[a[r]] >= gf[a[ch]]) break;
            const uint16_t u = a[r];
            a[r] = a[ch], a[ch] = u, r = ch;
        }
    }
}

/* The sides of local edge e (its local faces: all of them, for an edge of a local face at an
 * owned element) and the valence of local vertex v. */
static inline MMX__HD mmx_index mmx__pl_sides(const mmx__plocal *L, mmx_index e)
{
    return L->pairs ? L->ef_off[e] : L->ef_off[e + 1] - L->ef_off[e];
}

/* Per local face l: its corners' edges counted into ef_off and, for the first two faces met
 * on an edge, the face put in its pair (the pairs' step; counters zeroed first). */
static inline MMX__HD void mmx__pl_pair_face(mmx__plocal *L, mmx_index l)
{
    mmx_index a, n;
    mmx__pl_face(L, l, &a, &n);
    for (mmx_index c = a; c < a + n; c++) {
        const mmx_index e = L->fe[c] >> 1, slot = MMX__PL_INC(&L->ef_off[e]);
        if (slot < 2) L->ef[2 * e + slot] = (uint16_t)l;
    }
}

/* ---- rows ---------------------------------------------------------------------------------- */

/* Where a row's entries go: into out (when not NULL; at most cap of them, so that a row
 * pointer that does not fit the set, given to mmx_patch_query_run, cannot make a row run over
 * its room) and into the float sum acc of x's rows (when x is not NULL), in order. n counts
 * the entries. */
typedef struct mmx__psink {
    mmx_index *out;
    mmx_index n, cap;
    const float *x;
    int k;
    float acc[4];
} mmx__psink;

/* The sink of a query's row for global element g: at rowptr[g] with the row's room, or, in the
 * reduced form (rowptr NULL), at order * g with room for order entries. */
static inline MMX__HD mmx__psink mmx__pl_row_sink(mmx_index *colidx, const mmx_index *rowptr,
                                                  mmx_index order, mmx_index g)
{
    mmx__psink s = {colidx, 0, order, NULL, 0, {0, 0, 0, 0}};
    if (rowptr) s.out += rowptr[g], s.cap = rowptr[g + 1] - rowptr[g];
    else s.out += (int64_t)order * g;
    return s;
}

/* The sink of a reduction's sum of x's rows (k components), with no row written. */
static inline MMX__HD mmx__psink mmx__pl_sum_sink(const float *x, int k)
{
    mmx__psink s = {NULL, 0, 0, x, k, {0, 0, 0, 0}};
    return s;
}

static inline MMX__HD void mmx__pl_emit(mmx__psink *s, mmx_index g)
{
    if (s->out && s->n < s->cap) s->out[s->n] = g;
    s->n++;
    if (s->x)
        for (int c = 0; c < 4; c++) /* a fixed trip count: acc stays in registers on CUDA */
            if (c < s->k) s->acc[c] += s->x[(size_t)g * (size_t)s->k + (size_t)c];
}

/* The corner of local vertex v in local face l, its face's corners in [*a, *a + *n). */
static inline MMX__HD mmx_index mmx__pl_corner_of(const mmx__plocal *L, mmx_index l, mmx_index v,
                                                  mmx_index *a, mmx_index *n)
{
    mmx__pl_face(L, l, a, n);
    for (mmx_index c = *a; c < *a + *n; c++)
        if (mmx__pl_cv(L, c) == v) return c;
    return *a; /* not reached: l is one of v's faces */
}

/* Per local face l, after the pairs: at each corner's vertex v, one more face, one more open
 * start when the corner's leaving edge has not exactly two sides, and the start key
 * (closed << 16 | rank) kept at its smallest: the smallest open start, or with none the
 * smallest face (the walk's start in mmx__pl_vertex_row). Counters zeroed and keys set to
 * 0xffffffff first. */
static inline MMX__HD void mmx__pl_start_corners(mmx__plocal *L, mmx_index l)
{
    mmx_index a, n;
    mmx__pl_face(L, l, &a, &n);
    for (mmx_index c = a; c < a + n; c++) {
        /* As the lists count it: once per corner, open or not by v's first corner in l. */
        const mmx_index v = mmx__pl_cv(L, c);
        mmx_index a0, n0;
        const mmx_index c0 = mmx__pl_corner_of(L, l, v, &a0, &n0);
        const unsigned closed = mmx__pl_sides(L, L->fe[c0] >> 1) == 2;
        MMX__PL_ADDU((unsigned *)&L->vf_off[v], closed ? 1u : 0x10001u);
        MMX__PL_MINU((unsigned *)&L->cnt[v], closed << 16 | L->rank[l]);
    }
}

static inline MMX__HD mmx_index mmx__pl_prev(mmx_index a, mmx_index n, mmx_index c)
{
    return c == a ? a + n - 1 : c - 1;
}

static inline MMX__HD mmx_index mmx__pl_next(mmx_index a, mmx_index n, mmx_index c)
{
    return c + 1 == a + n ? a : c + 1;
}

/* The next face counter-clockwise around v from face l (v at its corner c of [a, a + n)):
 * the other face of the arriving edge {u, v} when that edge has exactly two faces, else -1. */
static inline MMX__HD mmx_index mmx__pl_next_ccw(const mmx__plocal *L, mmx_index l, mmx_index a,
                                                 mmx_index n, mmx_index c)
{
    const mmx_index e = L->fe[mmx__pl_prev(a, n, c)] >> 1;
    if (mmx__pl_sides(L, e) != 2) return -1;
    const mmx_index at = L->pairs ? 2 * e : L->ef_off[e], g = L->ef[at];
    return g == l ? L->ef[at + 1] : g;
}

/* Whether face l at v starts an open fan: its leaving edge {v, w} has not exactly two faces. */
static inline MMX__HD int mmx__pl_open_start(const mmx__plocal *L, mmx_index c)
{
    return mmx__pl_sides(L, L->fe[c] >> 1) != 2;
}

/* Whether face s (not an open start) starts a closed fan of v: the walk from it comes back to
 * it without meeting a face of a smaller number or an open end. */
static inline MMX__HD int mmx__pl_closed_start(const mmx__plocal *L, mmx_index v, mmx_index s,
                                               mmx_index valence)
{
    mmx_index l = s;
    for (mmx_index step = 0; step < valence; step++) {
        mmx_index a, n;
        const mmx_index c = mmx__pl_corner_of(L, l, v, &a, &n);
        const mmx_index g = mmx__pl_next_ccw(L, l, a, n, c);
        if (g < 0 || L->rank[g] < L->rank[s]) return 0;
        if (g == s) return 1;
        l = g;
    }
    return 0; /* a corrupt cycle: not reached on an oriented fan */
}

/* One fan of v from its start face s: VF the faces, VV the vertices after v (and, open, the
 * one before v in the last face), VE the edges to them. Returns the faces walked. */
static inline MMX__HD mmx_index mmx__pl_fan(const mmx__plocal *L, mmx_query_kind kind,
                                            mmx_index v, mmx_index s, mmx_index valence,
                                            mmx__psink *sink)
{
    mmx_index l = s, walked = 0;
    while (walked < valence) {
        mmx_index a, n;
        const mmx_index c = mmx__pl_corner_of(L, l, v, &a, &n);
        if (kind == MMX_QUERY_VF) mmx__pl_emit(sink, L->gf[l]);
        else if (kind == MMX_QUERY_VV) mmx__pl_emit(sink, L->gv[mmx__pl_cv(L, mmx__pl_next(a, n, c))]);
        else mmx__pl_emit(sink, L->ge[L->fe[c] >> 1]);
        walked++;
        const mmx_index g = mmx__pl_next_ccw(L, l, a, n, c);
        if (g < 0) {
            const mmx_index u = mmx__pl_prev(a, n, c);
            if (kind == MMX_QUERY_VV) mmx__pl_emit(sink, L->gv[mmx__pl_cv(L, u)]);
            else if (kind == MMX_QUERY_VE) mmx__pl_emit(sink, L->ge[L->fe[u] >> 1]);
            break;
        }
        if (g == s) break;
        l = g;
    }
    return walked;
}

/* The row of owned local vertex v for VV, VE or VF: fan after fan, by their start faces'
 * numbers (v's face list is ascending). One fan (the common case) is found in one walk. */
static inline MMX__HD int mmx__pl_vertex_row(const mmx__plocal *L, mmx_query_kind kind,
                                             mmx_index v, mmx__psink *sink)
{
    if (L->starts) { /* one fan, or the lists are needed (returns 0) */
        const unsigned packed = ((const unsigned *)L->vf_off)[v];
        const mmx_index valence = (mmx_index)(packed & 0xffffu), opens = (mmx_index)(packed >> 16);
        if (valence == 0) return 1;
        if (opens > 1) return 0;
        const mmx__psink before = *sink;
        const mmx_index s = L->byrank[((const unsigned *)L->cnt)[v] & 0xffffu];
        if (mmx__pl_fan(L, kind, v, s, valence, sink) == valence) return 1;
        *sink = before;
        return 0;
    }
    const uint16_t *F = L->vf + L->vf_off[v];
    const mmx_index valence = L->vf_off[v + 1] - L->vf_off[v];
    mmx_index opens = 0, first_open = -1;
    for (mmx_index i = 0; i < valence; i++) {
        mmx_index a, n;
        if (mmx__pl_open_start(L, mmx__pl_corner_of(L, F[i], v, &a, &n))) {
            if (opens++ == 0) first_open = F[i];
        }
    }
    if (valence == 0) return 1;
    if (opens <= 1) {
        /* One open start, or none: if the walk from it (from the smallest face when closed)
         * meets every face, that is the only fan, written as it is walked. If not, the sink
         * goes back to where it was and the fans below write the row over it: the row's
         * length is fixed and a reduction's sum starts again from the same value. */
        const mmx__psink before = *sink;
        const mmx_index s = opens ? first_open : F[0];
        if (mmx__pl_fan(L, kind, v, s, valence, sink) == valence) return 1;
        *sink = before;
    }
    for (mmx_index i = 0; i < valence; i++) {
        mmx_index a, n;
        const mmx_index c = mmx__pl_corner_of(L, F[i], v, &a, &n);
        if (mmx__pl_open_start(L, c) || mmx__pl_closed_start(L, v, F[i], valence))
            mmx__pl_fan(L, kind, v, F[i], valence, sink);
    }
    return 1;
}

/* The row of owned element i (local index) of query `kind`'s source kind, into the sink.
 * Returns 1; or 0, the sink as it was, for a vertex row in starts mode (L->starts) that the
 * starts cannot write (a vertex of several fans): the caller builds the vertex lists
 * (mmx__pl_block_lists, mmx__pl_host_lists) and writes the patch's rows again. */
static inline MMX__HD int mmx__pl_row(const mmx__plocal *L, mmx_query_kind kind, mmx_index i,
                                       mmx__psink *sink)
{
    mmx_index a, n;
    switch (kind) {
    case MMX_QUERY_VV:
    case MMX_QUERY_VE:
    case MMX_QUERY_VF:
        return mmx__pl_vertex_row(L, kind, i, sink);
    case MMX_QUERY_EV:
        mmx__pl_emit(sink, L->gv[L->ev[2 * i]]);
        mmx__pl_emit(sink, L->gv[L->ev[2 * i + 1]]);
        break;
    case MMX_QUERY_EF:
        if (L->pairs) { /* one or two faces (no edge of more here), by rank */
            mmx_index f0 = L->ef[2 * i], f1 = L->ef[2 * i + 1];
            if (L->ef_off[i] == 2 && L->rank[f1] < L->rank[f0]) f0 = f1, f1 = L->ef[2 * i];
            mmx__pl_emit(sink, L->gf[f0]);
            if (L->ef_off[i] == 2) mmx__pl_emit(sink, L->gf[f1]);
            break;
        }
        for (mmx_index j = L->ef_off[i]; j < L->ef_off[i + 1]; j++) mmx__pl_emit(sink, L->gf[L->ef[j]]);
        break;
    case MMX_QUERY_FV:
    case MMX_QUERY_FE:
        mmx__pl_face(L, i, &a, &n);
        for (mmx_index c = a; c < a + n; c++)
            mmx__pl_emit(sink, kind == MMX_QUERY_FV ? L->gv[mmx__pl_cv(L, c)] : L->ge[L->fe[c] >> 1]);
        break;
    default: /* FF */
        mmx__pl_face(L, i, &a, &n);
        for (mmx_index c = a; c < a + n; c++) {
            const mmx_index e = L->fe[c] >> 1;
            if (L->pairs) { /* at most two faces, i among them: the other one, if any */
                for (mmx_index t = 0; t < L->ef_off[e]; t++)
                    if (L->ef[2 * e + t] != i) mmx__pl_emit(sink, L->gf[L->ef[2 * e + t]]);
                continue;
            }
            for (mmx_index j = L->ef_off[e]; j < L->ef_off[e + 1]; j++)
                if (L->ef[j] != i) mmx__pl_emit(sink, L->gf[L->ef[j]]);
        }
        break;
    }
    return 1;
}

/* What a query's rows need (MMX__PL_*): the lists they walk and the blocks they read. */
static inline MMX__HD int mmx__pl_needs(mmx_query_kind kind)
{
    switch (kind) {
    case MMX_QUERY_VV:
    case MMX_QUERY_VE:
    case MMX_QUERY_VF:
        return MMX__PL_EDGE_PAIRS | MMX__PL_VERT_STARTS;
    case MMX_QUERY_EF:
    case MMX_QUERY_FF:
        return MMX__PL_EDGE_PAIRS | MMX__PL_LISTS_IF_MANY | MMX__PL_NO_EV;
    case MMX_QUERY_EV:
        return MMX__PL_NO_FE;
    case MMX_QUERY_FE:
        return MMX__PL_NO_EV;
    default: /* FV */
        return 0;
    }
}

/* ---- row lengths by counting ----------------------------------------------------------------
 * The first pass of a query of rows of several lengths (EF, FF, VV, VE, VF; FV and FE of mixed
 * orders) counts instead of building lists: per local edge its sides (corners on it) into
 * ef_off[e], then for the vertex queries per local vertex its valence, plus for VV and VE one
 * per corner whose leaving edge has not exactly two sides (an open fan's start), into
 * vf_off[v]. Counters are zeroed first; increments are atomic on CUDA (integers: the same
 * sums in any order). What it loads and counts: mmx__pl_len_needs. */
static inline MMX__HD int mmx__pl_len_needs(mmx_query_kind kind)
{
    switch (kind) {
    case MMX_QUERY_VF:
        return MMX__PL_VERT_LISTS; /* counts only; both blocks */
    case MMX_QUERY_VV:
    case MMX_QUERY_VE:
        return MMX__PL_EDGE_LISTS | MMX__PL_VERT_LISTS;
    case MMX_QUERY_EF:
    case MMX_QUERY_FF:
        return MMX__PL_EDGE_LISTS | MMX__PL_NO_EV;
    default: /* FV, FE of mixed orders: the face starts */
        return MMX__PL_NO_EV;
    }
}

/* Per local face l: its corners' edges counted (step 1). */
static inline MMX__HD void mmx__pl_count_sides(mmx__plocal *L, mmx_index l)
{
    mmx_index a, n;
    mmx__pl_face(L, l, &a, &n);
    for (mmx_index c = a; c < a + n; c++) MMX__PL_INC(&L->ef_off[L->fe[c] >> 1]);
}

/* Per local face l: its corners' vertices counted (step 2, after step 1 for VV and VE). */
static inline MMX__HD void mmx__pl_count_corners(mmx__plocal *L, mmx_query_kind kind, mmx_index l)
{
    mmx_index a, n;
    mmx__pl_face(L, l, &a, &n);
    for (mmx_index c = a; c < a + n; c++) {
        mmx_index *at = &L->vf_off[mmx__pl_cv(L, c)];
        MMX__PL_INC(at);
        if (kind != MMX_QUERY_VF && L->ef_off[L->fe[c] >> 1] != 2) MMX__PL_INC(at);
    }
}

/* The length of owned element i's row from those counts. */
static inline MMX__HD mmx_index mmx__pl_counted_len(const mmx__plocal *L, mmx_query_kind kind,
                                                    mmx_index i)
{
    mmx_index a, n, len = 0;
    switch (kind) {
    case MMX_QUERY_VV:
    case MMX_QUERY_VE:
    case MMX_QUERY_VF:
        return L->vf_off[i];
    case MMX_QUERY_EV:
        return 2;
    case MMX_QUERY_EF:
        return L->ef_off[i];
    case MMX_QUERY_FV:
    case MMX_QUERY_FE:
        mmx__pl_face(L, i, &a, &n);
        return n;
    default:
        mmx__pl_face(L, i, &a, &n);
        for (mmx_index c = a; c < a + n; c++) len += L->ef_off[L->fe[c] >> 1] - 1;
        return len;
    }
}

/* The owned elements of the query's source kind, and their global numbers. */
static inline MMX__HD mmx_index mmx__pl_sources(const mmx__plocal *L, mmx_query_kind kind)
{
    return kind <= MMX_QUERY_VF ? L->ov : kind <= MMX_QUERY_EF ? L->oe : L->of;
}

static inline MMX__HD mmx_index mmx__pl_global(const mmx__plocal *L, mmx_query_kind kind,
                                               mmx_index i)
{
    return kind <= MMX_QUERY_VF ? L->gv[i] : kind <= MMX_QUERY_EF ? L->ge[i] : L->gf[i];
}

/* The host's setup of patch p in the work space w: the view, the blocks' copies and the lists
 * or pairs `needs` asks for (MMX__PL_*; mmx__pl_needs), built by the steps above in loops
 * (patch_query.c), as mmx__patch_local_block does on CUDA. */
void mmx__patch_local_host(const mmx_patch_set *ps, mmx_index p, void *w, int needs,
                           mmx__plocal *L);

/* Builds the vertex lists (vf 1) or the edge lists (vf 0) of a view set up on the host, and
 * leaves starts or pairs mode for them. */
void mmx__pl_host_lists(mmx__plocal *L, int vf);

#ifdef __cplusplus
}
#endif
#endif
