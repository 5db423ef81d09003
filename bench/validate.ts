/**
 * bench:validate — validating tool arguments of zod-defined tools, side by side in one process:
 * - "ajv": the JSON Schema that `defineTool` derives with `z.toJSONSchema`, compiled once by the project's
 *   ajv (`compileToolSchema`), called directly — the pass/fail check alone;
 * - "toolbridge": `validateToolInput`, the path every tool call takes (cache lookup + the same compiled
 *   function + on failure the one-line-per-problem messages written for the model);
 * - "zod": the schema's own `safeParse` (which also builds its issues and messages on failure).
 *
 * Run: npm run bench:validate   (tsx bench/validate.ts). Finishes in well under a minute.
 * Method: every case is calibrated to ~BATCH_MS per batch, warmed up, then measured in ROUNDS rounds that
 * alternate between the validators (so drift in CPU speed hits all alike); the median batch counts.
 */
import { z } from "zod";
import { defineTool } from "../src/tools/define-tool.js";
import { compileToolSchema, validateToolInput } from "../src/tools/validate-tool-input.js";

const BATCH_MS = 60;
const ROUNDS = 9;
const GOAL = 3;

interface BenchTool {
  name: string;
  schema: z.ZodType;
  valid: unknown[];
  invalid: unknown[];
}

const calculator: BenchTool = {
  name: "calculator",
  schema: z.object({
    expression: z.string().min(1).max(500).describe("A math expression, e.g. 47.5*0.15"),
    precision: z.int().min(0).max(20).optional().describe("Significant digits of the result"),
  }),
  valid: [{ expression: "sqrt(16)" }, { expression: "47.5*0.15", precision: 4 }, { expression: "2**10" }],
  invalid: [{}, { expression: 42 }, { expression: "1+1", precision: 2.5 }, { expression: "" }],
};

const createOrder: BenchTool = {
  name: "create_order",
  schema: z.object({
    customer: z.object({
      id: z.string().regex(/^cus_[A-Za-z0-9]{8,}$/),
      email: z.email(),
      vip: z.boolean().optional(),
    }),
    items: z
      .array(
        z.object({
          sku: z.string().min(3).max(32),
          quantity: z.int().min(1).max(99),
          options: z
            .array(z.enum(["engraving", "gift-wrap", "express"]))
            .max(3)
            .optional(),
        }),
      )
      .min(1)
      .max(50),
    shipping: z.object({
      method: z.enum(["standard", "express", "pickup"]),
      address: z
        .object({
          line1: z.string().min(1),
          city: z.string().min(1),
          postcode: z.string().min(3).max(10),
          country: z.string().length(2),
        })
        .optional(),
    }),
    notes: z.string().max(500).optional(),
  }),
  valid: [
    {
      customer: { id: "cus_A1b2C3d4", email: "ana@example.com", vip: true },
      items: [
        { sku: "MUG-001", quantity: 2, options: ["gift-wrap"] },
        { sku: "PEN-042", quantity: 10 },
        { sku: "BOOK-7", quantity: 1, options: ["engraving", "express"] },
      ],
      shipping: {
        method: "express",
        address: { line1: "1 Main St", city: "Lisbon", postcode: "1000-001", country: "PT" },
      },
      notes: "Leave at the door",
    },
    {
      customer: { id: "cus_ZZZZZZZZ", email: "bo@example.org" },
      items: [{ sku: "TEA-100", quantity: 3 }],
      shipping: { method: "pickup" },
    },
  ],
  invalid: [
    {
      customer: { id: "A1b2C3d4", email: "ana@example.com" },
      items: [{ sku: "MUG-001", quantity: 0, options: ["gift wrap"] }],
      shipping: { method: "overnight" },
    },
    { customer: { id: "cus_A1b2C3d4", email: "not-an-email" }, items: [], shipping: { method: "standard" } },
    {
      customer: { id: "cus_A1b2C3d4", email: "ana@example.com" },
      items: [{ sku: "MUG-001", quantity: "2" }],
      shipping: {
        method: "express",
        address: { line1: "1 Main St", city: "Lisbon", postcode: "1000", country: "PRT" },
      },
    },
  ],
};

// Shaped like a BFCL function doc (weather.get_by_coordinates_date): tuple of floats, a date, enums.
const weatherByCoordinates: BenchTool = {
  name: "weather.get_by_coordinates_date",
  schema: z.object({
    coordinates: z
      .tuple([z.number().min(-90).max(90), z.number().min(-180).max(180)])
      .describe("Latitude and longitude"),
    date: z.iso.date().describe("The date, YYYY-MM-DD"),
    units: z.enum(["metric", "imperial"]).optional(),
    include: z.array(z.enum(["temperature", "humidity", "wind", "precipitation"])).optional(),
  }),
  valid: [
    { coordinates: [38.72, -9.14], date: "2024-06-01" },
    {
      coordinates: [-33.87, 151.21],
      date: "2023-12-25",
      units: "imperial",
      include: ["temperature", "wind"],
    },
  ],
  invalid: [
    { coordinates: [38.72], date: "2024-06-01" },
    { coordinates: [120, -9.14], date: "June 1st", units: "kelvin" },
    { coordinates: ["38.72", "-9.14"], date: "2024-06-01", include: ["snow"] },
  ],
};

const getTime: BenchTool = {
  name: "get_time",
  schema: z.object({
    timezone: z.string().min(1).describe("IANA time zone, e.g. Europe/Lisbon"),
    format: z.enum(["full", "date", "time", "iso"]).default("full"),
  }),
  valid: [{ timezone: "Europe/Lisbon" }, { timezone: "America/New_York", format: "iso" }],
  invalid: [{ format: "iso" }, { timezone: "UTC", format: "long" }, { timezone: 0 }],
};

const TOOLS = [calculator, createOrder, weatherByCoordinates, getTime];

type Check = (input: unknown) => boolean;

/** Runs `check` over `inputs` `count` times; returns elapsed ns. Accumulates results so nothing is optimised away. */
let sink = 0;
function runBatch(check: Check, inputs: readonly unknown[], count: number): number {
  const start = process.hrtime.bigint();
  for (let i = 0; i < count; i++) if (check(inputs[i % inputs.length])) sink++;
  return Number(process.hrtime.bigint() - start);
}

function calibrate(check: Check, inputs: readonly unknown[]): number {
  let count = 64;
  while (runBatch(check, inputs, count) < BATCH_MS * 1e6 * 0.5) count *= 2;
  return count;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Median ops/s of each check, measured in alternating batches. */
function compare(checks: readonly Check[], inputs: readonly unknown[]): number[] {
  const counts = checks.map((check) => calibrate(check, inputs));
  for (const [i, check] of checks.entries()) runBatch(check, inputs, counts[i]!); // warm-up at full batch size
  const rates: number[][] = checks.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, check] of checks.entries()) {
      rates[i]!.push(counts[i]! / (runBatch(check, inputs, counts[i]!) / 1e9));
    }
  }
  return rates.map(median);
}

function formatRate(opsPerSecond: number): string {
  return Math.round(opsPerSecond).toLocaleString("en-US").padStart(12);
}

function main(): void {
  const started = Date.now();
  console.log(
    `bench:validate — node ${process.version}, ${ROUNDS} rounds of ~${BATCH_MS} ms per case, median ops/s`,
  );
  console.log(
    "tool".padEnd(32) +
      "inputs".padEnd(8) +
      "ajv".padStart(12) +
      "toolbridge".padStart(12) +
      "zod".padStart(12) +
      "ajv/zod".padStart(9) +
      "tb/zod".padStart(8),
  );
  const ratios = { ajv: [] as number[], toolbridge: [] as number[] };

  for (const benchTool of TOOLS) {
    const definition = defineTool({
      name: benchTool.name,
      inputSchema: benchTool.schema,
      handler: () => "ok",
    });
    const compiled = compileToolSchema(definition.tool.inputSchema);
    const viaAjv: Check = (input) => compiled(input);
    const viaToolbridge: Check = (input) => validateToolInput(definition.tool, input).ok;
    const viaZod: Check = (input) => benchTool.schema.safeParse(input).success;

    for (const kind of ["valid", "invalid"] as const) {
      const inputs = benchTool[kind];
      // All validators must agree on every input, or the comparison would be meaningless.
      for (const input of inputs) {
        const expected = kind === "valid";
        if (viaAjv(input) !== expected || viaToolbridge(input) !== expected || viaZod(input) !== expected) {
          throw new Error(
            `${benchTool.name}: input ${JSON.stringify(input)} should be ${kind} for every validator ` +
              `(toolbridge: ${JSON.stringify(validateToolInput(definition.tool, input))}, zod: ${viaZod(input)})`,
          );
        }
      }
      const [ajvRate, toolbridgeRate, zodRate] = compare([viaAjv, viaToolbridge, viaZod], inputs) as [
        number,
        number,
        number,
      ];
      ratios.ajv.push(ajvRate / zodRate);
      ratios.toolbridge.push(toolbridgeRate / zodRate);
      console.log(
        benchTool.name.padEnd(32) +
          kind.padEnd(8) +
          formatRate(ajvRate) +
          formatRate(toolbridgeRate) +
          formatRate(zodRate) +
          `${(ajvRate / zodRate).toFixed(1)}×`.padStart(9) +
          `${(toolbridgeRate / zodRate).toFixed(1)}×`.padStart(8),
      );
    }
  }

  const geomean = (values: number[]) =>
    Math.exp(values.reduce((sum, v) => sum + Math.log(v), 0) / values.length);
  const summary = (label: string, values: number[]) => {
    const valid = values.filter((_, i) => i % 2 === 0);
    const invalid = values.filter((_, i) => i % 2 === 1);
    const min = Math.min(...values);
    return (
      `${label.padEnd(11)} vs zod: geometric mean ${geomean(values).toFixed(1)}× ` +
      `(valid ${geomean(valid).toFixed(1)}×, invalid ${geomean(invalid).toFixed(1)}×), slowest case ${min.toFixed(1)}× ` +
      `— goal ≥${GOAL}× ${min >= GOAL ? "met in every case" : "not met in every case"}`
    );
  };
  console.log(`\n${summary("ajv", ratios.ajv)}\n${summary("toolbridge", ratios.toolbridge)}`);
  console.log(`done in ${((Date.now() - started) / 1000).toFixed(1)} s (checksum ${sink})`);
}

main();
