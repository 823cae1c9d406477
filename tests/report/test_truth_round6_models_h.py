"""Round 6 (models): section 7 logs the SHAP background and rows section 5b used (model-agnostic path: 32 background
rows, the beeswarm's 40 rows and the chosen three), not the rows read before the path was chosen."""
import numpy as np
import pandas as pd
from sklearn.neighbors import KNeighborsClassifier


def test_model_agnostic_shap_logs_what_it_used():
    from imlkit.report import ReportConfig
    from imlkit.report._build import prepare_context
    from imlkit.report._sec_local import N_BACKGROUND_AGNOSTIC, ROWS_AGNOSTIC, section_local

    rng = np.random.default_rng(0)
    n = 300
    X = pd.DataFrame(rng.normal(size=(n, 3)), columns=["a", "b", "c"])
    y = np.where(X["a"] + 0.5 * rng.normal(size=n) > 0, "yes", "no")
    knn = KNeighborsClassifier(n_neighbors=15).fit(X, y)  # no trees: the model-agnostic path
    ctx = prepare_context(ReportConfig(data=X.assign(y=y), target="y", model=knn, quick=True, methods=("shap",),
                                       strict=True, test_size=0.2))
    n_test = len(ctx.X_test)
    assert n_test > max(N_BACKGROUND_AGNOSTIC, ROWS_AGNOSTIC)  # the premise: the budgets bind
    section_local(ctx)
    steps = {e.step: e.parameters for e in ctx.log}
    assert steps["SHAP of the chosen rows"]["background"] == N_BACKGROUND_AGNOSTIC
    assert steps["SHAP beeswarm"]["background"] == N_BACKGROUND_AGNOSTIC
    assert steps["SHAP beeswarm"]["rows"] == ROWS_AGNOSTIC
    use = ctx.row_use[("shap", "test")]
    assert use.available == n_test
    assert ROWS_AGNOSTIC <= use.used <= ROWS_AGNOSTIC + 3
