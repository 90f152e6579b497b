#pragma once
// Honest time for runs against a time-scaled simulator (`--sim-time-scale S`): every
// simulated duration was multiplied by S, so a run at S = 0.005 is 200x faster than the
// modelled hardware. Such runs are labelled "simulated at ×S" wherever they are shown, and
// their server-side durations convert to model time by dividing by S (rates: multiply by S).
// The conversion is approximate for client-side times: the client's own overhead (wake-ups,
// parsing; tens of microseconds) is not scaled, so it weighs 1/S times more in model time.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace sb::report {

// config.sim_time_scale of a summary (a number > 0); 1 when absent (real time, real servers).
double time_scale_of(const nlohmann::json& summary);

// "simulated at ×0.005" (S != 1), "" for real time.
std::string scale_statement(double scale);

// The distinct scales != 1 among the summaries, ascending.
std::vector<double> distinct_scales(const std::vector<const nlohmann::json*>& summaries);

// One line for a table of runs at these scales: "" when every run is real time, else
// "simulated at ×0.005: times are wall-clock on this machine, 200× shorter than the modelled
// hardware's; ≈ model = wall ÷ 0.005 (rates × 0.005), client overhead included".
std::string scale_note(const std::vector<double>& scales);

// Whether a summary is a prediction (`servebench predict`: config.predicted), not a measurement.
bool predicted_of(const nlohmann::json& summary);
// How many of the summaries are predictions.
size_t count_predicted(const std::vector<const nlohmann::json*>& summaries);
// One line when some runs were predicted: "" when none; else "Predicted, not measured: N of M
// runs were computed by `servebench predict` in virtual time from the simulator's model (no
// server ran); their times are the model's."
std::string predicted_note(size_t predicted, size_t total);

}  // namespace sb::report
