/**
 * Training conversations that look like people: requests for every built-in the chat offers in many phrasings
 * (casual, terse, misspelt, with filler, questions and imperatives, cities instead of zone ids), follow-ups that need
 * the previous turn, two requests in one, tool errors answered with what failed (never a number the tools did not
 * give), out-of-scope requests answered with what the model can do instead, and small talk. Every call runs through
 * the real tool (scenario.ts); every answer quotes the result it got.
 */
import {
  ACCENTED_CITIES,
  ACCENTED_PLACES,
  accentLetters,
  casing,
  count,
  maybeTypo,
  OPENERS,
  placeZones,
  spellPlace,
  wrap,
} from "./people-words.js";
import {
  type CallOutcome,
  chance,
  int,
  type Mix,
  pick,
  type Rng,
  type Scenario,
  type ScenarioContext,
  weighted,
} from "./scenario.js";

// ------------------------------------------------------------------------------------------------------ numbers

/** A number as people type it: mostly integers of 1–4 digits, some decimals and prices. */
function num(rng: Rng, kind: "any" | "int" | "small" | "money" | "percent" = "any"): string {
  if (kind === "small") return String(int(rng, 2, 12));
  if (kind === "percent")
    return pick(rng, [
      "5",
      "10",
      "12",
      "15",
      "18",
      "20",
      "25",
      "30",
      "7.5",
      "12.5",
      "8",
      "40",
      "3",
      "50",
      "22",
      "17",
      "35",
      "60",
      "75",
      "9",
    ]);
  if (kind === "money" || (kind === "any" && chance(rng, 0.15)))
    return `${int(rng, 1, 499)}.${String(int(rng, 0, 99)).padStart(2, "0")}`;
  if (kind === "any" && chance(rng, 0.12)) return `${int(rng, 0, 99)}.${int(rng, 1, 9)}`;
  const digits = weighted(rng, [
    [3, 1],
    [4, 2],
    [3, 3],
    [2, 4],
  ] as const);
  return String(int(rng, digits === 1 ? 1 : 10 ** (digits - 1), 10 ** digits - 1));
}

// ------------------------------------------------------------------------------------------------------ answers

const isFailure = (o: CallOutcome) => o.isError || /^No stored notes/.test(o.text);

/** What failed, in words, without any number the user or the tool did not give. */
function failureReason(o: CallOutcome): string {
  const t = o.text.replace(/^Error:\s*/, "");
  if (/infinite|division by zero/i.test(t))
    return "the result is infinite (a division by zero, or a number too big)";
  if (/Syntax error/i.test(t)) return "the expression has a syntax error";
  if (/Unknown name|Unknown function/i.test(t)) return "the calculator does not know one of those words";
  if (/at most 100|1 to 100 dice/i.test(t)) return "at most 100 dice can be rolled at once";
  if (/Invalid dice notation/i.test(t)) return "that is not valid dice notation";
  if (/Cannot read the time|not a valid date or time/i.test(t))
    return "that is not a date or time I can read";
  if (/Unknown time zone/i.test(t)) return "I don't know that time zone";
  return (t.split(/(?<=\.)\s/)[0] ?? t).replace(/\s*\(.*?\)/g, "");
}

function failureAnswer(rng: Rng, o: CallOutcome, what: string): string {
  const reason = failureReason(o);
  return pick(rng, [
    `Sorry, I couldn't ${what}: ${reason}.`,
    `I can't ${what} — ${reason}.`,
    `That didn't work: ${reason}.`,
    `I couldn't ${what}. The tool said ${reason}.`,
    `Sorry, that failed: ${reason}.`,
  ]);
}

// ------------------------------------------------------------------------------------------------------ calculator

interface CalcRequest {
  text: string;
  expression: string;
  /** How the answer names what was computed. */
  answer: (rng: Rng, r: string) => string;
}

const plain =
  (said: string) =>
  (rng: Rng, r: string): string =>
    pick(rng, [
      `${said} is ${r}.`,
      `${said} = ${r}`,
      `That's ${r}.`,
      `It's ${r}.`,
      `The answer is ${r}.`,
      `${r}`,
    ]);

const OPS = [
  { sym: "+", words: ["plus", "+", "and", "added to"], verb: (a: string, b: string) => `add ${a} and ${b}` },
  {
    sym: "-",
    words: ["minus", "-", "take away", "less"],
    verb: (a: string, b: string) => `subtract ${b} from ${a}`,
  },
  {
    sym: "*",
    words: ["times", "*", "x", "multiplied by"],
    verb: (a: string, b: string) => `multiply ${a} by ${b}`,
  },
  { sym: "/", words: ["divided by", "/", "over"], verb: (a: string, b: string) => `divide ${a} by ${b}` },
] as const;

const ASK = [
  "what's {q}",
  "what is {q}",
  "whats {q}",
  "how much is {q}",
  "{q}",
  "{q}?",
  "calculate {q}",
  "compute {q}",
  "can u do {q}",
  "work out {q}",
  "quick math: {q}",
  "i need {q}",
  "solve {q}",
  "tell me {q}",
  "what do i get for {q}",
  "{q} = ?",
  "what does {q} come to",
  "figure out {q}",
  "help me with {q}",
  "do {q} for me",
];

const UNITS: readonly (readonly [string[], string, string[], string])[] = [
  [["cm", "centimeters"], "cm", ["inches", "inch", "in"], "inch"],
  [["inches", "in"], "inch", ["cm", "centimeters"], "cm"],
  [["miles", "mi"], "miles", ["km", "kilometers"], "km"],
  [["km", "kilometers"], "km", ["miles"], "miles"],
  [["kg", "kilos", "kilograms"], "kg", ["pounds", "lbs", "lb"], "lb"],
  [["pounds", "lbs"], "lb", ["kg", "kilos"], "kg"],
  [["grams", "g"], "g", ["ounces", "oz"], "oz"],
  [["ounces", "oz"], "oz", ["grams", "g"], "g"],
  [["feet", "ft"], "ft", ["meters", "m"], "m"],
  [["meters", "m"], "m", ["feet", "ft"], "ft"],
  [["liters", "litres", "l"], "liter", ["gallons"], "gallon"],
  [["gallons"], "gallon", ["liters", "litres"], "liter"],
  [["fahrenheit", "degrees F", "F"], "degF", ["celsius", "C"], "degC"],
  [["celsius", "degrees C", "C"], "degC", ["fahrenheit", "F"], "degF"],
];

function calcRequest(rng: Rng): CalcRequest {
  const shape = weighted(rng, [
    [10, "binary"],
    [3, "verb"],
    [6, "percent"],
    [4, "tip"],
    [2, "off"],
    [3, "split"],
    [3, "power"],
    [3, "root"],
    [2, "fraction"],
    [2, "mean"],
    [1, "factorial"],
    [1, "round"],
    [3, "unit"],
    [2, "story"],
    [4, "chain"],
    [1, "decimal"],
    [2, "facts"],
  ] as const);
  const ask = (q: string, imperative = false) => pick(rng, ASK).replace("{q}", q) + (imperative ? "" : "");
  switch (shape) {
    case "binary": {
      const [a, b] = [num(rng), num(rng)];
      const op = pick(rng, OPS);
      const spoken = `${a} ${pick(rng, op.words)} ${b}`;
      const tight = chance(rng, 0.2);
      const expression = tight ? `${a}${op.sym}${b}` : `${a} ${op.sym} ${b}`;
      return {
        text: ask(tight ? expression : spoken),
        expression,
        answer: plain(tight ? expression : spoken),
      };
    }
    case "verb": {
      const [a, b] = [num(rng), num(rng)];
      const op = pick(rng, OPS);
      return { text: op.verb(a, b), expression: `${a} ${op.sym} ${b}`, answer: plain(`${a} ${op.sym} ${b}`) };
    }
    case "percent": {
      const p = num(rng, "percent");
      const a = num(rng, chance(rng, 0.5) ? "money" : "int");
      const spoken = chance(rng, 0.5) ? `${p}% of ${a}` : `${p} percent of ${a}`;
      return { text: ask(spoken), expression: `${p}% of ${a}`, answer: plain(`${p}% of ${a}`) };
    }
    case "tip": {
      const p = num(rng, "percent");
      const a = num(rng, chance(rng, 0.6) ? "money" : "int");
      const text = pick(rng, [
        `${p}% tip on ${a}`,
        `${p}% tip on a ${a} dollar bill`,
        `tip ${p} percent on ${a}`,
        `whats a ${p}% tip on ${a}`,
        `how much is a ${p} percent tip on ${a}`,
        `tip calc: ${p}% on ${a}`,
        `${p} percent tip for a ${a} bill`,
        `what should i tip on ${a} at ${p}%`,
      ]);
      return {
        text,
        expression: `${p}% of ${a}`,
        answer: (r2, r) => pick(r2, [`The tip is ${r}.`, `A ${p}% tip on ${a} is ${r}.`, `That's ${r}.`]),
      };
    }
    case "off": {
      const p = num(rng, "percent");
      const a = num(rng, chance(rng, 0.5) ? "money" : "int");
      const text = pick(rng, [
        `what is ${p}% off ${a}`,
        `${p} percent off ${a}`,
        `${a} with ${p}% off`,
        `price after ${p}% discount on ${a}`,
      ]);
      return {
        text,
        expression: `${a} - ${p}% of ${a}`,
        answer: (r2, r) => pick(r2, [`${a} with ${p}% off is ${r}.`, `That comes to ${r}.`, `It's ${r}.`]),
      };
    }
    case "split": {
      const a = num(rng, chance(rng, 0.6) ? "money" : "int");
      const n = int(rng, 2, 12);
      const text = pick(rng, [
        `split ${a} between ${count(rng, n)} people`,
        `${a} split ${n} ways`,
        `divide ${a} among ${n} of us`,
        `we owe ${a}, there are ${n} of us, how much each`,
        `${a} shared by ${n} people`,
      ]);
      if (/\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\b/.test(text)) {
        return {
          text,
          expression: `${a} / ${n}`,
          answer: (r2, r) => pick(r2, [`That's ${r} each.`, `${r} per person.`]),
        };
      }
      return {
        text,
        expression: `${a} / ${n}`,
        answer: (r2, r) => pick(r2, [`That's ${r} each.`, `${r} per person.`]),
      };
    }
    case "power": {
      const a = String(int(rng, 2, 40));
      const n = int(rng, 2, 12);
      const form = int(rng, 0, 4);
      const ord = n === 2 ? "2nd" : n === 3 ? "3rd" : `${n}th`;
      const text = [
        `${a} squared`,
        `${a} cubed`,
        `${a} to the power of ${n}`,
        `${a} to the ${ord}`,
        `${a}^${n}`,
      ][form] as string;
      const expression = form === 0 ? `${a}^2` : form === 1 ? `${a}^3` : `${a}^${n}`;
      return { text: ask(text), expression, answer: plain(text) };
    }
    case "root": {
      const a = num(rng, "int");
      const cube = chance(rng, 0.3);
      const text = cube
        ? pick(rng, [`cube root of ${a}`, `the cube root of ${a}`, `cbrt ${a}`])
        : pick(rng, [
            `square root of ${a}`,
            `sqrt of ${a}`,
            `sqrt(${a})`,
            `the square root of ${a}`,
            `root of ${a}`,
          ]);
      return { text: ask(text), expression: `${cube ? "cbrt" : "sqrt"}(${a})`, answer: plain(text) };
    }
    case "fraction": {
      const a = num(rng, "int");
      const [word, expression] = pick(rng, [
        ["half of", `${a} / 2`],
        ["a third of", `${a} / 3`],
        ["a quarter of", `${a} / 4`],
        ["double", `${a} * 2`],
        ["twice", `${a} * 2`],
        ["triple", `${a} * 3`],
      ] as const);
      return { text: ask(`${word} ${a}`), expression, answer: plain(`${word} ${a}`) };
    }
    case "mean": {
      const xs = Array.from({ length: int(rng, 2, 5) }, () => num(rng, "int"));
      const list = `${xs.slice(0, -1).join(", ")} and ${xs.at(-1)}`;
      const text = pick(rng, [
        `average of ${list}`,
        `what's the average of ${list}`,
        `mean of ${xs.join(", ")}`,
      ]);
      return {
        text,
        expression: `mean(${xs.join(", ")})`,
        answer: (r2, r) => pick(r2, [`The average is ${r}.`, `It's ${r}.`]),
      };
    }
    case "factorial": {
      const n = String(int(rng, 2, 15));
      const text = pick(rng, [`${n} factorial`, `factorial of ${n}`, `${n}!`]);
      return { text: ask(text), expression: `factorial(${n})`, answer: plain(text) };
    }
    case "round": {
      const a = `${int(rng, 0, 999)}.${String(int(rng, 1000, 99999))}`;
      const n = int(rng, 0, 3);
      const text = pick(rng, [
        `round ${a} to ${n} decimals`,
        `round ${a} to ${n} decimal places`,
        `${a} rounded to ${n} places`,
      ]);
      return {
        text,
        expression: `round(${a}, ${n})`,
        answer: (r2, r) => pick(r2, [`That's ${r}.`, `Rounded: ${r}.`]),
      };
    }
    case "unit": {
      const [fromWords, from, toWords, to] = pick(rng, UNITS);
      const a = num(rng, chance(rng, 0.7) ? "int" : "any");
      const f = pick(rng, fromWords);
      const t = pick(rng, toWords);
      const text = pick(rng, [
        `convert ${a} ${f} to ${t}`,
        `how many ${t} is ${a} ${f}`,
        `${a} ${f} in ${t}`,
        `what's ${a} ${f} in ${t}`,
        `${a} ${f} to ${t}`,
      ]);
      return {
        text,
        expression: `${a} ${from} to ${to}`,
        answer: (r2, r) => pick(r2, [`${a} ${f} is ${r}.`, `That's ${r}.`]),
      };
    }
    case "story": {
      const [a, b] = [String(int(rng, 2, 30)), num(rng, chance(rng, 0.3) ? "money" : "int")];
      const [text, expression] = pick(rng, [
        [`I have ${a} boxes with ${b} apples each, how many apples is that`, `${a} * ${b}`],
        [`if I earn ${b} an hour for ${a} hours what do I make`, `${b} * ${a}`],
        [`${a} tickets at ${b} each, what's the total`, `${a} * ${b}`],
        [`I had ${b} and spent ${a}, how much is left`, `${b} - ${a}`],
        [`${a} rows of ${b} chairs, how many chairs`, `${a} * ${b}`],
        [`we drove ${b} km in ${a} hours, what's the average speed`, `${b} / ${a}`],
      ] as const);
      return {
        text,
        expression,
        answer: (r2, r) => pick(r2, [`That's ${r}.`, `It comes to ${r}.`, `${r}.`]),
      };
    }
    case "chain": {
      const n = int(rng, 2, 3);
      const parts = [num(rng, "int")];
      const words = [parts[0] as string];
      for (let i = 0; i < n; i++) {
        const op = pick(rng, OPS);
        const x = num(rng, "int");
        parts.push(op.sym, x);
        words.push(chance(rng, 0.5) ? op.sym : pick(rng, op.words), x);
      }
      let expression = parts.join(" ");
      let spoken = chance(rng, 0.5) ? expression : words.join(" ");
      if (chance(rng, 0.2)) {
        expression = `(${parts.slice(0, 3).join(" ")}) ${parts.slice(3).join(" ")}`;
        spoken = expression;
      }
      return { text: ask(spoken), expression, answer: plain(spoken) };
    }
    case "facts": {
      // Counting with the units of time people know: the expression spells the facts out.
      const n = int(rng, 2, 12);
      const [text, expression] = pick(rng, [
        ["how many seconds are in an hour", "60 * 60"],
        ["how many seconds in a day", "24 * 60 * 60"],
        ["how many minutes are in a day", "24 * 60"],
        ["how many minutes in a week", "7 * 24 * 60"],
        ["how many hours are in a week", "7 * 24"],
        ["how many hours in a year", "365 * 24"],
        ["how many days are in a year", "365"],
        [`how many days in ${n} weeks`, `${n} * 7`],
        [`how many hours in ${n} days`, `${n} * 24`],
        [`how many minutes in ${n} hours`, `${n} * 60`],
        [`how many seconds in ${n} minutes`, `${n} * 60`],
        [`how many weeks in ${n * 7} days`, `${n * 7} / 7`],
        [`how many months in ${n} years`, `${n} * 12`],
      ] as const);
      return { text, expression, answer: (r2, r) => pick(r2, [`${r}.`, `That's ${r}.`, `There are ${r}.`]) };
    }
    default: {
      const [a, b] = [String(int(rng, 1, 9)), String(int(rng, 2, 19))];
      return {
        text: pick(rng, [`what's ${a}/${b} as a decimal`, `${a}/${b} in decimal`]),
        expression: `${a}/${b}`,
        answer: plain(`${a}/${b}`),
      };
    }
  }
}

export const calculatorScenario: Scenario = async (ctx) => {
  const r = calcRequest(ctx.rng);
  const nums = r.text.match(/[0-9.]+/g) ?? [];
  ctx.user(maybeTypo(ctx.rng, wrap(ctx.rng, r.text), nums));
  const o = await ctx.call("calculator", { expression: r.expression });
  ctx.answer(o.isError ? failureAnswer(ctx.rng, o, "work that out") : r.answer(ctx.rng, o.text));
};

// ------------------------------------------------------------------------------------------------------ dice

interface DiceRequest {
  text: string;
  notation: string;
}

function diceRequest(rng: Rng): DiceRequest {
  const sides = weighted(rng, [
    [3, 20],
    [4, 6],
    [2, 8],
    [2, 10],
    [2, 12],
    [1, 4],
    [1, 100],
    [1, int(rng, 2, 99)],
  ] as const);
  const n = weighted(rng, [
    [4, 1],
    [6, int(rng, 2, 6)],
    [2, int(rng, 7, 20)],
  ] as const);
  const shape = weighted(rng, [
    [8, "plain"],
    [3, "words"],
    [3, "modifier"],
    [1, "advantage"],
    [2, "keep"],
    [1, "drop"],
  ] as const);
  const roll = pick(rng, [
    "roll",
    "roll",
    "throw",
    "roll me",
    "give me",
    "i need",
    "can you roll",
    "rolling",
    "toss",
    "let's roll",
  ]);
  switch (shape) {
    case "words": {
      if (n === 1) {
        const text = pick(rng, [
          `${roll} a ${sides} sided die`,
          `${roll} a ${sides}-sided die`,
          `${roll} a d${sides}`,
          `${roll} one d${sides}`,
        ]);
        return { text, notation: `1d${sides}` };
      }
      const dice = sides === 6 && chance(rng, 0.5) ? "dice" : `${sides}-sided dice`;
      return { text: `${roll} ${count(rng, n)} ${dice}`, notation: `${n}d${sides}` };
    }
    case "modifier": {
      const m = int(rng, 1, 12);
      const plus = chance(rng, 0.7);
      const base = `${n}d${sides}`;
      const text = chance(rng, 0.5)
        ? `${roll} ${base}${plus ? "+" : "-"}${m}`
        : `${roll} ${base} ${plus ? "plus" : "minus"} ${m}`;
      return { text, notation: `${base}${plus ? "+" : "-"}${m}` };
    }
    case "advantage": {
      const adv = chance(rng, 0.7);
      return {
        text: `${roll} a d20 with ${adv ? "advantage" : "disadvantage"}`,
        notation: `2d20${adv ? "kh1" : "kl1"}`,
      };
    }
    case "keep": {
      const total = Math.max(n, 2);
      const k = int(rng, 1, total - 1);
      const high = chance(rng, 0.7);
      return {
        text: `${roll} ${total}d${sides} and keep the ${high ? "highest" : "lowest"}${k > 1 ? ` ${k}` : ""}`,
        notation: `${total}d${sides}k${high ? "h" : "l"}${k}`,
      };
    }
    case "drop": {
      const total = Math.max(n, 2);
      const low = chance(rng, 0.8);
      return {
        text: `${roll} ${total}d${sides} and drop the ${low ? "lowest" : "highest"}`,
        notation: `${total}d${sides}d${low ? "l" : "h"}1`,
      };
    }
    default: {
      const notation = `${n}d${sides}`;
      const said = n === 1 && chance(rng, 0.4) ? `d${sides}` : notation;
      const text = pick(rng, [
        `${roll} ${said}`,
        `${said}`,
        `${said} please`,
        `${roll} ${said} for damage`,
        `${roll} ${said} for initiative`,
        `dice: ${said}`,
      ]);
      return { text, notation: said === `d${sides}` ? `1d${sides}` : notation };
    }
  }
}

const total = (result: string) => /(-?\d+)\s*$/.exec(result)?.[1] ?? result;

function diceAnswer(rng: Rng, o: CallOutcome): string {
  const t = total(o.text);
  return pick(rng, [
    `You rolled ${t}.`,
    `${o.text}`,
    `Total: ${t}.`,
    `${t}!`,
    `It's a ${t}.`,
    `${o.text.replace(/^Rolled /, "")}`,
  ]);
}

export const diceScenario: Scenario = async (ctx) => {
  const r = diceRequest(ctx.rng);
  ctx.user(maybeTypo(ctx.rng, wrap(ctx.rng, r.text), [r.notation]));
  const o = await ctx.call("roll_dice", { notation: r.notation });
  ctx.answer(o.isError ? failureAnswer(ctx.rng, o, "roll that") : diceAnswer(ctx.rng, o));
};

// ------------------------------------------------------------------------------------------------------ time

const PLACES = placeZones();
const PLACE_NAMES = [...PLACES.keys()];
const ZONE_IDS = [...new Set(PLACES.values())];

function place(rng: Rng, mix: Mix = 4): { said: string; zone: string; name: string } {
  // From mix 7 on, some places are written with their own letters ("Zürich"), so the model has seen them.
  if (mix >= 7 && chance(rng, 0.15)) {
    const key = pick(rng, Object.keys(ACCENTED_PLACES));
    const name = ACCENTED_PLACES[key] as string;
    return { said: spellPlace(rng, name), zone: PLACES.get(key) as string, name };
  }
  if (chance(rng, 0.12)) {
    const zone = pick(rng, ZONE_IDS);
    return { said: zone, zone, name: zone };
  }
  const name = pick(rng, PLACE_NAMES);
  return { said: spellPlace(rng, name), zone: PLACES.get(name) as string, name };
}

/**
 * The time in a place in ISO format, as people ask for it: the first three since mix 4; from mix 8 on, the standard's
 * number too, leading the request ("ISO 8601 timestamp for …"), where generation 7 took "iSO 8601 time in Asia/Colombo
 * please" for arithmetic on 8601 (a phrasing of the template held-out split, which stays unseen).
 */
const ISO_PHRASINGS: readonly ((z: string) => string)[] = [
  (z) => `iso time in ${z}`,
  (z) => `time in ${z} as iso 8601`,
  (z) => `ISO timestamp for ${z}`,
  (z) => `ISO 8601 timestamp for ${z}`,
  (z) => `${z} time in ISO 8601`,
  (z) => `ISO-8601 time for ${z}`,
  (z) => `iso 8601 for ${z}`,
  (z) => `current time in ${z}, ISO 8601 format`,
  (z) => `ISO 8601 now in ${z}`,
  (z) => `give me ${z} time as ISO 8601`,
  (z) => `8601 timestamp for ${z}`,
  (z) => `ISO 8601 date and time for ${z}`,
];

function timeRequest(rng: Rng, mix: Mix = 4): { text: string; zone: string; format: string; place: string } {
  const p = place(rng, mix);
  // From mix 8 on, the ISO format twice as often, in the many ways people name it (ISO_PHRASINGS).
  const format = weighted(rng, [
    [7, "full"],
    [2, "date"],
    [mix >= 8 ? 2 : 1, "iso"],
  ] as const);
  const z = p.said;
  const text =
    format === "date"
      ? pick(rng, [
          `what's the date in ${z}`,
          `what day is it in ${z}`,
          `date in ${z}`,
          `todays date in ${z}`,
          `what's today's date in ${z}`,
          `which day is it over in ${z}`,
        ])
      : format === "iso"
        ? pick(rng, mix >= 8 ? ISO_PHRASINGS.map((f) => f(z)) : ISO_PHRASINGS.slice(0, 3).map((f) => f(z)))
        : pick(rng, [
            `what time is it in ${z}`,
            `time in ${z}`,
            `whats the time in ${z}`,
            `current time in ${z}`,
            `what's the time over in ${z}`,
            `tell me the time in ${z}`,
            `${z} time`,
            `clock in ${z}`,
            `is it late in ${z}`,
            `is it morning in ${z} right now`,
            `do you know the time in ${z}`,
            `what time is it now in ${z}`,
            `time for ${z}`,
            `local time in ${z}`,
            `the time in ${z}`,
            `got the time for ${z}`,
          ]);
  return { text, zone: p.zone, format, place: p.name };
}

function timeAnswer(rng: Rng, placeName: string, r: string): string {
  return pick(rng, [
    `In ${placeName} it is ${r}.`,
    `It's ${r} in ${placeName}.`,
    `${placeName}: ${r}`,
    `It's ${r} there.`,
  ]);
}

export const timeScenario: Scenario = async (ctx) => {
  const rng = ctx.rng;
  if (chance(rng, 0.08)) {
    ctx.user(
      wrap(
        rng,
        pick(rng, [
          "what's the date today",
          "what day is it",
          "whats todays date",
          "what's the date",
          "which day is it today",
          "date?",
        ]),
        false,
      ),
    );
    const o = await ctx.call("get_time", { timezone: "UTC", format: "date" });
    ctx.answer(pick(rng, [`Today is ${o.text} (UTC).`, `It's ${o.text}.`, `${o.text}`]));
    return;
  }
  const r = timeRequest(rng, ctx.mix);
  ctx.user(maybeTypo(rng, wrap(rng, r.text, false), [r.place]));
  const o = await ctx.call("get_time", { timezone: r.zone, format: r.format });
  ctx.answer(o.isError ? failureAnswer(rng, o, "get the time there") : timeAnswer(rng, r.place, o.text));
};

// ------------------------------------------------------------------------------------------------------ convert_time

/** A clock time as people say it, and as the tool reads it (24-hour HH:MM). */
function clockTime(rng: Rng): { said: string; time: string } {
  const h = int(rng, 0, 23);
  const m = pick(rng, [0, 0, 0, 30, 15, 45, int(rng, 0, 59)]);
  const hh = String(h).padStart(2, "0");
  const mm = String(m).padStart(2, "0");
  const time = `${hh}:${mm}`;
  if (h === 12 && m === 0 && chance(rng, 0.3)) return { said: "noon", time };
  if (h === 0 && m === 0 && chance(rng, 0.3)) return { said: "midnight", time };
  const h12 = h % 12 === 0 ? 12 : h % 12;
  const ampm = h < 12 ? "am" : "pm";
  const style = int(rng, 0, 4);
  const said =
    style === 0
      ? time
      : style === 1
        ? `${h12}${m ? `:${mm}` : ""}${ampm}`
        : style === 2
          ? `${h12}${m ? `:${mm}` : ""} ${ampm}`
          : style === 3
            ? `${h12}:${mm} ${ampm.toUpperCase()}`
            : `${h}:${mm}`;
  return { said, time: style === 4 ? `${h}:${mm}` : time };
}

export const convertScenario: Scenario = async (ctx) => {
  const rng = ctx.rng;
  const a = place(rng, ctx.mix);
  let b = place(rng, ctx.mix);
  while (b.zone === a.zone) b = place(rng, ctx.mix);
  const t = clockTime(rng);
  const text = pick(rng, [
    `when it's ${t.said} in ${a.said} what time is it in ${b.said}`,
    `convert ${t.said} ${a.said} time to ${b.said} time`,
    `convert ${t.said} from ${a.said} to ${b.said}`,
    `if it's ${t.said} in ${a.said}, what time is it in ${b.said}`,
    `${t.said} in ${a.said} is what in ${b.said}`,
    `${t.said} ${a.said} = ? in ${b.said}`,
    `meeting at ${t.said} ${a.said} time, what is that in ${b.said}`,
    `call at ${t.said} in ${a.said}, what time is that for ${b.said}`,
    `what's ${t.said} ${a.said} time in ${b.said}`,
    `${a.said} ${t.said} to ${b.said}`,
  ]);
  ctx.user(maybeTypo(rng, wrap(rng, text, false), [a.name, b.name, t.said]));
  const o = await ctx.call("convert_time", {
    time: t.time,
    from_timezone: a.zone,
    to_timezone: b.zone,
    format: "full",
  });
  if (o.isError) {
    ctx.answer(failureAnswer(rng, o, "convert that time"));
    return;
  }
  const clocks = o.text.match(/\d{1,2}:\d\d [AP]M/g) ?? [];
  const there = clocks.at(-1);
  ctx.answer(
    there && chance(rng, 0.6)
      ? pick(rng, [
          `It will be ${there} in ${b.name}.`,
          `That's ${there} in ${b.name}.`,
          `${there} in ${b.name}.`,
        ])
      : o.text,
  );
};

// ------------------------------------------------------------------------------------------------------ time_difference

const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];

function isoDate(rng: Rng, from = 2019, to = 2028): string {
  const y = int(rng, from, to);
  const m = int(rng, 1, 12);
  const d = int(rng, 1, 28);
  return `${y}-${String(m).padStart(2, "0")}-${String(d).padStart(2, "0")}`;
}

const HOLIDAYS: readonly (readonly [string[], number, number])[] = [
  [["christmas", "Christmas", "xmas"], 12, 25],
  [["new year", "New Year's", "new years"], 1, 1],
  [["halloween", "Halloween"], 10, 31],
  [["valentine's day", "Valentines day"], 2, 14],
  [["new year's eve", "NYE"], 12, 31],
];

function differenceAnswer(rng: Rng, o: CallOutcome, what: string): string {
  const first = o.text.split(" (")[0] as string;
  return pick(rng, [`${first} ${what}.`, `That's ${first}.`, `It's ${first}.`, `${o.text.split(". ")[0]}.`]);
}

export const differenceScenario: Scenario = async (ctx) => {
  const rng = ctx.rng;
  const shape = weighted(rng, [
    [3, "between"],
    [3, "until"],
    [2, "ago"],
    [3, "holiday"],
  ] as const);
  const unitWord = weighted(rng, [
    [5, "days"],
    [2, "weeks"],
    [1, "hours"],
    [1, "minutes"],
  ] as const);
  if (shape === "holiday") {
    const [names, month, day] = pick(rng, HOLIDAYS);
    const name = pick(rng, names);
    const text = pick(rng, [
      `how many days until ${name}`,
      `days till ${name}?`,
      `how long until ${name}`,
      `how many days left until ${name}`,
      `${name} countdown`,
    ]);
    ctx.user(wrap(rng, text, false));
    // The year comes from today's date: ask the clock first, then count to the next one.
    const today = await ctx.call("get_time", { timezone: "UTC", format: "iso" });
    const now = new Date(ctx.now);
    let year = now.getUTCFullYear();
    if (now.getUTCMonth() + 1 > month || (now.getUTCMonth() + 1 === month && now.getUTCDate() >= day)) year++;
    void today;
    const target = `${year}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`;
    const o = await ctx.call("time_difference", { from: "now", to: target, unit: "days" });
    ctx.answer(o.isError ? failureAnswer(rng, o, "count that") : differenceAnswer(rng, o, `until ${name}`));
    return;
  }
  const a = isoDate(rng);
  let b = isoDate(rng);
  while (b === a) b = isoDate(rng);
  const [from, to] = a < b ? [a, b] : [b, a];
  let text: string;
  let args: Record<string, unknown>;
  if (shape === "between" && chance(rng, 0.2)) {
    // Instants with a clock time: counted in hours or minutes.
    const unit = pick(rng, ["hours", "minutes"]);
    const f = `${from}T${String(int(rng, 0, 23)).padStart(2, "0")}:${pick(rng, ["00", "30", "15"])}`;
    const t = `${to}T${String(int(rng, 0, 23)).padStart(2, "0")}:${pick(rng, ["00", "30", "45"])}`;
    text = pick(rng, [`how many ${unit} between ${f} and ${t}`, `${unit} from ${f} to ${t}`]);
    args = { from: f, to: t, unit };
  } else if (shape === "between") {
    text = pick(rng, [
      `how many ${unitWord} between ${from} and ${to}`,
      `${unitWord} from ${from} to ${to}`,
      `how long from ${from} to ${to}`,
      `how many ${unitWord} are there between ${from} and ${to}`,
      `time between ${from} and ${to} in ${unitWord}`,
    ]);
    args = { from, to, unit: /how long from/.test(text) ? "days" : unitWord };
  } else if (shape === "until") {
    text = pick(rng, [
      `how many ${unitWord} until ${to}`,
      `${unitWord} left until ${to}`,
      `how long until ${to}`,
      `how many ${unitWord} till my birthday on ${to}`,
    ]);
    args = { from: "now", to, unit: /how long until/.test(text) ? "days" : unitWord };
  } else {
    text = pick(rng, [
      `how long ago was ${from}`,
      `how many ${unitWord} since ${from}`,
      `${unitWord} since ${from}`,
    ]);
    args = { from, to: "now", unit: /how long ago/.test(text) ? "days" : unitWord };
  }
  ctx.user(wrap(rng, text, false));
  const o = await ctx.call("time_difference", args);
  ctx.answer(o.isError ? failureAnswer(rng, o, "count that") : differenceAnswer(rng, o, ""));
};

// ------------------------------------------------------------------------------------------------------ notes

/** Things people keep notes about: a subject (the note's title) and a sentence holding a value. */
const SUBJECT_HEADS = [
  "locker",
  "gate",
  "door",
  "alarm",
  "safe",
  "bike lock",
  "padlock",
  "garage",
  "storage unit",
  "mailbox",
  "office",
  "wifi",
  "router",
  "printer",
  "laptop",
  "phone",
  "tablet",
  "bank",
  "gym",
  "pool",
  "hotel room",
  "parking",
  "car",
  "train",
  "flight",
  "bus",
  "seat",
  "desk",
  "cabin",
  "apartment",
  "building",
  "school",
  "library card",
  "insurance",
  "passport",
  "license",
  "membership",
  "account",
  "project",
  "server",
];
const SUBJECT_TAILS = [
  "code",
  "number",
  "password",
  "pin",
  "combo",
  "combination",
  "id",
  "spot",
  "key",
  "login",
  "room",
];
const PEOPLE = [
  "Priyanka",
  "Aisha",
  "Lena",
  "Oscar",
  "Mei",
  "Carlos",
  "Nadia",
  "Sam",
  "Ines",
  "Yusuf",
  "Greta",
  "Omar",
  "Hana",
  "Felix",
  "Rosa",
  "Dmitri",
  "Chloe",
  "Ravi",
  "Ben",
  "Olga",
  "Kwame",
  "Mia",
  "Luis",
  "Anya",
  "Theo",
  "Zara",
  "my mom",
  "my dad",
  "my sister",
  "my brother",
  "grandma",
  "my boss",
  "the landlord",
  "the dentist",
  "the vet",
];
const EVENTS = [
  "birthday",
  "anniversary",
  "phone number",
  "address",
  "flight",
  "appointment",
  "favorite color",
  "allergy",
  "email",
];
const WORDS = [
  "maple",
  "violet",
  "harbor",
  "falcon",
  "orchid",
  "pebble",
  "lantern",
  "copper",
  "meadow",
  "thunder",
  "saffron",
  "juniper",
  "marble",
  "cobalt",
  "willow",
  "ember",
  "quartz",
  "tundra",
  "velvet",
  "zephyr",
  "almond",
  "basil",
  "cedar",
  "dune",
  "fjord",
  "glacier",
  "hazel",
  "indigo",
  "jasper",
  "kestrel",
  "lotus",
  "mango",
  "nectar",
  "olive",
  "pepper",
  "quill",
  "raven",
  "sable",
  "tulip",
  "umber",
  "walnut",
  "yarrow",
  "blue",
  "green",
  "orange",
  "silver",
  "red",
];
const LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ";
const DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Saturday", "Sunday"];

/** A value worth writing down: codes, numbers, words with digits, places, dates, times. */
function noteValue(rng: Rng, head: string): string {
  const kind = weighted(rng, [
    [4, "digits"],
    [2, "code"],
    [2, "word"],
    [1, "spot"],
    [1, "phone"],
  ] as const);
  if (/wifi|router|password|login|account/.test(head) && chance(rng, 0.7))
    return `${pick(rng, WORDS)}${int(rng, 1, 999)}`;
  if (kind === "digits") return String(int(rng, 10, 999999));
  if (kind === "code")
    return `${pick(rng, [...LETTERS])}${chance(rng, 0.5) ? pick(rng, [...LETTERS]) : ""}${int(rng, 1, 9999)}`;
  if (kind === "word") return `${pick(rng, WORDS)}${chance(rng, 0.5) ? int(rng, 1, 99) : ""}`;
  if (kind === "spot") return `level ${int(rng, 1, 9)}, spot ${pick(rng, [...LETTERS])}${int(rng, 1, 99)}`;
  return `555-${String(int(rng, 0, 9999)).padStart(4, "0")}`;
}

interface Fact {
  /** The title a note gets. */
  title: string;
  /** The sentence (the note's content). */
  content: string;
  /** What a later question is about (a search query), and the value the answer must state. */
  query: string;
  value: string;
  /** How someone asks for it later. */
  question: string;
}

function fact(rng: Rng, mix: Mix): Fact {
  // Drawn only from mix 7 on, so the earlier mixes' random streams (and data) stay as they were.
  if (mix >= 7 && chance(rng, 0.5)) return laterFact(rng);
  const kind = weighted(rng, [
    [5, "code"],
    [2, "person"],
    [1, "appointment"],
    [1, "parking"],
    [1, "list"],
    [1, "lent"],
  ] as const);
  if (kind === "person") {
    const who = pick(rng, PEOPLE);
    const what = pick(rng, EVENTS);
    const owner = who.startsWith("my ") || who.startsWith("the ") ? `${who}'s` : `${who}'s`;
    const value =
      what === "birthday" || what === "anniversary"
        ? `${pick(rng, MONTHS)} ${int(rng, 1, 28)}`
        : what === "phone number"
          ? `555-${String(int(rng, 0, 9999)).padStart(4, "0")}`
          : what === "address"
            ? `${int(rng, 1, 300)} ${pick(rng, WORDS).replace(/^./, (c) => c.toUpperCase())} Street`
            : what === "shoe size"
              ? String(int(rng, 35, 47))
              : what === "favorite color"
                ? pick(rng, WORDS)
                : what === "email"
                  ? `${pick(rng, WORDS)}${int(rng, 1, 99)}@example.com`
                  : `${pick(rng, DAYS)} at ${int(rng, 1, 12)}${pick(rng, ["am", "pm"])}`;
    const subject = `${owner} ${what}`;
    return {
      title: subject,
      content: `${subject} is ${value}`,
      query: `${who.replace(/^(my|the) /, "")} ${what}`,
      value,
      question: pick(rng, [
        `what is ${subject}`,
        `when is ${subject}`,
        `what's ${subject} again`,
        `do you remember ${subject}`,
      ]),
    };
  }
  if (kind === "appointment") {
    const what = pick(rng, [
      "doctor's appointment",
      "haircut",
      "car service",
      "job interview",
      "parent meeting",
      "yoga class",
      "vet visit",
    ]);
    const value = `${pick(rng, DAYS)} at ${int(rng, 1, 12)}${pick(rng, ["am", "pm", ":30pm", ":15am"])}`;
    return {
      title: what,
      content: `${what} on ${value}`,
      query: what.split(" ")[0]?.replace(/'s$/, "") as string,
      value,
      question: pick(rng, [
        `when is my ${what}`,
        `do I have anything saved about the ${what}`,
        `what day is the ${what}`,
      ]),
    };
  }
  if (kind === "parking") {
    const value = `level ${int(rng, 1, 9)}, spot ${pick(rng, [...LETTERS])}${int(rng, 1, 99)}`;
    return {
      title: "parking",
      content: `parked on ${value}`,
      query: "parked",
      value: value.split(", ")[1] as string,
      question: pick(rng, ["where did I park", "where's my car parked", "where did i leave the car"]),
    };
  }
  if (kind === "list") {
    const name = pick(rng, ["shopping list", "packing list", "todo", "gift ideas", "books to read"]);
    const items = Array.from({ length: int(rng, 2, 4) }, () =>
      pick(rng, [
        "milk",
        "eggs",
        "bread",
        "coffee",
        "rice",
        "soap",
        "batteries",
        "socks",
        "charger",
        "tea",
        "lemons",
        "pasta",
        "apples",
        "tape",
      ]),
    );
    const list = [...new Set(items)].join(", ");
    return {
      title: name,
      content: `${name}: ${list}`,
      query: name,
      value: list.split(", ")[0] as string,
      question: pick(rng, [
        `what's on my ${name}`,
        `search my notes for ${name}`,
        `what did I put on the ${name}`,
      ]),
    };
  }
  if (kind === "lent") {
    const who = pick(
      rng,
      PEOPLE.filter((p) => !p.includes(" ")),
    );
    const amount = String(int(rng, 5, 500));
    return {
      title: `lent ${who} money`,
      content: `I lent ${who} ${amount} dollars`,
      query: who,
      value: amount,
      question: pick(rng, [`how much did I lend ${who}`, `how much does ${who} owe me`]),
    };
  }
  const head = pick(rng, SUBJECT_HEADS);
  const tail = pick(rng, SUBJECT_TAILS);
  const subject = `${head} ${tail}`;
  const value = noteValue(rng, head);
  const mine = chance(rng, 0.6) ? "my" : "the";
  return {
    title: subject,
    content: `${mine} ${subject} is ${value}`,
    query: subject,
    value,
    question: pick(rng, [
      `what is my ${subject}`,
      `what's the ${subject} again`,
      `whats my ${subject}`,
      `do you remember my ${subject}`,
      `look up my ${subject}`,
      `find my note about the ${subject}`,
      `check my notes for the ${subject}`,
      `I forgot my ${subject}`,
    ]),
  };
}

// From mix 7 on: notes as people write them when no "my … is" frame comes to mind — terse ("gate code 4471"),
// schedules ("the ferry leaves at 7:15", "the bins go out on Mondays") — and names, places and words with letters
// outside ASCII ("Zoë's", "the café on Rue Cléry", "Zürich"): generation 6 had never seen a byte token written and
// garbled every note holding one. None of these words is one of the everyday set's (its plumber, recycling, flight
// number and groceries stay unseen).

/** People and places written with letters outside ASCII, as their owners write them. */
const ACCENTED_PEOPLE = [
  "Zoë",
  "José",
  "Chloé",
  "Renée",
  "Søren",
  "Björn",
  "François",
  "Jürgen",
  "Agnès",
  "Inés",
  "Joël",
  "Noémie",
  "Ömer",
  "Łukasz",
  "Anaïs",
  "Hélène",
  "Ramón",
  "Mónica",
  "Sinéad",
  "Dvořák",
  "Åsa",
  "Göran",
  "Çelik",
  "Nuño",
];
const ACCENTED_STREETS = [
  "Rue Cléry",
  "Königstraße",
  "Calle Añil",
  "Avenida São João",
  "Place Vendôme",
  "Via Lučić",
  "Søndergade",
  "Rua da Conceição",
  "Boulevard Saint-Michel",
  "Straße des 17. Juni",
];
const SHOPS = [
  "café",
  "bakery",
  "bar",
  "restaurant",
  "bookshop",
  "hotel",
  "pharmacy",
  "pizzeria",
  "tea room",
];
const SHOP_NAMES = [
  "Café Müller",
  "Le Petit Château",
  "La Piñata",
  "Señor Taco",
  "Crème de la Crème",
  "Brasserie Élise",
  "Bäckerei Kühn",
  "Smörgås",
  "Façade",
  "Ristorante Niño",
  "Pâtisserie Aurore",
  "Maison Hélène",
  "Blue Door",
  "The Copper Kettle",
];
const ACCENTED_WORDS = [
  "crème",
  "jalapeño",
  "naïve",
  "résumé",
  "fiancé",
  "über",
  "piñata",
  "déjà",
  "café",
  "smörgås",
];
/** Things on a schedule, how each moves, and whether it carries a number ("flight KL642", "bus 42"). */
const TRAVEL = [
  ["flight", ["leaves", "departs", "lands", "boards"]],
  ["train", ["leaves", "departs", "arrives"]],
  ["bus", ["leaves", "comes", "arrives"]],
  ["ferry", ["leaves", "departs", "arrives"]],
  ["shuttle", ["leaves", "comes"]],
  ["coach", ["leaves", "arrives"]],
] as const;
const EVENTS_ON_DAYS = [
  ["the trash", "goes out on"],
  ["the bins", "go out on"],
  ["yard waste", "goes out on"],
  ["the cleaner", "comes on"],
  ["piano lessons", "are on"],
  ["band practice", "is on"],
  ["swim class", "is on"],
  ["the farmers market", "is on"],
  ["book club", "meets on"],
  ["rent", "is due on"],
  ["the window cleaner", "comes on"],
  ["football practice", "is on"],
] as const;
const EVENTS_AT_TIMES = [
  ["the party", "starts at"],
  ["dinner", "is at"],
  ["the concert", "starts at"],
  ["check-in", "opens at"],
  ["checkout", "is at"],
  ["the pharmacy", "closes at"],
  ["the gym", "opens at"],
  ["the meeting", "starts at"],
  ["the movie", "starts at"],
  ["pickup", "is at"],
  ["the game", "starts at"],
] as const;
const BASE_FORM: Record<string, string> = {
  leaves: "leave",
  departs: "depart",
  lands: "land",
  boards: "board",
  arrives: "arrive",
  comes: "come",
  "goes out on": "go out",
  "go out on": "go out",
  "comes on": "come",
  "meets on": "meet",
  "starts at": "start",
  "opens at": "open",
  "closes at": "close",
};

function clock(rng: Rng): string {
  const h = int(rng, 1, 23);
  const m = pick(rng, ["00", "05", "10", "15", "20", "25", "30", "35", "40", "45", "50", "55"]);
  return weighted(rng, [
    [3, `${h}:${m}`],
    [2, `${(h % 12) + 1}${pick(rng, ["am", "pm"])}`],
    [1, `${(h % 12) + 1}:${m}${pick(rng, ["am", "pm"])}`],
  ] as const);
}

function laterFact(rng: Rng): Fact {
  const kind = weighted(rng, [
    [3, "terse"],
    [2, "travel"],
    [2, "on-days"],
    [1, "at-time"],
    [4, "accented"],
  ] as const);
  if (kind === "terse") {
    const subject = `${pick(rng, SUBJECT_HEADS)} ${pick(rng, SUBJECT_TAILS)}`;
    const value = chance(rng, 0.2)
      ? `${chance(rng, 0.5) ? pick(rng, ACCENTED_WORDS) : accentLetters(rng, pick(rng, WORDS))}${int(rng, 1, 99)}`
      : noteValue(rng, subject);
    return {
      title: subject,
      content: pick(rng, [`${subject} ${value}`, `${subject}: ${value}`, `${subject} is ${value}`]),
      query: subject,
      value,
      question: pick(rng, [
        `whats my ${subject}`,
        `${subject}?`,
        `what was the ${subject}`,
        `look up ${subject}`,
      ]),
    };
  }
  if (kind === "travel") {
    const [what, verbs] = pick(rng, TRAVEL);
    const number =
      what === "flight"
        ? `${pick(rng, [...LETTERS])}${pick(rng, [...LETTERS])}${int(rng, 10, 2999)}`
        : String(int(rng, 1, what === "bus" ? 99 : 999));
    const subject = chance(rng, 0.7) ? `${what} ${number}` : what;
    const verb = pick(rng, verbs);
    const value = clock(rng);
    const owner = pick(rng, ["", "my ", "the ", "our "]);
    return {
      title: subject,
      content: `${owner}${subject} ${verb} at ${value}`,
      query: what,
      value,
      question: pick(rng, [
        `when does my ${what} ${BASE_FORM[verb]}`,
        `what time does the ${what} ${BASE_FORM[verb]}`,
        `what time is my ${what}`,
        `when is the ${what}`,
      ]),
    };
  }
  if (kind === "on-days" || kind === "at-time") {
    const [what, verb] = kind === "on-days" ? pick(rng, EVENTS_ON_DAYS) : pick(rng, EVENTS_AT_TIMES);
    const value =
      kind === "at-time"
        ? clock(rng)
        : pick(rng, [
            `${pick(rng, DAYS)}s`,
            pick(rng, DAYS),
            `every other ${pick(rng, DAYS)}`,
            `the ${int(rng, 1, 28)}th`,
          ]);
    const word = what.replace(/^the /, "");
    const base = BASE_FORM[verb];
    return {
      title: word,
      content: `${what} ${verb} ${value}`,
      query: word,
      value,
      question: pick(rng, [
        base ? `when does ${what} ${base}` : `when is ${what}`,
        `what day is ${word}`,
        `when is ${word}`,
        `check my notes for ${word}`,
      ]),
    };
  }
  // Half the names and words are a list's (as their people write them), half made up by accenting one the generator
  // knows ("Öscar", "Mäple"): the model learns to copy letters outside ASCII, not a list.
  const person = () =>
    chance(rng, 0.5)
      ? pick(rng, ACCENTED_PEOPLE)
      : accentLetters(
          rng,
          pick(
            rng,
            PEOPLE.filter((p) => !p.includes(" ")),
          ),
        );
  const shopName = () =>
    chance(rng, 0.5)
      ? pick(rng, SHOP_NAMES)
      : `${pick(rng, ["Café", "Chez", "Casa", "Bar", "Hotel", "The"])} ${accentLetters(rng, pick(rng, WORDS)).replace(/^./, (c) => c.toUpperCase())}`;
  const shape = int(rng, 0, 3);
  if (shape === 0) {
    const shop = pick(rng, SHOPS);
    const value = shopName();
    const where = chance(rng, 0.5)
      ? ` in ${pick(rng, ACCENTED_CITIES)}`
      : ` on ${pick(rng, ACCENTED_STREETS)}`;
    return {
      title: `favorite ${shop}`,
      content: `my favorite ${shop} is ${value}${where}`,
      query: shop,
      value,
      question: pick(rng, [`what's my favorite ${shop}`, `which ${shop} do I like`, `look up my ${shop}`]),
    };
  }
  if (shape === 1) {
    const who = person();
    const value = `${int(rng, 1, 200)} ${pick(rng, ACCENTED_STREETS)}`;
    return {
      title: `${who}'s address`,
      content: `${who}'s address is ${value}`,
      query: `${who} address`,
      value,
      question: pick(rng, [`where does ${who} live`, `what's ${who}'s address`, `find ${who}'s address`]),
    };
  }
  if (shape === 2) {
    const who = person();
    const what = pick(rng, EVENTS);
    const value =
      what === "birthday" || what === "anniversary"
        ? `${pick(rng, MONTHS)} ${int(rng, 1, 28)}`
        : what === "favorite color"
          ? pick(rng, WORDS)
          : `555-${String(int(rng, 0, 9999)).padStart(4, "0")}`;
    const shown =
      what === "favorite color" || what === "birthday" || what === "anniversary" ? what : "phone number";
    return {
      title: `${who}'s ${shown}`,
      content: `${who}'s ${shown} is ${value}`,
      query: `${who} ${shown}`,
      value,
      question: pick(rng, [`what is ${who}'s ${shown}`, `do you remember ${who}'s ${shown}`]),
    };
  }
  const city = pick(rng, ACCENTED_CITIES);
  const value = shopName();
  return {
    title: `hotel in ${city}`,
    content: `the hotel in ${city} is ${value}`,
    query: `hotel ${city}`,
    value,
    question: pick(rng, [
      `which hotel in ${city}`,
      `what was the hotel in ${city}`,
      `where am I staying in ${city}`,
    ]),
  };
}

function saveText(rng: Rng, f: Fact, mix: Mix): string {
  if (mix >= 7 && chance(rng, 0.3))
    return pick(rng, [
      `remember: ${f.content}`,
      `note: ${f.content}`,
      `pls remember ${f.content}`,
      `can you note down that ${f.content}`,
      `add a note: ${f.content}`,
      `${f.content} - save that`,
      `save that ${f.content}`,
      `note down ${f.content}`,
      `remember for me: ${f.content}`,
      `put in my notes that ${f.content}`,
      `new note: ${f.content}`,
      `for the record, ${f.content}`,
    ]);
  return pick(rng, [
    `remember that ${f.content}`,
    `remember ${f.content}`,
    `note to self: ${f.content}`,
    `please save a note: ${f.content}`,
    `save this - ${f.content}`,
    `jot down that ${f.content}`,
    `don't let me forget ${f.content}`,
    `keep a note that ${f.content}`,
    `make a note: ${f.content}`,
    `can you remember ${f.content}`,
    `${f.content}, please save it`,
    `store a note: ${f.content}`,
    `save a note called ${f.title}: ${f.content}`,
    `write down ${f.content}`,
  ]);
}

export const noteScenario: Scenario = async (ctx) => {
  const rng = ctx.rng;
  const f = fact(rng, ctx.mix);
  const text = saveText(rng, f, ctx.mix);
  ctx.user(wrap(rng, text));
  const o = await ctx.call("note_save", { title: f.title, content: f.content, tags: [] });
  ctx.answer(
    pick(rng, [
      `Saved: ${f.content}.`,
      `Done, I saved "${f.title}".`,
      `${o.text} I'll remember it.`,
      `Noted: ${f.content}.`,
      `Got it. ${o.text}`,
    ]),
  );
};

function searchAnswer(rng: Rng, f: Fact | undefined, o: CallOutcome, query: string): string {
  if (/^No stored notes/.test(o.text))
    return pick(rng, [
      `I couldn't find anything about ${query} in your notes.`,
      `Nothing in your notes matches "${query}".`,
      `I found no note about ${query}. Tell me and I'll save it.`,
      `Sorry, there's no note about ${query}.`,
    ]);
  const hit =
    f && o.text.includes(f.value) ? f.content : (/\): (.*)$/m.exec(o.text)?.[1] ?? "").replace(/[[\]]/g, "");
  return pick(rng, [
    `From your notes: ${hit}.`,
    `You saved: ${hit}.`,
    `Your note says ${hit}.`,
    `Found it: ${hit}.`,
  ]);
}

export const searchScenario: Scenario = async (ctx) => {
  const rng = ctx.rng;
  const f = fact(rng, ctx.mix);
  const others = int(rng, 0, 3);
  for (let i = 0; i < others; i++) {
    const g = fact(rng, ctx.mix);
    if (g.query !== f.query && !g.content.includes(f.query)) await ctx.note(g.title, g.content);
  }
  const saved = chance(rng, 0.82);
  if (saved) await ctx.note(f.title, f.content);
  ctx.user(maybeTypo(rng, wrap(rng, f.question, false), [f.query, f.title]));
  const o = await ctx.call("memory_search", { query: f.query, limit: 5, source: "all" });
  ctx.answer(searchAnswer(rng, saved ? f : undefined, o, f.query));
};

// ------------------------------------------------------------------------------------------------------ errors

export const errorScenario: Scenario = async (ctx) => {
  const rng = ctx.rng;
  const kind = weighted(rng, [
    [3, "zero"],
    [2, "syntax"],
    [2, "dice-many"],
    [2, "dice-bad"],
    [1, "huge"],
    [1, "time-bad"],
    [1, "date-bad"],
  ] as const);
  let text: string;
  let name: string;
  let args: Record<string, unknown>;
  let what: string;
  if (kind === "zero") {
    const a = num(rng, "int");
    const expression = pick(rng, [
      `${a} / 0`,
      `${a}/0`,
      `${a} / 0 + ${num(rng, "small")}`,
      `(${a} - ${a}) / 0`,
    ]);
    text = pick(rng, [
      `what's ${a} divided by 0`,
      `${expression}`,
      `calculate ${expression}`,
      `what is ${expression}`,
    ]);
    name = "calculator";
    args = { expression: /divided by 0$/.test(text) ? `${a} / 0` : expression };
    what = "work that out";
  } else if (kind === "syntax") {
    const a = num(rng, "int");
    const b = num(rng, "int");
    const expression = pick(rng, [
      `${a} +* ${b}`,
      `${a} ** * ${b}`,
      `(${a} + ${b}`,
      `${a} + `,
      `${a} // ${b}`,
      `${a} +/ ${b}`,
    ]);
    text = pick(rng, [`calculate ${expression}`, `what is ${expression}`, `${expression}`]);
    name = "calculator";
    args = { expression: expression.trim() };
    what = "work that out";
  } else if (kind === "huge") {
    const expression = pick(rng, [
      `factorial(${int(rng, 200, 900)})`,
      `1e400 * ${int(rng, 2, 99)}`,
      `log(0)`,
      `10^${int(rng, 400, 999)}`,
    ]);
    text = pick(rng, [`calculate ${expression}`, `what's ${expression}`, expression]);
    name = "calculator";
    args = { expression };
    what = "work that out";
  } else if (kind === "dice-many") {
    const notation = `${int(rng, 101, 2000)}d${pick(rng, [6, 10, 20, 100])}`;
    text = pick(rng, [`roll ${notation}`, `can you roll ${notation}`, `throw ${notation}`]);
    name = "roll_dice";
    args = { notation };
    what = "roll that";
  } else if (kind === "dice-bad") {
    const notation = pick(rng, [
      `${int(rng, 1, 9)}d0`,
      `${int(rng, 1, 9)}d6+`,
      `0d${int(rng, 4, 20)}`,
      `${int(rng, 1, 9)}d`,
      `d6d6`,
    ]);
    text = pick(rng, [`roll ${notation}`, `roll ${notation} please`]);
    name = "roll_dice";
    args = { notation };
    what = "roll that";
  } else if (kind === "time-bad") {
    const a = place(rng);
    let b = place(rng);
    while (b.zone === a.zone) b = place(rng);
    const t = `${int(rng, 24, 39)}:${int(rng, 60, 99)}`;
    text = `convert ${t} from ${a.said} to ${b.said}`;
    name = "convert_time";
    args = { time: t, from_timezone: a.zone, to_timezone: b.zone, format: "full" };
    what = "convert that";
  } else {
    const y = int(rng, 2020, 2028);
    const bad = `${y}-${pick(rng, ["02-30", "02-31", "04-31", "13-01", "06-31", "11-31"])}`;
    const good = `${y}-${String(int(rng, 1, 12)).padStart(2, "0")}-${String(int(rng, 1, 28)).padStart(2, "0")}`;
    text = `how many days between ${bad} and ${good}`;
    name = "time_difference";
    args = { from: bad, to: good, unit: "days" };
    what = "count that";
  }
  ctx.user(wrap(rng, text));
  const o = await ctx.call(name, args);
  ctx.answer(o.isError ? failureAnswer(rng, o, what) : `${o.text}`);
};

// ------------------------------------------------------------------------------------------------------ out of scope

const OUT_OF_SCOPE: readonly (readonly [string, string[]])[] = [
  [
    "check the weather",
    [
      "what's the weather in {city}",
      "is it going to rain tomorrow",
      "weather forecast for {city}",
      "how hot is it in {city}",
      "do I need an umbrella today",
      "will it be over {n} degrees in {city} tomorrow",
    ],
  ],
  [
    "book travel",
    [
      "book me a flight to {city}",
      "find a hotel in {city}",
      "get me a train ticket to {city}",
      "book a table for two tonight",
      "get me {n} tickets to {city}",
    ],
  ],
  [
    "send messages",
    [
      "send an email to my boss",
      "text {name} that I'm late",
      "call {name}",
      "call mom",
      "email {name} the report",
      "message the team",
    ],
  ],
  [
    "translate",
    [
      "translate hello into {lang}",
      "how do you say thank you in {lang}",
      "what's {word} in {lang}",
      "how do you count to {n} in {lang}",
    ],
  ],
  [
    "play music or videos",
    [
      "play some music",
      "play {word} by the beatles",
      "put on a podcast",
      "play a movie",
      "play the top {n} songs of {year}",
      "play music from the {decade}s",
    ],
  ],
  [
    "look things up online",
    [
      "what's the capital of {country}",
      "who won the world cup",
      "who is the president of {country}",
      "what's the news today",
      "search google for {word}",
      "open google.com",
      "what's the bitcoin price",
      "how tall is mount everest",
      "how many calories are in a banana",
      "what's the population of {country}",
      "who won the {event} in {year}",
      "what happened in {year}",
      "who was the president of {country} in {year}",
      "what was the bitcoin price in {year}",
      "what was the score of the {year} {event} final",
      "how many people live in {country}",
      "what's the {n}th element of the periodic table",
    ],
  ],
  [
    "control devices",
    [
      "turn off the lights",
      "set the thermostat to 21",
      "lock the front door",
      "turn up the volume",
      "set an alarm for 7am",
      "start a timer for 10 minutes",
    ],
  ],
  [
    "shop or order",
    [
      "order me a pizza",
      "buy more coffee",
      "add milk to my amazon cart",
      "order an uber",
      "order {n} pizzas for tonight",
      "buy {n} bags of coffee",
    ],
  ],
  [
    "write for you",
    [
      "write me a poem about {word}",
      "write an essay on climate change",
      "tell me a joke",
      "tell me a story",
      "summarize this article",
      "write a {n} word essay about {word}",
      "tell me {n} jokes",
    ],
  ],
  [
    "give advice",
    [
      "what should I eat for dinner",
      "should I buy bitcoin",
      "what's a good movie to watch",
      "give me a workout plan",
      "give me a {n} minute workout",
      "should I buy a car for {n} dollars",
    ],
  ],
];
const COUNTRIES = [
  "Australia",
  "France",
  "Japan",
  "Brazil",
  "Canada",
  "Kenya",
  "Peru",
  "Norway",
  "India",
  "Egypt",
];
const CONTESTS = [
  "world cup",
  "super bowl",
  "election",
  "oscars",
  "nba finals",
  "tour de france",
  "champions league",
];
const LANGS = ["Spanish", "French", "German", "Japanese", "Italian", "Portuguese", "Swahili", "Korean"];

const CAN_DO = [
  "I can do math, roll dice, tell the time in a city, convert times between cities, count days between dates, and save or search your notes.",
  "I can only help with math, dice rolls, the time and time zones, days between dates, and your notes.",
  "What I can do: calculations, dice, the current time anywhere, time conversions, date differences, and saving or finding notes.",
];

/**
 * From generation 5's mix on: requests that point back at the previous turn's place ("there", out of scope after a
 * time question too), and messages that carry a number (a number after arithmetic is not a follow-up).
 */
const OUT_OF_SCOPE_THERE: readonly (readonly [string, string[]])[] = [
  [
    "check the weather",
    ["what's the weather like there", "is it raining there", "is it cold there", "how warm is it there now"],
  ],
  ["book travel", ["book me a hotel there", "find me a flight there", "get me a train there"]],
  [
    "send messages",
    ["text {name} that I'll be {n} minutes late", "tell {name} I'll call back in {n} minutes"],
  ],
  [
    "look things up online",
    ["what's there to see there", "how many people live there", "what language do they speak there"],
  ],
];

/**
 * From generation 6's mix on: music asked for by genre, as people ask for it, not only by the word "music". Jazz stays
 * out: the hand-written everyday set asks for it.
 */
const OUT_OF_SCOPE_GENRES: readonly (readonly [string, string[]])[] = [
  [
    "play music or videos",
    ["play some {genre}", "put on some {genre}", "play {genre} on spotify", "i want to hear some {genre}"],
  ],
];
const GENRES = [
  "rock",
  "classical",
  "lo-fi",
  "country",
  "hip hop",
  "reggae",
  "blues",
  "pop",
  "metal",
  "techno",
];

export const outOfScopeScenario: Scenario = (ctx) => outOfScope(ctx, false);

/**
 * An out-of-scope request right after a tool turn: half the time one that carries a number, which just after
 * arithmetic reads like a follow-up ("order 3 large pizzas" after "12 times 12" → `144 - 3` in generation 4).
 */
export const outOfScopeAfterToolScenario: Scenario = (ctx) => outOfScope(ctx, chance(ctx.rng, 0.5));

const NUMBERED = /\{(n|year|decade)\}/;

async function outOfScope(ctx: ScenarioContext, numbered: boolean): Promise<void> {
  const rng = ctx.rng;
  const table = [
    ...OUT_OF_SCOPE,
    ...(ctx.mix >= 5 ? OUT_OF_SCOPE_THERE : []),
    ...(ctx.mix >= 6 ? OUT_OF_SCOPE_GENRES : []),
  ];
  const [what, asks] = pick(rng, numbered ? table.filter(([, a]) => a.some((t) => NUMBERED.test(t))) : table);
  let ask = pick(rng, numbered ? asks.filter((t) => NUMBERED.test(t)) : asks);
  // Drawn only where asked for, so the earlier mixes' random streams (and data) stay as they were.
  if (ask.includes("{genre}")) ask = ask.replace("{genre}", pick(rng, GENRES));
  const text = ask
    .replace("{city}", pick(rng, PLACE_NAMES))
    .replace(
      "{name}",
      pick(
        rng,
        PEOPLE.filter((p) => !p.includes(" ")),
      ),
    )
    .replace("{lang}", pick(rng, LANGS))
    .replace("{country}", pick(rng, COUNTRIES))
    .replace("{word}", pick(rng, WORDS))
    // Numbers in a request for something it cannot do (a year, a count, a price) are not arithmetic.
    .replace("{n}", String(pick(rng, [2, 3, 4, 5, 6, 10, 12, 15, 20, 25, 30, 45, 50, 100, 250, 500])))
    .replace("{year}", String(1950 + Math.floor(rng() * 76)))
    .replace("{decade}", String(1950 + 10 * Math.floor(rng() * 6)))
    .replace("{event}", pick(rng, CONTESTS));
  ctx.user(wrap(rng, text));
  // Three in four answers the same way from generation 5 on: generation 4, taught three lists and four openings,
  // stitched pieces of them together ("I can't look things up online math, roll dice, …").
  if (ctx.mix >= 5 && chance(rng, 0.75)) {
    ctx.answer(`Sorry, I can't ${what}. ${CAN_DO[0]}`);
    return;
  }
  const sorry = pick(rng, [
    `Sorry, I can't ${what}.`,
    `I can't ${what} — I have no tool for that.`,
    `That's not something I can do: I can't ${what}.`,
    `I don't have a way to ${what}.`,
  ]);
  ctx.answer(`${sorry} ${pick(rng, CAN_DO)}`);
}

// ------------------------------------------------------------------------------------------------------ small talk

const SMALL_TALK: readonly (readonly [string[], string[]])[] = [
  [
    [
      "hi",
      "hello",
      "hey",
      "hiya",
      "yo",
      "hello there",
      "hey there",
      "howdy",
      "good morning",
      "good evening",
      "good afternoon",
      "morning!",
    ],
    [
      "Hello! How can I help?",
      "Hi! What can I do for you?",
      "Hey! Ask me for some math, a dice roll, the time somewhere, or a note.",
    ],
  ],
  [
    [
      "thanks",
      "thank you",
      "thx",
      "ty",
      "cheers",
      "thanks a lot",
      "cool thanks",
      "great, thanks",
      "perfect thank you",
      "much appreciated",
      "many thanks",
    ],
    ["You're welcome!", "Happy to help!", "Anytime!"],
  ],
  [
    ["bye", "goodbye", "see you", "see ya", "good night", "later", "cya"],
    ["Goodbye!", "See you!", "Bye! Come back anytime."],
  ],
  [
    ["who are you", "what are you", "who made you", "are you a robot", "are you an AI", "what's your name"],
    [
      "I'm the toolbridge demo model, a small model that calls tools.",
      "I'm toolbridge's small demo model. I can do math, roll dice, tell the time and keep notes.",
    ],
  ],
  [
    [
      "what can you do",
      "help",
      "what should I ask you",
      "how does this work",
      "what are your tools",
      "what can I ask",
    ],
    CAN_DO,
  ],
  [
    ["how are you", "how are u", "how's it going", "you ok?", "what's up"],
    ["I'm fine, thanks! How can I help?", "All good! What can I do for you?"],
  ],
  [
    ["ok", "okay", "cool", "nice", "great", "awesome", "lol ok", "hmm", "k", "sure", "wow", "alright"],
    ["Anything else I can help with?", "Glad to help!", "Okay! Anything else?"],
  ],
  [
    ["are you there?", "hello?", "you there", "still there?"],
    ["Yes, I'm here. What can I do for you?", "I'm here! How can I help?"],
  ],
  [
    ["never mind", "forget it", "nothing", "that's all", "no thanks"],
    ["Okay! Let me know if you need anything.", "Alright. Have a nice day!"],
  ],
];

export const smallTalkScenario: Scenario = async (ctx) => {
  const rng = ctx.rng;
  const [says, replies] = pick(rng, SMALL_TALK);
  ctx.user(wrap(rng, pick(rng, says), false));
  ctx.answer(pick(rng, replies));
};

// ------------------------------------------------------------------------------------------------------ follow-ups

/** A first exchange whose call a follow-up can build on. */
async function firstExchange(
  ctx: ScenarioContext,
): Promise<{ name: string; args: Record<string, unknown>; result: CallOutcome; place?: string }> {
  const rng = ctx.rng;
  const kind = weighted(rng, [
    [4, "calc"],
    [3, "time"],
    [2, "dice"],
    [1, "convert"],
  ] as const);
  if (kind === "calc") {
    const percent = chance(rng, 0.4);
    const a = num(rng, "int");
    const b = num(rng, percent ? "percent" : "int");
    const op = pick(rng, OPS);
    const expression = percent ? `${b}% of ${a}` : `${a} ${op.sym} ${b}`;
    const spoken = percent ? `${b}% of ${a}` : `${a} ${pick(rng, op.words)} ${b}`;
    ctx.user(wrap(rng, pick(rng, ASK).replace("{q}", spoken)));
    const result = await ctx.call("calculator", { expression });
    ctx.answer(plain(spoken)(rng, result.text));
    return { name: "calculator", args: { expression, a, b, percent, op: op.sym }, result };
  }
  if (kind === "time") {
    const r = timeRequest(rng);
    ctx.user(wrap(rng, r.text, false));
    const result = await ctx.call("get_time", { timezone: r.zone, format: r.format });
    ctx.answer(timeAnswer(rng, r.place, result.text));
    return { name: "get_time", args: { timezone: r.zone, format: r.format }, result, place: r.place };
  }
  if (kind === "dice") {
    const r = diceRequest(rng);
    ctx.user(wrap(rng, r.text));
    const result = await ctx.call("roll_dice", { notation: r.notation });
    ctx.answer(diceAnswer(rng, result));
    return { name: "roll_dice", args: { notation: r.notation }, result };
  }
  const a = place(rng);
  let b = place(rng);
  while (b.zone === a.zone) b = place(rng);
  const t = clockTime(rng);
  ctx.user(wrap(rng, `convert ${t.said} from ${a.said} to ${b.said}`));
  const args = { time: t.time, from_timezone: a.zone, to_timezone: b.zone, format: "full" };
  const result = await ctx.call("convert_time", args);
  ctx.answer(result.text);
  return { name: "convert_time", args, result };
}

export const followUpScenario: Scenario = async (ctx) => {
  const rng = ctx.rng;
  const first = await firstExchange(ctx);
  if (first.result.isError) return;
  if (first.name === "calculator") {
    const { a, b, percent, op } = first.args as { a: string; b: string; percent: boolean; op: string };
    const r = first.result.text;
    const usable = /^-?\d+(\.\d+)?$/.test(r) && r.replace(/[-.]/g, "").length <= 8;
    const shape = weighted(rng, [
      [percent ? 5 : 0, "percent"],
      [percent ? 0 : 3, "other-b"],
      [usable ? 4 : 0, "that"],
      [usable ? 2 : 0, "root"],
    ] as const);
    if (shape === "percent") {
      const p = num(rng, "percent");
      ctx.user(
        wrap(
          rng,
          pick(rng, [
            `and what about ${p}%?`,
            `what about ${p}%`,
            `and ${p}%?`,
            `now ${p} percent`,
            `ok and ${p}% of that`,
          ]),
          false,
        ),
      );
      const o = await ctx.call("calculator", { expression: `${p}% of ${a}` });
      ctx.answer(plain(`${p}% of ${a}`)(rng, o.text));
      return;
    }
    if (shape === "other-b") {
      const c = num(rng, "int");
      ctx.user(
        wrap(
          rng,
          pick(rng, [
            `and with ${c} instead of ${b}?`,
            `what if it was ${c} instead of ${b}`,
            `same but ${c} instead of ${b}`,
          ]),
          false,
        ),
      );
      const expression = `${a} ${op} ${c}`;
      const o = await ctx.call("calculator", { expression });
      ctx.answer(o.isError ? failureAnswer(rng, o, "work that out") : plain(expression)(rng, o.text));
      return;
    }
    if (shape === "root") {
      ctx.user(
        wrap(
          rng,
          pick(rng, ["what's the square root of that", "and the square root?", "sqrt of that"]),
          false,
        ),
      );
      const o = await ctx.call("calculator", { expression: `sqrt(${r})` });
      ctx.answer(o.isError ? failureAnswer(rng, o, "work that out") : plain(`sqrt(${r})`)(rng, o.text));
      return;
    }
    const next = pick(rng, OPS);
    const c = num(rng, "small");
    const said = pick(rng, [
      `now ${next.sym === "*" ? "multiply that by" : next.sym === "/" ? "divide that by" : next.sym === "+" ? "add" : "subtract"} ${c}`,
      `and ${pick(rng, next.words)} ${c}?`,
      `${pick(rng, next.words)} ${c}?`,
      `then ${pick(rng, next.words)} ${c}`,
    ]);
    ctx.user(wrap(rng, said, false));
    const expression = `${r} ${next.sym} ${c}`;
    const o = await ctx.call("calculator", { expression });
    ctx.answer(o.isError ? failureAnswer(rng, o, "work that out") : plain(expression)(rng, o.text));
    return;
  }
  if (first.name === "get_time") {
    if (chance(rng, 0.25)) {
      ctx.user(
        wrap(rng, pick(rng, ["what about the date there?", "and the date?", "what day is it there"]), false),
      );
      const o = await ctx.call("get_time", { timezone: first.args.timezone, format: "date" });
      ctx.answer(timeAnswer(rng, first.place ?? String(first.args.timezone), o.text));
      return;
    }
    const p = place(rng);
    ctx.user(
      wrap(
        rng,
        pick(rng, [
          `and in ${p.said}?`,
          `what about ${p.said}`,
          `and ${p.said}?`,
          `thanks! and in ${p.said}?`,
          `how about ${p.said}`,
          `now ${p.said}`,
        ]),
        false,
      ),
    );
    const o = await ctx.call("get_time", { timezone: p.zone, format: first.args.format });
    ctx.answer(timeAnswer(rng, p.name, o.text));
    return;
  }
  if (first.name === "roll_dice") {
    const notation = String(first.args.notation);
    const shape = int(rng, 0, 2);
    if (shape === 0 || !/^\d+d\d+$/.test(notation)) {
      ctx.user(
        wrap(
          rng,
          pick(rng, ["again", "again!", "roll again", "one more time", "reroll", "again please"]),
          false,
        ),
      );
      const o = await ctx.call("roll_dice", { notation });
      ctx.answer(diceAnswer(rng, o));
      return;
    }
    if (shape === 1) {
      const m = int(rng, 1, 9);
      ctx.user(
        wrap(rng, pick(rng, [`roll it again but add ${m}`, `again with +${m}`, `same plus ${m}`]), false),
      );
      const o = await ctx.call("roll_dice", { notation: `${notation}+${m}` });
      ctx.answer(diceAnswer(rng, o));
      return;
    }
    const n = int(rng, 2, 8);
    const sides = notation.split("d")[1];
    ctx.user(wrap(rng, pick(rng, [`now roll ${n} of them`, `now ${n} of those`, `do ${n} at once`]), false));
    const o = await ctx.call("roll_dice", { notation: `${n}d${sides}` });
    ctx.answer(diceAnswer(rng, o));
    return;
  }
  const p = place(rng);
  ctx.user(wrap(rng, pick(rng, [`and to ${p.said}?`, `what about ${p.said}`, `and for ${p.said}?`]), false));
  const o = await ctx.call("convert_time", { ...first.args, to_timezone: p.zone });
  ctx.answer(o.text);
};

// ------------------------------------------------------------------------------------------------------ two in one

export const twoStepScenario: Scenario = async (ctx) => {
  const rng = ctx.rng;
  const kind = weighted(rng, [
    [3, "times"],
    [2, "dice"],
    [2, "calcs"],
    [2, "mixed"],
  ] as const);
  if (kind === "times") {
    const a = place(rng);
    let b = place(rng);
    while (b.zone === a.zone) b = place(rng);
    ctx.user(
      wrap(
        rng,
        pick(rng, [
          `what time is it in ${a.said} and in ${b.said}?`,
          `time in ${a.said} and ${b.said}`,
          `whats the time in ${a.said} and ${b.said}`,
        ]),
        false,
      ),
    );
    const x = await ctx.call("get_time", { timezone: a.zone, format: "full" });
    const y = await ctx.call("get_time", { timezone: b.zone, format: "full" });
    ctx.answer(`In ${a.name} it is ${x.text}; in ${b.name} it is ${y.text}.`);
    return;
  }
  if (kind === "dice") {
    const a = diceRequest(rng);
    const b = diceRequest(rng);
    const said = (r: DiceRequest) => r.notation;
    ctx.user(
      wrap(
        rng,
        pick(rng, [
          `roll ${said(a)} and ${said(b)}`,
          `roll ${said(a)} and then ${said(b)}`,
          `${said(a)} and ${said(b)} please`,
        ]),
      ),
    );
    const x = await ctx.call("roll_dice", { notation: a.notation });
    const y = await ctx.call("roll_dice", { notation: b.notation });
    ctx.answer(`${a.notation}: ${total(x.text)}. ${b.notation}: ${total(y.text)}.`);
    return;
  }
  if (kind === "calcs") {
    const a = num(rng, "int");
    const p = num(rng, "percent");
    const q = num(rng, "percent");
    ctx.user(wrap(rng, pick(rng, [`what's ${p}% of ${a} and ${q}% of ${a}?`, `${p}% and ${q}% of ${a}`])));
    const x = await ctx.call("calculator", { expression: `${p}% of ${a}` });
    const y = await ctx.call("calculator", { expression: `${q}% of ${a}` });
    ctx.answer(`${p}% of ${a} is ${x.text} and ${q}% of ${a} is ${y.text}.`);
    return;
  }
  const c = calcRequest(rng);
  const d = diceRequest(rng);
  ctx.user(wrap(rng, `${c.text}, and ${pick(rng, ["roll", "also roll", "then roll"])} ${d.notation}`));
  const x = await ctx.call("calculator", { expression: c.expression });
  const y = await ctx.call("roll_dice", { notation: d.notation });
  const first = x.isError
    ? `I couldn't work out ${c.expression}: ${failureReason(x)}`
    : `${c.expression} is ${x.text}`;
  ctx.answer(`${first}. You rolled ${total(y.text)}.`);
};

/** Two requests where the second stands alone: the model must answer the latest one, not repeat the earlier. */
export function afterAnother(second: Scenario, firsts: readonly Scenario[]): Scenario {
  return async (ctx) => {
    await pick(ctx.rng, firsts)(ctx);
    await second(ctx.mix >= 6 ? chainedOn(ctx) : ctx);
  };
}

/**
 * How people chain a new request onto the last one in a chat. Such a start reads like a follow-up to a small model
 * and is not one: generation 5 rolled 2d6 again on "ok now play some jazz" right after "roll 2d6".
 */
const CHAINING = [
  "now ",
  "ok now ",
  "okay now ",
  "and now ",
  "now, ",
  "next, ",
  "next ",
  "alright, now ",
  "cool, now ",
  "great. now ",
  "thanks. now ",
  "ok next: ",
  "and ",
  "then ",
  "new question: ",
  "different thing - ",
];
const OPENED = OPENERS.filter((o) => o !== "").map((o) => o.trim().toLowerCase());

/** From mix 6 on: the second request's first message, half the time, chained on with one of CHAINING. */
function chainedOn(ctx: ScenarioContext): ScenarioContext {
  let first = true;
  return {
    ...ctx,
    user: (text) => {
      if (first && chance(ctx.rng, 0.5) && !OPENED.some((o) => text.toLowerCase().startsWith(o))) {
        const lowered = /^[A-Z][a-z]/.test(text) ? text.charAt(0).toLowerCase() + text.slice(1) : text;
        text = casing(ctx.rng, `${pick(ctx.rng, CHAINING)}${lowered}`);
      }
      first = false;
      ctx.user(text);
    },
  };
}

export { isFailure };
