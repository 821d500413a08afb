"""The Slurm engine's decisions, against a scripted queue (no Slurm): each part's state from its results file and
the queue, and what `resubmit` submits, waits for and cancels. tests/test_slurm.py drives a real cluster."""

import pytest

from concbench.errors import UsageError
from concbench.scaleout import slurm
from concbench.storing.store import Store


class ScriptedSlurm(slurm.SlurmTools):
    """A queue given in advance; submissions get ids from 100 on, and every call is noted."""

    def __init__(self, queue: dict[str, tuple[str, str]]) -> None:
        self.jobs, self.calls, self.next_id = queue, [], 100

    def check(self) -> None:
        pass

    def queue(self):
        return self.jobs

    def submit(self, script, *options):
        self.calls.append(("sbatch", script.name, *options))
        self.next_id += 1
        return str(self.next_id)

    def cancel(self, job_id):
        self.calls.append(("scancel", job_id))


def _job(tmp_path, finished=(), interrupted=()) -> slurm.Job:
    job = slurm.Job(folder=tmp_path, command=["run", "-b", "fib"], shards=3, target="/r/all.sqlite", plan="p",
                    concbench=["/venv/bin/concbench"], root="/r",
                    submissions=[slurm.Submission("7", [1, 2, 3], "8", "then")])
    for k, status in [*((k, "finished") for k in finished), *((k, "interrupted") for k in interrupted)]:
        store = Store(job.shard_file(k))
        session = store.start_session("concbench run", None, {}, {"shard": {"part": f"{k}/3", "plan": "p"},
                                                                  "points": 2, "runs": 1})
        store.end_session(session, status)
        store.close()
    return job


def test_a_part_is_finished_by_its_file_else_what_the_queue_says(tmp_path):
    job = _job(tmp_path, finished=[1], interrupted=[2])
    queue = {"7_1": ("COMPLETING", "None"), "7_2": ("CANCELLED", "None"), "8": ("PENDING", "DependencyNeverSatisfied")}
    states = slurm.shard_states(job, queue)
    assert [(s.state, s.detail) for s in states] == [
        ("finished", "session 1, 0 runs"),                                  # the file decides, not the queue
        ("cancelled", "job 7_2; session 1 (interrupted) holds 0 of 2 runs"),
        ("failed", "job 7_3 no longer in the queue without a finished session; no session yet"),
    ]
    merge = slurm.merge_state(job, queue)
    assert merge[0] == "failed" and "will never start" in merge[1]
    assert slurm.summary(states, merge).startswith("1/3 shards finished, 1 cancelled, 1 failed · merge job 8")
    (tmp_path / slurm.MERGED).write_text("2026-11-26T10:00:00Z\n")
    assert slurm.merge_state(job, queue) == ("merged", "merged into /r/all.sqlite (2026-11-26T10:00:00Z)")


def test_resubmit_sends_only_the_parts_that_failed_and_its_merge_waits_for_those_still_running(tmp_path):
    job = _job(tmp_path, finished=[1])
    tools = ScriptedSlurm({"7_2": ("FAILED", "NonZeroExitCode"), "7_3": ("RUNNING", "None"), "8": ("PENDING", "Dependency")})
    submission = slurm.resubmit(job, tools)
    assert tools.calls == [("scancel", "8"),                                 # the old merge would wait for ever
                           ("sbatch", "shards.sh", "--array=2"),
                           ("sbatch", "merge.sh", "--dependency=afterok:101:7_3")]
    assert (submission.array, submission.shards, submission.merge) == ("101", [2], "102")
    assert [s.shards for s in slurm.Job.load(tmp_path).submissions] == [[1, 2, 3], [2]]


def test_resubmit_sends_the_merge_alone_where_every_part_finished_and_refuses_where_nothing_needs_it(tmp_path):
    job = _job(tmp_path, finished=[1, 2, 3])
    tools = ScriptedSlurm({"8": ("CANCELLED", "None")})
    assert slurm.resubmit(job, tools).shards == []
    assert tools.calls == [("sbatch", "merge.sh")]
    tools.jobs = {"101": ("PENDING", "Priority")}
    with pytest.raises(UsageError, match="nothing to resubmit .*3/3 shards finished · merge job 101 pending"):
        slurm.resubmit(job, tools)
