// common/header_check: what may go into a request head.
#include "common/header_check.h"

#include <gtest/gtest.h>

namespace {

TEST(HeaderCheck, ValidNamesAndValues) {
  for (const char* n : {"X-Auth", "Authorization", "x_tenant", "A1!#$%&'*+-.^_`|~"})
    EXPECT_EQ(sb::header_name_problem(n), "") << n;
  for (const char* v : {"", "Bearer sk-1", "a\tb", "utf-8 \xc3\xa9", "x: y"})
    EXPECT_EQ(sb::header_value_problem(v), "") << v;
}

TEST(HeaderCheck, LineBreaksAndControlCharacters) {
  EXPECT_EQ(sb::header_value_problem("KEY\n"), "contains a line break (CR or LF)");
  EXPECT_EQ(sb::header_value_problem("a\r\nX-Evil: 1"), "contains a line break (CR or LF)");
  EXPECT_EQ(sb::header_value_problem(std::string("a\0b", 3)),
            "contains the control character 0x00");
  EXPECT_EQ(sb::header_value_problem("a\x07"), "contains the control character 0x07");
  EXPECT_EQ(sb::header_value_problem("a\x7f"), "contains the control character 0x7F");
  EXPECT_EQ(sb::header_name_problem("X-A\n"), "contains a line break (CR or LF)");
}

TEST(HeaderCheck, BadNames) {
  EXPECT_EQ(sb::header_name_problem(""), "is empty");
  EXPECT_EQ(sb::header_name_problem("X Auth"), "contains a space");
  EXPECT_NE(sb::header_name_problem("X:Auth").find("contains ':'"), std::string::npos);
  EXPECT_EQ(sb::header_name_problem("X-\xc3\xa9"), "contains a non-ASCII byte");
}

}  // namespace
