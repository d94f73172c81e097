//===- shardc-fuzz.cpp - mutation fuzzing of shardc's input readers -------===//
//
//   shardc-fuzz TARGET [--seconds S] [--runs N] [--seed K] [--timeout S]
//                      [--min-reach F] [--findings DIR] [SEED_FILE_OR_DIR...]
//   shardc-fuzz TARGET --replay FILE...
//   shardc-fuzz --list
//
// Mutates the seeds (the target's built-in examples and the files given,
// directories searched for the target's extensions, MLIR split at
// "// -----") and runs each mutant in this process. A crash, a hang past
// --timeout, an uncaught exception or a failed allocation writes the input
// to --findings (default: .) and exits 1. The bound scales with what the
// seeds cost alone (they include whole test files, and a loaded machine
// slows them): a mutant may take 4 times the slowest seed's time, and
// --timeout at least; seeds themselves are bounded at 6 times --timeout.
// The last line says how many inputs ran and how many reached the code
// under test (the target's stage: a plan run, a lowering). Mutants the
// target accepts join the corpus.
//
// A fuzzer that stops reaching that code finds nothing and still passes, so
// it fails instead: when a built-in seed is rejected or does not reach the
// stage, and when fewer than the fraction F of the mutants do (--min-reach).
// --replay runs saved inputs once each (the regression inputs under
// test/fuzz/).
//
//===----------------------------------------------------------------------===//

#include "Fuzz.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <new>
#include <random>
#include <optional>
#include <sstream>
#include <sys/resource.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#endif

namespace fs = std::filesystem;
using namespace shardc::fuzz;

namespace {

// What a signal handler needs, prepared before each input runs.
std::string current;         // the input now running
int reportFd = 2;            // stderr, kept while the targets' output goes to /dev/null
char findingPath[4096] = ""; // where to save it
const char *targetName = "";
bool reachedStage = false; // set by the target (reached()) for the input now running

void saveCurrent(const char *why) {
  int fd = ::open(findingPath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0) {
    size_t done = 0;
    while (done < current.size()) {
      ssize_t n = ::write(fd, current.data() + done, current.size() - done);
      if (n <= 0)
        break;
      done += (size_t)n;
    }
    ::close(fd);
  }
  const char *parts[] = {"shardc-fuzz: ",      targetName,  ": ", why,
                         "; the input is in ", findingPath, "\n"};
  for (const char *p : parts)
    (void)!::write(reportFd, p, std::strlen(p));
}

void onSignal(int sig) {
  saveCurrent(sig == SIGALRM ? "timeout" : strsignal(sig));
  ::_exit(1);
}

void setFindingPath(const std::string &dir, const char *kind, uint64_t n) {
  std::snprintf(findingPath, sizeof(findingPath), "%s/%s-%s-%llu.bin", dir.c_str(), targetName,
                kind, (unsigned long long)n);
}

std::string readAll(const fs::path &p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// MLIR test files hold several inputs separated by "// -----" lines.
std::vector<std::string> splitInputs(const std::string &text, bool mlir) {
  if (!mlir)
    return {text};
  std::vector<std::string> parts;
  size_t start = 0, at;
  while ((at = text.find("\n// -----", start)) != std::string::npos) {
    parts.push_back(text.substr(start, at - start));
    start = text.find('\n', at + 1);
    start = start == std::string::npos ? text.size() : start + 1;
  }
  parts.push_back(text.substr(start));
  return parts;
}

[[noreturn]] void usage(const std::string &why, int code) {
  std::fprintf(code ? stderr : stdout,
               "%s%susage: shardc-fuzz TARGET [--seconds S] [--runs N] [--seed K] "
               "[--timeout S] [--min-reach F] [--findings DIR] [SEED_FILE_OR_DIR...]\n"
               "       shardc-fuzz TARGET --replay FILE...\n"
               "       shardc-fuzz --list\n",
               why.empty() ? "" : "shardc-fuzz: error: ", why.empty() ? "" : (why + "\n").c_str());
  std::exit(code);
}

} // namespace

#if defined(__SANITIZE_ADDRESS__)
// UBSan ends the process without running the death callback, but calls
// this hook first (its report follows).
extern "C" void __ubsan_on_report() { saveCurrent("undefined behaviour (UBSan report)"); }
#endif

void shardc::fuzz::reached() { reachedStage = true; }

namespace {

struct Options {
  double seconds = 0, timeout = 10, minReach = 0;
  uint64_t runs = 0, seed = 1;
  bool replay = false;
  std::string findings = ".";
  std::vector<std::string> paths;
};

/// The options after the target's name.
Options parseOptions(const std::vector<std::string> &args) {
  Options o;
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string &a = args[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= args.size())
        usage(a + " needs a value", 2);
      return args[++i];
    };
    if (a == "--seconds")
      o.seconds = std::atof(value().c_str());
    else if (a == "--runs")
      o.runs = std::strtoull(value().c_str(), nullptr, 10);
    else if (a == "--seed")
      o.seed = std::strtoull(value().c_str(), nullptr, 10);
    else if (a == "--timeout")
      o.timeout = std::atof(value().c_str());
    else if (a == "--findings")
      o.findings = value();
    else if (a == "--min-reach")
      o.minReach = std::atof(value().c_str());
    else if (a == "--replay")
      o.replay = true;
    else if (a.rfind("--", 0) == 0)
      usage("unknown option " + a, 2);
    else
      o.paths.push_back(a);
  }
  if (!o.replay && o.seconds <= 0 && o.runs == 0)
    o.seconds = 10;
  return o;
}

/// The files named, directories searched for the target's extensions, in
/// order.
std::vector<fs::path> inputFiles(const Target &target, const std::vector<std::string> &paths) {
  std::vector<fs::path> files;
  for (const std::string &p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      for (auto &e : fs::recursive_directory_iterator(p, ec))
        for (const std::string &ext : target.extensions)
          if (e.is_regular_file() && e.path().extension() == ext)
            files.push_back(e.path());
    } else if (fs::is_regular_file(p, ec)) {
      files.push_back(p);
    } else {
      usage("cannot read '" + p + "'", 2);
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

/// Runs a target's inputs in this process: a crash, a hang past the bound,
/// an uncaught exception or a failed allocation saves the input and ends
/// the process. The targets' own output (diagnostics of rejected inputs) is
/// noise here: between quiet() and loud() it goes to /dev/null, unless
/// SHARDC_FUZZ_VERBOSE=1 keeps it (to see what a sanitizer reports).
class Runner {
public:
  Runner(const Target &target, std::string findings)
      : target(target), findings(std::move(findings)) {
    // A memory limit turns an absurd allocation into std::bad_alloc (a
    // finding) instead of the machine swapping; sanitizers reserve address
    // space of their own and keep their limits.
#if !defined(__SANITIZE_ADDRESS__)
    rlimit limit{size_t(8) << 30, size_t(8) << 30};
    setrlimit(RLIMIT_AS, &limit);
#else
    __sanitizer_set_death_callback([] { saveCurrent("sanitizer report"); });
#endif
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGALRM})
      std::signal(sig, onSignal);
    std::fflush(stdout);
    realOut = ::dup(1);
    reportFd = ::dup(2);
    devnull = ::open("/dev/null", O_WRONLY);
    const char *v = std::getenv("SHARDC_FUZZ_VERBOSE");
    verbose = v && *v == '1';
  }

  void quiet() {
    if (verbose)
      return;
    std::fflush(stdout);
    std::fflush(stderr);
    ::dup2(devnull, 1);
    ::dup2(devnull, 2);
  }
  void loud() {
    std::fflush(stdout);
    std::fflush(stderr);
    ::dup2(realOut, 1);
    ::dup2(reportFd, 2);
  }

  /// Runs `input` (a `kind` input, number n) within `bound` seconds (0:
  /// none): whether the target accepted it.
  bool run(const std::string &input, const char *kind, uint64_t n, double bound) {
    current = input;
    reachedStage = false;
    setFindingPath(findings, kind, n);
    alarm(bound > 0 ? (unsigned)std::max(1.0, std::ceil(bound)) : 0);
    bool accepted = false;
    try {
      accepted = target.run(current);
    } catch (const std::bad_alloc &) {
      saveCurrent("an allocation failed (a size taken from the input unchecked?)");
      std::exit(1);
    } catch (const std::exception &e) {
      saveCurrent((std::string("uncaught exception: ") + e.what()).c_str());
      std::exit(1);
    } catch (...) {
      saveCurrent("uncaught exception");
      std::exit(1);
    }
    alarm(0);
    return accepted;
  }

private:
  const Target &target;
  std::string findings;
  int realOut = 1, devnull = -1;
  bool verbose = false;
};

/// What running the seeds alone showed.
struct SeedRun {
  double mutantBound; // see the header
  size_t reaching;    // seeds that reached the target's stage
};

/// Runs every seed as it is; an error where a built-in one (the first
/// `builtins`) is rejected or does not reach the stage.
std::optional<SeedRun> runSeeds(Runner &runner, const Target &target,
                                const std::vector<std::string> &corpus, size_t builtins,
                                double timeout) {
  SeedRun r{timeout, 0};
  runner.quiet();
  for (size_t i = 0; i < corpus.size(); ++i) {
    auto began = std::chrono::steady_clock::now();
    bool ok = runner.run(corpus[i], "seed", i, timeout > 0 ? 6 * timeout : 0);
    double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    if (timeout > 0)
      r.mutantBound = std::max(r.mutantBound, 4 * took);
    r.reaching += reachedStage;
    if (i < builtins && (!ok || (!target.stage.empty() && !reachedStage))) {
      runner.loud();
      std::fprintf(stderr,
                   "shardc-fuzz: %s: built-in seed %zu %s; the fuzzer no longer reaches the "
                   "code it tests\n",
                   targetName, i,
                   ok ? ("was accepted but never " + target.stage).c_str() : "was rejected");
      return std::nullopt;
    }
  }
  return r;
}

/// Mutates the corpus until the runs or seconds are spent, then says what
/// ran: 1 where fewer mutants than --min-reach reached the stage.
int fuzz(Runner &runner, const Target &target, std::vector<std::string> &corpus, const Options &o,
         const SeedRun &seeds) {
  size_t seedCount = corpus.size();
  std::mt19937_64 rng(o.seed);
  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  uint64_t n = 0, accepted = 0, reachedCount = 0;
  double nextReport = 5;
  while ((o.runs == 0 || n < o.runs) && (o.seconds <= 0 || elapsed() < o.seconds)) {
    const std::string &base = corpus[rng() % corpus.size()];
    std::string input = target.mutateFields && rng() % 2 ? target.mutateFields(base, rng)
                                                         : mutate(base, corpus, rng);
    bool ok = runner.run(input, "crash", n, seeds.mutantBound);
    reachedCount += reachedStage;
    if (ok) {
      ++accepted;
      if (corpus.size() < 4096 && rng() % 8 == 0)
        corpus.push_back(std::move(input));
    }
    ++n;
    if (elapsed() > nextReport) {
      dprintf(reportFd, "shardc-fuzz %s: %llu inputs, %.0f s\n", targetName, (unsigned long long)n,
              elapsed());
      nextReport += 5;
    }
  }
  runner.loud();
  double t = elapsed();
  std::string stage = target.stage.empty() ? "" : target.stage + ": ";
  std::printf("shardc-fuzz %s: %llu inputs in %.1f s (%.0f/s), %llu accepted, %s%llu; %zu seeds "
              "(%s%zu), corpus %zu; no finding\n",
              targetName, (unsigned long long)n, t, t > 0 ? n / t : 0.0,
              (unsigned long long)accepted, stage.c_str(), (unsigned long long)reachedCount,
              seedCount, stage.c_str(), seeds.reaching, corpus.size());
  if (o.minReach > 0 && (n == 0 || (double)reachedCount < o.minReach * (double)n)) {
    std::fprintf(stderr,
                 "shardc-fuzz: %s: %llu of %llu mutants (%.1f%%) %s, under the floor of "
                 "%.1f%%: the mutants no longer reach the code under test\n",
                 targetName, (unsigned long long)reachedCount, (unsigned long long)n,
                 n ? 100.0 * reachedCount / n : 0.0,
                 target.stage.empty() ? "were accepted" : target.stage.c_str(), 100 * o.minReach);
    return 1;
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  std::vector<Target> targets = runtimeTargets();
  for (Target &t : compilerTargets())
    targets.push_back(std::move(t));
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty())
    usage("a target is needed (--list shows them)", 2);
  if (args[0] == "--help" || args[0] == "-h")
    usage("", 0);
  if (args[0] == "--list") {
    for (const Target &t : targets)
      std::printf("%-12s %s\n", t.name.c_str(), t.description.c_str());
    return 0;
  }
  const Target *target = nullptr;
  for (const Target &t : targets)
    if (t.name == args[0])
      target = &t;
  if (!target)
    usage("no target '" + args[0] + "' (--list shows them)", 2);
  targetName = target->name.c_str();
  Options o = parseOptions(args);
  Runner runner(*target, o.findings);
  std::vector<fs::path> files = inputFiles(*target, o.paths);

  if (o.replay) {
    uint64_t n = 0;
    runner.quiet();
    for (const fs::path &f : files)
      runner.run(readAll(f), "replay", n++, o.timeout);
    runner.loud();
    std::printf("shardc-fuzz %s: replayed %llu inputs, no finding\n", targetName,
                (unsigned long long)n);
    return 0;
  }

  std::vector<std::string> corpus = target->seeds();
  size_t builtins = corpus.size();
  for (const fs::path &f : files)
    for (std::string &part : splitInputs(readAll(f), target->name == "mlir"))
      corpus.push_back(std::move(part));
  fs::create_directories(o.findings);
  std::optional<SeedRun> seeds = runSeeds(runner, *target, corpus, builtins, o.timeout);
  if (!seeds)
    return 1;
  return fuzz(runner, *target, corpus, o, *seeds);
}
