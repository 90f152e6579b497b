#pragma once
// The -o folder of prof, sweep and run: one check, one message, so that no command writes
// over earlier results unless told to.
#include <string>

namespace sb::results {

// Makes DIR ready for a command's results: created with its parents when missing, used as is
// when it holds no data (nothing, or only empty files and folders of them: what a run that
// failed before its first request leaves). A folder with data is refused unless `overwrite`
// (--overwrite: its files of the same names are then replaced, others stay); anything but a
// folder is refused. Throws sb::Error (usage) naming the folder, a file it holds and the flag.
void prepare_output_dir(const std::string& dir, bool overwrite);

}  // namespace sb::results
