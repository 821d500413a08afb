"""`concbench check` for every implementation folder, and the guards around it.

The list is read from impls/ itself, so a new language cannot be left out; a folder whose
toolchain is missing is skipped with the reason (failed under CI=true, where every toolchain is installed)."""

import subprocess
import tomllib
from pathlib import Path

import pytest
from conftest import COMPILED, installed

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = sorted(p.name for p in (ROOT / "impls").iterdir() if p.is_dir())


def test_every_implementation_folder_has_a_manifest_a_description_snapshot_and_a_readme():
    assert FOLDERS, "no implementations found"
    for name in FOLDERS:
        assert (ROOT / "impls" / name / "impl.toml").is_file(), f"impls/{name} has no impl.toml"
        assert (ROOT / "impls" / name / "describe.json").is_file(), f"impls/{name} has no describe.json"
        assert (ROOT / "impls" / name / "README.md").is_file(), f"impls/{name} has no README.md (docs/adding-a-language.md)"


@pytest.mark.slow
@pytest.mark.parametrize("folder", COMPILED)
def test_check(cli, folder):
    impl = installed(folder)
    done = cli("check", impl.language, timeout=1800)
    assert "Traceback" not in done.stderr
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-4000:]
    assert "FAIL" not in done.stdout


@pytest.mark.slow
def test_check_passes_the_fake_and_fails_one_row_for_a_protocol_break(cli):
    good = cli("check", "fake/ok", "fake/twin", "fake/wrong-metric", timeout=600)
    assert good.returncode == 1   # wrong-metric is caught on chameneos only
    rows = [line for line in good.stdout.splitlines() if "│" in line and ("pass" in line or "FAIL" in line)]
    assert [("FAIL" in line, "chameneos" in line) for line in rows if "FAIL" in line] == [(True, True)]
    broken = cli("check", "fake/ok", "fake/garbage", timeout=600)
    assert broken.returncode == 1
    failing = [line for line in broken.stdout.splitlines() if "FAIL" in line]
    assert len(failing) == 1 and "fib" in failing[0]
    assert "malformed" in broken.stderr and "line 3" in broken.stderr


def _distinctive_references() -> dict[str, str]:
    """Reference answers long enough that a copy elsewhere cannot be a coincidence."""
    found = {}
    for path in sorted((ROOT / "benchmarks").glob("*.toml")):
        for values in tomllib.loads(path.read_text()).get("reference", {}).values():
            for value in values if isinstance(values, list) else [values]:
                if len(str(value)) >= 16:
                    found[str(value)] = path.name
    return found


def test_reference_answers_live_only_in_benchmarks():
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, text=True)
    if listed.returncode != 0:
        pytest.skip("not a git checkout")
    # A recorded session (tests/recorded/*.json, written by make_quick_suite.py from a real run) holds the
    # answers its programs gave, as measured: data, not a second copy of the references.
    files = [ROOT / f for f in listed.stdout.splitlines()
             if not f.startswith("benchmarks/") and not (f.startswith("tests/recorded/") and f.endswith(".json"))]
    references = _distinctive_references()
    assert len(references) > 20
    for path in files:
        if not path.is_file():
            continue
        try:
            text = path.read_text()
        except UnicodeDecodeError:
            continue
        copied = [value for value in references if value in text]
        assert not copied, f"{path.relative_to(ROOT)} copies the reference {copied[0]!r} of {references[copied[0]]}"


@pytest.mark.slow   # 30 processes, about a second
def test_the_shared_argument_cases_pass_the_fake_and_catch_a_front_end_that_takes_anything(catalog, tmp_path):
    from dataclasses import replace

    from concbench.running import conformance

    fake = catalog.implementations["fake"]
    cases = conformance.argument_cases(catalog, fake.description)
    assert len(cases) >= 12 and {case.exit for case in cases} == {0, 2}
    joined = next(case for case in cases if "joined" in case.what)
    assert any(word.startswith("--model=") for word in joined.args)
    assert [conformance.judged(fake, case) for case in cases] == [None] * len(cases)
    # A front end that runs whatever it is given (exit 0, a hello): every case it must refuse is named.
    lenient = tmp_path / "lenient.py"
    lenient.write_text('print(\'{"hello": {"protocol": 1, "language": "x", "runtime": "x", "model": "m"}}\')\n')
    taking = replace(fake, command=("{python}", str(lenient)))
    found = [conformance.judged(taking, case) for case in cases]
    assert all((problem is None) == (case.exit == 0) for case, problem in zip(cases, found)), found
    assert "exit status 0, expected 2" in found[cases.index(joined)]
