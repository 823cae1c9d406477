"""Review r1 (rev8), finding 5: section 6 read a per-unit GLM slope for a column section 1 lists as a possible
integer code (OJ's StoreID, values 1, 2, 3, 4, 7) with no caveat beside the number; the note came two sentences
later, after the closing line. The caveat is now in the sentence that reads the number (section 1's one rule,
:func:`imlkit._columns.integer_codes`). Synthetic data."""
import numpy as np
import pandas as pd
from sklearn.linear_model import LinearRegression

from imlkit.report import ReportConfig
from imlkit.report import _sec_alternatives as alt
from imlkit.report._build import prepare_context

N = 300


def _frame():
    rng = np.random.default_rng(3)
    store = rng.choice([1, 2, 3, 4, 7], size=N)  # names stores: the effect is not monotone in the number
    x = rng.normal(size=N)
    y = pd.Series(store).map({1: 0.0, 2: 2.0, 3: -1.0, 4: 1.5, 7: -2.0}).to_numpy() + 2 * x \
        + rng.normal(scale=0.5, size=N)
    return pd.DataFrame({"store": store, "x": x, "y": y})


def _bullets(sec):
    return [it for b in sec["blocks"] if b["kind"] == "list" for it in b.get("items", [])]


def _reading(ctx):
    sec = alt.section_alternatives(ctx)
    return [s for s in _bullets(sec) if "store" in s]


def test_the_per_unit_sentence_of_a_code_carries_the_caveat():
    ctx = prepare_context(ReportConfig(data=_frame(), target="y", quick=True, methods=("models",)))
    said = _reading(ctx)
    unit = [s for s in said if s.startswith("Increasing store by one unit")]
    assert len(unit) == 1, said
    assert "; but store may be a code (values 1, 2, 3, 4, 7; section 1): its per-unit weight has no meaning if the " \
           "numbers name groups; pass --categorical store to give each value a weight of its own." in unit[0]
    # said once, beside the number, not again as a separate line
    assert sum("may be a code" in s for s in said) == 1


def test_a_fitted_model_gets_no_categorical_advice_and_a_categorical_column_no_caveat():
    df = _frame()
    model = LinearRegression().fit(df[["store", "x"]], df.y)
    ctx = prepare_context(ReportConfig(data=df, target="y", model=model, quick=True, methods=("models",)))
    unit = [s for s in _reading(ctx) if s.startswith("Increasing store by one unit")]
    assert len(unit) == 1 and "may be a code (values 1, 2, 3, 4, 7; section 1)" in unit[0]
    assert "pass --categorical" not in unit[0] and "--categorical cannot change it here" in unit[0]
    cat = prepare_context(ReportConfig(data=df, target="y", quick=True, methods=("models",), categorical="store"))
    assert not any("may be a code" in s for s in _reading(cat))


def test_code_caveats_keeps_other_sentences_and_falls_back_to_the_note():
    ctx = prepare_context(ReportConfig(data=_frame(), target="y", quick=True, methods=("pfi",)))
    got = alt.code_caveats(ctx, ["Increasing x by one unit changes y by 2 [1.9, 2.1].", "Intervals in brackets."],
                           ["x", "store"])
    assert got[:2] == ["Increasing x by one unit changes y by 2 [1.9, 2.1].", "Intervals in brackets."]
    assert got[2].startswith("store may be a code (values 1, 2, 3, 4, 7; section 1)")
