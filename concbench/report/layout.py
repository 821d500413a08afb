"""Fits a table model to the terminal's width: no table wider than the terminal, no key cell cut.

The key columns (Column.key: the variant, the parameter, the median) are never wrapped or cut. When a
table is too wide, its optional columns are left out, the highest `optional` first, until it fits;
the other columns that still do not fit move to a continuation of the table, which repeats the key
columns (a row with nothing in the continuation's own columns is left out of it). Without a width
(`report --wide`) a table is shown whole."""

from __future__ import annotations

from dataclasses import dataclass, replace

from rich.cells import cell_len

from .model import MISSING, TableModel

RULE = 3      # what a column of a rich table costs beside its text: a space either side and one rule
EDGE = 1      # the table's closing rule


@dataclass(frozen=True)
class Layout:
    parts: tuple[TableModel, ...]
    left_out: tuple[str, ...] = ()    # optional columns not shown at this width


def column_widths(table: TableModel) -> list[int]:
    """The width each column needs to show its header and every cell on one line."""
    widths = [cell_len(column.name) for column in table.columns]
    for row in table.rows:
        for i, c in enumerate(row):
            widths[i] = max(widths[i], cell_len(c.text))
    return widths


def table_width(widths: list[int]) -> int:
    return sum(widths) + RULE * len(widths) + EDGE


def fit(table: TableModel, width: int | None) -> Layout:
    """The parts to print, in order, and the optional columns left out to fit `width`."""
    if width is None:
        return Layout((table,))
    widths = column_widths(table)
    shown = list(range(len(table.columns)))
    left_out = []
    optional = [i for i, column in enumerate(table.columns) if column.optional]
    for i in sorted(optional, key=lambda i: (-table.columns[i].optional, -i)):
        if table_width([widths[j] for j in shown]) <= width:
            break
        shown.remove(i)
        left_out.append(table.columns[i].name)
    keys = [i for i in shown if table.columns[i].key]
    groups, current = [], list(keys)
    for i in shown:
        if i in keys:
            continue
        if len(current) > len(keys) and table_width([widths[j] for j in current + [i]]) > width:
            groups.append(current)
            current = list(keys)
        current.append(i)
    groups.append(current)
    last = len(groups) - 1
    return Layout(tuple(_part(table, group, n, n == last) for n, group in enumerate(groups)), tuple(left_out))


def _part(table: TableModel, columns: list[int], number: int, last: bool) -> TableModel:
    """The table with these columns only (in the table's order), its note under the last part; a
    continuation leaves out the rows it has nothing for."""
    if len(columns) == len(table.columns):
        return table
    columns = sorted(columns)
    own = [i for i in columns if not table.columns[i].key]
    rows = [tuple(row[i] for i in columns) for row in table.rows
            if number == 0 or any(row[i] != MISSING and row[i].text for i in own)]
    title, context = (table.title, table.context) if number == 0 else (f"{table.title or table.kind} (continued)", "")
    return replace(table, title=title, context=context, columns=tuple(table.columns[i] for i in columns), rows=rows,
                   note=table.note if last else "")
