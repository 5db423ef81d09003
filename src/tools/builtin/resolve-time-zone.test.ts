import { describe, expect, it } from "vitest";
import { zonesNamedIn } from "./resolve-time-zone.js";

describe("zonesNamedIn: the zones a request names", () => {
  it.each([
    ["Got the time for Europe/Belgrade?", ["Europe/Belgrade"]],
    ["whats the time in jakarta", ["Asia/Jakarta"]],
    ["when it's 3pm in New York what time is it in London?", ["America/New_York", "Europe/London"]],
    ["convert 9am UTC to Tokyo", ["Asia/Tokyo", "UTC"]],
    ["time in buenos aires", ["America/Argentina/Buenos_Aires", "America/Buenos_Aires"]],
    ["clock time only for america/los_angeles", ["America/Los_Angeles"]],
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
