/* The edge split and edge collapse templates of the cavity operator (dynamic.h states their
 * rules): each builds a seed's cavity and checks it, and fills the kept ones into a new mesh.
 * A split adds a vertex and faces after the existing ones; a collapse removes a vertex and
 * faces and compacts the numbering, survivors in order. Also the triangle checks all the
 * templates share. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "dynamic_internal.h"

/* The triangle checks are flip_step.h's, the code the CUDA flips run too. */
void mmx__point(const float *pos, mmx_index v, double p[3])
{
    mmx__hd_point(pos, v, p);
}

void mmx__tri_normal(const double P[3], const double Q[3], const double R[3], double n[3])
{
    mmx__hd_tri_normal(P, Q, R, n);
}

int mmx__bad_triangle(const double P[3], const double Q[3], const double R[3], const double N[3])
{
    return mmx__hd_bad_triangle(P, Q, R, N);
}

/* Face f's corner where it runs {a, b}: i with {f[i], f[i+1]} = {a, b}. */
static int edge_corner(const mmx_index *f, mmx_index a, mmx_index b)
{
    for (int i = 0; i < 3; i++) {
        const mmx_index p = f[i], q = f[(i + 1) % 3];
        if ((p == a && q == b) || (p == b && q == a)) return i;
    }
    return -1;
}

/* The edge's faces into sd->faces (the one running it from its lower end first; a boundary
 * edge's only face, then -1) and ring; the number of them, 0 when the edge has three faces or
 * more or two that run it the same way. */
static int edge_faces(const mmx__flip_topo *t, mmx_index e, mmx_cavity_seed *sd, mmx_index *ring)
{
    const mmx_index f0 = t->hf[2 * (size_t)e], f1 = t->hf[2 * (size_t)e + 1];
    if (f0 < 0 && f1 < 0) return 0;
    sd->faces[0] = f0 >= 0 ? f0 : f1;
    sd->faces[1] = f0 >= 0 ? f1 : -1;
    ring[0] = sd->faces[0];
    if (sd->faces[1] >= 0) ring[1] = sd->faces[1];
    return sd->faces[1] >= 0 ? 2 : 1;
}

int mmx__split_cavity(const mmx__flip_topo *t, const float *pos, mmx_index e, mmx_cavity_seed *sd,
                      mmx_index *ring, mmx_index *nring)
{
    *nring = edge_faces(t, e, sd, ring);
    if (!*nring) return 0;
    if (!pos) return 1;
    const mmx_index a = t->adj->ev[2 * (size_t)e], b = t->adj->ev[2 * (size_t)e + 1];
    double A[3], B[3], M[3], C[3], n[3];
    mmx__point(pos, a, A);
    mmx__point(pos, b, B);
    for (int k = 0; k < 3; k++) M[k] = (double)(float)(0.5 * (A[k] + B[k])); /* as stored */
    for (mmx_index i = 0; i < *nring; i++) {
        const mmx_index *f = t->verts + 3 * (size_t)ring[i];
        const int j = edge_corner(f, a, b);
        double P[3], Q[3];
        mmx__point(pos, f[j], P);
        mmx__point(pos, f[(j + 1) % 3], Q);
        mmx__point(pos, f[(j + 2) % 3], C);
        mmx__tri_normal(P, Q, C, n);
        if (mmx__bad_triangle(P, M, C, n) || mmx__bad_triangle(M, Q, C, n)) return 0;
    }
    return 1;
}

/* 1 when u and v are neighbours: u is in column v of E (rows ascending). */
static int adjacent(const mmx__flip_topo *t, mmx_index u, mmx_index v)
{
    return u != v && mmx__flip_has_edge(t, u, v);
}

/* The number of common neighbours of a and b (E's columns a and b, rows ascending, merged). */
static mmx_index common_neighbours(const mmx__flip_topo *t, mmx_index a, mmx_index b)
{
    const mmx_csc *E = t->adj->E;
    mmx_index i = E->colptr[a], j = E->colptr[b], n = 0;
    while (i < E->colptr[a + 1] && j < E->colptr[b + 1]) {
        const mmx_index u = E->rowidx[i], v = E->rowidx[j];
        if (u < v) i++;
        else if (v < u) j++;
        else {
            n += u != a && u != b;
            i++, j++;
        }
    }
    return n;
}

/* The vertex of face f that is neither a nor b. */
static mmx_index third(const mmx__flip_topo *t, mmx_index f, mmx_index a, mmx_index b)
{
    const mmx_index *p = t->verts + 3 * (size_t)f;
    return p[0] != a && p[0] != b ? p[0] : p[1] != a && p[1] != b ? p[1] : p[2];
}

static int boundary_edge(const mmx__flip_topo *t, mmx_index u, mmx_index v)
{
    const mmx_index lo = u < v ? u : v, hi = u < v ? v : u;
    const mmx_index e = mmx__edge_find(t->adj->edge_ptr, t->adj->ev, lo, hi);
    return t->adj->sides[e] == 1;
}

int mmx__collapse_cavity(const mmx__flip_topo *t, const float *pos, mmx_index e,
                         mmx_cavity_seed *sd, mmx_index *ring, mmx_index *nring)
{
    const mmx_index a = t->adj->ev[2 * (size_t)e], b = t->adj->ev[2 * (size_t)e + 1];
    const unsigned char *bd = t->adj->boundary;
    mmx_index two[2] = {-1, -1};
    const int nf = edge_faces(t, e, sd, two);
    *nring = 0;
    if (!nf) return 0;
    /* The cavity: the faces at a, then those at b (the edge's faces twice). */
    for (mmx_index k = t->vf_ptr[a]; k < t->vf_ptr[a + 1]; k++) ring[(*nring)++] = t->vf[k];
    for (mmx_index k = t->vf_ptr[b]; k < t->vf_ptr[b + 1]; k++) ring[(*nring)++] = t->vf[k];
    const mmx_index c = third(t, two[0], a, b), d = nf == 2 ? third(t, two[1], a, b) : -1;
    if (nf == 2) {
        /* Interior: both ends interior, a quad that is no tetrahedron's (c-d no edge). */
        if (bd[a] || bd[b] || c == d || adjacent(t, c, d)) return 0;
    } else {
        /* Boundary: not an ear (a triangle with two boundary edges would lose its area). */
        if (boundary_edge(t, a, c) && boundary_edge(t, b, c)) return 0;
    }
    if (common_neighbours(t, a, b) != nf) return 0; /* the link condition */
    if (!pos) return 1;
    double A[3], B[3], M[3];
    mmx__point(pos, a, A);
    mmx__point(pos, b, B);
    for (int k = 0; k < 3; k++) M[k] = (double)(float)(0.5 * (A[k] + B[k])); /* as stored */
    for (mmx_index i = 0; i < *nring; i++) {
        const mmx_index f = ring[i], *v = t->verts + 3 * (size_t)f;
        if (f == two[0] || (nf == 2 && f == two[1])) continue;
        double P[3][3], Q[3][3], n[3];
        for (int k = 0; k < 3; k++) {
            mmx__point(pos, v[k], P[k]);
            if (v[k] == a || v[k] == b) memcpy(Q[k], M, sizeof M);
            else memcpy(Q[k], P[k], sizeof M);
        }
        mmx__tri_normal(P[0], P[1], P[2], n);
        if (mmx__bad_triangle(Q[0], Q[1], Q[2], n)) return 0; /* degenerate or folded */
    }
    return 1;
}

mmx_status mmx__split_fill(mmx_ctx *ctx, const mmx__flip_topo *t, const float *pos,
                           const mmx_index *seeds, mmx_cavity_seed *sd, const mmx_index *kept,
                           mmx_index nkept, mmx_mesh **out)
{
    mmx_index extra = 0;
    for (mmx_index i = 0; i < nkept; i++) extra += sd[kept[i]].faces[1] >= 0 ? 2 : 1;
    const mmx_index nv = t->nverts + nkept, nf = t->nfaces + extra;
    mmx_index *start = NULL, *verts = NULL;
    float *p = NULL;
    mmx_status s = mmx__host_alloc(ctx, (size_t)nf + 1, sizeof *start, (void **)&start);
    if (!s) s = mmx__host_alloc(ctx, 3 * (size_t)nf + 1, sizeof *verts, (void **)&verts);
    if (!s && pos) s = mmx__host_alloc(ctx, 3 * (size_t)nv + 1, sizeof *p, (void **)&p);
    if (!s) {
        for (mmx_index f = 0; f <= nf; f++) start[f] = 3 * f;
        memcpy(verts, t->verts, 3 * (size_t)t->nfaces * sizeof *verts);
        if (pos) memcpy(p, pos, 3 * (size_t)t->nverts * sizeof *p);
        mmx_index next = t->nfaces;
        for (mmx_index i = 0; i < nkept; i++) {
            mmx_cavity_seed *x = &sd[kept[i]];
            const mmx_index e = seeds[kept[i]], m = t->nverts + i;
            const mmx_index a = t->adj->ev[2 * (size_t)e], b = t->adj->ev[2 * (size_t)e + 1];
            x->vertex = m;
            if (pos)
                for (int k = 0; k < 3; k++)
                    p[3 * (size_t)m + k] = (float)(0.5 * ((double)pos[3 * (size_t)a + k] +
                                                          (double)pos[3 * (size_t)b + k]));
            for (int h = 0; h < 2 && x->faces[h] >= 0; h++) {
                mmx_index *f = verts + 3 * (size_t)x->faces[h], *g = verts + 3 * (size_t)next++;
                const int j = edge_corner(f, a, b);
                const mmx_index P = f[j], Q = f[(j + 1) % 3], C = f[(j + 2) % 3];
                f[0] = P, f[1] = m, f[2] = C; /* (a, m, c) in the face's own direction */
                g[0] = m, g[1] = Q, g[2] = C; /* (m, b, c) */
            }
        }
        s = mmx_mesh_from_faces(ctx, nv, nf, start, verts, p, out);
    }
    free(start);
    free(verts);
    free(p);
    return s;
}

mmx_status mmx__collapse_fill(mmx_ctx *ctx, const mmx__flip_topo *t, const float *pos,
                              const mmx_index *seeds, mmx_cavity_seed *sd, const mmx_index *kept,
                              mmx_index nkept, mmx_mesh **out)
{
    mmx_index *to = NULL, *gone = NULL, *start = NULL, *verts = NULL;
    float *p = NULL;
    mmx_status s = mmx__host_alloc(ctx, (size_t)t->nverts + 1, sizeof *to, (void **)&to);
    if (!s) s = mmx__host_alloc(ctx, (size_t)t->nfaces + 1, sizeof *gone, (void **)&gone);
    if (!s) s = mmx__host_alloc(ctx, (size_t)t->nfaces + 1, sizeof *start, (void **)&start);
    if (!s) s = mmx__host_alloc(ctx, 3 * (size_t)t->nfaces + 1, sizeof *verts, (void **)&verts);
    if (!s && pos) s = mmx__host_alloc(ctx, 3 * (size_t)t->nverts + 1, sizeof *p, (void **)&p);
    if (!s) {
        /* to[v]: the vertex v becomes (b -> a), then its number among the survivors. */
        for (mmx_index v = 0; v < t->nverts; v++) to[v] = v;
        memset(gone, 0, (size_t)t->nfaces * sizeof *gone);
        if (pos) memcpy(p, pos, 3 * (size_t)t->nverts * sizeof *p);
        for (mmx_index i = 0; i < nkept; i++) {
            const mmx_cavity_seed *x = &sd[kept[i]];
            const mmx_index e = seeds[kept[i]];
            const mmx_index a = t->adj->ev[2 * (size_t)e], b = t->adj->ev[2 * (size_t)e + 1];
            to[b] = a;
            gone[x->faces[0]] = 1;
            if (x->faces[1] >= 0) gone[x->faces[1]] = 1;
            if (pos)
                for (int k = 0; k < 3; k++)
                    p[3 * (size_t)a + k] = (float)(0.5 * ((double)pos[3 * (size_t)a + k] +
                                                          (double)pos[3 * (size_t)b + k]));
        }
        mmx_index nv = 0, nf = 0;
        for (mmx_index v = 0; v < t->nverts; v++) {
            if (to[v] != v) continue;
            if (p) memmove(p + 3 * (size_t)nv, p + 3 * (size_t)v, 3 * sizeof *p);
            to[v] = nv++;
        }
        /* A removed vertex b takes the new number of its a. */
        for (mmx_index i = 0; i < nkept; i++) {
            const mmx_index e = seeds[kept[i]];
            to[t->adj->ev[2 * (size_t)e + 1]] = to[t->adj->ev[2 * (size_t)e]];
            sd[kept[i]].vertex = to[t->adj->ev[2 * (size_t)e]];
        }
        for (mmx_index f = 0; f < t->nfaces; f++) {
            if (gone[f]) continue;
            for (int k = 0; k < 3; k++) verts[3 * (size_t)nf + k] = to[t->verts[3 * (size_t)f + k]];
            nf++;
        }
        for (mmx_index f = 0; f <= nf; f++) start[f] = 3 * f;
        s = mmx_mesh_from_faces(ctx, nv, nf, start, verts, p, out);
    }
    free(to);
    free(gone);
    free(start);
    free(verts);
    free(p);
    return s;
}
