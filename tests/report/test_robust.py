"""The report on awkward data: failures isolated, "no better than", leaks, multiclass, progress, Python use.

Every run here uses ``--quick`` with a reduced ``--methods`` set on a small table, so each
takes a few seconds.
"""
from __future__ import annotations

import copy
import html
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

from imlkit.cli import main
from imlkit.report import ReportConfig, ReportInputError, build_report, method_params
from imlkit.report._scores import bootstrap_weights, score_intervals, scores

STEP_LINE = re.compile(r"^\[\s*\d+\.\d s\] .+ \(\d+\.\d s\)$")


def _run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _text(path):
    return html.unescape(re.sub(r"<[^>]+>", " ", path.read_text(encoding="utf-8")))


def _alerts(path):
    doc = path.read_text(encoding="utf-8")
    m = re.search(r'<div id="alerts">(.*?)</div>\s*<section', doc, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", m.group(1))) if m else ""


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    d = tmp_path_factory.mktemp("robust")
    rng = np.random.default_rng(0)
    n = 200
    frame = pd.DataFrame({"x1": rng.normal(size=n), "x2": rng.normal(size=n), "x3": rng.uniform(size=n)})
    frame["y"] = 2 * frame["x1"] + frame["x2"] ** 2 + rng.normal(scale=0.3, size=n)
    frame.to_csv(d / "good.csv", index=False)
    # 32 rows of pure noise: the default model predicts (almost) a constant.
    noise = pd.DataFrame(rng.normal(size=(32, 4)), columns=["a", "b", "c", "y"])
    noise.to_csv(d / "noise32.csv", index=False)
    leak = frame[["x1", "x2", "y"]].copy()
    leak["leaky"] = leak["y"] + rng.normal(scale=0.01, size=n)
    leak.to_csv(d / "leak.csv", index=False)
    from sklearn.datasets import load_iris

    iris = load_iris(as_frame=True).frame
    iris["target"] = iris["target"].map({0: "setosa", 1: "versicolor", 2: "virginica"})
    iris.to_csv(d / "iris.csv", index=False)
    return {k: str(d / f"{k}.csv") for k in ("good", "noise32", "leak", "iris")}


# --------------------------------------------------------------------------- failure isolation
def test_a_failing_method_and_plot_become_boxes_exit_0(tables, capsys, tmp_path, monkeypatch):
    import imlkit.report._sec_importance as sec_imp
    import imlkit.report._sec_model as sec_model

    def broken_learner(*args, **kwargs):
        raise RuntimeError("the learner cannot be refitted without x2")

    def broken_plot(*args, **kwargs):
        raise ValueError("cannot draw")

    monkeypatch.setattr(sec_imp.imp, "loco", broken_learner)
    monkeypatch.setattr(sec_model, "draw_performance", broken_plot)
    argv = ["report", "--quick", "--data", tables["good"], "--target", "y", "--methods", "pfi,loco",
            "--quiet", "--out", str(tmp_path / "a")]
    code, _, err = _run(argv, capsys)
    assert code == 0, err
    assert err.splitlines() == [
        "imlkit: figure 'figure: model scores' failed: ValueError: cannot draw",
        "imlkit: method 'LOCO' failed: RuntimeError: the learner cannot be refitted without x2"]
    path = tmp_path / "a" / "report.html"
    text = _text(path)
    assert "LOCO failed on these data and is left out: RuntimeError: the learner cannot be refitted" in text
    assert "2 part(s) of this report failed" in _alerts(path)
    assert "PFI [95% CI]" in text  # the rest is written
    code, _, err = _run(argv[:-1] + [str(tmp_path / "b"), "--strict"], capsys)
    assert code == 1 and "internal error: ValueError: cannot draw" in err
    assert not (tmp_path / "b" / "report.html").exists()


def test_a_failing_section_costs_only_that_section(tables, tmp_path, monkeypatch, capsys):
    import imlkit.report._sec_effects as sec_eff

    def broken(*args, **kwargs):
        raise KeyError("missing column")

    monkeypatch.setattr(sec_eff, "effect_output", broken)
    path = build_report(data=tables["good"], target="y", quick=True, methods=("pfi", "effects"),
                        out=str(tmp_path))
    err = capsys.readouterr().err
    assert "imlkit: section '4. Feature effects' failed: KeyError: 'missing column'" in err
    with open(path, encoding="utf-8") as fh:
        doc = fh.read()
    assert len(re.findall(r"<section id=", doc)) == 8  # sections 1-5, 5b (SHAP), 6, 7


# --------------------------------------------------------------------------- is the model worth explaining
def test_32_rows_of_noise_say_no_better_than_the_baseline(tables, capsys, tmp_path):
    code, _, err = _run(["report", "--quick", "--data", tables["noise32"], "--target", "y", "--methods", "pfi",
                         "--quiet", "--out", str(tmp_path)], capsys)
    assert code == 0, err
    top = _alerts(tmp_path / "report.html")
    assert "The model could not be shown to beat the mean baseline on the 10 test rows" in top
    # 22 training rows under HGB's min_samples_leaf=20: a constant model, which scores exactly as the
    # baseline -- its explanations have nothing to describe (not even noise)
    assert "scores exactly as the baseline on every measure, with no spread" in top
    assert "have nothing to describe" in top


def test_no_better_than_is_on_the_context(tables, tmp_path):
    from imlkit.report._build import prepare_context
    from imlkit.report._sec_model import section_model

    ctx = prepare_context(ReportConfig(data=tables["noise32"], target="y", quick=True))
    section_model(ctx)
    assert ctx.model_check.no_better_than == "mean"
    good = prepare_context(ReportConfig(data=tables["good"], target="y", quick=True))
    s = section_model(good)
    assert good.model_check.no_better_than is None and not good.alerts
    scores_table = s["blocks"][1]
    assert scores_table["columns"] == ["model", "RMSE", "MAE", "R²"]
    assert "1000 paired bootstrap resamples of the 60 test rows" in scores_table["caption"]


def test_a_leaking_column_is_flagged(tables, capsys, tmp_path):
    code, _, err = _run(["report", "--quick", "--data", tables["leak"], "--target", "y", "--methods", "pfi",
                         "--quiet", "--out", str(tmp_path)], capsys)
    assert code == 0, err
    top = _alerts(tmp_path / "report.html")
    assert "Possible leak: the column 'leaky'" in top
    assert "'x1'" not in top and "'x2'" not in top


def test_leak_check_ignores_a_majority_class():
    from imlkit.report._sec_model import leak_candidates

    rng = np.random.default_rng(1)
    n = 400
    i = np.arange(n)
    # Training rows: 5% class b; test rows: 1% (2 of 200), so predicting "a" is 99% accurate there.
    y = pd.Series(np.where(np.where(i < 200, i % 20 == 0, i % 100 == 0), "b", "a"))
    X = pd.DataFrame({"const_ish": np.zeros(n), "copy": (y == "b").astype(float) + rng.normal(0, 0.01, n)})
    found = leak_candidates(X[:200], y[:200], X[200:].reset_index(drop=True), y[200:].reset_index(drop=True),
                            "classification")
    # The constant column reaches 99% accuracy but only 50% balanced accuracy; the copy is the leak.
    assert [c for c, _, _ in found] == ["copy"]


# --------------------------------------------------------------------------- scores
def test_scores_match_scikit_learn():
    from sklearn import metrics

    rng = np.random.default_rng(3)
    n = 150
    y = rng.choice(["a", "b", "c"], size=n)
    proba = rng.dirichlet([1, 1, 1], size=n)
    labels = ["a", "b", "c"]
    pred = np.array(labels)[proba.argmax(axis=1)]
    s = scores({"pred": pred, "proba": proba}, y, "classification", np.ones((1, n)), labels)
    onehot = (y[:, None] == np.array(labels)).astype(float)
    assert_allclose(s["log loss"][0], metrics.log_loss(y, proba, labels=labels), rtol=1e-10)
    assert_allclose(s["Brier score"][0], ((proba - onehot) ** 2).sum(axis=1).mean(), rtol=1e-12)
    assert_allclose(s["ROC AUC"][0], metrics.roc_auc_score(y, proba, multi_class="ovr", labels=labels), rtol=1e-12)
    assert_allclose(s["balanced accuracy"][0], metrics.balanced_accuracy_score(y, pred), rtol=1e-12)
    # A bootstrap weight row equals the score on the resampled rows (ties in the scores included).
    w = bootstrap_weights(n, seed=1, n_boot=3)
    idx = np.repeat(np.arange(n), w[0].astype(int))
    yb, pb = y == "b", np.round(proba[:, 1], 1)
    two = np.column_stack([1 - pb, pb])
    sb = scores({"pred": np.where(pb > 0.5, "b", "a"), "proba": two}, np.where(yb, "b", "a"), "classification",
                w, ["a", "b"])
    assert_allclose(sb["ROC AUC"][0], metrics.roc_auc_score(yb[idx], pb[idx]), rtol=1e-12)
    yr = rng.normal(size=n)
    pr = yr + rng.normal(size=n)
    sr = scores({"pred": pr}, yr, "regression", w, None)
    # R² keeps the centre of all n rows on every resample (truth review rev7 r1 finding 8: the resample's own mean made
    # every resampled R² of the mean baseline <= 0, an interval that excluded its estimate)
    dev = (yr[idx] - yr.mean()) ** 2
    assert_allclose(sr["R²"][0], 1 - ((yr[idx] - pr[idx]) ** 2).sum() / dev.sum(), rtol=1e-10)
    assert_allclose(sr["RMSE"][0], np.sqrt(metrics.mean_squared_error(yr[idx], pr[idx])), rtol=1e-12)


def test_paired_differences_of_one_model_with_itself_are_zero():
    rng = np.random.default_rng(0)
    y = rng.normal(size=80)
    out = {"pred": y + rng.normal(size=80)}
    res = score_intervals({"m": out, "copy": dict(out)}, y, "regression", seed=0, reference="m")
    assert res["differences"]["copy"]["RMSE"] == (0.0, 0.0, 0.0)
    value, lo, hi = res["scores"]["m"]["RMSE"]
    assert lo < value < hi


# --------------------------------------------------------------------------- multiclass
def test_class_option_picks_the_class_and_captions_state_the_rows(tables, capsys, tmp_path):
    code, _, err = _run(["report", "--quick", "--data", tables["iris"], "--target", "target", "--class",
                         "virginica", "--methods", "pfi,effects,repid", "--quiet", "--out", str(tmp_path / "a")],
                        capsys)
    assert code == 0, err
    text = _text(tmp_path / "a" / "report.html")
    assert "Effects on the predicted probability of class virginica (chosen with --class)" in text
    assert "REPID explains the predicted probability of class virginica" in text
    # 150 rows, test size 0.3: 45 test rows, fewer than --quick's 150 ICE rows.
    assert "ICE curves (thin lines, 45 test rows)" in text and "ICE (45 rows) with PD" in text
    assert "150 test rows" not in text and "300 test rows" not in text
    code, _, err = _run(["report", "--quick", "--data", tables["iris"], "--target", "target", "--class", "rose",
                         "--quiet", "--out", str(tmp_path / "b")], capsys)
    assert code == 2
    assert "'--class' must be one of the classes of 'target': 'setosa', 'versicolor', 'virginica'; got 'rose'" in err
    code, _, err = _run(["report", "--quick", "--data", tables["good"], "--target", "y", "--class", "a", "--quiet",
                         "--out", str(tmp_path / "c")], capsys)
    assert code == 2 and "'--class' applies to classification targets; 'y' is a regression target." in err


def test_multiclass_effects_show_every_class(tables, tmp_path):
    path = build_report(data=tables["iris"], target="target", quick=True, methods=("pfi", "effects"),
                        out=str(tmp_path))
    text = _text(Path(path))
    assert "predicted probability of each of the 3 classes (setosa, versicolor, virginica" in text
    assert "for each of the 3 classes" in text


def test_complete_rows_note():
    from types import SimpleNamespace

    from imlkit.report._sec_effects import complete_rows

    X = pd.DataFrame({"a": np.arange(50.0), "b": np.r_[np.full(10, np.nan), np.arange(40.0)]})
    ctx = SimpleNamespace(eval_rows="test rows")
    Xc, note = complete_rows(ctx, X, "ALE")
    assert len(Xc) == 40 and note.startswith("ALE cannot take missing values: it ran on the 40 complete rows of the 50")
    assert complete_rows(ctx, X.dropna(), "ALE")[1] is None
    with pytest.raises(ValueError, match="only 5 of the 50 test rows"):
        complete_rows(ctx, X.assign(b=np.r_[np.arange(5.0), np.full(45, np.nan)]), "REPID")


# --------------------------------------------------------------------------- progress
def test_progress_lines_when_not_a_terminal_and_quiet_prints_nothing(tables, capsys, tmp_path):
    argv = ["report", "--quick", "--data", tables["good"], "--target", "y", "--methods", "pfi,cfi"]
    code, out, err = _run(argv + ["--out", str(tmp_path / "a")], capsys)
    assert code == 0
    lines = err.splitlines()
    assert lines and all(STEP_LINE.match(ln) for ln in lines), err
    steps = [re.sub(r"^\[[^\]]+\] (.*) \([^)]*\)$", r"\1", ln) for ln in lines]
    assert steps[:3] == ["read and prepare the data", "train/test split", "fit the model (gbm)"]
    assert "PFI" in steps and "CFI" in steps
    elapsed = [float(re.match(r"^\[\s*([\d.]+) s\]", ln).group(1)) for ln in lines]
    assert elapsed == sorted(elapsed)
    code, out, err = _run(argv + ["--quiet", "--out", str(tmp_path / "b")], capsys)
    assert code == 0 and err == "" and out.strip().endswith("report.html")


def test_progress_bar_mode_counts_steps():
    import io

    from imlkit.report._progress import Progress, resolve_mode

    stream = io.StringIO()
    assert resolve_mode(True, stream) == "lines" and resolve_mode(False, stream) == "off"
    with pytest.raises(ValueError, match="'progress' must be"):
        resolve_mode("loud")
    bar = Progress("bar", total=2, stream=stream)
    for name in ("a", "b", "c"):  # one more step than planned: the total grows, nothing breaks
        bar.start(name)
        bar.done(name, 0.1)
    assert bar.finished == 3 and bar._bar.total >= 3
    bar.close()
    assert "imlkit report" in stream.getvalue()
    quiet = io.StringIO()
    off = Progress("off", stream=quiet)
    off.start("a")
    off.done("a", 1.0)
    assert quiet.getvalue() == ""


# --------------------------------------------------------------------------- from Python
def test_build_report_from_python_with_a_frame_and_a_fitted_model(tmp_path):
    from sklearn.linear_model import LinearRegression

    rng = np.random.default_rng(2)
    frame = pd.DataFrame({"x1": rng.normal(size=120), "x2": rng.normal(size=120)})
    frame["y"] = 3 * frame["x1"] + rng.normal(scale=0.5, size=120)
    before = frame.copy()
    model = LinearRegression().fit(frame[["x1", "x2"]], frame["y"])
    coef = model.coef_.copy()
    # methods as text: the run normalises it to a tuple -- in its own copy, never in the caller's config
    cfg = ReportConfig(data=frame, target="y", model=model, quick=True, methods="PFI, loco", out=str(tmp_path),
                       extra={"kept": ["as", "is"]})

    def snapshot(c):
        return copy.deepcopy({k: v for k, v in vars(c).items() if k not in ("data", "model")})

    before_cfg = snapshot(cfg)
    path = build_report(cfg)
    assert path == str(tmp_path / "report.html")
    assert snapshot(cfg) == before_cfg and cfg.data is frame and cfg.model is model  # the caller's config unchanged
    with pytest.raises(ReportInputError, match="Unknown method 'nope'"):  # options replace values in the copy only
        build_report(cfg, methods="nope")
    assert snapshot(cfg) == before_cfg
    pd.testing.assert_frame_equal(frame, before)
    assert_allclose(model.coef_, coef)  # the fitted model is used as it is; LOCO refits a clone
    text = _text(tmp_path / "report.html")
    assert "LinearRegression (fitted, passed from Python)" in text
    assert "LOCO [95% CI]" in text and "a pandas DataFrame" in text


def test_cli_options_reach_the_method_parameters():
    p = method_params(True, n_refits=3, sage_orderings=40)
    assert p.loco.n_refits == 3
    assert p.sage.marginal.max_permutations == 40 and p.sage.conditional.max_permutations == 40
    assert method_params(True).loco.n_refits == 1


@pytest.mark.parametrize("argv, message", [(["--n-refits", "0"], "'--n-refits' must be an int >= 1; got 0."),
                                           (["--sage-orderings", "1"], "'--sage-orderings' must be an int >= 4")])
def test_bad_refit_and_ordering_options(argv, message, capsys, tmp_path):
    code, _, err = _run(["report", "--quick", "--out", str(tmp_path)] + argv, capsys)
    assert code == 2 and message in err


def test_column_errors_come_from_prepare_columns_in_the_reports_words():
    # One check serves both: prepare_columns decides what is wrong with the columns, the report
    # only renames 'frame'/'target'/'features' to the data and its options.
    from imlkit.report import load_dataset

    frame = pd.DataFrame(np.zeros((30, 3)), columns=["a", "b", "y"])
    dup = pd.concat([frame, frame[["a"]]], axis=1)
    cases = [(dict(data=dup, target="y"), "The data has duplicated column names: ['a']."),
             (dict(data=frame, target="z"),
              "Target 'z' is not a column of the data; the columns are ['a', 'b', 'y']."),
             (dict(data=frame, target="y", features=("a", "q")),
              "Feature(s) ['q'] in '--features' are not columns of the data; the columns are ['a', 'b', 'y'].")]
    for kwargs, message in cases:
        with pytest.raises(ReportInputError) as err:
            load_dataset(**kwargs)
        assert str(err.value) == message
