import { Dialog } from "radix-ui";
import { lazy, Suspense, useState } from "react";
import { errorText } from "../api/http.js";
import type { JsonObject } from "../api/types.js";
import { Spinner } from "./icons.js";

const SchemaForm = lazy(() => import("./schema-form.js"));

/**
 * Edit a call's arguments before approving it: the tool's schema as a form, pre-filled with what the model asked
 * for (or raw JSON). Nothing is sent until the arguments pass the schema; the server checks them again (422).
 */
export function EditArgumentsDialog(props: {
  toolName: string;
  schema: JsonObject | undefined;
  initial: JsonObject;
  onApprove: (values: JsonObject) => Promise<void>;
  disabled?: boolean;
}) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const submit = async (values: JsonObject) => {
    setBusy(true);
    setError(undefined);
    try {
      await props.onApprove(values);
      setOpen(false);
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog.Root
      open={open}
      onOpenChange={(next) => {
        setOpen(next);
        setError(undefined);
      }}
    >
      <Dialog.Trigger asChild>
        <button type="button" className="button" disabled={props.disabled}>
          Edit arguments
        </button>
      </Dialog.Trigger>
      <Dialog.Portal>
        <Dialog.Overlay className="dialog-overlay" />
        <Dialog.Content className="dialog dialog-wide">
          <Dialog.Title className="dialog-title">Edit the arguments of {props.toolName}</Dialog.Title>
          <Dialog.Description className="muted">
            The call runs with what you approve here. The tool's schema checks it first.
          </Dialog.Description>
          {error ? (
            <p className="form-errors" role="alert">
              {error}
            </p>
          ) : null}
          <Suspense fallback={<Spinner label="Loading the form" />}>
            <SchemaForm
              schema={props.schema ?? { type: "object" }}
              initial={props.initial}
              submitLabel="Approve with these arguments"
              label={`Arguments of ${props.toolName}`}
              onSubmit={(values) => void submit(values)}
              busy={busy}
            >
              <Dialog.Close asChild>
                <button type="button" className="button">
                  Cancel
                </button>
              </Dialog.Close>
            </SchemaForm>
          </Suspense>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
