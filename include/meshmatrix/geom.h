/* meshmatrix/geom.h: geometry on a mesh: face normals and areas, vertex normals, vertex areas,
 * the cotangent and uniform Laplacians, the mass matrix and the mean curvature normal, and
 * smoothing (Laplacian, cotangent, Taubin, bilateral, implicit mean curvature flow).
 *
 * Two paths compute each operator. The reference is the algebra: the Laplacians are valued
 * products M <map> Mᵀ (spla.h, mmx_spgemm_valued, masked to the pattern E + I), the vertex
 * areas and normals SpMVs Mᵀ<map> x of per-face (per-corner) values, op = T: mmx_operator
 * returns them. The fast paths the functions below run are fused gathers (one thread per
 * vertex, or per column of L, computing the face values in the gather), which add the same
 * values in the same order: tests/test_geom.c holds them equal to the reference bit for bit
 * on the host. Neither uses float atomics, so a result is the same bit for bit from run to
 * run, and CUDA's equals the host's within float rounding (the per-face formulas are the same
 * code on both backends; the compilers may contract a product and a sum into one FMA
 * differently). Arithmetic is in float.
 *
 * Vectors follow the library's conventions (mesh.h, spla.h): per-vertex and per-face data are
 * row-major float arrays (k floats per element) in the context's space, allocated by the
 * caller. The mesh must live in the context's space. Faces are counter-clockwise seen from
 * outside, so normals point outwards.
 *
 * Matrices with float values (a Laplacian, a mass matrix) come as an mmx_weighted from the
 * fast paths (a pattern mmx_csc plus one weight per stored entry, in the pattern's storage
 * order, used in mmx_spmv with the map MMX_MAP_BY_ENTRY: mmx_weighted_map), and as a valued
 * mmx_csc (the floats in x, the map MMX_MAP_X) from mmx_operator. Every such matrix here is
 * symmetric, so mmx_spmv with op = T (a deterministic gather per column on CUDA) gives A x.
 *
 * Correctness: checked against libigl (per_vertex_normals, cotmatrix, massmatrix) by
 * tests/igl_check.py, and by hand on small meshes (tests/test_geom.c). */
#ifndef MESHMATRIX_GEOM_H
#define MESHMATRIX_GEOM_H

#include "patch.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- float-valued sparse matrices ------------------------------------------------------------ */

/* A float-valued sparse matrix: the pattern A and its values w, w[q] the value of A's entry q
 * (its index in A's storage: colptr[j] + p for the p-th entry of column j). A's stored values
 * are the entries' positions in their columns (A is positional) and carry no meaning. A and w
 * live in `space` and belong to ctx, as mmx_csc's arrays do. */
typedef struct mmx_weighted {
    mmx_csc *A;      /* the pattern: general form with rows ascending in every column (the
                        Laplacians), or the reduced form of order 1 (the diagonal mass
                        matrix: entry v is (v, v)) */
    float *w;        /* A->nnz weights in A's storage order */
    mmx_space space; /* where A and w live */
    mmx_ctx *ctx;    /* the context that made it; must outlive it */
} mmx_weighted;

/* Frees W, its pattern and its weights (device arrays back to W->ctx's pool in stream order);
 * NULL is accepted. Synchronises: no. */
void mmx_weighted_free(mmx_weighted *W);

/* The action map that makes mmx_spmv multiply by W: m = w[q] for entry q. */
static inline mmx_map mmx_weighted_map(const mmx_weighted *W)
{
    return mmx_map_table(MMX_MAP_BY_ENTRY, W->w, W->A->nnz);
}

/* ---- faces ------------------------------------------------------------------------------------ */

/* Face normals and areas by Newell's formula, for faces of any order:
 *   N_f = sum over i = 1 .. c-2 of (p_i - p_0) x (p_(i+1) - p_0)
 * for face f with vertices p_0 .. p_(c-1) in its cyclic order (the Newell vector, twice the
 * vector area; taken from p_0 so that large coordinates do not cancel), then
 *   areas[f] = |N_f| / 2,   normals[f] = N_f / |N_f|,
 * and a degenerate face (|N_f| = 0: collinear or coincident vertices) gets a zero normal and a
 * zero area. For a planar polygon the area is exact; for a non-planar one it is the area of
 * its projection on the plane of N_f. normals (nfaces x 3) and areas (nfaces) live in the
 * context's space; either may be NULL. The mesh needs positions.
 * Errors: MMX_ERR_ARG (NULL mesh, no positions), MMX_ERR_SPACE, MMX_ERR_CUDA.
 * Cost: O(nnz), one thread per face on CUDA. Synchronises: no. */
mmx_status mmx_face_normals(mmx_ctx *ctx, const mmx_mesh *mesh, float *normals, float *areas);

/* ---- vertex normals --------------------------------------------------------------------------- */

/* How the faces around a vertex weigh in its normal. */
typedef enum mmx_normal_weight {
    MMX_NORMAL_AREA = 0, /* n_v ~ sum of N_f over the faces at v (Newell vectors: unit normal
                            times twice the area) */
    MMX_NORMAL_ANGLE,    /* n_v ~ sum of theta_(v,f) * N_f / |N_f|, theta the angle between
                            the face's two edges at v, in [0, pi] (Thuermer and Wuethrich) */
    MMX_NORMAL_UNIFORM   /* n_v ~ sum of N_f / |N_f|: every face alike */
} mmx_normal_weight;

/* The name of a weighting ("area", "angle", "uniform"; "?" out of range). */
const char *mmx_normal_weight_name(mmx_normal_weight w);

/* The weighting named `name` ("area", "angle" or "uniform"). Errors: MMX_ERR_ARG otherwise. */
mmx_status mmx_normal_weight_parse(mmx_ctx *ctx, const char *name, mmx_normal_weight *w);

/* Vertex normals: per-face (area, uniform) or per-corner (angle) values summed per vertex
 * through Mᵀ (each vertex gathering its faces in ascending order). The reference is the SpMV
 * Mᵀ<map> x, op = T, of the face normals; this fast path is one fused gather per vertex, the
 * face values computed in it (a plan made and freed inside, mmx_vertex_normals_planned),
 * equal to the reference bit for bit on the host; then
 *   normals[v] = n_v / |n_v|,
 * zero where n_v = 0 (a vertex in no face, or whose faces cancel or are all degenerate).
 * Degenerate faces contribute nothing. normals: nverts x 3 in the context's space. Works on
 * every face order and any topology (non-manifold, inconsistently oriented: the sum is taken
 * as it is). Errors: MMX_ERR_ARG (NULL arguments, unknown weighting, no positions, normals
 * overlapping the positions), MMX_ERR_SPACE, MMX_ERR_NOMEM, MMX_ERR_CUDA.
 * Cost: O(nnz + nverts) plus, on the first call, the transpose of M (O(nnz), a sort on CUDA),
 * which the mesh's cache keeps (mesh.h: 8 bytes a corner and 4 a vertex), so that later calls
 * on the same mesh are mmx_vertex_normals_planned's one kernel, whatever the positions; no
 * other scratch. Synchronises: on CUDA, on the first call (or where the cache does not serve
 * it: another context than the mesh's), once: mmx_csc_transpose reads Mᵀ's properties; no
 * otherwise: the rest is queued. */
mmx_status mmx_vertex_normals(mmx_ctx *ctx, const mmx_mesh *mesh, mmx_normal_weight weight,
                              float *normals);

/* A vertex-normal plan: what the normals of a mesh need besides the positions (the transpose
 * of M, each vertex's faces), built once, so that the normals of changing positions (an
 * animation, the steps of a smoothing) are one kernel each, with no allocation and no wait.
 * The plan refers to mesh->M's arrays, which must outlive it and not change. */
typedef struct mmx_normals_plan mmx_normals_plan;

/* Builds the plan of `mesh` (positions not needed). Errors: MMX_ERR_ARG (NULL), MMX_ERR_SPACE,
 * MMX_ERR_NOMEM, MMX_ERR_CUDA. Cost: the transpose of M (O(nnz), a sort on CUDA); memory:
 * Mᵀ (8 bytes per corner and 4 per vertex) and a table of the faces' Newell vectors (12
 * bytes per face), which each evaluation rewrites: a plan is used by one call at a time (as
 * its context is). Synchronises: yes, on CUDA, once (the transpose's properties). */
mmx_status mmx_normals_plan_create(mmx_ctx *ctx, const mmx_mesh *mesh, mmx_normals_plan **out);

/* Vertex normals of positions `pos` (nverts x 3, the plan's space) on the plan's mesh: each
 * face's Newell vector once into the plan's table, then one gather per vertex over its faces
 * in ascending order (no float atomics): the same values as mmx_vertex_normals
 * (bit for bit on the host, which evaluates the same code; the device within float rounding).
 * normals: nverts x 3 in the plan's space; it must not overlap pos. Errors: MMX_ERR_ARG (NULL
 * plan, NULL arrays with vertices, unknown weighting, a plan of another context),
 * MMX_ERR_CUDA. Cost: O(nnz), whatever the faces' orders: reads of Mᵀ, M, the positions and
 * the face table; two kernels; no allocation. Synchronises: no. */
mmx_status mmx_vertex_normals_planned(mmx_ctx *ctx, const mmx_normals_plan *plan,
                                      const float *pos, mmx_normal_weight weight,
                                      float *normals);

/* Frees a plan (its transpose back to the context's pool in stream order); NULL accepted.
 * Synchronises: no. */
void mmx_normals_plan_free(mmx_normals_plan *plan);

/* Area-weighted vertex normals (MMX_NORMAL_AREA) on the patches, the geometry's patch fast
 * path: one patch kernel (meshmatrix/patch_kernel.cuh; on the host the same per-patch code in
 * a loop) in which each patch copies its vertices' positions once into shared memory, computes
 * its faces' Newell vectors there, and sums them around each owned vertex (its faces in the
 * patch's local order: fixed, so the same bits on every run), normalised as mmx_vertex_normals
 * does; vertices in no face get 0. ps must be the patch set of `mesh` (mmx_patch_set_create).
 * The result differs from mmx_vertex_normals' only by the order of the float additions:
 * tests/test_geom.c holds them within 4e-6.
 * Errors: MMX_ERR_ARG (NULL, no positions, a set of another size), MMX_ERR_SPACE,
 * MMX_ERR_MESH (faces not consistently oriented: the detail names the edge), MMX_ERR_NOMEM,
 * MMX_ERR_CUDA. Cost: O(nnz) plus each patch's ribbon, no scratch beyond the patches' work
 * spaces. Synchronises: no. */
mmx_status mmx_vertex_normals_patch(mmx_ctx *ctx, const mmx_mesh *mesh,
                                    const mmx_patch_set *ps, float *normals);

/* ---- vertex areas and the mass matrix --------------------------------------------------------- */

typedef enum mmx_mass_kind {
    MMX_MASS_BARYCENTRIC = 0, /* A_v = sum over the faces at v of area_f / c_f (a third of each
                                 triangle); any face order */
    MMX_MASS_VORONOI          /* the mixed Voronoi area of Meyer, Desbrun, Schroeder and Barr
                                 (2003), as libigl's massmatrix(MASSMATRIX_TYPE_VORONOI): in a
                                 triangle (i, j, k) without an obtuse angle, vertex i gets
                                 (|p_i - p_k|^2 cot(angle j) + |p_i - p_j|^2 cot(angle k)) / 8
                                 (its Voronoi cell's part of the triangle); when the angle at i
                                 is obtuse it gets area / 2, when another angle is, area / 4.
                                 Triangles only */
} mmx_mass_kind;

/* The area of each vertex's share of its faces (above), summed per vertex through Mᵀ: the
 * reference is the SpMV Mᵀ<map> x, op = T, the shares as the map or the face values
 * (mmx_operator, MMX_OPERATOR_MASS*); this fast path is one fused gather per vertex over its
 * faces in ascending order, each share computed in it, equal to the reference bit for bit on
 * the host.
 * Both kinds sum to the surface area (Voronoi: for every triangle, the three corners' shares
 * add up to its area). areas: nverts floats in the context's space; a vertex in no face gets
 * 0, degenerate faces contribute 0.
 * Errors: MMX_ERR_ARG, MMX_ERR_SPACE, MMX_ERR_MESH (MMX_MASS_VORONOI on a face that is not a
 * triangle, named), MMX_ERR_NOMEM, MMX_ERR_CUDA.
 * Cost: O(nnz + nverts) plus the transpose of M. Synchronises: yes, on CUDA: the transpose
 * (properties); for Voronoi on a general-form mesh also mmx_mesh_uniform_order (colptr). */
mmx_status mmx_vertex_areas(mmx_ctx *ctx, const mmx_mesh *mesh, mmx_mass_kind kind,
                            float *areas);

/* The mass matrix: diagonal, nverts x nverts, M_vv = the vertex area of mmx_vertex_areas.
 * The pattern has one entry per column (the diagonal, stored in the reduced form of order 1:
 * entry v is (v, v)), so (*out)->w is the vertex areas in vertex order. Errors and cost: as
 * mmx_vertex_areas, plus MMX_ERR_OVERFLOW never (n entries). Synchronises: as it. */
mmx_status mmx_mass_matrix(mmx_ctx *ctx, const mmx_mesh *mesh, mmx_mass_kind kind,
                           mmx_weighted **out);

/* ---- Laplacians ------------------------------------------------------------------------------- */

/* The cotangent Laplacian, libigl's cotmatrix convention: for an edge {i, j},
 *   L_ij = L_ji = (cot a_ij + cot b_ij) / 2,
 * a_ij and b_ij the angles opposite the edge in its two triangles (a boundary edge has one
 * term; an edge of k >= 3 triangles, k terms), and L_ii = -sum over j != i of L_ij, so L 1 = 0
 * and, on a mesh whose angles are all acute, L is negative semi-definite (obtuse angles give
 * negative off-diagonal weights; L stays symmetric). Degenerate triangles (zero area) add 0.
 * The pattern is the adjacency's E (mesh.h: the edges) with the diagonal added, rows
 * ascending in each column (nnz = nnz(E) + nverts; every vertex has its diagonal entry, 0 for
 * a vertex in no face). The reference is the algebra, the valued product
 * M <CYCLE_BOTH p=1, TAIL, SUM> Mᵀ masked to that pattern (mmx_operator, MMX_OPERATOR_COTAN);
 * this fast path assembles each column by hand: the weight of an edge gathers, over the
 * edge's faces in EF order (query.h), half the cotangent at the face's third corner, so L_ij
 * and L_ji are the same float, and equal the reference's bit for bit on the host. `adj` may
 * be the mesh's adjacency, or NULL: then the mesh's cache (mesh.h) gives it, computed on the
 * first call and kept.
 * Triangle meshes only. Errors: MMX_ERR_ARG (NULL, no positions), MMX_ERR_SPACE, MMX_ERR_MESH
 * (a face that is not a triangle: "face F has order C ..."), MMX_ERR_OVERFLOW (nnz beyond
 * 32-bit indices), MMX_ERR_NOMEM, MMX_ERR_CUDA.
 * Cost: the adjacency, the EF query (O(nnz log nnz)), O(nnz(L) log maxdeg) for the weights
 * (each edge found by a binary search). Synchronises: on CUDA, the adjacency's wait (where it
 * is computed) and the EF query's (its size; none where the cache keeps EF: query.h); the
 * pattern and the weights are queued. */
mmx_status mmx_cotan_laplacian(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_adjacency *adj,
                               mmx_weighted **out);

/* The uniform (graph) Laplacian on the same pattern: L_ij = 1 for every edge {i, j},
 * L_ii = -(the number of edges at i). Any face order; positions not needed. `adj` as above.
 * Errors: MMX_ERR_ARG, MMX_ERR_SPACE, MMX_ERR_OVERFLOW, MMX_ERR_NOMEM, MMX_ERR_CUDA.
 * Cost: the adjacency, then O(nnz(L)). Synchronises: on CUDA, the adjacency's wait only
 * (where it is computed). */
mmx_status mmx_uniform_laplacian(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_adjacency *adj,
                                 mmx_weighted **out);

/* ---- curvature -------------------------------------------------------------------------------- */

/* The mean curvature normal at every vertex (Meyer et al. 2003):
 *   Hn = -(1/2) M^-1 L x,
 * L the cotangent Laplacian above (negative semi-definite), M the mass matrix of `mass`
 * (MMX_MASS_VORONOI is Meyer's mixed area), x the positions. Sign: H > 0 where the surface
 * bends away from its normal, so Hn points outwards on a convex closed mesh with outward
 * faces; on a sphere of radius R, Hn = n / R (n the outward unit normal). L x is one mapped
 * SpMV (op = T, MMX_MAP_BY_ENTRY). A vertex of zero mass gets 0; on a boundary the value is
 * what the formula gives (it includes the boundary's geodesic curvature). hn: nverts x 3 in
 * the context's space. `adj` as in mmx_cotan_laplacian. Triangle meshes only.
 * Errors: those of mmx_cotan_laplacian and mmx_mass_matrix.
 * Cost: theirs, plus O(nnz(L)). Synchronises: as they do. */
mmx_status mmx_mean_curvature_normal(mmx_ctx *ctx, const mmx_mesh *mesh,
                                     const mmx_adjacency *adj, mmx_mass_kind mass, float *hn);

/* ---- operators as valued matrices ---------------------------------------------------------- */

/* The mesh operators a user can take away (to SciPy, MATLAB, Eigen: `mmx matrix`), as valued
 * mmx_csc (spla.h: the floats in x, the pattern's positions in val). */
typedef enum mmx_operator_kind {
    MMX_OPERATOR_ADJACENCY = 0, /* nverts x nverts, symmetric: 1 at (i, j) and (j, i) for every
                                   edge {i, j}, no diagonal; rows ascending. The valued
                                   product M <CYCLE_BOTH p=1, 1 * 1, MAX> Mᵀ */
    MMX_OPERATOR_UNIFORM,       /* mmx_uniform_laplacian's L (nverts x nverts, symmetric) */
    MMX_OPERATOR_COTAN,         /* mmx_cotan_laplacian's L (libigl's cotmatrix; triangles) */
    MMX_OPERATOR_MASS,          /* the barycentric mass matrix (diagonal, nverts x nverts) */
    MMX_OPERATOR_MASS_VORONOI,  /* the mixed Voronoi mass matrix (libigl's massmatrix
                                   default on triangles; triangles only) */
    MMX_OPERATOR_EV,            /* nedges x nverts, the edge-vertex incidence d0 (the discrete
                                   gradient): row e holds -1 at the edge's lower vertex and +1
                                   at its higher one (edges numbered as mesh.h's adjacency),
                                   so (d0 x)_e = x_hi - x_lo and d0ᵀ d0 = -L_uniform */
    MMX_OPERATOR_FE             /* nfaces x nedges, the face-edge incidence d1: row f holds +1
                                   at an edge the face runs from its lower vertex to its higher
                                   one, -1 at one it runs the other way (mesh.h's fe), so
                                   d1 d0 = 0 */
} mmx_operator_kind;

/* "adjacency", "uniform", "cotan", "mass", "mass-voronoi", "ev", "fe" ("?" out of range), and
 * back (mmx_operator_parse: MMX_ERR_ARG for another name, the detail listing the names). */
const char *mmx_operator_name(mmx_operator_kind kind);
mmx_status mmx_operator_parse(mmx_ctx *ctx, const char *name, mmx_operator_kind *kind);

/* The operator `kind` of the mesh as a valued matrix in the context's space (owned by the
 * caller: mmx_csc_free). Built by the algebra, the reference path: the Laplacians by a masked
 * valued product on the pattern E + I (mmx_spgemm_valued, the diagonal then set to minus the
 * row sums by an SpMV), the mass matrices by the SpMV Mᵀ<map> x of the faces' (corners')
 * shares, the incidences from the adjacency's EV and FE arrays. The Laplacians and mass
 * matrices equal the fast paths' (mmx_cotan_laplacian, mmx_uniform_laplacian,
 * mmx_mass_matrix: their pattern and weights) bit for bit on the host; on CUDA within float
 * rounding of the host (the Laplacians' sums run in the same order on both backends).
 * `adj` may be NULL (computed here) or the mesh's adjacency. Positions are needed for COTAN
 * and the masses. Errors: MMX_ERR_ARG (NULL, an unknown kind, no positions), MMX_ERR_SPACE,
 * MMX_ERR_MESH (COTAN, MASS_VORONOI: a face that is not a triangle, named),
 * MMX_ERR_OVERFLOW, MMX_ERR_NOMEM, MMX_ERR_CUDA.
 * Cost: the adjacency (when not given), the transpose of M, then O(nnz(L) * valence) for the
 * Laplacians, O(nnz) for the others. EV and FE are assembled on the host (a device mesh's
 * EV / FE arrays are read back and the result copied to the device).
 * Synchronises: on CUDA, as the adjacency, the transpose and the Laplacian pattern do; EV and
 * FE read arrays back. */
mmx_status mmx_operator(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_adjacency *adj,
                        mmx_operator_kind kind, mmx_csc **out);

/* ---- smoothing ---------------------------------------------------------------------------- */

/* The smoothing methods of mmx_smooth. x is the n x 3 positions, N(i) vertex i's neighbours
 * (the edges at i), "fixed" the vertices that do not move (below). */
typedef enum mmx_smooth_method {
    MMX_SMOOTH_LAPLACIAN = 0, /* explicit uniform Laplacian steps (the umbrella operator):
                                   x'_i = x_i + lambda (1/|N(i)| sum_(j in N(i)) x_j - x_i),
                                 as the algebra states it, x' = x + lambda D^-1 L x with L the
                                 uniform Laplacian (mmx_uniform_laplacian) and D = -diag(L)
                                 (the number of edges at i); any face order. lambda = 1/2 is
                                 OpenMesh's JacobiLaplaceSmootherT (C0, tangential and normal)
                                 with fix_boundary (tests/test_smooth.c compares them) */
    MMX_SMOOTH_COTAN,         /* the same step with the cotangent Laplacian
                                 (mmx_cotan_laplacian), D = -diag(L) = sum of the edge weights
                                 at i, L rebuilt from the current positions at every step; a
                                 vertex whose D is not > 0 (obtuse fans) does not move that
                                 step. Triangles only */
    MMX_SMOOTH_TAUBIN,        /* Taubin's lambda|mu smoothing (1995): each iteration is a
                                 uniform Laplacian step with lambda, then one with mu < 0 (which
                                 inflates back), so low frequencies keep their size */
    MMX_SMOOTH_BILATERAL,     /* bilateral normal filtering (Fleishman, Drori and Cohen-Or
                                 2003; Jones et al. 2003), each vertex moved along its normal n_i
                                 (mmx_vertex_normals, area weights, recomputed every iteration):
                                   t_j = |x_j - x_i|,  h_j = n_i . (x_j - x_i),  j in the VV row
                                   w_j = exp(-t_j^2 / (2 sc^2)) exp(-h_j^2 / (2 ss^2))
                                   x'_i = x_i + n_i (sum_j w_j h_j) / (sum_j w_j)
                                 the neighbourhood is the one-ring (the VV query, query.h).
                                 sc = sigma_c, or where it is 0 the one-ring's
                                 radius (the largest t_j); ss = sigma_s, or where it is 0 the
                                 standard deviation of the h_j (population); a factor whose
                                 sigma is 0 counts as 1. A vertex with a zero normal or no
                                 neighbour does not move. The spread is the two-pass variance
                                 and the weights are scaled so that the largest is 1 (the same
                                 ratios): no underflow to an all-zero row, so rounding moves
                                 the result by rounding only. Consistently oriented faces (VV) */
    MMX_SMOOTH_MCF            /* implicit mean curvature flow (Desbrun, Meyer, Schroeder and
                                 Barr 1999), one backward Euler step per iteration:
                                   (A - h L) x' = A x,
                                 L the cotangent Laplacian and A the mass matrix (opts.mass) of
                                 the current positions, solved for the 3 coordinates at once by
                                 Jacobi-preconditioned CG (mmx_cg_csc on S = A - h L assembled
                                 on L's pattern, or mmx_cg on a matrix-free operator), from x as
                                 the initial guess. Triangles only */
} mmx_smooth_method;

/* How the operator is applied. Each method has the assembled, algebraic path (the reference);
 * two have a second one, tested against it. */
typedef enum mmx_smooth_path {
    MMX_SMOOTH_ASSEMBLED = 0, /* the assembled Laplacian applied per vertex, a gather of
                                 its column fused with the step (the arithmetic and order of
                                 mmx_spmv's op = T with MMX_MAP_BY_ENTRY); for MCF,
                                 mmx_cg_csc on S = A - h L */
    MMX_SMOOTH_PATCH,         /* LAPLACIAN and TAUBIN only: the neighbour sums by
                                 mmx_patch_reduce(VV) and the counts by the same reduction of
                                 ones, x'_i = x_i + lambda (sum_i / count_i - x_i). The
                                 reduction refuses faces that are not consistently oriented
                                 (MMX_ERR_MESH naming the edge: so any edge of three faces or
                                 more); on every other mesh a VV row lists each edge at its
                                 vertex once, also where fans meet at a non-manifold vertex,
                                 so both paths compute the same step (within float rounding:
                                 the sums run in other orders) */
    MMX_SMOOTH_MATRIX_FREE    /* MCF only: mmx_cg on an mmx_linop that applies
                                 S x = A x - h (L x) in one kernel (the by-entry product
                                 with L gathered per vertex and the finish fused); S is
                                 never assembled */
} mmx_smooth_path;

typedef struct mmx_smooth_options {
    mmx_smooth_method method;
    mmx_smooth_path path;
    int iterations;     /* steps (Taubin: lambda|mu pairs), >= 0; 0 returns x unchanged */
    float step;         /* lambda for LAPLACIAN, COTAN, TAUBIN (0: 0.5), in (0, 1] for a
                           stable explicit step (above 1 is refused: the steps diverge); h
                           for MCF (0: 1e-3 times the square of the
                           bounding-box diagonal of the input; h has the units of an area).
                           That default is a large step (the surface visibly smoothed in one
                           step whatever the resolution): cond(A - h L) grows like h over the
                           squared edge length, so CG's iterations grow with the resolution
                           (nefertiti split 3 times: h = 433, 1000 iterations short of 1e-5).
                           RXMesh's MCF app solves smaller steps: by default the uniform
                           problem with h = 10 (mcf_uniform), earlier the cotangent one with
                           h = 0.001 in the model's units; pass step for those */
    float mu;           /* TAUBIN's mu, < 0 and |mu| > lambda (0: -0.53); below -1 refused
                           (its steps diverge) */
    int fix_boundary;   /* 1: vertices on a boundary edge keep their positions bit for bit
                           (explicit steps and bilateral: their rows are the identity; MCF:
                           their rows and columns of S become the identity's and their known
                           positions move to the right-hand side, b_j = A_j x_j + h sum over
                           fixed i of L_ji x_i, so S stays symmetric positive definite) */
    mmx_mass_kind mass; /* MCF's A (default MMX_MASS_BARYCENTRIC, positive on any triangle of
                           non-zero area) */
    double cg_rtol;     /* MCF: CG's relative tolerance per coordinate (default 1e-5) */
    int cg_max_iter;    /* MCF: CG's iteration cap per step (default 1000) */
    int mcf_uniform;    /* MCF: 0 (default) the cotangent Laplacian and the mass `mass`; 1: the
                           uniform Laplacian (mmx_uniform_laplacian) and the valences as A,
                           (V - h L_u) x' = V x, built once (they do not depend on x): the
                           problem of RXMesh's current MCF app by default (-dt 10) */
    int cg_rel_initial; /* MCF: 0 (default) cg_rtol is relative to ||b|| = ||A x||; nonzero:
                           to the initial residual ||b - S x|| = h ||L x|| (mmx_cg_opts'
                           rel_initial: RXMesh's MCF test, far stricter for a small h) */
    float sigma_c, sigma_s; /* BILATERAL's sigmas (0: per vertex, as above) */
    const mmx_patch_set *patches; /* MMX_SMOOTH_PATCH: the mesh's patch set, or NULL (the
                                     default options' set, built on the first call and kept
                                     in the mesh's cache, mesh.h) */
} mmx_smooth_options;

/* The defaults for `method`: assembled path, 10 iterations (MCF: 1), step and mu 0 (their
 * defaults above), boundary free, barycentric mass, CG 1e-5 / 1000, sigmas 0, no patch set. */
mmx_smooth_options mmx_smooth_defaults(mmx_smooth_method method);

/* "laplacian", "cotan", "taubin", "bilateral", "mcf" ("?" out of range), and back.
 * mmx_smooth_method_parse errors: MMX_ERR_ARG for another name. */
const char *mmx_smooth_method_name(mmx_smooth_method m);
mmx_status mmx_smooth_method_parse(mmx_ctx *ctx, const char *name, mmx_smooth_method *m);

/* What a smoothing did. */
typedef struct mmx_smooth_report {
    int iterations;       /* steps taken */
    double step;          /* lambda, or MCF's h (the default resolved) */
    double mu;            /* TAUBIN's mu (resolved); 0 otherwise */
    int cg_iterations;    /* MCF: CG iterations summed over the steps (per step, the most any
                             coordinate ran); 0 otherwise */
    double cg_residual;   /* MCF: the largest true relative residual ||b - S x|| / ||b|| over
                             the coordinates of the last step (mmx_cg_report); 0 otherwise */
    int cg_converged;     /* MCF: 1 when every coordinate of every step converged. As with
                             mmx_cg, CG stopping at cg_max_iter is not an error: the call
                             returns MMX_OK with the positions CG reached and 0 here, which
                             a caller must check (the mmx tool fails on it) */
    int fixed;            /* vertices kept fixed (boundary vertices with fix_boundary) */
    double ms;            /* the call's time: CUDA events around its work on CUDA, a
                             monotonic clock on the host */
} mmx_smooth_report;

/* Smooths the positions of `mesh` by opts->method (NULL: the defaults of LAPLACIAN) and writes
 * them to out (nverts x 3 floats in the context's space; out may be mesh->pos, smoothing in
 * place; any other overlap is refused). The mesh's topology is not changed; vertices in no
 * face keep their positions. Every step reads the previous step's positions only (Jacobi
 * updates), so the result does not depend on the vertex order of the work, and is the same
 * bit for bit from run to run on each backend (sums in fixed orders: op = T SpMVs, patch
 * reductions, CG's fixed-order dot products); CUDA agrees with the host within float
 * rounding (iterated: the differences grow with the iterations).
 * Non-manifold input: the assembled Laplacian steps and MCF are defined on any edge
 * configuration (L's edge weights gather every face of an edge) and run; BILATERAL and the
 * patch path need consistently oriented faces (MMX_ERR_MESH naming the edge, from the VV
 * query or reduction), which rules out edges of three faces or more; vertices where several
 * fans meet are smoothed over all their neighbours on every path.
 * report may be NULL.
 * Errors: MMX_ERR_ARG (NULL ctx, mesh or out, no positions, an unknown method or path, a path
 * the method does not have, iterations < 0, step < 0 or not finite, step > 1 for LAPLACIAN,
 * COTAN and TAUBIN, mu >= 0 (when given) or below -1,
 * negative sigmas, cg_rtol < 0, cg_max_iter < 0, a patch set of another mesh, out
 * overlapping mesh->pos without being it, out == mesh->pos on a mesh that wraps the caller's
 * positions read-only (mmx_mesh_wrap_arrays, mesh.h); CG's refusals: S not positive definite, which a
 * degenerate triangle with a zero mass can cause), MMX_ERR_SPACE, MMX_ERR_MESH (COTAN, MCF:
 * a face that is not a triangle, named; the refusals above; a result that is not finite,
 * naming the first such vertex: coordinates whose sums overflow float arithmetic, near
 * FLT_MAX, or for MCF a step h too large: never success with NaN or infinity),
 * MMX_ERR_OVERFLOW, MMX_ERR_NOMEM, MMX_ERR_CUDA. On error out holds the positions of some
 * step. CG not converging is reported in report->cg_converged, not as an error (above).
 * Cost: the adjacency, made on the first call and kept with the mesh (mesh.h), as are the
 * uniform Laplacian and its diagonal for LAPLACIAN and TAUBIN on the assembled path, so that a
 * later call on the same mesh (whatever its positions) starts at its first step; per step,
 * LAPLACIAN and TAUBIN O(nnz(L)) (one SpMV and one
 * per-vertex pass, or one VV reduction), COTAN and MCF the Laplacian's assembly (the EF query,
 * O(nnz log nnz)) plus an SpMV, resp. a CG solve (O(nnz(L)) per iteration), BILATERAL the
 * vertex normals and one pass over the VV rows (the VV query once). Scratch: O(nnz(L)) floats
 * and a few n x 3 arrays.
 * Synchronises: on CUDA, the adjacency's wait (on a call that computes it, not on one that
 * finds it in the mesh's cache); COTAN and MCF their Laplacian's waits every
 * step, MCF the solve's (CG's state read at iterations 1, 2, 4, 8, then every 16);
 * BILATERAL the VV query's; the patch path its check of the counts (one wait, plus the patch
 * set's build when none is given); MCF with the default h reads the positions once (the
 * bounding box); once at the end, the check that the result is finite (one read-back, no
 * wait per step); and, when report is given, the end (the time). */
mmx_status mmx_smooth(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_smooth_options *opts,
                      float *out, mmx_smooth_report *report);

#ifdef __cplusplus
}
#endif
#endif
