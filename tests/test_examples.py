"""The example gallery: every small example computes what torch computes; the nanoGPT and large
examples build their fusions at their real sizes without allocating their inputs. The extended suite
likewise: its interpreter-size scripts match torch in the reference and through generated kernels,
its decode and large scripts build and compile at their real sizes on the meta device."""

from __future__ import annotations

import re

import pytest
import torch

import hfuse.examples as gallery
from hfuse.baselines import BASELINES, EXTENDED_BASELINES, baseline
from hfuse.errors import HfuseError
from hfuse.examples import get_example, list_examples

SUITE = (
    "qkv_split", "layernorm", "layernorm_bf16", "rmsnorm", "softmax", "attention_softmax", "transpose_cast",
    "bias_gelu", "swiglu", "cross_entropy", "rope", "cat_slices", "qk_norm", "column_normalize",
)  # fmt: skip

# The fusion inputs of each suite entry at the sizes of BENCHMARKS.md (large) and of nanoGPT
# (batch 16, seq 128, hidden 1024, 16 heads).
SIZED_INPUTS = {
    "large": {
        "qkv_split": [(16, 1024, 12288)],
        "layernorm": [(16384, 1024), (1024,), (1024,)],
        "layernorm_bf16": [(16384, 4096), (4096,), (4096,)],
        "rmsnorm": [(16384, 4096), (4096,)],
        "softmax": [(16384, 1024)],
        "attention_softmax": [(16, 16, 1024, 1024)],
        "transpose_cast": [(8192, 8192)],
        "bias_gelu": [(16384, 4096), (4096,)],
        "swiglu": [(8192, 11008), (8192, 11008)],
        "cross_entropy": [(4096, 32000), (4096,)],
        "rope": [(8, 32, 2048, 128), (8, 32, 2048, 128), (2048, 128), (2048, 128)],
        "cat_slices": [(8192, 4096)],
        "qk_norm": [(4096, 32, 128), (4096, 8, 128), (128,), (128,)],
        "column_normalize": [(640, 256)],
    },
    "nanogpt": {
        "qkv_split": [(16, 128, 3072)],
        "layernorm": [(2048, 1024), (1024,), (1024,)],
        "layernorm_bf16": [(2048, 1024), (1024,), (1024,)],
        "rmsnorm": [(2048, 1024), (1024,)],
        "softmax": [(2048, 1024)],
        "attention_softmax": [(16, 16, 128, 128)],
        "transpose_cast": [(2048, 1024)],
        "bias_gelu": [(2048, 4096), (4096,)],
        "swiglu": [(2048, 4096), (2048, 4096)],
        "cross_entropy": [(2048, 50304), (2048,)],
        "rope": [(16, 16, 128, 64), (16, 16, 128, 64), (128, 64), (128, 64)],
        "cat_slices": [(2048, 1024)],
        "qk_norm": [(2048, 16, 64), (2048, 16, 64), (64,), (64,)],
        "column_normalize": [(2048, 1024)],
    },
}
STRIDED_INPUTS = {"large": {"column_normalize": (1, 640)}, "nanogpt": {"column_normalize": (1, 2048)}}

SMALL = list_examples("small")


@pytest.mark.parametrize("subset", ["small", "nanogpt", "large"])
def test_every_suite_entry_is_in_every_subset(subset):
    names = {e.name for e in list_examples(subset)}
    assert set(SUITE) <= names, f"missing from {subset}: {sorted(set(SUITE) - names)}"


def test_the_small_gallery_has_a_plain_torch_function_for_every_example():
    assert len(SMALL) >= 24
    assert {e.name for e in SMALL} == set(BASELINES)


@pytest.mark.parametrize("subset", ["small", "nanogpt", "large"])
def test_every_script_starts_with_a_title_and_runs_its_inputs(subset):
    for example in list_examples(subset):
        assert re.fullmatch(r"# [^:]+: .+", example.text.splitlines()[0]), example.path
        assert example.title and example.description
        assert "inputs = [" in example.text and "fd.execute(inputs)" in example.text, example.path


def test_the_seed_is_the_issue_repro():
    seed = get_example("qkv_split", "nanogpt").text
    assert "torch.randn(16, 128, 3072, device='cuda')" in seed
    assert "fd.ops.reshape(T0_slice1, [16, 128, 1024], [16, 128, 16, 64])" in seed
    assert seed.count("fd.ops.permute(") == 3


@pytest.mark.parametrize("example", SMALL, ids=[e.name for e in SMALL])
def test_small_example_matches_torch(example):
    from hfuse import load, reference
    from hfuse.tolerance import assert_close, reduction_size

    script = load(example.text, device="cpu")
    expected = baseline(example.name, "small")(*script.inputs)
    actual = reference.evaluate(script.fusion, script.inputs)
    assert len(actual) == len(expected)
    for got, want, out in zip(actual, expected, script.fusion.outputs, strict=True):
        assert tuple(got.shape) == tuple(want.shape)
        assert_close(got, want, reduction_size=reduction_size(script.fusion, out.name))


SIZED = [(subset, name) for subset in ("nanogpt", "large") for name in SUITE]


@pytest.mark.parametrize(("subset", "name"), SIZED, ids=[f"{s}-{n}" for s, n in SIZED])
def test_sized_example_builds_at_its_real_shapes_without_allocating(subset, name):
    from hfuse import load

    script = load(get_example(name, subset).text, device="meta")
    assert all(t.device.type == "meta" for t in script.inputs if hasattr(t, "device"))
    tensors = [script.fusion.value(n) for n in script.fusion.inputs if script.fusion.value(n).is_tensor]
    assert [t.shape for t in tensors] == SIZED_INPUTS[subset][name]
    if name in STRIDED_INPUTS[subset]:
        assert tensors[0].strides == STRIDED_INPUTS[subset][name]


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        (lambda: get_example("no_such_example"), r"no example named 'no_such_example' in the small examples"),
        (
            lambda: list_examples("huge"),
            r"unknown example subset .huge.: choose one of small, nanogpt",
        ),
    ],
    ids=["unknown-name", "unknown-subset"],
)
def test_lookup_errors(call, expected):
    with pytest.raises(HfuseError, match=expected):
        call()


def test_missing_folder_names_its_path(monkeypatch, tmp_path):
    missing = tmp_path / "gone"
    monkeypatch.setitem(gallery.SUBSETS, "small", missing)
    with pytest.raises(HfuseError, match=re.escape(str(missing))):
        list_examples()


def test_a_script_without_a_title_is_refused(monkeypatch, tmp_path):
    (tmp_path / "untitled.py").write_text("import torch\n")
    monkeypatch.setitem(gallery.SUBSETS, "small", tmp_path)
    with pytest.raises(HfuseError, match=r"untitled\.py, line 1: expected '# <Title>: <description>'"):
        list_examples()


# ----------------------------------------------------------------------------------- the extended suite

EXTENDED_SUBSETS = ("extended", "extended-decode", "extended-large")
EXTENDED = list_examples("extended")


# The tensor inputs of each extended case at its decode and large sizes; the models the shapes come
# from are named in each script's first line.
EXTENDED_SIZED_INPUTS = {
    "extended-decode": {
        "adam_step": [(2359296,)] * 4,
        "add_layernorm": [(2048, 1600), (2048, 1600), (1600,), (1600,)],
        "add_rmsnorm": [(2048, 4096), (2048, 4096), (4096,)],
        "bias_grad_bf16": [(2048, 4096)],
        "bias_grad_fp32": [(2048, 3072)],
        "column_center": [(2048, 4096)],
        "cross_entropy_128k": [(4, 128256), (4,)],
        "cross_entropy_32k": [(16, 32000), (16,)],
        "expanded_bias": [(2048, 8192), (2048, 8192)],
        "gelu_backward": [(2048, 6400), (2048, 6400)],
        "l2_norm_bf16": [(768, 3072)],
        "layernorm_backward": [(2048, 4096), (2048, 4096), (2048,), (2048,), (4096,)],
        "log_softmax_vocab": [(1, 128256)],
        "mean_all_fp32": [(2048, 4096)],
        "middle_sum": [(4, 512, 4096)],
        "odd_bias_grad": [(512, 30522)],
        "odd_pointwise": [(1021, 5003), (1021, 5003)],
        "odd_row_logsumexp": [(127, 50257)],
        "permuted_add": [(1, 32, 2048, 128), (1, 32, 2048, 128)],
        "rmsnorm_backward": [(2048, 4096), (2048, 4096), (4096,)],
        "silu_backward": [(2048, 14336), (2048, 14336)],
        "softmax_vocab": [(8, 50257)],
        "transposed_add": [(3072, 768), (3072, 768)],
    },
    "extended-large": {
        "adam_step": [(67108864,)] * 4,
        "add_layernorm": [(16384, 1600), (16384, 1600), (1600,), (1600,)],
        "add_rmsnorm": [(16384, 4096), (16384, 4096), (4096,)],
        "bias_grad_bf16": [(16384, 4096)],
        "bias_grad_fp32": [(16384, 3072)],
        "column_center": [(16384, 4096)],
        "cross_entropy_128k": [(4096, 128256), (4096,)],
        "cross_entropy_32k": [(4096, 32000), (4096,)],
        "expanded_bias": [(16384, 8192), (16384, 8192)],
        "gelu_backward": [(16384, 6400), (16384, 6400)],
        "l2_norm_bf16": [(11008, 4096)],
        "layernorm_backward": [(16384, 4096), (16384, 4096), (16384,), (16384,), (4096,)],
        "log_softmax_vocab": [(2048, 128256)],
        "mean_all_fp32": [(16384, 4096)],
        "middle_sum": [(8, 2048, 4096)],
        "odd_bias_grad": [(8192, 30522)],
        "odd_pointwise": [(4093, 5003), (4093, 5003)],
        "odd_row_logsumexp": [(4093, 50257)],
        "permuted_add": [(8, 32, 2048, 128), (8, 32, 2048, 128)],
        "rmsnorm_backward": [(16384, 4096), (16384, 4096), (4096,)],
        "silu_backward": [(8192, 14336), (8192, 14336)],
        "softmax_vocab": [(4096, 50257)],
        "transposed_add": [(11008, 4096), (11008, 4096)],
    },
}
# The inputs that are not row-major, (case, input position) -> strides: the same layouts at every size.
EXTENDED_STRIDES = {
    "extended": {
        ("transposed_add", 1): (1, 40),
        ("expanded_bias", 1): (0, 1),
        ("permuted_add", 0): (512, 16, 64, 1),
    },
    "extended-decode": {
        ("transposed_add", 1): (1, 3072),
        ("expanded_bias", 1): (0, 1),
        ("permuted_add", 0): (8388608, 128, 4096, 1),
    },
    "extended-large": {
        ("transposed_add", 1): (1, 11008),
        ("expanded_bias", 1): (0, 1),
        ("permuted_add", 0): (8388608, 128, 4096, 1),
    },
}


def _copies(inputs: list) -> list:
    return [x.clone() if isinstance(x, torch.Tensor) else x for x in inputs]


def _every_output(script, returned: list[torch.Tensor]) -> list[torch.Tensor]:
    """The fusion's outputs in order after fd.execute: one added with alias_input is read from its input."""
    positions = {name: i for i, name in enumerate(script.fusion.inputs)}
    rest = iter(returned)
    return [
        script.inputs[positions[out.alias_input]] if out.alias_input is not None else next(rest)
        for out in script.fusion.outputs
    ]


def _assert_matches(script, actual: list[torch.Tensor], expected: list[torch.Tensor]) -> None:
    from hfuse.tolerance import assert_close, reduction_size

    assert len(actual) == len(expected)
    for got, want, out in zip(actual, expected, script.fusion.outputs, strict=True):
        assert tuple(got.shape) == tuple(want.shape), out.name
        assert_close(got, want, reduction_size=reduction_size(script.fusion, out.name))


@pytest.mark.parametrize("subset", EXTENDED_SUBSETS)
def test_every_extended_subset_holds_every_case_with_a_title_and_its_inputs(subset):
    examples = list_examples(subset)
    assert {e.name for e in examples} == set(EXTENDED_BASELINES), subset
    for example in examples:
        assert re.fullmatch(r"# [^:]+: .+", example.text.splitlines()[0]), example.path
        assert example.title and example.description
        assert "inputs = [" in example.text and "fd.execute(inputs)" in example.text, example.path


@pytest.mark.parametrize("example", EXTENDED, ids=[e.name for e in EXTENDED])
def test_extended_example_matches_torch_in_the_reference(example):
    from hfuse import load, reference

    script = load(example.text, device="cpu")
    expected = baseline(example.name, "extended")(*_copies(script.inputs))
    _assert_matches(script, reference.evaluate(script.fusion, script.inputs), expected)


@pytest.mark.usefixtures("fresh_cache")
@pytest.mark.parametrize("example", EXTENDED, ids=[e.name for e in EXTENDED])
def test_extended_example_matches_torch_through_generated_kernels(example):
    from hfuse import load

    script = load(example.text, device="cpu")
    expected = baseline(example.name, "extended")(*_copies(script.inputs))
    returned = script.fd.execute(script.inputs)
    assert all(group.kind.launches_kernel for group in script.fd.segmentation().groups)
    _assert_matches(script, _every_output(script, returned), expected)


EXTENDED_SIZED = [(subset, name) for subset in EXTENDED_SIZED_INPUTS for name in sorted(EXTENDED_BASELINES)]


@pytest.mark.parametrize(("subset", "name"), EXTENDED_SIZED, ids=[f"{s}-{n}" for s, n in EXTENDED_SIZED])
def test_extended_sized_example_builds_and_compiles_at_its_real_shapes_without_allocating(subset, name):
    import hfuse

    script = hfuse.load(get_example(name, subset).text, device="meta")
    assert all(t.device.type == "meta" for t in script.inputs if hasattr(t, "device"))
    tensors = [script.fusion.value(n) for n in script.fusion.inputs if script.fusion.value(n).is_tensor]
    assert [t.shape for t in tensors] == EXTENDED_SIZED_INPUTS[subset][name]
    compiled = hfuse.compile(script.fusion)
    assert compiled.kernel_count >= 1
    assert all(group.kind.launches_kernel for group in compiled.segmentation.groups)


@pytest.mark.parametrize("subset", EXTENDED_SUBSETS)
def test_extended_strided_inputs_keep_their_layout_at_every_size(subset):
    from hfuse import load

    for (name, position), strides in EXTENDED_STRIDES[subset].items():
        script = load(get_example(name, subset).text, device="meta")
        assert script.fusion.value(script.fusion.inputs[position]).strides == strides, name


def test_an_unknown_subset_lists_the_extended_ones():
    with pytest.raises(HfuseError, match=r"choose one of small, nanogpt, large, extended, extended-decode, "):
        list_examples("decode")
