"""A small training package: helpers in utils.py, a base class in base.py, a model in models/."""
from .compat import disable, is_compiling
from .utils import logger, scale_by_max
