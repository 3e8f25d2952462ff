/* The composition engine from C: a token-budgeted context through memcore_call, the session
 * registry (add, compress, compose, prune) and a summariser written in C, whose failures
 * (a non-zero return, invalid UTF-8, no summary) are MEMCORE_STATUS_CALLBACK with nothing
 * written. */
#include "harness.h"

static memcore_t *mc = NULL;
static char transcript[4096];

/* Counts its calls in *user_data and writes a fixed summary. */
static int32_t good_summarizer(void *user_data, const char *request, size_t request_len,
                               memcore_summary_t *summary) {
  (void)request_len;
  int *calls = user_data;
  ++*calls;
  if (strstr(request, "\"target_tokens\"") == NULL) return 7;
  const char *text = "The parser was slow; batching fixed it.";
  return memcore_summary_write(summary, text, strlen(text)) == MEMCORE_STATUS_OK ? 0 : 9;
}

static int32_t failing_summarizer(void *user_data, const char *request, size_t request_len,
                                  memcore_summary_t *summary) {
  (void)user_data, (void)request, (void)request_len, (void)summary;
  return 3;
}

static int32_t garbage_summarizer(void *user_data, const char *request, size_t request_len,
                                  memcore_summary_t *summary) {
  (void)user_data, (void)request, (void)request_len;
  const char bad[] = "caf\xc3\x28";
  /* Refused here, and the compression fails too. */
  return memcore_summary_write(summary, bad, sizeof bad - 1) == MEMCORE_STATUS_INVALID_UTF8 ? 0 : 5;
}

static int32_t silent_summarizer(void *user_data, const char *request, size_t request_len,
                                 memcore_summary_t *summary) {
  (void)user_data, (void)request, (void)request_len, (void)summary;
  return 0;
}

TEST(compose_assembles_a_budgeted_context) {
  char *json = call_ok(mc, "put", "{\"memories\": [{\"content\": \"We use Postgres for the main "
                                  "database.\", \"collection\": \"decisions\", \"id\": \"postgres\"}, "
                                  "{\"content\": \"Blocked by the expired staging certificate.\", "
                                  "\"collection\": \"blockers\", \"id\": \"cert\"}]}");
  CHECK(json != NULL);
  memcore_string_free(json);
  json = call_ok(mc, "compose", "{\"query\": \"database\", \"budget\": 300, \"search_mode\": \"text\"}");
  CHECK(json != NULL);
  CHECK_CONTAINS(json, "\"text\":\"<memory_context>\\n<working_memory>\\n<memory label=\\\"M1\\\"");
  CHECK_CONTAINS(json, "\"source\":\"blocker\"");
  CHECK_CONTAINS(json, "\"outcome\":\"duplicate\"");
  CHECK_CONTAINS(json, "\"total\":300");
  memcore_string_free(json);
  json = (char *)0x1;
  CHECK_STATUS(memcore_call(mc, STR("compose"), STR("{\"query\": \"x\", \"budget\": 0}"), &json),
               MEMCORE_STATUS_INVALID_ARGUMENT);
  CHECK(json == (char *)0x1);
}

TEST(sessions_compress_with_a_c_summariser_and_its_failures_write_nothing) {
  char request[8192];
  snprintf(request, sizeof request, "{\"path\": \"%s\", \"session_id\": \"s1\"}", transcript);
  char *json = call_ok(mc, "session_add", request);
  CHECK(json != NULL);
  CHECK_CONTAINS(json, "\"original_messages\":6");
  CHECK_CONTAINS(json, "\"skipped_count\":1");
  memcore_string_free(json);

  const char *compress = "{\"session\": \"s1\", \"settings\": {\"compaction_ratio\": 4}}";
  memcore_summarize_fn bad[] = {failing_summarizer, garbage_summarizer, silent_summarizer};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    CHECK_OK(memcore_set_summarizer(mc, STR("bad"), bad[i], NULL));
    json = (char *)0x1;
    CHECK_STATUS(memcore_call(mc, STR("session_compress"), STR(compress), &json), MEMCORE_STATUS_CALLBACK);
    CHECK(json == (char *)0x1);
  }
  json = call_ok(mc, "session_show", "{\"session\": \"s1\"}");
  CHECK(json != NULL);
  CHECK_CONTAINS(json, "\"compressions\":[]");
  memcore_string_free(json);

  int calls = 0;
  CHECK_OK(memcore_set_summarizer(mc, STR("c-summary"), good_summarizer, &calls));
  json = call_ok(mc, "session_compress", compress);
  CHECK(json != NULL);
  CHECK_CONTAINS(json, "\"version_id\":\"v001\"");
  CHECK_CONTAINS(json, "\"model\":\"c-summary\"");
  CHECK(calls == 1);
  memcore_string_free(json);
  CHECK_OK(memcore_set_summarizer(mc, NULL, 0, NULL, NULL));
  json = call_ok(mc, "session_compress", compress);
  CHECK(json != NULL);
  CHECK_CONTAINS(json, "\"model\":\"extractive\"");
  memcore_string_free(json);
  json = (char *)0x1;
  CHECK_STATUS(memcore_call(mc, STR("session_compress"),
                            STR("{\"session\": \"s1\", \"summarizer\": \"callback\"}"), &json),
               MEMCORE_STATUS_INVALID_ARGUMENT);
}

TEST(compositions_protect_the_versions_they_use) {
  char *json = call_ok(mc, "session_compose",
                       "{\"name\": \"next\", \"components\": [{\"session\": \"s1\", \"version\": \"v001\"}], "
                       "\"budget\": 2000}");
  CHECK(json != NULL);
  CHECK_CONTAINS(json, "\"selection\":\"explicit\"");
  memcore_string_free(json);
  json = (char *)0x1;
  CHECK_STATUS(memcore_call(mc, STR("session_prune"), STR("{\"session\": \"s1\", \"versions\": [\"v001\"]}"), &json),
               MEMCORE_STATUS_CONFLICT);
  CHECK_CONTAINS(memcore_last_error_message(), "used by compositions: next");
  json = call_ok(mc, "session_prune", "{\"session\": \"s1\", \"versions\": [\"v001\"], \"force\": true}");
  CHECK(json != NULL);
  CHECK_CONTAINS(json, "\"deleted\":[\"v001\"]");
  memcore_string_free(json);
  json = call_ok(mc, "session_list", "{}");
  CHECK(json != NULL);
  CHECK_CONTAINS(json, "\"session_id\":\"s1\"");
  CHECK_CONTAINS(json, "\"name\":\"next\"");
  memcore_string_free(json);
}

int main(int argc, char **argv) {
  harness_begin(argc, argv);
  mc = open_store("sessions");
  if (mc == NULL) return 1;
  const char *dir = scratch_dir("transcripts");
  snprintf(transcript, sizeof transcript, "%s/chat.jsonl", dir);
  write_file(dir, "chat.jsonl",
             "{\"role\": \"user\", \"content\": \"The parser is slow on large files. ##keepit1.00## Keep the "
             "old API.\", \"timestamp\": \"2026-01-15T10:00:00Z\"}\n"
             "{\"role\": \"assistant\", \"content\": \"I profiled it: the tokenizer allocates per line.\"}\n"
             "not json\n"
             "{\"role\": \"user\", \"content\": \"Can we batch the lines?\"}\n"
             "{\"role\": \"assistant\", \"content\": \"Yes: batching cut the time by half in my tests.\"}\n"
             "{\"role\": \"user\", \"content\": \"Great, ship it with a benchmark.\"}\n"
             "{\"role\": \"assistant\", \"content\": \"Done, the benchmark is in benches/parser.rs.\"}\n");
  RUN(compose_assembles_a_budgeted_context);
  RUN(sessions_compress_with_a_c_summariser_and_its_failures_write_nothing);
  RUN(compositions_protect_the_versions_they_use);
  memcore_close(mc);
  return harness_end("test_sessions");
}
