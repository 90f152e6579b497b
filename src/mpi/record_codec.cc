#include "mpi/record_codec.h"

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "common/error.h"

namespace sb::mpi {
namespace {

constexpr uint32_t kMagic = 0x31524253;  // "SBR1" read as a little-endian u32

template <class T>
void put(std::string& out, T v) {
  static_assert(std::is_trivially_copyable_v<T>);
  char buf[sizeof(T)];
  std::memcpy(buf, &v, sizeof(T));
  out.append(buf, sizeof(T));
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

}  // namespace

std::string encode_records(const std::vector<metrics::RequestRecord>& records) {
  std::string out;
  size_t itl = 0;
  for (const auto& r : records) itl += r.itl_ms.size();
  out.reserve(12 + records.size() * 112 + itl * sizeof(float));
  put<uint32_t>(out, kMagic);
  put<uint64_t>(out, records.size());
  for (const auto& r : records) {
    put<uint64_t>(out, r.id);
    put<uint8_t>(out, r.warmup ? 1 : 0);
    put<int32_t>(out, r.status);
    put<uint8_t>(out, static_cast<uint8_t>(r.error_class));
    for (int64_t t : {r.t_sched_ns, r.t_send_ns, r.t_first_ns, r.t_first_content_ns, r.t_last_ns,
                      r.t_end_ns, r.input_tokens, r.output_tokens, r.output_tokens_alt})
      put<int64_t>(out, t);
    put<uint8_t>(out, static_cast<uint8_t>(r.output_tokens_source));
    put<uint8_t>(out, static_cast<uint8_t>(r.output_tokens_alt_source));
    put<uint32_t>(out, r.events);
    put_string(out, r.request_class);
    put_string(out, r.error);
    put_string(out, r.output_text);
    put<uint32_t>(out, static_cast<uint32_t>(r.itl_ms.size()));
    if (!r.itl_ms.empty())
      out.append(reinterpret_cast<const char*>(r.itl_ms.data()), r.itl_ms.size() * sizeof(float));
  }
  return out;
}

std::vector<metrics::RequestRecord> decode_records(std::string_view bytes) {
  Reader in(bytes);
  if (in.get<uint32_t>() != kMagic)
    throw Error("rank results: bad magic (a rank of another servebench version or byte order?)");
  const auto n = in.get<uint64_t>();
  if (n > bytes.size()) throw Error("rank results: record count larger than the buffer");
  std::vector<metrics::RequestRecord> out(n);
  for (auto& r : out) {
    r.id = in.get<uint64_t>();
    r.warmup = in.get<uint8_t>() != 0;
    r.status = in.get<int32_t>();
    r.error_class = static_cast<ErrorClass>(in.get<uint8_t>());
    for (int64_t* t :
         {&r.t_sched_ns, &r.t_send_ns, &r.t_first_ns, &r.t_first_content_ns, &r.t_last_ns,
          &r.t_end_ns, &r.input_tokens, &r.output_tokens, &r.output_tokens_alt})
      *t = in.get<int64_t>();
    r.output_tokens_source = static_cast<metrics::TokenSource>(in.get<uint8_t>());
    r.output_tokens_alt_source = static_cast<metrics::TokenSource>(in.get<uint8_t>());
    r.events = in.get<uint32_t>();
    r.request_class = in.get_string();
    r.error = in.get_string();
    r.output_text = in.get_string();
    in.get_floats(r.itl_ms, in.get<uint32_t>());
  }
  return out;
}

}  // namespace sb::mpi
