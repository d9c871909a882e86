# Source: NVIDIA/Fuser, python_tests/test_python_frontend.py at d243121980 (2023-11-19),
#   TestNvFuserFrontend.test_sum_sliced_reshape_to_broadcast.
# Computes: reshape [24, 128, 25, 32] to [12, 128, 25, 32, 2], slice the last dim to 1, sum it away.
# Adapted: the test's self.exec_nvfuser(...) call is written as the with-block and fd.execute below; its
#   eager checks are left out.
import torch
from nvfuser import FusionDefinition, DataType

inputs = [torch.randn((24, 128, 25, 32), dtype=torch.float32, device="cuda:0")]


def fusion_func(fd: FusionDefinition) -> None:
    T18 = fd.define_tensor(
        shape=[-1, -1, -1, -1],
        contiguity=[True, True, True, True],
        dtype=DataType.Float,
        is_cpu=False,
    )
    S91 = fd.define_scalar(12, dtype=DataType.Int)
    S92 = fd.define_scalar(128, dtype=DataType.Int)
    S93 = fd.define_scalar(25, dtype=DataType.Int)
    S94 = fd.define_scalar(32, dtype=DataType.Int)
    S95 = fd.define_scalar(2, dtype=DataType.Int)
    V96 = fd.define_vector([S91, S92, S93, S94, S95], dtype=DataType.Int)
    T97 = fd.ops.reshape(T18, new_shape=V96)
    T98 = fd.ops.slice(
        T97,
        start_indices=[0, 0, 0, 0, 0],
        end_indices=[12, 128, 25, 32, 1],
        strides=[1, 1, 1, 1, 1],
    )
    T89 = fd.ops.sum(T98, axes=[4], keepdim=False, dtype=DataType.Null)
    fd.add_output(T89)


with FusionDefinition() as fd:
    fusion_func(fd)

fd.execute(inputs)
