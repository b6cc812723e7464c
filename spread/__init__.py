"""spread package."""
