// memcore's memory browser: changes go through the JSON API under /api/, the same requests
// a program sends (so the server's checks apply to them: same-site origin, JSON bodies, the
// version an edit was made on). Pages work for reading without this script.
"use strict";

/** Sends `body` (if any) as JSON to `path`; the reply, or an Error with memcore's message. */
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
    throw new Error(message.join(". "));
  }
  return reply;
}

/** Shows `text` in the status element `output`, as a success or a failure. */
function say(output, text, ok) {
  output.textContent = text;
  output.className = ok ? "saved" : "failed";
}

/** Replaces the elements `selectors` name with their versions in a fresh copy of the page. */
async function refresh(selectors) {
  const html = await (await fetch(location.href, { cache: "no-store" })).text();
  const fresh = new DOMParser().parseFromString(html, "text/html");
  for (const selector of selectors) {
    const old = document.querySelector(selector);
    const replacement = fresh.querySelector(selector);
    if (old && replacement) old.replaceWith(replacement);
  }
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
  const status = editor.querySelector("#save-status");
  const change = {
    title: fields.namedItem("title").value,
    content: fields.namedItem("content").value,
    tags: fields.namedItem("tags").value.split(",").map((t) => t.trim()).filter(Boolean),
    expected_version: Number(fields.namedItem("expected_version").value),
  };
  try {
    const memory = await api("PATCH", `/api/memories/${editor.dataset.ref}`, change);
    delete editor.dataset.dirty;
    await refresh(["#meta", "#editor", "#links", "#keepits"]);
    say(document.querySelector("#save-status"), `Saved as version ${memory.version}.`, true);
  } catch (error) {
    say(status, `Not saved: ${error.message}`, false);
  }
});

// Keepit presets: set a marker's weight, then show the new decay preview.
document.addEventListener("click", async (event) => {
  const preset = event.target.closest("#keepits button[data-weight]");
  if (!preset) return;
  const section = preset.closest("#keepits");
  const index = preset.closest("[data-index]").dataset.index;
  const status = section.querySelector("#keepit-status");
  try {
    const memory = await api("PUT", `/api/memories/${section.dataset.ref}/keepits/${index}`, {
      weight: Number(preset.dataset.weight),
    });
    const editor = document.querySelector("#editor");
    // An editor with unsaved changes keeps them; saving them is then refused as stale.
    const parts = editor && editor.dataset.dirty ? ["#meta", "#keepits"] : ["#meta", "#keepits", "#editor"];
    await refresh(parts);
    say(document.querySelector("#keepit-status"), `Weight set: version ${memory.version}.`, true);
    const again = document.querySelector(`#keepits [data-index="${index}"] button[data-weight="${preset.dataset.weight}"]`);
    if (again) again.focus();
  } catch (error) {
    say(status, `Not set: ${error.message}`, false);
  }
});

// The composition builder: the budget bar follows the choices; composing posts them.
function chosenComponents(composer) {
  return [...composer.querySelectorAll(".component")].filter(
    (row) => row.querySelector("input[type=checkbox]").checked,
  );
}

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
  const status = composer.querySelector("#compose-status");
  const name = composer.elements.namedItem("name").value;
  const components = chosenComponents(composer).map((row) => {
    const version = row.querySelector("select").value;
    return version ? { session: row.dataset.session, version } : { session: row.dataset.session };
  });
  if (!components.length) {
    say(status, "Choose at least one session.", false);
    return;
  }
  try {
    const body = {
      name,
      components,
      budget: Number(composer.elements.namedItem("budget").value),
      replace: true,
    };
    await api("POST", "/api/memory/compositions", body);
    location.assign(`/compositions/${name}`);
  } catch (error) {
    say(status, `Not composed: ${error.message}`, false);
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
    say(form.querySelector("#login-status"), `Not logged in: ${error.message}`, false);
  }
});

// A composition's delete button.
document.addEventListener("click", async (event) => {
  const button = event.target.closest("#delete-composition");
  if (!button) return;
  const status = document.querySelector("#composition-status");
  try {
    await api("DELETE", `/api/memory/compositions/${button.dataset.name}`);
    location.assign("/sessions");
  } catch (error) {
    say(status, `Not deleted: ${error.message}`, false);
  }
});
