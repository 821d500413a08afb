"""The table model: each table of a report is described once, as columns and rows of cells, and
rendered by report/render.py to the terminal (rich), Markdown or HTML. A cell carries meaning, not
markup: its text, the style word of each part, a detail for a reader who asks (HTML's hover
title) and the series whose colour it wears."""

from __future__ import annotations

from dataclasses import dataclass, field

# Style words a renderer knows. status-<run status> and verdict-<verdict> colour outcomes; the rest:
STYLES = ("warn", "bad", "good", "dim", "options", "interval")


@dataclass(frozen=True)
class Span:
    text: str
    style: str = ""          # one of STYLES, `status-<status>` or `verdict-<verdict>`; "" is plain


@dataclass(frozen=True)
class Cell:
    spans: tuple[Span, ...]
    detail: str = ""         # what a hover shows (the median's interval, the CV threshold)
    series: str = ""         # the series label whose colour an HTML swatch shows beside it
    link: str = ""           # an anchor of the page the HTML links the cell to ("#plot-…")
    more: tuple[str, str] = ("", "")   # a long text the HTML folds under the cell, and its label ("stderr", …)

    @property
    def text(self) -> str:
        return " ".join(span.text for span in self.spans if span.text)


def cell(text: object, style: str = "", detail: str = "", series: str = "", link: str = "",
         more: tuple[str, str] = ("", "")) -> Cell:
    return Cell((Span(str(text), style),), detail, series, link, more)


def cells(*spans: Span, detail: str = "", series: str = "") -> Cell:
    return Cell(tuple(spans), detail, series)


MISSING = cell("–")


@dataclass(frozen=True)
class Column:
    name: str
    numeric: bool = False    # right-aligned
    key: bool = False        # names the row (variant, median): in every part of a split table, never wrapped or cut
    optional: int = 0        # > 0: may be left out where the terminal is narrow, the highest first (report/layout.py)


@dataclass(frozen=True)
class TableModel:
    kind: str                # what the table is ("summary", "scaling"): the HTML class, a test's handle
    title: str
    columns: tuple[Column, ...]
    rows: list[tuple[Cell, ...]] = field(default_factory=list)
    note: str = ""           # printed under the table (the HTML caption)
    context: str = ""        # what holds for every row, said once after the title ("every row: 2 cores")

    @property
    def heading(self) -> str:
        return " · ".join(t for t in (self.title, self.context) if t)

    @property
    def headers(self) -> list[str]:
        return [c.name for c in self.columns]
