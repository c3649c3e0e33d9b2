#!/usr/bin/env python3
"""difftest's Apache TVM worker: the worker protocol of docs/backends.md over TVM's Python API.

One long-lived process; one JSON request per line on stdin, one JSON answer per line on stdout,
"@@stage" markers and "@@done ID" on stderr. A program arrives as a TVMScript module
(program.py, exporters/tvmscript): TVM's own parser reads it, the level's pipeline (manifest.json:
"pipeline", "opt_level", "disabled", "tir_config", "target") or a random order's steps transform
it, relax.build compiles it for the CPU through LLVM, and the Relax VM runs it on every case.

    python tvm_worker.py
"""
import json
import os
import sys
import time
import traceback

import numpy as np
import tvm
from tvm import relax

from tvm_levels import apply_level, level_context, load_program  # noqa: E402 - beside this file

DTYPES = {"float64": "<f8", "float32": "<f4", "float16": "<f2", "int64": "<i8", "int32": "<i4",
          "int8": "i1", "uint8": "u1", "uint32": "<u4", "bool": "|b1"}
try:
    import ml_dtypes  # numpy has no bfloat16; TVM's wheel depends on ml_dtypes

    DTYPES["bfloat16"] = ml_dtypes.bfloat16
except ImportError:  # pragma: no cover - the lock installs it
    pass
NAMES = {np.dtype(v).str if k != "bfloat16" else "bfloat16": k for k, v in DTYPES.items()}
# What TVM says when a program uses what it does not implement: an op with no legalization to
# TIR (LegalizeOps leaves it, and the VM's code generator cannot emit it), and the limits its
# legalizations state in code: (the message, the file of the frame that raised it, why). Only
# these: any other refusal of a module TVM's parser accepted is a finding (compile_reject).
UNSUPPORTED = ("CodeGenVM cannot handle this intrinsic now", "cannot emit this Relax operator directly",
               # the struct-info inference of R.nn.layer_norm, group_norm, instance_norm (f64, bf16)
               "only support float32 and float16 for now",
               # R.power's legalization (integer pow)
               "power only applies to float")
LIMITS = (("Expect value to be constant int", "topi/slice_scatter.py",
           "TVM's slice_scatter (topi.slice_scatter, the legalization of R.slice_scatter) takes only a constant "
           "length along its axis"),)

_modules = {}  # model path -> (mtime, the parsed IRModule, SHAPE_DIMS)


def stage(text):
    sys.stderr.write(f"@@stage {text}\n")
    sys.stderr.flush()


def load_module(path):
    """The program's IRModule as TVM's parser reads program.py, parsed once per model file."""
    mtime = os.stat(path).st_mtime_ns
    cached = _modules.get(path)
    if cached and cached[0] == mtime:
        return cached[1], cached[2]
    module, shape_dims = load_program(path)
    if len(_modules) > 4:  # the program and its specialized form, a few at a time
        _modules.clear()
    _modules[path] = (mtime, module, shape_dims)
    return module, shape_dims


def dtype_name(a):
    if a.dtype.name == "bfloat16":
        return "bfloat16"
    return NAMES.get(a.dtype.str, a.dtype.str)


def read_inputs(req, case):
    args = []
    for t in case:
        raw = np.fromfile(os.path.join(req["dir"], t["file"]), np.uint8, t["bytes"], offset=t["offset"])
        args.append(raw.view(DTYPES[t["type"]]).reshape(t["dims"]))
    return args


def raised_at(e):
    """Where in TVM's Python an exception was raised ("s_tir/dlight/analysis/gemv.py:158"), for one
    that says nothing (a bare assert)."""
    frames = traceback.extract_tb(e.__traceback__)
    for frame in reversed(frames):
        at = frame.filename.replace("\\", "/").rfind("/tvm/")
        if at >= 0:
            return f"{frame.filename[at + 5:]}:{frame.lineno}"
    return ""


def refusal(stage_name, e, case=0):
    text = str(e).strip()
    message = f"{type(e).__name__}: {text}" if text else f"{type(e).__name__} at {raised_at(e) or 'an unknown place'}"
    unsupported = any(u in message for u in UNSUPPORTED)
    where = traceback.format_exc()
    for text, frame, why in LIMITS:
        if text in message and frame in where:
            message, unsupported = f"{why} ({message})", True
    return {"ok": False, "stage": stage_name, "case": case, "error": message, "unsupported": unsupported}


def outputs_of(result, c, req):
    results = [result] if hasattr(result, "numpy") else list(result)
    outputs, blob = [], b""
    for i, r in enumerate(results):
        a = np.asarray(r.numpy())
        outputs.append({"name": str(i), "type": dtype_name(a), "dims": list(a.shape),
                        "file": f"c{c}_out.bin", "offset": len(blob), "bytes": a.nbytes})
        blob += a.tobytes()
    with open(os.path.join(req["dir"], f"c{c}_out.bin"), "wb") as f:
        f.write(blob)
    return outputs, [np.asarray(r.numpy()).tobytes() for r in results]


def first_difference(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            at = next((k for k in range(min(len(x), len(y))) if x[k] != y[k]), 0)
            return {"output": str(i), "byte": at}
    return None


@tvm.instrument.pass_instrument
class AroundPass:
    """Writes the module before and after the first application of one pass (a culprit) into the
    request's directory: culprit_before.py, culprit_after.py (absent when the pass raised)."""

    def __init__(self, name, directory):
        self.pass_name, self.directory, self.done, self.files = name, directory, False, {}

    def _write(self, key, mod):
        path = os.path.join(self.directory, f"culprit_{key}.py")
        with open(path, "w", encoding="utf-8") as f:
            f.write(mod.script())
        self.files[key] = os.path.basename(path)

    def run_before_pass(self, mod, info):
        if not self.done and info.name == self.pass_name:
            self._write("before", mod)

    def run_after_pass(self, mod, info):
        if not self.done and info.name == self.pass_name:
            self._write("after", mod)
            self.done = True


def build(req, around=None):
    module, shape_dims = load_module(req["model"])
    config = req.get("config", {})
    with level_context(config, req.get("disable", []), req.get("steps"), [around] if around else []):
        mod = apply_level(module, config, req.get("steps"))
        executable = relax.build(mod, target=tvm.target.Target(config.get("target", "llvm")),
                                 relax_pipeline="default", tir_pipeline="default")
    return relax.VirtualMachine(executable, tvm.cpu()), shape_dims


def run(req):
    stage("compile")
    t0 = time.perf_counter()
    around = AroundPass(req["dump_around"], req["dir"]) if req.get("dump_around") else None
    try:
        vm, shape_dims = build(req, around)
    except Exception as e:  # noqa: BLE001 - every refusal is an answer
        return dict(refusal("compile", e), dumps=around.files if around else {})
    compile_ms = (time.perf_counter() - t0) * 1e3
    runs = []
    make = tvm.runtime.tensor
    for c, case in enumerate(req["cases"]):
        stage(f"run {c}")
        try:
            args = [make(a, tvm.cpu()) for a in read_inputs(req, case)]
            if shape_dims:
                binding = req["bindings"][c]
                args.append(tvm.runtime.ShapeTuple([int(binding[d]) for d in shape_dims]))
            t1 = time.perf_counter()
            result = vm["main"](*args)
            run_ms = (time.perf_counter() - t1) * 1e3
            outputs, first = outputs_of(result, c, req)
            differs = None
            for _ in range(1, req.get("repeat", 1)):
                again = vm["main"](*args)
                again = [again] if hasattr(again, "numpy") else list(again)
                differs = differs or first_difference(first, [np.asarray(r.numpy()).tobytes() for r in again])
            runs.append({"run_ms": run_ms, "outputs": outputs, "differs": differs})
        except Exception as e:  # noqa: BLE001
            return refusal("run", e, c)
    return {"ok": True, "compile_ms": compile_ms, "runs": runs, "dumps": around.files if around else {}}


def answer(line):
    try:
        req = json.loads(line)
    except ValueError as e:
        return {"id": None, "ok": False, "stage": "compile", "error": f"not JSON: {e}"}
    if req.get("op") == "version":
        return {"id": req.get("id"), "ok": True, "version": tvm.__version__}
    if req.get("op") == "run":
        return dict(run(req), id=req.get("id"))
    return {"id": req.get("id"), "ok": False, "stage": "compile", "error": f"unknown op {req.get('op')}"}


for line in sys.stdin:
    reply = answer(line)
    sys.stderr.write(f"@@done {reply['id']}\n")
    sys.stderr.flush()
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
sys.stdout.flush()
sys.stderr.flush()
os._exit(0)  # without the interpreter's finalization: TVM's thread pool can hold it
