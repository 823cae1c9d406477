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
