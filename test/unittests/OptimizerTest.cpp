//===- OptimizerTest.cpp - training steps against hand-computed updates ---===//
//
// loss(w, x) = sum(w * x) has gradient x with respect to w, so two steps of
// each optimizer can be computed by hand and compared with what
// @loss_train_step computes on the reference interpreter.
//
//===----------------------------------------------------------------------===//

#include "shardc/Dialect/Shardc/IR/ShardcOps.h"
#include "shardc/Dialect/Shardc/Transforms/Optimizers.h"
#include "shardc/Interpreter/Interpreter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace mlir;
using namespace shardc;

namespace {

const char *kLoss = R"mlir(
func.func @loss(%w: tensor<3xf32> {shardc.name = "w"}, %x: tensor<3xf32>) -> tensor<f32> {
  %p = shardc.mul %w, %x : tensor<3xf32>
  %l = shardc.reduce sum %p dims = [0] : (tensor<3xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
)mlir";

Array vec(std::vector<double> v) { return Array::fromDoubles(DType::F32, {3}, v); }
Array scalar(double v) { return Array::fromDoubles(DType::F32, {}, {v}); }

struct Stepper {
  MLIRContext ctx;
  OwningOpRef<ModuleOp> module;
  func::FuncOp step;
  std::string diagnostics;

  explicit Stepper(const OptimizerConfig &config) {
    ctx.loadDialect<ShardcDialect, func::FuncDialect>();
    ctx.getDiagEngine().registerHandler([&](Diagnostic &d) {
      diagnostics += d.str() + "\n";
      return success();
    });
    module = parseSourceString<ModuleOp>(kLoss, &ctx);
    auto fn = module->lookupSymbol<func::FuncOp>("loss");
    FailureOr<func::FuncOp> built = buildTrainStep(fn, {0}, config);
    if (succeeded(built) && succeeded(verify(*module)))
      step = *built;
  }
};

std::vector<double> run(Stepper &s, std::vector<Array> args) {
  FailureOr<std::vector<Array>> out = interpret(s.step, args);
  EXPECT_TRUE(succeeded(out)) << s.diagnostics;
  std::vector<double> flat;
  if (succeeded(out))
    for (const Array &a : *out)
      for (double v : a.toDoubles())
        flat.push_back(v);
  return flat;
}

const std::vector<double> kW = {0.5, -1.0, 2.0}, kX = {1.0, 2.0, -3.0};

TEST(TrainStep, SgdWithMomentumMatchesTwoHandSteps) {
  OptimizerConfig config;
  config.kind = "sgd";
  config.momentum = 0.9;
  Stepper s(config);
  ASSERT_TRUE(s.step) << s.diagnostics;
  EXPECT_EQ(s.step.getNumArguments(), 4u); // w, x, w.velocity, lr
  // Step 1 from v = 0; step 2 feeds the results back.
  std::vector<double> r1 = run(s, {vec(kW), vec(kX), vec({0, 0, 0}), scalar(0.1)});
  ASSERT_EQ(r1.size(), 7u); // loss, w (3), velocity (3)
  std::vector<double> w1(3), v1(3);
  for (int i = 0; i < 3; ++i) {
    v1[i] = kX[i];
    w1[i] = kW[i] - 0.1 * v1[i];
    EXPECT_NEAR(r1[1 + i], w1[i], 1e-6);
    EXPECT_NEAR(r1[4 + i], v1[i], 1e-6);
  }
  std::vector<double> r2 = run(s, {vec(w1), vec(kX), vec(v1), scalar(0.1)});
  for (int i = 0; i < 3; ++i) {
    double v2 = 0.9 * v1[i] + kX[i];
    EXPECT_NEAR(r2[1 + i], w1[i] - 0.1 * v2, 1e-6);
    EXPECT_NEAR(r2[4 + i], v2, 1e-6);
  }
}

void checkAdam(double weightDecay) {
  OptimizerConfig config;
  config.kind = weightDecay ? "adamw" : "adam";
  config.weightDecay = weightDecay;
  Stepper s(config);
  ASSERT_TRUE(s.step) << s.diagnostics;
  EXPECT_EQ(s.step.getNumArguments(), 6u); // w, x, w.m, w.v, step, lr
  std::vector<double> w = kW, m(3, 0), v(3, 0);
  double lr = 0.01;
  for (int t = 1; t <= 2; ++t) {
    std::vector<double> r =
        run(s, {vec(w), vec(kX), vec(m), vec(v), scalar(t - 1), scalar(lr)});
    ASSERT_EQ(r.size(), 11u); // loss, w, m, v, step
    for (int i = 0; i < 3; ++i) {
      m[i] = 0.9 * m[i] + 0.1 * kX[i];
      v[i] = 0.999 * v[i] + 0.001 * kX[i] * kX[i];
      double mh = m[i] / (1 - std::pow(0.9, t)), vh = v[i] / (1 - std::pow(0.999, t));
      w[i] = w[i] - lr * mh / (std::sqrt(vh) + 1e-8) - lr * weightDecay * w[i];
      EXPECT_NEAR(r[1 + i], w[i], 2e-6) << "step " << t << " w[" << i << "]";
      EXPECT_NEAR(r[4 + i], m[i], 1e-6);
      EXPECT_NEAR(r[7 + i], v[i], 1e-6);
    }
    EXPECT_EQ(r[10], t);
    w = {r[1], r[2], r[3]}; // continue from what the step computed
  }
}

TEST(TrainStep, AdamMatchesTwoHandSteps) { checkAdam(0.0); }
TEST(TrainStep, AdamWDecaysWeightsDecoupled) { checkAdam(0.1); }

TEST(TrainStep, StateIsNamedAfterItsParameter) {
  OptimizerConfig config;
  config.kind = "adam";
  Stepper s(config);
  ASSERT_TRUE(s.step);
  auto name = [&](unsigned i) {
    return s.step.getArgAttrOfType<StringAttr>(i, ShardcDialect::kArgNameAttrName)
        .getValue()
        .str();
  };
  EXPECT_EQ(name(2), "w.m");
  EXPECT_EQ(name(3), "w.v");
  EXPECT_EQ(name(4), "step");
  EXPECT_EQ(name(5), "lr");
}

TEST(TrainStep, UnknownOptimizerIsAnError) {
  OptimizerConfig config;
  config.kind = "lamb";
  Stepper s(config);
  EXPECT_FALSE(s.step);
  EXPECT_NE(s.diagnostics.find("unknown optimizer 'lamb'"), std::string::npos)
      << s.diagnostics;
}

} // namespace
