/* What a build without CUDA links instead of the module's .cu files: the CUDA halves of
 * dynamic_internal.h as stubs. Only a CUDA context or a device mesh leads to them, and such a
 * build cannot make either, so each reports MMX_ERR_INTERNAL naming itself (device.h). */
#include <string.h>
#include "dynamic_internal.h"
#include "patch_keep.h"
#include "remesh_flow.h"

mmx_status mmx__flip_ef_cuda(mmx_ctx *ctx, const mmx_adjacency *adj, mmx_index nfaces,
                             mmx_index *ef)
{
    (void)adj, (void)nfaces, (void)ef;
    return mmx__no_cuda(ctx, "mmx__flip_ef_cuda");
}

mmx_status mmx__delaunay_seeds_cuda(mmx_ctx *ctx, const mmx__flip_view *v, const float *pos,
                                    mmx_index *seeds, mmx_index *count)
{
    (void)v, (void)pos, (void)seeds, (void)count;
    return mmx__no_cuda(ctx, "mmx__delaunay_seeds_cuda");
}

mmx_status mmx__flip_update_cuda(mmx_ctx *ctx, const mmx__flip_view *old, const mmx_index *kedge,
                                 mmx_index k, const mmx_index *verts, mmx_index *edge_ptr,
                                 mmx_index *ev, mmx_index *ef, mmx__flip_view *out)
{
    (void)old, (void)kedge, (void)k, (void)verts, (void)edge_ptr, (void)ev, (void)ef, (void)out;
    return mmx__no_cuda(ctx, "mmx__flip_update_cuda");
}

mmx_status mmx__select_cuda(mmx_ctx *ctx, mmx_index n, const uint64_t *key,
                            const mmx_index *ring_ptr, const mmx_index *ring_len,
                            const mmx_index *ring, mmx_index nelem, unsigned char *state,
                            mmx_index *kept)
{
    (void)n, (void)key, (void)ring_ptr, (void)ring_len, (void)ring, (void)nelem, (void)state;
    *kept = 0;
    return mmx__no_cuda(ctx, "mmx__select_cuda");
}

mmx_status mmx__sc_dev_build(mmx_ctx *ctx, const mmx_mesh *mesh, const char *who,
                             mmx__sc_dev *t)
{
    (void)mesh, (void)who;
    memset(t, 0, sizeof *t);
    return mmx__no_cuda(ctx, "mmx__sc_dev_build");
}

mmx_status mmx__remesh_dev_open(mmx__rm *st, const mmx__remesh_dev_in *in,
                                mmx__remesh_dev_measure *m)
{
    (void)in, (void)m;
    st->be = NULL;
    return mmx__no_cuda(st->ctx, "mmx__remesh_dev_open");
}

void mmx__remesh_dev_close(mmx__rm *st)
{
    (void)st;
}

/* Unreachable: without CUDA no remeshing set-up succeeds on a CUDA context, so no stage runs. */
const mmx__rm_stages mmx__rm_cuda_stages = {NULL, NULL, NULL, NULL, NULL, NULL,
                                            NULL, NULL, NULL, NULL, NULL};

mmx_status mmx__bvh_closest_cuda(mmx_ctx *ctx, const mmx__bvh_view *dev, const double *p,
                                 mmx_index n, double *q, mmx_index *tri)
{
    (void)dev, (void)p, (void)n, (void)q, (void)tri;
    return mmx__no_cuda(ctx, "mmx__bvh_closest_cuda");
}

mmx_status mmx__bvh_build_cuda(mmx_ctx *ctx, const float *pos, mmx_index nverts,
                               const mmx_index *tri, mmx_index nt, mmx__bvh_view *dev,
                               void **block)
{
    (void)pos, (void)nverts, (void)tri, (void)nt, (void)dev;
    *block = NULL;
    return mmx__no_cuda(ctx, "mmx__bvh_build_cuda");
}

mmx_status mmx__keep_labels_cuda(mmx_ctx *ctx, mmx_cavity_kind kind, mmx_index nverts,
                                 mmx_index nfaces, const mmx_cavity_seed *sd, mmx_index n,
                                 mmx_index kept, const mmx_index *fp, mmx_index *label)
{
    (void)kind, (void)nverts, (void)nfaces, (void)sd, (void)n, (void)kept, (void)fp, (void)label;
    return mmx__no_cuda(ctx, "mmx__keep_labels_cuda");
}

mmx_status mmx__rank_check_cuda(mmx_ctx *ctx, const mmx_index *seeds, const float *prio,
                                mmx_index n, mmx_index limit, mmx_index *bad, mmx_index *nan)
{
    (void)seeds, (void)prio, (void)n, (void)limit;
    *bad = *nan = -1;
    return mmx__no_cuda(ctx, "mmx__rank_check_cuda");
}

mmx_status mmx__simplify_cuda(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_simplify_options *o,
                              const mmx_mesh_expect *expect, const mmx_index *tagged,
                              mmx_index ntagged, mmx_mesh **out, mmx_simplify_report *report)
{
    (void)mesh, (void)o, (void)expect, (void)tagged, (void)ntagged, (void)out, (void)report;
    return mmx__no_cuda(ctx, "mmx__simplify_cuda");
}

mmx_status mmx__first_copies_cuda(mmx_ctx *ctx, const mmx_index *seeds, mmx_index n,
                                  mmx_index nelem, unsigned int *first)
{
    (void)seeds, (void)n, (void)nelem, (void)first;
    return mmx__no_cuda(ctx, "mmx__first_copies_cuda");
}

/* The round driver's CUDA stages (round.c calls them through a CUDA context alone). */
#define MMX__NO_STAGE(t)                                                                        \
    mmx_status mmx__##t##_propose_cuda(mmx__round *r)                                           \
    {                                                                                           \
        return mmx__no_cuda(r->ctx, "mmx__" #t "_propose_cuda");                                \
    }                                                                                           \
    mmx_status mmx__##t##_fill_cuda(mmx__round *r, mmx_mesh **out)                              \
    {                                                                                           \
        (void)out;                                                                              \
        return mmx__no_cuda(r->ctx, "mmx__" #t "_fill_cuda");                                   \
    }
MMX__NO_STAGE(flip)
MMX__NO_STAGE(sc)
MMX__NO_STAGE(face)
MMX__NO_STAGE(move)
MMX__NO_STAGE(vremove)
MMX__NO_STAGE(user)
