"""Each implementation's own test script (error cases, metrics, shapes), where its toolchain is here."""

import re
import subprocess
from pathlib import Path

import pytest

from concbench import toolchains
from concbench.catalog import load_implementation

ROOT = Path(__file__).resolve().parent.parent
WITH_SCRIPTS = sorted(p.parent.name for p in (ROOT / "impls").glob("*/test.sh"))


@pytest.mark.slow
@pytest.mark.parametrize("folder", WITH_SCRIPTS)
def test_implementation_selftest(folder, tmp_path):
    impl = load_implementation(ROOT / "impls" / folder / "impl.toml")
    found = toolchains.availability(impl)
    if not found.available:
        pytest.skip(f"{folder}: {found.reason}: its variants are unavailable")
    toolchains.build(impl, tmp_path)
    done = subprocess.run(["bash", "test.sh"], cwd=impl.folder, capture_output=True, text=True, timeout=1200)
    last = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
    assert done.returncode == 0, f"{folder}/test.sh: {last}\n{done.stdout[-3000:]}\n{done.stderr[-2000:]}"
    assert re.search(r"(^|\D)0 failed", last), last
