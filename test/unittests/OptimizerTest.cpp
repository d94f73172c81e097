//===- OptimizerTest.cpp - training steps against hand-computed updates ---===//
//
// loss(w, x) = sum(w * x) has gradient x with respect to w, so two steps of
// each optimizer can be computed by hand and compared with what
// @loss_train_step computes on the reference interpreter. Gradient clipping
// is checked the same way, and on a data- and tensor-parallel step whose
// partitioned run on 4 simulated devices must equal the global one.
//
//===----------------------------------------------------------------------===//

#include "shardc/Conversion/ShardcToPlan.h"
#include "shardc/Dialect/Shardc/IR/ShardcOps.h"
#include "shardc/Dialect/Shardc/Transforms/Optimizers.h"
#include "shardc/Dialect/Shardc/Transforms/Propagation.h"
#include "shardc/Interpreter/Interpreter.h"
#include "shardc/Runtime/Backend.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>
#include <string>

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

// Two parameters, for a norm over more than one gradient: the gradients
// are x and y.
const char *kTwoParamLoss = R"mlir(
func.func @loss(%w: tensor<3xf32> {shardc.name = "w"}, %b: tensor<2xf32> {shardc.name = "b"},
                %x: tensor<3xf32>, %y: tensor<2xf32>) -> tensor<f32> {
  %p = shardc.mul %w, %x : tensor<3xf32>
  %l = shardc.reduce sum %p dims = [0] : (tensor<3xf32>) -> tensor<f32>
  %q = shardc.mul %b, %y : tensor<2xf32>
  %m = shardc.reduce sum %q dims = [0] : (tensor<2xf32>) -> tensor<f32>
  %s = shardc.add %l, %m : tensor<f32>
  return %s : tensor<f32>
}
)mlir";

Array vec(std::vector<double> v) { return Array::fromDoubles(DType::F32, {(int64_t)v.size()}, v); }
Array scalar(double v) { return Array::fromDoubles(DType::F32, {}, {v}); }

struct Stepper {
  MLIRContext ctx;
  OwningOpRef<ModuleOp> module;
  func::FuncOp step;
  std::string diagnostics;

  explicit Stepper(const OptimizerConfig &config, const char *source = kLoss,
                   std::vector<unsigned> wrt = {0}) {
    ctx.loadDialect<ShardcDialect, func::FuncDialect>();
    ctx.getDiagEngine().registerHandler([&](Diagnostic &d) {
      diagnostics += d.str() + "\n";
      return success();
    });
    module = parseSourceString<ModuleOp>(source, &ctx);
    auto fn = module->lookupSymbol<func::FuncOp>("loss");
    FailureOr<func::FuncOp> built = buildTrainStep(fn, wrt, config);
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

// The train step's part of the compile-cache key names every field: a
// change to any one is a different key, so a plan built under other
// options is never reused.
TEST(TrainStep, EveryOptionIsInTheCacheKey) {
  OptimizerConfig base;
  std::vector<OptimizerConfig> changed(8, base);
  changed[0].kind = "adamw";
  changed[1].momentum = 0.9;
  changed[2].beta1 = 0.8;
  changed[3].beta2 = 0.99;
  changed[4].epsilon = 1e-6;
  changed[5].weightDecay = 0.01;
  changed[6].clipNorm = 1.0;
  changed[7].shardStateOver = "data";
  std::set<std::string> keys{base.key()};
  for (const OptimizerConfig &c : changed)
    EXPECT_TRUE(keys.insert(c.key()).second) << c.key();
  // Doubles are written in full: the next double is another key.
  OptimizerConfig near = base;
  near.beta2 = std::nextafter(base.beta2, 1.0);
  EXPECT_NE(near.key(), base.key());
}

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
    std::vector<double> r = run(s, {vec(w), vec(kX), vec(m), vec(v), scalar(t - 1), scalar(lr)});
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

// ---- gradient clipping (clip-norm) ---------------------------------------------

// torch.nn.utils.clip_grad_norm_'s factor for gradients of this global norm.
double clipScale(double norm, double maxNorm) { return std::min(1.0, maxNorm / (norm + 1e-6)); }

TEST(TrainStep, ClipNormScalesSgdGradientsByTheGlobalNorm) {
  OptimizerConfig config;
  config.kind = "sgd";
  config.momentum = 0.9;
  config.clipNorm = 1.0;
  Stepper s(config, kTwoParamLoss, {0, 1});
  ASSERT_TRUE(s.step) << s.diagnostics;
  EXPECT_EQ(s.step.getNumArguments(), 7u); // w, b, x, y, w.velocity, b.velocity, lr
  const std::vector<double> b = {0.25, -0.75}, y = {4.0, -2.0};
  // |(x, y)| = sqrt(1 + 4 + 9 + 16 + 4): both gradients shrink by one factor.
  double k = clipScale(std::sqrt(34.0), 1.0);
  ASSERT_LT(k, 0.2);
  std::vector<double> w = kW, bb = b, vw(3, 0), vb(2, 0);
  for (int t = 1; t <= 2; ++t) {
    std::vector<double> r =
        run(s, {vec(w), vec(bb), vec(kX), vec(y), vec(vw), vec(vb), scalar(0.1)});
    ASSERT_EQ(r.size(), 11u); // loss, w (3), b (2), w.velocity (3), b.velocity (2)
    for (int i = 0; i < 3; ++i) {
      vw[i] = 0.9 * vw[i] + k * kX[i];
      w[i] -= 0.1 * vw[i];
      EXPECT_NEAR(r[1 + i], w[i], 1e-6) << "step " << t << " w[" << i << "]";
      EXPECT_NEAR(r[6 + i], vw[i], 1e-6);
    }
    for (int i = 0; i < 2; ++i) {
      vb[i] = 0.9 * vb[i] + k * y[i];
      bb[i] -= 0.1 * vb[i];
      EXPECT_NEAR(r[4 + i], bb[i], 1e-6) << "step " << t << " b[" << i << "]";
      EXPECT_NEAR(r[9 + i], vb[i], 1e-6);
    }
  }
}

TEST(TrainStep, ClipNormScalesAdamWGradients) {
  OptimizerConfig config;
  config.kind = "adamw";
  config.weightDecay = 0.1;
  config.clipNorm = 0.5;
  Stepper s(config);
  ASSERT_TRUE(s.step) << s.diagnostics;
  double k = clipScale(std::sqrt(14.0), 0.5); // |x| = sqrt(1 + 4 + 9)
  std::vector<double> w = kW, m(3, 0), v(3, 0);
  double lr = 0.01;
  for (int t = 1; t <= 2; ++t) {
    std::vector<double> r = run(s, {vec(w), vec(kX), vec(m), vec(v), scalar(t - 1), scalar(lr)});
    ASSERT_EQ(r.size(), 11u);
    for (int i = 0; i < 3; ++i) {
      double g = k * kX[i];
      m[i] = 0.9 * m[i] + 0.1 * g;
      v[i] = 0.999 * v[i] + 0.001 * g * g;
      double mh = m[i] / (1 - std::pow(0.9, t)), vh = v[i] / (1 - std::pow(0.999, t));
      w[i] = w[i] - lr * mh / (std::sqrt(vh) + 1e-8) - lr * 0.1 * w[i];
      EXPECT_NEAR(r[1 + i], w[i], 2e-6) << "step " << t << " w[" << i << "]";
      EXPECT_NEAR(r[4 + i], m[i], 1e-7);
      EXPECT_NEAR(r[7 + i], v[i], 1e-8);
    }
    w = {r[1], r[2], r[3]};
  }
}

// Above the gradient norm the factor is exactly 1: the step is the unclipped
// one, bit for bit.
TEST(TrainStep, LargeClipNormLeavesTheStepUnchanged) {
  for (const char *kind : {"sgd", "adamw"}) {
    SCOPED_TRACE(kind);
    OptimizerConfig plain;
    plain.kind = kind;
    plain.momentum = 0.9;
    plain.weightDecay = 0.1;
    OptimizerConfig clipped = plain;
    clipped.clipNorm = 1e3;
    Stepper a(plain, kTwoParamLoss, {0, 1}), b(clipped, kTwoParamLoss, {0, 1});
    ASSERT_TRUE(a.step && b.step) << a.diagnostics << b.diagnostics;
    std::vector<Array> args = {vec(kW), vec({0.25, -0.75}), vec(kX), vec({4.0, -2.0})};
    if (std::string(kind) == "sgd") // w.velocity, b.velocity
      args.insert(args.end(), {vec({0.1, 0.2, -0.3}), vec({0.5, 0.25})});
    else // w.m, w.v, b.m, b.v, step
      args.insert(args.end(), {vec({0.1, 0.2, -0.3}), vec({0.01, 0.02, 0.03}), vec({0.5, 0.25}),
                               vec({0.04, 0.05}), scalar(3)});
    args.push_back(scalar(0.1));
    std::vector<double> want = run(a, args);
    ASSERT_FALSE(want.empty());
    EXPECT_EQ(run(b, args), want);
  }
}

TEST(TrainStep, NegativeClipNormIsAnError) {
  OptimizerConfig config;
  config.clipNorm = -1.0;
  Stepper s(config);
  EXPECT_FALSE(s.step);
  EXPECT_NE(s.diagnostics.find("clip-norm must be a finite number >= 0"), std::string::npos)
      << s.diagnostics;
}

// The clipped step of test/Partition/train-step-clip-norm.mlir (a
// relu MLP, w1 split by columns and w2 by rows over "model", the batch over
// "data", on a 2x2 mesh), partitioned on the 4 devices, against the global
// step on one: the norm's partial sums of squares must be all-reduced
// exactly once over the axes each gradient is split over.
struct ClipCase {
  const char *name;
  OptimizerConfig config;
};

class ClipNormPartitioned : public testing::TestWithParam<ClipCase> {};

TEST_P(ClipNormPartitioned, PartitionedRunEqualsGlobalRun) {
  MLIRContext ctx;
  ctx.loadDialect<ShardcDialect, func::FuncDialect>();
  std::string diagnostics;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
    diagnostics += d.str() + "\n";
    return success();
  });
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(
      std::string(SHARDC_PARTITION_CORPUS_DIR) + "/train-step-clip-norm.mlir", &ctx);
  ASSERT_TRUE(module) << diagnostics;
  auto loss = module->lookupSymbol<func::FuncOp>("megatron_mlp_loss");
  ASSERT_TRUE(loss);
  OptimizerConfig unclippedConfig = GetParam().config;
  unclippedConfig.clipNorm = 0.0;
  FailureOr<func::FuncOp> step = buildTrainStep(loss, {1, 2, 3}, GetParam().config);
  ASSERT_TRUE(succeeded(step)) << diagnostics;
  step->setSymName("clipped_step");
  FailureOr<func::FuncOp> unclipped = buildTrainStep(loss, {1, 2, 3}, unclippedConfig);
  ASSERT_TRUE(succeeded(unclipped) && succeeded(verify(*module))) << diagnostics;

  // Random inputs; second moments >= 0, a step count and a learning rate.
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  std::vector<Array> inputs;
  for (unsigned a = 0; a < step->getNumArguments(); ++a) {
    auto type = cast<RankedTensorType>(step->getArgumentTypes()[a]);
    auto nameAttr = step->getArgAttrOfType<StringAttr>(a, ShardcDialect::kArgNameAttrName);
    StringRef name = nameAttr ? nameAttr.getValue() : "";
    Array x(DType::F32, Shape(type.getShape().begin(), type.getShape().end()));
    for (int64_t i = 0; i < x.numElements(); ++i)
      x.setDouble(i, name == "step"         ? 2.0
                     : name == "lr"         ? 0.1
                     : name.ends_with(".v") ? std::fabs(real(rng))
                                            : real(rng));
    inputs.push_back(x);
  }
  FailureOr<std::vector<Array>> want = interpret(*step, inputs);
  FailureOr<std::vector<Array>> plain = interpret(*unclipped, inputs);
  ASSERT_TRUE(succeeded(want) && succeeded(plain)) << diagnostics;
  // The clip is active: w1's velocity or first moment differs (results:
  // the loss, three parameters, then the state).
  EXPECT_NE((*want)[4].toDoubles(), (*plain)[4].toDoubles());

  ASSERT_TRUE(succeeded(propagateShardings(*step)) && succeeded(partitionFunction(*step)) &&
              succeeded(verify(*module)))
      << diagnostics;
  auto expectClose = [&](const std::vector<Array> &got, const char *what) {
    SCOPED_TRACE(what);
    ASSERT_EQ(got.size(), want->size());
    for (size_t r = 0; r < got.size(); ++r) {
      ASSERT_EQ(got[r].shape(), (*want)[r].shape()) << "result #" << r;
      for (int64_t i = 0; i < got[r].numElements(); ++i) {
        double g = got[r].getDouble(i), w = (*want)[r].getDouble(i);
        ASSERT_LE(std::fabs(g - w), 1e-5 * std::max(1.0, std::fabs(w)))
            << "result #" << r << " element " << i;
      }
    }
  };
  FailureOr<std::vector<Array>> got = interpretPartitioned(*step, inputs);
  ASSERT_TRUE(succeeded(got)) << diagnostics;
  expectClose(*got, "reference interpreter, partitioned");

  FailureOr<Plan> plan = lowerToPlan(*step);
  ASSERT_TRUE(succeeded(plan)) << diagnostics;
  EXPECT_EQ(plan->numDevices(), 4);
  std::unique_ptr<Backend> cpu = createCpuBackend();
  StatusOr<std::vector<Array>> fromCpu = runPlan(*cpu, *plan, inputs);
  ASSERT_TRUE(fromCpu.ok()) << fromCpu.message();
  expectClose(*fromCpu, "cpu backend");
}

OptimizerConfig clipConfig(const char *kind, const char *shardStateOver) {
  OptimizerConfig c;
  c.kind = kind;
  c.momentum = 0.9;
  c.weightDecay = 0.01;
  c.clipNorm = 0.05;
  c.shardStateOver = shardStateOver;
  return c;
}

INSTANTIATE_TEST_SUITE_P(
    TrainStep, ClipNormPartitioned,
    testing::Values(ClipCase{"Sgd", clipConfig("sgd", "")},
                    ClipCase{"AdamW", clipConfig("adamw", "")},
                    ClipCase{"AdamWShardStateOverData", clipConfig("adamw", "data")}),
    [](const testing::TestParamInfo<ClipCase> &info) { return std::string(info.param.name); });

TEST(TrainStep, StateIsNamedAfterItsParameter) {
  OptimizerConfig config;
  config.kind = "adam";
  Stepper s(config);
  ASSERT_TRUE(s.step);
  auto name = [&](unsigned i) {
    return s.step.getArgAttrOfType<StringAttr>(i, ShardcDialect::kArgNameAttrName).getValue().str();
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
  EXPECT_NE(s.diagnostics.find("unknown optimizer 'lamb'"), std::string::npos) << s.diagnostics;
}

} // namespace
