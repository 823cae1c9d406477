"""The reading says "describe noise" only when every deciding measure was judged, as section 2 does (review rev8 r3-8:
1,000 classes, the Brier score worse, ROC AUC 0.61 [0.60, 0.62] and balanced accuracy not judged)."""
from test_truth_round8_r3a_model import _many_classes, _section2

from imlkit.report import _claims as cl
from imlkit.report._reading import _no_better_numbers


def _claim(ctx):
    ctx.X_test = None
    n = _no_better_numbers(ctx)
    return n, cl.Claim("no_better", (), numbers=n)


def test_the_reading_withholds_noise_when_a_deciding_measure_was_not_judged():
    y, labels, outputs = _many_classes()
    _, ctx, _ = _section2(y, labels, outputs)
    n, c = _claim(ctx)
    assert set(n["unjudged"]) == {"ROC AUC", "balanced accuracy"} and not n["noise"]
    text = cl.render(c)
    assert "describe noise" not in text
    assert ("ROC AUC and balanced accuracy were not judged (too few test rows) and may show what Brier score does "
            "not, so this is no sign that the model learned nothing") in text
    assert cl._c_no_better(c) == []
    wrong = cl.Claim("no_better", (), numbers=dict(n, noise=True))
    assert "'describe noise' while a deciding measure was not judged" in cl._c_no_better(wrong)


def test_the_reading_keeps_noise_when_every_measure_was_judged():
    y, labels, outputs = _many_classes(k=10, per=60, hit=0.0, seed=1)
    _, ctx, _ = _section2(y, labels, outputs)
    n, c = _claim(ctx)
    assert n["unjudged"] == [] and n["noise"]
    assert "describe noise" in cl.render(c)
