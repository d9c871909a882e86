"""hfuse.load reads scripts in every style seen in the wild; each loaded fusion agrees with torch."""

import re
import textwrap

import pytest
import torch

from hfuse import DataType, DefinitionError, ParseError, Script, UnsupportedError, load
from hfuse.reference import evaluate

SEED = """\
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(symbolic_sizes=[-1, -1, -1], contiguous=[True, True, True], dtype=DataType.Float)
    T1 = fd.ops.slice(T0, [0, 0, 0], [16, 128, 1024], [1, 1, 1])
    T2 = fd.ops.slice(T0, [0, 0, 1024], [16, 128, 2048], [1, 1, 1])
    T3 = fd.ops.slice(T0, [0, 0, 2048], [16, 128, 3072], [1, 1, 1])
    T4 = fd.ops.reshape(T1, [16, 128, 1024], [16, 128, 16, 64])
    T5 = fd.ops.permute(T4, [0, 2, 1, 3])
    T6 = fd.ops.reshape(T2, [16, 128, 1024], [16, 128, 16, 64])
    T7 = fd.ops.permute(T6, [0, 2, 1, 3])
    T8 = fd.ops.reshape(T3, [16, 128, 1024], [16, 128, 16, 64])
    T9 = fd.ops.permute(T8, [0, 2, 1, 3])
    fd.add_output(T5)
    fd.add_output(T7)
    fd.add_output(T9)

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

inputs = [torch.randn(16, 128, 3072, device='cuda')]
fd.execute(inputs)
"""


def seed_expected(x):
    return [x[..., i * 1024 : (i + 1) * 1024].reshape(16, 128, 16, 64).permute(0, 2, 1, 3) for i in range(3)]


THUNDER = """\
# CUDA devices:
#  0: NVIDIA H200
# torch version: 2.5.0
# nvfuser version: 0.2.10
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id12(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, None], dtype=DataType.Float, is_cpu=False,
                          stride_order=[0, 1])
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Half, is_cpu=False)
    S2 = fd.define_scalar(None, dtype=DataType.Double)
    T3 = fd.ops.cast(T1, dtype=DataType.Float)
    T4 = fd.ops.mul(T0, T3)
    T5 = fd.ops.clamp(T4, S2, float("inf"))
    T6 = fd.ops.sum(T5, dims=[1], keepdim=False, dtype=DataType.Float)
    fd.add_output(T5)
    fd.add_output(T6)

with FusionDefinition() as fd:
    nvfuser_fusion_id12(fd)

inputs = [
    torch.randn(12, dtype=torch.float32, device='cuda:0').as_strided((3, 4), (1, 3)),
    torch.testing.make_tensor((3, 4), dtype=torch.float16, device='cuda:0'),
    -0.25,
]
fd.execute(inputs)
"""


def thunder_expected(a, b, lo):
    t5 = (a * b.float()).clamp(min=lo)
    return [t5, t5.sum(1)]


INLINE_AFTER_INPUTS = '''\
"""Operators on handles, from_pytorch of an inputs list written after the definition."""
import torch
from nvfuser import FusionDefinition, DataType

with FusionDefinition() as fd:
    T0 = fd.from_pytorch(inputs[0])
    T1 = fd.from_pytorch(inputs[1])
    T2 = T0 + T1 * 2.0
    T3 = -T2 / (T1 - 0.5)
    T4 = abs(T3) ** 2 - 10 // 3
    fd.add_output(T4)

inputs = [torch.rand(2, 3, device="cuda"), torch.rand(2, 3, device="cuda")]
outputs = fd.execute(inputs)
print(outputs)
'''


def inline_expected(a, b):
    return [(-(a + b * 2.0) / (b - 0.5)).abs() ** 2 - 3]


DIRECT = """\
import torch
from nvfuser_direct import FusionDefinition, DataType

def nvfuser_fusion(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[4, 5], contiguity=[True, True], dtype=DataType.BFloat16)
    T1 = fd.ops.cast(T0, dtype=DataType.Float)
    T2 = fd.ops.exp(T1)
    T3, T4 = fd.ops.var_mean(T2, dims=[1], correction=0, keepdim=False)
    fd.add_output(T3)
    fd.add_output(T4)

with FusionDefinition() as fd:
    nvfuser_fusion(fd)

inputs = [torch.randn(4, 5, dtype=torch.bfloat16, device="cuda")]
"""


def direct_expected(x):
    var, mean = torch.var_mean(x.float().exp(), dim=1, correction=0)
    return [var, mean]


SUBCLASS = """\
import torch
from nvfuser import FusionDefinition, DataType


class MyFusion(FusionDefinition):
    \"\"\"The legacy subclass style.\"\"\"

    def definition(self):
        T0 = self.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float)
        T1 = self.ops.relu(T0)
        T2 = self.ops.broadcast_in_dim(self.ops.sum(T1, [0]), [3, 2], [1])
        self.add_output(T2)

    def schedule(self):
        pass


fd = MyFusion()
inputs = [torch.randn(3, 2, device="cuda")]
fd.execute(inputs)
"""

OLD_SPELLINGS = """\
import torch
from torch._C._nvfuser import Fusion, FusionDefinition, DataType

fs = Fusion()
with FusionDefinition(fs) as fd:
    t0 = fd.define_tensor(symbolic_sizes=[-1, -1], contiguous=[True, True], dtype=DataType.Float)
    c0 = fd.define_constant(3.0)
    t1 = fd.ops.sum(t0, axes=[1], keepdim=True)
    t2 = fd.ops.broadcast_in_dim(t1, output_shape=[2, 3], broadcast_dims=[0, 1])
    t3 = fd.ops.full(size=[2, 3], arg=c0, dtype=DataType.Float)
    t4 = fd.ops.add(t2, t3)
    t5 = fd.ops.squeeze(t1, [2, 1], [1])
    fd.add_output(t4)
    fd.add_output(t5)

inputs = [torch.randn(2, 3, device="cuda")]
out = fs.execute(inputs)[0]
"""

API_2022 = """\
import torch
from nvfuser._C import FusionManager, FusionDefinition, DataType

fm = FusionManager()
with FusionDefinition(fm) as fd:
    t0 = fd.define_tensor(2, DataType.Float)
    t1 = fd.define_tensor(1, [True])
    s0 = fd.define_scalar()
    fd.add_input(t0)
    fd.add_input(t1)
    fd.add_input(s0)
    t2 = fd.Ops.add(t0, fd.ops.broadcast(t1, [True, False]))
    t3 = getattr(fd.ops, "mul")(t2, s0)
    fd.add_output(t3.pad([1, 0]))

inputs = [torch.nn.Parameter(torch.randn(2, 3, device="cuda")), torch.Tensor([1, 2, 3]).cuda(), 0.5]
outputs = fm.execute(inputs)
"""

SCALAR_INPUTS = """\
from hfuse import FusionDefinition, DataType

with FusionDefinition() as fd:
    T0 = fd.define_tensor(shape=[-1], contiguity=True, dtype=DataType.Int32)
    S1 = fd.define_scalar(dtype=DataType.Int)
    S2 = fd.define_scalar(2 ** 3 - 1, dtype=DataType.Int)
    T3 = fd.ops.mul(T0, S1)
    T4 = fd.ops.add(T3, S2)
    T5 = fd.ops.where(fd.ops.gt(T4, 10), T4, -1)
    fd.add_output(T5)

inputs = [torch.randint(0, 10, (6,), dtype=torch.int32, device="cuda"), 3]
"""

STRIDED_INPUTS = """\
import torch as th
import nvfuser as nvf

with nvf.FusionDefinition() as fd:
    T0 = fd.from_pytorch(inputs[0])
    T1 = fd.from_pytorch(inputs[1])
    T2 = fd.ops.add(T0, T1)
    fd.add_output(T2)

shape = [3, 4]
inputs = [
    th.ones(shape, dtype=th.float64, device="cuda").triu(1),
    th.arange(12, device="cuda").to(th.float64).cuda().as_strided([3, 4], [1, 3]),
]
"""

STATIC_NO_INPUTS = """\
with FusionDefinition() as fd:
    T0 = fd.define_tensor(shape=[2, 3], contiguity=[True, True], dtype=DataType.Float)
    T1 = fd.ops.sin(T0)
    fd.add_output(T1)
"""

KEYWORD_EXECUTE = """\
with FusionDefinition() as fd:
    T0 = fd.from_pytorch(args[0])
    T1 = fd.ops.sum(T0, dims=[T0.ndim - 1])
    fd.add_output(T1)

args = [torch.randn(2, 5, device="cuda:0")]
out = fd.execute(inputs=args, device="cuda")
"""

LONE_FUNCTION = """\
def nvfuser_fusion(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[3], contiguity=[True], dtype=DataType.Double)
    fd.add_output(fd.ops.tanh(T0))
"""

RUN_HELPER = """\
def exec_nvfuser(fusion_func, inputs):
    with FusionDefinition() as fd:
        fusion_func(fd)
    return fd.execute(inputs), fd

def fusion_func(fd):
    fd.add_output(fd.ops.cumsum(fd.from_pytorch(inputs[0]), 1))

inputs = [torch.randn(3, 5, device="cuda")]
nvf_out, *rest = exec_nvfuser(fusion_func, inputs)
"""

# a test pasted whole: its eager reference and checks after the run use torch beyond the inputs' constructors
TEST_WITH_ITS_CHECKS = """\
import torch
import torch.nn.functional as F
from nvfuser import FusionDefinition, DataType


def test_gelu_of_a_sum():
    inputs = [torch.randn(4, 8, device="cuda"), torch.randn(8, device="cuda")]

    def fusion_func(fd: FusionDefinition):
        t0 = fd.from_pytorch(inputs[0])
        t1 = fd.ops.broadcast_in_dim(fd.from_pytorch(inputs[1]), [4, 8], [1])
        fd.add_output(fd.ops.cumsum(fd.ops.add(t0, t1), 1))

    with FusionDefinition() as fd:
        fusion_func(fd)
    nvf_out = fd.execute(inputs)
    eager_out = torch.cumsum(inputs[0] + inputs[1], 1)
    also = F.gelu(inputs[0]).softmax(-1)
    by_method = inputs[0].add(inputs[1]).cumsum(1)
    torch.testing.assert_close(nvf_out[0], eager_out)


test_gelu_of_a_sum()
"""

STYLES = [
    ("seed-nanogpt-qkv", SEED, seed_expected),
    ("thunder-make-tensor-as-strided", THUNDER, thunder_expected),
    ("inline-operators-from-pytorch", INLINE_AFTER_INPUTS, inline_expected),
    ("nvfuser-direct-var-mean", DIRECT, direct_expected),
    ("subclass-definition", SUBCLASS, lambda x: [x.relu().sum(0).expand(3, 2)]),
    (
        "torch-c-nvfuser-old-spellings",
        OLD_SPELLINGS,
        lambda x: [(x.sum(1, keepdim=True) + 3.0).expand(2, 3), x.sum(1)],
    ),
    (
        "nvfuser-c-2022-api",
        API_2022,
        lambda x, y, s: [torch.nn.functional.pad((x + y) * s, [1, 0])],
    ),
    ("scalar-inputs", SCALAR_INPUTS, lambda x, s: [torch.where(x * s + 7 > 10, x * s + 7, -1)]),
    ("strided-inputs-aliased-imports", STRIDED_INPUTS, lambda a, b: [a + b]),
    ("no-inputs-list", STATIC_NO_INPUTS, lambda x: [x.sin()]),
    ("execute-keyword-inputs-and-ndim", KEYWORD_EXECUTE, lambda x: [x.sum(1)]),
    ("function-without-with-block", LONE_FUNCTION, lambda x: [x.tanh()]),
    ("helper-that-runs-and-returns-the-results", RUN_HELPER, lambda x: [x.cumsum(1)]),
    ("test-with-its-eager-checks", TEST_WITH_ITS_CHECKS, lambda x, y: [(x + y).cumsum(1)]),
]


@pytest.mark.parametrize(("script", "expected"), [s[1:] for s in STYLES], ids=[s[0] for s in STYLES])
def test_scripts_load_and_agree_with_torch(script, expected, device):
    loaded = load(script, device=device)
    assert isinstance(loaded, Script) and loaded.text == script
    got = evaluate(loaded.fusion, loaded.inputs)
    want = expected(*loaded.inputs)
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        torch.testing.assert_close(g, w.to(g.dtype), rtol=1e-5, atol=1e-5)


TWO_DEFINITIONS = """\
import torch
from nvfuser import FusionDefinition, DataType

x = torch.randn(3, device="cuda")
with FusionDefinition() as fd:
    fd.add_output(fd.ops.exp(fd.from_pytorch(x)))
out = fd.execute([x])

x = torch.randn(2, 4, device="cuda")
with FusionDefinition() as fd:
    fd.add_output(fd.ops.neg(fd.from_pytorch(x)))
out = fd.execute([x])
"""


@pytest.mark.parametrize(("segment", "shape", "op"), [(0, (3,), torch.exp), (1, (2, 4), torch.neg)])
def test_each_definition_of_a_script_of_several_loads_with_the_inputs_of_its_own_run(segment, shape, op):
    script = load(TWO_DEFINITIONS, device="cpu", segment=segment)
    assert script.format == "fusion definition script (2 definitions)"
    assert script.segments == ("definition 1 (line 5)", "definition 2 (line 10)")
    (x,) = script.inputs
    assert x.shape == shape
    torch.testing.assert_close(evaluate(script.fusion, script.inputs)[0], op(x))


BLOCK_RUN_PER_DIM = """\
import torch
from nvfuser import FusionDefinition, DataType

def test_fn(dim):
    inputs = [torch.randn(3, 4 + dim, device="cuda")]

    def fusion_func(fd: FusionDefinition):
        t0 = fd.from_pytorch(inputs[0])
        fd.add_output(fd.ops.sum(fd.ops.exp(t0), dims=[dim]))

    with FusionDefinition() as fd:
        fusion_func(fd)
    out = fd.execute(inputs)

for dim in range(2):
    test_fn(dim)
"""


@pytest.mark.parametrize("segment", [0, 1])
def test_a_definition_block_run_again_starts_a_new_definition_each_run(segment):
    """nvFuser's tests run one block per dim or dtype; each run is a definition with its own inputs."""
    script = load(BLOCK_RUN_PER_DIM, device="cpu", segment=segment)
    assert script.format == "fusion definition script (2 definitions)"
    assert script.segments == ("definition 1 (line 11)", "definition 2 (line 11)")
    (x,) = script.inputs
    assert x.shape == (3, 4 + segment)
    torch.testing.assert_close(evaluate(script.fusion, script.inputs)[0], x.exp().sum(segment))


BLOCK_IN_A_LOOP = """\
import torch
from nvfuser import FusionDefinition, DataType

inputs = [torch.randn(2, 5, device="cuda")]
for correction in [0, 1]:
    with FusionDefinition() as fd:
        t0 = fd.from_pytorch(inputs[0])
        fd.add_output(fd.ops.var(t0, dims=[1], correction=correction))
    out = fd.execute(inputs)
    eager_out = torch.var_mean(inputs[0], 1, correction=correction)[0]  # each turn's check, after its run
    torch.testing.assert_close(out[0], eager_out)
"""


@pytest.mark.parametrize("segment", [0, 1])
def test_a_definition_block_in_a_top_level_loop_starts_a_new_definition_each_turn(segment):
    """Its body reads the `fd` of the turn before, which is no reason to pass over the block."""
    script = load(BLOCK_IN_A_LOOP, device="cpu", segment=segment)
    assert script.segments == ("definition 1 (line 6)", "definition 2 (line 6)")
    (x,) = script.inputs
    torch.testing.assert_close(evaluate(script.fusion, script.inputs)[0], x.var(1, correction=segment))


def test_a_run_past_the_last_definition_run_is_refused():
    with pytest.raises(UnsupportedError, match=r"segment=2\): the script holds 2 segments: pick 0 to 1"):
        load(BLOCK_RUN_PER_DIM, device="meta", segment=2)
    with pytest.raises(UnsupportedError, match=r"load\(segment=1\): the script holds one definition"):
        load(SEED, device="meta", segment=1)


SWEEP_WITH_AN_UNCOMPUTED_DTYPE = """\
import torch
from nvfuser import FusionDefinition, DataType
from nvfuser.pytorch_utils import torch_dtype_to_nvfuser_dtype

def fn(out_type):
    inputs = [torch.randn(4, 4, device="cuda")]
    with FusionDefinition() as fd:
        t0 = fd.from_pytorch(inputs[0])
        fd.add_output(fd.ops.cast(t0, dtype=torch_dtype_to_nvfuser_dtype(out_type)))
    fd.execute(inputs)

for out_type in [torch.float16, torch.float8_e8m0fnu]:
    if out_type == torch.float8_e8m0fnu:
        print("scales")
    fn(out_type)
"""


def test_a_sweep_may_name_a_dtype_hfuse_does_not_compute_with_and_is_refused_where_it_uses_it():
    script = load(SWEEP_WITH_AN_UNCOMPUTED_DTYPE, device="cpu")
    assert script.printed == "scales\n"
    (x,) = script.inputs
    torch.testing.assert_close(evaluate(script.fusion, script.inputs)[0], x.half())
    with pytest.raises(ParseError, match=r"line 9, .*torch.float8_e8m0fnu: hfuse does not compute with this"):
        load(SWEEP_WITH_AN_UNCOMPUTED_DTYPE, device="meta", segment=1)


def test_inputs_added_out_of_their_defined_order_are_refused_where_added():
    in_order = "fd.add_input(t0)\n    fd.add_input(t1)"
    script = API_2022.replace(in_order, "fd.add_input(t1)\n    fd.add_input(t0)")
    with pytest.raises(DefinitionError, match=r"line 9, .*adds input 0, but T1 was defined as input 1"):
        load(script, device="cpu")


def test_seed_binds_symbolic_sizes_and_runs_on_the_chosen_device():
    loaded = load(SEED, device="cpu")
    (x,) = loaded.inputs
    assert x.device.type == "cpu" and tuple(x.shape) == (16, 128, 3072)
    assert loaded.fusion.value(loaded.fusion.inputs[0]).shape == (16, 128, 3072)
    assert [loaded.fusion.value(o.name).shape for o in loaded.fusion.outputs] == [(16, 16, 128, 64)] * 3


def test_thunder_inputs_keep_their_strides_and_dtypes():
    loaded = load(THUNDER, device="cpu")
    a, b, s = loaded.inputs
    assert a.stride() == (1, 3) and b.dtype == torch.float16 and s == -0.25
    values = [loaded.fusion.value(name) for name in loaded.fusion.inputs]
    assert values[0].strides == (1, 3)
    assert [v.dtype for v in values] == [DataType.Float, DataType.Half, DataType.Double]


@pytest.mark.parametrize(
    ("script", "message", "line"),
    [
        (
            "with FusionDefinition() as fd:\n"
            "    T0 = fd.define_tensor(shape=[2, 3], contiguity=True)\n"
            "    T1 = fd.define_tensor(shape=[4, 5], contiguity=True)\n"
            "    T2 = fd.ops.add(T0, T1)\n"
            "    fd.add_output(T2)\n",
            r"line 4, column 10: add: shapes \[2, 3\], \[4, 5\] do not broadcast.*"
            r"\n        T2 = fd.ops.add\(T0, T1\)\n             \^",
            4,
        ),
        (
            "with FusionDefinition() as fd:\n"
            "    T0 = fd.define_tensor(shape=[2, 3], contiguity=True)\n"
            "    T1 = fd.ops.sum(T0, dims=[7])\n"
            "    fd.add_output(T1)\n",
            r"line 3, column 10.*\n        T1 = fd.ops.sum",
            3,
        ),
        (
            "with FusionDefinition() as fd:\n"
            "    T0 = fd.define_tensor(shape=[2, 3], contiguity=True)\n"
            "    T1 = fd.ops.permute(T0, dims=[0, 1], bogus=2)\n",
            r"line 3, column 10.*bogus",
            3,
        ),
    ],
    ids=["shapes-do-not-broadcast", "dim-out-of-range", "unknown-keyword"],
)
def test_definition_errors_carry_line_and_source(script, message, line):
    with pytest.raises(DefinitionError, match=message) as caught:
        load(script, device="cpu")
    assert caught.value.loc.line == line


# (id, script, message, line)
PARSE_ERRORS = [
    ("no-definition", "x = 1\n", "no fusion definition found", 1),
    (
        "two-definitions-in-one-function",
        "def f():\n    a = FusionDefinition()\n    b = FusionDefinition()\nf()\n",
        "a second one",
        3,
    ),
    (
        "unpack-count",
        "with FusionDefinition() as fd:\n    T0, T1 = fd.define_tensor(shape=[2], contiguity=True)\n",
        "2 names are assigned but a fusion value is not a sequence",
        2,
    ),
    (
        "fd-as-operand",
        "with FusionDefinition() as fd:\n    T0 = fd.ops.add(fd, 1)\n",
        "fd cannot be passed to fd.ops.add",
        2,
    ),
    (
        "torch-dtype-in-definition",
        "with FusionDefinition() as fd:\n    T0 = fd.define_tensor([2], dtype=torch.float32)\n",
        "write DataType.X, not torch.float32",
        2,
    ),
    (
        "unknown-op",
        "with FusionDefinition() as fd:\n    T0 = fd.ops.no_such_op(1)\n",
        "fd.ops has no attribute no_such_op",
        2,
    ),
    (
        "unknown-datatype",
        "with FusionDefinition() as fd:\n    T0 = fd.define_tensor([2], dtype=DataType.Float64)\n",
        "DataType has no attribute Float64",
        2,
    ),
    ("unknown-device", "inputs = [torch.randn(2, device='tpu')]\n", "device='tpu' is not a device", 1),
    (
        "torch-function-for-the-inputs",
        "import torch.nn.functional as F\ninputs = [F.gelu(torch.randn(4))]\n",
        "torch.nn.functional has no attribute gelu that a definition may use",
        2,
    ),
    (
        "as-strided-out-of-storage",
        "inputs = [torch.randn(2).as_strided((3, 3), (3, 1))]\n",
        "reach element 8; the tensor holds 2",
        1,
    ),
    ("unknown-keyword", "inputs = [torch.randn(2, 3, pin_memory=True)]\n", "pin_memory is not supported", 1),
    ("list-index", "x = [1, 2][5]\n", "out of range for a list of 2", 1),
    ("division-by-zero", "x = 1 / 0\n", "/ by zero", 1),
    ("function-needs-more-than-fd", "def f(fd, g):\n    pass\n", "no fusion definition found", 1),
    ("undefined-function", "with FusionDefinition() as fd:\n    f(fd)\n", "calls to f are not part", 2),
    ("ops-at-top-level", "fd.ops.add(1, 2)\n", "belong inside the definition", 1),
    (
        "dotted-call-at-top-level",
        "import torch\ntorch.set_default_dtype(torch.float64)\n",
        "calls to torch.set_default_dtype are not part",
        2,
    ),
    ("syntax-error", "x = (1\n", "not valid Python", 1),
]


@pytest.mark.parametrize(
    ("script", "message", "line"), [c[1:] for c in PARSE_ERRORS], ids=[c[0] for c in PARSE_ERRORS]
)
def test_parse_errors_say_where_and_what(script, message, line):
    with pytest.raises(ParseError, match=re.escape(message)) as caught:
        load(script, device="cpu")
    assert caught.value.loc.line == line
    assert script.splitlines()[line - 1].strip()[:10] in str(caught.value)


@pytest.mark.parametrize(
    ("device", "message"),
    [("tpu", "not a torch device"), ("xla", "hfuse runs on 'cpu' or 'cuda'")]
    + ([] if torch.cuda.is_available() else [("cuda", "no CUDA device here")]),
    ids=lambda v: str(v)[:12],
)
def test_unusable_devices_are_refused(device, message):
    with pytest.raises(UnsupportedError, match=re.escape(message)):
        load(STATIC_NO_INPUTS, device=device)


def test_default_device_is_the_gpu_when_there_is_one():
    (x,) = load(STATIC_NO_INPUTS).inputs
    assert x.device.type == ("cuda" if torch.cuda.is_available() else "cpu")


@pytest.mark.parametrize("script", [s[1] for s in STYLES], ids=[s[0] for s in STYLES])
def test_meta_device_builds_the_same_fusion_without_data(script):
    loaded = load(script, device="meta")
    assert all(t.device.type in ("meta", "cpu") for t in loaded.inputs if isinstance(t, torch.Tensor))
    assert loaded.fusion == load(script, device="cpu").fusion


@pytest.mark.parametrize(
    ("line", "error", "suggested"),
    [
        (
            "    t1 = fd.ops.exq(t0)",
            ParseError,
            "fd.ops has no attribute exq that a definition may use (did you mean eq or exp",
        ),
        (
            "    t1 = fd.ops.ad(t0, t0)",
            ParseError,
            "fd.ops has no attribute ad that a definition may use (did you mean pad or add?); "
            "fd.ops holds the ops of nvFuser's Python API: check the op's name",
        ),
        (
            "    fd.add_ouptut(t0)",
            ParseError,
            "fd has no attribute add_ouptut that a definition may use (did you mean add_output",
        ),
        ("    t1 = fd.ops.cast(t0, DataType.Flaot)", ParseError, "(did you mean Float"),
        (
            "    t1 = fd.ops.sum(t0, dims=[0], keep_dim=True)",
            DefinitionError,
            "keep_dim' (did you mean keepdim= for keep_dim=?)",
        ),
        (
            "    t1 = fd.define_tensor(shape=[2], contiguty=True)",
            DefinitionError,
            "contiguty' (did you mean contiguity= for contiguty=?)",
        ),
    ],
    ids=["op", "op-short", "fd-method", "dtype", "op-keyword", "define-keyword"],
)
def test_a_misspelt_name_is_answered_with_the_names_it_is_close_to(line, error, suggested):
    script = "from nvfuser import FusionDefinition, DataType\nwith FusionDefinition() as fd:\n"
    script += "    t0 = fd.define_tensor(shape=[2], contiguity=True)\n" + line + "\n"
    with pytest.raises(error, match=re.escape(suggested)) as caught:
        load(script, device="meta")
    assert caught.value.loc.line == 4


def test_a_value_is_named_by_the_first_variable_of_the_shallowest_call_that_held_it():
    script = load(
        textwrap.dedent("""\
        import torch
        from nvfuser import FusionDefinition, DataType

        def split(fd, x):
            out = [fd.ops.slice(x, [0, i], [4, i + 2]) for i in (0, 2, 4)]
            return out[0], out[1], out[2]

        inputs = [torch.randn(4, 6, device="cuda")]
        with FusionDefinition() as fd:
            x = fd.from_pytorch(inputs[0])
            q, k, v = split(fd, x)
            for t in (q, k, v):
                _ = fd.ops.neg(t)
            fd.add_output(q)
            fd.add_output(fd.ops.exp(k))
        """),
        device="meta",
    )
    named = {script.names.get(o.name) for o in script.fusion.outputs}
    assert script.names["T0"] == "x" and named == {"q", None}  # exp(k) was never held by a variable
    assert script.names["T2"] == "k"  # not the helper's out, nor the loop's t


BARE_DEFINITION = """\
def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, 4], contiguity=True, dtype=DataType.BFloat16, stride_order=[0, 1])
    T1 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Int)
    S2 = fd.define_scalar(None, dtype=DataType.Double)
    T3 = fd.ops.mul(fd.ops.cast(T0, DataType.Float), S2)
    fd.add_output(T3)
    fd.add_output(fd.ops.add(T1, T1))
"""


def test_a_definition_with_symbolic_extents_and_no_inputs_loads_at_example_sizes():
    """nvFuser's python_definition dumps and Thunder's fusions declare -1 extents and pass no inputs."""
    script = load(BARE_DEFINITION, device="cpu")
    assert "each is taken as 8" in script.note
    x, ids, scale = script.inputs
    assert x.dtype == torch.bfloat16 and x.shape == (8, 4) and x.stride() == (1, 8)  # stride order kept
    assert ids.dtype == torch.int64 and ids.shape == (8,) and scale == 0.5
    scaled, doubled = script.fd.execute(script.inputs)
    torch.testing.assert_close(scaled, x.float() * scale)
    assert torch.equal(doubled, ids + ids)
    assert load(SEED, device="meta").note == ""  # a script with inputs has its own sizes


FIXED_RESHAPE_OF_ANY_SIZE = """\
def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float)
    fd.add_output(fd.ops.reshape(T0, new_shape=[3, 5]))
"""


def test_example_sizes_that_do_not_fit_the_definition_ask_for_inputs():
    with pytest.raises(DefinitionError, match="for example") as caught:
        load(FIXED_RESHAPE_OF_ANY_SIZE, device="cpu")
    snippet = caught.value.reason.split("is declared):\n", 1)[1]
    assert snippet.startswith("inputs = [") and snippet.rstrip().endswith("fd.execute(inputs)")
    header = "import torch\nfrom nvfuser import FusionDefinition, DataType\n"
    block = "\nwith FusionDefinition() as fd:\n    nvfuser_fusion_id0(fd)\n\n"
    fitted = snippet.replace("torch.randn(8,", "torch.randn(15,")
    (x,) = load(header + FIXED_RESHAPE_OF_ANY_SIZE + block + fitted, device="cpu").inputs
    assert x.shape == (15,)
