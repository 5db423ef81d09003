import { describe, expect, it } from "vitest";
import { resolveTimeZone, zonesNamedIn } from "./resolve-time-zone.js";

describe("zonesNamedIn: the zones a request names", () => {
  it.each([
    ["Got the time for Europe/Belgrade?", ["Europe/Belgrade"]],
    ["whats the time in jakarta", ["Asia/Jakarta"]],
    ["when it's 3pm in New York what time is it in London?", ["America/New_York", "Europe/London"]],
    ["convert 9am UTC to Tokyo", ["Asia/Tokyo", "UTC"]],
    ["time in buenos aires", ["America/Argentina/Buenos_Aires", "America/Buenos_Aires"]],
    ["clock time only for america/los_angeles", ["America/Los_Angeles"]],
    // As people write them: the tz database spells its cities without accents.
    ["what time is it in Zürich", ["Europe/Zurich"]],
    ["São Paulo to Reykjavík", ["America/Sao_Paulo", "Atlantic/Reykjavik"]],
  ])("%s → %j", (text, zones) => {
    expect(zonesNamedIn(text).sort()).toEqual(zones);
  });

  it("names none by a country, an abbreviation, part of a word, or a city that is an everyday word", () => {
    for (const text of [
      "what time is it in Japan",
      "time in PST",
      "how many days until christmas?",
      "wake me up at 7",
      "parisian cafes", // not "paris"
      "what is 15% of 47.50?",
    ])
      expect(zonesNamedIn(text), text).toEqual([]);
  });
});

describe("resolveTimeZone: a zone as written", () => {
  it.each([
    ["Zürich", "Europe/Zurich"],
    ["São Paulo", "America/Sao_Paulo"],
    ["reykjavík", "Atlantic/Reykjavik"],
    ["Bogotá", "America/Bogota"],
    ["America/São_Paulo", "America/Sao_Paulo"],
  ])("%s → %s", (written, zone) => {
    expect(resolveTimeZone(written)).toBe(zone);
  });

  it("still refuses a city it does not know, accents or not, and suggests the closest", () => {
    expect(() => resolveTimeZone("Zürichsee")).toThrow(
      /Unknown time zone "Zürichsee"\. Did you mean Europe\/Zurich/,
    );
  });
});
