"""The three-questions table, cell by cell, against the course's "implications" slides."""
import pytest

import imlkit as ik
from imlkit.importance import INTERPRETATION_TABLE, QUESTIONS

LEARNER = "approximately (through the refitted learner)"

# Course: PFI ➊ "PFI ≠ 0 ⇒ model relies on x_j"; ➋ "PFI ≠ 0 ⇒ x_j dependent on y, x_-j or both
# (extrapolation)"; ➌ "not possible". CFI ➊ "CFI ≠ 0 ⇒ model relies on x_j"; ➋ "x_j ⊥ y | x_-j ⇒
# CFI = 0"; ➌ "CFI ≠ 0 ⇒ x_j contributes unique information". Marginal SAGE ➊ "φ_j only non-zero
# if x_j is causal for the prediction"; ➋ non-zero through extrapolation; ➌ "no insight".
# Conditional SAGE ➊ "non-zero φ_j does not imply x_j → ŷ"; ➋ "prediction-relevance implies
# non-zero φ_j" but "φ_j may be non-zero although x_j ⊥ y"; ➌ "non-zero for features with
# unique contribution" but "may be non-zero although the feature has no unique contribution".
# LOCO ➊ "in general, no"; ➋ "in general, no"; ➌ "approximately, whether the learner requires
# access to x_j". LOFO is LOCO's refit scheme with the same reading.
EXPECTED = {
    "pfi": ("yes", "no", "no"),
    "cfi": ("yes", "no", "yes"),
    "sage_marginal": ("yes", "no", "no"),
    "sage_conditional": ("no", "partly", "partly"),
    "loco": ("no", "no", LEARNER),
    "lofo": ("no", "no", LEARNER),
    "pimp": ("as base", "as base", "as base"),
}


@pytest.mark.parametrize("method", sorted(EXPECTED))
def test_table_cells_follow_the_course(method):
    assert tuple(INTERPRETATION_TABLE[method][q] for q in (1, 2, 3)) == EXPECTED[method]


def test_explain_repeats_the_table():
    text = ik.importance._questions.explain_method("sage_conditional")
    assert f"{QUESTIONS[1]} -> partly." in text and "x_j ⊥ y" in text
    loco = ik.importance._questions.explain_method("loco")
    assert f"{QUESTIONS[2]} -> {LEARNER}." in loco and "learner" in loco


def test_report_question_table_uses_the_same_cells():
    from imlkit.report._sec_importance import _question_table

    html = str(_question_table(["sage_conditional", "loco"]))
    assert "partly" in html and LEARNER in html
