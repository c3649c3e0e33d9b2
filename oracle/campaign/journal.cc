// Reading a campaign's journal back (oracle/campaign.h): for --resume and for the gate's
// per-seed report.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>

#include "oracle/campaign/campaign.h"

namespace difftest::oracle {

namespace fs = std::filesystem;

namespace {

// Reads the journal: a torn last line is truncated away, a corrupt line skipped (see
// read_campaign_journal).
Journal read_journal(const fs::path& path, const VariantLadder& compiler) {
  Journal j;
  std::ifstream in(path, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t at = 0;
  int line = 0;
  while (at < text.size()) {
    ++line;
    const size_t nl = text.find('\n', at);
    if (nl == std::string::npos) {  // the campaign died mid-write
      j.notes.push_back(fmt::format("{}:{}: a torn last line (the campaign was killed while writing it): dropped",
                                    path.string(), line));
      std::error_code ec;
      fs::resize_file(path, at, ec);
      if (ec) j.notes.push_back(fmt::format("{}: cannot cut the torn line off: {}", path.string(), ec.message()));
      break;
    }
    const std::string where = fmt::format("{}:{}", path.string(), line);
    try {
      j.records.push_back(SeedRecord::from_json(nlohmann::json::parse(text.substr(at, nl - at)), where, compiler));
    } catch (const std::exception&) {  // not JSON, or not a record
      j.notes.push_back(
          fmt::format("{}: not a journal record (a JSON object with a \"seed\" number): skipped; its "
                      "program, if any, is checked again",
                      where));
    }
    at = nl + 1;
  }
  return j;
}

}  // namespace

Journal read_campaign_journal(const std::string& out_dir, const VariantLadder& compiler) {
  const fs::path path = fs::path(out_dir) / "journal.jsonl";
  if (!fs::exists(path)) return {};
  return read_journal(path, compiler);
}

}  // namespace difftest::oracle
