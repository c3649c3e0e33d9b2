// A campaign's workers (campaign.h): forked processes that each check the seeds handed to them,
// one per line on a pipe, and answer with one journal record per line.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "oracle/campaign/campaign.h"
#include "oracle/campaign/record.h"

namespace difftest::oracle {

// Checks one seed: its journal record. Exceptions become harness errors: the generator and the
// reference are difftest's own code, so a throw there is never the compiler's fault. With
// faults injected, the record names the first failure the clean compiler does not show.
SeedRecord check_seed(uint64_t seed, const CampaignOptions& o);

// A worker as the campaign sees it: its process, its pipes, what it is checking.
struct Worker {
  pid_t pid = -1;
  int to = -1, from = -1;
  std::optional<uint64_t> seed;  // the seed it is checking
  std::string buffer;            // what it sent of its next record so far
};

// Forks a worker; `others` are the campaign's other workers, whose pipe ends it closes.
Worker spawn_worker(const CampaignOptions& o, const std::vector<Worker>& others);

}  // namespace difftest::oracle
