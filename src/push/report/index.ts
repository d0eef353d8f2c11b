// push/report/: what a push tells. Surface: PushReport (push-report.ts: warnings, the summary printed, the
// error a push ends with), the summary and record ranges (summary.ts).

export { PushReport, type KeyReport } from './push-report.js';
export { rangesOf, type PushSummary } from './summary.js';
