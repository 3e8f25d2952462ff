/*
 * agent_loop.c: an agent loop with memory, in C.
 *
 * For each user turn of a scripted conversation: compose the memory context for the prompt
 * within a token budget (`compose`), let the model answer from it, citing the
 * [M1]-labelled memories it used, then capture what the turn said worth keeping
 * (`capture` with apply). Both go through memcore_call(), which takes and returns the same
 * JSON records as Rust, Python, the CLI and MCP.
 *
 * The model is a deterministic stand-in (stand_in_model) so the loop runs offline and the
 * same every time: it answers with the labelled memory of the context that shares the most
 * words with the question. Put a real model call in its place.
 *
 * Build and run (from the repository root):
 *
 *   cargo build -p memcore-ffi
 *   cc -std=c11 -Iinclude examples/c/agent_loop.c -Ltarget/debug -lmemcore \
 *      -Wl,-rpath,"$PWD/target/debug" -o agent_loop
 *   ./agent_loop examples/conversation.txt "$(mktemp -d)"
 *
 * The JSON handling here (escaping a string, reading the fields the loop needs) is the
 * least that works for this conversation; a real program would use a JSON library.
 */
#define _POSIX_C_SOURCE 200112L /* setenv */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memcore.h"

enum { BUDGET = 300, MAX_WORDS = 64, WORD_SIZE = 32 };

/* Prints the failure of `what` and returns 0 when `status` is not OK. */
static int ok(memcore_status status, const char *what) {
  if (status == MEMCORE_STATUS_OK) return 1;
  fprintf(stderr, "%s failed (%s):\n%s\n", what, memcore_status_name(status),
          memcore_last_error_message());
  return 0;
}

/* `text` as a JSON string literal (quotes included) in `out`; 0 when it does not fit. */
static int json_string(const char *text, char *out, size_t out_size) {
  size_t n = 0;
  if (out_size < 3) return 0;
  out[n++] = '"';
  for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
    char escaped[8] = {0};
    if (*c == '"' || *c == '\\') {
      snprintf(escaped, sizeof escaped, "\\%c", *c);
    } else if (*c < 0x20) {
      snprintf(escaped, sizeof escaped, "\\u%04x", *c);
    } else {
      escaped[0] = (char)*c;
    }
    size_t len = strlen(escaped);
    if (n + len + 2 > out_size) return 0;
    memcpy(out + n, escaped, len);
    n += len;
  }
  out[n++] = '"';
  out[n] = '\0';
  return 1;
}

/*
 * The value of the string field `key` of the JSON object `json`, unescaped, as a new string
 * (free() it), or NULL. Handles the escapes JSON has for ASCII text; a \u escape of a
 * non-ASCII character becomes '?'.
 */
static char *string_field(const char *json, const char *key) {
  char pattern[64];
  snprintf(pattern, sizeof pattern, "\"%s\":\"", key);
  const char *at = strstr(json, pattern);
  if (at == NULL) return NULL;
  at += strlen(pattern);
  char *out = malloc(strlen(at) + 1);
  if (out == NULL) return NULL;
  size_t n = 0;
  for (; *at && *at != '"'; at++) {
    if (*at != '\\') {
      out[n++] = *at;
      continue;
    }
    at++;
    switch (*at) {
      case '\0': at--; break; /* a lone backslash at the end: stop there */
      case 'n': out[n++] = '\n'; break;
      case 't': out[n++] = '\t'; break;
      case 'r': out[n++] = '\r'; break;
      case 'b': out[n++] = '\b'; break;
      case 'f': out[n++] = '\f'; break;
      case 'u': {
        char hex[5] = {0};
        for (int i = 0; i < 4 && isxdigit((unsigned char)at[1]); i++) hex[i] = *++at;
        long code = strtol(hex, NULL, 16);
        out[n++] = code > 0 && code < 0x80 ? (char)code : '?';
        break;
      }
      default: out[n++] = *at; break; /* \" \\ \/ */
    }
  }
  out[n] = '\0';
  return out;
}

/* The distinct lower-case words of five letters or more in `text` (at most MAX_WORDS). */
static int words(const char *text, char out[MAX_WORDS][WORD_SIZE]) {
  int count = 0;
  while (*text) {
    while (*text && !isalnum((unsigned char)*text)) text++;
    char word[WORD_SIZE];
    size_t len = 0;
    for (; isalnum((unsigned char)*text); text++) {
      if (len + 1 < WORD_SIZE) word[len++] = (char)tolower((unsigned char)*text);
    }
    word[len] = '\0';
    int seen = len < 5;
    for (int i = 0; i < count && !seen; i++) seen = strcmp(out[i], word) == 0;
    if (!seen && count < MAX_WORDS) strcpy(out[count++], word);
  }
  return count;
}

/*
 * A deterministic stand-in for a language model: the first line of the labelled memory in
 * `context` sharing the most words (five letters or more) with `question`, cited by its
 * label; at least two words must match. Writes the reply to `reply`.
 */
static void stand_in_model(const char *context, const char *question, char *reply, size_t size) {
  static char asked[MAX_WORDS][WORD_SIZE], held[MAX_WORDS][WORD_SIZE];
  int asked_count = words(question, asked);
  int most = 1;
  snprintf(reply, size, "I have nothing on that yet.");
  const char *memory = context;
  while ((memory = strstr(memory, "<memory label=\"")) != NULL) {
    char label[16] = {0};
    sscanf(memory + strlen("<memory label=\""), "%15[^\"]", label);
    const char *body = strchr(memory, '\n');
    const char *end = body ? strstr(body, "\n</memory>") : NULL;
    if (end == NULL || end <= body) break;
    size_t len = (size_t)(end - body - 1);
    char *content = malloc(len + 1);
    if (content == NULL) break;
    memcpy(content, body + 1, len);
    content[len] = '\0';
    int held_count = words(content, held), shared = 0;
    for (int i = 0; i < asked_count; i++) {
      for (int j = 0; j < held_count; j++) shared += strcmp(asked[i], held[j]) == 0;
    }
    if (shared > most) {
      most = shared;
      snprintf(reply, size, "%.*s [%s]", (int)strcspn(content, "\n"), content, label);
    }
    free(content);
    memory = end;
  }
}

/* Runs `operation` on `request`; the result JSON (memcore_string_free() it) or NULL. */
static char *call(memcore_t *mc, const char *operation, const char *request) {
  char *result = NULL;
  if (!ok(memcore_call(mc, operation, strlen(operation), request, strlen(request), &result),
          operation)) {
    return NULL;
  }
  return result;
}

/* One turn: compose, answer, capture. Returns 0 on a failure. */
static int turn(memcore_t *mc, const char *text) {
  char quoted[2048], request[4096], reply[1024];
  if (!json_string(text, quoted, sizeof quoted)) return 0;

  /* 1. The prompt's memory context: working memory and what the turn is about. */
  snprintf(request, sizeof request, "{\"query\": %s, \"budget\": %d}", quoted, BUDGET);
  char *composed = call(mc, "compose", request);
  if (composed == NULL) return 0;
  char *context = string_field(composed, "text");
  /* The keys of a result come sorted: the top-level "tokens" follows "tokenizer" (an item's
   * own "tokens" comes earlier, under "items"). */
  const char *tokenizer = strstr(composed, "\"tokenizer\":");
  const char *tokens = tokenizer ? strstr(tokenizer, "\"tokens\":") : NULL;
  int items = 0;
  for (const char *at = context; at && (at = strstr(at, "<memory label=")) != NULL; at++) items++;

  /* 2. The model answers from it, citing labels. */
  stand_in_model(context ? context : "", text, reply, sizeof reply);
  printf("user: %s\n  context: %d memories, %d/%d tokens\n  agent: %s\n", text, items,
         tokens ? atoi(tokens + strlen("\"tokens\":")) : -1, BUDGET, reply);
  free(context);
  memcore_string_free(composed);

  /* 3. What the user said worth keeping is stored for the next turns. */
  snprintf(request, sizeof request,
           "{\"text\": %s, \"created_by\": \"user\", \"apply\": true, \"apply_suggested\": true}",
           quoted);
  char *captured = call(mc, "capture", request);
  if (captured == NULL) return 0;
  const char *stored = strstr(captured, "\"stored\":[");
  for (const char *at = stored ? stored + strlen("\"stored\":[") : ""; *at == '"';) {
    const char *close = strchr(at + 1, '"');
    if (close == NULL) break;
    printf("  remembered: %.*s\n", (int)(close - at - 1), at + 1);
    at = close + 1 + (close[1] == ',');
  }
  memcore_string_free(captured);
  return 1;
}

int main(int argc, char **argv) {
  /* ONNX Runtime sends Microsoft telemetry unless this is set before it loads; set it while
   * the process has one thread (a value the user gave wins). */
  setenv("ORT_DISABLE_TELEMETRY", "1", 0);
  if (argc != 3) {
    fprintf(stderr, "usage: %s CONVERSATION STORE_DIR (a fresh directory: the agent starts "
            "with no memories)\n", argv[0]);
    return 2;
  }
  const char *path = argv[2];
  FILE *script = fopen(argv[1], "r");
  if (script == NULL) {
    perror(argv[1]);
    return 1;
  }
  memcore_t *mc = NULL;
  if (!ok(memcore_open(path, strlen(path), &mc), "open")) {
    fclose(script);
    return 1;
  }
  char line[1024];
  int failed = 0;
  while (!failed && fgets(line, sizeof line, script) != NULL) {
    if (strchr(line, '\n') == NULL && !feof(script)) {
      fprintf(stderr, "a turn of more than %zu bytes\n", sizeof line - 2);
      failed = 1;
      break;
    }
    line[strcspn(line, "\r\n")] = '\0';
    if (line[0] == '\0' || line[0] == '#') continue;
    failed = !turn(mc, line);
  }
  fclose(script);
  memcore_close(mc);
  return failed;
}
