/* Creases on the algebraic path (the reference): each level's edge sharpness and the weight
 * tables of its rules (rules.h), computed on the host by plain loops over the level's
 * adjacency, as the readable statement the fused path is held to. A level's crease sum is a
 * gather over E with a map by entry (E's entries numbered in the view ops->E_num): entry q of
 * column v selects its neighbour when the edge is in the crease set of v's rule.
 *
 * The child's edge sharpness is read off the child's own adjacency: a child edge whose higher
 * end is the point of parent edge e and whose lower end is an old vertex x is the half of e at
 * x, and gets e's child sharpness at x (uniform, or Chaikin's with x's semi-sharp edges); every
 * other child edge lies inside a parent face and is smooth. */
#include <stdlib.h>
#include <string.h>
#include "subdiv_internal.h"
#include "mesh/mesh_internal.h"

void mmx__crease_level_free(mmx__crease_level *L)
{
    free(L->es);
    free(L->semi_sum);
    free(L->semi_n);
    memset(L, 0, sizeof *L);
}

/* The adjacency's arrays the loops read, on the host: the adjacency's own (host context) or
 * copies (CUDA: a wait). `own` says whether they are copies to free. */
typedef struct adj_host {
    mmx_index nv, ne, nnz;
    mmx_index *colptr, *rowidx, *edge_ptr, *ev, *sides;
    unsigned char *twisted; /* per edge, when computed: two faces that run it the same way */
    int own;
} adj_host;

static void adj_host_free(adj_host *h)
{
    free(h->twisted);
    if (h->own) {
        free(h->colptr);
        free(h->rowidx);
        free(h->edge_ptr);
        free(h->ev);
        free(h->sides);
    }
    memset(h, 0, sizeof *h);
}

static mmx_status adj_host_get(mmx_ctx *ctx, const mmx_adjacency *adj, adj_host *h)
{
    memset(h, 0, sizeof *h);
    const mmx_csc *E = adj->E;
    h->nv = adj->nverts, h->ne = adj->nedges, h->nnz = E->nnz;
    if (adj->space == MMX_SPACE_HOST) {
        h->colptr = E->colptr, h->rowidx = E->rowidx, h->edge_ptr = adj->edge_ptr;
        h->ev = adj->ev, h->sides = adj->sides;
        return MMX_OK;
    }
    h->own = 1;
    const size_t ix = sizeof(mmx_index), nv = (size_t)h->nv, ne = (size_t)h->ne;
    const struct { mmx_index **to; const mmx_index *from; size_t n; } part[] = {
        {&h->colptr, E->colptr, nv + 1}, {&h->rowidx, E->rowidx, (size_t)h->nnz},
        {&h->edge_ptr, adj->edge_ptr, nv + 1}, {&h->ev, adj->ev, 2 * ne}, {&h->sides, adj->sides, ne},
    };
    mmx_status s = MMX_OK;
    for (size_t k = 0; !s && k < sizeof part / sizeof part[0]; k++) {
        s = mmx__host_alloc(ctx, part[k].n ? part[k].n : 1, ix, (void **)part[k].to);
        if (!s && part[k].n)
            s = mmx_mem_copy(ctx, *part[k].to, MMX_SPACE_HOST, part[k].from, adj->space, part[k].n * ix);
    }
    if (s) adj_host_free(h);
    return s;
}

/* The number of edge {a, b} (an edge of the level). */
static mmx_index edge_of(const adj_host *h, mmx_index a, mmx_index b)
{
    return mmx__edge_find(h->edge_ptr, h->ev, a, b);
}

/* For each edge, how many of its faces are triangles (host array, *tris): the corners of each
 * triangle of M (in the context's space) counted on their edges (adj->fe). */
static mmx_status edge_triangles(mmx_ctx *ctx, const mmx_csc *M, const mmx_adjacency *adj,
                                 unsigned char **tris)
{
    const mmx_mesh view = {(mmx_csc *)M, NULL, M->space, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    const mmx_mesh *h = NULL;
    mmx_index *fe = NULL;
    const size_t nnz = (size_t)M->nnz;
    mmx_status s = mmx__host_alloc(ctx, adj->nedges ? (size_t)adj->nedges : 1, 1, (void **)tris);
    if (!s) s = mmx__host_alloc(ctx, nnz ? nnz : 1, sizeof *fe, (void **)&fe);
    if (!s && nnz) s = mmx_mem_copy(ctx, fe, MMX_SPACE_HOST, adj->fe, adj->space, nnz * sizeof *fe);
    if (!s) s = mmx__mesh_host_view(ctx, &view, &h);
    if (!s) {
        memset(*tris, 0, (size_t)adj->nedges);
        const mmx_csc *H = h->M;
        for (mmx_index k = 0; k < H->ncols; k++) {
            const int64_t a = H->order ? (int64_t)H->order * k : H->colptr[k];
            const int64_t n = H->order ? H->order : H->colptr[k + 1] - a;
            if (n == 3)
                for (int64_t q = a; q < a + 3; q++) (*tris)[fe[q] >> 1]++;
        }
        mmx__mesh_host_release(&view, h);
    }
    free(fe);
    if (s) free(*tris), *tris = NULL;
    return s;
}

/* Edge e's sharpness as the rules read it: infinite on a boundary or with three faces or more
 * (OpenSubdiv's non-manifold edges), else its tag's. */
static float sharpness(const mmx__crease_level *L, const adj_host *h, mmx_index e)
{
    return mmx__rule_edge_sharpness(L->es, e, h->sides[e] != 2 || (h->twisted && h->twisted[e]));
}

/* h->twisted: the edges whose two faces run them the same way (the direction bits of their
 * corners, adj->fe, agree), which OpenSubdiv takes as non-manifold edges. */
static mmx_status twisted_edges(mmx_ctx *ctx, const mmx_adjacency *adj, mmx_index nnz, adj_host *h)
{
    mmx_index *fe = NULL;
    unsigned char *up = NULL;
    const size_t ne = (size_t)h->ne;
    mmx_status s = mmx__host_alloc(ctx, (size_t)nnz + 1, sizeof *fe, (void **)&fe);
    if (!s) s = mmx__host_alloc(ctx, ne + 1, 1, (void **)&up);
    if (!s) s = mmx__host_alloc(ctx, ne + 1, 1, (void **)&h->twisted);
    if (!s && nnz) s = mmx_mem_copy(ctx, fe, MMX_SPACE_HOST, adj->fe, adj->space, (size_t)nnz * sizeof *fe);
    if (!s) {
        memset(up, 0, ne), memset(h->twisted, 0, ne);
        /* up[e]: how many of e's corners run it from its lower end (0, 1 or 2 for two faces). */
        for (mmx_index q = 0; q < nnz; q++) up[fe[q] >> 1] += (fe[q] & 1) == 0;
        for (size_t e = 0; e < ne; e++) h->twisted[e] = h->sides[e] == 2 && up[e] != 1;
    }
    free(fe), free(up);
    return s;
}

mmx_status mmx__crease_level_first(mmx_ctx *ctx, const mmx__subdiv_sharp *sharp,
                                   const mmx_adjacency *adj, mmx__crease_level *L)
{
    memset(L, 0, sizeof *L);
    const size_t ne = (size_t)adj->nedges;
    L->nv = adj->nverts, L->nf = adj->nfaces, L->ne = adj->nedges;
    if (!sharp->esharp) return MMX_OK; /* no creases: the boundary alone is sharp */
    mmx_status s = mmx__host_alloc(ctx, ne ? ne : 1, sizeof *L->es, (void **)&L->es);
    if (!s && ne)
        s = mmx_mem_copy(ctx, L->es, MMX_SPACE_HOST, sharp->esharp, mmx_ctx_space(ctx),
                         ne * sizeof *L->es);
    if (s) mmx__crease_level_free(L);
    return s;
}

mmx_status mmx__crease_level_next(mmx_ctx *ctx, mmx_scheme scheme, int chaikin,
                                  const mmx__crease_level *P, const mmx_adjacency *adj,
                                  mmx__crease_level *L)
{
    memset(L, 0, sizeof *L);
    L->nv = adj->nverts, L->nf = adj->nfaces, L->ne = adj->nedges;
    if (!P->es) return MMX_OK;
    adj_host h;
    mmx_status s = adj_host_get(ctx, adj, &h);
    if (s) return s;
    const mmx_index base = P->nv + (mmx__scheme_quads(scheme) ? P->nf : 0);
    s = mmx__host_alloc(ctx, h.ne ? (size_t)h.ne : 1, sizeof *L->es, (void **)&L->es);
    for (mmx_index c = 0; !s && c < h.ne; c++) {
        const mmx_index x = h.ev[2 * c], y = h.ev[2 * c + 1];
        L->es[c] = 0.0f;
        if (x < P->nv && y >= base && y - base < P->ne)
            L->es[c] = mmx__rule_edge_child_sharpness(P->es[y - base], chaikin, P->semi_sum[x],
                                                      P->semi_n[x]);
    }
    adj_host_free(&h);
    if (s) mmx__crease_level_free(L);
    return s;
}

/* The crease tables of one level into ops (their arrays allocated in the context's space):
 * per vertex self, ring and crease (rules.h's vertex rule, from its edges' sharpness now and
 * in the child), per edge ends and faces (the edge rule with its halves' child sharpness), and
 * per entry of E the selector of the crease sum, with E_num, E numbered entry by entry. The
 * level's Chaikin aggregates stay in L for the child's sharpness. */
mmx_status mmx__crease_tables(mmx_ctx *ctx, mmx__subdiv_ops *ops, mmx__crease_level *L)
{
    const mmx_adjacency *adj = ops->adj;
    const mmx__subdiv_sharp *sh = &ops->sharp;
    adj_host h;
    mmx_status s = adj_host_get(ctx, adj, &h);
    if (s) return s;
    const size_t nv = (size_t)h.nv, ne = (size_t)h.ne, nnz = (size_t)h.nnz;
    /* This level's aggregates replace any a level before left (a level without creases of
     * its own, as with edges of three faces alone, keeps the same L). */
    free(L->semi_sum), free(L->semi_n);
    L->semi_sum = NULL, L->semi_n = NULL;
    /* Refinement keeps an orientation: only an input with twisted edges has them at a level. */
    if (sh->twisted) s = twisted_edges(ctx, adj, ops->M->nnz, &h);
    if (s) {
        adj_host_free(&h);
        return s;
    }
    float *self = NULL, *ring = NULL, *crease = NULL, *ends = NULL, *faces = NULL, *sel = NULL;
    mmx_index *num = NULL, *valence = NULL;
    unsigned char *bnd = NULL;
    float *vsharp = NULL;
    const struct { void **at; size_t n, size; } part[] = {
        {(void **)&self, nv, sizeof(float)}, {(void **)&ring, nv, sizeof(float)},
        {(void **)&crease, nv, sizeof(float)}, {(void **)&ends, ne, sizeof(float)},
        {(void **)&faces, ne, sizeof(float)}, {(void **)&sel, nnz, sizeof(float)},
        {(void **)&num, nnz, sizeof(mmx_index)}, {(void **)&valence, nv, sizeof(mmx_index)},
        {(void **)&bnd, nv, 1}, {(void **)&L->semi_sum, nv, sizeof(float)},
        {(void **)&L->semi_n, nv, sizeof(int)}, {(void **)&vsharp, sh->vsharp ? (size_t)sh->nv0 : 0, sizeof(float)},
    };
    for (size_t k = 0; !s && k < sizeof part / sizeof part[0]; k++)
        s = mmx__host_alloc(ctx, part[k].n ? part[k].n : 1, part[k].size, part[k].at);
    if (!s) s = mmx_mem_copy(ctx, valence, MMX_SPACE_HOST, adj->valence, adj->space, nv * sizeof *valence);
    if (!s) s = mmx_mem_copy(ctx, bnd, MMX_SPACE_HOST, adj->boundary, adj->space, nv);
    if (!s && sh->vsharp)
        s = mmx_mem_copy(ctx, vsharp, MMX_SPACE_HOST, sh->vsharp, mmx_ctx_space(ctx),
                         (size_t)sh->nv0 * sizeof *vsharp);
    /* Chaikin's aggregates: the semi-sharp edges at each vertex (0 < s < 10). */
    for (size_t v = 0; !s && v < nv; v++) L->semi_sum[v] = 0.0f, L->semi_n[v] = 0;
    for (mmx_index e = 0; !s && e < h.ne; e++) {
        const float x = sharpness(L, &h, e);
        if (x > 0.0f && x < MMX__SHARP_INF)
            for (int t = 0; t < 2; t++) L->semi_sum[h.ev[2 * e + t]] += x, L->semi_n[h.ev[2 * e + t]]++;
    }
    const int chaikin = sh->chaikin;
    for (mmx_index v = 0; !s && v < h.nv; v++) {
        /* v's edges are column v of E: their kinds now and in the child, then the rule. */
        mmx__vertex_edges k = {0, 0, 0, 0.0f};
        int nm = 0, open = 0;
        for (mmx_index q = h.colptr[v]; q < h.colptr[v + 1]; q++) {
            const mmx_index e = edge_of(&h, v, h.rowidx[q]);
            const float x = sharpness(L, &h, e);
            sel[q] = x; /* kept for the selection below */
            mmx__rule_vertex_edge(&k, x, mmx__rule_edge_child_sharpness(x, chaikin, L->semi_sum[v], L->semi_n[v]));
            nm += h.sides[e] > 2 || (h.twisted && h.twisted[e]), open += h.sides[e] == 1;
        }
        /* A vertex on a non-manifold edge (three faces or more, or two that run it the same
         * way) is an infinitely sharp corner, but for one inside a non-manifold crease (two
         * such edges, no boundary, more faces than edges: OpenSubdiv's exception), which the
         * crease rule takes. */
        const mmx_index nedges = h.colptr[v + 1] - h.colptr[v];
        float s0 = vsharp && v < sh->nv0 ? vsharp[v] : 0.0f;
        if (nm > 0 && !(nm == 2 && open == 0 && valence[v] > nedges)) s0 = MMX__SHARP_INF;
        float vs, vs_child;
        mmx__rule_vertex_sharpness(s0, ops->level, bnd[v], valence[v], sh->boundary, &vs, &vs_child);
        const mmx__vertex_rule w = mmx__rule_vertex(ops->scheme, valence[v], vs, vs_child, &k);
        self[v] = w.self, ring[v] = w.ring, crease[v] = w.crease;
        for (mmx_index q = h.colptr[v]; q < h.colptr[v + 1]; q++) {
            const float x = sel[q];
            const float cx = mmx__rule_edge_child_sharpness(x, chaikin, L->semi_sum[v], L->semi_n[v]);
            sel[q] = w.crease != 0.0f && (w.child_set ? cx : x) > 0.0f ? 1.0f : 0.0f;
            num[q] = q + 1;
        }
    }
    /* The smooth-triangle rule counts each edge's triangles (its two faces' corners); only
     * the input level has triangles (Catmull-Clark's children are quads). */
    unsigned char *tris = NULL;
    if (!s && sh->smooth_tris && ops->level == 0) s = edge_triangles(ctx, ops->M, adj, &tris);
    for (mmx_index e = 0; !s && e < h.ne; e++) {
        const float x = sharpness(L, &h, e);
        const mmx_index a = h.ev[2 * e], b = h.ev[2 * e + 1];
        const mmx__edge_rule r = mmx__rule_edge_tris(
            ops->scheme,
            mmx__rule_edge_weight(x, mmx__rule_edge_child_sharpness(x, chaikin, L->semi_sum[a], L->semi_n[a]),
                                  mmx__rule_edge_child_sharpness(x, chaikin, L->semi_sum[b], L->semi_n[b])),
            tris && h.sides[e] == 2 ? tris[e] : 0);
        ends[e] = r.ends, faces[e] = r.faces;
    }
    free(tris);
    /* Into the context's space: the tables ops_build allocated, and the two per-entry arrays. */
    const mmx_space sp = mmx_ctx_space(ctx);
    const struct { void *to; const void *from; size_t bytes; } up[] = {
        {ops->w_self, self, nv * sizeof(float)}, {ops->w_ring, ring, nv * sizeof(float)},
        {ops->w_crease, crease, nv * sizeof(float)}, {ops->w_ends, ends, ne * sizeof(float)},
        {ops->w_faces, faces, ne * sizeof(float)},
    };
    for (size_t k = 0; !s && k < sizeof up / sizeof up[0]; k++)
        if (up[k].bytes) s = mmx_mem_copy(ctx, up[k].to, sp, up[k].from, MMX_SPACE_HOST, up[k].bytes);
    if (!s) s = mmx_mem_alloc(ctx, sp, nnz * sizeof(float), (void **)&ops->sel);
    if (!s) s = mmx_mem_alloc(ctx, sp, nnz * sizeof(mmx_index), (void **)&ops->E_num_val);
    if (!s && nnz) s = mmx_mem_copy(ctx, ops->sel, sp, sel, MMX_SPACE_HOST, nnz * sizeof(float));
    if (!s && nnz) s = mmx_mem_copy(ctx, ops->E_num_val, sp, num, MMX_SPACE_HOST, nnz * sizeof(mmx_index));
    if (!s) {
        /* E's pattern with its entries numbered 1..nnz: a map by value is then a map by entry. */
        ops->E_num = *adj->E;
        ops->E_num.val = ops->E_num_val;
        ops->E_num.minval = 1, ops->E_num.maxval = h.nnz, ops->E_num.positional = 0;
    }
    /* The copies above are queued from host arrays freed here: wait for them (CUDA). */
    if (!s && sp != MMX_SPACE_HOST) s = mmx_ctx_sync(ctx);
    free(self), free(ring), free(crease), free(ends), free(faces), free(sel), free(num);
    free(valence), free(bnd), free(vsharp);
    adj_host_free(&h);
    return s;
}

mmx_status mmx__crease_level_carry(mmx_ctx *ctx, mmx_scheme scheme, int chaikin,
                                   const mmx__crease_level *P, const mmx_mesh *out,
                                   mmx_mesh_tags *t)
{
    mmx_adjacency *adj = NULL;
    mmx__crease_level L;
    memset(&L, 0, sizeof L);
    adj_host h;
    memset(&h, 0, sizeof h);
    mmx_status s = mmx_adjacency_compute(ctx, out, &adj);
    if (!s) s = mmx__crease_level_next(ctx, scheme, chaikin, P, adj, &L);
    if (!s) s = adj_host_get(ctx, adj, &h);
    mmx_index n = 0;
    for (mmx_index e = 0; !s && e < h.ne; e++) n += L.es[e] > 0.0f;
    if (!s && n) s = mmx__host_alloc(ctx, (size_t)n, sizeof *t->crease_sharpness, (void **)&t->crease_sharpness);
    if (!s && n) s = mmx__host_alloc(ctx, 2 * (size_t)n, sizeof *t->crease_verts, (void **)&t->crease_verts);
    for (mmx_index e = 0; !s && e < h.ne; e++) {
        if (!(L.es[e] > 0.0f)) continue;
        t->crease_verts[2 * t->ncreases] = h.ev[2 * e];
        t->crease_verts[2 * t->ncreases + 1] = h.ev[2 * e + 1];
        t->crease_sharpness[t->ncreases++] = L.es[e];
    }
    adj_host_free(&h);
    mmx__crease_level_free(&L);
    mmx_adjacency_free(adj);
    return s;
}
