/* memcore_call and memcore_operations: every operation on the library's JSON records. */
#include "harness.h"

static memcore_t *mc = NULL;

TEST(call_runs_operations_on_records) {
  char *json = NULL;
  const char *put = "{\"memories\": [{\"content\": \"Prefer Metal.\", \"id\": \"gpu\", "
                    "\"collection\": \"knowledge\", \"tags\": [\"gpu\"]}]}";
  CHECK_OK(memcore_call(mc, STR("put"), STR(put), &json));
  CHECK_CONTAINS(json, "\"ref\":\"knowledge/gpu\"");
  memcore_string_free(json);

  json = NULL;
  const char *search = "{\"text\": \"metal\", \"mode\": \"text\", \"tags_any\": [\"gpu\"]}";
  CHECK_OK(memcore_call(mc, STR("search"), STR(search), &json));
  /* Results of memcore_call have their keys in alphabetical order. */
  CHECK_CONTAINS(json, "\"hits\":[{\"links\":[],\"memory\":{\"collection\":\"knowledge\"");
  CHECK_CONTAINS(json, "\"ref\":\"knowledge/gpu\"");
  memcore_string_free(json);

  /* NULL with length 0 is the empty request. */
  json = NULL;
  CHECK_OK(memcore_call(mc, STR("collections"), NULL, 0, &json));
  CHECK(strcmp(json, "{\"collections\":[\"knowledge\"]}") == 0);
  memcore_string_free(json);
}

TEST(call_refuses_what_does_not_fit) {
  char *json = (char *)0x1;
  CHECK_STATUS(memcore_call(mc, STR("serch"), STR("{}"), &json), MEMCORE_STATUS_INVALID_JSON);
  CHECK_CONTAINS(memcore_last_error_message(), "unknown operation \"serch\"");
  CHECK_CONTAINS(memcore_last_error_message(), "-> call one of: put, get");
  CHECK_STATUS(memcore_call(mc, STR("search"), STR("{\"text\": \"x\", \"limmit\": 3}"), &json),
               MEMCORE_STATUS_INVALID_JSON);
  CHECK_CONTAINS(memcore_last_error_message(), "unknown field `limmit`");
  CHECK_STATUS(memcore_call(mc, STR("search"), STR("{\"text\""), &json),
               MEMCORE_STATUS_INVALID_JSON);
  CHECK_CONTAINS(memcore_last_error_message(), "`request` is not JSON");
  CHECK_STATUS(memcore_call(mc, STR("search"), STR("{\"text\": \"x\", \"limit\": 0}"), &json),
               MEMCORE_STATUS_INVALID_ARGUMENT);
  CHECK_STATUS(memcore_call(mc, STR("get"), STR("{\"ref\": \"nothing\"}"), &json),
               MEMCORE_STATUS_NOT_FOUND);
  CHECK_STATUS(memcore_call(NULL, STR("get"), STR("{}"), &json), MEMCORE_STATUS_NULL_PARAMETER);
  CHECK_STATUS(memcore_call(mc, NULL, 3, STR("{}"), &json), MEMCORE_STATUS_NULL_PARAMETER);
  CHECK_STATUS(memcore_call(mc, STR("get"), NULL, 2, &json), MEMCORE_STATUS_NULL_PARAMETER);
  CHECK_STATUS(memcore_call(mc, STR("get"), STR("{}"), NULL), MEMCORE_STATUS_NULL_PARAMETER);
  CHECK_STATUS(memcore_call(mc, "g\xff", 2, STR("{}"), &json), MEMCORE_STATUS_INVALID_UTF8);
  CHECK(json == (char *)0x1);
}

TEST(operations_lists_every_operation_with_schemas) {
  char *json = NULL;
  CHECK_OK(memcore_operations(&json));
  const char *names[] = {"put", "get", "update", "delete", "restore", "search", "list",
                         "collections", "versions", "diff", "hydrate", "stats", "verify",
                         "repair", "reindex", "sync", "transition", "lifecycle", "keepit_list",
                         "keepit_set", "keepit_preview", "opened", "capture", "links",
                         "backlinks", "append", "merge", "compose", "session_add",
                         "session_list", "session_show", "session_compress", "session_compose",
                         "session_prune", "session_start", "session_turn", "session_note",
                         "session_live", "session_end", "timeline", "compact", "retain",
                         "purge", "recall", "session_version", "composition_show",
                         "composition_delete"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    char quoted[64];
    snprintf(quoted, sizeof quoted, "\"name\":\"%s\"", names[i]);
    CHECK_CONTAINS(json, quoted);
  }
  CHECK_CONTAINS(json, "\"request\":{");
  CHECK_CONTAINS(json, "\"result\":{");
  memcore_string_free(json);
  CHECK_STATUS(memcore_operations(NULL), MEMCORE_STATUS_NULL_PARAMETER);
}

int main(int argc, char **argv) {
  harness_begin(argc, argv);
  mc = open_store("call");
  if (mc == NULL) return 1;
  RUN(call_runs_operations_on_records);
  RUN(call_refuses_what_does_not_fit);
  RUN(operations_lists_every_operation_with_schemas);
  memcore_close(mc);
  return harness_end("test_call");
}
