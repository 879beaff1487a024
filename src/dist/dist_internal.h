/* src/dist: the partitioned mesh's private declarations. Only comm.c calls MPI (under
 * MMX_HAVE_MPI); the rest of the layer talks through the mmx__dist_ wrappers below, which
 * count the bytes they send. */
#ifndef MMX_DIST_INTERNAL_H
#define MMX_DIST_INTERNAL_H

#include "meshmatrix/dist.h"
#include "meshmatrix/io.h"
#include "core/core_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

struct mmx_dist {
    void *comm; /* malloc'd MPI_Comm: the duplicate of the caller's */
    int rank, size;
    void *nccl; /* ncclComm_t made from comm on the first CUDA partitioned mesh, or NULL */
};

/* The device side of a partitioned mesh on a CUDA context (NULL on the host backend): the
 * halo's lists on the device, the pinned host buffers of the staged transport (grown to the
 * largest exchange so far), and the host context that the host-side steps (the cut, the
 * subdivision's naming and gather) run on. */
typedef struct mmx__dist_dev {
    mmx_ctx *hctx;
    mmx_mesh *hlocal;             /* the local mesh in host memory (dm->local is on the device) */
    mmx_index *sidx, *ridx;       /* device copies of dm->sidx, dm->ridx */
    void *hs, *hr;                /* pinned staging buffers */
    size_t cap_s, cap_r;          /* their sizes in bytes */
    int transport;                /* MMX_DIST_STAGED or MMX_DIST_NCCL */
    void *marks;                  /* cudaEvent_t[cap_marks]: queued exchanges' start and end */
    int nmarks, cap_marks;
} mmx__dist_dev;

/* One exchange's buffers (mmx__dist_xbuf_create): send and receive rows of k floats in the
 * mesh's space, and the byte counts per rank (sent, then received). */
typedef struct mmx__dist_xbuf {
    int k;
    mmx_space space;
    float *sb, *rb;
    int64_t *cnt;
} mmx__dist_xbuf;

/* What a partitioned mesh has sent so far, and the edge numbering the first edge query made
 * for the next ones (mutable behind the const handles the calls take; freed with the mesh).
 * The numbering is collective, so every rank has it or none does. */
typedef struct mmx__dist_counters {
    int64_t bytes;
    int exchanges;
    double exchange_ms;
    mmx_adjacency *adj;   /* the local mesh's adjacency, on the host (on CUDA its host copy's) */
    int64_t *eg;          /* the global number of each local edge (adj's order) */
    unsigned char *eown;  /* whether each local edge is owned here (its larger end is) */
    int64_t gedges;       /* the whole mesh's edges; -1 until numbered */
} mmx__dist_counters;

struct mmx_dist_mesh {
    mmx_dist *d;
    int rings;
    int64_t gverts, gfaces, gnnz;
    mmx_mesh *local;
    int64_t *gv, *gf;             /* local -> global, ascending */
    unsigned char *ov, *of;       /* owned here */
    mmx_index nov, nof;           /* owned counts */
    int64_t *gface_corner;        /* global colptr of each local face (its first corner in the
                                     whole mesh): Catmull-Clark's first child numbers */
    /* texture coordinates (local->uv, when the whole had them): the whole's count, and the
     * global number (the whole's value index) of each local value, ascending; NULL without */
    int64_t guvs;
    int64_t *guv;
    /* the halo: per rank, the local vertices sent (owned here, ghosts there) and received */
    int64_t *scount, *soff, *rcount, *roff; /* size + 1 offsets, in vertices */
    mmx_index *sidx, *ridx;
    /* rank 0: every rank's owned global vertex numbers, for the gathers */
    int64_t *gcount, *goff, *gids;
    mmx__dist_counters *cnt;
    mmx__dist_dev *dev;           /* NULL on the host backend */
};

/* Steps of mmx_dist_mesh_create that mmx_dist_mesh_read_parts shares (dist_mesh.c): rank 0
 * learns every rank's owned global vertex numbers (collective; needs dm->local, gv, ov, nov,
 * gverts); on CUDA the local mesh and the halo's lists go to the device (dm->local becomes
 * dm->dev->hlocal) and the transport is chosen (collective); a failure on the host context hc
 * told on ctx. */
mmx_status mmx__dist_gather_lists(mmx_ctx *ctx, mmx_dist_mesh *dm);
/* The ghost rings `levels` levels of `scheme` need (mmx_dist_rings' "subdiv:..."; ops.c). */
int mmx__dist_subdiv_rings(mmx_scheme scheme, int levels);
mmx_status mmx__dist_to_device(mmx_ctx *ctx, mmx_dist_mesh *dm);
mmx_status mmx__dist_host_status(mmx_ctx *ctx, mmx_ctx *hc, mmx_status s);

/* The halo exchange in pieces, for a caller that exchanges every iteration (the smoothers,
 * ops.c): the buffers made once (collective-free; on failure nothing is left to free), then
 * each exchange with no agreement and, on the device with NCCL, no wait (its time taken by
 * events on the stream and added to the counters by mmx__dist_exchange_times, which waits for
 * the last of them). Every rank calls mmx__dist_exchange_queued the same number of times
 * with the same buffers' sizes; it returns this rank's own failure only (agree it). */
mmx_status mmx__dist_xbuf_create(mmx_ctx *ctx, const mmx_dist_mesh *dm, int k, mmx__dist_xbuf *b);
void mmx__dist_xbuf_free(mmx_ctx *ctx, mmx__dist_xbuf *b);
mmx_status mmx__dist_exchange_queued(mmx_ctx *ctx, const mmx_dist_mesh *dm, float *x,
                                     const mmx__dist_xbuf *b);
mmx_status mmx__dist_exchange_times(mmx_ctx *ctx, const mmx_dist_mesh *dm);

/* The device half (exchange.cu; nocuda.c without CUDA): rows idx[i] of x (k floats each)
 * packed into out, and back; pinned host memory. Queued on the context's stream. */
mmx_status mmx__dist_dev_pack(mmx_ctx *ctx, const float *x, int k, const mmx_index *idx,
                              int64_t n, float *out);
mmx_status mmx__dist_dev_unpack(mmx_ctx *ctx, const float *in, int k, const mmx_index *idx,
                                int64_t n, float *x);
mmx_status mmx__dist_pinned(mmx_ctx *ctx, size_t bytes, void **p);
void mmx__dist_pinned_free(void *p);
/* An event recorded on the context's stream (the next of v's marks, made as needed); the sum
 * of the times between marks 0-1, 2-3, ... in ms, waiting for the last, the marks then reused;
 * the marks' release. */
mmx_status mmx__dist_dev_mark(mmx_ctx *ctx, mmx__dist_dev *v);
mmx_status mmx__dist_dev_marks_ms(mmx_ctx *ctx, mmx__dist_dev *v, double *ms);
void mmx__dist_dev_marks_free(mmx__dist_dev *v);

/* NCCL (nccl.c; stubs when the build has no NCCL): whether the build has it; the communicator
 * made from d's (collective: ncclGetUniqueId on rank 0, broadcast, ncclCommInitRank on the
 * context's device), once per handle; the all-to-all of device bytes (grouped ncclSend and
 * ncclRecv, blocks as mmx__dist_alltoallv's) queued on the context's stream; the free. */
int mmx__dist_has_nccl(void);
mmx_status mmx__dist_nccl_init(mmx_ctx *ctx, mmx_dist *d);
mmx_status mmx__dist_nccl_alltoallv(mmx_ctx *ctx, mmx_dist *d, const void *send,
                                    const int64_t *scount, void *recv, const int64_t *rcount);
void mmx__dist_nccl_free(mmx_dist *d);

/* Communication (collective over d; sizes in bytes; each returns MMX_OK or names the MPI
 * failure). counts: one int64_t per rank. */
mmx_status mmx__dist_allreduce_i64(mmx_ctx *ctx, mmx_dist *d, int64_t *v, int n, int op);
#define MMX__DIST_MIN 0
#define MMX__DIST_MAX 1
#define MMX__DIST_SUM 2
/* v[0..n) summed over the ranks in rank order on every rank (an all-gather, then the sum:
 * the same bits on every rank and every run, which MPI_Allreduce does not promise). */
mmx_status mmx__dist_sum_f64(mmx_ctx *ctx, mmx_dist *d, double *v, int n);
mmx_status mmx__dist_bcast(mmx_ctx *ctx, mmx_dist *d, void *buf, size_t bytes, int root);
mmx_status mmx__dist_alltoall_i64(mmx_ctx *ctx, mmx_dist *d, const int64_t *send, int64_t *recv);
/* Contiguous all-to-all: rank q's block of send starts at the sum of the counts before q. Past
 * 512 MiB sent or received by some rank (MPI's int counts stop at 2 GiB) it runs in rounds
 * through buffers of that size, every pair's bytes cut in as many slices (the round count
 * agreed by an all-reduce first; MMX_DIST_ROUND_BYTES sets a smaller size for tests). */
mmx_status mmx__dist_alltoallv(mmx_ctx *ctx, mmx_dist *d, const void *send,
                               const int64_t *scount, void *recv, const int64_t *rcount);
/* To root: every rank's bytes one after another in rank order (rcount: root only). */
mmx_status mmx__dist_gatherv(mmx_ctx *ctx, mmx_dist *d, const void *send, int64_t bytes,
                             void *recv, const int64_t *rcount, int root);
mmx_status mmx__dist_gather_i64(mmx_ctx *ctx, mmx_dist *d, int64_t v, int64_t *all, int root);
/* *distinct = 1 on every rank when no two ranks of a node (MPI_COMM_TYPE_SHARED) name the same
 * device, else 0 (collective). NCCL refuses a communicator with one GPU twice. */
mmx_status mmx__dist_node_distinct(mmx_ctx *ctx, mmx_dist *d, int device, int *distinct);

/* Every rank's n numbers, in rank order, on every rank (all: R n). */
mmx_status mmx__dist_allgather_i64(mmx_ctx *ctx, mmx_dist *d, const int64_t *mine, int n,
                                   int64_t *all);
/* One file written by all ranks (MPI-IO, collective): created or truncated, then each rank's
 * chunk i written at its offset, chunk by chunk (every rank passes n chunks, empty ones with 0
 * bytes), a chunk past 512 MiB in pieces (MPI's int counts). Errors: MMX_ERR_IO (the file,
 * named, with MPI's reason). */
typedef struct mmx__dist_chunk {
    const void *data;
    int64_t bytes, offset;
} mmx__dist_chunk;
mmx_status mmx__dist_write_at(mmx_ctx *ctx, mmx_dist *d, const char *path,
                              const mmx__dist_chunk *chunk, int n);

/* Numbers [0, n) cut into R blocks in order, rank q holding [q n / R, (q + 1) n / R): the
 * rank of g's block (n > 0), and block q's first number (dist_write.c). */
int mmx__dist_block_of(int64_t g, int64_t n, int R);
int64_t mmx__dist_block_start(int q, int64_t n, int R);
/* Records of int64 words, grouped by destination rank (scount[q] words to rank q; R entries,
 * scaled in place to bytes), sent (collective; statuses agreed): *recv (malloc'd, free())
 * gets the words this rank receives in rank order, *nrecv their count, rwords (R entries, may
 * be NULL) the words from each rank. */
mmx_status mmx__dist_send_words(mmx_ctx *ctx, mmx_dist *d, const int64_t *send, int64_t *scount,
                                int64_t **recv, int64_t *nrecv, int64_t *rwords);
/* One mesh file written by all ranks (dist_write.c; collective, statuses agreed): OBJ (the
 * comment line, "v" lines, "vn" lines when k is 6, "f" lines, "a//a" with normals) or binary
 * little-endian PLY (ply_write.c's header and rows), the bytes mmx_mesh_write gives the whole
 * mesh of V vertices and F faces. Each rank passes the nv vertices it writes (global numbers
 * vg, rows of k floats: 3 positions, then 3 normals when k is 6, the same k on every rank)
 * and its nf faces (global numbers fg, corners fcorner[fstart[i] .. fstart[i + 1]) as global
 * vertex numbers in cyclic order); every vertex and face number once over the ranks, in any
 * order (else MMX_ERR_MESH or MMX_ERR_INTERNAL, named). *sent: the bytes this rank sent;
 * *bytes: the file's size (both may be NULL). V and F below 2^31 (the callers check).
 * Texture coordinates (OBJ only; uv NULL: none, on every rank alike): T values, each given
 * once over the ranks (nt of them here: global numbers tg, rows of 2 floats), written as
 * "vt u v" lines after the "v" lines, and each face corner's value (tcorner, beside fcorner),
 * "a/t" ("a/t/a" with normals), as mmx__write_obj writes them.
 * Cost: one all-to-all of 8 (1 + ceil(k / 2)) bytes a vertex and 16 a face plus 8 a corner
 * (16 with texture coordinates, and 16 a value), a maximum and an all-gather of 5 counts, one
 * collective write. */
typedef struct mmx__dist_uvrec {
    int64_t T, nt;
    const int64_t *tg;
    const float *rows;
    const int64_t *tcorner;
} mmx__dist_uvrec;
mmx_status mmx__dist_write_records(mmx_ctx *ctx, mmx_dist *d, const char *path, mmx_format fmt,
                                   int64_t V, int64_t F, int k, int64_t nv, const int64_t *vg,
                                   const float *rows, int64_t nf, const int64_t *fg,
                                   const int64_t *fstart, const int64_t *fcorner,
                                   const mmx__dist_uvrec *uv, int64_t *sent, int64_t *bytes);

/* Whether the single process numbers the refined texture coordinates by value (subdiv/uv.c:
 * Loop's linear mode, and Catmull-Clark's or bilinear's where the texture mesh is no mesh
 * matrix: a face repeating a value, two faces on the same values; such faces are local
 * together, so some rank sees it wherever the whole has it) rather than by the refined
 * texture mesh's layout, for L levels of scheme with o (the mode from o->fvar, else the local
 * mesh's tag); 0 without tex. Collective (a maximum over the ranks; every rank joins whatever
 * its status; agree it after). subdiv_write.c. */
mmx_status mmx__dist_uv_by_value(mmx_ctx *ctx, const mmx_dist_mesh *dm, mmx_scheme scheme, int L,
                                 const mmx_subdiv_options *o, int tex, int64_t *by_value);

/* The status agreed: mmx_dist_agree. */
double mmx__dist_now_ms(void);

/* The edges of face lists, as sorted unique keys min << 32 | max (malloc'd, *keys; free()),
 * and a look-up. */
mmx_status mmx__dist_edges(mmx_ctx *ctx, mmx_index nfaces, const mmx_index *start,
                           const mmx_index *verts, uint64_t **keys, size_t *n);
int mmx__dist_has_edge(const uint64_t *keys, size_t n, mmx_index a, mmx_index b);

/* The global number of each local edge of dm (A: the adjacency of its local mesh, on the host),
 * the single process's edge numbering (mmx_adjacency's: by the larger end, then the smaller),
 * as *eg (A->nedges, malloc'd; free()), and the whole mesh's edge count *gedges on every rank
 * (collective; edges.c). An edge belongs to the owner of its larger end. Errors (agreed):
 * MMX_ERR_NOMEM, MPI's, MMX_ERR_INTERNAL. Cost: O(local edges + ghost edges log valence), a
 * gather and a scatter of 8 bytes an owned vertex on rank 0, and 24 bytes for each local edge
 * whose larger end is a ghost (the question to its owner and the answer). */
mmx_status mmx__dist_edge_numbers(mmx_ctx *ctx, const mmx_dist_mesh *dm, const mmx_adjacency *A,
                                  int64_t **eg, int64_t *gedges);

/* Sets on `to` the creases, corners and holes of T through the vertex map (map[v] < 0:
 * dropped; a crease kept only when its mapped edge is one of to's) and the face map (fmap[f]
 * < 0: dropped; NULL: the faces as they are; ascending where kept, so the holes stay in face
 * order), the options as they are; nothing when nothing is left. */
mmx_status mmx__dist_map_tags(mmx_ctx *ctx, const mmx_mesh_tags *T, const int64_t *map,
                              const int64_t *fmap, mmx_mesh *to);

#ifdef __cplusplus
}
#endif

#endif
