""""The k most frequent classes" says when the cutoff falls inside a tie (review rev8 r3-7: 1,000 classes, "the 5 most
frequent (1, 10, 102, 103, 105)" were 5 of 501 classes tied at 4 training rows)."""
from types import SimpleNamespace

import numpy as np

from imlkit.report._shared import tied_at_cutoff_words


def _ctx(counts):
    classes = np.arange(len(counts))
    y = np.repeat(classes, counts)
    return SimpleNamespace(model=SimpleNamespace(classes_=classes), y_train=y)


def test_no_words_when_the_cutoff_separates_counts():
    ctx = _ctx([9, 8, 7, 6, 5, 4, 3])
    assert tied_at_cutoff_words(ctx, [0, 1, 2, 3, 4]) == ""


def test_a_cutoff_inside_a_tie_says_how_many_are_tied_and_which_were_chosen_by_order():
    ctx = _ctx([9, 8, 4, 4, 4, 4, 4, 4, 2])      # classes 2..7 tied at 4 rows; the 5 shown end with 2, 3, 4
    said = tied_at_cutoff_words(ctx, [0, 1, 2, 3, 4])
    assert said == " (the last 3 of them chosen by the model's order among 6 classes tied at 4 training rows each)"
    ctx = _ctx([4] * 10)                          # every class tied
    assert "all of them chosen by the model's order among 10 classes tied at 4 training rows" in \
        tied_at_cutoff_words(ctx, [0, 1, 2, 3, 4])
    ctx = _ctx([9, 8, 7, 6, 1, 1])                # one shown in the tie
    assert "the last of them chosen by the model's order among 2 classes tied at 1 training row each" in \
        tied_at_cutoff_words(ctx, [0, 1, 2, 3, 4])
