// push/input/: reading the input. Surface: readInput (read-input.ts) and the records, formats and errors
// of input-record.ts, the input's encoding (utf8-text.ts) and numbers kept exact (exact-numbers.ts); the
// readers per format (read-json.ts, read-delimited.ts) are its own.

export { exactText } from './exact-numbers.js';
export {
  csvDelimiter,
  INPUT_FORMATS,
  inputFormatOf,
  type InputFormat,
  type InputRecord,
  type PlainObject,
  type ReadStats,
} from './input-record.js';
export { inputWarnings, readInput, type ReadOptions } from './read-input.js';
export { encodingNote, parseInputEncoding, type InputEncoding } from './utf8-text.js';
