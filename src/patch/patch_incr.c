/* The incremental update of a host patch set (patch_host.h, mmx__patch_update_host; the
 * scheme is stated in patch.h at mmx_patch_set_update). In steps:
 *
 *  1. The old faces' corners (old vertex, old edge with its direction bit) are read back from
 *     the set itself (each face from its owner's blocks), so the round's input mesh is not
 *     needed.
 *  2. A new face is clean when it is the only face of its origin, has its origin's order, and
 *     its corners are its origin's through the vertex map: the identity when the round added
 *     vertices or kept them (flips, splits, user cavities), or, when it removed some
 *     (collapses, vertex removals: a compaction), the map read from the clean faces' corners,
 *     where two old vertices that map to one new vertex were merged and their faces are dirty.
 *     An old face is dirty when it has no image, several, or a dirty one. The edge map is read
 *     from the clean faces' corners (the new adjacency's edge at the same corner).
 *  3. A patch is dirty when one of its local faces (owned or ribbon) is dirty, when a vertex
 *     of an owned face is a vertex of a dirty new face (a face the round added near it), or
 *     when the maps would not keep its local lists ascending. A clean patch's faces, ribbon,
 *     owned elements and blocks are then those a rebuild would make (patch.h's argument), so
 *     it is copied, its global numbers remapped.
 *  4. The faces labelled with a dirty patch are cut as mmx_patch_set_follow cuts a label group
 *     (one run up to the bound, else runs of S along the Morton curve in the whole mesh's box;
 *     each run split into its edge-connected components), by a sort of that group alone, and
 *     each piece is built by the full build's own step (mmx__patch_locals).
 *
 * Patches come out in follow's order (by label, run, smallest face), so the arrays are
 * mmx_patch_set_follow's byte for byte; the tests hold them to it. Work: O(nnz) passes over
 * the mesh (labels, maps, owners, the vertex incidence), O(stored ids) to copy the clean
 * patches, and per dirty patch its own build; no sort of all the faces. */
#include <stdlib.h>
#include <string.h>
#include "patch_block.h"
#include "patch_host.h"

/* Corner k of new face f. */
static mmx_index corner_of(const mmx_csc *M, mmx_index f, int64_t k)
{
    int64_t a, b;
    mmx__csc_col(M, f, &a, &b);
    return M->rowidx[a + k];
}

static mmx_index face_order(const mmx_csc *M, mmx_index f)
{
    int64_t a, b;
    mmx__csc_col(M, f, &a, &b);
    return (mmx_index)(b - a);
}

/* A face of a dirty group with its Morton key, for the run order. */
typedef struct keyed {
    uint64_t key;
    mmx_index face, pos;
} keyed;

static int cmp_keyed(const void *x, const void *y)
{
    const keyed *a = x, *b = y;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    return (a->face > b->face) - (a->face < b->face);
}

/* (edge, position) pairs of a group's corners, sorted by edge (then position). */
static int cmp_pair(const void *x, const void *y)
{
    const mmx_index *a = x, *b = y;
    if (a[0] != b[0]) return (a[0] > b[0]) - (a[0] < b[0]);
    return (a[1] > b[1]) - (a[1] < b[1]);
}

/* (run, smallest face of the component, face) of a group's faces. */
static int cmp_piece(const void *x, const void *y)
{
    const mmx_index *a = x, *b = y;
    for (int i = 0; i < 3; i++)
        if (a[i] != b[i]) return (a[i] > b[i]) - (a[i] < b[i]);
    return 0;
}

static mmx_index find(mmx_index *parent, mmx_index i)
{
    while (parent[i] != i) {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    return i;
}

typedef struct upd {
    mmx_ctx *ctx;
    const mmx_patch_set *old;
    const mmx_csc *M;
    const float *pos;
    const mmx_index *fe;
    mmx_index S;
    int have_box;
    double lo[3], hi[3];
    mmx_index *pieces; /* a group's faces by (run, component), with their breaks */
    mmx_index *brk;    /* nbrk + 1 starts of the pieces in `pieces` */
    mmx_index nbrk;
    mmx_index *efirst; /* per new edge: -1, or the first position of a one-run group on it */
} upd;

/* Cuts the group g[0 .. n) (ascending faces of one label) into its pieces as the cut with
 * labels does: u->pieces holds the faces piece after piece (each ascending), u->brk the
 * starts. Work space: scratch arrays of the group's size, freed here. */
static mmx_status cut_group(upd *u, const mmx_index *g, mmx_index n)
{
    const mmx_csc *M = u->M;
    mmx_index *run = NULL, *parent = NULL, *pairs = NULL, *trip = NULL;
    keyed *k = NULL;
    int64_t nc = 0;
    for (mmx_index i = 0; i < n; i++) nc += face_order(M, g[i]);
    mmx_status s = mmx__host_alloc(u->ctx, (size_t)n + 1, sizeof *run, (void **)&run);
    if (!s) s = mmx__host_alloc(u->ctx, (size_t)n + 1, sizeof *parent, (void **)&parent);
    if (!s) s = mmx__host_alloc(u->ctx, 2 * (size_t)nc + 2, sizeof *pairs, (void **)&pairs);
    if (!s) s = mmx__host_alloc(u->ctx, 3 * (size_t)n + 3, sizeof *trip, (void **)&trip);
    if (s) goto out;
    if (n <= mmx__patch_follow_bound(u->S)) {
        for (mmx_index i = 0; i < n; i++) run[i] = 0;
    } else { /* runs of S along the curve, in the box of the whole mesh */
        if (!u->have_box) {
            mmx__patch_centroid_box(M, u->pos, u->lo, u->hi);
            u->have_box = 1;
        }
        s = mmx__host_alloc(u->ctx, (size_t)n, sizeof *k, (void **)&k);
        if (s) goto out;
        for (mmx_index i = 0; i < n; i++) {
            double c[3];
            mmx__patch_centroid(M, u->pos, g[i], c);
            k[i].key = mmx__patch_morton(c, u->lo, u->hi), k[i].face = g[i], k[i].pos = i;
        }
        qsort(k, (size_t)n, sizeof *k, cmp_keyed);
        for (mmx_index j = 0; j < n; j++) run[k[j].pos] = j / u->S;
    }
    /* Components of each run: faces joined across an edge, both in the run. One run (the
     * common case): each face joined to the first face met on each of its edges, through a
     * mark per edge cleared afterwards; several runs: the corners' edges sorted. */
    for (mmx_index i = 0; i < n; i++) parent[i] = i;
    if (n <= mmx__patch_follow_bound(u->S)) {
        for (int pass = 0; pass < 2; pass++)
            for (mmx_index i = 0; i < n; i++) {
                int64_t a, b;
                mmx__csc_col(M, g[i], &a, &b);
                for (int64_t c = a; c < b; c++) {
                    mmx_index *at = &u->efirst[u->fe[c] >> 1];
                    if (pass) {
                        *at = -1;
                    } else if (*at < 0) {
                        *at = i;
                    } else {
                        const mmx_index r1 = find(parent, i), r2 = find(parent, *at);
                        if (r1 != r2) parent[r1 > r2 ? r1 : r2] = r1 > r2 ? r2 : r1;
                    }
                }
            }
    } else {
        int64_t np = 0;
        for (mmx_index i = 0; i < n; i++) {
            int64_t a, b;
            mmx__csc_col(M, g[i], &a, &b);
            for (int64_t c = a; c < b; c++) pairs[2 * np] = u->fe[c] >> 1, pairs[2 * np + 1] = i, np++;
        }
        qsort(pairs, (size_t)np, 2 * sizeof *pairs, cmp_pair);
        for (int64_t q = 1; q < np; q++) {
            const mmx_index i = pairs[2 * q - 1], j = pairs[2 * q + 1];
            if (pairs[2 * q - 2] != pairs[2 * q] || run[i] != run[j]) continue;
            const mmx_index r1 = find(parent, i), r2 = find(parent, j);
            if (r1 != r2) parent[r1 > r2 ? r1 : r2] = r1 > r2 ? r2 : r1;
        }
    }
    /* Roots are the smallest positions, so the smallest faces (g ascending). One run of one
     * component (the common case): one piece, the group as it is. */
    mmx_index roots = 0;
    for (mmx_index i = 0; i < n && roots < 2; i++) roots += find(parent, i) == i;
    if (roots == 1 && run[n - 1] == 0) {
        memcpy(u->pieces, g, (size_t)n * sizeof *g);
        u->brk[0] = 0, u->brk[1] = n, u->nbrk = 1;
        goto out;
    }
    for (mmx_index i = 0; i < n; i++)
        trip[3 * i] = run[i], trip[3 * i + 1] = g[find(parent, i)], trip[3 * i + 2] = g[i];
    qsort(trip, (size_t)n, 3 * sizeof *trip, cmp_piece);
    u->nbrk = 0;
    for (mmx_index i = 0; i < n; i++) {
        if (i == 0 || trip[3 * i] != trip[3 * i - 3] || trip[3 * i + 1] != trip[3 * i - 2])
            u->brk[u->nbrk++] = i;
        u->pieces[i] = trip[3 * i + 2];
    }
    u->brk[u->nbrk] = n;
out:
    free(run), free(parent), free(pairs), free(trip), free(k);
    return s;
}

/* The smallest edge with exactly two corners on it whose faces run it the same way (or one
 * face twice), the test of mmx__patch_first_inconsistent, in one pass over the corners and
 * one over the edges, without the edges' face lists; -1 when there is none. cnt, first and
 * same: E items of work space. */
static mmx_index first_inconsistent(const mmx_csc *M, const mmx_index *fe, mmx_index E,
                                    unsigned char *cnt, mmx_index *first, unsigned char *same)
{
    memset(cnt, 0, (size_t)E);
    for (mmx_index f = 0; f < M->ncols; f++) {
        int64_t a, b;
        mmx__csc_col(M, f, &a, &b);
        for (int64_t c = a; c < b; c++) {
            const mmx_index e = fe[c] >> 1;
            const unsigned char bit = (unsigned char)(fe[c] & 1);
            if (cnt[e] == 0) first[e] = f, same[e] = bit; /* the first corner's direction */
            else if (cnt[e] == 1) same[e] = first[e] == f || same[e] == bit;
            if (cnt[e] < 3) cnt[e]++;
        }
    }
    for (mmx_index e = 0; e < E; e++)
        if (cnt[e] == 2 && same[e]) return e;
    return -1;
}

/* Whether a[0 .. n) mapped through map stays strictly ascending (and every entry mapped). */
static int ascending(const mmx_index *a, mmx_index n, const mmx_index *map)
{
    mmx_index prev = -1;
    for (mmx_index i = 0; i < n; i++) {
        const mmx_index x = map ? map[a[i]] : a[i];
        if (x <= prev) return 0;
        prev = x;
    }
    return 1;
}

/* The arrays of the update, freed together. */
typedef struct work {
    mmx_index *optr, *ov, *oe;   /* old faces' corners: offsets, vertices, edges << 1 | bit */
    mmx_index *cnt, *img;        /* per old face: its images, the one image (or -1) */
    mmx_index *psi, *pre;        /* old vertex -> new; new vertex: preimages */
    mmx_index *emap;             /* old edge -> new */
    unsigned char *fdirty, *odirty, *hot, *pdirty;
    mmx_index *label, *goff, *gface, *pnew; /* labels, dirty groups, old patch -> first new */
    mmx_index *efirst;           /* per new edge: the cut's marks, then the orientation test's */
    unsigned char *ecnt, *esame;
} work;

static void work_free(work *w)
{
    free(w->optr), free(w->ov), free(w->oe), free(w->cnt), free(w->img), free(w->psi);
    free(w->pre), free(w->emap), free(w->fdirty), free(w->odirty), free(w->hot), free(w->pdirty);
    free(w->label), free(w->goff), free(w->gface), free(w->pnew), free(w->efirst), free(w->ecnt), free(w->esame);
}

#define TAKE(p, n) (!s ? (s = mmx__host_alloc(ctx, (size_t)(n) + 1, sizeof *(p), (void **)&(p))) : s)

mmx_status mmx__patch_update_host(mmx_ctx *ctx, mmx_patch_set *ps, const mmx_csc *M,
                                  const float *pos, const mmx_index *fe, const mmx_index *ev,
                                  mmx_index nedges, const mmx_index *origin, int *done)
{
    *done = 0;
    const mmx_patch_set *old = ps;
    const mmx_index F0 = old->nfaces, V0 = old->nverts, E0 = old->nedges, np0 = old->npatches;
    const mmx_index F1 = M->ncols, V1 = M->nrows, E1 = nedges;
    const int compaction = V1 < V0;
    work w;
    memset(&w, 0, sizeof w);
    mmx_patch_set *nx = NULL; /* the new set, built beside ps */
    mmx__pbuild B;
    memset(&B, 0, sizeof B);
    upd u = {ctx, old, M, pos, fe, old->max_faces, 0, {0, 0, 0}, {0, 0, 0}, NULL, NULL, 0, NULL};
    mmx_index *allp = NULL, *allb = NULL, npieces = 0; /* the dirty groups' pieces */
    mmx_status s = MMX_OK;
    TAKE(w.optr, F0 + 1), TAKE(w.cnt, F0), TAKE(w.img, F0), TAKE(w.odirty, F0);
    TAKE(w.psi, V0), TAKE(w.pre, V1), TAKE(w.emap, E0), TAKE(w.fdirty, F1), TAKE(w.hot, V1);
    TAKE(w.pdirty, np0), TAKE(w.label, F1), TAKE(w.pnew, np0 + 1), TAKE(w.goff, np0 + 1);
    TAKE(w.efirst, E1), TAKE(w.ecnt, E1), TAKE(w.esame, E1);
    if (s) goto out;
    for (mmx_index e = 0; e < E1; e++) w.efirst[e] = -1;
    u.efirst = w.efirst;

    /* 1. The old faces' corners, from their owners' blocks. */
    memset(w.optr, 0, ((size_t)F0 + 1) * sizeof *w.optr);
    for (mmx_index p = 0; p < np0; p++) {
        mmx__plocal L;
        mmx__pl_setup_direct(old, p, &L);
        for (mmx_index l = 0; l < L.of; l++) {
            mmx_index a, n;
            mmx__pl_face(&L, l, &a, &n);
            w.optr[L.gf[l] + 1] = n;
        }
    }
    for (mmx_index f = 0; f < F0; f++) w.optr[f + 1] += w.optr[f];
    TAKE(w.ov, w.optr[F0]), TAKE(w.oe, w.optr[F0]);
    if (s) goto out;
    for (mmx_index p = 0; p < np0; p++) {
        mmx__plocal L;
        mmx__pl_setup_direct(old, p, &L);
        for (mmx_index l = 0; l < L.of; l++) {
            mmx_index a, n, at = w.optr[L.gf[l]];
            mmx__pl_face(&L, l, &a, &n);
            for (mmx_index c = a; c < a + n; c++, at++) {
                w.ov[at] = L.gv[mmx__pl_cv(&L, c)];
                w.oe[at] = L.ge[L.fe[c] >> 1] << 1 | (L.fe[c] & 1);
            }
        }
    }

    /* 2. Images, clean faces, the vertex and edge maps. */
    memset(w.cnt, 0, (size_t)F0 * sizeof *w.cnt);
    for (mmx_index f = 0; f < F1; f++) {
        const mmx_index o = origin ? origin[f] : f;
        w.cnt[o]++, w.img[o] = f;
        w.label[f] = old->face_patch[o];
    }
    for (mmx_index x = 0; x < V0; x++) w.psi[x] = -1;
    for (mmx_index e = 0; e < E0; e++) w.emap[e] = -1;
    memset(w.fdirty, 0, (size_t)F1);
    for (mmx_index f = 0; f < F1; f++) {
        const mmx_index o = origin ? origin[f] : f, n = face_order(M, f);
        if (w.cnt[o] != 1 || n != w.optr[o + 1] - w.optr[o]) {
            w.fdirty[f] = 1;
            continue;
        }
        const mmx_index *x = w.ov + w.optr[o];
        for (mmx_index k = 0; k < n; k++) {
            const mmx_index y = corner_of(M, f, k);
            if (!compaction) {
                if (x[k] != y) w.fdirty[f] = 1;
            } else if (w.psi[x[k]] < 0) {
                w.psi[x[k]] = y;
            } else if (w.psi[x[k]] != y) {
                goto out; /* not a compaction the scheme reads: the full cut */
            }
        }
        if (!compaction && !w.fdirty[f])
            for (mmx_index k = 0; k < n; k++) w.psi[x[k]] = x[k];
    }
    if (compaction) { /* merged vertices: two old ones onto one new; their faces are dirty */
        memset(w.pre, 0, (size_t)V1 * sizeof *w.pre);
        for (mmx_index x = 0; x < V0; x++)
            if (w.psi[x] >= 0) w.pre[w.psi[x]]++;
        for (mmx_index f = 0; f < F1; f++) {
            if (w.fdirty[f]) continue;
            const mmx_index o = origin ? origin[f] : f;
            for (mmx_index c = w.optr[o]; c < w.optr[o + 1]; c++)
                if (w.pre[w.psi[w.ov[c]]] > 1) w.fdirty[f] = 1;
        }
    }
    /* The edge map from the clean faces' corners; a face whose corner runs its edge the other
     * way (a merge the vertex map could not see, as when every face at the vertex kept was
     * removed) is dirty. */
    for (mmx_index f = 0; f < F1; f++) {
        if (w.fdirty[f]) continue;
        int64_t a, b;
        mmx__csc_col(M, f, &a, &b);
        const mmx_index *oe = w.oe + w.optr[origin ? origin[f] : f];
        for (int64_t c = a; c < b && !w.fdirty[f]; c++) w.fdirty[f] = (oe[c - a] & 1) != (fe[c] & 1);
        for (int64_t c = a; c < b && !w.fdirty[f]; c++) {
            mmx_index *at = &w.emap[oe[c - a] >> 1];
            if (*at >= 0 && *at != fe[c] >> 1) goto out; /* not a map: the full cut */
            *at = fe[c] >> 1;
        }
    }
    memset(w.hot, 0, (size_t)V1);
    for (mmx_index f = 0; f < F1; f++) {
        int64_t a, b;
        mmx__csc_col(M, f, &a, &b);
        if (w.fdirty[f])
            for (int64_t c = a; c < b; c++) w.hot[M->rowidx[c]] = 1;
    }
    for (mmx_index o = 0; o < F0; o++) w.odirty[o] = w.cnt[o] != 1 || w.fdirty[w.img[o]];

    /* 3. Dirty patches. */
    mmx_index ndirty = 0;
    for (mmx_index p = 0; p < np0; p++) {
        mmx__plocal L;
        mmx__pl_setup_direct(old, p, &L);
        int d = 0;
        for (mmx_index l = 0; l < L.nf && !d; l++) d = w.odirty[L.gf[l]];
        for (mmx_index l = 0; l < L.of && !d; l++) {
            mmx_index a, n;
            mmx__pl_face(&L, l, &a, &n);
            for (mmx_index c = a; c < a + n && !d; c++) d = w.hot[w.psi[L.gv[mmx__pl_cv(&L, c)]]];
        }
        if (!d) { /* the maps keep the lists ascending and each edge's smaller end first */
            d = !ascending(L.gf, L.of, w.img) || !ascending(L.gf + L.of, L.nf - L.of, w.img) ||
                !ascending(L.ge, L.oe, w.emap) || !ascending(L.ge + L.oe, L.ne - L.oe, w.emap) ||
                !ascending(L.gv, L.ov, w.psi) || !ascending(L.gv + L.ov, L.nv - L.ov, w.psi);
            for (mmx_index e = 0; e < L.ne && !d; e++)
                d = w.psi[L.gv[L.ev[2 * e]]] >= w.psi[L.gv[L.ev[2 * e + 1]]];
        }
        w.pdirty[p] = (unsigned char)d;
        ndirty += d;
    }

    /* 4. The dirty groups: each dirty label's new faces, ascending. */
    memset(w.goff, 0, ((size_t)np0 + 1) * sizeof *w.goff);
    for (mmx_index f = 0; f < F1; f++)
        if (w.pdirty[w.label[f]]) w.goff[w.label[f] + 1]++;
    for (mmx_index p = 0; p < np0; p++) w.goff[p + 1] += w.goff[p];
    TAKE(w.gface, w.goff[np0]);
    if (s) goto out;
    for (mmx_index f = 0; f < F1; f++)
        if (w.pdirty[w.label[f]]) w.gface[w.goff[w.label[f]]++] = f;
    for (mmx_index p = np0; p > 0; p--) w.goff[p] = w.goff[p - 1];
    w.goff[0] = 0;
    mmx_index gmax = 0;
    for (mmx_index p = 0; p < np0; p++)
        if (w.goff[p + 1] - w.goff[p] > gmax) gmax = w.goff[p + 1] - w.goff[p];

    /* The new patches, in follow's order: each old patch's (one when clean), and the faces'
     * owners. The cuts are kept (all the dirty groups' pieces, concatenated). */
    s = mmx__host_alloc(ctx, 1, sizeof *nx, (void **)&nx);
    if (s) goto out;
    memset(nx, 0, sizeof *nx);
    nx->ctx = ctx, nx->space = MMX_SPACE_HOST;
    nx->nverts = V1, nx->nfaces = F1, nx->nedges = E1;
    nx->order = old->order, nx->max_faces = old->max_faces, nx->bad_edge = -1;
    TAKE(u.pieces, gmax), TAKE(u.brk, gmax + 1);
    TAKE(allp, w.goff[np0]), TAKE(allb, w.goff[np0] + 1);
    if (s) goto out;
    mmx_index np1 = 0;
    for (mmx_index p = 0; p < np0; p++) {
        w.pnew[p] = np1;
        if (!w.pdirty[p]) {
            np1++;
            continue;
        }
        const mmx_index n = w.goff[p + 1] - w.goff[p];
        if (n == 0) continue; /* every face gone: the label vanishes */
        s = cut_group(&u, w.gface + w.goff[p], n);
        if (s) goto out;
        for (mmx_index i = 0; i < n; i++) allp[w.goff[p] + i] = u.pieces[i];
        for (mmx_index j = 0; j < u.nbrk; j++) allb[npieces++] = w.goff[p] + u.brk[j];
        np1 += u.nbrk;
    }
    w.pnew[np0] = np1;
    allb[npieces] = w.goff[np0];
    nx->npatches = np1;
    TAKE(nx->face_patch, F1), TAKE(nx->edge_patch, E1), TAKE(nx->vert_patch, V1);
    TAKE(nx->face_off, np1 + 1), TAKE(nx->edge_off, np1 + 1), TAKE(nx->vert_off, np1 + 1);
    TAKE(nx->corner_off, np1 + 1), TAKE(nx->owned, 3 * (size_t)np1);
    if (s) goto out;
    for (mmx_index p = 0, k = 0; p < np0; p++) {
        if (!w.pdirty[p]) {
            mmx__plocal L;
            mmx__pl_setup_direct(old, p, &L);
            for (mmx_index l = 0; l < L.of; l++) nx->face_patch[w.img[L.gf[l]]] = w.pnew[p];
            continue;
        }
        for (mmx_index q = w.pnew[p]; q < w.pnew[p + 1]; q++, k++)
            for (mmx_index i = allb[k]; i < allb[k + 1]; i++) nx->face_patch[allp[i]] = q;
    }
    /* Owners of the edges and vertices: the patch of their face of smallest number. */
    for (mmx_index e = 0; e < E1; e++) nx->edge_patch[e] = -1;
    for (mmx_index v = 0; v < V1; v++) nx->vert_patch[v] = -1;
    for (mmx_index f = 0; f < F1; f++) {
        int64_t a, b;
        mmx__csc_col(M, f, &a, &b);
        for (int64_t c = a; c < b; c++) {
            mmx_index *pe = &nx->edge_patch[fe[c] >> 1], *pv = &nx->vert_patch[M->rowidx[c]];
            if (*pe < 0) *pe = nx->face_patch[f];
            if (*pv < 0) *pv = nx->face_patch[f];
        }
    }

    /* The arrays: clean patches copied with their numbers remapped, dirty pieces built. */
    B.ctx = ctx, B.M = M, B.fe = fe, B.ev = ev, B.ps = nx;
    B.lf.size = B.le.size = B.lv.size = B.fst.size = sizeof(mmx_index);
    B.fe16.size = B.ev16.size = sizeof(uint16_t);
    if (ndirty > 0) {
        s = mmx__patch_incidence(ctx, M, NULL, V1, (mmx_index **)&B.vf_off, (mmx_index **)&B.vf);
        TAKE(B.mark_f, F1), TAKE(B.mark_e, E1), TAKE(B.mark_v, V1), TAKE(B.loc_e, E1);
        TAKE(B.loc_v, V1), TAKE(B.tmp_e, E1), TAKE(B.tmp_v, V1);
        if (s) goto out;
        for (mmx_index f = 0; f < F1; f++) B.mark_f[f] = -1;
        for (mmx_index e = 0; e < E1; e++) B.mark_e[e] = -1;
        for (mmx_index v = 0; v < V1; v++) B.mark_v[v] = -1;
    }
    nx->face_off[0] = nx->edge_off[0] = nx->vert_off[0] = nx->corner_off[0] = 0;
    mmx_patch_stats *st = &nx->stats;
    for (mmx_index p = 0, k = 0; p < np0 && !s; p++) {
        if (w.pdirty[p]) {
            for (mmx_index q = w.pnew[p]; q < w.pnew[p + 1] && !s; q++, k++)
                s = mmx__patch_locals(&B, q, allp + allb[k], allb[k + 1] - allb[k]);
            continue;
        }
        mmx__plocal L;
        mmx__pl_setup_direct(old, p, &L);
        const mmx_index q = w.pnew[p];
        if ((s = mmx__pgrow_to(ctx, &B.lf, B.lf.n + (size_t)L.nf))) break;
        if ((s = mmx__pgrow_to(ctx, &B.le, B.le.n + (size_t)L.ne))) break;
        if ((s = mmx__pgrow_to(ctx, &B.lv, B.lv.n + (size_t)L.nv))) break;
        if ((s = mmx__pgrow_to(ctx, &B.fe16, B.fe16.n + (size_t)L.nc))) break;
        if ((s = mmx__pgrow_to(ctx, &B.ev16, B.ev16.n + 2 * (size_t)L.ne))) break;
        if (!nx->order && (s = mmx__pgrow_to(ctx, &B.fst, B.fst.n + (size_t)L.nf))) break;
        mmx_index *lf = (mmx_index *)B.lf.p + B.lf.n, *le = (mmx_index *)B.le.p + B.le.n;
        mmx_index *lv = (mmx_index *)B.lv.p + B.lv.n;
        for (mmx_index i = 0; i < L.nf; i++) lf[i] = w.img[L.gf[i]];
        for (mmx_index i = 0; i < L.ne; i++) le[i] = w.emap[L.ge[i]];
        for (mmx_index i = 0; i < L.nv; i++) lv[i] = w.psi[L.gv[i]];
        memcpy((uint16_t *)B.fe16.p + B.fe16.n, L.fe, (size_t)L.nc * sizeof *L.fe);
        memcpy((uint16_t *)B.ev16.p + B.ev16.n, L.ev, 2 * (size_t)L.ne * sizeof *L.ev);
        if (!nx->order)
            memcpy((mmx_index *)B.fst.p + B.fst.n, L.fs, (size_t)L.nf * sizeof *L.fs);
        B.lf.n += (size_t)L.nf, B.le.n += (size_t)L.ne, B.lv.n += (size_t)L.nv;
        B.fe16.n += (size_t)L.nc, B.ev16.n += 2 * (size_t)L.ne;
        if (!nx->order) B.fst.n += (size_t)L.nf;
        nx->owned[3 * q] = L.of, nx->owned[3 * q + 1] = L.oe, nx->owned[3 * q + 2] = L.ov;
        nx->face_off[q + 1] = (mmx_index)B.lf.n, nx->edge_off[q + 1] = (mmx_index)B.le.n;
        nx->vert_off[q + 1] = (mmx_index)B.lv.n, nx->corner_off[q + 1] = (mmx_index)B.fe16.n;
        if (L.nf > st->max_local_faces) st->max_local_faces = L.nf;
        if (L.ne > st->max_local_edges) st->max_local_edges = L.ne;
        if (L.nv > st->max_local_verts) st->max_local_verts = L.nv;
        if (L.nc > nx->max_corners) nx->max_corners = L.nc;
        const size_t ws = mmx__patch_scratch_bytes(L.nf, L.ne, L.nv, L.nc);
        if (ws > nx->max_scratch) nx->max_scratch = ws;
        if (q == 0 || L.of < st->min_faces) st->min_faces = L.of;
        if (L.of > st->max_faces) st->max_faces = L.of;
    }
    if (s) goto out;
    /* The lists become the set's arrays (at least one item each, so none is NULL). */
    nx->l2g_f = B.lf.p, nx->l2g_e = B.le.p, nx->l2g_v = B.lv.p;
    nx->fe = B.fe16.p, nx->ev = B.ev16.p, nx->fstart = B.fst.p;
    B.lf.p = B.le.p = B.lv.p = B.fe16.p = B.ev16.p = B.fst.p = NULL;
    if (!nx->l2g_f) TAKE(nx->l2g_f, 0);
    if (!nx->l2g_e) TAKE(nx->l2g_e, 0);
    if (!nx->l2g_v) TAKE(nx->l2g_v, 0);
    if (!nx->fe) TAKE(nx->fe, 0);
    if (!nx->ev) TAKE(nx->ev, 0);
    if (!nx->order && !nx->fstart) TAKE(nx->fstart, 0);
    if (s) goto out;
    int64_t owned_v = 0;
    for (mmx_index q = 0; q < np1; q++) owned_v += nx->owned[3 * q + 2];
    mmx__patch_stats_finish(nx, nx->face_off[np1], nx->edge_off[np1], nx->vert_off[np1],
                            nx->corner_off[np1], owned_v);
    nx->bad_edge = first_inconsistent(M, fe, E1, w.ecnt, w.efirst, w.esame);
    /* The build-time owners go, as after a build; the counters of updates carry over. */
    mmx_mem_free(ctx, MMX_SPACE_HOST, nx->edge_patch), nx->edge_patch = NULL;
    mmx_mem_free(ctx, MMX_SPACE_HOST, nx->vert_patch), nx->vert_patch = NULL;
    st->updates = old->stats.updates + 1;
    st->updates_incremental = old->stats.updates_incremental + 1;
    st->update_patches = old->stats.update_patches + np0;
    st->update_dirty = old->stats.update_dirty + ndirty;
    {
        mmx_patch_set tmp = *ps;
        *ps = *nx;
        *nx = tmp;
    }
    *done = 1;
out:
    mmx_patch_set_free(nx);
    free(allp), free(allb), free(u.pieces), free(u.brk);
    free((void *)B.vf_off), free((void *)B.vf), free(B.mark_f), free(B.mark_e), free(B.mark_v);
    free(B.loc_e), free(B.loc_v), free(B.tmp_e), free(B.tmp_v);
    free(B.lf.p), free(B.le.p), free(B.lv.p), free(B.fst.p), free(B.fe16.p), free(B.ev16.p);
    work_free(&w);
    return s;
}
