import { useVirtualizer } from "@tanstack/react-virtual";
import { useMemo, useRef } from "react";

/** Lines longer than this are shown in pieces, so that no row holds megabytes of text. */
const CHUNK = 2000;
const ROW_HEIGHT = 20;

/** Split text into the rows a virtual list draws: its lines, long ones cut into CHUNK-sized pieces. */
export function textRows(text: string): string[] {
  const rows: string[] = [];
  for (const line of text.split("\n")) {
    if (line.length <= CHUNK) rows.push(line);
    else for (let start = 0; start < line.length; start += CHUNK) rows.push(line.slice(start, start + CHUNK));
  }
  return rows;
}

/**
 * Text of any size without freezing the page: only the rows in view are in the DOM (a 5 MB result draws a few dozen
 * rows), scrolled inside a box that keyboard users can focus and scroll.
 */
export function VirtualText({ text, label }: { text: string; label: string }) {
  const rows = useMemo(() => textRows(text), [text]);
  const parent = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => parent.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 20,
  });
  return (
    <div
      ref={parent}
      className="virtual-text"
      role="region"
      aria-label={label}
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard to be scrolled
      tabIndex={0}
    >
      <div style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
        {virtualizer.getVirtualItems().map((item) => (
          <div
            key={item.key}
            className="virtual-text-row"
            style={{
              position: "absolute",
              top: 0,
              left: 0,
              transform: `translateY(${item.start}px)`,
              height: ROW_HEIGHT,
            }}
          >
            {rows[item.index] || "\u00a0"}
          </div>
        ))}
      </div>
    </div>
  );
}
