"""Public names that load on first use (PEP 562), so that ``import imlkit`` stays light.

A package's ``__init__`` lists where each public name lives; :func:`lazy_exports` returns the
module ``__getattr__`` and ``__dir__`` that import the private module the first time the name
is read and keep the object in the package's namespace (later reads are ordinary attribute
lookups). ``dir()``, tab completion, ``from package import *``, ``__all__`` and Sphinx's
autodoc see every public name as before: they read ``__all__``/``__dir__`` and ``getattr``.

Why: the interpretable models, the data sets and the refit methods pull in
``scipy.optimize``, ``scikit-learn``'s model selection and trees, and numba; a user who calls
:func:`imlkit.pfi` should not pay for them at ``import imlkit``.
"""
from __future__ import annotations

import importlib

__all__ = ["lazy_exports"]


def lazy_exports(package, exports):
    """The ``(__getattr__, __dir__)`` pair of a package whose public names load on first use.

    Parameters
    ----------
    package : str
        The package's ``__name__``.
    exports : dict of str to str
        ``{public name: module}``; the module is relative to the package (``"._ale"``). A name
        that maps to itself with a leading dot (``{"models": ".models"}``) is the submodule.

    Returns
    -------
    getattr_, dir_ : callables
        Assigned to the package's ``__getattr__`` and ``__dir__``.
    """
    module = importlib.import_module(package)

    def getattr_(name):
        where = exports.get(name)
        if where is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        target = importlib.import_module(where, package)
        value = target if where == f".{name}" else getattr(target, name)
        setattr(module, name, value)  # later reads skip __getattr__
        return value

    def dir_():
        return sorted(set(vars(module)) | set(exports))

    return getattr_, dir_
