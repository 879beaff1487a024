/*
 * meshmatrix/dynamic.h: local topology edits by the cavity operator (dynamic mesh processing)
 * and what is built on it: Delaunay edge flips, isotropic remeshing, QEM simplification.
 *
 * A cavity is a connected set of faces removed from the mesh and filled with new faces joined
 * to its boundary. A round takes seeds (edges, numbered as mmx_adjacency numbers them for the
 * round's input mesh), builds each seed's cavity, keeps a maximal independent set of cavities
 * that do not conflict, chosen by fixed priorities (never by which thread wins a race, so the
 * result is the same bytes every run), and fills the kept ones.
 *
 * The operator takes triangle meshes. Edge flips (and so Delaunay), edge splits, edge
 * collapses, face splits and vertex moves run on both backends with identical results (the
 * same kept cavities, the same numbering, the same output bytes): the CUDA round builds each
 * cavity with the host's code (src/dynamic/flip_step.h, sc_step.h, reloc_step.h) and chooses
 * the kept set by a parallel rule proved equal to the host's greedy pass
 * (src/dynamic/select.cu, shared by every template; a face split's cavity is its face alone,
 * so there it is the first copy of each valid face, face_split.cu).
 * Vertex removal (a half-edge collapse of the seed vertex onto a neighbour) and user
 * cavities (a face set the caller names, refilled by a fan from its boundary loop's centroid)
 * run on both backends with identical results as well (their shared steps in
 * src/dynamic/vremove_step.h and user_step.h).
 * Isotropic remeshing (mmx_remesh) runs on both backends with identical results too: each of
 * its steps' seeds by the host's rules (src/dynamic/remesh_step.h), its rounds the device
 * rounds of the templates.
 * Priorities may also be data (mmx_cavity_round_ranked: a float per seed, lower wins), so a
 * cost-ordered method runs in parallel rounds of locally cheapest cavities: QEM
 * simplification (mmx_simplify) is one, on both backends with identical results
 * (src/dynamic/quadric.h).
 */
#ifndef MESHMATRIX_DYNAMIC_H
#define MESHMATRIX_DYNAMIC_H

#include "core.h"
#include "mesh.h"
#include "patch.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The template that fills a cavity. Every seed is an edge (a, b), a < b. */
typedef enum mmx_cavity_kind {
    MMX_CAVITY_EDGE_FLIP = 0,    /* cavity: the seed edge's two faces; fill: the two faces
                                    across the quad's other diagonal, in place (the same two
                                    face ids) */
    MMX_CAVITY_EDGE_SPLIT = 1,   /* cavity: the edge's one or two faces; fill: a new vertex m at
                                    the edge's midpoint, each face (p, q, c) that runs the edge
                                    p -> q replaced by (p, m, c) (the same face id) and (m, q, c)
                                    (appended). Numbering: the kept seeds in key order get the
                                    vertices nverts, nverts + 1, ...; their new faces follow the
                                    existing ones in the same order, faces[0]'s before
                                    faces[1]'s. Valid: a boundary edge (one face) or an interior
                                    edge whose two faces run it opposite ways; with positions, no
                                    degenerate new face */
    MMX_CAVITY_EDGE_COLLAPSE = 2,/* cavity: every face at a or at b (their one-rings); fill: b
                                    merged into a (the lower id survives), a moved to the
                                    midpoint, the edge's faces removed, then vertices and faces
                                    renumbered by keeping the survivors in their order. Valid:
                                    an interior edge (two faces, opposite ways) with both ends
                                    interior and third vertices c != d not joined by an edge, or
                                    a boundary edge (one face, third vertex c) that is not an
                                    ear (a-c and b-c not both boundary edges); and the link
                                    condition: a and b have exactly the third vertices of the
                                    edge's faces as common neighbours. With positions, no face
                                    left at a or b becomes degenerate or folded (its normal
                                    against its own old normal). An interior edge between
                                    boundary vertices, or one with a boundary end, is refused */
    /* The templates below are seeded by a face or a vertex, not an edge: they run through
     * their own rounds (mmx_cavity_face_split_round, mmx_cavity_relocate_round,
     * mmx_cavity_vertex_remove_round; mmx_cavity_user_round takes face sets), with the same
     * selection rule; mmx_cavity_round takes the edge templates above only. */
    MMX_CAVITY_FACE_SPLIT = 3,   /* seed: a face (a, b, c). cavity: the face; fill: a new vertex
                                    m at its centroid, the face replaced by (a, b, m) (the same
                                    face id) and (b, c, m), (c, a, m) (appended). Numbering: the
                                    kept seeds in key order get the vertices nverts, nverts + 1,
                                    ...; their two new faces each follow the existing ones in
                                    the same order. Valid: with positions, no new face
                                    degenerate or folded against the face's own normal (a
                                    degenerate face cannot be split). Two seeds conflict only
                                    when they name the same face */
    MMX_CAVITY_VERTEX_MOVE = 4,  /* seed: a vertex v with a target position. cavity: the faces
                                    at v (its one-ring); fill: v moved to its target, topology
                                    unchanged. Valid: v is in a face, the target is finite, and
                                    no face at v becomes degenerate or folded against its own
                                    old normal. Two seeds conflict when their one-rings share a
                                    face (v and w lie on a common face), so in a kept set every
                                    face has at most one moved corner and each seed's check is
                                    exact for the moves made together */
    MMX_CAVITY_VERTEX_REMOVE = 5 /* seed: a vertex v (mmx_cavity_vertex_remove_round). cavity:
                                    the faces at v and at u, the neighbour it goes onto; fill:
                                    the hole re-triangulated by a half-edge collapse of v onto
                                    u: v disappears, u keeps its position, the two faces of
                                    edge {v, u} vanish and v's other faces take u for v.
                                    u = the lowest-numbered neighbour for which it is valid:
                                    {v, u} has two faces running it opposite ways, (v, u, c)
                                    and (u, v, d) up to rotation, c != d; v and u have exactly
                                    c and d as common neighbours (the link condition); not a
                                    tetrahedron's tip (v of valence 3 whose neighbours u, c, d
                                    already make a face); with positions no face left at v
                                    degenerate or folded against its own old normal. Invalid:
                                    v in no face, on the boundary, or with no such u.
                                    Numbering: vertices and faces compacted, survivors in
                                    their order (vertex w becomes w minus the removed vertices
                                    below it; faces likewise), as the edge collapse's. Two
                                    seeds conflict when their cavities (both one-rings) share
                                    a face */
} mmx_cavity_kind;

/* What became of one seed. */
typedef enum mmx_cavity_outcome {
    MMX_CAVITY_KEPT = 0,     /* its cavity was filled */
    MMX_CAVITY_INVALID = 1,  /* refused on its own (the template's rules). A flip: a boundary or
                                non-manifold edge, faces that run it the same way, or a fill
                                that would make an edge the mesh has, a degenerate face or a
                                folded one (a new face whose normal opposes the old faces'
                                summed normal) */
    MMX_CAVITY_CONFLICT = 2  /* valid, but in conflict with a kept cavity of higher priority */
} mmx_cavity_outcome;

/* One seed's cavity, for callers that check a round (tests) or schedule the next one. */
typedef struct mmx_cavity_seed {
    mmx_cavity_outcome outcome;
    mmx_index faces[2];      /* the seed edge's faces: the one running it from its lower end
                                first; for a boundary edge (split, collapse) its face, then -1;
                                -1 -1 for an edge the template cannot take. A collapse's cavity
                                is larger (dynamic.h's kinds); these are the faces it removes */
    mmx_index new_edge[2];   /* a flip: the edge the fill creates (lower end first), -1 -1 if
                                invalid; -1 -1 for the other templates */
    mmx_index vertex;        /* kept seeds: the vertex the fill makes (split, face split, user
                                cavity) or keeps (collapse: a; vertex removal: u; by its
                                number in the output); -1 otherwise */
    uint64_t priority;       /* mmx_cavity_priority(edge, round); a ranked round's key
                                (mmx_cavity_round_ranked) */
} mmx_cavity_seed;

/* A round's counts: proposed = kept + invalid + conflicts. */
typedef struct mmx_cavity_counts {
    mmx_index proposed, kept, invalid, conflicts;
} mmx_cavity_counts;

/* The priority of seed edge `edge` in round `round`: splitmix64's finaliser of
 * (round << 32 | edge). A round keeps cavities by the key (priority, edge, seed position),
 * smallest first.
 *
 * The rule, stated so that a parallel version reproduces it exactly: two valid cavities
 * conflict when their cavities share a face (for a collapse the cavity is both ends'
 * one-rings, so two collapses conflict when their one-rings share a face), or, for flips, when
 * their fills create the same edge (two flips of quads with the same opposite diagonal touch
 * no common face but would make that edge twice). A round runs one template. The kept set is the lexicographically first maximal independent set of the
 * conflict graph in key order: the greedy pass over the valid seeds by increasing key, keeping
 * each one that conflicts with none kept so far. A Luby-style parallel pass gives the same
 * set when, in every step, it keeps each undecided cavity whose key is smaller than those of
 * all its undecided neighbours and drops the neighbours of the cavities kept. */
uint64_t mmx_cavity_priority(mmx_index edge, uint32_t round);

/* One round of the cavity operator on a triangle mesh in the context's space (a host mesh on
 * the host backend; on CUDA a device mesh). seeds[0..n)
 * are edge numbers of mmx_adjacency_compute(mesh) (a seed may repeat: the copy conflicts with
 * the first); `round` feeds the priorities. The result *out is a new mesh in the context's
 * space, in the reduced form. A flip round keeps the vertices (positions copied unchanged) and the face count, the
 * kept cavities filled in place: a flipped face keeps its id. A split round adds one vertex per
 * kept seed and one face per face of its edge (two inside, one on the boundary); a collapse
 * round removes one vertex per kept seed and two faces (one for a boundary edge); the
 * numbering of both is mmx_cavity_kind's. Texture coordinates, normals and
 * tags are not carried over (they describe the faces and edges before the edit).
 * `counts` (may be NULL) gets the round's counts; `per_seed` (may be NULL, else n entries)
 * each seed's cavity and outcome; seeds and per_seed are host arrays on either backend. CUDA
 * gives the same outcomes, counts and output bytes as the host. Without positions only the
 * topological checks are made.
 * Errors: MMX_ERR_UNSUPPORTED (a kind not listed), MMX_ERR_MESH (a face
 * that is not a triangle, named), MMX_ERR_ARG (NULL, a seed outside [0, nedges), named),
 * MMX_ERR_SPACE, MMX_ERR_NOMEM, MMX_ERR_CUDA. Cost: the adjacency's, O(n log n) for the
 * priority order (CUDA: O(n) per step of the selection, O(log n) steps for random keys),
 * O(nnz) for the fill, and for collapses O(valence) per seed for its cavity.
 * Synchronises: no on the host; on CUDA, the adjacency's one wait, one per step of the
 * selection (to read whether a cavity is still undecided), one to read the counts and the
 * copy of per_seed; a collapse also one to read the total size of its cavities (both ends'
 * one-rings), which sizes their storage (a split's is two faces a seed). */
mmx_status mmx_cavity_round(mmx_ctx *ctx, const mmx_mesh *mesh, mmx_cavity_kind kind,
                            const mmx_index *seeds, mmx_index n, uint32_t round, mmx_mesh **out,
                            mmx_cavity_counts *counts, mmx_cavity_seed *per_seed);

/* mmx_cavity_round with priorities as data, for cost-ordered methods: seed i's priority is
 * priority[i] (a float; lower wins), its key (priority[i], i) (ties go to the lower seed
 * position), and the kept set is the greedy pass in key order (mmx_cavity_priority's rule
 * with that key), so each round keeps an independent set of locally cheapest cavities.
 * per_seed[i].priority gets the key as a 64-bit number: the float's bits mapped to an
 * unsigned order in the high half, i in the low half (so numbering by it is key order).
 * priority NULL: the hashed priorities of `round`, exactly mmx_cavity_round's result.
 * place (EDGE_COLLAPSE only; NULL: the midpoints): 3 floats per seed, where its merged vertex
 * goes; the fold and degeneracy checks test that position, and the topological rule is the
 * exact link condition instead of the template's stricter one: the third vertices c and d
 * may be joined by an edge (so a vertex of valence 3 can go) unless (a, c, d) and (b, c, d)
 * are both faces. Ignored by the other kinds.
 * seeds, priority, place and per_seed live in the context's space (host arrays on the host
 * backend, device arrays on CUDA: nothing is copied through the host there). The same
 * outcomes, counts and bytes on both backends.
 * Errors: as mmx_cavity_round's, and MMX_ERR_ARG naming the first seed whose priority is NaN.
 * Cost: as mmx_cavity_round's. Synchronises: no on the host; on CUDA as mmx_cavity_round's,
 * plus one wait to check the seeds and priorities (and none to copy per_seed: it is device
 * memory, written on the stream). */
mmx_status mmx_cavity_round_ranked(mmx_ctx *ctx, const mmx_mesh *mesh, mmx_cavity_kind kind,
                                   const mmx_index *seeds, const float *priority,
                                   const float *place, mmx_index n, uint32_t round,
                                   mmx_mesh **out, mmx_cavity_counts *counts,
                                   mmx_cavity_seed *per_seed);

/* One round of the face split template (MMX_CAVITY_FACE_SPLIT) on a triangle mesh in the
 * context's space (a host mesh on the host backend; on CUDA a device mesh): seeds[0..n) are
 * face numbers (a seed may repeat: the copy conflicts with the first); the priority of seed
 * face f is mmx_cavity_priority(f, round), the kept set the greedy pass in key order
 * (priority, face, seed position) as for the edge templates. *out is a new mesh in the
 * context's space, in the reduced form: one vertex and two faces more per kept seed, numbered
 * as the kind says; positions copied, the new vertex at the centroid (the average of the
 * corners in double precision, rounded to float). per_seed (may be NULL, else n entries):
 * faces[0] the seed's face, faces[1] = -1, new_edge -1 -1, vertex the new vertex for a kept
 * seed (-1 otherwise). seeds and per_seed are host arrays on either backend; CUDA gives the
 * same outcomes, counts and output bytes as the host. Tags, texture coordinates and normals
 * are not carried over.
 * Errors: MMX_ERR_ARG (NULL, n < 0, a seed outside [0, nfaces), named), MMX_ERR_MESH (a face
 * that is not a triangle, named), MMX_ERR_SPACE (a mesh not in the context's space),
 * MMX_ERR_NOMEM, MMX_ERR_CUDA. Cost: the adjacency's, O(n log n) for the order (CUDA: a radix
 * sort of the kept seeds), O(nnz) for the fill.
 * Synchronises: no on the host; on CUDA, the adjacency's one wait, one to read the counts
 * (they size the output) and the copy of per_seed. */
mmx_status mmx_cavity_face_split_round(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_index *seeds,
                                       mmx_index n, uint32_t round, mmx_mesh **out,
                                       mmx_cavity_counts *counts, mmx_cavity_seed *per_seed);

/* One round of vertex relocation (MMX_CAVITY_VERTEX_MOVE) on a triangle mesh with positions
 * in the context's space (host, or a device mesh on CUDA): seed i moves vertex seeds[i] to
 * targets[3i .. 3i + 3) (host floats on either backend, as seeds and per_seed). Priority of
 * seed vertex v: mmx_cavity_priority(v, round); kept set as above (two kept seeds never lie on
 * one face). *out (in the context's space): the same faces in the same order (reduced form),
 * the kept seeds' vertices at their targets, every other position copied bit for bit.
 * per_seed (may be NULL): faces -1 -1, vertex = v for a kept seed. CUDA gives the same
 * outcomes, counts and output bytes as the host.
 * Why an independent set and not all moves at once (Jacobi): the targets may well all be
 * computed from the previous positions (mmx_remesh does so, so they do not depend on the
 * order of the work), but whether a move folds a face depends on where the face's other
 * corners are: two neighbours checked alone may each be fine and fold their common face
 * together. The independent set makes every check exact; the vertices left over go in the
 * next round (with the targets they had).
 * Errors: MMX_ERR_ARG (NULL, n < 0, no positions, a seed outside [0, nverts), named),
 * and as mmx_cavity_face_split_round. Cost: the adjacency's, O(n log n) (CUDA: O(n) per step
 * of the selection), and O(valence) per seed. Synchronises: no on the host; on CUDA, the
 * adjacency's one wait, one per step of the selection, one to read the counts and the copy of
 * per_seed. */
mmx_status mmx_cavity_relocate_round(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_index *seeds,
                                     const float *targets, mmx_index n, uint32_t round,
                                     mmx_mesh **out, mmx_cavity_counts *counts,
                                     mmx_cavity_seed *per_seed);

/* One round of vertex removal (MMX_CAVITY_VERTEX_REMOVE) on a triangle mesh in the context's
 * space (a host mesh on the host backend; on CUDA a device mesh): seeds[0..n) are vertex
 * numbers (a seed may repeat: the copy conflicts with the first). Priority of seed vertex v:
 * mmx_cavity_priority(v, round); the kept set is the greedy pass in key order (priority,
 * vertex, seed position), a cavity being the faces at v and at its chosen u. *out: a new mesh
 * in the context's space, reduced form, one vertex and two faces fewer per kept seed,
 * numbered as the kind says; positions of the survivors copied bit for bit. per_seed (may be
 * NULL, else n entries): faces = edge {v, u}'s two faces (the one running it from its lower
 * end first; -1 -1 when invalid), new_edge -1 -1, vertex = u's number in the output for a kept
 * seed (-1 otherwise). seeds and per_seed are host arrays on either backend. CUDA gives the
 * same outcomes, counts and output bytes as the host. Without positions only the topological
 * checks are made. Tags, texture coordinates and normals are not carried over.
 * Errors: MMX_ERR_ARG (NULL, n < 0, a seed outside [0, nverts), named), MMX_ERR_MESH (a face
 * that is not a triangle, named), MMX_ERR_SPACE, MMX_ERR_NOMEM, MMX_ERR_CUDA.
 * Cost: the adjacency's, O(valence(v) * sum of the neighbours' valences) per seed for the
 * choice of u, O(n log n) for the order (CUDA: O(n) per step of the selection), O(nnz) for
 * the fill. Synchronises: no on the host; on CUDA, the adjacency's one wait, one to read the
 * rings' total, one per step of the selection, one to read the counts and the copy of
 * per_seed. */
mmx_status mmx_cavity_vertex_remove_round(mmx_ctx *ctx, const mmx_mesh *mesh,
                                          const mmx_index *seeds, mmx_index n, uint32_t round,
                                          mmx_mesh **out, mmx_cavity_counts *counts,
                                          mmx_cavity_seed *per_seed);

/* One round of user cavities on a triangle mesh in the context's space (host mesh on the host
 * backend, device mesh on CUDA): cavity i is the face set cav_faces[cav_ptr[i] ..
 * cav_ptr[i + 1]) (host arrays on either backend, cav_ptr n + 1 entries, non-decreasing).
 * Valid when:
 *   - it holds at least one face and no face twice;
 *   - every edge of its faces is held by at most one other of its faces, running it the
 *     other way (an interior edge of the set; the others are its boundary edges);
 *   - it is a topological disk: connected through its interior edges, Euler characteristic
 *     V - E + F = 1 over its own vertices, edges and faces, and its boundary half-edges form
 *     one simple loop (no vertex starts two of them) of at least 3 edges;
 *   - every vertex of the set not on the loop has all its faces in the set;
 *   - with positions, no fan face (below) is degenerate or folded against N, the sum of the
 *     cavity's face normals (area-weighted, summed in cav_faces's order).
 * Fill: a new vertex m at the loop's vertex centroid (their coordinates summed in double in
 * loop order, divided by their number, rounded to float), the cavity's faces removed and a
 * fan (p, q, m) added for each boundary half-edge p -> q (the orientation kept). The vertices
 * inside the loop are kept, left without faces (isolated; their positions copied).
 * Priority of cavity i: priority[i] (priority may be NULL: mmx_cavity_priority(i, round));
 * key (priority, i), smallest first; the kept set is the greedy pass in key order, two
 * cavities conflicting when they share a face.
 * Numbering: vertices keep their numbers, the kept cavities' new vertices follow (nverts +
 * rank in key order); faces: the survivors (faces in no kept cavity) in their order, then
 * each kept cavity's fan in key order, its faces in loop order starting with the half-edge
 * that leaves the loop's smallest vertex.
 * *out: a new mesh in the context's space in the reduced form (no tags, normals, texture
 * coordinates). counts (may be NULL) and per_seed (may be NULL, else n entries, host):
 * faces -1 -1, new_edge -1 -1, vertex = the new vertex of a kept cavity (-1 otherwise),
 * priority its key's priority. CUDA gives the same outcomes, counts and bytes as the host.
 * Errors: MMX_ERR_ARG (NULL, n < 0, cav_ptr decreasing or negative, a face outside
 * [0, nfaces), named), MMX_ERR_MESH (a face that is not a triangle, named), MMX_ERR_SPACE,
 * MMX_ERR_NOMEM, MMX_ERR_CUDA. Cost: the adjacency's, O(k^2) per cavity of k faces, O(n log n)
 * for the order, O(nnz) for the fill. Synchronises: no on the host; on CUDA, the adjacency's
 * one wait, the copies of the inputs, one per step of the selection, one to read the counts
 * and the copy of per_seed. */
mmx_status mmx_cavity_user_round(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_index *cav_ptr,
                                 const mmx_index *cav_faces, mmx_index n, const uint64_t *priority,
                                 uint32_t round, mmx_mesh **out, mmx_cavity_counts *counts,
                                 mmx_cavity_seed *per_seed);

/* For each face of a round's output, the input face it comes from (origin[0 .. nfaces_after),
 * host), read off the round's per_seed records (n entries: outcome, faces, priority) and the
 * kind's numbering above: EDGE_FLIP and VERTEX_MOVE keep every face id (the identity);
 * EDGE_SPLIT keeps the ids and appends, for the kept seeds in key order (ascending priority,
 * then seed position), faces[0]'s new face then faces[1]'s, each coming from the face it was
 * cut from; FACE_SPLIT appends two faces per kept seed (key order), both from the seed face;
 * EDGE_COLLAPSE and VERTEX_REMOVE remove the kept seeds' faces[0] and faces[1] (-1: none) and
 * keep the survivors in their order. With the patch set before the round this gives the
 * labels of mmx_patch_set_follow (patch.h): label[f] = face_patch[origin[f]].
 * Errors: MMX_ERR_UNSUPPORTED (another kind: its faces are not traced here), MMX_ERR_ARG (NULL,
 * a negative count, a kept seed's face outside [0, nfaces_before), a face removed twice, or
 * nfaces_after not what the kept seeds give: each named). Cost: O(n log n + nfaces_after).
 * Synchronises: no (host arrays, host work). */
mmx_status mmx_cavity_face_origin(mmx_ctx *ctx, mmx_cavity_kind kind, mmx_index nfaces_before,
                                  const mmx_cavity_seed *per_seed, mmx_index n,
                                  mmx_index nfaces_after, mmx_index *origin);

/* The origin of each face of a user-cavity round's output (mmx_cavity_user_round), as
 * mmx_cavity_face_origin gives it for the other kinds: origin[0 .. nfaces of after) (host)
 * for the round on `before` with cavities cav_ptr / cav_faces (n of them) and its per_seed
 * records. A surviving face comes from itself; a fan face (p, q, m) of a kept cavity comes
 * from the cavity's face that held the boundary half-edge p -> q (so a fan is shared among
 * the patches its cavity's rim lay in). Errors: MMX_ERR_ARG (NULL, n < 0, `after` not the
 * round's output: a face count that the kept cavities do not give, a fan face whose third
 * corner is no kept cavity's vertex or whose first edge is on no face of that cavity, each
 * named), MMX_ERR_SPACE, MMX_ERR_NOMEM. Cost: O(nnz) and O(k) per fan face of a cavity of k
 * faces. Synchronises: on CUDA, the copies of both meshes' faces to the host. */
mmx_status mmx_cavity_user_face_origin(mmx_ctx *ctx, const mmx_mesh *before,
                                       const mmx_index *cav_ptr, const mmx_index *cav_faces,
                                       mmx_index n, const mmx_cavity_seed *per_seed,
                                       const mmx_mesh *after, mmx_index *origin);

/* Patches kept through single rounds: after a round of any kind, mmx_cavity_face_origin (or
 * mmx_cavity_user_face_origin) and mmx_patch_set_update (patch.h) make the set of the
 * round's input the set of its output; EDGE_FLIP and VERTEX_MOVE rounds keep every face id
 * (origin NULL), and a move round leaves the set as it is (a patch set holds no positions).
 * mmx_delaunay_flip_patches and mmx_remesh (opts->patches) do so after each of their rounds. */

/* ---- Delaunay edge flips ------------------------------------------------------------------ */

/* An interior edge is flipped when the two angles opposite it (at the third vertex of each of
 * its two faces, computed in double precision) sum to more than pi + MMX_DELAUNAY_TOL. The
 * tolerance keeps cocircular quads (a regular grid's squares: exactly pi) from flipping back
 * and forth on rounding. */
#define MMX_DELAUNAY_TOL 1e-6
#define MMX_DELAUNAY_MAX_ROUNDS 256

typedef struct mmx_delaunay_report {
    int rounds;                      /* rounds that flipped at least one edge */
    int64_t flips;                   /* in all */
    mmx_index remaining;             /* interior edges still over the bound at the end: ones no
                                        flip may fix (it would fold a face or duplicate an
                                        edge), or any left when the round cap stopped it */
    mmx_index flips_per_round[MMX_DELAUNAY_MAX_ROUNDS];
    mmx_index proposed_per_round[MMX_DELAUNAY_MAX_ROUNDS];
} mmx_delaunay_report;

/* 1 when the angles opposite edge (a, b) in the triangles (a, b, c) and (b, a, d) sum to more
 * than pi + MMX_DELAUNAY_TOL (positions nverts x 3, row-major). Decided from the sine and
 * cosine of the sum with +, -, * and sqrt in double precision only (no atan2), the same code
 * and bits as the CUDA kernel. */
int mmx_delaunay_violates(const float *pos, mmx_index a, mmx_index b, mmx_index c, mmx_index d);

/* One Delaunay round: the cavity operator (round number `round`) with EDGE_FLIP seeds = every
 * interior manifold edge of `mesh` that violates the bound, in edge order. *out is the new mesh
 * (*out is a copy when no edge violates it); counts as mmx_cavity_round's. On CUDA (a device
 * mesh) everything runs on the device: the adjacency, the violating edges (compacted in edge
 * order), the round and the fill; the result is the host's, byte for byte.
 * Errors: as mmx_cavity_round, and MMX_ERR_ARG for a mesh without positions.
 * Synchronises: on CUDA, the adjacency's one wait, one to read the number of seeds, one per
 * step of the selection and one to read the counts. */
mmx_status mmx_delaunay_round(mmx_ctx *ctx, const mmx_mesh *mesh, uint32_t round, mmx_mesh **out,
                              mmx_cavity_counts *counts);

/* Flips edges until the triangle mesh is Delaunay in the sense above: rounds 0, 1, ... of
 * mmx_delaunay_round until one flips nothing or MMX_DELAUNAY_MAX_ROUNDS have run. Boundary
 * edges are never flipped; vertices, their positions, the face count, the Euler
 * characteristic and the boundary stay as they are. Deterministic: the same input gives the
 * same bytes every run. `report` may be NULL. Errors: as mmx_delaunay_round.
 * Cost: per round, the adjacency's plus O(nnz + seeds log seeds). On CUDA the adjacency is
 * computed once; later rounds carry the topology over from the round before (a flip keeps the
 * face ids and the edge count), O(nedges + flips log flips) per round.
 * Synchronises: no on the host; on CUDA, the adjacency's one wait, then per round one to read
 * the number of seeds and one per step of the selection. */
mmx_status mmx_delaunay_flip(mmx_ctx *ctx, const mmx_mesh *mesh, mmx_mesh **out,
                             mmx_delaunay_report *report);

/* mmx_delaunay_flip that keeps a patch set current: `patches` (NULL: none), the set of
 * `mesh`, is updated after every round that flips (mmx_patch_set_update with every face id
 * kept), so on return it is the set of *out, the same as a chain of mmx_patch_set_follow
 * through the rounds. Errors: as mmx_delaunay_flip and mmx_patch_set_update, and MMX_ERR_ARG
 * (a set of another mesh: its face or vertex count differs); on an error the set is still a
 * valid set, of the input or of a mesh a round made (to be freed or rebuilt). Cost: per flipping round, also an update of the
 * set (about a build of it). Synchronises: also the update's. */
mmx_status mmx_delaunay_flip_patches(mmx_ctx *ctx, const mmx_mesh *mesh, mmx_patch_set *patches,
                                     mmx_mesh **out, mmx_delaunay_report *report);

/* ---- isotropic remeshing (Botsch and Kobbelt 2004) ---------------------------------------- */

#define MMX_REMESH_MAX_ITERATIONS 64

typedef struct mmx_remesh_options {
    double target_length; /* L > 0; 0 (the default): the input's mean edge length. Negative or
                             not finite: refused */
    int iterations;       /* >= 0 (default 3); at most MMX_REMESH_MAX_ITERATIONS */
    double feature_angle; /* degrees in [0, 180] (default 60): an interior edge whose faces'
                             normals differ by more is a feature; 180 turns it off */
    int validate;         /* 1: mmx_mesh_validate after every round (manifold, oriented, no
                             degenerate or repeated face, the input's Euler characteristic and
                             boundary loops); a violation stops the call with MMX_ERR_INTERNAL
                             naming the round and the problem. For tests: costs the
                             validator's time per round */
    mmx_patch_set *patches; /* NULL (the default), or the patch set of the input mesh
                               (mmx_patch_set_create / _follow, in the context's space), kept
                               current through every round (mmx_patch_set_update after each
                               split, collapse and flip round; moves change no patch): on
                               return the set of *out. On an error, still a valid set, of
                               the input or of a mesh a round made. Costs an update per round that changed the faces:
                               the labels (on CUDA by kernels on the round's device
                               records, no copy to the host) and a cut with them, about a
                               build of the set (mmx_patch_set_follow's) */
    int slide_features;   /* 1 (the default): a vertex inside a feature line slides along it
                             in the relaxation (see mmx_remesh: features); 0: every feature
                             vertex stays where it is (the tool's --fixed-features) */
} mmx_remesh_options;

/* The defaults above: L 0 (the mean edge length), 3 iterations, 60 degrees, no validation,
 * sliding features. */
mmx_remesh_options mmx_remesh_defaults(void);

/* One iteration's work. */
typedef struct mmx_remesh_iteration {
    int64_t splits, collapses, flips, moves;  /* kept cavities of each step */
    int64_t split_seeds, collapse_seeds, flip_seeds, move_seeds; /* cavities proposed: the seeds
                                                 that passed the step's rules, summed over its
                                                 rounds (flips: before the vertex-disjoint
                                                 choice; moves: retries counted again) */
    int split_rounds, collapse_rounds, flip_rounds, relax_rounds; /* rounds run */
    mmx_index nverts, nfaces;                 /* the mesh after the iteration */
    double ms;                                /* the iteration's time (mmx_timer: the host
                                                 clock, or CUDA events on the context's stream) */
    double split_ms, collapse_ms, flip_ms, relax_ms; /* each step's share of it */
} mmx_remesh_iteration;

typedef struct mmx_remesh_report {
    double target_length;                     /* L (the default resolved) */
    int iterations;
    mmx_index feature_edges;                  /* of the input: boundary, tagged creases and
                                                 edges over the feature angle */
    mmx_index feature_verts;                  /* of the input: feature vertices (ends of
                                                 feature edges, tagged corners): fixed, or
                                                 sliding along their line */
    mmx_remesh_iteration per_iteration[MMX_REMESH_MAX_ITERATIONS];
    double ms;                                /* the whole call, set-up included */
} mmx_remesh_report;

/* Isotropic remeshing of a triangle mesh towards edge length L (Botsch and Kobbelt, "A
 * remeshing approach to multiresolution modeling", 2004), each step rounds of the cavity
 * operator, on either backend. One iteration:
 *   1. split: rounds of EDGE_SPLIT seeded by every edge longer than 4/3 L that is the
 *      longest edge of each of its faces (Rivara's longest-edge bisection: the other long
 *      edges wait for a later round, so repeated splits never cut needles), until no edge is
 *      long or a round keeps none (at most 64 rounds);
 *   2. collapse: rounds of EDGE_COLLAPSE seeded by every edge shorter than 4/5 L with at most
 *      one feature end (see below; the merged vertex then stays at that end, else at the
 *      midpoint) whose merged vertex would be within 4/3 L of every neighbour of either end,
 *      and neither of whose ends lies in more than 64 faces (checking a collapse walks both
 *      ends' rings: the bound keeps a round linear in the mesh whatever the valences), until
 *      none is kept (at most 64);
 *   3. flip: rounds of EDGE_FLIP seeded by the interior non-feature edges whose flip brings
 *      the four vertices' valences closer to 6 (4 on the boundary): the sum of squared
 *      deviations decreases; of those, the greedy set in the round's key order whose quads
 *      share no vertex (so every kept flip lowers the sum); until none is kept (at most 16);
 *   4. relax and project: every vertex not on a feature (or the boundary) gets the target
 *      q + n n.(p - q), q the area-weighted centroid of its neighbours (each weighted by its
 *      barycentric vertex area), n its area-weighted normal, p its position, all from the
 *      positions at the start of the step (Jacobi), then the closest point on the input's
 *      triangles (a BVH); with opts->slide_features, a vertex inside a feature line (below)
 *      gets the midpoint of its two neighbours on the line, then the closest point on the
 *      input's feature edges of that same line; a vertex whose closest-point query would
 *      test more than 256 triangles (where many long triangles' boxes overlap, as at a fan's
 *      centre) stays where it is for the step, which keeps the step linear; rounds of
 *      VERTEX_MOVE place them (a move that would fold a face is dropped), until every vertex
 *      moved or was refused (at most 64).
 * No step makes a sliver: a collapse, flip or move whose new face would have a quality
 * (twice its area over its longest edge squared) under 0.05 and worse than the face it
 * replaces is not proposed (checked exactly: the kept edits of a round touch disjoint faces).
 * Features: boundary edges, edges tagged as creases (mesh->tags, any sharpness > 0) and
 * interior edges whose dihedral angle exceeds opts->feature_angle, found on the input and
 * carried through the splits (a split feature edge gives two); tagged corners too. A feature
 * line's vertex has exactly two feature edges and is no corner: a corner is tagged, or (with
 * opts->slide_features) an input vertex where its two feature edges turn by more than 30
 * degrees. Feature edges are never flipped; a feature line's vertex slides along its line
 * with opts->slide_features (staying on the input's feature edges of its own line: the lines
 * are the input's feature edges joined through their line vertices), every other feature
 * vertex (on one feature edge or three or more, or a corner) never moves; a collapse may only
 * bring a non-feature neighbour onto a feature vertex off the boundary, or a feature line's
 * vertex onto its neighbour on the line, so corners are kept exactly and straight feature
 * lines too (their edges are split at midpoints, which lie on them, and a short feature edge
 * collapses along its line only where the vertex it removes lies within L / 10 of the line
 * that remains). A collapse's topological rule is the exact link condition (its third
 * vertices may be joined by an edge, so a vertex of valence 3 can go, unless the two faces
 * with that edge would repeat: mmx_cavity_round_ranked's), its fold checks at the position
 * the merged vertex gets.
 * The result is a new mesh in the reduced form (no tags, normals or texture coordinates) in
 * the context's space; isolated vertices of the input are kept. Deterministic: the same input
 * and options give the same bytes on every run and on both backends (fixed priorities, sums in
 * fixed orders, the same double-precision operations unfused on the device).
 * On CUDA the mesh must live on the device, and everything runs there: the set-up (the
 * checks, the features, the mean length, the BVH over the input) and every round, each
 * round's seeds found by one thread per edge or vertex by the host's rules; but for the
 * sliding features' lines (their corners, labels and segments' BVH), which the set-up makes
 * once by the host's code from a copy of the positions and features, and copies back. The
 * mean length and the area are summed in one fixed blocked order on both backends
 * (remesh_step.h).
 * opts may be NULL (the defaults); report may be NULL.
 * Errors: MMX_ERR_ARG (NULL mesh or out, no positions, a bad option, named),
 * MMX_ERR_SPACE (a device mesh on the host backend, a host mesh on CUDA), MMX_ERR_MESH (a face that is not a triangle, a non-finite coordinate, an input that
 * mmx_mesh_validate finds not valid: non-manifold, not oriented, degenerate or repeated faces,
 * with its sentence), MMX_ERR_INTERNAL (opts->validate found a round's result not valid),
 * MMX_ERR_OVERFLOW (L so small that the surface would need more than 2^28 triangles: its
 * area over that of an equilateral triangle of side L), MMX_ERR_NOMEM.
 * Cost: per round the adjacency's (O(nnz log maxdeg)) plus O(nnz) for the seeds and the fill;
 * the BVH O(F log F) once and about O(log F) per projected vertex; with sliding, the feature
 * edges' BVH O(E_f log E_f) once and two queries of it per sliding vertex.
 * Synchronises: on CUDA, a few times per round (each round reads how many seeds it has, and
 * the selections wait once per step), since the next round's work depends on those counts;
 * with sliding, the set-up's copies of the features too. */
mmx_status mmx_remesh(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_remesh_options *opts,
                      mmx_mesh **out, mmx_remesh_report *report);

/* ---- QEM simplification (Garland and Heckbert 1997) --------------------------------------- */

typedef struct mmx_simplify_options {
    mmx_index target_faces; /* > 0: stop once the mesh has at most this many faces; 0: unset */
    double ratio;           /* in (0, 1]: target_faces = ceil(ratio x the input's faces); 0:
                               unset. At most one of target_faces and ratio */
    double max_error;       /* > 0: collapse only where the error (below) stays at most this,
                               relative to the input's bounding box diagonal; 0: unset. At
                               least one of the three must be set; with a target too, the
                               call stops at whichever comes first */
    double feature_angle;   /* degrees in (0, 180] (default 180: off): the ends of an interior
                               edge whose faces' normals differ by more are locked */
    int validate;           /* 1: mmx_mesh_validate after every round (manifold, oriented, no
                               degenerate face, the input's Euler characteristic); a violation
                               stops the call with MMX_ERR_INTERNAL naming the round. Tests */
} mmx_simplify_options;

/* No target (the caller sets one), feature angle 180 (off), no validation. */
mmx_simplify_options mmx_simplify_defaults(void);

typedef struct mmx_simplify_report {
    mmx_index faces_in, verts_in, faces_out, verts_out;
    mmx_index target_faces;  /* resolved (0: none) */
    mmx_index locked_verts;  /* of the input: boundary, feature and tagged vertices, never
                                moved */
    int rounds;              /* rounds that kept a collapse */
    int64_t collapses;
    double diagonal;         /* the input's bounding box diagonal */
    double max_error;        /* the largest error of a kept collapse, relative to diagonal */
    double ms;               /* the whole call (mmx_timer) */
} mmx_simplify_report;

/* Simplifies a triangle mesh by quadric error edge collapses (Garland and Heckbert, "Surface
 * simplification using quadric error metrics", 1997), in parallel rounds of the cavity
 * operator's EDGE_COLLAPSE with priorities as data (mmx_cavity_round_ranked).
 * Quadrics: each vertex starts with the sum of its faces' area-weighted plane quadrics; a
 * collapse gives the merged vertex the sum of both ends' (so a vertex's quadric measures the
 * squared distances to the planes of all the input faces merged into it). The error of a
 * collapse is sqrt(cost / area), cost the quadric error at the merged vertex and area the
 * quadric's total face area: an area-weighted RMS distance to those planes, in model units.
 * Placement: the minimiser of the summed quadric (a 3x3 solve) when it is well conditioned and
 * within the edge's length of its midpoint, else the best of the two ends and the midpoint.
 * Refused collapses: an edge on the boundary or with a boundary end, an end locked (boundary
 * vertices, both ends of every crease and every corner the input's tags name with sharpness
 * > 0, and with feature_angle < 180 both ends of every sharper edge: locked vertices never
 * move or vanish, so the boundary and feature lines are kept exactly), an end in more
 * than 64 faces, one that breaks the link condition, makes a tetrahedron's faces meet
 * (non-manifold) or leaves a face degenerate or folded over (its normal against its old one).
 * A round: every edge is evaluated (its cost, place and validity); the candidates (with
 * max_error, those within it) are listed cheapest first (the cost rounded to float, ties by
 * edge number); with a target, only the first ceil((faces - target) / 2) (each collapse
 * removes two faces); the cavity operator keeps the greedy independent set in that order (the
 * locally cheapest collapses) and fills them. Rounds run until the target is reached (at most
 * target faces, or target - 1 when faces - target is odd), no candidate is left, or none is
 * within max_error. The context's progress function hears "simplify round" after each round.
 * Deterministic: the same bytes every run and on both backends (every sum in a fixed order,
 * unfused double precision: src/dynamic/quadric.h). On CUDA the mesh must be on the device
 * and everything runs there.
 * *out: a new mesh in the context's space in the reduced form, with positions only (texture
 * coordinates, normals, colors and tags are not carried). report may be NULL.
 * Errors: MMX_ERR_ARG (NULL, no positions, a bad option or none set, named), MMX_ERR_SPACE,
 * MMX_ERR_MESH (a face that is not a triangle: triangulate first, mmx_mesh_triangulate or
 * `mmx triangulate`; a non-finite coordinate; a mesh mmx_mesh_validate finds not valid, with
 * its sentence; bad tags, as mmx_mesh_tags_parse), MMX_ERR_INTERNAL (validate found a round's result not valid), MMX_ERR_NOMEM,
 * MMX_ERR_CUDA.
 * Cost: per round the adjacency's plus O(nedges log nedges) for the order and O(valence) per
 * edge (valences capped at 64); the rounds shrink the mesh geometrically in practice.
 * Synchronises: on CUDA, a few times per round (the candidates' count, the selection's steps,
 * the counts). */
mmx_status mmx_simplify(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_simplify_options *opts,
                        mmx_mesh **out, mmx_simplify_report *report);

#ifdef __cplusplus
}
#endif

#endif
