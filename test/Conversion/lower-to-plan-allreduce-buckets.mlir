// RUN: shardc-opt %s --shardc-propagate --shardc-partition --shardc-lower-to-plan -o /dev/null | FileCheck %s --check-prefix=MERGED
// RUN: shardc-opt %s --shardc-propagate --shardc-partition --shardc-lower-to-plan="bucket-bytes=0" -o /dev/null | FileCheck %s --check-prefix=APART
// RUN: shardc-opt %s --shardc-propagate --shardc-partition --shardc-lower-to-plan="bucket-bytes=64" -o /dev/null | FileCheck %s --check-prefix=SMALL
// RUN: shardc-opt %s --shardc-compile="bucket-bytes=0" -o /dev/null | FileCheck %s --check-prefix=APART
// RUN: rm -rf %t && shardc compile %s -o %t.shardc --allreduce-bucket-bytes 0 --dump-stages %t > /dev/null
// RUN: FileCheck %s --check-prefix=APART < %t/03-plan.txt

// The all_reduces of independent partial sums (two column sums of a batch
// split over "data", 64 and 32 bytes) merge into one step over both buffers
// (a bucket), up to --allreduce-bucket-bytes: 0 merges nothing, and a
// bucket of 64 bytes holds the first but not both.
shardc.mesh @mesh = <["data"=2]>
func.func @sums(%x: tensor<8x16xf32> {shardc.sharding = #shardc.sharding<@mesh, [{"data"}, {}]>},
                %y: tensor<8x8xf32> {shardc.sharding = #shardc.sharding<@mesh, [{"data"}, {}]>})
    -> (tensor<16xf32>, tensor<8xf32>) {
  %a = shardc.reduce sum %x dims = [0] : (tensor<8x16xf32>) -> tensor<16xf32>
  %b = shardc.reduce sum %y dims = [0] : (tensor<8x8xf32>) -> tensor<8xf32>
  return %a, %b : tensor<16xf32>, tensor<8xf32>
}

// MERGED-LABEL: plan @sums on 2 device(s)
// MERGED: = reduce v0
// MERGED-NEXT: = reduce v1
// MERGED-NEXT: v3:f32[16]@0, v5:f32[8]@64 = all_reduce v2, v4 over "data"
// MERGED-NEXT: results: v3 v5

// APART-LABEL: plan @sums on 2 device(s)
// APART: = all_reduce v{{[0-9]+}} over "data"
// APART: = all_reduce v{{[0-9]+}} over "data"
// APART-NEXT: results:

// SMALL-LABEL: plan @sums on 2 device(s)
// SMALL: v3:f32[16]@0 = all_reduce v2 over "data"
// SMALL: v5:f32[8]@64 = all_reduce v4 over "data"
