#!/usr/bin/env python3
"""synthetic_campaign.py OUT --programs N [--shards S] [--failing-every K] [--per-signature P]:
a campaign of N programs as S shard directories OUT/shard-i (campaign.json, journal.jsonl,
one reproducer per signature), for benchmarking `difftest merge` and `difftest report` at a
scale no machine here runs. Every K-th seed fails; P failing programs share each signature.
The records have the fields and sizes of real ones (an ok record about 1 KB with its times and
exercised items; a failing one about 3 KB with six variants in its detail), at wall-clock times
10 ms apart per shard, as 8 machines side by side would journal them."""
import argparse
import json
import os

p = argparse.ArgumentParser()
p.add_argument("out")
p.add_argument("--programs", type=int, required=True)
p.add_argument("--shards", type=int, default=8)
p.add_argument("--failing-every", type=int, default=100)
p.add_argument("--per-signature", type=int, default=100)
a = p.parse_args()

exercised = [f"pass:{n}" for n in ("DeadCodeElimination", "FoldConstant", "FuseOps", "LICM", "LegalizeOps",
                                   "LoopSimplify", "ScheduleMatmul", "SpecializeShapes", "Unroll", "VectorizeLoops")]
exercised += [f"bound:{o}" for o in ("add", "exp", "matmul", "mul", "rms_norm", "softmax", "sub", "tanh")]
times = {"generate_ms": 0.87, "reference_ms": 8.98, "compile_ms": 95.9, "run_ms": 4.1, "compare_ms": 0.71,
         "compile_ms_by_variant": {"O0": 25.7, "O1": 12.4, "O2": 3.9, "O3": 3.6, "O3-specialized": 3.98, "orders": 46.3}}
start = 1796000000.0
for i in range(a.shards):
    d = os.path.join(a.out, f"shard-{i}")
    os.makedirs(os.path.join(d, "failures"), exist_ok=True)
    with open(os.path.join(d, "campaign.json"), "w") as f:
        json.dump({"identity": {"shard": f"{i}/{a.shards}", "faults": [], "compiler": "builtin", "pipelines": ["O0", "O1", "O2", "O3"]}}, f)
    with open(os.path.join(d, "journal.jsonl"), "w") as f:
        for k, seed in enumerate(range(i, a.programs, a.shards)):
            r = {"seed": seed, "hash": f"{seed * 2654435761 % 2**64:016x}", "at": round(start + k * 0.01, 3),
                 "times": times, "exercised": exercised, "worst_ratio": 0.3, "worst_excess": (seed % 997) / 1000,
                 "elements": 4096, "elements_checked": 4096}
            if seed % a.failing_every == a.failing_every - 1:
                n = seed // a.failing_every // a.per_signature
                sig = f"mismatch|O3|compare|output of op{n}"
                r.update(verdict="mismatch", signature=sig, worst_excess=12.5, detail={"variants": [
                    {"pipeline": v, "binding": {"n": 5, "m": 7}, "kind": "mismatch" if v == "O3" else "ok",
                     "stage": "compare", "message": f"3 of 4096 elements of output 0 (op{n}) outside their bounds" if v == "O3" else "",
                     "compile_ms": 3.2, "run_ms": 0.4, "worst_ratio": 0.3, "worst_excess": 0.2, "elements": 4096,
                     "elements_checked": 4096, "output": 0, "output_op": f"op{n}",
                     **({"signature": sig, "index": 17, "got": 1.5, "want": 1.25, "bound": 0.001} if v == "O3" else {})}
                    for v in ("O0", "O1", "O2", "O3", "O3-specialized", "order1")], "seed": seed})
            else:
                r["verdict"] = "ok"
            f.write(json.dumps(r, separators=(",", ":")) + "\n")
