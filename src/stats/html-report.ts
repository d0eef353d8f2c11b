import { count, daysText, instantText, percent, rangeText } from './figure-text.js';
import { Html, html, dayColumns, fillBars, stackedBars, swatch } from './svg-charts.js';
import { RUN_STATES, type ColumnStats, type TableStats, type RunState } from './stats-report.js';
import { valuesText } from './terminal-report.js';
import { staleText } from '../mirror/index.js';

// `tds stats -o FILE.html`: one self-contained page (no script, no outside style, font or image; a
// policy that forbids them all the same), every value escaped, charts as inline SVG.

const POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

export function renderHtmlReport(stats: TableStats): string {
  const { table } = stats;
  const page = html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta http-equiv="Content-Security-Policy" content="${POLICY}" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${table.name}: table stats</title>
        <style>
          ${new Html(REPORT_CSS)}
        </style>
      </head>
      <body>
        <header>
          <h1>${table.name}</h1>
          <p class="facts">
            ${table.workspace} · ${count(table.rows)} rows · ${count(table.columns)} columns ·
            ${table.lastSync ? `synced ${instantText(table.lastSync)}` : 'never synced'}
            ${table.verifiedAt ? `(exact as of ${instantText(table.verifiedAt)})` : null}
            ${table.stale ? html`<strong class="stale">${staleText(table)}</strong>` : null}
          </p>
          ${table.firstCreatedAt && table.lastCreatedAt ? html`<p class="facts">created ${rangeText(table.firstCreatedAt, table.lastCreatedAt)}</p>` : null}
        </header>
        ${perDaySection(stats)} ${fillSection(stats)} ${runStatesSection(stats.columns)} ${causesSection(stats.columns)}
        ${columnsSection(stats.columns)}
        <footer>
          Made by <code>tds stats</code> from the mirror table <code>${table.mirrorTable}</code> (table ${table.id}).
          ${table.lake ? html`Its changes as Parquet: <code>${table.lake}</code>.` : null}
        </footer>
      </body>
    </html> `;
  return page.text;
}

function perDaySection({ table }: TableStats): Html | null {
  if (table.perDay.length === 0) return null;
  const peak = table.perDay.reduce((best, day) => (day.rows > best.rows ? day : best));
  return html`<section id="per-day">
    <h2>Rows created per day</h2>
    <p class="note">UTC, ${daysText(table.perDay.length)}; the most: ${count(peak.rows)} on ${peak.day}.</p>
    ${dayColumns(table.perDay)}
  </section>`;
}

function fillSection(stats: TableStats): Html {
  const rows = stats.columns.map((column) => ({
    label: column.key,
    fill: column.fill,
    text: `${percent(column.fill)} · ${count(column.filled)} of ${count(stats.table.rows)}`,
  }));
  return html`<section id="fill">
    <h2>Fill per column</h2>
    <p class="note">Cells with a value (not empty text, not an empty list).</p>
    ${fillBars(rows)}
  </section>`;
}

function runStatesSection(columns: readonly ColumnStats[]): Html | null {
  const actions = columns.filter((column) => column.states !== null);
  if (actions.length === 0) return null;
  const bars = stackedBars(
    actions.map((column) => ({ label: column.key, parts: RUN_STATES.map((name) => ({ name, count: column.states![name] })) })),
  );
  const legend = RUN_STATES.map((state) => html`<span>${swatch(state)}${state}</span>`);
  const head = RUN_STATES.map((state) => html`<th class="n">${state}</th>`);
  const body = actions.map(
    (column) =>
      html`<tr>
        <td class="key">${column.key}</td>
        ${RUN_STATES.map((state) => html`<td class="n" data-label="${state}">${count(column.states![state])}</td>`)}
      </tr>`,
  );
  return html`<section id="run-states">
    <h2>Run states</h2>
    <p class="note">The state of each action cell; <em>none</em>: the cell has none.</p>
    ${bars}
    <div class="legend">${legend}</div>
    ${dataTable('states', [html`<th>column</th>`, ...head], body)}
  </section>`;
}

function causesSection(columns: readonly ColumnStats[]): Html | null {
  const failing = columns.filter((column) => column.errors && column.errors.length > 0);
  if (failing.length === 0) return null;
  const tables = failing.map((column) => {
    const causes = column.causes ?? 0;
    const rows = column.errors!.map(
      (cause) =>
        html`<tr>
          <td class="n" data-label="cells">${count(cause.count)}</td>
          <td class="cause" data-label="cause">${cause.cause}</td>
          <td class="example" data-label="example message">${cause.example ?? ''}</td>
          <td class="ids" data-label="rows">${cause.ids.join(', ')}</td>
        </tr>`,
    );
    const more =
      causes > column.errors!.length
        ? html`<p class="note">${count(causes - column.errors!.length)} more causes, less frequent.</p>`
        : null;
    const head = html`<th class="n">cells</th>
      <th>cause</th>
      <th>example message</th>
      <th>rows</th>`;
    return html`<h3>${column.key}: ${count(causes)} ${causes === 1 ? 'cause' : 'causes'}</h3>
      ${dataTable('causes', head, rows)} ${more}`;
  });
  return html`<section id="causes">
    <h2>Failure causes</h2>
    <p class="note">
      Error messages grouped across their variable parts (numbers, quoted text, e-mail addresses, domains, URLs, IDs), most frequent first.
    </p>
    ${tables}
  </section>`;
}

/** The values line with each top value's count (`×3`) in a span of its own, greyed apart from the value. */
function valuesHtml(column: ColumnStats): Html[] {
  return valuesText(column)
    .split(/( ×[\d,]+)(?= ·|$)/)
    .map((part) => (/^ ×[\d,]+$/.test(part) ? html` <span class="count">${part.trim()}</span>` : html`${part}`));
}

/** Why a column's key is not its label: another column has the label (` (2)`), or keys are names or IDs. */
function keyNote(column: Pick<ColumnStats, 'key' | 'label'>): string {
  if (column.key.toLowerCase().startsWith(`${column.label.toLowerCase()} (`)) {
    return `label "${column.label}", shared with another column: ${column.key.slice(column.label.length + 1)} tells them apart`;
  }
  return `label "${column.label}"`;
}

function columnsSection(columns: readonly ColumnStats[]): Html {
  const rows = columns.map(
    (column) =>
      html`<tr>
        <td class="key">${column.key}${column.label !== column.key ? html`<br /><span class="note">${keyNote(column)}</span>` : null}</td>
        <td data-label="type">${column.type}</td>
        <td class="n" data-label="filled">${count(column.filled)}</td>
        <td class="n" data-label="fill">${percent(column.fill)}</td>
        <td class="n" data-label="distinct">${count(column.distinct)}</td>
        <td class="values" data-label="values">${valuesHtml(column)}</td>
      </tr>`,
  );
  const head = html`<th>column</th>
    <th>type</th>
    <th class="n">filled</th>
    <th class="n">fill</th>
    <th class="n">distinct</th>
    <th>values</th>`;
  return html`<section id="columns">
    <h2>Columns</h2>
    ${dataTable('columns', head, rows)}
  </section>`;
}

/** The report's one table template: the header cells, then the rows (each cell labelled for the narrow layout). */
function dataTable(kind: string, head: Html | Html[], rows: Html[]): Html {
  return html`<table class="${kind}">
    <thead>
      <tr>
        ${head}
      </tr>
    </thead>
    <tbody>
      ${rows}
    </tbody>
  </table>`;
}

// The report's one style sheet, inline: system fonts only, colours that print (print-color-adjust).

/** Okabe and Ito's palette: the states stay apart with the common colour-vision deficiencies (and the legend names them). */
export const STATE_COLOR: Record<RunState, string> = {
  success: '#009e73',
  failed: '#d55e00',
  skipped: '#999999',
  stopped: '#cc79a7',
  queued: '#e69f00',
  waiting: '#f0e442',
  running: '#0072b2',
  manual: '#56b4e9',
  none: '#e3e7eb',
};

/** System fonts only (nothing to download): the usual sans-serif of each platform. */
const SANS =
  '-apple-system, BlinkMacSystemFont, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans", "Liberation Sans", "DejaVu Sans", sans-serif';
const MONO = 'ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", "DejaVu Sans Mono", monospace';

const STATE_RULES = RUN_STATES.map((state) => `.state-${state} { fill: ${STATE_COLOR[state]}; }`).join('\n');

export const REPORT_CSS = `
:root { color-scheme: light; }
* { box-sizing: border-box; -webkit-print-color-adjust: exact; print-color-adjust: exact; }
body { margin: 0 auto; max-width: 1000px; padding: 24px 32px 48px; color: #1f2933;
  font: 14px/1.45 ${SANS}; background: #fff; }
h1 { font-size: 26px; margin: 0 0 4px; }
h2 { font-size: 18px; margin: 32px 0 8px; padding-bottom: 4px; border-bottom: 1px solid #e3e7eb; }
h3 { font-size: 15px; margin: 20px 0 6px; }
.facts, .note { color: #52606d; margin: 2px 0; }
svg { max-width: 100%; height: auto; }
svg text { font: 12px ${SANS}; fill: #323f4b; }
svg text.on-bar { fill: #fff; font-weight: 600; }
svg text.on-none, svg text.on-waiting { fill: #323f4b; }
.axis { stroke: #9aa5b1; stroke-width: 1; vector-effect: non-scaling-stroke; }
/* the charts' text is HTML (or SVG text in CSS pixels): its size is set here, never scaled with a chart */
.days { display: grid; grid-template-columns: max-content minmax(0, 1fr); column-gap: 6px; margin-top: 10px; font-size: 12px; color: #323f4b; }
.days .scale { display: flex; flex-direction: column; justify-content: space-between; text-align: right; line-height: 1; }
svg.plot { width: 100%; height: 140px; }
.days .dates { grid-column: 2; position: relative; height: 1.6em; }
.days .dates span { position: absolute; top: 3px; white-space: nowrap; }
.bars { display: grid; align-items: center; gap: 4px 10px; margin: 8px 0; font-size: 12px; color: #323f4b; }
.fill-bars { grid-template-columns: minmax(0, 14em) minmax(0, 1fr) max-content; }
.stack-bars { grid-template-columns: minmax(0, 14em) minmax(0, 1fr); }
.bars .label { text-align: right; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
svg.bar { width: 100%; height: 14px; display: block; }
svg.stack { width: 100%; height: 20px; display: block; }
.day { fill: #3b7fe0; }
.track { fill: #eef1f4; }
.fill { fill: #3b7fe0; }
${STATE_RULES}
.swatch { vertical-align: -1px; margin-right: 4px; }
.legend { display: flex; flex-wrap: wrap; gap: 4px 16px; margin: 6px 0 10px; color: #52606d; }
table { border-collapse: collapse; width: 100%; margin: 6px 0; }
th, td { text-align: left; vertical-align: top; padding: 4px 8px; border-bottom: 1px solid #eef1f4; }
th { font-weight: 600; color: #52606d; border-bottom-color: #cbd2d9; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.cause { font-weight: 600; }
td.example, td.ids, code { font-family: ${MONO}; font-size: 12px; }
td.example { color: #52606d; }
td.values, td.example, td.ids, td.cause, h1, h2, h3, p { overflow-wrap: anywhere; }
.count { color: #7b8794; font-variant-numeric: tabular-nums; }
footer { margin-top: 40px; color: #7b8794; font-size: 12px; }
/* a phone: nothing wider than the screen; each table row becomes a block of labelled lines */
@media (max-width: 600px) {
  body { padding: 12px 12px 32px; }
  h1 { font-size: 22px; }
  table, thead, tbody, tr, th, td { display: block; width: 100%; }
  thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
  tr { padding: 6px 0; border-bottom: 1px solid #cbd2d9; }
  td { border: 0; padding: 2px 0; }
  td.n { text-align: left; white-space: normal; }
  td[data-label]::before { content: attr(data-label) ": "; color: #7b8794; font-family: ${SANS}; }
  td.key, td.cause { font-weight: 600; }
  .fill-bars { grid-template-columns: minmax(0, 1fr) max-content; }
  .stack-bars { grid-template-columns: minmax(0, 1fr); }
  .bars { row-gap: 2px; font-size: 13px; }
  .bars .label { grid-column: 1 / -1; text-align: left; white-space: normal; overflow-wrap: anywhere; margin-top: 6px; }
}
/* paper: A4 with its margins, the wide layout (an A4 page is wider than a phone), no row or chart cut across pages */
@page { size: A4; margin: 16mm 14mm; }
@media print {
  body { padding: 0; max-width: none; font-size: 12px; }
  h1 { font-size: 22px; }
  h2 { font-size: 16px; margin-top: 24px; }
  h2, h3, .note { break-after: avoid; }
  svg, tr, .legend, .days, .bars { break-inside: avoid; }
  thead { display: table-header-group; }
  .bars .label { white-space: normal; overflow-wrap: anywhere; }
}
`;
