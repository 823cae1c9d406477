"""Round 6 (models): when rows of rare classes set aside leave too few rows for the split, the error says so, and for
a numeric target read as classes it names '--task regression'."""
import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_linnerud

from imlkit.report._data import ReportInputError
from imlkit.report._fit import set_aside_rare


def _waist():
    d = load_linnerud(as_frame=True)
    X, y = d.data, d.target["Waist"]
    return X, y.astype(int).astype(str).rename("Waist")  # the report's classes are text ("31", "46")


def test_rows_set_aside_and_the_task_guess_are_named():
    X, y = _waist()
    counts = y.value_counts()
    assert len(y) == 20 and (counts == 1).sum() >= 3  # the premise: whole-number waists, several seen once
    with pytest.raises(ReportInputError) as err:
        set_aside_rare(X, y, "classification", 0.5)
    msg = str(err.value)
    kept = 20 - int((counts == 1).sum())
    n_test = int(np.ceil(0.5 * kept))
    assert msg.startswith(f"'--test-size' 0.5 leaves {kept - n_test} training and {n_test} test rows; both need at "
                          f"least 10. Of the 20 rows of the data, {20 - kept} row(s) of {20 - kept} class(es) too rare")
    assert f"leaving {kept}." in msg
    assert (f"The target Waist is numeric, with {y.nunique()} distinct whole-number values, and is read as "
            f"classes") in msg
    assert "give '--task regression'" in msg


def test_text_classes_get_no_regression_hint():
    rng = np.random.default_rng(0)
    y = pd.Series(["a"] * 8 + ["b"] * 8 + ["c", "d", "e"], name="kind")
    X = pd.DataFrame({"x": rng.normal(size=len(y))})
    with pytest.raises(ReportInputError) as err:
        set_aside_rare(X, y, "classification", 0.5)
    assert "set aside first" in str(err.value) and "--task regression" not in str(err.value)
