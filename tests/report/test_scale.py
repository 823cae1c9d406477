"""The report's row budgets (issue 16): one subsampling mechanism, --max-rows / --full, provenance."""
from __future__ import annotations

import html
import re

import numpy as np
import pandas as pd
import pytest

from imlkit.cli import main
from imlkit.report import ReportConfig, build_report, prepare_context
from imlkit.report._config import (
    REFERENCE_ROWS,
    ROW_BUDGETS,
    SCHEDULER_FACTOR,
    row_budgets,
)
from imlkit.report._context import RowUse
from imlkit.report._data import ReportInputError


def _table(n=600, seed=0, task="classification"):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(n, 3)), columns=["a", "b", "c"])
    X["g"] = rng.choice(["x", "y", "z"], size=n)
    signal = X["a"] + 0.5 * X["b"] + rng.normal(scale=0.5, size=n)
    if task == "classification":
        # unbalanced classes (about 70 / 20 / 10 %), so a plain random subsample would drift
        X["y"] = np.select([signal < 0.6, signal < 1.6], ["lo", "mid"], "hi")
    else:
        X["y"] = signal
    return X


def _ctx(frame, **options):
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

    # a small tree: the subsample does not depend on the model, and it keeps these tests fast
    model = DecisionTreeClassifier(max_depth=2) if frame["y"].dtype.kind != "f" else DecisionTreeRegressor(max_depth=2)
    return prepare_context(ReportConfig(data=frame, target="y", quick=True, model=model, features=("a", "b", "c"),
                                        **options))


# --------------------------------------------------------------------------- budgets
def test_budgets_scale_in_proportion_and_full_lifts_them():
    quick, ref = row_budgets(quick=True), REFERENCE_ROWS["quick"]
    for step, (_, splits, kind) in ROW_BUDGETS.items():
        for split, mult in splits.items():
            if kind != "sample":
                assert quick[step][split] == round(mult * ref)
    # --max-rows N: the largest budget becomes N, every other one keeps its proportion
    scaled = row_budgets(quick=True, max_rows=2 * ref)
    assert max(v for s in scaled.values() for v in s.values()) == 8 * ref  # dependence overview: 4 x reference
    assert scaled["pfi"]["test"] == 2 * ref and scaled["pimp"]["train"] == 2 * quick["pimp"]["train"]
    # sample sizes of the super-linear methods only shrink
    assert scaled["sage"]["test"] == quick["sage"]["test"]
    assert row_budgets(quick=True, max_rows=ref // 2)["sage"]["test"] == quick["sage"]["test"] // 2
    full = row_budgets(full=True)
    assert full["pfi"]["test"] is None and full["loco"]["train"] is None and full["rulefit"]["train"] is None
    assert full["sage"]["test"] == 512
    sched = row_budgets(scheduler=True)
    assert sched["pimp"]["train"] == SCHEDULER_FACTOR * row_budgets()["pimp"]["train"]
    assert sched["rulefit"]["train"] == SCHEDULER_FACTOR * row_budgets()["rulefit"]["train"]
    assert sched["pfi"]["test"] == row_budgets()["pfi"]["test"]  # not a refit: the cluster does not run it


@pytest.mark.parametrize("bad", [0, 99, -5, 2.5, "1000", True])
def test_bad_max_rows_is_a_clear_error(bad):
    with pytest.raises(ValueError, match=r"'max_rows' must be an int >= 100; got"):
        row_budgets(max_rows=bad)


def test_max_rows_and_full_together_is_an_error(tmp_path):
    with pytest.raises(ValueError, match="cannot be used together"):
        row_budgets(max_rows=1000, full=True)
    with pytest.raises(ReportInputError, match="cannot be used together"):
        build_report(data=_table(), target="y", max_rows=1000, full=True, out=str(tmp_path))


# --------------------------------------------------------------------------- the subsample
@pytest.fixture(scope="module")
def clf_ctx():
    return _ctx(_table(), max_rows=100)


def test_subsample_is_stratified_nested_and_seeded(clf_ctx):
    ctx = clf_ctx
    X, y = ctx.rows("pfi")  # budget 100 of 180 test rows
    assert len(X) == 100 and ctx.row_use[("pfi", "test")] == RowUse(step="pfi", split="test", used=100,
                                                                     available=len(ctx.X_test), budget=100)
    share = ctx.y_test.value_counts(normalize=True)
    counts = y.value_counts()
    for cls, p in share.items():  # every class within one row of its share
        assert abs(counts.get(cls, 0) - 100 * p) <= 1.0, (cls, counts.get(cls, 0), 100 * p)
    # the rows are the test split's own rows with their targets
    idx = ctx.row_index("pfi")
    pd.testing.assert_frame_equal(X, ctx.X_test.iloc[idx].reset_index(drop=True))
    pd.testing.assert_series_equal(y, ctx.y_test.iloc[idx].reset_index(drop=True))
    # a smaller budget's rows are part of a larger one's (every step sees the same rows)
    small = ctx.row_index("pfi", n=50)
    assert set(small) <= set(idx)
    # the same seed gives the same rows; another seed other rows
    again = _ctx(_table(), max_rows=100)
    np.testing.assert_array_equal(again.row_index("pfi"), idx)
    other = _ctx(_table(), max_rows=100, seed=1)
    other_idx = other.row_index("pfi")
    assert not np.array_equal(other.X_test.iloc[other_idx]["a"].to_numpy(), X["a"].to_numpy())


def test_training_rows_are_stratified_and_full_uses_every_row(clf_ctx):
    X, y = clf_ctx.rows("loco", "train")  # budget 50 of 420 training rows
    assert len(X) == 50
    share = clf_ctx.y_train.value_counts(normalize=True)
    for cls, p in share.items():
        assert abs(y.value_counts().get(cls, 0) - 50 * p) <= 1.0
    full = _ctx(_table(), full=True)
    for step, split in (("pfi", "test"), ("loco", "train"), ("rulefit", "train"), ("dependence", "all")):
        Xf, _ = full.rows(step, split)
        assert Xf is full._split_data(split)[0]  # the split itself: no copy
        assert full.row_use[(step, split)].used == full.row_use[(step, split)].available


def test_regression_subsample_is_a_seeded_permutation_prefix():
    ctx = _ctx(_table(task="regression"), max_rows=100)
    idx = ctx.row_index("pfi")
    assert len(idx) == 100 and len(set(idx)) == 100 and np.all(np.diff(idx) > 0)
    np.testing.assert_array_equal(np.sort(ctx._ordering("test", ctx.y_test)[:100]), idx)


# --------------------------------------------------------------------------- the report
def _text(path):
    return html.unescape(re.sub(r"<[^>]+>", " ", open(path, encoding="utf-8").read()))


def _section(doc, start, end):
    """The body of a section (its heading's last occurrence: the first is the table of contents)."""
    i = doc.rindex(start)
    return doc[i:doc.index(end, i)]


def test_report_shows_rows_used_and_says_so_in_section_1(tmp_path):
    frame = _table(task="regression")
    doc = _text(build_report(data=frame, target="y", quick=True, max_rows=100, methods=("pfi",),
                             out=str(tmp_path / "small")))
    prov = _section(doc, "7. How it was made", "Versions")
    assert "Rows each step used out of the rows available" in prov
    assert re.search(r"PFI\s+test rows\s+100 of 180\s+100", prov)
    assert re.search(r"baselines\s+training rows\s+200 of 420\s+200", prov)
    assert re.search(r"dependence overview\s+all rows \(before the split\)\s+400 of 600", prov)
    assert "--max-rows 100: every budget was scaled" in prov
    data = _section(doc, "1. Data", "2. Model and baselines")
    assert "Large data were subsampled" in data and "--full uses every row" in data
    assert "PFI" in data.split("Large data were subsampled")[1][:300]

    # Data within the default budgets: nothing subsampled, no sentence, rows used = available.
    doc = _text(build_report(data=frame, target="y", quick=True, methods=("pfi",), out=str(tmp_path / "default")))
    assert "Large data were subsampled" not in doc
    assert re.search(r"PFI\s+test rows\s+180 of 180\s+20,000", doc)


def test_full_report_uses_every_row(tmp_path):
    doc = _text(build_report(data=_table(task="regression"), target="y", quick=True, full=True, methods=("pfi",),
                             out=str(tmp_path)))
    assert "Large data were subsampled" not in doc
    assert re.search(r"PFI\s+test rows\s+180 of 180\s+every row", doc)
    assert "--full: every step used every row" in doc


# --------------------------------------------------------------------------- command line
@pytest.mark.parametrize("argv, message", [
    (["--max-rows", "5"], "'--max-rows' must be an int >= 100; got 5."),
    (["--max-rows", "-1"], "'--max-rows' must be an int >= 100; got -1."),
    (["--max-rows", "many"], "--max-rows: invalid int value: 'many'"),
    (["--max-rows", "1000", "--full"], "'--max-rows' and '--full' cannot be used together"),
])
def test_cli_errors_for_bad_row_options(argv, message, capsys, tmp_path):
    code = main(["report", "--quick", "--out", str(tmp_path)] + argv)
    err = capsys.readouterr().err
    assert code == 2 and message in err
    assert not (tmp_path / "report.html").exists()


# --------------------------------------------------------------------------- memory
def test_glm_baseline_memory_is_linear_in_n():
    """The GLM's estimability check once took an n x n SVD factor (12 GB at 40,000 rows)."""
    import tracemalloc

    from imlkit import models

    rng = np.random.default_rng(0)
    n = 12_000
    X = pd.DataFrame(rng.normal(size=(n, 3)), columns=["a", "b", "c"])
    X["d"] = X["a"] + X["b"]  # an aliased column: the estimability check has work to do
    y = X["a"] - X["c"] + rng.normal(size=n)
    tracemalloc.start()
    try:
        with pytest.warns(UserWarning, match="collinear"):
            glm = models.GLM().fit(X, y)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 100 * 2**20, f"{peak / 2**20:.0f} MB"  # an n x n float matrix alone would be 1.1 GB
    assert not bool(glm.estimable_["d"]) or not bool(glm.estimable_["a"])
