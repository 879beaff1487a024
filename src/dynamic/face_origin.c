/* mmx_cavity_face_origin (dynamic.h): each output face of a round mapped to the input face it
 * comes from, read off the round's per-seed records and the numbering mmx_cavity_kind states
 * for the kind. Host arrays, host work. */
#include <stdlib.h>
#include <string.h>
#include "core/core_internal.h"
#include "meshmatrix/dynamic.h"

#define FN "mmx_cavity_face_origin"

/* A kept seed's key for the order of the appended faces: (priority, seed position). The
 * priority is a bijection of the seed element within a round, so this is the round's key
 * order (priority, element, seed position). */
typedef struct kept_key {
    uint64_t priority;
    mmx_index seed;
} kept_key;

static int cmp_kept(const void *a, const void *b)
{
    const kept_key *x = a, *y = b;
    if (x->priority != y->priority) return x->priority < y->priority ? -1 : 1;
    return (x->seed > y->seed) - (x->seed < y->seed);
}

/* Seed i's face faces[h]: -1 allowed (a boundary edge's second face) when `may_be_none`. */
static mmx_status check_face(mmx_ctx *ctx, const mmx_cavity_seed *sd, mmx_index i, int h,
                             mmx_index F, int may_be_none)
{
    const mmx_index f = sd[i].faces[h];
    if ((f == -1 && may_be_none) || (f >= 0 && f < F)) return MMX_OK;
    return mmx__fail(ctx, MMX_ERR_ARG, FN ": kept seed %d has faces[%d] = %d, outside [0, %d)%s",
                     i, h, f, F, may_be_none ? " and not -1" : "");
}

static mmx_status check_count(mmx_ctx *ctx, mmx_index after, int64_t expect)
{
    if ((int64_t)after == expect) return MMX_OK;
    return mmx__fail(ctx, MMX_ERR_ARG, FN ": nfaces_after is %d, but the kept seeds give %lld faces",
                     after, (long long)expect);
}

/* The appended faces of a split (edge split: one per face of the edge; face split: two per
 * seed face), the kept seeds in key order. */
static mmx_status appended(mmx_ctx *ctx, mmx_cavity_kind kind, mmx_index F,
                           const mmx_cavity_seed *sd, mmx_index n, mmx_index after,
                           mmx_index *origin)
{
    mmx_index nk = 0;
    int64_t extra = 0;
    for (mmx_index i = 0; i < n; i++) {
        if (sd[i].outcome != MMX_CAVITY_KEPT) continue;
        mmx_status s = check_face(ctx, sd, i, 0, F, 0);
        if (!s && kind == MMX_CAVITY_EDGE_SPLIT) s = check_face(ctx, sd, i, 1, F, 1);
        if (s) return s;
        nk++;
        extra += kind == MMX_CAVITY_FACE_SPLIT ? 2 : sd[i].faces[1] >= 0 ? 2 : 1;
    }
    mmx_status s = check_count(ctx, after, (int64_t)F + extra);
    if (s) return s;
    kept_key *k = NULL;
    s = mmx__host_alloc(ctx, (size_t)nk + 1, sizeof *k, (void **)&k);
    if (s) return s;
    nk = 0;
    for (mmx_index i = 0; i < n; i++)
        if (sd[i].outcome == MMX_CAVITY_KEPT) k[nk++] = (kept_key){sd[i].priority, i};
    qsort(k, (size_t)nk, sizeof *k, cmp_kept);
    for (mmx_index f = 0; f < F; f++) origin[f] = f;
    mmx_index next = F;
    for (mmx_index j = 0; j < nk; j++) {
        const mmx_cavity_seed *x = &sd[k[j].seed];
        if (kind == MMX_CAVITY_FACE_SPLIT) {
            origin[next++] = x->faces[0];
            origin[next++] = x->faces[0];
        } else {
            for (int h = 0; h < 2 && x->faces[h] >= 0; h++) origin[next++] = x->faces[h];
        }
    }
    free(k);
    return MMX_OK;
}

/* The survivors of a collapse (or vertex removal) in their order: the kept seeds' faces go. */
static mmx_status survivors(mmx_ctx *ctx, mmx_index F, const mmx_cavity_seed *sd, mmx_index n,
                            mmx_index after, mmx_index *origin)
{
    unsigned char *gone = NULL;
    mmx_status s = mmx__host_alloc(ctx, (size_t)F + 1, 1, (void **)&gone);
    if (s) return s;
    memset(gone, 0, (size_t)F + 1);
    int64_t removed = 0;
    for (mmx_index i = 0; i < n && !s; i++) {
        if (sd[i].outcome != MMX_CAVITY_KEPT) continue;
        s = check_face(ctx, sd, i, 0, F, 0);
        if (!s) s = check_face(ctx, sd, i, 1, F, 1);
        for (int h = 0; h < 2 && !s && sd[i].faces[h] >= 0; h++) {
            const mmx_index f = sd[i].faces[h];
            if (gone[f])
                s = mmx__fail(ctx, MMX_ERR_ARG, FN ": face %d is removed twice (kept seed %d)", f, i);
            gone[f] = 1, removed++;
        }
    }
    if (!s) s = check_count(ctx, after, (int64_t)F - removed);
    if (!s) {
        mmx_index o = 0;
        for (mmx_index f = 0; f < F; f++)
            if (!gone[f]) origin[o++] = f;
    }
    free(gone);
    return s;
}

mmx_status mmx_cavity_face_origin(mmx_ctx *ctx, mmx_cavity_kind kind, mmx_index nfaces_before,
                                  const mmx_cavity_seed *per_seed, mmx_index n,
                                  mmx_index nfaces_after, mmx_index *origin)
{
    MMX__NEED_CTX(ctx);
    if (!ctx || (!origin && nfaces_after > 0) || (!per_seed && n > 0))
        return mmx__fail(ctx, MMX_ERR_ARG, FN ": NULL argument");
    if (n < 0 || nfaces_before < 0 || nfaces_after < 0)
        return mmx__fail(ctx, MMX_ERR_ARG, FN ": negative count (n %d, nfaces_before %d, "
                         "nfaces_after %d)", n, nfaces_before, nfaces_after);
    switch (kind) {
    case MMX_CAVITY_EDGE_FLIP:
    case MMX_CAVITY_VERTEX_MOVE: {
        mmx_status s = check_count(ctx, nfaces_after, nfaces_before);
        if (s) return s;
        for (mmx_index f = 0; f < nfaces_after; f++) origin[f] = f;
        return MMX_OK;
    }
    case MMX_CAVITY_EDGE_SPLIT:
    case MMX_CAVITY_FACE_SPLIT:
        return appended(ctx, kind, nfaces_before, per_seed, n, nfaces_after, origin);
    case MMX_CAVITY_EDGE_COLLAPSE:
    case MMX_CAVITY_VERTEX_REMOVE:
        return survivors(ctx, nfaces_before, per_seed, n, nfaces_after, origin);
    default:
        return mmx__fail(ctx, MMX_ERR_UNSUPPORTED, FN ": kind %d has no face numbering here",
                         (int)kind);
    }
}
