//===- ShardingTest.cpp - meshes, partition specs, shard/assemble ---------===//
//
// Device numbering and groups on 1-D and 2-D meshes, the checks and local
// shapes of NamedSharding, shard/assemble round trips, and the text picture
// of a layout.
//
//===----------------------------------------------------------------------===//

#include "shardc/Runtime/Sharding.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace shardc {
namespace {

using Devices = std::vector<int64_t>;

Mesh mesh1d() { return Mesh{{"x"}, {4}}; }
Mesh mesh2x4() { return Mesh{{"data", "model"}, {2, 4}}; }
Mesh mesh3x2() { return Mesh{{"a", "b"}, {3, 2}}; }

/// An array whose element i holds i (0/1 alternating for i1).
Array iotaArray(DType dtype, const Shape &shape) {
  Array a(dtype, shape);
  for (int64_t i = 0; i < a.numElements(); ++i)
    a.setInt(i, dtype == DType::I1 ? i % 2 : i);
  return a;
}

//===----------------------------------------------------------------------===//
// Mesh
//===----------------------------------------------------------------------===//

TEST(Mesh, OneDimensional) {
  Mesh m = mesh1d();
  EXPECT_EQ(m.numDevices(), 4);
  EXPECT_EQ(m.axisIndex("x"), 0);
  EXPECT_EQ(m.axisIndex("y"), -1);
  for (int64_t d = 0; d < 4; ++d) {
    EXPECT_EQ(m.coords(d), Devices{d});
    EXPECT_EQ(m.deviceAt({d}), d);
    EXPECT_EQ(m.groupRank({"x"}, d), d);
    EXPECT_EQ(m.group({"x"}, d), (Devices{0, 1, 2, 3}));
    // The empty group is the device alone.
    EXPECT_EQ(m.group({}, d), Devices{d});
    EXPECT_EQ(m.groupRank({}, d), 0);
  }
  EXPECT_EQ(m.groupSize({"x"}), 4);
  EXPECT_EQ(m.groupSize({}), 1);
}

TEST(Mesh, TwoByFourCoordinates) {
  Mesh m = mesh2x4();
  EXPECT_EQ(m.numDevices(), 8);
  EXPECT_EQ(m.axisIndex("data"), 0);
  EXPECT_EQ(m.axisIndex("model"), 1);
  EXPECT_EQ(m.axisIndex("x"), -1);
  // Row-major: the first axis is the most significant.
  EXPECT_EQ(m.coords(0), (Devices{0, 0}));
  EXPECT_EQ(m.coords(3), (Devices{0, 3}));
  EXPECT_EQ(m.coords(4), (Devices{1, 0}));
  EXPECT_EQ(m.coords(6), (Devices{1, 2}));
  EXPECT_EQ(m.coords(7), (Devices{1, 3}));
  EXPECT_EQ(m.deviceAt({0, 2}), 2);
  EXPECT_EQ(m.deviceAt({1, 1}), 5);
  for (int64_t d = 0; d < 8; ++d)
    EXPECT_EQ(m.deviceAt(m.coords(d)), d);
  EXPECT_EQ(m.groupSize({"data"}), 2);
  EXPECT_EQ(m.groupSize({"model"}), 4);
  EXPECT_EQ(m.groupSize({"data", "model"}), 8);
  EXPECT_EQ(m.groupSize({"model", "data"}), 8);
}

TEST(Mesh, TwoByFourGroupsOverModel) {
  Mesh m = mesh2x4();
  for (int64_t d = 0; d < 4; ++d) {
    EXPECT_EQ(m.group({"model"}, d), (Devices{0, 1, 2, 3}));
    EXPECT_EQ(m.groupRank({"model"}, d), d);
  }
  for (int64_t d = 4; d < 8; ++d) {
    EXPECT_EQ(m.group({"model"}, d), (Devices{4, 5, 6, 7}));
    EXPECT_EQ(m.groupRank({"model"}, d), d - 4);
  }
}

TEST(Mesh, TwoByFourGroupsOverData) {
  Mesh m = mesh2x4();
  for (int64_t d = 0; d < 8; ++d) {
    int64_t col = d % 4;
    EXPECT_EQ(m.group({"data"}, d), (Devices{col, col + 4}));
    EXPECT_EQ(m.groupRank({"data"}, d), d / 4);
  }
}

TEST(Mesh, TwoByFourGroupsOverBothAxes) {
  Mesh m = mesh2x4();
  for (int64_t d = 0; d < 8; ++d) {
    // data major: the device order itself.
    EXPECT_EQ(m.group({"data", "model"}, d), (Devices{0, 1, 2, 3, 4, 5, 6, 7}));
    EXPECT_EQ(m.groupRank({"data", "model"}, d), d);
    // model major: walk columns first.
    EXPECT_EQ(m.group({"model", "data"}, d), (Devices{0, 4, 1, 5, 2, 6, 3, 7}));
    EXPECT_EQ(m.groupRank({"model", "data"}, d), (d % 4) * 2 + d / 4);
  }
  EXPECT_EQ(m.groupRank({"model", "data"}, 5), 3);
  EXPECT_EQ(m.groupRank({"model", "data"}, 3), 6);
}

TEST(Mesh, SubAxesAreFactorsOfAnAxisMajorFirst) {
  // "model" (4) is "model":(1)2 (its major half) then "model":(2)2.
  Mesh m = mesh2x4();
  EXPECT_EQ(m.axisIndex("model:(1)2"), 1);
  EXPECT_EQ(m.axisIndex("model:(1)3"), -1); // 3 does not divide 4
  EXPECT_EQ(m.axisIndex("model:(1)4"), -1); // all of it: the axis itself
  EXPECT_EQ(m.axisIndex("model:(2"), -1);
  // Crafted names (an artifact is untrusted): no overflow, no division by 0.
  EXPECT_EQ(m.axisIndex("model:(999999999999)999999999999"), -1);
  EXPECT_EQ(m.axisIndex("model:(0)2"), -1);
  EXPECT_EQ(m.axisIndex("model:(1)0"), -1);
  EXPECT_EQ(m.axisIndex("model:()2"), -1);
  EXPECT_EQ(m.axisSize("model:(2)2"), 2);
  for (int64_t d = 0; d < 8; ++d) {
    int64_t model = d % 4, row = d / 4 * 4;
    EXPECT_EQ(m.groupRank({"model:(1)2"}, d), model / 2);
    EXPECT_EQ(m.groupRank({"model:(2)2"}, d), model % 2);
    EXPECT_EQ(m.group({"model:(1)2"}, d), (Devices{row + model % 2, row + model % 2 + 2}));
    EXPECT_EQ(m.group({"model:(2)2"}, d), (Devices{row + model / 2 * 2, row + model / 2 * 2 + 1}));
    // Both halves, major first, are the axis.
    EXPECT_EQ(m.group({"model:(1)2", "model:(2)2"}, d), m.group({"model"}, d));
    EXPECT_EQ(m.groupRank({"model:(1)2", "model:(2)2"}, d), m.groupRank({"model"}, d));
    // Minor half before data.
    EXPECT_EQ(m.groupRank({"model:(2)2", "data"}, d), (model % 2) * 2 + d / 4);
  }
  EXPECT_TRUE(m.overlap("model", "model:(2)2"));
  EXPECT_TRUE(m.overlap("model:(1)2", "model:(1)2"));
  EXPECT_FALSE(m.overlap("model:(1)2", "model:(2)2"));
  EXPECT_FALSE(m.overlap("data", "model:(1)2"));
}

TEST(NamedSharding, SubAxesShardAndAssemble) {
  NamedSharding s{mesh2x4(), {{"model:(1)2"}, {"data", "model:(2)2"}}};
  EXPECT_TRUE(s.validate({4, 8}).ok());
  Array global = iotaArray(DType::F32, {4, 8});
  EXPECT_EQ(s.localShape({4, 8}), (Shape{2, 2}));
  std::vector<Array> shards;
  for (int64_t d = 0; d < 8; ++d)
    shards.push_back(s.shard(global, d));
  // Device 6 is data 1, model 2: rows of block 1 ("model" 2 / 2), columns of
  // block data * 2 + model % 2 = 2.
  EXPECT_EQ(shards[6].toInts(), (std::vector<int64_t>{20, 21, 28, 29}));
  EXPECT_TRUE(s.assemble(shards) == global);
  Status repeated = NamedSharding{mesh2x4(), {{"model"}, {"model:(2)2"}}}.validate({4, 8});
  ASSERT_FALSE(repeated.ok());
  EXPECT_EQ(repeated.message(),
            "mesh axis \"model:(2)2\" used more than once (it overlaps \"model\")");
}

TEST(Mesh, GroupIsOrderedByGroupRank) {
  for (const Mesh &m : {mesh1d(), mesh2x4(), mesh3x2()}) {
    std::vector<std::vector<std::string>> axesLists = {{}};
    for (const std::string &a : m.axisNames)
      axesLists.push_back({a});
    if (m.axisNames.size() == 2) {
      axesLists.push_back({m.axisNames[0], m.axisNames[1]});
      axesLists.push_back({m.axisNames[1], m.axisNames[0]});
    }
    for (const auto &axes : axesLists)
      for (int64_t d = 0; d < m.numDevices(); ++d) {
        Devices g = m.group(axes, d);
        ASSERT_EQ((int64_t)g.size(), m.groupSize(axes));
        EXPECT_EQ(g[m.groupRank(axes, d)], d);
        for (int64_t r = 0; r < (int64_t)g.size(); ++r) {
          EXPECT_EQ(m.groupRank(axes, g[r]), r);
          EXPECT_EQ(m.group(axes, g[r]), g); // every member sees the same group
        }
      }
  }
}

TEST(Mesh, ThreeByTwoOddAxis) {
  Mesh m = mesh3x2();
  EXPECT_EQ(m.numDevices(), 6);
  EXPECT_EQ(m.coords(5), (Devices{2, 1}));
  EXPECT_EQ(m.coords(3), (Devices{1, 1}));
  EXPECT_EQ(m.group({"a"}, 3), (Devices{1, 3, 5}));
  EXPECT_EQ(m.groupRank({"a"}, 3), 1);
  EXPECT_EQ(m.group({"b"}, 4), (Devices{4, 5}));
  EXPECT_EQ(m.group({"b", "a"}, 0), (Devices{0, 2, 4, 1, 3, 5}));
}

//===----------------------------------------------------------------------===//
// NamedSharding: local shapes and validation
//===----------------------------------------------------------------------===//

TEST(NamedSharding, LocalShape) {
  Mesh m = mesh2x4();
  EXPECT_EQ((NamedSharding{m, {{"data"}, {"model"}}}.localShape({4, 8})), (Shape{2, 2}));
  EXPECT_EQ((NamedSharding{m, {{"model"}, {"data"}}}.localShape({4, 8})), (Shape{1, 4}));
  EXPECT_EQ((NamedSharding{m, {{"data", "model"}, {}}}.localShape({16, 3})), (Shape{2, 3}));
  EXPECT_EQ((NamedSharding{m, {{}, {"model", "data"}}}.localShape({5, 24})), (Shape{5, 3}));
  EXPECT_EQ((NamedSharding{m, {{}, {}}}.localShape({3, 5})), (Shape{3, 5}));
  EXPECT_EQ((NamedSharding{m, {{}, {"data"}, {}}}.localShape({7, 2, 3})), (Shape{7, 1, 3}));
  EXPECT_EQ((NamedSharding{m, {}}.localShape({})), Shape{});
  EXPECT_EQ((NamedSharding{mesh1d(), {{"x"}}}.localShape({12})), Shape{3});
}

TEST(NamedSharding, ValidateAcceptsGoodSpecs) {
  Mesh m = mesh2x4();
  for (const PartitionSpec &spec : std::vector<PartitionSpec>{{{"data"}, {"model"}},
                                                              {{"model"}, {"data"}},
                                                              {{"data", "model"}, {}},
                                                              {{}, {"model", "data"}},
                                                              {{}, {}}}) {
    Status s = NamedSharding{m, spec}.validate({8, 8});
    EXPECT_TRUE(s.ok()) << s.message();
  }
  EXPECT_TRUE((NamedSharding{m, {}}.validate({})).ok());
  // A zero-size dimension divides over any number of devices.
  EXPECT_TRUE((NamedSharding{m, {{"data", "model"}}}.validate({0})).ok());
}

TEST(NamedSharding, ValidateRankMismatch) {
  Status s = NamedSharding{mesh2x4(), {{"data"}}}.validate({4, 8});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "partition spec has 1 dimensions but the array has rank 2");
  s = NamedSharding{mesh2x4(), {{}, {}, {}}}.validate({4, 8});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "partition spec has 3 dimensions but the array has rank 2");
}

TEST(NamedSharding, ValidateUnknownAxis) {
  Status s = NamedSharding{mesh2x4(), {{"data"}, {"tensor"}}}.validate({4, 8});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "unknown mesh axis \"tensor\"");
}

TEST(NamedSharding, ValidateRepeatedAxis) {
  Status s = NamedSharding{mesh2x4(), {{"model"}, {"model"}}}.validate({4, 8});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "mesh axis \"model\" used more than once");
  s = NamedSharding{mesh2x4(), {{"data", "data"}, {}}}.validate({4, 8});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "mesh axis \"data\" used more than once");
}

TEST(NamedSharding, ValidateNonDividing) {
  Status s = NamedSharding{mesh2x4(), {{"data"}, {"model"}}}.validate({4, 6});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "dimension 1 of size 6 does not divide over 4 devices");
  s = NamedSharding{mesh2x4(), {{"data", "model"}, {}}}.validate({12, 3});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "dimension 0 of size 12 does not divide over 8 devices");
  s = NamedSharding{mesh3x2(), {{"a"}}}.validate({4});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "dimension 0 of size 4 does not divide over 3 devices");
}

//===----------------------------------------------------------------------===//
// shard / assemble
//===----------------------------------------------------------------------===//

TEST(NamedSharding, ShardTakesTheDevicesBlock) {
  // 4x8 holding 0..31; device 6 = (data 1, model 2): rows 2-3, columns 4-5.
  NamedSharding s{mesh2x4(), {{"data"}, {"model"}}};
  Array global = iotaArray(DType::F32, {4, 8});
  Array local = s.shard(global, 6);
  EXPECT_EQ(local.shape(), (Shape{2, 2}));
  EXPECT_EQ(local.toInts(), (std::vector<int64_t>{20, 21, 28, 29}));
  EXPECT_EQ(s.shard(global, 0).toInts(), (std::vector<int64_t>{0, 1, 8, 9}));
  EXPECT_EQ(s.shard(global, 3).toInts(), (std::vector<int64_t>{6, 7, 14, 15}));
  EXPECT_EQ(s.shard(global, 4).toInts(), (std::vector<int64_t>{16, 17, 24, 25}));
}

TEST(NamedSharding, ShardOverTwoAxesFollowsTheAxisOrder) {
  Array global = iotaArray(DType::I32, {8, 2});
  // data major: block rank = data * 4 + model, the device id.
  NamedSharding dataMajor{mesh2x4(), {{"data", "model"}, {}}};
  for (int64_t d = 0; d < 8; ++d)
    EXPECT_EQ(dataMajor.shard(global, d).toInts(), (std::vector<int64_t>{2 * d, 2 * d + 1}))
        << "device " << d;
  // model major: device 1 = (data 0, model 1) holds block 1 * 2 + 0 = 2.
  NamedSharding modelMajor{mesh2x4(), {{"model", "data"}, {}}};
  EXPECT_EQ(modelMajor.shard(global, 1).toInts(), (std::vector<int64_t>{4, 5}));
  EXPECT_EQ(modelMajor.shard(global, 4).toInts(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(modelMajor.shard(global, 7).toInts(), (std::vector<int64_t>{14, 15}));
}

TEST(NamedSharding, ReplicatedDevicesHoldTheSameShard) {
  NamedSharding s{mesh2x4(), {{"data"}, {}}};
  Array global = iotaArray(DType::I64, {4, 3});
  for (int64_t d = 0; d < 8; ++d) {
    std::vector<int64_t> expected =
        d < 4 ? std::vector<int64_t>{0, 1, 2, 3, 4, 5} : std::vector<int64_t>{6, 7, 8, 9, 10, 11};
    EXPECT_EQ(s.shard(global, d).toInts(), expected) << "device " << d;
  }
  NamedSharding full{mesh2x4(), {{}, {}}};
  for (int64_t d = 0; d < 8; ++d)
    EXPECT_TRUE(full.shard(global, d) == global);
}

TEST(NamedSharding, AssembleUsesTheFirstDeviceOfReplicatedBlocks) {
  NamedSharding s{mesh2x4(), {{}, {"model"}}};
  Array global = iotaArray(DType::F32, {3, 4});
  std::vector<Array> shards;
  for (int64_t d = 0; d < 8; ++d)
    shards.push_back(s.shard(global, d));
  // Devices 4-7 repeat the blocks of devices 0-3; their copies are ignored.
  for (int64_t d = 4; d < 8; ++d)
    for (int64_t i = 0; i < shards[d].numElements(); ++i)
      shards[d].setDouble(i, -1.0);
  EXPECT_TRUE(s.assemble(shards) == global);
}

TEST(NamedSharding, PaddedLayoutRoundsUpAndPadsWithZeros) {
  // 17 over 8 devices: shards of 3; device 5 holds 15, 16 and one zero,
  // devices 6 and 7 only zeros.
  NamedSharding s{Mesh{{"x"}, {8}}, {{"x"}}};
  Array global = iotaArray(DType::F32, {17});
  EXPECT_EQ(s.localShape({17}), (Shape{3}));
  EXPECT_TRUE(s.padded({17}));
  EXPECT_FALSE(s.padded({24}));
  EXPECT_FALSE(s.validate({17}).ok());
  EXPECT_TRUE(s.validate({17}, /*allowPadding=*/true).ok());
  std::vector<Array> shards;
  for (int64_t d = 0; d < 8; ++d)
    shards.push_back(s.shard(global, d));
  EXPECT_EQ(shards[0].toInts(), (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(shards[5].toInts(), (std::vector<int64_t>{15, 16, 0}));
  EXPECT_EQ(shards[6].toInts(), (std::vector<int64_t>{0, 0, 0}));
  EXPECT_EQ(shards[7].toInts(), (std::vector<int64_t>{0, 0, 0}));
  // Assembled with the global shape, the padding is dropped (whatever it
  // holds).
  shards[7].setDouble(0, 99.0);
  EXPECT_TRUE(s.assemble(shards, {17}) == global);
}

TEST(NamedSharding, PaddedLayoutOverTwoAxesAndDimensions) {
  // 5x6 over 2x4: rows 3 per "data" block (the second has one padding
  // row), columns 2 per "model" block (the last block all padding).
  NamedSharding s{mesh2x4(), {{"data"}, {"model"}}};
  Array global = iotaArray(DType::F32, {5, 6});
  EXPECT_EQ(s.localShape({5, 6}), (Shape{3, 2}));
  std::vector<Array> shards;
  for (int64_t d = 0; d < 8; ++d)
    shards.push_back(s.shard(global, d));
  // Device 5 is data 1, model 1: rows 3, 4 and padding; columns 2, 3.
  EXPECT_EQ(shards[5].toInts(), (std::vector<int64_t>{20, 21, 26, 27, 0, 0}));
  EXPECT_EQ(shards[7].toInts(), (std::vector<int64_t>{0, 0, 0, 0, 0, 0}));
  EXPECT_TRUE(s.assemble(shards, {5, 6}) == global);
}

struct RoundTripCase {
  Mesh mesh;
  PartitionSpec spec;
  Shape shape;
  DType dtype;
};

TEST(NamedSharding, ShardThenAssembleRoundTrips) {
  std::vector<RoundTripCase> cases = {
      {mesh2x4(), {{"data"}, {"model"}}, {4, 8}, DType::F32},
      {mesh2x4(), {{"model"}, {"data"}}, {12, 6}, DType::I32},
      {mesh2x4(), {{"data", "model"}, {}}, {8, 3}, DType::F64},
      {mesh2x4(), {{"model", "data"}, {}}, {16, 5}, DType::I64},
      {mesh2x4(), {{}, {"model", "data"}}, {3, 8}, DType::F16},
      {mesh2x4(), {{"data"}, {}}, {6, 5}, DType::BF16},
      {mesh2x4(), {{}, {"model"}}, {7, 4}, DType::I1},
      {mesh2x4(), {{}, {}}, {3, 3}, DType::F32},
      {mesh2x4(), {{"model"}, {}, {"data"}}, {4, 3, 2}, DType::I32},
      {mesh2x4(), {{}, {"data", "model"}, {}}, {2, 8, 3}, DType::F32},
      {mesh2x4(), {{"data"}}, {2}, DType::F32},
      {mesh2x4(), {}, {}, DType::F32},
      {mesh1d(), {{"x"}, {}}, {8, 3}, DType::F32},
      {mesh1d(), {{}, {"x"}}, {3, 4}, DType::I64},
      {mesh3x2(), {{"a"}, {"b"}}, {9, 4}, DType::F32},
      {mesh3x2(), {{"b", "a"}}, {6}, DType::I32},
  };
  for (const RoundTripCase &c : cases) {
    NamedSharding s{c.mesh, c.spec};
    SCOPED_TRACE("shape " + shapeString(c.shape) + " " + dtypeName(c.dtype));
    ASSERT_TRUE(s.validate(c.shape).ok()) << s.validate(c.shape).message();
    Array global = iotaArray(c.dtype, c.shape);
    std::vector<Array> shards;
    for (int64_t d = 0; d < c.mesh.numDevices(); ++d) {
      shards.push_back(s.shard(global, d));
      EXPECT_EQ(shards.back().shape(), s.localShape(c.shape));
      EXPECT_EQ(shards.back().dtype(), c.dtype);
    }
    Array back = s.assemble(shards);
    EXPECT_EQ(back.shape(), c.shape);
    EXPECT_TRUE(back == global);
  }
}

TEST(NamedSharding, ShardsCoverEveryElementOncePerReplica) {
  // With a 2x4 mesh and spec {data, -}, each element is held by 4 devices.
  NamedSharding s{mesh2x4(), {{"data"}, {}}};
  Array global = iotaArray(DType::I32, {4, 5});
  std::vector<int> count(20, 0);
  for (int64_t d = 0; d < 8; ++d)
    for (int64_t v : s.shard(global, d).toInts())
      ++count[v];
  for (int c : count)
    EXPECT_EQ(c, 4);
}

//===----------------------------------------------------------------------===//
// visualize
//===----------------------------------------------------------------------===//

TEST(NamedSharding, VisualizeFullySharded2x4) {
  NamedSharding s{mesh2x4(), {{"data"}, {"model"}}};
  EXPECT_EQ(s.visualize({4, 8}), "+---------+---------+---------+---------+\n"
                                 "|  dev 0  |  dev 1  |  dev 2  |  dev 3  |\n"
                                 "+---------+---------+---------+---------+\n"
                                 "|  dev 4  |  dev 5  |  dev 6  |  dev 7  |\n"
                                 "+---------+---------+---------+---------+\n");
}

TEST(NamedSharding, VisualizeTransposedSpec) {
  // Rows follow "model", columns "data": the blocks of devices 0-3 go down.
  NamedSharding s{mesh2x4(), {{"model"}, {"data"}}};
  EXPECT_EQ(s.visualize({8, 8}), "+---------+---------+\n"
                                 "|  dev 0  |  dev 4  |\n"
                                 "+---------+---------+\n"
                                 "|  dev 1  |  dev 5  |\n"
                                 "+---------+---------+\n"
                                 "|  dev 2  |  dev 6  |\n"
                                 "+---------+---------+\n"
                                 "|  dev 3  |  dev 7  |\n"
                                 "+---------+---------+\n");
}

TEST(NamedSharding, VisualizeReplicatedDimensions) {
  NamedSharding rows{mesh2x4(), {{"data"}, {}}};
  EXPECT_EQ(rows.visualize({4, 8}), "+---------------+\n"
                                    "|  dev 0,1,2,3  |\n"
                                    "+---------------+\n"
                                    "|  dev 4,5,6,7  |\n"
                                    "+---------------+\n");
  NamedSharding cols{mesh2x4(), {{}, {"model"}}};
  EXPECT_EQ(cols.visualize({4, 8}), "+-----------+-----------+-----------+-----------+\n"
                                    "|  dev 0,4  |  dev 1,5  |  dev 2,6  |  dev 3,7  |\n"
                                    "+-----------+-----------+-----------+-----------+\n");
  NamedSharding none{mesh2x4(), {{}, {}}};
  EXPECT_EQ(none.visualize({4, 8}), "+-----------------------+\n"
                                    "|  dev 0,1,2,3,4,5,6,7  |\n"
                                    "+-----------------------+\n");
}

TEST(NamedSharding, VisualizeDimensionOverTwoAxes) {
  // Block rank = model * 2 + data.
  NamedSharding s{mesh2x4(), {{"model", "data"}, {}}};
  EXPECT_EQ(s.visualize({8, 2}), "+---------+\n"
                                 "|  dev 0  |\n"
                                 "+---------+\n"
                                 "|  dev 4  |\n"
                                 "+---------+\n"
                                 "|  dev 1  |\n"
                                 "+---------+\n"
                                 "|  dev 5  |\n"
                                 "+---------+\n"
                                 "|  dev 2  |\n"
                                 "+---------+\n"
                                 "|  dev 6  |\n"
                                 "+---------+\n"
                                 "|  dev 3  |\n"
                                 "+---------+\n"
                                 "|  dev 7  |\n"
                                 "+---------+\n");
}

TEST(NamedSharding, VisualizeRankOne) {
  NamedSharding s{mesh2x4(), {{"model"}}};
  EXPECT_EQ(s.visualize({8}), "+-----------+-----------+-----------+-----------+\n"
                              "|  dev 0,4  |  dev 1,5  |  dev 2,6  |  dev 3,7  |\n"
                              "+-----------+-----------+-----------+-----------+\n");
  NamedSharding x{mesh1d(), {{"x"}}};
  EXPECT_EQ(x.visualize({4}), "+---------+---------+---------+---------+\n"
                              "|  dev 0  |  dev 1  |  dev 2  |  dev 3  |\n"
                              "+---------+---------+---------+---------+\n");
}

} // namespace
} // namespace shardc
