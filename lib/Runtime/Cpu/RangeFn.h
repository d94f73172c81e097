//===- RangeFn.h - a range function passed by reference ---------*- C++ -*-===//
//
// parallelRange and teamRange take the function they run by reference: its
// address and a call through it, never a copy. A std::function would hold a
// copy of the caller's lambda, on the heap for any lambda that captures more
// than two references (most of the kernels' ranges), at every call: a decode
// step makes some sixty such calls.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_LIB_RUNTIME_CPU_RANGEFN_H
#define SHARDC_LIB_RUNTIME_CPU_RANGEFN_H

#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>

namespace shardc::cpu {

/// fn(begin, end) for a callable the caller keeps alive for the call.
class RangeFn {
public:
  template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, RangeFn>>>
  RangeFn(F &&f) // NOLINT: converts from any callable, as std::function does
      : object_(const_cast<void *>(static_cast<const void *>(std::addressof(f)))),
        call_([](void *o, int64_t begin, int64_t end) {
          (*static_cast<std::remove_reference_t<F> *>(o))(begin, end);
        }) {}

  void operator()(int64_t begin, int64_t end) const { call_(object_, begin, end); }

private:
  void *object_;
  void (*call_)(void *, int64_t, int64_t);
};

} // namespace shardc::cpu

#endif // SHARDC_LIB_RUNTIME_CPU_RANGEFN_H
