"""The growth fit and the scaling tables, on synthetic data and through the CLI."""

import math

import pytest

from concbench.analysis.growth import GrowthPoint, fit, growth_series, slope
from concbench.analysis.scaling import scaling_tables
from concbench.analysis.summary import summarise
from concbench.storing.store import Store

pytestmark = pytest.mark.serial   # judges timing or the machine's load: make test runs it alone

SIZES = [1000, 3000, 10000, 30000, 100000, 300000]


def test_a_linear_series_has_exponent_one_and_is_not_flagged():
    result = fit([GrowthPoint(n, 250.0 * n) for n in SIZES])
    assert result.exponent == pytest.approx(1.0, abs=1e-9)
    assert not result.superlinear


def test_a_quadratic_series_has_exponent_two_and_is_flagged():
    result = fit([GrowthPoint(n, 0.01 * n * n) for n in SIZES])
    assert result.exponent == pytest.approx(2.0, abs=1e-9)
    assert result.superlinear


def test_n_log_n_reads_just_above_one_point_one():
    result = fit([GrowthPoint(n, n * math.log(n)) for n in SIZES])
    assert 1.08 < result.exponent < 1.13


def test_fixed_overhead_at_small_n_is_left_out_of_the_fit():
    # A constant 1 ms start-up dominates N=64 and N=100; the fit uses N >= 1000 when three exist.
    points = [GrowthPoint(n, 1e6 + 100.0 * n) for n in [64, 100, *SIZES]]
    assert fit(points).fitted_points == len(SIZES)
    assert slope(points) < fit(points).exponent


def test_a_steep_last_step_or_a_timeout_flags_the_series():
    points = [GrowthPoint(1000, 1e6), GrowthPoint(3000, 3e6), GrowthPoint(10000, 1e7), GrowthPoint(30000, 1.2e8)]
    assert fit(points).local_last > 1.3 and fit(points).superlinear
    assert fit([GrowthPoint(n, 10.0 * n) for n in SIZES[:3]], timed_out=True).superlinear


def test_too_few_points_give_no_exponent():
    assert fit([GrowthPoint(1000, 5.0)]).exponent is None


@pytest.mark.slow
def test_the_quadratic_fixture_is_flagged_and_the_linear_one_is_not(cli):
    done = cli("run", "-b", "spawn-scaling", "-v", "fake/ok", "-v", "fake/quadratic", "--param", "1000,2000,4000,8000",
               "--runs", "1", "--iterations", "3", "--warmup", "1")
    assert done.returncode == 0, done.stderr
    assert "super-linear" in done.stdout
    store = Store(cli.db)
    fits = {s.label: s.fit for s in growth_series(summarise(store.runs(store.session().id)), {"spawn-scaling"})}
    assert fits["fake/quadratic"].superlinear
    assert not fits["fake/ok"].superlinear


@pytest.mark.slow
def test_scaling_report_along_an_option_and_along_cores(cli):
    cli("run", "-b", "fib", "-v", "fake/slow", "--param", "5", "--option", "pad_ms=2,8", "--cores", "1,2",
        "--runs", "1", "--iterations", "6", "--warmup", "1")
    by_option = cli("report", "--scaling", "pad_ms")
    assert by_option.returncode == 0, by_option.stderr
    store = Store(cli.db)
    tables = scaling_tables(summarise(store.runs(store.session().id)), "pad_ms")
    eight = [row for table in tables for row in table.rows if row.value == "8"]
    assert len(eight) == 2          # one per core count
    assert all(300 < row.t_norm < 500 for row in eight)   # 8 ms against 2 ms of padding: about 400
    by_cores = cli("report", "--scaling", "cores", "--against-seq")
    assert by_cores.returncode == 0 and "efficiency" in by_cores.stdout
    assert cli("report", "--scaling", "nosuch").returncode == 2
