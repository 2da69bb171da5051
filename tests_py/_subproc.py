"""Running code in a fresh interpreter that cannot hang the test run: its own
session, and on timeout the whole process group (forked children, pool
workers) is killed."""

from __future__ import annotations

import os
import signal
import subprocess


def run_group(argv, timeout, env, cwd=None):
    """subprocess.run in its own session (in cwd when given). Returns the
    CompletedProcess, or None on timeout (after killing the process group)."""
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                         start_new_session=True, cwd=cwd)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        p.communicate()
        return None
    return subprocess.CompletedProcess(argv, p.returncode, out, err)
