/* The rules of the four schemes, stated once (thesis ch. 4; OpenSubdiv's Sdc in our terms):
 * the weights of the vertex, edge and face points, the boundary rule, and the layout of a
 * face's children. Both paths (the algebraic operators and the fused passes) and both backends
 * (host loops and CUDA kernels) take every weight and every child from here; no weight is
 * written as a literal elsewhere.
 *
 * Sharpness enters in one place. An edge's rule is chosen from its sharpness (a boundary edge
 * is infinitely sharp, a crease tag gives it a sharpness that falls by one per level), a
 * vertex's from its own sharpness (corner tags, boundary corners) and its edges' (rule_vertex:
 * smooth, crease or corner, and OpenSubdiv's fractional blend at the level where a sharpness
 * falls to 0); the child's edge sharpness (uniform or Chaikin) is stated here too.
 *
 * All functions are inline and callable from device code; weights are computed in double and
 * rounded to float once. */
#ifndef MMX_SUBDIV_RULES_H
#define MMX_SUBDIV_RULES_H

#include <math.h>
#include "core/core_internal.h"
#include "meshmatrix/subdiv.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Whether the scheme makes Catmull-Clark's children (one quad per corner of any polygon):
 * bilinear shares that topology and differs only in its weights (linear ones). */
static inline MMX__HD int mmx__scheme_quads(mmx_scheme scheme)
{
    return scheme == MMX_SCHEME_CATMULL_CLARK || scheme == MMX_SCHEME_BILINEAR;
}

/* ---- points ---------------------------------------------------------------------------------- */

/* Sharpness (OpenSubdiv's Sdc::Crease, uniform and Chaikin creasing). An edge's or a vertex's
 * sharpness s falls by one per level; 0 is smooth, MMX__SHARP_INF (10) and above stays sharp
 * for ever. A boundary edge is infinitely sharp (the "edge only" boundary), and so is, with
 * MMX_BOUNDARY_EDGE_AND_CORNER, a boundary vertex on a single face. */
#define MMX__SHARP_INF 10.0f

/* A vertex's sharpness at `level` (0 the input) from its sharpness s0 in the input's tags:
 * it falls by one per level (OpenSubdiv's uniform creasing), and 10 or more stays infinitely
 * sharp. */
static inline MMX__HD float mmx__rule_sharpness_at(float s0, int level)
{
    if (s0 >= MMX__SHARP_INF) return s0;
    const float s = s0 - (float)level;
    return s > 0.0f ? s : 0.0f;
}

/* The sharpness of the child of an edge of sharpness s at one of its ends, v. Uniform: s - 1.
 * Chaikin (chaikin != 0), when v has more than one semi-sharp edge (0 < s < 10; `semi_sum` and
 * `semi_count` over v's edges, this one included): 3/4 s plus 1/4 the mean of v's other
 * semi-sharp edges, then - 1. Infinite stays infinite, and a result <= 0 is smooth. */
static inline MMX__HD float mmx__rule_edge_child_sharpness(float s, int chaikin, float semi_sum,
                                                           int semi_count)
{
    if (s <= 0.0f) return 0.0f;
    if (s >= MMX__SHARP_INF) return s;
    if (chaikin && semi_count > 1) {
        /* Rounded after each product on both backends: nvcc would fuse a product with the sum
         * (one rounding, the host's two), and the child's sharpness is topology-like data,
         * carried in the tags, that must be the same bytes on both. */
        const float others = (semi_sum - s) / (float)(semi_count - 1);
#ifdef __CUDA_ARCH__
        s = __fadd_rn(__fmul_rn(0.75f, s), __fmul_rn(0.25f, others));
#else
        s = 0.75f * s + 0.25f * others;
#endif
    }
    s -= 1.0f;
    return s > 0.0f ? s : 0.0f;
}

/* What a vertex's rule reads of its edges at this level, gathered by a walk around it (or
 * from its boundary flag where only boundaries are sharp): the edges sharp now, those whose
 * half at this vertex is sharp in the child, and the edges sharp now but smooth in the child
 * (their sharpness summed: the fractional weight). */
typedef struct mmx__vertex_edges {
    int sharp, child_sharp, transitions;
    float transition_sum;
} mmx__vertex_edges;

/* Adds one edge of sharpness s, whose child at this vertex has sharpness cs, to k. */
static inline MMX__HD void mmx__rule_vertex_edge(mmx__vertex_edges *k, float s, float cs)
{
    k->sharp += s > 0.0f;
    k->child_sharp += cs > 0.0f;
    if (s > 0.0f && cs <= 0.0f) k->transitions++, k->transition_sum += s;
}

/* A vertex's kind (Sdc's vertex rules): sharp itself or on more than two sharp edges, a
 * corner; on two, a crease; on one (a dart) or none, smooth. */
enum { MMX__VERTEX_SMOOTH = 0, MMX__VERTEX_CREASE = 2, MMX__VERTEX_CORNER = 3 };
static inline MMX__HD int mmx__rule_vertex_kind(float vs, int sharp_edges)
{
    if (vs > 0.0f || sharp_edges > 2) return MMX__VERTEX_CORNER;
    return sharp_edges == 2 ? MMX__VERTEX_CREASE : MMX__VERTEX_SMOOTH;
}

/* The weights of a vertex point:
 *   p~ = self p + ring (sum of the neighbours across the vertex's edges)
 *              + ring (sum of the face points around it; Catmull-Clark only)
 *              + crease (sum of the neighbours across its sharp edges)
 * `child_set` says which edges the crease sum runs over: 0, those sharp at this level; 1, those
 * whose half at this vertex is sharp in the child (a corner blended into a crease). Either set
 * has two edges wherever crease != 0. */
typedef struct mmx__vertex_rule {
    float self, ring, crease;
    int child_set;
} mmx__vertex_rule;

/* The smooth rule of a vertex on n faces:
 *   Loop (eq. 4.11-4.12):  self = 1 - n beta, ring = beta,
 *                          beta = (5/8 - (3/8 + 1/4 cos(2 pi / n))^2) / n
 *   sqrt3 (eq. 4.2-4.3):   self = 1 - alpha, ring = alpha / n, alpha = (4 - 2 cos(2 pi / n)) / 9
 *   Catmull-Clark (4.29):  self = 1 - 2 / n, ring = 1 / n^2 (the edge ring and the face points)
 *   bilinear, and a vertex in no face: it keeps its place (self = 1). */
static inline MMX__HD mmx__vertex_rule mmx__rule_vertex_smooth(mmx_scheme scheme, mmx_index n)
{
    const double pi = 3.14159265358979323846;
    double self = 1.0, ring = 0.0;
    if (n > 0 && scheme != MMX_SCHEME_BILINEAR) {
        const double c = cos(2.0 * pi / n);
        if (scheme == MMX_SCHEME_LOOP) {
            const double t = 0.375 + 0.25 * c;
            ring = (0.625 - t * t) / n;
            self = 1.0 - n * ring;
        } else if (scheme == MMX_SCHEME_SQRT3) {
            const double alpha = (4.0 - 2.0 * c) / 9.0;
            self = 1.0 - alpha;
            ring = alpha / n;
        } else {
            self = 1.0 - 2.0 / n;
            ring = 1.0 / ((double)n * n);
        }
    }
    mmx__vertex_rule w = {(float)self, (float)ring, 0.0f, 0};
    return w;
}

/* The rule of a vertex kind: smooth (above), crease (eq. 4.14, 4.25: self = 3/4, crease = 1/8
 * on each of its two sharp edges' neighbours), corner (it keeps its place). */
static inline MMX__HD mmx__vertex_rule mmx__rule_vertex_of_kind(mmx_scheme scheme, mmx_index n,
                                                                int kind, int child_set)
{
    mmx__vertex_rule w = mmx__rule_vertex_smooth(scheme, n);
    if (kind == MMX__VERTEX_CREASE) w.self = 0.75f, w.ring = 0.0f, w.crease = 0.125f;
    if (kind == MMX__VERTEX_CORNER) w.self = 1.0f, w.ring = 0.0f, w.crease = 0.0f;
    w.child_set = child_set;
    return w;
}

/* ---- sqrt3 on a mesh with boundary (Kobbelt, "sqrt3-subdivision", SIGGRAPH 2000, sect. 4;
 * the rule OpenMesh's Sqrt3T implements) -------------------------------------------------------
 *
 * Two sqrt3 steps refine the inside by a factor of three (an edge's length falls by a third);
 * Kobbelt refines the boundary polygon to match by cutting each boundary edge in three every
 * second step, with the ternary subdivision of the cubic B-spline, mask
 * (1, 4, 10, 16, 19, 16, 10, 4, 1) / 27 = (1 + z + z^2)^4 / 27. The generation g of a step is
 * its level within one call, counted from 0 at the call's input (as OpenMesh's Sqrt3T counts
 * within one call of its operator()):
 *   g even: every face, boundary or not, gets its centre c (the 1/3 rule) and is cut into three
 *           around it; inner edges are flipped as on a closed mesh, a boundary edge a -> b is
 *           not: its child is (a, b, c). Boundary vertices stay where they are; inner vertices
 *           take the smooth rule (eq. 4.2-4.3), whatever their neighbours.
 *   g odd:  a face with a boundary edge a -> b (third corner x) gets no centre: the edge is
 *           cut in three by l near a and r near b,
 *             l = (16 a + 10 b + a') / 27,   r = (10 a + 16 b + b') / 27,
 *           a' and b' the other boundary neighbours of a and b, and the face by the lines from x:
 *           (a, l, x), (l, r, x), (r, b, x); the first two of these take part in the flips of
 *           the inner edges x -> a and b -> x, l and r playing the centre's part. Boundary
 *           vertices move to (4 p_prev + 19 p + 4 p_next) / 27; inner faces and vertices as
 *           on a closed mesh.
 * After an even step every face has at most one boundary edge (the centre's three edges are
 * inner), so an odd step, which follows one, always finds one edge to cut. Each call starts at
 * g = 0: two calls of one level each differ from one call of two levels on a mesh with
 * boundary (subdiv.h). */

/* Whether level `level` (0: the call's input) is an odd generation, whose boundary edges are
 * cut in three. */
static inline MMX__HD int mmx__rule_sqrt3_trisects(int level)
{
    return level % 2 == 1;
}

/* sqrt3's vertex rule with Kobbelt's boundary: an inner vertex (or one in no face) the smooth
 * rule; a boundary vertex stays on even generations and moves to 19/27 p + 4/27 (p_prev +
 * p_next) on odd ones (crease: the weight of the sum of its two boundary neighbours). */
static inline MMX__HD mmx__vertex_rule mmx__rule_sqrt3_vertex(mmx_index n, int boundary, int level)
{
    if (!boundary || n == 0) return mmx__rule_vertex_smooth(MMX_SCHEME_SQRT3, n);
    mmx__vertex_rule w = {1.0f, 0.0f, 0.0f, 0};
    if (mmx__rule_sqrt3_trisects(level))
        w.self = (float)(19.0 / 27.0), w.crease = (float)(4.0 / 27.0);
    return w;
}

/* The point cutting a boundary edge a -> b at a third of its length from a (the point at b's
 * end is the same with a and b exchanged), as weights of p_a (near), p_b (far) and bp_a, the
 * sum of a's two boundary neighbours (b and a'), which the algebra has at hand (E's boundary
 * entries): (16 a + 10 b + a') / 27 = 16/27 a + 9/27 b + 1/27 (b + a'). */
typedef struct mmx__sqrt3_third {
    float near, far, bsum;
} mmx__sqrt3_third;

static inline MMX__HD mmx__sqrt3_third mmx__rule_sqrt3_third(void)
{
    mmx__sqrt3_third w = {(float)(16.0 / 27.0), (float)(9.0 / 27.0), (float)(1.0 / 27.0)};
    return w;
}

/* The rule of a vertex on n faces with sharpness vs at this level (vs_child in the child: its
 * own decay, or infinite for a boundary corner) and edges k (Sdc's vertex-vertex mask): the
 * rule of its kind now; where its kind in the child differs (a sharpness falls to 0 at this
 * level), OpenSubdiv's blend w rule(now) + (1 - w) rule(child), w the mean sharpness of the
 * vertex and edges that turn smooth, at most 1. sqrt3 has no sharp rules (the entry point
 * refuses sharp features for it beyond none), bilinear keeps every vertex. */
static inline MMX__HD mmx__vertex_rule mmx__rule_vertex(mmx_scheme scheme, mmx_index n, float vs,
                                                        float vs_child,
                                                        const mmx__vertex_edges *k)
{
    if (n == 0 || scheme == MMX_SCHEME_SQRT3 || scheme == MMX_SCHEME_BILINEAR)
        return mmx__rule_vertex_smooth(scheme, n);
    const int now = mmx__rule_vertex_kind(vs, k->sharp);
    const int child = mmx__rule_vertex_kind(vs_child, k->child_sharp);
    mmx__vertex_rule w = mmx__rule_vertex_of_kind(scheme, n, now, 0);
    if (now == MMX__VERTEX_SMOOTH || now == child) return w;
    int count = k->transitions;
    float sum = k->transition_sum;
    if (vs > 0.0f && vs_child <= 0.0f) count++, sum += vs;
    float f = count ? sum / (float)count : 0.0f;
    if (f > 1.0f) f = 1.0f;
    const float t = 1.0f - f;
    const mmx__vertex_rule c = mmx__rule_vertex_of_kind(scheme, n, child, 1);
    w.self = f * w.self + t * c.self;
    w.ring = f * w.ring + t * c.ring;
    w.crease = f * w.crease + t * c.crease;
    w.child_set = now == MMX__VERTEX_CREASE ? 0 : 1;
    return w;
}

/* A vertex's sharpness at `level` and in its child (*vs, *vs_child) from its corner tag s0 (0
 * for none): with MMX_BOUNDARY_EDGE_AND_CORNER a boundary vertex on a single face is an
 * infinitely sharp corner. */
static inline MMX__HD void mmx__rule_vertex_sharpness(float s0, int level, int boundary,
                                                      mmx_index n, mmx_boundary mode, float *vs,
                                                      float *vs_child)
{
    if (boundary && mode == MMX_BOUNDARY_EDGE_AND_CORNER && n == 1) s0 = MMX__SHARP_INF;
    *vs = mmx__rule_sharpness_at(s0, level);
    *vs_child = mmx__rule_sharpness_at(s0, level + 1);
}

/* The vertex rule where only boundaries are sharp (no crease tags): a boundary vertex's two
 * boundary edges are infinitely sharp; s0 is its corner tag (0 for none). sqrt3 has Kobbelt's
 * boundary rule instead (above), by the generation `level`. */
static inline MMX__HD mmx__vertex_rule mmx__rule_vertex_boundary(mmx_scheme scheme, mmx_index n,
                                                                 int boundary, mmx_boundary mode,
                                                                 float s0, int level)
{
    if (scheme == MMX_SCHEME_SQRT3) return mmx__rule_sqrt3_vertex(n, boundary, level);
    mmx__vertex_edges k = {0, 0, 0, 0.0f};
    if (boundary) k.sharp = k.child_sharp = 2;
    float vs, vs_child;
    mmx__rule_vertex_sharpness(s0, level, boundary, n, mode, &vs, &vs_child);
    return mmx__rule_vertex(scheme, n, vs, vs_child, &k);
}

/* The weights of an edge point: e = ends (p_a + p_b) + faces (sum over the edge's faces of
 * the face term), the face term being Catmull-Clark's face point or Loop's triangle vertex sum
 * t = M^T p. */
typedef struct mmx__edge_rule {
    float ends, faces;
} mmx__edge_rule;

/* The weight of the sharp rule in the point of an edge of sharpness s whose halves have
 * sharpness cs_a and cs_b in the child (Sdc's edge-vertex mask): 0 for a smooth edge, 1 where
 * both halves stay sharp (the edge point is a crease vertex in the child), else s, the blend
 * of the level where the crease turns smooth. With Chaikin's method one half can turn smooth
 * while s > 1, and OpenSubdiv then weighs by s unclamped, as here. */
static inline MMX__HD float mmx__rule_edge_weight(float s, float cs_a, float cs_b)
{
    if (s <= 0.0f) return 0.0f;
    return cs_a > 0.0f && cs_b > 0.0f ? 1.0f : s;
}

/* The rule of an edge whose point weighs the sharp rule by w (mmx__rule_edge_weight; 1 on a
 * boundary). Smooth (w = 0):
 *   Catmull-Clark (4.23): 1/4 (p_a + p_b) + 1/4 (f_m + f_n);
 *   Loop (4.10, 4.15):    1/8 (p_a + p_b) + 1/8 (t_m + t_n), which is 3/8 (p_a + p_b) +
 *                         1/8 (p_c + p_d): the three maps of eq. 4.15 folded into one product
 *                         over FE. (sqrt3 makes no edge points.)
 * Sharp (w = 1; eq. 4.13, 4.26) and every bilinear edge: the midpoint. Otherwise OpenSubdiv's
 * blend w sharp + (1 - w) smooth. */
static inline MMX__HD mmx__edge_rule mmx__rule_edge(mmx_scheme scheme, float w)
{
    mmx__edge_rule r;
    if (w == 1.0f || scheme == MMX_SCHEME_BILINEAR) {
        r.ends = 0.5f, r.faces = 0.0f;
    } else {
        r.ends = r.faces = scheme == MMX_SCHEME_LOOP ? 0.125f : 0.25f;
        if (w != 0.0f) r.ends = w * 0.5f + (1.0f - w) * r.ends, r.faces = (1.0f - w) * r.faces;
    }
    return r;
}

/* Catmull-Clark's edge rule with the smooth-triangle option (OpenSubdiv's TRI_SUB_SMOOTH, OBJ
 * 't smoothtriangles smooth'), for an edge of two faces of which `tris` (0 to 2) are
 * triangles: a triangle's face term weighs 0.47 instead of 1/4 (Hbr's constant, which
 * OpenSubdiv keeps), both faces take the mean of the two, and the ends what is left:
 * faces = (f_0 + f_1) / 2, ends = (1 - 2 faces) / 2. Other edges, and edges without a
 * triangle, take mmx__rule_edge; the sharp part of a blend is unchanged. */
static inline MMX__HD mmx__edge_rule mmx__rule_edge_tris(mmx_scheme scheme, float w, int tris)
{
    if (tris == 0 || scheme != MMX_SCHEME_CATMULL_CLARK || w == 1.0f) return mmx__rule_edge(scheme, w);
    const float tri = 0.470f, quad = 0.25f;
    mmx__edge_rule r;
    r.faces = 0.5f * ((tris > 0 ? tri : quad) + (tris > 1 ? tri : quad));
    r.ends = 0.5f * (1.0f - 2.0f * r.faces);
    if (w != 0.0f) r.ends = w * 0.5f + (1.0f - w) * r.ends, r.faces = (1.0f - w) * r.faces;
    return r;
}

/* The sharpness of edge e at this level: infinite on a boundary (`boundary`), else its entry
 * of the level's crease sharpness `es` (NULL: no creases). */
static inline MMX__HD float mmx__rule_edge_sharpness(const float *es, mmx_index e, int boundary)
{
    return boundary ? MMX__SHARP_INF : es ? es[e] : 0.0f;
}

/* The weight of each corner in a face point of a face of order n: Catmull-Clark's centroid
 * (eq. 4.27) and sqrt3's centre (eq. 4.8) alike, 1/n. */
static inline MMX__HD float mmx__rule_face_weight(mmx_index n)
{
    return n > 0 ? (float)(1.0 / n) : 0.0f;
}

/* ---- the limit surface (OpenSubdiv's limit masks, Sdc) ---------------------------------------
 *
 * At a vertex of a refined level, with its ring in counter-clockwise order (edge neighbours
 * e_0 .. e_m-1 and, Catmull-Clark, the vertex diagonally across each quad f_i between e_i and
 * e_i+1), the limit position and two tangents are weighted sums of p, the e_i and the f_i. The
 * mask follows the vertex's kind at that level (no blend): a corner stays; a crease vertex,
 * with its sharp edges at ring positions c0 < c1, is the B-spline limit of the crease; a
 * smooth vertex (also a dart) the scheme's eigen-analysis weights, a Catmull-Clark vertex on
 * two faces a corner. Bilinear: every vertex a corner. */

/* The limit position's weights of a smooth vertex on n faces: self, each edge neighbour, each
 * diagonal (Catmull-Clark; Loop has none).
 *   Catmull-Clark: f = 1 / (n (n + 5)), e = 4 f, self = 1 - n (e + f) (n = 4: 4/9, 1/9, 1/36)
 *   Loop: beta = (5/8 - (3/8 + 1/4 cos(2 pi / n))^2) / n, e = 1 / (n + 3 / (8 beta)),
 *         self = 1 - n e (n = 6: 1/2, 1/12) */
static inline MMX__HD void mmx__rule_limit_smooth(mmx_scheme scheme, int n, double *self,
                                                  double *e, double *f)
{
    const double pi = 3.14159265358979323846;
    *f = 0.0;
    if (scheme == MMX_SCHEME_LOOP) {
        const double t = 0.375 + 0.25 * cos(2.0 * pi / n), beta = (0.625 - t * t) / n;
        *e = n == 6 ? 1.0 / 12.0 : 1.0 / (n + 3.0 / (8.0 * beta));
        *self = n == 6 ? 0.5 : 1.0 - n * *e;
        return;
    }
    *f = 1.0 / ((double)n * (n + 5.0));
    *e = 4.0 * *f;
    *self = 1.0 - n * (*e + *f);
}

/* The limit position's weights of a crease vertex: self 2/3, each of its two crease
 * neighbours 1/6 (either scheme: the cubic B-spline along the crease). */
static inline MMX__HD void mmx__rule_limit_crease(double *self, double *e)
{
    *self = 4.0 / 6.0, *e = 1.0 / 6.0;
}

/* The two limit tangents' weights at a vertex, over its counter-clockwise ring of m edge
 * neighbours (entries 0 .. m-1 of t1e, t2e; m = n + 1 on a boundary) and n diagonals (t1f,
 * t2f; Catmull-Clark), and the vertex itself (t1v, t2v), for its kind (`kind`, with crease ends
 * c0 < c1). The normal is t1 x t2. Scale factors (which OpenSubdiv chooses for similar
 * magnitudes) do not change it and are kept. */
static inline MMX__HD void mmx__rule_limit_tangents(mmx_scheme scheme, int kind, int n, int m,
                                                    int c0, int c1, double *t1v, double *t1e,
                                                    double *t1f, double *t2v, double *t2e,
                                                    double *t2f)
{
    const double pi = 3.14159265358979323846;
    const int loop = scheme == MMX_SCHEME_LOOP;
    for (int i = 0; i < m; i++) t1e[i] = t2e[i] = 0.0;
    for (int i = 0; i < n; i++) t1f[i] = t2f[i] = 0.0;
    *t1v = *t2v = 0.0;
    if (scheme == MMX_SCHEME_BILINEAR || (!loop && kind == MMX__VERTEX_SMOOTH && n == 2))
        kind = MMX__VERTEX_CORNER;
    if (kind == MMX__VERTEX_CORNER) { /* along the first two edges */
        const double k = loop ? 3.0 : 1.0;
        *t1v = *t2v = -k;
        t1e[0] = k;
        if (m > 1) t2e[1] = k;
        return;
    }
    if (kind == MMX__VERTEX_CREASE) {
        /* Along the crease, from the trailing to the leading end; across the faces between. */
        t1e[c0] = loop ? 1.5 : 0.5, t1e[c1] = loop ? -1.5 : -0.5;
        const int k = c1 - c0 - 1; /* the edges strictly between the ends */
        if (loop) {
            if (k == 0) {
                *t2v = -6.0, t2e[c0] = t2e[c1] = 3.0;
            } else if (k == 1) {
                *t2v = -3.0, t2e[c0 + 1] = 3.0;
            } else if (k == 2) {
                const double r3 = 1.73205080756887729352;
                *t2v = -r3, t2e[c0] = t2e[c1] = -0.5 * r3, t2e[c0 + 1] = t2e[c0 + 2] = r3;
            } else {
                const double th = pi / (k + 1);
                t2e[c0] = t2e[c1] = -3.0 * sin(th);
                for (int i = 1; i <= k; i++) t2e[c0 + i] = -3.0 * (2.0 * cos(th) - 2.0) * sin(i * th);
            }
            return;
        }
        if (k == 0) {
            *t2v = -6.0, t2e[c0] = t2e[c1] = 3.0;
        } else if (k == 1) {
            *t2v = -4.0 / 6.0;
            t2e[c0] = t2e[c1] = -1.0 / 6.0, t2e[c0 + 1] = 4.0 / 6.0;
            t2f[c0] = t2f[c0 + 1] = 1.0 / 6.0;
        } else {
            const double kk = k + 1, th = pi / kk, ct = cos(th), st = sin(th);
            const double d = 1.0 / (kk * (3.0 + ct)), r = (ct + 1.0) / st;
            *t2v = 4.0 * r * (ct - 1.0) * d;
            t2e[c0] = t2e[c1] = -r * (1.0 + 2.0 * ct) * d;
            t2f[c0] = st * d;
            for (int i = 1; i < kk; i++) {
                t2e[c0 + i] = 4.0 * sin(i * th) * d;
                t2f[c0 + i] = (sin(i * th) + sin((i + 1) * th)) * d;
            }
        }
        return;
    }
    /* Smooth: the first tangent a cosine wave around the ring, the second the same a step on. */
    if (loop) {
        const double a = 2.0 * pi / n;
        for (int i = 0; i < n; i++) t1e[i] = cos(i * a), t2e[i] = sin(i * a);
        return;
    }
    const double th = 2.0 * pi / n, ct = cos(th);
    const double lambda = 0.3125 + 0.0625 * (ct + cos(0.5 * th) * sqrt(2.0 * (9.0 + ct)));
    for (int i = 0; i < n; i++) {
        t1e[i] = 4.0 * cos(i * th);
        t1f[i] = (cos(i * th) + cos((i + 1) * th)) / (4.0 * lambda - 1.0);
    }
    for (int i = 0; i < n; i++) {
        const int j = i == 0 ? n - 1 : i - 1;
        t2e[i] = t1e[j], t2f[i] = t1f[j];
    }
}

/* ---- children (subdiv.h's layout) ------------------------------------------------------------ */

/* Catmull-Clark: the child quad of corner s of a face (child number = the corner's number):
 * its vertex, the point of the edge leaving it, the face point, the point of the edge arriving
 * at it. */
static inline MMX__HD void mmx__rule_cc_child(mmx_index v, mmx_index e_leaving, mmx_index fpt,
                                              mmx_index e_arriving, mmx_index *q)
{
    q[0] = v, q[1] = e_leaving, q[2] = fpt, q[3] = e_arriving;
}

/* Loop (thesis Table 4.2): the four children of a triangle (v0, v1, v2) whose edges' points
 * are e[s] (edge s runs v_s -> v_s+1), stored together: the middle one (e0, e1, e2), then the
 * one at each corner s, (v_s, e_s, e_s-1). */
static inline MMX__HD void mmx__rule_loop_children(const mmx_index *v, const mmx_index *e,
                                                   mmx_index *t)
{
    t[0] = e[0], t[1] = e[1], t[2] = e[2];
    for (int s = 0; s < 3; s++) {
        t[3 + 3 * s] = v[s];
        t[4 + 3 * s] = e[s];
        t[5 + 3 * s] = e[s == 0 ? 2 : s - 1];
    }
}

/* sqrt3 (thesis Table 4.1): the child of corner s of a triangle: its vertex, the centre of the
 * face across the edge leaving it, the triangle's own centre. With a boundary (Kobbelt, above)
 * the same triangle in general terms: the edge v_s -> v_s+1 is flipped between the point that
 * this face's split puts opposite it (`centre`: the centre, or on an odd generation the cut
 * point l or r of the face's boundary edge next to it) and the one the face across puts
 * opposite it (`across`). A boundary edge s has no flip: its child is (v_s, v_s+1, centre) on an
 * even generation, (l, r, v_s+2) on an odd one. */
static inline MMX__HD void mmx__rule_sqrt3_child(mmx_index v, mmx_index across, mmx_index centre,
                                                 mmx_index *t)
{
    t[0] = v, t[1] = across, t[2] = centre;
}

#ifdef __cplusplus
}
#endif
#endif
