"""adversaries package."""
