"""Round 7 (lvl7), finding 4: a level with no training row was scored as another level without a word, and the
lumped level "other" could share its name with a level of the data (BrainCancer: "Other" beside "other")."""
import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_array_equal

from imlkit._columns import KnownLevels, lump_name, lumped_level, prepare_columns


def _train_test():
    cats = ["a", "b", "c", "zeta"]
    train = pd.DataFrame({"g": pd.Categorical(["a"] * 5 + ["b"] * 3 + ["c"] * 2, categories=cats),
                          "x": np.arange(10.0)})
    test = pd.DataFrame({"g": pd.Categorical(["zeta", "b", "zeta", "a", "c", "zeta"], categories=cats),
                         "x": np.arange(6.0)})
    return train, test


def test_remapped_counts_the_rows_and_says_to_what():
    train, test = _train_test()
    guard = KnownLevels().fit(train)
    got = guard.remapped(test)
    assert got.to_dict("records") == [{"column": "g", "level": "zeta", "rows": 3, "scored_as": "a",
                                       "why": "the most frequent training level"}]
    assert_array_equal(guard.remapped_rows(test), [True, False, True, False, False, True])
    out = guard.transform(test)
    assert_array_equal(out["g"].astype(str), ["a", "b", "a", "a", "c", "a"])  # what the counts describe
    assert guard.remapped(train).empty and not guard.remapped_rows(train).any()


def test_the_lumped_level_is_the_fallback_when_it_has_training_rows():
    prep = prepare_columns(pd.DataFrame({"g": ["a"] * 20 + ["b"] * 10 + ["r1", "r2", "r3"] + ["new"] * 6}))
    X = prep.X
    assert list(X["g"].cat.categories) == ["a", "b", "new", "(rare levels)"]
    train, test = X.iloc[:33], X.iloc[33:]  # "new" has no training row; "(rare levels)" has three
    guard = KnownLevels().fit(train)
    got = guard.remapped(test)
    assert got[["level", "rows", "scored_as", "why"]].to_numpy().tolist() == [["new", 6, "(rare levels)",
                                                                             "the lumped level"]]


@pytest.mark.parametrize("data_levels", [["other"], ["Other"], ["(rare levels)"], ["(rare levels)", "(rare levels)_"],
                                         ["(other levels)___", "(rare levels)"]])
def test_the_lumped_level_never_shares_a_name_with_a_level_of_the_data(data_levels):
    values = ["a"] * 20 + ["b"] * 20 + ["rare1", "rare2"] + [None]
    for lv in data_levels:
        values += [lv] * 6
    prep = prepare_columns(pd.DataFrame({"g": values}))
    cats = [str(c) for c in prep.X["g"].cat.categories]
    lump = cats[-1]
    assert lump.startswith("(rare levels)") and lump not in data_levels
    assert set(data_levels) <= set(cats)  # each data level stays a level of its own, none merged into the lump
    assert lumped_level(cats) == lump  # what KnownLevels and transform take for the lump
    assert int((prep.X["g"] == lump).sum()) == 3  # the two rare levels and the missing value
    action = prep.decisions.set_index("column").loc["g", "action"]
    assert f"lumped into {lump!r}" in action and "'rare1' (1)" in action and "'(missing)' (1)" in action
    assert lump_name(cats) not in cats


def test_a_missing_value_lumped_beside_a_data_level_other_is_told_apart():
    """BrainCancer's diagnosis: 'Other' (14 rows) and one missing value (rare, lumped): the lump was named 'other'."""
    values = ["Meningioma"] * 42 + ["HG glioma"] * 22 + ["Other"] * 14 + ["LG glioma"] * 9 + [None]
    prep = prepare_columns(pd.DataFrame({"diagnosis": values}))
    cats = list(prep.X["diagnosis"].cat.categories)
    assert "Other" in cats and "other" not in cats and cats[-1] == "(rare levels)"
    assert ("1 level(s) with fewer than 5 rows (1 row: '(missing)' (1)) lumped into '(rare levels)'"
            in prep.decisions.set_index("column").loc["diagnosis", "action"])
