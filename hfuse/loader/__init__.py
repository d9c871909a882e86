"""`hfuse.load`: reads a fusion-definition script without running it (see `script`)."""

from hfuse.loader.script import Script, default_device, load

__all__ = ["Script", "default_device", "load"]
