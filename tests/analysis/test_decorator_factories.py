"""A decorator that hands the method to another decorator (`cached` returning
`_cached(method)` or `_cached_ignore_args(method)`, linear_operator's memoizer) puts that one's
wrapper in place: the wrapper runs at each call, so a break in it is a break of the region.
The decorators' own code runs once, when the class is defined, and stays unchecked."""

from __future__ import annotations

from support import marked_package_tests, write_package

MEMO = """import functools
import pickle


def cached(method=None, name=None, ignore_args=False):
    if ignore_args:
        return _cached_ignore_args(method=method, name=name)
    return _cached(method=method, name=name)


def _cached(method=None, name=None):
    if method is None:
        return functools.partial(_cached, name=name)

    @functools.wraps(method)
    def g(self, *args, **kwargs):
        key = pickle.dumps(kwargs)  # graph break
        store = self.__dict__.setdefault("_memo", {})
        if key not in store:
            store[key] = method(self, *args, **kwargs)
        return store[key]

    return g


def _cached_ignore_args(method=None, name=None):
    if method is None:
        return functools.partial(_cached_ignore_args, name=name)

    @functools.wraps(method)
    def g(self, *args, **kwargs):
        store = self.__dict__.setdefault("_memo", {})
        if name not in store:
            store[name] = method(self, *args, **kwargs)
        return store[name]

    return g


def logged(method):
    print("decorating", method.__name__)
    return _announce(method)


def _announce(method):
    def wrapper(self, *args):
        print("calling", method.__name__)  # graph break
        return method(self, *args)

    return wrapper
"""

MODEL = """import torch
from torch import nn

from .memo import cached, logged


class Net(nn.Module):
    @cached(name="scale")
    def scale(self, x):
        return x * 2

    @cached(name="shift", ignore_args=True)
    def shift(self):
        return 1.0

    @logged
    def report(self, x):
        return x

    def forward(self, x):
        return self.report(self.scale(x) + self.shift())
"""

ORACLE = [{"path": ".", "module": "mpkg.model", "target": "Net", "inputs": ["f32[3,4]"]}]


def make(root):
    files = {"mpkg/__init__.py": "", "mpkg/memo.py": MEMO, "mpkg/model.py": MODEL}
    return write_package(root, files, ORACLE)


test_the_static_pass_finds_the_marked_breaks, test_the_marks_are_where_dynamo_breaks = marked_package_tests(make)
