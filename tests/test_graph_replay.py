"""When a module of several launches is replayed as a CUDA graph (`hfuse.runtime.graph_replay`): the
decisions, with the capture stood in for (the real graphs run in tests/gpu)."""

from __future__ import annotations

import pytest
import torch

from hfuse.runtime import graph_replay


class _FakeGraph:
    def __init__(self, arguments, replays) -> None:
        self.arguments, self.replays = arguments, replays

    def replay(self) -> None:
        self.replays.append(self.arguments)


@pytest.fixture
def recorded(monkeypatch):
    """(launches, captures, replays, settings): what a replayed module did, and its capturing and quiet
    state to set."""
    launches, captures, replays = [], [], []
    settings = {"capturing": False, "quiet": True}

    def capture(graph, passed) -> None:
        captures.append(passed)
        graph.held = (passed, _FakeGraph(passed, replays))

    monkeypatch.setattr(graph_replay._Graph, "capture", capture)
    capturing, quiet = (lambda: settings["capturing"]), (lambda: settings["quiet"])
    monkeypatch.setattr(torch._C, "_cuda_isCurrentStreamCapturing", capturing, raising=False)
    launch = graph_replay.replayed(lambda *a: launches.append(a), torch.device("cuda"), quiet, "k0 and k1")
    return launch, launches, captures, replays, settings


def test_the_second_call_in_a_row_on_the_same_arguments_captures_and_later_ones_replay(recorded):
    launch, launches, captures, replays, _ = recorded
    for _ in range(4):
        launch(1, 2, 3.5)
    assert launches == [(1, 2, 3.5)] * 2 and captures == [(1, 2, 3.5)] and replays == [(1, 2, 3.5)] * 2
    launch(1, 2, 4.5)  # a scalar changed: launched, the graph kept
    launch(1, 2, 3.5)
    assert launches[-1] == (1, 2, 4.5) and replays[-1] == (1, 2, 3.5) and len(replays) == 3


def test_alternating_arguments_never_capture_and_changing_ones_capture_rarely_after_the_free_ones(recorded):
    launch, launches, captures, _, _ = recorded
    for i in range(10):
        launch(i % 2)
    assert not captures and len(launches) == 10
    for i in range(graph_replay.FREE_CAPTURES + 3):
        for _ in range(3):
            launch(100 + i)
    assert len(captures) == graph_replay.FREE_CAPTURES
    for i in range(graph_replay.CALLS_PER_CAPTURE):  # arguments that repeat twice, then change
        launch(200 + i // 2)
    assert len(captures) == graph_replay.FREE_CAPTURES + 1


def test_a_module_whose_arguments_settle_after_its_free_captures_replays_again(recorded):
    launch, launches, captures, replays, _ = recorded
    for i in range(graph_replay.FREE_CAPTURES):
        launch(i)
        launch(i)
    for i in range(graph_replay.CALLS_PER_CAPTURE):  # other arguments every call: nothing captured
        launch(1000 + i)
    assert len(captures) == graph_replay.FREE_CAPTURES
    for _ in range(5):
        launch(77)
    assert captures[-1] == (77,) and replays == [(77,)] * 3


@pytest.mark.parametrize("state", ["capturing", "hooked"])
def test_no_replay_or_capture_while_the_stream_is_captured_or_a_launch_hook_is_set(recorded, state):
    launch, launches, captures, replays, settings = recorded
    launch(7)
    launch(7)
    assert captures == [(7,)]
    settings.update(capturing=True) if state == "capturing" else settings.update(quiet=False)
    for _ in range(3):
        launch(7)
        launch(8)
        launch(8)
    assert not replays and captures == [(7,)] and len(launches) == 2 + 9


def test_a_failed_capture_warns_with_its_reason_once_and_leaves_the_module_launching_one_by_one(monkeypatch):
    launches, attempts = [], []

    def failing(graph, passed) -> None:
        attempts.append(passed)
        raise RuntimeError("operation not permitted when stream is capturing")

    monkeypatch.setattr(graph_replay._Graph, "capture", failing)
    monkeypatch.setattr(torch._C, "_cuda_isCurrentStreamCapturing", lambda: False, raising=False)
    launch = graph_replay.replayed(launches.append, torch.device("cuda"), lambda: True, "k0 and k1")
    launch(1)
    with pytest.warns(RuntimeWarning, match=r"kernels k0 and k1 launch one by one.*when stream is capturing"):
        launch(1)
    for _ in range(5):
        launch(1)
        launch(2)
        launch(2)
    assert launches == [1, 1] + [1, 2, 2] * 5 and attempts == [(1,)]
