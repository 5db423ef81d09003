import ora, { type Ora } from "ora";

export interface LoadProgress {
  /** Loading progress, 0..1 (node-llama-cpp's `onLoadProgress`). */
  update(progress: number): void;
  /** Loading ended (well or not); says how long it took, if anything was shown. */
  finish(ok: boolean): void;
}

/**
 * A model-load progress display: a spinner with a percentage on a terminal, two plain lines otherwise. Nothing is
 * shown for models that never report progress (remote APIs).
 */
export function createLoadProgress(label: string, stream: NodeJS.WriteStream): LoadProgress {
  const started = performance.now();
  let spinner: Ora | undefined;
  let shown = false;
  let last = -1;
  // The runtime may report again for later users of the same loaded model; only the first load is shown.
  let finished = false;
  const seconds = () => ((performance.now() - started) / 1000).toFixed(1);
  return {
    update(progress) {
      if (finished) return;
      const percent = Math.max(0, Math.min(100, Math.round(progress * 100)));
      if (stream.isTTY) {
        if (!spinner) spinner = ora({ text: "", stream, discardStdin: false }).start();
        if (percent !== last) spinner.text = `Loading ${label} ${percent}%`;
      } else if (!shown) {
        stream.write(`Loading ${label}…\n`);
      }
      shown = true;
      last = percent;
    },
    finish(ok) {
      finished = true;
      if (!shown) return;
      const text = ok ? `Loaded ${label} in ${seconds()} s` : `Could not load ${label}`;
      if (spinner) {
        if (ok) spinner.succeed(text);
        else spinner.fail(text);
      } else {
        stream.write(`${text}\n`);
      }
      shown = false;
    },
  };
}
