"""Where entries come from: recorded exports (offline) or Cloud Logging."""
