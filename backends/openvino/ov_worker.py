#!/usr/bin/env python3
"""difftest's OpenVINO worker: the worker protocol of docs/backends.md over OpenVINO's Python API.

One long-lived process; one JSON request per line on stdin, one JSON answer per line on stdout,
"@@stage" markers and "@@done ID" on stderr. A program arrives as ONNX (model.onnx); OpenVINO's
ONNX frontend reads it and the CPU plugin compiles it under the level's configuration
(manifest.json), single-threaded, one stream. A `static` level reshapes the model to each case's
input shapes and compiles once per case; the others compile the dynamic model once.

    python ov_worker.py
"""
import json
import os
import sys
import time

import numpy as np

# OpenVINO sends a usage event when it is imported (openvino-telemetry, a dependency of the
# wheel): from a thread, through a forked process that tries the network. Nothing is fetched or
# sent at run time here, and a fork from a thread of a worker that then crashes (a finding) left
# that process behind, holding the harness's pipes. Without the module, OpenVINO sends nothing.
sys.modules["openvino_telemetry"] = None
import openvino as ov  # noqa: E402

# A level's configuration comes in each request ("config", from manifest.json's levels): the CPU
# plugin's properties ("plugin") and whether the model is reshaped to each case's static shapes
# ("static"). COMMON holds what every level shares: f32 inference precision unless the level says
# bf16 or f16 (its allowance is then the program computed in that precision), one thread, one stream.
COMMON = {"INFERENCE_PRECISION_HINT": "f32", "INFERENCE_NUM_THREADS": 1, "NUM_STREAMS": 1}
DTYPES = {"float64": "<f8", "float32": "<f4", "float16": "<f2", "int64": "<i8", "int32": "<i4",
          "int8": "i1", "uint8": "u1", "uint32": "<u4", "bool": "|b1"}
NAMES = {np.dtype(v).str: k for k, v in DTYPES.items()}
# What OpenVINO says when a program uses what it does not implement: an op its ONNX frontend has
# no conversion for, or a node its CPU plugin has no implementation of. Only these exact
# messages: any other refusal of a valid model is a finding (compile_reject).
UNSUPPORTED = ("No conversion rule found for op", "Unsupported operation of type")

core = ov.Core()


def stage(text):
    sys.stderr.write(f"@@stage {text}\n")
    sys.stderr.flush()


def read_inputs(req, case):
    feeds = {}
    for t in case:
        raw = np.fromfile(os.path.join(req["dir"], t["file"]), np.uint8, t["bytes"], offset=t["offset"])
        feeds[t["name"]] = raw.view(DTYPES[t["type"]]).reshape(t["dims"])
    return feeds


class NotNative(Exception):
    """The CPU plugin compiled a level of a narrower inference precision in f32."""


def compile_model(req, config, shapes=None):
    model = core.read_model(req["model"])
    if shapes is not None:
        model.reshape({name: ov.PartialShape(list(s)) for name, s in shapes.items()})
    compiled = core.compile_model(model, "CPU", dict(COMMON, **config))
    # A CPU without bf16 (or f16) arithmetic compiles such a level in f32 and says so when asked:
    # that compile checks nothing the f32 levels do not.
    asked = dict(COMMON, **config)["INFERENCE_PRECISION_HINT"]
    got = compiled.get_property("INFERENCE_PRECISION_HINT").get_type_name()
    if got != asked:
        raise NotNative(f"OpenVINO's CPU plugin computes in {got} on this CPU, not in {asked} (its capabilities: "
                        f"{', '.join(core.get_property('CPU', 'OPTIMIZATION_CAPABILITIES'))})")
    return compiled


def refusal(stage_name, e, case=0):
    # OpenVINO's exceptions open with one "Exception from FILE:LINE:" line per frame it passed;
    # the message is what follows them.
    lines = [line for line in str(e).splitlines() if line.strip() and not line.startswith("Exception from ")]
    message = "\n".join(lines) if lines else str(e) or type(e).__name__
    return {"ok": False, "stage": stage_name, "case": case, "error": message,
            "unsupported": stage_name == "compile" and (isinstance(e, NotNative) or
                                                        any(u in message for u in UNSUPPORTED))}


def outputs_of(compiled, result, c, req):
    outputs, blob = [], b""
    for i, port in enumerate(compiled.outputs):
        a = np.asarray(result[port])  # ascontiguousarray would make a scalar 1-d
        outputs.append({"name": str(i), "type": NAMES.get(a.dtype.str, a.dtype.str), "dims": list(a.shape),
                        "file": f"c{c}_out.bin", "offset": len(blob), "bytes": a.nbytes})
        blob += a.tobytes()
    with open(os.path.join(req["dir"], f"c{c}_out.bin"), "wb") as f:
        f.write(blob)
    return outputs


def first_difference(compiled, a, b):
    for i, port in enumerate(compiled.outputs):
        x, y = np.asarray(a[port]).tobytes(), np.asarray(b[port]).tobytes()
        if x != y:
            at = next((k for k in range(min(len(x), len(y))) if x[k] != y[k]), 0)
            return {"output": str(i), "byte": at}
    return None


def run(req):
    config, static = req["config"].get("plugin", {}), req["config"].get("static", False)
    compile_ms, runs, compiled = 0.0, [], None
    if not static:
        stage("compile")
        t0 = time.perf_counter()
        try:
            compiled = compile_model(req, config)
        except Exception as e:  # noqa: BLE001 - every refusal is an answer
            return refusal("compile", e)
        compile_ms += (time.perf_counter() - t0) * 1e3
    for c, case in enumerate(req["cases"]):
        feeds = read_inputs(req, case)
        if static:
            stage("compile")
            t0 = time.perf_counter()
            try:
                compiled = compile_model(req, config, {k: v.shape for k, v in feeds.items()})
            except Exception as e:  # noqa: BLE001
                return refusal("compile", e, c)
            compile_ms += (time.perf_counter() - t0) * 1e3
        stage(f"run {c}")
        try:
            request = compiled.create_infer_request()
            t1 = time.perf_counter()
            first = {p: np.copy(v) for p, v in request.infer(feeds).items()}
            run_ms = (time.perf_counter() - t1) * 1e3
            differs = None
            for _ in range(1, req.get("repeat", 1)):
                differs = differs or first_difference(compiled, first, request.infer(feeds))
            runs.append({"run_ms": run_ms, "outputs": outputs_of(compiled, first, c, req), "differs": differs})
        except Exception as e:  # noqa: BLE001
            return refusal("run", e, c)
    return {"ok": True, "compile_ms": compile_ms, "runs": runs}


def answer(line):
    try:
        req = json.loads(line)
    except ValueError as e:
        return {"id": None, "ok": False, "stage": "compile", "error": f"not JSON: {e}"}
    if req.get("op") == "version":
        return {"id": req.get("id"), "ok": True, "version": ov.__version__.split("-")[0],
                "capabilities": list(core.get_property("CPU", "OPTIMIZATION_CAPABILITIES"))}
    if req.get("op") == "run":
        return dict(run(req), id=req.get("id"))
    return {"id": req.get("id"), "ok": False, "stage": "compile", "error": f"unknown op {req.get('op')}"}


for line in sys.stdin:
    reply = answer(line)
    sys.stderr.write(f"@@done {reply['id']}\n")
    sys.stderr.flush()
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
# Out of requests (the harness closed our stdin, or exited): leave without the interpreter's
# finalization, in which OpenVINO's threads can wait forever on a lock (workers were found
# orphaned that way, holding a test runner's output pipe open).
sys.stdout.flush()
sys.stderr.flush()
os._exit(0)
