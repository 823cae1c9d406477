"""Section 7: how the report was made -- data, seeds, versions, parameters and run times."""
from __future__ import annotations

import platform
import sys
from importlib import metadata

from ._blocks import Section, bullets, table, text
from ._shared import split_is_ordered

__all__ = ["section_provenance", "versions", "seed_text", "data_text"]

_PACKAGES = ("imlkit", "numpy", "scipy", "pandas", "scikit-learn", "statsmodels", "joblib", "matplotlib",
             "jinja2", "distributed")


def versions():
    """Python, platform and the versions of the packages the report depends on."""
    out = {"python": sys.version.split()[0], "platform": platform.platform()}
    for p in _PACKAGES:
        try:
            out[p] = metadata.version(p)
        except metadata.PackageNotFoundError:
            out[p] = "not installed"
    return out


def threads_text(info=None):
    """The threads of the BLAS/OpenMP libraries of this process as the report is written (``threadpoolctl``), not the
    intent: a library loaded after the report limited them (an OpenMP that comes with a model's package) is not
    limited."""
    if info is None:
        try:
            from threadpoolctl import threadpool_info

            info = threadpool_info()
        except Exception:  # noqa: BLE001 - the fact is then unknown, and said so
            return "the BLAS/OpenMP threads could not be read (threadpoolctl failed)."
    more = [(i.get("internal_api", i.get("user_api", "?")), str(i.get("filepath", "?")).rsplit("/", 1)[-1],
             i.get("num_threads")) for i in info if (i.get("num_threads") or 1) > 1]
    if not info:
        return "no BLAS/OpenMP library was loaded."
    if not more:
        return (f"every BLAS/OpenMP library loaded ({len(info)}) ran with 1 thread per process (avoids "
                f"oversubscribing the cores when methods run in parallel).")
    return (f"BLAS/OpenMP threads were limited to 1 per process, but {len(more)} of the {len(info)} libraries loaded "
            f"had more as the report was written (loaded after the limit was set): "
            + "; ".join(f"{api} {name}: {n} threads" for api, name, n in more) + ".")


def _params_text(params):
    def one(k, v):
        if isinstance(v, dict):
            return f"{k}: (" + ", ".join(f"{a}={b}" for a, b in v.items()) + ")"
        return f"{k}={v}"

    return "; ".join(one(k, v) for k, v in params.items())


def section_provenance(ctx, total_seconds=None):
    """Data source, command, seeds, versions, and one row per step with its parameters and run time."""
    cfg = ctx.config
    blocks = [text(f"Data: {data_text(ctx)}; target {ctx.data.target!r}; task {ctx.task}{_categorical_text(ctx)}."),
              text(f"Command: {cfg.command or '(called from Python)'}"),
              text(evaluation_text(ctx)),
              text(seed_text(ctx)),
              text(f"Mode: {'quick' if cfg.quick else 'full'}; n_jobs={cfg.n_jobs}; scheduler="
                   f"{cfg.scheduler or 'none (local joblib)'}; {threads_text()}")]
    rows = []
    for e in ctx.log:
        params = dict(e.parameters)
        parts = e.parts
        if parts:
            params["seconds per part"] = ", ".join(f"{k}: {v:.1f}s" for k, v in parts.items() if v is not None)
        rows.append([e.step, _params_text(params), e.seconds])
    if total_seconds is not None:
        rows.append(["total (until the report was rendered)", "", total_seconds])
    blocks.append(table(["step", "parameters", "seconds"], rows, caption="Every step, its parameters and its run time"))
    blocks += _rows_blocks(ctx)
    v = versions()
    blocks.append(table(["component", "version"], [[k, val] for k, val in v.items()], caption="Versions"))
    if ctx.notes:
        blocks.append(bullets(ctx.notes, title="Notes"))
    return Section("provenance", "7. How it was made", blocks)


_SPLITS = {"train": "training rows", "test": "test rows", "all": "all rows (before the split)",
           "refit_train": "training rows of the refits' split", "refit_test": "test rows of the refits' split"}
_SPLITS_ALL_ROWS = {"train": "all rows (fitted model, one table)", "test": "all rows (fitted model, one table)"}


def _model_rows(ctx):
    """Which rows fitted the model, in a clause that is true in each evaluation case."""
    if ctx.evaluation == "split" or not _outside(ctx):
        return f"the model was fitted by imlkit on all {len(ctx.X_train):,} training rows"
    return "the model was fitted outside imlkit (imlkit does not know on which rows)"


def _outside(ctx):
    cfg = ctx.config
    return bool(cfg.model_file) or (not isinstance(cfg.model, str) and ctx.model is cfg.model)


def data_text(ctx):
    """The source and its rows: with test data, the rows of each table (the frames hold both, data first)."""
    ds = ctx.data
    # the rows used, beside the rows read when some were dropped or set aside (ISLP Hitters: "263 rows" of a file of
    # 322, 59 without a Salary, read as the file's size)
    n_read = int(getattr(ds, "n_rows", 0) or 0)
    read = (f" ({n_read:,} rows read; section 1 says which were dropped or set aside and why)"
            if n_read and n_read != len(ds.X) else "")
    if ctx.evaluation == "test_data":
        return (f"{ds.source}: {len(ctx.X_train):,} training rows; test data {ds.test_source}: {len(ctx.X_test):,} "
                f"evaluation rows ({len(ds.X):,} in all){read}")
    return f"{ds.source}: {len(ds.X):,} rows used{read}"


def _categorical_text(ctx):
    """"; read as categories (--categorical): origin, StoreID" when the caller named such columns."""
    names = tuple(getattr(ctx.data, "categorical", ()) or ())
    if not names:
        return ""
    return f"; read as categories (--categorical): {', '.join(names)}"


def seed_text(ctx):
    """What derives from the seed, and -- in the cases where something does not -- what does not."""
    cfg = ctx.config
    derived, not_derived = [], []
    if ctx.evaluation == "split":
        if split_is_ordered(ctx):
            not_derived.append("the train/test split (--split ordered: the last rows of the table held out)")
        else:
            derived.append("the train/test split")
    elif ctx.evaluation == "all_rows":
        if split_is_ordered(ctx):
            not_derived.append("the split of the table for the refits and the leak check (--split ordered: its last "
                               "rows held out)")
        else:
            derived.append("the split of the table for the refits and the leak check")
        not_derived.append("no split of the evaluation rows is made (the model is scored on every row)")
    else:
        not_derived.append("no split is made (the rows given as data and as test data are used as given)")
    if isinstance(cfg.model, str) and not cfg.model_file:
        derived.append("the model (its random_state)")
    elif _outside(ctx):
        not_derived.append("the model was fitted outside imlkit, with whatever randomness it had")
    else:
        not_derived.append("the model passed unfitted is fitted with its own random_state, not the seed")
    derived += ["the baselines' bootstrap intervals", "imlkit's interpretable models (random_state)",
                "every method (random_state)", "every row subsample"]
    s = (f"Seed {cfg.seed}: {', '.join(derived[:-1])} and {derived[-1]} derive from it; the same command gives the "
         f"same numbers (for any --n-jobs and with or without --scheduler).")
    if getattr(cfg, "quick", False):
        # which refit methods --quick runs rests on a measured time, not on the seed (review rev8 r3-1)
        s += (" Which refit methods --quick runs is decided from the model's measured fit time (the smaller of its "
              "wall and CPU seconds), not from the seed: a model whose refits come near the budget may have one left "
              "out on one run and not on another (section 3 says when one is).")
    if not_derived:
        s += " Not from the seed: " + "; ".join(not_derived) + "."
    return s


def evaluation_text(ctx):
    """Where the model was scored, as section 7 records it."""
    n = len(ctx.X_test)
    if ctx.evaluation == "all_rows":
        from ._shared import all_rows_warning

        return "Evaluation: " + all_rows_warning(ctx)
    if ctx.evaluation == "test_data":
        return (f"Evaluation: the {n:,} rows given as test data ({ctx.data.test_source}); {_model_rows(ctx)}; the "
                f"{len(ctx.X_train):,} rows given as data fitted the refits and imlkit's own models.")
    if split_is_ordered(ctx):
        n_all, n_fit = len(ctx.data.X), len(ctx.X_train)
        held = n_all - n_fit
        scored = "" if n == held else f", {n:,} of them scored (section 1's notes say why the others were set aside)"
        return (f"Evaluation: the last {held:,} of the {n_all:,} rows, in the order of the table, held out by an "
                f"ordered split (--split ordered; test size {ctx.config.test_size}, rounded up; no seed){scored}; "
                f"{_model_rows(ctx)} (the first {n_fit:,} rows).")
    return (f"Evaluation: {n:,} held-out test rows of a seeded random split (--split random; test size "
            f"{ctx.config.test_size}); "
            f"{_model_rows(ctx)}.")


#: Row uses of these steps are listed only when a step of that name ran (its record starts with the step's label and
#: is not "(not run: ...)"): a part that reads its rows and then finds nothing to compute -- REPID when no feature is
#: important, the GAM with more coefficients than rows (statsmodels statecrime: "REPID test rows 16 of 16" beside
#: section 5's "Not computed") -- used no rows.
_RAN_AS_STEP = ("pfi", "cfi", "loco", "lofo", "pimp", "sage", "shap", "repid", "glm", "gam", "rulefit", "tree",
                "ripper", "oner")


def _ran(ctx, label):
    """Whether a step whose name starts with ``label`` ran (finished or failed; not a "(not run" record)."""
    return any(e.step.startswith(label) and "(not run" not in e.step for e in getattr(ctx, "log", ()))


def _rows_blocks(ctx):
    """The rows each step read out of the rows available, with its budget and how to change it."""
    from ._config import REFERENCE_ROWS, ROW_BUDGETS

    if not ctx.row_use:
        return []
    cfg = ctx.config
    rows = []
    for u in ctx.row_use.values():
        label, _, kind = ROW_BUDGETS.get(u.step, (u.step, None, "sample"))
        if u.step in _RAN_AS_STEP and not _ran(ctx, label):
            continue
        budget = "every row" if u.budget is None else f"{u.budget:,}"
        where = _SPLITS_ALL_ROWS.get(u.split, _SPLITS[u.split]) if ctx.evaluation == "all_rows" else _SPLITS[u.split]
        rows.append([label, where, f"{u.used:,} of {u.available:,}", budget,
                     "sample size of the method" if kind == "sample" else
                     ("refit (larger with --scheduler)" if kind == "refit" else "linear cost")])
    if cfg.full:
        how = "--full: every step used every row (the sample sizes of SAGE, ICE, H and REPID are the methods' own)."
    elif cfg.max_rows is not None:
        how = f"--max-rows {cfg.max_rows:,}: every budget was scaled from this number."
    else:
        how = (f"Default budgets (the largest is {REFERENCE_ROWS['quick' if cfg.quick else 'full']:,} rows"
               f"{', 4x for refits with --scheduler' if cfg.scheduler else ''}); --max-rows N scales them, "
               f"--full uses every row.")
    strat = ", stratified by class," if ctx.task == "classification" else ""
    order = (" Under the ordered split a subsample of the test rows is still made of rows later in the table than "
             "every training row." if split_is_ordered(ctx) and ctx.evaluation == "split" else "")
    return [table(["step", "data", "rows used", "budget", "kind"], rows,
                  caption=f"Rows each step used out of the rows available: a step with more rows than its budget "
                          f"reads a seeded{strat} random subsample (the same rows for every step, up to its budget); "
                          f"{_model_rows(ctx)}. {how}{order}")]
