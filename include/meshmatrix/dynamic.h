/*
 * meshmatrix/dynamic.h: local topology edits by the cavity operator (dynamic mesh processing)
 * and what is built on it: Delaunay edge flips.
 *
 * A cavity is a connected set of faces removed from the mesh and filled with new faces joined
 * to its boundary. A round takes seeds (edges, numbered as mmx_adjacency numbers them for the
 * round's input mesh), builds each seed's cavity, keeps a maximal independent set of cavities
 * that do not conflict, chosen by fixed priorities (never by which thread wins a race, so the
 * result is the same bytes every run), and fills the kept ones.
 *
 * The operator takes triangle meshes. Edge flips, and so Delaunay, run on both backends with
 * identical results (the same kept cavities, the same output bytes): the CUDA round builds
 * each cavity with the host's code and chooses the kept set by a parallel rule proved equal
 * to the host's greedy pass (src/dynamic/cavity.cu). Splits and collapses run on the host
 * backend only for now; a CUDA context is refused for them with MMX_ERR_UNSUPPORTED.
 */
#ifndef MESHMATRIX_DYNAMIC_H
#define MESHMATRIX_DYNAMIC_H

#include "core.h"
#include "mesh.h"

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
    MMX_CAVITY_EDGE_COLLAPSE = 2 /* cavity: every face at a or at b (their one-rings); fill: b
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
    mmx_index vertex;        /* kept seeds: the vertex the fill makes (split) or keeps
                                (collapse: a, by its number in the output); -1 otherwise */
    uint64_t priority;       /* mmx_cavity_priority(edge, round) */
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
 * the host backend; on CUDA a device mesh, and EDGE_FLIP only). seeds[0..n)
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
 * Errors: MMX_ERR_UNSUPPORTED (a split or collapse on a CUDA context: "edge splits and
 * collapses run on the host backend only for now"; a kind not listed), MMX_ERR_MESH (a face
 * that is not a triangle, named), MMX_ERR_ARG (NULL, a seed outside [0, nedges), named),
 * MMX_ERR_SPACE, MMX_ERR_NOMEM, MMX_ERR_CUDA. Cost: the adjacency's, O(n log n) for the
 * priority order (CUDA: O(n) per step of the selection, O(log n) steps for random keys),
 * O(nnz) for the fill, and for collapses O(valence) per seed for its cavity.
 * Synchronises: no on the host; on CUDA, the adjacency's one wait, one per step of the
 * selection (to read whether a cavity is still undecided) and the copy of per_seed. */
mmx_status mmx_cavity_round(mmx_ctx *ctx, const mmx_mesh *mesh, mmx_cavity_kind kind,
                            const mmx_index *seeds, mmx_index n, uint32_t round, mmx_mesh **out,
                            mmx_cavity_counts *counts, mmx_cavity_seed *per_seed);

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
 * Synchronises: on CUDA, the adjacency's one wait, one to read the number of seeds, and one per
 * step of the selection. */
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

#ifdef __cplusplus
}
#endif

#endif
