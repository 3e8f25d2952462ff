/* The capture engine through memcore_call: a decision as a JSON record, markers stored with
 * apply, duplicates skipped, and bad input (malformed markers, an unknown namespace, invalid
 * UTF-8 in the request) refused with nothing stored. */
#include "harness.h"

static memcore_t *mc = NULL;


TEST(signals_make_a_decision_record) {
  char *json = call_ok(mc, "capture", "{\"text\": \"We decided to move the queue to Postgres.\"}");
  CHECK(json != NULL);
  CHECK_CONTAINS(json, "\"action\":\"suggest\"");
  CHECK_CONTAINS(json, "\"type\":\"decision\"");
  CHECK_CONTAINS(json, "\"match\":\"We decided to\"");
  CHECK_CONTAINS(json, "\"namespace\":\"decisions\"");
  CHECK_CONTAINS(json, "\"tags\":[\"decision\",\"database\"]");
  CHECK_CONTAINS(json, "\"stored\":[]");
  memcore_string_free(json);

  json = call_ok(mc, "capture", "{\"text\": \"Thanks, looks good.\"}");
  CHECK(json != NULL);
  CHECK_CONTAINS(json, "\"action\":\"skip\"");
  CHECK_CONTAINS(json, "\"reason\":\"no capture signals\"");
  memcore_string_free(json);
}

TEST(markers_are_stored_once) {
  const char *marked = "{\"text\": \"[remember:decisions] Use PostgreSQL for the job queue.\", "
                       "\"apply\": true}";
  char *json = call_ok(mc, "capture", marked);
  CHECK(json != NULL);
  CHECK_CONTAINS(json, "\"action\":\"auto\"");
  CHECK_CONTAINS(json, "\"stored\":[\"decisions/");
  memcore_string_free(json);
  /* The same again duplicates what was stored: skipped, nothing more stored. */
  json = call_ok(mc, "capture", marked);
  CHECK(json != NULL);
  CHECK_CONTAINS(json, "\"action\":\"skip\"");
  CHECK_CONTAINS(json, "\"reason\":\"duplicate of decisions/");
  CHECK_CONTAINS(json, "\"stored\":[]");
  memcore_string_free(json);
  json = call_ok(mc, "list", "{\"collection\": \"decisions\"}");
  CHECK(json != NULL);
  CHECK(count_of(json, "\"ref\":\"decisions/") == 1);
  memcore_string_free(json);
}

TEST(bad_input_is_refused_and_stores_nothing) {
  char *json = (char *)0x1;
  CHECK_STATUS(memcore_call(mc, STR("capture"), STR("{\"text\": \"[remember:../x] y\", \"apply\": true}"), &json),
               MEMCORE_STATUS_INVALID_ARGUMENT);
  CHECK_CONTAINS(memcore_last_error_message(), "names unknown namespace `../x`");
  CHECK_STATUS(memcore_call(mc, STR("capture"), STR("{\"text\": \"[remember:] y\", \"apply\": true}"), &json),
               MEMCORE_STATUS_INVALID_ARGUMENT);
  CHECK_STATUS(memcore_call(mc, STR("capture"), STR("{\"text\": \"TIL x\", \"namespace\": \"nope\"}"), &json),
               MEMCORE_STATUS_INVALID_ARGUMENT);
  CHECK_CONTAINS(memcore_last_error_message(), "-> use one of: blockers, decisions");
  /* Invalid UTF-8 inside the request's text. */
  const char bad[] = "{\"text\": \"[remember] caf\xc3\x28\", \"apply\": true}";
  CHECK_STATUS(memcore_call(mc, STR("capture"), bad, sizeof bad - 1, &json),
               MEMCORE_STATUS_INVALID_UTF8);
  CHECK(json == (char *)0x1);
  json = call_ok(mc, "stats", "{}");
  CHECK(json != NULL);
  CHECK_CONTAINS(json, "\"memories\":1");
  memcore_string_free(json);
}

int main(int argc, char **argv) {
  harness_begin(argc, argv);
  mc = open_store("capture");
  if (mc == NULL) return 1;
  RUN(signals_make_a_decision_record);
  RUN(markers_are_stored_once);
  RUN(bad_input_is_refused_and_stores_nothing);
  memcore_close(mc);
  return harness_end("test_capture");
}
