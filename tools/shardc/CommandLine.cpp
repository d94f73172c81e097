//===- CommandLine.cpp - what the driver's commands share -----------------===//
//
// Error reporting and the command-line parser of every `shardc` command
// (see Commands.h); with the commands, a library the driver and the fuzzer
// (tools/shardc-fuzz) link.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "shardc/Common/CompileOptions.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <algorithm>

using namespace shardc::driver;

void shardc::driver::reportError(const std::string &message) {
  std::fprintf(stderr, "shardc: error: %s\n", message.c_str());
}

std::string CommandLine::get(const std::string &name, const std::string &fallback) const {
  for (auto it = values.rbegin(); it != values.rend(); ++it)
    if (it->first == name)
      return it->second;
  return fallback;
}

bool CommandLine::given(const std::string &name) const {
  for (const auto &[n, value] : values)
    if (n == name)
      return true;
  return false;
}

bool CommandLine::has(const std::string &flag) const {
  for (const std::string &f : flags)
    if (f == flag)
      return true;
  return false;
}

std::vector<std::string> shardc::driver::compileValueFlags() {
  std::vector<std::string> flags;
  for (const CompileOptions::Info &o : CompileOptions::options())
    if (o.scope == CompileOptions::Scope::Driver && !o.isFlag)
      flags.push_back(std::string("--") + o.flag);
  return flags;
}

std::vector<std::string> shardc::driver::compileOnOffFlags() {
  std::vector<std::string> flags;
  for (const CompileOptions::Info &o : CompileOptions::options())
    if (o.scope == CompileOptions::Scope::Driver && o.isFlag)
      flags.push_back(std::string("--") + o.flag);
  return flags;
}

std::vector<std::string> shardc::driver::withCompileFlags(std::vector<std::string> list,
                                                          bool onOff) {
  std::vector<std::string> more = onOff ? compileOnOffFlags() : compileValueFlags();
  list.insert(list.end(), more.begin(), more.end());
  return list;
}

bool shardc::driver::readCompileOptions(const CommandLine &cl, CompileOptions &options) {
  for (const CompileOptions::Info &o : CompileOptions::options()) {
    if (o.scope != CompileOptions::Scope::Driver)
      continue;
    std::string flag = std::string("--") + o.flag, problem;
    if (o.isFlag && cl.has(flag))
      problem = options.set(o.flag, "1");
    else if (!o.isFlag && cl.given(flag))
      problem = options.set(o.flag, cl.get(flag));
    if (!problem.empty()) {
      reportError(problem);
      return false;
    }
  }
  if (std::string problem = options.check(); !problem.empty()) {
    reportError(problem);
    return false;
  }
  return true;
}

/// `text` as lines of at most `width` columns, each after `indent` spaces
/// but the first, which continues `line`.
static std::string wrapped(std::string line, const std::string &text, size_t indent,
                           size_t width = 80) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    size_t room = width > line.size() ? width - line.size() : 20;
    size_t end = i + room >= text.size() ? text.size() : text.rfind(' ', i + room);
    if (end == std::string::npos || end <= i)
      end = std::min(text.size(), i + room);
    out += line + text.substr(i, end - i) + "\n";
    i = end < text.size() && text[end] == ' ' ? end + 1 : end;
    line = std::string(indent, ' ');
  }
  return out;
}

std::string shardc::driver::compileOptionsUsage(size_t indent) {
  std::string usage, line(indent, ' ');
  for (const CompileOptions::Info &o : CompileOptions::options()) {
    if (o.scope != CompileOptions::Scope::Driver)
      continue;
    std::string item =
        std::string("[--") + o.flag + (o.isFlag ? "" : std::string(" ") + o.metavar) + "]";
    if (line.size() + item.size() + 1 > 80 && line.size() > indent) {
      usage += line + "\n";
      line = std::string(indent, ' ');
    }
    line += (line.size() > indent ? " " : "") + item;
  }
  return usage + line + "\n";
}

std::string shardc::driver::compileOptionsHelp(const std::string &heading) {
  const size_t column = 22; // where the help text starts
  std::string help = "\n" + heading + "\n";
  for (const CompileOptions::Info &o : CompileOptions::options()) {
    if (o.scope != CompileOptions::Scope::Driver)
      continue;
    std::string name =
        std::string("  --") + o.flag + (o.isFlag ? "" : " " + std::string(o.metavar));
    if (name.size() < column) {
      help += wrapped(name + std::string(column - name.size(), ' '), o.help, column);
    } else {
      help += name + "\n";
      help += wrapped(std::string(column, ' '), o.help, column);
    }
  }
  return help;
}

std::optional<int> shardc::driver::parseCommandLine(const std::vector<std::string> &args,
                                                    const std::string &command,
                                                    const std::vector<std::string> &valueOptions,
                                                    const std::vector<std::string> &flagOptions,
                                                    const std::string &help, CommandLine &out) {
  auto contains = [](const std::vector<std::string> &list, const std::string &x) {
    for (const std::string &y : list)
      if (x == y)
        return true;
    return false;
  };
  for (size_t i = 0; i < args.size(); ++i) {
    std::string arg = args[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(help.c_str(), stdout);
      return kOk;
    }
    if (arg.empty() || arg[0] != '-') {
      if (!out.file.empty()) {
        reportError("more than one input file: '" + out.file + "' and '" + arg + "'");
        return kUsage;
      }
      out.file = arg;
      continue;
    }
    if (contains(flagOptions, arg)) {
      out.flags.push_back(arg);
      continue;
    }
    std::string value;
    size_t eq = arg.find('=');
    if (eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
    } else if (contains(valueOptions, arg)) {
      if (i + 1 >= args.size()) {
        reportError("option '" + arg + "' needs a value");
        return kUsage;
      }
      value = args[++i];
    }
    if (!contains(valueOptions, arg)) {
      reportError("unknown option '" + arg + "' for 'shardc " + command + "' (try --help)");
      return kUsage;
    }
    out.values.emplace_back(arg, value);
  }
  return std::nullopt;
}
