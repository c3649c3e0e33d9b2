// NumPy .npy files (format versions 1.0 to 3.0 read, 1.0 written), little-endian, C order.
//   f64 <f8  f32 <f4  f16 <f2  i64 <i8  i32 <i4  i8 |i1  u8 |u1  u32 <u4  bool |b1
//   bf16 has no NumPy dtype: it is written as its raw bits, <u2, and <u2 is read back as bf16
//   (difftest has no u16 dtype). Directories of dumped tensors carry a README noting this.
// Malformed files (bad magic, truncated data, a header that is not the expected dictionary,
// Fortran order, big-endian data) are UserErrors naming the file.
#pragma once

#include <string>

#include "compiler/tensor/tensor.h"

namespace difftest {

void write_npy(const std::string& path, const Tensor& t);  // atomic: temp file + rename
Tensor read_npy(const std::string& path);
Tensor parse_npy(const std::string& bytes, const std::string& name);
std::string npy_bytes(const Tensor& t);

// Writes atomically: the data goes to path + ".tmp" and is renamed over path.
void write_file_atomic(const std::string& path, const std::string& bytes);

}  // namespace difftest
