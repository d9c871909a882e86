"""Classes a script defines for its settings: dataclasses, enums and plain classes of records.

nvFuser's tests hold their settings in small classes: `@dataclass class Config: c_z: int = 128`,
`class Direction(Enum): INCOMING = auto()`, or a plain class whose `__init__(self, ...)` sets
attributes. A class body may hold only annotated fields, class attributes, methods taking self,
docstrings and `pass`; nothing else of it runs, and no method but `__init__` may start with `_`.
Making an instance takes CALL_STEPS of the budget and a step per field (an `__init__` is a call like
any other, so a class that makes itself in its `__init__` ends at the call-depth limit).
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any, NamedTuple

from hfuse.loader.budget import CALL_STEPS
from hfuse.loader.functions import BoundMethod, UserFunction
from hfuse.loader.interpreter import Scope
from hfuse.loader.source import is_docstring
from hfuse.loader.values import MISSING, CallSite, Interpreted, TypeValue, describe, is_hashable_key, show

if TYPE_CHECKING:
    from hfuse.loader.statements import Interpreter

_SHOWN_FIELD_CHARS = 200  # what the print form of an instance shows of each field at most


class DataclassOptions(Interpreted):
    """`dataclass` as a decorator: bare, or called with its options (`@dataclass(frozen=True)`)."""

    label = "dataclasses.dataclass"
    _OPTIONS = frozenset({"frozen", "eq", "repr", "init", "order", "unsafe_hash", "slots"})

    def __init__(self, frozen: bool = False):
        self.frozen = frozen

    def call(self, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> DataclassOptions:
        unknown = sorted(set(kwargs) - self._OPTIONS)
        if args or unknown:
            raise site.error(
                "write @dataclass above the class, or @dataclass(frozen=True)"
                + (f"; dataclass() takes no option {unknown[0]}" if unknown else "")
            )
        if kwargs.get("init", True) is not True or kwargs.get("eq", True) is not True:
            raise site.error("dataclass(init=False) and dataclass(eq=False) are not supported")
        return DataclassOptions(frozen=kwargs.get("frozen", False) is True)


class Field(Interpreted):
    """`field(default=...)` or `field(default_factory=list)` of a dataclass."""

    label = "dataclasses.field(...)"

    def __init__(self, default: Any, factory: Interpreted | None):
        self.default = default
        self.factory = factory


def _make_field(site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> Field:
    factory = kwargs.get("default_factory")
    unknown = sorted(set(kwargs) - {"default", "default_factory", "init", "repr", "compare", "metadata"})
    if args or unknown or ("default" in kwargs and factory is not None):
        raise site.error("field() takes default= or default_factory= (a function of no arguments)")
    if factory is not None and not isinstance(factory, Interpreted):
        raise site.error(f"field(default_factory=...) takes a function, not {describe(factory)}")
    return Field(kwargs.get("default", MISSING), factory)


class _FieldFunction(Interpreted):
    label = "dataclasses.field"

    def call(self, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> Field:
        return _make_field(site, args, kwargs)


class EnumBase(Interpreted):
    """`Enum` or `IntEnum`, a base of a script's enum."""

    def __init__(self, integer: bool):
        self.integer = integer
        self.label = "enum.IntEnum" if integer else "enum.Enum"


class Auto(Interpreted):
    """What `auto()` gives: the next member's value, counted when the enum is made."""

    label = "enum.auto()"


class _AutoFunction(Interpreted):
    label = "enum.auto"

    def call(self, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> Auto:
        if args or kwargs:
            raise site.error("auto() takes no arguments")
        return Auto()


class ClassModule(Interpreted):
    """`dataclasses` or `enum`: only the names of its table exist."""

    def __init__(self, label: str, names: dict[str, Interpreted]):
        self.label = label
        self.names = names

    def attribute(self, name: str) -> Any:
        return self.names.get(name, MISSING)

    def attribute_names(self) -> frozenset[str]:
        return frozenset(self.names)


def class_module(name: str) -> ClassModule | None:
    """The module of this name a script may import, or None."""
    if name == "dataclasses":
        return ClassModule(name, {"dataclass": DataclassOptions(), "field": _FieldFunction()})
    if name == "enum":
        return ClassModule(
            name, {"Enum": EnumBase(False), "IntEnum": EnumBase(True), "auto": _AutoFunction()}
        )
    return None


class FieldSpec(NamedTuple):
    name: str
    default: Any  # MISSING where the field has none
    factory: Interpreted | None


class ScriptClass(TypeValue):
    """A dataclass or a plain class of the script: its fields (of a dataclass), class attributes and
    methods. Calling it makes an `Instance`."""

    def __init__(
        self,
        interpreter: Interpreter,
        name: str,
        fields: list[FieldSpec] | None,
        attributes: dict[str, Any],
        frozen: bool,
        bases: tuple[ScriptClass, ...],
    ):
        self.interpreter = interpreter
        self.name = name
        self.fields = fields  # None for a plain class
        self.attributes = attributes  # class attributes and methods
        self.frozen = frozen
        self.bases = bases
        self.label = f"the class {name}"

    def attribute(self, name: str) -> Any:
        return self.attributes.get(name, MISSING)

    def attribute_names(self) -> frozenset[str]:
        return frozenset(n for n in self.attributes if not n.startswith("_"))

    def holds(self, value: Any) -> bool:
        return isinstance(value, Instance) and value.owner.derives_from(self)

    def derives_from(self, other: ScriptClass) -> bool:
        return self is other or any(base.derives_from(other) for base in self.bases)

    def call(self, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> Instance:
        site.charge(CALL_STEPS)
        instance = Instance(self)
        if self.fields is not None:
            instance.values = self._bind_fields(site, args, kwargs)
            return instance
        init = self.attributes.get("__init__")
        if isinstance(init, UserFunction):
            init.call(site, [instance, *args], kwargs)
        elif args or kwargs:
            raise site.error(f"{self.name}() takes no arguments: the class has no __init__(self, ...)")
        return instance

    def _bind_fields(self, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> dict[str, Any]:
        fields = self.fields
        assert fields is not None
        site.charge(len(fields) + len(kwargs))
        if len(args) > len(fields):
            raise site.error(f"{self.name}() takes {len(fields)} fields but {len(args)} values were given")
        values = {spec.name: value for spec, value in zip(fields, args, strict=False)}
        names = [spec.name for spec in fields]
        for key, value in kwargs.items():
            if key not in names:
                raise site.error(f"{self.name}() has no field {key}; its fields are {', '.join(names)}")
            if key in values:
                raise site.error(f"{self.name}() got two values for the field {key}")
            values[key] = value
        for spec in fields:
            if spec.name in values:
                continue
            if spec.factory is not None:
                values[spec.name] = spec.factory.call(site, [], {})
            elif spec.default is not MISSING:
                values[spec.name] = spec.default
            else:
                raise site.error(f"{self.name}() is missing the field {spec.name}")
        return {spec.name: values[spec.name] for spec in fields}

    def shown(self) -> str:
        return f"<class '{self.name}'>"


class Instance(Interpreted):
    """An object made by calling a script's class: its fields or attributes, then its class's."""

    def __init__(self, owner: ScriptClass):
        self.owner = owner
        self.values: dict[str, Any] = {}
        self.label = f"a {owner.name}"
        if owner.frozen:
            self.attribute_write_hint = (
                f"{owner.name} is a frozen dataclass: its fields are set when it is made"
            )
        else:
            self.attribute_write_hint = "attributes starting with _ are never read; name it without the _"

    def attribute(self, name: str) -> Any:
        found = self.values.get(name, MISSING)
        if found is MISSING:
            found = self.owner.attributes.get(name, MISSING)
        return BoundMethod(found, self) if isinstance(found, UserFunction) else found

    def attribute_names(self) -> frozenset[str]:
        return frozenset(self.values) | self.owner.attribute_names()

    def set_attribute(self, name: str, value: Any) -> bool:
        if self.owner.frozen or name.startswith("_"):
            return False
        self.values[name] = value
        return True

    def equals(self, site: CallSite, other: Any, equal: Any) -> Any:
        """Instances of one dataclass are equal when their fields are; others only to themselves."""
        if self.owner.fields is None or self is other:
            return MISSING
        if not isinstance(other, Instance) or other.owner is not self.owner:
            return False
        site.charge(len(self.values))
        return all(equal(self.values[name], other.values[name]) for name in self.values)

    def shown(self) -> str:
        if self.owner.fields is None:
            return f"<{self.owner.name} object>"
        parts = (
            f"{name}={show(value, _SHOWN_FIELD_CHARS, quoted=True)}" for name, value in self.values.items()
        )
        return f"{self.owner.name}({', '.join(parts)})"


class EnumClass(TypeValue):
    """`class Direction(Enum): ...`: its members by name, in order; `Direction(value)` finds one by value."""

    def __init__(self, name: str, integer: bool, methods: dict[str, UserFunction]):
        self.name = name
        self.integer = integer
        self.members: dict[str, EnumMember] = {}
        self.methods = methods
        self.label = f"the enum {name}"

    def attribute(self, name: str) -> Any:
        return self.members.get(name, self.methods.get(name, MISSING))

    def attribute_names(self) -> frozenset[str]:
        return frozenset(self.members) | frozenset(self.methods)

    def holds(self, value: Any) -> bool:
        return isinstance(value, EnumMember) and value.owner is self

    def elements(self) -> list[Any]:
        return list(dict.fromkeys(self.members.values()))  # an alias is walked once, as in Python

    def call(self, site: CallSite, args: list[Any], kwargs: dict[str, Any]) -> EnumMember:
        if len(args) != 1 or kwargs:
            raise site.error(f"{self.name}(value) takes the value of one of its members")
        site.charge(len(self.members))
        for member in self.members.values():
            if member.value == args[0] and type(member.value) is type(args[0]):
                return member
        raise site.error(f"{show(args[0], 60, quoted=True)} is not the value of a member of {self.name}")

    def shown(self) -> str:
        return f"<enum '{self.name}'>"


class EnumMember(Interpreted):
    """A member of a script's enum: equal only to itself (an IntEnum's also to its number)."""

    hashable_key = True

    def __init__(self, owner: EnumClass, name: str, value: Any):
        self.owner = owner
        self.name = name
        self.value = value
        self.label = f"{owner.name}.{name}"

    def attribute(self, name: str) -> Any:
        if name == "name":
            return self.name
        if name == "value":
            return self.value
        method = self.owner.methods.get(name)
        return MISSING if method is None else BoundMethod(method, self)

    def attribute_names(self) -> frozenset[str]:
        return frozenset({"name", "value"}) | frozenset(self.owner.methods)

    def equals(self, site: CallSite, other: Any, equal: Any) -> Any:
        if self.owner.integer and isinstance(other, int | float) and not isinstance(other, bool):
            return self.value == other
        return MISSING

    def shown(self) -> str:
        return f"{self.owner.name}.{self.name}"


# the class statement
_BODY = (
    "may hold only annotated fields, class attributes (NAME = value), methods taking self, "
    "a docstring and pass"
)


def define_class(interpreter: Interpreter, statement: ast.ClassDef, scope: Scope) -> Interpreted:
    """The class a `class` statement makes: a dataclass, an enum or a plain class."""
    name = statement.name
    options = _decorator(interpreter, statement, scope)
    if statement.keywords:
        raise interpreter.error(statement, f"class {name}: keywords in the bases are not supported")
    bases = [
        interpreter.value_of(base, scope)
        for base in statement.bases
        if not (isinstance(base, ast.Name) and base.id == "object" and scope.lookup("object") is MISSING)
    ]
    if bases and isinstance(bases[0], EnumBase):
        if options is not None or len(bases) != 1:
            raise interpreter.error(statement, f"enum {name} derives from Enum or IntEnum only")
        return _define_enum(interpreter, statement, scope, bases[0].integer)
    for base in bases:
        if not isinstance(base, ScriptClass) or (base.fields is None) != (options is None):
            kind = "dataclasses" if options is not None else "plain classes of the script"
            raise interpreter.error(
                statement,
                f"class {name} derives from {describe(base)}; a class may derive from FusionDefinition, "
                f"Enum, IntEnum, object or {kind} defined above it",
            )
    inherited: dict[str, Any] = {}
    fields: dict[str, FieldSpec] = {}
    for base in reversed(bases):
        inherited.update(base.attributes)
        fields.update({spec.name: spec for spec in base.fields or ()})
    attributes = Scope(parent=scope)
    methods: dict[str, UserFunction] = {}
    for item in statement.body:
        interpreter.budget.charge(item)
        if is_docstring(item) or isinstance(item, ast.Pass):
            continue
        if isinstance(item, ast.FunctionDef):
            methods[_method_name(interpreter, item, name, options is None)] = interpreter.function_of(
                item, scope
            )
        elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name) and options is not None:
            fields[item.target.id] = _field(interpreter, item, attributes)
        elif isinstance(item, ast.Assign | ast.AnnAssign) and _assigns_names(item):
            interpreter.run_statement(item, attributes)
        else:
            raise interpreter.error(item, f"class {name} {_BODY}")
    field_list = None if options is None else list(fields.values())
    if field_list is not None:
        _check_field_order(interpreter, statement, field_list)
        attributes.names.update({f.name: f.default for f in field_list if f.default is not MISSING})
    frozen = options is not None and options.frozen
    members = {**inherited, **attributes.names, **methods}
    return ScriptClass(interpreter, name, field_list, members, frozen, tuple(bases))  # type: ignore[arg-type]


def _decorator(interpreter: Interpreter, statement: ast.ClassDef, scope: Scope) -> DataclassOptions | None:
    decorators = statement.decorator_list
    if not decorators:
        return None
    found = interpreter.value_of(decorators[0], scope)
    if len(decorators) > 1 or not isinstance(found, DataclassOptions):
        raise interpreter.error(decorators[0], "a class may be decorated only with @dataclass")
    return found


def _method_name(interpreter: Interpreter, item: ast.FunctionDef, owner: str, plain: bool) -> str:
    if item.name.startswith("_") and not (plain and item.name == "__init__"):
        raise interpreter.error(
            item,
            f"class {owner}: methods starting with _ are never called (a plain class may define __init__)",
        )
    if not item.args.args and not item.args.posonlyargs:
        raise interpreter.error(item, f"class {owner}: the method {item.name} must take self first")
    return item.name


def _assigns_names(item: ast.Assign | ast.AnnAssign) -> bool:
    targets = item.targets if isinstance(item, ast.Assign) else [item.target]
    return all(isinstance(t, ast.Name) for t in targets)


def _field(interpreter: Interpreter, item: ast.AnnAssign, attributes: Scope) -> FieldSpec:
    assert isinstance(item.target, ast.Name)
    name = item.target.id
    if item.value is None:
        return FieldSpec(name, MISSING, None)
    value = interpreter.value_of(item.value, attributes)
    if isinstance(value, Field):
        return FieldSpec(name, value.default, value.factory)
    if isinstance(value, list | dict):
        raise interpreter.error(
            item.value, f"field {name}: a list or dict default is shared; write field(default_factory=list)"
        )
    return FieldSpec(name, value, None)


def _check_field_order(interpreter: Interpreter, statement: ast.ClassDef, fields: list[FieldSpec]) -> None:
    with_default = False
    for spec in fields:
        has_default = spec.default is not MISSING or spec.factory is not None
        if with_default and not has_default:
            raise interpreter.error(
                statement,
                f"dataclass {statement.name}: the field {spec.name} without a default follows one with",
            )
        with_default = with_default or has_default


def _define_enum(interpreter: Interpreter, statement: ast.ClassDef, scope: Scope, integer: bool) -> EnumClass:
    methods: dict[str, UserFunction] = {}
    body = Scope(parent=scope)  # later members may be computed from earlier ones
    values: dict[str, Any] = body.names
    for item in statement.body:
        interpreter.budget.charge(item)
        if is_docstring(item) or isinstance(item, ast.Pass):
            continue
        if isinstance(item, ast.FunctionDef):
            methods[_method_name(interpreter, item, statement.name, False)] = interpreter.function_of(
                item, scope
            )
            continue
        target = item.targets[0] if isinstance(item, ast.Assign) and len(item.targets) == 1 else None
        if not isinstance(target, ast.Name) or target.id.startswith("_"):
            raise interpreter.error(
                item, f"enum {statement.name} may hold only members (NAME = value) and methods"
            )
        value = interpreter.value_of(item.value, body)  # type: ignore[union-attr]
        if isinstance(value, Auto):
            last = list(values.values())[-1] if values else 0
            value = last + 1 if isinstance(last, int) else len(values) + 1
        if integer and (not isinstance(value, int) or isinstance(value, bool)):
            raise interpreter.error(
                item, f"the IntEnum {statement.name} takes whole numbers, not {describe(value)}"
            )
        if isinstance(value, Interpreted):
            raise interpreter.error(
                item, f"an enum member's value is a number, a string or a tuple, not {describe(value)}"
            )
        values[target.id] = value
    enum = EnumClass(statement.name, integer, methods)
    by_value: dict[Any, EnumMember] = {}  # a member given the value of one above is an alias of it
    for name, value in values.items():
        key = (type(value), value) if is_hashable_key(value) else name
        enum.members[name] = by_value.setdefault(key, EnumMember(enum, name, value))
    return enum
