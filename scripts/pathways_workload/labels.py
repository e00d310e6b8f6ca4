"""The label keys GKE puts on log entries, in one place.

Container lines carry their pod's Kubernetes labels as `k8s-pod/<key>` (dots
and slashes of the key turned into underscores) plus GKE's own
`compute.googleapis.com/resource_name` (the node) and the
`logging.gke.io/top_level_controller_*` owner labels. One key is the tool's own:
a line of text logs with no time of its own carries `TIME_GUESSED`.
"""

from __future__ import annotations

JOBSET_NAME = "k8s-pod/jobset_sigs_k8s_io/jobset-name"
JOBSET_JOB_INDEX = "k8s-pod/jobset_sigs_k8s_io/job-index"
JOBSET_REPLICAS = "k8s-pod/jobset_sigs_k8s_io/replicatedjob-replicas"
JOBSET_REPLICATED_JOB = "k8s-pod/jobset_sigs_k8s_io/replicatedjob-name"
JOB_NAME = "k8s-pod/batch_kubernetes_io/job-name"
JOB_COMPLETION_INDEX = "k8s-pod/batch_kubernetes_io/job-completion-index"
LWS_NAME = "k8s-pod/leaderworkerset_sigs_k8s_io/name"
LWS_GROUP_INDEX = "k8s-pod/leaderworkerset_sigs_k8s_io/group-index"
LWS_WORKER_INDEX = "k8s-pod/leaderworkerset_sigs_k8s_io/worker-index"
NODE = "compute.googleapis.com/resource_name"
OWNER_TYPE = "logging.gke.io/top_level_controller_type"
OWNER_NAME = "logging.gke.io/top_level_controller_name"
RESTART_ATTEMPT = (
    "k8s-pod/jobset_sigs_k8s_io/restart-attempt",
    "jobset.sigs.k8s.io/restart-attempt",
)
# On a text-log line with no time of its own (it took a nearby line's): "guessed".
TIME_GUESSED = "debug-workload/time"
