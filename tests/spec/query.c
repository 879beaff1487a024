/* The eight first-order queries stated over the face lists (spec.h): no adjacency, no mesh
 * product, no half-edges; lists, sorts and walks that read like include/meshmatrix/query.h.
 * Quadratic where that is simpler; meant for meshes of a few thousand faces. */
#include <stdlib.h>
#include <string.h>
#include <criterion/criterion.h>
#include "spec.h"

/* The mesh's faces as lists: face f is verts[start[f] .. start[f + 1]). */
typedef struct faces {
    mmx_index nv, nf;
    mmx_index *start, *verts;
} faces;

/* An edge {lo, hi}, lo < hi, with the faces that have it (ascending). */
typedef struct edge {
    mmx_index lo, hi;
    mmx_index nfaces;
    mmx_index *face;  /* nfaces, ascending */
    int *forward;     /* per face: 1 when the face runs lo -> hi */
} edge;

typedef struct topo {
    faces F;
    mmx_index ne;
    edge *E;
} topo;

static void *need(size_t n, size_t size)
{
    void *p = calloc(n + 1, size); /* one spare: an empty array is not a failure */
    cr_assert(p, "the query spec is out of memory");
    return p;
}

static faces faces_of(const mmx_mesh *mesh)
{
    const mmx_csc *M = mesh->M;
    cr_assert(M->space == MMX_SPACE_HOST, "spec_query wants a host mesh");
    faces F = {M->nrows, M->ncols, need((size_t)M->ncols + 1, sizeof(mmx_index)),
               need((size_t)M->nnz, sizeof(mmx_index))};
    for (mmx_index f = 0; f < M->ncols; f++)
        F.start[f + 1] = M->order ? M->order * (f + 1) : M->colptr[f + 1];
    memcpy(F.verts, M->rowidx, (size_t)M->nnz * sizeof(mmx_index));
    return F;
}

static mmx_index order_of(const faces *F, mmx_index f)
{
    return F->start[f + 1] - F->start[f];
}

/* Vertex i of face f (cyclically). */
static mmx_index vert(const faces *F, mmx_index f, mmx_index i)
{
    const mmx_index n = order_of(F, f);
    return F->verts[F->start[f] + ((i % n) + n) % n];
}

/* Edges sorted by (higher end, lower end): mmx_adjacency's numbering. */
static int edge_cmp(const void *a, const void *b)
{
    const edge *x = a, *y = b;
    if (x->hi != y->hi) return x->hi < y->hi ? -1 : 1;
    if (x->lo != y->lo) return x->lo < y->lo ? -1 : 1;
    return 0;
}

static mmx_index edge_find(const topo *T, mmx_index a, mmx_index b)
{
    edge key = {a < b ? a : b, a < b ? b : a, 0, NULL, NULL};
    const edge *e = bsearch(&key, T->E, (size_t)T->ne, sizeof *T->E, edge_cmp);
    cr_assert(e, "spec: edge {%d, %d} missing", a, b);
    return (mmx_index)(e - T->E);
}

static topo topo_of(const mmx_mesh *mesh)
{
    topo T = {faces_of(mesh), 0, NULL};
    const faces *F = &T.F;
    const mmx_index nnz = F->start[F->nf];
    edge *all = need((size_t)nnz, sizeof *all);
    for (mmx_index f = 0; f < F->nf; f++)
        for (mmx_index i = 0; i < order_of(F, f); i++) {
            const mmx_index v = vert(F, f, i), w = vert(F, f, i + 1);
            all[F->start[f] + i] = (edge){v < w ? v : w, v < w ? w : v, 0, NULL, NULL};
        }
    qsort(all, (size_t)nnz, sizeof *all, edge_cmp);
    for (mmx_index k = 0; k < nnz; k++)
        if (T.ne == 0 || edge_cmp(&all[k], &all[T.ne - 1]) != 0) all[T.ne++] = all[k];
    T.E = all;
    /* The faces of each edge, ascending: faces are visited in ascending order. */
    for (mmx_index e = 0; e < T.ne; e++) {
        T.E[e].face = need((size_t)F->nf, sizeof(mmx_index));
        T.E[e].forward = need((size_t)F->nf, sizeof(int));
    }
    for (mmx_index f = 0; f < F->nf; f++)
        for (mmx_index i = 0; i < order_of(F, f); i++) {
            const mmx_index v = vert(F, f, i), w = vert(F, f, i + 1);
            edge *e = &T.E[edge_find(&T, v, w)];
            e->forward[e->nfaces] = v < w;
            e->face[e->nfaces++] = f;
        }
    return T;
}

static void topo_free(topo *T)
{
    for (mmx_index e = 0; e < T->ne; e++) {
        free(T->E[e].face);
        free(T->E[e].forward);
    }
    free(T->E);
    free(T->F.start);
    free(T->F.verts);
}

/* The smallest-numbered edge with two faces that run it the same way, or -1. */
static mmx_index first_inconsistent(const topo *T)
{
    for (mmx_index e = 0; e < T->ne; e++)
        if (T->E[e].nfaces == 2 && T->E[e].forward[0] == T->E[e].forward[1]) return e;
    return -1;
}

/* A growing row list. */
typedef struct rows {
    mmx_index n, cap;
    mmx_index *ptr; /* n + 1 */
    mmx_index *idx;
    mmx_index len, idxcap;
} rows;

static void push(rows *R, mmx_index x)
{
    if (R->len == R->idxcap) {
        R->idxcap = R->idxcap ? 2 * R->idxcap : 64;
        R->idx = realloc(R->idx, (size_t)R->idxcap * sizeof *R->idx);
        cr_assert(R->idx, "the query spec is out of memory");
    }
    R->idx[R->len++] = x;
}

static void end_row(rows *R)
{
    R->ptr[++R->n] = R->len;
}

/* Where v stands in face f (its corner index), or -1. */
static mmx_index corner_in(const faces *F, mmx_index f, mmx_index v)
{
    for (mmx_index i = 0; i < order_of(F, f); i++)
        if (vert(F, f, i) == v) return i;
    return -1;
}

/* The other face of an edge with exactly two faces; -1 otherwise. */
static mmx_index across(const topo *T, mmx_index e, mmx_index f)
{
    const edge *x = &T->E[e];
    if (x->nfaces != 2) return -1;
    return x->face[0] == f ? x->face[1] : x->face[0];
}

/* One row of VV, VE or VF: the fans of v as query.h states them. */
static void vertex_row(const topo *T, mmx_query_kind kind, mmx_index v, rows *R,
                       unsigned char *seen, mmx_index *fan_start, mmx_index *fan_open)
{
    const faces *F = &T->F;
    /* The faces at v, ascending; seen[] marks those already put in a fan. */
    mmx_index nfans = 0;
    for (mmx_index f = 0; f < F->nf; f++) seen[f] = 0;
    /* Open fans first start at a face whose edge {v, w} does not have exactly two faces;
     * then closed fans at their smallest face. Both are then put in start order. */
    for (int pass = 0; pass < 2; pass++)
        for (mmx_index f = 0; f < F->nf; f++) {
            const mmx_index i = corner_in(F, f, v);
            if (i < 0 || seen[f]) continue;
            const mmx_index w = vert(F, f, i + 1);
            const int open = T->E[edge_find(T, v, w)].nfaces != 2;
            if (pass == 0 && !open) continue;
            /* Walk counter-clockwise: across {u, v} to the face that runs v -> u. */
            mmx_index g = f;
            do {
                seen[g] = 1;
                const mmx_index u = vert(F, g, corner_in(F, g, v) - 1);
                g = across(T, edge_find(T, u, v), g);
            } while (g >= 0 && g != f);
            fan_start[nfans] = f;
            fan_open[nfans++] = open;
        }
    /* Fans by start face (insertion sort: few fans). */
    for (mmx_index a = 1; a < nfans; a++)
        for (mmx_index b = a; b > 0 && fan_start[b - 1] > fan_start[b]; b--) {
            mmx_index t = fan_start[b]; fan_start[b] = fan_start[b - 1]; fan_start[b - 1] = t;
            t = fan_open[b]; fan_open[b] = fan_open[b - 1]; fan_open[b - 1] = t;
        }
    for (mmx_index k = 0; k < nfans; k++) {
        const mmx_index f = fan_start[k];
        mmx_index g = f, last_u = -1;
        do {
            const mmx_index i = corner_in(F, g, v);
            const mmx_index w = vert(F, g, i + 1), u = vert(F, g, i - 1);
            if (kind == MMX_QUERY_VF) push(R, g);
            else if (kind == MMX_QUERY_VV) push(R, w);
            else push(R, edge_find(T, v, w));
            last_u = u;
            g = across(T, edge_find(T, u, v), g);
        } while (g >= 0 && g != f);
        if (fan_open[k]) {
            if (kind == MMX_QUERY_VV) push(R, last_u);
            else if (kind == MMX_QUERY_VE) push(R, edge_find(T, last_u, v));
        }
    }
}

int spec_query(const mmx_mesh *host_mesh, mmx_query_kind kind, mmx_index **rowptr,
               mmx_index **colidx, mmx_index *nrows)
{
    *rowptr = *colidx = NULL;
    *nrows = 0;
    topo T = topo_of(host_mesh);
    const faces *F = &T.F;
    const int vertex_kind = kind == MMX_QUERY_VV || kind == MMX_QUERY_VE || kind == MMX_QUERY_VF;
    if (vertex_kind && first_inconsistent(&T) >= 0) {
        topo_free(&T);
        return 1;
    }
    const mmx_index n = vertex_kind ? F->nv : (kind == MMX_QUERY_EV || kind == MMX_QUERY_EF)
                                                  ? T.ne : F->nf;
    rows R = {0, 0, need((size_t)n + 1, sizeof(mmx_index)), NULL, 0, 0};
    unsigned char *seen = need((size_t)F->nf, 1);
    mmx_index *fan_start = need((size_t)F->nf, sizeof(mmx_index));
    mmx_index *fan_open = need((size_t)F->nf, sizeof(mmx_index));
    for (mmx_index x = 0; x < n; x++) {
        switch (kind) {
        case MMX_QUERY_VV:
        case MMX_QUERY_VE:
        case MMX_QUERY_VF:
            vertex_row(&T, kind, x, &R, seen, fan_start, fan_open);
            break;
        case MMX_QUERY_EV:
            push(&R, T.E[x].lo);
            push(&R, T.E[x].hi);
            break;
        case MMX_QUERY_EF:
            for (mmx_index k = 0; k < T.E[x].nfaces; k++) push(&R, T.E[x].face[k]);
            break;
        case MMX_QUERY_FV:
            for (mmx_index i = 0; i < order_of(F, x); i++) push(&R, vert(F, x, i));
            break;
        case MMX_QUERY_FE:
            for (mmx_index i = 0; i < order_of(F, x); i++)
                push(&R, edge_find(&T, vert(F, x, i), vert(F, x, i + 1)));
            break;
        case MMX_QUERY_FF:
            for (mmx_index i = 0; i < order_of(F, x); i++) {
                const edge *e = &T.E[edge_find(&T, vert(F, x, i), vert(F, x, i + 1))];
                for (mmx_index k = 0; k < e->nfaces; k++)
                    if (e->face[k] != x) push(&R, e->face[k]);
            }
            break;
        default:
            cr_assert_fail("spec_query: kind %d", (int)kind);
        }
        end_row(&R);
    }
    free(seen);
    free(fan_start);
    free(fan_open);
    topo_free(&T);
    if (!R.idx) R.idx = need(1, sizeof(mmx_index));
    *rowptr = R.ptr;
    *colidx = R.idx;
    *nrows = n;
    return 0;
}

int spec_query_inconsistent_edge(const mmx_mesh *host_mesh, mmx_index *a, mmx_index *b)
{
    topo T = topo_of(host_mesh);
    const mmx_index e = first_inconsistent(&T);
    *a = e >= 0 ? T.E[e].lo : -1;
    *b = e >= 0 ? T.E[e].hi : -1;
    topo_free(&T);
    return e >= 0;
}
