"""Every implementation folder, through the harness, at test size: verified, or an accepted stall.

The list is read from impls/ itself, so a new language cannot be left out; a folder whose
toolchain is missing is skipped with the reason, never failed."""

from pathlib import Path

import pytest

from concbench import toolchains
from concbench.catalog import load_implementation, load_catalog

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = sorted(p.name for p in (ROOT / "impls").iterdir() if p.is_dir())


def test_every_implementation_folder_has_a_manifest():
    assert FOLDERS, "no implementations found"
    for name in FOLDERS:
        assert (ROOT / "impls" / name / "impl.toml").is_file(), f"impls/{name} has no impl.toml"


@pytest.mark.slow
@pytest.mark.parametrize("folder", FOLDERS)
def test_implementation_at_test_size(cli, folder):
    impl = load_implementation(ROOT / "impls" / folder / "impl.toml")
    found = toolchains.availability(impl)
    if not found.available:
        pytest.skip(f"{folder}: {found.reason}: its variants are unavailable")
    build = cli("build", impl.language, timeout=1800)
    assert build.returncode == 0, build.stdout + build.stderr
    # The fake's other models misbehave on purpose; test_cli covers them.
    variants = [f"{impl.language}/ok"] if impl.hidden else [v.name for v in impl.variants]
    args = ["run", "--size", "test", "--runs", "1"]
    for name in variants:
        args += ["-v", name]
    done = cli(*args, timeout=1800)
    assert "Traceback" not in done.stderr
    runs = cli.export()["runs"]
    catalog = load_catalog(ROOT)
    served = {(v, b) for v in variants for b in catalog.variants[v].shapes}
    assert {(r["variant"], r["benchmark"]) for r in runs} == served   # every benchmark of every variant ran
    for run in runs:
        where = f"{run['benchmark']} {run['variant']} {run['options']} {run['param']}: {run['message']}"
        if run["status"] in ("timeout", "skipped"):
            model = run["variant"].split("/")[1]
            assert model in catalog.benchmarks[run["benchmark"]].may_stall_models, where
        else:
            assert run["status"] == "ok", where
            assert all(it["verdict"] == "verified" for it in run["iterations"]), where
    assert done.returncode == 0, done.stderr
