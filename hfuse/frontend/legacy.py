"""Argument forms of the nvFuser Python API across its versions, old spellings included.

Each overloaded call has one template function per form; `bind_call` matches the given
arguments to a template with Python's own rules, after renaming old keywords to new ones.
"""

from __future__ import annotations

import difflib
import inspect
from collections.abc import Callable, Mapping
from typing import Any

from hfuse.dtypes import DataType
from hfuse.errors import DefinitionError, loc_of
from hfuse.frontend.handles import Tensor

Position = tuple[int, int] | None

# old keyword -> new keyword, per call
KEYWORD_RENAMES: dict[str, dict[str, str]] = {
    "define_tensor": {"symbolic_sizes": "shape", "contiguous": "contiguity"},
    "broadcast_in_dim": {"output_shape": "shape"},
    "full": {"size": "shape", "arg": "fill_value"},
    "reduction": {"axes": "dims", "dim": "dims", "axis": "dims"},
    "sdpfa_bwd": {"log_sumexp": "logsumexp"},
}


def bind_call(
    where: str,
    template: Callable[..., Any],
    args: tuple[Any, ...],
    kwargs: Mapping[str, Any],
    renames: Mapping[str, str] | None = None,
    loc: Position = None,
) -> dict[str, Any]:
    """The arguments of a call as a dict keyed by the template's parameter names, defaults filled in."""
    kwargs = dict(kwargs)
    for old, new in (renames or {}).items():
        if old in kwargs:
            if new in kwargs:
                raise DefinitionError(
                    f"{where}: both {old}= and {new}= given; {old}= is the old name of {new}=",
                    loc=loc_of(loc),
                )
            kwargs[new] = kwargs.pop(old)
    signature = inspect.signature(template)
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError as err:
        hint = _keyword_hint(kwargs, signature, renames or {})
        raise DefinitionError(f"{where}: {err}{hint}; it takes {where}{signature}", loc=loc_of(loc)) from None
    bound.apply_defaults()
    return dict(bound.arguments)


def _keyword_hint(kwargs: Mapping[str, Any], signature: inspect.Signature, renames: Mapping[str, str]) -> str:
    """` (did you mean new_shape= for shape=?)`: the known keyword closest to each unknown one."""
    known = [*signature.parameters, *renames]
    close = [
        f"{match}= for {name}="
        for name in kwargs
        if name not in signature.parameters
        for match in difflib.get_close_matches(name, known, n=1)
    ]
    return f" (did you mean {' or '.join(close)}?)" if close else ""


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def is_int_list(value: Any) -> bool:
    return isinstance(value, list | tuple) and all(is_int(v) for v in value)


def is_contiguity_list(value: Any) -> bool:
    return isinstance(value, list | tuple) and all(v is None or isinstance(v, bool) for v in value)


# define_tensor
def tensor_by_shape(shape, contiguity=None, dtype=DataType.Float, is_cpu=False, stride_order=None):
    """define_tensor(shape, contiguity, dtype, is_cpu, stride_order)"""


def tensor_by_strides(sizes, strides, dtype=DataType.Float, static_sizes=False, is_cpu=False):
    """define_tensor(sizes, strides, dtype, static_sizes, is_cpu)"""


def define_tensor_form(args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> Callable[..., Any]:
    """The sizes+strides form has a second list of whole numbers (not bools) or names sizes=/strides=."""
    if "sizes" in kwargs or "strides" in kwargs:
        return tensor_by_strides
    second = args[1] if len(args) > 1 else kwargs.get("contiguity", kwargs.get("contiguous"))
    if second is not None and is_int_list(second) and not is_contiguity_list(second):
        return tensor_by_strides
    return tensor_by_shape


# define_scalar
def scalar_form(value=None, dtype=None):
    """define_scalar(value=None, dtype=None)"""


# reshape and squeeze: the old forms pass the original shape before the new argument
def reshape_new(x, new_shape):
    """reshape(x, new_shape)"""


def reshape_old(x, original_shape, new_shape):
    """reshape(x, original_shape, new_shape)"""


def squeeze_new(x, dims, squeeze_expanded=False):
    """squeeze(x, dims, squeeze_expanded=False)"""


def squeeze_old(x, original_shape, dims, squeeze_expanded=False):
    """squeeze(x, original_shape, dims)"""


def reshape_form(args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> Callable[..., Any]:
    return reshape_old if "original_shape" in kwargs or len(args) == 3 else reshape_new


def squeeze_form(args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> Callable[..., Any]:
    if "original_shape" in kwargs:
        return squeeze_old
    third = args[2] if len(args) > 2 else None
    return squeeze_old if isinstance(third, list | tuple) else squeeze_new


# reductions: a DataType in second place is the "reduce everything" form
def reduction_all(x, dtype=DataType.Null):
    """op(x, dtype=DataType.Null)"""


def reduction_dims(x, dims=None, keepdim=False, dtype=DataType.Null):
    """op(x, dims, keepdim=False, dtype=DataType.Null)"""


def reduction_form(args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> Callable[..., Any]:
    return reduction_all if len(args) > 1 and isinstance(args[1], DataType) else reduction_dims


# random ops: dtype was the fourth positional argument until nvFuser #1283 (2023-11) made it keyword-only
def uniform_form(minval, maxval, shape, dtype=DataType.Float, *, rng_seed=None, rng_offset=None):
    """uniform(minval, maxval, shape, *, rng_seed=None, rng_offset=None, dtype=DataType.Float)"""


def normal_form(mean, std, shape, dtype=DataType.Float, *, rng_seed=None, rng_offset=None):
    """normal(mean, std, shape, *, rng_seed=None, rng_offset=None, dtype=DataType.Float)"""


def random_like_form(arg, *, rng_seed=None, rng_offset=None):
    """rand_like(arg, *, rng_seed=None, rng_offset=None): both seeds or neither"""


# attention: nvfuser_direct (2025) added bias and mask after value; the earlier frontend had neither
def sdpfa_fwd_new(query, key, value, bias=None, mask=None, dropout_p=None, is_causal=None, scale=None):
    """sdpfa_fwd(query, key, value, bias=None, mask=None, dropout_p=None, is_causal=None, scale=None)"""


def sdpfa_fwd_old(query, key, value, dropout_p=None, is_causal=None, scale=None):
    """sdpfa_fwd(query, key, value, dropout_p=None, is_causal=None, scale=None)"""


def sdpfa_fwd_form(args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> Callable[..., Any]:
    """The old form where arguments after value are given by position and none is a tensor (all None reads
    the same in both forms)."""
    extra = args[3:]
    old = extra and len(extra) <= 3 and not any(isinstance(a, Tensor) for a in extra)
    return sdpfa_fwd_old if old and "bias" not in kwargs and "mask" not in kwargs else sdpfa_fwd_new


def sdpfa_bwd_form(
    grad_output,
    query,
    key,
    value,
    output,
    logsumexp,
    dropout_p,
    is_causal,
    philox_seed,
    philox_offset,
    scale=None,
):
    """sdpfa_bwd(grad_output, query, key, value, output, logsumexp, dropout_p, is_causal, philox_seed,
    philox_offset, scale)"""
