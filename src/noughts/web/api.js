// The page's only network: the noughts API (GET /api/v1/variants, POST /api/v1/move and
// /api/v1/analyze, the searches asked again after a 503).
//
// The API's base URL comes from ?api=<url> on the page's address, else from
// <meta name="noughts-api" content="<url>">, else the page's own address (its origin and
// path prefix). So the same static files work behind `noughts serve`, under an API
// Gateway stage, and pointed at a Lambda deployment from another host.

/** An API failure with a message fit to show a player. */
export class ApiError extends Error {
  constructor(message, { status = 0, cancelled = false } = {}) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.cancelled = cancelled;
  }
}

/** The API base URL without a trailing slash ("" means this page's origin). */
export function apiBase(doc = document, href = window.location.href) {
  const fromQuery = new URL(href).searchParams.get("api");
  const meta = doc.querySelector('meta[name="noughts-api"]');
  const base = (fromQuery ?? (meta ? meta.getAttribute("content") : "") ?? "").trim();
  return base.replace(/\/+$/, "");
}

function friendly(status, detail) {
  const said = detail ? ` (${detail})` : "";
  if (status === 429) return "The engine is busy with other players right now. Please try again in a moment.";
  if (status === 409) return `The server says this game is already over${said}.`;
  if (status === 413) return "That request was too large for the server.";
  if (!detail && [404, 405, 501].includes(status)) {
    // a static file host, not the service: it has no such route and no JSON to say so
    return "There is no noughts API at this address. Open the page with ?api=<the API's URL>.";
  }
  if (status >= 400 && status < 500) return `The server could not use this position${said}.`;
  if (detail) return `The engine could not answer: ${detail}.`.replace(/\.\.$/, ".");
  return `The server ran into a problem (HTTP ${status}). Please try again.`;
}

/**
 * POST a JSON body to `path` under the API base and return the parsed answer.
 * Rejects with an ApiError carrying a friendly message on a network error, a timeout,
 * an HTTP error or a non-JSON answer; with `cancelled: true` when `signal` aborts.
 */
export async function postJson(base, path, body, options = {}) {
  return requestJson(base, path, { method: "POST", body: JSON.stringify(body) }, options);
}

/** How many times a search that answered 503 is asked again. */
export const RETRIES_ON_503 = 3;

/**
 * POST a search request, asking again while the server answers 503: the search found no
 * move within its budget, and the server keeps its work, so another request usually
 * answers at once (the first Qubic move of a fresh server). `bodyFor(attempt)` gives each
 * attempt's body (a retry may ask for more time); each attempt waits for its `time_ms`
 * plus 20 s. No retry once `wanted()` is false (the answer would be stale) or `signal`
 * aborts; the last error is thrown as postJson throws it.
 */
export async function postSearch(base, path, bodyFor, { signal, wanted = () => true } = {}) {
  for (let attempt = 0; ; attempt += 1) {
    const body = bodyFor(attempt);
    try {
      return await postJson(base, path, body, { timeoutMs: (body.time_ms || 0) + 20000, signal });
    } catch (error) {
      if (error.status !== 503 || attempt >= RETRIES_ON_503 || !wanted()) throw error;
    }
  }
}

/** GET `path` under the API base and return the parsed answer (errors as postJson's). */
export async function getJson(base, path, options = {}) {
  return requestJson(base, path, { method: "GET" }, options);
}

async function requestJson(base, path, init, { timeoutMs = 15000, signal } = {}) {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const onAbort = () => controller.abort();
  if (signal) {
    if (signal.aborted) controller.abort();
    else signal.addEventListener("abort", onAbort, { once: true });
  }
  let response;
  try {
    // without a base, resolve against the page's own address, so a page served under a
    // path prefix (an API Gateway stage such as /Prod/) calls the API under it too
    const url = base ? `${base}${path}` : path.replace(/^\//, "");
    const headers = { Accept: "application/json" };
    if (init.body !== undefined) headers["Content-Type"] = "application/json";
    response = await fetch(url, { ...init, headers, signal: controller.signal });
  } catch (error) {
    if (timedOut) {
      throw new ApiError(`The engine did not answer within ${Math.round(timeoutMs / 1000)} s. Please try again.`);
    }
    if (signal && signal.aborted) throw new ApiError("cancelled", { cancelled: true });
    throw new ApiError("Cannot reach the engine. Check your connection or the API address, then try again.");
  } finally {
    clearTimeout(timer);
    if (signal) signal.removeEventListener("abort", onAbort);
  }
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) {
    const detail = data && typeof data.detail === "string" ? data.detail : "";
    throw new ApiError(friendly(response.status, detail), { status: response.status });
  }
  if (data === null || typeof data !== "object") {
    throw new ApiError("The engine sent an answer this page cannot read.", { status: response.status });
  }
  return data;
}
