/**
 * How people type, for the training generator: fillers, politeness, casing, typos, number words, and the places they
 * name (cities, countries, zone ids) with the zone each means. Written for training only; the evaluation sets
 * (sets/*.jsonl) were written separately, and build-dataset.ts drops any generated request that equals one of theirs.
 */
import { chance, int, pick, type Rng } from "./scenario.js";

export const OPENERS = [
  ...Array(12).fill(""),
  "hey ",
  "hi, ",
  "ok ",
  "okay so ",
  "um ",
  "quick question: ",
  "pls ",
  "please ",
  "can you ",
  "could you ",
  "hey there, ",
  "yo ",
  "so ",
  "hmm ",
  "one more thing: ",
  "also ",
  "btw ",
  "right, ",
  "question - ",
];
export const CLOSERS = [
  ...Array(14).fill(""),
  "?",
  "??",
  ".",
  "!",
  " please",
  " pls",
  " plz",
  " thanks",
  " thx",
  ", thanks!",
  " :)",
  " real quick",
  " for me",
  " if you can",
  " asap",
  " lol",
  " now",
];

/** People often type all lower case, sometimes capitalize, rarely shout. */
export function casing(rng: Rng, text: string): string {
  const u = rng();
  if (u < 0.35) return text.charAt(0).toLowerCase() + text.slice(1);
  if (u < 0.55) return text.charAt(0).toUpperCase() + text.slice(1);
  return text;
}

/** Opener + core + closer, as people wrap a request. Openers that ask ("can you ") only before an imperative. */
export function wrap(rng: Rng, core: string, imperative = true): string {
  let opener = pick(rng, OPENERS);
  if (!imperative && /^(can you |could you |pls |please )$/.test(opener)) opener = "";
  let closer = pick(rng, CLOSERS);
  if (/[?!.]$/.test(core) && /^[?!.]/.test(closer)) closer = "";
  return casing(rng, `${opener}${core}${closer}`);
}

/**
 * A typo in one of the filler words (never in `keep`, the values the call copies): a swapped, dropped or doubled
 * letter, as fast typing makes them.
 */
export function typo(rng: Rng, text: string, keep: readonly string[]): string {
  const words = text.split(" ");
  const candidates = words
    .map((w, i) => ({ w, i }))
    .filter(({ w }) => /^[a-z]{4,}$/.test(w) && !keep.some((k) => k.toLowerCase().includes(w.toLowerCase())));
  if (candidates.length === 0) return text;
  const { w, i } = pick(rng, candidates);
  const at = int(rng, 1, w.length - 2);
  const kind = int(rng, 0, 2);
  const changed =
    kind === 0
      ? w.slice(0, at) + w.charAt(at + 1) + w.charAt(at) + w.slice(at + 2)
      : kind === 1
        ? w.slice(0, at) + w.slice(at + 1)
        : w.slice(0, at) + w.charAt(at) + w.slice(at);
  words[i] = changed;
  return words.join(" ");
}

/** Sometimes a typo (when nothing is to be copied from the words it touches). */
export function maybeTypo(rng: Rng, text: string, keep: readonly string[], p = 0.12): string {
  return chance(rng, p) ? typo(rng, text, keep) : text;
}

export const NUMBER_WORDS = [
  "zero",
  "one",
  "two",
  "three",
  "four",
  "five",
  "six",
  "seven",
  "eight",
  "nine",
  "ten",
  "eleven",
  "twelve",
] as const;

/** A small count as people say it: digits or a word. */
export function count(rng: Rng, n: number): string {
  return n <= 12 && chance(rng, 0.4) ? (NUMBER_WORDS[n] as string) : String(n);
}

/**
 * Places people name and the zone each means: every IANA zone's city ("Lisbon" → Europe/Lisbon), and big cities,
 * countries and states that are not zone names themselves.
 */
const EXTRA_PLACES: Record<string, string> = {
  Mumbai: "Asia/Kolkata",
  Delhi: "Asia/Kolkata",
  "New Delhi": "Asia/Kolkata",
  Bangalore: "Asia/Kolkata",
  Chennai: "Asia/Kolkata",
  Hyderabad: "Asia/Kolkata",
  India: "Asia/Kolkata",
  Beijing: "Asia/Shanghai",
  Shenzhen: "Asia/Shanghai",
  Guangzhou: "Asia/Shanghai",
  China: "Asia/Shanghai",
  Japan: "Asia/Tokyo",
  Osaka: "Asia/Tokyo",
  Kyoto: "Asia/Tokyo",
  Korea: "Asia/Seoul",
  "South Korea": "Asia/Seoul",
  Busan: "Asia/Seoul",
  Boston: "America/New_York",
  Miami: "America/New_York",
  Atlanta: "America/New_York",
  Washington: "America/New_York",
  "Washington DC": "America/New_York",
  Philadelphia: "America/New_York",
  Montreal: "America/Toronto",
  Ottawa: "America/Toronto",
  Houston: "America/Chicago",
  Dallas: "America/Chicago",
  Austin: "America/Chicago",
  "New Orleans": "America/Chicago",
  Minneapolis: "America/Chicago",
  "San Francisco": "America/Los_Angeles",
  Seattle: "America/Los_Angeles",
  "San Diego": "America/Los_Angeles",
  "Las Vegas": "America/Los_Angeles",
  Portland: "America/Los_Angeles",
  California: "America/Los_Angeles",
  Texas: "America/Chicago",
  Florida: "America/New_York",
  "Salt Lake City": "America/Denver",
  Calgary: "America/Edmonton",
  Brazil: "America/Sao_Paulo",
  "Rio de Janeiro": "America/Sao_Paulo",
  Rio: "America/Sao_Paulo",
  Argentina: "America/Argentina/Buenos_Aires",
  "Buenos Aires": "America/Argentina/Buenos_Aires",
  Peru: "America/Lima",
  Colombia: "America/Bogota",
  Chile: "America/Santiago",
  Mexico: "America/Mexico_City",
  Guadalajara: "America/Mexico_City",
  England: "Europe/London",
  UK: "Europe/London",
  Britain: "Europe/London",
  Manchester: "Europe/London",
  Edinburgh: "Europe/London",
  Scotland: "Europe/London",
  Ireland: "Europe/Dublin",
  France: "Europe/Paris",
  Lyon: "Europe/Paris",
  Marseille: "Europe/Paris",
  Germany: "Europe/Berlin",
  Munich: "Europe/Berlin",
  Hamburg: "Europe/Berlin",
  Frankfurt: "Europe/Berlin",
  Cologne: "Europe/Berlin",
  Spain: "Europe/Madrid",
  Barcelona: "Europe/Madrid",
  Seville: "Europe/Madrid",
  Valencia: "Europe/Madrid",
  Italy: "Europe/Rome",
  Milan: "Europe/Rome",
  Naples: "Europe/Rome",
  Venice: "Europe/Rome",
  Florence: "Europe/Rome",
  Portugal: "Europe/Lisbon",
  Porto: "Europe/Lisbon",
  Netherlands: "Europe/Amsterdam",
  Holland: "Europe/Amsterdam",
  Rotterdam: "Europe/Amsterdam",
  Belgium: "Europe/Brussels",
  Switzerland: "Europe/Zurich",
  Geneva: "Europe/Zurich",
  Austria: "Europe/Vienna",
  Sweden: "Europe/Stockholm",
  Norway: "Europe/Oslo",
  Denmark: "Europe/Copenhagen",
  Finland: "Europe/Helsinki",
  Poland: "Europe/Warsaw",
  Krakow: "Europe/Warsaw",
  Greece: "Europe/Athens",
  Turkey: "Europe/Istanbul",
  Ankara: "Europe/Istanbul",
  Russia: "Europe/Moscow",
  "St Petersburg": "Europe/Moscow",
  Ukraine: "Europe/Kyiv",
  Kyiv: "Europe/Kyiv",
  Egypt: "Africa/Cairo",
  Kenya: "Africa/Nairobi",
  Nigeria: "Africa/Lagos",
  Morocco: "Africa/Casablanca",
  "South Africa": "Africa/Johannesburg",
  "Cape Town": "Africa/Johannesburg",
  Israel: "Asia/Jerusalem",
  "Tel Aviv": "Asia/Jerusalem",
  UAE: "Asia/Dubai",
  "Abu Dhabi": "Asia/Dubai",
  Iran: "Asia/Tehran",
  Pakistan: "Asia/Karachi",
  Lahore: "Asia/Karachi",
  Thailand: "Asia/Bangkok",
  Vietnam: "Asia/Ho_Chi_Minh",
  "Ho Chi Minh City": "Asia/Ho_Chi_Minh",
  Saigon: "Asia/Ho_Chi_Minh",
  Indonesia: "Asia/Jakarta",
  Bali: "Asia/Makassar",
  Philippines: "Asia/Manila",
  Malaysia: "Asia/Kuala_Lumpur",
  Taiwan: "Asia/Taipei",
  Nepal: "Asia/Kathmandu",
  Australia: "Australia/Sydney",
  Canberra: "Australia/Sydney",
  "New Zealand": "Pacific/Auckland",
  Wellington: "Pacific/Auckland",
  Hawaii: "Pacific/Honolulu",
  Alaska: "America/Anchorage",
  Iceland: "Atlantic/Reykjavik",
};

/** Place name → zone, for every place the generator may name. */
export function placeZones(): Map<string, string> {
  const places = new Map<string, string>();
  for (const zone of Intl.supportedValuesOf("timeZone")) {
    const parts = zone.split("/");
    if (parts.length < 2 || /^(Etc|SystemV|US|Canada|Brazil|Mexico|Chile)$/.test(parts[0] as string))
      continue;
    const city = (parts.at(-1) as string).replaceAll("_", " ");
    if (!places.has(city)) places.set(city, zone);
  }
  for (const [place, zone] of Object.entries(EXTRA_PLACES)) places.set(place, zone);
  // ICU's older spellings: people write today's names.
  places.set("Kolkata", "Asia/Kolkata");
  places.set("Kathmandu", "Asia/Kathmandu");
  places.set("Ho Chi Minh", "Asia/Ho_Chi_Minh");
  places.delete("Calcutta");
  places.delete("Katmandu");
  places.delete("Saigon");
  places.set("Saigon", "Asia/Ho_Chi_Minh");
  return places;
}

/**
 * Places as their people write them, with letters outside ASCII (the tz database and PLACE names spell them without):
 * drawn from mix 7 on.
 */
export const ACCENTED_PLACES: Readonly<Record<string, string>> = {
  Zurich: "Zürich",
  "Sao Paulo": "São Paulo",
  Reykjavik: "Reykjavík",
  Bogota: "Bogotá",
  Montreal: "Montréal",
  Krakow: "Kraków",
  Cordoba: "Córdoba",
  Asuncion: "Asunción",
  Merida: "Mérida",
  Belem: "Belém",
  Cancun: "Cancún",
  Maceio: "Maceió",
  Curacao: "Curaçao",
  Noumea: "Nouméa",
  Chisinau: "Chișinău",
  Munich: "München",
  Cologne: "Köln",
};

/** Cities as their people write them, in notes and `/v1` client tools' arguments (mix 7 on). */
export const ACCENTED_CITIES = [
  "Zürich",
  "São Paulo",
  "Málaga",
  "Kraków",
  "Bogotá",
  "Reykjavík",
  "Montréal",
  "Düsseldorf",
  "Malmö",
  "Tromsø",
  "Genève",
  "Córdoba",
  "Nîmes",
  "Łódź",
  "Göteborg",
  "Brașov",
];

/** Letters with the accents other languages put on them, for accentLetters. */
const ACCENTS: Readonly<Record<string, readonly string[]>> = {
  a: ["á", "à", "â", "ä", "å", "ã"],
  e: ["é", "è", "ê", "ë", "ę"],
  i: ["í", "ì", "î", "ï"],
  o: ["ó", "ò", "ô", "ö", "ø", "õ"],
  u: ["ú", "ù", "û", "ü"],
  n: ["ñ", "ń"],
  c: ["ç", "č", "ć"],
  s: ["š", "ş", "ś"],
  z: ["ž", "ż"],
  l: ["ł"],
  g: ["ğ"],
  r: ["ř"],
  y: ["ý"],
};

/**
 * A word with one or two of its letters accented ("Oscar" → "Öscar", "maple" → "mäplé"): names and words the model never
 * saw with letters outside ASCII, so that it learns to copy such letters as written rather than a list of names.
 */
export function accentLetters(rng: Rng, word: string): string {
  const letters = [...word];
  const at = letters.flatMap((c, i) => (ACCENTS[c.toLowerCase()] ? [i] : []));
  if (at.length === 0) return word;
  for (let n = chance(rng, 0.3) ? 2 : 1; n > 0; n--) {
    const i = pick(rng, at);
    const c = [...word][i] as string;
    const accented = pick(rng, ACCENTS[c.toLowerCase()] as readonly string[]);
    letters[i] = c === c.toUpperCase() ? accented.toUpperCase() : accented;
  }
  return letters.join("");
}

/** How people write a place: as named, or lower case. */
export function spellPlace(rng: Rng, place: string): string {
  return chance(rng, 0.3) ? place.toLowerCase() : place;
}
