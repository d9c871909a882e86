"""nvFuser's helpers of plain values, torch.cuda's queries, torch.range and str(), as scripts use them.

What a script computes with them is read from what it prints; contiguity and stride orders are checked
against the cases of nvFuser's own tests of compute_contiguity and compute_tensor_descriptor.
"""

import re
import warnings

import pytest
import torch

from hfuse import LimitError, ParseError, load
from hfuse.loader.nvfuser_helpers import compute_contiguity, compute_tensor_descriptor

HEADER = "import torch\nfrom nvfuser import FusionDefinition, DataType\n"
DEFINITION = """\
with FusionDefinition() as fd:
    t0 = fd.define_tensor(shape=[-1], contiguity=True, dtype=DataType.Float)
    fd.add_output(fd.ops.relu(t0))
"""


def _printed(body: str, header: str = HEADER) -> str:
    return load(header + body + DEFINITION, device="meta").printed


# (sizes, strides, contiguity) from nvFuser's test_compute_contiguity
CONTIGUITY = [
    ([2, 1, 3, 1, 4, 5, 6], [80, 30, 30, 456456465465, 0, 6, 1], [False, None, True, None, None, True, True]),
    (
        [2, 1, 3, 1, 4, 5, 6],
        [800, 300, 300, 456456465465, 0, 60, 10],
        [False, None, True, None, None, True, False],
    ),
    ([], [], []),
]
# (sizes, strides, contiguity, stride order) from nvFuser's test_compute_tensor_descriptor
DESCRIPTORS = [
    ([2, 1, 3, 1, 4, 3], [12, 4, 4, 4, 1, 0], [True, None, True, None, True, None], [5, 4, 3, 2, 1, 0]),
    ([2, 3, 1, 5, 4], [28, 4, 14, 0, 1], [False, None, True, None, True], [4, 2, 3, 1, 0]),
    (
        [2, 2, 1, 1, 2, 2, 2],
        [8, 4, 3, 9, 2, 0, 1],
        [None, True, True, None, True, None, True],
        [5, 4, 3, 6, 2, 1, 0],
    ),
    ([2, 2, 1, 2, 4, 2], [2, 32, 1, 8, 0, 4], [False, True, True, False, None, None], [2, 5, 0, 4, 1, 3]),
    ([2, 2, 2, 2], [8, 4, 2, 1], [True, True, True, True], [3, 2, 1, 0]),
    ([2, 1, 3, 1, 4], [24, 4, 8, 4, 2], [True, True, None, None, False], [4, 2, 3, 1, 0]),
    ([2, 2, 2, 2], [8, 4, 0, 2], [True, True, None, False], [3, 2, 1, 0]),
]


@pytest.mark.parametrize(("sizes", "strides", "contiguity"), CONTIGUITY)
def test_compute_contiguity_marks_broadcasts_none_and_checks_each_stride(sizes, strides, contiguity):
    assert compute_contiguity(sizes, strides) == contiguity


@pytest.mark.parametrize(("sizes", "strides", "contiguity", "stride_order"), DESCRIPTORS)
def test_compute_tensor_descriptor_orders_dims_by_stride(sizes, strides, contiguity, stride_order):
    assert compute_tensor_descriptor(sizes, strides) == (contiguity, stride_order)


def test_a_script_imports_the_helpers_and_defines_a_tensor_with_their_answer():
    script = (
        "from nvfuser import compute_contiguity, compute_tensor_descriptor\n"
        "contiguity, order = compute_tensor_descriptor([4, 6], [1, 4])\n"
        "print(compute_contiguity([2, 1, 3], [3, 3, 1]), contiguity, order)\n"
        "with FusionDefinition() as fd:\n"
        "    t0 = fd.define_tensor(shape=[4, 6], contiguity=contiguity, stride_order=order, "
        "dtype=DataType.Float)\n"
        "    fd.add_output(fd.ops.relu(t0))\n"
    )
    loaded = load(HEADER + script, device="meta")
    assert loaded.printed == "[True, None, True] [True, True] [0, 1]\n"
    assert loaded.fusion.values[0].strides == (1, 4)


def test_a_pasted_test_finds_the_helpers_its_suite_imports():
    script = """\
def test_descriptor(self):
    contiguity, order = compute_tensor_descriptor([4, 6], [6, 1])
    inputs = [torch.randn(4, 6, device="cuda")]

    def fusion_func(fd: FusionDefinition):
        t0 = fd.define_tensor(shape=[4, 6], contiguity=contiguity, stride_order=order, dtype=DataType.Float)
        fd.add_output(fd.ops.relu(t0))

    nvf_out, _ = self.exec_nvfuser(fusion_func, inputs)
    self.assertTrue(version() > "0.0.0")
"""
    assert load(script, device="meta").fusion.values[0].strides == (6, 1)


def test_version_compares_with_strings_and_versions_as_nvfuser_does():
    printed = _printed(
        "from nvfuser import version\n"
        "from nvfuser.nvfuser_version import Version\n"
        'print(version() > "0.0.0", version() > Version("0.0.0"), "0.2" < version(), '
        'Version("1.0") == "1.0.0", version() >= "99.0", Version("0.2.3+abc") < "0.2.10")\n'
    )
    assert printed == "True True True True False True\n"


def test_torch_cuda_answers_as_one_h200_and_passes_over_set_up():
    printed = _printed(
        "torch.cuda.manual_seed(0)\n"
        "torch.cuda.set_rng_state(torch.cuda.get_rng_state())\n"
        "props = torch.cuda.get_device_properties(torch.cuda.current_device())\n"
        "print(torch.cuda.is_available(), torch.cuda.device_count(), props.major, props.name, "
        "torch.cuda.get_device_capability())\n"
        "if props.major >= 9:\n"
        "    torch.cuda.synchronize()\n"
        "    torch.cuda.empty_cache()\n"
    )
    assert printed == "True 1 9 NVIDIA H200 (9, 0)\n"


def test_torch_range_includes_its_end_and_makes_float32():
    script = HEADER + (
        "inputs = [torch.range(0, 119).reshape(2, 3, 4, 5), torch.range(1, 2, 0.25), "
        "torch.range(3, 1, -1, dtype=torch.int64)]\n"
        "with FusionDefinition() as fd:\n"
        "    for tensor in inputs:\n"
        "        fd.add_output(fd.ops.abs(fd.from_pytorch(tensor)))\n"
        "fd.execute(inputs)\n"
    )
    made = load(script, device="cpu").inputs
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # torch.range is deprecated
        expected = [
            torch.range(0, 119).reshape(2, 3, 4, 5),
            torch.range(1, 2, 0.25),
            torch.range(3, 1, -1, dtype=torch.int64),
        ]
    for tensor, wanted in zip(made, expected, strict=True):
        assert tensor.dtype == wanted.dtype
        torch.testing.assert_close(tensor, wanted)


def test_str_gives_the_text_print_writes_and_strings_join():
    printed = _printed(
        'label = "step:" + str(3) + "/" + str(2.5) + " " + str(DataType.Half) + str([1, "a"]) + "-" * 3\n'
        "print(label, isinstance(label, str), str())\n"
    )
    assert printed == "step:3/2.5 DataType.Half[1, 'a']--- True \n"


# (id, body, error, message, line): misuses of the helpers, located at their line
REFUSED = [
    (
        "contiguity-lengths",
        "from nvfuser import compute_contiguity\ncompute_contiguity([2, 3], [1])\n",
        ParseError,
        "compute_contiguity: sizes and strides must have the same number of dimensions",
        4,
    ),
    (
        "descriptor-negative-stride",
        "from nvfuser import compute_tensor_descriptor\ncompute_tensor_descriptor([2, 3], [-3, 1])\n",
        ParseError,
        "strides[0] is -3; negative strides are not supported",
        4,
    ),
    (
        "not-a-version",
        'from nvfuser import version\nassert version() > "latest"\n',
        ParseError,
        "is not a version",
        4,
    ),
    ("second-gpu", "torch.cuda.get_device_properties(1)\n", ParseError, "there is one GPU, device 0", 3),
    (
        "range-wrong-sign",
        "torch.range(0, 5, -1)\n",
        ParseError,
        "the step's sign must lead from start to end",
        3,
    ),
    (
        "range-too-long",
        "torch.range(0, 1e30, 1)\n",
        LimitError,
        "would hold more numbers than fit in 64 bits",
        3,
    ),
    ("long-str", 'str(["x" * 9000, "y" * 9000])\n', LimitError, "is longer than 10000 characters", 3),
]


@pytest.mark.parametrize(
    ("body", "error", "message", "line"), [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED]
)
def test_a_misused_helper_is_a_located_error(body, error, message, line):
    with pytest.raises(error, match=re.escape(message)) as caught:
        _printed(body)
    assert caught.value.loc.line == line
