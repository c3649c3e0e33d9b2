// A campaign's report as one self-contained web page: the page's template (report.html.in,
// compiled in) with the report's data (report_data.h) embedded; the page's script draws the
// plots from that data, so a page needs no network and no other file to be viewed.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace difftest::oracle {

std::string report_page(const nlohmann::json& data);

}  // namespace difftest::oracle
