/* The half-edge view of a mesh (halfedge.c, halfedge.cu), built from its mmx_adjacency on
 * either backend: the one topology engine that the statistics, the subdivision's checks and
 * the fused path's input level read, and that patches and queries will be built from.
 *
 * Corner c (entry c of M: vertex M[c] of its face) stands for the half-edge that leaves it,
 * from M[c] to the next corner's vertex; fe[c] (the adjacency's) is that edge, 2e + d. The
 * view adds, per corner, its mate: the other corner whose half-edge lies on the same edge, when
 * the edge has exactly two faces (when the two run it in opposite directions the mate is the
 * twin of a half-edge structure; when they run it the same way the edge is inconsistent, and
 * the mate still joins the two faces, as an unoriented surface joins them). Per vertex: the
 * corner a walk around it starts from, and whether that walk meets all its faces (one fan).
 *
 * A walk around vertex v goes from face to face across the edges at v that have a mate; in a
 * face it enters through one of the two edges at v and leaves through the other. It stops at an
 * edge without a mate (a boundary edge, or one with three faces or more), or when it is back at
 * its start. Two faces are in one fan of v when such a walk joins them. */
#ifndef MMX_MESH_HALFEDGE_H
#define MMX_MESH_HALFEDGE_H

#include "mesh_internal.h"
#include "core/hd.h"
#include "spla/spla_internal.h" /* mmx__lower_bound */

#ifdef __cplusplus
extern "C" {
#endif

/* A fault found in a mesh's topology by a device or host check, as data: the caller turns it
 * into the message. Kinds are ordered as checks report them: when several are present, the
 * smallest kind wins, then the smallest element (which the device finds by an atomic minimum
 * of the packed record, kind << 32 | element). */
typedef enum mmx__fault_kind {
    MMX__FAULT_NONE = 0,
    MMX__FAULT_COORDS,         /* vertex `element` has a coordinate beyond
                                  MMX_SUBDIV_COORD_MAX (or NaN): first, as the host's checks
                                  refuse it before any other (subdiv.h); set by the fused
                                  path's input check on the device, so that it costs no wait
                                  of its own */
    MMX__FAULT_NOT_TRIANGLES,  /* a face that is not a triangle where triangles are needed
                                  (element: none) */
    MMX__FAULT_HALFEDGE_TWICE, /* corner `element` runs a half-edge that another (later) corner
                                  runs too: an edge run the same way by both its faces */
    MMX__FAULT_TRIANGLE_PAIR,  /* triangle `element` shares its three vertices with a
                                  neighbour (a repeated face or a pillow) */
    MMX__FAULT_FANS            /* vertex `element`'s faces do not form one fan: last, so that a
                                  record of this kind says there is no other fault (subdivision
                                  takes such vertices as corners) */
} mmx__fault_kind;

typedef struct mmx__fault {
    mmx__fault_kind kind;
    mmx_index element;
} mmx__fault;

/* The packed record of no fault (every real one is smaller). */
#define MMX__FAULT_CLEAR (~0ull)

/* The view. Arrays live in `space`; the borrowed ones belong to the mesh and the adjacency it
 * was built from, which must outlive it. */
typedef struct mmx__halfedge {
    mmx_ctx *ctx;
    mmx_space space;
    mmx_index nv, nf, ne, nnz;
    mmx_index order;          /* 3 or 4: corner c is in face c / order; 0: read colptr */
    const mmx_index *colptr;  /* order 0: the mesh's */
    const mmx_index *M;       /* the mesh's row indices: each corner's vertex */
    const mmx_index *fe;      /* the adjacency's: each corner's edge, 2e + d */
    const mmx_index *sides;   /* the adjacency's: each edge's faces */
    const mmx_index *valence; /* the adjacency's: each vertex's faces */
    mmx_index *mate;          /* nnz: the other corner on c's edge when it has two faces, else -1 */
    mmx_index *first;         /* nv: where v's walk starts, -1 for a vertex in no face: a corner
                                 whose arriving edge has no mate if there is one (an oriented
                                 fan's start), else one whose leaving edge has none, else v's
                                 last corner; the largest such */
    unsigned char *one_fan;   /* nv: 1 when the walk from first meets all valence[v] faces */
    unsigned long long *fault; /* 1, packed as mmx__fault says: the first inconsistent edge's
                                  smaller corner (HALFEDGE_TWICE), else the first vertex of
                                  several fans (FANS); MMX__FAULT_CLEAR if neither */
} mmx__halfedge;

/* Builds the view of `mesh` from its adjacency `adj`, on the context's backend (both in its
 * space). Host and CUDA give the same arrays. On CUDA the work is queued and nothing waits.
 * Errors: MMX_ERR_NOMEM, MMX_ERR_CUDA. Cost: O(nnz + the walks: the sum of the valences). */
mmx_status mmx__halfedge_build(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_adjacency *adj,
                               mmx__halfedge *H);

/* Frees the view's own arrays (in stream order on the device) and zeroes it; a zeroed view is
 * accepted. Synchronises: no. */
void mmx__halfedge_free(mmx__halfedge *H);

/* Reads the view's fault record into *out. Synchronises: yes, on CUDA (a fault to report). */
mmx_status mmx__halfedge_fault(mmx_ctx *ctx, const mmx__halfedge *H, mmx__fault *out);

/* The device half of mmx__halfedge_build: the arrays allocated, everything queued. */
mmx_status mmx__halfedge_build_cuda(mmx_ctx *ctx, mmx__halfedge *H);

/* ---- the steps, shared by host loops and kernels ----------------------------------------- */

/* The face holding corner c of a level of `order` (0: through colptr, nf faces): its number,
 * its first corner *a and its order *n. */
static inline MMX__HD mmx_index mmx__corner_face(mmx_index order, const mmx_index *colptr,
                                                 mmx_index nf, mmx_index c, mmx_index *a,
                                                 mmx_index *n)
{
    if (order) {
        const mmx_index f = c / order;
        *a = f * order;
        *n = order;
        return f;
    }
    const mmx_index f = mmx__lower_bound(colptr, 0, nf + 1, c + 1) - 1;
    *a = colptr[f];
    *n = colptr[f + 1] - *a;
    return f;
}

/* The next and previous corners of c in its face [a, a + n). */
static inline MMX__HD mmx_index mmx__corner_next(mmx_index a, mmx_index n, mmx_index c)
{
    return c + 1 == a + n ? a : c + 1;
}

static inline MMX__HD mmx_index mmx__corner_prev(mmx_index a, mmx_index n, mmx_index c)
{
    return c == a ? a + n - 1 : c - 1;
}

/* One step of a walk around a vertex on an oriented level, from its corner c to its corner in
 * the face across c's leaving edge: next(twin[c]); -1 when that edge has no twin. What the
 * fused pass's vertex rules walk with (their levels are oriented, so mate = twin). */
static inline MMX__HD mmx_index mmx__he_turn(mmx_index order, const mmx_index *colptr,
                                             mmx_index nf, const mmx_index *twin, mmx_index c)
{
    const mmx_index t = twin[c];
    if (t < 0) return -1;
    mmx_index a, k;
    mmx__corner_face(order, colptr, nf, t, &a, &k);
    return mmx__corner_next(a, k, t);
}

/* The walk around vertex v from its corner c, entering c's face through its arriving edge
 * (`leave` 1: so that it leaves through c's leaving edge) or its leaving edge (`leave` 0). It
 * counts the faces it meets, c's included, up to `bound` (a guard on a corrupt view), and
 * returns the corner of the last face it meets; *out is that face's edge it stopped at: the
 * corner whose leaving edge it is (the last corner, or the one before it), -1 when it came
 * back to c. */
static inline MMX__HD mmx_index mmx__he_walk(const mmx__halfedge *H, mmx_index c, int leave,
                                             mmx_index bound, mmx_index *count, mmx_index *out)
{
    const mmx_index c0 = c;
    mmx_index n = 0;
    for (;;) {
        mmx_index a, k;
        mmx__corner_face(H->order, H->colptr, H->nf, c, &a, &k);
        n++;
        /* The edge left through is c's leaving edge, or its arriving one (the previous
         * corner's leaving edge). */
        const mmx_index h = leave ? c : mmx__corner_prev(a, k, c);
        const mmx_index m = H->mate[h];
        if (m < 0 || n >= bound) {
            *count = n;
            *out = h;
            return c;
        }
        /* In the mate's face, v is the mate's vertex (the face runs the edge the same way: it
         * entered through that corner's leaving edge) or the next one's (it entered through
         * the arriving edge). */
        mmx_index b, j;
        mmx__corner_face(H->order, H->colptr, H->nf, m, &b, &j);
        const mmx_index v = H->M[c];
        if (H->M[m] == v) {
            c = m;
            leave = 0;
        } else {
            c = mmx__corner_next(b, j, m);
            leave = 1;
        }
        if (c == c0) {
            *count = n;
            *out = -1;
            return c;
        }
    }
}

/* Which of corner c's two edges at its vertex have no mate: 2 for the arriving one, 1 for the
 * leaving one (both: 3); the start rank of first[] above, with c's number below it. */
static inline MMX__HD int mmx__he_open_sides(const mmx__halfedge *H, mmx_index c)
{
    mmx_index a, k;
    mmx__corner_face(H->order, H->colptr, H->nf, c, &a, &k);
    return (H->mate[mmx__corner_prev(a, k, c)] < 0 ? 2 : 0) | (H->mate[c] < 0 ? 1 : 0);
}

/* The rank by which first[] picks a vertex's start corner: a corner with an arriving open edge
 * over one with a leaving open edge over the others, then the larger corner. */
static inline MMX__HD unsigned long long mmx__he_start_rank(const mmx__halfedge *H, mmx_index c)
{
    const int open = mmx__he_open_sides(H, c);
    const unsigned long long cls = (open & 2) ? 2u : (open & 1) ? 1u : 0u;
    return cls << 32 | (unsigned long long)(uint32_t)c;
}

/* Whether vertex v's walk from first[v] meets all its faces: the one fan check. From a start
 * with an open arriving edge (or a closed fan) the walk leaves through the leaving edge; from
 * one whose only open edge is its leaving edge, through the arriving one. */
static inline MMX__HD int mmx__he_one_fan(const mmx__halfedge *H, mmx_index v)
{
    const mmx_index c0 = H->first[v], valence = H->valence[v];
    if (c0 < 0) return valence == 0;
    const int open = mmx__he_open_sides(H, c0);
    mmx_index n, stop;
    mmx__he_walk(H, c0, open == 1 ? 0 : 1, valence + 1, &n, &stop);
    return n == valence;
}

/* The mate of corner c as the build states it: the other corner of its edge when the edge has
 * two faces (sum holds, per edge, the sum of the corners that leave along it). */
static inline MMX__HD mmx_index mmx__he_mate(const mmx_index *fe, const mmx_index *sides,
                                             const unsigned long long *sum, mmx_index c)
{
    const mmx_index e = fe[c] >> 1;
    return sides[e] == 2 ? (mmx_index)(sum[e] - (unsigned long long)c) : -1;
}

#ifdef __cplusplus
}
#endif
#endif
