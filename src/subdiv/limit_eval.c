/* The limit table (subdiv.h): the cage refined to the isolation level by mmx_subdivide, each
 * face of that level a patch (the bicubic B-spline of its 16 control points where regular,
 * else the interpolant of its corners' limit positions, mmx_subdiv_limit), built on the host
 * and copied to the context's space; points evaluated by limit_eval.h's rule, a host loop or
 * one CUDA thread per point. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "limit_eval.h"
#include "subdiv_internal.h"
#include "mesh/mesh_internal.h"

struct mmx_limit_table {
    mmx_ctx *ctx;
    mmx_space space;
    mmx__limit_patches T; /* its arrays in `space`, owned */
    mmx_index nfaces0;
    mmx_index *ptex_first;        /* host, nfaces0 + 1 */
    mmx_index nfaces_n, nverts_n; /* of the isolation level */
    mmx_index ngreg;              /* its Gregory end caps */
};

enum { DEFAULT_ISOLATION = 2, MAX_ISOLATION = 8 };
#define GREG_PI 3.14159265358979323846

/* Whether an edge (corner c's leaving edge) is smooth and inner: it has a mate and no
 * sharpness at this level. */
static int smooth_edge(const mmx__halfedge *H, const float *es, mmx_index c)
{
    return H->mate[c] >= 0 && (!es || es[H->fe[c] >> 1] == 0.0f);
}

/* The corner after c in its face, and after it k times. */
static mmx_index next_k(const mmx__halfedge *H, mmx_index c, int k)
{
    mmx_index a, n;
    mmx__corner_face(H->order, H->colptr, H->nf, c, &a, &n);
    for (int i = 0; i < k; i++) c = mmx__corner_next(a, n, c);
    return c;
}

/* Edge e's sharpness at this level (corner c's leaving edge): 0 without creases. */
static float edge_sharpness(const mmx__halfedge *H, const float *es, mmx_index c)
{
    return es ? es[H->fe[c] >> 1] : 0.0f;
}

/* Catmull-Clark quad g of a refined level: its 16 control points into cv (grid (i, j) at
 * 4 j + i, i along the edge from corner 0 to corner 1) when the face is a B-spline patch,
 * returning its kind (MMX__LIMIT_REGULAR, with MMX__LIMIT_PHANTOM_EDGE(k) for each boundary
 * or infinitely sharp edge k of g), else 0. Regular: each corner not sharp, of one fan, and
 * either inner of valence 4 with smooth edges, or inner of valence 4 on one infinitely sharp
 * edge of g that the crease continues straight across (its other edges smooth), or on one
 * boundary edge of g with valence 2, or (edge-and-corner boundaries) on two with valence 1:
 * OpenSubdiv's regular, boundary, corner and infinitely sharp patches, whose row or column of
 * control points beyond such an edge is the reflection 2 p1 - p2 of the two next to it (folded
 * into the basis at evaluation; cv holds the corner there, weighted 0). Then every point the
 * next level's patch over g needs comes from the regular, crease and boundary rules, so the
 * patch is the limit surface. The grid is read around each corner x (grid position in[k]):
 * across its leaving edge x -> y lies the face (y, x, beyond x, beyond y), and across that
 * face's edge x -> beyond x the diagonal face. */
static int cc_gather(const mmx__halfedge *H, const float *es, const float *vs, mmx_index nv0,
                     mmx_boundary mode, mmx_index g, mmx_index *cv)
{
    static const int in[4] = {5, 6, 10, 9};       /* (1,1) (2,1) (2,2) (1,2) */
    static const int bx[4] = {1, 7, 14, 8};       /* beyond x: (1,0) (3,1) (2,3) (0,2) */
    static const int by[4] = {2, 11, 13, 4};      /* beyond y: (2,0) (3,2) (1,3) (0,1) */
    static const int dg[4] = {0, 3, 15, 12};      /* diagonal: (0,0) (3,0) (3,3) (0,3) */
    mmx_index a, n;
    mmx__corner_face(H->order, H->colptr, H->nf, H->order ? g * H->order : H->colptr[g], &a, &n);
    if (n != 4) return 0;
    /* open: g's boundary edges; inf: its infinitely sharp inner ones; have: grid points read */
    int open = 0, inf = 0, have = 0;
    for (int k = 0; k < 4; k++) {
        if (H->mate[a + k] < 0) open |= 1 << k;
        else if (edge_sharpness(H, es, a + k) >= MMX__SHARP_INF) inf |= 1 << k;
    }
    if (open && mode != MMX_BOUNDARY_EDGE_ONLY && mode != MMX_BOUNDARY_EDGE_AND_CORNER) return 0;
    for (int k = 0; k < 4; k++) {
        const mmx_index c = a + k, x = H->M[c];
        const int prev = (k + 3) & 3;
        const int b = (open >> k & 1) + (open >> prev & 1), f = (inf >> k & 1) + (inf >> prev & 1);
        const mmx_index want = b == 0 ? 4 : b == 1 ? 2 : 1;
        if (H->valence[x] != want || !H->one_fan[x] || (vs && x < nv0 && vs[x] > 0.0f)) return 0;
        if ((b == 2 && mode != MMX_BOUNDARY_EDGE_AND_CORNER) || f > 1 || (f && b)) return 0;
        cv[in[k]] = x, have |= 1 << in[k];
        if (open >> k & 1) continue; /* the leaving edge is g's boundary: nothing across */
        /* Each spoke's sharpness must be what the patch assumes: infinite on g's sharp edge
         * and on the spoke that continues it (leaving edge sharp: x -> the point beyond x on
         * the far side; arriving edge sharp: x -> beyond x), 0 on the others. */
        const int along_leaving = inf >> k & 1, along_arriving = inf >> prev & 1;
        if (!along_leaving && edge_sharpness(H, es, c) != 0.0f) return 0;
        /* The face across x -> y, entered at y: (y, x, beyond x, beyond y). */
        const mmx_index m1 = H->mate[c];
        if (H->M[m1] == x || next_k(H, m1, 4) != m1) return 0; /* twisted, or not a quad */
        const mmx_index n1 = next_k(H, m1, 1);
        cv[bx[k]] = H->M[next_k(H, m1, 2)];
        cv[by[k]] = H->M[next_k(H, m1, 3)];
        have |= 1 << bx[k] | 1 << by[k];
        /* Across x -> beyond x, the diagonal face, entered at beyond x: (beyond x, x, the
         * point beyond x on the other side, the diagonal); a boundary vertex has none. */
        if (b) continue;
        const float s1 = edge_sharpness(H, es, n1);
        if (H->mate[n1] < 0 || (along_arriving ? s1 < MMX__SHARP_INF : s1 != 0.0f)) return 0;
        const mmx_index m2 = H->mate[n1];
        if (H->M[m2] == x || next_k(H, m2, 4) != m2) return 0;
        const mmx_index n2 = next_k(H, m2, 1);
        const float s2 = edge_sharpness(H, es, n2);
        if (H->mate[n2] < 0 || (along_leaving ? s2 < MMX__SHARP_INF : s2 != 0.0f)) return 0;
        cv[dg[k]] = H->M[next_k(H, m2, 3)], have |= 1 << dg[k];
    }
    /* The points not read must be exactly the rows and columns beyond g's boundary edges
     * (edge 0 the row j = 0, edge 1 the column i = 3, edge 2 the row j = 3, edge 3 the column
     * i = 0); beyond a sharp edge they were read, and are reflected all the same. */
    const int phantom_sides = open | inf;
    for (int q = 0; q < 16; q++) {
        const int i = q & 3, j = q >> 2;
        const int side = (j == 0 ? 1 : 0) | (i == 3 ? 2 : 0) | (j == 3 ? 4 : 0) | (i == 0 ? 8 : 0);
        if ((side & open) ? (have >> q & 1) : !(have >> q & 1)) return 0;
        if (side & phantom_sides) cv[q] = cv[5];
    }
    return MMX__LIMIT_REGULAR | phantom_sides << 1;
}

/* One corner of a Gregory end cap (OpenSubdiv's Far::CatmarkPatchBuilder, whose patches the
 * table is held to): its vertex x, its faces nf (and whether it is on the boundary, a smooth
 * corner of one face or a sharp one), the limit point P and the edge points Ep (towards the
 * next corner of the face) and Em (towards the previous one), cos of its face angle (0 where
 * regular, as OpenSubdiv takes it), which of its face points are the B-spline's (fp_reg,
 * fm_reg) or copies of the other (fp_copy, fm_copy), and the ring entries the face points
 * read: e[r + 1] the vertex across the edge r places on from the face's leaving edge (r = -1
 * to 2), f[r + 1] the vertex opposite x in the face r places on (r = -1 to 1). */
typedef struct greg_corner {
    int nf, boundary, corner, sharp, regular, fp_reg, fm_reg, fp_copy, fm_copy;
    double cosa;
    double P[3], Ep[3], Em[3];
    mmx_index x, e[4], f[3];
} greg_corner;

#define GREG_POS(v, d) ((double)pos[3 * (int64_t)(v) + (d)])

/* Walks the ring of corner c, filling k; 0 when the corner cannot be one (not of one fan,
 * sharp, a sharp spoke, a face around it not a quad, an inner vertex of valence < 3, or a
 * boundary under MMX_BOUNDARY_NONE). The faces around x are met from c across the edge
 * arriving at x (c_{i+1} = the mate of the corner before c_i), so that face i lies between
 * edges i and i + 1; a boundary vertex's walk starts at the face whose leaving edge is open
 * (the patch face is then face fr of nf). Inner vertex of valence n: P = (n^2 x + 4 sum e_i +
 * sum f_i) / (n (n + 5)) (the limit mask), Ep and Em = P + T_j, T_j the tangent aimed at edge
 * j (0 and 1): sum over i of c_{i-j} (2 e_{i-1} + f_{i-1} + 4 e_i + f_i + 2 e_{i+1}),
 * c_m = s(n) cos(2 pi m / n) / (2 (n + 5)). Boundary vertex of nf > 1 faces (angle
 * t = pi / nf): P = (4 x + e_0 + e_nf) / 6, an edge point on an open edge (2 x + e) / 3, on
 * inner edge j P + sin(j t) T + cos(j t) (e_0 - e_nf) / 6 with the interior tangent T
 * (OpenSubdiv's weights: x -4 s/3, e_0 and e_nf -(1 + 2 c) sqrt((1 + c) / (1 - c)) / 3, f_0
 * s / 3, e_i 4 sin(i t) / 3, f_i (sin(i t) + sin((i + 1) t)) / 3, each over 3 nf + c). */
static int greg_ring(const mmx__halfedge *H, const float *es, const float *vs, mmx_index nv0,
                     mmx_boundary mode, const float *pos, mmx_index c, greg_corner *k)
{
    const mmx_index x = H->M[c], val = H->valence[x];
    if (!H->one_fan[x] || (vs && x < nv0 && vs[x] > 0.0f)) return 0;
    memset(k, 0, sizeof *k);
    k->x = x;
    /* Back to the walk's start: the face whose leaving edge is open, if any. */
    mmx_index c0 = c;
    int fr = 0;
    while (H->mate[c0] >= 0) {
        if (next_k(H, c0, 4) != c0) return 0;
        c0 = next_k(H, H->mate[c0], 1);
        if (H->M[c0] != x) return 0;
        if (c0 == c) break;
        if (++fr > val) return 0;
    }
    k->boundary = H->mate[c0] < 0;
    if (!k->boundary) c0 = c, fr = 0;
    else if (mode != MMX_BOUNDARY_EDGE_ONLY && mode != MMX_BOUNDARY_EDGE_AND_CORNER) return 0;
    const int n = (int)val; /* its faces */
    if (!k->boundary && n < 3) return 0;
    const double PI2 = 2.0 * GREG_PI;
    /* Inner: the tangent coefficient; boundary: the interior tangent's constants. */
    const double tc = k->boundary ? 0.0 : 16.0 / (n * (cos(PI2 / n) + 5.0 + sqrt((cos(PI2 / n) + 9.0) * (cos(PI2 / n) + 1.0)))) * 0.5 / (n + 5.0);
    const double th = GREG_PI / n, bc = cos(th), bs = sin(th), div = 1.0 / (3.0 * n + bc);
    double sum[3] = {0, 0, 0}, t0[3] = {0, 0, 0}, t1[3] = {0, 0, 0}, tb[3] = {0, 0, 0};
    mmx_index ci = c0, e0 = -1, en = -1;
    for (int i = 0; i < n; i++) {
        if (next_k(H, ci, 4) != ci) return 0;
        if (i > 0 || !k->boundary)
            if (!smooth_edge(H, es, ci)) return 0;
        const mmx_index e = H->M[next_k(H, ci, 1)], f = H->M[next_k(H, ci, 2)];
        if (i == 0) e0 = e;
        /* Its place r relative to the patch face (an inner ring's last is also r = -1). */
        const int r = i - fr;
        if (r >= -1 && r <= 2) k->e[r + 1] = e;
        if (r >= -1 && r <= 1) k->f[r + 1] = f;
        if (!k->boundary && r == n - 1) k->e[0] = e, k->f[0] = f;
        for (int d = 0; d < 3; d++) {
            const double pe = GREG_POS(e, d), pf = GREG_POS(f, d);
            if (!k->boundary) {
                /* e_i's weight in T_j: 4 c_{i-j} + 2 c_{i+1-j} + 2 c_{i-1-j}; f_i's:
                 * c_{i-j} + c_{i+1-j}. */
                const double a = PI2 / n;
                const double we0 = 4.0 * cos(a * i) + 2.0 * cos(a * (i + 1)) + 2.0 * cos(a * (i - 1));
                const double we1 = 4.0 * cos(a * (i - 1)) + 2.0 * cos(a * i) + 2.0 * cos(a * (i - 2));
                const double wf0 = cos(a * i) + cos(a * (i + 1)), wf1 = cos(a * (i - 1)) + cos(a * i);
                sum[d] += 4.0 * pe + pf;
                t0[d] += tc * (we0 * pe + wf0 * pf);
                t1[d] += tc * (we1 * pe + wf1 * pf);
            } else {
                const double we = i == 0 ? -(1.0 + 2.0 * bc) * sqrt((1.0 + bc) / (1.0 - bc))
                                         : 4.0 * sin(th * i);
                const double wf = i == 0 ? bs : sin(th * i) + sin(th * (i + 1));
                tb[d] += div / 3.0 * (we * pe + wf * pf);
            }
        }
        const mmx_index m = H->mate[next_k(H, ci, 3)];
        if (i == n - 1) {
            if (k->boundary ? m >= 0 : m != c0) return 0;
            if (k->boundary) en = H->M[next_k(H, ci, 3)];
            break;
        }
        if (m < 0 || H->M[m] != x) return 0;
        ci = m;
    }
    if (!k->boundary) {
        const double w = 1.0 / (n * (n + 5.0));
        k->nf = n, k->regular = n == 4, k->cosa = n == 4 ? 0.0 : cos(PI2 / n);
        for (int d = 0; d < 3; d++) {
            k->P[d] = (double)n * n * w * GREG_POS(x, d) + w * sum[d];
            k->Ep[d] = k->P[d] + t0[d];
            k->Em[d] = k->P[d] + t1[d];
        }
        return 1;
    }
    k->nf = n;
    if (fr + 2 == n) k->e[3] = en; /* the edge after next is the closing open edge */
    if (fr + 1 == n) k->e[2] = en;
    const int ep_open = fr == 0, em_open = fr == n - 1;
    if (n == 1) {
        /* A corner of one face: sharp (edge-and-corner) or smooth (edge only). */
        k->corner = 1, k->sharp = mode == MMX_BOUNDARY_EDGE_AND_CORNER, k->cosa = -1.0;
        for (int d = 0; d < 3; d++) {
            k->P[d] = k->sharp ? GREG_POS(x, d)
                               : (4.0 * GREG_POS(x, d) + GREG_POS(e0, d) + GREG_POS(en, d)) / 6.0;
            k->Ep[d] = (2.0 * GREG_POS(x, d) + GREG_POS(e0, d)) / 3.0;
            k->Em[d] = (2.0 * GREG_POS(x, d) + GREG_POS(en, d)) / 3.0;
        }
        k->fp_reg = k->fm_reg = 1;
        return 1;
    }
    k->regular = n == 2, k->cosa = n == 2 ? 0.0 : cos(th);
    const double gx = -4.0 * bs * div / 3.0;
    for (int d = 0; d < 3; d++) {
        const double px = GREG_POS(x, d), pa = GREG_POS(e0, d), pb = GREG_POS(en, d);
        k->P[d] = (4.0 * px + pa + pb) / 6.0;
        /* The interior tangent: the ring's sum plus x's and e_nf's weights. */
        const double wen = -(1.0 + 2.0 * bc) * sqrt((1.0 + bc) / (1.0 - bc)) * div / 3.0;
        const double T = tb[d] + gx * px + wen * pb;
        const double ap = th * fr, am = th * (fr + 1);
        k->Ep[d] = ep_open ? (2.0 * px + pa) / 3.0
                           : k->P[d] + sin(ap) * T + cos(ap) * (pa - pb) / 6.0;
        k->Em[d] = em_open ? (2.0 * px + pb) / 3.0
                           : k->P[d] + sin(am) * T + cos(am) * (pa - pb) / 6.0;
    }
    k->fp_copy = ep_open, k->fm_copy = em_open;
    return 1;
}

/* Catmull-Clark quad g of a refined level as a Gregory end cap (OpenSubdiv's GREGORY_BASIS at
 * the last isolation level): its 20 points into q (MMX__LIMIT_GREGORY's order), 1; 0 when a
 * corner is not one greg_ring takes (such faces keep the interpolant). The face point beside
 * edge point E of corner k (towards corner j): where both are regular (or k is a corner of one
 * face), the B-spline's inner Bezier point (4 x_k + 2 x_{k+1} + 2 x_{k-1} + x_{k+2}) / 9; else
 * (cos_j P + (3 - 2 cos_k - cos_j) E + 2 cos_k E_j) / 3 plus the ring's twist around E's edge
 * i, +-((e_{i+1} - e_{i-1}) / 9 + (f_i - f_{i-1}) / 18), E_j being corner j's edge point on
 * the same edge; on a boundary vertex the face point beside its open edge copies the other. */
static int greg_gather(const mmx__halfedge *H, const float *es, const float *vs, mmx_index nv0,
                       mmx_boundary mode, const float *pos, mmx_index g, float *q)
{
    mmx_index a, n;
    mmx__corner_face(H->order, H->colptr, H->nf, H->order ? g * H->order : H->colptr[g], &a, &n);
    if (n != 4) return 0;
    greg_corner K[4];
    for (int k = 0; k < 4; k++)
        if (!greg_ring(H, es, vs, nv0, mode, pos, a + k, &K[k])) return 0;
    /* Which face points are the B-spline's, in OpenSubdiv's order of decision. */
    for (int k = 0; k < 4; k++) {
        greg_corner *c = &K[k];
        if (c->corner) continue;
        c->fp_reg = c->regular && K[(k + 1) & 3].regular;
        c->fm_reg = c->regular && K[(k + 3) & 3].regular;
        if (c->fp_copy) c->fp_reg = c->fm_reg, c->fp_copy = !c->fp_reg;
        if (c->fm_copy) c->fm_reg = c->fp_reg, c->fm_copy = !c->fm_reg;
    }
    for (int k = 0; k < 4; k++) {
        const greg_corner *c = &K[k], *nx = &K[(k + 1) & 3], *pv = &K[(k + 3) & 3];
        const greg_corner *op = &K[(k + 2) & 3];
        double F[2][3];
        for (int side = 0; side < 2; side++) { /* 0: Fp beside Ep, 1: Fm beside Em */
            const greg_corner *far = side ? pv : nx;
            const int reg = side ? c->fm_reg : c->fp_reg, copy = side ? c->fm_copy : c->fp_copy;
            if (copy) continue;
            for (int d = 0; d < 3; d++) {
                if (reg) {
                    F[side][d] = (4.0 * GREG_POS(c->x, d) + 2.0 * GREG_POS(nx->x, d) +
                                  2.0 * GREG_POS(pv->x, d) + GREG_POS(op->x, d)) / 9.0;
                    continue;
                }
                const double E = side ? c->Em[d] : c->Ep[d], Ej = side ? far->Ep[d] : far->Em[d];
                double r = (far->cosa * c->P[d] + (3.0 - 2.0 * c->cosa - far->cosa) * E +
                            2.0 * c->cosa * Ej) / 3.0;
                /* Fp: edge 0, sign +1; Fm: edge 1, sign -1. */
                if (!side)
                    r += (GREG_POS(c->e[2], d) - GREG_POS(c->e[0], d)) / 9.0 +
                         (GREG_POS(c->f[1], d) - GREG_POS(c->f[0], d)) / 18.0;
                else
                    r -= (GREG_POS(c->e[3], d) - GREG_POS(c->e[1], d)) / 9.0 +
                         (GREG_POS(c->f[2], d) - GREG_POS(c->f[1], d)) / 18.0;
                F[side][d] = r;
            }
        }
        if (c->fp_copy) memcpy(F[0], F[1], sizeof F[0]);
        if (c->fm_copy) memcpy(F[1], F[0], sizeof F[1]);
        float *o = q + 15 * k;
        for (int d = 0; d < 3; d++) {
            o[d] = (float)c->P[d], o[3 + d] = (float)c->Ep[d], o[6 + d] = (float)c->Em[d];
            o[9 + d] = (float)F[0][d], o[12 + d] = (float)F[1][d];
        }
    }
    return 1;
}

/* Loop triangle g of a refined level: its 12 control points into cv (MMX__LOOP_BOX_SPLINE's
 * order) when regular, returning 1; else 0. Regular: each corner an inner vertex of one fan,
 * valence 6, not sharp, its six edges smooth and inner. Around each corner x, from the triangle
 * across its leaving edge, three triangles on: their vertices opposite x's spokes. */
static int loop_gather(const mmx__halfedge *H, const float *es, const float *vs, mmx_index nv0,
                       mmx_index g, mmx_index *cv)
{
    mmx_index a, n;
    mmx__corner_face(H->order, H->colptr, H->nf, H->order ? g * H->order : H->colptr[g], &a, &n);
    if (n != 3) return 0;
    for (int k = 0; k < 3; k++) {
        const mmx_index c = a + k, x = H->M[c];
        if (H->valence[x] != 6 || !H->one_fan[x] || (vs && x < nv0 && vs[x] > 0.0f)) return 0;
        cv[k] = x;
        mmx_index e = c; /* x's corner whose leaving edge is crossed next */
        for (int i = 0; i < 3; i++) {
            if (!smooth_edge(H, es, e)) return 0;
            const mmx_index m = H->mate[e];
            if (H->M[m] == x || next_k(H, m, 3) != m) return 0; /* twisted, or not a triangle */
            cv[3 + 3 * k + i] = H->M[next_k(H, m, 2)];
            e = next_k(H, m, 1);
        }
        if (!smooth_edge(H, es, e)) return 0;
    }
    return 1;
}

/* The levels past `ref` after which no semi-sharp feature is left: the ceiling of the largest
 * finite sharpness of its edges (esharp, ne entries) and vertices (vsharp, nv0), at most
 * MAX_EXTRA. */
enum { MAX_EXTRA = 3 };
static int semi_sharp_levels(const float *esharp, mmx_index ne, const float *vsharp, mmx_index nv0)
{
    float smax = 0.0f;
    for (mmx_index e = 0; esharp && e < ne; e++)
        if (esharp[e] < MMX__SHARP_INF && esharp[e] > smax) smax = esharp[e];
    for (mmx_index v = 0; vsharp && v < nv0; v++)
        if (vsharp[v] < MMX__SHARP_INF && vsharp[v] > smax) smax = vsharp[v];
    const int k = (int)ceilf(smax);
    return k < MAX_EXTRA ? k : MAX_EXTRA;
}

/* The limit positions of ref's vertices into lim. The limit masks take each vertex's kind at
 * the level they are applied to, without the blend of a semi-sharp feature still decaying, so
 * where ref has such features they are applied that many levels further down (up to
 * MAX_EXTRA, and while the level stays under about 2^24 faces), where ref's vertices keep
 * their numbers. */
static mmx_status vertex_limits(mmx_ctx *h, mmx_scheme scheme, const mmx_mesh *ref,
                                const mmx_subdiv_options *so, int extra, float *lim)
{
    while (extra > 0 && (int64_t)ref->M->ncols << (2 * extra) > ((int64_t)1 << 24)) extra--;
    if (extra == 0) return mmx_subdiv_limit(h, scheme, ref, so, lim, NULL);
    mmx_mesh *deep = NULL;
    float *all = NULL;
    mmx_status s = mmx_subdivide(h, scheme, ref, extra, so, &deep);
    if (!s) s = mmx__host_alloc(h, 3 * (size_t)deep->M->nrows, sizeof *all, (void **)&all);
    if (!s) s = mmx_subdiv_limit(h, scheme, deep, so, all, NULL);
    if (!s) memcpy(lim, all, 3 * (size_t)ref->M->nrows * sizeof *all);
    free(all);
    mmx_mesh_free(deep);
    return s;
}

/* The patches of the refined mesh `ref` (host) into host arrays: cv, regular, lim, and the
 * Gregory end caps' points (*greg, grown here, *ngreg of them). */
static mmx_status build_patches(mmx_ctx *h, const char *who, mmx_scheme scheme,
                                const mmx_mesh *ref, const mmx_subdiv_options *so,
                                mmx_index *cv, unsigned char *regular, float *lim, float **greg,
                                mmx_index *ngreg)
{
    mmx_index cap = 0;
    mmx_subdiv_options o;
    mmx_adjacency *adj = NULL;
    mmx__subdiv_sharp sh;
    double ms = 0;
    mmx__halfedge H;
    memset(&H, 0, sizeof H);
    memset(&sh, 0, sizeof sh);
    mmx_status s = mmx__subdiv_prepare(h, who, scheme, ref, 0, so, 0, &o, &adj, &ms, &sh);
    if (!s) s = mmx__halfedge_build(h, ref, adj, &H);
    if (!s)
        s = vertex_limits(h, scheme, ref, so,
                          semi_sharp_levels(sh.esharp, adj->nedges, sh.vsharp, sh.nv0), lim);
    if (!s) {
        const mmx_index nf = ref->M->ncols, order = scheme == MMX_SCHEME_LOOP ? 3 : 4;
        for (mmx_index g = 0; g < nf; g++) {
            mmx_index *c = cv + (int64_t)MMX__LIMIT_NCV * g;
            regular[g] = scheme == MMX_SCHEME_CATMULL_CLARK
                             ? cc_gather(&H, sh.esharp, sh.vsharp, sh.nv0, sh.boundary, g, c)
                             : loop_gather(&H, sh.esharp, sh.vsharp, sh.nv0, g, c);
            if (!regular[g] && scheme == MMX_SCHEME_CATMULL_CLARK) {
                if (*ngreg == cap) {
                    cap = cap ? 2 * cap : 64;
                    float *p = realloc(*greg, (size_t)cap * 60 * sizeof *p);
                    if (!p) {
                        s = mmx__fail(h, MMX_ERR_NOMEM, "%s: no memory for the end caps", who);
                        break;
                    }
                    *greg = p;
                }
                if (greg_gather(&H, sh.esharp, sh.vsharp, sh.nv0, sh.boundary, ref->pos, g,
                                *greg + 60 * (int64_t)*ngreg)) {
                    regular[g] = MMX__LIMIT_GREGORY;
                    c[0] = (*ngreg)++;
                    for (int k = 1; k < MMX__LIMIT_NCV; k++) c[k] = 0;
                }
            }
            if (!regular[g])
                for (int k = 0; k < MMX__LIMIT_NCV; k++)
                    c[k] = k < order ? ref->M->rowidx[(int64_t)order * g + k] : 0;
        }
    }
    mmx__halfedge_free(&H);
    if (adj) mmx_adjacency_free(adj);
    mmx__subdiv_sharp_free(&sh);
    return s;
}

/* Copies n bytes of host array src into a new array of the table's space at *dst. */
static mmx_status upload(mmx_ctx *ctx, mmx_space sp, const void *src, size_t n, const void **dst)
{
    void *p = NULL;
    mmx_status s = mmx_mem_alloc(ctx, sp, n ? n : 1, &p);
    if (!s && n) s = mmx_mem_copy(ctx, p, sp, src, MMX_SPACE_HOST, n);
    *dst = p;
    return s;
}

mmx_status mmx_limit_table_create(mmx_ctx *ctx, mmx_scheme scheme, const mmx_mesh *mesh,
                                  const mmx_limit_options *opts, mmx_limit_table **out)
{
    MMX__NEED_CTX(ctx);
    const char *who = "mmx_limit_table_create";
    if (!out) return mmx__fail(ctx, MMX_ERR_ARG, "%s: out is NULL", who);
    *out = NULL;
    if (!mesh || !mesh->M || !mesh->pos)
        return mmx__fail(ctx, MMX_ERR_ARG, "%s: no mesh, or a mesh without positions", who);
    if (scheme != MMX_SCHEME_CATMULL_CLARK && scheme != MMX_SCHEME_LOOP) {
        const char *name = mmx_scheme_name(scheme);
        return mmx__fail(ctx, MMX_ERR_UNSUPPORTED, "%s: limit tables are made for Catmull-Clark "
                         "and Loop, not %s", who, name ? name : "this scheme");
    }
    const int iso = opts && opts->isolation ? opts->isolation : DEFAULT_ISOLATION;
    if (iso < 1 || iso > MAX_ISOLATION)
        return mmx__fail(ctx, MMX_ERR_ARG, "%s: isolation %d is outside 1 to %d", who, iso,
                         MAX_ISOLATION);
    const mmx_space sp = mmx_ctx_space(ctx);
    if (mesh->space != sp)
        return mmx__fail(ctx, MMX_ERR_SPACE, "%s: the mesh is not in the context's space", who);
    mmx_subdiv_options so;
    memset(&so, 0, sizeof so);
    if (opts) so = opts->subdiv;
    so.trace = NULL, so.path = MMX_SUBDIV_PATH_AUTO, so.holes = MMX_HOLES_KEEP, so.limit = 0;

    /* The work runs on a host context of its own; its refusals are passed on as ctx's. */
    mmx_ctx *h = NULL;
    const mmx_mesh *hv = NULL;
    mmx_mesh *ref = NULL;
    mmx_index *cv = NULL, *ptex_face = NULL, *ptex_first = NULL;
    unsigned char *regular = NULL, *ptex_quad = NULL;
    float *lim = NULL, *greg = NULL;
    mmx_index ngreg = 0;
    mmx_limit_table *t = NULL;
    mmx_status s = mmx_ctx_create(&h);
    if (s) return mmx__fail(ctx, s, "%s: no host context", who);
    s = mmx__mesh_host_view(ctx, mesh, &hv);
    const int from_h = s == MMX_OK; /* from here on, failures are h's */
    if (!s) s = mmx_subdivide(h, scheme, hv, iso, &so, &ref);
    const mmx_index nf0 = hv ? hv->M->ncols : 0;
    const mmx_index nf = ref ? ref->M->ncols : 0, nv = ref ? ref->M->nrows : 0;
    if (!s) s = mmx__host_alloc(h, (size_t)nf * MMX__LIMIT_NCV, sizeof *cv, (void **)&cv);
    if (!s) s = mmx__host_alloc(h, (size_t)nf, 1, (void **)&regular);
    if (!s) s = mmx__host_alloc(h, 3 * (size_t)nv, sizeof *lim, (void **)&lim);
    if (!s) s = build_patches(h, who, scheme, ref, &so, cv, regular, lim, &greg, &ngreg);
    /* Ptex faces: a quad's or a triangle's one, another face's one per corner. */
    if (!s) s = mmx__host_alloc(h, (size_t)nf0 + 1, sizeof *ptex_first, (void **)&ptex_first);
    int64_t np = 0;
    if (!s) {
        const mmx_csc *M = hv->M;
        for (mmx_index f = 0; f < nf0; f++) {
            const mmx_index n = M->order ? M->order : M->colptr[f + 1] - M->colptr[f];
            ptex_first[f] = (mmx_index)np;
            np += scheme == MMX_SCHEME_LOOP || n == 4 ? 1 : n;
        }
        ptex_first[nf0] = (mmx_index)np;
    }
    if (!s) s = mmx__host_alloc(h, (size_t)np, sizeof *ptex_face, (void **)&ptex_face);
    if (!s) s = mmx__host_alloc(h, (size_t)np, 1, (void **)&ptex_quad);
    if (!s) {
        const mmx_csc *M = hv->M;
        for (mmx_index f = 0; f < nf0; f++) {
            const mmx_index a = M->order ? M->order * f : M->colptr[f];
            const mmx_index p = ptex_first[f], k = ptex_first[f + 1] - p;
            for (mmx_index i = 0; i < k; i++) {
                ptex_face[p + i] = scheme == MMX_SCHEME_LOOP ? f : a + i;
                ptex_quad[p + i] = scheme != MMX_SCHEME_LOOP && k == 1;
            }
        }
    }
    if (s && from_h) s = mmx__fail(ctx, s, "%s", mmx_ctx_error(h));
    if (!s) {
        t = calloc(1, sizeof *t);
        if (!t) s = mmx__fail(ctx, MMX_ERR_NOMEM, "%s: no memory for the table", who);
    }
    if (!s) {
        t->ctx = ctx, t->space = sp, t->nfaces0 = nf0, t->ptex_first = ptex_first;
        t->nfaces_n = nf, t->nverts_n = nv;
        ptex_first = NULL;
        t->T.loop = scheme == MMX_SCHEME_LOOP, t->T.levels = iso, t->T.nptex = (mmx_index)np;
        s = upload(ctx, sp, ptex_face, (size_t)np * sizeof *ptex_face, (const void **)&t->T.ptex_face);
        if (!s) s = upload(ctx, sp, ptex_quad, (size_t)np, (const void **)&t->T.ptex_quad);
        if (!s) s = upload(ctx, sp, cv, (size_t)nf * MMX__LIMIT_NCV * sizeof *cv, (const void **)&t->T.cv);
        if (!s) s = upload(ctx, sp, regular, (size_t)nf, (const void **)&t->T.regular);
        if (!s) s = upload(ctx, sp, ref->pos, 3 * (size_t)nv * sizeof(float), (const void **)&t->T.pos);
        if (!s) s = upload(ctx, sp, lim, 3 * (size_t)nv * sizeof(float), (const void **)&t->T.lim);
        if (!s) s = upload(ctx, sp, greg, 60 * (size_t)ngreg * sizeof(float), (const void **)&t->T.greg);
        t->ngreg = ngreg;
        /* The copies read host arrays freed below: wait for them (CUDA). */
        if (!s && sp != MMX_SPACE_HOST) s = mmx_ctx_sync(ctx);
    }
    if (hv) mmx__mesh_host_release(mesh, hv);
    mmx_mesh_free(ref);
    free(cv), free(regular), free(lim), free(greg), free(ptex_face), free(ptex_quad), free(ptex_first);
    mmx_ctx_free(h);
    if (s) {
        mmx_limit_table_free(t);
        return s;
    }
    *out = t;
    return MMX_OK;
}

mmx_index mmx_limit_table_nptex(const mmx_limit_table *table)
{
    return table ? table->T.nptex : 0;
}

mmx_status mmx_limit_table_ptex(const mmx_limit_table *table, mmx_index face, mmx_index *first,
                                mmx_index *count)
{
    if (!table) return MMX_ERR_ARG;
    if (face < 0 || face >= table->nfaces0)
        return mmx__fail(table->ctx, MMX_ERR_ARG, "mmx_limit_table_ptex: face %d is not one of "
                         "the cage's %d", (int)face, (int)table->nfaces0);
    if (first) *first = table->ptex_first[face];
    if (count) *count = table->ptex_first[face + 1] - table->ptex_first[face];
    return MMX_OK;
}

/* The refusal of point i (its face and coordinates read on the host). */
static mmx_status bad_point(mmx_ctx *ctx, const mmx_limit_table *t, mmx_index i,
                            const mmx_index *face, const float *u, const float *v)
{
    mmx_index f = 0;
    float x[2] = {0.0f, 0.0f};
    mmx_status s = mmx_mem_copy(ctx, &f, MMX_SPACE_HOST, face + i, t->space, sizeof f);
    if (!s) s = mmx_mem_copy(ctx, x, MMX_SPACE_HOST, u + i, t->space, sizeof *x);
    if (!s) s = mmx_mem_copy(ctx, x + 1, MMX_SPACE_HOST, v + i, t->space, sizeof *x);
    if (!s && t->space != MMX_SPACE_HOST) s = mmx_ctx_sync(ctx);
    if (s) return s;
    if (f < 0 || f >= t->T.nptex)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_limit_table_eval: point %d: ptex face %d is not "
                         "one of the table's %d", (int)i, (int)f, (int)t->T.nptex);
    return mmx__fail(ctx, MMX_ERR_ARG, "mmx_limit_table_eval: point %d: (u, v) = (%g, %g) is "
                     "outside the %s", (int)i, (double)x[0], (double)x[1],
                     t->T.loop ? "triangle u, v >= 0, u + v <= 1" : "square [0, 1]^2");
}

mmx_status mmx_limit_table_eval(mmx_ctx *ctx, const mmx_limit_table *table, mmx_index n,
                                const mmx_index *face, const float *u, const float *v, float *P,
                                float *du, float *dv, float *duu, float *duv, float *dvv)
{
    MMX__NEED_CTX(ctx);
    const char *who = "mmx_limit_table_eval";
    if (!table) return mmx__fail(ctx, MMX_ERR_ARG, "%s: table is NULL", who);
    if (n < 0) return mmx__fail(ctx, MMX_ERR_ARG, "%s: n = %d is negative", who, (int)n);
    if (!P && !du && !dv && !duu && !duv && !dvv)
        return mmx__fail(ctx, MMX_ERR_ARG, "%s: every output is NULL", who);
    if (n == 0) return MMX_OK;
    if (!face || !u || !v) return mmx__fail(ctx, MMX_ERR_ARG, "%s: face, u or v is NULL", who);
    if (mmx_ctx_space(ctx) != table->space)
        return mmx__fail(ctx, MMX_ERR_SPACE, "%s: the table is not in the context's space", who);
    if (table->space != MMX_SPACE_HOST) {
        mmx_index *bad = NULL, hbad = n;
        mmx_status s = mmx_mem_alloc(ctx, table->space, sizeof *bad, (void **)&bad);
        if (!s) s = mmx_mem_copy(ctx, bad, table->space, &hbad, MMX_SPACE_HOST, sizeof hbad);
        if (!s) s = mmx__limit_eval_cuda(ctx, table->T, n, face, u, v, P, du, dv, duu, duv, dvv, bad);
        if (!s) s = mmx_mem_copy(ctx, &hbad, MMX_SPACE_HOST, bad, table->space, sizeof hbad);
        if (!s) s = mmx_ctx_sync(ctx);
        if (bad) mmx_mem_free(ctx, table->space, bad);
        if (!s && hbad < n) s = bad_point(ctx, table, hbad, face, u, v);
        return s;
    }
    float *outs[6] = {P, du, dv, duu, duv, dvv};
    for (mmx_index i = 0; i < n; i++) {
        float o[18];
        if (mmx__limit_eval_point(&table->T, face[i], u[i], v[i], o))
            return bad_point(ctx, table, i, face, u, v);
        for (int q = 0; q < 6; q++)
            if (outs[q]) memcpy(outs[q] + 3 * (int64_t)i, o + 3 * q, 3 * sizeof(float));
    }
    return MMX_OK;
}

const mmx__limit_patches *mmx__limit_table_patches(const mmx_limit_table *t, size_t *bytes)
{
    if (bytes)
        *bytes = (size_t)t->T.nptex * (sizeof(mmx_index) + 1) +
                 (size_t)t->nfaces_n * (MMX__LIMIT_NCV * sizeof(mmx_index) + 1) +
                 2 * 3 * (size_t)t->nverts_n * sizeof(float) + 60 * (size_t)t->ngreg * sizeof(float);
    return &t->T;
}

void mmx_limit_table_free(mmx_limit_table *table)
{
    if (!table) return;
    const void *arrays[] = {table->T.ptex_face, table->T.ptex_quad, table->T.cv,
                            table->T.regular, table->T.pos, table->T.lim, table->T.greg};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++)
        if (arrays[k]) mmx_mem_free(table->ctx, table->space, (void *)arrays[k]);
    free(table->ptex_first);
    free(table);
}
