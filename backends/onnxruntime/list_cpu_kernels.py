"""Writes the CPU kernels the installed onnxruntime registers, one per line, as cpu_kernels.tsv holds them.

    build/onnxruntime/venv/bin/python backends/onnxruntime/list_cpu_kernels.py > backends/onnxruntime/cpu_kernels.tsv

The generator draws for `--backend ort` only programs whose ONNX nodes each have a kernel here
(backends/onnxruntime/ort_kernels.h), so that few programs end `unsupported`. The table is checked
in, not read from the installed package at run time, so that a seed's program does not depend on
the machine; the test `backends.ort_cpu_kernels` fails when the pinned package and the table differ.
Columns: domain ("" is ai.onnx), op, first and last opset version, and the type constraints as
`name=type,type;name=type` (ONNX's tensor(...) spellings without the wrapper).
"""
import sys

from onnxruntime.capi import onnxruntime_pybind11_state as ort_state

# The domains difftest's ONNX export writes: ai.onnx and com.microsoft (MatMulNBits).
DOMAINS = {"ai.onnx": "", "": "", "com.microsoft": "com.microsoft"}

rows = set()
for kernel in ort_state.get_all_opkernel_def():
    if kernel.provider != "CPUExecutionProvider" or kernel.domain not in DOMAINS:
        continue
    since, until = kernel.version_range
    constraints = ";".join(
        name + "=" + ",".join(sorted(t[len("tensor("):-1] if t.startswith("tensor(") else t for t in types))
        for name, types in sorted(kernel.type_constraints.items()))
    rows.add((DOMAINS[kernel.domain], kernel.op_name, since, until, constraints))

# Kernels registered once per type of their one constraint (Relu: float, double, int8, int32)
# are one row with the types listed together; kernels with several constraints stay as they are
# registered, since not every combination of their types is.
merged = {}
for domain, op, since, until, constraints in rows:
    key = (domain, op, since, until)
    name = constraints.split("=")[0] if constraints.count("=") == 1 else None
    if name is None:
        merged.setdefault(key + (constraints,), None)
        continue
    types = merged.setdefault(key + (name + "=",), set())
    types.update(constraints.split("=")[1].split(","))
rows = {key[:4] + ((key[4] + ",".join(sorted(types))) if types is not None else key[4],)
        for key, types in merged.items()}
import onnxruntime
sys.stdout.write(f"# onnxruntime {onnxruntime.__version__}, CPUExecutionProvider: {len(rows)} kernels\n")
for domain, op, since, until, constraints in sorted(rows):
    sys.stdout.write(f"{domain}\t{op}\t{since}\t{until}\t{constraints}\n")
