/* The mmx tool's option parser (options.c): long options as `--name value` or `--name=value`,
 * flags (`--name`), a few one-letter aliases (-h, -q, -V), `-` as an ordinary argument
 * (standard input or output), and `--` to end the options. Every command states its own
 * options as a table of opt_spec; the global ones (--backend, --quiet, --json, --progress,
 * --help, --version) are known to every command and may also come before the command's name. */
#ifndef MMX_TOOL_OPTIONS_H
#define MMX_TOOL_OPTIONS_H

/* One option: what it is called, whether it takes a value, and its line of help. */
typedef struct opt_spec {
    const char *name;  /* the long name, without the dashes: "levels" for --levels */
    char alias;        /* a one-letter alias ('h' for -h), or 0 */
    const char *arg;   /* the value's placeholder in the help ("N", "host|cuda"); NULL: a flag */
    const char *help;  /* what it does; may hold newlines, the help indents what follows them */
} opt_spec;

/* The options every command shares, each stated once here so that the help of every command
 * that takes them says the same thing. */
#define OPT_SPEC_FORMAT                                                                       \
    {"format", 0, "obj|off|ply|stl|stl-ascii",                                              \
     "the format of standard input and output (IN or OUT given as -),\n"                  \
     "which have no name to take it from; required for OUT -, while\n"                    \
     "IN - without it is told by its content (OBJ when nothing else fits)"}
#define OPT_SPEC_FROM                                                                         \
    {"from", 0, "obj|off|ply|stl",                                                          \
     "the format of IN whatever its name: a file without a known\n"                       \
     "extension, or - when input and output formats differ"}
#define OPT_SPEC_TO                                                                           \
    {"to", 0, "obj|off|ply|stl|stl-ascii",                                                  \
     "the format of OUT whatever its name: a file without a known\n"                      \
     "extension (/dev/null), or - when input and output formats differ"}
#define OPT_SPEC_DISCARD                                                                      \
    {"discard", 0, NULL,                                                                    \
     "compute and report, write nothing (give no OUT): for timing. The\n"                 \
     "result need not reach a disk (igea's 269k triangles to Catmull-\n"                  \
     "Clark level 5 are a 6 GB PLY), nor leave the GPU"}

/* The global options, known to every command, in this order in tool_args.global. */
enum { G_BACKEND, G_QUIET, G_JSON, G_PROGRESS, G_HELP, G_VERSION, G_COUNT };
extern const opt_spec global_opts[G_COUNT];

/* The most options a command may have, and the most positional arguments it may be given. */
#define OPT_MAX 16
#define POS_MAX 8

/* What the command line said: for each option of the command (cmd_opts[i]) and each global
 * one, its value (the last one given; "" for a flag) or NULL when it was not given, and the
 * positional arguments in order. The strings point into argv. */
typedef struct tool_args {
    const char *value[OPT_MAX];
    const char *global[G_COUNT];
    const char *pos[POS_MAX];
    int npos;
} tool_args;

/* Parses the options before the command's name: global options only, stopping at the first
 * argument that is not an option (the command) or after `--`. *next is where to go on.
 * Returns 0, or EXIT_USAGE after printing why (an unknown option, a missing value). */
int opt_parse_global(int argc, char **argv, int *next, tool_args *a);

/* Parses argv[first..argc) for the command `cmd` (its name, for messages) with its options
 * opts[0..nopts) and the global ones, in any order with the positional arguments. Returns 0,
 * or EXIT_USAGE after printing why: an unknown option (naming the commands it belongs to),
 * a missing value, a value given to a flag, more than POS_MAX arguments. */
int opt_parse(int argc, char **argv, int first, const char *cmd, const opt_spec *opts,
              int nopts, tool_args *a);

/* Prints opts[0..n) as an aligned list to stdout: "  --name ARG   help". */
void opt_print(const opt_spec *opts, int n);

#endif
