/* QEM simplification (dynamic.h states it): the options, and the host driver. Each round
 * evaluates every edge with quadric.h's steps (the code the CUDA driver, simplify.cu, runs
 * too), lists the candidates cheapest first and hands them to the cavity operator's collapse
 * with their costs as priorities and their placements (mmx__cavity_round_ranked), then carries
 * the quadrics and locks over to the new numbering. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "dynamic_internal.h"
#include "quadric.h"

mmx_simplify_options mmx_simplify_defaults(void)
{
    mmx_simplify_options o;
    memset(&o, 0, sizeof o);
    o.feature_angle = 180;
    return o;
}

/* The options checked, the target resolved from the ratio. */
static mmx_status check_options(mmx_ctx *ctx, const mmx_mesh *mesh, mmx_simplify_options *o)
{
    if (o->target_faces < 0)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_simplify: target_faces %d is negative",
                         (int)o->target_faces);
    if (!(o->ratio >= 0 && o->ratio <= 1))
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_simplify: ratio %g is not in (0, 1]", o->ratio);
    if (o->target_faces > 0 && o->ratio > 0)
        return mmx__fail(ctx, MMX_ERR_ARG,
                         "mmx_simplify: both target_faces and ratio are set; give one");
    if (!(o->max_error >= 0) || isinf(o->max_error))
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_simplify: max_error %g is not a finite number "
                         ">= 0", o->max_error);
    if (o->target_faces == 0 && o->ratio == 0 && o->max_error == 0)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_simplify: no target: set target_faces, ratio or "
                         "max_error");
    if (!(o->feature_angle > 0 && o->feature_angle <= 180))
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_simplify: feature_angle %g is not in (0, 180]",
                         o->feature_angle);
    if (o->ratio > 0) {
        const double t = ceil(o->ratio * (double)mesh->M->ncols);
        o->target_faces = t < 1 ? 1 : (mmx_index)t;
    }
    return MMX_OK;
}

/* The cosine bound of the feature angle (-2: off), the same double on both backends. */
double mmx__qem_cos_bound(double feature_angle)
{
    return feature_angle >= 180 ? -2.0 : cos(feature_angle * (3.14159265358979323846 / 180.0));
}

double mmx__qem_diagonal(const float lo[3], const float hi[3])
{
    double s = 0;
    for (int k = 0; k < 3; k++) s += ((double)hi[k] - lo[k]) * ((double)hi[k] - lo[k]);
    return sqrt(s);
}

mmx_status mmx__qem_not_finite(mmx_ctx *ctx, mmx_index v)
{
    return mmx__fail(ctx, MMX_ERR_MESH, "mmx_simplify: vertex %d has a coordinate that is not "
                     "finite", (int)v);
}

mmx_status mmx__simplify_unchanged(mmx_ctx *ctx, const mmx_mesh *mesh, mmx_mesh **out)
{
    mmx_mesh *m = NULL;
    mmx_status s = mmx_mesh_copy(ctx, mesh, mesh->space, &m);
    if (s) return s;
    free(m->tags), free(m->normals), free(m->colors);
    mmx_mesh_uv_free(m->uv);
    m->tags = NULL, m->normals = NULL, m->colors = NULL, m->uv = NULL;
    return mmx__round_result(ctx, MMX_OK, m, out);
}

/* The vertices of the input's tags (mesh->tags) that stay: both ends of every crease and
 * every corner of sharpness > 0; a host array (freed by the caller; NULL when none). */
static mmx_status tagged_verts(mmx_ctx *ctx, const mmx_mesh *mesh, mmx_index **out, mmx_index *n)
{
    *out = NULL, *n = 0;
    if (!mesh->tags) return MMX_OK;
    mmx_mesh_tags *tags = NULL;
    mmx_status s = mmx_mesh_tags_parse(ctx, mesh, &tags);
    if (!s) s = mmx__host_alloc(ctx, 2 * (size_t)tags->ncreases + (size_t)tags->ncorners + 1,
                                sizeof **out, (void **)out);
    for (mmx_index i = 0; !s && i < tags->ncreases; i++)
        if (tags->crease_sharpness[i] > 0) {
            (*out)[(*n)++] = tags->crease_verts[2 * i];
            (*out)[(*n)++] = tags->crease_verts[2 * i + 1];
        }
    for (mmx_index i = 0; !s && i < tags->ncorners; i++)
        if (tags->corner_sharpness[i] > 0) (*out)[(*n)++] = tags->corner_verts[i];
    mmx_mesh_tags_free(tags);
    return s;
}

/* Host driver state. */
typedef struct host_state {
    mmx_ctx *ctx;
    const mmx_simplify_options *o;
    mmx_mesh *cur;        /* owned; NULL while the input is the current mesh */
    const mmx_mesh *in;
    double *Q;            /* MMX__QEM_N per vertex */
    unsigned char *lock;  /* per vertex */
    mmx_mesh_expect expect;
} host_state;

static const mmx_mesh *current(const host_state *st)
{
    return st->cur ? st->cur : st->in;
}

/* The quadrics and locks of the input (round 0's topology). */
static mmx_status host_setup(host_state *st, const mmx__flip_topo *t, const mmx_index *tagged,
                             mmx_index ntagged, mmx_simplify_report *r)
{
    const mmx__sc_view v = mmx__sc_host_view(t);
    const float *pos = st->in->pos;
    mmx_status s = mmx__host_alloc(st->ctx, MMX__QEM_N * (size_t)t->nverts + 1, sizeof *st->Q,
                                   (void **)&st->Q);
    if (!s) s = mmx__host_alloc(st->ctx, (size_t)t->nverts + 1, 1, (void **)&st->lock);
    if (s) return s;
    for (mmx_index i = 0; i < t->nverts; i++) mmx__qem_vertex(&v, pos, i, st->Q + MMX__QEM_N * (size_t)i);
    memset(st->lock, 0, (size_t)t->nverts);
    const double cb = mmx__qem_cos_bound(st->o->feature_angle);
    for (mmx_index e = 0; e < t->nedges; e++)
        if (mmx__qem_feature(&v, pos, e, cb))
            st->lock[t->adj->ev[2 * (size_t)e]] = st->lock[t->adj->ev[2 * (size_t)e + 1]] = 1;
    for (mmx_index i = 0; i < ntagged; i++) st->lock[tagged[i]] = 1;
    for (mmx_index i = 0; i < t->nverts; i++) r->locked_verts += st->lock[i];
    return MMX_OK;
}

typedef struct cand {
    uint64_t key;
    mmx_index e;
} cand;

static int cand_cmp(const void *x, const void *y)
{
    const cand *a = x, *b = y;
    return (a->key > b->key) - (a->key < b->key);
}

/* One round on topology t of the current mesh: *next the new mesh (NULL when no candidate
 * is left), *kept the collapses made. */
static mmx_status host_round(host_state *st, const mmx__flip_topo *t, double bound, uint32_t round,
                             mmx_mesh **next, mmx_index *kept, mmx_simplify_report *r)
{
    *next = NULL;
    *kept = 0;
    const mmx__sc_view v = mmx__sc_host_view(t);
    const mmx_mesh *cur = current(st);
    const mmx_index ne = t->nedges;
    cand *c = NULL;
    double *cost = NULL, *dist = NULL;
    float *place = NULL, *prio = NULL, *plc = NULL;
    mmx_index *seeds = NULL;
    mmx_cavity_seed *sd = NULL;
    mmx_status s = mmx__host_alloc(st->ctx, (size_t)ne + 1, sizeof *c, (void **)&c);
    if (!s) s = mmx__host_alloc(st->ctx, (size_t)ne + 1, sizeof *cost, (void **)&cost);
    if (!s) s = mmx__host_alloc(st->ctx, (size_t)ne + 1, sizeof *dist, (void **)&dist);
    if (!s) s = mmx__host_alloc(st->ctx, 3 * (size_t)ne + 1, sizeof *place, (void **)&place);
    mmx_index n = 0;
    if (!s) {
        for (mmx_index e = 0; e < ne; e++)
            if (mmx__qem_edge(&v, cur->pos, st->Q, st->lock, e, &cost[e], &dist[e],
                              place + 3 * (size_t)e) &&
                (bound <= 0 || dist[e] <= bound))
                c[n++] = (cand){mmx__qem_key(cost[e], e), e};
        qsort(c, (size_t)n, sizeof *c, cand_cmp);
        if (st->o->target_faces > 0) {
            const mmx_index need = (t->nfaces - st->o->target_faces + 1) / 2;
            if (n > need) n = need;
        }
    }
    if (!s && n > 0) {
        s = mmx__host_alloc(st->ctx, (size_t)n, sizeof *seeds, (void **)&seeds);
        if (!s) s = mmx__host_alloc(st->ctx, (size_t)n, sizeof *prio, (void **)&prio);
        if (!s) s = mmx__host_alloc(st->ctx, 3 * (size_t)n, sizeof *plc, (void **)&plc);
        if (!s) s = mmx__host_alloc(st->ctx, (size_t)n, sizeof *sd, (void **)&sd);
    }
    mmx_cavity_counts cnt = {0, 0, 0, 0};
    if (!s && n > 0) {
        for (mmx_index i = 0; i < n; i++) {
            const mmx_index e = c[i].e;
            seeds[i] = e;
            prio[i] = (float)cost[e];
            memcpy(plc + 3 * (size_t)i, place + 3 * (size_t)e, 3 * sizeof *plc);
        }
        /* Every seed passed mmx__qem_edge's check at its place on this mesh: checked. */
        s = mmx__cavity_round_ranked(st->ctx, cur, t, MMX_CAVITY_EDGE_COLLAPSE, seeds, prio, plc,
                                     1, n, round, next, &cnt, sd);
    }
    /* The quadrics and locks follow the vertices: the merged vertex a takes Qa + Qb, the
     * survivors keep their order (the collapse's numbering). */
    double *Q2 = NULL;
    unsigned char *lock2 = NULL;
    mmx_index *mate = NULL;
    if (!s && n > 0) {
        s = mmx__host_alloc(st->ctx, (size_t)t->nverts + 1, sizeof *mate, (void **)&mate);
        if (!s) s = mmx__host_alloc(st->ctx, MMX__QEM_N * (size_t)t->nverts + 1, sizeof *Q2, (void **)&Q2);
        if (!s) s = mmx__host_alloc(st->ctx, (size_t)t->nverts + 1, 1, (void **)&lock2);
    }
    if (!s && n > 0) {
        for (mmx_index i = 0; i < t->nverts; i++) mate[i] = -1;
        for (mmx_index i = 0; i < n; i++) {
            if (sd[i].outcome != MMX_CAVITY_KEPT) continue;
            const mmx_index e = seeds[i];
            const mmx_index a = t->adj->ev[2 * (size_t)e], b = t->adj->ev[2 * (size_t)e + 1];
            mate[a] = b;
            mate[b] = -2; /* gone */
            if (dist[e] > r->max_error) r->max_error = dist[e];
        }
        mmx_index nv = 0;
        for (mmx_index i = 0; i < t->nverts; i++) {
            if (mate[i] == -2) continue;
            double *q = Q2 + MMX__QEM_N * (size_t)nv;
            memcpy(q, st->Q + MMX__QEM_N * (size_t)i, MMX__QEM_N * sizeof *q);
            if (mate[i] >= 0)
                for (int k = 0; k < MMX__QEM_N; k++)
                    q[k] = MMX__DADD(q[k], st->Q[MMX__QEM_N * (size_t)mate[i] + k]);
            lock2[nv++] = st->lock[i];
        }
        free(st->Q);
        free(st->lock);
        st->Q = Q2, st->lock = lock2;
        Q2 = NULL, lock2 = NULL;
        *kept = cnt.kept;
    }
    free(c);
    free(cost);
    free(dist);
    free(place);
    free(prio);
    free(plc);
    free(seeds);
    free(sd);
    free(mate);
    free(Q2);
    free(lock2);
    if (s && *next) {
        mmx_mesh_free(*next);
        *next = NULL;
    }
    return s;
}

mmx_status mmx__simplify_check_round(mmx_ctx *ctx, const mmx_mesh *m, const mmx_mesh_expect *expect,
                                     int round)
{
    mmx_mesh_validation vr;
    mmx_status s = mmx_mesh_validate(ctx, m, expect, &vr);
    if (s == MMX_ERR_MESH)
        s = mmx__fail(ctx, MMX_ERR_INTERNAL, "mmx_simplify: round %d left a mesh that is not "
                      "valid: %s", round, vr.problem);
    return s;
}

static mmx_status simplify_host(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_simplify_options *o,
                                const mmx_mesh_expect *ex, const mmx_index *tagged,
                                mmx_index ntagged, mmx_mesh **out, mmx_simplify_report *r)
{
    host_state st;
    memset(&st, 0, sizeof st);
    st.ctx = ctx, st.o = o, st.in = mesh, st.expect = *ex;
    /* The bounding box diagonal (the error's unit); every coordinate finite. */
    const mmx_index nv0 = mesh->M->nrows;
    float lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    for (mmx_index v = 0; v < nv0; v++)
        for (int k = 0; k < 3; k++) {
            const float x = mesh->pos[3 * (size_t)v + k];
            if (!isfinite(x)) return mmx__qem_not_finite(ctx, v);
            if (v == 0 || x < lo[k]) lo[k] = x;
            if (v == 0 || x > hi[k]) hi[k] = x;
        }
    r->diagonal = mmx__qem_diagonal(lo, hi);
    const double bound = o->max_error > 0 ? o->max_error * r->diagonal : 0;
    mmx__flip_topo t;
    mmx_status s = mmx__flip_topo_build(ctx, mesh, "mmx_simplify", &t);
    if (s) return s;
    s = host_setup(&st, &t, tagged, ntagged, r);
    uint32_t round = 0;
    while (!s) {
        if (o->target_faces > 0 && t.nfaces <= o->target_faces) break;
        mmx_mesh *next = NULL;
        mmx_index kept = 0;
        s = host_round(&st, &t, bound, round, &next, &kept, r);
        if (s || !next) break;
        mmx__flip_topo_free(&t);
        mmx_mesh_free(st.cur);
        st.cur = next;
        round++;
        r->rounds++;
        r->collapses += kept;
        if (o->validate) s = mmx__simplify_check_round(ctx, next, &st.expect, (int)round - 1);
        mmx__progress(ctx, "simplify round", (int)round, 0);
        if (!s) s = mmx__flip_topo_build(ctx, next, "mmx_simplify", &t);
        if (s) {
            memset(&t, 0, sizeof t);
            break;
        }
    }
    mmx__flip_topo_free(&t);
    if (!s && !st.cur) s = mmx__simplify_unchanged(ctx, mesh, &st.cur);
    if (!s) {
        *out = st.cur;
    } else {
        mmx_mesh_free(st.cur);
    }
    free(st.Q);
    free(st.lock);
    return s;
}

mmx_status mmx_simplify(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_simplify_options *opts,
                        mmx_mesh **out, mmx_simplify_report *report)
{
    MMX__NEED_CTX(ctx);
    if (!mesh || !mesh->M || !out)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_simplify: NULL mesh or out");
    *out = NULL;
    if (!mesh->pos) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_simplify: the mesh has no positions");
    const mmx_space want = mmx_ctx_backend(ctx) == MMX_BACKEND_HOST ? MMX_SPACE_HOST : MMX_SPACE_DEVICE;
    if (mesh->space != want)
        return mmx__fail(ctx, MMX_ERR_SPACE, "mmx_simplify: a %s mesh on a %s context (mmx_mesh_copy "
                         "moves it)", mesh->space == MMX_SPACE_HOST ? "host" : "device",
                         want == MMX_SPACE_HOST ? "host" : "CUDA");
    mmx_simplify_options o = opts ? *opts : mmx_simplify_defaults();
    mmx_status s = check_options(ctx, mesh, &o);
    if (s) return s;
    mmx_simplify_report r;
    memset(&r, 0, sizeof r);
    mmx_timer *tm = NULL;
    s = mmx_timer_create(ctx, &tm);
    if (!s) s = mmx_timer_start(tm);
    /* The input must be valid (validate reports a face that is not a triangle through the
     * topology build below, with the advice to triangulate). */
    mmx_mesh_validation vr;
    mmx_mesh_expect ex;
    memset(&ex, 0, sizeof ex);
    if (!s) s = mmx_mesh_validate(ctx, mesh, &ex, &vr);
    mmx_index *tagged = NULL, ntagged = 0;
    if (!s) s = tagged_verts(ctx, mesh, &tagged, &ntagged);
    if (!s) {
        ex.check_euler = 1;
        ex.euler = vr.stats.euler;
        r.faces_in = mesh->M->ncols;
        r.verts_in = mesh->M->nrows;
        r.target_faces = o.target_faces;
        if (mmx_ctx_backend(ctx) != MMX_BACKEND_HOST)
            s = mmx__simplify_cuda(ctx, mesh, &o, &ex, tagged, ntagged, out, &r);
        else
            s = simplify_host(ctx, mesh, &o, &ex, tagged, ntagged, out, &r);
    }
    free(tagged);
    if (!s) {
        r.faces_out = (*out)->M->ncols;
        r.verts_out = (*out)->M->nrows;
        r.max_error = r.diagonal > 0 ? r.max_error / r.diagonal : 0;
    }
    double ms = 0;
    if (tm) {
        const mmx_status ts = mmx_timer_stop(tm, &ms);
        if (!s) s = ts;
        mmx_timer_free(tm);
    }
    r.ms = ms;
    if (!s && report) *report = r;
    if (s && *out) {
        mmx_mesh_free(*out);
        *out = NULL;
    }
    return s;
}
