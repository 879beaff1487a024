/* The refined partitioned mesh written as one file by all ranks (mmx_dist_subdivide_write),
 * with the single process's numbers, so that no rank gathers the result. Each rank refines
 * its local mesh as mmx_dist_subdivide does (one ghost ring; the descendants of its owned
 * faces are exact), then gives every vertex it needs the number mmx_subdivide gives it, level
 * by level (subdiv.h's layout): an old vertex keeps its number, a face point is V + the
 * face's number (Catmull-Clark, bilinear), an edge point V (+ F) + the edge's number in
 * mmx_adjacency's order (by the larger end j, then the smaller i). The edges' numbers are
 * the one thing no rank knows alone: each vertex j's count of smaller neighbours is sent, with
 * their numbers, to the rank of j's block of vertex numbers (by the rank owning j's face of
 * smallest number, which holds all of j's faces); the blocks' prefix sums give each j its
 * first edge, and a rank asks the block of j for the edges {i, j} it needs (those of the
 * faces sharing a vertex with its owned faces: what the next level's numbers read). The owned
 * faces' descendants and the vertices whose smallest-numbered face is owned are then written
 * by mmx__dist_write_records. Texture coordinates (OBJ) take the same numbering on the texture
 * mesh, or a distributed sort of their bits where the single process numbers them by value
 * (name_uv). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dist_internal.h"

static int cmp_i64(const void *x, const void *y)
{
    const int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* Per vertex of the faces (st, vt): whether an owned face uses it, and whether the face of
 * smallest global number using it is owned (the vertex is this rank's to count and write;
 * exact where an owned face uses it, since every face at such a vertex is local). */
static mmx_status vertex_rule(mmx_ctx *ctx, mmx_index nv, mmx_index nf, const mmx_index *st,
                              const mmx_index *vt, const int64_t *gf, const unsigned char *of,
                              unsigned char *inown, unsigned char *mine)
{
    int64_t *minf = NULL;
    mmx_status s = mmx__host_alloc(ctx, (size_t)nv + 1, sizeof *minf, (void **)&minf);
    if (s) return s;
    memset(inown, 0, (size_t)nv), memset(mine, 0, (size_t)nv);
    for (mmx_index v = 0; v < nv; v++) minf[v] = INT64_MAX;
    for (mmx_index f = 0; f < nf; f++)
        for (mmx_index c = st[f]; c < st[f + 1]; c++) {
            const mmx_index v = vt[c];
            inown[v] |= of[f];
            if (gf[f] < minf[v]) minf[v] = gf[f], mine[v] = of[f];
        }
    for (mmx_index v = 0; v < nv; v++) mine[v] &= inown[v];
    free(minf);
    return MMX_OK;
}

/* What this rank writes of a last level's n vertices (or texture values) at the local
 * corners (st, vt): vertex_rule's choice at a corner; one at no local corner, one of the
 * input's first n0 that no face uses, is written by its input owner (own0[v], or rank 0 where
 * own0 is NULL: dist_mesh.c gave such texture values to rank 0 alone); with vnew, none the
 * holes left out (vnew < 0). mine, scratch: room for n each. *count grows by the chosen. */
static mmx_status written_rule(mmx_ctx *ctx, int me, mmx_index n, mmx_index nf, const mmx_index *st,
                               const mmx_index *vt, const int64_t *gf, const unsigned char *of,
                               mmx_index n0, const unsigned char *own0, const int64_t *vnew,
                               unsigned char *scratch, unsigned char *mine, int64_t *count)
{
    mmx_status s = vertex_rule(ctx, n, nf, st, vt, gf, of, scratch, mine);
    if (s) return s;
    unsigned char *used = scratch; /* reused: at some local corner */
    memset(used, 0, (size_t)n);
    for (mmx_index c = 0; c < st[nf]; c++) used[vt[c]] = 1;
    for (mmx_index v = 0; v < n; v++) {
        mine[v] |= !used[v] && v < n0 && (own0 ? own0[v] : me == 0);
        if (vnew) mine[v] &= vnew[v] >= 0; /* of holes alone: left out */
        *count += mine[v];
    }
    return MMX_OK;
}

/* The global number of the edge (c, next corner) of every corner of a face that shares a
 * vertex with an owned face (cedge; -1 elsewhere), and the whole level's edge count *E, for
 * the level of V vertices whose local faces are (st, vt) with global vertex numbers gv (known
 * on those faces' vertices), face numbers gf and owned flags of. Collective. */
static mmx_status number_edges(mmx_ctx *ctx, mmx_dist *d, mmx_index nv, mmx_index nf,
                               const mmx_index *st, const mmx_index *vt, const int64_t *gv,
                               const int64_t *gf, const unsigned char *of, int64_t V,
                               int64_t *cedge, int64_t *E, mmx_index *nedges, int64_t *sent)
{
    const int R = d->size, me = d->rank;
    const size_t nnz = (size_t)st[nf];
    uint64_t *ka = NULL, *ktmp = NULL;
    mmx_index *idx = NULL, *itmp = NULL, *sorted = NULL, *eid = NULL, *ea = NULL, *eb = NULL;
    mmx_index *noff = NULL, *nb = NULL, *qe = NULL;
    unsigned char *inown = NULL, *mine = NULL, *need = NULL;
    int64_t *sc = NULL, *at = NULL, *dep = NULL, *drecv = NULL, *pre = NULL, *all = NULL;
    int64_t *q = NULL, *qrecv = NULL, *ans = NULL, *arecv = NULL, *rq = NULL;
    int64_t ndw = 0, nqw = 0, nd_recv = 0, nq_recv = 0, na = 0;
    mmx_index ne = 0;
    mmx_status s = mmx__host_alloc(ctx, nnz + 1, sizeof *ka, (void **)&ka);
    if (!s) s = mmx__host_alloc(ctx, nnz + 1, sizeof *ktmp, (void **)&ktmp);
    if (!s) s = mmx__host_alloc(ctx, nnz + 1, sizeof *idx, (void **)&idx);
    if (!s) s = mmx__host_alloc(ctx, nnz + 1, sizeof *itmp, (void **)&itmp);
    if (!s) s = mmx__host_alloc(ctx, nnz + 1, sizeof *eid, (void **)&eid);
    if (!s) s = mmx__host_alloc(ctx, nnz + 1, sizeof *ea, (void **)&ea);
    if (!s) s = mmx__host_alloc(ctx, nnz + 1, sizeof *eb, (void **)&eb);
    if (!s) s = mmx__host_alloc(ctx, nnz + 1, 1, (void **)&need);
    if (!s) s = mmx__host_alloc(ctx, nnz + 1, sizeof *qe, (void **)&qe);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nv + 1, 1, (void **)&inown);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nv + 1, 1, (void **)&mine);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nv + 2, sizeof *noff, (void **)&noff);
    if (!s) s = mmx__host_alloc(ctx, 2 * nnz + 1, sizeof *nb, (void **)&nb);
    if (!s) s = mmx__host_alloc(ctx, 2 * (size_t)R + 1, sizeof *sc, (void **)&sc);
    if (!s) s = mmx__host_alloc(ctx, (size_t)R + 1, sizeof *all, (void **)&all);
    if (!s) s = mmx__host_alloc(ctx, (size_t)R + 1, sizeof *rq, (void **)&rq);
    if (!s) s = vertex_rule(ctx, nv, nf, st, vt, gf, of, inown, mine);
    if (s) goto agree;
    /* The local edges: each corner's (min, max), sorted, runs made one. */
    for (mmx_index f = 0; f < nf; f++)
        for (mmx_index c = st[f], n = st[f + 1] - st[f]; c < st[f + 1]; c++) {
            const mmx_index a = vt[c], b = vt[st[f] + (c - st[f] + 1) % n];
            ka[c] = (uint64_t)(a < b ? a : b) << 32 | (uint64_t)(a < b ? b : a);
            idx[c] = c;
        }
    const uint64_t *sk = mmx__radix_sort_u64(ka, ktmp, idx, itmp, nnz, 0, 64, &sorted);
    for (size_t i = 0; i < nnz; i++) {
        if (i == 0 || sk[i] != sk[i - 1]) {
            ea[ne] = (mmx_index)(sk[i] >> 32), eb[ne] = (mmx_index)(sk[i] & 0xffffffffu);
            need[ne++] = 0;
        }
        eid[sorted[i]] = ne - 1;
    }
    /* The neighbours of each vertex (both ends of each edge). */
    memset(noff, 0, ((size_t)nv + 2) * sizeof *noff);
    for (mmx_index e = 0; e < ne; e++) noff[ea[e] + 2]++, noff[eb[e] + 2]++;
    for (mmx_index v = 0; v < nv; v++) noff[v + 2] += noff[v + 1];
    for (mmx_index e = 0; e < ne; e++) nb[noff[ea[e] + 1]++] = eb[e], nb[noff[eb[e] + 1]++] = ea[e];
    /* This rank's vertices j, each with its smaller neighbours' numbers, ascending, to j's
     * block: [j, count, i ...]. */
    memset(sc, 0, 2 * (size_t)R * sizeof *sc);
    for (mmx_index v = 0; v < nv && !s; v++) {
        if (!mine[v]) continue;
        int64_t k = 0, unknown = gv[v] < 0;
        for (mmx_index x = noff[v]; x < noff[v + 1]; x++)
            unknown |= gv[nb[x]] < 0, k += gv[nb[x]] < gv[v];
        if (unknown)
            s = mmx__fail(ctx, MMX_ERR_INTERNAL, "mmx_dist_subdivide_write: a vertex of an "
                          "owned face's one-ring has no number");
        else
            sc[mmx__dist_block_of(gv[v], V, R)] += 2 + k, ndw += 2 + k;
    }
    if (!s) s = mmx__host_alloc(ctx, (size_t)ndw + 1, sizeof *dep, (void **)&dep);
    if (s) goto agree;
    {
        int64_t *pos = all; /* each block's next word */
        pos[0] = 0;
        for (int r = 1; r < R; r++) pos[r] = pos[r - 1] + sc[r - 1];
        for (mmx_index v = 0; v < nv; v++) {
            if (!mine[v]) continue;
            const int b = mmx__dist_block_of(gv[v], V, R);
            int64_t *w = dep + pos[b], k = 0;
            for (mmx_index x = noff[v]; x < noff[v + 1]; x++)
                if (gv[nb[x]] < gv[v]) w[2 + k++] = gv[nb[x]];
            qsort(w + 2, (size_t)k, sizeof *w, cmp_i64);
            w[0] = gv[v], w[1] = k, pos[b] += 2 + k;
        }
    }
    /* The edges asked: those of the faces sharing a vertex with an owned face. */
    for (mmx_index f = 0; f < nf; f++) {
        int near = 0;
        for (mmx_index c = st[f]; c < st[f + 1]; c++) near |= inown[vt[c]];
        for (mmx_index c = st[f]; near && c < st[f + 1]; c++) need[eid[c]] = 1;
    }
    memset(sc + R, 0, (size_t)R * sizeof *sc);
    for (mmx_index e = 0; e < ne && !s; e++) {
        if (!need[e]) continue;
        if (gv[ea[e]] < 0 || gv[eb[e]] < 0)
            s = mmx__fail(ctx, MMX_ERR_INTERNAL, "mmx_dist_subdivide_write: an edge near an "
                          "owned face has an end without a number");
        else
            sc[R + mmx__dist_block_of(gv[ea[e]] > gv[eb[e]] ? gv[ea[e]] : gv[eb[e]], V, R)] += 2, nqw += 2;
    }
    if (!s) s = mmx__host_alloc(ctx, (size_t)nqw + 1, sizeof *q, (void **)&q);
    if (!s) {
        int64_t *pos = all;
        pos[0] = 0;
        for (int r = 1; r < R; r++) pos[r] = pos[r - 1] + sc[R + r - 1];
        for (mmx_index e = 0; e < ne; e++) {
            if (!need[e]) continue;
            const int64_t x = gv[ea[e]], y = gv[eb[e]], j = x > y ? x : y, i = x > y ? y : x;
            const int b = mmx__dist_block_of(j, V, R);
            q[pos[b]] = j, q[pos[b] + 1] = i, qe[pos[b] / 2] = e, pos[b] += 2;
        }
    }
agree:
    s = mmx_dist_agree(ctx, d, s);
    if (!s) s = mmx__dist_send_words(ctx, d, dep, sc, &drecv, &nd_recv, NULL);
    if (sent) *sent += 8 * (ndw + 2 * nqw);
    /* This rank's block: each j's place among the words received, its first edge. */
    const int64_t b0 = V ? mmx__dist_block_start(me, V, R) : 0;
    const int64_t b1 = V ? mmx__dist_block_start(me + 1, V, R) : 0;
    if (!s) s = mmx__host_alloc(ctx, (size_t)(b1 - b0) + 1, sizeof *at, (void **)&at);
    if (!s) s = mmx__host_alloc(ctx, (size_t)(b1 - b0) + 1, sizeof *pre, (void **)&pre);
    int64_t total = 0;
    if (!s) {
        for (int64_t j = 0; j < b1 - b0; j++) at[j] = -1;
        for (int64_t i = 0; i < nd_recv && !s; i += 2 + drecv[i + 1]) {
            if (at[drecv[i] - b0] >= 0)
                s = mmx__fail(ctx, MMX_ERR_INTERNAL, "mmx_dist_subdivide_write: vertex %lld "
                              "counted by two ranks", (long long)drecv[i]);
            at[drecv[i] - b0] = i;
        }
        for (int64_t j = 0; j < b1 - b0; j++) pre[j] = total, total += at[j] >= 0 ? drecv[at[j] + 1] : 0;
    }
    s = mmx_dist_agree(ctx, d, s);
    if (!s) s = mmx__dist_allgather_i64(ctx, d, &total, 1, all);
    int64_t base = 0;
    *E = 0;
    for (int r = 0; !s && r < R; r++) base += r < me ? all[r] : 0, *E += all[r];
    /* The questions: answered from the block, sent back in the order they came. */
    if (!s) {
        for (int r = 0; r < R; r++) sc[r] = sc[R + r];
        s = mmx__dist_send_words(ctx, d, q, sc, &qrecv, &nq_recv, rq);
    }
    if (!s) s = mmx__host_alloc(ctx, (size_t)(nq_recv / 2) + 1, sizeof *ans, (void **)&ans);
    for (int64_t k = 0; !s && k < nq_recv; k += 2) {
        const int64_t j = qrecv[k], i = qrecv[k + 1], w = at[j - b0];
        const int64_t *lst = w >= 0 ? drecv + w + 2 : NULL, n = w >= 0 ? drecv[w + 1] : 0;
        const int64_t *hit = lst ? bsearch(&i, lst, (size_t)n, sizeof *lst, cmp_i64) : NULL;
        if (!hit) {
            s = mmx__fail(ctx, MMX_ERR_INTERNAL, "mmx_dist_subdivide_write: edge {%lld, %lld} "
                          "asked of its block is not there", (long long)i, (long long)j);
            break;
        }
        ans[k / 2] = base + pre[j - b0] + (hit - lst);
    }
    s = mmx_dist_agree(ctx, d, s);
    if (!s) {
        for (int r = 0; r < R; r++) sc[r] = rq[r] / 2;
        s = mmx__dist_send_words(ctx, d, ans, sc, &arecv, &na, NULL);
    }
    if (!s && na != nqw / 2)
        s = mmx__fail(ctx, MMX_ERR_INTERNAL, "mmx_dist_subdivide_write: %lld answers to %lld "
                      "questions", (long long)na, (long long)(nqw / 2));
    s = mmx_dist_agree(ctx, d, s);
    if (!s) {
        int64_t *eg = ka ? (int64_t *)(void *)ktmp : NULL; /* ne <= nnz entries */
        for (mmx_index e = 0; e < ne; e++) eg[e] = -1;
        for (int64_t k = 0; k < na; k++) eg[qe[k]] = arecv[k];
        for (size_t c = 0; c < nnz; c++) cedge[c] = eg[eid[c]];
        *nedges = ne;
    }
    free(ka), free(ktmp), free(idx), free(itmp), free(eid), free(ea), free(eb), free(noff);
    free(nb), free(qe), free(inown), free(mine), free(need), free(sc), free(at), free(dep);
    free(drecv), free(pre), free(all), free(q), free(qrecv), free(ans), free(arecv), free(rq);
    return s;
}

/* The global numbers of every level's vertices (collective), level by level as subdiv.h lays
 * them out: an old vertex keeps its number, a face point is V + its face's number
 * (Catmull-Clark, bilinear), an edge point V (+ F) + its edge's (number_edges). The levels'
 * faces are (nfl, lst, vt: each level's corners, vt[0] the local mesh's); n0 vertices at
 * level 0 with global numbers g0 of *V; out: *n vertices of the last level, *gv their numbers
 * (-1 where not known: far from the owned faces), *gf and *of the last level's faces' numbers
 * and owned flags, *V and *F the whole's counts there. The texture coordinates take the same
 * way as vertices (vt their corners' values, g0 their global numbers): their texture mesh is
 * refined with the vertices' layout. */
static mmx_status number_levels(mmx_ctx *ctx, const mmx_dist_mesh *dm, int loop, int L,
                                const mmx_index *nfl, mmx_index *const *lst, mmx_index *const *lvt,
                                mmx_index n0, const int64_t *g0, mmx_index *nout, int64_t *Vio,
                                int64_t *Fio, int64_t **gvo, int64_t **gfo, unsigned char **ofo,
                                int64_t *sent)
{
    mmx_dist *d = dm->d;
    const mmx_index nf0 = nfl[0];
    int64_t *gv = NULL, *gf = NULL, *cedge = NULL, *ngv = NULL, *ngf = NULL;
    unsigned char *of = NULL, *nof = NULL;
    mmx_index nv = n0;
    mmx_status s = mmx__host_alloc(ctx, (size_t)n0 + 1, sizeof *gv, (void **)&gv);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nf0 + 1, sizeof *gf, (void **)&gf);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nf0 + 1, 1, (void **)&of);
    if (!s) {
        memcpy(gv, g0, (size_t)n0 * sizeof *gv);
        memcpy(gf, dm->gf, (size_t)nf0 * sizeof *gf);
        memcpy(of, dm->of, (size_t)nf0);
    }
    int64_t V = *Vio, F = *Fio;
    for (int l = 0; l < L; l++) {
        int64_t E = 0;
        mmx_index ne = 0;
        s = mmx_dist_agree(ctx, d, s);
        if (s) break;
        const mmx_index nf = nfl[l], ncf = nfl[l + 1];
        s = mmx__host_alloc(ctx, (size_t)lst[l][nf] + 1, sizeof *cedge, (void **)&cedge);
        s = mmx_dist_agree(ctx, d, s);
        if (s) break;
        s = number_edges(ctx, d, nv, nf, lst[l], lvt[l], gv, gf, of, V, cedge, &E, &ne, sent);
        if (s) break;
        const mmx_index ncv = nv + (loop ? 0 : nf) + ne;
        s = mmx__host_alloc(ctx, (size_t)ncv + 1, sizeof *ngv, (void **)&ngv);
        if (!s) s = mmx__host_alloc(ctx, (size_t)ncf + 1, sizeof *ngf, (void **)&ngf);
        if (!s) s = mmx__host_alloc(ctx, (size_t)ncf + 1, 1, (void **)&nof);
        if (!s) {
            memcpy(ngv, gv, (size_t)nv * sizeof *ngv);
            for (mmx_index v = nv; v < ncv; v++) ngv[v] = -1;
        }
        const int64_t VF = V + (loop ? 0 : F);
        mmx_index j = 0;
        for (mmx_index i = 0; i < nf && !s; i++) {
            const mmx_index a = lst[l][i], c = lst[l][i + 1] - a, nch = loop ? 4 : c;
            const int64_t first = !loop && l == 0 ? dm->gface_corner[i] : 4 * gf[i];
            for (mmx_index k = 0; k < nch; k++, j++) {
                ngf[j] = first + k, nof[j] = of[i];
                const mmx_index *ch = lvt[l + 1] + lst[l + 1][j];
                if (j >= ncf || lst[l + 1][j + 1] - lst[l + 1][j] != (loop ? 3 : 4) ||
                    (!loop && (ch[0] != lvt[l][a + k] || ch[1] >= ncv || ch[2] >= ncv))) {
                    s = mmx__fail(ctx, MMX_ERR_INTERNAL, "mmx_dist_subdivide_write: child face "
                                  "%d of level %d is not laid out as subdiv.h states", j, l + 1);
                    break;
                }
                if (loop) {
                    for (int e = 0; k == 0 && e < 3; e++)
                        if (cedge[a + e] >= 0) ngv[ch[e]] = V + cedge[a + e];
                } else {
                    ngv[ch[2]] = V + gf[i];
                    if (cedge[a + k] >= 0) ngv[ch[1]] = VF + cedge[a + k];
                }
            }
        }
        if (!s && j != ncf)
            s = mmx__fail(ctx, MMX_ERR_INTERNAL, "mmx_dist_subdivide_write: level %d has %d "
                          "faces, its parents make %d", l + 1, ncf, j);
        free(gv), free(gf), free(of), free(cedge);
        gv = ngv, gf = ngf, of = nof, cedge = NULL, ngv = NULL, ngf = NULL, nof = NULL;
        const int64_t nextF = !loop && l == 0 ? dm->gnnz : 4 * F;
        V = VF + E, F = nextF, nv = ncv;
        /* a rank's failure here is every rank's before the next level's collectives */
        s = mmx_dist_agree(ctx, d, s);
        if (s) break;
    }
    *nout = nv, *Vio = V, *Fio = F;
    free(cedge), free(ngv), free(ngf), free(nof);
    if (s) free(gv), free(gf), free(of), gv = NULL, gf = NULL, of = NULL;
    *gvo = gv, *gfo = gf, *ofo = of;
    return s;
}

/* Numbers 64-bit keys by value over the ranks (collective): each rank gives n keys (any, the
 * same ones on several ranks or twice); out[i] gets keys[i]'s place among the distinct keys of
 * every rank in ascending order, *total their count. Through blocks of the key range (its top
 * 32 bits cut in R ranges, so the blocks follow each other in key order): this rank's block's
 * distinct keys come back in *mine (malloc'd, ascending), *nmine of them, numbered from *first.
 * One all-to-all of 8 bytes a key there and back, an all-gather of one count. */
static int key_block(uint64_t k, int R)
{
    return (int)(((k >> 32) * (uint64_t)R) >> 32);
}

static mmx_status number_by_value(mmx_ctx *ctx, mmx_dist *d, int64_t n, const uint64_t *keys,
                                  int64_t *out, int64_t *total, uint64_t **mine, int64_t *nmine,
                                  int64_t *first, int64_t *sent)
{
    const int R = d->size, me = d->rank;
    int64_t *sc = NULL, *pos = NULL, *w = NULL, *perm = NULL, *recv = NULL, *rw = NULL;
    int64_t *back = NULL, *all = NULL, nr = 0, nb = 0, m = 0;
    uint64_t *k = NULL, *ktmp = NULL, *uk = NULL;
    mmx_status s = mmx__host_alloc(ctx, 2 * (size_t)R + 1, sizeof *sc, (void **)&sc);
    if (!s) s = mmx__host_alloc(ctx, (size_t)R + 1, sizeof *pos, (void **)&pos);
    if (!s) s = mmx__host_alloc(ctx, (size_t)R + 1, sizeof *rw, (void **)&rw);
    if (!s) s = mmx__host_alloc(ctx, (size_t)R + 1, sizeof *all, (void **)&all);
    if (!s) s = mmx__host_alloc(ctx, (size_t)n + 1, sizeof *w, (void **)&w);
    if (!s) s = mmx__host_alloc(ctx, (size_t)n + 1, sizeof *perm, (void **)&perm);
    if (!s) {
        memset(sc, 0, 2 * (size_t)R * sizeof *sc);
        for (int64_t i = 0; i < n; i++) sc[key_block(keys[i], R)]++;
        pos[0] = 0;
        for (int q = 1; q < R; q++) pos[q] = pos[q - 1] + sc[q - 1];
        for (int64_t i = 0; i < n; i++) {
            const int q = key_block(keys[i], R);
            memcpy(w + pos[q], keys + i, sizeof *w), perm[pos[q]++] = i;
        }
    }
    s = mmx_dist_agree(ctx, d, s);
    if (!s) s = mmx__dist_send_words(ctx, d, w, sc, &recv, &nr, rw);
    if (sent) *sent += 16 * n;
    if (!s) s = mmx__host_alloc(ctx, (size_t)nr + 1, sizeof *k, (void **)&k);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nr + 1, sizeof *ktmp, (void **)&ktmp);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nr + 1, sizeof *uk, (void **)&uk);
    if (!s) {
        memcpy(k, recv, (size_t)nr * sizeof *k);
        const uint64_t *sk = mmx__radix_sort_u64(k, ktmp, NULL, NULL, (size_t)nr, 0, 64, NULL);
        for (int64_t i = 0; i < nr; i++)
            if (i == 0 || sk[i] != sk[i - 1]) uk[m++] = sk[i];
    }
    s = mmx_dist_agree(ctx, d, s);
    if (!s) s = mmx__dist_allgather_i64(ctx, d, &m, 1, all);
    int64_t base = 0;
    *total = 0;
    for (int q = 0; !s && q < R; q++) base += q < me ? all[q] : 0, *total += all[q];
    for (int64_t i = 0; !s && i < nr; i++) { /* the answers, in place, in the order asked */
        uint64_t x;
        memcpy(&x, recv + i, sizeof x);
        int64_t lo = 0, hi = m; /* the first distinct key >= x: x itself */
        while (lo < hi) {
            const int64_t mid = lo + (hi - lo) / 2;
            if (uk[mid] < x) lo = mid + 1;
            else hi = mid;
        }
        recv[i] = base + lo;
    }
    if (!s) s = mmx__dist_send_words(ctx, d, recv, rw, &back, &nb, NULL);
    if (!s && nb != n)
        s = mmx__fail(ctx, MMX_ERR_INTERNAL, "mmx_dist_subdivide_write: %lld answers to %lld "
                      "keys", (long long)nb, (long long)n);
    s = mmx_dist_agree(ctx, d, s);
    for (int64_t i = 0; !s && i < n; i++) out[perm[i]] = back[i];
    if (!s) *mine = uk, uk = NULL, *nmine = m, *first = base;
    free(sc), free(pos), free(w), free(perm), free(recv), free(rw), free(back), free(all);
    free(k), free(ktmp), free(uk);
    return s;
}

/* The texture coordinates of the written share (OBJ; collective), as the single process
 * numbers them (subdiv/uv.c): by the refined texture mesh's layout (Catmull-Clark's and
 * bilinear's linear mode, the smooth modes: number_levels on the texture mesh, whose faces are
 * the vertices' faces with the values at their corners; each value written by the rank owning
 * its smallest-numbered face, rank 0 writing the values no face uses), or, where the single
 * process numbers them by value (by_value: Loop's linear mode, a texture mesh that a mesh
 * matrix cannot hold), by their bits over the ranks (number_by_value), each value written by
 * its block. base and last: the local mesh and its refinement (host), nfl and lst the levels'
 * faces, of and gf the last level's owned flags and face numbers; out: *T the whole's values,
 * the written ones (*nt: numbers *tg, 2 floats each in *rows) and each owned face's corners'
 * values, in face order (*tc, nwc of them). */
static mmx_status name_uv(mmx_ctx *ctx, const mmx_dist_mesh *dm, int loop, int L, int by_value,
                          const mmx_mesh *base, const mmx_mesh *last, const mmx_index *nfl,
                          mmx_index *const *lst, const unsigned char *of, const int64_t *gf,
                          int64_t nwc, int64_t *T, int64_t *nt, int64_t **tg, float **rows,
                          int64_t **tc, int64_t *sent)
{
    mmx_dist *d = dm->d;
    const mmx_mesh_uv *ub = base->uv, *ul = L > 0 ? last->uv : base->uv;
    const mmx_index nfL = nfl[L];
    mmx_index **luv = NULL, nu = 0;
    int64_t *gu = NULL, *gfu = NULL;
    unsigned char *ofu = NULL, *inown = NULL, *mine = NULL;
    uint64_t *keys = NULL, *mk = NULL;
    int64_t nmk = 0, first = 0, Fu = dm->gfaces;
    *T = dm->guvs, *nt = 0;
    mmx_status s = MMX_OK;
    if (!ub || !ul || ub->space != MMX_SPACE_HOST || ul->space != MMX_SPACE_HOST)
        s = mmx__fail(ctx, MMX_ERR_INTERNAL, "mmx_dist_subdivide_write: the refined local mesh "
                      "has no texture coordinates on the host");
    if (!s) s = mmx__host_alloc(ctx, (size_t)nwc + 1, sizeof **tc, (void **)tc);
    if (by_value) {
        if (!s) s = mmx__host_alloc(ctx, (size_t)nwc + 1, sizeof *keys, (void **)&keys);
        for (mmx_index f = 0, i = 0; !s && f < nfL; f++)
            for (mmx_index c = lst[L][f]; of[f] && c < lst[L][f + 1]; c++) {
                uint32_t u, v;
                memcpy(&u, ul->values + 2 * (size_t)ul->index[c], 4);
                memcpy(&v, ul->values + 2 * (size_t)ul->index[c] + 1, 4);
                keys[i++] = (uint64_t)u << 32 | v;
            }
        s = mmx_dist_agree(ctx, d, s);
        if (!s) s = number_by_value(ctx, d, nwc, keys, *tc, T, &mk, &nmk, &first, sent);
        if (!s) s = mmx__host_alloc(ctx, (size_t)nmk + 1, sizeof **tg, (void **)tg);
        if (!s) s = mmx__host_alloc(ctx, 2 * (size_t)nmk + 1, sizeof **rows, (void **)rows);
        for (int64_t i = 0; !s && i < nmk; i++) {
            const uint32_t u = (uint32_t)(mk[i] >> 32), v = (uint32_t)(mk[i] & 0xffffffffu);
            (*tg)[i] = first + i;
            memcpy(*rows + 2 * i, &u, 4), memcpy(*rows + 2 * i + 1, &v, 4);
        }
        if (!s) *nt = nmk;
        goto done;
    }
    /* The levels' corners' values: the last level's, and the levels between from its layout
     * (a child's first corner keeps its parent's corner: subdiv.h), as the vertices'. */
    if (!s) s = mmx__host_alloc(ctx, (size_t)L + 1, sizeof *luv, (void **)&luv);
    if (!s) {
        memset(luv, 0, ((size_t)L + 1) * sizeof *luv);
        luv[0] = ub->index, luv[L] = ul->index;
    }
    for (int l = L - 1; l >= 1 && !s; l--) {
        const int c = loop ? 3 : 4;
        s = mmx__host_alloc(ctx, (size_t)nfl[l] * (size_t)c + 1, sizeof **luv, (void **)&luv[l]);
        for (mmx_index f = 0; !s && f < nfl[l]; f++)
            for (int k = 0; k < c; k++) luv[l][c * f + k] = luv[l + 1][lst[l + 1][4 * f + k + loop]];
    }
    s = mmx_dist_agree(ctx, d, s);
    if (!s) s = number_levels(ctx, dm, loop, L, nfl, lst, luv, ub->nvalues, dm->guv, &nu, T, &Fu,
                              &gu, &gfu, &ofu, sent);
    if (!s && nu != ul->nvalues)
        s = mmx__fail(ctx, MMX_ERR_INTERNAL, "mmx_dist_subdivide_write: %d texture coordinates "
                      "numbered, the refined local mesh has %d", nu, ul->nvalues);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nu + 1, 1, (void **)&inown);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nu + 1, 1, (void **)&mine);
    if (!s) s = written_rule(ctx, d->rank, nu, nfL, lst[L], luv[L], gf, of, ub->nvalues, NULL, NULL,
                             inown, mine, nt);
    if (!s) s = mmx__host_alloc(ctx, (size_t)*nt + 1, sizeof **tg, (void **)tg);
    if (!s) s = mmx__host_alloc(ctx, 2 * (size_t)*nt + 1, sizeof **rows, (void **)rows);
    for (mmx_index v = 0, i = 0; !s && v < nu; v++) {
        if (!mine[v]) continue;
        if (gu[v] < 0)
            s = mmx__fail(ctx, MMX_ERR_INTERNAL, "mmx_dist_subdivide_write: a written texture "
                          "coordinate has no number");
        (*tg)[i] = gu[v];
        memcpy(*rows + 2 * (size_t)i++, ul->values + 2 * (size_t)v, 2 * sizeof **rows);
    }
    for (mmx_index f = 0, i = 0; !s && f < nfL; f++)
        for (mmx_index c = lst[L][f]; of[f] && c < lst[L][f + 1]; c++) {
            if (gu[luv[L][c]] < 0)
                s = mmx__fail(ctx, MMX_ERR_INTERNAL, "mmx_dist_subdivide_write: a corner of an "
                              "owned face has no texture coordinate's number");
            (*tc)[i++] = gu[luv[L][c]];
        }
done:
    if (!s && *T > INT32_MAX)
        s = mmx__fail(ctx, MMX_ERR_OVERFLOW, "mmx_dist_subdivide_write: %lld texture "
                      "coordinates: past the single-process writer's 32-bit numbers", (long long)*T);
    for (int l = 1; luv && l < L; l++) free(luv[l]);
    free(luv), free(gu), free(gfu), free(ofu), free(inown), free(mine), free(keys), free(mk);
    return s;
}

/* Numbers [0, N) flagged by the ranks together (collective): each rank gives n numbers g
 * (any number from any ranks, any times) with flags (OR'd); out[i] gets g[i]'s place among
 * the flagged numbers in order (its number once the others are left out), -1 where g[i] is
 * flagged nowhere; *total the flagged count. Through the blocks of numbers: one all-to-all of
 * 16 bytes a number there, 8 back, an all-gather of one count. */
static mmx_status compact(mmx_ctx *ctx, mmx_dist *d, int64_t N, int64_t n, const int64_t *g,
                          const unsigned char *flag, int64_t *out, int64_t *total, int64_t *sent)
{
    const int R = d->size, me = d->rank;
    int64_t *sc = NULL, *pos = NULL, *w = NULL, *perm = NULL, *recv = NULL, *rw = NULL;
    int64_t *ans = NULL, *back = NULL, *all = NULL, nr = 0, nb = 0;
    unsigned char *on = NULL;
    const int64_t b0 = N ? mmx__dist_block_start(me, N, R) : 0;
    const int64_t b1 = N ? mmx__dist_block_start(me + 1, N, R) : 0;
    mmx_status s = mmx__host_alloc(ctx, 2 * (size_t)R + 1, sizeof *sc, (void **)&sc);
    if (!s) s = mmx__host_alloc(ctx, (size_t)R + 1, sizeof *pos, (void **)&pos);
    if (!s) s = mmx__host_alloc(ctx, (size_t)R + 1, sizeof *rw, (void **)&rw);
    if (!s) s = mmx__host_alloc(ctx, (size_t)R + 1, sizeof *all, (void **)&all);
    if (!s) s = mmx__host_alloc(ctx, 2 * (size_t)n + 1, sizeof *w, (void **)&w);
    if (!s) s = mmx__host_alloc(ctx, (size_t)n + 1, sizeof *perm, (void **)&perm);
    if (!s) s = mmx__host_alloc(ctx, (size_t)(b1 - b0) + 1, 1, (void **)&on);
    if (!s) s = mmx__host_alloc(ctx, (size_t)(b1 - b0) + 1, sizeof *ans, (void **)&ans);
    if (!s) {
        memset(sc, 0, 2 * (size_t)R * sizeof *sc);
        for (int64_t i = 0; i < n; i++) sc[mmx__dist_block_of(g[i], N, R)] += 2;
        pos[0] = 0;
        for (int q = 1; q < R; q++) pos[q] = pos[q - 1] + sc[q - 1];
        for (int64_t i = 0; i < n; i++) {
            const int q = mmx__dist_block_of(g[i], N, R);
            w[pos[q]] = g[i], w[pos[q] + 1] = flag[i], perm[pos[q] / 2] = i, pos[q] += 2;
        }
    }
    s = mmx_dist_agree(ctx, d, s);
    if (!s) s = mmx__dist_send_words(ctx, d, w, sc, &recv, &nr, rw);
    if (sent) *sent += 16 * n;
    int64_t mine = 0, base = 0;
    if (!s) {
        memset(on, 0, (size_t)(b1 - b0) + 1);
        for (int64_t k = 0; k < nr; k += 2) on[recv[k] - b0] |= recv[k + 1] != 0;
        for (int64_t j = 0; j < b1 - b0; j++) ans[j] = on[j] ? mine++ : -1;
        s = mmx__dist_allgather_i64(ctx, d, &mine, 1, all);
    }
    *total = 0;
    for (int q = 0; !s && q < R; q++) base += q < me ? all[q] : 0, *total += all[q];
    for (int64_t k = 0; !s && k < nr; k += 2) {
        const int64_t a = ans[recv[k] - b0];
        recv[k / 2] = a < 0 ? -1 : base + a; /* the answers, in place, in the order asked */
    }
    for (int q = 0; !s && q < R; q++) sc[q] = rw[q] / 2;
    if (!s) s = mmx__dist_send_words(ctx, d, recv, sc, &back, &nb, NULL);
    if (!s && nb != n)
        s = mmx__fail(ctx, MMX_ERR_INTERNAL, "mmx_dist_subdivide_write: %lld answers to %lld "
                      "numbers", (long long)nb, (long long)n);
    s = mmx_dist_agree(ctx, d, s);
    for (int64_t k = 0; !s && k < n; k++) out[perm[k]] = back[k];
    free(sc), free(pos), free(w), free(perm), free(recv), free(rw), free(ans), free(back);
    free(all), free(on);
    return s;
}

/* The holes left out (MMX_HOLES_REMOVE, as the single process leaves them: the faces and
 * vertices left keep their order, numbered anew): *fnew per local face of the last level
 * (its number, -1 for a hole; exact on the owned faces), *vnew per local vertex (its number,
 * -1 for one that no kept face uses; exact on the vertices of owned faces), *V and *F the
 * counts left. Collective. */
static mmx_status leave_out_holes(mmx_ctx *ctx, mmx_dist *d, mmx_index nv, mmx_index nf,
                                  const mmx_index *st, const mmx_index *vt, const int64_t *gv,
                                  const int64_t *gf, const unsigned char *of,
                                  const unsigned char *hole, mmx_index nv0,
                                  const unsigned char *ov0, int64_t *V, int64_t *F,
                                  int64_t **fnew, int64_t **vnew, int64_t *sent)
{
    int64_t *g = NULL, *out = NULL, n = 0;
    unsigned char *flag = NULL, *used = NULL;
    const size_t most = (size_t)(nf > nv ? nf : nv) + 1;
    mmx_status s = mmx__host_alloc(ctx, most, sizeof *g, (void **)&g);
    if (!s) s = mmx__host_alloc(ctx, most, sizeof *out, (void **)&out);
    if (!s) s = mmx__host_alloc(ctx, most, 1, (void **)&flag);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nv + 1, 1, (void **)&used);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nf + 1, sizeof **fnew, (void **)fnew);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nv + 1, sizeof **vnew, (void **)vnew);
    /* the owned faces, flagged when kept */
    for (mmx_index f = 0; !s && f < nf; f++)
        if (of[f]) g[n] = gf[f], flag[n++] = !hole[f];
    s = mmx_dist_agree(ctx, d, s);
    if (!s) s = compact(ctx, d, *F, n, g, flag, out, F, sent);
    if (!s) {
        for (mmx_index f = 0; f < nf; f++) (*fnew)[f] = -1;
        for (mmx_index f = 0, k = 0; f < nf; f++)
            if (of[f]) (*fnew)[f] = out[k++];
        /* the vertices of owned faces, flagged when a kept one uses them (any rank's) */
        memset(used, 0, (size_t)nv + 1);
        for (mmx_index f = 0; f < nf; f++)
            for (mmx_index c = st[f]; of[f] && c < st[f + 1]; c++) used[vt[c]] |= 1 + !hole[f];
        /* a vertex of the input in no face (rank 0's) stays, as the single process keeps it:
         * no hole uses it */
        unsigned char *inface = flag; /* reused until the list below: a vertex in a local face */
        memset(inface, 0, most);
        for (mmx_index c = 0; c < st[nf]; c++) inface[vt[c]] = 1;
        for (mmx_index v = 0; v < nv0 && v < nv; v++)
            if (!inface[v] && ov0[v]) used[v] = 2;
        n = 0;
        for (mmx_index v = 0; v < nv; v++)
            if (used[v]) g[n] = gv[v], flag[n++] = used[v] > 1;
        s = compact(ctx, d, *V, n, g, flag, out, V, sent);
    }
    if (!s) {
        for (mmx_index v = 0, k = 0; v < nv; v++) (*vnew)[v] = used[v] ? out[k++] : -1;
    }
    free(g), free(out), free(flag), free(used);
    return s;
}

/* Whether some edge of the faces (st, vt) has three faces or more (*yes). */
static mmx_status three_faced(mmx_ctx *ctx, mmx_index nf, const mmx_index *st, const mmx_index *vt,
                              int64_t *yes)
{
    const size_t nnz = (size_t)st[nf];
    uint64_t *ka = NULL, *ktmp = NULL;
    mmx_status s = mmx__host_alloc(ctx, nnz + 1, sizeof *ka, (void **)&ka);
    if (!s) s = mmx__host_alloc(ctx, nnz + 1, sizeof *ktmp, (void **)&ktmp);
    if (!s) {
        for (mmx_index f = 0; f < nf; f++)
            for (mmx_index c = st[f], n = st[f + 1] - st[f]; c < st[f + 1]; c++) {
                const mmx_index a = vt[c], b = vt[st[f] + (c - st[f] + 1) % n];
                ka[c] = (uint64_t)(a < b ? a : b) << 32 | (uint64_t)(a < b ? b : a);
            }
        const uint64_t *sk = mmx__radix_sort_u64(ka, ktmp, NULL, NULL, nnz, 0, 64, NULL);
        for (size_t i = 2; i < nnz && !*yes; i++) *yes = sk[i] == sk[i - 2];
    }
    free(ka), free(ktmp);
    return s;
}

mmx_status mmx__dist_uv_by_value(mmx_ctx *ctx, const mmx_dist_mesh *dm, mmx_scheme scheme, int L,
                                 const mmx_subdiv_options *o, int tex, int64_t *by_value)
{
    mmx_ctx *hc = dm->dev ? dm->dev->hctx : ctx;
    const mmx_mesh *base = dm->dev ? dm->dev->hlocal : dm->local;
    const mmx_index nf0 = mmx_mesh_nfaces(base);
    mmx_status s = MMX_OK;
    /* The mode: the option, else the tag (as subdiv.c resolves it), else linear. */
    mmx_fvar_mode mode = o->fvar;
    if (tex && mode == MMX_FVAR_FROM_MESH && base->tags) {
        static const mmx_fvar_mode by_tag[6] = {MMX_FVAR_SMOOTH, MMX_FVAR_CORNERS_ONLY,
                                                MMX_FVAR_LINEAR_ALL, MMX_FVAR_LINEAR_ALL,
                                                MMX_FVAR_BOUNDARIES, MMX_FVAR_LINEAR_ALL};
        mmx_mesh_tags *T = NULL;
        s = mmx__dist_host_status(ctx, hc, mmx_mesh_tags_parse(hc, base, &T));
        if (!s && T->fvar_interpolate_boundary >= 0 && T->fvar_interpolate_boundary <= 5)
            mode = by_tag[T->fvar_interpolate_boundary];
        mmx_mesh_tags_free(T);
    }
    if (mode == MMX_FVAR_FROM_MESH) mode = MMX_FVAR_LINEAR_ALL;
    const int smooth = mode != MMX_FVAR_LINEAR_ALL && scheme != MMX_SCHEME_BILINEAR;
    *by_value = tex && L > 0 && !smooth && scheme == MMX_SCHEME_LOOP;
    if (!s && tex && L > 0 && !smooth && scheme != MMX_SCHEME_LOOP && nf0 > 0) {
        mmx_mesh *tm = NULL;
        mmx_index *st = NULL, *vt = NULL;
        s = mmx_mesh_faces(hc, base, &st, &vt);
        const mmx_status m = s ? MMX_OK : mmx_mesh_from_faces(hc, base->uv->nvalues, nf0, st,
                                                              base->uv->index, NULL, &tm);
        if (m == MMX_ERR_MESH) *by_value = 1;
        else if (m) s = m;
        s = mmx__dist_host_status(ctx, hc, s);
        mmx_mesh_free(tm), free(st), free(vt);
    }
    const mmx_status b = mmx__dist_allreduce_i64(ctx, dm->d, by_value, 1, MMX__DIST_MAX);
    return s ? s : b;
}

mmx_status mmx_dist_subdivide_write(mmx_ctx *ctx, const mmx_dist_mesh *dm, mmx_scheme scheme,
                                    int levels, const mmx_subdiv_options *opts, const char *path,
                                    mmx_format fmt, int64_t *bytes, mmx_dist_subdiv_report *report)
{
    MMX__NEED_CTX(ctx);
    if (!dm) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_dist_subdivide_write: dm is NULL");
    mmx_dist *d = dm->d;
    const double t0 = mmx__dist_now_ms();
    mmx_dist_subdiv_report rep;
    memset(&rep, 0, sizeof rep);
    mmx_subdiv_options o;
    memset(&o, 0, sizeof o);
    if (opts) o = *opts;
    o.trace = NULL;
    const int loop = scheme == MMX_SCHEME_LOOP;
    /* On CUDA the local mesh's host copy is what is read (the refinement runs on the device). */
    mmx_ctx *hc = dm->dev ? dm->dev->hctx : ctx;
    const mmx_mesh *hm = dm->dev ? dm->dev->hlocal : dm->local;
    mmx_status s = MMX_OK;
    if (!path)
        s = mmx__fail(ctx, MMX_ERR_ARG, "mmx_dist_subdivide_write: path is NULL");
    else if (fmt != MMX_FORMAT_OBJ && fmt != MMX_FORMAT_PLY)
        s = mmx__fail(ctx, MMX_ERR_ARG, "mmx_dist_subdivide_write: %s: OBJ or PLY only", path);
    else if (levels < 0)
        s = mmx__fail(ctx, MMX_ERR_ARG, "mmx_dist_subdivide_write: levels %d < 0", levels);
    else if (scheme == MMX_SCHEME_SQRT3)
        s = mmx__fail(ctx, MMX_ERR_UNSUPPORTED, "mmx_dist_subdivide_write: Loop, Catmull-Clark "
                      "and bilinear only (sqrt3's numbers are not made here: mmx_dist_subdivide)");
    else if (!loop && scheme != MMX_SCHEME_CATMULL_CLARK && scheme != MMX_SCHEME_BILINEAR)
        s = mmx__fail(ctx, MMX_ERR_ARG, "mmx_dist_subdivide_write: unknown scheme %d", (int)scheme);
    else if (dm->rings < 1)
        s = mmx__fail(ctx, MMX_ERR_ARG, "mmx_dist_subdivide_write: needs 1 ghost ring");
    else if (fmt == MMX_FORMAT_OBJ && (hm->tags || (o.boundary == MMX_BOUNDARY_NONE &&
                                                    o.holes == MMX_HOLES_KEEP)))
        s = mmx__fail(ctx, MMX_ERR_UNSUPPORTED, "mmx_dist_subdivide_write: %s", hm->tags ?
                      "a tagged mesh (the OBJ file would carry the result's tags)" :
                      "holes kept (the OBJ file would carry their tags)");
    else if (!dm->local->pos && mmx_mesh_nverts(dm->local) > 0)
        s = mmx__fail(ctx, MMX_ERR_ARG, "mmx_dist_subdivide_write: the mesh has no positions");
    /* Holes (tags, or boundary mode none's): the local refinement keeps them, tagged, so that
     * every face's children stay where the numbering reads them; with MMX_HOLES_REMOVE the
     * faces and vertices left are renumbered in order below, as the single process does. */
    const mmx_hole_mode holes = o.holes;
    o.holes = MMX_HOLES_KEEP;
    s = mmx_dist_agree(ctx, d, s);
    if (s) return s;

    const mmx_mesh *base = hm;
    const mmx_index nv0 = mmx_mesh_nverts(base), nf0 = mmx_mesh_nfaces(base);
    const int refine = nf0 > 0; /* level 0 too: its holes, and the limit */
    const int L = levels;
    /* The single process's path: the default takes the algebraic one for a mesh with an edge
     * of three faces or more, and the fused one otherwise, whose sums run in another order
     * (subdiv.h); a local mesh without such an edge would take the fused one where the whole
     * takes the algebraic one. Every such edge of the whole is one of a local mesh, with all
     * its faces (those of the owner of any of them), so the ranks agree on it. */
    int64_t algebraic = 0;
    mmx_index *st0 = NULL, *vt0 = NULL;
    if (o.path == MMX_SUBDIV_PATH_AUTO && nf0 > 0) {
        s = mmx__dist_host_status(ctx, hc, mmx_mesh_faces(hc, base, &st0, &vt0));
        if (!s) s = three_faced(ctx, nf0, st0, vt0, &algebraic);
        free(st0), free(vt0);
    }
    const mmx_status b = mmx__dist_allreduce_i64(ctx, d, &algebraic, 1, MMX__DIST_MAX);
    if (!s) s = b;
    if (!s && algebraic) o.path = MMX_SUBDIV_PATH_ALGEBRAIC;
    /* Texture coordinates (OBJ; PLY carries none): numbered by the texture mesh's layout, or
     * by value where the single process numbers them so (mmx__dist_uv_by_value). Holes left
     * out would renumber them too: not done here. */
    const int tex = fmt == MMX_FORMAT_OBJ && dm->guv != NULL;
    int64_t by_value = 0;
    const mmx_status bv = mmx__dist_uv_by_value(ctx, dm, scheme, L, &o, tex, &by_value);
    if (!s) s = bv;
    if (!s && tex && o.boundary == MMX_BOUNDARY_NONE && holes == MMX_HOLES_REMOVE)
        s = mmx__fail(ctx, MMX_ERR_UNSUPPORTED, "mmx_dist_subdivide_write: texture coordinates "
                      "with boundary mode none (its holes left out would renumber them; "
                      "mmx_dist_subdivide)");
    s = mmx_dist_agree(ctx, d, s);
    if (s) return s;
    mmx_mesh *fine = NULL, *hfine = NULL;
    const mmx_mesh *last = base;
    if (refine) {
        if (dm->dev) s = mmx_ctx_sync(ctx);
        const double r0 = mmx__dist_now_ms();
        if (!s) s = mmx_subdivide(ctx, scheme, dm->local, levels, &o, &fine);
        if (!s && dm->dev) s = mmx_ctx_sync(ctx);
        rep.refine_ms = mmx__dist_now_ms() - r0;
        if (!s && dm->dev) s = mmx_mesh_copy(ctx, fine, MMX_SPACE_HOST, &hfine);
        if (!s) last = hfine ? hfine : fine;
    }
    /* Each level's faces, from the last level's layout (as mmx_dist_subdivide reads them). */
    mmx_index **lst = NULL, **lvt = NULL, *nfl = NULL;
    int64_t *gv = NULL, *gf = NULL, *cedge = NULL, *ngv = NULL, *ngf = NULL;
    unsigned char *of = NULL, *nof = NULL, *inown = NULL, *mine = NULL;
    int64_t *vg = NULL, *fg = NULL, *fst = NULL, *fc = NULL;
    float *rows = NULL;
    if (!s) s = mmx__host_alloc(ctx, (size_t)L + 1, sizeof *lst, (void **)&lst);
    if (!s) s = mmx__host_alloc(ctx, (size_t)L + 1, sizeof *lvt, (void **)&lvt);
    if (!s) s = mmx__host_alloc(ctx, (size_t)L + 1, sizeof *nfl, (void **)&nfl);
    if (!s) {
        memset(lst, 0, ((size_t)L + 1) * sizeof *lst);
        memset(lvt, 0, ((size_t)L + 1) * sizeof *lvt);
        s = mmx__dist_host_status(ctx, hc, mmx_mesh_faces(hc, base, &lst[0], &lvt[0]));
        nfl[0] = nf0;
    }
    if (!s && L > 0 && refine) {
        s = mmx__dist_host_status(ctx, hc, mmx_mesh_faces(hc, last, &lst[L], &lvt[L]));
        nfl[L] = mmx_mesh_nfaces(last);
    }
    for (int l = L - 1; l >= 1 && !s; l--) {
        const int c = loop ? 3 : 4;
        nfl[l] = refine ? nfl[l + 1] / 4 : 0;
        s = mmx__host_alloc(ctx, (size_t)nfl[l] + 1, sizeof **lst, (void **)&lst[l]);
        if (!s) s = mmx__host_alloc(ctx, (size_t)nfl[l] * (size_t)c + 1, sizeof **lvt, (void **)&lvt[l]);
        if (s) break;
        for (mmx_index f = 0; f <= nfl[l]; f++) lst[l][f] = c * f;
        for (mmx_index f = 0; f < nfl[l]; f++)
            for (int k = 0; k < c; k++) lvt[l][c * f + k] = lvt[l + 1][lst[l + 1][4 * f + k + loop]];
    }
    for (int l = 1; l <= L && !s && !refine; l++) { /* no faces here: every level empty */
        nfl[l] = 0;
        if (!lst[l]) s = mmx__host_alloc(ctx, 1, sizeof **lst, (void **)&lst[l]);
        if (!s) lst[l][0] = 0;
    }
    /* Every level's vertex numbers, then (OBJ) the texture coordinates' alike. */
    mmx_index nv = nv0;
    int64_t V = dm->gverts, F = dm->gfaces;
    s = mmx_dist_agree(ctx, d, s);
    if (!s) s = number_levels(ctx, dm, loop, L, nfl, lst, lvt, nv0, dm->gv, &nv, &V, &F, &gv, &gf, &of,
                              &rep.gathered_bytes);
    if (!s && refine && nv != mmx_mesh_nverts(last))
        s = mmx__fail(ctx, MMX_ERR_INTERNAL, "mmx_dist_subdivide_write: %d vertices numbered, "
                      "the refined local mesh has %d", nv, mmx_mesh_nverts(last));
    if (!s && (V > INT32_MAX || F > INT32_MAX))
        s = mmx__fail(ctx, MMX_ERR_OVERFLOW, "mmx_dist_subdivide_write: %lld vertices, %lld "
                      "faces: past the single-process writer's 32-bit numbers", (long long)V,
                      (long long)F);
    /* The written share: the owned faces, the vertices whose smallest-numbered face is owned
     * (and rank 0's vertices in no face, old vertices of the input). */
    const mmx_index nfL = !s ? nfl[L] : 0;
    int64_t nw = 0, nwf = 0, nwc = 0;
    /* The holes among the refined local faces (from its tags), and whether the whole has any
     * to leave out. */
    unsigned char *hole = NULL;
    int64_t *fnew = NULL, *vnew = NULL, anyhole = 0;
    if (!s) s = mmx__host_alloc(ctx, (size_t)nfL + 1, 1, (void **)&hole);
    if (!s) {
        memset(hole, 0, (size_t)nfL + 1);
        mmx_mesh_tags *T = NULL;
        if (last->tags) s = mmx__dist_host_status(ctx, hc, mmx_mesh_tags_parse(hc, last, &T));
        for (mmx_index i = 0; !s && T && i < T->nholes; i++) hole[T->holes[i]] = 1;
        for (mmx_index f = 0; !s && f < nfL; f++) anyhole |= of[f] && hole[f];
        mmx_mesh_tags_free(T);
        if (holes == MMX_HOLES_KEEP) anyhole = 0;
    }
    s = mmx_dist_agree(ctx, d, s);
    if (!s) s = mmx__dist_allreduce_i64(ctx, d, &anyhole, 1, MMX__DIST_MAX);
    if (!s && anyhole)
        s = leave_out_holes(ctx, d, nv, nfL, lst[L], lvt[L], gv, gf, of, hole, nv0, dm->ov, &V,
                            &F, &fnew, &vnew, &rep.gathered_bytes);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nv + 1, 1, (void **)&inown);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nv + 1, 1, (void **)&mine);
    if (!s) s = written_rule(ctx, d->rank, nv, nfL, lst[L], lvt[L], gf, of, nv0, dm->ov, vnew,
                             inown, mine, &nw);
    if (!s) {
        for (mmx_index f = 0; f < nfL; f++) {
            if (fnew) of[f] &= fnew[f] >= 0; /* a hole: left out */
            if (of[f]) nwf++, nwc += lst[L][f + 1] - lst[L][f];
        }
        rep.local_faces = nfL, rep.owned_faces = nwf;
        s = mmx__host_alloc(ctx, (size_t)nw + 1, sizeof *vg, (void **)&vg);
    }
    if (!s) s = mmx__host_alloc(ctx, 3 * (size_t)nw + 1, sizeof *rows, (void **)&rows);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nwf + 1, sizeof *fg, (void **)&fg);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nwf + 2, sizeof *fst, (void **)&fst);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nwc + 1, sizeof *fc, (void **)&fc);
    if (!s) {
        for (mmx_index v = 0, i = 0; v < nv && !s; v++) {
            if (!mine[v]) continue;
            if (gv[v] < 0)
                s = mmx__fail(ctx, MMX_ERR_INTERNAL, "mmx_dist_subdivide_write: a written vertex "
                              "has no number");
            vg[i] = vnew ? vnew[v] : gv[v];
            memcpy(rows + 3 * (size_t)i++, last->pos + 3 * (size_t)v, 3 * sizeof *rows);
        }
        fst[0] = 0;
        for (mmx_index f = 0, i = 0; f < nfL && !s; f++) {
            if (!of[f]) continue;
            fg[i] = fnew ? fnew[f] : gf[f], fst[i + 1] = fst[i];
            for (mmx_index c = lst[L][f]; c < lst[L][f + 1]; c++) {
                const int64_t g = vnew ? vnew[lvt[L][c]] : gv[lvt[L][c]];
                if (g < 0)
                    s = mmx__fail(ctx, MMX_ERR_INTERNAL, "mmx_dist_subdivide_write: a corner of an "
                                  "owned face has no number");
                fc[fst[i + 1]++] = g;
            }
            i++;
        }
    }
    /* The texture coordinates (OBJ), numbered as the single process numbers them. */
    mmx__dist_uvrec ur = {0, 0, NULL, NULL, NULL};
    int64_t *tg = NULL, *tc = NULL;
    float *trows = NULL;
    s = mmx_dist_agree(ctx, d, s);
    if (!s && tex)
        s = name_uv(ctx, dm, loop, L, by_value, base, last, nfl, lst, of, gf, nwc, &ur.T, &ur.nt,
                    &tg, &trows, &tc, &rep.gathered_bytes);
    ur.tg = tg, ur.rows = trows, ur.tcorner = tc;
    s = mmx_dist_agree(ctx, d, s);
    int64_t sent = 0;
    if (!s)
        s = mmx__dist_write_records(ctx, d, path, fmt, V, F, 3, nw, vg, rows, nwf, fg, fst, fc,
                                    tex ? &ur : NULL, &sent, bytes);
    free(tg), free(tc), free(trows);
    rep.gathered_bytes += sent;
    if (!s) rep.written_verts = V, rep.written_faces = F;
    dm->cnt->bytes += rep.gathered_bytes;
    rep.gather_ms = mmx__dist_now_ms() - t0 - rep.refine_ms;
    if (report) *report = rep;
    for (int l = 0; lst && l <= L; l++) free(lst[l]), free(lvt ? lvt[l] : NULL);
    free(lst), free(lvt), free(nfl), free(gv), free(gf), free(of), free(cedge), free(ngv);
    free(ngf), free(nof), free(inown), free(mine), free(vg), free(fg), free(fst), free(fc);
    free(rows), free(hole), free(fnew), free(vnew);
    mmx_mesh_free(fine), mmx_mesh_free(hfine);
    return s;
}
