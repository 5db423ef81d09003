/**
 * The everyday set (`sets/everyday.jsonl`): requests written by hand the way people type them, independently of the
 * training generator, with what a right call looks like and how to judge the answer. This file reads the set and
 * scores outcomes; eval-model.ts runs it through `toolbridge run`'s own code path.
 *
 * An item's `expect` lists the calls in order (null: no tool is wanted — small talk or an out-of-scope request). An
 * argument's expected value is a JSON value (equal), or a matcher: `{"$oneOf": [...]}`, `{"$contains": [...]}`
 * (a string holding every piece, any case), `{"$regex": "..."}`, `{"$optional": v}` (absent, or matching v).
 * A property the item does not name must be absent or equal to the schema's default, so `limit: 1` on a search is
 * not exact. `"match": "result"` judges a call by what the tool makes of it instead (a calculator expression or a
 * clock time written another way that gives the same result is right: "80 * 0.85" for "80 - 15% of 80").
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export type Matcher =
  | string
  | number
  | boolean
  | null
  | unknown[]
  | { $oneOf: unknown[] }
  | { $contains: string[] }
  | { $regex: string }
  | { $optional: unknown };

export interface ExpectedCall {
  name: string;
  arguments: Record<string, Matcher>;
  match?: "result";
}

export interface EverydayItem {
  id: string;
  group: string;
  request: string;
  /** Earlier exchanges of the same chat: the user's words and the call that answered them. */
  before?: { user: string; call: { name: string; arguments: Record<string, unknown> }; answer?: string }[];
  /** Notes in memory before the request. */
  notes?: { title: string; content: string }[];
  expect: ExpectedCall[] | null;
  /** Text the answer must contain (where the result's own text does not tell). */
  says?: string[];
  /** The tool is meant to fail (an error, or a search that finds nothing): the answer must say so. */
  fails?: boolean;
  /**
   * Tools the model may call first to look something up (today's date before counting the days to Christmas): such
   * leading calls are not held against it, and the expected calls are matched after them.
   */
  mayLookUp?: string[];
}

export const EVERYDAY_SET = fileURLToPath(new URL("sets/everyday.jsonl", import.meta.url));
/** A check set (no goal): everyday requests whose names, places and signs have letters outside ASCII. */
export const OUTSIDE_ASCII_SET = fileURLToPath(new URL("sets/outside-ascii-check.jsonl", import.meta.url));

export function loadJsonLines<T>(file: string): T[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as T);
}

export function loadEverydaySet(file = EVERYDAY_SET): EverydayItem[] {
  return loadJsonLines<EverydayItem>(file);
}

/** A call the model made and what the tool gave back. */
export interface CallOutcome {
  name: string;
  arguments: Record<string, unknown>;
  result?: string;
  isError?: boolean;
}

export interface EverydayOutcome {
  item: EverydayItem;
  calls: CallOutcome[];
  answer: string;
  /** Text of the earlier exchanges the model was shown (user turns, results, answers): where numbers may come from. */
  context: string;
  error?: string;
}

function canonical(v: unknown): string {
  const sort = (x: unknown): unknown =>
    Array.isArray(x)
      ? x.map(sort)
      : x && typeof x === "object"
        ? Object.fromEntries(
            Object.entries(x as Record<string, unknown>)
              .sort(([a], [b]) => (a < b ? -1 : 1))
              .map(([k, w]) => [k, sort(w)]),
          )
        : x;
  return JSON.stringify(sort(v));
}

function isMatcher(m: unknown, key: string): m is Record<string, unknown> {
  return typeof m === "object" && m !== null && !Array.isArray(m) && key in m;
}

/** Whether `value` (undefined: the property is absent) satisfies the matcher. */
export function matches(matcher: unknown, value: unknown): boolean {
  if (isMatcher(matcher, "$optional")) return value === undefined || matches(matcher.$optional, value);
  if (value === undefined) return false;
  if (isMatcher(matcher, "$oneOf")) return (matcher.$oneOf as unknown[]).some((m) => matches(m, value));
  if (isMatcher(matcher, "$contains"))
    return (
      typeof value === "string" &&
      (matcher.$contains as string[]).every((p) => value.toLowerCase().includes(p.toLowerCase()))
    );
  if (isMatcher(matcher, "$regex"))
    return typeof value === "string" && new RegExp(matcher.$regex as string).test(value);
  return canonical(matcher) === canonical(value);
}

/** Schema defaults of a tool's properties, for the properties an item leaves unnamed. */
export type Defaults = Record<string, Record<string, unknown>>;

/**
 * Whether a call's arguments are the expected ones: every named property matches, every other one is absent or the
 * schema's default. (`match: "result"` calls are judged by `sameResult` instead.)
 */
export function argumentsMatch(
  expected: ExpectedCall,
  actual: Record<string, unknown>,
  defaults: Defaults,
): boolean {
  for (const [key, matcher] of Object.entries(expected.arguments))
    if (!matches(matcher, actual[key])) return false;
  const toolDefaults = defaults[expected.name] ?? {};
  for (const [key, value] of Object.entries(actual)) {
    if (key in expected.arguments) continue;
    if (!(key in toolDefaults) || canonical(toolDefaults[key]) !== canonical(value)) return false;
  }
  return true;
}

const FAILURE_WORDS =
  /\b(error|errors|can't|cannot|can not|couldn't|could not|unable|fail|failed|fails|invalid|unknown|not|no|sorry|isn't|wasn't|too many|at most|impossible|undefined|infinite|nothing)\b/i;

const NUMBER = /\d+(?:[.,:]\d+)*/g;

/** A search that found nothing is a failure to answer from, as an error is. */
export function callFailed(call: CallOutcome): boolean {
  return (
    call.isError === true || (call.name === "memory_search" && /^No stored notes/.test(call.result ?? ""))
  );
}

/** What of a successful result the answer must repeat for it to count as stating the result. */
export function resultKeys(call: CallOutcome): string[] {
  const result = (call.result ?? "").trim();
  switch (call.name) {
    case "calculator":
      return [result.split(/\s+/)[0] ?? result];
    case "roll_dice":
      return [/(-?\d+)\s*$/.exec(result)?.[1] ?? result];
    case "get_time": {
      const clock = /\d{1,2}:\d\d\s?[AP]M/.exec(result)?.[0];
      const date = /[A-Z][a-z]+ \d{1,2}(?=, \d{4})/.exec(result)?.[0];
      return [clock ?? date ?? result];
    }
    case "convert_time": {
      const clocks = result.match(/\d{1,2}:\d\d\s?[AP]M/g);
      return [clocks?.at(-1) ?? result];
    }
    case "time_difference": {
      const keys = [/^\d+(?:\.\d+)? \w+/.exec(result)?.[0], /\((\d+(?:\.\d+)? \w+)\)/.exec(result)?.[1]];
      return keys.filter((k): k is string => k !== undefined);
    }
    case "note_save":
      return ["saved", "noted", "note", "remember", "stored", "got it"];
    default:
      return [result];
  }
}

/** Numbers in `answer` that appear nowhere in what the model was given (the request, earlier turns, tool results). */
export function inventedNumbers(answer: string, sources: string): string[] {
  return [...answer.matchAll(NUMBER)].map((m) => m[0]).filter((n) => !sources.includes(n));
}

export interface EverydayVerdict {
  id: string;
  group: string;
  needsTool: boolean;
  rightTool: boolean;
  exactArguments: boolean;
  /** The answer states the result, or the failure (when a call failed). */
  statesOutcome: boolean;
  /** Some call failed (an error, or nothing found). */
  failed: boolean;
  /** After a failure, numbers the answer made up. */
  invented: string[];
  /** Calls made where none was wanted. */
  junkCall: boolean;
  /** Out of scope: the answer says what it can do instead. */
  offersAlternatives: boolean;
}

/**
 * One outcome's verdict. `sameResult(expected, actual)` decides `match: "result"` calls (the eval runs both through
 * the real tool with a fixed clock).
 */
export function judge(
  o: EverydayOutcome,
  defaults: Defaults,
  sameResult: (expected: ExpectedCall, actual: CallOutcome) => boolean,
): EverydayVerdict {
  const { item, answer } = o;
  const expected = item.expect;
  let skip = 0;
  while (
    expected?.[0] &&
    skip < o.calls.length &&
    o.calls[skip]?.name !== expected[0].name &&
    item.mayLookUp?.includes(o.calls[skip]?.name as string)
  )
    skip++;
  const calls = o.calls.slice(skip);
  const failed = calls.some(callFailed);
  const sources = [item.request, o.context, ...o.calls.map((c) => c.result ?? "")].join("\n");
  const verdict: EverydayVerdict = {
    id: item.id,
    group: item.group,
    needsTool: expected !== null,
    rightTool: false,
    exactArguments: false,
    statesOutcome: false,
    failed,
    invented: failed ? inventedNumbers(answer, sources) : [],
    junkCall: expected === null && o.calls.length > 0,
    offersAlternatives:
      expected === null && /\b(math|calculat\w*|dice|roll|time|notes?|remember)\b/i.test(answer),
  };
  if (!expected) return verdict;
  verdict.rightTool = calls[0]?.name === expected[0]?.name;
  verdict.exactArguments =
    calls.length >= expected.length &&
    expected.every((e, i) => {
      const call = calls[i] as CallOutcome;
      if (call.name !== e.name) return false;
      return e.match === "result" ? sameResult(e, call) : argumentsMatch(e, call.arguments, defaults);
    });
  // A result of the wrong tool answers another question: only the right tool's outcome can be stated.
  if (!verdict.rightTool || o.error) return verdict;
  const lower = answer.toLowerCase();
  if (failed) verdict.statesOutcome = FAILURE_WORDS.test(answer) && verdict.invented.length === 0;
  else if (item.says) verdict.statesOutcome = item.says.every((s) => lower.includes(s.toLowerCase()));
  else
    verdict.statesOutcome = calls.every((c) =>
      resultKeys(c).some((k) => k !== "" && lower.includes(k.toLowerCase())),
    );
  return verdict;
}

export interface EverydayFigures {
  items: number;
  toolItems: number;
  rightTool: number;
  exactArguments: number;
  statesOutcome: number;
  failedItems: number;
  inventedAfterFailure: number;
  noToolItems: number;
  outOfScopeItems: number;
  junkCalls: number;
  junkCallsOutOfScope: number;
  offersAlternatives: number;
}

export function summarize(verdicts: readonly EverydayVerdict[]): EverydayFigures {
  const f: EverydayFigures = {
    items: verdicts.length,
    toolItems: 0,
    rightTool: 0,
    exactArguments: 0,
    statesOutcome: 0,
    failedItems: 0,
    inventedAfterFailure: 0,
    noToolItems: 0,
    outOfScopeItems: 0,
    junkCalls: 0,
    junkCallsOutOfScope: 0,
    offersAlternatives: 0,
  };
  for (const v of verdicts) {
    if (v.failed) {
      f.failedItems++;
      if (v.invented.length) f.inventedAfterFailure++;
    }
    if (!v.needsTool) {
      f.noToolItems++;
      if (v.junkCall) f.junkCalls++;
      if (v.group === "out-of-scope") {
        f.outOfScopeItems++;
        if (v.junkCall) f.junkCallsOutOfScope++;
        if (v.offersAlternatives) f.offersAlternatives++;
      }
      continue;
    }
    f.toolItems++;
    if (v.rightTool) f.rightTool++;
    if (v.exactArguments) f.exactArguments++;
    if (v.statesOutcome) f.statesOutcome++;
  }
  return f;
}

/** The acceptance goals for the everyday set. */
export function everydayGoalsMet(f: EverydayFigures): boolean {
  return (
    f.rightTool >= 0.9 * f.toolItems &&
    f.exactArguments >= 0.85 * f.toolItems &&
    f.statesOutcome >= 0.9 * f.toolItems &&
    f.inventedAfterFailure === 0 &&
    f.junkCallsOutOfScope === 0
  );
}
