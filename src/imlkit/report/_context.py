"""State shared by the report's sections: the data split, the fitted model, results and a log."""
from __future__ import annotations

import contextlib
import sys
import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ._blocks import Section, one_line, warning
from ._blocks import heading as heading_block

__all__ = ["ReportContext", "StepRecord", "RowUse", "Failure", "DataOutputs", "ModelCheck", "ImportanceOutputs",
           "EffectsOutputs", "RegionalOutputs", "IMPORTANCE_KEYS", "REFIT_STEPS", "EVALUATIONS"]


@dataclass
class StepRecord:
    """One timed step of the run: a row of section 7's "every step" table.

    ``seconds`` (wall) and ``cpu_seconds`` (this process's CPU, every thread) are set when the step
    ends; ``parts`` holds the seconds of a step's parts (SAGE's two removals), ``step`` gains
    " (failed)" when it raised.
    """

    step: str
    parameters: dict
    seconds: float | None = None
    parts: dict = field(default_factory=dict)
    cpu_seconds: float | None = None


@dataclass(frozen=True)
class RowUse:
    """The rows one step read from one split: ``used`` of ``available``, under its ``budget`` (None: every row)."""

    step: str
    split: str
    used: int
    available: int
    budget: int | None


@dataclass(frozen=True)
class Failure:
    """A part of the report that failed (it became a warning box in its place)."""

    part: str
    kind: str
    reason: str


#: The steps that fit models of imlkit's own on one part of the rows and score them on another
#: (they read ``ReportContext.refit_rows`` when the model is scored on every row).
REFIT_STEPS = ("loco", "lofo", "pimp", "leak")
#: Where the model is scored; see ``ReportContext.evaluation``.
EVALUATIONS = ("split", "test_data", "all_rows")

#: The keys of the importance results, in the order section 3 computes and shows them.
IMPORTANCE_KEYS = ("pfi", "cfi", "loco", "lofo", "sage_marginal", "sage_conditional", "pimp")


@dataclass
class DataOutputs:
    """What section 1 (the data) leaves for the later parts.

    Attributes
    ----------
    dependence_r2 : Series or None
        Each feature's R² from the other features (the automatic reading explains
        disagreements with it); None until section 1 has run.
    """

    dependence_r2: pd.Series | None = None


@dataclass
class ModelCheck:
    """Section 2's check of the model: its test performance and whether it beats the baseline.

    Attributes
    ----------
    performance : dict
        The fitted model's test metrics (metric name -> value), set when the context is
        prepared; section 6 compares the interpretable models with it.
    no_better_than : str or None
        The baseline's name when the model is no better than it on the test rows, else None.
    deciding : tuple of str
        The measures the verdict was taken on (:func:`~imlkit.report._scores.deciding_metrics`):
        ("RMSE",) for regression; ("Brier score", "ROC AUC", "balanced accuracy") for a
        classifier with probabilities. Empty until section 2 has run.
    decided_by : tuple of str
        The deciding measures on which the model beats the baseline (empty when
        ``no_better_than`` is set).
    baseline : str or None
        The baseline of the verdict (the mean / majority class one).
    decision : dict
        ``{measure: {"model": value, "baseline": value, "difference": (value, low, high)}}``
        for every deciding measure; the difference is model minus baseline with its paired
        bootstrap interval at ``decision_level``.
    decision_level : float or None
        Level of those intervals: simultaneous over the deciding measures (Bonferroni,
        ``1 - 0.05/k``), so that "beats on any of them" keeps a 2.5% one-sided error.
    others_beating_baseline : dict
        ``{name: (measures,)}``: the other models of section 2 (the GLM) that beat the same
        baseline on those measures (paired intervals at the same level, same rows); filled when
        the model itself does not beat it.
    undecided : dict
        ``{measure: why}``: the deciding measures too few rows could not decide
        (:func:`~imlkit.report._scores.too_few_rows`); the reading says so when none was decided.
    """

    performance: dict = field(default_factory=dict)
    no_better_than: str | None = None
    deciding: tuple = ()
    decided_by: tuple = ()
    baseline: str | None = None
    decision: dict = field(default_factory=dict)
    decision_level: float | None = None
    others_beating_baseline: dict = field(default_factory=dict)
    undecided: dict = field(default_factory=dict)


@dataclass
class ImportanceOutputs:
    """Section 3's results: one :class:`~imlkit.importance.ImportanceResult` (or None) per method.

    ``sage_marginal`` and ``sage_conditional`` are SAGE's two removals; ``pimp`` holds PIMP's
    p-values, which are not an importance of their own (it is left out of the comparisons).
    """

    pfi: object = None
    cfi: object = None
    loco: object = None
    lofo: object = None
    sage_marginal: object = None
    sage_conditional: object = None
    pimp: object = None

    def set(self, key, result):
        """Store the result of ``key`` (one of ``IMPORTANCE_KEYS``); an unknown key is an error."""
        if key not in IMPORTANCE_KEYS:
            raise KeyError(f"Unknown importance result {key!r}; expected one of {IMPORTANCE_KEYS}.")
        setattr(self, key, result)

    def results(self):
        """``{key: result}`` of every method that ran, PIMP included, in the order of ``IMPORTANCE_KEYS``."""
        return {k: r for k in IMPORTANCE_KEYS if (r := getattr(self, k)) is not None}

    def compared(self):
        """:meth:`results` without PIMP: the importances shown side by side and compared by the reading."""
        return {k: r for k, r in self.results().items() if k != "pimp"}


@dataclass
class EffectsOutputs:
    """What section 4 (feature effects) leaves for the later parts.

    Attributes
    ----------
    h_overall : dict or None
        Each feature's overall H² (feature -> value); None when the H-statistic did not run.
    h_rows : int or None
        The rows the H-statistic was computed on.
    h_halves : dict or None
        Each feature's overall H² on each half of those rows (feature -> (half 1, half 2)); None when the halves
        were too small or did not run. A feature above a threshold in one half and not in the other is not
        distinguishable from it at these rows.
    h_se : dict or None
        The bootstrap standard error of each overall H² (feature -> value); None when it was not computed.
    h_pairs : dict or None
        Every computed pair's H² (``frozenset((a, b))`` -> value), for section 5 to set beside REPID's split
        features; None when the H-statistic did not run.
    """

    h_overall: dict | None = None
    h_rows: int | None = None
    h_halves: dict | None = None
    h_se: dict | None = None
    h_pairs: dict | None = None


@dataclass
class RegionalOutputs:
    """What section 5 (regional effects) computed.

    Attributes
    ----------
    repid : RepidResult or None
        The REPID tree of the most heterogeneous top feature; None when it did not run.
    """

    repid: object = None


@dataclass
class ReportContext:
    """Everything a section needs, and what sections leave for the ones after them.

    The sections' outputs are typed records (``ctx.data_outputs.dependence_r2``,
    ``ctx.importance.pfi``, ``ctx.effects.h_overall``, ...): a misspelt name is an
    AttributeError, not a silent None.

    Attributes
    ----------
    config : ReportConfig
    params : MethodParams -- every method's parameters (``method_params(config.quick)``), by attribute
    data : Dataset
    X_train, X_test : DataFrame; y_train, y_test : Series
    model : the fitted black box; learner : its unfitted clone for refits (None if it has none)
    model_label : str -- the model's name as the report shows it
    loss : str -- the loss of the model-based importance methods
    data_outputs : DataOutputs -- filled by section 1
    model_check : ModelCheck -- the model's test performance (prepare_context) and section 2's verdict
    importance : ImportanceOutputs -- filled by section 3
    effects : EffectsOutputs -- filled by section 4
    regional : RegionalOutputs -- filled by section 5
    log : list of StepRecord -- the "How it was made" table
    notes : list of str -- the notes listed in section 7
    """

    config: object
    params: object
    data: object = None
    X_train: pd.DataFrame | None = None
    X_test: pd.DataFrame | None = None
    y_train: pd.Series | None = None
    y_test: pd.Series | None = None
    model: object = None
    learner: object = None
    model_label: str = ""
    loss: str = "squared_error"
    data_outputs: DataOutputs = field(default_factory=DataOutputs)
    model_check: ModelCheck = field(default_factory=ModelCheck)
    importance: ImportanceOutputs = field(default_factory=ImportanceOutputs)
    effects: EffectsOutputs = field(default_factory=EffectsOutputs)
    regional: RegionalOutputs = field(default_factory=RegionalOutputs)
    log: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    progress_hook: object = None
    #: Parts that failed (Failure records); each became a warning box in its place.
    failures: list = field(default_factory=list)
    #: Warning boxes shown at the very top of the report (no better than a baseline, a leak, failures).
    alerts: list = field(default_factory=list)
    #: The class whose probability sections 4-5 explain (None: regression or the default class).
    target_class: object = None
    #: (step, split) -> RowUse: the rows each step read.
    row_use: dict = field(default_factory=dict)
    #: Where the model is scored (EVALUATIONS): "split" (imlkit fitted it on its training split),
    #: "test_data" (held-out rows given by the user) or "all_rows" (a fitted model and one table:
    #: every row is evaluation data; imlkit cannot know which rows fitted the model).
    evaluation: str = "split"
    #: With "all_rows": (X_train, y_train, X_test, y_test) of a seeded split of the table, used by
    #: the steps in REFIT_STEPS (refits and the leak check) instead of the evaluation rows.
    refit_rows: tuple | None = None
    #: Section 6's interpretable models fitted on the report's own task (name -> fitted pipeline; the
    #: one-class-against-the-rest GLM and GAM of a multi-class target are not here): section 6 compares
    #: each with the model on the same rows, with paired intervals.
    alternative_models: dict = field(default_factory=dict)
    #: The importance methods (LOCO, LOFO, PIMP) that took the report's model as their full fit instead of a refit
    #: (section 3 adds it to their step's parameters, which section 7 lists).
    full_fit_used: set = field(default_factory=set)
    _orders: dict = field(default_factory=dict, repr=False)

    @property
    def task(self):
        return self.data.task

    @property
    def eval_rows(self):
        """What the rows the model is scored on are called: "test rows", or "rows" when a fitted model
        came with one table (imlkit cannot know they were held out, so it never says so)."""
        return "rows" if self.evaluation == "all_rows" else "test rows"

    @property
    def score_word(self):
        """The adjective of a score: "test" (RMSE on held-out rows), or "evaluation" when a fitted model came
        with one table and its scores may be on its own training rows."""
        return "evaluation" if self.evaluation == "all_rows" else "test"

    @property
    def scores_where(self):
        """Where the scores were taken, for captions: "Test scores" or "Scores on all N rows (possibly ...)"."""
        if self.evaluation == "all_rows":
            return f"Scores on all {len(self.X_test):,} rows of the table (possibly the model's training rows)"
        return "Test scores"

    @property
    def split_words(self):
        """How imlkit split the rows, for a sentence: "a seeded random split of the table", or with
        ``--split ordered`` "an ordered split of the table: its last 118 rows held out, in the table's order"."""
        if getattr(self.config, "split", "random") != "ordered":
            return "a seeded random split of the table"
        n_all = len(self.data.X)
        n_fit = len(self.refit_rows[0]) if self.evaluation == "all_rows" and self.refit_rows else len(self.X_train)
        return f"an ordered split of the table: its last {n_all - n_fit:,} rows held out, in the table's order"

    @property
    def seed(self):
        return self.config.seed

    @property
    def n_jobs(self):
        """n_jobs for the methods: None defers to the Dask backend when a scheduler is used."""
        return None if self.config.scheduler else self.config.n_jobs

    @property
    def progress(self):
        """Whether the methods draw their own bars: never. Within :meth:`step` their units reach the
        report's own progress (its bar, or its lines) through :func:`imlkit._parallel.progress_sink`."""
        return False

    def methods(self, *names):
        """Whether any of the method names was selected with ``--methods``."""
        return any(n in self.config.methods for n in names)

    def budget(self, step, split="test"):
        """The row budget of ``step`` on ``split`` (None: every row); see ``_config.row_budgets``."""
        return self.params.rows[step][split]

    def _split_data(self, split):
        if split in ("refit_train", "refit_test"):
            X_tr, y_tr, X_te, y_te = self.refit_rows
            return (X_tr, y_tr) if split == "refit_train" else (X_te, y_te)
        if split == "train":
            return self.X_train, self.y_train
        if split == "test":
            return self.X_test, self.y_test
        if split == "all":
            return self.data.X, self.data.y
        raise ValueError(f"'split' must be 'train', 'test' or 'all'; got {split!r}.")

    def row_index(self, step, split="test", n=None):
        """The positions of the rows ``step`` reads from ``split``, or None for every row.

        At most the step's budget (or ``n``) rows: the first ones of one seeded ordering of the
        split's rows, so a smaller budget's rows are part of a larger one's, and every step that
        reads a split sees the same rows as far as its budget goes. For classification the
        ordering interleaves the classes so that every prefix keeps the class shares (within one
        row per class): the subsample is stratified. The use is recorded (``row_use``) for the
        "How it was made" section.
        """
        asked, split = split, self._route(step, split)
        X, y = self._split_data(split)
        available = len(X)
        budget = self.budget(step, asked) if n is None else int(n)
        idx = None
        if budget is not None and available > budget:
            idx = np.sort(self._ordering(split, y)[:budget])
        self.row_use[(step, asked)] = RowUse(step=step, split=split, used=available if idx is None else len(idx),
                                             available=available, budget=budget)
        return idx

    def rows(self, step, split="test", n=None):
        """``(X, y)`` of the rows ``step`` reads from ``split`` (see :meth:`row_index`).

        The split's own frames (no copy) when it fits the budget, else a subsample with a fresh
        0..k-1 index. ``ctx.rows(n, name)`` (an int first) is the older form: at most ``n`` test rows.
        """
        if isinstance(step, (int, np.integer)):  # the older rows(n, name) form: n test rows for step `name`
            n, step, split = int(step), split, "test"
        X, y = self._split_data(self._route(step, split))
        idx = self.row_index(step, split, n)
        if idx is None:
            return X, y
        return X.iloc[idx].reset_index(drop=True), y.iloc[idx].reset_index(drop=True)

    def _route(self, step, split):
        """The split a step reads: the refit steps read the refit split when the model is scored on every row."""
        if self.refit_rows is not None and step in REFIT_STEPS and split in ("train", "test"):
            return "refit_" + split
        return split

    def _ordering(self, split, y):
        """One seeded ordering of a split's rows (stratified by class for classification), cached."""
        if split not in self._orders:
            code = {"train": 1, "test": 2, "all": 3, "refit_train": 4, "refit_test": 5}[split]
            rng = np.random.default_rng(np.random.SeedSequence([int(self.seed), 7919, code]))
            n = len(y)
            if self.task != "classification":
                order = rng.permutation(n)
            else:
                # Each class's rows, in random order, get evenly spaced keys in [0, 1) (jittered
                # within their slot); sorting by key interleaves the classes in proportion.
                codes = pd.factorize(pd.Series(y).astype(str), sort=True)[0]
                key = np.empty(n)
                for c in range(codes.max() + 1 if n else 0):
                    members = rng.permutation(np.flatnonzero(codes == c))
                    m = len(members)
                    key[members] = (np.arange(m) + rng.random(m)) / m
                order = np.argsort(key, kind="stable")
            self._orders[split] = order
        return self._orders[split]

    def subsampled(self):
        """The recorded row uses where a budget ("scale"/"refit" kind) left rows out."""
        from ._config import ROW_BUDGETS

        return [u for u in self.row_use.values()
                if u.used < u.available and ROW_BUDGETS.get(u.step, (None, None, "sample"))[2] != "sample"]

    @contextlib.contextmanager
    def step(self, name, **parameters):
        """Time a step and record it (with its parameters) for the "How it was made" section.

        A step that raises is recorded as failed (with the seconds it ran) and the exception
        goes on to the guard around it. While it runs, the units the methods count (their
        ``progress`` bars) feed the report's progress: a moving bar, or a line every ~15 s.
        """
        from .._parallel import progress_sink

        hook = self.progress_hook
        live = hasattr(hook, "units") and getattr(hook, "mode", "off") != "off"  # a Progress that prints
        if hook is not None:
            hook.start(name)
        start, start_cpu = time.perf_counter(), time.process_time()
        entry = StepRecord(step=name, parameters=dict(parameters))
        self.log.append(entry)
        failed = True
        try:
            with progress_sink(hook) if live else contextlib.nullcontext():
                yield entry
            failed = False
        finally:
            entry.seconds = time.perf_counter() - start
            entry.cpu_seconds = time.process_time() - start_cpu
            if failed:
                entry.step = f"{name} (failed)"
            if hook is not None:
                hook.done(name, entry.seconds, failed=failed)

    def guard(self, what, build, *, kind="method", heading=None):
        """Run ``build()`` and return its blocks; a failure becomes a warning box in their place.

        This is the report's one failure-isolation mechanism (docs/design.md §2, "Report"): every section and
        every method or figure inside a section runs through it, so an exception in one part
        (a baseline, the GAM, a LOCO learner, a plot) costs only that part. The failure is
        recorded in ``failures`` (listed at the top of the report and in its notes) and written
        to stderr as one line ``imlkit: <kind> '<what>' failed: <reason>``. With
        ``config.strict`` the exception propagates instead (the command exits non-zero).

        Parameters
        ----------
        what : str -- the part's name, as the reader knows it ("PFI", "GAM", "ALE: temp")
        build : callable () -> list of blocks
        kind : {"method", "section", "figure", "part"}
        heading : str, optional -- a heading put above the warning box (e.g. the model's name)
        """
        try:
            return build()
        except Exception as exc:  # every failure is shown in place; --strict turns it into an error
            if getattr(self.config, "strict", False):
                raise
            return self.failure_blocks(what, exc, kind=kind, heading=heading)

    def failure_blocks(self, what, exc, *, kind="method", heading=None):
        """Record a failed part and return the warning box that takes its place."""
        reason = one_line(exc)
        self.failures.append(Failure(part=what, kind=kind, reason=reason))
        from .._names import terminal_safe  # a reason quoting a column name must not reach the terminal raw

        print(terminal_safe(f"imlkit: {kind} {what!r} failed: {reason}"), file=sys.stderr, flush=True)
        self.notes.append(f"{kind.capitalize()} '{what}' failed and was left out: {reason}")
        blocks = [heading_block(heading)] if heading else []
        return blocks + [warning(f"{what} failed on these data and is left out: {reason.rstrip('.')}. The rest of "
                                 f"the report does not depend on it.")]

    def guard_section(self, sid, title, build):
        """A whole section through :meth:`guard`: its dict, or the section with one warning box."""
        out = self.guard(title, build, kind="section")
        if isinstance(out, dict):
            return out
        return Section(sid, title, out)

    def refit_backend(self):
        """joblib's Dask backend for the refit-heavy methods when a scheduler is given."""
        if not self.config.scheduler:
            return contextlib.nullcontext()
        import joblib

        return joblib.parallel_config(backend="dask", n_jobs=-1)
