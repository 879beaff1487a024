/* The steps of the vertex queries (VV, VE, VF) shared by the host loops (query.c) and the
 * kernels (query.cu), so that both backends run the same statement and give the same rows.
 *
 * A vertex's row is read off its corners (the entries of M in row v, ascending: the faces at v
 * in ascending number, from a counting sort on the host or a stable radix sort on the device)
 * and a walk across edges: from v's corner in face f, whose vertex before v is u, the next face
 * counter-clockwise is F(v, u), the face holding the half-edge v -> u, when E(u, v) = 2. */
#ifndef MMX_MESH_QUERY_STEPS_H
#define MMX_MESH_QUERY_STEPS_H

#include "halfedge.h" /* mmx__corner_face, mmx__corner_prev, MMX__HD, mmx__lower_bound */
#include "meshmatrix/query.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the walks read, every array in one space (the mesh's, the adjacency's and the corner
 * lists'). */
typedef struct mmx__query_topo {
    mmx_index nv, nf, nnz;
    mmx_index order;          /* M's: > 0 reduced (corner c in face c / order), 0 general */
    const mmx_index *colptr;  /* M's, when general */
    const mmx_index *M;       /* M's row indices: each corner's vertex */
    const mmx_index *fe;      /* the adjacency's: each corner's leaving edge, 2e + d */
    const mmx_index *sides;   /* the adjacency's: each edge's number of faces (E's value) */
    const mmx_index *Fptr, *Frow, *Fval; /* the adjacency's F: F(i, j) in column j, rows ascending */
    const mmx_index *Lptr;    /* nv + 1: vertex v's corners are L[Lptr[v] .. Lptr[v + 1]) */
    const mmx_index *L;       /* nnz corners sorted by vertex, ascending within a vertex */
} mmx__query_topo;

/* The first corner of face f. */
static inline MMX__HD mmx_index mmx__query_face_start(const mmx__query_topo *T, mmx_index f)
{
    return T->order ? T->order * f : T->colptr[f];
}

/* F(i, j): the face holding the half-edge i -> j, or -1 when none does. */
static inline MMX__HD mmx_index mmx__query_F(const mmx__query_topo *T, mmx_index i, mmx_index j)
{
    const mmx_index a = T->Fptr[j], b = T->Fptr[j + 1];
    const mmx_index q = mmx__lower_bound(T->Frow, a, b, i);
    return q < b && T->Frow[q] == i ? T->Fval[q] : -1;
}

/* Whether corner c starts an open fan: its leaving edge {v, w} has not exactly two faces. */
static inline MMX__HD int mmx__query_opens(const mmx__query_topo *T, mmx_index c)
{
    return T->sides[T->fe[c] >> 1] != 2;
}

/* One step counter-clockwise around v = M[c]: v's corner in the face across c's arriving edge
 * {u, v}; -1 at the end of an open fan (that edge has not exactly two faces), -2 when the mesh
 * contradicts itself there (the other face does not run v -> u: an inconsistent edge, which
 * mmx_query refuses before it walks). */
static inline MMX__HD mmx_index mmx__query_ccw(const mmx__query_topo *T, mmx_index c)
{
    mmx_index a, n;
    mmx__corner_face(T->order, T->colptr, T->nf, c, &a, &n);
    const mmx_index p = mmx__corner_prev(a, n, c);
    if (T->sides[T->fe[p] >> 1] != 2) return -1;
    const mmx_index v = T->M[c], u = T->M[p];
    const mmx_index g = mmx__query_F(T, v, u);
    if (g < 0) return -2;
    /* v's corner in g: the corners at v ascend with their faces, so g's first corner finds it. */
    const mmx_index lo = T->Lptr[v], hi = T->Lptr[v + 1];
    const mmx_index q = mmx__lower_bound(T->L, lo, hi, mmx__query_face_start(T, g));
    if (q == hi) return -2;
    mmx_index ga, gn;
    if (mmx__corner_face(T->order, T->colptr, T->nf, T->L[q], &ga, &gn) != g) return -2;
    return T->L[q];
}

/* What a vertex query writes for corner c in its fan: the face, the vertex after v, or the
 * edge {v, w}. */
static inline MMX__HD mmx_index mmx__query_entry(const mmx__query_topo *T, mmx_query_kind kind,
                                                 mmx_index c)
{
    mmx_index a, n;
    const mmx_index f = mmx__corner_face(T->order, T->colptr, T->nf, c, &a, &n);
    if (kind == MMX_QUERY_VF) return f;
    if (kind == MMX_QUERY_VV) return T->M[c + 1 == a + n ? a : c + 1];
    return T->fe[c] >> 1;
}

/* What closes an open fan whose last corner is c: the vertex u before v, or the edge {u, v}. */
static inline MMX__HD mmx_index mmx__query_close(const mmx__query_topo *T, mmx_query_kind kind,
                                                 mmx_index c)
{
    mmx_index a, n;
    mmx__corner_face(T->order, T->colptr, T->nf, c, &a, &n);
    const mmx_index p = mmx__corner_prev(a, n, c);
    return kind == MMX_QUERY_VV ? T->M[p] : T->fe[p] >> 1;
}

/* The fan of v from corner c0 (open: c0 opens it; else a closed fan's smallest face): marks its
 * corners in `seen` when not NULL, writes its entries to out[0 .. cap) when out is not NULL, and
 * returns how many it has. A walk never meets more than `bound` faces (v's valence): a guard
 * against a view that contradicts itself, which the checks before rule out. */
static inline MMX__HD mmx_index mmx__query_fan(const mmx__query_topo *T, mmx_query_kind kind,
                                               mmx_index c0, int open, mmx_index bound,
                                               unsigned char *seen, mmx_index *out, mmx_index cap)
{
    mmx_index k = 0, c = c0, last = c0;
    do {
        if (seen) seen[c] = 1;
        if (out && k < cap) out[k] = mmx__query_entry(T, kind, c);
        k++;
        last = c;
        c = mmx__query_ccw(T, c);
    } while (c >= 0 && c != c0 && k < bound);
    if (open && kind != MMX_QUERY_VF) {
        if (out && k < cap) out[k] = mmx__query_close(T, kind, last);
        k++;
    }
    return k;
}

/* The length of v's row: its faces, and for VV and VE one more per open fan. */
static inline MMX__HD mmx_index mmx__query_vertex_count(const mmx__query_topo *T,
                                                        mmx_query_kind kind, mmx_index v,
                                                        mmx_index *opens)
{
    const mmx_index a = T->Lptr[v], b = T->Lptr[v + 1];
    mmx_index open = 0;
    for (mmx_index q = a; q < b; q++) open += mmx__query_opens(T, T->L[q]);
    *opens = open;
    return (b - a) + (kind == MMX_QUERY_VF ? 0 : open);
}

/* v's row into out[0 .. cap): first every open fan is walked to mark its corners in `seen`
 * (nnz bytes, zero at v's corners; each vertex owns its corners' bytes, so vertices run in
 * parallel); then v's corners in ascending face order each start their fan when they open
 * one, or when they are not yet seen (a closed fan, met first at its smallest face). So fans
 * come in the order of their starting faces, as query.h states. */
static inline MMX__HD void mmx__query_vertex_row(const mmx__query_topo *T, mmx_query_kind kind,
                                                 mmx_index v, unsigned char *seen,
                                                 mmx_index *out, mmx_index cap)
{
    const mmx_index a = T->Lptr[v], b = T->Lptr[v + 1];
    for (mmx_index q = a; q < b; q++)
        if (mmx__query_opens(T, T->L[q])) mmx__query_fan(T, kind, T->L[q], 1, b - a, seen, NULL, 0);
    mmx_index k = 0;
    for (mmx_index q = a; q < b; q++) {
        const mmx_index c = T->L[q];
        if (mmx__query_opens(T, c))
            k += mmx__query_fan(T, kind, c, 1, b - a, NULL, out + (k < cap ? k : cap),
                                k < cap ? cap - k : 0);
        else if (!seen[c])
            k += mmx__query_fan(T, kind, c, 0, b - a, seen, out + (k < cap ? k : cap),
                                k < cap ? cap - k : 0);
    }
}

/* The length of face f's FF row: the other faces of each of its edges. In 64 bits: a face
 * on edges of many faces can exceed an index (mmx_query refuses the total then). */
static inline MMX__HD int64_t mmx__query_ff_count(const mmx__query_topo *T, mmx_index f)
{
    mmx_index a = mmx__query_face_start(T, f);
    mmx_index b = T->order ? a + T->order : T->colptr[f + 1];
    int64_t n = 0;
    for (mmx_index c = a; c < b; c++) n += T->sides[T->fe[c] >> 1] - 1;
    return n;
}

/* Face f's FF row into out: per corner in order, the other faces of its edge in EF's order
 * (ascending; ef_ptr, ef are EF's rows). */
static inline MMX__HD void mmx__query_ff_row(const mmx__query_topo *T, const mmx_index *ef_ptr,
                                             const mmx_index *ef, mmx_index f, mmx_index *out)
{
    mmx_index a = mmx__query_face_start(T, f);
    mmx_index b = T->order ? a + T->order : T->colptr[f + 1];
    mmx_index k = 0;
    for (mmx_index c = a; c < b; c++) {
        const mmx_index e = T->fe[c] >> 1;
        for (mmx_index q = ef_ptr[e]; q < ef_ptr[e + 1]; q++)
            if (ef[q] != f) out[k++] = ef[q];
    }
}

/* What the counting and checking stages report through one read-back slot (core/device.h):
 * every field folds from 0. */
typedef struct mmx__query_report {
    unsigned long long total; /* the result's entries (VV, VE, FF), summed in 64 bits */
    mmx_index bad_rank;       /* nedges - e for the smallest inconsistent edge e, 0 if none */
    mmx_index pad;
} mmx__query_report;

/* Whether edge e (ends lo < hi, two faces) is inconsistent: its faces run it the same way,
 * so one of its two half-edges has no face. */
static inline MMX__HD int mmx__query_inconsistent(const mmx__query_topo *T, const mmx_index *ev,
                                                  mmx_index e)
{
    if (T->sides[e] != 2) return 0;
    const mmx_index lo = ev[2 * (size_t)e], hi = ev[2 * (size_t)e + 1];
    return mmx__query_F(T, lo, hi) < 0 || mmx__query_F(T, hi, lo) < 0;
}

/* ---- the query plan (query_plan.c, query_plan.cu) ------------------------------------------- */

/* The starting corners of v's fans, in the order v's row lists its fans (as
 * mmx__query_vertex_row finds them): up to cap of them into out when out is not NULL; returns
 * how many fans v has. `seen` (nnz bytes) is reset at v's corners first, so the call may be
 * repeated; each vertex owns its corners' bytes. */
static inline MMX__HD mmx_index mmx__query_vertex_starts(const mmx__query_topo *T, mmx_index v,
                                                        unsigned char *seen, mmx_index *out,
                                                        mmx_index cap)
{
    const mmx_index a = T->Lptr[v], b = T->Lptr[v + 1];
    for (mmx_index q = a; q < b; q++) seen[T->L[q]] = 0;
    for (mmx_index q = a; q < b; q++)
        if (mmx__query_opens(T, T->L[q]))
            mmx__query_fan(T, MMX_QUERY_VF, T->L[q], 1, b - a, seen, NULL, 0);
    mmx_index k = 0;
    for (mmx_index q = a; q < b; q++) {
        const mmx_index c = T->L[q];
        const int open = mmx__query_opens(T, c);
        if (!open && seen[c]) continue;
        if (!open) mmx__query_fan(T, MMX_QUERY_VF, c, 0, b - a, seen, NULL, 0);
        if (out && k < cap) out[k] = c;
        k++;
    }
    return k;
}

/* What a query plan's runs read (query.h: mmx_query_plan), every array in one space. The
 * vertex rows are gathers over the plan's source lists: per entry of VV/VE (vsrc) or VF
 * (fsrc), the corner whose fan step gives it, found once at creation by walks over mates
 * from each fan's start corner; a run then reads each entry's source and one array at it,
 * all entries in parallel. The edge and face rows are closed forms over an edge's smallest
 * corner and the mates, with EF's entries stored only when some edge has three faces or
 * more. */
typedef struct mmx__qplan {
    mmx_index nv, nf, ne, nnz;
    mmx_index order;         /* M's: > 0 reduced, 0 general (colptr) */
    const mmx_index *colptr; /* M's, when general */
    const mmx_index *M;      /* M's row indices */
    const mmx_index *fe;     /* the adjacency's corner -> edge, 2e + d */
    const mmx_index *mate;   /* the half-edge view's: the other corner of c's edge when it has
                                two faces, else -1 */
    const mmx_index *vstart; /* creation only (NULL in a built plan): nv: -1 a vertex in no
                                face; >= 0 the start corner of its one fan; <= -2: fans[-2 - s]
                                is its number of fans, their starts follow */
    const mmx_index *fans;   /* creation only: the fan lists of vertices of several fans */
    const mmx_index *vf_ptr; /* nv + 1: VF's row pointers (the valences' offsets) */
    const mmx_index *vv_ptr; /* nv + 1: VV's and VE's (valence + open fans); vf_ptr when no
                                fan is open */
    const mmx_index *fsrc;   /* nnz: VF's sources, each VF entry's corner (v's corners in the
                                order of its row) */
    const mmx_index *vsrc;   /* VV's and VE's sources (vv_ptr[nv] of them): a corner c >= 0
                                (the entry of c's fan step), or -1 - p for the entry that closes
                                an open fan (p: the last corner's previous corner); fsrc when no
                                fan is open; NULL when VV's entries overflow an index */
    const mmx_index *ecorner; /* ne: each edge's smallest corner */
    const mmx_index *ef_ptr; /* ne + 1: EF's row pointers (the offsets of E's values); NULL
                                when every edge has two faces (row e starts at 2e) */
    const mmx_index *ef;     /* EF's entries when an edge has three faces or more, else NULL */
    const mmx_index *ff_ptr; /* nf + 1: FF's row pointers; NULL when every edge has two faces
                                and every face the order `order` (row f starts at order f) */
} mmx__qplan;

/* Where EF's row e and FF's row f start (e = ne, f = nf: the entries' count). */
static inline MMX__HD mmx_index mmx__qplan_ef_at(const mmx__qplan *P, mmx_index e)
{
    return P->ef_ptr ? P->ef_ptr[e] : 2 * e;
}

static inline MMX__HD mmx_index mmx__qplan_ff_at(const mmx__qplan *P, mmx_index f)
{
    return P->ff_ptr ? P->ff_ptr[f] : P->order * f;
}

static inline MMX__HD mmx_index mmx__qplan_face(const mmx__qplan *P, mmx_index c, mmx_index *a,
                                                mmx_index *n)
{
    return mmx__corner_face(P->order, P->colptr, P->nf, c, a, n);
}

/* The sources of the fan that starts at corner c0 (open when c0's leaving edge has no
 * mate), counter-clockwise: from v's corner c in face f the next is the mate of c's arriving
 * edge (that face runs v -> u, so the mate is v's corner there), until an arriving edge has
 * no mate (an open fan's end) or the walk is back at c0. Writes each corner met, then, when
 * `closes` and the fan is open, -1 - p for the closing entry (p: the last corner's previous
 * corner, whose vertex u and edge {u, v} close VV's and VE's row), into out[0 .. cap); returns
 * how many it wrote. It stops at cap (a guard: a plan's rows are sized for the fans). */
static inline MMX__HD mmx_index mmx__qplan_fan_sources(const mmx__qplan *P, int closes,
                                                       mmx_index c0, mmx_index *out, mmx_index cap)
{
    if (cap <= 0) return 0;
    const int open = P->mate[c0] < 0;
    mmx_index k = 0, c = c0, p;
    for (;;) {
        mmx_index a, n;
        mmx__qplan_face(P, c, &a, &n);
        p = mmx__corner_prev(a, n, c);
        out[k++] = c;
        const mmx_index m = P->mate[p];
        if (m < 0 || m == c0 || k >= cap) break;
        c = m;
    }
    if (open && closes && k < cap) out[k++] = -1 - p;
    return k;
}

/* Vertex v's sources (VV's and VE's when `closes`, else VF's) into out (its row in the
 * plan's row pointers): its fans' in the order of their start corners. Creation only. */
static inline MMX__HD void mmx__qplan_vertex_sources(const mmx__qplan *P, int closes,
                                                     mmx_index v, mmx_index *out, mmx_index cap)
{
    const mmx_index s = P->vstart[v];
    if (s == -1) return;
    if (s >= 0) {
        mmx__qplan_fan_sources(P, closes, s, out, cap);
        return;
    }
    const mmx_index *L = P->fans + (-2 - s);
    mmx_index k = 0;
    for (mmx_index i = 0; i < L[0]; i++)
        k += mmx__qplan_fan_sources(P, closes, L[1 + i], out + k, cap - k);
}

/* The entry of vertex query `kind` from source s (vsrc's or fsrc's): for a corner c of v in
 * face f, f (VF), the vertex after v in f (VV) or c's edge {v, w} (VE); for a closing entry
 * -1 - p, p's vertex u (VV) or p's edge {u, v} (VE). */
static inline MMX__HD mmx_index mmx__qplan_vertex_entry(const mmx__qplan *P, mmx_query_kind kind,
                                                        mmx_index s)
{
    if (s < 0) {
        const mmx_index p = -1 - s;
        return kind == MMX_QUERY_VV ? P->M[p] : P->fe[p] >> 1;
    }
    if (kind == MMX_QUERY_VE) return P->fe[s] >> 1;
    mmx_index a, n;
    const mmx_index f = mmx__qplan_face(P, s, &a, &n);
    return kind == MMX_QUERY_VF ? f : P->M[mmx__corner_next(a, n, s)];
}

/* Edge e's EF row into out: its faces ascending (one or two from its smallest corner and that
 * corner's mate; the stored entries for three or more). */
static inline MMX__HD void mmx__qplan_ef_row(const mmx__qplan *P, mmx_index e, mmx_index *out)
{
    const mmx_index a = mmx__qplan_ef_at(P, e), n = mmx__qplan_ef_at(P, e + 1) - a;
    mmx_index fa, fn;
    if (n >= 3) {
        for (mmx_index i = 0; i < n; i++) out[i] = P->ef[a + i];
        return;
    }
    const mmx_index c = P->ecorner[e];
    out[0] = mmx__qplan_face(P, c, &fa, &fn);
    if (n == 2) out[1] = mmx__qplan_face(P, P->mate[c], &fa, &fn); /* larger corner, larger face */
}

/* Face f's FF row into out: per corner, the other faces of its edge (the mate's face, or
 * the stored EF row less f). */
static inline MMX__HD void mmx__qplan_ff_row(const mmx__qplan *P, mmx_index f, mmx_index *out)
{
    const mmx_index a = P->order ? P->order * f : P->colptr[f];
    const mmx_index b = P->order ? a + P->order : P->colptr[f + 1];
    mmx_index k = 0, fa, fn;
    for (mmx_index c = a; c < b; c++) {
        const mmx_index m = P->mate[c];
        if (m >= 0) {
            out[k++] = mmx__qplan_face(P, m, &fa, &fn);
            continue;
        }
        const mmx_index e = P->fe[c] >> 1, q0 = mmx__qplan_ef_at(P, e), q1 = mmx__qplan_ef_at(P, e + 1);
        if (q1 - q0 >= 3)
            for (mmx_index q = q0; q < q1; q++)
                if (P->ef[q] != f) out[k++] = P->ef[q];
    }
}

/* What a plan's counting stage reports through one read-back slot: every field folds from 0. */
typedef struct mmx__qplan_report {
    unsigned long long vv_total;   /* VV's and VE's entries */
    unsigned long long ff_total;   /* FF's entries */
    unsigned long long fans_total; /* the fan lists' length */
} mmx__qplan_report;

/* The plan's host stages in query.c's terms, for query_plan.c: the corners sorted by vertex
 * (or edge), and the orientation check. */
mmx_status mmx__query_sort_corners(mmx_ctx *ctx, const mmx__query_topo *T, int by_edge,
                                   mmx_index nkeys, mmx_index *faces, mmx_index *corners);
mmx_status mmx__query_check(mmx_ctx *ctx, const mmx__query_topo *T, const mmx_index *ev,
                            mmx_index ne, mmx__query_report *r);

/* The bytes a run of query kind by plan Q must move at least (bench/queries.c's plan floor):
 * every array it reads once (the row pointers, the sources or smallest corners, the mates of
 * the corners it reads, M or fe where the entries come from them, EF's stored entries when
 * there are some) and the result it writes (its entries and, when general, its row pointers).
 * Host arithmetic on the plan's sizes; no wait. */
double mmx__query_plan_bytes(const mmx_query_plan *Q, mmx_query_kind kind);

/* The bytes plan Q holds beside the mesh and its adjacency (its mates, sources, smallest
 * corners, the row pointers it keeps, EF's stored entries). Host arithmetic; no wait. */
double mmx__query_plan_memory(const mmx_query_plan *Q);

/* The plan's CUDA stages (query_plan.cu; stubs in nocuda.c), queued. */
/* Per vertex its fans' count and first start (vstart), its VV row length (vv_len) and its
 * fan list's length (fan_len: 0 for one fan, else fans + 1); per face its FF row length; per
 * corner the smallest corner of each edge (ecorner, set to all ones first); the totals into
 * *r. */
mmx_status mmx__qplan_count_cuda(mmx_ctx *ctx, const mmx__query_topo *T, unsigned char *seen,
                                 mmx_index *vstart, mmx_index *vv_len, mmx_index *fan_len,
                                 mmx_index *ff_len, mmx_index *ecorner, mmx_index ne,
                                 mmx__qplan_report *r);
/* The fan lists of the vertices of several fans (fan_ptr: the offsets of fan_len). */
mmx_status mmx__qplan_fans_cuda(mmx_ctx *ctx, const mmx__query_topo *T, unsigned char *seen,
                                const mmx_index *fan_ptr, mmx_index *vstart, mmx_index *fans);
/* The vertex rows' sources: per vertex, its VF sources into fsrc + vf_ptr[v] and, when vsrc
 * is not NULL (a mesh with an open fan), its VV sources into vsrc + vv_ptr[v] (P's vstart and
 * fans set). */
mmx_status mmx__qplan_sources_cuda(mmx_ctx *ctx, const mmx__qplan *P, mmx_index *fsrc,
                                   mmx_index *vsrc);
/* One query's rows (and row pointers, when general) into rowptr / colidx; total: the
 * result's entries (read by the vertex kinds, which run one thread per entry). */
mmx_status mmx__qplan_run_cuda(mmx_ctx *ctx, const mmx__qplan *P, mmx_query_kind kind,
                               mmx_index total, mmx_index *rowptr, mmx_index *colidx);

/* ---- the CUDA stages (query.cu; stubs in nocuda.c), device arrays, queued ---------------- */

/* out[c] = fe[c] >> 1 for the nnz corners: FE's entries. */
mmx_status mmx__query_fe_cuda(mmx_ctx *ctx, const mmx_index *fe, mmx_index nnz, mmx_index *out);

/* The corners sorted by `by_edge` ? their edge : their vertex, stably (ascending corners, so
 * ascending faces, within a key): keys in [0, nkeys). Writes, per sorted corner, its face
 * (`faces`, EF's entries) or the corner itself (`corners`, the corner lists); one may be NULL. */
mmx_status mmx__query_sort_corners_cuda(mmx_ctx *ctx, const mmx__query_topo *T, int by_edge,
                                        mmx_index nkeys, mmx_index *faces, mmx_index *corners);

/* report->bad_rank from the edges (ev, ne of them). */
mmx_status mmx__query_check_cuda(mmx_ctx *ctx, const mmx__query_topo *T, const mmx_index *ev,
                                 mmx_index ne, mmx__query_report *report);

/* Row lengths into counts (nv for a vertex kind, nf for FF), their 64-bit sum into
 * report->total. */
mmx_status mmx__query_counts_cuda(mmx_ctx *ctx, const mmx__query_topo *T, mmx_query_kind kind,
                                  mmx_index *counts, mmx__query_report *report);

/* The rows: a vertex kind's walks (seen: nnz zeroed bytes) or FF's (ef_ptr, ef: EF). */
mmx_status mmx__query_fill_cuda(mmx_ctx *ctx, const mmx__query_topo *T, mmx_query_kind kind,
                                const mmx_index *ef_ptr, const mmx_index *ef,
                                unsigned char *seen, const mmx_index *rowptr, mmx_index *colidx);

#ifdef __cplusplus
}
#endif
#endif
