import { cutText } from './figure-text.js';

// The report's charts as inline SVG, drawn here: a few rectangles and texts each, so the page needs no
// script, no library and no network, renders the same anywhere, and prints as it shows.

const WIDTH = 760;
const ROW = 24;
const LABEL_WIDTH = 210;
const BAR_X = LABEL_WIDTH + 10;
const BAR_WIDTH = 340;
/** Characters of a label drawn before it is cut (its full text is the row's tooltip). */
const LABEL_CHARS = 30;

const round = (n: number): number => Math.round(n * 100) / 100;

function svg(height: number, label: string, body: Html[]): Html {
  return html`<svg viewBox="0 0 ${WIDTH} ${height}" width="${WIDTH}" height="${height}" role="img" aria-label="${label}">${body}</svg>`;
}

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

/** A round number at least `n` × 1.25 (1, 2 or 5 × a power of ten): a scale on which even days are not a wall. */
function scaleTop(n: number): number {
  const wanted = Math.max(1, n * 1.25);
  const power = 10 ** Math.floor(Math.log10(wanted));
  return [1, 2, 5, 10].map((step) => step * power).find((top) => top >= wanted)!;
}

/** Rows created per day on a date axis (a day without rows is a gap), the scale a round number above the largest day. */
export function dayColumns(counted: readonly DayCount[]): Html {
  const days = calendarDays(counted);
  const top = 16;
  const plot = 140;
  const left = 56;
  const height = top + plot + 26;
  const max = scaleTop(Math.max(0, ...days.map((day) => day.rows)));
  const slot = (WIDTH - left - 8) / Math.max(1, days.length);
  // a column is at most 36 wide, centred in its slot; the first label starts at its column and the
  // last ends at its column, so neither runs off the chart (a lone label is centred)
  const barWidth = Math.min(slot * 0.8, 36);
  const xOf = (i: number): number => left + i * slot + (slot - barWidth) / 2;
  const bars = days
    .map((day, i) => ({ day, i }))
    .filter(({ day }) => day.rows > 0)
    .map(({ day, i }) => {
      const h = round((day.rows / max) * plot);
      return html`<rect class="day" x="${round(xOf(i))}" y="${round(top + plot - h)}" width="${round(barWidth)}" height="${h}"
        ><title>${day.day}: ${day.rows.toLocaleString('en-US')} rows</title></rect
      >`;
    });
  const labelled = days.length <= 3 ? days.map((_, i) => i) : [0, Math.floor((days.length - 1) / 2), days.length - 1];
  const label = (i: number): Html => {
    const [x, anchor] =
      days.length > 1 && i === 0
        ? [xOf(i), 'start']
        : days.length > 1 && i === days.length - 1
          ? [xOf(i) + barWidth, 'end']
          : [xOf(i) + barWidth / 2, 'middle'];
    return html`<text x="${round(x)}" y="${height - 8}" text-anchor="${anchor}">${days[i]!.day}</text>`;
  };
  const xLabels = labelled.map(label);
  return svg(height, 'rows created per day', [
    html`<line class="axis" x1="${left}" y1="${top + plot}" x2="${WIDTH - 8}" y2="${top + plot}" />`,
    html`<text x="${left - 6}" y="${top + 4}" text-anchor="end">${max.toLocaleString('en-US')}</text>`,
    html`<text x="${left - 6}" y="${top + plot}" text-anchor="end">0</text>`,
    ...bars,
    ...xLabels,
  ]);
}

export interface FillRow {
  label: string;
  /** 0–1 */
  fill: number;
  /** Drawn after the bar. */
  text: string;
}

/** A horizontal bar per row, filled to its share. */
export function fillBars(rows: readonly FillRow[]): Html {
  const body = rows.map((row, i) => {
    const y = i * ROW;
    return html`<g
      ><title>${row.label}: ${row.text}</title
      ><text x="${LABEL_WIDTH}" y="${y + 16}" text-anchor="end">${cutText(row.label, LABEL_CHARS)}</text
      ><rect class="track" x="${BAR_X}" y="${y + 5}" width="${BAR_WIDTH}" height="14" /><rect
        class="fill"
        x="${BAR_X}"
        y="${y + 5}"
        width="${round(row.fill * BAR_WIDTH)}"
        height="14"
      /><text x="${BAR_X + BAR_WIDTH + 8}" y="${y + 16}">${row.text}</text></g
    >`;
  });
  return svg(Math.max(ROW, rows.length * ROW), 'fill per column', body);
}

export interface StackRow {
  label: string;
  /** Segments in order: a class (its colour) and a count. */
  parts: ReadonlyArray<{ name: string; count: number }>;
}

/** A bar per row split in segments by count (each with its count when there is room for it). */
export function stackedBars(rows: readonly StackRow[]): Html {
  const body = rows.map((row, i) => {
    const y = i * (ROW + 6);
    const total = row.parts.reduce((sum, part) => sum + part.count, 0);
    let x = BAR_X;
    const segments = row.parts.map((part) => {
      const w = total === 0 ? 0 : (part.count / total) * (WIDTH - BAR_X - 8);
      const segment = html`<rect class="state-${part.name}" x="${round(x)}" y="${y + 3}" width="${round(w)}" height="20"
          ><title>${part.name}: ${part.count.toLocaleString('en-US')}</title></rect
        >${
          w >= 34 && part.count > 0
            ? html`<text class="on-bar on-${part.name}" x="${round(x + w / 2)}" y="${y + 17}" text-anchor="middle"
                >${part.count.toLocaleString('en-US')}</text
              >`
            : null
        }`;
      x += w;
      return segment;
    });
    return html`<g><text x="${LABEL_WIDTH}" y="${y + 17}" text-anchor="end">${cutText(row.label, LABEL_CHARS)}</text>${segments}</g>`;
  });
  return svg(Math.max(ROW, rows.length * (ROW + 6)), 'run states per action column', body);
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
