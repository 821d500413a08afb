"""The entry point: runs the command group and turns every outcome into one exit status."""

from __future__ import annotations

import os
import sys
import traceback

import click

from ..errors import BuildError, SessionInterrupted, UsageError
from ..storing.database import redact
from . import common
from .common import EXIT_HARNESS, EXIT_INTERRUPTED, EXIT_OK, EXIT_RUN_FAILED, EXIT_USAGE, cli


def _one_line(message: object) -> str:
    return " ".join(str(message).split())


def main(argv: list[str] | None = None) -> None:
    try:
        code = cli.main(args=argv, prog_name="concbench", standalone_mode=False)
    except click.exceptions.UsageError as error:
        where = f"{error.ctx.command_path}: " if error.ctx else "concbench: "
        common.err_console.print(f"{where}{_one_line(error.format_message())}", markup=False, highlight=False, soft_wrap=True)
        code = EXIT_USAGE
    except UsageError as error:
        common.err_console.print(f"concbench: {_one_line(error)}", markup=False, highlight=False, soft_wrap=True)
        code = EXIT_USAGE
    except BuildError as error:
        common.err_console.print(error.output, markup=False, highlight=False)
        common.err_console.print(f"concbench: {error}", markup=False, highlight=False)
        code = EXIT_RUN_FAILED
    except (click.exceptions.Abort, KeyboardInterrupt, SessionInterrupted):
        code = EXIT_INTERRUPTED
    except Exception as error:   # noqa: BLE001 - one line and its own exit status, whatever failed
        if os.environ.get("CONCBENCH_TRACEBACK"):
            traceback.print_exc()
        common.err_console.print(f"concbench: failed: {type(error).__name__}: {redact(_one_line(error))} (a session it was "
                                 "running is stored crashed where the database still answered; --resume goes on with it; "
                                 "CONCBENCH_TRACEBACK=1 shows where)", markup=False, highlight=False, soft_wrap=True)
        code = EXIT_HARNESS
    sys.exit(code if isinstance(code, int) else EXIT_OK)
