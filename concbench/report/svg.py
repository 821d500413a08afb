"""Small charts written as SVG text by hand: the many per-run figures of the HTML page (memory and
threads over time, `explain`'s sweeps beside their thread states).

matplotlib takes about a third of a second and 30-45 KB a figure; a quick suite's page has hundreds of
these, so they are drawn here in about a millisecond and a few KB each: whole-pixel coordinates, and
no style in the figure but its colours (the look is the page's style sheet, `svg.chart` in report.css,
said once for every figure). A data path sits in a group whose id is the chart's key and the series'
`gid` (`<key>-rss`), as in the matplotlib figures."""

from __future__ import annotations

import html
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

TITLE_H, AXIS_LEFT, AXIS_BOTTOM, GAP_RIGHT = 20, 46, 32, 10
GAP = 18                                    # between panels


@dataclass
class Series:
    """One thing drawn in a panel: a line, a step line (each value holds until the next) or an area
    filled down to the axis (drawn in order: a later area covers an earlier one)."""

    xs: Sequence[float]
    ys: Sequence[float]
    colour: str
    kind: str = "line"          # line | step | area | points (markers alone: a scatter)
    gid: str = ""
    name: str = ""              # its legend entry, if the panel has a legend
    dashed: bool = False
    markers: bool = False


@dataclass
class Panel:
    title: str
    xlabel: str
    ylabel: str
    series: list[Series] = field(default_factory=list)
    log_x: bool = False
    log_y: bool = False
    x_ticks: Sequence[float] | None = None     # ticks at these values (a sweep's measured points)
    x_limits: tuple[float, float] | None = None  # the x axis's extent, where panels share it
    legend: bool = False
    empty: str = ""                            # said in the middle when there is nothing to draw


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def slug(key: str) -> str:
    """A plot key as an id: every figure's ids start with it, so many can share one page."""
    return re.sub(r"[^A-Za-z0-9_-]+", "-", key).strip("-") or "plot"


def _nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round values (1, 2 or 5 times a power of ten apart) from low to high."""
    span = high - low
    raw = span / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.ceil(low / step - 1e-9) * step
    return [first + i * step for i in range(int((high - first) / step + 1e-9) + 1)]


def _log_ticks(low: float, high: float) -> list[float]:
    ticks = [10.0 ** p for p in range(math.floor(math.log10(low)), math.ceil(math.log10(high)) + 1)]
    inside = [t for t in ticks if low <= t <= high]
    if len(inside) < 2:
        inside = sorted({t * m for t in ticks for m in (1, 2, 5) if low <= t * m <= high})
    return inside


def _label(value: float) -> str:
    if value != 0 and (abs(value) >= 1e5 or abs(value) < 1e-3):
        return f"{value:.0e}".replace("e+0", "e").replace("e-0", "e-")
    return f"{value:g}"


class _Scale:
    """Data to pixels along one axis."""

    def __init__(self, values: Sequence[float], log: bool, start: float, length: float, flip: bool,
                 from_zero: bool = False) -> None:
        finite = [v for v in values if v is not None and math.isfinite(v) and (v > 0 or not log)]
        low, high = (min(finite), max(finite)) if finite else (1.0, 10.0) if log else (0.0, 1.0)
        if from_zero and not log:
            low = min(low, 0.0)
        if high <= low:
            low, high = (low / 2, high * 2) if log else (low - 0.5, high + 0.5)
        if not log:
            ticks = _nice_ticks(low, high)
            low, high = min(low, ticks[0]), max(high, ticks[-1])
        self.low, self.high, self.log = low, high, log
        self.start, self.length, self.flip = start, length, flip

    def __call__(self, value: float) -> int:
        if self.log:
            share = (math.log10(value) - math.log10(self.low)) / (math.log10(self.high) - math.log10(self.low))
        else:
            share = (value - self.low) / (self.high - self.low)
        return round(self.start + (self.length - share * self.length if self.flip else share * self.length))

    def ticks(self) -> list[float]:
        return _log_ticks(self.low, self.high) if self.log else _nice_ticks(self.low, self.high)


def _path(points: list[tuple[int, int]]) -> str:
    return "M" + " L".join(f"{x} {y}" for x, y in points)


def _points(series: Series, sx: _Scale, sy: _Scale) -> list[tuple[int, int]]:
    pairs = [(x, y) for x, y in zip(series.xs, series.ys)
             if x is not None and y is not None and (x > 0 or not sx.log) and (y > 0 or not sy.log)]
    points = [(sx(x), sy(y)) for x, y in pairs]
    if series.kind == "step":
        stepped: list[tuple[int, int]] = []
        for i, (x, y) in enumerate(points):
            if i:
                stepped.append((x, stepped[-1][1]))
            stepped.append((x, y))
        points = stepped
    return points


def _panel(panel: Panel, left: int, top: int, width: int, height: int, prefix: str) -> list[str]:
    plot_left, plot_top = left + AXIS_LEFT, top + TITLE_H
    plot_w, plot_h = width - AXIS_LEFT - GAP_RIGHT, height - TITLE_H - AXIS_BOTTOM
    out = [f'<text class="title" x="{left + 4}" y="{top + 14}">{_e(panel.title)}</text>']
    drawn = [s for s in panel.series if s.xs]
    if not drawn:
        out.append(f'<text class="empty" x="{left + width // 2}" y="{top + height // 2}">{_e(panel.empty)}</text>')
        return out
    xs = [x for s in drawn for x in s.xs]
    ys = [y for s in drawn for y in s.ys]
    sx = _Scale(panel.x_limits or xs, panel.log_x, plot_left, plot_w, False)
    sy = _Scale(ys, panel.log_y, plot_top, plot_h, True, from_zero=not panel.log_y)
    x_ticks = [t for t in (panel.x_ticks or sx.ticks()) if sx.low <= t <= sx.high]
    y_ticks = sy.ticks()
    bottom, right = plot_top + plot_h, plot_left + plot_w
    grid = "".join(f"M{plot_left} {sy(t)}H{right}" for t in y_ticks)
    out.append(f'<path class="grid" d="{grid}"/>')
    out.append(f'<path class="axis" d="M{plot_left} {plot_top}V{bottom}H{right}"/>')
    out += [f'<text class="tick x" x="{sx(t)}" y="{bottom + 12}">{_label(t)}</text>' for t in x_ticks]
    out += [f'<text class="tick y" x="{plot_left - 4}" y="{sy(t) + 3}">{_label(t)}</text>' for t in y_ticks]
    out.append(f'<text class="label x" x="{plot_left + plot_w // 2}" y="{bottom + 27}">{_e(panel.xlabel)}</text>')
    out.append(f'<text class="label y" transform="translate({left + 10} {plot_top + plot_h // 2}) rotate(-90)">'
               f'{_e(panel.ylabel)}</text>')
    for series in drawn:
        points = _points(series, sx, sy)
        if not points:
            continue
        group = f' id="{prefix}-{_e(series.gid)}"' if series.gid else ""
        if series.kind == "area":
            shape = f'M{points[0][0]} {bottom} L' + " L".join(f"{x} {y}" for x, y in points) + f" L{points[-1][0]} {bottom}Z"
            out.append(f'<g{group}><path class="area" d="{shape}" fill="{series.colour}"/></g>')
            continue
        dash = ' stroke-dasharray="5 3"' if series.dashed else ""
        marks = "".join(f'<circle cx="{x}" cy="{y}" r="2.5"/>' for x, y in points) \
            if series.markers or series.kind == "points" else ""
        line = f'<path class="line" d="{_path(points)}"{dash}/>' if series.kind != "points" else ""
        out.append(f'<g{group} stroke="{series.colour}" fill="{series.colour}">{line}{marks}</g>')
    if panel.legend:   # in the title's row, right-aligned, so that it never covers the data
        x = right
        for series in reversed([s for s in drawn if s.name]):
            x -= 16 + round(6 * len(series.name))
            out.append(f'<rect x="{x}" y="{top + 6}" width="9" height="9" fill="{series.colour}"/>'
                       f'<text class="legend" x="{x + 12}" y="{top + 14}">{_e(series.name)}</text>')
    return out


def chart(key: str, panels: list[Panel], width: int, panel_height: int, columns: int = 1) -> str:
    """The panels in rows of `columns`, as one <svg> element; ids start with the key's slug."""
    prefix = slug(key)
    rows = math.ceil(len(panels) / columns)
    cell_w = (width - GAP * (columns - 1)) // columns
    height = rows * panel_height + GAP * (rows - 1)
    body = []
    for i, panel in enumerate(panels):
        left, top = (i % columns) * (cell_w + GAP), (i // columns) * (panel_height + GAP)
        body += _panel(panel, left, top, cell_w, panel_height, prefix)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" id="{prefix}-svg" viewBox="0 0 {width} {height}" '
            f'width="{width}" height="{height}" role="img">\n' + "\n".join(body) + "\n</svg>")
