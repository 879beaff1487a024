/*
 * oracle_check: one mesh file, subdivided by meshmatrix and by the reference implementation
 * (OpenSubdiv for Loop and Catmull-Clark, OpenMesh for sqrt3), compared up to vertex and face
 * order.
 *
 *   oracle_check [--backend host|cuda] --scheme loop|sqrt3|catmull-clark --levels N
 *                [--tol 1e-5] [--ignore-tags] FILE
 *
 * Both get the file's OBJ 't' lines (creases, corners, holes, boundary and crease modes; see
 * oracle_osd_refine_tagged), so a tagged shape is compared with what OpenSubdiv really makes of
 * it; --ignore-tags hides them from both (smooth everywhere, edge-only boundaries). A tag the
 * oracle does not support is ORACLE_REFUSED. Texture coordinates, where the file has them, are
 * compared per corner too.
 *
 * Prints exactly one line on stdout, starting with one of
 *   AGREE max_err=<e> ...            topology equal, positions within tol of the diagonal
 *   DIFFER <reason>                  the comparison's reason
 *   MMX_REFUSED <status>: <detail>   mmx_subdivide (or the CUDA context) refused
 *   ORACLE_REFUSED <message>         the reference refused the input
 *   ERROR <message>                  usage, reading the file, or another failure
 * and exits 0 for AGREE, 1 otherwise. meshmatrix runs first; the oracle runs only when it
 * succeeded.
 */
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "meshmatrix.h"
#include "meshmatrix/subdiv.h"
#include "oracle_mmx.h"

#if defined(__GNUC__)
#define CHECK_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define CHECK_PRINTF(a, b)
#endif

static const char usage[] =
    "usage: oracle_check [--backend host|cuda] --scheme loop|sqrt3|catmull-clark|bilinear --levels N "
    "[--tol 1e-5] [--ignore-tags] FILE";

/* Prints the one result line (newlines in the message flattened) and returns the exit code. */
CHECK_PRINTF(2, 3)
static int result(int code, const char *fmt, ...)
{
    char line[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    for (char *p = line; *p; ++p)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    printf("%s\n", line);
    fflush(stdout);
    return code;
}

/* "MMX_ERR_MESH" from mmx_status_str's "MMX_ERR_MESH: invalid mesh". */
static const char *status_name(mmx_status s, char *buf, size_t cap)
{
    const char *full = mmx_status_str(s);
    size_t n = strcspn(full, ":");
    if (n >= cap)
        n = cap - 1;
    memcpy(buf, full, n);
    buf[n] = '\0';
    return buf;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* The shapes whose faces name a vertex twice, which a mesh cannot hold: read as face lists,
 * refined by mmx_subdivide_faces (on the host, whatever the backend), compared as main does. */
static int check_faces(mmx_ctx *ctx, const char *path, mmx_scheme scheme, int levels, double tol,
                       int ignore_tags)
{
    char name[64], msg[1024], uvmsg[96] = "";
    mmx_faces *in = NULL, *out = NULL;
    oracle_mesh in_o = {0}, mmx_o = {0}, ref_o = {0};
    double *uv_in = NULL, *uv_ref = NULL, *uv_ours = NULL;
    int *uv_idx = NULL, code = 1;
    mmx_status st = mmx_faces_read(ctx, path, &in);
    if (st != MMX_OK) {
        code = result(1, "ERROR reading %s: %s: %s", path, status_name(st, name, sizeof name),
                      mmx_ctx_error(ctx));
        goto done;
    }
    if (ignore_tags) free(in->tags), in->tags = NULL;
    double t0 = now_ms();
    st = mmx_subdivide_faces(ctx, scheme, in, levels, NULL, &out);
    double mmx_ms = now_ms() - t0;
    if (st != MMX_OK) {
        code = result(1, "MMX_REFUSED %s: %s", status_name(st, name, sizeof name), mmx_ctx_error(ctx));
        goto done;
    }
    if (oracle_mesh_from_faces(in, &in_o) || oracle_mesh_from_faces(out, &mmx_o)) {
        code = result(1, "ERROR out of memory");
        goto done;
    }
    const int osd = scheme == MMX_SCHEME_LOOP ? 0 : scheme == MMX_SCHEME_BILINEAR ? 2 : 1;
    int orc;
    const size_t nc = (size_t)in->start[in->nfaces];
    if (scheme == MMX_SCHEME_SQRT3) {
        code = result(1, "ERROR sqrt3 takes no face that repeats a vertex");
        goto done;
    } else if (in->nuv > 0) {
        uv_in = malloc(2 * (size_t)in->nuv * sizeof *uv_in + 1), uv_idx = malloc(nc * sizeof *uv_idx + 1);
        if (!uv_in || !uv_idx) {
            code = result(1, "ERROR out of memory");
            goto done;
        }
        for (size_t k = 0; k < 2 * (size_t)in->nuv; k++) uv_in[k] = in->uv[k];
        for (size_t q = 0; q < nc; q++) uv_idx[q] = in->uv_index[q];
        orc = oracle_osd_refine_uv(osd, &in_o, in->tags, (int)in->nuv, uv_in, uv_idx, levels,
                                   &ref_o, &uv_ref, msg, sizeof msg);
    } else {
        oracle_times ot;
        orc = oracle_osd_refine_tagged(osd, &in_o, in->tags, levels, &ref_o, &ot, msg, sizeof msg);
    }
    if (orc) {
        code = result(1, "ORACLE_REFUSED %s", msg);
        goto done;
    }
    double max_err = -1.0;
    if (oracle_compare(&mmx_o, &ref_o, tol, &max_err, msg, sizeof msg)) {
        code = max_err >= 0 ? result(1, "DIFFER %s (max_err=%.3g)", msg, max_err)
                            : result(1, "DIFFER %s", msg);
        goto done;
    }
    if (uv_ref) {
        double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY}, uv_err = 0;
        for (mmx_index k = 0; k < 2 * in->nuv; k++)
            lo[k % 2] = fmin(lo[k % 2], uv_in[k]), hi[k % 2] = fmax(hi[k % 2], uv_in[k]);
        const double diag = hypot(hi[0] - lo[0], hi[1] - lo[1]), d = diag > 0 ? diag : 1;
        const size_t onc = (size_t)out->start[out->nfaces];
        if (!(uv_ours = malloc(2 * onc * sizeof *uv_ours + 1))) {
            code = result(1, "ERROR out of memory");
            goto done;
        }
        for (size_t q = 0; q < onc; q++)
            for (int c = 0; c < 2; c++) uv_ours[2 * q + c] = out->uv[2 * (size_t)out->uv_index[q] + c];
        if (oracle_compare_uv(&mmx_o, uv_ours, &ref_o, uv_ref, tol * d, &uv_err, msg, sizeof msg)) {
            code = result(1, "DIFFER texture coordinates: %s", msg);
            goto done;
        }
        snprintf(uvmsg, sizeof uvmsg, " uv_err=%.3g", uv_err / d);
    }
    code = result(0, "AGREE max_err=%.3g%s verts=%d faces=%d mmx_ms=%.3f faces_path", max_err,
                  uvmsg, mmx_o.nverts, mmx_o.nfaces, mmx_ms);
done:
    free(uv_in), free(uv_idx), free(uv_ref), free(uv_ours);
    oracle_mesh_free(&in_o), oracle_mesh_free(&mmx_o), oracle_mesh_free(&ref_o);
    mmx_faces_free(in), mmx_faces_free(out);
    return code;
}

int main(int argc, char **argv)
{
    const char *backend = "host", *scheme_name = NULL, *path = NULL;
    int levels = -1, ignore_tags = 0;
    double tol = 1e-5;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        int has_next = i + 1 < argc;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fprintf(stderr, "%s\n", usage);
            return result(1, "ERROR usage: help requested");
        } else if (!strcmp(a, "--ignore-tags")) {
            ignore_tags = 1;
        } else if (!strcmp(a, "--backend") && has_next) {
            backend = argv[++i];
        } else if (!strcmp(a, "--scheme") && has_next) {
            scheme_name = argv[++i];
        } else if (!strcmp(a, "--levels") && has_next) {
            char *end;
            long v = strtol(argv[++i], &end, 10);
            if (*end || end == argv[i] || v < 0 || v > 64)
                return result(1, "ERROR usage: --levels wants an integer in 0..64, not '%s'",
                              argv[i]);
            levels = (int)v;
        } else if (!strcmp(a, "--tol") && has_next) {
            char *end;
            tol = strtod(argv[++i], &end);
            if (*end || end == argv[i] || !(tol >= 0.0))
                return result(1, "ERROR usage: --tol wants a number >= 0, not '%s'", argv[i]);
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "%s\n", usage);
            return result(1, "ERROR usage: unknown option or missing value: %s", a);
        } else if (!path) {
            path = a;
        } else {
            fprintf(stderr, "%s\n", usage);
            return result(1, "ERROR usage: more than one FILE (%s, %s)", path, a);
        }
    }
    if (!scheme_name || levels < 0 || !path) {
        fprintf(stderr, "%s\n", usage);
        return result(1, "ERROR usage: --scheme, --levels and FILE are required");
    }
    if (strcmp(backend, "host") && strcmp(backend, "cuda"))
        return result(1, "ERROR usage: --backend is host or cuda, not '%s'", backend);
    mmx_scheme scheme;
    if (mmx_scheme_parse(scheme_name, &scheme) != MMX_OK)
        return result(1, "ERROR usage: unknown scheme '%s' (loop, sqrt3, catmull-clark, bilinear)",
                      scheme_name);

    char name[64];
    mmx_ctx *ctx = NULL;
    mmx_mesh *mesh = NULL, *out = NULL;
    oracle_mesh in_o = {0}, mmx_o = {0}, ref_o = {0};
    double *uv_in = NULL, *uv_ref = NULL, *uv_ours = NULL;
    int *uv_idx = NULL;
    int code = 1;
    mmx_status st = mmx_ctx_create(&ctx);
    if (st != MMX_OK)
        return result(1, "ERROR cannot create a context: %s", mmx_status_str(st));
    if (!strcmp(backend, "cuda") && (st = mmx_ctx_use_cuda(ctx, 0)) != MMX_OK) {
        code = result(1, "MMX_REFUSED %s: %s", status_name(st, name, sizeof name),
                      mmx_ctx_error(ctx));
        goto done;
    }
    if ((st = mmx_mesh_read(ctx, path, MMX_FORMAT_AUTO, &mesh)) != MMX_OK) {
        /* A face naming a vertex twice: the face-list path (mmx_subdivide_faces). */
        if (st == MMX_ERR_MESH && strstr(mmx_ctx_error(ctx), "twice")) {
            code = check_faces(ctx, path, scheme, levels, tol, ignore_tags);
            goto done;
        }
        code = result(1, "ERROR reading %s: %s: %s", path, status_name(st, name, sizeof name),
                      mmx_ctx_error(ctx));
        goto done;
    }
    if ((st = oracle_mesh_from_mmx(ctx, mesh, &in_o)) != MMX_OK) {
        code = result(1, "ERROR converting the input: %s: %s",
                      status_name(st, name, sizeof name), mmx_ctx_error(ctx));
        goto done;
    }

    /* meshmatrix honours the mesh's tags by itself; --ignore-tags takes them away from both. */
    if (ignore_tags) {
        free(mesh->tags);
        mesh->tags = NULL;
    }
    double t0 = now_ms();
    st = mmx_subdivide(ctx, scheme, mesh, levels, NULL, &out);
    double mmx_ms = now_ms() - t0;
    if (st != MMX_OK) {
        code = result(1, "MMX_REFUSED %s: %s", status_name(st, name, sizeof name),
                      mmx_ctx_error(ctx));
        goto done;
    }
    if ((st = oracle_mesh_from_mmx(ctx, out, &mmx_o)) != MMX_OK) {
        code = result(1, "ERROR converting meshmatrix's result: %s: %s",
                      status_name(st, name, sizeof name), mmx_ctx_error(ctx));
        goto done;
    }

    char msg[1024];
    oracle_times ot = {0, 0, 0};
    int orc;
    const char *oracle_name;
    if (scheme == MMX_SCHEME_SQRT3) {
        oracle_name = "OpenMesh";
        orc = oracle_om_sqrt3(&in_o, levels, &ref_o, &ot, msg, sizeof msg);
    } else {
        oracle_name = "OpenSubdiv";
        const int osd = scheme == MMX_SCHEME_LOOP ? 0 : scheme == MMX_SCHEME_BILINEAR ? 2 : 1;
        /* Texture coordinates: refined and compared too, where the quadratic face match of
         * oracle_compare_uv is quick enough (small shapes). */
        if (mesh->uv && (int64_t)mesh->M->nnz << (2 * levels) <= 200000) {
            const size_t nv = (size_t)mesh->uv->nvalues, nnz = (size_t)mesh->M->nnz;
            uv_in = malloc(2 * nv * sizeof *uv_in + 1), uv_idx = malloc(nnz * sizeof *uv_idx + 1);
            if (!uv_in || !uv_idx) {
                code = result(1, "ERROR out of memory");
                goto done;
            }
            for (size_t k = 0; k < 2 * nv; k++) uv_in[k] = mesh->uv->values[k];
            for (size_t q = 0; q < nnz; q++) uv_idx[q] = mesh->uv->index[q];
            orc = oracle_osd_refine_uv(osd, &in_o, ignore_tags ? NULL : mesh->tags, (int)nv, uv_in,
                                       uv_idx, levels, &ref_o, &uv_ref, msg, sizeof msg);
        } else {
            orc = oracle_osd_refine_tagged(osd, &in_o, ignore_tags ? NULL : mesh->tags, levels,
                                           &ref_o, &ot, msg, sizeof msg);
        }
    }
    if (orc) {
        code = result(1, "ORACLE_REFUSED %s", msg);
        goto done;
    }

    double max_err = -1.0;
    if (oracle_compare(&mmx_o, &ref_o, tol, &max_err, msg, sizeof msg)) {
        if (max_err >= 0)
            code = result(1, "DIFFER %s (max_err=%.3g)", msg, max_err);
        else
            code = result(1, "DIFFER %s", msg);
        goto done;
    }
    char uvmsg[96] = "";
    if (uv_ref) {
        if (!out->uv) {
            code = result(1, "DIFFER meshmatrix's result has no texture coordinates");
            goto done;
        }
        /* Within tol of the input's (u, v) box diagonal, as positions are of theirs. */
        double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY}, uv_err = 0;
        for (mmx_index k = 0; k < 2 * mesh->uv->nvalues; k++)
            lo[k % 2] = fmin(lo[k % 2], uv_in[k]), hi[k % 2] = fmax(hi[k % 2], uv_in[k]);
        const double diag = hypot(hi[0] - lo[0], hi[1] - lo[1]), d = diag > 0 ? diag : 1;
        uv_ours = malloc(2 * sizeof *uv_ours * (size_t)out->M->nnz + 1);
        if (!uv_ours) {
            code = result(1, "ERROR out of memory");
            goto done;
        }
        /* On CUDA the refined coordinates are in device memory: read a host copy. */
        mmx_mesh_uv *huv = NULL;
        if ((st = mmx_mesh_uv_copy(ctx, out->uv, out->M->nnz, &huv)) != MMX_OK) {
            code = result(1, "ERROR reading the texture coordinates: %s: %s", status_name(st, name, sizeof name),
                          mmx_ctx_error(ctx));
            goto done;
        }
        for (mmx_index q = 0; q < out->M->nnz; q++)
            for (int c = 0; c < 2; c++) uv_ours[2 * q + c] = huv->values[2 * (size_t)huv->index[q] + c];
        mmx_mesh_uv_free(huv);
        if (oracle_compare_uv(&mmx_o, uv_ours, &ref_o, uv_ref, tol * d, &uv_err, msg, sizeof msg)) {
            code = result(1, "DIFFER texture coordinates: %s", msg);
            goto done;
        }
        snprintf(uvmsg, sizeof uvmsg, " uv_err=%.3g", uv_err / d);
    }
    code = result(0, "AGREE max_err=%.3g%s verts=%d faces=%d mmx_ms=%.3f %s_ms=%.3f", max_err,
                  uvmsg, mmx_o.nverts, mmx_o.nfaces, mmx_ms, oracle_name,
                  ot.refine_ms + ot.stencil_ms + ot.eval_ms);
done:
    free(uv_in), free(uv_idx), free(uv_ref), free(uv_ours);
    oracle_mesh_free(&in_o);
    oracle_mesh_free(&mmx_o);
    oracle_mesh_free(&ref_o);
    mmx_mesh_free(out);
    mmx_mesh_free(mesh);
    mmx_ctx_free(ctx);
    return code;
}
