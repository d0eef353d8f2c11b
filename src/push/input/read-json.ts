import { describeJsonFault, findJsonFault } from '../../core/index.js';
import { parseExact, type ExactValue } from './exact-numbers.js';
import { InputError, type ParsedRecord, type ReadStats, type PlainObject } from './input-record.js';

// JSON and NDJSON input: records parsed one by one as the text streams in, their numbers exact
// (exact-numbers.ts), each one an object, and each error placed by line and record.

/**
 * JSON: one object, an array of objects, or {"data": [...]}; arrays are read element by element. The
 * records before a bad one are handed out before its error is thrown.
 */
export async function* readJson(texts: AsyncIterable<string>, source: string, stats: ReadStats): AsyncGenerator<ParsedRecord[]> {
  const splitter = new JsonRecordSplitter();
  /** The records of these raw texts; the ones before a bad record come with its error. */
  const convert = (raws: RawRecord[]): { records: ParsedRecord[]; error?: unknown } => {
    const records: ParsedRecord[] = [];
    try {
      for (const raw of raws) {
        const record = ++stats.records;
        let parsed: ExactValue;
        try {
          parsed = parseExact(raw.text);
        } catch {
          throw new InputError(
            source,
            { record, line: raw.line },
            `not valid JSON (${describeJsonFault(raw.text) ?? 'unreadable'} of the record)`,
          );
        }
        const input = toObjectRecord(parsed, { source, record, line: raw.line });
        if (raw.single && Array.isArray(input.value.data)) throw new InputError(source, {}, DATA_ALONE);
        records.push(input);
      }
    } catch (error) {
      return { records, error };
    }
    return { records };
  };
  const raws = async function* (): AsyncGenerator<RawRecord[]> {
    try {
      for await (const text of texts) yield splitter.push(text);
      yield splitter.end();
    } catch (error) {
      if (error instanceof JsonFrameError) throw new InputError(source, { line: error.line }, error.message);
      throw error;
    }
  };
  for await (const chunk of raws()) {
    const { records, error } = convert(chunk);
    if (records.length > 0) yield records;
    if (error) throw error;
  }
}

/**
 * NDJSON: one JSON object a line; blank lines are ignored; CRLF accepted. The records before a bad
 * line are handed out before its error is thrown.
 */
export async function* readNdjson(texts: AsyncIterable<string>, source: string, stats: ReadStats): AsyncGenerator<ParsedRecord[]> {
  let rest = '';
  let line = 0;
  const parseLines = (lines: string[]): { records: ParsedRecord[]; error?: unknown } => {
    const records: ParsedRecord[] = [];
    try {
      for (const text of lines) {
        line += 1;
        if (text.trim() === '') continue;
        const record = ++stats.records;
        let parsed: ExactValue;
        try {
          parsed = parseExact(text);
        } catch {
          const fault = findJsonFault(text);
          throw new InputError(source, { line }, `not valid JSON at column ${fault?.column ?? 1}: ${fault?.problem ?? 'unreadable'}`);
        }
        records.push(toObjectRecord(parsed, { source, record, line }));
      }
    } catch (error) {
      return { records, error };
    }
    return { records };
  };
  const lines = async function* (): AsyncGenerator<string[]> {
    for await (const text of texts) {
      const parts = (rest + text).split('\n');
      rest = parts.pop()!;
      yield parts;
    }
    yield [rest];
  };
  for await (const batch of lines()) {
    const { records, error } = parseLines(batch);
    if (records.length > 0) yield records;
    if (error) throw error;
  }
}

/** A parsed JSON value as a record, or an input error naming the record when it is not an object. */
function toObjectRecord(parsed: ExactValue, where: { source: string; record: number; line?: number }): ParsedRecord {
  const { value } = parsed;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`;
    throw new InputError(
      where.source,
      { record: where.record, line: where.line },
      `not an object (${kind}); each record must be a JSON object`,
    );
  }
  return { record: where.record, value: value as PlainObject, ...(parsed.numbers ? { numbers: parsed.numbers } : {}) };
}

// Splits a streamed JSON document into the raw text of its records, so a large array never has to
// be held in memory: one object (one record), an array of objects, or {"data": [...]} (its elements).
// Each element is handed out as text and parsed by the caller; the splitter checks only the frame.

interface RawRecord {
  text: string;
  /** 1-based line where the record starts. */
  line: number;
  /** the whole input was one object (not an element of an array) */
  single?: boolean;
}

class JsonFrameError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(message);
    this.name = 'JsonFrameError';
  }
}

type Mode = 'start' | 'prefix' | 'elements' | 'single' | 'after-array' | 'after-data' | 'done';

const SHAPES = 'JSON input must be one object, an array of objects, or {"data": [...]}';
const DATA_ALONE = 'a top-level object with a "data" array must have no other members (to send it as one record, wrap it in [ ])';
const DATA_FIRST = /^\{\s*"((?:[^"\\]|\\.)*)"\s*:\s*(\S)/;
const DATA_FIRST_SO_FAR = /^\{\s*(?:"(?:[^"\\]|\\.)*(?:\\|"\s*:?\s*)?)?$/;

class JsonRecordSplitter {
  private mode: Mode = 'start';
  private line = 1;
  /** elements: whether the array came from {"data": [...]} */
  private inData = false;
  /** prefix / single mode: the text so far */
  private held: string[] = [];
  // element scanning state
  private depth = 0;
  private inString = false;
  private escaped = false;
  private open = false;
  private expectElement = false;
  private elementParts: string[] = [];
  private elementLine = 0;

  /** Feeds the next piece of text; returns the records completed by it. */
  push(text: string): RawRecord[] {
    const out: RawRecord[] = [];
    this.feed(text, out);
    return out;
  }

  /** The input ended: returns the last record (single-object form) or throws when the frame is incomplete. */
  end(): RawRecord[] {
    switch (this.mode) {
      case 'start':
      case 'after-array':
      case 'done':
        return [];
      case 'single':
        this.mode = 'done';
        return [{ text: this.held.join(''), line: 1, single: true }];
      case 'prefix':
        throw new JsonFrameError('unexpected end of JSON input', this.line);
      case 'elements':
        throw new JsonFrameError('unexpected end of JSON input: the array is not closed', this.line);
      case 'after-data':
        throw new JsonFrameError('unexpected end of JSON input: the top-level object is not closed', this.line);
    }
  }

  private feed(text: string, out: RawRecord[]): void {
    switch (this.mode) {
      case 'start': {
        const at = text.search(/[^\s\uFEFF]/);
        if (at < 0) return this.countLines(text);
        this.countLines(text.slice(0, at));
        const first = text[at];
        if (first === '[') {
          this.mode = 'elements';
          this.expectElement = false;
          return this.scanElements(text, at + 1, out);
        }
        if (first === '{') {
          this.mode = 'prefix';
          return this.feed(text.slice(at), out);
        }
        throw new JsonFrameError(SHAPES, this.line);
      }
      case 'prefix': {
        this.held.push(text);
        const so = this.held.join('');
        const match = DATA_FIRST.exec(so);
        if (match && match[2] === '[' && decodeKey(match[1]!) === 'data') {
          this.held = [];
          this.mode = 'elements';
          this.inData = true;
          this.countLines(match[0]);
          return this.scanElements(so, match[0].length, out);
        }
        if (!match && DATA_FIRST_SO_FAR.test(so)) {
          this.held = [so];
          return;
        }
        this.held = [so];
        this.mode = 'single';
        return;
      }
      case 'single':
        this.held.push(text);
        return;
      case 'elements':
        return this.scanElements(text, 0, out);
      case 'after-array':
      case 'after-data':
      case 'done':
        return this.scanTail(text, 0);
    }
  }

  private scanTail(text: string, from: number): void {
    for (let i = from; i < text.length; i += 1) {
      const c = text.charCodeAt(i);
      if (c === 10) this.line += 1;
      else if (c === 32 || c === 9 || c === 13) continue;
      else if (c === 125 && this.mode === 'after-data') this.mode = 'done';
      else throw new JsonFrameError(this.mode === 'after-data' ? DATA_ALONE : 'unexpected text after the end of the JSON input', this.line);
    }
  }

  private scanElements(text: string, from: number, out: RawRecord[]): void {
    let start = this.open ? from : -1;
    let i = from;
    const n = text.length;
    for (; i < n; i += 1) {
      const c = text.charCodeAt(i);
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === 92) this.escaped = true;
        else if (c === 34) this.inString = false;
        else if (c === 10) this.line += 1;
        continue;
      }
      if (c === 32 || c === 9 || c === 13) continue;
      if (c === 10) {
        this.line += 1;
        continue;
      }
      if (this.depth === 0) {
        if (c === 44) {
          if (!this.open) throw new JsonFrameError('expected a record before ","', this.line);
          this.emit(text, start, i, out);
          start = -1;
          this.expectElement = true;
          continue;
        }
        if (c === 93 || c === 125) {
          if (c === 125) throw new JsonFrameError('unexpected "}" in the array', this.line);
          if (this.open) this.emit(text, start, i, out);
          else if (this.expectElement) throw new JsonFrameError('expected a record after ","', this.line);
          this.mode = this.inData ? 'after-data' : 'after-array';
          return this.scanTail(text, i + 1);
        }
        if (!this.open) {
          this.open = true;
          this.expectElement = false;
          this.elementLine = this.line;
          start = i;
        }
      }
      if (c === 34) this.inString = true;
      else if (c === 123 || c === 91) this.depth += 1;
      else if (c === 125 || c === 93) this.depth -= 1;
    }
    if (this.open) this.elementParts.push(text.slice(start, n));
  }

  private emit(text: string, start: number, end: number, out: RawRecord[]): void {
    this.elementParts.push(text.slice(start, end));
    out.push({ text: this.elementParts.join(''), line: this.elementLine });
    this.elementParts = [];
    this.open = false;
  }

  private countLines(text: string): void {
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) this.line += 1;
  }
}

function decodeKey(raw: string): string | undefined {
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return undefined;
  }
}
