/* The input's feature lines for the remesher's sliding feature vertices (slide.h; the rule in
 * slide_step.h): the corners pinned, each feature edge labelled by its line, and the segments'
 * BVH; and the collapses' places. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "slide.h"

void mmx__slide_free(mmx__slide *s)
{
    if (!s) return;
    mmx__bvh_free(s->bvh);
    free(s->label);
    free(s);
}

mmx__slide_view mmx__slide_host_view(const mmx__slide *s)
{
    mmx__slide_view v;
    memset(&v, 0, sizeof v);
    if (s) v.seg = mmx__bvh_host_view(s->bvh), v.label = s->label;
    return v;
}

void mmx__rm_feature_degrees(const uint64_t *feat, mmx_index nfeat, mmx_index nverts,
                             mmx_index *fdeg)
{
    memset(fdeg, 0, (size_t)nverts * sizeof *fdeg);
    for (mmx_index i = 0; i < nfeat; i++) {
        fdeg[(mmx_index)(feat[i] >> 32)]++;
        fdeg[(mmx_index)(uint32_t)feat[i]]++;
    }
}

void mmx__rm_collapse_places(const float *pos, const mmx_index *ev, const mmx_index *seeds,
                             const mmx_index *keep, mmx_index n, float *place)
{
    for (mmx_index i = 0; i < n; i++) mmx__rm_place(pos, ev, seeds, keep, i, place);
}

/* The root of i, halving the path on the way (roots are the lowest of their sets). */
static mmx_index root(mmx_index *up, mmx_index i)
{
    while (up[i] != i) {
        up[i] = up[up[i]];
        i = up[i];
    }
    return i;
}

/* The end of feature edge k (a key) that is not v. */
static mmx_index other_end(uint64_t k, mmx_index v)
{
    const mmx_index a = (mmx_index)(k >> 32), b = (mmx_index)(uint32_t)k;
    return a == v ? b : a;
}

/* 1 when the line through u, v, w turns at v by more than MMX__SLIDE_CORNER_DEG (or an edge
 * has no length: no direction to slide along). */
static int corner(const float *pos, mmx_index u, mmx_index v, mmx_index w)
{
    double a[3], b[3], aa = 0, bb = 0, ab = 0;
    for (int k = 0; k < 3; k++) {
        a[k] = (double)pos[3 * (size_t)v + k] - pos[3 * (size_t)u + k];
        b[k] = (double)pos[3 * (size_t)w + k] - pos[3 * (size_t)v + k];
        aa += a[k] * a[k], bb += b[k] * b[k], ab += a[k] * b[k];
    }
    if (!(aa > 0) || !(bb > 0)) return 1;
    return ab < cos(MMX__SLIDE_CORNER_DEG * 3.14159265358979323846 / 180.0) * sqrt(aa * bb);
}

mmx_status mmx__slide_open(mmx_ctx *ctx, const float *pos, mmx_index nverts, const uint64_t *feat,
                           mmx_index nfeat, unsigned char *pin, mmx__slide **out)
{
    *out = NULL;
    if (nfeat == 0) return MMX_OK;
    mmx__slide *sl = calloc(1, sizeof *sl);
    if (!sl) return mmx__fail(ctx, MMX_ERR_NOMEM, "mmx_remesh: out of memory (the feature lines)");
    mmx_index *fdeg = NULL, *first = NULL, *second = NULL, *tri = NULL;
    mmx_status s = mmx__host_alloc(ctx, (size_t)nfeat + 1, sizeof *sl->label, (void **)&sl->label);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nverts + 1, sizeof *fdeg, (void **)&fdeg);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nverts + 1, sizeof *first, (void **)&first);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nverts + 1, sizeof *second, (void **)&second);
    if (!s) s = mmx__host_alloc(ctx, 3 * (size_t)nfeat + 1, sizeof *tri, (void **)&tri);
    if (!s) {
        /* Each vertex's first two feature edges (a line vertex has exactly two). */
        mmx__rm_feature_degrees(feat, nfeat, nverts, fdeg);
        for (mmx_index v = 0; v < nverts; v++) first[v] = second[v] = -1;
        for (mmx_index i = 0; i < nfeat; i++) {
            const mmx_index ab[2] = {(mmx_index)(feat[i] >> 32), (mmx_index)(uint32_t)feat[i]};
            for (int h = 0; h < 2; h++) {
                if (first[ab[h]] < 0) first[ab[h]] = i;
                else if (second[ab[h]] < 0) second[ab[h]] = i;
            }
            mmx_index *t = tri + 3 * (size_t)i;
            t[0] = ab[0], t[1] = t[2] = ab[1]; /* (a, b, b): its closest point is the segment's */
            sl->label[i] = i;
        }
        /* The corners, then the lines: edges joined through their unpinned line vertices. */
        for (mmx_index v = 0; v < nverts; v++) {
            if (fdeg[v] != 2 || pin[v]) continue;
            if (corner(pos, other_end(feat[first[v]], v), v, other_end(feat[second[v]], v))) {
                pin[v] = 1;
                continue;
            }
            const mmx_index r0 = root(sl->label, first[v]), r1 = root(sl->label, second[v]);
            if (r0 < r1) sl->label[r1] = r0;
            else sl->label[r0] = r1;
        }
        for (mmx_index i = 0; i < nfeat; i++) sl->label[i] = root(sl->label, i);
        s = mmx__bvh_build(ctx, pos, nverts, tri, nfeat, &sl->bvh);
    }
    free(fdeg);
    free(first);
    free(second);
    free(tri);
    if (s) {
        mmx__slide_free(sl);
        return s;
    }
    *out = sl;
    return MMX_OK;
}
