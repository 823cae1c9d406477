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


def test_readme_three_questions_table_is_the_api_table():
    # The README, explain() and the report must say the same (issue 13): parse the README's table.
    from imlkit.importance import INTERPRETATION_TABLE

    rows = {}
    for line in README.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[0] in ("PFI", "CFI", "marginal SAGE", "conditional SAGE", "LOCO / LOFO",
                                            "PIMP"):
            rows[cells[0]] = cells[1:]
    keys = {"PFI": ["pfi"], "CFI": ["cfi"], "marginal SAGE": ["sage_marginal"],
            "conditional SAGE": ["sage_conditional"], "LOCO / LOFO": ["loco", "lofo"]}
    assert set(keys) <= set(rows)
    for label, methods in keys.items():
        for m in methods:
            assert rows[label] == [INTERPRETATION_TABLE[m][q] for q in (1, 2, 3)], (label, m)
    assert INTERPRETATION_TABLE["pimp"] == {1: "as base", 2: "as base", 3: "as base"}
    assert rows["PIMP"] == ["as the tested importance"] * 3
