"""The options of the public methods, declared once: name, check, record and documentation line.

A method's options used to be written four or five times: in the signature, in its options
object, in its checks, in its ``result.params`` record and in its docstring. Here each option is
an :class:`Option` -- its name, how a value is checked (the messages of :mod:`imlkit._validation`),
how it is recorded in ``result.params`` and a one-line description -- and each method declares a
:class:`Spec`, the ordered tuple of its options::

    PFI = Spec("pfi", LOSS, FEATURES, N_REPEATS, RELATION, CONFIDENCE_LEVEL, MAX_ROWS, N_JOBS,
               RANDOM_STATE, PROGRESS, ENGINE)

    def pfi(model, X, y, *, loss=None, features=None, n_repeats=10, ...):
        call = PFI.check(locals())       # validates in the spec's order; normalised values and ``seed``
        params = PFI.record(call)        # the start of result.params

What stays where it was, and why:

- **Defaults** stay in the public signatures, where users, ``help()`` and Sphinx read them; a
  spec holds none (``tests/test_options.py`` checks that every public method's signature, spec
  and numpydoc Parameters name the same options).
- **The frozen options object** an engine reads (``PerturbationOptions``, ``RefitOptions``,
  ``EffectOptions``, ...) stays a typed dataclass; it is built from :meth:`Spec.check`'s dict.
- **Checks that need the data** (``features`` against the columns, ``loss`` against the model,
  a sampler against X) run where the data is known; such options have ``check=None`` and their
  documentation line says where they are checked.

The recorded value is the checked value (``record=True``: the argument, normalised -- an int for
``np.int64(3)``; ``random_state`` as given), a summary of it (a callable: a Generator is recorded
as ``"Generator"``, a callable loss by its ``__name__``), or nothing (``record=False``:
``progress``, and ``engine``, whose outcome is the fact ``info["engine"]``).
An option recorded in ``params`` may not be named like a fact of the run (:data:`imlkit._record.HAPPENED`):
one name, one meaning.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ._record import HAPPENED
from ._validation import (
    as_seed_sequence,
    check_bool,
    check_choice,
    check_float,
    check_int,
    check_n_jobs,
    check_probability,
)

__all__ = [
    "Option", "Spec", "integer", "number", "probability", "choice", "flag", "seed_record", "name_record",
    "LOSS", "FEATURES", "N_REPEATS", "N_JOBS", "RANDOM_STATE", "MAX_ROWS", "PROGRESS",
    "CONFIDENCE_LEVEL", "RELATION", "ENGINE", "RELATIONS", "GRID_TYPE", "N_SAMPLES", "OUTPUT", "SAMPLE_WEIGHT",
]

#: How an importance relates the perturbed (or refitted) loss to the original one.
RELATIONS = ("difference", "ratio")


# --------------------------------------------------------------------------- checks
# A check is ``check(name, value, call) -> value``: ``call`` holds the call's options, checked
# ones normalised, the others as given (a bound that depends on another option reads it there,
# e.g. SAGE's ``batch_size`` >= 2 orderings, 4 when antithetic). It returns the normalised value.
def integer(min_value=None, max_value=None, *, allow_none=False):
    """An int within bounds: ``'n_repeats' must be an int >= 1; got 0.``"""
    return lambda name, value, call: check_int(name, value, min_value=min_value, max_value=max_value,
                                               allow_none=allow_none)


def number(low=None, high=None, *, low_inclusive=True, high_inclusive=True, allow_none=False):
    """A finite float within bounds."""
    return lambda name, value, call: check_float(name, value, low=low, high=high, low_inclusive=low_inclusive,
                                                 high_inclusive=high_inclusive, allow_none=allow_none)


def probability():
    """A level strictly between 0 and 1 (``confidence_level``, ``alpha``)."""
    return lambda name, value, call: check_probability(name, value)


def choice(allowed):
    """One of a closed set: ``'relation' must be one of 'difference', 'ratio'; got 'x'.``"""
    allowed = tuple(allowed)
    return lambda name, value, call: check_choice(name, value, allowed)


def flag():
    """True or False."""
    return lambda name, value, call: check_bool(name, value)


def _n_jobs(name, value, call):
    return check_n_jobs(value)


def _seed(name, value, call):
    return as_seed_sequence(value, name)


# --------------------------------------------------------------------------- records
def seed_record(value):
    """A Generator's state is not a parameter one can pass back: it is recorded as ``"Generator"``."""
    return value if not isinstance(value, np.random.Generator) else "Generator"


def name_record(value):
    """A string as it is, a callable by its ``__name__`` (``"custom"`` without one), None as None."""
    return value if value is None or isinstance(value, str) else getattr(value, "__name__", "custom")


# --------------------------------------------------------------------------- the declarations
@dataclass(frozen=True)
class Option:
    """One option of a public method.

    Attributes
    ----------
    name : str
        The parameter's name in the public signature.
    check : callable or None
        ``check(name, value, call) -> value`` raising the message of :mod:`imlkit._validation`
        (``call``: the call's options, those checked so far normalised); None when the value can
        only be checked against the data (the doc line says where).
    doc : str
        One line: what the option is (the docstring's Parameters entry says it at length).
    record : bool or callable
        How ``result.params`` records it: True the checked value, False not at all, a callable
        of the checked value for a summary.
    store : str or None
        The checked value is stored under this name instead, and the given value under
        ``name`` (``random_state`` as given, ``seed`` the call's SeedSequence).
    """

    name: str
    check: Callable[[str, Any, dict], Any] | None
    doc: str
    record: bool | Callable[[Any], Any] = True
    store: str | None = None

    def but(self, **changes):
        """This option with some fields changed (a method's own check or record of a shared name)."""
        return replace(self, **changes)


class Spec:
    """The options of one public method, in the order they are checked and recorded.

    Parameters
    ----------
    method : str
        The method's name (for messages and the consistency test).
    *options : Option
        Its options: every parameter of the signature that is not data (model, X, y, ...).
    """

    def __init__(self, method, *options):
        names = [o.name for o in options]
        if len(set(names)) != len(names):
            raise ValueError(f"spec {method!r} names an option twice: {names}")
        facts = [o.name for o in options if o.record is not False and o.name in HAPPENED]
        if facts:
            raise ValueError(f"spec {method!r} records {facts} in params, but they are facts of the run (info)")
        self.method = method
        self.options = tuple(options)

    @property
    def names(self):
        """The options' names, in the spec's order."""
        return tuple(o.name for o in self.options)

    def __iter__(self):
        return iter(self.options)

    def __getitem__(self, name):
        for o in self.options:
            if o.name == name:
                return o
        raise KeyError(name)

    def __repr__(self):
        return f"Spec({self.method!r}: {', '.join(self.names)})"

    def _values(self, args):
        missing = [n for n in self.names if n not in args]
        if missing:  # a programming error of the method, not of its user
            raise TypeError(f"{self.method}: no value for option(s) {missing}")
        return {n: args[n] for n in self.names}

    def check(self, args):
        """Validate the options of one call, in the spec's order; the normalised values by name.

        ``args`` is any mapping holding every option's value (``locals()`` of the public function
        works: other names in it are ignored). An option with a ``store`` name keeps its given
        value and adds the checked one under ``store`` (``seed``).
        """
        given = self._values(args)
        call, checked = dict(given), {}
        for o, value in zip(self.options, given.values()):
            out = value if o.check is None else o.check(o.name, value, call)
            if o.store is None:
                call[o.name] = checked[o.name] = out
            else:
                checked[o.name] = value
                checked[o.store] = out
        return checked

    def record(self, args):
        """The recorded options of one call (the start of ``result.params``), from :meth:`check`'s values.

        Options without a check (and ``store`` options) are recorded as given either way.
        """
        out = {}
        for o, value in zip(self.options, self._values(args).values()):
            if o.record is False:
                continue
            out[o.name] = value if o.record is True else o.record(value)
        return out


# --------------------------------------------------------------------------- shared options
LOSS = Option("loss", None, "the loss (a name or a pointwise callable; None: by task); resolved against the model "
              "by imlkit._losses.get_loss", record=name_record)
FEATURES = Option("features", None, "the features or groups to score (None: every column); resolved against the "
                  "data's columns by imlkit._validation.resolve_features")
N_REPEATS = Option("n_repeats", integer(1), "repetitions of each random perturbation")
N_JOBS = Option("n_jobs", _n_jobs, "joblib workers (None: 1 unless inside a joblib.parallel_config; -1: all cores)")
RANDOM_STATE = Option("random_state", _seed, "None, an int >= 0 or a numpy Generator: the call's one SeedSequence",
                      record=seed_record, store="seed")
MAX_ROWS = Option("max_rows", integer(1, allow_none=True), "at most this many rows per model call (memory bound)")
PROGRESS = Option("progress", flag(), "show a progress bar", record=False)
CONFIDENCE_LEVEL = Option("confidence_level", probability(), "level of the intervals")
RELATION = Option("relation", choice(RELATIONS), "perturbed (or refitted) loss minus, or over, the original loss")


def _engine(name, value, call):
    # imported here: the tree engine's package owns its choices, and stays out of a light import
    from ._trees import check_engine

    return check_engine(value)


ENGINE = Option("engine", _engine, "'auto': the tree engine where it supports the model, else predict; "
                "info['engine'] records which ran", record=False)

# the effects' (ICE, PD, ALE, H, REPID, heterogeneity)
GRID_TYPE = Option("grid_type", choice(("quantile", "uniform")), "grid points at quantiles of the feature or evenly "
                   "spaced over its range")
N_SAMPLES = Option("n_samples", integer(1, allow_none=True), "rows the curves are computed on (a seeded subsample; "
                   "None: the method's default)")
OUTPUT = Option("output", None, "which output of a classifier (a class label or index); resolved against the model "
                "by imlkit.effects._grid.resolve_output")
SAMPLE_WEIGHT = Option("sample_weight", None, "row weights of the average; checked against X's rows by "
                       "imlkit.effects._grid.check_sample_weight", record=False)
