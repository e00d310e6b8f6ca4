"""The tool's exceptions, each tied to the exit code the command line reports.

Only `cli.main` turns them into a message and an exit code; everything else
raises them with a one-line message that says what to do.
"""

from __future__ import annotations


class ToolError(Exception):
    """A failure the user can act on; `exit_code` is what the command returns."""

    exit_code = 1


class CheckFailed(ToolError):
    """A check ran and failed (preflight FAIL)."""

    exit_code = 1


class UsageError(ToolError):
    """Bad arguments or a bad filter."""

    exit_code = 2


class AccessError(ToolError):
    """No credentials, or no permission to read the logs."""

    exit_code = 3


class CloudLoggingError(ToolError):
    """Cloud Logging kept failing after retries (quota, outage)."""

    exit_code = 4


class IncompleteReport(CloudLoggingError):
    """Cloud Logging failed on a later stage, after the report of the stages before it was
    written: the report is kept (as a preflight FAIL's is), and the run exits as that
    failure does (4, or 3 when Cloud Logging refused the credentials or the permission)."""

    def __init__(self, message: str, exit_code: int = CloudLoggingError.exit_code) -> None:
        super().__init__(message)
        self.exit_code = exit_code


class InputFileError(ToolError):
    """An unreadable, truncated or corrupt recorded export."""

    exit_code = 5


class OutputError(ToolError):
    """The output could not be written (a full disk, a closed stream)."""

    exit_code = 74
