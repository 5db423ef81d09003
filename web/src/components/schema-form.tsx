/**
 * The schema form (loaded on demand: only the Tools page and the edit-arguments dialog draw one): @rjsf/core 6 with
 * Ajv 2020-12, which also knows the draft-07 meta-schema, so tools of either dialect validate. Anything the form
 * cannot draw can be written as JSON instead, checked by the same validator. The server checks again: its Ajv is the
 * one that decides.
 */
import Form from "@rjsf/core";
import type { RJSFSchema, RJSFValidationError } from "@rjsf/utils";
import { customizeValidator } from "@rjsf/validator-ajv8";
import Ajv2020 from "ajv/dist/2020.js";
import draft7MetaSchema from "ajv/dist/refs/json-schema-draft-07.json";
import { Component, type ReactNode, useId, useMemo, useState } from "react";
import type { JsonObject } from "../api/types.js";

const validator = customizeValidator({ AjvClass: Ajv2020, additionalMetaSchemas: [draft7MetaSchema] });

export interface SchemaFormProps {
  schema: JsonObject;
  initial: JsonObject;
  submitLabel: string;
  /** Called only with arguments the schema accepts. */
  onSubmit: (values: JsonObject) => void;
  /** Further buttons beside the submit button (Cancel …). */
  children?: ReactNode;
  busy?: boolean;
  /** Accessible name of the form. */
  label: string;
}

/** Problems with `values` under `schema`, as readable lines (empty when valid). */
export function validateArguments(schema: JsonObject, values: unknown): string[] {
  const { errors } = validator.validateFormData(values as JsonObject, schema as RJSFSchema);
  return errors.map(describeError);
}

function describeError(error: RJSFValidationError): string {
  const where = error.property && error.property !== "." ? error.property.replace(/^\./, "") : "";
  return where ? `${where}: ${error.message ?? "is not valid"}` : (error.message ?? error.stack);
}

/** Ajv's message for "must have required property 'x'" names the field; rjsf's default list reads better with it. */
function transformErrors(errors: RJSFValidationError[]): RJSFValidationError[] {
  return errors.map((error) => ({ ...error, stack: describeError(error) }));
}

class FormBoundary extends Component<
  { children: ReactNode; onFail: (message: string) => void },
  { failed: boolean }
> {
  override state = { failed: false };
  static getDerivedStateFromError() {
    return { failed: true };
  }
  override componentDidCatch(error: Error) {
    this.props.onFail(error.message);
  }
  override render() {
    return this.state.failed ? null : this.props.children;
  }
}

export default function SchemaForm(props: SchemaFormProps) {
  const [mode, setMode] = useState<"form" | "json">("form");
  const [values, setValues] = useState<JsonObject>(props.initial);
  const [jsonText, setJsonText] = useState(() => JSON.stringify(props.initial, null, 2));
  const [jsonErrors, setJsonErrors] = useState<string[]>([]);
  const [unsupported, setUnsupported] = useState<string | undefined>();
  const jsonId = useId();
  const schema = useMemo(() => props.schema as RJSFSchema, [props.schema]);

  const switchTo = (next: "form" | "json") => {
    if (next === mode) return;
    if (next === "json") setJsonText(JSON.stringify(values, null, 2));
    else {
      try {
        const parsed = JSON.parse(jsonText) as unknown;
        if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) setValues(parsed as JsonObject);
      } catch {
        // Keep the form's values; the JSON had a syntax error.
      }
    }
    setJsonErrors([]);
    setMode(next);
  };

  const submitJson = () => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(jsonText);
    } catch (error) {
      setJsonErrors([`Not valid JSON: ${(error as Error).message}`]);
      return;
    }
    if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) {
      setJsonErrors(['The arguments must be a JSON object, like {"path": "notes.txt"}.']);
      return;
    }
    const problems = validateArguments(props.schema, parsed);
    setJsonErrors(problems);
    if (problems.length === 0) props.onSubmit(parsed as JsonObject);
  };

  return (
    <div className="schema-form" role="group" aria-label={props.label}>
      <div className="segmented" role="group" aria-label="Arguments editor">
        <button
          type="button"
          aria-pressed={mode === "form"}
          onClick={() => switchTo("form")}
          disabled={unsupported !== undefined}
        >
          Form
        </button>
        <button type="button" aria-pressed={mode === "json"} onClick={() => switchTo("json")}>
          JSON
        </button>
      </div>
      {unsupported ? (
        <p className="muted">
          The form cannot draw this schema ({unsupported}); write the arguments as JSON.
        </p>
      ) : null}
      {mode === "form" && !unsupported ? (
        <FormBoundary
          onFail={(message) => {
            setUnsupported(message);
            setJsonText(JSON.stringify(values, null, 2));
            setMode("json");
          }}
        >
          <Form
            schema={schema}
            formData={values}
            validator={validator}
            noHtml5Validate
            showErrorList="top"
            transformErrors={transformErrors}
            onChange={(event) => setValues((event.formData ?? {}) as JsonObject)}
            onSubmit={(event) => props.onSubmit((event.formData ?? {}) as JsonObject)}
            // The errors are shown in the form; without a handler rjsf also logs them to the console.
            onError={() => {}}
            uiSchema={{ "ui:submitButtonOptions": { norender: true } }}
            id={`${jsonId}-form`}
          >
            <div className="form-actions">
              <button type="submit" className="button button-primary" disabled={props.busy}>
                {props.submitLabel}
              </button>
              {props.children}
            </div>
          </Form>
        </FormBoundary>
      ) : (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            submitJson();
          }}
        >
          <label htmlFor={jsonId} className="field-label">
            Arguments (JSON)
          </label>
          <textarea
            id={jsonId}
            className="json-input"
            spellCheck={false}
            rows={Math.min(18, Math.max(4, jsonText.split("\n").length + 1))}
            value={jsonText}
            onChange={(event) => setJsonText(event.target.value)}
            aria-invalid={jsonErrors.length > 0}
            aria-describedby={jsonErrors.length > 0 ? `${jsonId}-errors` : undefined}
          />
          {jsonErrors.length > 0 ? (
            <ul className="form-errors" id={`${jsonId}-errors`} role="alert">
              {jsonErrors.map((error) => (
                <li key={error}>{error}</li>
              ))}
            </ul>
          ) : null}
          <div className="form-actions">
            <button type="submit" className="button button-primary" disabled={props.busy}>
              {props.submitLabel}
            </button>
            {props.children}
          </div>
        </form>
      )}
    </div>
  );
}
