"""What a result records: ``params`` (what was asked) and ``info`` (what happened).

Every result carries two mappings:

- ``result.params`` -- the call's arguments, as given or with ``"auto"``/``None`` resolved by a
  rule of the arguments alone (the loss's name, LOCO's aggregate, the sampler's repr), and the
  record of a slicing (``"selection"``). Passing them back reproduces the call.
- ``result.info`` -- facts of the run: timings, rows actually evaluated, the engine that ran
  and why, the test and inference actually used, fallbacks and notes. They describe the
  computation, not the question; two runs with the same params may differ here (seconds,
  engine on another install).

How the keys get there. A method builds one dict while it runs (its arguments first, the facts
as they become known) and passes it as ``params=``; the result's ``__post_init__``
(:class:`RunRecord`, shared by every result through :class:`imlkit._display.ResultDisplay`)
moves the keys listed in :data:`HAPPENED` into ``info``. One table, read at one place, was
chosen over each method writing ``info`` itself: the methods' code stays as it was (a new
method gets its facts routed by naming them as the others do), the classification is written
once and documented here, and no key can end up in both mappings. The price is that a name
in the table can never be an argument recorded in ``params`` -- one name, one meaning; an
argument and its run-time outcome take two names (SAGE's ``n_background`` asked,
``background_rows`` used).

Reading a moved key from ``params`` (``r.params["seconds"]``) raises a ``KeyError`` that says
where it went (:class:`Params`); so does ``params.get("seconds")``: a default of None there
would be a silent wrong answer for code written before the split.
"""
from __future__ import annotations

__all__ = ["HAPPENED", "Params", "RunRecord", "split_record"]

#: The keys that are facts of the run, with what each one says. Every other key is an argument.
HAPPENED = {
    "seconds": "wall time of the computation, in seconds (data checks and set-up excluded)",
    "n_rows": "rows the method evaluated: the rows of X after max_rows/n_samples (LOCO/LOFO and PIMP: the "
              "test rows, with cv the training rows, each held out once; an ICE cohort: its curves; a GAM "
              "term: the rows the GAM was fitted on)",
    "engine": "the engine that computed the predictions: 'trees' or 'predict'",
    "engine_note": "why a tree model was not evaluated by the tree engine (absent when it was, or no tree model)",
    "engine_skipped": "PFI/CFI on the tree engine: the share of (feature, tree) walks skipped because the tree "
                      "never splits on the permuted feature",
    "engine_skipped_by_feature": "PFI/CFI on the tree engine: that share per feature (a group of several "
                                 "columns: 0)",
    "test_used": "LOCO/LOFO: the test that ran (test='auto' resolved; None without a test)",
    "estimand": "LOCO/LOFO: what the importance and its interval are about (the aggregate, or the mean over "
                "folds of it)",
    "inference": "LOCO/LOFO: how the p-values and intervals were made (e.g. 'nadeau_bengio' across folds)",
    "p_adjust_applied": "LOCO/LOFO: the multiplicity correction applied to the p-values (None when none was)",
    "interval_adjust": "LOCO/LOFO: the correction applied to the intervals ('bonferroni' or None)",
    "n_bins": "ALE: the number of intervals used (quantile edges merged, min_bin_size respected)",
    "bins_capped": "ALE: why fewer bins were used than asked (absent when bins were not capped)",
    "background_rows": "SAGE, SHAP: the background rows (or conditional draws) each coalition is averaged over",
    "edf": "a GAM term: its effective degrees of freedom in the fitted model",
    "lambda": "a GAM term: its smoothing parameter in the fitted model",
}


class Params(dict):
    """A result's ``params``: a dict whose missing keys that moved to ``info`` say so.

    >>> p = Params(loss="squared_error")
    >>> p["seconds"]
    Traceback (most recent call last):
    ...
    KeyError: "'seconds' is a fact of the run: read result.info['seconds']"
    """

    __slots__ = ()

    def __missing__(self, key):
        if key in HAPPENED:
            raise KeyError(f"{key!r} is a fact of the run: read result.info[{key!r}]")
        raise KeyError(key)

    def get(self, key, default=None):
        # A fact of the run is never in params: ``params.get("engine")`` answering None would be
        # a silent wrong answer (the engine did run), so it fails as ``params["engine"]`` does.
        if key in HAPPENED and not dict.__contains__(self, key):
            self.__missing__(key)
        return dict.get(self, key, default)


def split_record(params, info=None):
    """``(Params, dict)``: the keys of ``params`` split into arguments and facts of the run.

    Keys of :data:`HAPPENED` move from ``params`` to ``info`` (in the table's order, so every
    result lists its facts alike); an explicit ``info`` is kept and wins over a moved key of the
    same name.
    """
    params = dict(params or {})
    moved = {key: params.pop(key) for key in HAPPENED if key in params}
    return Params(params), {**moved, **dict(info or {})}


class RunRecord:
    """Mixin for the frozen result dataclasses: ``__post_init__`` splits ``params`` into ``params`` and ``info``.

    The class declares the fields ``params`` and ``info`` (both ``field(default_factory=dict)``,
    ``info`` last so that positional construction is unchanged). ``dataclasses.replace`` runs
    the split again; on a split record it changes nothing.
    """

    __slots__ = ()

    def __post_init__(self):
        params, info = split_record(self.params, self.info)
        object.__setattr__(self, "params", params)
        object.__setattr__(self, "info", info)
