//===- OpCatalogue.h - the elementwise rows of OpCodes.def, for tests -----===//
//
// Tests that walk the catalogue iterate these rows, so an op added to
// OpCodes.def is tested by each of them without a change to the test, and a
// test that cannot cover a row fails naming it.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_TEST_UNITTESTS_OPCATALOGUE_H
#define SHARDC_TEST_UNITTESTS_OPCATALOGUE_H

#include "shardc/Runtime/Plan.h"

#include <string>
#include <vector>

namespace shardc::test {

struct ElementwiseRow {
  OpCode op;
  std::string name; // the dialect op is shardc.<name>
  int arity;        // 1 or 2
  bool integers;    // accepts integer operands
  double lo, hi;    // where the op is smooth and finite
};

inline const std::vector<ElementwiseRow> &elementwiseRows() {
  static const std::vector<ElementwiseRow> rows = {
#define SHARDC_UNARY(Name, name, number, types, partial, lo, hi, formula)                          \
  {OpCode::Name, #name, 1, acceptsIntegers(OpCode::Name), lo, hi},
#define SHARDC_BINARY(Name, name, number, types, partial, lo, hi, formula)                         \
  {OpCode::Name, #name, 2, acceptsIntegers(OpCode::Name), lo, hi},
#include "shardc/Common/OpCodes.def"
  };
  return rows;
}

inline std::vector<ElementwiseRow> elementwiseRows(int arity) {
  std::vector<ElementwiseRow> out;
  for (const ElementwiseRow &r : elementwiseRows())
    if (r.arity == arity)
      out.push_back(r);
  return out;
}

} // namespace shardc::test

#endif // SHARDC_TEST_UNITTESTS_OPCATALOGUE_H
