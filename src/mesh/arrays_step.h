/* The checks of a face list and its positions (mesh_internal.h states the rules) as
 * elementwise steps (core/elementwise.h), for mmx_mesh_from_arrays and mmx_mesh_wrap_arrays:
 * the host loops made of them in arrays.c, the kernels in arrays.cu, so that arrays are
 * checked where they live. Each step notes what it finds in one fault record, which the host
 * reads once (on CUDA through a read-back slot) and words from the arrays themselves. */
#ifndef MMX_MESH_ARRAYS_STEP_H
#define MMX_MESH_ARRAYS_STEP_H

#include "core/elementwise.h"
#include "mesh_internal.h"

/* Every field folds from 0 (mmx__fold_max, mmx__note_first). */
typedef struct mmx__arrays_fault {
    unsigned long long start;     /* (nfaces + 1) - i for the first entry i of start that breaks
                                     its rule (mmx__start_fault), 0: none */
    unsigned long long face;      /* nfaces - f for the first face f that breaks a rule */
    unsigned long long pos;       /* 3 nverts - i for the first coordinate i not finite */
    unsigned long long longf;     /* 1 when a face has more than MMX__FACE_SHORT corners, all in
                                     range: its repeats are left to the host's sort */
    unsigned long long max_order; /* the largest face order */
    unsigned long long nnz;       /* start[nfaces] (offsets given) */
} mmx__arrays_fault;

/* Entry i of start[0 .. nfaces]. */
static inline MMX__HD void mmx__arrays_start_step(int64_t i, const mmx_index *start,
                                                  mmx_index nfaces, mmx__arrays_fault *fault)
{
    if (mmx__start_fault(start, i)) mmx__note_first(&fault->start, (int64_t)nfaces + 1, i);
    if (i == nfaces && start[i] > 0) fault->nnz = (unsigned long long)start[i];
}

/* Face f: verts[start[f] .. start[f + 1]), or verts[order f .. order (f + 1)) when start is
 * NULL. Nothing is read once the offsets are known to be broken (they may point anywhere). */
static inline MMX__HD void mmx__arrays_face_step(int64_t f, const mmx_index *start,
                                                 const mmx_index *verts, mmx_index order,
                                                 mmx_index nverts, mmx_index nfaces,
                                                 mmx__arrays_fault *fault)
{
    if (fault->start) return;
    const int64_t b = start ? start[f] : (int64_t)order * f;
    const mmx_index n = start ? start[f + 1] - start[f] : order;
    mmx_index value;
    const int k = mmx__face_fault(verts + b, n, nverts, &value);
    if (k == MMX__FACE_LONG) mmx__fold_max(&fault->longf, 1);
    else if (k) mmx__note_first(&fault->face, nfaces, f);
    if (n > 0) mmx__fold_max(&fault->max_order, (unsigned long long)n);
}

/* Coordinate i of the n = 3 nverts. */
static inline MMX__HD void mmx__arrays_coord_step(int64_t i, const float *pos, int64_t n,
                                                  mmx__arrays_fault *fault)
{
    if (!mmx__coord_ok(pos[i])) mmx__note_first(&fault->pos, n, i);
}

MMX__ELEMENTWISE(mmx__arrays_start_each, mmx__arrays_start_step,
                 (const mmx_index *start, mmx_index nfaces, mmx__arrays_fault *fault),
                 (start, nfaces, fault))
MMX__ELEMENTWISE(mmx__arrays_face_each, mmx__arrays_face_step,
                 (const mmx_index *start, const mmx_index *verts, mmx_index order,
                  mmx_index nverts, mmx_index nfaces, mmx__arrays_fault *fault),
                 (start, verts, order, nverts, nfaces, fault))
MMX__ELEMENTWISE(mmx__arrays_coord_each, mmx__arrays_coord_step,
                 (const float *pos, int64_t n, mmx__arrays_fault *fault), (pos, n, fault))

#endif
