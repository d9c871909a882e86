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
profiler's, which must see each launch). A module makes its first FREE_CAPTURES captures whenever its
arguments repeat, later ones at most once every CALLS_PER_CAPTURE launches: arguments that keep changing
cost a capture now and then, and a module whose arguments settle after such a while replays again. A
capture that fails warns once, with the reason, and the module launches its kernels one by one from
then on.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import torch

REPLAYED_SCRATCH_MAX_BYTES = 1 << 20
FREE_CAPTURES = 8
CALLS_PER_CAPTURE = 256

Launch = Callable[..., object]


def replayed(launch_each: Launch, device: torch.device, quiet: Callable[[], bool], names: str) -> Launch:
    """`launch_each` (every kernel of a module launched in turn on the module's arguments), replayed as
    a CUDA graph while the arguments repeat and `quiet()` says no launch hook would see the launches.
    `names`: the module's kernels, for the warning a failed capture gives."""
    graph = _Graph(launch_each, device)
    capturing = torch._C._cuda_isCurrentStreamCapturing

    def launch(*passed: Any) -> None:
        held = graph.held  # read once: another thread may capture a new graph meanwhile
        if held is not None and passed == held[0] and not capturing() and quiet():
            held[1].replay()
            return
        launch_each(*passed)
        repeated = passed == graph.previous
        graph.previous = passed
        graph.launches += 1
        if repeated and graph.may_capture() and not capturing() and quiet():
            graph.captures, graph.launches = graph.captures + 1, 0
            try:
                graph.capture(passed)
            except RuntimeError as err:  # this call's launches ran; later ones launch one by one
                graph.failed = True
                warnings.warn(
                    f"hfuse: kernels {names} launch one by one from now on: capturing them as one CUDA "
                    f"graph failed ({err})",
                    RuntimeWarning,
                    stacklevel=2,
                )

    return launch


class _Graph:
    """The graph held with the arguments it was captured on, the arguments of the previous call, and how
    many captures and launches (calls not replayed) the module made."""

    def __init__(self, launch_each: Launch, device: torch.device) -> None:
        self.launch_each = launch_each
        self.device = device
        self.held: tuple[tuple[Any, ...], torch.cuda.CUDAGraph] | None = None
        self.previous: tuple[Any, ...] | None = None
        self.captures = 0
        self.launches = 0  # since the last capture
        self.failed = False

    def may_capture(self) -> bool:
        return not self.failed and (self.captures < FREE_CAPTURES or self.launches >= CALLS_PER_CAPTURE)

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
