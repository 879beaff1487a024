/* Core: status names, contexts, memory spaces, timers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "testutil.h"
#ifdef MMX_HAVE_CUDA
#include "core/core_internal.h" /* mmx__no_device_reason */
#endif

Test(core, status_names_are_distinct_and_named)
{
    const mmx_status all[] = {MMX_OK, MMX_ERR_ARG, MMX_ERR_NOMEM, MMX_ERR_IO, MMX_ERR_PARSE,
                              MMX_ERR_MESH, MMX_ERR_OVERFLOW, MMX_ERR_NO_DEVICE, MMX_ERR_CUDA,
                              MMX_ERR_SPACE, MMX_ERR_UNSUPPORTED, MMX_ERR_INTERNAL};
    size_t n = sizeof all / sizeof all[0];
    for (size_t i = 0; i < n; i++) {
        cr_assert(strncmp(mmx_status_str(all[i]), "MMX_", 4) == 0);
        for (size_t k = 0; k < i; k++) cr_assert_str_neq(mmx_status_str(all[i]), mmx_status_str(all[k]));
    }
    cr_assert_not_null(mmx_status_str((mmx_status)-99));
}

Test(core, host_context)
{
    mmx_ctx *ctx = tu_host_ctx();
    cr_assert_eq(mmx_ctx_backend(ctx), MMX_BACKEND_HOST);
    cr_assert_eq(mmx_ctx_space(ctx), MMX_SPACE_HOST);
    cr_assert_eq(mmx_ctx_device(ctx), -1);
    cr_assert_str_empty(mmx_ctx_error(ctx));
    mmx_ctx_free(ctx);
    mmx_ctx_free(NULL);
    cr_assert_eq(mmx_ctx_create(NULL), MMX_ERR_ARG);
}

Test(core, cuda_context_fails_cleanly_without_a_device)
{
    mmx_ctx *ctx = tu_host_ctx();
    int n = -1;
    cr_assert_eq(mmx_cuda_device_count(ctx, &n), MMX_OK);
    cr_assert_geq(n, 0);
    if (n > 0) {
        /* On a GPU machine the failure path is taken with a device index that does not exist. */
        cr_assert_eq(mmx_ctx_use_cuda(ctx, n), MMX_ERR_NO_DEVICE);
        cr_assert(strstr(mmx_ctx_error(ctx), "does not exist"), "%s", mmx_ctx_error(ctx));
    } else {
        cr_assert(strlen(mmx_ctx_error(ctx)) > 0, "a missing device must come with a reason");
        /* With CUDA built, the reason is the plain sentence (what the GPU tests' skip lines
         * and `mmx --backend cuda` show), not the runtime's "driver version is insufficient". */
        if (mmx_has_cuda())
            cr_assert(strncmp(mmx_ctx_error(ctx), "no usable GPU or driver was found (", 35) == 0,
                      "%s", mmx_ctx_error(ctx));
        mmx_status s = mmx_ctx_use_cuda(ctx, 0);
        cr_assert(s == MMX_ERR_NO_DEVICE || s == MMX_ERR_UNSUPPORTED, "%s", mmx_status_str(s));
        cr_assert(strstr(mmx_ctx_error(ctx), "CUDA"), "%s", mmx_ctx_error(ctx));
        if (mmx_has_cuda())
            cr_assert(strstr(mmx_ctx_error(ctx), "no usable GPU or driver was found ("), "%s",
                      mmx_ctx_error(ctx));
    }
    /* The context stays usable on the host. */
    cr_assert_eq(mmx_ctx_backend(ctx), MMX_BACKEND_HOST);
    mmx_ctx_free(ctx);
}

/* Each way the CUDA runtime can fail to find a device gets a plain reason, with CUDA's own
 * text after it. A pure function, so every case runs on any machine with CUDA built. */
Test(core, no_device_reasons_are_plain_sentences)
{
#ifdef MMX_HAVE_CUDA
    static const struct {
        cudaError_t e;
        int driver, kmod;
        const char *visible, *reason;
    } cases[] = {
        {cudaErrorInsufficientDriver, 0, 0, NULL, "(no NVIDIA driver is loaded)"},
        {cudaErrorInsufficientDriver, 0, 1, NULL, "kernel driver is loaded but its CUDA library (libcuda.so.1) was not found"},
        {cudaErrorInsufficientDriver, 12020, 1, NULL, "the NVIDIA driver supports CUDA 12.2 but this build's CUDA runtime needs 13.0 or newer"},
        {cudaErrorNoDevice, 13000, 0, NULL, "(no NVIDIA GPU was found)"},
        {cudaErrorNoDevice, 13000, 1, NULL, "(the NVIDIA driver is loaded but reports no GPU)"},
        {cudaErrorNoDevice, 13000, 1, "", "(no NVIDIA GPU is visible to this process (CUDA_VISIBLE_DEVICES=))"},
        {cudaErrorStubLibrary, 0, 0, NULL, "the toolkit's stub"},
        {cudaErrorSystemDriverMismatch, 13000, 1, NULL, "different versions"},
        {cudaErrorDevicesUnavailable, 13000, 1, NULL, "busy or unavailable"},
        {cudaErrorInitializationError, 0, 0, NULL, "(no NVIDIA driver is loaded)"},
        {cudaErrorInitializationError, 13000, 1, NULL, "(the NVIDIA driver failed to initialise)"},
        {cudaSuccess, 13000, 1, NULL, "(the NVIDIA driver is loaded but reports no GPU) (CUDA: the runtime reports 0 devices)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char buf[512];
        mmx__no_device_reason(cases[i].e, cases[i].driver, 13000, cases[i].kmod, cases[i].visible,
                              buf, sizeof buf);
        cr_assert(strncmp(buf, "no usable GPU or driver was found (", 35) == 0, "%zu: %s", i, buf);
        cr_assert(strstr(buf, cases[i].reason), "%zu: '%s' lacks '%s'", i, buf, cases[i].reason);
        if (cases[i].e != cudaSuccess) {
            char cuda[300];
            snprintf(cuda, sizeof cuda, " (CUDA: %s)", cudaGetErrorString(cases[i].e));
            cr_assert(strstr(buf, cuda), "%zu: '%s' lacks '%s'", i, buf, cuda);
        }
    }
    /* The machine without a driver this was written on: the sentence in full. */
    char buf[512];
    mmx__no_device_reason(cudaErrorInsufficientDriver, 0, 13000, 0, NULL, buf, sizeof buf);
    cr_assert_str_eq(buf, "no usable GPU or driver was found (no NVIDIA driver is loaded) (CUDA: "
                          "CUDA driver version is insufficient for CUDA runtime version)");
#else
    cr_skip_test("built without CUDA: there is no runtime error to explain");
#endif
}

Test(core, host_memory_and_copies)
{
    mmx_ctx *ctx = tu_host_ctx();
    int *a = NULL, *b = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mem_alloc(ctx, MMX_SPACE_HOST, 100 * sizeof(int), (void **)&a));
    MMX_OK_OR_FAIL(ctx, mmx_mem_alloc(ctx, MMX_SPACE_HOST, 100 * sizeof(int), (void **)&b));
    for (int i = 0; i < 100; i++) a[i] = i * i;
    MMX_OK_OR_FAIL(ctx, mmx_mem_copy(ctx, b, MMX_SPACE_HOST, a, MMX_SPACE_HOST, 100 * sizeof(int)));
    cr_assert_arr_eq(a, b, 100 * sizeof(int));
    mmx_mem_free(ctx, MMX_SPACE_HOST, a);
    mmx_mem_free(ctx, MMX_SPACE_HOST, b);
    mmx_mem_free(ctx, MMX_SPACE_HOST, NULL);
    void *z = (void *)1;
    MMX_OK_OR_FAIL(ctx, mmx_mem_alloc(ctx, MMX_SPACE_HOST, 0, &z));
    cr_assert_null(z);
    mmx_ctx_free(ctx);
}

Test(core, device_space_refused_on_a_host_context)
{
    mmx_ctx *ctx = tu_host_ctx();
    void *p = NULL;
    int x = 1, y = 0;
    cr_assert_eq(mmx_mem_alloc(ctx, MMX_SPACE_DEVICE, 16, &p), MMX_ERR_SPACE);
    cr_assert(strstr(mmx_ctx_error(ctx), "device memory"), "%s", mmx_ctx_error(ctx));
    cr_assert_eq(mmx_mem_copy(ctx, &y, MMX_SPACE_DEVICE, &x, MMX_SPACE_HOST, sizeof x), MMX_ERR_SPACE);
    cr_assert_eq(mmx_mem_alloc(ctx, (mmx_space)7, 16, &p), MMX_ERR_ARG);
    cr_assert_eq(mmx_mem_copy(ctx, NULL, MMX_SPACE_HOST, &x, MMX_SPACE_HOST, sizeof x), MMX_ERR_ARG);
    mmx_ctx_free(ctx);
}

Test(core, host_timer_measures_elapsed_time)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_timer *t = NULL;
    double ms = -1;
    MMX_OK_OR_FAIL(ctx, mmx_timer_create(ctx, &t));
    cr_assert_eq(mmx_timer_stop(t, &ms), MMX_ERR_ARG, "stopping an unstarted timer is an error");
    MMX_OK_OR_FAIL(ctx, mmx_timer_start(t));
    struct timespec d = {0, 20 * 1000 * 1000};
    nanosleep(&d, NULL);
    MMX_OK_OR_FAIL(ctx, mmx_timer_stop(t, &ms));
    cr_assert_geq(ms, 19.0, "slept 20 ms, timer says %g", ms);
    cr_assert_lt(ms, 10000.0);
    mmx_timer_free(t);
    mmx_timer_free(NULL);
    mmx_ctx_free(ctx);
}

/* Every public call that takes a context refuses a NULL one (MMX_ERR_ARG, nothing made), with
 * otherwise valid arguments: mmx_subdivide returned MMX_OK, others read through it. */
Test(core, a_null_context_is_refused_everywhere)
{
    mmx_ctx *ctx = tu_host_ctx();
    mmx_mesh *m = tu_shape(ctx, "icosphere:1"), *out = NULL;
    mmx_adjacency *adj = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_adjacency_compute(ctx, m, &adj));
    const mmx_index nv = mmx_mesh_nverts(m);
    float *x = calloc(3 * (size_t)nv + 3, sizeof *x);
    mmx_index *perm = calloc((size_t)nv + (size_t)mmx_mesh_nfaces(m) + 1, sizeof *perm);
    cr_assert(x && perm);
    void *p = NULL;
    mmx_csc *c = NULL;
    mmx_csr *r = NULL;
    mmx_timer *t = NULL;
    mmx_subdiv_plan *plan = NULL;
    mmx_normals_plan *np = NULL;
    mmx_query_plan *qp = NULL;
    mmx_patch_set *ps = NULL;
    mmx_weighted *w = NULL;
    mmx_mesh_tags *tags = NULL;
    mmx_mesh_stats st;
    mmx_index *start = NULL, *verts = NULL;
    const mmx_remesh_options ro = mmx_remesh_defaults();
    const mmx_status got[] = {
        mmx_subdivide(NULL, MMX_SCHEME_LOOP, m, 1, NULL, &out),
        mmx_subdiv_limit(NULL, MMX_SCHEME_LOOP, m, NULL, x, NULL),
        mmx_subdiv_plan_create(NULL, MMX_SCHEME_LOOP, m, 1, NULL, &plan),
        mmx_mesh_copy(NULL, m, MMX_SPACE_HOST, &out),
        mmx_mesh_shape(NULL, "cube", &out),
        mmx_adjacency_compute(NULL, m, &adj),
        mmx_mesh_stats_compute(NULL, m, &st),
        mmx_mesh_faces(NULL, m, &start, &verts),
        mmx_mesh_tags_parse(NULL, m, &tags),
        mmx_mesh_set_tags(NULL, m, NULL),
        mmx_mesh_reorder(NULL, m, perm, NULL, &out),
        mmx_mesh_uniform_order(NULL, m, perm),
        mmx_query(NULL, m, adj, MMX_QUERY_VV, &r),
        mmx_query_plan_create(NULL, m, adj, &qp),
        mmx_patch_set_create(NULL, m, adj, NULL, &ps),
        mmx_csc_copy(NULL, m->M, MMX_SPACE_HOST, &c),
        mmx_csc_transpose(NULL, m->M, &c),
        mmx_mem_alloc(NULL, MMX_SPACE_HOST, 16, &p),
        mmx_mem_copy(NULL, x, MMX_SPACE_HOST, x + 3, MMX_SPACE_HOST, 3 * sizeof *x),
        mmx_timer_create(NULL, &t),
        mmx_face_normals(NULL, m, NULL, x),
        mmx_vertex_normals(NULL, m, MMX_NORMAL_AREA, x),
        mmx_normals_plan_create(NULL, m, &np),
        mmx_vertex_areas(NULL, m, MMX_MASS_BARYCENTRIC, x),
        mmx_uniform_laplacian(NULL, m, adj, &w),
        mmx_cotan_laplacian(NULL, m, adj, &w),
        mmx_smooth(NULL, m, NULL, x, NULL),
        mmx_remesh(NULL, m, &ro, &out, NULL),
        mmx_delaunay_flip(NULL, m, &out, NULL),
    };
    for (size_t i = 0; i < sizeof got / sizeof got[0]; i++)
        cr_assert_eq(got[i], MMX_ERR_ARG, "call %zu: %s", i, mmx_status_str(got[i]));
    cr_assert(!out && !plan && !p && !c && !r && !t && !np && !qp && !ps && !w && !tags && !start);
    mmx_adjacency_free(adj);
    free(x), free(perm);
    mmx_mesh_free(m);
    mmx_ctx_free(ctx);
}

/* ---- progress ------------------------------------------------------------------------------ */

typedef struct progress_log {
    char what[8][32];
    int done[8], total[8], n, calls;
} progress_log;

static void log_progress(void *user, const char *what, int done, int total)
{
    progress_log *L = user;
    if (L->n < 8) {
        snprintf(L->what[L->n], sizeof L->what[0], "%s", what);
        L->done[L->n] = done, L->total[L->n] = total, L->n++;
    }
    L->calls++;
}

/* The long operations call the context's progress function once per step, on the host, with
 * the steps done so far and the total; none is called without one, or after it is removed. */
static void progress_on(mmx_ctx *ctx)
{
    progress_log L;
    memset(&L, 0, sizeof L);
    cr_assert_eq(mmx_ctx_set_progress(NULL, log_progress, &L), MMX_ERR_ARG);
    MMX_OK_OR_FAIL(ctx, mmx_ctx_set_progress(ctx, log_progress, &L));
    mmx_mesh *ico = NULL, *fine = NULL, *out = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mesh_shape(ctx, "icosphere:1", &ico));
    for (int path = MMX_SUBDIV_PATH_FUSED; path <= MMX_SUBDIV_PATH_ALGEBRAIC; path++) {
        mmx_subdiv_options so = {0};
        so.path = (mmx_subdiv_path)path;
        L.n = L.calls = 0;
        MMX_OK_OR_FAIL(ctx, mmx_subdivide(ctx, MMX_SCHEME_LOOP, ico, 3, &so, &fine));
        cr_assert_eq(L.n, 3, "path %d: %d calls", path, L.n);
        for (int k = 0; k < 3; k++)
            cr_assert(strcmp(L.what[k], "subdivide level") == 0 && L.done[k] == k + 1 &&
                      L.total[k] == 3, "path %d, call %d: %s %d of %d", path, k, L.what[k],
                      L.done[k], L.total[k]);
        mmx_mesh_free(fine);
        fine = NULL;
    }
    L.n = L.calls = 0;
    mmx_smooth_options o = mmx_smooth_defaults(MMX_SMOOTH_TAUBIN);
    o.iterations = 4;
    float *x = NULL;
    MMX_OK_OR_FAIL(ctx, mmx_mem_alloc(ctx, mmx_ctx_space(ctx), 3 * (size_t)mmx_mesh_nverts(ico) * sizeof *x,
                                      (void **)&x));
    MMX_OK_OR_FAIL(ctx, mmx_smooth(ctx, ico, &o, x, NULL));
    cr_assert(L.n == 4 && strcmp(L.what[3], "smooth iteration") == 0 && L.done[3] == 4 &&
              L.total[3] == 4, "smooth: %d calls, last %s %d of %d", L.n, L.what[3], L.done[3], L.total[3]);
    mmx_mem_free(ctx, mmx_ctx_space(ctx), x);
    L.n = L.calls = 0;
    mmx_remesh_options ro = mmx_remesh_defaults();
    ro.iterations = 2;
    MMX_OK_OR_FAIL(ctx, mmx_remesh(ctx, ico, &ro, &out, NULL));
    cr_assert(L.n == 2 && strcmp(L.what[1], "remesh iteration") == 0 && L.done[1] == 2 &&
              L.total[1] == 2, "remesh: %d calls", L.n);
    mmx_mesh_free(out);
    out = NULL;
    /* Delaunay: a round per call, the total unknown (0). */
    L.n = L.calls = 0;
    mmx_delaunay_report dr;
    MMX_OK_OR_FAIL(ctx, mmx_delaunay_flip(ctx, ico, &out, &dr));
    cr_assert_eq(L.calls, dr.rounds);
    for (int k = 0; k < L.n; k++)
        cr_assert(strcmp(L.what[k], "delaunay round") == 0 && L.done[k] == k + 1 && L.total[k] == 0);
    mmx_mesh_free(out);
    out = NULL;
    /* Removed: no more calls. */
    MMX_OK_OR_FAIL(ctx, mmx_ctx_set_progress(ctx, NULL, &L));
    L.n = L.calls = 0;
    MMX_OK_OR_FAIL(ctx, mmx_subdivide(ctx, MMX_SCHEME_LOOP, ico, 2, NULL, &fine));
    cr_assert_eq(L.calls, 0);
    mmx_mesh_free(fine);
    mmx_mesh_free(ico);
}

Test(core, progress_is_told_each_step)
{
    mmx_ctx *ctx = tu_host_ctx();
    progress_on(ctx);
    mmx_ctx_free(ctx);
}

/* The same on CUDA (each operation's host loop calls it between its queued steps). */
Test(core, progress_is_told_each_step_on_cuda)
{
    mmx_ctx *ctx = tu_cuda_ctx_or_skip();
    progress_on(ctx);
    mmx_ctx_free(ctx);
}
