"""One door (issue 24, item 1): the report's options are checked by ReportConfig itself.

``build_report`` from Python and ``imlkit report`` from the shell make the same config, and the
config checks every option as it is made, before any data are read or any directory created.
From Python a message names the option (``'seed'``), from the command line its flag
(``'--seed'``); the config is frozen (``dataclasses.replace`` makes a checked copy).
"""
from __future__ import annotations

import dataclasses
import time

import numpy as np
import pandas as pd
import pytest

import imlkit as ik
import imlkit.report as report
from imlkit.cli import main
from imlkit.report import ReportConfig, ReportInputError, build_report
from imlkit.report._config import option_flag

# (option, bad value, what the message says after the option's name)
BAD = [
    ("seed", -3, r"must be an int in \[0, 4294967295\] .*; got -3\."),
    ("n_refits", 0, r"must be an int >= 1; got 0\."),
    ("test_size", 1.5, r"must be a number > 0 and < 1; got 1\.5\."),
    ("max_rows", -1, r"must be an int >= 100; got -1\."),
    ("n_null", 0, r"must be an int >= 1; got 0\."),
    ("max_features", 0, r"must be an int >= 1; got 0\."),
    ("sage_orderings", 2, r"must be an int >= 4; got 2\."),
    ("n_jobs", 0, r"must be -1 or an int >= 1; got 0\."),
    ("scheduler_timeout", 0.0, r"must be a number > 0; got 0\.0\."),
    ("scheduler", "localhost:8786", r"must look like tcp://HOST:PORT"),
    ("task", "ranking", r"must be one of 'auto', 'regression', 'classification'; got 'ranking'\."),
    ("dataset", "iris", r"must be one of 'bike', 'wage', 'penguins'; got 'iris'\."),
    ("target", 5, r"must be a column name \(text\) or None; got 5\."),
    ("model", "xgb", r"must be one of 'gbm', 'rf', 'glm', 'gam', 'rulefit' or an estimator"),
    ("prepare", "no", r"must be True or False; got 'no'\."),
    ("full", 1, r"must be True or False; got 1\."),
    ("progress", "loud", r"must be True, False, 'auto', 'bar', 'lines' or 'off'; got 'loud'\."),
    ("features", ("a", "a"), r"names 'a' more than once"),
    ("sage_removals", ("marginal", "exact"), r"must be 'marginal', 'conditional' or both"),
    ("filename", "sub/report.html", r"must be a plain file name"),
    ("extra", [1], r"must be a dict; got list\."),
]


@pytest.fixture
def data_file(tmp_path, monkeypatch):
    """A real CSV, and a record of every table read (there must be none)."""
    import imlkit.report._data as data_module

    path = tmp_path / "d.csv"
    pd.DataFrame({"a": np.arange(30.0), "y": np.arange(30.0) % 7}).to_csv(path, index=False)
    reads = []
    monkeypatch.setattr(data_module, "read_table", lambda p: reads.append(p))
    return path, reads


@pytest.mark.parametrize("option, bad, message", BAD, ids=[b[0] for b in BAD])
def test_the_python_door_names_the_option_before_any_work(option, bad, message, data_file, tmp_path):
    path, reads = data_file
    out = tmp_path / "out"
    start = time.perf_counter()
    with pytest.raises(ik.ValidationError, match=rf"^'{option}' {message}") as caught:
        build_report(**{"data": str(path), "target": "y", "out": str(out), option: bad})
    assert time.perf_counter() - start < 5  # refused at once: nothing fitted
    assert isinstance(caught.value, ReportInputError)
    assert reads == [] and not out.exists()  # no data read, no directory created


@pytest.mark.parametrize("option, bad, message", BAD, ids=[b[0] for b in BAD])
def test_a_command_line_config_names_the_flag(option, bad, message):
    flag = option_flag(option)
    with pytest.raises(ReportInputError, match=rf"^'{flag}' {message}"):
        ReportConfig(command="imlkit report", **{option: bad})


def test_flags_are_the_command_lines():
    from imlkit.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command").choices
    flags = {s for name in ("report", "importance") for a in sub[name]._actions for s in a.option_strings}
    checked = {"seed", "n_refits", "test_size", "max_rows", "n_null", "sage_orderings", "n_jobs", "scheduler",
               "scheduler_timeout", "task", "model", "features", "full", "target_class", "data", "test_data",
               "model_file", "trust_model_file", "methods", "out", "prepare", "sage_removals", "quick", "strict",
               "dataset", "target", "max_features"}
    assert {option_flag(o) for o in checked} <= flags
    assert option_flag("target_class") == "--class" and option_flag("prepare") == "--no-prepare"


@pytest.mark.parametrize("argv, message", [
    (["--seed", "-3"], "'--seed' must be an int in [0, 4294967295]"),
    (["--n-refits", "0"], "'--n-refits' must be an int >= 1; got 0."),
    (["--test-size", "1.5"], "'--test-size' must be a number > 0 and < 1; got 1.5."),
    (["--max-rows", "-1"], "'--max-rows' must be an int >= 100; got -1."),
    (["--n-null", "0"], "'--n-null' must be an int >= 1; got 0."),
    (["--n-jobs", "0"], "'--n-jobs' must be -1 or an int >= 1; got 0."),
    (["--scheduler-timeout", "0"], "'--scheduler-timeout' must be a number > 0; got 0.0."),
    (["--methods", "pfi,magic"], "Unknown method 'magic' in '--methods'"),
    (["--max-rows", "1000", "--full"], "'--max-rows' and '--full' cannot be used together: '--full' uses every row"),
    (["--max-features", "0"], "'--max-features' must be an int >= 1; got 0."),
    (["--max-features", "5", "--full"], "'--max-features' and '--full' cannot be used together"),
])
def test_the_command_line_says_what_it_said(argv, message, data_file, tmp_path, capsys):
    path, reads = data_file
    out = tmp_path / "out"
    code = main(["report", "--data", str(path), "--target", "y", "--quiet", "--out", str(out), *argv])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and f"imlkit: error: {message}" in err, err
    assert reads == [] and not out.exists()


def test_the_model_file_refusal_names_the_door(tmp_path):
    model = tmp_path / "m.joblib"
    model.write_bytes(b"x")
    with pytest.raises(ReportInputError, match=r"Pass 'trust_model_file=True' if you trust its origin"):
        ReportConfig(model_file=str(model))
    with pytest.raises(ReportInputError, match=r"Pass '--trust-model-file' if you trust its origin"):
        ReportConfig(model_file=str(model), command="imlkit report --model-file m.joblib")
    with pytest.raises(ReportInputError, match="'test_data' .* needs 'data'"):
        ReportConfig(test_data=str(model))


def test_the_config_is_frozen_and_replace_checks_again():
    cfg = ReportConfig(methods="PFI, cfi", sage_removals="marginal", seed=np.int64(4))
    assert cfg.methods == ("pfi", "cfi") and cfg.sage_removals == ("marginal",)
    assert cfg.seed == 4 and type(cfg.seed) is int
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.seed = 5
    assert dataclasses.replace(cfg, seed=5).seed == 5 and cfg.seed == 4
    with pytest.raises(ReportInputError, match="^'n_refits' must be an int >= 1; got 0.$"):
        dataclasses.replace(cfg, n_refits=0)


def test_report_all_holds_what_a_user_calls():
    assert {"build_report", "ReportConfig", "run_importance", "ReportInputError", "method_params"} <= \
        set(report.__all__)
    plumbing = {"connect_scheduler", "check_methods", "TASKS", "MIN_MAX_ROWS", "check_seed", "check_features",
                "input_paths", "check_row_options"}
    assert not plumbing & set(report.__all__)
    assert all(hasattr(report, name) for name in report.__all__)
