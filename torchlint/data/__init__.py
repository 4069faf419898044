"""Data files the static pass ships (read with importlib.resources, never imports torch)."""
