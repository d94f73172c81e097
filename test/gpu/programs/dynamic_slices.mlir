// dynamic_slice and dynamic_update_slice, their starts read on the device:
// starts past the limit and negative ones (both clamped), i32 and i64
// starts, an update of an argument (copied first) and of an intermediate
// read for the last time (updated in place).
func.func @main(%x: tensor<8x6xf32>, %u: tensor<2x3xf32>, %i: tensor<i32>, %j: tensor<i32>,
                %c: tensor<4x5x3xi32>, %cu: tensor<1x2x3xi32>)
    -> (tensor<2x6xf32>, tensor<6x4xf32>, tensor<8x6xf32>, tensor<4x5x3xi32>,
        tensor<4x2x3xi32>) {
  // dim 1 spans the operand: any start clamps to 0.
  %r = shardc.dynamic_slice %x [%i, %j] : (tensor<8x6xf32>, tensor<i32>, tensor<i32>) -> tensor<2x6xf32>
  %n = shardc.neg %j : tensor<i32>
  %j64 = shardc.convert %j : tensor<i32> -> tensor<i64>
  %n64 = shardc.convert %n : tensor<i32> -> tensor<i64>
  // limits 2 and 2; %n64 <= 0.
  %r2 = shardc.dynamic_slice %x [%j64, %n64] : (tensor<8x6xf32>, tensor<i64>, tensor<i64>) -> tensor<6x4xf32>
  %y = shardc.dynamic_update_slice %x, %u [%j, %i] : (tensor<8x6xf32>, tensor<2x3xf32>, tensor<i32>, tensor<i32>) -> tensor<8x6xf32>
  %c2 = shardc.add %c, %c : tensor<4x5x3xi32>
  // limits 3, 3 and 0, over %c2's buffer.
  %z = shardc.dynamic_update_slice %c2, %cu [%i, %j, %i] : (tensor<4x5x3xi32>, tensor<1x2x3xi32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<4x5x3xi32>
  %w = shardc.dynamic_slice %z [%n, %i, %j] : (tensor<4x5x3xi32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<4x2x3xi32>
  return %r, %r2, %y, %z, %w : tensor<2x6xf32>, tensor<6x4xf32>, tensor<8x6xf32>, tensor<4x5x3xi32>, tensor<4x2x3xi32>
}
