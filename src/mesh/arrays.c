/* Meshes from arrays in either space (mesh.h): mmx_mesh_from_arrays, which copies, and
 * mmx_mesh_wrap_arrays, which uses the caller's arrays in place. Both check the arrays where
 * they live with the steps of arrays_step.h (the rules of mesh_internal.h, stated once), read
 * the fault record once, and word a fault from the arrays as mmx_mesh_from_faces does. */
#include <stdio.h>
#include <string.h>
#include "arrays_step.h"
#include "spla/spla_internal.h"

/* The argument checks of both constructors, and with `wrap` the layouts a wrap refuses. */
static mmx_status check_args(mmx_ctx *ctx, const char *who, const mmx_mesh_arrays *a,
                             int wrap, mmx_mesh **out)
{
    if (!a || !out) return mmx__fail(ctx, MMX_ERR_ARG, "%s: NULL argument", who);
    *out = NULL;
    if (a->nverts < 0 || a->nfaces < 0 || a->order < 0)
        return mmx__fail(ctx, MMX_ERR_ARG, "%s: bad sizes (%d vertices, %d faces, order %d)", who,
                         a->nverts, a->nfaces, a->order);
    if (a->order == 1 || a->order == 2)
        return mmx__fail(ctx, MMX_ERR_MESH, "every face has order %d: a face needs at least 3 "
                         "vertices", a->order);
    if ((a->nfaces > 0 && !a->verts) || (a->order == 0 && !a->start))
        return mmx__fail(ctx, MMX_ERR_ARG, "%s: %s is NULL", who, a->verts ? "start" : "verts");
    if (a->nfaces == MMX_INDEX_MAX)
        return mmx__fail(ctx, MMX_ERR_OVERFLOW, "%d faces do not fit 32-bit indices", a->nfaces);
    if ((int64_t)a->order * a->nfaces > MMX_INDEX_MAX)
        return mmx__fail(ctx, MMX_ERR_OVERFLOW, "%d faces of order %d make more corners than "
                         "32-bit indices hold", a->nfaces, a->order);
    const mmx_space sp = mmx_ctx_space(ctx);
    if (wrap && a->order == 0)
        return mmx__fail(ctx, MMX_ERR_ARG, "%s: faces given by offsets (order 0) cannot be used "
                         "in place: the general form needs column pointers and values of the "
                         "library's; faces of one order can, or mmx_mesh_from_arrays copies", who);
    if (wrap && a->space != sp)
        return mmx__fail(ctx, MMX_ERR_ARG, "%s: the arrays are in %s memory but the context "
                         "works in %s memory, so they cannot be used in place; "
                         "mmx_mesh_from_arrays copies them", who,
                         a->space == MMX_SPACE_HOST ? "host" : "device",
                         sp == MMX_SPACE_HOST ? "host" : "device");
    return mmx__check_space(ctx, a->space, "the face and position arrays");
}

/* count entries of src (in space sp) into the host buffer dst: the arrays read on the host to
 * word a fault (on CUDA, a wait each; only a refusal gets here). */
static mmx_status fetch(mmx_ctx *ctx, void *dst, const void *src, mmx_space sp, size_t count,
                        size_t size)
{
    return count ? mmx_mem_copy(ctx, dst, MMX_SPACE_HOST, src, sp, count * size) : MMX_OK;
}

/* Faces of more than MMX__FACE_SHORT corners are found free of repeats by sorting, on the
 * host (mmx__first_bad_face): device arrays are copied there first. *bad: the first bad face
 * of all, -1 if none. */
static mmx_status long_faces(mmx_ctx *ctx, const mmx_mesh_arrays *a, mmx_index nnz,
                             mmx_index *bad)
{
    const size_t nf = (size_t)a->nfaces;
    mmx_index *start = NULL, *verts = NULL;
    mmx_status s = mmx__host_alloc(ctx, nf + 1, sizeof *start, (void **)&start);
    if (!s && a->space != MMX_SPACE_HOST)
        s = mmx__host_alloc(ctx, (size_t)nnz, sizeof *verts, (void **)&verts);
    if (!s && a->order)
        for (size_t f = 0; f <= nf; f++) start[f] = a->order * (mmx_index)f;
    if (!s && !a->order) s = fetch(ctx, start, a->start, a->space, nf + 1, sizeof *start);
    if (!s && verts) s = fetch(ctx, verts, a->verts, a->space, (size_t)nnz, sizeof *verts);
    if (!s) *bad = mmx__first_bad_face(start, verts ? verts : a->verts, a->nfaces, a->nverts);
    free(start);
    free(verts);
    return s;
}

/* MMX_ERR_MESH naming face f and what is wrong with it, as mmx_mesh_from_faces says it. */
static mmx_status face_fault(mmx_ctx *ctx, const mmx_mesh_arrays *a, mmx_index f)
{
    mmx_index se[2] = {a->order * f, a->order * (f + 1)};
    mmx_status s = a->order ? MMX_OK : fetch(ctx, se, a->start + f, a->space, 2, sizeof *se);
    mmx_index *v = NULL;
    const size_t n = se[1] > se[0] ? (size_t)(se[1] - se[0]) : 0;
    if (!s) s = mmx__host_alloc(ctx, n, sizeof *v, (void **)&v);
    if (!s) s = fetch(ctx, v, a->verts + se[0], a->space, n, sizeof *v);
    char why[160] = "";
    if (!s) {
        mmx__face_problem(v, se[1] - se[0], a->nverts, why, sizeof why);
        s = mmx__fail(ctx, MMX_ERR_MESH, "face %d: %s", f, why);
    }
    free(v);
    return s;
}

/* Reads the fault record of the checks run where the arrays live and turns the first fault
 * into an error, in mmx_mesh_from_faces's order: the offsets, the faces, the coordinates. On
 * success *nnz is the number of corners and *max_order the largest face order. */
static mmx_status check_arrays(mmx_ctx *ctx, const mmx_mesh_arrays *a, mmx_index *nnz,
                               mmx_index *max_order)
{
    const mmx_space sp = a->space;
    const int64_t ncoords = 3 * (int64_t)a->nverts;
    mmx__arrays_fault got = {0}, *fault = &got;
    mmx__readback rb;
    memset(&rb, 0, sizeof rb);
    mmx_status s = MMX_OK;
    if (sp == MMX_SPACE_DEVICE) { /* the record in device memory, read back once */
        s = mmx__readback_open(ctx, &rb);
        if (!s) s = mmx__readback_slot(&rb, sizeof *fault, (void **)&fault);
    }
    if (!s && !a->order)
        s = mmx__arrays_start_each(ctx, sp, (int64_t)a->nfaces + 1, a->start, a->nfaces, fault);
    if (!s)
        s = mmx__arrays_face_each(ctx, sp, a->nfaces, a->order ? NULL : a->start, a->verts,
                                  a->order, a->nverts, a->nfaces, fault);
    if (!s && a->pos) s = mmx__arrays_coord_each(ctx, sp, ncoords, a->pos, ncoords, fault);
    if (sp == MMX_SPACE_DEVICE) {
        if (!s) s = mmx__readback_wait(&rb); /* the one wait */
        if (!s) got = *(const mmx__arrays_fault *)mmx__readback_host(&rb, fault);
        mmx__readback_close(&rb);
    }
    if (s) return s;
    if (got.start) {
        const mmx_index i = (mmx_index)((int64_t)a->nfaces + 1 - (int64_t)got.start);
        mmx_index v[2] = {0, 0};
        s = fetch(ctx, v, a->start + (i ? i - 1 : 0), sp, i ? 2 : 1, sizeof *v);
        if (s) return s;
        if (i == 0) return mmx__fail(ctx, MMX_ERR_MESH, "start[0] is %d, not 0", v[0]);
        return mmx__fail(ctx, MMX_ERR_MESH, "face %d: start[%d] = %d is below start[%d] = %d",
                         i - 1, i, v[1], i - 1, v[0]);
    }
    *nnz = a->order ? a->order * a->nfaces : (mmx_index)got.nnz;
    *max_order = (mmx_index)got.max_order;
    mmx_index bad = got.face ? (mmx_index)((int64_t)a->nfaces - (int64_t)got.face) : -1;
    if (got.longf) s = long_faces(ctx, a, *nnz, &bad);
    if (!s && bad >= 0) s = face_fault(ctx, a, bad);
    if (s || !got.pos) return s;
    const mmx_index v = (mmx_index)((ncoords - (int64_t)got.pos) / 3);
    float p[3];
    char why[160];
    s = fetch(ctx, p, a->pos + 3 * (size_t)v, sp, 3, sizeof *p);
    if (!s && mmx__coord_problem(p, why, sizeof why))
        s = mmx__fail(ctx, MMX_ERR_MESH, "vertex %d: %s", v, why);
    return s;
}

/* The mesh around M (taken) and pos (taken unless borrowed), with a cache, in ctx's space. */
static mmx_status finish(mmx_ctx *ctx, mmx_csc *M, mmx_index max_order, float *pos,
                         struct mmx__mesh_borrow *borrow, mmx_mesh **out)
{
    /* The properties the checks found (mmx__csc_props would read M again, on CUDA a wait). */
    M->maxcol = M->ncols ? max_order : 0;
    M->minval = M->nnz ? 1 : 0;
    M->maxval = M->nnz ? max_order : 0;
    M->positional = 1;
    mmx_mesh *m = calloc(1, sizeof *m);
    if (!m) {
        if (borrow) M->rowidx = NULL;
        mmx_csc_free(M);
        if (!borrow) mmx_mem_free(ctx, mmx_ctx_space(ctx), pos);
        return mmx__fail(ctx, MMX_ERR_NOMEM, "out of host memory for a mesh");
    }
    *m = (mmx_mesh){.M = M, .pos = pos, .space = mmx_ctx_space(ctx), .ctx = ctx, .borrow = borrow};
    mmx__mesh_cache_attach(m);
    *out = m;
    return MMX_OK;
}

mmx_status mmx_mesh_from_arrays(mmx_ctx *ctx, const mmx_mesh_arrays *a, mmx_mesh **out)
{
    MMX__NEED_CTX(ctx);
    mmx_status s = check_args(ctx, "mmx_mesh_from_arrays", a, 0, out);
    mmx_index nnz = 0, max_order = 0;
    if (!s) s = check_arrays(ctx, a, &nnz, &max_order);
    if (s) return s;
    const mmx_space sp = mmx_ctx_space(ctx);
    const size_t ix = sizeof(mmx_index), pbytes = 3 * (size_t)a->nverts * sizeof(float);
    mmx_csc *M = NULL;
    float *pos = NULL;
    s = mmx__csc_alloc(ctx, sp, a->nverts, a->nfaces, nnz, a->order, &M);
    if (!s) s = mmx_mem_copy(ctx, M->rowidx, sp, a->verts, a->space, (size_t)nnz * ix);
    if (!s && !a->order) s = mmx_mem_copy(ctx, M->colptr, sp, a->start, a->space, ((size_t)a->nfaces + 1) * ix);
    if (!s && !a->order) s = mmx__csc_fill_positions(ctx, M);
    if (!s && a->pos) s = mmx_mem_alloc(ctx, sp, pbytes, (void **)&pos);
    if (!s && a->pos) s = mmx_mem_copy(ctx, pos, sp, a->pos, a->space, pbytes);
    if (s) {
        mmx_csc_free(M);
        mmx_mem_free(ctx, sp, pos);
        return s;
    }
    return finish(ctx, M, max_order, pos, NULL, out);
}

mmx_status mmx_mesh_wrap_arrays(mmx_ctx *ctx, const mmx_mesh_arrays *a, int writable,
                                void (*release)(void *owner), void *owner, mmx_mesh **out)
{
    MMX__NEED_CTX(ctx);
    mmx_status s = check_args(ctx, "mmx_mesh_wrap_arrays", a, 1, out);
    if (s) return s;
    const mmx_space sp = mmx_ctx_space(ctx);
    mmx_index nnz = 0, max_order = 0;
    s = check_arrays(ctx, a, &nnz, &max_order);
    if (s) return s;
    struct mmx__mesh_borrow *b = calloc(1, sizeof *b);
    if (!b) return mmx__fail(ctx, MMX_ERR_NOMEM, "out of host memory for a mesh");
    *b = (struct mmx__mesh_borrow){.rowidx = a->verts, .pos = a->pos, .release = release,
                                   .owner = owner, .writable = writable != 0};
    mmx_csc *M = NULL;
    s = mmx__csc_alloc(ctx, sp, a->nverts, a->nfaces, 0, a->order, &M); /* no arrays of its own */
    if (s) {
        free(b);
        return s;
    }
    M->nnz = nnz;
    M->rowidx = (mmx_index *)a->verts; /* never written: no library call edits M in place */
    s = finish(ctx, M, max_order, (float *)a->pos, b, out);
    if (s) free(b);
    return s;
}

void mmx__mesh_borrow_end(mmx_ctx *ctx, mmx_space space, struct mmx__mesh_borrow *b)
{
    /* Queued kernels may still read the caller's arrays, and the caller's allocator may hand
     * the memory out again on another stream once release returns: wait first. A failure
     * has nowhere to go (it shows again at the context's next wait). */
    if (space == MMX_SPACE_DEVICE && ctx) (void)mmx__stream_sync(ctx);
    if (b->release) b->release(b->owner);
    free(b);
}
