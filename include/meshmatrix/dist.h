/*
 * meshmatrix/dist.h: a mesh partitioned over MPI ranks, and operations across the ranks.
 *
 * The faces are cut into R contiguous parts along the patch set's order of faces (patch.h:
 * the patches follow a Morton curve through the face centroids, so a part is a union of whole
 * patches), one part per rank of a communicator. Each rank holds its part, the owned faces,
 * plus a ghost layer of `rings` rings of faces around it (ring 1: every face sharing a vertex
 * with an owned face; ring k + 1: every face sharing a vertex with ring k), as a local mesh
 * with 32-bit local numbers: its faces in ascending global number, its vertices (those of its
 * faces) in ascending global number, so that a local sum visits its terms in the order of the
 * single-process sum and the operations below give the single process's results bit for bit
 * where the library's sums are in index order (normals, the explicit smoothing steps).
 * Global numbers are 64-bit (int64_t).
 *
 * Ownership: a face belongs to the rank of its part; a vertex to the rank that owns its
 * incident face of smallest global number (a vertex in no face to rank 0, which keeps it in its
 * local mesh). So every face around an owned vertex is in the local mesh (ring 1), and a
 * vertex value computed from its faces or its one-ring is exact on its owner. A halo exchange
 * (mmx_dist_exchange) sends each owned vertex's value to the ranks that hold it as a ghost.
 *
 * The communicator. The header needs no MPI: mmx_dist_create takes a pointer to an MPI_Comm
 * (`&comm`, any MPI's handle type) as `const void *`, and duplicates it, so the library's
 * messages never meet the caller's. MPI_Init must have been called (and MPI_Finalize not yet);
 * every call below that takes a mmx_dist is collective: every rank of the communicator calls it,
 * in the same order, with the same arguments except the per-rank ones named.
 *
 * Failures are collective too: a rank that fails (bad input in its part, no memory) makes
 * every rank return the same status with the same sentence, "rank r: ...", naming the lowest
 * failing rank; no rank waits forever for another that stopped. The build without MPI
 * (meson -Dmpi=disabled, or no MPI found) keeps this header: mmx_dist_available returns 0 and
 * mmx_dist_create MMX_ERR_UNSUPPORTED, so no other call can be reached.
 *
 * Backend: the context's, the same on every rank. On CUDA (one device per rank; ranks may share
 * one) the local mesh lives on the device, the vertex arrays the calls take are device arrays,
 * the operations run through the library's CUDA paths on the local mesh, and the halo
 * exchange packs and unpacks on the device and moves the rows by NCCL where the build has it
 * (meson -Dnccl), else through pinned host buffers and MPI (mmx_dist_transport). Construction
 * is simple first: every rank reads the whole mesh and cuts its own part out of it, on the
 * host, O(whole mesh) per rank; or, once that was written as part files
 * (mmx_dist_mesh_write_parts), each rank reads only its part (mmx_dist_mesh_read_parts).
 */
#ifndef MESHMATRIX_DIST_H
#define MESHMATRIX_DIST_H

#include "geom.h"
#include "io.h"
#include "patch.h"
#include "subdiv.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A communicator's handle (a duplicate of the caller's), with its rank and size. Opaque. */
typedef struct mmx_dist mmx_dist;

/* 1 when this build has MPI (the mmx_dist calls work), 0 when not. Synchronises: no. */
int mmx_dist_available(void);

/* Makes the handle for the communicator *(const MPI_Comm *)comm (NULL: MPI_COMM_WORLD),
 * duplicated (MPI_Comm_dup, collective). Errors: MMX_ERR_ARG (NULL ctx or out), MMX_ERR_UNSUPPORTED
 * (built without MPI, or MPI not initialised: named), MMX_ERR_NOMEM. Synchronises: no. */
mmx_status mmx_dist_create(mmx_ctx *ctx, const void *comm, mmx_dist **out);

/* Frees the handle (MPI_Comm_free of the duplicate: collective, before MPI_Finalize). NULL is
 * accepted. */
void mmx_dist_free(mmx_dist *d);

/* The calling rank, and the number of ranks. Synchronises: no. */
int mmx_dist_rank(const mmx_dist *d);
int mmx_dist_size(const mmx_dist *d);

/* The ranks' statuses agreed (collective): MMX_OK when s is MMX_OK on every rank; otherwise
 * the status of the lowest failing rank r, on every rank, with the context's sentence set to
 * "rank r: " and that rank's sentence (from its ctx). Every distributed call below ends its
 * local steps with it before it communicates, which is what keeps a failing rank from leaving
 * the others waiting; a program mixing its own local calls with collective ones may use it
 * the same way. Errors: s agreed; MMX_ERR_ARG for NULL d (not collective then).
 * Synchronises: no (host). */
mmx_status mmx_dist_agree(mmx_ctx *ctx, mmx_dist *d, mmx_status s);

/* ---- the partitioned mesh ------------------------------------------------------------------ */

typedef struct mmx_dist_mesh mmx_dist_mesh;

/* How a partitioned mesh moves its vertex data between ranks (mmx_dist_info.transport). */
typedef enum mmx_dist_transport {
    MMX_DIST_HOST = 0,   /* host backend: host rows, MPI_Alltoallv */
    MMX_DIST_STAGED = 1, /* CUDA: device rows packed, copied to pinned host memory,
                            MPI_Alltoallv, copied back and unpacked on the device */
    MMX_DIST_NCCL = 2    /* CUDA with NCCL (meson -Dnccl), one GPU per rank, unless
                            MMX_DIST_TRANSPORT=staged: device rows packed, grouped
                            ncclSend/ncclRecv between the GPUs on the context's stream,
                            unpacked */
} mmx_dist_transport;

/* What a part is like (mmx_dist_mesh_info). */
typedef struct mmx_dist_info {
    int rank, ranks, rings;
    int64_t global_verts, global_faces;   /* the whole mesh */
    mmx_index owned_faces, ghost_faces;   /* this rank's part and its ghost layer */
    mmx_index owned_verts, local_verts;   /* vertices owned, and in the local mesh */
    mmx_index halo_recv_verts;            /* local vertices owned elsewhere (the halo) */
    mmx_index halo_send_verts;            /* owned vertices sent, counted once per receiver */
    int64_t exchanged_bytes;              /* bytes this rank sent by mmx_dist_exchange and the
                                             gathers so far (halo and gather traffic) */
    int exchanges;                        /* halo exchanges so far */
    double exchange_ms;                   /* the time in them (packing, the all-to-all, which
                                             includes waiting for the slowest rank, unpacking;
                                             on CUDA the stream is waited for before and after,
                                             so it is the exchange's own time) */
    int transport;                        /* mmx_dist_transport */
    int64_t global_edges;                 /* the whole mesh's edges, once an edge query
                                             (mmx_dist_query) numbered them; -1 before */
} mmx_dist_info;

/* Partitions `whole` (the same mesh on every rank: the whole mesh, in host memory, with or
 * without positions) over d's ranks with `rings` ghost rings (1 to 64): the faces ordered by
 * ps's patch of each face (ties by face number; ps NULL: the default patch set, built here,
 * mmx_patch_set_create), cut into R runs of about F / R faces ending at patch boundaries
 * (so a part is a union of patches; a rank may get no face when R exceeds the patches).
 * Operations state the rings they need (mmx_dist_rings). The tags are kept (translated to the
 * local numbers: the creases whose edge is in the local mesh, the corners of local vertices,
 * the holes among the local faces, ghosts included, in local face order), and so are the
 * texture coordinates (whole->uv): the local mesh's uv holds the values its faces' corners
 * use, owned and ghost faces alike, in ascending order of the whole's value index (rank 0 also
 * the values no face uses), with each local corner's index, for mmx_dist_subdivide and
 * mmx_dist_subdivide_write to refine; the other calls do not read them. Normals and colours
 * are not carried (mmx_dist_mesh_gather, mmx_dist_write_obj and _ply give positions and
 * topology only).
 * On a CUDA context the local mesh and the halo's lists are then copied to the device, and
 * the first CUDA partitioned mesh of a handle makes its NCCL communicator (collective).
 * Errors (agreed over the ranks): MMX_ERR_ARG (NULL arguments, rings out of range, meshes of
 * different sizes on the ranks, ranks on different backends), MMX_ERR_SPACE (a device mesh),
 * MMX_ERR_CUDA (the device copies, NCCL), MMX_ERR_MESH (the patch set's or the tags' refusals), MMX_ERR_OVERFLOW,
 * MMX_ERR_NOMEM. Cost: O(nverts + nnz) of the whole per rank (the cut, the rings, the local
 * numbering), the patch set when ps is NULL, one all-to-all of the halo's global numbers and
 * one gather of the owned vertices' numbers on rank 0.
 * Synchronises: no (host). */
mmx_status mmx_dist_mesh_create(mmx_ctx *ctx, mmx_dist *d, const mmx_mesh *whole,
                                const mmx_patch_set *ps, int rings, mmx_dist_mesh **out);

/* Frees a partitioned mesh (local; not collective). NULL is accepted. */
void mmx_dist_mesh_free(mmx_dist_mesh *dm);

/* The local mesh (owned and ghost faces, local numbers, positions copied from the whole), owned
 * by dm, in the context's space (a device mesh on CUDA): read it, smooth into your own arrays,
 * do not free it. */
const mmx_mesh *mmx_dist_mesh_local(const mmx_dist_mesh *dm);

/* Local-to-global maps, owned by dm: the global number of each local vertex (ascending) and
 * face (ascending); and whether each local vertex and face is owned here (1) or a ghost (0). */
const int64_t *mmx_dist_mesh_global_verts(const mmx_dist_mesh *dm);
const int64_t *mmx_dist_mesh_global_faces(const mmx_dist_mesh *dm);
const unsigned char *mmx_dist_mesh_owned_verts(const mmx_dist_mesh *dm);
const unsigned char *mmx_dist_mesh_owned_faces(const mmx_dist_mesh *dm);

/* Fills *info (local). Errors: MMX_ERR_ARG (NULL). Synchronises: no. */
mmx_status mmx_dist_mesh_info(const mmx_dist_mesh *dm, mmx_dist_info *info);

/* The halo exchange (collective): x is local_verts x k floats (k 1 to 16, row-major) on each
 * rank, in the context's space; every ghost vertex's row is replaced by its owner's row.
 * Exchange volume: 4 k bytes per halo vertex. Errors: MMX_ERR_ARG (NULL x, k out of range;
 * agreed), MMX_ERR_CUDA, MMX_ERR_NOMEM. Synchronises: on CUDA, the stream, before and after
 * (the staged transport reads the rows on the host; the time counted is the exchange's). */
mmx_status mmx_dist_exchange(mmx_ctx *ctx, const mmx_dist_mesh *dm, float *x, int k);

/* Gathers vertex data to rank 0 (collective): x is local_verts x k floats on each rank, in the
 * context's space; on rank 0 whole (global_verts x k, the caller's, host memory) gets each owned
 * row at its global number; other ranks may pass whole NULL. Errors: MMX_ERR_ARG (agreed),
 * MMX_ERR_NOMEM, MMX_ERR_CUDA. Synchronises: on CUDA, the stream (x is read back). */
mmx_status mmx_dist_gather(mmx_ctx *ctx, const mmx_dist_mesh *dm, const float *x, int k,
                           float *whole);

/* The whole mesh gathered on rank 0 (collective): *out (rank 0; NULL on the others) is a host
 * mesh of the whole's global_verts vertices and global_faces faces, face f and vertex v at
 * their global numbers, each face's corners in the cyclic order and from the corner the
 * whole's had, the positions of the local meshes (none when a rank's local mesh has none).
 * Built from the parts alone, so it gives a partitioned mesh read from part files
 * (mmx_dist_mesh_read_parts, where no process held the whole) the mesh it was cut from, which
 * is what the tool writes normals or smoothed positions into. Tags, texture coordinates,
 * normals and colours are not part of it (the parts keep no normals or colours, and no
 * texture coordinates when read from part files; their tags are in local numbers). Errors (agreed): MMX_ERR_ARG (NULL), MMX_ERR_OVERFLOW (a whole
 * past 32-bit indices), MMX_ERR_MESH (mmx_mesh_from_faces's refusals; a face owned by two
 * ranks, named: parts of different sets), MMX_ERR_NOMEM. Cost: a gather of 16 bytes a face,
 * 8 a corner and 12 an owned vertex on rank 0, O(whole) there. Synchronises: no (host; on
 * CUDA the local mesh's host copy is read). */
mmx_status mmx_dist_mesh_gather(mmx_ctx *ctx, const mmx_dist_mesh *dm, mmx_mesh **out);

/* The whole mesh written as one OBJ file by all ranks (collective), no rank holding the
 * whole: the same bytes as mmx_mesh_write of mmx_dist_mesh_gather's mesh with pos as its
 * positions and normals as its vertex normals, as OBJ ("# meshmatrix" line, "v" lines,
 * "vn" lines when normals is given, "f" lines, "a//a" with normals; no tags, texture
 * coordinates or colours). pos and normals (NULL: none, on every rank) are local_verts x 3
 * arrays in the context's space, of which the owned rows are read (the positions: the local
 * mesh's, mmx_dist_mesh_local(dm)->pos, or smoothed ones). How: the owned vertices' rows and
 * the owned faces go to the rank of their block of global numbers (rank q: [q N / R,
 * (q + 1) N / R)), which formats its block; an all-gather of each rank's byte counts places
 * the blocks; MPI-IO (MPI_File_write_at_all) writes them at their offsets, so the file is the
 * single process's without a gather on rank 0. *bytes (may be NULL): the file's size.
 * Errors (agreed): MMX_ERR_ARG (NULL dm, pos or path), MMX_ERR_OVERFLOW (a whole past 32-bit
 * numbers; a rank's block past 2 GiB is written in pieces), MMX_ERR_IO (the file, named, with MPI's reason),
 * MMX_ERR_MESH (a face no rank owns: parts of different sets), MMX_ERR_NOMEM, MMX_ERR_CUDA.
 * Cost: an all-to-all of 16 (24 with normals) bytes an owned vertex and 16 a face plus 8 a
 * corner, O(local mesh + block) per rank, one all-gather of 4 counts. Synchronises: on CUDA,
 * the stream (the rows are read back). */
mmx_status mmx_dist_write_obj(mmx_ctx *ctx, const mmx_dist_mesh *dm, const float *pos,
                              const float *normals, const char *path, int64_t *bytes);

/* The whole mesh written as one binary little-endian PLY file by all ranks (collective), as
 * mmx_dist_write_obj writes OBJ: the same bytes as mmx_mesh_write of mmx_dist_mesh_gather's
 * mesh with pos as its positions and normals as its vertex normals, as PLY (ply_write.c's
 * header; float x y z, then nx ny nz when normals is given; a uchar count per face, an int
 * count when some face of the whole passes 255 corners; int indices). The single-process
 * writer writes no ASCII PLY, so neither does this. The arguments, the all-to-all of the rows
 * and faces to the ranks of their blocks and the collective write are mmx_dist_write_obj's,
 * plus one all-reduce of the largest face order; a rank whose arguments are bad (pos NULL
 * with vertices, normals on some ranks only) makes every rank return the same error, and no
 * rank waits for it. *bytes (may be NULL): the file's size.
 * Errors (agreed): those of mmx_dist_write_obj. Synchronises: on CUDA, the stream. */
mmx_status mmx_dist_write_ply(mmx_ctx *ctx, const mmx_dist_mesh *dm, const float *pos,
                              const float *normals, const char *path, int64_t *bytes);

/* ---- part files ---------------------------------------------------------------------------- */

/* Writes the partitioned mesh as part files (collective): each rank writes its part to
 * PREFIX.R.part (R its rank), then rank 0 writes PREFIX.index, so that a set with an index has
 * all its parts. Read back by mmx_dist_mesh_read_parts with as many ranks, which then needs no
 * whole mesh (a rank reads its part and the index only).
 * PREFIX.index (text, a field a line): "mmx-dist-index 1", "ranks R", "rings K", "verts V",
 * "faces F", "corners C" (the whole mesh's counts; C = its corners, nnz).
 * PREFIX.R.part (binary, version 1, the writing machine's byte order, which the reader
 * checks): the magic "MMXPART\n"; uint32 version (1), 0x01020304 (the byte order), rank, ranks,
 * rings, has positions (0|1); int64 V, F, C (the whole), nlv, nlf, nnz (the local mesh's
 * vertices, faces, corners), the tags' bytes T; then the local mesh: int32 face starts
 * (nlf + 1), int32 corners (nnz, local vertex numbers in each face's cyclic order), float
 * positions (3 nlv, when present); int64 global vertex numbers (nlv), global face numbers
 * (nlf), each local face's first corner in the whole (nlf); uint8 owned flags of the vertices
 * (nlv) and faces (nlf); the halo: int64 vertices sent to each rank (R), received from each
 * (R), int32 local vertices sent (their sum, grouped by rank), received (likewise); the
 * local mesh's tags as OBJ 't' lines (T bytes, no terminating zero). Nothing else follows.
 * On CUDA the host copy of the local mesh is written (nothing is read from the device).
 * The parts hold no texture coordinates: a partitioned mesh that carries them is refused
 * (MMX_ERR_UNSUPPORTED, before any file is written; make it from the mesh without them).
 * Errors (agreed): MMX_ERR_ARG (NULL), MMX_ERR_IO (a file that cannot be created or written,
 * named), MMX_ERR_UNSUPPORTED, MMX_ERR_NOMEM. Cost: O(local mesh) per rank, no data exchanged.
 * Synchronises: no. */
mmx_status mmx_dist_mesh_write_parts(mmx_ctx *ctx, const mmx_dist_mesh *dm, const char *prefix);

/* Reads a partitioned mesh written by mmx_dist_mesh_write_parts (collective): each rank reads
 * PREFIX.index and its own PREFIX.R.part, and *out is the mmx_dist_mesh that
 * mmx_dist_mesh_create gave when it was written (the same local mesh, maps, flags, halo and
 * rings; its counters at zero), on the context's backend (on CUDA the local mesh goes to the
 * device as mmx_dist_mesh_create's does), so every call above works on it alike.
 * Checks: the index's version and rank count (a count other than the communicator's:
 * MMX_ERR_ARG naming both); each part's magic, version, byte order, header against the index,
 * its size against the header (truncated or trailing bytes), every number in range (local
 * vertex numbers, ascending global numbers below the whole's counts, owned flags, the halo's
 * lists naming owned vertices to send and every ghost once to receive), its tags as
 * mmx_mesh_tags_parse checks them; over the ranks, that the halo's counts pair up and the owned
 * faces, vertices and corners add up to the index's counts. A failed check is MMX_ERR_PARSE naming the
 * file and the entry or byte. Errors (agreed): MMX_ERR_ARG, MMX_ERR_IO (a file missing or
 * unreadable, named), MMX_ERR_PARSE, MMX_ERR_MESH (the local mesh's faces, as
 * mmx_mesh_from_faces), MMX_ERR_CUDA, MMX_ERR_NOMEM. Cost: O(part) per rank, an all-to-all of
 * R counts, and the gather of the owned vertices' numbers to rank 0 of mmx_dist_mesh_create.
 * Synchronises: no (host). */
mmx_status mmx_dist_mesh_read_parts(mmx_ctx *ctx, mmx_dist *d, const char *prefix,
                                    mmx_dist_mesh **out);

/* ---- operations across the ranks ----------------------------------------------------------- */

/* The ghost rings an operation needs (mmx_dist_mesh_create's rings), by name: "normals" and
 * "smooth:laplacian", "smooth:cotan", "smooth:bilateral" 1, "smooth:taubin" 2 (one exchange per
 * lambda|mu pair), "subdiv:L" 1 (any number L of levels of Loop, Catmull-Clark or bilinear,
 * with or without the limit, with no exchange: the surface over a face depends on its one-ring
 * only), "subdiv:sqrt3:L" 1 for L <= 1, 2 for L = 2 to 4, 3 beyond (mmx_dist_subdivide says
 * why), "query" 1. -1 for another name. */
int mmx_dist_rings(const char *operation);

/* Vertex normals of the partitioned mesh (collective): normals (local_verts x 3, in the
 * context's space) gets
 * mmx_vertex_normals of the local mesh on every owned vertex, then the halo exchange gives the
 * ghosts their owners' values; gathered (mmx_dist_gather) it equals mmx_vertex_normals of the
 * whole bit for bit (each vertex's faces are all local, summed in ascending global order).
 * Needs rings >= 1. Errors: as mmx_vertex_normals (agreed), MMX_ERR_ARG (rings). */
mmx_status mmx_dist_vertex_normals(mmx_ctx *ctx, const mmx_dist_mesh *dm,
                                   mmx_normal_weight weight, float *normals);

/* Smoothing of the partitioned mesh (collective): out (local_verts x 3, context's space) gets
 * the local
 * positions smoothed by opts (NULL: the defaults of LAPLACIAN) with a halo exchange after each
 * step (TAUBIN: after each lambda|mu pair, which is why it needs 2 rings); every local row is
 * exact at the end. LAPLACIAN, TAUBIN, COTAN and BILATERAL on the assembled path; MCF (a global
 * solve) and the patch path are refused (MMX_ERR_UNSUPPORTED). Gathered, each equals mmx_smooth
 * of the whole bit for bit (a vertex's step reads its own faces and one-ring, summed in the same
 * order; tests/test_dist.c checks all four).
 * report (may be NULL): the local call's report with iterations summed and ms the whole call.
 * Errors: as mmx_smooth (agreed), MMX_ERR_ARG (too few rings), MMX_ERR_UNSUPPORTED.
 * Cost: per step mmx_smooth's on the local mesh plus one exchange of 12 bytes per halo vertex.
 * LAPLACIAN, TAUBIN and COTAN run as one mmx_smooth call with the exchange between its
 * iterations: per iteration one agreement of the status (an MPI all-reduce of one integer)
 * and, on CUDA with NCCL, no wait (the exchanges' time is taken by events on the stream and
 * counted in mmx_dist_info's exchange_ms at the end); BILATERAL one call and one
 * mmx_dist_exchange per iteration.
 * Synchronises: on CUDA, mmx_smooth's waits once per call, and the end (the exchanges' times). */
mmx_status mmx_dist_smooth(mmx_ctx *ctx, const mmx_dist_mesh *dm, const mmx_smooth_options *opts,
                           float *out, mmx_smooth_report *report);

/* The query `kind` of the partitioned mesh, gathered on rank 0 (collective): any of the eight,
 * each rank answering its owned rows on its local mesh (every face they need is local, and the
 * local numbers follow the global order, so the rows' orders of query.h hold), rank 0 placing
 * them at their global numbers. The edges are numbered as the single process numbers them
 * (mmx_adjacency, mesh.h: the edge {i, j}, i < j, by j, then i); an edge's row (EV, EF) is
 * answered by the owner of its larger end, which holds all the edge's faces. On rank 0 *nrows
 * is the whole mesh's count of vertices (VV, VE, VF), edges (EV, EF) or faces (FV, FE, FF) and
 * *rowptr (nrows + 1) and *colidx (malloc'd, free() them) equal mmx_query's rowptr and colidx
 * of the whole mesh (the general form: a reduced result's rows at order * row); other ranks get
 * 0 and NULLs. Needs rings >= 1.
 * Errors (agreed): MMX_ERR_ARG (NULL outputs, an unknown kind), those of mmx_query on a local
 * mesh (MMX_ERR_MESH for an inconsistently oriented edge, named in local terms),
 * MMX_ERR_OVERFLOW (more than 2^31 - 1 edges or entries), MMX_ERR_NOMEM; on CUDA those of the
 * host copy's adjacency.
 * Cost: mmx_query on the local mesh, one gather of 16 bytes a row and 4 an entry; the first
 * edge query on dm also numbers the edges (the local mesh's adjacency on the host, its host
 * copy on CUDA; a gather and a scatter of 8 bytes an owned vertex through rank 0; 24 bytes for
 * each local edge whose larger end is a ghost, asked of that end's owner), which dm keeps for
 * the next queries (freed with it; mmx_dist_info.global_edges tells it is there), and on the
 * host backend every later query reuses that adjacency too.
 * Synchronises: on CUDA, the stream (the local answer is read back). */
mmx_status mmx_dist_query(mmx_ctx *ctx, const mmx_dist_mesh *dm, mmx_query_kind kind,
                          int64_t *nrows, mmx_index **rowptr, mmx_index **colidx);

/* Conjugate gradients on vertex data of the partitioned mesh (collective): solves S X = B as
 * mmx_cg does (spla.h: Jacobi preconditioned by S->diag when given, per column, the same
 * options and report; no residual history), with S a symmetric positive definite operator on
 * the whole mesh's vertices given per rank as an mmx_linop on the local mesh (S->n =
 * local_verts): apply(x) must be exact on the owned rows whenever x is exact on every local row
 * (a one-ring operator on one ghost ring: the Laplacians, A - h L), and may write anything on
 * the ghost rows. Before each application the halo of its input is exchanged; the dot
 * products run over the owned rows and are summed over the ranks in rank order, so every rank
 * takes the same steps and the result is the same bits from run to run (it differs from
 * mmx_cg on the whole in the dot products' order: within float rounding, iteration counts
 * alike on well-conditioned systems). b and x are local_verts x k arrays in the context's space
 * (x: the initial guess in, every local row of the solution out). On CUDA the vectors and the
 * dot products stay on the host (host copies, the host path's order) and S is applied to
 * device arrays after a device halo exchange, two copies of n k floats around each. Errors (agreed): those of mmx_cg,
 * MMX_ERR_UNSUPPORTED (opts->history), and whatever S->apply returns on any rank.
 * Cost: per iteration one exchange of 4 k bytes a halo vertex, one application of S and two
 * sums over the ranks of 2 k doubles. */
mmx_status mmx_dist_cg(mmx_ctx *ctx, const mmx_dist_mesh *dm, const mmx_linop *S, const float *b,
                       int k, float *x, const mmx_cg_opts *opts, mmx_cg_report *report);

/* What a partitioned subdivision did on this rank. */
typedef struct mmx_dist_subdiv_report {
    int64_t local_faces;      /* faces of the refined local mesh (owned descendants and ghosts') */
    int64_t owned_faces;      /* descendants of the owned faces (this rank's share of the result) */
    int64_t gathered_bytes;   /* bytes this rank sent to rank 0 */
    double refine_ms;         /* the refinement of the local mesh (mmx_subdivide; on CUDA the
                                 stream is waited for before and after: the device's time) */
    double gather_ms;         /* the rest: naming the vertices, the gathers, rank 0's assembly
                                 (mmx_dist_subdivide_write: the numbering and the writing) */
    int64_t written_verts;    /* mmx_dist_subdivide_write: the file's vertices and faces (every */
    int64_t written_faces;    /* rank); 0 from mmx_dist_subdivide */
} mmx_dist_subdiv_report;

/* Refines the partitioned mesh `levels` times by `scheme` (any of the four) and gathers the
 * result on rank 0 (collective). out NULL (on every rank): refine only, no gather, for a
 * result too large for one process (the report gives each rank's local and owned faces; the
 * refined local meshes are freed). On CUDA each rank refines its local mesh on its device
 * (the library's CUDA subdivision); the result comes back to host memory for the naming and
 * the gather, and rank 0's *out is copied to its device (the context's space, as
 * mmx_subdivide's). Each rank refines its local mesh (one mmx_subdivide call for all the
 * levels, opts as given but the trace and the holes; the tags follow), with no exchange
 * between levels: the ghost rings are deep enough that the descendants of the owned faces
 * are exact at every level. Why, per scheme:
 *   - Loop, Catmull-Clark, bilinear: one ring for any number of levels. The surface over a
 *     face depends on its one-ring only: the one-ring at level l + 1 of a face's descendants
 *     is made of vertex, edge and face points that read faces sharing a vertex with that face
 *     (and the sharpness of edges at its vertices), which ring 1 holds complete. The values
 *     wrong at the local mesh's cut (which looks like a boundary there) move inward by one
 *     child ring a level, half the previous level's ring: under half a ring in all.
 *   - opts->limit (Loop, Catmull-Clark, bilinear; levels 0 too): one ring. A vertex's limit
 *     position is a mask over its one-ring at the last level (mmx_subdiv_limit), and the
 *     one-ring of an owned face's descendants is exact at every level (above); measured from
 *     the cut, the wrong values' half ring less 2^-L plus the mask's ring of level L is half a
 *     ring, still short of the owned faces.
 *   - sqrt3: its children are not nested in their parent (a face's children reach the centres
 *     of the faces across its edges: the owned faces' descendants overhang into ring 1 by a
 *     third of a level-l face's height at each level l), and its rings shrink by only sqrt(3)
 *     a level (two levels cut an edge in three). A wrong value at the cut (Kobbelt's boundary
 *     rule where the whole has none: a cut vertex stays on even generations and moves along
 *     the cut on odd ones, a cut edge is not flipped, then cut in three, which changes the
 *     children of the faces across) moves inward by at most one level-l edge at level l + 1
 *     (every rule reads a vertex's one-ring, a face's corners or the face across an edge).
 *     Summed over the levels on the regular lattice (edge 1, rings sqrt(3)/2 apart; an edge
 *     of level l is 3^(-l/2) long), the wrong values (the sum of those edges from level 1 to
 *     L - 1) and the overhang (sqrt(3)/6 times their sum from level 0) together reach 0.29,
 *     1.03, 1.46, 1.71, 1.85 ... and at most 2.05 from the cut after L = 1, 2, 3, 4, 5 ...
 *     levels: one ring (0.87) holds one level, two (1.73) up to four, three (2.60) any
 *     number, which is what
 *     mmx_dist_rings("subdiv:sqrt3:L") asks and what this call checks (too few: MMX_ERR_ARG
 *     naming the rings needed and the rings the mesh has). The alternative, an exchange
 *     between levels, would have to exchange topology too (the cut's flips and cut points are
 *     wrong, not only its positions) and run the levels one call each, which breaks the
 *     alternation of the boundary rule within a call: the deeper halo is simpler and
 *     correct. tests/test_dist.c holds levels 1 to 5 on their rings (one ring fails at level
 *     2; two rings held to level 7 there, so the bound is not tight). A ghost vertex at the
 *     cut whose local faces form several fans (sqrt3 refuses such a vertex) is split, one
 *     copy per fan, before refining: it is wrong anyway and far from the owned faces.
 *     The names of sqrt3's vertices come from the level counts (a face slot's vertex by its
 *     face; an odd generation's second cut point r by its face, read from the local mesh
 *     refined to that level: one more mmx_subdivide call for each even level below L,
 *     about an eighth (L even) or three eighths (L odd) of the last call's work at most,
 *     counted in gather_ms).
 * Hole tags (and the holes of boundary mode none): each rank's refinement keeps the holes'
 * descendants, tagged (MMX_HOLES_KEEP, so that a face's children stay together for the
 * naming), and each owned face's hole flag goes with it to rank 0, which with opts->holes
 * MMX_HOLES_REMOVE (the default) leaves those faces out, and the vertices only they use with
 * their creases and corners, as the single process does; with MMX_HOLES_KEEP it keeps them,
 * tagged as holes in the result.
 * Rank 0 gets *out: the faces in the single process's order (the children of
 * a face together, in parent order), the vertices numbered by first use in that face order,
 * positions from the lowest rank holding each; the creases and corners left sharp (and the
 * holes kept) are kept as tags. That is mmx_subdivide's result on the whole after the
 * canonical renumbering of its vertices by first use (mmx_dist_canonical): topology identical, positions
 * equal to the single process's within float rounding (the limit's included). Other ranks get
 * *out NULL. Vertices in no face are not part of the result. report may be NULL.
 * Texture coordinates (a partitioned mesh made from a mesh with uv; not sqrt3, which does not
 * refine them): each rank's mmx_subdivide refines its local mesh's (opts->fvar, or the tag's
 * mode), names each refined value by a key as it names the vertices (an input value: its
 * global number; a face point: its face's global number at that level; an edge point: its
 * texture edge's two ends' keys, so that at a seam the two texture edges of one mesh edge stay
 * two; where the single process numbers them by value, Loop's linear mode and a texture mesh
 * that a mesh matrix cannot hold, the coordinates' bits), sends the owned corners' values
 * (4 bytes a corner, 32 a value used) with the rest, and rank 0 merges them by key and numbers
 * them by first use in face order: *out->uv equals mmx_dist_canonical's of the single
 * process's result (values within float rounding).
 * Errors: as mmx_subdivide (agreed), MMX_ERR_ARG (too few rings, named), MMX_ERR_UNSUPPORTED
 * (sqrt3 with the limit, as mmx_subdiv_limit), MMX_ERR_OVERFLOW (a result past 32-bit indices
 * on rank 0, or a local mesh past them).
 * Cost: the local meshes' refinement (1/R of the whole plus the ghost rings' descendants each),
 * naming its vertices (O(result) per rank), then
 * one gather of 4 bytes a corner, 16 a face and 32 a vertex of the owned descendants, holes'
 * included (a vertex
 * on a cut between parts is sent by each rank using it), and a sort of the vertex records on
 * rank 0. */
mmx_status mmx_dist_subdivide(mmx_ctx *ctx, const mmx_dist_mesh *dm, mmx_scheme scheme, int levels,
                              const mmx_subdiv_options *opts, mmx_mesh **out,
                              mmx_dist_subdiv_report *report);

/* Refines the partitioned mesh `levels` times by `scheme` and writes the result as one OBJ or
 * binary little-endian PLY file (fmt MMX_FORMAT_OBJ or MMX_FORMAT_PLY) from all ranks
 * (collective), no rank holding the whole: the same bytes as mmx_mesh_write of
 * mmx_subdivide's result on the whole mesh, with the single process's vertex and face numbers
 * (not mmx_dist_subdivide's canonical ones), where the positions are the single process's
 * bits (the local refinement's sums run in the same order: Loop, Catmull-Clark and bilinear
 * on the host, the limit included; tests/tool_dist_test.sh compares the files). Each rank
 * refines its local mesh as mmx_dist_subdivide does (one ghost ring, no exchange), then
 * numbers the vertices it needs level by level as subdiv.h lays them out: an old vertex keeps
 * its number, a face point is V + its face's number, an edge point V (+ F) + its edge's number
 * in mmx_adjacency's order, which comes from the ranks together: each vertex j's smaller
 * neighbours go to the rank of j's block of numbers (sent by the rank owning j's face of
 * smallest number, which holds all of j's faces), whose prefix sums give each j its first
 * edge; each rank asks those blocks the numbers of the edges of the faces around its owned
 * ones. Then the owned faces' descendants, and each vertex by the rank owning its
 * smallest-numbered face, are written as mmx_dist_write_obj writes (mmx__dist_write_records).
 * opts as mmx_dist_subdivide's (the trace ignored). Holes (hole tags, boundary mode none's):
 * each rank refines with them kept and tagged; with MMX_HOLES_REMOVE (the default) the owned
 * holes' descendants are left out and the faces and vertices left numbered anew in order, as
 * the single process does, through the blocks again (an owned face's number, and each
 * vertex of an owned face, with whether a kept face uses it; 16 bytes a number there, 8
 * back). Every rank agrees the path the single process takes (the algebraic one where the
 * whole has an edge of three faces, which a local mesh may not show). Not done here
 * (MMX_ERR_UNSUPPORTED, the same on every rank, before any work; mmx_dist_subdivide gathers
 * them on rank 0): sqrt3, and to OBJ a mesh with tags or kept holes (the OBJ file would carry
 * the result's tags; PLY carries none), or with texture coordinates and boundary mode none
 * (its holes, left out, would renumber them).
 * Texture coordinates (OBJ, a partitioned mesh made from a mesh with uv): the single
 * process's "vt" lines and "f v/vt" corners, byte for byte, numbered as subdiv/uv.c numbers
 * them: by the refined texture mesh's layout (Catmull-Clark's and bilinear's linear mode,
 * every smooth mode: the level-by-level numbering above run on the texture mesh, the values as
 * vertices, its edges numbered through the blocks; each value written by the rank owning its
 * smallest-numbered face, those no face uses by rank 0), or by value (Loop's linear mode, a
 * texture mesh that a mesh matrix cannot hold, which every rank agrees on: the owned corners'
 * coordinates' bits sent to the ranks of their blocks of the key range, which number their
 * distinct keys in order after the lower blocks' and write them; 8 bytes a corner each way).
 * *bytes (may be NULL): the
 * file's size. report (may be NULL): as mmx_dist_subdivide's, gathered_bytes the bytes this
 * rank sent (the numbering and the file's rows), gather_ms the numbering and writing.
 * Errors (agreed): MMX_ERR_ARG (NULL dm or path, another format, an unknown scheme, levels
 * < 0, no ghost ring, no positions), MMX_ERR_UNSUPPORTED (above), those of mmx_subdivide on the local mesh and of
 * mmx_dist_write_obj, MMX_ERR_OVERFLOW (a result past 2^31 - 1 vertices or faces, the
 * writer's numbers), MMX_ERR_NOMEM. Cost: the local refinement; per level O(local mesh) and
 * three all-to-alls (8 bytes a counted vertex and each of its smaller neighbours, 16 bytes a
 * question, 8 an answer) and an all-gather of one count; then the writer's all-to-all of the
 * owned share. Synchronises: on CUDA, the stream (the refined local mesh is copied back). */
mmx_status mmx_dist_subdivide_write(mmx_ctx *ctx, const mmx_dist_mesh *dm, mmx_scheme scheme,
                                    int levels, const mmx_subdiv_options *opts, const char *path,
                                    mmx_format fmt, int64_t *bytes, mmx_dist_subdiv_report *report);

/* The canonical renumbering (local; no communication): a copy of mesh (host) with its faces in
 * their order and its vertices numbered by first use in that face order (vertices in no face
 * dropped), positions and crease, corner and hole tags following, and its texture coordinates
 * (host) numbered by first use in corner order likewise (values no corner uses dropped). It is
 * what mmx_dist_subdivide's result is compared with. Errors: MMX_ERR_ARG, MMX_ERR_SPACE (a
 * device mesh, or texture coordinates in device memory), MMX_ERR_NOMEM. Cost: O(nnz + nverts
 * + the texture coordinates). */
mmx_status mmx_dist_canonical(mmx_ctx *ctx, const mmx_mesh *mesh, mmx_mesh **out);

#ifdef __cplusplus
}
#endif

#endif
