/* Isotropic remeshing's flow, written once for both backends (remesh.c): the iterations, each
 * a step of split rounds, of collapse rounds, of flip rounds and of relaxation rounds, with
 * their stopping rules, their counts and the mesh's replacement after a round (the patches
 * kept current, the validation). What differs between the host and CUDA is only in the
 * stages (mmx__rm_stages): the host's in remesh.c, CUDA's in remesh.cu, each the same rules
 * (remesh_step.h) on its own memory, so both make the same edits round for round. */
#ifndef MMX_DYNAMIC_REMESH_FLOW_H
#define MMX_DYNAMIC_REMESH_FLOW_H

#include "dynamic_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the flow carries from round to round. Every array lives in the context's space. */
typedef struct mmx__rm {
    mmx_ctx *ctx;
    int cuda;                       /* the context's backend (which stages run) */
    const mmx_remesh_options *o;
    mmx_mesh *cur;                  /* the working copy (reduced triangles) */
    uint64_t *feat;                 /* its feature edges: nfeat sorted keys (mmx__rm_key) */
    mmx_index nfeat;
    unsigned char *pin;             /* its tagged corners: a flag per vertex */
    double lo2, hi2;                /* (4/5 L)^2, (4/3 L)^2 */
    uint32_t round;                 /* rounds run so far: the next round's priorities */
    mmx_mesh_expect expect;         /* what every round's result is validated against */
    int have_topo;                  /* the backend holds the topology of cur */
    const mmx_adjacency *adj;       /* that topology's adjacency, while have_topo */
    void *be;                       /* the backend's own state (topology, BVH, feature lines) */
    void *scratch[32];              /* what mmx__rm_take allocated this round */
    int nscratch;
} mmx__rm;

/* One round's seeds and results, passed from stage to stage (arrays in the context's space,
 * from mmx__rm_take, freed by mmx__rm_release after the round). */
typedef struct mmx__rm_round {
    mmx_cavity_kind kind;
    mmx_index *seeds;               /* n: edges or vertices, ascending */
    mmx_index n;
    mmx_index found;                /* the seeds the step's rule found (the report's count;
                                       flips: before the vertex-disjoint choice) */
    mmx_index *keep;                /* collapses: the end the merged vertex stays at (-1: the
                                       midpoint) */
    mmx_index ring_total;           /* CUDA collapses: the rings' total, read with n */
    float *targets;                 /* moves: 3n */
    mmx_cavity_seed *sd;            /* n records (NULL for flips) */
    mmx_mesh *next;                 /* the round's new mesh (none for moves) */
    mmx_cavity_counts c;            /* the round's counts (the kept count on both backends) */
    mmx_index *flag, *off;          /* a backend's scratch between its stages */
    mmx_index *seeds2;              /* CUDA moves: the other buffer of seeds and targets */
    float *targets2;
} mmx__rm_round;

/* A backend's stages. Each returns a status and leaves what it made in st or r. Errors: those
 * of the rounds and allocations they make. Synchronises: host no; CUDA as remesh.cu's head
 * lists (a seeds' count, a selection's steps, a round's counts, the features' count). */
typedef struct mmx__rm_stages {
    /* The topology of st->cur when not held (st->have_topo, st->adj set); drop_topo frees it. */
    mmx_status (*topo)(mmx__rm *st);
    void (*drop_topo)(mmx__rm *st);
    /* The seeds of a split (remesh_step.h: mmx__rm_split_seed), of a collapse (with keep and,
     * on CUDA, ring_total) and of a flip (the valence rule, then the greedy vertex-disjoint
     * set in the round's key order): r->seeds, r->n, r->found. */
    mmx_status (*split_seeds)(mmx__rm *st, mmx__rm_round *r);
    mmx_status (*collapse_seeds)(mmx__rm *st, mmx__rm_round *r);
    mmx_status (*flip_seeds)(mmx__rm *st, mmx__rm_round *r);
    /* The round of r->kind over r's seeds (n > 0): r->next, r->c, r->sd (split, collapse). */
    mmx_status (*edge_round)(mmx__rm *st, mmx__rm_round *r);
    /* After a round that kept some: a split's feature edges (a, b) become (a, m) and (m, b),
     * the corner flags grow; a collapse's survivors are renumbered (feature ends keep their
     * positions in r->next), the corner flags and the features follow. */
    mmx_status (*split_features)(mmx__rm *st, mmx__rm_round *r);
    mmx_status (*collapse_renumber)(mmx__rm *st, mmx__rm_round *r);
    /* The relaxation: every vertex's target from the positions at the start of the step
     * (r->seeds, r->targets, r->n: the vertices that move, r->sd room for them); a round of
     * moves on st->cur's positions in place (r->c); the conflicting seeds kept, with their
     * targets, for the next round (r->n their number). */
    mmx_status (*relax_targets)(mmx__rm *st, mmx__rm_round *r);
    mmx_status (*move_round)(mmx__rm *st, mmx__rm_round *r);
    mmx_status (*conflicts)(mmx__rm *st, mmx__rm_round *r);
} mmx__rm_stages;

extern const mmx__rm_stages mmx__rm_host_stages; /* remesh.c */
extern const mmx__rm_stages mmx__rm_cuda_stages; /* remesh.cu (nocuda.c: none) */

/* count elements of size bytes (and one more) in the context's space, uninitialised, freed by
 * mmx__rm_release. Errors: MMX_ERR_NOMEM, MMX_ERR_CUDA, MMX_ERR_INTERNAL (the list is full). */
mmx_status mmx__rm_take(mmx__rm *st, size_t count, size_t size, void **p);
void mmx__rm_release(mmx__rm *st);

/* What CUDA's set-up takes from the caller: the input (a device mesh), its tagged features
 * (host arrays: the creases' keys, lower end << 32 | higher end, and the corners' vertices),
 * the feature-angle rule (by_angle, cos_bound) and whether feature vertices slide. */
typedef struct mmx__remesh_dev_in {
    const mmx_mesh *mesh;
    const uint64_t *creases;
    mmx_index ncreases;
    const mmx_index *corners;
    mmx_index ncorners;
    int by_angle;
    double cos_bound;
    int slide; /* sliding feature vertices (slide.h: mmx__slide_open_cuda) */
} mmx__remesh_dev_in;

/* What it measures: the sums of the edge lengths and face areas (remesh_step.h's order), the
 * number of edges, of feature edges and of feature vertices. */
typedef struct mmx__remesh_dev_measure {
    double length, area;
    mmx_index nedges, nfeat, feature_verts;
} mmx__remesh_dev_measure;

/* CUDA's set-up (remesh.cu): the working copy of in->mesh (reduced), its topology, features,
 * corner flags, measures (*m) and the BVH over the input, into st (st->be its own state).
 * Synchronises: a few times (the counts and sums it reads). Errors: those of the steps,
 * MMX_ERR_NOMEM, MMX_ERR_CUDA. mmx__remesh_dev_close frees st->be (NULL: nothing). */
mmx_status mmx__remesh_dev_open(mmx__rm *st, const mmx__remesh_dev_in *in,
                                mmx__remesh_dev_measure *m);
void mmx__remesh_dev_close(mmx__rm *st);

#ifdef __cplusplus
}
#endif

#endif
