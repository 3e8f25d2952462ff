/*
 * Memories: the simple put, put_json, put_markdown, get, render, update_json, delete and
 * restore, their results and their error paths.
 */
#include "harness.h"

static memcore_t *mc = NULL;

/* Stores a memory from a put record, expecting success; frees the result. */
static memcore_status put_record(const char *record) {
  char *json = NULL;
  memcore_status st = memcore_put_json(mc, STR(record), MEMCORE_PUT_MODE_UPSERT, &json);
  memcore_string_free(json);
  return st;
}

TEST(simple_put_returns_a_reference_and_get_returns_the_record) {
  const char *content = "# GPU Notes\n\nPrefer Metal on Apple silicon.";
  char *ref = NULL;
  CHECK_OK(memcore_put(mc, STR("knowledge"), STR(content), STR(" gpu, perf ,,gpu"), &ref));
  CHECK(strcmp(ref, "knowledge/gpu-notes") == 0);

  char *json = NULL;
  CHECK_OK(memcore_get(mc, STR(ref), &json));
  CHECK(strncmp(json, "{\"ref\":\"knowledge/gpu-notes\",\"id\":\"gpu-notes\",", 46) == 0);
  CHECK_CONTAINS(json, "\"id\":\"gpu-notes\"");
  CHECK_CONTAINS(json, "\"collection\":\"knowledge\"");
  CHECK_CONTAINS(json, "\"title\":\"GPU Notes\"");
  CHECK_CONTAINS(json, "\"status\":\"active\"");
  CHECK_CONTAINS(json, "\"tags\":[\"gpu\",\"perf\"]");
  CHECK_CONTAINS(json, "\"related_to\":[]");
  CHECK_CONTAINS(json, "\"version\":1");
  CHECK_CONTAINS(json, "\"metadata\":{}");
  CHECK_CONTAINS(json, "\"created_at\":\"20");
  CHECK_CONTAINS(json, "\"updated_at\":\"20");
  CHECK_CONTAINS(json, "\"content\":\"# GPU Notes\\n\\nPrefer Metal on Apple silicon.\"");
  CHECK(strstr(json, "\"summary\"") == NULL); /* unset optional fields are left out */
  memcore_string_free(json);

  /* A bare id finds it too. */
  CHECK_OK(memcore_get(mc, STR("gpu-notes"), &json));
  CHECK_CONTAINS(json, "\"collection\":\"knowledge\"");
  memcore_string_free(json);
  memcore_string_free(ref);
}

TEST(simple_put_defaults_the_collection_and_derives_a_hash_id) {
  char *ref = NULL;
  CHECK_OK(memcore_put(mc, NULL, 0, STR("no heading, just a thought"), NULL, 0, &ref));
  CHECK(strncmp(ref, "memory/", 7) == 0);
  CHECK(strlen(ref) == 7 + 12);
  char *json = NULL;
  CHECK_OK(memcore_get(mc, STR(ref), &json));
  CHECK_CONTAINS(json, "\"tags\":[]");
  CHECK_CONTAINS(json, "\"title\":\"no heading, just a thought\"");
  memcore_string_free(json);
  memcore_string_free(ref);
}

TEST(simple_put_replaces_a_memory_with_the_same_id) {
  char *ref = NULL;
  CHECK_OK(memcore_put(mc, STR("replace"), STR("# Twice\n\nfirst"), NULL, 0, &ref));
  memcore_string_free(ref);
  ref = NULL;
  CHECK_OK(memcore_put(mc, STR("replace"), STR("# Twice\n\nsecond"), STR("new"), &ref));
  char *json = NULL;
  CHECK_OK(memcore_get(mc, STR(ref), &json));
  CHECK_CONTAINS(json, "\"version\":2");
  CHECK_CONTAINS(json, "second");
  CHECK_CONTAINS(json, "\"tags\":[\"new\"]");
  memcore_string_free(json);
  memcore_string_free(ref);
}

TEST(simple_put_rejects_bad_input) {
  char *ref = (char *)0x1;
  CHECK_STATUS(memcore_put(mc, NULL, 0, STR("   \n"), NULL, 0, &ref),
               MEMCORE_STATUS_INVALID_ARGUMENT);
  CHECK_CONTAINS(memcore_last_error_message(), "[VALIDATION] content is empty");
  CHECK_STATUS(memcore_put(mc, STR("Bad Name"), STR("x"), NULL, 0, &ref),
               MEMCORE_STATUS_INVALID_ARGUMENT);
  CHECK_STATUS(memcore_put(mc, STR("../up"), STR("x"), NULL, 0, &ref),
               MEMCORE_STATUS_INVALID_ARGUMENT);
  CHECK_STATUS(memcore_put(mc, STR(""), STR("x"), NULL, 0, &ref),
               MEMCORE_STATUS_INVALID_ARGUMENT);
  size_t big = 100 * 1024 + 1;
  char *huge = malloc(big);
  CHECK(huge != NULL);
  memset(huge, 'a', big);
  memcore_status st = memcore_put(mc, NULL, 0, huge, big, NULL, 0, &ref);
  free(huge);
  CHECK(st == MEMCORE_STATUS_INVALID_ARGUMENT);
  CHECK_CONTAINS(memcore_last_error_message(), "content too large: 102401 bytes");
  CHECK(ref == (char *)0x1);
}

TEST(render_gives_a_context_block_or_the_raw_content) {
  const char *record =
      "{\"content\": \"Use Metal for GPU work.\", \"title\": \"GPU Acceleration\","
      " \"collection\": \"render\", \"created_by\": \"claude\", \"context\": \"research\","
      " \"tags\": [\"gpu\", \"performance\"], \"category\": \"hardware\","
      " \"related_to\": [\"cuda-notes\"], \"created_at\": \"2025-10-30T14:23:45Z\"}";
  CHECK_OK(put_record(record));
  char *text = NULL;
  CHECK_OK(memcore_render(mc, STR("render/gpu-acceleration"), MEMCORE_FORMAT_CONTEXT, &text));
  CHECK(strcmp(text,
               "# GPU Acceleration\n"
               "ID: gpu-acceleration\n"
               "Created: 2025-10-30T14:23:45Z by claude\n"
               "Context: research\n"
               "Tags: gpu, performance\n"
               "Category: hardware\n"
               "Related: cuda-notes\n"
               "\n"
               "Use Metal for GPU work.") == 0);
  memcore_string_free(text);
  text = NULL;
  CHECK_OK(memcore_render(mc, STR("gpu-acceleration"), MEMCORE_FORMAT_RAW, &text));
  CHECK(strcmp(text, "Use Metal for GPU work.") == 0);
  memcore_string_free(text);
  text = (char *)0x1;
  CHECK_STATUS(memcore_render(mc, STR("gpu-acceleration"), 2, &text),
               MEMCORE_STATUS_INVALID_ARGUMENT);
  CHECK_CONTAINS(memcore_last_error_message(), "`format` is 2");
  CHECK_STATUS(memcore_render(mc, STR("missing"), MEMCORE_FORMAT_RAW, &text),
               MEMCORE_STATUS_NOT_FOUND);
  CHECK(text == (char *)0x1);
}

TEST(put_json_stores_every_field) {
  const char *record =
      "{\"content\": \"We chose SQLite.\", \"id\": \"db-choice\", \"collection\": \"decisions\","
      " \"title\": \"Database choice\", \"summary\": \"SQLite for the prototype\","
      " \"type\": \"decision\", \"status\": \"resolved\", \"tags\": [\"db\", \"arch\"],"
      " \"category\": \"architecture\", \"context\": \"sprint 3\", \"related_to\": [\"perf-42\"],"
      " \"project\": \"atlas\", \"priority\": \"high\", \"created_by\": \"agent-7\","
      " \"importance\": 0.75, \"created_at\": \"2025-10-30T14:23:45Z\","
      " \"metadata\": {\"source\": \"c-test\", \"weight\": 3}}";
  char *json = NULL;
  CHECK_OK(memcore_put_json(mc, STR(record), MEMCORE_PUT_MODE_CREATE_ONLY, &json));
  CHECK_CONTAINS(json, "\"id\":\"db-choice\"");
  CHECK_CONTAINS(json, "\"collection\":\"decisions\"");
  CHECK_CONTAINS(json, "\"title\":\"Database choice\"");
  CHECK_CONTAINS(json, "\"summary\":\"SQLite for the prototype\"");
  CHECK_CONTAINS(json, "\"type\":\"decision\"");
  CHECK_CONTAINS(json, "\"status\":\"resolved\"");
  CHECK_CONTAINS(json, "\"tags\":[\"db\",\"arch\"]");
  CHECK_CONTAINS(json, "\"category\":\"architecture\"");
  CHECK_CONTAINS(json, "\"context\":\"sprint 3\"");
  CHECK_CONTAINS(json, "\"related_to\":[\"perf-42\"]");
  CHECK_CONTAINS(json, "\"project\":\"atlas\"");
  CHECK_CONTAINS(json, "\"priority\":\"high\"");
  CHECK_CONTAINS(json, "\"created_by\":\"agent-7\"");
  CHECK_CONTAINS(json, "\"importance\":0.75");
  CHECK_CONTAINS(json, "\"created_at\":\"2025-10-30T14:23:45Z\"");
  CHECK_CONTAINS(json, "\"metadata\":{\"source\":\"c-test\",\"weight\":3}");
  CHECK_CONTAINS(json, "\"content\":\"We chose SQLite.\"");
  memcore_string_free(json);

  /* get returns the same record. */
  json = NULL;
  CHECK_OK(memcore_get(mc, STR("decisions/db-choice"), &json));
  CHECK_CONTAINS(json, "\"metadata\":{\"source\":\"c-test\",\"weight\":3}");
  memcore_string_free(json);
}

TEST(put_json_create_only_conflicts_and_upsert_replaces) {
  const char *record = "{\"content\": \"v1\", \"id\": \"once\", \"collection\": \"modes\"}";
  char *json = NULL;
  CHECK_OK(memcore_put_json(mc, STR(record), MEMCORE_PUT_MODE_CREATE_ONLY, &json));
  memcore_string_free(json);
  json = (char *)0x1;
  CHECK_STATUS(memcore_put_json(mc, STR(record), MEMCORE_PUT_MODE_CREATE_ONLY, &json),
               MEMCORE_STATUS_CONFLICT);
  CHECK_CONTAINS(memcore_last_error_message(), "[CONFLICT]");
  CHECK(json == (char *)0x1);
  json = NULL;
  CHECK_OK(memcore_put_json(mc, STR(record), MEMCORE_PUT_MODE_UPSERT, &json));
  CHECK_CONTAINS(json, "\"version\":2");
  memcore_string_free(json);
  json = (char *)0x1;
  CHECK_STATUS(memcore_put_json(mc, STR(record), 2, &json), MEMCORE_STATUS_INVALID_ARGUMENT);
  CHECK_CONTAINS(memcore_last_error_message(), "`mode` is 2");
  CHECK(json == (char *)0x1);
}

TEST(put_json_rejects_records_that_do_not_fit_the_schema) {
  static const struct {
    const char *record;
    const char *message;
  } cases[] = {
      {"", "EOF while parsing"},
      {"{", "EOF while parsing"},
      {"not json", "expected ident"},
      {"[\"content\"]", "the `put` request is an array, not an object"},
      {"\"content\"", "the `put` request is a string, not an object"},
      {"{\"title\": \"no content\"}", "missing field `content`"},
      {"{\"content\": \"x\", \"tag\": [\"a\"]}", "unknown field `tag`"},
      {"{\"content\": \"x\", \"tags\": \"a,b\"}", "invalid type: string \"a,b\""},
      {"{\"content\": 42}", "invalid type: integer `42`"},
      {"{\"content\": \"x\", \"importance\": \"high\"}", "invalid type"},
      {"{\"content\": \"x\"} trailing", "trailing characters"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char *json = (char *)0x1;
    CHECK_STATUS(memcore_put_json(mc, STR(cases[i].record), MEMCORE_PUT_MODE_UPSERT, &json),
                 MEMCORE_STATUS_INVALID_JSON);
    CHECK_CONTAINS(memcore_last_error_message(), "\n-> ");
    CHECK_CONTAINS(memcore_last_error_message(), cases[i].message);
    CHECK(json == (char *)0x1);
  }
}

TEST(put_json_rejects_values_that_break_the_rules) {
  static const struct {
    const char *record;
    const char *message;
  } cases[] = {
      {"{\"content\": \"x\", \"id\": \"../etc/passwd\"}", "id"},
      {"{\"content\": \"x\", \"status\": \"done\"}", "unknown variant `done`"},
      {"{\"content\": \"x\", \"created_at\": \"yesterday\"}", "at `created_at`"},
      {"{\"content\": \"x\", \"collection\": \".trash\"}", "collection"},
      {"{\"content\": \"x\", \"importance\": 1.5}", "importance 1.5 is outside"},
      {"{\"content\": \" \"}", "content is empty"},
      {"{\"content\": \"x\", \"summary\": \"01234567890123456789012345678901234567890123456789"
       "012345678901234567890123456789012345678901234567890\"}",
       "summary too long"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    CHECK_STATUS(put_record(cases[i].record), MEMCORE_STATUS_INVALID_ARGUMENT);
    CHECK_CONTAINS(memcore_last_error_message(), "[VALIDATION]");
    CHECK_CONTAINS(memcore_last_error_message(), cases[i].message);
    CHECK_CONTAINS(memcore_last_error_message(), "\n-> ");
  }
}

TEST(put_markdown_reads_the_frontmatter) {
  const char *doc =
      "---\n"
      "id: imported\n"
      "collection: notes\n"
      "tags: [alpha, beta]\n"
      "type: fact\n"
      "owner: ops\n"
      "---\n"
      "# Imported note\n\nBody text.\n";
  char *json = NULL;
  CHECK_OK(memcore_put_markdown(mc, STR(doc), MEMCORE_PUT_MODE_CREATE_ONLY, &json));
  CHECK_CONTAINS(json, "\"id\":\"imported\"");
  CHECK_CONTAINS(json, "\"collection\":\"notes\"");
  CHECK_CONTAINS(json, "\"tags\":[\"alpha\",\"beta\"]");
  CHECK_CONTAINS(json, "\"type\":\"fact\"");
  CHECK_CONTAINS(json, "\"title\":\"Imported note\"");
  CHECK_CONTAINS(json, "\"metadata\":{\"owner\":\"ops\"}");
  CHECK_CONTAINS(json, "\"content\":\"# Imported note\\n\\nBody text.\\n\"");
  memcore_string_free(json);

  json = (char *)0x1;
  CHECK_STATUS(memcore_put_markdown(mc, STR(doc), MEMCORE_PUT_MODE_CREATE_ONLY, &json),
               MEMCORE_STATUS_CONFLICT);
  CHECK_STATUS(memcore_put_markdown(mc, STR(doc), 9, &json), MEMCORE_STATUS_INVALID_ARGUMENT);
  CHECK_STATUS(memcore_put_markdown(mc, STR("---\ntags: [unclosed\n---\nbody"),
                                    MEMCORE_PUT_MODE_UPSERT, &json),
               MEMCORE_STATUS_INVALID_ARGUMENT);
  CHECK_CONTAINS(memcore_last_error_message(), "YAML");
  CHECK_STATUS(memcore_put_markdown(mc, STR("---\nid: x\nno end"), MEMCORE_PUT_MODE_UPSERT, &json),
               MEMCORE_STATUS_INVALID_ARGUMENT);
  CHECK_CONTAINS(memcore_last_error_message(), "never closed");
  CHECK(json == (char *)0x1);

  /* Without frontmatter the whole document is the content. */
  json = NULL;
  CHECK_OK(memcore_put_markdown(mc, STR("# Plain doc\n\ntext"), MEMCORE_PUT_MODE_UPSERT, &json));
  CHECK_CONTAINS(json, "\"id\":\"plain-doc\"");
  CHECK_CONTAINS(json, "\"collection\":\"memory\"");
  memcore_string_free(json);
}

TEST(update_json_changes_only_the_given_fields) {
  CHECK_OK(put_record(
      "{\"content\": \"# Task\\n\\nShip it.\", \"collection\": \"upd\", \"tags\": [\"a\"],"
      " \"category\": \"work\", \"priority\": \"low\", \"metadata\": {\"drop\": 1, \"keep\": 2}}"));
  const char *change =
      "{\"tags\": [\"b\", \"a\"], \"merge_tags\": true, \"status\": \"resolved\","
      " \"category\": \"\", \"priority\": null, \"title\": \"Task (done)\","
      " \"importance\": 0.25, \"metadata\": {\"drop\": null, \"new\": [1, 2]}}";
  char *json = NULL;
  CHECK_OK(memcore_update_json(mc, STR("upd/task"), STR(change), &json));
  CHECK_CONTAINS(json, "\"version\":2");
  CHECK_CONTAINS(json, "\"tags\":[\"a\",\"b\"]");
  CHECK_CONTAINS(json, "\"status\":\"resolved\"");
  CHECK_CONTAINS(json, "\"title\":\"Task (done)\"");
  CHECK_CONTAINS(json, "\"priority\":\"low\""); /* null keeps the value */
  CHECK_CONTAINS(json, "\"importance\":0.25");
  CHECK_CONTAINS(json, "\"metadata\":{\"keep\":2,\"new\":[1,2]}");
  CHECK_CONTAINS(json, "\"content\":\"# Task\\n\\nShip it.\"");
  CHECK(strstr(json, "\"category\"") == NULL); /* "" cleared it */
  memcore_string_free(json);

  /* Tags are replaced without merge_tags; content can change. */
  json = NULL;
  CHECK_OK(memcore_update_json(mc, STR("task"), STR("{\"tags\": [\"z\"], \"content\": \"new body\"}"),
                               &json));
  CHECK_CONTAINS(json, "\"tags\":[\"z\"]");
  CHECK_CONTAINS(json, "\"content\":\"new body\"");
  CHECK_CONTAINS(json, "\"version\":3");
  memcore_string_free(json);

  /* An empty change still records a new version. */
  json = NULL;
  CHECK_OK(memcore_update_json(mc, STR("upd/task"), STR("{}"), &json));
  CHECK_CONTAINS(json, "\"version\":4");
  memcore_string_free(json);
}

TEST(update_json_rejects_bad_changes) {
  CHECK_OK(put_record("{\"content\": \"x\", \"id\": \"locked\", \"status\": \"resolved\"}"));
  char *json = (char *)0x1;
  CHECK_STATUS(memcore_update_json(mc, STR("locked"), STR("{\"status\": \"active\"}"), &json),
               MEMCORE_STATUS_INVALID_ARGUMENT);
  CHECK_CONTAINS(memcore_last_error_message(), "cannot go from status resolved to active");
  CHECK_CONTAINS(memcore_last_error_message(), "-> from resolved it can go to: archived, tombstone");
  CHECK_STATUS(memcore_update_json(mc, STR("locked"), STR("{\"status\": \"finished\"}"), &json),
               MEMCORE_STATUS_INVALID_ARGUMENT);
  CHECK_STATUS(memcore_update_json(mc, STR("locked"), STR("{\"content\": \"\"}"), &json),
               MEMCORE_STATUS_INVALID_ARGUMENT);
  CHECK_STATUS(memcore_update_json(mc, STR("locked"), STR("{\"importance\": -1}"), &json),
               MEMCORE_STATUS_INVALID_ARGUMENT);
  CHECK_STATUS(memcore_update_json(mc, STR("locked"), STR("{\"id\": \"renamed\"}"), &json),
               MEMCORE_STATUS_INVALID_JSON);
  CHECK_CONTAINS(memcore_last_error_message(), "invalid `update` request at `id`");
  CHECK_CONTAINS(memcore_last_error_message(), "unknown field `id`");
  CHECK_STATUS(memcore_update_json(mc, STR("locked"), STR("{\"merge_tags\": \"yes\"}"), &json),
               MEMCORE_STATUS_INVALID_JSON);
  CHECK_STATUS(memcore_update_json(mc, STR("locked"), STR("null"), &json),
               MEMCORE_STATUS_INVALID_JSON);
  CHECK_STATUS(memcore_update_json(mc, STR("no-such-memory"), STR("{}"), &json),
               MEMCORE_STATUS_NOT_FOUND);
  CHECK_STATUS(memcore_update_json(mc, STR("Bad Ref"), STR("{}"), &json),
               MEMCORE_STATUS_INVALID_ARGUMENT);
  CHECK(json == (char *)0x1);
  /* Nothing was changed by the failed updates. */
  json = NULL;
  CHECK_OK(memcore_get(mc, STR("locked"), &json));
  CHECK_CONTAINS(json, "\"version\":1");
  memcore_string_free(json);
}

TEST(delete_moves_to_the_trash_and_restore_brings_it_back) {
  char *ref = NULL;
  CHECK_OK(memcore_put(mc, STR("trash-test"), STR("# Doomed\n\nbye"), STR("t"), &ref));
  CHECK_OK(memcore_delete(mc, STR(ref)));
  char *json = (char *)0x1;
  CHECK_STATUS(memcore_get(mc, STR(ref), &json), MEMCORE_STATUS_NOT_FOUND);
  CHECK_CONTAINS(memcore_last_error_message(), "[NOT_FOUND] memory 'doomed' in collection 'trash-test' not found");
  CHECK_STATUS(memcore_delete(mc, STR(ref)), MEMCORE_STATUS_NOT_FOUND);
  json = NULL;
  CHECK_OK(memcore_restore(mc, STR(ref), &json));
  CHECK_CONTAINS(json, "\"id\":\"doomed\"");
  CHECK_CONTAINS(json, "\"tags\":[\"t\"]");
  memcore_string_free(json);
  json = NULL;
  CHECK_OK(memcore_get(mc, STR("doomed"), &json));
  memcore_string_free(json);
  json = (char *)0x1;
  CHECK_STATUS(memcore_restore(mc, STR(ref), &json), MEMCORE_STATUS_NOT_FOUND);
  CHECK(json == (char *)0x1);
  memcore_string_free(ref);
}

TEST(restore_conflicts_when_the_id_was_taken_again) {
  char *ref = NULL;
  CHECK_OK(memcore_put(mc, STR("retaken"), STR("# Phoenix\n\nold"), NULL, 0, &ref));
  CHECK_OK(memcore_delete(mc, STR(ref)));
  char *again = NULL;
  CHECK_OK(memcore_put(mc, STR("retaken"), STR("# Phoenix\n\nnew"), NULL, 0, &again));
  char *json = (char *)0x1;
  CHECK_STATUS(memcore_restore(mc, STR(ref), &json), MEMCORE_STATUS_CONFLICT);
  CHECK(json == (char *)0x1);
  memcore_string_free(again);
  memcore_string_free(ref);
}

TEST(a_bare_id_in_two_collections_is_ambiguous) {
  char *a = NULL, *b = NULL;
  CHECK_OK(memcore_put(mc, STR("left"), STR("# Twin\n\nleft"), NULL, 0, &a));
  CHECK_OK(memcore_put(mc, STR("right"), STR("# Twin\n\nright"), NULL, 0, &b));
  char *json = (char *)0x1;
  CHECK_STATUS(memcore_get(mc, STR("twin"), &json), MEMCORE_STATUS_CONFLICT);
  CHECK_STATUS(memcore_delete(mc, STR("twin")), MEMCORE_STATUS_CONFLICT);
  CHECK(json == (char *)0x1);
  json = NULL;
  CHECK_OK(memcore_get(mc, STR("right/twin"), &json));
  CHECK_CONTAINS(json, "right");
  memcore_string_free(json);
  memcore_string_free(a);
  memcore_string_free(b);
}

TEST(references_are_validated) {
  static const char *bad[] = {"../x", "a/b/c", "Upper", "with space", "/lead", "trail/", ".hidden"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char *json = (char *)0x1;
    CHECK_STATUS(memcore_get(mc, STR(bad[i]), &json), MEMCORE_STATUS_INVALID_ARGUMENT);
    CHECK(json == (char *)0x1);
  }
}

TEST(unicode_and_nul_bytes_survive) {
  const char content[] = "# Caf\xc3\xa9 notes\n\nna\xc3\xafve \xe2\x9c\x93 \xf0\x9f\x9a\x80 a\0b";
  size_t len = sizeof content - 1; /* includes the NUL byte inside */
  char *ref = NULL;
  CHECK_OK(memcore_put(mc, STR("unicode"), content, len, NULL, 0, &ref));
  CHECK(strcmp(ref, "unicode/cafe-notes") == 0);
  char *json = NULL;
  CHECK_OK(memcore_get(mc, STR(ref), &json));
  CHECK_CONTAINS(json, "\"title\":\"Caf\xc3\xa9 notes\"");
  CHECK_CONTAINS(json, "na\xc3\xafve \xe2\x9c\x93 \xf0\x9f\x9a\x80 a\\u0000b");
  memcore_string_free(json);
  char *raw = NULL;
  CHECK_OK(memcore_render(mc, STR(ref), MEMCORE_FORMAT_RAW, &raw));
  CHECK_CONTAINS(raw, "a\xef\xbf\xbd" "b"); /* U+FFFD stands in for the NUL */
  memcore_string_free(raw);
  memcore_string_free(ref);
}

int main(int argc, char **argv) {
  harness_begin(argc, argv);
  mc = open_store("memories");
  if (mc == NULL) return 1;
  RUN(simple_put_returns_a_reference_and_get_returns_the_record);
  RUN(simple_put_defaults_the_collection_and_derives_a_hash_id);
  RUN(simple_put_replaces_a_memory_with_the_same_id);
  RUN(simple_put_rejects_bad_input);
  RUN(render_gives_a_context_block_or_the_raw_content);
  RUN(put_json_stores_every_field);
  RUN(put_json_create_only_conflicts_and_upsert_replaces);
  RUN(put_json_rejects_records_that_do_not_fit_the_schema);
  RUN(put_json_rejects_values_that_break_the_rules);
  RUN(put_markdown_reads_the_frontmatter);
  RUN(update_json_changes_only_the_given_fields);
  RUN(update_json_rejects_bad_changes);
  RUN(delete_moves_to_the_trash_and_restore_brings_it_back);
  RUN(restore_conflicts_when_the_id_was_taken_again);
  RUN(a_bare_id_in_two_collections_is_ambiguous);
  RUN(references_are_validated);
  RUN(unicode_and_nul_bytes_survive);
  memcore_close(mc);
  return harness_end("test_memories");
}
