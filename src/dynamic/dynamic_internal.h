/* Private declarations of the dynamic module: the topology a round of the cavity operator
 * reads, and the templates' halves. */
#ifndef MMX_DYNAMIC_INTERNAL_H
#define MMX_DYNAMIC_INTERNAL_H

#include "mesh/mesh_internal.h"
#include "meshmatrix/dynamic.h"
#include "flip_step.h"
#include "sc_step.h"
#include "bvh_step.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A triangle mesh's face lists with its adjacency and, per edge, the face that runs it from
 * its lower end (ef[2e]) and the one that runs it from its higher end (ef[2e + 1]); -1 where
 * there is none, and both -1 for an edge without exactly two faces running it opposite ways
 * (a boundary, non-manifold or inconsistently oriented edge), which no flip may touch. */
typedef struct mmx__flip_topo {
    mmx_index nverts, nfaces, nedges;
    mmx_index *start, *verts;  /* mmx_mesh_faces's host arrays (malloc) */
    mmx_adjacency *adj;        /* host */
    mmx_index *ef;             /* 2 * nedges */
    mmx_index *hf;             /* 2 * nedges: as ef, but also set for an edge with one face (the
                                  direction it runs the edge; the other -1); -1 -1 for an edge
                                  with three faces or more or two running it the same way */
    mmx_index *vf_ptr, *vf;    /* nverts + 1, 3 * nfaces: the faces at each vertex, ascending */
    mmx__flip_view view;       /* verts, the adjacency's edge_ptr and ev, and ef, for the
                                  shared steps (flip_step.h) */
} mmx__flip_topo;

/* Builds it for a host triangle mesh on a host context. Errors: MMX_ERR_UNSUPPORTED (a CUDA
 * context), MMX_ERR_SPACE, MMX_ERR_MESH (a face that is not a triangle, named), MMX_ERR_NOMEM.
 * `who` names the caller in the messages. */
mmx_status mmx__flip_topo_build(mmx_ctx *ctx, const mmx_mesh *mesh, const char *who,
                                mmx__flip_topo *t);
void mmx__flip_topo_free(mmx__flip_topo *t);

/* The quad around interior edge e: q = {a, b, c, d} with (a, b, c) = ef[2e] (a < b) and
 * (b, a, d) = ef[2e + 1]. Returns 0 when e has no two such faces. */
int mmx__flip_quad(const mmx__flip_topo *t, mmx_index e, mmx_index q[4]);

/* 1 when edge {u, v} is an edge of the topology. */
int mmx__flip_has_edge(const mmx__flip_topo *t, mmx_index u, mmx_index v);

/* The triangle checks the templates share (double precision): p = pos's row v; n = the normal
 * of (P, Q, R), twice its area in length; 1 when (P, Q, R) is degenerate (mmx_mesh_validate's
 * bound: area at most 1e-12 times its longest edge squared) or folded (its normal does not
 * point the way of N). */
void mmx__point(const float *pos, mmx_index v, double p[3]);
void mmx__tri_normal(const double P[3], const double Q[3], const double R[3], double n[3]);
int mmx__bad_triangle(const double P[3], const double Q[3], const double R[3], const double N[3]);

/* The topology's arrays as sc_step.h's view (the code the CUDA rounds run too). */
mmx__sc_view mmx__sc_host_view(const mmx__flip_topo *t);

/* Seed edge e's split or collapse cavity: sd->faces, and the cavity's faces into ring
 * (*nring of them, at most 2 for a split, the valences of the edge's ends for a collapse);
 * 1 when it is valid by dynamic.h's rules. pos may be NULL (topological checks only). */
int mmx__split_cavity(const mmx__flip_topo *t, const float *pos, mmx_index e, mmx_cavity_seed *sd,
                      mmx_index *ring, mmx_index *nring);
int mmx__collapse_cavity(const mmx__flip_topo *t, const float *pos, mmx_index e,
                         mmx_cavity_seed *sd, mmx_index *ring, mmx_index *nring);
/* The collapse's cavity with the merged vertex at place (3 floats; NULL: the midpoint). */
int mmx__collapse_cavity_at(const mmx__flip_topo *t, const float *pos, mmx_index e,
                            const float *place, mmx_cavity_seed *sd, mmx_index *ring,
                            mmx_index *nring);

/* Fill the kept seeds kept[0..nkept) (positions in seeds/sd, in key order) into a new host
 * mesh in the general form (the caller reduces it), setting each kept seed's sd->vertex. */
mmx_status mmx__split_fill(mmx_ctx *ctx, const mmx__flip_topo *t, const float *pos,
                           const mmx_index *seeds, mmx_cavity_seed *sd, const mmx_index *kept,
                           mmx_index nkept, mmx_mesh **out);
/* place (3 per seed, may be NULL: midpoints): where each kept seed's merged vertex goes. */
mmx_status mmx__collapse_fill(mmx_ctx *ctx, const mmx__flip_topo *t, const float *pos,
                              const mmx_index *seeds, const float *place, mmx_cavity_seed *sd,
                              const mmx_index *kept, mmx_index nkept, mmx_mesh **out);

/* What a removing round keeps (compact.c): arrays in the round's space. */
typedef struct mmx__compact {
    const unsigned char *keepf; /* nf: face f survives when keepf[f] != 0 */
    const mmx_index *to;        /* nv, or NULL: vertex v merges into to[v], which merges into
                                   nothing (to[to[v]] = to[v]); the merged-away vertices go,
                                   every other survives, used or not */
    const float *pos;           /* nv x 3 positions to carry, or NULL (the output has none) */
    mmx_index nv_out, nf_out;   /* the survivors' counts when the round knows them (then the
                                   device waits for nothing), else -1 */
    mmx_index extra_v, extra_f; /* room after the survivors for the round's new vertices and
                                   faces (uninitialised, for its fill to write) */
} mmx__compact;

/* The mesh a removing round leaves: the faces verts[3f .. 3f + 3) (nf triangles on nv
 * vertices, in `space`) that c->keepf keeps, in their order, corners through c->to, the
 * surviving vertices numbered in their order, and their positions; a reduced triangle mesh in
 * `space` into *out. vid (nv, in `space`, or NULL) gets each old vertex's new number (-1 for a
 * merged-away one: a merged vertex's number is vid[to[v]]). The column selection of the faces'
 * matrix (mmx__csc_select_cols), so every template removes faces and renumbers the same way.
 * Synchronises: as mmx__csc_select_cols (none when the counts are given). Errors:
 * MMX_ERR_NOMEM, MMX_ERR_CUDA. Cost: O(nv + nf). */
mmx_status mmx__round_compact(mmx_ctx *ctx, mmx_space space, const mmx_index *verts,
                              mmx_index nv, mmx_index nf, const mmx__compact *c, mmx_mesh **out,
                              mmx_index *vid);

/* A round's result: m (made from status s) reduced to triangles, unless it has no faces (no
 * order to reduce to); *out = m on success, m freed on failure. Returns the status. Every
 * template's round ends in it. */
mmx_status mmx__round_result(mmx_ctx *ctx, mmx_status s, mmx_mesh *m, mmx_mesh **out);

/* A valid seed's key: (priority, element, position in the seeds), compared in that order,
 * smallest first: dynamic.h's selection rule. mmx__cavity_key_sort sorts by it. */
typedef struct mmx__cavity_key {
    uint64_t priority;
    mmx_index elem, seed;
} mmx__cavity_key;
void mmx__cavity_key_sort(mmx__cavity_key *order, mmx_index n);

/* The greedy pass over order[0..nvalid) (sorted): seed j's cavity is the elements ring[ptr[j]
 * .. ptr[j + 1]) (its faces, and for a flip the slot of the edge it creates: cavity.c); it is
 * kept (sd[j].outcome KEPT, j appended to kept[] in key order) unless one of its elements is
 * already taken[] (zeroed) by a kept cavity; else CONFLICT. Returns the number kept. Every
 * template's round uses it (round.c), so the rule is stated once (the CUDA rounds reproduce
 * it: select.cu). */
mmx_index mmx__cavity_select(const mmx__cavity_key *order, mmx_index nvalid, mmx_cavity_seed *sd,
                             const mmx_index *ptr, const mmx_index *ring, unsigned char *taken,
                             mmx_index *kept);

/* ---- the round driver (round.c) --------------------------------------------------------------
 *
 * Every template's round is the same flow, written once (mmx__round_run): propose (each seed's
 * cavity: its validity, key and elements), select (the greedy pass in key order: the host's
 * mmx__cavity_select, CUDA's mmx__select_cuda, which select.cu proves the same), fill (the kept
 * cavities into the output, compacting where the template removes faces: mmx__round_compact),
 * and the counts. Each template gives its propose and fill stages for both backends
 * (mmx__round_ops); the driver calls them through the context's backend, so a template's host
 * and CUDA halves differ only in the stages, never in the flow. Every array a round reads or
 * writes lives in the context's space. */
typedef struct mmx__round mmx__round;

/* A template's stages, [0] the host's and [1] CUDA's. propose fills sd (but the outcome of the
 * seeds left to the selection), state (MMX__UNDECIDED or decided), key, elem (host) and the
 * rings (ring_ptr, ring_len or NULL, ring, nelem), or decides every seed itself (`decided`,
 * no selection; then the fill sets c.kept). fill writes the output (*out, NULL for a move: its
 * positions go into pos_out) and every outcome not yet in sd. */
typedef struct mmx__round_ops {
    mmx_status (*propose[2])(mmx__round *r);
    mmx_status (*fill[2])(mmx__round *r, mmx_mesh **out);
} mmx__round_ops;

/* The counters a CUDA round keeps on the device, read back once (mmx__round_tally). */
typedef struct mmx__round_counters {
    unsigned int invalid; /* seeds the proposal found invalid */
    unsigned int listed;  /* kept seeds listed by the fill */
    unsigned int faces;   /* faces the kept cavities add or remove */
    unsigned int fan;     /* user cavities: the fans' faces */
} mmx__round_counters;

struct mmx__round {
    /* The input. */
    mmx_ctx *ctx;
    int cuda;                       /* the context's backend (the stages' index) */
    const mmx_mesh *mesh;           /* the round's mesh (NULL for a CUDA flip into
                                       out_verts) */
    const float *pos;               /* its positions, or NULL */
    const mmx__flip_topo *ht;       /* its host topology (host backend) */
    const mmx__sc_view *sv;         /* its device topology's view (CUDA, but flips and face
                                       splits) */
    const mmx__flip_view *fv;       /* CUDA flips and face splits: the flip view they read */
    mmx_cavity_kind kind;
    const mmx_index *seeds;         /* n elements (edges, faces, vertices), or NULL for user
                                       cavities */
    mmx_index n;
    uint32_t round;
    const float *prio;              /* edge templates: n priorities, or NULL (hashed) */
    const float *place;             /* collapses: 3n merged positions, or NULL (midpoints) */
    int checked;                    /* collapses with places: the caller found every seed's
                                       cavity valid at its place on this very mesh (QEM's
                                       evaluation ran the same check), so the proposal checks
                                       the topology alone and skips the folds */
    const float *targets;           /* moves: 3n targets */
    float *pos_out;                 /* moves: the positions, moved in place */
    double min_quality;             /* moves (dynamic_internal.h: mmx__tri_quality) */
    const mmx_index *cav_ptr;       /* user cavities: n + 1 offsets into cav_faces (from 0 on
                                       CUDA, from cav_ptr[0] on the host) */
    const mmx_index *cav_faces;
    mmx_index cav_total;            /* user cavities: cav_ptr[n] - cav_ptr[0] */
    const uint64_t *upri;           /* user cavities: n priorities, or NULL (hashed) */
    int distinct;                   /* CUDA flips: no seed repeats */
    mmx_index ring_total;           /* CUDA collapses: > 0, the rings' total (sc_step.h's bound
                                       summed over the seeds) when the caller read it with its
                                       own counts; 0: the proposal reads it (a wait) */
    int tally;                      /* 0: a CUDA flip round reads no counts (invalid and
                                       conflicts come back -1): the Delaunay loop's rounds */
    mmx_index *out_verts;           /* CUDA flips: the output faces (3 nfaces), written whole;
                                       NULL: the fill makes a mesh */
    mmx_index *kept_edges;          /* CUDA flips: the kept seeds' edges, or NULL */
    /* What the stages write (the context's space). */
    mmx_cavity_seed *sd;            /* n records */
    uint64_t *key;                  /* n: the priority (the selection's key on CUDA) */
    mmx_index *elem;                /* host, n: the key's second part (the seed's element) */
    unsigned char *state;           /* n: MMX__UNDECIDED or an outcome */
    const mmx_index *ring_ptr;      /* n + 1 (host) or n: where seed i's elements start */
    const mmx_index *ring_len;      /* n, or NULL: ring_ptr[i + 1] - ring_ptr[i] */
    const mmx_index *ring;
    mmx_index nelem;                /* elements are in [0, nelem) */
    int decided;                    /* the proposal decided every seed */
    mmx_index *kept;                /* host: the kept seeds in key order */
    mmx_cavity_counts c;            /* proposed; kept (select); invalid (host propose) */
    mmx__round_counters *dtally;    /* CUDA: the device counters (zeroed by the driver) */
    mmx__round_counters htally;     /* their values once read */
    int tallied;
    void *priv;                     /* a template's own state between its stages (CUDA: host
                                       memory from malloc, freed by the driver; host: from
                                       mmx__round_take) */
    void *own[8];                   /* what mmx__round_take allocated (freed by the driver) */
};

/* bytes of scratch in the context's space for the round's stages (uninitialised), freed when
 * the round ends. Errors: MMX_ERR_NOMEM, MMX_ERR_CUDA, MMX_ERR_INTERNAL (more than 8). */
mmx_status mmx__round_take(mmx__round *r, size_t bytes, void **p);

/* Runs one round of template ops on r (input fields set, the rest zero): the stages through
 * r->cuda's backend; *out the new mesh (NULL for a move), counts (may be NULL) the round's.
 * On CUDA the counts are read in one wait (mmx__round_tally) unless a fill read them already;
 * with r->tally 0 (flips) none. Synchronises: host no; CUDA as the stages, the selection's
 * steps and the counts' one read. Errors: the stages'. */
mmx_status mmx__round_run(mmx__round *r, const mmx__round_ops *ops, mmx_mesh **out,
                          mmx_cavity_counts *counts);

/* CUDA: the device counters into r->htally, once per round (later calls return at once).
 * Synchronises: once (the read). */
mmx_status mmx__round_tally(mmx__round *r);

/* The public calls' host arrays on a CUDA context: bytes of host copied to new device memory
 * *dev (NULL when bytes is 0; free with mmx_mem_free). Synchronises: the copy. */
mmx_status mmx__round_upload(mmx_ctx *ctx, const void *host, size_t bytes, void **dev);

/* mmx__round_run for a public call that takes host arrays on either backend, on a CUDA
 * context: r->seeds (n) and r->targets (3n, or NULL) are host arrays, copied down; per_seed
 * (host, or NULL) gets the records back. Synchronises: also the copies. */
mmx_status mmx__round_run_host_args(mmx__round *r, const mmx__round_ops *ops,
                                    mmx_cavity_seed *per_seed, mmx_mesh **out,
                                    mmx_cavity_counts *counts);

/* The stages (round.c, the templates' files; the CUDA ones in their .cu files, and in a build
 * without CUDA in nocuda.c, where each refuses with mmx__no_cuda's sentence). */
extern const mmx__round_ops mmx__edge_ops;    /* flip, split, collapse: r->kind */
extern const mmx__round_ops mmx__face_ops;    /* face split */
extern const mmx__round_ops mmx__move_ops;    /* vertex relocation */
extern const mmx__round_ops mmx__vremove_ops; /* vertex removal */
extern const mmx__round_ops mmx__user_ops;    /* user cavities */
mmx_status mmx__flip_propose_cuda(mmx__round *r);
mmx_status mmx__flip_fill_cuda(mmx__round *r, mmx_mesh **out);
mmx_status mmx__sc_propose_cuda(mmx__round *r);
mmx_status mmx__sc_fill_cuda(mmx__round *r, mmx_mesh **out);
mmx_status mmx__face_propose_cuda(mmx__round *r);
mmx_status mmx__face_fill_cuda(mmx__round *r, mmx_mesh **out);
mmx_status mmx__move_propose_cuda(mmx__round *r);
mmx_status mmx__move_fill_cuda(mmx__round *r, mmx_mesh **out);
mmx_status mmx__vremove_propose_cuda(mmx__round *r);
mmx_status mmx__vremove_fill_cuda(mmx__round *r, mmx_mesh **out);
mmx_status mmx__user_propose_cuda(mmx__round *r);
mmx_status mmx__user_fill_cuda(mmx__round *r, mmx_mesh **out);

/* mmx_cavity_round on a topology already built for `mesh` (Delaunay builds it once per round
 * for both its seeds and the round; remeshing and simplification carry it), with priorities as
 * data (mmx_cavity_round_ranked's rule: host arrays, prio[i] not NaN, checked by the caller;
 * prio NULL: the hashed priorities of `round`) and, for a collapse, the merged vertices'
 * places (3 per seed, NULL: the midpoints). checked: mmx__round's (the caller found every
 * collapse valid at its place on this mesh; 0 otherwise). */
mmx_status mmx__cavity_round_ranked(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx__flip_topo *t,
                                    mmx_cavity_kind kind, const mmx_index *seeds,
                                    const float *prio, const float *place, int checked,
                                    mmx_index n, uint32_t round, mmx_mesh **out,
                                    mmx_cavity_counts *counts, mmx_cavity_seed *per_seed);

/* ---- the CUDA backend of the edge flip (flip_topo.c, cavity.cu, delaunay.cu) ----------------
 *
 * A device round reads the same arrays as the host's, built on the device from the adjacency
 * (mmx_adjacency_compute on CUDA) for the round's input mesh: the edge numbering is the
 * priorities' input, so it must be the one mmx_adjacency gives that mesh. A flip changes it
 * (edge {a, b} goes, {c, d} comes, and the numbers of the edges between shift); a single round
 * (mmx_cavity_round, mmx_delaunay_round) builds it from the adjacency, and the Delaunay loop
 * builds it once and then carries it from round to round (mmx__flip_update), which gives the
 * same arrays for O(nedges) work. Splits and collapses (mmx__sc_round_ranked_cuda) build on
 * it too. */
typedef struct mmx__flip_dev {
    mmx_adjacency *adj;  /* device */
    mmx_index *ef;       /* device, 2 * nedges */
    mmx__flip_view view; /* device pointers: the mesh's rowidx, adj's edge_ptr and ev, ef */
} mmx__flip_dev;

/* Builds it for a triangle mesh on the device (either form) on a CUDA context. Errors:
 * MMX_ERR_SPACE, MMX_ERR_MESH (a face that is not a triangle, named), those of
 * mmx_adjacency_compute. Synchronises: the adjacency's one wait (and, for a mesh that is not
 * all triangles, the host copy that names the face). */
mmx_status mmx__flip_dev_build(mmx_ctx *ctx, const mmx_mesh *mesh, const char *who,
                               mmx__flip_dev *t);
void mmx__flip_dev_free(mmx_ctx *ctx, mmx__flip_dev *t);

/* A reduced triangle mesh on the device with src's sizes and a copy of its positions, its
 * rowidx uninitialised (for a fill to write). Synchronises: no. */
mmx_status mmx__flip_dev_mesh(mmx_ctx *ctx, const mmx_mesh *src, mmx_mesh **out);

/* A reduced triangle mesh on the device with nv vertices and nf faces, rowidx and (with_pos)
 * pos uninitialised. Synchronises: no. Errors: MMX_ERR_NOMEM, MMX_ERR_CUDA. */
mmx_status mmx__dev_tri_mesh(mmx_ctx *ctx, mmx_index nv, mmx_index nf, int with_pos,
                             mmx_mesh **out);

/* The CUDA halves (queued on the context's stream unless said otherwise). */

/* ef from the adjacency's fe and sides (triangles: corner k is in face k / 3). */
mmx_status mmx__flip_ef_cuda(mmx_ctx *ctx, const mmx_adjacency *adj, mmx_index nfaces,
                             mmx_index *ef);

/* The Delaunay seeds of v (mmx__fv_delaunay_seed) in edge order into seeds (room for
 * nedges); their number into *count (device memory). */
mmx_status mmx__delaunay_seeds_cuda(mmx_ctx *ctx, const mmx__flip_view *v, const float *pos,
                                    mmx_index *seeds, mmx_index *count);

/* One flip round on the device (the round driver with cavity.cu's stages): seeds[0..n)
 * (device memory, edges of v, checked by the caller; `distinct` when no edge repeats, which
 * skips the search for repeats) with priorities prio (device, n; NULL: the hashed ones), the
 * kept set by the device selection (mmx__select_cuda; select.cu proves it the host's), the
 * kept flips filled into out (device, 3 * nfaces, written whole: a copy of v->verts, then the
 * fills). counts (host) gets the round's counts: proposed and kept always, invalid and
 * conflicts when `tally` (one more wait, at the end, to read the invalid seeds' count), else
 * -1 (the Delaunay loop needs only the kept). per_seed (device, n entries, or NULL) gets each
 * seed's cavity and outcome; kept_edges (device, n entries, or NULL) the kept seeds' edges, in no fixed order.
 * Synchronises: as the selection (mmx__select_cuda), and with `tally` once more (n = 0:
 * none). */
mmx_status mmx__flip_round_ranked_cuda(mmx_ctx *ctx, const mmx__flip_view *v, const float *pos,
                                       const mmx_index *seeds, const float *prio, mmx_index n,
                                       int distinct, uint32_t round, mmx_index *out,
                                       mmx_cavity_counts *counts, int tally,
                                       mmx_cavity_seed *per_seed, mmx_index *kept_edges);

/* The topology of the mesh a flip round made (flip_update.c; flip_step.h states the rule):
 * from the old view (the round's input), the old edges of the kept flips kedge[0..k) (any
 * order, distinct) and the new mesh's faces verts, into edge_ptr (nverts + 1), ev and ef
 * (2 * nedges each, not overlapping the old arrays), all in the context's space; *out is the
 * new view. The same arrays as mmx__flip_topo_build / mmx__flip_dev_build of the new mesh.
 * Synchronises: no. Errors: MMX_ERR_NOMEM, MMX_ERR_CUDA. */
mmx_status mmx__flip_update(mmx_ctx *ctx, const mmx__flip_view *old, const mmx_index *kedge,
                            mmx_index k, const mmx_index *verts, mmx_index *edge_ptr,
                            mmx_index *ev, mmx_index *ef, mmx__flip_view *out);
mmx_status mmx__flip_update_cuda(mmx_ctx *ctx, const mmx__flip_view *old, const mmx_index *kedge,
                                 mmx_index k, const mmx_index *verts, mmx_index *edge_ptr,
                                 mmx_index *ev, mmx_index *ef, mmx__flip_view *out);

/* A flip round on a device topology already built for `mesh` (cavity.c): seeds and per_seed
 * in device memory, the new device mesh into *out, all the counts. mmx_delaunay_round's
 * device path and mmx_cavity_round's share it. Synchronises: as mmx__flip_round_ranked_cuda
 * with `tally`. */
mmx_status mmx__flip_round_dev(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx__flip_dev *t,
                               const mmx_index *seeds, mmx_index n, int distinct, uint32_t round,
                               mmx_mesh **out, mmx_cavity_counts *counts, mmx_cavity_seed *per_seed);

/* An edge split or collapse round on the device (the round driver with split_collapse.cu's
 * stages, the host's steps shared through sc_step.h): t (mmx__sc_dev, below) built for `mesh`
 * (device), seeds, prio, place and checked (as mmx__cavity_round_ranked's) and per_seed
 * (may be NULL) in device memory, seeds checked by the caller; the new device mesh into *out,
 * counts (host) the round's. The same outcomes, counts and bytes as
 * mmx__cavity_round_ranked. Synchronises: a collapse once to read the rings' total;
 * as the selection (mmx__select_cuda), once to read the counts. */
typedef struct mmx__sc_dev mmx__sc_dev;
mmx_status mmx__sc_round_ranked_cuda(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx__sc_dev *t,
                                     mmx_cavity_kind kind, const mmx_index *seeds,
                                     const float *prio, const float *place, int checked,
                                     mmx_index n, uint32_t round, mmx_mesh **out,
                                     mmx_cavity_counts *counts, mmx_cavity_seed *per_seed);
/* first[e] (nelem entries, device) = the smallest position i < n with seeds[i] = e (~0u where
 * none): a minimum, whatever the order of the atomics. Every template's CUDA proposal marks
 * the later copies of a seed CONFLICT by it (select.cu says why). Synchronises: no. Errors:
 * MMX_ERR_CUDA. */
mmx_status mmx__first_copies_cuda(mmx_ctx *ctx, const mmx_index *seeds, mmx_index n,
                                  mmx_index nelem, unsigned int *first);
/* Checks device seeds and priorities: *bad (host) the first i with seeds[i] outside
 * [0, limit), *nan the first with prio[i] NaN (prio may be NULL); -1 where none.
 * Synchronises: once (the read). Errors: MMX_ERR_NOMEM, MMX_ERR_CUDA. */
mmx_status mmx__rank_check_cuda(mmx_ctx *ctx, const mmx_index *seeds, const float *prio,
                                mmx_index n, mmx_index limit, mmx_index *bad, mmx_index *nan);

/* ---- the shared device layers of the templates and the remesher ---------------------------
 *
 * A seed the device selection has not decided yet (besides mmx_cavity_outcome's KEPT 0,
 * INVALID 1, CONFLICT 2). */
#define MMX__UNDECIDED 3

/* The device selection (select.cu): the greedy pass's kept set (mmx__cavity_select's rule,
 * without the flip's new-edge set, which cavity.cu turns into one more element per cavity) by
 * a Luby-style loop (select.cu states it and proves it the greedy pass). Seed i of n
 * with state[i] == MMX__UNDECIDED takes part with key[i] (distinct among the undecided seeds:
 * a caller marks copies CONFLICT beforehand, as select.cu explains) and its elements
 * ring[ring_ptr[i] .. ring_ptr[i] + len_i), len_i = ring_len ? ring_len[i] : ring_ptr[i + 1] -
 * ring_ptr[i], each in [0, nelem); two seeds conflict when they share an element. On return
 * each such seed is MMX_CAVITY_KEPT or MMX_CAVITY_CONFLICT; other states are left alone.
 * *kept (host) gets the number kept. All arrays in device memory. Synchronises: to read how
 * many seeds are undecided, after the loop's first step and after every second step (select.cu
 * says why). Errors: MMX_ERR_NOMEM, MMX_ERR_CUDA. */
mmx_status mmx__select_cuda(mmx_ctx *ctx, mmx_index n, const uint64_t *key,
                            const mmx_index *ring_ptr, const mmx_index *ring_len,
                            const mmx_index *ring, mmx_index nelem, unsigned char *state,
                            mmx_index *kept);

/* The device topology a split, collapse, face split or move reads (split_collapse.cu): the
 * flip's (mmx__flip_dev), hf, and the faces at each vertex in ascending order within each
 * vertex (as mmx__flip_topo_build's vf, so sums over them run in the host's order). */
struct mmx__sc_dev {
    mmx__flip_dev f;
    mmx_index *hf, *vf_ptr, *vf; /* device */
    mmx__sc_view view;           /* device pointers: f.view, hf, the adjacency's sides,
                                    boundary and E, vf_ptr, vf */
};

/* Builds it for a triangle mesh on the device on a CUDA context; errors as
 * mmx__flip_dev_build's. Synchronises: as mmx__flip_dev_build. */
mmx_status mmx__sc_dev_build(mmx_ctx *ctx, const mmx_mesh *mesh, const char *who,
                             mmx__sc_dev *t);
void mmx__sc_dev_free(mmx_ctx *ctx, mmx__sc_dev *t);

/* A vertex relocation round on the device (reloc.cu; templates.c states it on the host):
 * the seeds' moves (seeds, targets: device, n and 3n) checked by the host's rule with
 * min_quality (reloc_step.h, the host's code), the kept set by mmx__select_cuda over the faces
 * at each seed, the kept moves written into pos (device, nverts x 3) in place; counts (host)
 * and per_seed (device, n, or NULL) as mmx__relocate_round_pos's. Seeds must be vertices of v
 * (checked by the caller). The same outcomes and bytes as mmx__relocate_round_pos.
 * Synchronises: as mmx__select_cuda, and once more to read the invalid seeds' count (n = 0:
 * none). Errors: MMX_ERR_NOMEM, MMX_ERR_CUDA. */
mmx_status mmx__relocate_round_cuda(mmx_ctx *ctx, const mmx__sc_view *v, float *pos,
                                    const mmx_index *seeds, const float *targets, mmx_index n,
                                    uint32_t round, double min_quality,
                                    mmx_cavity_counts *counts, mmx_cavity_seed *per_seed);

/* A face split round on the device (face_split.cu; templates.c states it on the host): v the
 * flip view of `mesh` (device), seeds (faces of it, checked by the caller) and per_seed (n, or
 * NULL) in device memory; the new device mesh into *out, counts (host) the round's. The same
 * outcomes, counts and bytes as mmx__face_split_round_topo. Synchronises: once, to read the
 * counts (which size the output). Errors: MMX_ERR_NOMEM, MMX_ERR_CUDA. */
mmx_status mmx__face_split_round_cuda(mmx_ctx *ctx, const mmx_mesh *mesh,
                                      const mmx__flip_view *v, const mmx_index *seeds,
                                      mmx_index n, uint32_t round, mmx_mesh **out,
                                      mmx_cavity_counts *counts, mmx_cavity_seed *per_seed);

/* The face split and relocation rounds (templates.c) on a topology already built. The
 * relocation writes the kept seeds' targets into pos (nverts x 3, host) in place: the
 * topology does not change, so a caller may run several rounds on one topology. */
mmx_status mmx__face_split_round_topo(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx__flip_topo *t,
                                      const mmx_index *seeds, mmx_index n, uint32_t round,
                                      mmx_mesh **out, mmx_cavity_counts *counts,
                                      mmx_cavity_seed *per_seed);
mmx_status mmx__relocate_round_pos(mmx_ctx *ctx, const mmx__flip_topo *t, float *pos,
                                   const mmx_index *seeds, const float *targets, mmx_index n,
                                   uint32_t round, double min_quality, mmx_cavity_counts *counts,
                                   mmx_cavity_seed *per_seed);

/* A triangle's shape: twice its area over its longest edge squared, |n| / l^2, from 0
 * (degenerate) to sqrt(3)/2 (equilateral). min_quality above: a move is also invalid when it
 * leaves a face at v under it and worse than the face was (0: the template's rule alone). */
double mmx__tri_quality(const double P[3], const double Q[3], const double R[3]);

/* Closest points on a triangle soup (closest.c): a bounding volume hierarchy over the
 * triangles (a linear BVH: the radix tree over the Morton codes of their centroids, Karras
 * 2012, leaves of at most 4; bvh_step.h describes it), queried by branch and bound, nearer
 * child first (bvh_step.h's mmx__bvh_closest_view, the same code and the same result bits on
 * the host and the device). Built on the host (mmx__bvh_build) or the device
 * (mmx__bvh_build_cuda) into the same arrays, byte for byte. Deterministic: ties keep the
 * triangle met first in a fixed traversal order. */
typedef struct mmx__bvh mmx__bvh;

/* Builds it over triangles tri[3i .. 3i + 3) (nt of them) on positions pos (copied; finite,
 * or the tree is still built, the same on both backends, but non-finite centroids all get
 * Morton code 0). Errors: MMX_ERR_NOMEM. Cost: O(nt) (a radix sort of 64-bit keys, the tree's
 * 2 nt - 1 nodes), O(nt) memory. */
mmx_status mmx__bvh_build(mmx_ctx *ctx, const float *pos, mmx_index nverts, const mmx_index *tri,
                          mmx_index nt, mmx__bvh **out);
void mmx__bvh_free(mmx__bvh *b);

/* The same build on the device: pos (device, 3 nverts floats) and tri (device, 3 nt indices)
 * on a CUDA context; the arrays are mmx__bvh_build's byte for byte (corners, nodes, order) in
 * one allocation *block laid out as mmx__bvh_to_device's (free with mmx__dev_free; NULL when
 * nt = 0); *dev: the device pointers, nt and nnodes (2 nt - 1, 0 for nt = 0).
 * Synchronises: no: every step is queued on the context's stream (the sizes follow from nt
 * alone; the scratch comes from and goes back to the stream-ordered pool), so the view is
 * ready for work queued after it, and the caller must keep pos and tri alive until then.
 * Errors: MMX_ERR_NOMEM, MMX_ERR_CUDA (a launch or CUB). Cost: O(nt) work, about 85 bytes of
 * scratch per triangle beside the block's 204. */
mmx_status mmx__bvh_build_cuda(mmx_ctx *ctx, const float *pos, mmx_index nverts,
                               const mmx_index *tri, mmx_index nt, mmx__bvh_view *dev,
                               void **block);

/* The closest point to p on the triangles into q (double), its triangle as the return value
 * (-1 when there are none), the squared distance in *d2 (may be NULL); with budget > 0, -2
 * past that many triangle tests (bvh_step.h). */
mmx_index mmx__bvh_closest(const mmx__bvh *b, const double p[3], double q[3], double *d2,
                           long long budget);

/* b's arrays as a view (host memory, b's own: valid while b lives). */
mmx__bvh_view mmx__bvh_host_view(const mmx__bvh *b);

/* Copies b's arrays to the device in one allocation *block (free with mmx__dev_free; NULL
 * when b has no triangles); *dev: the device pointers, nt and nnodes. ctx: a CUDA context.
 * Synchronises: yes (the copies): they are queued on the context's stream, and from b's
 * pageable host memory each returns once its source is staged, so b may be freed at once.
 * Errors: MMX_ERR_NOMEM, MMX_ERR_CUDA. Cost: O(nt) bytes copied. */
mmx_status mmx__bvh_to_device(mmx_ctx *ctx, const mmx__bvh *b, mmx__bvh_view *dev, void **block);

/* Closest points for n query points p (device, 3n doubles) into q (device, 3n doubles) and
 * tri (device, n; may be NULL), on the context's stream: per point i, mmx__bvh_closest_view
 * on dev (from mmx__bvh_to_device or mmx__bvh_build_cuda), one thread each, the host's bits.
 * Where a point gets -1 (no triangles, or a non-finite point) q[3i .. 3i + 3) is left as it
 * was. Synchronises: no.
 * Errors: MMX_ERR_CUDA (the launch). Cost: O(n log nt) expected. */
mmx_status mmx__bvh_closest_cuda(mmx_ctx *ctx, const mmx__bvh_view *dev, const double *p,
                                 mmx_index n, double *q, mmx_index *tri);

/* The cosine bound of mmx_simplify's feature angle (-2 when it is off: 180 degrees). */
double mmx__qem_cos_bound(double feature_angle);

/* The bounding box diagonal from its corners, the same double on both backends. */
double mmx__qem_diagonal(const float lo[3], const float hi[3]);
/* MMX_ERR_MESH naming vertex v's coordinate that is not finite. */
mmx_status mmx__qem_not_finite(mmx_ctx *ctx, mmx_index v);

/* The input as mmx_simplify returns it when nothing collapses: a copy in its space, reduced,
 * positions only. */
mmx_status mmx__simplify_unchanged(mmx_ctx *ctx, const mmx_mesh *mesh, mmx_mesh **out);

/* mmx_mesh_validate of round `round`'s result m against expect; MMX_ERR_INTERNAL naming the
 * round and the problem when it is not valid. */
mmx_status mmx__simplify_check_round(mmx_ctx *ctx, const mmx_mesh *m, const mmx_mesh_expect *expect,
                                     int round);

/* mmx_simplify on a CUDA context (simplify.cu): o checked and its target resolved by the
 * caller (o->target_faces set from the ratio), the mesh on the device, expect the input's
 * Euler characteristic for o->validate, tagged[0..ntagged) (host) the tagged vertices to lock.
 * The host's rounds, bytes and report. */
mmx_status mmx__simplify_cuda(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_simplify_options *o,
                              const mmx_mesh_expect *expect, const mmx_index *tagged,
                              mmx_index ntagged, mmx_mesh **out, mmx_simplify_report *report);

#ifdef __cplusplus
}
#endif

#endif
