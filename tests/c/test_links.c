/* The link graph through memcore_call: links and ghost nodes, backlinks with anchors, linked
 * search, append, merge, and the requests it refuses. */
#include "harness.h"

static memcore_t *mc = NULL;

TEST(links_backlinks_and_linked_search) {
  char *json = call_ok(mc, "put", "{\"memories\": [{\"id\": \"plan\", \"content\": "
                                  "\"We will refactor [[src/server.py]] soon.\"}, {\"id\": \"journal\", "
                                  "\"content\": \"Fixed a bug in [[src/server.py]] today.\"}]}");
  CHECK(json != NULL);
  memcore_string_free(json);
  json = call_ok(mc, "links", "{\"ref\": \"plan\"}");
  CHECK(json != NULL);
  CHECK_CONTAINS(json, "\"node\":\"ghost:src/server.py\"");
  CHECK_CONTAINS(json, "\"type\":\"refactors\"");
  memcore_string_free(json);
  json = call_ok(mc, "backlinks", "{\"target\": \"ghost:src/server.py\"}");
  CHECK(json != NULL);
  CHECK(count_of(json, "\"source\":") == 2);
  CHECK_CONTAINS(json, "\"anchor\":\"Fixed a bug in [[src/server.py]] today.\"");
  memcore_string_free(json);
  json = call_ok(mc, "search", "{\"text\": \"bug\", \"mode\": \"text\", \"linked_to\": \"src/server.py\"}");
  CHECK(json != NULL);
  CHECK_CONTAINS(json, "\"ref\":\"memory/journal\"");
  CHECK_CONTAINS(json, "\"links\":[{");
  memcore_string_free(json);
}

TEST(append_and_merge) {
  char *json = call_ok(mc, "append", "{\"ref\": \"journal\", \"text\": \"More in [[docs/ops.md]].\"}");
  CHECK(json != NULL);
  CHECK_CONTAINS(json, "\"version\":2");
  memcore_string_free(json);
  json = call_ok(mc, "merge", "{\"refs\": [\"plan\", \"journal\"], \"into\": \"server\"}");
  CHECK(json != NULL);
  CHECK_CONTAINS(json, "\"ref\":\"memory/server\"");
  CHECK(count_of(json, "\"deleted_at\":") == 2);
  memcore_string_free(json);
  json = (char *)0x1;
  CHECK_STATUS(memcore_call(mc, STR("merge"), STR("{\"refs\": [\"server\"], \"into\": \"server\"}"), &json),
               MEMCORE_STATUS_INVALID_ARGUMENT);
  CHECK_CONTAINS(memcore_last_error_message(), "into itself");
  CHECK_STATUS(memcore_call(mc, STR("append"), STR("{\"ref\": \"nope\", \"text\": \"x\"}"), &json),
               MEMCORE_STATUS_NOT_FOUND);
  CHECK_STATUS(memcore_call(mc, STR("backlinks"), STR("{\"target\": 3}"), &json),
               MEMCORE_STATUS_INVALID_JSON);
  CHECK(json == (char *)0x1);
}

int main(int argc, char **argv) {
  harness_begin(argc, argv);
  mc = open_store("links");
  if (mc == NULL) return 1;
  RUN(links_backlinks_and_linked_search);
  RUN(append_and_merge);
  memcore_close(mc);
  return harness_end("test_links");
}
