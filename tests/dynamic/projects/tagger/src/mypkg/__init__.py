"""A package shaped like a real project: relative imports, src layout, keyword inputs."""
from .model import Tagger

__all__ = ["Tagger"]
