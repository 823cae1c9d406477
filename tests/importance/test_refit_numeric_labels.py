"""LOCO and PIMP refit the learner on the target they are given; an object array of numeric class labels (the report
holds a model's classes 0.0..6.0 as Python objects) made scikit-learn refuse it ("Unknown label type: unknown")."""
import numpy as np
import pandas as pd
from numpy.testing import assert_allclose
from sklearn.datasets import load_iris
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import imlkit as ik


def _iris():
    d = load_iris(as_frame=True)
    X, y = d.data, d.target.astype(float).to_numpy()
    rng = np.random.default_rng(0)
    idx = rng.permutation(len(y))
    tr, te = idx[:100], idx[100:]
    return X.iloc[tr].reset_index(drop=True), y[tr], X.iloc[te].reset_index(drop=True), y[te]


def test_loco_on_object_numeric_labels_equals_numeric_labels():
    X_tr, y_tr, X_te, y_te = _iris()
    learner = make_pipeline(StandardScaler(), KNeighborsClassifier(5))
    as_numbers = ik.loco(learner, X_tr, y_tr, X_te, y_te, loss="log_loss", random_state=0)
    as_objects = ik.loco(learner, X_tr, pd.Series(y_tr, dtype=object), X_te, pd.Series(y_te, dtype=object),
                         loss="log_loss", random_state=0)
    assert_allclose(as_objects.importance, as_numbers.importance, rtol=0, atol=0)


def test_text_labels_are_left_as_text():
    X_tr, y_tr, X_te, y_te = _iris()
    names = np.array(["setosa", "versicolor", "virginica"], dtype=object)
    r = ik.loco(KNeighborsClassifier(5), X_tr, names[y_tr.astype(int)], X_te, names[y_te.astype(int)],
                loss="log_loss", random_state=0)
    assert np.all(np.isfinite(r.importance))
