"""Elastic recovery after a lost slice fails while restoring the checkpoint."""

from __future__ import annotations

from tests.corpus import beats
from tests.corpus.beats import elastic
from tests.corpus.clock import sec
from tests.corpus.expect import act, errors_act, finish, host_ref, ref
from tests.corpus.incident import Incident, Story
from tests.corpus.layouts import release
from tests.corpus.model import WORKER, Boot, Pod, Run
from tests.logentry import DEMO, Entry

STORY = Story(
    slug="elastic-restore-failure",
    seed=101,
    start="2026-11-16T09:00:00Z",
    title="Elastic recovery after a lost slice fails while restoring the checkpoint",
    scenario=1,
    layout="xpk, elastic proxy",
    summary=(
        "A host error takes down the node of slice 1 host 1 25 s after an asynchronous save of "
        "step 1200 started; the client catches DATA_LOSS, waits in elastic attempt 1 until the "
        "replacement worker rejoins and 2/2 slices are ready, deletes uncommitted step 1200, "
        "fails the in-memory snapshot restore and falls back to step 1100, whose "
        "_CHECKPOINT_METADATA is missing, so the attempt fails with ElasticRuntimeError and the "
        "JobSet fails (FailedJobs)."
    ),
)
NAME, UNCOMMITTED, RESTORED = "llama-elastic", 1200, 1100
RECOVERY_SEEN = [
    "Elastic attempt 1",
    "placed -> unplaced",
    "2/2 Pathways Slices Now Ready",
    "No commit_success file found",
    "Falling back to persistent checkpoint",
    "Restoring checkpoint from",
    "Elastic attempt 1 failed",
]
CHECKPOINTS = f"gs://{DEMO.project}-ckpt/{NAME}/checkpoints"
NO_METADATA = beats.traceback_line(
    (
        '  File "/deps/src/maxtext/utils/elastic_utils.py", line 164, in '
        "restore_after_elastic_event",
        "    state = checkpoint_manager.restore({restored}, args=restore_args)",
        '  File "/usr/local/lib/python3.12/site-packages/orbax/checkpoint/checkpoint_manager.py", '
        "line 1621, in restore",
        "    metadata = self._read_metadata(step)",
        "FileNotFoundError: No checkpoint metadata found at "
        "{checkpoints}/{restored}/_CHECKPOINT_METADATA",
        "",
        "The above exception was the direct cause of the following exception:",
        "",
        beats.TRACEBACK_HEADER,
        *beats.TRAIN_FRAMES[:2],
    ),
    "pathwaysutils.elastic.manager.ElasticRuntimeError: Elastic attempt 1 failed.",
    guess=elastic.SAVE_GUESS,
)


def fails_to_restore(inc: Incident, run: Run, at: int, **figures: object) -> tuple[Entry, int]:
    """The restore of the persistent checkpoint fails; the client exits and the head Job gives
    up. Returns the client's traceback and when the JobSet fails."""
    failed_at = at + inc.between(6, 11)
    failure = beats.client_traceback(inc, run, failed_at, NO_METADATA, **figures)[0]
    beats.finish_exit(inc, run, failed_at + inc.between(1.0, 2.0))
    stop = failed_at + inc.between(3.0, 4.0)
    beats.backoff_limit(inc, f"{NAME}-pathways-head-0", stop - sec(1))
    return failure, stop


def ends(
    inc: Incident,
    run: Run,
    boot: Boot,
    lost: Pod,
    loss: elastic.SliceLoss,
    back: elastic.SliceBack,
    stop: int,
) -> None:
    """The periodic lines stop (the lost worker's when its node went, the RM's at the loss);
    the JobSet fails and stops every pod, the replacement worker's too."""
    gone = {lost.name: loss.node_gone, f"{run.head.name}/pathways-rm": loss.at}
    beats.steady(inc, run, boot, gone, default=stop)
    rejoined = Boot(steady_from={(back.replacement.name, WORKER): back.registered})
    beats.steady(inc, run, rejoined, default=stop)
    run.workers[1][1] = back.replacement
    beats.stop_run(inc, run, stop, dead=(f"{run.head.name}/jax-tpu",), reason="FailedJobs")


def build() -> Incident:
    inc = Incident(STORY)
    run = beats.standard(
        inc,
        NAME,
        release(),
        hosts=3,
        itype="tpuv6e:2x6",
        launch=150.0,
        decoy_crash=1200.0,
        elastic=2,
    )
    boot = beats.start_run(inc, run, run.launch, restore_step=1000)
    elastic.enabled(inc, run, boot.session)
    plan = beats.Training(step0=1001, step_time=5.6, last_step=1204)
    saves = elastic.AsyncSaves(inc, run, UNCOMMITTED)
    steps = beats.train(inc, run, boot.first_step, inc.t1, plan, save=saves)
    lost = run.workers[1][1]
    loss = elastic.host_lost(inc, run, lost, steps[-1][0] + inc.between(1.0, 4.0))
    back = elastic.slice_back(inc, run, lost, loss)
    figures = {"checkpoints": CHECKPOINTS, "uncommitted": UNCOMMITTED, "restored": RESTORED}
    figures |= {"step": steps[-1][1], "slice": lost.slice, "node": lost.node.name}
    recovery, at = elastic.recover(inc, run, back.resumes, **figures)
    failure, stop = fails_to_restore(inc, run, at, **figures)
    ends(inc, run, boot, lost, loss, back, stop)
    beats.node_noise(inc)
    root = ref(inc, failure, "No checkpoint metadata found", scenario=1, source="container")
    trigger = ref(inc, loss.audit, "compute.instances.hostError", scenario=4, source="audit")
    return finish(
        inc,
        run,
        root=root,
        failures=[trigger, root],
        symptoms=[
            ref(inc, loss.detected, "DATA_LOSS"),
            ref(inc, loss.heartbeat, "Lost heartbeat from worker"),
            ref(inc, recovery[3], "Falling back to persistent checkpoint"),
            ref(inc, back.ready, "2/2 Pathways Slices Now Ready"),
        ],
        failing_hosts=[host_ref(lost, loss.audit)],
        method=[
            errors_act(first=ref(inc, loss.detected, "DATA_LOSS")),
            act("elastic", contains=RECOVERY_SEEN),
            act("interruptions", contains=["compute.instances.hostError", lost.node.name]),
            act("summary", contains=["FailedJobs"]),
        ],
    )
