/* Shared pieces of the mmx tool's commands (tool_util.c): messages, exit codes, timing,
 * loading inputs, and the aligned "label  value" rows of the reports. */
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

/* mmx subdiv and mmx demo (subdiv_cmd.c). `levels_arg` is the --levels text or NULL. */
int cmd_subdiv(mmx_ctx *ctx, const char *scheme, const char *levels_arg, const char *path_arg,
               int reorder, const char *in, const char *out);
int cmd_demo(mmx_ctx *ctx, const char *outdir);

#endif
