import { describe, expect, it } from "vitest";
import { resultText } from "../normalize-tool-result.js";
import { ToolExecutor } from "../tool-executor.js";
import { ToolRegistry } from "../tool-registry.js";
import { createDateTimeTools } from "./datetime.js";
import { resolveTimeZone, TIME_ZONE_FORMAT, timeZoneNames } from "./resolve-time-zone.js";

// 2025-01-15 14:30 UTC: 23:30 in Tokyo, 09:30 in New York (EST), 06:30 in Los Angeles.
const NOW = Date.UTC(2025, 0, 15, 14, 30, 0);

function executorAt(now: number = NOW): ToolExecutor {
  const registry = new ToolRegistry();
  registry.registerAll(createDateTimeTools({ now: () => new Date(now) }));
  return new ToolExecutor(registry, { redact: false });
}

const executor = executorAt();
const call = (name: string, args: Record<string, unknown>) => executor.call(name, args);

describe("get_time", () => {
  it("formats the current time in a zone, like reference 004", async () => {
    const result = await call("get_time", { timezone: "Asia/Tokyo" });
    expect(result.isError).toBeFalsy();
    expect(resultText(result)).toBe("Wednesday, January 15, 2025 at 11:30 PM GMT+9");
    expect(result.structuredContent).toMatchObject({
      timezone: "Asia/Tokyo",
      iso: "2025-01-15T23:30:00+09:00",
      utc: "2025-01-15T14:30:00.000Z",
    });
  });

  it("defaults to UTC and the full format", async () => {
    expect(resultText(await call("get_time", {}))).toBe("Wednesday, January 15, 2025 at 2:30 PM UTC");
  });

  it.each([
    ["full", "America/New_York", "Wednesday, January 15, 2025 at 9:30 AM EST"],
    ["date", "America/New_York", "Wednesday, January 15, 2025"],
    ["time", "America/Los_Angeles", "6:30 AM PST"],
    ["iso", "America/Los_Angeles", "2025-01-15T06:30:00-08:00"],
    ["iso", "Asia/Kolkata", "2025-01-15T20:00:00+05:30"],
    ["iso", "UTC", "2025-01-15T14:30:00Z"],
    ["date", "Pacific/Kiritimati", "Thursday, January 16, 2025"],
  ])("format %s in %s", async (format, timezone, expected) => {
    expect(resultText(await call("get_time", { timezone, format }))).toBe(expected);
  });

  it("accepts names in any case, city names and common abbreviations", async () => {
    for (const timezone of ["asia/tokyo", "Tokyo", "JST"]) {
      const result = await call("get_time", { timezone, format: "iso" });
      expect(resultText(result), timezone).toBe("2025-01-15T23:30:00+09:00");
    }
    expect(resolveTimeZone("new york")).toBe("America/New_York");
    expect(resolveTimeZone("PST")).toBe("America/Los_Angeles");
    expect(resolveTimeZone("gmt")).toBe("UTC");
    expect(resolveTimeZone("Etc/UTC")).toBe("UTC");
    expect(resolveTimeZone("US/Eastern")).toBe("US/Eastern");
  });

  it("reports summer time after the DST change", async () => {
    const july = executorAt(Date.UTC(2025, 6, 1, 12, 0, 0));
    expect(resultText(await july.call("get_time", { timezone: "America/New_York", format: "time" }))).toBe(
      "8:00 AM EDT",
    );
    expect(resultText(await july.call("get_time", { timezone: "Europe/London", format: "iso" }))).toBe(
      "2025-07-01T13:00:00+01:00",
    );
  });

  it("suggests close matches for an unknown zone", async () => {
    const result = await call("get_time", { timezone: "Asia/Tokio" });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(/^Unknown time zone "Asia\/Tokio"\. Did you mean Asia\/Tokyo/);
    const mars = await call("get_time", { timezone: "Mars/Olympus_Mons" });
    expect(mars.isError).toBe(true);
    expect(resultText(mars)).toMatch(/Unknown time zone "Mars\/Olympus_Mons"/);
  });

  it("rejects an unknown format through the schema", async () => {
    const result = await call("get_time", { format: "long" });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(/format.*one of "full", "date", "time", "iso"/);
  });
});

describe("convert_time", () => {
  it("converts a local time between zones", async () => {
    const result = await call("convert_time", {
      time: "2025-03-10T09:00",
      from_timezone: "America/New_York",
      to_timezone: "Asia/Tokyo",
    });
    expect(resultText(result)).toBe(
      "Monday, March 10, 2025 at 9:00 AM EDT (America/New_York) is Monday, March 10, 2025 at 10:00 PM GMT+9 (Asia/Tokyo).",
    );
    expect(result.structuredContent).toMatchObject({ utc: "2025-03-10T13:00:00.000Z" });
  });

  it("uses the offset in force on that date (before and after DST)", async () => {
    const before = await call("convert_time", {
      time: "2025-03-08T09:00",
      from_timezone: "America/New_York",
      to_timezone: "UTC",
      format: "iso",
    });
    expect(resultText(before)).toBe(
      "2025-03-08T09:00:00-05:00 (America/New_York) is 2025-03-08T14:00:00Z (UTC).",
    );
    const after = await call("convert_time", {
      time: "2025-03-10T09:00",
      from_timezone: "America/New_York",
      to_timezone: "Europe/London",
      format: "iso",
    });
    // New York is already on summer time, London not yet: 4 hours apart that week instead of 5.
    expect(resultText(after)).toBe(
      "2025-03-10T09:00:00-04:00 (America/New_York) is 2025-03-10T13:00:00+00:00 (Europe/London).",
    );
  });

  it("moves a time in the spring-forward gap forward and says so", async () => {
    const result = await call("convert_time", {
      time: "2025-03-09T02:30",
      from_timezone: "America/New_York",
      to_timezone: "UTC",
      format: "iso",
    });
    expect(resultText(result)).toMatch(
      /^2025-03-09T03:30:00-04:00 \(America\/New_York\) is 2025-03-09T07:30:00Z/,
    );
    expect(resultText(result)).toMatch(/does not exist/);
  });

  it("takes the earlier of two instants in the fall-back overlap and says so", async () => {
    const result = await call("convert_time", {
      time: "2025-11-02T01:30",
      from_timezone: "America/New_York",
      to_timezone: "UTC",
      format: "iso",
    });
    expect(resultText(result)).toMatch(
      /^2025-11-02T01:30:00-04:00 \(America\/New_York\) is 2025-11-02T05:30:00Z/,
    );
    expect(resultText(result)).toMatch(/happens twice/);
  });

  it("reads a clock time as today in the source zone", async () => {
    const result = await call("convert_time", {
      time: "2:30 PM",
      from_timezone: "Europe/Paris",
      to_timezone: "America/Los_Angeles",
      format: "iso",
    });
    expect(resultText(result)).toBe(
      "2025-01-15T14:30:00+01:00 (Europe/Paris) is 2025-01-15T05:30:00-08:00 (America/Los_Angeles).",
    );
  });

  it("treats a time with an offset as an instant", async () => {
    const result = await call("convert_time", {
      time: "2025-01-15T14:30:00Z",
      from_timezone: "UTC",
      to_timezone: "Australia/Sydney",
      format: "iso",
    });
    expect(resultText(result)).toContain("is 2025-01-16T01:30:00+11:00 (Australia/Sydney)");
  });

  it.each([
    [{ time: "25:00", from_timezone: "UTC", to_timezone: "UTC" }, /not a valid date or time/],
    [{ time: "2025-02-30T10:00", from_timezone: "UTC", to_timezone: "UTC" }, /not a valid date or time/],
    [{ time: "tomorrow at noon", from_timezone: "UTC", to_timezone: "UTC" }, /Cannot read the time/],
    [{ time: "10:00", from_timezone: "Europe/Pariss", to_timezone: "UTC" }, /Did you mean Europe\/Paris/],
    [{ time: "10:00", from_timezone: "UTC" }, /to_timezone.*required/],
  ])("rejects bad input %j", async (args, message) => {
    const result = await call("convert_time", args);
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(message);
  });
});

describe("time_difference", () => {
  it("gives a breakdown and a total in the largest fitting unit", async () => {
    const result = await call("time_difference", {
      from: "2025-01-01T00:00:00Z",
      to: "2025-01-04T04:00:00Z",
    });
    expect(resultText(result)).toBe("3 days, 4 hours (3.1667 days).");
    expect(result.structuredContent).toEqual({
      from: "2025-01-01T00:00:00.000Z",
      to: "2025-01-04T04:00:00.000Z",
      milliseconds: 273_600_000,
      unit: "days",
      value: 3.1667,
      breakdown: "3 days, 4 hours",
    });
  });

  it.each([
    ["hours", "3 days, 4 hours (76 hours)."],
    ["minutes", "3 days, 4 hours (4560 minutes)."],
    ["seconds", "3 days, 4 hours (273600 seconds)."],
    ["weeks", "3 days, 4 hours (0.4524 weeks)."],
  ])("in %s", async (unit, expected) => {
    const result = await call("time_difference", {
      from: "2025-01-01T00:00:00Z",
      to: "2025-01-04T04:00:00Z",
      unit,
    });
    expect(resultText(result)).toBe(expected);
  });

  it("compares instants with different offsets correctly", async () => {
    const result = await call("time_difference", {
      from: "2025-01-15T09:00:00-05:00",
      to: "2025-01-15T23:30:00+09:00",
    });
    // 14:00Z to 14:30Z.
    expect(resultText(result)).toBe("30 minutes (30 minutes).");
  });

  it("reads dates as UTC midnight, says so, and accepts now", async () => {
    const result = await call("time_difference", { from: "2025-01-01", to: "now" });
    expect(resultText(result)).toBe(
      "14 days, 14 hours, 30 minutes (14.6042 days). Times without an offset were read as UTC.",
    );
  });

  it("says when the end is before the start", async () => {
    const result = await call("time_difference", { from: "2025-01-02", to: "2025-01-01", unit: "hours" });
    expect(resultText(result)).toMatch(/^1 day \(-24 hours\) \(the end is before the start\)/);
  });

  it.each([
    [{ from: "yesterday", to: "now" }, /Cannot read the time "yesterday"/],
    [{ from: "10:00", to: "now" }, /has no date/],
    [{ from: "2025-13-01", to: "now" }, /not a valid date/],
    [{ from: "2025-01-01", to: "now", unit: "months" }, /unit.*one of/],
  ])("rejects %j", async (args, message) => {
    const result = await call("time_difference", args);
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(message);
  });
});

describe("date/time tool definitions", () => {
  it("are read-only tools in the time category", () => {
    for (const tool of createDateTimeTools()) {
      expect(tool.category).toBe("time");
      expect(tool.tool.annotations?.readOnlyHint).toBe(true);
      expect(tool.requiresApproval).toBe(false);
    }
  });

  it("declare every zone argument as a time zone, and every listed zone is one the tools take", () => {
    const zoneArguments = createDateTimeTools().flatMap((tool) =>
      Object.entries(tool.tool.inputSchema.properties ?? {}).filter(([name]) => name.includes("timezone")),
    );
    expect(zoneArguments.map(([name]) => name).sort()).toEqual(["from_timezone", "timezone", "to_timezone"]);
    for (const [, schema] of zoneArguments) expect(schema).toMatchObject({ format: TIME_ZONE_FORMAT });
    // The call-body grammar of local models offers exactly these names: none may be one the tool then rejects.
    const rejected = timeZoneNames().filter((zone) => {
      try {
        resolveTimeZone(zone);
        return false;
      } catch {
        return true;
      }
    });
    expect(rejected).toEqual([]);
  });

  it("use the system clock by default", async () => {
    const registry = new ToolRegistry();
    registry.registerAll(createDateTimeTools());
    const result = await new ToolExecutor(registry).call("get_time", { format: "iso" });
    const reported = Date.parse(resultText(result));
    expect(Math.abs(reported - Date.now())).toBeLessThan(5000);
  });
});
