/**
 * Acceptance for BFCL schema conversion (issue 2): every function doc of the BFCL v4 files converts to a
 * JSON Schema that compiles under draft-07 and 2020-12, and every ground-truth call validates against its
 * function's schema, except the entries that data/bfcl/known_issues.json lists — and those only when
 * they fail on the param and for the reason it gives.
 */
import type { Tool } from "@modelcontextprotocol/server";
import { Ajv, type ErrorObject } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { describe, expect, it } from "vitest";
import { convertBfclFunctionToTool } from "../src/tools/bfcl-schema.js";
import { compileToolSchema } from "../src/tools/validate-tool-input.js";
import {
  type BfclCategory,
  type BfclKnownIssue,
  groundTruthCalls,
  loadBfclCategory,
  loadBfclKnownIssues,
} from "./helpers/bfcl.js";

type AddFormats = (ajv: Ajv | Ajv2020) => unknown;
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ??
  addFormatsModule) as unknown as AddFormats;

const DRAFT_07 = "http://json-schema.org/draft-07/schema#";

/** The project's validator picks the dialect from `$schema`; no `$schema` means 2020-12. */
function projectValidators(tool: Tool) {
  return {
    draft2020: compileToolSchema(tool.inputSchema, `${tool.name} (2020-12)`),
    draft07: compileToolSchema({ $schema: DRAFT_07, ...tool.inputSchema }, `${tool.name} (draft-07)`),
  };
}

// Stricter than the project's own setup (strict: false), to show that no validator chokes on the output:
// unknown keywords, keywords on the wrong type and unknown formats are all compile errors here.
// strictRequired stays off because BFCL's parallel_29 requires keys of a free-form dict (kept on purpose).
const strictOptions = { strict: true, strictRequired: false, allErrors: true } as const;
const strictAjvs = [new Ajv(strictOptions), new Ajv2020(strictOptions)];
for (const ajv of strictAjvs) addFormats(ajv);

function compileEverywhere(tool: Tool): void {
  projectValidators(tool);
  for (const ajv of strictAjvs) ajv.compile(tool.inputSchema);
}

/** The top-level params an ajv error is about. */
function paramsOf(errors: readonly ErrorObject[]): string[] {
  return errors.map((error) => {
    const p = error.params as Record<string, unknown>;
    if (error.instancePath === "" && error.keyword === "required") return String(p.missingProperty);
    if (error.instancePath === "" && error.keyword === "additionalProperties")
      return String(p.additionalProperty);
    return error.instancePath.split("/")[1] ?? "";
  });
}

/** id → listed params, for the known issues that say a ground-truth call does not fit its schema. */
function schemaExclusions(): Map<string, { params: Set<string>; reason: string }> {
  const issues = loadBfclKnownIssues();
  const relevant: Array<[BfclKnownIssue, string]> = [
    ...issues.checker_inconsistent
      .filter((i) => i.kind === "required_but_empty_marker" || i.kind === "gt_param_not_in_doc")
      .map((i): [BfclKnownIssue, string] => [i, i.kind!]),
    ...issues.schema_invalid_ground_truth.no_valid_candidate.map((i): [BfclKnownIssue, string] => [
      i,
      "no_valid_candidate",
    ]),
    ...issues.schema_invalid_ground_truth.some_candidate.map((i): [BfclKnownIssue, string] => [
      i,
      "some_candidate",
    ]),
  ];
  const byId = new Map<string, { params: Set<string>; reason: string }>();
  for (const [issue, reason] of relevant) {
    const slot = byId.get(issue.id) ?? { params: new Set<string>(), reason };
    for (const param of issue.param.split(",")) slot.params.add(param.trim());
    if (!slot.reason.includes(reason)) slot.reason += `+${reason}`;
    byId.set(issue.id, slot);
  }
  return byId;
}

const VALIDATED: BfclCategory[] = ["simple_python", "multiple", "parallel", "parallel_multiple"];
const COMPILE_ONLY: BfclCategory[] = ["simple_java", "simple_javascript", "irrelevance"];

describe("BFCL v4 function docs → JSON Schema", () => {
  const exclusions = schemaExclusions();

  it.each(VALIDATED)("%s: schemas compile and ground-truth calls validate", (category) => {
    const cases = loadBfclCategory(category);
    let valid = 0;
    let calls = 0;
    let schemas = 0;
    const excludedFailing: string[] = [];
    const unexpected: string[] = [];

    for (const bfclCase of cases) {
      const tools = new Map(bfclCase.entry.function.map((doc) => [doc.name, convertBfclFunctionToTool(doc)]));
      for (const tool of tools.values()) compileEverywhere(tool);
      schemas += tools.size;

      const failures: string[] = [];
      const failingParams = new Set<string>();
      for (const call of groundTruthCalls(bfclCase)) {
        calls++;
        const { draft2020, draft07 } = projectValidators(tools.get(call.name)!);
        const ok2020 = draft2020(call.arguments);
        const ok07 = draft07(call.arguments);
        // The converter's promise is that both dialects read its output the same way.
        expect(ok07, `${bfclCase.entry.id}: draft-07 and 2020-12 disagree`).toBe(ok2020);
        if (!ok2020) {
          const errors = draft2020.errors ?? [];
          for (const param of paramsOf(errors)) failingParams.add(param);
          failures.push(`${call.name}(${JSON.stringify(call.arguments)}): ${JSON.stringify(errors)}`);
        }
      }
      if (failures.length === 0) {
        valid++;
        continue;
      }
      const known = exclusions.get(bfclCase.entry.id);
      const explained = known !== undefined && [...failingParams].every((p) => known.params.has(p));
      if (explained)
        excludedFailing.push(`${bfclCase.entry.id} (${[...failingParams].join(", ")}: ${known.reason})`);
      else unexpected.push(`${bfclCase.entry.id}: ${failures.join("; ")}`);
    }

    console.log(
      `BFCL ${category}: ${valid}/${cases.length} entries valid (${calls} ground-truth calls, ${schemas} schemas ` +
        `compiled in draft-07 + 2020-12); excluded by known_issues.json: ${excludedFailing.length}` +
        (excludedFailing.length > 0 ? ` — ${excludedFailing.join("; ")}` : ""),
    );
    expect(unexpected).toEqual([]);
    expect(valid).toBe(cases.length - excludedFailing.length);
  });

  it('the required-but-"" entries of known_issues.json are caught as missing a required param', () => {
    // Omitting every param whose candidates include "" must trip `required` exactly where the file says so;
    // this proves the validation above can fail.
    const flagged = loadBfclKnownIssues().checker_inconsistent.filter(
      (i) => i.kind === "required_but_empty_marker",
    );
    expect(flagged.length).toBeGreaterThan(0);
    for (const issue of flagged) {
      const category = issue.id.replace(/_\d+$/, "") as BfclCategory;
      const bfclCase = loadBfclCategory(category).find((c) => c.entry.id === issue.id)!;
      const missing = groundTruthCalls(bfclCase).flatMap((call) => {
        const { draft2020 } = projectValidators(convertBfclFunctionToTool(call.doc));
        return draft2020(call.arguments) ? [] : paramsOf(draft2020.errors ?? []);
      });
      expect(missing, issue.id).toContain(issue.param);
    }
  });

  it.each(COMPILE_ONLY)("%s: every function doc converts and compiles", (category) => {
    // Java/JS values are not validated: BFCL sends them as source-text strings, not JSON values.
    const cases = loadBfclCategory(category);
    let schemas = 0;
    for (const { entry } of cases) {
      for (const doc of entry.function) {
        compileEverywhere(convertBfclFunctionToTool(doc));
        schemas++;
      }
    }
    console.log(
      `BFCL ${category}: ${schemas} schemas from ${cases.length} entries compiled in draft-07 + 2020-12`,
    );
    expect(schemas).toBeGreaterThanOrEqual(cases.length);
  });
});
