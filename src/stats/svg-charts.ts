// The report's charts: shapes as inline SVG, a few rectangles each, so the page needs no script, no
// library and no network, renders the same anywhere, and prints as it shows. No text is drawn in an
// SVG that scales: a chart's labels are HTML beside it (or SVG text in an SVG without a viewBox, whose
// units are CSS pixels), so they keep their size when a phone's screen narrows the chart.

/** The per-day plot's viewBox: stretched to the page's width (preserveAspectRatio none), its height in CSS pixels. */
const PLOT_WIDTH = 700;
const PLOT_HEIGHT = 140;
/**
 * The narrowest a run-state bar is drawn (a 320-pixel screen less the page's margins): a count is drawn
 * on a segment only when it fits there, so it is never cut, whatever the screen.
 */
const NARROWEST_BAR = 296;
/** The width of a count drawn on a bar (12 px, bold), per character, and the room left around it. */
const COUNT_CHAR = 7;
const COUNT_ROOM = 8;

const round = (n: number): number => Math.round(n * 100) / 100;

export interface DayCount {
  day: string;
  rows: number;
}

const DAY_MS = 86_400_000;

/**
 * The days from the first to the last of `days` (YYYY-MM-DD, oldest first), each once, with 0 rows for
 * a day that has none: a true date axis, where a quiet day shows as a gap.
 */
export function calendarDays(days: readonly DayCount[]): DayCount[] {
  if (days.length === 0) return [];
  const rows = new Map(days.map((day) => [day.day, day.rows]));
  const first = Date.parse(`${days[0]!.day}T00:00:00Z`);
  const last = Date.parse(`${days.at(-1)!.day}T00:00:00Z`);
  const all: DayCount[] = [];
  for (let at = first; at <= last; at += DAY_MS) {
    const day = new Date(at).toISOString().slice(0, 10);
    all.push({ day, rows: rows.get(day) ?? 0 });
  }
  return all;
}

/**
 * The round number (1, 2 or 5 × a power of ten) at or above the largest day: the scale the axis shows, so
 * that the largest day's column reaches it when it is round (1 row: full height, not half).
 */
export function scaleTop(n: number): number {
  const wanted = Math.max(1, n);
  const power = 10 ** Math.floor(Math.log10(wanted));
  return [1, 2, 5, 10].map((step) => step * power).find((top) => top >= wanted)!;
}

/**
 * Rows created per day on a date axis (a day without rows is a gap), the scale a round number above the
 * largest day; the scale and the dates are HTML around the plot, placed in percent of its width.
 */
export function dayColumns(counted: readonly DayCount[]): Html {
  const days = calendarDays(counted);
  const max = scaleTop(Math.max(0, ...days.map((day) => day.rows)));
  const slot = PLOT_WIDTH / Math.max(1, days.length);
  // a column is at most 36 wide, centred in its slot; the first date starts at its column and the last
  // ends at its column, so neither runs off the chart (a lone date is centred)
  const barWidth = Math.min(slot * 0.8, 36);
  const xOf = (i: number): number => i * slot + (slot - barWidth) / 2;
  const bars = days
    .map((day, i) => ({ day, i }))
    .filter(({ day }) => day.rows > 0)
    .map(({ day, i }) => {
      const h = round((day.rows / max) * PLOT_HEIGHT);
      return html`<rect class="day" x="${round(xOf(i))}" y="${round(PLOT_HEIGHT - h)}" width="${round(barWidth)}" height="${h}"
        ><title>${day.day}: ${day.rows.toLocaleString('en-US')} ${day.rows === 1 ? 'row' : 'rows'}</title></rect
      >`;
    });
  const percentOf = (x: number): number => round((x / PLOT_WIDTH) * 100);
  const labelled = days.length <= 3 ? days.map((_, i) => i) : [0, Math.floor((days.length - 1) / 2), days.length - 1];
  const dates = labelled.map((i) => {
    const place =
      days.length > 1 && i === 0
        ? `left: ${percentOf(xOf(i))}%`
        : days.length > 1 && i === days.length - 1
          ? `right: ${round(100 - percentOf(xOf(i) + barWidth))}%`
          : `left: ${percentOf(xOf(i) + barWidth / 2)}%; transform: translateX(-50%)`;
    return html`<span style="${place}">${days[i]!.day}</span>`;
  });
  return html`<div class="days">
    <div class="scale" aria-hidden="true"><span>${max.toLocaleString('en-US')}</span><span>0</span></div>
    <svg class="plot" viewBox="0 0 ${PLOT_WIDTH} ${PLOT_HEIGHT}" preserveAspectRatio="none" role="img" aria-label="rows created per day">
      <line class="axis" x1="0" y1="${PLOT_HEIGHT}" x2="${PLOT_WIDTH}" y2="${PLOT_HEIGHT}" />
      ${bars}
    </svg>
    <div class="dates">${dates}</div>
  </div>`;
}

export interface FillRow {
  label: string;
  /** 0–1 */
  fill: number;
  /** Written after the bar. */
  text: string;
}

/** A horizontal bar per row, filled to its share: the label, the bar and its text, a row of a grid that the phone's layout rearranges. */
export function fillBars(rows: readonly FillRow[]): Html {
  const body = rows.map(
    (row) =>
      html`<span class="label" title="${row.label}">${row.label}</span
        ><svg class="bar" aria-hidden="true">
          <rect class="track" width="100%" height="100%" />
          <rect class="fill" width="${round(row.fill * 100)}%" height="100%" /></svg
        ><span class="figure">${row.text}</span>`,
  );
  return html`<div class="bars fill-bars" role="group" aria-label="fill per column">${body}</div>`;
}

export interface StackRow {
  label: string;
  /** Segments in order: a class (its colour) and a count. */
  parts: ReadonlyArray<{ name: string; count: number }>;
}

/**
 * A bar per row split in segments by count, each with its count when it fits the segment on the
 * narrowest bar. The SVG has no viewBox: its segments are placed in percent and its text is in CSS pixels.
 */
export function stackedBars(rows: readonly StackRow[]): Html {
  const body = rows.map((row) => {
    const total = row.parts.reduce((sum, part) => sum + part.count, 0);
    let x = 0;
    const segments = row.parts.map((part) => {
      const share = total === 0 ? 0 : (part.count / total) * 100;
      const shown = part.count.toLocaleString('en-US');
      const fits = part.count > 0 && (share / 100) * NARROWEST_BAR >= shown.length * COUNT_CHAR + COUNT_ROOM;
      const segment = html`<rect class="state-${part.name}" x="${round(x)}%" width="${round(share)}%" height="100%"
          ><title>${part.name}: ${shown}</title></rect
        >${fits ? html`<text class="on-bar on-${part.name}" x="${round(x + share / 2)}%" y="14.5" text-anchor="middle">${shown}</text>` : null}`;
      x += share;
      return segment;
    });
    return html`<span class="label" title="${row.label}">${row.label}</span><svg class="stack">${segments}</svg>`;
  });
  return html`<div class="bars stack-bars" role="group" aria-label="run states per action column">${body}</div>`;
}

/** A swatch of a class's colour, for legends. */
export function swatch(name: string): Html {
  return html`<svg class="swatch" viewBox="0 0 12 12" width="12" height="12" aria-hidden="true">
    <rect class="state-${name}" width="12" height="12" rx="2" />
  </svg>`;
}

// HTML made safe by construction: the `html` template escapes every value put into it (labels, cell
// values and error messages are outside text: a `<script>` in a cell stays text), except the Html
// that other `html` templates made.

export class Html {
  constructor(readonly text: string) {}

  toString(): string {
    return this.text;
  }
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text as HTML text or attribute value: & < > " ' as entities; control characters (but tab and line ends) as U+FFFD. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ENTITIES[char]!).replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, '\uFFFD');
}

type Part = Html | string | number | boolean | null | undefined | readonly Part[];

function render(part: Part): string {
  if (part instanceof Html) return part.text;
  if (Array.isArray(part)) return part.map(render).join('');
  if (part === null || part === undefined || part === false) return '';
  return escapeHtml(String(part));
}

/** A template whose values are escaped (arrays joined, null and false left out) unless they are Html. */
export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let out = strings[0]!;
  values.forEach((value, i) => {
    out += render(value) + strings[i + 1]!;
  });
  return new Html(out);
}
