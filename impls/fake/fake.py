#!/usr/bin/env python3
"""A fake implementation speaking the concbench protocol; its model says how to (mis)behave.

TABLE is its one declaration: `fake.py describe` prints it and the argument checks read it."""

import argparse
import itertools
import json
import os
import re
import signal
import sys
import threading
import time

MODELS = {
    "ok": "right answers",
    "twin": "right answers computed another way (agreement across variants)",
    "wrong": "a wrong answer in iteration 1",
    "wrong-hang": "a wrong answer in iteration 0, then sleeps forever (a stall after a wrong result)",
    "wrong-crash": "a wrong answer in iteration 0, then aborts (SIGABRT)",
    "wrong-metric": "right answers, but reports a self-meeting (a wrong deterministic metric)",
    "crash": "aborts (SIGABRT) after its first iteration",
    "exit": "exits with status 3 after its first iteration",
    "hang": "sleeps forever after hello (a stall)",
    "spin": "busy-loops forever after hello (a slow run, not a stall)",
    "garbage": "writes a line that is not protocol after its first iteration",
    "silent": "exits at once with status 0 without a line (it never says hello)",
    "threads": "leaks a thread every 20 ms for one second, then answers right",
    "bigrss": "touches 200 MiB, then answers right",
    "slow": "right answers, each iteration padded by a sleep of pad_ms (default 5)",
    "quadratic": "right answers in a time that grows with N squared",
    "hello-type": "says hello with a number for its language (a wrong type only the protocol's schema catches)",
    "hello-field": "says hello without its runtime (a missing field only the protocol's schema catches)",
    "impostor": "says hello as go/goroutines, then answers right (another program answering)",
    "boaster": "right answers, each claiming an hour (more time than its process lasts)",
    "overrun": "ignores --iterations: right answers without end",
    "endless-line": "after hello, writes on stdout without end and never a newline",
    "flood": "after hello, writes metrics lines (valid protocol) without end",
}

INT = {"int": {"min": 0}}
SWITCH = {"values": ["0", "1"], "default": "0"}
PAD = {"int": {"min": 0}, "default": "5"}

TABLE = {
    "fib": {
        "param": {"int": {"min": 0, "max": 30}},
        "options": {"cutoff": INT, "count_spawns": SWITCH, "pad_ms": PAD,
                    "repeat": {"int": {"min": 1, "max": 1000}, "default": "1"}},
        "models": ["ok", "wrong", "wrong-hang", "wrong-crash", "crash", "exit", "hang", "spin", "garbage", "silent",
                   "threads", "bigrss", "slow", "hello-type", "hello-field", "impostor", "boaster", "overrun",
                   "endless-line", "flood"],
    },
    "spawn-waiting": {
        "param": INT,
        "options": {"wait_ms": {"int": {"min": 0}, "default": "100"}},
        "models": ["ok", "wrong", "crash", "hang"],
    },
    "spawn-scaling": {
        "param": INT,
        "options": {"scale": {"int": {"min": 1}, "default": "1"}},
        "models": ["ok", "twin", "quadratic"],
    },
    "chameneos": {
        "param": INT,
        "options": {"variant": {"values": ["encore", "redux"], "default": "encore"},
                    "meetings": {"int": {"min": 0}, "default": "10000"}},
        "models": ["ok", "wrong-metric"],
    },
}

# Creature i starts with colour TEN[i mod 10] (chameneos.md); blue = 0, red = 1, yellow = 2.
TEN = [0, 1, 2, 1, 2, 0, 1, 2, 1, 0]


class Refused(Exception):
    """A bad request: one line on stderr, exit status 2, nothing on stdout."""


def description():
    benchmarks = {
        bench: {"param": entry["param"],
                "models": {m: {"shapes": [], "options": entry["options"]} for m in entry["models"]}}
        for bench, entry in TABLE.items()
    }
    return {"describe": {"protocol": 1, "language": "fake", "models": MODELS, "benchmarks": benchmarks}}


def accepts(domain, value):
    if "int" in domain:
        if not re.fullmatch(r"-?[0-9]+", value):
            return False
        low, high = domain["int"].get("min"), domain["int"].get("max")
        return (low is None or int(value) >= low) and (high is None or int(value) <= high)
    if "values" in domain:
        return value in domain["values"]
    return re.fullmatch(domain["pattern"], value) is not None


class Parser(argparse.ArgumentParser):
    def error(self, message):
        raise Refused(message)


def positive(text):
    if not re.fullmatch(r"[0-9]+", text) or int(text) < 1:
        raise ValueError(text)
    return int(text)


def parse(argv):
    joined = next((word for word in argv if word.startswith("--") and "=" in word), None)
    if joined:   # argparse would take --flag=value; the protocol's one spelling is --flag value
        raise Refused(f"{joined}: give a flag's value as the next word")
    parser = Parser(prog="fake.py", add_help=False, allow_abbrev=False)
    parser.add_argument("benchmark")
    parser.add_argument("--model", required=True)
    parser.add_argument("--param", required=True)
    parser.add_argument("--iterations", required=True, type=positive)
    parser.add_argument("--workers", type=positive)
    parser.add_argument("--option", action="append", default=[])
    args = parser.parse_args(argv)
    entry = TABLE.get(args.benchmark)
    if entry is None:
        raise Refused(f"unknown benchmark {args.benchmark!r}")
    if args.model not in entry["models"]:
        raise Refused(f"unknown model {args.model!r} for {args.benchmark}")
    if not accepts(entry["param"], args.param):
        raise Refused(f"bad --param {args.param!r} for {args.benchmark}")
    options = {}
    for text in args.option:
        key, _, value = text.partition("=")
        if key not in entry["options"]:
            raise Refused(f"unknown option {key!r} for {args.benchmark}")
        if not accepts(entry["options"][key], value):
            raise Refused(f"bad value {value!r} for option {key}")
        options[key] = value
    if args.benchmark == "chameneos" and options.get("variant", "encore") == "encore" and int(args.param) < 2:
        raise Refused("chameneos encore needs C >= 2")
    return args, options


def say(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def fib(k):
    return k if k < 2 else fib(k - 1) + fib(k - 2)


def work(i):
    s = i
    for _ in range(32):
        s = (1664525 * s + 1013904223) % 2**32
    return s % 1000 + 1


def chameneos(n, options):
    """The closed forms of chameneos.md: the fake's job is the protocol, not the meetings."""
    if options.get("variant", "encore") == "redux":
        metrics = {"self_meetings": 0, "colour_sum_mod3_3": sum(TEN[:3]) % 3, "colour_sum_mod3_10": sum(TEN) % 3}
        return f"meetings3={n} creature_meetings3={2 * n} meetings10={n} creature_meetings10={2 * n}", metrics
    m = int(options.get("meetings", "10000"))
    metrics = {"self_meetings": 0, "colour_sum_mod3": sum(TEN[i % 10] for i in range(n)) % 3}
    return f"meetings={m} creature_meetings={2 * m}", metrics


def kernel(benchmark, model, n, options):
    """The result string and the metrics of one iteration."""
    if benchmark == "fib":
        return str(fib(n)), {}
    if benchmark == "chameneos":
        return chameneos(n, options)
    if benchmark == "spawn-scaling":
        # A sleeping "spawn cost" linear in N dominates the time, so a loaded machine cannot bend the growth.
        time.sleep(0.02 * n / 1000)
        if model == "quadratic":
            time.sleep(0.005 * (n / 1000) ** 2)   # bookkeeping that grows with the square of N
        scale = int(options.get("scale", "1"))
        total = sum(work(i) for i in range(n)) if model != "twin" else sum(map(work, reversed(range(n))))
        return f"tasks={n} sum={total * scale}", {}
    wait_s = int(options.get("wait_ms", "100")) / 1000
    total = 0
    for i in range(1, n + 1):
        time.sleep(wait_s)
        total += i
    return f"tasks={n} sum={total}", {}


def hello(model):
    """The hello line; two models break the schema in ways the runtime parser lets through."""
    fields = {"protocol": 1, "language": "fake", "runtime": f"Python {sys.version.split()[0]}", "model": model}
    if model == "hello-type":
        fields["language"] = 7
    if model == "hello-field":
        del fields["runtime"]
    if model == "impostor":
        fields.update(language="go", model="goroutines")
    return fields


def misbehave_before(model):
    if model == "hang":
        time.sleep(3600)
    if model == "spin":
        while True:
            pass
    if model == "threads":
        stop = threading.Event()
        for _ in range(50):
            threading.Thread(target=stop.wait, daemon=True).start()
            time.sleep(0.02)
    if model == "bigrss":
        blob = bytearray(200 * 1024 * 1024)
        for i in range(0, len(blob), 4096):
            blob[i] = 1


def flood(model):
    """What endless-line and flood write until the harness stops them."""
    if model == "endless-line":
        while True:
            sys.stdout.write("x" * 65536)
    while True:
        sys.stdout.write('{"metrics": {"fake_metric": 7}}\n' * 4096)


def misbehave_after(model, t):
    if t == 0 and model in ("crash", "wrong-crash"):
        os.kill(os.getpid(), signal.SIGABRT)
    if t == 0 and model == "wrong-hang":
        time.sleep(3600)
    if t == 0 and model == "exit":
        print("fake.py: giving up on purpose", file=sys.stderr)
        sys.exit(3)
    if t == 0 and model == "garbage":
        print("Hello from stdout: this is not protocol")
        sys.stdout.flush()


def main():
    if sys.argv[1:] == ["describe"]:
        say(description())
        return
    try:
        args, options = parse(sys.argv[1:])
    except Refused as refusal:
        print(f"fake.py: {refusal}", file=sys.stderr)
        sys.exit(2)
    model, n = args.model, int(args.param)
    if model == "silent":
        return
    say({"hello": hello(model)})
    misbehave_before(model)
    if model in ("endless-line", "flood"):
        flood(model)
    pad_s = int(options.get("pad_ms", "5")) / 1000 if model == "slow" else 0
    # A slowdown the harness cannot see in the options: for regression tests of `concbench compare`.
    pad_s *= float(os.environ.get("CONCBENCH_FAKE_SLOWDOWN", "1"))
    metrics = {}
    repeat = int(options.get("repeat", "1"))
    for t in itertools.count() if model == "overrun" else range(args.iterations):
        t0 = time.monotonic_ns()
        results = set()
        for _ in range(repeat):
            result, metrics = kernel(args.benchmark, model, n, options)
            results.add(result)
        if pad_s:
            time.sleep(pad_s)
        ns = (time.monotonic_ns() - t0) // repeat
        result = "|".join(sorted(results))
        if (model == "wrong" and t == 1) or (model in ("wrong-hang", "wrong-crash") and t == 0):
            result = result + "1"
        say({"iteration": t, "ns": 3600 * 10**9 if model == "boaster" else ns, "result": result})
        misbehave_after(model, t)
    if model == "wrong-metric":
        metrics = {**metrics, "self_meetings": 1}
    say({"metrics": {"fake_metric": 7, **metrics}})


if __name__ == "__main__":
    main()
