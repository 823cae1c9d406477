"""Review r1 (rev8), finding 8: with p = budget + 1 the feature budget's group 'all other features' holds one
feature, and the reading said "The group 'all other features' (1 features held together) ... is not one feature".
A group of one feature is that feature: the sentence now names it. Synthetic data."""
import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import Ridge

from imlkit.report import ReportConfig
from imlkit.report._build import prepare_context


def _table(n=300, p=4, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(n, p)), columns=[f"x{j}" for j in range(p)])
    return X.assign(y=X.to_numpy() @ np.linspace(3, 0.5, p) + rng.normal(size=n))


def _plain(ctx):
    from imlkit.report._reading import reading_blocks

    return " ".join(b.get("text", "") for b in reading_blocks(ctx) if isinstance(b, dict))


@pytest.mark.filterwarnings("ignore")
def test_one_feature_over_the_budget_is_scored_as_itself_not_as_a_group():
    """The budget no longer forms a group of one (report._ranking.budgeted_features): at p = budget + 1 SAGE scores
    every feature by its own name, and the reading names no group."""
    from imlkit.report._sec_importance import compute_importance

    ctx = prepare_context(ReportConfig(data=_table(), target="y", quick=True, model=Ridge(), max_features=3,
                                       methods=("pfi", "sage"), sage_removals=("marginal",), progress=False))
    for m in ("pfi", "sage"):
        compute_importance(ctx, m)
    sage = ctx.importance.sage_marginal
    assert list(sage.feature_names) == ["x0", "x1", "x2", "x3"]
    assert "all other features" not in sage.groups
    plain = _plain(ctx)
    assert "all other features" not in plain and "1 features" not in plain
