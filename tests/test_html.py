"""The HTML report: every hook present, self-contained, SVGs that parse, and the page in real Chromium."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

import pytest
from browser import require_chromium, start_driver

from concbench.analysis.choice import MAX_TIMEOUT_TIMESERIES, every_pair, named_pairs, runs_to_draw
from concbench.analysis.growth import growth_series
from concbench.analysis.summary import summarise
from concbench.report import html as html_report
from concbench.report import plots
from concbench.report.html import write_html_report
from concbench.spec.catalog import load_catalog
from concbench.storing.records import IterationRecord, RunRecord, RunStatus, SampleRecord, SessionRecord
from concbench.storing.store import Store

# The page's own tests share one built page per worker (one group: it is built once). The tests of a
# real session's page (slow) run one under measurement, which judges the machine's load: make test runs
# those alone.
pytestmark = pytest.mark.xdist_group("html")

ROOT = Path(__file__).resolve().parent.parent
SVG_NS = "{http://www.w3.org/2000/svg}"


# -- parsing the page ----------------------------------------------------------------------


class _Tags(HTMLParser):
    """Every start tag with its attributes, in document order."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str]]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, {k: v or "" for k, v in attrs}))


class Page:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.text = path.read_text(encoding="utf-8")
        parser = _Tags()
        parser.feed(self.text)
        self.tags = parser.tags

    def find(self, tag: str, **attrs: str) -> list[dict[str, str]]:
        wanted = {k.rstrip("_").replace("_", "-"): v for k, v in attrs.items()}
        return [a for t, a in self.tags if t == tag and all(
            (v in a.get(k, "").split()) if k == "class" else a.get(k) == v for k, v in wanted.items())]

    def has(self, tag: str, **attrs: str) -> bool:
        return bool(self.find(tag, **attrs))

    def figures(self) -> dict[str, str]:
        """data-plot -> the figure's inner HTML."""
        return {m.group(1): m.group(2) for m in re.finditer(
            r'<figure class="plot" data-plot="([^"]+)"[^>]*>(.*?)</figure>', self.text, re.S)}

    def figure_tag(self, key: str) -> dict[str, str]:
        found = self.find("figure", data_plot=key)
        assert found, f"no figure data-plot={key!r}"
        return found[0]


def _svg_of(inner: str) -> ET.Element:
    match = re.search(r"<svg\b.*</svg>", inner, re.S)
    assert match, "the figure holds no <svg>"
    return ET.fromstring(match.group(0))


def _vertices(path_d: str) -> int:
    return len(re.findall(r"[ML]\s*-?[\d.]+", path_d))


# -- data made through the real CLI with the fake implementation -----------------------------


def _cli(db: Path, *args: str) -> subprocess.Popen:
    env = {**os.environ, "CONCBENCH_ROOT": str(ROOT)}
    return subprocess.Popen([sys.executable, "-m", "concbench", "run", *args, "--db", str(db)], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


SESSIONS = {
    "main": ("-b", "fib", "-v", "fake/ok", "-v", "fake/slow", "--param", "5..7", "--cores", "1,2", "--runs", "2",
             "--iterations", "6"),
    "growth": ("-b", "spawn-scaling", "-v", "fake/ok", "-v", "fake/quadratic", "--param", "1000,2000,4000,8000",
               "--runs", "1", "--iterations", "3"),
    # fake/hang stalls at n=5: a stalled timeout, then n=8 is skipped.
    "stall": ("-b", "fib", "-v", "fake/hang", "--param", "5,8", "--cores", "1", "--runs", "1", "--timeout", "2.5"),
    # fake/threads piles up a thread every 20 ms for a second (no --timeout: a loaded machine must not cut it).
    "threads": ("-b", "fib", "-v", "fake/threads", "--param", "8", "--cores", "1", "--runs", "1"),
}


@pytest.fixture(scope="module")
def cli_dbs(tmp_path_factory) -> dict[str, Path]:
    """Four sessions made at once (each in its own database: they mostly sleep, so this saves time)."""
    folder = tmp_path_factory.mktemp("html-db")
    dbs = {name: folder / f"{name}.sqlite" for name in SESSIONS}
    running = {name: _cli(dbs[name], *args) for name, args in SESSIONS.items()}
    for name, process in running.items():
        _, stderr = process.communicate(timeout=300)
        assert process.returncode == 0, f"concbench run {' '.join(SESSIONS[name])}: {process.returncode}\n{stderr}"
    return dbs


@dataclass(frozen=True)
class FakeStudy:
    id: str = "thesis"
    title: str = "The Swift thesis"
    source: str = "Master's thesis, 2022, Table 4.1"
    hardware: str = "Apple M1 Pro, 8 performance cores"
    method: str = "difference of means with a z-interval"


@pytest.fixture(scope="module")
def cli_report(cli_dbs, tmp_path_factory) -> Page:
    """One page over the three sessions' runs, headed by the first session."""
    runs = []
    for db in cli_dbs.values():
        store = Store(db)
        runs += store.runs(store.session().id, with_samples=True)
    session = Store(cli_dbs["main"]).session()
    out = tmp_path_factory.mktemp("html-report")
    path = write_html_report(out / "report", session, runs, load_catalog(ROOT),
                             comparisons=[("fake/ok", "fake/slow")], study=FakeStudy(),
                             extra_sections=[("Study tables", '<p class="extra-probe">made <b>elsewhere</b></p>')])
    assert path == out / "report" / "index.html"
    return Page(path)


@pytest.mark.slow
@pytest.mark.serial
def test_every_section_plot_and_table_hook_is_there(cli_report):
    page = cli_report
    assert page.has("header", class_="session") and page.has("table", class_="environment")
    for bench in ("fib", "spawn-scaling"):
        assert page.has("section", class_="benchmark", id=f"bench-{bench}"), bench
        assert page.has("table", class_="summary", data_benchmark=bench), bench
        for kind in ("time", "box"):
            assert page.has("figure", class_="plot", data_plot=f"{kind}-{bench}"), (kind, bench)
    # fib ran on 1 and 2 cores: speedup and efficiency; spawn-scaling only on one core count.
    assert page.has("figure", data_plot="scaling-fib") and page.has("table", class_="scaling", data_benchmark="fib")
    assert not page.has("figure", data_plot="scaling-spawn-scaling")
    # spawn-scaling derives a growth exponent; fib does not.
    assert page.has("figure", data_plot="growth-spawn-scaling")
    assert page.has("table", class_="growth", data_benchmark="spawn-scaling")
    assert not page.has("figure", data_plot="growth-fib")
    assert page.has("table", class_="comparison", data_benchmark="fib")
    assert page.has("section", class_="notes", id="notes")
    for table in ("timeouts", "skipped", "warnings"):
        assert page.has("table", class_=table), table
    assert [f for f in page.figures() if f.startswith("timeseries-fib-")]
    assert [f for f in page.figures() if f.startswith("timeseries-spawn-scaling-")]


@pytest.mark.slow
@pytest.mark.serial
def test_heading_shows_session_environment_and_study_before_extra_sections(cli_report):
    text = cli_report.text
    assert "concbench · session 1" in text and "concbench run -b fib" in text
    env = re.search(r'<table class="environment">(.*?)</table>', text, re.S).group(1)
    for row in ("CPU", "cores", "kernel", "OS", "git commit"):
        assert f"<th>{row}</th>" in env, row
    study = text.index('<section class="study"')
    extra = text.index('<p class="extra-probe">made <b>elsewhere</b></p>')   # not escaped
    first_benchmark = text.index('<section class="benchmark"')
    assert study < extra < first_benchmark
    assert "Apple M1 Pro, 8 performance cores" in text


def _growth_rows(page: Page, benchmark: str) -> dict[str, str]:
    table = re.search(rf'<table class="growth" data-benchmark="{benchmark}">(.*?)</table>', page.text, re.S).group(1)
    rows = re.findall(r"<tr>(.*?)</tr>", table.split("<tbody>")[1], re.S)
    return {re.search(r"</span>([^<]+)", row).group(1): row for row in rows}


def _svg_texts(page: Page, key: str) -> str:
    return " ".join(t.text or "" for t in _svg_of(page.figures()[key]).iter(f"{SVG_NS}text"))


@pytest.mark.slow
@pytest.mark.serial
def test_growth_table_and_legend_show_each_fitted_exponent_and_flag(cli_report, cli_dbs):
    store = Store(cli_dbs["growth"])
    series = {s.label: s for s in growth_series(summarise(store.runs(store.session().id)), {"spawn-scaling"})}
    assert set(series) == {"fake/ok", "fake/quadratic"}
    rows = _growth_rows(cli_report, "spawn-scaling")
    legend = _svg_texts(cli_report, "growth-spawn-scaling")
    for label, s in series.items():
        assert f"{s.fit.exponent:.3f}" in rows[label], label
        assert ("super-linear" in rows[label]) == s.fit.superlinear, label
        assert f"{label}: exponent {s.fit.exponent:.2f}" + (" (super-linear)" if s.fit.superlinear else "") in legend


@pytest.mark.slow
@pytest.mark.serial
def test_growth_flags_a_quadratic_series_and_not_a_linear_one(constructed):
    rows = _growth_rows(constructed, "spawn-scaling")
    assert "super-linear" in rows["swift/gcd [group]"] and "2.000" in rows["swift/gcd [group]"]
    assert "super-linear" not in rows["swift/sc [group]"] and "1.000" in rows["swift/sc [group]"]
    legend = _svg_texts(constructed, "growth-spawn-scaling")
    assert "swift/gcd [group]: exponent 2.00 (super-linear)" in legend
    assert "swift/sc [group]: exponent 1.00" in legend and "1.00 (super" not in legend


@pytest.mark.slow
@pytest.mark.serial
def test_svgs_parse_ids_are_unique_and_nothing_is_fetched(cli_report):
    figures = cli_report.figures()
    assert len(figures) >= 8
    for key, inner in figures.items():
        svg = _svg_of(inner)
        assert svg.tag == f"{SVG_NS}svg", key
        assert any(True for _ in svg.iter(f"{SVG_NS}path")), f"{key}: nothing drawn"
        assert not list(svg.iter(f"{SVG_NS}image")), f"{key}: rasterised content"
    text = cli_report.text
    without_ns = re.sub(r'\bxmlns(:\w+)?="[^"]*"', "", text)
    assert not re.search(r"https?://", without_ns), re.search(r".{60}https?://.{60}", without_ns, re.S).group(0)
    assert "<script" not in text and "<img" not in text and not re.search(r"<link[^>]+stylesheet", text)
    assert not re.search(r"\bsrc=", text)
    ids = re.findall(r'\bid="([^"]+)"', text)
    duplicates = {i for i in ids if ids.count(i) > 1}
    assert not duplicates, sorted(duplicates)[:10]


@pytest.mark.slow
@pytest.mark.serial
def test_a_stalled_timeout_shows_its_time_series_and_the_notes_link_to_it(cli_report, cli_dbs):
    page = cli_report
    timed_out = [a for a in page.find("figure", class_="plot") if a.get("data-status") == "timeout"]
    assert len(timed_out) == 1 and timed_out[0]["data-variant"] == "fake/hang" and timed_out[0]["data-param"] == "5"
    key = timed_out[0]["data-plot"]
    svg = _svg_of(page.figures()[key])
    for line in ("rss", "threads"):
        group = svg.find(f".//{SVG_NS}g[@id='{page.figure_tag(key)['id'][len('plot-'):]}-{line}']")
        assert group is not None, line
        assert _vertices(group.find(f"{SVG_NS}path").get("d")) >= 2, line
    run_id = int(timed_out[0]["data-run"])
    assert len(Store(cli_dbs["stall"]).samples(run_id)) > 100      # ~2.5 s sampled every 10 ms
    assert "(stalled)" in "".join(t.text or "" for t in svg.iter(f"{SVG_NS}text"))
    timeouts = re.search(r'<table class="timeouts">(.*?)</table>', page.text, re.S).group(1)
    assert f'href="#{page.figure_tag(key)["id"]}"' in timeouts and "stalled" in timeouts
    # The run with the most threads (fake/threads, ~50) is drawn too: the pile-up must be visible.
    threads = [a for a in page.find("figure", class_="plot") if a.get("data-variant") == "fake/threads"]
    assert threads and threads[0]["data-param"] == "8"


# -- data constructed in the test -----------------------------------------------------------


def _run(variant, shape, param, cores, index, times, status=RunStatus.OK, samples=(), benchmark="fib",
         **extra) -> RunRecord:
    iterations = [IterationRecord(i, int(t), "r", "verified", i == 0) for i, t in enumerate(times)]
    return RunRecord(benchmark=benchmark, variant=variant, param=str(param), options={"shape": shape}, cores=cores,
                     run_index=index, status=status, iterations=iterations, samples=list(samples),
                     wall_ns=int(sum(times)) + 1000, user_ns=int(sum(times)), sys_ns=0, threads_max=cores + 2,
                     max_rss_bytes=20 << 20, **extra)


def _constructed_runs() -> list[RunRecord]:
    runs, run_id = [], 0
    base = {"swift/gcd": 1.0, "swift/sc": 0.7, "swift/seq": 1.6}
    shapes = {"swift/gcd": "cps", "swift/sc": "asynclet", "swift/seq": "plain"}
    for variant, factor in base.items():
        for param in (10, 20, 30):
            for cores in ((1,) if variant == "swift/seq" else (1, 2, 4)):
                for index in range(2):
                    times = [factor * param ** 2 * 1000 / cores * (1 + 0.01 * ((i * 37 + index) % 7))
                             for i in range(12)]
                    samples = [SampleRecord(t * 10_000_000, (10 << 20) + t * 4096, cores + 1, t * 5_000_000)
                               for t in range(30)] if param == 30 else []
                    run_id += 1
                    runs.append(_run(variant, shapes[variant], param, cores, index, times, samples=samples, id=run_id,
                                     metrics={"spawns": 42.0} if variant == "swift/sc" else {}))
    # A stalled GCD run at a larger size: 5000 samples of a growing thread pile-up, then larger sizes skipped.
    pile = [SampleRecord(t * 1_000_000, (30 << 20) + (t % 17) * 65536, 3 + t // 40 + (t % 3), 1_000_000)
            for t in range(5000)]
    for variant, power in (("swift/sc", 1), ("swift/gcd", 2)):
        for n in (1000, 2000, 4000, 8000):
            run_id += 1
            times = [20_000 * n * (n / 1000) ** (power - 1) * (1 + 0.001 * (i % 3 - 1)) for i in range(5)]
            runs.append(_run(variant, "group", n, 2, 0, times, id=run_id, benchmark="spawn-scaling"))
    runs.append(_run("swift/gcd", "cps", 40, 4, 0, [], RunStatus.TIMEOUT, pile, id=900, stall=True,
                     message="run time limit after 0 iterations <b>not bold</b>"))
    runs.append(_run("swift/gcd", "cps", 50, 4, 0, [], RunStatus.SKIPPED, id=901, message="n=40 timed out"))
    # A timeout below the largest size of its series: drawn because it timed out, not because it is the largest.
    runs.append(_run("swift/sc", "asynclet", 20, 4, 2, [], RunStatus.TIMEOUT, pile[:300], id=903, stall=False))
    runs.append(_run("swift/sc", "asynclet", 40, 4, 0, [1e6, 2e6], RunStatus.CRASHED, id=902,
                     message="exit 3", stderr_tail="boom <script>alert(1)</script>"))
    return runs


SESSION = SessionRecord(
    id=7, started_at="2026-11-23T06:40:08+00:00", ended_at="2026-11-23T07:00:00+00:00", status="finished",
    command="concbench run -b fib -v swift/gcd -v swift/sc -v swift/seq", git_commit="0123456789abcdef",
    environment={"cpu_model": "Test CPU", "cpus_online": 4, "cpus_allowed": [0, 1, 2, 3], "kernel": "6.1.0",
                 "os": "Linux-6.1.0-x86_64",
                 "toolchains": {"swift": {"version": "Swift version 6.3.1",
                                          "build": {"command": ["swift", "build"], "opt": "Osize"}}}},
    config={"runs": 2},
)


@pytest.fixture(scope="module")
def constructed(tmp_path_factory) -> Page:
    out = tmp_path_factory.mktemp("constructed")
    return Page(write_html_report(out, SESSION, _constructed_runs(), load_catalog(ROOT),
                                  comparisons=[("swift/gcd", "swift/sc")], study=FakeStudy()))


def test_an_empty_session_still_makes_a_page(tmp_path):
    page = Page(write_html_report(tmp_path / "empty", SESSION, [], load_catalog(ROOT)))
    assert page.has("section", class_="notes") and not page.find("section", class_="benchmark")
    assert not page.figures()


def test_without_a_study_every_pair_of_variants_of_a_benchmark_is_compared():
    assert every_pair(_constructed_runs()) == [("swift/gcd", "swift/sc"), ("swift/gcd", "swift/seq"),
                                               ("swift/sc", "swift/seq")]


def test_constructed_records_compare_the_named_pair_and_scale_against_seq(constructed):
    page = constructed
    comparison = re.search(r'<table class="comparison" data-benchmark="fib">(.*?)</table>', page.text, re.S).group(1)
    body = re.findall(r"<tr>(.*?)</tr>", comparison.split("<tbody>")[1], re.S)
    assert len(body) == 10 and all("swift/gcd [cps]" in r and "swift/sc [asynclet]" in r for r in body)
    assert "swift/sc [asynclet] faster" in comparison and "swift/seq" not in comparison
    scaling = re.search(r'<table class="scaling" data-benchmark="fib">(.*?)</table>', page.text, re.S).group(1)
    assert "vs fastest seq" in scaling
    assert page.has("figure", data_plot="scaling-fib") and page.has("figure", data_plot="time-fib")
    svg = _svg_of(page.figures()["scaling-fib"])
    assert "ideal" in " ".join(t.text or "" for t in svg.iter(f"{SVG_NS}text"))
    env = re.search(r'<table class="environment">(.*?)</table>', page.text, re.S).group(1)
    assert "Swift version 6.3.1" in env and "-Osize" in env and "0123456789abcdef" in env


def test_the_summary_table_has_the_terminal_columns_and_reported_metrics(constructed):
    summary = re.search(r'<table class="summary" data-benchmark="fib">(.*?)</tbody>', constructed.text, re.S).group(1)
    head = re.findall(r"<th[^>]*>([^<]*)</th>", summary)
    assert head == ["variant [shape]", "n", "cores", "runs", "n", "median", "mean ± 95% CI", "CV", "min", "max",
                    "result", "threads", "peak RSS", "CPU", "process"]
    metrics = re.search(r'<table class="metrics" data-benchmark="fib">(.*?)</table>', constructed.text, re.S).group(1)
    assert "<th class=num>spawns</th>" in metrics and "<td class=num>42 spawns</td>" in metrics   # fib.toml's unit


def test_constructed_records_escape_text_and_downsample_long_time_series(constructed):
    page = constructed
    assert "<script>alert(1)</script>" not in page.text and "&lt;script&gt;alert(1)&lt;/script&gt;" in page.text
    assert "&lt;b&gt;not bold&lt;/b&gt;" in page.text
    assert page.has("table", class_="failures") and "exit 3" in page.text
    assert "<details><summary>stderr</summary><pre>boom &lt;script&gt;" in page.text   # folded under its failure
    # A drawn timeout links from the notes to its time series.
    links = re.findall(r'<a href="#([^"]+)">time series</a>', page.text)
    assert links and all(f'id="{target}"' in page.text for target in links)
    tag = page.figure_tag("timeseries-fib-900")
    assert tag["data-status"] == "timeout"
    svg = _svg_of(page.figures()["timeseries-fib-900"])
    for line in ("rss", "threads"):
        group = svg.find(f".//{SVG_NS}g[@id='timeseries-fib-900-{line}']")
        vertices = _vertices(group.find(f"{SVG_NS}path").get("d"))
        assert 200 < vertices <= plots.MAX_POINTS_PER_LINE, (line, vertices)   # 5000 samples in the record


def test_every_timed_out_run_is_drawn_up_to_a_cap(constructed):
    page = constructed
    assert page.figure_tag("timeseries-fib-903")["data-status"] == "timeout"
    drawn = {a["data-run"] for a in page.find("figure", class_="plot") if a["data-plot"].startswith("timeseries-fib-")}
    assert drawn == {"900", "903", *{str(i) for i in _largest_sampled_ids()}}
    runs = [_run("swift/gcd", "cps", 10, 1, i, [], RunStatus.TIMEOUT, [SampleRecord(0, 1, 1, 0)], id=i)
            for i in range(1, 30)]
    chosen, left_out = runs_to_draw(runs)
    assert len(chosen) == MAX_TIMEOUT_TIMESERIES and left_out == 29 - len(chosen)


def _largest_sampled_ids() -> set[int]:
    """Per variant [shape] of the constructed fib runs, the first run at the largest sampled parameter."""
    best: dict[str, RunRecord] = {}
    for run in _constructed_runs():
        if run.benchmark != "fib" or not run.samples:
            continue
        label = f"{run.variant} [{run.options['shape']}]"
        key = (float(run.param), run.cores, -run.run_index)
        if label not in best or key > best[label][0]:
            best[label] = (key, run)
    return {run.id for _, run in best.values()}


def test_downsample_keeps_extremes_and_the_limit():
    xs = list(range(10_000))
    ys = [(i * 7919) % 1000 for i in xs]
    ys[4321] = 10_000
    out_x, out_y = plots.downsample(xs, ys, 1000)
    assert len(out_x) == len(out_y) <= 1000
    assert max(out_y) == 10_000 and min(out_y) == 0 and out_x == sorted(out_x)
    assert plots.downsample([1, 2], [3, 4]) == ([1, 2], [3, 4])


def _swatch_colour(page: Page, label: str) -> str:
    found = re.findall(r'<span class="swatch" style="background:(#[0-9a-f]{6})"></span>' + re.escape(label) + "<",
                       page.text)
    assert found and len(set(found)) == 1, (label, set(found))
    return found[0]


def test_comparisons_may_name_variants_or_single_shapes():
    runs = _constructed_runs()
    runs += [_run("swift/gcd", "parallel", 10, 1, 0, [5e5] * 4, id=950)]
    rows = summarise(runs)
    by_variant = named_pairs(rows, [("swift/gcd", "swift/sc")])
    assert {p.a.label for p in by_variant} == {"swift/gcd [cps]", "swift/gcd [parallel]", "swift/gcd [group]"}
    by_label = named_pairs(rows, [("swift/gcd [parallel]", "swift/sc [asynclet]")] * 2)
    assert [(p.a.label, p.b.label, p.a.param, p.a.cores) for p in by_label] == [
        ("swift/gcd [parallel]", "swift/sc [asynclet]", "10", 1)]
    assert named_pairs(rows, [("swift/gcd [nope]", "swift/sc")]) == []


def test_a_series_has_one_colour_in_every_table_and_plot(constructed):
    gcd, sc = _swatch_colour(constructed, "swift/gcd [cps]"), _swatch_colour(constructed, "swift/sc [asynclet]")
    assert gcd != sc
    figures = constructed.figures()
    for key in ("time-fib", "box-fib", "scaling-fib", "timeseries-fib-900"):
        assert gcd in figures[key].lower(), key
    assert sc in figures["time-fib"].lower() and sc not in figures["timeseries-fib-900"].lower()


def test_shapes_of_one_variant_get_distinct_shades_of_its_colour():
    catalog = load_catalog(ROOT)
    faithful, other = catalog.variants["swift/gcd"].shapes["fib"][:2]    # impl.toml lists the faithful first
    runs = [_run("swift/gcd", shape, 10, 1, 0, [1, 2]) for shape in (other, faithful)]
    runs += [_run("swift/sc", "asynclet", 10, 1, 0, [1, 2])]
    colours = html_report.series_colours(runs, catalog)
    assert len(set(colours.values())) == 3
    hues = plots.palette(["swift/gcd", "swift/sc"])
    assert colours[f"swift/gcd [{faithful}]"] == hues["swift/gcd"].lower()
    assert colours[f"swift/gcd [{other}]"] == plots.shade(hues["swift/gcd"], 1)


# -- the page in a real browser --------------------------------------------------------------


def test_without_chromium_the_browser_test_skips_or_fails_in_ci(monkeypatch):
    import browser

    monkeypatch.setattr(browser.shutil, "which", lambda name: None)
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="make browser"):
        browser.require_chromium()
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI=true"):
        browser.require_chromium()


@pytest.fixture(scope="session")
def chromium() -> tuple[str, str]:
    return require_chromium()


@pytest.mark.slow
@pytest.mark.serial
@pytest.mark.browser
def test_the_page_renders_in_headless_chromium(chromium, cli_report, tmp_path):
    from selenium.webdriver.common.by import By

    driver = start_driver(*chromium)
    try:
        driver.get(cli_report.path.as_uri())
        assert driver.title.startswith("concbench session 1")
        figures = driver.find_elements(By.CSS_SELECTOR, "figure.plot")
        assert len(figures) == len(cli_report.figures()) >= 8
        for figure in figures:
            svgs = figure.find_elements(By.CSS_SELECTOR, "svg")
            assert len(svgs) == 1, figure.get_attribute("data-plot")
            size = svgs[0].size
            assert size["width"] > 100 and size["height"] > 50, (figure.get_attribute("data-plot"), size)
        for selector in ('table.environment', 'table.summary[data-benchmark="fib"]',
                         'table.summary[data-benchmark="spawn-scaling"]', 'table.scaling[data-benchmark="fib"]',
                         'table.growth[data-benchmark="spawn-scaling"]', 'table.comparison[data-benchmark="fib"]',
                         "table.timeouts", "table.skipped", "table.warnings"):
            tables = driver.find_elements(By.CSS_SELECTOR, selector)
            assert tables and tables[0].is_displayed() and tables[0].size["height"] > 0, selector
        # Text in the SVGs is real text: the browser lays it out (a broken SVG would have no boxes).
        width = driver.execute_script(
            "return document.querySelector('figure[data-plot=\"box-fib\"] svg text').getBBox().width")
        assert width > 0
        severe = [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
        assert not severe, severe
        # One screenshot of the whole page (the window made as tall as the page) for a person to look at.
        height = driver.execute_script("return document.documentElement.scrollHeight")
        driver.set_window_size(1400, min(int(height), 16000))
        shot = tmp_path / "report.png"
        assert driver.save_screenshot(str(shot))
        assert shot.stat().st_size > 50_000
    finally:
        driver.quit()
