"""Local privacy mechanisms, their optimisers, and privacy and utility measures."""

from privacy.mechanism import Mechanism

__all__ = ["Mechanism"]
