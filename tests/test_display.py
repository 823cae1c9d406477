"""How results show themselves: a short repr (never the arrays) and a notebook table."""
import dataclasses
import re

import numpy as np
import pandas as pd
import pytest

import imlkit as ik
from imlkit._display import MAX_HTML_ROWS, method_name

BETA = np.array([3.0, 2.0, 1.0])


def _model(Z):
    return np.asarray(Z, dtype=float) @ BETA


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.uniform(-1, 1, size=(240, 3)), columns=["x1", "x2", "x3"])
    return X, _model(X) + rng.normal(scale=0.1, size=240)


@pytest.fixture(scope="module")
def results(data):
    X, y = data
    f = lambda Z: Z["x1"].to_numpy() * Z["x2"].to_numpy() + Z["x3"].to_numpy()  # noqa: E731
    return {
        "pfi": ik.pfi(_model, X, y, n_repeats=3, random_state=0),
        "ice": ik.ice(f, X, "x1", grid=30, n_samples=50, random_state=0),
        "ale": ik.ale(f, X, "x1", bins=5),
        "h": ik.h_statistic(f, X, n_samples=40, random_state=0),
        "repid": ik.repid(f, X, "x1", max_depth=1, min_node_size=20),
    }


# (class name, header after the class: method · target · rows, the features line)
EXPECTED = {
    "pfi": ("ImportanceResult", "PFI · loss squared_error · 240 rows", "3 features: x1, x2, x3"),
    "ice": ("EffectResult", "ICE · prediction · 50 rows", "1 feature: x1"),
    "ale": ("EffectResult", "ALE · prediction · 240 rows", "1 feature: x1"),
    "h": ("HStatisticResult", "H-statistic · prediction · 40 rows", "3 features: x1, x2, x3"),
    "repid": ("RegionalResult", "REPID · prediction · 240 rows", "1 feature: x1"),
}


@pytest.mark.parametrize("key", list(EXPECTED))
def test_repr_is_short_and_says_what_was_computed(results, key):
    r = results[key]
    cls, head, names = EXPECTED[key]
    text = repr(r)
    lines = text.splitlines()
    assert len(lines) == 3 and len(text) < 400, text                # no warnings here: no 4th line
    seconds = r.info["seconds"]
    shown = "<1 ms" if seconds < 0.001 else f"{seconds:.3g} s"
    assert lines[0] == f"{cls}({head} · {shown})"
    assert lines[1] == f"  {names}"
    assert "array(" not in text and "[" not in text            # no numbers of the arrays
    frame = r.to_frame()
    assert lines[2].startswith("  to_frame(): ") and f"{frame.shape[0]} × {frame.shape[1]}" in lines[2]


def test_repr_names_features_and_warnings():
    r = ik.ImportanceResult(method="loco", feature_names=tuple(f"f{i}" for i in range(9)),
                            importance=np.arange(9.0), std=np.zeros(9), ci_low=np.zeros(9), ci_high=np.ones(9),
                            loss="absolute_error", warnings=("one", "two"))
    lines = repr(r).splitlines()
    assert lines[0] == "ImportanceResult(LOCO · loss absolute_error)"   # no rows, no seconds recorded
    assert lines[1] == "  9 features: f0, f1, f2, f3, f4, f5, …"
    assert lines[3] == "  2 warnings: see explain()"


def test_html_header_and_table(results):
    r = results["pfi"]
    page = r._repr_html_()
    header = re.search(r"<p><strong>(.*?)</strong> · (.*?)</p>", page)
    assert header.group(1) == "ImportanceResult"
    assert header.group(2).startswith("PFI · loss squared_error · 240 rows · ")
    # the table rows are to_frame()'s, in its order, with its columns
    body = page[page.index("<tbody>"):]
    assert re.findall(r"<th>(x\d)</th>", body) == list(r.to_frame().index)
    for col in r.to_frame().columns:
        assert f"<th>{col}</th>" in page
    top = r.to_frame().iloc[0]
    assert f"<td>{top['importance']:.4g}</td>" in page


def test_html_shows_the_head_only_and_escapes():
    m = 30
    names = [f"<b>f{i}</b>" for i in range(m)]
    imp = np.arange(m, 0, -1, dtype=float)          # f0 the largest
    r = ik.ImportanceResult(method="pfi", feature_names=tuple(names), importance=imp, std=np.zeros(m),
                            ci_low=imp, ci_high=imp, loss="mse")
    page = r._repr_html_()
    assert "<b>" not in page
    shown = re.findall(r"<th>&lt;b&gt;(f\d+)&lt;/b&gt;</th>", page)
    assert shown == [f"f{i}" for i in range(MAX_HTML_ROWS)]
    assert f"… {m - MAX_HTML_ROWS} more rows" in page


def test_h_statistic_html_shows_overall_and_pairs(results):
    page = results["h"]._repr_html_()
    assert page.count("<table") == 2
    assert "<p>overall</p>" in page and "<p>pairs</p>" in page
    pair = results["h"].pairwise.iloc[0]
    assert f"<td>{pair.feature_1}</td>" in page


def test_results_stay_frozen_dataclasses(results):
    r = results["pfi"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.method = "cfi"
    r2 = dataclasses.replace(r, loss="other")
    assert r2.loss == "other" and repr(r2).startswith("ImportanceResult(PFI · loss other")
    # str() of a REPID result is still its tree
    assert str(results["repid"]).startswith("REPID regions of 'x1'")


def test_method_names():
    assert [method_name(m) for m in ("pfi", "sage_conditional", "h_statistic")] == \
        ["PFI", "SAGE (conditional)", "H-statistic"]
