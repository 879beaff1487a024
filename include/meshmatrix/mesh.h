/*
 * meshmatrix/mesh.h: the mesh matrix, vertex positions, built-in shapes and inspection.
 *
 * A mesh is its mesh matrix M (one column per face, one row per vertex; the stored value is the
 * vertex's 1-based position in the face's cyclic order, and rows inside a column are kept in
 * that cyclic order) plus an nverts x 3 array of float positions. Faces are counter-clockwise
 * seen from outside by convention, as in OBJ, OFF and PLY.
 */
#ifndef MESHMATRIX_MESH_H
#define MESHMATRIX_MESH_H

#include "core.h"
#include "spla.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Texture coordinates as face-varying data (OBJ 'vt' lines and the faces' 'v/vt' corners): a
 * second index set on the mesh's corners. They live in host memory (space MMX_SPACE_HOST, the
 * zero of a calloc'd set), as the tags do, except on a mesh that mmx_subdivide refined on a
 * CUDA context: there they stay in device memory (space MMX_SPACE_DEVICE, from ctx's pool), so
 * that refinement does not copy millions of corners to the host. mmx_mesh_copy,
 * mmx_mesh_uv_copy, the writers and the library's other readers bring them to the host where
 * they read them. */
typedef struct mmx_mesh_uv {
    mmx_index nvalues; /* the coordinates */
    float *values;     /* nvalues x 2 (u, v), row-major */
    mmx_index *index;  /* one per corner, in M's storage order: the corner's coordinate, 0-based */
    mmx_space space;   /* where values and index live (the host unless refined on CUDA) */
    mmx_ctx *ctx;      /* device space: the context whose pool holds them, which must outlive
                          them; NULL on the host */
} mmx_mesh_uv;

typedef struct mmx_mesh {
    mmx_csc *M;        /* nverts x nfaces mesh matrix (general or reduced form) */
    float *pos;        /* nverts x 3 positions, row-major, in `space`; NULL if the mesh has none */
    mmx_space space;   /* where M's arrays and pos live */
    char *tags;        /* OBJ 't' lines (OpenSubdiv creases, corners, holes...), verbatim and
                          newline-terminated, host memory; NULL if none. Read as data with
                          mmx_mesh_tags_parse, set with mmx_mesh_set_tags; subdivision honours
                          most of them (subdiv.h). */
    mmx_ctx *ctx;      /* the context that made the mesh, as mmx_csc's ctx (spla.h): pos goes
                          back to its memory, in its stream's order, when the mesh is freed, so
                          it must outlive the mesh (M records its own, the same one for every
                          mesh the library makes) */
    mmx_mesh_uv *uv;   /* texture coordinates, or NULL: read and written with OBJ, kept by
                          mmx_mesh_copy, mmx_mesh_reduce, mmx_mesh_expand and mmx_mesh_permute
                          (they move with their faces), refined by mmx_subdivide (subdiv.h) */
    float *normals;    /* per-vertex normals, nverts x 3 row-major, in host memory whatever the
                          mesh's space (as uv), or NULL: written by the OBJ ('vn' lines and
                          'v//vn' corners) and PLY (nx ny nz) writers (the readers do not read
                          them back yet); set with mmx_mesh_set_normals (geom.h computes them), kept by
                          mmx_mesh_copy and mmx_mesh_permute (they move with their vertices),
                          dropped by mmx_subdivide when it refines (new vertices) */
    float *colors;     /* per-vertex RGB colors, nverts x 3 row-major, 0 to 1, in host memory
                          (malloc'd, freed by mmx_mesh_free) whatever the mesh's space, or NULL:
                          read from PLY (red green blue: integers scaled by their type's
                          maximum, floats as they are) and OBJ ("v x y z r g b", when every
                          vertex has them), written by the PLY (uchar red green blue) and OBJ
                          writers (io.h); kept by mmx_mesh_copy and mmx_mesh_permute (they move
                          with their vertices); the meshes other operations return (subdivision,
                          smoothing, remeshing, edits) have none, as they have no normals */
    struct mmx__mesh_cache *cache; /* private: what calls on this mesh made from its topology
                          alone, kept for the next call (mmx_mesh_cache_bytes below). The
                          library's meshes have one (empty until a call fills it); a mesh
                          assembled by hand leaves it NULL and gets no caching. A struct copy of
                          the mesh (a view with other positions) shares it, which is right while
                          the view keeps M: an entry is used only for the matrix it was made
                          from. Never read or set it */
    struct mmx__mesh_borrow *borrow; /* private: for a mesh of mmx_mesh_wrap_arrays, the
                          caller's arrays it uses in place and the release to call when it is
                          freed; NULL otherwise (a mesh assembled by hand leaves it NULL).
                          Never read or set it */
} mmx_mesh;

/* ---- what is kept with the mesh --------------------------------------------------------- */

/* The calls below keep what they make from the topology alone (M), so that the next call on
 * the same mesh skips it: mmx_query with adj NULL (the adjacency, and for VV, VE, VF, EF and
 * FF a copy of the first call's result: a second query of the kind is a copy of it),
 * mmx_vertex_normals (the transpose of M: mmx_normals_plan_create's), mmx_smooth (the
 * adjacency; for the explicit uniform steps, LAPLACIAN and TAUBIN on the assembled path, the
 * uniform Laplacian and its diagonal; on the patch path without a set of the caller's, the
 * default patch set); mmx_cotan_laplacian, mmx_uniform_laplacian, mmx_mean_curvature_normal
 * (adj NULL) and mmx_mesh_reorder use and keep the adjacency too. mmx_subdivide,
 * mmx_subdiv_plan_create and mmx_subdiv_limit keep the mesh's tags as they read them (parsed
 * and checked, the creases' sharpness on the adjacency's edges and the corners' on the
 * vertices, in the mesh's space), for the tags' text they were made from: mmx_mesh_set_tags
 * drops them, and tags written into mesh->tags by hand are read anew. Positions are not part
 * of it: changing mesh->pos (or smoothing in place) keeps it, and the next call reads the new
 * positions.
 * Rules:
 * - Only calls on the context that made the mesh (mesh->ctx, in its space) use and fill the
 *   cache; a call on another context computes everything as if there were none. So, under
 *   the rule that a context is used by one thread at a time, one thread at a time touches a
 *   mesh's cache; two threads may use one mesh with two contexts (the other computes).
 * - The library's calls that change M in place (mmx_mesh_reduce, mmx_mesh_expand) drop it;
 *   every other edit makes a new mesh, which starts empty. A caller who writes into M's arrays
 *   must call mmx_mesh_release_cache first.
 * - mmx_mesh_copy does not copy it; mmx_mesh_free frees it (device memory back to the pool of
 *   mesh->ctx in stream order). */

/* The bytes the mesh's cache holds now (device memory for a device mesh, plus a few hundred
 * host bytes not counted), 0 when empty or for NULL: the adjacency about 30 bytes a corner,
 * each query result kept 4 bytes an entry and a row (VV, VE, VF, EF and FF about 4 a corner
 * each), the normals' transpose 8 bytes a corner and 4 a vertex, subdivision's tags 4 bytes
 * an edge and a vertex (where it has creases, corners) and 28 a creased edge (52 on triangles),
 * the uniform Laplacian 12
 * bytes an entry of E and of its diagonal plus 8 a vertex, the patch set its
 * mmx_patch_stats.bytes (about 56 a face): on a closed triangle mesh, about 90 bytes a face
 * with the adjacency alone and 235 with all but the patch set. Synchronises: no. */
size_t mmx_mesh_cache_bytes(const mmx_mesh *mesh);

/* Frees what the mesh's cache holds (in the stream order of mesh->ctx); the next call builds
 * it again. Call it on the thread that uses mesh->ctx. NULL is accepted. Synchronises: no. */
void mmx_mesh_release_cache(mmx_mesh *mesh);

/* A copy of uv for a mesh of nnz corners in host memory (from either space), or NULL for
 * NULL; *out NULL on failure. Errors: MMX_ERR_NOMEM, MMX_ERR_CUDA.
 * Synchronises: for a set in device memory, which is copied into host memory. */
mmx_status mmx_mesh_uv_copy(mmx_ctx *ctx, const mmx_mesh_uv *uv, int64_t nnz, mmx_mesh_uv **out);

/* Frees a texture coordinate set (device memory back to uv->ctx's pool, after the work queued
 * on its stream); NULL is accepted. Synchronises: no. */
void mmx_mesh_uv_free(mmx_mesh_uv *uv);

/* Replaces mesh->normals by a host copy of `normals` (nverts x 3 floats in `space`; NULL
 * removes them). A device array is copied to the host (a wait). The caller's array may be
 * freed when it returns. Errors: MMX_ERR_ARG (NULL mesh), MMX_ERR_SPACE, MMX_ERR_NOMEM,
 * MMX_ERR_CUDA; on error the mesh keeps its normals.
 * Synchronises: for a device array, which is copied into host memory. */
mmx_status mmx_mesh_set_normals(mmx_ctx *ctx, mmx_mesh *mesh, const float *normals,
                                mmx_space space);

#define mmx_mesh_nverts(m) ((m)->M->nrows)
#define mmx_mesh_nfaces(m) ((m)->M->ncols)

/* Builds a mesh from host face lists: face f has the vertices verts[start[f] .. start[f+1]),
 * 0-based, in cyclic order; pos (nverts x 3, may be NULL) gives the positions. The result lives
 * in the context's space, in the general form (see mmx_mesh_reduce).
 * Checks: every face has order >= 3, indices in [0, nverts), no vertex twice in a face, every
 * coordinate finite. Errors: MMX_ERR_MESH naming the face and the problem, MMX_ERR_ARG,
 * MMX_ERR_OVERFLOW, MMX_ERR_NOMEM, MMX_ERR_CUDA. Cost: O(nverts + nnz).
 * Synchronises: no: the checks run on the host, and the copy to the device is queued (the
 * host arrays may be freed when it returns). */
mmx_status mmx_mesh_from_faces(mmx_ctx *ctx, mmx_index nverts, mmx_index nfaces,
                               const mmx_index *start, const mmx_index *verts,
                               const float *pos, mmx_mesh **out);

/* ---- face lists that a mesh matrix cannot hold ------------------------------------------- */

/* A polygon mesh as plain face lists in host memory, for the faces a mesh matrix cannot store:
 * a face that names a vertex twice (OpenSubdiv's "non-manifold edges" shapes: a degenerate
 * edge from a vertex to itself, a quad folded onto a triangle), which a CSC column cannot hold
 * (one entry per row), and the faces mmx_subdivide_faces makes from them. Face f has the
 * corners verts[start[f] .. start[f+1]) (0-based vertex numbers, cyclic order, repeats
 * allowed); uv_index (one per corner, or NULL) names its texture coordinate in uv (nuv x 2).
 * tags: OBJ 't' lines as mmx_mesh's, or NULL. Everything is malloc'd and freed by
 * mmx_faces_free. The mesh-matrix form stays the library's form for everything else (its
 * fast paths untouched): only mmx_faces_read and mmx_faces_write (io.h) and
 * mmx_subdivide_faces (subdiv.h) take this one, and face lists without repeated vertices
 * become a mesh with mmx_mesh_from_faces. */
typedef struct mmx_faces {
    mmx_index nverts, nfaces;
    mmx_index *start;    /* nfaces + 1, start[0] = 0 */
    mmx_index *verts;    /* start[nfaces] corners */
    float *pos;          /* nverts x 3, row-major */
    mmx_index nuv;       /* texture coordinates, 0 if none */
    float *uv;           /* nuv x 2 */
    mmx_index *uv_index; /* per corner, or NULL when nuv is 0 */
    char *tags;          /* OBJ 't' lines, newline-terminated, or NULL */
} mmx_faces;

/* Frees a face list and its arrays (NULL is fine). */
void mmx_faces_free(mmx_faces *faces);

/* ---- meshes from arrays in either space (bindings: numpy, DLPack) ------------------------ */

/* Face lists and positions as a binding holds them, in host or device memory. Faces are
 * either all of one order (order = k >= 3: face f is verts[k*f .. k*f + k), an (nfaces, k)
 * array in row-major order; start is NULL) or of any orders (order = 0: face f is
 * verts[start[f] .. start[f+1]), start having nfaces + 1 entries, start[0] = 0, as
 * mmx_mesh_from_faces). Corners are 0-based vertex indices in the face's cyclic order. */
typedef struct mmx_mesh_arrays {
    mmx_index nverts, nfaces;
    int order;              /* k >= 3: every face has k corners (start is NULL); 0: start used */
    const mmx_index *start; /* nfaces + 1 offsets when order == 0 */
    const mmx_index *verts; /* the corners, face by face, 0-based */
    const float *pos;       /* nverts x 3, row-major; may be NULL */
    mmx_space space;        /* where start/verts/pos live (host or device) */
} mmx_mesh_arrays;

/* A mesh in the context's space from arrays in either space (a->space), copied: the caller's
 * arrays may be freed or changed once it returns (device arrays: once the work queued on the
 * context's stream so far is done, as for any input of a queued call). The form follows the
 * layout: order k gives the reduced form (see mmx_mesh_reduce; M->order = k), order 0 the
 * general form, as mmx_mesh_from_faces. The checks are mmx_mesh_from_faces's, with its
 * messages (start[0] = 0 and start non-decreasing; per face: order >= 3, indices in
 * [0, nverts), no vertex twice, naming the first bad face; every coordinate finite, naming
 * the first bad vertex), made where the arrays live: host arrays on the host, device arrays
 * on the device (kernels, then one read-back of a fault record; a failing face or vertex is
 * then read back to word the message; faces of more than 32 corners, whose repeats are found
 * by sorting, are checked on the host from a copy of the arrays). Host and device arrays give
 * the same mesh, byte for byte. Device arrays need a CUDA context (a host one refuses them: MMX_ERR_SPACE); host
 * arrays on a CUDA context are checked on the host and copied (queued).
 * Errors: MMX_ERR_ARG (NULL ctx, a or out; negative sizes or order; NULL verts with faces,
 * NULL start with order 0), MMX_ERR_MESH (as above; order 1 or 2: a face needs at least 3
 * vertices), MMX_ERR_OVERFLOW (nfaces * order beyond 32-bit indices),
 * MMX_ERR_SPACE, MMX_ERR_NOMEM, MMX_ERR_CUDA. Cost: O(nverts + nnz) (faces of more than 32
 * corners: O(c log c) each).
 * Synchronises: device arrays: once, on CUDA, to read the fault record and (order 0) the
 * number of corners, start[nfaces], which sizes the copy (and, only where a face has more
 * than 32 corners or on a refusal, again to copy arrays to the host); host arrays: no
 * (checked on the host, the copy to the device queued). */
mmx_status mmx_mesh_from_arrays(mmx_ctx *ctx, const mmx_mesh_arrays *a, mmx_mesh **out);

/* Zero copy: a mesh that uses the caller's arrays in place, after the checks of
 * mmx_mesh_from_arrays: verts becomes the reduced mesh matrix's row indices (M->rowidx,
 * M->order = a->order) and pos the positions (mesh->pos), so that a binding hands numpy
 * arrays or DLPack tensors to the library without a copy. Only the layout that is the
 * library's own can be used so: one face order (order >= 3) and arrays in the context's
 * space; order 0 (the general form needs colptr and values of the library's) and arrays in
 * the other space are refused with MMX_ERR_ARG and a sentence saying why (use
 * mmx_mesh_from_arrays, which copies).
 * The caller's arrays must stay alive while the mesh lives, and verts unchanged (what the
 * mesh's cache keeps was made from it: after changing it, call mmx_mesh_release_cache); pos
 * may be changed between calls, as any mesh's positions (on CUDA in the order of the
 * context's stream). The library never frees them. `release(owner)` (release may be NULL:
 * nothing is called) is called exactly once, by mmx_mesh_free, after the mesh's last use of
 * the arrays: on a CUDA mesh mmx_mesh_free waits for the context's stream first (queued kernels may still read them; the caller's
 * allocator may reuse the memory on another stream as soon as release returns). On failure
 * release is never called and the caller keeps its ownership.
 * `writable`: nonzero when the library may write the arrays. The one library call that
 * writes a mesh's arrays in place is mmx_smooth with out == mesh->pos (geom.h); on a mesh
 * wrapped read-only it is refused (MMX_ERR_ARG) and the caller smooths into an array of its
 * own. The other in-place calls leave the borrowed arrays alone: mmx_mesh_reduce has nothing
 * to do (the mesh is reduced) and mmx_mesh_expand adds colptr and values of the library's
 * beside the borrowed row indices (freed by mmx_mesh_free, the borrowed ones not).
 * mmx_mesh_copy of a wrapped mesh is an ordinary mesh (deep copy); every operation that makes
 * a new mesh makes an ordinary one.
 * Errors: those of mmx_mesh_from_arrays, and MMX_ERR_ARG (the refusals above).
 * Cost: the checks, O(nverts + nnz); no copy.
 * Synchronises: as mmx_mesh_from_arrays (device arrays: once, to read the fault record; host
 * arrays: no). */
mmx_status mmx_mesh_wrap_arrays(mmx_ctx *ctx, const mmx_mesh_arrays *a, int writable,
                                void (*release)(void *owner), void *owner, mmx_mesh **out);

/* Frees a mesh and everything it owns; NULL is accepted. Device arrays go back to the pool of
 * the context that made them, after the work queued on its stream. A mesh of
 * mmx_mesh_wrap_arrays leaves the caller's arrays alone and calls its release(owner), once.
 * Synchronises: no; but for a wrapped mesh on CUDA, the context's stream, before release,
 * because queued work may still read the caller's arrays. */
void mmx_mesh_free(mmx_mesh *mesh);

/* A deep copy of the mesh in `dst_space` (same form), made by (and belonging to) ctx. Texture
 * coordinates in device memory are copied there again for a device copy and into host memory
 * for a host one; those in host memory stay there. Errors: as mmx_csc_copy. Synchronises: only for a copy from the device into host memory,
 * which is complete when it returns; a copy to the device is queued. */
mmx_status mmx_mesh_copy(mmx_ctx *ctx, const mmx_mesh *src, mmx_space dst_space,
                         mmx_mesh **out);

/* The common face order c if every face has order c, else 0 (also 0 for a mesh without
 * faces). Reads colptr, copying it to the host when the mesh is on the device.
 * Errors: MMX_ERR_ARG, MMX_ERR_NOMEM, MMX_ERR_CUDA.
 * Synchronises: for a general mesh on the device, whose colptr the host reads; no otherwise. */
mmx_status mmx_mesh_uniform_order(mmx_ctx *ctx, const mmx_mesh *mesh, mmx_index *order);

/* Converts the mesh matrix to the reduced form in place (drops colptr and val). A mesh already
 * reduced is left as it is. Errors: MMX_ERR_MESH if the faces do not all have one order (the
 * detail names the first face of another order), MMX_ERR_ARG (a device mesh of another
 * context: in-place changes go through the mesh's own, core.h), MMX_ERR_NOMEM, MMX_ERR_CUDA.
 * Synchronises: for a general mesh on the device, whose colptr the host reads. */
mmx_status mmx_mesh_reduce(mmx_ctx *ctx, mmx_mesh *mesh);

/* Converts the mesh matrix back to the general form in place (rebuilds colptr and val).
 * A mesh already general is left as it is. Errors: MMX_ERR_ARG (a device mesh of another
 * context, as mmx_mesh_reduce), MMX_ERR_NOMEM, MMX_ERR_CUDA.
 * Synchronises: no (the new arrays are filled by queued kernels). */
mmx_status mmx_mesh_expand(mmx_ctx *ctx, mmx_mesh *mesh);

/* Face lists of the mesh, in host memory allocated with malloc (release with free()):
 * *start has nfaces + 1 entries, *verts has (*start)[nfaces]; either form, either space.
 * Errors: MMX_ERR_ARG, MMX_ERR_NOMEM, MMX_ERR_CUDA.
 * Synchronises: for a device mesh, whose arrays are copied into host memory. */
mmx_status mmx_mesh_faces(mmx_ctx *ctx, const mmx_mesh *mesh, mmx_index **start,
                          mmx_index **verts);

/* The mesh with every face split into triangles over its own corners, orientation kept (a
 * closed manifold mesh stays one): a face of c corners gives c - 2 triangles, which follow
 * each other in face order. The rule: a quad is cut along its shorter diagonal (on a tie, or
 * without positions, corners 0-2); any other polygon is a fan from its first corner (so a
 * non-convex polygon may give folded triangles). Triangles stay triangles. Vertices and
 * positions are unchanged; texture coordinates follow their corners, normals their vertices,
 * and the tags are kept (a hole face becomes its triangles). Computed on the host on either
 * backend (a device mesh's arrays are copied to the host and the result is placed in the
 * context's space). Errors: MMX_ERR_ARG, MMX_ERR_OVERFLOW (more triangle corners than 32-bit
 * indices hold), MMX_ERR_MESH (bad tags, as mmx_mesh_tags_parse), MMX_ERR_NOMEM, MMX_ERR_CUDA.
 * Cost: O(nverts + nnz). Synchronises: for a device mesh, whose arrays the host reads. */
mmx_status mmx_mesh_triangulate(mmx_ctx *ctx, const mmx_mesh *mesh, mmx_mesh **out);

/* A built-in procedural mesh, named by a short spec:
 *   "tetrahedron", "cube"             closed, 4 triangles / 6 quads
 *   "icosphere[:L]"                   closed triangles, icosahedron split L times (default 2)
 *   "torus[:U:V]"                     closed quads, U x V (default 24 x 12; "torus:N" is N x N),
 *                                     genus 1
 *   "grid[:NX:NY]"                    open quads, NX x NY (default 8 x 8); where NX, NY >= 8 two
 *                                     2 x 2 holes are cut out (three boundary loops, genus 0)
 *   "mixed"                           open disk of one hexagon, 6 quads and 6 triangles
 * Sizes are limited so the result fits in 32-bit indices. The mesh lives in the context's
 * space. Errors: MMX_ERR_ARG (unknown name or bad size, named in the detail), MMX_ERR_OVERFLOW,
 * MMX_ERR_NOMEM. Synchronises: no (built on the host, the copy to the device queued). */
mmx_status mmx_mesh_shape(mmx_ctx *ctx, const char *spec, mmx_mesh **out);

/* ---- tags: OpenSubdiv's creases, corners, holes and options -------------------------------- */

/* The tags of OpenSubdiv's shape format, as data. A mesh carries them as the OBJ 't' lines it
 * was read with (mesh->tags); mmx_mesh_tags_parse reads them into this form, checked against
 * the mesh, and mmx_mesh_set_tags writes a tag set back as 't' lines, which the OBJ writer
 * keeps. Sharpness: 0 smooth, 10 and above infinitely sharp, as in OpenSubdiv (negative values
 * read as 0). The options hold the file's value, or -1 where the file gives none.
 * mmx_subdivide honours the boundary mode, corners, creases and the crease method (subdiv.h);
 * holes, smooth triangles and the face-varying options not yet. */
typedef struct mmx_mesh_tags {
    mmx_index ncreases;
    mmx_index *crease_verts;       /* 2 * ncreases: the two ends of each creased edge */
    float *crease_sharpness;       /* ncreases */
    mmx_index ncorners;
    mmx_index *corner_verts;       /* ncorners: sharp vertices */
    float *corner_sharpness;       /* ncorners */
    mmx_index nholes;
    mmx_index *holes;              /* nholes face numbers */
    int interpolate_boundary;      /* 't interpolateboundary': 0 none, 1 edge and corner, 2 edge
                                      only (OpenSubdiv's VTX_BOUNDARY_*) */
    int fvar_interpolate_boundary; /* 't facevaryinginterpolateboundary': 0..5, OpenSubdiv's
                                      FVAR_LINEAR_* in order (none, corners only, corners plus
                                      1, corners plus 2, boundaries, all) */
    int fvar_propagate_corners;    /* 't facevaryingpropagatecorners': 0 or 1 */
    int crease_method;             /* 't creasemethod': 0 normal (uniform), 1 chaikin */
    int smooth_triangles;          /* 't smoothtriangles': 0 catmark, 1 smooth */
} mmx_mesh_tags;

/* Parses mesh->tags (none gives an empty set: no creases, corners or holes, options -1).
 * Lines: "t NAME I/F/S", then I integers, F floats and S strings; crease takes vertex pairs
 * and one sharpness for all or one per pair, corner vertices likewise, hole face numbers, the
 * options one integer or string each. Several lines of a kind add up (the options: the last
 * wins). Checks: the format, the counts, vertices and faces in range, each crease an edge of
 * the mesh. Errors: MMX_ERR_MESH naming the line (1-based in mesh->tags) and the problem;
 * MMX_ERR_UNSUPPORTED for the hierarchical edits (vertexedit, edgeedit, faceedit), which
 * OpenSubdiv 3 does not have either; MMX_ERR_ARG, MMX_ERR_NOMEM, MMX_ERR_CUDA.
 * Cost: O(nnz + tag arguments x log nnz) (the faces' edges sorted once, each crease searched).
 * Synchronises: for a device mesh with creases, whose faces are copied to the host. */
mmx_status mmx_mesh_tags_parse(mmx_ctx *ctx, const mmx_mesh *mesh, mmx_mesh_tags **out);

/* Frees a tag set from mmx_mesh_tags_parse; NULL is accepted. */
void mmx_mesh_tags_free(mmx_mesh_tags *tags);

/* Replaces mesh->tags by `tags` written as 't' lines (NULL, or an empty set, removes them),
 * after the checks of mmx_mesh_tags_parse (on error the mesh keeps its tags). A C program sets
 * a mesh's creases this way; they are written with the mesh as OBJ. The caller's arrays may
 * be freed when it returns. Errors: as mmx_mesh_tags_parse, and MMX_ERR_ARG for a negative
 * count or a count above 0 whose arrays are NULL (named). Synchronises: as it. */
mmx_status mmx_mesh_set_tags(mmx_ctx *ctx, mmx_mesh *mesh, const mmx_mesh_tags *tags);

/* ---- inspection --------------------------------------------------------------------------- */

#define MMX_STATS_ORDERS 16

/* What mmx_mesh_stats_compute finds. An edge is an unordered pair of vertices that follow each
 * other in some face (the last vertex and the first included); its "sides" are the faces that
 * have it. The fans of a vertex v are the classes of the faces around v, two faces being in one
 * class when a chain of faces around v, each sharing an edge at v with the next, joins them: a
 * vertex inside a surface has one closed fan, one on a boundary one open fan, the tip where two
 * cones touch (or the middle of a bowtie) has two. */
typedef struct mmx_mesh_stats {
    mmx_index nverts, nfaces, nedges;
    int64_t ncorners;                  /* sum of face orders: nnz of M */
    mmx_index min_order, max_order;    /* 0 for a mesh without faces */
    mmx_index uniform_order;           /* c when every face has order c (reduced form applies),
                                          else 0 (also 0 without faces) */
    mmx_index order_hist[MMX_STATS_ORDERS]; /* [c] faces of order c for 3 <= c < 15; [15] faces
                                          of order >= 15; [0..2] unused */
    mmx_index boundary_edges;          /* edges with one side */
    mmx_index boundary_loops;          /* components of the graph whose nodes are the fans with a
                                          boundary edge and whose links are the boundary edges
                                          (each joins the fans of its two faces' corners at its
                                          ends). Without non-manifold edges every such fan has
                                          two boundary edges, so this is the number of closed
                                          boundary loops, pinched vertices included: two holes
                                          that touch at a vertex are paired through the fans
                                          there, as if the vertex were split into its fans (a
                                          bowtie has 2 loops). A walk around a vertex also
                                          stops at a non-manifold edge, so with such edges
                                          each sheet that meets one has its own boundary
                                          loops (a hundred quads on one edge: 100). */
    mmx_index nonmanifold_edges;       /* edges with three or more sides */
    mmx_index nonmanifold_verts;       /* vertices with two fans or more, or on a non-manifold
                                          edge */
    mmx_index inconsistent_edges;      /* two-sided edges whose two faces run it the same way
                                          (edges with three sides or more are not counted) */
    mmx_index first_nonmanifold_vert;  /* the smallest non-manifold vertex, -1 if none */
    mmx_index inconsistent_edge[2];    /* the ends (smaller first) of the inconsistent edge of
                                          the smallest end, -1 -1 if none */
    mmx_index repeated_faces;          /* faces with the same vertex set as a face of a
                                          smaller number, in any cyclic order */
    mmx_index repeated_face[2];        /* the repeated pair whose larger face is smallest
                                          (smaller face first), -1 -1 if none */
    int repeated_orientation;          /* how repeated_face[1] runs the other's vertices: 1 in
                                          the same cyclic order (a duplicated face), -1 in the
                                          opposite one (two triangles glued along all three
                                          edges: a two-sided pillow), 0 in another order or
                                          when there is no repeated face */
    mmx_index isolated_verts;          /* vertices in no face */
    mmx_index components;              /* classes of faces, two faces being joined when they
                                          share a vertex; isolated vertices make none */
    int64_t euler;                     /* V - E + F, V counting the vertices in faces only */
    int manifold;                      /* no non-manifold edge or vertex */
    int oriented;                      /* manifold and no inconsistent edge */
    int genus_valid;                   /* the mesh is oriented (hence manifold, and the loops
                                          are closed loops) and 2C - euler - loops came out even
                                          and non-negative, as it always does then */
    mmx_index genus;                   /* sum over components: (2C - euler - loops) / 2, with C
                                          = components; 0 unless genus_valid */
    float bbox_min[3], bbox_max[3];    /* of the vertices in faces; zeros if none, or if the
                                          mesh has no positions */
} mmx_mesh_stats;

/* Computes the statistics above from the mesh's adjacency (mmx_adjacency_compute) and its
 * half-edge view, both built on the context's backend (a mesh in the other space is copied
 * there first); the counts run there too (on CUDA the union-finds of the components and loops,
 * the firsts and the box as order-free atomics, so the numbers are the host's; two faces whose
 * vertex-set hashes meet are compared on the host, which copies the faces then).
 * Works on either form of the mesh matrix. Never fails on a non-manifold or badly oriented
 * mesh: those are counted, not refused. On error *st is zeroed.
 * Errors: MMX_ERR_ARG (also for a matrix assembled by hand whose face holds a vertex twice in
 * a row, named), MMX_ERR_NOMEM, MMX_ERR_CUDA, and those of mmx_adjacency_compute.
 * Cost: the adjacency's, then O(nverts + nnz) for the view and the counts (a walk around every
 * vertex), and O(F log F) for the repeated faces (a sort of the faces by a hash of their
 * vertex sets). Synchronises: yes, on CUDA: the adjacency's waits, then one read-back of the
 * counts (and the faces' copy when two hashes meet). */
mmx_status mmx_mesh_stats_compute(mmx_ctx *ctx, const mmx_mesh *mesh, mmx_mesh_stats *st);

/* ---- validation ---------------------------------------------------------------------------- */

/* What a caller expects of a mesh beyond the structural checks (mmx_mesh_validate): its Euler
 * characteristic and its number of boundary loops, each checked only when asked. */
typedef struct mmx_mesh_expect {
    int check_euler;           /* nonzero: the Euler characteristic must be `euler` */
    int64_t euler;
    int check_boundary_loops;  /* nonzero: the boundary loops must number `boundary_loops` */
    mmx_index boundary_loops;
} mmx_mesh_expect;

/* What mmx_mesh_validate finds. `stats` is mmx_mesh_stats_compute's (manifold edges and
 * vertices, orientation, repeated faces, boundary edges and loops, Euler characteristic);
 * the degenerate faces are counted here. A face is degenerate when its area (half the length
 * of its Newell normal, in double precision) is at most 1e-12 times the square of its longest
 * edge, i.e. zero up to float rounding of its coordinates; a face that repeats a vertex is
 * refused before (by the readers and mmx_mesh_from_faces; an assembled matrix by the stats,
 * MMX_ERR_ARG). */
typedef struct mmx_mesh_validation {
    mmx_mesh_stats stats;
    mmx_index degenerate_faces;     /* faces of (near) zero area; 0 when the mesh has no
                                       positions (positions_checked is then 0) */
    mmx_index first_degenerate_face;/* the smallest such face, -1 if none */
    int positions_checked;          /* the mesh has positions, so the areas were checked */
    int valid;                      /* manifold, oriented, no degenerate and no repeated face,
                                       and what `expect` asked for holds */
    char problem[192];              /* the first violation as a sentence naming its element
                                       ("vertex 12 is non-manifold ..."), "" when valid */
} mmx_mesh_validation;

/* Checks a mesh and fills *report (either form, either space: a device mesh on a CUDA
 * context is checked on the device, degenerate faces included; elsewhere the positions are read
 * through a host copy). The
 * checks, in the order the first violation is chosen: manifold (no edge with three faces or
 * more, no vertex with two fans: stats.first_nonmanifold_vert is named), consistent
 * orientation (the inconsistent edge of stats is named), no degenerate face (named), no
 * repeated face (the pair is named), then, when `expect` asks, the Euler characteristic and
 * the number of boundary loops. With expect NULL the call only reports: MMX_OK whatever the
 * mesh. With expect non-NULL it also enforces: MMX_ERR_MESH with report->problem as the
 * context's detail when the mesh is not valid (the report is filled either way).
 * Errors: MMX_ERR_MESH (as said), MMX_ERR_ARG (NULL mesh or report), those of
 * mmx_mesh_stats_compute; on those the report is zeroed. Cost: the stats', plus O(nnz) for
 * the areas. Synchronises: as mmx_mesh_stats_compute, then once more for the areas' count. */
mmx_status mmx_mesh_validate(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_mesh_expect *expect,
                             mmx_mesh_validation *report);

/* ---- adjacency by algebra ----------------------------------------------------------------- */

/* A mesh's adjacency, derived from its mesh matrix by the implicit product M·Mᵀ (thesis 4.1,
 * 4.2, 5.2). Every array lives in `space`. An edge is an unordered pair of vertices that follow
 * each other in some face. Edges are numbered by the upper triangle of E in column order:
 * column j's entries i < j come first in the column (rows are ascending), and the edge {i, j}
 * with i < j is number edge_ptr[j] + (the position of i in column j). */
typedef struct mmx_adjacency {
    mmx_index nverts, nfaces, nedges;
    mmx_index boundary_edges;     /* edges with one face */
    mmx_index nonmanifold_edges;  /* edges with three faces or more */
    mmx_index boundary_verts;     /* vertices on a boundary edge */
    mmx_index max_valence;        /* the largest entry of valence (0 without vertices) */
    mmx_index face_order;         /* the order every face has (3 for triangles, 4 for quads),
                                     0 when orders differ or there are no faces */
    mmx_csc *E;          /* nverts x nverts: E(i,j) = the number of faces with the edge {i,j}
                            (1 boundary, 2 inner, 3 or more non-manifold), from
                            M <CYCLE_BOTH p=1, MAP, SUM> Mᵀ */
    mmx_csc *F;          /* nverts x nverts: F(i,j) = the face holding the half-edge i -> j (j
                            follows i in the face), from M <CYCLE p=1, K, MIN> Mᵀ: the smallest
                            such face when several hold it (non-manifold or badly oriented) */
    mmx_index *edge_ptr; /* nverts + 1: edge_ptr[j] is the number of the first edge {i, j}, i < j */
    mmx_index *ev;       /* 2 * nedges: ev[2e] < ev[2e+1], the two ends of edge e */
    mmx_index *sides;    /* nedges: the number of faces with edge e (E's value) */
    mmx_index *fe;       /* nnz(M), one per entry of M in storage order: the corner of vertex v
                            in face k, followed in the face by w, gets 2e + d, e the edge {v, w}
                            and d = 0 if v < w (the face runs e from its lower end), else 1 */
    mmx_index *valence;  /* nverts: the number of faces at each vertex, M·1 */
    unsigned char *boundary; /* nverts: 1 for a vertex on a boundary edge, else 0 */
    mmx_space space;
    mmx_ctx *ctx;        /* the context that computed it, as mmx_csc's ctx (spla.h): the arrays
                            go back to its memory, in its stream's order, when freed, so it must
                            outlive the adjacency */
    int view;            /* 0 from mmx_adjacency_compute; 1 for the library's view of another
                            adjacency's arrays (a mesh's cached one, borrowed for one call):
                            mmx_adjacency_free then frees the struct alone */
} mmx_adjacency;

/* Computes the adjacency of a mesh on the context's backend (the mesh must live in the
 * context's space). Host and CUDA give identical results. Works on any mesh the library
 * accepts, non-manifold ones included (their edges are counted, not refused).
 * Errors: MMX_ERR_ARG, MMX_ERR_SPACE, MMX_ERR_OVERFLOW, MMX_ERR_NOMEM, MMX_ERR_CUDA.
 * Cost: two implicit products (O(nnz) each), scans and binary searches: O(nnz log maxdeg).
 * Memory: the arrays are sized by bounds known before any count (nedges <= nnz(M)), and E by
 * its products' bound (2 nnz(M)), so that nothing waits for a size.
 * Synchronises: once, on CUDA, to read the sizes and counts (host fields; a fault) of every
 * stage together. */
mmx_status mmx_adjacency_compute(mmx_ctx *ctx, const mmx_mesh *mesh, mmx_adjacency **out);

/* Frees an adjacency and its arrays, which go back to the memory of adj->ctx after the work
 * queued on its stream; NULL is accepted. Synchronises: no. */
void mmx_adjacency_free(mmx_adjacency *adj);

/* ---- reordering --------------------------------------------------------------------------- */

/* A new mesh with vertices and faces renumbered: new vertex v is old vertex vperm[v], new
 * face f is old face fperm[f] (either may be NULL for the identity). vperm and fperm are host
 * arrays. Faces keep their cyclic order; positions move with their vertices. OBJ tags are not
 * carried over, since they name vertices by their old numbers; texture coordinates move with
 * their faces. The result has the source's
 * form and space. Errors: MMX_ERR_ARG if a permutation repeats or leaves the range (the detail
 * names the entry), MMX_ERR_NOMEM, MMX_ERR_CUDA. Cost: O(nnz + nverts + nfaces).
 * Synchronises: no: the permutations are checked on the host, and on CUDA copied and applied
 * by queued work (vperm and fperm may be freed when it returns); but a general-form mesh on
 * the device with texture coordinates (host memory) has its face offsets read, a wait, and
 * coordinates in device memory (a refined mesh's) are read on the host and the permuted set
 * stays there. */
mmx_status mmx_mesh_permute(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_index *vperm,
                            const mmx_index *fperm, mmx_mesh **out);

/* A copy of the mesh in random vertex and face order (a scanned mesh's order), reproducible
 * from `seed`: Fisher-Yates shuffles driven by splitmix64 from the seed (vertices first, then
 * faces), so a seed gives the same order on every platform and backend. The permutations used
 * are written to vperm / fperm when not NULL (host arrays of nverts / nfaces entries).
 * Errors: as mmx_mesh_permute. Synchronises: no, as mmx_mesh_permute. */
mmx_status mmx_mesh_shuffle(mmx_ctx *ctx, const mmx_mesh *mesh, uint64_t seed,
                            mmx_index *vperm, mmx_index *fperm, mmx_mesh **out);

/* The thesis's reordering (4.3.4): vertices by reverse Cuthill-McKee on the vertex adjacency
 * (the pattern of E), then faces sorted by their smallest new vertex (ties by old face
 * number), so that both the vertices of a face and the faces around a vertex sit close in
 * memory. The permutations used are written to vperm / fperm when not NULL (host arrays of
 * nverts / nfaces entries). Errors: as mmx_adjacency_compute and mmx_mesh_permute.
 * Cost: the adjacency on the context's backend, RCM on the host, the permutation where the
 * mesh lives. Synchronises: yes, on CUDA: the adjacency, and the host reads E and M. */
mmx_status mmx_mesh_reorder(mmx_ctx *ctx, const mmx_mesh *mesh, mmx_index *vperm,
                            mmx_index *fperm, mmx_mesh **out);

#ifdef __cplusplus
}
#endif
#endif
