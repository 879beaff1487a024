/* Private declarations of the patch module (include/meshmatrix/patch.h): the patch set's
 * layout, the host build that both backends share, and the per-patch steps (patch_block.h)
 * that the host loops and the CUDA blocks both run.
 *
 * Layout. Patches are numbered 0 .. npatches - 1. Patch p's local faces are the entries
 * [face_off[p], face_off[p + 1]) of l2g_f (owned first, in ascending global number, then the
 * ribbon, ascending); its local edges and vertices likewise in l2g_e / l2g_v through edge_off
 * and vert_off (owned ascending, then the rest ascending). Its FE block is the corners
 * [corner_off[p], corner_off[p + 1]) of fe, local face by local face in corner order, each
 * local edge << 1 | d (d as in mmx_adjacency's fe: 0 when the face runs the edge from its
 * smaller global vertex); a polygon mesh's local face l starts at corner fstart[face_off[p] + l]
 * of the block (relative to corner_off[p]; the last face ends at the block's end), a mesh of
 * one face order c needs no fstart (face l starts at c * l). Its EV block is the entries
 * [2 edge_off[p], 2 edge_off[p + 1]) of ev: per local edge its two local vertices, the smaller
 * global vertex first. owned[3p .. 3p + 2] are its owned faces, edges and vertices. Per face
 * the owning patch (face_patch). The builds also make, per edge and vertex, the owning patch,
 * and per face, edge and vertex the local index in its owner (vertices in no face: -1 and
 * 0xffff), which they need to number the blocks; mmx_patch_set_create frees these once the set
 * is built (a query reads none of them, and each is an inverse of the maps' owned parts), so
 * a built set holds them NULL. */
#ifndef MMX_PATCH_INTERNAL_H
#define MMX_PATCH_INTERNAL_H

#include "core/core_internal.h"
#include "meshmatrix/patch.h"
#include "core/hd.h"
#include "spla/spla_internal.h" /* mmx__csc_col */

#ifdef __cplusplus
extern "C" {
#endif

/* 16-bit local indices: faces and vertices up to 65535 per patch; edges up to 32768, since a
 * corner stores its local edge shifted left by one to make room for the direction bit. */
#define MMX__PATCH_MAX_LOCAL 65535
#define MMX__PATCH_MAX_LOCAL_EDGES 32768

struct mmx_patch_set {
    mmx_ctx *ctx;
    mmx_space space;
    mmx_index nverts, nfaces, nedges, npatches;
    mmx_index order;       /* the common face order, 0 for mixed orders (or no faces) */
    mmx_index max_faces;   /* S */
    mmx_index *face_off, *edge_off, *vert_off, *corner_off; /* npatches + 1 each */
    mmx_index *owned;      /* 3 * npatches */
    mmx_index *l2g_f, *l2g_e, *l2g_v; /* face_off[np], edge_off[np], vert_off[np] */
    mmx_index *fstart;     /* face_off[np], relative to the patch's block; NULL when order > 0 */
    uint16_t *fe;          /* corner_off[np] */
    uint16_t *ev;          /* 2 * edge_off[np] */
    mmx_index *face_patch;                             /* owners of the faces */
    mmx_index *edge_patch, *vert_patch;                /* build-time: owners; NULL once built */
    uint16_t *face_local, *edge_local, *vert_local;    /* build-time: local index in the owner */
    /* Host fields, set at build time. */
    mmx_patch_stats stats;
    mmx_index max_corners; /* the largest patch's local corners */
    size_t max_scratch;    /* the largest patch's work space (mmx__patch_scratch_bytes) */
    int64_t nlf, nle, nlv, nlc; /* local faces, edges, vertices, corners over all patches */
    mmx_index bad_edge;    /* the smallest edge two faces run the same way (the test of
                              mmx__pl_inconsistent), -1 when the mesh is consistently oriented:
                              mmx_patch_reduce refuses VV and VF on such a set */
    mmx_index bad_ends[2]; /* that edge's ends, smaller first (for the refusals' sentence) */
    /* Kept stencil rows (mmx__patch_rows), made on first use and freed with the arrays:
     * owned_off (npatches + 1) numbers the owned vertices patch by patch (patch p's owned
     * local vertex v is row owned_off[p] + v); rows_ptr holds VV's row offsets, then VF's
     * (nverts + 1 each: the rows, then the total repeated), rows_idx[k] kind k's local
     * indices. Topology only: an update of the set makes a new set without them. */
    mmx_index *owned_off, *rows_ptr;
    uint16_t *rows_idx[2];
};

/* ---- kept stencil rows (patch_rows.c, patch_rows.cu) ---- */

/* What a kept row lists for an owned vertex, in the order of its star (patch_view.h,
 * mmx_pv_star_begin): every entry's local vertex (VV, with the closing vertex of each open
 * fan), or the local face of every entry that has one (VF). Sums over these rows are the sums
 * of the star walk, term for term, so a stencil that reads them gives the bits of one that
 * walks the star. */
typedef enum mmx__patch_row_kind { MMX__ROWS_VV = 0, MMX__ROWS_VF = 1 } mmx__patch_row_kind;

/* Makes the set's kept rows, both kinds from one walk of each star, where it has none
 * (owned_off, rows_ptr, rows_idx in the set's space; the set is a cache for them, hence the
 * cast of const: nothing a query reads changes). Built with MMX_PV_VERTEX_STARS's checks: a set
 * whose faces are not consistently oriented is refused as mmx_patch_set_blocks refuses it.
 * Cost: the first call O(local corners) and two patch kernels on CUDA; later calls O(1).
 * Synchronises: on CUDA, once on the first call (the VV entries' total, which bounds VF's too).
 * Errors: as mmx_patch_set_blocks, MMX_ERR_NOMEM, MMX_ERR_OVERFLOW, MMX_ERR_CUDA. */
mmx_status mmx__patch_rows(mmx_ctx *ctx, const mmx_patch_set *ps);

/* The CUDA halves (patch_rows.cu), queued: each patch's owned-vertex count into cnt[p]; each
 * owned vertex's row lengths into len[k][owned_off[p] + v] (ptr NULL), or its rows into
 * idx[k] at ptr[k] (len NULL). */
mmx_status mmx__patch_owned_counts_cuda(mmx_ctx *ctx, const mmx_patch_set *ps, mmx_index *cnt);
mmx_status mmx__patch_rows_fill_cuda(mmx_ctx *ctx, const mmx_patch_set *ps, const mmx_index *owned_off,
                                     mmx_index *const ptr[2], mmx_index *const len[2],
                                     uint16_t *const idx[2]);

/* The cut with labels (mmx_patch_set_follow). The faces in cut order (Morton) are sorted
 * stably by label; a label's faces (a group) make one run when there are at most
 * mmx__patch_follow_bound(S) of them, else runs of S in that order; runs are numbered in that
 * order (by label, then along the curve) and each is split into its components as without
 * labels. The bound is twice S, as the paper lets a patch grow to twice its size, capped at
 * MMX_PATCH_MAX_FACES (a run must fit one CUDA block of the build and a patch's work space):
 * 1.5 S for the default S. Both builds decide the runs with these two functions. */
static inline MMX__HD mmx_index mmx__patch_follow_bound(mmx_index S)
{
    return 2 * S < MMX_PATCH_MAX_FACES ? 2 * S : MMX_PATCH_MAX_FACES;
}

/* Whether position i of the labelled order starts a run, its label's group being the
 * positions [g0, g1). */
static inline MMX__HD int mmx__patch_run_head(mmx_index i, mmx_index g0, mmx_index g1, mmx_index S)
{
    if (i == g0) return 1;
    return g1 - g0 > mmx__patch_follow_bound(S) && (i - g0) % S == 0;
}

/* The refusal of a negative label (face f's), one sentence for both builds: MMX_ERR_ARG. */
mmx_status mmx__patch_bad_label(mmx_ctx *ctx, mmx_index f, mmx_index label);

/* Builds the set's arrays on the host from host arrays: the mesh matrix M (either form), the
 * positions (NULL: no geometry, faces cut in number order), the adjacency's fe, ev and
 * nedges, and label (NULL: the plain cut; else one label >= 0 per face, the cut with labels
 * above; a negative one is refused with mmx__patch_bad_label, the smallest such face). ps has ctx, nverts, nfaces, nedges, order and max_faces set; its arrays are
 * allocated here in host memory (malloc), the stats and maxima filled. On error the arrays
 * made so far are left for the caller to free (mmx__patch_set_free_arrays).
 * Errors: MMX_ERR_MESH (a patch beyond 16-bit local indices: the detail names the patch and
 * its vertex of largest valence), MMX_ERR_OVERFLOW, MMX_ERR_NOMEM. */
mmx_status mmx__patch_build_host(mmx_ctx *ctx, const mmx_csc *M, const float *pos,
                                 const mmx_index *fe, const mmx_index *ev, const mmx_index *label,
                                 mmx_patch_set *ps);

/* The same build on the device (patch_build.cu), from device arrays: M (either form), the
 * positions (NULL: faces cut in number order), the adjacency's fe and ev, label (NULL or one
 * per face); ps set up as for mmx__patch_build_host. nlabels > 0 says the labels are likely
 * in [0, nlabels) with at most mmx__patch_follow_bound(S) faces each (an update's labels, the
 * old owners): the cut then takes each label's faces as its run without sorting (the same
 * arrays), after a wait that checks the range and the largest group (sorting where they
 * fail), or without it where max_group, the caller's bound on the groups' sizes (0: none),
 * is within the bound; a vouched-for guess that turns out false is found later and the build
 * runs again with the sorts. Gives arrays bit for bit equal to the host build's, in device
 * memory from the context's pool (ps->space = MMX_SPACE_DEVICE), the host fields filled, and
 * the same refusal (the same sentence) where the host refuses. Synchronises twice, to read
 * sizes: the patch count with the local faces and corners, then the local edges and vertices
 * with the statistics; with labels once more before them (nlabels 0: the run count and the
 * check of the labels; nlabels > 0 without max_group: the check of the groups, then one more
 * if they fail it); with a vouched-for guess that fails, five; one more to name a refused
 * patch's vertex.
 * Errors: as mmx__patch_build_host, and MMX_ERR_CUDA. On error the arrays made so far are left
 * for the caller to free (mmx__patch_set_free_arrays). */
mmx_status mmx__patch_build_cuda(mmx_ctx *ctx, const mmx_csc *M, const float *pos,
                                 const mmx_index *fe, const mmx_index *ev, const mmx_index *label,
                                 mmx_index nlabels, mmx_index max_group, mmx_patch_set *ps);

/* mmx_patch_set_follow with the hints nlabels and max_group of mmx__patch_build_cuda (0:
 * none; the host build takes none): the same set, the same errors, fewer waits on CUDA where
 * the hints hold. For the update, whose labels are the old owners (nlabels: the old patch
 * count). */
mmx_status mmx__patch_set_follow_hint(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_index *face_label,
                                      mmx_index nlabels, mmx_index max_group,
                                      const mmx_adjacency *adj, const mmx_patch_options *opts,
                                      mmx_patch_set **out);

/* The refusal of patch p (nf, ne, nv local faces, edges, vertices) beyond 16-bit local
 * indices, naming its vertex v of largest valence (faces at it; ties: the smaller vertex):
 * MMX_ERR_MESH with one sentence for both builds. */
mmx_status mmx__patch_refuse(mmx_ctx *ctx, mmx_index p, mmx_index nf, mmx_index ne, mmx_index nv,
                             mmx_index v, mmx_index valence);

/* The statistics that follow from the totals (nlf, nle, nlv local faces, edges, vertices and
 * nc local corners over all patches; owned_v owned vertices) and ps's sizes: npatches,
 * mean_faces, ribbon_faces and its share, the bytes of the set (without the build-time
 * arrays) and of its topology, per face; the totals into ps->nlf .. nlc. The per-patch
 * extremes are the caller's. */
void mmx__patch_stats_finish(mmx_patch_set *ps, int64_t nlf, int64_t nle, int64_t nlv, int64_t nc,
                             int64_t owned_v);

/* The refusal of vertex query or reduction `kind` on a set whose faces are not consistently
 * oriented (ps->bad_edge >= 0): MMX_ERR_MESH naming the edge and its ends, `what` ("patch
 * query", "patch reduce") first. */
mmx_status mmx__patch_refuse_orientation(mmx_ctx *ctx, const mmx_patch_set *ps, const char *what,
                                         mmx_query_kind kind);

/* The bytes a patch query of each kind must read at least (bytes[k] for mmx_query_kind k), the
 * floor's read side (bench/queries.c adds the result's bytes): the whole FE block (2 bytes per
 * local corner, every patch) when the query's source or target is a face or a vertex (FV, FE,
 * FF, EF, VV, VE, VF: the faces and the fans are read from it); the whole EV block (4 bytes per
 * local edge) when the source or target is an edge or a vertex (EV, VV, VE and, for the fans'
 * edge ends, VF; FE and EF read edges through FE alone and need no EV); the local-to-global map
 * of the target kind (4 bytes per local element of that kind) and of the source kind's owned
 * elements (4 bytes each: the rows' global numbers; the whole map where source and target are
 * the same kind); per patch the offsets it reads (face, edge, vertex and corner offsets and
 * the owned counts: 7 indices, 28 bytes), and fstart (4 bytes per local face) for a mesh of
 * mixed orders. Owners, local indices of owners and the host fields are not counted: a query
 * does not read them. Host arithmetic on the stored totals; no wait. */
void mmx__patch_floor_bytes(const mmx_patch_set *ps, double bytes[MMX_QUERY_COUNT]);

/* Gives the set's arrays back to the memory of its space (ps->ctx) and clears the pointers. */
void mmx__patch_set_free_arrays(mmx_patch_set *ps);

/* The read-back key of an inconsistent edge e (0 stands for none) and back (the CUDA build's
 * record of the smallest one). */
#define MMX__PATCH_FAULT(e) (0xffffffffu - (unsigned int)(e))
#define MMX__PATCH_FAULT_EDGE(key) ((mmx_index)(0xffffffffu - (key)))

/* The CUDA halves of the queries and reductions (patch_query.cu, patch_reduce.cu): the same
 * per-patch code as the host loops, one block per patch. Arrays in device memory, queued.
 * mmx__patch_query_fill_cuda writes row r at rowptr[r], or at order * r when rowptr is NULL
 * (the reduced form). mmx__patch_query_lengths_cuda writes each owned element's row length
 * into len (zeroed by the caller: rows of vertices in no face stay zero), counted without
 * lists. */
mmx_status mmx__patch_query_lengths_cuda(mmx_ctx *ctx, const mmx_patch_set *ps,
                                         mmx_query_kind kind, mmx_index *len);
mmx_status mmx__patch_query_fill_cuda(mmx_ctx *ctx, const mmx_patch_set *ps, mmx_query_kind kind,
                                      const mmx_index *rowptr, mmx_index order, mmx_index *colidx);
mmx_status mmx__patch_reduce_cuda(mmx_ctx *ctx, const mmx_patch_set *ps, mmx_query_kind kind,
                                  const float *x, int k, float *y);

#ifdef __cplusplus
}
#endif
#endif
