//===- Passes.td - shardc conversion passes ----------------*- tablegen -*-===//

#ifndef SHARDC_CONVERSION_PASSES_TD
#define SHARDC_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ShardcLowerToPlan : Pass<"shardc-lower-to-plan", "::mlir::ModuleOp"> {
  let summary = "Lowers per-device functions to the runtime's executable plan";
  let description = [{
    The last arrow of the flow, as a pass: every function with a body that is
    partitioned (or uses no mesh) is lowered to the Plan the runtime executes
    (one step per op or fused chain, buffers placed in the device arena by
    liveness, all_reduces merged into buckets), and the plan is written in
    its text form, the one `shardc compile --dump-stages` writes to
    `03-plan.txt`. The module itself is left as it is, so the pass ends a
    pipeline and lit tests FileCheck the plan:

    ```
    shardc-opt model.mlir --shardc-propagate --shardc-partition --shardc-lower-to-plan
    ```

    prints, per function:

    ```
    plan @f on 4 device(s); arena 256 bytes per device (512 without reuse)
    args: x=v0:f32[2x16]@arg w=v1:f32[16x4]@arg
      v2:f32[2x4]@0 = dot_general v0, v1
      ...
    results: v3
    ```

    A function that still needs partitioning, or an op no backend runs, is
    an error at the op.
  }];
  let options = [
    Option<"output", "output", "std::string", /*default=*/"\"-\"",
           "where to write the plans ('-': standard output)">,
    Option<"entry", "entry", "std::string", /*default=*/"\"\"",
           "only this function (default: every function)">,
    Option<"bucketBytes", "bucket-bytes", "int64_t", /*default=*/"int64_t(4) << 20",
           "merge all_reduces into buckets of up to this many bytes (0: none)">,
    Option<"rowPrograms", "row-programs", "bool", /*default=*/"false",
           "let fused chains read back their row reductions (a softmax in one "
           "pass over memory; the CPU backend runs them)">,
    Option<"bf16Outputs", "bf16-outputs", "bool", /*default=*/"false",
           "let a convert of a fused chain's value to bf16 join the chain, "
           "which then stores it at bf16 only (the CPU backend runs them)">,
    Option<"memoryBudget", "memory-budget", "int64_t", /*default=*/"0",
           "fail where a device would hold more than this many bytes in its "
           "buffers and arguments (0: no limit)">,
  ];
}

#endif // SHARDC_CONVERSION_PASSES_TD
