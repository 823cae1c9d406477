"""A light import (issue 24 item 7): ``import imlkit`` loads no heavy module; names load on first use.

Each check runs in a fresh interpreter (the test process has long imported everything). The
checks are on the set of loaded modules, not on timings, which are flaky on a shared CI box.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

SRC = str(Path(__file__).resolve().parents[1] / "src")

#: Never loaded by ``import imlkit`` (the models, the data sets, the refit engine's and the
#: optimisers' dependencies, the drawing library, the tree engine's compiler).
HEAVY = ["scipy.optimize", "scipy.stats", "sklearn", "sklearn.model_selection", "sklearn.tree", "matplotlib",
         "numba", "imlkit.models", "imlkit.datasets", "imlkit.plotting", "imlkit.report", "imlkit.importance._loco",
         "imlkit.effects"]


def _loaded_after(code, watch):
    """Which of ``watch`` are in sys.modules after ``code`` in a fresh interpreter."""
    script = textwrap.dedent(f"""
        import json, sys
        import numpy, pandas
        {code}
        print(json.dumps([m for m in {watch!r} if m in sys.modules]))
    """)
    env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_import_loads_no_heavy_module():
    assert _loaded_after("import imlkit", HEAVY) == []


def test_pfi_loads_what_it_needs_only():
    # pfi needs neither the refits, the models, the drawing, numba nor scipy's statistics and optimisers.
    watch = ["scipy.stats", "scipy.optimize", "sklearn.model_selection", "sklearn.tree", "matplotlib", "numba",
             "imlkit.models", "imlkit.datasets",
             "imlkit.importance._loco", "imlkit.importance._pimp", "imlkit.importance._sage", "imlkit.importance"]
    assert _loaded_after("import imlkit; imlkit.pfi", watch) == ["imlkit.importance"]


def test_a_model_loads_on_first_use():
    loaded = _loaded_after("import imlkit; from imlkit.models import GLM", ["imlkit.models", "imlkit.models._glm",
                                                                          "imlkit.models._rulefit", "imlkit.datasets"])
    assert loaded == ["imlkit.models", "imlkit.models._glm"]


PACKAGES = ["imlkit", "imlkit.importance", "imlkit.effects", "imlkit.local", "imlkit.models", "imlkit.datasets",
            "imlkit.plotting"]


@pytest.mark.parametrize("package", PACKAGES)
def test_every_public_name_resolves_and_is_listed(package):
    import importlib

    module = importlib.import_module(package)
    listed = dir(module)
    for name in module.__all__:
        assert name in listed, f"{package}.{name} missing from dir()"
        obj = getattr(module, name)
        # the object is the one its private module defines (not a copy), and is cached
        assert getattr(module, name) is obj
        assert vars(module)[name] is obj


def test_unknown_name_is_an_attribute_error():
    import imlkit

    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        imlkit.nope  # noqa: B018
    assert not hasattr(imlkit.models, "GLMM")


def test_star_import_gives_the_public_api():
    namespace = {}
    exec("from imlkit import *", namespace)
    import imlkit

    assert {name for name in namespace if not name.startswith("__")} == set(imlkit.__all__)
    assert namespace["pfi"] is imlkit.importance.pfi
    assert namespace["models"] is imlkit.models
