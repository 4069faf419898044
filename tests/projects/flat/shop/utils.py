import logging

from .compat import is_compiling

logger = logging.getLogger(__name__)


def scale_by_max(x):
    m = x.abs().max().item()  # graph break
    return x / (m + 1.0)


def log_stats(x):
    logger.warning("mean activation")  # graph break
    return x


def quiet_stats(x):
    if not is_compiling():
        logger.info("eager only: %s", x.mean().item())
    return x * 2


def summarize(x):
    # never called from a compiled region
    return x.mean().item()
