//===- DialectBuildTest.cpp - building shardc IR from C++ -----------------===//
//
// Builds modules with the C++ API the way the tracing frontend does: a mesh, a
// function with sharded arguments, ops whose result types are inferred. Checks
// that the result verifies and prints as expected, that malformed shardings
// are verifier errors with a readable reason, and the sharding helpers
// (local types, replicated/open shardings, mesh queries).
//
//===----------------------------------------------------------------------===//

#include "shardc/Dialect/Shardc/IR/ShardcOps.h"
#include "shardc/Interpreter/Interpreter.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace mlir;
using namespace shardc;

namespace {

/// Collects every diagnostic emitted in a context while it is alive.
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(MLIRContext &ctx)
      : handler(&ctx, [this](Diagnostic &diag) {
          messages.push_back(diag.str());
          return success();
        }) {}

  /// All messages, one per line.
  std::string text() const {
    std::string all;
    for (const std::string &m : messages)
      all += m + "\n";
    return all;
  }

  std::vector<std::string> messages;

private:
  ScopedDiagnosticHandler handler;
};

/// Succeeds when `needle` occurs in `text`; otherwise shows both.
::testing::AssertionResult contains(const std::string &text, const std::string &needle) {
  if (text.find(needle) != std::string::npos)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "expected to find\n  " << needle << "\nin\n" << text;
}

std::string print(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  op->print(os);
  return text;
}

class DialectBuildTest : public ::testing::Test {
protected:
  DialectBuildTest() : builder(&ctx), loc(UnknownLoc::get(&ctx)) {
    ctx.loadDialect<ShardcDialect, func::FuncDialect>();
    module = ModuleOp::create(loc);
    builder.setInsertionPointToEnd(module->getBody());
  }

  /// Adds `shardc.mesh @name = <[names[i]=sizes[i], ...]>` to the module.
  MeshOp addMesh(StringRef name, ArrayRef<StringRef> names, ArrayRef<int64_t> sizes) {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(module->getBody());
    return MeshOp::create(builder, loc, name, builder.getStrArrayAttr(names), sizes);
  }

  /// One dimension sharding: closed unless `open`.
  DimShardingAttr dim(ArrayRef<StringRef> axes, bool open = false) {
    SmallVector<StringAttr> attrs;
    for (StringRef a : axes)
      attrs.push_back(builder.getStringAttr(a));
    return DimShardingAttr::get(&ctx, attrs, open);
  }

  ShardingAttr sharding(StringRef mesh, ArrayRef<DimShardingAttr> dims) {
    return ShardingAttr::get(&ctx, FlatSymbolRefAttr::get(&ctx, mesh), dims);
  }

  RankedTensorType f32(ArrayRef<int64_t> shape) {
    return RankedTensorType::get(shape, builder.getF32Type());
  }

  /// A function `@name` with the given signature and an entry block; the
  /// builder is left at the start of its body.
  func::FuncOp addFunc(StringRef name, TypeRange inputs, TypeRange results) {
    builder.setInsertionPointToEnd(module->getBody());
    auto fn = func::FuncOp::create(builder, loc, name, builder.getFunctionType(inputs, results));
    Block *entry = fn.addEntryBlock();
    builder.setInsertionPointToStart(entry);
    return fn;
  }

  MLIRContext ctx;
  OpBuilder builder;
  Location loc;
  OwningOpRef<ModuleOp> module;
};

//===----------------------------------------------------------------------===//
// Building and printing
//===----------------------------------------------------------------------===//

TEST_F(DialectBuildTest, MeshOpBuildsAndAnswersQueries) {
  MeshOp mesh = addMesh("mesh_2x4", {"data", "model"}, {2, 4});
  ASSERT_TRUE(succeeded(verify(*module)));
  EXPECT_EQ(mesh.getSymName(), "mesh_2x4");
  EXPECT_EQ(mesh.getNumDevices(), 8);
  EXPECT_EQ(mesh.getAxisSize("data"), 2);
  EXPECT_EQ(mesh.getAxisSize("model"), 4);
  EXPECT_EQ(mesh.getAxisIndex("data"), 0);
  EXPECT_EQ(mesh.getAxisIndex("model"), 1);
  EXPECT_EQ(mesh.getAxisIndex("pipeline"), -1);
  EXPECT_TRUE(contains(print(*module), "shardc.mesh @mesh_2x4 = <[\"data\"=2, \"model\"=4]>"));

  MeshOp single = addMesh("mesh_1", {"x"}, {1});
  EXPECT_EQ(single.getNumDevices(), 1);
  EXPECT_EQ(lookupMesh(*module, FlatSymbolRefAttr::get(&ctx, "mesh_2x4")), mesh);
  EXPECT_EQ(lookupMesh(*module, FlatSymbolRefAttr::get(&ctx, "mesh_1")), single);
  EXPECT_FALSE(lookupMesh(*module, FlatSymbolRefAttr::get(&ctx, "absent")));
}

TEST_F(DialectBuildTest, ShardedFunctionWithInferredResultTypes) {
  addMesh("mesh", {"data", "model"}, {2, 4});
  ShardingAttr xSharding = sharding("mesh", {dim({"data"}), dim({}, /*open=*/true)});
  // (8, 16) x (16, 4) -> (8, 4); then reduce, transpose and compare.
  func::FuncOp fn = addFunc("main", {f32({8, 16}), f32({16, 4})},
                            {f32({8, 4}), f32({8}), f32({4, 8}),
                             RankedTensorType::get({8, 4}, builder.getI1Type()), f32({2, 8})});
  fn.setArgAttr(0, ShardcDialect::kShardingAttrName, xSharding);
  fn.setArgAttr(0, ShardcDialect::kArgNameAttrName, builder.getStringAttr("x"));
  fn.setResultAttr(0, ShardcDialect::kShardingAttrName, sharding("mesh", {dim({"data"}), dim({})}));
  Value x = fn.getArgument(0), w = fn.getArgument(1);

  Value dot = DotGeneralOp::create(builder, loc, x, w, ArrayRef<int64_t>{}, ArrayRef<int64_t>{},
                                   ArrayRef<int64_t>{1}, ArrayRef<int64_t>{0});
  Value reduce = ReduceOp::create(builder, loc, ReduceKind::Sum, dot, ArrayRef<int64_t>{1});
  Value transpose = TransposeOp::create(builder, loc, dot, ArrayRef<int64_t>{1, 0});
  Value one = ConstantOp::create(
      builder, loc, DenseElementsAttr::get(f32({8, 4}), builder.getF32FloatAttr(1.0f)));
  Value sum = AddOp::create(builder, loc, dot, one);
  Value exp = ExpOp::create(builder, loc, sum);
  Value cmp = CompareOp::create(builder, loc, CompareDirection::LT, sum, exp);
  Value constrained = ShardingConstraintOp::create(
      builder, loc, sum, sharding("mesh", {dim({"data"}), dim({}, /*open=*/true)}));
  // Row-wise dot products: batching dim 0, contracting dim 1, nothing free.
  Value rowDots =
      DotGeneralOp::create(builder, loc, constrained, constrained, ArrayRef<int64_t>{0},
                           ArrayRef<int64_t>{0}, ArrayRef<int64_t>{1}, ArrayRef<int64_t>{1});
  Value slice = SliceOp::create(builder, loc, transpose, ArrayRef<int64_t>{0, 0},
                                ArrayRef<int64_t>{4, 8}, ArrayRef<int64_t>{2, 1});
  func::ReturnOp::create(builder, loc, ValueRange{constrained, reduce, transpose, cmp, slice});

  EXPECT_EQ(dot.getType(), f32({8, 4}));
  EXPECT_EQ(reduce.getType(), f32({8}));
  EXPECT_EQ(transpose.getType(), f32({4, 8}));
  EXPECT_EQ(cmp.getType(), RankedTensorType::get({8, 4}, builder.getI1Type()));
  EXPECT_EQ(sum.getType(), f32({8, 4}));
  EXPECT_EQ(exp.getType(), f32({8, 4}));
  EXPECT_EQ(constrained.getType(), f32({8, 4}));
  EXPECT_EQ(rowDots.getType(), f32({8}));
  EXPECT_EQ(slice.getType(), f32({2, 8}));
  EXPECT_EQ(one.getType(), f32({8, 4}));

  DiagnosticCollector diags(ctx);
  ASSERT_TRUE(succeeded(verify(*module))) << diags.text();

  std::string text = print(*module);
  for (const char *expected : {
           "shardc.mesh @mesh = <[\"data\"=2, \"model\"=4]>",
           "shardc.sharding = #shardc.sharding<@mesh, [{\"data\"}, {?}]>",
           "shardc.name = \"x\"",
           "shardc.dot_general %arg0, %arg1 contracting_dims = [1] x [0] : "
           "(tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>",
           "batching_dims = [0] x [0], contracting_dims = [1] x [1]",
           "shardc.reduce sum",
           "dims = [1] : (tensor<8x4xf32>) -> tensor<8xf32>",
           "permutation = [1, 0] : (tensor<8x4xf32>) -> tensor<4x8xf32>",
           "shardc.compare lt,",
           "shardc.sharding_constraint",
           "<@mesh, [{\"data\"}, {?}]> : tensor<8x4xf32>",
           "strides = [2, 1]",
           "-> (tensor<8x4xf32> {shardc.sharding = #shardc.sharding<@mesh, [{\"data\"}, "
           "{}]>}",
       })
    EXPECT_TRUE(contains(text, expected));

  // The printed form parses back to an equivalent, verified module.
  OwningOpRef<ModuleOp> reparsed = parseSourceString<ModuleOp>(text, &ctx);
  ASSERT_TRUE(reparsed) << diags.text();
  EXPECT_EQ(print(*reparsed), text);
}

TEST_F(DialectBuildTest, ElementwiseBuildersInferTheOperandType) {
  RankedTensorType t = f32({3});
  func::FuncOp fn = addFunc("elementwise", {t, t}, {t});
  Value a = fn.getArgument(0), b = fn.getArgument(1);
  Value v = AddOp::create(builder, loc, a, b);
  v = SubOp::create(builder, loc, v, b);
  v = MulOp::create(builder, loc, v, a);
  v = DivOp::create(builder, loc, v, b);
  v = MaxOp::create(builder, loc, v, a);
  v = MinOp::create(builder, loc, v, b);
  v = PowOp::create(builder, loc, v, a);
  v = NegOp::create(builder, loc, v);
  v = AbsOp::create(builder, loc, v);
  v = ExpOp::create(builder, loc, v);
  v = LogOp::create(builder, loc, v);
  v = TanhOp::create(builder, loc, v);
  v = SqrtOp::create(builder, loc, v);
  v = RsqrtOp::create(builder, loc, v);
  v = ErfOp::create(builder, loc, v);
  EXPECT_EQ(v.getType(), t);
  func::ReturnOp::create(builder, loc, v);
  DiagnosticCollector diags(ctx);
  EXPECT_TRUE(succeeded(verify(*module))) << diags.text();
}

TEST_F(DialectBuildTest, DataMovementBuildersInferShapes) {
  RankedTensorType i32x3 = RankedTensorType::get({3}, builder.getI32Type());
  func::FuncOp fn = addFunc("moves", {f32({4, 2}), i32x3}, {});
  Value table = fn.getArgument(0), idx = fn.getArgument(1);
  Value take = TakeOp::create(builder, loc, table, idx);
  EXPECT_EQ(take.getType(), f32({3, 2}));
  Value scatter = ScatterAddOp::create(builder, loc, table, idx, take);
  EXPECT_EQ(scatter.getType(), f32({4, 2}));
  Value concat = ConcatenateOp::create(builder, loc, ValueRange{table, take, table},
                                       builder.getI64IntegerAttr(0));
  EXPECT_EQ(concat.getType(), f32({11, 2}));
  Value batched =
      DotGeneralOp::create(builder, loc, take, take, ArrayRef<int64_t>{0}, ArrayRef<int64_t>{0},
                           ArrayRef<int64_t>{}, ArrayRef<int64_t>{});
  // Batching dims first, then the free dims of lhs, then those of rhs.
  EXPECT_EQ(batched.getType(), f32({3, 2, 2}));
  Value reduceAll =
      ReduceOp::create(builder, loc, ReduceKind::Max, batched, ArrayRef<int64_t>{0, 2});
  EXPECT_EQ(reduceAll.getType(), f32({2}));
  // Types that are not inferred are given.
  Value bcast =
      BroadcastInDimOp::create(builder, loc, f32({5, 2}), reduceAll, ArrayRef<int64_t>{1});
  Value reshape = ReshapeOp::create(builder, loc, f32({10}), bcast);
  EXPECT_EQ(reshape.getType(), f32({10}));
  Value iota = IotaOp::create(builder, loc, i32x3, builder.getI64IntegerAttr(0));
  Value conv = ConvertOp::create(builder, loc, f32({3}), iota);
  Value cmp = CompareOp::create(builder, loc, CompareDirection::GE, conv, conv);
  Value sel = SelectOp::create(builder, loc, cmp, conv, conv);
  EXPECT_EQ(sel.getType(), f32({3}));
  func::ReturnOp::create(builder, loc, ValueRange{});
  DiagnosticCollector diags(ctx);
  EXPECT_TRUE(succeeded(verify(*module))) << diags.text();
}

TEST_F(DialectBuildTest, ShardMapWithCollectivesBuildsVerifiesAndRuns) {
  addMesh("mesh", {"data"}, {4});
  ShardingAttr rows = sharding("mesh", {dim({"data"}), dim({})});
  ShardingAttr replicated =
      ShardingAttr::getReplicated(&ctx, FlatSymbolRefAttr::get(&ctx, "mesh"), 2);
  func::FuncOp fn = addFunc("pmean", {f32({8, 3})}, {f32({2, 3})});
  auto shardMap =
      ShardMapOp::create(builder, loc, TypeRange{f32({2, 3})}, ValueRange{fn.getArgument(0)},
                         builder.getArrayAttr({rows}), builder.getArrayAttr({replicated}));
  Block *body = builder.createBlock(&shardMap.getBody(), {}, {f32({2, 3})}, {loc});
  AllReduceOp mean = AllReduceOp::create(builder, loc, ReduceKind::Mean, body->getArgument(0),
                                         "mesh", builder.getStrArrayAttr({"data"}));
  EXPECT_EQ(mean.getType(), f32({2, 3}));
  EXPECT_EQ(mean.getGroupSize(), 4);
  ReturnOp::create(builder, loc, ValueRange{mean.getResult()});
  builder.setInsertionPointAfter(shardMap);
  func::ReturnOp::create(builder, loc, shardMap.getResults());

  DiagnosticCollector diags(ctx);
  ASSERT_TRUE(succeeded(verify(*module))) << diags.text();
  EXPECT_EQ(shardMap.getMeshRef().getValue(), "mesh");
  std::string text = print(*module);
  EXPECT_TRUE(contains(text, "in_shardings = [<@mesh, [{\"data\"}, {}]>] "
                             "out_shardings = [<@mesh, [{}, {}]>]"));
  EXPECT_TRUE(contains(text, "shardc.all_reduce mean %arg"));
  EXPECT_TRUE(contains(text, "on @mesh [\"data\"] : tensor<2x3xf32>"));

  // The built program runs: the mean of the four row blocks of x.
  std::vector<double> x(24);
  for (int i = 0; i < 24; ++i)
    x[i] = i;
  FailureOr<std::vector<Array>> out = interpret(fn, {Array::fromDoubles(DType::F32, {8, 3}, x)});
  ASSERT_TRUE(succeeded(out)) << diags.text();
  ASSERT_EQ(out->size(), 1u);
  // Element (r, c) is the mean over b of x[2b + r][c] = 3(2b + r) + c.
  std::vector<double> expected;
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 3; ++c)
      expected.push_back((3.0 * (2 * 0 + r) + c + 3.0 * (2 * 1 + r) + c + 3.0 * (2 * 2 + r) + c +
                          3.0 * (2 * 3 + r) + c) /
                         4);
  EXPECT_EQ((*out)[0].toDoubles(), expected);
}

//===----------------------------------------------------------------------===//
// Sharding helpers
//===----------------------------------------------------------------------===//

TEST_F(DialectBuildTest, ReplicatedAndOpenShardings) {
  auto meshRef = FlatSymbolRefAttr::get(&ctx, "mesh");
  ShardingAttr replicated = ShardingAttr::getReplicated(&ctx, meshRef, 3);
  EXPECT_EQ(replicated.getRank(), 3);
  EXPECT_EQ(replicated.getMesh(), meshRef);
  EXPECT_TRUE(replicated.isClosed());
  EXPECT_TRUE(replicated.isReplicated());
  for (int64_t d = 0; d < 3; ++d)
    EXPECT_TRUE(replicated.getDimAxes(d).empty());

  ShardingAttr open = ShardingAttr::getOpen(&ctx, meshRef, 2);
  EXPECT_EQ(open.getRank(), 2);
  EXPECT_FALSE(open.isClosed());
  EXPECT_TRUE(open.isReplicated()); // nothing is split yet
  for (DimShardingAttr d : open.getDims()) {
    EXPECT_TRUE(d.getIsOpen());
    EXPECT_TRUE(d.isReplicated());
  }

  ShardingAttr partlyOpen =
      sharding("mesh", {dim({"data", "model"}), dim({"pipe"}, /*open=*/true)});
  EXPECT_FALSE(partlyOpen.isClosed());
  EXPECT_FALSE(partlyOpen.isReplicated());
  ASSERT_EQ(partlyOpen.getDimAxes(0).size(), 2u);
  EXPECT_EQ(partlyOpen.getDimAxes(0)[0], "data");
  EXPECT_EQ(partlyOpen.getDimAxes(0)[1], "model");
  ASSERT_EQ(partlyOpen.getDimAxes(1).size(), 1u);
  EXPECT_EQ(partlyOpen.getDimAxes(1)[0], "pipe");

  ShardingAttr closedSplit = sharding("mesh", {dim({}), dim({"model"})});
  EXPECT_TRUE(closedSplit.isClosed());
  EXPECT_FALSE(closedSplit.isReplicated());

  // Attributes are uniqued: the helpers give the same attribute as get().
  EXPECT_EQ(replicated, sharding("mesh", {dim({}), dim({}), dim({})}));
  EXPECT_EQ(open, sharding("mesh", {dim({}, true), dim({}, true)}));
  // Rank 0.
  ShardingAttr scalar = ShardingAttr::getReplicated(&ctx, meshRef, 0);
  EXPECT_EQ(scalar.getRank(), 0);
  EXPECT_TRUE(scalar.isClosed());
  EXPECT_TRUE(scalar.isReplicated());
}

TEST_F(DialectBuildTest, ShardingAttrPrintsInItsDocumentedForm) {
  auto text = [](Attribute a) {
    std::string s;
    llvm::raw_string_ostream os(s);
    a.print(os);
    return s;
  };
  EXPECT_EQ(text(sharding("mesh", {dim({"data"}), dim({})})),
            "#shardc.sharding<@mesh, [{\"data\"}, {}]>");
  EXPECT_EQ(text(sharding("mesh", {dim({"data", "model"}), dim({}, true)})),
            "#shardc.sharding<@mesh, [{\"data\", \"model\"}, {?}]>");
  EXPECT_EQ(text(sharding("m", {dim({"a"}, true)})), "#shardc.sharding<@m, [{\"a\", ?}]>");
  // And parses back to the same attribute.
  for (ShardingAttr s : {sharding("mesh", {dim({"data"}), dim({})}),
                         sharding("mesh", {dim({"data", "model"}), dim({}, true)}),
                         sharding("m", {dim({"a"}, true)}),
                         ShardingAttr::getReplicated(&ctx, FlatSymbolRefAttr::get(&ctx, "m"), 0)}) {
    Attribute parsed = parseAttribute(text(s), &ctx);
    EXPECT_EQ(parsed, s) << text(s);
  }
}

TEST_F(DialectBuildTest, LocalTypeDividesSplitDimensions) {
  MeshOp mesh = addMesh("mesh", {"data", "model"}, {2, 4});
  RankedTensorType global = f32({8, 16});
  EXPECT_EQ(getLocalType(global, sharding("mesh", {dim({"data"}), dim({"model"})}), mesh),
            f32({4, 4}));
  EXPECT_EQ(getLocalType(global, sharding("mesh", {dim({"data", "model"}), dim({})}), mesh),
            f32({1, 16}));
  EXPECT_EQ(getLocalType(global, sharding("mesh", {dim({}), dim({"model", "data"})}), mesh),
            f32({8, 2}));
  EXPECT_EQ(getLocalType(global,
                         ShardingAttr::getReplicated(&ctx, FlatSymbolRefAttr::get(&ctx, "mesh"), 2),
                         mesh),
            global);
  // Open dimensions count only the axes chosen so far.
  EXPECT_EQ(getLocalType(global, sharding("mesh", {dim({"data"}, true), dim({}, true)}), mesh),
            f32({4, 16}));
  // The element type is kept.
  auto i32 = RankedTensorType::get({4, 8}, builder.getI32Type());
  EXPECT_EQ(getLocalType(i32, sharding("mesh", {dim({}), dim({"model"})}), mesh),
            RankedTensorType::get({4, 2}, builder.getI32Type()));

  EXPECT_EQ(getGroupSize(mesh, {"data"}), 2);
  EXPECT_EQ(getGroupSize(mesh, {"model"}), 4);
  EXPECT_EQ(getGroupSize(mesh, {"data", "model"}), 8);
  EXPECT_EQ(getGroupSize(mesh, {}), 1);
}

//===----------------------------------------------------------------------===//
// Malformed shardings are verifier errors
//===----------------------------------------------------------------------===//

class ShardingVerifyTest : public DialectBuildTest {
protected:
  /// Builds `@f(tensor<shape x f32> {shardc.sharding = s})`, verifies the
  /// module and returns the diagnostics (empty when it verified).
  std::string verifyArgSharding(ArrayRef<int64_t> shape, ShardingAttr s) {
    func::FuncOp fn = addFunc("f", {f32(shape)}, {});
    func::ReturnOp::create(builder, loc, ValueRange{});
    fn.setArgAttr(0, ShardcDialect::kShardingAttrName, s);
    DiagnosticCollector diags(ctx);
    LogicalResult result = verify(*module);
    std::string text = diags.text();
    EXPECT_EQ(succeeded(result), text.empty()) << text;
    fn.erase();
    return text;
  }

  void SetUp() override { addMesh("mesh", {"data", "model"}, {2, 4}); }
};

TEST_F(ShardingVerifyTest, WellFormedShardingVerifies) {
  EXPECT_EQ(verifyArgSharding({8, 16}, sharding("mesh", {dim({"data"}), dim({"model"})})), "");
  EXPECT_EQ(verifyArgSharding({8, 6}, sharding("mesh", {dim({"data", "model"}), dim({}, true)})),
            "");
}

TEST_F(ShardingVerifyTest, UnknownAxisIsRejected) {
  std::string diag = verifyArgSharding({8, 16}, sharding("mesh", {dim({"data"}), dim({"rows"})}));
  EXPECT_TRUE(contains(diag, "argument #0"));
  EXPECT_TRUE(contains(diag, "sharding uses axis \"rows\" in dimension 1"));
  EXPECT_TRUE(contains(diag, "mesh @mesh has no such axis"));
}

TEST_F(ShardingVerifyTest, NonDividingSplitIsAPaddedLayout) {
  // 6 rows over "model" (4 devices) is a padded layout: valid IR, which
  // partitioning accepts only where padding is asked for (and reports
  // otherwise, test/Partition/partition-pad-uneven-invalid.mlir).
  EXPECT_EQ(verifyArgSharding({6, 16}, sharding("mesh", {dim({"model"}), dim({})})), "");
  EXPECT_EQ(verifyArgSharding({4, 16}, sharding("mesh", {dim({"data", "model"}), dim({})})), "");
}

TEST_F(ShardingVerifyTest, RepeatedAxisRankMismatchAndUnknownMeshAreRejected) {
  std::string diag = verifyArgSharding({8, 16}, sharding("mesh", {dim({"data"}), dim({"data"})}));
  EXPECT_TRUE(contains(diag, "sharding uses axis \"data\" more than once"));
  diag = verifyArgSharding({8, 16}, sharding("mesh", {dim({"data"})}));
  EXPECT_TRUE(
      contains(diag, "sharding has 1 dimensions but the tensor 'tensor<8x16xf32>' has rank 2"));
  diag = verifyArgSharding({8, 16}, sharding("nowhere", {dim({}), dim({})}));
  EXPECT_TRUE(contains(diag, "sharding refers to unknown mesh @nowhere"));
}

TEST_F(ShardingVerifyTest, BadShardingOnAConstraintIsRejected) {
  func::FuncOp fn = addFunc("g", {f32({6, 4})}, {f32({6, 4})});
  Value c = ShardingConstraintOp::create(builder, loc, fn.getArgument(0),
                                         sharding("mesh", {dim({"model"}), dim({"model"})}));
  func::ReturnOp::create(builder, loc, ValueRange{c});
  DiagnosticCollector diags(ctx);
  EXPECT_TRUE(failed(verify(*module)));
  EXPECT_TRUE(contains(diags.text(), "'shardc.sharding_constraint' op"));
  EXPECT_TRUE(contains(diags.text(), "sharding uses axis \"model\" more than once"));
}

TEST_F(ShardingVerifyTest, BadShardingsOnOperationResultsAreRejected) {
  func::FuncOp fn = addFunc("h", {f32({8, 4})}, {f32({8, 4})});
  NegOp neg = NegOp::create(builder, loc, fn.getArgument(0));
  func::ReturnOp::create(builder, loc, ValueRange{neg.getResult()});
  neg->setAttr(ShardcDialect::kShardingsAttrName,
               builder.getArrayAttr({sharding("mesh", {dim({"data"}), dim({"model"})})}));
  {
    DiagnosticCollector diags(ctx);
    EXPECT_TRUE(succeeded(verify(*module))) << diags.text();
  }
  neg->setAttr(ShardcDialect::kShardingsAttrName,
               builder.getArrayAttr({sharding("mesh", {dim({"model"}), dim({"batch"})})}));
  {
    DiagnosticCollector diags(ctx);
    EXPECT_TRUE(failed(verify(*module)));
    EXPECT_TRUE(contains(diags.text(), "result #0"));
    EXPECT_TRUE(contains(diags.text(), "\"batch\""));
  }
  neg->setAttr(ShardcDialect::kShardingsAttrName, builder.getArrayAttr({}));
  {
    DiagnosticCollector diags(ctx);
    EXPECT_TRUE(failed(verify(*module)));
    EXPECT_TRUE(contains(diags.text(), "has 0 shardings but the operation has 1 results"));
  }
}

TEST_F(ShardingVerifyTest, MalformedMeshIsRejected) {
  addMesh("bad", {"a", "a"}, {2, 2});
  DiagnosticCollector diags(ctx);
  EXPECT_TRUE(failed(verify(*module)));
  EXPECT_TRUE(contains(diags.text(), "declares axis \"a\" more than once"));
}

TEST_F(ShardingVerifyTest, NonPositiveAxisSizeIsRejected) {
  addMesh("bad", {"a"}, {0});
  DiagnosticCollector diags(ctx);
  EXPECT_TRUE(failed(verify(*module)));
  EXPECT_TRUE(contains(diags.text(), "axis \"a\" must have a positive size, got 0"));
}

//===----------------------------------------------------------------------===//
// Shape errors in parsed IR name the reason
//===----------------------------------------------------------------------===//

/// Parses `source` and returns the diagnostics (empty if it parsed and verified).
std::string parseErrors(MLIRContext &ctx, StringRef source) {
  DiagnosticCollector diags(ctx);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &ctx);
  std::string text = diags.text();
  EXPECT_EQ(static_cast<bool>(module), text.empty()) << text;
  return text;
}

TEST_F(DialectBuildTest, InferenceRejectsMalformedOpsWithTheReason) {
  EXPECT_TRUE(contains(parseErrors(ctx, R"mlir(
    func.func @f(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) -> tensor<2x5xf32> {
      %c = shardc.dot_general %a, %b contracting_dims = [1] x [0]
           : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
      return %c : tensor<2x5xf32>
    })mlir"),
                       "contracting dims lhs[1] = 3 and rhs[0] = 4 differ in size"));
  EXPECT_TRUE(contains(parseErrors(ctx, R"mlir(
    func.func @f(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
      %t = shardc.transpose %a, permutation = [0, 0]
           : (tensor<2x3xf32>) -> tensor<3x2xf32>
      return %t : tensor<3x2xf32>
    })mlir"),
                       "permutation repeats dimension 0"));
  EXPECT_TRUE(contains(parseErrors(ctx, R"mlir(
    func.func @f(%a: tensor<2x3xf32>) -> tensor<2xf32> {
      %r = shardc.reduce sum %a dims = [2] : (tensor<2x3xf32>) -> tensor<2xf32>
      return %r : tensor<2xf32>
    })mlir"),
                       "dims has dimension 2, out of range for rank 2"));
  EXPECT_TRUE(contains(parseErrors(ctx, R"mlir(
    func.func @f(%a: tensor<2x3xf32>) -> tensor<2xf32> {
      %r = shardc.reduce mean %a dims = [1] : (tensor<2x3xf32>) -> tensor<2xf32>
      return %r : tensor<2xf32>
    })mlir"),
                       "kind 'mean' is for all_reduce"));
  EXPECT_TRUE(contains(parseErrors(ctx, R"mlir(
    func.func @f() -> tensor<2xi32> {
      %i = shardc.iota dim = -1 : tensor<2xi32>
      return %i : tensor<2xi32>
    })mlir"),
                       "dim -1 is out of range for rank 1"));
  // A result type that disagrees with the inferred one.
  EXPECT_FALSE(parseErrors(ctx, R"mlir(
    func.func @f(%a: tensor<2x3xf32>) -> tensor<3xf32> {
      %r = shardc.reduce sum %a dims = [1] : (tensor<2x3xf32>) -> tensor<3xf32>
      return %r : tensor<3xf32>
    })mlir")
                   .empty());
  EXPECT_TRUE(contains(parseErrors(ctx, R"mlir(
    func.func @f(%a: tensor<4x3xf32>) -> tensor<4x3xf32> {
      %r = shardc.broadcast_in_dim %a, dims = [0, 1] : (tensor<4x3xf32>) -> tensor<4x3xf32>
      %b = shardc.broadcast_in_dim %r, dims = [1] : (tensor<4x3xf32>) -> tensor<4x3xf32>
      return %b : tensor<4x3xf32>
    })mlir"),
                       "dims has 1 entries but the operand has rank 2"));
  EXPECT_TRUE(contains(parseErrors(ctx, R"mlir(
    func.func @f(%a: tensor<4x3xf32>) -> tensor<5xf32> {
      %r = shardc.reshape %a : (tensor<4x3xf32>) -> tensor<5xf32>
      return %r : tensor<5xf32>
    })mlir"),
                       "cannot reshape"));
}

TEST_F(DialectBuildTest, CollectiveAndShardMapErrorsNameTheReason) {
  EXPECT_TRUE(contains(parseErrors(ctx, R"mlir(
    shardc.mesh @mesh = <["data"=2]>
    func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
      %r = shardc.all_reduce sum %a on @mesh ["model"] : tensor<4xf32>
      return %r : tensor<4xf32>
    })mlir"),
                       "mesh @mesh has no axis \"model\""));
  EXPECT_TRUE(contains(parseErrors(ctx, R"mlir(
    shardc.mesh @mesh = <["data"=2]>
    func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
      %r = shardc.all_gather %a on @mesh ["data"] dim = 0 : tensor<4xf32> -> tensor<4xf32>
      return %r : tensor<4xf32>
    })mlir"),
                       "result shape must be [8] for a group of 2 devices, got [4]"));
  EXPECT_TRUE(contains(parseErrors(ctx, R"mlir(
    shardc.mesh @mesh = <["data"=2]>
    func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
      %r = shardc.shard_map (%a) in_shardings = [<@mesh, [{"data"}]>]
             out_shardings = [<@mesh, [{"data"}]>] {
      ^bb0(%l: tensor<4xf32>):
        shardc.return %l : tensor<4xf32>
      } : (tensor<4xf32>) -> tensor<4xf32>
      return %r : tensor<4xf32>
    })mlir"),
                       "input #0: local type must be 'tensor<2xf32>'"));
  EXPECT_TRUE(contains(parseErrors(ctx, R"mlir(
    shardc.mesh @mesh = <["data"=2]>
    func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
      %r = shardc.shard_map (%a) in_shardings = [<@mesh, [{?}]>]
             out_shardings = [<@mesh, [{}]>] {
      ^bb0(%l: tensor<4xf32>):
        shardc.return %l : tensor<4xf32>
      } : (tensor<4xf32>) -> tensor<4xf32>
      return %r : tensor<4xf32>
    })mlir"),
                       "shard_map shardings must be closed"));
}

} // namespace
