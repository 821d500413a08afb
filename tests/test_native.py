"""Each implementation's own unit tests of its kernels, in its native framework, where installed."""

import subprocess
from pathlib import Path

import pytest
from conftest import COMPILED, installed

from concbench.running import toolchains
from concbench.spec.catalog import load_implementation

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = sorted(p.name for p in (ROOT / "impls").iterdir() if (p / "impl.toml").is_file())


def test_every_compiled_implementation_has_unit_tests():
    for folder in FOLDERS:
        impl = load_implementation(ROOT / "impls" / folder / "impl.toml")
        assert impl.test_command or impl.hidden, f"impls/{folder}/impl.toml has no [test] command"


# Where a language's own tooling fixes where unit tests live, that place; every other language uses tests/.
TOOLING_TEST_PLACES = {
    "go": "*_test.go",     # `go test` reads _test.go files beside the package's sources
    "swift": "Tests",      # SwiftPM's test targets live under Tests/
}


def test_unit_tests_live_in_one_named_folder():
    for folder in FOLDERS:
        impl = load_implementation(ROOT / "impls" / folder / "impl.toml")
        if impl.hidden:
            continue
        place = TOOLING_TEST_PLACES.get(folder, "tests")
        found = list((ROOT / "impls" / folder).glob(place))
        assert found, f"impls/{folder}: its unit tests belong in {place} (docs/adding-a-language.md)"
        assert place == "tests" or not (ROOT / "impls" / folder / "tests").exists(), f"impls/{folder}: tests/ and {place}"


@pytest.mark.slow
@pytest.mark.parametrize("folder", COMPILED)
def test_native_unit_tests(folder, tmp_path):
    impl = installed(folder)
    toolchains.build(impl, tmp_path)
    done = subprocess.run(list(impl.test_command), cwd=impl.folder, capture_output=True, text=True, timeout=1500)
    assert done.returncode == 0, f"{folder}: {' '.join(impl.test_command)}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
