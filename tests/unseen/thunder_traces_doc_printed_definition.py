# Source: Lightning-AI/lightning-thunder, docs/source/basic/inspecting_traces.rst at 5f17876fb0 (2025-04-28),
#   the definition printed by `print(nvFusion0 := ctx['nvFusion0'].last_used)`.
# Computes: T2 = T0 + T1 and T3 = T2 * T1, both returned (the fusion Thunder makes of two elementwise ops).
# Adapted: none; the printed text as the page shows it (a bare def, no imports, no inputs, no call).
def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])
    T1 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False, stride_order=[1, 0])
    T2 = fd.ops.add(T0, T1)
    T3 = fd.ops.mul(T2, T1)
    fd.add_output(T2)
    fd.add_output(T3)
