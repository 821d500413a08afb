"""Slurm as the engine for many machines (issue 25): a plan's N shards submitted as one job array, a task per
shard on a node of its own, then a merge job once every task has ended well; the state of such a job read back.

Slurm schedules; nothing here does. Its tools are called in one place, `SlurmTools`. A job folder holds what
one submission needs and leaves: job.json (the command, N, the job ids, the target), the two batch scripts,
each shard's results file shard-K.sqlite and its log shard-K.out, the merge's log merge.out and, once the merge
has succeeded, the file `merged`. A shard is finished when its file holds a finished session of that shard:
that file is the truth, the queue only says what is pending or running."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from ..errors import UsageError
from ..storing.database import password_file_line, shown, without_password
from ..storing.files import write_whole
from ..storing.records import SessionStatus
from ..storing.store import Store

JOB_FILE, SHARD_SCRIPT, MERGE_SCRIPT, MERGED = "job.json", "shards.sh", "merge.sh", "merged"
# The target's password, where its URL held one: libpq's password file, which only the merge job reads. No other
# file of the folder holds it, and every file here is its owner's alone (shared storage).
PASSWORD_FILE = "pgpass"

# squeue's job states (%T), by what they mean for a shard: still to run, running, or over. A state not named
# here (FAILED, TIMEOUT, NODE_FAIL, OUT_OF_MEMORY, COMPLETED without a finished session, ...) is a failure.
PENDING = {"PENDING", "REQUEUED", "REQUEUE_HOLD", "REQUEUE_FED", "RESV_DEL_HOLD"}
RUNNING = {"RUNNING", "CONFIGURING", "COMPLETING", "SUSPENDED", "STOPPED", "SIGNALING", "STAGE_OUT", "RESIZING"}
CANCELLED = {"CANCELLED"}


class SlurmTools:
    """sbatch, squeue and scancel: the only calls to Slurm."""

    def _tool(self, name: str) -> str:
        path = shutil.which(name)
        if path is None:
            raise UsageError(f"{name} is not on PATH: run this on a Slurm submit host (or `make services` here)")
        return path

    def _call(self, argv: list[str]) -> str:
        try:
            done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
        except subprocess.TimeoutExpired:
            raise UsageError(f"{Path(argv[0]).name} did not answer within 60 s") from None
        if done.returncode != 0:
            said = " ".join((done.stderr or done.stdout).split()) or f"exit status {done.returncode}"
            raise UsageError(f"{Path(argv[0]).name} failed: {said}")
        return done.stdout

    def check(self) -> None:
        """Refuses, before anything is written, where Slurm's tools are missing."""
        for name in ("sbatch", "squeue", "scancel"):
            self._tool(name)

    def submit(self, script: Path, *options: str) -> str:
        """`sbatch --parsable`: the new job's id."""
        out = self._call([self._tool("sbatch"), "--parsable", *options, str(script)])
        return out.strip().split(";")[0]   # "id" or "id;cluster"

    def queue(self) -> dict[str, tuple[str, str]]:
        """This user's jobs Slurm still remembers, array tasks one by one: id ("12" or "12_3") → (state, reason)."""
        out = self._call([self._tool("squeue"), "--me", "--noheader", "--array", "--states=all",
                          "--format=%i|%T|%r"])
        jobs = {}
        for line in out.splitlines():
            job_id, state, reason = (line.split("|") + ["", ""])[:3]
            jobs[job_id.strip()] = (state.strip(), reason.strip())
        return jobs

    def cancel(self, job_id: str) -> None:
        self._call([self._tool("scancel"), job_id])


@dataclass
class Submission:
    array: str             # the array's job id
    shards: list[int]      # the shards it runs (its task ids)
    merge: str             # the merge job's id
    submitted_at: str


@dataclass
class Job:
    """A job folder's job.json."""

    folder: Path
    command: list[str]             # `run …` or `study run …`, as given
    shards: int                    # N
    target: str                    # where the merge goes: a results file or a database URL
    plan: str                      # the plan's identity, as planned on the submitting host
    concbench: list[str]           # the concbench the tasks run (this one, by absolute path)
    root: str                      # where they run it (the checkout)
    partition: str | None = None
    time: str | None = None
    submissions: list[Submission] = field(default_factory=list)

    def shard_file(self, k: int) -> Path:
        return self.folder / f"shard-{k}.sqlite"

    def save(self) -> None:
        document = {k: v for k, v in asdict(self).items() if k != "folder"}
        write_private(self.folder / JOB_FILE, json.dumps(document, indent=1) + "\n")

    @classmethod
    def load(cls, folder: Path) -> Job:
        path = folder / JOB_FILE
        try:
            document = json.loads(path.read_text())
            document["submissions"] = [Submission(**s) for s in document.get("submissions", [])]
            return cls(folder=folder, **document)
        except FileNotFoundError:
            raise UsageError(f"{folder}: no {JOB_FILE} there (not a folder `concbench slurm submit` wrote)") from None
        except (ValueError, TypeError) as error:
            raise UsageError(f"{path}: not a job file of concbench slurm ({error})") from None


def write_private(path: Path, text: str) -> None:
    """Write a job file whole, readable and writable by its owner only (shared storage)."""
    write_whole(path, text, mode=0o600)


def newest_folder(jobs_dir: Path) -> Path:
    """The job folder submitted last under `jobs_dir` (results/slurm/)."""
    folders = sorted((p.parent for p in jobs_dir.glob(f"*/{JOB_FILE}")), key=lambda p: (p / JOB_FILE).stat().st_mtime)
    if not folders:
        raise UsageError(f"{jobs_dir}: no job folders yet (`concbench slurm submit` makes them)")
    return folders[-1]


# -- the batch scripts ------------------------------------------------------------------------------------------

# What sbatch takes as a partition or a time limit: names, numbers and its separators; never a space, a quote, a
# newline (a command in the script) or a % (a file name pattern).
_SLURM_VALUE = re.compile(r"[\w.,:+-]+")
# A path sbatch reads from a directive, in double quotes: no quote, backslash or control character may end them.
_PATH_REFUSED = re.compile(r'["\\\x00-\x1f\x7f]')


def check_values(job: Job) -> None:
    """Refuse, in one line, what the job scripts could not hold safely."""
    for flag, value in (("--partition", job.partition), ("--time", job.time)):
        if value is not None and not _SLURM_VALUE.fullmatch(value):
            raise UsageError(f"{flag} {value!r}: not a Slurm {flag[2:]} (letters, digits and . , : + - _ only)")
    for what, path in (("--dir", str(job.folder)), ("the checkout's path", job.root)):
        if _PATH_REFUSED.search(path):
            raise UsageError(f"{what} {path!r}: a quote, backslash or control character, which a job script "
                             "cannot hold")


def _header(job: Job, name: str, log: str) -> list[str]:
    # The log's path in double quotes (a space), the folder's own % doubled (sbatch expands %a, %j, ...).
    folder = str(job.folder).replace("%", "%%")
    lines = ["#!/bin/bash", f"#SBATCH --job-name={name}", f'#SBATCH --output="{folder}/{log}"',
             "#SBATCH --open-mode=append"]   # a shard submitted again writes on below its first log
    lines += [f"#SBATCH --partition={job.partition}"] if job.partition else []
    lines += [f"#SBATCH --time={job.time}"] if job.time else []
    return lines


def shard_script(job: Job) -> str:
    """One shard per array task (`--array` is given at submission: all shards, or those submitted again)."""
    shard_db = f"{shlex.quote(str(job.folder))}/shard-$SLURM_ARRAY_TASK_ID.sqlite"
    command = " ".join([shlex.join([*job.concbench, *job.command]),
                        f"--shard \"$SLURM_ARRAY_TASK_ID/{job.shards}\"", f"--db {shard_db}", "--resume"])
    return "\n".join([
        *_header(job, f"concbench-{job.plan}", "shard-%a.out"),
        "#SBATCH --exclusive",    # a node to itself: nothing else competes for its cores while it measures
        f"# concbench slurm submit: shard $SLURM_ARRAY_TASK_ID of {job.shards} (job.json beside this script)",
        f"cd {shlex.quote(job.root)} || exit 1",
        command,
        "status=$?",
        "# 1 is a finished session some of whose runs failed (a wrong answer, a crash): results like any other, so",
        "# the task succeeds and the merge takes them. Interrupted (130), refused (2) or concbench failing (3: the",
        "# session is stored crashed, never finished), the task fails.",
        '[ "$status" -eq 1 ] && exit 0',
        'exit "$status"',
        "",
    ])


def merge_script(job: Job) -> str:
    sources = [str(job.shard_file(k)) for k in range(1, job.shards + 1)]   # every shard named: one missing fails it
    merge = shlex.join([*job.concbench, "merge", *sources, "--into", job.target])
    password = job.folder / PASSWORD_FILE
    return "\n".join([
        *_header(job, f"concbench-merge-{job.plan}", "merge.out"),
        *([f"export PGPASSFILE={shlex.quote(str(password))}"] if password.exists() else []),
        f"cd {shlex.quote(job.root)} || exit 1",
        f"{merge} && date -u +%Y-%m-%dT%H:%M:%SZ > {shlex.quote(str(job.folder / MERGED))}",
        "",
    ])


# -- submitting -------------------------------------------------------------------------------------------------

def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _submit(job: Job, tools: SlurmTools, shards: list[int], waits_also_for: Sequence[str] = ()) -> Submission:
    """An array of `shards`, and a merge job that starts once it (and `waits_also_for`) ended well."""
    array = tools.submit(job.folder / SHARD_SCRIPT, f"--array={','.join(map(str, shards))}")
    try:
        merge = tools.submit(job.folder / MERGE_SCRIPT, f"--dependency=afterok:{':'.join([array, *waits_also_for])}")
    except UsageError:
        tools.cancel(array)   # no array without its merge
        raise
    submission = Submission(array, shards, merge, _now())
    job.submissions.append(submission)
    job.save()
    return submission


def submit(job: Job, tools: SlurmTools) -> Submission:
    """Writes the job folder (job.json and the scripts), then submits every shard and the merge."""
    tools.check()
    if (job.folder / JOB_FILE).exists():
        raise UsageError(f"{job.folder}: a job was submitted from this folder already "
                         "(`concbench slurm status` or `resubmit` it, or give another --dir)")
    check_values(job)
    made = not job.folder.exists()
    job.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    job.target, password = without_password(job.target) if "://" in job.target else (job.target, None)
    scripts = {}
    if password is not None:
        scripts[job.folder / PASSWORD_FILE] = password_file_line(password)
        write_private(job.folder / PASSWORD_FILE, scripts[job.folder / PASSWORD_FILE])
    scripts |= {job.folder / SHARD_SCRIPT: shard_script(job), job.folder / MERGE_SCRIPT: merge_script(job)}
    for path, text in scripts.items():
        write_private(path, text)
    try:
        return _submit(job, tools, list(range(1, job.shards + 1)))   # job.json is written once both are in
    except UsageError:
        # Nothing half-submitted stays behind, so that the same command can simply be given again.
        for path in scripts:
            path.unlink(missing_ok=True)
        if made:
            job.folder.rmdir()
        raise


# -- state ------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class ShardState:
    index: int
    state: str       # finished | running | pending | failed | cancelled
    detail: str


def _session_of_shard(job: Job, k: int):
    """The shard file's session of shard k/N, with its runs (None where there is none yet)."""
    path = job.shard_file(k)
    if not path.is_file():
        return None, []
    store = Store(path)
    try:
        shard = f"{k}/{job.shards}"
        sessions = [s for s in store.sessions() if (s.config.get("shard") or {}).get("part") == shard]
        if not sessions:
            return None, []
        return sessions[-1], store.runs(sessions[-1].id)
    finally:
        store.close()


def _latest(job: Job, k: int) -> Submission:
    return next(s for s in reversed(job.submissions) if k in s.shards)


def shard_states(job: Job, queue: dict[str, tuple[str, str]]) -> list[ShardState]:
    states = []
    for k in range(1, job.shards + 1):
        session, runs = _session_of_shard(job, k)
        task = f"{_latest(job, k).array}_{k}"
        held = (f"session {session.id} ({session.status}) holds {len(runs)} of "
                f"{session.config.get('points', 0) * session.config.get('runs', 0)} runs" if session else "no session yet")
        if session is not None and session.status == SessionStatus.FINISHED:
            states.append(ShardState(k, "finished", f"session {session.id}, {len(runs)} runs"))
            continue
        state, reason = queue.get(task, ("", ""))
        if state in PENDING:
            states.append(ShardState(k, "pending", f"job {task}" + (f" ({reason})" if reason and reason != "None" else "")))
        elif state in RUNNING:
            states.append(ShardState(k, "running", f"job {task}; {held}"))
        elif state in CANCELLED:
            states.append(ShardState(k, "cancelled", f"job {task}; {held}"))
        else:
            ended = f"ended {state.lower()}" if state else "no longer in the queue"
            states.append(ShardState(k, "failed", f"job {task} {ended} without a finished session; {held}"))
    return states


def merge_state(job: Job, queue: dict[str, tuple[str, str]]) -> tuple[str, str]:
    """(merged | pending | running | failed | cancelled, what to say)."""
    marker = job.folder / MERGED
    if marker.is_file():
        return "merged", f"merged into {shown(job.target)} ({marker.read_text().strip()})"
    merge = job.submissions[-1].merge
    state, reason = queue.get(merge, ("", ""))
    if state in PENDING and reason == "DependencyNeverSatisfied":
        return "failed", f"merge job {merge} will never start: a shard it waits for failed ({reason})"
    if state in PENDING:
        return "pending", f"merge job {merge} pending" + (f" ({reason})" if reason and reason != "None" else "")
    if state in RUNNING:
        return "running", f"merge job {merge} running"
    if state in CANCELLED:
        return "cancelled", f"merge job {merge} cancelled"
    ended = f"ended {state.lower()}" if state else "no longer in the queue"
    return "failed", f"merge job {merge} {ended} without merging (see {job.folder / 'merge.out'})"


def summary(states: list[ShardState], merge: tuple[str, str]) -> str:
    counts: dict[str, int] = {}
    for s in states:
        counts[s.state] = counts.get(s.state, 0) + 1
    finished = counts.pop("finished", 0)
    others = "".join(f", {n} {state}" for state, n in counts.items())
    return f"{finished}/{len(states)} shards finished{others} · {merge[1]}"


# -- submitting again -------------------------------------------------------------------------------------------

def resubmit(job: Job, tools: SlurmTools) -> Submission:
    """Submits again the shards that failed or were cancelled, as one new array (each resumes its session), with a
    new merge job after it and after the shards still pending or running; where every shard finished but the
    merge did not happen, the merge alone (a submission without an array). Refuses where nothing needs it."""
    tools.check()
    queue = tools.queue()
    states = shard_states(job, queue)
    merge = merge_state(job, queue)
    again = [s.index for s in states if s.state in ("failed", "cancelled")]
    if not again and (merge[0] in ("merged", "pending", "running") or any(s.state != "finished" for s in states)):
        raise UsageError(f"{job.folder}: nothing to resubmit ({summary(states, merge)})")
    # An earlier merge job still pending waits on a shard that failed, or would merge without the new ones.
    for old in dict.fromkeys(s.merge for s in job.submissions):
        if queue.get(old, ("", ""))[0] in PENDING:
            tools.cancel(old)
    if not again:
        submission = Submission("", [], tools.submit(job.folder / MERGE_SCRIPT), _now())
        job.submissions.append(submission)
        job.save()
        return submission
    still = [f"{_latest(job, s.index).array}_{s.index}" for s in states if s.state in ("pending", "running")]
    return _submit(job, tools, again, still)
