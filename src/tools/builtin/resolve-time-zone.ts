/**
 * Time zone names as models write them: IANA names in any case ("asia/tokyo"), city names ("New York"), legacy
 * names ("US/Eastern") and the abbreviations people use for well-known zones ("PST", "JST"). Unknown names get a
 * "did you mean" list of close matches.
 */
import { ToolbridgeError } from "../../core/toolbridge-error.js";

/** Abbreviations mapped to the zone people mean by them (the tz database's own "EST" is a fixed offset, for one). */
const ABBREVIATIONS: Record<string, string> = {
  utc: "UTC",
  gmt: "UTC",
  z: "UTC",
  zulu: "UTC",
  est: "America/New_York",
  edt: "America/New_York",
  et: "America/New_York",
  eastern: "America/New_York",
  cst: "America/Chicago",
  cdt: "America/Chicago",
  ct: "America/Chicago",
  central: "America/Chicago",
  mst: "America/Denver",
  mdt: "America/Denver",
  mt: "America/Denver",
  mountain: "America/Denver",
  pst: "America/Los_Angeles",
  pdt: "America/Los_Angeles",
  pt: "America/Los_Angeles",
  pacific: "America/Los_Angeles",
  akst: "America/Anchorage",
  hst: "Pacific/Honolulu",
  bst: "Europe/London",
  cest: "Europe/Paris",
  jst: "Asia/Tokyo",
  kst: "Asia/Seoul",
  ist: "Asia/Kolkata",
  sgt: "Asia/Singapore",
  hkt: "Asia/Hong_Kong",
  aest: "Australia/Sydney",
  aedt: "Australia/Sydney",
  nzst: "Pacific/Auckland",
  nzdt: "Pacific/Auckland",
};

export { TIME_ZONE_FORMAT } from "../schema-formats.js";

/**
 * Today's names of zones that ICU still lists under an older one (its canonical "Asia/Calcutta" is "Asia/Kolkata" to
 * everyone else). Both spellings resolve; a model may write either.
 */
const CURRENT_NAMES = [
  "Africa/Asmara",
  "America/Argentina/Buenos_Aires",
  "America/Atikokan",
  "America/Indiana/Indianapolis",
  "America/Kentucky/Louisville",
  "America/Nuuk",
  "Asia/Ho_Chi_Minh",
  "Asia/Kathmandu",
  "Asia/Kolkata",
  "Asia/Yangon",
  "Atlantic/Faroe",
  "Europe/Kyiv",
  "Pacific/Chuuk",
  "Pacific/Kanton",
  "Pacific/Pohnpei",
];

let nameList: readonly string[] | undefined;

/** Every IANA zone name this runtime knows, with "UTC" and the current spellings of renamed zones; sorted. */
export function timeZoneNames(): readonly string[] {
  nameList ??= Object.freeze(
    [...new Set([...zones().list, ...CURRENT_NAMES.filter((zone) => canonical(zone) !== undefined)])].sort(),
  );
  return nameList;
}

/** Zone cities that are also everyday English words: "until christmas" or "wake me up" names no zone. */
const CITIES_THAT_ARE_WORDS = new Set(
  "canary casey center chatham christmas cocos davis dawson easter jersey knox midway oral palmer resolute reunion stanley troll wake".split(
    " ",
  ),
);

/** Letters that do not decompose into a base letter and a mark: "Tromsø", "Łódź", "Straße". */
const UNDECOMPOSED: Record<string, string> = {
  ø: "o",
  ł: "l",
  ß: "ss",
  æ: "ae",
  œ: "oe",
  đ: "d",
  ı: "i",
  þ: "th",
};

/**
 * Lower case without accents, as zone ids spell their cities: people write "Zürich", "São Paulo" and "Reykjavík";
 * the tz database has Europe/Zurich, America/Sao_Paulo and Atlantic/Reykjavik.
 */
function foldToZoneSpelling(text: string): string {
  return text
    .toLowerCase()
    .normalize("NFD")
    .replace(/\p{M}/gu, "")
    .replace(/[øłßæœđıþ]/g, (c) => UNDECOMPOSED[c] ?? c);
}

/**
 * The zones a text names: by their IANA name ("Europe/Belgrade", any case) or by their city ("belgrade", "new york"
 * for America/New_York, "zürich" for Europe/Zurich), as whole words — not by a city that is also an everyday word
 * ("christmas"). Several zones may
 * share a city (America/Buenos_Aires and America/Argentina/Buenos_Aires): all of them are named. Abbreviations
 * ("PST") and countries are not names here.
 */
export function zonesNamedIn(text: string): string[] {
  const lower = ` ${foldToZoneSpelling(text).replaceAll("_", " ")} `;
  const named = (phrase: string) => {
    for (let at = lower.indexOf(phrase); at >= 0; at = lower.indexOf(phrase, at + 1)) {
      const before = lower[at - 1] ?? " ";
      const after = lower[at + phrase.length] ?? " ";
      if (!/[\p{L}\p{N}/]/u.test(before) && !/[\p{L}\p{N}/]/u.test(after)) return true;
    }
    return false;
  };
  return zonePhrases()
    .filter(({ id, city }) => named(id) || (city !== undefined && named(city)))
    .map(({ zone }) => zone);
}

let phraseList: readonly { zone: string; id: string; city: string | undefined }[] | undefined;

/** Each zone with the phrases that name it: its id in lower case with spaces, and its city where one may be used. */
function zonePhrases() {
  phraseList ??= timeZoneNames().map((zone) => {
    const id = zone.toLowerCase().replaceAll("_", " ");
    const city = id.split("/").at(-1) as string;
    const byCity =
      id.includes("/") && city.length >= 3 && /^[\p{L} ]+$/u.test(city) && !CITIES_THAT_ARE_WORDS.has(city);
    return { zone, id, city: byCity ? city : undefined };
  });
  return phraseList;
}

export class UnknownTimeZoneError extends ToolbridgeError {
  override name = "UnknownTimeZoneError";
  constructor(
    readonly input: string,
    readonly suggestions: readonly string[],
  ) {
    const hint =
      suggestions.length > 0
        ? ` Did you mean ${suggestions.join(" or ")}?`
        : ' Use an IANA name such as "UTC", "America/New_York", "Europe/London" or "Asia/Tokyo".';
    super(`Unknown time zone "${input}".${hint}`);
  }
}

let zoneList: string[] | undefined;
let byLowerName: Map<string, string> | undefined;
let byCity: Map<string, string> | undefined;

function zones(): { list: string[]; byLowerName: Map<string, string>; byCity: Map<string, string> } {
  if (!zoneList || !byLowerName || !byCity) {
    zoneList = [...Intl.supportedValuesOf("timeZone"), "UTC"];
    byLowerName = new Map(zoneList.map((zone) => [zone.toLowerCase(), zone]));
    byCity = new Map();
    for (const zone of zoneList) {
      const city = zone.slice(zone.lastIndexOf("/") + 1).toLowerCase();
      if (!byCity.has(city)) byCity.set(city, zone);
    }
  }
  return { list: zoneList, byLowerName, byCity };
}

function canonical(zone: string): string | undefined {
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

function distance(a: string, b: string): number {
  const previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = previous[0] as number;
    previous[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = previous[j] as number;
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      previous[j] = Math.min(above + 1, (previous[j - 1] as number) + 1, diagonal + cost);
      diagonal = above;
    }
  }
  return previous[b.length] as number;
}

/** Up to three zones whose name (or city) is close to the input. */
export function suggestTimeZones(input: string): string[] {
  const needle = foldToZoneSpelling(input.trim()).replace(/\s+/g, "_");
  const { list } = zones();
  const scored = list.map((zone) => {
    const lower = zone.toLowerCase();
    const city = lower.slice(lower.lastIndexOf("/") + 1);
    const needleCity = needle.slice(needle.lastIndexOf("/") + 1);
    return {
      zone,
      score: Math.min(distance(needle, lower), distance(needleCity, city) + (needle.includes("/") ? 1 : 0)),
    };
  });
  const limit = Math.max(2, Math.floor(needle.length / 3));
  return scored
    .filter((entry) => entry.score <= limit)
    .sort((a, b) => a.score - b.score || a.zone.localeCompare(b.zone))
    .slice(0, 3)
    .map((entry) => entry.zone);
}

/** The IANA name for what was written, or UnknownTimeZoneError with suggestions. */
export function resolveTimeZone(input: string): string {
  const trimmed = input.trim();
  const lower = foldToZoneSpelling(trimmed);
  const underscored = lower.replace(/\s+/g, "_");
  const { byLowerName, byCity } = zones();
  // Names Intl accepts but does not list (links such as "Asia/Kolkata", "US/Eastern") are kept as written: ICU's
  // canonical form can be an older name ("Asia/Calcutta") that would surprise the person who asked.
  const valid = /^[a-z0-9_+\-/]+$/i.test(trimmed) && canonical(trimmed) !== undefined ? trimmed : undefined;
  const found = ABBREVIATIONS[lower] ?? byLowerName.get(underscored) ?? valid ?? byCity.get(underscored);
  if (found) return /^(etc\/)?(utc|gmt|uct|zulu|universal)$/i.test(found) ? "UTC" : found;
  throw new UnknownTimeZoneError(trimmed, suggestTimeZones(trimmed));
}
