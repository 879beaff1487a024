"""python -m meshmatrix runs the mmx tool installed in the package."""
import subprocess
import sys


def test_tool_runs():
    r = subprocess.run([sys.executable, "-m", "meshmatrix", "info", "builtin:cube"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "vertices" in r.stdout and "8" in r.stdout


def test_tool_exit_status():
    r = subprocess.run([sys.executable, "-m", "meshmatrix", "no-such-command"],
                       capture_output=True, text=True)
    assert r.returncode != 0 and r.stderr
