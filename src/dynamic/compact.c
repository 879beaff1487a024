/* The compaction every removing round ends in (edge collapse, vertex removal, user cavities,
 * on both backends): the faces a round keeps, their corners through the vertex merges, the
 * surviving vertices renumbered in their order, all by the algebra's column selection
 * (mmx__csc_select_cols) on the round's faces read as a reduced triangle matrix. */
#include <stdlib.h>
#include <string.h>
#include "dynamic_internal.h"
#include "spla/spla_internal.h"

mmx_status mmx__round_compact(mmx_ctx *ctx, mmx_space space, const mmx_index *verts,
                              mmx_index nv, mmx_index nf, const mmx__compact *c, mmx_mesh **out,
                              mmx_index *vid)
{
    *out = NULL;
    /* The faces as a matrix (a view: read only, never freed). */
    const mmx_csc F = {.nrows = nv, .ncols = nf, .nnz = 3 * nf, .rowidx = (mmx_index *)verts,
                       .order = 3, .space = space, .maxcol = nf > 0 ? 3 : 0,
                       .minval = nf > 0 ? 1 : 0, .maxval = nf > 0 ? 3 : 0, .positional = 1};
    const mmx__col_select sel = {c->keepf, c->to, NULL, 1, c->nf_out, c->nv_out, c->extra_f,
                                 c->extra_v};
    mmx_index *old = NULL;
    mmx_mesh *m = calloc(1, sizeof *m);
    if (!m) return mmx__fail(ctx, MMX_ERR_NOMEM, "out of host memory for a mesh");
    m->space = space;
    m->ctx = ctx;
    mmx__mesh_cache_attach(m);
    mmx_status s = mmx_mem_alloc(ctx, space, ((size_t)nv + 1) * sizeof *old, (void **)&old);
    if (!s) s = mmx__csc_select_cols(ctx, &F, &sel, &m->M, vid, old);
    const mmx_index kept = s ? 0 : m->M->nrows - c->extra_v;
    /* A few bytes more, so that a mesh without vertices still has positions. */
    if (!s && c->pos)
        s = mmx_mem_alloc(ctx, space, (size_t)m->M->nrows * 3 * sizeof(float) + 4,
                          (void **)&m->pos);
    if (!s && c->pos) { /* survivor v at its new number: old[v]'s row */
        if (space == MMX_SPACE_DEVICE) {
            s = mmx__gather_rows3_cuda(ctx, c->pos, old, kept, m->pos);
        } else {
            for (mmx_index v = 0; v < kept; v++)
                memcpy(m->pos + 3 * (size_t)v, c->pos + 3 * (size_t)old[v], 3 * sizeof(float));
        }
    }
    mmx_mem_free(ctx, space, old); /* device: in stream order, after the gather */
    if (s) {
        mmx_mesh_free(m);
        return s;
    }
    *out = m;
    return MMX_OK;
}
