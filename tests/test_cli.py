"""The ``imlkit`` command: the error table (exit 2, one line), the subcommands, and --scheduler.

Runs ``imlkit.cli.main(argv)`` in-process; the end-to-end report runs live in
tests/report/test_report.py (bike --quick, penguins) and tests/report/test_browser.py.
"""
from __future__ import annotations

import json
import re
import time

import numpy as np
import pandas as pd
import pytest

from imlkit.cli import main


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("cli")
    rng = np.random.default_rng(0)
    n = 60
    frame = pd.DataFrame({"x1": rng.normal(size=n), "x2": rng.normal(size=n),
                          "label": rng.choice(["a", "b"], size=n)})
    frame["y"] = frame["x1"] + rng.normal(scale=0.1, size=n)
    good = d / "good.csv"
    frame.to_csv(good, index=False)
    tiny = d / "tiny.csv"
    frame.head(12).to_csv(tiny, index=False)
    binary = d / "binary.csv"
    binary.write_bytes(b"\x00\xff\xfe\x81\x9c" * 400)
    empty = d / "empty.csv"
    empty.write_text("")
    model = d / "model.joblib"
    model.write_bytes(b"not really a model")
    return {"dir": d, "good": str(good), "tiny": str(tiny), "binary": str(binary), "empty": str(empty),
            "model": str(model)}


def _run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


ERRORS = [
    (["report", "--data", "{dir}/missing.csv", "--target", "y"], r"missing\.csv' does not exist"),
    (["report", "--data", "{dir}", "--target", "y"], r"is a directory"),
    (["report", "--data", "{binary}", "--target", "y"], r"(could not be read|not a readable text CSV)"),
    (["report", "--data", "{empty}", "--target", "y"], r"is empty"),
    (["report", "--data", "{good}", "--target", "nope"], r"Target 'nope' is not a column of the data"),
    (["report", "--data", "{good}"], r"'--target' is required"),
    (["report", "--data", "{good}", "--target", "label", "--task", "regression"],
     r"Regression target 'label' is not numeric"),
    (["report", "--data", "{tiny}", "--target", "y"], r"12 complete row\(s\); the report needs at least 20"),
    (["report", "--data", "{good}", "--target", "y", "--methods", "pfi,magic"], r"Unknown method 'magic'"),
    (["importance", "--method", "shap", "--data", "{good}", "--target", "y"], r"Unknown method 'shap'"),
    (["report", "--data", "{good}", "--target", "y", "--features", "x1,zz"], r"\['zz'\] in '--features'"),
    (["report", "--model-file", "{model}"], r"Refusing to load .*--trust-model-file"),
    (["report", "--model-file", "{model}", "--trust-model-file"], r"could not be loaded"),
    (["report", "--test-size", "abc"], r"invalid float value: 'abc'"),
    (["report", "--test-size", "1.5"], r"'--test-size' must be a number > 0 and < 1"),
    (["report", "--model", "xgb"], r"invalid choice: 'xgb'"),
    (["report", "--scheduler", "localhost:8786"], r"must look like tcp://HOST:PORT"),
]


@pytest.mark.parametrize("argv, message", ERRORS, ids=[" ".join(a[:3]) + "|" + m[:25] for a, m in ERRORS])
def test_bad_input_exits_2_with_one_line(argv, message, files, capsys, tmp_path):
    argv = [a.format(**files) for a in argv] + ["--out", str(tmp_path / "out")] if argv[0] == "report" else \
        [a.format(**files) for a in argv]
    code, out, err = _run(argv, capsys)
    assert code == 2
    # Progress lines of the steps that finished before the error may come first (stderr is not a terminal).
    lines = [ln for ln in err.strip().splitlines() if not re.match(r"^\[\s*\d+\.\d s\] ", ln)]
    assert len(lines) == 1, err
    assert lines[0].startswith("imlkit")
    assert "Traceback" not in err
    assert re.search(message, lines[0]), lines[0]
    assert not (tmp_path / "out" / "report.html").exists()


def test_unreachable_scheduler_exits_2_within_the_timeout(capsys, tmp_path):
    start = time.perf_counter()
    code, _, err = _run(["report", "--quick", "--scheduler", "tcp://127.0.0.1:9", "--scheduler-timeout", "2",
                         "--out", str(tmp_path)], capsys)
    elapsed = time.perf_counter() - start
    assert code == 2 and "did not answer within 2 s" in err and len(err.strip().splitlines()) == 1
    assert elapsed < 20  # 2 s connect timeout plus start-up, never a hang
    assert list(tmp_path.iterdir()) == []


def test_no_subcommand_prints_help_and_exits_2(capsys):
    code, _, err = _run([], capsys)
    assert code == 2 and "report" in err


def test_datasets_lists_the_shipped_data(capsys):
    code, out, _ = _run(["datasets"], capsys)
    assert code == 0
    for name in ("bike", "wage", "penguins"):
        assert name in out
    code, out, _ = _run(["datasets", "--json"], capsys)
    rows = json.loads(out)
    assert {r["name"]: r["rows"] for r in rows}["bike"] == 8645


def test_importance_table_and_json(files, capsys):
    code, out, _ = _run(["importance", "--method", "pfi", "--data", files["good"], "--target", "y", "--seed", "1"],
                        capsys)
    assert code == 0 and out.startswith("PFI (squared_error)")
    first = out.splitlines()[3].split()[0]  # title, header, index name, first row
    assert first == "x1"  # y = x1 + noise: x1 is the important feature
    code, out, _ = _run(["importance", "--method", "pfi", "--data", files["good"], "--target", "y", "--seed", "1",
                         "--json"], capsys)
    data = json.loads(out)
    assert data["method"] == "pfi" and data["features"][0]["feature"] == "x1"
    assert data["features"][0]["importance"] > 10 * abs(data["features"][1]["importance"])


def _loco_json(capsys, extra):
    code, out, err = _run(["importance", "--method", "loco", "--json", "--quick", "--seed", "5",
                           "--features", "hr,temp,workingday,hum"] + extra, capsys)
    assert code == 0, err
    data = json.loads(out)
    data.pop("seconds")
    return data


@pytest.mark.slow
def test_scheduler_gives_the_same_numbers_as_a_local_run(capsys):
    distributed = pytest.importorskip("distributed")
    local = _loco_json(capsys, [])
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        remote = _loco_json(capsys, ["--scheduler", cluster.scheduler_address])
        # The refits really ran on the cluster (joblib's Dask backend names its tasks "batch_of_...").
        assert any("batch_of_" in prefix for prefix in cluster.scheduler.task_prefixes)
    assert remote == local
    assert {f["feature"] for f in local["features"]} == {"hr", "temp", "workingday", "hum"}
    assert local["features"][0]["feature"] == "hr"


def test_report_quick_on_a_small_csv_prints_the_path(files, capsys, tmp_path):
    out_dir = tmp_path / "rep"
    out_dir.mkdir()
    (out_dir / "other.txt").write_text("untouched")
    code, out, err = _run(["report", "--quick", "--data", files["good"], "--target", "y", "--model", "rf",
                           "--methods", "pfi,cfi,loco", "--quiet", "--out", str(out_dir)], capsys)
    assert code == 0, err
    assert out.strip() == str(out_dir / "report.html")
    assert err == ""  # --quiet: no progress lines, and no warnings printed
    assert sorted(p.name for p in out_dir.iterdir()) == ["other.txt", "report.html"]
    assert (out_dir / "other.txt").read_text() == "untouched"


def test_model_file_is_used_when_trusted(files, capsys, tmp_path):
    import joblib
    from sklearn.linear_model import LinearRegression

    frame = pd.read_csv(files["good"])
    model = LinearRegression().fit(frame[["x1", "x2"]], frame["y"])
    path = tmp_path / "lr.joblib"
    joblib.dump(model, path)
    code, out, err = _run(["importance", "--method", "pfi", "--data", files["good"], "--target", "y",
                           "--features", "x1,x2", "--model-file", str(path), "--trust-model-file", "--json"], capsys)
    assert code == 0, err
    data = json.loads(out)
    # PFI of a linear model with independent features: 2 β² Var(x) (docs/design.md §4, known answers).
    from imlkit.report import ReportConfig, prepare_context

    X_te = prepare_context(ReportConfig(data=files["good"], target="y", features=("x1", "x2"),
                                        model_file=str(path), trust_model_file=True)).X_test
    expected = 2 * model.coef_[0] ** 2 * X_te["x1"].var(ddof=0)
    got = next(f["importance"] for f in data["features"] if f["feature"] == "x1")
    # 10 permutations of ~18 test rows: the permutation noise is large, so only the scale is checked.
    assert 0.3 * expected < got < 3 * expected


@pytest.mark.slow
def test_n_jobs_does_not_change_the_numbers(files, capsys):
    def run(n_jobs):
        code, out, err = _run(["importance", "--method", "cfi", "--data", files["good"], "--target", "y",
                               "--json", "--n-jobs", str(n_jobs)], capsys)
        assert code == 0, err
        data = json.loads(out)
        data.pop("seconds")
        return data

    assert run(1) == run(2)


def test_the_command_runs_the_report_through_its_public_door():
    # The CLI is part of the package: it may read plumbing constants from the report's private
    # config (TASKS, DATASETS), but it runs a report only as a user does -- a ReportConfig, build_report,
    # run_importance: every name it takes from imlkit.report is public, and it checks no option
    # itself (the config does). Its method lists come from the config's constants (a method
    # added there shows up in --help).
    import ast
    import inspect

    import imlkit.cli as cli
    import imlkit.report as report
    from imlkit.report import ALL_METHODS, IMPORTANCE_METHODS

    imports = [n for n in ast.walk(ast.parse(inspect.getsource(cli))) if isinstance(n, ast.ImportFrom)]
    public = {a.name for n in imports if n.module == "report" for a in n.names}
    assert public and public <= set(report.__all__)
    private = {(n.module, a.name) for n in imports if n.module and n.module.startswith("report._") for a in n.names}
    assert private == {("report._config", "TASKS"), ("report._config", "DATASETS")}
    assert not [name for name in vars(cli) if name.startswith("_check")]
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if a.dest == "command").choices
    method = next(a for a in sub["importance"]._actions if a.dest == "method")
    assert method.metavar == "{" + ",".join(IMPORTANCE_METHODS) + "}"
    methods = next(a for a in sub["report"]._actions if a.dest == "methods")
    assert ", ".join(ALL_METHODS) in methods.help


def test_run_importance_checks_its_arguments(files):
    from imlkit.report import ReportConfig, ReportInputError, run_importance

    with pytest.raises(ReportInputError, match="'method' must be one of 'pfi', 'cfi', .*; got 'shap'"):
        run_importance(ReportConfig(data=files["good"], target="y"), method="shap")
    with pytest.raises(TypeError, match="'config' must be a ReportConfig"):
        run_importance({"data": files["good"]}, method="pfi")
