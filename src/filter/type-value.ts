import { DATE_PRESETS, type Field, type FilterValue, type Operator } from '../service/index.js';
import { DATE_EXAMPLE, toIsoDateTime } from './dates.js';
import { FilterError, quoted } from './errors.js';
import { booleanOf, isNumberText, type WhereValue } from './parser.js';
import { raise, valueKind, valueProblem } from './problems.js';
import { describeField } from './resolve.js';
import { didYouMean } from '../core/index.js';

// A written value → the JSON value the service gets, by operator and column type: numbers for
// number columns, true/false for boolean ones, ISO 8601 date-times for dates, option values
// for selects, strings elsewhere; lists of strings for in/notIn/containsAnyOf/…, {start, end}
// for between. The operator is already known to suit the column.

type Scalar = Exclude<WhereValue, { type: 'list' } | { type: 'range' }>;

const OPTIONS_SHOWN = 20;

export function typeValue(value: WhereValue | undefined, operator: Operator, field: Field): FilterValue | undefined {
  const kind = valueKind(operator);
  if (kind === 'none' || value === undefined) {
    raise(valueProblem(operator, value));
    return undefined;
  }
  switch (kind) {
    case 'list':
    case 'anyOfList': {
      if (value.type === 'range') throw rangeMisplaced();
      const items = value.type === 'list' ? value.items : [value];
      return items.map((item) => {
        const text = textOf(single(item, operator));
        return field.type === 'select' || field.type === 'multi_select' ? optionValue(text, field) : text;
      });
    }
    case 'range':
      if (value.type !== 'range') {
        throw new FilterError('between takes a range START..END', { hint: 'e.g. 2024-01-01..2024-01-31' });
      }
      return {
        start: dateOf(single(value.start, operator), 'the range start'),
        end: dateOf(single(value.end, operator), 'the range end', true),
      };
    case 'preset': {
      const text = textOf(single(value, operator));
      const preset = DATE_PRESETS.find((name) => name.toLowerCase() === text.toLowerCase());
      if (preset) return preset;
      const suggestion = didYouMean(text, DATE_PRESETS);
      throw new FilterError(`unknown date preset ${quoted(text)}`, {
        hint: `${suggestion ? `${suggestion} ` : ''}presets: ${DATE_PRESETS.join(', ')}`,
      });
    }
    default:
      return scalarOf(single(value, operator), field);
  }
}

function scalarOf(value: Scalar, field: Field): FilterValue {
  const text = textOf(value);
  switch (field.type) {
    case 'number': {
      const number = value.type === 'boolean' || !isNumberText(text) ? NaN : Number(text);
      if (!Number.isFinite(number))
        throw new FilterError(`column ${describeField(field)} holds numbers, and ${quoted(text)} is not a number`);
      return number;
    }
    case 'boolean': {
      const bool = value.type === 'boolean' ? value.value : booleanOf(text);
      if (bool === undefined) throw new FilterError(`column ${describeField(field)} holds true/false, and ${quoted(text)} is neither`);
      return bool;
    }
    case 'date':
      return dateOf(value, 'the value');
    case 'select':
      return optionValue(text, field);
    default:
      return text;
  }
}

function dateOf(value: Scalar, what: string, endOfDay = false): string {
  const text = textOf(value);
  const date = toIsoDateTime(text, { endOfDay });
  if (date !== undefined) return date;
  throw new FilterError(`${what} ${quoted(text)} is not a date or a date-time with a time zone`, { hint: `write ${DATE_EXAMPLE}` });
}

/** A select value may be written as an option's value or label; the service gets the value. */
function optionValue(text: string, field: Field): string {
  const options = field.options ?? [];
  if (options.length === 0 || options.some((option) => option.value === text)) return text;
  const byLabel = options.filter((option) => option.label === text);
  if (byLabel.length === 1) return (byLabel[0] as (typeof options)[number]).value;
  if (byLabel.length > 1) {
    throw new FilterError(`column ${describeField(field)} has ${byLabel.length} options labelled ${quoted(text)}`, {
      hint: `write the option value instead: ${byLabel.map((option) => option.value).join(', ')}`,
    });
  }
  const listed = options
    .slice(0, OPTIONS_SHOWN)
    .map((option) => (option.label === option.value ? `"${option.value}"` : `"${option.label}" (${option.value})`));
  const more = options.length > OPTIONS_SHOWN ? `, and ${options.length - OPTIONS_SHOWN} more` : '';
  throw new FilterError(`column ${describeField(field)} has no option ${quoted(text)}`, {
    hint: `its options: ${listed.join(', ')}${more}`,
  });
}

function single(value: WhereValue, operator: Operator): Scalar {
  if (value.type === 'range') throw rangeMisplaced();
  if (value.type === 'list') {
    throw new FilterError(`${operator} takes one value, not a list`, {
      hint: 'lists go with in, notIn, containsAnyOf and doesNotContainAnyOf',
    });
  }
  return value;
}

function textOf(value: Scalar): string {
  return value.type === 'boolean' ? String(value.value) : value.text;
}

function rangeMisplaced(): FilterError {
  return new FilterError('a range START..END only goes with between');
}
