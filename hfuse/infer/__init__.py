"""Shape and dtype rules: what each op's outputs are, and its attributes in normalized form.

A rule takes the op, its operands and its attributes, checks them (raising DefinitionError that says
what was given and what is allowed) and returns the normalized attributes and one OutSpec per output.
The op table (`hfuse.ops`) names each op's rule.
"""
