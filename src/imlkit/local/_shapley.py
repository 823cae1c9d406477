"""Exact Shapley weights over all coalitions of m players (shared by exact SHAP and TreeSHAP's checks)."""
from __future__ import annotations

import math

import numpy as np

__all__ = ["shapley_matrix"]


def shapley_matrix(m):
    """M (2^m, m) with φ = V @ M for the values V (…, 2^m) of all coalitions (bit k = player k)."""
    bits = ((np.arange(2 ** m)[:, None] >> np.arange(m)[None, :]) & 1).astype(bool)
    size = bits.sum(axis=1)
    fact = [math.factorial(k) for k in range(m + 1)]
    w_in = np.array([fact[s - 1] * fact[m - s] / fact[m] if s > 0 else 0.0 for s in range(m + 1)])
    w_out = np.array([fact[s] * fact[m - s - 1] / fact[m] if s < m else 0.0 for s in range(m + 1)])
    return np.where(bits, w_in[size][:, None], -w_out[size][:, None]), bits
