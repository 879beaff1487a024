/* Bilateral normal filtering (geom.h, MMX_SMOOTH_BILATERAL; Fleishman, Drori and Cohen-Or
 * 2003): every vertex moves along its normal by a weighted mean of its neighbours' offsets
 * along that normal, the weights falling with the distance (sigma_c, closeness) and with the
 * offset (sigma_s, similarity), so that noise is removed and sharp features, whose offsets
 * are large, are kept. The neighbourhood is the VV query's row (query.h), computed once; the
 * normals are recomputed from the current positions at every iteration (mmx_vertex_normals,
 * area weights). Each vertex reads the previous positions only and writes its own row, so the
 * result does not depend on the order of the work. The CUDA half is bilateral.cu. */
#include "geom_internal.h"

mmx_status mmx__bilateral_step(mmx_ctx *ctx, const mmx_csr *vv, const float *x, const float *nrm,
                               float sc, float ss, const unsigned char *fixed, float *out)
{
    if (mmx_ctx_backend(ctx) == MMX_BACKEND_CUDA)
        return mmx__bilateral_step_cuda(ctx, vv, x, nrm, sc, ss, fixed, out);
    for (mmx_index v = 0; v < vv->nrows; v++) {
        const int64_t r0 = vv->order ? (int64_t)vv->order * v : vv->rowptr[v];
        const int64_t r1 = vv->order ? r0 + vv->order : vv->rowptr[v + 1];
        mmx__bilateral_vertex(x, nrm, vv->colidx, r0, r1, sc, ss, fixed, v, out);
    }
    return MMX_OK;
}

mmx_status mmx__smooth_bilateral(mmx_ctx *ctx, mmx__smooth_job *job)
{
    const mmx_index n = job->view.M->nrows;
    const mmx_space sp = mmx_ctx_space(ctx);
    mmx_csr *vv = NULL;
    mmx_normals_plan *plan = NULL;
    float *nrm = NULL, *y = NULL;
    mmx_status s = mmx_mem_alloc(ctx, sp, 3 * (size_t)n * sizeof *nrm, (void **)&nrm);
    if (!s) s = mmx_mem_alloc(ctx, sp, 3 * (size_t)n * sizeof *y, (void **)&y);
    if (!s && job->opts->iterations > 0) s = mmx_query(ctx, &job->view, job->adj, MMX_QUERY_VV, &vv);
    /* The normals' plan once (the transpose of M); each iteration is then one kernel. */
    if (!s && job->opts->iterations > 0) s = mmx_normals_plan_create(ctx, &job->view, &plan);
    for (int it = 0; !s && it < job->opts->iterations; it++) {
        /* job->x: the normals of the current surface (mmx_vertex_normals' values). */
        s = mmx_vertex_normals_planned(ctx, plan, job->x, MMX_NORMAL_AREA, nrm);
        if (!s) s = mmx__bilateral_step(ctx, vv, job->x, nrm, job->opts->sigma_c,
                                        job->opts->sigma_s, job->fixed, y);
        if (!s && n > 0) s = mmx_mem_copy(ctx, job->x, sp, y, sp, 3 * (size_t)n * sizeof *y);
        if (!s) job->rep->iterations = it + 1;
        if (!s) mmx__progress(ctx, "smooth iteration", it + 1, job->opts->iterations);
    }
    mmx_normals_plan_free(plan);
    mmx_csr_free(vv);
    mmx_mem_free(ctx, sp, y);
    mmx_mem_free(ctx, sp, nrm);
    return s;
}
