#pragma once
// What a server's accept loop does after a failed accept (the simulator's, the live metrics
// endpoint's). Out of descriptors (EMFILE, ENFILE) or kernel memory (ENOBUFS, ENOMEM), the
// pending connection stays in the backlog and the listener stays readable: retrying at once
// spins a core at 100%. Instead the loop waits kExhaustedDelay (other errors: kOtherDelay)
// and says so once on stderr.
#include <chrono>
#include <string>

#include <boost/system/error_code.hpp>

namespace sb {

// Whether `ec` says the process or the system is out of descriptors or socket memory.
bool is_descriptor_exhaustion(const boost::system::error_code& ec);

class AcceptBackoff {
 public:
  static constexpr std::chrono::milliseconds kExhaustedDelay{50};
  static constexpr std::chrono::milliseconds kOtherDelay{5};

  // `who` names the server in the message ("servebench sim on 127.0.0.1:8080").
  explicit AcceptBackoff(std::string who) : who_(std::move(who)) {}
  // The wait before the next accept after `ec`; the first exhaustion is logged.
  std::chrono::milliseconds after_error(const boost::system::error_code& ec);
  bool logged() const { return logged_; }

 private:
  std::string who_;
  bool logged_ = false;
};

}  // namespace sb
