"""The corpus with every method: outcome and seconds per table -> bench/results/corpus.md.

Runs ``imlkit report --quick --methods <all>`` in-process on every table of
tests/corpus/corpus_tables.py (scikit-learn and statsmodels data sets, and corrupted copies:
dates, IDs, missing values, a level only in the test split, constants, 32 rows, a leak).
Each table is a fresh call of ``imlkit.cli.main``; the outcome is the exit code, the number
of failure boxes / "could not" notes in the report, and the last stderr line.

    python bench/corpus.py [--full] [--only NAME,NAME]

``--full`` drops ``--quick`` (much slower: minutes per table on 2 cores).
"""
from __future__ import annotations

import argparse
import contextlib
import io
import os
import platform
import re
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "corpus"))

from corpus_tables import TABLES  # noqa: E402 (found through the sys.path entry above)

from imlkit.report._config import ALL_METHODS  # noqa: E402

RESULTS = os.path.join(HERE, "results", "corpus.md")


def run_one(table, directory, quick):
    from imlkit.cli import main

    out = os.path.join(directory, f"out_{table.name}")
    err = io.StringIO()
    t0 = time.perf_counter()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            code = main(table.argv(directory, out, methods=",".join(ALL_METHODS), quick=quick))
        except BaseException as exc:  # noqa: BLE001 - the benchmark records any crash as an outcome
            code = f"crash: {type(exc).__name__}"
    seconds = time.perf_counter() - t0
    path = os.path.join(out, "report.html")
    boxes = 0
    if os.path.exists(path):
        with open(path, encoding="utf-8") as fh:
            doc = fh.read()
        boxes = len(re.findall(r"could not|failed", doc))
    last = err.getvalue().strip().splitlines()
    return code, os.path.exists(path), boxes, seconds, (last[-1][:160] if last else "")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="without --quick")
    parser.add_argument("--only", default="", help="comma-separated table names")
    args = parser.parse_args(argv)
    only = {s for s in args.only.split(",") if s}
    tables = [t for t in TABLES if not only or t.name in only]
    from threadpoolctl import threadpool_limits

    rows = []
    with tempfile.TemporaryDirectory() as directory, threadpool_limits(1):
        for t in tables:
            code, written, boxes, seconds, last = run_one(t, directory, quick=not args.full)
            rows.append((t, code, written, boxes, seconds, last))
            print(f"{t.name:28s} exit {code}  report {'yes' if written else 'NO '}  boxes {boxes:2d}  "
                  f"{seconds:7.1f} s  {last}", flush=True)
    import imlkit

    mode = "full" if args.full else "--quick"
    lines = ["# Corpus: `imlkit report` on real tables, every method", "",
             f"`python bench/corpus.py{' --full' if args.full else ''}` -- `imlkit report {mode} --methods "
             f"{','.join(ALL_METHODS)}` per table, in-process, one BLAS thread; "
             f"imlkit {imlkit.__version__}, Python {platform.python_version()}, {platform.machine()}, "
             f"{os.cpu_count()} CPU(s). \"boxes\" counts \"could not\"/\"failed\" notes in the report.", "",
             "| table | target | exit | report | boxes | seconds | last stderr line |",
             "|---|---|---|---|---|---|---|"]
    for t, code, written, boxes, seconds, last in rows:
        lines.append(f"| {t.name} | {t.target} | {code} | {'yes' if written else 'no'} | {boxes} | {seconds:.1f} | "
                     f"{last.replace('|', '/')} |")
    total = sum(r[4] for r in rows)
    ok = sum(1 for r in rows if r[1] == 0 and r[2])
    lines += ["", f"{ok} of {len(rows)} tables exit 0 with a report; {total:.0f} s in all.", ""]
    os.makedirs(os.path.dirname(RESULTS), exist_ok=True)
    with open(RESULTS, "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines))
    print(f"wrote {RESULTS}")
    return 0 if ok == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
