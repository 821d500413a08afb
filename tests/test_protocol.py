import pytest

from concbench.errors import ProtocolError
from concbench.running.protocol import Hello, Iteration, Metrics, Transcript, parse_line

HELLO = '{"hello": {"protocol": 1, "language": "swift", "runtime": "Swift 6.3", "model": "sc"}}'


def test_parses_each_kind_of_line():
    assert isinstance(parse_line(1, HELLO), Hello)
    assert parse_line(2, '{"iteration": 0, "ns": 12, "result": "55"}') == Iteration(0, 12, "55")
    assert parse_line(3, '{"metrics": {"spawns": 88}}') == Metrics({"spawns": 88})


def test_snippet_is_cut_for_long_lines():
    with pytest.raises(ProtocolError) as caught:
        parse_line(1, "x" * 500)
    assert len(caught.value.snippet) <= 80


def test_transcript_enforces_order():
    t = Transcript()
    with pytest.raises(ProtocolError, match="hello must come first"):
        t.feed('{"iteration": 0, "ns": 1, "result": "1"}')
    t = Transcript()
    t.feed(HELLO)
    t.feed('{"iteration": 0, "ns": 1, "result": "1"}')
    with pytest.raises(ProtocolError, match="iteration 2 where 1 was due"):
        t.feed('{"iteration": 2, "ns": 1, "result": "1"}')
    with pytest.raises(ProtocolError, match="second hello"):
        t.feed(HELLO)


def test_transcript_rejects_other_protocol_versions():
    with pytest.raises(ProtocolError, match="protocol 2"):
        Transcript().feed('{"hello": {"protocol": 2}}')


def test_transcript_collects_iterations_and_metrics():
    t = Transcript()
    for line in (HELLO, '{"iteration": 0, "ns": 5, "result": "a"}', '{"metrics": {"m": 3}}',
                 '{"iteration": 1, "ns": 6, "result": "a"}'):
        t.feed(line)
    assert [i.ns for i in t.iterations] == [5, 6]
    assert t.metrics == {"m": 3}
    assert t.hello.runtime == "Swift 6.3"


@pytest.mark.parametrize("line, why", [
    ("Hello world", "not a JSON object"),
    ("[1, 2]", "not a JSON object"),
    ('{"hello": {"language": "x"}}', "hello needs an integer 'protocol'"),
    ('{"iteration": 0, "ns": 1.5, "result": "x"}', "iteration needs integer 'iteration' and 'ns' >= 0 (within 64 bits)"),
    ('{"iteration": 0, "ns": -1, "result": "x"}', "iteration needs integer 'iteration' and 'ns' >= 0 (within 64 bits)"),
    ('{"iteration": 0, "ns": 9223372036854775808, "result": "x"}',
     "iteration needs integer 'iteration' and 'ns' >= 0 (within 64 bits)"),
    ('{"iteration": 0, "ns": 10, "result": 55}', "iteration needs a string 'result'"),
    ('{"metrics": {"a": true}}', "metrics must map names to finite numbers (integers within 64 bits)"),
    ('{"metrics": {"a": "b"}}', "metrics must map names to finite numbers (integers within 64 bits)"),
    ('{"metrics": {"a": 1e999}}', "metrics must map names to finite numbers (integers within 64 bits)"),
    ('{"metrics": {"a": -9223372036854775809}}', "metrics must map names to finite numbers (integers within 64 bits)"),
    ('{"metrics": {"a": NaN}}', "NaN is not a JSON number"),
    ('{"metrics": {"a": -Infinity}}', "-Infinity is not a JSON number"),
    ('{"surprise": 1}', "unknown object (expected hello, iteration or metrics)"),
])
def test_each_fault_is_worded_exactly(line, why):
    with pytest.raises(ProtocolError) as caught:
        parse_line(4, line)
    assert str(caught.value) == f"line 4: {why}: {line!r}"


def test_a_hello_keeps_what_it_says_and_defaults_the_rest_to_empty():
    assert parse_line(1, HELLO) == Hello(1, "swift", "Swift 6.3", "sc", {
        "protocol": 1, "language": "swift", "runtime": "Swift 6.3", "model": "sc"})
    assert parse_line(1, '{"hello": {"protocol": 1}}') == Hello(1, "", "", "", {"protocol": 1})


def test_an_iteration_may_take_zero_ns():
    assert parse_line(1, '{"iteration": 0, "ns": 0, "result": "x"}') == Iteration(0, 0, "x")


def test_transcript_faults_name_the_line_they_are_on():
    def fault(lines):
        t = Transcript()
        with pytest.raises(ProtocolError) as caught:
            for line in lines:
                t.feed(line)
        return caught.value.line_number, caught.value.why

    first = '{"iteration": 0, "ns": 1, "result": "1"}'
    assert fault([first]) == (1, "hello must come first")
    assert fault([HELLO, first, HELLO]) == (3, "a second hello")
    assert fault(['{"metrics": {}}']) == (1, "hello must come first")
    assert fault(['{"hello": {"protocol": 2}}']) == (1, "protocol 2 is not 1")
    assert fault([HELLO, '{"metrics": {"m": 1}}', '{"iteration": 1, "ns": 1, "result": "1"}']) == (
        3, "iteration 1 where 0 was due")
