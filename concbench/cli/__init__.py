"""The `concbench` command: parses, calls the library, prints. Exit statuses live in main() only.

One module per command group (setup, runs, reports, studies, slurm) registers its commands on common.cli;
importing them here builds the whole command before main() runs it."""

from . import reports, runs, setup, slurm, studies  # noqa: F401 - each registers its commands
from .main import main

__all__ = ["main"]
