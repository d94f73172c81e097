// RUN: shardc-opt --shardc-import-stablehlo %s -split-input-file | FileCheck %s

// GSPMD's sharding strings, on a mesh of the device count's prime factors.

// CHECK: shardc.mesh @gspmd = <["g0"=2, "g1"=2]>
// CHECK: func.func @main(
// CHECK-SAME: %arg0: tensor<8x8xf32> {shardc.sharding = #shardc.sharding<@gspmd, [{"g0", "g1"}, {}]>}
// CHECK-SAME: %arg1: tensor<8x8xf32> {shardc.sharding = #shardc.sharding<@gspmd, [{"g0"}, {"g1"}]>}
// CHECK-SAME: %arg2: tensor<8x8xf32> {shardc.sharding = #shardc.sharding<@gspmd, [{"g1"}, {"g0"}]>}
// CHECK-SAME: %arg3: tensor<8x8xf32> {shardc.sharding = #shardc.sharding<@gspmd, [{"g0"}, {}]>}
// CHECK-SAME: %arg4: tensor<8x8xf32> {shardc.sharding = #shardc.sharding<@gspmd, [{}, {"g1"}]>}
// CHECK-SAME: %arg5: tensor<8x8xf32> {shardc.sharding = #shardc.sharding<@gspmd, [{}, {}]>}
// CHECK-SAME: %arg6: tensor<8x8xf32>,
// CHECK-SAME: %arg7: tensor<8x8xf32> {shardc.sharding = #shardc.sharding<@gspmd, [{"g1"}, {"g0"}]>}
// CHECK-SAME: -> (tensor<8x8xf32> {shardc.sharding = #shardc.sharding<@gspmd, [{}, {"g0"}]>})
// CHECK-NEXT: %[[C:.*]] = shardc.sharding_constraint %arg0 <@gspmd, [{"g1"}, {}]>
// CHECK-NEXT: return %[[C]]
module attributes {mhlo.num_partitions = 4 : i32} {
  func.func @main(%arg0: tensor<8x8xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"},
                  %arg1: tensor<8x8xf32> {mhlo.sharding = "{devices=[2,2]<=[4]}"},
                  %arg2: tensor<8x8xf32> {mhlo.sharding = "{devices=[2,2]<=[2,2]T(1,0)}"},
                  %arg3: tensor<8x8xf32> {mhlo.sharding = "{devices=[2,1,2]<=[4] last_tile_dim_replicate}"},
                  %arg4: tensor<8x8xf32> {mhlo.sharding = "{devices=[1,2,2]<=[2,2]T(1,0) last_tile_dims={replicated}}"},
                  %arg5: tensor<8x8xf32> {mhlo.sharding = "{replicated}"},
                  %arg6: tensor<8x8xf32> {mhlo.sharding = "{maximal device=0}"},
                  %arg7: tensor<8x8xf32> {mhlo.sharding = "{devices=[2,2]0,2,1,3}"})
      -> (tensor<8x8xf32> {mhlo.sharding = "{devices=[1,2,2]<=[4] last_tile_dim_replicate}"}) {
    %0 = stablehlo.custom_call @Sharding(%arg0) {mhlo.sharding = "{devices=[2,1,2]<=[2,2]T(1,0) last_tile_dim_replicate}"} : (tensor<8x8xf32>) -> tensor<8x8xf32>
    return %0 : tensor<8x8xf32>
  }
}

// -----

// Six devices: axes of 2 and 3.
// CHECK: shardc.mesh @gspmd = <["g0"=2, "g1"=3]>
// CHECK: {shardc.sharding = #shardc.sharding<@gspmd, [{"g0", "g1"}]>}
// CHECK: {shardc.sharding = #shardc.sharding<@gspmd, [{"g1"}, {"g0"}]>}
func.func @main(%arg0: tensor<12xf32> {mhlo.sharding = "{devices=[6]<=[6]}"},
                %arg1: tensor<6x6xf32> {mhlo.sharding = "{devices=[3,2]<=[2,3]T(1,0)}"}) -> tensor<12xf32> {
  return %arg0 : tensor<12xf32>
}
