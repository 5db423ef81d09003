/** Small inline icons (no icon font, nothing fetched): decorative, hidden from assistive technology. */
const paths: Record<string, string> = {
  check: "M4 10.5l4 4 8-9",
  x: "M5 5l10 10M15 5L5 15",
  alert: "M10 3l8 14H2L10 3zm0 5v4m0 3v.5",
  clock: "M10 3a7 7 0 110 14 7 7 0 010-14zm0 3v4l3 2",
  shield: "M10 2l7 3v5c0 4-3 7-7 8-4-1-7-4-7-8V5l7-3z",
  stop: "M5 5h10v10H5z",
  send: "M3 10l14-7-5 14-2-6-7-1z",
  plus: "M10 4v12M4 10h12",
  menu: "M3 5h14M3 10h14M3 15h14",
  pencil: "M13 3l4 4-9 9H4v-4l9-9z",
  trash: "M4 6h12M8 6V4h4v2m-6 0l1 10h6l1-10",
  chevron: "M7 5l5 5-5 5",
  refresh: "M16 10a6 6 0 11-2-4.5M16 3v4h-4",
  download: "M10 3v10m-4-4l4 4 4-4M4 16h12",
  search: "M9 3a6 6 0 110 12A6 6 0 019 3zm4.5 10.5L17 17",
  dots: "M5 10h.01M10 10h.01M15 10h.01",
  ban: "M10 3a7 7 0 110 14 7 7 0 010-14zM5 5l10 10",
  pause: "M7 5v10M13 5v10",
  copy: "M7 7h9v9H7zM4 13V4h9",
};

export type IconName = keyof typeof paths;

export function Icon({ name, className }: { name: IconName; className?: string }) {
  return (
    <svg
      className={`icon${className ? ` ${className}` : ""}`}
      viewBox="0 0 20 20"
      width="16"
      height="16"
      aria-hidden="true"
      focusable="false"
    >
      <path
        d={paths[name]}
        fill="none"
        stroke="currentColor"
        strokeWidth="1.8"
        strokeLinecap="round"
        strokeLinejoin="round"
      />
    </svg>
  );
}

export function Spinner({ label }: { label?: string }) {
  const svg = (
    <svg viewBox="0 0 20 20" width="16" height="16" aria-hidden="true" focusable="false">
      <circle cx="10" cy="10" r="7" fill="none" stroke="currentColor" strokeWidth="2" opacity="0.25" />
      <path d="M10 3a7 7 0 017 7" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
    </svg>
  );
  if (!label) return <span className="spinner">{svg}</span>;
  return (
    <span className="spinner" role="status" aria-label={label}>
      {svg}
    </span>
  );
}
