"""Generated Triton modules: written once to HFUSE_CACHE_DIR/<sha256>.py, imported once per process.

What runs is exactly the source that was hashed: a module is compiled in memory from the generated
source, never from its file, and that same text is registered in `linecache` under a name no file can
take (`<hfuse kernel DIGEST>`), which is where `inspect.getsourcelines` finds it for `@triton.jit` and
where Triton's interpreter reads it again at a kernel's first launch. A file swapped after the check
therefore changes nothing that runs (`linecache` never reads `<...>` names from disk).

The file is the readable copy of each kernel. It is written atomically (`write_atomically`), so a writer
killed mid-write leaves only a temporary file that is never read; a cached file whose content no longer
hashes to its name (truncated, edited) is rewritten, and a file that changes between that write and the
import is refused, because something else is writing to the cache folder.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.util
import linecache
import sys
import threading
from pathlib import Path
from types import CodeType, ModuleType

from hfuse import settings
from hfuse.codegen.model import KernelSource
from hfuse.errors import KernelError
from hfuse.runtime.cache_file import write_atomically
from hfuse.runtime.device import use_interpreter_without_cuda

_LOADED: dict[str, ModuleType] = {}
_LOCK = threading.Lock()
MODULE_PREFIX = "hfuse_kernel_"


def source_hash(source: str) -> str:
    return hashlib.sha256(source.encode()).hexdigest()


def load_kernel(kernel: KernelSource) -> ModuleType:
    """The imported module of a generated kernel; its `launch(*args)` runs it."""
    digest = source_hash(kernel.source)
    with _LOCK:
        module = _LOADED.get(digest)
        if module is None:
            module = _import(kernel, _cached_file(kernel, digest), digest)
            _LOADED[digest] = module
    return module


def source_name(digest: str) -> str:
    """The file name a kernel's code and its `linecache` entry carry: one that no file on disk can take."""
    return f"<hfuse kernel {digest}>"


def _cached_file(kernel: KernelSource, digest: str) -> Path:
    """HFUSE_CACHE_DIR/<digest>.py holding exactly the kernel's source: written when missing or damaged."""
    folder = settings.CACHE_DIR.as_path()
    path = folder / f"{digest}.py"
    if _file_hash(path) == digest:
        return path
    try:
        write_atomically(path, kernel.source)
    except OSError as err:
        raise KernelError(
            f"{_describe(kernel)}: cannot write its source to {path} ({err.strerror}); "
            f"point {settings.CACHE_DIR.env} at a writable folder"
        ) from err
    return path


def _file_hash(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


class _VerifiedSourceLoader(importlib.abc.InspectLoader):
    """Compiles a generated module from its source held in memory, and gives that same text to anyone who
    asks for the module's source, so that nothing reads it from a file that could have changed."""

    def __init__(self, source: str, filename: str) -> None:
        self.source = source
        self.filename = filename

    def get_source(self, fullname: str) -> str:
        return self.source

    def get_code(self, fullname: str) -> CodeType:
        return self.source_to_code(self.source, self.filename)

    def is_package(self, fullname: str) -> bool:
        return False


def _import(kernel: KernelSource, path: Path, digest: str) -> ModuleType:
    use_interpreter_without_cuda()
    module_name = f"{MODULE_PREFIX}{digest}"
    filename = source_name(digest)
    loader = _VerifiedSourceLoader(kernel.source, filename)
    spec = importlib.util.spec_from_loader(module_name, loader, origin=filename)
    assert spec is not None
    spec.has_location = True  # the module's __file__ is the name its source is registered under
    module = importlib.util.module_from_spec(spec)
    linecache.cache[filename] = (len(kernel.source), None, kernel.source.splitlines(keepends=True), filename)
    sys.modules[module_name] = module
    try:
        if _file_hash(path) != digest:
            raise ImportError(f"{path} changed after it was written: its content no longer matches its name")
        loader.exec_module(module)
    except Exception as err:
        _forget(module_name, filename)
        raise KernelError(
            f"{_describe(kernel)}: its generated module {path} failed to import "
            f"({type(err).__name__}: {err})"
            "; this is a code generation bug: report it with the fusion definition"
        ) from err
    if not callable(getattr(module, "launch", None)):
        _forget(module_name, filename)
        raise KernelError(f"{_describe(kernel)}: generated module {path} defines no launch() function")
    return module


def _forget(module_name: str, filename: str) -> None:
    del sys.modules[module_name]
    linecache.cache.pop(filename, None)


def _describe(kernel: KernelSource) -> str:
    return f"kernel {kernel.name} (segment {kernel.group_id})"
