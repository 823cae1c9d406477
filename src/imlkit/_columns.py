"""Column preparation: turn any table into features every model and method can take, and say how.

:func:`prepare_columns` looks at each column once (its kind comes from :mod:`imlkit._dtypes`)
and decides what to do with it. The decisions are data -- a table ``column, kind, action,
reason`` that the report prints in its data section -- so nothing is dropped or changed
silently:

=============  ==============================================================================
kind           what is done
=============  ==============================================================================
numeric        used as is; missing values stay missing (the models handle or impute them)
boolean        used as 0/1
categorical    a ``category`` column whose levels are fixed here: missing values become the
               level ``"(missing)"``; levels with fewer than ``min_count`` rows, and beyond the
               ``max_levels - 1`` most frequent ones, are lumped into one level named
               ``"(rare levels)"`` (``"(other levels)"`` when frequent levels beyond the
               ``max_levels - 1`` are among them); a data level of that name makes it longer
               (``"(rare levels)_"``), so the lump never shares a name with a level of the data
date/time      parsed and replaced by the numeric parts that vary (year, month, weekday when
               the dates are daily or finer, hour), or by days since the first date when none
               of those vary
ID-like        set aside: text that is (mostly) unique per row, integers unique per row that
               are a row number (consecutive from 0 or 1) or named like an identifier
constant       set aside: one value in every row
mostly missing more than ``max_missing`` of the values missing: replaced by a 0/1 indicator
               "is missing"
=============  ==============================================================================

Why the level set is decided on the whole table, before any train/test split: every split
of the prepared frame then carries the same ``category`` dtype, so a level that happens to
fall only into the test rows is still a known category (never an error at prediction time),
and a level too rare to be learned is already in the lumped level everywhere. The decision uses
only the feature's own counts, never the target, so it leaks nothing about the outcome.
:meth:`PreparedColumns.transform` applies the same decisions to new data; a level it has
never seen joins the lumped level (or becomes missing when the column has none).

A model fitted elsewhere must get its columns as it was fitted on them: ``as_given`` columns
skip every decision above that would change their values (numbers and dates stay as they are,
text becomes a ``category`` whose levels are its own values, missing stays missing), and
``keep`` columns are never set aside. The decisions table says what preparation would have done.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from . import _dtypes
from ._validation import ValidationError, check_float, check_int

__all__ = ["prepare_columns", "PreparedColumns", "complete_rows", "MissingImputer", "KnownLevels",
           "OTHER", "MISSING_LEVEL", "DECISION_COLUMNS", "integer_codes", "CODE_MIN_VALUES", "CODE_MAX_VALUES"]

#: The lumped level of a categorical whose lumped levels are all rare (fewer than ``min_count`` rows); the data's
#: own level "other" or "Other" is a level like any other (BrainCancer's diagnosis has "Other", and its one missing
#: value, lumped as "other", stood beside it as a second rule in OneR's table).
OTHER = "(rare levels)"
#: The lumped level when frequent levels beyond the ``max_levels - 1`` most frequent are among the lumped ones.
OTHER_LEVELS = "(other levels)"
#: A lumped level: one of the two names, lengthened by "_" when the data have a level of that name.
_LUMP = re.compile(r"^\((rare|other) levels\)_*$")
MISSING_LEVEL = "(missing)"
DECISION_COLUMNS = ["column", "kind", "action", "reason"]
#: Names that mark an identifier column (``id``, ``customer_id``, ``ID``, ``key``, ``uuid``, ...).
_ID_NAME = re.compile(r"(^|[^a-z])(id|ids|key|uuid|guid|idx|index)($|[^a-z])|^unnamed: ?\d+$",
                      re.IGNORECASE)
_ID_CAMEL = re.compile(r"[a-z0-9](Id|ID|Key)s?$")  # patientId, customerID
_WEEKDAYS = "0 = Monday"


@dataclass(frozen=True)
class _Step:
    """How one input column becomes zero or more output columns."""

    column: str
    kind: str
    action: str
    reason: str
    how: str  # "keep", "number", "bool", "dates", "levels", "indicator", "drop"
    outputs: tuple = ()
    info: dict = field(default_factory=dict)


@dataclass(frozen=True)
class PreparedColumns:
    """The result of :func:`prepare_columns`.

    Attributes
    ----------
    X : DataFrame, shape (n, q)
        The prepared features (rows with a missing target removed, index reset).
    y : Series of shape (n,) or None
        The target column, unchanged (None when no target was given).
    decisions : DataFrame
        One row per input column: ``column, kind, action, reason``.
    n_rows : int
        Rows in the input table.
    dropped_target_rows : int
        Rows removed because the target was missing.
    missing : Series
        Missing cells per input column (over all ``n_rows`` rows).
    target : str or None
    """

    X: pd.DataFrame
    y: pd.Series | None
    decisions: pd.DataFrame
    n_rows: int
    dropped_target_rows: int
    missing: pd.Series
    target: str | None = None
    steps: tuple = ()

    @property
    def frame(self):
        """``X`` with the target as its last column (``X`` alone without a target)."""
        if self.y is None:
            return self.X
        return pd.concat([self.X, self.y], axis=1)

    @property
    def set_aside(self):
        """The input columns that were left out."""
        return [s.column for s in self.steps if s.how == "drop"]

    def transform(self, frame):
        """Apply the same decisions to new data with the same input columns.

        Levels never seen by :func:`prepare_columns` join the column's lumped level
        (``"(rare levels)"``; missing when the column has none); dates outside the seen range keep their parts.

        Parameters
        ----------
        frame : DataFrame
            Must contain every feature column that was prepared (the target is not needed).

        Returns
        -------
        DataFrame with the columns of ``X``
        """
        if not isinstance(frame, pd.DataFrame):
            raise TypeError(f"'frame' must be a pandas DataFrame; got {type(frame).__name__}.")
        frame = frame.copy()
        frame.columns = [str(c) for c in frame.columns]
        needed = [s.column for s in self.steps if s.how != "drop"]
        missing = [c for c in needed if c not in frame.columns]
        if missing:
            raise ValidationError(f"Column(s) {missing} of the prepared data are not in 'frame'; "
                                  f"its columns are {list(frame.columns)}.")
        out = {}
        for s in self.steps:
            if s.how != "drop":
                out.update(_apply(s, frame[s.column].reset_index(drop=True)))
        return pd.DataFrame(out, index=pd.RangeIndex(len(frame)))[list(self.X.columns)]


def prepare_columns(frame, *, target=None, features=None, max_levels=30, min_count=5, max_missing=0.5, keep=(),
                    as_given=(), given_because="the fitted model was fitted on it"):
    """Decide, once, what each column is and how a model should see it.

    Parameters
    ----------
    frame : DataFrame, shape (n, p)
        The table as read. Column names are turned into text.
    target : str, optional
        The column to predict: rows where it is missing are removed (and counted); the column
        itself is returned unchanged as ``y``.
    features : sequence of str, optional
        The columns to prepare (default: every column but the target).
    max_levels : int >= 2
        Most levels a categorical keeps (the lumped level included). 30 keeps every model usable
        (gradient boosting stops at 255) and the dummy-coded GLM/GAM small.
    min_count : int >= 1
        Levels with fewer rows are lumped into one level, ``"(rare levels)"``: no model can learn
        them, and they may land in only one side of a train/test split.
    max_missing : float in [0, 1]
        A column with a larger share of missing values is replaced by a 0/1 indicator "is
        missing": imputation would invent most of its values, and methods that need complete
        rows (ALE, REPID) would lose that share of the rows.

    Returns
    -------
    PreparedColumns
        ``.X`` (prepared features), ``.y``, ``.decisions`` (column, kind, action, reason),
        ``.transform(new_frame)``.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"day": ["2011-01-0%d" % (i % 7 + 1) for i in range(30)],
    ...                    "id": range(30), "x": [1.5, 2.5, 3.5] * 10, "y": range(30)})
    >>> prep = prepare_columns(df, target="y")
    >>> list(prep.X.columns)
    ['day_weekday', 'x']
    >>> prep.decisions[["column", "kind"]].to_numpy().tolist()
    [['day', 'date/time'], ['id', 'ID-like'], ['x', 'numeric'], ['y', 'target']]
    """
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"'frame' must be a pandas DataFrame; got {type(frame).__name__}.")
    max_levels = check_int("max_levels", max_levels, min_value=2)
    min_count = check_int("min_count", min_count, min_value=1)
    max_missing = check_float("max_missing", max_missing, low=0, high=1)
    frame = frame.copy()
    frame.columns = [str(c) for c in frame.columns]
    if frame.columns.duplicated().any():
        dup = sorted(set(frame.columns[frame.columns.duplicated()]))
        raise ValidationError(f"'frame' has duplicated column names: {dup}.")
    if target is not None and target not in frame.columns:
        raise ValidationError(f"'target' {target!r} is not a column of 'frame'; the columns are {list(frame.columns)}.")
    if features is None:
        features = [c for c in frame.columns if c != target]
    else:
        features = [str(f) for f in features]
        unknown = [f for f in features if f not in frame.columns]
        if unknown:
            raise ValidationError(f"'features' {unknown} are not columns of 'frame'; "
                                  f"the columns are {list(frame.columns)}.")
    kept_cols, as_given = {str(c) for c in keep}, {str(c) for c in as_given}
    n_rows = len(frame)
    missing = frame[features + ([target] if target is not None else [])].isna().sum()
    dropped = 0
    if target is not None:
        keep = frame[target].notna()
        dropped = int((~keep).sum())
        frame = frame[keep].reset_index(drop=True)
    else:
        frame = frame.reset_index(drop=True)
    taken = set(frame.columns)
    steps, out = [], {}
    for c in features:
        step = _decide(frame[c], c, taken, max_levels=max_levels, min_count=min_count, max_missing=max_missing)
        if c in as_given or (c in kept_cols and step.how == "drop"):
            step = _given(frame[c], c, step, why=given_because if c in as_given else "it was asked for",
                          max_levels=max_levels)
        taken.update(step.outputs)
        steps.append(step)
        if step.how != "drop":
            out.update(_apply(step, frame[c]))
    X = pd.DataFrame(out, index=pd.RangeIndex(len(frame)))
    rows = [[s.column, s.kind, s.action, s.reason] for s in steps]
    y = None
    if target is not None:
        y = frame[target]
        action = "predicted"
        if dropped:
            action += f"; {dropped:,} row(s) with a missing target removed"
        rows.append([target, "target", action, "the column to predict"])
    decisions = pd.DataFrame(rows, columns=DECISION_COLUMNS)
    return PreparedColumns(X=X, y=y, decisions=decisions, n_rows=n_rows, dropped_target_rows=dropped,
                           missing=missing, target=target, steps=tuple(steps))


# --------------------------------------------------------------------------- deciding
def _id_name(name):
    return bool(_ID_NAME.search(name) or _ID_CAMEL.search(name))


def _drop(name, kind, reason, action="set aside"):
    return _Step(name, kind, action, reason, "drop")


def _fresh(name, taken):
    while name in taken:
        name += "_"
    return name


def _show(v):
    text = str(v)
    return repr(text if len(text) <= 30 else text[:27] + "...")


def _decide(s, name, taken, *, max_levels, min_count, max_missing):
    n = len(s)
    n_miss = int(s.isna().sum())
    values = s.dropna()
    if n == 0 or n_miss == n:
        return _drop(name, "empty", "every value is missing")
    kind = _dtypes.column_kind(s)
    info = {}
    if kind == "categorical" and not isinstance(s.dtype, pd.CategoricalDtype):
        # Numbers stored as text (often with a marker such as "?" or "NA " for missing values).
        as_num = pd.to_numeric(values.astype(str).str.strip(), errors="coerce")
        if as_num.notna().mean() >= 0.95:
            bad = values[as_num.isna()]
            info = {"not_numbers": len(bad), "example": bad.iloc[0] if len(bad) else None}
            kind = "numeric-text"
    share = n_miss / n
    if share > max_missing:
        out = _fresh(f"{name}_missing", taken)
        return _Step(name, "mostly missing", f"replaced by a 0/1 indicator {out!r} (1 = missing)",
                     f"{share:.0%} of the values are missing: imputing would invent most of them and complete-row "
                     f"methods (ALE, REPID) would lose those rows; whether it is missing is kept",
                     "indicator", (out,))
    miss_note = (f"; its {n_miss:,} missing value(s) ({share:.1%}) are kept: gradient boosting takes them, "
                 f"the other models impute the median plus an indicator") if n_miss else ""
    if kind in ("numeric", "numeric-text"):
        num = values if kind == "numeric" else pd.to_numeric(values.astype(str).str.strip(), errors="coerce")
        if pd.api.types.is_timedelta64_dtype(num.dtype):
            num = num.dt.total_seconds()
        distinct = num.dropna().unique()
        if len(distinct) < 2:
            only = _show(distinct[0]) if len(distinct) else "none"
            return _drop(name, "constant", f"a single value ({only}) in every row" +
                         (" that has one" if n_miss else "") + ": it cannot explain anything")
        if pd.api.types.is_integer_dtype(s.dtype) and n_miss == 0 and len(distinct) == n:
            lo = int(num.min())
            if lo in (0, 1) and int(num.max()) - lo == n - 1:
                return _drop(name, "ID-like", f"integers {lo}..{lo + n - 1}, one per row: a row number, not a "
                                               f"property of the row")
            if _id_name(name):
                return _drop(name, "ID-like", "integers unique per row, named like an identifier")
        if kind == "numeric-text":
            bad = info["not_numbers"]
            extra = (f"; {bad:,} value(s) that are not numbers (e.g. {_show(info['example'])}) are treated as "
                     f"missing") if bad else ""
            return _Step(name, "numeric", "read as numbers" + extra + miss_note,
                         "text that holds numbers", "number", (name,))
        how = "number" if pd.api.types.is_timedelta64_dtype(s.dtype) else "keep"
        action = "used as is"
        n_inf = int(np.isinf(num.to_numpy(dtype=float, na_value=np.nan)).sum())
        if n_inf:
            action += f"; {n_inf:,} infinite value(s) treated as missing"
        return _Step(name, "numeric", action + miss_note, f"{s.dtype} values, {len(distinct):,} distinct",
                     how, (name,))
    if kind == "boolean":
        flags = _as_bool(values)
        if flags.nunique() < 2:
            return _drop(name, "constant", f"always {bool(flags.iloc[0])}: it cannot explain anything")
        return _Step(name, "boolean", "used as 0/1 (1 = true)" + miss_note, "true/false values", "bool", (name,))
    if kind == "datetime":
        return _decide_dates(s, name, taken, n_miss)
    return _decide_levels(s, name, n, max_levels=max_levels, min_count=min_count)


def _changes_values(step, s):
    """Whether a step changes what a model fitted on the column as given would see."""
    if step.how == "keep":
        return False
    if step.how == "bool":
        return not pd.api.types.is_bool_dtype(s.dtype)
    if step.how == "levels":
        values = s.dropna()
        same = set(step.info["levels"]) == set(values.astype(str).unique())
        return not (same and not s.isna().any() and values.map(lambda v: isinstance(v, str)).all())
    return True


def _given(s, name, step, *, why, max_levels=30):
    """A column passed on as given instead of ``step`` (what preparation decided), saying ``why``."""
    if not _changes_values(step, s):
        return step
    if step.how == "drop":
        instead = "; preparation would set it aside"
    else:
        instead = f"; prepared, it would be {step.action}"
    own = "; imlkit's own models (baselines, section 6) leave it out"
    if pd.api.types.is_datetime64_any_dtype(s.dtype):
        return _Step(name, step.kind, f"used as given: {why}" + instead + own + " (a date)", step.reason, "asis",
                     (name,))
    if pd.api.types.is_numeric_dtype(s.dtype) or pd.api.types.is_timedelta64_dtype(s.dtype):
        return _Step(name, step.kind, f"used as given: {why}" + instead, step.reason, "asis", (name,))
    try:
        levels = tuple(sorted(s.dropna().unique()))
    except TypeError:  # mixed value types: first-seen order
        levels = tuple(pd.unique(s.dropna()))
    if len(levels) > max_levels:  # KnownLevels (in front of imlkit's own models) drops it
        instead += own + f" (more than {max_levels} levels)"
    elif s.isna().any():  # MissingImputer (in front of imlkit's own models) fills it
        instead += f"; for imlkit's own models its missing values are the level {MISSING_LEVEL!r}"
    return _Step(name, step.kind, f"used as given ({len(levels):,} levels, each value its own): {why}" + instead,
                 step.reason, "given_levels", (name,), {"levels": levels})


def _as_bool(values):
    """True/False (bools or their text in any case) as a bool Series; str(True) is "True"."""
    return values.astype(str).str.strip().str.lower() == "true"


def _decide_dates(s, name, taken, n_miss):
    parsed = _dtypes.parse_dates(s)
    bad = int(parsed.isna().sum()) - n_miss
    ok = parsed.dropna()
    if ok.nunique() < 2:
        return _drop(name, "constant", "the same date/time in every row: it cannot explain anything")
    parts = []
    if ok.dt.year.nunique() > 1:
        parts.append("year")
    if ok.dt.month.nunique() > 1:
        parts.append("month")
    days = ok.dt.normalize().drop_duplicates().sort_values()
    # A weekday effect needs dates on consecutive days; yearly or monthly dates only alias it.
    if len(days) > 1 and days.diff().min() <= pd.Timedelta(days=1) and ok.dt.day_of_week.nunique() > 1:
        parts.append("weekday")
    if ok.dt.hour.nunique() > 1:
        parts.append("hour")
    origin = ok.min()
    if not parts:
        parts = ["days"]
    outputs = tuple(_fresh(f"{name}_{p}", taken) for p in parts)
    labels = {"year": "year", "month": "month (1-12)", "weekday": f"weekday ({_WEEKDAYS})", "hour": "hour (0-23)",
              "days": f"days since the first date ({origin:%Y-%m-%d})"}
    action = "replaced by " + ", ".join(f"{o!r} = {labels[p]}" for o, p in zip(outputs, parts))
    if bad:
        action += f"; {bad:,} value(s) that are not dates are treated as missing"
    if n_miss or bad:
        action += f"; {n_miss + bad:,} missing date(s) give missing parts"
    span = f"{ok.min():%Y-%m-%d} to {ok.max():%Y-%m-%d}"
    reason = (f"dates from {span} ({ok.nunique():,} distinct): a model cannot use a date itself; its varying "
              f"parts carry trend and season")
    return _Step(name, "date/time", action, reason, "dates", outputs,
                 {"parts": tuple(parts), "origin": origin})


def _decide_levels(s, name, n, *, max_levels, min_count):
    text = _as_text(s)
    counts = text.value_counts()
    n_values = int(s.notna().sum())
    if len(counts) < 2:
        return _drop(name, "constant", f"a single level ({_show(counts.index[0])}) in every row: it cannot "
                                       f"explain anything")
    distinct = int(s.dropna().astype(str).nunique())
    if distinct == n_values and n_values >= 2:
        return _drop(name, "ID-like", f"text unique per row ({distinct:,} distinct values): an identifier, not a "
                                      f"property shared by rows")
    if distinct > max_levels and distinct > 0.5 * n_values:
        return _drop(name, "ID-like", f"{distinct:,} distinct values in {n_values:,} rows: an identifier or free "
                                      f"text, whose levels are too rare to learn from")
    if _id_name(name) and distinct > max_levels:
        return _drop(name, "ID-like", f"named like an identifier, with {distinct:,} distinct values")
    # Frequent first; ties broken by the level's text so the decision does not depend on row order.
    order = sorted(counts.index, key=lambda lv: (-counts[lv], str(lv)))
    kept = [lv for lv in order if counts[lv] >= min_count]
    if not (len(kept) == len(counts) and len(kept) <= max_levels):
        kept = kept[:max_levels - 1]  # room for the lumped level
    lumped = [lv for lv in counts.index if lv not in kept]
    rare = [lv for lv in lumped if counts[lv] < min_count]
    beyond = [lv for lv in lumped if counts[lv] >= min_count]
    lump = lump_name(counts.index, beyond=bool(beyond)) if lumped else None
    levels = _level_order(s, kept) + ([lump] if lumped else [])
    if len(levels) < 2:
        return _drop(name, "ID-like" if counts.max() < min_count else "constant",
                     f"{len(counts):,} levels, every one but at most one rarer than {min_count} rows: nothing left "
                     f"to learn from once rare levels are lumped")
    action = f"categorical with {len(levels)} levels"
    if lumped:
        n_lumped = int(counts[lumped].sum())
        bits = []
        if rare:
            bits.append(f"{len(rare):,} level(s) with fewer than {min_count} rows")
        if beyond:
            bits.append(f"{len(beyond):,} less frequent level(s) beyond the {max_levels - 1} most frequent")
        which = ""
        if len(lumped) <= MAX_LUMPED_SHOWN:  # which levels, so the lumped level's rows can be told apart
            shown = sorted(lumped, key=lambda lv: (-counts[lv], str(lv)))
            which = ": " + ", ".join(f"{_show(lv)} ({int(counts[lv]):,})" for lv in shown)
        action += ("; " + " and ".join(bits) + f" ({n_lumped:,} row{'s' if n_lumped != 1 else ''}{which}) lumped "
                   f"into {lump!r}")
    if MISSING_LEVEL in kept:
        action += f"; missing values are the level {MISSING_LEVEL!r}"
    reason = f"{len(counts):,} distinct values"
    if s.isna().any():
        reason += " (missing counted as a level)"
    if lumped:
        reason += (f"; rare levels cannot be learned and could fall only into the test rows; at most {max_levels} "
                   f"levels fit every model")
    return _Step(name, "categorical", action, reason, "levels", (name,), {"levels": tuple(levels), "lump": lump})


#: Lumped levels listed by name (with their rows) in the decisions table; more are counted.
MAX_LUMPED_SHOWN = 5


def lump_name(levels, beyond=False):
    """The name of the level that lumps a column's rare levels: ``"(rare levels)"``, or ``"(other levels)"`` when
    ``beyond`` (frequent levels beyond the ``max_levels - 1`` most frequent are lumped too), made longer by ``"_"``
    than every level of ``levels`` of that form, so it is none of them and :class:`KnownLevels` finds it as the
    longest such level."""
    base = OTHER_LEVELS if beyond else OTHER
    taken = [str(lv) for lv in levels if _LUMP.match(str(lv))]
    if not taken:
        return base
    return base + "_" * max(1, max(len(t) for t in taken) - len(base) + 1)


def lumped_level(levels):
    """The lumped level among ``levels`` (the longest name of the form of :func:`lump_name`), or None."""
    found = [str(lv) for lv in levels if _LUMP.match(str(lv))]
    return max(found, key=len) if found else None


def _as_text(s):
    """Values as text; missing values become the level ``"(missing)"``."""
    return s.astype(object).astype(str).where(s.notna(), MISSING_LEVEL)


def _level_order(s, kept):
    """Kept levels in the column's own order (declared categories, else sorted), missing last."""
    if isinstance(s.dtype, pd.CategoricalDtype):
        order = [str(c) for c in s.cat.categories]
    else:
        try:
            order = [str(v) for v in sorted(s.dropna().unique())]
        except TypeError:
            order = sorted(s.dropna().astype(str).unique())
    keep = set(kept)
    out = [lv for lv in dict.fromkeys(order) if lv in keep]
    return out + [lv for lv in kept if lv not in set(out)]


# --------------------------------------------------------------------------- applying
def _apply(step, s):
    """The output columns of one step for the column ``s``: {name: Series}."""
    how = step.how
    if how == "asis":
        return {step.column: s}
    if how == "given_levels":
        return {step.column: pd.Series(pd.Categorical(s, categories=list(step.info["levels"])), index=s.index)}
    if how == "keep":
        if isinstance(s.dtype, pd.api.extensions.ExtensionDtype):  # Int64/Float64 with <NA>: plain NaN
            s = s.astype("float64")
        if s.dtype.kind == "f" and np.isinf(s.to_numpy()).any():
            s = s.where(~np.isinf(s.to_numpy()))
        return {step.column: s}
    if how == "number":
        if pd.api.types.is_timedelta64_dtype(s.dtype):
            return {step.column: s.dt.total_seconds()}
        return {step.column: pd.to_numeric(s.astype(str).str.strip().where(s.notna()), errors="coerce")}
    if how == "indicator":
        return {step.outputs[0]: s.isna().astype(int)}
    if how == "bool":
        flags = _as_bool(s).astype(float).where(s.notna())
        return {step.column: flags.astype(int) if flags.notna().all() else flags}
    if how == "dates":
        d = _dtypes.parse_dates(s)
        out = {}
        for name, part in zip(step.outputs, step.info["parts"]):
            if part == "days":
                v = (d - step.info["origin"]) / pd.Timedelta(days=1)
            else:
                v = {"year": d.dt.year, "month": d.dt.month, "weekday": d.dt.day_of_week, "hour": d.dt.hour}[part]
            v = v.astype(float)
            out[name] = v.astype(int) if (part != "days" and v.notna().all()) else v
        return out
    if how == "levels":
        levels = list(step.info["levels"])
        text = _as_text(s)
        known = set(levels)
        fallback = step.info.get("lump", lumped_level(levels))
        text = text.where(text.isin(known), fallback)
        return {step.column: pd.Series(pd.Categorical(text, categories=levels), index=s.index)}
    raise AssertionError(how)  # pragma: no cover - every step kind is handled above


# --------------------------------------------------------------------------- helpers for methods and models
def complete_rows(X, y=None):
    """The rows of ``X`` without any missing value (and the matching ``y``), index reset.

    For methods that cannot take missing values (ALE, REPID): they run on these rows, and the
    caller says how many were left out (``len(X) - len(result)``).

    Parameters
    ----------
    X : DataFrame, shape (n, p)
    y : Series or array of shape (n,), optional

    Returns
    -------
    DataFrame, or (DataFrame, Series) when ``y`` is given
    """
    if not isinstance(X, pd.DataFrame):
        raise TypeError(f"'X' must be a pandas DataFrame; got {type(X).__name__}.")
    mask = X.notna().all(axis=1).to_numpy()
    Xc = X.loc[mask].reset_index(drop=True)
    if y is None:
        return Xc
    y = pd.Series(np.asarray(y) if not isinstance(y, pd.Series) else y.to_numpy(), name=getattr(y, "name", None))
    if len(y) != len(X):
        raise ValidationError(f"'y' must have one value per row of 'X' ({len(X)}); got {len(y)}.")
    return Xc, y.loc[mask].reset_index(drop=True)


def _estimator_bases():
    from sklearn.base import BaseEstimator, TransformerMixin

    return BaseEstimator, TransformerMixin


class MissingImputer(*_estimator_bases()):
    """Median imputation of the numeric columns, with a 0/1 indicator for each column that had
    missing values in ``fit``; other columns pass through unchanged (categoricals keep their dtype).

    Columns are chosen by dtype when fitting (:func:`imlkit._dtypes.is_numeric`), never by a
    list of names, so a refit without a column (LOCO) works with the same unfitted object.
    The indicator of column ``c`` is named ``"c (missing)"``.
    """

    def fit(self, X, y=None):
        X = _as_frame(X)
        self.feature_names_in_ = np.array(X.columns, dtype=object)
        num = _dtypes.numeric_columns(X)
        # One call per statistic over all numeric columns: per-column calls cost seconds on 2,000 columns.
        any_na = X[num].isna().any() if num else pd.Series(dtype=bool)
        medians = X[num].median() if num else pd.Series(dtype=float)
        self.medians_ = {c: (float(medians[c]) if not pd.isna(medians[c]) else 0.0) for c in num}
        self.indicators_ = [c for c in num if any_na[c]]
        # Categoricals normally carry missing values as the level "(missing)" (prepare_columns); a
        # column passed on as given (a fitted model's input) may hold NaN, which imlkit's models refuse.
        self.categoricals_ = [c for c in X.columns if isinstance(X[c].dtype, pd.CategoricalDtype)]
        return self

    def transform(self, X):
        X0 = _as_frame(X)
        # The indicators are read before imputation fills the cells.
        masks = {c: X0[c].isna().to_numpy(dtype=float) for c in self.indicators_ if c in X0.columns}
        X = X0.copy()
        present = [c for c in self.medians_ if c in X.columns]
        with_na = X[present].isna().any() if present else pd.Series(dtype=bool)
        for c in present:
            if with_na[c]:
                X[c] = X[c].astype(float).fillna(self.medians_[c])
        for c, m in masks.items():
            X[f"{c} (missing)"] = m
        for c in getattr(self, "categoricals_", ()):
            if c in X.columns and X[c].isna().any():
                col = X[c] if MISSING_LEVEL in X[c].cat.categories else X[c].cat.add_categories([MISSING_LEVEL])
                X[c] = col.fillna(MISSING_LEVEL)
        return X


class KnownLevels(*_estimator_bases()):
    """Map categorical levels that had no rows in ``fit`` to a level the model knows, and count them.

    A level can exist in a column's categories (fixed by :func:`prepare_columns` on the whole
    table) and still have no training row after a split; models that dummy-code only the
    levels they saw (imlkit's GLM and GAM) would fail on it. Such rows are predicted as the
    column's lumped level (``"(rare levels)"``, see :func:`lumped_level`) when it was seen, since
    that is what rare levels are, else as the most frequent training level. That is a choice the
    model's predictions carry, so it is not silent: :meth:`remapped` counts the rows of any table
    it maps, per column and level, with the level they are scored as (BrainCancer: one test row's
    missing diagnosis, seen in no training row, was scored as 'Meningioma' by every
    interpretable model, and counted under ``diagnosis == 'Meningioma'`` in the rule tables).

    Categorical columns with a single level in ``fit`` carry no information for
    the model and are removed; so are columns passed on as given (a fitted model's input) that
    imlkit's own models cannot use: dates, and text with more than ``max_levels`` levels (an ID).

    Attributes
    ----------
    levels_ : dict
        Per kept categorical column, the set of levels with training rows.
    fallback_ : dict
        Per kept categorical column, the level an unseen level is scored as.
    fallback_reason_ : dict
        Per kept categorical column, why that level (``"the lumped level"`` or ``"the most frequent training
        level"``).
    dropped_ : list
        The columns removed.
    """

    def __init__(self, max_levels=30):
        self.max_levels = max_levels

    def fit(self, X, y=None):
        X = _as_frame(X)
        self.feature_names_in_ = np.array(X.columns, dtype=object)
        self.levels_, self.fallback_, self.fallback_reason_, self.dropped_ = {}, {}, {}, []
        for c in X.columns:
            s = X[c]
            if _dtypes.is_numeric_or_bool(s):
                continue
            if too_many_levels(s, self.max_levels):
                self.dropped_.append(c)
                continue
            counts = s.astype(object).value_counts()
            if len(counts) < 2:
                self.dropped_.append(c)
                continue
            self.levels_[c] = set(counts.index)
            lump = lumped_level(counts.index)
            if lump is not None:
                self.fallback_[c], self.fallback_reason_[c] = lump, "the lumped level"
            else:
                self.fallback_[c], self.fallback_reason_[c] = counts.index[0], "the most frequent training level"
        return self

    def _unseen(self, X):
        """``{column: boolean mask}`` of the rows of ``X`` whose level had no row in ``fit`` (columns with any)."""
        out = {}
        for c, known in self.levels_.items():
            if c in X.columns:
                s = X[c]
                bad = (s.notna() & ~s.astype(object).isin(known)).to_numpy()
                if bad.any():
                    out[c] = bad
        return out

    def remapped(self, X):
        """The rows of ``X`` that :meth:`transform` maps, per column and level.

        Parameters
        ----------
        X : DataFrame, shape (n, p)
            A table as ``transform`` gets it.

        Returns
        -------
        DataFrame
            One row per column and level with no training row that ``X`` holds: ``column``, ``level``,
            ``rows`` (how many rows of ``X`` have it), ``scored_as`` (the level they are mapped to) and
            ``why`` (the reason for that level); empty when nothing is mapped. :meth:`remapped_rows` gives the
            rows themselves.
        """
        X = _as_frame(X)
        rows = []
        for c, bad in self._unseen(X).items():
            counts = X[c].astype(object)[bad].astype(str).value_counts()
            for level in sorted(counts.index, key=lambda lv: (-counts[lv], lv)):
                rows.append([c, level, int(counts[level]), self.fallback_[c], self.fallback_reason_[c]])
        return pd.DataFrame(rows, columns=["column", "level", "rows", "scored_as", "why"])

    def remapped_rows(self, X):
        """Boolean array (n,): the rows of ``X`` that :meth:`transform` maps in at least one column."""
        X = _as_frame(X)
        out = np.zeros(len(X), dtype=bool)
        for bad in self._unseen(X).values():
            out |= bad
        return out

    def transform(self, X):
        X = _as_frame(X).drop(columns=[c for c in self.dropped_ if c in X.columns])
        for c, bad in self._unseen(X).items():
            s = X[c]
            X = X.copy()
            if isinstance(s.dtype, pd.CategoricalDtype):
                X[c] = s.where(~bad, self.fallback_[c])
            else:
                X[c] = s.astype(object).where(~bad, self.fallback_[c])
        return X


def too_many_levels(s, max_levels=30):
    """Whether imlkit's own models leave a non-numeric column out: a date, or more than ``max_levels`` levels.

    Only columns passed on as given can be such (prepared ones have at most ``max_levels`` levels);
    the count is the column's declared categories, fixed on the whole table, so it is known in advance.
    """
    if pd.api.types.is_datetime64_any_dtype(s.dtype):
        return True
    n = len(s.cat.categories) if isinstance(s.dtype, pd.CategoricalDtype) else s.nunique()
    return n > max_levels


def _as_frame(X):
    if isinstance(X, pd.DataFrame):
        return X
    return pd.DataFrame(np.asarray(X), columns=[f"x{j}" for j in range(np.shape(X)[1])])


#: Integer columns with at least this many and at most ``CODE_MAX_VALUES`` distinct values, the smallest 0 or 1, may
#: be codes (a 0/1 column is left out: with two values a slope per unit and a level difference are the same fit, so
#: reading it as a number or as a category gives the same model).
CODE_MIN_VALUES = 3
#: The bound the report uses to read an integer *target* as classes (``report._data._resolve_task``): the same rule
#: for features.
CODE_MAX_VALUES = 10


def integer_codes(X, decisions=None):
    """``[(column, values)]``: the numeric features of ``X`` that may be integer codes read as quantities.

    A column qualifies when every value it has is a whole number, it has ``CODE_MIN_VALUES`` to
    ``CODE_MAX_VALUES`` distinct values, and the smallest is 0 or 1: codes are numbered from 0 or 1 (Auto's
    origin 1/2/3, OJ's StoreID 1-7 and STORE 0-4, the bike data's season 1-4 and weekday 0-6), while amounts with
    few values seldom start there (Auto's cylinders 3-8, Carseats' Education 10-18, Auto's year 70-82). Only the
    columns the preparation used as numbers (``decisions``' kind "numeric"; date parts it made are left out: they
    are not columns a user can name) and not boolean ones. Ordered by fewest values, then by position.
    """
    numeric = None
    if decisions is not None:
        numeric = set(decisions.loc[decisions["kind"] == "numeric", "column"].astype(str))
    found = []
    for i, c in enumerate(X.columns):
        col = X[c]
        if numeric is not None and str(c) not in numeric:
            continue
        if isinstance(col.dtype, pd.CategoricalDtype) or pd.api.types.is_bool_dtype(col.dtype) \
                or not pd.api.types.is_numeric_dtype(col.dtype):
            continue
        v = col.dropna().to_numpy(dtype=float)
        if not len(v) or not np.isfinite(v).all() or not np.all(v == np.round(v)):
            continue
        values = np.unique(v)
        if CODE_MIN_VALUES <= len(values) <= CODE_MAX_VALUES and values[0] in (0.0, 1.0):
            found.append((len(values), i, str(c), [int(x) for x in values]))
    return [(c, vals) for _, _, c, vals in sorted(found)]
