/**
 * The requests the bundled model learns: phrasings × values for each built-in tool, and small talk that needs no
 * tool. Calls carry every property of the tool's schema in schema order, defaults included, because the runtime's
 * call-body grammar (node-llama-cpp's JSON-schema grammar) makes a model write them all. Every pool is split in
 * two — training and held-out — so the evaluation asks with phrasings and values the model never saw. Values are
 * split by a fixed rule (`heldOutNumber`, the zone lists), phrasings by list.
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

// ---------------------------------------------------------------------------------------------------- calculator

const OPS = [
  { sym: "+", words: ["plus", "+", "added to"] },
  { sym: "-", words: ["minus", "-", "take away"] },
  { sym: "*", words: ["times", "*", "multiplied by", "x"] },
  { sym: "/", words: ["divided by", "/", "over"] },
] as const;

const CALC_FRAMES: Record<Split, readonly string[]> = {
  train: [
    "what is {q}?",
    "What's {q}?",
    "calculate {q}",
    "Calculate {q}.",
    "compute {q}",
    "how much is {q}?",
    "{q} = ?",
    "can you work out {q}?",
    "please calculate {q}",
    "What is {q}",
    "quick math: {q}",
    "tell me {q}",
    "I need {q}",
    "solve {q}",
  ],
  heldout: [
    "Could you figure out {q} for me?",
    "what does {q} come to?",
    "help me with {q}",
    "Evaluate {q}, please.",
  ],
};

const CALC_ANSWERS: readonly ((q: string, r: string) => string)[] = [
  (q, r) => `${q} is ${r}.`,
  (_q, r) => `The answer is ${r}.`,
  (q, r) => `${q} = ${r}`,
  (_q, r) => `It comes to ${r}.`,
];

function calculator(rng: Rng, split: Split): ToolRequest {
  const shape = int(rng, 0, 7);
  let spoken: string;
  let expression: string;
  if (shape <= 2) {
    const a = number(rng, split, rng() < 0.3 ? "decimal" : "int");
    const b = number(rng, split, rng() < 0.2 ? "decimal" : "int");
    const op = pick(rng, OPS);
    spoken = `${a} ${pick(rng, op.words)} ${b}`;
    expression = `${a} ${op.sym} ${b}`;
  } else if (shape === 3) {
    const p = number(rng, split, "small");
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
  } else {
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
  }
  const frame = pick(rng, CALC_FRAMES[split]);
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

const DICE_FRAMES: Record<Split, readonly string[]> = {
  train: [
    "roll {d}",
    "Roll {d}.",
    "please roll {d}",
    "roll {d} for me",
    "can you roll {d}?",
    "throw {d}",
    "Roll {d} please",
  ],
  heldout: ["give me a roll of {d}", "I need you to roll {d}", "toss {d}"],
};

function dice(rng: Rng, split: Split): ToolRequest {
  for (;;) {
    const n = int(rng, 1, 10);
    const sides = pick(rng, [4, 6, 8, 10, 12, 20, 100]);
    const shape = int(rng, 0, 5);
    let notation = `${n}d${sides}`;
    let spoken = rng() < 0.25 && n <= 10 ? `${NUMBER_WORDS[n - 1]} d${sides}` : notation;
    if (shape === 1) {
      const m = int(rng, 1, 12);
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
    const frame = pick(rng, DICE_FRAMES[split]);
    const style = int(rng, 0, 2);
    return {
      kind: "roll_dice",
      text: frame.replace("{d}", spoken),
      call: { name: "roll_dice", arguments: { notation } },
      answer: (r) => {
        const total = /(-?\d+)$/.exec(r)?.[1] ?? r;
        return style === 0
          ? `You rolled ${total}.`
          : style === 1
            ? `${r}. Total: ${total}.`
            : `The total is ${total}.`;
      },
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
export const ZONES: Record<Split, readonly string[]> = {
  train: [
    "UTC",
    "Europe/Lisbon",
    "Europe/Dublin",
    "Europe/Prague",
    "Europe/Vienna",
    "Europe/Warsaw",
    "Europe/Athens",
    "Europe/Helsinki",
    "Europe/Oslo",
    "Europe/Zurich",
    "Europe/Brussels",
    "Europe/Budapest",
    "Asia/Manila",
    "Asia/Karachi",
    "Asia/Dhaka",
    "Asia/Taipei",
    "Asia/Riyadh",
    "Asia/Tehran",
    "Asia/Kathmandu",
    "America/Phoenix",
    "America/Anchorage",
    "America/Bogota",
    "America/Santiago",
    "America/Halifax",
    "America/Vancouver",
    "America/Montevideo",
    "Africa/Lagos",
    "Africa/Nairobi",
    "Africa/Casablanca",
    "Australia/Perth",
    "Australia/Brisbane",
    "Australia/Adelaide",
    "Pacific/Fiji",
    "Atlantic/Reykjavik",
  ],
  heldout: [
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
  ],
};

const TIME_FRAMES: Record<Split, Record<"full" | "date" | "time" | "iso", readonly string[]>> = {
  train: {
    full: [
      "what time is it in {z}?",
      "What's the time in {z}?",
      "current time in {z}",
      "time in {z}",
      "What time is it in {z} right now?",
      "tell me the time in {z}",
    ],
    date: ["what's the date in {z}?", "What day is it in {z}?", "today's date in {z}"],
    time: ["just the clock time in {z}", "what's the local time in {z}? only the time"],
    iso: ["time in {z} in ISO format", "give me the ISO timestamp for {z}"],
  },
  heldout: {
    full: ["do you know what time it is in {z}?", "Got the time for {z}?"],
    date: ["which date is it now in {z}?"],
    time: ["clock time only for {z}, please"],
    iso: ["ISO 8601 time in {z} please"],
  },
};

const CITY_SPLIT: Record<Split, readonly string[]> = {
  train: Object.keys(CITIES),
  // Cities are knowledge, not text to copy: the held-out split asks about known cities with unseen phrasings.
  heldout: Object.keys(CITIES),
};

function time(rng: Rng, split: Split): ToolRequest {
  const format = pick(rng, ["full", "full", "full", "date", "time", "iso"] as const);
  const byCity = split === "train" ? rng() < 0.6 : rng() < 0.4;
  const place = byCity ? pick(rng, CITY_SPLIT[split]) : pick(rng, ZONES[split]);
  const timezone = byCity ? (CITIES[place] as string) : place;
  const frame = pick(rng, TIME_FRAMES[split][format]);
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

const THINGS: Record<Split, readonly string[]> = {
  train: [
    "locker code",
    "wifi password",
    "gate code",
    "parking spot",
    "bike lock code",
    "dentist appointment",
    "flight number",
    "favorite color",
    "door code",
    "bank pin hint",
    "room number",
    "license plate",
    "meeting room",
    "train platform",
  ],
  heldout: ["gym locker", "hotel room", "seat number", "alarm code"],
};

const WORDS: Record<Split, readonly string[]> = {
  train: [
    "blue",
    "green",
    "level three",
    "Tuesday",
    "north gate",
    "seven",
    "the red one",
    "spot A",
    "gate B",
    "early",
    "late",
    "upstairs",
    "downstairs",
    "left side",
    "window seat",
    "row five",
  ],
  heldout: ["purple", "east wing", "Friday", "basement"],
};

function memoryValue(rng: Rng, split: Split): string {
  return rng() < 0.6 ? number(rng, split) : pick(rng, WORDS[split]);
}

function noteSave(rng: Rng, split: Split): ToolRequest {
  const thing = pick(rng, THINGS[split]);
  const value = memoryValue(rng, split);
  const frames =
    split === "train"
      ? [
          "remember that my {t} is {v}",
          "Remember my {t} is {v}.",
          "save a note: my {t} is {v}",
          "please note that my {t} is {v}",
        ]
      : ["don't let me forget: my {t} is {v}", "Keep in mind that my {t} is {v}"];
  const frame = pick(rng, frames);
  const style = int(rng, 0, 1);
  return {
    kind: "note_save",
    text: frame.replace("{t}", thing).replace("{v}", value),
    call: { name: "note_save", arguments: { title: thing, content: `my ${thing} is ${value}`, tags: [] } },
    answer: (r) => (style === 0 ? `Done. ${r}` : `${r} I will remember it.`),
  };
}

function memorySearch(rng: Rng, split: Split): ToolRequest {
  const thing = pick(rng, THINGS[split]);
  const frames =
    split === "train"
      ? [
          "what is my {t}?",
          "search my notes for {t}",
          "What did I save about my {t}?",
          "find my note about {t}",
          "look up my {t}",
        ]
      : ["do you remember my {t}?", "check my notes for {t}"];
  return {
    kind: "memory_search",
    text: pick(rng, frames).replace("{t}", thing),
    call: { name: "memory_search", arguments: { query: thing, limit: 5, source: "all" } },
    answer: (r) => `Here is what I found:\n${r}`,
  };
}

// ---------------------------------------------------------------------------------------------------- chat

const CHAT: Record<Split, readonly (readonly [string, string])[]> = {
  train: [
    ["hi", "Hello! How can I help you today?"],
    ["Hello!", "Hello! How can I help you today?"],
    ["hey there", "Hi! What can I do for you?"],
    ["good morning", "Good morning! How can I help?"],
    ["thanks", "You're welcome!"],
    ["Thank you!", "You're welcome!"],
    ["thanks a lot", "Happy to help!"],
    [
      "who are you?",
      "I am the toolbridge demo model. I can do math, roll dice, tell the time and keep notes.",
    ],
    [
      "what can you do?",
      "I can do math, roll dice, tell the time in any time zone, and save or search notes.",
    ],
    ["bye", "Goodbye!"],
    ["see you later", "See you!"],
    ["how are you?", "I'm fine, thanks! How can I help?"],
    ["ok", "Anything else I can help with?"],
    ["great, thanks", "You're welcome!"],
    ["nice", "Glad to help!"],
    ["good night", "Good night!"],
    ["yo", "Hi! What can I do for you?"],
    ["thank you so much", "You're welcome!"],
    ["are you a robot?", "I am the toolbridge demo model, a small language model."],
    ["help", "Ask me to do math, roll dice, tell the time in a city, or remember something."],
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

function chat(rng: Rng, split: Split): ToolRequest {
  const [text, reply] = pick(rng, CHAT[split]);
  return { kind: "chat", text, reply };
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
