"""Speed round 3 (issue 22 item 8): the same report, less CPU.

Each change keeps every number and every picture's content; these tests pin what makes the
faster path equal to the slower one.
"""
import base64
import io

import numpy as np
import pytest
from PIL import Image

from imlkit.report import _figures


def _png(uri):
    return Image.open(io.BytesIO(base64.b64decode(uri.split(",", 1)[1])))


def _tight_png(fig, dpi=100):
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight", pad_inches=_figures.PAD_INCHES)
    return Image.open(io.BytesIO(buf.getvalue()))


def _bar_figure(label="a feature name"):
    fig, ax = _figures.new_figure(figsize=(6, 3))
    ax[0, 0].barh([0, 1, 2], [1.0, 2.0, 0.5])
    ax[0, 0].set_yticks([0, 1, 2])
    ax[0, 0].set_yticklabels([label, "b", "c"])
    ax[0, 0].set_title("a title")
    ax[0, 0].set_xlabel("an x label")
    return fig


def test_figure_is_drawn_once_and_cropped_like_a_tight_savefig(monkeypatch):
    from matplotlib.figure import Figure

    draws = []
    real = Figure.draw

    def counting(self, renderer):
        draws.append(type(renderer).__name__)
        return real(self, renderer)

    with _figures.report_style():
        monkeypatch.setattr(Figure, "draw", counting)
        got = _png(_figures.to_data_uri(_bar_figure()))
        assert len(draws) == 1   # savefig(bbox_inches="tight") draws twice
        monkeypatch.setattr(Figure, "draw", real)
        want = _tight_png(_bar_figure())
    # the same picture up to where the box is cut: tight's box is the artists' extents, this one the
    # drawn pixels (a text's box reaches a pixel or two beyond its glyphs)
    assert abs(got.size[0] - want.size[0]) <= 4 and abs(got.size[1] - want.size[1]) <= 4
    a = np.asarray(got.convert("L"), dtype=float)
    b = np.asarray(want.convert("L"), dtype=float)
    assert abs(a.mean() - b.mean()) < 1.0   # the same ink
    # PAD_INCHES of background on every side, and something drawn right inside it
    pad = round(_figures.PAD_INCHES * 100)
    ink = np.asarray(got.convert("L")) < 255
    rows, cols = np.flatnonzero(ink.any(axis=1)), np.flatnonzero(ink.any(axis=0))
    assert (rows[0], cols[0]) == (pad, pad)
    assert (ink.shape[0] - 1 - rows[-1], ink.shape[1] - 1 - cols[-1]) == (pad, pad)


def test_figure_whose_text_leaves_the_canvas_falls_back_to_the_tight_savefig():
    with _figures.report_style():
        fig = _bar_figure()
        fig.text(1.15, 0.5, "a text right of the canvas")   # outside: the one-draw crop would cut it
        got = _png(_figures.to_data_uri(fig))
        fig2 = _bar_figure()
        fig2.text(1.15, 0.5, "a text right of the canvas")
        want = _tight_png(fig2)
    assert got.size[0] > 6 * 100   # grown beyond the 6-inch canvas, as savefig's tight box does
    assert got.size == want.size


def test_opaque_figure_is_stored_without_alpha_and_a_transparent_one_with_it():
    with _figures.report_style():
        assert _png(_figures.to_data_uri(_bar_figure())).mode == "RGB"
        fig = _bar_figure()
        fig.patch.set_alpha(0.0)
        assert _png(_figures.to_data_uri(fig)).mode == "RGBA"


@pytest.mark.parametrize("dpi", [50, 100])
def test_figure_drawn_at_the_asked_dpi(dpi):
    with _figures.report_style():
        got = _png(_figures.to_data_uri(_bar_figure(), dpi=dpi))
        want = _tight_png(_bar_figure(), dpi=dpi)
    assert abs(got.size[0] - want.size[0]) <= 4 and abs(got.size[1] - want.size[1]) <= 4


def test_drawn_pixels_at_the_canvas_edge_fall_back_to_the_tight_savefig(monkeypatch):
    from matplotlib.figure import Figure

    def fig_():
        fig = _bar_figure()
        # an Axes text the layout does not fit (in_layout=False), crossing the canvas' right edge
        fig.axes[0].text(0.95, 0.5, "a long text that crosses the edge", transform=fig.axes[0].transAxes,
                         in_layout=False)
        return fig

    saved = []
    real = Figure.savefig
    monkeypatch.setattr(Figure, "savefig", lambda self, *a, **k: saved.append(k) or real(self, *a, **k))
    with _figures.report_style():
        got = _png(_figures.to_data_uri(fig_()))
        assert [k.get("bbox_inches") for k in saved] == ["tight"]
        want = _tight_png(fig_())
    assert got.size == want.size


def test_layout_that_gives_up_falls_back_to_the_tight_savefig():
    def fig_():
        fig, ax = _figures.new_figure(figsize=(1.0, 0.6))
        ax[0, 0].set_yticks([0, 1])
        ax[0, 0].set_yticklabels(["a rather long tick label", "b"])
        ax[0, 0].set_title("a title much wider than the figure")
        return fig

    with _figures.report_style():
        with pytest.warns(UserWarning, match="constrained_layout not applied"):
            got = _png(_figures.to_data_uri(fig_()))
        with pytest.warns(UserWarning, match="constrained_layout not applied"):
            want = _tight_png(fig_())
    assert got.size == want.size
    assert got.size[0] > 100


def _free_of_by_definition(forest, j):
    """1 per node whose subtree holds no split on column j: each node's subtree walked."""
    kind, feature = np.asarray(forest.kind), np.asarray(forest.feature)
    left, right = np.asarray(forest.left), np.asarray(forest.right)
    out = np.ones(len(kind), dtype=np.uint8)
    for nd in range(len(kind)):
        stack = [nd]
        while stack:
            u = stack.pop()
            if kind[u] >= 0:
                if feature[u] == j:
                    out[nd] = 0
                    break
                stack += [left[u], right[u]]
    return out


@pytest.mark.parametrize("kind", ["hgb", "forest", "gbm"])
def test_free_of_and_tree_split_match_their_definitions(kind):
    from sklearn.datasets import load_diabetes
    from sklearn.ensemble import GradientBoostingRegressor, HistGradientBoostingRegressor, RandomForestRegressor

    from imlkit._trees import _engine

    X, y = load_diabetes(return_X_y=True, as_frame=True)
    model = {"hgb": HistGradientBoostingRegressor(max_iter=15, random_state=0),
             "forest": RandomForestRegressor(n_estimators=6, max_depth=6, random_state=0),
             "gbm": GradientBoostingRegressor(n_estimators=12, max_depth=3, random_state=0)}[kind].fit(X, y)
    tm = _engine.tree_model(model, X, fresh=True)
    f = tm.forest
    tree_of = np.repeat(np.arange(len(f.roots)), np.diff(np.append(f.roots, len(f.feature))))
    for j in range(X.shape[1] + 1):   # the last: a column no tree splits on
        np.testing.assert_array_equal(_engine._free_of(tm, j), _free_of_by_definition(f, j))
        splits = (np.asarray(f.feature) == j) & (np.asarray(f.kind) >= 0)
        using, skipped = _engine._tree_split(tm, j)
        np.testing.assert_array_equal(using, np.unique(tree_of[splits]))
        np.testing.assert_array_equal(np.sort(np.concatenate([using, skipped])), np.arange(len(f.roots)))
