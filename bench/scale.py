#!/usr/bin/env python3
"""How trapeze scales with the number of stages (issue 13): generates chains
and cycles of N stages (scripts/gen_scale_pipeline.py) and times the command
line on them, one process per row, printing the wall time, the peak memory and
the exit code. A benchmark, not a test: nothing is asserted but the cycle's
error (it must name the cycle's length and stay one short line).

  bench/scale.py                              # explain, the cycle, schedule --scheduler naive
  bench/scale.py --stages 1000 4000 --lowered # also explain --lowered --scheduler naive
  bench/scale.py --stages 1000 --run          # also run --scheduler naive (16 x 16 points)
  bench/scale.py --dp                         # also schedule with dp (the default scheduler)

Rows that pass --timeout print '> TIMEOUT s'. docs/performance.md, "Scale
(issue 13)", records the figures.
"""

import argparse
import os
import pathlib
import signal
import subprocess
import sys
import tempfile
import threading
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
GENERATOR = ROOT / "scripts" / "gen_scale_pipeline.py"


def timed(command, timeout, environment):
    """Runs `command`; returns (seconds, peak RSS in MiB, exit code or None on
    timeout, the first line of its stderr, the length of its stderr)."""
    with tempfile.TemporaryFile() as err:
        start = time.monotonic()
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=err,
                                   env=environment)
        timed_out = threading.Event()

        def kill():
            timed_out.set()
            process.send_signal(signal.SIGKILL)

        timer = threading.Timer(timeout, kill)
        timer.start()
        _, status, usage = os.wait4(process.pid, 0)
        timer.cancel()
        process.returncode = os.waitstatus_to_exitcode(status)
        seconds = time.monotonic() - start
        err.seek(0)
        text = err.read().decode(errors="replace")
    code = None if timed_out.is_set() else process.returncode
    first_line = text.splitlines()[0] if text else ""
    return seconds, usage.ru_maxrss / 1024, code, first_line, len(text)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trapeze", default=str(ROOT / "build" / "tools" / "trapeze"),
                        help="the trapeze binary (default: build/tools/trapeze)")
    parser.add_argument("--stages", type=int, nargs="+", default=[1000, 4000, 16000, 100000])
    parser.add_argument("--timeout", type=float, default=600, help="seconds per command")
    parser.add_argument("--lowered", action="store_true",
                        help="also explain --lowered --scheduler naive (plan and lowering)")
    parser.add_argument("--run", action="store_true",
                        help="also run --scheduler naive at R = C = 16 (mostly the C++ compiler)")
    parser.add_argument("--dp", action="store_true",
                        help="also schedule with dp, the default scheduler (not linear)")
    args = parser.parse_args()

    trapeze = args.trapeze
    print(f"{'stages':>7}  {'shape':<5}  {'command':<40}  {'seconds':>9}  {'MiB':>6}  exit")
    with tempfile.TemporaryDirectory() as tmp:
        # A cache of this run's own: no schedule or compiled code comes from an
        # earlier one, and the user's cache is left alone.
        environment = dict(os.environ, TRAPEZE_CACHE_DIR=os.path.join(tmp, "cache"))
        for n in args.stages:
            files = {}
            for shape in ("chain", "cycle"):
                files[shape] = os.path.join(tmp, f"{shape}{n}.tz")
                subprocess.run([sys.executable, str(GENERATOR), str(n), "--shape", shape,
                                "-o", files[shape]], check=True)
            rows = [("chain", "explain", [trapeze, "explain", files["chain"]]),
                    ("cycle", "explain (the cycle error)", [trapeze, "explain", files["cycle"]]),
                    ("chain", "schedule --scheduler naive",
                     [trapeze, "schedule", files["chain"], "--scheduler", "naive"])]
            if args.lowered:
                rows.append(("chain", "explain --lowered --scheduler naive",
                             [trapeze, "explain", files["chain"], "--lowered", "--scheduler",
                              "naive"]))
            if args.dp:
                rows.append(("chain", "schedule (dp)", [trapeze, "schedule", files["chain"]]))
            if args.run:
                rows.append(("chain", "run --scheduler naive (16 x 16)",
                             [trapeze, "run", files["chain"], "--scheduler", "naive", "--param",
                              "R=16", "--param", "C=16", "--reps", "1"]))
            for shape, what, command in rows:
                seconds, mib, code, first_line, length = timed(command, args.timeout, environment)
                shown = f"> {args.timeout:.0f}" if code is None else f"{seconds:.2f}"
                print(f"{n:>7}  {shape:<5}  {what:<40}  {shown:>9}  {mib:>6.0f}  "
                      f"{'-' if code is None else code}", flush=True)
                if shape == "cycle" and code is not None:
                    ok = f"a cycle of {n} stages" in first_line
                    print(f"{'':>16}the error: {length} bytes"
                          f"{'' if ok else ' (it does not name the cycle of ' + str(n) + ')'}: "
                          f"{first_line[:160]}{'...' if len(first_line) > 160 else ''}")


if __name__ == "__main__":
    main()
