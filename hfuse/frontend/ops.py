"""The `fd.ops` namespace: every op of the nvFuser Python API, recorded in canonical form.

Each method checks its operands, maps old spellings to the canonical attributes of hfuse/ir.py
and computes the rank of its outputs (so `ndim` and `shape(x)` work while defining). Extents,
dtypes and the normalization of dims and indices come later, when the definition is bound to
concrete inputs and each op goes through shape inference.
"""

from __future__ import annotations

from typing import Any

from hfuse.dtypes import DataType
from hfuse.errors import UnsupportedError
from hfuse.frontend import legacy
from hfuse.frontend.handles import Scalar, Tensor, Vector
from hfuse.frontend.operands import NUMBER_TYPES, OperandChecks, describe
from hfuse.frontend.records import Like
from hfuse.ir import Family, Op


def _reduced_rank(x: Tensor, dims: tuple[int, ...], keepdim: bool) -> int:
    if keepdim:
        return x.ndim
    return x.ndim - (len(set(dims)) if dims else x.ndim)


def _matmul_rank(a: Tensor, b: Tensor) -> int:
    if a.ndim == 1 and b.ndim == 1:
        return 0
    if a.ndim == 1 or b.ndim == 1:
        return max(a.ndim, b.ndim) - 1
    return max(a.ndim, b.ndim)


class Ops(OperandChecks):
    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise UnsupportedError(
            f"fd.ops.{name} is not supported by hfuse; see the table of ops in hfuse/ir.py for what is"
        )

    def _elementwise(self, op: Op, operands: tuple[Any, ...]):
        values = [self._value(x, op.frontend_name, f"operand {i}") for i, x in enumerate(operands)]
        ranks = [v.ndim for v in values if isinstance(v, Tensor)]
        return self._call(op, values, {}, [max(ranks) if ranks else None])

    # elementwise: the unary and binary ops are generated below the class
    def where(self, cond, a, b):
        return self._elementwise(Op.WHERE, (cond, a, b))

    def lerp(self, start, end, weight):
        return self._elementwise(Op.LERP, (start, end, weight))

    def clamp(self, x, min, max):  # noqa: A002 (nvFuser's argument names)
        return self._elementwise(Op.CLAMP, (x, min, max))

    def threshold(self, x, threshold, value):
        return self._elementwise(Op.THRESHOLD, (x, threshold, value))

    def addcmul(self, x, t1, t2, value):
        return self._elementwise(Op.ADDCMUL, (x, t1, t2, value))

    def add_alpha(self, a, b, alpha):
        return self.add(a, self.mul(b, alpha))

    def sub_alpha(self, a, b, alpha):
        return self.sub(a, self.mul(b, alpha))

    def cast(self, x, dtype):
        value = self._value(x, "cast")
        rank = value.ndim if isinstance(value, Tensor) else None
        return self._call(Op.CAST, [value], {"dtype": self._dtype(dtype, "cast")}, [rank])

    # reductions, scans, sorts
    def _reduce(self, op: Op, args: tuple[Any, ...], kwargs: dict[str, Any]):
        where = op.frontend_name
        form = legacy.reduction_form(args, kwargs)
        bound = self._bind(where, form, args, kwargs, legacy.KEYWORD_RENAMES["reduction"])
        x = self._tensor(bound["x"], where)
        dims = () if bound.get("dims") is None else self._ints(bound["dims"], where, "dims")
        keepdim = self._bool(bound.get("keepdim", False), where, "keepdim")
        attrs = {"dims": dims, "keepdim": keepdim, "dtype": self._dtype(bound["dtype"], where)}
        return self._call(op, [x], attrs, [_reduced_rank(x, dims, keepdim)])

    def sum(self, *args, **kwargs):
        return self._reduce(Op.SUM, args, kwargs)

    def max(self, *args, **kwargs):
        return self._reduce(Op.MAX, args, kwargs)

    def min(self, *args, **kwargs):
        return self._reduce(Op.MIN, args, kwargs)

    def prod(self, *args, **kwargs):
        return self._reduce(Op.PROD, args, kwargs)

    def _variance(self, op: Op, args, kwargs):
        where = op.frontend_name

        def template(x, dims=None, correction=1, keepdim=False):
            """op(x, dims, correction=1, keepdim=False)"""

        bound = self._bind(where, template, args, kwargs, legacy.KEYWORD_RENAMES["reduction"])
        x = self._tensor(bound["x"], where)
        dims = () if bound["dims"] is None else self._ints(bound["dims"], where, "dims")
        keepdim = self._bool(bound["keepdim"], where, "keepdim")
        correction = self._int(bound["correction"], where, "correction")
        rank = _reduced_rank(x, dims, keepdim)
        ranks = [rank, rank] if op is Op.VAR_MEAN else [rank]
        return self._call(op, [x], {"dims": dims, "correction": correction, "keepdim": keepdim}, ranks)

    def var(self, *args, **kwargs):
        return self._variance(Op.VAR, args, kwargs)

    def var_mean(self, *args, **kwargs):
        return self._variance(Op.VAR_MEAN, args, kwargs)

    def welford(self, *args, **kwargs):
        def template(x, dims=None):
            """welford(x, dims)"""

        bound = self._bind("welford", template, args, kwargs, legacy.KEYWORD_RENAMES["reduction"])
        x = self._tensor(bound["x"], "welford")
        dims = () if bound["dims"] is None else self._ints(bound["dims"], "welford", "dims")
        rank = _reduced_rank(x, dims, keepdim=False)
        return self._call(Op.WELFORD, [x], {"dims": dims}, [rank, rank, rank])

    def cumsum(self, x, dim):
        return self._scan(Op.CUMSUM, x, dim)

    def cumprod(self, x, dim):
        return self._scan(Op.CUMPROD, x, dim)

    def cummax(self, x, dim):
        return self._scan(Op.CUMMAX, x, dim)

    def cummin(self, x, dim):
        return self._scan(Op.CUMMIN, x, dim)

    def _scan(self, op, x, dim):
        x = self._tensor(x, op.frontend_name)
        return self._call(op, [x], {"dim": self._dim(dim, op.frontend_name)}, [x.ndim])

    def argsort(self, x, dim, descending=False, stable=False):
        x = self._tensor(x, "argsort")
        attrs = {
            "dim": self._dim(dim, "argsort"),
            "descending": self._bool(descending, "argsort", "descending"),
            "stable": self._bool(stable, "argsort", "stable"),
        }
        return self._call(Op.ARGSORT, [x], attrs, [x.ndim])

    def topk(self, x, k, dim=-1, largest=True, sorted=False):  # noqa: A002 (nvFuser's argument name)
        x = self._tensor(x, "topk")
        attrs = {
            "k": self._int(k, "topk", "k"),
            "dim": self._dim(dim, "topk"),
            "largest": self._bool(largest, "topk", "largest"),
            "sorted": self._bool(sorted, "topk", "sorted"),
        }
        return self._call(Op.TOPK, [x], attrs, [x.ndim, x.ndim])

    # shape and layout
    def broadcast_in_dim(self, *args, **kwargs):
        def template(x, shape, broadcast_dims):
            """broadcast_in_dim(x, shape, broadcast_dims)"""

        bound = self._bind(
            "broadcast_in_dim", template, args, kwargs, legacy.KEYWORD_RENAMES["broadcast_in_dim"]
        )
        x = self._tensor(bound["x"], "broadcast_in_dim")
        shape = self._extents(bound["shape"], "broadcast_in_dim", "shape")
        dims = self._ints(bound["broadcast_dims"], "broadcast_in_dim", "broadcast_dims")
        return self._call(Op.BROADCAST_IN_DIM, [x], {"shape": shape, "broadcast_dims": dims}, [len(shape)])

    def broadcast(self, x, is_broadcast_dim):
        x = self._tensor(x, "broadcast")
        flags = self._bools(is_broadcast_dim, "broadcast", "is_broadcast_dim")
        return self._call(Op.BROADCAST, [x], {"is_broadcast_dim": flags}, [len(flags)])

    def expand(self, x, shape):
        x = self._tensor(x, "expand")
        shape = self._extents(shape, "expand", "shape")
        return self._call(Op.EXPAND, [x], {"shape": shape}, [len(shape)])

    def reshape(self, *args, **kwargs):
        bound = self._bind("reshape", legacy.reshape_form(args, kwargs), args, kwargs)
        return self._reshape("reshape", bound)

    def view(self, *args, **kwargs):
        """The 2022 name of reshape: view(x, original_shape, new_shape)."""
        bound = self._bind("view", legacy.reshape_form(args, kwargs), args, kwargs)
        return self._reshape("view", bound)

    def _reshape(self, where: str, bound: dict[str, Any]):
        x = self._tensor(bound["x"], where)
        if "original_shape" in bound:
            self._check_original_shape(x, bound["original_shape"], where)
        new_shape = self._extents(bound["new_shape"], where, "new_shape")
        return self._call(Op.RESHAPE, [x], {"new_shape": new_shape}, [len(new_shape)])

    def _check_original_shape(self, x: Tensor, original_shape: Any, where: str) -> None:
        original = self._extents(original_shape, where, "original_shape")
        if len(original) != x.ndim:
            raise self._fail(
                where,
                f"original_shape {list(original)} has {len(original)} entries but {x.name} has rank {x.ndim}",
            )

    def permute(self, x, dims):
        x = self._tensor(x, "permute")
        return self._call(Op.PERMUTE, [x], {"dims": self._ints(dims, "permute", "dims")}, [x.ndim])

    def squeeze(self, *args, **kwargs):
        bound = self._bind("squeeze", legacy.squeeze_form(args, kwargs), args, kwargs)
        x = self._tensor(bound["x"], "squeeze")
        if "original_shape" in bound:
            self._check_original_shape(x, bound["original_shape"], "squeeze")
        dims = self._ints(bound["dims"], "squeeze", "dims")
        self._bool(bound["squeeze_expanded"], "squeeze", "squeeze_expanded")
        return self._call(Op.SQUEEZE, [x], {"dims": dims}, [x.ndim - len(set(dims))])

    def stride_order(self, x, stride_order):
        x = self._tensor(x, "stride_order")
        order = self._ints(stride_order, "stride_order", "stride_order")
        return self._call(Op.STRIDE_ORDER, [x], {"stride_order": order}, [x.ndim])

    def slice(self, x, start_indices, end_indices, strides=None, manual_normalization=False):
        x = self._tensor(x, "slice")
        self._bool(manual_normalization, "slice", "manual_normalization")
        starts = self._extents(start_indices, "slice", "start_indices")
        ends = self._extents(end_indices, "slice", "end_indices")
        steps = (1,) * len(starts) if strides is None else self._extents(strides, "slice", "strides")
        return self._call(Op.SLICE, [x], {"starts": starts, "ends": ends, "strides": steps}, [x.ndim])

    def pad(self, x, pad_widths, value=None):
        x = self._tensor(x, "pad")
        widths = self._extents(pad_widths, "pad", "pad_widths")
        fill = self._fd._constant(0, None, like=x) if value is None else self._scalar(value, "pad", "value")
        return self._call(Op.PAD, [x, fill], {"pad_widths": widths}, [x.ndim])

    def cat(self, tensors, dim=0, manual_padding=False):
        if not isinstance(tensors, list | tuple) or not tensors:
            raise self._fail("cat", f"tensors must be a non-empty list of Tensors, got {describe(tensors)}")
        values = [self._tensor(t, "cat", f"tensors[{i}]") for i, t in enumerate(tensors)]
        if self._bool(manual_padding, "cat", "manual_padding"):
            raise UnsupportedError(
                "fd.ops.cat: manual_padding=True (inputs already padded) is not supported; "
                "pass the unpadded tensors with manual_padding=False"
            )
        return self._call(Op.CAT, values, {"dim": self._dim(dim, "cat")}, [values[0].ndim])

    def triu(self, x, diagonal=0):
        x = self._tensor(x, "triu")
        return self._call(Op.TRIU, [x], {"diagonal": self._int(diagonal, "triu", "diagonal")}, [x.ndim])

    # extents as scalars
    def size(self, x, dim):
        x = self._tensor(x, "size")
        dim = self._dim(dim, "size")
        if not -x.ndim <= dim < x.ndim:
            raise self._fail("size", f"dim {dim} is out of range for {x.name} of rank {x.ndim}")
        return self._fd._extent(x, dim % x.ndim)

    def shape(self, x):
        x = self._tensor(x, "shape")
        return self._fd._vector(tuple(self._fd._extent(x, d) for d in range(x.ndim)))

    def tensor_sizes(self, x):
        x = self._tensor(x, "tensor_sizes")
        return [self._fd._extent(x, d) for d in range(x.ndim)]

    def at(self, vector, index):
        if not isinstance(vector, Vector):
            raise self._fail("at", f"the first argument must be a Vector, got {describe(vector)}")
        if not legacy.is_int(index) or not -len(vector) <= index < len(vector):
            raise self._fail("at", f"index {index!r} is out of range for a Vector of size {len(vector)}")
        entry = vector.entries[index]
        return entry if isinstance(entry, Scalar) else self._fd._constant(entry, DataType.Int)

    # creation
    def full(self, *args, **kwargs):
        def template(shape, fill_value, dtype):
            """full(shape, fill_value, dtype)"""

        bound = self._bind("full", template, args, kwargs, legacy.KEYWORD_RENAMES["full"])
        shape = self._extents(bound["shape"], "full", "shape")
        fill = self._scalar(bound["fill_value"], "full", "fill_value")
        attrs = {"shape": shape, "dtype": self._dtype(bound["dtype"], "full")}
        return self._call(Op.FULL, [fill], attrs, [len(shape)])

    def iota(self, length, start=None, step=None, dtype=DataType.Int):
        dtype = self._dtype(dtype, "iota")
        start = self._scalar(0 if start is None else start, "iota", "start", dtype if start is None else None)
        step = self._scalar(1 if step is None else step, "iota", "step", dtype if step is None else None)
        attrs = {"length": self._int(length, "iota", "length"), "dtype": dtype}
        return self._call(Op.IOTA, [start, step], attrs, [1])

    # random: Philox streams (hfuse/ops/philox.py); rand_like and randn_like are uniform(0, 1) and
    # normal(0, 1) of their operand's shape and dtype, as nvFuser prints them
    def uniform(self, *args, **kwargs):
        return self._distribution(Op.UNIFORM, legacy.uniform_form, args, kwargs)

    def normal(self, *args, **kwargs):
        return self._distribution(Op.NORMAL, legacy.normal_form, args, kwargs)

    def rand_like(self, *args, **kwargs):
        return self._random_like(Op.UNIFORM, "rand_like", args, kwargs)

    def randn_like(self, *args, **kwargs):
        return self._random_like(Op.NORMAL, "randn_like", args, kwargs)

    def _distribution(self, op: Op, template, args, kwargs):
        where = op.frontend_name
        bound = self._bind(where, template, args, kwargs)
        first, second = list(bound)[:2]
        parameters = [self._scalar(bound[name], where, name) for name in (first, second)]
        shape = self._extents(bound["shape"], where, "shape")
        stream = self._stream(where, bound["rng_seed"], bound["rng_offset"])
        attrs = {"shape": shape, "dtype": self._dtype(bound["dtype"], where)}
        return self._call(op, [*parameters, *stream], attrs, [len(shape)])

    def _random_like(self, op: Op, where: str, args, kwargs):
        bound = self._bind(where, legacy.random_like_form, args, kwargs)
        x = self._tensor(bound["arg"], where)
        parameters = [self._fd._constant(value, DataType.Double) for value in (0.0, 1.0)]
        stream = self._stream(where, bound["rng_seed"], bound["rng_offset"])
        attrs = {"shape": Like(x, "shape"), "dtype": Like(x, "dtype")}
        return self._call(op, [*parameters, *stream], attrs, [x.ndim])

    def _stream(self, where: str, rng_seed: Any, rng_offset: Any) -> tuple[Scalar, Scalar]:
        """The (seed, offset) of a random op: both given, or neither (the definition's drawn seed then)."""
        if (rng_seed is None) != (rng_offset is None):
            raise self._fail(where, "rng_seed and rng_offset must be given together, or neither")
        if rng_seed is None:
            return self._fd._unseeded_stream()
        return (
            self._scalar(rng_seed, where, "rng_seed", DataType.Int),
            self._scalar(rng_offset, where, "rng_offset", DataType.Int),
        )

    # indexing
    def _indexed(self, op: Op, x, index, dim, rank_of_index: bool = False):
        where = op.frontend_name
        x = self._tensor(x, where)
        index = self._tensor(index, where, "index")
        rank = index.ndim if rank_of_index else x.ndim
        return self._call(op, [x, index], {"dim": self._dim(dim, where)}, [rank])

    def index_select(self, x, index, dim):
        return self._indexed(Op.INDEX_SELECT, x, index, dim)

    def gather(self, x, index, dim):
        return self._indexed(Op.GATHER, x, index, dim, rank_of_index=True)

    def take_along_axis(self, x, index, dim):
        return self._indexed(Op.TAKE_ALONG_AXIS, x, index, dim, rank_of_index=True)

    def select(self, x, index, dim):
        x = self._tensor(x, "select")
        index = self._scalar(index, "select", "index")
        return self._call(Op.SELECT, [x, index], {"dim": self._dim(dim, "select")}, [x.ndim - 1])

    def scatter(self, x, index, src, dim):
        x = self._tensor(x, "scatter")
        index = self._tensor(index, "scatter", "index")
        src = self._value(src, "scatter", "src")
        return self._call(Op.SCATTER, [x, index, src], {"dim": self._dim(dim, "scatter")}, [x.ndim])

    def index_put_accumulate(self, acc, index, value):
        acc = self._tensor(acc, "index_put_accumulate", "acc")
        index = self._tensor(index, "index_put_accumulate", "index")
        value = self._tensor(value, "index_put_accumulate", "value")
        return self._call(Op.INDEX_PUT_ACCUMULATE, [acc, index, value], {}, [acc.ndim])

    def embedding_fwd(
        self,
        input,
        weight,
        padding_idx=None,
        max_norm=None,
        norm_type=None,  # noqa: A002
        scale_grad_by_freq=None,
        sparse=None,
    ):
        """Every optional argument may be None, as nvFuser's are: not given."""
        indices = self._tensor(input, "embedding_fwd", "input")
        weight = self._tensor(weight, "embedding_fwd", "weight")
        attrs = {
            "padding_idx": padding_idx,
            "max_norm": max_norm,
            "norm_type": 2.0 if norm_type is None else norm_type,
            "scale_grad_by_freq": False if scale_grad_by_freq is None else scale_grad_by_freq,
            "sparse": False if sparse is None else sparse,
        }
        for name, value in attrs.items():
            if value is not None and not isinstance(value, (*NUMBER_TYPES, Scalar)):
                raise self._fail(
                    "embedding_fwd", f"{name} must be a number, a Scalar or None, got {describe(value)}"
                )
        return self._call(Op.EMBEDDING_FWD, [indices, weight], attrs, [indices.ndim + 1])

    # matmul-class
    def matmul(self, a, b):
        a = self._tensor(a, "matmul", "the first operand")
        b = self._tensor(b, "matmul", "the second operand")
        return self._call(Op.MATMUL, [a, b], {}, [_matmul_rank(a, b)])

    def linear(self, a, b, bias=None):
        a = self._tensor(a, "linear", "input")
        b = self._tensor(b, "linear", "weight")
        operands = [a, b] if bias is None else [a, b, self._value(bias, "linear", "bias")]
        return self._call(Op.LINEAR, operands, {}, [a.ndim - (1 if b.ndim == 1 else 0)])

    # attention: nvFuser's flash-attention ops, which torch runs (hfuse/ops/attention.py)
    def sdpfa_fwd(self, *args, **kwargs):
        """sdpfa_fwd(query, key, value, bias=None, mask=None, dropout_p=None, is_causal=None, scale=None)
        -> (output, logsumexp, philox_seed, philox_offset); before nvfuser_direct, without bias and mask."""
        bound = self._bind("sdpfa_fwd", legacy.sdpfa_fwd_form(args, kwargs), args, kwargs)
        tensors = [self._tensor(bound[name], "sdpfa_fwd", name) for name in ("query", "key", "value")]
        optional = [name for name in ("bias", "mask") if bound.get(name) is not None]
        tensors += [self._tensor(bound[name], "sdpfa_fwd", name) for name in optional]
        attrs = {f"has_{name}": name in optional for name in ("bias", "mask")}
        attrs["has_scale"] = bound["scale"] is not None
        operands = [*tensors, *self._attention_scalars("sdpfa_fwd", bound)]
        rank = tensors[0].ndim
        return self._call(Op.SDPFA_FWD, operands, attrs, [rank, max(rank - 1, 0), 0, 0])

    def sdpfa_bwd(self, *args, **kwargs):
        """sdpfa_bwd(grad_output, query, key, value, output, logsumexp, dropout_p, is_causal, philox_seed,
        philox_offset, scale) -> (grad_query, grad_key, grad_value); log_sumexp= is the old keyword."""
        where = "sdpfa_bwd"
        bound = self._bind(where, legacy.sdpfa_bwd_form, args, kwargs, legacy.KEYWORD_RENAMES[where])
        names = ("grad_output", "query", "key", "value", "output", "logsumexp")
        tensors = [self._tensor(bound[name], where, name) for name in names]
        dropout_p, is_causal, *scale = self._attention_scalars(where, bound)
        state = [self._tensor(bound[name], where, name) for name in ("philox_seed", "philox_offset")]
        operands = [*tensors, dropout_p, is_causal, *state, *scale]
        ranks = [tensors[1].ndim, tensors[2].ndim, tensors[3].ndim]
        return self._call(Op.SDPFA_BWD, operands, {"has_scale": bound["scale"] is not None}, ranks)

    def _attention_scalars(self, where: str, bound: dict[str, Any]) -> list[Scalar]:
        """dropout_p (0.0 when None) and is_causal (False when None), then scale where it is given."""
        dropout_p = 0.0 if bound["dropout_p"] is None else bound["dropout_p"]
        is_causal = False if bound["is_causal"] is None else bound["is_causal"]
        if not isinstance(is_causal, Scalar):
            is_causal = self._bool(is_causal, where, "is_causal")
        scalars = [
            self._scalar(dropout_p, where, "dropout_p", DataType.Double),
            self._scalar(is_causal, where, "is_causal", DataType.Bool),
        ]
        if bound["scale"] is not None:
            scalars.append(self._scalar(bound["scale"], where, "scale", DataType.Double))
        return scalars


def _unary_method(op: Op):
    def method(self: Ops, x):
        return self._elementwise(op, (x,))

    method.__name__ = method.__qualname__ = op.frontend_name
    method.__doc__ = f"{op.frontend_name}(x)"
    return method


def _binary_method(op: Op):
    def method(self: Ops, a, b):
        return self._elementwise(op, (a, b))

    method.__name__ = method.__qualname__ = op.frontend_name
    method.__doc__ = f"{op.frontend_name}(a, b)"
    return method


for _op in Op:
    if _op.family is Family.UNARY:
        setattr(Ops, _op.frontend_name, _unary_method(_op))
    elif _op.family is Family.BINARY:
        setattr(Ops, _op.frontend_name, _binary_method(_op))
