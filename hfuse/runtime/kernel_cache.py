"""Generated Triton modules: written once to HFUSE_CACHE_DIR/<sha256>.py, imported once per process.

`@triton.jit` needs its source in a real file (it reads it with `inspect`), so generated source is
never exec'd: it is written to a file named by its hash and imported from there. A file is written
atomically (`write_atomically`), so a writer killed mid-write leaves only a temporary file that is
never read. A cached file whose content no longer hashes to its name (truncated, edited) is
rewritten from the generated source, and the import itself checks the bytes it compiles.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
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


class _VerifiedSourceLoader(importlib.machinery.SourceFileLoader):
    """Compiles a generated module from its file only when the bytes hash to the module's name, and never
    from a bytecode cache (which could be stale or damaged)."""

    def get_code(self, fullname: str) -> CodeType:
        data = self.get_data(self.path)
        if hashlib.sha256(data).hexdigest() != fullname.removeprefix(MODULE_PREFIX):
            raise ImportError(
                f"{self.path} changed after it was written: its content no longer matches its name"
            )
        return self.source_to_code(data, self.path)


def _import(kernel: KernelSource, path: Path, digest: str) -> ModuleType:
    use_interpreter_without_cuda()
    module_name = f"{MODULE_PREFIX}{digest}"
    loader = _VerifiedSourceLoader(module_name, str(path))
    spec = importlib.util.spec_from_file_location(module_name, path, loader=loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        loader.exec_module(module)
    except Exception as err:
        del sys.modules[module_name]
        raise KernelError(
            f"{_describe(kernel)}: its generated module {path} failed to import "
            f"({type(err).__name__}: {err})"
            "; this is a code generation bug: report it with the fusion definition"
        ) from err
    if not callable(getattr(module, "launch", None)):
        del sys.modules[module_name]
        raise KernelError(f"{_describe(kernel)}: generated module {path} defines no launch() function")
    return module


def _describe(kernel: KernelSource) -> str:
    return f"kernel {kernel.name} (segment {kernel.group_id})"
