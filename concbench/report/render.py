"""Renders a TableModel (report/model.py) to the terminal, Markdown or HTML: the only place where
a table becomes markup, so the three show the same columns in the same order."""

from __future__ import annotations

import html

from rich.markup import escape
from rich.table import Table

from .model import Cell, Span, TableModel

# Terminal colours of the style words; a run status or verdict without an entry is plain.
_RICH = {
    "warn": "yellow", "bad": "red bold", "good": "green", "dim": "dim", "options": "", "interval": "",
    "status-ok": "green", "status-timeout": "yellow", "status-skipped": "dim", "status-wrong": "red bold",
    "status-crashed": "red bold", "status-malformed": "red bold", "status-disagree": "red bold",
    "verdict-verified": "green", "verdict-agreed": "cyan", "verdict-unverified": "yellow",
    "verdict-wrong": "red bold", "verdict-disagree": "red bold", "verdict-none": "dim",
}

# HTML classes of the style words (report.css styles them).
_HTML_PREFIX = {"status-": "status st-", "verdict-": "verdict v-"}
_HTML = {"warn": "warn", "bad": "flag-bad", "good": "flag-ok", "dim": "muted", "options": "opts", "interval": "ci"}


def _rich_span(span: Span) -> str:
    style = _RICH.get(span.style, "")
    return f"[{style}]{escape(span.text)}[/]" if style else escape(span.text)


def to_rich(table: TableModel) -> Table:
    """The table without its heading: the terminal prints that as a line of its own, wrapped at its width."""
    out = Table(header_style="bold")
    for column in table.columns:
        # A key cell is never wrapped (report/layout.py makes room for it); any other wraps, never cut.
        out.add_column(escape(column.name), justify="right" if column.numeric else "left",
                       no_wrap=column.key, overflow="ellipsis" if column.key else "fold")
    for row in table.rows:
        out.add_row(*(" ".join(_rich_span(s) for s in c.spans if s.text) for c in row))
    return out


def to_markdown(table: TableModel) -> str:
    def text(c: Cell) -> str:
        return c.text.replace("|", "\\|") or " "

    lines = [f"**{table.heading}**", ""] if table.heading else []
    lines.append("| " + " | ".join(c.name for c in table.columns) + " |")
    lines.append("|" + "|".join("---:" if c.numeric else "---" for c in table.columns) + "|")
    lines += ["| " + " | ".join(text(c) for c in row) + " |" for row in table.rows]
    if table.note:
        lines += ["", table.note]
    return "\n".join(lines) + "\n"


def _html_class(style: str) -> str:
    for prefix, replacement in _HTML_PREFIX.items():
        if style.startswith(prefix):
            return replacement + style[len(prefix):]
    return _HTML.get(style, "")


def _html_span(span: Span) -> str:
    text = html.escape(span.text)
    css = _html_class(span.style)
    return f'<span class="{css}">{text}</span>' if css else text


def _html_cell(c: Cell, colours: dict[str, str]) -> str:
    inner = " ".join(_html_span(s) for s in c.spans if s.text)
    if c.detail:
        inner = f'<span title="{html.escape(c.detail)}">{inner}</span>'
    colour = colours.get(c.series) if c.series else None
    if colour:
        inner = f'<span class="swatch" style="background:{colour}"></span>' + inner
    if c.link:
        inner = f'<a href="{html.escape(c.link)}">{inner}</a>'
    text, label = c.more
    if text:
        inner += f"<details><summary>{html.escape(label)}</summary><pre>{html.escape(text)}</pre></details>"
    return inner


def to_html(table: TableModel, benchmark: str | None = None, colours: dict[str, str] | None = None,
            caption: str | None = None) -> str:
    """A <table class="{kind}">, tagged with its benchmark; series cells wear their colour's swatch.
    The caption is what holds for every row and the table's note, unless one is given ("" for none)."""
    colours = colours or {}
    attrs = f' class="{html.escape(table.kind)}"'
    if benchmark is not None:
        attrs += f' data-benchmark="{html.escape(benchmark)}"'
    numeric = [" class=num" if c.numeric else "" for c in table.columns]
    out = [f"<table{attrs}>"]
    caption = "; ".join(t for t in (table.context, table.note) if t) if caption is None else caption
    if caption:
        out.append(f"<caption>{html.escape(caption)}</caption>")
    out.append("<thead><tr>" + "".join(f"<th{k}>{html.escape(c.name)}</th>" for c, k in zip(table.columns, numeric))
               + "</tr></thead>")
    out.append("<tbody>")
    for row in table.rows:
        out.append("<tr>" + "".join(f"<td{k}>{_html_cell(c, colours)}</td>" for c, k in zip(row, numeric)) + "</tr>")
    out.append("</tbody></table>")
    return "\n".join(out)
