// Reader thread -> parse threads -> in-order apply on the calling thread.
#include "import/json/import_pipeline.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "import/json/event_splitter.h"
#include "import/json/json_event_parser.h"

namespace cprof::json {
namespace {

Status RunInline(EventSplitter& splitter, ByteSource* source,
                 const std::function<Status(const ParsedBatch&)>& apply) {
  JsonEventParser parser;
  SplitBatch split;
  ParsedBatch parsed;
  for (;;) {
    RETURN_IF_ERROR(splitter.Next(&split));
    parsed.Reset();
    RETURN_IF_ERROR(parser.Parse(split, source->path(), source->compressed(), &parsed));
    RETURN_IF_ERROR(apply(parsed));
    if (split.last) return Status::Ok();
  }
}

class ThreadedPipeline {
 public:
  ThreadedPipeline(EventSplitter* splitter, ByteSource* source, int workers)
      : splitter_(splitter), source_(source), workers_(workers),
        max_in_flight_(static_cast<uint64_t>(workers + 2)) {}

  Status Run(const std::function<Status(const ParsedBatch&)>& apply) {
    std::vector<std::thread> threads;
    threads.emplace_back([this] { ReadLoop(); });
    for (int i = 0; i < workers_; ++i) threads.emplace_back([this] { ParseLoop(); });
    Status status;
    for (uint64_t seq = 0;; ++seq) {
      std::unique_ptr<ParsedBatch> batch;
      {
        std::unique_lock lock(mu_);
        cv_.wait(lock, [&] { return done_.count(seq) != 0; });
        batch = std::move(done_[seq]);
        done_.erase(seq);
      }
      if (!batch->error.ok()) {
        status = batch->error;
        break;
      }
      status = apply(*batch);
      const bool last = batch->last;
      batch->Reset();  // frees the chunk before the reader is let go
      {
        std::lock_guard lock(mu_);
        applied_ = seq + 1;
        spare_parsed_.push_back(std::move(batch));
      }
      cv_.notify_all();
      if (!status.ok() || last) break;
    }
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (std::thread& t : threads) t.join();
    return status;
  }

 private:
  void ReadLoop() {
    for (uint64_t seq = 0;; ++seq) {
      {
        std::unique_lock lock(mu_);
        cv_.wait(lock, [&] { return stop_ || seq - applied_ < max_in_flight_; });
        if (stop_) break;
      }
      std::unique_ptr<SplitBatch> split;
      {
        std::lock_guard lock(mu_);
        if (!spare_split_.empty()) {
          split = std::move(spare_split_.back());
          spare_split_.pop_back();
        }
      }
      if (!split) split = std::make_unique<SplitBatch>();
      Status st = splitter_->Next(split.get());
      const bool last = split->last || !st.ok();
      {
        std::lock_guard lock(mu_);
        if (st.ok()) {
          todo_.emplace_back(seq, std::move(split));
        } else {
          auto failed = std::make_unique<ParsedBatch>();
          failed->error = st;
          failed->last = true;
          done_[seq] = std::move(failed);
        }
        if (last) read_done_ = true;
      }
      cv_.notify_all();
      if (last) break;
    }
    std::lock_guard lock(mu_);
    read_done_ = true;
    cv_.notify_all();
  }

  void ParseLoop() {
    JsonEventParser parser;
    for (;;) {
      std::pair<uint64_t, std::unique_ptr<SplitBatch>> work;
      {
        std::unique_lock lock(mu_);
        cv_.wait(lock, [&] { return stop_ || !todo_.empty() || read_done_; });
        if (stop_ || todo_.empty()) break;
        work = std::move(todo_.front());
        todo_.pop_front();
      }
      std::unique_ptr<ParsedBatch> parsed;
      {
        std::lock_guard lock(mu_);
        if (!spare_parsed_.empty()) {
          parsed = std::move(spare_parsed_.back());
          spare_parsed_.pop_back();
        }
      }
      if (!parsed) parsed = std::make_unique<ParsedBatch>();
      Status st = parser.Parse(*work.second, source_->path(), source_->compressed(), parsed.get());
      if (!st.ok()) parsed->error = st;
      work.second->chunk.reset();
      {
        std::lock_guard lock(mu_);
        done_[work.first] = std::move(parsed);
        spare_split_.push_back(std::move(work.second));
      }
      cv_.notify_all();
    }
  }

  EventSplitter* splitter_;
  ByteSource* source_;
  const int workers_;
  const uint64_t max_in_flight_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::pair<uint64_t, std::unique_ptr<SplitBatch>>> todo_;
  std::map<uint64_t, std::unique_ptr<ParsedBatch>> done_;
  // Emptied batches for reuse: their vectors keep their capacity.
  std::vector<std::unique_ptr<SplitBatch>> spare_split_;
  std::vector<std::unique_ptr<ParsedBatch>> spare_parsed_;
  uint64_t applied_ = 0;
  bool read_done_ = false;
  bool stop_ = false;
};

}  // namespace

Status RunImportPipeline(ByteSource* source, const PipelineOptions& options,
                         const std::function<Status(const ParsedBatch&)>& apply, PipelineResult* result) {
  EventSplitter splitter(source, options.chunk_bytes, options.max_chunk_bytes);
  const int threads = options.threads > 0 ? options.threads
                                          : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  // Past a few parse threads the in-order apply on the caller is the bottleneck, and every extra
  // thread only holds more chunks in memory.
  constexpr int kMaxParseThreads = 4;
  Status status = threads <= 1 ? RunInline(splitter, source, apply)
                               : ThreadedPipeline(&splitter, source, std::min(threads, kMaxParseThreads)).Run(apply);
  RETURN_IF_ERROR(status);
  result->object_form = splitter.object_form();
  result->unterminated_array = splitter.unterminated_array();
  result->events = splitter.events_seen();
  result->bytes = splitter.bytes_read();
  return Status::Ok();
}

}  // namespace cprof::json
