"""The names of the ways hfuse runs a fusion, declared once.

A segmentation strategy cuts the fusion into generated kernels: HFUSE merges vertically, by iteration
space and horizontally; NAIVE gives every op chain its own kernel. A backend is a strategy, or EAGER
(the torch reference, op by op) or INDUCTOR (torch.compile of the reference).
"""

HFUSE = "hfuse"
NAIVE = "naive"
EAGER = "eager"
INDUCTOR = "inductor"

STRATEGIES = (HFUSE, NAIVE)
BACKENDS = (*STRATEGIES, EAGER, INDUCTOR)
