"""Plots of the HTML report: matplotlib figures rendered as SVG text to inline in the page, and the
many small per-run figures (memory and threads over time, explain's sweeps) drawn by report/svg.py.

Every function takes plain data (the lines, boxes and samples to draw, already grouped and
coloured by html.py) and returns one `<svg>` element as a string. Figures are drawn on the
Agg canvas without pyplot, so no global figure registry or backend switch is involved, and
every rcParam is set inside an `rc_context` so the caller's settings are left alone.

The SVG keeps text as text (`svg.fonttype = none`: small files, selectable labels), carries
no metadata (no dates, no links), and has its ids prefixed with the plot's key so that many
figures can live in one HTML document without their clip paths and markers colliding."""

from __future__ import annotations

import io
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import matplotlib
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator, FuncFormatter, MaxNLocator, NullLocator

from . import svg
from .svg import slug as _slug
from .units import time_unit

MAX_POINTS_PER_LINE = 400    # a time series is decimated to at most this many points per line (about a pixel each)
TIMELINE_POINTS = 120        # thread states over time: averaged into this many buckets
WIDE_RANGE = 20.0            # max/min above this: a logarithmic axis
WIDTH_IN = 7.2               # a full-width figure, inches (the SVG is scaled by the page's CSS)

# Any keys: matplotlib 3.11's stubs type rc_context's keys as a literal of known names that 3.10 lacks.
_RC: dict[Any, Any] = {
    "svg.fonttype": "none",
    "svg.hashsalt": "concbench",
    "font.size": 8.5,
    "font.family": "sans-serif",
    "font.sans-serif": ["DejaVu Sans", "Liberation Sans", "Arial", "Helvetica"],
    "axes.titlesize": 9,
    "axes.labelsize": 8.5,
    "legend.fontsize": 7.5,
    "xtick.labelsize": 7.5,
    "ytick.labelsize": 7.5,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.35,
    "grid.linewidth": 0.5,
    "lines.linewidth": 1.4,
    "lines.markersize": 4,
    "figure.dpi": 100,
    "savefig.dpi": 100,
    "path.simplify": True,
}
_NO_METADATA = {"Creator": None, "Date": None, "Format": None, "Type": None}
_LINESTYLES = ("-", "--", ":", "-.")
_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
# Okabe-Ito's colour-blind-friendly colours first (ordered so that neighbours differ), then tab20.
_PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#6A3D9A", "#56B4E9", "#D55E00", "#000000", "#8C564B",
            "#7F7F7F")


def palette(labels: Sequence[str]) -> dict[str, str]:
    """One colour per label, in the order given: the same label has the same colour in every plot."""
    tab20 = matplotlib.colormaps["tab20"]
    extra = [matplotlib.colors.to_hex(tab20(i)) for i in range(tab20.N)]   # an int picks the i-th listed colour
    colours = list(_PALETTE) + [c for c in extra if c not in _PALETTE]
    unique = list(dict.fromkeys(labels))
    return {label: colours[i % len(colours)] for i, label in enumerate(unique)}


_SHADES = (0.0, -0.38, 0.42, -0.62, 0.62)   # <0: mixed with black, >0: mixed with white


def shade(colour: str, index: int) -> str:
    """The index-th shade of a colour: 0 is the colour itself, then darker and lighter in turn."""
    amount = _SHADES[index % len(_SHADES)]
    r, g, b = matplotlib.colors.to_rgb(colour)
    target = 0.0 if amount < 0 else 1.0
    mix = abs(amount)
    return matplotlib.colors.to_hex((r + (target - r) * mix, g + (target - g) * mix, b + (target - b) * mix))


def linestyle(index: int) -> str:
    return _LINESTYLES[index % len(_LINESTYLES)]


def marker(index: int) -> str:
    return _MARKERS[index % len(_MARKERS)]


@dataclass
class Line:
    """One line of a plot. `low`/`high` (same length as ys, None where unknown) draw a band."""

    name: str
    colour: str
    xs: list[float]
    ys: list[float]
    low: list[float | None] | None = None
    high: list[float | None] | None = None
    style: str = "-"
    marker: str = "o"


@dataclass
class Box:
    name: str
    colour: str
    samples_ns: Sequence[float]
    missing: str = ""          # why there are no samples (timeout, skipped, …)


@dataclass
class BarPanel:
    """One benchmark of a grouped bar chart: per group (a language) one bar per source (ours, the paper's)."""

    title: str
    groups: list[str]
    bars: dict[str, list[float | None]]   # source -> seconds per group (None: no figure)


@dataclass
class BoxPanel:
    title: str
    boxes: list[Box] = field(default_factory=list)


@dataclass
class ScalingPanel:
    title: str
    speedup: list[Line] = field(default_factory=list)      # ys = factor, low/high = its interval
    efficiency: list[Line] = field(default_factory=list)


# -- helpers -------------------------------------------------------------------------------


def downsample(xs: Sequence[float], ys: Sequence[float], limit: int = MAX_POINTS_PER_LINE) -> tuple[list, list]:
    """At most `limit` points, keeping each bucket's minimum and maximum so spikes survive."""
    n = len(xs)
    if n <= limit:
        return list(xs), list(ys)
    buckets = max(1, limit // 2)
    out_x, out_y = [], []
    for b in range(buckets):
        lo, hi = b * n // buckets, (b + 1) * n // buckets
        if hi <= lo:
            continue
        segment = range(lo, hi)
        i_min = min(segment, key=lambda i: ys[i])
        i_max = max(segment, key=lambda i: ys[i])
        for i in sorted({i_min, i_max}):
            out_x.append(xs[i])
            out_y.append(ys[i])
    return out_x, out_y


def _wide(values: Sequence[float]) -> bool:
    positive = [v for v in values if v is not None and v > 0 and math.isfinite(v)]
    return bool(positive) and max(positive) / min(positive) > WIDE_RANGE


_ID = re.compile(r'\bid="([^"]+)"')
_REF = re.compile(r'(url\(#|href="#)([^")]+)')


def _svg(fig: Figure, key: str) -> str:
    """The figure as one <svg> element, its ids made unique to this plot."""
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", metadata=_NO_METADATA)
    text = buffer.getvalue()
    text = text[text.index("<svg"):].strip()
    prefix = _slug(key)
    text = _ID.sub(lambda m: f'id="{prefix}-{m.group(1)}"', text)
    text = _REF.sub(lambda m: f"{m.group(1)}{prefix}-{m.group(2)}", text)
    return text


def _figure(width: float, height: float) -> Figure:
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _render(key: str, width: float, height: float, draw) -> str:
    with matplotlib.rc_context(_RC):
        fig = _figure(width, height)
        try:
            draw(fig)
            return _svg(fig, key)
        finally:
            fig.clear()


def _time_axis(ax, axis: str, values: Sequence[float]) -> float:
    """Label a time axis in the unit that suits its values; returns the scale (ns per unit)."""
    finite = [v for v in values if v is not None and math.isfinite(v) and v > 0]
    scale, unit = time_unit(max(finite) if finite else 1.0)
    (ax.set_ylabel if axis == "y" else ax.set_xlabel)(f"time ({unit})")
    return scale


def _log_x_ticks(ax, xs: Sequence[float]) -> None:
    """A logarithmic parameter axis labelled at the measured values (at most 10 of them), in plain numbers."""
    values = sorted({x for x in xs if x > 0})
    if len(values) > 10:
        values = values[:: math.ceil(len(values) / 10)]
    ax.xaxis.set_major_locator(FixedLocator(values))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.xaxis.set_minor_locator(NullLocator())


def _legend(ax, count: int) -> None:
    if count:
        ax.legend(loc="best", frameon=False, ncols=1 if count <= 6 else 2)


# -- plots ---------------------------------------------------------------------------------


def time_plot(key: str, lines: list[Line], xlabel: str, title: str = "") -> str:
    """Median time against the parameter, one line per series, with the median's interval as a band."""
    values = [y for line in lines for y in [*line.ys, *(line.low or []), *(line.high or [])] if y is not None]
    xs = [x for line in lines for x in line.xs]

    def draw(fig: Figure) -> None:
        ax = fig.add_subplot()
        scale = _time_axis(ax, "y", values)
        for line in lines:
            ys = [y / scale for y in line.ys]
            ax.plot(line.xs, ys, line.style, marker=line.marker, color=line.colour, label=line.name)
            if line.low and line.high:
                low = [(lo if lo is not None else y) / scale for lo, y in zip(line.low, line.ys)]
                high = [(hi if hi is not None else y) / scale for hi, y in zip(line.high, line.ys)]
                ax.fill_between(line.xs, low, high, color=line.colour, alpha=0.18, linewidth=0)
        if _wide(values):
            ax.set_yscale("log")
        if _wide(xs):
            ax.set_xscale("log")
            _log_x_ticks(ax, xs)
        elif all(float(x).is_integer() for x in xs):
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel(xlabel)
        if title:
            ax.set_title(title, loc="left")
        _legend(ax, len(lines))

    return _render(key, WIDTH_IN, 3.4, draw)


def box_plot(key: str, panels: list[BoxPanel]) -> str:
    """Measured iterations per series, one panel per parameter, boxes horizontal so labels stay readable."""
    ncols = 1 if len(panels) == 1 else 2
    nrows = math.ceil(len(panels) / ncols)
    tallest = [max(len(p.boxes) for p in panels[r * ncols:(r + 1) * ncols]) for r in range(nrows)]
    height = sum(0.55 + 0.32 * n for n in tallest) + 0.3

    def draw(fig: Figure) -> None:
        grid = fig.add_gridspec(nrows, ncols, height_ratios=[0.55 + 0.32 * n for n in tallest])
        for i, panel in enumerate(panels):
            ax = fig.add_subplot(grid[i // ncols, i % ncols])
            present = [b for b in panel.boxes if b.samples_ns]
            values = [v for b in present for v in b.samples_ns]
            scale = _time_axis(ax, "x", values)
            positions = list(range(len(panel.boxes), 0, -1))     # first series on top
            data_pos = [p for p, b in zip(positions, panel.boxes) if b.samples_ns]
            if present:
                parts = ax.boxplot([[v / scale for v in b.samples_ns] for b in present], positions=data_pos,
                                   orientation="horizontal", widths=0.6, patch_artist=True,
                                   flierprops={"markersize": 2.5, "alpha": 0.6},
                                   medianprops={"color": "black", "linewidth": 1.2})
                for patch, b in zip(parts["boxes"], present):
                    patch.set_facecolor(b.colour)
                    patch.set_alpha(0.55)
                    patch.set_edgecolor(b.colour)
                for pos, b in zip(data_pos, present):
                    if len(b.samples_ns) <= 40:
                        jitter = [pos + 0.18 * (((j * 7919) % 13) / 12 - 0.5) for j in range(len(b.samples_ns))]
                        ax.scatter([v / scale for v in b.samples_ns], jitter, s=5, color=b.colour,
                                   edgecolors="none", alpha=0.8, zorder=3)
            if _wide(values):
                ax.set_xscale("log")
            elif present:
                ax.xaxis.set_major_locator(MaxNLocator(6))
            else:
                ax.set_xticks([])
                ax.set_xlabel("")
            for pos, b in zip(positions, panel.boxes):
                if not b.samples_ns:
                    ax.text(0.01, pos, f"no measured iterations: {b.missing}" if b.missing else "no data",
                            transform=ax.get_yaxis_transform(), va="center", fontsize=7.5, color="#a33")
            ax.set_yticks(positions)
            ax.set_yticklabels([b.name for b in panel.boxes])
            ax.set_ylim(0.4, len(panel.boxes) + 0.6)
            ax.grid(axis="y", visible=False)
            ax.set_title(panel.title, loc="left")

    return _render(key, WIDTH_IN if ncols == 1 else WIDTH_IN * 1.45, height, draw)


def bar_plot(key: str, panels: list[BarPanel], colours: dict[str, str]) -> str:
    """Grouped bars on a logarithmic seconds axis, one panel per benchmark: ranks read at a glance
    even where ours and the source's sizes differ by orders of magnitude. A missing figure is marked."""
    ncols = 1 if len(panels) == 1 else 2
    nrows = math.ceil(len(panels) / ncols)

    def draw(fig: Figure) -> None:
        axes = fig.subplots(nrows, ncols, squeeze=False)
        for ax in axes.flat[len(panels):]:
            ax.set_visible(False)
        for ax, panel in zip(axes.flat, panels):
            sources = list(panel.bars)
            width = 0.8 / max(len(sources), 1)
            present = [v for values in panel.bars.values() for v in values if v]
            floor = min(present) / 3 if present else 1e-3
            for i, source in enumerate(sources):
                xs = [g + (i - (len(sources) - 1) / 2) * width for g in range(len(panel.groups))]
                values = panel.bars[source]
                ax.bar([x for x, v in zip(xs, values) if v], [v for v in values if v], width=width * 0.95,
                       color=colours.get(source), label=source)
                for x, v in zip(xs, values):
                    if not v:
                        ax.text(x, floor * 1.15, "–", ha="center", va="bottom", fontsize=7, color="#a33")
            ax.set_yscale("log")
            ax.set_ylim(bottom=floor)
            ax.set_ylabel("seconds (log)")
            ax.set_xticks(range(len(panel.groups)))
            ax.set_xticklabels(panel.groups, rotation=30, ha="right")
            ax.grid(axis="x", visible=False)
            ax.set_title(panel.title, loc="left")
        if panels:
            axes.flat[0].legend(loc="best", frameon=False)

    return _render(key, WIDTH_IN if ncols == 1 else WIDTH_IN * 1.45, 0.4 + 2.6 * nrows, draw)


def scaling_plot(key: str, panels: list[ScalingPanel]) -> str:
    """Speedup (with the ideal line) and efficiency against cores; one row of two axes per parameter."""

    def draw(fig: Figure) -> None:
        axes = fig.subplots(len(panels), 2, squeeze=False)
        for (ax_s, ax_e), panel in zip(axes, panels):
            cores = sorted({x for line in panel.speedup for x in line.xs})
            if cores:
                first = cores[0]
                ax_s.plot(cores, [c / first for c in cores], color="#888", linestyle="--", linewidth=1, label="ideal")
                ax_e.axhline(1.0, color="#888", linestyle="--", linewidth=1, label="ideal")
            for line in panel.speedup:
                yerr = None
                if line.low and line.high:
                    yerr = [[max(0.0, y - lo) if lo is not None else 0.0 for y, lo in zip(line.ys, line.low)],
                            [max(0.0, hi - y) if hi is not None else 0.0 for y, hi in zip(line.ys, line.high)]]
                ax_s.errorbar(line.xs, line.ys, yerr=yerr, fmt=line.style, marker=line.marker, color=line.colour,
                              label=line.name, capsize=2, elinewidth=0.8)
            for line in panel.efficiency:
                ax_e.plot(line.xs, line.ys, line.style, marker=line.marker, color=line.colour, label=line.name)
            for ax in (ax_s, ax_e):
                ax.set_xlabel("cores")
                if cores:
                    ax.set_xticks(cores)
                    ax.set_xticklabels([f"{c:g}" for c in cores])
            ax_s.set_ylabel("speedup")
            ax_e.set_ylabel("efficiency")
            ax_e.set_ylim(bottom=0)
            ax_s.set_title(f"speedup · {panel.title}", loc="left")
            ax_e.set_title(f"efficiency · {panel.title}", loc="left")
            _legend(ax_s, len(panel.speedup) + 1)

    return _render(key, WIDTH_IN * 1.25, 2.9 * len(panels) + 0.2, draw)


def growth_plot(key: str, lines: list[Line], xlabel: str) -> str:
    """Seconds per task against N on log-log axes; each legend entry carries the fitted exponent."""

    def draw(fig: Figure) -> None:
        ax = fig.add_subplot()
        for line in lines:
            ax.plot(line.xs, line.ys, line.style, marker=line.marker, color=line.colour, label=line.name)
        ax.set_xscale("log")
        ax.set_yscale("log")
        _log_x_ticks(ax, [x for line in lines for x in line.xs])
        ax.set_xlabel(xlabel)
        ax.set_ylabel("seconds per task")
        _legend(ax, len(lines))

    return _render(key, WIDTH_IN, 3.4, draw)


def timeseries_plot(key: str, title: str, colour: str, t_ns: Sequence[int], rss_bytes: Sequence[int],
                    threads: Sequence[int]) -> str:
    """Resident memory (top) and thread count (bottom) of one run over its lifetime.

    The two data lines carry the ids `<key>-rss` and `<key>-threads` in the SVG."""
    seconds = [t / 1e9 for t in t_ns]
    rss_x, rss_y = downsample(seconds, [r / 2**20 for r in rss_bytes])
    thr_x, thr_y = downsample(seconds, list(threads), MAX_POINTS_PER_LINE // 2)   # steps double the vertices
    span = (0.0, max(seconds, default=1.0))
    return svg.chart(key, [
        svg.Panel(title, "", "RSS (MiB)", [svg.Series(rss_x, rss_y, colour, gid="rss")], x_limits=span),
        svg.Panel("", "time since launch (s)", "threads", [svg.Series(thr_x, thr_y, colour, "step", gid="threads")],
                  x_limits=span),
    ], width=490, panel_height=165)


@dataclass
class StateTimeline:
    """Thread states of one run over time, from the launcher's samples."""

    title: str
    t_ns: list[int]
    running: list[int]
    sleeping: list[int]
    blocked: list[int]


def _buckets(values: Sequence[float], count: int) -> list[float]:
    """The means of `count` equal runs of values (all of them when there are fewer)."""
    n = len(values)
    if n <= count:
        return list(values)
    return [sum(values[b * n // count:(b + 1) * n // count]) / max(1, (b + 1) * n // count - b * n // count)
            for b in range(count)]


def diagnosis_plot(key: str, title: str, colour: str, xlabel: str, xs: Sequence[float], ys: Sequence[float],
                   speedup: bool, timeline: StateTimeline | None) -> str:
    """`explain`'s figure for one sweep: speedup along it (or time over the parameter, log-log), and
    beside it the thread states of the sweep's widest run: running, sleeping, blocked in the kernel,
    stacked (averaged over short spans of time)."""
    sweep = svg.Panel(title, xlabel, "speedup" if speedup else "median time (s)", log_x=not speedup,
                      log_y=not speedup, x_ticks=list(xs) if speedup else None)
    if speedup and xs:
        sweep.series.append(svg.Series(list(xs), [x / xs[0] for x in xs], "#888888", dashed=True, gid="ideal"))
    sweep.series.append(svg.Series(list(xs), list(ys), colour, gid="sweep", markers=True))
    states = svg.Panel(timeline.title if timeline else "", "time since launch (s)", "threads", legend=True,
                       empty="no per-thread samples")
    if timeline is not None and timeline.t_ns:
        seconds = _buckets([t / 1e9 for t in timeline.t_ns], TIMELINE_POINTS)
        running = _buckets(timeline.running, TIMELINE_POINTS)
        sleeping = _buckets(timeline.sleeping, TIMELINE_POINTS)
        blocked = _buckets(timeline.blocked, TIMELINE_POINTS)
        # Stacked by drawing the totals first: each area covers the part of the one before it.
        for name, colour_of, ys_of in (("blocked", "#e76f51", [r + s + b for r, s, b in zip(running, sleeping, blocked)]),
                                       ("sleeping", "#bbbbbb", [r + s for r, s in zip(running, sleeping)]),
                                       ("running", "#2a9d8f", running)):
            states.series.append(svg.Series(seconds, ys_of, colour_of, "area", gid=name, name=name))
    return svg.chart(key, [sweep, states], width=900, panel_height=280, columns=2)
