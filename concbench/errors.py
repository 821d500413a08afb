"""The harness's exception types; only cli.main turns them into exit statuses."""


class ConcbenchError(Exception):
    """Base of every error the harness raises on purpose."""


class UsageError(ConcbenchError):
    """Bad command-line input or bad input files: exit status 2, one line on stderr."""


class CatalogError(UsageError):
    """A benchmark or implementation file that cannot be read or makes no sense."""


class BuildError(ConcbenchError):
    """An implementation failed to build; carries the build's output."""

    def __init__(self, message: str, output: str = "") -> None:
        super().__init__(message)
        self.output = output


class ProtocolError(ConcbenchError):
    """An implementation wrote a line on stdout that breaks the protocol."""

    def __init__(self, line_number: int, line: str, why: str) -> None:
        snippet = line if len(line) <= 80 else line[:77] + "..."
        super().__init__(f"line {line_number}: {why}: {snippet!r}")
        self.line_number = line_number
        self.snippet = snippet
        self.why = why


class RequestRefused(UsageError):
    """A binary refused a point of the plan with exit status 2 before its hello line (a combination its
    description cannot express, such as chameneos encore with one creature): bad input, found late. The
    session stops there, as bad input stops it before it starts: one line, exit status 2."""


class SessionInterrupted(ConcbenchError):
    """Ctrl-C or SIGTERM during a session: the session ends cleanly, marked interrupted."""
