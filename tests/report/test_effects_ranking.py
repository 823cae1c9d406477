"""Section 4 and 5 pick features by the reading's ranking, and say so with its numbers.

A constant model (every importance exactly 0) has no "most important features": the report says
that no feature is important for any method instead of drawing the first columns' effects.
"""
import re

import numpy as np
import pandas as pd
from sklearn.dummy import DummyRegressor
from sklearn.linear_model import LinearRegression

from imlkit.report import build_report


def _text(path):
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", open(path).read()))


def _table(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(n, 4)), columns=["a", "b", "c", "d"])
    y = 3 * X["c"] + 0.5 * X["d"] + rng.normal(scale=0.5, size=n)
    return X.assign(y=y)


def test_a_constant_model_has_no_most_important_features(tmp_path):
    frame = _table()
    model = DummyRegressor().fit(frame[["a", "b", "c", "d"]], frame["y"])
    path = build_report(data=frame, target="y", model=model, quick=True, methods=["pfi", "effects", "repid"],
                        out=str(tmp_path / "r"), progress=False)
    text = _text(path)
    assert "No feature effects shown: no feature is important for any method" in text
    assert "most important features (a, b" not in text


def test_effects_name_the_features_with_their_counts(tmp_path):
    frame = _table()
    model = LinearRegression().fit(frame[["a", "b", "c", "d"]], frame["y"])
    path = build_report(data=frame, target="y", model=model, quick=True, methods=["pfi", "effects"],
                        out=str(tmp_path / "r"), progress=False)
    text = _text(path)
    # c carries most of the signal, d some, a and b none: the effects name c first, with the ranking's words
    m = re.search(r"Effects on the predicted y of the features? (?:important|ranked first) for PFI: ([^.]*?)\. ICE",
                  text)
    assert m is not None, text[text.find("Effects on"):][:300]
    named = m.group(1)
    assert named.startswith("c") and not re.search(r"\b[ab]\b", named)
