/*
 * Version, status names, the last-error message, owned strings and opening/closing
 * stores (by path and by scope).
 */
#include "harness.h"

TEST(version_matches_the_header) {
  CHECK(memcore_version() != NULL);
  CHECK(strcmp(memcore_version(), MEMCORE_VERSION) == 0);
  CHECK(MEMCORE_VERSION_NUMBER ==
        MEMCORE_VERSION_MAJOR * 10000 + MEMCORE_VERSION_MINOR * 100 + MEMCORE_VERSION_PATCH);
  char expected[64];
  snprintf(expected, sizeof expected, "%d.%d.%d", MEMCORE_VERSION_MAJOR, MEMCORE_VERSION_MINOR,
           MEMCORE_VERSION_PATCH);
  CHECK(strcmp(expected, MEMCORE_VERSION) == 0);
}

TEST(every_status_has_its_number_and_name) {
  static const struct {
    uint32_t number;
    memcore_status status;
    const char *name;
  } table[] = {
      {0, MEMCORE_STATUS_OK, "OK"},
      {1, MEMCORE_STATUS_NULL_PARAMETER, "NULL_PARAMETER"},
      {2, MEMCORE_STATUS_INVALID_UTF8, "INVALID_UTF8"},
      {3, MEMCORE_STATUS_INVALID_JSON, "INVALID_JSON"},
      {4, MEMCORE_STATUS_INVALID_ARGUMENT, "INVALID_ARGUMENT"},
      {100, MEMCORE_STATUS_NOT_FOUND, "NOT_FOUND"},
      {101, MEMCORE_STATUS_CONFLICT, "CONFLICT"},
      {102, MEMCORE_STATUS_IO, "IO"},
      {103, MEMCORE_STATUS_CORRUPTED, "CORRUPTED"},
      {104, MEMCORE_STATUS_INDEX, "INDEX"},
      {105, MEMCORE_STATUS_EMBEDDING, "EMBEDDING"},
      {106, MEMCORE_STATUS_UNSUPPORTED, "UNSUPPORTED"},
      {107, MEMCORE_STATUS_CALLBACK, "CALLBACK"},
      {200, MEMCORE_STATUS_PANIC, "PANIC"},
      {201, MEMCORE_STATUS_INTERNAL, "INTERNAL"},
  };
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
    CHECK(table[i].status == table[i].number);
    CHECK(strcmp(memcore_status_name(table[i].number), table[i].name) == 0);
  }
  CHECK(strcmp(memcore_status_name(5), "UNKNOWN") == 0);
  CHECK(strcmp(memcore_status_name(99), "UNKNOWN") == 0);
  CHECK(strcmp(memcore_status_name(0xFFFFFFFFu), "UNKNOWN") == 0);
}

TEST(enum_values_are_stable) {
  CHECK(MEMCORE_SCOPE_AUTO == 0 && MEMCORE_SCOPE_LOCAL == 1 && MEMCORE_SCOPE_GLOBAL == 2);
  CHECK(MEMCORE_FORMAT_CONTEXT == 0 && MEMCORE_FORMAT_RAW == 1);
  CHECK(MEMCORE_PUT_MODE_UPSERT == 0 && MEMCORE_PUT_MODE_CREATE_ONLY == 1);
  CHECK(sizeof(memcore_status) == 4);
}

TEST(last_error_is_empty_before_any_failure_and_after_a_success) {
  CHECK(memcore_last_error_message() != NULL);
  memcore_t *mc = NULL;
  CHECK_STATUS(memcore_open(NULL, 0, &mc), MEMCORE_STATUS_NULL_PARAMETER);
  const char *message = memcore_last_error_message();
  CHECK(strcmp(message, "[NULL_PARAMETER] `path` is NULL\n-> pass a valid pointer as `path`") == 0);
  /* Functions that return no status leave the message alone. */
  memcore_string_free(NULL);
  CHECK(memcore_version() != NULL);
  CHECK(memcore_status_name(1) != NULL);
  CHECK(memcore_last_error_message() == message);
  /* A success clears it. */
  const char *path = scratch_dir("clear");
  CHECK_OK(memcore_open(path, strlen(path), &mc));
  CHECK(strcmp(memcore_last_error_message(), "") == 0);
  memcore_close(mc);
}

TEST(null_handles_and_strings_are_ignored_by_the_free_functions) {
  memcore_close(NULL);
  memcore_string_free(NULL);
}

TEST(open_creates_the_store_and_root_names_it) {
  const char *dir = scratch_dir("open");
  char path[4096];
  snprintf(path, sizeof path, "%s/nested/store", dir);
  memcore_t *mc = NULL;
  CHECK_OK(memcore_open(path, strlen(path), &mc));
  CHECK(mc != NULL);
  struct stat st;
  CHECK(stat(path, &st) == 0 && S_ISDIR(st.st_mode));
  char *root = NULL;
  CHECK_OK(memcore_root(mc, &root));
  CHECK(strcmp(root, path) == 0);
  memcore_string_free(root);
  memcore_close(mc);
}

TEST(open_takes_a_length_not_a_terminator) {
  const char *dir = scratch_dir("length");
  char path[4096];
  /* The bytes after `len` are not part of the path. */
  snprintf(path, sizeof path, "%s/store-and-more", dir);
  size_t len = strlen(dir) + strlen("/store");
  memcore_t *mc = NULL;
  CHECK_OK(memcore_open(path, len, &mc));
  char *root = NULL;
  CHECK_OK(memcore_root(mc, &root));
  CHECK(strlen(root) == len && strncmp(root, path, len) == 0);
  memcore_string_free(root);
  memcore_close(mc);
}

TEST(open_rejects_bad_paths) {
  memcore_t *mc = (memcore_t *)0x1; /* a sentinel: out-params are written on success only */
  CHECK_STATUS(memcore_open(NULL, 0, &mc), MEMCORE_STATUS_NULL_PARAMETER);
  CHECK_STATUS(memcore_open("x", 1, NULL), MEMCORE_STATUS_NULL_PARAMETER);
  CHECK_CONTAINS(memcore_last_error_message(), "`out` is NULL");
  CHECK_STATUS(memcore_open("", 0, &mc), MEMCORE_STATUS_INVALID_ARGUMENT);
  CHECK_CONTAINS(memcore_last_error_message(), "`path` is empty");
  CHECK_STATUS(memcore_open("/tmp/\xff\xfe", 7, &mc), MEMCORE_STATUS_INVALID_UTF8);
  CHECK_CONTAINS(memcore_last_error_message(), "[INVALID_UTF8] `path` is not valid UTF-8");

  const char *dir = scratch_dir("bad-path");
  char dir_copy[4096];
  snprintf(dir_copy, sizeof dir_copy, "%s", dir);
  CHECK(write_file(dir_copy, "file", "not a directory") == 0);
  char path[4096];
  snprintf(path, sizeof path, "%s/file", dir_copy);
  CHECK_STATUS(memcore_open(path, strlen(path), &mc), MEMCORE_STATUS_INVALID_ARGUMENT);
  CHECK_CONTAINS(memcore_last_error_message(), "is not a directory");
  CHECK_CONTAINS(memcore_last_error_message(), "\n-> ");
  snprintf(path, sizeof path, "%s/file/below", dir_copy);
  CHECK_STATUS(memcore_open(path, strlen(path), &mc), MEMCORE_STATUS_IO);
  CHECK_CONTAINS(memcore_last_error_message(), "[STORAGE]");
  CHECK(mc == (memcore_t *)0x1);
}

TEST(open_rejects_an_invalid_config) {
  const char *dir = scratch_dir("bad-config");
  CHECK(write_file(dir, "config.yaml", "versioning: sometimes\n") == 0);
  memcore_t *mc = NULL;
  CHECK_STATUS(memcore_open(dir, strlen(dir), &mc), MEMCORE_STATUS_INVALID_ARGUMENT);
  CHECK_CONTAINS(memcore_last_error_message(), "invalid config");
  CHECK(mc == NULL);
}

TEST(open_scope_local_finds_the_project_config) {
  char project[4096];
  snprintf(project, sizeof project, "%s", scratch_dir("project"));
  CHECK(write_file(project, ".memcore.yaml", "path: .memcore\n") == 0);
  char sub[4096];
  snprintf(sub, sizeof sub, "%s/src/deep", project);
  CHECK(write_file(sub, "main.c", "int main(void) { return 0; }\n") == 0);
  memcore_t *mc = NULL;
  CHECK_OK(memcore_open_scope(MEMCORE_SCOPE_LOCAL, sub, strlen(sub), &mc));
  char *root = NULL;
  CHECK_OK(memcore_root(mc, &root));
  char expected[4096];
  snprintf(expected, sizeof expected, "%s/.memcore", project);
  CHECK(strcmp(root, expected) == 0);
  memcore_string_free(root);
  memcore_close(mc);

  mc = NULL;
  CHECK_OK(memcore_open_scope(MEMCORE_SCOPE_AUTO, project, strlen(project), &mc));
  CHECK_OK(memcore_root(mc, &root));
  CHECK(strcmp(root, expected) == 0);
  memcore_string_free(root);
  memcore_close(mc);
}

TEST(open_scope_local_without_a_project_is_not_found) {
  const char *dir = scratch_dir("no-project");
  memcore_t *mc = NULL;
  CHECK_STATUS(memcore_open_scope(MEMCORE_SCOPE_LOCAL, dir, strlen(dir), &mc),
               MEMCORE_STATUS_NOT_FOUND);
  CHECK_CONTAINS(memcore_last_error_message(), "[NOT_FOUND] project config");
  CHECK(mc == NULL);
}

TEST(open_scope_global_uses_memcore_home) {
  char home[4096];
  snprintf(home, sizeof home, "%s/home", scratch_dir("global"));
  CHECK(setenv("MEMCORE_HOME", home, 1) == 0);
  memcore_t *mc = NULL;
  /* NULL start_dir: detection would start in the working directory (unused for GLOBAL). */
  CHECK_OK(memcore_open_scope(MEMCORE_SCOPE_GLOBAL, NULL, 0, &mc));
  char *root = NULL;
  CHECK_OK(memcore_root(mc, &root));
  CHECK(strcmp(root, home) == 0);
  memcore_string_free(root);
  memcore_close(mc);
  unsetenv("MEMCORE_HOME");
}

TEST(open_scope_rejects_bad_arguments) {
  memcore_t *mc = NULL;
  CHECK_STATUS(memcore_open_scope(3, NULL, 0, &mc), MEMCORE_STATUS_INVALID_ARGUMENT);
  CHECK_CONTAINS(memcore_last_error_message(), "`scope` is 3");
  CHECK_STATUS(memcore_open_scope(MEMCORE_SCOPE_AUTO, NULL, 4, &mc),
               MEMCORE_STATUS_NULL_PARAMETER);
  CHECK_CONTAINS(memcore_last_error_message(), "`start_dir` is NULL but `start_dir_len` is 4");
  CHECK_STATUS(memcore_open_scope(MEMCORE_SCOPE_AUTO, "\xc3\x28", 2, &mc),
               MEMCORE_STATUS_INVALID_UTF8);
  CHECK_STATUS(memcore_open_scope(MEMCORE_SCOPE_GLOBAL, NULL, 0, NULL),
               MEMCORE_STATUS_NULL_PARAMETER);
  CHECK(mc == NULL);
}

TEST(root_checks_its_arguments) {
  char *root = NULL;
  CHECK_STATUS(memcore_root(NULL, &root), MEMCORE_STATUS_NULL_PARAMETER);
  CHECK_CONTAINS(memcore_last_error_message(), "`memcore` is NULL");
  memcore_t *mc = open_store("root-args");
  CHECK(mc != NULL);
  CHECK_STATUS(memcore_root(mc, NULL), MEMCORE_STATUS_NULL_PARAMETER);
  memcore_close(mc);
  CHECK(root == NULL);
}

TEST(several_handles_share_one_store) {
  const char *dir = scratch_dir("shared");
  memcore_t *a = NULL, *b = NULL;
  CHECK_OK(memcore_open(dir, strlen(dir), &a));
  CHECK_OK(memcore_open(dir, strlen(dir), &b));
  char *ref = NULL;
  CHECK_OK(memcore_put(a, NULL, 0, "# Shared\n\nwritten by a", 23, NULL, 0, &ref));
  char *json = NULL;
  CHECK_OK(memcore_get(b, ref, strlen(ref), &json));
  CHECK_CONTAINS(json, "written by a");
  memcore_string_free(json);
  memcore_string_free(ref);
  memcore_close(a);
  memcore_close(b);
}

int main(int argc, char **argv) {
  harness_begin(argc, argv);
  RUN(version_matches_the_header);
  RUN(every_status_has_its_number_and_name);
  RUN(enum_values_are_stable);
  RUN(last_error_is_empty_before_any_failure_and_after_a_success);
  RUN(null_handles_and_strings_are_ignored_by_the_free_functions);
  RUN(open_creates_the_store_and_root_names_it);
  RUN(open_takes_a_length_not_a_terminator);
  RUN(open_rejects_bad_paths);
  RUN(open_rejects_an_invalid_config);
  RUN(open_scope_local_finds_the_project_config);
  RUN(open_scope_local_without_a_project_is_not_found);
  RUN(open_scope_global_uses_memcore_home);
  RUN(open_scope_rejects_bad_arguments);
  RUN(root_checks_its_arguments);
  RUN(several_handles_share_one_store);
  return harness_end("test_basics");
}
