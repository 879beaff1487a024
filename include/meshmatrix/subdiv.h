/*
 * meshmatrix/subdiv.h: Loop, sqrt3, Catmull-Clark and bilinear subdivision through the algebra.
 *
 * Two paths compute the same refinement (opts->path):
 *   - the fused path (the default): the input's adjacency once, then a half-edge view (each
 *     corner's edge and twin, each vertex's first corner, the child's edge numbering) carried
 *     from level to level in closed form, and one pass per level writing every new position
 *     and the child topology (thesis chapter 5's specialised kernels, with the numbering of the
 *     algebraic path);
 *   - the algebraic path, the reference: each level is the thesis's chapter 4 written as a few
 *     mapped SpMVs with the mesh matrix M, the vertex adjacency E, the half-edge faces F, the
 *     edge-vertex matrix EV and the face-edge matrix FE (all from mmx_adjacency_compute),
 *     followed by the child topology read off FE or F.
 * Both give identical topology (same vertex and face numbers) and positions within float
 * rounding of each other; host and CUDA agree likewise, and positions agree with OpenSubdiv
 * (Loop, Catmull-Clark, bilinear) and OpenMesh (sqrt3) to 1e-5 of the bounding-box diagonal, topology
 * exactly up to vertex and face order.
 *
 * Output layout (thesis 4.1.2, 4.2.2, 4.3.2), per level:
 *   vertices  the updated old vertices (same numbers as before), then one face point per face
 *             (Catmull-Clark, bilinear, sqrt3; in face order), then one edge point per edge
 *             (Loop, Catmull-Clark, bilinear; in mmx_adjacency's edge order)
 *   faces     the children of a face stored together, in parent order: Catmull-Clark makes c
 *             quads from a face of order c, (v_s, e(v_s v_s+1), f, e(v_s-1 v_s)) for each
 *             corner s; Loop 4 triangles, the middle one (e_kl, e_lm, e_mk) first, then those
 *             at k, l, m; sqrt3 3 triangles (v_s, f', f) for each corner s, f' the face across
 *             the edge v_s -> v_s+1. Bilinear makes Catmull-Clark's children.
 * The refined mesh is in the reduced form (order 4 for Catmull-Clark and bilinear, 3 for the
 * others). Bilinear's positions are linear: old vertices stay, an edge point is the edge's
 * midpoint, a face point its face's centroid, boundary or not.
 *
 * Boundaries: Loop and Catmull-Clark use the thesis's rule, OpenSubdiv's "edge only" boundary
 * interpolation: a boundary edge's point is its midpoint, a boundary vertex moves to
 * 3/4 p + 1/8 (p_prev + p_next) (eq. 4.13-4.14, 4.25-4.26); corners are not kept sharp, unless
 * opts->boundary is MMX_BOUNDARY_EDGE_AND_CORNER, where a boundary vertex on a single face
 * stays where it is (OpenSubdiv's corner rule), at every level.
 * sqrt3 refines boundaries by Kobbelt's rule (as OpenMesh's Sqrt3T; src/subdiv/rules.h), by the
 * generation g of a level, its 0-based number within the call:
 *   g even: every face gets its centre and is cut into three around it; a boundary edge a -> b
 *           is not flipped (its child is (a, b, c)); boundary vertices stay where they are.
 *   g odd:  each boundary edge a -> b is cut in three, at l = (16 a + 10 b + a') / 27 and
 *           r = (10 a + 16 b + b') / 27 (a', b' the other boundary neighbours of a and b); its
 *           face gets no centre and splits into (a, l, x), (l, r, x), (r, b, x) (x its third
 *           corner), the first and last flipped with the faces across x -> a and b -> x; a
 *           boundary vertex moves to (4 p_prev + 19 p + 4 p_next) / 27.
 *   Inner vertices and faces follow the closed rule at every level. Along the boundary two
 *   levels are the ternary subdivision of the cubic B-spline.
 * Each call starts at g = 0 (as each call of OpenMesh's subdivider does): a second call on the
 * result does not continue the first's parity, so on a mesh with boundary two calls of one
 * level give another (equally valid) surface than one call of two levels; call once with all
 * the levels to get Kobbelt's sequence. On an odd generation a face with a boundary edge holds
 * l in its face slot, and r follows the face slots (one per such face, in face order); the
 * child of its corner a is (l, r, x), of b (b, *, r), of x (x, *, l), * the vertex that the face
 * across puts opposite the shared edge (the general form of the closed layout: each corner's
 * child takes the two vertices the flip of its edge joins). So that
 * level has one vertex and one edge more per boundary face than mmx_subdiv_predict's count,
 * which knows nothing of boundaries; the face count is the same. The default path sends such a
 * mesh to the algebraic path (its children are made on the host: on CUDA a wait per level).
 * The fused path (MMX_SUBDIV_PATH_FUSED) and plans take it too: each level's topology is the
 * algebraic path's and its half-edge view is built from its adjacency (so the fused path costs
 * the algebraic one and more: a wait more per level on CUDA), and the fused passes write the
 * positions (the cut points and boundary vertices by the rule above), which is what a plan
 * re-evaluates per frame; same topology, positions within float rounding. The boundary modes
 * (opts->boundary, 'interpolateboundary') do not apply to sqrt3.
 *
 * The mesh's tags (OBJ 't' lines, mesh.h) are read here, with OpenSubdiv's rules (Sdc):
 *   - 'interpolateboundary' gives the boundary mode unless opts->boundary names one (1 edge and
 *     corner, 2 edge only, 0 none: the faces at boundary vertices become holes, below);
 *   - 'corner' makes vertices sharp: a vertex of sharpness s is a corner (it keeps its place)
 *     while s, falling by one per level (10 and above: for ever), stays positive after the
 *     level, and at the level where it falls to 0 its rule is the blend s corner + (1 - s) rule;
 *   - 'crease' makes edges sharp (Loop and Catmull-Clark): an edge of sharpness s >= 1 has its
 *     midpoint as its point, its children have sharpness s - 1 (with 'creasemethod chaikin' or
 *     opts->crease MMX_CREASE_CHAIKIN: 3/4 s plus 1/4 the mean of the other semi-sharp edges at
 *     that end, less 1), and where a child turns smooth the edge's point is OpenSubdiv's blend;
 *     a vertex on two sharp edges follows the crease rule, on more (or sharp itself) stays, on
 *     one (a dart) or none is smooth, blended at the level where its kind changes. Boundary
 *     edges are infinitely sharp. Both paths honour creases (the algebraic path builds a
 *     creased level's tables on the host: on CUDA a wait per level). Bilinear and sqrt3 have
 *     no sharp rules (OpenSubdiv's bilinear scheme, OpenMesh's Sqrt3T): creases and corners
 *     do not apply to them.
 *   - 'hole' faces are refined like any other, and their descendants are left out of the
 *     result with the vertices only they use (opts->holes, MMX_HOLES_REMOVE), or kept and
 *     tagged (MMX_HOLES_KEEP). Removing them selects the kept faces and vertices on the
 *     context's backend (the result stays where it was made; the waits below).
 * Tags that do not parse are refused (MMX_ERR_MESH naming the line; hierarchical edits
 * MMX_ERR_UNSUPPORTED). 'smoothtriangles smooth' (or opts->triangles) selects Catmull-Clark's
 * smooth-triangle edge rule.
 * Texture coordinates (mesh->uv, face-varying data) are refined with OpenSubdiv's face-varying
 * interpolation (opts->fvar, or the 'facevaryinginterpolateboundary' tag; by default linear
 * everywhere, FVAR_LINEAR_ALL: a child corner takes its parent face's corner value, the mean
 * at an edge's ends in that face, or the face's mean; equal values shared). The smooth modes
 * refine the texture mesh (the coordinates as vertices, the same faces) by the scheme's rules
 * with the mesh's creases and corners, seams and boundaries sharp. On the context's backend,
 * on either path: the texture mesh is built on the host from the input (a cage: on CUDA its
 * faces and coordinates are read back: waits) and refined by this function on the context
 * (bilinearly for the linear mode of Catmull-Clark and bilinear, whose numbering it gives;
 * on CUDA the fused kernels, with its own waits for its adjacency and checks). In that linear
 * mode (the default), with coordinates in host memory (as read, on a device mesh too), the
 * default path keeps the checked texture mesh in the mesh's cache (mmx_mesh_cache_bytes; made
 * by the first call, again where mesh->uv->index has changed): a later call copies the
 * coordinates into it and queues its levels with no wait, so a textured cage on CUDA waits
 * twice a call, as one without coordinates; the algebraic path builds and refines it at
 * every call (the reference, the same bytes). The smooth modes and coordinates in device
 * memory (a refined result refined again) build it at every call. Loop's linear
 * mode, and a texture mesh that a mesh matrix cannot hold (a face repeating a coordinate),
 * take each child corner's coordinate face by face and number them by value (a stable radix
 * sort of their bits; on CUDA kernels and one wait for the count). On CUDA the result's
 * coordinates stay in device memory (mmx_mesh_uv.space; mesh.h), with the host's numbering
 * exactly and values within float rounding. No mode is left to the host. sqrt3 and plans do
 * not refine them (the result has none). The refined mesh's tags are the honoured ones, decayed, so that a second call
 * continues where the first stopped: the input's 'interpolateboundary', the corners still
 * sharp after the levels, the creases still sharp (the halves of each, with their sharpness,
 * and the crease method), and with MMX_HOLES_KEEP the holes' descendants; the others are not
 * carried.
 */
#ifndef MESHMATRIX_SUBDIV_H
#define MESHMATRIX_SUBDIV_H

#include "core.h"
#include "mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest coordinate magnitude subdivision takes, positions and texture coordinates alike
 * (about the square root of FLT_MAX). Every rule is a weighted mean, but the paths sum before
 * they divide (a face's corners, a vertex's neighbours, up to n(n + 5) times a position in a
 * limit mask), in different orders: near FLT_MAX one path overflowed where the other did not.
 * Below this bound no sum overflows whatever the valences and face orders (32-bit counts), so
 * both paths, both backends, plans and the limit give finite results that agree; coordinates
 * beyond it, NaN or infinite are refused by every entry point here (MMX_ERR_MESH naming the
 * vertex and the coordinate), before any work. */
#define MMX_SUBDIV_COORD_MAX 1e18f

typedef enum mmx_scheme {
    MMX_SCHEME_LOOP = 0,          /* triangles in, triangles out, 4 children per face */
    MMX_SCHEME_SQRT3,             /* triangles in, triangles out, 3 children per face;
                                     boundaries by Kobbelt's rule (above) */
    MMX_SCHEME_CATMULL_CLARK,     /* any polygons in, quads out, c children per face of order c */
    MMX_SCHEME_BILINEAR           /* Catmull-Clark's children with linear positions: vertices
                                     stay, edge points are midpoints, face points centroids
                                     (OpenSubdiv's SCHEME_BILINEAR) */
} mmx_scheme;

/* How boundaries are refined (Loop, Catmull-Clark; bilinear and sqrt3 are not affected). */
typedef enum mmx_boundary {
    MMX_BOUNDARY_FROM_MESH = 0,      /* the default: the mesh's 'interpolateboundary' tag (1:
                                        edge and corner, 2: edge only), else edge only */
    MMX_BOUNDARY_EDGE_ONLY = 1,      /* boundary edges are creases; corners are not sharp
                                        (OpenSubdiv's VTX_BOUNDARY_EDGE_ONLY) */
    MMX_BOUNDARY_EDGE_AND_CORNER = 2, /* also: a boundary vertex on a single face is a sharp
                                        corner and stays where it is (VTX_BOUNDARY_EDGE_AND_CORNER,
                                        OBJ 't interpolateboundary 1/0/0 1') */
    MMX_BOUNDARY_NONE = 3            /* no boundary surface: the faces touching the boundary are
                                        holes (refined, then left out or kept as opts->holes
                                        says; VTX_BOUNDARY_NONE, 't interpolateboundary 1/0/0 0') */
} mmx_boundary;

/* How a crease's sharpness passes to its children (Loop, Catmull-Clark). */
typedef enum mmx_crease_method {
    MMX_CREASE_FROM_MESH = 0, /* the default: the mesh's 'creasemethod' tag, else uniform */
    MMX_CREASE_UNIFORM = 1,   /* each child has the parent's sharpness less 1 (OpenSubdiv's
                                 CREASE_UNIFORM) */
    MMX_CREASE_CHAIKIN = 2    /* the child at an end: 3/4 the parent's sharpness plus 1/4 the
                                 mean of the other semi-sharp edges there, less 1 (CREASE_CHAIKIN,
                                 OBJ 't creasemethod 0/0/1 chaikin') */
} mmx_crease_method;

/* Catmull-Clark's rule for edges beside triangles. */
typedef enum mmx_triangle_rule {
    MMX_TRIANGLES_FROM_MESH = 0, /* the default: the mesh's 'smoothtriangles' tag, else
                                    Catmull-Clark's */
    MMX_TRIANGLES_CATMARK = 1,   /* every edge by Catmull-Clark's rule (TRI_SUB_CATMARK) */
    MMX_TRIANGLES_SMOOTH = 2     /* a smooth edge with a triangle among its two faces weighs
                                    the faces' points more (TRI_SUB_SMOOTH, 't smoothtriangles
                                    0/0/1 smooth'; rules.h), for rounder triangles */
} mmx_triangle_rule;

/* How texture coordinates (mesh->uv, face-varying data) are refined: OpenSubdiv's
 * face-varying interpolation (Sdc::Options::FVarLinearInterpolation). */
typedef enum mmx_fvar_mode {
    MMX_FVAR_FROM_MESH = 0,    /* the default: the mesh's 'facevaryinginterpolateboundary' tag
                                  (0 smooth, 1 corners only, 4 boundaries, 5 all; 2 and 3 are
                                  refused, MMX_ERR_UNSUPPORTED), else linear everywhere */
    MMX_FVAR_LINEAR_ALL = 1,   /* linear everywhere (FVAR_LINEAR_ALL) */
    MMX_FVAR_SMOOTH = 2,       /* smooth, seams and boundaries as creases (FVAR_LINEAR_NONE) */
    MMX_FVAR_CORNERS_ONLY = 3, /* smooth, with the corners of the texture charts kept
                                  (FVAR_LINEAR_CORNERS_ONLY) */
    MMX_FVAR_BOUNDARIES = 4    /* smooth inside, linear along seams and boundaries
                                  (FVAR_LINEAR_BOUNDARIES) */
} mmx_fvar_mode;

/* What becomes of the faces descending from a hole face of the input (OBJ 't hole'). Holes are
 * refined like every face (their vertices and edges shape their neighbours, as OpenSubdiv's);
 * only their descendants differ. */
typedef enum mmx_hole_mode {
    MMX_HOLES_REMOVE = 0, /* the default: left out of the result, with the vertices that only
                             they use (OpenSubdiv's refined surface); vertices are renumbered
                             in order, and carried corners and creases with them */
    MMX_HOLES_KEEP = 1    /* kept, and tagged as holes in the result ('t hole' naming them), so
                             that a later call continues as one call would */
} mmx_hole_mode;

/* The figures of one refined level, reported when the options ask for them. */
typedef struct mmx_subdiv_level {
    mmx_index nverts, nfaces, nedges; /* of the refined mesh at this level (nedges: of the
                                         refined mesh, known in closed form; hole faces'
                                         children included, which the result leaves out) */
    double ms;                        /* wall time of the level (CUDA: the stream synchronized
                                         at both ends); the algebraic path includes the
                                         adjacency of each level's input, the fused path that
                                         of the input mesh and its half-edge view in level 1 */
} mmx_subdiv_level;

/* Which implementation refines. Both give the same topology, in the same order, and positions
 * within float rounding of each other (tests hold them to 1e-6 of the bounding box). */
typedef enum mmx_subdiv_path {
    MMX_SUBDIV_PATH_AUTO = 0,     /* the fused path, but for edges of three faces or more and
                                     sqrt3 with boundary: the algebraic one */
    MMX_SUBDIV_PATH_FUSED,        /* one pass per level over a half-edge view carried from level
                                     to level in closed form: the fast path */
    MMX_SUBDIV_PATH_ALGEBRAIC     /* the reference: mapped SpMVs and the adjacency per level */
} mmx_subdiv_path;

/* Options. A zeroed struct (or a NULL pointer) means the defaults, and fields are only ever
 * added at the end with zero meaning the old behaviour, so `mmx_subdiv_options o = {0};`
 * stays valid as the struct grows. */
typedef struct mmx_subdiv_options {
    mmx_boundary boundary;        /* default MMX_BOUNDARY_FROM_MESH */
    mmx_subdiv_level *trace;      /* if not NULL: `levels` entries, filled level by level */
    mmx_subdiv_path path;         /* default MMX_SUBDIV_PATH_AUTO */
    mmx_crease_method crease;     /* default MMX_CREASE_FROM_MESH */
    mmx_hole_mode holes;          /* default MMX_HOLES_REMOVE */
    mmx_triangle_rule triangles;  /* default MMX_TRIANGLES_FROM_MESH (Catmull-Clark only) */
    mmx_fvar_mode fvar;           /* default MMX_FVAR_FROM_MESH */
    int limit;                    /* nonzero: the result's vertices are pushed to the limit
                                     surface (mmx_subdiv_limit's positions; its normals come
                                     from mmx_subdiv_limit on the result). Default 0 */
} mmx_subdiv_options;

/* The sizes after `levels` levels of `scheme` applied to a mesh with the given counts (nnz: the
 * sum of the face orders), computed in closed form in 64 bits: each level of Catmull-Clark
 * gives V + F + E vertices, nnz faces and 2E + nnz edges; Loop V + E, 4F, 2E + 3F; sqrt3
 * V + F, 3F, E + 3F (closed; with boundary each odd level adds one vertex and one edge more
 * per boundary face, see above). *nnz_out is the refined mesh's number of corners. Any of the
 * outputs may be NULL. Errors: MMX_ERR_ARG (negative counts or levels, unknown scheme),
 * MMX_ERR_OVERFLOW when a count reaches 2^58 before a level (the next levels' counts would
 * not fit in 64 bits; no mesh that large can be stored): the outputs are then left unset. */
mmx_status mmx_subdiv_predict(mmx_scheme scheme, int64_t nverts, int64_t nfaces, int64_t nedges,
                              int64_t nnz, int levels, int64_t *nverts_out,
                              int64_t *nfaces_out, int64_t *nedges_out, int64_t *nnz_out);

/* Refines `mesh` (with positions) `levels` times by `scheme` on the context's backend and
 * returns the refined mesh and positions in the context's space. levels = 0 returns a copy.
 *
 * Checked before any work, each with a sentence naming the problem and where it is:
 *   - mesh, its positions and out given, levels >= 0, a known scheme and boundary mode
 *     (MMX_ERR_ARG), the mesh in the context's space (MMX_ERR_SPACE);
 *   - Loop and sqrt3: every face a triangle (MMX_ERR_MESH naming the first other face);
 *   - sqrt3: a consistently oriented input (no edge run the same way by both its faces),
 *     without edges of three faces or more or vertices whose faces form several fans
 *     (MMX_ERR_MESH naming the edge or the vertex); on the fused path (opts->path
 *     MMX_SUBDIV_PATH_FUSED), also without boundary (MMX_ERR_UNSUPPORTED naming an edge).
 *     Loop and Catmull-Clark take an edge run the same way by both its faces as OpenSubdiv
 *     does, as a non-manifold edge (below), on the algebraic path.
 *     Loop, Catmull-Clark and bilinear take such a vertex (a non-manifold vertex) as an
 *     infinitely sharp corner at every level, and such an edge (a non-manifold edge) as
 *     infinitely sharp with corners at its ends but inside a non-manifold crease (two such
 *     edges, no boundary, more faces than edges), as OpenSubdiv does. The default path is the
 *     algebraic one for non-manifold edges (inconsistent ones too), and for creases at a
 *     non-manifold vertex; the
 *     fused path refuses those (MMX_ERR_UNSUPPORTED) when named, and so do plans (finding
 *     such vertices costs one more wait on CUDA);
 *   - no face repeating another's vertices in the same order (MMX_ERR_MESH naming both), and
 *     for sqrt3, and Loop on a path named in opts->path, no two triangles on the same three
 *     vertices in opposite orders (a two-sided pillow: legal and manifold, but its children
 *     would share new edges four ways, which a mesh matrix, knowing an edge by its ends,
 *     cannot represent; MMX_ERR_MESH naming both faces). Catmull-Clark refines pillows; Loop
 *     on the default path refines a mesh with a pillow as OpenSubdiv does on face lists, on
 *     the host (mmx_subdivide_faces below: the result's texture coordinates one per corner,
 *     its tags the boundary mode only, so a second call starts the edges anew, from vertex
 *     pairs, and differs from one call of more levels; creases, corners, holes, the limit and
 *     other texture modes are refused there, MMX_ERR_UNSUPPORTED); the mesh-matrix paths'
 *     refusal is the cost of looking (one read of a device mesh);
 *   - every coordinate (positions, texture coordinates) finite and of magnitude at most
 *     MMX_SUBDIV_COORD_MAX (MMX_ERR_MESH naming the vertex);
 *   - the refined counts, and the corners, fit in 32-bit indices (MMX_ERR_OVERFLOW), and the
 *     last level's arrays fit in the memory of the context's backend (MMX_ERR_NOMEM).
 * Isolated vertices are kept where they are; a mesh without faces comes back with its vertices
 * unchanged. With the checks above, refinement keeps the mesh manifold, oriented and free of
 * repeated faces, so only the input is checked: every child edge joins a new vertex to one
 * other vertex through a single parent face or edge (Catmull-Clark), and a Loop or sqrt3 child
 * edge between two new vertices is made by two faces only when they share two edges, which
 * for triangles means the same three vertices.
 * Cost grows linearly with the number of corners on both paths, whatever the face orders.
 *
 * Errors also: MMX_ERR_NOMEM, MMX_ERR_CUDA from the products. On error *out is NULL.
 * Cost: the fused path (the default, opts->path) computes the input's adjacency once (two
 * implicit products M·Mᵀ) and keeps it in the mesh's cache (mesh.h: a later call on the mesh
 * computes none), then runs one pass per level, each reading the level's matrix,
 * half-edge arrays and positions and writing the child's; nothing is sorted after the input.
 * On CUDA the levels are queued back to back with no synchronisation between them.
 * Synchronises (fused path, CUDA): twice on the first call on a mesh, once on later calls (the
 * adjacency kept): to read the input's adjacency counts (sizes and the
 * checks' counts, mmx_adjacency_compute) and the verdict of the input level's checks (a fault
 * to report; the coordinates' check against MMX_SUBDIV_COORD_MAX is part of it, and a
 * refusal reads the offending value back); the algebraic path reads the coordinates' check
 * once more before its adjacency. A mesh's tags are read once per mesh and tags: the first call
 * on a tagged mesh checks them (mmx_mesh_tags_parse reads its faces on the host) and places
 * the creases on the adjacency's edges (read back), waits on CUDA, and keeps the result in the
 * mesh's cache (mesh.h; mmx_mesh_set_tags, or other tag text, makes it anew), so that later
 * calls on the mesh wait twice, as an untagged mesh does: Catmull-Clark lists the creases
 * still sharp after the levels (the result's tags) in closed form from the input's; Loop and
 * the Chaikin method read them back from the last level (one wait more). Holes: leaving their
 * children out reads back, once, the counts kept and the new numbers of the carried corners
 * and creases (one wait more), and the mesh's cache keeps them per scheme, levels and tags,
 * so that a later call of the same levels adds no wait; keeping them (MMX_HOLES_KEEP) waits
 * only to read a general-form cage's face starts. Texture coordinates likewise: in the linear mode
 * of Catmull-Clark and bilinear (the default) on coordinates in host memory, the first call
 * on a mesh reads a general-form cage's face starts back (one wait) and checks the texture
 * mesh (its adjacency and input level: the waits above) and keeps it in the mesh's cache,
 * and later calls add no wait (a textured
 * cage waits twice); otherwise (the smooth modes, coordinates in device memory, the
 * algebraic path) every call reads the faces and coordinates back (waits) and refines the
 * texture mesh with its own waits. The per-corner way (Loop's linear mode) waits once for
 * the number of coordinates (and reads the cage back only where its coordinates are in
 * device memory); the result is queued, ready for
 * the next call on the context (read it with mmx_mesh_copy or after mmx_ctx_sync). The
 * algebraic path waits for every level's adjacency and products.
 * The algebraic path computes the adjacency of every level, about ten mapped SpMVs over M, E,
 * EV and FE and one pass for the child topology; peak memory about 2.5x the refined mesh plus
 * the adjacency of its parent. */
mmx_status mmx_subdivide(mmx_ctx *ctx, mmx_scheme scheme, const mmx_mesh *mesh, int levels,
                         const mmx_subdiv_options *opts, mmx_mesh **out);

/* Refines a face list that a mesh matrix cannot hold (mmx_faces, mesh.h: faces naming a vertex
 * twice, as OpenSubdiv's catmark_nonman_edges, catmark_nonman_quadpole* and loop_nonman_edges
 * shapes have) `levels` times by Loop (triangles), Catmull-Clark or bilinear, as OpenSubdiv
 * refines it: edges are made from the corners by OpenSubdiv's rule (a degenerate edge from a
 * vertex to itself, or an edge a face runs twice, is an edge of its own), boundary and
 * non-manifold edges are infinitely sharp, a non-manifold vertex a corner (but inside a
 * non-manifold crease), and child edges come from their parents, so that two child edges may
 * join the same two vertices (src/subdiv/general.c). Texture coordinates (in->uv) are refined
 * linearly in each face (OpenSubdiv's FVAR_LINEAR_ALL), one per output corner.
 * opts may be NULL; it takes the boundary (edge only, edge and corner, or from the tags) and
 * the trace (each level's sizes and time), and otherwise only defaults (MMX_ERR_UNSUPPORTED
 * for a kept hole, the limit, boundary 'none', a texture mode other than linear, the fused
 * path). Tags: 'interpolateboundary' 1 or 2 and linear face-varying
 * interpolation; creases, corners and holes are refused (MMX_ERR_UNSUPPORTED naming the line).
 * The result's faces may repeat vertices too (a face folded onto itself keeps doing so); where
 * none does, mmx_mesh_from_faces makes it a mesh. mmx_subdivide sends Loop's pillows here.
 * Errors: MMX_ERR_ARG, MMX_ERR_MESH (a face below 3 corners or not a triangle for Loop, an
 * index out of range, a coordinate beyond MMX_SUBDIV_COORD_MAX: naming the face or vertex),
 * MMX_ERR_UNSUPPORTED (sqrt3, options or tags above), MMX_ERR_OVERFLOW, MMX_ERR_NOMEM.
 * Cost: O(corners) per level, on the host (a reference path, in double precision).
 * Synchronises: no (host memory only). */
mmx_status mmx_subdivide_faces(mmx_ctx *ctx, mmx_scheme scheme, const mmx_faces *in, int levels,
                               const mmx_subdiv_options *opts, mmx_faces **out);

/* ---- the limit surface ---------------------------------------------------------------------- */

/* The limit surface of `mesh`'s subdivision surface at its vertices (OpenSubdiv's limit masks,
 * Far::PrimvarRefiner::Limit): `pos` gets each vertex's limit position and `normals` its unit
 * limit normal (t1 x t2 of the two limit tangents, in the faces' orientation; 0 for a vertex in
 * no face or where they are parallel), nverts x 3 floats each in the context's space, either
 * one NULL. The mask follows each vertex's kind at this level: a corner (a corner tag, more
 * than two sharp edges, a boundary corner in the edge-and-corner mode, several fans) stays, a
 * crease vertex (two sharp edges: creases, boundary edges) moves along the crease's B-spline,
 * a smooth vertex by the scheme's limit weights; bilinear vertices stay. Sharpness is read from
 * the mesh's tags, as mmx_subdivide leaves them on its result, and the boundary mode from opts
 * (NULL: the tags'), so the limit of a refined mesh is its input's limit surface. Coordinates
 * as mmx_subdivide takes them (MMX_SUBDIV_COORD_MAX).
 * Catmull-Clark needs quads (a mesh refined once or more), Loop triangles; sqrt3 is refused
 * (MMX_ERR_UNSUPPORTED). Errors also: those of mmx_subdivide's checks (a non-manifold edge, an
 * inconsistent orientation: MMX_ERR_MESH), MMX_ERR_ARG (both outputs NULL), MMX_ERR_NOMEM,
 * MMX_ERR_CUDA. pos and normals must not overlap the mesh's positions. Computed on the
 * context's backend, one vertex at a time by the same rule (host and CUDA agree within float
 * rounding): on CUDA a kernel, with scratch for the largest valence per thread (at most about
 * 256 MB, fewer threads for larger valences). Cost: O(nnz). Synchronises (CUDA): the input
 * checks' and adjacency's waits (as mmx_subdivide's algebraic path), and once more for the
 * orientation check of the half-edge view; the results are then queued. */
mmx_status mmx_subdiv_limit(mmx_ctx *ctx, mmx_scheme scheme, const mmx_mesh *mesh,
                            const mmx_subdiv_options *opts, float *pos, float *normals);

/* ---- limit evaluation at parametric points ------------------------------------------------
 *
 * A limit table evaluates the limit surface of a cage (Catmull-Clark or Loop) at any number of
 * parametric points (face, u, v), with first and second derivatives, as OpenSubdiv's
 * Far::PatchTable and Osd::EvaluatePatches do. Parametrisation (OpenSubdiv's ptex faces):
 *   - Catmull-Clark: a quad is one ptex face, u running from its corner 0 to corner 1, v from
 *     corner 0 to corner 3, (u, v) in [0, 1]^2; a face of order n != 4 is n ptex faces, one per
 *     corner s (its sub-face at level 1: u from v_s towards the midpoint of the edge leaving it,
 *     v towards the midpoint of the edge arriving at it, the face's centre at (1, 1)). Ptex
 *     faces are numbered face by face in face order (mmx_limit_table_ptex gives a face's first
 *     and count).
 *   - Loop: a triangle is one ptex face (its face number), corner 0 at (0, 0), corner 1 at
 *     (1, 0), corner 2 at (0, 1), u, v >= 0 and u + v <= 1.
 * How (OpenSubdiv's Far::PatchTable with Gregory-basis end caps at the same isolation level,
 * its default): each regular cage face (below) is a patch at level 0; the others are refined
 * adaptively, one level at a time, only they and their two rings of faces (by mmx_subdivide,
 * with the options' boundary, crease and triangle rules, so creases, corners, boundaries and
 * holes shape the surface exactly as subdivision does), their regular children becoming
 * patches and the others refined again, down to level `isolation`, where the rest become end
 * caps (a Catmull-Clark face of order n != 4 is refined once at least: its ptex faces start at
 * level 1). A point descends the quadtree of its ptex face to its patch:
 *   - regular (its corners smooth, on no sharp edge, of valence 4 for Catmull-Clark, 6 for
 *     Loop; also on the boundary: Catmull-Clark valence 2 on one boundary edge, Loop 3 faces
 *     (with or without a boundary edge of the face), or a corner of one face with
 *     edge-and-corner boundaries (Loop: or an infinitely sharp corner tag, or
 *     alone in its fan at a vertex of several fans); Catmull-Clark also
 *     beside a straight infinitely sharp crease; the control points beyond reflected as
 *     OpenSubdiv's boundary, corner and infinitely sharp patches do): the bicubic B-spline
 *     patch of its 16 control points (Catmull-Clark) or the quartic box-spline patch of its
 *     12 (Loop), which is the limit surface exactly;
 *   - an end cap whose corners are smooth (inner vertices of valence >= 2 on smooth edges,
 *     boundary vertices, corners of one face): OpenSubdiv's Gregory patch, Catmull-Clark's
 *     GREGORY_BASIS (20 points) and Loop's GREGORY_TRIANGLE (18 points: a quartic triangle),
 *     from the corners' rings: limit points, edge points along the limit tangents, face points
 *     blended rationally (Loop: and the quartic's edge middle points), a smooth corner as the
 *     smooth surface (OpenSubdiv's legacy sharp corner patches off). Corners on an infinitely
 *     sharp crease take it as the bound of their sector (a boundary of it), and a vertex of
 *     more sharp edges, infinitely sharp, of several fans (open or closed), or of one
 *     infinitely sharp edge beside semi-sharp ones (with MMX_LIMIT_CAPS_OPENSUBDIV) is a sharp
 *     corner (of its fan), as OpenSubdiv's infinitely sharp end caps do;
 *   - any other end cap (at a dart, at a semi-sharp feature still sharp unless `caps` is
 *     MMX_LIMIT_CAPS_OPENSUBDIV): the bilinear (Loop: linear) interpolant of its corners'
 *     exact limit positions (mmx_subdiv_limit's masks, applied past any semi-sharp feature's
 *     decay and a dart's, up to 3 levels further down).
 * Accuracy: exact on regular patches; the Gregory end caps are OpenSubdiv's (positions within
 * float rounding of its patch evaluation, both schemes), G1 with their B-spline neighbours,
 * and approach the limit surface as the isolation grows (within about 2e-3 of the diagonal of a
 * cube at isolation 2, 4e-4 at 4); the interpolated caps are exact at their corners and within
 * about curvature * h^2 / 8 between them, h the face size at that level. Derivatives are
 * those of the patch evaluated (on a Gregory patch, of its rational blend exactly, where
 * OpenSubdiv differentiates the Bezier patch with the blend frozen: its derivatives differ
 * there), in the ptex face's (u, v). */
/* The end caps at semi-sharp creases and corners still sharp at the last level: EXACT (the
 * default) interpolates the corners' exact limits (mmx_subdiv_limit past the decay), so that
 * the caps' corners are the limit surface; OPENSUBDIV makes them Gregory patches that ignore
 * that sharpness, as OpenSubdiv's end caps do (its surface there, to float rounding; off
 * the limit surface by the crease's effect within the caps). */
typedef enum mmx_limit_caps { MMX_LIMIT_CAPS_EXACT = 0, MMX_LIMIT_CAPS_OPENSUBDIV = 1 } mmx_limit_caps;

typedef struct mmx_limit_options {
    int isolation;             /* refinement levels before patches, 1 to 8; 0: the default, 2 */
    mmx_limit_caps caps;       /* the end caps at semi-sharp features (above); default EXACT */
    mmx_subdiv_options subdiv; /* boundary, crease method, triangle rule for the refinement
                                  (path, trace, holes and limit are ignored: hole faces are
                                  evaluated as the surface their neighbours see) */
} mmx_limit_options;

typedef struct mmx_limit_table mmx_limit_table;

/* Builds the limit table of `mesh` (with positions, in the context's space) for `scheme`
 * (Catmull-Clark or Loop; others MMX_ERR_UNSUPPORTED) with `opts` (NULL: defaults). The
 * refinement and the patches are computed on the host (the mesh is read back on CUDA); the
 * table then lives in the context's space. Errors: those of mmx_subdivide and
 * mmx_subdiv_limit on the mesh (bad faces, coordinates, non-manifold edges), MMX_ERR_ARG
 * (NULL arguments, isolation out of range, caps unknown), MMX_ERR_NOMEM, MMX_ERR_CUDA. The
 * table keeps ctx,
 * which must outlive it. Cost: linear in the cage plus, per level, the irregular faces and
 * their two rings (extraordinary vertices, creases, n-gons: a triangle cage's every face
 * under Catmull-Clark); memory about 70 bytes per patch or refined face, 12 per control point,
 * 240 per Gregory patch (either scheme's). Synchronises: yes (CUDA: the mesh read back, the table copied). */
mmx_status mmx_limit_table_create(mmx_ctx *ctx, mmx_scheme scheme, const mmx_mesh *mesh,
                                  const mmx_limit_options *opts, mmx_limit_table **out);

/* The number of ptex faces (the valid range of the points' face argument). */
mmx_index mmx_limit_table_nptex(const mmx_limit_table *table);

/* The ptex faces of cage face `face`: the first one and how many (1 for a quad or a Loop
 * triangle, n for a Catmull-Clark face of order n). Errors: MMX_ERR_ARG (face out of range). */
mmx_status mmx_limit_table_ptex(const mmx_limit_table *table, mmx_index face, mmx_index *first,
                                mmx_index *count);

/* Evaluates n points: point i is ptex face face[i] at (u[i], v[i]). Writes 3 floats per point
 * (x, y, z) to each output given: P the position, du, dv the first derivatives, duu, duv, dvv
 * the second ones (any may be NULL). All arrays in the context's space, outputs not
 * overlapping inputs. Deterministic; host and CUDA agree within float rounding (the same
 * arithmetic, rules shared).
 * Errors: MMX_ERR_ARG (NULL table or inputs, every output NULL, n < 0; and naming the first
 * point whose face is out of range or whose (u, v) is outside the domain or not finite: the
 * outputs are then unspecified). Cost: O(n isolation), each
 * point reading one child index per level and one patch (16 indices and positions, Loop's 12,
 * or a Gregory patch's 20 points, Loop's 18). Synchronises: on CUDA once, to read the verdict of
 * the points' check (the results are then written). */
mmx_status mmx_limit_table_eval(mmx_ctx *ctx, const mmx_limit_table *table, mmx_index n,
                                const mmx_index *face, const float *u, const float *v, float *P,
                                float *du, float *dv, float *duu, float *duv, float *dvv);

/* Frees a table; NULL is accepted. */
void mmx_limit_table_free(mmx_limit_table *table);

/* ---- topology-fixed re-evaluation --------------------------------------------------------- */

/* A plan refines a control mesh's topology once and then maps any new control positions to the
 * last level's positions without touching topology again (for animation): like OpenSubdiv's
 * stencil evaluation, but the plan keeps each level's half-edge view instead of stencil
 * tables, and re-evaluation is the fused path's passes with their topology writes left out
 * (on CUDA, all of an evaluation one CUDA graph, replayed per call). */
typedef struct mmx_subdiv_plan mmx_subdiv_plan;

/* Builds the plan for `levels` (>= 1) levels of `scheme` over `control` (with positions, in
 * the context's space), with the checks and errors of mmx_subdivide (opts: its boundary mode;
 * the path is always the fused one, sqrt3 with boundary included (Kobbelt's rule, above: the
 * levels' topology made at creation by the algebraic path, the positions by the passes), and a
 * trace is filled as by mmx_subdivide; opts->limit: every evaluation's positions are pushed to
 * the limit surface, as mmx_subdivide's result, by mmx_subdiv_limit's masks on the last level
 * with the sharp features it carries (its checks, adjacency and half-edge view made once, at
 * creation; each evaluation then runs the masks alone: one kernel, no wait), after the
 * passes; sqrt3 refused, MMX_ERR_UNSUPPORTED; opts->holes: with MMX_HOLES_REMOVE, the
 * default, the hole faces' descendants and the vertices only they use are left out as by
 * mmx_subdivide: mmx_subdiv_plan_sizes and mmx_subdiv_plan_mesh give the kept ones, and each
 * evaluation gathers the kept vertices of the last level (an mmx_spmv after the passes, no
 * wait); MMX_HOLES_KEEP keeps them, untagged; texture coordinates, where mmx_subdivide
 * refines them as a texture mesh (the smooth modes, Catmull-Clark's and bilinear's linear
 * mode: not sqrt3 nor Loop's linear mode), get a plan of their own, re-evaluated by
 * mmx_subdiv_plan_eval_uv). The plan
 * keeps `ctx` (which must outlive it) and copies what it needs of the control mesh.
 * Memory: every level's matrix and half-edge arrays (about 1.4x the last level's matrix times
 * three) and positions. */
mmx_status mmx_subdiv_plan_create(mmx_ctx *ctx, mmx_scheme scheme, const mmx_mesh *control,
                                  int levels, const mmx_subdiv_options *opts,
                                  mmx_subdiv_plan **out);

/* The last level's positions for new control positions: `control_pos` has the control mesh's
 * nverts x 3 floats, `pos` room for the last level's (mmx_subdiv_plan_sizes), both in the
 * context's space and not overlapping. Queued on the context's stream; the call returns once
 * the work is queued (CUDA) or done (host): synchronise with mmx_ctx_sync before reading pos.
 * The control positions must keep the coordinate rule (MMX_SUBDIV_COORD_MAX): the host checks
 * them (MMX_ERR_MESH naming the vertex); on CUDA that would cost a wait per frame, so there it
 * is the caller's precondition (beyond it the positions may come out infinite).
 * On CUDA the whole evaluation (every level's pass, the limit masks with opts->limit, the
 * gather of the kept vertices with holes) is captured into one CUDA graph on the first call
 * (stream capture on the context's stream) and kept in the plan: each later call with the same
 * pair of pointers is one cudaGraphLaunch; new pointers capture the chain again and update the
 * kept graph in place (cudaGraphExecUpdate). The graph queues the very kernels and arguments of
 * the uncaptured chain, so the bytes are the same. Setting the environment variable
 * MMX_SUBDIV_PLAN_NO_GRAPH (to anything but "0") before mmx_subdiv_plan_create makes that
 * plan queue the kernels one by one instead (for debugging and profilers). Synchronises: never
 * (the host backend computes in the call). Errors: MMX_ERR_ARG (NULL arguments), MMX_ERR_MESH
 * (host: a coordinate beyond the bound), MMX_ERR_CUDA. */
mmx_status mmx_subdiv_plan_eval(mmx_subdiv_plan *plan, const float *control_pos, float *pos);

/* The last level's texture coordinates for new control coordinates: `control_uv` has the
 * control mesh's uv->nvalues x 2 floats, `uv` room for mmx_subdiv_plan_uv_count(plan) x 2, both
 * in the context's space; the refined mesh's index of them is mmx_subdiv_plan_mesh's uv->index
 * (the same as mmx_subdivide's). The face-varying channel re-evaluated as the positions are:
 * the texture mesh's plan (two mmx_spmv around its passes widen the coordinates to (u, v, 0)
 * and narrow them back; on CUDA the three in one graph launch, as mmx_subdiv_plan_eval's).
 * Queued, as mmx_subdiv_plan_eval; synchronises: never. Errors:
 * MMX_ERR_ARG (NULL arguments), MMX_ERR_UNSUPPORTED (a plan without texture coordinates: the
 * control mesh had none, or sqrt3, or Loop's linear mode, which mmx_subdivide refines per
 * corner), MMX_ERR_CUDA. */
mmx_status mmx_subdiv_plan_eval_uv(mmx_subdiv_plan *plan, const float *control_uv, float *uv);

/* One frame: mmx_subdiv_plan_eval and mmx_subdiv_plan_eval_uv in one call, so that on CUDA
 * the positions' chain and the face-varying channel are one graph launch (captured on the
 * first call with these four pointers, updated in place when they change; a plan keeps one
 * graph for each kind of call: positions, coordinates, both). Either pair may be NULL (both
 * its arrays), not both; the arrays as those two functions take them, with the same results
 * to the byte. Queued; synchronises: never. Errors: those of the two functions, and
 * MMX_ERR_ARG (one array of a pair NULL, or every array NULL). */
mmx_status mmx_subdiv_plan_eval_frame(mmx_subdiv_plan *plan, const float *control_pos, float *pos,
                                      const float *control_uv, float *uv);

/* The number of texture coordinates of the plan's last level (0 for a plan without them). */
mmx_index mmx_subdiv_plan_uv_count(const mmx_subdiv_plan *plan);

/* The plan's sizes: the control mesh's vertices, the last level's vertices and faces. Any
 * output may be NULL. */
void mmx_subdiv_plan_sizes(const mmx_subdiv_plan *plan, mmx_index *control_nverts,
                           mmx_index *nverts, mmx_index *nfaces);

/* A new mesh (the caller frees it) with the last level's topology and the positions from
 * `pos` (nverts x 3 in the context's space, as written by mmx_subdiv_plan_eval), or those
 * computed at creation when pos is NULL; with texture coordinates, those computed at creation
 * (in the context's space, as mmx_subdivide's). Errors: MMX_ERR_ARG, MMX_ERR_NOMEM, MMX_ERR_CUDA. */
mmx_status mmx_subdiv_plan_mesh(const mmx_subdiv_plan *plan, const float *pos, mmx_mesh **out);

/* Frees a plan; NULL is accepted. */
void mmx_subdiv_plan_free(mmx_subdiv_plan *plan);

/* The scheme's name ("loop", "sqrt3", "catmull-clark", "bilinear"), or NULL for an unknown
 * value. */
const char *mmx_scheme_name(mmx_scheme scheme);

/* Parses a scheme name as above ("catmark" and "cc" are accepted for Catmull-Clark).
 * Errors: MMX_ERR_ARG for an unknown name. */
mmx_status mmx_scheme_parse(const char *name, mmx_scheme *scheme);

#ifdef __cplusplus
}
#endif
#endif
