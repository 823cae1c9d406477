"""Sixth round (helper reading6): one spelling of the class labels -- a model fitted on a float target."""
import re

import joblib
import numpy as np
import pandas as pd
from sklearn.datasets import load_wine
from sklearn.ensemble import RandomForestClassifier

from imlkit.cli import main


def test_class_labels_are_decided_on_the_collection_as_a_whole():
    """The column's rule (every value a whole number -> integers) and the model's classes follow one rule: a model
    fitted on 0.0/1.0 names them 0 and 1, as the data's column spells them; 0.5 beside 1.0 keeps "1.0" both ways."""
    from imlkit.report._labels import class_label, class_names, class_text

    assert class_names(np.array([0.0, 1.0, 2.0])) == {0.0: "0", 1.0: "1", 2.0: "2"}
    assert [class_label(v, [0.5, 1.0]) for v in (0.5, 1.0)] == list(class_text(pd.Series([0.5, 1.0])))
    assert [class_label(v, [0.0, 1.0]) for v in (0.0, 1.0)] == list(class_text(pd.Series([0.0, 1.0])))
    # the effect panels' last class is no class of the model
    assert class_label("all other classes", [0.0, 1.0]) == "all other classes"
    # a target held as Python numbers (the report maps the column to a model's classes) follows the same rule
    assert list(class_text(pd.Series([1.0, 0.0], dtype=object))) == ["1", "0"]
    assert list(class_text(pd.Series([True, False], dtype=object))) == ["True", "False"]


def _float_model_report(tmp_path, methods):
    """Wine's first six columns; a user's random forest fitted on the target as floats 0.0/1.0/2.0 (classes_ are
    floats), saved with joblib, scored on held-out rows (--test-data)."""
    d = load_wine(as_frame=True).frame
    cols = list(d.columns[:6])
    d = d[cols + ["target"]]
    train = d.sample(frac=0.7, random_state=0)
    test = d.drop(train.index)
    model = RandomForestClassifier(n_estimators=30, random_state=0).fit(train[cols], train["target"].astype(float))
    assert model.classes_.dtype.kind == "f"
    train.to_csv(tmp_path / "train.csv", index=False)
    test.to_csv(tmp_path / "test.csv", index=False)
    joblib.dump(model, tmp_path / "model.joblib")
    out = tmp_path / "out"
    code = main(["report", "--data", str(tmp_path / "train.csv"), "--test-data", str(tmp_path / "test.csv"),
                 "--target", "target", "--model-file", str(tmp_path / "model.joblib"), "--trust-model-file",
                 "--quick", "--quiet", "--methods", methods, "--out", str(out)])
    assert code == 0
    html = (out / "report.html").read_text()
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))
    return text[text.index("7. How it was made") + 1:]  # after the table of contents


def _between(text, start, end):
    return text[text.index(start):text.index(end, text.index(start))]


def test_a_float_target_models_classes_are_spelled_as_the_data_spells_them_in_sections_4_and_5(tmp_path):
    """Section 4 listed "(0.0, 1.0, 2.0; one column per class)" above panels titled "P(0)", "P(1)", "P(2)", and the
    provenance recorded "ICE + PD: alcohol [0.0]": the panels went through one label helper, the list through str()."""
    text = _float_model_report(tmp_path, "pfi,effects,hstat,repid")
    effects = _between(text, "4. Feature effects", "7. How it was made")
    assert "each of the 3 classes (0, 1, 2; one column per class)" in effects
    assert "the predicted probability of class 1, the most frequent of the 3 classes" in effects
    assert not re.search(r"\b[0-2]\.0\b", effects)
    record = text[text.index("7. How it was made"):]
    assert "ICE + PD: alcohol [0]" in record and "[0.0]" not in record


def test_a_float_target_models_classes_are_spelled_alike_in_the_whole_report(tmp_path):
    text = _float_model_report(tmp_path, "pfi,effects,shap")
    body = text[:text.index("7. How it was made")]
    assert not re.search(r"\b[0-2]\.0 \(\d", body)  # section 1: "1.0 (71), 0.0 (59), 2.0 (48)"
    assert "= 1.0)" not in body and "= 0.0)" not in body and "= 2.0)" not in body


def test_a_float_target_models_classes_are_spelled_alike_in_the_tree_and_the_rule_learners(tmp_path):
    """Section 6's tree leaves read "class: 1.0 (n=..., counts 0.0: 3, 1.0: 40, 2.0: 2, ...)" and RIPPER/OneR's class
    column "1.0", beside section 1's "1 (71)": both are fitted on the target as the model's float classes."""
    text = _float_model_report(tmp_path, "pfi,models")
    alt = _between(text, "6. Interpretable alternatives", "7. How it was made")
    assert "class: " in alt and "RIPPER" in alt
    assert not re.search(r"class: [0-2]\.0\b", alt)
    assert not re.search(r"\b[0-2]\.0: \d", alt)  # the leaves' counts
    assert re.search(r"class: [0-2] \(n=", alt)
    table = alt[alt.index("RIPPER: the rows each rule decides"):]
    assert not re.search(r"\bELSE [0-2]\.0\b|\s[0-2]\.0\s+\d", table[:2000])
