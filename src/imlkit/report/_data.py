"""Reading the user's table and turning it into X, y and a train/test split.

Every check here raises :class:`ReportInputError` with one line naming the file, the column or
the value, because the command line prints exactly that line (exit code 2).
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._columns import CODE_MAX_VALUES, CODE_MIN_VALUES, _apply, _decide, complete_rows, integer_codes, prepare_columns
from .._validation import ValidationError
from ..models._target import MAX_CLASSES
from ._labels import class_text

__all__ = ["ReportInputError", "Dataset", "read_table", "sniff_csv", "load_dataset", "MIN_ROWS", "time_order",
           "time_column", "ORDER_MIN_DISTINCT", "SPLITS", "integer_codes", "CODE_MAX_VALUES",
           "CODE_MIN_VALUES", "task_reason"]

#: Fewer rows than this cannot give a meaningful split, refits or intervals.
MIN_ROWS = 20
#: Most levels a categorical feature keeps (rarer ones are lumped into one level, "(other levels)").
MAX_LEVELS = 30
#: Levels with fewer rows than this are lumped into one level, "(rare levels)".
MIN_COUNT = 5
#: A feature with a larger share of missing values is replaced by a "missing" indicator.
MAX_MISSING = 0.5


class ReportInputError(ValidationError):
    """Bad input to the report or the command line (the CLI exits with code 2)."""


@dataclass
class Dataset:
    """The prepared data of a report run.

    Attributes
    ----------
    X : DataFrame, shape (n, p)
        The prepared features (:func:`imlkit._columns.prepare_columns`): every row with a
        target value, missing feature values kept (NaN in numeric columns, the level
        ``"(missing)"`` in categoricals), categoricals with a fixed level set.
    y : Series, shape (n,)
    task : {"regression", "classification"}
    source : str -- where the data came from (shipped set, file path or "a DataFrame")
    target : str
    raw : DataFrame -- the table as read
    dropped_rows : int -- rows dropped because the target was missing
    notes : list of str
    decisions : DataFrame -- column, kind, action, reason (one row per column read)
    n_rows : int -- rows read
    missing : Series -- missing cells per column read (features and target)
    prepared : PreparedColumns -- the column-preparation result (``transform`` for new data)
    n_train : int or None -- with held-out test data, the first ``n_train`` rows of ``X``/``y`` are
        the training rows and the others the test rows; None when imlkit splits the rows itself
    test_source : str or None -- where the test data came from
    prepare : bool -- False when column preparation was turned off
    """

    X: pd.DataFrame
    y: pd.Series
    task: str
    source: str
    target: str
    raw: pd.DataFrame
    dropped_rows: int = 0
    notes: list = field(default_factory=list)
    decisions: pd.DataFrame | None = None
    n_rows: int = 0
    missing: pd.Series | None = None
    prepared: object = None
    n_train: int | None = None
    test_source: str | None = None
    prepare: bool = True
    #: Why the rows of the data (not the test data) look ordered in time (:func:`time_order`), or "".
    order: str = ""
    #: The column that shows the time order (:func:`time_column`), or None; ``order_way`` is "up" (never
    #: decreases: earliest first) or "down" (never increases: latest first).
    order_column: str | None = None
    order_way: str | None = None
    #: That column's values for the rows of ``X`` (dates parsed), so that an ordered split can say where it cut.
    order_values: pd.Series | None = None
    #: The columns read as categories because the caller named them (``categorical=`` / ``--categorical``).
    categorical: tuple = ()
    #: Why ``--task auto`` read the target as it did (:func:`task_reason`), or "" when the caller gave the task.
    task_reason: str = ""

    @property
    def rows_with_missing(self):
        """Rows of ``X`` with at least one missing numeric value (kept, not dropped)."""
        return int(self.X.isna().any(axis=1).sum())

    @staticmethod
    def complete_rows(X, y=None):
        """The rows of ``X`` (and ``y``) without missing values, for methods that cannot take NaN.

        See :func:`imlkit._columns.complete_rows`; ``len(X) - len(result)`` rows are left out.
        """
        return complete_rows(X, y)


def read_table(path):
    """Read a CSV (optionally compressed) or Parquet file into a DataFrame.

    A CSV's delimiter is sniffed from its first lines (:func:`sniff_csv`): a semicolon-,
    tab- or pipe-separated file is read as such (semicolon files with decimal commas too), with
    a warning naming the delimiter, which the report lists in its notes. Repeated column names
    are refused, naming the column: pandas would rename the second ``a`` to ``a.1`` without a
    word, and ``--target a`` would then silently take the first.
    """
    if not os.path.exists(path):
        raise ReportInputError(f"Data file {path!r} does not exist.")
    if os.path.isdir(path):
        raise ReportInputError(f"Data file {path!r} is a directory, not a CSV or Parquet file.")
    lower = path.lower()
    try:
        if lower.endswith((".parquet", ".pq")):
            try:
                frame = pd.read_parquet(path)
            except ImportError as exc:
                raise ReportInputError(f"Reading Parquet file {path!r} needs pyarrow or fastparquet "
                                       f"(pip install pyarrow): {exc}") from None
            _check_unique_header(path, [str(c) for c in frame.columns])
            return frame
        sep, decimal = sniff_csv(path)
        header = pd.read_csv(path, sep=sep, header=None, nrows=1, dtype=str, keep_default_na=False)
        _check_unique_header(path, [str(c) for c in header.iloc[0].tolist()] if len(header) else [])
        frame = pd.read_csv(path, sep=sep, decimal=decimal)
        if sep != ",":
            import warnings

            warnings.warn(f"Data file {os.path.basename(path)!r} was read as {_SEP_WORDS[sep]}-separated"
                          f"{' with decimal commas' if decimal == ',' else ''} (detected from its first lines).",
                          UserWarning, stacklevel=2)
        return frame
    except ReportInputError:
        raise
    except pd.errors.EmptyDataError:
        raise ReportInputError(f"Data file {path!r} is empty.") from None
    except UnicodeDecodeError:
        raise ReportInputError(f"Data file {path!r} is not a readable text CSV "
                               f"(could not decode it as UTF-8).") from None
    except PermissionError:
        raise ReportInputError(f"Data file {path!r} cannot be read: permission denied.") from None
    except (pd.errors.ParserError, ValueError, OSError) as exc:
        msg = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ReportInputError(f"Data file {path!r} could not be read as CSV or Parquet: {msg}") from None


_SEP_WORDS = {",": "comma", ";": "semicolon", "\t": "tab", "|": "pipe"}
_DECIMAL_COMMA = re.compile(r"(?:^|;)\s*-?\d+,\d+\s*(?:;|$)")


def _head_text(path, limit=65536):
    """The first ``limit`` characters of a (possibly gzip/bz2/xz-compressed) text file, or None."""
    import bz2
    import gzip
    import lzma

    lower = path.lower()
    opener = (gzip.open if lower.endswith(".gz") else bz2.open if lower.endswith(".bz2")
              else lzma.open if lower.endswith((".xz", ".lzma")) else open)
    if lower.endswith((".zip", ".zst", ".tar")):
        return None  # pandas reads these; the delimiter is not sniffed
    with opener(path, "rt", encoding="utf-8", errors="replace", newline="") as fh:
        return fh.read(limit)


def sniff_csv(path):
    """The delimiter and decimal mark of a CSV file: ``(sep, decimal)``.

    A comma is kept whenever the header splits into two or more fields on it. Otherwise
    :class:`csv.Sniffer` looks at the first lines for a semicolon, tab or pipe that splits the
    header and the rows into the same number (two or more) of fields; a semicolon file whose
    fields hold numbers like ``3,14`` has decimal commas (the European spreadsheet export).
    Anything else is left to pandas' comma reading, whose error then says what it found.
    """
    import csv

    head = _head_text(path)
    if not head:
        return ",", "."
    lines = head.splitlines()[:50]
    if len(head) == 65536 and len(lines) > 1:
        lines = lines[:-1]  # the last line may be cut
    if not lines:
        return ",", "."
    try:
        first = next(csv.reader([lines[0]]))
    except csv.Error:
        return ",", "."
    if len(first) >= 2:
        return ",", "."
    try:
        dialect = csv.Sniffer().sniff("\n".join(lines), delimiters=";\t|")
    except csv.Error:
        return ",", "."
    sep = dialect.delimiter
    rows = list(csv.reader(lines, delimiter=sep))
    width = len(rows[0])
    if width < 2 or any(len(r) != width for r in rows[1:] if r):
        return ",", "."
    decimal = "," if sep == ";" and any(_DECIMAL_COMMA.search(line) for line in lines[1:]) else "."
    return sep, decimal


def _check_unique_header(path, names):
    seen, repeated = {}, []
    for i, n in enumerate(names):
        if n in seen and n not in repeated:
            repeated.append(n)
        seen.setdefault(n, i)
    if repeated:
        first = repeated[0]
        where = [i + 1 for i, n in enumerate(names) if n == first]
        more = f" (and {len(repeated) - 1} more repeated name(s))" if len(repeated) > 1 else ""
        raise ReportInputError(f"Data file {path!r} has the column name {first!r} more than once (columns "
                               f"{', '.join(map(str, where))}){more}; pandas would rename the copies "
                               f"({first + '.1'!r}, ...) and --target/--features could pick the wrong one: give each "
                               f"column its own name.")


def _shipped(name):
    from .. import datasets

    loaders = {"bike": datasets.load_bike, "wage": datasets.load_wage, "penguins": datasets.load_penguins}
    if name not in loaders:
        raise ReportInputError(f"'dataset' must be one of {', '.join(repr(k) for k in loaders)}; got {name!r}.")
    X, y = loaders[name]()
    info = datasets.list_datasets().loc[name]
    return pd.concat([X, y], axis=1), str(y.name), f"imlkit.datasets.load_{name}() -- {info['source']}"


def _read(data, dataset, what):
    """(table, default target, source) of ``data``: a path, a DataFrame (copied) or None (shipped set)."""
    if data is None:
        return _shipped(dataset)
    if isinstance(data, pd.DataFrame):
        return data.copy(), None, f"a DataFrame ({len(data):,} rows)"
    if isinstance(data, (str, os.PathLike)):
        data = os.fspath(data)
        return read_table(data), None, os.path.abspath(data)
    raise ReportInputError(f"'{what}' must be a CSV/Parquet path, a pandas DataFrame"
                           f"{' or None' if what == 'data' else ''}; got {type(data).__name__}.")


def load_dataset(data=None, *, dataset="bike", target=None, task="auto", features=None, test=None, keep=(),
                 as_given=(), prepare=True, categorical=()):
    """Read, check and prepare the data of a report run.

    Parameters
    ----------
    data : str, DataFrame or None
        CSV/Parquet path, or a DataFrame (copied, never changed); None uses the shipped data
        set ``dataset``. With ``test`` these are the training rows.
    target : str or None
        Target column (default: the shipped data set's target; required otherwise).
    task : {"auto", "regression", "classification"}
        ``"auto"``: classification for text, boolean or categorical targets and for integer
        targets with at most ``MAX_CLASSES`` (10) distinct values; regression otherwise.
    features : sequence of str or None
        Columns used as features (default: all but the target). A listed column is never set
        aside by the preparation.
    test : str, DataFrame or None
        Held-out evaluation rows (same columns as ``data``): prepared together with ``data``
        (the same decisions and level sets on both) and returned after its rows.
    keep, as_given : sequence of str
        See :func:`imlkit._columns.prepare_columns`: columns never set aside, and columns
        passed on with their values unchanged (the columns a fitted model was fitted on).
    prepare : bool
        False: every feature is passed on as given (nothing set aside, lumped or converted).
    categorical : sequence of str
        Columns read as categories before anything else (``--categorical``): each distinct value,
        a number included, becomes a level (Auto's origin 1/2/3 = American/European/Japanese). Each
        must be a column of the data, not the target, among ``features`` when given and not a
        column of a fitted model (``as_given``).

    Returns
    -------
    Dataset
        ``X``/``y`` hold the rows of ``data`` then those of ``test``; ``n_train`` says where
        the test rows start (None without ``test``).

    Notes
    -----
    The columns go through :func:`imlkit._columns.prepare_columns` on the whole table, before
    any split: dates become their parts, ID-like and constant columns are set aside, rare
    levels become one level (``"(rare levels)"``), mostly-missing columns become a missing indicator -- each
    decision is a row of ``Dataset.decisions``. Rows with a missing target are dropped and
    counted; rows with missing feature values are kept.
    """
    raw, default_target, source = _read(data, dataset, "data")
    if raw.shape[1] < 2:
        raise ReportInputError(f"The data ({source}) has {raw.shape[1]} column(s); it needs a target and at least "
                               f"one feature.")
    raw.columns = [str(c) for c in raw.columns]
    target = target if target is not None else default_target
    if target is None:
        raise ReportInputError("'--target' is required with '--data': name the column to predict.")
    if features is not None:
        feats = [str(f) for f in features]
        if target in feats:
            raise ReportInputError(f"Target {target!r} cannot also be a feature in '--features'.")
        if not feats:
            raise ReportInputError("'--features' is empty; give at least one column.")
    n_train_rows = len(raw)
    table, test_source = raw, None
    if test is not None:
        test_raw, _, test_source = _read(test, None, "test_data")
        test_raw.columns = [str(c) for c in test_raw.columns]
        needed = [c for c in (list(features) if features is not None else raw.columns) if c != target] + [target]
        lacking = [c for c in needed if c in raw.columns and c not in test_raw.columns]
        if lacking:
            raise ReportInputError(f"The test data ({test_source}) lacks column(s) {lacking} of the data; its columns "
                                   f"are {list(test_raw.columns)[:20]}.")
        shared = [c for c in raw.columns if c in test_raw.columns]
        table = pd.concat([raw[shared], test_raw[shared]], ignore_index=True)
    lacking = [str(c) for c in as_given if str(c) not in table.columns]
    if lacking:
        raise ReportInputError(f"The fitted model was fitted on column(s) {lacking} that the data does not have; its "
                               f"columns are {list(table.columns)[:30]}.")
    categorical = tuple(str(c) for c in (categorical or ()))
    if categorical:
        table = _categorical(table if test is not None else table.copy(), categorical, target, features, as_given)
    if target in table.columns:  # the target's numbers are read as the features' are, before the task is guessed
        parsed = _target_numbers(table[target], target)
        if parsed is not None:
            table = table.copy() if table is raw else table
            table[target] = parsed[0]
    else:
        parsed = None
    given = [c for c in table.columns if c != target] if not prepare else list(as_given)
    try:  # prepare_columns checks the columns (duplicated names, the target, the features) ...
        prep = prepare_columns(table, target=target, features=features, max_levels=MAX_LEVELS, min_count=MIN_COUNT,
                               max_missing=MAX_MISSING, keep=set(keep) | set(features or ()), as_given=given,
                               given_because="preparation is off" if not prepare else
                               "the fitted model was fitted on it")
    except ValidationError as exc:  # ... in the API's words; the command line names the data and its options
        raise ReportInputError(_input_wording(str(exc))) from None
    reason = task_reason(table[target], target) if task == "auto" else ""
    task = _resolve_task(table[target], task, target)
    n_target = int(table[target].iloc[:n_train_rows].notna().sum())
    if n_target < MIN_ROWS:
        raise ReportInputError(f"The data has {n_target} complete row(s); the report needs at least {MIN_ROWS} "
                               f"(rows whose target {target!r} is not missing).")
    n_test_target = int(table[target].iloc[n_train_rows:].notna().sum())
    if test is not None and n_test_target < 10:
        raise ReportInputError(f"The test data ({test_source}) has {n_test_target} row(s) with a target value; "
                               f"it needs at least 10.")
    if prep.X.shape[1] == 0:
        kinds = [f"{r.column!r}: {r.kind}" for r in prep.decisions.itertuples() if r.kind != "target"]
        why = "; ".join(kinds[:8]) + (f"; ... {len(kinds) - 8} more" if len(kinds) > 8 else "")
        raise ReportInputError(f"Every feature was set aside ({why}); nothing is left to explain {target!r}.")
    notes = []
    if prep.dropped_target_rows:
        where = ""
        if test is not None:
            where = f" ({n_train_rows - n_target:,} of the data, {len(table) - n_train_rows - n_test_target:,} of " \
                    f"the test data)"
        n_text = parsed[1] if parsed is not None else 0
        if n_text:
            rest = prep.dropped_target_rows - n_text
            notes.append(f"{prep.dropped_target_rows:,} row(s) were dropped{where}: in {n_text:,} the target "
                         f"{target!r} is text that is not a number (e.g. {parsed[2]!r}), read as missing as it is "
                         f"in a feature (the column's other values are numbers)"
                         + (f"; in {rest:,} it is missing" if rest else "") + ".")
        else:
            notes.append(f"{prep.dropped_target_rows:,} row(s) with a missing target {target!r} were dropped{where}.")
    if not prepare:
        notes.append("Column preparation is off (prepare=False / --no-prepare): every column is used as given; "
                     "text columns become categoricals whose levels are their own values.")
    y = prep.y.reset_index(drop=True)
    if task == "regression":
        y = y.astype(float)
        if not np.isfinite(y.to_numpy()).all():  # every loss of such a row is infinite or NaN
            bad = y[~np.isfinite(y.to_numpy())]
            raise ReportInputError(f"Regression target {target!r} holds {len(bad):,} infinite value(s) "
                                   f"(e.g. {float(bad.iloc[0])!r}); remove or replace them, or use "
                                   f"'--task classification'.")
    else:
        y = class_text(y)  # 0.0 .. 6.0 become "0" .. "6", once, for every section
        if y.iloc[:n_target].nunique() < 2:
            raise ReportInputError(f"Target {target!r} has a single class ({y.iloc[0]!r}); classification needs "
                                   f"two or more.")
    decisions = prep.decisions
    if parsed is not None:  # the target's row says it was read as numbers, as a feature's does
        decisions = decisions.copy()
        at = decisions["column"].astype(str) == target
        extra = (f"; {parsed[1]:,} value(s) that are not numbers (e.g. {parsed[2]!r}) are treated as missing"
                 if parsed[1] else "")
        decisions.loc[at, "action"] = "read as numbers" + extra + "; " + decisions.loc[at, "action"].astype(str)
        decisions.loc[at, "reason"] = decisions.loc[at, "reason"].astype(str) + "; text that holds numbers"
    if categorical:
        decisions = decisions.copy()
        named = decisions["column"].astype(str).isin(categorical)
        decisions.loc[named, "reason"] = ("named in --categorical (categorical=): each value is a level, not an "
                                          "amount; " + decisions.loc[named, "reason"].astype(str))
    found = time_column(raw.iloc[:n_train_rows])
    order_column, why, way = found if found else (None, "", None)
    values = None
    if order_column is not None:
        values = _order_values(raw.iloc[:n_train_rows], order_column,
                               table[target].iloc[:n_train_rows].notna().to_numpy())
    return Dataset(X=prep.X, y=y, task=task, source=source, target=target, raw=raw,
                   dropped_rows=prep.dropped_target_rows, notes=notes, decisions=decisions,
                   n_rows=prep.n_rows, missing=_parsed_missing(prep, table), prepared=prep,
                   n_train=n_target if test is not None else None, test_source=test_source, prepare=bool(prepare),
                   order=why, order_column=order_column, order_way=way, order_values=values,
                   categorical=categorical, task_reason=reason)


def _target_numbers(y, target):
    """``(numbers, n_not_numbers, example)`` when the target ``y`` is text that holds numbers, else None.

    The features' rule (:func:`imlkit._columns.prepare_columns`: text of which at least 95% of the given values
    read as numbers, such as ISLP Auto.data's horsepower with '?' in 5 of 397 rows) applied to the target, so that
    '?' is a missing target (its row dropped and counted) and not a class, and '130.0' is the number 130.

    Examples
    --------
    >>> v, bad, example = _target_numbers(pd.Series(["1.5", "2", "?"] + ["3"] * 20), "y")
    >>> int(v.isna().sum()), bad, example
    (1, 1, '?')
    >>> _target_numbers(pd.Series(["a", "b"] * 10), "y") is None
    True
    """
    if pd.api.types.is_numeric_dtype(y.dtype) or pd.api.types.is_bool_dtype(y.dtype) \
            or isinstance(y.dtype, pd.CategoricalDtype) or pd.api.types.is_datetime64_any_dtype(y.dtype) \
            or pd.api.types.is_timedelta64_dtype(y.dtype) or not y.notna().any():
        return None
    step = _decide(y.reset_index(drop=True), target, set(), max_levels=MAX_LEVELS, min_count=MIN_COUNT,
                   max_missing=1.0)
    if step.how != "number" or step.reason != "text that holds numbers":
        return None
    numbers = _apply(step, y)[target]
    bad = y[y.notna() & numbers.isna()]
    return numbers, int(len(bad)), (str(bad.iloc[0]) if len(bad) else None)


def _parsed_missing(prep, table):
    """Missing cells per column read, counted after each column's number parsing: a text column read as numbers
    counts its values that are not numbers ('?') as missing, as the prepared features do (section 1's two tables
    then give one count)."""
    missing = prep.missing.copy()
    for step in prep.steps:
        if step.how == "number" and step.reason == "text that holds numbers" and step.column in table.columns:
            missing[step.column] = int(_apply(step, table[step.column])[step.column].isna().sum())
    return missing


#: Fewest distinct values of a numeric column whose order over the rows is read as the rows' order (a 0/1 column
#: with the rows sorted by it is a sort, not a clock).
ORDER_MIN_DISTINCT = 5
_ISO_DATE = r"^\d{4}-\d{2}-\d{2}"
#: A numeric column is read as time when its name says so or its values are whole years (1000-2200): a table
#: sorted by price is sorted, not dated.
_TIME_NAME = re.compile(r"(year|date|time|month|week|day|quarter|period|^yr|^t$)", re.IGNORECASE)


def time_order(raw):
    """Why the rows of ``raw`` look ordered in time: "column 'YEAR' never decreases over the 289 rows (...)", or "".

    A column of dates (datetime dtype, or text that is ISO dates throughout, as ISLP NYSE's ``date``), or a
    numeric column with at least ``ORDER_MIN_DISTINCT`` values that never decreases (or never increases) from one
    row to the next and is named like time (year, date, month, ...) or holds whole years (1000-2200): statsmodels
    sunspots' YEAR, macrodata's year, ISLP Weekly's Year and Auto's year. A row number (exactly 0..n-1 or 1..n)
    orders the rows by construction and is not read as time. See :func:`time_column` for the column itself.
    """
    found = time_column(raw)
    return found[1] if found else ""


def time_column(raw):
    """``(column, why, way)`` of the first column that shows the rows of ``raw`` are ordered in time, or None.

    ``why`` is :func:`time_order`'s sentence; ``way`` is "up" when the column never decreases from one row to
    the next (earliest rows first) and "down" when it never increases (latest first). A date column counts
    only when its dates are in order too (its ``way``); dates in no order are reported with ``way`` None.
    """
    n = len(raw)
    for c in raw.columns:
        col = raw[c]
        if pd.api.types.is_datetime64_any_dtype(col):
            v = col.dropna()
            if v.nunique() >= 2:
                lo, hi = v.min(), v.max()
                if (v.dt.normalize() == v).all():  # days: no "00:00:00"
                    lo, hi = lo.date(), hi.date()
                return c, f"column {c!r} holds dates ({lo} to {hi})", _way(v.to_numpy())
            continue
        if col.dtype == object or pd.api.types.is_string_dtype(col):
            v = col.dropna().astype(str)
            if len(v) < 2 or not v.str.match(_ISO_DATE).all():
                continue
            d = pd.to_datetime(v, errors="coerce", format="ISO8601")
            if d.notna().all() and d.nunique() >= 2:
                return (c, f"column {c!r} holds dates ({d.min().date()} to {d.max().date()})",
                        _way(d.to_numpy()))
            continue
        if not pd.api.types.is_numeric_dtype(col) or pd.api.types.is_bool_dtype(col):
            continue
        v = col.dropna().to_numpy(dtype=float)
        if len(v) < 2 or len(np.unique(v)) < ORDER_MIN_DISTINCT:
            continue
        years = bool(np.all(v == np.round(v)) and v.min() >= 1000 and v.max() <= 2200)
        if not (years or _TIME_NAME.search(str(c))):
            continue
        if np.array_equal(v, np.arange(len(v))) or np.array_equal(v, np.arange(1, len(v) + 1)):
            continue  # a row number
        way = _way(v)
        if way is not None:
            words = "never decreases" if way == "up" else "never increases"
            return (c, f"column {c!r} {words} from one row to the next over the {len(v):,} rows where it is given "
                       f"(from {v[0]:.6g} to {v[-1]:.6g}, {len(np.unique(v)):,} distinct values"
                       + (f"; {n - len(v):,} rows missing" if len(v) < n else "") + ")", way)
    return None


def _way(v):
    """"up" when ``v`` never decreases, "down" when it never increases, else None (a constant is "up")."""
    step = np.diff(v)
    zero = step - step  # 0 of the step's type (a timedelta for dates)
    if (step >= zero).all():
        return "up"
    if (step <= zero).all():
        return "down"
    return None


def _order_values(raw, column, keep):
    """The time column's values for the rows of ``X`` (``keep``: the rows with a target), dates parsed."""
    v = raw.loc[keep, column].reset_index(drop=True)
    if not (pd.api.types.is_datetime64_any_dtype(v) or pd.api.types.is_numeric_dtype(v)):
        v = pd.to_datetime(v, errors="coerce", format="ISO8601")
    return v


#: The values of ``--split``: "random" (a seeded split, stratified for classification) or "ordered" (the last rows
#: of the table, in file order, held out: a forecast's test).
SPLITS = ("random", "ordered")


def _categorical(table, names, target, features, as_given):
    """The columns named in ``categorical=`` (``--categorical``) read as categories, checked: each a column of the
    data, not the target, among ``features`` when those are given, not a column of a fitted model."""
    names = [str(c) for c in names]
    unknown = [c for c in names if c not in table.columns]
    if unknown:
        raise ReportInputError(f"'--categorical' names {', '.join(repr(c) for c in unknown)}, not column(s) of the "
                               f"data; its columns are {list(map(str, table.columns))[:30]}.")
    if target in names:
        raise ReportInputError(f"'--categorical' names the target {target!r}: the target is not a feature (a numeric "
                               f"target is read as classes with '--task classification').")
    if features is not None:
        outside = [c for c in names if c not in set(map(str, features))]
        if outside:
            raise ReportInputError(f"'--categorical' names {', '.join(repr(c) for c in outside)}, not among "
                                   f"'--features' {list(map(str, features))[:30]}.")
    given = [c for c in names if c in set(map(str, as_given))]
    if given:
        raise ReportInputError(f"'--categorical' cannot change {', '.join(repr(c) for c in given)}: the fitted model "
                               f"was fitted on it as given, and it gets its columns unchanged.")
    for c in names:
        col = table[c]
        if isinstance(col.dtype, pd.CategoricalDtype):
            continue
        if pd.api.types.is_numeric_dtype(col.dtype) and not pd.api.types.is_bool_dtype(col.dtype):
            v = col.dropna()
            whole = len(v) and np.isfinite(v.to_numpy(dtype=float)).all() and (v == np.round(v)).all()
            if whole:  # 1.0, 2.0 (an integer column with a missing value) are the levels "1", "2"
                col = col.astype("Int64")
        # levels in the numbers' order (1, 2, 10, not "1", "10", "2"); a missing value stays missing
        table[c] = col.astype("category")
    return table


#: prepare_columns' messages name its parameters ('frame', 'target', 'features'); the report's
#: name the data and the command-line options.
_WORDING = ((re.compile(r"^'frame' has "), "The data has "),
            (re.compile(r"^'target' (.*) is not a column of 'frame'"), r"Target \1 is not a column of the data"),
            (re.compile(r"^'features' (.*) are not columns of 'frame'"),
             r"Feature(s) \1 in '--features' are not columns of the data"))


def _input_wording(message):
    """A column error of :func:`imlkit._columns.prepare_columns` in the report's words.

    Examples
    --------
    >>> _input_wording("'target' 'z' is not a column of 'frame'; the columns are ['a'].")
    "Target 'z' is not a column of the data; the columns are ['a']."
    """
    for pattern, words in _WORDING:
        message = pattern.sub(words, message)
    return message


def _resolve_task(y, task, target):
    if task not in ("auto", "regression", "classification"):
        raise ReportInputError(f"'--task' must be one of 'auto', 'regression', 'classification'; got {task!r}.")
    numeric = pd.api.types.is_numeric_dtype(y) and not pd.api.types.is_bool_dtype(y)
    if task == "regression":
        if not numeric:
            given = y.dropna()
            example = given.iloc[0] if len(given) else None
            parsed = pd.to_numeric(given.astype(str).str.strip(), errors="coerce") if len(given) else given
            share = ""
            if len(given) and parsed.notna().any() and parsed.isna().any():  # partly numbers: how much, what not
                example = given[parsed.isna().to_numpy()].iloc[0]
                share = (f"; {parsed.notna().mean():.0%} of its {len(given):,} values read as numbers, and text is "
                         f"read as numbers only when at least 95% of its values are")
            raise ReportInputError(f"Regression target {target!r} is not numeric (dtype {y.dtype}, e.g. {example!r}"
                                   f"{share}); use '--task classification' or a numeric column.")
        return task
    if task == "classification":
        return task
    if not numeric:
        return "classification"
    values = y.dropna()
    if len(values) and np.all(values == np.round(values)) and values.nunique() <= MAX_CLASSES:
        return "classification"
    return "regression"


def task_reason(y, target):
    """Why ``--task auto`` read ``y`` as it did (:func:`_resolve_task`'s rule), in one sentence with its numbers.

    Examples
    --------
    >>> task_reason(pd.Series([0, 1, 2, 1, 0]), "y")
    "The task was guessed (--task auto): the target 'y' has 3 distinct integer values (0, 1, 2): read as classes \
(use --task regression to treat it as a number)."
    """
    start = f"The task was guessed (--task auto): the target {target!r}"
    numeric = pd.api.types.is_numeric_dtype(y) and not pd.api.types.is_bool_dtype(y)
    if not numeric:
        return (f"{start} is not numeric (dtype {y.dtype}, {y.dropna().nunique():,} distinct values): read as "
                f"classes.")
    values = y.dropna()
    k = int(values.nunique())
    whole = bool(len(values)) and bool(np.all(values == np.round(values)))
    if whole and k <= MAX_CLASSES:
        shown = ", ".join(f"{v:g}" for v in np.unique(values.to_numpy(dtype=float)))
        return (f"{start} has {k:,} distinct integer values ({shown}): read as classes (use --task regression to "
                f"treat it as a number).")
    if whole:
        return (f"{start} has {k:,} distinct integer values, more than {MAX_CLASSES}: read as a regression target (use "
                f"--task classification to read its values as classes).")
    return f"{start} has {k:,} distinct values, not all whole numbers: read as a regression target."
