"""The refit engine shared by LOCO, LOFO and PIMP.

One unit of work is one refit: take a fresh copy of the learner (``sklearn.base.clone`` or a
call of a zero-argument factory), fit it on the training rows without the columns of one
feature or group (or on a permuted target, for PIMP's null refits), and evaluate it on the
test rows. The tasks (features × refits × folds, or null refits) go through
:func:`imlkit._parallel.parallel_map`, each with its own SeedSequence child, so the numbers do
not depend on ``n_jobs`` or on the joblib backend (loky, threading, Dask).

A learner that fails inside a task does not abort the worker: the task returns the exception,
and :func:`run_refits` raises one :class:`~imlkit._validation.ModelError` naming the feature
(or null refit) with the original exception as its ``__cause__`` -- exceptions cross process
boundaries without their ``__cause__``, so the chaining is done here, in the caller's process.

Leaving a feature out: drop or neutralise
-----------------------------------------
LOCO/LOFO define f_-j as the learner fitted *without* x_j. The engine drops the columns,
except for a learner that selects its input columns by name or position -- a Pipeline with a
``ColumnTransformer`` listing columns (``("num", StandardScaler(), ["age", "bmi"])``), the most
common scikit-learn pattern. Dropping a column breaks such a learner ("columns are not in the
dataframe") or, with positions, silently shifts the columns. For those learners the left-out
columns are *neutralised* instead: replaced in training and test data by one constant (the
training median of a numeric column, the most frequent level of a categorical one; missing
values included, so NaN carries no information either). A constant column carries no
information about y, so the fit equals the fit without the column for every learner that
cannot use a constant: trees and forests never split on it (identical trees with a fixed
``random_state`` when all features are candidates, up to ties between equally good splits in
tiny nodes, which the tree's random feature order breaks differently), a linear model with an intercept absorbs
it into the intercept, one-hot or scaled constants are constant too, and penalised models put
no weight on it (the unpenalised intercept is cheaper). ``tests/importance/test_refit.py``
checks this equality. Learners without an intercept or with random feature subsampling give
a different (equally valid) refit. Use ``make_column_selector`` (a callable) in the
ColumnTransformer to have the columns dropped instead.

Leaving a feature out: permute (LOFO's "permuted copy")
------------------------------------------------------
``leave_out="permute"`` keeps the columns but replaces them, in the training and in the test
data, by a random permutation of their rows (one permutation of the training rows and an
independent one of the test rows; a group's columns are permuted together, so their joint
distribution is kept). The refitted learner then sees as many columns as the full one, but
the permuted columns carry no information about y or about the other features (Molnar's LOFO
chapter: "add a permuted version of the variable instead of dropping it, and then relearn").
Each job's permutations come from its own ``permute_seed`` (a SeedSequence that the caller
makes per feature, refit and fold), never from the learner's seed, so the numbers do not
depend on ``n_jobs`` and the full and reduced fits of one refit keep their common learner seed.
"""
from __future__ import annotations

import contextlib
import contextvars
import numbers
import pickle
import traceback
from collections.abc import Callable
from dataclasses import InitVar, dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._dtypes import is_numeric_or_bool
from .._losses import get_loss
from .._model import Predictor
from .._parallel import parallel_map
from .._validation import ModelError, ValidationError, check_same_columns, check_X_y
from ._common import with_test_classes

__all__ = ["RefitProblem", "RefitJob", "check_learner", "check_refit_data", "check_groups", "make_folds", "run_refits",
           "refit_task", "fresh_learner", "evaluate_loss", "leave_out_mode", "neutralise", "permute_columns",
           "LEAVE_OUT_MODES", "reuse_full_fit", "full_fit_reusable", "given_full_fit"]

LEAVE_OUT_MODES = ("auto", "drop", "neutralise", "permute")


def _selects_columns(ct):
    """True if a ColumnTransformer names (or indexes) its columns rather than selecting by callable."""
    for entry in getattr(ct, "transformers", ()) or ():
        if len(entry) < 3:
            continue
        cols = entry[2]
        if callable(cols):
            continue
        if isinstance(cols, (list, tuple, np.ndarray, pd.Index)) and len(cols) == 0:
            continue
        return True
    return False


def leave_out_mode(learner):
    """``"neutralise"`` for a learner that selects columns by name or position, else ``"drop"``.

    The learner (or any step nested in it: pipelines, column transformers, meta-estimators) is
    searched for a scikit-learn ``ColumnTransformer`` whose column lists are not callables.
    """
    try:
        from sklearn.compose import ColumnTransformer
    except ImportError:  # pragma: no cover
        return "drop"
    try:
        template = check_learner(learner)
    except TypeError:
        return "drop"
    seen = [template]
    try:
        seen += list(template.get_params(deep=True).values())
    except Exception:
        pass
    for obj in seen:
        if isinstance(obj, ColumnTransformer) and _selects_columns(obj):
            return "neutralise"
    return "drop"


def neutralise(X_train, X_test, columns):
    """Copies of ``X_train`` and ``X_test`` with ``columns`` set to one constant each.

    The constant comes from the training rows: the median of a numeric column, the most
    frequent level of any other (NaN where a column has no observed value at all).
    """
    X_train = X_train.copy()
    X_test = None if X_test is None else X_test.copy()
    for c in columns:
        s = X_train[c]
        observed = s.dropna()
        if not is_numeric_or_bool(s):
            value = observed.mode().iloc[0] if len(observed) else s.iloc[0]
        elif s.dtype.kind == "b":
            value = bool(observed.mode().iloc[0]) if len(observed) else False
        else:
            value = float(np.median(observed.to_numpy(dtype=float))) if len(observed) else np.nan
            if s.dtype.kind in "iu":
                value = s.dtype.type(round(value))
        for frame in (X_train, X_test):
            if frame is None:
                continue
            if isinstance(s.dtype, pd.CategoricalDtype):
                frame[c] = pd.Categorical([value] * len(frame), dtype=s.dtype)
            else:
                frame[c] = pd.Series([value] * len(frame), index=frame.index, dtype=s.dtype)
    return X_train, X_test


def permute_columns(X_train, X_test, columns, seed):
    """Copies of ``X_train`` and ``X_test`` whose ``columns`` are permuted over the rows.

    One permutation of the training rows and an independent one of the test rows, both drawn
    from ``seed`` (a SeedSequence); all ``columns`` of a group share their frame's permutation.
    """
    if seed is None:
        raise ValueError("leave_out='permute' needs a job with a permute_seed.")
    # Children derived without seed.spawn, which would change the job's SeedSequence in place
    # (a job run in the caller's process must give what a pickled copy gives in a worker).
    rng_train, rng_test = (np.random.default_rng(np.random.SeedSequence(
        seed.entropy, spawn_key=tuple(seed.spawn_key) + (i,), pool_size=seed.pool_size)) for i in (0, 1))
    cols = list(columns)
    out = []
    for frame, rng in ((X_train, rng_train), (X_test, rng_test)):
        if frame is None:
            out.append(None)
            continue
        frame = frame.copy()
        perm = rng.permutation(len(frame))
        block = frame[cols].iloc[perm]
        block.index = frame.index
        frame[cols] = block
        out.append(frame)
    return out[0], out[1]


def check_learner(learner, name="learner"):
    """Return an unfitted template of ``learner`` (an estimator, or what the factory returns).

    Raises TypeError when it is neither an object with ``fit`` nor a callable returning one.
    """
    if hasattr(learner, "fit"):
        return learner
    if callable(learner):
        try:
            made = learner()
        except Exception as exc:
            raise TypeError(f"'{name}' must be an unfitted estimator with a fit method or a zero-argument "
                            f"factory returning one; calling it failed with {type(exc).__name__}: {exc}") from exc
        if hasattr(made, "fit"):
            return made
        raise TypeError(f"'{name}' is callable but returned {type(made).__name__}, which has no fit method; "
                        f"a factory must return an unfitted estimator.")
    raise TypeError(f"'{name}' must be an unfitted estimator with a fit method or a zero-argument factory "
                    f"returning one; got {type(learner).__name__}.")


def _numeric_labels(y_train, y_test):
    """Object targets whose every value is a number (the report holds class labels such as 0.0..6.0 as Python
    objects) as a numeric array: scikit-learn's learners refuse an object array of numbers ("Unknown label type:
    unknown"), which failed LOCO and PIMP on a model fitted on numeric classes. Both or neither are converted, so
    the refitted models' classes and the test labels stay comparable; anything else is returned as it is."""
    def numeric(y):
        return y is None or (y.dtype == object and all(isinstance(v, (numbers.Number, np.number))
                                                       and not isinstance(v, (bool, np.bool_)) for v in y))

    if y_train.dtype != object or not (numeric(y_train) and numeric(y_test)):
        return y_train, y_test
    train = np.asarray(y_train.tolist())
    return train, None if y_test is None else np.asarray(y_test.tolist(), dtype=train.dtype)


def check_refit_data(learner, X_train, y_train, X_test, y_test, loss, max_rows, *, allow_cv=False, cv=None):
    """Validate a learner with its train/test data and loss.

    Returns
    -------
    template : unfitted estimator
    X_train : DataFrame;  y_train : ndarray;  X_test : DataFrame or None;  y_test : ndarray or None
    loss : Loss;  as_frame : bool
    """
    template = check_learner(learner)
    Xtr, was_frame, ytr = check_X_y(X_train, y_train, X_name="X_train", y_name="y_train", min_rows=2)
    if X_test is None and y_test is None:
        if not allow_cv or cv is None:
            raise ValidationError("'X_test' and 'y_test' are required" +
                                  (" unless 'cv' is given." if allow_cv else "."))
        Xte = yte = None
    else:
        if X_test is None or y_test is None:
            raise ValidationError("'X_test' and 'y_test' must be given together.")
        if allow_cv and cv is not None:
            raise ValidationError("Give either a test set ('X_test', 'y_test') or 'cv', not both.")
        Xte, was_frame_test, yte = check_X_y(X_test, y_test, X_name="X_test", y_name="y_test")
        if was_frame_test != was_frame:
            raise ValidationError("'X_train' and 'X_test' must both be DataFrames or both be arrays.")
        check_same_columns(Xtr, Xte, "X_train", "X_test")
    ytr, yte = _numeric_labels(ytr, yte)
    loss_obj = get_loss(loss)
    # Checks predict_proba for probability losses and max_rows on the unfitted learner.
    Predictor(template, output="proba" if loss_obj.needs_proba else "predict", max_rows=max_rows)
    if not loss_obj.needs_proba and not loss_obj.needs_labels and ytr.dtype.kind not in "biuf":
        raise ValidationError(f"loss {loss_obj.name!r} needs a numeric target; y_train has dtype {ytr.dtype}. "
                              f"For classification use 'log_loss', 'brier', 'zero_one' or 'accuracy'.")
    return template, Xtr, ytr, Xte, yte, loss_obj, was_frame


def check_groups(groups, columns):
    """Refuse a group that would leave the learner without any column."""
    for name, cols in groups.items():
        if len(cols) == len(columns):
            raise ValidationError(f"Leaving out {name!r} removes every column of X_train; the learner "
                                  f"needs at least one column left. Choose a smaller group.")


def _seed_params(est):
    """Names of the ``random_state`` parameters of an estimator (nested ones in pipelines too)."""
    try:
        params = est.get_params(deep=True)
    except Exception:
        return {}
    return {k: v for k, v in params.items() if k == "random_state" or k.endswith("__random_state")}


def fresh_learner(learner, seed, reseed):
    """An unfitted copy of the learner; its ``random_state`` parameters are drawn from ``seed``.

    ``reseed=False`` keeps random states the user fixed (only None ones are set), so one fit of
    a learner with ``random_state=0`` is that learner's fit; with several refits every
    ``random_state`` is replaced so the refits differ.
    """
    if hasattr(learner, "fit"):
        from sklearn.base import clone

        try:
            est = clone(learner)
        except Exception:  # not an sklearn estimator: a deep copy is the next best fresh learner
            import copy

            est = copy.deepcopy(learner)
    else:
        est = learner()
    seeds = _seed_params(est)
    if seeds:
        value = int(seed.generate_state(1)[0])
        new = {k: value for k, v in seeds.items() if reseed or v is None}
        if new:
            est.set_params(**new)
    return est


def make_folds(n, cv, seed):
    """``[(train_idx, test_idx), ...]`` from an int (shuffled KFold) or a splitter with ``split``."""
    if hasattr(cv, "split"):
        folds = [(np.asarray(a), np.asarray(b)) for a, b in cv.split(np.zeros((n, 1)))]
    else:
        from sklearn.model_selection import KFold

        state = int(seed.generate_state(1)[0])
        folds = [(a, b) for a, b in KFold(n_splits=cv, shuffle=True, random_state=state).split(np.zeros((n, 1)))]
    if len(folds) < 2:
        raise ValidationError(f"'cv' must give at least 2 folds; got {len(folds)}.")
    return folds


@dataclass(frozen=True, eq=False, kw_only=True)
class RefitProblem:
    """Everything a refit task needs, the same object for every task of one call (keyword-only fields).

    Identity hashing (``eq=False``) and a ``__sizeof__`` that counts the data let joblib's
    Dask backend scatter the problem to the cluster once per call instead of pickling the
    data into every refit task (its auto-scatter keys on identity and size).

    Attributes
    ----------
    learner : estimator or zero-argument factory
    X_train, X_test : DataFrame
        With X_test None, ``folds`` index X_train (cross-validation).
    y_train, y_test : ndarray
        Raw targets (probability losses encode y with each fitted model's classes).
    loss : Loss
    as_frame : bool
        Fit and predict DataFrames (True) or numpy arrays.
    max_rows : int or None
    folds : list of (train_idx, test_idx) or None
    reseed : bool
        Replace fixed ``random_state`` parameters of the learner (several refits).
    leave_out : {"auto", "drop", "neutralise", "permute"}
        How a job's columns are left out (see the module docstring); "auto" neutralises for
        learners that select columns by name or position, and drops otherwise; "permute"
        permutes them with the job's ``permute_seed``. "auto" is resolved once, here, at
        construction (:func:`leave_out_mode`): the problem holds "drop", "neutralise" or
        "permute", and no refit task inspects the learner again.
    template : estimator, optional (construction only, not kept)
        An unfitted instance of the learner that the caller already has (from
        :func:`check_learner`): "auto" is resolved on it, so that a factory learner is not
        called once more for it. Without it a factory is called once here, when needed.
    """

    learner: Any
    X_train: Any
    y_train: np.ndarray
    X_test: Any
    y_test: np.ndarray | None
    loss: Any
    as_frame: bool
    max_rows: int | None
    folds: list | None = None
    reseed: bool = False
    leave_out: str = "auto"
    template: InitVar[Any] = None

    def __post_init__(self, template):
        if self.leave_out not in LEAVE_OUT_MODES:
            raise ValidationError(f"'leave_out' must be one of {', '.join(map(repr, LEAVE_OUT_MODES))}; "
                                  f"got {self.leave_out!r}.")
        if self.leave_out == "auto":
            # once per problem, not per refit task: a factory learner is called for its fits only
            mode = leave_out_mode(self.learner if template is None else template)
            object.__setattr__(self, "leave_out", mode)

    def __sizeof__(self):
        size = 0
        for part in (self.X_train, self.y_train, self.X_test, self.y_test):
            if isinstance(part, pd.DataFrame):
                size += int(part.memory_usage(deep=False).sum())
            elif part is not None:
                size += int(getattr(part, "nbytes", 0))
        return size + object.__sizeof__(self)

    def split(self, fold):
        if fold is None:
            return self.X_train, self.y_train, self.X_test, self.y_test
        tr, te = self.folds[fold]
        return (self.X_train.iloc[tr], self.y_train[tr], self.X_train.iloc[te], self.y_train[te])


@dataclass(frozen=True)
class RefitJob:
    """One refit.

    Attributes
    ----------
    label : str
        Named in errors: ``"feature 'x1'"``, ``"the full model"``, ``"null refit 3"``.
    drop : tuple of str
        Columns left out of training and test data.
    fold : int or None
    seed : SeedSequence
        The learner's random state (and the target permutation for ``permute_y``).
    permute_y : bool
        Fit on a permuted training target (PIMP's null refits).
    permute_seed : SeedSequence or None
        The permutation of the ``drop`` columns when the problem's ``leave_out`` is
        ``"permute"`` (one per feature, refit and fold, made by the caller).
    evaluate : callable or None
        ``evaluate(model, X_train, y_train, X_test, y_test, problem, seed) -> anything`` with
        the data the model was fitted on (y_train permuted for null refits); default: the test
        losses of :func:`evaluate_loss`. Must be picklable for process backends.
    """

    label: str
    drop: tuple = ()
    fold: int | None = None
    seed: Any = None
    permute_y: bool = False
    evaluate: Callable | None = None
    permute_seed: Any = None


def _data(X, as_frame):
    return X if as_frame else X.to_numpy()


def evaluate_loss(model, X_train, y_train, X_test, y_test, problem, seed=None):
    """Test losses of a fitted model.

    Returns
    -------
    pointwise : ndarray, shape (n_test,), or None for aggregate-only scores
    risk : float
        The aggregate loss (or score).
    """
    loss = problem.loss
    predictor = Predictor(model, output="proba" if loss.needs_proba else "predict",
                          as_frame=problem.as_frame, max_rows=problem.max_rows)
    y = predictor.encode_y(y_test) if loss.needs_proba else y_test
    pred = predictor.predict(X_test, context="the test data")
    if loss.pointwise is None:
        return None, loss.aggregate(y, pred)
    point = np.asarray(loss.pointwise(y, pred), dtype=float)
    return point, float(point.mean())


class _Failure:
    """A task's exception, carried back to the caller instead of being raised in the worker."""

    def __init__(self, label, exc):
        self.label = label
        self.text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        try:
            pickle.dumps(exc)
            self.exc = exc
        except Exception:
            self.exc = RuntimeError(f"{type(exc).__name__}: {exc}")


def refit_task(problem, job):
    """Fit a fresh learner for one job and evaluate it; a failure is returned, not raised."""
    try:
        X_tr, y_tr, X_te, y_te = problem.split(job.fold)
        if job.drop:
            mode = problem.leave_out  # resolved at the problem's construction
            if mode == "neutralise":
                X_tr, X_te = neutralise(X_tr, X_te, job.drop)
            elif mode == "permute":
                X_tr, X_te = permute_columns(X_tr, X_te, job.drop, job.permute_seed)
            else:
                X_tr = X_tr.drop(columns=list(job.drop))
                X_te = X_te.drop(columns=list(job.drop))
        if job.permute_y:
            # The permutation has its own stream, independent of the learner's seed.
            perm_seed, learner_seed = job.seed.spawn(2)
            y_tr = y_tr[np.random.default_rng(perm_seed).permutation(len(y_tr))]
        else:
            learner_seed = job.seed
        model = fresh_learner(problem.learner, learner_seed, problem.reseed)
        model.fit(_data(X_tr, problem.as_frame), y_tr)
        model = with_test_classes(model, y_te)  # a class the refit's rows lacked: probability 0, not a failure
        evaluate = job.evaluate or evaluate_loss
        return evaluate(model, X_tr, y_tr, X_te, y_te, problem, learner_seed)
    except Exception as exc:  # reported with the job's label by run_refits
        return _Failure(job.label, exc)


def run_refits(problem, jobs, *, n_jobs=None, progress=False, desc="refits"):
    """Run the jobs (one progress bar over all); results in job order.

    Raises
    ------
    ModelError
        If any refit failed: names the first failing job, chains the original exception.
    """
    out = parallel_map(refit_task, [(problem, job) for job in jobs], n_jobs=n_jobs, progress=progress,
                       desc=desc)
    for res in out:
        if isinstance(res, _Failure):
            exc = res.exc
            err = ModelError(f"The learner failed in the refit for {res.label}: {type(exc).__name__}: {exc}")
            err.worker_traceback = res.text
            raise err from exc
    return out


#: A fitted model offered as the full fit of refit calls (LOCO, LOFO, PIMP) on its own training data
#: (:func:`reuse_full_fit`).
_FULL_FIT = contextvars.ContextVar("imlkit_full_fit", default=None)


@contextlib.contextmanager
def reuse_full_fit(model, X_train, y_train):
    """Within the block, LOCO, LOFO and PIMP take ``model`` as their full fit when it is that fit (private).

    The full model of a call with one refit and no ``cv`` (PIMP's model on the real target) is
    ``fresh_learner(learner).fit(X_train, y_train)``; a report that fitted ``model`` from the same
    learner on the same rows already has it (100 classes: one of LOCO's ten 1,500-tree fits). It
    is used only when the call's
    ``X_train`` and ``y_train`` are these very objects, its learner has the model's type and
    parameters with every ``random_state`` fixed (so the refit would keep them), and the checked
    training data equal them: the refit would then repeat the model's fit. ``model=None`` offers
    nothing. Yields a dict whose ``"used"`` counts the calls that took it.
    """
    record = {"used": 0}
    token = _FULL_FIT.set(None if model is None else (model, X_train, y_train, record))
    try:
        yield record
    finally:
        _FULL_FIT.reset(token)


def full_fit_reusable(model, learner, n_refits=1, cv=None):
    """Whether ``model`` is what one refit of ``learner`` gives on the model's own training rows (same type,
    parameters, fixed random states), so :func:`reuse_full_fit` may offer it."""
    if model is None or n_refits != 1 or cv is not None or not hasattr(learner, "fit") \
            or type(model) is not type(learner):
        return False
    try:
        mine, theirs = model.get_params(deep=True), learner.get_params(deep=True)
    except Exception:  # not a scikit-learn estimator: nothing to compare
        return False
    if mine.keys() != theirs.keys() or any(v is None for v in _seed_params(learner).values()):
        return False
    # nested estimators compare by their repr (their own parameters), the rest by value
    return all(repr(mine[k]) == repr(theirs[k]) for k in mine)


def given_full_fit(template, X_train, y_train, Xtr, ytr, as_frame, n_refits=1, cv=None):
    """The model offered by :func:`reuse_full_fit` when it is this call's full fit, else None.

    ``X_train``, ``y_train``: the call's arguments (compared by identity with the offer's);
    ``Xtr``, ``ytr``: the same after the call's checks (compared by value); ``n_refits``, ``cv``:
    the call's (a full fit is reusable only as the one fit of one refit without folds).
    """
    offered = _FULL_FIT.get()
    if offered is None:
        return None
    model, X0, y0, record = offered
    if X_train is not X0 or y_train is not y0 or not full_fit_reusable(model, template, n_refits, cv):
        return None
    if as_frame:
        same_X = Xtr.equals(X0)
    else:
        a, b = Xtr.to_numpy(), np.asarray(X0)
        same_X = a.dtype == b.dtype and np.array_equal(a, b)
    if not same_X or not np.array_equal(np.asarray(ytr), np.asarray(y0)):
        return None
    record["used"] += 1
    return model
