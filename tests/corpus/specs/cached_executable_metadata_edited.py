"""A cached executable in the GCS compilation cache is replaced while the client reads it."""

from __future__ import annotations

from tests.corpus import beats
from tests.corpus.expect import act, errors_act, finish, ref
from tests.corpus.incident import Incident, Story
from tests.corpus.layouts import release
from tests.corpus.wording import Line

STORY = Story(
    slug="cached-executable-metadata-edited",
    seed=707,
    start="2026-11-20T11:00:00Z",
    title="Cached executable read fails: metadata edited during the operation",
    scenario=7,
    layout="xpk",
    summary=(
        "On its first compilation the client reads a cached executable from the GCS persistent "
        "cache while another writer (the phi-train-eval JobSet shares the scratch bucket) replaces "
        "it and gets ABORTED: Permanent error ... The metadata for object was edited during the "
        "operation; the JobSet restarts and attempt 1 compiles and trains normally."
    ),
)
GUESS = (
    "`Persistent compilation cache enabled at ...`; traceback frames (the final ABORTED message "
    "is verbatim)"
)
CACHE_ENABLED = Line(
    "Persistent compilation cache enabled at {cache}", ("train.py", 203), guess=GUESS
)
METADATA_EDITED = beats.traceback_line(
    (
        '  File "/deps/src/maxtext/trainers/pre_train/train.py", line 701, in <module>',
        "    app.run(main)",
        '  File "/deps/src/maxtext/trainers/pre_train/train.py", line 540, in train_loop',
        "    compiled = p_train_step.lower(state, example_batch, nextrng).compile()",
        '  File "/usr/local/lib/python3.12/site-packages/jax/_src/stages.py", line 612, in compile',
        "    self._executable = self._lowering.compile(**kw)",
    ),
    "jax.errors.JaxRuntimeError: ABORTED: Permanent error, with a last message “” of The metadata "
    "for object was edited during the operation. Please try again",
    guess=GUESS,
)


def build() -> Incident:
    inc = Incident(STORY)
    run = beats.standard(
        inc, "phi-train", release(image="maxtext:2026-11-19"), launch=1330.0, decoy_crash=900.0
    )
    boot = beats.start_run(inc, run, run.launch)
    cache = f"{run.scratch}/compilation_cache"
    inc.log(run.head, "jax-tpu", boot.session + inc.between(2, 4), CACHE_ENABLED, cache=cache)
    failed_at = boot.session + inc.between(30, 50)
    failure = beats.client_traceback(inc, run, failed_at, METADATA_EDITED)[0]
    beats.finish_exit(inc, run, failed_at + inc.between(0.8, 1.6))
    stop = failed_at + inc.between(2.5, 3.5)
    beats.steady(inc, run, boot, default=stop)
    beats.stop_run(inc, run, stop, dead=(f"{run.head.name}/jax-tpu",))
    beats.restart_and_run(inc, run, stop + inc.between(15, 30), beats.Training(step_time=8.3))
    beats.node_noise(inc)
    edited = "The metadata for object was edited during the operation"
    root = ref(inc, failure, edited, scenario=7, source="container")
    return finish(
        inc,
        run,
        root=root,
        method=[
            errors_act(first=root),
            act("user-workload", contains=["ABORTED: Permanent error", edited, "completed step:"]),
            act("summary", contains=[beats.RESTART]),
        ],
    )
