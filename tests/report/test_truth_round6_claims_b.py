"""Round 6 (claims6): the ranking's words name each feature's own methods."""
from types import SimpleNamespace

import numpy as np
import pandas as pd

from imlkit.importance import ImportanceResult
from imlkit.report import _claims as cl
from imlkit.report._context import DataOutputs, EffectsOutputs, ImportanceOutputs, ModelCheck
from imlkit.report._ranking import most_important


def _res(method, values, low, high, names, baseline_loss=5.0, extra=None):
    v = np.asarray(values, dtype=float)
    return ImportanceResult(method=method, feature_names=tuple(names), importance=v, std=0 * v,
                            ci_low=np.asarray(low, float), ci_high=np.asarray(high, float), loss="squared_error",
                            baseline_loss=baseline_loss, extra=extra or {})


def _ctx(results, y, r2):
    return SimpleNamespace(importance=ImportanceOutputs(**results), effects=EffectsOutputs(h_overall=None),
                           data_outputs=DataOutputs(dependence_r2=pd.Series(r2)), model_check=ModelCheck(),
                           X_test=pd.DataFrame({"z": np.zeros(len(y))}), y_test=pd.Series(y))


def test_the_marginal_only_clause_names_each_features_own_marginal_methods():
    """Breast cancer (quick): "worst texture (R² = 0.946) and worst perimeter (R² = 0.998) are important only for PFI
    and SAGE (marginal)" -- worst perimeter was important for SAGE (marginal) alone (the count said "1 of 4: SAGE
    (marginal)"); the clause pooled the two features' methods."""
    names = ("texture", "perimeter", "c")
    y = np.r_[np.zeros(30), np.ones(30) * 10]
    pfi = _res("pfi", [10.0, 0.1, 2.0], [9.0, -0.5, 1.5], [11.0, 0.7, 2.5], names)
    cfi = _res("cfi", [0.1, 0.1, 9.0], [-0.5, -0.5, 8.0], [0.7, 0.7, 10.0], names)
    sage = _res("sage_marginal", [8.0, 9.0, 0.1], [7.0, 8.0, -0.5], [9.0, 10.0, 0.7], names,
                extra=dict(v_all=20.0, converged=True, ratio=0.01, n_permutations=64))
    ctx = _ctx({"pfi": pfi, "cfi": cfi, "sage_marginal": sage}, y, {"texture": 0.946, "perimeter": 0.998, "c": 0.1})
    ev = cl.evidence_by_method({"pfi": pfi, "cfi": cfi, "sage_marginal": sage}, lambda m: y)
    important = {f: [m for m in ev if ev[m][f].important()] for f in names}
    assert important["texture"] == ["pfi", "sage_marginal"] and important["perimeter"] == ["sage_marginal"]
    _, words = most_important(ctx)
    assert ("texture (R² = 0.946) is important only for PFI and SAGE (marginal), and perimeter (R² = 0.998) only "
            "for SAGE (marginal)") in words
    assert "texture (R² = 0.946) and perimeter" not in words
    assert "while CFI does not find them important" in words
