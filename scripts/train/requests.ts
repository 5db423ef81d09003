/**
 * The requests the bundled model learns: phrasings × values for each built-in tool, and small talk that needs no
 * tool. Calls carry every property of the tool's schema in schema order, defaults included, because the runtime's
 * call-body grammar (node-llama-cpp's JSON-schema grammar) makes a model write them all.
 *
 * Every pool is split in two — training and held-out — so the evaluation asks with phrasings and values the model
 * never saw. The held-out pools are small, fixed, hand-written lists; the training pools are deliberately wide
 * (phrasings composed from openers × cores × endings, every IANA zone but the held-out ones, note titles composed
 * from hundreds of word pairs, random codes). A tiny model trained on a narrow pool learns the pool by heart and
 * answers an unseen zone with the nearest one it knows ("Europe/Vilnius" → "Europe/Vienna"); a wide pool leaves it
 * no way to win but to copy from the request, which is the skill the held-out split measures.
 */

export type Rng = () => number;

export type RequestKind = "calculator" | "roll_dice" | "get_time" | "note_save" | "memory_search" | "chat";

export interface ToolRequest {
  kind: RequestKind;
  /** What the user types. */
  text: string;
  /** The call the model should make (undefined: answer without a tool). */
  call?: { name: string; arguments: Record<string, unknown> };
  /** For small talk: the answer. */
  reply?: string;
  /** For a tool call: how to word the final answer around the result. */
  answer?: (result: string) => string;
}

export type Split = "train" | "heldout";

export const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng() * items.length)] as T;
const int = (rng: Rng, lo: number, hi: number) => lo + Math.floor(rng() * (hi - lo + 1));

/** Numbers of two or more digits are held out when this hash says so (about one in five). */
export function heldOutNumber(n: number): boolean {
  const digits = String(n).replace(/[^0-9]/g, "");
  if (digits.replace(/^0+/, "").length < 2) return false;
  let h = 7;
  for (const c of digits) h = (h * 31 + c.charCodeAt(0)) % 1009;
  return h % 5 === 0;
}

/** A number string for `split`: integers or decimals with 1–2 places, drawn until the split rule agrees. */
function number(rng: Rng, split: Split, kind: "int" | "small" | "money" | "decimal" = "int"): string {
  for (;;) {
    let s: string;
    if (kind === "small") s = String(int(rng, 2, 30));
    else if (kind === "money") s = `${int(rng, 1, 250)}.${String(int(rng, 0, 99)).padStart(2, "0")}`;
    else if (kind === "decimal") s = `${int(rng, 0, 99)}.${int(rng, 1, 9)}`;
    else s = String(pick(rng, [int(rng, 1, 9), int(rng, 10, 99), int(rng, 100, 999), int(rng, 1000, 9999)]));
    const n = Number(s);
    const held = heldOutNumber(Math.round(n * 100));
    if (split === "heldout" ? held : !held) return s;
  }
}

/**
 * Training phrasings: an opener, a core with the `{q}` slot, an ending. Cores are per tool; openers and endings are
 * shared filler, so the model learns that the words around a request do not change the call. Held-out frames are
 * written separately and their distinctive words ("figure out", "evaluate", "forget", "keep in mind", "toss", …)
 * appear in no training core.
 */
const OPENERS = [
  "",
  "",
  "",
  "",
  "please ",
  "hey, ",
  "ok, ",
  "hi! ",
  "quick one: ",
  "so ",
  "hmm, ",
  "right, ",
  "one more: ",
  "next: ",
  "hello, ",
  "now ",
];
const ENDINGS = [
  "",
  "",
  "",
  "?",
  ".",
  " please",
  ", please",
  " for me",
  " thanks",
  ", thanks!",
  " right now",
  " quickly",
  " if you can",
  " :)",
];

function compose(rng: Rng, cores: readonly string[]): string {
  const core = pick(rng, cores);
  let ending = pick(rng, ENDINGS);
  // "= ?." reads like a typo nobody makes; keep endings after a question mark to words.
  if (core.endsWith("?") && /^[?.]$/.test(ending)) ending = "";
  return `${pick(rng, OPENERS)}${core}${ending}`;
}

// ---------------------------------------------------------------------------------------------------- calculator

const OPS = [
  { sym: "+", words: ["plus", "+", "added to", "and"] },
  { sym: "-", words: ["minus", "-", "take away", "less"] },
  { sym: "*", words: ["times", "*", "multiplied by", "x"] },
  { sym: "/", words: ["divided by", "/", "over"] },
] as const;

const CALC_CORES = [
  "what is {q}",
  "What's {q}",
  "calculate {q}",
  "compute {q}",
  "how much is {q}",
  "{q} = ?",
  "can you work out {q}",
  "quick math: {q}",
  "tell me {q}",
  "I need {q}",
  "solve {q}",
  "work out {q}",
  "find {q}",
  "what do you get for {q}",
  "what's the result of {q}",
  "give me {q}",
  "do the math: {q}",
  "{q}",
  "math: {q}",
  "what would {q} be",
  "can you tell me what {q} is",
  "I'd like to know {q}",
  "how much does {q} make",
  "what's the answer to {q}",
  "can you calculate {q}",
  "run the numbers on {q}",
];

const CALC_HELD_OUT = [
  "Could you figure out {q} for me?",
  "what does {q} come to?",
  "help me with {q}",
  "Evaluate {q}, please.",
];

const CALC_ANSWERS: readonly ((q: string, r: string) => string)[] = [
  (q, r) => `${q} is ${r}.`,
  (_q, r) => `The answer is ${r}.`,
  (q, r) => `${q} = ${r}`,
  (_q, r) => `It comes to ${r}.`,
  (_q, r) => `That's ${r}.`,
  (_q, r) => `Result: ${r}`,
];

function operand(rng: Rng, split: Split): string {
  const u = rng();
  return number(rng, split, u < 0.2 ? "decimal" : u < 0.3 ? "money" : "int");
}

function calculator(rng: Rng, split: Split): ToolRequest {
  const shape = int(rng, 0, 9);
  let spoken: string;
  let expression: string;
  if (shape <= 2) {
    const a = operand(rng, split);
    const b = operand(rng, split);
    const op = pick(rng, OPS);
    spoken = `${a} ${pick(rng, op.words)} ${b}`;
    expression = `${a} ${op.sym} ${b}`;
  } else if (shape === 3) {
    const p = number(rng, split, rng() < 0.8 ? "small" : "int");
    const a = number(rng, split, rng() < 0.6 ? "money" : "int");
    spoken = `${p}% of ${a}`;
    expression = `${p}% of ${a}`;
  } else if (shape === 4) {
    const a = number(rng, split, "small");
    const b = String(int(rng, 2, 9));
    const form = int(rng, 0, 3);
    spoken =
      form === 0
        ? `${a} to the power of ${b}`
        : form === 1
          ? `${a}^${b}`
          : form === 2
            ? `${a} squared`
            : `${a} cubed`;
    expression = form <= 1 ? `${a}^${b}` : form === 2 ? `${a}^2` : `${a}^3`;
  } else if (shape === 5) {
    const a = number(rng, split);
    const cube = rng() < 0.3;
    spoken = `the ${cube ? "cube" : "square"} root of ${a}`;
    expression = `${cube ? "cbrt" : "sqrt"}(${a})`;
  } else if (shape <= 7) {
    const a = number(rng, split);
    const b = number(rng, split);
    const c = String(int(rng, 2, 12));
    const forms = [
      `(${a} + ${b}) * ${c}`,
      `${a} * ${c} - ${b}`,
      `(${a} - ${b}) / ${c}`,
      `${a} + ${b} + ${c}`,
    ];
    expression = pick(rng, forms);
    spoken = expression;
  } else {
    // Longer chains of two to four operators: more digits to copy, in more places.
    const n = int(rng, 2, 4);
    const parts = [operand(rng, split)];
    const words = [parts[0] as string];
    for (let i = 0; i < n; i++) {
      const op = pick(rng, OPS);
      const x = operand(rng, split);
      parts.push(op.sym, x);
      words.push(rng() < 0.5 ? op.sym : pick(rng, op.words), x);
    }
    expression = parts.join(" ");
    spoken = rng() < 0.5 ? expression : words.join(" ");
  }
  const frame = split === "train" ? compose(rng, CALC_CORES) : pick(rng, CALC_HELD_OUT);
  const answer = pick(rng, CALC_ANSWERS);
  return {
    kind: "calculator",
    text: frame.replace("{q}", spoken),
    call: { name: "calculator", arguments: { expression } },
    answer: (r) => answer(spoken, r),
  };
}

// ---------------------------------------------------------------------------------------------------- dice

const NUMBER_WORDS = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"];

const DICE_CORES = [
  "roll {d}",
  "can you roll {d}",
  "throw {d}",
  "roll me {d}",
  "let's roll {d}",
  "dice: {d}",
  "make a roll: {d}",
  "I want to roll {d}",
  "roll {d} for initiative",
  "please roll {d} dice",
  "we need {d}",
  "cast {d}",
  "do a {d} roll",
];

const DICE_HELD_OUT = ["give me a roll of {d}", "I need you to roll {d}", "toss {d}"];

const DICE_ANSWERS: readonly ((r: string, total: string) => string)[] = [
  (_r, t) => `You rolled ${t}.`,
  (r, t) => `${r}. Total: ${t}.`,
  (_r, t) => `The total is ${t}.`,
  (_r, t) => `Total: ${t}.`,
];

function dice(rng: Rng, split: Split): ToolRequest {
  for (;;) {
    const n = rng() < 0.8 ? int(rng, 1, 10) : int(rng, 11, 20);
    const sides = rng() < 0.8 ? pick(rng, [4, 6, 8, 10, 12, 20, 100]) : int(rng, 2, 99);
    const shape = int(rng, 0, 5);
    let notation = `${n}d${sides}`;
    let spoken = rng() < 0.25 && n <= 10 ? `${NUMBER_WORDS[n - 1]} d${sides}` : notation;
    if (shape === 1) {
      const m = int(rng, 1, rng() < 0.8 ? 12 : 30);
      const plus = rng() < 0.7;
      notation += `${plus ? "+" : "-"}${m}`;
      spoken = rng() < 0.5 ? notation : `${spoken} ${plus ? "plus" : "minus"} ${m}`;
    } else if (shape === 2 && n >= 2) {
      const k = int(rng, 1, n - 1);
      const high = rng() < 0.7;
      notation += `k${high ? "h" : "l"}${k}`;
      spoken = rng() < 0.4 ? notation : `${spoken} and keep the ${high ? "highest" : "lowest"} ${k}`;
    } else if (shape === 3 && n >= 2) {
      const high = rng() < 0.3;
      notation += `d${high ? "h" : "l"}1`;
      spoken = rng() < 0.4 ? notation : `${spoken} and drop the ${high ? "highest" : "lowest"}`;
    } else if (shape === 4 && n === 1) {
      spoken = rng() < 0.5 ? `a d${sides}` : `a ${sides}-sided die`;
    }
    // Held-out dice are notations never rolled in training: the hash of the notation decides.
    if (heldOutNumber(hash(notation)) !== (split === "heldout")) continue;
    const frame = split === "train" ? compose(rng, DICE_CORES) : pick(rng, DICE_HELD_OUT);
    const answer = pick(rng, DICE_ANSWERS);
    return {
      kind: "roll_dice",
      text: frame.replace("{d}", spoken),
      call: { name: "roll_dice", arguments: { notation } },
      answer: (r) => answer(r, /(-?\d+)$/.exec(r)?.[1] ?? r),
    };
  }
}

function hash(text: string): number {
  let h = 17;
  for (const c of text) h = (h * 131 + c.charCodeAt(0)) % 99991;
  return h + 10;
}

// ---------------------------------------------------------------------------------------------------- time

/** City → IANA zone (known to the model: it must learn these by heart). */
export const CITIES: Record<string, string> = {
  Tokyo: "Asia/Tokyo",
  London: "Europe/London",
  Paris: "Europe/Paris",
  Berlin: "Europe/Berlin",
  Madrid: "Europe/Madrid",
  Rome: "Europe/Rome",
  Moscow: "Europe/Moscow",
  Dubai: "Asia/Dubai",
  Singapore: "Asia/Singapore",
  Sydney: "Australia/Sydney",
  "New York": "America/New_York",
  Chicago: "America/Chicago",
  Denver: "America/Denver",
  "Los Angeles": "America/Los_Angeles",
  Toronto: "America/Toronto",
  Seoul: "Asia/Seoul",
  Shanghai: "Asia/Shanghai",
  "Hong Kong": "Asia/Hong_Kong",
  Kolkata: "Asia/Kolkata",
  Cairo: "Africa/Cairo",
  Johannesburg: "Africa/Johannesburg",
  Auckland: "Pacific/Auckland",
  Honolulu: "Pacific/Honolulu",
  Amsterdam: "Europe/Amsterdam",
  Stockholm: "Europe/Stockholm",
  Istanbul: "Europe/Istanbul",
  Bangkok: "Asia/Bangkok",
  Jakarta: "Asia/Jakarta",
  "Mexico City": "America/Mexico_City",
  "Sao Paulo": "America/Sao_Paulo",
};

/** IANA names said as such. The held-out ones never appear in training: the model must copy them. */
const HELD_OUT_ZONES = [
  "Europe/Vilnius",
  "Europe/Riga",
  "Europe/Sofia",
  "Europe/Belgrade",
  "Europe/Copenhagen",
  "Asia/Almaty",
  "Asia/Hanoi",
  "Asia/Yangon",
  "Asia/Colombo",
  "America/Lima",
  "America/Caracas",
  "America/Winnipeg",
  "America/Havana",
  "Africa/Accra",
  "Africa/Algiers",
  "Africa/Tunis",
  "Australia/Darwin",
  "Australia/Hobart",
  "Pacific/Guam",
  "Asia/Baku",
];

/** Training zones: every zone this runtime's ICU knows (about 400) except any with a held-out zone's city. */
function trainingZones(): string[] {
  const heldCities = new Set(HELD_OUT_ZONES.map((z) => z.split("/").at(-1)?.toLowerCase()));
  const zones = Intl.supportedValuesOf("timeZone").filter(
    (z) => !HELD_OUT_ZONES.includes(z) && !heldCities.has(z.split("/").at(-1)?.toLowerCase()),
  );
  return ["UTC", ...zones];
}

export const ZONES: Record<Split, readonly string[]> = {
  train: trainingZones(),
  heldout: HELD_OUT_ZONES,
};

type TimeFormat = "full" | "date" | "time" | "iso";

const TIME_CORES: Record<TimeFormat, readonly string[]> = {
  full: [
    "what time is it in {z}",
    "What's the time in {z}",
    "current time in {z}",
    "time in {z}",
    "What time is it in {z} right now",
    "tell me the time in {z}",
    "what's the current time in {z}",
    "time now in {z}",
    "the time in {z}",
    "show me the time in {z}",
    "can you tell me the time in {z}",
    "what time is it over in {z}",
    "time for {z}",
    "what's the time for {z}",
    "I need the time in {z}",
  ],
  date: [
    "what's the date in {z}",
    "What day is it in {z}",
    "today's date in {z}",
    "what is today's date in {z}",
    "the date in {z}",
    "date in {z}",
    "what date is it in {z}",
    "date for {z}",
    "what's the day today in {z}",
  ],
  time: [
    "just the clock time in {z}",
    "what's the local time in {z}? only the time",
    "only the time in {z}",
    "clock time in {z}",
    "just the time of day in {z}",
    "the time only for {z}",
    "local clock time for {z}",
  ],
  iso: [
    "time in {z} in ISO format",
    "give me the ISO timestamp for {z}",
    "ISO time in {z}",
    "ISO timestamp for {z}",
    "the time in {z} as ISO 8601",
    "iso format time for {z}",
    "current ISO time for {z}",
  ],
};

const TIME_HELD_OUT: Record<TimeFormat, readonly string[]> = {
  full: ["do you know what time it is in {z}?", "Got the time for {z}?"],
  date: ["which date is it now in {z}?"],
  time: ["clock time only for {z}, please"],
  iso: ["ISO 8601 time in {z} please"],
};

function time(rng: Rng, split: Split): ToolRequest {
  const format = pick(rng, ["full", "full", "full", "date", "time", "iso"] as const);
  // Cities are knowledge, not text to copy: the held-out split asks about known cities with unseen phrasings.
  const byCity = rng() < 0.4;
  const place = byCity ? pick(rng, Object.keys(CITIES)) : pick(rng, ZONES[split]);
  const timezone = byCity ? (CITIES[place] as string) : place;
  const frame = split === "train" ? compose(rng, TIME_CORES[format]) : pick(rng, TIME_HELD_OUT[format]);
  // Every property, in schema order: the call-body grammar (node-llama-cpp's JSON-schema grammar) writes them all.
  const args: Record<string, unknown> = { timezone, format };
  const style = int(rng, 0, 2);
  return {
    kind: "get_time",
    text: frame.replace("{z}", place),
    call: { name: "get_time", arguments: args },
    answer: (r) =>
      style === 0 ? `In ${place} it is ${r}.` : style === 1 ? `It's ${r} in ${place}.` : `${place}: ${r}`,
  };
}

// ---------------------------------------------------------------------------------------------------- memory

/** Held-out note titles and values: fixed, and excluded from the composed training pools below. */
export const HELD_OUT_THINGS = ["gym locker", "hotel room", "seat number", "alarm code"];
export const HELD_OUT_WORDS = ["purple", "east wing", "Friday", "basement"];

const THING_QUALIFIERS = [
  "gym",
  "hotel",
  "office",
  "car",
  "bike",
  "school",
  "garage",
  "storage",
  "mail",
  "work",
  "home",
  "guest",
  "club",
  "train",
  "bus",
  "boat",
  "studio",
  "library",
  "server",
  "laptop",
  "phone",
  "front door",
  "back door",
  "spare",
  "parking",
  "wifi",
  "gate",
  "room",
  "seat",
  "alarm",
  "bank",
  "safe",
  "flight",
  "desk",
  "cabin",
  "pool",
  "tennis",
  "shed",
  "attic",
  "lab",
  "kitchen",
  "dorm",
  "camp",
  "locker",
  "luggage",
  "printer",
  "router",
  "tablet",
  "mailbox",
  "apartment",
];
const THING_NOUNS = [
  "code",
  "number",
  "password",
  "pin",
  "spot",
  "key",
  "lock code",
  "locker",
  "room",
  "combination",
  "slot",
  "name",
  "address",
  "level",
  "floor",
  "row",
  "box",
  "tag",
  "id",
  "login",
];
const SINGLE_THINGS = [
  "favorite color",
  "dentist appointment",
  "flight number",
  "license plate",
  "meeting room",
  "train platform",
  "bank pin hint",
  "shoe size",
  "blood type",
  "lucky number",
  "passport number",
  "cat's name",
  "dog's name",
  "landlord's phone",
  "doctor's name",
  "haircut day",
];

/** Note titles of the training split (also the other notes a training memory holds). */
export const TRAIN_THINGS: readonly string[] = [
  ...SINGLE_THINGS,
  ...THING_QUALIFIERS.flatMap((q) => THING_NOUNS.map((n) => `${q} ${n}`)),
  // Held-out titles never appear; nor do doubled words such as "room room" or "locker locker".
].filter((t) => !HELD_OUT_THINGS.includes(t) && !t.startsWith(`${t.split(" ")[0]} ${t.split(" ")[0]}`));

const TRAIN_WORDS = [
  "blue",
  "green",
  "red",
  "orange",
  "yellow",
  "pink",
  "black",
  "white",
  "gray",
  "brown",
  "level three",
  "level two",
  "Tuesday",
  "Monday",
  "Wednesday",
  "Thursday",
  "Saturday",
  "Sunday",
  "north gate",
  "south gate",
  "west wing",
  "the red one",
  "spot A",
  "spot C",
  "gate B",
  "gate D",
  "early",
  "late",
  "upstairs",
  "downstairs",
  "left side",
  "right side",
  "window seat",
  "aisle seat",
  "row five",
  "row twelve",
  "near the door",
  "by the stairs",
  "second floor",
  "top shelf",
  "garden",
  "lobby",
  "corner",
  "behind the shed",
  "next to the lift",
  "under the mat",
  "in the drawer",
  "noon",
  "tomorrow",
  "next week",
  "Maple Street",
  "Oak Avenue",
  "bay four",
  "the blue car",
  "silver",
  "gold",
  "the third door",
  "platform nine",
  "tiger",
  "sunflower",
  "Mondays at six",
];

const LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ";

/** Values a note holds: a number, a word or phrase, or a code like "K42" — never one of the held-out values. */
function memoryValue(rng: Rng, split: Split): string {
  const u = rng();
  if (u < 0.5) return number(rng, split);
  if (split === "heldout") return pick(rng, HELD_OUT_WORDS);
  if (u < 0.85) return pick(rng, TRAIN_WORDS);
  return `${pick(rng, [...LETTERS])}${rng() < 0.3 ? pick(rng, [...LETTERS]) : ""}${int(rng, 1, 999)}`;
}

const NOTE_CORES = [
  "remember that my {t} is {v}",
  "Remember my {t} is {v}",
  "save a note: my {t} is {v}",
  "please note that my {t} is {v}",
  "note that my {t} is {v}",
  "make a note: my {t} is {v}",
  "write down that my {t} is {v}",
  "save this: my {t} is {v}",
  "store a note that my {t} is {v}",
  "jot down: my {t} is {v}",
  "my {t} is {v}, remember that",
  "save that my {t} is {v}",
  "note: my {t} is {v}",
  "add a note that my {t} is {v}",
];
const NOTE_HELD_OUT = ["don't let me forget: my {t} is {v}", "Keep in mind that my {t} is {v}"];

function noteSave(rng: Rng, split: Split): ToolRequest {
  const thing = split === "train" ? pick(rng, TRAIN_THINGS) : pick(rng, HELD_OUT_THINGS);
  const value = memoryValue(rng, split);
  const frame = split === "train" ? compose(rng, NOTE_CORES) : pick(rng, NOTE_HELD_OUT);
  const style = int(rng, 0, 2);
  return {
    kind: "note_save",
    text: frame.replace("{t}", thing).replace("{v}", value),
    call: { name: "note_save", arguments: { title: thing, content: `my ${thing} is ${value}`, tags: [] } },
    answer: (r) => (style === 0 ? `Done. ${r}` : style === 1 ? `${r} I will remember it.` : `OK! ${r}`),
  };
}

const SEARCH_CORES = [
  "what is my {t}",
  "what's my {t}",
  "search my notes for {t}",
  "What did I save about my {t}",
  "find my note about {t}",
  "look up my {t}",
  "what was my {t} again",
  "find my {t}",
  "search for my {t}",
  "look in my notes for {t}",
  "what did I note about my {t}",
  "do I have a note about my {t}",
  "can you recall my {t}",
  "any notes about my {t}",
  "search notes: {t}",
  "what did I tell you to remember about my {t}",
  "I forgot my {t}, what was it",
];
const SEARCH_HELD_OUT = ["do you remember my {t}?", "check my notes for {t}"];

function memorySearch(rng: Rng, split: Split): ToolRequest {
  const thing = split === "train" ? pick(rng, TRAIN_THINGS) : pick(rng, HELD_OUT_THINGS);
  const frame = split === "train" ? compose(rng, SEARCH_CORES) : pick(rng, SEARCH_HELD_OUT);
  const style = int(rng, 0, 1);
  return {
    kind: "memory_search",
    text: frame.replace("{t}", thing),
    call: { name: "memory_search", arguments: { query: thing, limit: 5, source: "all" } },
    answer: (r) => (style === 0 ? `Here is what I found:\n${r}` : `From your notes:\n${r}`),
  };
}

// ---------------------------------------------------------------------------------------------------- chat

const CHAT: Record<Split, readonly (readonly [string, string])[]> = {
  train: [
    ["hi", "Hello! How can I help you today?"],
    ["Hello!", "Hello! How can I help you today?"],
    ["hello there", "Hello! How can I help you today?"],
    ["hey there", "Hi! What can I do for you?"],
    ["hey", "Hi! What can I do for you?"],
    ["good morning", "Good morning! How can I help?"],
    ["good afternoon", "Good afternoon! How can I help?"],
    ["thanks", "You're welcome!"],
    ["Thank you!", "You're welcome!"],
    ["thanks a lot", "Happy to help!"],
    ["thank you very much", "You're welcome!"],
    ["ty", "You're welcome!"],
    ["much appreciated", "Happy to help!"],
    [
      "who are you?",
      "I am the toolbridge demo model. I can do math, roll dice, tell the time and keep notes.",
    ],
    [
      "what can you do?",
      "I can do math, roll dice, tell the time in any time zone, and save or search notes.",
    ],
    ["bye", "Goodbye!"],
    ["bye bye", "Goodbye!"],
    ["see you later", "See you!"],
    ["see ya", "See you!"],
    ["how are you?", "I'm fine, thanks! How can I help?"],
    ["how's it going?", "I'm fine, thanks! How can I help?"],
    ["ok", "Anything else I can help with?"],
    ["okay cool", "Anything else I can help with?"],
    ["great, thanks", "You're welcome!"],
    ["perfect, thank you", "You're welcome!"],
    ["nice", "Glad to help!"],
    ["awesome", "Glad to help!"],
    ["good night", "Good night!"],
    ["yo", "Hi! What can I do for you?"],
    ["howdy", "Hi! What can I do for you?"],
    ["thank you so much", "You're welcome!"],
    ["are you a robot?", "I am the toolbridge demo model, a small language model."],
    ["are you an AI?", "I am the toolbridge demo model, a small language model."],
    ["help", "Ask me to do math, roll dice, tell the time in a city, or remember something."],
    [
      "what should I ask you?",
      "Ask me to do math, roll dice, tell the time in a city, or remember something.",
    ],
    ["never mind", "Okay! Anything else I can help with?"],
    ["that's all", "Okay! Have a nice day!"],
  ],
  heldout: [
    ["good evening!", "Good evening! How can I help?"],
    ["cheers, appreciate it", "You're welcome!"],
    ["hiya", "Hello! How can I help you today?"],
    ["many thanks", "You're welcome!"],
    ["what are you?", "I am the toolbridge demo model."],
    ["goodbye", "Goodbye!"],
    ["Hey!", "Hi! What can I do for you?"],
    ["thx", "You're welcome!"],
  ],
};

const CHAT_OPENERS = ["", "", "", "", "oh ", "ok ", "well, ", "hey, "];
const CHAT_ENDINGS = ["", "", "", "!", ".", " :)", "!!"];

function chat(rng: Rng, split: Split): ToolRequest {
  const [text, reply] = pick(rng, CHAT[split]);
  if (split === "heldout") return { kind: "chat", text, reply };
  const ending = /[?!.]$/.test(text) ? "" : pick(rng, CHAT_ENDINGS);
  return { kind: "chat", text: `${pick(rng, CHAT_OPENERS)}${text}${ending}`, reply };
}

// ---------------------------------------------------------------------------------------------------- mix

const MIX: readonly (readonly [RequestKind, number, (rng: Rng, split: Split) => ToolRequest])[] = [
  ["calculator", 0.3, calculator],
  ["roll_dice", 0.22, dice],
  ["get_time", 0.24, time],
  ["note_save", 0.07, noteSave],
  ["memory_search", 0.07, memorySearch],
  ["chat", 0.1, chat],
];

/** One request of the given split, kind drawn by the mix above (or `kind` when given). */
export function drawRequest(rng: Rng, split: Split, kind?: RequestKind): ToolRequest {
  if (kind) return (MIX.find(([k]) => k === kind) as (typeof MIX)[number])[2](rng, split);
  let u = rng();
  for (const [, weight, make] of MIX) {
    if (u < weight) return make(rng, split);
    u -= weight;
  }
  return chat(rng, split);
}

/** Lower-case the first letter sometimes and drop a trailing "?" sometimes: how people really type. */
export function jitter(rng: Rng, text: string): string {
  let t = text;
  const u = rng();
  if (u < 0.15) t = t.charAt(0).toUpperCase() + t.slice(1);
  else if (u < 0.3) t = t.charAt(0).toLowerCase() + t.slice(1);
  if (rng() < 0.15) t = t.replace(/[?.]$/, "");
  return t;
}
