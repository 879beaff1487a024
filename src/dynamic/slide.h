/* The remesher's sliding feature vertices (slide_step.h states the rule): the input's feature
 * segments, their lines and the corners, made once per mmx_remesh call (slide.c, and for CUDA
 * slide.cu); and where a remeshing collapse puts its merged vertex (both backends). */
#ifndef MMX_DYNAMIC_SLIDE_H
#define MMX_DYNAMIC_SLIDE_H

#include "dynamic_internal.h"
#include "slide_step.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The host's segments: a BVH of the input's feature edges and their line labels. */
typedef struct mmx__slide {
    mmx__bvh *bvh;
    mmx_index *label; /* per feature edge */
} mmx__slide;

/* From the input's positions (nverts) and feature edges (feat: nfeat sorted keys,
 * mmx__rm_key), host arrays: pins the corners in pin (nverts flags; a vertex of two feature
 * edges that turn by more than MMX__SLIDE_CORNER_DEG, besides the flags already set), labels
 * each feature edge by its line (the lowest edge position of the edges joined through
 * unpinned vertices of two feature edges: the same labels whatever the order of the work)
 * and builds the segments' BVH (mmx__bvh_build, feature edge i as triangle i). *out NULL when
 * there is no feature edge. Errors: MMX_ERR_NOMEM. Cost: O(nfeat log nfeat) (the BVH) and
 * O(nverts). */
mmx_status mmx__slide_open(mmx_ctx *ctx, const float *pos, mmx_index nverts, const uint64_t *feat,
                           mmx_index nfeat, unsigned char *pin, mmx__slide **out);
void mmx__slide_free(mmx__slide *s);
/* Its view (host pointers); an empty view (nothing slides) for NULL. */
mmx__slide_view mmx__slide_host_view(const mmx__slide *s);

/* Each vertex's number of feature edges (feat: nfeat keys) into fdeg[0..nverts), host. */
void mmx__rm_feature_degrees(const uint64_t *feat, mmx_index nfeat, mmx_index nverts,
                             mmx_index *fdeg);

/* Where each of the n collapse seeds (edges seeds[i] of ev, the merged vertex at end keep[i],
 * or at the stored midpoint for keep[i] < 0: mmx__rm_merged) puts its merged vertex: 3 floats
 * per seed into place, host arrays. The round given these places checks its folds there and
 * the exact link condition (mmx__cavity_round_ranked). */
void mmx__rm_collapse_places(const float *pos, const mmx_index *ev, const mmx_index *seeds,
                             const mmx_index *keep, mmx_index n, float *place);

/* The device's: mmx__slide_open on a CUDA context with device arrays (pos, feat, pin: the
 * working copy's), the same pins, labels and BVH bytes: the positions, features and pins are
 * copied to the host, mmx__slide_open runs there, and the pins, the labels and the BVH
 * (mmx__bvh_to_device) come back. A set-up cost once per call, O(nverts + nfeat) copied.
 * view: device pointers (empty without features); free with mmx__slide_dev_free.
 * Synchronises: the copies. */
typedef struct mmx__slide_dev {
    mmx__slide_view view;
    void *bvh_block, *label;
} mmx__slide_dev;
mmx_status mmx__slide_open_cuda(mmx_ctx *ctx, const float *pos, mmx_index nverts,
                                const uint64_t *feat, mmx_index nfeat, unsigned char *pin,
                                mmx__slide_dev *out);
void mmx__slide_dev_free(mmx_ctx *ctx, mmx__slide_dev *s);

/* mmx__rm_collapse_places on the device (device arrays, the context's stream). Synchronises:
 * no. */
mmx_status mmx__rm_collapse_places_cuda(mmx_ctx *ctx, const float *pos, const mmx_index *ev,
                                        const mmx_index *seeds, const mmx_index *keep,
                                        mmx_index n, float *place);

#ifdef __cplusplus
}
#endif

#endif
