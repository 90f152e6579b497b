#pragma once
// Priority classes (--priority-mix high:0.2,normal:0.8, docs/workloads.md): each request of a
// run is given one class, drawn from the run's seed and the request's id alone, so the same
// seed gives every request the same class whatever the load, the worker count or the order
// the requests are sent in.
//
// Grammar: CLASS:SHARE[,CLASS:SHARE]...; CLASS is [A-Za-z0-9_-]+, each at most once; SHARE a
// decimal number in (0, 1]; the shares sum to 1 within 1e-6. Classes are listed from the most
// urgent to the least: a class's numeric priority is its position in the list (0 = first),
// vLLM's convention (lower = served earlier). The names high, normal and low, where given,
// must come in that order (a mix listing normal before high is refused, not inverted).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sb::load {

struct PriorityClass {
  std::string name;
  double share = 0;
  int64_t priority = 0;  // the position in the mix: 0 = most urgent
};

struct PriorityMix {
  std::vector<PriorityClass> classes;  // in the flag's order; empty: no priority classes
  bool empty() const { return classes.empty(); }
};

// Throws sb::usage_error (exit 2) naming --priority-mix, the bad part and the fix.
PriorityMix parse_priority_mix(std::string_view text);

// The class (an index into mix.classes) of request `id` of a run seeded with `seed`: the
// uniform u = splitmix64(seed ^ splitmix64(id ^ kPriorityStream)) / 2^64 falls in the class
// whose cumulative share interval holds it. `mix` must not be empty.
size_t priority_class_of(const PriorityMix& mix, uint64_t seed, uint64_t id);
// The same class itself; null when `mix` is empty (no priority classes).
inline const PriorityClass* priority_of(const PriorityMix& mix, uint64_t seed, uint64_t id) {
  return mix.empty() ? nullptr : &mix.classes[priority_class_of(mix, seed, id)];
}

}  // namespace sb::load
