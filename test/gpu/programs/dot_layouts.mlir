// dot_general layouts: plain, transposed operands, batched, batched with
// transposes, permuted batch dims, two contracting dims, f64 and i32.
func.func @main(%a: tensor<67x129xf32>, %b: tensor<129x31xf32>, %at: tensor<129x67xf32>,
                %bt: tensor<31x129xf32>, %q: tensor<3x7x13xf32>, %k: tensor<3x5x13xf32>,
                %p: tensor<7x3x13xf32>, %v: tensor<13x5x3xf32>, %c: tensor<7x5x3xf32>,
                %d: tensor<5x3x11xf32>, %f: tensor<17x9xf64>, %g: tensor<9x5xf64>,
                %i: tensor<6x4xi32>, %j: tensor<4x3xi32>)
    -> (tensor<67x31xf32>, tensor<67x31xf32>, tensor<67x31xf32>, tensor<3x7x5xf32>,
        tensor<3x7x5xf32>, tensor<7x11xf32>, tensor<17x5xf64>, tensor<6x3xi32>) {
  %r0 = shardc.dot_general %a, %b contracting_dims = [1] x [0] : (tensor<67x129xf32>, tensor<129x31xf32>) -> tensor<67x31xf32>
  %r1 = shardc.dot_general %at, %bt contracting_dims = [0] x [1] : (tensor<129x67xf32>, tensor<31x129xf32>) -> tensor<67x31xf32>
  %r2 = shardc.dot_general %a, %bt contracting_dims = [1] x [1] : (tensor<67x129xf32>, tensor<31x129xf32>) -> tensor<67x31xf32>
  %r3 = shardc.dot_general %q, %k batching_dims = [0] x [0], contracting_dims = [2] x [2] : (tensor<3x7x13xf32>, tensor<3x5x13xf32>) -> tensor<3x7x5xf32>
  %r4 = shardc.dot_general %p, %v batching_dims = [1] x [2], contracting_dims = [2] x [0] : (tensor<7x3x13xf32>, tensor<13x5x3xf32>) -> tensor<3x7x5xf32>
  %r5 = shardc.dot_general %c, %d contracting_dims = [1, 2] x [0, 1] : (tensor<7x5x3xf32>, tensor<5x3x11xf32>) -> tensor<7x11xf32>
  %r6 = shardc.dot_general %f, %g contracting_dims = [1] x [0] : (tensor<17x9xf64>, tensor<9x5xf64>) -> tensor<17x5xf64>
  %r7 = shardc.dot_general %i, %j contracting_dims = [1] x [0] : (tensor<6x4xi32>, tensor<4x3xi32>) -> tensor<6x3xi32>
  return %r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7 : tensor<67x31xf32>, tensor<67x31xf32>, tensor<67x31xf32>, tensor<3x7x5xf32>, tensor<3x7x5xf32>, tensor<7x11xf32>, tensor<17x5xf64>, tensor<6x3xi32>
}
