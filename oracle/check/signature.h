// Failure signatures: what makes two failures the same bug, for deduplication, baselines and
// the gate. Inside the program a Signature is a struct; its text form "kind|place|stage|what"
// exists only at the journal, baseline and console boundaries.
#pragma once

#include <optional>
#include <string>

namespace difftest::oracle {

struct Signature {
  // A failure verdict's kind name (mismatch, timeout, ...), kHarnessError or kLostDetection.
  std::string kind;
  // The variant ("O3", "O0~O3", "O3-specialized"; "custom" for any recorded pass list), or for a
  // lost detection the corpus file; "" for a harness error.
  std::string place;
  std::string stage;  // Stage::name() of the failure; "" for harness errors and lost detections
  // "output of <op>" for a finding about values, else the masked message (normalize_message);
  // for a lost detection the signature its corpus entry expects, in text form.
  std::string what;

  // "mismatch|O3|compare|output of mul", "harness_error|worker killed by signal N",
  // "lost-detection|entry.ir|mismatch|O0|compare|output of dequantize".
  std::string str() const;
  // The signature `text` spells; nullopt when it has no kind and no '|'-separated rest of the
  // fields its kind has.
  static std::optional<Signature> parse(const std::string& text);
  bool is_outlier() const;
  bool is_timeout() const;

  bool operator==(const Signature&) const = default;
  // In the order of their text, as baselines and reports list them.
  bool operator<(const Signature& o) const { return str() < o.str(); }
};

inline constexpr const char* kHarnessError = "harness_error";
inline constexpr const char* kLostDetection = "lost-detection";

// A difftest bug while checking a seed (never the compiler's).
Signature harness_error_signature(const std::string& message);
// A corpus entry whose faults no longer show the signature it expects.
Signature lost_detection_signature(const std::string& file, const Signature& expected);

// `message` with numbers, %names, @names and bracketed shapes masked, so that failures that
// differ only in those collapse to one signature.
std::string normalize_message(const std::string& message);

}  // namespace difftest::oracle
