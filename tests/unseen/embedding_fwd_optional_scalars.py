# Source: NVIDIA/Fuser, tests/python/test_embedding.py at 08ad4ffaec (2025-09-09), test_embedding.
# Computes: embedding_fwd of a [10, 3] bf16 table with padding_idx -2 passed as an Int scalar input; the
#   other optional arguments are None (built in a loop with enumerate, append and *args).
# Adapted: the test is parametrized over the five optional arguments; here padding_idx = -2 and the others
#   None, set in the first line; its torch reference and check are left out.
import torch
from nvfuser import FusionDefinition, DataType

padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse = -2, None, None, None, None


def fusion_func(
    fd: FusionDefinition,
    has_optional_inputs: list[bool],
    optional_inputs_dtypes: list[DataType],
):
    input = fd.define_tensor(
        shape=[-1],
        contiguity=[True],
        dtype=DataType.Int,
        is_cpu=False,
    )
    weight = fd.define_tensor(
        shape=[-1, -1],
        contiguity=[True, True],
        dtype=DataType.BFloat16,
        is_cpu=False,
    )
    # padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse
    optional_inputs = [None] * 5
    for idx in range(len(optional_inputs)):
        if has_optional_inputs[idx]:
            optional_inputs[idx] = fd.define_scalar(
                value=None, dtype=optional_inputs_dtypes[idx]
            )
    out = fd.ops.embedding_fwd(input, weight, *optional_inputs)
    fd.add_output(out)


N, S = 10, 3
input = torch.randint(
    N, (S,), dtype=torch.int64, device="cuda", requires_grad=False
)
weight = torch.randn(N, S, dtype=torch.bfloat16, device="cuda", requires_grad=True)
optional_inputs_dtypes = [
    DataType.Int,
    DataType.Float,
    DataType.Float,
    DataType.Bool,
    DataType.Bool,
]
# This is not in pytest_ops.py since the torch API does not accept None values for some arguments.
# Different inputs for nvfuser and torch API cannot be handled within OpInfo
optional_inputs = [padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse]
has_optional_inputs = [None] * 5
inputs = [input, weight]

for idx, param in enumerate(optional_inputs):
    if param is not None:
        has_optional_inputs[idx] = True
        inputs.append(param)

with FusionDefinition() as fd:
    fusion_func(
        fd,
        has_optional_inputs=has_optional_inputs,
        optional_inputs_dtypes=optional_inputs_dtypes,
    )

nvf_out = fd.execute(inputs)
