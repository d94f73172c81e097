//===- Plan.cpp - the executable plan -------------------------------------===//

#include "shardc/Runtime/Plan.h"

#include <string>

namespace shardc {

const char *opCodeName(OpCode op) {
  static const char *const names[] = {
      "constant", "iota", "neg", "abs", "exp", "log", "tanh", "sqrt", "rsqrt", "erf",
      "add", "sub", "mul", "div", "max", "min", "pow", "compare", "select", "convert",
      "dot_general", "reduce", "broadcast_in_dim", "reshape", "transpose", "slice",
      "concatenate", "take", "scatter_add", "all_reduce", "all_gather",
      "reduce_scatter", "all_to_all", "all_slice"};
  return names[(int)op];
}

bool isCollective(OpCode op) { return op >= OpCode::AllReduce; }

std::string describePlan(const Plan &plan) {
  auto value = [&](int32_t id) {
    const PlanValue &v = plan.values[id];
    std::string s = "v" + std::to_string(id) + ":" + dtypeName(v.dtype) + "[" + shapeString(v.shape) +
        "]";
    return s + (v.offset >= 0 ? "@" + std::to_string(v.offset) : std::string("@arg"));
  };
  std::string out = "plan @" + plan.entry + " on " + std::to_string(plan.numDevices()) +
                    " device(s); arena " + std::to_string(plan.arenaBytes) +
                    " bytes per device (" + std::to_string(plan.unsharedBytes) +
                    " without reuse)\n";
  out += "args:";
  for (size_t i = 0; i < plan.args.size(); ++i)
    out += " " + plan.argNames[i] + "=" + value(plan.args[i]);
  out += "\n";
  for (const PlanStep &s : plan.steps) {
    out += "  ";
    for (size_t i = 0; i < s.outputs.size(); ++i)
      out += (i ? ", " : "") + value(s.outputs[i]);
    out += std::string(" = ") + opCodeName(s.op);
    for (size_t i = 0; i < s.inputs.size(); ++i)
      out += (i ? ", v" : " v") + std::to_string(s.inputs[i]);
    if (!s.axes.empty()) {
      out += " over";
      for (const std::string &a : s.axes)
        out += " \"" + a + "\"";
    }
    out += "\n";
  }
  out += "results:";
  for (int32_t id : plan.results)
    out += " v" + std::to_string(id);
  return out + "\n";
}

} // namespace shardc
