"""Reads a script's top level: its imports, its one fusion definition, its inputs and how it runs them.

The script's top-level statements run first, in order, except the definition: a top-level
`with FusionDefinition() as fd:` block (or `fd = MyFusion()` of a subclass) binds its name at once
and records its body after the rest, so `fd.from_pytorch(inputs[0])` finds inputs written below it,
as nvFuser's repro scripts write them. A definition block inside a function or an `if` records
where it runs; one that runs more than once starts a new definition each time (`definition_runs`).
A script without a definition block (nvFuser's python_definition dumps) records its definition
function with a new `fd`.

Statements that use the definition after it is recorded (`out = fd.execute(inputs)`,
`print(fd.profile())`, checks of the outputs) are about running it: the loader takes the inputs
of the first `fd.execute` / `fd.validate` call and runs none of them. After that call, so are the
statements that compute with torch beyond the inputs' constructors (a test's eager reference). The
parts of a test that expect an error are passed over whole (`expected_failures`).
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from hfuse import settings
from hfuse.errors import DefinitionError, ParseError
from hfuse.frontend import FusionDefinition
from hfuse.frontend.handles import Handle, Scalar, Tensor
from hfuse.loader.budget import Budget
from hfuse.loader.classes import define_class
from hfuse.loader.definition_runs import DefinitionRuns, choice_error
from hfuse.loader.environment import UNREAD_MODULES, UnreadModule, sets_up_the_process
from hfuse.loader.expected_failures import expects_failure
from hfuse.loader.fd import (
    FD_METHODS,
    HANDLE_TYPES,
    LEGACY_FUSION_CLASSES,
    PYTORCH_UTILS,
    RUN_METHODS,
    DataTypeNamespace,
    DefinitionModule,
    Fd,
    FusionDefinitionClass,
    LegacyFusion,
    OpMethod,
    UserClass,
    op_names,
)
from hfuse.loader.formats import Segment, definition_functions
from hfuse.loader.functions import UserFunction
from hfuse.loader.inputs import check_total_bytes, is_input_list
from hfuse.loader.interpreter import Scope
from hfuse.loader.modules import standard_module
from hfuse.loader.nvfuser_helpers import HELPERS, VERSION_MODULE_NAMES
from hfuse.loader.pasted_test import (
    SUITE_TORCH_MODULES,
    bound_names,
    calling_it,
    parametrized_arguments,
    parametrized_note,
    pasted_test_method,
    suite_context,
)
from hfuse.loader.python_builtins import builtin_names
from hfuse.loader.source import SUPPORTED, Source, dotted_name, is_docstring, position
from hfuse.loader.statements import Interpreter, _LoopExit, _Return
from hfuse.loader.tensors import InputTensor
from hfuse.loader.torch_api import SUBMODULES, TorchNamespace
from hfuse.loader.values import MISSING, CallSite, Interpreted

DEFINITION_MODULES = frozenset({"nvfuser", "nvfuser_direct", "hfuse", "torch._C._nvfuser", "nvfuser._C"})
PYTORCH_UTILS_MODULES = frozenset({"nvfuser.pytorch_utils", "nvfuser_direct.pytorch_utils"})
VERSION_MODULE = "nvfuser.nvfuser_version"
_IMPORTS = (
    "write `import torch` and `from nvfuser import FusionDefinition, DataType` "
    "(nvfuser_direct and hfuse work the same way)"
)
_NO_DEFINITION = (
    "no fusion definition found; write `with FusionDefinition() as fd:` followed by the "
    "fd.define_* / fd.ops.* / fd.add_output calls"
)


class RunOutput(Interpreted):
    """What a statement that runs the fusion binds: never read, since the loader runs nothing."""

    label = "a result of running the fusion"


RUN_OUTPUT = RunOutput()


def is_run_value(value: Any) -> bool:
    """A value only statements about running the fusion use: the recorded definition and its results."""
    return isinstance(value, LegacyFusion | RunOutput) or (isinstance(value, Fd) and not value.recording)


class ScriptReader(Interpreter):
    def __init__(self, source: Source, budget: Budget):
        super().__init__(source, budget, self.count_op)
        self.definition_class = FusionDefinitionClass(self.new_definition)
        known = {"FusionDefinition": self.definition_class, "DataType": DataTypeNamespace()}
        # what `from nvfuser import ...` finds
        self.importable = {**known, **LEGACY_FUSION_CLASSES, **HANDLE_TYPES, **HELPERS}
        self.globals = Scope({"torch": TorchNamespace(), **known}, Scope(builtin_names(self)))
        self.fd: Fd | None = None  # the script's definition object
        self.runs = DefinitionRuns()  # the definitions a script without fixed segments starts
        self._unused: Fd | None = None  # a definition made but neither recorded nor passed over yet
        self.fixed_segments = False  # a segments dump, or a script of several top-level blocks
        self.holder: LegacyFusion | None = None  # the Fusion() an old script's definition is made for
        self.value_names: dict[str, str] = {}  # a fusion value -> the script's variable holding it
        self._naming_depth: dict[str, int] = {}  # the call depth at which each value was named
        self.definition_node: ast.AST = ast.Pass(lineno=1, col_offset=0)
        self.lone_function: ast.FunctionDef | None = None  # the definition function run without a block
        self.recorded_ops = 0
        self.run_inputs: tuple[ast.AST, Any] | None = None  # what the first fd.execute(...) passes
        self.pasted_test: ast.FunctionDef | None = None  # the test method called, for a pasted one
        self.expected_failures: list[ast.stmt] = []  # the parts of a test expecting an error, passed over
        self.notes: list[str] = []  # what the reader chose for the script, for Script.note
        self.has_run = False  # whether a run call of any of the script's definitions was passed over
        self.inputs_node: ast.AST | None = None  # the last top-level assignment of `inputs`
        self.deferred: list[Callable[[], None]] = []
        self.blocks_record_at_once = False  # a script of several definition blocks
        self.reading_top_level = False
        self._read_names: dict[int, tuple[frozenset[str], list[ast.AST]]] = {}

    # the whole script
    def read(
        self, tree: ast.Module, segments: list[Segment], chosen: Segment | None, run: int = 0
    ) -> tuple[FusionDefinition, list[Any] | None]:
        """Runs the script (of a segments dump, the chosen segment's statements and the shared ones;
        of a script whose definitions start as it runs, the `run`-th is recorded)."""
        skipped = {id(s) for segment in segments if segment is not chosen for s in segment.statements}
        self.fixed_segments = bool(segments)
        self.runs.chosen = run
        self.reading_top_level = True
        self.marked_test = pasted_test_method(tree)
        self.blocks_record_at_once = bool(segments) and isinstance(segments[0].definition, ast.With)
        for statement in tree.body:
            if id(statement) not in skipped:
                self._run_top_level(statement)
            elif isinstance(statement, ast.With):
                self._bind_skipped_block(statement)
        self.reading_top_level = False
        self._record_deferred()
        if self.fd is None and not self.runs.labels and not self.fixed_segments:
            self._run_pasted_test()
        if self.expected_failures:
            self._note_expected_failures()
        if self.fd is None and self.runs.labels:
            raise choice_error(run, len(self.runs.labels))
        if self.fd is None:
            self._record_lone_function(tree, chosen)
        assert self.fd is not None
        if not self.fd.fd.outputs():
            raise DefinitionError(
                "the definition has no outputs; add one with fd.add_output(tensor)",
                loc=self.source.loc(self.definition_node),
            )
        return self.fd.fd, self._inputs()

    def _note_expected_failures(self) -> None:
        """Names the passed-over parts of a test that expect an error; refuses a test that has only those."""
        if self.fd is None and not self.runs.labels and self.pasted_test is not None:
            raise self.error(
                self.expected_failures[0],
                "the test defines its fusions only in parts that expect an error (pytest.raises, "
                "assertRaises), which are passed over: nothing in them is read; paste a test that runs one",
            )
        lines = [str(s.lineno) for s in self.expected_failures]
        where = f"lines {', '.join(lines[:-1])} and {lines[-1]}" if len(lines) > 1 else f"line {lines[0]}"
        self.notes.append(f"the parts of the test that expect an error ({where}) are not read")

    def _run_pasted_test(self) -> None:
        """A test method of nvFuser's suite, called with a stand-in test case (see pasted_test)."""
        method = self.marked_test
        if method is None:
            return
        self.current = self.pasted_test = method
        for statement in suite_context(method):  # what the script does not bind itself
            if all(self.globals.lookup(name) is MISSING for name in bound_names(statement)):
                self.run_statement(statement, self.globals)
        for name, module in SUITE_TORCH_MODULES.items():
            if self.globals.lookup(name) is MISSING:
                self.globals.names[name] = TorchNamespace(module)
        parameters = parametrized_arguments(method) or []
        if parameters:
            self.notes.append(parametrized_note(method, parameters))
        self.run_statement(calling_it(method, parameters), self.globals)
        self._record_deferred()

    def _record_deferred(self) -> None:
        while self.deferred:
            self.deferred.pop(0)()

    def _bind_skipped_block(self, statement: ast.With) -> None:
        """The name of another definition's block is bound to what statements about running use, so they
        are passed over like the rest of that definition's."""
        for item in statement.items:
            if isinstance(item.optional_vars, ast.Name):
                self.globals.names[item.optional_vars.id] = RUN_OUTPUT
        self.skips = self._skips_run_statement

    def _run_top_level(self, statement: ast.stmt) -> None:
        self.current = statement
        if self._passes_over(statement, self.globals):
            return
        try:
            if isinstance(statement, ast.With):
                fd = self._open_definition(statement, self.globals)
                if self.runs.passes_over(fd):
                    return
                self.deferred.append(lambda: self._record_top_level_block(fd, statement))
                if self.blocks_record_at_once:  # one of several: it sees the names as bound where it is
                    self._record_deferred()
            elif isinstance(statement, ast.Expr) and not is_docstring(statement):
                self._run_top_level_expression(statement)
            else:
                self.run_statement(statement, self.globals)
        except _Return as signal:
            raise self.error(signal.node, "return is written outside a function") from None
        except _LoopExit as signal:
            raise self.stray(signal) from None

    def _run_top_level_expression(self, statement: ast.Expr) -> None:
        node = statement.value
        if not isinstance(node, ast.Call):
            raise self.error(node, f"expressions on their own do nothing in a fusion definition; {SUPPORTED}")
        callee = dotted_name(node.func)
        if callee.split(".")[0] in ("fd", "self") and self.globals.lookup(callee.split(".")[0]) is MISSING:
            raise self.error(
                node, "fusion ops belong inside the definition: `with FusionDefinition() as fd:`, indented"
            )
        if "(...)" not in callee and not self._uses_run_value(statement, self.globals):
            try:
                self.value_of(node.func, self.globals)
            except ParseError:
                raise self.error(
                    node, f"calls to {callee} are not part of a fusion definition; {SUPPORTED}"
                ) from None
        self.run_statement(statement, self.globals)

    def run_statement(self, statement: ast.stmt, scope: Scope) -> None:
        if self._passes_over(statement, scope):
            return
        super().run_statement(statement, scope)

    def _passes_over(self, statement: ast.stmt, scope: Scope) -> bool:
        """Takes a step for a statement that only sets up the process or expects an error, and no more."""
        expected_failure = expects_failure(statement, scope.lookup)
        if not (expected_failure or sets_up_the_process(statement, scope.lookup)):
            return False
        self.current = statement
        self.budget.charge(statement)
        if expected_failure and statement not in self.expected_failures:
            self.expected_failures.append(statement)
        return True

    # the definition
    def new_definition(self, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> Fd:
        """`FusionDefinition()` (or, in old scripts, `FusionDefinition(Fusion())`)."""
        if kwargs or len(args) > 1:
            raise site.error("the definition starts `with FusionDefinition() as fd:`")
        if args and not isinstance(args[0], LegacyFusion):
            raise site.error("FusionDefinition takes no arguments here (or, in old scripts, a Fusion())")
        fd = self._new_fd(site.node, None)
        self.holder = args[0] if args else None
        return fd

    def new_subclass_definition(self, site: CallSite, user_class: UserClass) -> Fd:
        """`fd = MyFusion()`: as nvFuser, its definition(self) runs at the first run of `fd` (so it may read
        names bound after `MyFusion()`, `fd` itself among them), or after the top level where no run
        comes first."""
        fd = self._new_fd(site.node, user_class)
        method = user_class.members["definition"]

        def record() -> None:
            self._record(fd, site.node, lambda: method.call(site, [fd], {}))

        self._unused = None
        if self.runs.passes_over(fd):
            return fd
        fd.pending = record
        self.deferred.append(lambda: self._record_pending(fd))
        return fd

    def _record_pending(self, fd: Fd) -> None:
        record, fd.pending = fd.pending, None
        if record is not None:
            record()

    def _new_fd(self, node: ast.AST, user_class: UserClass | None) -> Fd:
        if self._unused is not None or (self.fixed_segments and self.fd is not None):
            raise self.error(node, "a script holds one fusion definition; this is a second one")
        fd = Fd(FusionDefinition(), self.count_op, user_class)
        self.skips = self._skips_run_statement
        if self.fixed_segments or self.runs.opened(fd, node):
            self.fd = fd
        self._unused = fd
        return fd

    def _open_definition(self, statement: ast.With, scope: Scope) -> Fd:
        """The definition object of a `with` block, bound to its name."""
        if len(statement.items) != 1:
            raise self.error(
                statement, "write one definition per with block: `with FusionDefinition() as fd:`"
            )
        item = statement.items[0]
        context = item.context_expr
        if isinstance(context, ast.Call) and not isinstance(
            self.value_of(context.func, scope), FusionDefinitionClass
        ):
            raise self.error(context, "the definition starts `with FusionDefinition() as fd:`")
        fd = self.value_of(context, scope)
        if not isinstance(fd, Fd) or fd.fd.outputs() or fd.recording:
            raise self.error(context, "the definition starts `with FusionDefinition() as fd:`")
        self._unused = None
        if item.optional_vars is not None:
            if not isinstance(item.optional_vars, ast.Name):
                raise self.error(statement, "name the definition: `with FusionDefinition() as fd:`")
            scope.names[item.optional_vars.id] = fd
        elif not isinstance(context, ast.Name):
            raise self.error(statement, "name the definition: `with FusionDefinition() as fd:`")
        return fd

    def _run_With(self, statement: ast.With, scope: Scope) -> None:
        if self.fd is not None and self.fd.recording:
            raise self.unsupported(statement)
        fd = self._open_definition(statement, scope)
        if not self.runs.passes_over(fd):
            self._record_block(fd, statement, scope)

    def _record_block(self, fd: Fd, statement: ast.With, scope: Scope) -> None:
        self._record(fd, statement, lambda: self.run_block(statement.body, scope))

    def _record_top_level_block(self, fd: Fd, statement: ast.With) -> None:
        try:
            self._record_block(fd, statement, self.globals)
        except _Return as signal:
            raise self.error(signal.node, "return is written outside a function") from None
        except _LoopExit as signal:
            raise self.stray(signal) from None

    def _record(self, fd: Fd, node: ast.AST, run: Callable[[], None]) -> None:
        self.definition_node = node
        fd.recording = True
        try:
            with fd.fd:
                run()
        finally:
            fd.recording = False

    def _record_lone_function(self, tree: ast.Module, segment: Segment | None) -> None:
        """A script that is only a definition function (nvFuser's python_definition dump)."""
        node = segment.definition if segment is not None else self._only_definition_function(tree)
        assert isinstance(node, ast.FunctionDef)  # a script of several blocks records one of them
        function = self.globals.lookup(node.name)
        if not isinstance(function, UserFunction) or function.node is not node:
            raise self.error(node, _NO_DEFINITION)
        if not self.fixed_segments and self.runs.chosen:
            raise choice_error(self.runs.chosen, 1)
        fd = self._new_fd(node, None)
        self._unused = None
        self.lone_function = node
        self._record(fd, node, lambda: function.call(self.site(node), [fd], {}))

    def _only_definition_function(self, tree: ast.Module) -> ast.FunctionDef:
        functions = definition_functions(tree)
        if len(functions) != 1:
            raise self.error(tree.body[0] if tree.body else ast.Pass(lineno=1, col_offset=0), _NO_DEFINITION)
        return functions[0]

    def _run_ClassDef(self, statement: ast.ClassDef, scope: Scope) -> None:
        if not self._derives_from_definition(statement, scope):
            scope.names[statement.name] = define_class(self, statement, scope)
            return
        if statement.decorator_list:
            raise self.error(statement.decorator_list[0], "a FusionDefinition subclass takes no decorators")
        bases = [self.value_of(base, scope) for base in statement.bases]
        name = statement.name
        if statement.keywords or len(bases) != 1:
            raise self.error(statement, f"class {name} must derive from FusionDefinition only")
        attributes = Scope(parent=scope)
        members: dict[str, Any] = {}
        for item in statement.body:
            if is_docstring(item) or isinstance(item, ast.Pass):
                continue
            if isinstance(item, ast.FunctionDef) and not item.name.startswith("_"):
                members[item.name] = self.function_of(item, scope)
            elif isinstance(item, ast.Assign | ast.AnnAssign):
                self.run_statement(item, attributes)
            else:
                raise self.error(
                    item,
                    f"class {name} may hold only definition(self) and schedule(self), helper methods "
                    "(names not starting with _) and class attributes",
                )
        members = {**attributes.names, **members}
        if not isinstance(members.get("definition"), UserFunction):
            raise self.error(statement, f"class {name} has no definition(self) method")
        scope.names[name] = UserClass(statement, members, self.new_subclass_definition)

    def _derives_from_definition(self, statement: ast.ClassDef, scope: Scope) -> bool:
        """Whether a class derives from FusionDefinition (read by name: its bases are evaluated once)."""
        return any(
            isinstance(base, ast.Name | ast.Attribute)
            and isinstance(self._without_calls_or_missing(base, scope), FusionDefinitionClass)
            for base in statement.bases
        )

    def _without_calls_or_missing(self, node: ast.expr, scope: Scope) -> Any:
        try:
            return self._without_calls(node, scope)
        except LookupError:
            return MISSING

    # imports
    def _module(self, name: str) -> Interpreted | None:
        """The module a script may import by this name, or None."""
        if name == "torch" or name in SUBMODULES:
            return TorchNamespace(name)
        if name in UNREAD_MODULES:
            return UnreadModule(name)
        if name in DEFINITION_MODULES:
            return DefinitionModule(name, self.importable)
        if name in PYTORCH_UTILS_MODULES:
            return PYTORCH_UTILS
        if name == VERSION_MODULE:
            return DefinitionModule(name, VERSION_MODULE_NAMES)
        return standard_module(self, name)

    def _run_Import(self, statement: ast.Import, scope: Scope) -> None:
        if self.fd is not None and self.fd.recording:
            raise self.unsupported(statement)
        for alias in statement.names:
            # `import a.b` binds `a`: only the modules without a dot are imported that way
            module = self._module(alias.name) if "." not in alias.name or alias.asname else None
            if module is None:
                raise self.error(statement, f"importing {alias.name} is not supported; {_IMPORTS}")
            scope.names[alias.asname or alias.name] = module

    def _run_ImportFrom(self, statement: ast.ImportFrom, scope: Scope) -> None:
        if self.fd is not None and self.fd.recording:
            raise self.unsupported(statement)
        if statement.module == "__future__":
            return
        module = None if statement.level else self._module(statement.module or "")
        if module is None:
            raise self.error(statement, f"importing from {statement.module} is not supported; {_IMPORTS}")
        for alias in statement.names:
            found = module.attribute(alias.name) if alias.name != "*" else MISSING
            if found is MISSING:
                raise self.error(statement, f"{statement.module}.{alias.name} is not supported; {_IMPORTS}")
            scope.names[alias.asname or alias.name] = found

    # statements about running the fusion
    def _skips_run_statement(self, statement: ast.stmt, scope: Scope) -> bool:
        """Passes over a statement about running the fusion (set as `skips` once a definition exists)."""
        if isinstance(statement, _DEFINING) or self._opens_definition(statement, scope):
            return False
        if not (
            self._uses_run_value(statement, scope) or self._computes_in_torch_after_the_run(statement, scope)
        ):
            return False
        self._skip_run_statement(statement, scope)
        return True

    def _opens_definition(self, statement: ast.stmt, scope: Scope) -> bool:
        """`with FusionDefinition() as fd:` run again (in a loop) starts a new definition, although its
        body reads the `fd` of the one before."""
        if not isinstance(statement, ast.With) or len(statement.items) != 1:
            return False
        context = statement.items[0].context_expr
        return (
            isinstance(context, ast.Call)
            and isinstance(context.func, ast.Name)
            and isinstance(scope.lookup(context.func.id), FusionDefinitionClass)
        )

    def bind(self, target: ast.expr, value: Any, scope: Scope) -> None:
        if value is RUN_OUTPUT and isinstance(target, ast.Tuple | ast.List):
            # `out, fd = run_helper(...)`: each part of a run's result is one too
            for part in target.elts:
                self.bind(part.value if isinstance(part, ast.Starred) else part, RUN_OUTPUT, scope)
            return
        super().bind(target, value, scope)
        if isinstance(target, ast.Name) and isinstance(value, Handle) and self._records(value):
            self._name_value(value.name, target.id)
        if isinstance(target, ast.Name):
            if is_run_value(value):
                self.skips = self._skips_run_statement
            if target.id == "inputs" and scope is self.globals:
                self.inputs_node = self.current
                site = self.site(self.current)
                site.charge(len(value) if isinstance(value, list | tuple) else 1)
                if is_input_list(value):
                    check_total_bytes(site, value)

    def _uses_run_value(self, statement: ast.stmt, scope: Scope) -> bool:
        names, _ = self._names_in(statement)
        return any(is_run_value(scope.lookup(name)) for name in names)

    def _computes_in_torch_after_the_run(self, statement: ast.stmt, scope: Scope) -> bool:
        """Whether, once the script has run the definition, a statement uses torch beyond what the loader
        reads (`torch.cumsum(inputs[0], 1)`, `F.gelu(x)`, `inputs[0].softmax(-1)`): a test's eager
        reference, about checking the run."""
        if not self.has_run:
            return False
        _, nodes = self._names_in(statement)
        return any(isinstance(n, ast.Attribute) and self._unread_torch_attribute(n, scope) for n in nodes)

    def _unread_torch_attribute(self, node: ast.Attribute, scope: Scope) -> bool:
        """Whether `node` is an attribute the loader lacks of torch, a torch submodule or an input tensor,
        reached by names, constant indexes and attributes only (nothing is called to find it)."""
        try:
            base = self._without_calls(node.value, scope)
        except LookupError:
            return False
        if not isinstance(base, TorchNamespace | InputTensor):
            return False
        return self.attribute_of(base, node.attr) is MISSING

    def _without_calls(self, node: ast.expr, scope: Scope) -> Any:
        """The value of a name, an attribute of one or a constant index into one; LookupError for any
        other expression, or where a part has no value."""
        if isinstance(node, ast.Name):
            found = scope.lookup(node.id)
        elif isinstance(node, ast.Attribute) and not node.attr.startswith("_"):
            found = self.attribute_of(self._without_calls(node.value, scope), node.attr)
        elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
            container, index = self._without_calls(node.value, scope), node.slice.value
            if not isinstance(container, list | tuple) or not isinstance(index, int):
                raise LookupError(index)
            found = container[index] if -len(container) <= index < len(container) else MISSING
        else:
            raise LookupError(node)
        if found is MISSING:
            raise LookupError(node)
        return found

    def _names_in(self, statement: ast.stmt) -> tuple[frozenset[str], list[ast.AST]]:
        """The names a statement reads and the nodes it holds, nested functions and classes left out."""
        found = self._read_names.get(id(statement))
        if found is None:
            nodes: list[ast.AST] = []
            stack: list[ast.AST] = [statement]
            while stack:
                node = stack.pop()
                nodes.append(node)
                if not isinstance(node, (*_DEFINING, ast.Lambda)) or node is statement:
                    stack.extend(ast.iter_child_nodes(node))
            names = frozenset(n.id for n in nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load))
            found = self._read_names[id(statement)] = (names, nodes)
        return found

    def _skip_run_statement(self, statement: ast.stmt, scope: Scope) -> None:
        """Takes the inputs of its first run call and binds what it assigns to RUN_OUTPUT."""
        self.budget.charge(statement)
        _, nodes = self._names_in(statement)
        for node in nodes:
            if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)):
                continue
            owner = scope.lookup(node.value.id)
            if isinstance(owner, Fd) and (node.attr == "ops" or node.attr in FD_METHODS):
                raise self.error(
                    node,
                    "fusion ops belong inside the definition: `with FusionDefinition() as fd:`, indented",
                )
        for node in nodes:
            call = node if isinstance(node, ast.Call) else None
            if call is None or not isinstance(call.func, ast.Attribute) or call.func.attr not in RUN_METHODS:
                continue
            owner = call.func.value
            self.has_run = True
            ran = scope.lookup(owner.id) if isinstance(owner, ast.Name) else None
            if isinstance(ran, Fd):
                self._record_pending(ran)
            if isinstance(owner, ast.Name) and self._runs_the_definition(ran):
                if self.run_inputs is None:
                    self.run_inputs = self._run_call_inputs(call, scope)
                break
        for node in nodes:
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                scope.names[node.id] = RUN_OUTPUT
        if isinstance(statement, ast.Return):  # a helper that runs the fusion returns what the run gave
            raise _Return(statement, RUN_OUTPUT)

    def _name_value(self, value: str, variable: str) -> None:
        """The first variable of the shallowest call that holds a value names it: `q` of
        `q = rope(fd, x)` over the helper's `out`, and over a later loop's `t`."""
        if variable in (value, "_"):
            return
        depth = self.budget.depth
        if value not in self.value_names or depth < self._naming_depth[value]:
            self.value_names[value] = variable
            self._naming_depth[value] = depth

    def _records(self, handle: Handle) -> bool:
        return self.fd is not None and handle.fd is self.fd.fd

    def _runs_the_definition(self, value: Any) -> bool:
        """Whether a run call on `value` runs the definition read (not another one of the script)."""
        return value is not None and (value is self.fd or value is self.holder)

    def _run_call_inputs(self, call: ast.Call, scope: Scope) -> tuple[ast.AST, Any]:
        """The inputs a run call passes, read where the call is written (the names may be bound again
        later, as for a second definition of the script)."""
        given = call.args[:1] or [k.value for k in call.keywords if k.arg == "inputs"]
        if not given:
            raise self.error(call, "fd.execute needs the inputs list: fd.execute(inputs)")
        return given[0], self.value_of(given[0], scope)

    def _inputs(self) -> list[Any] | None:
        node: ast.AST
        if self.run_inputs is not None:
            node, value = self.run_inputs
        elif self.inputs_node is not None:
            node, value = self.inputs_node, self.globals.lookup("inputs")
        else:
            return None
        if not is_input_list(value):
            raise self.error(
                node, "the inputs must be a list of torch tensors and numbers, in definition order"
            )
        check_total_bytes(self.site(node), value)
        self.inputs_node = node
        return list(value)

    def attribute_of(self, base: Any, name: str) -> Any:
        found = super().attribute_of(base, name)
        is_value = isinstance(base, Tensor | Scalar)
        if found is MISSING and is_value and name in op_names() and self.fd is not None:
            return OpMethod(self.fd, base, name)
        return found

    def count_op(self, node: ast.AST) -> None:
        """Runs before every recorded call: refuses past HFUSE_MAX_OPS, tells the frontend the location."""
        self.recorded_ops += 1
        limit = settings.MAX_OPS.as_int()
        if self.recorded_ops > limit:
            raise self.source.limit_error(
                node, f"the definition records more than {limit} ops (set {settings.MAX_OPS.env})"
            )
        if self.fd is not None:
            self.fd.fd._loc = position(node)


_DEFINING = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)
