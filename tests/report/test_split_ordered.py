"""``--split ordered``: the last rows of the table (in its own order) are the test rows -- a forecast's test for rows
ordered in time -- and every sentence that describes the split says so (design §6, "An ordered split")."""
import math
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from imlkit.report import ReportConfig, ReportInputError
from imlkit.report._build import prepare_context


def _table(n=101, seed=0, year=True):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"row": rng.permutation(n) * 1.5,  # a distinct value per row: which rows went where
                       "x": rng.normal(size=n)})
    if year:
        df["year"] = np.sort(rng.integers(1990, 2011, n))
    df["y"] = 2 * df["x"] + rng.normal(size=n)
    return df


def _sentences(ctx):
    from imlkit.report._sec_data import split_sentence, time_order_warning

    return split_sentence(ctx), [b["text"] for b in time_order_warning(ctx)]


@pytest.mark.parametrize("n, test_size", [(101, 0.3), (100, 0.3), (57, 0.25), (40, 0.5)])
def test_the_test_rows_are_exactly_the_last_ceil_rows_and_as_many_as_the_random_split_holds_out(n, test_size):
    df = _table(n)
    ctx = prepare_context(ReportConfig(data=df, target="y", split="ordered", test_size=test_size, methods="pfi"))
    k = math.ceil(test_size * n)  # scikit-learn's train_test_split rounds the test share up as well
    np.testing.assert_array_equal(ctx.X_test["row"].to_numpy(), df["row"].to_numpy()[-k:])
    np.testing.assert_array_equal(ctx.X_train["row"].to_numpy(), df["row"].to_numpy()[:-k])
    np.testing.assert_array_equal(ctx.y_test.to_numpy(), df["y"].to_numpy()[-k:])
    rnd = prepare_context(ReportConfig(data=df, target="y", test_size=test_size, methods="pfi"))
    assert len(rnd.X_test) == len(ctx.X_test) == k
    # the random split is not the ordered one (the option changes the rows, not only the words)
    assert not np.array_equal(np.sort(rnd.X_test["row"].to_numpy()), np.sort(ctx.X_test["row"].to_numpy()))
    assert ctx.log[1].parameters == {"test_size": test_size, "split": "ordered", "random_state": None,
                                     "stratified": False}


def test_rows_without_a_target_are_dropped_before_the_last_rows_are_counted():
    df = _table(60)
    df.loc[[5, 58], "y"] = np.nan  # one near the start, one among the last rows
    ctx = prepare_context(ReportConfig(data=df, target="y", split="ordered", test_size=0.3, methods="pfi"))
    kept = df[df["y"].notna()]
    k = math.ceil(0.3 * len(kept))
    np.testing.assert_array_equal(ctx.X_test["row"].to_numpy(), kept["row"].to_numpy()[-k:])


def test_sections_one_and_seven_name_the_split_and_the_time_order_caveat_says_it_is_a_forecast():
    from imlkit.report._sec_provenance import evaluation_text, seed_text

    df = _table(101)
    ctx = prepare_context(ReportConfig(data=df, target="y", split="ordered", methods="pfi"))
    split, order = _sentences(ctx)
    years = df["year"].to_numpy()
    assert split.startswith("Split: an ordered split (--split ordered): the first 70 rows, in the order of the table, "
                            "fit the model and the last 31 rows score it (test size 0.3: ceil(0.3 × 101) = 31 rows "
                            "held out; no seed, no stratification); by 'year', the training rows run from "
                            f"{years[0]} to {years[69]} and the test rows from {years[70]} to {years[-1]}")
    if years[69] == years[70]:  # the cut inside one year is said with its rows on each side
        assert (f"{int((years[:70] == years[69]).sum())} training and {int((years[70:] == years[70]).sum())} test "
                f"rows share year = {years[69]}") in split
    assert len(order) == 1 and "The split is ordered (--split ordered): every training row comes before every test " \
                               "row in the table and, by 'year', none is later than a test row" in order[0]
    assert "--test-data" not in order[0] and "optimistic" not in order[0]
    assert order[0].endswith(f"The feature 'year' itself has every test value ({years[70]} to {years[-1]}) at or "
                             f"beyond its largest training value ({years[69]}): what the model does with it on the "
                             f"test rows is extrapolation (a tree treats each of them as it treats {years[69]}, a "
                             f"linear model continues its slope), and so are its importance and effect there.")
    assert evaluation_text(ctx).startswith("Evaluation: the last 31 of the 101 rows, in the order of the table, held "
                                           "out by an ordered split (--split ordered; test size 0.3, rounded up; no "
                                           "seed); the model was fitted by imlkit on all 70 training rows (the first "
                                           "70 rows).")
    seeds = seed_text(ctx)
    assert "Not from the seed: the train/test split (--split ordered" in seeds
    assert "the train/test split and" not in seeds.split("Not from")[0]
    assert ctx.split_words == "an ordered split of the table: its last 31 rows held out, in the table's order"
    # the random split says it is random, and its time-order caveat names --split ordered
    rnd = prepare_context(ReportConfig(data=df, target="y", methods="pfi"))
    split, order = _sentences(rnd)
    assert split.startswith("Split: a seeded random split (--split random), 70 training rows and 31 test rows")
    assert "To score a forecast, use --split ordered" in order[0] and "optimistic" in order[0]
    assert evaluation_text(rnd).startswith("Evaluation: 31 held-out test rows of a seeded random split (--split random")
    assert rnd.split_words == "a seeded random split of the table"


def test_rows_that_run_backwards_or_have_no_time_column_get_no_false_forecast_claim():
    df = _table(80).iloc[::-1].reset_index(drop=True)  # latest first
    ctx = prepare_context(ReportConfig(data=df, target="y", split="ordered", methods="pfi"))
    _, order = _sentences(ctx)
    assert order[0].startswith("The rows look ordered in time but run from the latest to the earliest: column 'year' "
                               "never increases")
    assert "holds out the last rows of the table, which are its earliest" in order[0]
    assert "sort the rows from earliest to latest by 'year'" in order[0]
    rnd = prepare_context(ReportConfig(data=df, target="y", methods="pfi"))
    assert "sort the rows from earliest to latest by 'year' and use --split ordered" in _sentences(rnd)[1][0]
    # dates in no order: the ordered split's last rows are not the latest
    days = pd.date_range("2001-01-01", periods=80, freq="D")
    shuffled = _table(80, year=False).assign(when=np.random.default_rng(1).permutation(days))
    _, order = _sentences(prepare_context(ReportConfig(data=shuffled, target="y", split="ordered", methods="pfi")))
    assert "but the rows are not in date order" in order[0] and "sort the rows by 'when' first" in order[0]
    # no time column: the split follows the table's order, and the report cannot check it
    _, order = _sentences(prepare_context(ReportConfig(data=_table(80, year=False), target="y", split="ordered",
                                                       methods="pfi")))
    assert order[0].startswith("No column shows that the rows are ordered in time")


def test_a_time_ordered_statsmodels_table_keeps_its_caveat_under_a_random_split_and_names_the_option():
    import statsmodels.api as sm

    from imlkit.report._data import load_dataset
    from imlkit.report._sec_data import time_order_warning

    ds = load_dataset(sm.datasets.sunspots.load_pandas().data, target="SUNACTIVITY")
    said = time_order_warning(SimpleNamespace(data=ds, evaluation="split"))[0]["text"]
    assert "To score a forecast, use --split ordered" in said and "--test-data" in said
    assert ds.order_column == "YEAR" and ds.order_way == "up"
    np.testing.assert_array_equal(ds.order_values.to_numpy(), np.arange(1700.0, 2009.0))


def test_classification_is_not_stratified_and_classes_missing_from_one_part_are_said():
    rng = np.random.default_rng(0)
    n = 90
    y = np.array(["a", "b"] * 45, dtype=object)
    y[:6] = "early"          # only in the first rows: no test row
    y[-5:] = "late"          # only in the last rows: no training row
    df = pd.DataFrame({"x": rng.normal(size=n), "z": rng.normal(size=n), "y": y})
    ctx = prepare_context(ReportConfig(data=df, target="y", split="ordered", model="rf", methods="pfi"))
    k = math.ceil(0.3 * n)
    assert len(ctx.X_train) == n - k and len(ctx.X_test) == k - 5
    np.testing.assert_array_equal(ctx.y_test.to_numpy(), y[-k:-5])
    notes = " ".join(ctx.data.notes)
    assert "5 of the 27 test rows (the last rows of the data) are of class(es) no training row has, and were set " \
           "aside: 'late' (5 rows)" in notes
    assert "Class(es) 'early' of the training rows have no test row" in notes
    assert "late" not in set(ctx.y_test)
    from imlkit.report._sec_data import split_sentence
    from imlkit.report._sec_provenance import evaluation_text

    assert "the last 27 rows score it (5 of them set aside: see the notes)" in split_sentence(ctx)
    assert "27 of the 90 rows" in evaluation_text(ctx) and "22 of them scored" in evaluation_text(ctx)
    # the model is scored: every class of the test rows is one it knows
    assert set(ctx.y_test) <= set(ctx.model.classes_)
    assert np.isfinite(ctx.model_check.performance["log loss"])


def test_training_rows_of_one_class_are_refused_with_the_reason():
    df = pd.DataFrame({"x": np.arange(60.0), "y": ["a"] * 42 + ["b"] * 18})
    with pytest.raises(ReportInputError, match=r"leaves a single class \('a'\) in its 42 training rows"):
        prepare_context(ReportConfig(data=df, target="y", split="ordered", methods="pfi"))


def test_a_fitted_model_with_one_table_gets_an_ordered_split_for_its_refits():
    from sklearn.linear_model import LinearRegression

    from imlkit.report._sec_data import split_sentence

    df = _table(100)
    model = LinearRegression().fit(df[["row", "x", "year"]], df["y"])
    ctx = prepare_context(ReportConfig(data=df, target="y", model=model, split="ordered", methods="pfi"))
    assert ctx.evaluation == "all_rows"
    X_tr, _, X_te, _ = ctx.refit_rows
    np.testing.assert_array_equal(X_te["row"].to_numpy(), df["row"].to_numpy()[-30:])
    np.testing.assert_array_equal(X_tr["row"].to_numpy(), df["row"].to_numpy()[:-30])
    assert "they use an ordered split (--split ordered): the first 70 rows, in the order of the table, fit their " \
           "models and the last 30 rows score it" in split_sentence(ctx)


def test_a_row_budget_subsamples_the_later_rows_only():
    df = _table(2000)
    ctx = prepare_context(ReportConfig(data=df, target="y", split="ordered", methods="pfi", max_rows=100))
    X, _ = ctx.rows("pfi", "test")
    assert len(X) == 100 < len(ctx.X_test)
    assert set(X["row"]) <= set(df["row"].iloc[-600:])


def test_bad_split_values_are_refused_with_the_option_named():
    with pytest.raises(ReportInputError, match=r"'split' must be one of 'random', 'ordered'; got 'ordered:year'"):
        ReportConfig(split="ordered:year")
    with pytest.raises(ReportInputError, match=r"'--split' must be one of 'random', 'ordered'; got 'time'"):
        ReportConfig(split="time", command="imlkit report --split time")
    with pytest.raises(ReportInputError, match=r"'split' 'ordered' holds out the last rows of the data, and "
                                               r"'test_data' gives the held-out rows: choose one"):
        ReportConfig(data=_table(), test_data=_table(), target="y", split="ordered")
    assert ReportConfig().split == "random"


def test_the_command_line_takes_split_and_refuses_a_bad_value(tmp_path, capsys):
    from imlkit.cli import main

    path = tmp_path / "t.csv"
    _table(60).to_csv(path, index=False)
    code = main(["report", "--data", str(path), "--target", "y", "--split", "sideways", "--quiet"])
    assert code == 2
    assert "'--split' must be one of 'random', 'ordered'; got 'sideways'." in capsys.readouterr().err
    from imlkit.cli import _config, build_parser

    args = build_parser().parse_args(["report", "--data", str(path), "--target", "y", "--split", "ordered"])
    assert _config(args, "imlkit report --split ordered").split == "ordered"


def test_a_tree_treats_every_later_year_as_the_last_training_year_so_its_pfi_there_is_zero():
    """The claim of the sentence above, on a trend the model learns: every split on year lies below the largest
    training year, so the test rows' years are all on one side of each split and permuting them changes nothing."""
    import imlkit as ik

    rng = np.random.default_rng(3)
    n = 400
    df = pd.DataFrame({"x": rng.normal(size=n), "year": np.sort(rng.integers(1990, 2011, n))})
    df["y"] = 0.5 * (df["year"] - 2000) + df["x"] + 0.3 * rng.normal(size=n)
    ctx = prepare_context(ReportConfig(data=df, target="y", split="ordered", methods="pfi"))
    r = ik.pfi(ctx.model, ctx.X_test, ctx.y_test, n_repeats=5, random_state=0).to_frame()
    assert r.loc["year", "importance"] == 0.0
    assert r.loc["x", "importance"] > 0.1
    # the same model on a random split's test rows does use year
    rnd = prepare_context(ReportConfig(data=df, target="y", methods="pfi"))
    assert ik.pfi(rnd.model, rnd.X_test, rnd.y_test, n_repeats=5, random_state=0).to_frame().loc["year",
                                                                                                  "importance"] > 1.0
