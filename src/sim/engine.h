#pragma once
// The real-time driver of the Scheduler: one engine thread with an Asio timer set
// to the scheduler's next model event at its absolute time (expires_at, never an
// accumulated relative sleep), so emission does not drift. Listeners receive the
// admission verdict and every event on the engine thread and must hand them to
// their own executor.
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include "common/asio.h"
#include "sim/config.h"
#include "sim/scheduler.h"

namespace sb::sim {

class EngineListener {
 public:
  virtual ~EngineListener() = default;
  virtual void on_admission(Admission a) = 0;      // exactly once, first
  virtual void on_event(const SchedEvent& e) = 0;  // admitted, then tokens; last token ends it
};

class Engine {
 public:
  // Runs on its own thread, or on `shared` (a context the caller runs and stops;
  // the server uses its only network context when it has one thread: no thread hops).
  explicit Engine(const SimConfig& c, asio::io_context* shared = nullptr);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  void start();
  void stop();
  // Thread-safe. r.id must be unique.
  void submit(const SchedRequest& r, std::shared_ptr<EngineListener> listener);
  void cancel(uint64_t id);
  SchedStats stats() const;

 private:
  void pump();
  void arm();

  std::unique_ptr<asio::io_context> own_;
  asio::io_context& ctx_;
  std::thread thread_;
  asio::steady_timer timer_;
  Scheduler sched_;
  std::unordered_map<uint64_t, std::shared_ptr<EngineListener>> listeners_;
  std::vector<SchedEvent> events_;
  mutable std::mutex stats_mu_;
  SchedStats stats_;
  std::optional<TimePoint> armed_;
};

}  // namespace sb::sim
