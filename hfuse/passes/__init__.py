"""The passes that run between building a Fusion and segmenting it, each stage kept for display."""

from __future__ import annotations

from dataclasses import dataclass

from hfuse.ir import Fusion
from hfuse.passes.alias import AliasInfo, mark_aliases
from hfuse.passes.canonicalize import canonicalize
from hfuse.passes.dce import eliminate_dead_code


@dataclass(frozen=True, slots=True)
class PassResult:
    original: Fusion
    canonical: Fusion  # no-op exprs folded into their operands
    live: Fusion  # dead exprs removed
    final: Fusion  # alias chains marked with view strides
    aliases: tuple[AliasInfo, ...]  # outputs that are views of inputs (empty when aliasing is off)

    @property
    def fusion(self) -> Fusion:
        return self.final

    @property
    def stages(self) -> tuple[tuple[str, Fusion], ...]:
        return (
            ("as defined", self.original),
            ("canonicalized", self.canonical),
            ("dead code removed", self.live),
            ("aliases marked", self.final),
        )


def run_passes(fusion: Fusion, *, alias_outputs: bool = True) -> PassResult:
    canonical = canonicalize(fusion)
    live = eliminate_dead_code(canonical)
    final, aliases = mark_aliases(live, enabled=alias_outputs)
    return PassResult(fusion, canonical, live, final, aliases)


__all__ = ["AliasInfo", "PassResult", "canonicalize", "eliminate_dead_code", "mark_aliases", "run_passes"]
