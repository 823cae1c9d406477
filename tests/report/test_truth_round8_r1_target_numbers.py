"""Review r1 (rev8), findings 1 and 6: a target (or feature) that is text holding numbers with a marker such as '?'.

Finding 1: ISLP's raw Auto.data has horsepower '?' in 5 of 397 rows. As a feature it was read as numbers with the
'?' missing; as the target it stayed text: '?' became a class, '130.0' and '90.00' class names, 35 rows were set
aside as singleton classes, and section 1 said "no rows were dropped (the target is never missing)". The target
now goes through the features' rule (text of which at least 95% reads as numbers) before the task is guessed.

Finding 6: section 1's preparation table counted the column's missing cells before the parsing (0) and the
features table after it (5); both now count after it.

The tables are synthetic (no ISLP file is read).
"""
import numpy as np
import pandas as pd
import pytest

from imlkit.report._data import ReportInputError, load_dataset

N = 120
BAD = (3, 17, 40, 41, 99)  # rows whose value is a non-number marker


def _frame(marker="?"):
    rng = np.random.default_rng(0)
    x1 = rng.normal(size=N)
    x2 = rng.uniform(0, 10, size=N)
    y = 100 + 20 * x1 + 3 * x2 + rng.normal(scale=5, size=N)
    # written as a CSV export would: '130.0', '90.00', with '?' for a missing value
    text = [f"{v:.1f}" if i % 2 else f"{v:.2f}" for i, v in enumerate(y)]
    for i in BAD:
        text[i] = marker
    return pd.DataFrame({"x1": x1, "x2": x2, "y": text}), y


@pytest.mark.parametrize("marker", ["?", "NA ", "n/a"])
def test_numeric_text_target_is_a_regression_target_with_its_non_numbers_dropped(marker):
    df, y = _frame(marker)
    ds = load_dataset(df, target="y")
    assert ds.task == "regression"
    assert len(ds.X) == N - len(BAD)
    assert ds.dropped_rows == len(BAD)
    keep = np.setdiff1d(np.arange(N), BAD)
    # the kept targets are the written numbers (rounded to 1-2 decimals), in order
    np.testing.assert_allclose(ds.y.to_numpy(), y[keep], atol=0.051)
    # the note names the count and why (not a number, the marker shown)
    note = " ".join(ds.notes)
    assert f"{len(BAD)} row(s) were dropped" in note
    assert "not a number" in note and repr(marker) in note
    # the target's row of the decisions table says it was read as numbers, and the missing count is after parsing
    row = ds.decisions.set_index("column").loc["y"]
    assert row["action"].startswith(f"read as numbers; {len(BAD)} value(s) that are not numbers")
    assert int(ds.missing["y"]) == len(BAD)
    assert "distinct values" in ds.task_reason and "regression" in ds.task_reason


def test_explicit_regression_works_on_numeric_text_target():
    df, _ = _frame()
    ds = load_dataset(df, target="y", task="regression")
    assert ds.task == "regression" and len(ds.X) == N - len(BAD)
    assert ds.y.dtype.kind == "f"


def test_text_target_that_is_not_numbers_stays_classes():
    df, _ = _frame()
    df["y"] = np.where(np.arange(N) % 3 == 0, "low", np.where(np.arange(N) % 3 == 1, "mid", "high"))
    ds = load_dataset(df, target="y")
    assert ds.task == "classification" and ds.dropped_rows == 0 and len(ds.X) == N
    with pytest.raises(ReportInputError, match="not numeric"):
        load_dataset(df, target="y", task="regression")


def test_numeric_text_target_with_test_data_counts_each_part():
    df, _ = _frame()
    train, test = df.iloc[:80].reset_index(drop=True), df.iloc[80:].reset_index(drop=True)
    ds = load_dataset(train, target="y", test=test)
    n_train_bad = sum(i < 80 for i in BAD)
    assert ds.task == "regression"
    assert ds.n_train == 80 - n_train_bad
    assert len(ds.X) - ds.n_train == 40 - (len(BAD) - n_train_bad)
    assert f"({n_train_bad} of the data, {len(BAD) - n_train_bad} of the test data)" in " ".join(ds.notes)


def test_missing_cells_of_a_numeric_text_feature_are_counted_after_parsing():
    # finding 6: a text column "1", "2", "?" -> the preparation's count and the prepared feature's agree
    df, y = _frame()
    df = df.assign(x3=df["y"], y=y)  # the '?' column is now a feature
    ds = load_dataset(df, target="y")
    assert ds.decisions.set_index("column").loc["x3", "kind"] == "numeric"
    assert int(ds.X["x3"].isna().sum()) == len(BAD)
    assert int(ds.missing["x3"]) == len(BAD)
    # a real missing cell and a marker add up
    df.loc[0, "x3"] = None
    ds = load_dataset(df, target="y")
    assert int(ds.missing["x3"]) == int(ds.X["x3"].isna().sum()) == len(BAD) + 1


def test_section_one_tables_agree_on_missing_cells():
    from imlkit.report._sec_data import _decision_rows

    df, y = _frame()
    df = df.assign(x3=df["y"], y=y)
    ds = load_dataset(df, target="y")
    rows, _ = _decision_rows(ds)
    cell = {r[0]: r[-1] for r in rows}["x3"]
    assert cell.startswith(f"{len(BAD)} (")


def test_regression_refusal_names_a_value_that_is_not_a_number():
    # mostly text: the refusal shows a value that is not a number and the share that is, not '130.0'
    df, _ = _frame()
    df["y"] = ["130.0" if i % 2 else "high" for i in range(N)]
    with pytest.raises(ReportInputError, match=r"e\.g\. 'high'; 50% of its 120 values read as numbers"):
        load_dataset(df, target="y", task="regression")
