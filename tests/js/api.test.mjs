// The page's API client (src/noughts/web/api.js) against a stand-in fetch:
//   node --test tests/js/
import assert from "node:assert/strict";
import { afterEach, test } from "node:test";

import { RETRIES_ON_503, postSearch } from "../../src/noughts/web/api.js";

const realFetch = globalThis.fetch;
afterEach(() => {
  globalThis.fetch = realFetch;
});

/** A fetch answering with `statuses` in turn; it records every body it was sent. */
function serve(statuses) {
  const sent = [];
  globalThis.fetch = async (url, init) => {
    sent.push(JSON.parse(init.body));
    const status = statuses[Math.min(sent.length - 1, statuses.length - 1)];
    const data = status === 200 ? { move: 4 } : { detail: "no move within the time limit" };
    return { ok: status === 200, status, json: async () => data };
  };
  return sent;
}

const bodyFor = (attempt) => ({ board: "X../.O./...", time_ms: 300 * 2 ** attempt });

test("a 503 is asked again with each attempt's body until an answer comes", async () => {
  const sent = serve([503, 503, 200]);
  const answer = await postSearch("http://api.test", "/api/v1/move", bodyFor);
  assert.deepEqual(answer, { move: 4 });
  assert.deepEqual(sent.map((body) => body.time_ms), [300, 600, 1200]);
});

test("after the last retry the 503 is the error", async () => {
  const sent = serve([503]);
  await assert.rejects(postSearch("http://api.test", "/api/v1/move", bodyFor), (error) => error.status === 503);
  assert.equal(sent.length, 1 + RETRIES_ON_503);
});

test("other errors, and answers no longer wanted, are not asked again", async () => {
  const refused = serve([422, 200]);
  await assert.rejects(postSearch("http://api.test", "/api/v1/move", bodyFor), (error) => error.status === 422);
  assert.equal(refused.length, 1);
  const stale = serve([503, 200]);
  const wanted = () => false; // the board changed while the request was out
  await assert.rejects(postSearch("http://api.test", "/api/v1/analyze", bodyFor, { wanted }), (error) => error.status === 503);
  assert.equal(stale.length, 1);
});
