"""Entry actions over Kubernetes events and the JobSet controller, and the user's own filter."""

from __future__ import annotations

from pathways_workload import filters, selectors, terms, user_filter
from pathways_workload.actions.common import fetch, narrowing, term_match
from pathways_workload.errors import UsageError
from pathways_workload.query import Request
from pathways_workload.sources.base import Fetch


def build_pod_events(request: Request) -> list[Fetch]:
    events = selectors.workload_events(request.target)
    purpose = "Kubernetes events of the workload's pods, Jobs and JobSet/LWS"
    return [fetch(request, "events", purpose, events, narrowing(request))]


def build_summary(request: Request) -> list[Fetch]:
    """The controller's lines by its terms or the floor; the events whole, since lowering
    the floor or adding terms (which widen the lines) must not drop an event."""
    names = tuple(workload.name for workload in request.target.workloads)
    controller_match = term_match(request, terms.SUMMARY_CONTROLLER_TERMS + names)
    controller_events = filters.all_of(
        [
            filters.log_id("events"),
            selectors.cluster_scope("k8s_pod", request.target, namespaced=False),
            selectors.JOBSET_CONTROLLER_NAMESPACE,
        ]
    )
    scheduling = filters.all_of(
        [
            selectors.pod_events(request.target),
            filters.one_of("jsonPayload.reason", terms.SCHEDULING_FAILURES),
        ]
    )
    workload_events = filters.any_of([selectors.object_events(request.target), scheduling])
    return [
        fetch(
            request,
            "controller",
            "JobSet controller logs (namespace jobset-system): validation, webhook, OOM",
            selectors.jobset_controller(request.target),
            controller_match,
        ),
        fetch(
            request,
            "controller_events",
            "JobSet controller pod events (restarts, OOM kills of the controller manager)",
            controller_events,
        ),
        fetch(
            request,
            "workload_events",
            "JobSet, LWS and Job events of the workload, and scheduling failures of its pods",
            workload_events,
        ),
    ]


def build_query(request: Request) -> list[Fetch]:
    """The user's --filter, checked on its own, then ANDed with the target flags and the window."""
    text = request.options.filter_text
    if text is None:
        raise UsageError("--action=query needs --filter='<Logging query>'")
    user_filter.check_text("--filter", text)
    user_filter.check_window("--filter", text, request.window)
    user_filter.check_label_keys("--filter", text)
    user_filter.check_scope("--filter", text, request.target)
    scope = selectors.target_scope(request.target)
    query = fetch(request, "filter", "your filter", user_filter.wrap(text), scope)
    user_filter.check_built("--filter", text, query.query.filter)
    return [query]
