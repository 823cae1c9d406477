"""Fitting in the report: the black-box model, its baselines, the train/test split and test performance.

(Named ``_fit`` rather than ``_models`` so that it is not mistaken for the :mod:`imlkit.models` package.)
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._dependence import MIN_ROWS_PER_REGRESSOR
from ..models._target import MAX_CLASSES
from ._blocks import fmt
from ._config import MODEL_NAMES
from ._data import ReportInputError

__all__ = ["make_model", "load_model_file", "split", "split_rows", "ordered_split", "rare_classes", "set_aside_rare",
           "model_columns", "performance", "baseline_models", "mae_split", "refit_learner", "guarded_pipeline",
           "guarded_inputs", "ridge_baseline_name", "RIDGE_BASELINE_ALPHA"]


def mae_split(res, other, deciding, rows_word="test rows", simpler_possible=True):
    """(note, model_favoured): the MAE (shown, never decisive for regression) when its 95% interval excludes 0 and the
    deciding RMSE's verdict does not say the same -- a tie on RMSE beside an MAE that favours the model is no sign that
    "the simpler model may explain the data as well" (Hitters, a user's random forest against the GLM: RMSE difference
    -50.63 [-111.2, 7.936], MAE -72.86 [-119.6, -26.38]). ("", False) otherwise. ``simpler_possible``: whether
    the tie could otherwise have been read so (:func:`~imlkit.report._shared.tie_favours_simpler`); when not (the
    model is itself a GLM), the note does not argue against a reading the report never gives."""
    from ._scores import beats, material_floor, worse
    from ._shared import decidable
    from ._shared import join_words as _join
    from ._shared import score_cell as _cell

    d = res["differences"].get(other, {}).get("MAE")
    if d is None or "MAE" in deciding or not np.isfinite(d[0]):
        return "", False
    # an immaterial MAE difference favours no one (the comparison's floor: _shared._comparison)
    name = next((k for k in res["scores"] if k != other and k not in res["differences"]), None)
    floor = material_floor(res, name, other, "MAE") if name is not None else 0.0
    won, lost = beats(d, "MAE", floor), worse(d, "MAE", floor)
    if not (won or lost) or decidable(res, ["MAE"], rows_word)[1]:
        return "", False
    sim = res.get("simultaneous_differences", res["differences"]).get(other, {})
    same = [m for m in deciding if m in sim and (beats(sim[m], m) if won else worse(sim[m], m))]
    if same:
        return "", False
    side = "the model" if won else f"the {other}"
    level = f"{int(100 * res['level'])}% interval"
    tie = not any(beats(sim[m], m) or worse(sim[m], m) for m in deciding if m in sim)
    tail = ("; so the tie on the deciding measure is no sign that the simpler model explains the data as well"
            if won and tie and simpler_possible else "")
    return (f" The MAE (shown, not decisive) favours {side}: difference {_cell(d)} ({level}, the model minus the "
            f"{other}): {side}'s typical error is smaller, which the deciding {_join(list(deciding))}, weighing large "
            f"misses more, does not show{tail}."), won and tie


#: The least number of rows the report scores or fits on: the training part and the test part (``--test-size``), and
#: each held-out fold of the GLM family's cross-validation (:func:`family_choice`). A score from fewer rows is decided
#: by one or two of them.
MIN_SPLIT_ROWS = 10


def _check_test_size(test_size, n):
    if not 0 < test_size < 1:
        raise ReportInputError(f"'--test-size' must be a number > 0 and < 1; got {test_size!r}.")
    n_test = int(np.ceil(test_size * n))
    if n_test < MIN_SPLIT_ROWS or n - n_test < MIN_SPLIT_ROWS:
        raise ReportInputError(f"'--test-size' {test_size} leaves {n - n_test} training and {n_test} test "
                               f"rows; both need at least {MIN_SPLIT_ROWS}.")
    return n_test


def rare_classes(y, test_size):
    """The classes a stratified split cannot place in both parts, rarest first (empty when it can).

    A class needs two rows (one per part); and each part needs at least one row per class, so
    while the smaller part has fewer rows than there are classes the rarest class goes too.

    Examples
    --------
    >>> rare_classes(pd.Series(["a"] * 20 + ["b"] * 20 + ["rare"]), 0.3)
    ['rare']
    """
    counts = pd.Series(y).astype(str).value_counts()
    counts = counts.iloc[np.lexsort((counts.index.to_numpy(), -counts.to_numpy()))]  # most frequent first
    out = [c for c, k in counts.items() if k < 2]
    counts = counts[counts >= 2]
    n = int(counts.sum())
    while len(counts) > 2:
        n_test = int(np.ceil(test_size * n))
        if min(n_test, n - n_test) >= len(counts):
            break
        out.append(counts.index[-1])
        n -= int(counts.iloc[-1])
        counts = counts.iloc[:-1]
    return out


def ordered_split(ds, test_size, *, where="the data"):
    """``(X_train, X_test, y_train, y_test, notes)``: the first rows of ``ds`` fit, the last ``ceil(test_size * n)``
    rows (in the order of the file; rows without a target were dropped before) score -- the rounding of the random
    split (scikit-learn's ``train_test_split``), so both hold out the same number of rows.

    No stratification: a classification target keeps whatever classes each part has. A class with no training row
    cannot be predicted by a model fitted on them; its test rows are set aside and a note names it (a forecast
    would have missed them, so the scores leave out that error). A class with no test row is named too (the test
    scores say nothing about it). Training rows of one class are refused.
    """
    n = len(ds.X)
    n_test = _check_test_size(test_size, n)
    k = n - n_test
    X_tr, X_te = ds.X.iloc[:k].reset_index(drop=True), ds.X.iloc[k:].reset_index(drop=True)
    y_tr, y_te = ds.y.iloc[:k].reset_index(drop=True), ds.y.iloc[k:].reset_index(drop=True)
    notes = []
    if ds.task != "classification":
        return X_tr, X_te, y_tr, y_te, notes
    train_classes = set(y_tr.astype(str))
    if len(train_classes) < 2:
        raise ReportInputError(f"The ordered split (--split ordered) of {where} leaves a single class "
                               f"({next(iter(train_classes))!r}) in its {k:,} training rows (the first rows); a "
                               f"classifier needs two or more. Use '--split random' or a larger training part "
                               f"(a smaller '--test-size').")
    new = ~y_te.astype(str).isin(train_classes).to_numpy()
    if new.any():
        if new.all():
            raise ReportInputError(f"The ordered split (--split ordered) of {where}: none of the {n_test:,} test rows "
                                   f"(the last rows) has a class of the {k:,} training rows.")
        counts = y_te[new].astype(str).value_counts()
        named = ", ".join(f"{c!r} ({m} row{'s' if m != 1 else ''})" for c, m in counts.iloc[:10].items())
        if len(counts) > 10:
            named += f" and {len(counts) - 10:,} other class(es)"
        notes.append(f"{int(new.sum()):,} of the {n_test:,} test rows (the last rows of {where}) are of class(es) no "
                     f"training row has, and were set aside: {named}. An ordered split cannot stratify: a class that "
                     f"first appears late is never trained on, and a forecast would have missed these rows, so the "
                     f"test scores leave out that error.")
        X_te, y_te = X_te.loc[~new].reset_index(drop=True), y_te.loc[~new].reset_index(drop=True)
    absent = sorted(train_classes - set(y_te.astype(str)))
    if absent:
        shown = ", ".join(repr(c) for c in absent[:10]) + (f" and {len(absent) - 10:,} more" if len(absent) > 10
                                                          else "")
        notes.append(f"Class(es) {shown} of the training rows have no test row (the last {n_test:,} rows of {where}): "
                     f"the test scores say nothing about predicting them.")
    return X_tr, X_te, y_tr, y_te, notes


def split_rows(X, y, task, test_size, seed):
    """A seeded train/test split of ``(X, y)``, stratified for classification (index reset).

    Rows of the classes :func:`rare_classes` names must have been set aside first; the split
    then always stratifies.
    """
    from sklearn.model_selection import train_test_split

    _check_test_size(test_size, len(X))
    strat = y if task == "classification" else None
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=test_size, random_state=seed, stratify=strat)
    return (X_tr.reset_index(drop=True), X_te.reset_index(drop=True),
            y_tr.reset_index(drop=True), y_te.reset_index(drop=True))


#: The set-aside note names at most this many classes (the rest are counted).
RARE_NAMED = 10


def set_aside_rare(X, y, task, test_size, where="the data"):
    """``(X, y, note)``: the rows of classes too rare to split stratified removed, and a sentence naming them."""
    if task != "classification":
        return X, y, None
    rare = rare_classes(y, test_size)
    if not rare:
        return X, y, None
    drop = y.astype(str).isin(rare).to_numpy()
    if drop.all() or pd.Series(y[~drop]).nunique() < 2:
        raise ReportInputError(f"Too few rows per class to split {where} into training and test rows: "
                               f"{pd.Series(y).value_counts().to_dict()}.{_numeric_classes_hint(y)}")
    counts = pd.Series(y[drop]).astype(str).value_counts()
    named = ", ".join(f"{c!r} ({k} row{'s' if k != 1 else ''})" for c, k in counts.iloc[:RARE_NAMED].items())
    if len(counts) > RARE_NAMED:  # 1,000 Zipf-sized classes: hundreds of names would bury the sentence
        most = int(counts.iloc[RARE_NAMED:].max())
        named += f" and {len(counts) - RARE_NAMED:,} other class(es) of at most {most} row(s) each"
    kept = int((~drop).sum())
    n_test = int(np.ceil(test_size * kept))
    if 0 < test_size < 1 and (n_test < MIN_SPLIT_ROWS or kept - n_test < MIN_SPLIT_ROWS):
        # linnerud (20 rows, Waist read as 9 classes): "'--test-size' 0.5 leaves 8 training and 9 test rows" did not
        # say that 3 rows had been set aside as rare classes, nor that the classes were a guess from whole numbers
        raise ReportInputError(
            f"'--test-size' {test_size} leaves {kept - n_test} training and {n_test} test rows; both need at least "
            f"{MIN_SPLIT_ROWS}. Of the {len(y):,} rows of {where}, {int(drop.sum()):,} row(s) of {len(counts)} "
            f"class(es) too rare to appear in both parts were set aside first ({named}), leaving "
            f"{kept:,}.{_numeric_classes_hint(y)}")
    note = (f"{int(drop.sum()):,} row(s) of {len(counts)} class(es) too rare to appear in both the training and the "
            f"test rows were set aside from {where}: {named}. A stratified split needs at least two rows of a "
            f"class (and a test part with a row of every class).")
    return X.loc[~drop].reset_index(drop=True), y.loc[~drop].reset_index(drop=True), note


def _numeric_classes_hint(y):
    """' The target Waist is numeric, with 9 distinct whole-number values, and is read as classes; ...' -- the
    hint to read it as numbers, for a numeric target split as classes (empty for a target that is not numeric)."""
    y = pd.Series(y)
    if pd.api.types.is_bool_dtype(y):
        return ""
    # the report's classes are text ("31", "46" for 31.0 and 46.0: _data.class_text): numbers when every one parses
    values = pd.to_numeric(y.dropna().astype(str), errors="coerce") if not pd.api.types.is_numeric_dtype(y) \
        else y.dropna().astype(float)
    if not len(values) or values.isna().any():
        return ""
    name = f" {y.name}" if isinstance(y.name, str) else ""
    whole = bool(np.all(values == np.round(values)))
    y = values
    kind = "whole-number values" if whole else "values"
    return (f" The target{name} is numeric, with {y.nunique():,} distinct {kind}, and is read as classes (imlkit "
            f"reads a numeric target with at most {MAX_CLASSES} distinct whole numbers as classes unless told): give "
            f"'--task regression' to read it as numbers, which sets no rows aside.")


def split(ds, test_size, seed):
    """The train/test split: the given test rows (``ds.n_train``) or a seeded split, stratified for classification.

    A seeded split first sets aside the rows of classes too rare to stratify
    (:func:`set_aside_rare`; ``ds`` is updated and a note added to ``ds.notes``).
    """
    if ds.n_train is not None:
        k = ds.n_train
        return (ds.X.iloc[:k].reset_index(drop=True), ds.X.iloc[k:].reset_index(drop=True),
                ds.y.iloc[:k].reset_index(drop=True), ds.y.iloc[k:].reset_index(drop=True))
    _check_test_size(test_size, len(ds.X))
    ds.X, ds.y, note = set_aside_rare(ds.X, ds.y, ds.task, test_size)
    if note:
        ds.notes.append(note)
    return split_rows(ds.X, ds.y, ds.task, test_size, seed)


def model_columns(model):
    """The input columns a fitted model needs, by name (None when it does not say).

    ``feature_names_in_`` (scikit-learn estimators and pipelines fitted on a DataFrame), else the
    columns a leading ``ColumnTransformer`` selects by name, else LightGBM's ``feature_name_``.
    """
    names = getattr(model, "feature_names_in_", None)
    if names is not None:
        return [str(c) for c in names]
    first = model.steps[0][1] if hasattr(model, "steps") and model.steps else model
    cols = []
    for t in getattr(first, "transformers_", getattr(first, "transformers", None)) or ():
        sel = t[2] if len(t) > 2 else None
        if isinstance(sel, str) and sel not in ("drop", "passthrough"):
            sel = [sel]
        if isinstance(sel, (list, tuple)) and all(isinstance(c, str) for c in sel):
            cols += [c for c in sel if c not in cols]
    if cols:
        return cols
    names = getattr(model, "feature_name_", None)
    return [str(c) for c in names] if names is not None else None


def _encoded(estimator, X, impute=True):
    """Put what an estimator that needs numbers requires in front of it.

    Missing numeric values are imputed with the training median plus a 0/1 "missing"
    indicator (:class:`imlkit._columns.MissingImputer`), and categorical columns are
    ordinal-encoded. Both choose their columns by dtype, not by name, so refits without a
    column (LOCO) work with a clone of the same pipeline. The imputer is always there (it is
    the identity on complete data): the test rows may have missing values the training rows
    did not.
    """
    from sklearn.compose import ColumnTransformer, make_column_selector
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OrdinalEncoder

    from .._columns import MissingImputer

    steps = [MissingImputer()] if impute else []
    if any(isinstance(X[c].dtype, pd.CategoricalDtype) for c in X.columns):
        enc = ColumnTransformer([("cat", OrdinalEncoder(handle_unknown="use_encoded_value", unknown_value=-1),
                                  make_column_selector(dtype_include="category"))],
                                remainder="passthrough", verbose_feature_names_out=False)
        steps.append(enc)
    return make_pipeline(*steps, estimator) if steps else estimator


def guarded_pipeline(estimator):
    """imlkit's dummy-coding models (GLM, GAM, RuleFit) behind imputation and the known-levels guard.

    Use it for every such model fitted on the report's training split (the model, the GLM
    baseline, section 6's GLM and GAM); the fitted model itself is ``pipeline[-1]``.

    :class:`imlkit._columns.KnownLevels` maps a level that had no training row (possible
    when a rare-but-kept level falls only into the test split) to the lumped level when it has
    training rows, else to the most frequent training level (``KnownLevels.remapped`` counts
    such rows, and section 6 says so), and drops categoricals with one training level;
    imlkit's GLM/GAM would fail on both.
    """
    from sklearn.pipeline import make_pipeline

    from .._columns import KnownLevels, MissingImputer

    return make_pipeline(MissingImputer(), KnownLevels(), estimator)


def guarded_inputs(pipeline):
    """The input columns a fitted :func:`guarded_pipeline` passes on to its model (what ``KnownLevels`` kept)."""
    guard = pipeline[-2]
    return [c for c in guard.feature_names_in_ if c not in set(guard.dropped_)]


def is_count(y):
    """Whether a regression target looks like counts: whole numbers >= 0 with more than two distinct values (the
    storage rule: a dollar amount rounded to whole dollars passes it too -- ISLP Credit's Balance)."""
    yv = np.asarray(y, dtype=float)
    return bool(len(yv) and (yv >= 0).all() and np.all(yv == np.round(yv)) and len(np.unique(yv)) > 2)


#: Folds of the cross-validation within the training rows that chooses a count target's GLM family
#: (:func:`family_choice`).
FAMILY_FOLDS = 5
#: At most this many training rows (a seeded subsample) enter that cross-validation.
FAMILY_ROWS = 4000
#: One model predicts a target better than another, in the family's cross-validation, when its RMSE over all the
#: held-out rows is lower by more than this share (the share of a score the report calls an immaterial gain,
#: ``_claims.NOISE_GAIN``; the bike data: 0.2-0.6% either way from seed to seed) and its RMSE is lower in a majority
#: of the folds (:func:`_predicts_better`). The gaussian family replaces the count family only when it predicts the
#: target better than the poisson GLM and better than a constant (the mean of each fit's rows); otherwise the family
#: whose predictions stay > 0, as a count's do, is kept. The pooled RMSE is the measure the report scores every
#: regression model on; the majority of the folds keeps one fold from deciding alone: the log link's exp() can
#: overflow on one held-out row (committee: 5.77e+19 against 627 pooled, while the poisson GLM was lower in 2 of the
#: 5 folds), and an identity link can extrapolate a leverage row as far. A test on the per-row differences was not
#: used: the poisson GLM's held-out errors are heavy-tailed where its log link extrapolates, and their standard error
#: left ISLP Credit's RMSE 270 against 103 "not distinguishable".
FAMILY_MARGIN = 0.02
#: A count family's Pearson dispersion above this is called far above 1: the target's spread about the fitted means has
#: more than twice the standard deviation the family allows.
FAR_DISPERSION = 4.0

# The cross-validation's size (rev8 r2 finding 4: committee's 10 training rows gave folds of 2 rows and fits of 8 rows
# for 6 coefficients, and "the gaussian GLM predicts it better than the poisson GLM, RMSE 627.2 against 5.77e+19",
# while each fit's training mean scored 115.9). Each held-out fold needs at least MIN_SPLIT_ROWS rows, the least the
# report scores a test part on (a fold is scored as a test part is, and its RMSE decides the fold's win): below
# FAMILY_FOLDS x MIN_SPLIT_ROWS = 50 training rows the families are not compared. Each fit needs at least
# MIN_ROWS_PER_REGRESSOR (5) rows per coefficient of the GLM's design, the report's rule for a linear fit on few rows
# (imlkit._dependence): with fewer, a held-out error mostly measures how the fit's own noise extrapolates (a linear
# fit's expected held-out squared error is about (1 + p/n) times the noise's for p coefficients on n rows: 1.2 at 5
# rows per coefficient, 1.75 at committee's 8 rows for 6).


@dataclass(frozen=True)
class FamilyChoice:
    """The GLM family of a regression target and why (see :func:`family_choice`).

    ``cv_rmse``: {family: RMSE of its held-out predictions over the folds} (empty when no cross-validation ran);
    ``gaussian_wins``: in how many of the folds the gaussian GLM's RMSE was the lower; ``constant_rmse``: the RMSE
    of a constant on the same folds (the mean of each fit's rows; NaN when no cross-validation ran);
    ``constant_wins``: {family: in how many folds that GLM's RMSE was lower than the constant's}; ``failed``:
    {family: why its cross-validation failed}; ``skipped``: why no cross-validation ran ("" when one did).
    """

    family: str
    count: bool
    target: str = "the target"
    cv_rmse: dict = field(default_factory=dict)
    gaussian_wins: int = 0
    folds: int = 0
    rows: int = 0
    train_rows: int = 0
    failed: dict = field(default_factory=dict)
    skipped: str = ""
    constant_rmse: float = float("nan")
    constant_wins: dict = field(default_factory=dict)

    def _beats_constant(self, fam):
        return _predicts_better(self.cv_rmse[fam], self.constant_rmse, self.constant_wins.get(fam, 0), self.folds)

    def _constant_words(self):
        """" A constant (the mean of each fit's rows) has cross-validated RMSE 9.155 on the same folds; the gaussian
        GLM beats it (56% lower ..., lower in 5 of the 5 folds), the poisson GLM does not beat it (higher ...)." --
        the yardstick both GLMs are held to ("" without it)."""
        c = self.constant_rmse
        if not np.isfinite(c):
            return ""
        head = f" A constant (the mean of each fit's rows) has cross-validated RMSE {fmt(c)} on the same folds; "
        if len(self.cv_rmse) == 2 and all(self._beats_constant(f) for f in self.cv_rmse):
            w = self.constant_wins
            return (f"{head}both GLMs beat it (the poisson GLM is lower in {w.get('poisson', 0)}, the gaussian in "
                    f"{w.get('gaussian', 0)} of the {self.folds} folds).")
        said = []
        for fam in ("gaussian", "poisson") if self.family == "gaussian" else ("poisson", "gaussian"):
            if fam not in self.cv_rmse:
                continue
            r, w = self.cv_rmse[fam], self.constant_wins.get(fam, 0)
            how = f"{100 * (1 - r / c):.0f}% lower" if r < c else "higher"
            how += f" over all the held-out rows, lower in {w} of the {self.folds} folds"
            said.append(f"the {fam} GLM {'beats it' if self._beats_constant(fam) else 'does not beat it'} ({how})")
        return f"{head}{', '.join(said)}."

    def words(self):
        """Why the GLM has this family, with the cross-validation's numbers."""
        t = self.target
        if not self.count:
            return (f"The GLM uses the gaussian family (identity link): {t} has values that are negative or not whole "
                    f"numbers, so a count family (poisson) does not apply.")
        if self.skipped:
            return (f"The GLM uses the poisson family (log link) because {t} is a whole number ≥ 0 (a count); it was "
                    f"not compared with the gaussian family: {self.skipped}.")
        rows = (f"{self.rows:,} training rows" if self.rows >= self.train_rows
                else f"{self.rows:,} of the {self.train_rows:,} training rows, a seeded subsample")
        how = f"{self.folds}-fold cross-validation within {rows} (the test rows take no part in the choice)"
        rule = (f"'better' needs an RMSE lower by more than {100 * FAMILY_MARGIN:g}% over all the held-out rows and "
                f"lower in a majority of the {self.folds} folds")
        const = self._constant_words()
        if self.failed:
            bad = "; ".join(f"the {k} GLM {v}" for k, v in self.failed.items())
            if self.family == "gaussian":
                return (f"The GLM uses the gaussian family (identity link), although {t} is a whole number ≥ 0: on "
                        f"{how}, {bad}.{const}")
            return (f"The GLM uses the poisson family (log link) because {t} is a whole number ≥ 0 (a count); the "
                    f"comparison with the gaussian family on {how} did not decide: {bad}.{const}")
        p, g = self.cv_rmse["poisson"], self.cv_rmse["gaussian"]
        share = 1.0 - g / p
        w = self.gaussian_wins
        folds = f"lower in {w} of the {self.folds} folds"
        if self.family == "gaussian":
            return (f"The GLM uses the gaussian family (identity link), although {t} is a whole number ≥ 0: on {how} "
                    f"the gaussian GLM predicts it better than the poisson GLM (log link), cross-validated RMSE "
                    f"{fmt(g)} against {fmt(p)}: {100 * share:.0f}% lower, more than the {100 * FAMILY_MARGIN:g}% that "
                    f"would matter, and {folds}.{const}")
        if not (self._beats_constant("poisson") or self._beats_constant("gaussian")):
            cw = self.constant_wins
            return (f"The GLM uses the poisson family (log link) because {t} is a whole number ≥ 0 (a count); on {how} "
                    f"neither GLM predicts it better than a constant, so the comparison of the two families does not "
                    f"say which suits {t}: cross-validated RMSE {fmt(p)} for the poisson GLM (log link) and {fmt(g)} "
                    f"for the gaussian GLM against {fmt(self.constant_rmse)} for the mean of each fit's rows (the "
                    f"GLMs lower than it in {cw.get('poisson', 0)} and {cw.get('gaussian', 0)} of the {self.folds} "
                    f"folds; {rule}).")
        if share > FAMILY_MARGIN and 2 * w <= self.folds:
            return (f"The GLM uses the poisson family (log link): {t} is a whole number ≥ 0 (a count), and on {how} "
                    f"the gaussian GLM's cross-validated RMSE, {fmt(g)}, is {100 * share:.0f}% lower than the poisson "
                    f"GLM's, {fmt(p)}, but lower in only {w} of the {self.folds} folds: the difference comes from a "
                    f"minority of the folds, not a sign that the gaussian GLM predicts it better ({rule}), so the "
                    f"count family, whose predictions stay > 0 as a count's do, is kept.{const}")
        if share > FAMILY_MARGIN:  # better than the poisson GLM, not than the constant
            return (f"The GLM uses the poisson family (log link): {t} is a whole number ≥ 0 (a count), and on {how} "
                    f"the gaussian GLM's cross-validated RMSE, {fmt(g)}, is {100 * share:.0f}% lower than the poisson "
                    f"GLM's, {fmt(p)} ({folds}), but the gaussian GLM does not predict it better than a constant "
                    f"({rule}), so the count family is kept.{const}")
        if share <= 0 and 2 * w > self.folds:  # the folds and the pooled RMSE disagree: neither is better
            return (f"The GLM uses the poisson family (log link): {t} is a whole number ≥ 0 (a count), and on {how} "
                    f"the gaussian GLM is lower in {w} of the {self.folds} folds but not over all the held-out rows, "
                    f"cross-validated RMSE {fmt(g)} against {fmt(p)} for the poisson GLM: neither predicts it better "
                    f"({rule}), so the count family, whose predictions stay > 0 as a count's do, is kept.{const}")
        if share <= 0:
            return (f"The GLM uses the poisson family (log link): {t} is a whole number ≥ 0 (a count), and on {how} "
                    f"the poisson GLM predicts it at least as well as the gaussian GLM: cross-validated RMSE {fmt(p)} "
                    f"against {fmt(g)} (the gaussian GLM {folds}).{const}")
        return (f"The GLM uses the poisson family (log link): {t} is a whole number ≥ 0 (a count), and on {how} the "
                f"gaussian GLM's cross-validated RMSE, {fmt(g)}, is within {100 * FAMILY_MARGIN:g}% of the poisson "
                f"GLM's, {fmt(p)} ({100 * share:.1f}% lower; {folds}): not a material difference, so the count "
                f"family, whose predictions stay > 0 as a count's do, is kept.{const}")


def _predicts_better(rmse, other_rmse, wins, folds):
    """Whether a model with cross-validated RMSE ``rmse``, lower than the other's in ``wins`` of ``folds`` folds,
    predicts better than the other (:data:`FAMILY_MARGIN`): lower by more than that share over all the held-out rows,
    and lower in a majority of the folds."""
    return bool(rmse < (1.0 - FAMILY_MARGIN) * other_rmse and 2 * wins > folds)


def dispersion_words(glm, name="GLM"):
    """"Its Pearson dispersion ... is 60.4, far above 1 ..." for a fitted count GLM whose Pearson dispersion on its
    training rows is above :data:`FAR_DISPERSION`; "" otherwise (or when it has none: a ridge fit)."""
    phi = float(getattr(glm, "pearson_dispersion_", np.nan))
    fam = getattr(glm, "family", "")
    if fam not in ("poisson",) or not np.isfinite(phi) or phi <= FAR_DISPERSION:
        return ""
    return (f" The {name}'s Pearson dispersion on its training rows is {phi:.3g}, far above the 1 the {fam} family "
            f"assumes: {'the target' if name == 'GLM' else 'its target'} varies about the fitted means with "
            f"{np.sqrt(phi):.3g} times the standard deviation a {fam} count would have, so the family's "
            f"variance is wrong for these data; its weights' intervals (section 6) are widened for it "
            f"(quasi-{fam}), while its predictions, which the comparison above scores, are those of the {fam} fit.")


def family_note(ctx, fitted):
    """Section 2's sentence on the GLM baseline's family (:meth:`FamilyChoice.words`) and, for a count family whose
    Pearson dispersion is far above 1, :func:`dispersion_words`; "" for a classifier or when no GLM was fitted.
    ``fitted``: section 2's fitted baselines (name -> pipeline); with ``--model glm`` the GLM is the model itself."""
    if ctx.task != "regression":
        return ""
    names = [k for k in fitted if k.startswith("GLM (")]
    if names:
        pipe = fitted[names[0]]
    else:
        from ._shared import model_is_glm

        if not model_is_glm(ctx):
            return ""
        pipe = ctx.model
    glm = pipe.steps[-1][1] if hasattr(pipe, "steps") else pipe
    words = family_choice(ctx.X_train, ctx.y_train, ctx.seed).words()
    return words + dispersion_words(glm)


#: Recent :func:`family_choice` results: (X digest, y digest, seed) -> FamilyChoice.
_CHOICES = {}
_MAX_CHOICES = 16


def _digest(obj):
    import hashlib

    if isinstance(obj, pd.DataFrame):
        data = pd.util.hash_pandas_object(obj, index=False).to_numpy()
        data = np.concatenate([data, pd.util.hash_array(np.asarray(obj.columns.astype(str), dtype=object))])
    else:
        data = np.ascontiguousarray(np.asarray(obj, dtype=float))
    return hashlib.blake2b(data.tobytes(), digest_size=16).hexdigest()


def family_choice(X, y, seed=0):
    """The GLM family of a regression target, chosen on the training rows ``(X, y)`` only: a :class:`FamilyChoice`.

    A target that is not a count (:func:`is_count`) gets the gaussian family. A count target's family is chosen by
    :data:`FAMILY_FOLDS`-fold cross-validation within the training rows (at most :data:`FAMILY_ROWS` of them, a
    subsample; the folds are scikit-learn's ``KFold(shuffle=True, random_state=seed)``): the poisson GLM (log link)
    and the gaussian GLM (identity link) are fitted on the same folds,
    on the design imlkit's GLM builds, and each predicts the held-out fold; so does a constant, the mean of each fit's
    rows. The measure is the one the report scores every regression model on, the squared error (RMSE): the
    family's deviances are not comparable with each other. The gaussian family is chosen only when it predicts the
    target better than both the poisson GLM and the constant: an RMSE lower by more than :data:`FAMILY_MARGIN` (a
    material difference) over all the held-out rows and lower in a majority of the folds, so one fold's extrapolation
    cannot decide; otherwise the count family, whose mean stays > 0, is kept. Nothing is compared when a held-out fold
    would have fewer than :data:`MIN_SPLIT_ROWS` rows or a fit fewer than ``MIN_ROWS_PER_REGRESSOR`` rows per
    coefficient of the GLM's design (``skipped`` says which). Why a cross-validation at all: the storage type
    of the target (whole numbers >= 0) does not say that its variance grows with its mean as a count's does (ISLP
    Credit's Balance, dollars: the poisson GLM's test RMSE 179.7 against 93.0 for the gaussian GLM, dispersion 60).

    Results are kept (the report asks for the same rows in section 2, section 6 and ``--model glm``).
    """
    y = pd.Series(np.asarray(y, dtype=float), name=getattr(y, "name", None))
    target = f"the target {y.name}" if isinstance(y.name, str) else "the target"
    key = (_digest(X), _digest(y), int(seed) if isinstance(seed, (int, np.integer)) else 0)
    if key in _CHOICES:
        return _CHOICES[key]
    if not is_count(y):
        choice = FamilyChoice("gaussian", False, target)
    else:
        try:
            choice = _cross_validated_family(X, y, key[2], target)
        except Exception as exc:  # noqa: BLE001 -- the baselines must not fail for the choice: the count rule, said
            choice = FamilyChoice("poisson", True, target, skipped=f"the cross-validation that compares them failed "
                                                                   f"({type(exc).__name__}: {exc})")
    _CHOICES.pop(key, None)
    _CHOICES[key] = choice
    while len(_CHOICES) > _MAX_CHOICES:
        _CHOICES.pop(next(iter(_CHOICES)))
    return choice


def _cross_validated_family(X, y, seed, target):
    """:func:`family_choice` for a count target: the cross-validation."""
    import warnings

    from sklearn.model_selection import KFold
    from sklearn.pipeline import make_pipeline

    from .._columns import KnownLevels, MissingImputer
    from ..models._design import fit_design

    n_all = len(y)
    rng = np.random.default_rng(np.random.SeedSequence([seed, 31337]))
    idx = np.sort(rng.choice(n_all, FAMILY_ROWS, replace=False)) if n_all > FAMILY_ROWS else np.arange(n_all)
    Xs, ys = X.iloc[idx].reset_index(drop=True), y.iloc[idx].to_numpy()
    n, k = len(ys), FAMILY_FOLDS
    small = []
    if n // k < MIN_SPLIT_ROWS:  # KFold's smallest held-out fold
        small.append(f"folds of {n // k}{'' if n % k == 0 else f' or {n // k + 1}'} rows, fewer than the "
                     f"{MIN_SPLIT_ROWS} a fold's RMSE needs")
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            frame = make_pipeline(MissingImputer(), KnownLevels()).fit_transform(Xs, ys)
            D = fit_design(frame).transform(frame)
        fit_rows, p = n - (n // k + (n % k > 0)), D.shape[1]  # the smallest fit: the largest fold held out
        if fit_rows < MIN_ROWS_PER_REGRESSOR * p:
            small.append(f"fits on as few as {fit_rows:,} rows for the GLM's {p:,} coefficients, fewer than "
                         f"{MIN_ROWS_PER_REGRESSOR} rows per coefficient")
    if small:
        return FamilyChoice("poisson", True, target, rows=n, folds=k, train_rows=n_all,
                            skipped=f"too few training rows to compare: a {k}-fold cross-validation within {n:,} "
                                    f"training rows has {' and '.join(small)}")
    folds = list(KFold(k, shuffle=True, random_state=seed).split(D))
    constant = np.empty(n)
    for train, test in folds:
        constant[test] = (ys[test] - ys[train].mean()) ** 2
    c_rmse = float(np.sqrt(constant.mean()))
    errors, failed = {}, {}
    for fam in ("poisson", "gaussian"):
        try:
            errors[fam] = _held_out_squared_errors(D, ys, fam, folds)
        except _FoldFailure as exc:
            failed[fam] = str(exc)

    def wins(a, b):
        return sum(int(a[test].mean() < b[test].mean()) for _, test in folds)

    rmse = {f: float(np.sqrt(e.mean())) for f, e in errors.items()}
    c_wins = {f: wins(e, constant) for f, e in errors.items()}
    common = dict(cv_rmse=rmse, folds=k, rows=n, train_rows=n_all, constant_rmse=c_rmse, constant_wins=c_wins)
    if failed:
        fam = "gaussian" if "poisson" in failed and "gaussian" not in failed else "poisson"
        return FamilyChoice(fam, True, target, failed=failed, **common)
    g_wins = wins(errors["gaussian"], errors["poisson"])
    better = (_predicts_better(rmse["gaussian"], rmse["poisson"], g_wins, k)
              and _predicts_better(rmse["gaussian"], c_rmse, c_wins["gaussian"], k))
    return FamilyChoice("gaussian" if better else "poisson", True, target, gaussian_wins=g_wins, **common)


class _FoldFailure(Exception):
    pass


def _held_out_squared_errors(D, y, family, folds):
    """Per row, the squared error of the ``family`` GLM (its default link) fitted on the other folds: (n,)."""
    import warnings

    from statsmodels.genmod.generalized_linear_model import GLM as StatsmodelsGLM

    from ..models._family import Family

    out = np.empty(len(y))
    for train, test in folds:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # a fold's near-singular design, IRLS steps: the failure is below
                res = StatsmodelsGLM(y[train], D[train], family=Family(family).sm).fit()
                with np.errstate(all="ignore"):
                    pred = np.asarray(res.predict(D[test]), dtype=float)
        except Exception as exc:  # noqa: BLE001 -- statsmodels raises assorted errors on divergence
            raise _FoldFailure(f"failed to fit a fold ({type(exc).__name__})") from None
        if not np.all(np.isfinite(pred)):
            raise _FoldFailure("predicted a held-out row as non-finite (its log link overflowed)")
        out[test] = (y[test] - pred) ** 2
    return out


def glm_family(task, y, X=None, seed=None):
    """The GLM family of the report's GLM baseline, section 6's GLM and GAM, and ``--model glm``/``gam``.

    Binomial for classification. For regression the family of :func:`family_choice` on the training rows ``(X, y)``
    with ``seed``'s folds, which needs ``X``: a family guessed from the target alone (its storage type) is the rule
    the cross-validation replaced.
    """
    if task == "classification":
        return "binomial"
    if X is None:
        raise ValueError("glm_family: a regression target's family is chosen on the training rows; pass them as X.")
    return family_choice(X, y, seed).family


#: Above this many classes the report's gradient boosting is regularised and shortened (:func:`many_class_gbm`).
MANY_CLASSES = 10


def many_class_gbm(k):
    """Gradient boosting's parameters for a target with ``k`` > ``MANY_CLASSES`` classes.

    scikit-learn's HistGradientBoostingClassifier grows one tree per class and iteration, and
    its Newton steps have no ridge term by default: a class with one or two training rows gets a
    near-zero hessian and leaf values that blow up (measured: 100 Zipf-sized classes on 2,100
    rows, test log loss 28 against 3.7 for the class frequencies, accuracy 0.21). With
    ``l2_regularization=1`` the steps stay bounded (log loss 2.7); 15 iterations at learning
    rate 0.2 keep the trees at 15 k instead of 100 k (the same test log loss, 2.5, and 7x less
    time in every fit, refit and prediction of the report).
    """
    return {"l2_regularization": 1.0, "max_iter": 15, "learning_rate": 0.2}


#: The ``--model`` names that fit a target of more than two classes: imlkit's GLM and GAM have univariate families
#: (binomial at most); gradient boosting, the random forest and RuleFit (one class against the rest) take any number.
MULTICLASS_MODELS = tuple(m for m in MODEL_NAMES if m not in ("glm", "gam"))


def make_model(name, task, X, y, seed):
    """An unfitted estimator for ``--model``: gbm, rf, glm, gam or rulefit.

    Gradient boosting takes missing values and categoricals natively (a target with more than
    ``MANY_CLASSES`` classes: :func:`many_class_gbm`); the others get a
    pipeline that imputes missing numeric values (median plus a missing indicator) and
    encodes categoricals (:func:`_encoded`, :func:`guarded_pipeline`), so no row is ever dropped
    for a missing feature value.
    """
    classification = task == "classification"
    if name == "gbm":
        from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor

        cls = HistGradientBoostingClassifier if classification else HistGradientBoostingRegressor
        k = pd.Series(y).nunique() if classification else 0
        if k > MANY_CLASSES:
            return cls(categorical_features="from_dtype", random_state=seed, **many_class_gbm(k))
        return cls(categorical_features="from_dtype", random_state=seed)
    if name == "rf":
        from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor

        cls = RandomForestClassifier if classification else RandomForestRegressor
        return _encoded(cls(n_estimators=100, min_samples_leaf=3, random_state=seed, n_jobs=1), X)
    from .. import models

    if name in ("glm", "gam") and classification and pd.Series(y).nunique() > 2:
        use = [f"'--model {m}'" for m in MULTICLASS_MODELS]
        raise ReportInputError(f"'--model {name}' supports regression and two-class targets; this target has "
                               f"{pd.Series(y).nunique()} classes. Use {', '.join(use[:-1])} or {use[-1]}.")
    if name == "glm":
        return guarded_pipeline(models.GLM(family=glm_family(task, y, X, seed)))
    if name == "gam":
        return guarded_pipeline(models.GAM(family=glm_family(task, y, X, seed)))
    if name == "rulefit":
        return guarded_pipeline(models.RuleFit(task="classification" if classification else "regression",
                                               random_state=seed))
    raise ReportInputError(f"'--model' must be one of {', '.join(repr(m) for m in MODEL_NAMES)}; got {name!r}.")


def load_model_file(path, trust):
    """Load a fitted model with joblib -- only when the user trusts the file."""
    if not trust:
        raise ReportInputError(f"Refusing to load {path!r}: unpickling a model file runs arbitrary code. "
                               f"Pass '--trust-model-file' if you trust its origin.")
    import os

    if not os.path.isfile(path):
        raise ReportInputError(f"Model file {path!r} does not exist.")
    import joblib

    try:
        model = joblib.load(path)
    except Exception as exc:  # any unpickling failure is bad input, reported in one line
        raise ReportInputError(f"Model file {path!r} could not be loaded: {type(exc).__name__}: {exc}") from None
    if not hasattr(model, "predict") and not callable(model):
        raise ReportInputError(f"Model file {path!r} holds a {type(model).__name__}, which has no predict method.")
    return model


def refit_learner(model):
    """An unfitted copy of the model for the refit methods (LOCO, PIMP), or None if it cannot be cloned."""
    try:
        from sklearn.base import clone

        return clone(model)
    except Exception:  # not a scikit-learn estimator: refit methods are reported as unavailable
        return None


def performance(model, X, y, task, labels=None):
    """Test-set metrics of one model (point values).

    Regression: RMSE, MAE, R². Classification: log loss, Brier score, ROC AUC, balanced
    accuracy, accuracy (definitions in ``_scores.scores``; NaN where the model gives no
    probabilities). Section 2 adds bootstrap intervals with ``_scores.score_intervals``.
    """
    from ._scores import class_labels, model_outputs, scores

    if task == "classification" and labels is None:
        labels = class_labels(model, y)
    out = model_outputs(model, X, task, labels)
    return {k: float(v[0]) for k, v in scores(out, y, task, np.ones((1, len(y))), labels).items()}


#: The constant classifier's name in the report: it predicts the training class frequencies as its probabilities
#: (its log loss is the prior's, finite) and the most frequent class as its label -- "majority class" alone read as a
#: classifier sure of one class, whose log loss would be infinite (rev7 r1 finding 9).
CLASS_FREQUENCIES = "class frequencies (majority class)"


class MeanBaseline:
    """Predicts the training mean (regression), or the training class frequencies as probabilities and the most
    frequent class as the label (classification)."""

    def fit(self, X, y):
        y = pd.Series(y)
        if y.dtype.kind in "biuf":
            self.mean_ = float(y.mean())
            self.classes_ = None
        else:
            freq = y.astype(str).value_counts(normalize=True).sort_index()
            self.classes_ = np.array(freq.index)
            self.proba_ = freq.to_numpy()
        return self

    def predict(self, X):
        if self.classes_ is None:
            return np.full(len(X), self.mean_)
        return np.full(len(X), self.classes_[np.argmax(self.proba_)], dtype=object)

    def predict_proba(self, X):
        return np.tile(self.proba_, (len(X), 1))


#: The penalty of the multiclass baseline (scikit-learn's ``C``, the inverse of the L2 penalty's strength, on
#: standardised features): the multinomial likelihood has no maximum when the classes are separable (iris' setosa),
#: which the penalty keeps finite.
MULTINOMIAL_C = 1.0
#: The multiclass baseline's name: an L2-penalised fit, unlike imlkit's unpenalised two-class "GLM (binomial)", and
#: named so (rev8 r2 finding 9: "GLM (multinomial logit)" read as the same kind of fit).
MULTINOMIAL_BASELINE = f"GLM (multinomial logit, L2-penalised, C = {MULTINOMIAL_C:g})"


#: The fixed ridge penalty (imlkit's GLM ``alpha`` on standardised columns) of section 2's GLM baseline when its
#: design has as many terms as training rows or more (the unpenalised fit is not defined).
RIDGE_BASELINE_ALPHA = 1.0


def ridge_baseline_name(name, alpha=RIDGE_BASELINE_ALPHA):
    """The name of a GLM baseline fitted with a ridge penalty: "GLM (gaussian)" -> "GLM (gaussian, ridge α = 1)".

    One rule for every place that prints the baseline's name (section 2's table and sentences, the reading, section
    7), so that a penalised fit is never read as the ordinary GLM."""
    if name.endswith(")"):
        return f"{name[:-1]}, ridge α = {alpha:g})"
    return f"{name} (ridge α = {alpha:g})"


def baseline_models(task, X, y, seed=0):
    """Unfitted baselines: the mean / the class frequencies (:data:`CLASS_FREQUENCIES`) and a GLM.

    Two-class and regression targets get imlkit's GLM, unpenalised (its family from :func:`family_choice` on these
    rows, with ``seed``'s folds); a multiclass target gets scikit-learn's multinomial logistic regression
    (:data:`MULTINOMIAL_BASELINE`: a GLM with the multinomial family, L2-penalised with ``C`` =
    :data:`MULTINOMIAL_C` on standardised features), because imlkit's GLM families are univariate. Both impute
    missing numeric values (median plus indicator) in their pipeline instead of dropping rows.
    """
    out = {("mean" if task == "regression" else CLASS_FREQUENCIES): MeanBaseline()}
    if task == "classification" and pd.Series(y).nunique() > 2:
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        from .._columns import KnownLevels, MissingImputer

        out[MULTINOMIAL_BASELINE] = make_pipeline(MissingImputer(), KnownLevels(), _onehot(X), StandardScaler(),
                                                  _text_label_logit()(C=MULTINOMIAL_C, max_iter=2000))
    else:
        from .. import models

        fam = glm_family(task, y, X, seed)
        out[f"GLM ({fam})"] = guarded_pipeline(models.GLM(family=fam))
    return out


def _text_label_logit():
    """A LogisticRegression fitted on the labels as text, the form the scores compare them in
    (:func:`~imlkit.report._scores.class_labels`). A target the report holds as Python objects -- a model file
    fitted on the numbers 0.0-6.0 makes the report keep the labels as those objects -- is of "unknown" type to
    scikit-learn, and the multinomial baseline failed on it ("Unknown label type: unknown"; anes96's PID with a
    user's RandomForest). The class is built on first use (scikit-learn loads lazily) and kept as this module's
    ``TextLabelLogit``, so it pickles."""
    cls = globals().get("TextLabelLogit")
    if cls is None:
        from sklearn.linear_model import LogisticRegression

        class TextLabelLogit(LogisticRegression):
            def fit(self, X, y, sample_weight=None):
                return super().fit(X, np.asarray(y).astype(str), sample_weight=sample_weight)

        TextLabelLogit.__qualname__ = "TextLabelLogit"
        cls = globals()["TextLabelLogit"] = TextLabelLogit
    return cls


def __getattr__(name):
    if name == "TextLabelLogit":  # unpickling in a fresh process
        return _text_label_logit()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _onehot(X):
    """One-hot coding of the categorical columns (chosen by dtype); levels unseen in fit give zeros."""
    from sklearn.compose import ColumnTransformer, make_column_selector
    from sklearn.preprocessing import OneHotEncoder

    return ColumnTransformer([("cat", OneHotEncoder(handle_unknown="ignore", sparse_output=False),
                               make_column_selector(dtype_include="category"))],
                             remainder="passthrough", verbose_feature_names_out=False)


#: A binomial GLM is called separated (its weights grow without bound) when fewer than this share of its
#: fitted probabilities on its training rows lie strictly between SEPARATED_EPS and 1 - SEPARATED_EPS.
SEPARATED_SHARE = 0.01
SEPARATED_EPS = 1e-6


def separated(glm, X):
    """Whether a fitted two-class GLM ``glm`` separates its training rows ``X`` (n, p): fewer than
    ``SEPARATED_SHARE`` of its probabilities are inside (``SEPARATED_EPS``, 1 - ``SEPARATED_EPS``).
    Then the likelihood has no maximum (complete or quasi-complete separation; Albert & Anderson
    1984): the weights diverge and the fit stops wherever the iterations end."""
    proba = np.asarray(glm.predict_proba(X))
    if proba.ndim != 2 or proba.shape[1] != 2:
        return False
    inside = float(np.mean((proba[:, 1] > SEPARATED_EPS) & (proba[:, 1] < 1 - SEPARATED_EPS)))
    return inside < SEPARATED_SHARE
