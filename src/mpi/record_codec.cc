#include "mpi/record_codec.h"

#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>

#include "common/error.h"

namespace sb::mpi {
namespace {

constexpr uint32_t kMagic = 0x33524253;  // "SBR3" read as a little-endian u32

template <class T>
void put(std::string& out, T v) {
  static_assert(std::is_trivially_copyable_v<T>);
  char buf[sizeof(T)];
  std::memcpy(buf, &v, sizeof(T));
  out.append(buf, sizeof(T));
}

template <class T, size_t N>
void put_array(std::string& out, const std::array<T, N>& a) {
  for (const T& v : a) put<T>(out, v);
}

void put_string(std::string& out, const std::string& s) {
  put<uint32_t>(out, static_cast<uint32_t>(s.size()));
  out.append(s);
}

class Reader {
 public:
  explicit Reader(std::string_view b) : b_(b) {}
  template <class T>
  T get() {
    need(sizeof(T));
    T v;
    std::memcpy(&v, b_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return v;
  }
  template <class T, size_t N>
  void get_array(std::array<T, N>& a) {
    for (T& v : a) v = get<T>();
  }
  // An enum stored as one byte; throws when the value is not below `count`.
  template <class E>
  E get_enum(size_t count, const char* what) {
    const auto v = get<uint8_t>();
    if (v >= count) throw Error(std::string("rank results: bad ") + what);
    return static_cast<E>(v);
  }
  std::string get_string() {
    const auto n = get<uint32_t>();
    need(n);
    std::string s(b_.substr(pos_, n));
    pos_ += n;
    return s;
  }
  void get_floats(std::vector<float>& v, uint32_t n) {
    need(size_t{n} * sizeof(float));
    v.resize(n);
    if (n > 0) std::memcpy(v.data(), b_.data() + pos_, size_t{n} * sizeof(float));
    pos_ += size_t{n} * sizeof(float);
  }

 private:
  void need(size_t n) const {
    if (b_.size() - pos_ < n) throw Error("rank results: truncated record buffer");
  }
  std::string_view b_;
  size_t pos_ = 0;
};

constexpr size_t kTokenSources = static_cast<size_t>(metrics::TokenSource::none) + 1;

// The structured bindings below name every member of the struct they unpack: adding a
// member to RequestRecord, RequestQuality, BleuStats or ChrfStats stops this file from
// compiling until the codec (and the comparison in tests/mpi/record_codec_test.cc) carries it.

void put_quality(std::string& out, const quality::RequestQuality& q) {
  const auto& [bleu, chrf, rouge_l, exact_match, empty_reference, bleu_stats, chrf_stats] = q;
  for (double v : {bleu, chrf, rouge_l}) put<double>(out, v);
  put<uint8_t>(out, exact_match ? 1 : 0);
  put<uint8_t>(out, empty_reference ? 1 : 0);
  const auto& [hyp_len, ref_len, correct, total] = bleu_stats;
  put<int64_t>(out, hyp_len);
  put<int64_t>(out, ref_len);
  put_array(out, correct);
  put_array(out, total);
  const auto& [chrf_hyp, chrf_ref, chrf_match] = chrf_stats;
  put_array(out, chrf_hyp);
  put_array(out, chrf_ref);
  put_array(out, chrf_match);
}

std::shared_ptr<const quality::RequestQuality> get_quality(Reader& in) {
  auto q = std::make_shared<quality::RequestQuality>();
  auto& [bleu, chrf, rouge_l, exact_match, empty_reference, bleu_stats, chrf_stats] = *q;
  for (double* v : {&bleu, &chrf, &rouge_l}) *v = in.get<double>();
  exact_match = in.get<uint8_t>() != 0;
  empty_reference = in.get<uint8_t>() != 0;
  auto& [hyp_len, ref_len, correct, total] = bleu_stats;
  hyp_len = in.get<int64_t>();
  ref_len = in.get<int64_t>();
  in.get_array(correct);
  in.get_array(total);
  auto& [chrf_hyp, chrf_ref, chrf_match] = chrf_stats;
  in.get_array(chrf_hyp);
  in.get_array(chrf_ref);
  in.get_array(chrf_match);
  return q;
}

void put_phases(std::string& out, const metrics::RequestRecord::ClientPhases& c) {
  const auto& [pool_wait_ms, connect_ms, tls_ms, write_ms, ttfb_ms, headers_ms, read_lag_max_ms,
               reused] = c;
  for (float v : {pool_wait_ms, connect_ms, tls_ms, write_ms, ttfb_ms, headers_ms, read_lag_max_ms})
    put<float>(out, v);
  put<uint8_t>(out, reused ? 1 : 0);
}

void get_phases(Reader& in, metrics::RequestRecord::ClientPhases& c) {
  auto& [pool_wait_ms, connect_ms, tls_ms, write_ms, ttfb_ms, headers_ms, read_lag_max_ms, reused] =
      c;
  for (float* v :
       {&pool_wait_ms, &connect_ms, &tls_ms, &write_ms, &ttfb_ms, &headers_ms, &read_lag_max_ms})
    *v = in.get<float>();
  reused = in.get<uint8_t>() != 0;
}

void put_server(std::string& out, const ServerTimes& t) {
  const auto& [queue_ms, prefill_ms, decode_ms, inference_ms, total_ms, cached_tokens, source] = t;
  for (double v : {queue_ms, prefill_ms, decode_ms, inference_ms, total_ms}) put<double>(out, v);
  put<int64_t>(out, cached_tokens);
  put<uint8_t>(out, static_cast<uint8_t>(source));
}

void get_server(Reader& in, ServerTimes& t) {
  auto& [queue_ms, prefill_ms, decode_ms, inference_ms, total_ms, cached_tokens, source] = t;
  for (double* v : {&queue_ms, &prefill_ms, &decode_ms, &inference_ms, &total_ms})
    *v = in.get<double>();
  cached_tokens = in.get<int64_t>();
  source = in.get_enum<ServerTimingSource>(kServerTimingSourceCount, "server timing source");
}

void put_record(std::string& out, const metrics::RequestRecord& r) {
  const auto& [id, request_class, priority_class, priority, warmup, status, error_class, error,
               t_sched_ns, t_send_ns, t_first_ns, t_first_content_ns, t_last_ns, t_end_ns,
               session_id, turn, session_turns, history_tokens, input_tokens, items, output_tokens,
               output_tokens_source, output_tokens_alt, output_tokens_alt_source, reasoning_tokens,
               reasoning_tokens_source, output_text, quality, client, server, events, itl_ms] = r;
  put<uint64_t>(out, id);
  put<uint8_t>(out, warmup ? 1 : 0);
  put<int32_t>(out, status);
  put<uint8_t>(out, static_cast<uint8_t>(error_class));
  for (int64_t t : {t_sched_ns, t_send_ns, t_first_ns, t_first_content_ns, t_last_ns, t_end_ns,
                    input_tokens, output_tokens, output_tokens_alt, reasoning_tokens, session_id,
                    history_tokens, priority, items})
    put<int64_t>(out, t);
  put<int32_t>(out, turn);
  put<int32_t>(out, session_turns);
  put<uint8_t>(out, static_cast<uint8_t>(output_tokens_source));
  put<uint8_t>(out, static_cast<uint8_t>(output_tokens_alt_source));
  put<uint8_t>(out, static_cast<uint8_t>(reasoning_tokens_source));
  put<uint32_t>(out, events);
  put_string(out, request_class);
  put_string(out, priority_class);
  put_string(out, error);
  put_string(out, output_text);
  put<uint32_t>(out, static_cast<uint32_t>(itl_ms.size()));
  if (!itl_ms.empty())
    out.append(reinterpret_cast<const char*>(itl_ms.data()), itl_ms.size() * sizeof(float));
  put<uint8_t>(out, quality ? 1 : 0);
  if (quality) put_quality(out, *quality);
  put_phases(out, client);
  put_server(out, server);
}

void get_record(Reader& in, metrics::RequestRecord& r) {
  auto& [id, request_class, priority_class, priority, warmup, status, error_class, error,
         t_sched_ns, t_send_ns, t_first_ns, t_first_content_ns, t_last_ns, t_end_ns, session_id,
         turn, session_turns, history_tokens, input_tokens, items, output_tokens,
         output_tokens_source, output_tokens_alt, output_tokens_alt_source, reasoning_tokens,
         reasoning_tokens_source, output_text, quality, client, server, events, itl_ms] = r;
  id = in.get<uint64_t>();
  warmup = in.get<uint8_t>() != 0;
  status = in.get<int32_t>();
  error_class = in.get_enum<ErrorClass>(kErrorClassNames.size(), "error class");
  for (int64_t* t : {&t_sched_ns, &t_send_ns, &t_first_ns, &t_first_content_ns, &t_last_ns,
                     &t_end_ns, &input_tokens, &output_tokens, &output_tokens_alt,
                     &reasoning_tokens, &session_id, &history_tokens, &priority, &items})
    *t = in.get<int64_t>();
  turn = in.get<int32_t>();
  session_turns = in.get<int32_t>();
  output_tokens_source = in.get_enum<metrics::TokenSource>(kTokenSources, "token source");
  output_tokens_alt_source = in.get_enum<metrics::TokenSource>(kTokenSources, "token source");
  reasoning_tokens_source = in.get_enum<metrics::TokenSource>(kTokenSources, "token source");
  events = in.get<uint32_t>();
  request_class = in.get_string();
  priority_class = in.get_string();
  error = in.get_string();
  output_text = in.get_string();
  in.get_floats(itl_ms, in.get<uint32_t>());
  quality = in.get<uint8_t>() != 0 ? get_quality(in) : nullptr;
  get_phases(in, client);
  get_server(in, server);
}

}  // namespace

std::string encode_records(const std::vector<metrics::RequestRecord>& records) {
  std::string out;
  size_t itl = 0;
  for (const auto& r : records) itl += r.itl_ms.size();
  out.reserve(12 + records.size() * 116 + itl * sizeof(float));
  put<uint32_t>(out, kMagic);
  put<uint64_t>(out, records.size());
  for (const auto& r : records) put_record(out, r);
  return out;
}

std::vector<metrics::RequestRecord> decode_records(std::string_view bytes) {
  Reader in(bytes);
  if (in.get<uint32_t>() != kMagic)
    throw Error("rank results: bad magic (a rank of another servebench version or byte order?)");
  const auto n = in.get<uint64_t>();
  if (n > bytes.size()) throw Error("rank results: record count larger than the buffer");
  std::vector<metrics::RequestRecord> out(n);
  for (auto& r : out) get_record(in, r);
  return out;
}

}  // namespace sb::mpi
