// memcore's memory browser: changes go through the JSON API under /api/, the same requests
// a program sends (so the server's checks apply to them: same-site origin, JSON bodies, the
// version an edit was made on). Pages work for reading without this script.
"use strict";

/**
 * Sends `body` (if any) as JSON to `path`; the reply, or an Error with memcore's message and
 * recovery hint (its `status` the HTTP status).
 */
async function api(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  const reply = await response.json().catch(() => ({}));
  if (!response.ok) {
    const error = reply.error || {};
    const message = [error.message || response.statusText, error.recovery].filter(Boolean);
    throw Object.assign(new Error(message.join(". ")), { status: response.status });
  }
  return reply;
}

/** Shows `text` in the status element `selector` names, as a success or a failure. */
function say(selector, text, ok) {
  const output = document.querySelector(selector);
  if (!output) return;
  output.textContent = text;
  output.className = ok ? "saved" : "failed";
}

/** Runs `work` with `button` disabled, so a second click cannot send the request twice. */
async function busy(button, work) {
  if (button) button.disabled = true;
  try {
    return await work();
  } finally {
    if (button && button.isConnected) button.disabled = false;
  }
}

/**
 * Replaces the elements `selectors` name (and the document's title) with their versions in a
 * fresh copy of the page; false when the page could not be read again.
 */
async function refresh(selectors) {
  try {
    const response = await fetch(location.href, { cache: "no-store" });
    // An error page, or the login page after a restart of the server: nothing to take.
    if (!response.ok || response.redirected) return false;
    const html = await response.text();
    const fresh = new DOMParser().parseFromString(html, "text/html");
    for (const selector of selectors) {
      const old = document.querySelector(selector);
      const replacement = fresh.querySelector(selector);
      if (old && replacement) old.replaceWith(replacement);
    }
    document.title = fresh.title;
    return true;
  } catch {
    return false;
  }
}

/** What the page says after a change was saved: `done`, or that a reload will show it. */
async function settle(selectors, status, done) {
  const shown = await refresh(selectors);
  say(status, shown ? done : `${done} Reload the page to see it.`, true);
}

// The memory editor: a PATCH with the version the page was read at.
document.addEventListener("input", (event) => {
  const editor = event.target.closest("#editor");
  if (editor) editor.dataset.dirty = "true";
});
document.addEventListener("submit", async (event) => {
  const editor = event.target.closest("#editor");
  if (!editor) return;
  event.preventDefault();
  const fields = editor.elements;
  const change = {
    title: fields.namedItem("title").value,
    content: fields.namedItem("content").value,
    tags: fields.namedItem("tags").value.split(",").map((t) => t.trim()).filter(Boolean),
    expected_version: Number(fields.namedItem("expected_version").value),
  };
  // Typing during the save marks the editor again, and what was typed is then kept.
  delete editor.dataset.dirty;
  let memory;
  try {
    const save = editor.querySelector("button[type=submit]");
    memory = await busy(save, () => api("PATCH", `/api/memories/${editor.dataset.ref}`, change));
  } catch (error) {
    editor.dataset.dirty = "true";
    say("#save-status", `Not saved: ${error.message}`, false);
    return;
  }
  fields.namedItem("expected_version").value = memory.version;
  const parts = editor.dataset.dirty
    ? ["#title-heading", "#meta", "#links", "#keepits"]
    : ["#title-heading", "#meta", "#editor", "#links", "#keepits"];
  await settle(parts, "#save-status", `Saved as version ${memory.version}.`);
});

// Keepit presets: set a marker's weight, then show the new decay preview.
document.addEventListener("click", async (event) => {
  const preset = event.target.closest("#keepits button[data-weight]");
  if (!preset) return;
  const ref = preset.closest("#keepits").dataset.ref;
  const index = preset.closest("[data-index]").dataset.index;
  const weight = preset.dataset.weight;
  let memory;
  try {
    memory = await busy(preset, () =>
      api("PUT", `/api/memories/${ref}/keepits/${index}`, { weight: Number(weight) }),
    );
  } catch (error) {
    say("#keepit-status", `Not set: ${error.message}`, false);
    return;
  }
  const editor = document.querySelector("#editor");
  // An editor with unsaved changes keeps them; saving them is then refused as stale.
  const parts = editor && editor.dataset.dirty ? ["#meta", "#keepits"] : ["#meta", "#keepits", "#editor"];
  await settle(parts, "#keepit-status", `Weight set: version ${memory.version}.`);
  const again = document.querySelector(`#keepits [data-index="${index}"] button[data-weight="${weight}"]`);
  if (again) again.focus();
});

// The composition builder: the budget bar follows the choices; composing posts them.

/** The rows of the sessions ticked in `composer`, newest first. */
function chosenComponents(composer) {
  return [...composer.querySelectorAll(".component")].filter(
    (row) => row.querySelector("input[type=checkbox]").checked,
  );
}

/**
 * Fills the budget bar with the tokens of the chosen versions; a version "chosen by score"
 * counts as the session's share of the budget, or its original if that is smaller.
 */
function fillBudget(composer) {
  const budget = Number(composer.elements.namedItem("budget").value) || 0;
  const chosen = chosenComponents(composer);
  const share = chosen.length ? Math.floor(budget / chosen.length) : 0;
  let used = 0;
  for (const row of chosen) {
    const option = row.querySelector("select").selectedOptions[0];
    const tokens = option.dataset.tokens;
    // "chosen by score": at most the session's share of the budget.
    used += tokens === "auto" ? Math.min(Number(row.dataset.original), share) : Number(tokens);
  }
  const bar = composer.querySelector("#budget-fill");
  bar.max = Math.max(budget, 1);
  bar.value = Math.min(used, budget);
  const text = composer.querySelector("#budget-text");
  text.textContent = `${used} / ${budget} tokens${used > budget ? " (over budget)" : ""}`;
  text.classList.toggle("over", used > budget);
}

for (const kind of ["input", "change"]) {
  document.addEventListener(kind, (event) => {
    const composer = event.target.closest("#composer");
    if (composer) fillBudget(composer);
  });
}
document.addEventListener("DOMContentLoaded", () => {
  const composer = document.querySelector("#composer");
  if (composer) fillBudget(composer);
});

document.addEventListener("submit", async (event) => {
  const composer = event.target.closest("#composer");
  if (!composer) return;
  event.preventDefault();
  const name = composer.elements.namedItem("name").value;
  const components = chosenComponents(composer).map((row) => {
    const version = row.querySelector("select").value;
    return version ? { session: row.dataset.session, version } : { session: row.dataset.session };
  });
  if (!components.length) {
    say("#compose-status", "Choose at least one session.", false);
    return;
  }
  const body = { name, components, budget: Number(composer.elements.namedItem("budget").value) };
  const button = composer.querySelector("button[type=submit]");
  try {
    await busy(button, async () => {
      try {
        await api("POST", "/api/memory/compositions", { ...body, replace: false });
      } catch (error) {
        // A conflict because the name is taken (not a busy store, say): ask before replacing.
        if (error.status !== 409) throw error;
        const taken = await fetch(`/api/memory/compositions/${encodeURIComponent(name)}`).then((r) => r.ok, () => false);
        if (!taken || !confirm(`Replace the composition ${name}?`)) throw error;
        await api("POST", "/api/memory/compositions", { ...body, replace: true });
      }
    });
    location.assign(`/compositions/${encodeURIComponent(name)}`);
  } catch (error) {
    say("#compose-status", `Not composed: ${error.message}`, false);
  }
});

// Logging in to a server with a token: the reply sets the session cookie.
document.addEventListener("submit", async (event) => {
  const form = event.target.closest("#login");
  if (!form) return;
  event.preventDefault();
  try {
    await api("POST", "/login", { token: form.elements.namedItem("token").value });
    location.assign("/");
  } catch (error) {
    say("#login-status", `Not logged in: ${error.message}`, false);
  }
});

// A composition's delete button.
document.addEventListener("click", async (event) => {
  const button = event.target.closest("#delete-composition");
  if (!button || !confirm(`Delete the composition ${button.dataset.name}?`)) return;
  try {
    await busy(button, () => api("DELETE", `/api/memory/compositions/${encodeURIComponent(button.dataset.name)}`));
    location.assign("/sessions");
  } catch (error) {
    say("#composition-status", `Not deleted: ${error.message}`, false);
  }
});
