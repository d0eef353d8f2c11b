// Where a JSON text is invalid, said without quoting it: JSON.parse's messages quote the text around
// the fault, and that text may be a secret (an API key file passed as --filter @key.txt).

export interface JsonFault {
  /** 1-based */
  line: number;
  /** 1-based, in characters */
  column: number;
  /** what is wrong there, in words that quote nothing */
  problem: string;
}

/** `line 3, column 14: unexpected character` for an invalid JSON text (undefined when it is valid). */
export function describeJsonFault(text: string): string | undefined {
  const fault = findJsonFault(text);
  return fault && `line ${fault.line}, column ${fault.column}: ${fault.problem}`;
}

export function findJsonFault(text: string): JsonFault | undefined {
  const scan = new Scanner(text);
  try {
    scan.whitespace();
    scan.value();
    scan.whitespace();
    if (scan.at < text.length) scan.fail('unexpected text after the end of the JSON value');
    return undefined;
  } catch (error) {
    if (!(error instanceof Fault)) throw error;
    return place(text, error.at, error.problem);
  }
}

class Fault {
  constructor(
    readonly at: number,
    readonly problem: string,
  ) {}
}

/** A validating JSON scanner; iterative over nesting (an explicit stack), so no depth can overflow it. */
class Scanner {
  at = 0;
  constructor(private readonly text: string) {}

  fail(problem: string): never {
    throw new Fault(this.at, this.at >= this.text.length ? 'the JSON text ends too early' : problem);
  }

  whitespace(): void {
    while (this.at < this.text.length && ' \t\n\r'.includes(this.text[this.at]!)) this.at += 1;
  }

  value(): void {
    const closers: string[] = [];
    let expectValue = true;
    for (;;) {
      this.whitespace();
      if (expectValue) {
        expectValue = this.open(closers);
        continue;
      }
      const closer = closers[closers.length - 1];
      if (closer === undefined) return;
      const c = this.text[this.at];
      this.at += 1;
      if (c === ',') {
        if (closer === '}') this.key();
        expectValue = true;
      } else if (c === closer) {
        closers.pop();
      } else {
        this.at -= 1;
        this.fail(`expected "," or "${closer}"`);
      }
    }
  }

  /** A value: a scalar (then false: a value is complete), or an opening bracket (then true unless it closes at once). */
  private open(closers: string[]): boolean {
    const c = this.text[this.at];
    if (c === '{' || c === '[') {
      const closer = c === '{' ? '}' : ']';
      this.at += 1;
      this.whitespace();
      if (this.text[this.at] === closer) {
        this.at += 1;
        return false;
      }
      closers.push(closer);
      if (c === '{') this.key();
      return true;
    }
    this.scalar();
    return false;
  }

  private scalar(): void {
    const c = this.text[this.at];
    if (c === '"') return this.string();
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return this.number();
    for (const word of ['true', 'false', 'null']) {
      if (this.text.startsWith(word, this.at)) {
        this.at += word.length;
        return;
      }
    }
    this.fail('unexpected character');
  }

  private key(): void {
    this.whitespace();
    if (this.text[this.at] !== '"') this.fail('expected a property name in double quotes');
    this.string();
    this.whitespace();
    if (this.text[this.at] !== ':') this.fail('expected ":" after the property name');
    this.at += 1;
    this.whitespace();
  }

  private string(): void {
    for (this.at += 1; this.at < this.text.length; this.at += 1) {
      const c = this.text.charCodeAt(this.at);
      if (c === 34) {
        this.at += 1;
        return;
      }
      if (c < 0x20) this.fail('a control character inside a string');
      if (c === 92) {
        this.at += 1;
        const escape = this.text[this.at];
        if (escape === 'u' && /^[\da-fA-F]{4}$/.test(this.text.slice(this.at + 1, this.at + 5))) this.at += 4;
        else if (escape === undefined || !'"\\/bfnrt'.includes(escape)) this.fail('an invalid escape in a string');
      }
    }
    this.fail('an unterminated string');
  }

  private number(): void {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(this.text.slice(this.at, this.at + 1100));
    if (!match) this.fail('an invalid number');
    this.at += match[0].length;
  }
}

function place(text: string, offset: number, problem: string): JsonFault {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) {
    line += 1;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1, problem };
}
