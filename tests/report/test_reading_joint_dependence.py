"""The reading's dependence sentence names the single column most associated with a feature as "most with" only when
that column explains at least half of the feature's R² from the others; otherwise it says the dependence is joint
(review rev8, score8's proposal: statsmodels scotland's COUTAX, R² 0.99 from the others, 0.44 from its partner)."""
from imlkit.report import _claims as cl


def _claim(r2, r):
    return cl.Claim("dependence", ("a",), numbers=dict(high=("pfi",), low=("cfi",), r2=r2, threshold=cl.R2_STRONG,
                                                         partner="b", partner_r=r, partner_r2=r * r,
                                                         joint=r * r < r2 / 2))


def test_a_partner_that_carries_most_is_most_with():
    c = _claim(0.9, 0.9)
    text = cl.render(c)
    assert "(R² = 0.9 >= 0.5, most with b (|r| = 0.9))" in text and "joint" not in text
    assert cl._c_dependence(c) == []


def test_a_partner_that_carries_less_than_half_says_joint():
    c = _claim(0.99, 0.664)
    text = cl.render(c)
    assert ("the single column most associated with it, b (|r| = 0.664), explains 0.441 of its variance alone, less "
            "than half of that R²: the dependence is joint") in text
    assert "most with b" not in text
    assert cl._c_dependence(c) == []
    wrong = _claim(0.99, 0.664)
    wrong.numbers["joint"] = False
    assert cl._c_dependence(wrong)
