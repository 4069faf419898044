import functools


def non_negative(fn):
    """Clamp inputs that went negative (wraps a forward)."""

    @functools.wraps(fn)
    def wrapper(self, x):
        if x.min() < 0:  # graph break
            x = x.clamp(min=0)
        return fn(self, x)

    return wrapper
