/* mmx_subdivide: the checks that come before any work (scheme against the faces, manifoldness,
 * sizes against 32-bit indices and memory), then one level after another, each built from the
 * level's operators (operators.c) and the scheme's products (loop.c, sqrt3.c,
 * catmull_clark.c). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "fused.h"
#include "mesh/mesh_internal.h"

const char *mmx_scheme_name(mmx_scheme scheme)
{
    switch (scheme) {
    case MMX_SCHEME_LOOP: return "loop";
    case MMX_SCHEME_SQRT3: return "sqrt3";
    case MMX_SCHEME_CATMULL_CLARK: return "catmull-clark";
    case MMX_SCHEME_BILINEAR: return "bilinear";
    }
    return NULL;
}

mmx_status mmx_scheme_parse(const char *name, mmx_scheme *scheme)
{
    if (!name || !scheme) return MMX_ERR_ARG;
    if (strcmp(name, "loop") == 0) *scheme = MMX_SCHEME_LOOP;
    else if (strcmp(name, "sqrt3") == 0) *scheme = MMX_SCHEME_SQRT3;
    else if (strcmp(name, "bilinear") == 0) *scheme = MMX_SCHEME_BILINEAR;
    else if (strcmp(name, "catmull-clark") == 0 || strcmp(name, "catmark") == 0 ||
             strcmp(name, "cc") == 0)
        *scheme = MMX_SCHEME_CATMULL_CLARK;
    else return MMX_ERR_ARG;
    return MMX_OK;
}

mmx_status mmx_subdiv_predict(mmx_scheme scheme, int64_t nverts, int64_t nfaces, int64_t nedges,
                              int64_t nnz, int levels, int64_t *nverts_out,
                              int64_t *nfaces_out, int64_t *nedges_out, int64_t *nnz_out)
{
    if (nverts < 0 || nfaces < 0 || nedges < 0 || nnz < 0 || levels < 0 || !mmx_scheme_name(scheme))
        return MMX_ERR_ARG;
    /* A level multiplies each count by at most 12 (Loop's corners) and adds the others: with
     * every count below 2^58 before a level, every count after it stays below 2^62. Past 2^58
     * the counts cannot be stated in 64 bits for many more levels, and no mesh that large can
     * be stored: refused, never clamped. */
    const int64_t big = (int64_t)1 << 58;
    int64_t v = nverts, f = nfaces, e = nedges, c = nnz;
    for (int l = 0; l < levels; l++) {
        if (v >= big || f >= big || e >= big || c >= big) return MMX_ERR_OVERFLOW;
        int64_t v2, f2, e2, c2;
        if (mmx__scheme_quads(scheme))
            v2 = v + f + e, f2 = c, e2 = 2 * e + c, c2 = 4 * c;
        else if (scheme == MMX_SCHEME_LOOP)
            v2 = v + e, f2 = 4 * f, e2 = 2 * e + 3 * f, c2 = 12 * f;
        else
            v2 = v + f, f2 = 3 * f, e2 = e + 3 * f, c2 = 9 * f;
        v = v2, f = f2, e = e2, c = c2;
    }
    if (nverts_out) *nverts_out = v;
    if (nfaces_out) *nfaces_out = f;
    if (nedges_out) *nedges_out = e;
    if (nnz_out) *nnz_out = c;
    return MMX_OK;
}

/* The bytes one level needs at its peak: its input (matrix, positions), the input's adjacency
 * (E and F with their colptr and values, ev, sides, fe, valence, boundary, and the products'
 * scratch of about 8 bytes per corner; E, F, ev and sides at the bounds they are allocated
 * with, 2c, c, 2c and c entries: mesh.h), the operators (FE, I, four weight tables, Loop's
 * triangle sums) and its output (matrix and positions). An estimate on the safe side. */
static double level_bytes(int64_t v, int64_t f, int64_t e, int64_t c, int64_t v2, int64_t c2)
{
    double in = 4.0 * c + 4.0 * (f + 1) * 2 + 12.0 * v;
    double adj = 8.0 * 3 * c + 8.0 * (v + 1) + 8.0 * c + 4.0 * c + 4.0 * c + 5.0 * v + 8.0 * c;
    double ops = 4.0 * c + 4.0 * (f + 1) * 2 + 4.0 * v + 8.0 * v + 8.0 * e + 12.0 * f;
    double out = 4.0 * c2 + 12.0 * v2;
    return in + adj + ops + out;
}

/* Memory the context's backend can hand out: the device's free memory, or the host's
 * physical memory. 0 when unknown (then nothing is refused on this ground). */
static double memory_available(mmx_ctx *ctx)
{
    if (mmx_ctx_backend(ctx) == MMX_BACKEND_CUDA) {
        size_t free_b = 0, total_b = 0;
        if (mmx__dev_mem_info(ctx, &free_b, &total_b) == MMX_OK) return (double)free_b;
        return 0; /* unknown: nothing is refused on this ground */
    }
#if defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE)
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    if (pages > 0 && size > 0) return (double)pages * (double)size;
#endif
    return 0;
}

/* The checks on sizes: every level's input must fit the adjacency's 32-bit products (two
 * collisions per corner, edge numbers 2e + 1), the output 32-bit indices, and the last level
 * the memory. */
static mmx_status check_sizes(mmx_ctx *ctx, mmx_scheme scheme, const mmx_csc *M,
                              const mmx_adjacency *adj, int levels)
{
    const char *name = mmx_scheme_name(scheme);
    int64_t v = M->nrows, f = M->ncols, e = adj->nedges, c = M->nnz;
    int64_t bnd = scheme == MMX_SCHEME_SQRT3 ? adj->boundary_edges : 0;
    for (int l = 1; l <= levels; l++) {
        int64_t v2, f2, e2, c2;
        mmx_subdiv_predict(scheme, v, f, e, c, 1, &v2, &f2, &e2, &c2);
        /* sqrt3's odd generations cut each boundary edge in three: one more vertex and edge
         * each than the closed count (rules.h). */
        if (bnd && mmx__rule_sqrt3_trisects(l - 1)) v2 += bnd, e2 += bnd, bnd *= 3;
        if (2 * c > MMX_INDEX_MAX || 2 * e + 1 > MMX_INDEX_MAX)
            return mmx__fail(ctx, MMX_ERR_OVERFLOW,
                             "%s to level %d: level %d's input (%lld faces, %lld corners) is too "
                             "large for 32-bit indices", name, levels, l - 1, (long long)f,
                             (long long)c);
        if (v2 > MMX_INDEX_MAX || c2 > MMX_INDEX_MAX)
            return mmx__fail(ctx, MMX_ERR_OVERFLOW,
                             "%s to level %d: level %d would have %lld vertices and %lld corners, "
                             "beyond 32-bit indices (%d)", name, levels, l, (long long)v2,
                             (long long)c2, MMX_INDEX_MAX);
        if (l == levels) {
            double need = level_bytes(v, f, e, c, v2, c2), have = memory_available(ctx);
            if (have > 0 && need > have)
                return mmx__fail(ctx, MMX_ERR_NOMEM,
                                 "%s to level %d: the last level needs about %.1f GB, more than "
                                 "the %.1f GB the %s has", name, levels, need / 1e9, have / 1e9,
                                 mmx_ctx_backend(ctx) == MMX_BACKEND_CUDA ? "device has free"
                                                                          : "host");
        }
        v = v2, f = f2, e = e2, c = c2;
    }
    return MMX_OK;
}

/* The first edge with `want` faces (1: a boundary edge) or, for want >= 3, with want or more,
 * for a message: its ends and its number of faces, read wherever the adjacency lives. The
 * caller knows there is one. */
static mmx_status first_edge(mmx_ctx *ctx, const mmx_adjacency *adj, mmx_index want,
                             mmx_index ends[2], mmx_index *sides)
{
    const size_t ne = (size_t)adj->nedges;
    mmx_index *h = NULL;
    mmx_status s = mmx__host_alloc(ctx, ne, sizeof *h, (void **)&h);
    if (!s) s = mmx_mem_copy(ctx, h, MMX_SPACE_HOST, adj->sides, adj->space, ne * sizeof *h);
    size_t e = 0;
    while (!s && e < ne && !(want >= 3 ? h[e] >= want : h[e] == want)) e++;
    ends[0] = ends[1] = *sides = -1;
    if (!s && e < ne) {
        *sides = h[e];
        s = mmx_mem_copy(ctx, ends, MMX_SPACE_HOST, adj->ev + 2 * e, adj->space, 2 * sizeof *ends);
    }
    free(h);
    return s;
}

/* Repeated faces. A face that repeats another in the same cyclic order is refused by every
 * scheme (it also makes its edges inconsistent, but that would not name the cause). Two
 * triangles on the same three vertices in opposite orders are a closed two-sided pillow: legal,
 * but Loop's middle edge between two edge points, and sqrt3's flipped edge between two face
 * centres, would be made by both faces, giving an edge with four faces (or six) that a mesh
 * matrix, which knows an edge by its two ends, cannot keep apart. Catmull-Clark's child edges
 * are one per (vertex, edge) or (edge, face) pair, so it refines such input. These are the only
 * inputs whose refinement is not manifold when the input is: two triangles sharing two edges
 * share all three vertices, and a level without repeated triangles gives none (children of
 * different faces differ in an old vertex, an edge point or a face centre). */
static mmx_status check_repeated(mmx_ctx *ctx, mmx_scheme scheme, const mmx_mesh_stats *st)
{
    const char *name = mmx_scheme_name(scheme);
    if (st->repeated_faces == 0) return MMX_OK;
    if (st->repeated_orientation == 1)
        return mmx__fail(ctx, MMX_ERR_MESH,
                         "%s needs distinct faces: face %d repeats face %d (0-based face numbers: "
                         "the same vertices in the same order; repeated faces: %d)", name, st->repeated_face[1],
                         st->repeated_face[0], st->repeated_faces);
    if (mmx__scheme_quads(scheme)) return MMX_OK;
    /* The cause, for mmx_subdivide: only this refusal sends a mesh to the face lists. */
    return mmx__fail_cause(ctx, MMX_ERR_MESH, MMX__CAUSE_PILLOW,
                     "%s cannot refine faces %d and %d (0-based): two triangles on the same "
                     "three vertices, glued along all three edges (a two-sided pillow); their "
                     "children would share new edges four ways, which a mesh matrix cannot hold "
                     "(repeated faces: %d)%s", name, st->repeated_face[0], st->repeated_face[1],
                     st->repeated_faces, scheme == MMX_SCHEME_LOOP ? "; the default path refines "
                     "it on face lists (mmx_subdivide_faces)" : "");
}

/* The checks on the topology, in the order that names the cause of a problem first: non-manifold
 * edges and vertices, repeated faces, orientation. (sqrt3 takes boundaries: Kobbelt's rule,
 * rules.h, on the algebraic path.) */
static mmx_status check_topology(mmx_ctx *ctx, mmx_scheme scheme, const mmx_adjacency *adj,
                                 const mmx_mesh_stats *st)
{
    const char *name = mmx_scheme_name(scheme);
    mmx_index ev[2], sides;
    mmx_status s;
    /* Loop and Catmull-Clark make an edge of three faces or more infinitely sharp, as
     * OpenSubdiv does (the algebraic path: creases.c); sqrt3 has no sharp rules. */
    if (adj->nonmanifold_edges > 0 && scheme == MMX_SCHEME_SQRT3) {
        s = first_edge(ctx, adj, 3, ev, &sides);
        return s ? s : mmx__fail(ctx, MMX_ERR_MESH,
                                 "%s needs a manifold mesh: edge (%d, %d) (0-based vertex "
                                 "numbers) has %d faces (edges with 3 faces or more: %d)", name,
                                 ev[0], ev[1], sides, adj->nonmanifold_edges);
    }
    /* Loop and Catmull-Clark take a vertex of several fans as a corner (OpenSubdiv's rule);
     * sqrt3 has no corner rule. */
    if (st->nonmanifold_verts > 0 && scheme == MMX_SCHEME_SQRT3)
        return mmx__fail(ctx, MMX_ERR_MESH,
                         "%s needs a manifold mesh: the faces around vertex %d (0-based) form "
                         "several fans, as at the tip of two cones or the middle of a bowtie "
                         "(non-manifold vertices: %d)", name, st->first_nonmanifold_vert,
                         st->nonmanifold_verts);
    if ((s = check_repeated(ctx, scheme, st))) return s;
    /* sqrt3 reads the face across an edge from F, which needs the two faces to run it in
     * opposite directions; Loop and Catmull-Clark take such an edge as non-manifold (sharp),
     * as OpenSubdiv does (creases.c). */
    if (st->inconsistent_edges > 0 && scheme == MMX_SCHEME_SQRT3)
        return mmx__fail(ctx, MMX_ERR_MESH,
                         "%s needs consistently oriented faces: both faces of edge (%d, %d) "
                         "(0-based vertex numbers) run it the same way (inconsistent edges: %d)",
                         name, st->inconsistent_edge[0], st->inconsistent_edge[1],
                         st->inconsistent_edges);
    return MMX_OK;
}

/* The checks on the input mesh: face orders (on a host view of it), then the topology, from
 * the statistics of its adjacency and half-edge view. */
static mmx_status check_mesh(mmx_ctx *ctx, mmx_scheme scheme, const mmx_mesh *mesh,
                             const mmx_adjacency *adj, mmx_mesh_stats *out)
{
    const char *name = mmx_scheme_name(scheme);
    const mmx_mesh *h = NULL;
    mmx_status s = MMX_OK;
    if (!mmx__scheme_quads(scheme) && mesh->M->order != 3) {
        s = mmx__mesh_host_view(ctx, mesh, &h);
        const mmx_csc *M = s ? NULL : h->M;
        for (mmx_index k = 0; !s && k < M->ncols; k++) {
            mmx_index n = M->order ? M->order : M->colptr[k + 1] - M->colptr[k];
            if (n != 3)
                s = mmx__fail(ctx, MMX_ERR_MESH,
                              "%s subdivides triangle meshes only: face %d has %d vertices", name,
                              k, n);
        }
        if (h) mmx__mesh_host_release(mesh, h);
    }
    mmx_mesh_stats st;
    if (!s) s = mmx__mesh_stats_of(ctx, mesh, adj, &st);
    if (!s && out) *out = st;
    return s ? s : check_topology(ctx, scheme, adj, &st);
}

mmx_status mmx__subdiv_refuse(mmx_ctx *ctx, mmx_scheme scheme, const mmx_mesh *mesh,
                              const mmx_adjacency *adj, const mmx__fault *fault)
{
    /* Coordinates beyond the bound: named by the check that reads the value (a wait, on the
     * refusal only). */
    if (fault && fault->kind == MMX__FAULT_COORDS) {
        mmx_status c = mmx__subdiv_coords(ctx, "mmx_subdivide", mesh->pos, mesh->M->nrows, 3,
                                          mesh->space, "vertex");
        if (c) return c;
    }
    static const char *const what[] = {"no fault", "a coordinate beyond the bound (vertex %d, 0-based)",
                                       "a face that is not a triangle",
                                       "a half-edge run by two corners (corner %d, 0-based)",
                                       "two triangles on the same vertices (face %d, 0-based)",
                                       "faces in several fans (vertex %d, 0-based)"};
    mmx_status s = check_mesh(ctx, scheme, mesh, adj, NULL);
    if (s) return s;
    char found[96] = "a problem in the adjacency's counts";
    if (fault) snprintf(found, sizeof found, what[fault->kind], fault->element);
    return mmx__fail(ctx, MMX_ERR_INTERNAL, "subdivision: the fast checks found %s, which "
                                            "the full checks do not", found);
}

/* The fused path's checks that need only the adjacency's counts; the face orders, the fans
 * and the orientation it checks on its input level (mmx__fz_input). Anything found is named
 * by check_mesh. */
static mmx_status check_mesh_fast(mmx_ctx *ctx, mmx_scheme scheme, const mmx_mesh *mesh,
                                  const mmx_adjacency *adj)
{
    if (scheme == MMX_SCHEME_SQRT3 && adj->nonmanifold_edges > 0)
        return mmx__subdiv_refuse(ctx, scheme, mesh, adj, NULL);
    /* sqrt3 with boundary: the fused path takes each level's topology from the algebraic one
     * (fused.c, mmx__fz_chain_open), whose checks these are. */
    if (scheme == MMX_SCHEME_SQRT3 && adj->boundary_edges > 0)
        return check_mesh(ctx, scheme, mesh, adj, NULL);
    if (adj->nonmanifold_edges > 0) {
        mmx_index ev[2], sides;
        mmx_status s = first_edge(ctx, adj, 3, ev, &sides);
        return s ? s : mmx__fail(ctx, MMX_ERR_UNSUPPORTED,
                                 "%s: the fused path takes no edge of three faces or more, and "
                                 "edge (%d, %d) (0-based vertex numbers) has %d (the algebraic "
                                 "path, or the default path, takes them)",
                                 mmx_scheme_name(scheme), ev[0], ev[1], sides);
    }
    return MMX_OK;
}

/* One level: operators, products, topology; the adjacency is the caller's. */
static mmx_status one_level(mmx_ctx *ctx, mmx_scheme scheme, const mmx__subdiv_sharp *sharp,
                            int level, const mmx_mesh *in, mmx_adjacency *adj,
                            mmx__crease_level *creases, mmx_mesh **out)
{
    mmx__subdiv_ops ops;
    mmx_status s = mmx__subdiv_ops_build(ctx, scheme, sharp, level, in, adj, creases, &ops);
    if (s) return s;
    switch (scheme) {
    case MMX_SCHEME_LOOP: s = mmx__loop_level(ctx, in, &ops, out); break;
    case MMX_SCHEME_SQRT3: s = mmx__sqrt3_level(ctx, in, &ops, out); break;
    default: s = mmx__catmull_clark_level(ctx, in, &ops, out); break;
    }
    mmx__subdiv_ops_free(&ops);
    return s;
}

mmx_status mmx__subdiv_level_algebraic(mmx_ctx *ctx, mmx_scheme scheme,
                                       const mmx__subdiv_sharp *sharp, int level,
                                       const mmx_mesh *in, mmx_adjacency *adj, mmx_mesh **out)
{
    return one_level(ctx, scheme, sharp, level, in, adj, NULL, out);
}

void mmx__subdiv_sharp_free(mmx__subdiv_sharp *sh)
{
    if (sh->vsharp && (sh->own & MMX__SHARP_OWN_VSHARP)) mmx_mem_free(sh->ctx, mmx_ctx_space(sh->ctx), sh->vsharp);
    if (sh->esharp && (sh->own & MMX__SHARP_OWN_ESHARP)) mmx_mem_free(sh->ctx, mmx_ctx_space(sh->ctx), sh->esharp);
    if (sh->own & MMX__SHARP_OWN_TAGS) mmx_mesh_tags_free(sh->tags);
    mmx__tag_entry_free(sh->entry_own);
    memset(sh, 0, sizeof *sh);
}

/* A copy of a tag set (host arrays). */
static mmx_status tags_dup(mmx_ctx *ctx, const mmx_mesh_tags *t, mmx_mesh_tags **out)
{
    *out = NULL;
    mmx_mesh_tags *c = calloc(1, sizeof *c);
    if (!c) return mmx__fail(ctx, MMX_ERR_NOMEM, "out of host memory for the tags");
    *c = *t, c->crease_verts = NULL, c->crease_sharpness = NULL, c->corner_verts = NULL;
    c->corner_sharpness = NULL, c->holes = NULL;
    mmx_status s = MMX_OK;
    const struct { void **to; const void *from; size_t bytes; } part[] = {
        {(void **)&c->crease_verts, t->crease_verts, 2 * (size_t)t->ncreases * sizeof(mmx_index)},
        {(void **)&c->crease_sharpness, t->crease_sharpness, (size_t)t->ncreases * sizeof(float)},
        {(void **)&c->corner_verts, t->corner_verts, (size_t)t->ncorners * sizeof(mmx_index)},
        {(void **)&c->corner_sharpness, t->corner_sharpness, (size_t)t->ncorners * sizeof(float)},
        {(void **)&c->holes, t->holes, (size_t)t->nholes * sizeof(mmx_index)},
    };
    for (size_t k = 0; !s && k < sizeof part / sizeof part[0]; k++) {
        if (!part[k].bytes) continue;
        s = mmx__host_alloc(ctx, part[k].bytes, 1, part[k].to);
        if (!s) memcpy(*part[k].to, part[k].from, part[k].bytes);
    }
    if (s) mmx_mesh_tags_free(c), c = NULL;
    *out = c;
    return s;
}

/* *p (n floats in the context's space, not the set's) replaced by a copy of its own. */
static mmx_status own_array(mmx_ctx *ctx, float **p, mmx_index n)
{
    const mmx_space sp = mmx_ctx_space(ctx);
    float *c = NULL;
    mmx_status s = mmx_mem_alloc(ctx, sp, ((size_t)n + 1) * sizeof *c, (void **)&c);
    if (!s && n) s = mmx_mem_copy(ctx, c, sp, *p, sp, (size_t)n * sizeof *c);
    if (s) {
        mmx_mem_free(ctx, sp, c);
        return s;
    }
    *p = c;
    return MMX_OK;
}

mmx_status mmx__subdiv_sharp_own(mmx_ctx *ctx, mmx__subdiv_sharp *sh)
{
    if (sh->entry_own || !sh->entry) return MMX_OK; /* everything is the set's already */
    mmx_status s = MMX_OK;
    if (sh->tags && !(sh->own & MMX__SHARP_OWN_TAGS)) {
        mmx_mesh_tags *c = NULL;
        s = tags_dup(ctx, sh->tags, &c);
        if (!s) sh->tags = c, sh->own |= MMX__SHARP_OWN_TAGS;
    }
    if (!s && sh->vsharp && !(sh->own & MMX__SHARP_OWN_VSHARP)) {
        s = own_array(ctx, &sh->vsharp, sh->nv0);
        if (!s) sh->own |= MMX__SHARP_OWN_VSHARP;
    }
    if (!s && sh->esharp && !(sh->own & MMX__SHARP_OWN_ESHARP)) {
        s = own_array(ctx, &sh->esharp, sh->ne0);
        if (!s) sh->own |= MMX__SHARP_OWN_ESHARP;
    }
    if (!s) sh->entry = NULL; /* the cache's entry may go with the mesh */
    return s;
}

/* No boundary interpolation, as OpenSubdiv reads it: a boundary vertex with a boundary edge
 * that its tags do not make infinitely sharp excludes its faces, which become holes (added to
 * t's). Read on the host. */
static mmx_status boundary_holes(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_adjacency *adj,
                                 const mmx__tag_entry *E, mmx_mesh_tags *t)
{
    const mmx_mesh *h = NULL;
    unsigned char *excl = NULL, *hole = NULL;
    mmx_index *list = NULL, *ev = NULL, *sides = NULL;
    float *es = NULL;
    const size_t nv = (size_t)adj->nverts, nf = (size_t)adj->nfaces, ne = (size_t)adj->nedges;
    mmx_status s = mmx__host_alloc(ctx, nv + 1, 1, (void **)&excl);
    if (!s) s = mmx__host_alloc(ctx, nf + 1, 1, (void **)&hole);
    if (!s) s = mmx__host_alloc(ctx, 2 * ne + 1, sizeof *ev, (void **)&ev);
    if (!s) s = mmx__host_alloc(ctx, ne + 1, sizeof *sides, (void **)&sides);
    if (!s) s = mmx__host_alloc(ctx, ne + 1, sizeof *es, (void **)&es);
    if (!s) s = mmx_mem_copy(ctx, ev, MMX_SPACE_HOST, adj->ev, adj->space, 2 * ne * sizeof *ev);
    if (!s) s = mmx_mem_copy(ctx, sides, MMX_SPACE_HOST, adj->sides, adj->space, ne * sizeof *sides);
    if (!s) s = mmx__mesh_host_view(ctx, mesh, &h);
    if (s) goto done;
    /* The edges' crease sharpness: the entry's list of the creased ones. */
    for (size_t e = 0; e < ne; e++) es[e] = 0.0f;
    for (mmx_index k = 0; k < E->ncreased; k++) es[E->cr_edge[k]] = E->cr_sharp[k];
    memset(excl, 0, nv);
    for (size_t e = 0; e < ne; e++)
        if (sides[e] == 1 && es[e] < MMX__SHARP_INF) excl[ev[2 * e]] = excl[ev[2 * e + 1]] = 1;
    memset(hole, 0, nf);
    for (mmx_index k = 0; k < t->nholes; k++) hole[t->holes[k]] = 1;
    const mmx_csc *M = h->M;
    for (mmx_index k = 0; k < M->ncols; k++) {
        const int64_t a = M->order ? (int64_t)M->order * k : M->colptr[k];
        const int64_t b = M->order ? a + M->order : M->colptr[k + 1];
        for (int64_t q = a; q < b; q++) hole[k] |= excl[M->rowidx[q]];
    }
    mmx_index n = 0;
    for (size_t k = 0; k < nf; k++) n += hole[k];
    s = mmx__host_alloc(ctx, (size_t)n + 1, sizeof *list, (void **)&list);
    if (s) goto done;
    n = 0;
    for (size_t k = 0; k < nf; k++)
        if (hole[k]) list[n++] = (mmx_index)k;
    free(t->holes);
    t->holes = list, t->nholes = n;
    list = NULL;
done:
    if (h) mmx__mesh_host_release(mesh, h);
    free(excl), free(hole), free(list), free(ev), free(sides), free(es);
    return s;
}

/* The sharp features from the options and the mesh's tags: the boundary mode (the options',
 * else the tag's, else edge only), each vertex's sharpness from the corner tags (the largest
 * where a vertex is named twice), copied to the context's space, and for Loop and
 * Catmull-Clark each edge's from the crease tags with the crease method (bilinear and sqrt3
 * have no sharp rules: creases and corners do not apply to them); no boundary interpolation as
 * holes; the smooth-triangle rule and the face-varying mode from the options or the tags. */
static mmx_status sharp_features(mmx_ctx *ctx, const char *who, mmx_scheme scheme,
                                 const mmx_mesh *mesh, const mmx_adjacency *adj,
                                 const mmx_subdiv_options *o, mmx__subdiv_sharp *sh)
{
    const mmx_boundary option = o->boundary;
    const mmx_crease_method method = o->crease;
    memset(sh, 0, sizeof *sh);
    sh->ctx = ctx;
    sh->boundary = option;
    sh->fvar = o->fvar == MMX_FVAR_FROM_MESH ? MMX_FVAR_LINEAR_ALL : o->fvar;
    /* Only the input level of Catmull-Clark can have triangles (its children are quads). */
    const int tris = scheme == MMX_SCHEME_CATMULL_CLARK && adj->face_order != 4;
    sh->smooth_tris = tris && o->triangles == MMX_TRIANGLES_SMOOTH;
    if (!mesh->tags && option != MMX_BOUNDARY_NONE) {
        if (option == MMX_BOUNDARY_FROM_MESH) sh->boundary = MMX_BOUNDARY_EDGE_ONLY;
        return MMX_OK;
    }
    /* The tags as the levels read them: the mesh's cached entry, or made now (tags_dev.c). */
    const mmx__tag_entry *E = NULL;
    mmx_status s = mmx__tag_entry_get(ctx, who, mesh, adj, &E, &sh->entry_own);
    if (s) return s;
    sh->entry = E;
    mmx_mesh_tags *t = E->tags;
    sh->tags = t;
    if (option == MMX_BOUNDARY_FROM_MESH)
        sh->boundary = t->interpolate_boundary == 1   ? MMX_BOUNDARY_EDGE_AND_CORNER
                       : t->interpolate_boundary == 0 ? MMX_BOUNDARY_NONE
                                                      : MMX_BOUNDARY_EDGE_ONLY;
    /* No boundary interpolation: refined as edge only, the faces at boundary vertices holes
     * (added to a copy of the tags: the entry's are the mesh's). */
    if (sh->boundary == MMX_BOUNDARY_NONE) {
        sh->boundary = MMX_BOUNDARY_EDGE_ONLY;
        /* sqrt3 has its own boundary rule (Kobbelt's), whatever the mode. */
        if (scheme != MMX_SCHEME_SQRT3) {
            s = tags_dup(ctx, E->tags, &t);
            if (!s) sh->tags = t, sh->own |= MMX__SHARP_OWN_TAGS;
            if (!s) s = boundary_holes(ctx, mesh, adj, E, t);
        }
    }
    sh->chaikin = method == MMX_CREASE_FROM_MESH ? t->crease_method == 1 : method == MMX_CREASE_CHAIKIN;
    if (o->triangles == MMX_TRIANGLES_FROM_MESH) sh->smooth_tris = tris && t->smooth_triangles == 1;
    /* The face-varying mode from the tag, where the mesh has texture coordinates to refine. */
    static const mmx_fvar_mode by_tag[6] = {MMX_FVAR_SMOOTH, MMX_FVAR_CORNERS_ONLY, MMX_FVAR_FROM_MESH,
                                            MMX_FVAR_FROM_MESH, MMX_FVAR_BOUNDARIES, MMX_FVAR_LINEAR_ALL};
    const int ft = t->fvar_interpolate_boundary;
    if (!s && o->fvar == MMX_FVAR_FROM_MESH && ft >= 0 && ft <= 5) {
        if (by_tag[ft] == MMX_FVAR_FROM_MESH && mesh->uv)
            s = mmx__fail(ctx, MMX_ERR_UNSUPPORTED, "%s: the mesh's tags ask for face-varying "
                          "interpolation %d (corners plus %d), which is not implemented", who, ft,
                          ft - 1);
        else if (by_tag[ft] != MMX_FVAR_FROM_MESH)
            sh->fvar = by_tag[ft];
    }
    if (!s && E->esharp && (scheme == MMX_SCHEME_LOOP || scheme == MMX_SCHEME_CATMULL_CLARK))
        sh->esharp = E->esharp, sh->ne0 = E->ne, sh->emax = E->emax;
    if (!s && E->vsharp) sh->vsharp = E->vsharp, sh->nv0 = E->nv;
    if (s) mmx__subdiv_sharp_free(sh);
    return s;
}

/* Pushes the result's vertices to the limit surface (mmx_subdiv_limit, with the resolved
 * boundary mode). */
static mmx_status limit_in_place(mmx_ctx *ctx, mmx_scheme scheme, const mmx__subdiv_sharp *sh,
                                 mmx_mesh *out)
{
    const mmx_space sp = mmx_ctx_space(ctx);
    const size_t bytes = 3 * (size_t)out->M->nrows * sizeof(float);
    float *lp = NULL;
    mmx_subdiv_options lo;
    memset(&lo, 0, sizeof lo);
    lo.boundary = sh->boundary;
    mmx_status s = mmx_mem_alloc(ctx, sp, bytes ? bytes : 4, (void **)&lp);
    if (!s) s = mmx_subdiv_limit(ctx, scheme, out, &lo, lp, NULL);
    if (!s && bytes) s = mmx_mem_copy(ctx, out->pos, sp, lp, sp, bytes);
    mmx_mem_free(ctx, sp, lp);
    return s;
}

/* The sharp features the levels leave (carry_tags's first part): the input's boundary mode,
 * the creases of `creases` (borrowed) with their method, the corners still sharp (host arrays
 * of c's own). */
static mmx_status carried_features(mmx_ctx *ctx, const mmx__subdiv_sharp *sh, int levels,
                                   const mmx_mesh_tags *creases, mmx_mesh_tags *c)
{
    const mmx_mesh_tags *t = sh->tags;
    *c = (mmx_mesh_tags){0, NULL, NULL, 0, NULL, NULL, 0, NULL, t->interpolate_boundary, -1, -1, -1, -1};
    c->ncreases = creases->ncreases, c->crease_verts = creases->crease_verts;
    c->crease_sharpness = creases->crease_sharpness;
    if (c->ncreases) c->crease_method = sh->chaikin; /* the method that made them */
    mmx_status s = MMX_OK;
    if (t->ncorners) {
        s = mmx__host_alloc(ctx, (size_t)t->ncorners, sizeof *c->corner_verts, (void **)&c->corner_verts);
        if (!s) s = mmx__host_alloc(ctx, (size_t)t->ncorners, sizeof *c->corner_sharpness, (void **)&c->corner_sharpness);
    }
    for (mmx_index k = 0; !s && k < t->ncorners; k++) {
        const float w = mmx__rule_sharpness_at(t->corner_sharpness[k], levels);
        if (w > 0.0f) c->corner_verts[c->ncorners] = t->corner_verts[k], c->corner_sharpness[c->ncorners++] = w;
    }
    return s;
}

mmx_status mmx__subdiv_carry_features(mmx_ctx *ctx, const mmx__subdiv_sharp *sh, int levels,
                                      const mmx_mesh_tags *creases, mmx_mesh *out)
{
    if (!sh->tags) return MMX_OK;
    mmx_mesh_tags c;
    mmx_status s = carried_features(ctx, sh, levels, creases, &c);
    if (!s) s = mmx__mesh_set_tags(ctx, out, &c, 0);
    free(c.corner_verts);
    free(c.corner_sharpness);
    return s;
}

/* The refined mesh's tags: what subdivision honours, decayed by `levels` levels, so that a
 * second call continues where this one stopped: the boundary mode, the corners still sharp
 * (rules.h's decay), the creases still sharp (`creases`: the last level's halves, from either
 * path) and the holes' descendants, kept or left out with their vertices (holes.c, which
 * rebuilds *out then). */
static mmx_status carry_tags(mmx_ctx *ctx, mmx_scheme scheme, const mmx_mesh *mesh,
                             const mmx__subdiv_sharp *sh, int levels, const mmx_subdiv_options *o,
                             mmx_mesh_tags *creases, mmx_mesh **out)
{
    const mmx_mesh_tags *t = sh->tags;
    if (!t) return o->limit ? limit_in_place(ctx, scheme, sh, *out) : MMX_OK;
    mmx_mesh_tags c;
    mmx_status s = carried_features(ctx, sh, levels, creases, &c);
    /* The limit reads the result's sharp features from its tags, with every face (holes
     * shape their neighbours' limit too). */
    if (!s && o->limit) s = mmx__mesh_set_tags(ctx, *out, &c, 0);
    if (!s && o->limit) s = limit_in_place(ctx, scheme, sh, *out);
    if (!s && t->nholes) {
        s = mmx__host_alloc(ctx, (size_t)t->nholes, sizeof *c.holes, (void **)&c.holes);
        if (!s) memcpy(c.holes, t->holes, (size_t)t->nholes * sizeof *c.holes), c.nholes = t->nholes;
        if (!s) s = mmx__subdiv_holes(ctx, scheme, mesh, levels, o->holes, out, &c, NULL,
                                      sh->entry ? sh->entry->holes : NULL);
    }
    if (!s) s = mmx__mesh_set_tags(ctx, *out, &c, 0);
    creases->ncreases = c.ncreases; /* holes.c may have left some out: the caller frees them */
    free(c.corner_verts);
    free(c.corner_sharpness);
    free(c.holes);
    return s;
}

mmx_status mmx__subdiv_fan_corners(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_adjacency *adj,
                                   mmx__subdiv_sharp *sh)
{
    const size_t nv = (size_t)adj->nverts;
    mmx__halfedge H;
    memset(&H, 0, sizeof H);
    unsigned char *one = NULL;
    mmx_index *valence = NULL;
    float *h = NULL, *d = NULL;
    const mmx_space sp = mmx_ctx_space(ctx);
    mmx_index *ev = NULL, *sides = NULL;
    const size_t ne = (size_t)adj->nedges;
    mmx_status s = mmx__halfedge_build(ctx, mesh, adj, &H);
    if (!s) s = mmx__host_alloc(ctx, nv + 1, 1, (void **)&one);
    /* A vertex on an edge of three faces or more gets its rule from creases.c (OpenSubdiv
     * leaves some of them smooth along the edge): not made a corner here. */
    if (!s && adj->nonmanifold_edges > 0) {
        s = mmx__host_alloc(ctx, 2 * ne + 1, sizeof *ev, (void **)&ev);
        if (!s) s = mmx__host_alloc(ctx, ne + 1, sizeof *sides, (void **)&sides);
        if (!s) s = mmx_mem_copy(ctx, ev, MMX_SPACE_HOST, adj->ev, sp, 2 * ne * sizeof *ev);
        if (!s) s = mmx_mem_copy(ctx, sides, MMX_SPACE_HOST, adj->sides, sp, ne * sizeof *sides);
    }
    if (!s) s = mmx__host_alloc(ctx, nv + 1, sizeof *valence, (void **)&valence);
    if (!s) s = mmx__host_alloc(ctx, nv + 1, sizeof *h, (void **)&h);
    if (!s && nv) s = mmx_mem_copy(ctx, one, MMX_SPACE_HOST, H.one_fan, sp, nv);
    if (!s && nv) s = mmx_mem_copy(ctx, valence, MMX_SPACE_HOST, adj->valence, sp, nv * sizeof *valence);
    for (size_t v = 0; !s && v < nv; v++) h[v] = 0.0f;
    if (!s && sh->vsharp) s = mmx_mem_copy(ctx, h, MMX_SPACE_HOST, sh->vsharp, sp, (size_t)sh->nv0 * sizeof *h);
    for (size_t e = 0; !s && sides && e < ne; e++)
        if (sides[e] > 2) one[ev[2 * e]] = one[ev[2 * e + 1]] = 1;
    for (size_t v = 0; !s && v < nv; v++)
        if (valence[v] > 0 && !one[v]) h[v] = MMX__SHARP_INF;
    if (!s) s = mmx_mem_alloc(ctx, sp, (nv ? nv : 1) * sizeof *d, (void **)&d);
    if (!s && nv) s = mmx_mem_copy(ctx, d, sp, h, MMX_SPACE_HOST, nv * sizeof *h);
    if (!s) {
        if (sh->vsharp && (sh->own & MMX__SHARP_OWN_VSHARP)) mmx_mem_free(ctx, sp, sh->vsharp);
        sh->vsharp = d, sh->nv0 = (mmx_index)nv, sh->fan_corners = 1;
        sh->own |= MMX__SHARP_OWN_VSHARP;
        d = NULL;
    }
    /* The copy above is queued from a host array freed here: wait for it (CUDA). */
    if (!s && sp != MMX_SPACE_HOST) s = mmx_ctx_sync(ctx);
    if (d) mmx_mem_free(ctx, sp, d);
    mmx__halfedge_free(&H);
    free(one), free(valence), free(h), free(ev), free(sides);
    return s;
}

/* The algebraic path's checks (check_mesh) and what they find that its rules need: vertices of
 * several fans made corners, and whether edges are run the same way by both their faces. */
static mmx_status full_checks(mmx_ctx *ctx, mmx_scheme scheme, const mmx_mesh *mesh,
                              const mmx_adjacency *adj, mmx__subdiv_sharp *sharp)
{
    mmx_mesh_stats st;
    mmx_status s = check_mesh(ctx, scheme, mesh, adj, &st);
    if (!s && st.nonmanifold_verts > 0 && !sharp->fan_corners)
        s = mmx__subdiv_fan_corners(ctx, mesh, adj, sharp);
    if (!s) sharp->twisted = st.inconsistent_edges > 0;
    return s;
}

mmx_status mmx__subdiv_fused(mmx_ctx *ctx, mmx_scheme scheme, mmx__subdiv_sharp *sharp,
                             const mmx_mesh *mesh, const mmx_adjacency *adj, int levels, int keep,
                             mmx__fz_level *lv, mmx_subdiv_level *trace, mmx_mesh **out,
                             mmx_mesh_tags *creases, int *algebraic_only)
{
    mmx__fault fault = {MMX__FAULT_NONE, 0};
    *algebraic_only = 0;
    /* sqrt3 with boundary: Kobbelt's children are not in closed form (fused.c). */
    mmx_status s = scheme == MMX_SCHEME_SQRT3 && adj->boundary_edges > 0
                       ? mmx__fz_chain_open(ctx, sharp, mesh, adj, levels, keep, lv, trace, out, &fault)
                       : mmx__fz_chain(ctx, scheme, sharp, mesh, adj, levels, keep, lv, trace, out,
                                       &fault, creases);
    /* An edge that both its faces run the same way: the algebraic path takes it (Loop and
     * Catmull-Clark make it sharp); the caller decides. */
    if (!s && fault.kind == MMX__FAULT_HALFEDGE_TWICE && scheme != MMX_SCHEME_SQRT3) {
        s = full_checks(ctx, scheme, mesh, adj, sharp); /* a repeated face is refused */
        *algebraic_only = !s;
        return s;
    }
    /* A vertex of several fans, the last fault kind: no other fault. Loop and Catmull-Clark
     * take it as a corner (sqrt3 is refused below); creased meshes go to the caller. */
    if (!s && fault.kind == MMX__FAULT_FANS && scheme != MMX_SCHEME_SQRT3 && !sharp->fan_corners) {
        s = mmx__subdiv_fan_corners(ctx, mesh, adj, sharp);
        if (!s && sharp->esharp) {
            s = full_checks(ctx, scheme, mesh, adj, sharp);
            *algebraic_only = !s;
            return s;
        }
        if (!s) {
            memset(lv, 0, ((size_t)levels + 1) * sizeof *lv);
            fault.kind = MMX__FAULT_NONE;
            s = mmx__fz_chain(ctx, scheme, sharp, mesh, adj, levels, keep, lv, trace, out, &fault,
                              creases);
        }
    }
    if (!s && fault.kind) s = mmx__subdiv_refuse(ctx, scheme, mesh, adj, &fault);
    return s;
}

mmx_status mmx__subdiv_coords(mmx_ctx *ctx, const char *who, const float *x, int64_t n, int k,
                              mmx_space space, const char *what)
{
    int64_t bad = -1;
    mmx_status s = MMX_OK;
    if (space == MMX_SPACE_HOST) { /* host arrays on either backend: read here, no wait */
        for (int64_t i = 0; bad < 0 && i < n * k; i++)
            if (!(fabsf(x[i]) <= MMX_SUBDIV_COORD_MAX)) bad = i;
    } else {
        s = mmx__first_beyond(ctx, x, n * k, MMX_SUBDIV_COORD_MAX, &bad);
    }
    if (s || bad < 0) return s;
    float v = 0;
    if (space == MMX_SPACE_HOST) v = x[bad];
    else s = mmx_mem_copy(ctx, &v, MMX_SPACE_HOST, x + bad, space, sizeof v);
    return s ? s : mmx__fail(ctx, MMX_ERR_MESH,
                             "%s: %s %lld has the coordinate %g: subdivision takes coordinates of "
                             "magnitude up to %g (MMX_SUBDIV_COORD_MAX), so that no rule's sum "
                             "overflows float arithmetic on either path; scale the mesh down",
                             who, what, (long long)(bad / k), (double)v, (double)MMX_SUBDIV_COORD_MAX);
}

mmx_status mmx__subdiv_prepare(mmx_ctx *ctx, const char *who, mmx_scheme scheme,
                               const mmx_mesh *mesh, int levels, const mmx_subdiv_options *opts,
                               int fast, int borrow, mmx_subdiv_options *o, mmx_adjacency **adj,
                               double *adj_ms, mmx__subdiv_sharp *sharp)
{
    *adj = NULL;
    *adj_ms = 0;
    memset(sharp, 0, sizeof *sharp);
    if (!mesh || !mesh->M) return mmx__fail(ctx, MMX_ERR_ARG, "%s: mesh is NULL", who);
    if (!mesh->pos) return mmx__fail(ctx, MMX_ERR_ARG, "%s: the mesh has no positions", who);
    if (levels < 0) return mmx__fail(ctx, MMX_ERR_ARG, "%s: levels is %d, below 0", who, levels);
    if (!mmx_scheme_name(scheme))
        return mmx__fail(ctx, MMX_ERR_ARG, "%s: unknown scheme %d", who, (int)scheme);
    memset(o, 0, sizeof *o);
    if (opts) *o = *opts;
    if ((unsigned)o->boundary > MMX_BOUNDARY_NONE)
        return mmx__fail(ctx, MMX_ERR_ARG, "%s: unknown boundary mode %d", who, (int)o->boundary);
    if ((unsigned)o->path > MMX_SUBDIV_PATH_ALGEBRAIC)
        return mmx__fail(ctx, MMX_ERR_ARG, "%s: unknown path %d", who, (int)o->path);
    if ((unsigned)o->crease > MMX_CREASE_CHAIKIN)
        return mmx__fail(ctx, MMX_ERR_ARG, "%s: unknown crease method %d", who, (int)o->crease);
    if ((unsigned)o->holes > MMX_HOLES_KEEP)
        return mmx__fail(ctx, MMX_ERR_ARG, "%s: unknown hole mode %d", who, (int)o->holes);
    if ((unsigned)o->fvar > MMX_FVAR_BOUNDARIES)
        return mmx__fail(ctx, MMX_ERR_ARG, "%s: unknown face-varying mode %d", who, (int)o->fvar);
    if ((unsigned)o->triangles > MMX_TRIANGLES_SMOOTH)
        return mmx__fail(ctx, MMX_ERR_ARG, "%s: unknown triangle rule %d", who, (int)o->triangles);
    mmx_status s = mmx__check_space(ctx, mesh->space, who);
    if (!s && mesh->space != mmx_ctx_space(ctx))
        s = mmx__fail(ctx, MMX_ERR_SPACE,
                      "%s: the mesh is in host memory but the context is on the CUDA backend "
                      "(copy it with mmx_mesh_copy)", who);
    /* The rule of subdiv.h, in the one place every path, plans and the limit pass through. A
     * device mesh bound for the fused path is checked there instead, in its input level's
     * fault record (mmx__fz_input), whose one wait the call pays anyway; if the path changes
     * below, here after all. */
    const int defer = fast && mesh->space == MMX_SPACE_DEVICE;
    if (!s && !defer) s = mmx__subdiv_coords(ctx, who, mesh->pos, mesh->M->nrows, 3, mesh->space, "vertex");
    if (!s && mesh->uv && (mesh->uv->space == MMX_SPACE_HOST || mesh->uv->space == mmx_ctx_space(ctx)))
        s = mmx__subdiv_coords(ctx, who, mesh->uv->values, mesh->uv->nvalues, 2, mesh->uv->space,
                               "texture coordinate");
    if (s) return s;
    mmx_timer *timer = NULL;
    if (o->trace) s = mmx_timer_create(ctx, &timer);
    if (!s && timer) s = mmx_timer_start(timer);
    if (!s) s = borrow ? mmx__mesh_adjacency_view(ctx, mesh, adj) : mmx_adjacency_compute(ctx, mesh, adj);
    if (!s && timer) s = mmx_timer_stop(timer, adj_ms);
    mmx_timer_free(timer);
    /* Edges of three faces or more: the algebraic path takes them, and the default path is
     * then the algebraic one (the fused path's half-edges know two faces an edge). The tags
     * are read next, on both paths alike (the fused path checks fans and orientation later, on
     * its input level), so that a refusal does not depend on the path. */
    if (!s && fast && (*adj)->nonmanifold_edges > 0 && scheme != MMX_SCHEME_SQRT3 &&
        o->path == MMX_SUBDIV_PATH_AUTO)
        fast = 0, o->path = MMX_SUBDIV_PATH_ALGEBRAIC;
    /* sqrt3 with boundary likewise: the fused path would take each level's topology from the
     * algebraic one (mmx__fz_chain_open), and its passes too: the algebraic path alone. */
    if (!s && fast && (*adj)->boundary_edges > 0 && scheme == MMX_SCHEME_SQRT3 &&
        o->path == MMX_SUBDIV_PATH_AUTO)
        fast = 0, o->path = MMX_SUBDIV_PATH_ALGEBRAIC;
    if (!s && defer && !fast) s = mmx__subdiv_coords(ctx, who, mesh->pos, mesh->M->nrows, 3, mesh->space, "vertex");
    if (!s) s = sharp_features(ctx, who, scheme, mesh, *adj, o, sharp);
    /* The fused path checks fans and orientation on its input level (mmx__subdiv_fused). */
    if (!s) s = fast ? check_mesh_fast(ctx, scheme, mesh, *adj)
                     : full_checks(ctx, scheme, mesh, *adj, sharp);
    if (!s) s = check_sizes(ctx, scheme, mesh->M, *adj, levels);
    if (s) {
        mmx_adjacency_free(*adj);
        *adj = NULL;
        mmx__subdiv_sharp_free(sharp);
    }
    return s;
}

/* Whether level `level` (0: the input) builds its tables on the host (creases.c): levels with
 * creases, edges of three faces or more or twisted edges, and Catmull-Clark's input with the
 * smooth-triangle rule (its children are quads). */
static int host_tables(const mmx__subdiv_sharp *sh, const mmx_adjacency *adj, int level)
{
    return sh->esharp || (sh->smooth_tris && level == 0) || adj->nonmanifold_edges > 0 || sh->twisted;
}

/* The algebraic path: level l refines `in` (the input, then the previous level); the input's
 * adjacency comes from the checks, and its time joins level 1's. */
static mmx_status algebraic(mmx_ctx *ctx, mmx_scheme scheme, const mmx_mesh *mesh,
                            mmx_adjacency *adj, int levels, const mmx_subdiv_options *o,
                            const mmx__subdiv_sharp *sharp, double adj_ms, mmx_mesh **out,
                            mmx_mesh_tags *creases)
{
    mmx_timer *timer = NULL;
    mmx_mesh *cur = NULL;
    mmx_status s = o->trace ? mmx_timer_create(ctx, &timer) : MMX_OK;
    const mmx_mesh *in = mesh;
    int64_t nedges = adj->nedges;
    /* The creases of the level being refined (host arrays, creases.c): the input's, then each
     * child's from its parent's and its own adjacency. */
    mmx__crease_level cl, parent;
    memset(&cl, 0, sizeof cl);
    memset(&parent, 0, sizeof parent);
    if (!s && host_tables(sharp, adj, 0)) s = mmx__crease_level_first(ctx, sharp, adj, &cl);
    for (int l = 1; !s && l <= levels; l++) {
        mmx_mesh *next = NULL;
        double ms = 0;
        if (timer) s = mmx_timer_start(timer);
        if (!s && !adj) s = mmx_adjacency_compute(ctx, in, &adj);
        if (!s && sharp->esharp && l > 1) {
            parent = cl;
            s = mmx__crease_level_next(ctx, scheme, sharp->chaikin, &parent, adj, &cl);
            mmx__crease_level_free(&parent);
        }
        if (!s)
            s = one_level(ctx, scheme, sharp, l - 1, in, adj,
                          host_tables(sharp, adj, l - 1) ? &cl : NULL, &next);
        mmx_adjacency_free(adj);
        adj = NULL;
        if (!s && timer) s = mmx_timer_stop(timer, &ms);
        if (!s) {
            /* The refined mesh's edges, in closed form from its parent's. */
            mmx_subdiv_predict(scheme, in->M->nrows, in->M->ncols, nedges, in->M->nnz, 1, NULL,
                               NULL, &nedges, NULL);
            /* sqrt3's boundary cuts on odd generations: one more edge per vertex more. */
            if (scheme == MMX_SCHEME_SQRT3)
                nedges += next->M->nrows - ((int64_t)in->M->nrows + in->M->ncols);
            if (o->trace) {
                o->trace[l - 1].nverts = next->M->nrows;
                o->trace[l - 1].nfaces = next->M->ncols;
                o->trace[l - 1].nedges = (mmx_index)nedges;
                o->trace[l - 1].ms = ms + (l == 1 ? adj_ms : 0);
            }
        }
        mmx_mesh_free(cur);
        cur = next;
        in = cur;
        if (!s) mmx__progress(ctx, "subdivide level", l, levels);
    }
    mmx_adjacency_free(adj);
    mmx_timer_free(timer);
    if (!s && sharp->esharp) s = mmx__crease_level_carry(ctx, scheme, sharp->chaikin, &cl, cur, creases);
    mmx__crease_level_free(&cl);
    if (s) {
        mmx_mesh_free(cur);
        return s;
    }
    *out = cur;
    return MMX_OK;
}

static mmx_status subdivide(mmx_ctx *ctx, mmx_scheme scheme, const mmx_mesh *mesh, int levels,
                            const mmx_subdiv_options *opts, mmx_mesh **out)
{
    mmx_subdiv_options o;
    mmx_adjacency *adj = NULL;
    mmx__subdiv_sharp sharp;
    mmx_mesh_tags creases; /* the creases still sharp after the levels (fused path) */
    memset(&creases, 0, sizeof creases);
    double adj_ms = 0;
    /* The fused path checks fans and orientation on its own input level (on the device). */
    const int fused = levels > 0 && (!opts || opts->path != MMX_SUBDIV_PATH_ALGEBRAIC);
    mmx_status s = mmx__subdiv_prepare(ctx, "mmx_subdivide", scheme, mesh, levels, opts, fused, 1,
                                       &o, &adj, &adj_ms, &sharp);
    if (s) return s;
    /* Texture coordinates in the linear mode read nothing that the levels find: they are
     * refined first, so that on CUDA the host's part of it (reading the cage back, the texture
     * mesh's checks) runs before the positions' levels are queued, not waiting for them. The
     * smooth modes read the corners, to which the levels may add the fan corners: after. Each
     * level makes 4 corners of one (Loop, Catmull-Clark, bilinear). */
    mmx_mesh_uv *uv = NULL;
    const int uv_first = sharp.fvar == MMX_FVAR_LINEAR_ALL || scheme == MMX_SCHEME_BILINEAR;
    const int64_t uv_nnz = mesh->M->nnz == 0 ? 0 : levels < 16 ? (int64_t)mesh->M->nnz << (2 * levels) : -1;
    const int uv_fast = o.path != MMX_SUBDIV_PATH_ALGEBRAIC;
    if (levels > 0 && uv_first) s = mmx__subdiv_uv(ctx, scheme, mesh, levels, &sharp, sharp.fvar, uv_nnz, uv_fast, &uv);
    if (s) {
        /* refused before the levels: nothing made */
    } else if (levels == 0) {
        s = mmx_mesh_copy(ctx, mesh, mmx_ctx_space(ctx), out);
    } else if (o.path == MMX_SUBDIV_PATH_ALGEBRAIC) {
        s = algebraic(ctx, scheme, mesh, adj, levels, &o, &sharp, adj_ms, out, &creases);
        adj = NULL; /* algebraic() frees it */
    } else {
        mmx__fz_level *lv = calloc((size_t)levels + 1, sizeof *lv);
        int algebraic_only = 0;
        /* Uniform creases are listed in closed form from the tags' entry (tags_dev.c), not
         * read back from the last level (a wait, and its edges' bytes); Chaikin's sharpness
         * depends on the neighbours' at every level: read back. */
        const int closed = sharp.esharp && !sharp.chaikin && mmx__tag_creases_closed_ok(sharp.entry, scheme);
        s = lv ? mmx__subdiv_fused(ctx, scheme, &sharp, mesh, adj, levels, 0, lv, o.trace, out,
                                   closed ? NULL : &creases, &algebraic_only)
               : mmx__fail(ctx, MMX_ERR_NOMEM, "mmx_subdivide: out of host memory");
        free(lv);
        if (!s && closed && !algebraic_only)
            s = mmx__tag_creases_closed(ctx, sharp.entry, scheme, levels, mesh->M->nrows,
                                        mesh->M->ncols, adj->nedges, mesh->M->nnz, &creases);
        /* Creases around a vertex of several fans, edges run the same way by both faces: the
         * algebraic path takes them (mmx__subdiv_fused ran its checks). */
        if (!s && algebraic_only && o.path == MMX_SUBDIV_PATH_AUTO) {
            /* algebraic() counts the adjacency's time in its trace and frees it */
            s = algebraic(ctx, scheme, mesh, adj, levels, &o, &sharp, adj_ms, out, &creases);
            adj = NULL;
        } else if (!s && algebraic_only) {
            s = mmx__fail(ctx, MMX_ERR_UNSUPPORTED, "mmx_subdivide: the fused path takes neither "
                          "creases around a vertex of several fans nor an edge that both its "
                          "faces run the same way, and this mesh has one (the algebraic path, or "
                          "the default path, takes them)");
        } else if (!s && o.trace) {
            o.trace[0].ms += adj_ms;
        }
    }
    mmx_adjacency_free(adj);
    if (!s && levels > 0 && !uv_first)
        s = mmx__subdiv_uv(ctx, scheme, mesh, levels, &sharp, sharp.fvar, (*out)->M->nnz, uv_fast, &uv);
    if (!s && uv && (*out)->M->nnz != uv_nnz)
        s = mmx__fail(ctx, MMX_ERR_INTERNAL, "mmx_subdivide: %d corners, the texture coordinates have %lld",
                      (*out)->M->nnz, (long long)uv_nnz);
    if (!s && uv) mmx_mesh_uv_free((*out)->uv), (*out)->uv = uv, uv = NULL;
    mmx_mesh_uv_free(uv);
    if (!s && levels > 0) s = carry_tags(ctx, scheme, mesh, &sharp, levels, &o, &creases, out);
    free(creases.crease_verts);
    free(creases.crease_sharpness);
    mmx__subdiv_sharp_free(&sharp); /* in stream order: after the queued levels that read it */
    if (s) {
        mmx_mesh_free(*out);
        *out = NULL;
    }
    return s;
}

mmx_status mmx_subdivide(mmx_ctx *ctx, mmx_scheme scheme, const mmx_mesh *mesh, int levels,
                         const mmx_subdiv_options *opts, mmx_mesh **out)
{
    MMX__NEED_CTX(ctx);
    if (!out) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_subdivide: out is NULL");
    *out = NULL;
    ctx->cause = MMX__CAUSE_NONE; /* none left from an earlier call */
    mmx_status s = subdivide(ctx, scheme, mesh, levels, opts, out);
    /* Loop's pillows are refused by the mesh-matrix paths (check_repeated): the face-list
     * path takes them. Looked for only on that refusal, so other meshes pay nothing; any other
     * refusal (coordinates past the bound, say, checked first) stands, as on the algebraic path
     * (fuzz_subdiv found a pillow with such a coordinate and kept holes refused by the face
     * lists for the holes on the default path, for the coordinate on the algebraic one). */
    if (s == MMX_ERR_MESH && scheme == MMX_SCHEME_LOOP && levels > 0 && mesh && mesh->M &&
        (!opts || opts->path == MMX_SUBDIV_PATH_AUTO) && mmx__ctx_cause(ctx) == MMX__CAUSE_PILLOW) {
        char why[MMX__ERRLEN];
        snprintf(why, sizeof why, "%s", mmx_ctx_error(ctx));
        mmx_status p = mmx__subdiv_pillows(ctx, scheme, mesh, levels, opts, out);
        if (p == MMX_ERR_MESH && !*out) return mmx__fail(ctx, MMX_ERR_MESH, "%s", why);
        s = p;
    }
    return s;
}
