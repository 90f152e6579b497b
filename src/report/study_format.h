#pragma once
// Display strings of the study's numbers, shared by its tables and its recommendation.
#include <cstdint>
#include <string>

#include "report/study.h"

namespace sb::report {

// "0.153 ms", "19.2 ms", "812 ms", "3.84 s" (3 significant digits).
std::string duration_text(double ms);

// A latency estimate: "812 ms [790, >850] n=64", with " ≈3.84 s" (model time) when scale != 1;
// "insufficient (n=3)" when n < min_n; "—" when there is no value.
std::string latency_cell(const Estimate& e, int64_t min_n, double scale);

// A rate estimate: "185 req/s [180, 190] n=2000" (" ≈0.925/s" in model time when scale != 1).
std::string rate_cell(const Estimate& e, int64_t min_n, double scale);

// "concurrency 16" / "16 req/s".
std::string load_text(const std::string& kind, double load);

}  // namespace sb::report
