"""Wall time of a block, recorded in a result's params (the report's run times).

Lives beside :mod:`imlkit._parallel` so that every method -- importance and effects alike --
times itself with the same helper without one subpackage importing another's private module.
"""
from __future__ import annotations

import time

__all__ = ["Timer"]


class Timer:
    """Wall time of a block, recorded in the result's params (the report's run times).

    Examples
    --------
    >>> with Timer() as t:
    ...     pass
    >>> t.seconds >= 0
    True
    """

    def __enter__(self):
        self.start = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.seconds = time.perf_counter() - self.start
        return False
