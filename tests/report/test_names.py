"""Hostile column names (issue 21 item 7): escaped for the terminal and the page, bounded in figures.

A name with terminal escape sequences was written raw to stderr (retitling and recolouring
the user's terminal) and left raw control characters in the HTML; a 200,000-character name
took 12 GB and six minutes because matplotlib laid it out and rasterised it at full length.
"""
from __future__ import annotations

import base64
import io
import re
import time

import numpy as np
import pandas as pd
import pytest

from imlkit._names import NAME_LIMIT, escape_controls, short_label, short_name, terminal_safe

HOSTILE = "ev\x1b]0;PWNED\x07il\x1b[31mred\u202eevil\x9b2J"
RAW_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def test_escape_controls_writes_every_control_as_a_visible_escape():
    out = terminal_safe(HOSTILE + "\nnext\tline\r")
    assert not RAW_CONTROL.search(out) and "\n" not in out and "\t" not in out
    assert out == r"ev\x1b]0;PWNED\x07il\x1b[31mred\u202eevil\x9b2J\nnext\tline\r"
    # layout kept in a block of text; printable characters of any script untouched
    assert escape_controls("a\tb\nc\x1b", keep_layout=True) == "a\tb\nc\\x1b"
    assert escape_controls("Größe × ² – €\u2009µ") == "Größe × ² – €\u2009µ"


def test_short_name_and_short_label_bound_long_names():
    assert short_name("temp") == "temp"
    assert short_name("x" * NAME_LIMIT) == "x" * NAME_LIMIT
    assert short_name("x" * 200_000) == "x" * NAME_LIMIT + "…"
    assert short_name("a\x1bb") == "a\\x1bb"
    long = "y" * 200_000
    start = time.perf_counter()
    label = short_label(f"ICE of {long} and {long}")
    assert time.perf_counter() - start < 0.5
    assert label == "ICE of " + "y" * NAME_LIMIT + "… and " + "y" * NAME_LIMIT + "…"
    assert len(short_label("word " * 1000)) == 201  # the whole text cut at LABEL_LIMIT, plus "…"
    with pytest.raises(ValueError, match="'limit' must be an int >= 1; got 0"):
        short_name("a", limit=0)


def _png_size(uri):
    from PIL import Image

    return Image.open(io.BytesIO(base64.b64decode(uri.split(",", 1)[1]))).size


def test_report_figures_bound_a_200k_tick_label_and_title():
    from imlkit.report._figures import draw_dependence, new_figure, report_style, to_data_uri

    long = "z" * 200_000
    r2 = pd.Series([0.2, 0.9, 0.5], index=[long, "b", HOSTILE])
    start = time.perf_counter()
    with report_style():
        fig, ax = new_figure(figsize=(6, 2))
        draw_dependence(r2, ax[0, 0], 0.8)
        ax[0, 0].set_title(f"Effect of {long}")
        ax[0, 0].legend([ax[0, 0].patches[0]], [long])
        uri = to_data_uri(fig)
    assert time.perf_counter() - start < 20  # was minutes and gigabytes
    width, height = _png_size(uri)
    assert width < 2000 and height < 1000  # the 6-inch figure at 100 dpi, not 17,000 inches
    labels = [t.get_text() for t in ax[0, 0].get_yticklabels()]
    assert "z" * NAME_LIMIT + "…" in labels and escape_controls(HOSTILE) in labels


def test_plotting_sizes_figures_from_shortened_names():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from imlkit.importance._result import ImportanceResult

    long = "w" * 200_000
    result = ImportanceResult(method="pfi", feature_names=(long, "b"), importance=np.array([1.0, 0.5]),
                              std=np.array([0.1, 0.1]), ci_low=np.array([0.8, 0.3]), ci_high=np.array([1.2, 0.7]),
                              loss="squared_error", baseline_loss=1.0, params={})
    ax = result.plot()
    try:
        assert ax.figure.get_figwidth() < 15
        assert sorted(t.get_text() for t in ax.get_yticklabels()) == ["b", "w" * NAME_LIMIT + "…"]
    finally:
        plt.close(ax.figure)


def test_html_shortens_long_names_with_a_tooltip_and_escapes_controls():
    from imlkit.report._blocks import Section, table, text
    from imlkit.report._render import TOOLTIP_LIMIT, render_html

    long = "q" * 5000
    sections = [Section("data", "1. Data", [
        text(f"The most important feature is {long} <b>, then {HOSTILE}."),
        table(["feature", "importance"], [[long, 1.0], [HOSTILE, 0.5], ["<i>", 0.1]]),
    ])]
    html = render_html(sections, title="t", subtitle="s", version="0", created="now",
                       names=[long, HOSTILE, "<i>"])
    assert not RAW_CONTROL.search(html)
    assert "\\x1b]0;PWNED\\x07" in html  # the name is shown, escaped, never executed
    short = "q" * NAME_LIMIT + "…"
    assert html.count(f">{short}</span>") == 2  # in the sentence and in the table
    assert f'title="{"q" * TOOLTIP_LIMIT}… (5,000 characters in all)"' in html
    assert "q" * (TOOLTIP_LIMIT + 1) not in html
    assert "&lt;b&gt;" in html and "&lt;i&gt;" in html and "<b>" not in html and "<i>" not in html


def test_progress_lines_and_failure_lines_escape_names(capsys):
    from imlkit.report._progress import Progress

    p = Progress("lines")
    p.done(f"ALE: {HOSTILE}", 0.1)
    p.done(f"ICE + PD: {'n' * 200_000}", 0.1)
    err = capsys.readouterr().err
    assert not RAW_CONTROL.search(err)
    assert "ALE: ev\\x1b]0;PWNED\\x07il" in err
    assert len(err.splitlines()[1]) < 200


def test_cli_report_with_an_escape_name_keeps_the_terminal_and_page_clean(tmp_path, capsys):
    from imlkit.cli import main

    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(80, 2)), columns=[HOSTILE, "b"])
    frame["y"] = frame[HOSTILE] + 0.1 * rng.normal(size=80)
    path = tmp_path / "d.csv"
    frame.to_csv(path, index=False)
    code = main(["report", "--data", str(path), "--target", "y", "--quick", "--methods", "effects",
                 "--out", str(tmp_path / "out")])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "ALE: ev\\x1b]0;PWNED" in err
    assert not RAW_CONTROL.search(err + out)
    html = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    assert not RAW_CONTROL.search(html)
    # an error naming the column is one escaped line too
    code = main(["report", "--data", str(path), "--target", HOSTILE + "x", "--out", str(tmp_path / "o2")])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and not RAW_CONTROL.search(err)
