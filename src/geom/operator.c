/* The geometry's operators by the algebra (geom.h, mmx_operator; geom_internal.h, the
 * references): the Laplacians as masked valued products M <map> Mᵀ, the vertex areas and
 * normals as SpMVs Mᵀ<map> x, the incidences d0 and d1 from the adjacency. The fused gathers
 * (mmx__lap_column, mmx__vertex_area, mmx__vertex_normal) are the fast paths, held equal to
 * these by tests/test_geom.c. */
#include <stdlib.h>
#include <string.h>
#include "geom_internal.h"

static const char *const names[] = {"adjacency", "uniform", "cotan", "mass", "mass-voronoi",
                                    "ev", "fe"};

const char *mmx_operator_name(mmx_operator_kind kind)
{
    return (unsigned)kind < sizeof names / sizeof *names ? names[kind] : "?";
}

mmx_status mmx_operator_parse(mmx_ctx *ctx, const char *name, mmx_operator_kind *kind)
{
    for (unsigned k = 0; name && kind && k < sizeof names / sizeof *names; k++)
        if (!strcmp(name, names[k])) {
            *kind = (mmx_operator_kind)k;
            return MMX_OK;
        }
    return mmx__fail(ctx, MMX_ERR_ARG, "unknown operator '%s' (adjacency, uniform, cotan, mass, "
                     "mass-voronoi, ev, fe)", name ? name : "(null)");
}

/* n floats of `value` in the context's space. */
static mmx_status filled(mmx_ctx *ctx, int64_t n, float value, float **out)
{
    mmx_status s = mmx_mem_alloc(ctx, mmx_ctx_space(ctx), (size_t)n * sizeof **out, (void **)out);
    if (!s) s = mmx__geom_fill(ctx, *out, n, value);
    return s;
}

mmx_status mmx__laplacian_product(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_adjacency *adj,
                                  int cotan, mmx_csc **out)
{
    const mmx_space sp = mmx_ctx_space(ctx);
    const mmx_csc *M = mesh->M;
    const mmx_index n = M->nrows;
    mmx_weighted *U = NULL;
    mmx_csc *Mt = NULL, *L = NULL;
    float *cot = NULL, *cot_t = NULL, *ones = NULL, *d = NULL;
    /* The pattern E + I (topology only: its weights are not read). */
    mmx_status s = mmx_uniform_laplacian(ctx, mesh, adj, &U);
    if (!s && cotan) s = mmx__geom_triangles(ctx, mesh, adj, "mmx_operator (cotan)");
    if (!s) s = mmx_csc_transpose(ctx, M, &Mt);
    mmx_vgemm_map map = {{MMX_REL_CYCLE_BOTH, 1, NULL, 0}, mmx_map_const(1.0f),
                         mmx_map_const(1.0f), MMX_VCOLL_PRODUCT, MMX_MONOID_MAX};
    if (!s && cotan) {
        /* Each corner's half cotangent of the edge leaving it, on M and moved to Mᵀ's order:
         * TAIL picks, for the pair (i, j) of a face, the corner the face's edge leaves from. */
        s = mmx_mem_alloc(ctx, sp, (size_t)M->nnz * sizeof *cot, (void **)&cot);
        if (!s) s = mmx_mem_alloc(ctx, sp, (size_t)M->nnz * sizeof *cot_t, (void **)&cot_t);
        if (!s) s = mmx__geom_faces(ctx, mesh, MMX__CORNER_COT, cot, NULL);
        if (!s) s = mmx__geom_corners_to_mt(ctx, M, Mt, cot, cot_t);
        map.amap = mmx_map_table(MMX_MAP_BY_ENTRY, cot, M->nnz);
        map.bmap = mmx_map_table(MMX_MAP_BY_ENTRY, cot_t, M->nnz);
        map.coll = MMX_VCOLL_TAIL;
        map.monoid = MMX_MONOID_SUM;
    }
    if (!s) s = mmx_spgemm_valued(ctx, M, Mt, map, U->A, &L);
    /* The diagonal, still 0: minus the row sums (L is symmetric: op = T gathers the columns,
     * in row order, as the fast path sums them). */
    if (!s) s = filled(ctx, n, 1.0f, &ones);
    if (!s) s = mmx_mem_alloc(ctx, sp, (size_t)n * sizeof *d, (void **)&d);
    if (!s) s = mmx_spmv(ctx, MMX_OP_T, 1.0f, L, mmx_map_table(MMX_MAP_X, NULL, 0), ones, 1, 0.0f, d);
    if (!s) s = mmx__csc_set_diagonal(ctx, L, d, -1.0f);
    mmx_mem_free(ctx, sp, cot);
    mmx_mem_free(ctx, sp, cot_t);
    mmx_mem_free(ctx, sp, ones);
    mmx_mem_free(ctx, sp, d);
    mmx_csc_free(Mt);
    mmx_weighted_free(U);
    if (s) {
        mmx_csc_free(L);
        return s;
    }
    *out = L;
    return MMX_OK;
}

mmx_status mmx__vertex_areas_product(mmx_ctx *ctx, const mmx_mesh *mesh, mmx_mass_kind kind,
                                     float *areas)
{
    const mmx_space sp = mmx_ctx_space(ctx);
    const mmx_csc *M = mesh->M;
    float *face = NULL, *corner = NULL;
    mmx_status s = MMX_OK;
    if (kind == MMX_MASS_VORONOI) {
        s = mmx__geom_triangles(ctx, mesh, NULL, "mmx_operator (mass-voronoi)");
        if (!s) s = filled(ctx, M->ncols, 1.0f, &face);
        if (!s) s = mmx_mem_alloc(ctx, sp, (size_t)M->nnz * sizeof *corner, (void **)&corner);
        if (!s) s = mmx__geom_faces(ctx, mesh, MMX__CORNER_VORONOI, corner, NULL);
    } else {
        s = mmx_mem_alloc(ctx, sp, (size_t)M->ncols * sizeof *face, (void **)&face);
        if (!s) s = mmx__geom_faces(ctx, mesh, MMX__FACE_SHARE, face, NULL);
    }
    if (!s) s = mmx__geom_vertex_sum(ctx, M, corner, face, 1, areas);
    mmx_mem_free(ctx, sp, face);
    mmx_mem_free(ctx, sp, corner);
    return s;
}

mmx_status mmx__vertex_normals_product(mmx_ctx *ctx, const mmx_mesh *mesh,
                                       mmx_normal_weight weight, float *normals)
{
    const mmx_space sp = mmx_ctx_space(ctx);
    const mmx_csc *M = mesh->M;
    float *face = NULL, *corner = NULL;
    mmx_status s = mmx_mem_alloc(ctx, sp, 3 * (size_t)M->ncols * sizeof *face, (void **)&face);
    if (!s) s = mmx__geom_faces(ctx, mesh, weight == MMX_NORMAL_AREA ? MMX__FACE_NEWELL
                                                                    : MMX__FACE_UNIT, face, NULL);
    if (!s && weight == MMX_NORMAL_ANGLE) {
        s = mmx_mem_alloc(ctx, sp, (size_t)M->nnz * sizeof *corner, (void **)&corner);
        if (!s) s = mmx__geom_faces(ctx, mesh, MMX__CORNER_ANGLE, corner, NULL);
    }
    if (!s) s = mmx__geom_vertex_sum(ctx, M, corner, face, 3, normals);
    if (!s) s = mmx__geom_normalize(ctx, normals, M->nrows);
    mmx_mem_free(ctx, sp, face);
    mmx_mem_free(ctx, sp, corner);
    return s;
}

/* The incidences, assembled on the host from EV (d0ᵀ: column e holds the edge's two ends,
 * -1 and +1) or from M and FE (d1ᵀ: column f holds the face's edges with their directions),
 * then transposed (which carries the floats) and moved to the context's space. */
static mmx_status incidence(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_adjacency *adj,
                            int fe, mmx_csc **out)
{
    const mmx_csc *Md = mesh->M;
    mmx_ctx *h = NULL;
    mmx_csc *Mh = NULL, *T = NULL, *R = NULL;
    mmx_index *ev = NULL;
    mmx_status s = mmx_ctx_create(&h);
    if (s) return mmx__fail(ctx, s, "mmx_operator: no host context");
    const mmx_index ne = adj->nedges, nnz = fe ? Md->nnz : 2 * ne;
    const mmx_index cols = fe ? Md->ncols : ne, rows = fe ? ne : Md->nrows;
    const mmx_index *src = fe ? adj->fe : adj->ev;
    s = mmx__host_alloc(ctx, (size_t)nnz, sizeof *ev, (void **)&ev);
    if (!s) s = mmx_mem_copy(ctx, ev, MMX_SPACE_HOST, src, adj->space, (size_t)nnz * sizeof *ev);
    if (!s && fe) s = mmx_csc_copy(ctx, Md, MMX_SPACE_HOST, &Mh); /* ctx: Md may be on the device */
    if (!s) s = mmx__csc_alloc(h, MMX_SPACE_HOST, rows, cols, nnz, 0, &T);
    if (!s) s = mmx__csc_alloc_x(h, T);
    if (!s) {
        for (mmx_index j = 0; j <= cols; j++)
            T->colptr[j] = fe ? (Mh->order ? Mh->order * j : Mh->colptr[j]) : 2 * j;
        for (mmx_index q = 0; q < nnz; q++) {
            T->rowidx[q] = fe ? ev[q] >> 1 : ev[q];
            T->x[q] = fe ? ((ev[q] & 1) ? -1.0f : 1.0f) : (q & 1) ? 1.0f : -1.0f;
        }
        s = mmx__csc_fill_positions(h, T);
    }
    if (!s) s = mmx__csc_props(h, T);
    if (!s) s = mmx_csc_transpose(h, T, &R);
    if (!s) s = mmx_csc_copy(ctx, R, mmx_ctx_space(ctx), out);
    if (s && mmx_ctx_error(h)[0]) s = mmx__fail(ctx, s, "mmx_operator: %s", mmx_ctx_error(h));
    free(ev);
    mmx_csc_free(Mh);
    mmx_csc_free(T);
    mmx_csc_free(R);
    mmx_ctx_free(h);
    return s;
}

mmx_status mmx_operator(mmx_ctx *ctx, const mmx_mesh *mesh, const mmx_adjacency *adj_in,
                        mmx_operator_kind kind, mmx_csc **out)
{
    if (!out) return mmx__fail(ctx, MMX_ERR_ARG, "mmx_operator: out is NULL");
    *out = NULL;
    if ((unsigned)kind > MMX_OPERATOR_FE)
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_operator: unknown kind %d", (int)kind);
    const int needs_pos = kind == MMX_OPERATOR_COTAN || kind == MMX_OPERATOR_MASS ||
                          kind == MMX_OPERATOR_MASS_VORONOI;
    mmx_status s = mmx__geom_check(ctx, mesh, needs_pos, "mmx_operator");
    if (s) return s;
    const mmx_csc *M = mesh->M;
    const mmx_space sp = mmx_ctx_space(ctx);
    if (adj_in && (adj_in->space != sp || adj_in->nverts != M->nrows || adj_in->nfaces != M->ncols))
        return mmx__fail(ctx, MMX_ERR_ARG, "mmx_operator: the adjacency is not the mesh's (or not "
                         "in the context's space)");
    mmx_adjacency *own = NULL;
    const mmx_adjacency *adj = adj_in;
    const int needs_adj = kind != MMX_OPERATOR_MASS && kind != MMX_OPERATOR_MASS_VORONOI &&
                          kind != MMX_OPERATOR_ADJACENCY;
    if (!adj && needs_adj) {
        s = mmx_adjacency_compute(ctx, mesh, &own);
        adj = own;
    }
    mmx_csc *A = NULL, *Mt = NULL;
    if (!s) switch (kind) {
    case MMX_OPERATOR_ADJACENCY: {
        const mmx_vgemm_map map = {{MMX_REL_CYCLE_BOTH, 1, NULL, 0}, mmx_map_const(1.0f),
                                   mmx_map_const(1.0f), MMX_VCOLL_PRODUCT, MMX_MONOID_MAX};
        s = mmx_csc_transpose(ctx, M, &Mt);
        if (!s) s = mmx_spgemm_valued(ctx, M, Mt, map, NULL, &A);
        break;
    }
    case MMX_OPERATOR_UNIFORM:
    case MMX_OPERATOR_COTAN:
        s = mmx__laplacian_product(ctx, mesh, adj, kind == MMX_OPERATOR_COTAN, &A);
        break;
    case MMX_OPERATOR_MASS:
    case MMX_OPERATOR_MASS_VORONOI:
        s = mmx__geom_diag_pattern(ctx, M->nrows, &A);
        if (!s) s = mmx__csc_alloc_x(ctx, A);
        if (!s) s = mmx__vertex_areas_product(ctx, mesh, kind == MMX_OPERATOR_MASS
                                              ? MMX_MASS_BARYCENTRIC : MMX_MASS_VORONOI, A->x);
        break;
    default:
        s = incidence(ctx, mesh, adj, kind == MMX_OPERATOR_FE, &A);
        break;
    }
    mmx_csc_free(Mt);
    mmx_adjacency_free(own);
    if (s) {
        mmx_csc_free(A);
        return s;
    }
    *out = A;
    return MMX_OK;
}
