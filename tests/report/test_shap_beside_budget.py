"""Section 5b's table of mean |SHAP| beside PFI and SAGE says why cells are blank (the feature budget) and marks a SAGE
section 3 does not read (review rev8 r3-6: Caravan, 70 of 85 rows blank under no word, and a SAGE column section 3
called 'did not converge ... not read here')."""
from types import SimpleNamespace

import numpy as np
import pandas as pd
from sklearn.linear_model import LinearRegression

import imlkit as ik
from imlkit.report._sec_local import _beside


def _setup():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(200, 6)), columns=[f"x{j}" for j in range(6)])
    y = X.to_numpy() @ np.array([3.0, 2.0, 1.0, 0.5, 0.2, 0.1]) + rng.normal(size=200)
    m = LinearRegression().fit(X, y)
    return m, X, y


def _text(block):
    return str(block)


def test_blank_cells_are_said_to_be_outside_the_budget_and_an_unread_sage_is_marked():
    m, X, y = _setup()
    pfi = ik.pfi(m, X, y, features=["x0", "x1", "x2"], n_repeats=2, random_state=0)
    sage = ik.sage(m, X, y, n_background=8, max_permutations=8, tolerance=1e-6, random_state=0)
    assert sage.extra["converged"] is False
    swarm = ik.shap(m, X.iloc[:40], background=X.iloc[:20], random_state=0)
    ctx = SimpleNamespace(importance=SimpleNamespace(compared=lambda: {"pfi": pfi, "sage_marginal": sage}),
                          eval_rows="test rows")
    said = _text(_beside(ctx, swarm))
    assert "blank: not scored -- PFI scored 3 of the 6 features (the feature budget, section 3)" in said
    assert "SAGE (marginal) (did not converge; not read)" in said


def test_a_full_and_readable_table_says_nothing_more():
    m, X, y = _setup()
    pfi = ik.pfi(m, X, y, n_repeats=2, random_state=0)
    swarm = ik.shap(m, X.iloc[:40], background=X.iloc[:20], random_state=0)
    ctx = SimpleNamespace(importance=SimpleNamespace(compared=lambda: {"pfi": pfi}), eval_rows="test rows")
    said = _text(_beside(ctx, swarm))
    assert "blank" not in said and "not read" not in said and "beside how much it lowers the loss (PFI; section 3)" \
        in said
