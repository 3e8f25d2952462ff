/*
 * The PostgreSQL backend through the C ABI: two store directories (two machines' indexes)
 * over one namespace of the database $MEMCORE_TEST_DATABASE_URL names (scripts/test-c starts
 * a throwaway cluster with scripts/pg-cluster), and the error of a wrong password.
 */
#include <unistd.h>

#include "harness.h"

static const char *database_url(void) {
  const char *url = getenv("MEMCORE_TEST_DATABASE_URL");
  if (url == NULL || *url == '\0') {
    fprintf(stderr, "MEMCORE_TEST_DATABASE_URL is not set: run scripts/test-c, which starts a "
                    "PostgreSQL cluster for these tests\n");
    exit(2);
  }
  return url;
}

/* A new store directory whose settings name `namespace` of the database at `url`. */
static const char *machine(const char *label, const char *url, const char *namespace) {
  const char *dir = scratch_dir(label);
  char yaml[2048];
  snprintf(yaml, sizeof yaml, "backend: postgres\npostgres:\n  url: \"%s\"\n  namespace: %s\n",
           url, namespace);
  if (write_file(dir, "config.yaml", yaml) != 0) {
    fprintf(stderr, "cannot write %s/config.yaml\n", dir);
    exit(2);
  }
  return dir;
}

TEST(two_machines_share_one_namespace) {
  char namespace[64];
  snprintf(namespace, sizeof namespace, "c-%ld", (long)getpid());
  memcore_t *a = NULL;
  memcore_t *b = NULL;
  const char *dir_a = machine("a", database_url(), namespace);
  CHECK_OK(memcore_open(dir_a, strlen(dir_a), &a));
  const char *dir_b = machine("b", database_url(), namespace);
  CHECK_OK(memcore_open(dir_b, strlen(dir_b), &b));

  char *ref = NULL;
  const char *text = "The night shift restarts the kiln at four.";
  CHECK_OK(memcore_put(a, STR("knowledge"), STR(text), STR("kiln"), &ref));
  CHECK(strncmp(ref, "knowledge/", strlen("knowledge/")) == 0);

  char *synced = call_ok(b, "sync", "{}");
  CHECK(synced != NULL);
  CHECK_CONTAINS(synced, "\"synced\":1");
  char *found = call_ok(b, "search", "{\"text\": \"kiln night shift\", \"mode\": \"text\"}");
  CHECK(found != NULL);
  CHECK_CONTAINS(found, ref + strlen("knowledge/"));

  memcore_string_free(found);
  memcore_string_free(synced);
  memcore_string_free(ref);
  memcore_close(b);
  memcore_close(a);
}

TEST(a_wrong_password_is_an_io_status_that_hides_it) {
  const char *url = database_url();
  const char *password = strstr(url, "password=");
  CHECK(password != NULL);
  char wrong[2048];
  snprintf(wrong, sizeof wrong, "%.*spassword=not-the-password-7%s", (int)(password - url), url,
           strchr(password, ' ') ? strchr(password, ' ') : "");
  const char *dir = machine("wrong", wrong, "x");
  memcore_t *mc = NULL;
  CHECK_STATUS(memcore_open(dir, strlen(dir), &mc), MEMCORE_STATUS_IO);
  CHECK(mc == NULL);
  const char *message = memcore_last_error_message();
  CHECK_CONTAINS(message, "password=***");
  CHECK(strstr(message, "not-the-password-7") == NULL);
}

int main(int argc, char **argv) {
  harness_begin(argc, argv);
  RUN(two_machines_share_one_namespace);
  RUN(a_wrong_password_is_an_io_status_that_hides_it);
  return harness_end("test_postgres");
}
