/* meshmatrix/patch_view.h: one patch's relations, read from its compact blocks in a work space
 * (shared memory in a CUDA block, a buffer on the host), for kernels written outside the
 * library. C11 and CUDA C++ alike: every function here is `static inline` and, under nvcc,
 * __host__ __device__, so a host loop over the patches and a CUDA block per patch run the same
 * code. Most users want meshmatrix/patch_kernel.cuh (CUDA), which manages the work space and
 * the barriers; this header is its C half and the host twin.
 *
 * What a patch offers (patch.h: owned elements first, then the ribbon):
 * - local vertices 0 .. nv, of which 0 .. ov are owned; local edges 0 .. ne (0 .. oe owned);
 *   local faces 0 .. nf (0 .. of owned); each local element's global number;
 * - per owned vertex its VV, VE and VF rows, per owned edge EV and EF, per owned face FV, FE
 *   and FF: the same entries in the same order as mmx_query's rows (query.h), as local
 *   indices and global numbers. The neighbours of an owned element are all local (the ribbon),
 *   so a stencil reads only the patch's local elements.
 *
 * Every owned element belongs to exactly one patch: writing per owned element writes every
 * element of the mesh exactly once, with no race and no atomics; summing over a row in its
 * order gives the same bits on every run and on both backends.
 *
 * The host twin of a patch kernel, a loop over the patches (a host set, a host context):
 *
 *     mmx_patch_blocks b;
 *     mmx_status s = mmx_patch_set_blocks(ctx, ps, MMX_PV_VERTEX_FANS, &b);
 *     void *w = malloc(b.work_bytes);
 *     for (mmx_index p = 0; !s && p < b.npatches; p++) {
 *         mmx_patch_view V;
 *         mmx_pv_build_host(&b, p, w, MMX_PV_VERTEX_FANS, &V);
 *         for (mmx_index v = 0; v < mmx_pv_owned_verts(&V); v++) {
 *             mmx_pv_fan it;
 *             mmx_pv_nbr nb;
 *             for (mmx_pv_fan_begin(&V, v, &it); mmx_pv_fan_next(&V, &it, &nb);)
 *                 ... nb.vert (VV), nb.edge (VE), nb.face >= 0 (VF), local indices ...
 *         }
 *     }
 *     free(w);
 *
 * Layout independence: mmx_patch_blocks and mmx_patch_view are the library's private layout
 * of this version (their fields may change in any release); read them only through the
 * functions below. */
#ifndef MESHMATRIX_PATCH_VIEW_H
#define MESHMATRIX_PATCH_VIEW_H

#include <stddef.h>
#include <stdint.h>
#include "patch.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __CUDACC__
#define MMX_PV_HD __host__ __device__
#else
#define MMX_PV_HD
#endif

/* One increment of a counter shared by a block's threads (integer: the counts, never the
 * order, depend on it); the old value. */
#ifdef __CUDA_ARCH__
#define MMX_PV_INC(p) atomicAdd((p), 1)
#else
#define MMX_PV_INC(p) ((*(p))++)
#endif

/* Which lists a view builds beyond the blocks (mmx_patch_set_blocks, mmx_pv_*): the faces of
 * each local edge (EF, FF); with them the faces of each local vertex by global face (the fans:
 * VV, VE, VF in mmx_query's order); or, instead of both, the stars: each local vertex's faces
 * by local index and each local edge's face count only (VV, VE, VF as multisets, in a fixed
 * order of their own: cheaper to build and to walk, for stencils whose sums need a fixed
 * order but not mmx_query's). FV, FE and EV need no list. */
#define MMX_PV_EDGE_FACES 1
#define MMX_PV_VERTEX_FANS 3
#define MMX_PV_VERTEX_STARS 4
/* Or no lists and no work space at all: the view reads the blocks in place (FV, FE, EV) and,
 * per owned vertex, its VV and VF rows kept with the set (mmx_pv_kept_vv, mmx_pv_kept_vf: the
 * stars' entries, in the stars' order, as 16-bit local indices). The set makes the rows on
 * the first use of this mode and keeps them (about 4 bytes per corner and 8 per vertex more);
 * later launches set up a patch in O(1), which is what a stencil run many times wants. */
#define MMX_PV_KEPT_ROWS 8

/* The set's arrays as a kernel reads them (private fields; see above). */
typedef struct mmx_patch_blocks {
    mmx_space space;
    mmx_index npatches, nverts, nedges, nfaces;
    mmx_index order;   /* the common face order, 0 for mixed orders */
    mmx_index max_faces, max_edges, max_verts, max_corners; /* local counts, each the largest */
    size_t work_bytes; /* mmx_pv_work_bytes of those maxima */
    const mmx_index *face_off, *edge_off, *vert_off, *corner_off, *owned;
    const mmx_index *l2g_f, *l2g_e, *l2g_v, *fstart;
    const uint16_t *fe, *ev;
    /* MMX_PV_KEPT_ROWS: the owned vertices numbered patch by patch (owned_off, npatches + 1),
     * each one's VV and VF rows (offsets by that number, 16-bit local entries); else NULL. */
    const mmx_index *owned_off, *vv_ptr, *vf_ptr;
    const uint16_t *vv, *vf;
} mmx_patch_blocks;

/* Fills *out with ps's arrays (in the set's space: device pointers for a device set), for the
 * views below. `lists` (0, MMX_PV_EDGE_FACES, MMX_PV_VERTEX_FANS, MMX_PV_VERTEX_STARS or
 * MMX_PV_KEPT_ROWS) says what the kernel will walk: fans, stars and kept rows follow the
 * faces' orientation, so for them a set whose mesh has two faces running an edge the same way
 * is refused, as mmx_patch_reduce refuses it. With MMX_PV_KEPT_ROWS work_bytes is 0 (no work
 * space). Errors: MMX_ERR_ARG (NULL, unknown lists), MMX_ERR_SPACE (a set of another space
 * than the context's), MMX_ERR_MESH (inconsistent orientation; the detail names the edge);
 * the first MMX_PV_KEPT_ROWS call: MMX_ERR_NOMEM, MMX_ERR_OVERFLOW, MMX_ERR_CUDA.
 * Cost: O(1), but for the first MMX_PV_KEPT_ROWS call on a set, which makes the rows
 * (O(local corners): four patch kernels on CUDA). Synchronises: no (on CUDA, only to name the
 * edge of a refusal, and twice on the first MMX_PV_KEPT_ROWS call, to size the rows). */
mmx_status mmx_patch_set_blocks(mmx_ctx *ctx, const mmx_patch_set *ps, int lists,
                                mmx_patch_blocks *out);

/* Records a failed launch of a patch kernel on ctx (patch_kernel.cuh calls it): status s and
 * the sentence "patch kernel: <what>". Returns s. */
mmx_status mmx_patch_kernel_fail(mmx_ctx *ctx, mmx_status s, const char *what);

/* One patch's view: sizes, the blocks' copies and the lists built from them (private). */
typedef struct mmx_patch_view {
    mmx_index p;
    mmx_index nf, ne, nv, nc;  /* local faces, edges, vertices, corners */
    mmx_index of, oe, ov;      /* owned faces, edges, vertices (the first of each kind) */
    mmx_index order;
    int lists;                 /* the lists built (MMX_PV_*) */
    const mmx_index *gf, *ge, *gv;
    mmx_index *fs, *cnt, *ef_off, *vf_off; /* stars: ef_off[e] is edge e's face count */
    uint16_t *fe, *ev, *ef, *vf;
    uint32_t *vs;              /* stars: per local vertex its corners, face << 16 | the
                                  corner's place in the face, ascending (over ef and vf) */
    const mmx_index *kvv_ptr, *kvf_ptr; /* kept rows: this patch's owned vertices' offsets */
    const uint16_t *kvv, *kvf;          /* and the entries (MMX_PV_KEPT_ROWS) */
} mmx_patch_view;

/* The work space of a patch of nf faces, ne edges, nv vertices and nc corners, in bytes: a
 * multiple of 16. */
static inline MMX_PV_HD size_t mmx_pv_work_bytes(mmx_index nf, mmx_index ne, mmx_index nv,
                                                 mmx_index nc)
{
    const size_t ints = (size_t)(ne > nv ? ne : nv) + (size_t)ne + 1 + (size_t)nv + 1 + (size_t)nf;
    const size_t shorts = 3 * (size_t)nc + 2 * (size_t)ne;
    /* + 2: the stars' 32-bit list starts on a 4-byte boundary after the blocks. */
    return (4 * ints + 2 * shorts + 2 + 15) / 16 * 16;
}

/* ---- accessors ------------------------------------------------------------------------------ */

static inline MMX_PV_HD mmx_index mmx_pv_patch(const mmx_patch_view *V) { return V->p; }
static inline MMX_PV_HD mmx_index mmx_pv_verts(const mmx_patch_view *V) { return V->nv; }
static inline MMX_PV_HD mmx_index mmx_pv_edges(const mmx_patch_view *V) { return V->ne; }
static inline MMX_PV_HD mmx_index mmx_pv_faces(const mmx_patch_view *V) { return V->nf; }
static inline MMX_PV_HD mmx_index mmx_pv_owned_verts(const mmx_patch_view *V) { return V->ov; }
static inline MMX_PV_HD mmx_index mmx_pv_owned_edges(const mmx_patch_view *V) { return V->oe; }
static inline MMX_PV_HD mmx_index mmx_pv_owned_faces(const mmx_patch_view *V) { return V->of; }
/* Global numbers of local vertex, edge, face l. */
static inline MMX_PV_HD mmx_index mmx_pv_gv(const mmx_patch_view *V, mmx_index l) { return V->gv[l]; }
static inline MMX_PV_HD mmx_index mmx_pv_ge(const mmx_patch_view *V, mmx_index l) { return V->ge[l]; }
static inline MMX_PV_HD mmx_index mmx_pv_gf(const mmx_patch_view *V, mmx_index l) { return V->gf[l]; }

/* Local face l's corners [*a, *a + *n) (corner indices of the view). */
static inline MMX_PV_HD void mmx_pv_face(const mmx_patch_view *V, mmx_index l, mmx_index *a,
                                         mmx_index *n)
{
    if (V->order) {
        *a = V->order * l;
        *n = V->order;
    } else {
        *a = V->fs[l];
        *n = (l + 1 < V->nf ? V->fs[l + 1] : V->nc) - *a;
    }
}

/* Corner c's local edge (from c's vertex to the next corner's) and local vertex. */
static inline MMX_PV_HD mmx_index mmx_pv_corner_edge(const mmx_patch_view *V, mmx_index c)
{
    return V->fe[c] >> 1;
}

static inline MMX_PV_HD mmx_index mmx_pv_corner_vert(const mmx_patch_view *V, mmx_index c)
{
    const uint16_t x = V->fe[c];
    return V->ev[2 * (x >> 1) + (x & 1)];
}

/* Local edge e's end k (0: the smaller global vertex). */
static inline MMX_PV_HD mmx_index mmx_pv_edge_vert(const mmx_patch_view *V, mmx_index e, int k)
{
    return V->ev[2 * e + k];
}

/* Local edge e's number of faces (MMX_PV_EDGE_FACES or MMX_PV_VERTEX_STARS). Complete for an
 * edge of a face at an owned element. */
static inline MMX_PV_HD mmx_index mmx_pv_edge_sides(const mmx_patch_view *V, mmx_index e)
{
    return V->lists & MMX_PV_VERTEX_STARS ? V->ef_off[e] : V->ef_off[e + 1] - V->ef_off[e];
}

/* Local edge e's faces (MMX_PV_EDGE_FACES), ascending by global face: local faces
 * list[0 .. *n). Complete for an edge of a face at an owned element. */
static inline MMX_PV_HD const uint16_t *mmx_pv_edge_faces(const mmx_patch_view *V, mmx_index e,
                                                          mmx_index *n)
{
    *n = V->ef_off[e + 1] - V->ef_off[e];
    return V->ef + V->ef_off[e];
}

/* Local vertex v's faces, ascending by global face (MMX_PV_VERTEX_FANS). */
static inline MMX_PV_HD const uint16_t *mmx_pv_vert_faces(const mmx_patch_view *V, mmx_index v,
                                                          mmx_index *n)
{
    *n = V->vf_off[v + 1] - V->vf_off[v];
    return V->vf + V->vf_off[v];
}

/* ---- building a view: the steps (a barrier between steps on CUDA) ---------------------------- */

/* Sets up V for patch p of b in the work space w (mmx_pv_work_bytes of its sizes, 16-byte
 * aligned). Copies nothing yet. */
static inline MMX_PV_HD void mmx_pv_setup(const mmx_patch_blocks *b, mmx_index p, void *w,
                                          int lists, mmx_patch_view *V)
{
    V->lists = lists;
    const mmx_index f0 = b->face_off[p], e0 = b->edge_off[p], v0 = b->vert_off[p];
    V->p = p;
    V->nf = b->face_off[p + 1] - f0;
    V->ne = b->edge_off[p + 1] - e0;
    V->nv = b->vert_off[p + 1] - v0;
    V->nc = b->corner_off[p + 1] - b->corner_off[p];
    V->of = b->owned[3 * p], V->oe = b->owned[3 * p + 1], V->ov = b->owned[3 * p + 2];
    V->order = b->order;
    V->gf = b->l2g_f + f0, V->ge = b->l2g_e + e0, V->gv = b->l2g_v + v0;
    mmx_index *ip = (mmx_index *)w;
    V->cnt = ip, ip += V->ne > V->nv ? V->ne : V->nv;
    V->ef_off = ip, ip += V->ne + 1;
    V->vf_off = ip, ip += V->nv + 1;
    V->fs = ip, ip += V->nf;
    uint16_t *sp = (uint16_t *)ip;
    V->fe = sp, sp += V->nc;
    V->ev = sp, sp += 2 * V->ne;
    V->ef = sp, sp += V->nc;
    V->vf = sp;
    /* The stars' list takes the room of ef and vf (2 nc shorts), 4-byte aligned. */
    V->vs = (uint32_t *)(void *)(V->ef + ((V->ef - (uint16_t *)w) & 1));
    V->kvv_ptr = V->kvf_ptr = NULL, V->kvv = V->kvf = NULL;
}

/* The load step: items 0 .. mmx_pv_load_items, each copying its share of the blocks. */
static inline MMX_PV_HD mmx_index mmx_pv_load_items(const mmx_patch_view *V)
{
    const mmx_index n = V->nc > 2 * V->ne ? V->nc : 2 * V->ne;
    return n > V->nf ? n : V->nf;
}

static inline MMX_PV_HD void mmx_pv_load(const mmx_patch_blocks *b, mmx_patch_view *V, mmx_index i)
{
    const mmx_index p = V->p;
    if (i < V->nc) V->fe[i] = b->fe[b->corner_off[p] + i];
    if (i < 2 * V->ne) V->ev[i] = b->ev[2 * (size_t)b->edge_off[p] + i];
    if (i < V->nf && !V->order) V->fs[i] = b->fstart[b->face_off[p] + i];
}

/* The list steps, for vert = 0 (edge lists) then vert = 1 (vertex lists), each where
 * mmx_pv_list_wanted: zero the counters (items: mmx_pv_list_len), count per local face, the
 * offsets (a scan of the counters), zero again, fill per local face, sort per element. For
 * the stars, the vertex lists' count step also counts each edge's faces (into ef_off, zeroed
 * with the counters) and there are no edge lists. */
static inline MMX_PV_HD int mmx_pv_list_wanted(const mmx_patch_view *V, int vert)
{
    return vert ? (V->lists & 6) != 0 : (V->lists & 1) != 0;
}

static inline MMX_PV_HD mmx_index mmx_pv_list_len(const mmx_patch_view *V, int vert)
{
    return vert ? V->nv : V->ne;
}

/* Zeroes counter i (items: the larger of the list's length and, for the stars, ne). */
static inline MMX_PV_HD mmx_index mmx_pv_zero_items(const mmx_patch_view *V, int vert)
{
    const mmx_index n = mmx_pv_list_len(V, vert);
    return vert && (V->lists & MMX_PV_VERTEX_STARS) && V->ne > n ? V->ne : n;
}

static inline MMX_PV_HD void mmx_pv_zero(mmx_patch_view *V, int vert, int counting, mmx_index i)
{
    if (i < mmx_pv_list_len(V, vert)) V->cnt[i] = 0;
    if (counting && vert && (V->lists & MMX_PV_VERTEX_STARS) && i < V->ne) V->ef_off[i] = 0;
}

static inline MMX_PV_HD mmx_index mmx_pv_list_key(const mmx_patch_view *V, int vert, mmx_index c)
{
    return vert ? mmx_pv_corner_vert(V, c) : mmx_pv_corner_edge(V, c);
}

static inline MMX_PV_HD void mmx_pv_count_face(mmx_patch_view *V, int vert, mmx_index l)
{
    mmx_index a, n;
    mmx_pv_face(V, l, &a, &n);
    const int sides = vert && (V->lists & MMX_PV_VERTEX_STARS);
    for (mmx_index c = a; c < a + n; c++) {
        MMX_PV_INC(&V->cnt[mmx_pv_list_key(V, vert, c)]);
        if (sides) MMX_PV_INC(&V->ef_off[mmx_pv_corner_edge(V, c)]);
    }
}

static inline MMX_PV_HD void mmx_pv_fill_face(mmx_patch_view *V, int vert, mmx_index l)
{
    mmx_index a, n;
    mmx_pv_face(V, l, &a, &n);
    mmx_index *off = vert ? V->vf_off : V->ef_off;
    uint16_t *list = vert ? V->vf : V->ef;
    const int star = vert && (V->lists & MMX_PV_VERTEX_STARS);
    for (mmx_index c = a; c < a + n; c++) {
        const mmx_index i = mmx_pv_list_key(V, vert, c);
        const mmx_index at = off[i] + MMX_PV_INC(&V->cnt[i]);
        if (star) V->vs[at] = (uint32_t)l << 16 | (uint32_t)(c - a);
        else list[at] = (uint16_t)l;
    }
}

/* Element i's list sorted by global face, or for the stars by local face (threads filled it
 * in any order: sorting makes it one); insertion for short lists, heapsort (no recursion, no
 * memory) for long ones. */
static inline MMX_PV_HD void mmx_pv_sort_list(mmx_patch_view *V, int vert, mmx_index i)
{
    const mmx_index *off = vert ? V->vf_off : V->ef_off;
    if (vert && (V->lists & MMX_PV_VERTEX_STARS)) {
        /* A vertex's corners, by their packed values: by face, then place. */
        uint32_t *a = V->vs + off[i];
        const mmx_index n = off[i + 1] - off[i];
        if (n <= 16) {
            for (mmx_index k = 1; k < n; k++) {
                const uint32_t x = a[k];
                mmx_index j = k;
                for (; j > 0 && a[j - 1] > x; j--) a[j] = a[j - 1];
                a[j] = x;
            }
            return;
        }
        for (mmx_index pass = 0; pass < 2; pass++)
            for (mmx_index t = pass ? n - 1 : n / 2 - 1; pass ? t > 0 : t >= 0; t--) {
                mmx_index r = pass ? 0 : t;
                const mmx_index end = pass ? t : n;
                if (pass) {
                    const uint32_t x = a[0];
                    a[0] = a[t], a[t] = x;
                }
                for (;;) {
                    mmx_index ch = 2 * r + 1;
                    if (ch >= end) break;
                    if (ch + 1 < end && a[ch + 1] > a[ch]) ch++;
                    if (a[r] >= a[ch]) break;
                    const uint32_t x = a[r];
                    a[r] = a[ch], a[ch] = x, r = ch;
                }
            }
        return;
    }
    uint16_t *a = (vert ? V->vf : V->ef) + off[i];
    const mmx_index n = off[i + 1] - off[i];
    const mmx_index *g = V->gf;
    if (n <= 16) {
        for (mmx_index k = 1; k < n; k++) {
            const uint16_t x = a[k];
            const mmx_index kx = g[x];
            mmx_index j = k;
            for (; j > 0 && g[a[j - 1]] > kx; j--) a[j] = a[j - 1];
            a[j] = x;
        }
        return;
    }
    for (mmx_index pass = 0; pass < 2; pass++) {
        /* pass 0 builds a max-heap (sifting from the middle down); pass 1 moves its top to
         * the end, n - 1 times. */
        for (mmx_index t = pass ? n - 1 : n / 2 - 1; pass ? t > 0 : t >= 0; t--) {
            mmx_index r = pass ? 0 : t;
            const mmx_index end = pass ? t : n;
            if (pass) {
                const uint16_t x = a[0];
                a[0] = a[t], a[t] = x;
            }
            for (;;) {
                mmx_index ch = 2 * r + 1;
                if (ch >= end) break;
                if (ch + 1 < end && g[a[ch + 1]] > g[a[ch]]) ch++;
                if (g[a[r]] >= g[a[ch]]) break;
                const uint16_t x = a[r];
                a[r] = a[ch], a[ch] = x, r = ch;
            }
        }
    }
}

/* The host's whole build of patch p's view in w (the steps above in loops). */
static inline void mmx_pv_build_host(const mmx_patch_blocks *b, mmx_index p, void *w, int lists,
                                     mmx_patch_view *V)
{
    mmx_pv_setup(b, p, w, lists, V);
    const mmx_index items = mmx_pv_load_items(V);
    for (mmx_index i = 0; i < items; i++) mmx_pv_load(b, V, i);
    for (int vert = 0; vert < 2; vert++) {
        if (!mmx_pv_list_wanted(V, vert)) continue;
        const mmx_index n = mmx_pv_list_len(V, vert);
        mmx_index *off = vert ? V->vf_off : V->ef_off;
        for (mmx_index i = 0; i < mmx_pv_zero_items(V, vert); i++) mmx_pv_zero(V, vert, 1, i);
        for (mmx_index l = 0; l < V->nf; l++) mmx_pv_count_face(V, vert, l);
        off[0] = 0;
        for (mmx_index i = 0; i < n; i++) off[i + 1] = off[i] + V->cnt[i], V->cnt[i] = 0;
        for (mmx_index l = 0; l < V->nf; l++) mmx_pv_fill_face(V, vert, l);
        for (mmx_index i = 0; i < n; i++) mmx_pv_sort_list(V, vert, i);
    }
}

/* ---- the kept rows (MMX_PV_KEPT_ROWS): no build --------------------------------------------- */

/* Sets up V for patch p of b (from mmx_patch_set_blocks with MMX_PV_KEPT_ROWS) with no work
 * space: the blocks are read where they are (the view's block pointers point into b's arrays,
 * which nothing may write) and the lists are the kept rows. FV, FE, EV and the kept rows are
 * walkable; the lists' functions (edge faces, fans, stars) are not. */
static inline MMX_PV_HD void mmx_pv_setup_kept(const mmx_patch_blocks *b, mmx_index p,
                                               mmx_patch_view *V)
{
    const mmx_index f0 = b->face_off[p], e0 = b->edge_off[p], v0 = b->vert_off[p];
    const mmx_index c0 = b->corner_off[p], r0 = b->owned_off[p];
    V->lists = MMX_PV_KEPT_ROWS;
    V->p = p;
    V->nf = b->face_off[p + 1] - f0;
    V->ne = b->edge_off[p + 1] - e0;
    V->nv = b->vert_off[p + 1] - v0;
    V->nc = b->corner_off[p + 1] - c0;
    V->of = b->owned[3 * p], V->oe = b->owned[3 * p + 1], V->ov = b->owned[3 * p + 2];
    V->order = b->order;
    V->gf = b->l2g_f + f0, V->ge = b->l2g_e + e0, V->gv = b->l2g_v + v0;
    V->cnt = V->ef_off = V->vf_off = NULL;
    V->fs = b->order ? NULL : (mmx_index *)(b->fstart + f0);
    V->fe = (uint16_t *)(b->fe + c0);
    V->ev = (uint16_t *)(b->ev + 2 * (size_t)e0);
    V->ef = V->vf = NULL;
    V->vs = NULL;
    V->kvv_ptr = b->vv_ptr + r0, V->kvf_ptr = b->vf_ptr + r0;
    V->kvv = b->vv, V->kvf = b->vf;
}

/* Owned local vertex v's kept VV row (MMX_PV_KEPT_ROWS): local vertices list[0 .. *n), the
 * star's entries in its order (each edge at v once, as mmx_query's VV row up to order). */
static inline MMX_PV_HD const uint16_t *mmx_pv_kept_vv(const mmx_patch_view *V, mmx_index v,
                                                       mmx_index *n)
{
    const mmx_index a = V->kvv_ptr[v];
    *n = V->kvv_ptr[v + 1] - a;
    return V->kvv + a;
}

/* Owned local vertex v's kept VF row: local faces, the star's faces in its order. */
static inline MMX_PV_HD const uint16_t *mmx_pv_kept_vf(const mmx_patch_view *V, mmx_index v,
                                                       mmx_index *n)
{
    const mmx_index a = V->kvf_ptr[v];
    *n = V->kvf_ptr[v + 1] - a;
    return V->kvf + a;
}

/* ---- the fans of a vertex: VV, VE and VF in mmx_query's order ----------------------------- */

/* One entry of an owned vertex v's fan walk: the face (local; -1 for the closing entry of an
 * open fan), the vertex after v in it (VV's entry: the other end of the edge) and the edge
 * from v to it (VE's entry). VF takes the faces of the entries whose face is not -1; VV and VE
 * take every entry. */
typedef struct mmx_pv_nbr {
    mmx_index face, vert, edge;
} mmx_pv_nbr;

/* The walk's state (private). */
typedef struct mmx_pv_fan {
    mmx_index v, valence, next_i, s, l, walked;
    int multi, state; /* state: 0 walking, 1 the closing entry pending, 2 the fan is over */
    mmx_index tail_v, tail_e;
} mmx_pv_fan;

/* The corner of local vertex v in local face l (its face's corners [*a, *a + *n)). */
static inline MMX_PV_HD mmx_index mmx_pv_corner_of(const mmx_patch_view *V, mmx_index l,
                                                   mmx_index v, mmx_index *a, mmx_index *n)
{
    mmx_pv_face(V, l, a, n);
    for (mmx_index c = *a; c < *a + *n; c++)
        if (mmx_pv_corner_vert(V, c) == v) return c;
    return *a; /* not reached: l is one of v's faces */
}

/* The face after l counter-clockwise around v (v at corner c of l's [a, a + n)): the other
 * face of the edge arriving at v when it has exactly two faces, else -1. */
static inline MMX_PV_HD mmx_index mmx_pv_next_ccw(const mmx_patch_view *V, mmx_index l,
                                                  mmx_index a, mmx_index n, mmx_index c)
{
    const mmx_index e = mmx_pv_corner_edge(V, c == a ? a + n - 1 : c - 1);
    mmx_index k;
    const uint16_t *F = mmx_pv_edge_faces(V, e, &k);
    if (k != 2) return -1;
    return F[0] == l ? F[1] : F[0];
}

/* Whether the fan starting at face l (v at its corner c) is open there: its leaving edge has
 * not exactly two faces. */
static inline MMX_PV_HD int mmx_pv_open_start(const mmx_patch_view *V, mmx_index c)
{
    mmx_index k;
    mmx_pv_edge_faces(V, mmx_pv_corner_edge(V, c), &k);
    return k != 2;
}

/* The faces walked from s around v (at most the valence), and whether the walk came back to s
 * without meeting a face of smaller global number (s starts a closed fan). */
static inline MMX_PV_HD mmx_index mmx_pv_fan_walk(const mmx_patch_view *V, mmx_index v,
                                                  mmx_index s, mmx_index valence, int *closed_min)
{
    mmx_index l = s, walked = 0;
    int back = 0, smaller = 0;
    while (walked < valence) {
        mmx_index a, n;
        const mmx_index c = mmx_pv_corner_of(V, l, v, &a, &n);
        walked++;
        const mmx_index g = mmx_pv_next_ccw(V, l, a, n, c);
        if (g < 0) break;
        if (g == s) {
            back = 1;
            break;
        }
        if (V->gf[g] < V->gf[s]) smaller = 1;
        l = g;
    }
    *closed_min = back && !smaller;
    return walked;
}

/* Starts the walk of owned local vertex v (MMX_PV_VERTEX_FANS). Fans come one after another,
 * by their start faces' global numbers: an open fan starts at the face whose leaving edge is
 * on a boundary (or non-manifold), a closed one at its smallest face; one fan (the common
 * case) is found by one walk. Cost: each face walked is searched for v (O(its corners)), a
 * vertex of several fans walks them again to find their starts (as mmx_patch_query does);
 * the stars below cost O(1) an entry. */
static inline MMX_PV_HD void mmx_pv_fan_begin(const mmx_patch_view *V, mmx_index v, mmx_pv_fan *it)
{
    mmx_index valence;
    const uint16_t *F = mmx_pv_vert_faces(V, v, &valence);
    it->v = v, it->valence = valence, it->next_i = 0, it->walked = 0;
    it->multi = 1, it->state = 2, it->s = it->l = -1, it->tail_v = it->tail_e = -1;
    if (valence == 0) return;
    mmx_index opens = 0, first_open = -1;
    for (mmx_index i = 0; i < valence; i++) {
        mmx_index a, n;
        if (mmx_pv_open_start(V, mmx_pv_corner_of(V, F[i], v, &a, &n)) && opens++ == 0)
            first_open = F[i];
    }
    if (opens <= 1) {
        const mmx_index s = opens ? first_open : F[0];
        int closed;
        if (mmx_pv_fan_walk(V, v, s, valence, &closed) == valence) {
            it->multi = 0, it->s = it->l = s, it->state = 0;
        }
    }
}

/* The next entry of the walk into *nb; 0 when the row is over. */
static inline MMX_PV_HD int mmx_pv_fan_next(const mmx_patch_view *V, mmx_pv_fan *it, mmx_pv_nbr *nb)
{
    mmx_index a, n;
    for (;;) {
        if (it->state == 1) {
            nb->face = -1, nb->vert = it->tail_v, nb->edge = it->tail_e;
            it->state = 2;
            return 1;
        }
        if (it->state == 0) break;
        if (!it->multi) return 0;
        /* The next face of v's list that starts a fan: open there, or a closed fan's
         * smallest face. */
        mmx_index valence;
        const uint16_t *F = mmx_pv_vert_faces(V, it->v, &valence);
        while (it->state == 2 && it->next_i < valence) {
            const mmx_index f = F[it->next_i++];
            int closed = 0;
            const mmx_index c = mmx_pv_corner_of(V, f, it->v, &a, &n);
            if (mmx_pv_open_start(V, c) || (mmx_pv_fan_walk(V, it->v, f, valence, &closed), closed))
                it->s = it->l = f, it->walked = 0, it->state = 0;
        }
        if (it->state == 2) return 0;
    }
    const mmx_index l = it->l, v = it->v;
    const mmx_index c = mmx_pv_corner_of(V, l, v, &a, &n);
    const mmx_index nx = c + 1 == a + n ? a : c + 1;
    nb->face = l, nb->vert = mmx_pv_corner_vert(V, nx), nb->edge = mmx_pv_corner_edge(V, c);
    it->walked++;
    const mmx_index g = mmx_pv_next_ccw(V, l, a, n, c);
    if (g < 0) {
        const mmx_index u = c == a ? a + n - 1 : c - 1;
        it->tail_v = mmx_pv_corner_vert(V, u), it->tail_e = mmx_pv_corner_edge(V, u);
        it->state = 1;
    } else if (g == it->s || it->walked >= it->valence) {
        it->state = 2;
    } else {
        it->l = g;
    }
    return 1;
}

/* ---- the stars of a vertex: VV, VE and VF's entries in a fixed order of their own ---------- */

/* The walk's state (private): entries i .. valence of the vertex's corner list. */
typedef struct mmx_pv_star {
    mmx_index v, i, valence;
    mmx_index tail_v, tail_e;
} mmx_pv_star;

/* Starts the star of owned local vertex v (MMX_PV_VERTEX_STARS): the entries of its fans (the
 * same mmx_pv_nbr, each as often as there), corner by corner of v (its faces by local index),
 * each face's entry followed by the closing entry of an open fan where the face's edge
 * arriving at v has not exactly two faces. A row's sum over these is the sum over mmx_query's
 * row up to the order of the additions. O(1) per entry whatever the faces' sizes. */
static inline MMX_PV_HD void mmx_pv_star_begin(const mmx_patch_view *V, mmx_index v, mmx_pv_star *it)
{
    it->v = v, it->i = V->vf_off[v], it->valence = V->vf_off[v + 1];
    it->tail_v = -1, it->tail_e = -1;
}

static inline MMX_PV_HD int mmx_pv_star_next(const mmx_patch_view *V, mmx_pv_star *it, mmx_pv_nbr *nb)
{
    if (it->tail_v >= 0) {
        nb->face = -1, nb->vert = it->tail_v, nb->edge = it->tail_e;
        it->tail_v = -1;
        return 1;
    }
    if (it->i >= it->valence) return 0;
    mmx_index a, n;
    const uint32_t x = V->vs[it->i++];
    const mmx_index l = (mmx_index)(x >> 16);
    mmx_pv_face(V, l, &a, &n);
    const mmx_index c = a + (mmx_index)(x & 0xffffu);
    const mmx_index nx = c + 1 == a + n ? a : c + 1, u = c == a ? a + n - 1 : c - 1;
    nb->face = l, nb->vert = mmx_pv_corner_vert(V, nx), nb->edge = mmx_pv_corner_edge(V, c);
    if (mmx_pv_edge_sides(V, mmx_pv_corner_edge(V, u)) != 2)
        it->tail_v = mmx_pv_corner_vert(V, u), it->tail_e = mmx_pv_corner_edge(V, u);
    return 1;
}

#ifdef __cplusplus
}
#endif
#endif
