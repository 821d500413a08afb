"""Runs a plan as one stored session: every point `runs` times, interleaved, each run judged and
stored as it ends; Ctrl-C or SIGTERM end the session as interrupted, keeping what finished."""

from __future__ import annotations

import copy
import json
import random
import shlex
import signal
import statistics
import sys
import time
from collections import defaultdict, deque
from collections.abc import Callable, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, fields, replace

from ..errors import BuildError, ProtocolError, RequestRefused, SessionInterrupted, UsageError
from ..spec.catalog import Catalog, value_order
from ..storing.records import (
    FAILED_STATUSES,
    UNFINISHED,
    IterationRecord,
    Measures,
    ProbeRecord,
    Reason,
    RunRecord,
    RunStatus,
    SessionRecord,
    SessionStatus,
    counted,
    options_text,
)
from ..storing.store import Store
from . import environment, executor, toolchains
from .plan import Point, planned_runs
from .probe import BASELINE_READINGS, Kind, Probe, ProbeError, Watch
from .protocol import Iteration, Transcript
from .verify import Ending, cross_check, judge, verdict

DEFAULT_RUN_TIMEOUT_S = 1800.0

# What a run keeps of its process's measurements: the Measures both records share, and what the
# process record derives from its samples. The judge sets the rest (stall, a failure's stderr_tail).
MEASURED = (*(f.name for f in fields(Measures)), "rss_peak_sampled_bytes", "threads_max", "run_delay_ns")


class Progress:
    """What a session tells its watcher; the CLI draws it, tests record it."""

    @contextmanager
    def live(self, total_runs: int):
        yield

    def run_started(self, point: Point, run_index: int) -> None: ...

    def iteration_done(self, point: Point, iteration: IterationRecord) -> None: ...

    def run_finished(self, run: RunRecord) -> None: ...

    def note(self, text: str) -> None:
        """A line about the session itself (the machine probe's baseline, a wait for a quiet machine)."""


@dataclass
class SessionResult:
    session_id: int
    runs: list[RunRecord] = field(default_factory=list)

    @property
    def failures(self) -> list[RunRecord]:
        return [r for r in self.runs if r.status in FAILED_STATUSES]


@dataclass
class Settings:
    runs: int = 3
    timeout_s: float | None = None   # whole run; replaces the benchmark's per-iteration deadline
    # A binary's refusal (exit 2 before hello) stops the session as bad input; `concbench check` records
    # it instead, as a run that failed, since there every request comes from the binary's own description.
    stop_on_refusal: bool = True
    seed: int = 0                 # shuffles the order of each round (stored; `--seed` repeats an order)
    # The machine probe (probe.py): a reading every `probe_every_s` of measuring, and before a hand-off
    # benchmark's run once `handoff_probe_every_s` have passed; a disturbed run is run again up to `attempts`
    # times in all, while the time spent on runs again and on waiting for a quiet machine stays within
    # `retry_share` of the session's time so far.
    probe: bool = True            # False: the machine is not read (`--no-probe`), no run is judged
    probe_every_s: float = 10.0
    handoff_probe_every_s: float = 3.0
    attempts: int = 3
    retry_share: float = 0.25
    wait_s: float = 2.0           # between readings while waiting for a quiet machine
    # After the rounds, up to `settle_s` seconds more on the series whose runs disagree (run medians spread over
    # SETTLE_SPREAD), up to SETTLE_FACTOR × runs each, cheapest first (settle): where a program's processes
    # differ, more of them is what makes its median hold when the session is run again.
    settle_s: float = 0.0
    memory_limit_bytes: int | None = None   # each run's control group's memory limit (`--memory-limit`)

    def policy(self) -> dict:
        """What a session stores of the probe's rules (its config), so that its report can say them."""
        return {"seed": self.seed, "read": self.probe, "attempts": self.attempts, "retry_share": self.retry_share,
                "settle_s": self.settle_s}


def _line_reader(point: Point, transcript: Transcript, verdicts: list[IterationRecord],
                 progress: Progress) -> Callable[[str], str | None]:
    """Feeds stdout lines to the transcript; returns the protocol error that stops the run."""

    def on_line(line: str) -> str | None:
        try:
            event = transcript.feed(line)
        except ProtocolError as error:
            return str(error)
        if isinstance(event, Iteration):
            record = IterationRecord(
                event.index, event.ns, event.result,
                str(verdict(point.benchmark, point.param, event.index, event.result, dict(point.options))),
                event.index < point.warmup,
            )
            verdicts.append(record)
            progress.iteration_done(point, record)
        return None

    return on_line


def _is_progress(line: str) -> bool:
    """Only hello and iteration lines reset the per-iteration deadline (nqueens spec)."""
    head = line[:24]
    return '"iteration"' in head or '"hello"' in head


def _ending(process: executor.ProcessRecord, transcript: Transcript) -> Ending:
    first_err = next((line for line in process.stderr_tail.splitlines() if line.strip()), "")
    return Ending(
        started=process.started, start_error=process.start_error or "", protocol_error=process.aborted,
        timed_out=process.timed_out, timeout_kind=process.timeout_kind, stall=process.stall,
        signal=process.signal, exit_code=process.exit_code, stderr_first=first_err,
        hello=transcript.hello is not None, iterations=len(transcript.iterations),
        claimed_ns=sum(i.ns for i in transcript.iterations), wall_ns=process.wall_ns, oom=process.oom,
    )


class Session:
    """Runs points through an executor (real processes, or a scripted fake in tests) and records them."""

    def __init__(self, catalog: Catalog, store: Store, settings: Settings, progress: Progress,
                 executor: executor.Executor, probe: Probe | None = None) -> None:
        self.catalog, self.store, self.settings, self.progress = catalog, store, settings, progress
        self.executor, self.probe = executor, probe

    def _cpus(self, cores: int) -> tuple[int, ...]:
        return tuple(environment.allowed_cpus()[:cores])

    def run_once(self, point: Point, run_index: int, attempt: int = 0) -> RunRecord:
        """Launch one run of a point through the executor, judge it and return its record."""
        impl = self.catalog.implementation_of(point.variant)
        argv, env = toolchains.command_for(
            impl, point.benchmark.id, point.variant.model, point.param, point.iterations,
            point.cores, point.options,
        )
        cpus = self._cpus(point.cores)
        timeout = self.settings.timeout_s
        started_at_ns = time.time_ns()
        spec = executor.LaunchSpec(
            argv=tuple(argv), env=env, cwd=impl.folder, cpus=cpus,
            timeout_s=timeout if timeout is not None else DEFAULT_RUN_TIMEOUT_S,
            line_deadline_s=None if timeout is not None else point.deadline_s,
            memory_limit_bytes=self.settings.memory_limit_bytes,
        )
        transcript = Transcript(language=point.variant.language, model=point.variant.model, most=point.iterations)
        iterations: list[IterationRecord] = []
        self.progress.run_started(point, run_index)
        harness_start = time.process_time_ns()   # every thread of the harness: the loop, the progress display
        process = self.executor.execute(spec, _line_reader(point, transcript, iterations, self.progress), _is_progress)
        harness_cpu_ns = time.process_time_ns() - harness_start
        ending = _ending(process, transcript)
        if ending.refused and self.settings.stop_on_refusal:
            options = options_text(point.options)
            raise RequestRefused(
                f"{point.variant.name} refused {point.benchmark.id} {point.benchmark.param_name}={point.param}"
                + (f" ({options})" if options else "") + f": {ending.stderr_first or 'exit status 2, nothing said'}")
        run = RunRecord(
            benchmark=point.benchmark.id, variant=point.variant.name, param=point.param,
            options=dict(point.options), cores=point.cores, run_index=run_index, attempt=attempt,
            status=RunStatus.OK, cpus=",".join(map(str, cpus)), argv=argv,
            hello=transcript.hello.raw if transcript.hello else None,
            iterations=iterations, metrics=dict(transcript.metrics), harness_cpu_ns=harness_cpu_ns,
            started_at_ns=started_at_ns,
            **{name: copy.copy(getattr(process, name)) for name in MEASURED},
        )
        run = judge(run, point.benchmark, point.iterations, ending)
        return run if run.status == RunStatus.OK else replace(run, stderr_tail=process.stderr_tail)

    def _skipped(self, point: Point, run_index: int, after: str) -> RunRecord:
        return RunRecord(
            benchmark=point.benchmark.id, variant=point.variant.name, param=point.param,
            options=dict(point.options), cores=point.cores, run_index=run_index,
            status=RunStatus.SKIPPED, reason=Reason.AFTER_TIMEOUT,
            message=f"skipped: {point.benchmark.param_name}={after} timed out",
        )

    def run_plan(self, session_id: int, plan: list[Point], stored: Sequence[RunRecord] = ()) -> SessionResult:
        """Rounds of the whole plan, each in its own shuffled order (settings.seed), so that slow drift or a
        disturbed phase of the machine favours no variant and falls on a few runs of many points. `stored`: the
        runs a resumed session already holds; they are not run again, and their timeouts still skip larger
        sizes. With a probe, runs the readings around show disturbed are run again (Guard)."""
        result = SessionResult(session_id, list(stored))
        done = {(*run.series_key, run.run_index) for run in stored}
        timed_out: dict[tuple, str] = {}   # skip key -> smallest parameter that timed out
        for run in stored:
            if run.status == RunStatus.TIMEOUT:
                _keep_smallest(timed_out, run.skip_key, run.param)
        guard = Guard(self, session_id, result)
        guard.begin()
        for run_index in range(max([self.settings.runs, *(p.runs_in(self.settings.runs) for p in plan)])):
            for point in shuffled(plan, random.Random(f"{self.settings.seed}/{run_index}")):
                if (*point.series_key, run_index) in done or run_index >= point.runs_in(self.settings.runs):
                    continue
                limit = timed_out.get(point.skip_key)
                if limit is not None and value_order(point.param) > value_order(limit):
                    self.keep(session_id, result, self._skipped(point, run_index, limit))
                    continue
                run = guard.run(point, run_index)
                if run.status == RunStatus.TIMEOUT:
                    _keep_smallest(timed_out, point.skip_key, point.param)
            guard.retry(wait=False)
        guard.retry(wait=True)
        self._top_up(guard, plan, result)
        self._settle(guard, plan, result)
        guard.end()
        neutral = {b.id: b.neutral_options for b in self.catalog.benchmarks.values()}
        for position, run in cross_check(result.runs, neutral).items():
            result.runs[position] = run
            self.store.update_verification(run)
        return result

    def _top_up(self, guard: Guard, plan: list[Point], result: SessionResult) -> None:
        """The points that ask for their own number of processes (a claim's cells: its verdict needs that many
        runs, and a disturbed one does not count) and were left with fewer quiet finished runs, by disturbed ones
        the guard could not run again within its attempts and its share of the time: more runs, each once the
        machine reads quiet, at most as many more as the point asked for; none at all once the machine has not
        read quiet within the wait's bounds (Guard.run_quiet). A point with a failed run is left as it is: its
        outcome is the failure."""
        for point in plan:
            if not point.runs:
                continue
            added = 0
            while added < point.runs:
                mine = [run for run in result.runs if run.series_key == point.series_key]
                quiet = sum(1 for run in mine if run.status == RunStatus.OK and not run.disturbed)
                if not mine or quiet >= point.runs or any(run.status != RunStatus.OK for run in mine):
                    break
                if added == 0:
                    self.progress.note(f"{point.benchmark.id} {point.variant.name} {point.param} "
                                       f"({options_text(point.options)}) cores={point.cores}: {quiet} quiet run(s) "
                                       f"of the {point.runs} it needs, more once the machine reads quiet")
                if guard.run_quiet(point, max(run.run_index for run in mine) + 1) is None:
                    self.progress.note("the machine did not read quiet again within the session's bounds: no more "
                                       "runs for the points short of quiet ones")
                    return
                added += 1

    def _settle(self, guard: Guard, plan: list[Point], result: SessionResult) -> None:
        """More runs of the unsettled series (`unsettled`) while settle_s lasts: each step the one whose runs so far
        cost least (its mean run time × the runs it has had here), so that cheap noisy series get many runs and
        dear ones a few; a run that would not fit the time left is not started."""
        if self.settings.settle_s <= 0:
            return
        points = {point.series_key: point for point in plan}
        deadline = time.monotonic() + self.settings.settle_s
        extra: dict[tuple, int] = defaultdict(int)
        noted = False
        while True:
            left = deadline - time.monotonic()
            wanted = [(cost * (extra[key] + 1), key) for key, cost
                      in unsettled(result.runs, self.settings.runs * SETTLE_FACTOR).items()
                      if key in points and cost < left]
            if not wanted:
                break
            if not noted:
                self.progress.note(f"{len(wanted)} series whose runs differ by more than "
                                   f"{SETTLE_SPREAD - 1:.0%}: more runs, for up to {self.settings.settle_s:g} s")
                noted = True
            _, key = min(wanted)
            extra[key] += 1
            guard.run(points[key], max(r.run_index for r in result.runs if r.series_key == key) + 1)
        guard.retry(wait=False)   # the readings are the guard's own (every 10 s, before hand-offs): not one a run

    def keep(self, session_id: int, result: SessionResult, run: RunRecord) -> int:
        """Store a finished run at once (nothing measured is lost), then show it; its position in the result."""
        run = replace(run, id=self.store.record_run(session_id, run))
        result.runs.append(run)
        self.progress.run_finished(run)
        return len(result.runs) - 1


SETTLE_SPREAD = 1.10   # a series is unsettled while its slowest run's median is over 10 % above its fastest's
SETTLE_FACTOR = 3      # and it has fewer than 3 × --runs finished runs


def unsettled(runs: list[RunRecord], most: int) -> dict[tuple, float]:
    """The series whose counted runs (2 or more, all finished, fewer than `most`) disagree: key → their mean wall
    time in seconds."""
    series: dict[tuple, list[RunRecord]] = defaultdict(list)
    for run in counted(runs):
        series[run.series_key].append(run)
    found = {}
    for key, group in series.items():
        medians = [statistics.median(run.measured_ns()) for run in group
                   if run.status == RunStatus.OK and run.measured_ns()]
        if len(medians) < 2 or len(medians) < len(group) or len(group) >= most or min(medians) <= 0:
            continue
        if max(medians) / min(medians) > SETTLE_SPREAD:
            found[key] = statistics.fmean((run.wall_ns or 0) / 1e9 for run in group)
    return found


def shuffled(plan: list[Point], rng: random.Random) -> list[Point]:
    """The plan in a random order, except that the sizes of one line (a series' parameters) keep their order
    among themselves, so that a timeout still skips the larger sizes after it."""
    order = list(plan)
    rng.shuffle(order)
    lines: dict[tuple, deque[Point]] = defaultdict(deque)
    for point in plan:
        lines[point.skip_key].append(point)
    return [lines[point.skip_key].popleft() for point in order]


class Guard:
    """The machine probe around a session's runs: the baseline at the start, a reading between runs (every
    `probe_every_s`, and before a hand-off benchmark's run), each run judged by the readings before and after it
    (stored, `disturbed`), a disturbed one run again once the machine reads quiet, within the session's bounds.
    Without a probe (none compiled, or a scripted executor) runs are not judged."""

    def __init__(self, session: Session, session_id: int, result: SessionResult) -> None:
        self.session, self.session_id, self.result = session, session_id, result
        self.settings = session.settings
        self.probe: Probe | None = session.probe
        self.watch = Watch([])
        self.before: ProbeRecord | None = None      # the latest reading
        self.pending: list[tuple[Point, int]] = []  # runs since it (positions in the result), judged at the next
        self.queue: deque[tuple[Point, int, int]] = deque()   # disturbed runs to run again: point, index, attempt
        self.started_ns = time.monotonic_ns()
        self.retry_ns = 0                           # time spent on runs again and waiting for quiet

    def begin(self) -> None:
        if self.probe is None:
            return
        for _ in range(BASELINE_READINGS):
            if self._read(Kind.BASELINE) is None:
                return
        self.session.progress.note(f"machine probe baseline: {self.watch.current().text()}")

    def run(self, point: Point, run_index: int, attempt: int = 0) -> RunRecord:
        if self.probe is not None and self.before is not None:
            since = (time.time_ns() - self.before.at_ns) / 1e9
            if since >= self.settings.probe_every_s or (
                    point.benchmark.handoff and since >= self.settings.handoff_probe_every_s):
                self._read(Kind.BETWEEN)
        run = self.session.run_once(point, run_index, attempt)
        _await_own_termination(run)
        position = self.session.keep(self.session_id, self.result, run)
        if self.probe is not None and self.before is not None and run.status != RunStatus.SKIPPED:
            self.pending.append((point, position))
        return self.result.runs[position]

    def run_quiet(self, point: Point, run_index: int) -> RunRecord | None:
        """A run made once the machine reads quiet and judged by a reading right after it, never queued to run
        again; None where there is no probe or the machine did not read quiet within QUIET_WAIT_S (and within
        retry_share of the session's time so far, so that a short session waits seconds, not minutes)."""
        if self.probe is None:
            return None
        elapsed = (time.monotonic_ns() - self.started_ns) / 1e9
        deadline = time.monotonic() + min(QUIET_WAIT_S, self.settings.retry_share * elapsed)
        while True:
            reading = self._read(Kind.WAIT)
            if reading is None:
                return None
            if reading.quiet:
                break
            if time.monotonic() >= deadline:
                return None
            time.sleep(self.settings.wait_s)
        run = self.run(point, run_index)
        self._read(Kind.WAIT, again=False)
        return run

    def _read(self, kind: Kind, again: bool = True) -> ProbeRecord | None:
        """A reading, stored; the runs since the previous one judged by the two (with `again`, a disturbed one is
        queued to run again). A probe that fails is left off for the rest of the session (said once)."""
        if self.probe is None:   # it failed in the run just made (run_quiet's, with probe_every_s 0): no reading
            return None
        try:
            reading = self.watch.add(self.probe.read(kind))
        except ProbeError as error:
            self.session.progress.note(f"{error}: the rest of the session's runs are not judged")
            self.probe, self.pending = None, []
            return None
        self.session.store.record_probe(self.session_id, reading)
        if kind != Kind.BASELINE:
            for point, position in self.pending:
                assert self.before is not None   # runs are pending only once there is a reading before them
                disturbed, ratio = self.watch.judge(self.before, reading)
                run = self.result.runs[position] = replace(self.result.runs[position], disturbed=disturbed,
                                                           probe_ratio=ratio)
                self.session.store.update_probe(run)
                if again and run.disturbed and run.attempt + 1 < self.settings.attempts and run.status == RunStatus.OK:
                    self.queue.append((point, run.run_index, run.attempt + 1))
            self.pending = []
        self.before = reading
        return reading

    def _budget_left(self, spending_ns: int = 0) -> bool:
        """Runs again and waits so far (and `spending_ns` not yet counted) within retry_share of the rest."""
        spent = self.retry_ns + spending_ns
        return spent < self.settings.retry_share * (time.monotonic_ns() - self.started_ns - spent)

    def retry(self, wait: bool) -> None:
        """Run the queued runs again while the machine reads quiet and the budget lasts; with `wait`, wait for a
        quiet reading (the session's end), else leave them for the next round's end."""
        while self.probe is not None and (self.queue or self.pending) and self._budget_left():
            start = time.monotonic_ns()
            reading = self._read(Kind.WAIT)
            if reading is None:
                break
            if not reading.quiet:
                if not wait:
                    break
                time.sleep(self.settings.wait_s)
            else:
                for _ in range(len(self.queue)):
                    point, run_index, attempt = self.queue.popleft()
                    self.run(point, run_index, attempt)
                    if not self._budget_left(time.monotonic_ns() - start):
                        break
            self.retry_ns += time.monotonic_ns() - start
        if wait and self.queue:
            self.session.progress.note(
                f"the machine did not read quiet again within the session's bounds: {len(self.queue)} "
                "disturbed run(s) not run again (kept, marked disturbed)")

    def end(self) -> None:
        if self.probe is not None:
            self._read(Kind.END)


QUIET_WAIT_S = 120.0   # how long a run a claim needs waits for a quiet machine before the session gives up on it

# A process ended by SIGTERM, which the harness never sends, was most likely ended together with the harness: a
# cancelled Slurm job (scancel signals every process of the job, in no set order), a shutdown. Our own SIGTERM gets
# this long to arrive, so that the run is left out as unfinished (a resumed session runs it again), not stored as
# a crash.
SIGTERM_GRACE_S = 1.0


def _await_own_termination(run: RunRecord) -> None:
    if run.signal == signal.SIGTERM or run.exit_code == -signal.SIGTERM:
        time.sleep(SIGTERM_GRACE_S)   # SessionInterrupted comes out of here when our SIGTERM arrives


def _keep_smallest(timed_out: dict[tuple, str], line: tuple, param: str) -> None:
    """A timeout at `param` on a line of sizes: the larger sizes of that line are skipped ('larger' by the
    parameter's value order)."""
    if line not in timed_out or value_order(param) < value_order(timed_out[line]):
        timed_out[line] = param


# -- a whole session: stored first, then every run as it ends ------------------------------


@dataclass
class Outcome:
    session_id: int
    result: SessionResult | None
    interrupted: bool


def _raise_interrupted(signum, frame) -> None:
    raise SessionInterrupted(f"signal {signum}")


def prepare(catalog: Catalog, planner: Callable[[Catalog], list[Point]], build: Callable[[list[str]], list[str]],
            named: tuple[str, ...] = ()) -> tuple[Catalog, list[Point]]:
    """Plan (refusing bad input before anything runs), build the implementations the plan needs that
    are not built, then plan again against the fresh builds' own descriptions. `build` returns the
    languages that failed: their points are left out, unless the user named one of their variants."""
    plan = planner(catalog)
    languages = sorted({p.variant.language for p in plan})
    unbuilt = [lang for lang in languages if not toolchains.is_built(catalog.implementations[lang])]
    failed = build(unbuilt) if unbuilt else []
    for language in failed:
        chosen = [n for n in named if n.split("/")[0] == language]
        if chosen:
            raise BuildError(f"{language} did not build, so {', '.join(chosen)} cannot run")
    if unbuilt:
        catalog = catalog.reloaded()
        plan = planner(catalog)
    plan = [p for p in plan if p.variant.language not in failed]
    if not plan:
        raise UsageError("nothing left to run: every chosen implementation failed to build")
    return catalog, plan


def toolchain_records(catalog: Catalog, plan: list[Point]) -> dict[str, dict]:
    """Version and build options (optimisation level) of every language the plan uses."""
    build_dir = catalog.root / "build"
    return {
        language: {"version": toolchains.toolchain_version(impl), "build": toolchains.build_record(impl, build_dir)}
        for language, impl in catalog.implementations.items()
        if any(p.variant.language == language for p in plan)
    }


def session_config(config: dict, plan: list[Point], settings: Settings) -> dict:
    """What a session stores as its config: the command's settings, the plan's size, the runs per point (as
    JSON gives it back, so that a stored config compares equal to a new one)."""
    return json.loads(json.dumps({**config, "points": len(plan), "runs": settings.runs, "probe": settings.policy(),
                                  "memory_limit_bytes": settings.memory_limit_bytes}))


def _without_seed(config: dict) -> dict:
    """A config as `resumable` matches it: a resumed session keeps its own seed (each run goes where it was)."""
    return {**config, "probe": {k: v for k, v in config.get("probe", {}).items() if k != "seed"}}


# The fields of a session's environment that make its machine what it is (not its host name: the nodes of a
# cluster are alike): a session resumed where one differs would pool two machines in one session.
MACHINE = ("cpu_model", "cpus_allowed", "kernel", "machine", "toolchains")
# A session that did not end as finished or refused: `--resume` goes on with it.


def resumable(store: Store, config: dict) -> SessionRecord | None:
    """The latest unfinished session (interrupted, crashed, or left `running` by a killed harness) started with
    this config (`session_config`): the same plan, by its identity, the same shard of it and the same settings
    (its order's seed aside)."""
    unfinished = [s for s in store.sessions() if s.status in UNFINISHED and _without_seed(s.config) == _without_seed(config)]
    return unfinished[-1] if unfinished else None


def run_session(catalog: Catalog, store: Store, plan: list[Point], settings: Settings, progress: Progress,
                config: dict, executor: executor.Executor, resume: SessionRecord | None = None,
                probe: Probe | None = None) -> Outcome:
    """Store the session first, then every run as it ends; Ctrl-C or SIGTERM end it as interrupted, a
    binary's refusal as refused (RequestRefused goes on to the caller, naming the session), any other error as
    crashed (never finished: a resumed session runs what it lacks). With `resume` (a session of `resumable`),
    that session goes on instead, in its own order: the runs it holds are not run again. `probe`: the machine
    probe that judges each run (session.Guard); None, runs are not judged."""
    here = environment.capture(toolchain_records(catalog, plan))
    stored: list[RunRecord] = []
    if resume is None:
        session_id = store.start_session(shlex.join(["concbench", *sys.argv[1:]]), environment.git_commit(catalog.root),
                                         here, session_config(config, plan, settings))
    else:
        now = json.loads(json.dumps(here))   # as the stored one reads back
        differ = [key for key in MACHINE if resume.environment.get(key) != now.get(key)]
        if differ:
            raise UsageError(f"session {resume.id} ran on another machine (its {', '.join(differ)} differ from "
                             "this one's): resuming it here would pool two machines in one session; use another --db")
        # Its status stays as it was until it ends again (finished, or interrupted once more).
        session_id, stored = resume.id, store.runs(resume.id)
        settings = replace(settings, seed=resume.config.get("probe", {}).get("seed", settings.seed))
    session = Session(catalog, store, settings, progress, executor, probe)
    previous = signal.signal(signal.SIGTERM, _raise_interrupted)
    result, interrupted, status = None, False, SessionStatus.CRASHED
    try:
        with progress.live(planned_runs(plan, settings.runs) - len(stored)):
            result = session.run_plan(session_id, plan, stored)
        status = SessionStatus.FINISHED
    except (KeyboardInterrupt, SessionInterrupted):
        interrupted, status = True, SessionStatus.INTERRUPTED
    except RequestRefused as refusal:
        status = SessionStatus.REFUSED
        raise RequestRefused(f"{refusal} (session {session_id} stopped there, its finished runs kept)") from None
    finally:
        signal.signal(signal.SIGTERM, previous)
        try:
            store.end_session(session_id, status)
        except store.db.errors:
            # The database went away: a session that ended any other way is told by the error it ended with.
            if status == SessionStatus.FINISHED:
                raise
    return Outcome(session_id, result, interrupted)
