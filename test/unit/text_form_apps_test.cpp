// Every app's pipeline round-trips through the text form.
#include "app.h"
#include "unit/text_form_round_trip.h"

#include <gtest/gtest.h>

namespace trapeze {
namespace {

TEST(TextFormApps, EveryAppRoundTrips) {
  ASSERT_FALSE(apps::all_apps().empty());
  for (const apps::App& app : apps::all_apps()) {
    SCOPED_TRACE(app.name);
    testing_support::expect_text_round_trip(app.build());
  }
}

} // namespace
} // namespace trapeze
