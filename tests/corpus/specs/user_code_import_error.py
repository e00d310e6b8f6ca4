"""The client's program cannot import a module; its launcher prefixes every line `[rank0]: `."""

from __future__ import annotations

from tests.corpus import beats
from tests.corpus.beats.failures import traceback_text
from tests.corpus.beats.startup import user_start
from tests.corpus.expect import act, errors_act, finish, ref
from tests.corpus.incident import Incident, Story
from tests.corpus.layouts import release
from tests.corpus.model import Run
from tests.corpus.wording import Line
from tests.logentry import Entry

STORY = Story(
    slug="user-code-import-error",
    seed=2424,
    start="2026-11-30T18:00:00Z",
    title="The program fails to import a module; every traceback line has a [rank0]: prefix",
    scenario=16,
    layout="xpk, launcher prefix `[rank0]: `",
    summary=(
        "Every Pathways component starts and both slices are ready. The client runs its program "
        "under a launcher that prefixes each line with `[rank0]: `; its Cloud Logging handler "
        "cannot submit records (Permission 'logging.logEntries.create' denied: incidental), then "
        "the program's checkpointing import fails with ModuleNotFoundError: No module named "
        "'jax.experimental.gda_serialization' (an Orbax release older than the image's JAX), "
        "logged one line per entry. The client exits and the JobSet fails."
    ),
)
PREFIX = "[rank0]: "
IMPORT_GUESS = (
    "the program's frames (the exception line is verbatim from a public issue) and the lines "
    "the Cloud Logging client library prints around its permission error"
)
NO_MODULE = "ModuleNotFoundError: No module named 'jax.experimental.gda_serialization'"
FRAMES = (
    '  File "/app/train.py", line 9, in <module>',
    "    from app import checkpointing",
    '  File "/app/app/checkpointing.py", line 4, in <module>',
    "    import orbax.checkpoint as ocp",
    '  File "/usr/local/lib/python3.12/site-packages/orbax/checkpoint/type_handlers.py", line 24, '
    "in <module>",
    "    from jax.experimental.gda_serialization import serialization",
)
IMPORT_FAILED = Line(
    "\n".join(PREFIX + part for part in traceback_text(FRAMES, NO_MODULE).split("\n")),
    form="plain",
    planted=True,
    guess=IMPORT_GUESS,
)
SUBMIT_FAILED = Line(
    PREFIX + "Failed to submit 1 logs.", form="plain", planted=True, guess=IMPORT_GUESS
)
PERMISSION = Line(
    PREFIX + "details = \"Permission 'logging.logEntries.create' denied on resource (or it may "
    'not exist)."',
    form="plain",
    planted=True,
)


def import_fails(inc: Incident, run: Run, at: int) -> Entry:
    """The Logging handler's permission error, then the import error, line by line.

    Returns the exception line."""
    assert run.client is not None and run.user is not None
    inc.log(run.client, run.user, at, SUBMIT_FAILED)
    inc.log(run.client, run.user, at + inc.between(0.001, 0.003), PERMISSION)
    failed_at = at + inc.between(1.0, 3.0)
    lines = beats.client_traceback(inc, run, failed_at, IMPORT_FAILED, per_line=True)
    beats.finish_exit(inc, run, failed_at + inc.between(0.5, 1.0))
    return lines[-1]


def build() -> Incident:
    inc = Incident(STORY)
    version = release(image="ft-train:2026-11-30")
    run = beats.standard(inc, "gemma-ft", version, launch=260.0)
    boot = beats.start_run(inc, run, run.launch, with_user=False)
    assert run.client is not None and run.user is not None
    user_at = user_start(inc, run, boot.started[(run.client.name, run.user)] + inc.between(1, 2))
    error = import_fails(inc, run, user_at + inc.between(2.0, 4.0))
    at = user_at + inc.between(8.0, 10.0)
    beats.steady(inc, run, boot, default=at)
    beats.stop_run(inc, run, at, dead=(f"{run.head.name}/{run.user}",), reason="FailedJobs")
    beats.node_noise(inc)
    root = ref(inc, error, NO_MODULE, scenario=16, source="container", downstream_only=False)
    return finish(
        inc,
        run,
        root=root,
        method=[
            errors_act(contains=[NO_MODULE, "logging.logEntries.create"]),
            act("user-workload", contains=[PREFIX + NO_MODULE, "Failed to submit 1 logs."]),
            act("summary", contains=["FailedJobs"]),
        ],
    )
