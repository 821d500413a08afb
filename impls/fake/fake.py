#!/usr/bin/env python3
"""A fake implementation speaking the concbench protocol; its model says how to misbehave."""

import json
import os
import signal
import sys
import threading
import time

MODELS = {"ok", "wrong", "crash", "exit", "hang", "spin", "garbage", "threads", "bigrss", "slow", "quadratic"}
BENCHMARKS = {"fib", "spawn-waiting", "spawn-scaling"}
OPTIONS = {"wait_ms", "cutoff", "pad_ms"}


def usage(message):
    print(f"fake.py: {message}", file=sys.stderr)
    sys.exit(2)


def parse(argv):
    if not argv or argv[0] not in BENCHMARKS:
        usage(f"unknown benchmark {argv[0] if argv else '(none)'!r}")
    args = {"benchmark": argv[0], "options": {}}
    rest = argv[1:]
    while rest:
        flag, value, rest = rest[0], (rest[1] if len(rest) > 1 else None), rest[2:]
        if value is None:
            usage(f"{flag} needs a value")
        if flag == "--option":
            key, _, val = value.partition("=")
            if key not in OPTIONS:
                usage(f"unknown option {key!r}")
            args["options"][key] = val
        elif flag in ("--model", "--param", "--iterations", "--workers"):
            args[flag[2:]] = value
        else:
            usage(f"unknown flag {flag}")
    if args.get("model") not in MODELS:
        usage(f"unknown model {args.get('model')!r}")
    return args


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


def kernel(args):
    n = int(args["param"])
    if args["benchmark"] == "fib":
        return str(fib(n))
    if args["benchmark"] == "spawn-scaling":
        # A sleeping "spawn cost" linear in N dominates the time, so a loaded machine cannot bend the growth.
        time.sleep(0.02 * n / 1000)
        if args["model"] == "quadratic":
            time.sleep(0.005 * (n / 1000) ** 2)   # bookkeeping that grows with the square of N
        return f"tasks={n} sum={sum(work(i) for i in range(n))}"
    wait_s = int(args["options"].get("wait_ms", "100")) / 1000
    total = 0
    for i in range(1, n + 1):
        time.sleep(wait_s)
        total += i
    return f"tasks={n} sum={total}"


def main():
    args = parse(sys.argv[1:])
    model = args["model"]
    say({"hello": {"protocol": 1, "language": "fake", "runtime": f"Python {sys.version.split()[0]}", "model": model}})
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
    pad_s = int(args["options"].get("pad_ms", "5")) / 1000 if model == "slow" else 0
    # A slowdown the harness cannot see in the options: for regression tests of `concbench compare`.
    pad_s *= float(os.environ.get("CONCBENCH_FAKE_SLOWDOWN", "1"))
    for t in range(int(args["iterations"])):
        t0 = time.monotonic_ns()
        result = kernel(args)
        if pad_s:
            time.sleep(pad_s)
        ns = time.monotonic_ns() - t0
        if model == "wrong" and t == 1:
            result = result + "1"
        say({"iteration": t, "ns": ns, "result": result})
        if t == 0 and model == "crash":
            os.kill(os.getpid(), signal.SIGABRT)
        if t == 0 and model == "exit":
            print("fake.py: giving up on purpose", file=sys.stderr)
            sys.exit(3)
        if t == 0 and model == "garbage":
            print("Hello from stdout: this is not protocol")
            sys.stdout.flush()
    say({"metrics": {"fake_metric": 7}})


if __name__ == "__main__":
    main()
