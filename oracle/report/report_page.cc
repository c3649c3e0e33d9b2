#include "oracle/report/report_page.h"

#include "compiler/support/diagnostics.h"

namespace difftest::oracle {

extern const char* const kReportTemplate;  // report.html.in (report_template.cc.in)

std::string report_page(const nlohmann::json& data) {
  std::string json = data.dump();
  // Inside <script>, "</" could end the element early: JSON allows "<\/" for it.
  for (size_t at = 0; (at = json.find("</", at)) != std::string::npos; at += 3) json.replace(at, 2, "<\\/");
  std::string page = kReportTemplate;
  const std::string slot = "{{REPORT_DATA}}";
  const size_t at = page.find(slot);
  DT_CHECK(at != std::string::npos, "the report template has no data slot");
  page.replace(at, slot.size(), json);
  return page;
}

}  // namespace difftest::oracle
