// Placeholder: replaced by the real suite.
#include <gtest/gtest.h>
