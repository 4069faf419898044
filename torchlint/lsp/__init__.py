"""The language server (``torchlint server``): the static pass on editors' buffers.

:mod:`torchlint.lsp.core` computes (no protocol), :mod:`torchlint.lsp.server` speaks LSP
through pygls; the latter needs the ``lsp`` extra (``pip install 'torchlint[lsp]'``).
"""
