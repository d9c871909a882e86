# Source: NVIDIA/Fuser, python_tests/test_python_frontend.py at 8e1020796a (2023-03-21),
#   TestNvFuserFrontend.test_nanogpt_mha_dpa.
# Computes: nanoGPT attention probabilities: scale, causal mask from a sliced [1, 1, 1024, 1024] bias
#   (-inf), softmax, dropout with uniform and p = 0.0.
# Adapted: the test's self.exec_nvfuser(partial(nvfuser_fusion, prob=0.0), inputs) is written as the with-
#   block and fd.execute below; the eager reference torch_def is left out.
from functools import partial
import torch
from nvfuser import FusionDefinition, DataType

inputs = [
    torch.randn(16, 16, 128, 128, device='cuda'),
    torch.randn(1, 1, 1024, 1024, device='cuda'),
]


def nvfuser_fusion(fd : FusionDefinition, prob) -> None :                                                                        
    T0 = fd.define_tensor(symbolic_sizes=[-1, -1, -1, -1], contiguous=[True, True, True, True], dtype=DataType.Float, is_cpu=False)
    T1 = fd.define_tensor(symbolic_sizes=[1, 1, -1, -1], contiguous=[None, None, True, True], dtype=DataType.Float, is_cpu=False)
    S2 = fd.define_constant(0.125000, dtype=DataType.Double)
    T3 = fd.ops.mul(T0, S2)                    
    T4 = fd.ops.slice(T1, start_indices=[0, 0, 0, 0], end_indices=[1, 1, 128, 128], strides=[1, 1, 1, 1])
    S5 = fd.define_constant(0.00000, dtype=DataType.Double)                                                                    
    T6 = fd.ops.eq(S5, T4)                                     
    T7 = fd.ops.broadcast_in_dim(T6, output_shape=[16, 16, 128, 128], broadcast_dims=[0, 1, 2, 3])
    S8 = fd.define_constant(float("-inf"), dtype=DataType.Double)
    T9 = fd.ops.where(T7, S8, T3)                           
    S10 = fd.define_constant(-1, dtype=DataType.Int)
    S11 = fd.define_constant(4, dtype=DataType.Int)
    S12 = fd.ops.add(S10, S11)
    T13 = fd.ops.max(T9, axes=[3], keepdim=False, dtype=DataType.Null)
    T14 = fd.ops.broadcast_in_dim(T13, output_shape=[16, 16, 128, 1], broadcast_dims=[0, 1, 2])
    T15 = fd.ops.broadcast_in_dim(T14, output_shape=[16, 16, 128, 128], broadcast_dims=[0, 1, 2, 3])
    T16 = fd.ops.sub(T9, T15)
    T17 = fd.ops.exp(T16)
    S18 = fd.define_constant(-1, dtype=DataType.Int)
    S19 = fd.define_constant(4, dtype=DataType.Int)
    S20 = fd.ops.add(S18, S19)
    T21 = fd.ops.sum(T17, axes=[3], keepdim=False, dtype=DataType.Null)
    T22 = fd.ops.broadcast_in_dim(T21, output_shape=[16, 16, 128, 1], broadcast_dims=[0, 1, 2])
    T23 = fd.ops.broadcast_in_dim(T22, output_shape=[16, 16, 128, 128], broadcast_dims=[0, 1, 2, 3])
    T24 = fd.ops.div(T17, T23)
    S25 = fd.define_constant(16, dtype=DataType.Int)
    S26 = fd.define_constant(16, dtype=DataType.Int)
    S27 = fd.define_constant(128, dtype=DataType.Int)
    S28 = fd.define_constant(128, dtype=DataType.Int)
    S29 = fd.define_constant(0.00000, dtype=DataType.Double)
    S30 = fd.define_constant(1.00000, dtype=DataType.Double)
    T31 = fd.ops.uniform(S29, S30, shape=[S25, S26, S27, S28], dtype=DataType.Float)
    S32 = fd.define_constant(1.0 - prob, dtype=DataType.Double)
    T33 = fd.ops.lt(T31, S32)
    T34 = fd.ops.cast(T33, dtype=DataType.Float)
    T35 = fd.ops.mul(T24, T34)
    S36 = fd.define_constant(1.0 / (1.0 - prob), dtype=DataType.Double)
    T37 = fd.ops.mul(T35, S36)
    fd.add_output(T37)


fusion_func = partial(nvfuser_fusion, prob=0.0)

with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
