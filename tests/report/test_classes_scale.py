"""Many classes at scale (issue 22 item 4): the quality gate's scores, the report's model, every method present."""
import numpy as np
from numpy.testing import assert_allclose

from imlkit.report import _scores
from imlkit.report._scores import bootstrap_weights, scores


def _probabilities(k=40, n=400, seed=0):
    rng = np.random.default_rng(seed)
    labels = [f"c{j:02d}" for j in range(k)]
    w = 1.0 / np.arange(1, k + 1)
    y = np.array(labels)[rng.choice(k, size=n, p=w / w.sum())]
    proba = np.round(rng.dirichlet(np.ones(k), size=n), 2)  # rounded: ties inside a class's scores
    proba[:, 3] = 1.0 / k  # a constant column (a baseline's class): AUC 0.5 without sorting
    return labels, y, proba


def test_many_class_scores_match_scikit_learn():
    from sklearn import metrics

    labels, y, proba = _probabilities()
    pred = np.array(labels)[proba.argmax(axis=1)]
    s = scores({"pred": pred, "proba": proba}, y, "classification", np.ones((1, len(y))), labels)
    present = [c for c in labels if (y == c).any()]
    aucs = [metrics.roc_auc_score(y == c, proba[:, labels.index(c)]) for c in present]
    assert_allclose(s["ROC AUC"][0], np.mean(aucs), rtol=1e-12)
    assert_allclose(s["balanced accuracy"][0], metrics.balanced_accuracy_score(y, pred), rtol=1e-12)
    onehot = (y[:, None] == np.array(labels)).astype(float)
    assert_allclose(s["Brier score"][0], ((proba - onehot) ** 2).sum(axis=1).mean(), rtol=1e-12)


def test_matrix_and_per_class_auc_agree_under_bootstrap_weights(monkeypatch):
    labels, y, proba = _probabilities(k=25, n=300, seed=1)
    out = {"pred": np.array(labels)[proba.argmax(axis=1)], "proba": proba}
    W = bootstrap_weights(len(y), seed=2, n_boot=40)
    fast = scores(out, y, "classification", W, labels)["ROC AUC"]
    # one resample equals the AUC on the resampled rows
    from sklearn import metrics

    idx = np.repeat(np.arange(len(y)), W[0].astype(int))
    yb, pb = y[idx], proba[idx]
    ref = np.mean([metrics.roc_auc_score(yb == c, pb[:, labels.index(c)]) for c in labels
                   if (yb == c).any() and (yb != c).any()])
    assert_allclose(fast[0], ref, rtol=1e-12)
    # the per-class loop (chosen for many rows and few classes) gives the same numbers
    real = _scores._weighted_auc
    calls = []
    monkeypatch.setattr(_scores, "_weighted_auc", lambda *a: calls.append(1) or real(*a))
    monkeypatch.setattr(_scores, "AUC_MATRIX_ROWS_PER_CLASS", 0)
    slow = scores(out, y, "classification", W, labels)["ROC AUC"]
    assert calls  # the loop ran
    assert_allclose(fast, slow, rtol=1e-12)


def _table(k=40, n=400, seed=0):
    import pandas as pd

    rng = np.random.default_rng(seed)
    w = 1.0 / np.arange(1, k + 1)
    y = rng.choice(k, size=n, p=w / w.sum())
    centres = rng.normal(scale=1.5, size=(k, 2))
    X = pd.DataFrame(rng.normal(size=(n, 4)), columns=["a", "b", "c", "d"])
    X[["a", "b"]] += centres[y]
    return X.assign(y=[f"c{v:02d}" for v in y])


def test_quick_report_of_forty_classes_has_every_method_and_says_what_it_set_aside(tmp_path):
    import warnings

    from imlkit.report import ReportConfig, build_report
    from imlkit.report._build import prepare_context
    from imlkit.report._fit import MANY_CLASSES, many_class_gbm

    df = _table()
    cfg = dict(data=df, target="y", quick=True, n_null=3, strict=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ctx = prepare_context(ReportConfig(**cfg, max_rows=120, methods=("pimp",)))
        # the report's gbm on more than MANY_CLASSES classes: bounded Newton steps, 15 iterations
        k = len(ctx.model.classes_)
        assert k > MANY_CLASSES and ctx.model.max_iter == many_class_gbm(k)["max_iter"]
        assert ctx.model.l2_regularization == 1.0
        # the refits' budgeted training rows lack classes of the test rows: scored at probability 0, no failure
        _, y_refit = ctx.rows("pimp", "train")
        assert set(ctx.y_test) - set(y_refit)
        # PIMP itself (as `imlkit importance --method pimp` runs it) on those rows
        from imlkit.report._sec_importance import compute_importance

        r = compute_importance(ctx, "pimp")["pimp"]
        assert np.isfinite(r.p_value).all() and r.extra["null"].shape[1] == 3
        path = build_report(ReportConfig(**cfg, out=str(tmp_path), max_rows=120,
                                         methods=("pfi", "cfi", "loco", "lofo", "sage", "pimp")))
    html = open(path, encoding="utf-8").read()
    assert "failed" not in html
    for name in ("PFI", "CFI", "LOCO", "LOFO", "SAGE (marginal)", "SAGE (conditional)"):
        assert f">{name}" in html
    # 3 null refits could reject nothing (floor min(1, 5/4)): the report says so instead of refitting
    assert ">PIMP was not run: with 3 null refits" in html
    rare = df.y.value_counts()
    n_rare = int((rare < 2).sum())
    # the classes with one row are set aside, with their number, in the report's own words
    assert n_rare > 0 and f"of {n_rare} class(es) too rare to appear in both the training and the test rows" in html
    assert f"With {k} classes (more than {MANY_CLASSES})" in html
    # RuleFit (one L1 path per class) says in one line why it is not fitted, without fitting
    from imlkit.report._sec_alternatives import RULEFIT_MAX_CLASSES, _rulefit_blocks

    perf = {}
    blocks = _rulefit_blocks(ctx, perf)
    assert ctx.y_train.nunique() > RULEFIT_MAX_CLASSES and perf == {}
    assert f"a target with {ctx.y_train.nunique()} classes is one cross-validated path per class" in blocks[1]["text"]


def test_the_set_aside_note_names_ten_classes_and_counts_the_rest():
    import pandas as pd

    from imlkit.report._fit import RARE_NAMED, set_aside_rare

    y = pd.Series(["a"] * 50 + ["b"] * 50 + [f"r{i:02d}" for i in range(25)])
    X = pd.DataFrame({"x": np.arange(len(y), dtype=float)})
    Xk, yk, note = set_aside_rare(X, y, "classification", 0.3)
    assert len(Xk) == 100 and set(yk) == {"a", "b"}
    assert note.startswith("25 row(s) of 25 class(es) too rare")
    assert note.count("(1 row)") == RARE_NAMED
    assert f"and {25 - RARE_NAMED} other class(es) of at most 1 row(s) each" in note
