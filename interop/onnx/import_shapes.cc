// Shape arithmetic on dims (import_context.h): what exporters write to compute a reshape's
// target from the inputs' shapes (Shape -> Slice/Gather -> Mul -> Concat -> Reshape) becomes
// the dim expressions difftest's ops take as attributes. ONNX's integer Div truncates; dims are
// >= 0, where it is the floor division the expressions use.
#include <fmt/format.h>

#include <algorithm>

#include "compiler/sym/sym_simplify.h"
#include "interop/onnx/import_context.h"

namespace difftest::interop {

namespace {

using ShapeValue = GraphImport::ShapeValue;

// Input `i` as a shape value: one already, or a small integer constant.
std::optional<ShapeValue> as_shape(const GraphImport& g, const NodeImport& n, size_t i) {
  if (!n.has_input(i)) return std::nullopt;
  const std::string& name = n.node().input(static_cast<int>(i));
  if (const auto* s = g.shape_value(name)) return *s;
  const std::optional<Value> v = g.lookup(name);
  if (!v) return std::nullopt;
  const Tensor* t = g.constant_of(*v);
  if (!t || is_float(t->dtype()) || t->rank() > 1 || t->numel() > 64) return std::nullopt;
  ShapeValue out{{}, t->rank() == 0};
  for (const int64_t x : t->to_ints()) out.elements.push_back(sym::Expr::constant(x));
  return out;
}

bool is_shape_value(const GraphImport& g, const NodeImport& n, size_t i) {
  return n.has_input(i) && g.shape_value(n.node().input(static_cast<int>(i))) != nullptr;
}

std::vector<int64_t> constant_ints(const NodeImport& n, const std::optional<ShapeValue>& s, const char* what) {
  std::vector<int64_t> out;
  if (!s) return out;
  for (const auto& e : s->elements) {
    if (!e.is_const()) {
      n.unsupported("symbolic shape arithmetic", fmt::format("{}: {} must be constants", n.where(), what));
    }
    out.push_back(e.value());
  }
  return out;
}

sym::Expr apply(const std::string& op, const sym::Expr& a, const sym::Expr& b) {
  if (a.is_const() && b.is_const()) {
    const int64_t x = a.value(), y = b.value();
    if (op == "Add") return x + y;
    if (op == "Sub") return x - y;
    if (op == "Mul") return x * y;
    if (op == "Div") return y == 0 ? 0 : x / y;  // ONNX truncates
    if (op == "Mod") return y == 0 ? 0 : ((x % y) + y) % y;
    if (op == "Min") return std::min(x, y);
    return std::max(x, y);
  }
  if (op == "Add") return a + b;
  if (op == "Sub") return a - b;
  if (op == "Mul") return a * b;
  if (op == "Div") return sym::floordiv(a, b);
  if (op == "Mod") return sym::floormod(a, b);
  if (op == "Min") return sym::min(a, b);
  return sym::max(a, b);
}

}  // namespace

bool fold_shape_arithmetic(GraphImport& g, const NodeImport& n) {
  const std::string& op = n.node().op_type();
  const auto bind = [&](ShapeValue v) {
    for (auto& e : v.elements) e = sym::simplify(e, g.ranges());
    g.bind_shape(n.node().output(0), std::move(v));
    return true;
  };
  if (op == "Shape") {
    if (n.has_attr("start") || n.has_attr("end")) return false;
    if (const auto* extent = g.extent(n.node().input(0))) return bind({*extent, false});
    const std::optional<Value> x = g.lookup(n.node().input(0));
    if (!x) return false;
    return bind({x->type().shape, false});
  }
  static const std::vector<std::string> kElementwise = {"Add", "Sub", "Mul", "Div", "Mod", "Min", "Max"};
  const bool elementwise = std::find(kElementwise.begin(), kElementwise.end(), op) != kElementwise.end();
  const bool known = elementwise || op == "Slice" || op == "Gather" || op == "Concat" || op == "Squeeze" ||
                     op == "Unsqueeze" || op == "Cast" || op == "Identity" || op == "Size" || op == "ConstantOfShape";
  if (!known || n.node().output_size() != 1) return false;
  bool any_shape = false;
  for (size_t i = 0; i < n.num_inputs(); ++i) any_shape = any_shape || is_shape_value(g, n, i);
  if (!any_shape) return false;
  if (elementwise) {
    // A 0-length operand: a 0-length result (NumPy's broadcast of an empty shape).
    const auto a = as_shape(g, n, 0), b = as_shape(g, n, 1);
    if (!a || !b || n.num_inputs() != 2) return false;
    const size_t len = std::max(a->elements.size(), b->elements.size());
    if ((a->elements.size() != len && a->elements.size() != 1) ||
        (b->elements.size() != len && b->elements.size() != 1)) {
      return false;
    }
    ShapeValue out{{}, a->scalar && b->scalar, a->dtype};
    for (size_t i = 0; i < len; ++i) {
      out.elements.push_back(
          apply(op, a->elements[a->elements.size() == 1 ? 0 : i], b->elements[b->elements.size() == 1 ? 0 : i]));
    }
    return bind(out);
  }
  const auto x = as_shape(g, n, 0);
  if (!x) return false;
  if (op == "Size")
    return bind({{sym::Expr::constant(x->scalar ? 1 : static_cast<int64_t>(x->elements.size()))}, true});
  if (op == "ConstantOfShape") {
    // [k] ones (or another integer) of a shape's arithmetic: a shape value of k copies. A
    // symbolic shape is a tensor (the ConstantOfShape translator's full).
    if (x->elements.size() != 1 || !x->elements[0].is_const()) return false;
    const std::vector<int64_t> count = constant_ints(n, x, "ConstantOfShape's shape");
    const ::onnx::TensorProto* fill = n.attr_tensor("value");
    if (count.size() != 1 || count[0] < 0 || count[0] > 64 || !fill) return false;
    const Tensor value = tensor_from_proto(*fill, n.where());
    if (value.dtype() != DType::i64) return false;
    return bind({std::vector<sym::Expr>(static_cast<size_t>(count[0]), sym::Expr::constant(value.get_int(0))), false});
  }
  if (op == "Identity" || op == "Cast") {
    if (op == "Cast" && n.attr_int("to", 0) != ::onnx::TensorProto::INT64 &&
        n.attr_int("to", 0) != ::onnx::TensorProto::INT32) {
      return false;
    }
    ShapeValue out = *x;
    if (op == "Cast") out.dtype = n.attr_int("to", 0) == ::onnx::TensorProto::INT32 ? DType::i32 : DType::i64;
    return bind(out);
  }
  if (op == "Concat") {
    ShapeValue out;
    for (size_t i = 0; i < n.num_inputs(); ++i) {
      const auto part = as_shape(g, n, i);
      if (!part || part->scalar) return false;
      out.elements.insert(out.elements.end(), part->elements.begin(), part->elements.end());
    }
    return bind(out);
  }
  if (op == "Unsqueeze") {
    if (!x->scalar) return false;
    return bind({x->elements, false, x->dtype});
  }
  if (op == "Squeeze") {
    if (x->scalar || x->elements.size() != 1) return false;
    return bind({x->elements, true, x->dtype});
  }
  const auto len = static_cast<int64_t>(x->elements.size());
  if (op == "Gather") {
    const auto idx = as_shape(g, n, 1);
    if (x->scalar || !idx) return false;
    ShapeValue out{{}, idx->scalar};
    for (int64_t i : constant_ints(n, idx, "Gather's indices")) {
      if (i < 0) i += len;
      if (i < 0 || i >= len) throw UserError(ErrorKind::Shape, fmt::format("{}: index out of range", n.where()));
      out.elements.push_back(x->elements[static_cast<size_t>(i)]);
    }
    return bind(out);
  }
  // Slice of a 1-D shape value along axis 0.
  if (x->scalar) return false;
  const std::vector<int64_t> starts = constant_ints(n, as_shape(g, n, 1), "Slice's starts");
  const std::vector<int64_t> ends = constant_ints(n, as_shape(g, n, 2), "Slice's ends");
  const std::vector<int64_t> axes = constant_ints(n, as_shape(g, n, 3), "Slice's axes");
  const std::vector<int64_t> steps = constant_ints(n, as_shape(g, n, 4), "Slice's steps");
  if (starts.size() != 1 || ends.size() != 1 || (!axes.empty() && axes != std::vector<int64_t>{0}) ||
      (!steps.empty() && steps != std::vector<int64_t>{1})) {
    return false;
  }
  const auto clamp = [&](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + len : v, 0, len); };
  const int64_t from = clamp(starts[0]), to = clamp(ends[0]);
  ShapeValue out;
  for (int64_t i = from; i < to; ++i) out.elements.push_back(x->elements[static_cast<size_t>(i)]);
  return bind(out);
}

}  // namespace difftest::interop
