"""The corpus of real tables: data nobody here wrote, plus corrupted copies made on the spot.

Shared by ``tests/corpus/test_corpus.py`` (``--quick`` with a reduced method set) and
``bench/corpus.py`` (every method, outcome and seconds per table). Each table is written as a
CSV into a directory the caller gives, so the report reads it exactly as a user's file.

Sources: scikit-learn's bundled data sets (diabetes, breast cancer, wine, iris) and
statsmodels' bundled data sets (fair, spector, star98, grunfeld, anes96, modechoice).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

SEED = 0
TEST_SIZE = 0.3


@dataclass(frozen=True)
class Table:
    """One corpus entry: how to make its CSV and how to run the report on it."""

    name: str
    target: str
    make: object  # callable() -> DataFrame
    methods: str = "pfi,effects"  # the reduced set of the test run
    args: tuple = ()
    info: dict = field(default_factory=dict)
    #: callable(directory, data path) -> more argv, for tables that come with files of their own
    #: (a user's fitted model and held-out rows)
    files: object = None

    def write(self, directory):
        path = os.path.join(str(directory), f"{self.name}.csv")
        if not os.path.exists(path):
            self.make().to_csv(path, index=False)
        return path

    def argv(self, directory, out, methods=None, quick=True):
        data = self.write(directory)
        more = list(self.files(directory, data)) if self.files is not None else []
        argv = ["report", "--data", data, "--target", self.target, "--out", str(out),
                "--seed", str(SEED), "--methods", methods or self.methods, *self.args, *more]
        return argv + (["--quick"] if quick else [])


# --------------------------------------------------------------------------- sources
def _sklearn(name):
    from sklearn import datasets

    bunch = getattr(datasets, f"load_{name}")(as_frame=True)
    frame = bunch.frame.copy()
    if name != "diabetes":  # class targets as their names, as a user's table would have them
        frame["target"] = np.asarray(bunch.target_names)[bunch.target]
    return frame


def _statsmodels(name):
    import statsmodels.api as sm

    return getattr(sm.datasets, name).load_pandas().data.copy()


def _fair():
    # 6,366 rows; a fixed 1,500-row sample keeps the quick run short and is still a real table.
    return _statsmodels("fair").sample(1500, random_state=SEED).reset_index(drop=True)


def _anes96():
    frame = _statsmodels("anes96")
    frame["vote"] = np.where(frame["vote"] == 1, "Dole", "Clinton")
    return frame


def _modechoice():
    # One row per (individual, mode): "individual" repeats 4 times -- a real grouping column.
    frame = _statsmodels("modechoice")
    frame["mode"] = frame["mode"].map({1: "air", 2: "train", 3: "bus", 4: "car"})
    frame["choice"] = np.where(frame["choice"] == 1, "chosen", "not chosen")
    return frame


def _grunfeld():
    return _statsmodels("grunfeld")


# --------------------------------------------------------------------------- corrupted copies
def _rng(k):
    return np.random.default_rng([SEED, k])


def diabetes_with_dates():
    frame = _sklearn("diabetes")
    frame.insert(0, "visit_date", pd.date_range("2011-01-01", periods=len(frame), freq="D").strftime("%Y-%m-%d"))
    return frame


def diabetes_with_ids():
    frame = _sklearn("diabetes")
    rng = _rng(1)
    frame.insert(0, "patient", [f"P{i:05d}" for i in rng.permutation(len(frame))])
    frame.insert(1, "row", np.arange(1, len(frame) + 1))
    frame.insert(2, "household", [f"H{i // 2:04d}" for i in range(len(frame))])  # two rows per ID
    return frame


def diabetes_with_missing():
    frame = _sklearn("diabetes")
    rng = _rng(2)
    frame["lab_value"] = np.where(rng.random(len(frame)) < 0.9, np.nan, rng.normal(size=len(frame)))
    frame.loc[rng.random(len(frame)) < 0.2, "bmi"] = np.nan
    frame.loc[rng.random(len(frame)) < 0.1, "s5"] = np.nan
    frame.loc[[3, 17, 40], "target"] = np.nan
    return frame


def split_test_rows(n, seed=SEED, test_size=TEST_SIZE, stratify=None):
    """Row positions of the report's test split for ``n`` rows (``stratify``: a class target's labels)."""
    from sklearn.model_selection import train_test_split

    _, test = train_test_split(np.arange(n), test_size=test_size, random_state=seed, stratify=stratify)
    return np.sort(test)


def diabetes_with_test_only_level():
    """A clinic column whose level "zeta" (6 rows, kept) and "omega" (1 row, lumped) occur only in test rows."""
    frame = _sklearn("diabetes")
    rng = _rng(3)
    frame["clinic"] = rng.choice(["north", "south", "east"], size=len(frame))
    rows = split_test_rows(len(frame))
    frame.loc[rows[:6], "clinic"] = "zeta"
    frame.loc[rows[6], "clinic"] = "omega"
    return frame


def diabetes_with_constants():
    frame = _sklearn("diabetes")
    frame["site"] = "A"
    frame["version"] = 2.0
    return frame


def diabetes_32_rows():
    return _sklearn("diabetes").sample(32, random_state=SEED).reset_index(drop=True)


def breast_cancer_with_leak():
    frame = _sklearn("breast_cancer")
    rng = _rng(4)
    code = (frame["target"] == "malignant").astype(float)
    frame["billing_code"] = code * 10 + rng.normal(scale=0.5, size=len(frame))
    return frame


def breast_cancer_confident_miss():
    """A good classifier with a heavy-tailed log loss: one test row, the most clearly malignant tumour (the
    largest 'worst area' among the malignant rows that land in the stratified test split), labelled benign.

    The model's probability of "benign" for that row is about 0, so its log loss is huge while accuracy and
    AUC stay high: the row a forest or a boosted model misses with confidence.
    """
    frame = _sklearn("breast_cancer")
    malignant = frame.loc[frame["target"] == "malignant", "worst area"].sort_values(ascending=False).index
    for row in malignant:
        y = frame["target"].copy()
        y[row] = "benign"
        if row in split_test_rows(len(frame), stratify=y):
            frame["target"] = y
            frame.attrs["miss"] = int(row)
            return frame
    raise RuntimeError("no malignant row lands in the test split")


def diabetes_near_collinear():
    """bmi and a noisy copy of it: 'bmi_twin' = bmi + noise of 10% of bmi's spread (R² on the others ~0.99)."""
    frame = _sklearn("diabetes")
    rng = _rng(5)
    frame.insert(3, "bmi_twin", frame["bmi"] + rng.normal(scale=0.1 * frame["bmi"].std(), size=len(frame)))
    return frame


def iris_one_row_class():
    """One row relabelled to a class of its own ("rare"): too rare for both splits, set aside (not a crash)."""
    frame = _sklearn("iris")
    frame.loc[7, "target"] = "rare"
    return frame


def diabetes_user_split():
    """The training 75% of diabetes under a user's own split (seed 11); its other rows are written by
    ``user_model_files`` as the held-out table, beside a model the user fitted on these rows."""
    frame = _sklearn("diabetes")
    return frame.loc[_user_rows(len(frame))[0]].reset_index(drop=True)


def _user_rows(n):
    order = np.random.default_rng(11).permutation(n)
    cut = int(0.75 * n)
    return np.sort(order[:cut]), np.sort(order[cut:])


def user_model_files(directory, data):
    """A Ridge pipeline fitted by the user on their own training rows (pickled), and their held-out rows:
    ``--model-file M --trust-model-file --test-data T``. The report must score on T only."""
    import pickle

    from sklearn.linear_model import Ridge
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    frame = _sklearn("diabetes")
    test_path = os.path.join(str(directory), "diabetes_user_test.csv")
    model_path = os.path.join(str(directory), "diabetes_user_model.pkl")
    if not os.path.exists(model_path):
        train_rows, test_rows = _user_rows(len(frame))
        train = frame.loc[train_rows]
        frame.loc[test_rows].to_csv(test_path, index=False)
        model = make_pipeline(StandardScaler(), Ridge(alpha=1.0)).fit(train.drop(columns="target"), train["target"])
        with open(model_path, "wb") as fh:
            pickle.dump(model, fh)
    return ["--model-file", model_path, "--trust-model-file", "--test-data", test_path]


TABLES = [
    Table("diabetes", "target", lambda: _sklearn("diabetes")),
    Table("breast_cancer", "target", lambda: _sklearn("breast_cancer"), methods="pfi"),
    Table("wine", "target", lambda: _sklearn("wine")),
    Table("iris", "target", lambda: _sklearn("iris")),
    Table("fair", "affairs", _fair),
    Table("spector", "GRADE", lambda: _statsmodels("spector")),
    Table("star98", "NABOVE", lambda: _statsmodels("star98"), methods="pfi"),
    Table("grunfeld", "invest", _grunfeld),
    Table("anes96", "vote", _anes96),
    Table("modechoice", "choice", _modechoice),
    Table("diabetes_dates", "target", diabetes_with_dates),
    Table("diabetes_ids", "target", diabetes_with_ids),
    Table("diabetes_missing", "target", diabetes_with_missing, methods="pfi"),
    Table("diabetes_test_only_level", "target", diabetes_with_test_only_level, args=("--model", "glm")),
    Table("diabetes_constants", "target", diabetes_with_constants),
    Table("diabetes_32_rows", "target", diabetes_32_rows),
    Table("breast_cancer_leak", "target", breast_cancer_with_leak, methods="pfi"),
    Table("breast_cancer_confident_miss", "target", breast_cancer_confident_miss, methods="pfi"),
    Table("diabetes_near_collinear", "target", diabetes_near_collinear, methods="pfi,cfi"),
    # the quick PIMP (10 null refits, Holm over 10 features): an empirical null cannot reach 0.05 (floor
    # min(1, 10/11)) whatever the data, so the report does not run it and says so
    Table("diabetes_pimp_floor", "target", lambda: _sklearn("diabetes"), methods="pfi,pimp"),
    Table("iris_one_row_class", "target", iris_one_row_class, methods="pfi,cfi,loco,sage,pimp"),
    Table("diabetes_user_split", "target", diabetes_user_split, methods="pfi,loco", files=user_model_files),
]
BY_NAME = {t.name: t for t in TABLES}
