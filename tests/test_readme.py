"""The README's tour runs as written."""
import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_tour_runs(capsys):
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    assert blocks, "the README has no python tour"
    namespace = {}
    for code in blocks:
        exec(compile(code, str(README), "exec"), namespace)
    out = capsys.readouterr().out
    assert "importance" in out and "p_adjusted" in out and "exp_weight" in out
    assert namespace["r"].method == "pfi" and namespace["loco"].method == "loco"
