"""Faults the world does to a session, done on purpose (marker `faults`): programs that lie or flood. Each
test says what the user sees, what is stored, and that nothing is stored as fine that was not."""

from __future__ import annotations

import time

import pytest

from concbench.records import RunStatus
from concbench.store import Store

pytestmark = [pytest.mark.faults, pytest.mark.slow]

# model → the words its stored message must hold
LIARS = {
    "impostor": "hello names go/goroutines, not fake/impostor that was run",
    "boaster": "its iterations claim",
    "overrun": "iteration 4 of 3 asked for",
    "endless-line": "a line longer than 1 MiB on stdout",
    "flood": "more than 64 MiB on stdout",
}


def test_programs_that_lie_or_flood_are_stopped_and_stored_malformed_and_the_session_goes_on(cli):
    variants = [arg for model in ["ok", *LIARS] for arg in ("-v", f"fake/{model}")]
    start = time.monotonic()
    done = cli("run", "-b", "fib", *variants, "--param", "5", "--iterations", "3", "--warmup", "1", "--runs", "1",
               "--no-probe", timeout=120)
    assert time.monotonic() - start < 60      # the overrun and the floods were stopped, not run to a time limit
    assert done.returncode == 1, done.stderr  # some runs failed: the session's own exit status for that
    (session,) = Store(cli.db).sessions()
    assert session.status == "finished"
    runs = {run.variant: run for run in Store(cli.db).runs(session.id)}
    assert runs["fake/ok"].status == RunStatus.OK
    for model, words in LIARS.items():
        run = runs[f"fake/{model}"]
        assert run.status == RunStatus.MALFORMED and words in run.message, (model, run.status, run.message)
