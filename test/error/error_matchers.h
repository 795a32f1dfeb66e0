// Helpers for error tests: every error test checks the message text.
#pragma once

#include "trapeze/error.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

/// Runs `statement`, expects a trapeze::Error, and matches its message
/// against every substring given.
#define EXPECT_TRAPEZE_ERROR(statement, ...)                                                       \
  do {                                                                                             \
    try {                                                                                          \
      statement;                                                                                   \
      ADD_FAILURE() << "expected trapeze::Error from: " #statement;                                \
    } catch (const ::trapeze::Error& error_) {                                                     \
      for (const std::string& part_ : {__VA_ARGS__})                                               \
        EXPECT_THAT(std::string(error_.what()), ::testing::HasSubstr(part_));                      \
    }                                                                                              \
  } while (false)
