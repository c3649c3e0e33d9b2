// .npy files: round trip for every dtype, NumPy's own layout, and located errors on bad files.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>

#include "compiler/support/diagnostics.h"
#include "compiler/tensor/npy.h"

namespace difftest {
namespace {

Tensor sample(DType t) {
  Tensor x(t, {2, 3});
  for (int64_t i = 0; i < x.numel(); ++i) {
    if (is_float(t)) {
      x.set(i, static_cast<double>(i) - 2.5);
    } else {
      x.set_int(i, is_bool(t) ? i % 2 : i * 7 - (is_signed_int(t) ? 10 : 0));
    }
  }
  return x;
}

TEST(Npy, RoundTripsEveryDtype) {
  for (DType t : kAllDTypes) {
    const Tensor x = sample(t);
    const Tensor y = parse_npy(npy_bytes(x), "mem.npy");
    EXPECT_TRUE(x.same_bytes(y)) << dtype_name(t);
  }
  const Tensor scalar = Tensor::from_doubles(DType::f32, {}, {4.5});
  EXPECT_TRUE(parse_npy(npy_bytes(scalar), "s.npy").same_bytes(scalar));
  const Tensor vec = Tensor::from_ints(DType::i64, {3}, {1, -2, 3});
  EXPECT_TRUE(parse_npy(npy_bytes(vec), "v.npy").same_bytes(vec));
}

TEST(Npy, HeaderIsWhatNumPyWrites) {
  const std::string b = npy_bytes(sample(DType::f32));
  ASSERT_GE(b.size(), 10u);
  EXPECT_EQ(b.substr(1, 5), "NUMPY");
  EXPECT_EQ(b[6], '\x01');
  const size_t header_len = static_cast<unsigned char>(b[8]) | (static_cast<unsigned char>(b[9]) << 8);
  EXPECT_EQ((10 + header_len) % 64, 0u);
  const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  EXPECT_EQ(b.substr(10, dict.size()), dict);
  EXPECT_EQ(b.find_first_not_of(' ', 10 + dict.size()), 10 + header_len - 1);
  EXPECT_EQ(b[10 + header_len - 1], '\n');
  EXPECT_NE(npy_bytes(Tensor(DType::u8, {5})).find("'shape': (5,)"), std::string::npos);
  EXPECT_NE(npy_bytes(Tensor(DType::bf16, {1})).find("'descr': '<u2'"), std::string::npos);
}

TEST(Npy, MalformedFilesGiveClearErrors) {
  const std::string good = npy_bytes(sample(DType::f32));
  auto expect_error = [](const std::string& bytes, const std::string& fragment) {
    try {
      parse_npy(bytes, "bad.npy");
      ADD_FAILURE() << "accepted: " << fragment;
    } catch (const UserError& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Io);
      EXPECT_NE(std::string(e.what()).find("bad.npy"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  expect_error("", "bad magic");
  expect_error("PK\x03\x04 not numpy at all", "bad magic");
  expect_error(good.substr(0, good.size() - 3), "data bytes");
  expect_error(good.substr(0, 40), "truncated header");
  std::string v9 = good;
  v9[6] = 9;
  expect_error(v9, "version 9");
  auto with_header = [&](const std::string& dict) {
    std::string h = dict;
    h.append(64 - (10 + h.size() + 1) % 64, ' ');
    h += '\n';
    std::string out = good.substr(0, 8);
    out += static_cast<char>(h.size() & 0xff);
    out += static_cast<char>(h.size() >> 8);
    return out + h + std::string(24, '\0');
  };
  expect_error(with_header("{'descr': '<f4', 'shape': (2, 3), }"), "needs 'descr'");
  expect_error(with_header("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }"), "Fortran");
  expect_error(with_header("{'descr': '>f4', 'fortran_order': False, 'shape': (2, 3), }"), "big-endian");
  expect_error(with_header("{'descr': '<c8', 'fortran_order': False, 'shape': (2, 3), }"), "unsupported dtype");
  expect_error(with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (2, -3), }"), "non-negative");
  expect_error(with_header("{'descr': '<f4' 'fortran_order': False}"), "malformed");
  std::string bad_bool = npy_bytes(sample(DType::boolean));
  bad_bool.back() = 2;
  expect_error(bad_bool, "0 or 1");
}

TEST(Npy, FilesAreWrittenAtomically) {
  const std::string dir = ::testing::TempDir() + "/npy_atomic";
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/x.npy";
  write_npy(path, sample(DType::i32));
  EXPECT_TRUE(read_npy(path).same_bytes(sample(DType::i32)));
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  try {
    read_npy(dir + "/missing.npy");
    FAIL();
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("missing.npy"), std::string::npos);
  }
}

}  // namespace
}  // namespace difftest
