import { count, daysText, instantText, percent, rangeText } from './figure-text.js';
import { Html, html } from './html-text.js';
import { REPORT_CSS } from './html-style.js';
import { RUN_STATES, type ColumnStats, type TableStats } from './stats-report.js';
import { dayColumns, fillBars, stackedBars, swatch } from './svg-charts.js';
import { valuesText } from './terminal-columns.js';

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
    <table class="states">
      <thead>
        <tr>
          <th>column</th>
          ${head}
        </tr>
      </thead>
      <tbody>
        ${body}
      </tbody>
    </table>
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
    return html`<h3>${column.key}: ${count(causes)} ${causes === 1 ? 'cause' : 'causes'}</h3>
      <table class="causes">
        <thead>
          <tr>
            <th class="n">cells</th>
            <th>cause</th>
            <th>example message</th>
            <th>rows</th>
          </tr>
        </thead>
        <tbody>
          ${rows}
        </tbody>
      </table>
      ${more}`;
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

function columnsSection(columns: readonly ColumnStats[]): Html {
  const rows = columns.map(
    (column) =>
      html`<tr>
        <td class="key">${column.key}${column.label !== column.key ? html`<br /><span class="note">${column.label}</span>` : null}</td>
        <td data-label="type">${column.type}</td>
        <td class="n" data-label="filled">${count(column.filled)}</td>
        <td class="n" data-label="fill">${percent(column.fill)}</td>
        <td class="n" data-label="distinct">${count(column.distinct)}</td>
        <td class="values" data-label="values">${valuesHtml(column)}</td>
      </tr>`,
  );
  return html`<section id="columns">
    <h2>Columns</h2>
    <table class="columns">
      <thead>
        <tr>
          <th>column</th>
          <th>type</th>
          <th class="n">filled</th>
          <th class="n">fill</th>
          <th class="n">distinct</th>
          <th>values</th>
        </tr>
      </thead>
      <tbody>
        ${rows}
      </tbody>
    </table>
  </section>`;
}
