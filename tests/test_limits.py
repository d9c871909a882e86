"""Every size and structure limit refuses where the input enters, names its HFUSE_* setting, and refuses
before allocating.

Each case runs twice under a guard that fails on any tensor made off the meta device: with the
limit set, the load is refused with a located LimitError and nothing was allocated; with the limit
raised, the same script loads far enough to allocate (so the guard would have seen a late refusal).
"""

import re

import pytest
import torch
from torch.overrides import TorchFunctionMode

import hfuse
from hfuse import FusionDefinition, LimitError, load, pipeline, settings
from hfuse.builder import FusionBuilder
from hfuse.dtypes import DataType
from hfuse.ir import Fusion, Op

FACTORIES = frozenset({
    torch.randn, torch.rand, torch.ones, torch.zeros, torch.empty, torch.full, torch.arange, torch.randint,
    torch.tensor, torch.empty_strided, torch.empty_like, torch.zeros_like, torch.ones_like, torch.full_like,
    torch.randn_like, torch.rand_like, torch.as_tensor,
})  # fmt: skip


class AllocationSeen(Exception):
    pass


class NoAllocation(TorchFunctionMode):
    """Fails on every tensor constructor that is not on the meta device."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func in FACTORIES and str(kwargs.get("device", "cpu")) != "meta":
            raise AllocationSeen(f"{func.__name__} was called with device={kwargs.get('device', 'cpu')}")
        return func(*args, **kwargs)


HEADER = "import torch\nfrom nvfuser import FusionDefinition, DataType\n\nwith FusionDefinition() as fd:\n"
INPUTS = "\ninputs = [torch.randn(4, 4), torch.randn(4, 4)]\nfd.execute(inputs)\n"
FROM_INPUTS = "    T0 = fd.from_pytorch(inputs[0])\n    T1 = fd.from_pytorch(inputs[1])\n"


def _script(body: str, inputs: str = INPUTS, define: str = FROM_INPUTS) -> str:
    return HEADER + define + body + inputs


SMALL = _script("    fd.add_output(T0 + T1)\n")
STATIC = "    T0 = fd.define_tensor(shape=[4, 4], contiguity=True)\n"

# (id, setting, refusing value, raised value, script, message, line)
SCRIPT_LIMITS = [
    ("script-chars", settings.MAX_SCRIPT_CHARS, len(SMALL) - 1, len(SMALL), SMALL,
     f"the script is {len(SMALL)} characters long; the limit is {len(SMALL) - 1}", 1),
    ("nesting", settings.MAX_NESTING, 4, 32, _script("    fd.add_output(-(-(-(-(-(T0))))))\n"),
     "nest deeper than 4 levels", 7),
    ("ops", settings.MAX_OPS, 4, 5, _script("    T2 = T0 + T1\n    fd.add_output(T2 * T2)\n"),
     "records more than 4 ops", 8),
    ("inputs-of-one-op", settings.MAX_OP_INPUTS, 2, 3,
     _script("    fd.add_output(fd.ops.cat([T0, T1, T0], 0))\n"),
     "cat takes 3 inputs; the limit is 2", 7),
    ("depth", settings.MAX_DEPTH, 2, 3, _script("    fd.add_output(-(-(-T0)))\n"),
     "neg producing T4 ends a chain of 3 ops; the limit is 2", 7),
    ("rank-of-an-input-tensor", settings.MAX_RANK, 1, 8, SMALL, "rank 2 is above the limit of 1", 9),
    ("rank-of-a-defined-tensor", settings.MAX_RANK, 2, 3,
     _script("    fd.add_output(T0)\n", inputs="", define=STATIC.replace("[4, 4]", "[1, 1, 1]")),
     "rank 3 exceeds the highest rank 2", 5),
    ("rank-of-a-result", settings.MAX_RANK, 2, 8,
     _script("    fd.add_output(fd.ops.broadcast_in_dim(T0, shape=[2, 4, 4], broadcast_dims=[1, 2]))\n"),
     "rank 3 exceeds the highest rank 2", 7),
    ("input-bytes-in-all", settings.MAX_INPUT_BYTES, 127, 128, SMALL,
     "the inputs may take 127 bytes in all", 9),
    ("input-bytes-of-a-definition-without-inputs", settings.MAX_INPUT_BYTES, 63, 64,
     _script("    fd.add_output(T0)\n", inputs="", define=STATIC), "inputs need 64 bytes", 4),
    ("result-bytes", settings.MAX_OUTPUT_BYTES, 1000, 10**6,
     _script("    fd.add_output(fd.ops.broadcast_in_dim(T0, shape=[100, 4, 4], broadcast_dims=[1, 2]))\n",
             inputs="", define=STATIC),
     "the fusion's results take 6.2 KiB (6400 bytes) up to here; the limit is 1000 bytes", 6),
]  # fmt: skip


@pytest.mark.parametrize(
    ("setting", "value", "raised", "script", "message", "line"),
    [case[1:] for case in SCRIPT_LIMITS],
    ids=[case[0] for case in SCRIPT_LIMITS],
)
def test_a_limit_refuses_a_script_before_allocating(
    setting, value, raised, script, message, line, monkeypatch
):
    monkeypatch.setenv(setting.env, str(value))
    with NoAllocation(), pytest.raises(LimitError) as caught:
        load(script, device="cpu")
    text = str(caught.value)
    assert message in text
    assert setting.env in text
    assert re.match(rf"line {line}, column \d+: ", text), text
    monkeypatch.setenv(setting.env, str(raised))
    with NoAllocation(), pytest.raises(AllocationSeen):
        load(script, device="cpu")


def test_the_default_result_limit_refuses_a_huge_broadcast_before_anything_runs():
    huge = "fd.ops.broadcast_in_dim(T0, shape=[2**20, 2**20, 4, 4], broadcast_dims=[2, 3])"
    body = f"    fd.add_output({huge})\n"
    with NoAllocation(), pytest.raises(LimitError, match=settings.MAX_OUTPUT_BYTES.env):
        load(_script(body, inputs="", define=STATIC), device="cpu")


def _ops(fd: FusionDefinition) -> None:
    t0 = fd.define_tensor(shape=[4, 4], contiguity=True)
    fd.add_output(fd.ops.exp(fd.ops.neg(t0)))


def _cat(fd: FusionDefinition) -> None:
    t0 = fd.define_tensor(shape=[4, 4], contiguity=True)
    fd.add_output(fd.ops.cat([t0, t0], 0))


def _rank(fd: FusionDefinition) -> None:
    fd.add_output(fd.define_tensor(shape=[1] * 4, contiguity=True))


def _result_bytes(fd: FusionDefinition) -> None:
    t0 = fd.define_tensor(shape=[4], contiguity=True)
    fd.add_output(fd.ops.broadcast_in_dim(t0, shape=[1000, 4], broadcast_dims=[1]))


# (id, setting, value, definition, message)
API_LIMITS = [
    ("ops", settings.MAX_OPS, 3, _ops, "records more than 3 calls; raise HFUSE_MAX_OPS"),
    ("inputs-of-one-op", settings.MAX_OP_INPUTS, 1, _cat,
     "cat takes 2 inputs; the limit is 1 (set HFUSE_MAX_OP_INPUTS"),
    ("depth", settings.MAX_DEPTH, 1, _ops,
     "exp producing T2 ends a chain of 2 ops; the limit is 1 (set HFUSE_MAX_DEPTH"),
    ("rank", settings.MAX_RANK, 3, _rank, "rank 4 exceeds the highest rank 3; raise HFUSE_MAX_RANK"),
    ("result-bytes", settings.MAX_OUTPUT_BYTES, 1000, _result_bytes,
     "the limit is 1000 bytes (set HFUSE_MAX_OUTPUT_BYTES"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("setting", "value", "define", "message"), [c[1:] for c in API_LIMITS], ids=[c[0] for c in API_LIMITS]
)
def test_a_limit_refuses_a_definition_made_with_the_api(setting, value, define, message, monkeypatch):
    monkeypatch.setenv(setting.env, str(value))
    with NoAllocation(), pytest.raises(LimitError, match=re.escape(message)):
        with FusionDefinition() as fd:
            define(fd)
        fd.fusion()


def _wide_cat() -> Fusion:
    b = FusionBuilder()
    x = b.define_tensor([4], DataType.Float)
    (out,) = b.add(Op.CAT, [x] * 5, {"dim": 0})
    b.add_output(out)
    return b.build()


def _chain() -> Fusion:
    b = FusionBuilder()
    (value,) = [b.define_tensor([4], DataType.Float)]
    for _ in range(5):
        (value,) = b.add(Op.NEG, [value])
    b.add_output(value)
    return b.build()


# (id, setting, refusing value, fusion, message): fusions made under the default limits, compiled under lower
COMPILE_LIMITS = [
    ("ops", settings.MAX_OPS, 4, _chain, "the fusion has 5 ops; the limit is 4 (set HFUSE_MAX_OPS)"),
    ("inputs-of-one-op", settings.MAX_OP_INPUTS, 4, _wide_cat, "cat takes 5 inputs; the limit is 4"),
    ("depth", settings.MAX_DEPTH, 4, _chain, "neg producing T5 ends a chain of 5 ops; the limit is 4"),
]


@pytest.mark.parametrize(
    ("setting", "value", "build", "message"),
    [c[1:] for c in COMPILE_LIMITS],
    ids=[c[0] for c in COMPILE_LIMITS],
)
def test_compile_checks_the_structure_before_any_stage(setting, value, build, message, monkeypatch):
    fusion = build()
    monkeypatch.setenv(setting.env, str(value))
    monkeypatch.setattr(pipeline, "run_passes", _no_stage)
    monkeypatch.setattr(pipeline, "segment", _no_stage)
    with pytest.raises(LimitError, match=re.escape(message)) as caught:
        hfuse.compile(fusion)
    assert setting.env in str(caught.value)


def _no_stage(*args, **kwargs):
    raise AssertionError("a compile stage ran before the structure was checked")


def test_the_guard_sees_an_allocation():
    with NoAllocation(), pytest.raises(AllocationSeen, match="randn was called with device=cpu"):
        torch.randn(3)
    with NoAllocation():
        assert torch.randn(3, device="meta").shape == (3,)
