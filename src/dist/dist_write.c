/* One mesh file (OBJ or binary PLY) written by all ranks, with no rank holding the whole
 * (mmx_dist_write_obj, mmx_dist_write_ply, and the refined mesh of mmx_dist_subdivide_write):
 * each vertex's row and each face go to the rank of their block of global numbers (rank q:
 * numbers [q N / R, (q + 1) N / R)), which formats its block as the single-process writer does
 * (io_internal.h's number formatting, ply_write.c's byte layout, so the same bytes); the
 * ranks' byte counts, gathered, give each block's place in the file; MPI-IO writes them
 * there. */
#include <stdlib.h>
#include <string.h>
#include "dist_internal.h"
#include "io/io_internal.h"

#define block_of mmx__dist_block_of
#define block_start mmx__dist_block_start

int mmx__dist_block_of(int64_t g, int64_t n, int R)
{
    return (int)(g * R / n);
}

int64_t mmx__dist_block_start(int q, int64_t n, int R)
{
    return (n * q + R - 1) / R; /* the least g with g R / n >= q */
}

/* Sends records (counted in int64 words, grouped by destination) to their ranks; *recv
 * (malloc'd) gets what this rank receives, *nrecv its words. */
static mmx_status send_words(mmx_ctx *ctx, mmx_dist *d, const int64_t *send, int64_t *scount,
                             int64_t **recv, int64_t *nrecv)
{
    return mmx__dist_send_words(ctx, d, send, scount, recv, nrecv, NULL);
}

mmx_status mmx__dist_send_words(mmx_ctx *ctx, mmx_dist *d, const int64_t *send, int64_t *scount,
                                int64_t **recv, int64_t *nrecv, int64_t *rwords)
{
    const int R = d->size;
    int64_t *rcount = calloc(2 * (size_t)R, sizeof *rcount);
    mmx_status s = rcount ? MMX_OK : mmx__fail(ctx, MMX_ERR_NOMEM, "writing from all ranks: out of host memory");
    s = mmx_dist_agree(ctx, d, s);
    if (!s) s = mmx__dist_alltoall_i64(ctx, d, scount, rcount);
    *nrecv = 0;
    for (int q = 0; !s && q < R; q++) *nrecv += rcount[q];
    if (!s) s = mmx__host_alloc(ctx, (size_t)*nrecv + 1, sizeof **recv, (void **)recv);
    s = mmx_dist_agree(ctx, d, s);
    for (int q = 0; !s && q < R; q++) scount[q] *= 8, rcount[q] *= 8;
    if (!s) s = mmx__dist_alltoallv(ctx, d, send, scount, *recv, rcount);
    for (int q = 0; !s && rwords && q < R; q++) rwords[q] = rcount[q] / 8;
    free(rcount);
    return s;
}

/* A growing buffer of this rank's block of one section. */
typedef struct text {
    char *p;
    int64_t len, cap;
} text;

static int room(text *t, int64_t n)
{
    if (t->len + n <= t->cap) return 0;
    int64_t cap = t->cap ? 2 * t->cap : 4096;
    while (cap < t->len + n) cap *= 2;
    char *p = realloc(t->p, (size_t)cap);
    if (!p) return -1;
    t->p = p, t->cap = cap;
    return 0;
}

/* "v x y z\n" (or "vn ..."): as mmx__write_obj formats them. */
static int put_row(text *t, const char *kw, const float *x)
{
    if (room(t, 3 * 17 + 4)) return -1;
    char *p = t->p + t->len;
    for (const char *k = kw; *k; k++) *p++ = *k;
    for (int i = 0; i < 3; i++) *p++ = ' ', p += mmx__fmt_float(p, x[i]);
    *p++ = '\n';
    t->len = p - t->p;
    return 0;
}

static void put_u32le(char *p, uint32_t v)
{
    p[0] = (char)(v & 0xffu);
    p[1] = (char)((v >> 8) & 0xffu);
    p[2] = (char)((v >> 16) & 0xffu);
    p[3] = (char)((v >> 24) & 0xffu);
}

mmx_status mmx__dist_write_records(mmx_ctx *ctx, mmx_dist *d, const char *path, mmx_format fmt,
                                   int64_t V, int64_t F, int k, int64_t nv, const int64_t *vg,
                                   const float *rows, int64_t nf, const int64_t *fg,
                                   const int64_t *fstart, const int64_t *fcorner,
                                   const mmx__dist_uvrec *uv, int64_t *sent, int64_t *bytes)
{
    const int R = d->size, me = d->rank, ply = fmt == MMX_FORMAT_PLY;
    const int64_t vw = 1 + (k + 1) / 2; /* a vertex's words: its number, its k floats' bits */
    const int tex = uv && !ply, cw = 1 + tex; /* a corner's words */
    const int64_t T = tex ? uv->T : 0, nt = tex ? uv->nt : 0;
    int64_t *sc = NULL, *at = NULL, *vsend = NULL, *fsend = NULL, *vrecv = NULL, *frecv = NULL;
    int64_t *tsend = NULL, *trecv = NULL, nt_recv = 0;
    int64_t *counts = NULL, *pos = NULL, nv_recv = 0, nf_recv = 0;
    const int64_t fwords = 2 * nf + cw * (nf ? fstart[nf] : 0);
    float *block = NULL, *tblock = NULL;
    unsigned char *seen = NULL, *tseen = NULL;
    text tv = {0}, tt = {0}, tn = {0}, tf = {0};
    char head[640];
    int hlen = 0;
    mmx_status s = mmx__host_alloc(ctx, 2 * (size_t)R + 1, sizeof *sc, (void **)&sc);
    if (!s) s = mmx__host_alloc(ctx, (size_t)R + 1, sizeof *pos, (void **)&pos);
    if (!s) s = mmx__host_alloc(ctx, (size_t)(nv * vw) + 1, sizeof *vsend, (void **)&vsend);
    if (!s) s = mmx__host_alloc(ctx, (size_t)fwords + 1, sizeof *fsend, (void **)&fsend);
    if (!s) s = mmx__host_alloc(ctx, 2 * (size_t)nt + 1, sizeof *tsend, (void **)&tsend);
    s = mmx_dist_agree(ctx, d, s);
    if (s) goto out;

    /* The vertices' records grouped by block (counted, then placed: the callers' orders need
     * not follow the blocks). */
    memset(sc, 0, 2 * (size_t)R * sizeof *sc);
    for (int64_t i = 0; i < nv; i++) sc[block_of(vg[i], V, R)] += vw;
    pos[0] = 0;
    for (int q = 0; q < R; q++) pos[q + 1] = pos[q] + sc[q];
    for (int64_t i = 0; i < nv; i++) {
        int64_t *w = vsend + pos[block_of(vg[i], V, R)];
        pos[block_of(vg[i], V, R)] += vw;
        w[0] = vg[i], w[vw - 1] = 0;
        memcpy(w + 1, rows + (size_t)i * (size_t)k, (size_t)k * sizeof *rows);
    }
    s = send_words(ctx, d, vsend, sc, &vrecv, &nv_recv);
    /* The texture coordinates' records (number, u v bits), likewise. */
    if (tex) {
        memset(sc, 0, 2 * (size_t)R * sizeof *sc);
        for (int64_t i = 0; i < nt; i++) sc[block_of(uv->tg[i], T, R)] += 2;
        pos[0] = 0;
        for (int q = 0; q < R; q++) pos[q + 1] = pos[q] + sc[q];
        for (int64_t i = 0; i < nt; i++) {
            int64_t *w = tsend + pos[block_of(uv->tg[i], T, R)];
            pos[block_of(uv->tg[i], T, R)] += 2;
            w[0] = uv->tg[i];
            memcpy(w + 1, uv->rows + 2 * (size_t)i, 2 * sizeof *uv->rows);
        }
        if (!s) s = send_words(ctx, d, tsend, sc, &trecv, &nt_recv);
    }
    /* The faces' records (number, order, corners' numbers, their texture coordinates'),
     * grouped by block the same way. */
    memset(sc, 0, 2 * (size_t)R * sizeof *sc);
    for (int64_t i = 0; i < nf; i++) sc[block_of(fg[i], F, R)] += 2 + cw * (fstart[i + 1] - fstart[i]);
    pos[0] = 0;
    for (int q = 0; q < R; q++) pos[q + 1] = pos[q] + sc[q];
    for (int64_t i = 0; i < nf; i++) {
        const int64_t n = fstart[i + 1] - fstart[i];
        int64_t *w = fsend + pos[block_of(fg[i], F, R)];
        pos[block_of(fg[i], F, R)] += 2 + cw * n;
        w[0] = fg[i], w[1] = n;
        memcpy(w + 2, fcorner + fstart[i], (size_t)n * sizeof *fcorner);
        if (tex) memcpy(w + 2 + n, uv->tcorner + fstart[i], (size_t)n * sizeof *fcorner);
    }
    if (!s) s = send_words(ctx, d, fsend, sc, &frecv, &nf_recv);
    if (s) goto out;
    if (sent) *sent = 8 * (nv * vw + fwords + 2 * nt);

    /* This rank's blocks, in order; every number given once (else the callers' parts do not
     * make one mesh: named). */
    const int64_t v0 = block_start(me, V, R), v1 = block_start(me + 1, V, R);
    const int64_t f0 = block_start(me, F, R), f1 = block_start(me + 1, F, R);
    s = mmx__host_alloc(ctx, (size_t)(v1 - v0) * (size_t)k + 1, sizeof *block, (void **)&block);
    if (!s) s = mmx__host_alloc(ctx, (size_t)(v1 - v0) + 1, 1, (void **)&seen);
    if (!s) s = mmx__host_alloc(ctx, (size_t)(f1 - f0) + 1, sizeof *at, (void **)&at);
    if (!s) memset(seen, 0, (size_t)(v1 - v0));
    for (int64_t i = 0; !s && i < nv_recv; i += vw) {
        if (seen[vrecv[i] - v0]++)
            s = mmx__fail(ctx, MMX_ERR_INTERNAL, "%s: vertex %lld given by two ranks", path,
                          (long long)vrecv[i]);
        memcpy(block + (size_t)(vrecv[i] - v0) * (size_t)k, vrecv + i + 1, (size_t)k * sizeof *block);
    }
    for (int64_t i = 0; !s && i < v1 - v0; i++)
        if (!seen[i])
            s = mmx__fail(ctx, MMX_ERR_MESH, "%s: vertex %lld given by no rank", path, (long long)(v0 + i));
    const int64_t t0 = tex ? block_start(me, T, R) : 0, t1 = tex ? block_start(me + 1, T, R) : 0;
    if (!s) s = mmx__host_alloc(ctx, 2 * (size_t)(t1 - t0) + 1, sizeof *tblock, (void **)&tblock);
    if (!s) s = mmx__host_alloc(ctx, (size_t)(t1 - t0) + 1, 1, (void **)&tseen);
    if (!s) memset(tseen, 0, (size_t)(t1 - t0) + 1);
    for (int64_t i = 0; !s && i < nt_recv; i += 2) {
        if (tseen[trecv[i] - t0]++)
            s = mmx__fail(ctx, MMX_ERR_INTERNAL, "%s: texture coordinate %lld given by two ranks",
                          path, (long long)trecv[i]);
        memcpy(tblock + 2 * (size_t)(trecv[i] - t0), trecv + i + 1, 2 * sizeof *tblock);
    }
    for (int64_t i = 0; !s && i < t1 - t0; i++)
        if (!tseen[i])
            s = mmx__fail(ctx, MMX_ERR_INTERNAL, "%s: texture coordinate %lld given by no rank",
                          path, (long long)(t0 + i));
    for (int64_t f = 0; !s && f < f1 - f0; f++) at[f] = -1;
    int64_t maxorder = 0;
    for (int64_t i = 0; !s && i < nf_recv; i += 2 + cw * frecv[i + 1]) {
        at[frecv[i] - f0] = i;
        if (frecv[i + 1] > maxorder) maxorder = frecv[i + 1];
        for (int64_t c = 0; c < frecv[i + 1]; c++)
            if (frecv[i + 2 + c] < 0 || frecv[i + 2 + c] >= V)
                s = mmx__fail(ctx, MMX_ERR_INTERNAL, "%s: face %lld names vertex %lld of %lld",
                              path, (long long)frecv[i], (long long)frecv[i + 2 + c], (long long)V);
        for (int64_t c = 0; tex && c < frecv[i + 1]; c++)
            if (frecv[i + 2 + frecv[i + 1] + c] < 0 || frecv[i + 2 + frecv[i + 1] + c] >= T)
                s = mmx__fail(ctx, MMX_ERR_INTERNAL, "%s: face %lld names texture coordinate %lld "
                              "of %lld", path, (long long)frecv[i],
                              (long long)frecv[i + 2 + frecv[i + 1] + c], (long long)T);
    }
    for (int64_t f = 0; !s && f < f1 - f0; f++)
        if (at[f] < 0) /* parts of different sets: a face that no rank owns */
            s = mmx__fail(ctx, MMX_ERR_MESH, "%s: face %lld owned by no rank", path, (long long)(f0 + f));
    /* PLY's count is a uchar unless some face passes 255 corners (ply_write.c): every rank
     * joins the maximum, whatever its status, and the statuses are agreed after. */
    const mmx_status a = mmx__dist_allreduce_i64(ctx, d, &maxorder, 1, MMX__DIST_MAX);
    if (!s) s = a;
    const int wide = maxorder > 255, nrm = k == 6;
    if (!s && me == 0 && !ply)
        hlen = snprintf(head, sizeof head, "# meshmatrix: %d vertices, %d faces\n", (int)V, (int)F);
    if (!s && me == 0 && ply)
        hlen = snprintf(head, sizeof head,
                        "ply\nformat binary_little_endian 1.0\ncomment written by meshmatrix\n"
                        "element vertex %d\nproperty float x\nproperty float y\nproperty float z\n"
                        "%selement face %d\nproperty list %s int vertex_indices\nend_header\n",
                        (int)V, nrm ? "property float nx\nproperty float ny\nproperty float nz\n" : "",
                        (int)F, wide ? "int" : "uchar");
    for (int64_t i = 0; !s && i < v1 - v0; i++) {
        const float *x = block + (size_t)i * (size_t)k;
        if (ply) {
            if (room(&tv, 4 * k)) {
                s = mmx__fail(ctx, MMX_ERR_NOMEM, "%s: out of host memory", path);
                break;
            }
            for (int c = 0; c < k; c++) {
                uint32_t u;
                memcpy(&u, x + c, sizeof u);
                put_u32le(tv.p + tv.len + 4 * c, u);
            }
            tv.len += 4 * k;
        } else if (put_row(&tv, "v", x) || (nrm && put_row(&tn, "vn", x + 3))) {
            s = mmx__fail(ctx, MMX_ERR_NOMEM, "%s: out of host memory", path);
        }
    }
    for (int64_t i = 0; !s && i < t1 - t0; i++) {
        if (room(&tt, 2 * 17 + 4)) {
            s = mmx__fail(ctx, MMX_ERR_NOMEM, "%s: out of host memory", path);
            break;
        }
        char *p = tt.p + tt.len;
        *p++ = 'v', *p++ = 't';
        for (int c = 0; c < 2; c++) *p++ = ' ', p += mmx__fmt_float(p, tblock[2 * (size_t)i + (size_t)c]);
        *p++ = '\n';
        tt.len = p - tt.p;
    }
    for (int64_t f = 0; !s && f < f1 - f0; f++) {
        const int64_t *r = frecv + at[f];
        if (room(&tf, 4 + r[1] * 36)) {
            s = mmx__fail(ctx, MMX_ERR_NOMEM, "%s: out of host memory", path);
            break;
        }
        char *p = tf.p + tf.len;
        if (ply) {
            if (wide) put_u32le(p, (uint32_t)r[1]), p += 4;
            else *p++ = (char)(unsigned char)r[1];
            for (int64_t c = 0; c < r[1]; c++) put_u32le(p, (uint32_t)r[2 + c]), p += 4;
        } else {
            *p++ = 'f';
            for (int64_t c = 0; c < r[1]; c++) {
                *p++ = ' ';
                p += mmx__fmt_u32(p, (uint32_t)r[2 + c] + 1u);
                if (tex) *p++ = '/', p += mmx__fmt_u32(p, (uint32_t)r[2 + r[1] + c] + 1u);
                if (nrm && !tex) *p++ = '/';
                if (nrm) *p++ = '/', p += mmx__fmt_u32(p, (uint32_t)r[2 + c] + 1u);
            }
            *p++ = '\n';
        }
        tf.len = p - tf.p;
    }
    if (!s) s = mmx__host_alloc(ctx, 5 * (size_t)R, sizeof *counts, (void **)&counts);
    s = mmx_dist_agree(ctx, d, s);
    if (s) goto out;
    /* Each section's place: the sections before it whole, then the lower ranks' share. */
    {
        const int64_t mine[5] = {hlen, tv.len, tt.len, tn.len, tf.len};
        s = mmx__dist_allgather_i64(ctx, d, mine, 5, counts);
        if (s) goto out;
        int64_t before = 0, off[5];
        for (int sec = 0; sec < 5; sec++) {
            off[sec] = before;
            for (int q = 0; q < R; q++) {
                if (q < me) off[sec] += counts[5 * q + sec];
                before += counts[5 * q + sec];
            }
        }
        const mmx__dist_chunk chunk[5] = {{head, hlen, off[0]}, {tv.p, tv.len, off[1]},
                                          {tt.p, tt.len, off[2]}, {tn.p, tn.len, off[3]},
                                          {tf.p, tf.len, off[4]}};
        s = mmx__dist_write_at(ctx, d, path, chunk, 5);
        if (bytes) *bytes = before;
    }
    s = mmx_dist_agree(ctx, d, s);
out:
    free(sc), free(pos), free(vsend), free(fsend), free(vrecv), free(frecv), free(at);
    free(counts), free(block), free(seen), free(tsend), free(trecv), free(tblock), free(tseen);
    free(tv.p), free(tt.p), free(tn.p), free(tf.p);
    return s;
}

/* The partitioned mesh's owned rows and faces, written (mmx_dist_write_obj, _ply). */
static mmx_status write_dm(mmx_ctx *ctx, const mmx_dist_mesh *dm, const float *pos,
                           const float *normals, const char *path, mmx_format fmt,
                           int64_t *bytes, const char *fn)
{
    MMX__NEED_CTX(ctx);
    if (!dm) return mmx__fail(ctx, MMX_ERR_ARG, "%s: dm is NULL", fn);
    mmx_dist *d = dm->d;
    mmx_status s = MMX_OK;
    /* A rank whose part is empty holds no vertex: its arrays may be NULL (a device allocation
     * of 0 bytes is), and it takes the others' choice of normals. */
    const int empty = mmx_mesh_nverts(dm->local) == 0;
    if (!path || (!pos && !empty))
        s = mmx__fail(ctx, MMX_ERR_ARG, "%s: %s is NULL", fn, !path ? "path" : "pos");
    else if (dm->gverts > INT32_MAX || dm->gfaces > INT32_MAX)
        s = mmx__fail(ctx, MMX_ERR_OVERFLOW, "%s: %lld vertices, %lld faces: past the "
                      "single-process writer's 32-bit numbers", fn, (long long)dm->gverts,
                      (long long)dm->gfaces);
    /* {every rank with vertices gave normals (or has none), -(some rank gave them)} */
    int64_t given[2] = {normals != NULL || empty, -(int64_t)(normals != NULL && !empty)};
    /* Every rank joins the all-reduce, whatever its status (one that skipped it would meet the
     * others' in mmx_dist_agree's instead: the hang GPU run 10a of session 4 showed, a rank of
     * an empty part refusing its NULL rows); the statuses are agreed after. */
    const mmx_status a = mmx__dist_allreduce_i64(ctx, d, given, 2, MMX__DIST_MIN);
    if (!s) s = a;
    if (!s && given[0] == 0 && given[1] < 0)
        s = mmx__fail(ctx, MMX_ERR_ARG, "%s: normals given on some ranks only", fn);
    const int k = given[1] < 0 ? 6 : 3;
    s = mmx_dist_agree(ctx, d, s);
    if (s) return s;
    /* On CUDA the local mesh's host copy and the rows read back. */
    mmx_ctx *hc = dm->dev ? dm->dev->hctx : ctx;
    const mmx_mesh *m = dm->dev ? dm->dev->hlocal : dm->local;
    const mmx_index nl = mmx_mesh_nverts(m), nlf = mmx_mesh_nfaces(m);
    float *hrows = NULL, *rows = NULL;
    mmx_index *start = NULL, *verts = NULL;
    int64_t *vg = NULL, *fg = NULL, *fst = NULL, *fc = NULL, sent = 0;
    s = mmx__host_alloc(ctx, 6 * (size_t)nl + 1, sizeof *hrows, (void **)&hrows);
    if (!s) s = mmx__host_alloc(ctx, 6 * (size_t)dm->nov + 1, sizeof *rows, (void **)&rows);
    if (!s) s = mmx__host_alloc(ctx, (size_t)dm->nov + 1, sizeof *vg, (void **)&vg);
    if (!s && nl > 0) {
        const mmx_space sp = mmx_ctx_space(ctx);
        s = mmx_mem_copy(ctx, hrows, MMX_SPACE_HOST, pos, sp, 3 * (size_t)nl * sizeof *hrows);
        if (!s && k == 6)
            s = mmx_mem_copy(ctx, hrows + 3 * (size_t)nl, MMX_SPACE_HOST, normals, sp,
                             3 * (size_t)nl * sizeof *hrows);
    }
    if (!s) {
        s = mmx_mesh_faces(hc, m, &start, &verts);
        s = mmx__dist_host_status(ctx, hc, s);
    }
    if (!s) s = mmx__host_alloc(ctx, (size_t)dm->nof + 1, sizeof *fg, (void **)&fg);
    if (!s) s = mmx__host_alloc(ctx, (size_t)dm->nof + 2, sizeof *fst, (void **)&fst);
    int64_t nc = 0;
    for (mmx_index f = 0; !s && f < nlf; f++)
        if (dm->of[f]) nc += start[f + 1] - start[f];
    if (!s) s = mmx__host_alloc(ctx, (size_t)nc + 1, sizeof *fc, (void **)&fc);
    s = mmx_dist_agree(ctx, d, s);
    if (!s) {
        for (mmx_index v = 0, i = 0; v < nl; v++) {
            if (!dm->ov[v]) continue;
            vg[i] = dm->gv[v];
            memcpy(rows + (size_t)i * (size_t)k, hrows + 3 * (size_t)v, 3 * sizeof *rows);
            if (k == 6) memcpy(rows + (size_t)i * 6 + 3, hrows + 3 * ((size_t)nl + v), 3 * sizeof *rows);
            i++;
        }
        fst[0] = 0;
        for (mmx_index f = 0, i = 0; f < nlf; f++) {
            if (!dm->of[f]) continue;
            fg[i] = dm->gf[f], fst[i + 1] = fst[i];
            for (mmx_index c = start[f]; c < start[f + 1]; c++) fc[fst[i + 1]++] = dm->gv[verts[c]];
            i++;
        }
        s = mmx__dist_write_records(ctx, d, path, fmt, dm->gverts, dm->gfaces, k, dm->nov, vg,
                                    rows, dm->nof, fg, fst, fc, NULL, &sent, bytes);
        dm->cnt->bytes += sent;
    }
    free(hrows), free(rows), free(start), free(verts), free(vg), free(fg), free(fst), free(fc);
    return s;
}

mmx_status mmx_dist_write_obj(mmx_ctx *ctx, const mmx_dist_mesh *dm, const float *pos,
                              const float *normals, const char *path, int64_t *bytes)
{
    return write_dm(ctx, dm, pos, normals, path, MMX_FORMAT_OBJ, bytes, "mmx_dist_write_obj");
}

mmx_status mmx_dist_write_ply(mmx_ctx *ctx, const mmx_dist_mesh *dm, const float *pos,
                              const float *normals, const char *path, int64_t *bytes)
{
    return write_dm(ctx, dm, pos, normals, path, MMX_FORMAT_PLY, bytes, "mmx_dist_write_ply");
}
