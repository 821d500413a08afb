"""Human units: nanoseconds, bytes, shares, and each metric by the unit its benchmark declares.

A metric's unit is declared once, beside the benchmark, under `[metrics]` in benchmarks/<id>.toml
(catalog.Benchmark.metric_units). The words a unit may be:

    ns            a time in nanoseconds: "24.4 µs"
    bytes         a size: "3.9 MiB"
    fraction      a share of one: "4.93%"
    <noun>/s      a rate: "19.0 M messages/s"
    <noun>        a count of that noun, with thousands separators: "2,142 pings" (the noun may be
                  any words: "1 mod 3")
"""

from __future__ import annotations

import math

_TIME_UNITS = ((1e9, "s"), (1e6, "ms"), (1e3, "µs"), (1.0, "ns"))
_RATE_PREFIXES = ((1e9, "G"), (1e6, "M"), (1e3, "k"))

TIME, SIZE, FRACTION = "ns", "bytes", "fraction"


def time_unit(ns: float) -> tuple[float, str]:
    for scale, name in _TIME_UNITS:
        if abs(ns) >= scale:
            return scale, name
    return 1.0, "ns"


def fmt_ns(ns: float | None, scale_of: float | None = None) -> str:
    """'12.3 ms'; with scale_of, in the unit that suits scale_of (so a column reads alike)."""
    if ns is None:
        return "–"
    scale, name = time_unit(scale_of if scale_of is not None else ns)
    value = ns / scale
    digits = 0 if abs(value) >= 100 else 1 if abs(value) >= 10 else 2
    return f"{value:.{digits}f} {name}"


def fmt_bytes(size: float | None) -> str:
    if size is None:
        return "–"
    for scale, name in ((1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")):
        if size >= scale:
            return f"{size / scale:.1f} {name}"
    return f"{size:.0f} B"


def fmt_pct(fraction: float | None) -> str:
    return "–" if fraction is None else f"{100 * fraction:.1f}%"


def fmt_p(p: float | None) -> str:
    if p is None:
        return "–"
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def _three_digits(value: float) -> str:
    """Three significant digits, trailing zeros kept: 1.40, 18.4, 123, 0.00493."""
    size = abs(value)
    if size >= 100:
        return f"{value:,.0f}"
    if size >= 1:
        return f"{value:.{1 if size >= 10 else 2}f}"
    return f"{value:.3g}"


def _number(value: float) -> str:
    """Whole numbers and anything from 1000 up with separators; smaller fractions to 3 significant digits."""
    if float(value).is_integer() or abs(value) >= 1000:
        return f"{value:,.0f}"
    return _three_digits(value)


def fmt_metric(value: float | None, unit: str | None) -> str:
    """A metric's value in its declared unit (the words above); without one, the bare number and '(unit?)'."""
    if value is None:
        return "–"
    if not math.isfinite(value):
        return f"{value}"
    if unit == TIME:
        return fmt_ns(value)
    if unit == SIZE:
        return fmt_bytes(value)
    if unit == FRACTION:
        return f"{_three_digits(100 * value)}%"
    if not unit:
        return f"{value:,.6g} (unit?)"
    if unit.endswith("/s"):
        for scale, prefix in _RATE_PREFIXES:
            if abs(value) >= scale:
                return f"{_three_digits(value / scale)} {prefix} {unit}"
    return f"{_number(value)} {unit}"
