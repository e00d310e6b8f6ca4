"""Debug Pathways on Cloud workloads from their Cloud Logging evidence."""

__version__ = "0.1.0"
