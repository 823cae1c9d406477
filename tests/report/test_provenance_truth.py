"""Section 7 says only what derives from the seed, and the header and section 7 count the rows of each table."""
from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.linear_model import LinearRegression

from imlkit.report import ReportConfig, build_report
from imlkit.report._build import prepare_context
from imlkit.report._sec_provenance import data_text, seed_text


def _frame(n, seed):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(n, 2)), columns=["a", "b"])
    return X.assign(y=X["a"] + rng.normal(scale=0.5, size=n))


def test_the_seed_sentence_names_only_what_derives_from_it():
    data = _frame(120, 0)
    s = seed_text(prepare_context(ReportConfig(data=data, target="y", quick=True, seed=3)))
    assert s.startswith("Seed 3: the train/test split, the model (its random_state), the baselines' bootstrap ")
    assert "Not from the seed" not in s
    s = seed_text(prepare_context(ReportConfig(data=data, test_data=_frame(40, 1), target="y", quick=True)))
    assert "train/test split" not in s and "the model (its random_state)" in s
    assert s.endswith("Not from the seed: no split is made (the rows given as data and as test data are used as "
                      "given).")
    fitted = LinearRegression().fit(data[["a", "b"]], data["y"])
    s = seed_text(prepare_context(ReportConfig(data=data, model=fitted, target="y", quick=True)))
    assert s.startswith("Seed 0: the split of the table for the refits and the leak check, the baselines'")
    assert "the model (its random_state)" not in s
    assert "the model was fitted outside imlkit, with whatever randomness it had" in s


def test_with_test_data_the_header_and_section_7_count_both_tables(tmp_path):
    data, test = _frame(90, 0), _frame(30, 1)
    ctx = prepare_context(ReportConfig(data=data, test_data=test, target="y", quick=True))
    assert data_text(ctx) == ("a DataFrame (90 rows): 90 training rows; test data a DataFrame (30 rows): 30 evaluation "
                              "rows (120 in all)")
    path = build_report(data=data, test_data=test, target="y", quick=True, methods=("pfi",), out=str(tmp_path))
    with open(path, encoding="utf-8") as fh:
        doc = fh.read()
    assert "30 evaluation rows (120 in all), 2 features, regression" in doc  # the header
    assert "Data: a DataFrame (90 rows): 90 training rows; test data" in doc  # section 7
    assert "120 rows, 2 features" not in doc
