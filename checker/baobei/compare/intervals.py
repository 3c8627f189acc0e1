"""Confidence intervals and tests for two samples of figures (standard library only).

- A share (a proportion of k in n): the Wilson score interval, which stays inside [0, 1] and behaves for
  shares near 0 or 1 and for small n, where the normal interval does not.
- A mean: the normal interval, mean ± z·s/√n (the campaigns' samples are matches and rounds: tens to
  thousands, where the t and the normal quantiles are within a few percent).
- Whether a figure moved: two-sided tests (two proportions with the pooled standard error; two means
  with Welch's standard error), their p-values adjusted for the number of figures compared (Holm), so
  that among dozens of figures one does not move by chance alone.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

Z95 = 1.959963984540054  # the standard normal quantile of 97.5 %: a two-sided 95 % interval
ALPHA = 0.05  # a figure moved when its adjusted p-value is below this


@dataclass(frozen=True)
class Estimate:
    value: float | None  # None: nothing to estimate from (n = 0)
    low: float | None
    high: float | None
    n: int
    spread: float = 0.0  # a mean's sample standard deviation; a share's count of successes

    def __str__(self) -> str:
        if self.value is None or self.low is None or self.high is None:
            return "-"
        return f"{_num(self.value)} [{_num(self.low)}, {_num(self.high)}]"


def _num(x: float) -> str:
    return f"{x:.3f}" if abs(x) < 10 else f"{x:.1f}"


def wilson(k: int, n: int, z: float = Z95) -> Estimate:
    """The share k/n with its Wilson score interval."""
    if n == 0:
        return Estimate(None, None, None, 0)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return Estimate(p, max(0.0, centre - half), min(1.0, centre + half), n, float(k))


def mean(values: list[float], z: float = Z95) -> Estimate:
    """The mean with its normal interval."""
    n = len(values)
    if n == 0:
        return Estimate(None, None, None, 0)
    m = sum(values) / n
    sd = math.sqrt(sum((v - m) ** 2 for v in values) / (n - 1)) if n > 1 else 0.0
    half = z * sd / math.sqrt(n)
    return Estimate(m, m - half, m + half, n, sd)


def two_sided(z: float) -> float:
    """The two-sided p-value of a standard normal statistic."""
    return math.erfc(abs(z) / math.sqrt(2))


def share_test(a: Estimate, b: Estimate) -> float:
    """The p-value that two shares are equal (pooled standard error); 1 when either has no sample."""
    if not a.n or not b.n:
        return 1.0
    pooled = (a.spread + b.spread) / (a.n + b.n)
    se = math.sqrt(pooled * (1 - pooled) * (1 / a.n + 1 / b.n))
    if se == 0:
        return 1.0 if a.spread * b.n == b.spread * a.n else 0.0
    assert a.value is not None and b.value is not None
    return two_sided((a.value - b.value) / se)


def mean_test(a: Estimate, b: Estimate) -> float:
    """The p-value that two means are equal (Welch's standard error); 1 when either has no sample."""
    if not a.n or not b.n or a.value is None or b.value is None:
        return 1.0
    se = math.sqrt(a.spread ** 2 / a.n + b.spread ** 2 / b.n)
    if se == 0:
        return 1.0 if a.value == b.value else 0.0
    return two_sided((a.value - b.value) / se)


def holm(p_values: list[float]) -> list[float]:
    """Holm's step-down adjustment: each p-value as it stands among all of them (same order)."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    adjusted = [1.0] * len(p_values)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted
