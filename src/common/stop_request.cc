#include "common/stop_request.h"

#include <signal.h>

#include <array>

namespace sb {
namespace {

// Signal handlers can only reach static storage: the flag and the slots live here.
std::atomic<bool> g_stop{false};
std::array<std::atomic<pid_t>, kMaxChildGroups> g_groups{};  // 0: a free slot

static_assert(std::atomic<pid_t>::is_always_lock_free, "used from a signal handler");

}  // namespace

std::atomic<bool>& process_stop_flag() {
  return g_stop;
}

bool register_child_group(pid_t pgid) {
  for (auto& slot : g_groups) {
    pid_t free_slot = 0;
    if (slot.compare_exchange_strong(free_slot, pgid)) return true;
  }
  return false;
}

void unregister_child_group(pid_t pgid) {
  for (auto& slot : g_groups) {
    pid_t mine = pgid;
    if (slot.compare_exchange_strong(mine, 0)) return;
  }
}

void kill_child_groups() noexcept {
  for (auto& slot : g_groups)
    if (const pid_t pgid = slot.load(); pgid > 0) ::kill(-pgid, SIGKILL);
}

}  // namespace sb
