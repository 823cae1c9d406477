"""Many classes: a class absent from a refit's training rows is scored at probability 0, never a failure."""
import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from sklearn.ensemble import RandomForestClassifier
from sklearn.tree import DecisionTreeClassifier

from imlkit.importance import loco
from imlkit.importance._common import UnseenClasses, with_test_classes
from imlkit.report import ReportConfig, build_report
from imlkit.report._build import prepare_context
from imlkit.report._sec_effects import (
    MAX_CLASS_PANELS,
    OTHER_CLASSES,
    TopClassesAndOther,
    effect_classes,
    section_effects,
)
from imlkit.report._sec_importance import compute_importance


def _many_classes(k=60, n=400, seed=0):
    rng = np.random.default_rng(seed)
    w = 1.0 / np.arange(1, k + 1) ** 1.1  # a few frequent classes and a long tail of rare ones
    y = rng.choice(k, size=n, p=w / w.sum())
    X = pd.DataFrame(rng.normal(size=(n, 4)), columns=[f"x{j}" for j in range(4)])
    X["x0"] += y % 7
    return X.assign(y=pd.Series([f"c{v:03d}" for v in y]))


def test_unseen_classes_view_pads_zero_probabilities():
    X = pd.DataFrame({"a": [0.0, 1.0, 2.0, 3.0]})
    model = DecisionTreeClassifier(random_state=0).fit(X, ["p", "q", "p", "q"])
    assert with_test_classes(model, np.array(["p", "q"], dtype=object)) is model
    view = with_test_classes(model, np.array(["q", "r", "p", "s"], dtype=object))
    assert isinstance(view, UnseenClasses)
    assert view.classes_.tolist() == ["p", "q", "r", "s"]
    proba = view.predict_proba(X)
    assert_allclose(proba[:, :2], model.predict_proba(X))
    assert_allclose(proba[:, 2:], 0.0)
    assert view.predict(X).tolist() == model.predict(X).tolist()


def test_loco_scores_a_test_class_the_training_rows_lack():
    rng = np.random.default_rng(1)
    X = pd.DataFrame(rng.normal(size=(120, 3)), columns=["a", "b", "c"])
    y = np.where(X.a > 0, "hi", "lo").astype(object)
    X_tr, y_tr, X_te, y_te = X.iloc[:80], y[:80], X.iloc[80:].reset_index(drop=True), y[80:].copy()
    y_te[:5] = "never"  # a class no training row has
    model = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X_tr, y_tr)
    res = loco(DecisionTreeClassifier(max_depth=3, random_state=0), X_tr, y_tr, X_te, y_te, loss="log_loss",
               aggregate="mean",
               test=None, random_state=0)
    # the five rows of the unseen class cost -log(eps) for every refit, so they cancel in the differences
    keep = y_te != "never"
    ref = loco(DecisionTreeClassifier(max_depth=3, random_state=0), X_tr, y_tr, X_te[keep].reset_index(drop=True),
               y_te[keep], loss="log_loss", aggregate="mean", test=None, random_state=0)
    assert model.classes_.tolist() == ["hi", "lo"]
    assert_allclose(res.importance * len(y_te), ref.importance * keep.sum(), rtol=1e-9, atol=1e-9)


@pytest.mark.filterwarnings("ignore")
def test_sixty_classes_with_classes_absent_from_refit_rows_give_every_method(tmp_path):
    df = _many_classes()
    # the smallest budgets: the refits' training rows leave out many of the rare classes
    cfg = dict(data=df, target="y", quick=True, model=RandomForestClassifier(n_estimators=10, random_state=0),
               n_null=3, max_rows=100, strict=True)
    ctx = prepare_context(ReportConfig(**cfg, methods=("pimp",)))
    _, y_refit = ctx.rows("pimp", "train")
    absent = set(ctx.y_test) - set(y_refit)
    assert len(absent) >= 5
    # PIMP itself (as `imlkit importance --method pimp` runs it) on refit rows lacking classes
    r = compute_importance(ctx, "pimp")["pimp"]
    assert np.isfinite(r.p_value).all() and r.extra["null"].shape[1] == 3
    path = build_report(ReportConfig(**cfg, out=str(tmp_path), methods=("pfi", "cfi", "loco", "lofo", "sage", "pimp")))
    html = open(path, encoding="utf-8").read()
    assert "failed" not in html
    for name in ("PFI", "CFI", "LOCO", "LOFO", "SAGE"):
        assert f">{name}" in html
    # the report does not pay for 3 null refits that could reject nothing (floor min(1, 3/4)): it says so
    assert ">PIMP was not run: with 3 null refits" in html


def test_top_classes_and_other_sum_to_one():
    df = _many_classes(k=12, n=300)
    X, y = df.drop(columns="y"), df.y
    model = RandomForestClassifier(n_estimators=10, random_state=0).fit(X, y)
    top = list(y.value_counts().index[:5])
    view = TopClassesAndOther(model, top)
    full, p = model.predict_proba(X), view.predict_proba(X)
    cols = [list(model.classes_).index(c) for c in top]
    assert view.classes_.tolist() == top + [OTHER_CLASSES]
    assert_allclose(p[:, :5], full[:, cols])
    assert_allclose(p[:, 5], np.delete(full, cols, axis=1).sum(axis=1), atol=1e-12)


@pytest.mark.filterwarnings("ignore")
def test_effects_of_many_classes_show_the_frequent_ones_and_the_others():
    df = _many_classes(k=12, n=300)
    ctx = prepare_context(ReportConfig(data=df, target="y", quick=True, methods=("effects",),
                                       model=RandomForestClassifier(n_estimators=10, random_state=0), strict=True))
    outputs = effect_classes(ctx)
    counts = ctx.y_train.value_counts()
    # most training rows first, ties in the model's class order (claims6: value_counts' order among equal counts is
    # arbitrary, and this test pinned it)
    classes = list(ctx.model.classes_)
    expected = sorted(classes, key=lambda c: (-counts.get(c, 0), classes.index(c)))
    assert outputs[:-1] == expected[:MAX_CLASS_PANELS - 1] and outputs[-1] == OTHER_CLASSES
    sec = section_effects(ctx)
    words = " ".join(str(b.get("text", "")) + str(b.get("caption", "")) for b in sec["blocks"])
    assert f"each of the {MAX_CLASS_PANELS - 1} most frequent of the 12 classes" in words
    assert f"any of the other {12 - MAX_CLASS_PANELS + 1} classes" in words
    assert "most frequent classes and all other classes" in words


def test_no_beeswarm_of_a_many_class_model_without_tree_shap_the_three_rows_stay():
    from sklearn.linear_model import LogisticRegression

    from imlkit.report._sec_local import section_local

    df = _many_classes(k=12, n=300)
    ctx = prepare_context(ReportConfig(data=df, target="y", quick=True, methods=("shap",),
                                       model=LogisticRegression(max_iter=300), strict=True))
    sec = section_local(ctx)
    words = " ".join(b.get("text", "") for b in sec["blocks"] if b["kind"] == "text")
    assert "No beeswarm" in words and "all 12 classes' probabilities" in words and "up to 10 classes" in words
    assert "SHAP beeswarm" not in [e.step for e in ctx.log]
    assert any(b["kind"] == "table" and "The three explained" in (b.get("caption") or "") for b in sec["blocks"])
