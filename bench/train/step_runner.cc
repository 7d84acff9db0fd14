#include "bench/train/step_runner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <mutex>
#include <thread>

#include <sys/prctl.h>

#include <fmt/format.h>

#include "collectives/communicator.h"
#include "collectives/verify/verify.h"

namespace cclab::bench {
namespace {

using sim::Group;
using sim::StreamKind;

// The streams and groups a step's collectives use, in one order on every rank (MPI_Comm_split is
// collective: every rank creates the same communicators in the same order).
constexpr StreamKind kCollectiveStreams[] = {StreamKind::Compute, StreamKind::Gather, StreamKind::Reduce};
constexpr Group kCollectiveGroups[] = {Group::Tensor, Group::Data, Group::Shard, Group::Replica};
constexpr int kGroups = 4;

int channelIndex(StreamKind stream, Group group) { return static_cast<int>(stream) * kGroups + static_cast<int>(group); }

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// Sleeps `seconds` and no more than needed: to the last 30 us by the kernel's timer (the stream
// threads' slack is 1 ns: the default 50 us would add up over thousands of short tasks; a wake-up
// still comes 10-40 us late on a VM), then by polling the clock without yielding. A yield hands
// the core to any busy process for its whole time slice: with one on the machine, every task
// slept 3 ms too long (measured on the 2-core CI VM, 2026-12-02).
void sleepFor(double seconds) {
  if (seconds <= 0) return;
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  if (seconds > 30e-6) std::this_thread::sleep_until(until - std::chrono::microseconds(30));
  while (std::chrono::steady_clock::now() < until) {
  }
}

std::size_t whole(double x) { return static_cast<std::size_t>(std::max(1.0, std::round(x))); }

}  // namespace

// One group's communicator for one stream, and the stream's buffers on the platform's device,
// sized for its largest collective on this group (-c 1 stages its checks through host copies).
struct StepRunner::Channel {
  std::unique_ptr<StepLink> link;
  Device* device = nullptr;
  void* send = nullptr;
  void* recv = nullptr;
  std::size_t sendBytes = 0, recvBytes = 0;
  std::vector<char> hostSend, hostRecv;

  Communicator& communicator() { return link->communicator(); }
  ~Channel() {
    if (send) device->release(send);
    if (recv) device->release(recv);
  }
};

struct StepRunner::Progress {
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<char> done;
  bool failed = false;
};

StepRunner::StepRunner(const sim::StepGraph& graph, const RankLayout& layout, const TrainOptions& options, DataType dtype, StepPlatform& platform,
                       Watchdog& watchdog)
    : graph_(graph), layout_(layout), options_(options), dtype_(dtype), platform_(platform), watchdog_(watchdog),
      progress_(std::make_unique<Progress>()) {
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);  // 1 ns timer slack for the stream threads (they inherit it)
  stage_ = layout_.coordinates(rank_).stage;
  int found = 0;
  int* bound = nullptr;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &bound, &found);
  if (found && bound) tagBound_ = *bound;

  // This stage's tasks by stream, and each task's dependencies split into this stage's and the
  // pipeline messages it waits for.
  const std::size_t n = graph.tasks.size();
  streamTasks_.assign(sim::kStreamKinds, {});
  localDeps_.assign(n, {});
  remoteDeps_.assign(n, {});
  sendTo_.assign(n, {});
  for (std::size_t i = 0; i < n; ++i) {
    const sim::Task& task = graph.tasks[i];
    for (int dep : task.after) {
      const int from = graph.tasks[static_cast<std::size_t>(dep)].stage;
      if (task.stage == stage_) (from == stage_ ? localDeps_ : remoteDeps_)[i].push_back(dep);
      if (from == stage_ && task.stage != stage_) sendTo_[static_cast<std::size_t>(dep)].push_back(task.stage);
    }
    if (task.stage == stage_) streamTasks_[static_cast<std::size_t>(task.stream)].push_back(static_cast<int>(i));
  }
  for (auto& stages : sendTo_) {
    std::sort(stages.begin(), stages.end());
    stages.erase(std::unique(stages.begin(), stages.end()), stages.end());
  }
  for (std::size_t i = 0; i < n; ++i) {
    const sim::Task& task = graph.tasks[i];
    if (task.stage == stage_ && !remoteDeps_[i].empty() && task.stream != StreamKind::Compute) {
      throw std::logic_error("ccbench train: a pipeline message waited for off the compute stream");
    }
  }

  // The communicators: one per collective stream and group.
  channels_.resize(static_cast<std::size_t>(sim::kStreamKinds * kGroups));
  for (StreamKind stream : kCollectiveStreams) {
    for (Group group : kCollectiveGroups) {
      MPI_Comm comm;
      MPI_Comm_split(MPI_COMM_WORLD, layout_.color(group, rank_), rank_, &comm);
      auto ch = std::make_unique<Channel>();
      ch->link = platform_.link(comm, stream);
      ch->device = &platform_.device(stream);
      MPI_Comm_free(&comm);  // the communicators dup it
      channels_[static_cast<std::size_t>(channelIndex(stream, group))] = std::move(ch);
    }
  }
  MPI_Comm_dup(MPI_COMM_WORLD, &pipeline_);

  // Buffers sized by the graph: each channel's largest collective, the largest GEMM's operands,
  // the element-wise passes' working set, the optimizer's shard and the largest pipeline message.
  auto sizeFor = [&](StreamKind stream, const sim::GroupCollective& gc) {
    Channel& ch = channel(stream, gc.group);
    const int ranks = ch.communicator().size();
    const std::size_t count = countForBytes(gc.collective, static_cast<std::size_t>(gc.bytes), dtype_, ranks);
    const BufferLayout l = bufferLayout(gc.collective, count, ranks, ch.communicator().rank());
    ch.sendBytes = std::max(ch.sendBytes, std::max<std::size_t>(1, l.sendCount) * sizeOf(dtype_));
    ch.recvBytes = std::max(ch.recvBytes, std::max<std::size_t>(1, l.recvCount) * sizeOf(dtype_));
  };
  ComputeSizes sizes;
  std::size_t& message = sizes.message;
  const bool gemms = options.compute == ComputeMode::Gemm;
  for (int i : streamTasks_[static_cast<std::size_t>(StreamKind::Compute)]) {
    const sim::Task& task = graph.tasks[static_cast<std::size_t>(i)];
    if (task.tensorCollectiveRuns > 0) {
      for (const auto& gc : graph.tensorCollectives) sizeFor(StreamKind::Compute, gc);
    }
    if (task.part == sim::Part::PipeComm && !task.collectives.empty()) message = std::max(message, whole(task.collectives.front().bytes));
    if (!gemms) continue;
    if (task.gemmSet >= 0) {
      for (const sim::Gemm& g : graph.gemmSets[static_cast<std::size_t>(task.gemmSet)]) {
        sizes.a = std::max(sizes.a, whole(g.m) * whole(g.k));
        sizes.b = std::max(sizes.b, whole(g.k) * whole(g.n));
        sizes.c = std::max(sizes.c, whole(g.m) * whole(g.n));
        sizes.batchedA = std::max(sizes.batchedA, whole(g.count) * whole(g.m) * whole(g.k));
        sizes.batchedB = std::max(sizes.batchedB, whole(g.count) * whole(g.k) * whole(g.n));
        sizes.batchedC = std::max(sizes.batchedC, whole(g.count) * whole(g.m) * whole(g.n));
      }
    }
    sizes.stream = std::max(sizes.stream, std::min<std::size_t>(std::size_t{16} << 20, whole(task.memoryBytes / 8)));
    sizes.parameters = std::max(sizes.parameters, static_cast<std::size_t>(task.parameters));
  }
  for (int i = 0; i < static_cast<int>(n); ++i) {
    const sim::Task& task = graph.tasks[static_cast<std::size_t>(i)];
    if (task.stage == stage_) {
      for (int dep : remoteDeps_[static_cast<std::size_t>(i)]) {
        const auto& from = graph.tasks[static_cast<std::size_t>(dep)];
        if (!from.collectives.empty()) message = std::max(message, whole(from.collectives.front().bytes));
      }
      if (sim::isCollectiveStream(task.stream)) {
        for (const auto& gc : task.collectives) sizeFor(task.stream, gc);
      }
    }
  }
  // Allocate and touch every buffer now, not inside the first timed step.
  platform_.reserve(sizes);
  std::size_t largest = 0;
  for (const auto& ch : channels_) {
    if (ch) largest = std::max({largest, ch->sendBytes, ch->recvBytes});
  }
  const std::vector<char> zeros(largest, 0);
  for (const auto& ch : channels_) {
    if (!ch) continue;  // the offload stream runs no collectives
    for (auto [buffer, bytes] : {std::pair{&ch->send, ch->sendBytes}, std::pair{&ch->recv, ch->recvBytes}}) {
      if (bytes == 0) continue;
      *buffer = ch->device->allocate(bytes);
      ch->device->copy(*buffer, zeros.data(), bytes);
    }
    if (options_.check) {
      ch->hostSend.assign(ch->sendBytes, 0);
      ch->hostRecv.assign(ch->recvBytes, 0);
    }
    ch->link->wait([] {});
  }
  progress_->done.assign(n, 0);
}

StepRunner::~StepRunner() {
  channels_.clear();
  if (pipeline_ != MPI_COMM_NULL) MPI_Comm_free(&pipeline_);
}

int StepRunner::rankOnStage(int stage) const {
  const RankCoordinates me = layout_.coordinates(rank_);
  return layout_.rank({me.tensor, me.data, stage});
}

StepRunner::Channel& StepRunner::channel(StreamKind stream, Group group) {
  return *channels_[static_cast<std::size_t>(channelIndex(stream, group))];
}

std::vector<MeasuredTask> StepRunner::run() {
  std::vector<MeasuredTask> times(graph_.tasks.size());
  {
    std::lock_guard lock(progress_->mutex);
    std::fill(progress_->done.begin(), progress_->done.end(), 0);
    progress_->failed = false;
  }
  const double origin = now();
  std::vector<std::thread> threads;
  std::vector<std::exception_ptr> errors(sim::kStreamKinds);
  for (int s = 0; s < sim::kStreamKinds; ++s) {
    if (streamTasks_[static_cast<std::size_t>(s)].empty()) continue;
    threads.emplace_back([this, s, &times, &errors, origin] {
      try {
        runStream(static_cast<StreamKind>(s), times, origin);
      } catch (...) {
        errors[static_cast<std::size_t>(s)] = std::current_exception();
        std::lock_guard lock(progress_->mutex);
        progress_->failed = true;
        progress_->changed.notify_all();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
  return times;
}

void StepRunner::runStream(StreamKind stream, std::vector<MeasuredTask>& times, double origin) {
  for (int i : streamTasks_[static_cast<std::size_t>(stream)]) {
    {
      // A stream runs its tasks in issue order, each once what it waits for on this stage is done.
      std::unique_lock lock(progress_->mutex);
      progress_->changed.wait(lock, [&] {
        if (progress_->failed) return true;
        for (int dep : localDeps_[static_cast<std::size_t>(i)]) {
          if (!progress_->done[static_cast<std::size_t>(dep)]) return false;
        }
        return true;
      });
      if (progress_->failed) return;
    }
    // The pipeline messages it waits for arrive on the compute stream (Megatron-LM's blocking recv).
    for (int dep : remoteDeps_[static_cast<std::size_t>(i)]) receiveMessage(dep);
    execute(i, times[static_cast<std::size_t>(i)], origin);
    watchdog_.kick();
    std::lock_guard lock(progress_->mutex);
    progress_->done[static_cast<std::size_t>(i)] = 1;
    progress_->changed.notify_all();
  }
  if (stream == StreamKind::Compute && !sends_.empty()) {
    // The step ends when its messages have left.
    MPI_Waitall(static_cast<int>(sends_.size()), sends_.data(), MPI_STATUSES_IGNORE);
    sends_.clear();
  }
}

void StepRunner::receiveMessage(int dep) {
  const sim::Task& from = graph_.tasks[static_cast<std::size_t>(dep)];
  const int peer = rankOnStage(from.stage);
  const int bytes = from.collectives.empty() ? 0 : static_cast<int>(whole(from.collectives.front().bytes));
  // Waited for without spinning: a GPU waiting for a message leaves the other GPUs' work alone,
  // and a rank here must leave the cores it shares with other ranks to them.
  MPI_Request request;
  MPI_Irecv(platform_.messageBuffer(), bytes, MPI_BYTE, peer, dep % tagBound_, pipeline_, &request);
  for (int arrived = 0;;) {
    MPI_Test(&request, &arrived, MPI_STATUS_IGNORE);
    if (arrived) break;
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
  platform_.messageFromHost(static_cast<std::size_t>(bytes));
}

void StepRunner::execute(int index, MeasuredTask& times, double origin) {
  const sim::Task& task = graph_.tasks[static_cast<std::size_t>(index)];
  times.start = now() - origin;
  switch (task.stream) {
    case StreamKind::Compute:
      if (task.part == sim::Part::PipeComm) {
        // A pipeline send: posted to every stage that waits for it; the step waits for it at its end.
        const int bytes = task.collectives.empty() ? 0 : static_cast<int>(whole(task.collectives.front().bytes));
        platform_.messageToHost(static_cast<std::size_t>(bytes));
        for (int stage : sendTo_[static_cast<std::size_t>(index)]) {
          const int peer = rankOnStage(stage);
          sends_.emplace_back();
          MPI_Isend(platform_.messageBuffer(), bytes, MPI_BYTE, peer, index % tagBound_, pipeline_, &sends_.back());
        }
        break;
      }
      if (task.part == sim::Part::Offload) {
        sleepFor(task.seconds);  // CPU checkpointing's copy: no host transfer is made, its predicted time
        break;
      }
      compute(task);
      if (task.tensorCollectiveRuns > 0) {
        const double tensorStart = now();
        for (int k = 0; k < task.tensorCollectiveRuns; ++k) {
          for (const auto& gc : graph_.tensorCollectives) runCollective(StreamKind::Compute, gc);
        }
        times.tensorSeconds = now() - tensorStart;
      }
      break;
    case StreamKind::Gather:
    case StreamKind::Reduce:
      if (task.part == sim::Part::Offload) {
        sleepFor(task.seconds);  // ZeRO-1/2's gradient copy on the reduction stream: its predicted time
        break;
      }
      for (const auto& gc : task.collectives) runCollective(task.stream, gc);
      break;
    case StreamKind::Offload:
      sleepFor(task.seconds);  // no host transfer is made: its predicted time
      break;
  }
  times.end = now() - origin;
}

void StepRunner::compute(const sim::Task& task) {
  if (options_.compute == ComputeMode::None) return;
  if (options_.compute == ComputeMode::Sleep) {
    sleepFor(task.seconds - task.tensorCommSeconds);
    return;
  }
  std::span<const sim::Gemm> gemms;
  if (task.gemmSet >= 0) gemms = graph_.gemmSets[static_cast<std::size_t>(task.gemmSet)];
  platform_.compute(task, gemms);
}

void StepRunner::runCollective(StreamKind stream, const sim::GroupCollective& gc) {
  Channel& ch = channel(stream, gc.group);
  Communicator& comm = ch.communicator();
  const int ranks = comm.size();
  if (ranks <= 1) return;
  const std::size_t count = countForBytes(gc.collective, static_cast<std::size_t>(gc.bytes), dtype_, ranks);
  if (count == 0) return;
  CollectiveArgs args{ch.send, ch.recv, count, dtype_, ReduceOp::Sum, 0};
  const auto kick = [this] { watchdog_.kick(); };
  if (options_.check == 0) {
    comm.run(gc.collective, args);
    ch.link->wait(kick);
    return;
  }
  // -c 1: verifiable inputs, a poisoned output, the exact result checked.
  const std::optional<ReduceOp> op = reduces(gc.collective) ? std::optional(ReduceOp::Sum) : std::nullopt;
  verify::Verifier verifier(gc.collective, dtype_, op, count, ranks, comm.rank(), 0);
  const BufferLayout l = bufferLayout(gc.collective, count, ranks, comm.rank());
  const std::size_t sendBytes = l.sendCount * sizeOf(dtype_), recvBytes = l.recvCount * sizeOf(dtype_);
  verifier.fillInput(ch.hostSend.data(), 0);
  verifier.poison(ch.hostRecv.data(), l.recvCount);
  ch.device->copy(ch.send, ch.hostSend.data(), sendBytes);
  ch.device->copy(ch.recv, ch.hostRecv.data(), recvBytes);
  comm.run(gc.collective, args);
  ch.device->copy(ch.hostRecv.data(), ch.recv, recvBytes);
  ch.link->wait(kick);
  if (options_.debugCorruptRank == rank_ && l.recvCount > 0 && !corrupted_.exchange(true)) {
    ch.hostRecv[0] = static_cast<char>(ch.hostRecv[0] ^ 1);  // the test hook: one flipped bit
  }
  wrong_ += verifier.countWrong(ch.hostRecv.data(), 0, kick);
}

}  // namespace cclab::bench
