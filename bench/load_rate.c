/*
 * load_rate: how fast meshmatrix reads mesh files, on one CPU core.
 *
 *   load_rate [--shape SPEC] [--repeat N] [--meshes DIR] [--tmp DIR] [--keep] [FILE]
 *
 * Takes a large mesh (by default builtin torus:2048:2048, 4.19M quads and as many vertices,
 * the torus of DESIGN.md's reference points; or FILE, or --shape SPEC), writes it as OBJ and
 * as binary PLY into a fresh temporary folder, reads each file back N times (default 5) and
 * prints, as a markdown table, the median time, faces/s, MB/s and the file size against the
 * targets: OBJ >= 3M faces/s, binary PLY >= 20M faces/s. With --meshes DIR it also times every
 * .obj/.off/.ply file in DIR (for instance ../shared/meshes/models), one row per file.
 *
 * The files are read right after being written, so they come from the page cache: this
 * measures parsing and mesh building, not the disk. Exit status 0 when it ran (whether or not
 * the targets were met), 1 when something failed, 2 for a usage error.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "meshmatrix.h"

#define DEFAULT_SHAPE "torus:2048:2048"

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static long long file_size(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? (long long)sb.st_size : -1;
}

static const char *format_name(mmx_format f)
{
    switch (f) {
    case MMX_FORMAT_OBJ: return "OBJ";
    case MMX_FORMAT_OFF: return "OFF";
    case MMX_FORMAT_PLY: return "PLY";
    default: return "?";
    }
}

/* The CPU model from /proc/cpuinfo, or "unknown CPU". */
static void cpu_model(char *buf, size_t cap)
{
    snprintf(buf, cap, "unknown CPU");
    FILE *fp = fopen("/proc/cpuinfo", "r");
    if (!fp) return;
    char line[512];
    while (fgets(line, sizeof line, fp)) {
        if (strncmp(line, "model name", 10) != 0) continue;
        const char *v = strchr(line, ':');
        if (!v) break;
        v++;
        while (*v == ' ' || *v == '\t') v++;
        snprintf(buf, cap, "%s", v);
        buf[strcspn(buf, "\n")] = '\0';
        break;
    }
    fclose(fp);
}

/* One timed file: median seconds over `repeat` reads, and what was read. */
typedef struct timing {
    double median_s, min_s;
    mmx_index nverts, nfaces;
    long long bytes;
} timing;

/* Reads path `repeat` times; 0 on success, else prints the context's detail and returns 1. */
static int time_reads(mmx_ctx *ctx, const char *path, int repeat, timing *t)
{
    double *s = malloc((size_t)repeat * sizeof *s);
    if (!s) {
        fprintf(stderr, "load_rate: out of memory\n");
        return 1;
    }
    for (int r = 0; r < repeat; r++) {
        mmx_mesh *m = NULL;
        double t0 = now_s();
        mmx_status st = mmx_mesh_read(ctx, path, MMX_FORMAT_AUTO, &m);
        s[r] = now_s() - t0;
        if (st) {
            fprintf(stderr, "load_rate: %s\n", mmx_ctx_error(ctx));
            free(s);
            return 1;
        }
        t->nverts = mmx_mesh_nverts(m);
        t->nfaces = mmx_mesh_nfaces(m);
        mmx_mesh_free(m);
    }
    qsort(s, (size_t)repeat, sizeof *s, cmp_double);
    t->median_s = repeat % 2 ? s[repeat / 2] : 0.5 * (s[repeat / 2 - 1] + s[repeat / 2]);
    t->min_s = s[0];
    t->bytes = file_size(path);
    free(s);
    return 0;
}

static void print_row(const char *name, mmx_format fmt, const timing *t, double target)
{
    double fps = t->nfaces / t->median_s, mbps = (double)t->bytes / 1e6 / t->median_s;
    printf("| %s | %s | %.1f | %d | %d | %.1f | %.1f | %.2f | %.0f |", name, format_name(fmt),
           (double)t->bytes / 1e6, (int)t->nverts, (int)t->nfaces, t->median_s * 1e3,
           t->min_s * 1e3, fps / 1e6, mbps);
    if (target > 0) printf(" >= %.0fM | %s |\n", target / 1e6, fps >= target ? "yes" : "**no**");
    else printf(" - | - |\n");
}

static void print_header(void)
{
    printf("| file | format | size (MB) | vertices | faces | median (ms) | best (ms) "
           "| Mfaces/s | MB/s | target | met |\n"
           "|---|---|---:|---:|---:|---:|---:|---:|---:|---|---|\n");
}

static int usage(void)
{
    fprintf(stderr, "usage: load_rate [--shape SPEC] [--repeat N] [--meshes DIR] [--tmp DIR] "
                    "[--keep] [FILE]\n");
    return 2;
}

/* Times every mesh file in dir, in name order. */
static int time_folder(mmx_ctx *ctx, const char *dir, int repeat)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "load_rate: %s: %s\n", dir, strerror(errno));
        return 1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (mmx_format_from_path(e->d_name) == MMX_FORMAT_AUTO) continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 32;
            char **nn = realloc(names, cap * sizeof *nn);
            if (!nn) {
                rc = 1;
                break;
            }
            names = nn;
        }
        if (!(names[n] = strdup(e->d_name))) {
            rc = 1;
            break;
        }
        n++;
    }
    closedir(d);
    if (rc) fprintf(stderr, "load_rate: out of memory\n");
    if (!rc && n) qsort(names, n, sizeof *names, cmp_str);
    if (!rc) {
        printf("\nFiles in %s (%d reads each, median):\n\n", dir, repeat);
        print_header();
    }
    double total_s = 0;
    long long total_faces = 0, total_bytes = 0;
    for (size_t i = 0; !rc && i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        timing t;
        if (time_reads(ctx, path, repeat, &t) != 0) {
            rc = 1;
            break;
        }
        print_row(names[i], mmx_format_from_path(path), &t, 0);
        fflush(stdout);
        total_s += t.median_s;
        total_faces += t.nfaces;
        total_bytes += t.bytes;
    }
    if (!rc && n)
        printf("| all %zu files | | %.1f | | %lld | %.1f | | %.2f | %.0f | | |\n", n,
               (double)total_bytes / 1e6, total_faces, total_s * 1e3,
               (double)total_faces / total_s / 1e6, (double)total_bytes / 1e6 / total_s);
    for (size_t i = 0; i < n; i++) free(names[i]);
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    const char *shape = NULL, *file = NULL, *meshes = NULL, *tmpdir = NULL;
    int repeat = 5, keep = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--shape") == 0 && i + 1 < argc) shape = argv[++i];
        else if (strcmp(a, "--repeat") == 0 && i + 1 < argc) repeat = atoi(argv[++i]);
        else if (strcmp(a, "--meshes") == 0 && i + 1 < argc) meshes = argv[++i];
        else if (strcmp(a, "--tmp") == 0 && i + 1 < argc) tmpdir = argv[++i];
        else if (strcmp(a, "--keep") == 0) keep = 1;
        else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage();
            return 0;
        } else if (a[0] == '-' || file) return usage();
        else file = a;
    }
    if (repeat < 1 || repeat > 1000 || (shape && file)) return usage();
    if (!shape && !file) shape = DEFAULT_SHAPE;

    char cpu[256];
    cpu_model(cpu, sizeof cpu);
    printf("load_rate: meshmatrix %d.%d.%d, %s, one thread, %d reads per file\n\n",
           MMX_VERSION_MAJOR, MMX_VERSION_MINOR, MMX_VERSION_PATCH, cpu, repeat);

    mmx_ctx *ctx = NULL;
    if (mmx_ctx_create(&ctx) != MMX_OK) {
        fprintf(stderr, "load_rate: cannot create a context\n");
        return 1;
    }
    int rc = 1;
    mmx_mesh *src = NULL;
    char dir[4096] = "", obj[4200] = "", ply[4200] = "";
    double t0 = now_s();
    mmx_status st = shape ? mmx_mesh_shape(ctx, shape, &src)
                          : mmx_mesh_read(ctx, file, MMX_FORMAT_AUTO, &src);
    double gen_s = now_s() - t0;
    if (st) {
        fprintf(stderr, "load_rate: %s\n", mmx_ctx_error(ctx));
        goto done;
    }
    printf("source: %s%s, %d vertices, %d faces (%s in %.0f ms)\n\n", shape ? "builtin:" : "",
           shape ? shape : file, (int)mmx_mesh_nverts(src), (int)mmx_mesh_nfaces(src),
           shape ? "built" : "read", gen_s * 1e3);

    const char *base = tmpdir ? tmpdir : getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/mmx_load_rate.XXXXXX", base && base[0] ? base : "/tmp");
    if (!mkdtemp(dir)) {
        fprintf(stderr, "load_rate: %s: %s\n", dir, strerror(errno));
        dir[0] = '\0';
        goto done;
    }
    snprintf(obj, sizeof obj, "%s/mesh.obj", dir);
    snprintf(ply, sizeof ply, "%s/mesh.ply", dir);
    const char *paths[2] = {obj, ply};
    const mmx_format fmts[2] = {MMX_FORMAT_OBJ, MMX_FORMAT_PLY};
    const double targets[2] = {3e6, 20e6};
    double write_s[2];
    for (int k = 0; k < 2; k++) {
        t0 = now_s();
        st = mmx_mesh_write(ctx, src, paths[k], fmts[k]);
        write_s[k] = now_s() - t0;
        if (st) {
            fprintf(stderr, "load_rate: %s\n", mmx_ctx_error(ctx));
            goto done;
        }
    }
    mmx_index nfaces = mmx_mesh_nfaces(src), nverts = mmx_mesh_nverts(src);
    mmx_mesh_free(src);
    src = NULL;

    printf("Reading back (%d reads each, median; files in the page cache):\n\n", repeat);
    print_header();
    int all_met = 1;
    for (int k = 0; k < 2; k++) {
        timing t;
        if (time_reads(ctx, paths[k], repeat, &t) != 0) goto done;
        if (t.nfaces != nfaces || t.nverts != nverts) {
            fprintf(stderr, "load_rate: %s read back with %d vertices, %d faces, not %d, %d\n",
                    paths[k], (int)t.nverts, (int)t.nfaces, (int)nverts, (int)nfaces);
            goto done;
        }
        print_row(fmts[k] == MMX_FORMAT_OBJ ? "mesh.obj" : "mesh.ply", fmts[k], &t, targets[k]);
        fflush(stdout);
        all_met &= t.nfaces / t.median_s >= targets[k];
    }
    printf("\nWriting (once each): ");
    for (int k = 0; k < 2; k++)
        printf("%s%s %.1f MB in %.0f ms (%.2f Mfaces/s, %.0f MB/s)", k ? "; " : "",
               format_name(fmts[k]), (double)file_size(paths[k]) / 1e6, write_s[k] * 1e3,
               nfaces / write_s[k] / 1e6, (double)file_size(paths[k]) / 1e6 / write_s[k]);
    printf("\nTargets %s.\n", all_met ? "met" : "NOT met");
    rc = 0;
    if (meshes) rc = time_folder(ctx, meshes, repeat);

done:
    mmx_mesh_free(src);
    if (dir[0] && !keep) {
        if (obj[0]) remove(obj);
        if (ply[0]) remove(ply);
        if (rmdir(dir) != 0) fprintf(stderr, "load_rate: cannot remove %s: %s\n", dir, strerror(errno));
    } else if (dir[0]) {
        printf("files kept in %s\n", dir);
    }
    mmx_ctx_free(ctx);
    if (fflush(stdout) != 0) return 1;
    return rc;
}
