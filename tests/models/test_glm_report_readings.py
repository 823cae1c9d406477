"""The report's GLM and GAM blocks (section 6) on small tables: the one-vs-rest event is named by the class,
weights not read are named once with their cause, and a GAM with an aliased column fits and says which."""
import re
import warnings

import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression

from imlkit.report import ReportConfig
from imlkit.report import _sec_alternatives as alt
from imlkit.report._build import prepare_context


def _ctx(df):
    X, y = df.drop(columns="y"), df.y
    model = LogisticRegression(max_iter=500).fit(X, y)
    return prepare_context(ReportConfig(data=df, target="y", model=model, quick=True, methods=("models",)))


def _readings(blocks):
    lists = [b for b in blocks if b["kind"] == "list" and (b.get("title") or "").startswith("Reading the weights")]
    assert len(lists) == 1
    return lists[0]["items"]


def test_one_vs_rest_glm_reads_the_odds_of_the_class_not_of_target_is_class():
    rng = np.random.default_rng(0)
    n = 240
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n), "c": rng.normal(size=n)})
    score = X.a + 0.5 * X.b + rng.normal(size=n)
    df = X.assign(y=(np.digitize(score, np.quantile(score, [1 / 3, 2 / 3])) + 1).astype(float))  # 1.0, 2.0, 3.0
    ctx = _ctx(df)
    tg = alt._Target(ctx)
    assert tg.one_vs_rest
    items = _readings(alt._glm_blocks(ctx, tg, {}))
    effects = [t for t in items if t.startswith("Increasing")]
    assert len(effects) == 3
    assert tg.cls.endswith(".0")  # the labels are floats: the sentences write them as the integers they are
    assert all(f"the odds of y = {tg.cls[:-2]} by " in t for t in effects)
    assert not any(" is " in t or ".0 " in t for t in effects)
    assert items[-1].startswith("Intervals in brackets")


def test_collinear_table_names_unread_weights_once_and_the_gam_leaves_the_aliased_column_out():
    rng = np.random.default_rng(1)
    n = 400
    X = pd.DataFrame({"PriceMM": rng.uniform(1.7, 2.3, n), "PriceCH": rng.uniform(1.6, 2.1, n),
                      "Loyal": rng.uniform(size=n)})
    X["PriceDiff"] = X["PriceMM"] - X["PriceCH"]
    y = np.where(rng.uniform(size=n) < 1 / (1 + np.exp(-(4 * X.Loyal - 2 + X.PriceDiff))), "CH", "MM")
    ctx = _ctx(X.assign(y=y))
    tg = alt._Target(ctx)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the rank warnings, read below from the blocks
        glm_blocks = alt._glm_blocks(ctx, tg, {})
        gam_blocks = alt._gam_blocks(ctx, tg, {})
    items = _readings(glm_blocks)
    unread = [t for t in items if t.startswith("Not estimable")]
    assert len(unread) == 1 and items[-1] == unread[0]
    assert "PriceMM (collinear with " in unread[0] and "separation" not in unread[0]
    assert not any(t.startswith(("Increasing PriceMM", "Increasing PriceCH", "Increasing PriceDiff")) for t in items)
    assert any(t.startswith("Increasing Loyal by one unit multiplies the odds of y = MM by") for t in items)
    texts = [b.get("text", "") for b in gam_blocks]
    assert not any(b["kind"] == "warning" for b in gam_blocks)
    left = [t for t in texts if t.startswith("Left out of the GAM")]
    assert len(left) == 1
    partners = re.search(r"PriceDiff \(collinear with ([^)]*)\)", left[0]).group(1)
    assert set(partners.split(", ")) == {"PriceMM", "PriceCH"}
