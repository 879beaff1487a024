/* Isotropic remeshing (Botsch and Kobbelt 2004) by rounds of the cavity operator: splits of
 * long edges, collapses of short ones, valence-improving flips, and tangential relaxation with
 * projection back onto the input (dynamic.h states the steps and the feature rules). Every
 * step is a sequence of rounds, each keeping the lexicographically first maximal independent
 * set of its seeds' cavities by the fixed priorities, so the whole run is deterministic.
 *
 * The flow (the steps' rounds, their stopping rules and counts, the mesh's replacement after
 * a round) is written once here for both backends (remesh_flow.h); the host's stages follow
 * it, CUDA's are in remesh.cu. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/device.h"
#include "dynamic_internal.h"
#include "remesh_flow.h"
#include "remesh_step.h"
#include "slide.h"
#include "patch_keep.h"
#include "patch/patch_update.h"

#define MMX__PI 3.14159265358979323846

mmx_remesh_options mmx_remesh_defaults(void)
{
    mmx_remesh_options o;
    memset(&o, 0, sizeof o);
    o.target_length = 0;
    o.iterations = 3;
    o.feature_angle = 60;
    o.validate = 0;
    o.slide_features = 1;
    return o;
}

/* ---- the round's scratch --------------------------------------------------------------------- */

mmx_status mmx__rm_take(mmx__rm *st, size_t count, size_t size, void **p)
{
    *p = NULL;
    if (st->nscratch == (int)(sizeof st->scratch / sizeof *st->scratch))
        return mmx__fail(st->ctx, MMX_ERR_INTERNAL, "mmx_remesh: a round's scratch list is full");
    mmx_status s = st->cuda ? mmx__dev_alloc(st->ctx, (count + 1) * size, p)
                            : mmx__host_alloc(st->ctx, count + 1, size, p);
    if (!s) st->scratch[st->nscratch++] = *p;
    return s;
}

void mmx__rm_release(mmx__rm *st)
{
    for (int i = 0; i < st->nscratch; i++) {
        if (st->cuda) mmx__dev_free(st->ctx, st->scratch[i]);
        else free(st->scratch[i]);
        st->scratch[i] = NULL;
    }
    st->nscratch = 0;
}

#define TAKE(st, count, p) mmx__rm_take((st), (size_t)(count), sizeof **(p), (void **)(p))

/* ---- the flow ------------------------------------------------------------------------------- */

/* Validates the current mesh when asked, naming the round that left it. */
static mmx_status check(mmx__rm *st, const char *step)
{
    if (!st->o->validate) return MMX_OK;
    mmx_mesh_validation r;
    mmx_status s = mmx_mesh_validate(st->ctx, st->cur, &st->expect, &r);
    if (s == MMX_ERR_MESH)
        s = mmx__fail(st->ctx, MMX_ERR_INTERNAL, "mmx_remesh: round %u (%s) left a mesh that is "
                      "not valid: %s", (unsigned)(st->round - 1), step, r.problem);
    return s;
}

/* Replaces the current mesh by the round's new one (r->next, taken over), counts the round
 * into the step's *rounds and *edits, keeps the caller's patch set current (on the new mesh's
 * topology, which the next round reads too; with_sd: the round's per-seed records tell the
 * patches what changed) and validates the mesh when asked. A round that kept nothing leaves
 * the mesh as it was: then the current mesh and its topology stay. */
static mmx_status advance(mmx__rm *st, const mmx__rm_stages *B, mmx__rm_round *r,
                          const char *step, int *rounds, int64_t *edits, int with_sd)
{
    (*rounds)++;
    *edits += r->c.kept;
    if (r->c.kept == 0) {
        /* The round changed nothing: its mesh has cur's bytes, so cur and its topology stay
         * (the next step builds none). */
        st->round++;
        return check(st, step);
    }
    if (st->have_topo) B->drop_topo(st);
    st->have_topo = 0, st->adj = NULL;
    const mmx_index nverts_before = mmx_mesh_nverts(st->cur);
    const mmx_index nfaces_before = mmx_mesh_nfaces(st->cur);
    mmx_mesh_free(st->cur);
    st->cur = r->next;
    r->next = NULL;
    st->round++;
    mmx_status s = MMX_OK;
    if (st->o->patches) {
        s = B->topo(st);
        if (!s)
            s = mmx__keep_patches(st->ctx, st->o->patches, r->kind, nverts_before, nfaces_before,
                                  r->c.kept, with_sd ? r->sd : NULL, with_sd ? r->n : 0,
                                  st->cuda ? MMX_SPACE_DEVICE : MMX_SPACE_HOST, st->cur, st->adj);
    }
    return s ? s : check(st, step);
}

/* Step 1: split rounds until no edge seeds one or a round keeps none. */
static mmx_status split_step(mmx__rm *st, const mmx__rm_stages *B, mmx_remesh_iteration *it)
{
    mmx_status s = MMX_OK;
    for (int k = 0; k < MMX__RM_SPLIT_ROUNDS && !s; k++) {
        mmx__rm_round r;
        memset(&r, 0, sizeof r);
        r.kind = MMX_CAVITY_EDGE_SPLIT;
        s = B->topo(st);
        if (!s) s = B->split_seeds(st, &r);
        it->split_seeds += r.found;
        if (!s && r.n > 0) s = B->edge_round(st, &r);
        if (!s && r.c.kept > 0) s = B->split_features(st, &r);
        const int stop = s || r.n == 0;
        if (!stop) s = advance(st, B, &r, "split", &it->split_rounds, &it->splits, 1);
        mmx_mesh_free(r.next);
        mmx__rm_release(st); /* after the patches' update read sd */
        if (stop || r.c.kept == 0) break;
    }
    return s;
}

/* Step 2: collapse rounds until no edge seeds one or a round keeps none. */
static mmx_status collapse_step(mmx__rm *st, const mmx__rm_stages *B, mmx_remesh_iteration *it)
{
    mmx_status s = MMX_OK;
    for (int k = 0; k < MMX__RM_COLLAPSE_ROUNDS && !s; k++) {
        mmx__rm_round r;
        memset(&r, 0, sizeof r);
        r.kind = MMX_CAVITY_EDGE_COLLAPSE;
        s = B->topo(st);
        if (!s) s = B->collapse_seeds(st, &r);
        it->collapse_seeds += r.found;
        if (!s && r.n > 0) s = B->edge_round(st, &r);
        if (!s && r.c.kept > 0) s = B->collapse_renumber(st, &r);
        const int stop = s || r.n == 0;
        if (!stop) s = advance(st, B, &r, "collapse", &it->collapse_rounds, &it->collapses, 1);
        mmx_mesh_free(r.next);
        mmx__rm_release(st);
        if (stop || r.c.kept == 0) break;
    }
    return s;
}

/* Step 3: flip rounds until no edge seeds one or a round keeps none. */
static mmx_status flip_step(mmx__rm *st, const mmx__rm_stages *B, mmx_remesh_iteration *it)
{
    mmx_status s = MMX_OK;
    for (int k = 0; k < MMX__RM_FLIP_ROUNDS && !s; k++) {
        mmx__rm_round r;
        memset(&r, 0, sizeof r);
        r.kind = MMX_CAVITY_EDGE_FLIP;
        s = B->topo(st);
        if (!s) s = B->flip_seeds(st, &r);
        it->flip_seeds += r.found;
        if (!s && r.n > 0) s = B->edge_round(st, &r);
        const int stop = s || r.n == 0;
        if (!stop) s = advance(st, B, &r, "flip", &it->flip_rounds, &it->flips, 0);
        mmx_mesh_free(r.next);
        mmx__rm_release(st);
        if (stop || r.c.kept == 0) break;
    }
    return s;
}

/* Step 4: every target from the positions at the start of the step (Jacobi), then rounds of
 * VERTEX_MOVE until every seed moved or was refused; the conflicting ones go again, with their
 * targets, in the next round. The moves change positions alone: the topology stays. */
static mmx_status relax_step(mmx__rm *st, const mmx__rm_stages *B, mmx_remesh_iteration *it)
{
    mmx__rm_round r;
    memset(&r, 0, sizeof r);
    r.kind = MMX_CAVITY_VERTEX_MOVE;
    mmx_status s = B->topo(st);
    if (!s) s = B->relax_targets(st, &r);
    for (int k = 0; k < MMX__RM_RELAX_ROUNDS && r.n > 0 && !s; k++) {
        it->move_seeds += r.n;
        s = B->move_round(st, &r);
        if (s) break;
        st->round++;
        it->relax_rounds++;
        it->moves += r.c.kept;
        s = check(st, "relax");
        if (!s) s = B->conflicts(st, &r);
    }
    mmx__rm_release(st);
    return s;
}

/* ---- the host's stages ------------------------------------------------------------------------ */

/* The host's own state: the topology of the current mesh (built once per mesh: a relaxation
 * changes positions only, so it stays valid), the BVH over the input and its feature lines. */
typedef struct host_be {
    mmx__flip_topo topo;
    mmx__bvh *bvh;
    mmx__slide *slide; /* slide.h; NULL: nothing slides */
} host_be;

static host_be *hb(const mmx__rm *st)
{
    return (host_be *)st->be;
}

static mmx_status h_topo(mmx__rm *st)
{
    if (st->have_topo) return MMX_OK;
    mmx_status s = mmx__flip_topo_build(st->ctx, st->cur, "mmx_remesh", &hb(st)->topo);
    if (s) return s;
    st->have_topo = 1;
    st->adj = hb(st)->topo.adj;
    return MMX_OK;
}

static void h_drop_topo(mmx__rm *st)
{
    mmx__flip_topo_free(&hb(st)->topo);
}

static uint64_t key(mmx_index a, mmx_index b)
{
    return mmx__rm_key(a, b);
}

static int u64_cmp(const void *x, const void *y)
{
    const uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

static int is_feature(const mmx__rm *st, mmx_index a, mmx_index b)
{
    return st->nfeat > 0 && mmx__rm_find(st->feat, st->nfeat, key(a, b)) >= 0;
}

/* The steps' view of the current mesh (fv, fdeg: NULL where a step does not read them). */
static mmx__rm_view rm_view(const mmx__rm *st, const unsigned char *fv, const mmx_index *fdeg)
{
    const mmx__rm_view r = {mmx__sc_host_view(&hb(st)->topo), st->cur->pos, st->feat, st->nfeat,
                            st->pin, fv, fdeg, st->lo2, st->hi2};
    return r;
}

/* Per vertex of t into fv: 1 when it never moves and no collapse may touch it (a boundary
 * vertex, an end of a feature edge, a tagged corner). */
static void feature_verts(const mmx__rm *st, const mmx__flip_topo *t, unsigned char *fv)
{
    for (mmx_index v = 0; v < t->nverts; v++) fv[v] = t->adj->boundary[v] || st->pin[v];
    for (mmx_index i = 0; i < st->nfeat; i++) {
        fv[(mmx_index)(st->feat[i] >> 32)] = 1;
        fv[(mmx_index)(uint32_t)st->feat[i]] = 1;
    }
}

/* Feature keys k[0..n) sorted, each once (the form st->feat keeps); returns their number. */
static mmx_index sort_unique(uint64_t *k, mmx_index n)
{
    qsort(k, (size_t)n, sizeof *k, u64_cmp);
    mmx_index u = 0;
    for (mmx_index i = 0; i < n; i++)
        if (u == 0 || k[i] != k[u - 1]) k[u++] = k[i];
    return u;
}

/* Longest edges first (Rivara's bisection): a long edge is a seed when no face of it has a
 * longer edge, so a split never cuts a triangle across its shorter side (which, repeated,
 * makes needles); the others wait for their faces' longest. */
static mmx_status h_split_seeds(mmx__rm *st, mmx__rm_round *r)
{
    const mmx__flip_topo *t = &hb(st)->topo;
    double *longest = NULL;
    mmx_status s = TAKE(st, t->nedges, &r->seeds);
    if (!s) s = TAKE(st, t->nfaces, &longest);
    if (s) return s;
    const mmx__rm_view rv = rm_view(st, NULL, NULL);
    for (mmx_index f = 0; f < t->nfaces; f++) longest[f] = mmx__rm_longest(&rv, f);
    for (mmx_index e = 0; e < t->nedges; e++)
        if (mmx__rm_split_seed(&rv, longest, e)) r->seeds[r->n++] = e;
    r->found = r->n;
    return MMX_OK;
}

/* remesh_step.h's rule, edge by edge. */
static mmx_status h_collapse_seeds(mmx__rm *st, mmx__rm_round *r)
{
    const mmx__flip_topo *t = &hb(st)->topo;
    unsigned char *fv = NULL;
    mmx_index *fdeg = NULL;
    mmx_status s = TAKE(st, t->nverts, &fv);
    if (!s) s = TAKE(st, t->nedges, &r->seeds);
    if (!s) s = TAKE(st, t->nedges, &r->keep);
    if (!s) s = TAKE(st, t->nverts, &fdeg);
    if (s) return s;
    feature_verts(st, t, fv);
    mmx__rm_feature_degrees(st->feat, st->nfeat, t->nverts, fdeg);
    const mmx__rm_view rv = rm_view(st, fv, fdeg);
    for (mmx_index e = 0; e < t->nedges; e++)
        if (mmx__rm_collapse_seed(&rv, e, &r->keep[r->n])) r->seeds[r->n++] = e;
    r->found = r->n;
    return MMX_OK;
}

typedef struct pkey {
    uint64_t priority;
    mmx_index edge;
} pkey;

static int pkey_cmp(const void *x, const void *y)
{
    const pkey *a = x, *b = y;
    if (a->priority != b->priority) return a->priority < b->priority ? -1 : 1;
    return (a->edge > b->edge) - (a->edge < b->edge);
}

static int index_cmp(const void *x, const void *y)
{
    const mmx_index a = *(const mmx_index *)x, b = *(const mmx_index *)y;
    return (a > b) - (a < b);
}

/* Keeps, of the flip seeds[0..n), the greedy set in the round's key order whose quads share
 * no vertex, in ascending edge order; returns its size. Flips that share only a vertex do not
 * conflict in the cavity operator, but each was judged by the valences before the round: two
 * flips at one vertex of valence 7 would both lower it, to 5. With disjoint quads every kept
 * flip lowers the sum of squared deviations, so the flips end. order (n) and mark (nverts)
 * are scratch. */
static mmx_index vertex_disjoint(const mmx__flip_topo *t, mmx_index *seeds, mmx_index n,
                                 uint32_t round, pkey *order, mmx_index *mark)
{
    for (mmx_index i = 0; i < n; i++) order[i] = (pkey){mmx_cavity_priority(seeds[i], round), seeds[i]};
    qsort(order, (size_t)n, sizeof *order, pkey_cmp);
    for (mmx_index v = 0; v < t->nverts; v++) mark[v] = 0;
    mmx_index m = 0;
    for (mmx_index i = 0; i < n; i++) {
        mmx_index q[4];
        mmx__flip_quad(t, order[i].edge, q);
        if (mark[q[0]] || mark[q[1]] || mark[q[2]] || mark[q[3]]) continue;
        for (int j = 0; j < 4; j++) mark[q[j]] = 1;
        seeds[m++] = order[i].edge;
    }
    qsort(seeds, (size_t)m, sizeof *seeds, index_cmp);
    return m;
}

static mmx_status h_flip_seeds(mmx__rm *st, mmx__rm_round *r)
{
    const mmx__flip_topo *t = &hb(st)->topo;
    mmx_index *deg = NULL, *mark = NULL;
    pkey *order = NULL;
    mmx_status s = TAKE(st, t->nedges, &r->seeds);
    if (!s) s = TAKE(st, t->nverts, &deg);
    if (!s) s = TAKE(st, t->nverts, &mark);
    if (!s) s = TAKE(st, t->nedges, &order);
    if (s) return s;
    memset(deg, 0, (size_t)t->nverts * sizeof *deg);
    for (size_t k = 0; k < 2 * (size_t)t->nedges; k++) deg[t->adj->ev[k]]++;
    const mmx__rm_view rv = rm_view(st, NULL, NULL);
    for (mmx_index e = 0; e < t->nedges; e++)
        if (mmx__rm_flip_seed(&rv, deg, e)) r->seeds[r->found++] = e;
    r->n = vertex_disjoint(t, r->seeds, r->found, st->round, order, mark);
    return MMX_OK;
}

static mmx_status h_edge_round(mmx__rm *st, mmx__rm_round *r)
{
    const mmx__flip_topo *t = &hb(st)->topo;
    float *place = NULL; /* collapses: the merged vertices where the rules checked them */
    mmx_status s = MMX_OK;
    if (r->kind != MMX_CAVITY_EDGE_FLIP) s = TAKE(st, r->n, &r->sd);
    if (!s && r->kind == MMX_CAVITY_EDGE_COLLAPSE) {
        s = TAKE(st, 3 * (size_t)r->n, &place);
        if (!s) mmx__rm_collapse_places(st->cur->pos, t->adj->ev, r->seeds, r->keep, r->n, place);
    }
    if (!s)
        s = mmx__cavity_round_ranked(st->ctx, st->cur, t, r->kind, r->seeds, NULL, place, 0,
                                     r->n, st->round, &r->next, &r->c, r->sd);
    return s;
}

/* A split feature edge (a, b) becomes (a, m) and (m, b); the new vertices are no corners. */
static mmx_status h_split_features(mmx__rm *st, mmx__rm_round *r)
{
    const mmx__flip_topo *t = &hb(st)->topo;
    const mmx_index *ev = t->adj->ev;
    uint64_t *feat = NULL;
    unsigned char *pin = NULL;
    mmx_index grow = 0;
    for (mmx_index i = 0; i < r->n; i++)
        grow += r->sd[i].outcome == MMX_CAVITY_KEPT &&
                is_feature(st, ev[2 * (size_t)r->seeds[i]], ev[2 * (size_t)r->seeds[i] + 1]);
    mmx_status s = mmx__host_alloc(st->ctx, (size_t)(st->nfeat + grow) + 1, sizeof *feat,
                                   (void **)&feat);
    if (!s) s = mmx__host_alloc(st->ctx, (size_t)mmx_mesh_nverts(r->next) + 1, 1, (void **)&pin);
    if (s) {
        free(feat);
        return s;
    }
    mmx_index nf = 0;
    for (mmx_index i = 0; i < st->nfeat; i++) feat[nf++] = st->feat[i];
    for (mmx_index i = 0; i < r->n; i++) {
        const mmx_index a = ev[2 * (size_t)r->seeds[i]], b = ev[2 * (size_t)r->seeds[i] + 1];
        if (r->sd[i].outcome != MMX_CAVITY_KEPT || !is_feature(st, a, b)) continue;
        /* Found in the unchanged st->feat; replaced at the same place in the copy, which is
         * sorted again below. */
        const uint64_t k = key(a, b);
        const uint64_t *old = bsearch(&k, st->feat, (size_t)st->nfeat, sizeof k, u64_cmp);
        feat[old - st->feat] = key(a, r->sd[i].vertex);
        feat[nf++] = key(r->sd[i].vertex, b);
    }
    qsort(feat, (size_t)nf, sizeof *feat, u64_cmp);
    memset(pin, 0, (size_t)mmx_mesh_nverts(r->next));
    memcpy(pin, st->pin, (size_t)t->nverts);
    free(st->feat);
    free(st->pin);
    st->feat = feat, st->pin = pin, st->nfeat = nf;
    return MMX_OK;
}

/* The survivors keep their order: old vertex v becomes v minus the removed ones below it (each
 * kept seed removes its higher end b). */
static mmx_status h_collapse_renumber(mmx__rm *st, mmx__rm_round *r)
{
    const mmx__flip_topo *t = &hb(st)->topo;
    const mmx_index *ev = t->adj->ev;
    const float *pos = st->cur->pos;
    mmx_index *to = NULL;
    unsigned char *pin = NULL; /* the corner flags renumbered (read from the old ones) */
    mmx_status s = TAKE(st, t->nverts, &to);
    if (!s) s = mmx__host_alloc(st->ctx, (size_t)t->nverts + 1, 1, (void **)&pin);
    if (s) return s;
    memset(to, 0, ((size_t)t->nverts + 1) * sizeof *to);
    for (mmx_index i = 0; i < r->n; i++)
        if (r->sd[i].outcome == MMX_CAVITY_KEPT) to[ev[2 * (size_t)r->seeds[i] + 1]] = 1;
    mmx_index removed = 0;
    for (mmx_index v = 0; v < t->nverts; v++) {
        if (to[v]) { /* removed */
            removed++;
            to[v] = -1;
            continue;
        }
        to[v] = v - removed;
        pin[to[v]] = st->pin[v];
    }
    /* A removed end takes its survivor's number; a feature end it was keeps its position and
     * its features (a corner flag, edges now at the survivor). */
    for (mmx_index i = 0; i < r->n; i++) {
        if (r->sd[i].outcome != MMX_CAVITY_KEPT) continue;
        const mmx_index a = ev[2 * (size_t)r->seeds[i]], b = ev[2 * (size_t)r->seeds[i] + 1];
        to[b] = to[a];
        const mmx_index k = r->keep[i];
        if (k < 0) continue;
        memcpy(r->next->pos + 3 * (size_t)to[a], pos + 3 * (size_t)k, 3 * sizeof *pos);
        pin[to[a]] = st->pin[k];
    }
    free(st->pin);
    st->pin = pin;
    /* A collapsed feature edge becomes a point (dropped); the edges of its removed end now run
     * from the kept one. Sorted, each once. */
    mmx_index nf = 0;
    for (mmx_index i = 0; i < st->nfeat; i++) {
        const mmx_index a = (mmx_index)(st->feat[i] >> 32), b = (mmx_index)(uint32_t)st->feat[i];
        if (to[a] != to[b]) st->feat[nf++] = key(to[a], to[b]);
    }
    st->nfeat = sort_unique(st->feat, nf);
    return MMX_OK;
}

static mmx_status h_relax_targets(mmx__rm *st, mmx__rm_round *r)
{
    const mmx__flip_topo *t = &hb(st)->topo;
    const float *pos = st->cur->pos;
    unsigned char *fv = NULL;
    double *vn = NULL, *va = NULL;
    mmx_index *fdeg = NULL;
    mmx_status s = TAKE(st, t->nverts, &fv);
    if (!s) s = TAKE(st, 3 * (size_t)t->nverts, &vn);
    if (!s) s = TAKE(st, t->nverts, &va);
    if (!s) s = TAKE(st, t->nverts, &r->seeds);
    if (!s) s = TAKE(st, 3 * (size_t)t->nverts, &r->targets);
    if (!s) s = TAKE(st, t->nverts, &r->sd);
    if (!s) s = TAKE(st, t->nverts, &fdeg);
    if (s) return s;
    feature_verts(st, t, fv);
    mmx__rm_feature_degrees(st->feat, st->nfeat, t->nverts, fdeg);
    const mmx__rm_view rv = rm_view(st, fv, fdeg);
    const mmx__bvh_view surf = mmx__bvh_host_view(hb(st)->bvh);
    const mmx__slide_view sl = mmx__slide_host_view(hb(st)->slide);
    for (mmx_index v = 0; v < t->nverts; v++) mmx__rm_normal_area(&rv, v, vn + 3 * (size_t)v, &va[v]);
    for (mmx_index v = 0; v < t->nverts; v++) {
        double X[3];
        if (!mmx__rm_target(&rv, vn, va, &surf, &sl, v, X)) continue;
        float *to = r->targets + 3 * (size_t)r->n;
        for (int k = 0; k < 3; k++) to[k] = (float)X[k];
        if (memcmp(to, pos + 3 * (size_t)v, 3 * sizeof *to) == 0) continue;
        r->seeds[r->n++] = v;
    }
    return MMX_OK;
}

static mmx_status h_move_round(mmx__rm *st, mmx__rm_round *r)
{
    return mmx__relocate_round_pos(st->ctx, &hb(st)->topo, st->cur->pos, r->seeds, r->targets,
                                   r->n, st->round, MMX__RM_SLIVER, &r->c, r->sd);
}

static mmx_status h_conflicts(mmx__rm *st, mmx__rm_round *r)
{
    (void)st;
    mmx_index m = 0;
    for (mmx_index i = 0; i < r->n; i++) {
        if (r->sd[i].outcome != MMX_CAVITY_CONFLICT) continue;
        r->seeds[m] = r->seeds[i];
        memmove(r->targets + 3 * (size_t)m, r->targets + 3 * (size_t)i, 3 * sizeof *r->targets);
        m++;
    }
    r->n = m;
    return MMX_OK;
}

const mmx__rm_stages mmx__rm_host_stages = {
    h_topo, h_drop_topo, h_split_seeds, h_collapse_seeds, h_flip_seeds, h_edge_round,
    h_split_features, h_collapse_renumber, h_relax_targets, h_move_round, h_conflicts,
};

/* ---- set-up ---------------------------------------------------------------------------------- */

static mmx_status check_options(mmx_ctx *ctx, const mmx_remesh_options *o)
{
    if (!isfinite(o->target_length) || o->target_length < 0)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_remesh: the target length %g is not a positive "
                         "number (0 asks for the mean edge length)", o->target_length);
    if (o->iterations < 0 || o->iterations > MMX_REMESH_MAX_ITERATIONS)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_remesh: %d iterations: give 0 to %d",
                         o->iterations, MMX_REMESH_MAX_ITERATIONS);
    if (!isfinite(o->feature_angle) || o->feature_angle < 0 || o->feature_angle > 180)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_remesh: the feature angle %g is not in [0, 180] "
                         "degrees", o->feature_angle);
    return MMX_OK;
}

/* The tagged features of the input (mesh->tags: creases and corners of sharpness > 0): the
 * creases' keys and the corners' vertices, host arrays (freed by the caller; NULL when none). */
static mmx_status tagged(mmx_ctx *ctx, const mmx_mesh *mesh, uint64_t **creases, mmx_index *nc,
                         mmx_index **corners, mmx_index *nk)
{
    *creases = NULL, *corners = NULL, *nc = 0, *nk = 0;
    if (!mesh->tags) return MMX_OK;
    mmx_mesh_tags *tags = NULL;
    mmx_status s = mmx_mesh_tags_parse(ctx, mesh, &tags);
    if (!s) s = mmx__host_alloc(ctx, (size_t)tags->ncreases + 1, sizeof **creases, (void **)creases);
    if (!s) s = mmx__host_alloc(ctx, (size_t)tags->ncorners + 1, sizeof **corners, (void **)corners);
    for (mmx_index i = 0; !s && i < tags->ncreases; i++)
        if (tags->crease_sharpness[i] > 0)
            (*creases)[(*nc)++] = key(tags->crease_verts[2 * i], tags->crease_verts[2 * i + 1]);
    for (mmx_index i = 0; !s && i < tags->ncorners; i++)
        if (tags->corner_sharpness[i] > 0) (*corners)[(*nk)++] = tags->corner_verts[i];
    mmx_mesh_tags_free(tags);
    return s;
}

/* The set-up's measures of the input, the same on both backends. */
typedef struct measure {
    double length, area; /* sums of the edge lengths and the face areas (remesh_step.h) */
    mmx_index nedges;
} measure;

/* The input's feature edges (boundary, dihedral angle over the bound, tagged creases) and
 * tagged corners into st, and its measures, on the host. */
static mmx_status find_features(mmx__rm *st, const mmx_mesh *mesh, const mmx__flip_topo *t,
                                double cos_bound, measure *m)
{
    mmx_ctx *ctx = st->ctx;
    uint64_t *creases = NULL;
    mmx_index *corners = NULL, nc = 0, nk = 0;
    mmx_status s = tagged(ctx, mesh, &creases, &nc, &corners, &nk);
    if (!s) s = mmx__host_alloc(ctx, (size_t)t->nedges + (size_t)nc + 1, sizeof *st->feat,
                                (void **)&st->feat);
    if (!s) s = mmx__host_alloc(ctx, (size_t)t->nverts + 1, 1, (void **)&st->pin);
    if (!s) {
        memset(st->pin, 0, (size_t)t->nverts);
        const mmx__sc_view v = mmx__sc_host_view(t);
        const int by_angle = st->o->feature_angle < 180;
        mmx_index nf = 0;
        for (mmx_index e = 0; e < t->nedges; e++)
            if (mmx__rm_feature_edge(&v, mesh->pos, e, by_angle, cos_bound))
                st->feat[nf++] = key(t->adj->ev[2 * (size_t)e], t->adj->ev[2 * (size_t)e + 1]);
        for (mmx_index i = 0; i < nc; i++) st->feat[nf++] = creases[i];
        for (mmx_index i = 0; i < nk; i++) st->pin[corners[i]] = 1;
        st->nfeat = sort_unique(st->feat, nf);
        m->length = m->area = 0;
        m->nedges = t->nedges;
        for (mmx_index b = 0; b < mmx__rm_blocks(t->nedges); b++)
            m->length += mmx__rm_block_sum(&v.f, mesh->pos, 0, b);
        for (mmx_index b = 0; b < mmx__rm_blocks(t->nfaces); b++)
            m->area += mmx__rm_block_sum(&v.f, mesh->pos, 1, b);
    }
    free(creases);
    free(corners);
    return s;
}

static mmx_status not_finite(mmx_ctx *ctx, mmx_index v)
{
    return mmx__fail(ctx, MMX_ERR_MESH, "mmx_remesh: vertex %d has a coordinate that is not finite",
                     (int)v);
}

static mmx_status not_valid(mmx_ctx *ctx, const mmx_mesh_validation *vr)
{
    return mmx__fail(ctx, MMX_ERR_MESH, "mmx_remesh: the input cannot be remeshed: %s", vr->problem);
}

/* The target length from the measures and the options into st (lo2, hi2) and rep; refuses a
 * length whose square overflows or that would make more than 2^28 faces (about the surface's
 * area over an equilateral triangle of side L: refused before the splits try to make it).
 * *work: 1 when there is something to remesh (edges and a length). */
static mmx_status set_length(mmx__rm *st, const measure *m, mmx_remesh_report *rep, int *work)
{
    const double mean = m->nedges > 0 ? m->length / m->nedges : 0;
    const double L = st->o->target_length > 0 ? st->o->target_length : mean;
    rep->target_length = L;
    if (!isfinite(L * L))
        return mmx__fail(st->ctx, MMX_ERR_ARG, "mmx_remesh: the target length %g is too large "
                         "(its square overflows)", L);
    const double faces = m->area / (0.4330127018922193 * L * L);
    if (m->nedges > 0 && !(faces <= (double)(1 << 28)))
        return mmx__fail(st->ctx, MMX_ERR_OVERFLOW, "mmx_remesh: a target length of %g would "
                         "make about %.3g faces (more than 2^28)", L, faces);
    st->lo2 = (0.8 * L) * (0.8 * L);
    st->hi2 = (4.0 / 3.0 * L) * (4.0 / 3.0 * L);
    rep->feature_edges = st->nfeat;
    *work = m->nedges > 0 && L > 0;
    return MMX_OK;
}

static double cos_bound(const mmx_remesh_options *o)
{
    return cos(o->feature_angle * MMX__PI / 180.0);
}

/* The set-up on the host: the input's checks, its features, the target length, the BVH and the
 * working copy with its topology (st->cur, the host state's topo); rep gets the length and the
 * feature counts. */
static mmx_status setup(mmx__rm *st, const mmx_mesh *mesh, mmx_remesh_report *rep, int *work)
{
    mmx_ctx *ctx = st->ctx;
    host_be *h = hb(st);
    *work = 0;
    const mmx_index nv = mmx_mesh_nverts(mesh);
    for (mmx_index v = 0; v < nv; v++)
        for (int k = 0; k < 3; k++)
            if (!isfinite(mesh->pos[3 * (size_t)v + k])) return not_finite(ctx, v);
    mmx__flip_topo t;
    mmx_status s = mmx__flip_topo_build(ctx, mesh, "mmx_remesh", &t);
    mmx_mesh_validation vr;
    if (!s) s = mmx_mesh_validate(ctx, mesh, NULL, &vr);
    if (!s && !vr.valid) s = not_valid(ctx, &vr);
    measure m;
    if (!s) s = find_features(st, mesh, &t, cos_bound(st->o), &m);
    if (!s && st->o->slide_features)
        s = mmx__slide_open(ctx, mesh->pos, t.nverts, st->feat, st->nfeat, st->pin, &h->slide);
    if (!s) s = set_length(st, &m, rep, work);
    if (!s) st->expect = (mmx_mesh_expect){1, vr.stats.euler, 1, vr.stats.boundary_loops};
    unsigned char *fv = NULL;
    if (!s) s = mmx__host_alloc(ctx, (size_t)t.nverts + 1, 1, (void **)&fv);
    if (!s) feature_verts(st, &t, fv);
    for (mmx_index v = 0; !s && v < t.nverts; v++) rep->feature_verts += fv[v];
    free(fv);
    if (!s) s = mmx__bvh_build(ctx, mesh->pos, t.nverts, t.verts, t.nfaces, &h->bvh);
    /* The working copy: the faces and positions alone, in the reduced form. */
    if (!s) s = mmx_mesh_from_faces(ctx, t.nverts, t.nfaces, t.start, t.verts, mesh->pos, &st->cur);
    if (!s && t.nfaces > 0) s = mmx_mesh_reduce(ctx, st->cur);
    if (s) {
        mmx__flip_topo_free(&t);
        return s;
    }
    /* The working copy has the input's faces: its topology is t. */
    h->topo = t;
    st->have_topo = 1;
    st->adj = t.adj;
    return MMX_OK;
}

/* The set-up on CUDA, each step the host's on the device (remesh.cu): the same checks in the
 * same order, the same features, measures and BVH; the working copy and its topology stay on
 * the device. */
static mmx_status setup_cuda(mmx__rm *st, const mmx_mesh *mesh, mmx_remesh_report *rep, int *work)
{
    mmx_ctx *ctx = st->ctx;
    *work = 0;
    int64_t bad = -1;
    mmx_status s = mmx__first_beyond(ctx, mesh->pos, 3 * (int64_t)mmx_mesh_nverts(mesh), FLT_MAX, &bad);
    if (!s && bad >= 0) return not_finite(ctx, (mmx_index)(bad / 3));
    uint64_t *creases = NULL;
    mmx_index *corners = NULL, nc = 0, nk = 0;
    if (!s) s = tagged(ctx, mesh, &creases, &nc, &corners, &nk);
    const mmx__remesh_dev_in in = {mesh, creases, nc, corners, nk, st->o->feature_angle < 180,
                                   cos_bound(st->o), st->o->slide_features};
    mmx__remesh_dev_measure dm;
    if (!s) s = mmx__remesh_dev_open(st, &in, &dm);
    free(creases);
    free(corners);
    mmx_mesh_validation vr;
    if (!s) s = mmx_mesh_validate(ctx, st->cur, NULL, &vr);
    if (!s && !vr.valid) s = not_valid(ctx, &vr);
    const measure m = {dm.length, dm.area, dm.nedges};
    if (!s) s = set_length(st, &m, rep, work);
    if (!s) {
        st->expect = (mmx_mesh_expect){1, vr.stats.euler, 1, vr.stats.boundary_loops};
        rep->feature_verts = dm.feature_verts;
    }
    return s;
}

/* Frees what the set-up and the rounds left in st (but st->cur). */
static void teardown(mmx__rm *st)
{
    mmx__rm_release(st);
    if (st->cuda) {
        mmx__remesh_dev_close(st);
        mmx__dev_free(st->ctx, st->feat);
        mmx__dev_free(st->ctx, st->pin);
        return;
    }
    host_be *h = hb(st);
    if (st->have_topo) mmx__flip_topo_free(&h->topo);
    mmx__bvh_free(h->bvh);
    mmx__slide_free(h->slide);
    free(st->feat);
    free(st->pin);
}

mmx_status mmx_remesh(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_remesh_options *opts,
                      mmx_mesh **out, mmx_remesh_report *report)
{
    MMX__NEED_CTX(ctx);
    if (!mesh || !mesh->M || !out)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_remesh: NULL argument");
    *out = NULL;
    const mmx_remesh_options o = opts ? *opts : mmx_remesh_defaults();
    mmx_status s = check_options(ctx, &o);
    if (s) return s;
    const int dev = mmx_ctx_backend(ctx) != MMX_BACKEND_HOST;
    if (dev && mesh->space != MMX_SPACE_DEVICE)
        return mmx__fail(ctx, MMX_ERR_SPACE, "mmx_remesh: on CUDA the mesh must live on the device");
    if (!dev && mesh->space != MMX_SPACE_HOST)
        return mmx__fail(ctx, MMX_ERR_SPACE, "mmx_remesh: the mesh lives on the device");
    if (!mesh->pos) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_remesh: the mesh has no positions");
    if (o.patches) {
        s = mmx__patch_set_matches(ctx, o.patches, mesh, "mmx_remesh (opts->patches)");
        if (s) return s;
    }
    mmx_timer *timer = NULL, *iter_timer = NULL, *step_timer = NULL;
    s = mmx_timer_create(ctx, &timer);
    if (!s) s = mmx_timer_create(ctx, &iter_timer);
    if (!s) s = mmx_timer_create(ctx, &step_timer);
    if (!s) s = mmx_timer_start(timer);
    mmx_remesh_report rep;
    memset(&rep, 0, sizeof rep);
    mmx__rm st;
    memset(&st, 0, sizeof st);
    host_be h;
    memset(&h, 0, sizeof h);
    st.ctx = ctx;
    st.cuda = dev;
    st.o = &o;
    st.be = dev ? NULL : &h;
    const mmx__rm_stages *B = dev ? &mmx__rm_cuda_stages : &mmx__rm_host_stages;
    mmx_status (*const step[4])(mmx__rm *, const mmx__rm_stages *, mmx_remesh_iteration *) = {
        split_step, collapse_step, flip_step, relax_step};
    int work = 0;
    if (!s) s = dev ? setup_cuda(&st, mesh, &rep, &work) : setup(&st, mesh, &rep, &work);
    for (int i = 0; work && !s && i < o.iterations; i++) {
        mmx_remesh_iteration *it = &rep.per_iteration[i];
        double *step_ms[4] = {&it->split_ms, &it->collapse_ms, &it->flip_ms, &it->relax_ms};
        s = mmx_timer_start(iter_timer);
        for (int k = 0; k < 4 && !s; k++) {
            s = mmx_timer_start(step_timer);
            if (!s) s = step[k](&st, B, it);
            if (!s) s = mmx_timer_stop(step_timer, step_ms[k]);
        }
        if (!s) s = mmx_timer_stop(iter_timer, &it->ms);
        it->nverts = mmx_mesh_nverts(st.cur);
        it->nfaces = mmx_mesh_nfaces(st.cur);
        rep.iterations = i + 1;
        if (!s) mmx__progress(ctx, "remesh iteration", i + 1, o.iterations);
    }
    if (!s) s = mmx_timer_stop(timer, &rep.ms);
    teardown(&st);
    mmx_timer_free(timer);
    mmx_timer_free(iter_timer);
    mmx_timer_free(step_timer);
    if (s) {
        mmx_mesh_free(st.cur);
        return s;
    }
    *out = st.cur;
    if (report) *report = rep;
    return MMX_OK;
}
