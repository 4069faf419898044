"""Facts about code, read from libcst trees without running anything.

``names`` (what an import alias stands for), ``regions`` (which functions torch.compile
would trace), ``tensors`` (which expressions hold tensors) and ``tree`` (fast child walks
and positions). Rules, the engine and the fixes read these facts; this package imports
only libcst and the standard library, never another torchlint package.
"""
