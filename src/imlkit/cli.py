"""The ``imlkit`` command: ``report``, ``importance`` and ``datasets``.

Bad input (a missing file, a target that is not a column, an unknown method, a scheduler that
does not answer, ...) ends with one line on stderr and exit code 2, never a traceback;
``--debug`` shows the traceback instead. A part of the report that fails on the data (a
method, a baseline, a plot) is a warning box in the report and one stderr line, exit 0;
``--strict`` makes it fatal. Progress: a bar on a terminal, otherwise one line per finished
step on stderr; ``--quiet`` prints neither.

Every stderr line escapes control characters (a column name holding ``ESC ]0;...`` cannot
retitle the terminal). SIGTERM is handled as Ctrl-C: the temporary report file is removed,
joblib's worker processes are stopped, exit code 143 (130 for Ctrl-C).
"""
from __future__ import annotations

import argparse
import contextlib
import json
import signal
import sys
import warnings

from ._names import short_name, terminal_safe
from .report import (
    ALL_METHODS,
    DEFAULT_METHODS,
    IMPORTANCE_METHODS,
    MODEL_NAMES,
    ReportConfig,
    ReportInputError,
    build_report,
    run_importance,
)
from .report._config import DATASETS, TASKS

__all__ = ["main", "build_parser"]

EXIT_INPUT = 2
EXIT_INTERNAL = 1
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143  # 128 + SIGTERM, as a shell reports a process ended by it


class _Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the program runs so that every Ctrl-C clean-up runs for it too."""


class _InputError(Exception):
    """A command-line usage error (argparse's), reported like any other bad input."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line instead of usage + message, and no SystemExit inside parsing
        raise _InputError(f"{message} (see '{self.prog} --help')")


def _add_data_options(p):
    g = p.add_argument_group("data and model")
    g.add_argument("--data", metavar="FILE", help="CSV or Parquet file (default: the shipped data set)")
    g.add_argument("--test-data", metavar="FILE",
                   help="held-out rows (CSV/Parquet, the columns of --data) to score the model on; --data is then "
                        "the training rows (without it a --model-file model is scored on every row of --data)")
    g.add_argument("--no-prepare", action="store_true",
                   help="turn column preparation off: every column used as given (nothing set aside or lumped)")
    g.add_argument("--dataset", default="bike", choices=list(DATASETS),
                   help="shipped data set used without --data (default: bike)")
    g.add_argument("--target", help="column to predict (required with --data)")
    g.add_argument("--task", default="auto", choices=list(TASKS))
    g.add_argument("--model", default="gbm", choices=list(MODEL_NAMES),
                   help="model fitted on the training split (default: gbm, histogram gradient boosting)")
    g.add_argument("--model-file", metavar="FILE",
                   help="a fitted model saved with joblib (loading it runs code: needs --trust-model-file)")
    g.add_argument("--trust-model-file", action="store_true",
                   help="allow unpickling --model-file (only for files you trust)")
    g.add_argument("--features", metavar="A,B,...", help="columns used as features (default: all but the target)")
    g.add_argument("--categorical", metavar="A,B,...",
                   help="columns read as categories (each value a level), e.g. integer codes such as 1/2/3 = "
                        "American/European/Japanese; section 1 names integer columns that may be codes")
    g.add_argument("--test-size", type=float, default=0.3, help="share of rows held out for testing (default 0.3)")
    g.add_argument("--split", default="random", metavar="{random,ordered}",
                   help="random (default): a seeded split, stratified for classification; ordered: the last "
                        "ceil(test-size x rows) rows in file order are held out (rows ordered in time: a forecast's "
                        "test; the file is not sorted)")
    g.add_argument("--seed", type=int, default=0, help="seed of the split, the model and every method (default 0)")
    g.add_argument("--n-jobs", type=int, default=None, help="parallel jobs (joblib; -1 = all cores)")
    g.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                   help="run the refits (LOCO, LOFO, PIMP) on this Dask cluster via joblib's Dask backend")
    g.add_argument("--scheduler-timeout", type=float, default=10.0, metavar="SECONDS",
                   help="give up when the scheduler does not answer within this time (default 10)")
    g.add_argument("--quick", action="store_true",
                   help="fewer repeats, refits and rows: a report in under a minute on tables of tens of features; "
                        "LOCO, LOFO or PIMP is left out (the report says why) when its fits would take over 30 s "
                        "at the model's own fit time")
    g.add_argument("--max-rows", type=int, default=None, metavar="N",
                   help="row budgets of the steps from one number: the largest becomes N, the others scale in "
                        "proportion (default 50,000; --quick 20,000); larger data are subsampled with the seed "
                        "(stratified for classification); the model is always fitted on every training row")
    g.add_argument("--full", action="store_true",
                   help="use every row and every feature in every step (no row or feature budgets; slow on large data)")
    g.add_argument("--max-features", type=int, default=None, metavar="N",
                   help="SAGE, LOCO/LOFO, PIMP, H-statistic: above N features, the N ranked first by a PFI screen "
                        "on the training rows and one group of all others (default 30; --quick 15; --full: every "
                        "feature)")
    g.add_argument("--n-refits", type=int, default=None, metavar="N",
                   help="LOCO: refits per feature (default 1); more show the spread of refit-based importance")
    g.add_argument("--sage-orderings", type=int, default=None, metavar="N",
                   help="SAGE: the most feature orderings a run may use before it stops unconverged "
                        "(default 2048 marginal / 384 conditional; --quick 1024 / 64)")
    g.add_argument("--n-null", type=int, default=None, metavar="N",
                   help="PIMP: refits on a permuted target (default 60; --quick 10). With the empirical null and "
                        "Holm over m features nothing can be significant unless N >= m/0.05 - 1")
    g.add_argument("--quiet", action="store_true",
                   help="no progress output (by default: a bar on a terminal, else one line per finished step)")


def build_parser():
    parser = _Parser(prog="imlkit", description="Interpretable machine learning: reports, importance, data sets.")
    parser.add_argument("--debug", action="store_true", help="show tracebacks instead of one-line errors")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)

    rep = sub.add_parser("report", help="write a self-contained HTML interpretation report",
                         description="Fit a model and write one self-contained HTML report: data, model and "
                                     "baselines, importance (PFI, CFI, LOCO, SAGE, PIMP), effects (ICE, PD, ALE, H), "
                                     "regional effects (REPID), interpretable alternatives, provenance.")
    _add_data_options(rep)
    rep.add_argument("--methods", metavar="M1,M2,...",
                     help=f"sections/methods to run, from {', '.join(ALL_METHODS)} (default: all but "
                          f"{', '.join(m for m in ALL_METHODS if m not in DEFAULT_METHODS)})")
    rep.add_argument("--out", default="imlkit-report", metavar="DIR",
                     help="directory of report.html (created; other files in it are never touched)")
    rep.add_argument("--class", dest="target_class", metavar="NAME",
                     help="classification: the class whose probability the effects and regional effects explain "
                          "(default: every class as small multiples up to 6 classes, else the most frequent)")
    rep.add_argument("--strict", action="store_true",
                     help="stop with an error when any part fails (default: a failing part becomes a warning box "
                          "in the report, one line on stderr, exit 0)")

    imp = sub.add_parser("importance", help="print one importance method's table",
                         description="Fit the model and print a feature-importance table (or JSON).")
    _add_data_options(imp)
    imp.add_argument("--method", required=True, metavar="{" + ",".join(IMPORTANCE_METHODS) + "}",
                     help="importance method")
    imp.add_argument("--removal", default="marginal", choices=["marginal", "conditional"],
                     help="SAGE's feature removal (default marginal)")
    imp.add_argument("--json", action="store_true", help="print JSON instead of a table")

    ds = sub.add_parser("datasets", help="list the data sets shipped with imlkit")
    ds.add_argument("--json", action="store_true")
    return parser


def _split_list(text, option):
    if text is None:
        return None
    items = [t.strip() for t in text.split(",") if t.strip()]
    if not items:
        raise _InputError(f"'{option}' is empty; give comma-separated names.")
    return tuple(items)


def _config(args, command_line, **more):
    """The arguments as a :class:`ReportConfig`: it checks every option itself (naming the flags,
    because ``command`` holds the command line) -- the command line only maps its arguments."""
    methods = getattr(args, "methods", None)
    return ReportConfig(
        data=args.data, dataset=args.dataset, target=args.target, task=args.task, model=args.model,
        model_file=args.model_file, trust_model_file=args.trust_model_file,
        methods=methods if methods is not None else DEFAULT_METHODS,
        features=_split_list(args.features, "--features"), test_size=args.test_size, seed=args.seed,
        split=args.split, categorical=_split_list(args.categorical, "--categorical"),
        n_jobs=args.n_jobs, scheduler=args.scheduler, scheduler_timeout=args.scheduler_timeout,
        out=getattr(args, "out", "imlkit-report"), quick=args.quick, progress=not args.quiet,
        strict=getattr(args, "strict", False), target_class=getattr(args, "target_class", None),
        n_refits=args.n_refits, sage_orderings=args.sage_orderings, n_null=args.n_null, max_rows=args.max_rows,
        full=args.full, max_features=args.max_features, test_data=args.test_data,
        prepare=not args.no_prepare, command=command_line, **more)


def _run_report(args, command_line):
    path = build_report(_config(args, command_line))
    print(path)
    return 0


def _run_importance(args, command_line):
    cfg = _config(args, command_line, sage_removals=(args.removal,))
    method = args.method.lower()
    if method not in IMPORTANCE_METHODS:
        raise ReportInputError(f"Unknown method {args.method!r} in '--method'; choose from "
                               f"{', '.join(IMPORTANCE_METHODS)}.")
    result = run_importance(cfg, method=method)
    frame = result.to_frame()
    if args.json:
        out = {"method": result.method, "loss": result.loss, "baseline_loss": result.baseline_loss,
               "seconds": result.info.get("seconds"),
               "features": [{"feature": f, **{k: (None if v != v else (bool(v) if isinstance(v, bool) else float(v)))
                                             for k, v in row.items()}} for f, row in frame.iterrows()]}
        print(json.dumps(out, indent=2))
    else:
        print(f"{result.method.upper()} ({result.loss}); larger = more important")
        # names on the terminal: control characters escaped, long ones shortened (JSON escapes them itself)
        frame.index = frame.index.map(short_name)
        print(frame.to_string(float_format=lambda v: f"{v:.4g}"))
    return 0


def _run_datasets(args):
    from .datasets import list_datasets

    frame = list_datasets()
    if args.json:
        print(json.dumps(frame.reset_index().to_dict(orient="records"), indent=2))
    else:
        import pandas as pd

        with pd.option_context("display.max_colwidth", 60, "display.width", 160):
            print(frame.to_string())
    return 0


def _one_line(exc):
    """The exception as one terminal-safe line (its control characters escaped)."""
    msg = " ".join(str(exc).split())
    return terminal_safe(msg or type(exc).__name__)


def _show_warning(message, category, filename, lineno, file=None, line=None):
    """Python warnings reaching the terminal: one line, control characters escaped."""
    stream = sys.stderr if file is None else file
    try:
        stream.write(terminal_safe(f"imlkit: {category.__name__}: {' '.join(str(message).split())}") + "\n")
    except (OSError, ValueError):  # a closed stream: nothing to show it on
        pass


def _on_sigterm(signum, frame):
    raise _Terminated()


@contextlib.contextmanager
def _signals_and_warnings():
    """SIGTERM raises :class:`_Terminated` and warnings print one safe line, while ``main`` runs."""
    previous = None
    try:
        previous = signal.signal(signal.SIGTERM, _on_sigterm)
    except ValueError:  # not the main thread (main() called from a worker thread): leave signals alone
        previous = None
    old_show = warnings.showwarning
    warnings.showwarning = _show_warning
    try:
        yield
    finally:
        warnings.showwarning = old_show
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _stop_workers():
    """Stop joblib's reusable loky worker processes (left alone they idle for minutes).

    Only an executor that exists is shut down: asking for one would start new workers.
    """
    try:
        from joblib.externals.loky import reusable_executor
    except ImportError:  # pragma: no cover - joblib always ships loky
        return
    executor = getattr(reusable_executor, "_executor", None)
    if executor is not None:
        with contextlib.suppress(Exception):
            executor.shutdown(wait=True, kill_workers=True)


def main(argv=None):
    """Run the ``imlkit`` command; returns the exit code (0 ok, 2 bad input, 1 internal error)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    with _signals_and_warnings():
        return _main(argv)


def _main(argv):
    from ._validation import ImlkitError

    debug = "--debug" in argv
    command_line = "imlkit " + " ".join(argv)
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        if args.command is None:
            parser.print_help(sys.stderr)
            return EXIT_INPUT
        if args.command == "report":
            return _run_report(args, command_line)
        if args.command == "importance":
            return _run_importance(args, command_line)
        return _run_datasets(args)
    except SystemExit as exc:  # --help
        return int(exc.code or 0)
    except KeyboardInterrupt as exc:  # Ctrl-C or SIGTERM: the temporary file is already gone; stop the workers
        with contextlib.suppress(ValueError):  # a second SIGTERM during the clean-up ends the process at once
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
        _stop_workers()
        terminated = isinstance(exc, _Terminated)
        print(f"imlkit: {'terminated' if terminated else 'interrupted'}; no report was written.", file=sys.stderr)
        return EXIT_TERMINATED if terminated else EXIT_INTERRUPTED
    except (_InputError, ImlkitError, FileNotFoundError, PermissionError, IsADirectoryError) as exc:
        if debug:
            raise
        print(f"imlkit: error: {_one_line(exc)}", file=sys.stderr)
        return EXIT_INPUT
    except Exception as exc:  # anything else is a bug: still one line, the traceback with --debug
        if debug:
            raise
        print(f"imlkit: internal error: {type(exc).__name__}: {_one_line(exc)} (run with --debug for the "
              f"traceback)", file=sys.stderr)
        return EXIT_INTERNAL


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
