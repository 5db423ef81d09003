import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Tool } from "@modelcontextprotocol/server";

export interface ProtocolFixture {
  id: string;
  format: string;
  text: string;
  tools?: Tool[];
  prefix?: string;
  /** The robustness class of issue 17 the case belongs to (test/protocols/robustness-classes.test.ts). */
  class?: number;
  expected: {
    calls: { name: string; arguments: Record<string, unknown> }[];
    content: string;
    reasoning: string;
    errors: number;
    truncated?: boolean;
  };
}

export const FIXTURE_DIR = join(import.meta.dirname, "..", "fixtures", "protocols");

/** Every `<format>.jsonl` corpus file, so formats added later are picked up without touching the tests. */
export function loadProtocolFixtures(): Map<string, ProtocolFixture[]> {
  const byFile = new Map<string, ProtocolFixture[]>();
  for (const file of readdirSync(FIXTURE_DIR)
    .filter((f) => f.endsWith(".jsonl"))
    .sort()) {
    const lines = readFileSync(join(FIXTURE_DIR, file), "utf8")
      .split("\n")
      .filter((l) => l.trim() !== "");
    byFile.set(
      file.replace(/\.jsonl$/, ""),
      lines.map((l) => JSON.parse(l) as ProtocolFixture),
    );
  }
  return byFile;
}
