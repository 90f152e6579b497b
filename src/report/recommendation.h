#pragma once
// A recommendation per scenario that is a decision: the backend that meets the SLOs at the
// highest load (study.h: max stable load, judged levels only), with the margin over the
// runner-up and why each other backend loses (errors and their class at the level where it
// fails, the SLO it misses there, flat throughput past its knee, too little evidence). Ties on
// load go to the lower P99 e2e at that load; a tie within both P99s' intervals is called one.
// A backend never wins by default: the winner must itself be stable, on judged levels; when no
// backend is, the sentence says that no backend meets the SLOs and why each fails.
#include <optional>
#include <string>
#include <vector>

#include "report/study.h"

namespace sb::report {

struct Recommendation {
  std::string scenario;
  std::optional<std::string> winner;  // nullopt: no backend meets the SLOs
  std::optional<double> load;         // the winner's max stable load
  std::string text;                   // the whole decision, one paragraph
};

std::vector<Recommendation> recommend(const Study& study);

// Why a group stops being usable, in words ("errors: 37% of 200 requests failed (overloaded
// 74) at concurrency 128"); "" when it was stable at every judged level.
std::string why_it_stops(const Group& group, const Study& study);

}  // namespace sb::report
