/* Shared pieces of the mmx tool's commands (tool_util.c): messages, exit codes, timing,
 * loading inputs, the aligned "label  value" rows of the reports, the output checks and the
 * choice of backend; and the commands that live in files of their own. */
#ifndef MMX_TOOL_H
#define MMX_TOOL_H

#include "meshmatrix.h"

enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2 };

#if defined(__GNUC__)
#define TOOL_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define TOOL_PRINTF(a, b)
#endif

#define BUILTIN_PREFIX "builtin:"

/* The one-line usage summary printed after a usage error. */
extern const char tool_usage_line[];

/* Prints "mmx: <message>" and the usage line to stderr; returns EXIT_USAGE. */
int usage_error(const char *fmt, ...) TOOL_PRINTF(1, 2);

/* Reports a failed call: the context's detail, prefixed with `what` (a file name) when the
 * detail does not already name it. Returns EXIT_FAIL. */
int fail(mmx_ctx *ctx, mmx_status s, const char *what);

/* Milliseconds on a monotonic clock. */
double now_ms(void);

/* Loads a mesh file or a builtin:SPEC shape into the context's space, timing it. */
mmx_status load(mmx_ctx *ctx, const char *src, mmx_mesh **mesh, double *ms);

/* Prints one report row: the label padded to a fixed width, then the formatted value. */
void row(const char *label, const char *fmt, ...) TOOL_PRINTF(2, 3);

/* "cuda" or "host": the context's backend, for the reports. */
const char *backend_name(const mmx_ctx *ctx);

/* A format's name for the reports ("OBJ text", ...). */
const char *format_name(mmx_format f);

/* The size of a written file in bytes, -1 if it cannot be read. */
long long file_bytes(const char *path);

/* Checks, before any work, that a command may create or replace the file `path`: its folder
 * exists, is a folder and is writable, and `path` is neither a folder nor a file that cannot
 * be written. Otherwise prints "mmx: PATH: cannot write there: REASON" and returns EXIT_FAIL;
 * returns EXIT_OK when it may. */
int check_output_file(const char *path);

/* The same for a folder that a command writes files into (mmx demo's DIR): it exists, is a
 * folder and is writable. */
int check_output_dir(const char *dir);

/* Parses a --levels value: a whole number in [0, MAX_LEVELS]; `dflt` when arg is NULL.
 * Returns 1 on success, 0 for a bad value. MAX_LEVELS is far more than any mesh survives
 * (each level multiplies the faces by 3 or 4): the library's size check refuses long before. */
#define MAX_LEVELS 32
int parse_levels(const char *arg, int dflt, int *levels);

/* Puts the context on the backend a command runs on and says which and why in why[0..n):
 * `asked` is the --backend value ("host", "cuda", or NULL when none was given); without one,
 * commands with `gpu_by_default` set go to the first CUDA device when the build has the CUDA
 * backend and a usable device is found, else stay on the host. The line reads "cuda: NVIDIA
 * H200 found", "host: no usable GPU or driver found (REASON)", "host: built without the CUDA
 * backend", ... Returns EXIT_OK, or EXIT_FAIL after printing why when --backend cuda was asked
 * for and cannot be used. */
int choose_backend(mmx_ctx *ctx, const char *asked, int gpu_by_default, char *why, size_t n);

/* Subdivides `mesh` (named `name` in the report, loaded in load_ms; a negative load_ms leaves
 * the load time out) `levels` times and prints the report: the scheme row, the input row, each
 * level's sizes and time, the total time. The result goes to *fine. On failure prints the
 * context's detail (naming `name`) and returns EXIT_FAIL (subdiv_cmd.c). */
int subdiv_report(mmx_ctx *ctx, mmx_scheme scheme, int levels, mmx_subdiv_path path,
                  const mmx_mesh *mesh, const char *name, double load_ms, mmx_mesh **fine);

/* mmx subdiv (subdiv_cmd.c). `levels_arg` is the --levels text or NULL. */
int cmd_subdiv(mmx_ctx *ctx, const char *scheme, const char *levels_arg, const char *path_arg,
               int reorder, const char *in, const char *out);

/* Draws `mesh` (either space) into a size x size PNG at `path` and prints a "picture" row with
 * the size in bytes and the times; on failure prints why, naming the path, and returns
 * EXIT_FAIL (render_cmd.c). */
int render_to_png(mmx_ctx *ctx, const mmx_mesh *mesh, const char *path, int size);

/* mmx render IN OUT.png [--size N] (render_cmd.c). `size_arg` is the --size text or NULL. */
int cmd_render(mmx_ctx *ctx, const char *in, const char *out, const char *size_arg);

/* mmx demo [--data FILE] [--levels N] [DIR] (demo_cmd.c): `data` is the --data cage or NULL
 * for the default one, `levels_arg` the --levels text or NULL for each scheme's default,
 * `backend_line` what choose_backend said. */
int cmd_demo(mmx_ctx *ctx, const char *backend_line, const char *data, const char *levels_arg,
             const char *outdir);

#endif
