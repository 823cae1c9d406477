"""Sentences outside section 1 and 7 that describe the split or read a code's slope (the lead's part)."""
import numpy as np
import pandas as pd

from imlkit.report import ReportConfig
from imlkit.report._build import prepare_context


def test_section_two_names_the_ordered_split():
    from imlkit.report._shared import evaluation_sentence

    rng = np.random.default_rng(0)
    df = pd.DataFrame({"x": rng.normal(size=101), "year": np.sort(rng.integers(1990, 2011, 101))})
    df["y"] = df["x"] + rng.normal(size=101)
    ctx = prepare_context(ReportConfig(data=df, target="y", split="ordered", methods="pfi"))
    assert evaluation_sentence(ctx).endswith("scored on 31 held-out test rows (an ordered split of the table: its "
                                             "last 31 rows held out, in the table's order).")
    rnd = prepare_context(ReportConfig(data=df, target="y", methods="pfi"))
    assert evaluation_sentence(rnd).endswith("(a seeded random split of the table).")


def test_section_six_glm_says_a_code_slope_assumes_amounts():
    from imlkit.report._sec_alternatives import _code_notes

    rng = np.random.default_rng(0)
    df = pd.DataFrame({"origin": rng.integers(1, 4, 200), "x": rng.normal(size=200)})
    df["y"] = df["origin"].map({1: 0.0, 2: 3.0, 3: 1.0}) + df["x"]
    ctx = prepare_context(ReportConfig(data=df, target="y", methods="pfi"))
    assert _code_notes(ctx, ["origin", "x"]) == [
        "origin may be a code (values 1, 2, 3; section 1): its weight is a slope per unit, which assumes its numbers "
        "are amounts; --categorical origin gives each value a weight of its own."]
    cat = prepare_context(ReportConfig(data=df, target="y", methods="pfi", categorical="origin"))
    assert _code_notes(cat, ["origin", "x"]) == []
