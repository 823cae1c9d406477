"""DecisionTree.export_text names a classifier's classes by the one class-label rule (imlkit._class_labels): a tree
fitted on a float 0.0/1.0/2.0 target reads as the one fitted on the integers 0/1/2 ("class: 1", "counts 0: 50, ..."),
not "class: 1.0"; labels that are not all whole numbers, and text, are written as they are."""
import re

import numpy as np
import pandas as pd
from sklearn.datasets import load_iris

from imlkit.models import DecisionTree


def _iris():
    X, y = load_iris(return_X_y=True, as_frame=True)
    return X, y.to_numpy()


def _leaf_labels(text):
    """The class each leaf names and the classes its counts name, in order."""
    leaves = re.findall(r"class: (\S+) \(n=(\d+), counts ([^)]*?), gini=", text)
    return [(label, int(n), [part.split(": ") for part in counts.split(", ")]) for label, n, counts in leaves]


def test_a_float_target_reads_as_its_whole_numbers():
    X, y = _iris()
    ints = DecisionTree(max_depth=3).fit(X, y).export_text()
    floats = DecisionTree(max_depth=3).fit(X, y.astype(float)).export_text()
    assert floats == ints  # the same splits and counts; 0.0 .. 2.0 spelled 0 .. 2
    assert not re.search(r"\b[0-2]\.0\b", floats)
    leaves = _leaf_labels(floats)
    assert leaves
    for label, n, counts in leaves:
        assert [c for c, _ in counts] == ["0", "1", "2"] and label in ("0", "1", "2")
        assert sum(int(v) for _, v in counts) == n


def test_labels_that_are_not_all_whole_numbers_and_text_are_written_as_they_are():
    X, y = _iris()
    halves = np.array([0.5, 1.0, 1.5])[y]
    text = DecisionTree(max_depth=2, task="classification").fit(X, halves).export_text()
    assert {c for _, _, counts in _leaf_labels(text) for c, _ in counts} == {"0.5", "1.0", "1.5"}
    names = np.array(["setosa", "versicolor", "virginica"])[y]
    text = DecisionTree(max_depth=2).fit(X, names).export_text()
    leaves = _leaf_labels(text)
    assert {c for _, _, counts in leaves for c, _ in counts} == {"setosa", "versicolor", "virginica"}
    assert pd.Series([label for label, _, _ in leaves]).isin(names).all()


def test_a_regression_tree_is_unchanged_and_the_fitted_classes_are_left_as_they_are():
    X, y = _iris()
    tree = DecisionTree(max_depth=2).fit(X, y.astype(float))
    tree.export_text()
    assert tree.classes_.dtype == float  # the text spells the labels; the fitted classes stay the model's
    text = DecisionTree(max_depth=2, task="regression").fit(X, y * 1.5).export_text()
    assert "value: " in text and "class:" not in text
