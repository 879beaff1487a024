/* The mmx tool: its command table, and the pieces its commands share (tool_util.c: messages,
 * timing, the aligned report rows, output checks, the backend; inout.c: where a mesh comes
 * from and where it goes, standard input and output included).
 *
 * A command is one file (info_cmd.c, subdiv_cmd.c, ...) that defines one tool_cmd: its name,
 * a summary, its synopsis and help, its options (options.h) and the function that runs it.
 * mmx.c lists the commands; the usage lines, `mmx --help`, `mmx help CMD` and the refusal of an
 * unknown option are all generated from that list. */
#ifndef MMX_TOOL_H
#define MMX_TOOL_H

#include <stdio.h>
#include "meshmatrix.h"
#include "options.h"
#include "render.h"
#include "report.h"

enum { EXIT_OK = 0, EXIT_FAIL = 1, EXIT_USAGE = 2 };

#define BUILTIN_PREFIX "builtin:"

/* ---- the command table --------------------------------------------------------------------- */

enum {
    CMD_GPU_DEFAULT = 1, /* runs on the GPU when there is one and no --backend is given */
    CMD_JSON = 2         /* can print its figures as JSON (--json) */
};

typedef struct tool_cmd {
    const char *name;     /* "subdiv" */
    const char *summary;  /* one line for the command list */
    const char *synopsis; /* what follows "mmx " in the usage line: "subdiv --scheme S IN OUT" */
    const char *help;     /* the paragraphs of `mmx help NAME` after the usage line */
    const opt_spec *opts; /* its own options; tool_args.value[i] holds opts[i]'s value */
    int nopts;
    int flags;            /* CMD_* */
    /* Runs the command: checks its arguments (usage_error for bad ones, before any work),
     * makes its context when it needs one, and returns the exit status. Its report goes
     * through report.h (text, JSON or nothing). */
    int (*run)(const tool_args *a);
} tool_cmd;

/* The table (mmx.c), in the order of `mmx --help`. */
extern const tool_cmd *const tool_commands[];
extern const int tool_ncommands;

/* The command named `name`, or NULL. */
const tool_cmd *find_command(const char *name);

/* The command being run (set by main before it parses the command's options), for the usage
 * line of usage_error; NULL before a command is known. */
extern const tool_cmd *tool_current;

/* The help: the command list with the shared notes (mmx --help), and one command's help
 * (mmx help NAME, mmx NAME --help), both to stdout (help_cmd.c). */
void print_tool_help(void);
void print_command_help(const tool_cmd *cmd);

/* The texts the help and the manual page share (help_cmd.c): what mmx is (one sentence, no
 * final stop), what FILE, IN, OUT and --discard are (aligned lines), the exit statuses. */
extern const char tool_tagline[], tool_io_notes[], tool_exit_status[];

/* The manual page of mmx in troff (man(7) macros) to stdout, generated from the command table
 * and the texts above as the help is: `mmx help --man`, which the build runs to make the
 * installed mmx.1 (man.c). */
void print_man_page(void);

/* The commands (one file each). */
extern const tool_cmd info_command, convert_command, reorder_command, normals_command, smooth_command,
    delaunay_command, remesh_command, simplify_command, triangulate_command, subdiv_command, limit_command,
    query_command, partition_command, matrix_command, render_command, demo_command, bench_command, help_command;

/* ---- messages ------------------------------------------------------------------------------ */

#if defined(__GNUC__)
#define TOOL_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define TOOL_PRINTF(a, b)
#endif

/* This process's rank in the MPI job that started it (Open MPI's OMPI_COMM_WORLD_RANK, or
 * PMI_RANK / PMIX_RANK), 0 when not started by mpirun: known before MPI_Init, so the usage
 * errors every rank meets alike are printed by rank 0 only. */
int launched_rank(void);

/* Prints "mmx: <message>" (under mpirun: on rank 0 only), then the usage line of the current command (or the tool's with
 * the list of commands) and where to find more, to stderr; returns EXIT_USAGE. */
int usage_error(const char *fmt, ...) TOOL_PRINTF(1, 2);

/* The tool's usage line and its list of commands, to `f` (for a usage error without a
 * command, an unknown command, and the help). */
void print_usage_line(FILE *f);

/* Reports a failed call: the context's detail, prefixed with `what` (a file name) when the
 * detail does not already name it, without the library's leading C function name, and with
 * 'mmx triangulate IN OUT' where the library names mmx_mesh_triangulate. Returns EXIT_FAIL. */
int fail(mmx_ctx *ctx, mmx_status s, const char *what);

/* "mmx: out of memory (WHAT)" to stderr; returns EXIT_FAIL. */
int out_of_memory(const char *what);

/* "N vertices, M faces" with the singular where a count is 1, in buf (COUNTS_LEN bytes);
 * returns buf. */
#define COUNTS_LEN 64
const char *counts_text(char *buf, long long nverts, long long nfaces);

/* Milliseconds on a monotonic clock. */
double now_ms(void);

/* "cuda" or "host": the context's backend, for the reports. */
const char *backend_name(const mmx_ctx *ctx);

/* A format's name for the reports ("OBJ text", ...), and its short one ("obj", ...). */
const char *format_name(mmx_format f);
const char *format_key(mmx_format f);

/* The size of a written regular file in bytes; -1 if it cannot be read, or for a device or a
 * pipe (/dev/null), whose size says nothing of what was written. */
long long file_bytes(const char *path);

/* Checks, before any work, that a command may create or replace the file `path`: an existing
 * file (a device such as /dev/null or a named pipe too) must be writable and not a folder;
 * for a new one, its folder must exist, be a folder and be writable. Otherwise prints
 * "mmx: PATH: cannot write there: REASON" and returns EXIT_FAIL; returns EXIT_OK when it may. */
int check_output_file(const char *path);

/* The same for a folder that a command writes files into (mmx demo's DIR): it exists, is a
 * folder and is writable. */
int check_output_dir(const char *dir);

/* Parses a --levels value: a whole number in [0, MAX_LEVELS]; `dflt` when arg is NULL.
 * Returns 1 on success, 0 for a bad value. MAX_LEVELS is far more than any mesh survives
 * (each level multiplies the faces by 3 or 4): the library's size check refuses long before. */
#define MAX_LEVELS 32
int parse_levels(const char *arg, int dflt, int *levels);

/* Parses a whole number in [lo, hi] (a --size, a --repeats). Returns 1 on success, else 0. */
int parse_int(const char *arg, long lo, long hi, int *out);

/* Parses a finite number in [lo, hi]. Returns 1 on success, else 0. */
int parse_real(const char *arg, double lo, double hi, double *out);

/* Parses a --scheme value (NULL when none was given: `dflt`, or a usage error when dflt is
 * negative). Returns EXIT_OK, or EXIT_USAGE after printing why. */
int parse_scheme(const char *arg, int dflt, mmx_scheme *scheme);

/* Makes the context a command runs in and puts it on its backend, saying which and why in
 * why[0..n): `asked` is the --backend value ("host", "cuda", or NULL when none was given);
 * without one, commands with `gpu_by_default` set go to the first CUDA device when the build
 * has the CUDA backend and a usable device is found, else stay on the host. The line reads
 * "cuda: NVIDIA H200 found", "host: no usable GPU or driver found (REASON)", "host: built
 * without the CUDA backend", ... Returns EXIT_OK with *ctx set, or EXIT_FAIL after printing
 * why (no memory, or --backend cuda asked for and unusable) with *ctx NULL. */
int open_context(const char *asked, int gpu_by_default, mmx_ctx **ctx, char *why, size_t n);

/* ---- inputs and outputs (inout.c) ---------------------------------------------------------- */

/* A mesh to read: a file, builtin:SPEC (mmx_mesh_shape), or - (standard input). */
typedef struct tool_input {
    const char *arg;  /* as given */
    const char *name; /* for messages and reports: the path, builtin:SPEC, or <stdin> */
    mmx_format fmt;   /* MMX_FORMAT_AUTO: by the file's extension */
} tool_input;

/* Where a result goes. */
typedef enum out_kind {
    OUT_FILE = 0,   /* a file (or a device such as /dev/null) */
    OUT_STDOUT,     /* standard output (-) */
    OUT_DISCARD     /* nowhere (--discard) */
} out_kind;

typedef struct tool_output {
    out_kind kind;
    const char *path; /* the file, "-" for standard output, NULL when discarded */
    const char *name; /* for messages and reports: the path, <stdout> or "(discarded)" */
    mmx_format fmt;   /* for a mesh */
} tool_output;

/* Parses an obj|off|ply|stl|stl-ascii value of --format, --from or --to (`option` names it in
 * the message; stl-ascii writes ascii STL, and reads as stl does, either kind). Returns
 * EXIT_OK, or EXIT_USAGE after printing why. */
int parse_format(const char *option, const char *arg, mmx_format *fmt);

/* Resolves IN: `from` and `format` are the --from and --format values (NULL when absent).
 * The format is --from, else --format when IN is -, else the file's extension (checked by
 * the reader); - without either is sniffed from its content (mmx_mesh_read_ex). Returns
 * EXIT_OK or EXIT_USAGE. */
int input_resolve(const char *arg, const char *from, const char *format, tool_input *in);

/* Loads IN into the context's space, timing it (standard input is read to its end first),
 * within the size limit of the environment variable MMX_MAX_INPUT_BYTES (bytes, with an
 * optional K, M, G suffix; the library's default of 4 GiB when unset). What the file held and
 * the mesh does not (mmx_read_info) is kept for output_write_mesh's warnings. Returns
 * EXIT_OK, or EXIT_FAIL after printing why (naming IN). */
int input_load(mmx_ctx *ctx, const tool_input *in, mmx_mesh **mesh, double *ms);
/* input_load's two halves: the reading, which prints nothing (but MMX_MAX_INPUT_BYTES's complaint,
 * then MMX_ERR_ARG), and the message for its failure (EXIT_FAIL), for a command that
 * takes some failures another way (subdiv: faces that repeat a vertex). */
mmx_status input_read(mmx_ctx *ctx, const tool_input *in, mmx_mesh **mesh, double *ms);
int input_failed(mmx_ctx *ctx, mmx_status s, const tool_input *in);

/* Loads a file or a builtin:SPEC shape, timing it; no message (demo's cage falls back). */
mmx_status load(mmx_ctx *ctx, const char *src, mmx_mesh **mesh, double *ms);

/* Takes IN and OUT from a command's positional arguments: IN OUT, or IN alone with --discard
 * (`discard` set). Returns EXIT_OK or EXIT_USAGE after printing why. */
int take_in_out(const tool_args *a, int discard, const char **in, const char **out);

/* Resolves a mesh OUT (NULL when discarded): `to` and `format` are the --to and --format
 * values. The format is --to, else --format when OUT is -, else OUT's extension; - without
 * either, or a name without a known extension, is a usage error. Then checks before any work
 * that OUT can be written: check_output_file for a file; for standard output, that it is open,
 * and not a terminal when the format is binary (PLY). The report goes to stderr from here on
 * when OUT is standard output (report_to_stderr). Returns EXIT_OK, EXIT_USAGE or EXIT_FAIL. */
int output_resolve_mesh(const char *arg, const char *to, const char *format, tool_output *out);

/* The positional IN and OUT of a command that reads a mesh and writes one (convert, reorder,
 * subdiv), resolved in one step: take_in_out, input_resolve, output_resolve_mesh, given the
 * --discard, --from, --to and --format values (NULL when absent). Returns as those do. */
int mesh_in_out(const tool_args *a, const char *discard, const char *from, const char *to,
                const char *format, tool_input *in, tool_output *out);

/* The whole of a mesh-to-mesh command on the host by default (convert, reorder): its IN and
 * OUT (mesh_in_out, the option values as there), a context for --backend, then
 * work(ctx, in, out). Returns the exit status. */
typedef int (*mesh_work_fn)(mmx_ctx *ctx, const tool_input *in, const tool_output *out);
int run_mesh_command(const tool_args *a, const char *discard, const char *from, const char *to,
                     const char *format, mesh_work_fn work);

/* The whole of a command whose result is text (query's rows, matrix's Matrix Market file) on
 * the host by default: IN (input_resolve with the --from and --format values), OUT a file
 * (checked before any work) or standard output when out_arg is NULL or - (the report then goes
 * to stderr), a context for --backend, then work(ctx, what, in, out), `what` being the
 * command's parsed kind. Returns the exit status. */
typedef int (*text_work_fn)(mmx_ctx *ctx, const void *what, const tool_input *in,
                            const tool_output *out);
int run_text_command(const tool_args *a, const char *in_arg, const char *out_arg,
                     const char *from, const char *format, text_work_fn work, const void *what);

/* The same for a PNG picture (OUT must end in .png unless it is -). */
int output_resolve_png(const char *arg, tool_output *out);

/* Writes `mesh` (either space) to OUT, timing it; *bytes is the size written (-1 when it
 * cannot be known: a pipe). Nothing is done when OUT is discarded. Standard output that is a
 * pipe or a device is written directly (through /dev/stdout, as the writer takes a path);
 * anything else (a regular file, a socket) gets a temporary file that is then copied, so that
 * a file opened for appending is appended to and not truncated. Before writing, warns on
 * stderr (unless --quiet), one line per kind with a count, of what is lost on the way: what
 * the last input_load left out, and what OUT's format cannot carry (texture coordinates but
 * in OBJ, normals in OFF and STL, colors but in PLY and OBJ, tags but in OBJ). When STL is refused for a face that is
 * not a triangle, points to mmx triangulate. Returns EXIT_OK, or EXIT_FAIL after
 * printing why. */
int output_write_mesh(mmx_ctx *ctx, const mmx_mesh *mesh, const tool_output *out,
                      long long *bytes, double *ms);

/* The JSON report's "input" object (docs/json.md): the mesh's name, its vertices and faces,
 * load_ms (null when negative: not measured) (tool_util.c). */
void js_input(const char *name, long long nverts, long long nfaces, double load_ms);

/* The text report's last row of a command that wrote a mesh with output_write_mesh: "wrote
 * NAME: FORMAT, BYTES bytes (MS ms)" (the size left out when unknown: a pipe), or
 * "discarded" under --discard. */
void row_output(const tool_output *out, long long bytes, double write_ms);

/* The JSON report's "output" object of a command that wrote a mesh with output_write_mesh:
 * path and format (null when discarded), the mesh's vertices and faces, bytes (null when
 * unknown) and write_ms. */
void js_output(const tool_output *out, long long nverts, long long nfaces, long long bytes,
               double write_ms);

/* A growing text buffer, for a result written in one piece (output_write_bytes): when memory
 * runs out, failed is set and later text is dropped. */
typedef struct text {
    char *data;
    size_t len, cap;
    int failed;
} text;

/* Appends n bytes of s to t (nothing once t has failed). */
void text_put(text *t, const char *s, size_t n);

/* Writes `len` bytes to OUT (a file or standard output; nothing when discarded). A partly
 * written regular file is removed. Returns EXIT_OK, or EXIT_FAIL after printing why. */
int output_write_bytes(const tool_output *out, const void *data, size_t len);

/* ---- shared by commands -------------------------------------------------------------------- */

/* mmx query's text of a query result held in host memory (query_cmd.c; dist_run.c writes the
 * partitioned query's with it, so the two are the same bytes): the '#' header line naming
 * `kind`, `mesh` and the counts (ncols: how many target elements), then one line per row, its
 * entries 0-based; the rows at order * row when order > 0, else by rowptr. Returns EXIT_OK, or
 * EXIT_FAIL after saying memory ran out. */
int query_text(text *t, mmx_query_kind kind, const char *mesh, long long nrows, long long ncols,
               long long nnz, int order, const mmx_index *rowptr, const mmx_index *colidx);

/* Subdivides `mesh` (named `name` in the report, loaded in load_ms; a negative load_ms leaves
 * the load time out) `levels` times and prints the report: the scheme row, the input row, each
 * level's sizes and time, the total time (and the JSON fields "scheme", "levels", "path",
 * "boundary", "creases", "input", "per_level" and "subdivision_ms"), with the options `base`
 * (path, boundary, crease method; the trace is the report's). The result goes to *fine. On failure prints the
 * context's detail (naming `name`) and returns EXIT_FAIL (subdiv_cmd.c). */
int subdiv_report(mmx_ctx *ctx, mmx_scheme scheme, int levels, mmx_subdiv_options base,
                  const mmx_mesh *mesh, const char *name, double load_ms, mmx_mesh **fine);

/* Draws `mesh` (either space) as `opt` says (render.h) into a PNG written to OUT and prints a
 * "picture" row with the size in bytes and the times (and the JSON object "picture"); on
 * failure prints why, naming OUT, and returns EXIT_FAIL (render_cmd.c). */
int render_to_png(mmx_ctx *ctx, const mmx_mesh *mesh, const tool_output *out,
                  const render_options *opt);

/* The cage of mmx demo and mmx bench (demo_cmd.c): `data` when given (a file or builtin:SPEC
 * asked for by name: its failure is an error), else Bigguy from the source tree, or, where that
 * cannot be read, builtin:torus with a note. *src is what was loaded, *ms how long it took.
 * Returns EXIT_OK, or EXIT_FAIL after printing why (also for a mesh without positions). */
int load_cage(mmx_ctx *ctx, const char *data, mmx_mesh **cage, const char **src, double *ms);

/* The patch set's rows and JSON object "patches" (patch_report.c): its figures, S the bound
 * it was cut with (kept: a set kept through edits, whose patches grow past S), ms its build
 * time (negative: no time row). */
void print_patch_stats(const mmx_patch_stats *ps, int S, int kept, double ms, const char *backend);

/* Every query of the patch set ps against mmx_query on mesh (the set's mesh): a row (and
 * "patch_queries_equal" in JSON) saying they are equal, or, naming the first that differs,
 * EXIT_FAIL with a message on stderr; a library error is reported as fail() does, `name`
 * naming the mesh. */
int check_patch_queries(mmx_ctx *ctx, const mmx_patch_set *ps, const mmx_mesh *mesh,
                        const char *name);

/* mmx_mesh_triangulate, failing with the context's detail (naming `name`): what mmx demo and
 * mmx bench give Loop and sqrt3 of a quad cage (triangulate_cmd.c). Returns EXIT_OK, or
 * EXIT_FAIL after saying why. */
int triangulate(mmx_ctx *ctx, const mmx_mesh *mesh, const char *name, mmx_mesh **out);

#endif
