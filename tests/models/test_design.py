"""The design matrix decides numeric vs dummy-coded columns through imlkit._dtypes."""
import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

from imlkit._validation import ValidationError
from imlkit.models._design import fit_design


def test_bool_and_text_are_dummy_coded_numbers_are_not():
    X = pd.DataFrame({"t": [1.5, 2.0, 3.0, 4.0], "b": [True, False, True, True], "s": ["u", "v", "u", "w"]})
    spec = fit_design(X)
    assert spec.names == ["(Intercept)", "t", "b[True]", "s[v]", "s[w]"]
    assert_allclose(spec.transform(X), [[1, 1.5, 1, 0, 0], [1, 2.0, 0, 1, 0], [1, 3.0, 1, 0, 0], [1, 4.0, 1, 0, 1]])


@pytest.mark.parametrize("dates", [pd.to_datetime(["2011-01-01", "2011-01-02", "2011-01-03"]),
                                   ["2011-01-01", "2011-01-02", "2011-01-03"]], ids=["datetime64", "text"])
def test_date_columns_are_refused_with_a_message(dates):
    X = pd.DataFrame({"x": np.arange(3.0), "day": dates})
    with pytest.raises(ValidationError, match=r"Column 'day' of 'X' holds dates; the design needs numeric or "
                                              r"categorical columns"):
        fit_design(X)
