import { lastLines, runClient, type ClientRun } from './client.js';
import type { Step } from './history.js';
import { changesBetween, setsDiffer, versionsOfSnapshot, type Ledger } from './invariants.js';
import { pruneHorizons } from './lake-view.js';
import { DATE_RESOLUTION_MS, deletionsPlaced, deletionUnplaced, mirroredTables, versionsOf } from './mirror-view.js';
import type { World } from './world.js';

// The diff step: \`tds diff\` over a span of the history's moments, judged against the oracle's snapshots
// (invariant 5): the difference of the two, or exit 2 naming the earliest moment the mirror answers for.

export async function diffStep(
  world: World,
  ledger: Ledger,
  step: Extract<Step, { kind: 'diff' }>,
  checkRun: (run: ClientRun) => void,
): Promise<void> {
  const mirrored = await mirroredTables(world);
  if (mirrored.length === 0) return;
  const target = world.inSimOrder(mirrored)[step.table % mirrored.length]!;
  const count = world.moments.length;
  const since = step.since % count;
  // the end of the span: a moment the mirror was exact at, where there is one after `since`
  const exactAfter = Array.from({ length: count - since }, (_, k) => since + k).filter((moment) =>
    ledger.exact.get(moment)?.has(target.tableId),
  );
  const until = exactAfter.length > 0 ? exactAfter[step.until % exactAfter.length]! : since + (step.until % (count - since));
  const [a, b] = [world.moments[since]!, world.moments[until]!];
  const run = await runClient(world, ['diff', target.tableId, '--since', a.at, '--until', b.at, '--format', 'ndjson']);
  checkRun(run);
  const first = ledger.firstSyncAt.get(target.tableId);
  const beforeFirst = first !== undefined && Date.parse(a.at) < Date.parse(first);
  const horizon = (await pruneHorizons(world)).get(target.tableId);
  if (horizon && !beforeFirst && Date.parse(a.at) < horizon.from) {
    // before what --prune-history kept: refused, naming the earliest moment the history answers for
    const named = new Date(horizon.from).toISOString().slice(0, 16);
    ledger.check(
      run.code === 2 && run.stderr.replace(' ', 'T').includes(named.slice(0, 10)),
      5,
      () =>
        `tds diff ${target.mirrorTable} --since ${a.at} (before the prune's horizon ${new Date(horizon.from).toISOString()}) exited ${run.code}: ${lastLines(run.stderr)}`,
    );
    return;
  }
  const firstEnd = ledger.firstSyncEndedAt.get(target.tableId);
  if (run.code === 2 && !beforeFirst && firstEnd !== undefined && Date.parse(a.at) < Date.parse(firstEnd) + DATE_RESOLUTION_MS) {
    // the first sync's end is known to the second on the service's clock (its Date header) and counted at its
    // latest: a moment within a second of it may be refused, naming an earliest moment after it and within that second
    const named = /it answers for (\S+) \(the end of the table's first sync\)/.exec(run.stderr)?.[1];
    const at = named === undefined ? NaN : Date.parse(named);
    ledger.check(
      at > Date.parse(a.at) && at <= Date.parse(firstEnd) + DATE_RESOLUTION_MS,
      5,
      () => `tds diff ${target.mirrorTable} --since ${a.at} (the first sync ended at ${firstEnd}) exited 2: ${lastLines(run.stderr)}`,
    );
    return;
  }
  const exactAt = (moment: number): boolean => ledger.exact.get(moment)?.has(target.tableId) === true;
  const judged = (beforeFirst || exactAt(since)) && exactAt(until) && a.tables.has(target.tableId) && b.tables.has(target.tableId);
  if (!judged) return;
  if (run.code === 2 && beforeFirst) return;
  ledger.check(
    run.code === 0,
    5,
    () => `tds diff ${target.mirrorTable} --since ${a.at} --until ${b.at} exited ${run.code}: ${lastLines(run.stderr)}`,
  );
  const deletions = deletionsPlaced(target);
  const placed = deletions ? (await versionsOf(world, new Map([['deleted', deletions]]))).get('deleted') : undefined;
  const ambiguousAt = (id: string, at: string): boolean => world.ambiguousAt(id, at) || deletionUnplaced(placed, id, at);
  const ambiguous = (id: string): boolean => ambiguousAt(id, a.at) || ambiguousAt(id, b.at);
  const keep = (row: { id: string }): boolean => !ambiguous(row.id);
  const expected = changesBetween(
    versionsOfSnapshot(a.tables.get(target.tableId)!, keep),
    versionsOfSnapshot(b.tables.get(target.tableId)!, keep),
  );
  const actual = new Set(
    run.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { change: string; _id: string })
      .filter((record) => !ambiguous(record._id))
      .map((record) => `${record.change}:${record._id}`),
  );
  const differs = setsDiffer(expected, actual);
  const where = beforeFirst ? ' (a moment before the first sync, which the mirror did not see)' : '';
  ledger.check(differs === '', 5, () => `tds diff ${target.mirrorTable} --since step ${a.step}${where} --until step ${b.step}: ${differs}`);
}
