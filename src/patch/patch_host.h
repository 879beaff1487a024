/* Private declarations of the host build (patch_build.c) for the incremental update
 * (patch_incr.c): the steps of the cut and of a patch's local sets, so that the update
 * rebuilds a dirty patch with the very code the full build runs (and gets the same bytes).
 * Host only: no CUDA file includes this. */
#ifndef MMX_PATCH_HOST_H
#define MMX_PATCH_HOST_H

#include "patch_internal.h"

/* A growable host array of `size`-byte items. */
typedef struct mmx__pgrow {
    void *p;
    size_t n, cap, size;
} mmx__pgrow;

/* Makes room for n items. Errors: MMX_ERR_OVERFLOW, MMX_ERR_NOMEM. */
mmx_status mmx__pgrow_to(mmx_ctx *ctx, mmx__pgrow *g, size_t n);

/* What a patch's local sets are built from (mmx__patch_locals): the mesh matrix and its
 * adjacency's fe and ev, the faces at each vertex (vf_off, vf: ascending), the set being
 * built (its face, edge and vertex owners set; face_local, edge_local and vert_local may be
 * NULL: not written), marks of the last patch that took each face, edge and vertex (-1 at
 * first), the local indices of one patch's edges and vertices, and the lists the set's arrays
 * grow in. */
typedef struct mmx__pbuild {
    mmx_ctx *ctx;
    const mmx_csc *M;
    const mmx_index *fe, *ev;
    const mmx_index *vf_off, *vf;
    mmx_patch_set *ps;
    mmx_index *mark_f, *mark_e, *mark_v; /* the last patch that took the element */
    mmx_index *loc_e, *loc_v;            /* its local index there */
    mmx__pgrow lf, le, lv, fst, fe16, ev16;
    mmx_index *tmp_e, *tmp_v;            /* the non-owned edges and vertices of one patch */
} mmx__pbuild;

/* Appends patch p, owning the faces own[0 .. nown) (ascending), to the lists: its local
 * faces, edges and vertices (owned, then the ribbon, each ascending), its blocks, its owned
 * counts, its offsets (face_off[p + 1] ...), and the maxima and extremes in ps->stats.
 * Errors: MMX_ERR_MESH (beyond 16-bit local indices), MMX_ERR_OVERFLOW, MMX_ERR_NOMEM. */
mmx_status mmx__patch_locals(mmx__pbuild *B, mmx_index p, const mmx_index *own, mmx_index nown);

/* Offsets (n + 1) and lists of the faces of each edge (fe given: from fe) or each vertex (fe
 * NULL: M's rows), in ascending face order, malloc'd. Cost O(nnz). Errors: MMX_ERR_NOMEM. */
mmx_status mmx__patch_incidence(mmx_ctx *ctx, const mmx_csc *M, const mmx_index *fe, mmx_index n,
                                mmx_index **off_out, mmx_index **list_out);

/* The smallest edge with exactly two face entries whose faces run it the same way, or -1
 * (ps->bad_edge). */
mmx_index mmx__patch_first_inconsistent(const mmx_csc *M, const mmx_index *fe,
                                        const mmx_index *ef_off, const mmx_index *ef, mmx_index E);

/* Face f's centroid as the cut computes it (corner sums in double, divided by the order;
 * zeros without positions), and the box of every face's centroid (lo, hi; zeros for no
 * faces), and a centroid's Morton code in that box: the cut's keys. */
void mmx__patch_centroid(const mmx_csc *M, const float *pos, mmx_index f, double c[3]);
void mmx__patch_centroid_box(const mmx_csc *M, const float *pos, double lo[3], double hi[3]);
uint64_t mmx__patch_morton(const double c[3], const double lo[3], const double hi[3]);

/* The update without a full cut (patch_incr.c): ps (host) becomes the set of host mesh M
 * (positions pos, the adjacency's fe, ev and nedges of M) that mmx_patch_set_follow gives for
 * label[f] = old face_patch[origin[f]] (origin NULL: f itself; origins already checked), the
 * same bytes, by rebuilding only the dirty patches (patch.h, mmx_patch_set_update) and
 * remapping the others' global numbers. *done = 0, ps untouched, where the round is not one
 * the scheme can follow (patch.h says when); the caller then runs the full cut.
 * bad_ends are left for the caller. Errors: as mmx__patch_build_host. */
mmx_status mmx__patch_update_host(mmx_ctx *ctx, mmx_patch_set *ps, const mmx_csc *M,
                                  const float *pos, const mmx_index *fe, const mmx_index *ev,
                                  mmx_index nedges, const mmx_index *origin, int *done);

#endif
