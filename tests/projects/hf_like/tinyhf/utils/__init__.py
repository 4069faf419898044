from . import logging
from .generic import capture_outputs
from .import_utils import *  # noqa: F403
