"""The default ``imlkit report`` against scikit-learn's PFI of the same model, one thread each (issue 22 item 8).

Both are run interleaved, ``--runs`` times (median): the report as a subprocess (``imlkit report``
on the shipped bike data, the gradient-boosting model, every default method), scikit-learn's
``permutation_importance`` of the same HistGradientBoostingRegressor on the same test split with
the report's PFI repeats (n_repeats=10).

One thread: both run in subprocesses started with OMP/OPENBLAS/MKL_NUM_THREADS=1 in their
environment. ``threadpoolctl.threadpool_limits(1)`` limits only the thread pools already loaded
when it is entered; this bench used to enter it before scikit-learn (and with it the OpenMP
runtime of HistGradientBoosting) was imported, so the "one-thread" scikit-learn PFI ran on two
OpenMP threads (CPU = 2 x wall on an idle 2-core machine, far worse on a busy one). That
in-process figure is still recorded, as a check: in run 1 the limit is entered before the first
import of scikit-learn in this process (the old way), in later runs after it. Wall and CPU
seconds are recorded (CPU of scikit-learn's PFI call itself, of the whole report process), and
the report's own per-step seconds (its progress lines). Writes
``bench/results/report_ratio.md``.

Byte code: an installed imlkit has its modules compiled (pip writes the ``.pyc`` files), but a
source tree run with ``PYTHONDONTWRITEBYTECODE=1`` (this project's sessions set it) compiles
every imported imlkit module from source in every process -- ~100 modules, ~0.2 s CPU of each
report run. The bench byte-compiles ``src`` first (``compileall``, into the ``__pycache__``
directories git ignores) so that the report is timed as installed; ``--no-compile`` times it
the old way.

Same process (the project's rule for benchmarks: "peer and imlkit on the same data in one process,
one thread each"): each run also starts one more one-thread interpreter that imports imlkit's CLI
and scikit-learn, then times scikit-learn's PFI call and the report (``imlkit.cli.main``, the
same arguments as the subprocess) one after the other -- in alternating order from run to run,
so that neither always runs on a warm process. Both sides are then timed after the interpreter
and the common imports (numpy, pandas, scikit-learn, imlkit's CLI) are loaded; whatever the
report imports later (matplotlib, statsmodels, its numba kernels) stays in its time. The
whole-process figure above is kept beside it: it also charges the report the interpreter's
start and those imports (~1.0-1.3 s CPU), which the scikit-learn side is not charged.

Usage: ``python bench/report_ratio.py [--runs 3] [--quick] [--no-compile]``.
"""
import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from threadpoolctl import threadpool_limits

HERE = Path(__file__).resolve().parent
ONE_THREAD = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
#: the report's PFI repeats (report/_config.py, default report)
PFI_REPEATS = 10
STEP_LINE = re.compile(r"^\[\s*[\d.]+ s\] (?P<step>.+?) \((?P<sec>[\d.]+) s\)$")


def sklearn_pfi():
    from sklearn.ensemble import HistGradientBoostingRegressor
    from sklearn.inspection import permutation_importance
    from sklearn.model_selection import train_test_split

    import imlkit as ik

    X, y = ik.datasets.load_bike()
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.3, random_state=0)
    model = HistGradientBoostingRegressor(categorical_features="from_dtype", random_state=0).fit(X_tr, y_tr)
    w0, c0 = time.perf_counter(), time.process_time()
    permutation_importance(model, X_te, y_te, n_repeats=PFI_REPEATS, random_state=0,
                           scoring="neg_mean_squared_error", n_jobs=1)
    return time.perf_counter() - w0, time.process_time() - c0


def sklearn_pfi_child():
    """:func:`sklearn_pfi` in a fresh interpreter started with one thread: ``(wall, cpu)``."""
    env = dict(os.environ, **ONE_THREAD)
    env["PYTHONPATH"] = str(HERE.parent / "src") + os.pathsep + env.get("PYTHONPATH", "")
    res = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--sklearn-child"], check=True, env=env,
                         capture_output=True, text=True)
    got = json.loads(res.stdout.strip().splitlines()[-1])
    return got["wall"], got["cpu"]


def report(quick):
    """Wall and CPU seconds of one report run, and its steps' seconds (from its progress lines)."""
    env = dict(os.environ, **ONE_THREAD)
    src = str(HERE.parent / "src")
    env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    with tempfile.TemporaryDirectory() as out:
        cmd = [sys.executable, "-c", "from imlkit.cli import main; main()", "report", "--out", out]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        res = subprocess.run(cmd + (["--quick"] if quick else []), check=True, env=env, capture_output=True,
                             text=True)
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    steps = {}
    for line in res.stderr.splitlines():
        m = STEP_LINE.match(line.strip())
        if m and "running" not in m["step"]:
            steps[m["step"]] = steps.get(m["step"], 0.0) + float(m["sec"])
    return wall, cpu, steps


def same_process(quick, order):
    """scikit-learn's PFI and the report timed in one fresh one-thread interpreter, in ``order``
    ("sr": scikit-learn first, "rs": the report first): ``{"sklearn": (wall, cpu), "report": (wall, cpu)}``."""
    env = dict(os.environ, **ONE_THREAD)
    env["PYTHONPATH"] = str(HERE.parent / "src") + os.pathsep + env.get("PYTHONPATH", "")
    cmd = [sys.executable, str(Path(__file__).resolve()), "--same-process-child", order]
    cmd += ["--quick"] if quick else []
    res = subprocess.run(cmd, check=True, env=env, capture_output=True, text=True)
    got = json.loads(res.stdout.strip().splitlines()[-1])
    return {k: tuple(v) for k, v in got.items()}


def _same_process_child(quick, order):
    """The body of :func:`same_process`, run inside the child interpreter."""
    import contextlib
    import io

    import sklearn.inspection  # noqa: F401  (the common imports, loaded before either side is timed)

    from imlkit.cli import main as cli_main

    def run_report():
        with tempfile.TemporaryDirectory() as out, contextlib.redirect_stdout(io.StringIO()), \
                contextlib.redirect_stderr(io.StringIO()):   # its progress lines, as in the subprocess
            w0, c0 = time.perf_counter(), time.process_time()
            cli_main(["report", "--out", out] + (["--quick"] if quick else []))
            return time.perf_counter() - w0, time.process_time() - c0

    got = {}
    for side in order:
        if side == "s":
            got["sklearn"] = sklearn_pfi()
        else:
            got["report"] = run_report()
    return got


def pimp_sequential():
    """PIMP on the bike data, sequential vs full run, where the sequential rule can stop (an empirical plan).

    The report's own PIMP decides on fitted tails, which never stop early (see ``imlkit.pimp``'s
    Notes); this shows what the stop saves where it applies: 60 planned refits on the empirical
    null, Holm over two features (one pair that matters, one that does not).
    """
    import warnings

    from sklearn.ensemble import HistGradientBoostingRegressor
    from sklearn.model_selection import train_test_split

    import imlkit as ik

    X, y = ik.datasets.load_bike()
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.3, random_state=0)
    learner = HistGradientBoostingRegressor(categorical_features="from_dtype", random_state=0)
    rows = []
    for feats in (["windspeed", "atemp"], ["hr", "windspeed"]):
        got = {}
        for seq in (True, False):
            c0 = time.process_time()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                r = ik.pimp(learner, X_tr, y_tr, X_te, y_te, n_null=60, n_repeats=3, distribution="empirical",
                            features=feats, random_state=0, n_jobs=1, sequential=seq)
            got[seq] = (time.process_time() - c0, r.extra["sequential"]["n_null_run"],
                        tuple(bool(v) for v in r.p_adjusted <= 0.05))
        rows.append((feats, got))
    return rows


def compile_sources():
    """Byte-compile imlkit's sources (as installing the package does); True when it worked."""
    res = subprocess.run([sys.executable, "-m", "compileall", "-q", str(HERE.parent / "src")], capture_output=True,
                         text=True)
    return res.returncode == 0


def main(runs=3, quick=False, demo=True, compiled=True):
    if compiled and not compile_sources():
        compiled = False
    rows, limited, same = [], [], []
    for i in range(runs):
        pfi = sklearn_pfi_child()
        rep = report(quick)
        with threadpool_limits(1):   # the old way, for the record: the limit set inside this process
            limited.append(sklearn_pfi())
        order = "sr" if i % 2 == 0 else "rs"
        same.append((order, same_process(quick, order)))
        rows.append((pfi, rep))
        sp = same[-1][1]
        print(f"run {i + 1}: sklearn PFI {pfi[0]:.2f} s wall / {pfi[1]:.2f} s CPU (threadpool_limits in-process: "
              f"{limited[-1][0]:.2f} / {limited[-1][1]:.2f} s); report {rep[0]:.1f} s wall / {rep[1]:.1f} s CPU; "
              f"PIMP {rep[2].get('PIMP', float('nan')):.1f} s; same process ({order}): sklearn "
              f"{sp['sklearn'][1]:.2f} s CPU, report {sp['report'][1]:.1f} s CPU, "
              f"{sp['report'][1] / sp['sklearn'][1]:.1f}x", flush=True)
    med = statistics.median
    pfi_w, pfi_c = med(r[0][0] for r in rows), med(r[0][1] for r in rows)
    rep_w, rep_c = med(r[1][0] for r in rows), med(r[1][1] for r in rows)
    names = {k for r in rows for k in r[1][2]}
    steps = {k: med(r[1][2].get(k, 0.0) for r in rows) for k in names}
    top = sorted(steps.items(), key=lambda kv: -kv[1])[:8]
    what = "`imlkit report --quick`" if quick else "`imlkit report` (default)"
    cmd = ("python bench/report_ratio.py" + (f" --runs {runs}" if runs != 3 else "") + (" --quick" if quick else "")
           + ("" if compiled else " --no-compile"))
    lines = ["# Default report vs scikit-learn's PFI of the same model (one thread each)", "",
             f"Bike data, HistGradientBoostingRegressor, one BLAS/OpenMP thread on both sides, median of {runs} "
             f"interleaved runs (`{cmd}`). scikit-learn: `permutation_importance(n_repeats={PFI_REPEATS}, n_jobs=1)` "
             "of the model the report fits, on the same test split, timed around that call in a subprocess started "
             "with OMP/OPENBLAS/MKL_NUM_THREADS=1. Report: a subprocess with the same environment; CPU = user + sys "
             "of that process (imports, data, every step, figures, writing). The machine was shared, so wall "
             "seconds may be inflated by other work; CPU is the check. "
             + ("imlkit's sources were byte-compiled first, as an installed package is (else each run compiles "
                "them: ~0.2 s CPU)." if compiled else "imlkit's sources were not byte-compiled first "
                f"(PYTHONDONTWRITEBYTECODE={os.environ.get('PYTHONDONTWRITEBYTECODE', 'unset')}): each run may "
                "compile them from source."),
             "",
             "| what | wall s | CPU s | ratio to sklearn PFI (wall) | ratio (CPU) | target |",
             "|---|---|---|---|---|---|",
             f"| sklearn `permutation_importance`, one thread | {pfi_w:.2f} | {pfi_c:.2f} | 1 | 1 | |",
             f"| {what} | {rep_w:.1f} | {rep_c:.1f} | {rep_w / pfi_w:.1f}× | {rep_c / pfi_c:.1f}× | ≤ 12× |",
             "",
             "Same process (both timed in one fresh one-thread interpreter after the common imports, the order "
             "alternating from run to run; see the module docstring): median ratio "
             f"**{med(sp['report'][1] / sp['sklearn'][1] for _, sp in same):.1f}× CPU** "
             f"({med(sp['report'][0] / sp['sklearn'][0] for _, sp in same):.1f}× wall); per run: "
             + ", ".join(f"{o}: report {sp['report'][1]:.1f} s / sklearn {sp['sklearn'][1]:.2f} s CPU = "
                         f"{sp['report'][1] / sp['sklearn'][1]:.1f}×" for o, sp in same) + ".",
             "",
             f"The same scikit-learn call under `threadpoolctl.threadpool_limits(1)` in the bench's own process "
             f"(OMP_NUM_THREADS in the bench's environment: {os.environ.get('OMP_NUM_THREADS', 'unset')}): "
             f"{limited[0][0]:.2f} s wall / {limited[0][1]:.2f} s CPU in run 1, where the limit was entered before "
             "scikit-learn was first imported in that process (how this bench measured before: the limit does not "
             "reach the OpenMP runtime loaded after it, so HistGradientBoosting kept two threads)"
             + ("" if runs < 2 else ", and " + ", ".join(f"{w:.2f} / {c:.2f} s" for w, c in limited[1:])
                + " in the later runs, entered after that import (then it holds)") + ".",
             "", "The report's largest steps (its own progress lines, wall seconds, median):", "",
             "| step | seconds | share of the report |", "|---|---|---|"]
    lines += [f"| {k} | {v:.1f} | {v / rep_w:.0%} |" for k, v in top]
    lines += ["", "Per run (sklearn one thread wall / CPU; report wall / CPU; PIMP step; sklearn under in-process "
              "threadpool_limits wall / CPU):", ""]
    lines += [f"- {p[0]:.2f} / {p[1]:.2f} s; {r[0]:.1f} / {r[1]:.1f} s; PIMP {r[2].get('PIMP', float('nan')):.1f} s"
              f" (ratios {r[0] / p[0]:.1f}× wall, {r[1] / p[1]:.1f}× CPU); in-process {q[0]:.2f} / {q[1]:.2f} s"
              for (p, r), q in zip(rows, limited)]
    if demo:
        env = dict(os.environ, **ONE_THREAD)
        env["PYTHONPATH"] = str(HERE.parent / "src") + os.pathsep + env.get("PYTHONPATH", "")
        res = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--pimp-demo-child"], check=True,
                             env=env, capture_output=True, text=True)
        demo_rows = [(feats, {seq == "True": (v[0], v[1], tuple(v[2])) for seq, v in got.items()})
                     for feats, got in json.loads(res.stdout.strip().splitlines()[-1])]
        lines += ["", "Sequential PIMP where it can stop (bike data, the same model, `distribution=\"empirical\"`, "
                  "n_null=60, n_repeats=3, Holm over the two features named; CPU seconds, one thread):", "",
                  "| features | sequential: refits run, CPU s | full run: CPU s | significant (both runs) |",
                  "|---|---|---|---|"]
        for feats, got in demo_rows:
            same = "same" if got[True][2] == got[False][2] else "DIFFERENT"
            lines.append(f"| {', '.join(feats)} | {got[True][1]} of 60, {got[True][0]:.1f} | {got[False][0]:.1f} | "
                         f"{got[False][2]} ({same}) |")
    text = "\n".join(lines) + "\n"
    (HERE / "results" / "report_ratio.md").write_text(text)
    print(text)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--no-pimp-demo", action="store_true", help="skip the sequential PIMP table")
    ap.add_argument("--no-compile", action="store_true",
                    help="do not byte-compile imlkit's sources first (time source compilation too)")
    ap.add_argument("--sklearn-child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--pimp-demo-child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--same-process-child", choices=("sr", "rs"), help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.sklearn_child:   # one timed scikit-learn PFI in this (one-thread) interpreter, as JSON
        w, c = sklearn_pfi()
        print(json.dumps({"wall": w, "cpu": c}))
    elif a.same_process_child:   # both sides timed in this (one-thread) interpreter, as JSON
        print(json.dumps(_same_process_child(a.quick, a.same_process_child)))
    elif a.pimp_demo_child:   # the sequential PIMP table's runs in this (one-thread) interpreter, as JSON
        print(json.dumps([(feats, {str(k): v for k, v in got.items()}) for feats, got in pimp_sequential()]))
    else:
        main(a.runs, a.quick, not a.no_pimp_demo, not a.no_compile)
