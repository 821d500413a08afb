"""A one-node Slurm cluster for the tests, started by the tests themselves.

The set-up installs Slurm and MUNGE (`make services`, run by `make test`: Debian's slurm-wlm and munge, as root); a
test never installs anything. `slurm_cluster` (session-scoped; import it into a test module) makes, in a temporary
folder, a MUNGE key and a munged on its own socket, a slurm.conf for this host alone (its CPUs, a little less than
its memory, free ports, every state, spool, log and pid file in that folder, a partition `debug`), starts slurmctld
and slurmd in the foreground under SLURM_CONF, waits until the node is idle, and yields what a client needs. At the
end it cancels what is left in the queue and stops the three daemons. Where a binary is missing the tests that use
it are skipped saying why, and fail under CI=true (the check must not vanish silently in CI)."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

START_LIMIT_S = 60
DAEMONS = ("munged", "slurmctld", "slurmd")
CLIENTS = ("sbatch", "squeue", "scancel", "sinfo")


@dataclass
class Cluster:
    folder: Path
    env: dict[str, str]       # the environment a client needs: ours with SLURM_CONF

    def run(self, *argv: str, timeout: float = 30) -> subprocess.CompletedProcess:
        return subprocess.run(argv, env=self.env, capture_output=True, text=True, timeout=timeout)

    def queue(self) -> list[str]:
        """`squeue` of every job Slurm remembers, a line each: id|state."""
        return self.run("squeue", "--noheader", "--array", "--states=all", "--format=%i|%T").stdout.split()


def _give_up(reason: str):
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI=true and the Slurm tests cannot run: {reason}", pytrace=False)
    pytest.skip(reason)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _memory_mb() -> int:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemTotal:"):
            return int(line.split()[1]) // 1024
    return 1024


def _config(folder: Path, host: str, socket_path: Path) -> str:
    # RealMemory a little under the machine's (a node with less than its configuration says is drained);
    # CR_CPU: CPUs are what jobs take, memory is not counted.
    return "\n".join([
        "ClusterName=concbench-test",
        f"SlurmctldHost={host}(127.0.0.1)",
        "SlurmUser=root", "SlurmdUser=root",
        f"SlurmctldPort={_free_port()}", f"SlurmdPort={_free_port()}",
        "AuthType=auth/munge", "CredType=cred/munge", f"AuthInfo=socket={socket_path}",
        f"StateSaveLocation={folder / 'state'}", f"SlurmdSpoolDir={folder / 'spool'}",
        f"SlurmctldPidFile={folder / 'slurmctld.pid'}", f"SlurmdPidFile={folder / 'slurmd.pid'}",
        f"SlurmctldLogFile={folder / 'slurmctld.log'}", f"SlurmdLogFile={folder / 'slurmd.log'}",
        "ProctrackType=proctrack/linuxproc", "TaskPlugin=task/none",
        "SelectType=select/cons_tres", "SelectTypeParameters=CR_CPU",
        "JobCompType=jobcomp/none", "JobAcctGatherType=jobacct_gather/none",
        "AccountingStorageType=accounting_storage/none",
        "MpiDefault=none", "ReturnToService=2",
        "KillWait=5",              # a cancelled job's processes get SIGTERM, then SIGKILL 5 s later (30 by default)
        "SchedulerParameters=sched_interval=2",
        f"PlugStackConfig={folder / 'plugstack.conf'}",   # none of the host's SPANK plugins
        f"NodeName={host} NodeAddr=127.0.0.1 CPUs={os.cpu_count()} RealMemory={max(_memory_mb() - 512, 256)} State=UNKNOWN",
        f"PartitionName=debug Nodes={host} Default=YES MaxTime=INFINITE State=UP",
        "",
    ])


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _logs(folder: Path) -> str:
    tails = [f"{p.name}: {p.read_text(errors='replace')[-1500:]}" for p in sorted(folder.glob("*.log"))]
    return "\n".join(tails)


@pytest.fixture(scope="session")
def slurm_cluster(tmp_path_factory):
    missing = [name for name in (*DAEMONS, *CLIENTS) if shutil.which(name) is None]
    if missing:
        _give_up(f"{', '.join(missing)} not found: `make services` installs Debian's slurm-wlm and munge (as root)")
    if os.geteuid() != 0:
        _give_up("the one-node Slurm of the tests runs its daemons as root (SlurmUser=root): run the tests as root")
    # Short paths: a unix socket's path may not pass 107 characters.
    folder = tmp_path_factory.mktemp("slurm")
    host = socket.gethostname().split(".")[0]
    munge_socket = folder / "munge.socket"
    key = folder / "munge.key"
    key.write_bytes(os.urandom(1024))
    key.chmod(0o600)
    for sub in ("state", "spool"):
        (folder / sub).mkdir()
    (folder / "plugstack.conf").write_text("")
    conf = folder / "slurm.conf"
    conf.write_text(_config(folder, host, munge_socket))
    env = {**os.environ, "SLURM_CONF": str(conf)}
    daemons: list[subprocess.Popen] = []
    cluster = Cluster(folder, env)
    try:
        daemons.append(subprocess.Popen(
            ["munged", "--foreground", "--force", f"--key-file={key}", f"--socket={munge_socket}",
             f"--pid-file={folder / 'munged.pid'}", f"--log-file={folder / 'munged.log'}",
             f"--seed-file={folder / 'munged.seed'}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        _wait(lambda: munge_socket.exists(), "munged's socket", folder, daemons)
        for daemon in ("slurmctld", "slurmd"):
            daemons.append(subprocess.Popen([daemon, "-D"], env=env, stdout=subprocess.DEVNULL,
                                            stderr=subprocess.DEVNULL))
        _wait(lambda: cluster.run("sinfo", "--noheader", "--format=%T").stdout.strip() == "idle",
              f"node {host} idle in sinfo", folder, daemons)
        yield cluster
    finally:
        if daemons:
            cluster.run("scancel", "--me")   # nothing of ours outlives the cluster
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline and any(
                    line.split("|")[1] in ("RUNNING", "COMPLETING", "PENDING") for line in _safe_queue(cluster)):
                time.sleep(0.5)
        for daemon in reversed(daemons):
            _stop(daemon)


def _safe_queue(cluster: Cluster) -> list[str]:
    try:
        return [line for line in cluster.queue() if "|" in line]
    except (OSError, subprocess.TimeoutExpired):
        return []


def _wait(ready, what: str, folder: Path, daemons: list[subprocess.Popen] = ()) -> None:
    deadline = time.monotonic() + START_LIMIT_S
    while not ready():
        ended = [d.args[0] for d in daemons if d.poll() is not None]
        if ended or time.monotonic() > deadline:
            why = f"{', '.join(ended)} ended" if ended else f"not within {START_LIMIT_S} s"
            pytest.fail(f"the test cluster did not start ({what}: {why})\n{_logs(folder)}", pytrace=False)
        time.sleep(0.3)
