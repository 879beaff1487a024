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


def test_example_before_after(tmp_path):
    """examples/python/before_after.py draws its picture, or says matplotlib is missing."""
    import os
    script = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "python",
                          "before_after.py")
    out = tmp_path / "ba.png"
    r = subprocess.run([sys.executable, script, "--levels", "1", "--out", str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert "matplotlib is not installed" in r.stdout
        return
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
