"""Targets that misbehave: the runner must report each and carry on."""
import ctypes
import os
import sys
import time


def hang(x):
    time.sleep(600)


def boom(x):
    raise ValueError("boom")


def exits(x):
    sys.exit(3)


def hard_exit(x):
    os._exit(7)


def segfault(x):
    ctypes.string_at(0)


def chatty(x):
    print("noise on stdout")
    print("noise on stderr", file=sys.stderr)
    os.write(1, b"raw fd noise\n")
    return x * 2
