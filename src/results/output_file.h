#pragma once
// The one way servebench creates an output file (summary.json/csv, index.json/csv,
// report.html, requests.jsonl, telemetry.jsonl, launch logs): never through a symbolic link,
// never onto an earlier file unless the user said --overwrite, never inherited by a child.
#include <sys/types.h>

#include <string>
#include <string_view>

namespace sb::results {

// Opens PATH for writing and returns its descriptor (the caller closes it):
// O_WRONLY|O_CREAT|O_NOFOLLOW|O_CLOEXEC and O_EXCL (a new file), or O_TRUNC instead of O_EXCL
// when `overwrite` (an existing regular file is emptied). `mode` is 0666 by default, so the
// user's umask decides; launch logs, which can hold a server's key, pass 0600 (also applied
// to a file that already existed). Throws sb::Error naming PATH when it exists (and not
// `overwrite`), is a symbolic link or anything but a regular file, or cannot be created.
int open_output_file(const std::string& path, bool overwrite, mode_t mode = 0666);

// Writes `content` to PATH atomically: a new temporary file beside it (open_output_file),
// fsync, then renamed over PATH (a reader sees the old file or the new one, never half of
// one) and the folder fsynced. An existing regular file is replaced (index.json is rewritten
// after every run; `summarize` and `report` rewrite theirs); a symbolic link at PATH is
// refused, not followed nor replaced. Throws sb::Error naming the file on failure.
void write_file_atomically(const std::string& path, std::string_view content);

}  // namespace sb::results
