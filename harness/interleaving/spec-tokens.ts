/**
 * The spec's tokens, as the tester's scanner (specscanner.l) reads them, and a cursor that hands them to
 * the parser in order.
 */

/** Throws the one-line error for the source offset `at`. */
export type Fail = (at: number, message: string) => never;

export type Token =
  | { kind: 'word' | 'quoted' | 'integer'; text: string; at: number }
  | { kind: 'punct'; text: '(' | ')' | ',' | '*'; at: number }
  /** `at` is where the `{` is, `bodyAt` where the text starts. */
  | { kind: 'block'; text: string; at: number; bodyAt: number }
  | { kind: 'end'; text: ''; at: number };

const KEYWORDS = new Set(['notices', 'permutation', 'session', 'setup', 'step', 'teardown']);

const BLANK = /[ \t\r\f]/;

export function tokenize(source: string, fail: Fail): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const c = source[i] ?? '';
    if (c === '\n' || BLANK.test(c)) {
      i += 1;
    } else if (c === '#') {
      while (i < source.length && source[i] !== '\n') i += 1;
    } else if (/[A-Za-z_]/.test(c)) {
      const word = /[A-Za-z_][A-Za-z0-9_]*/y;
      word.lastIndex = i;
      const text = word.exec(source)?.[0] ?? c;
      tokens.push({ kind: 'word', text, at: i });
      i += text.length;
    } else if (/[0-9]/.test(c)) {
      const digits = /[0-9]+/y;
      digits.lastIndex = i;
      const text = digits.exec(source)?.[0] ?? c;
      tokens.push({ kind: 'integer', text, at: i });
      i += text.length;
    } else if (c === '"') {
      let text = '';
      let j = i + 1;
      for (;;) {
        const d = source[j];
        if (d === undefined) fail(i, 'unterminated quoted identifier');
        if (d === '\n') fail(j, 'unexpected newline in quoted identifier');
        if (d === '"' && source[j + 1] === '"') {
          text += '"';
          j += 2;
        } else if (d === '"') {
          break;
        } else {
          text += d;
          j += 1;
        }
      }
      tokens.push({ kind: 'quoted', text, at: i });
      i = j + 1;
    } else if (c === '{') {
      const close = source.indexOf('}', i + 1);
      if (close < 0) fail(i, 'unterminated sql block');
      let from = i + 1;
      let to = close;
      while (from < to && BLANK.test(source[from] ?? '')) from += 1;
      while (to > from && BLANK.test(source[to - 1] ?? '')) to -= 1;
      tokens.push({ kind: 'block', text: source.slice(from, to), at: i, bodyAt: from });
      i = close + 1;
    } else if (c === '(' || c === ')' || c === ',' || c === '*') {
      tokens.push({ kind: 'punct', text: c, at: i });
      i += 1;
    } else {
      fail(i, `syntax error: unexpected character "${c}"`);
    }
  }
  tokens.push({ kind: 'end', text: '', at: source.length });
  return tokens;
}

export function describe(token: Token): string {
  if (token.kind === 'end') return 'end of file';
  if (token.kind === 'block') return 'a { block }';
  return `"${token.text}"`;
}

export const isKeyword = (token: Token, keyword: string) => token.kind === 'word' && token.text === keyword;
export const isName = (token: Token) =>
  token.kind === 'quoted' || (token.kind === 'word' && !KEYWORDS.has(token.text));

export class TokenCursor {
  private next = 0;
  private readonly end: Token;

  constructor(
    private readonly tokens: readonly Token[],
    private readonly fail: Fail,
    sourceLength: number,
  ) {
    this.end = { kind: 'end', text: '', at: sourceLength };
  }

  peek(): Token {
    return this.tokens[this.next] ?? this.end;
  }

  take(): Token {
    const token = this.peek();
    if (token.kind !== 'end') this.next += 1;
    return token;
  }

  /** Takes `keyword` if it comes next. */
  accept(keyword: string): boolean {
    if (!isKeyword(this.peek(), keyword)) return false;
    this.take();
    return true;
  }

  block(what: string): string {
    const token = this.take();
    if (token.kind !== 'block') this.fail(token.at, `expected { ${what} }, got ${describe(token)}`);
    return token.text;
  }

  name(what: string): { name: string; at: number } {
    const token = this.take();
    if (!isName(token)) this.fail(token.at, `expected ${what}, got ${describe(token)}`);
    return { name: token.text, at: token.at };
  }
}
