"""A session written out beside the terminal: its exports (JSON, CSV, Markdown, BMF) and its HTML page."""

from __future__ import annotations

from pathlib import Path

from ..analysis.choice import every_pair
from ..report import export
from ..report.machine import machine_section
from ..spec.catalog import Catalog


def export_text(fmt: str, record, runs, rows, catalog: Catalog, probes=()) -> str:
    """A stored session in one of the export formats (docs/export.md)."""
    if fmt == "json":
        return export.to_json(record, runs, list(probes))
    if fmt == "csv":
        return export.to_csv(record, runs)
    if fmt == "bmf":
        return export.to_bmf(rows)
    return export.to_markdown(record, rows, catalog.benchmarks)


def write_page(out_dir: Path, catalog: Catalog, record, runs, comparisons, study=None, sections=(),
                probes=()) -> Path:
    from ..report.html import write_html_report  # matplotlib loads only when a page is wanted

    # A study's published tables travel in its sections, beside ours, not again per benchmark; the machine
    # probe's readings come first.
    machine = machine_section(record, runs, list(probes))
    return write_html_report(out_dir, record, runs, catalog, comparisons=comparisons or every_pair(runs),
                             study=study, extra_sections=[*([machine] if machine else []), *sections])
