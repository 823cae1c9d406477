"""Integer codes read as quantities (Auto's origin 1/2/3, OJ's StoreID): section 1 names the integer columns that may
be codes, and ``--categorical`` reads named columns as categories before anything else (design §6)."""
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from imlkit.report import ReportConfig, ReportInputError
from imlkit.report._build import prepare_context
from imlkit.report._data import integer_codes, load_dataset


def _codes_table(n=300, seed=0):
    """y depends on a 1/2/3 code non-monotonically (2 is highest), beside a 0/1 flag, a 40-value integer (an age), a
    3..8 count (cylinders-like) and prices with few values."""
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({
        "origin": rng.integers(1, 4, n),
        "flag": rng.integers(0, 2, n),
        "age": rng.integers(20, 60, n),
        "cyl": rng.choice([3, 4, 5, 6, 8], n),
        "price": rng.choice([1.69, 1.79, 1.86, 1.99], n),
        "x": rng.normal(size=n),
    })
    df["y"] = df["origin"].map({1: 0.0, 2: 3.0, 3: 1.0}) + df["x"] + 0.3 * rng.normal(size=n)
    return df


def _warning(ctx):
    from imlkit.report._sec_data import integer_code_warning

    return [b["text"] for b in integer_code_warning(ctx)]


def test_a_one_two_three_code_is_found_and_a_flag_an_age_a_count_and_prices_are_not():
    df = _codes_table()
    ds = load_dataset(df, target="y")
    assert integer_codes(ds.X, ds.decisions) == [("origin", [1, 2, 3])]
    # the bounds: 0/1 is not a code question; 11 values is above the bound the report reads an integer target by
    wide = pd.DataFrame({"a": np.arange(200) % 11, "b": np.arange(200) % 10, "c": np.arange(200) % 2})
    assert integer_codes(wide) == [("b", list(range(10)))]
    # a missing value does not hide a code; whole floats count, other floats do not
    gaps = pd.DataFrame({"s": [1.0, 2.0, np.nan, 4.0] * 10, "f": [0.5, 1.0, 2.0, 3.0] * 10})
    assert integer_codes(gaps) == [("s", [1, 2, 4])]


def test_section_one_names_the_code_with_its_values_and_the_way_to_change_it():
    ctx = prepare_context(ReportConfig(data=_codes_table(), target="y", methods="pfi"))
    said = _warning(ctx)
    assert len(said) == 1
    assert said[0].startswith("Integer columns that may be codes: origin (values 1, 2, 3) -- whole numbers with 3 to "
                              "10 distinct values, the smallest 0 or 1.")
    assert ("the GLM (section 2's baseline, section 6) fits one slope per unit (for origin, going from 1 to 2 "
            "changes the prediction as much as going from 2 to 3)") in said[0]
    assert "pass --categorical origin (categorical= from Python)" in said[0]
    assert "flag" not in said[0] and "age" not in said[0] and "cyl" not in said[0]
    # named with --categorical: it is a category, and the caveat is gone
    ctx = prepare_context(ReportConfig(data=_codes_table(), target="y", methods="pfi", categorical="origin"))
    assert _warning(ctx) == []


def test_many_codes_are_named_up_to_five_and_the_rest_counted():
    rng = np.random.default_rng(0)
    df = pd.DataFrame({f"c{i}": rng.integers(0, 3 + i, 200) for i in range(8)})
    df["y"] = rng.normal(size=200)
    ds = load_dataset(df, target="y")
    said = _warning(SimpleNamespace(data=ds, config=ReportConfig()))[0]
    assert said.startswith("Integer columns that may be codes: c0 (values 0, 1, 2), c1 (values 0, 1, 2, 3), c2 "
                           "(values 0, 1, 2, 3, 4), c3 (6 values, 0 to 5), c4 (7 values, 0 to 6) and 3 other columns "
                           "(8 to 10 values) -- whole numbers")
    assert "--categorical c0,c1,c2,c3,c4 " in said


def test_categorical_gives_the_glm_one_coefficient_per_level_instead_of_one_slope():
    df = _codes_table()
    as_number = prepare_context(ReportConfig(data=df, target="y", model="glm", methods="pfi"))
    as_levels = prepare_context(ReportConfig(data=df, target="y", model="glm", methods="pfi", categorical=["origin"]))
    glm_n, glm_c = as_number.model[-1], as_levels.model[-1]
    names_n = list(glm_n.summary().index)
    names_c = list(glm_c.summary().index)
    assert "origin" in names_n and not any(n.startswith("origin[") for n in names_n)
    assert [n for n in names_c if n.startswith("origin")] == ["origin[2]", "origin[3]"]  # level 1 is the reference
    assert len(glm_c.coef_) == len(glm_n.coef_) + 1
    # the levels fit the non-monotone code: 2 is 3 above 1, 3 is 1 above 1 (the data's truth), which one slope cannot
    # (standard errors 0.055 on these 300 rows: 0.15 is about three of them)
    np.testing.assert_allclose(glm_c.coef_[["origin[2]", "origin[3]"]].to_numpy(), [3.0, 1.0], atol=0.15)
    # the preparation says why, and section 7 records it
    ds = as_levels.data
    row = ds.decisions.set_index("column").loc["origin"]
    assert row["kind"] == "categorical" and row["reason"].startswith("named in --categorical (categorical=)")
    assert list(as_levels.X_train["origin"].cat.categories) == ["1", "2", "3"]
    from imlkit.report._sec_provenance import section_provenance

    texts = [b.get("text", "") for b in section_provenance(as_levels)["blocks"]]
    assert any("read as categories (--categorical): origin" in t for t in texts)
    assert as_levels.config.categorical == ("origin",)


def test_gradient_boosting_gets_the_code_as_a_category():
    df = _codes_table()
    ctx = prepare_context(ReportConfig(data=df, target="y", methods="pfi", categorical="origin"))
    assert isinstance(ctx.X_train["origin"].dtype, pd.CategoricalDtype)
    assert bool(ctx.model.is_categorical_[list(ctx.X_train.columns).index("origin")])


def test_categorical_levels_follow_the_numbers_and_keep_missing_values():
    df = _codes_table(120)
    df["origin"] = df["origin"].astype(float)
    df.loc[::10, "origin"] = np.nan
    df.loc[df["origin"] == 3, "origin"] = 10.0
    ds = load_dataset(df, target="y", categorical=("origin",))
    assert list(ds.X["origin"].cat.categories) == ["1", "2", "10", "(missing)"]


def test_bad_categorical_names_are_refused_with_the_problem_named():
    df = _codes_table()
    with pytest.raises(ReportInputError, match=r"'--categorical' names 'orgin', not column\(s\) of the data; its "
                                               r"columns are \['origin', 'flag', 'age', 'cyl', 'price', 'x', 'y'\]"):
        prepare_context(ReportConfig(data=df, target="y", categorical="orgin", methods="pfi"))
    with pytest.raises(ReportInputError, match=r"'--categorical' names the target 'y'"):
        prepare_context(ReportConfig(data=df, target="y", categorical="y", methods="pfi"))
    with pytest.raises(ReportInputError, match=r"'--categorical' names 'origin', not among '--features'"):
        prepare_context(ReportConfig(data=df, target="y", features=("x", "age"), categorical="origin", methods="pfi"))
    with pytest.raises(ReportInputError, match=r"'categorical' names 'origin' more than once"):
        ReportConfig(categorical=["origin", "origin"])
    with pytest.raises(ReportInputError, match=r"'categorical' is empty"):
        ReportConfig(categorical=" , ")
    from sklearn.linear_model import LinearRegression

    model = LinearRegression().fit(df[["origin", "x"]], df["y"])
    with pytest.raises(ReportInputError, match=r"'--categorical' cannot change 'origin': the fitted model was fitted "
                                               r"on it as given"):
        prepare_context(ReportConfig(data=df, target="y", model=model, categorical="origin", methods="pfi"))


def test_a_fitted_models_codes_are_named_without_offering_categorical():
    from sklearn.linear_model import LinearRegression

    df = _codes_table()
    model = LinearRegression().fit(df[["origin", "x"]], df["y"])
    said = _warning(prepare_context(ReportConfig(data=df, target="y", model=model, methods="pfi")))[0]
    assert "origin (values 1, 2, 3)" in said
    assert "imlkit's own models read them as amounts: the GLM (section 2's baseline, section 6)" in said
    assert "--categorical cannot change its columns" in said and "pass --categorical" not in said


def test_the_shipped_bike_data_names_season_and_weekday():
    from imlkit.report._data import load_dataset

    ds = load_dataset(None, dataset="bike")
    assert integer_codes(ds.X, ds.decisions) == [("season", [1, 2, 3, 4]), ("weekday", list(range(7)))]
    said = _warning(SimpleNamespace(data=ds, config=ReportConfig()))[0]
    assert said.startswith("Integer columns that may be codes: season (values 1, 2, 3, 4), weekday (7 values, 0 to "
                           "6) --")
    assert "holiday" not in said and "workingday" not in said  # 0/1


def test_the_command_line_reads_categorical_and_refuses_an_unknown_column(tmp_path, capsys):
    from imlkit.cli import _config, build_parser, main

    path = tmp_path / "t.csv"
    _codes_table(60).to_csv(path, index=False)
    args = build_parser().parse_args(["report", "--data", str(path), "--target", "y", "--categorical", "origin, cyl"])
    assert _config(args, "imlkit report").categorical == ("origin", "cyl")
    code = main(["report", "--data", str(path), "--target", "y", "--categorical", "nope", "--quiet",
                 "--out", str(tmp_path / "out")])
    assert code == 2
    err = capsys.readouterr().err
    assert "'--categorical' names 'nope', not column(s) of the data; its columns are ['origin'" in err
