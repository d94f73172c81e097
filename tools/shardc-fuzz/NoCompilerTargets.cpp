//===- NoCompilerTargets.cpp - a build without the compiler ---------------===//

#include "Fuzz.h"

namespace shardc::fuzz {

std::vector<Target> compilerTargets() { return {}; }

} // namespace shardc::fuzz
