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
    mmx_index *ptex_first; /* host, nfaces0 + 1 */
    mmx_index nnodes, npatches, npos, nlim, ngreg;
    mmx__limit_table_stats stats;
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

/* The sector of corner c (of a face of `order` corners) as OpenSubdiv's end caps see it: 0
 * when the corner cannot be one (a dart or a semi-sharp spoke or vertex unless semi_smooth (then taken as smooth, as OpenSubdiv's end caps do), a face
 * around it not of `order` corners, an inner vertex of fewer than 2 faces, or a boundary under
 * MMX_BOUNDARY_NONE). Open and infinitely sharp edges bound sectors: a vertex with some is a
 * boundary vertex of the sector holding c (exactly two: a boundary or a crease, smooth; more, an
 * infinitely sharp vertex, or one of several fans, open or closed: a sharp corner of its
 * fan, as OpenSubdiv sharpens a non-manifold vertex). The faces
 * around x are met from c across the edge arriving at x (c_{i+1} = the mate of the corner before
 * c_i), so that face i lies between edges i and i + 1; a sector's walk starts at the face whose
 * leaving edge bounds it (c0), the patch face then face fr of its n. */
typedef struct corner_sector {
    mmx_index x, val, c0;
    int n, fr, open, boundary, sharp;
} corner_sector;

static int sector_of(const mmx__halfedge *H, const float *es, const float *vs, mmx_index nv0,
                     mmx_boundary mode, int semi_smooth, mmx_index c, int order, corner_sector *S)
{
    const mmx_index x = H->M[c], val = H->valence[x];
    const float vx = vs && x < nv0 ? vs[x] : 0.0f;
    if (vx > 0.0f && vx < MMX__SHARP_INF && !semi_smooth) return 0;
    memset(S, 0, sizeof *S);
    S->x = x, S->val = val;
    /* The whole fan, from its open leaving edge if it has one: its singular edges (open or
     * infinitely sharp: OpenSubdiv's sector bounds); a semi-sharp spoke keeps the
     * interpolant. */
    mmx_index s0 = c;
    for (mmx_index steps = 0; H->mate[s0] >= 0;) {
        if (next_k(H, s0, order) != s0) return 0;
        s0 = next_k(H, H->mate[s0], 1);
        if (H->M[s0] != x) return 0;
        if (s0 == c) break;
        if (++steps > val) return 0;
    }
    const int open = H->mate[s0] < 0;
    int nsing = 0, nsemi = 0;
    mmx_index nfan = 0; /* the faces of c's fan */
    for (mmx_index i = 0, ci = s0; i < val; i++) {
        nfan++;
        if (next_k(H, ci, order) != ci) return 0;
        const float e = edge_sharpness(H, es, ci);
        if (H->mate[ci] < 0 || e >= MMX__SHARP_INF) nsing++;
        else if (e > 0.0f && !semi_smooth) return 0;
        else if (e > 0.0f) nsemi++;
        const mmx_index m = H->mate[next_k(H, ci, order - 1)];
        if (m < 0) {
            if (i != val - 1 && H->one_fan[x]) return 0;
            nsing++; /* the fan's closing open edge */
            break;
        }
        if (H->M[m] != x) return 0;
        if (m == s0) {
            if (H->one_fan[x] && i != val - 1) return 0;
            break;
        }
        if (i == val - 1) return 0;
        ci = m;
    }
    /* A vertex of several fans (OpenSubdiv's non-manifold vertex, infinitely sharp): the fan of
     * c, open or closed, a sharp corner (below). */
    if (open && mode != MMX_BOUNDARY_EDGE_ONLY && mode != MMX_BOUNDARY_EDGE_AND_CORNER) return 0;
    /* One infinitely sharp edge inside: a dart (no other sharp edge, no sharpness of its own),
     * whose whole ring OpenSubdiv takes as smooth (semi_smooth), the library's limit its mask
     * further down (else: the interpolant); with semi-sharp edges too (OpenSubdiv's corner
     * rule), its ring opened at that edge, a sharp corner of one sector. */
    if (nsing == 1 && !open) {
        if (!semi_smooth) return 0;
        if (nsemi == 0 && vx == 0.0f) nsing = 0;
    }
    /* The sector of c: back to its leading singular edge (fr faces before c), then its nf
     * faces; an inner vertex without singular edges is its whole ring. */
    mmx_index c0 = c;
    int fr = 0;
    while (nsing > 0 && !(H->mate[c0] < 0 || edge_sharpness(H, es, c0) >= MMX__SHARP_INF)) {
        c0 = next_k(H, H->mate[c0], 1);
        if (++fr > val) return 0;
    }
    int n = (int)nfan;
    if (nsing > 0) {
        n = 1;
        for (mmx_index ci = c0;; n++) {
            const mmx_index pc = next_k(H, ci, order - 1);
            if (H->mate[pc] < 0 || edge_sharpness(H, es, pc) >= MMX__SHARP_INF) break;
            ci = H->mate[pc];
            if (n > val) return 0;
        }
    }
    S->boundary = nsing > 0, S->open = open, S->c0 = c0, S->fr = fr, S->n = n;
    /* Sharp (P at x): more or fewer than two singular edges (a crease), or an infinitely sharp
     * vertex; a corner of one face by the boundary mode (the caller). */
    S->sharp = (nsing > 0 && nsing != 2) || vx >= MMX__SHARP_INF || !H->one_fan[x];
    return S->boundary || n >= 2;
}

/* One corner of a Catmull-Clark Gregory end cap: sector_of's walk, then the ring entries and
 * masks above. Inner vertex of valence n: P = (n^2 x + 4 sum e_i + sum f_i) / (n (n + 5)) (the
 * limit mask), Ep and Em = P + T_j, T_j the tangent aimed at edge j (0 and 1): sum over i of
 * c_{i-j} (2 e_{i-1} + f_{i-1} + 4 e_i + f_i + 2 e_{i+1}), c_m = s(n) cos(2 pi m / n) / (2 (n +
 * 5)). Boundary vertex of nf > 1 faces (angle t = pi / nf): P = (4 x + e_0 + e_nf) / 6, an edge
 * point on an open edge (2 x + e) / 3, on inner edge j P + sin(j t) T + cos(j t) (e_0 - e_nf) /
 * 6 with the interior tangent T (OpenSubdiv's weights: x -4 s/3, e_0 and e_nf -(1 + 2 c)
 * sqrt((1 + c) / (1 - c)) / 3, f_0 s / 3, e_i 4 sin(i t) / 3, f_i (sin(i t) + sin((i + 1) t)) /
 * 3, each over 3 nf + c). */
static int greg_ring(const mmx__halfedge *H, const float *es, const float *vs, mmx_index nv0,
                     mmx_boundary mode, int semi_smooth, const float *pos, mmx_index c,
                     greg_corner *k)
{
    corner_sector S;
    if (!sector_of(H, es, vs, nv0, mode, semi_smooth, c, 4, &S)) return 0;
    memset(k, 0, sizeof *k);
    const mmx_index x = S.x, val = S.val, c0 = S.c0;
    const int fr = S.fr, n = S.n, open = S.open;
    k->x = x, k->boundary = S.boundary, k->sharp = S.sharp;
    const double PI2 = 2.0 * GREG_PI;
    /* Inner: the tangent coefficient, OpenSubdiv's eigenvalue scale s(n) (1/2 for n = 4; 0 for
     * a vertex of two faces, whose edge points are its limit point) over 2 (n + 5); boundary:
     * the interior tangent's constants (th, bc, bs, div). */
    const double cn = cos(PI2 / n);
    const double sn = n == 2 ? 0.0 : 16.0 / (n * (cn + 5.0 + sqrt((cn + 9.0) * (cn + 1.0))));
    const double tc = k->boundary ? 0.0 : sn * 0.5 / (n + 5.0);
    const double th = GREG_PI / n, bc = cos(th), bs = sin(th), div = 1.0 / (3.0 * n + bc);
    double sum[3] = {0, 0, 0}, t0[3] = {0, 0, 0}, t1[3] = {0, 0, 0}, tb[3] = {0, 0, 0};
    mmx_index ci = c0, e0 = -1, en = -1;
    for (int i = 0; i < n; i++) {
        if (next_k(H, ci, 4) != ci) return 0;
        if (i > 0 || !k->boundary)
            if (H->mate[ci] < 0 || (!semi_smooth && !smooth_edge(H, es, ci))) return 0;
        /* (A sharp vertex's ring is walked for its face points' twist terms only.) */
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
            if (!k->boundary && m != c0) return 0;
            if (k->boundary) en = H->M[next_k(H, ci, 3)];
            break;
        }
        if (m < 0 || H->M[m] != x) return 0;
        ci = m;
    }
    if (k->sharp) {
        /* OpenSubdiv's sharp corner: P at x, the edge points a third of the way to the
         * patch's neighbouring corners (k->e[1], k->e[2]), face points by the ring. */
        if (k->boundary && fr + 1 == n) k->e[2] = en;
        if (k->boundary && fr + 2 == n) k->e[3] = en;
        k->nf = n, k->regular = 0;
        k->cosa = k->boundary ? cos(GREG_PI / n) : cos(PI2 / n);
        for (int d = 0; d < 3; d++) {
            k->P[d] = GREG_POS(x, d);
            k->Ep[d] = (2.0 * GREG_POS(x, d) + GREG_POS(k->e[1], d)) / 3.0;
            k->Em[d] = (2.0 * GREG_POS(x, d) + GREG_POS(k->e[2], d)) / 3.0;
        }
        if (k->boundary && n == 1) k->corner = 1, k->fp_reg = k->fm_reg = 1;
        else if (k->boundary) k->fp_copy = fr == 0, k->fm_copy = fr == n - 1;
        return 1;
    }
    if (!k->boundary) {
        const double w = 1.0 / (n * (n + 5.0));
        if (n == 2) k->e[3] = k->e[1]; /* e_2 = e_0 around two faces */
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
        /* A corner of one face: sharp (a boundary corner with edge-and-corner boundaries) or
         * smooth (edge only, or a crease's sector of one face). */
        k->corner = 1, k->cosa = -1.0;
        k->sharp = open && fr == 0 && mode == MMX_BOUNDARY_EDGE_AND_CORNER && val == 1;
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
                       mmx_boundary mode, int semi_smooth, const float *pos, mmx_index g,
                       float *q)
{
    mmx_index a, n;
    mmx__corner_face(H->order, H->colptr, H->nf, H->order ? g * H->order : H->colptr[g], &a, &n);
    if (n != 4) return 0;
    greg_corner K[4];
    for (int k = 0; k < 4; k++)
        if (!greg_ring(H, es, vs, nv0, mode, semi_smooth, pos, a + k, &K[k])) return 0;
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

/* One corner of a Loop Gregory end cap (OpenSubdiv's GREGORY_TRIANGLE, Far::LoopPatchBuilder's
 * construction, whose patches the table is held to): sector_of's walk, its ring r_0 .. r_{V-1}
 * (V = nf inside, nf + 1 on a boundary, r_j across edge j, r_fir the face's next corner and
 * r_{fir+1} its previous one), the cubic limit point P and edge points Ep, Em (towards the next
 * and the previous corner), cos of its face angle (1/2 where regular), and the flags of its face
 * points as greg_corner's. rel[r + 1] = r_{(fir + r) mod V} (r = -1 to 2), b[0 .. 3] = r_0 ..
 * r_3 (a regular boundary vertex's whole ring). */
typedef struct tri_corner {
    int nf, fir, boundary, sharp, regular, corner, ep_open, em_open;
    int fp_reg, fm_reg, fp_copy, fm_copy;
    double cosa;
    double P[3], Ep[3], Em[3];
    mmx_index x, rel[4], b[4];
} tri_corner;

/* Corner c of a triangle whose corners are X[0..2] (c's is X[k]) into t; 0 when sector_of
 * refuses it. The masks (Loop's limit masks, OpenSubdiv's scale of the tangents):
 *   inner, n faces: P = (1 - n w) x + w sum r_j, w = 1 / (n + 3 / (8 g)), g = (5/8 - b^2) / n,
 *     b = 3/8 + cos(2 pi / n) / 4; Ep = P + s sum_j cos(2 pi (j - fir) / n) r_j and Em the
 *     same at fir + 1, s = (3 + 2 cos(2 pi / n)) / (6 n);
 *   boundary of nf > 1 faces: P = (4 x + r_0 + r_nf) / 6; an edge point on an open edge
 *     (2 x + r) / 3; regular (nf = 3) on an inner edge x / 2 + (r_1 + r_2 + r_o) / 6, r_o the
 *     open edge's end on the far side from the other edge point's edge; else, at angle
 *     a = pi j / nf for edge j, P + sin(a) T / 24 + cos(a) (r_0 - r_nf) / 6, T the crease's
 *     cross tangent (nf = 2: 3 (r_1 - x); nf > 3, t = pi / nf: -3 sin(t) (r_0 + r_nf) +
 *     6 (1 - cos t) sum_{i=1}^{nf-1} sin(i t) r_i);
 *   a corner of one face: P = (4 x + X[k+1] + X[k-1]) / 6 (smooth) or x (sharp), edge points
 *     (2 x + X[k+-1]) / 3; a sharp vertex: P = x, edge points (2 x + X[k+-1]) / 3. */
static int tri_ring(const mmx__halfedge *H, const float *es, const float *vs, mmx_index nv0,
                    mmx_boundary mode, int semi_smooth, const float *pos, mmx_index c,
                    const mmx_index *X, int k, tri_corner *t)
{
    corner_sector S;
    if (!sector_of(H, es, vs, nv0, mode, semi_smooth, c, 3, &S)) return 0;
    memset(t, 0, sizeof *t);
    const mmx_index x = S.x;
    const int n = S.n, fir = S.fr, V = n + S.boundary;
    t->x = x, t->nf = n, t->fir = fir, t->boundary = S.boundary, t->sharp = S.sharp;
    if (n == 1 && S.boundary) {
        t->corner = 1;
        t->sharp |= S.open && fir == 0 && mode == MMX_BOUNDARY_EDGE_AND_CORNER && S.val == 1;
    }
    t->regular = (n << t->boundary) == 6 && !t->sharp;
    t->cosa = t->regular ? 0.5 : cos((t->boundary ? GREG_PI : 2.0 * GREG_PI) / n);
    t->ep_open = t->boundary && fir == 0, t->em_open = t->boundary && fir == n - 1;
    const mmx_index xn = X[(k + 1) % 3], xp = X[(k + 2) % 3];
    /* The ring, with the sums its masks need. */
    const double PI2 = 2.0 * GREG_PI, th = GREG_PI / n;
    double sum[3] = {0, 0, 0}, tp[3] = {0, 0, 0}, tm[3] = {0, 0, 0}, T[3] = {0, 0, 0};
    mmx_index ci = S.c0, r0 = -1, rn = -1;
    for (int i = 0; i < V; i++) {
        mmx_index r;
        if (i < n) {
            if (next_k(H, ci, 3) != ci) return 0;
            if (i > 0 || !t->boundary)
                if (H->mate[ci] < 0 || (!semi_smooth && !smooth_edge(H, es, ci))) return 0;
            r = H->M[next_k(H, ci, 1)];
        } else {
            r = H->M[next_k(H, ci, 2)]; /* the boundary's closing edge */
        }
        if (i == 0) r0 = r;
        if (i == V - 1) rn = r;
        if (i < 4) t->b[i] = r;
        for (int q = -1; q <= 2; q++)
            if (((fir + q) % V + V) % V == i) t->rel[q + 1] = r;
        for (int d = 0; d < 3; d++) {
            const double p = GREG_POS(r, d);
            sum[d] += p;
            tp[d] += cos(PI2 * (i - fir) / n) * p;
            tm[d] += cos(PI2 * (i - fir - 1) / n) * p;
            if (i > 0 && i < n) T[d] += 6.0 * (1.0 - cos(th)) * sin(i * th) * p;
        }
        if (i >= n - 1) continue;
        const mmx_index m = H->mate[next_k(H, ci, 2)];
        if (m < 0 || H->M[m] != x) return 0;
        ci = m;
    }
    if (!t->boundary && ci != S.c0 && H->mate[next_k(H, ci, 2)] != S.c0) return 0;
    for (int d = 0; d < 3; d++) {
        const double px = GREG_POS(x, d), pn = GREG_POS(xn, d), pp = GREG_POS(xp, d);
        double *P = &t->P[d], *Ep = &t->Ep[d], *Em = &t->Em[d];
        if (t->sharp) {
            *P = px, *Ep = (2.0 * px + pn) / 3.0, *Em = (2.0 * px + pp) / 3.0;
        } else if (!t->boundary) {
            const double cn = cos(PI2 / n), b = 0.375 + 0.25 * cn, g = (0.625 - b * b) / n;
            const double w = 1.0 / (n + 3.0 / (8.0 * g)), s = (3.0 + 2.0 * cn) / (6.0 * n);
            *P = (1.0 - n * w) * px + w * sum[d];
            *Ep = *P + s * tp[d], *Em = *P + s * tm[d];
        } else if (n == 1) {
            *P = (4.0 * px + pn + pp) / 6.0, *Ep = (2.0 * px + pn) / 3.0, *Em = (2.0 * px + pp) / 3.0;
        } else {
            const double a = GREG_POS(r0, d), z = GREG_POS(rn, d);
            *P = (4.0 * px + a + z) / 6.0;
            if (t->regular) {
                const double mid = (GREG_POS(t->b[1], d) + GREG_POS(t->b[2], d)) / 6.0;
                *Ep = px / 2.0 + mid + (t->em_open ? z : a) / 6.0;
                *Em = px / 2.0 + mid + (t->ep_open ? a : z) / 6.0;
            } else {
                const double cross = n == 2 ? 3.0 * (GREG_POS(t->b[1], d) - px)
                                            : -3.0 * sin(th) * (a + z) + T[d];
                const double ap = th * fir, am = th * (fir + 1);
                *Ep = *P + sin(ap) * cross / 24.0 + cos(ap) * (a - z) / 6.0;
                *Em = *P + sin(am) * cross / 24.0 + cos(am) * (a - z) / 6.0;
            }
            if (t->ep_open) *Ep = (2.0 * px + a) / 3.0;
            if (t->em_open) *Em = (2.0 * px + z) / 3.0;
        }
    }
    return 1;
}

/* Loop triangle g of a refined level as a Gregory end cap (OpenSubdiv's GREGORY_TRIANGLE at the
 * last isolation level): its 18 points into q (MMX__LIMIT_GREGORY's triangle order), 1; 0 when a
 * corner is not one tri_ring takes (such faces keep the interpolant). A quartic triangle whose
 * boundary curves are the cubics (P, Ep, Em', P') raised to degree 4 (edge points (P + 3 E) / 4,
 * the middle point (Ep + Em') / 2, or the box spline's own where both corners are regular), and
 * whose face points are, where regular, the box spline's, else (c' P + (4 - 2 c - c') E +
 * 2 c E') / 4 + 7/72 (r_{i+1} - r_{i-1}) (Fp, edge i = fir; Fm: minus, i = fir + 1), c and c' the
 * cosines of the near and far corner, E' the far corner's cubic edge point on the same edge. */
static int tri_gather(const mmx__halfedge *H, const float *es, const float *vs, mmx_index nv0,
                      mmx_boundary mode, int semi_smooth, const float *pos, mmx_index g, float *q)
{
    mmx_index a, n;
    mmx__corner_face(H->order, H->colptr, H->nf, H->order ? g * H->order : H->colptr[g], &a, &n);
    if (n != 3) return 0;
    const mmx_index X[3] = {H->M[a], H->M[a + 1], H->M[a + 2]};
    tri_corner K[3];
    for (int k = 0; k < 3; k++)
        if (!tri_ring(H, es, vs, nv0, mode, semi_smooth, pos, a + k, X, k, &K[k])) return 0;
    for (int k = 0; k < 3; k++) {
        tri_corner *c = &K[k];
        c->fp_reg = c->regular && K[(k + 1) % 3].regular;
        c->fm_reg = c->regular && K[(k + 2) % 3].regular;
        if (c->corner) c->fp_reg = c->fm_reg = 1;
        else if (c->boundary) {
            if (c->ep_open) c->fp_reg = c->fm_reg, c->fp_copy = !c->fp_reg;
            if (c->em_open) c->fm_reg = c->fp_reg, c->fm_copy = !c->fm_reg;
        }
    }
    for (int k = 0; k < 3; k++) {
        const tri_corner *c = &K[k], *nx = &K[(k + 1) % 3], *pv = &K[(k + 2) % 3];
        double F[2][3], M[3];
        for (int side = 0; side < 2; side++) { /* 0: Fp, 1: Fm */
            const int reg = side ? c->fm_reg : c->fp_reg, copy = side ? c->fm_copy : c->fp_copy;
            const tri_corner *far = side ? pv : nx;
            for (int d = 0; d < 3; d++) {
                const double px = GREG_POS(c->x, d);
                if (copy) continue;
                if (reg && c->corner) {
                    F[side][d] = px / 2.0 + (GREG_POS(nx->x, d) + GREG_POS(pv->x, d)) / 4.0;
                } else if (reg && c->ep_open) {
                    F[side][d] = (11.0 * px + 7.0 * GREG_POS(c->b[0], d) +
                                  5.0 * GREG_POS(c->b[1], d) + GREG_POS(c->b[2], d)) / 24.0;
                } else if (reg && c->em_open) {
                    F[side][d] = (11.0 * px + 7.0 * GREG_POS(c->b[3], d) +
                                  5.0 * GREG_POS(c->b[2], d) + GREG_POS(c->b[1], d)) / 24.0;
                } else if (reg) {
                    const mmx_index e1 = c->boundary ? c->b[0] : c->rel[0];
                    const mmx_index e2 = c->boundary ? c->b[3] : c->rel[3];
                    F[side][d] = (10.0 * px + GREG_POS(e1, d) + GREG_POS(e2, d)) / 24.0 +
                                 (GREG_POS(nx->x, d) + GREG_POS(pv->x, d)) / 4.0;
                } else {
                    const double E = side ? c->Em[d] : c->Ep[d], Ef = side ? far->Ep[d] : far->Em[d];
                    double r = (far->cosa * c->P[d] + (4.0 - 2.0 * c->cosa - far->cosa) * E +
                                2.0 * c->cosa * Ef) / 4.0;
                    if (!side) r += 7.0 / 72.0 * (GREG_POS(c->rel[2], d) - GREG_POS(c->rel[0], d));
                    else r -= 7.0 / 72.0 * (GREG_POS(c->rel[3], d) - GREG_POS(c->rel[1], d));
                    F[side][d] = r;
                }
            }
        }
        if (c->fp_copy) memcpy(F[0], F[1], sizeof F[0]);
        if (c->fm_copy) memcpy(F[1], F[0], sizeof F[1]);
        /* The middle point of the edge from corner k to k + 1. */
        const int open_edge = c->ep_open && nx->em_open, dart = c->ep_open != nx->em_open;
        for (int d = 0; d < 3; d++) {
            if (open_edge || (c->regular && nx->regular && !dart))
                M[d] = c->ep_open ? (GREG_POS(c->x, d) + GREG_POS(nx->x, d)) / 2.0
                                  : (GREG_POS(c->x, d) + GREG_POS(nx->x, d)) / 3.0 +
                                        (GREG_POS(pv->x, d) + GREG_POS(c->rel[0], d)) / 6.0;
            else
                M[d] = (c->Ep[d] + nx->Em[d]) / 2.0;
        }
        float *o = q + 15 * k;
        for (int d = 0; d < 3; d++) {
            o[d] = (float)c->P[d];
            o[3 + d] = (float)((c->P[d] + 3.0 * c->Ep[d]) / 4.0);
            o[6 + d] = (float)((c->P[d] + 3.0 * c->Em[d]) / 4.0);
            o[9 + d] = (float)F[0][d], o[12 + d] = (float)F[1][d];
            q[45 + 3 * k + d] = (float)M[d];
        }
    }
    return 1;
}

/* Loop triangle g of a refined level: its 12 control points into cv (MMX__LOOP_BOX_SPLINE's
 * order) when it is a box-spline patch, returning its kind (MMX__LIMIT_REGULAR, with
 * MMX__LIMIT_PHANTOM_EDGE(k) for each boundary edge k of g and MMX__LIMIT_PHANTOM_VERTEX(k) for a
 * boundary corner k on neither), else 0. Regular (OpenSubdiv's regular, boundary and corner
 * triangles): each corner of one fan, not sharp, its inner edges smooth, and either inner of
 * valence 6, or on the boundary with 3 faces, or (edge-and-corner boundaries) a corner of one
 * face. Around each corner x, from the triangle across its leaving edge, up to three triangles
 * on (and, on the boundary, from the one across its arriving edge back): their vertices
 * opposite x's spokes; the points missing must be exactly those beyond the boundary
 * (mmx__loop_phantoms' rules), which then carry weight 0 (cv holds corner 0 there). */
static int loop_gather(const mmx__halfedge *H, const float *es, const float *vs, mmx_index nv0,
                       mmx_boundary mode, mmx_index g, mmx_index *cv)
{
    /* The points beyond each boundary edge, and beyond each boundary corner. */
    static const int edge_ph[3] = {1 << 3 | 1 << 4 | 1 << 8, 1 << 6 | 1 << 7 | 1 << 11,
                                   1 << 5 | 1 << 9 | 1 << 10};
    static const int vert_ph[3] = {1 << 4 | 1 << 5, 1 << 7 | 1 << 8, 1 << 10 | 1 << 11};
    mmx_index a, n;
    mmx__corner_face(H->order, H->colptr, H->nf, H->order ? g * H->order : H->colptr[g], &a, &n);
    if (n != 3) return 0;
    int open = 0, bnd = 0, have = 0;
    for (int k = 0; k < 3; k++) {
        const mmx_index x = H->M[a + k], val = H->valence[x], f0 = H->first[x];
        const float vx = vs && x < nv0 ? vs[x] : 0.0f;
        if (H->mate[a + k] < 0) open |= 1 << k;
        /* g alone at x (both its edges there open): a fan of one face, which on a vertex of
         * several fans is a sharp corner (OpenSubdiv sharpens a non-manifold vertex and takes
         * a span of one face there as a corner patch). */
        const int lone = H->mate[a + k] < 0 && H->mate[next_k(H, a + k, 2)] < 0;
        if (!H->one_fan[x] || f0 < 0) {
            if (!lone || f0 < 0) return 0;
            bnd |= 1 << k;
            continue;
        }
        /* The fan from its start (whose arriving edge is open on the boundary): its inner
         * spokes smooth. A corner of one face is sharp by the boundary mode or an infinite
         * sharpness of its own (any other vertex sharpness: irregular). */
        const int b = H->mate[next_k(H, f0, 2)] < 0;
        const int corner = b && val == 1 && (mode == MMX_BOUNDARY_EDGE_AND_CORNER || vx >= MMX__SHARP_INF);
        if (b) bnd |= 1 << k;
        if ((b ? val != 3 && !corner : val != 6) || (vx > 0.0f && !corner)) return 0;
        mmx_index ci = f0;
        for (mmx_index i = 0; i < val; i++) {
            if (next_k(H, ci, 3) != ci) return 0;
            if (H->mate[ci] < 0) break;
            if (!smooth_edge(H, es, ci)) return 0;
            ci = next_k(H, H->mate[ci], 1);
        }
    }
    if (bnd && mode != MMX_BOUNDARY_EDGE_ONLY && mode != MMX_BOUNDARY_EDGE_AND_CORNER) return 0;
    for (int k = 0; k < 3; k++) {
        const mmx_index c = a + k, x = H->M[c];
        cv[k] = x, have |= 1 << k;
        mmx_index e = c; /* x's corner whose leaving edge is crossed next */
        for (int i = 0; i < 3 && H->mate[e] >= 0; i++) {
            const mmx_index m = H->mate[e];
            if (H->M[m] == x || next_k(H, m, 3) != m) return 0; /* twisted, or not a triangle */
            cv[3 + 3 * k + i] = H->M[next_k(H, m, 2)], have |= 1 << (3 + 3 * k + i);
            e = next_k(H, m, 1);
        }
        if (!(bnd >> k & 1)) continue;
        /* Back from the arriving edge: the previous corner's first point, then these. */
        e = next_k(H, c, 2);
        for (int i = 0; i < 4 && H->mate[e] >= 0; i++) {
            const mmx_index m = H->mate[e];
            if (H->M[m] != x || next_k(H, m, 3) != m) return 0;
            const mmx_index z = H->M[next_k(H, m, 2)];
            const int slot = i == 0 ? 3 + 3 * ((k + 2) % 3) : 3 + 3 * k + 3 - i;
            if ((have >> slot & 1) && cv[slot] != z) return 0;
            cv[slot] = z, have |= 1 << slot;
            e = next_k(H, m, 2);
        }
    }
    int ph = 0, kind = MMX__LIMIT_REGULAR;
    for (int k = 0; k < 3; k++) {
        if (open >> k & 1) ph |= edge_ph[k], kind |= MMX__LIMIT_PHANTOM_EDGE(k);
        else if ((bnd >> k & 1) && !(open >> ((k + 2) % 3) & 1))
            ph |= vert_ph[k], kind |= MMX__LIMIT_PHANTOM_VERTEX(k);
    }
    for (int q = 0; q < 12; q++) {
        if (!(have >> q & 1) == !(ph >> q & 1)) return 0;
        if (ph >> q & 1) cv[q] = cv[0];
    }
    return kind;
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

/* ---- the build: adaptive refinement around the features -------------------------------- */

/* The table as it is built (host arrays, grown as nodes, points and end caps come). Node p <
 * nptex is ptex face p's root (a cage quad or triangle, or a sub-face of another face at level
 * 1); a node is a patch (child -1: its kind and cv, as mmx__limit_patches says) or refined
 * (child: its four children's first, in the order of limit_eval.h's descent). */
typedef struct build {
    mmx_ctx *h;
    const char *who;
    mmx_scheme scheme;
    int iso;
    mmx_limit_caps caps;
    mmx_subdiv_options so;
    mmx_index nnodes, node_cap;
    mmx_index *child, *cv;
    unsigned char *kind;
    float *pos;
    int64_t npos, pos_cap; /* points (3 floats each) */
    float *greg;
    mmx_index ngreg, greg_cap;
    float *lim;
    mmx_index nlim;
    mmx__limit_table_stats stats;
} build;

static mmx_status grow(build *b, void **p, int64_t want, int64_t *cap, size_t size)
{
    if (want <= *cap) return MMX_OK;
    int64_t c = *cap ? *cap : 64;
    while (c < want) c *= 2;
    void *q = realloc(*p, (size_t)c * size);
    if (!q) return mmx__fail(b->h, MMX_ERR_NOMEM, "%s: no memory for the table", b->who);
    *p = q, *cap = c;
    return MMX_OK;
}

/* k new nodes (patches of kind 0 until set), the first's number into *first. */
static mmx_status nodes_add(build *b, mmx_index k, mmx_index *first)
{
    int64_t cap = b->node_cap, c2 = cap, c3 = cap;
    const int64_t want = (int64_t)b->nnodes + k;
    if (want > INT32_MAX)
        return mmx__fail(b->h, MMX_ERR_NOMEM, "%s: more than 2^31 patches", b->who);
    mmx_status s = grow(b, (void **)&b->child, want, &cap, sizeof *b->child);
    if (!s) s = grow(b, (void **)&b->kind, want, &c2, 1);
    if (!s) s = grow(b, (void **)&b->cv, want, &c3, MMX__LIMIT_NCV * sizeof *b->cv);
    if (s) return s;
    b->node_cap = cap;
    for (mmx_index i = b->nnodes; i < want; i++) {
        b->child[i] = -1, b->kind[i] = 0;
        memset(b->cv + (int64_t)MMX__LIMIT_NCV * i, 0, MMX__LIMIT_NCV * sizeof *b->cv);
    }
    *first = b->nnodes;
    b->nnodes = (mmx_index)want;
    return MMX_OK;
}

/* Appends a level's positions (n points); *base gets the first one's number. */
static mmx_status points_add(build *b, const float *pos, mmx_index n, mmx_index *base)
{
    if (b->npos + n > INT32_MAX)
        return mmx__fail(b->h, MMX_ERR_NOMEM, "%s: more than 2^31 control points", b->who);
    mmx_status s = grow(b, (void **)&b->pos, b->npos + n, &b->pos_cap, 3 * sizeof *b->pos);
    if (s) return s;
    if (n > 0) memcpy(b->pos + 3 * b->npos, pos, 3 * (size_t)n * sizeof *pos); /* pos may be NULL */
    *base = (mmx_index)b->npos;
    b->npos += n;
    return MMX_OK;
}

/* A level's view: its adjacency, half-edge view and sharp features (of its tags). */
typedef struct view {
    mmx_adjacency *adj;
    mmx__halfedge H;
    mmx__subdiv_sharp sh;
} view;

static void view_free(view *V)
{
    mmx__halfedge_free(&V->H);
    if (V->adj) mmx_adjacency_free(V->adj);
    mmx__subdiv_sharp_free(&V->sh);
    memset(V, 0, sizeof *V);
}

static mmx_status view_make(build *b, const mmx_mesh *m, view *V)
{
    memset(V, 0, sizeof *V);
    mmx_subdiv_options o;
    double ms = 0;
    mmx_status s = mmx__subdiv_prepare(b->h, b->who, b->scheme, m, 0, &b->so, 0, 0, &o, &V->adj,
                                       &ms, &V->sh);
    if (!s) s = mmx__halfedge_build(b->h, m, V->adj, &V->H);
    return s;
}

/* Face g of the level viewed by V (its points from `base`) as node nd's B-spline (Loop:
 * box-spline) patch where it is one: 1, else 0. */
static int leaf_regular(build *b, const view *V, mmx_index g, mmx_index base, mmx_index nd)
{
    mmx_index c[MMX__LIMIT_NCV] = {0};
    const mmx__halfedge *H = &V->H;
    const int kind = b->scheme == MMX_SCHEME_CATMULL_CLARK
                         ? cc_gather(H, V->sh.esharp, V->sh.vsharp, V->sh.nv0, V->sh.boundary, g, c)
                         : loop_gather(H, V->sh.esharp, V->sh.vsharp, V->sh.nv0, V->sh.boundary, g, c);
    if (!kind) return 0;
    b->kind[nd] = (unsigned char)kind;
    const int ncv = b->scheme == MMX_SCHEME_CATMULL_CLARK ? 16 : 12;
    for (int k = 0; k < ncv; k++) b->cv[(int64_t)MMX__LIMIT_NCV * nd + k] = base + c[k];
    b->stats.bspline++;
    return 1;
}

/* Face g of the last level R (viewed by V) as node nd's end cap: a Gregory patch where
 * greg_gather takes it, else the interpolant of its corners' limits (cv: the corners'
 * numbers in R, where b->lim will hold their limits; *interp set). */
static mmx_status leaf_last(build *b, const view *V, const mmx_mesh *R, mmx_index g,
                            mmx_index nd, int *interp)
{
    mmx_index *c = b->cv + (int64_t)MMX__LIMIT_NCV * nd;
    int64_t cap = b->greg_cap;
    mmx_status s = grow(b, (void **)&b->greg, (int64_t)b->ngreg + 1, &cap, 60 * sizeof *b->greg);
    if (s) return s;
    b->greg_cap = (mmx_index)cap;
    const mmx__halfedge *H = &V->H;
    const int semi_smooth = b->caps == MMX_LIMIT_CAPS_OPENSUBDIV;
    float *q = b->greg + 60 * (int64_t)b->ngreg;
    memset(q, 0, 60 * sizeof *q);
    if (b->scheme == MMX_SCHEME_CATMULL_CLARK
            ? greg_gather(H, V->sh.esharp, V->sh.vsharp, V->sh.nv0, V->sh.boundary, semi_smooth,
                          R->pos, g, q)
            : tri_gather(H, V->sh.esharp, V->sh.vsharp, V->sh.nv0, V->sh.boundary, semi_smooth,
                         R->pos, g, q)) {
        b->kind[nd] = MMX__LIMIT_GREGORY;
        c[0] = b->ngreg++;
        b->stats.gregory++;
        return MMX_OK;
    }
    const mmx_index order = b->scheme == MMX_SCHEME_LOOP ? 3 : 4;
    for (int k = 0; k < order; k++) c[k] = R->M->rowidx[(int64_t)order * g + k];
    b->kind[nd] = 0;
    b->stats.interpolated++;
    *interp = 1;
    return MMX_OK;
}

/* The first corner and the order of face f of M. */
static void face_of(const mmx_csc *M, mmx_index f, mmx_index *a, mmx_index *n)
{
    *a = M->order ? M->order * f : M->colptr[f];
    *n = M->order ? M->order : M->colptr[f + 1] - *a;
}

/* The submesh of m made of the faces within `rings` rings of the faces seed[0..ns) (m's
 * numbering; two rings: the faces sharing a vertex with one that shares a vertex with a seed;
 * none: the seeds), in m's face order, its
 * vertices numbered as they first appear: *sub, with its positions and the creases, corners
 * and options of m's tags that its vertices and edges carry (holes are left out: the table
 * keeps them); fmap[f] (m's faces, allocated here) is f's face in sub or -1, and vmap[v]
 * likewise for the vertices (where vmap_out is not NULL). Two rings are
 * what the next level needs exactly: the children of the seeds' one ring (what the next level
 * reads around them) are the same in sub's refinement as in m's, for their vertices' rings
 * lie in sub. Cost: O(m's corners). */
static mmx_status submesh(build *b, const mmx_mesh *m, const mmx_index *seed, mmx_index ns,
                          int rings, mmx_mesh **sub, mmx_index **fmap_out, mmx_index **vmap_out)
{
    const mmx_csc *M = m->M;
    const mmx_index nf = M->ncols, nv = M->nrows;
    const int64_t nnz = M->order ? (int64_t)M->order * nf : M->colptr[nf];
    mmx_index *vstart = calloc((size_t)nv + 1, sizeof *vstart);
    mmx_index *vfaces = malloc((size_t)(nnz ? nnz : 1) * sizeof *vfaces);
    mmx_index *fmap = malloc((size_t)(nf ? nf : 1) * sizeof *fmap);
    mmx_index *vmap = malloc((size_t)(nv ? nv : 1) * sizeof *vmap);
    unsigned char *fm = calloc((size_t)nf + 1, 1), *vm = calloc((size_t)nv + 1, 1);
    mmx_index *start = NULL, *verts = NULL;
    float *pos = NULL;
    mmx_mesh_tags *tg = NULL;
    mmx_index *cv = NULL, *kv = NULL;
    float *cs = NULL, *ks = NULL;
    mmx_status s = MMX_OK;
    if (!vstart || !vfaces || !fmap || !vmap || !fm || !vm) {
        s = mmx__fail(b->h, MMX_ERR_NOMEM, "%s: no memory for the refined region", b->who);
        goto done;
    }
    /* Each vertex's faces. */
    for (int64_t k = 0; k < nnz; k++) vstart[M->rowidx[k] + 1]++;
    for (mmx_index v = 0; v < nv; v++) vstart[v + 1] += vstart[v];
    for (mmx_index f = 0; f < nf; f++) {
        mmx_index a, n;
        face_of(M, f, &a, &n);
        for (mmx_index i = 0; i < n; i++) vfaces[vstart[M->rowidx[a + i]]++] = f;
    }
    for (mmx_index v = nv; v > 0; v--) vstart[v] = vstart[v - 1];
    vstart[0] = 0;
    for (mmx_index i = 0; i < ns; i++) fm[seed[i]] = 1;
    for (int ring = 0; ring < rings; ring++) {
        for (mmx_index f = 0; f < nf; f++) {
            if (!fm[f]) continue;
            mmx_index a, n;
            face_of(M, f, &a, &n);
            for (mmx_index i = 0; i < n; i++) vm[M->rowidx[a + i]] = 1;
        }
        for (mmx_index v = 0; v < nv; v++)
            if (vm[v])
                for (mmx_index k = vstart[v]; k < vstart[v + 1]; k++) fm[vfaces[k]] = 1;
    }
    /* Numbering, corners and positions. */
    mmx_index nfs = 0, nvs = 0;
    int64_t ncs = 0;
    for (mmx_index v = 0; v < nv; v++) vmap[v] = -1;
    for (mmx_index f = 0; f < nf; f++) {
        fmap[f] = -1;
        if (!fm[f]) continue;
        mmx_index a, n;
        face_of(M, f, &a, &n);
        fmap[f] = nfs++, ncs += n;
    }
    start = malloc(((size_t)nfs + 1) * sizeof *start);
    verts = malloc((size_t)(ncs ? ncs : 1) * sizeof *verts);
    pos = malloc(3 * ((size_t)nv + 1) * sizeof *pos);
    if (!start || !verts || !pos) {
        s = mmx__fail(b->h, MMX_ERR_NOMEM, "%s: no memory for the refined region", b->who);
        goto done;
    }
    ncs = 0;
    for (mmx_index f = 0; f < nf; f++) {
        if (fmap[f] < 0) continue;
        mmx_index a, n;
        face_of(M, f, &a, &n);
        start[fmap[f]] = (mmx_index)ncs;
        for (mmx_index i = 0; i < n; i++) {
            const mmx_index v = M->rowidx[a + i];
            if (vmap[v] < 0) {
                memcpy(pos + 3 * (int64_t)nvs, m->pos + 3 * (int64_t)v, 3 * sizeof *pos);
                vmap[v] = nvs++;
            }
            verts[ncs++] = vmap[v];
        }
    }
    start[nfs] = (mmx_index)ncs;
    s = mmx_mesh_from_faces(b->h, nvs, nfs, start, verts, pos, sub);
    if (s || !m->tags) goto done;
    s = mmx_mesh_tags_parse(b->h, m, &tg);
    if (s) goto done;
    {
        mmx_mesh_tags st = *tg;
        cv = malloc(2 * ((size_t)tg->ncreases + 1) * sizeof *cv);
        cs = malloc(((size_t)tg->ncreases + 1) * sizeof *cs);
        kv = malloc(((size_t)tg->ncorners + 1) * sizeof *kv);
        ks = malloc(((size_t)tg->ncorners + 1) * sizeof *ks);
        if (!cv || !cs || !kv || !ks) {
            s = mmx__fail(b->h, MMX_ERR_NOMEM, "%s: no memory for the refined region", b->who);
            goto done;
        }
        st.ncreases = 0, st.ncorners = 0, st.nholes = 0, st.holes = NULL;
        for (mmx_index k = 0; k < tg->ncreases; k++) {
            const mmx_index x = tg->crease_verts[2 * k], y = tg->crease_verts[2 * k + 1];
            if (vmap[x] < 0 || vmap[y] < 0) continue;
            /* Kept when the edge is one of sub's: a face of sub at x runs x, y or y, x. */
            int edge = 0;
            for (mmx_index q = vstart[x]; q < vstart[x + 1] && !edge; q++) {
                const mmx_index f = vfaces[q];
                if (fmap[f] < 0) continue;
                mmx_index a, n;
                face_of(M, f, &a, &n);
                for (mmx_index i = 0; i < n; i++) {
                    const mmx_index p0 = M->rowidx[a + i], p1 = M->rowidx[a + (i + 1) % n];
                    if ((p0 == x && p1 == y) || (p0 == y && p1 == x)) edge = 1;
                }
            }
            if (!edge) continue;
            cv[2 * st.ncreases] = vmap[x], cv[2 * st.ncreases + 1] = vmap[y];
            cs[st.ncreases++] = tg->crease_sharpness[k];
        }
        for (mmx_index k = 0; k < tg->ncorners; k++) {
            if (vmap[tg->corner_verts[k]] < 0) continue;
            kv[st.ncorners] = vmap[tg->corner_verts[k]];
            ks[st.ncorners++] = tg->corner_sharpness[k];
        }
        st.crease_verts = cv, st.crease_sharpness = cs, st.corner_verts = kv;
        st.corner_sharpness = ks;
        s = mmx_mesh_set_tags(b->h, *sub, &st);
    }
done:
    if (!s) *fmap_out = fmap, fmap = NULL;
    if (!s && vmap_out) *vmap_out = vmap, vmap = NULL;
    mmx_mesh_tags_free(tg);
    free(vstart), free(vfaces), free(fmap), free(vmap), free(fm), free(vm);
    free(start), free(verts), free(pos), free(cv), free(cs), free(kv), free(ks);
    return s;
}

/* The limits of R's vertices tr[0..nt) into b->lim: mmx_subdiv_limit's masks `extra` levels
 * further down, refining only the faces at those vertices (a vertex's ring at the next level,
 * and its limit mask there, read only its faces at this one: each level costs the same),
 * where vertices keep their numbers down the levels. */
static mmx_status target_limits(build *b, const mmx_mesh *R, const mmx_index *tr, mmx_index nt,
                                int extra)
{
    mmx_index *tv = malloc(((size_t)nt + 1) * sizeof *tv), *seed = NULL;
    mmx_status s = tv ? MMX_OK : mmx__fail(b->h, MMX_ERR_NOMEM, "%s: no memory for the limits", b->who);
    if (!s) memcpy(tv, tr, (size_t)nt * sizeof *tv); /* their numbers at the current level */
    const mmx_mesh *cur = R;
    mmx_mesh *own = NULL;
    float *lim = NULL;
    for (int e = 0; !s && e <= extra; e++) {
        /* The faces at a target alone, refined one level (or, after the last, their limits). */
        const mmx_csc *M = cur->M;
        unsigned char *at = calloc((size_t)M->nrows + 1, 1);
        seed = malloc(((size_t)M->ncols + 1) * sizeof *seed);
        mmx_index ns = 0, *fmap = NULL, *vmap = NULL;
        mmx_mesh *N = NULL, *C = NULL;
        if (!at || !seed) s = mmx__fail(b->h, MMX_ERR_NOMEM, "%s: no memory for the limits", b->who);
        for (mmx_index i = 0; !s && i < nt; i++) at[tv[i]] = 1;
        for (mmx_index f = 0; !s && f < M->ncols; f++) {
            mmx_index a, n;
            face_of(M, f, &a, &n);
            for (mmx_index i = 0; i < n; i++)
                if (at[M->rowidx[a + i]]) {
                    seed[ns++] = f;
                    break;
                }
        }
        if (!s) s = submesh(b, cur, seed, ns, 0, &N, &fmap, &vmap);
        for (mmx_index i = 0; !s && i < nt; i++) tv[i] = vmap[tv[i]];
        if (!s && e < extra) s = mmx_subdivide(b->h, b->scheme, N, 1, &b->so, &C);
        if (!s && e == extra) {
            s = mmx__host_alloc(b->h, 3 * (size_t)N->M->nrows + 3, sizeof *lim, (void **)&lim);
            if (!s) s = mmx_subdiv_limit(b->h, b->scheme, N, &b->so, lim, NULL);
        }
        free(at), free(seed), free(fmap), free(vmap);
        seed = NULL;
        mmx_mesh_free(N), mmx_mesh_free(own);
        own = C, cur = C;
    }
    for (mmx_index i = 0; !s && i < nt; i++)
        memcpy(b->lim + 3 * (int64_t)tr[i], lim + 3 * (int64_t)tv[i], 3 * sizeof *lim);
    free(lim), free(tv);
    mmx_mesh_free(own);
    return s;
}

/* The limits of the corners of the last level's interpolated patches (R, viewed by V) into
 * b->lim (R's vertices; the others 0): mmx_subdiv_limit's masks, which take a vertex's kind at
 * the level they are applied to without the blend of a semi-sharp feature still decaying, so
 * applied past the decay (semi_sharp_levels further down) at a vertex with a semi-sharp edge
 * or sharpness of its own, or a dart (whose smooth mask the library applies that far down
 * too), and at R elsewhere. */
static mmx_status last_limits(build *b, const view *V, const mmx_mesh *R)
{
    const int order = b->scheme == MMX_SCHEME_LOOP ? 3 : 4;
    const int extra = semi_sharp_levels(V->sh.esharp, V->adj->nedges, V->sh.vsharp, V->sh.nv0);
    const mmx__halfedge *H = &V->H;
    const float *es = V->sh.esharp, *vs = V->sh.vsharp;
    mmx_index *tr = NULL, nt[2] = {0, 0};
    unsigned char *mark = calloc((size_t)R->M->nrows + 1, 1);
    b->nlim = R->M->nrows;
    b->lim = calloc(3 * ((size_t)b->nlim + 1), sizeof *b->lim);
    mmx_status s = mark && b->lim ? MMX_OK
                                  : mmx__fail(b->h, MMX_ERR_NOMEM, "%s: no memory for the limits", b->who);
    /* The targets (1): the corners of the interpolated patches (leaf_last left them in cv);
     * 2 where a semi-sharp feature is at them. */
    for (mmx_index nd = 0; !s && nd < b->nnodes; nd++) {
        if (b->child[nd] >= 0 || b->kind[nd]) continue;
        for (int k = 0; k < order; k++) mark[b->cv[(int64_t)MMX__LIMIT_NCV * nd + k]] = 1;
    }
    unsigned char *nsharp = calloc((size_t)R->M->nrows + 1, 1);
    if (!s && !nsharp) s = mmx__fail(b->h, MMX_ERR_NOMEM, "%s: no memory for the limits", b->who);
    for (mmx_index c = 0; !s && c < H->nnz; c++) {
        const mmx_index x = H->M[c], y = H->M[next_k(H, c, 1)];
        const float e = edge_sharpness(H, es, c);
        if (e > 0.0f && e < MMX__SHARP_INF) {
            if (mark[x]) mark[x] = 2;
            if (mark[y]) mark[y] = 2;
        }
        if (e > 0.0f && (H->mate[c] < 0 || c < H->mate[c])) {
            if (nsharp[x] < 2) nsharp[x]++;
            if (nsharp[y] < 2) nsharp[y]++;
        }
        if (vs && x < V->sh.nv0 && vs[x] > 0.0f && vs[x] < MMX__SHARP_INF && mark[x]) mark[x] = 2;
    }
    /* A dart (one sharp edge) takes the smooth mask, which is not its limit: down too. */
    for (mmx_index v = 0; !s && v < R->M->nrows; v++)
        if (mark[v] && nsharp[v] == 1) mark[v] = 2;
    free(nsharp);
    for (mmx_index v = 0; v < R->M->nrows; v++)
        if (mark[v]) nt[mark[v] - 1]++;
    tr = malloc(((size_t)nt[0] + nt[1] + 1) * sizeof *tr);
    if (!s && !tr) s = mmx__fail(b->h, MMX_ERR_NOMEM, "%s: no memory for the limits", b->who);
    for (mmx_index v = 0, i = 0, j = nt[0]; !s && v < R->M->nrows; v++)
        if (mark[v] == 1) tr[i++] = v;
        else if (mark[v] == 2) tr[j++] = v;
    if (!s && nt[0]) s = target_limits(b, R, tr, nt[0], 0);
    if (!s && nt[1]) s = target_limits(b, R, tr + nt[0], nt[1], extra);
    free(mark), free(tr);
    return s;
}

/* Builds the nodes: the cage's regular faces are patches at level 0; the others (and every
 * face of another order than 4 under Catmull-Clark, whose ptex faces start at level 1) are
 * refined one level at a time, only they and their two rings (submesh), their children that
 * are regular becoming patches and the others refined further, down to `iso`, where the rest
 * become end caps. Cost: the cage's faces once, then per level the irregular faces' rings
 * (linear in the cage plus the features times the levels). */
static mmx_status build_nodes(build *b, const mmx_mesh *cage, const mmx_index *ptex_first)
{
    const mmx_csc *M0 = cage->M;
    const int cc = b->scheme == MMX_SCHEME_CATMULL_CLARK;
    mmx_index *pf = NULL, *pn = NULL, *qf = NULL, *qn = NULL, np = 0, nq = 0;
    int64_t pcap = 0, qcap = 0, pcap2 = 0, qcap2 = 0;
    view V;
    mmx_index base = 0, first = 0;
    mmx_status s = view_make(b, cage, &V);
    if (!s) s = nodes_add(b, ptex_first[M0->ncols], &first);
    if (!s) s = points_add(b, cage->pos, M0->nrows, &base);
    /* Level 0: pending (pf, pn) = the faces to refine and their nodes (-1 - f for a face whose
     * ptex faces are its children). */
    for (mmx_index f = 0; !s && f < M0->ncols; f++) {
        mmx_index a, n;
        face_of(M0, f, &a, &n);
        const int one = !cc || n == 4;
        if (one && leaf_regular(b, &V, f, base, ptex_first[f])) continue;
        s = grow(b, (void **)&pf, (int64_t)np + 1, &pcap, sizeof *pf);
        if (!s) s = grow(b, (void **)&pn, (int64_t)np + 1, &pcap2, sizeof *pn);
        if (!s) pf[np] = f, pn[np++] = one ? ptex_first[f] : -1 - f;
    }
    view_free(&V);
    const mmx_mesh *cur = cage;
    mmx_mesh *own = NULL;
    for (int l = 0; !s && l < b->iso && np > 0; l++) {
        mmx_mesh *N = NULL, *R = NULL;
        mmx_index *fmap = NULL;
        int interp = 0;
        s = submesh(b, cur, pf, np, 2, &N, &fmap, NULL);
        if (!s) s = mmx_subdivide(b->h, b->scheme, N, 1, &b->so, &R);
        if (!s) s = points_add(b, R->pos, R->M->nrows, &base);
        if (!s) s = view_make(b, R, &V);
        if (!s) b->stats.refined += R->M->ncols;
        nq = 0;
        for (mmx_index i = 0; !s && i < np; i++) {
            mmx_index a, n;
            const mmx_index h = fmap[pf[i]];
            face_of(N->M, h, &a, &n);
            /* Its children in R: a Catmull-Clark face's one per corner (at a + k), a Loop
             * triangle's four (4 h + k). */
            const mmx_index nch = cc ? n : 4, c0 = cc ? a : 4 * h;
            if (pn[i] < 0) first = ptex_first[-1 - pn[i]];
            else {
                s = nodes_add(b, 4, &first);
                if (!s) b->child[pn[i]] = first;
            }
            for (mmx_index k = 0; !s && k < nch; k++) {
                const mmx_index rf = c0 + k, nd = first + k;
                if (leaf_regular(b, &V, rf, base, nd)) continue;
                if (l + 1 == b->iso) {
                    s = leaf_last(b, &V, R, rf, nd, &interp);
                    continue;
                }
                s = grow(b, (void **)&qf, (int64_t)nq + 1, &qcap, sizeof *qf);
                if (!s) s = grow(b, (void **)&qn, (int64_t)nq + 1, &qcap2, sizeof *qn);
                if (!s) qf[nq] = rf, qn[nq++] = nd;
            }
        }
        if (!s && interp) s = last_limits(b, &V, R);
        view_free(&V);
        mmx_mesh_free(N), free(fmap);
        mmx_mesh_free(own);
        own = R, cur = R;
        mmx_index *t1 = pf, *t2 = pn;
        int64_t c1 = pcap, c2 = pcap2;
        pf = qf, pn = qn, np = nq, pcap = qcap, pcap2 = qcap2;
        qf = t1, qn = t2, qcap = c1, qcap2 = c2;
    }
    mmx_mesh_free(own);
    free(pf), free(pn), free(qf), free(qn);
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
    build b;
    memset(&b, 0, sizeof b);
    b.who = who, b.scheme = scheme, b.iso = iso;
    if (opts) b.so = opts->subdiv, b.caps = opts->caps;
    if (b.caps != MMX_LIMIT_CAPS_EXACT && b.caps != MMX_LIMIT_CAPS_OPENSUBDIV)
        return mmx__fail(ctx, MMX_ERR_ARG, "%s: caps %d is not an mmx_limit_caps", who,
                         (int)b.caps);
    b.so.trace = NULL, b.so.path = MMX_SUBDIV_PATH_AUTO, b.so.holes = MMX_HOLES_KEEP, b.so.limit = 0;

    /* The work runs on a host context of its own; its refusals are passed on as ctx's. */
    const mmx_mesh *hv = NULL;
    mmx_index *ptex_first = NULL;
    mmx_limit_table *t = NULL;
    mmx_status s = mmx_ctx_create(&b.h);
    if (s) return mmx__fail(ctx, s, "%s: no host context", who);
    s = mmx__mesh_host_view(ctx, mesh, &hv);
    const int from_h = s == MMX_OK; /* from here on, failures are h's */
    const mmx_index nf0 = hv ? hv->M->ncols : 0;
    /* Ptex faces: a quad's or a triangle's one, another face's one per corner. */
    if (!s) s = mmx__host_alloc(b.h, (size_t)nf0 + 1, sizeof *ptex_first, (void **)&ptex_first);
    int64_t np = 0;
    if (!s) {
        for (mmx_index f = 0; f < nf0; f++) {
            mmx_index a, n;
            face_of(hv->M, f, &a, &n);
            ptex_first[f] = (mmx_index)np;
            np += scheme == MMX_SCHEME_LOOP || n == 4 ? 1 : n;
        }
        ptex_first[nf0] = (mmx_index)np;
        if (np > INT32_MAX) s = mmx__fail(b.h, MMX_ERR_NOMEM, "%s: more than 2^31 ptex faces", who);
    }
    /* The checks of mmx_subdivide come first (bad faces, coordinates, non-manifold edges),
     * whatever the cage's regular faces: a one-level refinement of the cage would make them,
     * and building the views repeats them on the host. */
    if (!s) s = build_nodes(&b, hv, ptex_first);
    if (s && from_h) s = mmx__fail(ctx, s, "%s", mmx_ctx_error(b.h));
    if (!s) {
        t = calloc(1, sizeof *t);
        if (!t) s = mmx__fail(ctx, MMX_ERR_NOMEM, "%s: no memory for the table", who);
    }
    if (!s) {
        t->ctx = ctx, t->space = sp, t->nfaces0 = nf0, t->ptex_first = ptex_first;
        ptex_first = NULL;
        t->nnodes = b.nnodes, t->npos = (mmx_index)b.npos, t->nlim = b.nlim, t->ngreg = b.ngreg;
        t->stats = b.stats;
        t->T.loop = scheme == MMX_SCHEME_LOOP, t->T.nptex = (mmx_index)np;
        /* The patches numbered apart (-1 - q in child), their data moved down to q. */
        mmx_index q = 0;
        for (mmx_index g = 0; g < b.nnodes; g++) {
            if (b.child[g] >= 0) continue;
            memmove(b.cv + (int64_t)MMX__LIMIT_NCV * q, b.cv + (int64_t)MMX__LIMIT_NCV * g,
                    MMX__LIMIT_NCV * sizeof *b.cv);
            b.kind[q] = b.kind[g];
            b.child[g] = -1 - q++;
        }
        t->npatches = q;
        const size_t nn = (size_t)b.nnodes;
        s = upload(ctx, sp, b.child, nn * sizeof *b.child, (const void **)&t->T.child);
        if (!s) s = upload(ctx, sp, b.cv, (size_t)q * MMX__LIMIT_NCV * sizeof *b.cv, (const void **)&t->T.cv);
        if (!s) s = upload(ctx, sp, b.kind, (size_t)q, (const void **)&t->T.regular);
        if (!s) s = upload(ctx, sp, b.pos, 3 * (size_t)b.npos * sizeof *b.pos, (const void **)&t->T.pos);
        if (!s) s = upload(ctx, sp, b.lim, 3 * (size_t)b.nlim * sizeof *b.lim, (const void **)&t->T.lim);
        if (!s) s = upload(ctx, sp, b.greg, 60 * (size_t)b.ngreg * sizeof *b.greg, (const void **)&t->T.greg);
        /* The copies read host arrays freed below: wait for them (CUDA). */
        if (!s && sp != MMX_SPACE_HOST) s = mmx_ctx_sync(ctx);
    }
    if (hv) mmx__mesh_host_release(mesh, hv);
    free(b.child), free(b.cv), free(b.kind), free(b.pos), free(b.greg), free(b.lim);
    free(ptex_first);
    mmx_ctx_free(b.h);
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
    const int nq = mmx__limit_nq(du, dv, duu, duv, dvv);
    for (mmx_index i = 0; i < n; i++) {
        float o[18];
        if (mmx__limit_eval_point(&table->T, face[i], u[i], v[i], nq, o))
            return bad_point(ctx, table, i, face, u, v);
        for (int q = 0; q < nq; q++)
            if (outs[q]) memcpy(outs[q] + 3 * (int64_t)i, o + 3 * q, 3 * sizeof(float));
    }
    return MMX_OK;
}

const mmx__limit_patches *mmx__limit_table_patches(const mmx_limit_table *t, size_t *bytes)
{
    if (bytes)
        *bytes = (size_t)t->nnodes * sizeof(mmx_index) +
                 (size_t)t->npatches * (sizeof(mmx_index) * MMX__LIMIT_NCV + 1) +
                 3 * (size_t)(t->npos + t->nlim) * sizeof(float) +
                 60 * (size_t)t->ngreg * sizeof(float);
    return &t->T;
}

void mmx__limit_table_count(const mmx_limit_table *t, mmx__limit_table_stats *st)
{
    *st = t->stats;
}

void mmx_limit_table_free(mmx_limit_table *table)
{
    if (!table) return;
    const void *arrays[] = {table->T.child, table->T.cv,
                            table->T.regular, table->T.pos, table->T.lim, table->T.greg};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++)
        if (arrays[k]) mmx_mem_free(table->ctx, table->space, (void *)arrays[k]);
    free(table->ptex_first);
    free(table);
}
