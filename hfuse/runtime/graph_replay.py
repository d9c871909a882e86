"""A kernel module of several launches (a split reduction's partials and their combine), replayed as one
CUDA graph while its calls repeat the same arguments.

Each launch costs the host about as much as the launch of a whole CUDA graph, so a cached call that
launches a module's kernels again on the arguments of its previous call replays them as one graph
instead. The graph is captured at the second call in a row with the same arguments (data addresses and
scalar values: a graph keeps both) and replayed on the current stream while they stay the same; a call
with other arguments launches each kernel as before. A replay reads and writes the memory at the
captured addresses when it runs, as the launches would. The scratch buffers of the launches belong to the
graph's own memory pool, so only modules with small scratch buffers are replayed. Never while the current
stream is itself being captured (the caller's graph then takes the launches) or a launch hook is set (a
profiler's, which must see each launch), and a module whose arguments keep changing stops capturing after
CAPTURES_PER_MODULE graphs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

REPLAYED_SCRATCH_MAX_BYTES = 1 << 20
CAPTURES_PER_MODULE = 8

Launch = Callable[..., object]


def replayed(launch_each: Launch, device: torch.device, quiet: Callable[[], bool]) -> Launch:
    """`launch_each` (every kernel of a module launched in turn on the module's arguments), replayed as
    a CUDA graph while the arguments repeat and `quiet()` says no launch hook would see the launches."""
    graph = _Graph(launch_each, device)
    capturing = torch._C._cuda_isCurrentStreamCapturing

    def launch(*passed: Any) -> None:
        replayable = not capturing() and quiet()
        held = graph.held  # read once: another thread may capture a new graph meanwhile
        if replayable and held is not None and passed == held[0]:
            held[1].replay()
            return
        launch_each(*passed)
        if replayable and passed == graph.previous and graph.captures < CAPTURES_PER_MODULE:
            graph.captures += 1
            try:
                graph.capture(passed)
            except RuntimeError:  # this call's launches ran; the module keeps launching them one by one
                graph.captures = CAPTURES_PER_MODULE
        graph.previous = passed

    return launch


class _Graph:
    """The graph held with the arguments it was captured on, and the arguments of the previous call."""

    def __init__(self, launch_each: Launch, device: torch.device) -> None:
        self.launch_each = launch_each
        self.device = device
        self.held: tuple[tuple[Any, ...], torch.cuda.CUDAGraph] | None = None
        self.previous: tuple[Any, ...] | None = None
        self.captures = 0

    def capture(self, passed: tuple[Any, ...]) -> None:
        """Captures the launches on `passed` on a side stream, after the work queued so far on the current
        one (whose call has just launched them: the capture itself runs nothing)."""
        self.held = None  # the old graph and its pool go first
        current = torch.cuda.current_stream(self.device)
        side = torch.cuda.Stream(self.device)
        side.wait_stream(current)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.stream(side):
            graph.capture_begin(capture_error_mode="thread_local")
            try:
                self.launch_each(*passed)
            finally:
                graph.capture_end()
        current.wait_stream(side)
        self.held = (passed, graph)
