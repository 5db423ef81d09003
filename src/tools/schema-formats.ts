/**
 * String `format`s toolbridge knows beyond JSON Schema's own. Validators accept any value for them (they are
 * annotations: the tool resolves such values leniently and its own error names close matches), while a local model's
 * call grammar may write such a string as the closed list of values the format allows (see the llama model's
 * `enumerations`), so a small model cannot miscopy one.
 */

/**
 * The format of a time-zone argument: the date/time tools declare it, and users' own tools may too. With a local
 * model in text mode the call-body grammar lists the zone names, so a model copying "Europe/Vilnius" out of a request
 * cannot write "Europe/Vilius".
 */
export const TIME_ZONE_FORMAT = "time-zone";

/** Every format the validators accept as an annotation. */
export const ANNOTATION_FORMATS: readonly string[] = [TIME_ZONE_FORMAT];
