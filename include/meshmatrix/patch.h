/* meshmatrix/patch.h: the patch set (RXMesh's patches with ribbons) and the queries and
 * neighbourhood reductions computed on it.
 *
 * The faces are cut into connected patches of at most S faces. Each patch holds, in 16-bit
 * local indices, its FE block (per local face its local edges in corner order, with a
 * direction bit: 0 when the face runs the edge from its smaller global vertex) and its EV block
 * (per local edge its two local vertices, the smaller global vertex first); its owned faces,
 * edges and vertices are numbered before its ribbon ones. The ribbon is every face that shares
 * a vertex with an owned face, with its edges and vertices, so that a first-order query of an
 * owned element never leaves the patch. Every face, edge and vertex (in a face) is owned by
 * exactly one patch: a face by the patch it was cut into, an edge and a vertex by the patch
 * that owns their incident face of smallest number. Local-to-global maps give each local
 * element's global number (edges numbered as mmx_adjacency numbers them).
 *
 * The cut is deterministic: faces are ordered along a space-filling (Morton) curve through
 * their centroids (ties by face number), cut into runs of S faces, and each run split into its
 * connected components (faces joined across an edge). The same mesh gives the same patches on
 * the host and on CUDA and from run to run. mmx_patch_set_follow cuts the same way but keeps
 * a given grouping of the faces (the patches before a round of edits), so patches grow, shrink
 * and are re-cut as edits accumulate.
 *
 * One CUDA block works on one patch at a time (patch queries, reductions); the host backend runs the
 * same per-patch code in a loop. The CSC mesh matrix stays the exchange form. */
#ifndef MESHMATRIX_PATCH_H
#define MESHMATRIX_PATCH_H

#include "query.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mmx_patch_set mmx_patch_set;

/* The default and the largest number of faces in a patch. */
#define MMX_PATCH_DEFAULT_FACES 512
#define MMX_PATCH_MAX_FACES 768

typedef struct mmx_patch_options {
    int max_faces; /* S: 0 for MMX_PATCH_DEFAULT_FACES; 1 .. MMX_PATCH_MAX_FACES */
} mmx_patch_options;

/* What a patch set is like (mmx_patch_set_stats; `mmx info --patches`). */
typedef struct mmx_patch_stats {
    mmx_index npatches;
    mmx_index min_faces, max_faces; /* owned faces of the smallest and the largest patch */
    double mean_faces;              /* owned faces per patch */
    int64_t ribbon_faces;           /* ribbon faces over all patches */
    double ribbon_share;            /* ribbon faces / (owned + ribbon faces), over all patches */
    mmx_index max_local_verts, max_local_edges, max_local_faces; /* the largest patch's local counts */
    int64_t bytes;                  /* all the set holds (below) */
    double bytes_per_face;          /* bytes / the mesh's faces */
    int64_t topology_bytes;         /* its topology, counted as RXMesh counts its own (below) */
    double topology_bytes_per_face; /* topology_bytes / the mesh's faces */
    /* Since the set was built (mmx_patch_set_create / _follow), what mmx_patch_set_update
     * did, summed over its calls: the calls, those done incrementally (the others ran the
     * whole cut), the patches the set had before each call, and of those the ones rebuilt
     * (dirty; every patch, for a whole cut). update_dirty / update_patches is the share of
     * the set a round rebuilt. */
    int64_t updates, updates_incremental, update_patches, update_dirty;
} mmx_patch_stats;

/* What the two counts hold. `bytes`: every array the set keeps, in its space: per patch its
 * face, edge, vertex and corner offsets and its owned counts (7 indices of 4 bytes); the FE
 * block (2 bytes a local corner) and the EV block (4 bytes a local edge), and for a mesh of
 * mixed face orders a face start per local face (4 bytes); the local-to-global maps (4 bytes
 * per local face, edge and vertex, owned and ribbon); the face owners (4 bytes a face). The
 * arrays the build makes on the way (edge and vertex owners, local indices in the owners) are
 * freed with it and not counted; nor is the work space a query takes while it runs.
 * `topology_bytes`: what RXMesh counts as its topology memory (RXMesh::get_topology_memory_mg
 * in its public code: per patch its FE and EV blocks, counts, owned and active bitmasks, its
 * stash of neighbour patches, and per ribbon element a hash-table entry naming its owner):
 * here the per-patch offsets and counts, the blocks and face starts, and the maps' ribbon
 * entries (4 bytes per ribbon face, edge and vertex: what names a ribbon element). Left out,
 * as RXMesh has no counterpart for them: the maps' owned entries, which give the rows in the
 * mesh's own numbering (RXMesh names an owned element by its patch and local index and keeps
 * no map: its linear ids are a per-patch prefix plus a local rank), and the face owners
 * (RXMesh keeps its on the host). */

/* Builds the patch set of `mesh` on the context's backend (mesh in the context's space).
 * `adj` may be NULL (computed and freed here) or the mesh's adjacency, only read. `opts` may
 * be NULL (defaults). Any mesh the library reads is taken (polygons, several components,
 * isolated vertices, non-manifold edges and vertices) unless a patch's local elements
 * would not fit 16-bit indices, which is refused naming the patch and its largest vertex.
 * Errors: MMX_ERR_ARG (options), MMX_ERR_SPACE, MMX_ERR_MESH (a patch too large for 16-bit
 * local indices: a vertex of very high valence), MMX_ERR_NOMEM, MMX_ERR_CUDA.
 * Cost: a sort of the faces, O(nnz) per pass otherwise. Synchronises: on CUDA, twice, to read
 * sizes (the patch count with the local faces; the local edges, vertices and corners with the
 * statistics), and once more to name the vertex of a refused patch. */
mmx_status mmx_patch_set_create(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_adjacency *adj,
                                const mmx_patch_options *opts, mmx_patch_set **out);

/* Builds the patch set of `mesh` as mmx_patch_set_create does, but keeping a grouping of the
 * faces given by face_label (one label >= 0 per face, in the context's space): the patches
 * follow dynamic edits. Typically label[f] = the patch, in the set before a round of the
 * cavity operator, of f's origin face (mmx_cavity_face_origin composed with
 * mmx_patch_set_face_patch), so that a patch keeps its faces and takes the faces cut from
 * them. The faces of one label stay in one run as long as there are at most min(2 S,
 * MMX_PATCH_MAX_FACES) of them: a patch grows past S up to that bound (the paper's patches may
 * grow to twice their size; here the bound is 1.5 S for the default S, since a patch's local
 * indices and work space are sized for MMX_PATCH_MAX_FACES); a larger group is re-cut into
 * runs of S along the Morton curve (its faces in curve order). Each run is then split into its
 * edge-connected components as in the plain cut, so a patch that edits shrank or split apart
 * is valid again; labels without faces vanish. Patches are numbered by (label, run within the
 * label, smallest face of the component): the same arrays on the host and on CUDA, every query
 * and reduction as on a set from mmx_patch_set_create. The labels only choose the grouping:
 * any values >= 0 are taken (their range is not bounded by the number of patches).
 * Errors: as mmx_patch_set_create, and MMX_ERR_ARG (NULL face_label for a mesh with faces, a
 * negative label: the detail names the smallest such face). Cost: as mmx_patch_set_create,
 * plus a stable sort of the faces by label. Synchronises: on CUDA, to read sizes (once more
 * than mmx_patch_set_create: the run count and the check of the labels). */
mmx_status mmx_patch_set_follow(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_index *face_label,
                                const mmx_adjacency *adj, const mmx_patch_options *opts,
                                mmx_patch_set **out);

/* Keeps a patch set current through one round of edits, in place: ps, the set of a round's
 * input mesh, becomes the set of `mesh`, the round's output, that mmx_patch_set_follow gives
 * for the labels label[f] = (ps's face_patch)[origin[f]], with ps's S. origin[0 .. nfaces of
 * mesh) is the input face each output face comes from (host memory on either backend:
 * mmx_cavity_face_origin, mmx_cavity_user_face_origin), or NULL for a round that keeps every
 * face id (flips, moves; the face and vertex counts must be ps's). So only the patches the
 * round touched change: a patch none of whose faces was removed, cut or added keeps its faces
 * (its number may shift, as patches are numbered by label); a touched patch takes the faces
 * cut from its own, is re-cut along the Morton curve past the bound (min(2 S,
 * MMX_PATCH_MAX_FACES) faces) and split into its connected pieces; a patch that shrank stays
 * as it is (patches are never merged; a label whose faces are all gone vanishes). The
 * result's arrays are those of mmx_patch_set_follow for these labels, so the same bytes on
 * the host and on CUDA, every query and reduction as on a fresh set. ps stays the same
 * handle; on an error it is left as it was (the input's set). `adj` may be NULL (on the
 * host the mesh's cached adjacency, computed and cached if it has none; on CUDA computed
 * here) or the adjacency of `mesh`, only read.
 *
 * The invariants the result holds (those of every set): every face, edge and vertex in a
 * face owned by exactly one patch (an edge or vertex by the owner of its face of smallest
 * number); each patch's ribbon complete (every face at a vertex of an owned face, with its
 * edges and vertices); local lists owned first, each part ascending; 16-bit local indices
 * at most 65535 (32768 local edges); owned faces per patch at most min(2 S, MMX_PATCH_MAX_FACES); each
 * patch edge-connected.
 *
 * On the host the update is incremental. A patch is dirty when one of its local faces (owned
 * or ribbon) was removed, cut, changed or had its corners' vertices merged, or when a face
 * the round made or changed has a vertex of one of its owned faces. Only dirty patches are
 * cut again and rebuilt. The others are copied, their blocks (16-bit local indices) as they
 * were, and only their global numbers remapped: a round renumbers by keeping survivors in
 * their order (faces and vertices: kept in place or compacted; edges: numbered by their ends,
 * so kept in order by a monotone vertex map), so old -> new is a monotone map, read from the
 * unchanged faces' corners and applied to the stored ids in O(stored ids); a monotone map
 * keeps every list ascending and every edge's direction bit and smaller end, so the blocks
 * need no change. The vertex map is taken to be the identity when the round did not lower
 * the vertex count (flips, splits, face splits, user cavities), and read from the unchanged
 * faces when it did (collapses, vertex removals: two old vertices onto one new one mark a
 * merge, whose faces are dirty). A patch whose remapped lists would not stay ascending is
 * dirty too, and a round whose faces give no consistent map at all (not one of the library's
 * rounds) gets the whole cut: the result is the same either way. stats.updates_incremental
 * and stats.update_dirty (mmx_patch_set_stats) count what each call did.
 * On CUDA the whole cut with the labels runs on the device (every patch rebuilt), but as the
 * labels are the old owners, each label's faces are taken as one run by counting, without
 * the sorts of the faces along the curve and by label and without the wait for the run count,
 * where no label's faces outgrew the bound (else the cut sorts, as mmx_patch_set_follow's).
 *
 * Errors: MMX_ERR_ARG (NULL ps or mesh, origin NULL with another face or vertex count, an
 * origin outside [0, ps's nfaces): the detail names the face; an adjacency not the mesh's),
 * MMX_ERR_SPACE (ps or mesh not in the context's space), and those of mmx_patch_set_follow.
 * Cost: on the host, O(nnz) passes (the labels, the maps, the owners, the vertex incidence:
 * no sort of the faces), O(stored ids) for the kept patches, and per dirty patch a build of
 * its own (a sort of its group when it exceeds the bound, its ribbon's sort); on CUDA, the
 * labels O(nfaces), then a build of every patch as mmx_patch_set_follow's (a sort by label,
 * O(nnz) per pass; plus, with an origin, a copy of the old owners to the host and of the
 * labels back).
 * Synchronises: on the host, no; on CUDA twice to read sizes (mmx_patch_set_create's two
 * waits) where no label's faces outgrew the bound, three times where one did
 * (mmx_patch_set_follow's), and with an origin also the copy of the owners to the host (the
 * labels' groups are counted there). */
mmx_status mmx_patch_set_update(mmx_ctx *ctx, mmx_patch_set *ps, const mmx_mesh *mesh,
                                const mmx_index *origin, const mmx_adjacency *adj);

/* Copies each face's patch (the patch that owns it, face_patch[f] in 0 .. npatches - 1) into
 * out[0 .. nfaces), an array in the context's space. Errors: MMX_ERR_ARG (NULL),
 * MMX_ERR_SPACE (a set of another space), MMX_ERR_CUDA. Synchronises: no (a device-to-device
 * copy, queued). */
mmx_status mmx_patch_set_face_patch(mmx_ctx *ctx, const mmx_patch_set *ps, mmx_index *out);

/* Frees a patch set (its arrays go back to its context's memory); NULL is accepted. */
void mmx_patch_set_free(mmx_patch_set *ps);

/* Fills *st. Synchronises: no (the statistics are kept on the host when the set is built). */
mmx_status mmx_patch_set_stats(mmx_ctx *ctx, const mmx_patch_set *ps, mmx_patch_stats *st);

/* Query `kind` computed on the patches (one block per patch) from their FE and EV blocks,
 * into a new matrix *out in the context's space: the same arrays as mmx_query (query.h) gives
 * for the mesh the set was built from. Nothing answer-sized is kept between calls: a query of
 * rows of one length (EV; FV and FE of one face order) is one pass; the others count their
 * row lengths from the blocks, scan them, then write the rows, each patch building in its
 * shared memory what it walks: per edge its sides and a pair of faces, per vertex its
 * valence, open fan starts and the face its walk starts from (the sorted face lists of the
 * edges, or of the vertices, only in a patch with an edge of more than two faces, or a vertex
 * of several fans). VV, VE and VF are refused on a mesh whose faces are not
 * consistently oriented (recorded when the set was built), before any work.
 * Errors: as mmx_query. Synchronises: on CUDA, once, to read the result's size (not for the
 * queries of rows of one length). */
mmx_status mmx_patch_query(mmx_ctx *ctx, const mmx_patch_set *ps, mmx_query_kind kind,
                           mmx_csr **out);

/* Computes query `kind` on the patches again into `out`, a result of that query for the set's
 * mesh made before (by mmx_patch_query, mmx_query or mmx_query_plan_alloc): its row pointers
 * are read, its entries written, the same arrays as mmx_patch_query gives. No allocation, no
 * count pass: on CUDA the one kernel of the rows (what RXMesh's query kernels with
 * preallocated output, and mmx_query_plan_run, are timed as). The result's sizes and form are
 * checked; row pointers that do not fit the mesh (another mesh of the same sizes) give
 * undefined entries, never a write outside a row.
 * Errors: MMX_ERR_ARG (NULL, another kind, a result of other sizes or form), MMX_ERR_SPACE,
 * MMX_ERR_MESH (as mmx_patch_query), MMX_ERR_NOMEM (the host's work space), MMX_ERR_CUDA.
 * Cost: one pass over the patches. Synchronises: no. */
mmx_status mmx_patch_query_run(mmx_ctx *ctx, const mmx_patch_set *ps, mmx_query_kind kind,
                               mmx_csr *out);

/* Sums a per-element attribute over a neighbourhood without materialising it, in one patch
 * kernel: for kind VV (x per vertex, y per vertex), VF (x per face, y per vertex) or EF (x per
 * face, y per edge), y_i = sum over the row i of the query (in its order, repeats included)
 * of x_j, with k components per element (1 to 4; row-major, x[j*k + c]). Equal to the SpMV
 * of the query's matrix of ones with x (the algebraic path), bit for bit on the host. x and y
 * live in the context's space; y has one row per source element (rows of isolated vertices
 * are zero). Errors: MMX_ERR_ARG (another kind, k out of range, NULL), MMX_ERR_SPACE,
 * MMX_ERR_MESH (VV or VF on a mesh whose faces are not consistently oriented: two faces run
 * an edge the same way, recorded when the set was built; the detail names the edge, as
 * mmx_patch_query does), MMX_ERR_CUDA. Synchronises: no. */
mmx_status mmx_patch_reduce(mmx_ctx *ctx, const mmx_patch_set *ps, mmx_query_kind kind,
                            const float *x, int k, float *y);

#ifdef __cplusplus
}
#endif

#endif
