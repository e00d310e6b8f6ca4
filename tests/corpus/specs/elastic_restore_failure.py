"""Elastic recovery after a lost slice fails while restoring the checkpoint."""

from __future__ import annotations

from tests.corpus import beats
from tests.corpus.beats import elastic
from tests.corpus.clock import sec
from tests.corpus.expect import act, errors_act, finish, host_ref, ref, unrelated_of, versions
from tests.corpus.incident import Incident, Story
from tests.corpus.layouts import release
from tests.corpus.model import WORKER, Boot
from tests.logentry import DEMO

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
    lost_at, lost = steps[-1][0] + inc.between(1.0, 4.0), run.workers[1][1]
    loss = elastic.host_lost(inc, run, lost, lost_at)
    back = lost_at + inc.between(140, 170)
    beats.node_back(inc, lost.node, back - sec(70), back)
    polled = elastic.wait_for_slices(inc, run, loss.detected_at + sec(10), back + sec(20))
    replacement = elastic.replacement_pod(inc, run, lost)
    registered, ready_at, ready = elastic.rejoin(inc, run, replacement, back + sec(10))
    figures = {"checkpoints": CHECKPOINTS, "uncommitted": UNCOMMITTED, "restored": RESTORED}
    figures |= {"step": steps[-1][1], "slice": lost.slice, "node": lost.node.name}
    recovery, at = elastic.recover(inc, run, max(polled, ready_at + inc.between(1, 3)), **figures)
    failed_at = at + inc.between(6, 11)
    failure = beats.client_traceback(inc, run, failed_at, NO_METADATA, **figures)[0]
    beats.finish_exit(inc, run, failed_at + inc.between(1.0, 2.0))
    stop = failed_at + inc.between(3.0, 4.0)
    beats.backoff_limit(inc, f"{NAME}-pathways-head-0", stop - sec(1))
    gone = {lost.name: loss.node_gone, f"{run.head.name}/pathways-rm": lost_at}
    beats.steady(inc, run, boot, gone, default=stop)
    beats.steady(inc, run, Boot(steady_from={(replacement.name, WORKER): registered}), default=stop)
    run.workers[1][1] = replacement
    beats.stop_run(inc, run, stop, dead=(f"{run.head.name}/jax-tpu",), reason="FailedJobs")
    beats.node_noise(inc)
    root = ref(inc, failure, "No checkpoint metadata found", scenario=1, source="container")
    trigger = ref(inc, loss.audit, "compute.instances.hostError", scenario=None, source="audit")
    return finish(
        inc,
        workload=[f"jobset:{NAME}"],
        unrelated=unrelated_of(inc, f"{NAME}-eval"),
        root=root,
        failures=[trigger, root],
        symptoms=[
            ref(inc, loss.detected, "DATA_LOSS"),
            ref(inc, loss.heartbeat, "Lost heartbeat from worker"),
            ref(inc, recovery[3], "Falling back to persistent checkpoint"),
            ref(inc, ready, "2/2 Pathways Slices Now Ready"),
        ],
        failing_hosts=[host_ref(lost, loss.audit)],
        versions=versions(run),
        method=[
            errors_act(first=ref(inc, loss.detected, "DATA_LOSS")),
            act(
                "elastic",
                contains=[
                    "Elastic attempt 1",
                    "placed -> unplaced",
                    "2/2 Pathways Slices Now Ready",
                    "No commit_success file found",
                    "Falling back to persistent checkpoint",
                    "Restoring checkpoint from",
                    "Elastic attempt 1 failed",
                ],
            ),
            act("interruptions", contains=["compute.instances.hostError", lost.node.name]),
            act("summary", contains=["FailedJobs"]),
        ],
    )
