/* Mesh inspection: sizes, face orders, edges, boundary loops, non-manifold elements,
 * orientation, components, Euler characteristic and genus, read off the mesh's adjacency and
 * its half-edge view (halfedge.h), both built on the context's backend; the counts then run
 * where the mesh is: a host mesh's here, a device mesh's on the device in stats.cu (the same numbers: each count and first is a fold that does not depend on the
 * order of its terms).
 *
 * Edges and their sides are the adjacency's. An edge with two sides is inconsistent when its
 * two corners (mates) run it the same way. A vertex is non-manifold when its walk does not
 * meet all its faces (several fans: halfedge.h's one fan check) or when it is on an edge of
 * three sides or more. Components come from a union-find over vertices joined along edges.
 * Boundary loops: each boundary edge is joined to the boundary edge at which the walk around
 * either of its ends, started from its corner there, stops; the classes are the loops. */
#include <string.h>
#include "halfedge.h"

/* Union-find over indices; roots are their own parents. Find halves the path as it goes. */
static mmx_index uf_find(mmx_index *p, mmx_index x)
{
    while (p[x] != x) {
        p[x] = p[p[x]];
        x = p[x];
    }
    return x;
}

/* Joins the classes of x and y; 1 if they were apart. The smaller root becomes the parent. */
static int uf_union(mmx_index *p, mmx_index x, mmx_index y)
{
    x = uf_find(p, x), y = uf_find(p, y);
    if (x == y) return 0;
    if (x < y) p[y] = x;
    else p[x] = y;
    return 1;
}

/* What the host's counts read: the half-edge view and the edges' ends (host arrays). */
typedef struct view {
    mmx__halfedge H;
    const mmx_index *ev;
} view;

/* Face orders. */
static void scan_faces(const mmx_csc *M, mmx_mesh_stats *st)
{
    for (mmx_index f = 0; f < M->ncols; f++) {
        mmx_index n = M->order ? M->order : M->colptr[f + 1] - M->colptr[f];
        st->order_hist[n < MMX_STATS_ORDERS - 1 ? n : MMX_STATS_ORDERS - 1]++;
        if (f == 0 || n < st->min_order) st->min_order = n;
        if (n > st->max_order) st->max_order = n;
    }
    st->uniform_order = M->ncols > 0 && st->min_order == st->max_order ? st->min_order : 0;
}

/* Inconsistent edges (the one with the smallest ends is named) and non-manifold vertices. */
static mmx_status scan_elements(mmx_ctx *ctx, const view *w, mmx_mesh_stats *st)
{
    const mmx__halfedge *H = &w->H;
    for (mmx_index c = 0; c < H->nnz; c++) {
        const mmx_index m = H->mate[c];
        if (m <= c || H->fe[m] != H->fe[c]) continue;
        const mmx_index e = H->fe[c] >> 1, lo = w->ev[2 * e], hi = w->ev[2 * e + 1];
        if (st->inconsistent_edges++ == 0 || lo < st->inconsistent_edge[0] ||
            (lo == st->inconsistent_edge[0] && hi < st->inconsistent_edge[1]))
            st->inconsistent_edge[0] = lo, st->inconsistent_edge[1] = hi;
    }
    unsigned char *nm = NULL;
    mmx_status s = mmx__host_alloc(ctx, (size_t)H->nv, 1, (void **)&nm);
    if (s) return s;
    for (mmx_index v = 0; v < H->nv; v++) nm[v] = !H->one_fan[v];
    for (mmx_index e = 0; e < H->ne; e++)
        if (H->sides[e] >= 3) nm[w->ev[2 * e]] = nm[w->ev[2 * e + 1]] = 1;
    for (mmx_index v = 0; v < H->nv; v++)
        if (nm[v] && st->nonmanifold_verts++ == 0) st->first_nonmanifold_vert = v;
    free(nm);
    return MMX_OK;
}

/* Components over the vertices in faces, joined along edges. */
static mmx_status count_components(mmx_ctx *ctx, const view *w, mmx_mesh_stats *st)
{
    const mmx__halfedge *H = &w->H;
    mmx_index *p = NULL;
    mmx_status s = mmx__host_alloc(ctx, (size_t)H->nv, sizeof *p, (void **)&p);
    if (s) return s;
    for (mmx_index v = 0; v < H->nv; v++) p[v] = v;
    for (mmx_index e = 0; e < H->ne; e++) uf_union(p, w->ev[2 * e], w->ev[2 * e + 1]);
    for (mmx_index v = 0; v < H->nv; v++) st->components += H->valence[v] > 0 && uf_find(p, v) == v;
    free(p);
    return MMX_OK;
}

/* Boundary loops: the boundary edge of corner c joined to the one where the walk around its
 * vertex stops, started from c through the other edge at that vertex (`leave`). Each join of
 * two classes removes a loop from the count of boundary edges. */
static void join_at_end(const mmx__halfedge *H, mmx_index *p, mmx_index c, int leave,
                        mmx_index e, mmx_index *loops)
{
    mmx_index n, h;
    mmx__he_walk(H, c, leave, H->valence[H->M[c]] + 1, &n, &h);
    if (h >= 0 && H->sides[H->fe[h] >> 1] == 1) *loops -= uf_union(p, e, H->fe[h] >> 1);
}

static mmx_status count_loops(mmx_ctx *ctx, const view *w, mmx_mesh_stats *st)
{
    const mmx__halfedge *H = &w->H;
    if (st->boundary_edges == 0) return MMX_OK;
    mmx_index *p = NULL;
    mmx_status s = mmx__host_alloc(ctx, (size_t)H->ne, sizeof *p, (void **)&p);
    if (s) return s;
    for (mmx_index e = 0; e < H->ne; e++) p[e] = e;
    mmx_index loops = st->boundary_edges;
    for (mmx_index c = 0; c < H->nnz; c++) {
        const mmx_index e = H->fe[c] >> 1;
        if (H->sides[e] != 1) continue;
        mmx_index a, k;
        mmx__corner_face(H->order, H->colptr, H->nf, c, &a, &k);
        /* At its start the edge is c's leaving edge: the walk leaves through the arriving one;
         * at its end it is the next corner's arriving edge: the walk leaves through that
         * corner's leaving edge. */
        join_at_end(H, p, c, 0, e, &loops);
        join_at_end(H, p, mmx__corner_next(a, k, c), 1, e, &loops);
    }
    st->boundary_loops = loops;
    free(p);
    return MMX_OK;
}

/* Isolated vertices and the bounding box of the others; returns the vertices in faces. */
static mmx_index scan_vertices(const mmx_mesh *hm, const view *w, mmx_mesh_stats *st)
{
    mmx_index used = 0;
    for (mmx_index v = 0; v < hm->M->nrows; v++) {
        if (w->H.valence[v] == 0) continue;
        if (hm->pos) {
            const float *q = hm->pos + 3 * (size_t)v;
            for (int d = 0; d < 3; d++) {
                if (used == 0 || q[d] < st->bbox_min[d]) st->bbox_min[d] = q[d];
                if (used == 0 || q[d] > st->bbox_max[d]) st->bbox_max[d] = q[d];
            }
        }
        used++;
    }
    st->isolated_verts = hm->M->nrows - used;
    return used;
}

/* The counts of a host mesh on the host; *used the vertices in faces. */
static mmx_status host_counts(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_adjacency *adj,
                              const mmx__halfedge *H, mmx_mesh_stats *st, mmx_index *used)
{
    const view w = {*H, adj->ev};
    scan_faces(mesh->M, st);
    mmx_status s = scan_elements(ctx, &w, st);
    if (!s) s = count_components(ctx, &w, st);
    if (!s) s = count_loops(ctx, &w, st);
    if (!s) *used = scan_vertices(mesh, &w, st);
    mmx__repeated rep;
    if (!s) s = mmx__mesh_repeated_faces(ctx, mesh->M, &rep);
    if (!s) {
        st->repeated_faces = rep.count;
        st->repeated_face[0] = rep.first, st->repeated_face[1] = rep.second;
        st->repeated_orientation = rep.relation;
    }
    return s;
}

/* What the counts imply: the Euler characteristic, manifoldness, orientation and genus. */
static void derive(mmx_mesh_stats *st, mmx_index used)
{
    st->euler = (int64_t)used - st->nedges + st->nfaces;
    st->manifold = st->nonmanifold_edges == 0 && st->nonmanifold_verts == 0;
    st->oriented = st->manifold && st->inconsistent_edges == 0;
    if (st->oriented) {
        /* Each oriented manifold component has euler = 2 - 2 genus - loops. The sum is even
         * and non-negative on such a mesh; the checks keep a bug from reading as a genus. */
        int64_t g2 = 2 * (int64_t)st->components - st->euler - st->boundary_loops;
        if (g2 >= 0 && g2 % 2 == 0 && g2 / 2 <= MMX_INDEX_MAX) {
            st->genus_valid = 1;
            st->genus = (mmx_index)(g2 / 2);
        }
    }
}

mmx_status mmx__mesh_stats_of(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_adjacency *adj,
                              mmx_mesh_stats *st)
{
    memset(st, 0, sizeof *st);
    st->first_nonmanifold_vert = st->inconsistent_edge[0] = st->inconsistent_edge[1] = -1;
    st->repeated_face[0] = st->repeated_face[1] = -1;
    st->nverts = mesh->M->nrows;
    st->nfaces = mesh->M->ncols;
    st->ncorners = mesh->M->nnz;
    st->nedges = adj->nedges;
    st->boundary_edges = adj->boundary_edges;
    st->nonmanifold_edges = adj->nonmanifold_edges;
    mmx__halfedge H;
    mmx_index used = 0;
    mmx_status s = mmx__halfedge_build(ctx, mesh, adj, &H);
    if (s) return s;
    /* A device mesh is counted where it is: its view's arrays are as large as the mesh. */
    if (mesh->space == MMX_SPACE_DEVICE)
        s = mmx__mesh_stats_counts_cuda(ctx, mesh, adj, &H, st, &used);
    else
        s = host_counts(ctx, mesh, adj, &H, st, &used);
    if (!s) derive(st, used);
    mmx__halfedge_free(&H);
    if (s) memset(st, 0, sizeof *st); /* no half-filled result */
    return s;
}

mmx_status mmx_mesh_stats_compute(mmx_ctx *ctx, const mmx_mesh *mesh, mmx_mesh_stats *st)
{
    MMX__NEED_CTX(ctx);
    if (!mesh || !mesh->M || !st)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_mesh_stats_compute: NULL argument");
    memset(st, 0, sizeof *st);
    /* The adjacency and the view are built where the context works: a mesh elsewhere is
     * copied there first. */
    mmx_mesh *moved = NULL;
    mmx_status s = MMX_OK;
    if (mesh->space != mmx_ctx_space(ctx)) s = mmx_mesh_copy(ctx, mesh, mmx_ctx_space(ctx), &moved);
    const mmx_mesh *m = moved ? moved : mesh;
    mmx_adjacency *adj = NULL;
    if (!s) s = mmx_adjacency_compute(ctx, m, &adj);
    if (!s) s = mmx__mesh_stats_of(ctx, m, adj, st);
    mmx_adjacency_free(adj);
    mmx_mesh_free(moved);
    return s;
}
