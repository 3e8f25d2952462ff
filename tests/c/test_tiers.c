/* The tiered store from C: a live session through memcore_call (start, turns, an action
 * item, an agent's note, end), its warm summary and timeline entry, recall across the tiers,
 * compaction and pinning,
 * and the errors of ending twice, a bad session id and a store that is not tiered. */
#include "harness.h"

static memcore_t *mc = NULL;

/* Runs `operation` on `request` expecting `expected`; 1 when it matched. */
static int call_fails(memcore_t *handle, const char *operation, const char *request,
                      memcore_status expected) {
  char *json = (char *)0x1;
  memcore_status st =
      memcore_call(handle, operation, strlen(operation), request, strlen(request), &json);
  return st == expected && json == (char *)0x1;
}

TEST(a_live_session_ends_in_the_warm_tier_and_on_the_timeline) {
  char *json = call_ok(mc, "session_start",
                       "{\"session\": \"c-standup\", \"title\": \"C standup\", \"agents\": [\"ann\"]}");
  CHECK(json != NULL);
  CHECK_CONTAINS(json, "\"session_id\":\"c-standup\"");
  memcore_string_free(json);
  for (int i = 1; i <= 5; i++) {
    char request[256];
    snprintf(request, sizeof request,
             "{\"session\": \"c-standup\", \"role\": \"ann\", \"content\": \"Turn %d: the "
             "allocator needs a pool.\"}",
             i);
    json = call_ok(mc, "session_turn", request);
    CHECK(json != NULL);
    memcore_string_free(json);
  }
  json = call_ok(mc, "session_note",
                 "{\"session\": \"c-standup\", \"text\": \"write the pool\", \"kind\": \"action_item\"}");
  CHECK(json != NULL);
  memcore_string_free(json);
  json = call_ok(mc, "session_note",
                 "{\"session\": \"c-standup\", \"text\": \"profile first\", \"agent\": \"ann\"}");
  CHECK(json != NULL);
  memcore_string_free(json);
  json = call_ok(mc, "session_live", "{\"session\": \"c-standup\"}");
  CHECK(json != NULL);
  CHECK_CONTAINS(json, "\"turn_count\":5");
  CHECK_CONTAINS(json, "\"action_items\":[\"write the pool\"]");
  memcore_string_free(json);

  json = call_ok(mc, "session_end",
                 "{\"session\": \"c-standup\", \"topics\": [\"memory\"], \"consensus\": \"Pool it\"}");
  CHECK(json != NULL);
  CHECK_CONTAINS(json, "\"archived\":5");
  CHECK_CONTAINS(json, "\"memories\":[\"sessions/c-standup\",\"sessions/c-standup:ann\"]");
  memcore_string_free(json);
  json = call_ok(mc, "get", "{\"ref\": \"sessions/c-standup\"}");
  CHECK(json != NULL);
  CHECK_CONTAINS(json, "- write the pool");
  memcore_string_free(json);
  json = call_ok(mc, "timeline", "{\"agent\": \"ann\"}");
  CHECK(json != NULL);
  CHECK_CONTAINS(json, "\"consensus\":\"Pool it\"");
  CHECK_CONTAINS(json, "\"unreadable\":0");
  memcore_string_free(json);

  CHECK(call_fails(mc, "session_end", "{\"session\": \"c-standup\"}", MEMCORE_STATUS_NOT_FOUND));
  CHECK(call_fails(mc, "session_start", "{\"session\": \"../etc\"}", MEMCORE_STATUS_INVALID_ARGUMENT));
  CHECK(call_fails(mc, "session_start", "{\"session\": \"c-standup\"}", MEMCORE_STATUS_CONFLICT));
  /* A request without the fields a turn needs. */
  CHECK(call_fails(mc, "session_turn", "{\"session\": \"c-standup\"}", MEMCORE_STATUS_INVALID_JSON));
}

TEST(compaction_demotes_old_memories_and_spares_pinned_ones) {
  char *json = call_ok(mc, "put",
                       "{\"memories\": [{\"content\": \"The C build uses -O1 under sanitizers.\", "
                       "\"collection\": \"notes\", \"id\": \"sanitizers\", \"created_at\": "
                       "\"2025-01-10T00:00:00Z\"}, {\"content\": \"Valgrind runs the tests in parallel.\", "
                       "\"collection\": \"notes\", \"id\": \"valgrind\", \"created_at\": "
                       "\"2025-01-11T00:00:00Z\"}]}");
  CHECK(json != NULL);
  memcore_string_free(json);
  json = call_ok(mc, "retain", "{\"ref\": \"notes/valgrind\"}");
  CHECK(json != NULL);
  CHECK_CONTAINS(json, "\"pinned\":[\"notes/valgrind\"]");
  memcore_string_free(json);
  json = call_ok(mc, "compact", "{\"dry_run\": true, \"now\": \"2030-01-01T00:00:00Z\"}");
  CHECK(json != NULL);
  CHECK_CONTAINS(json, "\"digest\":\"notes/digest-2025-q1\"");
  CHECK_CONTAINS(json, "\"demoted\":0");
  memcore_string_free(json);
  json = call_ok(mc, "compact", "{\"now\": \"2030-01-01T00:00:00Z\"}");
  CHECK(json != NULL);
  CHECK_CONTAINS(json, "\"originals\":[\"notes/sanitizers\"]");
  memcore_string_free(json);
  CHECK(call_fails(mc, "get", "{\"ref\": \"notes/sanitizers\"}", MEMCORE_STATUS_NOT_FOUND));
  json = call_ok(mc, "get", "{\"ref\": \"notes/digest-2025-q1\"}");
  CHECK(json != NULL);
  CHECK_CONTAINS(json, "sanitizers");
  memcore_string_free(json);
  CHECK(call_fails(mc, "retain", "{}", MEMCORE_STATUS_INVALID_ARGUMENT));

  /* Purge: the pinned memory needs force; the record says what went. */
  CHECK(call_fails(mc, "purge", "{\"ref\": \"notes/valgrind\", \"reason\": \"test\"}",
                   MEMCORE_STATUS_CONFLICT));
  CHECK(call_fails(mc, "purge", "{\"ref\": \"notes/valgrind\", \"reason\": \"\"}",
                   MEMCORE_STATUS_INVALID_ARGUMENT));
  json = call_ok(mc, "purge",
                 "{\"ref\": \"notes/valgrind\", \"reason\": \"test\", \"by\": \"c\", \"force\": true}");
  CHECK(json != NULL);
  CHECK_CONTAINS(json, "\"target\":\"memory notes/valgrind\"");
  CHECK_CONTAINS(json, "\"forced\":true");
  memcore_string_free(json);
  CHECK(call_fails(mc, "get", "{\"ref\": \"notes/valgrind\"}", MEMCORE_STATUS_NOT_FOUND));
}

TEST(recall_labels_both_tiers_in_a_session) {
  char *json = call_ok(mc, "session_start", "{\"session\": \"c-recall\"}");
  CHECK(json != NULL);
  memcore_string_free(json);
  /* The ended standup's turns are cold, its summary warm. */
  json = call_ok(mc, "recall",
                 "{\"text\": \"allocator pool\", \"tier\": \"all\", \"mode\": \"text\", "
                 "\"session\": \"c-recall\"}");
  CHECK(json != NULL);
  CHECK_CONTAINS(json, "\"label\":\"M1\"");
  CHECK_CONTAINS(json, "\"tier\":\"warm\"");
  CHECK_CONTAINS(json, "\"tier\":\"cold\"");
  CHECK_CONTAINS(json, "\"source\":\"turn/c-standup/");
  CHECK_CONTAINS(json, "\"session\":\"c-standup\"");
  memcore_string_free(json);
  /* verify and repair cover the cold archive the turns are in. */
  json = call_ok(mc, "verify", "{}");
  CHECK(json != NULL);
  CHECK_CONTAINS(json, "\"cold\":{");
  CHECK_CONTAINS(json, "\"damaged\":[]");
  memcore_string_free(json);
  json = call_ok(mc, "repair", "{}");
  CHECK(json != NULL);
  CHECK_CONTAINS(json, "\"frames_set_aside\":0");
  memcore_string_free(json);
  json = call_ok(mc, "session_live", "{\"session\": \"c-recall\"}");
  CHECK(json != NULL);
  CHECK_CONTAINS(json, "\"query\":\"allocator pool\"");
  memcore_string_free(json);
  /* One agent's view and the shared one at once, and a session that is not live. */
  CHECK(call_fails(mc, "recall", "{\"text\": \"pool\", \"agent\": \"ann\", \"shared\": true}",
                   MEMCORE_STATUS_INVALID_ARGUMENT));
  CHECK(call_fails(mc, "recall", "{\"text\": \"pool\", \"session\": \"gone\"}",
                   MEMCORE_STATUS_NOT_FOUND));
}

TEST(a_file_store_has_no_live_sessions) {
  memcore_t *file_store = open_store("file-store");
  CHECK(file_store != NULL);
  if (file_store == NULL) return;
  CHECK(call_fails(file_store, "session_start", "{\"session\": \"s\"}", MEMCORE_STATUS_UNSUPPORTED));
  CHECK(call_fails(file_store, "timeline", "{}", MEMCORE_STATUS_UNSUPPORTED));
  CHECK(call_fails(file_store, "compact", "{}", MEMCORE_STATUS_UNSUPPORTED));
  CHECK(call_fails(file_store, "recall", "{\"text\": \"x\", \"tier\": \"cold\"}",
                   MEMCORE_STATUS_UNSUPPORTED));
  memcore_close(file_store);
}

int main(int argc, char **argv) {
  harness_begin(argc, argv);
  const char *dir = scratch_dir("tiered");
  write_file(dir, "config.yaml", "backend: tiered\nembedding:\n  enabled: false\n");
  if (memcore_open(dir, strlen(dir), &mc) != MEMCORE_STATUS_OK) {
    printf("memcore_open(%s) failed: %s\n", dir, memcore_last_error_message());
    return 1;
  }
  RUN(a_live_session_ends_in_the_warm_tier_and_on_the_timeline);
  RUN(recall_labels_both_tiers_in_a_session);
  RUN(compaction_demotes_old_memories_and_spares_pinned_ones);
  RUN(a_file_store_has_no_live_sessions);
  memcore_close(mc);
  return harness_end("test_tiers");
}
