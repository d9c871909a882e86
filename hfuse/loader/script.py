"""`hfuse.load`: reads a fusion-definition script without running it.

The text is checked against the size limits, parsed with `ast`, and only the fusion-definition
subset is interpreted: imports of nvfuser / nvfuser_direct / hfuse / torch, the definition
(a `with FusionDefinition() as fd:` block, a `def f(fd)` it calls, or a `FusionDefinition`
subclass with `definition(self)`), and the `inputs = [...]` list of torch constructors.
Statements run in two passes: top-level assignments first (so `fd.from_pytorch(inputs[0])`
finds the inputs wherever the list is written), then the definition. Nothing is executed,
evaluated or imported; anything outside the subset is a located ParseError.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

import torch

from hfuse import settings
from hfuse.errors import DefinitionError, LimitError, Loc, ParseError, UnsupportedError
from hfuse.frontend import FusionDefinition
from hfuse.ir import Fusion
from hfuse.loader.fd import (
    DataTypeNamespace,
    DefinitionModule,
    Fd,
    FusionDefinitionClass,
    LegacyFusion,
    LegacyFusionClass,
)
from hfuse.loader.inputs import (
    TorchNamespace,
    check_total_bytes,
    is_input_list,
    materialize,
    meta_twins,
    random_inputs,
)
from hfuse.loader.interpreter import MISSING, CallSite, Evaluator, Interpreted, builtin_names
from hfuse.loader.limits import check_text, check_tree_depth
from hfuse.loader.source import (
    SUPPORTED,
    Source,
    dotted_name,
    is_docstring,
    is_none,
    is_print,
    position,
    run_call_of,
)

DEFINITION_MODULES = frozenset({"nvfuser", "nvfuser_direct", "hfuse", "torch._C._nvfuser"})

_UNSUPPORTED_STATEMENTS = {
    ast.For: "for loops",
    ast.AsyncFor: "for loops",
    ast.While: "while loops",
    ast.If: "if statements",
    ast.Try: "try blocks",
    ast.Raise: "raise statements",
    ast.Assert: "assert statements",
    ast.Delete: "del statements",
    ast.Global: "global statements",
    ast.Nonlocal: "nonlocal statements",
    ast.AugAssign: "augmented assignments (+= and friends)",
    ast.AnnAssign: "annotated assignments",
    ast.Import: "imports inside a definition",
    ast.ImportFrom: "imports inside a definition",
    ast.FunctionDef: "nested functions",
    ast.AsyncFunctionDef: "async functions",
    ast.ClassDef: "nested classes",
    ast.With: "nested with blocks",
    ast.AsyncWith: "async with blocks",
    ast.Return: "return statements with a value",
    ast.Break: "break statements",
    ast.Continue: "continue statements",
}


@dataclass(frozen=True, slots=True)
class Script:
    """A loaded script: its text, the definition it records, its inputs (on the chosen device), the Fusion."""

    text: str
    fd: FusionDefinition
    inputs: list[Any]
    fusion: Fusion


def default_device() -> str:
    return "cuda" if torch.cuda.is_available() else "cpu"


def load(text: str, device: str | torch.device | None = None) -> Script:
    """Reads a fusion-definition script; the script's 'cuda' / 'cuda:N' tensors are made on `device`.

    `device="meta"` builds the Fusion from shapes alone: no input holds data.
    """
    if not isinstance(text, str):
        raise ParseError(f"a script is text, not {type(text).__name__}", loc=Loc(1, 1))
    target = _target_device(device)
    source = Source.of(text)
    check_text(source)
    tree = _parse(source)
    check_tree_depth(source, tree)
    reader = _ScriptReader(source)
    try:
        fd, inputs = reader.read(tree)
    except RecursionError:
        raise LimitError(
            f"the script nests too deeply to read; simplify it or lower {settings.MAX_NESTING.env}"
        ) from None
    # Errors of binding without a place of their own concern the inputs list, or else the definition.
    fallback = position(reader.inputs_node or reader.definition_node)
    try:
        if inputs is None:
            fusion = fd.fusion()
            real_inputs = random_inputs(fusion, target)
        else:
            fd.fusion(meta_twins(inputs))  # a dry build: every definition and size error before allocating
            real_inputs = fd.complete_inputs(materialize(inputs, target))  # with a drawn seed
            fusion = fd.fusion(real_inputs)
    except (DefinitionError, LimitError) as err:
        raise source.placed(err, fallback) from None
    return Script(text, fd, real_inputs, fusion)


def _target_device(device: str | torch.device | None) -> torch.device:
    try:
        target = torch.device(device if device is not None else default_device())
    except (RuntimeError, TypeError):
        raise UnsupportedError(f"load(device={device!r}): not a torch device; use 'cpu' or 'cuda'") from None
    if target.type == "cuda" and not torch.cuda.is_available():
        raise UnsupportedError(f"load(device={device!r}): no CUDA device here; load with device='cpu'")
    if target.type not in ("cpu", "cuda", "meta"):
        raise UnsupportedError(
            f"load(device={device!r}): hfuse runs on 'cpu' or 'cuda' ('meta' reads shapes without data)"
        )
    return target


def _parse(source: Source) -> ast.Module:
    try:
        return ast.parse(source.text)
    except SyntaxError as err:
        line, col = err.lineno or 1, err.offset or 1
        raise source.parse_error((line, col), f"the script is not valid Python: {err.msg}") from None
    except (RecursionError, MemoryError):
        raise LimitError(
            f"the script nests too deeply for the parser; simplify it or lower {settings.MAX_NESTING.env}"
        ) from None


class _UserFunction(Interpreted):
    """`def nvfuser_fusion_id0(fd): ...`: its body runs once, when the definition calls it."""

    def __init__(self, reader: _ScriptReader, node: ast.FunctionDef):
        self.reader = reader
        self.node = node
        self.label = f"the function {node.name}"
        self.called = False

    def call(self, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> None:
        if kwargs or len(args) != 1 or not isinstance(args[0], Fd):
            raise site.error(f"{self.node.name} takes the FusionDefinition, as in {self.node.name}(fd)")
        if self.called:
            raise site.error(f"{self.node.name} is called twice; a script defines one fusion")
        self.called = True
        self.reader.run_function(self.node, args[0])


class _UserClass(Interpreted):
    """`class MyFusion(FusionDefinition)` with a `definition(self)` method."""

    def __init__(self, node: ast.ClassDef, definition: ast.FunctionDef):
        self.node = node
        self.definition = definition
        self.label = f"the class {node.name}"


class _ScriptReader:
    def __init__(self, source: Source):
        self.source = source
        self.names: dict[str, Any] = {
            **builtin_names(),
            "torch": TorchNamespace(),
            "FusionDefinition": FusionDefinitionClass(),
            "DataType": DataTypeNamespace(),
        }
        self.evaluator = Evaluator(source, self.names, self.count_op)
        self.fd: FusionDefinition | None = None
        self.recorded_ops = 0
        self.run_call: ast.Call | None = None
        self.inputs_node: ast.AST | None = None  # the inputs list, where the script gives one
        self.definition_node: ast.AST = ast.Pass(lineno=1, col_offset=0)

    def error(self, node: ast.AST, message: str) -> ParseError:
        return self.source.parse_error(node, message)

    # top level: pass 1 reads everything but the definition, pass 2 runs the definition
    def read(self, tree: ast.Module) -> tuple[FusionDefinition, list[Any] | None]:
        definitions = [stmt for stmt in tree.body if self._read_top_level(stmt)]
        if len(definitions) > 1:
            raise self.error(definitions[1], "a script holds one fusion definition; this is a second one")
        if definitions:
            self.definition_node = definitions[0]
            self._run_definition(definitions[0])
        else:
            self._run_lone_function(tree)
        assert self.fd is not None
        if not self.fd.outputs():
            raise DefinitionError(
                "the definition has no outputs; add one with fd.add_output(tensor)",
                loc=self.source.loc(self.definition_node),
            )
        return self.fd, self._inputs()

    def _read_top_level(self, stmt: ast.stmt) -> bool:
        """Handles one top-level statement; True if it is the definition (run in pass 2)."""
        if is_docstring(stmt) or isinstance(stmt, ast.Pass):
            return False
        if isinstance(stmt, ast.Import | ast.ImportFrom):
            self._import(stmt)
        elif isinstance(stmt, ast.FunctionDef):
            self._check_function(stmt)
            self.names[stmt.name] = _UserFunction(self, stmt)
        elif isinstance(stmt, ast.ClassDef):
            self.names[stmt.name] = self._read_class(stmt)
        elif isinstance(stmt, ast.With):
            return True
        elif run_call_of(stmt) is not None:
            self.run_call = run_call_of(stmt)
        elif is_print(stmt):
            return False
        elif isinstance(stmt, ast.Assign):
            if isinstance(stmt.value, ast.Call) and isinstance(self._callee(stmt.value), _UserClass):
                return True
            self._assign(stmt, self.names)
            if any(isinstance(t, ast.Name) and t.id == "inputs" for t in stmt.targets):
                self.inputs_node = stmt
                if is_input_list(self.names["inputs"]):
                    check_total_bytes(CallSite(self.source, stmt), self.names["inputs"])
        elif isinstance(stmt, ast.Expr):
            raise self._top_level_expression(stmt.value)
        else:
            raise self._unsupported_statement(stmt)
        return False

    def _top_level_expression(self, node: ast.expr) -> ParseError:
        if not isinstance(node, ast.Call):
            return self.error(
                node, f"expressions on their own do nothing in a fusion definition; {SUPPORTED}"
            )
        callee = dotted_name(node.func)
        root = callee.split(".")[0]
        if root in ("fd", "self") or isinstance(self.names.get(root), Fd):
            return self.error(
                node, "fusion ops belong inside the definition: `with FusionDefinition() as fd:`, indented"
            )
        return self.error(node, f"calls to {callee} are not part of a fusion definition; {SUPPORTED}")

    def _callee(self, call: ast.Call) -> Any:
        """What a top-level call's function names, without evaluating anything else."""
        if isinstance(call.func, ast.Name):
            return self.names.get(call.func.id, MISSING)
        return MISSING

    def _import(self, stmt: ast.Import | ast.ImportFrom) -> None:
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.name == "torch":
                    self.names[alias.asname or "torch"] = TorchNamespace()
                elif alias.name in DEFINITION_MODULES and "." not in alias.name:
                    self.names[alias.asname or alias.name] = DefinitionModule(alias.asname or alias.name)
                else:
                    raise self.error(stmt, f"importing {alias.name} is not supported; {_IMPORTS}")
            return
        if stmt.module == "__future__":
            return
        if stmt.module not in DEFINITION_MODULES or stmt.level:
            raise self.error(stmt, f"importing from {stmt.module} is not supported; {_IMPORTS}")
        known = {
            "FusionDefinition": FusionDefinitionClass(),
            "DataType": DataTypeNamespace(),
            "Fusion": LegacyFusionClass(),
        }
        for alias in stmt.names:
            if alias.name not in known:
                raise self.error(stmt, f"{stmt.module}.{alias.name} is not supported; {_IMPORTS}")
            self.names[alias.asname or alias.name] = known[alias.name]

    def _check_function(self, node: ast.FunctionDef) -> None:
        if node.decorator_list:
            raise self.error(node.decorator_list[0], "decorators are not part of a fusion definition")
        params = node.args
        extra = params.posonlyargs or params.vararg or params.kwonlyargs or params.kwarg or params.defaults
        if extra or len(params.args) != 1:
            raise self.error(
                node,
                f"{node.name} must take exactly one parameter, the FusionDefinition: def {node.name}(fd):",
            )

    def _read_class(self, node: ast.ClassDef) -> _UserClass:
        if node.decorator_list:
            raise self.error(node.decorator_list[0], "decorators are not part of a fusion definition")
        bases = [self.evaluator.value_of(base) for base in node.bases]
        if node.keywords or len(bases) != 1 or not isinstance(bases[0], FusionDefinitionClass):
            raise self.error(node, f"class {node.name} must derive from FusionDefinition only")
        methods = {}
        for stmt in node.body:
            if is_docstring(stmt) or isinstance(stmt, ast.Pass):
                continue
            if not isinstance(stmt, ast.FunctionDef) or stmt.name not in ("definition", "schedule"):
                raise self.error(stmt, f"class {node.name} may hold only definition(self) and schedule(self)")
            self._check_function(stmt)
            methods[stmt.name] = stmt
        if "definition" not in methods:
            raise self.error(node, f"class {node.name} has no definition(self) method")
        return _UserClass(node, methods["definition"])

    def _run_definition(self, stmt: ast.With | ast.Assign) -> None:
        if isinstance(stmt, ast.Assign):
            user_class = self._callee(stmt.value)
            if not isinstance(user_class, _UserClass) or stmt.value.args or stmt.value.keywords:
                raise self.error(
                    stmt, "a FusionDefinition subclass is made with no arguments: fd = MyFusion()"
                )
            if len(stmt.targets) != 1 or not isinstance(stmt.targets[0], ast.Name):
                raise self.error(stmt, "assign the definition to one name: fd = MyFusion()")
            fd = self._new_fd(stmt.targets[0].id)
            with fd.fd:
                self.run_function(user_class.definition, fd)
            return
        if len(stmt.items) != 1:
            raise self.error(stmt, "write one definition per with block: `with FusionDefinition() as fd:`")
        item = stmt.items[0]
        self._check_definition_call(item.context_expr)
        if not isinstance(item.optional_vars, ast.Name):
            raise self.error(stmt, "name the definition: `with FusionDefinition() as fd:`")
        fd = self._new_fd(item.optional_vars.id)
        with fd.fd:
            self.run_body(stmt.body, self.names, in_function=False)

    def _check_definition_call(self, node: ast.expr) -> None:
        if not isinstance(node, ast.Call) or node.keywords or len(node.args) > 1:
            raise self.error(node, "the definition starts `with FusionDefinition() as fd:`")
        if not isinstance(self.evaluator.value_of(node.func), FusionDefinitionClass):
            raise self.error(node, "the definition starts `with FusionDefinition() as fd:`")
        if node.args and not isinstance(self.evaluator.value_of(node.args[0]), LegacyFusion):
            raise self.error(
                node, "FusionDefinition takes no arguments here (or, in old scripts, a Fusion())"
            )

    def _new_fd(self, name: str) -> Fd:
        self.fd = FusionDefinition()
        handle = Fd(self.fd, self.count_op)
        self.names[name] = handle
        return handle

    def _run_lone_function(self, tree: ast.Module) -> None:
        functions = [v for v in self.names.values() if isinstance(v, _UserFunction)]
        if len(functions) != 1:
            raise self.error(
                tree.body[0] if tree.body else ast.Pass(lineno=1, col_offset=0),
                "no fusion definition found; write `with FusionDefinition() as fd:` followed by the "
                "fd.define_* / fd.ops.* / fd.add_output calls",
            )
        fd = self._new_fd("fd")
        functions[0].called = True
        self.definition_node = functions[0].node
        with fd.fd:
            self.run_function(functions[0].node, fd)

    def run_function(self, node: ast.FunctionDef, fd: Fd) -> None:
        scope = {**self.names, node.args.args[0].arg: fd}
        evaluator = self.evaluator
        self.evaluator = Evaluator(self.source, scope, self.count_op)
        try:
            self.run_body(node.body, scope, in_function=True)
        finally:
            self.evaluator = evaluator

    # inside the definition
    def run_body(self, body: list[ast.stmt], scope: dict[str, Any], in_function: bool) -> None:
        for stmt in body:
            if is_docstring(stmt) or isinstance(stmt, ast.Pass) or is_print(stmt):
                continue
            if isinstance(stmt, ast.Return) and in_function and is_none(stmt.value):
                return
            if isinstance(stmt, ast.Assign):
                self._assign(stmt, scope)
            elif isinstance(stmt, ast.Expr):
                self.evaluator.value_of(stmt.value)
            else:
                raise self._unsupported_statement(stmt)

    def _assign(self, stmt: ast.Assign, scope: dict[str, Any]) -> None:
        if len(stmt.targets) != 1:
            raise self.error(stmt, "chained assignments (a = b = ...) are not supported; assign one name")
        target = stmt.targets[0]
        value = self.evaluator.value_of(stmt.value)
        if not isinstance(target, ast.Tuple | ast.List):
            self._bind(target, value, scope)
            return
        if not isinstance(value, list | tuple) or len(value) != len(target.elts):
            count = len(value) if isinstance(value, list | tuple) else 1
            raise self.error(stmt, f"{len(target.elts)} names are assigned but the value has {count} parts")
        for name, item in zip(target.elts, value, strict=True):
            self._bind(name, item, scope)

    def _bind(self, target: ast.expr, value: Any, scope: dict[str, Any]) -> None:
        """`T1 = ...`, or `self.t1 = ...` on the definition object (the subclass style)."""
        if isinstance(target, ast.Name):
            scope[target.id] = value
            return
        owner = (
            scope.get(target.value.id)
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
            else None
        )
        if not isinstance(owner, Fd) or not owner.is_field_name(target.attr):
            raise self.error(target, "assign to a name, a tuple of names (T1, T2 = ...) or self.NAME")
        owner.fields[target.attr] = value

    def _unsupported_statement(self, stmt: ast.stmt) -> ParseError:
        what = _UNSUPPORTED_STATEMENTS.get(type(stmt), f"{type(stmt).__name__} statements")
        return self.error(stmt, f"{what} are not part of a fusion definition; {SUPPORTED}")

    def count_op(self, node: ast.AST) -> None:
        """Runs before every recorded call: refuses past HFUSE_MAX_OPS, tells the frontend the location."""
        self.recorded_ops += 1
        limit = settings.MAX_OPS.as_int()
        if self.recorded_ops > limit:
            raise self.source.limit_error(
                node, f"the definition records more than {limit} ops (set {settings.MAX_OPS.env})"
            )
        if self.fd is not None:
            self.fd._loc = position(node)

    def _inputs(self) -> list[Any] | None:
        node: ast.AST
        if self.run_call is not None:
            given = self.run_call.args[:1] or [k.value for k in self.run_call.keywords if k.arg == "inputs"]
            if not given:
                raise self.error(self.run_call, "fd.execute needs the inputs list: fd.execute(inputs)")
            node = given[0]
            value = self.evaluator.value_of(node)
        elif self.inputs_node is not None:
            node, value = self.inputs_node, self.names["inputs"]
        else:
            return None
        if not is_input_list(value):
            raise self.error(
                node, "the inputs must be a list of torch tensors and numbers, in definition order"
            )
        check_total_bytes(CallSite(self.source, node), value)
        self.inputs_node = node
        return list(value)


_IMPORTS = (
    "write `import torch` and `from nvfuser import FusionDefinition, DataType` "
    "(nvfuser_direct and hfuse work the same way)"
)
