/* Geometry and smoothing on the GPU (issue 15): vertex normals, a Laplacian step, Taubin,
 * mean curvature flow by CG, against the floor and RXMesh's figures (DESIGN.md, H200).
 *
 *   geom MESHES [--csv FILE]
 *
 * MESHES holds models/nefertiti.obj; nef0 to nef3 are made as bench/queries makes them
 * (bu_split4). Per mesh, median of repeated calls after a warm-up (CUDA events around each
 * call, set-up inside the call counted: the smoothing calls build their operators each time):
 * - area-weighted vertex normals, algebraic (mmx_vertex_normals) and on a patch set built
 *   beforehand (mmx_vertex_normals_patch); floor: positions and M read, normals written;
 * - one uniform Laplacian step (mmx_smooth LAPLACIAN, 1 iteration), assembled and on the
 *   patches; floor: positions, the VV pattern and the result;
 * - Taubin, 100 iterations (each a lambda and a mu step), on the patches;
 * - mean curvature flow, one implicit step (default h), assembled: time, CG iterations and
 *   the time per CG iteration (whole call / iterations, set-up included: an upper bound).
 * RXMesh (H200): nef3 vertex normals 0.783 ms, MCF 34 CG iterations 23.6 ms (32.2 with
 * set-up); nef2 MCF 7.7 ms. */
#include <string.h>
#include <time.h>
#include "bench_util.h"

static FILE *csv;
static double tbps;

typedef struct garg {
    mmx_ctx *ctx;
    const mmx_mesh *mesh;
    const mmx_patch_set *ps;
    float *out;
    mmx_smooth_options o;
    mmx_smooth_report r;
    int which; /* 0 normals, 1 normals on the patches, 2 smoothing */
} garg;

static int run(void *p)
{
    garg *a = p;
    if (a->which == 0) return mmx_vertex_normals(a->ctx, a->mesh, MMX_NORMAL_AREA, a->out) != MMX_OK;
    if (a->which == 1) return mmx_vertex_normals_patch(a->ctx, a->mesh, a->ps, a->out) != MMX_OK;
    return mmx_smooth(a->ctx, a->mesh, &a->o, a->out, &a->r) != MMX_OK;
}

static void emit(const char *mesh, const char *what, double ms, double floor_ms, const char *note)
{
    char f[64] = "";
    if (floor_ms > 0) snprintf(f, sizeof f, "%.4f | %.1fx", floor_ms, ms / floor_ms);
    else snprintf(f, sizeof f, " | ");
    printf("| %s | %s | %.4f | %s | %s |\n", mesh, what, ms, f, note);
    if (csv) fprintf(csv, "%s,%s,%.5f,%.5f,\"%s\"\n", mesh, what, ms, floor_ms, note);
}

static void measure(mmx_ctx *ctx, const char *name, const mmx_mesh *hm, int level)
{
    cudaStream_t st = (cudaStream_t)mmx_ctx_cuda_stream(ctx);
    mmx_mesh *d = NULL;
    BU_MMX(ctx, mmx_mesh_copy(ctx, hm, MMX_SPACE_DEVICE, &d));
    mmx_patch_set *ps = NULL;
    BU_MMX(ctx, mmx_patch_set_create(ctx, d, NULL, NULL, &ps));
    const double nv = hm->M->nrows, nnz = hm->M->nnz;
    float *out = NULL;
    BU_CUDA(cudaMalloc((void **)&out, 3 * (size_t)nv * sizeof(float)));
    garg a = {.ctx = ctx, .mesh = d, .ps = ps, .out = out};
    char note[160];
    /* Normals: positions (12 B per vertex) and M (4 B per corner) read, normals written. */
    const double nfloor = (24.0 * nv + 4.0 * nnz) / (tbps * 1e9);
    a.which = 0;
    emit(name, "vertex normals, algebraic", bu_time(st, 2, 10, run, &a), nfloor, "");
    a.which = 1;
    snprintf(note, sizeof note, "%s", level == 3 ? "RXMesh (H200) 0.783 ms" : "");
    emit(name, "vertex normals, patches", bu_time(st, 2, 10, run, &a), nfloor, note);
    /* A Laplacian step: positions read and written, the VV pattern (4 B per neighbour, about
     * 2 per corner) read. */
    const double lfloor = (24.0 * nv + 8.0 * nnz) / (tbps * 1e9);
    a.which = 2;
    a.o = mmx_smooth_defaults(MMX_SMOOTH_LAPLACIAN);
    a.o.iterations = 1;
    emit(name, "Laplacian step, assembled", bu_time(st, 1, 5, run, &a), lfloor, "one call, set-up included");
    a.o.path = MMX_SMOOTH_PATCH;
    a.o.patches = ps;
    emit(name, "Laplacian step, patches", bu_time(st, 1, 5, run, &a), lfloor, "one call, set-up included");
    a.o = mmx_smooth_defaults(MMX_SMOOTH_TAUBIN);
    a.o.iterations = 100;
    a.o.path = MMX_SMOOTH_PATCH;
    a.o.patches = ps;
    const double tb = bu_time(st, 1, 3, run, &a);
    snprintf(note, sizeof note, "100 iterations of a lambda and a mu step%s", level == 2 ? "; target < 16 ms" : "");
    emit(name, "Taubin x100, patches", tb, 200 * lfloor, note);
    a.o = mmx_smooth_defaults(MMX_SMOOTH_MCF);
    const double mcf = bu_time(st, 1, 3, run, &a);
    snprintf(note, sizeof note, "%d CG iterations, residual %.2g, %.4f ms per iteration%s", a.r.cg_iterations,
             a.r.cg_residual, a.r.cg_iterations ? mcf / a.r.cg_iterations : 0.0,
             level == 3 ? "; RXMesh (H200) 34 iterations 23.6 ms, 32.2 with set-up"
                        : level == 2 ? "; RXMesh (H200) 7.7 ms" : "");
    emit(name, "MCF, one implicit step, assembled", mcf, 0, note);
    BU_CUDA(cudaFree(out));
    mmx_patch_set_free(ps);
    mmx_mesh_free(d);
}

int main(int argc, char **argv)
{
    const char *dir = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--csv") && i + 1 < argc) {
            if (!(csv = fopen(argv[++i], "w"))) return 1;
        } else if (argv[i][0] != '-' && !dir) {
            dir = argv[i];
        } else {
            fprintf(stderr, "usage: geom MESHES [--csv FILE]\n");
            return 2;
        }
    }
    if (!dir) {
        fprintf(stderr, "usage: geom MESHES [--csv FILE]\n");
        return 2;
    }
    mmx_ctx *host = NULL, *cuda = NULL;
    if (mmx_ctx_create(&host) || mmx_ctx_create(&cuda) || mmx_ctx_use_cuda(cuda, 0)) {
        fprintf(stderr, "geom: needs a GPU: %s\n", cuda ? mmx_ctx_error(cuda) : "");
        return 1;
    }
    char gpu[300];
    bu_gpu_name(gpu, sizeof gpu);
    tbps = bu_copy_tbps((cudaStream_t)mmx_ctx_cuda_stream(cuda));
    printf("geom; GPU: %s; copy bandwidth %.3f TB/s\n\n", gpu, tbps);
    printf("| mesh | operation | ms (median) | floor ms | / floor | note |\n|---|---|---:|---:|---:|---|\n");
    if (csv) fprintf(csv, "# gpu: %s\n# copy_tbps: %.4f\nmesh,operation,ms,floor_ms,note\n", gpu, tbps);
    char path[4096];
    snprintf(path, sizeof path, "%s/models/nefertiti.obj", dir);
    mmx_mesh *nef = NULL;
    BU_MMX(host, mmx_mesh_read(host, path, MMX_FORMAT_AUTO, &nef));
    BU_MMX(host, mmx_mesh_reduce(host, nef));
    for (int l = 0; l <= 3; l++) {
        if (l) {
            mmx_mesh *next = bu_split4(host, nef);
            mmx_mesh_free(nef);
            nef = next;
        }
        char name[16];
        snprintf(name, sizeof name, "nef%d", l);
        measure(cuda, name, nef, l);
        fflush(stdout);
    }
    mmx_mesh_free(nef);
    mmx_ctx_free(cuda), mmx_ctx_free(host);
    if (csv) fclose(csv);
    return 0;
}
