/* mmx help [COMMAND]: the help, generated from the command table (mmx.c) and each command's
 * options, so that a command's description lives in its own file only. */
#include <stdio.h>
#include "tool.h"

void print_usage_line(FILE *f)
{
    fprintf(f, "usage: mmx [--backend host|cuda] [--quiet | --json] [--progress] COMMAND [ARGS]\ncommands:");
    for (int i = 0; i < tool_ncommands; i++)
        fprintf(f, "%s %s", i ? "," : "", tool_commands[i]->name);
    fputc('\n', f);
}

/* What mmx is, after "mmx VERSION: " in the help and "mmx \- " in the manual page (man.c). */
const char tool_tagline[] = "inspect, convert, triangulate, reorder, smooth, remesh, subdivide (Loop,\n"
                            "sqrt3, Catmull-Clark), query, render and benchmark polygon meshes (meshmatrix)";

/* What FILE, IN, OUT and --discard are, in the help and the manual page. */
const char tool_io_notes[] =
    "FILE, IN:  a .obj, .off, .ply or .stl file (any name with --from FORMAT); builtin:SPEC,\n"
    "           one of the built-in shapes tetrahedron, cube, icosphere[:L], torus[:U:V],\n"
    "           grid[:NX:NY], mixed; or - for standard input, read to its end (its\n"
    "           format told by its content, or given by --format).\n"
    "OUT:       .obj (text), .off (text), .ply (binary little endian) or .stl (binary;\n"
    "           --to stl-ascii for text), by its extension or --to; its folder must\n"
    "           exist and be writable (checked before any\n"
    "           work); or - for standard output (its format given by --format; binary\n"
    "           output is not written to a terminal). When OUT is -, the report goes\n"
    "           to stderr, so that the pipe carries the mesh alone.\n"
    "--discard: instead of OUT, computes and reports but writes nothing: for timing.\n";

const char tool_exit_status[] = "0 success, 1 bad input or a failed operation, 2 usage error";

void print_tool_help(void)
{
    printf("mmx %d.%d.%d: %s\n\n"
           "usage: mmx [GLOBAL OPTIONS] COMMAND [OPTIONS] [ARGS]\n\n"
           "commands:\n",
           MMX_VERSION_MAJOR, MMX_VERSION_MINOR, MMX_VERSION_PATCH, tool_tagline);
    for (int i = 0; i < tool_ncommands; i++)
        printf("  mmx %s\n        %s\n", tool_commands[i]->synopsis, tool_commands[i]->summary);
    printf("  mmx --version\n        the version and whether the CUDA backend is built\n\n");
    printf("%s\nglobal options (before or after the command):\n", tool_io_notes);
    opt_print(global_opts, G_COUNT);
    printf("\n'mmx help COMMAND' or 'mmx COMMAND --help' shows a command's options.\n"
           "exit status: %s\n", tool_exit_status);
}

void print_command_help(const tool_cmd *cmd)
{
    printf("usage: mmx %s\n\n%s\n", cmd->synopsis, cmd->help);
    if (cmd->nopts > 0) {
        printf("\noptions:\n");
        opt_print(cmd->opts, cmd->nopts);
    }
    printf("\nglobal options:\n");
    opt_print(global_opts, G_COUNT);
    if (!(cmd->flags & CMD_JSON)) printf("(%s has no --json report)\n", cmd->name);
}

enum { O_MAN, O_COUNT };

static const opt_spec help_opts[O_COUNT] = {
    [O_MAN] = {"man", 0, NULL,
               "print the manual page of mmx (troff, for man -l; the build\n"
               "installs it as mmx.1) instead"},
};

static int run(const tool_args *a)
{
    if (a->value[O_MAN]) {
        if (a->npos > 0) return usage_error("help --man takes no COMMAND");
        print_man_page();
        return EXIT_OK;
    }
    if (a->npos > 1) return usage_error("help takes one COMMAND, got %d", a->npos);
    if (a->npos == 0) {
        print_tool_help();
        return EXIT_OK;
    }
    const tool_cmd *cmd = find_command(a->pos[0]);
    if (!cmd) {
        tool_current = NULL; /* the usage line with the list of commands */
        return usage_error("no command '%s'", a->pos[0]);
    }
    print_command_help(cmd);
    return EXIT_OK;
}

const tool_cmd help_command = {
    .name = "help",
    .summary = "this list, or a command's help and options",
    .synopsis = "help [COMMAND | --man]",
    .help = "Without COMMAND, the list of commands and the options they share; with one, its\n"
            "usage, what it does and its options (as 'mmx COMMAND --help'). With --man,\n"
            "the manual page of mmx, generated like the help from the command table.",
    .opts = help_opts,
    .nopts = O_COUNT,
    .flags = 0,
    .run = run,
};
