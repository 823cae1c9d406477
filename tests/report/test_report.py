"""The HTML report: every section with numbers, section functions alone, escaping, safe writing.

The quick bike report is built once per session (``quick_bike_report``) and shared with the
browser test, because it is the slowest thing here (~30-60 s on 2 cores).
"""
from __future__ import annotations

import dataclasses
import html
import os
import re

import numpy as np
import pandas as pd
import pytest

import imlkit as ik
from imlkit.cli import main
from imlkit.importance import ImportanceResult
from imlkit.report import ReportConfig, build_report, prepare_context
from imlkit.report._blocks import fmt
from imlkit.report._context import Failure, ImportanceOutputs
from imlkit.report._reading import disagreements
from imlkit.report._render import render_html, write_atomic

SECTIONS = {"data": "1. Data", "model": "2. Model and baselines", "importance": "3. Feature importance",
            "effects": "4. Feature effects", "regional": "5. Regional effects",
            "local": "5b. Individual predictions", "alternatives": "6. Interpretable alternatives",
            "provenance": "7. How it was made"}
_CACHE = {}


def quick_bike_report(tmp_path_factory):
    """``imlkit report --quick`` on the shipped bike data, built once per test session."""
    if "bike" not in _CACHE:
        out = tmp_path_factory.mktemp("quick_bike")
        assert main(["report", "--quick", "--out", str(out)]) == 0
        _CACHE["bike"] = out / "report.html"
    return _CACHE["bike"]


def _sections(doc):
    """{section id: its HTML} from the report."""
    parts = re.findall(r'<section id="([a-z]+)">(.*?)</section>', doc, flags=re.S)
    return dict(parts)


def _numbers(fragment):
    cells = re.findall(r'<td class="num">([^<]+)</td>', fragment)
    return [c for c in cells if re.search(r"\d", c)]


@pytest.fixture(scope="module")
def bike_html(tmp_path_factory):
    return quick_bike_report(tmp_path_factory).read_text(encoding="utf-8")


@pytest.mark.slow
def test_quick_bike_report_has_every_section_with_numbers(bike_html):
    secs = _sections(bike_html)
    assert list(secs) == list(SECTIONS)
    for sid, title in SECTIONS.items():
        assert f"<h2>{title}</h2>" in secs[sid]
        assert "Not computed" not in secs[sid]
        assert len(_numbers(secs[sid])) >= 3, sid
    imp = secs["importance"]
    for label in ("PFI", "CFI", "LOCO", "SAGE (marginal)", "SAGE (conditional)"):
        assert f"<td>{label}</td>" in imp  # the question table names every method that ran
    # --quick's 10 null refits over 12 features could reject nothing: PIMP is not run, and says why
    assert "<td>PIMP" not in imp and "PIMP was not run: with 10 null refits" in imp
    assert "p (holm)" in imp and "Automatic reading" in imp
    assert "H-statistic" in secs["effects"] and "and ALE (2,594 rows), of feature hr" in secs["effects"]
    assert "REPID" in secs["regional"] and "split on" in secs["regional"]
    alt = secs["alternatives"]
    for name in ("GLM (poisson", "GAM (poisson", "RuleFit", "Decision tree"):
        assert name in alt
    prov = secs["provenance"]
    assert "Seed 0" in prov and "scikit-learn" in prov and "seconds" in prov


@pytest.mark.slow
def test_quick_bike_report_numbers_make_sense(bike_html):
    secs = _sections(bike_html)
    # The black box beats the mean baseline on test RMSE (the bike signal is strong: R² > 0.8).
    rows = re.findall(r"<tr><td>([^<]+)</td><td class=\"num\">([^<]+)</td><td class=\"num\">[^<]+</td>"
                      r"<td class=\"num\">([^<]+)</td>", secs["model"])
    # Cells are "value [low, high]"; the first table has the scores, the second the differences.
    first = {html.unescape(n): (v.split()[0], r.split()[0]) for n, v, r in rows[:3]}
    perf = {n: (float(rmse.replace(",", "")), float(r2)) for n, (rmse, r2) in first.items()}
    assert "The model beats the mean baseline on test RMSE" in secs["model"]
    assert 'id="alerts"' not in bike_html  # a good model on clean data: no warning at the top
    gbm = next(v for k, v in perf.items() if k.startswith("gradient boosting"))
    assert gbm[1] > 0.8 and gbm[0] < perf["mean"][0]
    # hr is the dominant feature for every method (the course's bike example).
    assert "rank hr first" in secs["importance"]
    # The course's regional example: hr is split by workingday (and temperature).
    assert "hr" in secs["regional"] and "workingday" in secs["regional"]


@pytest.mark.slow
def test_report_is_self_contained(bike_html):
    assert "<script" not in bike_html.lower()
    assert not re.search(r'(src|href)="(https?:)?//', bike_html)
    imgs = re.findall(r'<img src="([^"]+)"', bike_html)
    assert len(imgs) >= 8 and all(s.startswith("data:image/png;base64,") for s in imgs)
    assert "Content-Security-Policy" in bike_html


@pytest.mark.slow
def test_penguins_csv_classification_report(tmp_path):
    X, y = ik.datasets.load_penguins(dropna=False)
    frame = pd.concat([X, y], axis=1)
    csv = tmp_path / "penguins.csv"
    frame.to_csv(csv, index=False)
    out = tmp_path / "out"
    assert main(["report", "--quick", "--data", str(csv), "--target", "species", "--out", str(out)]) == 0
    doc = (out / "report.html").read_text(encoding="utf-8")
    secs = _sections(doc)
    assert list(secs) == list(SECTIONS)
    for sid in SECTIONS:
        assert "Not computed" not in secs[sid]
        assert len(_numbers(secs[sid])) >= 3, sid
    assert "classification" in secs["data"] and "were dropped" in secs["data"]
    assert "accuracy" in secs["model"] and "log loss" in secs["model"] and "majority class" in secs["model"]
    assert "log_loss" in secs["importance"]
    assert "against the rest" in secs["alternatives"]


# --------------------------------------------------------------------------- sections alone
@pytest.fixture(scope="module")
def small_ctx(tmp_path_factory):
    rng = np.random.default_rng(1)
    n = 300
    x1 = rng.uniform(-1, 1, n)
    frame = pd.DataFrame({"x1": x1, "x2": x1 + rng.normal(scale=0.05, size=n), "x3": rng.uniform(-1, 1, n),
                          "g": rng.choice(["a", "b"], size=n)})
    frame["y"] = 3 * frame["x1"] + np.where(frame["g"] == "a", 2 * frame["x3"], -2 * frame["x3"]) + \
        rng.normal(scale=0.1, size=n)
    path = tmp_path_factory.mktemp("small") / "small.csv"
    frame.to_csv(path, index=False)
    cfg = ReportConfig(data=str(path), target="y", quick=True, seed=3)
    return prepare_context(cfg)


def test_section_data_alone(small_ctx):
    from imlkit.report._sec_data import section_data

    s = section_data(small_ctx)
    assert s["title"] == "1. Data"
    kinds = [b["kind"] for b in s["blocks"]]
    assert "table" in kinds and "image" in kinds
    warn = [b["text"] for b in s["blocks"] if b["kind"] == "warning"]
    # x1 and x2 are near copies: the extrapolation warning must name both.
    assert len(warn) == 1 and "x1" in warn[0] and "x2" in warn[0]


def test_section_importance_alone(small_ctx):
    from imlkit.report._sec_importance import section_importance

    small_ctx.config = dataclasses.replace(small_ctx.config, methods=("pfi", "cfi"))
    small_ctx.importance = ImportanceOutputs()
    s = section_importance(small_ctx)
    assert set(small_ctx.importance.results()) == {"pfi", "cfi"}
    table = next(b for b in s["blocks"] if b["kind"] == "table" and "side by side" in (b["caption"] or ""))
    assert table["columns"][0] == "feature" and len(table["rows"]) == 4
    # x1/x2 are near copies: CFI must be far below PFI for both (their information is shared).
    pfi, cfi = small_ctx.importance.pfi, small_ctx.importance.cfi
    for f in ("x1", "x2"):
        j = pfi.feature_names.index(f)
        assert cfi.importance[cfi.feature_names.index(f)] < 0.5 * pfi.importance[j]


def test_section_regional_alone_finds_the_planted_interaction(small_ctx):
    from imlkit.report._sec_effects import section_regional

    small_ctx.config = dataclasses.replace(small_ctx.config, methods=("repid",))
    # Force the candidate: the effect of x3 flips sign with g, so REPID must split on g.
    small_ctx.importance = ImportanceOutputs(pfi=_fake("pfi", ["x3", "x1", "x2", "g"], [3.0, 2.0, 1.0, 0.5]))
    s = section_regional(small_ctx)
    g = small_ctx.regional.repid
    assert g.feature == "x3"
    assert g.interaction_scores.index[0] == "g"
    assert any(b["kind"] == "pre" and "split on g" in b["text"] for b in s["blocks"])
    # a sign flip: the regional curves differ by far more than 10% of the effect's range, and it is said
    said = " ".join(b["text"] for b in s["blocks"] if b["kind"] == "text")
    assert "The effect of x3 differs between the regions: the splits by g remove" in said
    # g's share of the heterogeneity in the sentence, at least REPID's gamma (round 6: "it interacts with" every split
    # feature, however little its splits removed, was false for splits let through relative to their parent only)
    share = g.interaction_scores["g"]
    assert share >= small_ctx.params.repid.min_improvement
    assert f"It interacts with g ({100 * share:.0f}%" in said and "do not differ materially" not in said


def test_section_provenance_lists_steps_and_versions(small_ctx):
    from imlkit.report._sec_provenance import section_provenance

    s = section_provenance(small_ctx, total_seconds=1.5)
    steps = next(b for b in s["blocks"] if b["kind"] == "table")
    names = [r[0] for r in steps["rows"]]
    assert "train/test split" in names and names[-1].startswith("total")
    assert all(r[2] != "" for r in steps["rows"])  # every step has a run time


# --------------------------------------------------------------------------- reading
def _fake(method, names, values):
    v = np.asarray(values, dtype=float)
    return ImportanceResult(method=method, feature_names=tuple(names), importance=v, std=0 * v,
                            ci_low=v - 0.1, ci_high=v + 0.1, loss="squared_error")


def test_disagreement_is_explained_by_dependence():
    results = {"pfi": _fake("pfi", ["a", "b", "c"], [10, 8, 1]),
               "cfi": _fake("cfi", ["a", "b", "c"], [10, 0.2, 1])}
    r2 = pd.Series({"a": 0.1, "b": 0.95, "c": 0.0})
    found = disagreements(results, r2)
    assert [d["feature"] for d in found] == ["b"]
    assert found[0]["high"] == ["pfi"] and found[0]["low"] == ["cfi"]
    assert "R² = 0.95" in found[0]["reason"]


def test_no_disagreement_when_methods_agree():
    results = {"pfi": _fake("pfi", ["a", "b"], [10, 5]), "cfi": _fake("cfi", ["a", "b"], [9, 4])}
    assert disagreements(results, pd.Series({"a": 0.0, "b": 0.0})) == []


# --------------------------------------------------------------------------- rendering and writing
def test_render_escapes_data_strings():
    evil = "<script>alert(1)</script>"
    sections = [{"id": "data", "title": "1. Data", "intro": evil,
                 "blocks": [{"kind": "text", "text": evil},
                            {"kind": "table", "columns": [evil], "rows": [[evil]], "caption": evil},
                            {"kind": "list", "items": [evil], "title": evil},
                            {"kind": "pre", "text": evil}]}]
    doc = render_html(sections, title=evil, subtitle=evil, version="0", created="now")
    assert "<script>" not in doc
    assert doc.count("&lt;script&gt;alert(1)&lt;/script&gt;") >= 8


def test_write_atomic_replaces_only_the_report(tmp_path):
    other = tmp_path / "notes.txt"
    other.write_text("keep me")
    target = tmp_path / "report.html"
    target.write_text("old report")
    write_atomic(str(target), "new report")
    assert target.read_text() == "new report" and other.read_text() == "keep me"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt", "report.html"]


def test_interrupted_write_leaves_no_half_report(tmp_path, monkeypatch):
    target = tmp_path / "report.html"
    target.write_text("old report")

    def interrupted(src, dst):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_atomic(str(target), "new report")
    assert target.read_text() == "old report"
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]  # the temporary file is gone


def test_interrupted_run_writes_nothing(tmp_path, monkeypatch):
    import imlkit.report._build as build

    def stop(ctx):
        raise KeyboardInterrupt

    monkeypatch.setattr(build, "build_sections", stop)
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.csv").write_text("a,b\n1,2\n")
    assert main(["report", "--quick", "--out", str(out)]) == 130
    assert [p.name for p in out.iterdir()] == ["keep.csv"]


@pytest.mark.parametrize("value, text", [(0.0, "0"), (1234567.0, "1.23e+06"), (0.5, "0.5"), (12, "12"),
                                         (float("nan"), "–"), (True, "yes"), ("x", "x")])
def test_fmt(value, text):
    assert fmt(value) == text


def test_build_report_rejects_out_that_is_a_file(tmp_path):
    f = tmp_path / "file"
    f.write_text("x")
    with pytest.raises(ValueError, match="is not a directory"):
        build_report(quick=True, out=str(f))


def test_a_model_that_fails_on_the_data_is_reported_not_fatal(small_ctx, capsys):
    from imlkit.report._sec_alternatives import _guarded

    def singular():
        raise np.linalg.LinAlgError("leading minor not positive definite")

    n_failures = len(small_ctx.failures)
    blocks = _guarded(small_ctx, "GAM", singular)
    assert blocks[0] == {"kind": "heading", "text": "GAM"}
    assert blocks[1]["kind"] == "warning" and "LinAlgError: leading minor" in blocks[1]["text"]
    assert any("'GAM' failed" in n for n in small_ctx.notes)
    assert small_ctx.failures[n_failures:] == [Failure(part="GAM", kind="method",
                                                       reason="LinAlgError: leading minor not positive definite")]
    assert capsys.readouterr().err == ("imlkit: method 'GAM' failed: LinAlgError: leading minor not positive "
                                       "definite\n")
    small_ctx.config = dataclasses.replace(small_ctx.config, strict=True)
    try:
        with pytest.raises(np.linalg.LinAlgError):  # --strict: every failure is fatal
            _guarded(small_ctx, "GAM", singular)
    finally:
        small_ctx.config = dataclasses.replace(small_ctx.config, strict=False)


def test_section_alternatives_alone_on_a_regression(small_ctx):
    from imlkit.report._sec_alternatives import section_alternatives

    small_ctx.config = dataclasses.replace(small_ctx.config, methods=("models",))
    assert set(small_ctx.model_check.performance) == {"RMSE", "MAE", "R²"}  # set by prepare_context
    s = section_alternatives(small_ctx)
    headings = [b["text"] for b in s["blocks"] if b["kind"] == "heading"]
    assert headings[:4] == ["GLM (gaussian family, identity link)", "GAM (gaussian family)", "RuleFit",
                            "Decision tree (depth 3)"]
    assert not [b for b in s["blocks"] if b["kind"] == "warning"]
    comparison = s["blocks"][0]
    assert [r[0] for r in comparison["rows"]][1:] == ["GLM (gaussian)", "GAM (gaussian)", "RuleFit",
                                                      "decision tree (depth 3)"]


def test_layout_places_the_derived_parts_without_changing_the_sections():
    # The automatic reading and the subsampling sentence are computed after sections 1-6;
    # layout() puts them in place in new records: the built sections stay as they were.
    import copy

    from imlkit.report._blocks import Section, text
    from imlkit.report._build import layout

    built = [Section("data", "1. Data", [text("source"), text("split"), text("columns")]),
             Section("importance", "3. Feature importance", [text("table")]),
             Section("effects", "4. Feature effects", [text("ice")])]
    before = copy.deepcopy(built)
    out = layout(built, reading=[text("reading")], subsample_note="subsampled")
    assert built == before
    assert [b["text"] for b in out[0]["blocks"]] == ["source", "split", "subsampled", "columns"]
    assert [b["text"] for b in out[1]["blocks"]] == ["table", "reading"]
    assert out[2] == built[2]
    assert layout(built, reading=[])[0] == built[0]  # no sentence without subsampling
