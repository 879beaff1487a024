/* The tag entry (subdiv_internal.h): what a mesh's tags decide for subdivision, made once from
 * its tags and topology and kept in the mesh's cache, so that a second call on the same mesh
 * parses nothing, reads nothing back and copies nothing up; and the creases that the fused
 * Catmull-Clark levels leave, in closed form from the entry, so that a call need not read the
 * last level's edges back to list them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "subdiv_internal.h"
#include "mesh/mesh_internal.h"

void mmx__tag_entry_free(void *entry)
{
    mmx__tag_entry *e = entry;
    if (!e) return;
    const mmx_space sp = mmx_ctx_space(e->ctx);
    if (e->esharp) mmx_mem_free(e->ctx, sp, e->esharp);
    if (e->vsharp) mmx_mem_free(e->ctx, sp, e->vsharp);
    mmx_mesh_tags_free(e->tags);
    free(e->text);
    free(e->cr_edge), free(e->cr_ends), free(e->cr_sides), free(e->cr_goff), free(e->cr_sharp);
    free(e->cr_A), free(e->cr_B), free(e->cr_m);
    mmx__holes_memo_free(e->holes);
    free(e);
}

/* Loop's offsets of the creased edges on a triangle mesh (E's list made): per face, its three
 * edges ranked (the highest and the middle one counted for A and B), and at each end of a
 * creased edge whether the face's other edge there is lower. Reads the corners' edges
 * (adj->fe) on the host. */
static mmx_status entry_loop(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_adjacency *adj,
                             mmx__tag_entry *E)
{
    const size_t nf = (size_t)mesh->M->ncols, ne = (size_t)adj->nedges, n = (size_t)E->ncreased + 1;
    mmx_index *fe = NULL, *at = NULL, *hi = NULL, *mid = NULL;
    mmx_status s = mmx__host_alloc(ctx, 3 * nf + 1, sizeof *fe, (void **)&fe);
    if (!s) s = mmx__host_alloc(ctx, ne + 1, sizeof *at, (void **)&at);
    if (!s) s = mmx__host_alloc(ctx, ne + 1, sizeof *hi, (void **)&hi);
    if (!s) s = mmx__host_alloc(ctx, ne + 1, sizeof *mid, (void **)&mid);
    if (!s) s = mmx__host_alloc(ctx, n, sizeof *E->cr_A, (void **)&E->cr_A);
    if (!s) s = mmx__host_alloc(ctx, n, sizeof *E->cr_B, (void **)&E->cr_B);
    if (!s) s = mmx__host_alloc(ctx, 2 * n, sizeof *E->cr_m, (void **)&E->cr_m);
    if (!s && nf) s = mmx_mem_copy(ctx, fe, MMX_SPACE_HOST, adj->fe, adj->space, 3 * nf * sizeof *fe);
    if (s) goto done;
    for (size_t e = 0; e < ne; e++) at[e] = -1, hi[e] = mid[e] = 0;
    for (mmx_index k = 0; k < E->ncreased; k++) at[E->cr_edge[k]] = k, E->cr_m[2 * k] = E->cr_m[2 * k + 1] = 0;
    for (size_t f = 0; f < nf; f++) {
        const mmx_index *c = fe + 3 * f, e[3] = {c[0] >> 1, c[1] >> 1, c[2] >> 1};
        const int top = e[0] > e[1] ? (e[0] > e[2] ? 0 : 2) : (e[1] > e[2] ? 1 : 2);
        const int low = e[0] < e[1] ? (e[0] < e[2] ? 0 : 2) : (e[1] < e[2] ? 1 : 2);
        hi[e[top]]++, mid[e[3 - top - low]]++;
        for (int q = 0; q < 3; q++) {
            const mmx_index k = at[e[q]];
            if (k < 0) continue;
            /* Corner q runs e[q] from its vertex to the next: the other edge at the start is
             * the previous corner's, at the end the next one's; bit 0 of fe says whether the
             * start is the higher end. */
            const int from_hi = c[q] & 1;
            E->cr_m[2 * k + from_hi] += e[(q + 2) % 3] < e[q];
            E->cr_m[2 * k + !from_hi] += e[(q + 1) % 3] < e[q];
        }
    }
    int64_t A = 0, B = 0;
    for (size_t e = 0; e < ne; e++) {
        if (at[e] >= 0) E->cr_A[at[e]] = A, E->cr_B[at[e]] = B;
        A += hi[e], B += mid[e];
    }
done:
    free(fe), free(at), free(hi), free(mid);
    return s;
}

/* The creased edges and their sharpness: esharp (the largest where an edge is named twice)
 * into the context's space, and the host list of the creased edges with their fused
 * Catmull-Clark (and, on triangles, Loop) offsets. Reads the adjacency's edges on the host
 * (waits on CUDA: once per mesh and tags). */
static mmx_status entry_creases(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_adjacency *adj,
                                mmx__tag_entry *E)
{
    /* Loop's closed-form offsets need every face a triangle in 3f + s corner order. */
    const int tris = adj->face_order == 3 && (int64_t)mesh->M->nnz == 3 * (int64_t)mesh->M->ncols;
    const mmx_mesh_tags *t = E->tags;
    int any = 0;
    for (mmx_index k = 0; k < t->ncreases; k++) any |= t->crease_sharpness[k] > 0.0f;
    if (!any) return MMX_OK;
    const size_t nv = (size_t)adj->nverts, ne = (size_t)adj->nedges;
    mmx_index *ptr = NULL, *ev = NULL, *sides = NULL;
    float *h = NULL;
    mmx_status s = mmx__host_alloc(ctx, nv + 1, sizeof *ptr, (void **)&ptr);
    if (!s) s = mmx__host_alloc(ctx, 2 * ne + 1, sizeof *ev, (void **)&ev);
    if (!s) s = mmx__host_alloc(ctx, ne + 1, sizeof *sides, (void **)&sides);
    if (!s) s = mmx__host_alloc(ctx, ne + 1, sizeof *h, (void **)&h);
    if (!s) s = mmx_mem_copy(ctx, ptr, MMX_SPACE_HOST, adj->edge_ptr, adj->space, (nv + 1) * sizeof *ptr);
    if (!s && ne) s = mmx_mem_copy(ctx, ev, MMX_SPACE_HOST, adj->ev, adj->space, 2 * ne * sizeof *ev);
    if (!s && ne) s = mmx_mem_copy(ctx, sides, MMX_SPACE_HOST, adj->sides, adj->space, ne * sizeof *sides);
    for (size_t e = 0; !s && e < ne; e++) h[e] = 0.0f;
    for (mmx_index k = 0; !s && k < t->ncreases; k++) {
        const mmx_index a = t->crease_verts[2 * k], b = t->crease_verts[2 * k + 1];
        const mmx_index lo = a < b ? a : b, hi = a < b ? b : a;
        const mmx_index e = mmx__edge_find(ptr, ev, a, b);
        /* mmx_mesh_tags_parse checked that every crease is an edge of the mesh. */
        if (e < ptr[hi + 1] && ev[2 * e] == lo && t->crease_sharpness[k] > h[e]) h[e] = t->crease_sharpness[k];
        if (t->crease_sharpness[k] > E->emax) E->emax = t->crease_sharpness[k];
    }
    mmx_index n = 0;
    for (size_t e = 0; !s && e < ne; e++) n += h[e] > 0.0f;
    const size_t m = (size_t)n + 1;
    if (!s) s = mmx__host_alloc(ctx, m, sizeof *E->cr_edge, (void **)&E->cr_edge);
    if (!s) s = mmx__host_alloc(ctx, 2 * m, sizeof *E->cr_ends, (void **)&E->cr_ends);
    if (!s) s = mmx__host_alloc(ctx, m, sizeof *E->cr_sides, (void **)&E->cr_sides);
    if (!s) s = mmx__host_alloc(ctx, m, sizeof *E->cr_goff, (void **)&E->cr_goff);
    if (!s) s = mmx__host_alloc(ctx, m, sizeof *E->cr_sharp, (void **)&E->cr_sharp);
    int64_t goff = 0; /* the faces of the edges before e: the fused level's offsets */
    for (size_t e = 0; !s && e < ne; e++) {
        if (h[e] > 0.0f) {
            const mmx_index k = E->ncreased++;
            E->cr_edge[k] = (mmx_index)e, E->cr_sides[k] = sides[e], E->cr_goff[k] = goff;
            E->cr_ends[2 * k] = ev[2 * e], E->cr_ends[2 * k + 1] = ev[2 * e + 1];
            E->cr_sharp[k] = h[e];
        }
        goff += sides[e];
    }
    if (!s && tris) s = entry_loop(ctx, mesh, adj, E);
    const mmx_space sp = mmx_ctx_space(ctx);
    if (!s) s = mmx_mem_alloc(ctx, sp, (ne ? ne : 1) * sizeof *h, (void **)&E->esharp);
    if (!s && ne) s = mmx_mem_copy(ctx, E->esharp, sp, h, MMX_SPACE_HOST, ne * sizeof *h);
    if (!s) E->ne = (mmx_index)ne;
    /* The copy above is queued from a host array freed here: wait for it (CUDA; once per mesh
     * and tags, where the reads above waited already). */
    if (!s && sp != MMX_SPACE_HOST) s = mmx_ctx_sync(ctx);
    free(ptr), free(ev), free(sides), free(h);
    return s;
}

/* Each vertex's corner sharpness (the largest where a vertex is named twice), in the context's
 * space. */
static mmx_status entry_corners(mmx_ctx *ctx, mmx_index nv, mmx__tag_entry *E)
{
    const mmx_mesh_tags *t = E->tags;
    if (t->ncorners <= 0) return MMX_OK;
    float *h = NULL;
    const mmx_space sp = mmx_ctx_space(ctx);
    mmx_status s = mmx__host_alloc(ctx, (size_t)nv + 1, sizeof *h, (void **)&h);
    if (s) return s;
    for (mmx_index v = 0; v < nv; v++) h[v] = 0.0f;
    for (mmx_index k = 0; k < t->ncorners; k++)
        if (t->corner_sharpness[k] > h[t->corner_verts[k]]) h[t->corner_verts[k]] = t->corner_sharpness[k];
    s = mmx_mem_alloc(ctx, sp, ((size_t)nv + 1) * sizeof *h, (void **)&E->vsharp);
    if (!s && nv) s = mmx_mem_copy(ctx, E->vsharp, sp, h, MMX_SPACE_HOST, (size_t)nv * sizeof *h);
    if (!s) E->nv = nv;
    if (!s && sp != MMX_SPACE_HOST) s = mmx_ctx_sync(ctx); /* h is freed next */
    free(h);
    return s;
}

static mmx_status entry_make(mmx_ctx *ctx, const char *who, const mmx_mesh *mesh,
                             const mmx_adjacency *adj, mmx__tag_entry **out)
{
    *out = NULL;
    mmx__tag_entry *E = calloc(1, sizeof *E);
    const char *text = mesh->tags ? mesh->tags : "";
    if (E) E->text = malloc(strlen(text) + 1);
    if (!E || !E->text) {
        free(E);
        return mmx__fail(ctx, MMX_ERR_NOMEM, "%s: out of host memory for the tags", who);
    }
    strcpy(E->text, text);
    E->ctx = ctx;
    E->holes = mmx__holes_memo_new();
    mmx_status s = E->holes ? mmx_mesh_tags_parse(ctx, mesh, &E->tags)
                            : mmx__fail(ctx, MMX_ERR_NOMEM, "%s: out of host memory for the tags", who);
    if (s) {
        char why[MMX__ERRLEN];
        snprintf(why, sizeof why, "%s", mmx_ctx_error(ctx));
        s = mmx__fail(ctx, s, "%s: the mesh's tags: %s", who, why);
    }
    if (!s) s = entry_creases(ctx, mesh, adj, E);
    if (!s) s = entry_corners(ctx, mesh->M->nrows, E);
    if (s) {
        mmx__tag_entry_free(E);
        return s;
    }
    *out = E;
    return MMX_OK;
}

static size_t entry_bytes(const mmx__tag_entry *E)
{
    const size_t loop = E->cr_A ? 2 * sizeof(int64_t) + 2 * sizeof(mmx_index) : 0;
    return (size_t)E->ne * sizeof(float) + (size_t)E->nv * sizeof(float) +
           (size_t)E->ncreased * (4 * sizeof(mmx_index) + sizeof(int64_t) + sizeof(float) + loop);
}

mmx_status mmx__tag_entry_get(mmx_ctx *ctx, const char *who, const mmx_mesh *mesh,
                              const mmx_adjacency *adj, const mmx__tag_entry **entry,
                              mmx__tag_entry **own)
{
    *own = NULL;
    const char *text = mesh->tags ? mesh->tags : "";
    const mmx__tag_entry *kept = mmx__mesh_cache_get(ctx, mesh, MMX__CACHE_TAGS);
    /* A program may write mesh->tags itself (mesh.h): the entry serves the text it was made
     * from only. */
    if (kept && strcmp(kept->text, text) == 0) {
        *entry = kept;
        return MMX_OK;
    }
    mmx__tag_entry *E = NULL;
    mmx_status s = entry_make(ctx, who, mesh, adj, &E);
    if (s) return s;
    if (kept) mmx__mesh_cache_drop(mesh, MMX__CACHE_TAGS);
    if (!mmx__mesh_cache_put(ctx, mesh, MMX__CACHE_TAGS, E, mmx__tag_entry_free, entry_bytes(E))) *own = E;
    *entry = E;
    return MMX_OK;
}

int mmx__tag_creases_closed_ok(const mmx__tag_entry *entry, mmx_scheme scheme)
{
    return entry && (scheme == MMX_SCHEME_CATMULL_CLARK || (scheme == MMX_SCHEME_LOOP && entry->cr_A));
}

/* One crease half being followed down the levels. */
typedef struct half {
    int64_t edge, goff, A, B; /* its number and group offset (Catmull-Clark goff; Loop A, B) */
    mmx_index lo, hi;         /* its ends, lower first */
    mmx_index sides, m_lo;    /* Catmull-Clark: its faces; Loop: m at its lower end (at the
                                 higher end, an edge point from the first level on, it is 0) */
    mmx_index m_hi;           /* Loop, the input level only: m at the higher end */
    float sharp;
} half;

mmx_status mmx__tag_creases_closed(mmx_ctx *ctx, const mmx__tag_entry *entry, mmx_scheme scheme,
                                   int levels, mmx_index nv, mmx_index nf, mmx_index ne,
                                   mmx_index nnz, mmx_mesh_tags *t)
{
    const int loop = scheme == MMX_SCHEME_LOOP;
    /* The creases still sharp at the last level: uniform decay, the same float steps as the
     * passes (rules.h), so the same bytes. */
    int64_t halves = 0;
    const int64_t per = (int64_t)1 << levels;
    for (mmx_index k = 0; k < entry->ncreased; k++) {
        float x = entry->cr_sharp[k];
        for (int l = 0; l < levels; l++) x = mmx__rule_edge_child_sharpness(x, 0, 0.0f, 0);
        if (x > 0.0f) halves += per;
    }
    if (!halves) return MMX_OK;
    if (halves > MMX_INDEX_MAX)
        return mmx__fail(ctx, MMX_ERR_OVERFLOW, "subdivision: %lld crease halves at level %d",
                         (long long)halves, levels);
    half *H = NULL;
    mmx_status s = mmx__host_alloc(ctx, (size_t)halves, sizeof *H, (void **)&H);
    size_t cur = 0;
    for (mmx_index k = 0; !s && k < entry->ncreased; k++) {
        float x = entry->cr_sharp[k];
        for (int l = 0; l < levels; l++) x = mmx__rule_edge_child_sharpness(x, 0, 0.0f, 0);
        if (!(x > 0.0f)) continue;
        half *h = &H[cur++];
        h->edge = entry->cr_edge[k], h->goff = entry->cr_goff[k], h->sides = entry->cr_sides[k];
        h->lo = entry->cr_ends[2 * k], h->hi = entry->cr_ends[2 * k + 1];
        h->A = loop ? entry->cr_A[k] : 0, h->B = loop ? entry->cr_B[k] : 0;
        h->m_lo = loop ? entry->cr_m[2 * k] : 0, h->m_hi = loop ? entry->cr_m[2 * k + 1] : 0;
        h->sharp = entry->cr_sharp[k];
    }
    /* Level by level, each half of edge x (ends a < b, group at 2x + goff) becomes the child
     * edges 2x + goff + j, j = 0 at a and 1 at b, with ends (a or b, x's point). Their group
     * offsets (fused_level.h's counts): Catmull-Clark, the faces of the child edges before
     * them, 4 goff + j sides; Loop, goff = 2A + B, where A and B count the faces whose highest
     * and middle edge come before: each face's four children have their highest and middle
     * edges in the groups of its highest edge (three) and middle edge (one), so both become
     * 3A + B at the group's start, and the half at a adds to B the faces where it is the
     * middle edge: those whose other edge at a is lower (m at a; an edge point's other edges
     * are all higher, so m is 0 there). Numbers grow with (x, j): the list stays in edge
     * order. */
    int64_t v = nv, f = nf, e = ne, c = nnz;
    for (int l = 0; !s && l < levels; l++) {
        const int64_t point = v + (loop ? 0 : f); /* edge x's point is vertex point + x */
        /* From the back, so that the children of item i (2i, 2i + 1) overwrite only items
         * already expanded. */
        for (size_t i = cur; i-- > 0;) {
            const half p = H[i];
            const float cs = mmx__rule_edge_child_sharpness(p.sharp, 0, 0.0f, 0);
            const int64_t goff = loop ? 2 * p.A + p.B : p.goff, first = 2 * p.edge + goff;
            for (int j = 1; j >= 0; j--) {
                half *ch = &H[2 * i + (size_t)j];
                ch->edge = first + j;
                ch->lo = j ? p.hi : p.lo, ch->hi = (mmx_index)(point + p.edge);
                ch->sides = p.sides;
                ch->goff = 4 * p.goff + (int64_t)j * p.sides;
                ch->A = 3 * p.A + p.B;
                ch->B = ch->A + (j ? p.m_lo : 0);
                ch->m_lo = j ? p.m_hi : p.m_lo, ch->m_hi = 0;
                ch->sharp = cs;
            }
        }
        cur *= 2;
        int64_t v2, f2, e2, c2;
        mmx_subdiv_predict(scheme, v, f, e, c, 1, &v2, &f2, &e2, &c2);
        v = v2, f = f2, e = e2, c = c2;
    }
    if (!s) s = mmx__host_alloc(ctx, cur, sizeof *t->crease_sharpness, (void **)&t->crease_sharpness);
    if (!s) s = mmx__host_alloc(ctx, 2 * cur, sizeof *t->crease_verts, (void **)&t->crease_verts);
    for (size_t i = 0; !s && i < cur; i++) {
        t->crease_verts[2 * i] = H[i].lo, t->crease_verts[2 * i + 1] = H[i].hi;
        t->crease_sharpness[i] = H[i].sharp;
    }
    if (!s) t->ncreases = (mmx_index)cur;
    free(H);
    return s;
}
