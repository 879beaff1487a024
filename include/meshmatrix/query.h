/* meshmatrix/query.h: the eight first-order queries (VV, VE, VF, EV, EF, FV, FE, FF).
 *
 * A query gives, for every source element (vertex, edge or face), its neighbours of the target
 * kind as one row of an mmx_csr of global indices (`colidx`; `val` is NULL). Two paths compute
 * them and give the same arrays on both backends:
 * - the algebraic path (mmx_query): from the mesh matrix M and its adjacency by algebra (E, F,
 *   FE, EV; mesh.h), as the mesh-matrix method states them;
 * - the patch path (mmx_patch_query, patch.h): one CUDA block per patch, out of shared memory.
 *
 * Edges are numbered as mmx_adjacency numbers them (mesh.h): the same numbers on both paths.
 *
 * The order within a row is fixed here, and is the same on every path and backend:
 * - FV: the face's vertices in its cyclic order (the column of M).
 * - FE: the face's edges in its corner order: entry i is the edge from the face's vertex i to
 *   vertex i + 1 (cyclically).
 * - FF: for each edge of the face in FE's order, the other faces on that edge in ascending
 *   number (none for a boundary edge). A face that shares two edges with f appears twice.
 * - EV: the edge's two vertices, the smaller number first.
 * - EF: the edge's faces in ascending number.
 * - VF, VE, VV: around the vertex, counter-clockwise (the sense of the faces' orientation),
 *   fan by fan. A fan is a maximal run of faces at v joined across edges at v that have exactly
 *   two faces. In face f, let w follow v and u precede it; the next face counter-clockwise is
 *   the other face of edge {u, v} (it runs v -> u). A fan is open when it has a face whose edge
 *   {v, w} has not exactly two faces: it starts there (the face "after the boundary"); a closed
 *   fan starts at its face of smallest number. Fans follow one another by their starting face's
 *   number, ascending. For a fan of faces f0 .. f(k-1):
 *     VF: f0, ..., f(k-1);
 *     VV: w0, ..., w(k-1) (w_i the vertex after v in f_i), and, when the fan is open, u(k-1)
 *         (the vertex before v in its last face);
 *     VE: the edges {v, w_i} in the same order, and, when open, {u(k-1), v}.
 *   A vertex in no face has an empty row.
 *
 * The vertex queries (VV, VE, VF) need consistently oriented faces: an edge with two faces
 * that run it the same way is refused (MMX_ERR_MESH, naming the edge). Every other
 * configuration the library reads (non-manifold edges and vertices, isolated vertices, any
 * polygon) is answered. */
#ifndef MESHMATRIX_QUERY_H
#define MESHMATRIX_QUERY_H

#include "mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum mmx_query_kind {
    MMX_QUERY_VV = 0,
    MMX_QUERY_VE,
    MMX_QUERY_VF,
    MMX_QUERY_EV,
    MMX_QUERY_EF,
    MMX_QUERY_FV,
    MMX_QUERY_FE,
    MMX_QUERY_FF,
    MMX_QUERY_COUNT
} mmx_query_kind;

/* "VV", "VE", ... ("?" for a value out of range). */
const char *mmx_query_name(mmx_query_kind kind);

/* The kind named by `name` ("VV" or "vv", ...). Errors: MMX_ERR_ARG for another name. */
mmx_status mmx_query_parse(mmx_ctx *ctx, const char *name, mmx_query_kind *kind);

/* Computes query `kind` of `mesh` by the algebraic path, on the context's backend (the mesh
 * must live in the context's space), into a new matrix *out in that space: nrows source
 * elements, ncols target elements, rows ordered as this header states. When every row has the
 * same length (EV; FV and FE of a mesh whose faces all have one order) *out is in reduced form
 * (order > 0, rowptr NULL). `adj` may be the mesh's adjacency (mmx_adjacency_compute), which
 * is then only read, or NULL: then the mesh's cache (mesh.h) gives it, computed on the first
 * call and kept with the mesh, and the first call of VV, VE, VF, EF or FF keeps a copy of its
 * result there too, so that every later call of the kind is a copy of it (no wait, no
 * computation); FV, FE and EV are copies of the mesh's and the adjacency's arrays either
 * way. Where the cache does not serve the call (another context than the mesh's, a mesh
 * without one) the adjacency is computed and freed. The results are the same arrays on every
 * path.
 * Errors: MMX_ERR_ARG, MMX_ERR_SPACE, MMX_ERR_MESH (vertex queries on inconsistently
 * oriented faces; the detail names the edge), MMX_ERR_OVERFLOW, MMX_ERR_NOMEM, MMX_ERR_CUDA.
 * Cost: O(nnz log maxdeg), plus the adjacency's without adj; with the cache, a copy of the
 * result from the second call on. Memory kept with the cache: the adjacency and the results
 * (mmx_mesh_cache_bytes). Synchronises: on CUDA, once, to read the result's size (on a call
 * that computes the adjacency, its wait too); not on a copy of a kept result. */
mmx_status mmx_query(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_adjacency *adj,
                     mmx_query_kind kind, mmx_csr **out);

/* A query plan: what the eight queries of one mesh need beyond the mesh and its adjacency,
 * computed once, so that each query is then one pass into a result allocated beforehand, as
 * cuSPARSE's plans and RXMesh's query kernels with preallocated output are timed. It holds
 * the half-edge view's mates (4 bytes a corner); the vertex rows' sources, per entry of VF
 * the corner it comes from, in row order (4 bytes a corner), and, only when some fan is open
 * (a boundary), those of VV/VE apart (4 bytes a corner and one per open fan); per edge its
 * smallest corner; the row pointers of VF, VV/VE, EF and FF where they do not follow from the
 * sizes; and EF's entries only when some edge has three faces or more: 8 to 12 bytes a
 * corner, 4 to 8 a vertex, 4 to 8 an edge, 0 to 4 a face (32 bytes a face for a closed
 * manifold triangle mesh). The results equal mmx_query's, array for array, on both backends.
 *
 * Creates the plan of `mesh` on the context's backend (mesh in its space). `adj` may be NULL
 * (the plan computes and owns the adjacency) or the mesh's, which the plan then reads at every
 * run: the mesh and `adj` must outlive the plan and stay unchanged.
 * A mesh with an inconsistently oriented edge gets a plan whose vertex queries are refused at
 * allocation and at run (MMX_ERR_MESH, naming the edge as mmx_query does); the others run.
 * Errors: MMX_ERR_ARG, MMX_ERR_SPACE, MMX_ERR_OVERFLOW, MMX_ERR_NOMEM, MMX_ERR_CUDA.
 * Cost: O(nnz log maxdeg) (sorts and walks, about one mmx_query of each vertex kind).
 * Synchronises: on CUDA, once (the sizes), and once more when some edge has three faces or
 * more (EF's entries, by mmx_query) or the mesh is inconsistently oriented (the edge's ends). */
typedef struct mmx_query_plan mmx_query_plan;
mmx_status mmx_query_plan_create(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_adjacency *adj,
                                 mmx_query_plan **out);

/* Allocates, in the plan's space, a result *out for query `kind`: sizes and form (reduced or
 * general) as mmx_query gives them; its entries are undefined until mmx_query_plan_run writes
 * them. Free it with mmx_csr_free. Errors: MMX_ERR_ARG, MMX_ERR_MESH (a vertex kind of an
 * inconsistent mesh), MMX_ERR_OVERFLOW, MMX_ERR_NOMEM. Synchronises: no. */
mmx_status mmx_query_plan_alloc(mmx_ctx *ctx, const mmx_query_plan *plan, mmx_query_kind kind,
                                mmx_csr **out);

/* Computes query `kind` into `out`, a result that mmx_query_plan_alloc made for this plan and
 * kind (its row pointers too, when general): the same arrays as mmx_query. No allocation; one
 * kernel on CUDA (for VV, VE and VF one thread per entry, a gather at its source corner; for
 * EF and FF one per edge or face, a closed form; a copy for FV and EV), queued.
 * Errors: MMX_ERR_ARG (out does not match the plan and kind), MMX_ERR_MESH (as for alloc),
 * MMX_ERR_CUDA. Cost: O(the result's entries). Synchronises: no. */
mmx_status mmx_query_plan_run(mmx_ctx *ctx, const mmx_query_plan *plan, mmx_query_kind kind,
                              mmx_csr *out);

/* Frees a plan (its arrays in stream order); NULL is accepted. Synchronises: no. */
void mmx_query_plan_free(mmx_query_plan *plan);

/* Frees a matrix returned by a query (its arrays go back to the memory of the context that
 * made it, in its stream's order); NULL is accepted. Synchronises: no. */
void mmx_csr_free(mmx_csr *A);

#ifdef __cplusplus
}
#endif

#endif
