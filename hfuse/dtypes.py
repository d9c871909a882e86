"""nvFuser's DataType enum and its mapping to torch dtypes."""

from __future__ import annotations

import enum

import torch


class DataType(enum.Enum):
    Double = "Double"
    Float = "Float"
    Half = "Half"
    Int = "Int"
    Int32 = "Int32"
    UInt64 = "UInt64"
    Bool = "Bool"
    BFloat16 = "BFloat16"
    Float8_e4m3fn = "Float8_e4m3fn"
    Float8_e5m2 = "Float8_e5m2"
    ComplexFloat = "ComplexFloat"
    ComplexDouble = "ComplexDouble"
    Index = "Index"
    Null = "Null"

    def __repr__(self) -> str:
        return f"DataType.{self.name}"

    @property
    def torch(self) -> torch.dtype:
        try:
            return _TO_TORCH[self]
        except KeyError:
            raise ValueError(f"DataType.{self.name} has no torch dtype") from None

    @property
    def itemsize(self) -> int:
        return self.torch.itemsize

    @property
    def is_float(self) -> bool:
        return self in FLOAT_TYPES

    @property
    def is_int(self) -> bool:
        return self in INT_TYPES

    @property
    def is_complex(self) -> bool:
        return self in (DataType.ComplexFloat, DataType.ComplexDouble)

    @property
    def is_reduced_float(self) -> bool:
        """16-bit and 8-bit floats: loaded and computed as fp32 in kernels."""
        return self in (DataType.Half, DataType.BFloat16, DataType.Float8_e4m3fn, DataType.Float8_e5m2)

    @staticmethod
    def from_torch(dtype: torch.dtype) -> DataType:
        try:
            return _FROM_TORCH[dtype]
        except KeyError:
            raise ValueError(f"torch dtype {dtype} has no nvFuser DataType") from None


_TO_TORCH = {
    DataType.Double: torch.float64,
    DataType.Float: torch.float32,
    DataType.Half: torch.float16,
    DataType.BFloat16: torch.bfloat16,
    DataType.Int: torch.int64,
    DataType.Index: torch.int64,
    DataType.Int32: torch.int32,
    DataType.UInt64: torch.uint64,
    DataType.Bool: torch.bool,
    DataType.Float8_e4m3fn: torch.float8_e4m3fn,
    DataType.Float8_e5m2: torch.float8_e5m2,
    DataType.ComplexFloat: torch.complex64,
    DataType.ComplexDouble: torch.complex128,
}
_FROM_TORCH = {v: k for k, v in _TO_TORCH.items() if k is not DataType.Index}

FLOAT_TYPES = frozenset(
    {
        DataType.Double,
        DataType.Float,
        DataType.Half,
        DataType.BFloat16,
        DataType.Float8_e4m3fn,
        DataType.Float8_e5m2,
    }
)
INT_TYPES = frozenset({DataType.Int, DataType.Int32, DataType.UInt64, DataType.Index})


def int_range(dtype: DataType) -> tuple[int, int]:
    """The smallest and the largest value an integer dtype holds."""
    info = torch.iinfo(dtype.torch)
    return info.min, info.max


def python_dtype(value: bool | int | float | complex) -> DataType:
    """nvFuser's dtype of a Python number: bool Bool, int Int, float Double, complex ComplexDouble."""
    if isinstance(value, bool):
        return DataType.Bool
    if isinstance(value, int):
        return DataType.Int
    if isinstance(value, float):
        return DataType.Double
    return DataType.ComplexDouble
