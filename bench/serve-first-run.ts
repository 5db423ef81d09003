/**
 * The first run after `toolbridge serve` starts: how long `POST /api/runs` takes to answer (202) against how long the
 * model then takes to load, on the built CLI with the bundled demo model (nothing configured) and a new database.
 * Each start is a fresh process. "202" is the POST's round trip; "loaded" is the model-loaded event's `at` minus
 * when the POST was sent (same clock); "second 202" a POST once the first run finished (nothing left to open).
 * Run: npm run build && npm run bench:serve-first-run   (BENCH_STARTS=3 by default)
 *
 * Measured (2 shared CPUs, Node 20, load average 18–19, this script against a build of the commit before, 4 starts
 * each, alternating): 202 in 66–530 ms (47–90 ms in a quieter minute) while the model then loads until 2.3–4.4 s
 * after the POST; before, the 202 itself took 3.3–4.1 s (it opened the store and loaded the model first). A second
 * POST, with everything open, 3–40 ms either way.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const STARTS = Number(process.env.BENCH_STARTS ?? 3);
const CLI = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url));

function serve(dir: string): Promise<{ child: ChildProcessWithoutNullStreams; url: string }> {
  const child = spawn(process.execPath, [CLI, "serve", "--port", "0", "--db", path.join(dir, "bench.db")], {
    cwd: dir,
    env: { ...process.env, TOOLBRIDGE_MODEL: "", TOOLBRIDGE_BASE_URL: "", TOOLBRIDGE_PROVIDER: "" },
  });
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
      const url = / on (http:\/\/\S+) /.exec(out)?.[1];
      if (url) resolve({ child, url });
    });
    child.on("exit", (code) => reject(new Error(`serve exited ${code}`)));
  });
}

async function post(url: string, message: string): Promise<{ runId: string; sentAt: number; ms: number }> {
  const sentAt = Date.now();
  const started = performance.now();
  const response = await fetch(`${url}/api/runs`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ message }),
  });
  const ms = performance.now() - started;
  if (response.status !== 202) throw new Error(`POST /api/runs answered ${response.status}`);
  return { runId: ((await response.json()) as { runId: string }).runId, sentAt, ms };
}

/** The run's events (SSE) up to run-finished, as parsed data objects. */
async function events(url: string, runId: string): Promise<Array<{ type: string; at: number }>> {
  const text = await (await fetch(`${url}/api/runs/${runId}/events`)).text();
  return text
    .split("\n")
    .filter((line) => line.startsWith("data:"))
    .map((line) => JSON.parse(line.slice(5)));
}

const rows: string[] = [];
for (let i = 0; i < STARTS; i++) {
  const dir = mkdtempSync(path.join(tmpdir(), "toolbridge-bench-first-run-"));
  const { child, url } = await serve(dir);
  try {
    const first = await post(url, "what is 15% of 47.50?");
    const seen = await events(url, first.runId);
    const loaded = seen.find((e) => e.type === "model-loaded");
    const second = await post(url, "roll 2d6+3");
    await events(url, second.runId);
    rows.push(
      `start ${i + 1}: 202 ${first.ms.toFixed(0)} ms · model loaded ${loaded ? `${loaded.at - first.sentAt} ms` : "(no event)"} after the POST · second 202 ${second.ms.toFixed(0)} ms`,
    );
  } finally {
    child.kill("SIGTERM");
    await new Promise((resolve) => child.once("exit", resolve));
    rmSync(dir, { recursive: true, force: true });
  }
}
process.stdout.write(`${rows.join("\n")}\n`);
