#pragma once
// The process's stop request and the child process groups that must not outlive it.
//
// Contract:
//   - process_stop_flag() is the one flag the signal handlers (cli/signals.h) set on the first
//     SIGINT, SIGTERM or SIGHUP; code that waits without a run's stop pointer at hand (the
//     launcher's readiness wait, plan/launcher.h) polls it.
//   - A launched server's process group is registered while it may be alive. On the immediate
//     exit of a second Ctrl-C the handler calls kill_child_groups(), so no registered group
//     survives servebench. At most kMaxChildGroups at once: register_child_group() returns
//     false when full (the group is then only stopped the normal way).
//   - kill_child_groups() is async-signal-safe (atomics and kill(2) only).
#include <sys/types.h>

#include <atomic>

namespace sb {

inline constexpr int kMaxChildGroups = 16;

std::atomic<bool>& process_stop_flag();

bool register_child_group(pid_t pgid);
void unregister_child_group(pid_t pgid);
// SIGKILL to every registered group (they stay registered: the owner reaps and unregisters).
void kill_child_groups() noexcept;

}  // namespace sb
