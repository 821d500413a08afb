"""The test kit: a scripted executor that plays processes' output through the session's own reader, on a fake
clock, and the script of a right answer. The catalog fixture is in conftest."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field

from concbench.running import executor
from concbench.storing.records import SampleRecord


@dataclass
class Script:
    """What one scripted process writes and how it ends."""

    results: list[str] = field(default_factory=list)
    ns: list[int] = field(default_factory=list)
    metrics: dict | None = None
    extra_lines: list[str] = field(default_factory=list)
    hello: bool = True
    exit_code: int | None = 0
    signal: int | None = None
    timed_out: bool = False
    busy: bool = False            # CPU used in the last seconds before a timeout
    stderr: str = ""


class FakeClock:
    def __init__(self) -> None:
        self.now_ns = 0

    def advance(self, ns: int) -> int:
        self.now_ns += ns
        return self.now_ns


class ScriptedExecutor:
    """Plays a script per launch, as a real process would: its lines go through the caller's line reader (the
    session's own), and `said` keeps every line played. `script(model, param)` gives each launch's Script;
    `ScriptedExecutor.replaying(lines)` plays the same lines verbatim for any launch (or none: spec None)."""

    def __init__(self, script: Callable[[str | None, str | None], Script]) -> None:
        self.script, self.clock, self.launched, self.said = script, FakeClock(), [], []

    @classmethod
    def replaying(cls, lines: list[str]) -> ScriptedExecutor:
        return cls(lambda model, param: Script(hello=False, extra_lines=list(lines)))

    def execute(self, spec: executor.LaunchSpec | None, on_line, is_progress) -> executor.ProcessRecord:
        args = dict(zip(spec.argv, spec.argv[1:])) if spec is not None else {}
        model, param = args.get("--model"), args.get("--param")
        self.launched.append((param, model))
        script = self.script(model, param)
        found: dict = {"started": True}
        samples: list[SampleRecord] = []
        start = self.clock.now_ns
        lines = ([json.dumps({"hello": {"protocol": 1, "language": "fake", "runtime": "x", "model": model}})]
                 if script.hello else [])
        lines += [json.dumps({"iteration": i, "ns": ns, "result": r})
                  for i, (r, ns) in enumerate(zip(script.results, script.ns))]
        lines += script.extra_lines
        if script.metrics is not None:
            lines.append(json.dumps({"metrics": script.metrics}))
        for line in lines:
            self.clock.advance(sum(script.ns) // max(len(lines), 1))
            self.said.append(line)
            stop = on_line(line)
            if stop:
                found["aborted"] = stop
                break
        if script.timed_out:
            # Samples every 10 ms over a 3 s tail; an idle process's CPU time stops growing.
            for step in range(300):
                t = self.clock.advance(10_000_000)
                cpu = step * 10_000_000 if script.busy else 0
                samples.append(SampleRecord(t - start, 1 << 20, 2, cpu))
            found.update(timed_out=True, timeout_kind="deadline", signal=9,
                         stall=executor.was_idle(samples, self.clock.now_ns - start))
        else:
            found.update(exit_code=script.exit_code, signal=script.signal)
        return executor.ProcessRecord(**found, samples=samples, stderr_tail=script.stderr,
                                      wall_ns=self.clock.now_ns - start)


def fib(n: int) -> str:
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return str(a)


def right(model: str, param: str) -> Script:
    return Script(results=[fib(int(param))] * 3, ns=[1000, 2000, 3000])
