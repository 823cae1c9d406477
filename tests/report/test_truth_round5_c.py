"""Fifth round (helper c) of "every sentence carries the numbers that justify it": importance, effects, local."""
import re

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from sklearn.linear_model import Ridge

from imlkit.report import ReportConfig
from imlkit.report._build import prepare_context
from imlkit.report._ranking import screen_info, screen_ranking


def _noise_table(n=300, p=60, seed=0):
    """5 informative columns of 60; the other 55 are noise."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(n, p)), columns=[f"x{j}" for j in range(p)])
    return X.assign(y=X.to_numpy()[:, :5] @ np.array([1.0, 0.8, 0.6, 0.45, 0.3]) + rng.normal(size=n))


def _plain(s):
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", s)).replace("&#39;", "'")


def test_the_feature_budget_screen_does_not_read_the_rows_the_verdicts_read():
    """60 columns, 55 of them noise, --quick (budget 15): the screen ranked by PFI on the test rows and the verdicts
    then read the kept features' intervals on those rows at the level "simultaneous over 15". Choosing there picks
    the noise features whose permutation happened to raise the loss on these rows: a noise feature's interval cleared
    0 at that level in each of 4 seeds (gradient boosting, 1,000 rows), against 1 of 4 with the screen on the
    training rows. The screen's choice must not depend on the test rows at all: scrambling the test target leaves
    it as it was, and section 3 says which rows it read."""
    df = _noise_table()
    cfg = ReportConfig(data=df, target="y", quick=True, model=Ridge(), methods=("pfi",), progress=False)
    ctx = prepare_context(cfg)
    ranking = screen_ranking(ctx)
    assert set(ranking[:3]) == {"x0", "x1", "x2"}
    other = prepare_context(cfg)
    rng = np.random.default_rng(1)
    other.y_test = pd.Series(rng.permutation(other.y_test.to_numpy()), index=other.y_test.index)
    other.X_test = other.X_test.apply(lambda c: rng.permutation(c.to_numpy()))
    assert screen_ranking(other) == ranking  # the choice reads no test row
    info = screen_info(ctx)
    assert info["rows"] == "train" and info["n_rows"] == len(ctx.X_train)

    from imlkit.report._sec_importance import _budget_note, compute_importance

    computed = compute_importance(ctx, "pfi")
    note = _plain(_budget_note(ctx, computed))
    assert f"on {len(ctx.X_train):,} training rows (not the rows the intervals and tests below read" in note
    # the record of the rows each step read keeps PFI's own (the test rows), not the screen's; the screen's step says
    assert ("pfi", "train") not in ctx.row_use
    step = next(e for e in ctx.log if e.step.startswith("screen"))
    assert step.parameters["rows"] == f"{len(ctx.X_train):,} training rows"


def test_a_screen_on_the_only_rows_says_the_level_does_not_cover_the_choice():
    """A fitted model scored on every row of one table leaves no other rows to screen on: section 3 then says that
    the verdicts' level does not cover choosing 15 of 60 there."""
    df = _noise_table()
    model = Ridge().fit(df.drop(columns="y"), df["y"])
    ctx = prepare_context(ReportConfig(data=df, target="y", quick=True, model=model, methods=("pfi",),
                                       progress=False))
    assert ctx.evaluation == "all_rows"
    screen_ranking(ctx)
    assert screen_info(ctx)["rows"] == "same"
    from imlkit.report._sec_importance import _budget_note, compute_importance

    note = _plain(_budget_note(ctx, compute_importance(ctx, "pfi")))
    assert "Bonferroni level over all 60 screened features, which covers choosing 15 of them" in note
    assert "LOCO's and PIMP's tests are adjusted over the entries shown only, which does not cover that choice" in note
    # the result records the family that covers the choice (every screened feature), and the reading uses it
    pfi = ctx.importance.pfi
    assert pfi.info["chosen_from"] == 60 and len(pfi.feature_names) == 15
    from imlkit.report import _claims as cl

    m, level, sim = cl.family_level(pfi)
    assert m == 60
    assert_allclose(sim, 1 - (1 - level) / 60)


@pytest.mark.parametrize("seed", [0])
def test_screen_is_reproducible(seed):
    df = _noise_table(seed=seed)
    cfg = ReportConfig(data=df, target="y", quick=True, model=Ridge(), methods=("pfi",), progress=False)
    assert screen_ranking(prepare_context(cfg)) == screen_ranking(prepare_context(cfg))


def _texts(sec):
    return " ".join(b.get("text", "") for b in sec["blocks"] if isinstance(b, dict))


@pytest.mark.filterwarnings("ignore")
def test_shap_section_names_section_3s_marginal_sage_only_when_there_is_one():
    """--methods pfi,shap: section 5b said "section 3's marginal SAGE estimates it with a background sample and
    orderings of its own, so its values match these only up to that sampling" -- section 3 had no SAGE."""
    from sklearn.ensemble import RandomForestRegressor

    from imlkit.report._sec_importance import compute_importance
    from imlkit.report._sec_local import section_local

    df = _noise_table(n=200, p=6)
    model = RandomForestRegressor(n_estimators=20, random_state=0)
    ctx = prepare_context(ReportConfig(data=df, target="y", quick=True, model=model, methods=("pfi", "shap"),
                                       progress=False))
    compute_importance(ctx, "pfi")
    said = _texts(section_local(ctx))
    assert "is marginal SAGE with the same background" in said
    assert "section 3's marginal SAGE" not in said
    ctx = prepare_context(ReportConfig(data=df, target="y", quick=True, model=model, methods=("sage", "shap"),
                                       sage_removals=("marginal",), progress=False))
    compute_importance(ctx, "sage")
    assert "section 3's marginal SAGE estimates it" in _texts(section_local(ctx))


def _budget_table(n=400, extra=80, seed=0):
    """x0, x1, x2 strong to moderate; ``extra`` more columns each with a small effect: together they outweigh x0."""
    rng = np.random.default_rng(seed)
    cols = [f"x{j}" for j in range(3 + extra)]
    X = pd.DataFrame(rng.normal(size=(n, len(cols))), columns=cols)
    beta = np.r_[3.0, 2.0, 1.2, np.full(extra, 0.6)]
    return X.assign(y=X.to_numpy() @ beta + rng.normal(size=n))


@pytest.mark.filterwarnings("ignore")
def test_the_budgets_group_is_not_the_yardstick_of_single_features():
    """Beyond the feature budget SAGE also scores one group of every feature not kept; PFI does not. The reading took
    the group's value as SAGE's "largest", so every SAGE share was a share of 80 features together: digits' pixel_1_4
    (marginal SAGE 0.0178, 6.9% of pixel_2_5's 0.258) was "small beside the group 'all other features' (1.6% of it)"
    and in disagreement with CFI, and LOCO's and SAGE's "first feature" was the group of 46. Here x2 (SAGE about
    1.2² = 1.44 against x0's 9 and the group's 80 × 0.36 = 29) is important for PFI; for SAGE it must be judged
    beside x0, not beside the group."""
    from imlkit.report._ranking import most_important
    from imlkit.report._reading import reading_blocks, reading_claims
    from imlkit.report._sec_importance import compute_importance

    ctx = prepare_context(ReportConfig(data=_budget_table(), target="y", quick=True, model=Ridge(), max_features=3,
                                       methods=("pfi", "sage"), sage_removals=("marginal",), progress=False))
    for m in ("pfi", "sage"):
        compute_importance(ctx, m)
    sage = ctx.importance.sage_marginal
    value = dict(zip(sage.feature_names, np.asarray(sage.importance, dtype=float)))
    assert value["all other features"] > 2 * value["x0"]  # the premise: the group outweighs every single feature
    assert 0.1 < value["x2"] / value["x0"]  # x2 is at least 10% of the largest single feature
    features, words = most_important(ctx)
    assert features[:3] == ["x0", "x1", "x2"]
    assert "x2 (2 of 2)" in words
    said = " ".join(c.text() for p in reading_claims(ctx) for item in p.items for c in item)
    assert "all other features" not in said
    assert "All 2 methods rank x0 first" in said
    plain = " ".join(b.get("text", "") for b in reading_blocks(ctx) if isinstance(b, dict))
    assert "The group 'all other features' (80 features held together), which SAGE (marginal) also scored" in plain


def test_no_shared_information_story_when_cfi_finds_a_unique_contribution():
    """wine (gbm, --quick): alcohol important for CFI and marginal SAGE, negligible for LOCO, R² 0.594 on the others:
    the reading said "its information is largely available through them, so LOCO finds little unique contribution"
    -- CFI, which judges exactly the unique contribution the fitted model uses, had just found one. The dependence
    sentence now says how the removals credit a dependent feature, and the refit reason (LOCO's learner can
    compensate, CFI's fitted model cannot) carries the rest; "the model barely uses it" is not said beside CFI."""
    from imlkit.report._reading import _reasons

    rng = np.random.default_rng(0)
    a = rng.normal(size=300)
    X = pd.DataFrame({"alcohol": a, "proline": 0.8 * a + 0.6 * rng.normal(size=300)})
    said = " ".join(c.text() for c in _reasons("alcohol", ["cfi", "sage_marginal"], ["loco"], {"alcohol": 0.594},
                                               None, X))
    assert "strongly dependent on the other features (R² = 0.594" in said
    assert "largely available through them" not in said and "little unique contribution" not in said
    assert "refitted model can compensate" in said
    # without CFI on the high side the shared-information story is the one the numbers support
    said = " ".join(c.text() for c in _reasons("alcohol", ["pfi"], ["cfi"], {"alcohol": 0.9}, None, X))
    assert "largely available through them, so CFI finds little unique contribution" in said
    # conditional SAGE and CFI important, PFI negligible: "the model itself barely uses" is contradicted by CFI
    said = " ".join(c.text() for c in _reasons("alcohol", ["sage_conditional", "cfi"], ["pfi"], {"alcohol": 0.9},
                                               None, X))
    assert "barely uses" not in said


def test_no_extrapolation_story_when_a_marginal_method_is_low_too():
    """wine: od280 important for marginal SAGE, negligible for PFI, CFI and LOCO (R² 0.736): the reason said "while
    SAGE (marginal) also counts the model's behaviour on unrealistic, extrapolated points" -- PFI, which permutes
    the feature alone and extrapolates at least as much, was negligible beside it."""
    from imlkit.report._reading import _reasons

    rng = np.random.default_rng(0)
    a = rng.normal(size=300)
    X = pd.DataFrame({"od280": a, "flavanoids": 0.8 * a + 0.6 * rng.normal(size=300)})
    said = " ".join(c.text() for c in _reasons("od280", ["sage_marginal"], ["pfi", "cfi", "loco"], {"od280": 0.736},
                                               None, X))
    assert "strongly dependent on the other features (R² = 0.736" in said
    assert "extrapolated" not in said
    said = " ".join(c.text() for c in _reasons("od280", ["sage_marginal", "pfi"], ["cfi"], {"od280": 0.736}, None, X))
    assert "extrapolated" in said  # both marginal methods high, the conditional one low: the story holds


def test_an_h_statistic_within_its_standard_error_of_the_threshold_is_not_told_apart_from_it():
    """wine (54 test rows): proline's H² 0.119 with bootstrap SE 0.0177 and halves 0.114 and 0.137 was "Above 0.1 in
    both halves" and the reading's strong interaction; 0.119 - 1.645 x 0.0177 = 0.0894, so its own standard error does
    not tell it from 0.1. Section 4 says so with that arithmetic, and the reading's reasons use an interaction (or
    its absence) only when the SE tells it apart."""
    from imlkit.report._reading import _reasons
    from imlkit.report._sec_effects import halves_words

    h, halves, se = {"proline": 0.1185, "hue": 0.0233}, {"proline": (0.1139, 0.1368), "hue": (0.054, 0.0006)}, \
        {"proline": 0.01768, "hue": 0.02046}
    said = halves_words(h, halves, 54, 27, 27, se=se)
    assert "Above 0.1 in both halves: proline" in said
    assert "proline (H² 0.118, SE 0.0177: 0.118 − 1.645 × 0.0177 = 0.0894)" in said
    assert "SE" not in halves_words(h, halves, 54, 27, 27, se={"proline": 0.005, "hue": 0.02})  # 0.1185 - 0.008
    # the reading: PFI important, marginal SAGE small -> "SAGE splits an interaction" needs an H² the SE tells apart
    X = pd.DataFrame({"proline": np.arange(10.0), "hue": np.arange(10.0)[::-1] ** 2})
    claims = _reasons("proline", ["pfi"], ["sage_marginal"], {"proline": 0.1}, h, X, None, halves, se)
    assert not [c for c in claims if c.kind == "interaction"]
    claims = _reasons("proline", ["pfi"], ["sage_marginal"], {"proline": 0.1}, h, X, None, halves,
                      {"proline": 0.005})
    assert [c for c in claims if c.kind == "interaction"]
    # "not explained by ... a strong interaction" needs H² + 1.645 SE at or below 0.1: hue's 0.0233 + 0.0337 is
    said = " ".join(c.text() for c in _reasons("hue", ["pfi"], ["cfi"], {"hue": 0.1}, h, X, None, halves, se))
    assert "or a strong interaction" in said
    said = " ".join(c.text() for c in _reasons("hue", ["pfi"], ["cfi"], {"hue": 0.1}, h, X, None, halves,
                                               {"hue": 0.05}))
    assert "not explained by linear dependence" in said and "strong interaction" not in said


def test_the_interactions_claim_carries_the_strong_features_its_se_does_not_tell_apart():
    """fair (affairs, gbm, 120 rows): children (H² 0.235, SE 0.137, halves 0.11 and 0.694), yrs_married (0.266, SE
    0.105) and educ (0.153, SE 0.0594) are above 0.1 in both halves but within 1.645 SEs of it; the claim carries them
    (feature, H², SE) for its sentence, rate_marriage (0.332, SE 0.0835) not."""
    from types import SimpleNamespace

    from imlkit.report._reading import _interactions_claim

    h = {"rate_marriage": 0.332, "yrs_married": 0.2658, "children": 0.2347, "educ": 0.1534}
    halves = {"rate_marriage": (0.3367, 0.2403), "yrs_married": (0.2207, 0.3953), "children": (0.1098, 0.6937),
              "educ": (0.1212, 0.2248)}
    se = {"rate_marriage": 0.0835, "yrs_married": 0.1051, "children": 0.1367, "educ": 0.05939}
    ctx = SimpleNamespace(effects=SimpleNamespace(h_rows=120, h_se=se), task="regression")
    claim = _interactions_claim(ctx, h, halves)
    # (claims6: the three within 1.645 SEs are no longer listed among the strong ones -- "strong interactions: ...
    # Of these, ... lie within 1.645 SEs" contradicted itself)
    assert claim.features == ("rate_marriage",)
    close = {f: (v, s) for f, v, s in claim.numbers["se_close"]}
    assert set(close) == {"yrs_married", "children", "educ"}
    for f, (v, s) in close.items():
        assert v - 1.645 * s <= 0.1 < min(halves[f])


@pytest.mark.filterwarnings("ignore")
def test_pimps_count_of_significant_features_does_not_call_the_budget_group_a_feature():
    """Under the feature budget PIMP tests the kept features and one group: "After holm adjustment, 0 of 16 features
    are significantly important" counted the group of every other feature as a feature."""
    import imlkit as ik
    from imlkit.report._sec_importance import OTHERS, _pimp_blocks

    df = _noise_table(n=160, p=6)
    X, y = df.drop(columns="y"), df["y"]
    groups = {"x0": ["x0"], "x1": ["x1"], OTHERS: ["x2", "x3", "x4", "x5"]}
    r = ik.pimp(Ridge(), X.iloc[:100], y.iloc[:100], X.iloc[100:], y.iloc[100:], features=groups, n_null=5,
                n_repeats=2, random_state=0)
    said = " ".join(b.get("text", "") for b in _pimp_blocks(r) if isinstance(b, dict))
    assert f"of 3 entries (2 features and the group '{OTHERS}')" in said
    assert "of 3 features" not in said


def test_the_rules_name_the_family_a_chosen_method_is_read_over():
    """The rules sentence says PFI is read over the 60 features its 15 entries were chosen from (family_level with
    info['chosen_from']), not 'over its 60 entries' (it shows 15)."""
    from imlkit.report import _claims as cl

    numbers = dict(important_share=cl.IMPORTANT_SHARE, negligible_share=cl.NEGLIGIBLE_SHARE,
                   loss_share=cl.LOSS_SHARE, families={"pfi": (60, 0.95, 1 - 0.05 / 60)}, chosen={"pfi": 15})
    said = cl.Claim("rules", methods=("pfi",), numbers=numbers).text()
    assert "PFI over the 60 features its 15 entries were chosen from, at 99.917%" in said
    numbers.pop("chosen")
    assert "PFI over its 60 entries at 99.917%" in cl.Claim("rules", methods=("pfi",), numbers=numbers).text()


def _interval_result(method, names, v, lo, hi):
    """An importance result with the given estimates and interval ends (squared error, baseline loss 1)."""
    from imlkit.importance import ImportanceResult

    v, lo, hi = (np.asarray(x, dtype=float) for x in (v, lo, hi))
    return ImportanceResult(method=method, feature_names=tuple(names), importance=v, std=0 * v, ci_low=lo, ci_high=hi,
                            loss="squared_error", baseline_loss=1.0, params={}, extra={})


def test_the_dependence_partner_r_is_read_on_the_rows_of_section_1():
    """wine: section 3 said "alcohol is strongly dependent ... (R² = 0.594 ..., most with proline (|r| = 0.663))" --
    R² from all rows (section 1) beside |r| from the 54 test rows; section 1's table gives 0.6437. The partner's |r| is
    now read on the rows section 1 read (ctx.data.X)."""
    from types import SimpleNamespace

    from imlkit.report._context import DataOutputs, EffectsOutputs, ImportanceOutputs, ModelCheck
    from imlkit.report._reading import reading_claims

    rng = np.random.default_rng(0)
    n = 400
    a = rng.normal(size=n)
    X = pd.DataFrame({"a": a, "b": a + 0.3 * rng.normal(size=n), "c": rng.normal(size=n)})
    X_test = X.iloc[:40].reset_index(drop=True)
    def res(method, v, lo, hi):
        return _interval_result(method, ("a", "b", "c"), v, lo, hi)

    # a: important for PFI, negligible for CFI -> a disagreement explained by its dependence on b
    pfi = res("pfi", [1.0, 0.5, 0.3], [0.9, 0.4, 0.2], [1.1, 0.6, 0.4])
    cfi = res("cfi", [0.001, 0.5, 0.3], [0.0, 0.4, 0.2], [0.002, 0.6, 0.4])
    r2 = pd.Series({"a": 0.92, "b": 0.92, "c": 0.0})
    ctx = SimpleNamespace(importance=ImportanceOutputs(pfi=pfi, cfi=cfi), effects=EffectsOutputs(h_overall=None),
                          data_outputs=DataOutputs(dependence_r2=r2), model_check=ModelCheck(no_better_than=None),
                          X_test=X_test, y_test=pd.Series(rng.normal(size=40)), data=SimpleNamespace(X=X))
    claims = [c for p in reading_claims(ctx) for item in p.items for c in item]
    dep = [c for c in claims if c.kind == "dependence" and c.features == ("a",)]
    assert dep, [c.kind for c in claims]
    assert_allclose(dep[0].numbers["partner_r"], abs(np.corrcoef(X["a"], X["b"])[0, 1]), rtol=1e-12)
    assert not np.isclose(dep[0].numbers["partner_r"], abs(np.corrcoef(X_test["a"], X_test["b"])[0, 1]))


def test_a_feature_ranked_on_marginal_methods_section_1_distrusts_says_so():
    """Hitters: section 1 warns that PFI and marginal SAGE extrapolate for CRBI and CHits (R² 0.99, 1.00); section 4
    then chose them as "the 2 most important features (2 of 4)" on exactly those two methods, CFI's intervals including
    0. The ranking now says that only the marginal methods find them important, and that the conditional ones do not."""
    from types import SimpleNamespace

    from imlkit.report._context import DataOutputs, ImportanceOutputs
    from imlkit.report._ranking import most_important

    def res(method, v, lo, hi):
        return _interval_result(method, ("CRBI", "Hits", "Walks"), v, lo, hi)

    pfi = res("pfi", [1.0, 0.6, 0.01], [0.9, 0.5, 0.0], [1.1, 0.7, 0.02])
    cfi = res("cfi", [0.05, 0.6, 0.01], [-0.1, 0.5, 0.0], [0.2, 0.7, 0.02])
    r2 = pd.Series({"CRBI": 0.99, "Hits": 0.3, "Walks": 0.2})
    ctx = SimpleNamespace(importance=ImportanceOutputs(pfi=pfi, cfi=cfi), data_outputs=DataOutputs(dependence_r2=r2),
                          y_test=None)
    feats, words = most_important(ctx, k=2)
    assert feats[:2] == ["Hits", "CRBI"] or feats[:2] == ["CRBI", "Hits"]
    assert ("CRBI (R² = 0.99) is important only for PFI, which replace it by values drawn without regard to the other "
            "features") in words
    assert "while CFI does not find it important" in words
    assert "Hits (R²" not in words  # important for CFI too: nothing to say
    # without a conditional method there is nothing to set against
    ctx.importance = ImportanceOutputs(pfi=pfi)
    assert "important only for" not in most_important(ctx, k=2)[1]
