/* mmx_subdivide_faces: Loop, Catmull-Clark and bilinear refinement of a face list whose faces
 * may name a vertex more than once (mmx_faces, mesh.h), and of two triangles glued along all
 * three edges (a pillow), as OpenSubdiv refines them.
 *
 * A mesh matrix knows an edge by its two ends, and a column cannot hold a vertex twice; neither
 * holds here, so this path carries the topology explicitly from level to level: each face's
 * corners and edges, each edge's two ends, its faces (one entry per occurrence) and its tags.
 * Edges are made once, from the input's corners, by OpenSubdiv's rule (level 0): a corner pair
 * names the edge already made for the same two vertices, except that a degenerate pair (a
 * vertex followed by itself) and a pair whose edge the same face already runs make a new edge.
 * Such edges, edges of three faces or more, and edges that two faces run the same way are
 * non-manifold; so are their vertices, and vertices whose faces form several fans. After that,
 * every child edge is made from its parent in closed form (two halves per parent edge, one
 * edge per parent corner inside the face), so two child edges may join the same two vertices,
 * as OpenSubdiv's do. Sharpness is infinite or zero (boundary and non-manifold edges; corners
 * and non-manifold vertices as OpenSubdiv's factory sharpens them); the rules are OpenSubdiv's:
 * a vertex is a corner when sharp or on three sharp edges or more, a crease on two, smooth
 * (or a dart) else; a sharp edge's point is its midpoint.
 *
 * This is the host reference for the inputs the mesh-matrix paths cannot hold, not a fast
 * path: O(corners) per level, all in double precision. Texture coordinates are refined
 * linearly in each face (OpenSubdiv's FVAR_LINEAR_ALL), one value per output corner. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "subdiv_internal.h"
#include "mesh/mesh_internal.h"
#include "rules.h"

/* One level's topology and tags, all on the host. */
typedef struct glevel {
    mmx_index nv, nf, ne, nc;  /* vertices, faces, edges, corners */
    mmx_index *fstart;         /* nf + 1 */
    mmx_index *fv, *fe;        /* per corner: its vertex; the edge from it to the next corner */
    mmx_index *cf;             /* per corner: its face */
    mmx_index *ev;             /* 2 per edge: its ends (the same vertex twice if degenerate) */
    mmx_index *efstart, *efc;  /* per edge: the corners that run it (one per occurrence) */
    mmx_index *vestart, *ve;   /* per vertex: its edges, once per end (a degenerate edge twice) */
    mmx_index *vfstart, *vfc;  /* per vertex: its corners */
    unsigned char *esharp;     /* per edge: infinitely sharp */
    unsigned char *enm;        /* per edge: non-manifold */
    unsigned char *vsharp;     /* per vertex: infinitely sharp (a corner) */
} glevel;

static void glevel_free(glevel *l)
{
    free(l->fstart), free(l->fv), free(l->fe), free(l->cf), free(l->ev), free(l->efstart);
    free(l->efc), free(l->vestart), free(l->ve), free(l->vfstart), free(l->vfc);
    free(l->esharp), free(l->enm), free(l->vsharp);
    memset(l, 0, sizeof *l);
}

static mmx_status galloc(mmx_ctx *ctx, size_t n, size_t size, void *p)
{
    return mmx__host_alloc(ctx, n ? n : 1, size, (void **)p);
}

/* Room for a level of the given counts (fstart, fv, fe, ev, tags); the incidences come from
 * glevel_incidence. */
static mmx_status glevel_alloc(mmx_ctx *ctx, glevel *l, mmx_index nv, mmx_index nf, mmx_index ne,
                               mmx_index nc)
{
    l->nv = nv, l->nf = nf, l->ne = ne, l->nc = nc;
    mmx_status s = galloc(ctx, (size_t)nf + 1, sizeof *l->fstart, &l->fstart);
    if (!s) s = galloc(ctx, (size_t)nc, sizeof *l->fv, &l->fv);
    if (!s) s = galloc(ctx, (size_t)nc, sizeof *l->fe, &l->fe);
    if (!s) s = galloc(ctx, 2 * (size_t)ne, sizeof *l->ev, &l->ev);
    if (!s) s = galloc(ctx, (size_t)ne, 1, &l->esharp);
    if (!s) s = galloc(ctx, (size_t)ne, 1, &l->enm);
    if (!s) s = galloc(ctx, (size_t)nv, 1, &l->vsharp);
    if (!s) memset(l->esharp, 0, (size_t)ne), memset(l->enm, 0, (size_t)ne), memset(l->vsharp, 0, (size_t)nv);
    return s;
}

/* A counting sort of n (key, value) pairs into start (nkeys + 1) and out (n), stable. */
static mmx_status bucket(mmx_ctx *ctx, mmx_index nkeys, mmx_index n, const mmx_index *key,
                         const mmx_index *val, mmx_index **start, mmx_index **out)
{
    mmx_status s = galloc(ctx, (size_t)nkeys + 1, sizeof **start, start);
    if (!s) s = galloc(ctx, (size_t)n, sizeof **out, out);
    if (s) return s;
    mmx_index *st = *start, *o = *out;
    memset(st, 0, ((size_t)nkeys + 1) * sizeof *st);
    for (mmx_index i = 0; i < n; i++) st[key[i] + 1]++;
    for (mmx_index k = 0; k < nkeys; k++) st[k + 1] += st[k];
    for (mmx_index i = 0; i < n; i++) o[st[key[i]]++] = val ? val[i] : i;
    for (mmx_index k = nkeys; k > 0; k--) st[k] = st[k - 1];
    st[0] = 0;
    return MMX_OK;
}

/* The incidences of a level whose fstart, fv, fe and ev are set: cf, edge-corners,
 * vertex-edges, vertex-corners. */
static mmx_status glevel_incidence(mmx_ctx *ctx, glevel *l)
{
    mmx_index *key = NULL;
    mmx_status s = galloc(ctx, (size_t)l->nc, sizeof *l->cf, &l->cf);
    for (mmx_index f = 0; !s && f < l->nf; f++)
        for (mmx_index k = l->fstart[f]; k < l->fstart[f + 1]; k++) l->cf[k] = f;
    if (!s) s = bucket(ctx, l->ne, l->nc, l->fe, NULL, &l->efstart, &l->efc);
    if (!s) s = bucket(ctx, l->nv, l->nc, l->fv, NULL, &l->vfstart, &l->vfc);
    /* Each edge once per end: keys are ev itself, values the edge (ev index / 2). */
    if (!s) s = galloc(ctx, 2 * (size_t)l->ne, sizeof *key, &key);
    for (mmx_index i = 0; !s && i < 2 * l->ne; i++) key[i] = i / 2;
    if (!s) s = bucket(ctx, l->nv, 2 * l->ne, l->ev, key, &l->vestart, &l->ve);
    free(key);
    return s;
}

/* An open-addressing table from an unordered vertex pair to the first edge made for it. */
typedef struct pair_table {
    uint64_t *key;
    mmx_index *edge;
    size_t mask;
} pair_table;

static uint64_t pair_key(mmx_index a, mmx_index b)
{
    const uint64_t lo = (uint64_t)(uint32_t)(a < b ? a : b), hi = (uint64_t)(uint32_t)(a < b ? b : a);
    return (hi << 32 | lo) + 1; /* 0 marks an empty slot */
}

static size_t pair_slot(const pair_table *t, uint64_t k)
{
    uint64_t h = k * 0x9e3779b97f4a7c15ull;
    size_t i = (size_t)(h ^ (h >> 29)) & t->mask;
    while (t->key[i] && t->key[i] != k) i = (i + 1) & t->mask;
    return i;
}

/* Level 0 from the face lists, with OpenSubdiv's edges and non-manifold tags. */
static mmx_status level0(mmx_ctx *ctx, const mmx_faces *in, mmx_boundary boundary, glevel *l)
{
    const mmx_index nv = in->nverts, nf = in->nfaces, nc = in->start[nf];
    mmx_index ne = 0, *last = NULL, *nfaces = NULL, *ev = NULL, *fe = NULL, *ufind = NULL;
    unsigned char *enm = NULL, *vnm = NULL;
    pair_table t = {0};
    size_t cap = 16;
    while (cap < 2 * (size_t)nc + 2) cap *= 2;
    t.mask = cap - 1;
    mmx_status s = galloc(ctx, cap, sizeof *t.key, &t.key);
    if (!s) s = galloc(ctx, cap, sizeof *t.edge, &t.edge);
    /* At most one edge per corner. */
    if (!s) s = galloc(ctx, (size_t)nc, sizeof *last, &last);
    if (!s) s = galloc(ctx, (size_t)nc, sizeof *nfaces, &nfaces);
    if (!s) s = galloc(ctx, 2 * (size_t)nc, sizeof *ev, &ev);
    if (!s) s = galloc(ctx, (size_t)nc, sizeof *fe, &fe);
    if (!s) s = galloc(ctx, (size_t)nc, 1, &enm);
    if (!s) s = galloc(ctx, (size_t)nv, 1, &vnm);
    if (s) goto done;
    memset(t.key, 0, cap * sizeof *t.key);
    memset(enm, 0, (size_t)nc);
    memset(vnm, 0, (size_t)nv);
    for (mmx_index f = 0; f < nf; f++) {
        const mmx_index b = in->start[f], n = in->start[f + 1] - b;
        for (mmx_index i = 0; i < n; i++) {
            const mmx_index v0 = in->verts[b + i], v1 = in->verts[b + (i + 1) % n];
            mmx_index e = -1;
            size_t slot = 0;
            if (v0 != v1) {
                slot = pair_slot(&t, pair_key(v0, v1));
                if (t.key[slot]) e = t.edge[slot];
            } else {
                enm[ne] = 1; /* degenerate: always a new, non-manifold edge */
            }
            if (e >= 0) {
                if (last[e] == f) { /* this face runs it already: a new instance */
                    enm[e] = 1, enm[ne] = 1;
                    e = -1;
                } else if (nfaces[e] > 1 || ev[2 * e] == v0) {
                    enm[e] = 1; /* a third face, or two faces running it the same way */
                }
            }
            if (e < 0) {
                e = ne++;
                ev[2 * e] = v0, ev[2 * e + 1] = v1;
                nfaces[e] = 0;
                if (v0 != v1 && !t.key[slot]) t.key[slot] = pair_key(v0, v1), t.edge[slot] = e;
            }
            nfaces[e]++;
            last[e] = f;
            fe[b + i] = e;
        }
    }
    if ((s = glevel_alloc(ctx, l, nv, nf, ne, nc))) goto done;
    memcpy(l->fstart, in->start, ((size_t)nf + 1) * sizeof *l->fstart);
    memcpy(l->fv, in->verts, (size_t)nc * sizeof *l->fv);
    memcpy(l->fe, fe, (size_t)nc * sizeof *l->fe);
    memcpy(l->ev, ev, 2 * (size_t)ne * sizeof *l->ev);
    memcpy(l->enm, enm, (size_t)ne);
    if ((s = glevel_incidence(ctx, l))) goto done;
    for (mmx_index e = 0; e < ne; e++)
        if (l->enm[e]) vnm[l->ev[2 * e]] = vnm[l->ev[2 * e + 1]] = 1;
    /* The others are non-manifold when their faces do not make one fan: the edge and face
     * counts OpenSubdiv requires, and the corners at the vertex joined through its edges of
     * two faces into one set (union-find on the corners' places in vfc; `at` holds each
     * corner's place, so every edge is looked at once from each end: linear in the corners). */
    mmx_index *at = NULL;
    if ((s = galloc(ctx, (size_t)nc, sizeof *ufind, &ufind))) goto done;
    if ((s = galloc(ctx, (size_t)nc, sizeof *at, &at))) goto done;
    for (mmx_index i = 0; i < nc; i++) ufind[i] = i, at[l->vfc[i]] = i;
    for (mmx_index v = 0; v < nv; v++) {
        if (vnm[v]) continue;
        const mmx_index fb = l->vfstart[v], fc = l->vfstart[v + 1] - fb;
        const mmx_index ec = l->vestart[v + 1] - l->vestart[v];
        if (fc == 0 || ec < 2 || ec - fc > 1 || ec < fc) {
            vnm[v] = 1;
            continue;
        }
        for (mmx_index j = l->vestart[v]; j < l->vestart[v + 1]; j++) {
            const mmx_index e = l->ve[j];
            if (l->efstart[e + 1] - l->efstart[e] != 2) continue;
            /* Each face's corner at v: the one that runs e, or the next one in its face. */
            mmx_index r[2];
            for (int t = 0; t < 2; t++) {
                const mmx_index k = l->efc[l->efstart[e] + t], f = l->cf[k];
                const mmx_index b = l->fstart[f], n = l->fstart[f + 1] - b;
                r[t] = at[l->fv[k] == v ? k : b + (k - b + 1) % n];
                while (ufind[r[t]] != r[t]) r[t] = ufind[r[t]];
            }
            if (r[0] != r[1]) ufind[r[0] > r[1] ? r[0] : r[1]] = r[0] < r[1] ? r[0] : r[1];
        }
        mmx_index roots = 0;
        for (mmx_index i = fb; i < fb + fc; i++) roots += ufind[i] == i;
        if (roots != 1) vnm[v] = 1;
    }
    free(at);
    /* OpenSubdiv's factory: boundary and non-manifold edges infinitely sharp; a vertex
     * sharpened when a corner of one face (edge-and-corner boundaries), or non-manifold
     * unless on an interior non-manifold crease (two non-manifold edges, no boundary, more
     * faces than edges). */
    for (mmx_index e = 0; e < ne; e++)
        l->esharp[e] = l->enm[e] || l->efstart[e + 1] - l->efstart[e] < 2;
    for (mmx_index v = 0; v < nv; v++) {
        const mmx_index fc = l->vfstart[v + 1] - l->vfstart[v], ec = l->vestart[v + 1] - l->vestart[v];
        mmx_index nmc = 0, bc = 0;
        for (mmx_index j = l->vestart[v]; j < l->vestart[v + 1]; j++) {
            const mmx_index e = l->ve[j];
            nmc += l->enm[e];
            bc += l->efstart[e + 1] - l->efstart[e] < 2;
        }
        if (fc == 1 && ec == 2 && boundary == MMX_BOUNDARY_EDGE_AND_CORNER) l->vsharp[v] = 1;
        else if (vnm[v] && !(nmc == 2 && bc == 0 && fc > ec)) l->vsharp[v] = 1;
    }
done:
    free(t.key), free(t.edge), free(last), free(nfaces), free(ev), free(fe), free(enm);
    free(ufind);
    free(vnm);
    if (s) glevel_free(l);
    return s;
}

/* The other end of edge e seen from v (v itself for a degenerate edge). */
static mmx_index other_end(const glevel *l, mmx_index e, mmx_index v)
{
    return l->ev[2 * e] == v ? l->ev[2 * e + 1] : l->ev[2 * e];
}

/* Whether the end of edge e at corner k's vertex is end 0: the face runs e from corner k
 * (leading) or into it (trailing); a degenerate edge is left by its end 0 and entered at 1. */
static int end_at(const glevel *l, mmx_index e, mmx_index v, int leading)
{
    if (l->ev[2 * e] != l->ev[2 * e + 1]) return l->ev[2 * e] == v ? 0 : 1;
    return leading ? 0 : 1;
}

/* One level's positions (and the child topology): the child vertices are the parent's, then
 * the face points (Catmull-Clark, bilinear), then the edge points. */
static mmx_status refine(mmx_ctx *ctx, mmx_scheme scheme, const glevel *p, const double *pp,
                         glevel *c, double **cp_out)
{
    const int quads = mmx__scheme_quads(scheme);
    const mmx_index nv = p->nv, nf = p->nf, ne = p->ne, nc = p->nc;
    const mmx_index fbase = nv, ebase = nv + (quads ? nf : 0);
    const mmx_index cnv = ebase + ne, cnf = quads ? nc : 4 * nf, cne = 2 * ne + nc;
    const mmx_index cnc = quads ? 4 * nc : 12 * nf;
    double *cp = NULL;
    mmx_status s = glevel_alloc(ctx, c, cnv, cnf, cne, cnc);
    if (!s) s = galloc(ctx, 3 * (size_t)cnv, sizeof *cp, &cp);
    if (s) {
        glevel_free(c);
        return s;
    }
    /* Child edges: 2e + end for the halves of parent edge e; 2 ne + k inside the face of parent
     * corner k (Catmull-Clark: its leading edge's point to the face point; Loop: its leading
     * edge's point to its trailing edge's point). */
    for (mmx_index e = 0; e < ne; e++) {
        c->ev[4 * e] = p->ev[2 * e], c->ev[4 * e + 1] = ebase + e;
        c->ev[4 * e + 2] = ebase + e, c->ev[4 * e + 3] = p->ev[2 * e + 1];
        c->esharp[2 * e] = c->esharp[2 * e + 1] = p->esharp[e];
        c->enm[2 * e] = c->enm[2 * e + 1] = p->enm[e];
    }
    for (mmx_index v = 0; v < nv; v++) c->vsharp[v] = p->vsharp[v];
    c->fstart[0] = 0;
    mmx_index q = 0, cf = 0;
    for (mmx_index f = 0; f < nf; f++) {
        const mmx_index b = p->fstart[f], n = p->fstart[f + 1] - b;
        for (mmx_index i = 0; i < n; i++) {
            const mmx_index k = b + i, kp = b + (i + n - 1) % n, v = p->fv[k];
            const mmx_index e = p->fe[k], et = p->fe[kp];
            const mmx_index lead = 2 * e + end_at(p, e, v, 1), trail = 2 * et + end_at(p, et, v, 0);
            if (quads) {
                c->ev[2 * (2 * ne + k)] = ebase + e, c->ev[2 * (2 * ne + k) + 1] = fbase + f;
                const mmx_index vv[4] = {v, ebase + e, fbase + f, ebase + et};
                const mmx_index ee[4] = {lead, 2 * ne + k, 2 * ne + kp, trail};
                for (int j = 0; j < 4; j++) c->fv[q + j] = vv[j], c->fe[q + j] = ee[j];
                q += 4;
                c->fstart[++cf] = q;
            } else {
                c->ev[2 * (2 * ne + k)] = ebase + e, c->ev[2 * (2 * ne + k) + 1] = ebase + et;
                const mmx_index vv[3] = {v, ebase + e, ebase + et};
                const mmx_index ee[3] = {lead, 2 * ne + k, trail};
                for (int j = 0; j < 3; j++) c->fv[q + j] = vv[j], c->fe[q + j] = ee[j];
                q += 3;
                c->fstart[++cf] = q;
            }
        }
        if (!quads) { /* the middle triangle: the edge points in the face's order */
            for (mmx_index i = 0; i < 3; i++) {
                c->fv[q + i] = ebase + p->fe[b + i];
                c->fe[q + i] = 2 * ne + b + (i + 1) % 3;
            }
            q += 3;
            c->fstart[++cf] = q;
        }
    }
    if ((s = glevel_incidence(ctx, c))) {
        free(cp);
        glevel_free(c);
        return s;
    }
    /* Face points: centroids. */
    double *fp = quads ? cp + 3 * (size_t)fbase : NULL;
    for (mmx_index f = 0; quads && f < nf; f++) {
        const mmx_index b = p->fstart[f], n = p->fstart[f + 1] - b;
        double a[3] = {0, 0, 0};
        for (mmx_index i = 0; i < n; i++)
            for (int d = 0; d < 3; d++) a[d] += pp[3 * (size_t)p->fv[b + i] + d];
        for (int d = 0; d < 3; d++) fp[3 * (size_t)f + d] = a[d] / n;
    }
    /* Edge points: a sharp edge's midpoint (boundary and non-manifold edges are sharp, so a
     * smooth one has two faces, each running it once). */
    for (mmx_index e = 0; e < ne; e++) {
        const double *a = pp + 3 * (size_t)p->ev[2 * e], *bq = pp + 3 * (size_t)p->ev[2 * e + 1];
        double *o = cp + 3 * ((size_t)ebase + e);
        const mmx_index e0 = p->efstart[e], nfe = p->efstart[e + 1] - e0;
        if (scheme == MMX_SCHEME_BILINEAR || p->esharp[e] || nfe != 2) {
            for (int d = 0; d < 3; d++) o[d] = 0.5 * (a[d] + bq[d]);
        } else if (quads) {
            const double *f0 = fp + 3 * (size_t)p->cf[p->efc[e0]], *f1 = fp + 3 * (size_t)p->cf[p->efc[e0 + 1]];
            for (int d = 0; d < 3; d++) o[d] = 0.25 * (a[d] + bq[d] + f0[d] + f1[d]);
        } else {
            double opp[3] = {0, 0, 0};
            for (mmx_index j = 0; j < 2; j++) {
                const mmx_index k = p->efc[e0 + j], b = p->fstart[p->cf[k]];
                const double *x = pp + 3 * (size_t)p->fv[b + (k - b + 2) % 3];
                for (int d = 0; d < 3; d++) opp[d] += x[d];
            }
            for (int d = 0; d < 3; d++) o[d] = 0.375 * (a[d] + bq[d]) + 0.125 * opp[d];
        }
    }
    /* Vertex points: a corner stays; a crease takes 6/8 of itself and 1/8 of the other ends of
     * its two sharp edges; else the scheme's smooth rule (rules.h). */
    for (mmx_index v = 0; v < nv; v++) {
        const double *x = pp + 3 * (size_t)v;
        double *o = cp + 3 * (size_t)v;
        mmx_index nsharp = 0, ends[2] = {v, v};
        for (mmx_index j = p->vestart[v]; j < p->vestart[v + 1]; j++) {
            const mmx_index e = p->ve[j];
            if (!p->esharp[e]) continue;
            if (nsharp < 2) ends[nsharp] = other_end(p, e, v);
            nsharp++;
        }
        const mmx_index n = p->vestart[v + 1] - p->vestart[v];
        if (scheme == MMX_SCHEME_BILINEAR || p->vsharp[v] || nsharp > 2 || n == 0) {
            for (int d = 0; d < 3; d++) o[d] = x[d];
        } else if (nsharp == 2) {
            const double *a = pp + 3 * (size_t)ends[0], *bq = pp + 3 * (size_t)ends[1];
            for (int d = 0; d < 3; d++) o[d] = 0.75 * x[d] + 0.125 * (a[d] + bq[d]);
        } else {
            const mmx__vertex_rule r = mmx__rule_vertex_smooth(scheme, n);
            double ring[3] = {0, 0, 0};
            for (mmx_index j = p->vestart[v]; j < p->vestart[v + 1]; j++) {
                const double *y = pp + 3 * (size_t)other_end(p, p->ve[j], v);
                for (int d = 0; d < 3; d++) ring[d] += y[d];
            }
            for (mmx_index j = quads ? p->vfstart[v] : 0; quads && j < p->vfstart[v + 1]; j++) {
                const double *y = fp + 3 * (size_t)p->cf[p->vfc[j]];
                for (int d = 0; d < 3; d++) ring[d] += y[d];
            }
            for (int d = 0; d < 3; d++) o[d] = (double)r.self * x[d] + (double)r.ring * ring[d];
        }
    }
    *cp_out = cp;
    return MMX_OK;
}

/* Texture coordinates of the child corners, linear in each parent face, in the child faces'
 * corner order (refine's). */
static mmx_status refine_uv(mmx_ctx *ctx, mmx_scheme scheme, const glevel *p, const double *uv,
                            double **out)
{
    const int quads = mmx__scheme_quads(scheme);
    const size_t cnc = quads ? 4 * (size_t)p->nc : 12 * (size_t)p->nf;
    double *o = NULL;
    mmx_status s = galloc(ctx, 2 * cnc, sizeof *o, &o);
    if (s) return s;
    size_t q = 0;
    for (mmx_index f = 0; f < p->nf; f++) {
        const mmx_index b = p->fstart[f], n = p->fstart[f + 1] - b;
        double mid[2] = {0, 0};
        for (mmx_index i = 0; i < n; i++)
            for (int d = 0; d < 2; d++) mid[d] += uv[2 * (size_t)(b + i) + d] / n;
        for (mmx_index i = 0; i < n; i++) {
            const double *x = uv + 2 * (size_t)(b + i), *nx = uv + 2 * (size_t)(b + (i + 1) % n);
            const double *pv = uv + 2 * (size_t)(b + (i + n - 1) % n);
            for (int d = 0; d < 2; d++) {
                o[2 * q + d] = x[d];
                o[2 * (q + 1) + d] = 0.5 * (x[d] + nx[d]);
                if (quads) o[2 * (q + 2) + d] = mid[d], o[2 * (q + 3) + d] = 0.5 * (pv[d] + x[d]);
                else o[2 * (q + 2) + d] = 0.5 * (pv[d] + x[d]);
            }
            q += quads ? 4 : 3;
        }
        for (mmx_index i = 0; !quads && i < 3; i++)
            for (int d = 0; d < 2; d++)
                o[2 * (q + i) + d] = 0.5 * (uv[2 * (size_t)(b + i) + d] + uv[2 * (size_t)(b + (i + 1) % 3) + d]);
        q += quads ? 0 : 3;
    }
    *out = o;
    return MMX_OK;
}

/* The boundary mode the face list's tags ask for, and a refusal of every other tag (this path
 * has no semi-sharp rules, holes or other texture modes). */
static mmx_status faces_tags(mmx_ctx *ctx, const mmx_faces *in, mmx_boundary *boundary)
{
    const char *p = in->tags;
    for (int line = 1; p && *p; line++) {
        const char *e = strchr(p, '\n');
        const size_t len = e ? (size_t)(e - p) : strlen(p);
        char buf[128];
        snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf - 1 ? len : sizeof buf - 1), p);
        char name[64];
        int a, b, c, val;
        if (sscanf(buf, "t %63s %d/%d/%d %d", name, &a, &b, &c, &val) == 5 &&
            strcmp(name, "interpolateboundary") == 0 && a == 1 && b == 0 && c == 0 &&
            (val == 1 || val == 2)) {
            if (*boundary == MMX_BOUNDARY_FROM_MESH)
                *boundary = val == 1 ? MMX_BOUNDARY_EDGE_AND_CORNER : MMX_BOUNDARY_EDGE_ONLY;
        } else if (sscanf(buf, "t %63s %d/%d/%d %d", name, &a, &b, &c, &val) == 5 &&
                   strcmp(name, "facevaryinginterpolateboundary") == 0 && val == 5) {
            /* linear everywhere: what this path does */
        } else if (len > 0) {
            return mmx__fail(ctx, MMX_ERR_UNSUPPORTED,
                             "mmx_subdivide_faces: tag line %d (\"%s\"): faces that repeat a "
                             "vertex, and pillows, take only 'interpolateboundary' 1 or 2 (and "
                             "linear texture coordinates): no creases, corners or holes", line, buf);
        }
        p = e ? e + 1 : NULL;
    }
    if (*boundary == MMX_BOUNDARY_FROM_MESH) *boundary = MMX_BOUNDARY_EDGE_ONLY;
    return MMX_OK;
}

mmx_status mmx_subdivide_faces(mmx_ctx *ctx, mmx_scheme scheme, const mmx_faces *in, int levels,
                               const mmx_subdiv_options *opts, mmx_faces **out)
{
    MMX__NEED_CTX(ctx);
    if (!out) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_subdivide_faces: out is NULL");
    *out = NULL;
    if (!in || levels < 0 || !mmx_scheme_name(scheme) || (in->nfaces > 0 && (!in->start || !in->verts)) ||
        in->nverts < 0 || in->nfaces < 0 || (in->nverts > 0 && !in->pos) ||
        (in->nuv > 0 && (!in->uv || !in->uv_index)))
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_subdivide_faces: NULL or negative argument");
    if (scheme == MMX_SCHEME_SQRT3)
        return mmx__fail(ctx, MMX_ERR_UNSUPPORTED, "mmx_subdivide_faces: sqrt3 has no rule for "
                         "faces that repeat a vertex (Loop, Catmull-Clark and bilinear have)");
    mmx_subdiv_options o = {0};
    if (opts) o = *opts;
    if (o.boundary == MMX_BOUNDARY_NONE || o.limit || o.holes != MMX_HOLES_REMOVE ||
        (o.fvar != MMX_FVAR_FROM_MESH && o.fvar != MMX_FVAR_LINEAR_ALL) ||
        (o.path != MMX_SUBDIV_PATH_AUTO && o.path != MMX_SUBDIV_PATH_ALGEBRAIC))
        return mmx__fail(ctx, MMX_ERR_UNSUPPORTED,
                         "mmx_subdivide_faces: takes edge-only or edge-and-corner boundaries, "
                         "linear texture coordinates and the default path; no limit, kept holes "
                         "or boundary 'none'");
    mmx_status s = faces_tags(ctx, in, &o.boundary);
    if (s) return s;
    /* The input: orders, vertex numbers, coordinates, texture indices; 64-bit counts. */
    const mmx_index nf = in->nfaces;
    if (nf > 0 && in->start[0] != 0)
        return mmx__fail(ctx, MMX_ERR_MESH, "mmx_subdivide_faces: start[0] is %d, not 0", (int)in->start[0]);
    for (mmx_index f = 0; f < nf; f++) {
        const mmx_index n = in->start[f + 1] - in->start[f];
        if (n < 3 || (scheme == MMX_SCHEME_LOOP && n != 3))
            return mmx__fail(ctx, MMX_ERR_MESH, "mmx_subdivide_faces: face %d has %d corners (%s)",
                             (int)f, (int)n, scheme == MMX_SCHEME_LOOP ? "Loop takes triangles" : "at least 3");
        for (mmx_index k = in->start[f]; k < in->start[f + 1]; k++) {
            if (in->verts[k] < 0 || in->verts[k] >= in->nverts)
                return mmx__fail(ctx, MMX_ERR_MESH, "mmx_subdivide_faces: face %d names vertex %d, "
                                 "outside [0, %d)", (int)f, (int)in->verts[k], (int)in->nverts);
            if (in->nuv > 0 && (in->uv_index[k] < 0 || in->uv_index[k] >= in->nuv))
                return mmx__fail(ctx, MMX_ERR_MESH, "mmx_subdivide_faces: face %d names texture "
                                 "coordinate %d, outside [0, %d)", (int)f, (int)in->uv_index[k], (int)in->nuv);
        }
    }
    for (size_t i = 0; i < 3 * (size_t)in->nverts; i++)
        if (!isfinite(in->pos[i]) || fabsf(in->pos[i]) > MMX_SUBDIV_COORD_MAX)
            return mmx__fail(ctx, MMX_ERR_MESH, "mmx_subdivide_faces: vertex %d has a coordinate "
                             "that is not finite or beyond %g", (int)(i / 3), MMX_SUBDIV_COORD_MAX);
    int64_t v = in->nverts, fcount = nf, c = nf ? in->start[nf] : 0, e = c;
    for (int l = 0; l < levels; l++) {
        mmx_subdiv_predict(scheme, v, fcount, e, c, 1, &v, &fcount, &e, &c);
        if (v > MMX_INDEX_MAX || c > MMX_INDEX_MAX || 2 * e + c > MMX_INDEX_MAX)
            return mmx__fail(ctx, MMX_ERR_OVERFLOW, "mmx_subdivide_faces: level %d would have %lld "
                             "corners, beyond 32-bit indices", l + 1, (long long)c);
    }
    glevel cur = {0}, next = {0};
    double *pos = NULL, *uv = NULL, *npos = NULL, *nuv = NULL;
    mmx_faces *r = NULL;
    mmx_index empty_start = 0;
    mmx_faces in0 = *in;
    if (nf == 0) in0.start = &empty_start;
    s = level0(ctx, &in0, o.boundary, &cur);
    if (!s) s = galloc(ctx, 3 * (size_t)in->nverts, sizeof *pos, &pos);
    for (size_t i = 0; !s && i < 3 * (size_t)in->nverts; i++) pos[i] = in->pos[i];
    if (!s && in->nuv > 0) s = galloc(ctx, 2 * (size_t)cur.nc, sizeof *uv, &uv);
    for (mmx_index k = 0; !s && uv && k < cur.nc; k++)
        for (int d = 0; d < 2; d++) uv[2 * (size_t)k + d] = in->uv[2 * (size_t)in->uv_index[k] + d];
    mmx_timer *timer = NULL;
    if (!s && o.trace) s = mmx_timer_create(ctx, &timer);
    for (int l = 0; !s && l < levels; l++) {
        double ms = 0;
        if (timer) s = mmx_timer_start(timer);
        if (!s) s = refine(ctx, scheme, &cur, pos, &next, &npos);
        if (!s && uv) s = refine_uv(ctx, scheme, &cur, uv, &nuv);
        if (!s && timer) s = mmx_timer_stop(timer, &ms);
        if (s) break;
        if (o.trace) {
            o.trace[l].nverts = next.nv, o.trace[l].nfaces = next.nf, o.trace[l].nedges = next.ne;
            o.trace[l].ms = ms;
        }
        glevel_free(&cur);
        free(pos), free(uv);
        cur = next, pos = npos, uv = nuv;
        memset(&next, 0, sizeof next);
        npos = nuv = NULL;
    }
    /* The result: the last level's faces, positions as floats, one coordinate per corner. */
    if (!s && !(r = calloc(1, sizeof *r))) s = mmx__fail(ctx, MMX_ERR_NOMEM, "mmx_subdivide_faces: out of host memory");
    if (!s) {
        r->nverts = cur.nv, r->nfaces = cur.nf;
        s = galloc(ctx, (size_t)cur.nf + 1, sizeof *r->start, &r->start);
        if (!s) s = galloc(ctx, (size_t)cur.nc, sizeof *r->verts, &r->verts);
        if (!s) s = galloc(ctx, 3 * (size_t)cur.nv, sizeof *r->pos, &r->pos);
        if (!s && uv) s = galloc(ctx, 2 * (size_t)cur.nc, sizeof *r->uv, &r->uv);
        if (!s && uv) s = galloc(ctx, (size_t)cur.nc, sizeof *r->uv_index, &r->uv_index);
    }
    if (!s) {
        memcpy(r->start, cur.fstart, ((size_t)cur.nf + 1) * sizeof *r->start);
        memcpy(r->verts, cur.fv, (size_t)cur.nc * sizeof *r->verts);
        for (size_t i = 0; i < 3 * (size_t)cur.nv; i++) r->pos[i] = (float)pos[i];
        if (uv) {
            r->nuv = cur.nc;
            for (mmx_index k = 0; k < cur.nc; k++) {
                r->uv_index[k] = k;
                r->uv[2 * (size_t)k] = (float)uv[2 * (size_t)k];
                r->uv[2 * (size_t)k + 1] = (float)uv[2 * (size_t)k + 1];
            }
        }
        /* The boundary mode goes on with the result, so that a second call continues. */
        const char *tag = o.boundary == MMX_BOUNDARY_EDGE_AND_CORNER ? "t interpolateboundary 1/0/0 1\n"
                          : in->tags ? "t interpolateboundary 1/0/0 2\n" : NULL;
        if (tag && !(s = galloc(ctx, strlen(tag) + 1, 1, &r->tags))) memcpy(r->tags, tag, strlen(tag) + 1);
    }
    mmx_timer_free(timer);
    glevel_free(&cur), glevel_free(&next);
    free(pos), free(uv), free(npos), free(nuv);
    if (s) mmx_faces_free(r);
    else *out = r;
    return s;
}

mmx_status mmx__subdiv_pillows(mmx_ctx *ctx, mmx_scheme scheme, const mmx_mesh *mesh, int levels,
                               const mmx_subdiv_options *opts, mmx_mesh **out)
{
    const mmx_mesh *h = NULL;
    mmx_faces in = {0}, *r = NULL;
    mmx_mesh *m = NULL;
    mmx_mesh_uv *uv = NULL;
    mmx__repeated rep = {0};
    mmx_status s = mmx__mesh_host_view_uv(ctx, mesh, &h);
    if (!s) s = mmx__mesh_repeated_faces(ctx, h->M, &rep);
    /* Only a triangle mesh can be a Loop pillow: a mesh that Loop refused for another cause
     * (a face of four corners glued to its reverse, say) keeps that refusal. */
    int triangles = !s && (h->M->order == 3 || h->M->order == 0);
    for (mmx_index f = 0; triangles && h->M->order == 0 && f < h->M->ncols; f++)
        triangles = h->M->colptr[f + 1] - h->M->colptr[f] == 3;
    if (s || rep.count == 0 || rep.relation != -1 || !triangles) {
        if (h) mmx__mesh_host_release(mesh, h);
        return s ? s : MMX_ERR_MESH; /* not a pillow: the caller's refusal stands */
    }
    in.nverts = h->M->nrows, in.nfaces = h->M->ncols, in.pos = h->pos, in.tags = h->tags;
    s = mmx_mesh_faces(ctx, h, &in.start, &in.verts);
    if (!s && h->uv) in.nuv = h->uv->nvalues, in.uv = h->uv->values, in.uv_index = h->uv->index;
    if (!s) s = mmx_subdivide_faces(ctx, scheme, &in, levels, opts, &r);
    free(in.start), free(in.verts);
    mmx__mesh_host_release(mesh, h);
    if (!s) s = mmx_mesh_from_faces(ctx, r->nverts, r->nfaces, r->start, r->verts, r->pos, &m);
    if (!s) s = mmx_mesh_reduce(ctx, m);
    if (!s && r->nuv > 0) {
        /* One coordinate per corner, numbered in face order (M's storage order), where the
         * context's results keep them (mesh.h: device memory on CUDA). */
        mmx_mesh_uv hu = {r->nuv, r->uv, r->uv_index, MMX_SPACE_HOST, NULL};
        s = mmx__mesh_uv_copy_to(ctx, &hu, r->start[r->nfaces], mmx_ctx_space(ctx), &uv);
        if (!s) m->uv = uv;
    }
    if (!s) m->tags = r->tags, r->tags = NULL;
    mmx_faces_free(r);
    if (s) mmx_mesh_free(m);
    else *out = m;
    return s;
}
