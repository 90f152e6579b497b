#include "sim/engine.h"

#include "sim/warning_pragmas.h"

namespace sb::sim {

Engine::Engine(const SimConfig& c, asio::io_context* shared)
    : own_(shared ? nullptr : std::make_unique<asio::io_context>(1)),
      ctx_(shared ? *shared : *own_),
      timer_(ctx_),
      sched_(c) {
  stats_ = sched_.stats();
}

Engine::~Engine() {
  stop();
}

void Engine::start() {
  if (!own_ || thread_.joinable()) return;
  thread_ = std::thread([this] {
    auto guard = asio::make_work_guard(ctx_);
    ctx_.run();
  });
}

void Engine::stop() {
  if (!own_) return;  // the owner of the shared context stops it
  ctx_.stop();
  if (thread_.joinable()) thread_.join();
}

void Engine::submit(const SchedRequest& r, std::shared_ptr<EngineListener> listener) {
  asio::post(ctx_, [this, r, l = std::move(listener)]() mutable {
    TimePoint now = Clock::now();
    events_.clear();
    sched_.advance(now, events_);
    Admission a = sched_.submit(r, now);
    l->on_admission(a);
    if (a == Admission::accepted) listeners_.emplace(r.id, std::move(l));
    pump();
  });
}

void Engine::cancel(uint64_t id) {
  asio::post(ctx_, [this, id] {
    sched_.cancel(id);
    listeners_.erase(id);
    pump();
  });
}

SchedStats Engine::stats() const {
  std::lock_guard lock(stats_mu_);
  return stats_;
}

void Engine::pump() {
  // Dispatch what is due, then sleep until the next model event.
  sched_.advance(Clock::now(), events_);
  for (const auto& e : events_) {
    auto it = listeners_.find(e.id);
    if (it == listeners_.end()) continue;
    it->second->on_event(e);
    if (e.kind == SchedEvent::Kind::token && e.last) listeners_.erase(it);
  }
  events_.clear();
  {
    std::lock_guard lock(stats_mu_);
    stats_ = sched_.stats();
  }
  arm();
}

void Engine::arm() {
  std::optional<TimePoint> next = sched_.next_event();
  if (!next) {
    if (armed_) timer_.cancel();
    armed_.reset();
    return;
  }
  if (armed_ && *armed_ == *next) return;
  armed_ = next;
  timer_.expires_at(*next);  // absolute deadline: no drift
  timer_.async_wait([this](boost::system::error_code ec) {
    if (ec) return;  // re-armed or cancelled
    armed_.reset();
    pump();
  });
}

}  // namespace sb::sim
