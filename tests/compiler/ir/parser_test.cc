// Text form: exact round trips, located errors for every malformed input, and robustness
// against mutated input (never anything but a UserError).
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "compiler/ir/parser.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/verifier.h"
#include "fuzz/generator.h"
#include "tests/support/rc_choices.h"

namespace difftest {
namespace {

const std::string kSource = DIFFTEST_SOURCE_DIR;

const char* kDesignExample = R"(program @gemma_local_attn(n: 1..256) {
  %x: f16[n, 640] = param
  %w: u32[640, 80] = param
  %s: f16[640, 20] = param
  %g: f32[640] = const uniform(-1, 1, seed=3)
  %e: f32[2, 2] = const [[1, 0], [0, 1]]
  %0: f16[640, 640] = dequantize(%w, %s, format="q4f16_1", group=32)
  %1: f16[n, 640] = matmul(%x, %0, transpose_b=true, acc=f32)
  %2: bool[n, n] = sliding_window_mask(q_len=n, kv_len=n, window=512, sink=0)
  return %1, %2
}
)";

TEST(TextForm, DesignExampleRoundTripsExactly) {
  const Program p = parse_program(kDesignExample, "design.ir");
  verify(p);
  EXPECT_EQ(print(p), kDesignExample);
}

TEST(TextForm, NonCanonicalSpellingsNormalize) {
  const char* text = R"(# a comment
program @t(n: 1..8) {   # trailing comment
  %x: f32[n*1, 4] = param
  %y: f32[n, 4] = softmax(%x, axis=-1)
  %z: f32[n, 4] = matmul(%y, %w4, transpose_b=false)
  %w4: f32[4, 4] = param
  return %z
})";
  try {
    parse_program(text, "t.ir");
    FAIL() << "use before definition accepted";
  } catch (const UserError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::UnknownName);
    EXPECT_EQ(e.loc().line, 5);
  }
  const char* ok = R"(program @t(n: 1..8) {
  %x: f32[n*1, 4] = param
  %y: f32[n, 4] = softmax(%x, axis=-1)
  return %y
})";
  const Program p = parse_program(ok);
  verify(p);
  // Defaults are omitted; dims are kept as written (n*1 is not simplified in the text).
  EXPECT_EQ(print(p), "program @t(n: 1..8) {\n  %x: f32[n*1, 4] = param\n  %y: f32[n, 4] = softmax(%x)\n  return %y\n}\n");
}

TEST(TextForm, ConstantsAndScalarsRoundTrip) {
  const char* text = R"(program @c() {
  %a: f32[] = const -0.5
  %b: i8[2, 2] = const [[-128, 127], [0, 1]]
  %c: bool[3] = const [true, false, true]
  %d: f16[2] = const [1e-05, 65504]
  %e: bf16[4, 2] = const normal(0, 0.02, seed=7)
  %f: u32[2] = const [4294967295, 0]
  %g: f64[1] = const [inf]
  %h: f32[] = add(%a, %a)
  return %h, %b, %c, %d, %e, %f, %g
}
)";
  EXPECT_EQ(print(parse_program(text)), text);
}

TEST(TextForm, MultiResultBindingsRoundTrip) {
  const char* text = R"(program @s(n: 1..16) {
  %x: f32[n, 8] = param
  %a: f32[n, 2], %b: f32[n, 6] = split(%x, indices=[2], axis=1)
  %w: f16[n, 64] = param
  %q: u32[n, 8], %s: f16[n, 2] = quantize(%w, format="q4f16_1", group=32)
  return %a, %b, %q, %s
}
)";
  const Program p = parse_program(text);
  verify(p);
  EXPECT_EQ(print(p), text);
}

TEST(TextForm, CorpusFilesAreCanonicalAndVerify) {
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kSource + "/corpus")) {
    if (entry.path().extension() != ".ir") continue;
    ++count;
    std::ifstream in(entry.path());
    std::stringstream body;
    std::string line;
    bool header = true;
    while (std::getline(in, line)) {
      if (header && line.rfind("#", 0) == 0) continue;
      header = false;
      body << line << "\n";
    }
    const Program p = parse_program(body.str(), entry.path().string());
    verify(p);
    EXPECT_EQ(print(p), body.str()) << entry.path() << " is not in canonical form";
  }
  EXPECT_GE(count, 10);
}

struct Expected {
  std::string file, kind;
  int line, col;
};

std::vector<Expected> malformed_manifest() {
  std::ifstream in(kSource + "/tests/malformed/expected.txt");
  std::vector<Expected> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    Expected e;
    ss >> e.file >> e.kind >> e.line >> e.col;
    out.push_back(e);
  }
  return out;
}

TEST(Malformed, EachInputGivesItsLocatedError) {
  const auto cases = malformed_manifest();
  ASSERT_GE(cases.size(), 15u);
  for (const auto& c : cases) {
    const std::string path = kSource + "/tests/malformed/" + c.file;
    try {
      verify(parse_program_file(path));
      ADD_FAILURE() << c.file << " was accepted";
    } catch (const UserError& e) {
      EXPECT_EQ(error_kind_name(e.kind()), c.kind) << c.file << ": " << e.what();
      EXPECT_EQ(e.loc().file, path) << c.file;
      EXPECT_EQ(e.loc().line, c.line) << c.file << ": " << e.what();
      EXPECT_EQ(e.loc().col, c.col) << c.file << ": " << e.what();
    }
  }
}

TEST(Malformed, ErrorsSayWhatWasFoundAndExpected) {
  try {
    parse_program("program @t() {\n  %x: f32[2] = param\n  return %x,\n}\n", "t.ir");
    FAIL();
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "t.ir:4:1: error[syntax]: expected a value such as %x, found '}'");
  }
}

TEST(Malformed, HugeInputIsRefusedBeforeParsing) {
  std::string huge(kMaxInputBytes + 1, ' ');
  try {
    parse_program(huge, "huge.ir");
    FAIL();
  } catch (const UserError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Limit);
  }
}

RC_GTEST_PROP(TextFormProperty, PrintParseIsTheIdentityOnGeneratedPrograms, ()) {
  testing::RcChoices c;
  const Program p = generate_program(c);
  verify(p);
  const std::string text = print(p);
  const Program q = parse_program(text, "gen.ir");
  verify(q);
  RC_ASSERT(print(q) == text);
}

RC_GTEST_PROP(TextFormProperty, MutatedTextNeverCrashesTheParser, ()) {
  testing::RcChoices c;
  std::string text = print(generate_program(c));
  const int edits = static_cast<int>(c.range(1, 6));
  for (int i = 0; i < edits && !text.empty(); ++i) {
    const size_t at = c.below(text.size());
    switch (c.below(4)) {
      case 0: text.erase(at, 1 + c.below(8)); break;
      case 1: text.insert(at, 1, static_cast<char>(c.below(256))); break;
      case 2: text[at] = "()[]{},:=%@#\"-+*/0123456789nmxyz\n"[c.below(34)]; break;
      default: text.resize(at); break;
    }
  }
  try {
    verify(parse_program(text, "mutated.ir"));
  } catch (const UserError& e) {
    RC_ASSERT(e.loc().valid());
  }
}

}  // namespace
}  // namespace difftest
