"""Start-up hook of ``torchlint run`` (this folder is put first on the program's PYTHONPATH).

Python imports ``sitecustomize`` at interpreter start; this one installs torchlint's observer
(:func:`torchlint.run.observer.install`, which imports no torch) and then runs the
``sitecustomize`` it hides, if the environment has one, so the program starts as it would
without torchlint.
"""

import os
import sys


def _install() -> None:
    try:
        from torchlint.run.observer import install

        install()
    except Exception as e:  # noqa: BLE001 (never stop the program from starting)
        sys.stderr.write(f"torchlint: observer not installed ({type(e).__name__}: {e})\n")


def _chain() -> None:
    import importlib.machinery
    import importlib.util

    here = os.path.dirname(os.path.abspath(__file__))
    rest = [p for p in sys.path if os.path.abspath(p or ".") != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    sys.modules["sitecustomize"] = module
    spec.loader.exec_module(module)


_install()
_chain()
