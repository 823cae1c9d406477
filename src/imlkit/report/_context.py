"""State shared by the report's sections: the data split, the fitted model, results and a log."""
from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

__all__ = ["ReportContext", "Section", "text", "table", "warning", "bullets", "fmt"]


def Section(id, title, blocks, intro=None):  # noqa: N802 - a record constructor
    """One section of the report: an anchor id, a heading and a list of blocks."""
    return {"id": id, "title": title, "intro": intro, "blocks": list(blocks)}


def text(s):
    return {"kind": "text", "text": str(s)}


def warning(s):
    return {"kind": "warning", "text": str(s)}


def bullets(items, title=None):
    return {"kind": "list", "items": [str(i) for i in items], "title": title}


def table(columns, rows, caption=None, numeric=None):
    """A table block; every cell is turned into text here (the template escapes it)."""
    return {"kind": "table", "columns": [str(c) for c in columns],
            "rows": [[fmt(v) for v in row] for row in rows], "caption": caption}


def frame_table(frame, caption=None, index=True, digits=4):
    cols = ([frame.index.name or ""] if index else []) + [str(c) for c in frame.columns]
    rows = []
    for idx, row in frame.iterrows():
        rows.append(([idx] if index else []) + [fmt(v, digits) for v in row.tolist()])
    return table(cols, rows, caption)


def fmt(v, digits=4):
    """A short, readable text for a number (significant digits), or ``str`` of anything else.

    Examples
    --------
    >>> fmt(0.123456), fmt(1234567.0), fmt(12345), fmt(float("nan")), fmt(True)
    ('0.1235', '1.23e+06', '12,345', '–', 'yes')
    """
    if isinstance(v, str):
        return v
    if v is None:
        return ""
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else "no"
    if isinstance(v, (int, np.integer)):
        return f"{int(v):,}"
    if isinstance(v, (float, np.floating)):
        v = float(v)
        if not np.isfinite(v):
            return "–" if np.isnan(v) else str(v)
        if v == 0:
            return "0"
        if abs(v) >= 10 ** digits or abs(v) < 10 ** -(digits - 1):
            return f"{v:.{digits - 1}g}" if abs(v) < 1e6 else f"{v:.3g}"
        return f"{v:.{digits}g}"
    return str(v)


@dataclass
class ReportContext:
    """Everything a section needs, and what sections leave for the ones after them.

    Attributes
    ----------
    config : ReportConfig
    params : dict -- every method's parameters (``method_params(config.quick)``)
    data : Dataset
    X_train, X_test : DataFrame; y_train, y_test : Series
    model : the fitted black box; learner : its unfitted clone for refits (None if it has none)
    loss : str -- the loss of the model-based importance methods
    importance : dict method -> ImportanceResult (filled by section 3)
    effects : dict (filled by section 4: top features, H-statistic)
    performance : dict model name -> metrics (filled by sections 2 and 6)
    log : list of dict(step, parameters, seconds) -- the "How it was made" table
    """

    config: object
    params: dict
    data: object = None
    X_train: pd.DataFrame | None = None
    X_test: pd.DataFrame | None = None
    y_train: pd.Series | None = None
    y_test: pd.Series | None = None
    model: object = None
    learner: object = None
    model_label: str = ""
    loss: str = "squared_error"
    importance: dict = field(default_factory=dict)
    effects: dict = field(default_factory=dict)
    performance: dict = field(default_factory=dict)
    log: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    progress_hook: object = None

    @property
    def task(self):
        return self.data.task

    @property
    def seed(self):
        return self.config.seed

    @property
    def n_jobs(self):
        """n_jobs for the methods: None defers to the Dask backend when a scheduler is used."""
        return None if self.config.scheduler else self.config.n_jobs

    @property
    def progress(self):
        return bool(self.config.progress)

    def methods(self, *names):
        """Whether any of the method names was selected with ``--methods``."""
        return any(n in self.config.methods for n in names)

    def rows(self, n, name):
        """At most ``n`` test rows (a fixed random subset, the same for a given seed and name)."""
        if len(self.X_test) <= n:
            return self.X_test, self.y_test
        seq = np.random.SeedSequence([self.seed, sum(map(ord, name))])
        idx = np.sort(np.random.default_rng(seq).choice(len(self.X_test), size=n, replace=False))
        return self.X_test.iloc[idx].reset_index(drop=True), self.y_test.iloc[idx].reset_index(drop=True)

    @contextlib.contextmanager
    def step(self, name, **parameters):
        """Time a step and record it (with its parameters) for the "How it was made" section."""
        if self.progress_hook is not None:
            self.progress_hook(name)
        start = time.perf_counter()
        entry = {"step": name, "parameters": dict(parameters), "seconds": None}
        self.log.append(entry)
        yield entry
        entry["seconds"] = time.perf_counter() - start

    def refit_backend(self):
        """joblib's Dask backend for the refit-heavy methods when a scheduler is given."""
        if not self.config.scheduler:
            return contextlib.nullcontext()
        import joblib

        return joblib.parallel_config(backend="dask", n_jobs=-1)
