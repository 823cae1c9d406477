"""Round 3 of the truth review, sections 1-3 and the reading: sentences that only say what their numbers support."""
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LinearRegression

from imlkit import importance as imp
from imlkit._display import P_SHOWN_FLOOR, p_text
from imlkit.report import _claims as cl


@pytest.fixture(scope="module")
def overwhelming_pimp():
    """PIMP where one feature's observed PFI lies hundreds of null SDs away: its normal tail underflows to p = 0
    (Bikeshare's hr: "adjusted p = 0"); a second feature is pure noise."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"big": rng.normal(size=400), "weak": rng.normal(size=400), "noise": rng.normal(size=400)})
    y = 100 * X["big"] + 0.3 * X["weak"] + rng.normal(size=400)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)   # the divide by zero of the Bikeshare report's Notes
        return imp.pimp(LinearRegression(), X[:250], y[:250], X[250:], y[250:], n_null=30, distribution="normal",
                        n_repeats=3, random_state=0)


def test_p_text_never_prints_zero_nor_hundreds_of_digits():
    assert p_text(0.0) == "< 1e-16" and p_text(6.09e-284) == "< 1e-16"
    assert p_text(P_SHOWN_FLOOR) == "1e-16" and p_text(4.48e-06) == "4.48e-06" and p_text(0.0335) == "0.0335"
    assert p_text(np.nan) == "–"


def test_pimp_sentences_and_table_show_an_underflowed_tail_as_below_the_floor(overwhelming_pimp):
    """Bikeshare default report: "PIMP: these features matter ...: hr (adjusted p = 0; observed above 60 of 60 null
    values)". A p-value is never 0, and this one is a normal tail fitted to 30 null values, far beyond all of them:
    the sentence now says "adjusted p < 1e-16 from a fitted normal tail, finer than 30 null values resolve" (that
    clause was dead before: it fired only when p < p_floor, and a fitted tail's floor is 0)."""
    from imlkit.report._reading import _pimp_claims
    from imlkit.report._sec_importance import _pimp_blocks

    r = overwhelming_pimp
    j = list(r.feature_names).index("big")
    assert r.p_adjusted[j] < P_SHOWN_FLOOR and r.extra["distribution"][j] == "normal"   # the case is the one asked
    said = " ".join(c.text() for c in _pimp_claims(r))
    assert "big (adjusted p < 1e-16 from a fitted normal tail, finer than 30 null values resolve" in said
    assert "p = 0;" not in said and "p = 0 " not in said
    blocks = _pimp_blocks(r)
    tab = next(b for b in blocks if b.get("kind") == "table" or "rows" in b)
    row = next(row for row in tab["rows"] if row[0] == "big")
    assert row[2] == "< 1e-16" and row[3] == "< 1e-16"
    assert row[4] == "none (normal tail)"     # not "0": a fitted tail has no smallest reachable p-value
    assert "no p-value is 0" in tab["caption"]


def test_side_by_side_p_column_and_caption_floor_tiny_p_values():
    """Bikeshare default report: LOCO's Holm p of hr printed as "6.09e-284" (a normal approximation of the Wilcoxon
    test at z ~ 36: its digits are not resolved; Hoeffding bounds the exact p-value by exp(-z²/2), so "< 1e-16" is
    true of the exact test too)."""
    from imlkit.importance import ImportanceResult
    from imlkit.report._sec_importance import _side_by_side_caption, side_by_side_rows

    v = np.array([26000.0, 0.5])
    r = ImportanceResult(method="loco", feature_names=("hr", "weekday"), importance=v, std=0 * v,
                         ci_low=v - 1, ci_high=v + 1, loss="squared_error", p_value=np.array([3e-285, 2e-6]),
                         p_adjusted=np.array([6.09e-284, 4.48e-06]), params={"confidence_level": 0.95},
                         info={"p_adjust_applied": "holm"})
    cols, rows = side_by_side_rows({"loco": r})
    assert rows[0][2] == "< 1e-16" and rows[1][2] == pytest.approx(4.48e-06)
    assert "shown as '< 1e-16'" in _side_by_side_caption({"loco": r})
    r2 = ImportanceResult(method="loco", feature_names=("a",), importance=v[:1], std=v[:1], ci_low=v[:1],
                          ci_high=v[:1], loss="squared_error", p_adjusted=np.array([0.01]))
    assert "1e-16" not in _side_by_side_caption({"loco": r2})


def test_reading_p_words_never_say_p_equals_zero():
    e = cl.Evidence(method="loco", feature="hr", estimate=38.1, low=34.9, high=41.7, largest=38.1,
                    p_adjusted=0.0, alpha=0.025, rank=1)
    assert e.p_words() == "adjusted p < 1e-16, at most the level 0.025"
    e = cl.Evidence(method="loco", feature="hr", estimate=38.1, low=34.9, high=41.7, largest=38.1,
                    p_adjusted=0.000334, alpha=0.025, rank=1)
    assert e.p_words() == "adjusted p = 0.000334, at most the level 0.025"


@pytest.mark.parametrize("value, text", [(1283.4, "1,280"), (-25973.0, "-26,000"), (4530.0, "4,530"),
                                         (999.4, "999"), (9_999_999.0, "1e+07"), (0.000596, "0.000596"),
                                         (-0.0, "0"), (38.13, "38.1")])
def test_sentence_numbers_write_thousands_as_people_do(value, text):
    """Bikeshare: "workingday: important for PFI (4.53e+03, permutation spread [4.4e+03, 4.67e+03], ...)"."""
    assert cl.num(value) == text


def test_a_value_below_zero_whose_interval_reaches_above_zero_is_not_a_negative_share():
    """College (--quick, Grad.Rate): "Books: important for PFI (...), but small beside Outstate (-0.26% of it) but its
    interval reaches 1.6% of what the features explain together for SAGE (marginal) (-0.115, Monte-Carlo interval
    [-2.22, 1.99], -0.26% of its largest, -0.094% of what the features explain together)". A share of an estimate
    below 0 whose interval reaches above 0 says nothing: what the verdict reads is the upper end."""
    e = cl.Evidence(method="sage_marginal", feature="Books", estimate=-0.115, low=-2.22, high=1.99, largest=44.2,
                    explained=122.0, largest_feature="Outstate", rank=9)
    assert e.small_beside()
    assert e.small_words() == ("not told apart from 0 and at most small beside Outstate (its interval's upper end "
                               "is 4.5% of it), though that upper end is 1.6% of what the features explain together")
    assert e.words() == ("-0.115, Monte-Carlo interval [-2.22, 1.99], upper end 4.5% of its largest, upper end 1.6% of "
                         "what the features explain together")
    # a positive estimate keeps its own share, and one "but" per sentence
    e = cl.Evidence(method="loco", feature="workingday", estimate=0.485, low=0.123, high=0.916, largest=38.1,
                    explained=86.6, largest_feature="hr", rank=5, p_adjusted=0.000334, alpha=0.025)
    said = e.small_words()
    assert said.startswith("small beside hr (1.3% of it), though ") and " but " not in said


def test_disagreement_names_the_method_before_its_small_verdict():
    """Bikeshare: "workingday: important for PFI (...), but small beside hr (1.3% of it) but its interval reaches 1% of
    ... and adjusted p = 0.000334, at most the level 0.025 for LOCO (0.485, ...)": two "but"s, LOCO named last."""
    pfi = cl.Evidence(method="pfi", feature="workingday", estimate=4530.0, low=4400.0, high=4670.0, largest=26000.0,
                      explained=18000.0, largest_feature="hr", rank=4)
    loco = cl.Evidence(method="loco", feature="workingday", estimate=0.485, low=0.123, high=0.916, largest=38.1,
                       explained=86.6, largest_feature="hr", rank=5, p_adjusted=0.000334, alpha=0.025)
    c = cl.Claim("disagreement", ("workingday",), methods=("pfi",), evidence=(pfi, loco), low=("loco",))
    said = c.text()
    assert said.startswith("workingday: important for PFI (4,530, permutation spread [4,400, 4,670], ")
    assert ", but for LOCO (0.485, interval [0.123, 0.916], adjusted p = 0.000334" in said
    assert said.count(" but ") == 1 and "small beside hr (1.3% of it), though " in said


def test_no_better_says_where_the_baseline_is_shown_better():
    """Smarket (--quick, Lag1-5 and Volume -> Direction): "the model could not be shown to beat the majority class
    baseline on 375 test rows (the model minus the baseline: Brier score 0.132 [0.0662, 0.193]; ROC AUC ...). The
    intervals also allow a real improvement" -- the Brier interval lies wholly above 0: the model is worse there."""
    n = dict(baseline="majority class", n_rows=375, noise=False, small_gain=cl.NOISE_GAIN,
             differences={"Brier score": (0.132, 0.0662, 0.193), "ROC AUC": (-0.0134, -0.0826, 0.0653),
                          "balanced accuracy": (-0.0364, -0.0963, 0.0287)})
    said = cl.Claim("no_better", numbers=n).text()
    assert ("On Brier score the whole interval favours the baseline: there the model is worse than the majority "
            "class baseline. The other intervals also allow a real improvement") in said
    n["differences"] = {"ROC AUC": (-0.0134, -0.0826, 0.0653)}
    said = cl.Claim("no_better", numbers=n).text()
    assert "favours the baseline" not in said and "The intervals also allow" in said


def test_first_place_says_when_its_interval_overlaps_the_second():
    """"The first feature differs between methods: Limit for PFI and SAGE (marginal); Income for CFI and LOCO ..."
    (Credit, a user's RidgeCV pipeline on its own split) was read from the point estimates alone: a first place
    whose interval overlaps the second's is not settled by the numbers the report shows, and the sentence says so."""
    def ev(method, f, est, lo, hi, rank):
        return cl.Evidence(method=method, feature=f, estimate=est, low=lo, high=hi, largest=10.0, rank=rank)

    first, second = ev("pfi", "Limit", 10.0, 8.0, 12.0, 1), ev("pfi", "Income", 9.0, 7.0, 11.0, 2)
    c = cl.Claim("top", ("Limit",), methods=("pfi",), evidence=(first,), numbers=dict(second=(second,)))
    assert c.text() == ("PFI ranks Limit first, and its interval (or adjusted p-value) puts it above 0. The intervals "
                        "do not settle the first place where the first and the second overlap (PFI: Limit 10 [8, 12], "
                        "Income 9 [7, 11]).")
    apart = ev("pfi", "Income", 5.0, 4.0, 6.0, 2)
    c = cl.Claim("top", ("Limit",), methods=("pfi",), evidence=(first,), numbers=dict(second=(apart,)))
    assert "settle" not in c.text()
    # the reading hands each method's runner-up to the claim
    from imlkit.report._reading import _top_claim

    claim = _top_claim({"pfi": {"Limit": first, "Income": second}})
    assert claim.numbers["second"] == (second,) and "do not settle" in claim.text()


def test_interactions_of_a_classifier_are_said_to_be_of_the_probability():
    """Credit, a user's LogisticRegression pipeline (Student): "Features with strong interactions (overall H² > 0.1):
    Income (H² = 0.724), Limit (H² = 0.717), ..." -- of a model additive in the log-odds. The H-statistic of the
    predicted probability is above 0.1 for such a model through the sigmoid alone (shown here), so the reading says
    which scale its interactions are on."""
    from sklearn.linear_model import LogisticRegression

    from imlkit import effects as eff
    from imlkit.report._reading import reading_claims

    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(300, 3)), columns=list("abc"))
    y = (3 * X.a + 3 * X.b + rng.logistic(size=300) > 0).astype(int)
    h = eff.h_statistic(LogisticRegression(C=1e4).fit(X, y), X, n_samples=300, random_state=0)
    assert np.all(np.asarray(h.overall)[:2] > cl.H_INTERACTION)   # additive in the log-odds, yet H² > 0.1
    c = cl.Claim("interactions", ("a", "b"), numbers=dict(h2=tuple(h.overall[:2]), threshold=cl.H_INTERACTION,
                                                           probability=True))
    assert "interactions of the predicted probability: a model additive in the log-odds" in c.text()
    c = cl.Claim("interactions", ("a",), numbers=dict(h2=(0.3,), threshold=cl.H_INTERACTION))
    assert "log-odds" not in c.text()
    # the reading marks a classification report's H² as of the probability
    from types import SimpleNamespace

    from imlkit.importance import ImportanceResult
    from imlkit.report._context import DataOutputs, EffectsOutputs, ImportanceOutputs, ModelCheck

    v = np.array([1.0, 0.5])
    pfi = ImportanceResult(method="pfi", feature_names=("a", "b"), importance=v, std=0 * v, ci_low=v - 0.1,
                           ci_high=v + 0.1, loss="log_loss")
    ctx = SimpleNamespace(importance=ImportanceOutputs(pfi=pfi), effects=EffectsOutputs(h_overall={"a": 0.3}),
                          data_outputs=DataOutputs(), model_check=ModelCheck(), X_test=None, y_test=None,
                          task="classification")
    said = [c.text() for para in reading_claims(ctx) for item in para.items for c in item]
    assert any("log-odds" in s for s in said), said


@pytest.mark.parametrize("evaluation", ["all_rows", "split"])
def test_beating_the_baseline_on_possibly_training_rows_is_not_called_evidence(evaluation):
    """Caravan with a user's RandomForestClassifier fitted on 70% of the rows, the report given the whole table
    (no --test-data): "The model beats the majority class baseline on evaluation Brier score, ROC AUC and balanced
    accuracy" (ROC AUC 0.928) -- on rows 70% of which fitted it; on the 30% it never saw its ROC AUC is 0.747. The
    sentence now says the rows may be its training rows and what that means."""
    from types import SimpleNamespace

    from imlkit.report._context import ModelCheck
    from imlkit.report._fit import MeanBaseline
    from imlkit.report._scores import deciding_metrics, score_intervals
    from imlkit.report._sec_model import _verdict

    rng = np.random.default_rng(1)
    y = rng.normal(size=120)
    outputs = {"model": {"pred": y + rng.normal(scale=0.3, size=120), "proba": None},
               "mean": {"pred": np.full(120, y.mean()), "proba": None}}
    deciding = deciding_metrics("regression")
    res = score_intervals(outputs, y, "regression", 0, reference="model", simultaneous=deciding)
    ctx = SimpleNamespace(model_label="model", model_check=ModelCheck(), alerts=[], eval_rows="rows",
                          evaluation=evaluation, score_word="evaluation", X_test=pd.DataFrame({"a": y}))
    said = " ".join(b.get("text", "") for b in _verdict(ctx, res, {"mean": MeanBaseline()}, deciding))
    assert said.startswith("The model beats the mean baseline on evaluation RMSE")
    note = "this does not show that the model beats it on rows it never saw"
    assert (note in said) == (evaluation == "all_rows")


def test_a_tail_shared_by_every_pimp_feature_is_said_once():
    """Bikeshare default: "from a fitted normal tail, finer than 60 null values resolve" eight times in one sentence."""
    n = dict(alpha=0.05, n_null=60, p_adjusted=(0.0, 0.00488), p_floor=(0.0, 0.0), n_below=(60, 60),
             tail=("normal", "normal"))
    said = cl.Claim("pimp_matters", ("hr", "temp"), methods=("pimp",), numbers=n).text()
    assert said.count("fitted normal tail") == 1
    assert ("hr (adjusted p < 1e-16; observed above 60 of 60 null values) and temp (adjusted p = 0.00488; observed "
            "above 60 of 60 null values). Each of these p-values comes from a fitted normal tail, finer than 60 null "
            "values resolve.") in said
    n["tail"] = ("normal", "")
    said = cl.Claim("pimp_matters", ("hr", "temp"), methods=("pimp",), numbers=n).text()
    assert "hr (adjusted p < 1e-16 from a fitted normal tail, finer than 60 null values resolve;" in said
    assert "Each of these" not in said


def test_pimp_cannot_tell_only_for_a_feature_beyond_its_whole_null():
    """College (default PIMP, Apps): "PIMP cannot tell with 60 null refits (at least 319 are needed): for Private
    (adjusted p = 1; observed above 16 of 60 null values), ..., so not rejecting says nothing about it." Private's
    observed importance lies inside its null (below 44 of the 60 null values): its empirical p-value is at least
    45/61 in these refits, so "at least 319 are needed" told the reader more refits would settle it.
    Section 3's own PIMP paragraph (PimpResult.cannot_tell) already asked for the observed value beyond every null."""
    from imlkit.importance import ImportanceResult
    from imlkit.importance._inference import adjust_pvalues
    from imlkit.report._reading import _pimp_claims

    B = 60
    null = np.tile(np.linspace(0.0, 1.0, B), (5, 1))          # every feature's null values: 0 .. 1
    observed = np.array([50.0, 2.0, 0.265, 0.8, 0.9])         # beyond all; beyond all; above 16 of 60; ...
    raw = np.array([1e-9, 1 / (B + 1), (B - 16 + 1) / (B + 1), 13 / 61, 7 / 61])
    r = ImportanceResult(method="pimp", feature_names=("Accept", "Top", "Private", "a", "b"), importance=observed,
                         std=0 * observed, ci_low=observed, ci_high=observed, loss="squared_error", p_value=raw,
                         p_adjusted=adjust_pvalues(raw), params=dict(n_null=B, p_adjust="holm", alpha=0.05),
                         extra={"distribution": ("normal",) + ("empirical",) * 4, "null": null})
    claims = {c.kind: c for c in _pimp_claims(r)}
    # Holm over 5 with Accept below the floor: every empirical floor is 4/61 = 0.0656 > 0.05
    assert claims["pimp_cannot_tell"].features == ("Top",)
    assert set(claims["pimp_no_evidence"].features) == {"Private", "a", "b"}
    said = claims["pimp_no_evidence"].text()
    assert "Private (adjusted p = 0.738; observed above 16 of 60 null values)" in said
    assert ("With 60 null refits b, a and Private could not have reached 0.05 whatever their importance (the smallest "
            "adjusted p-value their nulls could give is 0.0656 or more); unlike a feature beyond all its null values, "
            "their observed importance also lies inside their null values (the counts above).") in said
    assert "Private" not in claims["pimp_cannot_tell"].text()
    assert all(cl.check(c) == [] for c in claims.values())
