/* The decay engine through memcore_call: status transitions with archive compression,
 * lifecycle plans (dry run) and runs with an injected time, keepit markers. */
#include "harness.h"

static memcore_t *mc = NULL;


/* A long content, so archiving compresses it. */
static const char *LONG_PUT =
    "{\"memories\": [{\"id\": \"cache\", \"summary\": \"cache warming schedule\", \"content\": "
    "\"The cache is warmed at boot and flushed at night. The cache is warmed at boot and "
    "flushed at night. The cache is warmed at boot and flushed at night. The cache is warmed "
    "at boot and flushed at night. The cache is warmed at boot and flushed at night. The cache "
    "is warmed at boot and flushed at night. The cache is warmed at boot and flushed at "
    "night.\"}]}";

TEST(transitions_archive_and_restore_exactly) {
  char *json = call_ok(mc, "put", LONG_PUT);
  CHECK(json != NULL);
  memcore_string_free(json);

  json = call_ok(mc, "transition", "{\"ref\": \"cache\", \"status\": \"archived\"}");
  CHECK(json != NULL);
  CHECK_CONTAINS(json, "\"status\":\"archived\"");
  CHECK_CONTAINS(json, "[ARCHIVED] [Compressed: ");
  CHECK_CONTAINS(json, "\"archived_original\":{");
  memcore_string_free(json);

  /* Hidden from a default search, found among archived memories by its summary. */
  json = call_ok(mc, "search", "{\"text\": \"warming schedule\", \"mode\": \"text\"}");
  CHECK(json != NULL && strstr(json, "\"hits\":[]") != NULL);
  memcore_string_free(json);
  json = call_ok(mc, "search",
                 "{\"text\": \"warming schedule\", \"mode\": \"text\", \"statuses\": [\"archived\"]}");
  CHECK(json != NULL);
  CHECK_CONTAINS(json, "\"ref\":\"memory/cache\"");
  memcore_string_free(json);

  /* archived -> resolved is not in the table: the error names the allowed targets. */
  json = (char *)0x1;
  CHECK_STATUS(memcore_call(mc, STR("transition"), STR("{\"ref\": \"cache\", \"status\": \"resolved\"}"), &json),
               MEMCORE_STATUS_INVALID_ARGUMENT);
  CHECK_CONTAINS(memcore_last_error_message(), "from archived it can go to: active, tombstone");
  CHECK(json == (char *)0x1);

  json = call_ok(mc, "transition", "{\"ref\": \"cache\", \"status\": \"active\"}");
  CHECK(json != NULL);
  CHECK_CONTAINS(json, "\"content\":\"The cache is warmed at boot and flushed at night. The cache");
  CHECK(strstr(json, "archived_original") == NULL);
  memcore_string_free(json);
}

TEST(lifecycle_plans_then_runs) {
  char *json = call_ok(mc, "put", "{\"memories\": [{\"id\": \"standup\", \"content\": \"Weekly demos.\"}, "
                               "{\"id\": \"pinned\", \"content\": \"Keep.\", \"importance\": 1.0}]}");
  CHECK(json != NULL);
  memcore_string_free(json);
  const char *plan = "{\"dry_run\": true, \"now\": \"2099-01-01T00:00:00Z\"}";
  json = call_ok(mc, "lifecycle", plan);
  CHECK(json != NULL);
  CHECK_CONTAINS(json, "\"dry_run\":true");
  CHECK_CONTAINS(json, "\"ref\":\"memory/standup\"");
  CHECK(strstr(json, "\"ref\":\"memory/pinned\"") == NULL);
  CHECK_CONTAINS(json, "\"skipped\":1");
  memcore_string_free(json);

  json = call_ok(mc, "lifecycle", "{\"now\": \"2099-01-01T00:00:00Z\"}");
  CHECK(json != NULL);
  CHECK_CONTAINS(json, "\"dry_run\":false");
  CHECK_CONTAINS(json, "\"archived\":2");
  memcore_string_free(json);
  /* Idempotent: the same time again finds nothing more to archive. */
  json = call_ok(mc, "lifecycle", "{\"now\": \"2099-01-01T00:00:00Z\"}");
  CHECK(json != NULL);
  CHECK_CONTAINS(json, "\"archived\":0");
  memcore_string_free(json);

  json = (char *)0x1;
  CHECK_STATUS(memcore_call(mc, STR("lifecycle"), STR("{\"min_relevance\": 2}"), &json),
               MEMCORE_STATUS_INVALID_ARGUMENT);
  /* A malformed time is a value the field does not take; a list where a time goes is the
   * wrong shape of request. */
  CHECK_STATUS(memcore_call(mc, STR("lifecycle"), STR("{\"now\": \"yesterday\"}"), &json),
               MEMCORE_STATUS_INVALID_ARGUMENT);
  CHECK_STATUS(memcore_call(mc, STR("lifecycle"), STR("{\"now\": [1]}"), &json),
               MEMCORE_STATUS_INVALID_JSON);
  CHECK(json == (char *)0x1);
}

TEST(keepit_markers_list_set_and_preview) {
  char *json = call_ok(mc, "put", "{\"memories\": [{\"id\": \"plan\", \"content\": "
                               "\"##keepit0.80## Use Metal. ##keepit0.25## a hunch\"}]}");
  CHECK(json != NULL);
  memcore_string_free(json);
  json = call_ok(mc, "keepit_list", "{\"ref\": \"plan\"}");
  CHECK(json != NULL);
  CHECK_CONTAINS(json, "\"content\":\"Use Metal.\"");
  CHECK_CONTAINS(json, "\"level\":\"minor\"");
  memcore_string_free(json);

  json = call_ok(mc, "keepit_set", "{\"ref\": \"plan\", \"index\": 1, \"weight\": 1}");
  CHECK(json != NULL);
  CHECK_CONTAINS(json, "##keepit1.00## a hunch");
  CHECK_CONTAINS(json, "\"version\":2");
  memcore_string_free(json);

  json = call_ok(mc, "keepit_preview", "{\"ref\": \"plan\", \"ratio\": 30, \"max_distance\": 10}");
  CHECK(json != NULL);
  CHECK_CONTAINS(json, "\"aggressiveness\":\"aggressive\"");
  CHECK_CONTAINS(json, "\"survives_through\":10");
  memcore_string_free(json);

  json = (char *)0x1;
  CHECK_STATUS(memcore_call(mc, STR("keepit_list"), STR("{\"text\": \"##keepit1.5## x\"}"), &json),
               MEMCORE_STATUS_INVALID_ARGUMENT);
  CHECK_CONTAINS(memcore_last_error_message(), "malformed keepit marker `##keepit1.5##`");
  CHECK_STATUS(memcore_call(mc, STR("keepit_list"), STR("{}"), &json),
               MEMCORE_STATUS_INVALID_ARGUMENT);
  CHECK_STATUS(memcore_call(mc, STR("keepit_set"), STR("{\"ref\": \"plan\", \"index\": 9, \"weight\": 0.5}"), &json),
               MEMCORE_STATUS_INVALID_ARGUMENT);
  CHECK(json == (char *)0x1);
}

int main(int argc, char **argv) {
  harness_begin(argc, argv);
  mc = open_store("decay");
  if (mc == NULL) return 1;
  RUN(transitions_archive_and_restore_exactly);
  RUN(lifecycle_plans_then_runs);
  RUN(keepit_markers_list_set_and_preview);
  memcore_close(mc);
  return harness_end("test_decay");
}
