"""Round 5 of issue 22: the wide-table bench builds the ISLP tables (NCI60 among them) from a directory it is given.

The ISLP files are not shipped; these tests write small files with the same names and layout
(a gene matrix as ``.npy`` or CSV, the labels as a one-column CSV) and check the tables the bench
builds from them: one row per sample, every gene a column, the labels as the target column.
"""
from __future__ import annotations

import os
import sys

import numpy as np
import pandas as pd
import pytest

BENCH = os.path.join(os.path.dirname(__file__), "..", "..", "bench")


@pytest.fixture()
def report_wide():
    sys.path.insert(0, os.path.abspath(BENCH))
    try:
        import report_wide

        yield report_wide
    finally:
        sys.path.remove(os.path.abspath(BENCH))


def _islp_like(directory, rng):
    genes = rng.normal(size=(7, 5))
    np.save(os.path.join(directory, "NCI60data.npy"), genes)
    labels = ["CNS", "CNS", "RENAL", "BREAST", "RENAL", "K562A-repro", "CNS"]
    pd.DataFrame({"label": labels}).to_csv(os.path.join(directory, "NCI60labs.csv"), index=False)
    khan = pd.DataFrame(rng.normal(size=(6, 310)), columns=[f"V{j + 1}" for j in range(310)])
    khan.to_csv(os.path.join(directory, "Khan_xtrain.csv"), index=False)
    pd.DataFrame({"x": [1, 2, 4, 3, 2, 1]}).to_csv(os.path.join(directory, "Khan_ytrain.csv"), index=False)
    return genes, labels, khan


def test_islp_tables_build_nci60_and_khan(report_wide, tmp_path):
    src, out = tmp_path / "islp", tmp_path / "out"
    src.mkdir()
    out.mkdir()
    genes, labels, khan = _islp_like(str(src), np.random.default_rng(0))
    tables = {name: (path, target) for name, path, target in report_wide.islp_tables(str(src), str(out))}
    assert set(tables) == {"nci60", "khan", "khan300"}  # no Caravan.csv in the directory: no caravan table
    path, target = tables["nci60"]
    got = pd.read_csv(path)
    assert target == "label" and got.shape == (7, 6)
    np.testing.assert_allclose(got.drop(columns="label").to_numpy(), genes, rtol=1e-15)
    assert got["label"].tolist() == labels
    k = pd.read_csv(tables["khan"][0])
    assert k.shape == (6, 311) and k["y"].tolist() == [1, 2, 4, 3, 2, 1]
    np.testing.assert_allclose(k.drop(columns="y").to_numpy(), khan.to_numpy(), rtol=1e-15)
    k300 = pd.read_csv(tables["khan300"][0])
    assert list(k300.columns) == [f"V{j + 1}" for j in range(300)] + ["y"]


def test_islp_tables_only_the_names_asked(report_wide, tmp_path):
    src, out = tmp_path / "islp", tmp_path / "out"
    src.mkdir()
    out.mkdir()
    _islp_like(str(src), np.random.default_rng(1))
    got = report_wide.islp_tables(str(src), str(out), names=("nci60",))
    assert [name for name, _, _ in got] == ["nci60"]
    assert not os.path.exists(out / "khan.csv")
