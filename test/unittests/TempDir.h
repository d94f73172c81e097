//===- TempDir.h - a scratch directory for a test -------------*- C++ -*-===//

#ifndef SHARDC_TEST_UNITTESTS_TEMPDIR_H
#define SHARDC_TEST_UNITTESTS_TEMPDIR_H

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <stdlib.h>
#include <string>
#include <vector>

namespace shardc::test {

/// A fresh directory under the test temp dir, removed with everything in it
/// when the object goes.
class TempDir {
public:
  explicit TempDir(const std::string &prefix = "shardc") {
    std::string pattern = ::testing::TempDir() + prefix + "-XXXXXX";
    char *made = ::mkdtemp(pattern.data());
    EXPECT_NE(made, nullptr);
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;

  const std::string &path() const { return path_; }
  std::string file(const std::string &name) const { return path_ + "/" + name; }
  /// Names of the directory's entries, sorted.
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const std::filesystem::directory_entry &e : std::filesystem::directory_iterator(path_))
      names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

private:
  std::string path_;
};

} // namespace shardc::test

#endif // SHARDC_TEST_UNITTESTS_TEMPDIR_H
