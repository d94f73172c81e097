// A pass option that names a missing function is one line naming the
// functions there are, not the module printed after it.
// RUN: not shardc-opt %S/train-step.mlir --shardc-train-step="function=nope" 2>&1 | FileCheck %s --check-prefix=STEP
// STEP: error: --shardc-train-step: no function @nope (functions: @data_parallel_mlp_loss)
// STEP-NOT: builtin.module
// RUN: not shardc-opt %S/autodiff.mlir --shardc-autodiff="function=nope" 2>&1 | FileCheck %s --check-prefix=GRAD
// GRAD: error: --shardc-autodiff: no function @nope (functions: @tanh_product_loss,
// GRAD-NOT: builtin.module
// RUN: not shardc-opt %S/autodiff.mlir --shardc-autodiff 2>&1 | FileCheck %s --check-prefix=NONE
// NONE: error: --shardc-autodiff needs function=NAME
// NONE-NOT: builtin.module
