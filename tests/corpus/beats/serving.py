"""A JetStream inference server in front of Pathways, when the IFRT proxy never serves."""

from __future__ import annotations

from tests.corpus.beats.failures import client_traceback, traceback_line
from tests.corpus.beats.pods import container_died, start_container
from tests.corpus.clock import sec
from tests.corpus.incident import Incident
from tests.corpus.model import Run
from tests.corpus.wording import Line
from tests.logentry import Entry

JETSTREAM_STARTING = Line(
    "Starting JetStream server with backend grpc://localhost:29000",
    form="plain",
    stream="stdout",
    guess="JetStream start-up line",
)
NO_PROXY = traceback_line(
    (
        '  File "/usr/local/lib/python3.12/site-packages/jetstream/entrypoints/http/'
        'api_server.py", line 104, in main',
        "    devices = jax.devices()",
    ),
    "RuntimeError: Unable to initialize backend 'proxy': UNAVAILABLE: Unable to establish "
    "connection to ifrt_proxy server, please check provided address 'localhost:29000'; detailed "
    "error: failed to connect to all addresses",
)


def server_gives_up(inc: Incident, run: Run, at: int) -> Entry:
    """The server waits 5 minutes for the proxy, fails, is restarted and fails again.

    Returns its first traceback."""
    assert run.user is not None
    failures = []
    for attempt in (1, 2):
        inc.log(run.head, run.user, at, JETSTREAM_STARTING)
        at += sec(300) + inc.between(0.0, 0.5)
        failures.append(client_traceback(inc, run, at, NO_PROXY)[0])
        container_died(inc, run.head, run.user, at + inc.between(0.3, 0.6), 1)
        restart = at + inc.between(10.0, 12.0)
        at = start_container(inc, run.head, run.user, restart, attempt=attempt)
        at += inc.between(0.5, 1.5)
    return failures[0]
