"""Human units for nanoseconds and bytes: the reporters' shared formatting."""

from __future__ import annotations

_TIME_UNITS = ((1e9, "s"), (1e6, "ms"), (1e3, "µs"), (1.0, "ns"))


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


def fmt_bytes(size: int | None) -> str:
    if size is None:
        return "–"
    for scale, name in ((1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")):
        if size >= scale:
            return f"{size / scale:.1f} {name}"
    return f"{size} B"


def fmt_pct(fraction: float | None) -> str:
    return "–" if fraction is None else f"{100 * fraction:.1f}%"


def fmt_p(p: float | None) -> str:
    if p is None:
        return "–"
    return "<0.001" if p < 0.001 else f"{p:.3f}"
