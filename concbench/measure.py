"""One measuring session from a plan: builds what is missing, stores the session, runs it, ends it."""

from __future__ import annotations

import shlex
import signal
import sys
from dataclasses import dataclass

from . import environment, runner, toolchains
from .catalog import Catalog
from .errors import SessionInterrupted
from .plan import Point
from .session import Progress, Session, SessionResult, Settings
from .store import Store


@dataclass
class Outcome:
    session_id: int
    result: SessionResult | None
    interrupted: bool


def _raise_interrupted(signum, frame) -> None:
    raise SessionInterrupted(f"signal {signum}")


def build_missing(catalog: Catalog, plan: list[Point], build) -> list[str]:
    """Build the implementations the plan needs that are not built (or whose build cannot describe
    itself yet); returns those that failed."""
    languages = sorted({p.variant.language for p in plan})
    return build([l for l in languages if not toolchains.is_built(catalog.implementations[l])])


def toolchain_records(catalog: Catalog, plan: list[Point]) -> dict[str, dict]:
    """Version and build options (optimisation level) of every language the plan uses."""
    build_dir = catalog.root / "build"
    return {
        language: {"version": toolchains.toolchain_version(impl), "build": toolchains.build_record(impl, build_dir)}
        for language, impl in catalog.implementations.items()
        if any(p.variant.language == language for p in plan)
    }


def run_plan(catalog: Catalog, store: Store, plan: list[Point], settings: Settings, progress: Progress,
             config: dict, executor: runner.Executor) -> Outcome:
    """Store the session first, then every run as it ends; Ctrl-C or SIGTERM end it as interrupted."""
    session_id = store.start_session(
        shlex.join(["concbench", *sys.argv[1:]]), environment.git_commit(catalog.root),
        environment.capture(toolchain_records(catalog, plan)), {**config, "points": len(plan), "runs": settings.runs},
    )
    session = Session(catalog, store, settings, progress, executor)
    previous = signal.signal(signal.SIGTERM, _raise_interrupted)
    result, interrupted = None, False
    try:
        with progress.live(len(plan) * settings.runs):
            result = session.execute(session_id, plan)
    except (KeyboardInterrupt, SessionInterrupted):
        interrupted = True
    finally:
        signal.signal(signal.SIGTERM, previous)
        store.end_session(session_id, "interrupted" if interrupted else "finished")
    return Outcome(session_id, result, interrupted)
