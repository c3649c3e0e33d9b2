"""difftest's TVM levels: what each level of manifest.json does to a Relax module before relax.build.

Shared by the worker (tvm_worker.py) and every reproducer difftest writes for TVM, so that a
reproducer compiles exactly as the failing check did. A level's config names:

- "pipeline": "build" (relax.build's own default pipeline alone: LegalizeOps and the VM lowering,
  no fusion), "zero" (TVM's "zero" pipeline first: LegalizeOps, AnnotateTIROpPattern,
  FoldConstant, FuseOps, FuseTIR), "dlight" (the zero pipeline, then dlight's default CPU
  schedules, GEMV and Reduction, as MLC-LLM schedules CPU kernels) or "order" (the request's
  "steps", a random valid order difftest drew, applied one by one);
- "opt_level": the PassContext's opt_level (passes declared above it are skipped);
- "disabled": passes the PassContext disables on top of the request's "disable" (a culprit search
  switching steps off);
- "tir_config": the PassContext's config (tirx.disable_vectorize, ...);
- "tir_optional": the optional passes of TVM's TIR pipeline an order may leave out: those an order's
  steps do not name are disabled;
- "target": the LLVM target (default "llvm").
"""
import importlib.util
import sys

import tvm
from tvm import relax
from tvm.relax import transform as rt


def _dlight():
    from tvm.s_tir import dlight

    return dlight.ApplyDefaultSchedule(dlight.cpu.GEMV(), dlight.cpu.Reduction())


# The Relax passes an order draws from, by the name TVM's PassInfo gives them.
RELAX_PASSES = {
    "CanonicalizeBindings": rt.CanonicalizeBindings,
    "FoldConstant": rt.FoldConstant,
    "DeadCodeElimination": rt.DeadCodeElimination,
    "EliminateCommonSubexpr": rt.EliminateCommonSubexpr,
    "FuseTransposeMatmul": rt.FuseTransposeMatmul,
    "ExpandMatmulOfSum": rt.ExpandMatmulOfSum,
    "AdjustMatmulOrder": rt.AdjustMatmulOrder,
    "CombineParallelMatmul": rt.CombineParallelMatmul,
    "ReorderPermuteDimsAfterConcat": rt.ReorderPermuteDimsAfterConcat,
    "ReorderTakeAfterMatmul": rt.ReorderTakeAfterMatmul,
    "DecomposeOpsForInference": rt.DecomposeOpsForInference,
    "LegalizeOps": rt.LegalizeOps,
    "AnnotateTIROpPattern": rt.AnnotateTIROpPattern,
    "FuseOps": rt.FuseOps,
    "FuseTIR": rt.FuseTIR,
    "dlight": _dlight,
}
# An order's other steps are passes of relax.build's own pipelines (RewriteDataflowReshape,
# StaticPlanBlockMemory, the TIR pipeline's optional passes: "tir_optional"): they run where the
# build runs them, and are disabled when the order leaves them out.


def load_program(path):
    """program.py as a module: TVM's parser reads `class Module` from its file (the module must be
    importable by name for that)."""
    spec = importlib.util.spec_from_file_location("difftest_program", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["difftest_program"] = module
    spec.loader.exec_module(module)
    return module.Module, getattr(module, "SHAPE_DIMS", [])


def level_context(config, disable, steps=None, instruments=()):
    """The PassContext a level compiles under: an order also disables the optional TIR passes its
    steps leave out."""
    disabled = list(config.get("disabled", [])) + list(disable)
    if config.get("pipeline") == "order":
        disabled += [p for p in config.get("tir_optional", []) if p not in (steps or [])]
    return tvm.transform.PassContext(opt_level=config.get("opt_level", 3), disabled_pass=disabled,
                                     config=config.get("tir_config", {}), instruments=list(instruments))


def apply_level(module, config, steps=None):
    """The module the level hands to relax.build (under level_context)."""
    pipeline = config.get("pipeline", "build")
    target = tvm.target.Target(config.get("target", "llvm"))
    if pipeline == "build":
        return module
    if pipeline in ("zero", "dlight"):
        module = relax.get_pipeline("zero")(module)
        if pipeline == "dlight" and "dlight" not in tvm.transform.PassContext.current().disabled_pass:
            with target:
                module = _dlight()(module)
        return module
    if pipeline == "order":
        with target:
            for step in steps or []:
                if step in RELAX_PASSES:
                    module = RELAX_PASSES[step]()(module)
                elif step not in config.get("tir_optional", []):
                    raise ValueError(f"unknown step {step!r}")
        return module
    raise ValueError(f"unknown pipeline {pipeline!r}")
