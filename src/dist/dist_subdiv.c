/* Subdivision of the partitioned mesh with no exchange: each rank refines its local mesh (one
 * mmx_subdivide call for all the levels, the limit projection included). One ghost ring is
 * enough for any number of levels of Loop, Catmull-Clark and bilinear: the surface over a face
 * depends on its one-ring alone (what OpenSubdiv's patches are made of), and each level's
 * wrong values (at the local mesh's cut) move inward by one child ring, half a parent ring,
 * so they never reach the owned faces' descendants (tests/test_dist.c checks levels 0 to 3
 * with creases, both crease methods, boundary modes and the limit). sqrt3 needs up to three
 * rings (dist.h says why; mmx__dist_subdiv_rings). Each rank names every vertex it makes by a
 * key that every rank computes alike (a vertex of the input: its global number; a face point:
 * its face's global number at that level, which is the single process's, since children
 * follow their parent in order; an edge point: its two ends' keys; sqrt3's cut points: their
 * face's). Rank 0 gathers the owned faces' descendants, places them at their global numbers,
 * and merges the vertices by key. Texture coordinates are named alike on the texture mesh's
 * corners (or by their bits where the single process numbers them by value) and merged the
 * same way. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dist_internal.h"

typedef struct key {
    uint64_t a, b;
} key;

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* Keys: two independent 64-bit hashes, so a collision between two of a billion vertices has a
 * chance near 2^-68; the kinds are apart by construction (their first word's seeds). */
static key vertex_key(int64_t g)
{
    return (key){mix((uint64_t)g ^ 0x1111ull << 52), mix(mix((uint64_t)g) ^ 0x2222ull)};
}
static key face_key(int level, int64_t g)
{
    const uint64_t x = (uint64_t)g ^ (uint64_t)level << 56;
    return (key){mix(x ^ 0x3333ull << 40), mix(mix(x) ^ 0x4444ull)};
}
static int key_cmp(key x, key y)
{
    return x.a != y.a ? (x.a < y.a ? -1 : 1) : x.b != y.b ? (x.b < y.b ? -1 : 1) : 0;
}
static key edge_key(key p, key q)
{
    if (key_cmp(p, q) > 0) {
        const key t = p;
        p = q, q = t;
    }
    return (key){mix(p.a ^ mix(q.a + 0x5555ull)), mix(p.b + 0x77ull * mix(q.b ^ 0x6666ull))};
}

/* What one rank sends rank 0. */
typedef struct vrec {
    key k;
    float p[3];
    int32_t pad;
} vrec;
typedef struct crec {
    int32_t a, b; /* the ends' places in the sender's vertex list (rank 0: in the whole list,
                     then their numbers in the result); a corner has b = a */
    float sharp;
    int32_t corner;
} crec;

/* One level: the child's keys, global face numbers and owned flags from the parent's. */
static mmx_status child_names(mmx_ctx *ctx, mmx_scheme scheme, int level, mmx_index nf,
                              const mmx_index *pstart, const mmx_index *pverts, const key *pk,
                              const int64_t *pgid, const int64_t *pfirst,
                              const unsigned char *pown, mmx_index ncv, const mmx_index *cstart,
                              const mmx_index *cverts, key *ck, int64_t *cgid,
                              unsigned char *cown)
{
    const int loop = scheme == MMX_SCHEME_LOOP;
    mmx_index j = 0;
    for (mmx_index i = 0; i < nf; i++) {
        const mmx_index a = pstart[i], c = pstart[i + 1] - a;
        const mmx_index nch = loop ? 4 : c;
        for (mmx_index s = 0; s < nch; s++, j++) {
            cgid[j] = pfirst[i] + s, cown[j] = pown[i];
            const mmx_index *ch = cverts + cstart[j];
            if (cstart[j + 1] - cstart[j] != (loop ? 3 : 4)) goto bad;
            if (loop) {
                if (s && ch[0] != pverts[a + s - 1]) goto bad;
                if (s) continue;
                for (int e = 0; e < 3; e++) {
                    if (ch[e] >= ncv) goto bad;
                    ck[ch[e]] = edge_key(pk[pverts[a + e]], pk[pverts[a + (e + 1) % 3]]);
                }
            } else {
                if (ch[0] != pverts[a + s] || ch[1] >= ncv || ch[2] >= ncv) goto bad;
                ck[ch[2]] = face_key(level, pgid[i]);
                ck[ch[1]] = edge_key(pk[pverts[a + s]], pk[pverts[a + (s + 1) % c]]);
            }
        }
    }
    return MMX_OK;
bad:
    return mmx__fail(ctx, MMX_ERR_INTERNAL, "mmx_dist_subdivide: child face %d of level %d is "
                     "not laid out as subdiv.h states", j, level + 1);
}

/* A ghost vertex at the cut may have local faces in several fans (its faces between them are
 * not local), which sqrt3 refuses as a non-manifold vertex. Such a vertex is wrong at the cut
 * anyway, far from the owned faces' descendants: it is split, one copy per fan, the fan of its
 * first corner keeping its number, the others numbered after the local vertices (orig: the
 * vertex each copy was made from). Owned vertices are never split (all their faces are local:
 * several fans there are the whole mesh's, refused as the single process refuses them).
 * *out NULL when no vertex has several fans. Host meshes; O(nnz) with a radix sort. */
static mmx_status split_fans(mmx_ctx *ctx, const mmx_mesh *m, const unsigned char *ov,
                             mmx_mesh **out, mmx_index **orig, mmx_index *nextra)
{
    const mmx_index F = mmx_mesh_nfaces(m), V = mmx_mesh_nverts(m);
    mmx_index *st = NULL, *vt = NULL, *idx = NULL, *itmp = NULL, *sorted = NULL, *up = NULL;
    mmx_index *num = NULL, *first = NULL;
    uint64_t *ka = NULL, *ktmp = NULL;
    float *pos = NULL;
    mmx_mesh_tags *T = NULL;
    *out = NULL, *orig = NULL, *nextra = 0;
    mmx_status s = mmx_mesh_faces(ctx, m, &st, &vt);
    const size_t nnz = s ? 0 : (size_t)st[F];
    if (!s) s = mmx__host_alloc(ctx, 2 * nnz + 1, sizeof *ka, (void **)&ka);
    if (!s) s = mmx__host_alloc(ctx, 2 * nnz + 1, sizeof *ktmp, (void **)&ktmp);
    if (!s) s = mmx__host_alloc(ctx, 2 * nnz + 1, sizeof *idx, (void **)&idx);
    if (!s) s = mmx__host_alloc(ctx, 2 * nnz + 1, sizeof *itmp, (void **)&itmp);
    if (!s) s = mmx__host_alloc(ctx, nnz + 1, sizeof *up, (void **)&up);
    if (!s) s = mmx__host_alloc(ctx, nnz + 1, sizeof *num, (void **)&num);
    if (!s) s = mmx__host_alloc(ctx, (size_t)V + 1, sizeof *first, (void **)&first);
    if (s) goto out;
    /* Two corners of v are in one fan when they share an edge at v: each corner listed under
     * (v, next) and (v, previous), sorted, equal pairs joined (union-find, by the smaller). */
    for (mmx_index f = 0; f < F; f++)
        for (mmx_index c = st[f], n = st[f + 1] - st[f]; c < st[f + 1]; c++) {
            const uint64_t v = (uint64_t)vt[c] << 32;
            const mmx_index nx = vt[st[f] + (c - st[f] + 1) % n], pv = vt[st[f] + (c - st[f] + n - 1) % n];
            ka[2 * c] = v | (uint64_t)nx, ka[2 * c + 1] = v | (uint64_t)pv;
            idx[2 * c] = idx[2 * c + 1] = c, up[c] = c;
        }
    const uint64_t *sk = mmx__radix_sort_u64(ka, ktmp, idx, itmp, 2 * nnz, 0, 64, &sorted);
    for (size_t i = 1; i < 2 * nnz; i++)
        if (sk[i] == sk[i - 1]) {
            mmx_index a = sorted[i], b = sorted[i - 1];
            while (up[a] != a) a = up[a] = up[up[a]];
            while (up[b] != b) b = up[b] = up[up[b]];
            if (a != b) up[a > b ? a : b] = a < b ? a : b;
        }
    /* Each fan's number: its vertex's for the first fan met (and every fan of an owned
     * vertex), a new one after the others. */
    for (mmx_index v = 0; v < V; v++) first[v] = -1;
    for (size_t c = 0; c < nnz; c++) num[c] = -1;
    mmx_index extra = 0;
    for (size_t c = 0; c < nnz; c++) {
        /* a root is its set's smallest corner: met first, and no longer changed below */
        mmx_index r = (mmx_index)c;
        while (up[r] != r) r = up[r];
        const mmx_index v = vt[c];
        if (num[r] < 0) {
            if (first[v] < 0 || ov[v]) first[v] = r, num[r] = v;
            else num[r] = V + extra++;
        }
        idx[c] = num[r];
    }
    memcpy(up, idx, nnz * sizeof *up); /* each corner's vertex: its fan's number */
    if (!extra) goto out;
    s = mmx__host_alloc(ctx, (size_t)extra, sizeof **orig, (void **)orig);
    if (!s) s = mmx__host_alloc(ctx, 3 * ((size_t)V + extra), sizeof *pos, (void **)&pos);
    if (s) goto out;
    memcpy(pos, m->pos, 3 * (size_t)V * sizeof *pos);
    for (size_t c = 0; c < nnz; c++)
        if (up[c] >= V) {
            (*orig)[up[c] - V] = vt[c];
            memcpy(pos + 3 * (size_t)up[c], m->pos + 3 * (size_t)vt[c], 3 * sizeof *pos);
        }
    s = mmx_mesh_from_faces(ctx, V + extra, F, st, up, pos, out);
    if (!s && m->tags) s = mmx_mesh_tags_parse(ctx, m, &T);
    if (!s && T) s = mmx_mesh_set_tags(ctx, *out, T);
    if (!s) *nextra = extra;
out:
    free(st), free(vt), free(idx), free(itmp), free(up), free(num), free(first), free(ka);
    free(ktmp), free(pos);
    mmx_mesh_tags_free(T);
    if (s) {
        mmx_mesh_free(*out), free(*orig);
        *out = NULL, *orig = NULL;
    }
    return s;
}

/* sqrt3's names (its children do not keep their parent's corners: a face cut on an odd
 * generation starts its child at the cut point), from each level's counts instead: level l
 * has nf0 3^l faces, local face m the descendant of local input face m / 3^l, so its global
 * number is that face's times 3^l plus m mod 3^l; its vertices are level l - 1's, then one per
 * face slot (a centre, or on an odd generation the cut point l of a face cut at its boundary
 * edge), named by that face, then on an odd generation one more per cut face, r, found as the
 * second corner of the cut face's child that starts at its cut point l (sqrt3.c: (l, r, x)),
 * named by the face too. fine[l] is the refined local mesh of l < L levels (host) where l - 1
 * is an odd generation (NULL elsewhere), last the result (L levels). Fills K (the result's
 * vertices past the input's), gid and own (its faces). */
static mmx_status sqrt3_names(mmx_ctx *ctx, int L, mmx_index nv0, mmx_index nf0,
                              const int64_t *gf0, const unsigned char *of0, mmx_mesh *const *fine,
                              const mmx_mesh *last, key *K, int64_t *gid, unsigned char *own)
{
    mmx_index nv = nv0, nf = nf0;
    int64_t pow3 = 1;
    mmx_status s = MMX_OK;
    for (int l = 0; l < L && !s; l++, nf *= 3, pow3 *= 3) {
        /* level l's face slots */
        for (mmx_index m = 0; m < nf; m++)
            K[nv + m] = face_key(l, gf0[m / pow3] * pow3 + m % pow3);
        mmx_index next = nv + nf, named = 0;
        if (l % 2 == 1) {
            const mmx_mesh *c = l + 1 == L ? last : fine[l + 1];
            mmx_index *st = NULL, *vt = NULL;
            next = mmx_mesh_nverts(c);
            s = mmx_mesh_faces(ctx, c, &st, &vt);
            for (mmx_index j = 0; !s && j < 3 * nf; j++) {
                const mmx_index *t = vt + st[j], m = j / 3;
                if (t[0] < nv) continue;
                if (t[0] != nv + m || t[1] < nv + nf || t[1] >= next) {
                    s = mmx__fail(ctx, MMX_ERR_INTERNAL, "mmx_dist_subdivide: sqrt3's child face "
                                  "%d of level %d is not laid out as sqrt3.c makes it", j, l + 1);
                    break;
                }
                K[t[1]] = face_key(l + 64, gf0[m / pow3] * pow3 + m % pow3);
                named++;
            }
            free(st), free(vt);
            if (!s && named != next - nv - nf)
                s = mmx__fail(ctx, MMX_ERR_INTERNAL, "mmx_dist_subdivide: sqrt3's level %d has %d "
                              "cut points r, %d found", l + 1, next - nv - nf, named);
        }
        nv = next;
    }
    if (!s && nv != mmx_mesh_nverts(last))
        s = mmx__fail(ctx, MMX_ERR_INTERNAL, "mmx_dist_subdivide: sqrt3's levels make %d "
                      "vertices, the result has %d", nv, mmx_mesh_nverts(last));
    for (mmx_index m = 0; !s && m < nf; m++)
        gid[m] = gf0[m / pow3] * pow3 + m % pow3, own[m] = of0[m / pow3];
    return s;
}

/* This rank's share: the owned descendants' faces (global number, keys), their vertices, and
 * the creases and corners still tagged on them; which local faces are holes (the local
 * refinement keeps them, tagged). */
typedef struct share {
    int64_t *gid;  /* per face */
    int32_t *fc;   /* per corner: its vertex's place in v */
    int64_t nf, nc;
    vrec *v;
    int64_t nv;
    crec *t;
    int64_t nt;
    unsigned char *hole; /* per local face: a hole's descendant */
    int32_t *tc;         /* texture coordinates: each owned corner's value (a place in tv) */
    vrec *tv;            /* the values the owned faces use (key, u, v) */
    int64_t ntv;
} share;

static void share_free(share *sh)
{
    free(sh->gid), free(sh->fc), free(sh->v), free(sh->t), free(sh->hole), free(sh->tc), free(sh->tv);
}

/* The texture coordinates of the owned faces (uv: the refined local mesh's, whose faces are
 * (start, own); K: each value's key) into sh->tc and sh->tv, as make_share does the vertices. */
static mmx_status make_uv_share(mmx_ctx *ctx, const mmx_mesh_uv *uv, mmx_index F,
                                const mmx_index *start, const key *K, const unsigned char *own,
                                share *sh)
{
    int32_t *used = NULL;
    mmx_status s = mmx__host_alloc(ctx, (size_t)uv->nvalues + 1, sizeof *used, (void **)&used);
    if (!s) s = mmx__host_alloc(ctx, (size_t)sh->nc + 1, sizeof *sh->tc, (void **)&sh->tc);
    if (s) goto out;
    memset(used, 0, (size_t)uv->nvalues * sizeof *used);
    for (mmx_index f = 0; f < F; f++)
        for (mmx_index c = start[f]; own[f] && c < start[f + 1]; c++) used[uv->index[c]] = 1;
    for (mmx_index v = 0; v < uv->nvalues; v++) used[v] = used[v] ? (int32_t)sh->ntv++ : -1;
    s = mmx__host_alloc(ctx, (size_t)sh->ntv + 1, sizeof *sh->tv, (void **)&sh->tv);
    if (s) goto out;
    for (mmx_index f = 0, c0 = 0; f < F; f++)
        for (mmx_index c = start[f]; own[f] && c < start[f + 1]; c++) sh->tc[c0++] = used[uv->index[c]];
    for (mmx_index v = 0, i = 0; v < uv->nvalues; v++)
        if (used[v] >= 0) {
            memset(&sh->tv[i], 0, sizeof sh->tv[i]);
            sh->tv[i].k = K[v];
            memcpy(sh->tv[i].p, uv->values + 2 * (size_t)v, 2 * sizeof *sh->tv[i].p);
            i++;
        }
out:
    free(used);
    return s;
}

static mmx_status make_share(mmx_ctx *ctx, const mmx_mesh *m, const mmx_index *start,
                             const mmx_index *verts, const key *k, const int64_t *gid,
                             const unsigned char *own, share *sh)
{
    const mmx_index F = mmx_mesh_nfaces(m), V = mmx_mesh_nverts(m);
    int32_t *used = NULL;
    mmx_index *ostart = NULL, *overts = NULL;
    uint64_t *edges = NULL;
    size_t ne = 0;
    mmx_mesh_tags *T = NULL;
    mmx_status s = mmx__host_alloc(ctx, (size_t)V, sizeof *used, (void **)&used);
    if (s) return s;
    memset(used, 0, (size_t)V * sizeof *used);
    for (mmx_index f = 0; f < F; f++)
        if (own[f]) {
            sh->nf++, sh->nc += start[f + 1] - start[f];
            for (mmx_index c = start[f]; c < start[f + 1]; c++) used[verts[c]] = 1;
        }
    for (mmx_index v = 0; v < V; v++) used[v] = used[v] ? (int32_t)sh->nv++ : -1;
    s = mmx__host_alloc(ctx, (size_t)sh->nf, sizeof *sh->gid, (void **)&sh->gid);
    if (!s) s = mmx__host_alloc(ctx, (size_t)sh->nc, sizeof *sh->fc, (void **)&sh->fc);
    if (!s) s = mmx__host_alloc(ctx, (size_t)sh->nv, sizeof *sh->v, (void **)&sh->v);
    if (!s) s = mmx__host_alloc(ctx, (size_t)F, 1, (void **)&sh->hole);
    if (!s && m->tags) s = mmx_mesh_tags_parse(ctx, m, &T);
    if (s) goto out;
    memset(sh->hole, 0, (size_t)F);
    for (mmx_index i = 0; T && i < T->nholes; i++) sh->hole[T->holes[i]] = 1;
    for (mmx_index f = 0, i = 0, c0 = 0; f < F; f++)
        if (own[f]) {
            sh->gid[i++] = gid[f];
            for (mmx_index c = start[f]; c < start[f + 1]; c++) sh->fc[c0++] = used[verts[c]];
        }
    for (mmx_index v = 0, i = 0; v < V; v++)
        if (used[v] >= 0) {
            memset(&sh->v[i], 0, sizeof sh->v[i]);
            sh->v[i].k = k[v];
            memcpy(sh->v[i].p, m->pos + 3 * (size_t)v, sizeof sh->v[i].p);
            i++;
        }
    if (T && T->ncreases + T->ncorners > 0) {
        /* The creases on an owned face's edge, the corners on an owned face's vertex. */
        mmx_index nof = (mmx_index)sh->nf;
        s = mmx__host_alloc(ctx, (size_t)nof + 1, sizeof *ostart, (void **)&ostart);
        if (!s) s = mmx__host_alloc(ctx, (size_t)sh->nc, sizeof *overts, (void **)&overts);
        if (!s) s = mmx__host_alloc(ctx, (size_t)T->ncreases + (size_t)T->ncorners, sizeof *sh->t, (void **)&sh->t);
        if (s) goto out;
        ostart[0] = 0;
        for (mmx_index f = 0, i = 0; f < F; f++)
            if (own[f]) {
                ostart[i + 1] = ostart[i];
                for (mmx_index c = start[f]; c < start[f + 1]; c++) overts[ostart[i + 1]++] = verts[c];
                i++;
            }
        s = mmx__dist_edges(ctx, nof, ostart, overts, &edges, &ne);
        if (s) goto out;
        for (mmx_index i = 0; i < T->ncreases; i++) {
            const mmx_index a = T->crease_verts[2 * i], b = T->crease_verts[2 * i + 1];
            if (mmx__dist_has_edge(edges, ne, a, b))
                sh->t[sh->nt++] = (crec){used[a], used[b], T->crease_sharpness[i], 0};
        }
        for (mmx_index i = 0; i < T->ncorners; i++)
            if (used[T->corner_verts[i]] >= 0)
                sh->t[sh->nt++] = (crec){used[T->corner_verts[i]], used[T->corner_verts[i]], T->corner_sharpness[i], 1};
    }
out:
    free(used), free(ostart), free(overts), free(edges);
    mmx_mesh_tags_free(T);
    return s;
}

/* Gathers every rank's n records of `size` bytes to rank 0 (*all, *total there). */
static mmx_status gather_all(mmx_ctx *ctx, mmx_dist *d, const void *mine, int64_t n, size_t size,
                             void **all, int64_t *total, int64_t *per, int64_t *sent)
{
    const int R = d->size;
    int64_t *cnt = NULL;
    mmx_status s = MMX_OK;
    *all = NULL, *total = 0;
    if (d->rank == 0) s = mmx__host_alloc(ctx, (size_t)R, sizeof *cnt, (void **)&cnt);
    s = mmx_dist_agree(ctx, d, s);
    if (!s) s = mmx__dist_gather_i64(ctx, d, n * (int64_t)size, cnt, 0);
    if (!s && d->rank == 0) {
        for (int q = 0; q < R; q++) *total += cnt[q], per[q] = cnt[q] / (int64_t)size;
        s = mmx__host_alloc(ctx, (size_t)*total, 1, all);
        *total /= (int64_t)size;
    }
    s = mmx_dist_agree(ctx, d, s);
    if (!s) s = mmx__dist_gatherv(ctx, d, mine, n * (int64_t)size, *all, cnt, 0);
    *sent += n * (int64_t)size;
    free(cnt);
    return s;
}

static int cmp_crec(const void *x, const void *y)
{
    const crec *a = x, *b = y;
    if (a->corner != b->corner) return a->corner - b->corner;
    if (a->a != b->a) return a->a < b->a ? -1 : 1;
    return (a->b > b->b) - (a->b < b->b);
}

/* Records merged by key: a stable radix sort by the first word (records stay in rank order
 * within a run), then within a run (the copies of one vertex that several ranks hold; a
 * different vertex only on a 64-bit collision) by the second word. uid[record] is its vertex,
 * rep[vertex] its first record (the lowest rank's); returns the count. ka, ktmp, idx, itmp:
 * scratch of n entries. */
static mmx_index merge_keys(int64_t n, const vrec *v, uint64_t *ka, uint64_t *ktmp, mmx_index *idx,
                            mmx_index *itmp, mmx_index *uid, mmx_index *rep)
{
    mmx_index *sorted = idx;
    for (int64_t i = 0; i < n; i++) ka[i] = v[i].k.a, idx[i] = (mmx_index)i;
    const uint64_t *sk = mmx__radix_sort_u64(ka, ktmp, idx, itmp, (size_t)n, 0, 64, &sorted);
    mmx_index u = 0;
    for (int64_t i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && sk[j] == sk[i]; j++) {}
        for (int64_t p = i; p < j; p++) {
            int64_t q = i;
            while (q < p && v[sorted[q]].k.b != v[sorted[p]].k.b) q++;
            if (q < p) {
                uid[sorted[p]] = uid[sorted[q]];
            } else {
                rep[u] = sorted[p];
                uid[sorted[p]] = u++;
            }
        }
    }
    return u;
}

/* Rank 0: the result's texture coordinates from the gathered shares (fct: each gathered
 * corner's value as a place in tv, the whole gathered list of values; at, fc, ord: assemble's
 * faces), merged by key and numbered by first use in the kept faces' corners, as the
 * vertices are (mmx_dist_canonical numbers the single process's so). */
static mmx_status assemble_uv(mmx_ctx *ctx, int64_t nf, const int64_t *at, const int64_t *fc,
                              const int64_t *ord, mmx_hole_mode holes, const int32_t *fct,
                              int64_t ntv, const vrec *tv, mmx_mesh *m)
{
    mmx_index *uid = NULL, *rep = NULL, *idx = NULL, *itmp = NULL, *num = NULL;
    uint64_t *ka = NULL, *ktmp = NULL;
    const int64_t nnz = m->M->nnz;
    mmx_mesh_uv *uv = calloc(1, sizeof *uv);
    mmx_status s = uv ? MMX_OK : mmx__fail(ctx, MMX_ERR_NOMEM, "mmx_dist_subdivide: out of host memory");
    if (!s && ntv > INT32_MAX)
        s = mmx__fail(ctx, MMX_ERR_OVERFLOW, "mmx_dist_subdivide: %lld texture coordinate "
                      "records: past 32-bit indices on rank 0", (long long)ntv);
    if (!s) s = mmx__host_alloc(ctx, (size_t)ntv + 1, sizeof *uid, (void **)&uid);
    if (!s) s = mmx__host_alloc(ctx, (size_t)ntv + 1, sizeof *rep, (void **)&rep);
    if (!s) s = mmx__host_alloc(ctx, (size_t)ntv + 1, sizeof *idx, (void **)&idx);
    if (!s) s = mmx__host_alloc(ctx, (size_t)ntv + 1, sizeof *itmp, (void **)&itmp);
    if (!s) s = mmx__host_alloc(ctx, (size_t)ntv + 1, sizeof *num, (void **)&num);
    if (!s) s = mmx__host_alloc(ctx, (size_t)ntv + 1, sizeof *ka, (void **)&ka);
    if (!s) s = mmx__host_alloc(ctx, (size_t)ntv + 1, sizeof *ktmp, (void **)&ktmp);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nnz + 1, sizeof *uv->index, (void **)&uv->index);
    if (!s) s = mmx__host_alloc(ctx, 2 * (size_t)ntv + 1, sizeof *uv->values, (void **)&uv->values);
    if (s) goto out;
    const mmx_index u = merge_keys(ntv, tv, ka, ktmp, idx, itmp, uid, rep);
    for (mmx_index w = 0; w < u; w++) num[w] = -1;
    mmx_index n = 0;
    int64_t k = 0;
    for (int64_t f = 0; f < nf && !s; f++) {
        const int64_t i = at[f], o = ord[i] < 0 ? -ord[i] : ord[i];
        if (ord[i] < 0 && holes == MMX_HOLES_REMOVE) continue;
        for (int64_t c = 0; c < o; c++) {
            const int64_t r = fct[fc[i] + c];
            if (r < 0 || r >= ntv || k >= nnz) {
                s = mmx__fail(ctx, MMX_ERR_INTERNAL, "mmx_dist_subdivide: a corner of face %lld "
                              "names no gathered texture coordinate", (long long)f);
                break;
            }
            const mmx_index w = uid[r];
            if (num[w] < 0) {
                memcpy(uv->values + 2 * (size_t)n, tv[rep[w]].p, 2 * sizeof *uv->values);
                num[w] = n++;
            }
            uv->index[k++] = num[w];
        }
    }
    if (!s && k != nnz)
        s = mmx__fail(ctx, MMX_ERR_INTERNAL, "mmx_dist_subdivide: %lld texture corners, the "
                      "result has %lld", (long long)k, (long long)nnz);
    if (!s) {
        uv->nvalues = n, uv->space = MMX_SPACE_HOST;
        m->uv = uv;
        uv = NULL;
    }
out:
    mmx_mesh_uv_free(uv);
    free(uid), free(rep), free(idx), free(itmp), free(num), free(ka), free(ktmp);
    return s;
}

/* Rank 0: the result from the gathered shares. fcv and t name vertices by their place in the
 * whole gathered list v (rank after rank). ord is each face's order, negated for a hole's
 * descendant: with MMX_HOLES_REMOVE those faces are left out, and the vertices only they use
 * (numbered by first use in the kept faces, they get no number, and their creases and corners
 * go with them), as holes.c leaves them out of the single process's result; with
 * MMX_HOLES_KEEP they stay, tagged as holes. */
static mmx_status assemble(mmx_ctx *ctx, int64_t nf, const int64_t *gid, const int64_t *ord,
                           int64_t nc, const int32_t *fcv, int64_t nv, const vrec *v, int64_t nt,
                           crec *t, const mmx_mesh *tag_source, mmx_hole_mode holes,
                           const int32_t *fct, int64_t ntv, const vrec *tv, mmx_mesh **out)
{
    mmx_index *start = NULL, *verts = NULL, *num = NULL, *uid = NULL, *rep = NULL;
    mmx_index *idx = NULL, *itmp = NULL;
    uint64_t *ka = NULL, *ktmp = NULL;
    int64_t *at = NULL, *fc = NULL;
    float *pos = NULL;
    mmx_mesh_tags *opt = NULL, T;
    memset(&T, 0, sizeof T);
    mmx_status s = MMX_OK;
    if (nf > INT32_MAX || nc > INT32_MAX || nv > INT32_MAX)
        return mmx__fail(ctx, MMX_ERR_OVERFLOW, "mmx_dist_subdivide: %lld faces, %lld corners, "
                         "%lld vertex records: past 32-bit indices on rank 0", (long long)nf,
                         (long long)nc, (long long)nv);
    s = mmx__host_alloc(ctx, (size_t)nf, sizeof *at, (void **)&at);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nf, sizeof *fc, (void **)&fc);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nf + 1, sizeof *start, (void **)&start);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nc, sizeof *verts, (void **)&verts);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nv, sizeof *num, (void **)&num);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nv, sizeof *uid, (void **)&uid);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nv, sizeof *rep, (void **)&rep);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nv, sizeof *idx, (void **)&idx);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nv, sizeof *itmp, (void **)&itmp);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nv, sizeof *ka, (void **)&ka);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nv, sizeof *ktmp, (void **)&ktmp);
    if (!s) s = mmx__host_alloc(ctx, 3 * (size_t)nv, sizeof *pos, (void **)&pos);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nf, sizeof *T.holes, (void **)&T.holes);
    if (s) goto out;
    /* Faces at their global numbers (a permutation of 0 .. nf - 1, else a bug). */
    for (int64_t f = 0; f < nf; f++) at[f] = -1;
    for (int64_t i = 0, c = 0; i < nf; i++) {
        if (gid[i] < 0 || gid[i] >= nf || at[gid[i]] >= 0) {
            s = mmx__fail(ctx, MMX_ERR_INTERNAL, "mmx_dist_subdivide: face number %lld given "
                          "twice or out of range", (long long)gid[i]);
            goto out;
        }
        at[gid[i]] = i, fc[i] = c, c += ord[i] < 0 ? -ord[i] : ord[i];
    }
    /* Vertices merged by key (uid[record]: its vertex; rep[vertex]: its lowest rank's record). */
    const mmx_index u = merge_keys(nv, v, ka, ktmp, idx, itmp, uid, rep);
    /* Numbered by first use in face order (the kept faces'). */
    for (mmx_index w = 0; w < u; w++) num[w] = -1;
    start[0] = 0;
    mmx_index n = 0, k = 0;
    for (int64_t f = 0; f < nf; f++) {
        const int64_t i = at[f], o = ord[i] < 0 ? -ord[i] : ord[i];
        if (ord[i] < 0 && holes == MMX_HOLES_REMOVE) continue;
        if (ord[i] < 0) T.holes[T.nholes++] = k;
        start[k + 1] = start[k] + (mmx_index)o;
        for (int64_t c = 0; c < o; c++) {
            const int64_t r = fcv[fc[i] + c];
            if (r < 0 || r >= nv) {
                s = mmx__fail(ctx, MMX_ERR_INTERNAL, "mmx_dist_subdivide: a corner of face %lld "
                              "names no gathered vertex", (long long)f);
                goto out;
            }
            const mmx_index w = uid[r];
            if (num[w] < 0) {
                memcpy(pos + 3 * (size_t)n, v[rep[w]].p, 3 * sizeof *pos);
                num[w] = n++;
            }
            verts[start[k] + c] = num[w];
        }
        k++;
    }
    s = mmx_mesh_from_faces(ctx, n, k, start, verts, pos, out);
    if (!s && fct) s = assemble_uv(ctx, nf, at, fc, ord, holes, fct, ntv, tv, *out);
    /* Tags: the creases and corners (merged), the holes kept, the options as the local meshes
     * have them. */
    if (!s && tag_source && tag_source->tags) s = mmx_mesh_tags_parse(ctx, tag_source, &opt);
    if (!s && (nt > 0 || opt || T.nholes > 0)) {
        for (int64_t i = 0; i < nt; i++) {
            mmx_index e0 = t[i].a >= 0 && t[i].a < nv ? num[uid[t[i].a]] : -1;
            mmx_index e1 = t[i].b >= 0 && t[i].b < nv ? num[uid[t[i].b]] : -1;
            if (e0 > e1 && !t[i].corner) {
                const mmx_index x = e0;
                e0 = e1, e1 = x;
            }
            t[i].a = e0, t[i].b = e1;
        }
        qsort(t, (size_t)nt, sizeof *t, cmp_crec);
        s = mmx__host_alloc(ctx, 2 * (size_t)nt, sizeof *T.crease_verts, (void **)&T.crease_verts);
        if (!s) s = mmx__host_alloc(ctx, (size_t)nt, sizeof *T.crease_sharpness, (void **)&T.crease_sharpness);
        if (!s) s = mmx__host_alloc(ctx, (size_t)nt, sizeof *T.corner_verts, (void **)&T.corner_verts);
        if (!s) s = mmx__host_alloc(ctx, (size_t)nt, sizeof *T.corner_sharpness, (void **)&T.corner_sharpness);
        for (int64_t i = 0; !s && i < nt; i++) {
            if ((i && !cmp_crec(&t[i], &t[i - 1])) || t[i].a < 0 || t[i].b < 0) continue;
            if (t[i].corner) {
                T.corner_verts[T.ncorners] = t[i].a;
                T.corner_sharpness[T.ncorners++] = t[i].sharp;
            } else {
                T.crease_verts[2 * T.ncreases] = t[i].a, T.crease_verts[2 * T.ncreases + 1] = t[i].b;
                T.crease_sharpness[T.ncreases++] = t[i].sharp;
            }
        }
        if (opt) {
            T.interpolate_boundary = opt->interpolate_boundary;
            T.fvar_interpolate_boundary = opt->fvar_interpolate_boundary;
            T.fvar_propagate_corners = opt->fvar_propagate_corners;
            T.crease_method = opt->crease_method;
            T.smooth_triangles = opt->smooth_triangles;
        } else {
            T.interpolate_boundary = T.fvar_interpolate_boundary = T.fvar_propagate_corners = -1;
            T.crease_method = T.smooth_triangles = -1;
        }
        if (!s) s = mmx_mesh_set_tags(ctx, *out, &T);
    }
out:
    free(start), free(verts), free(num), free(uid), free(rep), free(idx), free(itmp);
    free(ka), free(ktmp), free(at), free(fc), free(pos);
    free(T.crease_verts), free(T.crease_sharpness), free(T.corner_verts), free(T.corner_sharpness);
    free(T.holes);
    mmx_mesh_tags_free(opt);
    if (s && *out) mmx_mesh_free(*out), *out = NULL;
    return s;
}

mmx_status mmx_dist_subdivide(mmx_ctx *ctx, const mmx_dist_mesh *dm, mmx_scheme scheme, int levels,
                              const mmx_subdiv_options *opts, mmx_mesh **out,
                              mmx_dist_subdiv_report *report)
{
    MMX__NEED_CTX(ctx);
    if (!dm) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_dist_subdivide: dm is NULL");
    mmx_dist *d = dm->d;
    const double t0 = mmx__dist_now_ms();
    mmx_dist_subdiv_report rep;
    memset(&rep, 0, sizeof rep);
    mmx_subdiv_options o;
    memset(&o, 0, sizeof o);
    if (opts) o = *opts;
    o.trace = NULL; /* it would describe the local mesh, not the whole */
    /* Holes: the local meshes keep their descendants, tagged (so a face's children stay
     * together, which the naming reads), and rank 0 leaves them out (assemble). */
    const mmx_hole_mode holes = o.holes;
    o.holes = MMX_HOLES_KEEP;
    mmx_status s = MMX_OK;
    if (levels < 0)
        s = mmx__fail(ctx, MMX_ERR_ARG, "mmx_dist_subdivide: levels %d < 0", levels);
    else if (scheme != MMX_SCHEME_LOOP && scheme != MMX_SCHEME_CATMULL_CLARK &&
             scheme != MMX_SCHEME_BILINEAR && scheme != MMX_SCHEME_SQRT3)
        s = mmx__fail(ctx, MMX_ERR_ARG, "mmx_dist_subdivide: unknown scheme");
    else if (scheme == MMX_SCHEME_SQRT3 && o.limit)
        s = mmx__fail(ctx, MMX_ERR_UNSUPPORTED, "mmx_dist_subdivide: sqrt3 has no limit "
                      "masks (mmx_subdiv_limit)");
    else if (!dm->local->pos && mmx_mesh_nverts(dm->local) > 0)
        s = mmx__fail(ctx, MMX_ERR_ARG, "mmx_dist_subdivide: the mesh has no positions");
    else if (dm->rings < mmx__dist_subdiv_rings(scheme, levels)) {
        char op[40];
        snprintf(op, sizeof op, "subdiv:%s%d", scheme == MMX_SCHEME_SQRT3 ? "sqrt3:" : "", levels);
        s = mmx__fail(ctx, MMX_ERR_ARG, "mmx_dist_subdivide: %s over %d level%s needs %d ghost "
                      "ring%s, the partitioned mesh has %d (mmx_dist_rings(\"%s\"))",
                      mmx_scheme_name(scheme), levels, levels == 1 ? "" : "s",
                      mmx__dist_subdiv_rings(scheme, levels),
                      mmx__dist_subdiv_rings(scheme, levels) == 1 ? "" : "s", dm->rings, op);
    }
    if (out) *out = NULL;
    /* Texture coordinates (not sqrt3's: the single process does not refine them): named by
     * keys as the vertices are (an input value: its global number; a face point: its face's;
     * an edge point: its two ends' keys, the texture mesh's ends, so that a seam's two texture
     * edges stay two), or by their bits where the single process numbers them by value. */
    const int tex = out && dm->guv && scheme != MMX_SCHEME_SQRT3;
    int64_t by_value = 0;
    if (!s) s = mmx__dist_uv_by_value(ctx, dm, scheme, levels, &o, tex, &by_value);
    else (void)mmx__dist_uv_by_value(ctx, dm, scheme, levels, &o, 0, &by_value);
    s = mmx_dist_agree(ctx, d, s);
    if (s) return s;

    /* One call for all the levels (the library's fastest path); then each intermediate level's
     * faces read back from the result's layout (subdiv.h: a face's children together, in parent
     * order, a child's first corner its parent's corner, old vertices keeping their numbers),
     * and the names carried forward level by level over those face lists. */
    /* On CUDA the refinement runs on the device mesh; its result comes back to the host for
     * the naming and the gather, which run on the partitioned mesh's host context (hc). */
    mmx_ctx *hc = dm->dev ? dm->dev->hctx : ctx;
    const mmx_mesh *base = dm->dev ? dm->dev->hlocal : dm->local;
    const mmx_mesh *cur = base;
    mmx_mesh *owned_cur = NULL;
    mmx_index **lst = NULL, **lvt = NULL, *nfl = NULL, **luv = NULL;
    key *K = NULL, *KU = NULL;
    const mmx_mesh_uv *uvc = NULL;
    int64_t *pgid = NULL, *cgid = NULL, *pfirst = NULL;
    unsigned char *pown = NULL, *cown = NULL;
    share sh;
    memset(&sh, 0, sizeof sh);
    const mmx_index nv0 = mmx_mesh_nverts(cur), nf0 = mmx_mesh_nfaces(cur);
    const int loop = scheme == MMX_SCHEME_LOOP, sqrt3 = scheme == MMX_SCHEME_SQRT3;
    /* A rank without faces (more ranks than patches) has nothing to refine; level 0 with the
     * limit is the projection of the input. */
    const int refine = (levels > 0 || o.limit) && nf0 > 0;
    const int L = refine ? levels : 0;
    /* sqrt3 refines the local mesh with its cut's fans split (split_fans). */
    const mmx_mesh *src = dm->local;
    mmx_mesh *split = NULL, *dsplit = NULL;
    mmx_index *sorig = NULL, nsplit = 0;
    if (sqrt3 && refine) {
        s = split_fans(hc, base, dm->ov, &split, &sorig, &nsplit);
        if (s && hc != ctx) s = mmx__fail(ctx, s, "%s", mmx_ctx_error(hc));
        if (!s && split && dm->dev) s = mmx_mesh_copy(ctx, split, MMX_SPACE_DEVICE, &dsplit);
        if (!s && split) src = dsplit ? dsplit : split;
    }
    if (refine) {
        mmx_mesh *fine = NULL;
        /* On CUDA the stream is waited for before and after, so that refine_ms is the
         * device's time for the refinement alone. */
        if (!s && dm->dev) s = mmx_ctx_sync(ctx);
        const double r0 = mmx__dist_now_ms();
        if (!s) s = mmx_subdivide(ctx, scheme, src, levels, &o, &fine);
        if (!s && dm->dev) s = mmx_ctx_sync(ctx);
        rep.refine_ms = mmx__dist_now_ms() - r0;
        rep.local_faces = fine ? mmx_mesh_nfaces(fine) : 0;
        if (!s && !out) {
            /* No gather: the owned descendants counted (one child per corner at the first
             * level of Catmull-Clark and bilinear, four after that; Loop four a level). */
            mmx_index *fs = NULL, *fv = NULL;
            s = mmx_mesh_faces(hc, base, &fs, &fv);
            for (mmx_index f = 0; !s && f < nf0; f++)
                if (dm->of[f]) {
                    int64_t c = levels == 0 ? 1 : loop ? 4 : sqrt3 ? 3 : fs[f + 1] - fs[f];
                    for (int l = 1; l < levels; l++) c *= sqrt3 ? 3 : 4;
                    rep.owned_faces += c;
                }
            if (s && hc != ctx) s = mmx__fail(ctx, s, "%s", mmx_ctx_error(hc));
            free(fs), free(fv);
            mmx_mesh_free(fine);
            fine = NULL;
        } else if (!s && dm->dev) {
            s = mmx_mesh_copy(ctx, fine, MMX_SPACE_HOST, &owned_cur);
            mmx_mesh_free(fine);
            fine = NULL;
            if (!s) cur = owned_cur;
        } else if (!s) {
            cur = owned_cur = fine;
        } else {
            mmx_mesh_free(fine); /* a wait that failed after the refinement */
        }
    } else if (!out) {
        rep.owned_faces = dm->nof, rep.local_faces = nf0;
    }
    if (!out) {
        free(sorig);
        mmx_mesh_free(split), mmx_mesh_free(dsplit);
        s = mmx_dist_agree(ctx, d, s);
        rep.gather_ms = 0;
        if (report) *report = rep;
        return s;
    }
    /* sqrt3's odd generations: the local mesh after each, for the names of its cut points
     * (sqrt3_names; the last one is the result). */
    mmx_mesh **fine_at = NULL;
    if (!s && sqrt3 && L > 1) {
        s = mmx__host_alloc(ctx, (size_t)L + 1, sizeof *fine_at, (void **)&fine_at);
        if (!s) memset(fine_at, 0, ((size_t)L + 1) * sizeof *fine_at);
        for (int l = 2; l < L && !s; l += 2) {
            mmx_mesh *f = NULL;
            s = mmx_subdivide(ctx, scheme, src, l, &o, &f);
            if (!s && dm->dev) s = mmx_mesh_copy(ctx, f, MMX_SPACE_HOST, &fine_at[l]);
            else if (!s) fine_at[l] = f, f = NULL;
            mmx_mesh_free(f);
        }
    }
    const mmx_index nvf = mmx_mesh_nverts(cur);
    if (!s) s = mmx__host_alloc(ctx, (size_t)L + 1, sizeof *lst, (void **)&lst);
    if (!s) s = mmx__host_alloc(ctx, (size_t)L + 1, sizeof *lvt, (void **)&lvt);
    if (!s) s = mmx__host_alloc(ctx, (size_t)L + 1, sizeof *nfl, (void **)&nfl);
    if (!s) {
        memset(lst, 0, ((size_t)L + 1) * sizeof *lst);
        memset(lvt, 0, ((size_t)L + 1) * sizeof *lvt);
        nfl[0] = nf0, nfl[L] = mmx_mesh_nfaces(cur);
        s = mmx_mesh_faces(hc, base, &lst[0], &lvt[0]);
    }
    if (!s && L > 0) s = mmx_mesh_faces(hc, cur, &lst[L], &lvt[L]);
    for (int l = L - 1; l >= 1 && !s && !sqrt3; l--) {
        /* Level l from level l + 1: 4 children a face, its corners their first corners (Loop:
         * of the children after the middle one). */
        const int c = loop ? 3 : 4;
        nfl[l] = nfl[l + 1] / 4;
        s = mmx__host_alloc(ctx, (size_t)nfl[l] + 1, sizeof **lst, (void **)&lst[l]);
        if (!s) s = mmx__host_alloc(ctx, (size_t)nfl[l] * (size_t)c, sizeof **lvt, (void **)&lvt[l]);
        if (s) break;
        for (mmx_index f = 0; f <= nfl[l]; f++) lst[l][f] = c * f;
        for (mmx_index f = 0; f < nfl[l]; f++)
            for (int k = 0; k < c; k++) lvt[l][c * f + k] = lvt[l + 1][lst[l + 1][4 * f + k + loop]];
    }
    if (!s && tex) {
        /* The texture coordinates' corners at each level, as the vertices' (a child's first
         * corner keeps its parent's corner's value: the texture mesh is refined with the
         * vertices' layout); level 0 with the limit keeps the input's. */
        uvc = L > 0 || cur->uv ? cur->uv : base->uv;
        if (!uvc || uvc->space != MMX_SPACE_HOST || !base->uv)
            s = mmx__fail(ctx, MMX_ERR_INTERNAL, "mmx_dist_subdivide: the refined local mesh has "
                          "no texture coordinates on the host");
        if (!s) s = mmx__host_alloc(ctx, (size_t)L + 1, sizeof *luv, (void **)&luv);
        if (!s) {
            memset(luv, 0, ((size_t)L + 1) * sizeof *luv);
            luv[0] = base->uv->index, luv[L] = uvc->index;
        }
        for (int l = L - 1; l >= 1 && !s; l--) {
            const int c = loop ? 3 : 4;
            s = mmx__host_alloc(ctx, (size_t)nfl[l] * (size_t)c + 1, sizeof **luv, (void **)&luv[l]);
            for (mmx_index f = 0; !s && f < nfl[l]; f++)
                for (int k = 0; k < c; k++) luv[l][c * f + k] = luv[l + 1][lst[l + 1][4 * f + k + loop]];
        }
        if (!s) s = mmx__host_alloc(ctx, (size_t)uvc->nvalues + 1, sizeof *KU, (void **)&KU);
        for (mmx_index v = 0; !s && v < uvc->nvalues; v++)
            KU[v] = v < base->uv->nvalues ? vertex_key(dm->guv[v]) : (key){0, 0};
    }
    if (!s) s = mmx__host_alloc(ctx, (size_t)nvf, sizeof *K, (void **)&K);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nf0, sizeof *pgid, (void **)&pgid);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nf0, 1, (void **)&pown);
    if (!s) {
        for (mmx_index v = 0; v < nvf; v++) K[v] = v < nv0 ? vertex_key(dm->gv[v]) : (key){0, 0};
        /* a split fan's copy: its own name (it is at the cut, never an owned face's) */
        for (mmx_index v = 0; v < nsplit && L > 0; v++)
            K[nv0 + v] = face_key(63, dm->gv[sorig[v]]);
        memcpy(pgid, dm->gf, (size_t)nf0 * sizeof *pgid);
        memcpy(pown, dm->of, (size_t)nf0);
    }
    if (!s && sqrt3 && L > 0) {
        /* the faces' numbers and flags of the result, from the counts */
        free(pgid), free(pown);
        pgid = NULL, pown = NULL;
        const mmx_index ncf = nfl[L];
        s = mmx__host_alloc(ctx, (size_t)ncf, sizeof *pgid, (void **)&pgid);
        if (!s) s = mmx__host_alloc(ctx, (size_t)ncf, 1, (void **)&pown);
        if (!s) {
            s = sqrt3_names(hc, L, nv0 + nsplit, nf0, dm->gf, dm->of, fine_at, cur, K, pgid, pown);
            if (s && hc != ctx) s = mmx__fail(ctx, s, "%s", mmx_ctx_error(hc));
        }
    }
    for (int l = 0; l < L && !s && !sqrt3; l++) {
        const mmx_index nf = nfl[l], ncf = nfl[l + 1];
        s = mmx__host_alloc(ctx, (size_t)nf, sizeof *pfirst, (void **)&pfirst);
        if (!s) s = mmx__host_alloc(ctx, (size_t)ncf, sizeof *cgid, (void **)&cgid);
        if (!s) s = mmx__host_alloc(ctx, (size_t)ncf, 1, (void **)&cown);
        if (s) break;
        /* The first child's global number: Catmull-Clark on the input, a face's first corner in
         * the whole mesh (one child per corner); after that (quads), and for Loop, 4 times the
         * face's number. */
        for (mmx_index i = 0; i < nf; i++)
            pfirst[i] = !loop && l == 0 ? dm->gface_corner[i] : 4 * pgid[i];
        const int64_t want = loop || l > 0 ? 4 * (int64_t)nf : (int64_t)lst[0][nf];
        if (want != ncf) {
            s = mmx__fail(ctx, MMX_ERR_INTERNAL, "mmx_dist_subdivide: level %d has %d faces, its "
                          "parents make %lld", l + 1, ncf, (long long)want);
            break;
        }
        if (tex && !by_value)
            s = child_names(ctx, scheme, l, nf, lst[l], luv[l], KU, pgid, pfirst, pown,
                            uvc->nvalues, lst[l + 1], luv[l + 1], KU, cgid, cown);
        if (!s)
            s = child_names(ctx, scheme, l, nf, lst[l], lvt[l], K, pgid, pfirst, pown, nvf,
                            lst[l + 1], lvt[l + 1], K, cgid, cown);
        free(pgid), free(pown), free(pfirst);
        pgid = cgid, pown = cown, pfirst = NULL, cgid = NULL, cown = NULL;
    }
    for (mmx_index v = 0; !s && tex && by_value && v < uvc->nvalues; v++) {
        /* by value: the bits name it (equal coordinates are one, as the single process has) */
        uint32_t a, b;
        memcpy(&a, uvc->values + 2 * (size_t)v, 4), memcpy(&b, uvc->values + 2 * (size_t)v + 1, 4);
        KU[v] = (key){(uint64_t)a << 32 | b, 0x7777ull};
    }
    if (!s) s = make_share(hc, cur, lst[L], lvt[L], K, pgid, pown, &sh);
    if (!s && tex) s = make_uv_share(hc, uvc, nfl[L], lst[L], KU, pown, &sh);
    rep.local_faces = mmx_mesh_nfaces(cur), rep.owned_faces = sh.nf;
    if (s && hc != ctx && mmx_ctx_error(hc)[0]) s = mmx__fail(ctx, s, "%s", mmx_ctx_error(hc));
    s = mmx_dist_agree(ctx, d, s);

    /* The gathers: faces (number, order), corners (keys), vertices, tags. */
    int64_t *fo = NULL, *all_fo = NULL, nf_all = 0, nc_all = 0, nv_all = 0, nt_all = 0;
    int32_t *all_fc = NULL;
    int64_t *per = NULL;
    if (d->rank == 0 && !s) s = mmx__host_alloc(ctx, 5 * (size_t)d->size, sizeof *per, (void **)&per);
    vrec *all_v = NULL, *all_tv = NULL;
    int32_t *all_tc = NULL;
    int64_t ntc_all = 0, ntv_all = 0;
    crec *all_t = NULL;
    int64_t *all_gid = NULL, *all_ord = NULL;
    if (!s) s = mmx__host_alloc(ctx, 2 * (size_t)sh.nf, sizeof *fo, (void **)&fo);
    if (!s)
        for (int64_t i = 0, f = 0; f < mmx_mesh_nfaces(cur); f++)
            if (pown[f]) {
                const int64_t ord = lst[L][f + 1] - lst[L][f];
                fo[2 * i] = pgid[f], fo[2 * i + 1] = sh.hole[f] ? -ord : ord, i++;
            }
    s = mmx_dist_agree(ctx, d, s);
    int64_t *pc = per, *pv = per ? per + d->size : NULL, *pscratch = per ? per + 2 * d->size : NULL;
    if (!s) s = gather_all(ctx, d, fo, sh.nf, 2 * sizeof *fo, (void **)&all_fo, &nf_all, pscratch, &rep.gathered_bytes);
    if (!s) s = gather_all(ctx, d, sh.fc, sh.nc, sizeof *sh.fc, (void **)&all_fc, &nc_all, pc, &rep.gathered_bytes);
    if (!s) s = gather_all(ctx, d, sh.v, sh.nv, sizeof *sh.v, (void **)&all_v, &nv_all, pv, &rep.gathered_bytes);
    if (!s) s = gather_all(ctx, d, sh.t, sh.nt, sizeof *sh.t, (void **)&all_t, &nt_all, pscratch, &rep.gathered_bytes);
    int64_t *ptv = per ? per + 3 * d->size : NULL;
    if (!s && tex)
        s = gather_all(ctx, d, sh.tv, sh.ntv, sizeof *sh.tv, (void **)&all_tv, &ntv_all, ptv, &rep.gathered_bytes);
    /* each rank's texture corners are as many as its corners (pc) */
    if (!s && tex)
        s = gather_all(ctx, d, sh.tc, sh.nc, sizeof *sh.tc, (void **)&all_tc, &ntc_all,
                       per ? per + 4 * d->size : NULL, &rep.gathered_bytes);
    if (!s && d->rank == 0) {
        /* The corners' vertices as places in the whole gathered vertex list. */
        int64_t c0 = 0, v0 = 0, t0 = 0, u0 = 0;
        for (int q = 0; q < d->size; c0 += pc[q], t0 += pscratch[q], v0 += pv[q], u0 += tex ? ptv[q] : 0, q++) {
            for (int64_t c = c0; c < c0 + pc[q]; c++) all_fc[c] += (int32_t)v0;
            for (int64_t c = c0; tex && c < c0 + pc[q]; c++) all_tc[c] += (int32_t)u0;
            for (int64_t c = t0; c < t0 + pscratch[q]; c++) all_t[c].a += (int32_t)v0, all_t[c].b += (int32_t)v0;
        }
        s = mmx__host_alloc(ctx, (size_t)nf_all, sizeof *all_gid, (void **)&all_gid);
        if (!s) s = mmx__host_alloc(ctx, (size_t)nf_all, sizeof *all_ord, (void **)&all_ord);
        if (!s) {
            for (int64_t i = 0; i < nf_all; i++) all_gid[i] = all_fo[2 * i], all_ord[i] = all_fo[2 * i + 1];
            s = assemble(hc, nf_all, all_gid, all_ord, nc_all, all_fc, nv_all, all_v, nt_all,
                         all_t, cur, holes, tex ? all_tc : NULL, ntv_all, all_tv, out);
            if (s && hc != ctx) s = mmx__fail(ctx, s, "%s", mmx_ctx_error(hc));
            if (!s && dm->dev) {
                /* The result in the context's space, as the single process gives it. */
                mmx_mesh *host = *out;
                *out = NULL;
                s = mmx_mesh_copy(ctx, host, MMX_SPACE_DEVICE, out);
                mmx_mesh_free(host);
            }
        }
    }
    s = mmx_dist_agree(ctx, d, s);
    if (s && out && *out) mmx_mesh_free(*out), *out = NULL;
    dm->cnt->bytes += rep.gathered_bytes;
    rep.gather_ms = mmx__dist_now_ms() - t0 - rep.refine_ms;
    if (report) *report = rep;
    free(fo), free(all_fo), free(all_fc), free(per), free(all_v), free(all_t), free(all_gid), free(all_ord);
    free(all_tc), free(all_tv), free(KU);
    for (int l = 1; luv && l < L; l++) free(luv[l]);
    free(luv);
    for (int l = 0; lst && l <= L; l++) free(lst[l]), free(lvt[l]);
    free(lst), free(lvt), free(nfl), free(K), free(pgid), free(pown), free(pfirst);
    free(cgid), free(cown);
    share_free(&sh);
    mmx_mesh_free(owned_cur);
    for (int l = 0; fine_at && l <= L; l++) mmx_mesh_free(fine_at[l]);
    free(fine_at), free(sorig);
    mmx_mesh_free(split), mmx_mesh_free(dsplit);
    return s;
}
