import { RUN_STATES, type RunState } from './stats-report.js';

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
.axis { stroke: #9aa5b1; stroke-width: 1; }
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
}
@media print {
  body { padding: 0; max-width: none; }
  h2 { break-after: avoid; }
  svg, tr, .legend { break-inside: avoid; }
  h3 { break-after: avoid; }
}
`;
