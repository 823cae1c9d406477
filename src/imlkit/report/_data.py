"""Reading the user's table and turning it into X, y and a train/test split.

Every check here raises :class:`ReportInputError` with one line naming the file, the column or
the value, because the command line prints exactly that line (exit code 2).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._validation import ValidationError

__all__ = ["ReportInputError", "Dataset", "read_table", "load_dataset", "MIN_ROWS"]

#: Fewer rows than this cannot give a meaningful split, refits or intervals.
MIN_ROWS = 20
#: A text column with at most this many levels becomes a categorical feature.
MAX_LEVELS = 50


class ReportInputError(ValidationError):
    """Bad input to the report or the command line (the CLI exits with code 2)."""


@dataclass
class Dataset:
    """The prepared data of a report run.

    Attributes
    ----------
    X : DataFrame, shape (n, p) -- complete rows only, text columns as categoricals
    y : Series, shape (n,)
    task : {"regression", "classification"}
    source : str -- where the data came from (shipped set or file path)
    target : str
    raw : DataFrame -- the table as read (for the data section's missing-value counts)
    dropped_rows : int -- rows dropped because the target or a feature was missing
    notes : list of str
    """

    X: pd.DataFrame
    y: pd.Series
    task: str
    source: str
    target: str
    raw: pd.DataFrame
    dropped_rows: int = 0
    notes: list = field(default_factory=list)


def read_table(path):
    """Read a CSV (optionally compressed) or Parquet file into a DataFrame."""
    if not os.path.exists(path):
        raise ReportInputError(f"Data file {path!r} does not exist.")
    if os.path.isdir(path):
        raise ReportInputError(f"Data file {path!r} is a directory, not a CSV or Parquet file.")
    lower = path.lower()
    try:
        if lower.endswith((".parquet", ".pq")):
            try:
                return pd.read_parquet(path)
            except ImportError as exc:
                raise ReportInputError(f"Reading Parquet file {path!r} needs pyarrow or fastparquet "
                                       f"(pip install pyarrow): {exc}") from None
        return pd.read_csv(path)
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


def _shipped(name):
    from .. import datasets

    loaders = {"bike": datasets.load_bike, "wage": datasets.load_wage, "penguins": datasets.load_penguins}
    if name not in loaders:
        raise ReportInputError(f"'dataset' must be one of {', '.join(repr(k) for k in loaders)}; got {name!r}.")
    X, y = loaders[name]()
    info = datasets.list_datasets().loc[name]
    return pd.concat([X, y], axis=1), str(y.name), f"imlkit.datasets.load_{name}() -- {info['source']}"


def load_dataset(data=None, dataset="bike", target=None, task="auto", features=None):
    """Read, check and prepare the data of a report run.

    Parameters
    ----------
    data : str or None
        CSV/Parquet path; None uses the shipped data set ``dataset``.
    target : str or None
        Target column (default: the shipped data set's target; required for a file).
    task : {"auto", "regression", "classification"}
        ``"auto"``: classification for text, boolean or categorical targets and for integer
        targets with at most 10 distinct values; regression otherwise.
    features : sequence of str or None
        Columns used as features (default: all but the target).

    Returns
    -------
    Dataset
    """
    if data is None:
        raw, default_target, source = _shipped(dataset)
    else:
        raw = read_table(data)
        default_target, source = None, os.path.abspath(data)
    if raw.shape[1] < 2:
        raise ReportInputError(f"The data ({source}) has {raw.shape[1]} column(s); it needs a target and at least "
                               f"one feature.")
    raw.columns = [str(c) for c in raw.columns]
    if raw.columns.duplicated().any():
        dup = sorted(set(raw.columns[raw.columns.duplicated()]))
        raise ReportInputError(f"The data has duplicated column names: {dup}.")
    target = target if target is not None else default_target
    if target is None:
        raise ReportInputError("'--target' is required with '--data': name the column to predict.")
    if target not in raw.columns:
        raise ReportInputError(f"Target {target!r} is not a column of the data; the columns are {list(raw.columns)}.")
    if features is None:
        feats = [c for c in raw.columns if c != target]
    else:
        feats = list(features)
        unknown = [f for f in feats if f not in raw.columns]
        if unknown:
            raise ReportInputError(f"Feature(s) {unknown} in '--features' are not columns of the data; "
                                   f"the columns are {list(raw.columns)}.")
        if target in feats:
            raise ReportInputError(f"Target {target!r} cannot also be a feature in '--features'.")
        if not feats:
            raise ReportInputError("'--features' is empty; give at least one column.")
    task = _resolve_task(raw[target], task, target)
    frame = raw[feats + [target]].copy()
    notes = []
    for c in feats:
        frame[c] = _as_feature(frame[c], c, notes)
    complete = frame.notna().all(axis=1)
    dropped = int((~complete).sum())
    frame = frame[complete].reset_index(drop=True)
    if dropped:
        notes.append(f"{dropped} row(s) with a missing target or feature value were dropped "
                     f"(several methods and the GLM/GAM need complete rows).")
    if len(frame) < MIN_ROWS:
        raise ReportInputError(f"The data has {len(frame)} complete row(s); the report needs at least {MIN_ROWS}.")
    constant = [c for c in feats if frame[c].nunique() < 2]
    if constant:
        notes.append(f"Constant column(s) {constant} carry no information and were left out.")
        frame = frame.drop(columns=constant)
        if len(constant) == len(feats):
            raise ReportInputError(f"Every feature is constant ({constant}); nothing can explain {target!r}.")
    y = frame.pop(target)
    if task == "regression":
        y = y.astype(float)
    else:
        y = y.astype(str)
        if y.nunique() < 2:
            raise ReportInputError(f"Target {target!r} has a single class ({y.iloc[0]!r}); classification needs "
                                   f"two or more.")
    return Dataset(X=frame, y=y, task=task, source=source, target=target, raw=raw, dropped_rows=dropped,
                   notes=notes)


def _resolve_task(y, task, target):
    if task not in ("auto", "regression", "classification"):
        raise ReportInputError(f"'--task' must be one of 'auto', 'regression', 'classification'; got {task!r}.")
    numeric = pd.api.types.is_numeric_dtype(y) and not pd.api.types.is_bool_dtype(y)
    if task == "regression":
        if not numeric:
            example = y.dropna().iloc[0] if y.notna().any() else None
            raise ReportInputError(f"Regression target {target!r} is not numeric (dtype {y.dtype}, e.g. {example!r}); "
                                   f"use '--task classification' or a numeric column.")
        return task
    if task == "classification":
        return task
    if not numeric:
        return "classification"
    values = y.dropna()
    if len(values) and np.all(values == np.round(values)) and values.nunique() <= 10:
        return "classification"
    return "regression"


def _as_feature(col, name, notes):
    """Numbers stay numbers; text and booleans become categoricals (with a note when many levels)."""
    if isinstance(col.dtype, pd.CategoricalDtype):
        return col
    if pd.api.types.is_bool_dtype(col):
        return col.astype(int)
    if pd.api.types.is_numeric_dtype(col):
        return col.astype(float) if col.dtype.kind == "f" else col
    text = col.astype(object).where(col.notna(), None)
    text = text.map(lambda v: v if v is None else str(v))
    levels = sorted(text.dropna().unique())
    if len(levels) > MAX_LEVELS:
        notes.append(f"Column {name!r} has {len(levels)} text levels (more than {MAX_LEVELS}); it is used as a "
                     f"categorical feature all the same, which can make it look important by chance.")
    return pd.Categorical(text, categories=levels)
