#pragma once
// A compact binary form of request records, for shipping a rank's results to rank 0
// (src/mpi/distributed_run.cc). Lossless for every RequestRecord field; about 110 bytes
// plus 4 per ITL gap per record, against ~3x that as requests.jsonl text.
//
// Layout: "SBR1" magic, u64 count, then per record the fixed-size fields in declaration
// order followed by length-prefixed strings (class, error, output_text) and the ITL floats.
// Host byte order: every rank of one job must share it (the magic, read back as a u32,
// catches a mixed-endian job).
#include <string>
#include <string_view>
#include <vector>

#include "metrics/request_record.h"

namespace sb::mpi {

std::string encode_records(const std::vector<metrics::RequestRecord>& records);

// Inverse of encode_records. Throws sb::Error on a bad magic or a truncated buffer.
std::vector<metrics::RequestRecord> decode_records(std::string_view bytes);

}  // namespace sb::mpi
