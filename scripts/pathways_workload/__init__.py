"""Debug Pathways on Cloud workloads from their Cloud Logging evidence."""

__version__ = "0.1.0"
# Sent as the user agent and printed before every gcloud command; it carries no user data.
USAGE_TOKENS = f"pathways-workload/{__version__} (skill:pathways-workload)"
