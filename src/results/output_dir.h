#pragma once
// The -o folder of prof, sweep and run: one check, one message, so that no command writes
// over earlier results unless told to.
#include <string>

namespace sb::results {

// Makes DIR ready for a command's results: created with its parents when missing, used as is
// when it is an empty folder. A non-empty folder is refused unless `overwrite` (--overwrite:
// its files of the same names are then replaced, others stay); anything but a folder is
// refused. Throws sb::Error (usage) naming the folder and the flag.
void prepare_output_dir(const std::string& dir, bool overwrite);

}  // namespace sb::results
