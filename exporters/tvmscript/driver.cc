// The opening comment and the driver of repro_tvmscript.py: the failing inputs embedded (or,
// without expected results, drawn from a seeded numpy generator), generated constants rebuilt
// exactly as compiler/tensor/constant.cc makes them, a build and run per opt_level, and a
// judgement against the embedded reference that prints the worst element.
#include <fmt/format.h>

#include "compiler/support/diagnostics.h"
#include "compiler/ir/printer.h"
#include "exporters/tvmscript/emit.h"

namespace difftest::exporters::tvmscript {

namespace {

std::string quote_py(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

int64_t dim_value(const Program& p, const sym::Env& env, const sym::Expr& d) {
  sym::Env full = env;
  for (const DimVar& v : p.dims()) full.emplace(v.name, v.range.lo);  // emplace keeps given values
  return sym::eval(d, full);
}

std::string concrete_shape(const Program& p, const sym::Env& env, const TensorType& t) {
  std::string out = "(";
  for (size_t i = 0; i < t.shape.size(); ++i) out += (i ? ", " : "") + std::to_string(dim_value(p, env, t.shape[i]));
  return out + (t.shape.size() == 1 ? ",)" : ")");
}

std::string how(const ConstantInit& c, const TensorType& t) {
  switch (c.kind) {
    case ConstantInit::Kind::Uniform:
      return fmt::format("(\"uniform\", {}, {}, {})", py_float(c.p0), py_float(c.p1), c.seed);
    case ConstantInit::Kind::Normal:
      return fmt::format("(\"normal\", {}, {}, {})", py_float(c.p0), py_float(c.p1), c.seed);
    case ConstantInit::Kind::Literal: break;
  }
  return fmt::format("(\"literal\", {})", literal_list(c, t, true));
}

// DATA: the failing inputs of main's parameters (hex of their bytes, in INPUTS' order), the
// reference per output and the difference allowed per element; None without expected results.
std::string expected_data(const Program& p, const TvmScriptOptions& options, const std::vector<MainParam>& params) {
  if (!options.expected)
    return "# (rtol, atol) compare the two configurations; no reference values are embedded\nDATA = None\n";
  const ExpectedResults& x = *options.expected;
  nlohmann::json data = {{"allowance", x.allowance}, {"inputs", nlohmann::json::array()}};
  for (const MainParam& m : params) {
    const auto in = x.inputs.find(m.value.name());
    if (in == x.inputs.end()) throw InternalError("TVMScript export: no expected input for %" + m.value.name());
    data["inputs"].push_back({{"name", m.value.name()}, {"hex", hex_of(in->second.data(), in->second.nbytes())}});
  }
  std::vector<std::string> names;
  for (const Value& v : p.outputs()) names.push_back("%" + v.name());
  data["outputs"] = expected_outputs_json(x, names);
  return "# The failing inputs, the reference values and the difference allowed per element (< 0: not compared)\n"
         "DATA = json.loads(r'''" +
         data.dump() + "''')\n";
}

// The fixed part of the driver; the tables above it are per program.
constexpr const char* kDriverCode = R"PY(

def _splitmix64(seed, counter):
    with np.errstate(over="ignore"):
        z = np.uint64(seed) + (counter + np.uint64(1)) * np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def _unit(seed, counter):
    return (_splitmix64(seed, counter) >> np.uint64(11)).astype(np.float64) * 2.0**-53


def _as_dtype(values, dtype):
    if dtype == "bfloat16":
        import ml_dtypes  # numpy has no bfloat16

        return np.asarray(values).astype(ml_dtypes.bfloat16)
    return np.asarray(values).astype(dtype)


def _constant(shape, dtype, how):
    """The constant difftest materializes: SplitMix64(seed, flat index), rounded once."""
    n = int(np.prod(shape, dtype=np.int64))
    index = np.arange(n, dtype=np.uint64)
    if how[0] == "literal":
        return _as_dtype(np.array(how[1], dtype=np.float64 if "float" in dtype else None).reshape(shape), dtype)
    if how[0] == "uniform":
        lo, hi, seed = how[1], how[2], how[3]
        u = _unit(seed, index)
        if "float" in dtype:
            values = lo + (hi - lo) * u
        else:
            values = (lo + np.floor(u * (hi - lo + 1))).astype(np.int64)
    else:
        mean, std, seed = how[1], how[2], how[3]
        s = np.full(n, -6.0)
        for k in range(12):  # the same summation order as difftest
            s = s + _unit(seed, np.uint64(12) * index + np.uint64(k))
        values = mean + std * s
    return _as_dtype(values.reshape(shape), dtype)


def _from_hex(text, shape, dtype):
    data = bytes.fromhex(text)
    if dtype == "bfloat16":
        import ml_dtypes  # numpy has no bfloat16

        return np.frombuffer(data, dtype="<u2").view(ml_dtypes.bfloat16).reshape(shape)
    return np.frombuffer(data, dtype=np.dtype(dtype).newbyteorder("<")).reshape(shape)


def _random_input(rng, shape, dtype):
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype.startswith("uint"):
        return rng.integers(0, np.iinfo(dtype).max, size=shape, dtype=dtype, endpoint=True)
    if dtype.startswith("int"):
        return rng.integers(-8, 8, size=shape, endpoint=True).astype(dtype)
    return _as_dtype(rng.uniform(-1.0, 1.0, size=shape), dtype)


def _arguments():
    if DATA is not None:
        args = [_from_hex(t["hex"], shape, dtype) for t, (_, shape, dtype) in zip(DATA["inputs"], INPUTS)]
    else:
        rng = np.random.default_rng(SEED)
        args = [_random_input(rng, shape, dtype) for _, shape, dtype in INPUTS]
    args += [_constant(shape, dtype, how) for _, shape, dtype, how in CONSTANTS]
    return args


def _opt_level(config, default):
    if len(config) == 2 and config[0] == "O" and config[1] in "0123":
        return int(config[1])
    return default


def _run(level, args):
    print(f"building at opt_level={level}")
    with tvm.transform.PassContext(opt_level=level):
        executable = relax.build(Module, target=tvm.target.Target("llvm"))
    vm = relax.VirtualMachine(executable, tvm.cpu())
    make = tvm.nd.array if hasattr(tvm, "nd") else tvm.runtime.tensor
    inputs = [make(a, tvm.cpu()) for a in args]
    if SHAPE_ARGUMENT is not None:
        inputs.append(tvm.runtime.ShapeTuple(SHAPE_ARGUMENT))
    result = vm["main"](*inputs)
    results = [result] if hasattr(result, "numpy") else list(result)
    return [np.asarray(r.numpy()) for r in results]


def _compare(name, dtype, got, want):
    if got.shape != want.shape:
        print(f"{name}: shapes differ: {FAILING_CONFIG} {got.shape}, {PASSING_CONFIG} {want.shape}")
        return False
    a = got.astype(np.float64)
    b = want.astype(np.float64)
    diff = np.where(np.isnan(a) & np.isnan(b), 0.0, np.abs(a - b))
    diff = np.where(np.isnan(diff), np.inf, diff)
    worst = np.unravel_index(int(np.argmax(diff)), diff.shape) if diff.ndim else ()
    print(f"{name} ({dtype}): worst element {worst}: {FAILING_CONFIG}={a[worst]!r} "
          f"{PASSING_CONFIG}={b[worst]!r} |diff|={diff[worst]!r}")
    rtol, atol = TOLERANCE.get(dtype, (0.0, 0.0))
    try:
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, equal_nan=True)
    except AssertionError as err:
        print(err)
        return False
    return True


@CHECK@

def _judge_every_level(args):
    if FAILING_CONFIG:
        print(f"difftest found a wrong result under its pipeline {FAILING_CONFIG}; judged against the reference, "
              f"allowing {DATA['allowance']}:")
    else:
        print(f"judged against the reference, allowing {DATA['allowance']}:")
    wrong = {level: check(f"opt_level={level}", _run(level, args)) for level in range(4)}
    failing = _opt_level(FAILING_CONFIG, None)
    # A pass list or pass order of difftest's own has no TVM level: any wrong level reproduces it.
    return wrong[failing] if failing is not None else any(wrong.values())


def main():
    args = _arguments()
    if DATA is not None:
        return 1 if _judge_every_level(args) else 0
    failing = _run(_opt_level(FAILING_CONFIG, 3), args)
    passing = _run(_opt_level(PASSING_CONFIG, 0), args)
    agree = [_compare(name, dtype, f, p) for (name, dtype), f, p in zip(OUTPUTS, failing, passing)]
    print("outputs agree" if all(agree) else "outputs differ")
    return 0 if all(agree) else 1


if __name__ == "__main__":
    sys.exit(main())
)PY";

}  // namespace

std::string repro_header(const Program& p, const TvmScriptOptions& options) {
  std::string out = "# repro_tvmscript.py: exported by difftest from program @" + p.name() + ".\n";
  if (options.expected && options.failing_config.empty()) {
    out += "# Builds Module at TVM opt_level 0..3, runs each on the inputs embedded in DATA and judges it\n";
    out += "# against the reference values there (computed by an independent float64 interpreter) within the\n";
    out += "# difference allowed per element: PASS or FAIL per level, exit 1 when any level is wrong. Needs\n";
    out += "# TVM with Relax and numpy (ml_dtypes for bfloat16).\n#\n";
  } else if (options.expected) {
    out += fmt::format(
        "# difftest found its result wrong under {}. Builds Module at TVM opt_level 0..3, runs each on the\n",
        options.failing_config);
    out += "# failing inputs and judges it against the reference values embedded in DATA (computed by an\n";
    out += "# independent float64 interpreter) within the difference allowed per element: PASS or FAIL per\n";
    out += "# level, exit 1 when the failing level is wrong. Needs TVM with Relax and numpy (ml_dtypes for\n";
    out += "# bfloat16).\n#\n";
  } else {
    out += fmt::format("# Builds Module at {} and at {}, runs both on the same seeded inputs and compares\n",
                       options.failing_config, options.passing_config);
    out += "# them (exit 1 when they differ). Needs TVM with Relax and numpy (ml_dtypes for bfloat16).\n#\n";
  }
  out += "# The program in difftest's IR (docs/ir.md):\n";
  std::string text = print(p);
  for (size_t at = 0; at < text.size();) {
    const size_t nl = text.find('\n', at);
    const size_t end = nl == std::string::npos ? text.size() : nl;
    out += "#   " + text.substr(at, end - at) + "\n";
    at = end + 1;
  }
  return out + "import json\nimport sys\n\nimport numpy as np\n" + module_imports();
}

std::string module_imports() {
  std::string out = "import tvm\nfrom tvm import relax\n";
  // TVM 0.27 (apache-tvm on PyPI) names TVMScript's TIR dialect `tirx`; earlier releases `tir`.
  out += "from tvm.script import ir as I, relax as R\n\n";
  out += "try:  # TVM 0.27 renamed TVMScript's TIR dialect\n    from tvm.script import tirx as T\n";
  out += "except ImportError:\n    from tvm.script import tir as T\n\n\n";
  return out;
}

std::string repro_driver(const Program& p, const TvmScriptOptions& options, const Emitter& e,
                         const std::vector<MainParam>& params, const std::vector<MainParam>& consts,
                         const std::vector<std::string>& shape_dims) {
  const sym::Env& env = options.binding;
  std::string out = "\n\n";
  out += fmt::format("FAILING_CONFIG = {}\nPASSING_CONFIG = {}\nSEED = 0\n", quote_py(options.failing_config),
                     quote_py(options.passing_config));
  std::string dims;
  for (const DimVar& d : p.dims()) {
    dims += fmt::format("{}{}: {}", dims.empty() ? "" : ", ", quote_py(d.name), dim_value(p, env, sym::Expr::var(d.name)));
  }
  out += fmt::format("DIMS = {{{}}}  # the binding of the program's dims the inputs use\n", dims);
  out +=
      "# main's tensor parameters: (name, shape, dtype); their values are DATA's inputs (random without DATA)\nINPUTS "
      "= [\n";
  for (const MainParam& m : params) {
    out += fmt::format("    ({}, {}, \"{}\"),\n", quote_py(e.name(m.value)), concrete_shape(p, env, m.value.type()),
                       tvm_dtype(m.value.type().dtype));
  }
  out += "]\n# difftest's constants, passed as main's next parameters: (name, shape, dtype, how)\nCONSTANTS = [\n";
  for (const MainParam& m : consts) {
    out += fmt::format("    ({}, {}, \"{}\", {}),\n", quote_py(e.name(m.value)), concrete_shape(p, env, m.value.type()),
                       tvm_dtype(m.value.type().dtype), how(*m.init, m.value.type()));
  }
  out += "]\n";
  if (shape_dims.empty()) {
    out += "SHAPE_ARGUMENT = None\n";
  } else {
    std::string values;
    for (const std::string& d : shape_dims) values += std::to_string(dim_value(p, env, sym::Expr::var(d))) + ", ";
    out += fmt::format("SHAPE_ARGUMENT = ({})  # main's last parameter: dims no tensor parameter binds\n", values);
  }
  out += "OUTPUTS = [";
  for (size_t i = 0; i < p.outputs().size(); ++i) {
    out += fmt::format("{}({}, \"{}\")", i ? ", " : "", quote_py(e.name(p.outputs()[i])),
                       tvm_dtype(p.outputs()[i].type().dtype));
  }
  out += "]\n";
  out += "# (rtol, atol) per dtype; integer and bool outputs must agree exactly\n";
  out += "TOLERANCE = {\"float64\": (1e-10, 1e-12), \"float32\": (1e-4, 1e-5), \"float16\": (1e-2, 1e-2), "
         "\"bfloat16\": (5e-2, 5e-2)}\n";
  out += expected_data(p, options, params);
  std::string code = kDriverCode;
  code.replace(code.find("@CHECK@"), 7, python_check_function());
  return out + code;
}

}  // namespace difftest::exporters::tvmscript
