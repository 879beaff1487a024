/* A user's CUDA kernel on the patches (meshmatrix/patch_kernel.cuh): each vertex's mean edge
 * length, one block per patch, the patch's positions copied once into shared memory and each
 * owned vertex's VV neighbours read from there: in mmx_query's order from the lists the launch
 * builds (MMX_PV_VERTEX_FANS), then again from the rows the set keeps (MMX_PV_KEPT_ROWS: no
 * set-up per launch, what a stencil run many times wants). Both checked against a host loop
 * over mmx_query's VV rows. Without a CUDA device it says so and exits 0.
 *   nvcc -std=c++17 patch_kernel.cu $(pkg-config --cflags --libs meshmatrix) -o patch_kernel
 *   ./patch_kernel bunny.obj        (or builtin:SPEC; default builtin:torus:64:48) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <meshmatrix.h>
#include <meshmatrix/patch_kernel.cuh>

/* The kernel's body, called by every thread of the block of each patch; KEPT: the neighbours
 * from the kept rows (launched with MMX_PV_KEPT_ROWS), else from the fans' lists. */
template <bool KEPT> struct mean_edge_length {
    const float *pos; /* the mesh's positions, on the device */
    float *out;       /* one value per vertex */

    __device__ void operator()(mmx::patch &p) const
    {
        /* The patch's vertices (owned and ribbon) into shared memory, then a barrier. */
        float *x = reinterpret_cast<float *>(p.shared());
        p.for_each_vertex([&](mmx_index l, mmx_index g) {
            for (int d = 0; d < 3; d++) x[3 * l + d] = pos[3 * (size_t)g + d];
        });
        p.sync();
        /* Each owned vertex: its edges' lengths, summed in the rows' order; written once. */
        p.for_each_owned_vertex([&](mmx_index v, mmx_index gv) {
            float sum = 0.0f;
            int n = 0;
            auto edge = [&](mmx_index u, mmx_index) {
                const float dx = x[3 * u] - x[3 * v], dy = x[3 * u + 1] - x[3 * v + 1],
                            dz = x[3 * u + 2] - x[3 * v + 2];
                sum += sqrtf(dx * dx + dy * dy + dz * dz);
                n++;
            };
            if constexpr (KEPT) p.kept_vv(v, edge);
            else p.vv(v, edge);
            out[gv] = n ? sum / (float)n : 0.0f;
        });
    }
};

static int fail(mmx_ctx *ctx, mmx_status s, const char *what)
{
    fprintf(stderr, "patch_kernel: %s: %s: %s\n", what, mmx_status_str(s), mmx_ctx_error(ctx));
    return 1;
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "builtin:torus:64:48";
    mmx_ctx *ctx = NULL, *dctx = NULL;
    mmx_mesh *mesh = NULL, *dmesh = NULL;
    mmx_csr *vv = NULL;
    mmx_patch_set *ps = NULL;
    float *host = NULL, *back = NULL, *dout = NULL;
    int rc = 1;
    if (mmx_ctx_create(&ctx)) return 1;
    mmx_status s = !strncmp(path, "builtin:", 8) ? mmx_mesh_shape(ctx, path + 8, &mesh)
                                                 : mmx_mesh_read(ctx, path, MMX_FORMAT_AUTO, &mesh);
    if (s) return fail(ctx, s, path);
    const mmx_index nv = mmx_mesh_nverts(mesh);

    /* The reference: a host loop over the VV rows. */
    s = mmx_query(ctx, mesh, NULL, MMX_QUERY_VV, &vv);
    if (s) return fail(ctx, s, "VV query");
    host = (float *)calloc((size_t)nv + 1, sizeof *host);
    back = (float *)calloc((size_t)nv + 1, sizeof *back);
    if (!host || !back) return 1;
    for (mmx_index v = 0; v < nv; v++) {
        float sum = 0.0f;
        const mmx_index a = vv->rowptr[v], b = vv->rowptr[v + 1];
        for (mmx_index q = a; q < b; q++) {
            const float *p = mesh->pos + 3 * (size_t)v, *u = mesh->pos + 3 * (size_t)vv->colidx[q];
            const float dx = u[0] - p[0], dy = u[1] - p[1], dz = u[2] - p[2];
            sum += sqrtf(dx * dx + dy * dy + dz * dz);
        }
        host[v] = b > a ? sum / (float)(b - a) : 0.0f;
    }

    /* The same on the GPU, through a user kernel on the patches. */
    if (mmx_ctx_create(&dctx) || mmx_ctx_use_cuda(dctx, 0) != MMX_OK) {
        printf("patch_kernel: no CUDA device (%s): skipped\n", dctx ? mmx_ctx_error(dctx) : "?");
        rc = 0;
        goto done;
    }
    if ((s = mmx_mesh_copy(dctx, mesh, MMX_SPACE_DEVICE, &dmesh)) ||
        (s = mmx_patch_set_create(dctx, dmesh, NULL, NULL, &ps)) ||
        (s = mmx_mem_alloc(dctx, MMX_SPACE_DEVICE, ((size_t)nv + 1) * sizeof(float), (void **)&dout))) {
        rc = fail(dctx, s, "device set-up");
        goto done;
    }
    for (int kept = 0; kept < 2; kept++) {
        mmx::patch_shared sh;
        sh.per_vertex = 3 * sizeof(float); /* the positions of the patch's vertices */
        s = kept ? mmx::patch_launch(dctx, ps, MMX_PV_KEPT_ROWS, sh, mean_edge_length<true>{dmesh->pos, dout})
                 : mmx::patch_launch(dctx, ps, MMX_PV_VERTEX_FANS, sh, mean_edge_length<false>{dmesh->pos, dout});
        if (!s) s = mmx_mem_copy(dctx, back, MMX_SPACE_HOST, dout, MMX_SPACE_DEVICE, (size_t)nv * sizeof(float));
        if (!s) s = mmx_ctx_sync(dctx);
        if (s) {
            rc = fail(dctx, s, "patch kernel");
            goto done;
        }
        double worst = 0.0, mean = 0.0;
        for (mmx_index v = 0; v < nv; v++) {
            worst = fmax(worst, fabs((double)back[v] - host[v]) / fmax(1e-30, fabs((double)host[v])));
            mean += back[v];
        }
        mmx_patch_stats st;
        mmx_patch_set_stats(dctx, ps, &st);
        printf("%s: %d vertices in %d patches; mean edge length per vertex on the GPU (a patch "
               "kernel, %s) averages %.6g; largest relative difference from the host loop %.3g\n",
               path, nv, st.npatches, kept ? "kept rows" : "fans", nv ? mean / nv : 0.0, worst);
        rc = worst <= 1e-5 ? 0 : 1;
        if (rc) {
            printf("patch_kernel: the GPU and the host disagree\n");
            goto done;
        }
    }
done:
    if (dctx) mmx_mem_free(dctx, MMX_SPACE_DEVICE, dout);
    mmx_patch_set_free(ps);
    mmx_mesh_free(dmesh);
    mmx_csr_free(vv);
    mmx_mesh_free(mesh);
    free(host), free(back);
    mmx_ctx_free(dctx);
    mmx_ctx_free(ctx);
    return rc;
}
