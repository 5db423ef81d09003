import type { CallToolResult } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resultText } from "../normalize-tool-result.js";
import { ToolExecutor } from "../tool-executor.js";
import { ToolRegistry } from "../tool-registry.js";
import { createCalculatorTool } from "./calculator.js";
import { MathWorker } from "./math-worker.js";

// A short bound keeps the suite quick; the resource-exhaustion cases below must end within it (plus slack for a
// worker restart on two shared cores).
const BOUND_MS = 1500;
const SLACK_MS = 1500;
const worker = new MathWorker({ timeoutMs: BOUND_MS, maxMemoryMb: 128 });
beforeAll(() => worker.warmUp(), 60_000);
const registry = new ToolRegistry();
// The call queued behind a runaway one waits for the replacement worker to load mathjs, and that wait counts against
// the pool's queue limit: seconds from source on a busy machine (10 s at a load of 18 on two cores). Not what these
// tests are about, so the limit is generous here; math-worker-pool.test.ts tests it.
registry.register(createCalculatorTool({ worker, maxQueueWaitMs: 60_000 }));
const executor = new ToolExecutor(registry, { redact: false });

afterAll(() => worker.close());

function calc(expression: string): Promise<CallToolResult> {
  return executor.call("calculator", { expression });
}

async function expectHealthy(): Promise<void> {
  const result = await calc("1 + 2 * 3");
  expect(result.isError).toBeFalsy();
  expect(resultText(result)).toBe("7");
}

describe("calculator: ordinary calculations", () => {
  it.each([
    ["sqrt(16)", "4"],
    ["47.5*0.15", "7.125"],
    ["2**10", "1024"],
    ["2^10", "1024"],
    ["2**-1", "0.5"],
    ["2 ** 3 ** 2", "512"],
    ["1/3", "0.33333333333333"],
    ["0.1 + 0.2", "0.3"],
    ["15% of 47.50", "7.125"],
    ["47.50 * 15%", "7.125"],
    ["12 % 5", "2"],
    ["(3 + 4) × 2 ÷ 7", "2"],
    ["factorial(10)", "3628800"],
    ["5!", "120"],
    ["2^53", "9007199254740992"],
    ["2^64", "1.844674407371e+19"],
    ["1e21", "1e+21"],
    ["0.000001", "0.000001"],
    ["1e-12", "1e-12"],
    ["sin(pi / 2)", "1"],
    ["round(pi, 3)", "3.142"],
    ["log(e)", "1"],
    ["log10(1000)", "3"],
    ["mean([1, 2, 3, 4])", "2.5"],
    ["gcd(12, 18)", "6"],
    ["sqrt(-4)", "2i"],
    ["(2 + 3i) * (1 - i)", "5 + i"],
    ["5 cm to inch", "1.9685039370079 inch"],
    ["det([1, 2; 3, 4])", "-2"],
    ["[1, 2; 3, 4] * 2", "[[2, 4], [6, 8]]"],
    ["inv([1, 2; 3, 4])", "[[-2, 1], [1.5, -0.5]]"],
    ["1 < 2", "true"],
    ["bignumber(2)^100", "1.2676506002282e+30"],
    ['"a**b"', "a**b"],
  ])("%s → %s", async (expression, expected) => {
    const result = await calc(expression);
    expect(result.isError, resultText(result)).toBeFalsy();
    expect(resultText(result)).toBe(expected);
  });

  it.each([
    ["1/0", /infinite.*division by zero/],
    ["0/0", /not a number/],
    ["foo(2)", /Unknown function `foo`/],
    ["x + 1", /Unknown name `x`/],
    ["2 +* 3", /Syntax error/],
    ["sqrt", /`sqrt` is a function; call it with arguments/],
    ["range(1, 20000)", /20000 elements/],
    ["", /at least 1 character/],
  ])("%s is an error that says what to fix", async (expression, message) => {
    const result = await calc(expression);
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(message);
  });

  it("is described for small models and marked read-only", () => {
    const tool = registry.get("calculator");
    expect(tool?.category).toBe("math");
    expect(tool?.tool.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: false });
    expect(tool?.requiresApproval).toBe(false);
    expect(tool?.tool.description).toContain("sqrt(16)");
  });
});

describe("calculator: hostile inputs", () => {
  // Every one of these tries to run code, change the instance, or reach JavaScript's prototype machinery.
  const codeExecution: string[] = [
    "import({}, {})",
    "import({pi: 3}, {override: true})",
    'createUnit("x")',
    'createUnit("furlong2", "220 yard")',
    'evaluate("1")',
    'parse("1")',
    'compile("1")',
    'simplify("x")',
    'derivative("x^2", "x")',
    'resolve("x", {})',
    "reviver()",
    "parser()",
    "chain(1)",
    'config({number: "BigNumber"})',
    'typed("f", {"number": sin})',
    "f(x) = x",
    "a = 1",
    "map([1, 2], f(x) = x^2)",
    "x[1] = 2",
    'cos.constructor("return process")()',
    '[].constructor.constructor("return this")()',
    'cos["constructor"]("return process")()',
    'cos["\\u0063onstructor"]',
    'cos[concat("con", "structor")]',
    "__proto__",
    "constructor",
    "toString.constructor",
    '"".__proto__',
    "(1).constructor",
    '{a: 1}["__proto__"]',
    '{"__proto__": {"polluted": 1}}',
    "{constructor: 1}",
    "sin.toString()",
    "string(sin)",
    "sin.valueOf",
    "hasOwnProperty",
    '"x".__defineGetter__',
    "process.exit(1)",
    'require("fs")',
    "globalThis",
    "this",
    'eval("1")',
    'Function("return 1")()',
    "setTimeout",
    'import("fs")',
  ];

  it.each(codeExecution)("refuses %s", async (expression) => {
    const result = await calc(expression);
    expect(result.isError, `${expression} → ${resultText(result)}`).toBe(true);
  });

  it("keeps the instance unchanged after attempts to reconfigure it", async () => {
    await calc('config({number: "BigNumber"})');
    await calc("import({pi: 3}, {override: true})");
    expect(resultText(await calc("pi"))).toBe("3.1415926535898");
    expect(resultText(await calc("1/3"))).toBe("0.33333333333333");
    expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("computes with bignumbers while the lockdown holds", async () => {
    expect(resultText(await calc("factorial(bignumber(20))"))).toBe("2.4329020081766e+18");
    expect(resultText(await calc("bignumber(2)^64"))).toBe("1.844674407371e+19");
    expect(resultText(await calc("gamma(bignumber(6))"))).toBe("120");
    const reconfigure = await calc('config({number: "BigNumber"})');
    expect(reconfigure.isError).toBe(true);
    expect(resultText(reconfigure)).toMatch(/disabled/);
  });

  // Each of these would take far longer than the bound, or far more memory than the worker may have.
  const exhaustion: string[] = [
    "factorial(100000)",
    "9^9^9^9",
    "9**9**9**9",
    // Memory, time, CPU: each costs a worker restart (seconds under tsx on a busy machine), so only these three.
    "zeros(20000, 20000)",
    "sum(range(0, 1e9))",
    "det(random([700, 700]))",
    "bignumber(9)^bignumber(9)^bignumber(9)^bignumber(9)",
    `${"(".repeat(450)}1${")".repeat(450)} + foo`,
    "1+".repeat(490) + "x",
    "9".repeat(100_000),
  ];

  it.each(exhaustion)("bounds %s", async (expression) => {
    const startedAt = Date.now();
    const result = await calc(expression);
    const elapsed = Date.now() - startedAt;
    expect(result.isError, `${expression.slice(0, 40)} → ${resultText(result)}`).toBe(true);
    expect(resultText(result).length).toBeGreaterThan(20);
    expect(elapsed).toBeLessThan(BOUND_MS + SLACK_MS);
    await expectHealthy();
  });

  it("replaces the worker after a timeout, keeps queued calls and the main thread responsive", async () => {
    await expectHealthy();
    const before = worker.workersStarted;
    const pidBefore = worker.pid;
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 50);
    const [slow, quick] = await Promise.all([calc("ones(1e5, 1e5)"), calc("sqrt(81)")]);
    clearInterval(ticker);
    expect(slow.isError).toBe(true);
    expect(resultText(slow)).toMatch(/longer than|memory/);
    // The call queued behind the runaway one ran on the replacement worker.
    expect(quick.isError).toBeFalsy();
    expect(resultText(quick)).toBe("9");
    // The main thread's timers kept firing while the worker was busy.
    expect(ticks).toBeGreaterThan(5);
    expect(worker.workersStarted).toBe(before + 1);
    expect(worker.pid).not.toBe(pidBefore);
    await expectHealthy();
  });

  it("stops the evaluation when the caller cancels", async () => {
    const controller = new AbortController();
    const pending = executor.call(
      "calculator",
      { expression: "ones(1e5, 1e5)" },
      { signal: controller.signal },
    );
    setTimeout(() => controller.abort(), 100);
    const result = await pending;
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(/cancelled/);
    await expectHealthy();
  });
});
