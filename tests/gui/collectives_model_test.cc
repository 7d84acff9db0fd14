// The collectives view's model without Qt or a display: the per-row predictions are the
// simulator's, the errors and their median follow from them, busbw and algbw differ by the bus
// factor, and the axes cover what is drawn.

#include "gui/collectives_model.h"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "sim/predictor.h"

using namespace cclab;
using namespace cclab::gui;

namespace {

constexpr int kRanks = 8;  // one DGX H100 node
constexpr std::uint64_t kMiB = 1024 * 1024;

results::Row allReduceRow(std::uint64_t bytes, double timeUs, bool inPlace = false, int repeat = 0, const std::string& algo = "ring") {
  results::Row r;
  r.backend = "nccl";
  r.algo = algo;
  r.collective = Collective::AllReduce;
  r.sizeBytes = bytes;
  r.count = bytes / 4;
  r.nranks = kRanks;
  r.inPlace = inPlace;
  r.repeat = repeat;
  r.iters = 20;
  r.timeUs = timeUs;
  r.algbwGBps = results::algorithmBandwidthGBps(bytes, timeUs);
  r.busbwGBps = results::busBandwidthGBps(Collective::AllReduce, kRanks, bytes, timeUs);
  return r;
}

// A results file as CollectivesView opens it: every row, and the measured ones on one node.
OpenedResults openedFile(const std::string& path, std::vector<results::Row> rows) {
  OpenedResults o{path, std::move(rows), {}};
  for (const results::Row& r : o.rows) o.measured.push_back(sim::Measurement{r, 1, 1, 0, 0, false, path});
  return o;
}

// What `ccsim validate` predicts for a row: the cluster on the row's placement, the row's
// implementation's calibration.
double predictedUs(const sim::Cluster& cluster, const results::Row& r) {
  sim::PredictorsByShape predictors(cluster);
  const sim::Query q{r.collective, r.algo, double(r.sizeBytes), r.nranks, 1, r.inPlace, r.backend};
  return predictors.forShape({r.nranks, 1}).predict(q).timeUs;
}

class CollectivesModelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_ = sim::loadCluster("dgx-h100");
    // Rows measured slower or faster than the prediction by known factors: the bandwidth error of
    // a row measured `slowdown` times the predicted time is (slowdown - 1) * 100 %.
    for (const auto& [bytes, slowdown] : kSlowdowns) {
      const double predicted = predictedUs(cluster_, allReduceRow(bytes, 1));
      rows_.push_back(allReduceRow(bytes, predicted * slowdown));
    }
  }

  static constexpr std::pair<std::uint64_t, double> kSlowdowns[] = {{1 * kMiB, 1.25}, {4 * kMiB, 0.8}, {16 * kMiB, 2.0}, {64 * kMiB, 1.1}};
  sim::Cluster cluster_;
  std::vector<results::Row> rows_;
};

TEST_F(CollectivesModelTest, RowPredictionsAreThePredictorsAndErrorsFollowFromThem) {
  const CollectivesModel model =
      buildCollectivesModel({openedFile("results/h100/sweep.json", rows_)}, &cluster_, {Collective::AllReduce, true, kRanks, true});
  ASSERT_EQ(model.errorRows.size(), rows_.size());
  EXPECT_EQ(model.problem, "");
  for (std::size_t i = 0; i < rows_.size(); ++i) {
    const ErrorRow& e = model.errorRows[i];
    const results::Row& r = rows_[i];
    EXPECT_EQ(e.file, "sweep.json");
    EXPECT_EQ(e.implementation, "nccl ring");
    EXPECT_EQ(e.ranks, kRanks);
    EXPECT_EQ(e.sizeBytes, r.sizeBytes);
    EXPECT_EQ(e.measuredGbps, r.busbwGBps);
    // busbw of the predicted time: bytes / time x 2(n-1)/n.
    const double predictedBusbw = double(r.sizeBytes) / (predictedUs(cluster_, r) * 1e-6) / 1e9 * (2.0 * (kRanks - 1) / kRanks);
    EXPECT_NEAR(e.predictedGbps, predictedBusbw, 1e-12 * predictedBusbw);
    EXPECT_DOUBLE_EQ(e.errorPct, (e.predictedGbps - e.measuredGbps) / e.measuredGbps * 100);
    EXPECT_NEAR(e.errorPct, (kSlowdowns[i].second - 1) * 100, 1e-9);
  }
  // |errors| 25, 20, 100, 10: the median of four is the mean of the middle two.
  ASSERT_TRUE(model.errorSummary.has_value());
  EXPECT_EQ(model.errorSummary->rows, 4);
  EXPECT_NEAR(model.errorSummary->medianAbsErrorPct, (20.0 + 25.0) / 2, 1e-9);
  EXPECT_NEAR(model.errorSummary->maxAbsErrorPct, 100, 1e-9);
  std::vector<double> absolute;
  for (const ErrorRow& e : model.errorRows) absolute.push_back(std::abs(e.errorPct));
  EXPECT_EQ(model.errorSummary->medianAbsErrorPct, results::median(absolute));

  // One measured series (the file's stem) and beside it its rows' predictions, one per size.
  ASSERT_EQ(model.measuredSeries.size(), 1u);
  const MeasuredSeries& s = model.measuredSeries[0];
  EXPECT_EQ(s.label, "sweep");
  EXPECT_EQ(s.predictedLabel, "predicted: sweep");
  ASSERT_EQ(s.points.size(), rows_.size());
  ASSERT_TRUE(s.predictedPoints.has_value());
  ASSERT_EQ(s.predictedPoints->size(), rows_.size());
  for (std::size_t i = 0; i < rows_.size(); ++i) {
    EXPECT_EQ(s.points[i], (SizePoint{double(rows_[i].sizeBytes), rows_[i].busbwGBps}));
    EXPECT_EQ((*s.predictedPoints)[i], (SizePoint{double(rows_[i].sizeBytes), model.errorRows[i].predictedGbps}));
  }
}

TEST_F(CollectivesModelTest, BusBandwidthIsAlgorithmBandwidthTimesTheBusFactor) {
  const std::vector<OpenedResults> opened = {openedFile("sweep.json", rows_)};
  const CollectivesModel busbw = buildCollectivesModel(opened, &cluster_, {Collective::AllReduce, true, kRanks, true});
  const CollectivesModel algbw = buildCollectivesModel(opened, &cluster_, {Collective::AllReduce, false, kRanks, true});
  const double factor = busBandwidthFactor(Collective::AllReduce, kRanks);
  EXPECT_DOUBLE_EQ(factor, 2.0 * 7 / 8);
  ASSERT_EQ(busbw.errorRows.size(), algbw.errorRows.size());
  for (std::size_t i = 0; i < busbw.errorRows.size(); ++i) {
    EXPECT_DOUBLE_EQ(busbw.errorRows[i].measuredGbps, algbw.errorRows[i].measuredGbps * factor);
    EXPECT_DOUBLE_EQ(busbw.errorRows[i].predictedGbps, algbw.errorRows[i].predictedGbps * factor);
    EXPECT_NEAR(busbw.errorRows[i].errorPct, algbw.errorRows[i].errorPct, 1e-9);  // a ratio: the factor cancels
  }
  ASSERT_EQ(busbw.predictedCurves.size(), algbw.predictedCurves.size());
  ASSERT_FALSE(busbw.predictedCurves.empty());
  for (std::size_t c = 0; c < busbw.predictedCurves.size(); ++c) {
    const auto &bus = busbw.predictedCurves[c].points, &alg = algbw.predictedCurves[c].points;
    ASSERT_EQ(bus.size(), alg.size());
    for (std::size_t i = 0; i < bus.size(); ++i) {
      EXPECT_EQ(bus[i].bytes, alg[i].bytes);
      EXPECT_DOUBLE_EQ(bus[i].gbps, alg[i].gbps * factor);
    }
  }
  EXPECT_DOUBLE_EQ(busbw.measuredSeries[0].points[0].gbps, algbw.measuredSeries[0].points[0].gbps * factor);
}

TEST_F(CollectivesModelTest, PredictedCurvesArePerAlgorithmOverTheMeasuredSizes) {
  const CollectivesModel model =
      buildCollectivesModel({openedFile("sweep.json", rows_)}, &cluster_, {Collective::AllReduce, false, kRanks, true});
  sim::PredictorsByShape predictors(cluster_);
  const sim::Predictor& predictor = predictors.forShape({kRanks, 1});
  const std::vector<std::string_view> algos = predictor.candidates(Collective::AllReduce);
  ASSERT_EQ(model.predictedCurves.size(), algos.size());
  for (std::size_t c = 0; c < algos.size(); ++c) {
    const PredictedCurve& curve = model.predictedCurves[c];
    EXPECT_EQ(curve.algo, algos[c]);
    EXPECT_EQ(curve.label, "predicted " + std::string(algos[c]) + " (8 ranks)");
    // 1 MiB to 64 MiB, every power of two: the measured sizes.
    ASSERT_EQ(curve.points.size(), 7u) << curve.algo;
    for (std::size_t i = 0; i < curve.points.size(); ++i) {
      const double bytes = double(kMiB << i);
      EXPECT_EQ(curve.points[i].bytes, bytes);
      const double timeUs = predictor.predict({Collective::AllReduce, algos[c], bytes, kRanks, 1, false, ""}).timeUs;
      EXPECT_DOUBLE_EQ(curve.points[i].gbps, bytes / timeUs * 1e-3);  // algbw: bytes per microsecond / 1000
    }
  }
  // Curves stay out when hidden; the measured rows keep their predictions.
  const CollectivesModel hidden =
      buildCollectivesModel({openedFile("sweep.json", rows_)}, &cluster_, {Collective::AllReduce, false, kRanks, false});
  EXPECT_TRUE(hidden.predictedCurves.empty());
  EXPECT_EQ(hidden.errorRows.size(), rows_.size());
}

TEST_F(CollectivesModelTest, WithoutMeasurementsCurvesSpan8BytesTo4GiB) {
  const CollectivesModel model = buildCollectivesModel({}, &cluster_, {Collective::AllReduce, true, kRanks, true});
  ASSERT_FALSE(model.predictedCurves.empty());
  for (const PredictedCurve& curve : model.predictedCurves) {
    ASSERT_FALSE(curve.points.empty());
    EXPECT_EQ(curve.points.front().bytes, 8);
    EXPECT_EQ(curve.points.back().bytes, 4.0 * (1u << 30));
  }
  EXPECT_TRUE(model.measuredSeries.empty());
  EXPECT_TRUE(model.errorRows.empty());
  EXPECT_FALSE(model.errorSummary.has_value());
  EXPECT_EQ(model.axes.lowLog2Bytes, 3);
  EXPECT_EQ(model.axes.highLog2Bytes, 32);
  // 29 powers of two: a tick every 16x, from a multiple of 4.
  EXPECT_EQ(model.axes.sizeTickPowers(), (std::vector<int>{0, 4, 8, 12, 16, 20, 24, 28, 32}));
}

TEST_F(CollectivesModelTest, RanksThatAreNotWholeNodesLeaveTheCurvesOut) {
  const CollectivesModel model =
      buildCollectivesModel({openedFile("sweep.json", rows_)}, &cluster_, {Collective::AllReduce, true, 12, true});
  EXPECT_EQ(model.problem, "12 ranks are not whole 8-GPU nodes");
  EXPECT_TRUE(model.predictedCurves.empty());
  EXPECT_EQ(model.errorRows.size(), rows_.size());  // the rows are predicted on their own placement
}

TEST_F(CollectivesModelTest, NoClusterGivesNoPredictions) {
  const CollectivesModel model =
      buildCollectivesModel({openedFile("sweep.json", rows_)}, nullptr, {Collective::AllReduce, true, kRanks, true});
  EXPECT_TRUE(model.predictedCurves.empty());
  EXPECT_TRUE(model.errorRows.empty());
  EXPECT_FALSE(model.errorSummary.has_value());
  EXPECT_EQ(model.problem, "");
  ASSERT_EQ(model.measuredSeries.size(), 1u);
  EXPECT_EQ(model.measuredSeries[0].points.size(), rows_.size());
  EXPECT_FALSE(model.measuredSeries[0].predictedPoints.has_value());
}

TEST(CollectivesModel, SeriesGroupRowsAndAverageRepeats) {
  // Out of place and in place (only the out-of-place rows show), two algorithms, a repeated size,
  // another collective, and a row without a time.
  std::vector<results::Row> rows = {allReduceRow(1024, 10),      allReduceRow(1024, 20, false, 1),        allReduceRow(1 * kMiB, 100),
                                    allReduceRow(1024, 5, true), allReduceRow(4096, 8, false, 0, "tree"), allReduceRow(8192, 0)};
  results::Row gather = allReduceRow(2048, 3);
  gather.collective = Collective::AllGather;
  rows.push_back(gather);
  const CollectivesModel model =
      buildCollectivesModel({openedFile("logs/run.1.txt", rows)}, nullptr, {Collective::AllReduce, false, kRanks, true});
  ASSERT_EQ(model.measuredSeries.size(), 2u);
  const MeasuredSeries &ring = model.measuredSeries[0], &tree = model.measuredSeries[1];
  EXPECT_EQ(ring.label, "run.1 (nccl ring, 8 ranks)");
  EXPECT_EQ(tree.label, "run.1 (nccl tree, 8 ranks)");
  EXPECT_EQ(ring.predictedLabel, "predicted: run.1 (nccl ring, 8 ranks)");
  ASSERT_EQ(ring.points.size(), 2u);
  // 1 KiB in 10 us and in 20 us: the mean of 0.1024 and 0.0512 GB/s.
  EXPECT_EQ(ring.points[0].bytes, 1024);
  EXPECT_DOUBLE_EQ(ring.points[0].gbps, (0.1024 + 0.0512) / 2);
  EXPECT_EQ(ring.points[1].bytes, double(kMiB));
  EXPECT_DOUBLE_EQ(ring.points[1].gbps, kMiB / 100.0 * 1e-3);
  ASSERT_EQ(tree.points.size(), 1u);
  EXPECT_DOUBLE_EQ(tree.points[0].gbps, 4096 / 8.0 * 1e-3);

  // Only in-place rows: they show, labelled so.
  const CollectivesModel inPlace = buildCollectivesModel({openedFile("in_place.json", {allReduceRow(1024, 5, true)})}, nullptr,
                                                         {Collective::AllReduce, false, kRanks, true});
  ASSERT_EQ(inPlace.measuredSeries.size(), 1u);
  EXPECT_EQ(inPlace.measuredSeries[0].label, "in_place");
  EXPECT_TRUE(inPlace.measuredSeries[0].inPlace);
}

TEST(CollectivesModel, AxesCoverWhatIsDrawn) {
  // 1 KiB at 0.5 GB/s to 1 MiB at 40 GB/s (algbw).
  const std::vector<results::Row> rows = {allReduceRow(1024, 1024 / 0.5 * 1e-3), allReduceRow(kMiB, kMiB / 40.0 * 1e-3)};
  const CollectivesModel model = buildCollectivesModel({openedFile("a.json", rows)}, nullptr, {Collective::AllReduce, false, kRanks, true});
  EXPECT_EQ(model.axes.lowLog2Bytes, 10);
  EXPECT_EQ(model.axes.highLog2Bytes, 20);
  EXPECT_DOUBLE_EQ(model.axes.lowGbps, 0.5);
  EXPECT_DOUBLE_EQ(model.axes.highGbps, 40);
  EXPECT_EQ(model.axes.xMin(), 9.5);
  EXPECT_EQ(model.axes.xMax(), 20.5);
  EXPECT_DOUBLE_EQ(model.axes.yMin(), 0.1);
  EXPECT_DOUBLE_EQ(model.axes.yMax(), 100);
  EXPECT_EQ(model.axes.sizeTickPowers(), (std::vector<int>{10, 12, 14, 16, 18, 20}));  // a tick every 4x

  // Nothing drawn: 8 B - 4 GiB and 0.01 - 1000 GB/s.
  const CollectivesModel empty = buildCollectivesModel({}, nullptr, {});
  EXPECT_EQ(empty.axes.lowLog2Bytes, 3);
  EXPECT_EQ(empty.axes.highLog2Bytes, 32);
  EXPECT_EQ(empty.axes.lowGbps, 0.01);
  EXPECT_EQ(empty.axes.highGbps, 1000);
}

}  // namespace
