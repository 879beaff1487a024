/* Private declarations of the subdivision module: the operators one level multiplies with, the
 * weights of the three schemes, and the child topology. The per-element rules are inline
 * functions usable from host loops and CUDA kernels alike, so both backends evaluate the very
 * same arithmetic. */
#ifndef MMX_SUBDIV_INTERNAL_H
#define MMX_SUBDIV_INTERNAL_H

#include <math.h>
#include "core/core_internal.h"
#include "spla/spla_internal.h"
#include "meshmatrix/mesh.h"
#include "meshmatrix/subdiv.h"

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
 *   w_self[v], w_ring[v]    vertex rule: p~_v = w_self p_v + w_ring (sum of the ring) + ...
 *   w_ends[e], w_faces[e]   edge rule: e = w_ends (p_a + p_b) + w_faces (sum over e's faces)
 *   crease[2]               E's values 1 (boundary edge) -> 1/8, 2 (inner) -> 0: the boundary
 *                           vertex rule as a by-value map on E
 *   face_w[len_face_w]      Catmull-Clark: 1/c by face order c (eq. 4.27); sqrt3: 1/3 by
 *                           position (eq. 4.8); Loop: unused */
typedef struct mmx__subdiv_ops {
    mmx_scheme scheme;
    const mmx_csc *M;
    mmx_adjacency *adj;
    mmx_csc EV;
    mmx_csc *FE, *I;
    float *w_self, *w_ring, *w_ends, *w_faces, *crease, *face_w;
    mmx_index len_face_w;
} mmx__subdiv_ops;

/* The common start of mmx_subdivide and mmx_subdiv_plan_create (`who` names the caller in
 * messages): the arguments, the options (copied to *o, defaults for NULL), the input's
 * adjacency (its time in *adj_ms when o->trace asks) and the checks on the mesh and sizes.
 * `fast` leaves the fans and the orientation to the fused path's input level (which checks
 * them on the context's backend, see mmx__fz_input), skipping the host's statistics.
 * On success the caller owns *adj. */
mmx_status mmx__subdiv_prepare(mmx_ctx *ctx, const char *who, mmx_scheme scheme,
                               const mmx_mesh *mesh, int levels, const mmx_subdiv_options *opts,
                               int fast, mmx_subdiv_options *o, mmx_adjacency **adj,
                               double *adj_ms);

/* The refusal of an input that a fast check found bad: the full checks (on a host view, with
 * its statistics) name the problem and where it is; an internal error if they find nothing. */
mmx_status mmx__subdiv_refuse(mmx_ctx *ctx, mmx_scheme scheme, const mmx_mesh *mesh,
                              const mmx_adjacency *adj);

/* Builds the operators and tables of one level of `scheme` on `mesh` (in the context's space):
 * the adjacency first, then FE, I and the tables. Errors: those of mmx_adjacency_compute,
 * MMX_ERR_NOMEM, MMX_ERR_CUDA. On error everything built is released. */
mmx_status mmx__subdiv_ops_build(mmx_ctx *ctx, mmx_scheme scheme, const mmx_mesh *mesh,
                                 mmx_adjacency *adj, mmx__subdiv_ops *ops);
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

/* An empty mesh shell in the context's space holding M and room for nverts x 3 positions. */
mmx_status mmx__subdiv_mesh_alloc(mmx_ctx *ctx, mmx_index nverts, mmx_mesh **out);

/* ---- per-element rules, shared by the host loops and the kernels ------------------------- */

/* The vertex rule's weights for a vertex on n faces (inner: n is also its number of edges):
 *   Loop (eq. 4.11-4.12):   self = 1 - n beta, ring = beta,
 *                           beta = (5/8 - (3/8 + 1/4 cos(2 pi / n))^2) / n
 *   sqrt3 (eq. 4.2-4.3):    self = 1 - alpha, ring = alpha / n,
 *                           alpha = (4 - 2 cos(2 pi / n)) / 9
 *   Catmull-Clark (4.29):   self = 1 - 2 / n, ring = 1 / n^2 (for the edge ring and the faces)
 * A boundary vertex (Loop, Catmull-Clark) gets self = 3/4, ring = 0: its 1/8 per boundary
 * neighbour comes through the crease map on E (eq. 4.14, 4.25). A vertex in no face keeps its
 * place. Computed in double, rounded once. */
static inline MMX__HD void mmx__subdiv_vertex_weights(mmx_scheme scheme, mmx_index n, int boundary,
                                                       float *self, float *ring)
{
    const double pi = 3.14159265358979323846;
    double s = 1.0, r = 0.0;
    if (n > 0 && boundary && scheme != MMX_SCHEME_SQRT3) {
        s = 0.75;
    } else if (n > 0) {
        const double c = cos(2.0 * pi / n);
        if (scheme == MMX_SCHEME_LOOP) {
            const double t = 0.375 + 0.25 * c;
            r = (0.625 - t * t) / n;
            s = 1.0 - n * r;
        } else if (scheme == MMX_SCHEME_SQRT3) {
            const double alpha = (4.0 - 2.0 * c) / 9.0;
            s = 1.0 - alpha;
            r = alpha / n;
        } else {
            s = 1.0 - 2.0 / n;
            r = 1.0 / ((double)n * n);
        }
    }
    *self = (float)s;
    *ring = (float)r;
}

/* The edge rule's weights for an edge with `sides` faces: a boundary edge's point is its
 * midpoint (eq. 4.13, 4.26); an inner edge's is
 *   Catmull-Clark (4.23): 1/4 (p_a + p_b) + 1/4 (f_m + f_n), f the face points;
 *   Loop (4.10, 4.15):    1/8 (p_a + p_b) + 1/8 (t_m + t_n), t = M^T p the triangles' vertex
 *                         sums, which is 3/8 (p_a + p_b) + 1/8 (p_c + p_d): the three maps of
 *                         eq. 4.15 folded into one product over FE. */
static inline MMX__HD void mmx__subdiv_edge_weights(mmx_scheme scheme, mmx_index sides,
                                                     float *ends, float *faces)
{
    if (sides < 2) {
        *ends = 0.5f;
        *faces = 0.0f;
    } else {
        *ends = *faces = scheme == MMX_SCHEME_LOOP ? 0.125f : 0.25f;
    }
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
 * a mesh with boundary, which the entry point refuses first). */
static inline MMX__HD int mmx__subdiv_children(const mmx__subdiv_topo *tp, mmx_index k,
                                               mmx_index nv, mmx_index nf, mmx_index *out)
{
    const mmx_csc *M = &tp->M;
    const mmx_index *fe = tp->fe;
    int64_t a, b;
    mmx__csc_col(M, k, &a, &b);
    const mmx_index n = (mmx_index)(b - a);
    const mmx_index *v = M->rowidx + a;
    if (tp->scheme == MMX_SCHEME_CATMULL_CLARK) {
        /* Quad s: its vertex, the point of the edge leaving it, the face point, the point of
         * the edge arriving at it; the children of face k start at child a. */
        mmx_index *q = out + 4 * a;
        const mmx_index epts = nv + nf;
        for (mmx_index s = 0; s < n; s++, q += 4) {
            q[0] = v[s];
            q[1] = epts + (fe[a + s] >> 1);
            q[2] = nv + k;
            q[3] = epts + (fe[a + (s == 0 ? n - 1 : s - 1)] >> 1);
        }
        return 0;
    }
    if (tp->scheme == MMX_SCHEME_LOOP) {
        /* Table 4.2 with the four children together: the middle, then the corners k, l, m. */
        const mmx_index ekl = nv + (fe[a] >> 1), elm = nv + (fe[a + 1] >> 1),
                        emk = nv + (fe[a + 2] >> 1);
        mmx_index *t = out + 12 * (int64_t)k;
        t[0] = ekl, t[1] = elm, t[2] = emk;
        t[3] = v[0], t[4] = ekl, t[5] = emk;
        t[6] = v[1], t[7] = elm, t[8] = ekl;
        t[9] = v[2], t[10] = emk, t[11] = elm;
        return 0;
    }
    /* sqrt3, Table 4.1: child s is (v_s, the centre across the edge v_s -> v_s+1, our centre);
     * the face across is F(v_s+1, v_s), the face running the opposite half-edge. */
    const mmx_csc *F = &tp->F;
    mmx_index *t = out + 9 * (int64_t)k;
    for (mmx_index s = 0; s < 3; s++, t += 3) {
        const mmx_index from = v[s], to = v[s == 2 ? 0 : s + 1];
        const mmx_index hi = F->colptr[from + 1];
        const mmx_index q = mmx__lower_bound(F->rowidx, F->colptr[from], hi, to);
        if (q == hi || F->rowidx[q] != to) return 1;
        t[0] = from;
        t[1] = nv + F->val[q];
        t[2] = nv + k;
    }
    return 0;
}

#ifdef MMX_HAVE_CUDA
/* The device halves (operators.cu, topology.cu), on checked arguments. */
mmx_status mmx__subdiv_tables_cuda(mmx_ctx *ctx, mmx__subdiv_ops *ops);
mmx_status mmx__subdiv_fe_rows_cuda(mmx_ctx *ctx, const mmx_index *fe, mmx_index nnz,
                                    mmx_index *rows);
mmx_status mmx__subdiv_iota_cuda(mmx_ctx *ctx, mmx_index n, mmx_index *out);
mmx_status mmx__subdiv_topology_cuda(mmx_ctx *ctx, mmx__subdiv_topo tp, mmx_index nv,
                                     mmx_index *rows);
#endif

#ifdef __cplusplus
}
#endif
#endif
