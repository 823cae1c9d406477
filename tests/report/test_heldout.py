"""Where the report scores the model, and that it says so truthfully; a fitted model's columns; rare classes.

Three cases (``ReportContext.evaluation``): imlkit fits the model on its own split ("split"),
held-out rows are given as ``test_data`` ("test_data"), a fitted model comes with one table
("all_rows": every row is evaluation data, and the report never calls them held out).
Small tables and ``quick=True`` with few methods keep every test to a few seconds.
"""
from __future__ import annotations

import html
import re

import joblib
import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.metrics import r2_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder

from imlkit.cli import main
from imlkit.report import ReportConfig, ReportInputError, build_report
from imlkit.report._build import prepare_context
from imlkit.report._fit import rare_classes


def _text(path):
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", open(path, encoding="utf-8").read())).split())


def _regression_table(n=240, seed=0):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n), "c": rng.choice(["u", "v", "w"], n)})
    df["y"] = 2 * df["a"] + df["b"] ** 2 + (df["c"] == "u") + rng.normal(0, 0.5, n)
    return df


@pytest.fixture(scope="module")
def user_split():
    """A model fitted by the user on their own 75% split (with its own encoding of the text column)."""
    df = _regression_table()
    train, test = df.iloc[:180], df.iloc[180:]
    feats = ["a", "b", "c"]
    model = make_pipeline(ColumnTransformer([("num", "passthrough", ["a", "b"]),
                                             ("cat", OneHotEncoder(handle_unknown="ignore"), ["c"])]),
                          GradientBoostingRegressor(n_estimators=60, random_state=0))
    model.fit(train[feats], train["y"])
    return df, train, test, model


def test_given_test_rows_are_where_a_fitted_model_is_scored(user_split, tmp_path):
    df, train, test, model = user_split
    truth = r2_score(test["y"], model.predict(test[["a", "b", "c"]]))
    ctx = prepare_context(ReportConfig(data=train, test_data=test, target="y", model=model, quick=True))
    assert ctx.evaluation == "test_data" and ctx.model is model
    assert len(ctx.X_train) == 180 and len(ctx.X_test) == 60
    assert_allclose(ctx.model_check.performance["R²"], truth, rtol=0, atol=1e-12)
    assert_array_equal(ctx.y_test.to_numpy(), test["y"].to_numpy())
    path = build_report(data=train, test_data=test, target="y", model=model, quick=True, methods=("pfi", "loco"),
                        out=str(tmp_path / "r"))
    doc = _text(path)
    assert "scored on the 60 rows given as test data" in doc
    assert "cannot check that the test rows were not among its training rows" in doc
    assert f"{truth:.4g}" in doc  # section 2's R² is the held-out one


def test_fitted_model_and_one_table_never_says_held_out(user_split, tmp_path):
    df, _, _, model = user_split
    ctx = prepare_context(ReportConfig(data=df, target="y", model=model, quick=True))
    assert ctx.evaluation == "all_rows" and len(ctx.X_test) == len(df) == len(ctx.X_train)
    assert_allclose(ctx.model_check.performance["R²"], r2_score(df["y"], model.predict(df[["a", "b", "c"]])),
                    rtol=0, atol=1e-12)
    X_fit, _, X_check, _ = ctx.refit_rows  # the refits' own split of the same table
    assert len(X_fit) + len(X_check) == len(df) and len(X_check) == int(np.ceil(0.3 * len(df)))
    X, _ = ctx.rows("loco")
    assert len(X) == len(X_check)
    path = build_report(data=df, target="y", model=model, quick=True, methods=("pfi", "loco", "models"),
                        out=str(tmp_path / "r"))
    doc = _text(path)
    assert not re.search(r"held[- ]out", doc, flags=re.I)
    assert "rows of the table (possibly the black box's training rows; these interpretable models were fitted" in doc
    assert doc.count("imlkit cannot know which") >= 3  # the top warning, section 1/2 and section 7
    assert "test_data=" in doc and "--test-data" in doc
    assert "failed" not in doc


def test_imlkit_fitted_model_is_scored_on_its_held_out_split(tmp_path):
    df = _regression_table()
    ctx = prepare_context(ReportConfig(data=df, target="y", model="glm", quick=True))
    assert ctx.evaluation == "split" and ctx.refit_rows is None
    assert len(ctx.X_train) + len(ctx.X_test) == len(df)
    # an unfitted estimator with test_data is fitted on every row of data and scored on the test rows
    train, test = df.iloc[:180][["a", "b", "y"]], df.iloc[180:][["a", "b", "y"]]
    ctx = prepare_context(ReportConfig(data=train, test_data=test, target="y", model=Ridge(), quick=True))
    own = Ridge().fit(train[["a", "b"]], train["y"])
    assert ctx.evaluation == "test_data" and len(ctx.X_train) == 180
    assert_allclose(ctx.model_check.performance["R²"], r2_score(test["y"], own.predict(test[["a", "b"]])),
                    rtol=0, atol=1e-12)
    path = build_report(data=df, target="y", quick=True, methods=("pfi",), out=str(tmp_path / "r"))
    doc = _text(path)
    assert "Fitted on 168 training rows, scored on 72 held-out test rows" in doc


def test_pipeline_selecting_columns_by_name_keeps_the_id_column(tmp_path, capsys):
    rng = np.random.default_rng(1)
    n = 120
    df = pd.DataFrame({"ID": np.arange(1, n + 1), "Income": rng.gamma(2, 20, n), "Limit": rng.normal(5000, 900, n),
                       "Student": rng.choice(["Yes", "No"], n), "Region": rng.choice(["N", "S", "E"], n)})
    df["Balance"] = 0.2 * df["Limit"] - 3 * df["Income"] + 300 * (df["Student"] == "Yes") + rng.normal(0, 50, n)
    cols = ["ID", "Income", "Limit", "Student", "Region"]
    model = make_pipeline(ColumnTransformer([("num", "passthrough", ["ID", "Income", "Limit"]),
                                             ("cat", OneHotEncoder(), ["Student", "Region"])]), Ridge(1.0))
    model.fit(df[cols], df["Balance"])
    path = build_report(data=df, target="Balance", model=model, quick=True, methods=("pfi", "loco"),
                        out=str(tmp_path / "py"))
    doc = _text(path)
    assert "failed" not in doc
    assert "ID ID-like used as given: the fitted model was fitted on it; preparation would set it aside" in doc
    # the same model from a pickle on the command line
    csv, pkl = tmp_path / "credit.csv", tmp_path / "model.pkl"
    df.to_csv(csv, index=False)
    joblib.dump(model, pkl)
    code = main(["report", "--data", str(csv), "--target", "Balance", "--model-file", str(pkl), "--trust-model-file",
                 "--quick", "--methods", "pfi", "--out", str(tmp_path / "cli"), "--quiet"])
    err = capsys.readouterr().err
    assert code == 0, err
    doc = _text(tmp_path / "cli" / "report.html")
    assert "failed" not in doc and "imlkit cannot know which" in doc
    # a model fitted on columns the data lacks is one clear error
    with pytest.raises(ReportInputError, match=r"fitted on column\(s\) \['ID'\] that the data does not have"):
        build_report(data=df.drop(columns="ID"), target="Balance", model=model, quick=True, methods=("pfi",),
                     out=str(tmp_path / "x"))
    # --features that differ from the model's columns say which
    with pytest.raises(ReportInputError, match=r"leaves out \['ID'\]"):
        prepare_context(ReportConfig(data=df, target="Balance", model=model, features=cols[1:]))


def test_features_and_no_prepare_keep_what_preparation_would_set_aside(tmp_path, capsys):
    df = _regression_table(120).assign(row_id=np.arange(120), note=[f"t{i % 40}" for i in range(120)])
    ctx = prepare_context(ReportConfig(data=df, target="y", model="glm", quick=True))
    assert "row_id" not in ctx.X_train.columns
    ctx = prepare_context(ReportConfig(data=df, target="y", model="glm", quick=True, features=("a", "b", "row_id")))
    assert list(ctx.X_train.columns) == ["a", "b", "row_id"]
    ctx = prepare_context(ReportConfig(data=df, target="y", model="gbm", quick=True, prepare=False))
    assert "row_id" in ctx.X_train.columns and ctx.data.X["note"].cat.categories.size == 40  # nothing lumped
    csv = tmp_path / "d.csv"
    df.to_csv(csv, index=False)
    code = main(["report", "--data", str(csv), "--target", "y", "--no-prepare", "--quick", "--methods", "pfi",
                 "--out", str(tmp_path / "r"), "--quiet"])
    assert code == 0, capsys.readouterr().err
    assert "column preparation is off" in _text(tmp_path / "r" / "report.html")
    with pytest.raises(ReportInputError, match="'prepare' must be True or False"):
        prepare_context(ReportConfig(data=df, target="y", prepare="no"))


def test_rare_classes_are_named():
    y = pd.Series(["a"] * 30 + ["b"] * 12 + ["rare"])
    assert rare_classes(y, 0.3) == ["rare"]
    assert rare_classes(pd.Series(["a"] * 30 + ["b"] * 12), 0.3) == []
    # 20 classes of 2 rows and one of 20: a test part of 18 rows cannot hold a row of each
    many = pd.Series([f"k{i:02d}" for i in range(20) for _ in range(2)] + ["big"] * 20)
    out = rare_classes(many, 0.3)
    kept = many[~many.isin(out)]
    n_test = int(np.ceil(0.3 * len(kept)))
    assert 0 < len(out) and min(n_test, len(kept) - n_test) >= kept.nunique()


def test_one_row_class_is_set_aside_and_every_method_runs(tmp_path):
    rng = np.random.default_rng(2)
    n = 120
    df = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n)})
    df["cls"] = np.where(df["a"] + 0.5 * rng.normal(size=n) > 0, "yes", "no")
    df.loc[7, "cls"] = "rare"
    path = build_report(data=df, target="cls", model="glm", quick=True, out=str(tmp_path / "r"),
                        methods=("pfi", "cfi", "loco", "sage", "pimp"), sage_removals=("marginal",))
    doc = _text(path)
    assert "failed" not in doc
    assert "1 row(s) of 1 class(es) too rare to appear in both the training and the test rows were set aside" in doc
    assert "'rare' (1 row)" in doc


def test_class_option_matches_by_value(tmp_path):
    rng = np.random.default_rng(4)
    n = 90
    df = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n),
                       "grade": rng.choice([4.0, 6.0, 8.0], n)})
    for wanted in (6, "6", 6.0, "6.0"):
        ctx = prepare_context(ReportConfig(data=df, target="grade", task="classification", model="gbm", quick=True,
                                           target_class=wanted))
        assert ctx.target_class == "6"  # whole numbers are labelled without ".0" (round 5: one spelling)
    with pytest.raises(ReportInputError, match=r"one of the classes of 'grade': '4', '6', '8'; got '5'"):
        prepare_context(ReportConfig(data=df, target="grade", task="classification", quick=True, target_class=5))
    # a fitted model whose classes are integers, with the target stored as floats
    model = LogisticRegression().fit(df[["a", "b"]], df["grade"].astype(int))
    ctx = prepare_context(ReportConfig(data=df, target="grade", task="classification", model=model, quick=True,
                                       target_class="6"))
    assert ctx.target_class == 6


def _days_since_2020(d):
    return (pd.to_datetime(d.iloc[:, 0]) - pd.Timestamp("2020-01-01")).dt.days.to_frame()


def test_fitted_model_on_raw_dates_text_ids_and_missing_text_gets_its_report(tmp_path):
    from sklearn.ensemble import RandomForestRegressor
    from sklearn.impute import SimpleImputer
    from sklearn.preprocessing import FunctionTransformer

    rng = np.random.default_rng(0)
    n = 150
    df = pd.DataFrame({"cust_id": [f"C{i:04d}" for i in range(n)],
                       "when": pd.date_range("2020-01-01", periods=n, freq="D").astype(str),
                       "town": rng.choice(["a", "b", "c"], n).astype(object), "x": rng.normal(size=n)})
    df.loc[rng.random(n) < 0.1, "town"] = np.nan
    df["y"] = 2 * df["x"] + (df["town"] == "a") + np.arange(n) / 100 + rng.normal(0, 0.3, n)
    town = make_pipeline(SimpleImputer(strategy="constant", fill_value="NA"), OneHotEncoder(handle_unknown="ignore"))
    model = make_pipeline(ColumnTransformer([("d", FunctionTransformer(_days_since_2020), ["when"]),
                                             ("t", town, ["town"]), ("i", OneHotEncoder(handle_unknown="ignore"),
                                                                     ["cust_id"]), ("x", "passthrough", ["x"])]),
                          RandomForestRegressor(30, random_state=0))
    model.fit(df.drop(columns="y"), df["y"])
    ctx = prepare_context(ReportConfig(data=df, target="y", model=model, quick=True))
    assert_array_equal(ctx.X_test["when"], df["when"])  # the date as the model was fitted on it
    assert ctx.X_test["town"].isna().sum() == df["town"].isna().sum()
    assert_allclose(ctx.model_check.performance["R²"], r2_score(df["y"], model.predict(df.drop(columns="y"))),
                    rtol=0, atol=1e-12)
    path = build_report(data=df, target="y", model=model, quick=True, methods=("pfi", "models"),
                        out=str(tmp_path / "r"))
    doc = _text(path)
    assert "failed" not in doc
    assert "imlkit's own models (baselines, section 6) leave it out (more than 30 levels)" in doc


def test_fitted_classifier_on_one_table_with_a_class_it_never_saw(tmp_path):
    rng = np.random.default_rng(5)
    n = 150
    df = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n)})
    df["cls"] = np.where(df["a"] > 0, "yes", "no")
    model = LogisticRegression().fit(df[["a", "b"]], df["cls"])  # fitted before the odd row arrived
    df.loc[3, "cls"] = "rare"
    ctx = prepare_context(ReportConfig(data=df, target="cls", model=model, quick=True))
    assert ctx.evaluation == "all_rows" and len(ctx.X_test) == n - 1 and "rare" not in set(ctx.y_test)
    X_fit, y_fit, X_check, y_check = ctx.refit_rows
    assert "rare" not in set(y_fit) | set(y_check) and len(X_fit) + len(X_check) == n - 1
    assert any("'rare' (1 row)" in note for note in ctx.data.notes)
    path = build_report(data=df, target="cls", model=model, quick=True, methods=("pfi", "loco"),
                        out=str(tmp_path / "r"))
    doc = _text(path)
    assert "failed" not in doc and not re.search(r"held[- ]out", doc, flags=re.I)


def test_target_stored_as_floats_is_named_as_the_fitted_model_names_its_classes(tmp_path):
    rng = np.random.default_rng(6)
    n = 120
    df = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n)})
    df["label"] = (df["a"] > 0).astype(int)
    model = LogisticRegression().fit(df[["a", "b"]], df["label"])  # classes_ = [0, 1]
    df["label"] = df["label"].astype(float)  # as read from a CSV with a missing target
    df.loc[0, "label"] = np.nan
    ctx = prepare_context(ReportConfig(data=df, target="label", task="classification", model=model, quick=True))
    # the model's own labels (0 and 1, as labels: object dtype), not their text: as "0"/"1" every method that looks
    # a label up in the model's classes_ failed (PFI, CFI, SAGE, LOCO)
    assert set(ctx.y_test) == {0, 1} and set(ctx.refit_rows[1]) == {0, 1} and ctx.y_test.dtype == object
    acc = float(np.mean(model.predict(df[["a", "b"]].iloc[1:]) == df["label"].iloc[1:]))
    assert_allclose(ctx.model_check.performance["accuracy"], acc, rtol=0, atol=1e-12)
