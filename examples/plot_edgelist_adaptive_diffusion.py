"""
Adaptive diffusion on your own edge-list graph
==============================================

Placeholder.
"""
print(1)
