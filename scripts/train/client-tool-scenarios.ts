/**
 * Conversations with a `/v1` client's own tools: catalogues of tools the model has not met under those names, a
 * request for one of them, a call whose arguments are copied from the request, the result the client sends back, an
 * answer that quotes it. Tools are drawn from many domains, with their names, parameter names and phrasings varied,
 * so what the model can learn is the general move — pick the tool whose name matches the request, copy each value
 * into the parameter that names it — not a list of tools.
 */
import type { Tool } from "@modelcontextprotocol/server";
import { ACCENTED_CITIES, accentLetters, casing, OPENERS } from "./people-words.js";
import { chance, int, type Mix, pick, type Rng, type Scenario } from "./scenario.js";

type Kind =
  | "city"
  | "person"
  | "topic"
  | "word"
  | "title"
  | "phrase"
  | "int"
  | "number"
  | "date"
  | "time"
  | "code"
  | "email"
  | "lang"
  | "currency"
  | "symbol"
  | "room"
  | "color";

const CITIES = [
  "Quito",
  "Porto",
  "Perth",
  "Cork",
  "Graz",
  "Bergen",
  "Turin",
  "Lyon",
  "Kyoto",
  "Pune",
  "Leeds",
  "Basel",
  "Tartu",
  "Split",
  "Bruges",
  "Seville",
  "Malaga",
  "Bilbao",
  "Dresden",
  "Leipzig",
  "Gdansk",
  "Brno",
  "Kaunas",
  "Tampere",
  "Aarhus",
  "Uppsala",
  "Galway",
  "Austin",
  "Tucson",
  "Boise",
  "Omaha",
  "Tulsa",
  "Fresno",
  "Halifax",
  "Regina",
  "Cusco",
  "Recife",
  "Natal",
  "Mendoza",
  "Rosario",
  "Durban",
  "Kigali",
  "Arusha",
  "Dakar",
  "Fez",
  "Agadir",
  "Muscat",
  "Doha",
  "Amman",
  "Beirut",
  "Tbilisi",
  "Yerevan",
  "Almaty",
  "Tashkent",
  "Busan",
  "Sapporo",
  "Nagoya",
  "Cebu",
  "Penang",
  "Cairns",
  "Nelson",
  "Napier",
  "Whistler",
  "Sydney",
  "Paris",
  "Berlin",
  "Madrid",
  "Rome",
  "Chicago",
  "Toronto",
  "Mumbai",
  "Cairo",
  "London",
  "Tokyo",
  "Dublin",
  "Vienna",
  "Prague",
  "Warsaw",
  "Athens",
  "Istanbul",
  "Bangkok",
  "Manila",
  "Jakarta",
  "Santiago",
  "Bogota",
  "Montreal",
  "Seattle",
  "Phoenix",
  "Atlanta",
  "Miami",
];
const PEOPLE = [
  "Anna",
  "Ben",
  "Chen",
  "Dara",
  "Elif",
  "Farid",
  "Gina",
  "Hugo",
  "Ivy",
  "Jonas",
  "Kai",
  "Lucia",
  "Mateo",
  "Nina",
  "Otto",
  "Paula",
  "Quentin",
  "Rina",
  "Sven",
  "Tara",
  "Umar",
  "Vera",
  "Wes",
  "Xena",
  "Yara",
  "Zoltan",
  "Amelie",
  "Bruno",
  "Carmen",
  "Diego",
  "Esther",
  "Fatima",
  "Gustav",
  "Helga",
  "Ingrid",
  "Jamal",
  "Keiko",
  "Lars",
  "Maya",
  "Nils",
  "Olivia",
  "Pedro",
  "Rahul",
  "Sara",
  "Tomas",
  "Uma",
  "Viktor",
  "Wanda",
  "Yosef",
  "Zainab",
  "Mr Patel",
  "Dr Okafor",
  "Ms Rivera",
  "Aunt Lou",
  "Coach Kim",
];
const TOPICS = [
  "climate policy",
  "the stock market",
  "local elections",
  "space travel",
  "renewable energy",
  "basketball",
  "the olympics",
  "housing prices",
  "artificial intelligence",
  "coffee prices",
  "the weather",
  "interest rates",
  "bird migration",
  "ocean plastic",
  "solar panels",
  "video games",
  "public transport",
  "city parks",
  "food trucks",
  "jazz festivals",
  "mountain biking",
  "vintage cameras",
  "board games",
  "sourdough baking",
];
const WORDS = [
  "serendipity",
  "ubiquitous",
  "melancholy",
  "gregarious",
  "eloquent",
  "resilient",
  "ambiguous",
  "pragmatic",
  "quixotic",
  "laconic",
  "candid",
  "tenacious",
  "verbose",
  "meticulous",
  "nostalgia",
  "paradox",
  "catalyst",
  "benevolent",
  "whimsical",
  "frugal",
  "zealous",
  "obscure",
  "lucid",
  "diligent",
  "entropy",
  "osmosis",
  "mitochondria",
  "algorithm",
  "separate",
  "definitely",
  "rhythm",
  "accommodate",
  "occurrence",
  "embarrass",
  "receive",
  "calendar",
  "tomorrow",
];
const TITLES = [
  "Blue Horizon",
  "The Long Road",
  "Midnight Train",
  "Paper Moon",
  "Silent Harbor",
  "Golden Hour",
  "Wild Geese",
  "Northern Lights",
  "City of Glass",
  "The Last Orchard",
  "Small Wonders",
  "Red Canyon",
  "Falling Water",
  "Summer Rain",
  "Iron Bridge",
  "Hello Again",
  "Dancing Queen",
  "Yellow Submarine",
  "Moonlight Sonata",
  "Bohemian Rhapsody",
  "Interstellar",
  "Casablanca",
  "Amelie",
  "Spirited Away",
  "Parasite",
  "Jaws",
  "Vertigo",
  "Heat",
  "Arrival",
  "Coco",
];
const PHRASES = [
  "call the bank",
  "pick up the kids",
  "renew my passport",
  "book a dentist visit",
  "return the library books",
  "pay the rent",
  "fix the bike",
  "walk the dog",
  "clean the garage",
  "send the invoice",
  "order new glasses",
  "back up the laptop",
  "check the tyres",
  "bake a cake",
  "see you at noon",
  "meeting moved to friday",
  "happy birthday",
  "dinner is ready",
  "bring snacks",
  "all good here",
  "on my way",
  "project update",
  "weekly report",
  "quarterly review",
  "mushroom risotto",
  "lentil soup",
  "chicken curry",
  "pad thai",
  "apple pie",
  "greek salad",
  "fish tacos",
];
const LANGS = [
  "German",
  "French",
  "Spanish",
  "Italian",
  "Japanese",
  "Dutch",
  "Polish",
  "Turkish",
  "Korean",
  "Swedish",
  "Greek",
  "Hindi",
  "Arabic",
  "Portuguese",
  "Finnish",
];
const CURRENCIES = [
  "USD",
  "EUR",
  "GBP",
  "JPY",
  "CHF",
  "CAD",
  "AUD",
  "SEK",
  "NOK",
  "INR",
  "BRL",
  "MXN",
  "PLN",
  "CZK",
  "ZAR",
];
const SYMBOLS = [
  "MSFT",
  "TSLA",
  "NVDA",
  "AMZN",
  "GOOG",
  "NFLX",
  "IBM",
  "ORCL",
  "INTC",
  "SAP",
  "ASML",
  "SONY",
  "BABA",
  "SHOP",
];
const ROOMS = [
  "kitchen",
  "bedroom",
  "living room",
  "garage",
  "office",
  "bathroom",
  "hallway",
  "basement",
  "attic",
  "porch",
  "garden",
  "nursery",
];
const COLORS = ["red", "blue", "green", "warm white", "violet", "orange", "pink", "teal"];
const LETTERS = "ABCDEFGHJKLMNPRSTUVWXYZ";

function value(rng: Rng, kind: Kind): string | number {
  switch (kind) {
    case "city":
      return pick(rng, CITIES);
    case "person":
      return pick(rng, PEOPLE);
    case "topic":
      return pick(rng, TOPICS);
    case "word":
      return pick(rng, WORDS);
    case "title":
      return pick(rng, TITLES);
    case "phrase":
      return pick(rng, PHRASES);
    case "int":
      return int(rng, 1, chance(rng, 0.7) ? 60 : 999);
    case "number":
      return chance(rng, 0.6) ? int(rng, 1, 5000) : Number(`${int(rng, 1, 999)}.${int(rng, 1, 99)}`);
    case "date":
      return `${int(rng, 2024, 2028)}-${String(int(rng, 1, 12)).padStart(2, "0")}-${String(int(rng, 1, 28)).padStart(2, "0")}`;
    case "time":
      return `${String(int(rng, 6, 22)).padStart(2, "0")}:${pick(rng, ["00", "15", "30", "45"])}`;
    case "code":
      return `${pick(rng, [...LETTERS])}${pick(rng, [...LETTERS])}${int(rng, 10, 9999)}`;
    case "email":
      return `${pick(rng, PEOPLE).toLowerCase().replace(/\W/g, "")}@${pick(rng, ["example.com", "mail.test", "corp.example"])}`;
    case "lang":
      return pick(rng, LANGS);
    case "currency":
      return pick(rng, CURRENCIES);
    case "symbol":
      return pick(rng, SYMBOLS);
    case "room":
      return pick(rng, ROOMS);
    case "color":
      return pick(rng, COLORS);
  }
}

interface Param {
  names: string[];
  kind: Kind;
  /** A closed list the schema declares (the request names one of them). */
  enum?: string[];
}

interface Domain {
  names: string[];
  description: string;
  params: Param[];
  /** Requests: `{0}`, `{1}`… stand for the parameters' values in order. */
  asks: string[];
  result: (v: readonly (string | number)[], rng: Rng) => string;
}

const DOMAINS: Domain[] = [
  {
    names: ["current_weather", "weather_now", "fetch_weather", "weather"],
    description: "Current weather for a place",
    params: [{ names: ["city", "location", "place"], kind: "city" }],
    asks: [
      "weather in {0}",
      "how's the weather in {0}",
      "is it raining in {0}",
      "what's it like outside in {0}",
      "temperature in {0}",
    ],
    result: (v, r) =>
      `${v[0]}: ${int(r, -5, 35)}°C, ${pick(r, ["sunny", "cloudy", "light rain", "windy", "snow"])}`,
  },
  {
    names: ["forecast", "weather_forecast", "get_forecast"],
    description: "Weather forecast",
    params: [
      { names: ["city", "location"], kind: "city" },
      { names: ["units", "unit", "scale"], kind: "word", enum: ["metric", "imperial"] },
    ],
    asks: ["forecast for {0} in {1} units", "{1} forecast for {0}", "give me the {0} forecast, {1}"],
    result: (v, r) => `${v[0]} tomorrow: high ${int(r, 0, 35)}, ${pick(r, ["clear", "showers", "overcast"])}`,
  },
  {
    names: ["send_mail", "email_someone", "compose_email", "mail"],
    description: "Send an email",
    params: [
      { names: ["recipient", "to", "address"], kind: "email" },
      { names: ["subject", "title"], kind: "phrase" },
    ],
    asks: ["email {0} about {1}", "send a mail to {0} with the subject {1}", "write to {0}, subject: {1}"],
    result: (v) => `Email to ${v[0]} sent.`,
  },
  {
    names: ["text_message", "send_sms", "sms", "message_contact"],
    description: "Send a text message",
    params: [
      { names: ["contact", "to", "recipient"], kind: "person" },
      { names: ["text", "body", "message"], kind: "phrase" },
    ],
    asks: ["text {0} {1}", "send {0} a message saying {1}", "message {0}: {1}", "tell {0} {1}"],
    result: (v) => `Message sent to ${v[0]}.`,
  },
  {
    names: ["translate_text", "translator", "translate_to"],
    description: "Translate text into a language",
    params: [
      { names: ["text", "phrase", "source_text"], kind: "phrase" },
      { names: ["language", "target", "to_language"], kind: "lang" },
    ],
    asks: [
      "translate {0} into {1}",
      "how do you say {0} in {1}",
      "{0} in {1} please",
      "translate {0} to {1}",
    ],
    result: (v) => `(${v[1]}) ${v[0]}`,
  },
  {
    names: ["start_timer", "timer", "countdown"],
    description: "Start a countdown",
    params: [{ names: ["minutes", "duration_minutes", "mins"], kind: "int" }],
    asks: [
      "timer for {0} minutes",
      "start a {0} minute countdown",
      "set a {0} min timer",
      "countdown {0} minutes",
    ],
    result: (v) => `Timer set for ${v[0]} minutes.`,
  },
  {
    names: ["stock_quote", "share_price", "quote"],
    description: "Latest price of a stock",
    params: [{ names: ["ticker", "symbol", "stock"], kind: "symbol" }],
    asks: ["price of {0}", "how is {0} trading", "quote for {0}", "what's {0} at right now"],
    result: (v, r) => `${v[0]}: ${int(r, 10, 900)}.${int(r, 10, 99)} USD`,
  },
  {
    names: ["play_track", "play_music", "music_play"],
    description: "Play a song",
    params: [{ names: ["song", "track", "title"], kind: "title" }],
    asks: ["play {0}", "put on {0}", "I want to hear {0}", "play the song {0}"],
    result: (v) => `Now playing ${v[0]}.`,
  },
  {
    names: ["todo_add", "add_task", "new_task", "create_task"],
    description: "Add a task",
    params: [{ names: ["task", "item", "description"], kind: "phrase" }],
    asks: [
      "add {0} to my tasks",
      "new task: {0}",
      "put {0} on the list",
      "remind me to {0}",
      "add a task to {0}",
    ],
    result: (v) => `Added "${v[0]}".`,
  },
  {
    names: ["dictionary", "define_word", "meaning_of"],
    description: "Definition of a word",
    params: [{ names: ["word", "term", "query"], kind: "word" }],
    asks: ["define {0}", "what does {0} mean", "meaning of {0}", "look up {0} in the dictionary"],
    result: (v) => `${v[0]}: (definition)`,
  },
  {
    names: ["convert_money", "currency_convert", "exchange"],
    description: "Convert an amount between currencies",
    params: [
      { names: ["amount", "value", "sum"], kind: "number" },
      { names: ["from_currency", "source", "base"], kind: "currency" },
      { names: ["to_currency", "target", "into"], kind: "currency" },
    ],
    asks: [
      "convert {0} {1} to {2}",
      "{0} {1} in {2}",
      "how much is {0} {1} in {2}",
      "change {0} {1} into {2}",
    ],
    result: (v, r) => `${v[0]} ${v[1]} = ${int(r, 1, 9000)}.${int(r, 10, 99)} ${v[2]}`,
  },
  {
    names: ["calendar_add", "add_event", "schedule_event", "new_event"],
    description: "Put an event on the calendar",
    params: [
      { names: ["title", "name", "event"], kind: "phrase" },
      { names: ["date", "day", "on"], kind: "date" },
    ],
    asks: [
      "put {0} on my calendar for {1}",
      "schedule {0} on {1}",
      "add {0} to the calendar on {1}",
      "{1}: {0}, add it",
    ],
    result: (v) => `Added "${v[0]}" on ${v[1]}.`,
  },
  {
    names: ["find_recipe", "recipe_search", "recipes"],
    description: "Find a recipe",
    params: [{ names: ["dish", "recipe", "food"], kind: "phrase" }],
    asks: ["recipe for {0}", "how do I make {0}", "find me a {0} recipe", "I want to cook {0}"],
    result: (v) => `${v[0]}: 4 ingredients, 40 minutes.`,
  },
  {
    names: ["phone_call", "dial", "call_person"],
    description: "Phone someone",
    params: [{ names: ["name", "contact", "who"], kind: "person" }],
    asks: ["call {0}", "ring {0}", "phone {0}", "dial {0} for me"],
    result: (v) => `Calling ${v[0]}…`,
  },
  {
    names: ["volume", "set_speaker_volume", "speaker_level"],
    description: "Set the speaker volume (0-100)",
    params: [{ names: ["level", "percent", "volume"], kind: "int" }],
    asks: ["volume {0}", "set the volume to {0}", "turn it to {0}", "speaker at {0} percent"],
    result: (v) => `Volume is ${v[0]}.`,
  },
  {
    names: ["flight_info", "track_flight", "flight_status"],
    description: "Status of a flight",
    params: [{ names: ["flight", "flight_no", "code"], kind: "code" }],
    asks: ["where is flight {0}", "status of {0}", "is {0} delayed", "track flight {0}"],
    result: (v, r) => `${v[0]}: ${pick(r, ["on time", "delayed 20 minutes", "boarding", "landed"])}`,
  },
  {
    names: ["restaurant_search", "find_food", "places_to_eat"],
    description: "Find restaurants",
    params: [
      {
        names: ["food", "kind", "style"],
        kind: "word",
        enum: ["thai", "italian", "sushi", "vegan", "mexican", "indian"],
      },
      { names: ["near", "city", "area"], kind: "city" },
    ],
    asks: [
      "{0} food in {1}",
      "find {0} restaurants near {1}",
      "where can I get {0} in {1}",
      "good {0} places in {1}",
    ],
    result: (v) => `3 ${v[0]} places in ${v[1]}.`,
  },
  {
    names: ["lights_on", "switch_light", "light_control"],
    description: "Turn on a room's lights",
    params: [{ names: ["room", "area", "where"], kind: "room" }],
    asks: [
      "lights on in the {0}",
      "turn on the {0} lights",
      "switch on the light in the {0}",
      "{0} lights please",
    ],
    result: (v) => `${v[0]} lights on.`,
  },
  {
    names: ["set_light_color", "light_color"],
    description: "Change a room's light color",
    params: [
      { names: ["room"], kind: "room" },
      { names: ["color", "colour"], kind: "color" },
    ],
    asks: ["make the {0} lights {1}", "{0} light to {1}", "set the {0} to {1}"],
    result: (v) => `${v[0]} is now ${v[1]}.`,
  },
  {
    names: ["reserve_table", "book_restaurant", "table_booking"],
    description: "Reserve a table",
    params: [
      { names: ["restaurant", "place", "venue"], kind: "title" },
      { names: ["guests", "party_size", "people"], kind: "int" },
    ],
    asks: ["table at {0} for {1}", "book {0} for {1} people", "reserve {0}, {1} guests"],
    result: (v) => `Booked ${v[0]} for ${v[1]}.`,
  },
  {
    names: ["rates", "fx_rate", "currency_rate"],
    description: "Exchange rate between two currencies",
    params: [
      { names: ["from", "base"], kind: "currency" },
      { names: ["to", "quote"], kind: "currency" },
    ],
    asks: ["{0} to {1} rate", "exchange rate from {0} to {1}", "how many {1} for one {0}"],
    result: (v, r) => `1 ${v[0]} = ${int(r, 0, 150)}.${int(r, 10, 99)} ${v[1]}`,
  },
  {
    names: ["reminder", "set_reminder", "remind"],
    description: "Remind the user at a time",
    params: [
      { names: ["what", "text", "note"], kind: "phrase" },
      { names: ["at", "time", "when"], kind: "time" },
    ],
    asks: ["remind me to {0} at {1}", "at {1} remind me to {0}", "reminder: {0} at {1}"],
    result: (v) => `I'll remind you at ${v[1]}.`,
  },
  {
    names: ["movie_search", "find_film", "films"],
    description: "Search films",
    params: [{ names: ["title", "film", "name"], kind: "title" }],
    asks: ["find the film {0}", "search for the movie {0}", "info on {0}", "who directed {0}"],
    result: (v, r) => `${v[0]} (${int(r, 1950, 2024)})`,
  },
  {
    names: ["route_distance", "distance_between", "how_far"],
    description: "Distance between two places",
    params: [
      { names: ["from", "start", "origin_city"], kind: "city" },
      { names: ["to", "end", "destination_city"], kind: "city" },
    ],
    asks: ["distance from {0} to {1}", "how far is {1} from {0}", "{0} to {1}, how many km"],
    result: (v, r) => `${v[0]} → ${v[1]}: ${int(r, 10, 9000)} km`,
  },
  {
    names: ["spellcheck", "spelling", "is_spelled_right"],
    description: "Check spelling",
    params: [{ names: ["word", "text"], kind: "word" }],
    asks: ["spell check {0}", "is {0} spelled correctly", "check the spelling of {0}"],
    result: (v) => `"${v[0]}" is spelled correctly.`,
  },
  {
    names: ["postal_code", "zip_lookup", "postcode"],
    description: "Postal code of a town",
    params: [{ names: ["city", "town", "place"], kind: "city" }],
    asks: ["postcode of {0}", "zip for {0}", "what's the postal code in {0}"],
    result: (v, r) => `${v[0]}: ${int(r, 1000, 99999)}`,
  },
  {
    names: ["tip", "calc_tip", "tip_amount"],
    description: "Work out a tip",
    params: [
      { names: ["total", "bill", "amount"], kind: "number" },
      { names: ["percentage", "rate", "pct"], kind: "int" },
    ],
    asks: ["tip on {0} at {1} percent", "{1}% tip for {0}", "what's {1} percent of a {0} bill"],
    result: (v) => `Tip: ${v[0]} × ${v[1]}%`,
  },
  {
    names: ["news", "headlines", "latest_news"],
    description: "Latest news on a topic",
    params: [{ names: ["topic", "about", "subject"], kind: "topic" }],
    asks: ["news about {0}", "latest on {0}", "any headlines on {0}", "what's new with {0}"],
    result: (v) => `3 stories about ${v[0]}.`,
  },
  {
    names: ["lock", "door_lock", "secure_door"],
    description: "Lock a door",
    params: [{ names: ["door", "which", "name"], kind: "room" }],
    asks: ["lock the {0} door", "lock up the {0}", "is the {0} locked? lock it"],
    result: (v) => `${v[0]} door locked.`,
  },
  {
    names: ["whois", "ip_lookup", "lookup_ip"],
    description: "Information about an IP address",
    params: [{ names: ["address", "ip"], kind: "code" }],
    asks: ["look up ip {0}", "who owns {0}", "whois {0}"],
    result: (v) => `${v[0]}: registered`,
  },
  {
    names: ["word_count", "count_characters", "text_stats"],
    description: "Count words in a text",
    params: [{ names: ["text", "input"], kind: "phrase" }],
    asks: ["count the words in: {0}", "how many letters in {0}", "word count of {0}"],
    result: (v) => `${String(v[0]).split(" ").length} words`,
  },
  {
    names: ["sunset", "sun_times", "daylight"],
    description: "Sunrise and sunset for a city",
    params: [{ names: ["city", "location"], kind: "city" }],
    asks: ["when does the sun set in {0}", "sunset in {0}", "daylight hours in {0}"],
    result: (v, r) =>
      `${v[0]}: sunrise 0${int(r, 5, 8)}:${int(r, 10, 59)}, sunset ${int(r, 16, 21)}:${int(r, 10, 59)}`,
  },
  {
    names: ["book_search", "find_books", "library_search"],
    description: "Find books",
    params: [{ names: ["author", "writer", "by"], kind: "person" }],
    asks: ["books by {0}", "what has {0} written", "find books from {0}"],
    result: (v) => `4 books by ${v[0]}.`,
  },
  {
    names: ["order_food", "food_order", "order"],
    description: "Order food",
    params: [
      { names: ["size"], kind: "word", enum: ["small", "medium", "large"] },
      { names: ["item", "dish", "what"], kind: "phrase" },
    ],
    asks: ["order a {0} {1}", "{0} {1} please, to go", "I'd like a {0} {1}"],
    result: (v) => `Ordered: ${v[0]} ${v[1]}.`,
  },
  {
    names: ["country_info", "population", "country_facts"],
    description: "Facts about a country",
    params: [{ names: ["country", "nation", "name"], kind: "city" }],
    asks: ["facts about {0}", "tell me about {0}", "population of {0}"],
    result: (v, r) => `${v[0]}: ${int(r, 1, 90)} million people`,
  },
  {
    names: ["horoscope", "star_sign", "zodiac"],
    description: "Daily horoscope",
    params: [
      {
        names: ["sign"],
        kind: "word",
        enum: [
          "Aries",
          "Taurus",
          "Gemini",
          "Cancer",
          "Leo",
          "Virgo",
          "Libra",
          "Scorpio",
          "Sagittarius",
          "Capricorn",
          "Aquarius",
          "Pisces",
        ],
      },
    ],
    asks: ["{0} horoscope", "what do the stars say for {0}", "today for {0}"],
    result: (v) => `${v[0]}: a good day for plans.`,
  },
];

function schemaOf(params: readonly { name: string; p: Param }[]): Tool["inputSchema"] {
  const properties: Record<string, { type: string; enum?: string[] }> = {};
  for (const { name, p } of params) {
    const numeric = p.kind === "int" || p.kind === "number";
    properties[name] = p.enum
      ? { type: "string", enum: p.enum }
      : { type: numeric ? (p.kind === "int" ? "integer" : "number") : "string" };
  }
  return { type: "object", properties, required: params.map((x) => x.name) };
}

interface ClientTool {
  tool: Tool;
  domain: Domain;
  params: { name: string; p: Param }[];
}

function clientTool(rng: Rng, domain: Domain): ClientTool {
  const params = domain.params.map((p) => ({ name: pick(rng, p.names), p }));
  const tool: Tool = {
    name: pick(rng, domain.names),
    ...(chance(rng, 0.7) ? { description: domain.description } : {}),
    inputSchema: schemaOf(params),
  };
  return { tool, domain, params };
}

/**
 * From mix 7 on, about one city or person in three is written with letters outside ASCII: half of them from this list,
 * as their people write them (a client's weather tool is asked about "Zürich", a message goes to "Zoë"), half made up
 * by accenting another ("Bängkok"), so the model learns to copy such letters, not a list.
 */
const ACCENTED: Partial<Record<Kind, readonly string[]>> = {
  // The first ten of the notes' cities (people-words.ts).
  city: ACCENTED_CITIES.slice(0, 10),
  person: ["Zoë", "José", "Chloé", "Søren", "Björn", "François", "Jürgen", "Agnès", "Noémie", "Łukasz"],
};

function drawValue(rng: Rng, p: Param, mix: Mix): string | number {
  if (p.enum) return pick(rng, p.enum);
  const accented = ACCENTED[p.kind];
  if (mix >= 7 && accented && chance(rng, 0.35))
    return chance(rng, 0.5) ? pick(rng, accented) : accentLetters(rng, String(value(rng, p.kind)));
  return value(rng, p.kind);
}

const unaccented = (v: string | number) =>
  typeof v === "string" ? v.normalize("NFD").replace(/\p{M}/gu, "") : v;

/** Values for a tool's parameters; enum values are drawn from the enum, so the request names one of them. */
function valuesFor(rng: Rng, t: ClientTool, mix: Mix): (string | number)[] {
  const out: (string | number)[] = [];
  for (const { p } of t.params) {
    let v = drawValue(rng, p, mix);
    // Two parameters of one kind (from and to currency) get different values, also when one is accented ("Bàngkók").
    while (out.some((o) => unaccented(o) === unaccented(v))) v = drawValue(rng, p, mix);
    out.push(v);
  }
  return out;
}

export const clientToolScenario: Scenario = async (ctx) => {
  const rng = ctx.rng;
  const target = clientTool(rng, pick(rng, DOMAINS));
  const others = new Set<Domain>([target.domain]);
  const offered: ClientTool[] = [target];
  const extra = int(rng, 0, 3);
  while (offered.length < extra + 1) {
    const d = pick(rng, DOMAINS);
    if (others.has(d)) continue;
    others.add(d);
    offered.push(clientTool(rng, d));
  }
  // The target is not always first in a client's list.
  for (let i = offered.length - 1; i > 0; i--) {
    const j = int(rng, 0, i);
    [offered[i], offered[j]] = [offered[j] as ClientTool, offered[i] as ClientTool];
  }
  ctx.offer(offered.map((o) => o.tool));
  if (chance(rng, 0.08)) {
    // Nothing offered fits: say so, call nothing.
    ctx.user(
      casing(
        rng,
        pick(rng, [
          "what's 2 + 2",
          "tell me a joke",
          "who are you?",
          "what's the capital of Peru",
          "hi!",
          "thanks!",
        ]),
      ),
    );
    ctx.answer(
      pick(rng, [
        "I can't help with that with the tools I have.",
        "None of my tools can do that.",
        "Hello! How can I help?",
      ]),
    );
    return;
  }
  const values = valuesFor(rng, target, ctx.mix);
  let text = pick(rng, target.domain.asks);
  values.forEach((v, i) => {
    text = text.replace(`{${i}}`, String(v));
  });
  text = `${pick(rng, OPENERS)}${text}${pick(rng, ["", "", "", "?", " please", " thanks", "!"])}`;
  ctx.user(casing(rng, text));
  const args = Object.fromEntries(target.params.map(({ name }, i) => [name, values[i]]));
  const result = target.domain.result(values, rng);
  const o = ctx.fake(target.tool.name, args, result);
  ctx.answer(pick(rng, [o.text, `Done: ${o.text}`, `Here you go: ${o.text}`, `${o.text}`]));
};
