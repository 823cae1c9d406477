"""Round 6 (models): section 6's GLM reading of a categorical feature with many levels reads the levels with the
largest weights and says that it chose them, not the first three levels in alphabetical order."""
import numpy as np
import pandas as pd
import pytest

from imlkit.models import GLM
from imlkit.report._sec_alternatives import glm_readings

READ_PER_FEATURE = 3  # the sentences section 6 gives one feature


def test_many_levels_read_by_largest_weight_with_a_note():
    sm = pytest.importorskip("statsmodels.api")
    d = sm.datasets.grunfeld.load_pandas().data
    d["firm"] = d["firm"].astype(str)
    X, y = d.drop(columns="invest"), d["invest"]
    m = GLM().fit(X, y)
    levels = m.design_.categorical["firm"]
    w = pd.Series(m.coef_.to_numpy()[m.design_.blocks["firm"]], index=levels[1:])
    want = list(w.abs().sort_values(ascending=False).index[:READ_PER_FEATURE])
    said = glm_readings(m, ["firm"])
    read = [s for s in said if s.startswith("firm = ")]
    assert [s.split(" (instead of")[0].removeprefix("firm = ") for s in read] == want
    assert "General Electric" in want  # the largest weight, which the alphabetical three left out
    note = f"These are {READ_PER_FEATURE} of the {len(levels) - 1} levels of firm other than {levels[0]}"
    assert any(s.startswith(note) and "every level's weight is in the table above" in s for s in said)


def test_few_levels_are_all_read_without_a_note():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"g": rng.choice(["a", "b", "c"], size=200), "x": rng.normal(size=200)})
    y = pd.Series(X["x"] + (X["g"] == "c") + rng.normal(size=200), name="y")
    said = glm_readings(GLM().fit(X, y), ["g"])
    assert [s[:5] for s in said if s.startswith("g = ")] == ["g = b", "g = c"]
    assert not any(s.startswith("These are") for s in said)
