"""python -m meshmatrix ARGS runs the mmx tool installed inside the package (mmx help lists
its commands). The tool is a program of its own (it owns its standard streams, its exit status
and its signals), so it replaces this process rather than running inside the interpreter."""
import os
import sys


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    tool = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mmx")
    if not os.access(tool, os.X_OK):
        sys.exit(f"meshmatrix: the mmx tool is not installed beside the package ({tool})")
    sys.stdout.flush()
    sys.stderr.flush()
    if os.name == "posix":
        os.execv(tool, ["mmx"] + list(argv))
    import subprocess
    sys.exit(subprocess.call([tool] + list(argv)))


if __name__ == "__main__":
    main()
