"""``--task auto`` guesses the task from the target; section 1 says it was guessed, by which rule and with which
numbers (distinct values, whole or not), and how to change it. A task the user gave is not commented on."""
import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_diabetes, load_iris

from imlkit.report import ReportConfig
from imlkit.report._build import prepare_context
from imlkit.report._data import load_dataset
from imlkit.report._sec_data import section_data


def _iris():
    X, y = load_iris(return_X_y=True, as_frame=True)
    return X.assign(species=y)


def _diabetes():
    X, y = load_diabetes(return_X_y=True, as_frame=True)
    return X.assign(progression=y)


def _texts(section):
    return [b["text"] for b in section["blocks"] if isinstance(b, dict) and "text" in b]


def test_integer_classes_are_said_with_their_values_and_the_way_to_a_regression():
    df = _iris()
    ds = load_dataset(df, target="species")
    values = sorted(df["species"].unique())
    assert ds.task == "classification"
    assert ds.task_reason == (f"The task was guessed (--task auto): the target 'species' has {len(values)} distinct "
                              f"integer values ({', '.join(str(v) for v in values)}): read as classes (use --task "
                              f"regression to treat it as a number).")


def test_many_whole_numbers_are_said_to_be_a_regression_target_with_their_count():
    df = _diabetes()  # the disease progression: whole numbers stored as floats
    assert np.all(df["progression"] == np.round(df["progression"]))
    ds = load_dataset(df, target="progression")
    k = df["progression"].nunique()
    assert k > 10 and ds.task == "regression"
    assert ds.task_reason == (f"The task was guessed (--task auto): the target 'progression' has {k:,} distinct "
                              f"integer values, more than 10: read as a regression target (use --task "
                              f"classification to read its values as classes).")


def test_fractional_and_text_targets_say_their_reason():
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"x": rng.normal(size=60)})
    df["y"] = np.round(df["x"] * 3 + rng.normal(size=60), 1)
    ds = load_dataset(df, target="y")
    assert ds.task == "regression"
    assert ds.task_reason == (f"The task was guessed (--task auto): the target 'y' has {df['y'].nunique():,} "
                              f"distinct values, not all whole numbers: read as a regression target.")
    df["y"] = np.where(df["x"] > 0, "up", "down")
    ds = load_dataset(df, target="y")
    assert ds.task == "classification"
    assert ds.task_reason == (f"The task was guessed (--task auto): the target 'y' is not numeric (dtype "
                              f"{df['y'].dtype}, 2 distinct values): read as classes.")


@pytest.mark.parametrize("task", ["regression", "classification"])
def test_a_given_task_gets_no_reason(task):
    ds = load_dataset(_iris(), target="species", task=task)
    assert ds.task == task and ds.task_reason == ""


def test_section_one_prints_the_reason_only_when_the_task_was_guessed():
    df = _iris()
    ctx = prepare_context(ReportConfig(data=df, target="species", methods="pfi"))
    said = _texts(section_data(ctx))
    assert ctx.data.task_reason in said
    assert said.index(ctx.data.task_reason) == 1  # right after the sentence that names the task
    ctx = prepare_context(ReportConfig(data=df, target="species", task="classification", methods="pfi"))
    assert not any("guessed" in t for t in _texts(section_data(ctx)))
