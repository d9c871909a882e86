"""A cached call writes a small output's last buffer again only once nothing outside the plan holds it."""

from __future__ import annotations

import weakref

import pytest
import torch

from hfuse import DataType, FusionDefinition
from hfuse.runtime import output_pool
from hfuse.runtime.output_pool import POOLED_MAX_BYTES, pooled

pytestmark = pytest.mark.usefixtures("fresh_cache")


def _doubling() -> FusionDefinition:
    with FusionDefinition() as fd:
        x = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)
        fd.add_output(fd.ops.mul(x, 2.0))
    return fd


def _cached(fd: FusionDefinition, x: torch.Tensor) -> None:
    """Past the validated first call and the call that fills the pool."""
    for _ in range(2):
        fd.execute([x])


def test_a_dropped_output_is_written_again_in_place(device):
    fd, x = _doubling(), torch.randn(64, device=device)
    _cached(fd, x)
    address = fd.execute([x])[0].data_ptr()
    (again,) = fd.execute([x * 3])
    assert again.data_ptr() == address
    torch.testing.assert_close(again, x * 6)


def _by_name(out):
    return lambda: out[8:]


def _by_view(out):
    view = out[8:]
    return lambda: view


def _by_view_in_inference_mode(out):
    with torch.inference_mode():
        view = out[8:]
    return lambda: view


def _by_tensor_on_its_storage(out):
    other = torch.empty(0, device=out.device).set_(out.untyped_storage(), 8, (56,))
    return lambda: other


def _by_dlpack(out):
    capsule = torch.utils.dlpack.to_dlpack(out[8:])
    return lambda: torch.utils.dlpack.from_dlpack(capsule)  # a capsule is read once


def _by_weak_reference(out):
    reference = weakref.ref(out)
    return lambda: None if reference() is None else reference()[8:]  # None: it died with its last holder


HOLDS = [_by_name, _by_view, _by_view_in_inference_mode, _by_tensor_on_its_storage, _by_dlpack]
HOLDS += [_by_weak_reference]


@pytest.mark.parametrize("hold", HOLDS, ids=[h.__name__.removeprefix("_by_") for h in HOLDS])
def test_an_output_held_in_any_way_is_not_written_by_the_next_call(hold, device):
    fd, x = _doubling(), torch.randn(64, device=device)
    _cached(fd, x)
    (out,) = fd.execute([x])
    before = out[8:].clone()
    read = hold(out)
    del out
    (other,) = fd.execute([x + 1])
    torch.testing.assert_close(other, (x + 1) * 2)
    held = read()
    assert held is None or torch.equal(held, before)


def _counting() -> tuple[list[int], output_pool.Allocate]:
    """An allocation that counts its calls (it keeps no tensor, which would hold it)."""
    made: list[int] = []

    def allocate(shape, strides, dtype):
        made.append(1)
        return torch.empty_strided(shape, strides, dtype=dtype)

    return made, allocate


def test_only_outputs_up_to_the_bound_are_kept():
    made, allocate = _counting()
    small = pooled(allocate, (POOLED_MAX_BYTES // 4,), (1,), torch.float32)
    large = pooled(allocate, (POOLED_MAX_BYTES // 4 + 1,), (1,), torch.float32)
    first = small(0).data_ptr()
    assert small(0).data_ptr() == first and len(made) == 1
    large(0)
    large(0)
    assert len(made) == 3, "a large output is allocated on every call"


def test_a_buffer_is_kept_per_stream_and_never_for_a_captured_call():
    made, allocate = _counting()
    buffer = pooled(allocate, (4,), (1,), torch.float32)
    for stream in (1, 1, 2, 2):  # each call's buffer dropped before the next
        buffer(stream)
    assert len(made) == 2, "a call on another stream does not write a buffer the first may still use"
    buffer(None)
    buffer(None)
    assert len(made) == 4, "a call captured into a CUDA graph (no stream number) takes a new buffer"
    buffer(2)
    assert len(made) == 4, "the stream's buffer stays kept through captured calls"


def test_off_a_gpu_every_call_is_on_stream_zero():
    assert output_pool.current_stream(torch.device("cpu"))() == 0
