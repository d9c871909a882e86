"""Validations remembered on disk, so that a later process need not run the torch reference again.

A plan's first run in a process is checked against the reference. Once a check passes, its key is
written to HFUSE_CACHE_DIR/validated/<key>.json; the key hashes everything the outputs depend on: the
kernel sources, the fusion as defined and as scheduled, the views and torch segments, the input
signature, the device and the torch and Triton versions. A later process whose first run has that key
skips the reference (its outputs are still poisoned before the launches); HFUSE_ALWAYS_VALIDATE=1
checks every first run regardless.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata
import json
from pathlib import Path

import torch

from hfuse import settings
from hfuse.pipeline import Compiled
from hfuse.printer import print_fusion
from hfuse.runtime.cache_file import write_atomically
from hfuse.runtime.device import device_name


def validation_key(compiled: Compiled, signature: tuple) -> str:
    groups = [(g.kind.value, g.inputs, g.outputs) for g in compiled.segmentation.groups]
    parts = [
        print_fusion(compiled.fusion),
        print_fusion(compiled.scheduled),
        compiled.strategy,
        repr(compiled.alias_outputs),
        repr(compiled.segmentation.aliases),
        repr(groups),
        *(kernel.source for kernel in compiled.kernels),
        repr(signature),
        device_name(),
        torch.__version__,
        importlib.metadata.version("triton"),  # importing Triton here would be too early: see device.py
    ]
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode())
        digest.update(b"\0")
    return digest.hexdigest()


def remembered_error(key: str) -> float | None:
    """The largest error the remembered validation found, or None when `key` was never validated (or
    HFUSE_ALWAYS_VALIDATE asks for the check anyway)."""
    if settings.ALWAYS_VALIDATE.as_bool():
        return None
    try:
        record = json.loads(_path(key).read_text())
        return float(record["max_abs_error"])
    except (OSError, ValueError, KeyError, TypeError):
        return None  # missing or damaged: validate again


def remember(key: str, max_abs_error: float) -> None:
    """Writes the record atomically; a cache folder that cannot be written only costs later checks."""
    with contextlib.suppress(OSError):
        write_atomically(_path(key), json.dumps({"max_abs_error": max_abs_error}))


def _path(key: str) -> Path:
    return settings.CACHE_DIR.as_path() / "validated" / f"{key}.json"
