"""One decision about column types (imlkit/_dtypes.py), and the methods that ask it agree."""
import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

from imlkit import _dtypes
from imlkit._dependence import dependence_r2
from imlkit.effects._grid import make_grid

# (values, dtype, kind, is_numeric_or_bool, has_levels)
TABLE = [
    ([1, 2, 3], "int64", "numeric", True, False),
    ([1, None, 3], "Int64", "numeric", True, False),
    ([1.5, 2.0, np.nan], "float64", "numeric", True, False),
    ([True, False, True], "bool", "boolean", True, True),
    ([True, None, False], "boolean", "boolean", True, True),
    (["True", "false", None], "object", "boolean", False, True),   # boolean, but text: parse first
    (["a", "b", "a"], "object", "categorical", False, True),
    (["a", "b", "a"], "category", "categorical", False, True),
    ([1, 2, 1], "category", "categorical", False, True),              # category codes are not numbers
    (["2011-01-01", "2011-02-01", "2011-03-01"], "object", "datetime", False, True),
    (pd.to_datetime(["2011-01-01", "2011-02-01", "2011-03-01"]), None, "datetime", False, False),
    (pd.to_timedelta([1, 2, 3], unit="h"), None, "numeric", True, False),
]


@pytest.mark.parametrize("values, dtype, kind, number_like, levels", TABLE)
def test_one_decision_per_dtype(values, dtype, kind, number_like, levels):
    s = pd.Series(values, dtype=dtype)
    assert _dtypes.column_kind(s) == kind
    assert _dtypes.is_numeric(s) == (kind == "numeric")
    assert _dtypes.is_numeric_or_bool(s) == number_like
    assert _dtypes.has_levels(s) == levels
    # The two derived questions follow from the kinds: numbers are never levels, and a column
    # that has levels is a number only when it is stored as bool.
    if number_like and levels:
        assert kind == "boolean" and pd.api.types.is_bool_dtype(s.dtype)


def test_bool_is_levels_for_an_effect_grid_and_zero_one_for_dependence():
    rng = np.random.default_rng(0)
    x = rng.normal(size=400)
    X = pd.DataFrame({"x": x, "b": x > 0, "z": rng.normal(size=400)})
    values, categorical = make_grid(X["b"], grid=20)
    assert categorical and values.tolist() == [False, True]
    r2 = dependence_r2(X)
    # b is x's sign: it is a column of the dependence measure (read as 0/1), and x explains it
    # far better than the independent z does.
    assert np.isfinite(r2["b"]) and r2["b"] > 0.5 > r2["z"]
    assert_allclose(r2["b"], dependence_r2(X.assign(b=X["b"].astype(float)))["b"], rtol=1e-12)
