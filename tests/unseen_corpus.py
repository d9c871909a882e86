"""The real fusion definitions collected in tests/unseen/, and the ones hfuse cannot load yet.

Each file there is a script as its author wrote it: nvFuser's Python tests and repros of every API era
(2022's torch._C._nvfuser to nvfuser_direct), its benchmarks, Thunder's printed fusions and repros, and
scripts pasted in issue threads. Its header names the source, what it computes and what was changed to
make it a standalone script; tests/unseen/SOURCES.md lists them all.

LOAD_FAILURES maps a file's stem to the error `hfuse.load` raises on it today. The tests mark exactly
those loads xfail(strict=True) with that error as the reason: a fix turns the xfail into an XPASS, which
fails until the entry is removed here, so the list always says what does not load yet.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hfuse.errors import HfuseError

UNSEEN_DIR = Path(__file__).resolve().parent / "unseen"
PATHS = sorted(UNSEEN_DIR.glob("*.py"))

# the error hfuse.load(text) raises today (the first one it meets, without its line and column) -> the
# files that raise it
_FAILING_LOADS: dict[str, list[str]] = {
    "ParseError: importing from nvfuser.pytorch_utils is not supported": [
        "bench_batchnorm_fwd_channels_last",
        "bench_gelu_bwd_reduction",
        "bench_hf_attention_dropout",
        "bench_instancenorm_bwd",
        "bench_rmsnorm_bwd_8192x4096",
        "bench_softmax_bwd_outer",
        "bench_transpose_add_relu",
        "cast_bf16_to_fp8_e4m3",
        "sum_complex64",
        "where_sizes_strides_helper",
    ],
    "ParseError: importing from functools is not supported": [
        "layer_norm_partial_2023",
        "linear_fp16_bias_optional_arg",
        "matmul_fp16_both_transposed",
        "nanogpt_attention_dropout_2023",
        "rms_norm_partial_2022",
    ],
    "ParseError: *arguments are not part of a fusion definition; list them": [
        "normal_like_input_2023",
        "normal_seeded_getattr_op",
        "squeeze_original_sizes_2023",
        "uniform_like_input_2023",
    ],
    "ParseError: importing from nvfuser._C is not supported": [
        "alias_output_to_input_2022",
        "broadcast_mixing_sizes_strides_2022",
        "explicit_broadcast_sizes_from_inputs_2022",
        "tensor_sizes_indexed_2022",
    ],
    "ParseError: calls to fusion.print_ir are not part of a fusion definition": [
        "fusion_add_input_ops_2022",
        "fusion_double_to_half_2022",
        "noncontiguous_add_input_2022",
    ],
    "ParseError: torch._C._nvfuser.FusionManager is not supported": [
        "fusion_manager_fp16_scalar_2022",
        "fusion_manager_half_double_2022",
        "fusion_manager_two_broadcasts_2022",
    ],
    "ParseError: a fusion value has no attribute shape that a definition may use": [
        "broadcast_to_shape_of_values",
        "two_inplace_0d_updates",
    ],
    "ParseError: an input tensor has no attribute type that a definition may use": [
        "complex_constant_mul",
        "where_scalar_dtypes",
    ],
    "ParseError: fusion_func must take exactly one parameter, the FusionDefinition: def fusion_func(fd):": [
        "embedding_fwd_optional_scalars",
        "permute_reshape_two_linears",
    ],
    "ParseError: importing from nvfuser_direct.pytorch_utils is not supported": [
        "bench_dropout_layernorm_fwd_direct",
        "bench_silu_mul_bwd_direct",
    ],
    "ParseError: torch has no attribute topk that a definition may use": [
        "scatter_scalar_source",
        "scatter_topk_index_sigmoid",
    ],
    "DefinitionError: index_select: index must be 1-D, got T1: Int[]": [
        "index_select_0d_index",
    ],
    (
        "DefinitionError: input T0 has symbolic extents [-1, -1]: pass the input tensors, as in "
        "fd.fusion(inputs) or fd.execute(inputs), so hfuse knows its shape"
    ): [
        "thunder_traces_doc_printed_definition",
    ],
    "ParseError: * unpacking are not part of a fusion definition": [
        "direct_slice_tuples_shape_vectors",
    ],
    "ParseError: a fusion value has no attribute pad that a definition may use": [
        "pad_forms_and_methods_2023",
    ],
    "ParseError: a fusion value has no attribute real that a definition may use": [
        "real_imag_methods",
    ],
    "ParseError: a fusion value has no attribute size that a definition may use": [
        "broadcast_to_sizes_of_two_inputs",
    ],
    "ParseError: an input tensor cannot be indexed; only lists and tuples can": [
        "add_misaligned_offset",
    ],
    "ParseError: an input tensor has no attribute size that a definition may use": [
        "expand_to_input_size",
    ],
    "ParseError: an input tensor has no attribute stride that a definition may use": [
        "div_by_broadcast_sizes_strides",
    ],
    "ParseError: assert statements are not part of a fusion definition": [
        "matmul_2d_by_3d_assert_ndim",
    ],
    "ParseError: assignment expressions (:=) are not part of a fusion definition": [
        "select_scalar_input_walrus",
    ],
    "ParseError: fd.ops has no attribute cumprod that a definition may use": [
        "direct_cumprod_dim1",
    ],
    "ParseError: for loops are not part of a fusion definition": [
        "iota_loop_over_tuples",
    ],
    "ParseError: fusion_decorator takes the FusionDefinition, as in fusion_decorator(fd)": [
        "var_mean_correction_equals_n",
    ],
    "ParseError: importing from torch is not supported": [
        "fusion_abs_sizes_strides_2022",
    ],
    "ParseError: importing itertools is not supported": [
        "nextafter_all_pairs",
    ],
    (
        "ParseError: nvfuser_fusion must take exactly one parameter, the FusionDefinition: def "
        "nvfuser_fusion(fd):"
    ): [
        "direct_rmsnorm_bwd_dims_as_parameters",
    ],
    (
        "ParseError: rope_with_cat_fusion must take exactly one parameter, the FusionDefinition: def "
        "rope_with_cat_fusion(fd):"
    ): [
        "bench_rope_with_cat_2024",
    ],
    (
        "ParseError: rope_without_cat_fusion must take exactly one parameter, the FusionDefinition: def "
        "rope_without_cat_fusion(fd):"
    ): [
        "bench_rope_without_cat_2024",
    ],
    (
        "UnsupportedError: fd.ops.uniform: random ops are not supported by hfuse (results could not be "
        "compared with a reference); pass random tensors as inputs instead"
    ): [
        "qwen2_rope_cat_dropout",
    ],
}
LOAD_FAILURES: dict[str, str] = {stem: error for error, stems in _FAILING_LOADS.items() for stem in stems}


def load_params() -> list:
    """One pytest param per collected file; the loads that fail today are strict xfails naming the error."""
    return [
        pytest.param(
            path,
            id=path.stem,
            marks=[pytest.mark.xfail(strict=True, raises=HfuseError, reason=LOAD_FAILURES[path.stem])]
            if path.stem in LOAD_FAILURES
            else [],
        )
        for path in PATHS
    ]
