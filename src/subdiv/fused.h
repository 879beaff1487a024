/* The fused path of the subdivision: one pass per level that writes every new position and the
 * child topology from a half-edge view carried from level to level in closed form. The level
 * and the rules shared by the schemes are in fused_level.h, each scheme's pass in its own
 * header (fused_cc.h, fused_loop.h, fused_sqrt3.h), the weights in rules.h; fused.c runs the
 * rules as host loops and fused.cu as kernels, with the drivers declared here. */
#ifndef MMX_SUBDIV_FUSED_H
#define MMX_SUBDIV_FUSED_H

#include "fused_cc.h"
#include "fused_loop.h"
#include "fused_sqrt3.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The level's driver and plan (fused.c). */
typedef struct mmx__fz_level {
    mmx_index nv, nf, ne, nnz, order;
    mmx_index maxcol;             /* the longest face (order 0: the input's general faces) */
    mmx_index *colptr, *M;        /* M owned unless `borrowed` (the caller's input) */
    mmx_index *fe, *twin, *owner, *cnt, *goff;
    float *pos;
    int borrowed;
    mmx_boundary boundary;        /* the options' boundary mode, the same at every level */
    const float *vsharp;          /* the input's vertex sharpness (nv0 entries) or NULL: the
                                     caller's, the same at every level */
    mmx_index nv0;
    float *esharp;                /* the level's edge sharpness (ne entries) or NULL for no
                                     creases: the input level borrows the caller's (sharp's),
                                     a child's is its own, written by its parent's pass */
    int chaikin;                  /* the crease method: Chaikin's (1) or uniform (0) */
    int smooth_tris;              /* Catmull-Clark's smooth-triangle rule (the options') */
    mmx_index *eends;             /* the last level of a call that carries creases: the two
                                     ends of each half of an edge (2 ne entries; the inner
                                     edges' are not written), beside esharp */
    int level;                    /* 0 for the input level */
    mmx_index *bcut;              /* sqrt3 with boundary, odd generations: mmx__fz_in.bcut
                                     (owned), else NULL */
    void *block;                  /* a child level's arrays, carved from one allocation (none
                                     for the input level, whose arrays come separately) */
} mmx__fz_level;

/* Frees a level's arrays (not the borrowed ones) and zeroes it. */
void mmx__fz_level_free(mmx_ctx *ctx, mmx__fz_level *L);
/* The pass's read-only view of a level. */
mmx__fz_in mmx__fz_view(mmx_scheme scheme, const mmx__fz_level *L);
/* The input level of a mesh from its adjacency: twins, owners, counts and offsets (the mesh's
 * matrix and positions borrowed or copied, as `source` says). The mesh must have passed the fast
 * checks (mmx__subdiv_prepare); the rest is checked here: every half-edge run by one corner
 * (consistent orientation), every vertex's faces in one fan, and triangles for Loop and sqrt3.
 * When not, it returns MMX_OK with the level freed and *fault naming the first fault (the
 * caller reports it: mmx__subdiv_refuse); fault->kind is MMX__FAULT_NONE otherwise. With
 * fans_ok, vertices of several fans are no fault (the caller made them corners). */
typedef enum mmx__fz_source {
    MMX__FZ_BORROW = 0, /* the level reads the mesh's matrix and positions in place */
    MMX__FZ_COPY = 1    /* the level copies them (a plan outlives the caller's mesh) */
} mmx__fz_source;
mmx_status mmx__fz_input(mmx_ctx *ctx, mmx_scheme scheme, const mmx_mesh *mesh,
                         const mmx_adjacency *adj, mmx__fz_source source, int fans_ok,
                         mmx__fz_level *L, mmx__fault *fault);
/* What of a child level mmx__fz_child_alloc allocates (or together). The last level of a chain
 * gets none: it is written straight into the result mesh's arrays. */
typedef enum mmx__fz_parts {
    MMX__FZ_MATRIX = 1,    /* its mesh matrix (the corners' vertices) */
    MMX__FZ_HALFEDGES = 2, /* fe, twin, owner, cnt and goff: what the next pass reads */
    MMX__FZ_POSITIONS = 4, /* its vertices' positions */
    MMX__FZ_CREASES = 8    /* its edge sharpness and halves' ends (esharp, eends), where a crease
                              is still sharp in it: the refined mesh's crease tags */
} mmx__fz_parts;

/* Allocates the child of P: the parts named (zeroed fields for the others), and with the
 * half-edges the child's edge sharpness where P has creases and emax (the input's largest
 * crease sharpness) says one is still sharp in the child. */
mmx_status mmx__fz_child_alloc(mmx_ctx *ctx, mmx_scheme scheme, const mmx__fz_level *P,
                               unsigned parts, float emax, mmx__fz_level *C);
/* One pass from P to C: whatever C has arrays for (positions only when P has positions), then
 * the scan of C's counts (core/device.h). Queued on the context's stream, no synchronisation. */
mmx_status mmx__fz_pass(mmx_ctx *ctx, mmx_scheme scheme, const mmx__fz_level *P,
                        mmx__fz_level *C);
/* The fused chain on an input that passed mmx__subdiv_prepare (levels >= 1), with `lv` zeroed
 * room for levels + 1 levels: the input level (its mesh copied when `keep`, else borrowed),
 * then each level's pass, queued with no synchronisation between them nor after the last
 * (only a trace's timers wait, to read their times). Without `keep` every
 * level is freed once its child is written; with it the levels stay for re-evaluation. The
 * last level is *out, which owns its matrix and positions (lv[levels] borrows them). trace, if
 * not NULL, gets each level's sizes and time. When the input level's checks find a fault
 * (mmx__fz_input) it returns MMX_OK with *out NULL, nothing refined, and the fault in *fault
 * for the caller to report. `sharp` (the boundary mode, the corners, the creases) must outlive
 * the levels: they read its vertex sharpness, and the input level its edge sharpness. `creases`, if not
 * NULL (a zeroed set), gets the last level's edges that are still sharp, lower end first, in
 * edge order, as host arrays (its crease fields only; the caller frees them): the refined
 * mesh's crease tags. Reading them back waits for the stream, once. */
mmx_status mmx__fz_chain(mmx_ctx *ctx, mmx_scheme scheme, const mmx__subdiv_sharp *sharp,
                         const mmx_mesh *mesh, const mmx_adjacency *adj, int levels, int keep,
                         mmx__fz_level *lv, mmx_subdiv_level *trace, mmx_mesh **out,
                         mmx__fault *fault, mmx_mesh_tags *creases);

/* mmx__fz_chain from an input level made before (mmx__fz_input, kept by the caller: a mesh's
 * cache holds the texture mesh's, uv.c): lv[0] is a struct copy of it, its positions the
 * ones to refine, and it is neither freed nor changed but for the fields the chain sets
 * from `sharp`; lv[1..levels] zeroed. Without keep, no trace and no creases, and no checks
 * (the kept level passed them): queued with no wait. */
mmx_status mmx__fz_chain_from(mmx_ctx *ctx, mmx_scheme scheme, const mmx__subdiv_sharp *sharp,
                              int levels, mmx__fz_level *lv, mmx_mesh **out);

/* mmx__fz_chain for sqrt3 on a mesh with boundary (Kobbelt's rule): the children of such a
 * level are not in closed form, so each level's topology is the algebraic path's
 * (mmx__subdiv_level_algebraic, whose positions are overwritten) and its half-edge view comes
 * from its adjacency (mmx__fz_input, the input's from `adj`); then the fused pass writes the
 * level's positions (fused_sqrt3.h: the centres, an odd generation's cut points from its
 * bcut, the vertices' boundary rule), as a plan's re-evaluation does. Same arguments and
 * result (creases: sqrt3 has none). Synchronises: the algebraic level's waits and one more
 * per level (CUDA: its half-edge view's verdict, an odd generation's boundary faces). */
mmx_status mmx__fz_chain_open(mmx_ctx *ctx, const mmx__subdiv_sharp *sharp, const mmx_mesh *mesh,
                              const mmx_adjacency *adj, int levels, int keep, mmx__fz_level *lv,
                              mmx_subdiv_level *trace, mmx_mesh **out, mmx__fault *fault);

/* The fused chain (mmx__fz_chain) as mmx_subdivide and plans run it: when the input level's
 * only fault is a vertex of several fans (Loop, Catmull-Clark), those vertices become corners
 * (mmx__subdiv_fan_corners) and the chain runs again; other faults are refused
 * (mmx__subdiv_refuse). Not refined, with *algebraic_only set for the caller to decide: a
 * creased mesh with such vertices (their corners made; the fused walks follow one fan, and
 * creases need all of a vertex's edges), and a mesh with an edge that both its faces run the
 * same way (Loop and Catmull-Clark make it sharp; the fused half-edges need an orientation). */
mmx_status mmx__subdiv_fused(mmx_ctx *ctx, mmx_scheme scheme, mmx__subdiv_sharp *sharp,
                             const mmx_mesh *mesh, const mmx_adjacency *adj, int levels, int keep,
                             mmx__fz_level *lv, mmx_subdiv_level *trace, mmx_mesh **out,
                             mmx_mesh_tags *creases, int *algebraic_only);

/* The device halves (fused.cu), declared whatever the build (a build without CUDA links the
 * stubs of nocuda.c, device.h). Everything is queued. */
mmx_status mmx__fz_pass_cuda(mmx_ctx *ctx, mmx__fz_in L, mmx__fz_out O);
/* Loop and sqrt3's input check (each triangle's neighbours distinct) into the half-edge
 * view's fault record, and the input level's counts: queued. */
mmx_status mmx__fz_pairs_cuda(mmx_ctx *ctx, mmx__fz_in L, unsigned long long *fault);
/* The input's n coordinates against MMX_SUBDIV_COORD_MAX, into the same record (kind
 * MMX__FAULT_COORDS, the vertex): queued. */
mmx_status mmx__fz_coords_cuda(mmx_ctx *ctx, const float *pos, int64_t n, unsigned long long *fault);
mmx_status mmx__fz_counts_cuda(mmx_ctx *ctx, mmx__fz_in L, mmx_index *cnt);

#ifdef __cplusplus
}
#endif
#endif
