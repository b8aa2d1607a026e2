"""Percentiles of measured latencies, shared by the benchmarks."""

from __future__ import annotations


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]
