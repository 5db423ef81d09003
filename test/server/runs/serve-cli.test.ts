/** `toolbridge serve` (the built bin) with the Runs API on a replay model: what a user starts. */
import type { ChildProcess } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServe, stopAllServes } from "../../helpers/serve-process.js";
import { getJson, postJson, readSse, type SseEvent } from "./helpers.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "toolbridge-serve-runs-"));
  await writeFile(
    path.join(dir, "turns.jsonl"),
    `${JSON.stringify({ calls: [{ name: "calculator", arguments: { expression: "6*7" } }] })}\n${JSON.stringify({ text: "It is 42." })}\n`,
  );
});
afterAll(async () => {
  await stopAllServes();
  await rm(dir, { recursive: true, force: true });
});

/** Start serve (on the replay model unless `model` says otherwise) and resolve with its REST API and WebSocket URLs. */
async function serve(model = "replay:turns.jsonl", db = "runs.db") {
  const started = await startServe(["--db", db], {
    cwd: dir,
    // An empty TOOLBRIDGE_MODEL: nothing configured, the bundled demo model.
    env: { TOOLBRIDGE_MODEL: model, TOOLBRIDGE_BASE_URL: "", TOOLBRIDGE_PROVIDER: "" },
  });
  return { child: started.child, api: started.url, ws: started.ws, banner: started.output() };
}

function stopped(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.once("exit", (code) => resolve(code));
    child.kill("SIGTERM");
  });
}

describe("toolbridge serve: Runs API", { timeout: 120_000 }, () => {
  it("prints the API and WebSocket URLs, runs a run to its answer, and keeps runs and events across a restart", async () => {
    const first = await serve();
    expect(first.banner).toMatch(new RegExp(`WebSocket API .*? ${first.ws}\\n`));
    const { runId } = (await postJson(`${first.api}/api/runs`, { message: "what is 6*7?" })).body;
    const events: SseEvent[] = [];
    await readSse(`${first.api}/api/runs/${runId}/events`, (e) => {
      events.push(e);
    });
    expect(events.map((e) => e.event)).toContain("tool-result");
    expect(events.at(-1)?.data).toMatchObject({ type: "run-finished", answer: "It is 42." });
    expect(await stopped(first.child)).toBe(0);

    const second = await serve();
    expect((await getJson(`${second.api}/api/runs/${runId}`)).body).toMatchObject({ status: "finished" });
    const replayed: SseEvent[] = [];
    await readSse(`${second.api}/api/runs/${runId}/events`, (e) => {
      replayed.push(e);
    });
    expect(replayed.map((e) => [e.id, e.data])).toEqual(events.map((e) => [e.id, e.data]));
    expect(await stopped(second.child)).toBe(0);
  });

  it("answers the first POST /api/runs before the model is loaded; the run shows the load, then its steps", async () => {
    // A new database and the bundled demo model, as a user's first run after `toolbridge serve`.
    const { child, api } = await serve("", "first-run.db");
    const sent = await postJson(`${api}/api/runs`, { message: "what is 15% of 47.50?" });
    const answeredAt = Date.now();
    expect(sent.status).toBe(202);
    const events: SseEvent[] = [];
    await readSse(`${api}/api/runs/${sent.body.runId}/events`, (e) => {
      events.push(e);
    });
    const types = events.map((e) => e.event);
    expect(types.slice(0, 2)).toEqual(["run-started", "model-loading"]);
    const loaded = events.find((e) => e.event === "model-loaded");
    expect(loaded?.data).toMatchObject({ model: "toolbridge-demo", durationMs: expect.any(Number) });
    // Every model-loading event (with progress, where node-llama-cpp reported it) comes before model-loaded, and the
    // first step after it; the 202 was in the client's hands before the server stamped the model loaded.
    expect(types.lastIndexOf("model-loading")).toBeLessThan(types.indexOf("model-loaded"));
    expect(types.indexOf("model-loaded")).toBeLessThan(types.indexOf("step-started"));
    expect(answeredAt).toBeLessThanOrEqual(loaded?.data.at as number);
    expect(events.at(-1)?.data).toMatchObject({ type: "run-finished", status: "finished" });
    child.kill("SIGTERM");
  });

  it("a GGUF that cannot be loaded ends the run with that error, in its events and in GET /api/runs/{id}", async () => {
    await writeFile(path.join(dir, "broken.gguf"), "not a GGUF file\n");
    const { child, api } = await serve(path.join(dir, "broken.gguf"), "broken.db");
    const sent = await postJson(`${api}/api/runs`, { message: "hello" });
    expect(sent.status).toBe(202);
    const events: SseEvent[] = [];
    await readSse(`${api}/api/runs/${sent.body.runId}/events`, (e) => {
      events.push(e);
    });
    expect(events.map((e) => e.event)).toEqual(["run-started", "model-loading", "error", "run-finished"]);
    const reason = /could not be loaded: Cannot load .*broken\.gguf: Invalid GGUF magic/;
    expect(events[2]?.data.message).toMatch(reason);
    expect(events[3]?.data).toMatchObject({ status: "stopped", stopReason: "model-error" });
    expect((await getJson(`${api}/api/runs/${sent.body.runId}`)).body).toMatchObject({
      status: "stopped",
      stopReason: "model-error",
      error: expect.stringMatching(reason),
    });
    child.kill("SIGTERM");
  });
});
