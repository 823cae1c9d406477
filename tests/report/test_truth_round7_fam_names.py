"""Truth review rev7 r1, finding 9: the constant classifier predicts the training class frequencies (its log loss is
the prior's, 0.1461 on ISLP Default), so the report must not call it just "majority class" -- a classifier sure of the
majority class has an infinite log loss."""
import numpy as np
import pandas as pd
from numpy.testing import assert_allclose
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split

from imlkit.report._fit import CLASS_FREQUENCIES, MeanBaseline, baseline_models, performance


def _split():
    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    y = y.map({0: "malignant", 1: "benign"}).rename("diagnosis")
    return train_test_split(X.iloc[:, :4], y, test_size=0.3, random_state=0, stratify=y)


def test_the_constant_classifier_is_named_by_what_it_predicts():
    X_tr, X_te, y_tr, y_te = _split()
    names = list(baseline_models("classification", X_tr, y_tr))
    assert names[0] == CLASS_FREQUENCIES == "class frequencies (majority class)"
    assert not any(n == "majority class" for n in names)
    assert list(baseline_models("regression", X_tr, np.arange(len(X_tr), dtype=float)))[0] == "mean"


def test_its_log_loss_is_the_prior_s():
    X_tr, X_te, y_tr, y_te = _split()
    base = MeanBaseline().fit(X_tr, y_tr)
    freq = y_tr.value_counts(normalize=True)
    prior = -np.mean(np.log(freq[y_te].to_numpy()))
    got = performance(base, X_te, y_te, "classification")
    assert_allclose(got["log loss"], prior, rtol=1e-12)
    assert np.isfinite(got["log loss"])  # a classifier sure of the majority class would score +inf here
    assert (pd.Series(base.predict(X_te)) == freq.idxmax()).all()
