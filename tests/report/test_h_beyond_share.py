"""An overall H² well above 1 (above 1.1 on all rows or in a half) is no share of the prediction's variance and no
strong interaction (review rev8 r3-9: 1,000 classes, "Features with strong interactions: x16 (H² = 8.97; halves
8.98 and 0.193)")."""
import numpy as np

from imlkit.report import _claims as cl
from imlkit.report._ranking import h_beyond_share
from imlkit.report._reading import h_verdict
from imlkit.report._sec_effects import halves_words


def test_the_verdict_of_an_h2_above_one_is_beyond_not_strong():
    assert h_verdict("x16", {"x16": 8.97}, {"x16": (8.98, 0.193)}) == ("beyond", 8.97, (8.98, 0.193))
    assert h_verdict("a", {"a": 0.5}, {"a": (1.4, 0.3)})[0] == "beyond"        # one half well above 1
    assert h_verdict("a", {"a": 1.2}, None)[0] == "beyond"                     # no halves
    assert h_verdict("a", {"a": 0.5}, {"a": (0.4, 0.6)})[0] == "strong"        # a share: unchanged
    # a pure interaction (y = a·b): a share near 1, one half a little above it by sampling noise -- still strong
    assert h_verdict("a", {"a": 0.999}, {"a": (0.925, 1.03)})[0] == "strong"
    assert h_beyond_share(np.nan, (np.nan, 2.0)) and not h_beyond_share(0.3, None)


def test_section_4_lists_it_apart_with_its_numbers():
    s = halves_words({"x16": 8.97, "x2": 0.4}, {"x16": (8.98, 0.193), "x2": (0.35, 0.45)}, 300, 150, 150)
    assert "Above 0.1 in both halves: x2" in s
    assert "x16" not in s.split("Above 0.1 in both halves:")[1].split(".")[0]
    assert ("Above 1.1 on all rows or in a half, so no share of the prediction's variance" in s
            and "x16 (H² 8.97; halves 8.98 and 0.193)" in s)


def test_the_reading_claim_renders_and_checks_it():
    c = cl.Claim("interactions", ("x2",), numbers=dict(
        h2=(0.4,), halves=((0.35, 0.45),), threshold=cl.H_INTERACTION, beyond=("x16",), beyond_h2=(8.97,),
        beyond_halves=((8.98, 0.193),), n_rows=300))
    text = cl.render(c)
    assert "Features with strong interactions" in text and "x2 (H² = 0.4" in text
    assert "Above 1.1 on all rows or in a half, so no share" in text
    assert "x16 (H² = 8.97; halves 8.98 and 0.193)" in text
    assert cl._c_interactions(c) == []
    wrong = cl.Claim("interactions", ("x16",), numbers=dict(h2=(8.97,), halves=((8.98, 0.193),),
                                                            threshold=cl.H_INTERACTION))
    assert any("above 1.1" in b for b in cl._c_interactions(wrong))
