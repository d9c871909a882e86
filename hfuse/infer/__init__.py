"""Shape and dtype inference: what each op's outputs are, and its attributes in normalized form."""

from hfuse.infer.rules import FAMILY_RULES, RULES, infer

__all__ = ["FAMILY_RULES", "RULES", "infer"]
