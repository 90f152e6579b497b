#include "results/request_log_read.h"

#include <sys/mman.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <utility>

#include <fmt/format.h>

#include "common/error.h"
#include "results/request_jsonl.h"

namespace sb::results {

namespace {

constexpr size_t kBlockBytes = size_t{1} << 20;

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

File open_log(const std::string& path) {
  File f(std::fopen(path.c_str(), "rb"));
  if (!f) throw usage_error(fmt::format("cannot read {}", path));
  return f;
}

// Counts a line that did not parse into `skipped` / `first_error` / `cut` (see the header).
void note_bad_line(int64_t line_no, bool whole, const std::exception& e, int64_t& skipped,
                   std::string& first_error, bool& cut) {
  ++skipped;
  if (first_error.empty())
    first_error =
        fmt::format("line {}{}: {}", line_no, whole ? "" : " (cut, no newline)", e.what());
  cut = !whole;
}

// Calls on_line(line, line_no, whole) for every line of `f` (without its '\n'; `whole`: it ended
// with one) until it returns false, reading 1 MiB blocks: memory stays at a block plus the
// longest line, whatever the file's size. Returns the read error (errno) or 0.
template <typename OnLine>
int for_each_line(std::FILE* f, OnLine&& on_line) {
  std::unique_ptr<char[]> block(new char[kBlockBytes]);
  std::string partial;  // a line split by a block boundary
  int64_t line_no = 0;
  for (;;) {
    const size_t got = std::fread(block.get(), 1, kBlockBytes, f);
    const char* p = block.get();
    const char* const end = p + got;
    while (p < end) {
      const auto* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p)));
      if (!nl) {
        partial.append(p, end);
        break;
      }
      if (partial.empty()) {
        if (!on_line(std::string_view(p, static_cast<size_t>(nl - p)), ++line_no, true)) return 0;
      } else {
        partial.append(p, nl);
        if (!on_line(std::string_view(partial), ++line_no, true)) return 0;
        partial.clear();
      }
      p = nl + 1;
    }
    if (got < kBlockBytes) break;
  }
  const int error = std::ferror(f) ? errno : 0;
  if (!partial.empty()) on_line(std::string_view(partial), ++line_no, false);
  return error;
}

// Asks for transparent huge pages over a large buffer about to be filled: a 4 GB vector of
// records then faults in 2 MiB pages rather than a million 4 KiB ones, where the kernel's THP
// mode is `madvise` (Debian's default). Best effort: ignored where THP is off.
void advise_huge_pages(void* data, size_t bytes) {
  constexpr uintptr_t kHuge = uintptr_t{2} << 20;
  const auto at = reinterpret_cast<uintptr_t>(data);
  const uintptr_t begin = (at + kHuge - 1) & ~(kHuge - 1);
  const uintptr_t end = (at + bytes) & ~(kHuge - 1);
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

size_t file_size(std::FILE* f) {
  struct stat st {};
  return ::fstat(::fileno(f), &st) == 0 && st.st_size > 0 ? static_cast<size_t>(st.st_size) : 0;
}

// Sorts records by id (ties in file order), moving each record once: the ids with their
// positions are sorted, then the permutation is applied cycle by cycle. A record is ~430 bytes,
// so std::sort's many moves of records cost more than the parse of a 10 M-line log.
void sort_by_id(std::vector<metrics::RequestRecord>& records) {
  const auto by_id = [](const auto& a, const auto& b) { return a.id < b.id; };
  if (std::is_sorted(records.begin(), records.end(), by_id)) return;
  std::vector<std::pair<uint64_t, size_t>> order(records.size());
  for (size_t i = 0; i < records.size(); ++i) order[i] = {records[i].id, i};
  std::sort(order.begin(), order.end());
  // Slot i takes the record at order[i].second; follow each cycle once, marking done slots.
  constexpr size_t kDone = SIZE_MAX;
  for (size_t start = 0; start < records.size(); ++start) {
    if (order[start].second == kDone || order[start].second == start) continue;
    metrics::RequestRecord held = std::move(records[start]);
    size_t slot = start;
    for (;;) {
      const size_t from = order[slot].second;
      order[slot].second = kDone;
      if (from == start) {
        records[slot] = std::move(held);
        break;
      }
      records[slot] = std::move(records[from]);
      slot = from;
    }
  }
}

}  // namespace

RequestLogContents read_request_log(const std::string& path) {
  const File f = open_log(path);
  RequestLogContents out;
  RequestJsonlReader reader;
  size_t lines_read = 0, bytes_read = 0;
  const size_t file_bytes = file_size(f.get());
  const int error = for_each_line(f.get(), [&](std::string_view line, int64_t line_no, bool whole) {
    bytes_read += line.size() + 1;
    // After the first thousand lines, room for the whole file at their mean length: a long
    // run's log is not moved from one doubling to the next (10 M records, ~4 GB).
    if (++lines_read == 1000 && file_bytes > bytes_read) {
      out.records.reserve(static_cast<size_t>(static_cast<double>(file_bytes) /
                                              static_cast<double>(bytes_read) * 1000 * 1.05));
      advise_huge_pages(out.records.data(),
                        out.records.capacity() * sizeof(metrics::RequestRecord));
    }
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) return true;
    try {
      reader.parse_into(line, out.records.emplace_back());
    } catch (const std::exception& e) {
      out.records.pop_back();
      note_bad_line(line_no, whole, e, out.skipped_lines, out.first_error, out.last_line_cut);
    }
    return true;
  });
  if (error != 0) throw usage_error(fmt::format("reading {}: {}", path, std::strerror(error)));
  sort_by_id(out.records);
  return out;
}

RequestLogScan scan_request_log(const std::string& path,
                                const std::function<void(const metrics::RequestRecord&)>& on_record,
                                const std::function<void()>& on_restart, size_t window) {
  const File f = open_log(path);
  RequestLogScan out;
  RequestJsonlReader reader;
  // The reorder buffer: records parsed into slots, a min-heap of (id, line order, slot).
  struct Pending {
    uint64_t id;
    int64_t order;
    size_t slot;
    bool operator>(const Pending& o) const { return id != o.id ? id > o.id : order > o.order; }
  };
  std::vector<metrics::RequestRecord> slots;
  std::vector<size_t> free_slots;
  std::vector<Pending> heap;
  const auto later = std::greater<Pending>();
  bool delivered_any = false, out_of_order = false;
  uint64_t last_id = 0;
  int64_t order = 0;
  auto deliver_first = [&] {
    std::pop_heap(heap.begin(), heap.end(), later);
    const Pending p = heap.back();
    heap.pop_back();
    on_record(slots[p.slot]);
    ++out.records;
    last_id = p.id;
    delivered_any = true;
    free_slots.push_back(p.slot);
  };
  const int error = for_each_line(f.get(), [&](std::string_view line, int64_t line_no, bool whole) {
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) return true;
    size_t slot;
    if (free_slots.empty()) {
      slot = slots.size();
      slots.emplace_back();
    } else {
      slot = free_slots.back();
      free_slots.pop_back();
      slots[slot] = metrics::RequestRecord{};
    }
    try {
      reader.parse_into(line, slots[slot]);
    } catch (const std::exception& e) {
      free_slots.push_back(slot);
      note_bad_line(line_no, whole, e, out.skipped_lines, out.first_error, out.last_line_cut);
      return true;
    }
    if (delivered_any && slots[slot].id < last_id) {
      out_of_order = true;
      return false;
    }
    heap.push_back({slots[slot].id, order++, slot});
    std::push_heap(heap.begin(), heap.end(), later);
    if (heap.size() > window) deliver_first();
    return true;
  });
  if (error != 0) throw usage_error(fmt::format("reading {}: {}", path, std::strerror(error)));
  if (!out_of_order) {
    while (!heap.empty()) deliver_first();
    return out;
  }
  heap = {};
  slots = {};
  on_restart();
  RequestLogContents whole = read_request_log(path);
  out = {};
  out.reread = true;
  out.skipped_lines = whole.skipped_lines;
  out.first_error = std::move(whole.first_error);
  out.last_line_cut = whole.last_line_cut;
  for (const metrics::RequestRecord& r : whole.records) on_record(r);
  out.records = static_cast<int64_t>(whole.records.size());
  return out;
}

}  // namespace sb::results
