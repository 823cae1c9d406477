"""Round 7 (lvl7), finding 4: BrainCancer's one test row with a missing diagnosis (lumped, with no training row) was
scored as 'Meningioma' by every interpretable model without a word, and OneR's table counted it under
``diagnosis == 'Meningioma'`` (15 = 14 + 1) while the rule of its own level showed 0 test rows."""
import numpy as np
import pandas as pd
import pytest


def _tables(n_train=200, seed=0):
    """Training rows with levels a, b, c of g; test rows that also hold 'zeta' (6 rows, a level of its own) and two
    rare levels (lumped): both have no training row. The class follows g, so OneR picks g."""
    rng = np.random.default_rng(seed)
    g_tr = rng.choice(["a", "b", "c"], size=n_train, p=[0.5, 0.3, 0.2])
    g_te = np.array(list(rng.choice(["a", "b", "c"], size=52, p=[0.5, 0.3, 0.2])) + ["zeta"] * 6 + ["r1", "r2"])

    def frame(g):
        x = rng.normal(size=len(g))
        y = np.where(np.isin(g, ["a", "zeta"]), rng.random(len(g)) < 0.9, rng.random(len(g)) < 0.1).astype(int)
        return pd.DataFrame({"g": g, "x": x, "y": y})

    return frame(g_tr), frame(g_te)


@pytest.fixture(scope="module")
def oner_table():
    from imlkit.report import ReportConfig
    from imlkit.report._build import prepare_context
    from imlkit.report._sec_alternatives import section_alternatives

    train, test = _tables()
    ctx = prepare_context(ReportConfig(data=train, test_data=test, target="y", model="glm", quick=True,
                                       methods=("models",), strict=True))
    sec = section_alternatives(ctx)
    tables = [b for b in sec["blocks"] if b.get("kind") == "table" and str(b.get("caption", "")).startswith("OneR:")]
    assert len(tables) == 1
    return ctx, tables[0]


def test_rules_count_test_rows_by_their_own_values_and_the_remapped_rows_apart(oner_table):
    ctx, tab = oner_table
    g = ctx.X_test["g"].astype(str).to_numpy()
    unseen = ~np.isin(g, ["a", "b", "c"])
    assert unseen.sum() == 8 and set(g[unseen]) == {"zeta", "(rare levels)"}
    col = tab["columns"].index("test rows it decides")
    rows = {r[0]: r for r in tab["rows"]}
    for level in ("a", "b", "c"):
        line = next(k for k in rows if f"g == '{level}'" in k)
        # the rows that have the level: before, 'a' (the most frequent training level) also got the 8 unseen rows
        assert int(rows[line][col]) == int((g == level).sum())
    last = tab["rows"][-1]
    assert last[0].startswith("(rows with a level no training row has:") and int(last[col]) == 8
    assert "g 'zeta' -> 'a'" in last[0] and "g '(rare levels)' -> 'a'" in last[0]
    assert sum(int(r[col]) for r in tab["rows"]) == len(g)
    # the share of the 8 in the class they are given: OneR gives them a's class
    oner = ctx.alternative_models["OneR"]
    pred = np.asarray(oner.predict(ctx.X_test)).astype(str)[unseen]
    share = float(np.mean(pred == ctx.y_test.astype(str).to_numpy()[unseen]))
    assert float(last[col + 1]) == pytest.approx(share, abs=5e-4)


def test_the_caption_says_how_many_rows_have_a_level_with_no_training_row(oner_table):
    _, tab = oner_table
    cap = tab["caption"]
    assert ("8 test rows have levels of g with no training row ('zeta' (6), '(rare levels)' (2)); OneR scores them "
            "as 'a' (the most frequent training level), as if they had that level.") in cap


def test_one_sentence_for_every_model_behind_the_guard(oner_table):
    """What section 6 (or 1) prints once for all of imlkit's models (the wiring is the lead's: see the report)."""
    from imlkit.report._sec_alternatives import remapped_levels_note

    ctx, _ = oner_table
    assert remapped_levels_note(ctx) == [
        "8 test rows have levels of g with no training row ('zeta' (6), '(rare levels)' (2)); the GLM baseline and "
        "this section's interpretable models score them as 'a' (the most frequent training level), as if they had "
        "that level."]
