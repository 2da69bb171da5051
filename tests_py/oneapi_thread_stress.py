"""A bounded oneAPI thread stress (`make stress`; issue 27 item 10): 4 threads
for GODLPACK_ONEAPI_STRESS_S seconds (default 60) exchange arrays between
dpnp and godlpack on the SYCL CPU device, both ways, and copy them across
devices; a hang is reported by faulthandler (every thread's stack) and exit
status 1 after the duration plus 120 s.

`--dpnp-only` runs the control: the same threads with dpnp alone, a copy onto
a second queue, a wait on that queue (what a consumer does under C8) and
dpnp's own arithmetic. On this project's VM it deadlocks within seconds
without godlpack (docs/reliability.md, "oneAPI and threads"), so the godlpack
run keeps dpnp's arithmetic out of its threads.
"""

from __future__ import annotations

import faulthandler
import os
import sys
import threading
import time

import _dpenv  # noqa: F401  (OCL_ICD_FILENAMES for the SYCL CPU device)

SECONDS = float(os.environ.get("GODLPACK_ONEAPI_STRESS_S", "60"))
THREADS = 4


def godlpack_round(dpnp, gd):
    x = dpnp.arange(100000.0)
    a = gd.from_dlpack(x)  # dpnp -> godlpack, on the device
    y = dpnp.from_dlpack(a)  # godlpack -> dpnp
    b = a.copy()
    assert bool((b == a).all()) and float(a.sum()) == float(b.sum())
    h = gd.from_dlpack(a, device="cpu")  # device -> host
    back = h.to_device("oneapi:0")  # host -> device
    z = dpnp.asarray(back.T)  # dpnp takes a godlpack view
    return y.shape == z.shape


def dpnp_round(dpnp, q2):
    x = dpnp.arange(100000.0)
    y = dpnp.asarray(x, sycl_queue=q2)
    q2.wait()
    return float((y * 2.0).sum()) + float((x * 3.0).sum())


def main() -> int:
    control = "--dpnp-only" in sys.argv
    faulthandler.dump_traceback_later(SECONDS + 120, exit=True)
    import dpctl
    import dpnp

    import godlpack as gd

    dpnp.arange(10.0).sum()  # warm-up
    q2 = dpctl.SyclQueue(dpnp.arange(1.0).sycl_device)
    stop = time.time() + SECONDS
    rounds = [0] * THREADS
    errors: list[BaseException] = []

    def work(k):
        try:
            while time.time() < stop:
                dpnp_round(dpnp, q2) if control else godlpack_round(dpnp, gd)
                rounds[k] += 1
        except BaseException as e:  # reported below, with the thread's rounds
            errors.append(e)

    ts = [threading.Thread(target=work, args=(k,)) for k in range(THREADS)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    what = "dpnp alone" if control else "godlpack <-> dpnp"
    print(f"oneapi_thread_stress ({what}): {THREADS} threads x {SECONDS:g} s, rounds {rounds}, "
          f"errors {len(errors)}{': ' + repr(errors[0]) if errors else ''}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
