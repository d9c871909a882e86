"""The example gallery: complete nvFuser scripts shipped in assets/examples.

Three subsets hold the same suite at different sizes: `small` (the top folder, sized for Triton's
interpreter on CPU), `nanogpt` (batch 16, seq 128, hidden 1024, 16 heads) and `large` (the benchmark
sizes). The extended suite (assets/examples/extended) holds the patterns outside it (column,
middle-dim and full reductions, vocabulary-size rows, multi-output normalizations, backward
fusions, strided inputs, odd sizes, an optimizer step) in three more: `extended` (interpreter
sizes), `extended-decode` (few rows, or a few thousand tokens) and `extended-large` (training
sizes), shapes taken from public model configs. The first line of every script is
`# <Title>: <description>`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from hfuse.errors import HfuseError

EXAMPLES_DIR = Path(__file__).resolve().parent.parent / "assets" / "examples"
SUBSETS = {
    "small": EXAMPLES_DIR,
    "nanogpt": EXAMPLES_DIR / "nanogpt",
    "large": EXAMPLES_DIR / "large",
    "extended": EXAMPLES_DIR / "extended",
    "extended-decode": EXAMPLES_DIR / "extended" / "decode",
    "extended-large": EXAMPLES_DIR / "extended" / "large",
}


@dataclass(frozen=True, slots=True)
class Example:
    name: str
    title: str
    description: str
    path: Path
    text: str


def _subset_dir(subset: str) -> Path:
    if subset not in SUBSETS:
        raise HfuseError(f"unknown example subset {subset!r}: choose one of {', '.join(SUBSETS)}")
    folder = SUBSETS[subset]
    if not folder.is_dir():
        raise HfuseError(
            f"the example folder {folder} is missing: hfuse reads its examples from the repository's "
            "assets/examples, so install hfuse from a checkout (pip install -e .)"
        )
    return folder


def _read(path: Path) -> Example:
    text = path.read_text(encoding="utf-8")
    first = text.split("\n", 1)[0]
    title, sep, description = first.removeprefix("#").strip().partition(":")
    if not first.startswith("#") or not sep:
        raise HfuseError(
            f"{path}, line 1: expected '# <Title>: <description>', found {first!r}; add that comment"
        )
    return Example(path.stem, title.strip(), description.strip(), path, text)


def list_examples(subset: str = "small") -> list[Example]:
    """Every example of a subset (one of SUBSETS), sorted by name."""
    return [_read(path) for path in sorted(_subset_dir(subset).glob("*.py"))]


def get_example(name: str, subset: str = "small") -> Example:
    path = _subset_dir(subset) / f"{name}.py"
    if not path.is_file():
        known = ", ".join(e.name for e in list_examples(subset))
        raise HfuseError(f"no example named {name!r} in the {subset} examples ({path}); known: {known}")
    return _read(path)
