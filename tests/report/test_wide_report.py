"""A wide table (more features than rows) in the --quick report: it finishes, names its budget and screen,
and no sentence lists hundreds of feature names."""
import dataclasses
import re

import numpy as np
import pandas as pd
import pytest

from imlkit.report import ReportConfig, build_report
from imlkit.report._build import prepare_context
from imlkit.report._ranking import screen_info, screen_ranking, unused_features
from imlkit.report._sec_importance import compute_importance, pimp_cannot_reject

N, P = 60, 400


def _wide(seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(N, P)), columns=[f"g{j}" for j in range(P)])
    return X.assign(y=2 * X.g5 - 1.5 * X.g17 + X.g42 + 0.3 * rng.normal(size=N))


@pytest.fixture(scope="module")
def wide_html(tmp_path_factory):
    out = tmp_path_factory.mktemp("wide")
    # the methods whose cost grows with p (effects, SHAP and the alternatives have their own tests)
    path = build_report(ReportConfig(data=_wide(), target="y", quick=True, strict=True, out=str(out),
                                     methods=("pfi", "cfi", "loco", "sage", "pimp", "hstat"),
                                     sage_removals=("marginal",)))
    return open(path, encoding="utf-8").read()


def _plain(html):
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).replace("&#39;", "'")


def test_wide_quick_report_names_its_budget_and_screen(wide_html):
    plain = _plain(wide_html)
    budget = re.search(r"Feature budget: the cost of (.*?) grows with the number of features, so with 400 features "
                       r"they ran on the 15 ranked first by a screen: PFI with one permutation of each of the (\d+) "
                       r"features the model splits on \(the other (\d+) are never used by a split", plain)
    assert budget is not None
    assert budget.group(1) == "PFI, CFI, LOCO and SAGE (marginal)"
    assert int(budget.group(2)) + int(budget.group(3)) == P and int(budget.group(3)) > 0
    assert "; LOCO and SAGE (marginal) also on one group, 'all other features', holding the other 385 features " \
           "together (16 entries)." in plain
    # --quick's 10 null refits cannot reject anything over 16 entries: PIMP says so instead of refitting
    assert "PIMP was not run: with 10 null refits" in plain and "needs --n-null 319 to reach 0.05" in plain
    importance = plain.split("3. Feature importance")[-1].split("4. Feature effects")[0]
    assert "Show the other" not in importance  # 16 entries: nothing to collapse
    assert "PFI" in plain.split("Feature budget:")[1].split("grows")[0]


def test_wide_quick_report_lists_no_long_runs_of_names(wide_html):
    # every paragraph, list item and table cell: at most a handful of feature names, then a count
    for part in re.findall(r"<(p|li|td)[^>]*>(.*?)</\1>", wide_html, flags=re.S):
        names = re.findall(r"\bg\d+\b", _plain(part[1]))
        assert len(names) <= 16, names[:20]


def test_screen_skips_columns_the_trees_never_split_on():
    ctx = prepare_context(ReportConfig(data=_wide(), target="y", quick=True, methods=("pfi",)))
    unused = unused_features(ctx.model, ctx.X_test)
    assert unused and len(unused) < P
    ranking = screen_ranking(ctx)
    assert sorted(ranking) == sorted(ctx.X_test.columns)
    info = screen_info(ctx)
    assert info == {"screened": P - len(unused), "unused": len(unused), "rows": "train", "n_rows": len(ctx.X_train)}
    assert set(ranking[-len(unused):]) == unused  # exactly 0: ranked last
    assert {"g5", "g17"} <= set(ranking[:15])  # the strong signals lead the screen
    compute_importance(ctx, "pfi")
    r = ctx.importance.pfi
    assert list(r.feature_names) == ranking[:15]  # PFI and CFI: the top features only (no group)
    # PIMP with 10 null refits over 16 entries: Holm's floor 16/11 > 0.05 whatever the data
    assert pimp_cannot_reject(ctx).startswith("PIMP was not run")


def test_within_the_budget_nothing_is_screened():
    df = _wide().iloc[:, list(range(10)) + [P]]
    ctx = prepare_context(ReportConfig(data=df, target="y", quick=True, methods=("pfi",)))
    compute_importance(ctx, "pfi")
    assert len(ctx.importance.pfi.feature_names) == 10 and screen_info(ctx) is None
    # within the budget too, --quick's 10 null refits over 10 features cannot reject (floor min(1, 10/11))
    skip = pimp_cannot_reject(ctx)
    assert skip.startswith("PIMP was not run: with 10 null refits (empirical null) and the holm correction over 10 "
                           "features, the smallest adjusted p-value any feature could reach is min(1, 10/11) = 0.9091")
    assert "Rerun with --n-null 30 or more to run it" in skip and "needs --n-null 199 to reach 0.05" in skip
    # 30 refits or more: PIMP fits a null tail, its floor is 0; it runs
    ctx.params = dataclasses.replace(ctx.params, pimp=dataclasses.replace(ctx.params.pimp, n_null=30))
    assert pimp_cannot_reject(ctx) is None
    # the empirical null asked for: 199 refits (10/200 = 0.05) run, 198 do not
    ctx.params = dataclasses.replace(ctx.params, pimp=dataclasses.replace(ctx.params.pimp, distribution="empirical",
                                                                          n_null=198))
    assert "Rerun with --n-null 199 (at least) to run it." in pimp_cannot_reject(ctx)
    ctx.params = dataclasses.replace(ctx.params, pimp=dataclasses.replace(ctx.params.pimp, n_null=199))
    assert pimp_cannot_reject(ctx) is None


def test_numeric_summaries_read_as_the_per_column_description():
    from imlkit.report._sec_data import _describe, _numeric_summaries

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=50), "b": rng.integers(0, 5, 50), "c": rng.random(50) > 0.5,
                      "d": [np.nan] * 50, "e": pd.Series(rng.normal(size=50)).where(rng.random(50) > 0.2),
                      "f": pd.Series(rng.integers(0, 3, 50), dtype="Int64").where(rng.random(50) > 0.3),
                      "g": pd.Categorical(rng.choice(list("xyz"), 50))})
    summaries = _numeric_summaries(X)
    assert sorted(summaries) == ["a", "b", "c", "d", "e", "f"]  # the categorical is described on its own
    for c, (desc, missing) in summaries.items():
        assert desc == _describe(X[c])
        assert missing == int(X[c].isna().sum())


def test_imlkit_importance_keeps_pfi_on_every_feature():
    from imlkit.report import run_importance

    r = run_importance(ReportConfig(data=_wide(), target="y", quick=True), method="pfi")
    assert len(r.feature_names) == P
