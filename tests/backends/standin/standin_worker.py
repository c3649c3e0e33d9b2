#!/usr/bin/env python3
"""A stand-in compiler under test, speaking difftest's worker protocol (docs/backends.md).

It "compiles" a program handed over as difftest IR text by applying its level's steps as text
rewrites, and "runs" it with `difftest eval --mode native` (the reference in the program's own
precision, one legitimate implementation). Its step `commute` has a planted bug: it swaps the
operands of `sub` as if it were commutative. `crash` and `hang` in a program's name make it
crash or hang, so that those verdicts are shown too. A level whose config says `round_to:
bfloat16` rounds its f32 results to bf16, as an inference precision of bf16 would; its version
answer lists the capabilities in STANDIN_CAPABILITIES (comma-separated).

    standin_worker.py DIFFTEST
"""
import json, os, re, signal, subprocess, sys, tempfile
import numpy as np

DIFFTEST = sys.argv[1]
LEVELS = {"plain": [], "fast": ["canonicalize", "commute", "fold"], "narrow": [], "rounded": []}
DTYPES = {"float64": "<f8", "float32": "<f4", "float16": "<f2", "bfloat16": "<u2", "int64": "<i8",
          "int32": "<i4", "int8": "i1", "uint8": "u1", "uint32": "<u4", "bool": "|b1"}
NAMES = {np.dtype(v).str: k for k, v in DTYPES.items()}


def compile_program(text, req):
    steps = [s for s in LEVELS[req["level"]] if s not in req.get("disable", [])]
    if req.get("limit", -1) >= 0:  # opt-bisect: only the first `limit` step applications
        steps = steps[:req["limit"]]
    if "commute" in steps:
        text = re.sub(r"= sub\((%\w+), (%\w+)\)", r"= sub(\2, \1)", text)
    if "@crash" in text and steps:
        os.kill(os.getpid(), signal.SIGSEGV)
    while "@hang" in text and steps:
        pass
    return text


def run(req):
    sys.stderr.write("@@stage compile\n")
    sys.stderr.flush()
    with open(req["model"]) as f:
        text = compile_program(f.read(), req)
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "p.ir"), "w") as f:
            f.write(text)
        for c, (inputs, binding) in enumerate(zip(req["cases"], req["bindings"])):
            sys.stderr.write(f"@@stage run {c}\n")
            sys.stderr.flush()
            for t in inputs:
                raw = np.fromfile(os.path.join(req["dir"], t["file"]), np.uint8, t["bytes"], offset=t["offset"])
                np.save(os.path.join(tmp, f"in_{t['name']}.npy"), raw.view(DTYPES[t["type"]]).reshape(t["dims"]))
            args = [DIFFTEST, "eval", os.path.join(tmp, "p.ir"), "--mode", "native", "--inputs", tmp, "--dump", tmp]
            if binding:
                args += ["--bind", ",".join(f"{k}={v}" for k, v in binding.items())]
            done = subprocess.run(args, capture_output=True, text=True)
            if done.returncode != 0:
                return {"ok": False, "stage": "run", "case": c, "error": done.stderr.strip() or done.stdout.strip()}
            outputs, blob, i = [], b"", 0
            while os.path.exists(os.path.join(tmp, f"out_{i}.npy")):
                a = np.load(os.path.join(tmp, f"out_{i}.npy"))
                if req.get("config", {}).get("round_to") == "bfloat16" and a.dtype == np.float32:
                    bits = a.view(np.uint32).astype(np.uint64)  # to nearest, ties to even
                    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
                    a = bits.astype(np.uint32).view(np.float32)
                outputs.append({"name": str(i), "type": NAMES[a.dtype.str], "dims": list(a.shape),
                                "file": f"c{c}_out.bin", "offset": len(blob), "bytes": a.nbytes})
                blob += a.tobytes()
                os.remove(os.path.join(tmp, f"out_{i}.npy"))
                i += 1
            with open(os.path.join(req["dir"], f"c{c}_out.bin"), "wb") as f:
                f.write(blob)
            runs.append({"run_ms": 0, "outputs": outputs, "differs": None})
    return {"ok": True, "compile_ms": 0, "runs": runs}


for line in sys.stdin:
    req = json.loads(line)
    if req["op"] == "version":
        capabilities = [c for c in os.environ.get("STANDIN_CAPABILITIES", "").split(",") if c]
        reply = {"ok": True, "version": "1.0 (stand-in)", "capabilities": capabilities}
    elif req["op"] == "run":
        reply = run(req)
    else:
        reply = {"ok": False, "stage": "compile", "error": f"unknown op {req['op']}"}
    reply["id"] = req["id"]
    sys.stderr.write(f"@@done {req['id']}\n")
    sys.stderr.flush()
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
