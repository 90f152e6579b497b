#pragma once
// Wall-clock text: the one place servebench formats calendar time (run facts, folder names).
// Measured durations never come from here: they use the steady clock (common/clock.h).
#include <string>

namespace sb {

// Now in UTC, ISO 8601 with milliseconds: "2026-12-03T09:30:21.123Z".
std::string iso_utc_now();

// A new folder runs/<local YYYYMMDD-HHMMSS>-<suffix> (created, with its parents), made unique
// by "-2", "-3", ... when another run started in the same second; returns its path.
// Throws sb::Error (usage) when it cannot be created.
std::string create_default_run_dir(const std::string& suffix);

}  // namespace sb
