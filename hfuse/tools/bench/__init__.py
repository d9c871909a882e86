"""The benchmark suite (`hfuse bench`, `python -m hfuse.tools.bench`): hfuse beside torch eager,
torch.compile and a clone of the same bytes, on a GPU."""

from hfuse.tools.bench.suite import main

__all__ = ["main"]
