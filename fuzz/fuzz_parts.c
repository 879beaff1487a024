/* libFuzzer target for part files (dist.h: mmx_dist_mesh_read_parts), on one MPI rank (a
 * singleton MPI_Init, once). The input is a set of one part: its first two bytes (little-endian)
 * give the length n of the index, the next n bytes are PREFIX.index and the rest is
 * PREFIX.0.part, both written to a folder made once. Then:
 *   - mmx_dist_mesh_read_parts returns a status: a refusal has a sentence, and nothing is
 *     returned with it; MMX_ERR_INTERNAL aborts (no crash, hang or leak: ASan and LSan);
 *   - on success the partitioned mesh takes what runs on it: the eight queries (the edge
 *     numbering among them), the vertex normals and the whole gathered on rank 0
 *     (mmx_dist_mesh_gather) and written by the ranks (mmx_dist_write_obj), each succeeding
 *     or refusing with a sentence, never an internal error; the gathered whole has the
 *     index's counts.
 * MMX_FUZZ_VERBOSE=1 prints each read's status and sentence.
 * Seeds: fuzz/seeds/parts, made from real partitions (`mmx partition` of small meshes, one
 * rank, with and without creases, one and two rings; fuzz/README.md). Built only where the
 * build has MPI; without it every input is skipped. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "meshmatrix.h"
#include "meshmatrix/dist.h"
#ifdef MMX_HAVE_MPI
#include <mpi.h>
#endif
#include <sanitizer/lsan_interface.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Open MPI's allocations that live until exit are not the library's (tests/lsan_mpi.supp). */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:libmpi.so\nleak:libopen-pal.so\nleak:libopen-rte.so\nleak:libpmix.so\n"
           "leak:libhwloc.so\nleak:libevent\nleak:mca_\n";
}

static char dir[256], prefix[300], index_path[320], part_path[320], obj_path[320];
static mmx_ctx *setup; /* the handle's; each input gets a fresh context, so a sentence is its own */
static mmx_dist *d;
static mmx_ctx *ctx;

static void done(void)
{
    mmx_dist_free(d);
    mmx_ctx_free(setup);
    remove(index_path), remove(part_path), rmdir(dir);
    /* No MPI_Finalize: what Open MPI frees and allocates on the way out (in plugins it
     * unloads) is not the library's, and LeakSanitizer's check at exit comes after it. */
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    if (!mmx_dist_available()) return 0;
    /* What Open MPI allocates for good while it starts (some of it in plugins it unloads
     * again, which no suppression can name) is not LeakSanitizer's business. */
    __lsan_disable();
#ifdef MMX_HAVE_MPI
    MPI_Init(NULL, NULL);
#endif
    const int ok = mmx_ctx_create(&setup) == MMX_OK && mmx_dist_create(setup, NULL, &d) == MMX_OK;
    __lsan_enable();
    /* Two files written and read per input: in memory (/dev/shm) where there is one, as a
     * disk's file system makes the run ten times slower; else TMPDIR, else /tmp. */
    const char *tmp = getenv("TMPDIR");
    if (!access("/dev/shm", W_OK)) tmp = "/dev/shm";
    snprintf(dir, sizeof dir, "%s/mmx_fuzz_parts_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!ok || !mkdtemp(dir)) {
        fprintf(stderr, "fuzz_parts: set-up failed: %s\n", setup ? mmx_ctx_error(setup) : "mkdtemp");
        abort();
    }
    snprintf(prefix, sizeof prefix, "%s/p", dir);
    snprintf(index_path, sizeof index_path, "%s.index", prefix);
    snprintf(part_path, sizeof part_path, "%s.0.part", prefix);
    snprintf(obj_path, sizeof obj_path, "%s.obj", prefix);
    atexit(done);
    return 0;
}

/* A refusal is a status with a sentence; MMX_ERR_INTERNAL says two checks disagree. */
static void sound(mmx_status s)
{
    if (s == MMX_ERR_INTERNAL || (s && !mmx_ctx_error(ctx)[0])) abort();
}

static int put(const char *path, const uint8_t *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    const size_t w = n ? fwrite(p, 1, n, f) : 0;
    return fclose(f) || w != n ? -1 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!d || size < 2) return 0;
    const size_t n = (size_t)data[0] | (size_t)data[1] << 8;
    if (n > size - 2) return 0;
    if (put(index_path, data + 2, n) || put(part_path, data + 2 + n, size - 2 - n)) abort();
    mmx_dist_mesh *dm = (mmx_dist_mesh *)1;
    if (mmx_ctx_create(&ctx)) abort();
    mmx_status s = mmx_dist_mesh_read_parts(ctx, d, prefix, &dm);
    static int verbose = -1;
    if (verbose < 0) verbose = getenv("MMX_FUZZ_VERBOSE") != NULL;
    if (verbose) fprintf(stderr, "read: status %d: %s\n", (int)s, s ? mmx_ctx_error(ctx) : "ok");
    sound(s);
    if (s) {
        if (dm) abort(); /* nothing with a refusal */
        mmx_ctx_free(ctx);
        return 0;
    }
    mmx_dist_info info;
    if (mmx_dist_mesh_info(dm, &info) || info.ranks != 1 || info.owned_faces != info.global_faces)
        abort();
    for (int k = 0; k < MMX_QUERY_COUNT; k++) {
        int64_t rows = 0;
        mmx_index *rowptr = NULL, *colidx = NULL;
        sound(mmx_dist_query(ctx, dm, (mmx_query_kind)k, &rows, &rowptr, &colidx));
        free(rowptr), free(colidx);
    }
    const mmx_index nl = mmx_mesh_nverts(mmx_dist_mesh_local(dm));
    float *normals = malloc(3 * (size_t)nl * sizeof *normals + 4);
    if (!normals) abort();
    sound(mmx_dist_vertex_normals(ctx, dm, MMX_NORMAL_AREA, normals));
    free(normals);
    mmx_mesh *whole = NULL;
    s = mmx_dist_mesh_gather(ctx, dm, &whole);
    sound(s);
    if (!s && (!whole || mmx_mesh_nverts(whole) != info.global_verts ||
               mmx_mesh_nfaces(whole) != info.global_faces))
        abort();
    mmx_mesh_free(whole);
    /* the whole written by the ranks (one here): a status, the file's size when it succeeds */
    int64_t bytes = -1;
    s = mmx_dist_write_obj(ctx, dm, mmx_dist_mesh_local(dm)->pos, NULL, obj_path, &bytes);
    sound(s);
    if (!s && bytes <= 0) abort();
    remove(obj_path);
    mmx_dist_mesh_free(dm);
    mmx_ctx_free(ctx);
    return 0;
}
