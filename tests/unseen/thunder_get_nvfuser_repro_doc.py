# Source: Lightning-AI/lightning-thunder, docs/source/basic/inspecting_traces.rst at 5f17876fb0 (2025-04-28),
#   the script printed by `print(get_nvfuser_repro(traces[2], "nvFusion0"))`.
# Computes: T2 = T0 + T1 and T3 = T2 * T1 on [2, 2] float inputs made with as_strided.
# Adapted: none; the printed repro as the page shows it (the CUDA/torch/nvfuser version header included).
# CUDA devices:
#  0: NVIDIA H100 80GB
# torch version: 2.3.1+cu121
# cuda version: 12.1
# nvfuser version: 0.2.8
import torch
from nvfuser import FusionDefinition, DataType

def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])
    T2 = fd.ops.add(T0, T1)
    T3 = fd.ops.mul(T2, T1)
    fd.add_output(T3)
    fd.add_output(T2)

with FusionDefinition() as fd:
    nvfuser_fusion_id0(fd)

inputs = [
    torch.randn((4,), dtype=torch.float32, device='cuda:0').as_strided((2, 2), (2, 1)),
    torch.randn((4,), dtype=torch.float32, device='cuda:0').as_strided((2, 2), (2, 1)),
]
fd.execute(inputs)
