// emulator/churn/: rows that change over time (--churn). Surface: Churn (churn.ts, with the rows it adds)
// and its spec (churn-rates.ts, apart so `tds emulator` parses it cheaply).

export { ChurnSpecError, parseChurnRates } from './churn-rates.js';
export { Churn } from './churn.js';
