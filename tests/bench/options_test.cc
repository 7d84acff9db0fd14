#include "bench/options.h"

#include <gtest/gtest.h>

#include <sstream>

#include "collectives/errors.h"

namespace cclab::bench {
namespace {

Options parse(std::vector<const char*> args) {
  args.insert(args.begin(), "ccbench");
  std::ostringstream help;
  auto options = parseOptions(static_cast<int>(args.size()), args.data(), help);
  if (!options) throw std::runtime_error("help was printed");
  return *options;
}

std::string errorOf(std::vector<const char*> args) {
  try {
    parse(std::move(args));
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(Options, DefaultsMatchNcclTests) {
  const Options o = parse({"all_reduce"});
  EXPECT_EQ(o.collectives, std::vector<Collective>{Collective::AllReduce});
  EXPECT_EQ(o.sweep.minBytes, 32u << 20);
  EXPECT_EQ(o.sweep.maxBytes, 32u << 20);
  EXPECT_EQ(o.iters, 20);
  EXPECT_EQ(o.warmupIters, 1);
  EXPECT_EQ(o.checkIters, 1);
  EXPECT_EQ(o.root, 0);
  EXPECT_EQ(o.average, Average::Mean);
  EXPECT_EQ(o.dtypes, std::vector<DataType>{DataType::Float});
  EXPECT_EQ(o.ops, std::vector<ReduceOp>{ReduceOp::Sum});
  EXPECT_EQ(o.backends, std::vector<std::string>{"mpi"});
}

TEST(Options, NcclTestsFlagsAndLongNames) {
  const Options o = parse({"all_gather_perf", "-b", "8", "-e", "128M", "-f", "2", "-n", "5", "-w", "2", "-c", "0", "-d",
                           "half", "-a", "3", "-z", "1", "-N", "2", "-T", "10", "-J", "x.json", "--csv", "x.csv",
                           "--backend", "mpi,cclab", "--algo", "ring"});
  EXPECT_EQ(o.collectives, std::vector<Collective>{Collective::AllGather});
  EXPECT_EQ(o.sweep.minBytes, 8u);
  EXPECT_EQ(o.sweep.maxBytes, 128u << 20);
  EXPECT_EQ(o.sweep.stepFactor, 2);
  EXPECT_EQ(o.iters, 5);
  EXPECT_EQ(o.warmupIters, 2);
  EXPECT_EQ(o.checkIters, 0);
  EXPECT_EQ(o.dtypes, std::vector<DataType>{DataType::Half});
  EXPECT_EQ(o.average, Average::Max);
  EXPECT_EQ(o.blocking, 1);
  EXPECT_EQ(o.repeats, 2);
  EXPECT_DOUBLE_EQ(o.timeoutS, 10);
  EXPECT_EQ(o.jsonPath, "x.json");
  EXPECT_EQ(o.csvPath, "x.csv");
  EXPECT_EQ(o.backends, (std::vector<std::string>{"mpi", "cclab"}));
  const Options longNames = parse({"broadcast", "--minbytes", "1K", "--maxbytes", "1G", "--stepfactor", "4", "--iters", "3",
                                   "--warmup_iters", "0", "--check", "2", "--datatype", "int8", "--op", "sum", "--root",
                                   "-1", "--run_cycles", "3", "--output_file", "y.json"});
  EXPECT_EQ(longNames.sweep.minBytes, 1024u);
  EXPECT_EQ(longNames.sweep.maxBytes, 1u << 30);
  EXPECT_EQ(longNames.root, -1);
  EXPECT_EQ(longNames.repeats, 3);
  EXPECT_EQ(longNames.jsonPath, "y.json");
}

TEST(Options, AllAndListsExpand) {
  const Options o = parse({"all", "-d", "all", "-o", "all"});
  EXPECT_EQ(o.collectives.size(), allCollectives().size());
  EXPECT_EQ(o.dtypes.size(), 12u);
  EXPECT_EQ(o.ops.size(), 5u);
  const Options list = parse({"all_reduce", "-d", "float,double", "-o", "min,max"});
  EXPECT_EQ(list.dtypes, (std::vector<DataType>{DataType::Float, DataType::Double}));
  EXPECT_EQ(list.ops, (std::vector<ReduceOp>{ReduceOp::Min, ReduceOp::Max}));
  EXPECT_EQ(opsFor(list, Collective::Broadcast).size(), 1u);
  EXPECT_FALSE(opsFor(list, Collective::Broadcast)[0].has_value());
  EXPECT_EQ(opsFor(list, Collective::Reduce).size(), 2u);
}

TEST(Options, Sizes) {
  EXPECT_EQ(parseSize("8", "-b"), 8u);
  EXPECT_EQ(parseSize("64K", "-b"), 65536u);
  EXPECT_EQ(parseSize("256M", "-b"), 256u << 20);
  EXPECT_EQ(parseSize("4G", "-b"), std::size_t{4} << 30);
  EXPECT_EQ(parseSize("2k", "-b"), 2048u);
  EXPECT_THROW(parseSize("12X", "-b"), InputError);
  EXPECT_THROW(parseSize("", "-b"), InputError);
  EXPECT_THROW(parseSize("-1", "-b"), InputError);
  EXPECT_THROW(parseSize("99999999999G", "-e"), InputError);
  EXPECT_THROW(parseSize("184467440737095516160", "-e"), InputError);
  EXPECT_EQ(describeBytes(64u << 20), "64 MiB");
  EXPECT_EQ(describeBytes(1536), "1.5 KiB");
  EXPECT_EQ(describeBytes(8), "8 B");
}

TEST(Options, Sweeps) {
  Options o = parse({"all_reduce", "-b", "8", "-e", "64M", "-f", "2"});
  const auto sizes = sweepSizes(o);
  EXPECT_EQ(sizes.size(), 24u);  // 2^3 .. 2^26
  EXPECT_EQ(sizes.front(), 8u);
  EXPECT_EQ(sizes.back(), 64u << 20);
  o = parse({"all_reduce", "-b", "1M", "-e", "4M", "-i", "1M"});
  EXPECT_EQ(sweepSizes(o), (std::vector<std::size_t>{1u << 20, 2u << 20, 3u << 20, 4u << 20}));
  o = parse({"all_reduce", "-b", "0", "-e", "0"});
  EXPECT_EQ(sweepSizes(o), std::vector<std::size_t>{0});
}

TEST(Options, BadInputIsNamed) {
  EXPECT_NE(errorOf({"allreduce"}).find("unknown collective 'allreduce' (valid: all_reduce, all_gather, reduce_scatter, broadcast, reduce, alltoall, gather, scatter, sendrecv, or all)"), std::string::npos);
  EXPECT_NE(errorOf({"all_reduce", "-d", "float16"}).find("unknown datatype 'float16'"), std::string::npos);
  EXPECT_NE(errorOf({"all_reduce", "-o", "mean"}).find("unknown reduction op 'mean'"), std::string::npos);
  EXPECT_NE(errorOf({"all_reduce", "-b", "1M", "-e", "1K"}).find("-b 1 MiB is larger than -e 1 KiB"), std::string::npos);
  EXPECT_NE(errorOf({"all_gather", "-o", "prod"}).find("meaningless for all_gather"), std::string::npos);
  EXPECT_NE(errorOf({"all_reduce", "-n", "0"}).find("-n must be at least 1"), std::string::npos);
  EXPECT_NE(errorOf({"all_reduce", "-a", "4"}).find("-a must be 0, 1, 2 or 3"), std::string::npos);
  EXPECT_NE(errorOf({"all_reduce", "-r", "-2"}).find("-r must be at least -1"), std::string::npos);
  EXPECT_NE(errorOf({"all_reduce", "--backend", "gloo"}).find("unknown backend 'gloo' (valid: nccl, mpi, cclab)"), std::string::npos);
  if (!buildHasNccl()) { EXPECT_NE(errorOf({"all_reduce", "--backend", "nccl"}).find("built without NCCL"), std::string::npos); }
  if (!buildHasCuda()) { EXPECT_NE(errorOf({"all_reduce", "--backend", "cclab", "--device", "cuda"}).find("built without CUDA"), std::string::npos); }
  EXPECT_NE(errorOf({"all_reduce", "--device", "tpu"}).find("unknown device 'tpu' (valid: cpu, cuda)"), std::string::npos);
  EXPECT_NE(errorOf({"all_reduce", "-z", "3"}).find("-z must be 0, 1 or 2"), std::string::npos);
  EXPECT_NE(errorOf({"all_reduce", "-I", "2"}).find("-I must be 0 or 1"), std::string::npos);
  EXPECT_NE(errorOf({"all_reduce", "-e", "7Q"}).find("-e '7Q' has an unknown unit"), std::string::npos);
  EXPECT_NE(errorOf({"all_reduce", "--bogus"}).find("--bogus"), std::string::npos);
  EXPECT_NE(errorOf({"all_reduce", "-n", "many"}).find("many"), std::string::npos);
  EXPECT_NE(errorOf({}).find("missing the collective"), std::string::npos);
  EXPECT_NE(errorOf({"all_reduce", "-T", "-1"}).find("-T must be"), std::string::npos);
  EXPECT_NE(errorOf({"all_reduce", "-t", "4"}).find("mpirun -np"), std::string::npos);
  EXPECT_NE(errorOf({"all_reduce", "-g", "8"}).find("-g 8: several GPUs per process need --backend nccl alone"), std::string::npos);
  EXPECT_NE(errorOf({"all_reduce", "-G", "10"}).find("CUDA graphs capture NCCL's collectives"), std::string::npos);
  EXPECT_NE(errorOf({"all_reduce", "-g", "0"}).find("-g must be at least 1"), std::string::npos);
  EXPECT_NE(errorOf({"all_reduce", "-b", "0", "-e", "1M", "-f", "2"}).find("-b 0 never grows"), std::string::npos);
  EXPECT_NE(errorOf({"all_reduce", "-m", "0"}).find("-m must be at least 1"), std::string::npos);
  EXPECT_NE(errorOf({"all_reduce", "--min_time", "-1"}).find("--min_time must be 0 or more seconds"), std::string::npos);
  EXPECT_NE(errorOf({"all_reduce", "--min_time", "nan"}).find("--min_time must be 0 or more seconds"), std::string::npos);
  EXPECT_NE(errorOf({"all_reduce", "--min_time", "0.01", "-w", "0"}).find("give -w 1 or more"), std::string::npos);
  EXPECT_EQ(parse({"all_reduce", "--min_time", "0.005"}).minTimeS, 0.005);
  EXPECT_EQ(parse({"all_reduce"}).minTimeS, 0.0);  // off: -n alone, as nccl-tests
  // What nccl-tests scripts pass for one GPU per process is accepted.
  EXPECT_EQ(errorOf({"all_reduce", "-t", "1", "-g", "1", "-G", "0", "-m", "4"}), "");
  // -o with a reducing collective among non-reducing ones applies to the reducing ones.
  EXPECT_EQ(errorOf({"all", "-o", "max"}), "");
  // --algo picks cclab's algorithm: without cclab among the backends it would change nothing.
  EXPECT_NE(errorOf({"all_reduce", "--algo", "rhd"}).find("--algo rhd: it chooses cclab's algorithm"), std::string::npos);
  EXPECT_EQ(errorOf({"all_reduce", "--algo", "rhd", "--backend", "mpi,cclab"}), "");
  EXPECT_NE(errorOf({"all_reduce", "--algo", "ring,", "--backend", "cclab"}).find("--algo: empty item in list 'ring,'"), std::string::npos);
  EXPECT_NE(errorOf({"all_reduce", "--ranks-per-node", "0", "--backend", "cclab"}).find("--ranks-per-node must be at least 1"),
            std::string::npos);
}

TEST(Options, GpuFlags) {
  if (buildHasCuda()) {
    const Options cuda = parse({"all_reduce", "--backend", "cclab", "--device", "cuda", "-z", "2", "-I", "1"});
    EXPECT_EQ(cuda.device, "cuda");
    EXPECT_EQ(cuda.blocking, 2);
    EXPECT_TRUE(cuda.perIterTiming);
    EXPECT_NE(errorOf({"all_reduce", "--backend", "mpi", "--device", "cuda"}).find("add --backend cclab"), std::string::npos);
  }
  if (buildHasNccl()) {
    const Options nccl = parse({"all_reduce", "--backend", "nccl", "-g", "4", "-G", "20"});
    EXPECT_EQ(nccl.gpusPerProcess, 4);
    EXPECT_EQ(nccl.graphLaunches, 20);
    EXPECT_NE(errorOf({"all_reduce", "--backend", "nccl,mpi", "-g", "2"}).find("--backend nccl alone"), std::string::npos);
    EXPECT_NE(errorOf({"all_reduce", "--backend", "nccl", "-G", "5", "-z", "1"}).find("cannot: use one"), std::string::npos);
    EXPECT_NE(errorOf({"all_reduce", "--backend", "nccl", "-G", "5", "--min_time", "0.01"}).find("set the loop with -n"), std::string::npos);
  }
}

TEST(Options, RootMustBeARank) {
  const Options o = parse({"broadcast", "-r", "4"});
  EXPECT_THROW(checkForRanks(o, 4), InputError);
  EXPECT_NO_THROW(checkForRanks(o, 5));
  // Emulated nodes are equal: 3 ranks make no nodes of 2 or of 5.
  const Options nodes = parse({"all_reduce", "--backend", "cclab", "--ranks-per-node", "2"});
  EXPECT_NO_THROW(checkForRanks(nodes, 4));
  EXPECT_THROW(checkForRanks(nodes, 3), InputError);
  EXPECT_THROW(checkForRanks(parse({"all_reduce", "--backend", "cclab", "--ranks-per-node", "5"}), 3), InputError);
  const Options rootless = parse({"all_reduce", "-r", "4"});
  EXPECT_NO_THROW(checkForRanks(rootless, 2));  // no root to check, as in nccl-tests
}

TEST(Options, HelpIsNotAnError) {
  const char* args[] = {"ccbench", "--help"};
  std::ostringstream help;
  EXPECT_FALSE(parseOptions(2, args, help).has_value());
  EXPECT_NE(help.str().find("--backend"), std::string::npos);
  EXPECT_EQ(help.str().find("debug"), std::string::npos);  // test hooks stay hidden
}

}  // namespace
}  // namespace cclab::bench
