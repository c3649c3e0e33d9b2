// The regression corpus (corpus/*.ir): programs with their expected verdict in a header
// comment, read before the program text:
//
//   # expect: ok                                    the program must pass every check
//   # fault: q4f16-1-zero-point-8                   (repeatable) with these faults on ...
//   # expect: mismatch|O0|compare|output of dequantize    ... it must show this signature
//
// An entry with faults is both a regression test (it passes with them off) and a detection
// test (with them on, the harness still reports the signature). A reduced reproducer may fail
// only under the pass list it was reduced with, and only under one binding:
//
//   # passes: LegalizeOps,ScheduleMatmul            also checked with this pass list ...
//   # llvm: 3                                       ... at this LLVM level (default 0) ...
//   # fma: on                                       ... with FMA contraction (default off)
//   # bind: k=1                                     also checked under this binding
//
// A finding that shows only on some data (an eps a large input hides) names the seed of the
// generated inputs it was found with (the gate's default is 0):
//
//   # input-seed: 1                                 inputs generated from seed 1
//
// A bug of another compiler under test, found by difftest and kept so that the gate notices
// the day an upgrade fixes or changes it, has no fault: the compiler shows it as it is.
//
//   # compiler: ort                                 the expectations are this backend's ...
//   # expect: mismatch|extended|compare|output of attention   ... every one must show (the
//   # expect: mismatch|all|compare|output of attention         line repeats), and nothing else
//
// Under another backend such an entry is checked like an `ok` entry.
//
// `# what:` is free text, and so is a comment line without a one-word key before a colon; any
// other one-word key is an error (a misspelt header would otherwise be ignored), and so is a
// second `# passes:`, `# llvm:`, `# fma:`, `# bind:` or `# input-seed:`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ir/ir.h"
#include "oracle/check/check.h"
#include "oracle/check/signature.h"

namespace difftest::oracle {

struct CorpusEntry {
  std::string file;
  Program program;
  std::vector<std::string> faults;  // `# fault:` lines, in order
  std::optional<Signature> expect;  // nullopt: ok; else the signature to show with `faults` on
  std::string compiler;             // `# compiler:`: the backend whose own bugs `known_bugs` are
  std::vector<Signature> known_bugs;           // with `compiler`: every `# expect:` signature
  std::optional<Variant> custom;     // `# passes:` (named "custom"), `# llvm:`, `# fma:`
  std::optional<sym::Env> binding;  // `# bind:`
  std::optional<uint64_t> input_seed;  // `# input-seed:`
};

// `base` for checking `e`: its pass list added to the pipelines, its binding to the bindings.
CheckOptions entry_checks(const CorpusEntry& e, CheckOptions base);

// Reads and verifies one entry, whose `# passes:` and `# fault:` are those of `builtin` (the
// builtin compiler: CompilerUnderTest::step_list, planted_faults). UserError naming
// file:line:col for a malformed header (no or two `# expect:` lines, an unknown fault or pass,
// faults with `expect: ok`, a signature whose kind is not a failure kind, a bad LLVM level, FMA
// setting or binding) and for a program that does not parse or verify.
CorpusEntry read_corpus_entry(const std::string& path, const CompilerUnderTest& builtin);

// The .ir files of a corpus directory, sorted by name, or the file itself. UserError(Io) when
// the path does not exist or a directory holds no .ir file.
std::vector<std::string> corpus_files(const std::string& dir_or_file);

}  // namespace difftest::oracle
