"""Real data sets shipped with imlkit (compressed CSVs; sources in data/README.md)."""
from __future__ import annotations

from importlib import resources

import pandas as pd

__all__ = ["load_bike", "load_wage", "load_penguins", "list_datasets", "data_path"]

_MONTHS = ["Jan", "Feb", "March", "April", "May", "June", "July", "Aug", "Sept", "Oct", "Nov", "Dec"]
_WEATHER = ["clear", "cloudy/misty", "light rain/snow", "heavy rain/snow"]

_INFO = {
    "bike": ("bikeshare_hourly_2011.csv.gz", "bikers",
             "Hourly Capital Bikeshare rentals in 2011 with weather and calendar (UCI, Fanaee-T & Gama 2013; "
             "as shipped in ISLP 0.6.0). CC BY 4.0.", "regression"),
    "wage": ("wage.csv.gz", "wage",
             "Wage of 3,000 Mid-Atlantic male workers (ISLR Wage, as shipped in ISLP 0.6.0).", "regression"),
    "penguins": ("penguins.csv.gz", "species",
                 "Palmer penguins (Horst, Hill & Gorman 2020; palmerpenguins 0.1.6). CC0.", "classification"),
}


def data_path(name):
    """Path of the shipped compressed CSV of data set ``name`` ("bike", "wage", "penguins")."""
    if name not in _INFO:
        raise ValueError(f"'name' must be one of {', '.join(repr(k) for k in _INFO)}; got {name!r}.")
    return resources.files("imlkit.datasets") / "data" / _INFO[name][0]


def _read(name):
    with resources.as_file(data_path(name)) as p:
        return pd.read_csv(p, compression="gzip")


def _split(frame, target, as_frame):
    X = frame.drop(columns=[target])
    y = frame[target]
    return (X, y) if as_frame else (X.to_numpy(), y.to_numpy())


def load_bike(*, as_frame=True):
    """Hourly bike rentals in Washington D.C. in 2011 (8,645 rows).

    Target ``bikers`` (rentals per hour). Features: ``season`` (1-4), ``mnth`` (ordered
    categorical Jan..Dec), ``day`` (day of the year), ``hr`` (0-23), ``holiday``,
    ``weekday`` (0-6), ``workingday`` (0/1), ``weathersit`` (ordered categorical: clear <
    cloudy/misty < light rain/snow < heavy rain/snow), ``temp``, ``atemp``, ``hum``,
    ``windspeed`` (normalised to [0, 1] as in the UCI release). ``casual`` and
    ``registered`` are dropped: they add up to ``bikers`` and would leak it.

    Returns
    -------
    X : DataFrame, shape (8645, 12)
    y : Series, shape (8645,)

    Examples
    --------
    >>> X, y = load_bike()
    >>> X.shape, y.name
    ((8645, 12), 'bikers')
    """
    df = _read("bike").drop(columns=["casual", "registered"])
    df["mnth"] = pd.Categorical(df["mnth"].astype(str), categories=_MONTHS, ordered=True)
    df["weathersit"] = pd.Categorical(df["weathersit"].astype(str), categories=_WEATHER, ordered=True)
    return _split(df, "bikers", as_frame)


def load_wage(*, as_frame=True):
    """ISLR's Wage data (3,000 rows): wage of male workers by year, age, education, ...

    Target ``wage`` (thousands of dollars). ``logwage`` is dropped (it is the target's log).
    Text columns (``maritl``, ``race``, ``education``, ``region``, ``jobclass``, ``health``,
    ``health_ins``) are categoricals; ``education`` is ordered (1. < HS Grad ... 5. Advanced Degree).

    Returns
    -------
    X : DataFrame, shape (3000, 9)
    y : Series, shape (3000,)
    """
    df = _read("wage").drop(columns=["logwage"])
    for c in ["maritl", "race", "education", "region", "jobclass", "health", "health_ins"]:
        levels = sorted(df[c].astype(str).unique())
        df[c] = pd.Categorical(df[c].astype(str), categories=levels, ordered=(c == "education"))
    return _split(df, "wage", as_frame)


def load_penguins(*, as_frame=True, dropna=True):
    """Palmer penguins (344 rows; 333 without missing values): classify ``species``.

    Features: ``island`` and ``sex`` (categoricals), bill length and depth, flipper length
    (mm), body mass (g), ``year``. ``dropna=True`` drops the 11 rows with missing values.

    Returns
    -------
    X : DataFrame, shape (333, 7)
    y : Series of str, shape (333,)
    """
    df = _read("penguins")
    if dropna:
        df = df.dropna().reset_index(drop=True)
    for c in ["island", "sex"]:
        df[c] = pd.Categorical(df[c].astype(object).where(df[c].notna(), None))
    df["species"] = df["species"].astype(str)
    return _split(df, "species", as_frame)


def list_datasets():
    """A DataFrame of the shipped data sets: name, rows, columns, target, task, source."""
    rows = []
    loaders = {"bike": load_bike, "wage": load_wage, "penguins": load_penguins}
    for name, (_, target, source, task) in _INFO.items():
        X, _ = loaders[name]()
        rows.append(dict(name=name, rows=len(X), features=X.shape[1], target=target, task=task, source=source))
    return pd.DataFrame(rows).set_index("name")
