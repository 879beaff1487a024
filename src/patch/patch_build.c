/* The patch set's build (patch_internal.h, mmx__patch_build_host), in the steps patch.h
 * states: the cut (faces ordered along a Morton curve through their centroids, runs of S
 * faces, or with labels runs that follow the label groups, each run split into its
 * edge-connected components, patches numbered by run and then by their smallest face), the owners (an edge or a vertex goes with its incident face of
 * smallest number), and per patch its local elements (owned, then the ribbon: every face at a
 * vertex of an owned face) with its FE and EV blocks in 16-bit local indices.
 *
 * Every step is a function of the mesh alone (stable sorts, minima, sets kept in ascending
 * order), so the same mesh gives the same set from run to run. The CUDA backend builds the
 * same arrays with kernels (patch_build.cu); this build is the reference the tests hold it to. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "patch_block.h"
#include "patch_host.h"

mmx_status mmx__pgrow_to(mmx_ctx *ctx, mmx__pgrow *g, size_t n)
{
    if (n <= g->cap) return MMX_OK;
    size_t cap = g->cap ? g->cap : 1024, bytes;
    while (cap < n) cap *= 2;
    if (!mmx__mul_ok(cap, g->size, &bytes))
        return mmx__fail(ctx, MMX_ERR_OVERFLOW, "patch set: %zu items overflow", cap);
    void *q = realloc(g->p, bytes);
    if (!q) return mmx__fail(ctx, MMX_ERR_NOMEM, "patch set: out of host memory (%zu bytes)", bytes);
    g->p = q, g->cap = cap;
    return MMX_OK;
}

/* The 10 bits of x spread to every third bit (a Morton code's axis). */
static uint32_t spread3(uint32_t x)
{
    x &= 0x3ff;
    x = (x | (x << 16)) & 0x030000ff;
    x = (x | (x << 8)) & 0x0300f00f;
    x = (x | (x << 4)) & 0x030c30c3;
    x = (x | (x << 2)) & 0x09249249;
    return x;
}

/* A coordinate's cell among 1024 along [lo, hi]. */
static uint32_t cell(double c, double lo, double hi)
{
    if (!(hi > lo)) return 0;
    const double t = (c - lo) / (hi - lo) * 1024.0;
    return !(t > 0) ? 0 : t >= 1023 ? 1023 : (uint32_t)t; /* NaN: 0, on every backend */
}

/* Sorts a[0 .. n) ascending: insertion for short runs, heapsort (n log n whatever the input,
 * no recursion, no extra memory) for long ones; inlined comparisons, as a patch's lists are
 * sorted by the thousand (qsort's calls through a pointer cost more than the sort). */
static void sort_indices(mmx_index *a, mmx_index n)
{
    if (n <= 24) {
        for (mmx_index i = 1; i < n; i++) {
            const mmx_index x = a[i];
            mmx_index j = i;
            for (; j > 0 && a[j - 1] > x; j--) a[j] = a[j - 1];
            a[j] = x;
        }
        return;
    }
    for (mmx_index top = n / 2; top-- > 0;) { /* a max-heap, then its top to the end */
        mmx_index r = top;
        const mmx_index x = a[r];
        for (mmx_index ch; (ch = 2 * r + 1) < n; r = ch) {
            if (ch + 1 < n && a[ch + 1] > a[ch]) ch++;
            if (x >= a[ch]) break;
            a[r] = a[ch];
        }
        a[r] = x;
    }
    for (mmx_index end = n - 1; end > 0; end--) {
        const mmx_index x = a[end];
        a[end] = a[0];
        mmx_index r = 0;
        for (mmx_index ch; (ch = 2 * r + 1) < end; r = ch) {
            if (ch + 1 < end && a[ch + 1] > a[ch]) ch++;
            if (x >= a[ch]) break;
            a[r] = a[ch];
        }
        a[r] = x;
    }
}

static mmx_index uf_find(mmx_index *parent, mmx_index i)
{
    while (parent[i] != i) {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    return i;
}

void mmx__patch_centroid(const mmx_csc *M, const float *pos, mmx_index f, double c[3])
{
    int64_t a, b;
    mmx__csc_col(M, f, &a, &b);
    for (int d = 0; d < 3; d++) {
        double sum = 0;
        if (pos)
            for (int64_t k = a; k < b; k++) sum += (double)pos[3 * (size_t)M->rowidx[k] + (size_t)d];
        c[d] = sum / (double)(b - a);
    }
}

void mmx__patch_centroid_box(const mmx_csc *M, const float *pos, double lo[3], double hi[3])
{
    for (int d = 0; d < 3; d++) lo[d] = hi[d] = 0;
    for (mmx_index f = 0; f < M->ncols; f++) {
        double x[3];
        mmx__patch_centroid(M, pos, f, x);
        for (int d = 0; d < 3; d++) {
            if (f == 0 || x[d] < lo[d]) lo[d] = x[d];
            if (f == 0 || x[d] > hi[d]) hi[d] = x[d];
        }
    }
}

uint64_t mmx__patch_morton(const double c[3], const double lo[3], const double hi[3])
{
    return spread3(cell(c[0], lo[0], hi[0])) | spread3(cell(c[1], lo[1], hi[1])) << 1 |
           spread3(cell(c[2], lo[2], hi[2])) << 2;
}

/* The faces in cut order: sorted by the Morton code of their centroids (in the box of the
 * centroids), ties by number: each step rounds the same way wherever it runs. No positions:
 * number order. */
static mmx_status morton_order(mmx_ctx *ctx, const mmx_csc *M, const float *pos, mmx_index *srt)
{
    const mmx_index F = M->ncols;
    uint64_t *key = NULL, *ktmp = NULL;
    mmx_index *vtmp = NULL, *vals = NULL;
    mmx_status s = mmx__host_alloc(ctx, (size_t)F, sizeof *key, (void **)&key);
    if (!s) s = mmx__host_alloc(ctx, (size_t)F, sizeof *ktmp, (void **)&ktmp);
    if (!s) s = mmx__host_alloc(ctx, (size_t)F, sizeof *vtmp, (void **)&vtmp);
    if (s) goto out;
    double lo[3], hi[3];
    mmx__patch_centroid_box(M, pos, lo, hi);
    for (mmx_index f = 0; f < F; f++) {
        double c[3];
        mmx__patch_centroid(M, pos, f, c);
        key[f] = mmx__patch_morton(c, lo, hi);
        srt[f] = f;
    }
    /* Stable: faces of one cell stay in number order. */
    mmx__radix_sort_u64(key, ktmp, srt, vtmp, (size_t)F, 0, 32, &vals);
    if (vals != srt) memcpy(srt, vals, (size_t)F * sizeof *srt);
out:
    free(key), free(ktmp), free(vtmp);
    return s;
}

/* Offsets and lists of the elements' faces, in ascending face order: per edge (from fe) or
 * per vertex (from M's rows). */
mmx_status mmx__patch_incidence(mmx_ctx *ctx, const mmx_csc *M, const mmx_index *fe, mmx_index n,
                                mmx_index **off_out, mmx_index **list_out)
{
    mmx_index *off = NULL, *list = NULL;
    mmx_status s = mmx__host_alloc(ctx, (size_t)n + 1, sizeof *off, (void **)&off);
    if (!s) s = mmx__host_alloc(ctx, (size_t)M->nnz, sizeof *list, (void **)&list);
    if (s) {
        free(off);
        return s;
    }
    memset(off, 0, ((size_t)n + 1) * sizeof *off);
    for (mmx_index c = 0; c < M->nnz; c++) off[(fe ? fe[c] >> 1 : M->rowidx[c]) + 1]++;
    for (mmx_index i = 0; i < n; i++) off[i + 1] += off[i];
    for (mmx_index f = 0; f < M->ncols; f++) {
        int64_t a, b;
        mmx__csc_col(M, f, &a, &b);
        for (int64_t c = a; c < b; c++) list[off[fe ? fe[c] >> 1 : M->rowidx[c]]++] = f;
    }
    for (mmx_index i = n; i > 0; i--) off[i] = off[i - 1];
    off[0] = 0;
    *off_out = off, *list_out = list;
    return MMX_OK;
}

/* The cut: patch of every face, and the owned faces patch by patch (pf, with pstart). With
 * labels (patch_internal.h), the cut order is sorted stably by label and the runs follow the
 * groups; without, runs of S along the curve. */
static mmx_status cut(mmx_ctx *ctx, const mmx_csc *M, const float *pos, const mmx_index *fe,
                      const mmx_index *ef_off, const mmx_index *ef, mmx_index S,
                      const mmx_index *label, mmx_patch_set *ps, mmx_index *pf,
                      mmx_index **pstart_out)
{
    const mmx_index F = M->ncols;
    mmx_index *srt = NULL, *at = NULL, *parent = NULL, *minf = NULL, *vtmp = NULL, *pstart = NULL;
    mmx_index *run = NULL;
    uint64_t *key = NULL, *ktmp = NULL;
    mmx_status s = MMX_OK;
    if (label)
        for (mmx_index f = 0; f < F; f++)
            if (label[f] < 0) return mmx__patch_bad_label(ctx, f, label[f]);
    s = mmx__host_alloc(ctx, (size_t)F, sizeof *srt, (void **)&srt);
    if (!s) s = mmx__host_alloc(ctx, (size_t)F, sizeof *at, (void **)&at);
    if (!s) s = mmx__host_alloc(ctx, (size_t)F, sizeof *parent, (void **)&parent);
    if (!s) s = mmx__host_alloc(ctx, (size_t)F, sizeof *minf, (void **)&minf);
    if (!s) s = mmx__host_alloc(ctx, (size_t)F, sizeof *vtmp, (void **)&vtmp);
    if (!s) s = mmx__host_alloc(ctx, (size_t)F, sizeof *run, (void **)&run);
    if (!s) s = mmx__host_alloc(ctx, (size_t)F, sizeof *key, (void **)&key);
    if (!s) s = mmx__host_alloc(ctx, (size_t)F, sizeof *ktmp, (void **)&ktmp);
    if (!s) s = morton_order(ctx, M, pos, srt);
    if (s) goto out;
    if (label) {
        /* Stably by label: each group's faces stay in curve order. */
        for (mmx_index i = 0; i < F; i++) key[i] = (uint64_t)(uint32_t)label[srt[i]];
        mmx_index *vals = NULL;
        const uint64_t *lk = mmx__radix_sort_u64(key, ktmp, srt, vtmp, (size_t)F, 0, 32, &vals);
        if (vals != srt) memcpy(srt, vals, (size_t)F * sizeof *srt);
        mmx_index r = -1;
        for (mmx_index g0 = 0, g1; g0 < F; g0 = g1) {
            for (g1 = g0 + 1; g1 < F && lk[g1] == lk[g0]; g1++) {}
            for (mmx_index i = g0; i < g1; i++) {
                r += mmx__patch_run_head(i, g0, g1, S);
                run[i] = r;
            }
        }
    } else {
        for (mmx_index i = 0; i < F; i++) run[i] = i / S;
    }
    for (mmx_index i = 0; i < F; i++) at[srt[i]] = i, parent[i] = i;
    /* Components of each run: faces joined across an edge, both in the run. */
    for (mmx_index i = 0; i < F; i++) {
        const mmx_index f = srt[i];
        int64_t a, b;
        mmx__csc_col(M, f, &a, &b);
        for (int64_t c = a; c < b; c++) {
            const mmx_index e = fe[c] >> 1;
            for (mmx_index q = ef_off[e]; q < ef_off[e + 1]; q++) {
                const mmx_index j = at[ef[q]];
                if (run[j] != run[i]) continue;
                const mmx_index r1 = uf_find(parent, i), r2 = uf_find(parent, j);
                if (r1 != r2) parent[r1 > r2 ? r1 : r2] = r1 > r2 ? r2 : r1;
            }
        }
    }
    for (mmx_index i = 0; i < F; i++) minf[i] = F;
    for (mmx_index i = 0; i < F; i++) {
        const mmx_index r = uf_find(parent, i);
        if (srt[i] < minf[r]) minf[r] = srt[i];
    }
    /* Patches: faces sorted by (run, smallest face of their component), stably from number
     * order, so each patch's faces come out ascending. */
    int runbits = 0;
    while (runbits < 31 && (F ? run[F - 1] : 0) >> runbits) runbits++;
    for (mmx_index f = 0; f < F; f++) {
        const mmx_index i = at[f];
        key[f] = (uint64_t)run[i] << 32 | (uint32_t)minf[uf_find(parent, i)];
        pf[f] = f;
    }
    mmx_index *vals = NULL;
    const uint64_t *sk = mmx__radix_sort_u64(key, ktmp, pf, vtmp, (size_t)F, 0,
                                             32 + (unsigned)(runbits + 7) / 8 * 8, &vals);
    if (vals != pf) memcpy(pf, vals, (size_t)F * sizeof *pf);
    mmx_index np = 0;
    for (mmx_index i = 0; i < F; i++) np += i == 0 || sk[i] != sk[i - 1];
    s = mmx__host_alloc(ctx, (size_t)np + 1, sizeof *pstart, (void **)&pstart);
    if (s) goto out;
    np = 0;
    for (mmx_index i = 0; i < F; i++) {
        if (i == 0 || sk[i] != sk[i - 1]) pstart[np++] = i;
        ps->face_patch[pf[i]] = np - 1;
    }
    pstart[np] = F;
    ps->npatches = np;
    *pstart_out = pstart;
out:
    free(srt), free(at), free(parent), free(minf), free(vtmp), free(run), free(key), free(ktmp);
    return s;
}

typedef mmx__pbuild build;

static mmx_status refuse(build *B, mmx_index p, mmx_index nf, mmx_index ne, mmx_index nv,
                         const mmx_index *verts, mmx_index nverts)
{
    mmx_index best = -1, bval = -1;
    for (mmx_index i = 0; i < nverts; i++) {
        const mmx_index v = verts[i], val = B->vf_off[v + 1] - B->vf_off[v];
        if (val > bval || (val == bval && v < best)) best = v, bval = val;
    }
    return mmx__patch_refuse(B->ctx, p, nf, ne, nv, best, bval);
}

mmx_status mmx__patch_bad_label(mmx_ctx *ctx, mmx_index f, mmx_index label)
{
    return mmx__fail(ctx, MMX_ERR_ARG, "mmx_patch_set_follow: face %d has label %d, negative", f,
                     label);
}

mmx_status mmx__patch_refuse(mmx_ctx *ctx, mmx_index p, mmx_index nf, mmx_index ne, mmx_index nv,
                             mmx_index v, mmx_index valence)
{
    return mmx__fail(ctx, MMX_ERR_MESH,
                     "patch %d has %d local faces, %d edges and %d vertices, more than 16-bit "
                     "local indices hold (%d faces and vertices, %d edges): its vertex %d has "
                     "%d faces",
                     p, nf, ne, nv, MMX__PATCH_MAX_LOCAL, MMX__PATCH_MAX_LOCAL_EDGES, v, valence);
}

void mmx__patch_stats_finish(mmx_patch_set *ps, int64_t nlf, int64_t nle, int64_t nlv, int64_t nc,
                             int64_t owned_v)
{
    mmx_patch_stats *st = &ps->stats;
    const int64_t np = ps->npatches, F = ps->nfaces, E = ps->nedges;
    ps->nlf = nlf, ps->nle = nle, ps->nlv = nlv, ps->nlc = nc;
    st->npatches = ps->npatches;
    st->mean_faces = np ? (double)F / (double)np : 0;
    st->ribbon_faces = nlf - F;
    st->ribbon_share = nlf ? (double)st->ribbon_faces / (double)nlf : 0;
    /* patch.h says what each count holds. Per patch: 4 offsets (np + 1 each) and 3 owned
     * counts; the blocks (2 bytes a local corner, 4 a local edge, and a face start per local
     * face for mixed orders); 4 bytes per local element in the maps; the face owners. */
    const int64_t per_patch = 4 * (4 * (np + 1) + 3 * np);
    const int64_t blocks = 2 * nc + 4 * nle + (ps->order ? 0 : 4 * nlf);
    st->bytes = per_patch + blocks + 4 * (nlf + nle + nlv) + 4 * F;
    st->bytes_per_face = F ? (double)st->bytes / (double)F : 0;
    /* The maps' ribbon parts: every face, edge and vertex in a face is owned once, so the
     * owned entries are F, E and owned_v (the vertices in faces). */
    st->topology_bytes = per_patch + blocks + 4 * ((nlf - F) + (nle - E) + (nlv - owned_v));
    st->topology_bytes_per_face = F ? (double)st->topology_bytes / (double)F : 0;
}

mmx_status mmx__patch_locals(build *B, mmx_index p, const mmx_index *own, mmx_index nown)
{
    mmx_patch_set *ps = B->ps;
    const mmx_csc *M = B->M;
    mmx_status s;
    /* Faces: the owned ones, then the ribbon. */
    const size_t f0 = B->lf.n;
    if ((s = mmx__pgrow_to(B->ctx, &B->lf, f0 + (size_t)nown))) return s;
    memcpy((mmx_index *)B->lf.p + f0, own, (size_t)nown * sizeof *own);
    B->lf.n += (size_t)nown;
    for (mmx_index i = 0; i < nown; i++) B->mark_f[own[i]] = p;
    for (mmx_index i = 0; i < nown; i++) {
        int64_t a, b;
        mmx__csc_col(M, own[i], &a, &b);
        for (int64_t c = a; c < b; c++) {
            const mmx_index v = M->rowidx[c];
            for (mmx_index q = B->vf_off[v]; q < B->vf_off[v + 1]; q++) {
                const mmx_index g = B->vf[q];
                if (B->mark_f[g] == p) continue;
                B->mark_f[g] = p;
                if ((s = mmx__pgrow_to(B->ctx, &B->lf, B->lf.n + 1))) return s;
                ((mmx_index *)B->lf.p)[B->lf.n++] = g;
            }
        }
    }
    mmx_index *lf = (mmx_index *)B->lf.p + f0;
    const mmx_index nf = (mmx_index)(B->lf.n - f0);
    sort_indices(lf + nown, nf - nown);
    /* Edges and vertices: owned ones straight into the lists, the others aside, then both
     * sorted. */
    const size_t e0 = B->le.n, v0 = B->lv.n;
    mmx_index ne_other = 0, nv_other = 0, nc = 0;
    for (mmx_index l = 0; l < nf; l++) {
        int64_t a, b;
        mmx__csc_col(M, lf[l], &a, &b);
        nc += (mmx_index)(b - a);
        for (int64_t c = a; c < b; c++) {
            const mmx_index e = B->fe[c] >> 1, v = M->rowidx[c];
            if (B->mark_e[e] != p) {
                B->mark_e[e] = p;
                if (ps->edge_patch[e] == p) {
                    if ((s = mmx__pgrow_to(B->ctx, &B->le, B->le.n + 1))) return s;
                    ((mmx_index *)B->le.p)[B->le.n++] = e;
                } else {
                    B->tmp_e[ne_other++] = e;
                }
            }
            if (B->mark_v[v] != p) {
                B->mark_v[v] = p;
                if (ps->vert_patch[v] == p) {
                    if ((s = mmx__pgrow_to(B->ctx, &B->lv, B->lv.n + 1))) return s;
                    ((mmx_index *)B->lv.p)[B->lv.n++] = v;
                } else {
                    B->tmp_v[nv_other++] = v;
                }
            }
        }
    }
    const mmx_index oe = (mmx_index)(B->le.n - e0), ov = (mmx_index)(B->lv.n - v0);
    const mmx_index ne = oe + ne_other, nv = ov + nv_other;
    if ((s = mmx__pgrow_to(B->ctx, &B->le, e0 + (size_t)ne))) return s;
    if ((s = mmx__pgrow_to(B->ctx, &B->lv, v0 + (size_t)nv))) return s;
    mmx_index *le = (mmx_index *)B->le.p + e0, *lv = (mmx_index *)B->lv.p + v0;
    memcpy(le + oe, B->tmp_e, (size_t)ne_other * sizeof *le);
    memcpy(lv + ov, B->tmp_v, (size_t)nv_other * sizeof *lv);
    B->le.n += (size_t)ne_other, B->lv.n += (size_t)nv_other;
    if (nf > MMX__PATCH_MAX_LOCAL || nv > MMX__PATCH_MAX_LOCAL || ne > MMX__PATCH_MAX_LOCAL_EDGES)
        return refuse(B, p, nf, ne, nv, lv, nv);
    sort_indices(le, oe);
    sort_indices(le + oe, ne_other);
    sort_indices(lv, ov);
    sort_indices(lv + ov, nv_other);
    for (mmx_index i = 0; i < ne; i++) B->loc_e[le[i]] = i;
    for (mmx_index i = 0; i < nv; i++) B->loc_v[lv[i]] = i;
    /* The blocks. */
    const size_t c0 = B->fe16.n;
    if ((s = mmx__pgrow_to(B->ctx, &B->fe16, c0 + (size_t)nc))) return s;
    if ((s = mmx__pgrow_to(B->ctx, &B->ev16, B->ev16.n + 2 * (size_t)ne))) return s;
    if (!ps->order && (s = mmx__pgrow_to(B->ctx, &B->fst, B->fst.n + (size_t)nf))) return s;
    uint16_t *fe16 = (uint16_t *)B->fe16.p + c0;
    mmx_index k = 0;
    for (mmx_index l = 0; l < nf; l++) {
        int64_t a, b;
        mmx__csc_col(M, lf[l], &a, &b);
        if (!ps->order) ((mmx_index *)B->fst.p)[B->fst.n++] = k;
        for (int64_t c = a; c < b; c++)
            fe16[k++] = (uint16_t)(B->loc_e[B->fe[c] >> 1] << 1 | (B->fe[c] & 1));
    }
    B->fe16.n += (size_t)nc;
    uint16_t *ev16 = (uint16_t *)B->ev16.p + B->ev16.n;
    for (mmx_index i = 0; i < ne; i++) {
        ev16[2 * i] = (uint16_t)B->loc_v[B->ev[2 * (size_t)le[i]]];
        ev16[2 * i + 1] = (uint16_t)B->loc_v[B->ev[2 * (size_t)le[i] + 1]];
    }
    B->ev16.n += 2 * (size_t)ne;
    /* Owners' local indices, counts, offsets, maxima. */
    if (ps->face_local) /* the full build's; the update makes none */
        for (mmx_index i = 0; i < nown; i++) ps->face_local[lf[i]] = (uint16_t)i;
    if (ps->edge_local)
        for (mmx_index i = 0; i < oe; i++) ps->edge_local[le[i]] = (uint16_t)i;
    if (ps->vert_local)
        for (mmx_index i = 0; i < ov; i++) ps->vert_local[lv[i]] = (uint16_t)i;
    ps->owned[3 * p] = nown, ps->owned[3 * p + 1] = oe, ps->owned[3 * p + 2] = ov;
    ps->face_off[p + 1] = (mmx_index)B->lf.n;
    ps->edge_off[p + 1] = (mmx_index)B->le.n;
    ps->vert_off[p + 1] = (mmx_index)B->lv.n;
    ps->corner_off[p + 1] = (mmx_index)B->fe16.n;
    mmx_patch_stats *st = &ps->stats;
    if (nf > st->max_local_faces) st->max_local_faces = nf;
    if (ne > st->max_local_edges) st->max_local_edges = ne;
    if (nv > st->max_local_verts) st->max_local_verts = nv;
    if (nc > ps->max_corners) ps->max_corners = nc;
    const size_t w = mmx__patch_scratch_bytes(nf, ne, nv, nc);
    if (w > ps->max_scratch) ps->max_scratch = w;
    if (p == 0 || nown < st->min_faces) st->min_faces = nown;
    if (nown > st->max_faces) st->max_faces = nown;
    return MMX_OK;
}

/* The smallest edge with exactly two face entries whose faces run it the same way (the test
 * of mmx__pl_inconsistent: each face's direction read at its last corner on the edge), or -1:
 * the set's record of whether the mesh is consistently oriented. */
mmx_index mmx__patch_first_inconsistent(const mmx_csc *M, const mmx_index *fe,
                                        const mmx_index *ef_off, const mmx_index *ef, mmx_index E)
{
    for (mmx_index e = 0; e < E; e++) {
        if (ef_off[e + 1] - ef_off[e] != 2) continue;
        int dir[2] = {0, 0};
        for (int t = 0; t < 2; t++) {
            int64_t a, b;
            mmx__csc_col(M, ef[ef_off[e] + t], &a, &b);
            for (int64_t c = a; c < b; c++)
                if ((fe[c] >> 1) == e) dir[t] = fe[c] & 1;
        }
        if (dir[0] == dir[1]) return e;
    }
    return -1;
}

/* Allocates an array of n items of `size` bytes in host memory into *p. */
static mmx_status take(mmx_ctx *ctx, size_t n, size_t size, void *p)
{
    return mmx__host_alloc(ctx, n, size, (void **)p);
}

mmx_status mmx__patch_build_host(mmx_ctx *ctx, const mmx_csc *M, const float *pos,
                                 const mmx_index *fe, const mmx_index *ev, const mmx_index *label,
                                 mmx_patch_set *ps)
{
    const mmx_index F = M->ncols, V = M->nrows, E = ps->nedges, S = ps->max_faces;
    build B;
    memset(&B, 0, sizeof B);
    B.ctx = ctx, B.M = M, B.fe = fe, B.ev = ev, B.ps = ps;
    B.lf.size = B.le.size = B.lv.size = B.fst.size = sizeof(mmx_index);
    B.fe16.size = B.ev16.size = sizeof(uint16_t);
    mmx_index *ef_off = NULL, *ef = NULL, *pf = NULL, *pstart = NULL;
    ps->space = MMX_SPACE_HOST;
    mmx_status s = take(ctx, (size_t)F, sizeof(mmx_index), &ps->face_patch);
    if (!s) s = take(ctx, (size_t)E, sizeof(mmx_index), &ps->edge_patch);
    if (!s) s = take(ctx, (size_t)V, sizeof(mmx_index), &ps->vert_patch);
    if (!s) s = take(ctx, (size_t)F, sizeof(uint16_t), &ps->face_local);
    if (!s) s = take(ctx, (size_t)E, sizeof(uint16_t), &ps->edge_local);
    if (!s) s = take(ctx, (size_t)V, sizeof(uint16_t), &ps->vert_local);
    if (!s) s = take(ctx, (size_t)F, sizeof(mmx_index), &pf);
    if (!s) s = mmx__patch_incidence(ctx, M, fe, E, &ef_off, &ef);
    if (!s) s = mmx__patch_incidence(ctx, M, NULL, V, (mmx_index **)&B.vf_off, (mmx_index **)&B.vf);
    if (!s) s = cut(ctx, M, pos, fe, ef_off, ef, S, label, ps, pf, &pstart);
    if (s) goto out;
    const mmx_index np = ps->npatches;
    /* Owners: the patch of the incident face of smallest number (faces are met ascending). */
    for (mmx_index e = 0; e < E; e++) ps->edge_patch[e] = -1;
    for (mmx_index v = 0; v < V; v++) ps->vert_patch[v] = -1, ps->vert_local[v] = 0xffff;
    for (mmx_index f = 0; f < F; f++) {
        int64_t a, b;
        mmx__csc_col(M, f, &a, &b);
        for (int64_t c = a; c < b; c++) {
            mmx_index *pe = &ps->edge_patch[fe[c] >> 1], *pv = &ps->vert_patch[M->rowidx[c]];
            if (*pe < 0) *pe = ps->face_patch[f];
            if (*pv < 0) *pv = ps->face_patch[f];
        }
    }
    s = take(ctx, (size_t)np + 1, sizeof(mmx_index), &ps->face_off);
    if (!s) s = take(ctx, (size_t)np + 1, sizeof(mmx_index), &ps->edge_off);
    if (!s) s = take(ctx, (size_t)np + 1, sizeof(mmx_index), &ps->vert_off);
    if (!s) s = take(ctx, (size_t)np + 1, sizeof(mmx_index), &ps->corner_off);
    if (!s) s = take(ctx, 3 * (size_t)np, sizeof(mmx_index), &ps->owned);
    if (!s) s = take(ctx, (size_t)F, sizeof(mmx_index), &B.mark_f);
    if (!s) s = take(ctx, (size_t)E, sizeof(mmx_index), &B.mark_e);
    if (!s) s = take(ctx, (size_t)V, sizeof(mmx_index), &B.mark_v);
    if (!s) s = take(ctx, (size_t)E, sizeof(mmx_index), &B.loc_e);
    if (!s) s = take(ctx, (size_t)V, sizeof(mmx_index), &B.loc_v);
    if (!s) s = take(ctx, (size_t)E, sizeof(mmx_index), &B.tmp_e);
    if (!s) s = take(ctx, (size_t)V, sizeof(mmx_index), &B.tmp_v);
    if (s) goto out;
    for (mmx_index f = 0; f < F; f++) B.mark_f[f] = -1;
    for (mmx_index e = 0; e < E; e++) B.mark_e[e] = -1;
    for (mmx_index v = 0; v < V; v++) B.mark_v[v] = -1;
    ps->face_off[0] = ps->edge_off[0] = ps->vert_off[0] = ps->corner_off[0] = 0;
    for (mmx_index p = 0; p < np && !s; p++)
        s = mmx__patch_locals(&B, p, pf + pstart[p], pstart[p + 1] - pstart[p]);
    if (s) goto out;
    /* The lists become the set's arrays (at least one item each, so none is NULL). */
    ps->l2g_f = B.lf.p, ps->l2g_e = B.le.p, ps->l2g_v = B.lv.p;
    ps->fe = B.fe16.p, ps->ev = B.ev16.p, ps->fstart = B.fst.p;
    B.lf.p = B.le.p = B.lv.p = B.fe16.p = B.ev16.p = B.fst.p = NULL;
    if (!ps->l2g_f) s = take(ctx, 0, sizeof(mmx_index), &ps->l2g_f);
    if (!s && !ps->l2g_e) s = take(ctx, 0, sizeof(mmx_index), &ps->l2g_e);
    if (!s && !ps->l2g_v) s = take(ctx, 0, sizeof(mmx_index), &ps->l2g_v);
    if (!s && !ps->fe) s = take(ctx, 0, sizeof(uint16_t), &ps->fe);
    if (!s && !ps->ev) s = take(ctx, 0, sizeof(uint16_t), &ps->ev);
    if (!s && !ps->order && !ps->fstart) s = take(ctx, 0, sizeof(mmx_index), &ps->fstart);
    if (s) goto out;
    /* What the set is like. */
    int64_t owned_v = 0;
    for (mmx_index p = 0; p < np; p++) owned_v += ps->owned[3 * p + 2];
    mmx__patch_stats_finish(ps, ps->face_off[np], ps->edge_off[np], ps->vert_off[np],
                            ps->corner_off[np], owned_v);
    ps->bad_edge = mmx__patch_first_inconsistent(M, fe, ef_off, ef, E);
out:
    free(ef_off), free(ef), free(pf), free(pstart);
    free((void *)B.vf_off), free((void *)B.vf);
    free(B.mark_f), free(B.mark_e), free(B.mark_v), free(B.loc_e), free(B.loc_v);
    free(B.tmp_e), free(B.tmp_v);
    free(B.lf.p), free(B.le.p), free(B.lv.p), free(B.fst.p), free(B.fe16.p), free(B.ev16.p);
    return s;
}
