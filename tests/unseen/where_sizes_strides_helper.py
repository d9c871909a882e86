# Source: NVIDIA/Fuser, python_tests/test_python_frontend.py at 831821f3ae (2023-03-12),
#   TestNvFuserFrontend.test_where_op.
# Computes: where(pred, a, b) with a float16 and a bfloat16 operand, built and run by a helper from the
#   tensors' shapes, strides and dtypes.
# Adapted: the test calls nvfuser_where(pred, a, b) for every pair of float16, bfloat16 and float32
#   operands; here once, with float16 and bfloat16, in the last four lines.
import torch
from nvfuser import FusionDefinition, DataType
from nvfuser.pytorch_utils import torch_dtype_to_nvfuser_dtype


def nvfuser_where(pred, a, b):
    with FusionDefinition() as fd:
        nv_pred = fd.define_tensor(
            sizes=pred.shape, strides=pred.stride(), dtype=DataType.Bool
        )
        nv_a = fd.define_tensor(
            sizes=a.shape,
            strides=a.stride(),
            dtype=torch_dtype_to_nvfuser_dtype(a.dtype),
        )
        nv_b = fd.define_tensor(
            sizes=b.shape,
            strides=b.stride(),
            dtype=torch_dtype_to_nvfuser_dtype(b.dtype),
        )
        result = fd.ops.where(nv_pred, nv_a, nv_b)
        fd.add_output(result)
    return fd.execute((pred, a, b))[0]


pred = torch.testing.make_tensor((5,), device="cuda", dtype=torch.bool)
a = torch.randn((5,), device="cuda", dtype=torch.float16)
b = torch.randn((5,), device="cuda", dtype=torch.bfloat16)
nv_result = nvfuser_where(pred, a, b)
