// Findings already known, so that a campaign's summary, a merge and a report lead with what is
// new: the `# expect:` signatures of corpus entries (each entry one root cause: an external
// compiler's bug kept in corpus/external/, or a planted fault's detection) and the signatures of
// gate baselines (one root cause per baseline file, whose signatures say no more).
//
// A failure is known when its signature is one of these, and only in a campaign
// that can show that root cause: an entry of another compiler (`# compiler: ort` in a builtin
// campaign) or of faults the campaign does not inject knows nothing there, since a signature
// alone ("mismatch|O2|compare|output of rms_norm") is shared by unrelated bugs. A signature that
// differs from a known one only in its pipeline ("all-specialized" for "all") is the known root
// cause under a pipeline its entry does not name, and says so; another op or message reads as
// new: nothing here tells it from a second bug that looks alike.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "oracle/campaign/campaign.h"
#include "oracle/check/compiler.h"
#include "oracle/check/signature.h"

namespace difftest::oracle {

class KnownFindings {
 public:
  // From each of `paths`: a corpus directory or .ir entry (its `# expect:` signatures, read
  // with `builtin`'s passes and faults as the gate reads them) that `under_test` with
  // `injected` faults can show, or a gate baseline (.json). UserError naming the file (and
  // line:col) when one is neither, or malformed.
  static KnownFindings read(const std::vector<std::string>& paths, const CompilerUnderTest& builtin,
                            const std::string& under_test, const std::vector<std::string>& injected);

  void add(const Signature& s, const std::string& root_cause);
  bool empty() const { return by_signature_.empty(); }
  size_t signatures() const { return by_signature_.size(); }
  // The root cause `s` is known as ("layer_norm_fusion_eps_on_the_left", or "a or b" when two
  // entries expect it); nullopt: new.
  std::optional<std::string> root_cause(const Signature& s) const;
  // root_cause, else that of a known signature with the same kind, stage and what under
  // another pipeline (KnownMatch::other_pipeline).
  std::optional<KnownMatch> match(const Signature& s) const;
  // Where they came from, as the summary names them ("corpus/external/ort (31 signatures)").
  const std::vector<std::string>& sources() const { return sources_; }

 private:
  std::map<Signature, std::vector<std::string>> by_signature_;
  std::map<std::string, std::vector<std::string>> by_failure_;  // kind|stage|what -> root causes
  std::vector<std::string> sources_;
};

}  // namespace difftest::oracle
