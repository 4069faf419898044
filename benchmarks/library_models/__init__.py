"""User-side models around the libraries of ``benchmarks/libraries.py``: what a user of
torchdiffeq, gpytorch or e3nn writes around the library (the module that calls the solver,
the GP classes, the loss). They are linted and counted as project files with the library's."""
