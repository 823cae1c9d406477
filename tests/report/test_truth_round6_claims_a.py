"""Round 6 (claims6): the reading's sentences say only what their numbers show."""
from types import SimpleNamespace


def test_no_feature_within_its_se_of_the_threshold_is_headed_a_strong_interaction():
    """A wide synthetic table (2,000 columns, a gradient boosting classifier): x2 (H² 0.131, SE 0.0191, halves 0.155
    and 0.102) and x1 (0.125, SE 0.0162, halves 0.127 and 0.127) were headed "Features with strong interactions" and
    the next sentence said both lie within 1.645 bootstrap SEs of 0.1. None clears the margin, so none is strong."""
    from imlkit.report import _claims as cl
    from imlkit.report._reading import _interactions_claim

    h = {"x2": 0.131, "x1": 0.125, "x3": 0.02}
    halves = {"x2": (0.155, 0.102), "x1": (0.127, 0.127), "x3": (0.01, 0.03)}
    se = {"x2": 0.0191, "x1": 0.0162, "x3": 0.005}
    ctx = SimpleNamespace(effects=SimpleNamespace(h_rows=120, h_se=se), task="classification")
    claim = _interactions_claim(ctx, h, halves)
    assert claim is not None and claim.check() == []
    assert claim.features == ()
    said = claim.text()
    assert "Features with strong interactions" not in said
    assert said.startswith("No feature is shown to interact strongly: x2 (H² = 0.131, SE 0.0191: 0.131 − 1.645 × "
                           f"0.0191 = {cl.num(0.131 - 1.645 * 0.0191)}; halves 0.155 and 0.102) and x1")
    assert "are above 0.1 in both halves but within 1.645 bootstrap standard errors of it" in said
    # x2's own numbers: 0.131 − 1.645 × 0.0191 <= 0.1 < both halves
    assert 0.131 - 1.645 * 0.0191 <= 0.1 < min(halves["x2"])


def test_the_strong_heading_keeps_the_features_that_clear_the_se_margin_and_names_the_others_apart():
    from imlkit.report._reading import _interactions_claim

    h = {"a": 0.4, "b": 0.13}
    halves = {"a": (0.35, 0.45), "b": (0.12, 0.14)}
    se = {"a": 0.05, "b": 0.03}
    ctx = SimpleNamespace(effects=SimpleNamespace(h_rows=200, h_se=se), task="regression")
    claim = _interactions_claim(ctx, h, halves)
    assert claim.check() == []
    assert claim.features == ("a",)
    said = claim.text()
    head, rest = said.split(". Their PD curves", 1)
    assert "a (H² = 0.4; halves 0.35 and 0.45)" in head and "b (" not in head
    assert "more than 1.645 bootstrap standard errors above 0.1 on all rows" in head
    assert "Above 0.1 in both halves but within 1.645 bootstrap standard errors of it, so not shown to interact " \
           "strongly: b (H² = 0.13, SE 0.03" in rest


def test_the_check_refuses_a_strong_heading_for_a_feature_within_its_se():
    from imlkit.report import _claims as cl

    n = dict(threshold=cl.H_INTERACTION, h2=(0.131,), halves=((0.155, 0.102),), n_rows=120,
             se_close=(("x2", 0.131, 0.0191),), close_halves=((0.155, 0.102),), se_z=1.645)
    assert cl.Claim("interactions", ("x2",), numbers=n).check() != []
    assert cl.Claim("interactions", (), numbers=dict(n, h2=(), halves=())).check() == []


def _dependent_table(n=200, seed=0):
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    a = rng.normal(size=n)
    return pd.DataFrame({"years": a + 0.2 * rng.normal(size=n), "catbat": a, "walks": rng.normal(size=n)})


def test_the_removal_story_is_not_told_when_a_high_and_a_low_method_remove_the_feature_the_same_way():
    """Hitters (a random forest): Years important for PFI and CFI, negligible for SAGE (marginal), R² 0.893 -- the
    reading said "how a method removes it decides how much credit it gets", yet PFI and marginal SAGE remove it the
    same way (drawn without regard to the others), and CFI (which samples it given the others) agrees with PFI."""
    from imlkit.report._reading import _reasons

    X = _dependent_table()
    r2 = {"years": 0.96}
    said = " ".join(c.text() for c in _reasons("years", ["pfi", "cfi"], ["sage_marginal"], r2, None, X))
    assert "decides how much credit it gets" not in said
    assert ("but PFI, which finds it important, and SAGE (marginal), which does not, both remove it by drawing it "
            "without regard to the others, so how a method removes years itself does not explain this "
            "difference") in said
    assert "SAGE (marginal) averages what it adds over coalitions of the others" in said
    # refitting (LOCO) against permuting (PFI): they do remove it differently, and the story is told
    said = " ".join(c.text() for c in _reasons("years", ["pfi"], ["loco"], r2, None, X))
    assert "does not explain" not in said
    assert "little unique contribution" in said or "decides how much credit" in said


def _ev(method, feature, est, lo, hi, largest, rank=1):
    from imlkit.report import _claims as cl

    return cl.Evidence(method=method, feature=feature, estimate=est, low=lo, high=hi, largest=largest, rank=rank)


def test_a_method_that_puts_no_feature_above_0_has_no_first_feature():
    """Credit card expenditure (AVGEXP, 4 features): "The first feature differs between methods: INCOME for PFI and
    SAGE (marginal); INCOMESQ for CFI ... (CFI simultaneous over 4: INCOMESQ 0 [0, 0], OWNRENT 0 [0, 0])" -- CFI's
    largest value was 0 (INCOME -1,264): it puts no feature above 0, so it ranks no feature first."""
    from imlkit.report import _claims as cl

    firsts = (_ev("pfi", "INCOME", 4.37e4, 2.0e4, 6.0e4, 4.37e4), _ev("sage_marginal", "INCOME", 2.91e4, 2.86e4,
                                                                       2.95e4, 2.91e4),
              _ev("cfi", "INCOMESQ", 0.0, 0.0, 0.0, 1264.0))
    seconds = (None, None, _ev("cfi", "OWNRENT", 0.0, 0.0, 0.0, 1264.0, rank=2))
    claim = cl.Claim("top", ("INCOME", "INCOMESQ"), methods=("pfi", "sage_marginal", "cfi"), evidence=firsts,
                     numbers=dict(second=seconds))
    assert claim.check() == []
    said = claim.text()
    assert "differs" not in said and "INCOMESQ for CFI" not in said and "OWNRENT" not in said
    assert said == ("PFI and SAGE (marginal) rank INCOME first, and each method's interval (or adjusted p-value) puts "
                    "it above 0. CFI puts no feature above 0 (its largest value: INCOMESQ 0 [0, 0]).")
    # one method alone, with a negative largest value whose interval includes 0
    one = cl.Claim("top", ("a",), methods=("cfi",), evidence=(_ev("cfi", "a", -0.5, -2.0, 1.0, 3.0),),
                   numbers=dict(second=(None,)))
    assert one.text() == "CFI puts no feature above 0 (its largest value: a -0.5 [-2, 1])."
