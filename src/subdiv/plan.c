/* Topology-fixed re-evaluation (subdiv.h): the fused path's levels kept, then positions-only
 * passes over them, the limit masks and the holes' gather; on CUDA all of it one graph launch
 * (core/device.h's mmx__graph_run). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fused.h"
#include "limit_vertex.h"

struct mmx_subdiv_plan {
    mmx_ctx *ctx;
    mmx_scheme scheme;
    int levels;
    mmx__fz_level *lv;      /* levels + 1: the control level (a copy), then each refined one */
    mmx_mesh *last;         /* the last level as created; lv[levels] borrows its arrays */
    mmx__subdiv_sharp sharp; /* the boundary mode and corners, which every level reads */
    /* CUDA: each evaluation's work as one graph (mmx__graph_run), made on the first call and
     * updated when the arrays change; `nograph` (MMX_SUBDIV_PLAN_NO_GRAPH set at creation)
     * queues the same work without one, for debugging. */
    mmx__graph *graph, *uvgraph, *framegraph; /* positions, coordinates, both (plan_frame) */
    int nograph;
    /* opts->limit: every evaluation's last level is pushed to the limit surface, as
     * mmx_subdivide's result is: the passes write the last level into `lim`, and the limit
     * masks of the last level with the tags it carries (`last`'s), prepared once in `lst`,
     * map it to the output. */
    int limit;
    float *lim;
    mmx__limit_state lst;
    /* Holes left out (MMX_HOLES_REMOVE, as mmx_subdivide's result): `cut` is the last level
     * without them (the plan's mesh), and each evaluation writes the whole last level into
     * `full`, then gathers the kept vertices with G (last level's vertices x cut's, column j
     * holding the old number of cut's vertex j): mmx_spmv's T product, no wait. */
    mmx_mesh *cut;
    mmx_csc *G;
    float *full;
    /* Texture coordinates (where mmx_subdivide refines them as a texture mesh): the plan of
     * that mesh (uv.c's, its vertices the coordinates as (u, v, 0)), and the two matrices that
     * put a coordinate array (n x 2) into its positions (n x 3, zero third component) and
     * back, applied by mmx_spmv's T product on the arrays as vectors (k = 1); buffers for its
     * control positions and its last level's. */
    mmx_subdiv_plan *uvplan;
    mmx_csc *to3, *to2;
    float *uv_in3, *uv_out3;
};

/* A (2n x 3n, general) gathering column 3i + c from row 2i + c for c < 2, none for c = 2, or
 * (three = 0) 3n x 2n gathering column 2i + c from row 3i + c: T products that widen n
 * coordinates to positions (z 0) and narrow them back. */
static mmx_status stride_matrix(mmx_ctx *ctx, mmx_index n, int widen, mmx_csc **out)
{
    const mmx_space sp = mmx_ctx_space(ctx);
    const size_t nn = 2 * (size_t)n;
    mmx_index *colptr = NULL, *rowidx = NULL, *val = NULL;
    mmx_status s = mmx__host_alloc(ctx, 3 * (size_t)n + 1, sizeof *colptr, (void **)&colptr);
    if (!s) s = mmx__host_alloc(ctx, nn + 1, sizeof *rowidx, (void **)&rowidx);
    if (!s) s = mmx__host_alloc(ctx, nn + 1, sizeof *val, (void **)&val);
    if (!s) s = widen ? mmx__csc_alloc(ctx, sp, 2 * n, 3 * n, 2 * n, 0, out)
                      : mmx__csc_alloc(ctx, sp, 3 * n, 2 * n, 2 * n, 1, out);
    if (!s) {
        for (size_t j = 0, q = 0; j < (widen ? 3 : 2) * (size_t)n; j++) {
            if (widen) colptr[j] = (mmx_index)q;
            const size_t i = widen ? j / 3 : j / 2, c = widen ? j % 3 : j % 2;
            if (c < 2) rowidx[q] = (mmx_index)((widen ? 2 : 3) * i + c), val[q] = 1, q++;
        }
        colptr[3 * (size_t)n] = 2 * n;
        if (nn) s = mmx_mem_copy(ctx, (*out)->rowidx, sp, rowidx, MMX_SPACE_HOST, nn * sizeof *rowidx);
        if (!s && widen) s = mmx_mem_copy(ctx, (*out)->colptr, sp, colptr, MMX_SPACE_HOST, (3 * (size_t)n + 1) * sizeof *colptr);
        if (!s && widen && nn) s = mmx_mem_copy(ctx, (*out)->val, sp, val, MMX_SPACE_HOST, nn * sizeof *val);
        if (!s) s = mmx__csc_props(ctx, *out); /* waits (CUDA): the host arrays are read */
    }
    if (s && *out) mmx_csc_free(*out), *out = NULL;
    free(colptr), free(rowidx), free(val);
    return s;
}

/* The plan's texture coordinates: the texture mesh's plan and the result's coordinates on the
 * last level (index: the texture mesh's refined faces; values: its positions narrowed). A mode
 * that mmx_subdivide runs per corner (Loop's linear one), or a texture mesh that the fused
 * path does not take, leaves the plan without them. */
static mmx_status plan_uv(mmx_subdiv_plan *p, const mmx_mesh *control)
{
    mmx_ctx *ctx = p->ctx;
    const mmx_space sp = mmx_ctx_space(ctx);
    mmx_mesh *tm = NULL;
    mmx_scheme ts = MMX_SCHEME_BILINEAR;
    mmx_status s = mmx__subdiv_uv_texture(ctx, p->scheme, control, &p->sharp, p->sharp.fvar, &tm, &ts);
    if (s || !tm) return s;
    mmx_subdiv_options to;
    memset(&to, 0, sizeof to);
    to.holes = MMX_HOLES_KEEP;
    char saved[MMX__ERRLEN];
    snprintf(saved, sizeof saved, "%s", mmx_ctx_error(ctx));
    s = mmx_subdiv_plan_create(ctx, ts, tm, p->levels, &to, &p->uvplan);
    /* A texture mesh that the fused path does not take (a mesh matrix cannot hold it, or it
     * has an edge of three faces or more: mmx_subdivide refines those per corner or on the
     * algebraic path): the plan has no texture coordinates (mmx_subdiv_plan_eval_uv says so). */
    if (s == MMX_ERR_MESH || s == MMX_ERR_UNSUPPORTED) {
        snprintf(ctx->err, sizeof ctx->err, "%s", saved);
        mmx_mesh_free(tm);
        return MMX_OK;
    }
    mmx_mesh_uv *uv = NULL;
    const mmx_index n = tm->M->nrows, m = s ? 0 : p->uvplan->last->M->nrows;
    const int64_t nnz = p->last->M->nnz;
    if (!s && p->uvplan->last->M->nnz != nnz)
        s = mmx__fail(ctx, MMX_ERR_INTERNAL, "plan: %lld texture corners, the mesh has %lld",
                      (long long)p->uvplan->last->M->nnz, (long long)nnz);
    if (!s) s = stride_matrix(ctx, n, 1, &p->to3);
    if (!s) s = stride_matrix(ctx, m, 0, &p->to2);
    if (!s) s = mmx_mem_alloc(ctx, sp, (3 * (size_t)n + 1) * sizeof(float), (void **)&p->uv_in3);
    if (!s) s = mmx_mem_alloc(ctx, sp, (3 * (size_t)m + 1) * sizeof(float), (void **)&p->uv_out3);
    if (!s && !(uv = calloc(1, sizeof *uv))) s = mmx__fail(ctx, MMX_ERR_NOMEM, "plan: out of host memory");
    if (!s) {
        uv->space = sp, uv->ctx = sp == MMX_SPACE_HOST ? NULL : ctx, uv->nvalues = m;
        s = mmx_mem_alloc(ctx, sp, ((size_t)nnz + 1) * sizeof *uv->index, (void **)&uv->index);
    }
    if (!s) s = mmx_mem_alloc(ctx, sp, (2 * (size_t)m + 1) * sizeof *uv->values, (void **)&uv->values);
    if (!s && nnz) s = mmx_mem_copy(ctx, uv->index, sp, p->uvplan->last->M->rowidx, sp, (size_t)nnz * sizeof *uv->index);
    if (!s) s = mmx_spmv(ctx, MMX_OP_T, 1.0f, p->to2, mmx_map_const(1.0f), p->uvplan->last->pos, 1, 0.0f, uv->values);
    if (!s) mmx_mesh_uv_free(p->last->uv), p->last->uv = uv, uv = NULL;
    mmx_mesh_uv_free(uv);
    mmx_mesh_free(tm);
    return s;
}

/* The kept vertices of the last level into `pos` (from `full`). */
static mmx_status plan_gather(mmx_subdiv_plan *p, float *pos)
{
    return mmx_spmv(p->ctx, MMX_OP_T, 1.0f, p->G, mmx_map_const(1.0f), p->full, 3, 0.0f, pos);
}

/* The hole-free last level of a plan whose control mesh has holes (cut, G, full): holes.c's
 * selection on a copy of the last level, its kept vertices' old numbers the gather's rows. */
static mmx_status plan_cut(mmx_subdiv_plan *p, const mmx_mesh *control)
{
    mmx_ctx *ctx = p->ctx;
    const mmx_mesh_tags *t = p->sharp.tags;
    const mmx_space sp = mmx_ctx_space(ctx);
    mmx_mesh_tags carry = {0, NULL, NULL, 0, NULL, NULL, 0, NULL, -1, -1, -1, -1, -1};
    mmx_index *kept = NULL;
    mmx_status s = mmx__host_alloc(ctx, (size_t)t->nholes, sizeof *carry.holes, (void **)&carry.holes);
    if (!s) memcpy(carry.holes, t->holes, (size_t)t->nholes * sizeof *carry.holes), carry.nholes = t->nholes;
    if (!s) s = mmx_mesh_copy(ctx, p->last, sp, &p->cut);
    if (!s) s = mmx__subdiv_holes(ctx, p->scheme, control, p->levels, MMX_HOLES_REMOVE, &p->cut, &carry, &kept, NULL);
    const mmx_index nv = p->last->M->nrows, kv = s ? 0 : p->cut->M->nrows;
    if (!s) s = mmx__csc_alloc(ctx, sp, nv, kv, kv, 1, &p->G);
    if (!s && kv) s = mmx_mem_copy(ctx, p->G->rowidx, sp, kept, sp, (size_t)kv * sizeof *kept);
    if (!s) s = mmx__csc_props(ctx, p->G);
    if (!s) s = mmx_mem_alloc(ctx, sp, (3 * (size_t)nv + 1) * sizeof(float), (void **)&p->full);
    free(carry.holes), free(carry.crease_verts), free(carry.crease_sharpness);
    free(carry.corner_verts), free(carry.corner_sharpness);
    mmx_mem_free(ctx, sp, kept); /* device: in stream order, after the copy */
    return s;
}

/* The limit masks of the last level (its topology and the tags it carries) with the resolved
 * boundary mode: checks, adjacency and half-edge view made once, here, for every evaluation. */
static mmx_status plan_limit_prepare(mmx_subdiv_plan *p)
{
    mmx_subdiv_options lo;
    memset(&lo, 0, sizeof lo);
    lo.boundary = p->sharp.boundary;
    return mmx__limit_prepare(p->ctx, p->scheme, p->last, &lo, &p->lst);
}

void mmx_subdiv_plan_free(mmx_subdiv_plan *plan)
{
    if (!plan) return;
    /* A graph still running completes first; the arrays go back in stream order. */
    mmx__graph_free(plan->graph);
    mmx__graph_free(plan->uvgraph);
    mmx__graph_free(plan->framegraph);
    mmx__limit_state_free(plan->ctx, &plan->lst);
    for (int l = 0; plan->lv && l <= plan->levels; l++)
        mmx__fz_level_free(plan->ctx, &plan->lv[l]);
    free(plan->lv);
    mmx_mesh_free(plan->last);
    mmx_mesh_free(plan->cut);
    mmx_csc_free(plan->G);
    mmx_subdiv_plan_free(plan->uvplan);
    mmx_csc_free(plan->to3);
    mmx_csc_free(plan->to2);
    if (plan->uv_in3) mmx_mem_free(plan->ctx, mmx_ctx_space(plan->ctx), plan->uv_in3);
    if (plan->uv_out3) mmx_mem_free(plan->ctx, mmx_ctx_space(plan->ctx), plan->uv_out3);
    if (plan->full) mmx_mem_free(plan->ctx, mmx_ctx_space(plan->ctx), plan->full);
    if (plan->lim) mmx_mem_free(plan->ctx, mmx_ctx_space(plan->ctx), plan->lim);
    mmx__subdiv_sharp_free(&plan->sharp);
    free(plan);
}

mmx_status mmx_subdiv_plan_create(mmx_ctx *ctx, mmx_scheme scheme, const mmx_mesh *control,
                                  int levels, const mmx_subdiv_options *opts,
                                  mmx_subdiv_plan **out)
{
    MMX__NEED_CTX(ctx);
    const char *who = "mmx_subdiv_plan_create";
    if (!out) return mmx__fail(ctx, MMX_ERR_ARG, "%s: out is NULL", who);
    *out = NULL;
    if (levels < 1) return mmx__fail(ctx, MMX_ERR_ARG, "%s: levels is %d, below 1", who, levels);
    /* Plans run the fused path whatever path opts names (an unknown one is still refused):
     * its checks refuse what only the algebraic path takes (edges of three faces or more). */
    mmx_subdiv_options fused = {0}, o;
    if (opts) fused = *opts;
    if ((unsigned)fused.path <= MMX_SUBDIV_PATH_ALGEBRAIC) fused.path = MMX_SUBDIV_PATH_FUSED;
    mmx_adjacency *adj = NULL;
    double adj_ms = 0;
    mmx__subdiv_sharp sharp;
    mmx_status s = mmx__subdiv_prepare(ctx, who, scheme, control, levels, &fused, 1, 1, &o, &adj,
                                       &adj_ms, &sharp);
    /* The plan outlives the mesh, whose cache may hold the tags' arrays: its own copies. */
    if (!s) s = mmx__subdiv_sharp_own(ctx, &sharp);
    if (s) {
        mmx_adjacency_free(adj);
        mmx__subdiv_sharp_free(&sharp);
        return s;
    }
    mmx_subdiv_plan *p = calloc(1, sizeof *p);
    if (p) p->lv = calloc((size_t)levels + 1, sizeof *p->lv);
    if (!p || !p->lv) {
        free(p);
        mmx_adjacency_free(adj);
        mmx__subdiv_sharp_free(&sharp);
        return mmx__fail(ctx, MMX_ERR_NOMEM, "%s: out of host memory", who);
    }
    p->ctx = ctx, p->scheme = scheme, p->levels = levels;
    const char *ng = getenv("MMX_SUBDIV_PLAN_NO_GRAPH");
    p->nograph = ng && *ng && strcmp(ng, "0") != 0;
    p->sharp = sharp; /* the plan's now: its levels read the corners at every evaluation */
    int algebraic_only = 0;
    /* The limit reads the last level's creases from its tags: read back here, once. */
    mmx_mesh_tags creases;
    memset(&creases, 0, sizeof creases);
    p->limit = o.limit != 0;
    if (p->limit && scheme == MMX_SCHEME_SQRT3)
        s = mmx__fail(ctx, MMX_ERR_UNSUPPORTED, "%s: sqrt3 has no limit masks here (opts->limit)", who);
    if (!s)
        s = mmx__subdiv_fused(ctx, scheme, &p->sharp, control, adj, levels, 1, p->lv, o.trace,
                              &p->last, p->limit ? &creases : NULL, &algebraic_only);
    if (!s && algebraic_only)
        s = mmx__fail(ctx, MMX_ERR_UNSUPPORTED, "%s: plans run the fused path, which takes neither "
                      "creases around a vertex of several fans nor an edge that both its faces "
                      "run the same way", who);
    if (!s && p->limit) s = mmx__subdiv_carry_features(ctx, &p->sharp, levels, &creases, p->last);
    if (!s && p->limit)
        s = mmx_mem_alloc(ctx, mmx_ctx_space(ctx), (3 * (size_t)p->last->M->nrows + 1) * sizeof(float),
                          (void **)&p->lim);
    /* The positions computed at creation (mmx_subdiv_plan_mesh's) are the limit's too. */
    if (!s && p->limit) s = plan_limit_prepare(p);
    if (!s && p->limit)
        s = mmx_mem_copy(ctx, p->lim, mmx_ctx_space(ctx), p->last->pos, mmx_ctx_space(ctx),
                         3 * (size_t)p->last->M->nrows * sizeof(float));
    if (!s && p->limit) s = mmx__limit_run(ctx, &p->lst, p->lim, p->last->pos, NULL);
    /* Holes, the input's and those of no boundary interpolation: left out, as by
     * mmx_subdivide (MMX_HOLES_KEEP keeps the last level whole). */
    /* Texture coordinates, before the holes (which leave their corners out). */
    if (!s && control->uv) s = plan_uv(p, control);
    if (!s && p->sharp.tags && p->sharp.tags->nholes && o.holes == MMX_HOLES_REMOVE) s = plan_cut(p, control);
    free(creases.crease_verts);
    free(creases.crease_sharpness);
    mmx_adjacency_free(adj);
    if (!s && o.trace) o.trace[0].ms += adj_ms;
    if (s) {
        mmx_subdiv_plan_free(p);
        return s;
    }
    *out = p;
    return MMX_OK;
}

void mmx_subdiv_plan_sizes(const mmx_subdiv_plan *plan, mmx_index *control_nverts,
                           mmx_index *nverts, mmx_index *nfaces)
{
    const mmx_mesh *last = plan ? (plan->cut ? plan->cut : plan->last) : NULL;
    if (control_nverts) *control_nverts = plan ? plan->lv[0].nv : 0;
    if (nverts) *nverts = last ? last->M->nrows : 0;
    if (nfaces) *nfaces = last ? last->M->ncols : 0;
}

/* One evaluation's work, queued (CUDA) or done (host): the passes, level by level (positions-
 * only views of the kept levels), into the last level's positions; the limit masks; the kept
 * vertices' gather. What a graph captures. */
typedef struct plan_eval_args {
    mmx_subdiv_plan *plan;
    const float *in;
    float *out;
} plan_eval_args;

static mmx_status plan_queue(void *arg)
{
    const plan_eval_args *a = arg;
    mmx_subdiv_plan *p = a->plan;
    /* With holes the last level goes to `full`, then its kept vertices are gathered; with the
     * limit the passes write `lim`, which the masks map to the last level. */
    float *last = p->G ? p->full : a->out, *passes = p->limit ? p->lim : last;
    mmx_status s = MMX_OK;
    for (int l = 1; !s && l <= p->levels; l++) {
        mmx__fz_level P = p->lv[l - 1], C;
        memset(&C, 0, sizeof C);
        P.pos = (float *)(l == 1 ? a->in : p->lv[l - 1].pos);
        C.pos = l == p->levels ? passes : p->lv[l].pos;
        s = mmx__fz_pass(p->ctx, p->scheme, &P, &C);
    }
    if (!s && p->limit) s = mmx__limit_run(p->ctx, &p->lst, p->lim, last, NULL);
    if (!s && p->G) s = plan_gather(p, a->out);
    return s;
}

mmx_status mmx_subdiv_plan_mesh(const mmx_subdiv_plan *plan, const float *pos, mmx_mesh **out)
{
    if (!plan) return MMX_ERR_ARG;
    mmx_ctx *ctx = plan->ctx;
    if (!out) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_subdiv_plan_mesh: out is NULL");
    *out = NULL;
    const mmx_mesh *last = plan->cut ? plan->cut : plan->last;
    const mmx_space sp = last->space;
    mmx_mesh *m = NULL;
    mmx_status s = mmx__subdiv_mesh_alloc(ctx, mmx_mesh_nverts(last), &m);
    if (!s) s = mmx_mem_copy(ctx, m->pos, sp, pos ? pos : last->pos, sp,
                             (size_t)mmx_mesh_nverts(last) * 3 * sizeof(float));
    if (!s) s = mmx_csc_copy(ctx, last->M, sp, &m->M);
    if (!s && last->uv) s = mmx__mesh_uv_copy_to(ctx, last->uv, last->M->nnz, sp, &m->uv);
    if (s) {
        mmx_mesh_free(m);
        return s;
    }
    *out = m;
    return MMX_OK;
}

mmx_index mmx_subdiv_plan_uv_count(const mmx_subdiv_plan *plan)
{
    return plan && plan->uvplan ? plan->uvplan->last->M->nrows : 0;
}

/* The face-varying channel's work: widened to the texture mesh's positions, its plan's work,
 * narrowed back (one graph with it on CUDA). */
static mmx_status plan_queue_uv(void *arg)
{
    const plan_eval_args *a = arg;
    mmx_subdiv_plan *p = a->plan;
    const mmx_map one = mmx_map_const(1.0f);
    plan_eval_args inner = {p->uvplan, p->uv_in3, p->uv_out3};
    mmx_status s = mmx_spmv(p->ctx, MMX_OP_T, 1.0f, p->to3, one, a->in, 1, 0.0f, p->uv_in3);
    if (!s) s = plan_queue(&inner);
    if (!s) s = mmx_spmv(p->ctx, MMX_OP_T, 1.0f, p->to2, one, p->uv_out3, 1, 0.0f, a->out);
    return s;
}

/* A frame: the positions' work, the coordinates', or both, each pair of arrays NULL when not
 * wanted (checked by the callers). */
typedef struct plan_frame_args {
    plan_eval_args pos, uv;
} plan_frame_args;

static mmx_status plan_queue_frame(void *arg)
{
    plan_frame_args *a = arg;
    mmx_status s = a->pos.out ? plan_queue(&a->pos) : MMX_OK;
    if (!s && a->uv.out) s = plan_queue_uv(&a->uv);
    return s;
}

/* The evaluation entry points' common part, on checked pointers (each pair both NULL or both
 * not, one pair at least): the host's coordinate checks, then the work, on CUDA one graph per
 * kind of frame (positions, coordinates, both), so that alternating calls keep their graphs. */
static mmx_status plan_frame(mmx_subdiv_plan *p, const char *who, const float *control_pos,
                             float *pos, const float *control_uv, float *uv)
{
    mmx_ctx *ctx = p->ctx;
    if (uv && !p->uvplan)
        return mmx__fail(ctx, MMX_ERR_UNSUPPORTED, "%s: the plan refines no texture coordinates "
                         "(its control mesh had none; sqrt3 and Loop's linear mode refine them "
                         "per corner; or their texture mesh is one the fused path does not take, "
                         "such as faces sharing one chart's corners)", who);
    /* The host checks the coordinates; on CUDA that would be a wait (subdiv.h). */
    mmx_status s = MMX_OK;
    if (mmx_ctx_backend(ctx) != MMX_BACKEND_CUDA && pos)
        s = mmx__subdiv_coords(ctx, who, control_pos, p->lv[0].nv, 3, MMX_SPACE_HOST, "control vertex");
    if (!s && mmx_ctx_backend(ctx) != MMX_BACKEND_CUDA && uv)
        s = mmx__subdiv_coords(ctx, who, control_uv, p->to3->nrows / 2, 2, MMX_SPACE_HOST,
                               "control texture coordinate");
    if (s) return s;
    plan_frame_args a = {{p, control_pos, pos}, {p, control_uv, uv}};
    const void *key[4] = {control_pos, pos, control_uv, uv};
    mmx__graph **g = !uv ? &p->graph : !pos ? &p->uvgraph : &p->framegraph;
    if (mmx_ctx_backend(ctx) != MMX_BACKEND_CUDA || p->nograph) return plan_queue_frame(&a);
    return mmx__graph_run(ctx, g, key, sizeof key, plan_queue_frame, &a);
}

mmx_status mmx_subdiv_plan_eval(mmx_subdiv_plan *plan, const float *control_pos, float *pos)
{
    if (!plan) return MMX_ERR_ARG;
    if (!control_pos || !pos)
        return mmx__fail(plan->ctx, MMX_ERR_ARG, "mmx_subdiv_plan_eval: %s is NULL",
                         control_pos ? "pos" : "control_pos");
    return plan_frame(plan, "mmx_subdiv_plan_eval", control_pos, pos, NULL, NULL);
}

mmx_status mmx_subdiv_plan_eval_uv(mmx_subdiv_plan *plan, const float *control_uv, float *uv)
{
    if (!plan) return MMX_ERR_ARG;
    if (!control_uv || !uv)
        return mmx__fail(plan->ctx, MMX_ERR_ARG, "mmx_subdiv_plan_eval_uv: %s is NULL",
                         control_uv ? "uv" : "control_uv");
    return plan_frame(plan, "mmx_subdiv_plan_eval_uv", NULL, NULL, control_uv, uv);
}

mmx_status mmx_subdiv_plan_eval_frame(mmx_subdiv_plan *plan, const float *control_pos, float *pos,
                                      const float *control_uv, float *uv)
{
    if (!plan) return MMX_ERR_ARG;
    const char *who = "mmx_subdiv_plan_eval_frame";
    if (!control_pos != !pos)
        return mmx__fail(plan->ctx, MMX_ERR_ARG, "%s: %s is NULL and %s is not", who,
                         control_pos ? "pos" : "control_pos", control_pos ? "control_pos" : "pos");
    if (!control_uv != !uv)
        return mmx__fail(plan->ctx, MMX_ERR_ARG, "%s: %s is NULL and %s is not", who,
                         control_uv ? "uv" : "control_uv", control_uv ? "control_uv" : "uv");
    if (!pos && !uv)
        return mmx__fail(plan->ctx, MMX_ERR_ARG, "%s: no arrays (positions, coordinates or both)", who);
    return plan_frame(plan, who, control_pos, pos, control_uv, uv);
}
