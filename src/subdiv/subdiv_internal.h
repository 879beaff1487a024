/* Private declarations of the subdivision module: the operators one level multiplies with, the
 * weights of the three schemes, and the child topology. The per-element rules are inline
 * functions usable from host loops and CUDA kernels alike, so both backends evaluate the very
 * same arithmetic. */
#ifndef MMX_SUBDIV_INTERNAL_H
#define MMX_SUBDIV_INTERNAL_H

#include <math.h>
#include "core/core_internal.h"
#include "spla/spla_internal.h"
#include "mesh/halfedge.h"
#include "meshmatrix/mesh.h"
#include "meshmatrix/subdiv.h"
#include "rules.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The operators of one level, built from the level's input mesh and its adjacency:
 *   M    the mesh matrix (the input's, not owned)
 *   E, F the vertex adjacency and half-edge faces (adj's)
 *   EV   nverts x nedges, column e = the two ends of edge e: adj->ev read as a reduced matrix
 *        of order 2 (a view, no copy)
 *   FE   nedges x nfaces, column k = the edges of face k in corner order (corner s holds the
 *        edge from vertex s to vertex s + 1): M's pattern with adj->fe's edges as rows
 *   I    the nverts x nverts identity, reduced of order 1, for the thesis's I·p (eq. 4.30)
 * and the scheme's weight tables, all in the context's space:
 *   w_self[v], w_ring[v]    the vertex rule (rules.h): self and ring
 *   w_ends[e], w_faces[e]   the edge rule (rules.h): ends and faces
 *   crease[2]               E's values 1 (a sharp, boundary edge) -> the crease rule's weight,
 *                           2 (inner) -> 0: the crease vertex rule as a by-value map on E
 *   face_w[len_face_w]      the face weight (rules.h) by face order c (Catmull-Clark, eq.
 *                           4.27) or, for sqrt3's triangles, by position (eq. 4.8); Loop: unused */
/* The sharp features of one subdivision, the same at every level: the boundary mode (resolved:
 * never MMX_BOUNDARY_FROM_MESH) and the input's vertex sharpness from its corner tags (nv0
 * entries in the context's space, NULL when the mesh has none). Vertices keep their numbers
 * from level to level, so entry v is vertex v's at every level, decayed (rules.h). Edges do
 * not keep theirs: esharp is the input's edge sharpness from its crease tags (ne0 entries in
 * mmx_adjacency's edge order, in the context's space; NULL without creases), and each level
 * of the fused path writes its child's. */
typedef struct mmx__subdiv_sharp {
    mmx_boundary boundary;
    float *vsharp;
    mmx_index nv0;
    float *esharp;
    mmx_index ne0;
    float emax;          /* the largest entry of esharp */
    int chaikin;         /* the crease method: 0 uniform, 1 Chaikin ('t creasemethod chaikin') */
    int smooth_tris;     /* Catmull-Clark's smooth-triangle rule ('t smoothtriangles smooth' or
                            the options; rules.h), where the input has triangles */
    mmx_fvar_mode fvar;  /* the face-varying mode (resolved: never MMX_FVAR_FROM_MESH) */
    int twisted;         /* the input has edges that both their faces run the same way (made
                            sharp on the algebraic path, creases.c; its children too) */
    int fan_corners;     /* vsharp holds infinite sharpness for the input's vertices of several
                            fans (OpenSubdiv's non-manifold vertices): the fused input level
                            takes them (mmx__subdiv_fan_corners) */
    mmx_mesh_tags *tags; /* the mesh's tags as parsed (host), NULL without tags */
    mmx_ctx *ctx; /* vsharp's and esharp's */
    /* Where tags, vsharp and esharp come from: the tag entry (tags_dev.c), kept in the mesh's
     * cache (then `entry_own` is NULL) or made for this call alone (entry_own, freed with the
     * set); `own` names those of the three that are the set's own instead (a copy of the tags
     * with the holes of no boundary interpolation, the fan corners merged into vsharp). */
    const struct mmx__tag_entry *entry;
    struct mmx__tag_entry *entry_own;
    unsigned own;
} mmx__subdiv_sharp;

enum { MMX__SHARP_OWN_TAGS = 1, MMX__SHARP_OWN_VSHARP = 2, MMX__SHARP_OWN_ESHARP = 4 };

/* Gives back what the set owns (its own arrays, an entry of its own) and zeroes *sh. */
void mmx__subdiv_sharp_free(mmx__subdiv_sharp *sh);

/* Makes every array of sh its own (copies of the cached entry's: device copies, no wait), for
 * a set that outlives the mesh it was read from (a plan). */
mmx_status mmx__subdiv_sharp_own(mmx_ctx *ctx, mmx__subdiv_sharp *sh);

/* Sets on `out` (the last level of `levels` levels) the tags that mmx_subdivide's result
 * carries, but the holes: the boundary mode, the creases of `creases` (the last level's, as
 * the fused chain lists them) and the corners still sharp. Nothing without tags. */
mmx_status mmx__subdiv_carry_features(mmx_ctx *ctx, const mmx__subdiv_sharp *sh, int levels,
                                      const mmx_mesh_tags *creases, mmx_mesh *out);

/* ---- the tag entry (tags_dev.c): what a mesh's tags decide, kept in its cache ---------- */

/* The mesh's tags as the levels read them, made from its tags and its topology alone (so kept
 * in the mesh's cache, MMX__CACHE_TAGS, for the next call on the same mesh and tags):
 *   text       the tags' text it was made from (the entry serves a mesh whose tags read the
 *              same; mmx_mesh_set_tags drops it)
 *   tags       parsed and checked (mmx_mesh_tags_parse)
 *   esharp     each edge's crease sharpness (the largest where an edge is named twice), ne
 *              entries in mmx_adjacency's edge order, in the context's space; NULL when no
 *              crease has a positive sharpness. emax: the largest crease sharpness
 *   vsharp     each vertex's corner sharpness, nv entries in the context's space, or NULL
 *   the creased edges (esharp > 0), host arrays in edge order: number, ends (lower first),
 *   sharpness, and for the fused Catmull-Clark numbering (fused_level.h) the offset of its
 *   group's faces, goff = the faces of the edges before it, and its own faces (sides); on a
 *   triangle mesh, for Loop's numbering (goff = the edges before it sharing a face with one
 *   lower, 2 A + B): A and B, how many times the edges before it are the highest and the
 *   middle edge of a face, and at each end (m[2 k], lower end first) the faces of the edge
 *   whose other edge at that end is lower (NULL otherwise)
 *   holes      what leaving holes out read back on CUDA, by the calls' levels and tags (holes.c:
 *              the same topology and tags give the same counts and numbers), so that a later
 *              call need not wait for them; the one part of the entry that calls write */
struct mmx__holes_memo; /* holes.c */

typedef struct mmx__tag_entry {
    mmx_ctx *ctx;
    char *text;
    mmx_mesh_tags *tags;
    float *esharp, *vsharp, emax;
    mmx_index ne, nv;
    mmx_index ncreased;
    mmx_index *cr_edge, *cr_ends, *cr_sides;
    int64_t *cr_goff;
    float *cr_sharp;
    int64_t *cr_A, *cr_B;
    mmx_index *cr_m;
    struct mmx__holes_memo *holes;
} mmx__tag_entry;

/* The tag entry of `mesh` (whose adjacency is adj): the one its cache keeps when it was made
 * from the same tags, else made (parsing the tags, refusing bad ones as mmx_mesh_tags_parse
 * does, with `who` in the message; reading the adjacency's edges on the host: waits on CUDA)
 * and kept there, or, where the cache does not serve the call, handed to the caller in *own
 * (*own NULL otherwise). */
mmx_status mmx__tag_entry_get(mmx_ctx *ctx, const char *who, const mmx_mesh *mesh,
                              const mmx_adjacency *adj, const mmx__tag_entry **entry,
                              mmx__tag_entry **own);
void mmx__tag_entry_free(void *entry);

/* Whether mmx__tag_creases_closed lists `scheme`'s creases from this entry: Catmull-Clark, and
 * Loop on an entry of a triangle mesh. */
int mmx__tag_creases_closed_ok(const mmx__tag_entry *entry, mmx_scheme scheme);

/* The creases still sharp after `levels` levels of the fused path of `scheme` (Catmull-Clark,
 * or Loop where mmx__tag_creases_closed_ok) with the uniform crease method, from the input's
 * entry in closed form (fused_level.h's edge numbers: the half at end j of edge e becomes
 * child edge 2e + goff[e] + j, whose group offset follows from e's: Catmull-Clark
 * 4 goff[e] + j sides[e]; Loop 2 A' + B' with A' = 3A + B and B' = A' + j m[a], tags_dev.c),
 * without reading the device: each half of positive sharpness, lower end first, in the last
 * level's edge order, into t's crease fields (host arrays; the same list fz_creases reads
 * back). nv, nf, ne, nnz: the input's counts. Cost: the halves listed. */
mmx_status mmx__tag_creases_closed(mmx_ctx *ctx, const mmx__tag_entry *entry, mmx_scheme scheme,
                                   int levels, mmx_index nv, mmx_index nf, mmx_index ne,
                                   mmx_index nnz, mmx_mesh_tags *t);

typedef struct mmx__subdiv_ops {
    mmx_scheme scheme;
    mmx__subdiv_sharp sharp;
    int level;
    const mmx_csc *M;
    mmx_adjacency *adj;
    mmx_csc EV;
    mmx_csc *FE, *I;
    float *w_self, *w_ring, *w_crease, *w_ends, *w_faces;
    float *boundary_edge; /* E's value map {1, 0}: 1 for a boundary edge (one face), else 0 */
    float *face_w;
    mmx_index len_face_w;
    /* A level with creases (creases.c): the crease sum selects E's entries one by one, through
     * E_num (E's pattern, entry q holding q + 1; a view with its own values) and sel[q]. NULL
     * sel: the boundary edges are the sharp ones, selected by boundary_edge. */
    mmx_csc E_num;
    mmx_index *E_num_val;
    float *sel;
} mmx__subdiv_ops;

/* A level's creases on the algebraic path (creases.c), host arrays: each edge's tagged
 * sharpness (mmx_adjacency's order), and the Chaikin aggregates of each vertex (the sum and
 * number of its semi-sharp edges), filled by mmx__crease_tables for the child's sharpness. */
typedef struct mmx__crease_level {
    mmx_index nv, nf, ne;
    float *es;
    float *semi_sum;
    int *semi_n;
} mmx__crease_level;

/* The input level's: the sharp features' edge sharpness, copied to the host. */
mmx_status mmx__crease_level_first(mmx_ctx *ctx, const mmx__subdiv_sharp *sharp,
                                   const mmx_adjacency *adj, mmx__crease_level *L);
/* The child level's, from its parent P (after P's tables) and the child's adjacency: each
 * half of a parent edge gets its child sharpness at its old vertex, the other edges 0. */
mmx_status mmx__crease_level_next(mmx_ctx *ctx, mmx_scheme scheme, int chaikin,
                                  const mmx__crease_level *P, const mmx_adjacency *adj,
                                  mmx__crease_level *L);
void mmx__crease_level_free(mmx__crease_level *L);
/* The creases of `out`, the child of the level P (its last level), still sharp: each edge of
 * positive sharpness, lower end first, in edge order, into t's crease fields (host arrays):
 * the refined mesh's crease tags, as the fused chain lists them. Computes out's adjacency. */
mmx_status mmx__crease_level_carry(mmx_ctx *ctx, mmx_scheme scheme, int chaikin,
                                   const mmx__crease_level *P, const mmx_mesh *out,
                                   mmx_mesh_tags *t);
/* The tables of a creased level into ops (w_self .. w_faces, allocated by the caller; sel and
 * E_num made here), computed on the host (a CUDA context copies the adjacency down and the
 * tables up: waits). */
mmx_status mmx__crease_tables(mmx_ctx *ctx, mmx__subdiv_ops *ops, mmx__crease_level *L);
/* The crease sum of a level, bp = for each vertex the sum of its neighbours across the edges
 * of its rule's crease set (E gathered with the boundary map, or with sel by entry). */
mmx_status mmx__subdiv_crease_sum(mmx_ctx *ctx, const mmx__subdiv_ops *ops, const float *p,
                                  float *bp);

/* The coordinates rule of subdiv.h (MMX_SUBDIV_COORD_MAX) on x (n rows of k floats in `space`;
 * host arrays are read directly, others through ctx with one wait): MMX_ERR_MESH naming the
 * first row (`what` and its number) and its coordinate. */
mmx_status mmx__subdiv_coords(mmx_ctx *ctx, const char *who, const float *x, int64_t n, int k,
                              mmx_space space, const char *what);

/* The common start of mmx_subdivide and mmx_subdiv_plan_create (`who` names the caller in
 * messages): the arguments, the options (copied to *o, defaults for NULL), the input's
 * adjacency (its time in *adj_ms when o->trace asks) and the checks on the mesh and sizes.
 * `fast` leaves the fans and the orientation to the fused path's input level (which checks
 * them on the context's backend, see mmx__fz_input), skipping the host's statistics.
 * The mesh's tags are read (an unreadable tag is refused, naming its line) for the boundary
 * mode and the corners: *sharp. On success the caller owns *adj and *sharp. With `borrow`
 * (a caller done with *adj before it returns: mmx_subdivide, mmx_subdiv_plan_create) *adj
 * views the mesh's cached adjacency (mmx__mesh_adjacency_view: made and kept by the first call
 * on the mesh, so later calls compute none and do not wait for it); else it is computed. */
mmx_status mmx__subdiv_prepare(mmx_ctx *ctx, const char *who, mmx_scheme scheme,
                               const mmx_mesh *mesh, int levels, const mmx_subdiv_options *opts,
                               int fast, int borrow, mmx_subdiv_options *o, mmx_adjacency **adj,
                               double *adj_ms, mmx__subdiv_sharp *sharp);

/* Makes the vertices of `mesh` whose faces form several fans infinitely sharp corners at every
 * level (their numbers stay): sh->vsharp gets them (a copy merged with the corner tags, in
 * the context's space) and sh->fan_corners is set. Builds the half-edge view and reads it on
 * the host (waits on CUDA). */
mmx_status mmx__subdiv_fan_corners(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_adjacency *adj,
                                   mmx__subdiv_sharp *sh);

/* The refusal of an input that a fast check found bad (`fault`, or NULL for the adjacency's
 * counts): the full checks (on a host view, with its statistics) name the problem and where it
 * is, in the words of the algebraic path's refusals; an internal error naming the fault if they
 * find nothing. */
mmx_status mmx__subdiv_refuse(mmx_ctx *ctx, mmx_scheme scheme, const mmx_mesh *mesh,
                              const mmx_adjacency *adj, const mmx__fault *fault);
/* One level of the algebraic path (subdiv.c: the scheme's operators and products, then its
 * topology) on `in` with its adjacency `adj`, at generation `level` (0: the call's input), for
 * a level without creases: the refined mesh into *out. Synchronises as the algebraic path's
 * level does (CUDA: its products' waits). */
mmx_status mmx__subdiv_level_algebraic(mmx_ctx *ctx, mmx_scheme scheme,
                                       const mmx__subdiv_sharp *sharp, int level,
                                       const mmx_mesh *in, mmx_adjacency *adj, mmx_mesh **out);

/* Builds the operators and tables of level `level` (0: the input) of `scheme` with the sharp
 * features `sharp` on `mesh` (in the context's space), whose adjacency is adj: FE, I and the
 * tables (a creased level's from `creases`, else NULL).
 * Errors: MMX_ERR_NOMEM, MMX_ERR_CUDA. On error everything built is released. */
mmx_status mmx__subdiv_ops_build(mmx_ctx *ctx, mmx_scheme scheme, const mmx__subdiv_sharp *sharp,
                                 int level, const mmx_mesh *mesh, mmx_adjacency *adj,
                                 mmx__crease_level *creases, mmx__subdiv_ops *ops);
/* Releases what mmx__subdiv_ops_build made (not the adjacency, which the caller passed in). */
void mmx__subdiv_ops_free(mmx__subdiv_ops *ops);

/* One level of each scheme (loop.c, sqrt3.c, catmull_clark.c): the refined mesh with
 * positions, in the context's space, from a checked input with positions and its operators. */
mmx_status mmx__loop_level(mmx_ctx *ctx, const mmx_mesh *in, const mmx__subdiv_ops *ops,
                           mmx_mesh **out);
mmx_status mmx__sqrt3_level(mmx_ctx *ctx, const mmx_mesh *in, const mmx__subdiv_ops *ops,
                            mmx_mesh **out);
mmx_status mmx__catmull_clark_level(mmx_ctx *ctx, const mmx_mesh *in, const mmx__subdiv_ops *ops,
                                    mmx_mesh **out);

/* The refined mesh matrix of one level (topology.c/.cu): reduced, order 4 for Catmull-Clark,
 * 3 otherwise, `nverts_out` rows, children of a face together in parent order (subdiv.h). */
mmx_status mmx__subdiv_topology(mmx_ctx *ctx, const mmx__subdiv_ops *ops, mmx_index nverts_out,
                                mmx_csc **out);

/* The holes of `mesh` (the input) in the result *out of `levels` levels (holes.c): carry's
 * holes (the input's, host arrays) become the result's descendants of them (MMX_HOLES_KEEP),
 * or those faces and the vertices only they use are left out of *out, rebuilt in its space by
 * the algebra's column selection, with carry's corners and creases renumbered
 * (MMX_HOLES_REMOVE; carry's holes then none). kept, if not NULL, gets the old number of each
 * vertex kept (in the context's space, mmx_mem_free'd by the caller; NULL with
 * MMX_HOLES_KEEP). On CUDA, leaving holes out waits once (the kept counts and the tags' new
 * numbers, read back together), and not at all where memo (the mesh's tag entry's, or NULL)
 * has them from an earlier call of the same levels and tags; keeping them waits only for a
 * general-form input's colptr. */
mmx_status mmx__subdiv_holes(mmx_ctx *ctx, mmx_scheme scheme, const mmx_mesh *mesh, int levels,
                             mmx_hole_mode mode, mmx_mesh **out, mmx_mesh_tags *carry,
                             mmx_index **kept, struct mmx__holes_memo *memo);

/* What a tag entry remembers of leaving holes out (holes.c): a few calls' read-backs, each
 * under its scheme, levels, holes and carried tags' vertices. Made empty, freed with the
 * entry (NULL accepted). */
struct mmx__holes_memo *mmx__holes_memo_new(void);
void mmx__holes_memo_free(struct mmx__holes_memo *memo);

/* The input face that face F of the result after `levels` levels (>= 1) descends from: the
 * children of a face are stored together (subdiv.h), so the descendants of input face g are
 * one range of faces: Catmull-Clark and bilinear make one child per corner at level 1 (child
 * c of corner c) and four per face after, so F's input corner is F >> 2 (levels - 1), whose
 * face is the last one starting at or before it (colptr0, the input's, when it is in the
 * general form: order0 = 0; ncols0 its faces); Loop makes four per face, sqrt3 three. The
 * one statement of holes.c's host loops and holes.cu's kernel. */
static inline MMX__HD mmx_index mmx__hole_ancestor(mmx_scheme scheme, mmx_index order0,
                                                   const mmx_index *colptr0, mmx_index ncols0,
                                                   int levels, mmx_index F)
{
    if (scheme == MMX_SCHEME_SQRT3) {
        int64_t f = F;
        for (int l = 0; l < levels; l++) f /= 3;
        return (mmx_index)f;
    }
    if (scheme == MMX_SCHEME_LOOP) return (mmx_index)((int64_t)F >> (2 * levels));
    const int64_t c = (int64_t)F >> (2 * (levels - 1)); /* the input's corner */
    if (order0) return (mmx_index)(c / order0);
    mmx_index lo = 0, hi = ncols0; /* the last face starting at or before corner c */
    while (hi - lo > 1) {
        const mmx_index mid = lo + (hi - lo) / 2;
        if (colptr0[mid] <= c) lo = mid;
        else hi = mid;
    }
    return lo;
}

/* What leaving holes out reads (arrays in the context's space): the input's form (order0,
 * colptr0, ncols0) and hole flags (hole0, one byte per input face), the result's faces (R,
 * reduced), and the vertices whose new numbers the host needs (ids, nid of them). */
typedef struct mmx__holes_in {
    mmx_scheme scheme;
    int levels;
    mmx_index order0, ncols0;
    const mmx_index *colptr0;
    const unsigned char *hole0;
    const mmx_csc *R;
    const mmx_index *ids;
    mmx_index nid;
} mmx__holes_in;

/* The device half of holes.c's marking, arrays on the device, queued: keep[F] (nf bytes) for
 * the faces not descended from a hole, row_keep[v] (nv bytes) for the vertices no face uses,
 * and, unless info is NULL, info = [kept vertices, kept faces, the new number of each id (-1:
 * left out)], read by the caller. Errors: MMX_ERR_NOMEM, MMX_ERR_CUDA. */
mmx_status mmx__subdiv_holes_mark_cuda(mmx_ctx *ctx, const mmx__holes_in *in, unsigned char *keep,
                                       unsigned char *row_keep, mmx_index *info);

/* *out: the texture coordinates of the result of `levels` levels of `scheme` on `mesh`, which
 * has nnz_out corners (NULL, and nothing done, when mesh has none, for sqrt3 and 0 levels), by
 * the face-varying mode (resolved: never FROM_MESH) with the mesh's sharp features sh (uv.c;
 * the smooth modes read sh's corners, so they come after the levels, which may add the fan
 * corners; the linear mode reads nothing of sh). On the context's backend: on CUDA *out is in
 * device memory. With `fast`, Catmull-Clark's and bilinear's linear mode on coordinates in
 * host memory refine the texture mesh from its input level kept in the mesh's cache
 * (MMX__CACHE_UV: made by the first call, with waits on CUDA; later calls queue its levels
 * with no wait and read nothing back); without it (the algebraic path: the reference), the
 * texture mesh is made and refined by mmx_subdivide at every call. Both give the same bytes. */
mmx_status mmx__subdiv_uv(mmx_ctx *ctx, mmx_scheme scheme, const mmx_mesh *mesh, int levels,
                          const mmx__subdiv_sharp *sh, mmx_fvar_mode mode, int64_t nnz_out,
                          int fast, mmx_mesh_uv **out);

/* The texture mesh that mmx__subdiv_uv refines as a mesh (the smooth modes; Catmull-Clark's and
 * bilinear's linear mode), in the context's space, with the scheme that refines it (*tscheme):
 * its vertices the coordinates (u, v, 0), its faces the mesh's with each corner's coordinate,
 * its tags the mesh's sharp features (uv.c); refined `levels` times with MMX_HOLES_KEEP it
 * gives the result's texture coordinates (its vertices' first two coordinates) and their index
 * (its faces). *tm NULL, and MMX_OK, where the mesh has none, for sqrt3 and for Loop's linear
 * mode (refined per corner). Reads the mesh's faces and coordinates on the host (a wait on
 * CUDA). */
mmx_status mmx__subdiv_uv_texture(mmx_ctx *ctx, mmx_scheme scheme, const mmx_mesh *mesh,
                                  const mmx__subdiv_sharp *sh, mmx_fvar_mode mode, mmx_mesh **tm,
                                  mmx_scheme *tscheme);

/* uv.cu, queued on the context's stream (device arrays):
 *   from_pos: values[2 k + c] = pos[3 k + c] for c < 2, k < n (a refined texture mesh's
 *             positions as coordinates);
 *   level:    one level of the per-corner rule (uv_face.h), one thread per parent face of
 *             order `order` (0: through colptr), child has 4 x the parent's corners;
 *   number:   the nnz corners' coordinates in cur numbered by value as uv.c's host loop does
 *             (a stable radix sort of their bits, the first of each run kept, in sorted
 *             order): index (nnz) and values (room for 2 nnz), *nvalues read back (the one
 *             wait). */
mmx_status mmx__uv_from_pos_cuda(mmx_ctx *ctx, const float *pos, mmx_index n, float *values);
/*   to_pos:   pos[3 k + c] = values[2 k + c] for c < 2, pos[3 k + 2] = 0, k < n (coordinates as
 *             a texture mesh's positions); */
mmx_status mmx__uv_to_pos_cuda(mmx_ctx *ctx, const float *values, mmx_index n, float *pos);
mmx_status mmx__uv_level_cuda(mmx_ctx *ctx, int quads, mmx_index nf, mmx_index order,
                              const mmx_index *colptr, const float *par, float *child);
mmx_status mmx__uv_number_cuda(mmx_ctx *ctx, const float *cur, int64_t nnz, mmx_index *index,
                               float *values, mmx_index *nvalues);

/* An empty mesh shell in the context's space holding M and room for nverts x 3 positions. */
mmx_status mmx__subdiv_mesh_alloc(mmx_ctx *ctx, mmx_index nverts, mmx_mesh **out);

/* ---- per-element table entries, shared by the host loops and the kernels --------------- */

/* Vertex v's entries of the vertex-rule tables (rules.h) from the adjacency's valence and
 * boundary flag, where only the boundary is sharp (a level with creases takes its entries from
 * creases.c's tables). */
/* p + off floats, or NULL for a NULL p: an empty level's position array is NULL, and NULL + 0
 * is undefined in C (UBSan: "applying zero offset to null pointer"). */
static inline float *mmx__subdiv_at(float *p, size_t off)
{
    return p ? p + off : p;
}

static inline MMX__HD void mmx__subdiv_vertex_tables(mmx_scheme scheme,
                                                     const mmx__subdiv_sharp *sh, int level,
                                                     const mmx_index *valence,
                                                     const unsigned char *boundary, mmx_index v,
                                                     float *self, float *ring, float *crease)
{
    const float s0 = sh->vsharp && v < sh->nv0 ? sh->vsharp[v] : 0.0f;
    const mmx__vertex_rule w =
        mmx__rule_vertex_boundary(scheme, valence[v], boundary[v], sh->boundary, s0, level);
    self[v] = w.self, ring[v] = w.ring, crease[v] = w.crease;
}

/* Edge e's entries of the edge-rule tables (rules.h) from its number of faces: a boundary edge
 * is sharp (infinitely: its halves stay sharp). */
static inline MMX__HD void mmx__subdiv_edge_tables(mmx_scheme scheme, const mmx_index *sides,
                                                   mmx_index e, float *ends, float *faces)
{
    const mmx__edge_rule w = mmx__rule_edge(scheme, sides[e] < 2 ? 1.0f : 0.0f);
    ends[e] = w.ends, faces[e] = w.faces;
}

/* What the child topology reads, by value so that a kernel can take it as a parameter: the
 * level's M, its corners' edges (adj->fe) and, for sqrt3, F. */
typedef struct mmx__subdiv_topo {
    mmx_scheme scheme;
    mmx_csc M, F;
    const mmx_index *fe;
} mmx__subdiv_topo;

/* The children of face k (subdiv.h's layout), written from `out` on: `nv`, `nf` the input's
 * vertex and face counts. Returns 0, or 1 when a needed half-edge is missing from F (sqrt3 on
 * a mesh with boundary, whose children sqrt3.c makes instead). */
static inline MMX__HD int mmx__subdiv_children(const mmx__subdiv_topo *tp, mmx_index k,
                                               mmx_index nv, mmx_index nf, mmx_index *out)
{
    const mmx_csc *M = &tp->M;
    const mmx_index *fe = tp->fe;
    int64_t a, b;
    mmx__csc_col(M, k, &a, &b);
    const mmx_index n = (mmx_index)(b - a);
    const mmx_index *v = M->rowidx + a;
    if (mmx__scheme_quads(tp->scheme)) {
        /* The children of face k start at child a. */
        mmx_index *q = out + 4 * a;
        const mmx_index epts = nv + nf;
        for (mmx_index s = 0; s < n; s++, q += 4)
            mmx__rule_cc_child(v[s], epts + (fe[a + s] >> 1), nv + k,
                               epts + (fe[a + (s == 0 ? n - 1 : s - 1)] >> 1), q);
        return 0;
    }
    if (tp->scheme == MMX_SCHEME_LOOP) {
        const mmx_index e[3] = {nv + (fe[a] >> 1), nv + (fe[a + 1] >> 1), nv + (fe[a + 2] >> 1)};
        mmx__rule_loop_children(v, e, out + 12 * (int64_t)k);
        return 0;
    }
    /* sqrt3: the face across the edge v_s -> v_s+1 is F(v_s+1, v_s), the face running the
     * opposite half-edge. */
    const mmx_csc *F = &tp->F;
    mmx_index *t = out + 9 * (int64_t)k;
    for (mmx_index s = 0; s < 3; s++, t += 3) {
        const mmx_index from = v[s], to = v[s == 2 ? 0 : s + 1];
        const mmx_index hi = F->colptr[from + 1];
        const mmx_index q = mmx__lower_bound(F->rowidx, F->colptr[from], hi, to);
        if (q == hi || F->rowidx[q] != to) return 1;
        mmx__rule_sqrt3_child(from, nv + F->val[q], nv + k, t);
    }
    return 0;
}

/* The device halves (operators.cu, topology.cu), on checked arguments, declared whatever the
 * build (a build without CUDA links the stubs of nocuda.c, device.h). The tables, FE's rows
 * and the identity are queued; the topology waits for the stream to read its fault flag. */
mmx_status mmx__subdiv_tables_cuda(mmx_ctx *ctx, mmx__subdiv_ops *ops);
mmx_status mmx__subdiv_fe_rows_cuda(mmx_ctx *ctx, const mmx_index *fe, mmx_index nnz,
                                    mmx_index *rows);
mmx_status mmx__subdiv_iota_cuda(mmx_ctx *ctx, mmx_index n, mmx_index *out);
mmx_status mmx__subdiv_topology_cuda(mmx_ctx *ctx, mmx__subdiv_topo tp, mmx_index nv,
                                     mmx_index *rows);

#ifdef __cplusplus
}
#endif
/* Loop (and the other schemes) on a mesh that holds a pillow, two triangles on the same three
 * vertices in opposite orders, whose children a mesh matrix cannot keep apart: refined on the
 * face-list path (mmx_subdivide_faces, general.c) and made a mesh again (its faces repeat no
 * vertex), with one texture coordinate per corner. Returns MMX_ERR_MESH without a message when
 * the mesh has no pillow (the caller's refusal then stands); else the face-list path's status.
 * Cost: O(corners) per level on the host, and a read of a device mesh (a wait). */
mmx_status mmx__subdiv_pillows(mmx_ctx *ctx, mmx_scheme scheme, const mmx_mesh *mesh, int levels,
                               const mmx_subdiv_options *opts, mmx_mesh **out);

#endif
