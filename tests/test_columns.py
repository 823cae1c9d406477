"""The column-preparation stage: one small frame per kind, with exact expectations.

Every expected value is computed independently here (pandas' own date parts, counts done by
hand), never read back from the stage under test.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from imlkit import _dtypes
from imlkit._columns import KnownLevels, MissingImputer, complete_rows, prepare_columns
from imlkit.report._data import ReportInputError, load_dataset
from imlkit.report._fit import baseline_models, make_model


def _decision(prep, column):
    row = prep.decisions.set_index("column").loc[column]
    return row["kind"], row["action"], row["reason"]


# --------------------------------------------------------------------------- kinds
@pytest.mark.parametrize("values, kind", [
    ([1.5, 2.0, np.nan], "numeric"),
    ([1, 2, 3], "numeric"),
    ([True, False, True], "boolean"),
    (["True", "false", None], "boolean"),
    (["a", "b", None], "categorical"),
    (pd.Categorical(["x", "y"]), "categorical"),
    (["2011-01-01", "2011-01-02", None], "datetime"),
    (["01/31/2011 13:05", "02/01/2011 14:00"], "datetime"),
    (pd.to_datetime(["2011-01-01", "2012-05-01"]), "datetime"),
    (["2011", "2012"], "categorical"),  # years as text are not dates (and not read as dates)
    (["1.5", "2.5"], "categorical"),
])
def test_column_kind_table(values, kind):
    assert _dtypes.column_kind(pd.Series(values)) == kind


def test_date_text_becomes_year_month_weekday():
    n = 400
    dates = pd.date_range("2011-12-01", periods=n, freq="D")
    df = pd.DataFrame({"when": dates.strftime("%Y-%m-%d"), "x": np.arange(n) % 7 * 1.5, "y": np.arange(n) * 0.5})
    prep = prepare_columns(df, target="y")
    assert list(prep.X.columns) == ["when_year", "when_month", "when_weekday", "x"]
    assert_array_equal(prep.X["when_year"], dates.year)
    assert_array_equal(prep.X["when_month"], dates.month)
    assert_array_equal(prep.X["when_weekday"], dates.day_of_week)
    kind, action, reason = _decision(prep, "when")
    assert kind == "date/time"
    assert "'when_year' = year" in action and "'when_weekday' = weekday (0 = Monday)" in action
    assert "2011-12-01 to 2013-01-03" in reason and "400 distinct" in reason


def test_datetime_dtype_hours_within_one_day_and_yearly_dates():
    stamps = pd.date_range("2020-03-01 00:00", periods=48, freq="30min")
    prep = prepare_columns(pd.DataFrame({"t": stamps, "y": np.arange(48.0)}), target="y")
    assert list(prep.X.columns) == ["t_hour"]  # year, month and weekday do not vary
    assert_array_equal(prep.X["t_hour"], stamps.hour)
    # Yearly dates: weekday would only alias the calendar, so year alone is used.
    yearly = pd.date_range("2000-01-01", periods=30, freq="YS")
    prep = prepare_columns(pd.DataFrame({"d": yearly.astype(str), "y": np.arange(30.0)}), target="y")
    assert list(prep.X.columns) == ["d_year"]
    assert_array_equal(prep.X["d_year"], np.arange(2000, 2030))


def test_dates_within_one_month_use_weekday_and_unparseable_dates_are_missing():
    days = pd.date_range("2021-02-01", periods=20, freq="D").strftime("%Y-%m-%d").tolist()
    days[3] = "2021-02-31"  # looks like a date, is not one
    prep = prepare_columns(pd.DataFrame({"d": days, "y": np.arange(20.0)}), target="y")
    assert list(prep.X.columns) == ["d_weekday"]
    expected = pd.to_datetime(pd.Series(days), errors="coerce").dt.day_of_week
    assert_array_equal(prep.X["d_weekday"].isna(), expected.isna())
    assert_allclose(prep.X["d_weekday"].dropna(), expected.dropna())
    assert "1 value(s) that are not dates are treated as missing" in _decision(prep, "d")[1]


def test_days_since_first_date_when_no_calendar_part_varies():
    # Two dates a week apart (same month and weekday): the only usable number is the elapsed time.
    d = pd.Series(["2020-05-04", "2020-05-11"] * 10)
    prep = prepare_columns(pd.DataFrame({"d": d, "y": np.arange(20.0)}), target="y")
    assert list(prep.X.columns) == ["d_days"]
    assert_allclose(prep.X["d_days"], [0.0, 7.0] * 10)
    assert "days since the first date (2020-05-04)" in _decision(prep, "d")[1]


def test_id_columns_are_set_aside():
    rng = np.random.default_rng(0)
    n = 200
    df = pd.DataFrame({"name": [f"user{i:04d}" for i in rng.permutation(n)],
                       "customer_id": rng.choice(10 ** 6, size=n, replace=False),
                       "income": rng.choice(10 ** 6, size=n, replace=False),  # unique integers, not an ID
                       "two_per_id": np.repeat([f"k{i}" for i in range(n // 2)], 2),
                       "y": rng.normal(size=n)})
    prep = prepare_columns(df, target="y")
    assert list(prep.X.columns) == ["income"]
    assert prep.set_aside == ["name", "customer_id", "two_per_id"]
    assert _decision(prep, "name")[0] == "ID-like" and "unique per row" in _decision(prep, "name")[2]
    assert _decision(prep, "customer_id")[0] == "ID-like"
    # 100 levels of 2 rows each: an identifier, and every level would be rare anyway.
    assert _decision(prep, "two_per_id")[0] == "ID-like"
    assert (prep.decisions.loc[prep.decisions["kind"] == "ID-like", "action"] == "set aside").all()


@pytest.mark.parametrize("name, is_id", [("id", True), ("customer_id", True), ("PatientID", True),
                                         ("orderId", True), ("width", False), ("valid", False)])
def test_unique_integers_are_an_id_only_when_named_so(name, is_id):
    rng = np.random.default_rng(6)
    prep = prepare_columns(pd.DataFrame({name: rng.choice(10 ** 6, size=50, replace=False),
                                         "y": rng.normal(size=50)}), target="y")
    assert (prep.set_aside == [name]) is is_id


def test_monotone_row_index_is_set_aside_but_a_year_is_kept():
    n = 60
    rng = np.random.default_rng(1)
    df = pd.DataFrame({"row": np.arange(1, n + 1), "Unnamed: 0": rng.permutation(n),
                       "year": np.arange(1950, 1950 + n), "y": rng.normal(size=n)})
    prep = prepare_columns(df, target="y")
    assert list(prep.X.columns) == ["year"]
    assert _decision(prep, "row") == ("ID-like", "set aside",
                                      "integers 1..60, one per row: a row number, not a property of the row")
    assert "0..59" in _decision(prep, "Unnamed: 0")[2]


def test_600_level_text_column_keeps_the_29_most_frequent_levels():
    rng = np.random.default_rng(2)
    levels = np.array([f"city{i:03d}" for i in range(600)])
    # Counts 1..? with a long tail, distinct enough to make "most frequent" exact.
    p = 1.0 / np.arange(1, 601)
    values = rng.choice(levels, size=6000, p=p / p.sum())
    df = pd.DataFrame({"city": values, "y": rng.normal(size=6000)})
    prep = prepare_columns(df, target="y", max_levels=30)
    counts = pd.Series(values).value_counts()
    top = sorted(counts.index, key=lambda lv: (-counts[lv], lv))[:29]
    col = prep.X["city"]
    assert isinstance(col.dtype, pd.CategoricalDtype)
    # frequent levels beyond the 29 are among the lumped ones: "(other levels)", not "(rare levels)"
    assert len(col.cat.categories) == 30 and col.cat.categories[-1] == "(other levels)"
    assert set(col.cat.categories[:-1]) == set(top)
    assert_array_equal(col.astype(str), np.where(np.isin(values, top), values, "(other levels)"))
    assert int((col == "(other levels)").sum()) == 6000 - int(counts[top].sum())
    assert "lumped into '(other levels)'" in _decision(prep, "city")[1]


@pytest.mark.parametrize("n_levels, expected", [(30, 30), (31, 30), (5, 5)])
def test_level_cap_adds_other_only_when_needed(n_levels, expected):
    values = [f"l{i:02d}" for i in range(n_levels) for _ in range(5 + i)]  # l00 is the rarest (5 rows)
    prep = prepare_columns(pd.DataFrame({"g": values, "y": np.arange(len(values), dtype=float)}), target="y")
    cats = list(prep.X["g"].cat.categories)
    assert len(cats) == expected
    if n_levels > 30:  # the two rarest (l00, l01: 5 and 6 rows, not rare) share the lumped level beyond the cap
        assert cats[-1] == "(other levels)" and "l00" not in cats and "l01" not in cats
        assert int((prep.X["g"] == "(other levels)").sum()) == 5 + 6
    else:
        assert "(other levels)" not in cats and "(rare levels)" not in cats


def test_an_existing_other_level_stays_a_level_of_its_own():
    # The lumped level used to be "other", and a data level "other" was merged into it (rare levels and a real
    # category under one name); BrainCancer showed "Other" (the data's) beside "other" (its one missing value).
    g = ["a"] * 20 + ["other"] * 10 + ["b"] * 20 + ["rare"] * 2
    prep = prepare_columns(pd.DataFrame({"g": g, "y": np.arange(52.0)}), target="y")
    assert list(prep.X["g"].cat.categories) == ["a", "b", "other", "(rare levels)"]
    assert int((prep.X["g"] == "other").sum()) == 10
    assert int((prep.X["g"] == "(rare levels)").sum()) == 2
    assert _decision(prep, "g")[1] == ("categorical with 4 levels; 1 level(s) with fewer than 5 rows (2 rows: "
                                       "'rare' (2)) lumped into '(rare levels)'")


def test_rare_level_becomes_other_and_missing_is_a_level():
    g = ["a"] * 50 + ["b"] * 40 + ["c"] * 3 + [None] * 7
    df = pd.DataFrame({"g": g, "y": np.arange(100.0)})
    prep = prepare_columns(df, target="y", min_count=5)
    col = prep.X["g"]
    assert list(col.cat.categories) == ["a", "b", "(missing)", "(rare levels)"]
    assert_array_equal(col.astype(str), ["a"] * 50 + ["b"] * 40 + ["(rare levels)"] * 3 + ["(missing)"] * 7)
    kind, action, _ = _decision(prep, "g")
    assert kind == "categorical"
    assert "1 level(s) with fewer than 5 rows (3 rows: 'c' (3)) lumped into '(rare levels)'" in action
    # New data: an unseen level joins the lumped level too.
    new = prep.transform(pd.DataFrame({"g": ["b", "zzz", None, "c"]}))
    assert_array_equal(new["g"].astype(str), ["b", "(rare levels)", "(missing)", "(rare levels)"])


def test_mostly_missing_column_becomes_an_indicator_and_rows_are_kept():
    rng = np.random.default_rng(3)
    n = 400
    x = rng.normal(size=n)
    sparse = np.where(rng.random(n) < 0.9, np.nan, x)
    some = np.where(rng.random(n) < 0.2, np.nan, x)
    y = x.copy()
    y[[0, 5]] = np.nan
    prep = prepare_columns(pd.DataFrame({"sparse": sparse, "some": some, "y": y}), target="y", max_missing=0.5)
    keep = ~np.isnan(y)
    assert prep.n_rows == 400 and prep.dropped_target_rows == 2 and len(prep.X) == 398
    assert list(prep.X.columns) == ["sparse_missing", "some"]
    assert_array_equal(prep.X["sparse_missing"], np.isnan(sparse[keep]).astype(int))
    assert_array_equal(prep.X["some"].isna(), np.isnan(some[keep]))  # NaN rows kept, not dropped
    assert int(prep.missing["sparse"]) == int(np.isnan(sparse).sum())
    assert int(prep.missing["y"]) == 2
    kind, _, reason = _decision(prep, "sparse")
    share = np.isnan(sparse[keep]).mean()
    assert kind == "mostly missing" and f"{share:.0%} of the values are missing" in reason
    assert "2 row(s) with a missing target removed" in _decision(prep, "y")[1]


def test_boolean_and_constant_columns():
    df = pd.DataFrame({"flag": [True, False] * 15, "text_flag": ["True", "False", None] * 10,
                       "const": [3.0] * 30, "const_text": ["same"] * 30, "y": np.arange(30.0)})
    prep = prepare_columns(df, target="y")
    assert list(prep.X.columns) == ["flag", "text_flag"]
    assert_array_equal(prep.X["flag"], [1, 0] * 15)
    assert prep.X["flag"].dtype.kind == "i"
    assert_allclose(prep.X["text_flag"], [1.0, 0.0, np.nan] * 10)
    assert _decision(prep, "flag")[:2] == ("boolean", "used as 0/1 (1 = true)")
    assert _decision(prep, "const") == ("constant", "set aside",
                                        "a single value ('3.0') in every row: it cannot explain anything")
    assert _decision(prep, "const_text")[0] == "constant"


def test_nullable_integers_and_infinite_values_become_plain_floats_with_nan():
    df = pd.DataFrame({"k": pd.array([1, None, 3, 4] * 5, dtype="Int64"), "v": [1.0, np.inf, -np.inf, 2.0] * 5,
                       "y": np.arange(20.0)})
    prep = prepare_columns(df, target="y")
    assert prep.X["k"].dtype == np.float64 and prep.X["v"].dtype == np.float64
    assert_allclose(prep.X["k"], [1.0, np.nan, 3.0, 4.0] * 5)
    assert_allclose(prep.X["v"], [1.0, np.nan, np.nan, 2.0] * 5)
    assert "10 infinite value(s) treated as missing" in _decision(prep, "v")[1]


def test_numbers_stored_as_text_with_a_missing_marker():
    vals = [str(v) for v in np.arange(40) / 4]
    vals[7] = "?"
    prep = prepare_columns(pd.DataFrame({"v": vals, "y": np.arange(40.0)}), target="y")
    expected = np.arange(40) / 4
    expected[7] = np.nan
    assert_allclose(prep.X["v"], expected)
    assert "1 value(s) that are not numbers (e.g. '?') are treated as missing" in _decision(prep, "v")[1]


def test_prepare_columns_errors():
    df = pd.DataFrame({"a": [1, 2], "y": [1, 2]})
    with pytest.raises(TypeError, match="'frame' must be a pandas DataFrame; got ndarray"):
        prepare_columns(df.to_numpy())
    with pytest.raises(ValueError, match="'max_levels' must be an int >= 2; got 1"):
        prepare_columns(df, max_levels=1)
    with pytest.raises(ValueError, match="'target' 'z' is not a column"):
        prepare_columns(df, target="z")
    with pytest.raises(ValueError, match=r"'features' \['q'\] are not columns"):
        prepare_columns(df, features=["q"])


# --------------------------------------------------------------------------- models and helpers
def test_missing_imputer_uses_training_medians_and_indicators():
    train = pd.DataFrame({"a": [1.0, np.nan, 3.0, 10.0], "b": [1.0, 2.0, 3.0, 4.0],
                          "g": pd.Categorical(["u", "v", "u", "v"])})
    imp = MissingImputer().fit(train)
    out = imp.transform(train)
    assert list(out.columns) == ["a", "b", "g", "a (missing)"]
    assert_allclose(out["a"], [1.0, 3.0, 3.0, 10.0])  # median of 1, 3, 10
    assert_allclose(out["a (missing)"], [0, 1, 0, 0])
    assert isinstance(out["g"].dtype, pd.CategoricalDtype)
    test = pd.DataFrame({"a": [np.nan], "b": [np.nan], "g": pd.Categorical(["u"], categories=["u", "v"])})
    out = imp.transform(test)
    assert_allclose(out[["a", "b", "a (missing)"]].to_numpy(), [[3.0, 2.5, 1.0]])  # b: no indicator, median 2.5


def test_known_levels_maps_levels_without_training_rows():
    cats = ["a", "b", "other"]
    train = pd.DataFrame({"g": pd.Categorical(["a", "b", "b", "a", "b"], categories=cats),
                          "one": pd.Categorical(["z"] * 5)})
    guard = KnownLevels().fit(train)
    test = pd.DataFrame({"g": pd.Categorical(["other", "a"], categories=cats), "one": pd.Categorical(["z", "z"])})
    out = guard.transform(test)
    assert list(out.columns) == ["g"]  # one level in training: no information, removed
    assert_array_equal(out["g"].astype(str), ["b", "a"])  # "other" unseen: the most frequent training level


@pytest.mark.parametrize("name", ["glm", "rf", "gbm"])
def test_models_take_missing_values_and_levels_only_in_test_rows(name):
    rng = np.random.default_rng(4)
    n = 120
    x = rng.normal(size=n)
    g = pd.Categorical(rng.choice(["a", "b"], size=n), categories=["a", "b", "other"])
    X = pd.DataFrame({"x": np.where(rng.random(n) < 0.2, np.nan, x), "g": g})
    y = pd.Series(2 * x + rng.normal(scale=0.1, size=n))
    X_test = X.head(10).copy()
    X_test.loc[0, "g"] = "other"  # a level with no training row
    model = make_model(name, "regression", X, y, 0).fit(X, y)
    pred = model.predict(X_test)
    assert pred.shape == (10,) and np.isfinite(pred).all()
    for est in baseline_models("regression", X, y).values():
        assert np.isfinite(est.fit(X, y).predict(X_test)).all()


def test_complete_rows():
    X = pd.DataFrame({"a": [1.0, np.nan, 3.0], "b": ["u", "v", None]})
    Xc, yc = complete_rows(X, np.array([10, 20, 30]))
    assert_array_equal(Xc["a"], [1.0])
    assert_array_equal(yc, [10])
    assert len(complete_rows(X)) == 1


def test_load_dataset_takes_a_dataframe_without_changing_it():
    rng = np.random.default_rng(5)
    df = pd.DataFrame({"id": [f"r{i}" for i in range(50)], "x": rng.normal(size=50), "y": rng.normal(size=50)})
    df.loc[3, "x"] = np.nan
    df.loc[4, "y"] = np.nan
    before = df.copy()
    ds = load_dataset(data=df, target="y")
    pd.testing.assert_frame_equal(df, before)
    assert ds.source == "a DataFrame (50 rows)"
    assert list(ds.X.columns) == ["x"] and len(ds.X) == 49 and ds.dropped_rows == 1 and ds.n_rows == 50
    assert ds.rows_with_missing == 1
    assert list(ds.decisions["kind"]) == ["ID-like", "numeric", "target"]
    with pytest.raises(ReportInputError, match="Every feature was set aside"):
        load_dataset(data=df[["id", "y"]], target="y")
    with pytest.raises(ReportInputError, match="'data' must be a CSV/Parquet path, a pandas DataFrame or None"):
        load_dataset(data=3, target="y")


# --------------------------------------------------------------------------- keep / as_given
def _awkward_frame(n=40):
    rng = np.random.default_rng(3)
    return pd.DataFrame({
        "ID": np.arange(1, n + 1),
        "const": 7.0,
        "day": [f"2020-01-{i % 28 + 1:02d}" for i in range(n)],
        "town": ["a"] * (n - 3) + ["b", "c", None],
        "x": rng.normal(size=n),
        "y": rng.normal(size=n)})


def test_as_given_columns_keep_their_values_and_are_never_set_aside():
    df = _awkward_frame()
    plain = prepare_columns(df, target="y")
    assert set(plain.set_aside) == {"ID", "const"} and "day" not in plain.X.columns
    given = prepare_columns(df, target="y", as_given=["ID", "const", "day", "town", "x"])
    assert list(given.X.columns) == ["ID", "const", "day", "town", "x"] and given.set_aside == []
    assert_array_equal(given.X["ID"], df["ID"])
    assert_array_equal(given.X["x"], df["x"])
    assert_array_equal(given.X["day"].astype(str), df["day"])  # the dates as they were, not their parts
    town = given.X["town"]  # every level its own (nothing lumped into "other"), missing stays missing
    assert isinstance(town.dtype, pd.CategoricalDtype) and set(town.cat.categories) == {"a", "b", "c"}
    assert town.isna().sum() == 1 and (town.astype(object) == df["town"]).sum() == len(df) - 1
    dec = given.decisions.set_index("column")
    assert dec.loc["ID", "action"].startswith("used as given: the fitted model was fitted on it; preparation "
                                              "would set it aside")
    assert "prepared, it would be replaced by" in dec.loc["day", "action"]
    assert dec.loc["x", "action"] == "used as is"  # a column preparation leaves unchanged keeps its own row


def test_keep_only_overrides_setting_aside():
    df = _awkward_frame()
    prep = prepare_columns(df, target="y", keep=["ID", "day"])
    assert "ID" in prep.X.columns and "day" not in prep.X.columns  # dates are still turned into their parts
    assert "it was asked for" in prep.decisions.set_index("column").loc["ID", "action"]
    assert "const" in prep.set_aside


def test_load_dataset_without_preparation_and_with_test_rows():
    df = _awkward_frame(60)
    ds = load_dataset(df, target="y", prepare=False)
    assert list(ds.X.columns) == ["ID", "const", "day", "town", "x"]
    assert any("preparation is off" in n for n in ds.notes)
    ds = load_dataset(df.iloc[:45], target="y", test=df.iloc[45:])
    assert ds.n_train == 45 and len(ds.X) == 60
    assert_array_equal(ds.y.to_numpy(), df["y"].to_numpy())
    # a level only the test rows have is a known category of both parts (decided on both tables)
    assert "c" in ds.X["town"].cat.categories or "(rare levels)" in ds.X["town"].cat.categories
    with pytest.raises(ReportInputError, match=r"lacks column\(s\) \['x'\]"):
        load_dataset(df.iloc[:45], target="y", test=df.iloc[45:].drop(columns="x"))


def test_own_models_fill_missing_levels_and_leave_out_dates_and_identifiers():
    df = _awkward_frame(60).assign(code=[f"k{i}" for i in range(60)])
    df["day"] = pd.to_datetime(df["day"])
    prep = prepare_columns(df, target="y", as_given=["code", "day", "town", "x"])
    dec = prep.decisions.set_index("column")["action"]
    assert dec["code"].endswith("leave it out (more than 30 levels)") and dec["day"].endswith("(a date)")
    assert dec["town"].endswith("its missing values are the level '(missing)'")
    X = prep.X
    filled = MissingImputer().fit(X).transform(X)
    assert filled["town"].isna().sum() == 0 and (filled["town"] == "(missing)").sum() == 1
    guard = KnownLevels().fit(filled)
    assert sorted(guard.dropped_) == ["code", "day"]
    assert list(guard.transform(filled).columns) == ["town", "x"]
