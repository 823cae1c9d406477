"""The command never touches its inputs, checks its output first, and turns bad input into one line.

Issue 21 items 5-6: a data file named ``report.html`` inside ``--out`` was overwritten by the
report; ``--out`` under a file was found only after the whole computation; inf in the target,
a seed beyond numpy's range, repeated ``--features`` and duplicate CSV headers ended in
tracebacks or silent renames; SIGTERM left the temporary file and the loky workers behind.
"""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time

import numpy as np
import pandas as pd
import pytest

from imlkit.cli import main
from imlkit.report import ReportInputError, build_report, read_table

SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")


def _frame(n=120, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    frame["y"] = X[:, 0] + 0.1 * rng.normal(size=n)
    return frame


def _run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _one_error_line(err):
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith("imlkit: error: "), err
    assert "Traceback" not in err
    return lines[0]


def test_data_file_named_like_the_report_is_never_overwritten(tmp_path, capsys):
    trap = tmp_path / "trap"
    trap.mkdir()
    data = trap / "report.html"
    _frame().to_csv(data, index=False)
    before = data.read_bytes()
    code, _, err = _run(["report", "--data", str(data), "--target", "y", "--out", str(trap), "--quick",
                         "--methods", "pfi", "--quiet"], capsys)
    assert code == 2
    line = _one_error_line(err)
    assert "would overwrite the data file" in line
    assert data.read_bytes() == before
    assert sorted(os.listdir(trap)) == ["report.html"]  # no probe or temporary file left either
    # the same check from Python, and through a symbolic link to the data file
    with pytest.raises(ReportInputError, match="would overwrite the data file"):
        build_report(data=str(data), target="y", out=str(trap), quick=True, methods=("pfi",))
    other = tmp_path / "other"
    other.mkdir()
    os.symlink(data, other / "report.html")
    with pytest.raises(ReportInputError, match="would overwrite the data file"):
        build_report(data=str(data), target="y", out=str(other), quick=True, methods=("pfi",))
    assert data.read_bytes() == before


def test_model_file_and_test_data_are_inputs_too(tmp_path):
    from imlkit.report import ReportConfig
    from imlkit.report._config import input_paths

    model = tmp_path / "report.html"
    model.write_bytes(b"not a model")
    cfg = ReportConfig(data=None, model_file=str(model), trust_model_file=True, out=str(tmp_path))
    assert ("model file", str(model)) in input_paths(cfg)
    with pytest.raises(ReportInputError, match="would overwrite the model file"):
        build_report(cfg)
    assert model.read_bytes() == b"not a model"

    held_out = ReportConfig(data=str(tmp_path / "d.csv"), test_data=str(model))  # test_data needs data
    assert ("test data file", str(model)) in input_paths(held_out)


def test_out_under_a_file_is_refused_before_any_work(tmp_path, capsys):
    data = tmp_path / "d.csv"
    _frame().to_csv(data, index=False)
    start = time.perf_counter()
    code, _, err = _run(["report", "--data", str(data), "--target", "y", "--out", str(data / "sub"), "--quiet"],
                        capsys)
    assert code == 2
    assert "cannot be created: a part of the path is a file" in _one_error_line(err)
    assert time.perf_counter() - start < 5  # the default (minutes-long) report was never started


def test_unwritable_out_is_refused_before_any_work_and_leaves_nothing(tmp_path, capsys, monkeypatch):
    # The machine's tests may run as root, for whom chmod cannot make a directory unwritable:
    # the probe's failure is simulated where the probe is written.
    import tempfile

    import imlkit.report._data as data_module

    data = tmp_path / "d.csv"
    _frame().to_csv(data, index=False)
    real = tempfile.mkstemp

    def refuse(*args, **kwargs):
        if str(kwargs.get("prefix", "")).startswith(".imlkit-probe-"):
            raise PermissionError(13, "Permission denied")
        return real(*args, **kwargs)

    read = []
    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    monkeypatch.setattr(data_module, "read_table", lambda path: read.append(path))
    out = tmp_path / "new" / "dir"
    code, _, err = _run(["report", "--data", str(data), "--target", "y", "--out", str(out), "--quiet"], capsys)
    assert code == 2
    assert "is not writable: Permission denied" in _one_error_line(err)
    assert read == []  # refused before the data were read
    assert not (tmp_path / "new").exists()  # the directories this run created are removed again


@pytest.mark.parametrize("case, extra, message", [
    ("inf_target", [], r"Regression target 'y' holds 1 infinite value\(s\)"),
    ("good", ["--seed", "99999999999999"], r"'--seed' must be an int in \[0, 4294967295\]"),
    ("good", ["--seed", "-1"], r"'--seed' must be an int in \[0, 4294967295\]"),
    ("good", ["--features", "a,a,b"], r"'--features' names 'a' more than once"),
    ("duplicate_header", [], r"has the column name 'a' more than once \(columns 1, 2\)"),
])
@pytest.mark.parametrize("command", ["report", "importance"])
def test_bad_input_is_one_line_and_exit_2(case, extra, message, command, tmp_path, capsys):
    frame = _frame()
    path = tmp_path / f"{case}.csv"
    if case == "inf_target":
        frame.loc[5, "y"] = np.inf
        frame.to_csv(path, index=False)
    elif case == "duplicate_header":
        frame.columns = ["a", "a", "c", "y"]
        frame.to_csv(path, index=False)
    else:
        frame.to_csv(path, index=False)
    argv = [command, "--data", str(path), "--target", "y", "--quick", "--quiet", *extra]
    argv += ["--methods", "pfi", "--out", str(tmp_path / "out")] if command == "report" else ["--method", "pfi"]
    code, out, err = _run(argv, capsys)
    assert code == 2, err
    assert re.search(message, _one_error_line(err)), err
    assert out == ""


def test_duplicate_target_name_is_never_picked_silently(tmp_path):
    path = tmp_path / "dup.csv"
    path.write_text("a,a,y\n" + "".join(f"{i},{2 * i},{i % 3}\n" for i in range(30)))
    with pytest.raises(ReportInputError, match=r"'a' more than once .*'a\.1'"):
        build_report(data=str(path), target="a", out=str(tmp_path / "o"), quick=True, methods=("pfi",))
    assert not (tmp_path / "o").exists()


def test_python_door_checks_seed_and_features(tmp_path):
    frame = _frame()
    with pytest.raises(ReportInputError, match=r"'seed' must be an int in \[0, 4294967295\] .*; got 99999999999999"):
        build_report(data=frame, target="y", seed=99_999_999_999_999, out=str(tmp_path / "o"))
    with pytest.raises(ReportInputError, match="'features' names 'b' more than once"):
        build_report(data=frame, target="y", features=("b", "a", "b"), out=str(tmp_path / "o"))
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("sep, decimal", [(";", ","), (";", "."), ("\t", "."), ("|", ".")])
def test_other_delimiters_are_sniffed_and_read(sep, decimal, tmp_path):
    import warnings

    frame = _frame(40)
    path = tmp_path / "data.csv"
    frame.to_csv(path, index=False, sep=sep, decimal=decimal)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = read_table(str(path))
    pd.testing.assert_frame_equal(got, frame, check_exact=False, rtol=1e-12)
    words = {";": "semicolon", "\t": "tab", "|": "pipe"}[sep]
    assert any(f"read as {words}-separated" in str(w.message) for w in caught)
    # a comma file is read as before, without a note
    frame.to_csv(path, index=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pd.testing.assert_frame_equal(read_table(str(path)), frame, check_exact=False, rtol=1e-12)
    assert not [w for w in caught if "separated" in str(w.message)]


def test_sigterm_writes_no_temporary_file(tmp_path, monkeypatch):
    # SIGTERM while the report is being written: the handler raises where the program runs and the
    # atomic write removes its temporary file, exactly as for Ctrl-C.
    import imlkit.cli as cli
    import imlkit.report._render as render

    target = tmp_path / "report.html"

    def fsync_then_term(fd):
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(1)  # the handler runs at the next bytecode; never reached

    monkeypatch.setattr(render.os, "fsync", fsync_then_term)
    with cli._signals_and_warnings():
        with pytest.raises(KeyboardInterrupt):
            render.write_atomic(str(target), "x" * 100_000)
    assert os.listdir(tmp_path) == []
    assert signal.getsignal(signal.SIGTERM) is not cli._on_sigterm  # the previous handler is back


def _children(pid):
    kids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            kids.append(int(entry))
    return kids


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.slow
@pytest.mark.skipif(not os.path.isdir("/proc") or sys.platform != "linux", reason="reads /proc")
def test_sigterm_mid_run_stops_the_workers_and_exits_143(tmp_path):
    data = tmp_path / "d.csv"
    _frame(400).to_csv(data, index=False)
    out = tmp_path / "out"
    env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""), OMP_NUM_THREADS="1")
    log = tmp_path / "stderr.txt"
    with open(log, "w") as err:  # a file, not a pipe: an orphaned worker holding a pipe would hang the test
        proc = subprocess.Popen(
            [sys.executable, "-c", "import sys; from imlkit.cli import main; sys.exit(main())", "report",
             "--data", str(data), "--target", "y", "--quick", "--n-jobs", "2", "--out", str(out),
             "--methods", "pfi,cfi,loco,sage,pimp"],
            stdout=subprocess.DEVNULL, stderr=err, env=env)
    workers = []
    try:
        deadline = time.time() + 90
        # PFI, the first parallel step, starts after the model-scores figure; loky's workers (and
        # its resource tracker) are children of the command
        while time.time() < deadline and proc.poll() is None and (
                "] figure: model scores (" not in log.read_text() or len(workers) < 2):
            time.sleep(0.2)
            workers = _children(proc.pid)
        assert len(workers) >= 2, log.read_text()
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    rest = log.read_text()
    try:
        assert code == 143, rest
        assert rest.strip().splitlines()[-1] == "imlkit: terminated; no report was written."
        deadline = time.time() + 15
        while time.time() < deadline and any(_alive(w) for w in workers):
            time.sleep(0.2)
        assert not [w for w in workers if _alive(w)]
    finally:  # a failing run must not leave this test's orphans idling on the machine
        for w in workers:
            if _alive(w):
                os.kill(w, signal.SIGKILL)
    leftovers = os.listdir(out) if out.exists() else []
    assert not [f for f in leftovers if f.endswith(".tmp")] and "report.html" not in leftovers


def test_importance_table_escapes_and_shortens_names(tmp_path, capsys):
    frame = _frame()
    hostile, long = "a\x1b]0;PWNED\x07", "b" * 5000
    frame.columns = [hostile, long, "c", "y"]
    path = tmp_path / "d.csv"
    frame.to_csv(path, index=False)
    code, out, err = _run(["importance", "--method", "pfi", "--data", str(path), "--target", "y", "--quick",
                           "--quiet"], capsys)
    assert code == 0, err
    assert "\x1b" not in out and "\x07" not in out
    assert "a\\x1b]0;PWNED\\x07" in out and "b" * 40 + "…" in out and "b" * 41 not in out
