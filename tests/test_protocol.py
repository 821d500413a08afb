import pytest

from concbench.errors import ProtocolError
from concbench.protocol import Hello, Iteration, Metrics, Transcript, parse_line

HELLO = '{"hello": {"protocol": 1, "language": "swift", "runtime": "Swift 6.3", "model": "sc"}}'


def test_parses_each_kind_of_line():
    assert isinstance(parse_line(1, HELLO), Hello)
    assert parse_line(2, '{"iteration": 0, "ns": 12, "result": "55"}') == Iteration(0, 12, "55")
    assert parse_line(3, '{"metrics": {"spawns": 88}}') == Metrics({"spawns": 88})


@pytest.mark.parametrize("line, why", [
    ("Hello world", "not a JSON object"),
    ("[1, 2]", "not a JSON object"),
    ('{"iteration": 0, "ns": 1.5, "result": "x"}', "integer"),
    ('{"iteration": 0, "ns": -1, "result": "x"}', "integer"),
    ('{"iteration": 0, "ns": 10, "result": 55}', "string 'result'"),
    ('{"metrics": {"a": "b"}}', "numbers"),
    ('{"surprise": 1}', "unknown object"),
    ('{"hello": {"language": "x"}}', "protocol"),
])
def test_rejects_bad_lines_naming_the_fault(line, why):
    with pytest.raises(ProtocolError) as caught:
        parse_line(7, line)
    assert why in str(caught.value)
    assert "line 7" in str(caught.value)


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
