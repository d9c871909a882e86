# Source: NVIDIA/Fuser, tests/python/test_repro.py at 06a16a0b33 (2025-08-24), TestRepro.test_domain_map_hang.
# Computes: a large fusion: iota/index_select position ids, sin/cos RoPE, tanh-GELU, pow, casts
#   over [1, 4096, 2560] and [1, 4096, 10240]; checked with fd.validate.
# Adapted: none: the test's statements as written, its eager checks left out.
import torch
from nvfuser import FusionDefinition, DataType


def nvfuser_fusion_id2(fd: FusionDefinition) -> None:
    T0 = fd.define_tensor(
        shape=[16],
        contiguity=[True],
        dtype=DataType.Float,
        is_cpu=False,
        stride_order=[0],
    )
    T1 = fd.define_tensor(
        shape=[16],
        contiguity=[True],
        dtype=DataType.Float,
        is_cpu=False,
        stride_order=[0],
    )
    T2 = fd.define_tensor(
        shape=[4096, 4096],
        contiguity=[True, True],
        dtype=DataType.Float,
        is_cpu=False,
        stride_order=[1, 0],
    )
    T3 = fd.define_tensor(
        shape=[1, 4096, 2560],
        contiguity=[None, True, True],
        dtype=DataType.BFloat16,
        is_cpu=False,
        stride_order=[2, 1, 0],
    )
    T4 = fd.define_tensor(
        shape=[1, 4096, 2560],
        contiguity=[None, True, True],
        dtype=DataType.BFloat16,
        is_cpu=False,
        stride_order=[2, 1, 0],
    )
    T5 = fd.define_tensor(
        shape=[1, 4096, 2560],
        contiguity=[None, True, True],
        dtype=DataType.BFloat16,
        is_cpu=False,
        stride_order=[2, 1, 0],
    )
    T6 = fd.define_tensor(
        shape=[1, 4096, 10240],
        contiguity=[None, True, True],
        dtype=DataType.BFloat16,
        is_cpu=False,
        stride_order=[2, 1, 0],
    )
    T7 = fd.define_tensor(
        shape=[1, 4096, 2560],
        contiguity=[None, True, True],
        dtype=DataType.Float,
        is_cpu=False,
        stride_order=[2, 1, 0],
    )
    T8 = fd.define_tensor(
        shape=[1, 4096, 2560],
        contiguity=[None, True, True],
        dtype=DataType.Float,
        is_cpu=False,
        stride_order=[2, 1, 0],
    )
    T9 = fd.define_tensor(
        shape=[1, 4096, 2560],
        contiguity=[None, True, True],
        dtype=DataType.Float,
        is_cpu=False,
        stride_order=[2, 1, 0],
    )
    T10 = fd.define_tensor(
        shape=[1, 4096, 10240],
        contiguity=[None, True, True],
        dtype=DataType.Float,
        is_cpu=False,
        stride_order=[2, 1, 0],
    )
    S11 = fd.define_scalar(4096, dtype=DataType.Int)
    S12 = fd.define_scalar(0, dtype=DataType.Int)
    S13 = fd.define_scalar(1, dtype=DataType.Int)
    T14 = fd.ops.iota(S11, S12, S13, dtype=DataType.Int)
    T18 = fd.ops.broadcast_in_dim(T14, shape=[1, 4096], broadcast_dims=[1])
    T19 = fd.ops.cast(T14, dtype=DataType.Float)
    T23 = fd.ops.broadcast_in_dim(T19, shape=[4096, 1], broadcast_dims=[0])
    T27 = fd.ops.broadcast_in_dim(T0, shape=[1, 16], broadcast_dims=[1])
    T31 = fd.ops.broadcast_in_dim(T23, shape=[4096, 16], broadcast_dims=[0, 1])
    T35 = fd.ops.broadcast_in_dim(T27, shape=[4096, 16], broadcast_dims=[0, 1])
    T39 = fd.ops.broadcast_in_dim(T1, shape=[1, 16], broadcast_dims=[1])
    T43 = fd.ops.broadcast_in_dim(T39, shape=[4096, 16], broadcast_dims=[0, 1])
    S44 = fd.define_scalar(0, dtype=DataType.Int)
    T45 = fd.ops.lt(T18, S44)
    T46 = fd.ops.mul(T31, T35)
    T47 = fd.ops.mul(T31, T43)
    S48 = fd.define_scalar(4096, dtype=DataType.Int)
    S49 = fd.define_scalar(0, dtype=DataType.Int)
    T50 = fd.ops.where(T45, S48, S49)
    T51 = fd.ops.cast(T50, dtype=DataType.Int)
    T52 = fd.ops.cat([T46, T46], dim=-1, manual_padding=0)
    T53 = fd.ops.cat([T47, T47], dim=-1, manual_padding=0)
    T54 = fd.ops.add(T18, T51)
    T55 = fd.ops.cos(T52)
    T56 = fd.ops.sin(T52)
    T57 = fd.ops.cos(T53)
    T58 = fd.ops.sin(T53)
    T59 = fd.ops.cast(T55, dtype=DataType.BFloat16)
    T60 = fd.ops.cast(T56, dtype=DataType.BFloat16)
    T63 = fd.ops.reshape(T54, new_shape=[4096])
    T64 = fd.ops.cast(T57, dtype=DataType.BFloat16)
    T65 = fd.ops.cast(T58, dtype=DataType.BFloat16)
    T66 = fd.ops.index_select(T59, T63, dim=0)
    T67 = fd.ops.index_select(T60, T63, dim=0)
    T68 = fd.ops.index_select(T64, T63, dim=0)
    T69 = fd.ops.index_select(T65, T63, dim=0)
    T74 = fd.ops.reshape(T66, new_shape=[1, 4096, 32])
    T80 = fd.ops.broadcast_in_dim(
        T74, shape=[1, 1, 4096, 32], broadcast_dims=[0, 2, 3]
    )
    T85 = fd.ops.reshape(T67, new_shape=[1, 4096, 32])
    T91 = fd.ops.broadcast_in_dim(
        T85, shape=[1, 1, 4096, 32], broadcast_dims=[0, 2, 3]
    )
    T97 = fd.ops.broadcast_in_dim(
        T80, shape=[1, 32, 4096, 32], broadcast_dims=[0, 1, 2, 3]
    )
    T98 = fd.ops.cast(T97, dtype=DataType.Float)
    T104 = fd.ops.broadcast_in_dim(
        T91, shape=[1, 32, 4096, 32], broadcast_dims=[0, 1, 2, 3]
    )
    T105 = fd.ops.cast(T104, dtype=DataType.Float)
    T110 = fd.ops.reshape(T68, new_shape=[1, 4096, 32])
    T116 = fd.ops.broadcast_in_dim(
        T110, shape=[1, 1, 4096, 32], broadcast_dims=[0, 2, 3]
    )
    T121 = fd.ops.reshape(T69, new_shape=[1, 4096, 32])
    T127 = fd.ops.broadcast_in_dim(
        T121, shape=[1, 1, 4096, 32], broadcast_dims=[0, 2, 3]
    )
    T133 = fd.ops.broadcast_in_dim(
        T116, shape=[1, 32, 4096, 32], broadcast_dims=[0, 1, 2, 3]
    )
    T134 = fd.ops.cast(T133, dtype=DataType.Float)
    T140 = fd.ops.broadcast_in_dim(
        T127, shape=[1, 32, 4096, 32], broadcast_dims=[0, 1, 2, 3]
    )
    T141 = fd.ops.cast(T140, dtype=DataType.Float)
    T142 = fd.ops.cast(T2, dtype=DataType.BFloat16)
    T143 = fd.ops.cast(T3, dtype=DataType.Float)
    T144 = fd.ops.cast(T4, dtype=DataType.Float)
    T145 = fd.ops.cast(T5, dtype=DataType.Float)
    T146 = fd.ops.cast(T6, dtype=DataType.Float)
    S147 = fd.define_scalar(2.00000, dtype=DataType.Double)
    T148 = fd.ops.mul(T7, S147)
    S149 = fd.define_scalar(2.00000, dtype=DataType.Double)
    T150 = fd.ops.mul(T8, S149)
    S151 = fd.define_scalar(2.00000, dtype=DataType.Double)
    T152 = fd.ops.mul(T9, S151)
    S153 = fd.define_scalar(2.00000, dtype=DataType.Double)
    T154 = fd.ops.mul(T10, S153)
    T155 = fd.ops.add(T143, T148)
    T156 = fd.ops.add(T144, T150)
    T157 = fd.ops.add(T145, T152)
    T158 = fd.ops.add(T146, T154)
    T159 = fd.ops.cast(T155, dtype=DataType.BFloat16)
    T160 = fd.ops.cast(T156, dtype=DataType.BFloat16)
    T161 = fd.ops.cast(T157, dtype=DataType.BFloat16)
    T167 = fd.ops.reshape(T159, new_shape=[1, 4096, 32, 80])
    T173 = fd.ops.reshape(T160, new_shape=[1, 4096, 32, 80])
    T179 = fd.ops.reshape(T161, new_shape=[1, 4096, 32, 80])
    T180 = fd.ops.cast(T158, dtype=DataType.BFloat16)
    T181 = fd.ops.permute(T167, dims=[0, 2, 1, 3])
    T182 = fd.ops.permute(T173, dims=[0, 2, 1, 3])
    T183 = fd.ops.permute(T179, dims=[0, 2, 1, 3])
    S184 = fd.define_scalar(0.500000, dtype=DataType.Double)
    T185 = fd.ops.mul(S184, T158)
    S186 = fd.define_scalar(3.00000, dtype=DataType.Double)
    T187 = fd.ops.pow(T158, S186)
    T203 = fd.ops.slice(
        T181,
        start_indices=[0, 0, 0, 0],
        end_indices=[1, 32, 4096, 32],
        strides=[1, 1, 1, 1],
        manual_normalization=0,
    )
    T219 = fd.ops.slice(
        T181,
        start_indices=[0, 0, 0, 32],
        end_indices=[1, 32, 4096, 80],
        strides=[1, 1, 1, 1],
        manual_normalization=0,
    )
    T235 = fd.ops.slice(
        T182,
        start_indices=[0, 0, 0, 0],
        end_indices=[1, 32, 4096, 32],
        strides=[1, 1, 1, 1],
        manual_normalization=0,
    )
    T251 = fd.ops.slice(
        T182,
        start_indices=[0, 0, 0, 32],
        end_indices=[1, 32, 4096, 80],
        strides=[1, 1, 1, 1],
        manual_normalization=0,
    )
    T252 = fd.ops.cast(T203, dtype=DataType.Float)
    T268 = fd.ops.slice(
        T203,
        start_indices=[0, 0, 0, 0],
        end_indices=[1, 32, 4096, 16],
        strides=[1, 1, 1, 1],
        manual_normalization=0,
    )
    T284 = fd.ops.slice(
        T203,
        start_indices=[0, 0, 0, 16],
        end_indices=[1, 32, 4096, 32],
        strides=[1, 1, 1, 1],
        manual_normalization=0,
    )
    T285 = fd.ops.cast(T284, dtype=DataType.Float)
    T286 = fd.ops.neg(T285)
    T287 = fd.ops.cast(T286, dtype=DataType.BFloat16)
    T288 = fd.ops.cast(T235, dtype=DataType.Float)
    T304 = fd.ops.slice(
        T235,
        start_indices=[0, 0, 0, 0],
        end_indices=[1, 32, 4096, 16],
        strides=[1, 1, 1, 1],
        manual_normalization=0,
    )
    T320 = fd.ops.slice(
        T235,
        start_indices=[0, 0, 0, 16],
        end_indices=[1, 32, 4096, 32],
        strides=[1, 1, 1, 1],
        manual_normalization=0,
    )
    T321 = fd.ops.cast(T320, dtype=DataType.Float)
    T322 = fd.ops.neg(T321)
    T323 = fd.ops.cast(T322, dtype=DataType.BFloat16)
    T324 = fd.ops.mul(T252, T98)
    T325 = fd.ops.cat([T287, T268], dim=-1, manual_padding=0)
    T326 = fd.ops.mul(T288, T98)
    T327 = fd.ops.cat([T323, T304], dim=-1, manual_padding=0)
    S328 = fd.define_scalar(0.0447150, dtype=DataType.Double)
    T329 = fd.ops.mul(S328, T187)
    T330 = fd.ops.cast(T325, dtype=DataType.Float)
    T331 = fd.ops.cast(T327, dtype=DataType.Float)
    T332 = fd.ops.mul(T330, T105)
    T333 = fd.ops.mul(T331, T105)
    T334 = fd.ops.add(T158, T329)
    T335 = fd.ops.add(T324, T332)
    T336 = fd.ops.add(T326, T333)
    S337 = fd.define_scalar(0.797885, dtype=DataType.Double)
    T338 = fd.ops.mul(S337, T334)
    T339 = fd.ops.cast(T335, dtype=DataType.BFloat16)
    T340 = fd.ops.cast(T336, dtype=DataType.BFloat16)
    T341 = fd.ops.cat([T339, T219], dim=-1, manual_padding=0)
    T342 = fd.ops.cat([T340, T251], dim=-1, manual_padding=0)
    T343 = fd.ops.tanh(T338)
    T344 = fd.ops.cast(T341, dtype=DataType.Float)
    T345 = fd.ops.cast(T342, dtype=DataType.Float)
    T346 = fd.ops.permute(T345, dims=[0, 1, 3, 2])
    S347 = fd.define_scalar(1.00000, dtype=DataType.Double)
    T348 = fd.ops.add(S347, T343)
    T349 = fd.ops.mul(T185, T348)
    T350 = fd.ops.cast(T349, dtype=DataType.BFloat16)
    fd.add_output(T59)
    fd.add_output(T60)
    fd.add_output(T64)
    fd.add_output(T65)
    fd.add_output(T80)
    fd.add_output(T91)
    fd.add_output(T134)
    fd.add_output(T141)
    fd.add_output(T142)
    fd.add_output(T180)
    fd.add_output(T183)
    fd.add_output(T342)
    fd.add_output(T344)
    fd.add_output(T346)
    fd.add_output(T350)
    fd.add_output(T349)


with FusionDefinition() as fd:
    nvfuser_fusion_id2(fd)

inputs = [
    torch.testing.make_tensor((16,), dtype=torch.float32, device="cuda:0"),
    torch.testing.make_tensor((16,), dtype=torch.float32, device="cuda:0"),
    torch.testing.make_tensor(
        (4096, 4096), dtype=torch.float32, device="cuda:0"
    ),
    torch.testing.make_tensor(
        (1, 4096, 2560), dtype=torch.bfloat16, device="cuda:0"
    ),
    torch.testing.make_tensor(
        (1, 4096, 2560), dtype=torch.bfloat16, device="cuda:0"
    ),
    torch.testing.make_tensor(
        (1, 4096, 2560), dtype=torch.bfloat16, device="cuda:0"
    ),
    torch.testing.make_tensor(
        (1, 4096, 10240), dtype=torch.bfloat16, device="cuda:0"
    ),
    torch.testing.make_tensor(
        (1, 4096, 2560), dtype=torch.float32, device="cuda:0"
    ),
    torch.testing.make_tensor(
        (1, 4096, 2560), dtype=torch.float32, device="cuda:0"
    ),
    torch.testing.make_tensor(
        (1, 4096, 2560), dtype=torch.float32, device="cuda:0"
    ),
    torch.testing.make_tensor(
        (1, 4096, 10240), dtype=torch.float32, device="cuda:0"
    ),
]
fd.validate(inputs)
