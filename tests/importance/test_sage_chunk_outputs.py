"""SAGE's chunk of hybrid rows shrinks with the model's outputs per row (review rev8 r3-12: 1,000 classes, a 3.15 GiB
report, 2^19 hybrid rows x 1,000 probabilities = 4.2 GB per chunk)."""
import numpy as np

from imlkit.importance._sage_game import _CHUNK_OUTPUTS, _CHUNK_ROWS, SageGame


def _game(outputs, n_draws=32, max_rows=None):
    g = SageGame.__new__(SageGame)
    g.max_rows, g.n_draws = max_rows, n_draws
    g.full_pred = np.zeros((10,) if outputs is None else (10, outputs))
    return g


def test_the_chunk_keeps_rows_times_outputs_bounded():
    one = _game(None)._rows_per_chunk()
    assert one == _CHUNK_ROWS // 32                                        # a regressor: unchanged
    assert _game(_CHUNK_OUTPUTS)._rows_per_chunk() == one                  # up to 8 outputs: unchanged
    many = _game(1000)._rows_per_chunk()
    assert many == _CHUNK_ROWS * _CHUNK_OUTPUTS // 1000 // 32
    # the predictions of one chunk: hybrid rows x outputs x 8 bytes, at most what 8 outputs take at full size
    assert many * 32 * 1000 * 8 <= _CHUNK_ROWS * _CHUNK_OUTPUTS * 8
    assert _game(10**7, n_draws=64)._rows_per_chunk() == 1                 # never 0
