/* The eight first-order queries on the GPU (issue 14): the plan path, the patch path, the
 * algebraic path, cuSPARSE where it can state the query, the floors, and RXMesh's figures on
 * the same GPU model.
 *
 *   queries MESHES [--csv FILE] [--quick]
 *
 * MESHES holds models/nefertiti.obj and cages/bigguy_quads.obj. The meshes: nef0 to nef3
 * (nefertiti split 0 to 3 times by edge midpoints, 1-to-4, positions unchanged: 100k to 6.4M
 * triangles; made here on the host) in file order and shuffled (mmx_mesh_shuffle), and
 * bigguy refined by Catmull-Clark to level 4 (quads). --quick stops at nef1.
 *
 * Per mesh: the patch set's build from a mesh already on the GPU (adjacency included), its
 * statistics and memory, the query plan's build (mmx_query_plan_create, adjacency given) and its
 * memory per face (mmx__query_plan_memory);
 * then per query: the plan's run into a result allocated beforehand (mmx_query_plan_run: one
 * kernel, no allocation, no wait: what RXMesh's figures time, its query kernels with
 * preallocated output; median of 100 runs after 5), the plan with allocation (alloc, run,
 * free per call), the median of 20 calls (CUDA events, after 3 warm-up calls) of
 * mmx_patch_query and of mmx_query (each call allocates its result and reads its size once,
 * as a user's call does), whether the plan's result equals mmx_query's array for array,
 * cuSPARSE's csr2csc for VF (the transpose of M) and its
 * SpGEMM for VV (the pattern of M·Mᵀ, diagonal included, unordered), and the floor: the bytes
 * a patch query must read (its patches' FE and EV blocks and the local-to-global map of the
 * target kind) and write (the result's arrays), over the measured copy bandwidth; the plan's
 * floor: the bytes a plan run must read and write (mmx__query_plan_bytes) over the same
 * bandwidth. RXMesh's figures are the ones DESIGN.md gives for nef3 (H200); other rows leave
 * them blank. */
#include <string.h>
#include <time.h>
#include "bench_util.h"
#include "bench_clock.h"
#include "patch/patch_internal.h" /* the blocks' sizes, for the floor */
#include "mesh/query_steps.h"     /* mmx__query_plan_bytes, _memory: the plan's floor, its size */

static FILE *csv;
static double tbps;

/* RXMesh's topology memory on nef3 (issue 28: RXMesh::get_topology_memory_mg over the faces). */
static const double rxmesh_nef3_bytes_per_face = 33.4;

/* RXMesh on nef3 (DESIGN.md, H200), in mmx_query_kind order. */
static const double rxmesh_nef3[MMX_QUERY_COUNT] = {0.872, 0.738, 0.732, 0.377, 0.605, 0.390, 0.369, 0.762};

typedef struct qarg {
    mmx_ctx *ctx;
    const mmx_mesh *mesh;
    const mmx_adjacency *adj;
    const mmx_patch_set *ps;
    const mmx_query_plan *plan;
    mmx_query_kind kind;
    mmx_csr *out;
} qarg;

/* The plan's run into a(n already allocated) result. */
static int run_plan(void *p)
{
    qarg *a = p;
    return mmx_query_plan_run(a->ctx, a->plan, a->kind, a->out) != MMX_OK;
}

/* The plan with its result's allocation, as a call that returns a new result pays it. */
static int run_plan_alloc(void *p)
{
    qarg *a = p;
    mmx_csr_free(a->out);
    a->out = NULL;
    return mmx_query_plan_alloc(a->ctx, a->plan, a->kind, &a->out) != MMX_OK ||
           mmx_query_plan_run(a->ctx, a->plan, a->kind, a->out) != MMX_OK;
}

typedef struct plan_arg {
    mmx_ctx *ctx;
    const mmx_mesh *mesh;
    const mmx_adjacency *adj;
    mmx_query_plan *plan;
} plan_arg;

static int run_plan_build(void *p)
{
    plan_arg *b = p;
    mmx_query_plan_free(b->plan);
    b->plan = NULL;
    return mmx_query_plan_create(b->ctx, b->mesh, b->adj, &b->plan) != MMX_OK;
}

/* Whether two device results hold the same arrays. */
static int same_result(const mmx_csr *a, const mmx_csr *b)
{
    if (a->nrows != b->nrows || a->ncols != b->ncols || a->nnz != b->nnz || a->order != b->order) return 0;
    int same = 1;
    for (int part = 0; part < 2 && same; part++) {
        const size_t n = part ? (size_t)a->nnz : a->order ? 0 : (size_t)a->nrows + 1;
        if (!n) continue;
        int *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
        if (!x || !y) exit(1);
        BU_CUDA(cudaMemcpy(x, part ? a->colidx : a->rowptr, n * sizeof *x, cudaMemcpyDeviceToHost));
        BU_CUDA(cudaMemcpy(y, part ? b->colidx : b->rowptr, n * sizeof *y, cudaMemcpyDeviceToHost));
        same = !memcmp(x, y, n * sizeof *x);
        free(x);
        free(y);
    }
    return same;
}

static int run_patch(void *p)
{
    qarg *a = p;
    mmx_csr_free(a->out);
    a->out = NULL;
    return mmx_patch_query(a->ctx, a->ps, a->kind, &a->out) != MMX_OK;
}

static int run_alg(void *p)
{
    qarg *a = p;
    mmx_csr_free(a->out);
    a->out = NULL;
    return mmx_query(a->ctx, a->mesh, a->adj, a->kind, &a->out) != MMX_OK;
}

typedef struct build_arg {
    mmx_ctx *ctx;
    const mmx_mesh *mesh;
    mmx_adjacency *adj;
    mmx_patch_set *ps;
} build_arg;

/* What a user with a mesh on the GPU pays for a patch set: its adjacency and the set. */
static int run_build(void *p)
{
    build_arg *b = p;
    mmx_patch_set_free(b->ps);
    mmx_adjacency_free(b->adj);
    b->ps = NULL, b->adj = NULL;
    return mmx_adjacency_compute(b->ctx, b->mesh, &b->adj) != MMX_OK ||
           mmx_patch_set_create(b->ctx, b->mesh, b->adj, NULL, &b->ps) != MMX_OK;
}

typedef struct t2c {
    cusparseHandle_t h;
    const mmx_csc *M;
    const float *val;
    int *rowptr, *colidx;
    float *csr_val;
    void *buf;
} t2c;

static int run_csr2csc(void *p)
{
    t2c *t = p;
    const mmx_csc *M = t->M;
    return !bu_sparse_ok(cusparseCsr2cscEx2(t->h, M->ncols, M->nrows, M->nnz, t->val, M->colptr, M->rowidx,
                                            t->csr_val, t->rowptr, t->colidx, CUDA_R_32F,
                                            CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO,
                                            CUSPARSE_CSR2CSC_ALG1, t->buf),
                         "csr2csc");
}

/* cuSPARSE's two queries on the general form of `d`: VF by csr2csc, VV by SpGEMM. */
static void peer_times(mmx_ctx *ctx, cusparseHandle_t h, const mmx_mesh *d, double *vf_ms, double *vv_ms)
{
    cudaStream_t st = (cudaStream_t)mmx_ctx_cuda_stream(ctx);
    mmx_mesh *gen = NULL;
    BU_MMX(ctx, mmx_mesh_copy(ctx, d, MMX_SPACE_DEVICE, &gen));
    BU_MMX(ctx, mmx_mesh_expand(ctx, gen));
    const int nv = gen->M->nrows, nf = gen->M->ncols, nnz = gen->M->nnz;
    float *val = bu_dev_fill((size_t)nnz, 1.0f);
    t2c t = {.h = h, .M = gen->M, .val = val};
    bu_csr_of_mesh(h, st, gen->M, val, &t.rowptr, &t.colidx, &t.csr_val);
    size_t cb = 0;
    if (!bu_sparse_ok(cusparseCsr2cscEx2_bufferSize(h, nf, nv, nnz, val, gen->M->colptr, gen->M->rowidx,
                                                    t.csr_val, t.rowptr, t.colidx, CUDA_R_32F,
                                                    CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO,
                                                    CUSPARSE_CSR2CSC_ALG1, &cb),
                      "csr2csc"))
        exit(1);
    BU_CUDA(cudaMalloc(&t.buf, cb ? cb : 1));
    *vf_ms = bu_time(st, 3, 20, run_csr2csc, &t);
    bu_spgemm s = {.h = h, .st = st, .m = nv};
    cusparseCreateCsr(&s.A, nv, nf, nnz, t.rowptr, t.colidx, t.csr_val, CUSPARSE_INDEX_32I,
                      CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F);
    cusparseCreateCsr(&s.B, nf, nv, nnz, gen->M->colptr, gen->M->rowidx, val, CUSPARSE_INDEX_32I,
                      CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F);
    *vv_ms = bu_time(st, 1, 5, bu_spgemm_run, &s);
    bu_spgemm_release(&s);
    cusparseDestroySpMat(s.A);
    cusparseDestroySpMat(s.B);
    BU_CUDA(cudaStreamSynchronize(st));
    BU_CUDA(cudaFree(t.buf));
    BU_CUDA(cudaFree(val));
    BU_CUDA(cudaFree(t.rowptr));
    BU_CUDA(cudaFree(t.colidx));
    BU_CUDA(cudaFree(t.csr_val));
    mmx_mesh_free(gen);
}

/* The bytes of a result: its column indices and, unless reduced, its row pointers. */
static double out_bytes(const mmx_csr *r)
{
    return 4.0 * (double)r->nnz + (r->order ? 0.0 : 4.0 * ((double)r->nrows + 1));
}

static void measure(mmx_ctx *ctx, cusparseHandle_t h, const char *name, const char *order, const mmx_mesh *hm,
                    int is_nef3)
{
    cudaStream_t st = (cudaStream_t)mmx_ctx_cuda_stream(ctx);
    mmx_mesh *d = NULL;
    BU_MMX(ctx, mmx_mesh_copy(ctx, hm, MMX_SPACE_DEVICE, &d));
    build_arg b = {.ctx = ctx, .mesh = d};
    const double build_ms = bu_time(st, 1, 5, run_build, &b);
    if (build_ms < 0) {
        fprintf(stderr, "queries: %s: the patch set failed: %s\n", name, mmx_ctx_error(ctx));
        exit(1);
    }
    mmx_patch_stats ps;
    BU_MMX(ctx, mmx_patch_set_stats(ctx, b.ps, &ps));
    double block_bytes[MMX_QUERY_COUNT];
    mmx__patch_floor_bytes(b.ps, block_bytes);
    double vf_peer = -1, vv_peer = -1;
    peer_times(ctx, h, d, &vf_peer, &vv_peer);
    char rx_mem[96] = "";
    if (is_nef3)
        snprintf(rx_mem, sizeof rx_mem, "; RXMesh's topology on nef3 (its own count): %.1f bytes per face",
                 rxmesh_nef3_bytes_per_face);
    printf("\n### %s (%s): %d vertices, %d faces; patch set %d patches of %d to %d faces (mean %.0f), "
           "ribbon faces %.1f%%, %.1f bytes per face in all, topology as RXMesh counts it %.1f bytes per "
           "face%s; built (adjacency included) in %.3f ms\n\n",
           name, order, hm->M->nrows, hm->M->ncols, ps.npatches, ps.min_faces, ps.max_faces, ps.mean_faces,
           100.0 * ps.ribbon_share, ps.bytes_per_face, ps.topology_bytes_per_face, rx_mem, build_ms);
    plan_arg pa = {.ctx = ctx, .mesh = d, .adj = b.adj};
    const double plan_build_ms = bu_time(st, 1, 5, run_plan_build, &pa);
    if (plan_build_ms < 0) {
        fprintf(stderr, "queries: %s: the query plan failed: %s\n", name, mmx_ctx_error(ctx));
        exit(1);
    }
    printf("Query plan built (adjacency given) in %.3f ms; it holds %.1f bytes per face beside the mesh "
           "and its adjacency.\n\n", plan_build_ms, mmx__query_plan_memory(pa.plan) / (double)hm->M->ncols);
    printf("| query | plan run ms (preallocated) | plan floor ms | plan / its floor | plan / floor | "
           "plan ms with allocation | patch ms | algebraic ms | cuSPARSE ms | floor ms | patch / floor | "
           "RXMesh ms (nef3, H200) | RXMesh / plan | RXMesh / patch | plan = mmx_query | issue 14 (plan) |\n");
    printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n");
    for (int k = 0; k < MMX_QUERY_COUNT; k++) {
        qarg a = {.ctx = ctx, .mesh = d, .adj = b.adj, .ps = b.ps, .plan = pa.plan, .kind = (mmx_query_kind)k};
        BU_MMX(ctx, mmx_query_plan_alloc(ctx, pa.plan, a.kind, &a.out));
        const double qt = bu_time(st, 5, 100, run_plan, &a);
        mmx_csr *planned = a.out;
        a.out = NULL;
        const double qat = bu_time(st, 3, 20, run_plan_alloc, &a);
        mmx_csr_free(a.out);
        a.out = NULL;
        const double pt = bu_time(st, 3, 20, run_patch, &a);
        const double ob = a.out ? out_bytes(a.out) : 0;
        mmx_csr_free(a.out);
        a.out = NULL;
        const double at = bu_time(st, 3, 20, run_alg, &a);
        const int same = a.out && same_result(planned, a.out);
        mmx_csr_free(a.out);
        mmx_csr_free(planned);
        const double floor_ms = (block_bytes[k] + ob) / (tbps * 1e9);
        const double pfloor_ms = mmx__query_plan_bytes(pa.plan, a.kind) / (tbps * 1e9);
        const double peer = k == MMX_QUERY_VF ? vf_peer : k == MMX_QUERY_VV ? vv_peer : -1;
        char pbuf[32] = "", rbuf[32] = "", rq[32] = "", rr[32] = "", goal[64] = "";
        if (peer >= 0) snprintf(pbuf, sizeof pbuf, "%.4f", peer);
        if (is_nef3) {
            snprintf(rbuf, sizeof rbuf, "%.3f", rxmesh_nef3[k]);
            if (qt > 0) snprintf(rq, sizeof rq, "%.1fx", rxmesh_nef3[k] / qt);
            if (pt > 0) snprintf(rr, sizeof rr, "%.1fx", rxmesh_nef3[k] / pt);
            /* Issue 14's targets: within 3x of the floor column, at least 4x faster than RXMesh. */
            const int near = qt > 0 && qt <= 3 * floor_ms, fast = qt > 0 && 4 * qt <= rxmesh_nef3[k];
            snprintf(goal, sizeof goal, "%s", near && fast ? "met" : !near && !fast ? "missed (both)"
                                              : near ? "missed (4x RXMesh)" : "missed (3x floor)");
        }
        printf("| %s | %.4f | %.4f | %.1fx | %.1fx | %.4f | %.4f | %.4f | %s | %.4f | %.1fx | %s | %s | %s | %s | %s |\n",
               mmx_query_name((mmx_query_kind)k), qt, pfloor_ms, qt / pfloor_ms, qt / floor_ms, qat, pt, at,
               pbuf, floor_ms, pt / floor_ms, rbuf, rq, rr, same ? "yes" : "NO", goal);
        if (csv)
            fprintf(csv, "%s,%s,%d,%d,%s,%.5f,%.5f,%.5f,%.5f,%d,%.4f,%.2f,%.4f,%.5f,%.5f,%.5f,%.4f,%d\n", name,
                    order, hm->M->nrows, hm->M->ncols, mmx_query_name((mmx_query_kind)k), pt, at, peer, floor_ms,
                    ps.npatches, ps.ribbon_share, ps.bytes_per_face, build_ms, qt, qat, pfloor_ms, plan_build_ms,
                    same);
    }
    mmx_query_plan_free(pa.plan);
    mmx_patch_set_free(b.ps);
    mmx_adjacency_free(b.adj);
    mmx_mesh_free(d);
}

static void usage(void)
{
    fprintf(stderr, "usage: queries MESHES [--csv FILE] [--quick]\n"
                    "  MESHES: a folder with models/nefertiti.obj and cages/bigguy_quads.obj\n");
    exit(2);
}

int main(int argc, char **argv)
{
    const char *dir = NULL;
    int quick = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) {
            quick = 1;
        } else if (!strcmp(argv[i], "--csv") && i + 1 < argc) {
            if (!(csv = fopen(argv[++i], "w"))) {
                fprintf(stderr, "queries: cannot write %s\n", argv[i]);
                return 1;
            }
        } else if (argv[i][0] != '-' && !dir) {
            dir = argv[i];
        } else {
            usage();
        }
    }
    if (!dir) usage();
    mmx_ctx *host = NULL, *cuda = NULL;
    if (mmx_ctx_create(&host) || mmx_ctx_create(&cuda) || mmx_ctx_use_cuda(cuda, 0)) {
        fprintf(stderr, "queries: needs a GPU: %s\n", cuda ? mmx_ctx_error(cuda) : "");
        return 1;
    }
    cusparseHandle_t h;
    if (!bu_sparse_ok(cusparseCreate(&h), "create") ||
        !bu_sparse_ok(cusparseSetStream(h, (cudaStream_t)mmx_ctx_cuda_stream(cuda)), "stream"))
        return 1;
    char gpu[300], date[64];
    bu_gpu_name(gpu, sizeof gpu);
    tbps = bu_copy_tbps((cudaStream_t)mmx_ctx_cuda_stream(cuda));
    bu_date(date, sizeof date);
    printf("queries, %s\nGPU: %s; copy bandwidth %.3f TB/s\n", date, gpu, tbps);
    if (csv)
        fprintf(csv, "# gpu: %s\n# copy_tbps: %.4f\n# date: %s\nmesh,order,verts,faces,query,patch_ms,"
                     "alg_ms,cusparse_ms,floor_ms,patches,ribbon_share,bytes_per_face,build_ms,plan_ms,plan_alloc_ms,"
                     "plan_floor_ms,plan_build_ms,plan_same\n",
                gpu, tbps, date);
    bu_nef it = BU_NEF_START;
    for (const mmx_mesh *nef; (nef = bu_nef_next(host, dir, (quick ? 1 : 3), &it));) {
        const int l = it.level;
        const char *name = it.name;
        measure(cuda, h, name, "file", nef, l == 3);
        mmx_mesh *sh = NULL;
        BU_MMX(host, mmx_mesh_shuffle(host, nef, 1, NULL, NULL, &sh));
        measure(cuda, h, name, "shuffled", sh, l == 3);
        mmx_mesh_free(sh);
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/cages/bigguy_quads.obj", dir);
    mmx_mesh *cage = NULL, *bg = NULL;
    BU_MMX(host, mmx_mesh_read(host, path, MMX_FORMAT_AUTO, &cage));
    BU_MMX(host, mmx_subdivide(host, MMX_SCHEME_CATMULL_CLARK, cage, 4, NULL, &bg));
    measure(cuda, h, "bigguy CC 4", "file", bg, 0);
    mmx_mesh_free(cage), mmx_mesh_free(bg);
    cusparseDestroy(h);
    mmx_ctx_free(cuda), mmx_ctx_free(host);
    if (csv) fclose(csv);
    return 0;
}
