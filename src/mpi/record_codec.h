#pragma once
// A compact binary form of request records, for shipping a rank's results to rank 0
// (src/mpi/distributed_run.cc). Lossless for every RequestRecord field, quality included:
// decode_records(encode_records(v)) equals v member by member (a decoded quality is a fresh
// copy, equal in value). About 110 bytes plus the strings and 4 per ITL gap per record, and
// 250 more for a scored record, against ~3x that as requests.jsonl text.
//
// Layout: "SBR3" magic, u64 count, then per record the fixed-size fields in declaration
// order, the length-prefixed strings (class, error, output_text), the ITL floats, and a
// presence byte followed, when 1, by the quality scores and statistics. Host byte order:
// every rank of one job must share it (the magic, read back as a u32, catches a
// mixed-endian job, and a rank of a build with the old "SBR1" layout).
//
// The codec unpacks RequestRecord (and RequestQuality) with structured bindings, so adding a
// member stops record_codec.cc from compiling until the codec carries it.
#include <string>
#include <string_view>
#include <vector>

#include "metrics/request_record.h"

namespace sb::mpi {

std::string encode_records(const std::vector<metrics::RequestRecord>& records);

// Inverse of encode_records. Throws sb::Error on a bad magic, a truncated buffer or an
// out-of-range enum value.
std::vector<metrics::RequestRecord> decode_records(std::string_view bytes);

}  // namespace sb::mpi
