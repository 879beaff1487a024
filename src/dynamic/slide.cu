/* The device side of the remesher's sliding feature vertices (slide.h): the feature lines made
 * by the host's code from copies (a set-up step once per call, so the pins, labels and BVH
 * are the host's bytes by construction), and the collapses' places, one thread per seed by
 * slide_step.h's rule. */
#include <cstdlib>
#include <cstring>
#include "core/launch.cuh"
#include "slide.h"

namespace {

__global__ void k_places(const float *pos, const mmx_index *ev, const mmx_index *seeds,
                         const mmx_index *keep, mmx_index n, float *place)
{
    const long long i = (long long)blockIdx.x * MMX__BLOCK + threadIdx.x;
    if (i < n) mmx__rm_place(pos, ev, seeds, keep, (mmx_index)i, place);
}

} // namespace

extern "C" mmx_status mmx__rm_collapse_places_cuda(mmx_ctx *ctx, const float *pos,
                                                   const mmx_index *ev, const mmx_index *seeds,
                                                   const mmx_index *keep, mmx_index n,
                                                   float *place)
{
    mmx_status s = MMX_OK;
    cudaStream_t st = (cudaStream_t)ctx->stream;
    if (n > 0) MMX__LAUNCH(k_places, n, pos, ev, seeds, keep, n, place);
    return s;
}

extern "C" void mmx__slide_dev_free(mmx_ctx *ctx, mmx__slide_dev *s)
{
    mmx__dev_free(ctx, s->bvh_block);
    mmx__dev_free(ctx, s->label);
    memset(s, 0, sizeof *s);
}

extern "C" mmx_status mmx__slide_open_cuda(mmx_ctx *ctx, const float *pos, mmx_index nverts,
                                           const uint64_t *feat, mmx_index nfeat,
                                           unsigned char *pin, mmx__slide_dev *out)
{
    memset(out, 0, sizeof *out);
    if (nfeat == 0) return MMX_OK;
    float *hp = nullptr;
    uint64_t *hf = nullptr;
    unsigned char *hpin = nullptr;
    mmx__slide *sl = nullptr;
    mmx_status s = mmx__host_alloc(ctx, 3 * (size_t)nverts + 1, sizeof *hp, (void **)&hp);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nfeat + 1, sizeof *hf, (void **)&hf);
    if (!s) s = mmx__host_alloc(ctx, (size_t)nverts + 1, 1, (void **)&hpin);
    const size_t pos_bytes = 3 * (size_t)nverts * sizeof *hp, feat_bytes = (size_t)nfeat * sizeof *hf;
    if (!s && nverts > 0) s = mmx__dev_copy(ctx, hp, MMX_SPACE_HOST, pos, MMX_SPACE_DEVICE, pos_bytes);
    if (!s) s = mmx__dev_copy(ctx, hf, MMX_SPACE_HOST, feat, MMX_SPACE_DEVICE, feat_bytes);
    if (!s && nverts > 0)
        s = mmx__dev_copy(ctx, hpin, MMX_SPACE_HOST, pin, MMX_SPACE_DEVICE, (size_t)nverts);
    if (!s) s = mmx__slide_open(ctx, hp, nverts, hf, nfeat, hpin, &sl);
    if (!s && nverts > 0) s = mmx__dev_copy(ctx, pin, MMX_SPACE_DEVICE, hpin, MMX_SPACE_HOST, (size_t)nverts);
    if (!s) {
        s = mmx__dev_alloc(ctx, ((size_t)nfeat + 1) * sizeof(mmx_index), &out->label);
        if (!s)
            s = mmx__dev_copy(ctx, out->label, MMX_SPACE_DEVICE, sl->label, MMX_SPACE_HOST,
                              (size_t)nfeat * sizeof(mmx_index));
        if (!s) s = mmx__bvh_to_device(ctx, sl->bvh, &out->view.seg, &out->bvh_block);
        out->view.label = static_cast<const mmx_index *>(out->label);
    }
    mmx__slide_free(sl);
    free(hp);
    free(hf);
    free(hpin);
    if (s) mmx__slide_dev_free(ctx, out);
    return s;
}
