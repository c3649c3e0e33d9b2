"""A stand-in for TVM, so that a test can run repro_tvmscript.py's driver where TVM is absent.

It compiles nothing and judges nothing: the module text is accepted unexamined (script.py),
and calling `main` on a level's VirtualMachine writes the arguments it got to
$FAKE_TVM_ARGS/arg<i>.npy and returns the arrays the test left in $FAKE_TVM_OUTPUTS: the file
O<level>_<i>.npy when it exists, else <i>.npy (output i).
"""
import os
import types

import numpy as np

from . import relax  # noqa: F401  (repro_tvmscript.py imports it from here)

_level = [None]


class _PassContext:
    def __init__(self, opt_level):
        self.opt_level = opt_level

    def __enter__(self):
        _level[0] = self.opt_level
        return self

    def __exit__(self, *exc):
        return False


class _Array:
    def __init__(self, values):
        self._values = np.asarray(values)

    def numpy(self):
        return self._values


def cpu():
    return "cpu"


def _outputs(level):
    folder = os.environ["FAKE_TVM_OUTPUTS"]
    results = []
    for i in range(64):
        for name in (f"O{level}_{i}.npy", f"{i}.npy"):
            path = os.path.join(folder, name)
            if os.path.exists(path):
                results.append(_Array(np.load(path)))
                break
        else:
            break
    return results


def _main(level, *args):
    folder = os.environ.get("FAKE_TVM_ARGS")
    if folder:
        for i, a in enumerate(args):
            if isinstance(a, _Array):
                np.save(os.path.join(folder, f"arg{i}.npy"), a.numpy())
    results = _outputs(level)
    return results[0] if len(results) == 1 else results


transform = types.SimpleNamespace(PassContext=_PassContext)
target = types.SimpleNamespace(Target=lambda name: name)
nd = types.SimpleNamespace(array=lambda values, device=None: _Array(values))
runtime = types.SimpleNamespace(ShapeTuple=tuple)
