/**
 * The header of a design written in SQL (`--strategy design.sql`): the leading comment block declares, one
 * `-- @name value` line each, what a TypeScript design's data members say (id, title, guarantee, expect,
 * pausePoints.<operation>, caughtBy.<scenario>, …). It is checked with the module check's own zod schema,
 * so both kinds of design are held to the same rules, and a bad line is named by file and line number.
 */
import type { Strategy } from '../../../../strategies/contract.ts';
import { Errors } from '../../../errors.ts';
import { declarationSchema } from '../../../registry/strategy-module.ts';

/** What the header declares: a strategy's data members (the operations come from the file's functions). */
export type SqlDesignDeclaration = Pick<
  Strategy,
  | 'id'
  | 'title'
  | 'guarantee'
  | 'expect'
  | 'scenarios'
  | 'notApplicable'
  | 'minPostgres'
  | 'needs'
  | 'falseSoldOut'
  | 'caughtBy'
  | 'isolation'
  | 'pausePoints'
>;

/** One call of a function cannot commit part of its work, nor keep memory: only these two can be passed. */
export const SQL_PAUSE_POINTS = ['after-read', 'before-commit'] as const;

const TEXT_TAGS = ['id', 'title', 'guarantee', 'expect', 'notApplicable', 'falseSoldOut'] as const;
const LIST_TAGS = ['scenarios', 'needs', 'isolation'] as const;
/** `@<group>.<key> a, b`: one entry of a record of lists. */
const GROUPED_TAGS = ['pausePoints', 'caughtBy'] as const;
const KNOWN_TAGS = [...TEXT_TAGS, ...LIST_TAGS, 'minPostgres', ...GROUPED_TAGS.map((g) => `${g}.<name>`)];

interface HeaderTag {
  name: string;
  value: string;
  line: number;
}

/** The `-- @name value` lines of the leading comment block (blank lines and prose comments in between). */
export function headerTags(text: string): HeaderTag[] {
  const tags: HeaderTag[] = [];
  const lines = text.split('\n');
  for (const [index, raw] of lines.entries()) {
    const line = raw.trim();
    if (line === '') continue;
    if (!line.startsWith('--')) break;
    const tag = /^--\s*@(\S+)\s*(.*)$/.exec(line);
    if (tag) tags.push({ name: tag[1] ?? '', value: (tag[2] ?? '').trim(), line: index + 1 });
  }
  return tags;
}

const listOf = (value: string) => value.split(',').map((item) => item.trim());

/** The declaration the tags spell, before the schema checks it; a tag no design has is refused here. */
function declared(file: string, tags: readonly HeaderTag[]): Record<string, unknown> {
  const fields: Record<string, unknown> = { pausePoints: {} };
  const seen = new Set<string>();
  for (const { name, value, line } of tags) {
    const refuse = (why: string) => Errors.badInput(`${file}:${line}: @${name} ${why}`);
    if (seen.has(name)) throw refuse('is declared twice');
    seen.add(name);
    const [group, key, ...rest] = name.split('.');
    if ((TEXT_TAGS as readonly string[]).includes(name)) fields[name] = value;
    else if ((LIST_TAGS as readonly string[]).includes(name)) fields[name] = listOf(value);
    else if (name === 'minPostgres') {
      const version = /^(\d+)\s+(.+)$/.exec(value);
      if (!version) throw refuse(`must be "<major> <what the design needs from it>", got "${value}"`);
      fields.minPostgres = { major: Number(version[1]), needs: version[2] };
    } else if ((GROUPED_TAGS as readonly string[]).includes(group ?? '') && key && rest.length === 0) {
      const record = (fields[group ?? ''] ?? {}) as Record<string, string[]>;
      record[key] = listOf(value);
      fields[group ?? ''] = record;
    } else throw refuse(`is not a declaration of a design; known: ${KNOWN_TAGS.join(', ')}`);
  }
  return fields;
}

/** Pause points a function call cannot pass, refused at the line that declares them. */
function checkPausePoints(file: string, declaration: SqlDesignDeclaration, tags: readonly HeaderTag[]) {
  for (const [operation, points] of Object.entries(declaration.pausePoints)) {
    const other = points.find((point) => !(SQL_PAUSE_POINTS as readonly string[]).includes(point));
    if (other === undefined) continue;
    const line = tags.find((tag) => tag.name === `pausePoints.${operation}`)?.line ?? 1;
    throw Errors.badInput(
      `${file}:${line}: @pausePoints.${operation} ${other}: a design in SQL passes only ${SQL_PAUSE_POINTS.join(' and ')} (one function call commits once)`,
    );
  }
}

/** The schema's first complaint as `file:line: @tag what is wrong`, at the tag it is about. */
function headerProblem(
  file: string,
  tags: readonly HeaderTag[],
  issue: { path: PropertyKey[]; message: string; code: string } | undefined,
): string {
  const path = (issue?.path ?? []).map(String);
  const name = path.slice(0, 2).join('.');
  const tag = tags.find((t) => t.name === name) ?? tags.find((t) => t.name === path[0]);
  if (!tag) {
    return issue?.code === 'custom'
      ? `${file}:1: @${name}: ${issue.message}`
      : `${file}:1: @${name} is missing`;
  }
  return `${file}:${tag.line}: @${tag.name} ${issue?.message ?? 'is not valid'} (got "${tag.value}")`;
}

/**
 * The header's declaration, or a bad-input error naming the file, the line and what is wrong with it (a
 * member the header lacks is named at line 1).
 */
export function parseSqlDesignHeader(file: string, text: string): SqlDesignDeclaration {
  const tags = headerTags(text);
  if (tags.length === 0) {
    throw Errors.badInput(
      `${file}:1: no header: a design in SQL begins with "-- @id …", "-- @title …" lines (docs/contract.md)`,
    );
  }
  const parsed = declarationSchema.safeParse(declared(file, tags));
  if (!parsed.success) throw Errors.badInput(headerProblem(file, tags, parsed.error.issues[0]));
  const declaration = parsed.data as SqlDesignDeclaration;
  checkPausePoints(file, declaration, tags);
  return declaration;
}
