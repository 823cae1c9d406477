"""The report's "Individual predictions" section: the chosen rows, its figures, the SHAP-beside-SAGE table."""
import re

import numpy as np
import pandas as pd
import pytest

from imlkit.report import build_report
from imlkit.report._sec_local import choose_rows


def test_choose_rows_picks_error_extreme_typical():
    pred = np.array([0.0, 5.0, 1.0, 1.1, -0.2])
    err = np.array([3.0, 0.1, 0.2, 0.0, 0.5])
    # largest error: row 0; most extreme prediction: row 1; closest to the median (1.0): row 2
    assert choose_rows(pred, err) == [0, 1, 2]
    # a row chosen twice gives way to the next candidate
    assert choose_rows(np.array([9.0, 0.0, 0.1]), np.array([5.0, 0.0, 0.1])) == [0, 1, 2]


@pytest.mark.parametrize("model", ["gbm", "glm"])
def test_section_in_report(tmp_path, model):
    rng = np.random.default_rng(0)
    n = 300
    df = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n), "c": rng.choice(list("xyz"), n)})
    df["y"] = df["a"] + df["b"] * (df["c"] == "x") + 0.1 * rng.normal(size=n)
    path = build_report(data=df, target="y", model=model, quick=True, methods=("sage", "shap"), out=str(tmp_path),
                        strict=True)
    html = open(path, encoding="utf-8").read()
    start = html.index("Individual predictions</h2")
    section = html[start:html.index("<h2", start)]
    for why in ("largest error", "most extreme prediction", "typical prediction"):
        assert why in section
    assert section.count("data:image/png") == 2  # the waterfalls and the beeswarm
    assert "marginal SAGE" in section and "SAGE (marginal)" in section
    engine = "TreeSHAP" if model == "gbm" else "enumeration"
    assert engine in section
    # The base value printed is the mean prediction over the background rows: a number.
    assert re.search(r"background test rows \(-?[0-9.e+-]+\)", section)


def test_binary_boosted_classifier_is_explained_on_the_log_odds(tmp_path):
    rng = np.random.default_rng(1)
    n = 300
    df = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n)})
    df["y"] = np.where(df["a"] + 0.5 * rng.normal(size=n) > 0, "hi", "lo")
    path = build_report(data=df, target="y", model="gbm", quick=True, methods=("shap",), out=str(tmp_path),
                        strict=True)
    html = open(path, encoding="utf-8").read()
    start = html.index("Individual predictions</h2")
    section = html[start:html.index("<h2", start)]
    assert "the log-odds of P(y = " in section and "TreeSHAP" in section


def test_model_agnostic_shap_beyond_the_feature_budget_says_so(tmp_path):
    # A GLM has no trees: its SHAP needs the permutation estimator, whose cost grows with p. Above the
    # report's feature budget the section says why it was not computed (a wide table took hours).
    rng = np.random.default_rng(2)
    n, p = 120, 12
    df = pd.DataFrame(rng.normal(size=(n, p)), columns=[f"x{j}" for j in range(p)])
    df["y"] = df["x0"] + 0.1 * rng.normal(size=n)
    path = build_report(data=df, target="y", model="glm", quick=True, methods=("shap",), out=str(tmp_path),
                        max_features=5, strict=True)
    html = open(path, encoding="utf-8").read()
    start = html.index("Individual predictions</h2")
    section = html[start:html.index("<h2", start)]
    assert "Not computed" in section and "feature budget of 5" in section and "12 features" in section
    assert "data:image/png" not in section
