"""``tensorlab ...`` run in the test's own process: the exit status and what it printed, as
``subprocess.run`` would give them, without starting an interpreter (a few seconds each on a
loaded 2-core machine). Tests that need a real process (signals, a different PATH) start one."""

from __future__ import annotations

import contextlib
import io
import subprocess


def run_cli(*args) -> subprocess.CompletedProcess:
    from tensorlab.cli import main

    argv = [str(a) for a in args]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as e:  # argparse's usage errors
            code = e.code if isinstance(e.code, int) else 1
    return subprocess.CompletedProcess(["tensorlab", *argv], code, out.getvalue(), err.getvalue())
