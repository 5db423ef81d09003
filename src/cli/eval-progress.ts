import ora, { type Ora } from "ora";

export interface EvalProgress {
  /** A variant begins: `todo` entries still to ask (the rest were resumed). */
  variant(label: string, index: number, count: number, entries: number, todo: number): void;
  /** One entry answered. */
  entry(passed: boolean): void;
  /** The variant is done. */
  variantDone(label: string, passed: number, entries: number, seconds: number): void;
  /** Stop drawing (before printing the report, or on an error). */
  stop(): void;
}

/** `1h02m`, `3m05s`, `42s`. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s >= 3600) return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
  if (s >= 60) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
  return `${s}s`;
}

/** A bar of `width` cells for a share of 0..1. */
export function progressBar(share: number, width = 20): string {
  const filled = Math.max(0, Math.min(width, Math.round(share * width)));
  return `${"█".repeat(filled)}${"░".repeat(width - filled)}`;
}

/**
 * Progress of an evaluation on stderr: on a terminal a bar with the share done, the share passed so far and the time
 * left (from the entries asked in this run, so resumed ones do not skew it); elsewhere one line per variant.
 */
export function createEvalProgress(stream: NodeJS.WriteStream, totalTodo: number): EvalProgress {
  const tty = stream.isTTY === true;
  let spinner: Ora | undefined;
  let label = "";
  let header = "";
  let entries = 0;
  let todo = 0;
  let done = 0;
  let passed = 0;
  let askedOverall = 0;
  const started = performance.now();
  const draw = () => {
    if (!spinner) return;
    const elapsed = (performance.now() - started) / 1000;
    const left = totalTodo - askedOverall;
    const eta = askedOverall > 0 ? formatDuration((elapsed / askedOverall) * left) : "…";
    const share = entries ? done / entries : 1;
    const asked = done - (entries - todo);
    const rate = asked > 0 ? ` ${Math.round((passed / asked) * 100)}% passed` : "";
    const text = `${header}${label} ${progressBar(share)} ${done}/${entries}${rate} · ETA ${eta}`;
    // One line: a spinner whose text wraps redraws badly. A terminal that reports no width is taken as 80 wide.
    const width = (stream.columns || 80) - 3;
    spinner.text = text.length > width ? `${text.slice(0, width - 1)}…` : text;
  };
  return {
    variant(name, index, count, total, fresh) {
      label = name;
      header = count > 1 ? `[${index + 1}/${count}] ` : "";
      entries = total;
      todo = fresh;
      done = total - fresh;
      passed = 0;
      if (tty) {
        spinner ??= ora({ text: "", stream, discardStdin: false }).start();
        draw();
      } else {
        stream.write(
          `${header}${name}: ${total} entries${fresh < total ? ` (${total - fresh} resumed)` : ""}…\n`,
        );
      }
    },
    entry(ok) {
      done++;
      askedOverall++;
      if (ok) passed++;
      draw();
    },
    variantDone(name, passedAll, total, seconds) {
      const line = `${header}${name}: ${passedAll}/${total} passed (${total ? ((passedAll / total) * 100).toFixed(1) : "0.0"}%) in ${formatDuration(seconds)}`;
      if (spinner) {
        spinner.succeed(line);
        spinner = undefined;
      } else {
        stream.write(`${line}\n`);
      }
    },
    stop() {
      spinner?.stop();
      spinner = undefined;
    },
  };
}
