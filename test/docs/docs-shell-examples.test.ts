/**
 * The shell examples of the README and docs/ run as written, against a real `toolbridge serve` on the bundled demo
 * model (the built bin, as a user runs it). A ```sh block marked `<!-- example: serve -->` runs in bash against one
 * server started the way the docs say (in a folder with `notes/` and the `toolbridge.config.json` of the block marked
 * `<!-- example: serve-config -->`); one marked `<!-- example: serve-token -->` against a second one started with
 * `--token "$TOKEN"` (the block gets `TOKEN`); one marked `<!-- example: cli -->` needs no server. The only changes made to a
 * block: the docs' address (127.0.0.1:8080, localhost:8080) becomes the test server's, and a `toolbridge serve` line is
 * left out (the server is already up). `toolbridge` is the built bin.
 *
 * Each block must exit 0 (bash `-euo pipefail`), every HTTP answer must be 2xx unless the block names the status
 * (`# 409 …`), and every `# {…}` comment that shows a whole output line (no "…") must be printed as shown. The
 * WebSocket example (`<!-- example: ws -->`, JSON messages) is sent in order over a socket to the --token server.
 */
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { CLI_MAIN } from "../helpers/run-cli.js";
import { TestSocket } from "../server/runs/helpers.js";

vi.setConfig({ testTimeout: 180_000, hookTimeout: 120_000 });

const root = fileURLToPath(new URL("../../", import.meta.url));

interface Example {
  file: string;
  kind: string;
  lang: string;
  code: string;
}

/** Every code block marked `<!-- example: <kind> -->`, in README.md then docs/*.md order. */
function examples(): Example[] {
  const files = [
    "README.md",
    ...readdirSync(path.join(root, "docs"))
      .filter((name) => name.endsWith(".md"))
      .sort()
      .map((name) => `docs/${name}`),
  ];
  return files.flatMap((file) =>
    [
      ...readFileSync(path.join(root, file), "utf8").matchAll(
        /<!-- example: ([\w-]+) -->\n```(\w+)\n([\s\S]*?)```/g,
      ),
    ].map((m) => ({ file, kind: m[1] as string, lang: m[2] as string, code: m[3] as string })),
  );
}

const all = examples();
const config = all.filter((e) => e.kind === "serve-config");
// Inside the package (as the readme examples): `npx -y @modelcontextprotocol/server-filesystem` then resolves to the
// installed dev dependency instead of the network.
const base = path.join(root, "test", ".docs-run");
mkdirSync(base, { recursive: true });
const scratch = mkdtempSync(path.join(base, "serve-"));
const TOKEN = "docs-example-token-0123456789";

interface Served {
  child: ChildProcessWithoutNullStreams;
  url: string;
  banner: string;
}

/** `toolbridge serve --port 0 …` in `cwd`, resolved once its banner (through the /v1 line) is printed. */
function startServe(cwd: string, extra: string[] = []): Promise<Served> {
  const child = spawn(
    process.execPath,
    [CLI_MAIN, "serve", "--port", "0", "--db", "./toolbridge.db", ...extra],
    {
      cwd,
      env: {
        ...process.env,
        NO_COLOR: "1",
        TOOLBRIDGE_MODEL: "",
        TOOLBRIDGE_BASE_URL: "",
        TOOLBRIDGE_PROVIDER: "",
        TOOLBRIDGE_TOKEN: "",
      },
    },
  );
  let err = "";
  let banner = "";
  child.stderr.on("data", (chunk: Buffer) => {
    err += chunk.toString();
  });
  return new Promise<Served>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${err}`)), 90_000);
    child.stdout.on("data", (chunk: Buffer) => {
      banner += chunk.toString();
      const match = /OpenAI-compatible API at (http:\/\/\S+)\/v1 /.exec(banner);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve({ child, url: match[1], banner });
      }
    });
    child.once("exit", (code) => reject(new Error(`serve exited with ${code}: ${err}`)));
  });
}

let served: Served | undefined;
let guarded: Served | undefined;
let url = "";
let banner = "";

beforeAll(async () => {
  mkdirSync(path.join(scratch, "notes"));
  const merged = Object.assign({}, ...config.map((e) => JSON.parse(e.code)));
  writeFileSync(path.join(scratch, "toolbridge.config.json"), JSON.stringify(merged, null, 2));
  mkdirSync(path.join(scratch, "guarded"));
  [served, guarded] = await Promise.all([
    startServe(scratch),
    startServe(path.join(scratch, "guarded"), ["--token", TOKEN]),
  ]);
  url = served.url;
  banner = served.banner;
});

afterAll(async () => {
  await Promise.all(
    [served, guarded].map(async (server) => {
      if (!server || server.child.exitCode !== null) return;
      const exited = new Promise((resolve) => server.child.once("exit", resolve));
      server.child.kill("SIGTERM");
      await exited;
    }),
  );
  rmSync(scratch, { recursive: true, force: true });
});

/** Runs one block in bash in the scratch folder; HTTP statuses (from curl's --write-out) come back apart. */
function runBlock(
  code: string,
  url: string,
  env: Record<string, string> = {},
): { status: number | null; stdout: string; stderr: string; http: number[] } {
  const host = url.replace(/^http:\/\//, "");
  const script = code
    .replaceAll("http://127.0.0.1:8080", url)
    .replaceAll("http://localhost:8080", url)
    .replaceAll("localhost:8080", host)
    .split("\n")
    .filter((line) => !/^toolbridge serve\b/.test(line))
    .join("\n");
  const prelude = [
    "set -euo pipefail",
    `toolbridge() { ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI_MAIN)} "$@"; }`,
    // The status of every answer, on stderr, so that the block's own output stays as a user sees it.
    `curl() { command curl --max-time 120 --write-out '%{stderr}HTTP %{http_code}\\n' "$@"; }`,
  ].join("\n");
  const run = spawnSync("bash", ["-c", `${prelude}\n${script}`], {
    cwd: scratch,
    encoding: "utf8",
    timeout: 170_000,
    env: { ...process.env, NO_COLOR: "1", ...env },
  });
  const http = [...run.stderr.matchAll(/^HTTP (\d{3})$/gm)].map((m) => Number(m[1]));
  return { status: run.status, stdout: run.stdout, stderr: run.stderr, http };
}

/** `# {…}` comment lines that show a whole output line, as printed. */
function shownOutputs(code: string): string[] {
  return code
    .split("\n")
    .filter((line) => /^# \{/.test(line) && !line.includes("…"))
    .map((line) => line.slice(2));
}

describe("the shell examples of the README and docs/", () => {
  it("finds the marked examples: the server's, the Runs API's, the Tools API's, /v1's and the parser's", () => {
    const where = all.map((e) => `${e.file}:${e.kind}`);
    expect(where).toEqual(
      expect.arrayContaining([
        "docs/server.md:serve-config",
        "docs/server.md:serve",
        "docs/openai-api.md:serve",
        "docs/protocols.md:cli",
        "docs/security.md:serve-token",
      ]),
    );
    expect(all.filter((e) => e.kind === "serve").length).toBeGreaterThanOrEqual(4);
  });

  it("the README's serve banner is what serve prints", () => {
    const readme = readFileSync(path.join(root, "README.md"), "utf8");
    const block = /```sh\ntoolbridge serve --port 8080[^\n]*\n([\s\S]*?)```/.exec(readme)?.[1] ?? "";
    const documented = block
      .split("\n")
      .filter((line) => line.startsWith("# "))
      .map((line) =>
        line
          .slice(2)
          .replaceAll("127.0.0.1:8080", url.replace("http://", ""))
          .replace("12 tool(s)", "N tool(s)"),
      );
    expect(documented.length).toBeGreaterThan(5);
    const printed = banner
      .split("\n")
      .slice(0, documented.length)
      .map((line) => line.replace(/serving \d+ tool\(s\)/, "serving N tool(s)"));
    expect(printed).toEqual(documented);
  });

  for (const [index, example] of all.entries()) {
    if (!["serve", "serve-token", "cli"].includes(example.kind)) continue;
    const first = example.code.split("\n").find((line) => line && !line.startsWith("#")) ?? "";
    it(`${example.file} #${index}: ${first.slice(0, 60)}`, () => {
      const run =
        example.kind === "serve-token"
          ? runBlock(example.code, guarded?.url ?? "", { TOKEN })
          : runBlock(example.code, url);
      expect(run.stderr.replace(/^HTTP \d{3}\n/gm, ""), run.stdout).toBe("");
      expect(run.status).toBe(0);
      const named = new Set([...example.code.matchAll(/# (\d{3}) /g)].map((m) => Number(m[1])));
      const unexpected = run.http.filter((status) => (status < 200 || status > 299) && !named.has(status));
      expect(unexpected, run.stdout).toEqual([]);
      if (example.kind !== "cli") expect(run.http.length).toBeGreaterThan(0);
      for (const shown of shownOutputs(example.code)) expect(run.stdout).toContain(shown);

      // What each example is there to show, as a user would check it.
      if (example.code.includes('"message":"roll 2d6+3"')) {
        // Paused on the call the tool setting made ask for, approved, and run to the answer.
        expect(run.stdout).toContain('"status":"paused"');
        expect(run.stdout).toMatch(/"pending":\[\],"ready":true/);
        expect(run.stdout).toMatch(
          /event: approval-requested[\s\S]*event: approval-decided[\s\S]*run-finished/,
        );
        expect(run.stdout).toMatch(/"name":"roll_dice","arguments":\{"notation":"2d6\+3"\}/);
      }
      if (example.code.includes("cancelRuns=true")) {
        expect(run.http).toContain(409);
        expect(run.stdout).toContain('"status":"stopped"');
      }
      if (example.code.includes("write_file/call")) {
        expect(readFileSync(path.join(scratch, "notes", "a.txt"), "utf8")).toBe("hi");
        expect(run.stdout).toContain('"text":"1024"');
        expect(run.stdout).toMatch(/"name":"fs","state":"(ready|connecting|restarting)"/);
      }
      if (example.code.includes("/api/session")) {
        // Signed in by the cookie, signed out again; the token never stored by the page.
        expect(run.stdout).toMatch(
          /set-cookie: toolbridge_session=v1\.\d+\.[^;]+; Path=\/; HttpOnly; SameSite=Strict/i,
        );
        expect(run.stdout).toMatch(/"authenticated":true[\s\S]*"authenticated":false/);
        expect(run.stdout).toContain('"name":"calculator"');
      }
      if (example.code.includes("/v1/chat/completions"))
        expect(run.stdout).toMatch(/"name":"roll_dice","arguments":"\{\\"notation\\":\\"2d6\+3\\"\}"/);
    });
  }
});

describe("the WebSocket example of docs/server.md", () => {
  it("sends its requests in order, with real values for the …, and gets what its comments say", async () => {
    const block = all.find((e) => e.kind === "ws");
    expect(block?.file).toBe("docs/server.md");
    const lines = (block?.code ?? "").split("\n").map((line) => line.replace(/\s*\/\/.*$/, ""));
    const requests = lines
      .filter((line) => line.startsWith('{"id"'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const pushed = lines
      .filter((line) => line.startsWith('{"type"'))
      .map((line) => /"type": "([^"]+)"/.exec(line)?.[1]);
    expect(requests.map((r) => r.type)).toEqual([
      "auth",
      "tools/list",
      "tools/call",
      "runs/start",
      "runs/subscribe",
      "runs/unsubscribe",
      "runs/get",
      "runs/decide",
      "runs/cancel",
    ]);
    const http = guarded?.url ?? "";
    const bearer = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };
    // The dice ask, so that the run pauses for the decision the example sends.
    await fetch(`${http}/api/tools/roll_dice`, {
      method: "PATCH",
      headers: bearer,
      body: '{"policy":"ask"}',
    });
    const socket = await TestSocket.open(`${http.replace(/^http/, "ws")}/ws`);
    let runId = "";
    let callId = "";
    /** The "…" of a request made real (a key whose value is left to the reader is left out). */
    const real = (request: Record<string, unknown>): Record<string, unknown> => {
      const values: Record<string, unknown> = {
        token: TOKEN,
        category: "math",
        message: "roll 2d6+3",
        model: "toolbridge-demo",
        runId,
      };
      const out: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(request)) {
        if (key === "decisions")
          out[key] = (value as Record<string, unknown>[]).map((d) => ({ ...d, callId }));
        else if (typeof value === "string" && value.includes("…")) {
          if (values[key] !== undefined) out[key] = values[key];
        } else out[key] = value;
      }
      return out;
    };
    try {
      const replies: Record<string, Record<string, unknown>> = {};
      for (const request of requests) {
        if (request.type === "runs/subscribe") {
          // Subscribed once the run waits for its decision: the pending calls come with the subscription.
          await vi.waitFor(
            async () => {
              const view = (await (await fetch(`${http}/api/runs/${runId}`, { headers: bearer })).json()) as {
                status: string;
                pending: { callId: string }[];
              };
              expect(view.status).toBe("paused");
              callId = view.pending[0]?.callId ?? "";
            },
            { timeout: 60_000, interval: 200 },
          );
        }
        const { id, ...message } = real(request);
        socket.send({ id, ...message });
        const reply = await socket.waitFor(
          (m) => m.id === id && (m.type === "result" || m.type === "error"),
          60_000,
        );
        replies[request.type as string] = reply;
        if (request.type === "runs/start") runId = (reply.result as { runId: string }).runId;
        // A run that already ended after its approval cannot be cancelled: that answer is the only error accepted.
        if (request.type !== "runs/cancel") expect(reply.type, JSON.stringify(reply)).toBe("result");
      }
      expect(JSON.stringify(replies["tools/list"]?.result)).toContain('"name":"calculator"');
      expect(JSON.stringify(replies["tools/call"]?.result)).toContain('"text":"42"');
      expect(replies["runs/get"]?.result).toMatchObject({
        status: "paused",
        pending: [{ callId, name: "roll_dice" }],
      });
      const cancel = replies["runs/cancel"];
      expect(cancel?.type === "result" || (cancel?.error as { code?: unknown })?.code !== undefined).toBe(
        true,
      );
      // What the server pushes, as the example lists it (tools/list_changed only follows a change of the tools).
      for (const type of pushed.filter((t) => t !== "tools/list_changed"))
        expect(socket.messages.map((m) => m.type)).toContain(type);
    } finally {
      socket.close();
      await fetch(`${http}/api/tools/roll_dice`, {
        method: "PATCH",
        headers: bearer,
        body: '{"policy":null}',
      });
    }
  });
});
