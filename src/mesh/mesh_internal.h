/* Private declarations of the mesh module, shared with the file readers. */
#ifndef MMX_MESH_INTERNAL_H
#define MMX_MESH_INTERNAL_H

#include <float.h>
#include <math.h>
#include "core/core_internal.h"
#include "core/hd.h"
#include "meshmatrix/mesh.h"
#include "meshmatrix/query.h" /* the kinds, for the cache's slots */

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the rules of a face list, stated once (host checks and device kernels) ---- */

/* What mmx__face_fault finds. */
enum {
    MMX__FACE_OK = 0,
    MMX__FACE_ORDER, /* fewer than 3 corners; the value is the order */
    MMX__FACE_INDEX, /* an index outside [0, nverts); the value is the first such index */
    MMX__FACE_TWICE, /* a vertex twice; the value is the vertex (the first i with v[i] equal to
                        an earlier v[k]) */
    MMX__FACE_LONG   /* more than MMX__FACE_SHORT corners, all in range: whether a vertex
                        repeats is left to a sort (mmx__face_problem), so that no face costs
                        quadratic work */
};
#define MMX__FACE_SHORT 32

/* The first rule that face v[0 .. n) breaks against nverts (MMX__FACE_*), its value in *value.
 * Triangles and quads that break none pass one branch-free test first (the common case); the
 * rules below it decide. */
static inline MMX__HD int mmx__face_fault(const mmx_index *v, mmx_index n, mmx_index nverts,
                                          mmx_index *value)
{
    const uint32_t nv = (uint32_t)nverts; /* unsigned: a negative index is out of range too */
    if (n == 3 && ((uint32_t)v[0] < nv) & ((uint32_t)v[1] < nv) & ((uint32_t)v[2] < nv) &
                      (v[0] != v[1]) & (v[0] != v[2]) & (v[1] != v[2]))
        return MMX__FACE_OK;
    if (n == 4 && ((uint32_t)v[0] < nv) & ((uint32_t)v[1] < nv) & ((uint32_t)v[2] < nv) &
                      ((uint32_t)v[3] < nv) & (v[0] != v[1]) & (v[0] != v[2]) & (v[0] != v[3]) &
                      (v[1] != v[2]) & (v[1] != v[3]) & (v[2] != v[3]))
        return MMX__FACE_OK;
    *value = n;
    if (n < 3) return MMX__FACE_ORDER;
    for (mmx_index i = 0; i < n; i++)
        if ((uint32_t)v[i] >= nv) {
            *value = v[i];
            return MMX__FACE_INDEX;
        }
    if (n > MMX__FACE_SHORT) return MMX__FACE_LONG;
    for (mmx_index i = 1; i < n; i++)
        for (mmx_index k = 0; k < i; k++)
            if (v[i] == v[k]) {
                *value = v[i];
                return MMX__FACE_TWICE;
            }
    return MMX__FACE_OK;
}

/* Whether entry i of face offsets start[0 .. nfaces] breaks their rule: start[0] = 0, and
 * each entry at least the one before. */
static inline MMX__HD int mmx__start_fault(const mmx_index *start, int64_t i)
{
    return i == 0 ? start[0] != 0 : start[i] < start[i - 1];
}

/* Whether a coordinate is finite (NaN fails the comparison). */
static inline MMX__HD int mmx__coord_ok(float x)
{
    return fabsf(x) <= FLT_MAX;
}

/* Checks one face of n vertices against nverts: order >= 3, indices in [0, nverts), no vertex
 * twice. Returns 0 if the face is fine; otherwise 1 with a sentence in why ("order 2 is below
 * 3", "vertex index 9 outside [0, 8)", "vertex 4 appears twice") for the caller to prefix with
 * where the face came from. */
int mmx__face_problem(const mmx_index *f, mmx_index n, mmx_index nverts, char *why, size_t cap);

/* The index of the first face that mmx__face_problem would refuse (order below 3, an index
 * outside [0, nverts), a vertex twice), or -1 if all are fine. Triangles and quads are checked
 * inline; the message for the bad face comes from mmx__face_problem. Cost: O(nnz). */
mmx_index mmx__first_bad_face(const mmx_index *start, const mmx_index *verts, mmx_index nfaces,
                              mmx_index nverts);

/* Checks that a coordinate triple is finite; 0 if fine, else 1 with a sentence in why. */
int mmx__coord_problem(const float *p, char *why, size_t cap);

/* Builds a mesh from host arrays allocated with malloc, taking ownership of all of them (they
 * are freed on failure too): start (nfaces + 1) becomes colptr, verts becomes rowidx, pos
 * (nverts x 3, may be NULL) and tags (may be NULL) are kept. Unless `checked` says the caller
 * has already validated every face and coordinate, they are validated here and a fault is
 * reported as "face F: ..." / "vertex V: ...". The mesh is then placed in the context's space. */
mmx_status mmx__mesh_adopt(mmx_ctx *ctx, mmx_index nverts, mmx_index nfaces, mmx_index *start,
                           mmx_index *verts, float *pos, char *tags, int checked,
                           mmx_mesh **out);

/* mmx_mesh_tags_parse (mesh and out not NULL), also giving on failure the 1-based line of
 * mesh->tags at fault in *bad_line (0 when no line is: out of memory), so that a reader can
 * name the file's own line. */
mmx_status mmx__mesh_tags_parse(mmx_ctx *ctx, const mmx_mesh *mesh, mmx_mesh_tags **out,
                                int *bad_line);

/* mmx_mesh_set_tags, the check (every crease an edge of the mesh, ...) made only when `check`
 * is set: a caller that made the tags from the mesh itself (subdivision's carried tags) knows
 * them right and skips reading every face of a refined mesh. */
mmx_status mmx__mesh_set_tags(mmx_ctx *ctx, mmx_mesh *mesh, const mmx_mesh_tags *tags, int check);

/* Where edge {a, b} stands among an adjacency's edges (its edge_ptr and ev, in the memory of
 * the code that calls it: host arrays on the host, device arrays in a kernel):
 * the first edge of higher end max(a, b) whose lower end is min(a, b) or more, which is the
 * edge when it exists (the caller checks ev when it may not). Edges are numbered by higher
 * end, then lower end (mesh.h). The one statement of the edge lookup: host code and kernels
 * of every module (geom, dynamic, subdiv) call it. */
static inline MMX__HD mmx_index mmx__edge_find(const mmx_index *edge_ptr, const mmx_index *ev,
                                               mmx_index a, mmx_index b)
{
    const mmx_index lo = a < b ? a : b, hi = a < b ? b : a;
    mmx_index first = edge_ptr[hi], last = edge_ptr[hi + 1];
    while (first < last) {
        const mmx_index mid = first + (last - first) / 2;
        if (ev[2 * (size_t)mid] < lo) first = mid + 1;
        else last = mid;
    }
    return first;
}

/* The number of edge {a, b}, or -1 when a and b are not joined by an edge. */
static inline MMX__HD mmx_index mmx__edge_number(const mmx_index *edge_ptr, const mmx_index *ev,
                                                 mmx_index a, mmx_index b)
{
    const mmx_index e = mmx__edge_find(edge_ptr, ev, a, b);
    const mmx_index lo = a < b ? a : b, hi = a < b ? b : a;
    return e < edge_ptr[hi + 1] && ev[2 * (size_t)e] == lo ? e : -1;
}

/* A copy of uv (nnz corners) in `space` (a device one needs a CUDA ctx, whose pool it comes
 * from), from either space; NULL for NULL. Synchronises: for a copy from the device into host
 * memory. */
mmx_status mmx__mesh_uv_copy_to(mmx_ctx *ctx, const mmx_mesh_uv *uv, int64_t nnz, mmx_space space,
                                mmx_mesh_uv **out);

/* A mesh's host copy when it lives on the device, or the mesh itself on the host; release
 * with mmx__mesh_host_release(original, view). For read-only host algorithms. Texture
 * coordinates in host memory are borrowed; those in device memory are left out (view->uv
 * NULL), or copied into host memory by the _uv form, for the readers of texture coordinates
 * (uv.c, the OBJ writer). */
mmx_status mmx__mesh_host_view(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_mesh **view);
mmx_status mmx__mesh_host_view_uv(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_mesh **view);
void mmx__mesh_host_release(const mmx_mesh *mesh, const mmx_mesh *view);

/* ---- meshes from arrays (arrays.c) ---- */

/* What a mesh of mmx_mesh_wrap_arrays borrows: the caller's arrays, left alone by
 * mmx_mesh_free, and the release it calls once. */
struct mmx__mesh_borrow {
    const mmx_index *rowidx; /* the caller's verts, M->rowidx while the mesh keeps them */
    const float *pos;        /* the caller's pos, mesh->pos while the mesh keeps it */
    void (*release)(void *owner);
    void *owner;
    int writable;            /* the caller allows the library to write them */
};

/* Whether out is the borrowed positions of a mesh wrapped read-only, which an in-place
 * operation (mmx_smooth with out == mesh->pos) must refuse to write. */
static inline int mmx__mesh_pos_readonly(const mmx_mesh *mesh, const float *out)
{
    return mesh->borrow && !mesh->borrow->writable && out && out == mesh->borrow->pos;
}

/* The end of a wrapped mesh (mmx_mesh_free, once the mesh's own arrays are given back): on a
 * device mesh a wait for ctx's stream, whose queued work may still read the caller's arrays,
 * then release(owner), once; frees b. */
void mmx__mesh_borrow_end(mmx_ctx *ctx, mmx_space space, struct mmx__mesh_borrow *b);

/* ---- the mesh's cache (cache.c; mesh.h states the rules) ---- */

/* What the cache keeps, one object each. */
enum {
    MMX__CACHE_ADJ = 0,   /* mmx_adjacency */
    MMX__CACHE_NORMALS,   /* mmx_normals_plan (geom) */
    MMX__CACHE_UNIFORM_L, /* the uniform Laplacian and its diagonal (geom/smooth.c) */
    MMX__CACHE_PATCHES,   /* the default patch set (mmx_patch_set, geom/smooth.c's patch path) */
    MMX__CACHE_TAGS,      /* the tags as subdivision reads them (subdiv's mmx__tag_entry), made
                             from mesh->tags and the topology: mmx_mesh_set_tags drops it */
    MMX__CACHE_UV,        /* the texture mesh's checked input level, as subdivision refines
                             the texture coordinates in the linear mode (subdiv's uv.c), made
                             from mesh->uv->index and the topology */
    MMX__CACHE_QUERY,     /* + kind: mmx_query's result of that kind (an mmx_csr) */
    MMX__CACHE_SLOTS = MMX__CACHE_QUERY + MMX_QUERY_COUNT
};

/* Gives `mesh` an empty cache (the library's mesh makers call it; a failure to allocate its
 * few bytes leaves the mesh without one, which only costs speed). */
void mmx__mesh_cache_attach(mmx_mesh *mesh);

/* Frees the cache and its objects (mmx_mesh_free). */
void mmx__mesh_cache_free(mmx_mesh *mesh);

/* The object kept in `slot`, or NULL: none, or the cache does not serve this call (another
 * context or space than the mesh's, or a view whose M is not the one the cache was made
 * from). */
void *mmx__mesh_cache_get(mmx_ctx *ctx, const mmx_mesh *mesh, int slot);

/* Keeps obj in `slot` (taking it: free_fn(obj) frees it with the cache) and returns 1, or
 * returns 0 and leaves obj to the caller when the cache does not serve this call (as above)
 * or the slot is taken. bytes: the device (or host) memory obj holds, for
 * mmx_mesh_cache_bytes. */
int mmx__mesh_cache_put(mmx_ctx *ctx, const mmx_mesh *mesh, int slot, void *obj,
                        void (*free_fn)(void *), size_t bytes);

/* Frees the object kept in `slot`, if any (in the stream order of its context), whatever the
 * context: the data it was made from changed (mmx_mesh_set_tags drops the tags' entry). */
void mmx__mesh_cache_drop(const mmx_mesh *mesh, int slot);

/* The mesh's adjacency: the cached one, or computed and cached; where the cache does not
 * serve the call, computed into *own for the caller to free (*own NULL otherwise). Errors:
 * those of mmx_adjacency_compute. */
mmx_status mmx__mesh_adjacency(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_adjacency **adj,
                               mmx_adjacency **own);

/* The mesh's adjacency as mmx__mesh_adjacency finds or makes it, as one pointer the caller
 * frees with mmx_adjacency_free: a view of the cached one (view 1: freeing it frees the struct
 * alone), or, where the cache does not serve the call, the computed one. The caller must be
 * done with a view before the mesh's cache can go (the mesh freed, mmx_mesh_release_cache):
 * for the length of one call on the mesh. Errors: those of mmx_adjacency_compute,
 * MMX_ERR_NOMEM. Synchronises: as mmx_adjacency_compute, and not at all when the cache holds
 * it. */
mmx_status mmx__mesh_adjacency_view(mmx_ctx *ctx, const mmx_mesh *mesh, mmx_adjacency **out);

/* The bytes a matrix's arrays hold. */
size_t mmx__csc_bytes(const mmx_csc *A);

/* mmx_mesh_stats_compute on a mesh in the context's space whose adjacency the caller has
 * (stats.c): the half-edge view built from it, the counts on the host. */
mmx_status mmx__mesh_stats_of(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_adjacency *adj,
                              mmx_mesh_stats *st);

/* ---- repeated faces (repeated.c) ---- */

/* Faces with the vertex set of a face of a smaller number (repeated.c). */
typedef struct mmx__repeated {
    mmx_index count;          /* faces whose vertex set a smaller face has */
    mmx_index first, second;  /* the pair whose larger face is smallest (first < second), -1 */
    int relation;             /* how `second` runs first's vertices: 1 the same cyclic order (a
                                 duplicated face), -1 the opposite one (for triangles: a
                                 two-sided pillow), 0 another order */
} mmx__repeated;

/* Finds the repeated faces of a host mesh matrix (either form). Errors: MMX_ERR_NOMEM.
 * Cost: O(nnz + F log F) time, 16 bytes per face. */
mmx_status mmx__mesh_repeated_faces(mmx_ctx *ctx, const mmx_csc *M, mmx__repeated *out);

/* The comparison step of mmx__mesh_repeated_faces, for a caller that hashed and sorted the
 * faces itself (stats.cu on the device): hk[0..F) the face hashes (face_steps.h) sorted
 * stably, fk the faces in that order, M the host mesh matrix. Errors: MMX_ERR_NOMEM. */
mmx_status mmx__repeated_scan(mmx_ctx *ctx, const mmx_csc *M, const uint64_t *hk,
                              const mmx_index *fk, mmx__repeated *out);

/* ---- the statistics on the device (stats.cu) ---- */

struct mmx__halfedge;

/* The counts of mmx__mesh_stats_of for a device mesh, on the device: everything but the
 * sizes the caller set (nverts, nfaces, ncorners, nedges, boundary and non-manifold edges) and
 * the tail it derives (euler, manifold, oriented, genus); *used gets the vertices in faces.
 * The same numbers as the host's loops (components and boundary loops by a union-find whose
 * count does not depend on the order of its unions, the firsts and the box by atomic minima
 * of packed records). Synchronises once (the counts' read-back), and copies the faces to the
 * host only when two faces hash alike (repeated faces, or a rare collision). Errors:
 * MMX_ERR_NOMEM, MMX_ERR_CUDA. Cost: O(nnz + F + E + the walks, as the host's). */
mmx_status mmx__mesh_stats_counts_cuda(mmx_ctx *ctx, const mmx_mesh *mesh,
                                       const mmx_adjacency *adj, const struct mmx__halfedge *H,
                                       mmx_mesh_stats *st, mmx_index *used);

/* mmx_mesh_validate's degenerate faces of a device mesh with positions, on the device: their
 * count and the first (-1 if none), each face decided by face_steps.h as on the host.
 * Synchronises once. Errors: MMX_ERR_NOMEM, MMX_ERR_CUDA. */
mmx_status mmx__mesh_degenerate_cuda(mmx_ctx *ctx, const mmx_mesh *mesh, mmx_index *count,
                                     mmx_index *first);

/* ---- adjacency (adjacency.c/.cu): declarations go here ---- */

/* The CUDA halves of the module are declared whatever the build: a build without CUDA links
 * the stubs of nocuda.c (device.h), so the dispatch needs no #ifdef. */

/* What the adjacency's stages count besides its arrays, in a read-back slot (core/device.h):
 * every field folds from 0. */
typedef struct mmx__adjacency_counts {
    mmx_index nedges;            /* edge_ptr[nverts] */
    mmx_index boundary_edges, nonmanifold_edges, boundary_verts, max_valence;
    mmx_index first_order;       /* the order of face 0 */
    int mixed_orders;            /* 1 once a face's order differs from face 0's */
    int fault;                   /* 1 if a face runs an edge E does not hold: a vertex twice
                                    in a row, which only a matrix assembled by hand can have */
} mmx__adjacency_counts;

/* The device stages of mmx_adjacency_compute (adjacency.c holds the flow), queued: edge_ptr
 * from E, then ev, sides, fe, valence, boundary and *counts (a read-back slot). adj's arrays
 * have room for nnz(M) edges, a bound on their number. */
mmx_status mmx__adjacency_fill_cuda(mmx_ctx *ctx, const mmx_csc *M, mmx_adjacency *adj,
                                    mmx__adjacency_counts *counts);

/* ---- reorder (reorder.c/.cu): declarations go here ---- */

/* dst[v] = src[perm[v]] for n rows of 3 floats, all device arrays (positions following a
 * vertex permutation, perm[new] = old); queued. */
mmx_status mmx__gather_rows3_cuda(mmx_ctx *ctx, const float *src, const mmx_index *perm,
                                  mmx_index n, float *dst);

#ifdef __cplusplus
}
#endif
#endif
