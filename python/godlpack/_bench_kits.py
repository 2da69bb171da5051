"""Row 14 of ``python -m godlpack bench`` (group "kits"): what a Go kit
costs its users and its author (godlpack/_kits.py).

  14 ``python -c "import KIT"`` of a prebuilt kit (its wheel's Go plugin,
     an empty kit cache) minus ``python -c "import godlpack"`` <= 150 ms
     (interleaved fresh interpreters: the difference of the fastest runs,
     the median of paired differences beside it); and an editable kit's
     edit -> call (a .go file changed, then a fresh ``import KIT; KIT.f(x)``,
     which rebuilds its plugin) <= 5 s, the median of 3 edits with Go's
     build cache warm (the first build beside it).

Both need Go (the kit is built here, as its author would); without it the
row is a note. Not under --quick.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import timeit
from typing import Any


def kits(bench: Any) -> None:
    import shutil

    from ._bench import _fmt_t, _verdict

    what_import = "python -c 'import KIT' (prebuilt kit, empty cache) minus 'import godlpack'"
    what_edit = "editable kit: a .go edit, then import + call (the plugin rebuilt)"
    if bench.quick:
        bench.note("14", what_import, "not under --quick")
        return
    if shutil.which(os.environ.get("GO", "go")) is None:
        bench.note("14", what_import, "no Go toolchain to build a kit")
        return
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    py = sys.executable
    with tempfile.TemporaryDirectory(prefix="godlpack-bench-kits-") as tmp:
        env = dict(os.environ, PYTHONPATH=here + (os.pathsep + os.environ["PYTHONPATH"]
                                                  if os.environ.get("PYTHONPATH") else ""))
        kit = os.path.join(tmp, "benchkit")
        subprocess.run([py, "-m", "godlpack", "init-kit", kit], env=env, check=True, capture_output=True)
        site = os.path.join(tmp, "site")
        p = subprocess.run([py, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "--target", site,
                            kit], env=env, capture_output=True, text=True)
        if p.returncode != 0:
            bench.note("14", what_import, "the kit did not build: " + (p.stderr.strip().splitlines() or ["?"])[-1])
            return
        run_env = dict(env, PYTHONPATH=site + os.pathsep + env["PYTHONPATH"],
                       GODLPACK_KITS_CACHE=os.path.join(tmp, "cache"))
        run_env.pop("PYTHONDONTWRITEBYTECODE", None)
        cmds = [[py, "-c", "import godlpack"], [py, "-c", "import benchkit"]]
        times: list[list[float]] = [[], []]
        for cmd in cmds:
            subprocess.run(cmd, env=run_env, check=True)  # bytecode written
        for i in range(21):
            for j in ((0, 1) if i % 2 == 0 else (1, 0)):
                t0 = timeit.default_timer()
                subprocess.run(cmds[j], env=run_env, check=True)
                times[j].append(timeit.default_timer() - t0)
        assert not os.path.exists(os.path.join(tmp, "cache")), "a prebuilt kit composed"
        d = min(times[1]) - min(times[0])
        paired = statistics.median(b - a for a, b in zip(*times))
        bench.results.append(("14", what_import, f"{d * 1e3:+.1f} ms",
                              f"min {_fmt_t(min(times[1]))} vs {_fmt_t(min(times[0]))} (import godlpack), "
                              f"median paired {paired * 1e3:+.1f} ms", "<= 150 ms", _verdict(d * 1e3, 150.0, False)))

        # the editable kit: what `pip install -e` leaves (_kitbuild.editable), the package on the path
        from . import _kitbuild

        cwd = os.getcwd()
        os.chdir(kit)
        try:
            _kitbuild.editable("benchkit", ["."])
        finally:
            os.chdir(cwd)
        edit_env = dict(run_env, PYTHONPATH=kit + os.pathsep + env["PYTHONPATH"])
        go = os.path.join(kit, "benchkit.go")
        call = [py, "-c", "import benchkit, numpy as np; benchkit.total(np.ones(3))"]
        edits = []
        for k in range(4):
            with open(go, encoding="utf-8") as f:
                src = f.read()
            with open(go, "w", encoding="utf-8") as f:
                f.write(src + f"\n// edit {k}\n")
            t0 = timeit.default_timer()
            p = subprocess.run(call, env=edit_env, capture_output=True, text=True, cwd=tmp)
            edits.append(timeit.default_timer() - t0)
            if p.returncode != 0 or "building the Go plugin" not in p.stderr:
                bench.note("14", what_edit, "the edited kit did not rebuild: " + p.stderr.strip()[-200:])
                return
        med = statistics.median(edits[1:])
        bench.results.append(("14", what_edit, f"{med:.2f} s",
                              f"median of 3 edits {_fmt_t(med)}, first build {_fmt_t(edits[0])}", "<= 5 s",
                              _verdict(med, 5.0, False)))
