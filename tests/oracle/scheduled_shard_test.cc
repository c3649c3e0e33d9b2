// The shard a batch scheduler gives a campaign started without --shard: a Kubernetes Indexed
// Job's JOB_COMPLETION_INDEX with DIFFTEST_SHARD_COUNT, a Slurm array task's id from its minimum
// of its count; errors name the variable (tests/cli/fuzz_shards.sh runs them end to end).
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "compiler/support/diagnostics.h"
#include "oracle/campaign/campaign.h"

namespace difftest::oracle {
namespace {

ScheduledShard from(const std::map<std::string, std::string>& vars) {
  return shard_from_environment([&](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  });
}

std::string error_of(const std::map<std::string, std::string>& vars) {
  try {
    const ScheduledShard s = from(vars);
    return "no error: " + std::to_string(s.shard.index) + "/" + std::to_string(s.shard.count);
  } catch (const UserError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Usage) << e.what();
    return e.what();
  }
}

TEST(ScheduledShard, WithoutASchedulerTheCampaignIsOneShard) {
  const ScheduledShard s = from({});
  EXPECT_EQ(s.shard.index, 0u);
  EXPECT_EQ(s.shard.count, 1u);
  EXPECT_EQ(s.from, "");
  EXPECT_EQ(from({{"JOB_COMPLETION_INDEX", ""}}).shard.count, 1u) << "an empty variable is unset";
}

TEST(ScheduledShard, AnIndexedJobGivesItsCompletionIndexOfTheCountItIsTold) {
  const ScheduledShard s = from({{"JOB_COMPLETION_INDEX", "3"}, {"DIFFTEST_SHARD_COUNT", "8"}});
  EXPECT_EQ(s.shard.index, 3u);
  EXPECT_EQ(s.shard.count, 8u);
  EXPECT_EQ(s.from, "JOB_COMPLETION_INDEX");
  EXPECT_NE(error_of({{"JOB_COMPLETION_INDEX", "3"}}).find("set DIFFTEST_SHARD_COUNT"), std::string::npos);
  EXPECT_NE(error_of({{"JOB_COMPLETION_INDEX", "8"}, {"DIFFTEST_SHARD_COUNT", "8"}}).find("0 <= index < count"),
            std::string::npos);
  EXPECT_NE(error_of({{"JOB_COMPLETION_INDEX", "x1"}, {"DIFFTEST_SHARD_COUNT", "8"}}).find("JOB_COMPLETION_INDEX: 'x1'"),
            std::string::npos);
  EXPECT_NE(error_of({{"JOB_COMPLETION_INDEX", "1"}, {"DIFFTEST_SHARD_COUNT", "0"}}).find("0 <= index < count"),
            std::string::npos);
}

TEST(ScheduledShard, ASlurmArrayTaskCountsFromTheArraysMinimum) {
  const ScheduledShard s = from({{"SLURM_ARRAY_TASK_ID", "5"}, {"SLURM_ARRAY_TASK_MIN", "1"}, {"SLURM_ARRAY_TASK_COUNT", "8"}});
  EXPECT_EQ(s.shard.index, 4u);
  EXPECT_EQ(s.shard.count, 8u);
  EXPECT_EQ(s.from, "SLURM_ARRAY_TASK_ID");
  EXPECT_EQ(from({{"SLURM_ARRAY_TASK_ID", "0"}, {"SLURM_ARRAY_TASK_COUNT", "2"}}).shard.index, 0u);
  EXPECT_NE(error_of({{"SLURM_ARRAY_TASK_ID", "1"}}).find("SLURM_ARRAY_TASK_COUNT is not set"), std::string::npos);
  EXPECT_NE(error_of({{"SLURM_ARRAY_TASK_ID", "2"}, {"SLURM_ARRAY_TASK_COUNT", "4"}, {"SLURM_ARRAY_TASK_STEP", "2"}})
                .find("SLURM_ARRAY_TASK_STEP: 2"),
            std::string::npos);
  EXPECT_NE(error_of({{"SLURM_ARRAY_TASK_ID", "0"}, {"SLURM_ARRAY_TASK_MIN", "1"}, {"SLURM_ARRAY_TASK_COUNT", "4"}})
                .find("below SLURM_ARRAY_TASK_MIN"),
            std::string::npos);
  EXPECT_NE(error_of({{"SLURM_ARRAY_TASK_ID", "9"}, {"SLURM_ARRAY_TASK_MIN", "1"}, {"SLURM_ARRAY_TASK_COUNT", "8"}})
                .find("0 <= index < count"),
            std::string::npos);
}

}  // namespace
}  // namespace difftest::oracle
