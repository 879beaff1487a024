/* A partitioned mesh as part files: each rank writes and reads its own PREFIX.R.part, rank 0
 * writes PREFIX.index (the formats: dist.h, mmx_dist_mesh_write_parts). A part holds
 * everything of the rank's mmx_dist_mesh that mmx_dist_mesh_create computed from the whole
 * mesh (the local mesh, the local-to-global maps, the owned flags, the halo's lists), so
 * reading it back needs no whole mesh; rank 0's gather lists are rebuilt by the collective
 * that made them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dist_internal.h"

#define PART_MAGIC "MMXPART\n"
#define PART_VERSION 1u
#define PART_ORDER 0x01020304u
#define INDEX_MAGIC "mmx-dist-index"
#define INDEX_VERSION 1

/* The part header's fixed fields after the magic: version, byte order, rank, ranks, rings,
 * has positions (u32 each), then gverts, gfaces, gnnz, nlv, nlf, nnz, tag bytes (i64 each). */
#define PART_HEADER (8 + 6 * 4 + 7 * 8)

static char *part_name(const char *prefix, int rank)
{
    const size_t n = strlen(prefix) + 32;
    char *p = malloc(n);
    if (p) snprintf(p, n, "%s.%d.part", prefix, rank);
    return p;
}

static char *index_name(const char *prefix)
{
    const size_t n = strlen(prefix) + 8;
    char *p = malloc(n);
    if (p) snprintf(p, n, "%s.index", prefix);
    return p;
}

/* ---- writing ---------------------------------------------------------------------------- */

typedef struct writer {
    FILE *f;
    int bad;
} writer;

static void put(writer *w, const void *p, size_t n)
{
    if (!w->bad && n && fwrite(p, 1, n, w->f) != n) w->bad = errno ? errno : EIO;
}
static void put_u32(writer *w, uint32_t v) { put(w, &v, sizeof v); }
static void put_i64(writer *w, int64_t v) { put(w, &v, sizeof v); }

static mmx_status write_part(mmx_ctx *ctx, const mmx_dist_mesh *dm, const char *path)
{
    const int R = dm->d->size;
    mmx_ctx *hc = dm->dev ? dm->dev->hctx : ctx;
    const mmx_mesh *m = dm->dev ? dm->dev->hlocal : dm->local; /* on CUDA its host copy */
    const mmx_index nlv = mmx_mesh_nverts(m), nlf = mmx_mesh_nfaces(m);
    mmx_index *start = NULL, *verts = NULL;
    mmx_status s = mmx_mesh_faces(hc, m, &start, &verts);
    s = mmx__dist_host_status(ctx, hc, s);
    if (s) return s;
    const int64_t ntag = m->tags ? (int64_t)strlen(m->tags) : 0;
    writer w = {fopen(path, "wb"), 0};
    if (!w.f) {
        s = mmx__fail(ctx, MMX_ERR_IO, "%s: cannot create: %s", path, strerror(errno));
        goto out;
    }
    errno = 0;
    put(&w, PART_MAGIC, 8);
    const uint32_t head[6] = {PART_VERSION, PART_ORDER, (uint32_t)dm->d->rank, (uint32_t)R,
                              (uint32_t)dm->rings, m->pos != NULL};
    for (int i = 0; i < 6; i++) put_u32(&w, head[i]);
    const int64_t sizes[7] = {dm->gverts, dm->gfaces, dm->gnnz, nlv, nlf, start[nlf], ntag};
    for (int i = 0; i < 7; i++) put_i64(&w, sizes[i]);
    put(&w, start, ((size_t)nlf + 1) * sizeof *start);
    put(&w, verts, (size_t)start[nlf] * sizeof *verts);
    if (m->pos) put(&w, m->pos, 3 * (size_t)nlv * sizeof *m->pos);
    put(&w, dm->gv, (size_t)nlv * sizeof *dm->gv);
    put(&w, dm->gf, (size_t)nlf * sizeof *dm->gf);
    put(&w, dm->gface_corner, (size_t)nlf * sizeof *dm->gface_corner);
    put(&w, dm->ov, (size_t)nlv);
    put(&w, dm->of, (size_t)nlf);
    put(&w, dm->scount, (size_t)R * sizeof *dm->scount);
    put(&w, dm->rcount, (size_t)R * sizeof *dm->rcount);
    put(&w, dm->sidx, (size_t)dm->soff[R] * sizeof *dm->sidx);
    put(&w, dm->ridx, (size_t)dm->roff[R] * sizeof *dm->ridx);
    put(&w, m->tags, (size_t)ntag);
    if (fclose(w.f) && !w.bad) w.bad = errno ? errno : EIO;
    if (w.bad) s = mmx__fail(ctx, MMX_ERR_IO, "%s: cannot write: %s", path, strerror(w.bad));
out:
    free(start), free(verts);
    return s;
}

static mmx_status write_index(mmx_ctx *ctx, const mmx_dist_mesh *dm, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) return mmx__fail(ctx, MMX_ERR_IO, "%s: cannot create: %s", path, strerror(errno));
    int bad = fprintf(f, "%s %d\nranks %d\nrings %d\nverts %lld\nfaces %lld\ncorners %lld\n",
                      INDEX_MAGIC, INDEX_VERSION, dm->d->size, dm->rings, (long long)dm->gverts,
                      (long long)dm->gfaces, (long long)dm->gnnz) < 0;
    bad |= fclose(f) != 0;
    if (bad) return mmx__fail(ctx, MMX_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
    return MMX_OK;
}

mmx_status mmx_dist_mesh_write_parts(mmx_ctx *ctx, const mmx_dist_mesh *dm, const char *prefix)
{
    MMX__NEED_CTX(ctx);
    if (!dm) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_dist_mesh_write_parts: dm is NULL");
    mmx_dist *d = dm->d;
    char *part = prefix ? part_name(prefix, d->rank) : NULL;
    char *index = prefix ? index_name(prefix) : NULL;
    mmx_status s = MMX_OK;
    if (!prefix) s = mmx__fail(ctx, MMX_ERR_ARG, "mmx_dist_mesh_write_parts: prefix is NULL");
    else if (!part || !index) s = mmx__fail(ctx, MMX_ERR_NOMEM, "out of host memory");
    else if (dm->guv) /* every rank has them or none (the same whole) */
        s = mmx__fail(ctx, MMX_ERR_UNSUPPORTED, "mmx_dist_mesh_write_parts: %s: the part files "
                      "hold no texture coordinates (partition the mesh without them)", prefix);
    if (!s) s = write_part(ctx, dm, part);
    s = mmx_dist_agree(ctx, d, s);
    /* The index last: a set with an index has all its parts. */
    if (!s && d->rank == 0) s = write_index(ctx, dm, index);
    s = mmx_dist_agree(ctx, d, s);
    free(part), free(index);
    return s;
}

/* ---- reading ---------------------------------------------------------------------------- */

typedef struct reader {
    FILE *f;
    const char *path;
    int64_t at;
} reader;

/* n bytes (the size was checked against the file's before: a short read is an I/O error or a
 * file that changed under us). */
static mmx_status get(mmx_ctx *ctx, reader *r, void *p, size_t n, const char *what)
{
    if (n && fread(p, 1, n, r->f) != n)
        return mmx__fail(ctx, MMX_ERR_IO, "%s: truncated at byte %lld (reading %s)", r->path,
                         (long long)r->at, what);
    r->at += (int64_t)n;
    return MMX_OK;
}

static mmx_status alloc_get(mmx_ctx *ctx, reader *r, size_t n, size_t size, void **p,
                            const char *what)
{
    mmx_status s = mmx__host_alloc(ctx, n ? n : 1, size, p);
    return s ? s : get(ctx, r, *p, n * size, what);
}

/* The index: every rank reads it (small), checks the version and the rank count. */
static mmx_status read_index(mmx_ctx *ctx, const char *path, int R, int64_t *v)
{
    FILE *f = fopen(path, "r");
    if (!f) return mmx__fail(ctx, MMX_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    char magic[32] = "";
    int version = 0, ranks = 0, rings = 0;
    long long nv = -1, nf = -1, nc = -1;
    const int got = fscanf(f, "%31s %d ranks %d rings %d verts %lld faces %lld corners %lld",
                           magic, &version, &ranks, &rings, &nv, &nf, &nc);
    fclose(f);
    if (got < 2 || strcmp(magic, INDEX_MAGIC))
        return mmx__fail(ctx, MMX_ERR_PARSE, "%s: not a partitioned mesh's index (it must begin "
                         "\"%s %d\")", path, INDEX_MAGIC, INDEX_VERSION);
    if (version != INDEX_VERSION)
        return mmx__fail(ctx, MMX_ERR_PARSE, "%s: index version %d (this library reads %d)", path,
                         version, INDEX_VERSION);
    if (got != 7 || ranks < 1 || rings < 1 || rings > 64 || nv < 0 || nf < 0 || nc < 0)
        return mmx__fail(ctx, MMX_ERR_PARSE, "%s: field %d (of ranks, rings, verts, faces, "
                         "corners) missing or out of range", path, got < 7 ? got - 1 : 0);
    if (ranks != R)
        return mmx__fail(ctx, MMX_ERR_ARG, "%s: written by %d ranks, read by %d (read a "
                         "partitioned mesh with as many ranks as wrote it)", path, ranks, R);
    v[0] = rings, v[1] = nv, v[2] = nf, v[3] = nc;
    return MMX_OK;
}

/* Strictly ascending numbers below `limit`. */
static mmx_status check_ascending(mmx_ctx *ctx, const reader *r, const int64_t *a, int64_t n,
                                  int64_t limit, const char *what)
{
    for (int64_t i = 0; i < n; i++)
        if (a[i] < 0 || a[i] >= limit || (i && a[i] <= a[i - 1]))
            return mmx__fail(ctx, MMX_ERR_PARSE, "%s: %s entry %lld is %lld (ascending, 0 to %lld)",
                             r->path, what, (long long)i, (long long)a[i], (long long)limit - 1);
    return MMX_OK;
}

/* Reads and checks this rank's part into dm (host arrays, dm->local on the host context hc). */
static mmx_status read_part(mmx_ctx *ctx, mmx_ctx *hc, mmx_dist_mesh *dm, const char *path,
                            const int64_t *ix)
{
    const int R = dm->d->size, me = dm->d->rank;
    reader r = {fopen(path, "rb"), path, 0};
    if (!r.f) return mmx__fail(ctx, MMX_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    mmx_index *start = NULL, *verts = NULL;
    float *pos = NULL;
    char *tags = NULL;
    char magic[8];
    uint32_t head[6];
    int64_t sz[7];
    mmx_status s = get(ctx, &r, magic, 8, "the magic");
    if (!s && memcmp(magic, PART_MAGIC, 8))
        s = mmx__fail(ctx, MMX_ERR_PARSE, "%s: not a partitioned mesh's part (bad magic)", path);
    if (!s) s = get(ctx, &r, head, sizeof head, "the header");
    if (!s) s = get(ctx, &r, sz, sizeof sz, "the header");
    if (s) goto out;
    if (head[0] != PART_VERSION || head[1] != PART_ORDER) {
        s = mmx__fail(ctx, MMX_ERR_PARSE, "%s: %s", path, head[1] != PART_ORDER && head[0] != PART_VERSION ?
                      "written on a machine of the other byte order" : "a part of another version");
        goto out;
    }
    if ((int)head[2] != me || (int)head[3] != R || (int64_t)head[4] != ix[0] || sz[0] != ix[1] ||
        sz[1] != ix[2] || sz[2] != ix[3]) {
        s = mmx__fail(ctx, MMX_ERR_PARSE, "%s: rank %u of %u, %u rings, %lld vertices, %lld faces; "
                      "the index says rank %d of %d, %lld rings, %lld vertices, %lld faces (a part of "
                      "another set)", path, head[2], head[3], head[4], (long long)sz[0],
                      (long long)sz[1], me, R, (long long)ix[0], (long long)ix[1], (long long)ix[2]);
        goto out;
    }
    const int64_t nlv = sz[3], nlf = sz[4], nnz = sz[5], ntag = sz[6];
    const int has_pos = head[5] != 0;
    /* Local counts are 32-bit (and bounded by the whole's), so the size below cannot overflow. */
    if (nlv < 0 || nlv > MMX_INDEX_MAX || nlv > sz[0] || nlf < 0 || nlf > MMX_INDEX_MAX ||
        nlf > sz[1] || nnz < 0 || nnz > MMX_INDEX_MAX || nnz > sz[2] || ntag < 0 ||
        ntag > INT32_MAX || head[5] > 1) {
        s = mmx__fail(ctx, MMX_ERR_PARSE, "%s: header out of range (%lld local vertices, %lld "
                      "faces, %lld corners, %lld tag bytes)", path, (long long)nlv, (long long)nlf,
                      (long long)nnz, (long long)ntag);
        goto out;
    }
    /* The whole size from the header, before anything is allocated from it. */
    {
        const int64_t want = PART_HEADER + 4 * (nlf + 1 + nnz) + (has_pos ? 12 * nlv : 0) +
                             8 * nlv + 16 * nlf + nlv + nlf + 16 * (int64_t)R;
        if (fseek(r.f, 0, SEEK_END)) {
            s = mmx__fail(ctx, MMX_ERR_IO, "%s: cannot seek: %s", path, strerror(errno));
            goto out;
        }
        const int64_t have = (int64_t)ftell(r.f);
        fseek(r.f, (long)r.at, SEEK_SET);
        if (have < want + ntag) {
            s = mmx__fail(ctx, MMX_ERR_PARSE, "%s: truncated: %lld bytes, the header promises at "
                          "least %lld", path, (long long)have, (long long)(want + ntag));
            goto out;
        }
    }
    s = alloc_get(ctx, &r, (size_t)nlf + 1, sizeof *start, (void **)&start, "the face starts");
    if (!s) s = alloc_get(ctx, &r, (size_t)nnz, sizeof *verts, (void **)&verts, "the corners");
    if (!s && has_pos) s = alloc_get(ctx, &r, 3 * (size_t)nlv, sizeof *pos, (void **)&pos, "the positions");
    if (!s) s = alloc_get(ctx, &r, (size_t)nlv, sizeof *dm->gv, (void **)&dm->gv, "the global vertex numbers");
    if (!s) s = alloc_get(ctx, &r, (size_t)nlf, sizeof *dm->gf, (void **)&dm->gf, "the global face numbers");
    if (!s) s = alloc_get(ctx, &r, (size_t)nlf, sizeof *dm->gface_corner, (void **)&dm->gface_corner, "the first corners");
    if (!s) s = alloc_get(ctx, &r, (size_t)nlv, 1, (void **)&dm->ov, "the owned vertices");
    if (!s) s = alloc_get(ctx, &r, (size_t)nlf, 1, (void **)&dm->of, "the owned faces");
    if (!s) s = alloc_get(ctx, &r, (size_t)R, sizeof *dm->scount, (void **)&dm->scount, "the send counts");
    if (!s) s = alloc_get(ctx, &r, (size_t)R, sizeof *dm->rcount, (void **)&dm->rcount, "the receive counts");
    if (!s) s = mmx__host_alloc(ctx, (size_t)R + 1, sizeof *dm->soff, (void **)&dm->soff);
    if (!s) s = mmx__host_alloc(ctx, (size_t)R + 1, sizeof *dm->roff, (void **)&dm->roff);
    if (s) goto out;
    /* The counts before the lists they size. */
    dm->soff[0] = dm->roff[0] = 0;
    for (int q = 0; q < R; q++) {
        if (dm->scount[q] < 0 || dm->scount[q] > nlv * R || dm->rcount[q] < 0 || dm->rcount[q] > nlv ||
            (q == me && (dm->scount[q] || dm->rcount[q]))) {
            s = mmx__fail(ctx, MMX_ERR_PARSE, "%s: the halo's counts for rank %d out of range "
                          "(%lld sent, %lld received)", path, q, (long long)dm->scount[q],
                          (long long)dm->rcount[q]);
            goto out;
        }
        dm->soff[q + 1] = dm->soff[q] + dm->scount[q], dm->roff[q + 1] = dm->roff[q] + dm->rcount[q];
    }
    {
        const int64_t have_bytes = (int64_t)ftell(r.f);
        fseek(r.f, 0, SEEK_END);
        const int64_t end = (int64_t)ftell(r.f);
        fseek(r.f, (long)have_bytes, SEEK_SET);
        const int64_t want = have_bytes + 4 * (dm->soff[R] + dm->roff[R]) + ntag;
        if (end != want) {
            s = mmx__fail(ctx, MMX_ERR_PARSE, "%s: %lld bytes, the header and the halo's counts "
                          "promise %lld (%s)", path, (long long)end, (long long)want,
                          end < want ? "truncated" : "trailing bytes");
            goto out;
        }
    }
    s = alloc_get(ctx, &r, (size_t)dm->soff[R], sizeof *dm->sidx, (void **)&dm->sidx, "the send list");
    if (!s) s = alloc_get(ctx, &r, (size_t)dm->roff[R], sizeof *dm->ridx, (void **)&dm->ridx, "the receive list");
    if (!s && ntag) {
        s = mmx__host_alloc(ctx, (size_t)ntag + 1, 1, (void **)&tags);
        if (!s) s = get(ctx, &r, tags, (size_t)ntag, "the tags");
        if (!s) tags[ntag] = 0;
        if (!s && strlen(tags) != (size_t)ntag)
            s = mmx__fail(ctx, MMX_ERR_PARSE, "%s: a zero byte in the tags", path);
    }
    if (s) goto out;
    /* The numbers: each in range, so that no later step reads out of bounds. */
    if (start[0] != 0 || start[nlf] != nnz) {
        s = mmx__fail(ctx, MMX_ERR_PARSE, "%s: the face starts run from %d to %d, not 0 to %lld",
                      path, start[0], start[nlf], (long long)nnz);
        goto out;
    }
    for (int64_t f = 0; f < nlf; f++)
        if (start[f + 1] < start[f]) {
            s = mmx__fail(ctx, MMX_ERR_PARSE, "%s: local face %lld has %lld corners", path,
                          (long long)f, (long long)start[f + 1] - start[f]);
            goto out;
        }
    for (int64_t c = 0; c < nnz; c++)
        if (verts[c] < 0 || verts[c] >= nlv) {
            s = mmx__fail(ctx, MMX_ERR_PARSE, "%s: corner %lld names local vertex %d of %lld", path,
                          (long long)c, verts[c], (long long)nlv);
            goto out;
        }
    s = check_ascending(ctx, &r, dm->gv, nlv, sz[0], "the global vertex numbers'");
    if (!s) s = check_ascending(ctx, &r, dm->gf, nlf, sz[1], "the global face numbers'");
    if (s) goto out;
    for (int64_t f = 0; f < nlf; f++)
        if (dm->gface_corner[f] < 0 || dm->gface_corner[f] > sz[2] - (start[f + 1] - start[f]) || dm->of[f] > 1) {
            s = mmx__fail(ctx, MMX_ERR_PARSE, "%s: local face %lld: first corner %lld of %lld, owned "
                          "flag %d", path, (long long)f, (long long)dm->gface_corner[f],
                          (long long)sz[2], dm->of[f]);
            goto out;
        }
    dm->nov = dm->nof = 0;
    for (int64_t v = 0; v < nlv; v++) {
        if (dm->ov[v] > 1) {
            s = mmx__fail(ctx, MMX_ERR_PARSE, "%s: local vertex %lld: owned flag %d", path,
                          (long long)v, dm->ov[v]);
            goto out;
        }
        dm->nov += dm->ov[v];
    }
    for (int64_t f = 0; f < nlf; f++) dm->nof += dm->of[f];
    /* Every ghost received once, every sent vertex owned here. */
    if (dm->roff[R] != nlv - dm->nov) {
        s = mmx__fail(ctx, MMX_ERR_PARSE, "%s: %lld vertices received, %lld ghosts", path,
                      (long long)dm->roff[R], (long long)(nlv - dm->nov));
        goto out;
    }
    for (int64_t i = 0; i < dm->roff[R]; i++)
        if (dm->ridx[i] < 0 || dm->ridx[i] >= nlv || dm->ov[dm->ridx[i]]) {
            s = mmx__fail(ctx, MMX_ERR_PARSE, "%s: receive list entry %lld: local vertex %d, not a "
                          "ghost", path, (long long)i, dm->ridx[i]);
            goto out;
        }
    for (int64_t i = 0; i < dm->soff[R]; i++)
        if (dm->sidx[i] < 0 || dm->sidx[i] >= nlv || !dm->ov[dm->sidx[i]]) {
            s = mmx__fail(ctx, MMX_ERR_PARSE, "%s: send list entry %lld: local vertex %d, not owned "
                          "here", path, (long long)i, dm->sidx[i]);
            goto out;
        }
    s = mmx_mesh_from_faces(hc, (mmx_index)nlv, (mmx_index)nlf, start, verts, pos, &dm->local);
    if (!s && tags) {
        /* Checked against the local mesh as any mesh's tags are. */
        mmx_mesh_tags *T = NULL;
        dm->local->tags = tags;
        tags = NULL;
        s = mmx_mesh_tags_parse(hc, dm->local, &T);
        mmx_mesh_tags_free(T);
    }
    if (s) {
        /* hc may be ctx: the sentence copied out before it is written over */
        char why[MMX__ERRLEN];
        snprintf(why, sizeof why, "%s", mmx_ctx_error(hc));
        s = mmx__fail(ctx, s, "%s: %s", path, why);
    }
out:
    fclose(r.f);
    free(start), free(verts), free(pos), free(tags);
    return s;
}

mmx_status mmx_dist_mesh_read_parts(mmx_ctx *ctx, mmx_dist *d, const char *prefix,
                                    mmx_dist_mesh **out)
{
    MMX__NEED_CTX(ctx);
    if (!d) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_dist_mesh_read_parts: d is NULL");
    mmx_status s = MMX_OK;
    if (!out || !prefix)
        s = mmx__fail(ctx, MMX_ERR_ARG, "mmx_dist_mesh_read_parts: %s is NULL", !out ? "out" : "prefix");
    if (out) *out = NULL;
    s = mmx_dist_agree(ctx, d, s);
    if (s) return s;
    const int R = d->size;
    const int cuda = mmx_ctx_backend(ctx) == MMX_BACKEND_CUDA;
    char *part = part_name(prefix, d->rank), *index = index_name(prefix);
    mmx_dist_mesh *dm = calloc(1, sizeof *dm);
    if (!part || !index || !dm || !(dm->cnt = calloc(1, sizeof *dm->cnt)))
        s = mmx__fail(ctx, MMX_ERR_NOMEM, "mmx_dist_mesh_read_parts: out of host memory");
    /* On CUDA the part is read into a host local mesh (a host context of the mesh's own), then
     * copied to the device as mmx_dist_mesh_create does. */
    mmx_ctx *hc = ctx;
    if (!s && cuda) {
        dm->dev = calloc(1, sizeof *dm->dev);
        if (dm->dev && mmx_ctx_create(&dm->dev->hctx) == MMX_OK) hc = dm->dev->hctx;
        else s = mmx__fail(ctx, MMX_ERR_NOMEM, "mmx_dist_mesh_read_parts: out of host memory");
    }
    int64_t ix[4] = {0, 0, 0, 0};
    if (!s) s = read_index(ctx, index, R, ix);
    if (!s) {
        dm->d = d, dm->rings = (int)ix[0], dm->gverts = ix[1], dm->gfaces = ix[2], dm->gnnz = ix[3];
        s = read_part(ctx, hc, dm, part, ix);
    }
    s = mmx_dist_agree(ctx, d, s);
    /* What one part cannot tell: the halo's counts pair up over the ranks, and the owned faces
     * and vertices add up to the whole. */
    int64_t *sc = NULL;
    if (!s) s = mmx__host_alloc(ctx, (size_t)R, sizeof *sc, (void **)&sc);
    s = mmx_dist_agree(ctx, d, s);
    if (!s) s = mmx__dist_alltoall_i64(ctx, d, dm->rcount, sc);
    int64_t sum[3] = {dm->nof, dm->nov, 0};
    if (!s) {
        /* the owned faces' corners, from the local mesh's face sizes (on the host still) */
        const mmx_mesh *lm = dm->local;
        mmx_index *st = NULL, *vs = NULL;
        s = mmx_mesh_faces(hc, lm, &st, &vs);
        s = mmx__dist_host_status(ctx, hc, s);
        for (mmx_index f = 0; !s && f < mmx_mesh_nfaces(lm); f++)
            if (dm->of[f]) sum[2] += st[f + 1] - st[f];
        free(st), free(vs);
    }
    s = mmx_dist_agree(ctx, d, s);
    if (!s) s = mmx__dist_allreduce_i64(ctx, d, sum, 3, MMX__DIST_SUM);
    if (!s) {
        for (int q = 0; q < R && !s; q++)
            if (sc[q] != dm->scount[q])
                s = mmx__fail(ctx, MMX_ERR_PARSE, "%s: %lld vertices sent to rank %d, which asks "
                              "for %lld (parts of different sets)", part, (long long)dm->scount[q],
                              q, (long long)sc[q]);
        if (!s && (sum[0] != dm->gfaces || sum[1] != dm->gverts || sum[2] != dm->gnnz))
            s = mmx__fail(ctx, MMX_ERR_PARSE, "%s: the parts own %lld faces, %lld vertices and "
                          "%lld corners; the index says %lld, %lld and %lld (parts of different "
                          "sets)", index, (long long)sum[0], (long long)sum[1], (long long)sum[2],
                          (long long)dm->gfaces, (long long)dm->gverts, (long long)dm->gnnz);
    }
    free(sc);
    s = mmx_dist_agree(ctx, d, s);
    if (!s) s = mmx__dist_gather_lists(ctx, dm);
    if (!s && cuda) s = mmx__dist_to_device(ctx, dm);
    free(part), free(index);
    if (s) mmx_dist_mesh_free(dm);
    else *out = dm;
    return s;
}
