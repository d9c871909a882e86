"""Generated Triton modules: written once to HFUSE_CACHE_DIR/<sha256>.py, imported once per process.

`@triton.jit` needs its source in a real file (it reads it with `inspect`), so generated source is
never exec'd: it is written to a file named by its hash and imported from there.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
import tempfile
import threading
from pathlib import Path
from types import ModuleType

from hfuse import settings
from hfuse.codegen.model import KernelSource
from hfuse.errors import KernelError
from hfuse.runtime.device import use_interpreter_without_cuda

_LOADED: dict[str, ModuleType] = {}
_LOCK = threading.Lock()


def source_hash(source: str) -> str:
    return hashlib.sha256(source.encode()).hexdigest()


def load_kernel(kernel: KernelSource) -> ModuleType:
    """The imported module of a generated kernel; its `launch(*args)` runs it."""
    digest = source_hash(kernel.source)
    with _LOCK:
        module = _LOADED.get(digest)
        if module is None:
            module = _import(kernel, _write(kernel, digest), digest)
            _LOADED[digest] = module
    return module


def _write(kernel: KernelSource, digest: str) -> Path:
    folder = settings.CACHE_DIR.as_path()
    path = folder / f"{digest}.py"
    if path.exists():
        return path
    try:
        folder.mkdir(parents=True, exist_ok=True)
        # Write then rename: another process importing the same hash never sees a half-written file.
        tmp = tempfile.NamedTemporaryFile("w", dir=folder, suffix=".tmp", delete=False, encoding="utf-8")
        with tmp:
            tmp.write(kernel.source)
        os.replace(tmp.name, path)
    except OSError as err:
        raise KernelError(
            f"kernel {kernel.name}: cannot write its source to {path} ({err.strerror}); "
            f"point {settings.CACHE_DIR.env} at a writable folder"
        ) from err
    return path


def _import(kernel: KernelSource, path: Path, digest: str) -> ModuleType:
    use_interpreter_without_cuda()
    module_name = f"hfuse_kernel_{digest}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as err:
        del sys.modules[module_name]
        raise KernelError(
            f"kernel {kernel.name}: its generated module {path} failed to import "
            f"({type(err).__name__}: {err})"
            "; this is a code generation bug: report it with the fusion definition"
        ) from err
    if not callable(getattr(module, "launch", None)):
        del sys.modules[module_name]
        raise KernelError(f"kernel {kernel.name}: generated module {path} defines no launch() function")
    return module
