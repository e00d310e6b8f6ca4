"""An image that cannot be pulled: ErrImagePull, then ImagePullBackOff with growing back-off."""

from __future__ import annotations

from tests.corpus.beats.pods import PULLING, schedule
from tests.corpus.clock import sec
from tests.corpus.incident import Incident
from tests.corpus.model import Pod
from tests.corpus.wording import ContainerdLine, Event, KubeletLine
from tests.logentry import Entry

NOT_FOUND = (
    'rpc error: code = NotFound desc = failed to pull and unpack image "{image}": failed to '
    'resolve reference "{image}": unexpected status from HEAD request to '
    "https://us-docker.pkg.dev/v2/{path}/manifests/{tag}: 404 Not Found (manifest unknown)"
)
PULL_FAILED = Event(
    "Failed",
    'Failed to pull image "{image}": {error}',
    type="Warning",
    planted=True,
    guess="the text after `desc =` in the pull failure (containerd wording with a 404 and "
    "`manifest unknown`)",
)
ERR_IMAGE_PULL = Event("Failed", "Error: ErrImagePull", type="Warning", planted=True)
PULL_BACKOFF = Event("BackOff", 'Back-off pulling image "{image}"', planted=True)
IMAGE_PULL_BACKOFF = Event("Failed", "Error: ImagePullBackOff", type="Warning", planted=True)
CONTAINERD_PULL_FAILED = ContainerdLine(
    'PullImage \\"{image}\\" failed', level="error", planted=True
)
UNHANDLED_ERROR = KubeletLine(
    '"Unhandled Error" err="failed to \\"StartContainer\\" for \\"{container}\\" with '
    'ErrImagePull: \\"{error}\\"" logger="UnhandledError"',
    ("pod_workers.go", 1301),
    letter="E",
    planted=True,
    guess='the kubelet `"Unhandled Error" err="failed to \\"StartContainer\\" ..."` journal line',
)


def pull_fails(inc: Incident, pod: Pod, at: int) -> Entry:
    """The pod is scheduled; its first container's image cannot be pulled until the window
    ends. Returns the first pull failure event."""
    container = pod.all_containers()[0]
    image = pod.images[container]
    repository, tag = image.rsplit(":", 1)
    error = NOT_FOUND.format(image=image, path=repository.split("/", 1)[1], tag=tag)
    path, uid = pod.field_path(container), pod.uid
    schedule(inc, pod, at)
    at += inc.between(1.0, 2.5)
    failures = []
    backoff = 10.0
    while at < inc.t1 - sec(5):
        inc.pod_event(pod, at, PULLING, field_path=path, key=f"{uid}/Pulling", image=image)
        at += inc.between(0.3, 0.9)
        failures.append(
            inc.pod_event(
                pod,
                at,
                PULL_FAILED,
                field_path=path,
                key=f"{uid}/Failed/pull",
                image=image,
                error=error,
            )
        )
        inc.pod_event(pod, at, ERR_IMAGE_PULL, field_path=path, key=f"{uid}/Failed/err")
        inc.containerd(pod.node, at - inc.between(0.01, 0.05), CONTAINERD_PULL_FAILED, image=image)
        quoted = error.replace('"', '\\"')
        inc.kubelet(
            pod.node,
            at + inc.between(0.01, 0.05),
            UNHANDLED_ERROR,
            container=container,
            error=quoted,
        )
        at += inc.between(1.0, 2.0)
        inc.pod_event(pod, at, PULL_BACKOFF, field_path=path, key=f"{uid}/BackOff", image=image)
        inc.pod_event(pod, at, IMAGE_PULL_BACKOFF, field_path=path, key=f"{uid}/Failed/backoff")
        at += sec(backoff) + inc.between(0.0, 2.0)
        backoff = min(backoff * 2, 300.0)
    return failures[0]
