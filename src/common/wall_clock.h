#pragma once
// Wall-clock text: the one place servebench formats calendar time (run facts, folder names).
// Measured durations never come from here: they use the steady clock (common/clock.h).
#include <string>

namespace sb {

// Now in UTC, ISO 8601 with milliseconds: "2026-12-03T09:30:21.123Z".
std::string iso_utc_now();

// A new, empty folder BASE, or BASE-2, BASE-3, ... when the name is taken: each name is tried
// with one mkdir, so processes racing for BASE all get different folders. The parent must
// exist. Returns its path; throws sb::Error (usage) when none can be created.
std::string create_unique_dir(const std::string& base);

// A new folder runs/<local YYYYMMDD-HHMMSS>-<suffix> (runs/ created when missing), made unique
// by create_unique_dir when another run started in the same second; returns its path.
// Throws sb::Error (usage) when it cannot be created.
std::string create_default_run_dir(const std::string& suffix);

}  // namespace sb
