/*
 * tests/oracle/oracle.h: the reference implementations subdivision and smoothing are checked
 * against, and a comparison of two meshes up to vertex and face order. Test-only code:
 * OpenSubdiv 3.5 (Loop, Catmull-Clark) and OpenMesh (sqrt3, the Jacobi Laplace smoother; Loop
 * and Catmull-Clark for benchmarking) behind a C API,
 * so that C test suites and tools can call them.
 *
 * Every function catches what the libraries throw: nothing crosses into C. Errors are a nonzero
 * return and a one-line message in err (cap bytes, always NUL-terminated when cap > 0).
 */
#ifndef MMX_TESTS_ORACLE_H
#define MMX_TESTS_ORACLE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A polygon mesh in plain arrays (malloc'd when an oracle fills it): face f has the vertices
 * verts[start[f] .. start[f+1]), 0-based, in cyclic order; pos has nverts x 3 doubles. */
typedef struct oracle_mesh {
    int nverts, nfaces;
    int *start;   /* nfaces + 1 */
    int *verts;   /* start[nfaces] */
    double *pos;  /* nverts * 3 */
} oracle_mesh;

/* Frees the arrays and zeroes the struct; NULL is accepted. */
void oracle_mesh_free(oracle_mesh *m);

/* Wall-clock phase times in milliseconds (std::chrono::steady_clock). */
typedef struct oracle_times {
    double refine_ms, stencil_ms, eval_ms;
} oracle_times;

/* OpenSubdiv 3.5: scheme 0 = Loop, 1 = Catmull-Clark, 2 = bilinear, refined uniformly `levels` times
 * (0 <= levels <= 15; 0 returns a copy after the topology was accepted). Sdc options by default:
 * VTX_BOUNDARY_EDGE_ONLY, FVAR_LINEAR_ALL, CREASE_UNIFORM, TRI_SUB_CATMARK. Topology through
 * Far::TopologyRefinerFactory<TopologyDescriptor>, positions through a double
 * Far::StencilTable (generateIntermediateLevels = false, factorizeIntermediateLevels = true)
 * applied on the CPU. out gets the last level's faces and vertices, in OpenSubdiv's order.
 * Times (if t): refine_ms = factory + RefineUniform, stencil_ms = the stencil table, eval_ms =
 * UpdateValues.
 *
 * tags (NULL: none) are OpenSubdiv regression-shape tags as an OBJ file has them (mmx_mesh's
 * tags: lines "t NAME NINT/NFLOAT/NSTRING INT... FLOAT... STRING...", newline-separated):
 *   crease     vertex pairs, 1 sharpness for all or 1 per pair  -> TopologyDescriptor creases
 *   corner     vertices, 1 sharpness for all or 1 per vertex    -> TopologyDescriptor corners
 *   hole       face indices                                     -> TopologyDescriptor holes
 *   interpolateboundary 0 / 1 / 2  -> VTX_BOUNDARY_NONE / EDGE_AND_CORNER / EDGE_ONLY
 *   creasemethod normal / chaikin  -> CREASE_UNIFORM / CREASE_CHAIKIN
 *   smoothtriangles catmark / smooth -> TRI_SUB_CATMARK / TRI_SUB_SMOOTH (Catmull-Clark only)
 *   facevaryinginterpolateboundary, facevaryingpropagatecorners: accepted, ignored (no effect
 *   on positions).
 * Negative sharpness counts as 0. Any other tag (vertexedit, edgeedit, faceedit: hierarchical
 * edits, which OpenSubdiv 3 does not have) is refused with "unsupported tag NAME"; so are
 * malformed lines, wrong argument counts, indices out of range and a crease pair that is not
 * an edge. Holes: uniform refinement refines hole faces too and tags their children as holes;
 * out leaves those faces out, together with the vertices that only hole faces use (vertices
 * that no face uses, i.e. refined isolated input vertices, stay), renumbered in order.
 * Returns 0, or nonzero with err set (bad arguments or tags, the factory refused the
 * topology, ...). */
int oracle_osd_refine_tagged(int scheme, const oracle_mesh *in, const char *tags, int levels,
                             oracle_mesh *out, oracle_times *t, char *err, size_t cap);

/* The limit surface at the last level's vertices, as oracle_osd_refine_tagged refines (levels
 * >= 1): out's positions are Far::PrimvarRefiner::Limit's, and *normals (malloc'ed, 3 per
 * vertex of out, the caller frees it) the normalised cross products of its two limit tangents
 * (0 where they are parallel). */
int oracle_osd_limit(int scheme, const oracle_mesh *in, const char *tags, int levels,
                     oracle_mesh *out, double **normals, char *err, size_t cap);

/* oracle_osd_refine_tagged with a face-varying channel: `nvalues` texture coordinates (values,
 * 2 each) and one index per corner of `in` (index, in its faces' order), refined by
 * Far::PrimvarRefiner::InterpolateFaceVarying with FVAR_LINEAR_ALL; *uv (malloc'ed, the caller
 * frees it) gets 2 per corner of out's faces, in out's order. */
int oracle_osd_refine_uv(int scheme, const oracle_mesh *in, const char *tags, int nvalues,
                         const double *values, const int *index, int levels, oracle_mesh *out,
                         double **uv, char *err, size_t cap);

/* oracle_osd_refine_tagged without tags (tags = NULL): smooth everywhere, edge-only
 * boundaries. */
int oracle_osd_refine(int scheme, const oracle_mesh *in, int levels, oracle_mesh *out,
                      oracle_times *t, char *err, size_t cap);

/* Sharp features as arrays (a caller parses the tags, mmx_mesh_tags_parse): crease vertex
 * pairs and sharpness, corners, the boundary mode (0 none, 1 edge and corner, 2 edge only) and
 * the crease method (chaikin nonzero). */
typedef struct oracle_sharp {
    int ncreases;
    const int *crease_verts;
    const float *crease_sharpness;
    int ncorners;
    const int *corner_verts;
    const float *corner_sharpness;
    int boundary;
    int chaikin;
} oracle_sharp;

/* OpenSubdiv's patch evaluation (osd_patch.cpp): scheme 0 Loop, 1 Catmull-Clark, `sharp` NULL
 * for none (edge-only boundaries); RefineAdaptive to `isolation` (1..10), Far::PatchTable with
 * Gregory-basis end caps and infinitely sharp patches, Far::PatchMap; the limit position P and
 * first derivatives du, dv (3 doubles per point each; du, dv may be NULL) at n points
 * (ptex face, u, v), OpenSubdiv's ptex faces (Far::PtexIndices). Times (if t): refine_ms =
 * refinement, patch table, points; eval_ms = the points' evaluation. */
int oracle_osd_patch_eval(int scheme, const oracle_mesh *in, const oracle_sharp *sharp,
                          int isolation, int n, const int *ptex, const double *u, const double *v,
                          double *P, double *du, double *dv, oracle_times *t, char *err,
                          size_t cap);

/* OpenMesh::Subdivider::Uniform::Sqrt3T on a TriMesh with double points, `levels` steps in
 * one call (its generation counted from 0, so boundary edges are cut in three on the 2nd, 4th,
 * ... step: Kobbelt's boundary rule). Refused (nonzero + err): a face that is not a triangle,
 * add_face failing (complex edge or vertex: non-manifold, inconsistently oriented). Isolated
 * vertices are kept.
 * t->refine_ms (if t) = the whole time, mesh building included; the other two are 0. */
int oracle_om_sqrt3(const oracle_mesh *in, int levels, oracle_mesh *out, oracle_times *t,
                    char *err, size_t cap);

/* OpenMesh LoopT (scheme 0, TriMesh, triangles only) and CatmullClarkT (scheme 1, PolyMesh),
 * same conventions as oracle_om_sqrt3 but boundaries allowed (OpenMesh's own boundary rules):
 * for benchmarking, not as a reference. */
int oracle_om_refine(int scheme, const oracle_mesh *in, int levels, oracle_mesh *out,
                     oracle_times *t, char *err, size_t cap);

/* OpenMesh::Smoother::JacobiLaplaceSmootherT on a PolyMesh with double points, initialised with
 * Tangential_and_Normal (uniform weights: each edge 1, each vertex 1 / its edge count) and C0,
 * run for `iterations` (smooth(iterations)): per iteration every vertex not on a boundary (an
 * active one: nothing selected, none locked) gets p + 0.5 (sum of its neighbours / count - p),
 * computed from the previous positions (Jacobi), and boundary vertices stay. out has the input's
 * vertices and faces in the input's order. Refused (nonzero + err): add_face failing (complex
 * edge or vertex). */
int oracle_om_laplace_smooth(const oracle_mesh *in, int iterations, oracle_mesh *out, char *err,
                             size_t cap);

/* Compares two meshes up to vertex and face order; tol = rel_tol * the bounding-box diagonal of
 * b (diag taken as 1 when b's box is a point or b is empty). Each vertex of a is matched to its
 * nearest vertex of b (uniform hash grid, cells 4 tol wide, the 27 cells around searched). When
 * a vertex of b is claimed twice (coincident vertices, e.g. from back-to-back faces), the match
 * is redone with the topology: vertices of b closer than tol form a position class, and colour
 * refinement over the faces' cyclic order (on both meshes alike) splits the classes until each
 * vertex of a can take a vertex of b of its colour. The match must be a bijection with every
 * distance <= tol. Then every face of a, renamed through the match and rotated so its smallest
 * index comes first (cyclic direction kept), must equal, as a multiset, the faces of b
 * canonicalised the same way. The match is only a hypothesis; the face check proves the
 * topology equal, so a wrong match can only cause a false failure, never a false pass.
 * Returns 0 when they agree, else nonzero with a one-line reason in report (counts differ; a
 * vertex of a without a vertex of b within tol, with the nearest distance / diag; a vertex of
 * b matched twice; a face of a without a partner in b, saying when b has it reversed; ...).
 * *max_err (if not NULL) gets the largest matched distance / diag when the match succeeded,
 * else -1. Cost: O((V + F) log F) time and O(V + F) memory; about 0.5 s for 400k vertices. */
int oracle_compare(const oracle_mesh *a, const oracle_mesh *b, double rel_tol, double *max_err,
                   char *report, size_t cap);

/* Per-corner data (2 doubles a corner: texture coordinates) of two meshes that oracle_compare
 * found equal: each face of a is matched to a face of b not matched yet whose corners, in the
 * same cyclic order from some rotation, are a's within 1e-5 of b's box diagonal, and each
 * corner's pair must be within tol (absolute) of b's. *max_err (if not NULL) gets the largest
 * difference. Returns 0 when all agree, else nonzero with the first difference in report.
 * Quadratic in the faces: for meshes of a few thousand faces. */
int oracle_compare_uv(const oracle_mesh *a, const double *auv, const oracle_mesh *b,
                      const double *buv, double tol, double *max_err, char *report, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
