"""The feature budget: SAGE, LOCO/LOFO, PIMP and the H-statistic on the top features by PFI plus one group."""
import re

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import Ridge

import imlkit as ik
from imlkit._validation import ValidationError
from imlkit.report import ReportConfig, build_report
from imlkit.report._build import prepare_context
from imlkit.report._config import MAX_FEATURES, feature_budget
from imlkit.report._sec_importance import OTHERS, budgeted_features, compute_importance, screen_info


def _table(n=200, p=60, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(n, p)), columns=[f"f{j}" for j in range(p)])
    return X.assign(y=3 * X.f3 + 2 * X.f7 - X.f11 + 0.5 * rng.normal(size=n))


def test_feature_budget_defaults_and_validation():
    assert feature_budget() == MAX_FEATURES[0]
    assert feature_budget(quick=True) == MAX_FEATURES[1]
    assert feature_budget(max_features=7) == 7
    assert feature_budget(full=True) is None
    for bad in (0, -3, 2.5, True, "10"):
        with pytest.raises(ValidationError, match="'max_features' must be an int >= 1"):
            feature_budget(max_features=bad)
    with pytest.raises(ValidationError, match="cannot be used together"):
        feature_budget(max_features=5, full=True)


def test_budgeted_features_are_the_top_pfi_and_one_group():
    df = _table()
    ctx = prepare_context(ReportConfig(data=df, target="y", quick=True, model=Ridge(), max_features=10,
                                       methods=("pfi", "sage")))
    groups = budgeted_features(ctx)
    assert len(groups) == 11
    # the screen: PFI with one permutation of every feature (a Ridge has no trees to skip features by), on the
    # training rows -- not on the rows the verdicts read (choosing there would select their noise)
    n = len(ctx.X_train)
    pfi = ik.pfi(ctx.model, ctx.X_train, ctx.y_train, loss=ctx.loss, n_repeats=1, random_state=ctx.seed)
    assert screen_info(ctx) == {"screened": 60, "unused": 0, "rows": "train", "n_rows": n}
    top = [pfi.feature_names[i] for i in np.argsort(-np.asarray(pfi.importance), kind="stable")[:10]]
    assert list(groups)[:10] == top and {"f3", "f7", "f11"} <= set(top)
    assert sorted(groups[OTHERS] + top) == sorted(df.columns.drop("y"))
    # within budget, or --full: every feature as it is
    ctx_full = prepare_context(ReportConfig(data=df, target="y", quick=True, model=Ridge(), full=True))
    assert budgeted_features(ctx_full) is None


@pytest.mark.filterwarnings("ignore")
def test_sixty_columns_with_a_budget_of_ten_give_eleven_entries(tmp_path):
    df = _table()
    path = build_report(ReportConfig(data=df, target="y", quick=True, model=Ridge(), max_features=10, n_null=3,
                                     methods=("pfi", "loco", "sage", "pimp", "hstat"), sage_removals=("marginal",),
                                     strict=True, out=str(tmp_path)))
    html = open(path, encoding="utf-8").read()
    plain = re.sub(r"<[^>]+>", " ", html)
    assert "Feature budget: the cost of PFI, LOCO and SAGE (marginal) grows" in plain
    # 3 null refits, Holm over 11 entries: the floor 11/4 is capped at 1, nothing could be rejected
    assert ("PIMP was not run: with 3 null refits (empirical null) and the holm correction over 11 entries (the "
            "feature budget), the smallest adjusted p-value any feature could reach is min(1, 11/4) = 1, above "
            "0.05") in plain
    assert ("Rerun with --n-null 30 or more to run it: from 30 refits PIMP fits a null distribution to each "
            "feature&#39;s null importances where one fits; a feature left on the empirical null needs --n-null 219 "
            "to reach 0.05.") in plain
    assert "ran on the 10 ranked first by a screen: PFI with one permutation of each of the 60 features" in plain
    assert "; LOCO and SAGE (marginal) also on one group, &#39;all other features&#39;, holding the other 50 " \
           "features together (11 entries)" in plain
    # the H-statistic says so too (the screen ranks on the training rows, so not "with the largest PFI" of the table)
    assert "for the 10 of 60 features ranked first by section 3&#39;s screen" in plain


@pytest.mark.filterwarnings("ignore")
def test_budgeted_methods_have_eleven_entries():
    df = _table()
    ctx = prepare_context(ReportConfig(data=df, target="y", quick=True, model=Ridge(), max_features=10, n_null=3,
                                       methods=("pfi", "loco", "sage", "pimp"), sage_removals=("marginal",)))
    for method in ("pfi", "loco", "sage", "pimp"):
        compute_importance(ctx, method)
    assert len(ctx.importance.pfi.feature_names) == 10  # PFI and CFI: the top features, no group
    for key in ("loco", "sage_marginal", "pimp"):
        r = getattr(ctx.importance, key)
        assert len(r.feature_names) == 11
        assert r.feature_names[-1] == OTHERS
        assert np.isfinite(np.asarray(r.importance, dtype=float)).all()


def test_importance_table_shows_the_top_rows_and_collapses_the_rest(tmp_path):
    df = _table(p=60)
    # --full: PFI on every feature (beyond the budget, PFI keeps to the screen's top features)
    path = build_report(ReportConfig(data=df, target="y", quick=True, full=True, model=Ridge(), methods=("pfi",),
                                     strict=True, out=str(tmp_path)))
    html = open(path, encoding="utf-8").read()
    start = html.find("Importance side by side")
    open_part, _, rest = html[start:].partition("</table>")
    assert open_part.count("<tr>") == 1 + 20  # the header and the top 20 features
    assert "<details><summary>Show the other 40 features (ranked below the top 20)</summary>" in rest
    hidden = rest.split("</details>")[0]
    assert hidden.count("<tr>") == 1 + 40
    # the top rows are the largest PFI: the three real signals lead
    first = re.findall(r"<tr><td>([^<]+)</td>", open_part)[:3]
    assert sorted(first) == ["f11", "f3", "f7"]


def test_one_feature_over_the_budget_makes_no_group_of_one():
    """Review rev8 (ISLP OJ, 16 features, budget 15): the group 'all other features' held one feature -- the same cost
    as scoring it alone, under a name that hid it. At budget + 1 features the grouping methods score every feature;
    PFI and CFI (no group) are budgeted from budget + 1 on, as before."""
    from imlkit.report._sec_importance import pimp_entries

    df = _table(p=20).iloc[:, list(range(11)) + [20]]      # f0..f10 and y (f3, f7 in it)
    ctx = prepare_context(ReportConfig(data=df, target="y", quick=True, model=Ridge(), max_features=10,
                                       methods=("pfi", "sage")))
    assert budgeted_features(ctx) is None
    assert len(budgeted_features(ctx, group=False)) == 10
    assert pimp_entries(ctx) == (11, False)
    df12 = _table(p=20).iloc[:, list(range(12)) + [20]]
    ctx12 = prepare_context(ReportConfig(data=df12, target="y", quick=True, model=Ridge(), max_features=10,
                                         methods=("pfi", "sage")))
    groups = budgeted_features(ctx12)
    assert len(groups) == 11 and len(groups[OTHERS]) == 2
    assert pimp_entries(ctx12) == (11, True)
