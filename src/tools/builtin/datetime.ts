import type { CallToolResult } from "@modelcontextprotocol/server";
import { defineTool } from "../define-tool.js";
import { errorResult } from "../normalize-tool-result.js";
import type { AnyToolDefinition } from "../tool-definition.js";
import { resolveTimeZone, TIME_ZONE_FORMAT, UnknownTimeZoneError } from "./resolve-time-zone.js";

export interface DateTimeToolsOptions {
  /** The clock, for deterministic tests. Default: the system clock. */
  now?: () => Date | number;
}

export type TimeFormat = "full" | "date" | "time" | "iso";
const FORMATS: TimeFormat[] = ["full", "date", "time", "iso"];
export type DifferenceUnit = "seconds" | "minutes" | "hours" | "days" | "weeks";
const UNITS: DifferenceUnit[] = ["seconds", "minutes", "hours", "days", "weeks"];

const MS = {
  seconds: 1000,
  minutes: 60_000,
  hours: 3_600_000,
  days: 86_400_000,
  weeks: 604_800_000,
} as const;

class DateTimeInputError extends Error {
  override name = "DateTimeInputError";
}

/** Wall-clock fields of an instant in a zone. */
interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const partsFormatters = new Map<string, Intl.DateTimeFormat>();

function wallTimeOf(instant: number, timeZone: string): WallTime {
  let formatter = partsFormatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    partsFormatters.set(timeZone, formatter);
  }
  const fields: Record<string, number> = {};
  for (const part of formatter.formatToParts(instant)) {
    if (part.type !== "literal") fields[part.type] = Number(part.value);
  }
  return {
    year: fields.year ?? 1970,
    month: fields.month ?? 1,
    day: fields.day ?? 1,
    hour: fields.hour ?? 0,
    minute: fields.minute ?? 0,
    second: fields.second ?? 0,
  };
}

function wallAsUtc(wall: WallTime): number {
  return Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);
}

/** Offset of the zone from UTC at an instant, in milliseconds (whole seconds; sub-second parts are ignored). */
function offsetAt(instant: number, timeZone: string): number {
  const whole = Math.floor(instant / 1000) * 1000;
  return wallAsUtc(wallTimeOf(whole, timeZone)) - whole;
}

function sameWall(a: WallTime, b: WallTime): boolean {
  return (
    a.year === b.year &&
    a.month === b.month &&
    a.day === b.day &&
    a.hour === b.hour &&
    a.minute === b.minute &&
    a.second === b.second
  );
}

export interface ResolvedWallTime {
  instant: number;
  /** Set when the wall time was skipped (DST gap) or happened twice (DST overlap). */
  note?: string;
}

/**
 * The instant at which a zone's clocks show `wall`. In a DST gap (02:30 on a spring-forward night) the time is moved
 * forward by the gap; in an overlap (01:30 on a fall-back night) the earlier of the two instants is used. Either
 * case comes with a note.
 */
export function instantFromWallTime(wall: WallTime, timeZone: string): ResolvedWallTime {
  const asUtc = wallAsUtc(wall);
  const offsets = new Set([offsetAt(asUtc - MS.days, timeZone), offsetAt(asUtc + MS.days, timeZone)]);
  const matches = [...offsets]
    .map((offset) => asUtc - offset)
    .filter((instant) => sameWall(wallTimeOf(instant, timeZone), wall))
    .sort((a, b) => a - b);
  const first = matches[0];
  if (first !== undefined && matches.length === 1) return { instant: first };
  if (first !== undefined) {
    return {
      instant: first,
      note: `${formatWall(wall)} happens twice in ${timeZone} (clocks go back); the earlier one is used.`,
    };
  }
  const before = offsetAt(asUtc - MS.days, timeZone);
  return {
    instant: asUtc - before,
    note: `${formatWall(wall)} does not exist in ${timeZone} (clocks go forward); it was moved forward by the gap.`,
  };
}

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

function formatWall(wall: WallTime): string {
  return `${wall.year}-${pad(wall.month)}-${pad(wall.day)} ${pad(wall.hour)}:${pad(wall.minute)}`;
}

function offsetText(offsetMs: number): string {
  const sign = offsetMs < 0 ? "-" : "+";
  const minutes = Math.round(Math.abs(offsetMs) / 60_000);
  return `${sign}${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`;
}

/** ISO 8601 local time with offset: 2025-01-15T23:30:00+09:00 (UTC ends in Z). */
function isoInZone(instant: number, timeZone: string): string {
  const wall = wallTimeOf(instant, timeZone);
  const offset = offsetAt(instant, timeZone);
  const local = `${wall.year}-${pad(wall.month)}-${pad(wall.day)}T${pad(wall.hour)}:${pad(wall.minute)}:${pad(wall.second)}`;
  return `${local}${timeZone === "UTC" ? "Z" : offsetText(offset)}`;
}

function zoneAbbreviation(instant: number, timeZone: string): string {
  const parts = new Intl.DateTimeFormat("en-US", { timeZone, timeZoneName: "short" }).formatToParts(instant);
  return parts.find((part) => part.type === "timeZoneName")?.value ?? timeZone;
}

/** `full`: Saturday, January 15, 2025 at 11:30 PM PST; `date`: Saturday, January 15, 2025; `time`: 11:30 PM PST. */
export function formatInstant(instant: number, timeZone: string, format: TimeFormat): string {
  if (format === "iso") return isoInZone(instant, timeZone);
  const abbreviation = zoneAbbreviation(instant, timeZone);
  if (format === "date") {
    return new Intl.DateTimeFormat("en-US", { timeZone, dateStyle: "full" }).format(instant);
  }
  if (format === "time") {
    return `${new Intl.DateTimeFormat("en-US", { timeZone, timeStyle: "short" }).format(instant)} ${abbreviation}`;
  }
  const text = new Intl.DateTimeFormat("en-US", { timeZone, dateStyle: "full", timeStyle: "short" }).format(
    instant,
  );
  return `${text} ${abbreviation}`;
}

const ISO_PATTERN =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;
const CLOCK_PATTERN = /^(\d{1,2}):(\d{2})(?::(\d{2}))?\s*([ap])?\.?\s*(m\.?)?$/i;

type ParsedTime = { kind: "instant"; instant: number } | { kind: "wall"; wall: WallTime; dateGiven: boolean };

function checkWall(wall: WallTime, input: string): WallTime {
  const back = new Date(wallAsUtc(wall));
  const valid =
    wall.month >= 1 &&
    wall.month <= 12 &&
    back.getUTCDate() === wall.day &&
    back.getUTCMonth() === wall.month - 1 &&
    wall.hour <= 23 &&
    wall.minute <= 59 &&
    wall.second <= 59;
  if (!valid) throw new DateTimeInputError(`"${input}" is not a valid date or time.`);
  return wall;
}

function parseOffset(text: string): number {
  if (text.toUpperCase() === "Z") return 0;
  const sign = text.startsWith("-") ? -1 : 1;
  const digits = text.slice(1).replace(":", "");
  const hours = Number(digits.slice(0, 2));
  const minutes = Number(digits.slice(2) || "0");
  return sign * (hours * 60 + minutes) * 60_000;
}

/** ISO 8601 (with or without offset) or a clock time "HH:MM", "9:30 PM". */
function parseTime(input: string): ParsedTime {
  const text = input.trim();
  const iso = ISO_PATTERN.exec(text);
  if (iso) {
    const [, y, mo, d, h, mi, s, fraction, offset] = iso;
    const wall = checkWall(
      {
        year: Number(y),
        month: Number(mo),
        day: Number(d),
        hour: Number(h ?? 0),
        minute: Number(mi ?? 0),
        second: Number(s ?? 0),
      },
      text,
    );
    if (offset) {
      const ms = fraction ? Number(fraction.slice(0, 3).padEnd(3, "0")) : 0;
      return { kind: "instant", instant: wallAsUtc(wall) + ms - parseOffset(offset) };
    }
    return { kind: "wall", wall, dateGiven: true };
  }
  const clock = CLOCK_PATTERN.exec(text);
  if (clock) {
    const [, h, mi, s, meridiem] = clock;
    let hour = Number(h);
    if (meridiem) {
      if (hour < 1 || hour > 12) throw new DateTimeInputError(`"${input}" is not a valid 12-hour time.`);
      hour = (hour % 12) + (meridiem.toLowerCase() === "p" ? 12 : 0);
    }
    const wall = { year: 2000, month: 1, day: 1, hour, minute: Number(mi), second: Number(s ?? 0) };
    return { kind: "wall", wall: checkWall(wall, text), dateGiven: false };
  }
  throw new DateTimeInputError(
    `Cannot read the time "${input}". Use ISO 8601 ("2025-03-10T09:00", "2025-03-10T09:00:00Z") or a clock time ("14:30", "2:30 PM").`,
  );
}

/** An instant for time_difference: ISO instant, ISO date/time without offset (read as UTC), or "now". */
function parseInstant(input: string, now: number): { instant: number; assumedUtc: boolean } {
  if (input.trim().toLowerCase() === "now") return { instant: now, assumedUtc: false };
  const parsed = parseTime(input);
  if (parsed.kind === "instant") return { instant: parsed.instant, assumedUtc: false };
  if (!parsed.dateGiven) {
    throw new DateTimeInputError(
      `"${input}" has no date. Use an ISO 8601 date or instant, e.g. "2025-03-10" or "2025-03-10T09:00:00Z".`,
    );
  }
  return { instant: wallAsUtc(parsed.wall), assumedUtc: true };
}

function plural(n: number, unit: string): string {
  return `${n} ${n === 1 ? unit.replace(/s$/, "") : unit}`;
}

/** "3 days, 4 hours, 5 minutes" — largest units first, zero parts left out. */
export function describeDuration(ms: number): string {
  let rest = Math.floor(Math.abs(ms) / 1000);
  const parts: string[] = [];
  for (const [unit, size] of [
    ["days", 86_400],
    ["hours", 3600],
    ["minutes", 60],
    ["seconds", 1],
  ] as const) {
    const count = Math.floor(rest / size);
    rest -= count * size;
    if (count > 0) parts.push(plural(count, unit));
  }
  return parts.length > 0 ? parts.join(", ") : "0 seconds";
}

function pickUnit(ms: number): DifferenceUnit {
  const abs = Math.abs(ms);
  if (abs >= MS.days) return "days";
  if (abs >= MS.hours) return "hours";
  if (abs >= MS.minutes) return "minutes";
  return "seconds";
}

function round(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}

function zoneProperty(description: string) {
  return { type: "string", format: TIME_ZONE_FORMAT, description } as const;
}

function failure(error: unknown): CallToolResult {
  if (error instanceof DateTimeInputError || error instanceof UnknownTimeZoneError)
    return errorResult(error.message);
  throw error;
}

/** The date/time tools: `get_time`, `convert_time` and `time_difference`. */
export function createDateTimeTools(options: DateTimeToolsOptions = {}): AnyToolDefinition[] {
  const now = (): number => {
    const value = options.now ? options.now() : Date.now();
    return typeof value === "number" ? value : value.getTime();
  };
  const formatProperty = {
    type: "string",
    enum: FORMATS,
    default: "full",
    description:
      'How to write the time: "full" (Saturday, January 15, 2025 at 11:30 PM PST), "date" (Saturday, January 15, 2025), "time" (11:30 PM PST) or "iso" (2025-01-15T23:30:00-08:00).',
  } as const;

  const getTime = defineTool<{ timezone?: string; format?: TimeFormat }>({
    name: "get_time",
    title: "Current time",
    description:
      "Get the current date and time in a time zone. Use it whenever the answer depends on today's date or the time now.",
    inputSchema: {
      type: "object",
      properties: {
        timezone: zoneProperty(
          'IANA time zone name, e.g. "UTC", "America/New_York", "Europe/London", "Asia/Tokyo". Default "UTC".',
        ),
        format: formatProperty,
      },
      additionalProperties: false,
    },
    annotations: { title: "Current time", readOnlyHint: true, openWorldHint: false },
    category: "time",
    handler: ({ timezone, format }): CallToolResult => {
      try {
        const zone = resolveTimeZone(timezone ?? "UTC");
        const instant = now();
        const text = formatInstant(instant, zone, format ?? "full");
        return {
          content: [{ type: "text", text }],
          structuredContent: {
            timezone: zone,
            formatted: text,
            iso: isoInZone(instant, zone),
            utc: new Date(instant).toISOString(),
          },
        };
      } catch (error) {
        return failure(error);
      }
    },
  });

  const convertTime = defineTool<{
    time: string;
    from_timezone: string;
    to_timezone: string;
    format?: TimeFormat;
  }>({
    name: "convert_time",
    title: "Convert time between zones",
    description:
      'Convert a date/time from one time zone to another, with daylight saving time handled. Example: time "2025-03-10T09:00", from_timezone "America/New_York", to_timezone "Asia/Tokyo". A clock time like "14:30" means today in from_timezone.',
    inputSchema: {
      type: "object",
      properties: {
        time: {
          type: "string",
          description:
            'The local time in from_timezone: ISO 8601 without offset ("2025-03-10T09:00"), a clock time ("14:30", "2:30 PM"), or an instant with offset ("2025-03-10T14:00:00Z").',
        },
        from_timezone: zoneProperty('IANA zone the time is written in, e.g. "America/New_York".'),
        to_timezone: zoneProperty('IANA zone to convert to, e.g. "Asia/Tokyo".'),
        format: formatProperty,
      },
      required: ["time", "from_timezone", "to_timezone"],
      additionalProperties: false,
    },
    annotations: { title: "Convert time between zones", readOnlyHint: true, openWorldHint: false },
    category: "time",
    handler: ({ time, from_timezone, to_timezone, format }): CallToolResult => {
      try {
        const from = resolveTimeZone(from_timezone);
        const to = resolveTimeZone(to_timezone);
        const parsed = parseTime(time);
        let instant: number;
        let note: string | undefined;
        if (parsed.kind === "instant") {
          instant = parsed.instant;
        } else {
          let wall = parsed.wall;
          if (!parsed.dateGiven) {
            const today = wallTimeOf(now(), from);
            wall = { ...wall, year: today.year, month: today.month, day: today.day };
          }
          ({ instant, note } = instantFromWallTime(wall, from));
        }
        const style = format ?? "full";
        const fromText = formatInstant(instant, from, style);
        const toText = formatInstant(instant, to, style);
        const text = `${fromText} (${from}) is ${toText} (${to}).${note ? ` Note: ${note}` : ""}`;
        const structured: Record<string, unknown> = {
          from: { timezone: from, formatted: fromText, iso: isoInZone(instant, from) },
          to: { timezone: to, formatted: toText, iso: isoInZone(instant, to) },
          utc: new Date(instant).toISOString(),
        };
        if (note) structured.note = note;
        return { content: [{ type: "text", text }], structuredContent: structured };
      } catch (error) {
        return failure(error);
      }
    },
  });

  const timeDifference = defineTool<{ from: string; to: string; unit?: DifferenceUnit }>({
    name: "time_difference",
    title: "Time between two dates",
    description:
      'How much time lies between two instants or dates, e.g. from "2025-01-01" to "2025-03-10T12:00:00Z" → "68 days, 12 hours". Dates and times without an offset are read as UTC; "now" is accepted.',
    inputSchema: {
      type: "object",
      properties: {
        from: {
          type: "string",
          description:
            'Start: ISO 8601 date or instant ("2025-01-01", "2025-01-01T09:00:00-05:00") or "now".',
        },
        to: { type: "string", description: 'End: ISO 8601 date or instant, or "now".' },
        unit: {
          type: "string",
          enum: UNITS,
          description: "Unit for the total, besides the breakdown. Default: the largest unit that fits.",
        },
      },
      required: ["from", "to"],
      additionalProperties: false,
    },
    annotations: { title: "Time between two dates", readOnlyHint: true, openWorldHint: false },
    category: "time",
    handler: ({ from, to, unit }): CallToolResult => {
      try {
        const clock = now();
        const start = parseInstant(from, clock);
        const end = parseInstant(to, clock);
        const ms = end.instant - start.instant;
        const chosen = unit ?? pickUnit(ms);
        const value = round(ms / MS[chosen]);
        const breakdown = describeDuration(ms);
        const direction = ms < 0 ? " (the end is before the start)" : "";
        const total = `${value} ${Math.abs(value) === 1 ? chosen.replace(/s$/, "") : chosen}`;
        const assumed =
          start.assumedUtc || end.assumedUtc ? " Times without an offset were read as UTC." : "";
        const text = `${breakdown} (${total})${direction}.${assumed}`;
        return {
          content: [{ type: "text", text }],
          structuredContent: {
            from: new Date(start.instant).toISOString(),
            to: new Date(end.instant).toISOString(),
            milliseconds: ms,
            unit: chosen,
            value,
            breakdown,
          },
        };
      } catch (error) {
        return failure(error);
      }
    },
  });

  return [getTime, convertTime, timeDifference];
}
