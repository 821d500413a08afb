"""`make mutate`: mutation testing of the modules that judge (issue 23), with mutmut 3.

Runs mutmut over SCOPE (verify.py, protocol.py, regression.py and the comparisons of stats.py) against
the fast tests of those modules ([tool.mutmut] in pyproject.toml), prints each module's score, and
exits 1 naming every surviving mutant that tests/mutation-equivalents.txt does not list as
equivalent (a mutant no test can tell from the original).

An entry of that file is the mutant's name, its changed lines as `mutmut show` prints them, and why
it is equivalent. A survivor matches an entry by its function and its changed lines, not by its
number, so renumbering after an edit elsewhere in the function keeps the entry; an entry that no
longer matches a survivor is reported as stale, to be removed or refreshed.

    .venv/bin/python tests/mutate.py [--jobs N] [MODULE...]   # MODULE: verify, protocol, regression, stats
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EQUIVALENTS = ROOT / "tests" / "mutation-equivalents.txt"
MUTANTS = ROOT / "mutants"
# Read-only data the selected tests read through the checkout's root (the catalog): linked, not copied.
LINKED = ("benchmarks", "impls", "docs", "studies", "README.md")

# Per module, the functions mutated (mutmut's mangled names; a method is xǁClassǁmethod).
SCOPE: dict[str, tuple[str, ...]] = {
    "running.verify": ("*",),
    "running.protocol": ("*",),
    "analysis.regression": ("*",),
    # The comparisons and what they call; not the bimodality rules, the study methods or the warning kinds.
    "analysis.stats": ("x_summary_of", "x_compare", "x_compare_runs", "xǁRunLevelComparisonǁruns_to_resolve",
              "x__as_array", "x__check_confidence", "x__finite_or_none", "x__pct", "x__median_axis",
              "x__ratio_of_medians_axis", "x__bootstrap_interval"),
}
KILLED = {1, 3, 36, 37, -24, 24, 152, 255}   # mutmut's exit codes: killed by a test, timed out, type check
UNKILLED = {0: "survived", 33: "no selected test reaches its function", 5: "no tests", None: "not run"}


def patterns(modules=None) -> list[str]:
    return [f"concbench.{module}.{name}__mutmut_*" if name != "*" else f"concbench.{module}.*"
            for module, names in SCOPE.items() if not modules or module in modules for name in names]


def function_of(mutant: str) -> str:
    return re.sub(r"__mutmut_\d+$", "", mutant)


@dataclass(frozen=True)
class Entry:
    name: str
    change: tuple[str, ...]    # the diff's -/+ lines, stripped after the sign
    why: str
    line: int


def change_of(diff: str) -> tuple[str, ...]:
    lines = diff.splitlines()[2:]   # past the ---/+++ header
    return tuple(f"{line[0]} {line[1:].strip()}" for line in lines if line[:1] in "+-")


def read_equivalents(path: Path) -> list[Entry]:
    entries: list[Entry] = []
    name, change, start = None, [], 0
    for number, raw in enumerate(path.read_text().splitlines(), 1) if path.exists() else ():
        text = raw.strip()
        if not text or text.startswith("#"):
            continue
        if not raw[:1].isspace():
            if name is not None:
                raise SystemExit(f"{path.name}:{start}: {name} has no 'why:' line")
            name, change, start = text, [], number
        elif text.startswith(("- ", "+ ", "-", "+")) and name is not None:
            change.append(f"{text[0]} {text[1:].strip()}")
        elif text.startswith("why:") and name is not None:
            entries.append(Entry(name, tuple(change), text[4:].strip(), start))
            name = None
        else:
            raise SystemExit(f"{path.name}:{number}: expected a mutant name, a -/+ line or 'why:'")
    if name is not None:
        raise SystemExit(f"{path.name}:{start}: {name} has no 'why:' line")
    return entries


def prepare() -> None:
    # A fresh copy each time: mutmut keeps unmutated files it copied earlier, and results it cached.
    if MUTANTS.is_symlink() or MUTANTS.is_file():
        MUTANTS.unlink()
    elif MUTANTS.exists():
        shutil.rmtree(MUTANTS)
    MUTANTS.mkdir()
    for name in LINKED:
        (MUTANTS / name).symlink_to(Path("..") / name)


def run_mutmut(jobs: int, modules: list[str]) -> None:
    log = MUTANTS / "mutmut.log"
    command = [sys.executable, "-m", "mutmut", "run", "--max-children", str(jobs), *patterns(modules)]
    started = time.monotonic()
    with log.open("w") as out:
        done = subprocess.run(command, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
    print(f"mutmut ran in {time.monotonic() - started:.0f} s ({jobs} jobs; its log: {log.relative_to(ROOT)})")
    if done.returncode != 0:
        tail = log.read_text(errors="replace")[-3000:]
        raise SystemExit(f"mutmut failed (exit status {done.returncode}):\n{tail}")


def results(modules: list[str]) -> dict[str, dict[str, int | None]]:
    """Per module, each in-scope mutant's exit code (None: not run)."""
    wanted = patterns(modules)
    found: dict[str, dict[str, int | None]] = {}
    for module in modules:
        meta = MUTANTS / "concbench" / f"{module.replace('.', '/')}.py.meta"
        codes = json.loads(meta.read_text())["exit_code_by_key"]
        found[module] = {k: v for k, v in codes.items() if any(fnmatch.fnmatchcase(k, p) for p in wanted)}
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="mutants tested at once")
    parser.add_argument("--report-only", action="store_true", help="read the last run's results, run nothing")
    parser.add_argument("modules", nargs="*", metavar="MODULE", help=f"only these ({', '.join(SCOPE)}; default all)")
    args = parser.parse_args()
    if set(args.modules) - set(SCOPE):
        parser.error(f"no such module: {', '.join(sorted(set(args.modules) - set(SCOPE)))} (one of {', '.join(SCOPE)})")
    modules = args.modules or list(SCOPE)
    os.chdir(ROOT)
    if not args.report_only:
        prepare()
        run_mutmut(args.jobs, modules)

    from mutmut.mutation.diff_apply import get_diff_for_mutant  # after the run: it reads mutants/

    entries = read_equivalents(EQUIVALENTS)
    used: set[int] = set()
    unlisted: list[tuple[str, int | None, tuple[str, ...]]] = []
    print(f"\n{'module':<22}{'killed':>8}{'survived':>10}{'equivalent':>12}{'unlisted':>10}")
    totals, grand = [0, 0, 0, 0], 0
    for module, codes in results(modules).items():
        survivors = sorted((k for k, v in codes.items() if v not in KILLED), key=_natural)
        equivalent = 0
        for name in survivors:
            change = change_of(get_diff_for_mutant(name, path=f"concbench/{module.replace('.', '/')}.py"))
            # Same function and change; where one line is changed alike in two places, the same name first.
            same = [i for i, e in enumerate(entries) if function_of(e.name) == function_of(name) and e.change == change]
            match = next((i for i in same if entries[i].name == name), next((i for i in same if i not in used),
                                                                             same[0] if same else None))
            if match is None:
                unlisted.append((name, codes[name], change))
            else:
                used.add(match)
                equivalent += 1
        total, killed = len(codes), len(codes) - len(survivors)
        row = (killed, len(survivors), equivalent, len(survivors) - equivalent)
        totals, grand = [t + r for t, r in zip(totals, row)], grand + total
        print(f"{module.replace('.', '/') + '.py':<22}{f'{killed}/{total}':>8}{row[1]:>10}{row[2]:>12}{row[3]:>10}")
    print(f"{'all':<22}{f'{totals[0]}/{grand}':>8}{totals[1]:>10}{totals[2]:>12}{totals[3]:>10}")

    stale = [e for i, e in enumerate(entries)
             if i not in used and e.name.removeprefix("concbench.").rpartition(".")[0] in modules]
    if stale:
        print(f"\n{len(stale)} entries of {EQUIVALENTS.name} match no survivor (killed now, or the function "
              "changed): remove or refresh them")
        for e in stale:
            print(f"  line {e.line}: {e.name}")
    if unlisted:
        print(f"\n{len(unlisted)} survivors not listed as equivalent: kill each with a test, or add it to "
              f"{EQUIVALENTS.relative_to(ROOT)} with why (`mutmut show NAME` shows it):\n")
        for name, code, change in unlisted:
            print(f"{name}  ({UNKILLED.get(code, f'exit status {code}')})")
            for line in change:
                print(f"    {line}")
            print("    why: ...")
        return 1
    print(f"\n{totals[1]} survivors, all listed as equivalent")
    return 0


def _natural(name: str) -> tuple:
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name))


if __name__ == "__main__":
    sys.exit(main())
